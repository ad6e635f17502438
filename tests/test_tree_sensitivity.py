"""Exhaustive proofs of the TPR/TNR sensitivity functions (ERRATA point 1) on all count states.

A rate ``h / s`` (TPR = TP / P, TNR likewise) is a function of the count state ``(h, s - h)`` (hits, misses).
Neighbouring states:

* add/remove one record: one unit more or less in one coordinate (a record of the other class leaves
  the rate unchanged);
* substitution of one record: additionally a hit becomes a miss or back (a record changes side of the
  tree); a change of class looks like a removal or an addition.

The exact element local sensitivity at distance ``t`` (the paper's Definition "Element Local
Sensitivity") is computed here by breadth-first search over a grid of states, independently of the code
under test, and cross-checked with :func:`dpmo.audit.local_sensitivity_at_distance`. Then both
admissibility conditions are checked with :func:`dpmo.audit.check_admissibility` for every state with
``s <= 40`` and ``t <= 40``. The paper's printed function is shown to fail, with the counts of
``../shared/notes/ERRATA.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpmo
from dpmo.audit import check_admissibility, local_sensitivity_at_distance, max_dampened_change
from dpmo.trees import rate_sensitivity, tnr_objective, tpr_objective

S_MAX = 40
T_MAX = 40
GRID = S_MAX + T_MAX + 2  # every state within distance T_MAX (plus one step) of a state with s <= S_MAX

ADD_REMOVE = ((1, 0), (-1, 0), (0, 1), (0, -1))
SUBSTITUTION = ADD_REMOVE + ((1, -1), (-1, 1))
MOVES = {"add_remove": ADD_REMOVE, "substitution": SUBSTITUTION}

STATES = [(h, s - h) for s in range(S_MAX + 1) for h in range(s + 1)]  # 861 states (hits, misses)


def rate_of(h, miss):
    s = h + miss
    return h / s if s else 0.0


def neighbours_of(moves):
    def neighbours(state):
        h, miss = state
        for dh, dm in moves:
            if h + dh >= 0 and miss + dm >= 0:
                yield (h + dh, miss + dm)

    return neighbours


def grid_local_sensitivity(moves) -> np.ndarray:
    """LS[t, h, miss] on the grid by dynamic programming over distances (independent reference)."""
    h, miss = np.meshgrid(np.arange(GRID), np.arange(GRID), indexing="ij")
    s = h + miss
    rate = np.divide(h, s, out=np.zeros(s.shape), where=s > 0)

    def shifted(a, dh, dm):
        out = np.full(a.shape, np.nan)
        src_h = slice(max(dh, 0), GRID + min(dh, 0))
        dst_h = slice(max(-dh, 0), GRID + min(-dh, 0))
        src_m = slice(max(dm, 0), GRID + min(dm, 0))
        dst_m = slice(max(-dm, 0), GRID + min(-dm, 0))
        out[dst_h, dst_m] = a[src_h, src_m]  # out[state] = a[state + move]
        return out

    ls = np.zeros(rate.shape)
    for dh, dm in moves:
        ls = np.fmax(ls, np.abs(rate - shifted(rate, dh, dm)))
    levels = [ls]
    for _ in range(T_MAX):
        cur = levels[-1].copy()
        for dh, dm in moves:
            cur = np.fmax(cur, shifted(levels[-1], dh, dm))
        levels.append(cur)
    return np.array(levels)


@pytest.fixture(scope="module")
def exact_ls():
    return {name: grid_local_sensitivity(moves) for name, moves in MOVES.items()}


def _function_table(neighbouring):
    h = np.array([st[0] for st in STATES])
    s = np.array([sum(st) for st in STATES])
    return rate_sensitivity(h, s, np.arange(T_MAX + 1)[:, None], neighbouring=neighbouring), h, s


# ---------------------------------------------------------------------------------------------------------
# exactness


def test_grid_reference_agrees_with_audit_bfs(exact_ls):
    # the library's BFS on an enumerated set, exact for states whose t-ball lies inside it
    t_small = 8
    inner = [st for st in STATES if sum(st) <= 12]
    enumerated = [(h, m) for h in range(25) for m in range(25)]
    for name, moves in MOVES.items():
        got = local_sensitivity_at_distance(
            enumerated, neighbours_of(moves), lambda st: np.array([rate_of(*st)]), t_small
        )
        for st in inner:
            np.testing.assert_allclose(got[st][:, 0], exact_ls[name][: t_small + 1, st[0], st[1]], atol=1e-15)


@pytest.mark.parametrize("neighbouring", ["add_remove", "substitution"])
def test_function_is_the_exact_element_local_sensitivity(exact_ls, neighbouring):
    table, h, s = _function_table(neighbouring)
    exact = exact_ls[neighbouring][:, h, s - h]
    assert table.shape == exact.shape == (T_MAX + 1, len(STATES))
    np.testing.assert_allclose(table, exact, rtol=1e-12, atol=0)  # all 35,301 (state, t) pairs


def test_substitution_function_bounds_add_remove(exact_ls):
    table, h, s = _function_table("substitution")
    exact = exact_ls["add_remove"][:, h, s - h]
    assert np.all(table >= exact - 1e-15)
    assert np.max(table / exact) == pytest.approx(2.0)  # at most twice the tight add/remove function


def test_closed_forms_by_hand():
    # P = 10, TP = 9: removing a false negative moves TPR from 0.9 to 1 (the errata's example)
    assert rate_sensitivity(9, 10, 0) == pytest.approx(1 / 10)
    assert rate_sensitivity(5, 10, 0) == pytest.approx(5 / 90)  # max(TP, FN) / (P (P - 1))
    assert rate_sensitivity(0, 10, 0) == pytest.approx(1 / 11)  # only adding a true positive moves it
    assert rate_sensitivity(10, 10, 8) == pytest.approx(1 / 3)
    assert rate_sensitivity(10, 10, 9) == 1.0
    assert rate_sensitivity(0, 0, 0) == 1.0
    assert rate_sensitivity(0, 10, 0, neighbouring="substitution") == pytest.approx(1 / 10)
    assert rate_sensitivity(3, 10, 9, neighbouring="substitution") == 1.0


# ---------------------------------------------------------------------------------------------------------
# admissibility, both conditions, with the library's checker


def _delta(neighbouring):
    # one vectorised evaluation of the function for every state the checker can reach, then lookups
    states = [(h, m) for h in range(S_MAX + 2) for m in range(S_MAX + 2)]
    h = np.array([st[0] for st in states])
    s = np.array([sum(st) for st in states])
    table = rate_sensitivity(h, s, np.arange(T_MAX + 1)[:, None], neighbouring=neighbouring)
    index = {st: i for i, st in enumerate(states)}
    return lambda st, t: table[t, index[st]][None]


def _utility(st):
    return np.array([rate_of(*st)])


@pytest.mark.parametrize(
    "function, relation",
    [("add_remove", "add_remove"), ("substitution", "substitution"), ("substitution", "add_remove")],
)
def test_admissible(function, relation):
    violations = check_admissibility(
        STATES, neighbours_of(MOVES[relation]), _utility, _delta(function), T_MAX
    )
    assert violations == []


def test_tight_add_remove_function_is_not_admissible_for_substitution():
    violations = check_admissibility(
        STATES, neighbours_of(SUBSTITUTION), _utility, _delta("add_remove"), T_MAX
    )
    assert violations  # e.g. TP = 0: a false negative turned true positive moves TPR by 1 / P > 1 / (P + 1)
    first = next(v for v in violations if v.condition == 1)
    assert first.state[0] == 0 or first.state[1] == 0


# ---------------------------------------------------------------------------------------------------------
# the paper's printed function fails


def paper_delta(tp, p, t):
    """delta^TPR as printed in the paper's "Sensitivity Analysis" of Application 1."""
    tp2 = max(tp - max(t - (p - tp), 0), 2)
    p2 = max(p - t, 2)
    if t <= p - tp:
        return (p2 - tp2) / (p2 * (p2 - 1))
    return tp2 / (p2 * (p2 - 1))


