"""Local dampening: the dampening function, its edge cases, and an exhaustive audit on a real query."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.audit import check_admissibility, local_sensitivity_at_distance, max_dampened_change, max_log_ratio
from dpmo.breakpoints import bracket
from dpmo.dampening import dampen_objective


def dampen_reference(u, deltas):
    """Piecewise-linear interpolation of (b_i, i), breakpoints written out (positive segments only)."""
    b = np.concatenate([[0.0], np.cumsum(deltas)])
    a = abs(u)
    for i in range(len(deltas)):
        if b[i] <= a < b[i + 1]:
            return np.sign(u) * (i + (a - b[i]) / (b[i + 1] - b[i]))
    raise AssertionError("not bracketed")


def test_hand_computed_breakpoints():
    # delta(t) = t + 1 capped at 3: breakpoints 0, 1, 3, 6, 9, 12, ...
    f = lambda t: np.full(6, min(t + 1.0, 3.0))  # noqa: E731
    D = dpmo.dampen([0.0, 1.0, 2.5, -3.0, 10.0, 6.0], f, global_sensitivity=3.0)
    np.testing.assert_allclose(D, [0.0, 1.0, 1.75, -2.0, 4 + 1 / 3, 3.0])


@settings(max_examples=200, deadline=None)
@given(
    u=st.floats(-1e4, 1e4, allow_nan=False),
    increments=st.lists(st.floats(0, 5), min_size=1, max_size=30),
    start=st.floats(0, 3),
)
def test_matches_reference_and_is_odd(u, increments, start):
    levels = start + np.cumsum([0.0] + increments)  # non-decreasing deltas, possibly zero at first
    G = float(levels[-1]) + 1.0
    f = lambda t: np.array([levels[t] if t < len(levels) else G])  # noqa: E731
    floor = 1e-9 * G
    deltas = [max(min(levels[t] if t < len(levels) else G, G), floor) for t in range(len(levels))]
    deltas += [G] * int(abs(u) / G + 5)
    D = dpmo.dampen([u], f, global_sensitivity=G)[0]
    assert D == pytest.approx(dampen_reference(u, deltas), rel=1e-9, abs=1e-9)
    assert dpmo.dampen([-u], f, global_sensitivity=G)[0] == pytest.approx(-D, abs=1e-12)


def test_monotone_continuous_and_exact_on_breakpoints():
    deltas = np.array([0.5, 0.5, 1.0, 2.0, 2.0, 4.0])
    b = np.concatenate([[0.0], np.cumsum(deltas)])
    f = lambda t: np.full(1, deltas[min(t, 5)])  # noqa: E731
    for i, bi in enumerate(b[:-1]):
        assert dpmo.dampen([bi], f, global_sensitivity=4.0)[0] == pytest.approx(i)
        left = dpmo.dampen([bi - 1e-9], f, global_sensitivity=4.0)[0]
        assert abs(left - i) < 1e-8  # continuous from the left
    grid = np.linspace(-20, 20, 2001)
    D = dpmo.dampen(grid, lambda t: np.full(grid.size, deltas[min(t, 5)]), global_sensitivity=4.0)
    assert np.all(np.diff(D) >= 0)


def test_constant_delta_is_scaling_and_none_is_global():
    u = np.array([-7.0, 0.0, 3.0, 12.5])
    np.testing.assert_allclose(dpmo.dampen(u, lambda t: np.full(4, 2.0), global_sensitivity=5.0), u / 2)
    np.testing.assert_allclose(dpmo.dampen(u, None, global_sensitivity=5.0), u / 5)


def test_zero_delta_terminates_and_stays_finite():
    u = np.array([0.0, 1.0, -2.0])
    D = dpmo.dampen(u, lambda t: np.zeros(3), global_sensitivity=1.0, max_steps=50)
    floor = 1e-9
    np.testing.assert_allclose(D, [0.0, 50 + (1 - 50 * floor), -(50 + (2 - 50 * floor))])
    # zero for two leading levels, then positive (the Pareto score's case in the errata, point 3)
    f = lambda t: np.full(3, 0.0 if t < 2 else 1.0)  # noqa: E731
    D = dpmo.dampen(u, f, global_sensitivity=1.0)
    np.testing.assert_allclose(D, [0.0, 2 + (1 - 2e-9), -(3 + (2 - 2e-9 - 1))], atol=1e-12)


def test_iteration_cap_uses_global_sensitivity():
    u = np.array([1000.0])
    D = dpmo.dampen(u, lambda t: np.full(1, 0.01), global_sensitivity=2.0, max_steps=10)
    assert D[0] == pytest.approx(10 + (1000 - 0.1) / 2.0)
    # without a global sensitivity: never an error; a public rising floor (0.01 x 2^j from the cap on,
    # above the deltas) brackets it, so D is exactly the interpolation on those breakpoints
    D = dpmo.dampen(u, lambda t: np.full(1, 0.01), max_steps=10)
    widths = [max(0.01, 1e-9 * 2.0 ** (j + 1)) for j in range(80)]
    b, j = 0.1, 0
    while b + widths[j] <= 1000.0:
        b, j = b + widths[j], j + 1
    assert D[0] == pytest.approx(10 + j + (1000.0 - b) / widths[j])


def test_vectorized_blocks_equal_stepwise():
    rng = np.random.default_rng(0)
    deg = rng.integers(0, 500, size=300).astype(float)
    u = deg + rng.uniform(0, 50, size=300)

    def ego(t, idx):
        d = deg if idx is None else deg[idx]
        rest = d - t
        return 1.0 + 50 * np.where(rest <= 2, 1.0, 2.0 / np.maximum(rest, 1.0))

    step = dpmo.dampen(u, lambda t: ego(t, None), global_sensitivity=51.0)
    block = dpmo.dampen(u, dpmo.LocalSensitivity(ego, vectorized_t=True), global_sensitivity=51.0)
    subset = dpmo.dampen(u, dpmo.LocalSensitivity(ego), global_sensitivity=51.0)
    np.testing.assert_allclose(block, step, rtol=1e-12)
    np.testing.assert_allclose(subset, step, rtol=1e-12)


def _without_closed_form(local):
    return dpmo.LocalSensitivity(local, vectorized_t=True)


@settings(max_examples=60)
@given(
    n=st.integers(1, 30),
    P=st.integers(0, 3000),
    N=st.integers(0, 60),
    w=st.tuples(st.floats(-4, 4), st.floats(0.1, 4)),
    max_steps=st.sampled_from([100_000, 40, 3]),
    neighbouring=st.sampled_from(["add_remove", "substitution"]),
    seed=st.integers(0, 2**16),
)
def test_closed_form_bisection_equals_the_loop(n, P, N, w, max_steps, neighbouring, seed):
    """dampen with closed-form breakpoints (rates and their weighted sums) gives the loop's scores."""
    from dpmo.trees import tnr_objective, tpr_objective

    rng = np.random.default_rng(seed)
    objs = [
        tpr_objective(rng.integers(0, P + 1, n), P, neighbouring=neighbouring),
        tnr_objective(rng.integers(0, N + 1, n), N, neighbouring=neighbouring),
    ]
    agg = dpmo.aggregate(objs, w)
    assert agg.local.cumulative is not None
    for obj in (*objs, agg):
        G = obj.global_sensitivity
        closed = dpmo.dampen(obj.values, obj.local, global_sensitivity=G, max_steps=max_steps)
        loop = dpmo.dampen(
            obj.values, _without_closed_form(obj.local), global_sensitivity=G, max_steps=max_steps
        )
        np.testing.assert_allclose(closed, loop, rtol=1e-9, atol=1e-9)


