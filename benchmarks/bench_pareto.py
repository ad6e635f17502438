"""Speed and memory of PrivPareto / PrivAgg at the scale of real graphs. Prints a table (for the README).

Run: python benchmarks/bench_pareto.py [--quick]

Cases
-----
* ``pareto_score`` on random candidates: 10^6 with m = 2 (target < 1 s), 10^5 with m = 3 and m = 4.
* The whole local PrivPareto (``pareto_score`` + ``pareto_sensitivity`` + ``dampen`` + ``select``, i.e. one
  call of ``dpmo.priv_pareto``) with a degree-like objective (heavy-tailed integers, delta = 1) and an
  ego-density-like one (in [0, 1], delta(t) = 1 if d - t <= 2 else 2 / (d - t)), at 37,700 candidates
  (GitHub's size, target < 0.5 s) and 317,080 (DBLP's size, target < 5 s). The published code needs about
  13 minutes at 37,700.
* The same on the real GitHub graph (``../shared/data``) and on a synthetic DBLP-size graph, when available.
* A stress case: two counting objectives (delta = 1 and 2), where the dampening needs hundreds of t-steps.
* PrivAgg local at the same sizes (degree + 100 ego density, the paper's weights).
* Blocks of distances (``docs/pareto.md``): local PrivPareto on few candidates whose deltas are tiny (33
  trees with TPR/TNR over Adult-size class counts, as in DP-MOET; two counting objectives over 2,000
  candidates), with the dampening loop asking for blocks (the default at these sizes) and one distance per
  call (blocks disabled), and the number of calls of delta^PS each way.

Times are the best of ``--repeat`` runs after a warm-up; the warm-up (numba compilation, or loading its
on-disk cache) is timed separately in a fresh state. "t-steps" is the number of calls the dampening loop made
to delta^PS (for the block cases: distances evaluated / calls, over all rounds). Peak memory is
tracemalloc's peak over one run (numpy allocations; numba's temporaries are O(n) and not traced).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import dpmo
from dpmo.pareto import pareto_selection_scores

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def timed(f, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def peak_mb(f):
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def graph_like(n, seed=0):
    """Degree-like and ego-density-like objectives over n candidates (synthetic, seeded)."""
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


def two_counts(n, seed=1):
    rng = np.random.default_rng(seed)
    a = np.floor(rng.pareto(1.3, n) * 3 + 1)
    b = np.floor(a * rng.uniform(0.2, 3.0, n) + rng.pareto(1.5, n))
    return [dpmo.Objective(a, 1.0, name="count a"), dpmo.Objective(b, 2.0, name="count b")]


def count_steps(objs):
    """Number of t-steps the dampening loop needs for the Pareto score of these objectives."""
    f = dpmo.pareto_sensitivity(objs)
    calls = []

    def counted(t, idx=None):
        calls.append(t)
        return f(t, idx)

    n = objs[0].n
    ps = dpmo.pareto_score(objs).astype(float)
    dpmo.dampen(ps, dpmo.LocalSensitivity(counted), global_sensitivity=n - 1.0)
    return len(calls)


def warm_up():
    """First calls in this process: numba compiles (or loads its cache); timed once."""
    t0 = time.perf_counter()
    small = graph_like(3000, seed=9)
    dpmo.priv_pareto(small, 1.0, rng=0)
    dpmo.priv_pareto(small, 1.0, sensitivity="global", rng=0)
    rng = np.random.default_rng(0)
    for m in (1, 2, 3):
        dpmo.pareto_score(rng.random((20000, m)))
    return time.perf_counter() - t0


def cold_warm_up() -> float:
    """The warm-up in a fresh process with an empty numba cache (full JIT compilation)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        here = str(Path(__file__).resolve().parent)
        code = f"import sys; sys.path.insert(0, {here!r}); import bench_pareto as b; print(b.warm_up())"
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return float(out.stdout.strip().splitlines()[-1])


def real_graph_objectives():
    out = []
    try:
        from dpmo import graphs
    except Exception as exc:  # pragma: no cover - optional
        print(f"(graph cases skipped: {exc})")
        return out
    path = DATA / "musae_git_edges.csv"
    if path.exists():
        try:
            g = graphs.load_graph(path, nodes=37_700)  # the published node count
            out.append(("PrivPareto local, GitHub graph (real)", graphs.objectives(g)))
        except Exception as exc:  # pragma: no cover - optional
            print(f"(GitHub case skipped: {exc})")
    try:
        from dpmo.graphs.synthetic import random_collaboration_graph

        g = random_collaboration_graph()
        out.append(("PrivPareto local, DBLP-size synthetic graph", graphs.objectives(g)))
    except Exception as exc:  # pragma: no cover - optional
        print(f"(DBLP-size case skipped: {exc})")
    return out


