"""PrivAgg: the weighted-sum objective and its sensitivities, and the mechanism's plumbing."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo import selection as selection_mod

agg_mod = importlib.import_module("dpmo.aggregate")  # the module (dpmo.aggregate is the function)


def table_objective(values, global_sensitivity, table, name):
    """Objective whose delta at t is table[min(t, T-1)] (shape (n,)), evaluable on subsets."""
    table = np.asarray(table, float)

    def local(t, idx=None):
        row = table[min(t, len(table) - 1)]
        return row if idx is None else row[idx]

    return dpmo.Objective(values, global_sensitivity, dpmo.LocalSensitivity(local), name=name)


def three_objectives():
    u1 = np.array([1.0, 4.0, 2.0, 0.0])
    u2 = np.array([10.0, 0.0, 5.0, 7.0])
    u3 = np.array([0.25, 0.5, 0.75, 1.0])
    d1 = [[0.1, 0.2, 0.3, 0.4], [0.2, 0.3, 0.4, 0.5]]
    d2 = [[1.0, 2.0, 3.0, 4.0]]
    d3 = [[0.5, 0.5, 0.5, 0.5], [0.9, 0.9, 0.9, 5.0]]  # 5.0 above the global sensitivity 1: capped
    return (
        [
            table_objective(u1, 1.0, d1, "a"),
            table_objective(u2, 5.0, d2, "b"),
            table_objective(u3, 1.0, d3, "c"),
        ],
        (u1, u2, u3),
        (np.array(d1), np.array(d2), np.array(d3)),
    )


def test_values_and_sensitivities_hand_computed():
    objs, (u1, u2, u3), (d1, d2, d3) = three_objectives()
    w = [2.0, -0.5, 3.0]
    agg = dpmo.aggregate(objs, w)
    # values: signed weights
    np.testing.assert_allclose(agg.values, 2 * u1 - 0.5 * u2 + 3 * u3)
    # global: sum |w_i| Delta_i = 2*1 + 0.5*5 + 3*1
    assert agg.global_sensitivity == pytest.approx(7.5)
    # local: each objective's function once (the published code added the first one twice), capped at Delta_i
    expected0 = 2 * d1[0] + 0.5 * d2[0] + 3 * np.minimum(d3[0], 1.0)
    expected1 = 2 * d1[1] + 0.5 * d2[0] + 3 * np.minimum(d3[1], 1.0)
    np.testing.assert_allclose(agg.sensitivity(0), expected0)
    np.testing.assert_allclose(agg.sensitivity(1), expected1)
    np.testing.assert_allclose(agg.sensitivity(7), expected1)
    # subset evaluation keeps working
    idx = np.array([3, 1])
    np.testing.assert_allclose(agg.local(1, idx), expected1[idx])
    np.testing.assert_allclose(agg.take(idx).sensitivity(1), expected1[idx])


def test_first_objective_counted_once():
    # the published code's bug would give 2*|w_1|*d_1 + ...; with a single objective it would double delta
    obj = table_objective([1.0, 2.0], 1.0, [[0.25, 0.5]], "only")
    agg = dpmo.aggregate([obj], [4.0])
    np.testing.assert_allclose(agg.sensitivity(0), [1.0, 2.0])
    assert agg.global_sensitivity == 4.0


def test_zero_weight_ignored_and_never_evaluated():
    def boom(t, idx=None):
        raise AssertionError("an objective with weight 0 must not be evaluated")

    bad = dpmo.Objective([1.0, 2.0], 3.0, dpmo.LocalSensitivity(boom))
    good = table_objective([5.0, 6.0], 1.0, [[0.5, 0.25]], "good")
    agg = dpmo.aggregate([bad, good], [0.0, -2.0])
    np.testing.assert_allclose(agg.values, [-10.0, -12.0])
    assert agg.global_sensitivity == 2.0
    np.testing.assert_allclose(agg.sensitivity(0), [1.0, 0.5])


def test_global_only_objectives_give_no_local_function():
    a = dpmo.Objective([1.0, 2.0], 2.0)
    b = dpmo.Objective([3.0, 0.0], 0.5)
    agg = dpmo.aggregate([a, b], [1.0, -4.0])
    assert agg.local is None
    assert agg.global_sensitivity == pytest.approx(4.0)
    np.testing.assert_allclose(agg.sensitivity(3), [4.0, 4.0])


def test_mixed_global_and_local():
    a = dpmo.Objective([1.0, 2.0], 2.0)  # no local: its global 2 enters the local sum
    b = table_objective([3.0, 0.0], 1.0, [[0.1, 0.2]], "b")
    agg = dpmo.aggregate([a, b], [1.5, 2.0])
    np.testing.assert_allclose(agg.sensitivity(0), [1.5 * 2 + 2 * 0.1, 1.5 * 2 + 2 * 0.2])


def test_vectorised_distances_propagate():
    deg = np.array([1.0, 3.0, 10.0, 50.0])

    def ego(t, idx=None):
        d = deg if idx is None else deg[idx]
        return np.where(d - t <= 2, 1.0, 2.0 / np.maximum(d - t, 1.0))

    o1 = dpmo.Objective(deg, 1.0, name="degree")
    o2 = dpmo.Objective(np.array([0.0, 0.5, 0.2, 0.1]), 1.0, dpmo.LocalSensitivity(ego, vectorized_t=True))
    agg = dpmo.aggregate([o1, o2], [1.0, 100.0])
    assert agg.local.vectorized_t
    ts = np.arange(6)[:, None]
    idx = np.array([0, 2, 3])
    block = agg.local(ts, idx)
    rows = np.vstack([agg.sensitivity(int(t), idx) for t in range(6)])
    np.testing.assert_allclose(block, rows)
    np.testing.assert_allclose(rows, 1.0 + 100.0 * ego(ts, idx))
    # the dampening loop's block mode gives the same scores as step by step
    step = dpmo.dampen(agg.values, lambda t: agg.sensitivity(t), global_sensitivity=agg.global_sensitivity)
    fast = dpmo.dampen(agg.values, agg.local, global_sensitivity=agg.global_sensitivity)
    np.testing.assert_allclose(fast, step, rtol=1e-12)
    # a non-vectorised member turns the block mode off
    o3 = table_objective([1.0, 1.0, 1.0, 1.0], 1.0, [[0.5] * 4], "c")
    assert not dpmo.aggregate([o1, o2, o3], [1.0, 1.0, 1.0]).local.vectorized_t


@settings(max_examples=100, deadline=None)
@given(
    m=st.integers(1, 4),
    n=st.integers(1, 12),
    seed=st.integers(0, 2**31),
    t=st.integers(0, 4),
)
def test_matches_independent_computation(m, n, seed, t):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(m, n))
    G = rng.uniform(0.5, 2.0, m)
    tables = rng.uniform(0, 2.5, size=(m, 3, n))
    w = rng.normal(size=m)
    w[rng.random(m) < 0.3] = 0.0
    if not np.any(w):
        w[0] = 1.0
    objs = [table_objective(U[i], G[i], tables[i], f"u{i}") for i in range(m)]
    agg = dpmo.aggregate(objs, w)
    np.testing.assert_allclose(agg.values, w @ U, atol=1e-12)
    assert agg.global_sensitivity == pytest.approx(np.abs(w) @ G)
    expected = sum(abs(w[i]) * np.minimum(tables[i][min(t, 2)], G[i]) for i in range(m))
    np.testing.assert_allclose(agg.sensitivity(t), expected, atol=1e-12)


def test_closed_form_breakpoints_combine_only_when_the_caps_cannot_act():
    from dpmo.trees import tnr_objective, tpr_objective

    rng = np.random.default_rng(4)
    tpr = tpr_objective(rng.integers(0, 51, 9), 50)
    tnr = tnr_objective(rng.integers(0, 31, 9), 30)
    glob = dpmo.Objective(rng.random(9), 0.5)
    agg = dpmo.aggregate([tpr, tnr, glob], [3.0, -2.0, 4.0])
    assert agg.local.bound == pytest.approx(3 + 2 + 4 * 0.5)
    deltas = agg.local(np.arange(60)[:, None])
    running = np.vstack([np.zeros(9), np.cumsum(deltas, axis=0)])
    for T in (0, 1, 7, 29, 31, 60):
        np.testing.assert_allclose(agg.local.cumulative(np.full(9, T)), running[T], rtol=1e-12)
    # a part whose function may exceed its global sensitivity (no bound, or bound > Delta u): no closed form
    loose = dpmo.Objective(
        rng.random(9),
        0.5,
        dpmo.LocalSensitivity(lambda t, idx=None: np.ones(9 if idx is None else len(idx)), vectorized_t=True),
    )
    assert dpmo.aggregate([tpr, loose], [1.0, 1.0]).local.cumulative is None
    too_big = dpmo.Objective(tpr.values, 0.5, tpr.local)  # rate bound 1 > Delta u = 0.5
    assert dpmo.aggregate([too_big, tnr], [1.0, 1.0]).local.cumulative is None


@pytest.mark.parametrize(
    "weights, exc, word",
    [
        ([1.0], ValueError, "one entry per objective"),
        ([1.0, 2.0, 3.0], ValueError, "one entry per objective"),
        ([1.0, np.nan], ValueError, "finite"),
        ([np.inf, 1.0], ValueError, "finite"),
        ([0.0, 0.0], ValueError, "all be zero"),
        ([[1.0, 2.0]], ValueError, "1-D"),
        (["a", "b"], TypeError, "real"),
    ],
)
def test_bad_weights(weights, exc, word):
    objs = [dpmo.Objective([1.0, 2.0], 1.0), dpmo.Objective([2.0, 1.0], 1.0)]
    with pytest.raises(exc, match=word):
        dpmo.aggregate(objs, weights)
    with pytest.raises(exc, match=word):
        dpmo.priv_agg(objs, weights, 1.0)


def test_bad_objectives():
    a = dpmo.Objective([1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="same number of candidates"):
        dpmo.aggregate([a, dpmo.Objective([1.0], 1.0)], [1.0, 1.0])
    with pytest.raises(TypeError, match="sequence"):
        dpmo.aggregate(a, [1.0])
    with pytest.raises(TypeError, match=r"objectives\[0\]"):
        dpmo.aggregate([[1.0, 2.0]], [1.0])
    with pytest.raises(ValueError, match="finite"):
        dpmo.aggregate([dpmo.Objective([np.nan, 1.0], 1.0)], [1.0])


# --------------------------------------------------------------------------------------------------- priv_agg


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, scores, epsilon, sensitivity, *, mechanism="exponential", k=1, rng=None, exact=False):
        self.calls.append((np.array(scores, float), epsilon, sensitivity, mechanism, k))
        return np.argsort(-np.asarray(scores), kind="stable")[:k].astype(np.intp)


def dampen_by_hand(u, deltas_at, G, floor_rel=1e-9):
    """Piecewise-linear interpolation of (b_i, i), b_i = sum_{j<i} max(min(delta_j, G), floor)."""
    out = []
    for r, val in enumerate(u):
        a, b, i = abs(val), 0.0, 0
        while True:
            d = max(min(deltas_at(i)[r], G), floor_rel * G)
            if a < b + d or d >= G:
                out.append(np.sign(val) * (i + (a - b) / d))
                break
            b += d
            i += 1
    return np.array(out)


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip", "laplace", "gumbel"])
def test_priv_agg_global_and_local_arguments(monkeypatch, mechanism):
    objs, (u1, u2, u3), (d1, d2, d3) = three_objectives()
    w = [2.0, -0.5, 3.0]
    rec = Recorder()
    monkeypatch.setattr(selection_mod, "select", rec)
    fp = {"exact": False}  # the float path (the only one of "laplace"); select is recorded, not run
    out = dpmo.priv_agg(objs, w, 2.0, k=2, sensitivity="global", mechanism=mechanism, rng=0, **fp)
    scores, eps, sens, mech, k = rec.calls[-1]
    np.testing.assert_allclose(scores, 2 * u1 - 0.5 * u2 + 3 * u3)
    assert (eps, sens, mech, k) == (2.0, pytest.approx(7.5), mechanism, 2)
    assert out.tolist() == np.argsort(-scores, kind="stable")[:2].tolist()

    dpmo.priv_agg(objs, w, 2.0, k=3, sensitivity="local", mechanism=mechanism, rng=0, **fp)
    scores, eps, sens, mech, k = rec.calls[-1]

    def deltas_at(t):
        return 2 * d1[min(t, 1)] + 0.5 * d2[0] + 3 * np.minimum(d3[min(t, 1)], 1.0)

    expected = dampen_by_hand(2 * u1 - 0.5 * u2 + 3 * u3, deltas_at, 7.5)
    np.testing.assert_allclose(scores, expected, rtol=1e-10)
    assert (eps, sens, mech, k) == (2.0, 1.0, mechanism, 3)


def test_priv_agg_local_without_local_functions_is_global_scaling(monkeypatch):
    a = dpmo.Objective([1.0, 2.0, 6.0], 2.0)
    b = dpmo.Objective([3.0, 0.0, 1.0], 1.0)
    rec = Recorder()
    monkeypatch.setattr(selection_mod, "select", rec)
    dpmo.priv_agg([a, b], [1.0, 1.0], 1.0)
    np.testing.assert_allclose(rec.calls[-1][0], np.array([4.0, 2.0, 7.0]) / 3.0)
    assert rec.calls[-1][2] == 1.0


def test_priv_agg_output_contract_and_accuracy():
    rng = np.random.default_rng(0)
    U = rng.normal(size=(2, 50)) * 10
    objs = [table_objective(U[i], 1.0, [np.full(50, 0.5)], f"u{i}") for i in range(2)]
    best = int(np.argmax(U[0] - 2 * U[1]))
    for sensitivity in ("local", "global"):
        out = dpmo.priv_agg(objs, [1.0, -2.0], 1.0, k=50, sensitivity=sensitivity, rng=3)
        assert out.dtype == np.intp and sorted(out.tolist()) == list(range(50))
        a = dpmo.priv_agg(objs, [1.0, -2.0], 1.0, k=3, sensitivity=sensitivity, rng=11)
        assert np.array_equal(a, dpmo.priv_agg(objs, [1.0, -2.0], 1.0, k=3, sensitivity=sensitivity, rng=11))
        for seed in range(5):
            assert int(dpmo.priv_agg(objs, [1.0, -2.0], 1e6, sensitivity=sensitivity, rng=seed)[0]) == best


def test_priv_agg_single_candidate():
    def boom(t, idx=None):
        raise AssertionError("must not be evaluated")

    obj = dpmo.Objective([3.0], 1.0, dpmo.LocalSensitivity(boom))
    assert dpmo.priv_agg([obj], [1.0], 1.0).tolist() == [0]


def test_priv_agg_bad_arguments():
    objs = [dpmo.Objective([1.0, 2.0], 1.0)]
    with pytest.raises(ValueError, match="sensitivity"):
        dpmo.priv_agg(objs, [1.0], 1.0, sensitivity="both")
    with pytest.raises(ValueError, match="mechanism"):
        dpmo.priv_agg(objs, [1.0], 1.0, mechanism="x")
    with pytest.raises(ValueError, match="epsilon"):
        dpmo.priv_agg(objs, [1.0], -1.0)
    with pytest.raises(ValueError, match="k"):
        dpmo.priv_agg(objs, [1.0], 1.0, k=3)
