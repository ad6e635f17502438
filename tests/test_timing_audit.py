"""Timing audit of the exact samplers (issue 20): a call's running time says nothing about the data or
about the output, beyond the stated events of negligible probability (``docs/core.md``, "Timing").

Two kinds of evidence, both failing on the samplers of issue 20 (loops that run until a coin comes up):

1. **Work audit** (deterministic): the random words a call draws, and the sequence of Python lines it
   executes (``sys.settrace``), are the same for neighbouring inputs and for every output. The Python line
   sequence fixes every numpy call and the size of every array (sizes are public), so what is left to vary
   is inside numpy's vectorised loops over arrays of public size, and below (caches, the processor).
2. **Timing audit** (statistical): many calls timed with ``time.perf_counter_ns``, grouped by output value
   (each group against the others) and by neighbouring input (the two inputs interleaved, in a random order
   within each pair, so that the load of the machine hits both alike), and compared by a two-sample
   Kolmogorov-Smirnov distance minimised over a relative shift of up to ``TOL`` = 2 % (a systematic
   difference that small is not a leak of the output; the leaks below are 6 % to 100 %). A pair of groups
   fails when that distance exceeds the critical value of the KS test at ``ALPHA`` = 1e-6: the false alarm
   rate of each comparison is at most 1e-6 when the two groups' times have the same law (for groups formed
   by the output, calls are assigned to groups at random, so the permutation null holds even under
   changing load). Power: a leak that sets a fraction ``f`` of one group's calls apart from the other
   group's times (every leak of issue 20 is of this kind: extra loop iterations) is detected with
   probability >= 1 - 1e-6 when ``f >= detectable(n, m)`` (the DKW inequality on both empirical laws),
   e.g. 0.19 for two groups of 2,500 calls and 0.35 for 400 against 1,600.

``docs/core.md`` gives the figures of a run on today's samplers and on the samplers of issue 20.
"""

from __future__ import annotations

import gc
import math
import sys
import time
import warnings

import numpy as np
import pytest
from scipy import stats

import dpmo
from dpmo.mechanisms.exact import (
    RandomBits,
    bernoulli_exp,
    random_permutation,
    sample_discrete_laplace,
    sample_exact,
)

ALPHA = 1e-6  # false alarm rate of one comparison
TOL = 0.02  # relative shift of one group's times that is not counted as a leak
NEIGHBOURS_EM = (np.array([0.0, 0.0]), np.array([0.0, -1.0]), 1.2)  # issue 20's x, y and epsilon


# ---------------------------------------------------------------- work audit