@settings(max_examples=60)
@given(
    lo=st.integers(0, 50),
    widths=st.lists(st.integers(0, 200_000), min_size=1, max_size=20),
    fractions=st.lists(st.floats(0, 1), min_size=20, max_size=20),
    points=st.sampled_from([1, 2, 31]),
)
def test_first_true_finds_the_first_true_distance(lo, widths, fractions, points):
    """first_true returns the first distance of a monotone predicate, never asks at hi (assumed true) nor
    outside [lo, hi), for any number of points per round (1: a bisection)."""
    from dpmo import breakpoints

    n = len(widths)
    lo_a = np.full(n, lo, dtype=np.int64)
    hi_a = lo_a + np.array(widths, dtype=np.int64)
    want = lo_a + np.floor(np.array(fractions[:n]) * np.array(widths)).astype(np.int64)  # in [lo, hi]
    asked = []

    def pred(T, c):
        asked.append((T.copy(), c.copy()))
        return T >= want[c]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(breakpoints, "_SEARCH_POINTS", points)
        got = breakpoints.first_true(pred, np.arange(n), lo_a, hi_a)
    assert got.tolist() == want.tolist()
    for T, c in asked:
        assert np.all(T >= lo_a[c]) and np.all(T < hi_a[c])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    P=st.integers(0, 20_000),
    N=st.integers(0, 40_000),
    w=st.tuples(st.floats(0.1, 4), st.floats(0.1, 4)),
    max_steps=st.sampled_from([100_000, 40]),
    seed=st.integers(0, 2**16),
)
def test_closed_form_search_gives_the_bisections_floats(n, P, N, w, max_steps, seed):
    """The closed form's searches (31 distances per round) give bit for bit the scores of a bisection
    (one distance per round), for rates (the trees' objectives, Adult-sized classes) and their sums."""
    from dpmo import breakpoints
    from dpmo.trees import tnr_objective, tpr_objective

    rng = np.random.default_rng(seed)
    objs = [tpr_objective(rng.integers(0, P + 1, n), P), tnr_objective(rng.integers(0, N + 1, n), N)]
    for obj in (*objs, dpmo.aggregate(objs, w)):
        G = obj.global_sensitivity
        fast = dpmo.dampen(obj.values, obj.local, global_sensitivity=G, max_steps=max_steps)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(breakpoints, "_SEARCH_POINTS", 1)
            bisection = dpmo.dampen(obj.values, obj.local, global_sensitivity=G, max_steps=max_steps)
        assert fast.tobytes() == bisection.tobytes()


