"""Front-covering picks on generated candidate tables (issue 38, the tables part).

Generated tables nobody tuned a method to: 2 to 5 objectives in mixed units (rates with sensitivity 0.001,
counts with sensitivity 1, scores with sensitivity 0.5), ties (values on a grid of sensitivity units),
minimised columns (negated, with their declared ranges), heavy tails (Pareto-distributed counts far below
their declared upper bound). Every column's range ``(low, high)`` is declared by the generator before any
value is drawn (public, never read from the data): it is what ``dpmo.Objective(bounds=...)`` receives.

Measures, per case, approach and epsilon: the mean hypervolume ratio (objectives scaled by their declared
ranges and clipped to [0, 1], reference the declared lows, denominator the best k-point hypervolume of the
exact front) with its standard error, and the share of picks that some row dominates (exact values,
directions as declared). Approaches: ``agg`` with equal weights over the declared ranges (``1 / (high -
low)``), ``pareto``, ``chebyshev``, ``staircase``.

    python benchmarks/front_tables.py --runs 20  # docs/pareto.md ("Measured on generated tables")

``bench_front_robust.py`` (graphs) imports :func:`table_cases` and :func:`run_tables`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpmo
from dpmo.hypervolume import best_hypervolume, hypervolume

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 1e6)
APPROACHES = ("agg", "pareto", "chebyshev", "staircase")


class Case:
    """A generated table: ``values`` (m, n) as declared (larger is better after negating minimised columns),
    ``sens`` (m,), ``bounds`` (m, 2) in the same (negated) orientation, names."""

    def __init__(self, name, values, sens, bounds, names):
        self.name = name
        self.values = np.asarray(values, dtype=np.float64)
        self.sens = np.asarray(sens, dtype=np.float64)
        self.bounds = np.asarray(bounds, dtype=np.float64)
        self.names = list(names)

    def objectives(self, with_bounds: bool = True):
        return [
            dpmo.Objective(v, s, name=nm, bounds=tuple(b) if with_bounds else None)
            for v, s, b, nm in zip(self.values, self.sens, self.bounds, self.names, strict=True)
        ]

    def scaled(self) -> np.ndarray:
        """(n, m) values in units of the declared ranges, clipped to [0, 1]."""
        lo, hi = self.bounds[:, 0:1], self.bounds[:, 1:2]
        return np.clip((self.values - lo) / (hi - lo), 0.0, 1.0).T


def _grid(x, step):
    return np.round(np.asarray(x) / step) * step


def table_cases(seed: int = 0, n: int = 400) -> list[Case]:
    """Five generated tables (fixed seed): the issue's 3-objective table, a 4-objective mixed table with
    ties, a heavy-tailed 3-objective table, a 2-objective trade-off and a 5-objective table."""
    rng = np.random.default_rng(seed)
    cases = []
    # 1. the table: a rate (sens 0.001, 0.5-1), a count (sens 1, 0-3000), a minimised count (sens 1,
    #    0-300); a latent quality and a trade-off between the count and the false positives
    q = rng.uniform(0, 1, n)
    t = rng.uniform(0, 1, n)
    rate = _grid(np.clip(0.5 + 0.5 * (0.6 * q + 0.4 * rng.uniform(0, 1, n)), 0.5, 1.0), 0.001)
    count = np.floor(3000 * np.clip(0.7 * q * t + 0.3 * rng.uniform(0, 1, n), 0, 1))
    fp = np.floor(300 * np.clip(0.8 * t * q + 0.2 * rng.uniform(0, 1, n), 0, 1))
    cases.append(
        Case(
            "issue-3obj",
            [rate, count, -fp],
            [0.001, 1, 1],
            [(0.5, 1), (0, 3000), (-300, 0)],
            ["rate", "count", "fp:min"],
        )
    )
    # 2. four objectives, mixed units, many ties (coarse grids), one minimised
    a = _grid(rng.uniform(0, 1, n), 0.05)  # a rate on a coarse grid, sens 0.01
    b = rng.integers(0, 11, n).astype(float)  # a small count, sens 1
    c = _grid(rng.uniform(0, 50, n), 0.5)  # a score, sens 0.5
    d = rng.integers(0, 1001, n).astype(float)  # a cost (minimised), sens 1
    cases.append(
        Case(
            "mixed-4obj-ties",
            [a, b, c, -d],
            [0.01, 1, 0.5, 1],
            [(0, 1), (0, 10), (0, 50), (-1000, 0)],
            ["rate", "small", "score", "cost:min"],
        )
    )
    # 3. heavy tails: Pareto-distributed counts, declared up to 10^4 (most values far below)
    h1 = np.minimum(np.floor(rng.pareto(1.5, n) * 50), 10_000)
    h2 = np.minimum(np.floor(rng.pareto(1.2, n) * 20), 10_000)
    r3 = _grid(rng.beta(2, 5, n), 0.001)
    cases.append(
        Case(
            "heavy-3obj",
            [h1, h2, r3],
            [1, 1, 0.001],
            [(0, 10_000), (0, 10_000), (0, 1)],
            ["heavy1", "heavy2", "rate"],
        )
    )
    # 4. two objectives on a concave trade-off (a count and a minimised rate), with ties
    u = rng.uniform(0, 1, n)
    r = np.sqrt(rng.uniform(0, 1, n))
    x = np.floor(2000 * r * np.cos(u * np.pi / 2))
    y = _grid(0.2 * (1 - r * np.sin(u * np.pi / 2)), 0.001)  # smaller is better
    cases.append(Case("tradeoff-2obj", [x, -y], [1, 0.001], [(0, 2000), (-0.2, 0)], ["count", "err:min"]))
    # 5. five objectives with a shared latent quality (keeps the exact front small enough to enumerate)
    q = rng.uniform(0, 1, n) ** 2
    cols, sens, bounds, names = [], [], [], []
    for i, (unit, hi) in enumerate([(0.001, 1.0), (1, 500), (0.5, 100), (1, 5000), (0.01, 10)]):
        v = _grid(hi * np.clip(0.75 * q + 0.25 * rng.uniform(0, 1, n), 0, 1), unit)
        if i == 3:
            cols.append(-(hi - v))  # a minimised cost hi - v, negated
            bounds.append((-hi, 0))
            names.append("cost:min")
        else:
            cols.append(v)
            bounds.append((0, hi))
            names.append(f"o{i}")
        sens.append(unit)
    cases.append(Case("latent-5obj", cols, sens, bounds, names))
    return cases


def dominated(values: np.ndarray) -> np.ndarray:
    """(n,) True where some row strictly dominates the row (``values``: (m, n), larger is better)."""
    V = values.T
    out = np.zeros(V.shape[0], dtype=bool)
    for i in range(V.shape[0]):
        ge = np.all(V >= V[i], axis=1) & np.any(V > V[i], axis=1)
        out[i] = bool(ge.any())
    return out


def best_k(case: Case, k: int) -> float:
    Z = case.scaled()
    front = Z[~dominated(case.values)]
    return best_hypervolume(np.unique(front, axis=0), k, max_subsets=10**6)


def hv_ratio(case: Case, picks, best: float) -> float:
    Z = case.scaled()[np.asarray(picks)]
    Z = Z[np.all(Z > 0, axis=1)]
    return float(hypervolume(Z, np.zeros(Z.shape[1])) / best) if Z.size else 0.0


def _select(case: Case, objs, approach: str, eps: float, k: int, seed: int):
    kw = {}
    if approach == "agg":
        kw["weights"] = 1.0 / (case.bounds[:, 1] - case.bounds[:, 0])
    return dpmo.select_multiobjective(objs, eps, approach=approach, k=k, rng=seed, exact=False, **kw)


def run_tables(
    approaches=APPROACHES, epsilons=EPSILONS, runs: int = 20, k: int = 3, cases=None, with_bounds: bool = True
):
    """Rows ``(case, approach, epsilon, mean ratio, standard error, dominated share)``."""
    cases = table_cases() if cases is None else cases
    rows = []
    for case in cases:
        best = best_k(case, k)
        dom = dominated(case.values)
        objs = case.objectives(with_bounds)
        for appr in approaches:
            for eps in epsilons:
                ratios, bad = [], 0
                for seed in range(runs):
                    p = _select(case, objs, appr, eps, k, seed)
                    ratios.append(hv_ratio(case, p, best))
                    bad += int(dom[p].sum())
                r = np.asarray(ratios)
                rows.append((case.name, appr, eps, r.mean(), r.std(ddof=1) / np.sqrt(runs), bad / (runs * k)))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("-k", type=int, default=3)
    ap.add_argument("--approaches", nargs="+", default=list(APPROACHES))
    ap.add_argument("--no-bounds", action="store_true", help="objectives without declared ranges")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = run_tables(args.approaches, EPSILONS, args.runs, args.k, with_bounds=not args.no_bounds)
    eps_head = " | ".join(f"{e:g}" for e in EPSILONS)
    print(f"| case | approach | {eps_head} |")
    print("|---|---|" + "---|" * len(EPSILONS))
    table: dict = {}
    for case, appr, _eps, mean, se, bad in rows:
        table.setdefault((case, appr), []).append(f"{mean:.2f}±{se:.2f}" + (f" ({bad:.2f})" if bad else ""))
    for (case, appr), cells in table.items():
        print(f"| {case} | {appr} | " + " | ".join(cells) + " |")
    print(
        f"\n(mean hypervolume ratio ± standard error over {args.runs} seeds; in parentheses the share of "
        f"dominated picks when not 0; k = {args.k}; {time.perf_counter() - t0:.0f} s)"
    )


if __name__ == "__main__":
    main()