def reference_dampening(u, delta):
    """D(x, r) from the paper's Definition "Dampening function", for u >= 0 and positive deltas."""
    b, i = 0.0, 0
    while True:
        d = delta(i)
        if u < b + d:
            return i + (u - b) / d
        b += d
        i += 1


def test_paper_function_fails_both_conditions(exact_ls):
    ls0 = exact_ls["add_remove"][0]
    bad_states = [st for st in STATES if paper_delta(st[0], sum(st), 0) < ls0[st] - 1e-12]
    assert len(bad_states) == 500  # ERRATA: condition 1 fails in 500 of 861 states
    positive = [st for st in bad_states if paper_delta(st[0], sum(st), 0) > 0]
    worst = max(positive, key=lambda st: ls0[st] / paper_delta(st[0], sum(st), 0))
    assert worst == (39, 1)  # TP = 39, P = 40: 39 times too small
    assert ls0[worst] / paper_delta(39, 40, 0) == pytest.approx(39.0)
    assert len(bad_states) - len(positive) == 44  # the floors at 2 give 0 (e.g. TP = P)
    assert paper_delta(9, 10, 0) == pytest.approx(1 / 90) and ls0[9, 1] == pytest.approx(1 / 10)
    cond2 = 0
    for st in STATES:
        for y in neighbours_of(ADD_REMOVE)(st):
            for t in range(T_MAX):
                if paper_delta(st[0], sum(st), t + 1) < paper_delta(y[0], sum(y), t) - 1e-12:
                    cond2 += 1
    assert cond2 == 17337  # ERRATA: condition 2 fails in 17,337 cases