def test_closed_form_with_cap_floor_and_step_limit():
    # delta(t) = c + k t (capped at G by dampen), b(T) = c T + k T (T - 1) / 2
    c = np.array([0.5, 0.01, 2.0, 0.3, 0.0])
    k = np.array([0.25, 0.0, 1.0, 0.0, 0.5])
    u = np.array([7.3, -40.0, 55.0, 1e6, 3.0])

    def f(t, idx=None):
        sel = slice(None) if idx is None else idx
        return c[sel] + k[sel] * np.asarray(t, dtype=float)

    def cum(T, idx=None):
        sel = slice(None) if idx is None else idx
        T = np.asarray(T, dtype=float)
        return c[sel] * T + k[sel] * T * (T - 1) / 2

    closed = dpmo.LocalSensitivity(f, vectorized_t=True, cumulative=cum)
    plain = _without_closed_form(f)
    # c = 0 for the last candidate: the floor acts at t = 0 (and, with min_sensitivity = 0.3, also where
    # delta = c + k t < 0.3: several steps for candidates 1, 3 and 4)
    for G, steps, floor in ((4.0, 100_000, None), (4.0, 6, None), (1e9, 100_000, None), (4.0, 100_000, 0.3)):
        got = dpmo.dampen(u, closed, global_sensitivity=G, max_steps=steps, min_sensitivity=floor)
        ref = dpmo.dampen(u, plain, global_sensitivity=G, max_steps=steps, min_sensitivity=floor)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    alive = slice(0, 4)
    for G, steps in ((4.0, 100_000), (4.0, 6), (1.5, 3), (1e9, 100_000)):
        got = dpmo.dampen(u[alive], closed, global_sensitivity=G, max_steps=steps)
        ref = dpmo.dampen(u[alive], plain, global_sensitivity=G, max_steps=steps)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    # hand check of the cap: candidate 2 reaches G = 4 at t = 2 (2 + 1 * 2), b(2) = 2 + 3 = 5
    assert dpmo.dampen(u[alive], closed, global_sensitivity=4.0)[2] == pytest.approx(2 + (55 - 5) / 4)
    # past the cap without a global sensitivity: the public rising floor, the same on both paths
    got = dpmo.dampen(u[alive], closed, max_steps=5)
    np.testing.assert_allclose(got, dpmo.dampen(u[alive], plain, max_steps=5), rtol=1e-12)
    assert np.all(np.isfinite(got))


