"""PrivPareto: the Pareto score, its admissible sensitivity function, and the mechanism's plumbing.

Every expectation here is computed independently of the code under test: the paper's hand-worked
examples, closed forms, or a direct O(n^2 m) transcription of the paper's set definitions.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import dpmo
from dpmo import pareto as pareto_mod
from dpmo import selection as selection_mod
from dpmo.pareto import dominance as dominance_mod
from dpmo.pareto import rounds as rounds_mod
from dpmo.pareto import small as small_mod
from dpmo.pareto import state as state_mod
from dpmo.pareto import sweep as sweep_mod
from dpmo.selection import SelectionCache, select_multiobjective
from pareto_paths import force_counting_path

# ------------------------------------------------------------------------ references (paper's definitions)


def naive_pareto_score(U):
    """Definition "Pareto Score": minus the number of other candidates >= r in every objective."""
    U = np.asarray(U, float)
    n = U.shape[0]
    m = U.shape[1] if n > 1 else 0  # read only when two candidates are compared, as before
    out = np.zeros(n, dtype=np.int64)
    u = U.tolist()  # the same floats as Python floats: indexing a list is cheaper than an array
    for r in range(n):
        for rp in range(n):
            if rp != r and all(u[rp][i] >= u[r][i] for i in range(m)):
                out[r] -= 1
    return out


@functools.cache
def weak_dominators(u: tuple) -> tuple:
    """For each row r of ``u`` (a tuple of rows), the other rows that are >= row r in every objective."""
    n, m = len(u), len(u[0]) if u else 0
    return tuple(
        tuple(rp for rp in range(n) if rp != r and all(u[rp][i] >= u[r][i] for i in range(m)))
        for r in range(n)
    )


def delta_ps_sets(U, S):
    """Definition "Admissible Function for Pareto Score", literally: |dom^-| + |ndom^+|, capped at n - 1.

    ``S[r, i]`` is the running sum sum_{j <= t} delta^{u_i}(j, r) (>= 0); u^{+t} = U + S, u^{-t} = U - S.
    The sets exclude r itself, as the Pareto score does (the paper's PS is 0 on the front).
    """
    U = np.asarray(U, float)
    S = np.asarray(S, float)
    plus, minus = (U + S).tolist(), (U - S).tolist()  # the same floats as Python floats (cheaper to index)
    n, m = U.shape
    doms = weak_dominators(tuple(map(tuple, U.tolist())))  # depends on U only: shared by every S
    out = np.zeros(n)
    for r in range(n):
        dom = doms[r]
        in_dom = set(dom)
        ndom = [rp for rp in range(n) if rp != r and rp not in in_dom]
        dom_minus = [rp for rp in dom if any(minus[rp][i] <= plus[r][i] for i in range(m))]
        ndom_plus = [rp for rp in ndom if all(plus[rp][i] >= minus[r][i] for i in range(m))]
        out[r] = min(len(dom_minus) + len(ndom_plus), n - 1)
    return out


def objectives_from_tables(U, deltas, globals_, vectorized=False):
    """Objectives whose local function at t returns deltas[t] (the last row repeated beyond the table).

    ``vectorized=True`` marks them ``vectorized_t``: called with ``t`` of shape (B, 1) they return the rows
    ``deltas[t0], ..., deltas[t0 + B - 1]`` (shape (B, q)), so the dampening loop asks for blocks.
    """
    objs = []
    for i in range(U.shape[1]):
        table = np.asarray(deltas[:, :, i], float)  # (T, n)

        def local(t, idx=None, table=table):
            rows = table[np.minimum(np.asarray(t), table.shape[0] - 1)]  # (n,) or (B, 1, n)
            if rows.ndim == 3:
                rows = rows[:, 0, :]
            return rows if idx is None else rows[..., idx]

        objs.append(
            dpmo.Objective(
                U[:, i], globals_[i], dpmo.LocalSensitivity(local, vectorized_t=vectorized), name=f"u{i}"
            )
        )
    return objs


def running_sums(deltas, globals_, t):
    T = deltas.shape[0]
    rows = [np.minimum(deltas[min(j, T - 1)], globals_) for j in range(t + 1)]
    return np.sum(rows, axis=0)


# --------------------------------------------------------------------------------------------- Pareto score


def test_paper_example_pareto_score():
    # Example in the section "Pareto Score": a..e with (u1, u2).
    U = [[3, 5], [5, 3], [4, 2], [2, 4], [1, 1]]
    assert dpmo.pareto_score(U).tolist() == [0, 0, -1, -1, -4]


def test_weak_dominance_identical_candidates_dominate_each_other():
    U = [[1, 1], [1, 1], [0, 2], [2, 0]]
    assert dpmo.pareto_score(U).tolist() == [-1, -1, 0, 0]
    assert dpmo.pareto_score([5.0]).tolist() == [0]
    assert dpmo.pareto_score([[2.0], [2.0], [2.0]]).tolist() == [-2, -2, -2]


def test_one_dimensional_input_and_objectives_are_accepted():
    assert dpmo.pareto_score([3, 1, 3, 2]).tolist() == [-1, -3, -1, -2]
    objs = [dpmo.Objective([3, 5, 4, 2, 1], 1.0), dpmo.Objective([5, 3, 2, 4, 1], 1.0)]
    assert dpmo.pareto_score(objs).tolist() == [0, 0, -1, -1, -4]


grids = st.integers(1, 4).flatmap(
    lambda m: st.integers(1, 40).flatmap(lambda n: arrays(np.int64, (n, m), elements=st.integers(0, 3)))
)


@settings(max_examples=150, deadline=None)
@given(U=grids)
def test_pareto_score_equals_naive_with_many_ties(U):
    expected = naive_pareto_score(U)
    assert np.array_equal(dpmo.pareto_score(U), expected)
    # the sort-based paths (Fenwick sweep, divide and conquer) on the same input
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dominance_mod, "_BRUTE_PAIRS", 0)
        mp.setattr(dominance_mod, "_BRUTE_QUERIES_PER_LOG", 0)
        assert np.array_equal(dpmo.pareto_score(U), expected)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 4), n=st.integers(200, 700), levels=st.integers(2, 6), seed=st.integers(0, 2**31))
def test_pareto_score_large_inputs_all_paths(m, n, levels, seed):
    rng = np.random.default_rng(seed)
    U = rng.integers(0, levels, size=(n, m)).astype(float)
    U[: n // 3] = rng.normal(size=(n // 3, m))  # mix continuous values with heavy ties
    P = U[:, None, :]
    expected = -(np.all(U[None, :, :] >= P, axis=2).sum(axis=1) - 1)
    assert np.array_equal(dpmo.pareto_score(U), expected)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dominance_mod, "_BRUTE_PAIRS", 0)
        mp.setattr(dominance_mod, "_BRUTE_QUERIES_PER_LOG", 0)
        assert np.array_equal(dpmo.pareto_score(U), expected)


@settings(max_examples=100, deadline=None)
@given(
    m=st.integers(1, 4),
    n_p=st.integers(0, 60),
    n_q=st.integers(0, 60),
    strict=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_count_dominating_points_and_queries(m, n_p, n_q, strict, seed):
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, size=(n_p, m)) * 0.5
    Q = rng.integers(0, 4, size=(n_q, m)) * 0.5
    cmp = np.greater if strict else np.greater_equal
    expected = np.array([sum(all(cmp(p, q)) for p in P) for q in Q], dtype=np.int64)
    assert np.array_equal(dominance_mod.count_dominating(P, Q, strict=strict), expected)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dominance_mod, "_BRUTE_PAIRS", 0)
        mp.setattr(dominance_mod, "_BRUTE_QUERIES_PER_LOG", 0)
        assert np.array_equal(dominance_mod.count_dominating(P, Q, strict=strict), expected)


@settings(max_examples=150, deadline=None)
@given(
    n_p=st.integers(0, 70),
    n_q=st.integers(0, 70),
    scale=st.sampled_from([1.0, -0.5, 1e-300, 3e300]),
    seed=st.integers(0, 2**31),
)
def test_sweep_counts_equal_direct_comparison(n_p, n_q, scale, seed):
    # the radix sorts and the bitmap sweep of dpmo.pareto.sweep against a direct comparison: heavy ties,
    # negative values, -0.0 next to +0.0, tiny and huge magnitudes, adjacent floats; weak and strict
    rng = np.random.default_rng(seed)
    levels = rng.integers(1, 6)

    def draw(k):
        X = rng.integers(-2, levels, size=(k, 2)) * scale
        X[rng.random((k, 2)) < 0.15] = -0.0
        bump = rng.random((k, 2)) < 0.15
        X[bump] = np.nextafter(X[bump], np.inf)
        return X

    P, Q = draw(n_p), draw(n_q)
    axis = sweep_mod.sorted_axis
    for strict in (False, True):
        cmp = np.greater if strict else np.greater_equal
        want2 = np.array([np.sum(np.all(cmp(P, q), axis=1)) for q in Q], dtype=np.int64)
        want1 = np.array([np.sum(cmp(P[:, 0], q[0])) for q in Q], dtype=np.int64)
        got2 = np.full(n_q, 7, dtype=np.int64)
        sweep_mod.count_2d(axis(P[:, 0]), axis(P[:, 1]), axis(Q[:, 0]), axis(Q[:, 1]), strict, got2, -1)
        np.testing.assert_array_equal(got2, 7 - want2)
        got1 = np.zeros(n_q, dtype=np.int32)
        sweep_mod.count_1d(axis(P[:, 0]), axis(Q[:, 0]), strict, got1)
        np.testing.assert_array_equal(got1, want1)
    # the sorted axes: an order of the values, and the values themselves, bit for bit (u, u + s, u - s)
    s_ = np.abs(draw(n_p)[:, 0]) * 0.37
    for sign, v in ((0, P[:, 0]), (1, P[:, 0] + s_), (-1, P[:, 0] - s_)):
        ax = axis(P[:, 0], s_, sign)
        assert np.array_equal(ax.values.view(np.uint64), v[ax.order].view(np.uint64))
        assert np.all(ax.values[1:] >= ax.values[:-1])
        assert np.array_equal(np.sort(ax.order), np.arange(n_p))


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(1, 60),
    c=st.sampled_from([0.0, 1.0, 0.1, 1e-300, 2.5e300, 3.0]),
    scale=st.sampled_from([1.0, 0.3, 1e-300, 1e300]),
    seed=st.integers(0, 2**31),
)
@pytest.mark.slow
def test_count_2d_with_shifted_axes_and_scratch_equals_materialised_arrays(n, c, scale, seed):
    # an axis given as u sorted with a shift (+c or -c, as PrivPareto's state does for a constant running
    # sum) counts exactly as the arrays u + c and u - c sorted; and the counts are the same whether the
    # work arrays come from a SortScratch (int32 positions in its keys and order) or are fresh
    rng = np.random.default_rng(seed)
    U = rng.integers(-3, 4, size=(n, 2)) * scale
    U[rng.random((n, 2)) < 0.2] = -0.0
    bump = rng.random((n, 2)) < 0.2
    U[bump] = np.nextafter(U[bump], np.inf)
    s1 = np.abs(rng.normal(size=n)) * scale
    axis = sweep_mod.sorted_axis
    u0 = axis(U[:, 0])
    shifted = (u0._replace(shift=c), u0._replace(shift=-c))
    arrays = (axis(U[:, 0] + c), axis(U[:, 0] - c))  # u + c and u - c as numpy forms them, sorted
    ys = (axis(U[:, 1], s1, 1), axis(U[:, 1], s1, -1))
    x_of = (U[:, 0] + c, U[:, 0] - c)
    y_of = (U[:, 1] + s1, U[:, 1] - s1)
    for strict in (False, True):
        cmp = np.greater if strict else np.greater_equal
        for p_, q_ in ((0, 1), (1, 0)):
            direct = np.array(
                [np.sum(cmp(x_of[p_], x_of[q_][r]) & cmp(y_of[p_], y_of[q_][r])) for r in range(n)]
            )
            want = np.zeros(n, dtype=np.int64)
            sweep_mod.count_2d(arrays[p_], ys[p_], arrays[q_], ys[q_], strict, want)
            np.testing.assert_array_equal(want, direct)
            for scratch in (None, sweep_mod.sort_scratch(n)):
                got = np.zeros(n, dtype=np.int32)
                sweep_mod.count_2d(shifted[p_], ys[p_], shifted[q_], ys[q_], strict, got, scratch=scratch)
                np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_scores_from_counts_as_float64_are_the_int64_scores():
    # the Pareto scores of a round, asked as float64 (the dampening's input) or int64: the same integers,
    # with and without removed candidates
    rng = np.random.default_rng(3)
    n = 400
    U = np.ascontiguousarray(rng.integers(0, 6, size=(2, n)).astype(np.float64))
    ps_all = (1 - dominance_mod.count_columns(U)).astype(np.int32)
    idx = np.sort(rng.choice(n, 300, replace=False))
    for removed in (np.empty(0, np.intp), rng.choice(n, 7, replace=False).astype(np.intp)):
        a = sweep_mod.scores_from_counts(ps_all, U, removed, idx)
        b = sweep_mod.scores_from_counts(ps_all, U, removed, idx, np.float64)
        assert a.dtype == np.int64 and b.dtype == np.float64
        np.testing.assert_array_equal(a.astype(np.float64), b)
    with pytest.raises(ValueError, match="dtype"):
        sweep_mod.scores_from_counts(ps_all, U, removed, idx, np.float32)


@pytest.mark.slow
def test_sweep_large_input_against_dominance_reference():
    # large enough for many words of the bitmap and several radix passes (values over many exponents)
    rng = np.random.default_rng(3)
    n = 5000
    U = np.column_stack(
        [np.floor(rng.pareto(1.3, n) * 3), rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, n)]
    )
    U[::7, 1] = 0.25
    # the (n, n) comparisons per objective, and-ed: np.all over an axis of length 2 of an (n, n, 2) array is
    # the same booleans at several times the cost
    expected = ((U[None, :, 0] >= U[:, None, 0]) & (U[None, :, 1] >= U[:, None, 1])).sum(axis=1)
    ax = [sweep_mod.sorted_axis(U[:, i]) for i in range(2)]
    got = np.zeros(n, dtype=np.int64)
    sweep_mod.count_2d(ax[0], ax[1], ax[0], ax[1], False, got)
    np.testing.assert_array_equal(got, expected)


def test_sorted_axis_with_reused_scratch_and_sorted_order():
    # one scratch reused by several sorts gives what fresh work arrays give, bit for bit; sorted_order is a
    # stable argsort; a scratch of another size is refused
    rng = np.random.default_rng(11)
    n = 3000
    u = rng.normal(size=n) * 10.0 ** rng.integers(-4, 4, n)
    u[::5] = 0.5
    u[1::9] = -0.0
    s_ = np.abs(rng.normal(size=n))
    work = sweep_mod.sort_scratch(n)
    for sign in (0, 1, -1, 1):
        fresh, reused = sweep_mod.sorted_axis(u, s_, sign), sweep_mod.sorted_axis(u, s_, sign, scratch=work)
        np.testing.assert_array_equal(fresh.order, reused.order)
        assert np.array_equal(fresh.values.view(np.uint64), reused.values.view(np.uint64))
    order = sweep_mod.sorted_order(u, scratch=work)
    # numpy's stable sort puts -0.0 and 0.0 together in input order too
    np.testing.assert_array_equal(order, np.argsort(u, kind="stable"))
    with pytest.raises(ValueError, match="scratch holds"):
        sweep_mod.sorted_axis(u[:-1], scratch=work)


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_removal_corrections_equal_direct_comparison():
    rng = np.random.default_rng(5)
    for m in (1, 2, 3):
        n = 3000  # several blocks of the correction kernels
        U = rng.integers(0, 5, size=(m, n)).astype(float)
        S = rng.integers(0, 3, size=(m, n)) * 0.5
        removed = rng.choice(n, size=17, replace=False).astype(np.intp)
        idx = np.setdiff1d(np.arange(n), removed)[::3].astype(np.intp)
        P, Q = U + S, U - S
        a = np.all(P[:, removed, None] >= Q[:, None, idx], axis=0).sum(axis=0)
        b = np.all(Q[:, removed, None] > P[:, None, idx], axis=0).sum(axis=0)
        out = np.full(idx.size, 3, dtype=np.int64)
        sweep_mod.removed_delta_correction(U, S, removed, idx, out)
        np.testing.assert_array_equal(out, 3 + b - a)
        dom = np.all(U[:, removed, None] >= U[:, None, idx], axis=0).sum(axis=0)
        out = np.full(idx.size, -2, dtype=np.int64)
        sweep_mod.removed_dominating(U, removed, idx, out)
        np.testing.assert_array_equal(out, dom - 2)
        # the fused forms: kept full counts gathered, corrected (and capped) in one pass
        counts = rng.integers(-n, n, size=n).astype(np.int32)
        cap = 40
        got = sweep_mod.delta_from_counts(counts, U, S, removed, idx, cap)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, np.minimum(counts[idx] + b - a, cap))
        np.testing.assert_array_equal(
            sweep_mod.scores_from_counts(counts, U, removed, idx), counts[idx] + dom
        )


@settings(max_examples=80, deadline=None)
@given(
    m=st.integers(1, 2),
    n=st.integers(2, 40),
    kinds=st.lists(st.sampled_from(["global", "constant", "varying"]), min_size=2, max_size=2),
    t=st.integers(0, 3),
    removed=st.lists(st.integers(0, 39), max_size=4, unique=True),
    seed=st.integers(0, 2**31),
)
@pytest.mark.slow
def test_sweep_path_with_shared_orders_equals_set_definition(m, n, kinds, t, removed, seed):
    # the sweep path reuses the order of u_i for u_i +- S_i when S_i is the same for every candidate (an
    # objective without local function, or a constant local one like the degree's): delta^PS and the
    # Pareto score must equal the set definitions, also after removals (fresh computation on the rest)
    rng = np.random.default_rng(seed)
    U = rng.integers(0, 4, size=(n, m)).astype(float)
    objs = []
    for i in range(m):
        rate = rng.integers(1, 4, size=n) * 0.25
        if kinds[i] == "global":
            objs.append(dpmo.Objective(U[:, i], 0.5))
        elif kinds[i] == "constant":
            objs.append(
                dpmo.Objective(
                    U[:, i], 2.0, lambda t, idx=None: np.full(n if idx is None else len(idx), 0.75)
                )
            )
        else:
            objs.append(
                dpmo.Objective(
                    U[:, i], 2.0, lambda t, idx=None, r=rate: (r if idx is None else r[idx]) * (t + 1)
                )
            )
    removed = np.array([r for r in removed if r < n], dtype=np.intp)
    rest = np.setdiff1d(np.arange(n), removed)
    with pytest.MonkeyPatch.context() as mp:
        force_counting_path(mp, "sweep")
        state = state_mod.ParetoState(objs)
        ps_all = state.scores(np.arange(n))
        for r in removed:
            state.remove(int(r))
        ps = state.scores(rest)
        for s_ in range(t + 1):
            got = state.delta(s_, rest)
    np.testing.assert_array_equal(ps_all, naive_pareto_score(U))
    np.testing.assert_array_equal(ps, naive_pareto_score(U[rest]))
    S = np.column_stack([sum(o.sensitivity(j)[rest] for j in range(t + 1)) for o in objs])
    np.testing.assert_array_equal(got, delta_ps_sets(U[rest], S))


def test_strict_count_is_exact_for_adjacent_floats():
    x = 1.0
    up = np.nextafter(x, 2.0)
    P = np.array([[x, x], [up, up], [up, x]])
    Q = np.array([[x, x]])
    assert dominance_mod.count_dominating(P, Q, strict=True).tolist() == [1]
    assert dominance_mod.count_dominating(P, Q).tolist() == [3]


@pytest.mark.parametrize(
    "U, word",
    [
        ([[1.0, np.nan]], "finite"),
        ([[1.0, np.inf], [0.0, 0.0]], "finite"),
        (np.zeros((0, 2)), "at least one"),
        (np.zeros((2, 0)), "at least one"),
        (np.zeros((2, 2, 2)), "shape"),
        ([["a", "b"]], "real"),
        ([[1 + 1j, 0]], "real"),
    ],
)
def test_pareto_score_bad_input(U, word):
    with pytest.raises((ValueError, TypeError), match=word):
        dpmo.pareto_score(U)


# ---------------------------------------------------------------------------- sensitivity of the Pareto score


def test_paper_example_delta_ps():
    # Second example: a, b, c on the diagonal, deltas 0.5, 1, 1.5 in both objectives at t = 0.
    d = np.array([0.5, 1.0, 1.5])
    objs = [dpmo.Objective([1, 3, 5], 10.0, lambda t: d) for _ in range(2)]
    f = dpmo.pareto_sensitivity(objs)
    assert f(0, np.array([1]))[0] == 1.0  # delta^PS(x, 0, b) = |{c}| + |{}| = 1
    # a: u^{+0}(a) = 1.5 < u^{-0}(b) = 2 and < u^{-0}(c) = 3.5: b, c surely dominate a, so 0.
    # c: dom = {}, ndom = {a, b}; u^{+0}(b) = 4 >= u^{-0}(c) = 3.5 but u^{+0}(a) = 1.5 < 3.5, so 1.
    np.testing.assert_array_equal(f(0), [0.0, 1.0, 1.0])


def test_identity_on_hand_example_with_ties():
    # two identical candidates and one that can be overtaken
    U = np.array([[2.0, 2.0], [2.0, 2.0], [1.0, 3.0], [0.0, 0.0]])
    S = np.full((4, 2), 0.5)
    # r=0: dom = {1} (identical), dom^- = {1}; ndom = {2, 3}: 2 has u^+ = (1.5, 3.5) vs
    # u^-(0) = (1.5, 1.5): yes; 3 has u^+ = (0.5, 0.5): no.  -> 2.  r=3: dom = {0, 1, 2};
    # u^-(0) = (1.5, 1.5) > u^+(3) = (0.5, 0.5): 0 and 1 surely dominate; u^-(2) = (0.5, 2.5):
    # 0.5 <= 0.5 -> 2 may stop dominating -> 1.
    assert delta_ps_sets(U, S).tolist() == [2.0, 2.0, 2.0, 1.0]
    objs = [dpmo.Objective(U[:, i], 1.0, lambda t: np.full(4, 0.5)) for i in range(2)]
    assert dpmo.pareto_sensitivity(objs)(0).tolist() == [2.0, 2.0, 2.0, 1.0]


@st.composite
def delta_problems(draw):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 25))
    T = draw(st.integers(1, 4))
    U = draw(arrays(np.int64, (n, m), elements=st.integers(0, 4))).astype(float)
    # non-decreasing in t, as every admissible function (dpmo refuses the others)
    deltas = np.cumsum(draw(arrays(np.int64, (T, n, m), elements=st.integers(0, 3))), axis=0) * 0.5
    globals_ = draw(arrays(np.int64, (m,), elements=st.integers(1, 3))).astype(float)
    t = draw(st.integers(0, 5))
    return U, deltas, globals_, t


@settings(max_examples=150, deadline=None)
@given(problem=delta_problems(), path=st.sampled_from(["few", "sort", "sweep"]))
@pytest.mark.slow
def test_delta_ps_identity_equals_set_definition(problem, path):
    U, deltas, globals_, t = problem
    n = U.shape[0]
    expected = delta_ps_sets(U, running_sums(deltas, globals_, t))
    with pytest.MonkeyPatch.context() as mp:
        force_counting_path(mp, path)
        f = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_))
        # in order (cached running sums), on the full set and on a subset
        for s in range(t):
            f(s)
        np.testing.assert_array_equal(f(t), expected)
        idx = np.arange(n)[::2]
        np.testing.assert_array_equal(f(t, idx), expected[idx])
        # out of order (starts the sums again)
        if t > 0:
            f(t - 1)
            np.testing.assert_array_equal(f(t), expected)
        fresh = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_))
        np.testing.assert_array_equal(fresh(t), expected)


@settings(max_examples=120, deadline=None)
@given(problem=delta_problems(), path=st.sampled_from(["brute", "count", "default"]), chunk=st.booleans())
@pytest.mark.slow
def test_delta_ps_blocks_of_distances_equal_set_definition(problem, path, chunk):
    # t of shape (B, 1) gives (B, q): every row equals the set definition at its distance, on both block
    # paths (vectorised brute force; single-t counting per row), with tiny chunks (memory bound) or not.
    U, deltas, globals_, t = problem
    n = U.shape[0]
    T = t + 3
    expected = np.array([delta_ps_sets(U, running_sums(deltas, globals_, s)) for s in range(T)])
    with pytest.MonkeyPatch.context() as mp:
        if path == "brute":
            mp.setattr(state_mod, "_BLOCK_BRUTE_CELLS", 1 << 30)
            mp.setattr(state_mod, "_BLOCK_BRUTE_N", 1 << 30)
        elif path == "count":
            mp.setattr(state_mod, "_BLOCK_BRUTE_CELLS", 0)
        if chunk:
            mp.setattr(state_mod, "_BLOCK_CELLS", 1)  # one distance per chunk
        for vectorized in (True, False):  # the objectives' own functions evaluated per block or per t
            f = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_, vectorized))
            assert f.vectorized_t == vectorized
            np.testing.assert_array_equal(f(np.arange(T)[:, None]), expected)
            idx = np.arange(n)[::2]
            g = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_, vectorized))
            np.testing.assert_array_equal(g(np.arange(2)[:, None], idx), expected[:2][:, idx])
            np.testing.assert_array_equal(g(np.arange(2, T)[:, None], idx), expected[2:][:, idx])
            np.testing.assert_array_equal(g(t, idx), expected[t][idx])  # a single t after a block
            np.testing.assert_array_equal(g(np.arange(t, T)[:, None]), expected[t:])  # out of order
            h = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_, vectorized))
            np.testing.assert_array_equal(h(np.arange(t + 1, T)[:, None]), expected[t + 1 :])  # skips ahead


def test_delta_ps_blocks_are_bit_identical_to_single_steps():
    # running sums of many small non-representable deltas: any change in the order of the additions would
    # move some u +- S across a tie; the block paths must give exactly the single-t floats and counts.
    rng = np.random.default_rng(11)
    n, m, T = 30, 2, 400
    U = rng.integers(0, 40, size=(n, m)) * 0.1
    steps = rng.choice([0.1, 0.2, 0.3, 0.7], size=(T, n, m)) * 1e-2
    tables = np.cumsum(steps, axis=0)  # non-decreasing in t
    objs_v = objectives_from_tables(U, tables, np.full(m, 10.0), vectorized=True)
    objs_s = objectives_from_tables(U, tables, np.full(m, 10.0), vectorized=False)
    single = dpmo.pareto_sensitivity(objs_s)
    expected = np.array([single(t) for t in range(T)])
    for t in (0, 57, 399):  # spot checks of the single-t values against the set definition
        s_seq = np.zeros((n, m))
        for j in range(t + 1):  # the paper's sum over j = 0 .. t, in that order
            s_seq = s_seq + np.minimum(tables[j], 10.0)
        np.testing.assert_array_equal(expected[t], delta_ps_sets(U, s_seq))
    for cells in (1 << 30, 0):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(state_mod, "_BLOCK_BRUTE_CELLS", cells)
            f = dpmo.pareto_sensitivity(objs_v)
            got = np.vstack([f(np.arange(a, b)[:, None]) for a, b in ((0, 1), (1, 3), (3, 131), (131, T))])
            np.testing.assert_array_equal(got, expected)


def test_vectorized_flag_follows_the_objectives():
    vec = dpmo.LocalSensitivity(lambda t, idx=None: np.ones(np.broadcast_shapes(np.shape(t), (3,))),
                                vectorized_t=True)  # fmt: skip
    plain = dpmo.LocalSensitivity(lambda t, idx=None: np.ones(3))
    a = dpmo.Objective([1.0, 2.0, 3.0], 1.0)  # global only
    b = dpmo.Objective([3.0, 2.0, 1.0], 1.0, vec)
    c = dpmo.Objective([3.0, 1.0, 2.0], 1.0, plain)
    d = dpmo.Objective([3.0, 1.0, 2.0], 1.0, lambda t: np.ones(3))
    assert dpmo.pareto_sensitivity([a]).vectorized_t
    assert dpmo.pareto_sensitivity([a, b]).vectorized_t
    assert not dpmo.pareto_sensitivity([a, c]).vectorized_t
    assert not dpmo.pareto_sensitivity([b, d]).vectorized_t
    # a non-vectorised function still accepts blocks (evaluated one distance at a time)
    f = dpmo.pareto_sensitivity([b, c])
    np.testing.assert_array_equal(f(np.arange(3)[:, None]), np.array([f(t) for t in range(3)]))


def test_block_distances_bad_input():
    f = dpmo.pareto_sensitivity([dpmo.Objective([1.0, 2.0], 1.0)])
    with pytest.raises(TypeError, match="integer array"):
        f(np.array([[0.0], [1.0]]))
    with pytest.raises(TypeError, match="integer array"):
        f(np.array([[True]]))
    with pytest.raises(ValueError, match=r"shape \(B, 1\)"):
        f(np.arange(3))
    with pytest.raises(ValueError, match=r"shape \(B, 1\)"):
        f(np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match=r"shape \(B, 1\)"):
        f(np.zeros((0, 1), dtype=int))
    with pytest.raises(ValueError, match="consecutive"):
        f(np.array([[0], [2]]))
    with pytest.raises(ValueError, match="non-negative"):
        f(np.array([[-1], [0]]))
    assert f(np.array(1)).shape == (2,)  # a 0-d array is a single distance
    bad = dpmo.LocalSensitivity(lambda t, idx=None: np.ones((1, 2)), vectorized_t=True)
    with pytest.raises(ValueError, match="shape"):
        dpmo.pareto_sensitivity([dpmo.Objective([1.0, 2.0], 1.0, bad)])(np.arange(3)[:, None])
    neg = dpmo.LocalSensitivity(lambda t, idx=None: -np.ones(np.broadcast_shapes(np.shape(t), (2,))),
                                vectorized_t=True)  # fmt: skip
    with pytest.raises(ValueError, match="negative"):
        dpmo.pareto_sensitivity([dpmo.Objective([1.0, 2.0], 1.0, neg)])(np.arange(3)[:, None])


@settings(max_examples=60, deadline=None)
@given(problem=delta_problems())
def test_delta_ps_bounds(problem):
    U, deltas, globals_, t = problem
    n = U.shape[0]
    d = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_))(t)
    assert np.all(d >= 0) and np.all(d <= max(n - 1, 0))
    assert d.dtype == np.float64


def test_delta_ps_uses_global_sensitivity_and_caps_local():
    U = np.array([[0.0], [1.0], [5.0]])
    # no local function: the global sensitivity 2 is used -> u^{+-0} = u +- 2
    f = dpmo.pareto_sensitivity([dpmo.Objective(U[:, 0], 2.0)])
    np.testing.assert_array_equal(f(0), delta_ps_sets(U, np.full((3, 1), 2.0)))
    # a local function above the global sensitivity is capped at it
    g = dpmo.pareto_sensitivity([dpmo.Objective(U[:, 0], 2.0, lambda t: np.full(3, 100.0))])
    np.testing.assert_array_equal(g(0), f(0))


def star(n_nodes):
    """Star graph: the centre has degree n-1, the leaves degree 1; ego density 0 everywhere (no triangles).

    Degree: Delta = 1, delta = 1. Ego density: Delta = 1,
    delta(t, v) = 1 if deg(v) - t <= 2 else 2/(deg(v) - t) (ERRATA point 2, the tight admissible function).
    """
    deg = np.array([n_nodes - 1] + [1] * (n_nodes - 1), float)
    ego = np.zeros(n_nodes)

    def ego_delta(t, idx=None):
        d = deg if idx is None else deg[idx]
        return np.where(d - t <= 2, 1.0, 2.0 / np.maximum(d - t, 1.0))

    return [
        dpmo.Objective(deg, 1.0, name="degree"),
        dpmo.Objective(ego, 1.0, dpmo.LocalSensitivity(ego_delta)),
    ]


def test_zero_delta_for_centre_of_star_two_levels():
    # ERRATA point 3: delta^PS = [0, n-1, ...] and the centre keeps 0 for two levels (n >= 7).
    n = 8
    objs = star(n)
    f = dpmo.pareto_sensitivity(objs)
    d0, d1, d2 = f(0), f(1), f(2)
    assert d0.tolist() == [0.0] + [n - 1.0] * (n - 1)
    assert d1[0] == 0.0
    assert d2[0] == n - 1.0  # t = 2: a leaf's degree 1 + 3 reaches the centre's 7 - 3
    U = np.column_stack([o.values for o in objs])
    for t, d in enumerate((d0, d1, d2)):
        S = np.column_stack([np.full(n, t + 1.0), sum(objs[1].sensitivity(j) for j in range(t + 1))])
        np.testing.assert_array_equal(d, delta_ps_sets(U, S))
    # the dampening copes (public floor): the centre is on the front and gets D = 0, the leaves D = -1
    D, sens = pareto_mod.pareto_selection_scores(objs, "local")
    assert sens == 1.0 and np.all(np.isfinite(D))
    assert D[0] == 0.0
    np.testing.assert_allclose(D[1:], -1.0)  # PS = -(n - 1) = -delta^PS(0): one full segment


def test_pareto_sensitivity_bad_input():
    a = dpmo.Objective([1.0, 2.0], 1.0)
    b = dpmo.Objective([1.0, 2.0, 3.0], 1.0)
    with pytest.raises(ValueError, match="same number of candidates"):
        dpmo.pareto_sensitivity([a, b])
    with pytest.raises(TypeError, match="sequence"):
        dpmo.pareto_sensitivity(a)
    with pytest.raises(TypeError, match=r"objectives\[1\]"):
        dpmo.pareto_sensitivity([a, np.array([1.0, 2.0])])
    with pytest.raises(ValueError, match="at least one"):
        dpmo.pareto_sensitivity([])
    f = dpmo.pareto_sensitivity([a])
    with pytest.raises(ValueError, match="non-negative"):
        f(-1)
    with pytest.raises(TypeError, match="int"):
        f(0.5)
    with pytest.raises(ValueError, match="index"):
        f(0, np.array([5]))
    bad = dpmo.Objective([1.0, 2.0], 1.0, lambda t: np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="finite"):
        dpmo.pareto_sensitivity([bad])(0)


# -------------------------------------------------------------------------------------------- priv_pareto


class Recorder:
    """Stands in for dpmo.select inside dpmo.pareto: records the arguments, picks the largest score."""

    def __init__(self):
        self.calls = []

    def __call__(self, scores, epsilon, sensitivity, *, mechanism="exponential", k=1, rng=None, exact=False):
        self.calls.append((np.array(scores, float), epsilon, sensitivity, mechanism, k))
        return np.array([int(np.argmax(scores))], dtype=np.intp)


def dampen_reference_scores(U, objs):
    """D of the local version, from the set definition of delta^PS (through dpmo.dampen, the core)."""
    n = U.shape[0]
    globals_ = [o.global_sensitivity for o in objs]

    def delta(t, idx=None):
        S = np.column_stack([sum(o.sensitivity(j) for j in range(t + 1)) for o in objs])
        S = np.minimum(S, globals_)
        out = delta_ps_sets(U, S)
        return out if idx is None else out[idx]

    return dpmo.dampen(naive_pareto_score(U).astype(float), delta, global_sensitivity=n - 1.0)


def example_objectives(seed=0, n=12):
    rng = np.random.default_rng(seed)
    U = rng.integers(0, 6, size=(n, 2)).astype(float)
    d1 = rng.uniform(0.1, 1.0, n)
    objs = [
        dpmo.Objective(
            U[:, 0], 1.0, dpmo.LocalSensitivity(lambda t, idx=None: d1 if idx is None else d1[idx])
        ),
        dpmo.Objective(U[:, 1], 2.0),
    ]
    return U, objs


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip", "laplace", "gumbel"])
def test_priv_pareto_rounds_recompute_scores_on_remaining(monkeypatch, mechanism):
    U, objs = example_objectives()
    rec = Recorder()
    monkeypatch.setattr(selection_mod, "select", rec)
    out = dpmo.priv_pareto(objs, 3.0, k=3, sensitivity="global", mechanism=mechanism, rng=0, exact=False)
    assert len(rec.calls) == 3 and len(set(out.tolist())) == 3
    remaining = np.arange(U.shape[0])
    for (scores, eps, sens, mech, k), chosen in zip(rec.calls, out, strict=True):
        np.testing.assert_array_equal(scores, naive_pareto_score(U[remaining]))
        assert eps == pytest.approx(1.0) and sens == remaining.size - 1 and mech == mechanism and k == 1
        remaining = remaining[remaining != chosen]


@pytest.mark.parametrize("rebuild_after", [2, 32, "small"])
def test_round_cache_changes_nothing_but_the_work(monkeypatch, rebuild_after):
    """The pipeline with a SelectionCache shared by many calls hands select the very floats (bit for bit)
    that priv_pareto computes without a cache, round after round, also across state rebuilds ("small":
    the compiled path of few candidates, dpmo.pareto.small, which keeps no counting state)."""
    small = rebuild_after == "small"
    if not small:
        monkeypatch.setattr(small_mod, "SMALL_N", 0)  # the general path and its counting state
        monkeypatch.setattr(rounds_mod, "_REBUILD_AFTER", rebuild_after)
    real_select = selection_mod.select
    seen = []

    def recording_select(scores, *args, **kwargs):
        seen.append(np.array(scores, dtype=np.float64))
        return real_select(scores, *args, **kwargs)

    monkeypatch.setattr(selection_mod, "select", recording_select)
    rng = np.random.default_rng(8)
    n = 30
    U = rng.integers(0, 5, size=(n, 2)).astype(float)
    d1 = rng.uniform(0.05, 0.6, n)
    objs = [
        dpmo.Objective(
            U[:, 0],
            1.0,
            dpmo.LocalSensitivity(
                lambda t, idx=None: np.broadcast_to(
                    d1 if idx is None else d1[idx],
                    np.broadcast_shapes(np.shape(t), (n if idx is None else len(idx),)),
                ).copy(),
                vectorized_t=True,
            ),
        ),
        dpmo.Objective(U[:, 1], 2.0),
    ]
    assert small_mod.small_path_applies(objs, "local") == small  # n = 30, vectorised: small unless patched
    answered = []

    class CountingCache(pareto_mod.RoundCache):
        def get(self, key):
            hit = super().get(key)
            answered.append(hit is not None)
            return hit

    for sensitivity in ("local", "global"):
        answered.clear()
        cache = SelectionCache(objs)
        store = cache.slot(("pareto-rounds",), CountingCache)
        forks_before = 0
        for seed in range(12):
            eps = (0.5, 50.0)[seed % 2]  # large epsilon repeats the same picks: the cache answers
            seen.clear()
            ref = dpmo.priv_pareto(objs, eps, k=5, sensitivity=sensitivity, rng=seed)
            fresh = list(seen)
            seen.clear()
            ours = select_multiobjective(
                objs, eps, approach="pareto", sensitivity=sensitivity, k=5, rng=seed, cache=cache
            )
            assert ours.tolist() == ref.tolist()
            assert len(seen) == len(fresh) == 5
            for a, b in zip(seen, fresh, strict=True):
                np.testing.assert_array_equal(a, b)
            forks_before += store._template is not None
        # every call after the first gets its first round from the cache, and the counting state of the
        # first call is kept from then on
        assert sum(answered) >= 11 and answered[0] is False
        if small:
            assert store._template is None
        else:
            assert store._template is not None and forks_before == 12
        with pytest.raises(ValueError, match="other objectives"):  # bound to its own objectives
            select_multiobjective(objs[::-1], 1.0, cache=cache)


def test_round_cache_is_bounded():
    cache = pareto_mod.RoundCache(max_bytes=3 * 8 * 10)
    for i in range(5):
        cache.put(("local", (i,)), np.full(10, float(i)), 1.0)
    assert len(cache) == 3 and cache.get(("local", (0,))) is None
    scores, sens = cache.get(("local", (4,)))
    assert sens == 1.0 and not scores.flags.writeable and scores[0] == 4.0
    cache.put(("local", (9,)), np.zeros(100), 1.0)  # larger than the whole budget: not kept
    assert cache.get(("local", (9,))) is None and len(cache) == 3


def test_priv_pareto_local_passes_dampened_scores(monkeypatch):
    U, objs = example_objectives(seed=3)
    rec = Recorder()
    monkeypatch.setattr(selection_mod, "select", rec)
    out = dpmo.priv_pareto(objs, 2.0, k=2, sensitivity="local", rng=0)
    scores, eps, sens, _, _ = rec.calls[0]
    np.testing.assert_allclose(scores, dampen_reference_scores(U, objs), rtol=1e-12, atol=1e-12)
    assert eps == pytest.approx(1.0) and sens == 1.0
    rest = np.delete(np.arange(U.shape[0]), out[0])
    sub = [o.take(rest) for o in objs]
    np.testing.assert_allclose(rec.calls[1][0], dampen_reference_scores(U[rest], sub), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "path",
    ["few", "sort", "sweep", "default", "rebuild"]
    + ["block-brute", "block-count", "block-rebuild", "block-small"],
)
@pytest.mark.parametrize("m", [1, 2, 3])
def test_later_rounds_equal_fresh_computation_on_remaining(monkeypatch, path, m):
    # priv_pareto reuses counts over all candidates and corrects them for the chosen ones: each round's
    # scores must be exactly those of a fresh computation on the remaining candidates (Objective.take).
    # "block-*": vectorised objectives, so the dampening loop asks delta^PS for blocks of distances;
    # "block-small": the compiled path of few candidates (dpmo.pareto.small), the others the general one.
    rng = np.random.default_rng(m)
    n = 80
    U = rng.integers(0, 4, size=(n, m)).astype(float)
    tables = rng.integers(0, 3, size=(3, n, m)) * 0.25
    tables = np.maximum.accumulate(tables, axis=0)  # non-decreasing in t, as dampen requires
    objs = objectives_from_tables(U, tables, np.full(m, 0.75), vectorized=path.startswith("block"))
    if path in ("rebuild", "block-rebuild"):  # a fresh state on the remaining candidates every 2 rounds
        monkeypatch.setattr(rounds_mod, "_REBUILD_AFTER", 2)
    if path != "block-small":
        monkeypatch.setattr(small_mod, "SMALL_N", 0)
    if path in ("few", "sort", "sweep"):
        force_counting_path(monkeypatch, path)
    elif path == "block-brute":
        monkeypatch.setattr(state_mod, "_BLOCK_BRUTE_CELLS", 1 << 30)
        monkeypatch.setattr(state_mod, "_BLOCK_BRUTE_N", 1 << 30)
    elif path == "block-count":
        monkeypatch.setattr(state_mod, "_BLOCK_BRUTE_CELLS", 0)
    for sensitivity in ("local", "global"):
        rec = Recorder()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(selection_mod, "select", rec)
            out = dpmo.priv_pareto(objs, 1.0, k=6, sensitivity=sensitivity)
        remaining = np.arange(n)
        for (scores, _, sens, _, _), chosen in zip(rec.calls, out, strict=True):
            fresh, fresh_sens = pareto_mod.pareto_selection_scores(
                [o.take(remaining) for o in objs], sensitivity
            )
            np.testing.assert_array_equal(scores, fresh)
            assert sens == fresh_sens
            remaining = remaining[remaining != chosen]


@pytest.mark.parametrize("limit", [0, 10**9])
def test_dampening_blocks_are_chosen_by_size_only(monkeypatch, limit):
    # priv_pareto hands the dampening loop the block form of delta^PS when few candidates remain
    # (_DAMPEN_BLOCKS_MAX_N); either way the scores are those of the single-distance loop.
    U, objs = example_objectives(seed=4, n=40)
    vec = objectives_from_tables(
        U, np.stack([np.full((40, 2), 0.05), np.full((40, 2), 0.1)]), [1.0, 2.0], True
    )
    flags = []
    real = rounds_mod.dampen_over

    def spy(values, local, **kw):
        flags.append(local.vectorized_t)
        return real(values, local, **kw)

    monkeypatch.setattr(rounds_mod, "_DAMPEN_BLOCKS_MAX_N", limit)
    monkeypatch.setattr(rounds_mod, "dampen_over", spy)
    D, _ = pareto_mod.pareto_selection_scores(vec, "local")
    assert flags == [limit > 0]
    ref = dpmo.pareto_sensitivity(vec)
    single = dpmo.LocalSensitivity(lambda t, idx=None: ref(t, idx))  # one distance per call
    want = dpmo.dampen(dpmo.pareto_score(vec).astype(float), single, global_sensitivity=39.0)
    np.testing.assert_allclose(D, want, rtol=1e-12, atol=1e-12)
    assert np.any(np.abs(D) > 2)  # the loop went through several segments


def test_priv_pareto_output_contract():
    U, objs = example_objectives(seed=5, n=30)
    for sensitivity in ("local", "global"):
        out = dpmo.priv_pareto(objs, 1.0, k=30, sensitivity=sensitivity, rng=1)
        assert out.dtype == np.intp and sorted(out.tolist()) == list(range(30))
        a = dpmo.priv_pareto(objs, 1.0, k=4, sensitivity=sensitivity, rng=7)
        b = dpmo.priv_pareto(objs, 1.0, k=4, sensitivity=sensitivity, rng=7)
        assert np.array_equal(a, b) and a.shape == (4,)


def test_priv_pareto_huge_epsilon_picks_the_front():
    rng = np.random.default_rng(2)
    U = rng.normal(size=(40, 3))
    objs = [dpmo.Objective(U[:, i], 0.5, lambda t: np.full(40, 0.01 * (t + 1))) for i in range(3)]
    front = set(np.flatnonzero(naive_pareto_score(U) == 0).tolist())
    assert 0 < len(front) < 40
    for sensitivity in ("local", "global"):
        for seed in range(5):
            assert int(dpmo.priv_pareto(objs, 1e7, sensitivity=sensitivity, rng=seed)[0]) in front


def test_priv_pareto_single_candidate_does_not_touch_data():
    def boom(t, idx=None):
        raise AssertionError("the local function must not be called")

    obj = dpmo.Objective([3.0], 1.0, dpmo.LocalSensitivity(boom))
    assert dpmo.priv_pareto([obj, obj], 1.0).tolist() == [0]
    assert dpmo.priv_pareto([obj], 1.0, sensitivity="global").tolist() == [0]


def test_priv_pareto_bad_arguments():
    _, objs = example_objectives()
    with pytest.raises(ValueError, match="sensitivity"):
        dpmo.priv_pareto(objs, 1.0, sensitivity="smooth")
    with pytest.raises(ValueError, match="mechanism"):
        dpmo.priv_pareto(objs, 1.0, mechanism="best")
    with pytest.raises(ValueError, match="epsilon"):
        dpmo.priv_pareto(objs, 0.0)
    with pytest.raises(ValueError, match="k"):
        dpmo.priv_pareto(objs, 1.0, k=13)
    with pytest.raises(TypeError, match="rng"):
        dpmo.priv_pareto(objs, 1.0, rng="seed")
    with pytest.raises(ValueError, match="same number of candidates"):
        dpmo.priv_pareto([objs[0], dpmo.Objective([1.0], 1.0)], 1.0)
    with pytest.raises(ValueError, match="finite"):
        dpmo.priv_pareto([dpmo.Objective([1.0, np.nan], 1.0)], 1.0)


# ------------------------------------------------------------------------------------ real data, at scale


def _every_column(op, A, B):
    """``out[j, i]``: ``op(A[i, c], B[j, c])`` holds for every column c (a (len(B), len(A)) mask)."""
    out = np.ones((B.shape[0], A.shape[0]), dtype=bool)
    for c in range(A.shape[1]):
        out &= op(A[None, :, c], B[:, c, None])
    return out


def test_github_graph_sampled_against_set_definition(shared_data):
    """GitHub graph (37,700 nodes), degree and ego density as built by dpmo.graphs: for 150 random nodes,
    PS and delta^PS(t) for t = 0, 1 equal the paper's set definitions evaluated directly against all nodes
    (with the objectives' own deltas); real data exercise the sort-based paths with real ties."""
    graphs = pytest.importorskip("dpmo.graphs")
    objs = graphs.objectives(graphs.load_graph(shared_data / "musae_git_edges.csv", nodes=37_700))
    U = np.column_stack([o.values for o in objs])
    n = U.shape[0]
    ps = dpmo.pareto_score(U)
    f = dpmo.pareto_sensitivity(objs)
    sample = np.random.default_rng(0).choice(n, size=150, replace=False)
    everyone = np.arange(n)
    S = np.zeros_like(U)
    for t in (0, 1):
        d_all = f(t)
        S = S + np.column_stack([o.sensitivity(t) for o in objs])
        P, Q = U + S, U - S
        # the sampled nodes a block at a time: row j of each (rows, n) mask is the set for node block[j],
        # built one objective (column) at a time
        for block in np.array_split(sample, 6):
            other = everyone[None, :] != block[:, None]
            dom = other & _every_column(np.greater_equal, U, U[block])
            if t == 0:
                np.testing.assert_array_equal(ps[block], -np.count_nonzero(dom, axis=1))
            dom_minus = dom & ~_every_column(np.greater, Q, P[block])  # some objective with Q <= P[r]
            ndom_plus = other & ~dom & _every_column(np.greater_equal, P, Q[block])
            expected = np.minimum(
                np.count_nonzero(dom_minus, axis=1) + np.count_nonzero(ndom_plus, axis=1), n - 1
            )
            np.testing.assert_array_equal(d_all[block], expected)


def test_state_cursors_give_the_floats_of_a_fresh_state_in_any_order():
    # The counting state keeps two cursors of running sums (the dampening loop's steps and its far probes);
    # whatever order distances are asked in, every answer equals that of a fresh state stepped from 0.
    rng = np.random.default_rng(7)
    U = rng.integers(0, 6, size=(12, 2)).astype(float)
    rates = rng.uniform(0.05, 0.4, size=(12, 2))

    def objs():
        return [
            dpmo.Objective(U[:, i], 5.0, lambda t, i=i: np.minimum(rates[:, i] * (np.asarray(t) + 1), 5.0))
            for i in range(2)
        ]

    idx = np.arange(12)
    state = state_mod.ParetoState(objs())
    state.remove(3)
    for t in (0, 1, 16, 2, 17, 3, 4, 19, 5, 8, 40, 6, 41, 0, 2):
        fresh = state_mod.ParetoState(objs())
        fresh.remove(3)
        for s in range(t + 1):
            want = fresh.delta(s, idx)
        got = state.delta(t, idx)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(state.S, fresh.S)


def test_a_long_jump_of_the_running_sums_gives_the_sequential_floats():
    """ParetoState accumulates a jump in chunks with np.cumsum (sequential along the distances): the
    running sums and delta^PS are bitwise those of stepping through every distance one at a time."""
    from dpmo.pareto.state import ParetoState

    rng = np.random.default_rng(11)
    n = 40
    base = [rng.random(n) * 0.3 + 0.01 for _ in range(2)]

    def local(b):
        # non-decreasing in t, irrational-looking increments so that any other order of addition rounds
        # differently
        return dpmo.LocalSensitivity(
            lambda t, idx=None: (b if idx is None else b[idx]) * (1.0 + np.sqrt(np.asarray(t, float)) / 7.0),
            vectorized_t=True,
        )

    objs = [dpmo.Objective(rng.integers(0, 60, n).astype(float), 5.0, local(b)) for b in base]
    # and one without local function: its constant 0.7 is summed as a float, one addition per distance
    objs.append(dpmo.Objective(rng.integers(0, 60, n).astype(float), 0.7))
    idx = np.arange(n, dtype=np.intp)
    jump, steps = ParetoState(objs), ParetoState(objs)
    far = jump.delta(300, idx)
    for t in range(301):
        near = steps.delta(t, idx)
    assert np.array_equal(jump.S, steps.S)
    np.testing.assert_array_equal(far, near)
    rows = [np.minimum(base[0] * (1.0 + np.sqrt(float(t)) / 7.0), 5.0) for t in range(301)]
    np.testing.assert_allclose(jump.S[0], sum(rows), rtol=1e-12)
    # the data are order-sensitive: summing the same rows backwards gives other floats
    assert not np.array_equal(sum(rows[::-1]), steps.S[0])
    c = 0.0
    for _ in range(301):
        c += 0.7
    assert np.all(jump.S[2] == c) and c != 0.7 * 301  # sequential additions, not a product


@pytest.mark.parametrize("drop_at", [1, 2])
def test_state_refuses_a_decrease_of_a_local_function_that_reuses_its_array(drop_at):
    # the running sums keep the deltas of the last distance for the next distance's check: the row of
    # the sums after t = 0, a copy after (a local function may hand back the same array every call); a
    # decrease at t = 1 or t = 2 is refused even when the function overwrites its one array
    rng = np.random.default_rng(drop_at)
    n = 40
    buf = np.empty(n)
    level = rng.uniform(0.2, 0.5, n)

    def reusing(t):
        buf[:] = level * (0.5 if t >= drop_at else 1.0 + 0.01 * t)
        return buf

    def fresh(t):
        return level * (1.0 + 0.01 * t)

    values = rng.integers(0, 5, size=(2, n)).astype(np.float64)
    idx = np.arange(n)
    bad = state_mod.ParetoState([dpmo.Objective(values[0], 1.0, reusing), dpmo.Objective(values[1], 1.0)])
    for t in range(drop_at):
        bad.delta(t, idx)
    with pytest.raises(ValueError, match="decreases in t"):
        bad.delta(drop_at, idx)
    # without the drop, a reusing function gives the deltas of a fresh one at every distance
    same = state_mod.ParetoState(
        [dpmo.Objective(values[0], 1.0, fresh), dpmo.Objective(values[1], 1.0, fresh)]
    )
    level_buf = np.empty(n)

    def reusing_ok(t):
        level_buf[:] = level * (1.0 + 0.01 * t)
        return level_buf

    other = state_mod.ParetoState(
        [dpmo.Objective(values[0], 1.0, reusing_ok), dpmo.Objective(values[1], 1.0, reusing_ok)]
    )
    for t in range(4):
        np.testing.assert_array_equal(same.delta(t, idx), other.delta(t, idx))


def test_capped_view_gives_the_capped_sensitivity():
    # Objective.capped_view (read-once) equals Objective.sensitivity, capped or not, with or without a
    # local function; it copies only to cap
    base = np.array([0.5, 2.0, 0.0, 1.0])
    o = dpmo.Objective(np.arange(4.0), 1.0, lambda t: base * (t + 1))
    for t in range(3):
        np.testing.assert_array_equal(o.capped_view(t), o.sensitivity(t))
    np.testing.assert_array_equal(dpmo.Objective(np.arange(4.0), 1.5).capped_view(2), np.full(4, 1.5))
    below = np.array([0.5, 0.25, 0.0, 1.0])
    assert dpmo.Objective(np.arange(4.0), 1.0, lambda t: below).capped_view(0) is below


@settings(max_examples=80, deadline=None)
@given(
    problem=delta_problems(),
    order=st.lists(st.integers(0, 12), min_size=1, max_size=6),
    check_rows=st.integers(1, 3),
    path=st.sampled_from(["few", "sort", "sweep"]),
)
def test_saturated_jumps_give_the_set_definition(problem, order, check_rows, path):
    """A long jump stops walking once every running sum reaches its objective's span (then delta^PS =
    n - 1 at every later distance); checked here after every ``check_rows`` distances instead of 2^16, the
    answers at distances asked in any order are still the set definition's at those distances."""
    U, deltas, globals_, _ = problem
    with pytest.MonkeyPatch.context() as mp:
        force_counting_path(mp, path)
        mp.setattr(state_mod, "_SATURATION_CHECK_ROWS", check_rows)
        f = dpmo.pareto_sensitivity(objectives_from_tables(U, deltas, globals_))
        state = state_mod.ParetoState(objectives_from_tables(U, deltas, globals_))
        live = np.arange(U.shape[0])[1:]  # and among the remaining candidates, as in a later round
        state.remove(0)
        for t in order:
            S = running_sums(deltas, globals_, t)
            np.testing.assert_array_equal(f(t), delta_ps_sets(U, S))
            if live.size:
                np.testing.assert_array_equal(state.delta(t, live), delta_ps_sets(U[live], S[live]))


def test_a_far_distance_is_answered_without_walking_to_it():
    """pareto_sensitivity(objs)(10**12) walked 10^12 distances (one Python addition each without local
    functions); past saturation every candidate's delta^PS is n - 1, the set definition's limit."""
    rng = np.random.default_rng(3)
    n = 30
    u1 = dpmo.Objective(rng.integers(0, 50, n).astype(float), global_sensitivity=1.0)
    u2 = dpmo.Objective(rng.random(n), global_sensitivity=0.01)

    def _half(t, idx=None):  # vectorised: (B, q) for t of shape (B, 1)
        q = n if idx is None else len(idx)
        return np.full((np.shape(t)[0], q) if np.ndim(t) == 2 else q, 0.5)

    _half = dpmo.LocalSensitivity(_half, vectorized_t=True)
    u3 = dpmo.Objective(rng.random(n) * 3, global_sensitivity=1.0, local=_half)
    for objs in ([u1, u2], [u1, u3]):
        assert dpmo.pareto_sensitivity(objs)(10**12).tolist() == [n - 1.0] * n


def test_repeated_indices_leave_no_count_unknown():
    """f(0, [0, 0, 1]) marked the step fully counted (n indices), so f(0) then read the marker of a count
    not made (-2^31) for candidate 2."""
    u1 = dpmo.Objective([3.0, 1.0, 2.0], 1.0)
    u2 = dpmo.Objective([1.0, 3.0, 2.0], 1.0)
    f = dpmo.pareto_sensitivity([u1, u2])
    fresh = dpmo.pareto_sensitivity([u1, u2])(0)
    np.testing.assert_array_equal(f(0, np.array([0, 0, 1])), fresh[[0, 0, 1]])
    np.testing.assert_array_equal(f(0), fresh)
