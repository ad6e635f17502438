"""Exact against floating-point sampling, entry point by entry point (issue 23: one default sampler).

For every public entry point that samples, the median wall time of one call with ``exact=True`` (the
default) and with ``exact=False`` (the float sampler), interleaved call by call, at the sizes of the paper:
``select`` at n = 37,700 (GitHub's node count), PrivPareto / PrivAgg / PrivChebyshev on GitHub's two
objectives, ``graphs.top_k`` on the GitHub graph, DP-MOET and the ID3 baselines on Adult. ``docs/core.md``
("Floating point and exact sampling") quotes the table.

Run from the repository root (datasets from ``../shared/data`` or ``$DPMO_DATA_DIR``)::

    python benchmarks/bench_exact_default.py [--repeats 11] [--only select,trees]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

import dpmo

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DPMO_DATA_DIR", ROOT.parent / "shared" / "data"))
if not DATA.is_dir():  # a git worktree elsewhere: try the data beside the main clone
    DATA = ROOT.parents[1] / "shared" / "data"
PARETO = dict(population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3)


def interleaved(call, repeats: int) -> tuple[float, float]:
    """Median seconds of ``call(exact=True)`` and ``call(exact=False)``, alternated, after a warm-up each."""
    call(True, -1)
    call(False, -1)
    times: dict[bool, list[float]] = {True: [], False: []}
    for seed in range(repeats):
        for exact in (True, False) if seed % 2 else (False, True):
            t0 = time.perf_counter()
            call(exact, seed)
            times[exact].append(time.perf_counter() - t0)
    return statistics.median(times[True]), statistics.median(times[False])


def cases(only: set[str]):
    """(group, label, call) for every measured entry point."""
    rng = np.random.default_rng(0)
    if "select" in only:
        scores = rng.normal(size=37_700)
        for mech in ("exponential", "permute_and_flip"):
            for k in (1, 10):
                yield (
                    "select",
                    f"select, n = 37,700, {mech}, k = {k}",
                    lambda e, s, m=mech, k=k: dpmo.select(
                        scores, 1.0, 1.0, mechanism=m, k=k, rng=s + 1, exact=e
                    ),
                )
    if "graphs" in only or "multi" in only:
        from dpmo import graphs

        g = graphs.load_graph(DATA / "musae_git_edges.csv", nodes=37_700)
        objs = graphs.objectives(g)
        if "multi" in only:
            for sens in ("local", "global"):
                yield (
                    "multi",
                    f"priv_pareto, GitHub objectives, {sens}, k = 5",
                    lambda e, s, sens=sens: dpmo.priv_pareto(
                        objs, 1.0, k=5, sensitivity=sens, rng=s + 1, exact=e
                    ),
                )
                yield (
                    "multi",
                    f"priv_agg, GitHub objectives, {sens}, k = 5",
                    lambda e, s, sens=sens: dpmo.priv_agg(
                        objs, (1.0, 100.0), 1.0, k=5, sensitivity=sens, rng=s + 1, exact=e
                    ),
                )
            deg = objs[0]
            yield (
                "multi",
                "local_dampening, GitHub degrees, k = 5",
                lambda e, s: dpmo.local_dampening(
                    deg.values, 1.0, deg.local, k=5, global_sensitivity=1.0, rng=s + 1, exact=e
                ),
            )
            yield (
                "multi",
                "priv_chebyshev, GitHub objectives, local, k = 5",
                lambda e, s: dpmo.priv_chebyshev(objs, 1.0, k=5, rng=s + 1, exact=e),
            )
        if "graphs" in only:
            for approach in ("agg", "pareto", "chebyshev"):
                yield (
                    "graphs",
                    f"graphs.top_k, GitHub, {approach} local, k = 5 (graph loaded, caches warm)",
                    lambda e, s, a=approach: graphs.top_k(g, 5, 1.0, approach=a, rng=s + 1, exact=e),
                )
            yield (
                "graphs",
                "graphs.top_k_two_stage, GitHub, k = 5, 100 candidates",
                lambda e, s: graphs.top_k_two_stage(g, 5, 1.0, rng=s + 1, exact=e),
            )
    if "trees" in only:
        from dpmo.datasets import load_adult
        from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

        ds = load_adult(DATA)
        yield (
            "trees",
            "DPMOETClassifier fit, Adult, defaults (agg 100/20/2/3/5/1)",
            lambda e, s: DPMOETClassifier(features=ds.features, random_state=s + 1, exact=e).fit(ds.X, ds.y),
        )
        yield (
            "trees",
            "DPMOETClassifier fit, Adult, pareto local 30/3/3/4/10/3",
            lambda e, s: DPMOETClassifier(
                approach="pareto", features=ds.features, random_state=s + 1, exact=e, **PARETO
            ).fit(ds.X, ds.y),
        )
        for cls in (DiffPID3Classifier, LocalDiffPID3Classifier):
            yield (
                "trees",
                f"{cls.__name__} fit, Adult, depth 5",
                lambda e, s, c=cls: c(1.0, features=ds.features, random_state=s + 1, exact=e).fit(ds.X, ds.y),
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--only", default="select,multi,graphs,trees")
    args = ap.parse_args()
    print(f"{'entry point':<72} {'exact s':>9} {'float s':>9} {'ratio':>6}")
    for _group, label, call in cases(set(args.only.split(","))):
        t_exact, t_float = interleaved(call, args.repeats)
        print(f"{label:<72} {t_exact:9.4f} {t_float:9.4f} {t_exact / t_float:6.2f}", flush=True)


if __name__ == "__main__":
    main()