def test_local_sensitivity_closed_form_arguments():
    f = lambda t, idx=None: np.ones(2)  # noqa: E731
    with pytest.raises(ValueError, match="vectorized_t"):
        dpmo.LocalSensitivity(f, cumulative=lambda T, idx=None: T)
    with pytest.raises(TypeError, match="cumulative"):
        dpmo.LocalSensitivity(f, vectorized_t=True, cumulative="no")
    with pytest.raises(ValueError, match="bound"):
        dpmo.LocalSensitivity(f, bound=0.0)
    # take() keeps the closed form, on the right candidates
    obj = dpmo.Objective(
        [1.0, 2.0, 3.0],
        1.0,
        dpmo.LocalSensitivity(
            lambda t, idx=None: np.broadcast_to(
                np.array([0.1, 0.2, 0.3])[idx if idx is not None else slice(None)],
                np.broadcast_shapes(np.shape(t), (3 if idx is None else len(idx),)),
            ),
            vectorized_t=True,
            cumulative=lambda T, idx=None: (
                np.asarray(T) * np.array([0.1, 0.2, 0.3])[idx if idx is not None else slice(None)]
            ),
            bound=0.3,
        ),
    )
    sub = obj.take([2, 0])
    assert sub.local.bound == 0.3
    np.testing.assert_allclose(sub.local.cumulative(np.array([10, 10])), [3.0, 1.0])


@pytest.mark.parametrize(
    "local, word",
    [
        (lambda t: np.ones(2), "shape"),
        (lambda t: -np.ones(3), "negative"),
        (lambda t: np.full(3, np.nan), "finite"),
        (lambda t: np.full(3, 3.0 - 0.1 * t), "decreases"),
        ("no", "callable"),
    ],
)
def test_bad_local_functions(local, word):
    with pytest.raises((ValueError, TypeError), match=word):
        dpmo.dampen([1.0, 20.0, 3.0], local, global_sensitivity=10.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="global_sensitivity"):
        dpmo.dampen([1.0], None)
    with pytest.raises(ValueError, match="min_sensitivity"):
        dpmo.dampen([1.0], lambda t: np.ones(1), global_sensitivity=1.0, min_sensitivity=2.0)
    with pytest.raises(TypeError, match="max_steps"):
        dpmo.dampen([1.0], lambda t: np.ones(1), max_steps=1.5)
    with pytest.raises(ValueError, match="values"):
        dpmo.dampen([np.nan], lambda t: np.ones(1))


# ------------------------------------------------- exhaustive audit on a real query: the most frequent value
# Private input: a multiset of records over V values, stored as the count vector c (total N).
# Neighbours: add or remove one record (any value).  Candidates: the V values.
# Utility: relative frequency u(x, r) = c_r / N (0 for the empty database); global sensitivity 1.
# Admissible function (the same argument as for TPR in the errata):
# delta(x, t) = 1 if N - t <= 1 else 1/(N - t).

V = 3
N_MAX = 9


def frequency(c):
    n = sum(c)
    return np.array(c, float) / n if n else np.zeros(V)


def freq_delta(c, t):
    n = sum(c) - t
    return np.full(V, 1.0 if n <= 1 else 1.0 / n)


def neighbours(c):
    for v in range(V):
        yield c[:v] + (c[v] + 1,) + c[v + 1 :]
        if c[v]:
            yield c[:v] + (c[v] - 1,) + c[v + 1 :]


STATES = [c for c in itertools.product(range(N_MAX + 1), repeat=V) if sum(c) <= N_MAX]


def test_frequency_delta_is_admissible_and_bounds_exact_local_sensitivity():
    assert check_admissibility(STATES, neighbours, frequency, freq_delta, t_max=N_MAX + 2) == []
    big = [c for c in itertools.product(range(N_MAX + 5), repeat=V) if sum(c) <= N_MAX + 4]
    exact = local_sensitivity_at_distance(big, neighbours, frequency, t_max=3)
    for c in STATES:  # interior: the 3-ball stays inside `big`
        for t in range(4):
            assert np.all(freq_delta(c, t) >= exact[c][t] - 1e-12)
    # tight at t = 0 somewhere: the bound is not loose everywhere
    assert any(np.isclose(freq_delta(c, 0), exact[c][0]).any() for c in STATES if sum(c) >= 2)


def dampened_frequency(c):
    return dpmo.dampen(frequency(c), lambda t: freq_delta(c, t), global_sensitivity=1.0)