def trees_like(n=33, seed=0):
    """TPR and TNR objectives of n trees over Adult's class counts (P = 11,208, N = 34,014), seeded."""
    from dpmo.trees import tnr_objective, tpr_objective

    rng = np.random.default_rng(seed)
    P, N = 11_208, 34_014
    tp = rng.integers(0, P + 1, n)
    tn = rng.integers(0, N + 1, n)
    tp[n // 2 :], tn[n // 2 :] = tp[: n - n // 2], tn[: n - n // 2]  # duplicated trees, as after crossover
    return [tpr_objective(tp, P), tnr_objective(tn, N)]


def block_cases(rep):
    """Local PrivPareto with and without blocks of distances in the dampening loop."""
    from dpmo.pareto import rounds as pareto_rounds

    real = pareto_rounds.dampen
    calls: list[int] = []

    def spy(values, local, **kw):  # counts the distances asked for and the calls
        def counted(dist, idx=None):
            calls.append(int(np.size(dist)))
            return local(dist, idx)

        spied = dpmo.LocalSensitivity(counted, vectorized_t=local.vectorized_t, stepwise=local.stepwise)
        return real(values, spied, **kw)

    out = []
    for name, objs, k in (
        ("33 trees (TPR/TNR), k = 3", trees_like(), 3),
        ("two counts", two_counts(2000, seed=3), 1),
    ):
        for label, limit in (("blocks", pareto_rounds._DAMPEN_BLOCKS_MAX_N), ("1 t per call", 0)):
            saved = pareto_rounds._DAMPEN_BLOCKS_MAX_N
            pareto_rounds._DAMPEN_BLOCKS_MAX_N = limit
            try:
                dpmo.priv_pareto(objs, 1.0, k=k, rng=0)
                sec = timed(lambda objs=objs, k=k: dpmo.priv_pareto(objs, 1.0, k=k, rng=0), rep)
                calls.clear()
                pareto_rounds.dampen = spy
                dpmo.priv_pareto(objs, 1.0, k=k, rng=0)
            finally:
                pareto_rounds.dampen = real
                pareto_rounds._DAMPEN_BLOCKS_MAX_N = saved
            steps = f"{sum(calls)}/{len(calls)}"
            out.append((f"PrivPareto local, {name}, {label}", objs[0].n, sec, steps, "", ""))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the stress case and the real graphs")
    args = parser.parse_args()
    rep = args.repeat

    warm = warm_up()
    print(f"warm-up, first calls in this process (numba cache load): {warm:.2f} s")
    print(f"warm-up in a fresh process with an empty numba cache (JIT compilation): {cold_warm_up():.2f} s\n")

    rows = []
    rng = np.random.default_rng(0)
    for n, m, ties, target in (
        (10**6, 2, False, "< 1 s"),
        (10**6, 2, True, ""),
        (10**5, 3, False, ""),
        (10**5, 4, False, ""),
    ):
        U = rng.integers(0, 100, size=(n, m)).astype(float) if ties else rng.random((n, m))
        t = timed(lambda U=U: dpmo.pareto_score(U), rep)
        label = f"pareto_score, m = {m}" + (", integer grid 0..99 (ties)" if ties else ", continuous")
        rows.append((label, n, t, "", peak_mb(lambda U=U: dpmo.pareto_score(U)), target))

    cases = [
        ("PrivPareto local, degree + ego-density-like", graph_like(n), n, target)
        for n, target in ((37_700, "< 0.5 s"), (317_080, "< 5 s"))
    ]
    if not args.quick:
        cases += [(name, objs, objs[0].n, "") for name, objs in real_graph_objectives()]
        cases += [("PrivPareto local, two counts (stress)", two_counts(n), n, "") for n in (37_700, 317_080)]
    for name, objs, n, target in cases:
        t = timed(lambda objs=objs: dpmo.priv_pareto(objs, 1.0, rng=0), rep)
        steps = count_steps(objs)
        mem = peak_mb(lambda objs=objs: dpmo.priv_pareto(objs, 1.0, rng=0))
        rows.append((name, n, t, steps, mem, target))
        if "count" not in name:
            D, _ = pareto_selection_scores(objs, "local")
            ps = dpmo.pareto_score(objs)
            print(f"{name}, n = {n}: front {int(np.sum(ps == 0))}, D in [{D.min():.3f}, {D.max():.3f}]")
        tg = timed(lambda objs=objs: dpmo.priv_pareto(objs, 1.0, sensitivity="global", rng=0), rep)
        rows.append((name.replace("local", "global"), n, tg, "", "", ""))
    for n, k in ((37_700, 3), (317_080, 10)):  # the paper's k for GitHub and DBLP
        objs = graph_like(n)
        t = timed(lambda objs=objs, k=k: dpmo.priv_pareto(objs, 1.0, k=k, rng=0), rep)
        rows.append((f"PrivPareto local, k = {k}, degree + ego-density-like", n, t, "", "", ""))
    for n in (37_700, 317_080):
        objs = graph_like(n)
        t = timed(lambda objs=objs: dpmo.priv_agg(objs, [1.0, 100.0], 1.0, k=5, rng=0), rep)
        rows.append(("PrivAgg local, k = 5, degree + 100 ego", n, t, "", "", ""))

    rows += block_cases(rep)

    print()
    head = f"{'case':<52} {'n':>9} {'time (s)':>9} {'t-steps':>8} {'peak MB':>8} {'target':>8}"
    print(head)
    print("-" * len(head))
    for name, n, t, steps, mem, target in rows:
        mem_s = f"{mem:.1f}" if mem != "" else ""
        print(f"{name:<52} {n:>9} {t:>9.3f} {steps!s:>8} {mem_s:>8} {target:>8}")


if __name__ == "__main__":
    main()
