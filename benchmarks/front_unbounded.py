"""Front-covering picks on random tables WITHOUT declared ranges (issue 38: the Pareto gate without ranges).

Random candidate tables nobody tuned a method to: 100-300 rows, 2-3 columns, each a rate of sensitivity
0.001 in [0.5, 1] (three decimals), a count of 0-299 or a heavy-tailed count (Pareto, capped at 2,000), of
sensitivity 1, a third of them minimised (declared negated). No ``bounds``: the approaches compare the
objectives in sensitivity units. Per table, approach and epsilon: the mean hypervolume ratio (each column
scaled by its observed range -- a yardstick for the benchmark, NOT private -- reference the observed lows,
denominator the best k-point hypervolume of the exact front), its standard error and the number of picks
that some row dominates.

    python benchmarks/front_unbounded.py --runs 10            # docs/pareto.md, "Without declared ranges"
    python benchmarks/front_unbounded.py --runs 10 --bounded-share 0.5   # mixed: half the ranges declared
    PYTHONPATH=<old checkout>/src python benchmarks/front_unbounded.py --runs 10   # the code before
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import dpmo
from dpmo.hypervolume import best_hypervolume, hypervolume
from dpmo.pareto.consistent import dominated_among
from dpmo.ranges import MixedRangesWarning

EPSILONS = (50.0, 200.0, 1000.0, 1e4, 1e6)


def random_table(rs: np.random.Generator, bounded_share: float = 0.0):
    """``(values (n, m) in sensitivity units, larger is better; objectives)``: without bounds, or each column
    with its generator's public range with probability ``bounded_share`` (mixed tables)."""
    n, m = int(rs.integers(100, 300)), int(rs.integers(2, 4))
    cols, objs = [], []
    for _ in range(m):
        kind = rs.integers(3)
        if kind == 0:
            v, s, b = np.round(rs.uniform(0.5, 1.0, n), 3), 0.001, (0.5, 1.0)
        elif kind == 1:
            v, s, b = rs.integers(0, 300, n).astype(float), 1.0, (0.0, 300.0)
        else:
            v, s, b = np.minimum(np.round(rs.pareto(1.5, n) * 10), 2000.0), 1.0, (0.0, 2000.0)
        if rs.random() < 0.3:  # a minimised column, declared by its negation
            v, b = -v, (-b[1], -b[0])
        declared = bounded_share > 0 and rs.random() < bounded_share
        objs.append(dpmo.Objective(v, s, bounds=b if declared else None))
        cols.append(v / s)
    return np.stack(cols, axis=1), objs


def dominated_rows(P: np.ndarray) -> np.ndarray:
    """Rows of ``P`` (n, m) that another row dominates (the library's exact count, O(n log n) for m <= 2)."""
    return dominated_among(P.T)


def run(tables: int, runs: int, k: int, epsilons, approaches, seed: int = 11, bounded_share: float = 0.0):
    """Rows ``(table, approach, epsilon, mean ratio, standard error, dominated picks)``."""
    rs = np.random.default_rng(seed)
    rows = []
    for t in range(tables):
        P, objs = random_table(rs, bounded_share)
        lo = P.min(axis=0)
        Z = (P - lo) / np.maximum(P.max(axis=0) - lo, 1e-12)
        dom = dominated_rows(P)
        try:
            best = best_hypervolume(np.unique(Z[~dom], axis=0), k, max_subsets=10**6)
        except ValueError:  # too many subsets of the front to enumerate: skipped
            continue
        for appr in approaches:
            for eps in epsilons:
                r, bad = [], 0
                for s in range(runs):
                    p = dpmo.select_multiobjective(objs, eps, approach=appr, k=k, rng=s, exact=False)
                    r.append(hypervolume(Z[p], np.zeros(Z.shape[1])) / best)
                    bad += int(dom[p].sum())
                a = np.asarray(r)
                rows.append((t, appr, eps, a.mean(), a.std(ddof=1) / np.sqrt(runs), bad))
    return rows


def main(argv=None) -> None:
    # --bounded-share measures tables with ranges on some columns only on purpose: their warning is known
    warnings.filterwarnings("ignore", category=MixedRangesWarning)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("-k", type=int, default=3)
    ap.add_argument("--approaches", nargs="+", default=["chebyshev", "staircase"])
    ap.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    ap.add_argument(
        "--bounded-share",
        type=float,
        default=0.0,
        help="each column declares its range with this probability",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(
        args.tables, args.runs, args.k, args.epsilons, args.approaches, bounded_share=args.bounded_share
    )
    print("| table | approach | " + " | ".join(f"{e:g}" for e in args.epsilons) + " |")
    print("|---|---|" + "---|" * len(args.epsilons))
    cells: dict = {}
    for t, appr, _e, mean, se, bad in rows:
        cells.setdefault((t, appr), []).append(f"{mean:.2f}±{se:.2f}" + (f" ({bad})" if bad else ""))
    for (t, appr), c in cells.items():
        print(f"| {t} | {appr} | " + " | ".join(c) + " |")
    for appr in args.approaches:
        tot = [sum(r[5] for r in rows if r[1] == appr and r[2] == e) for e in args.epsilons]
        pairs = zip(args.epsilons, tot, strict=True)
        print(f"dominated picks, {appr}: " + ", ".join(f"{e:g}: {b}" for e, b in pairs))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
