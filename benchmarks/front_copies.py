"""Copies of front rows at negligible noise (issue 38, the tables part): dominated picks per approach.

Once every distinct front point is picked, the Pareto-optimal rows left are copies of the picks; this
counts how many picks of ``chebyshev``, ``staircase`` and ``pareto`` (global and local sensitivity) are
dominated rows instead, on

* ``issue``: three front points, each twice, and 24 rows they dominate (k = 6, seeds 0-19);
* ``generated``: 60 tables of 24 rows of integers 0-10 (m = 2 or 3, table ``t`` drawn with seed ``1000 +
  t``) with four copies of front rows appended, k = the number of distinct front points + 3, seeds 0-2.

Every objective has sensitivity 1 and the declared range (0, 10); float samplers. The script also prints a
hash of every pick, to compare two versions of the code seed for seed.

    python benchmarks/front_copies.py --epsilon 1e6   # docs/pareto.md ("Copies of the picks")
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

import dpmo

VARIANTS = (("chebyshev", "local"), ("staircase", "local"), ("pareto", "global"), ("pareto", "local"))


def dominated(X: np.ndarray) -> np.ndarray:
    """Rows (of ``X``, shape (n, m)) that some row dominates."""
    return np.array([bool(np.any(np.all(X >= x, axis=1) & np.any(X > x, axis=1))) for x in X])


def issue_table() -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(0)
    front = np.array([[10, 1], [1, 10], [10, 1], [1, 10], [6, 6], [6, 6]], float)
    rest = np.r_[rng.integers(0, 6, (20, 2)), [[5, 6], [6, 5], [10, 0], [0, 10]]].astype(float)
    return np.r_[front, rest], 6


def generated_table(t: int) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(1000 + t)
    X = rng.integers(0, 11, (24, 2 + t % 2)).astype(float)
    X = np.r_[X, X[rng.choice(np.flatnonzero(~dominated(X)), 4)]]
    distinct = {tuple(x) for x in X[~dominated(X)]}
    return X, min(len(distinct) + 3, len(X))


def count(tables, seeds, epsilon: float):
    """``({variant: dominated picks}, picks per variant, hash of every pick)``."""
    bad = dict.fromkeys(VARIANTS, 0)
    every, total = [], 0
    for X, k in tables:
        isdom = dominated(X)
        objs = [dpmo.Objective(X[:, i], 1.0, bounds=(0, 10)) for i in range(X.shape[1])]
        total += k * len(seeds)
        for approach, sens in VARIANTS:
            for s in seeds:
                p = dpmo.select_multiobjective(
                    objs, epsilon, approach=approach, k=k, rng=s, exact=False, sensitivity=sens
                )
                bad[(approach, sens)] += int(isdom[p].sum())
                every.append(p.tolist())
    return bad, total, hashlib.sha1(str(every).encode()).hexdigest()[:12]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilon", type=float, default=1e6)
    args = ap.parse_args(argv)
    for name, tables, seeds in (
        ("issue", [issue_table()], range(20)),
        ("generated", [generated_table(t) for t in range(60)], range(3)),
    ):
        bad, total, digest = count(tables, seeds, args.epsilon)
        shown = ", ".join(f"{a}/{s} {b}" for (a, s), b in bad.items())
        head = f"{name}: epsilon {args.epsilon:g}, dominated picks of {total} per variant"
        print(f"{head}: {shown}; picks {digest}")


if __name__ == "__main__":
    main()
