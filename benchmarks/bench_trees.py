"""Benchmark of DP-MOET (dpmo.trees.DPMOETClassifier): fit times and accuracy on the paper's tables.

Prints
1. the wall-clock time of one ``fit`` on Adult, NLTCS and ACS in the paper's two settings
   (Pareto: p=30, s=3, k=3, d=4, d_max=10, o=3; aggregation: p=100, s=20, k=2, d=3, d_max=5, o=1), for the
   private variants (epsilon = 1) and the non-private NODP one: median and maximum over several seeds,
   after one warm-up fit (numba compilation of the dominance counts);
2. the aggregate fitness 3 TPR + 2 TNR on NLTCS (aggregation setting) of NODP-MOET-Agg,
   DP-MOET-Agg_local and DP-MOET-Agg_global over a grid of epsilon, next to the paper's figure;
3. optionally (``--pareto-c``) the coverage C(NODP, private) of the Pareto setting on NLTCS.

Usage::

    python benchmarks/bench_trees.py [--data ../shared/data] [--repeats 5] [--fitness-repeats 20] [--pareto-c]

The data folder defaults to ``$DPMO_DATA_DIR`` or ``../shared/data`` beside the repository.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from dpmo.datasets import load_acs, load_adult, load_nltcs
from dpmo.metrics import coverage
from dpmo.trees import DPMOETClassifier

PARETO = dict(population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3)
AGG = dict(
    approach="agg",
    population_size=100,
    selection_size=20,
    n_iterations=2,
    initial_depth=3,
    max_depth=5,
    n_output=1,
)
EPSILONS = (0.01, 0.05, 0.1, 0.5, 1.0, 2.0)
# The paper's figure "Fitness" for NLTCS (aggregation approaches), read from its pgfplots coordinates.
PAPER_NLTCS = {
    "local": (2.9046, 3.7090, 3.9547, 4.1727, 4.1879, 4.1923),
    "global": (2.4921, 2.5462, 2.5226, 2.5558, 2.5505, 2.5265),
    "nodp": 4.1999,
}
PAPER_C_NLTCS = {  # the paper's table "Mean error metric C", NLTCS columns
    "eps": (0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0),
    "global": (0.48, 0.48, 0.48, 0.48, 0.48, 0.48, 0.48),
    "local": (0.45, 0.35, 0.25, 0.13, 0.12, 0.11, 0.10),
}


def timings(datasets, repeats: int) -> None:
    print("== fit time (seconds; wall-clock median / max over seeds, and median CPU time) ==")
    print(f"{'data':<6} {'setting':<7} {'variant':<15} {'median':>7} {'max':>7} {'cpu':>7}")
    for name, ds in datasets.items():
        for setting, params in (("pareto", PARETO), ("agg", AGG)):
            for label, eps, sens in (
                ("local eps=1", 1.0, "local"),
                ("global eps=1", 1.0, "global"),
                ("NODP", None, "local"),
            ):
                clf = DPMOETClassifier(epsilon=eps, sensitivity=sens, features=ds.features, **params)
                clf.set_params(random_state=10_000).fit(ds.X, ds.y)  # warm-up
                times, cpu = [], []
                for seed in range(repeats):
                    c0 = time.process_time()
                    clf.set_params(random_state=seed).fit(ds.X, ds.y)
                    cpu.append(time.process_time() - c0)
                    times.append(clf.fit_time_)
                print(
                    f"{name:<6} {setting:<7} {label:<15} {statistics.median(times):7.3f} {max(times):7.3f} "
                    f"{statistics.median(cpu):7.3f}"
                )
            sys.stdout.flush()


def fitness(ds, repeats: int) -> None:
    print(f"\n== NLTCS aggregation setting: fitness 3 TPR + 2 TNR (mean +- s.e. over {repeats} seeds) ==")

    def run(**kw):
        vals = [
            DPMOETClassifier(features=ds.features, random_state=seed, **AGG, **kw)
            .fit(ds.X, ds.y)
            .fitness(ds.X, ds.y)[0]
            for seed in range(repeats)
        ]
        return float(np.mean(vals)), float(np.std(vals, ddof=1) / np.sqrt(len(vals)))

    m, se = run(epsilon=None)
    print(f"NODP-MOET-Agg: {m:.3f} +- {se:.3f}   (paper {PAPER_NLTCS['nodp']:.3f})")
    print(f"{'epsilon':>8} {'local':>15} {'paper':>7} {'local(subst.)':>15} {'global':>15} {'paper':>7}")
    for i, eps in enumerate(EPSILONS):
        lm, ls = run(epsilon=eps, sensitivity="local")
        sm, ss = run(epsilon=eps, sensitivity="local", neighbouring="substitution")
        gm, gs = run(epsilon=eps, sensitivity="global")
        print(
            f"{eps:8.2f} {lm:8.3f} +- {ls:.3f} {PAPER_NLTCS['local'][i]:7.3f} {sm:8.3f} +- {ss:.3f} "
            f"{gm:8.3f} +- {gs:.3f} {PAPER_NLTCS['global'][i]:7.3f}"
        )
        sys.stdout.flush()


def pareto_c(ds, repeats: int) -> None:
    print(
        "\n== NLTCS Pareto setting: coverage C(NODP, private), strict dominance "
        f"(mean over {repeats} runs) =="
    )
    print(f"{'epsilon':>8} {'local':>7} {'paper':>6} {'global':>7} {'paper':>6}")
    for i, eps in enumerate(PAPER_C_NLTCS["eps"]):
        res = {}
        for sens in ("local", "global"):
            cs = []
            for seed in range(repeats):
                ref = DPMOETClassifier(
                    epsilon=None, features=ds.features, random_state=10_000 + seed, **PARETO
                )
                priv = DPMOETClassifier(
                    epsilon=eps, sensitivity=sens, features=ds.features, random_state=seed, **PARETO
                )
                a = ref.fit(ds.X, ds.y).evaluate(ds.X, ds.y)
                b = priv.fit(ds.X, ds.y).evaluate(ds.X, ds.y)
                cs.append(coverage(a, b))
            res[sens] = float(np.mean(cs))
        print(
            f"{eps:8.2f} {res['local']:7.3f} {PAPER_C_NLTCS['local'][i]:6.2f} {res['global']:7.3f} "
            f"{PAPER_C_NLTCS['global'][i]:6.2f}"
        )
        sys.stdout.flush()


def main(argv=None) -> None:
    default = os.environ.get(
        "DPMO_DATA_DIR", str(Path(__file__).resolve().parents[1].parent / "shared" / "data")
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=default, help="folder with nltcs.dat, acs.dat, adult.data, adult.test"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed fits per configuration")
    parser.add_argument(
        "--fitness-repeats", type=int, default=20, help="seeds per epsilon for the fitness table"
    )
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-fitness", action="store_true")
    parser.add_argument("--pareto-c", action="store_true", help="also the coverage C table (slow)")
    parser.add_argument("--pareto-repeats", type=int, default=20)
    args = parser.parse_args(argv)
    data = Path(args.data)
    t0 = time.perf_counter()
    datasets = {"adult": load_adult(data), "nltcs": load_nltcs(data), "acs": load_acs(data)}
    print(
        f"loaded {', '.join(f'{k} {v.X.shape}' for k, v in datasets.items())} "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    if not args.skip_timing:
        timings(datasets, args.repeats)
    if not args.skip_fitness:
        fitness(datasets["nltcs"], args.fitness_repeats)
    if args.pareto_c:
        pareto_c(datasets["nltcs"], args.pareto_repeats)


if __name__ == "__main__":
    main()
