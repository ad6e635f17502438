"""The approximate-DP accountant: per-pick epsilons of every bound and the CPU time of a first call.

Run from the repository root::

    python benchmarks/bench_accounting.py                    # epsilon 1, delta 1e-6, k in 1 3 10 20 41 100
    python benchmarks/bench_accounting.py --eps 0.5 --delta 1e-8 --k 5 50

Each line: k, the mechanism's kind, the per-pick epsilon of basic composition, of zCDP (the tight
conversion), of the optimal adaptive recursion (where it is tried), the value of
``dpmo.per_pick_epsilon`` and its gain over epsilon / k, then the CPU seconds (user + sys) of the first,
uncached computation (the accountant caches its results per process). Also a DP-MOET fit's plan (its
defaults: 40 generation picks at 1/60 each, one output pick at 1/3).
"""

from __future__ import annotations

import argparse
import os

from dpmo import accounting


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=1e-6)
    parser.add_argument("--k", type=int, nargs="+", default=[1, 3, 10, 20, 41, 100])
    args = parser.parse_args()
    print(f"epsilon {args.eps}, delta {args.delta:g}")
    print("k | kind | basic | zCDP | adaptive | per_pick_epsilon | gain | CPU s")
    for kind in ("bounded_range", "pure"):
        for k in args.k:
            accounting._scaled.cache_clear()  # noqa: SLF001 - time the uncached computation
            accounting._scale_bounds_cached.cache_clear()  # noqa: SLF001
            start = _cpu()
            bounds = accounting.per_pick_bounds(args.eps, k, delta=args.delta, mechanism=kind)
            e0 = accounting.per_pick_epsilon(args.eps, k, delta=args.delta, mechanism=kind)
            seconds = _cpu() - start
            adaptive = f"{bounds['adaptive']:.4f}" if "adaptive" in bounds else "-"
            print(
                f"{k} | {kind} | {bounds['basic']:.4f} | {bounds['zcdp']:.4f} | {adaptive} | {e0:.4f} | "
                f"{e0 * k / args.eps:.2f}x | {seconds:.2f}"
            )
    start = _cpu()
    plan = accounting.scaled_epsilons(args.eps, [1 / 60] * 40 + [1 / 3], delta=args.delta)
    print(
        f"DP-MOET defaults: generation pick {plan[0]:.4f} (pure {args.eps / 60:.4f}), output pick "
        f"{plan[-1]:.4f} (pure {args.eps / 3:.4f}); CPU {_cpu() - start:.2f} s"
    )


if __name__ == "__main__":
    main()