def test_dampened_frequency_changes_by_at_most_one():
    assert max_dampened_change(STATES, neighbours, dampened_frequency) <= 1 + 1e-9


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
def test_local_dampening_exact_privacy_audit(mechanism, eps):
    worst = 0.0
    for c in STATES:
        px = dpmo.probabilities(dampened_frequency(c), eps, 1.0, mechanism=mechanism, log=True)
        for y in neighbours(c):
            py = dpmo.probabilities(dampened_frequency(y), eps, 1.0, mechanism=mechanism, log=True)
            worst = max(worst, max_log_ratio(px, py, log=True))
    assert worst <= eps + 1e-9


def test_zero_sensitivity_levels_keep_dampening_bounded():
    # u(N) = max(0, N - 5) has exact local sensitivity 0 at distance t while N + t < 5: zero leading levels.
    def util(state):
        return np.array([max(0.0, state[0] - 5.0), -max(0.0, state[0] - 5.0)])

    def delta(state, t):
        return np.full(2, 1.0 if state[0] + t >= 5 else 0.0)

    def nbrs(state):
        yield (state[0] + 1,)
        if state[0]:
            yield (state[0] - 1,)

    states = [(n,) for n in range(30)]
    assert check_admissibility(states, nbrs, util, delta, t_max=10) == []
    D = lambda s: dpmo.dampen(util(s), lambda t: delta(s, t), global_sensitivity=1.0)  # noqa: E731
    assert max_dampened_change(states, nbrs, D) <= 1 + 1e-9


def test_local_dampening_selects_and_dampen_objective():
    obj = dpmo.Objective([0.0, 5.0, 10.0], 1.0, lambda t: np.full(3, 0.5))
    np.testing.assert_allclose(dampen_objective(obj), [0.0, 10.0, 20.0])
    picks = [
        dpmo.local_dampening(obj.values, 5.0, obj.local, rng=s, global_sensitivity=1.0)[0] for s in range(50)
    ]
    assert np.bincount(picks, minlength=3)[2] >= 45
    out = dpmo.local_dampening(
        obj.values, 1.0, obj.local, k=3, mechanism="permute_and_flip", rng=0, global_sensitivity=1.0
    )
    assert sorted(out.tolist()) == [0, 1, 2]


def test_stepwise_functions_are_probed_late_and_give_the_same_scores():
    """A ``stepwise`` function (a far distance costs every distance in between) is never asked for a
    distance beyond the loop's before t = 16; other functions are probed after 3 evaluations. Both give
    the dampened scores of the constant width 0.5: D = u / 0.5."""
    n = 50
    u = np.linspace(0.0, 6.0, n)  # up to 12 segments of width 0.5
    asked: list[int] = []

    def f(t, idx=None):
        asked.append(int(np.max(t)))
        return np.full(n if idx is None else len(idx), 0.5)

    out = {}
    for stepwise in (False, True):
        asked.clear()
        out[stepwise] = dpmo.dampen(u, dpmo.LocalSensitivity(f, stepwise=stepwise), global_sensitivity=1.0)
        far = max(asked)
        if stepwise:
            assert far <= 12  # stepped through the 12 distances, no probe
        else:
            assert far >= 16  # a probe looked past the loop's distance
            assert set(range(16)) <= set(asked)  # after every distance below 16 was evaluated
        np.testing.assert_allclose(out[stepwise], 2.0 * u, rtol=1e-12, atol=1e-12)
    assert dpmo.LocalSensitivity(f).stepwise is False


def _bracket_reference(d, b, a, active, t, G, floor, D):
    """The vectorised form of one step (block) of the dampening loop, as numpy computes it."""
    d = np.maximum(d, floor)
    ends = b[None, :] + np.cumsum(d, axis=0)
    a_act = a[active]
    stop = a_act[None, :] < ends
    if G is not None:
        stop |= d >= G
    hit = stop.any(axis=0)
    j = np.argmax(stop, axis=0)
    cols = np.nonzero(hit)[0]
    jj = j[cols]
    start = ends[jj, cols] - d[jj, cols]
    D[active[cols]] = t + jj + (a_act[cols] - start) / d[jj, cols]
    return ~hit, ends[-1]


def _signed(D, u):
    """``sign(u) * D``, as the dampening loop used to finish."""
    return np.sign(u) * D