class CountingBits(RandomBits):
    """A seeded stream that counts the 64-bit words drawn and refuses to draw more than ``budget``."""

    def __init__(self, seed, budget=None):
        super().__init__(seed)
        self.count = 0
        self.budget = budget

    def _take(self, n):
        self.count += n
        assert self.budget is None or self.count <= self.budget, f"more than {self.budget} random words drawn"

    def words(self, n):
        self._take(n)
        return super().words(n)

    def getrandbits(self, b):
        if b <= 0:
            return 0
        self._take((b + 63) // 64)
        w = RandomBits.words(self, (b + 63) // 64)
        return int.from_bytes(w.tobytes(), "little") >> (64 * w.size - b)


def quiet_gc():
    """Collect what the warm-up left and disable the collector (``gc.enable()`` after the calls).

    The young generations only: while the collector is disabled no collection runs, so old garbage cannot
    be collected inside a trace or a timed call either way, and a full pass over the old generation (the
    process's modules: 0.2-0.5 s each time) bought nothing.
    """
    gc.collect(1)
    gc.disable()


def line_trace(f):
    """``(f(), lines)``: the output and the sequence of (file, line) executed during the call."""
    lines = []

    def tracer(frame, event, arg):
        lines.append((frame.f_code.co_filename, frame.f_lineno, event))
        return tracer

    previous = sys.gettrace()  # a coverage tool's, say: restored after the call
    sys.settrace(tracer)
    try:
        out = f()
    finally:
        sys.settrace(previous)
    return out, tuple(lines)


def assert_same_work(calls, min_outputs=2):
    """Every call of ``calls`` (zero-argument callables) executes the same lines (after a warm-up).

    ``min_outputs``: the calls must have produced that many distinct outputs (else the audit says nothing).
    """
    for f in calls[:4]:  # warm up: the caches of public values (thresholds of x, trials of n) are filled
        f()
    traces, outputs = set(), set()
    quiet_gc()  # a collection would run finalizers of unrelated objects inside a trace
    try:
        for f in calls:
            out, trace = line_trace(f)
            traces.add(trace)
            outputs.add(repr(np.asarray(out).tolist()))
    finally:
        gc.enable()
    assert len(outputs) >= min_outputs, f"only {len(outputs)} distinct outputs: the audit is not informative"
    assert len(traces) == 1, f"{len(traces)} sequences of executed lines over {len(outputs)} outputs"


def test_discrete_laplace_work_is_the_same_for_every_output():
    """Issue 20: a one-iteration call meant noise 0. Now every draw executes the same lines and words."""
    bits = CountingBits(1)
    sample_discrete_laplace(1, 1.0, bits)  # the thresholds of x = 1 are computed once and cached
    assert_same_work([lambda: sample_discrete_laplace(1, 1.0, bits) for _ in range(40)], min_outputs=3)
    counts = set()
    for _ in range(300):
        before = bits.count
        sample_discrete_laplace(1, 1.0, bits)
        counts.add(bits.count - before)
    assert len(counts) == 1, f"words per draw vary: {sorted(counts)}"


def test_discrete_laplace_work_is_logarithmic_in_the_scale():
    """Issue 20: 0.4-1.4 s per draw at x = 1e-4 (O(1/x) coins). Now O(log(1/x)) words per draw."""
    bits = CountingBits(2, budget=10_000)
    sample_discrete_laplace(1, 1e-4, bits)
    per_draw = {}
    for x in (1.0, 1e-4):
        before = bits.count
        sample_discrete_laplace(100, x, bits)
        per_draw[x] = (bits.count - before) / 100
    assert per_draw[1e-4] <= 2 * math.ceil(math.log2(45 / 1e-4))  # 38 words: 2 per digit at most
    assert per_draw[1e-4] <= 4 * per_draw[1.0]


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_selection_work_is_the_same_for_neighbours_and_outputs(mechanism):
    """Issue 20: on x = [0, 0] one proposal, on its neighbour y = [0, -1] two or more in 22 % of calls."""
    x, y, eps = NEIGHBOURS_EM
    bits = CountingBits(3)
    calls = [lambda s=s: sample_exact(s, eps, 1.0, 1, bits, mechanism) for s in (x, y) * 30]
    assert_same_work(calls)
    counts = set()
    for s in (x, y) * 100:
        before = bits.count
        sample_exact(s, eps, 1.0, 1, bits, mechanism)
        counts.add(bits.count - before)
    assert len(counts) == 1, f"words per call vary with the scores or the output: {sorted(counts)}"


def test_uniform_integer_work_does_not_depend_on_the_bound():
    """``below(m)`` for the number of heads of permute-and-flip: the same words whatever ``m``."""
    bits = CountingBits(4)
    counts = set()
    for m in (1, 2, 3, 5, 2**20 + 1, 2**21, 2**63 + 1):
        for _ in range(30):
            before = bits.count
            bits.below(m)
            counts.add(bits.count - before)
    assert len(counts) == 1, f"words per call vary with m: {sorted(counts)}"
    assert_same_work([lambda m=m: bits.below(m) for m in (2, 3, 5, 6, 7) * 8])


def test_permutation_work_is_the_same_for_every_output():
    bits = CountingBits(5)
    assert_same_work([lambda: random_permutation(4, bits) for _ in range(40)], min_outputs=5)


def _tables():
    rng = np.random.default_rng(0)
    X = rng.random((200, 3))
    y = (rng.random(200) < 0.4).astype(int)
    # the neighbour: one more record (a positive one)
    return (X, y), (np.vstack([X, [[0.5, 0.5, 0.5]]]), np.append(y, 1))


def _fit(table, random_state=None):
    from dpmo.trees import DiffPID3Classifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_records=None: the same warning on every fit
        clf = DiffPID3Classifier(epsilon=1, max_depth=0, exact=True, random_state=random_state)
        return clf.fit(*table).tree_.leaf_counts[0]


def test_exact_fit_work_is_the_same_for_neighbours_and_outputs():
    """Issue 20: the fastest fits published the true class counts. Now every fit executes the same lines."""
    x, y = _tables()
    rng = np.random.default_rng(6)
    _fit(x, rng)
    assert_same_work([lambda t=t: _fit(t, rng) for t in (x, y) * 10], min_outputs=6)


# ---------------------------------------------------------------- timing audit


def ks_critical(n: int, m: int, alpha: float = ALPHA) -> float:
    """Critical value of the two-sample KS distance at level ``alpha`` (asymptotic, conservative)."""
    return math.sqrt(-math.log(alpha / 2) / 2 * (n + m) / (n * m))


def detectable(n: int, m: int, miss: float = 1e-6) -> float:
    """Smallest separated fraction detected with probability >= 1 - miss (DKW on both samples)."""
    t = lambda k: math.sqrt(math.log(4 / miss) / (2 * k))  # noqa: E731
    return ks_critical(n, m) + t(n) + t(m)


def shifted_ks(a: np.ndarray, b: np.ndarray) -> float:
    """KS distance between ``a`` and ``s b``, minimised over relative shifts ``s`` in [1 - TOL, 1 + TOL]."""
    return min(stats.ks_2samp(a, b * s).statistic for s in np.linspace(1 - TOL, 1 + TOL, 9))


def timing_report(groups: dict, what: str, pairs=None) -> list:
    """Compare every pair of groups (``pairs``) or every group of >= 100 calls with all the others."""
    rows = []
    if pairs is None:
        labels = [k for k, v in groups.items() if len(v) >= 100]
        pairs = [(k, None) for k in labels]
    for a, b in pairs:
        ta = np.asarray(groups[a], float)
        tb = np.asarray(groups[b] if b is not None else [t for k, v in groups.items() if k != a for t in v])
        d = shifted_ks(ta, tb.astype(float))
        crit = ks_critical(ta.size, tb.size)
        rows.append((what, a, "rest" if b is None else b, ta.size, tb.size, d, crit))
    return rows


def assert_no_leak(rows):
    for w, a, b, n, m, d, c in rows:  # shown with pytest -s (the figures of docs/core.md)
        f = detectable(n, m)
        print(f"{w}: {a} vs {b} (n = {n}, {m}): KS {d:.3f}, critical {c:.3f}, detectable {f:.2f}")
    bad = [r for r in rows if r[5] > r[6]]
    detail = "\n".join(f"{w}: {a} vs {b} (n = {n}, {m}): KS {d:.3f} > {c:.3f}" for w, a, b, n, m, d, c in bad)
    assert not bad, "the running time depends on the output or the input:\n" + detail


def timed_calls(calls, repeats: int, seed: int, budget: float = 3.0):
    """Time ``repeats`` rounds of the zero-argument callables in ``calls`` (dict label -> f), interleaved
    in a random order within each round, or fewer when ``budget`` seconds have passed (a loaded machine:
    fewer calls, less power, the same false alarm rate); returns label -> list of (ns, output)."""
    order = np.random.default_rng(seed)
    labels = list(calls)
    out = {k: [] for k in labels}
    for _ in range(20):  # warm up (caches, thresholds)
        for k in labels:
            calls[k]()
    quiet_gc()
    deadline = time.perf_counter() + budget
    try:
        for _ in range(repeats):
            if time.perf_counter() > deadline:
                break
            for k in order.permutation(labels):
                t0 = time.perf_counter_ns()
                value = calls[k]()
                out[k].append((time.perf_counter_ns() - t0, value))
    finally:
        gc.enable()
    return out


def by_output(samples, key=lambda v: v):
    groups = {}
    for t, v in samples:
        groups.setdefault(key(v), []).append(t)
    return groups


@pytest.mark.slow
def test_timing_discrete_laplace_per_output():
    runs = timed_calls({"z": lambda: int(sample_discrete_laplace(1, 1.0)[0])}, 3000, 10, budget=2.0)
    groups = by_output(runs["z"], key=lambda z: max(-2, min(2, z)))  # |z| >= 2 pooled
    assert_no_leak(timing_report(groups, "discrete Laplace x = 1, per output"))


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_timing_selection_neighbours_and_outputs(mechanism):
    x, y, eps = NEIGHBOURS_EM
    runs = timed_calls(
        {
            "x": lambda: int(dpmo.select(x, eps, 1.0, mechanism=mechanism, exact=True)[0]),
            "y": lambda: int(dpmo.select(y, eps, 1.0, mechanism=mechanism, exact=True)[0]),
        },
        2500,
        11,
        budget=2.5,
    )
    groups = {k: [t for t, _ in v] for k, v in runs.items()}
    rows = timing_report(groups, f"{mechanism}, neighbours", pairs=[("x", "y")])
    rows += timing_report(by_output(runs["y"]), f"{mechanism} on y, per output")
    assert_no_leak(rows)


def test_timing_coins_uniform_integers_and_permutations():
    bits = RandomBits(None)
    runs = timed_calls(
        {
            "coin": lambda: bool(bernoulli_exp(np.zeros(1), 0.7, 2.0, 1.0, bits)[0]),
            "below 2": lambda: bits.below(2),
            "below 3": lambda: bits.below(3),
            "perm": lambda: tuple(random_permutation(3, bits).tolist()),
        },
        2000,
        12,
        budget=2.0,
    )
    groups = {k: [t for t, _ in v] for k, v in runs.items()}
    rows = timing_report(by_output(runs["coin"]), "coin exp(-0.7), per outcome")
    rows += timing_report(groups, "below, m = 2 vs 3", pairs=[("below 2", "below 3")])
    rows += timing_report(by_output(runs["below 3"]), "below 3, per output")
    rows += timing_report(by_output(runs["perm"]), "permutation of 3, per output")
    assert_no_leak(rows)


def test_timing_exact_fit_neighbours_and_outputs():
    """DiffPID3 (epsilon 1, depth 0, exact) on 200 rows and on the same plus one record."""
    x, y = _tables()
    truth = {k: np.bincount(t[1], minlength=2).astype(float).tolist() for k, t in (("x", x), ("y", y))}
    runs = timed_calls({"x": lambda: _fit(x).tolist(), "y": lambda: _fit(y).tolist()}, 1000, 13)
    groups = {k: [t for t, _ in v] for k, v in runs.items()}
    rows = timing_report(groups, "DiffPID3 fit, neighbours", pairs=[("x", "y")])
    released = {True: [], False: []}
    for k, samples in runs.items():
        for t, counts in samples:
            released[counts == truth[k]].append(t)
    rows += timing_report(released, "DiffPID3 fit, true counts released or not", pairs=[(True, False)])
    assert_no_leak(rows)


# ---------------------------------------------------------------- scope (issue 31, item 6)


def _scope_inputs(n: int = 300):
    """Two inputs of the same public sizes: integer-valued objectives (many ties, varied counts) and all
    ties; two edge lists on the same public node set: a random one and an empty one."""
    rng = np.random.default_rng(21)
    ints = [rng.integers(0, 12, n).astype(float), rng.integers(0, 12, n).astype(float)]
    ties = [np.zeros(n), np.zeros(n)]
    edges = rng.integers(0, n, size=(3 * n, 2))
    edges = np.unique(np.sort(edges[edges[:, 0] != edges[:, 1]], axis=1), axis=0)
    return {"ints": ints, "ties": ties}, {"random": edges, "empty": np.zeros((0, 2), dtype=np.int64)}, n


def _priv_pareto_local(values):
    objs = [dpmo.Objective(v, 1.0) for v in values]
    return lambda: int(dpmo.priv_pareto(objs, 1.0, k=1, sensitivity="local", rng=1)[0])


def _top_k_pareto(edges, n):
    from dpmo import graphs

    return lambda: int(graphs.top_k(graphs.load_graph(edges, nodes=n), 1, 1.0, approach="pareto", rng=1)[0])


@pytest.mark.slow
def test_timing_scope_the_sampler_is_constant_work_the_scores_are_not():
    """``docs/core.md``, "Timing", scope: ``dpmo.select(..., exact=True)`` as a whole (checks, budget,
    sampling) executes the same lines for any scores of the same size; computing the scores does not, and
    the docs say so. Local PrivPareto's dampening evaluates a number of distances that depends on the values
    (integer objectives against ties), and ``graphs.top_k`` reads an edge list whose length is private
    (a random edge list against an empty one on the same public node set). The timing figures of the
    docs are this test's output with ``pytest -s``."""
    values, edge_lists, n = _scope_inputs()
    scores = {"ints": values["ints"][0], "ties": values["ties"][0]}
    rng = np.random.default_rng(22)
    assert_same_work(
        [lambda s=s: dpmo.select(s, 1.0, 1.0, k=2, exact=True, rng=rng) for s in scores.values()] * 10,
        min_outputs=3,
    )
    pareto = {k: _priv_pareto_local(v) for k, v in values.items()}
    graph = {k: _top_k_pareto(v, n) for k, v in edge_lists.items()}
    for calls in (pareto, graph):
        for f in calls.values():
            f()  # warm-up
        traces = {k: line_trace(f)[1] for k, f in calls.items()}
        a, b = traces.values()
        assert a != b, "the same lines for both inputs: the docs' timing scope says otherwise, update it"
    rows = []
    for what, calls in (("priv_pareto local, integer objectives vs ties", pareto),
                        ("graphs.top_k pareto, random vs empty edge list", graph)):  # fmt: skip
        runs = timed_calls(calls, 400, 23, budget=2.0)
        groups = {k: [t for t, _ in v] for k, v in runs.items()}
        a, b = groups
        rows += timing_report(groups, what, pairs=[(a, b)])
        print(f"{what}: median {np.median(groups[a]) / 1e6:.2f} ms vs {np.median(groups[b]) / 1e6:.2f} ms")
    for w, _, _, n_a, n_b, d, c in rows:  # figures only: a difference here is what the docs state
        print(f"{w}: KS {d:.3f}, critical {c:.3f} (n = {n_a}, {n_b})")
