"""What approximate DP buys: DP-MOET and DP-MOTkIN utility over epsilon, pure or at (epsilon, delta).

Run from the repository root (the data are read from ``--data-dir``, default ``../shared/data``)::

    PYTHONPATH=src python benchmarks/bench_utility.py [trees|graphs|all] [--runs 50]
        [--epsilons 0.1,0.5,1,2] [--delta 0 [1e-6 ...]] [--json FILE]

``--delta`` takes one or more values; 0 is pure DP (the entry points called without ``delta=``), a value
> 0 is passed as ``delta=`` to ``DPMOETClassifier`` and ``dpmo.graphs.top_k`` (issue 30's accountant). The
script refuses, before computing anything, when the installed dpmo's entry points have no ``delta``.
The float samplers are used (``exact=False``: the same output distributions, faster), as by
``dpmo reproduce``. Run ``r`` uses seed ``r`` for every cell, so the columns are paired.

**Trees** (NLTCS, ACS, Adult; stratified 70/30 split with ``random_state = r``):

* DP-MOET-Agg: ``DPMOETClassifier(approach="agg")`` with the paper's aggregation settings, written out
  (100/20/2, depths 3/5, one output tree, weights (3, 2), equal rounds) and ``leaf_count_share=0``
  (these metrics read the trees only, so all of epsilon goes to the selections);
* DP-MOET-Chebyshev: ``approach="chebyshev"`` with the paper's Pareto-table settings (30/3/3, depths 4/10,
  three output trees), ``leaf_count_share=0``.

Metrics: coverage ``C(X', X'')`` (strict dominance, 0 best) of the private output trees' (TPR, TNR) on the
training part by those of a non-private run ``X'`` (seed ``10_000 + r``, one per run and method, shared by
every cell): NODP-MOET-Agg for Agg (the share of runs whose tree the non-private tree beats in both rates),
NODP-MOET-Pareto with the Pareto-table settings for Chebyshev (as in ``docs/pareto.md``); and the balanced
accuracy of ``predict`` (output tree 0) on the test part.

**Graphs** (GitHub and Enron on their published node counts, k = 10): DP-MOTkIN-Agg
(``graphs.top_k(approach="agg")``, weights (1, 100)) and DP-MOTkIN-Chebyshev (``approach="chebyshev"``,
the graph defaults). Metrics: recall of the exact top-k (by the weighted sum for Agg, by the Pareto score
for Chebyshev, as in ``dpmo reproduce``) and the hypervolume ratio of the picks (degree over ``n - 1``,
ego density over 1, reference 0) to the best of any k front nodes.

Cells: mean +- standard error over the runs.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from dpmo import graphs
from dpmo.datasets import load_acs, load_adult, load_nltcs
from dpmo.experiments.config import PAPER_TREE_AGG, PAPER_TREE_PARETO
from dpmo.experiments.methods import load_graph_data
from dpmo.metrics import coverage, recall
from dpmo.trees import DPMOETClassifier, EncodedData

HERE = Path(__file__).resolve().parent
TABLES = {"nltcs": load_nltcs, "acs": load_acs, "adult": load_adult}
GRAPHS = {"github": "musae_git_edges.csv", "enron": "Email-Enron.txt"}
PARETO_SETTINGS = PAPER_TREE_PARETO
#: The paper's aggregation settings, written out in dpmo.experiments.config (so that a change of the
#: estimator's defaults does not change this table); all of epsilon goes to the selections.
AGG_SETTINGS = dict(PAPER_TREE_AGG, final_share=None)
TREE_METHODS = {
    "DP-MOET-Agg": dict(AGG_SETTINGS, approach="agg"),
    "DP-MOET-Chebyshev": dict(PARETO_SETTINGS, approach="chebyshev"),
}
#: The non-private reference X' of each method's coverage: the method's own NODP run for Agg, the
#: paper's NODP-MOET-Pareto for Chebyshev (as in ``docs/pareto.md``).
TREE_REFERENCES = {
    "DP-MOET-Agg": dict(AGG_SETTINGS, approach="agg"),
    "DP-MOET-Chebyshev": dict(PARETO_SETTINGS, approach="pareto"),
}
GRAPH_METHODS = {"DP-MOTkIN-Agg": ("agg", "agg"), "DP-MOTkIN-Chebyshev": ("chebyshev", "pareto")}
K = 10


def check_deltas(deltas: list[float], families: list[str]) -> None:
    """Exit, before anything is computed, when a delta > 0 is asked of a dpmo that cannot take it."""
    if not any(d > 0 for d in deltas):
        return
    lacking = []
    if "trees" in families and "delta" not in DPMOETClassifier().get_params():
        lacking.append("DPMOETClassifier")
    if "graphs" in families and "delta" not in inspect.signature(graphs.top_k).parameters:
        lacking.append("dpmo.graphs.top_k")
    if lacking:
        import dpmo

        where = Path(dpmo.__file__).parent
        sys.exit(f"--delta {max(deltas):g}: the dpmo imported from {where} has no delta= parameter on "
                 f"{', '.join(lacking)} (approximate-DP accounting, issue 30). Run with --delta 0, or with a "
                 "dpmo that has it.")  # fmt: skip


def with_delta(delta: float) -> dict:
    return {"delta": delta} if delta > 0 else {}


def mean_se(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0
    return f"{x.mean():.3f} +- {se:.3f}"


def run_trees(args, root: Path) -> dict:
    out = {}
    for name, load in TABLES.items():
        data = load(root)
        y = np.asarray(data.y)
        parts = []
        for r in range(args.runs):
            train, test = train_test_split(np.arange(y.size), test_size=0.3, random_state=r, stratify=y)
            parts.append((EncodedData(data.X[train], y[train]), data.X[test], y[test]))
        for method, kw in TREE_METHODS.items():
            refs = []
            for r, (enc, _, _) in enumerate(parts):
                ref = DPMOETClassifier(None, random_state=10_000 + r, leaf_count_share=0,
                                       features=data.features, **TREE_REFERENCES[method])  # fmt: skip
                refs.append(ref.fit(enc).evaluate(enc))
            for delta in args.delta:
                for eps in args.epsilons:
                    cov, ba = [], []
                    start = time.process_time()
                    for r, (enc, Xte, yte) in enumerate(parts):
                        clf = DPMOETClassifier(eps, random_state=r, leaf_count_share=0, exact=False,
                                               features=data.features, **kw, **with_delta(delta))  # fmt: skip
                        clf.fit(enc)
                        cov.append(coverage(refs[r], clf.evaluate(enc)))
                        ba.append(balanced_accuracy_score(yte, clf.predict(Xte)))
                    cpu = (time.process_time() - start) / args.runs
                    out[(name, method, delta, eps)] = {"C": cov, "balanced accuracy": ba, "cpu": cpu}
                    print(f"  {name} {method} delta={delta:g} eps={eps:g}: C {mean_se(cov)}, "
                          f"BA {mean_se(ba)}", file=sys.stderr, flush=True)  # fmt: skip
    return out


def run_graphs(args, root: Path) -> dict:
    out = {}
    for name, file in GRAPHS.items():
        data = load_graph_data(name, [str(root / file)])
        for method, (approach, reference) in GRAPH_METHODS.items():
            exact = data.exact(reference, K)
            for delta in args.delta:
                for eps in args.epsilons:
                    rec, hv = [], []
                    start = time.process_time()
                    for r in range(args.runs):
                        picks = graphs.top_k(data.graph, K, eps, approach=approach, rng=r, exact=False,
                                             **with_delta(delta))  # fmt: skip
                        rec.append(recall(picks, exact))
                        hv.append(data.hypervolume_ratio(picks, K))
                    cpu = (time.process_time() - start) / args.runs
                    out[(name, method, delta, eps)] = {"recall": rec, "hypervolume ratio": hv, "cpu": cpu}
                    print(f"  {name} {method} delta={delta:g} eps={eps:g}: recall {mean_se(rec)}, "
                          f"HV {mean_se(hv)}", file=sys.stderr, flush=True)  # fmt: skip
    return out


def se(x) -> float:
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0


def table(results: dict, metrics: tuple[str, str], epsilons: list[float]) -> str:
    head = "| data | method | privacy | " + " | ".join(f"epsilon = {e:g}" for e in epsilons) + " |"
    lines = [head, "|" + "---|" * (3 + len(epsilons))]
    rows = sorted({key[:3] for key in results}, key=lambda k: (k[0], k[1], k[2]))
    for name, method, delta in rows:
        privacy = "pure" if delta == 0 else f"delta = {delta:g}"
        cells = []
        for eps in epsilons:
            r = results[(name, method, delta, eps)]
            cells.append(" / ".join(f"{np.mean(r[m]):.3f} ({se(r[m]):.3f})" for m in metrics))
        lines.append(f"| {name} | {method} | {privacy} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="all", choices=("trees", "graphs", "all"))
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--epsilons", default="0.1,0.5,1,2")
    ap.add_argument("--delta", type=float, nargs="+", default=[0.0])
    default_data = os.environ.get("DPMO_DATA_DIR", str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--data-dir", default=default_data)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    args.epsilons = [float(e) for e in args.epsilons.split(",")]
    families = ["trees", "graphs"] if args.what == "all" else [args.what]
    check_deltas(args.delta, families)
    warnings.filterwarnings("ignore")
    root = Path(args.data_dir)
    print(f"{args.runs} runs per cell, delta in {args.delta}; load average {os.getloadavg()[0]:.1f}")
    everything = {}
    if "trees" in families:
        res = run_trees(args, root)
        everything["trees"] = res
        print("\nTrees: C (0 best) / balanced accuracy on the test part, mean (standard error)\n")
        print(table(res, ("C", "balanced accuracy"), args.epsilons))
    if "graphs" in families:
        res = run_graphs(args, root)
        everything["graphs"] = res
        print(f"\nGraphs, k = {K}: recall of the exact top-k / hypervolume ratio, mean (standard error)\n")
        print(table(res, ("recall", "hypervolume ratio"), args.epsilons))
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        flat = {family: {" | ".join(map(str, key)): value for key, value in res.items()}
                for family, res in everything.items()}  # fmt: skip
        Path(args.json).write_text(json.dumps({"runs": args.runs, "results": flat}, indent=1))


if __name__ == "__main__":
    main()