@pytest.mark.parametrize("B", [1, 3, 40])
@pytest.mark.parametrize("G", [None, 1.5])
def test_loop_step_kernel_gives_the_floats_of_the_vectorised_form(B, G):
    # dampen's compiled step (_bracket) against the numpy expressions it replaces, bit for bit: zero and
    # floored deltas, deltas at the cap, |u| exactly on a breakpoint, non-representable sums
    rng = np.random.default_rng(B)
    n, q = 500, 300
    a = np.abs(rng.choice([0.0, 0.1, 0.3, 1.0, 2.7, 10.0, 1e3], n) + rng.integers(0, 3, n) * 0.1)
    active = np.sort(rng.choice(n, q, replace=False))
    d = rng.choice([0.0, 1e-12, 0.1, 0.2, 0.7, 1.5, 3.0], (B, q))
    d = np.maximum.accumulate(d, axis=0)
    if G is not None:
        d = np.minimum(d, G)
    b = rng.choice([0.0, 0.1, 0.3, 0.6], q)
    floor = 1e-9
    u = a * rng.choice([-1.0, 1.0], n)  # the kernel brackets |u|
    D1, D2 = np.full(n, np.nan), np.full(n, np.nan)
    left, b1, last = bracket(d, b, u, active, 7, G, floor, D1)
    keep2, b2 = _bracket_reference(d, b, a, active, 7, G, floor, D2)
    assert np.array_equal(left, active[keep2]) and left.size < q
    assert left.size or (G is not None and B == 40)  # at the cap every candidate stops
    assert np.array_equal(b1, b2[keep2])
    assert np.array_equal(last, d[-1][keep2])
    assert np.array_equal(D1, _signed(D2, u), equal_nan=True)


