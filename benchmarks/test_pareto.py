"""Speed and memory of PrivPareto / PrivAgg at the scale of real graphs.

* ``pareto_score`` on random candidates: 10^6 with m = 2 (target < 1 s), 10^5 with m = 3 and m = 4.
* The whole local PrivPareto (``pareto_score`` + ``pareto_sensitivity`` + ``dampen`` + ``select``, one call
  of ``dpmo.priv_pareto``) with a degree-like and an ego-density-like objective at 37,700 candidates
  (GitHub's size, target < 0.5 s; the published code needs about 13 minutes) and 317,080 (DBLP's, < 5 s);
  on the real GitHub graph and a DBLP-size synthetic graph; a stress case of two counting objectives.
* PrivAgg local at the same sizes (degree + 100 ego density, the paper's weights).
* Blocks of distances (``docs/pareto.md``): few candidates with tiny deltas, the dampening loop asking for
  blocks of distances (the default at these sizes) or one distance per call.
* The first calls in a fresh process with an empty numba cache (JIT compilation).

``extra_info``: ``peak_mb`` (tracemalloc's peak over one call), ``t_steps`` (calls of delta^PS by the
dampening loop).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import dpmo
from support import data_file, describe, graph_like, record_peak, size, trees_like, two_counts

N_GITHUB, N_DBLP = 37_700, 317_080


def count_steps(objs) -> int:
    """Calls of delta^PS the dampening loop makes for the Pareto scores of ``objs``."""
    f = dpmo.pareto_sensitivity(objs)
    calls = []

    def counted(t, idx=None):
        calls.append(t)
        return f(t, idx)

    ps = dpmo.pareto_score(objs).astype(float)
    dpmo.dampen(ps, dpmo.LocalSensitivity(counted), global_sensitivity=objs[0].n - 1.0)
    return len(calls)


@pytest.mark.parametrize(
    "n, m, ties",
    [(10**6, 2, False), (10**6, 2, True), (10**5, 3, False), (10**5, 4, False)],
    ids=["1e6-m2", "1e6-m2-ties", "1e5-m3", "1e5-m4"],
)
def test_pareto_score(benchmark, n, m, ties):
    rng = np.random.default_rng(0)
    n = size(n, 2000)
    U = rng.integers(0, 100, size=(n, m)).astype(float) if ties else rng.random((n, m))
    kind = "integer grid 0..99 (ties)" if ties else "continuous"
    note = "O(n log n) Fenwick sweep (published code: O(n^2))" if m == 2 else "divide and conquer"
    describe(benchmark, f"`pareto_score`, n = {n:,}, {m} objectives, {kind}", note, readme=not ties)
    benchmark(dpmo.pareto_score, U)
    record_peak(benchmark, lambda: dpmo.pareto_score(U))


_MADE: dict = {}


def _objectives(kind: str, n: int):
    """The objectives of a case, made once per session (the synthetic graph takes seconds)."""
    if (kind, n) not in _MADE:
        _MADE[kind, n] = _make(kind, n)
    return _MADE[kind, n]


def _make(kind: str, n: int):
    if kind == "graph-like":
        return graph_like(n)
    if kind == "two counts":
        return two_counts(n)
    if kind == "github":
        from dpmo import graphs

        return graphs.objectives(graphs.load_graph(data_file("musae_git_edges.csv"), nodes=N_GITHUB))
    from dpmo.graphs import objectives, random_collaboration_graph

    if n == N_DBLP:  # DBLP's 317,080 nodes and 1,049,866 edges (the generator's defaults)
        return objectives(random_collaboration_graph(rng=0))
    return objectives(random_collaboration_graph(n_nodes=n, n_edges=3 * n, rng=0))


CASES = [
    ("graph-like", N_GITHUB, "degree + ego-density-like"),
    ("graph-like", N_DBLP, "degree + ego-density-like"),
    ("github", N_GITHUB, "the real GitHub graph"),
    ("dblp-synthetic", N_DBLP, "DBLP-size synthetic graph"),
    ("two counts", N_GITHUB, "two counts (stress)"),
    ("two counts", N_DBLP, "two counts (stress)"),
]


@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.parametrize("kind, n, label", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_priv_pareto(benchmark, kind, n, label, sensitivity):
    n = size(n, 2000)
    objs = _objectives(kind, n)
    readme = sensitivity == "local" and (kind != "two counts" or n == N_DBLP)
    describe(benchmark, f"PrivPareto {sensitivity} (sensitivity + dampening + pick), n = {n:,}, {label}",
             readme=readme)  # fmt: skip
    benchmark(dpmo.priv_pareto, objs, 1.0, sensitivity=sensitivity, rng=0)
    if sensitivity == "local":
        benchmark.extra_info["t_steps"] = count_steps(objs)
        record_peak(benchmark, lambda: dpmo.priv_pareto(objs, 1.0, rng=0))


@pytest.mark.parametrize("n, k", [(N_GITHUB, 3), (N_DBLP, 10)], ids=["github-size-k3", "dblp-size-k10"])
def test_priv_pareto_k(benchmark, n, k):
    objs = graph_like(size(n, 2000))
    describe(benchmark, f"PrivPareto local, k = {k}, n = {n:,}, degree + ego-density-like", readme=k == 10)
    benchmark(dpmo.priv_pareto, objs, 1.0, k=k, rng=0)


@pytest.mark.parametrize("n", [N_GITHUB, N_DBLP])
def test_priv_agg(benchmark, n):
    objs = graph_like(size(n, 2000))
    describe(benchmark, f"PrivAgg local, k = 5, n = {n:,}, degree + 100 ego density")
    benchmark(dpmo.priv_agg, objs, [1.0, 100.0], 1.0, k=5, rng=0)


@pytest.mark.parametrize("blocks", [True, False], ids=["blocks", "one-t-per-call"])
@pytest.mark.parametrize("case", ["trees", "two counts"])
def test_dampening_blocks(benchmark, case, blocks):
    """Local PrivPareto with and without blocks of distances in the dampening loop (``docs/pareto.md``);
    skipped where the code has no such switch (``pareto_rounds._DAMPEN_BLOCKS_MAX_N``)."""
    try:  # dpmo.pareto.rounds since the package dpmo/pareto/; dpmo.pareto_rounds before
        from dpmo.pareto import rounds as pareto_rounds
    except ImportError:
        from dpmo import pareto_rounds

    if not hasattr(pareto_rounds, "_DAMPEN_BLOCKS_MAX_N"):
        pytest.skip("this version of dpmo has no switch for blocks of distances")
    objs, k = (trees_like(), 3) if case == "trees" else (two_counts(size(2000, 200), seed=3), 1)
    label = "33 trees (TPR/TNR), k = 3" if case == "trees" else "two counts, n = 2,000"
    describe(benchmark, f"PrivPareto local, {label}, {'blocks of distances' if blocks else '1 t per call'}",
             readme=blocks and case == "trees")  # fmt: skip
    saved = pareto_rounds._DAMPEN_BLOCKS_MAX_N
    pareto_rounds._DAMPEN_BLOCKS_MAX_N = saved if blocks else 0
    try:
        benchmark(dpmo.priv_pareto, objs, 1.0, k=k, rng=0)
    finally:
        pareto_rounds._DAMPEN_BLOCKS_MAX_N = saved


WARM_UP = """
import numpy as np, dpmo
from support import graph_like
small = graph_like(3000, seed=9)
dpmo.priv_pareto(small, 1.0, rng=0)
dpmo.priv_pareto(small, 1.0, sensitivity="global", rng=0)
rng = np.random.default_rng(0)
for m in (1, 2, 3):
    dpmo.pareto_score(rng.random((20000, m)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["empty numba cache", "warm numba cache"])
def test_first_calls_in_a_fresh_process(benchmark, cache):
    """``import dpmo`` and the first PrivPareto / ``pareto_score`` calls in a new interpreter: with an empty
    numba cache (JIT compilation of every kernel) or a filled one (loading it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=folder)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        cmd = [sys.executable, "-c", WARM_UP]

        def run():
            subprocess.run(cmd, env=env, check=True, capture_output=True)

        if cache == "warm numba cache":
            run()
            describe(benchmark, "a fresh process: `import dpmo` + first PrivPareto calls, numba cache warm")
            benchmark.pedantic(run, rounds=size(3, 1))
        else:
            describe(benchmark, "a fresh process: `import dpmo` + first PrivPareto calls, empty numba cache",
                     "JIT compilation of the kernels")  # fmt: skip

            def fresh():
                shutil.rmtree(folder)
                os.mkdir(folder)
                return (), {}

            benchmark.pedantic(run, setup=fresh, rounds=size(3, 1))
