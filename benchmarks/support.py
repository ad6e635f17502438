"""Shared helpers of the timing benchmarks (``benchmarks/test_*.py``, run by pytest-benchmark).

* :data:`SMOKE`: ``DPMO_BENCH_SMOKE=1`` runs every benchmark once at a tiny size (the test suite's check
  that the definitions still run, ``tests/test_benchmarks.py``); :func:`size` picks the size.
* :func:`describe`: the row label and note of a benchmark in the README's table
  (``python benchmarks/compare.py --table``), stored in pytest-benchmark's ``extra_info``.
* :func:`record_peak`: peak memory of one call (tracemalloc: numpy's allocations; numba's temporaries are
  not traced), stored as ``extra_info["peak_mb"]``.
* :func:`data_file`: a file of the real datasets (``$DPMO_DATA_DIR`` or ``../shared/data`` beside the
  repository); the benchmark is skipped when it is absent.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import dpmo

SMOKE = os.environ.get("DPMO_BENCH_SMOKE") == "1"
REPO = Path(__file__).resolve().parents[1]


def size(full: int, tiny: int) -> int:
    """``full`` when benchmarking, ``tiny`` in the smoke test."""
    return tiny if SMOKE else full


def describe(benchmark, case: str, note: str = "", readme: bool = False) -> None:
    """Label the benchmark's row of the README table (``case``) and its fixed note; ``readme``: one of the
    rows the README shows (``compare.py --table``; ``--table --all`` prints every row)."""
    benchmark.extra_info["case"] = case
    if note:
        benchmark.extra_info["note"] = note
    if readme:
        benchmark.extra_info["readme"] = True


def record_peak(benchmark, f) -> None:
    """Run ``f()`` once under tracemalloc (outside the timing) and store its peak in MB."""
    tracemalloc.start()
    try:
        f()
        benchmark.extra_info["peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
    finally:
        tracemalloc.stop()


def data_dir() -> Path:
    """``$DPMO_DATA_DIR``, else the first of ``../shared/data`` beside the repository or beside the current
    folder that exists."""
    if os.environ.get("DPMO_DATA_DIR"):
        return Path(os.environ["DPMO_DATA_DIR"])
    candidates = [REPO.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    return next((c for c in candidates if c.is_dir()), candidates[0])


def data_file(name: str) -> Path:
    """``data_dir() / name``; skips the benchmark when it is absent (and in the smoke test)."""
    path = data_dir() / name
    if SMOKE or not path.is_file():
        pytest.skip(f"real data: {path} absent (or smoke test)")
    return path


# ---------------------------------------------------------------------------------- synthetic inputs
def graph_like(n: int, seed: int = 0) -> list:
    """Degree-like and ego-density-like objectives over ``n`` candidates (seeded)."""
    rng = np.random.default_rng(seed)
    deg = np.minimum(np.floor(rng.pareto(1.3, n) * 3 + 1), n - 1)
    pairs = deg * (deg - 1) / 2
    tri = rng.binomial(pairs.astype(np.int64), np.minimum(1.0, 3.0 / np.maximum(deg, 1)))
    ego = np.where(deg >= 2, tri / np.maximum(pairs, 1), 0.0)

    def ego_delta(t, idx=None):
        d = deg if idx is None else deg[idx]
        rest = d - t
        return np.where(rest <= 2, 1.0, 2.0 / np.maximum(rest, 1.0))

    return [
        dpmo.Objective(deg, 1.0, name="degree"),
        dpmo.Objective(ego, 1.0, dpmo.LocalSensitivity(ego_delta, vectorized_t=True), name="ego density"),
    ]


def two_counts(n: int, seed: int = 1) -> list:
    """Two counting objectives (sensitivities 1 and 2): the dampening needs hundreds of distance steps."""
    rng = np.random.default_rng(seed)
    a = np.floor(rng.pareto(1.3, n) * 3 + 1)
    b = np.floor(a * rng.uniform(0.2, 3.0, n) + rng.pareto(1.5, n))
    return [dpmo.Objective(a, 1.0, name="count a"), dpmo.Objective(b, 2.0, name="count b")]


def trees_like(n: int = 33, seed: int = 0) -> list:
    """TPR and TNR objectives of ``n`` trees over Adult's class counts (P = 11,208, N = 34,014), seeded;
    half of the trees duplicated, as after crossover."""
    from dpmo.trees import tnr_objective, tpr_objective

    rng = np.random.default_rng(seed)
    P, N = size(11_208, 300), size(34_014, 900)
    tp = rng.integers(0, P + 1, n)
    tn = rng.integers(0, N + 1, n)
    tp[n // 2 :], tn[n // 2 :] = tp[: n - n // 2], tn[: n - n // 2]
    return [tpr_objective(tp, P), tnr_objective(tn, N)]
