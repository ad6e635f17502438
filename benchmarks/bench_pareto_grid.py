"""Hypervolume ratio of private top-k picks over the paper's epsilons (graphs, k = 3): the measured table.

    python benchmarks/bench_pareto_grid.py [--runs 500] [--graphs github enron] [--methods ...]
        [--epsilons 0.1 0.5 1 2 5 10 20 50] [--out results.csv] [--data-dir ../shared/data]

For each graph (public node counts 37,700 and 36,692; or the held-out synthetic graphs of :func:`load`),
method and epsilon: the mean hypervolume ratio of
the ``k`` picks over seeds ``0 .. runs - 1`` with a 95% interval (mean +- 1.96 standard errors), and the
share of picks on the Pareto front. The ratio is the issue's measure: degree normalised by the largest
degree, ego density as it is, reference point (0, 0), over the best hypervolume of any ``k`` points of the
exact front (:func:`dpmo.metrics.best_hypervolume`; the ratio does not depend on the normalisation).
Each graph is loaded once (its utilities and dampened scores are cached on it). Every row is appended to
``--out`` (CSV) as soon as its cell is done, so a long run can be followed and resumed; cells already in
the file are skipped.

Methods: ``staircase`` (``top_k(approach="chebyshev")``'s data-adaptive default: the released graph where
:func:`dpmo.graphs.pair_response.uses_released_graph` holds (from epsilon 8.44-8.46 on GitHub and Enron);
below, for k = 3 the top-first plan at epsilon 1-2, a public coin between it and the staircase on (2, 5), else
the private staircase of :mod:`dpmo.staircase`), ``staircase-only`` (the staircase at every epsilon, the
default before the top-first plan), ``chebyshev-fixed`` (PrivChebyshev with the fixed graph settings
:func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`, the default before it), ``pareto-local`` and
``pareto-global`` (PrivPareto), ``two-stage`` (:func:`dpmo.graphs.top_k_two_stage`, 30-node shortlist).
The float samplers are used (``exact=False``: the same distributions, faster).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

import dpmo
from dpmo import graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach, graph_chebyshev_settings
from dpmo.metrics import best_hypervolume, front_share, hypervolume

GRAPHS = {"github": ("musae_git_edges.csv", 37_700), "enron": ("Email-Enron.txt", 36_692)}
#: Held-out graphs (never used to choose the settings): seeded synthetic graphs of about the same size.
SYNTHETIC = ("collaboration", "powerlaw-cluster")
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
METHODS = ("staircase", "staircase-only", "chebyshev-fixed", "pareto-local", "pareto-global", "two-stage")


def load(name: str, data_dir: str):
    """A real graph on its public node set, or a held-out synthetic one: ``collaboration``
    (:func:`dpmo.graphs.random_collaboration_graph` with 40,000 nodes and 200,000 edges, seed 1) or
    ``powerlaw-cluster`` (networkx's Holme-Kim graph: 30,000 nodes, m = 4, triangle probability 0.5,
    seed 1)."""
    if name == "collaboration":
        return graphs.random_collaboration_graph(40_000, 200_000, rng=1)
    if name == "powerlaw-cluster":
        import networkx as nx

        return graphs.load_graph(nx.powerlaw_cluster_graph(30_000, 4, 0.5, seed=1), nodes=30_000)
    file, n_public = GRAPHS[name]
    return graphs.load_graph(Path(data_dir) / file, nodes=n_public)


def pick(method: str, g, k: int, eps: float, seed: int) -> np.ndarray:
    if method == "staircase":  # the graph default: the released graph at large epsilon, else as below
        return graphs.top_k(g, k, eps, approach="chebyshev", rng=seed, exact=False)
    if method == "staircase-only":  # the staircase at every epsilon (the default before the top-first plan)
        objs = graphs.objectives(g)
        idx = dpmo.select_multiobjective(
            objs, eps, approach=GraphStaircaseApproach(k), k=k, rng=seed, exact=False
        )
        return g.ids[idx]
    if method == "chebyshev-fixed":
        W, A, S = graph_chebyshev_settings(g.n_nodes, k)
        return graphs.top_k(
            g, k, eps, approach="chebyshev", directions=W, aspirations=A, shares=S, rng=seed, exact=False
        )
    if method in ("pareto-local", "pareto-global"):
        sens = method.split("-")[1]
        return graphs.top_k(g, k, eps, approach="pareto", sensitivity=sens, rng=seed, exact=False)
    if method == "two-stage":
        return graphs.top_k_two_stage(g, k, eps, candidates=30, rng=seed)
    raise ValueError(f"unknown method {method!r}")


def interval(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0
    return float(x.mean()), float(half)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--graphs", nargs="+", default=list(GRAPHS), choices=[*GRAPHS, *SYNTHETIC])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    ap.add_argument("--out", default=None, help="CSV file the rows are appended to (cells in it are skipped)")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
    args = ap.parse_args(argv)
    done = set()
    fields = ["graph", "method", "epsilon", "runs", "hv_mean", "hv_half", "front_mean", "front_half", "cpu_s"]
    if args.out and Path(args.out).exists():
        with open(args.out) as f:
            done = {(r["graph"], r["method"], float(r["epsilon"])) for r in csv.DictReader(f)}
    print(f"k = {args.k}, {args.runs} runs per cell (seeds 0..{args.runs - 1}); mean [95% half-width]")
    for name in args.graphs:
        g = load(name, args.data_dir)
        front = graphs.pareto_front(g)
        upper = np.array([g.degree.max(), 1.0])  # the ratio does not depend on this scale
        best = best_hypervolume(g.points(front) / upper, args.k)
        for method in args.methods:
            for eps in args.epsilons:
                if (name, method, eps) in done:
                    continue
                hv, share = [], []
                t0 = time.process_time()
                for seed in range(args.runs):
                    picks = pick(method, g, args.k, eps, seed)
                    hv.append(hypervolume(g.points(picks) / upper, 0.0) / best)
                    share.append(front_share(picks, front))
                cpu = time.process_time() - t0
                (hm, hh), (fm, fh) = interval(hv), interval(share)
                line = f"{name} {method} eps={eps:g}: ratio {hm:.3f} [{hh:.3f}], front {fm:.3f}, {cpu:.0f} s"
                print(line, flush=True)
                if args.out:
                    new = not Path(args.out).exists()
                    with open(args.out, "a", newline="") as f:
                        w = csv.DictWriter(f, fieldnames=fields)
                        if new:
                            w.writeheader()
                        w.writerow(dict(graph=name, method=method, epsilon=eps, runs=args.runs, hv_mean=hm,
                                        hv_half=hh, front_mean=fm, front_half=fh, cpu_s=cpu))  # fmt: skip


if __name__ == "__main__":
    main()
