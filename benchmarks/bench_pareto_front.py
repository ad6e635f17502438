"""Private Pareto picks that cover the front: hypervolume ratio and share on the front (k = 3, epsilon = 1).

    python benchmarks/bench_pareto_front.py [--runs 200] [--epsilon 1] [--k 3] [--data-dir ../shared/data]

For GitHub and Enron (public node counts 37,700 and 36,692), prints for each method the mean hypervolume
ratio (hypervolume of the picks over the best of any k front nodes; degree normalised by the public bound
n - 1, ego density by 1, reference point 0) and the mean share of picks on the Pareto front, each with a 95%
interval (mean +- 1.96 standard errors), over ``--runs`` seeded runs. Methods: PrivChebyshev
(``top_k(approach="chebyshev")``: the private staircase, local and global; and with the fixed graph settings
:func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`), PrivPareto (local, global), the two-stage method
(30-node shortlist) and degree alone (``select(degree, epsilon, 1, k=k)``). The grid over the paper's
epsilons is ``benchmarks/bench_pareto_grid.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dpmo import graphs, select
from dpmo.graphs.chebyshev import graph_chebyshev_settings
from dpmo.metrics import best_hypervolume, front_share, hypervolume

GRAPHS = {"github": ("musae_git_edges.csv", 37_700), "enron": ("Email-Enron.txt", 36_692)}


def methods(k: int, eps: float):
    return {
        "PrivChebyshev (local)": lambda g, rng: graphs.top_k(g, k, eps, approach="chebyshev", rng=rng),
        "PrivChebyshev (local, permute-and-flip)": lambda g, rng: graphs.top_k(
            g, k, eps, approach="chebyshev", mechanism="permute_and_flip", rng=rng
        ),
        "PrivChebyshev (global)": lambda g, rng: graphs.top_k(
            g, k, eps, approach="chebyshev", sensitivity="global", rng=rng
        ),
        "PrivChebyshev, fixed settings (local)": lambda g, rng: graphs.top_k(
            g, k, eps, approach="chebyshev", shares=graph_chebyshev_settings(g.n_nodes, k)[2], rng=rng
        ),
        "PrivPareto (local)": lambda g, rng: graphs.top_k(g, k, eps, approach="pareto", rng=rng),
        "PrivPareto (global)": lambda g, rng: graphs.top_k(
            g, k, eps, approach="pareto", sensitivity="global", rng=rng
        ),
        "two-stage (m = 30)": lambda g, rng: graphs.top_k_two_stage(g, k, eps, candidates=30, rng=rng),
        "degree alone": lambda g, rng: g.ids[select(g.degree.astype(float), eps, 1.0, k=k, rng=rng)],
    }


def interval(x) -> str:
    x = np.asarray(x, dtype=float)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0
    return f"{x.mean():.3f} [{max(x.mean() - half, 0):.3f}, {min(x.mean() + half, 1):.3f}]"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
    args = ap.parse_args(argv)
    print(f"k = {args.k}, epsilon = {args.epsilon}, {args.runs} runs (seeds 0..{args.runs - 1})")
    print("| graph | method | hypervolume ratio [95%] | share on the front [95%] | s/run |")
    print("|---|---|---|---|---|")
    for name, (file, n_public) in GRAPHS.items():
        g = graphs.load_graph(Path(args.data_dir) / file, nodes=None)
        assert g.n_nodes == n_public, (name, g.n_nodes)
        front = graphs.pareto_front(g)
        upper = np.array([n_public - 1, 1.0])
        best = best_hypervolume(g.points(front), args.k, upper=upper)
        for label, fn in methods(args.k, args.epsilon).items():
            hv, share = [], []
            t0 = time.perf_counter()
            for seed in range(args.runs):
                picks = fn(g, seed)
                hv.append(hypervolume(g.points(picks) / upper, 0.0) / best)
                share.append(front_share(picks, front))
            dt = (time.perf_counter() - t0) / args.runs
            print(f"| {name} | {label} | {interval(hv)} | {interval(share)} | {dt:.3f} |", flush=True)


if __name__ == "__main__":
    main()