def test_paper_function_breaks_local_dampening():
    # ERRATA: x = (TP 13, FN 23) and its neighbour (TP 14, FN 23): dampened scores 18.92 and 24.07
    dx = reference_dampening(13 / 36, lambda t: paper_delta(13, 36, t))
    dy = reference_dampening(14 / 37, lambda t: paper_delta(14, 37, t))
    assert dx == pytest.approx(18.92, abs=0.005) and dy == pytest.approx(24.07, abs=0.005)
    assert abs(dx - dy) > 1  # local dampening needs <= 1: not epsilon-DP
    for neighbouring in ("add_remove", "substitution"):
        ex = reference_dampening(
            13 / 36, lambda t, nb=neighbouring: float(rate_sensitivity(13, 36, t, neighbouring=nb))
        )
        ey = reference_dampening(
            14 / 37, lambda t, nb=neighbouring: float(rate_sensitivity(14, 37, t, neighbouring=nb))
        )
        assert abs(ex - ey) <= 1 + 1e-9


@pytest.mark.parametrize("neighbouring", ["add_remove", "substitution"])
def test_dampened_rates_move_by_at_most_one(neighbouring):
    def dampened(st):
        obj = tpr_objective([st[0]], sum(st), neighbouring=neighbouring)
        return dpmo.dampening.dampen_objective(obj)

    states = [st for st in STATES if sum(st) <= 30]
    worst = max_dampened_change(states, neighbours_of(MOVES[neighbouring]), dampened)
    assert worst <= 1 + 1e-9
    assert worst > 0.5  # the check is not vacuous
    # the library's dampening agrees with the paper's definition on these objectives
    for st in states[::37]:
        if st[0] == 0:
            continue
        ref = reference_dampening(
            rate_of(*st), lambda t, s=st: float(rate_sensitivity(s[0], sum(s), t, neighbouring=neighbouring))
        )
        assert dampened(st)[0] == pytest.approx(ref, rel=1e-9)


# ---------------------------------------------------------------------------------------------------------
# the aggregate 3 TPR + 2 TNR of one tree over joint count states


@pytest.mark.slow
def test_weighted_sum_of_rates_admissible_on_joint_states():
    lim = 5
    joint = [
        (tp, fn, tn, fp) for tp in range(lim) for fn in range(lim) for tn in range(lim) for fp in range(lim)
    ]
    moves = [tuple(int(i == j) * sgn for j in range(4)) for i in range(4) for sgn in (1, -1)]

    def neighbours(st):
        for mv in moves:
            y = tuple(a + b for a, b in zip(st, mv, strict=True))
            if min(y) >= 0:
                yield y

    cache = {}

    def agg(st):
        if st not in cache:
            tp, fn, tn, fp = st
            cache[st] = dpmo.aggregate(
                [tpr_objective([tp], tp + fn), tnr_objective([tn], tn + fp)], [3.0, 2.0]
            )
        return cache[st]

    def utility(st):
        return agg(st).values

    def delta(st, t):
        return agg(st).sensitivity(t)

    assert check_admissibility(joint, neighbours, utility, delta, 5) == []


