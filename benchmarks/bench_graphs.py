"""Accuracy studies of DP-MOTkIN (dpmo.graphs) on GitHub and Enron (the timings are in test_graphs.py).

Usage (from the repository root; the real graphs are read from ../shared/data or $DPMO_DATA_DIR)::

    python benchmarks/bench_graphs.py recall            # DP-MOTkIN-Agg mean recall over the epsilon grid
    python benchmarks/bench_graphs.py pareto --reps 100 # the Pareto investigation (docs/graphs.md)
    python benchmarks/bench_graphs.py all

Every figure is printed; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DPMO_DATA_DIR", REPO.parent / "shared" / "data"))
GRAPHS = {"github": "musae_git_edges.csv", "enron": "Email-Enron.txt"}
#: Public node sets: the published node counts (ids 0..n-1), never read from the edges.
NODES = {"github": 37_700, "enron": 36_692}
EPS_PARETO = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
EPS_AGG = (0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 100.0)
#: (label, low_degree, formula): the paper's formula with 0 for degree < 2 (dpmo's default); the published
#: code's leaf convention (degree-1 nodes at 1); the published code's full convention (also no factor 2).
CONVENTIONS = [
    ("paper, d<2 -> 0", 0.0, "paper"),
    ("paper, d<2 -> 1", 1.0, "paper"),
    ("published", 1.0, "published"),
]


# ----------------------------------------------------------------------------------------------------------
# DP-MOTkIN-Agg recall (the paper's Figure "Mean recall for DP-MOTkIN-Agg")
# ----------------------------------------------------------------------------------------------------------
def recall(reps: int) -> None:
    import dpmo
    from dpmo import graphs

    print(f"\n## DP-MOTkIN-Agg mean recall of the exact top-5, weights (1, 100), {reps} runs")
    for name, file in GRAPHS.items():
        g = graphs.load_graph(DATA / file, nodes=NODES[name])
        exact = graphs.top_k_exact(g, 5, approach="agg")
        print(f"\n{name}: | epsilon | " + " | ".join(f"{e:g}" for e in EPS_AGG) + " |")
        print("|---|" + "---|" * len(EPS_AGG))
        for sensitivity in ("local", "global"):
            vals = []
            for eps in EPS_AGG:
                r = [
                    dpmo.metrics.recall(
                        graphs.top_k(g, 5, eps, approach="agg", sensitivity=sensitivity, rng=s), exact
                    )
                    for s in range(reps)
                ]
                vals.append(np.mean(r))
            print(f"| Agg {sensitivity} | " + " | ".join(f"{v:.3f}" for v in vals) + " |", flush=True)


# ----------------------------------------------------------------------------------------------------------
# The Pareto investigation
# ----------------------------------------------------------------------------------------------------------
def _coverage_mask(points, ref_idx, dominance):
    import dpmo

    return dpmo.metrics.dominates(points[ref_idx], points, dominance=dominance).any(axis=0)


def pareto(reps: int, reps_two_stage: int) -> None:
    import dpmo
    from dpmo import graphs

    for name, file in GRAPHS.items():
        g = graphs.load_graph(DATA / file, nodes=NODES[name])
        for label, low, formula in CONVENTIONS:
            conv = dict(low_degree=low, formula=formula)
            pts = g.points(**conv)
            objs = graphs.objectives(g, **conv)
            delta0 = dpmo.pareto_sensitivity(objs)(0)
            D, _ = graphs.selection_scores(g, approach="pareto", sensitivity="local", **conv)
            PS, n1 = graphs.selection_scores(g, approach="pareto", sensitivity="global", **conv)
            front = g.index(graphs.pareto_front(g, **conv))
            weak = g.index(graphs.pareto_front(g, dominance="weak", **conv))
            strict = g.index(graphs.pareto_front(g, dominance="strict", **conv))
            top3 = g.index(graphs.top_k_exact(g, 3, approach="pareto", **conv))
            print(f"\n## {name}, ego density convention: {label}")
            print(
                f"n = {g.n_nodes}; Pareto front: {front.size} nodes (textbook dominance), "
                f"{weak.size} with Pareto score 0 (weak), {strict.size} not strictly dominated; "
                "exact top-3 (ties: larger degree first) "
                f"= {pts[top3].round(4).tolist()}"
            )
            print(
                f"delta^PS at t = 0: median {np.median(delta0):.0f}, mean {delta0.mean():.0f}, "
                f"share of nodes with delta^PS(0) >= 1000: {np.mean(delta0 >= 1000):.3f}; "
                "dampened Pareto scores "
                f"in [{D.min():.3f}, {D.max():.3f}], median {np.median(D):.3f}"
            )
            masks = {dom: _coverage_mask(pts, top3, dom) for dom in ("strict", "pareto")}
            in_front = np.zeros(g.n_nodes, dtype=bool)
            in_front[front] = True
            print(
                "\nExact per-pick figures (first round of k = 3, epsilon / 3 per pick, "
                "exponential mechanism):"
            )
            print(
                "| epsilon | P(front) local | P(front) global | E[C] strict local | E[C] strict global "
                "| E[C] pareto local | E[C] pareto global |"
            )
            print("|---|---|---|---|---|---|---|")
            for eps in EPS_PARETO:
                pl = np.exp(dpmo.probabilities(D, eps / 3, 1.0, mechanism="exponential", log=True))
                pg = np.exp(dpmo.probabilities(PS, eps / 3, n1, mechanism="exponential", log=True))
                print(
                    f"| {eps:g} | {pl[in_front].sum():.4f} | {pg[in_front].sum():.4f} | "
                    f"{pl[masks['strict']].sum():.3f} | {pg[masks['strict']].sum():.3f} | "
                    f"{pl[masks['pareto']].sum():.3f} | {pg[masks['pareto']].sum():.3f} |"
                )
            # the metric's tie to 3 of the optimal nodes: C of a uniformly random node against other choices
            rng = np.random.default_rng(0)
            choices = {
                "3 of largest degree (dpmo)": top3,
                "3 of largest ego density": weak[np.lexsort((-pts[weak, 0], -pts[weak, 1]))[:3]],
                "3 of smallest original id": np.sort(weak)[:3],
            }
            rand_c = [
                _coverage_mask(pts, rng.choice(weak, 3, replace=False), "strict").mean() for _ in range(200)
            ]
            print(
                "\nC (strict) of a uniformly random node against different choices of 'the' top-3 among the "
                f"{weak.size} nodes of score 0: "
                + "; ".join(f"{k}: {_coverage_mask(pts, v, 'strict').mean():.3f}" for k, v in choices.items())
                + f"; 3 at random: mean {np.mean(rand_c):.3f}, "
                + f"range [{np.min(rand_c):.3f}, {np.max(rand_c):.3f}]"
            )
            if label == "paper, d<2 -> 1":
                continue  # sampled runs for the default and the published convention only (time)
            _sampled(g, conv, pts, front, top3, reps, reps_two_stage)


def _sampled(g, conv, pts, front, top3, reps, reps_two_stage) -> None:
    import dpmo
    from dpmo import graphs

    front_ids = g.ids[front]
    ps = graphs.pareto_scores(g, **conv)
    optimal_ids = g.ids[ps == 0]
    ref = pts[top3]

    def summary(picks_list):
        fs = np.mean([dpmo.metrics.front_share(p, front_ids) for p in picks_list])
        opt = np.mean([dpmo.metrics.front_share(p, optimal_ids) for p in picks_list])
        cs = np.mean(
            [dpmo.metrics.coverage(ref, g.points(p, **conv), dominance="strict") for p in picks_list]
        )
        cp = np.mean(
            [dpmo.metrics.coverage(ref, g.points(p, **conv), dominance="pareto") for p in picks_list]
        )
        dom = np.median([np.mean(-ps[g.index(p)]) for p in picks_list])
        return fs, opt, cs, cp, dom

    print(
        f"\nSampled, k = 3, same seeds for every method ({reps} runs for PrivPareto, "
        f"{reps_two_stage} for the others). Cells: share of picks on the front (textbook) / share on the "
        "nodes of Pareto score 0 / mean C strict / mean C pareto / median number of nodes dominating a pick"
    )
    print(
        "| epsilon | Pareto local | Pareto global | two-stage m=30 | two-stage m=100 | two-stage m=100 PF "
        "| degree only |"
    )
    print("|---|---|---|---|---|---|---|")
    deg = g.degree.astype(float)
    for eps in EPS_PARETO:
        cells = []
        for sensitivity in ("local", "global"):
            r = reps if eps in (1.0, 10.0, 50.0) or sensitivity == "global" else min(reps, 20)
            picks = [
                graphs.top_k(g, 3, eps, approach="pareto", sensitivity=sensitivity, rng=s, **conv)
                for s in range(r)
            ]
            cells.append(summary(picks))
        for m, mech in ((30, "exponential"), (100, "exponential"), (100, "permute_and_flip")):
            picks = [
                graphs.top_k_two_stage(g, 3, eps, candidates=m, mechanism=mech, rng=s, **conv)
                for s in range(reps_two_stage)
            ]
            cells.append(summary(picks))
        picks = [g.ids[dpmo.select(deg, eps, 1.0, k=3, rng=s)] for s in range(reps_two_stage)]
        cells.append(summary(picks))
        print(
            f"| {eps:g} | "
            + " | ".join(f"{a:.3f} / {b:.3f} / {c:.2f} / {d:.2f} / {e:.0f}" for a, b, c, d, e in cells)
            + " |",
            flush=True,
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=["recall", "pareto", "all"])
    parser.add_argument("--reps", type=int, default=100, help="runs of PrivPareto per setting")
    parser.add_argument("--reps-fast", type=int, default=500, help="runs of the fast methods per setting")
    a = parser.parse_args(argv)
    if not DATA.is_dir():
        sys.exit(f"datasets not found in {DATA} (set DPMO_DATA_DIR)")
    print(f"# dpmo.graphs benchmark ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    if a.what in ("recall", "all"):
        recall(a.reps_fast)
    if a.what in ("pareto", "all"):
        pareto(a.reps, a.reps_fast)


if __name__ == "__main__":
    main()