@pytest.mark.parametrize("B", [1, 3])
def test_loop_first_step_without_indices_or_breakpoints(B):
    # the first step passes active=None (every candidate, in order) and b=None (all 0): the same results
    # as the explicit arrays
    rng = np.random.default_rng(B + 10)
    n = 400
    u = rng.choice([0.0, 0.05, 0.3, 1.0, 2.7, -0.3, -10.0], n) + rng.integers(0, 3, n) * 0.1
    d = np.maximum.accumulate(rng.choice([0.0, 1e-12, 0.1, 0.2, 0.7, 1.5], (B, n)), axis=0)
    D1, D2 = np.full(n, np.nan), np.full(n, np.nan)
    got = bracket(d, None, u, None, 0, None, 1e-9, D1)
    want = bracket(d, np.zeros(n), u, np.arange(n), 0, None, 1e-9, D2)
    assert 0 < got[0].size < n
    for x, y in zip(got, want, strict=True):
        assert np.array_equal(x, y)
    assert np.array_equal(D1, D2, equal_nan=True)


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    kind=st.sampled_from(["constant", "steps", "rising", "vectorised"]),
    max_steps=st.sampled_from([3, 40, 3000]),
    with_cap=st.booleans(),
)
def test_dampening_over_the_values_gives_the_floats_of_dampen(seed, kind, max_steps, with_cap):
    # the loop written over its input (PrivPareto's rounds: dampening.dampen_over) against dampen with a
    # fresh output, bit for bit: first step, probes over constant runs, the max_steps close with and
    # without a global sensitivity, signs and zeros of u
    from dpmo import dampening as dmod

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    u = rng.choice([0.0, -0.0, 0.3, -2.0, 7.5, 40.0, -300.0], n) + rng.integers(0, 3, n) * 0.25
    # (tiny deltas only where a closed form over constant runs applies: elsewhere they take 10^5 steps)
    base = rng.choice([1e-12 if kind == "constant" else 1e-3, 0.05, 0.2, 1.0], n)
    G = 1.5 if with_cap else None

    def local(t):
        if kind == "constant":
            return base
        if kind == "steps":
            return base * (1 + (t // 7))
        return base * (1.0 + 0.1 * t)

    f = local
    if kind == "vectorised":
        f = dpmo.LocalSensitivity(lambda t, idx=None: base[idx] * (1.0 + 0.0 * t), vectorized_t=True)
    floor = dmod.DEFAULT_FLOOR * (G if G is not None else 1.0)
    want = dpmo.dampen(u, f, global_sensitivity=G, max_steps=max_steps)
    work = u.copy()
    with np.errstate(over="ignore"):
        got = dmod._dampened(work, f, G, floor, max_steps, "u", work)
    got = np.clip(got, -dmod._MAX_FLOAT, dmod._MAX_FLOAT)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    if G is not None:  # the defaults of dampen_over (max_steps 100,000: the cap closes the loop first)
        over = dmod.dampen_over(u.copy(), f, global_sensitivity=G, name="u")
        want = dpmo.dampen(u, f, global_sensitivity=G)
        assert np.array_equal(over.view(np.uint64), want.view(np.uint64))


def test_dampen_over_takes_only_an_owned_float_array():
    from dpmo import dampening as dmod

    f = lambda t: np.full(3, 0.5)  # noqa: E731
    with pytest.raises(TypeError, match="float64"):
        dmod.dampen_over([1.0, 2.0, 3.0], f, global_sensitivity=1.0)
    frozen = np.arange(3.0)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="writeable"):
        dmod.dampen_over(frozen, f, global_sensitivity=1.0)
    with pytest.raises(TypeError, match="local"):
        dmod.dampen_over(np.arange(3.0), None, global_sensitivity=1.0)


# ------------------------------------------------------------------------------ at the end of the floats
@settings(max_examples=60, deadline=None)
@given(
    c=st.floats(1e306, 1.7e308),
    fractions=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
    with_cap=st.booleans(),
)
def test_breakpoints_beyond_the_floats_keep_the_sign_and_the_segment(c, fractions, with_cap):
    """A constant delta ``c`` gives ``D = |u| / c`` (segments of width ``c``). Where the breakpoint
    ``b_t = t c`` passed the largest float, ``b_t - c`` was inf - c and the score -inf: the sign of the best
    candidates' scores flipped (0.99e308 and 1.01e308 at c = 1e308 scored 0.99 and -1.8e308)."""
    top = float(np.finfo(np.float64).max)
    u = np.array(fractions) * top
    G = top if with_cap else None
    D = dpmo.dampen(u, lambda t: np.full(u.size, c), global_sensitivity=G)
    np.testing.assert_allclose(D, u / c, rtol=1e-12)
    assert np.all(D >= 0.0)


def test_tiny_global_sensitivity_keeps_a_floor():
    """1e-9 * 1e-320 underflowed to a floor of 0: scores of 0 and 5e-324 came out 100,000 apart (zero
    deltas)."""
    u = np.array([1e-318, 0.0, 5e-324])
    with np.errstate(all="raise"):
        D = dpmo.dampen(u, lambda t: np.zeros(3), global_sensitivity=1e-320)
        plain = dpmo.dampen(u, None, global_sensitivity=1e-320)
    np.testing.assert_array_equal(D, plain)  # floor = G: every delta is G
    assert abs(D[2] - D[1]) < 1.0


def test_the_rising_floor_never_falls_below_a_huge_floor():
    """min_sensitivity above 2^1020 was capped there after max_steps (a falling, inadmissible floor)."""
    u = np.array([1.79e308, 1.7e308])
    D = dpmo.dampen(u, lambda t: np.zeros(2), min_sensitivity=1.7e308, max_steps=1)
    # b_1 = 1.7e308, then widths of at least 1.7e308: D = 1 + (|u| - 1.7e308) / 1.7e308
    np.testing.assert_allclose(D, [1.0 + (1.79e308 - 1.7e308) / 1.7e308, 1.0], rtol=1e-12)


@pytest.mark.parametrize("exact", [True, False])
def test_local_dampening_draws_at_what_it_recorded(exact):
    """With 10^-400 left in a budget, local_dampening recorded its spend, then select refused the share as a
    float (0.0): a record of a call that released nothing. Now it draws at the recorded share."""
    from fractions import Fraction

    b = dpmo.Budget(1)
    b.spend(1 - Fraction(1, 10**400), "earlier")
    picks = dpmo.local_dampening(
        np.arange(3.0), None, None, global_sensitivity=1.0, budget=b, rng=0, exact=exact
    )
    assert picks.shape == (1,) and 0 <= picks[0] < 3
    assert b.spent_exact == 1 and b.ledger[-1].what.startswith("local_dampening")