# ---------------------------------------------------------------------------------------------------------
# Objective API


def test_objectives_values_and_local_functions():
    tp = np.array([0, 3, 10, 7])
    o = tpr_objective(tp, 10)
    assert o.name == "TPR" and o.global_sensitivity == 1.0 and o.n == 4
    np.testing.assert_allclose(o.values, [0, 0.3, 1.0, 0.7])
    for t in (0, 5, 9, 12):
        np.testing.assert_allclose(o.sensitivity(t), rate_sensitivity(tp, 10, t))
        np.testing.assert_allclose(o.sensitivity(t, np.array([3, 1])), rate_sensitivity(tp[[3, 1]], 10, t))
    assert o.local.vectorized_t and o.local.supports_index
    block = o.local(np.arange(4)[:, None], np.array([2, 0]))
    np.testing.assert_allclose(block, rate_sensitivity(tp[[2, 0]], 10, np.arange(4)[:, None]))
    n = tnr_objective([0, 0], 0, neighbouring="substitution")
    np.testing.assert_array_equal(n.values, [0.0, 0.0])  # no negatives: rate 0
    assert o.take([1]).values.tolist() == [0.3]


@pytest.mark.parametrize("neighbouring", ["add_remove", "substitution"])
def test_closed_form_breakpoints_are_the_running_sums(neighbouring):
    """local.cumulative(T) = sum_{j<T} delta(j) for every state with s <= 40 and T <= s + 5, and on
    samples of large tables (what dpmo.dampen's bisection relies on)."""
    for s_ in range(S_MAX + 1):
        h = np.arange(s_ + 1)
        o = tpr_objective(h, s_, neighbouring=neighbouring)
        ts = np.arange(s_ + 6)
        deltas = np.vstack([rate_sensitivity(h, s_, int(t), neighbouring=neighbouring) for t in ts])
        running = np.vstack([np.zeros(h.size), np.cumsum(deltas, axis=0)])  # running[T] = b(T)
        for T in range(s_ + 7):
            got = o.local.cumulative(np.full(h.size, T), None)
            np.testing.assert_allclose(got, running[T], rtol=1e-12, atol=1e-15)
        sub = np.array([s_ // 2, 0])
        np.testing.assert_allclose(
            o.local.cumulative(np.array([3, 1]), sub), running[[3, 1], sub], rtol=1e-12
        )
    rng = np.random.default_rng(2)
    for s_ in (997, 20_000, 45_222):
        h = np.concatenate([[0, s_, s_ // 2, 1, s_ - 1], rng.integers(0, s_ + 1, 20)])
        o = tnr_objective(h, s_, neighbouring=neighbouring)
        running = np.cumsum(o.local(np.arange(s_ + 3)[:, None]), axis=0)
        for T in rng.integers(1, s_ + 4, 15):
            got = o.local.cumulative(np.full(h.size, T))
            np.testing.assert_allclose(got, running[T - 1], rtol=1e-10)


def test_objective_validation():
    with pytest.raises(ValueError, match="exceed"):
        tpr_objective([5], 4)
    with pytest.raises(ValueError, match="non-negative"):
        tpr_objective([-1], 4)
    with pytest.raises(ValueError, match="integer"):
        tpr_objective([1.5], 4)
    with pytest.raises(TypeError):
        tpr_objective(["a"], 4)
    with pytest.raises(ValueError, match="1-D"):
        tpr_objective([[1]], 4)
    with pytest.raises(ValueError, match="neighbouring"):
        tpr_objective([1], 4, neighbouring="hamming")
    with pytest.raises(ValueError):
        rate_sensitivity(1, 4, -1)
    with pytest.raises(TypeError):
        rate_sensitivity(1, 4, 0.5)


def test_paper_function_decreases_in_t_and_dampen_rejects_it():
    # An admissible function is non-decreasing in t (condition 2 with y = x); the printed one is not.
    values = [paper_delta(13, 36, t) for t in range(20)]
    drops = [t for t in range(19) if values[t + 1] < values[t]]
    assert drops and drops[0] + 1 == 12  # delta(12) < delta(11)
    with pytest.raises(ValueError, match="decreases"):
        dpmo.dampen([13 / 36], lambda t: np.array([paper_delta(13, 36, t)]), global_sensitivity=1.0)
