"""Hypervolume and hypervolume ratio against brute force on small integer inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo import metrics


def _cells(points, ref) -> int:
    """Brute force: unit cells [c, c + 1]^m above ``ref`` (integers) whose upper corner a point dominates."""
    points = np.asarray(points, dtype=np.int64).reshape(-1, len(ref))
    ref = np.asarray(ref, dtype=np.int64)
    if points.shape[0] == 0:
        return 0
    hi = points.max(axis=0)
    count = 0
    for c in itertools.product(*[range(r, max(h, r)) for r, h in zip(ref, hi, strict=True)]):
        top = np.asarray(c) + 1
        count += bool(np.any(np.all(points >= top, axis=1)))
    return count


def _pts(m, max_size=7, lo=0, hi=5):
    return st.lists(st.tuples(*[st.integers(lo, hi)] * m), min_size=0, max_size=max_size)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).flatmap(lambda m: st.tuples(_pts(m), st.tuples(*[st.integers(-1, 2)] * m))))
def test_hypervolume_matches_cell_count(data):
    pts, ref = data
    m = len(ref)
    P = np.asarray(pts, dtype=np.float64).reshape(-1, m)
    assert metrics.hypervolume(P, ref) == pytest.approx(_cells(P, ref))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3).flatmap(lambda m: _pts(m, max_size=7, lo=0, hi=5)), st.integers(1, 4))
@pytest.mark.slow
def test_best_hypervolume_matches_subset_enumeration(pts, k):
    m = len(pts[0]) if pts else 2
    P = np.asarray(pts, dtype=np.float64).reshape(-1, m)
    expected = max(
        (_cells(P[list(c)], [0] * m) for c in itertools.combinations(range(P.shape[0]), min(k, P.shape[0]))),
        default=0,
    )
    assert metrics.best_hypervolume(P, k) == pytest.approx(expected)
    # the ratio of the best subset is 1, of any subset at most 1
    if P.shape[0] and expected > 0:
        for c in itertools.combinations(range(P.shape[0]), min(k, P.shape[0])):
            r = metrics.hypervolume_ratio(P[list(c)], P, k)
            assert 0.0 <= r <= 1.0 + 1e-12
            assert r == pytest.approx(_cells(P[list(c)], [0] * m) / expected)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 50), st.floats(0, 1)), min_size=1, max_size=30),
    st.integers(1, 4),
    st.floats(60, 1e4),
)
def test_two_objective_dp_matches_enumeration_and_ignores_upper(pts, k, top):
    P = np.asarray(pts)
    best = metrics.best_hypervolume(P, k)
    brute = max(
        metrics.hypervolume(P[list(c)], 0.0)
        for c in itertools.combinations(range(P.shape[0]), min(k, P.shape[0]))
    )
    assert best == pytest.approx(brute, rel=1e-9, abs=1e-12)
    picks = P[: min(k, P.shape[0])]
    r = metrics.hypervolume_ratio(picks, P, k)
    assert r <= 1.0 + 1e-9
    # linear normalisation with the reference at the lower bounds scales every volume alike
    r2 = metrics.hypervolume_ratio(picks, P, k, lower=[0.0, 0.0], upper=[top, 2.0])
    assert r2 == pytest.approx(r, rel=1e-9, abs=1e-12)


def test_hand_examples():
    P = [[3, 1], [2, 2], [1, 3]]
    assert metrics.hypervolume(P, [0, 0]) == 6.0
    assert metrics.hypervolume(P, 1) == 1.0  # only (2, 2) is strictly above (1, 1)
    assert metrics.hypervolume([[2, 2, 2]], [0, 0, 0]) == 8.0
    assert metrics.hypervolume(np.empty((0, 2)), [0, 0]) == 0.0
    assert metrics.best_hypervolume(P, 1) == 4.0
    assert metrics.best_hypervolume(P, 2) == 5.0
    assert metrics.hypervolume_ratio([[2, 2]], P, 2) == pytest.approx(4 / 5)
    # lower bound as the reference point
    assert metrics.hypervolume_ratio([[2, 2]], P, 1, lower=[1, 1]) == pytest.approx(1.0)
    # a front with no volume: ratio 1 by convention
    assert metrics.hypervolume_ratio([[0, 0]], [[0, 5]], 1) == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="points"):
        metrics.hypervolume([[1, np.nan]], [0, 0])
    with pytest.raises(ValueError, match="reference"):
        metrics.hypervolume([[1, 2]], [0, 0, 0])
    with pytest.raises(ValueError, match="picks"):
        metrics.hypervolume_ratio([[1, 2, 3]], [[1, 2]], 1)
    with pytest.raises(ValueError, match="upper"):
        metrics.hypervolume_ratio([[1, 2]], [[1, 2]], 1, upper=[1, 1])
    with pytest.raises(ValueError, match="upper"):
        metrics.hypervolume_ratio([[1, 2]], [[1, 2]], 1, lower=[2, 0], upper=[1, 3])
    with pytest.raises(ValueError, match="k"):
        metrics.best_hypervolume([[1, 2]], 0)
    with pytest.raises(TypeError, match="k"):
        metrics.best_hypervolume([[1, 2]], 1.5)
    with pytest.raises(ValueError, match="max_subsets"):
        rng = np.random.default_rng(0)
        X = rng.random((40, 3))
        X = X / np.linalg.norm(X, axis=1, keepdims=True)  # on a sphere: many non-dominated points
        metrics.best_hypervolume(X, 3, max_subsets=100)


def test_graph_experiment_ratio_matches_metric():
    from dpmo.experiments import methods

    data = methods.load_graph_data("karate")
    front = data.front()
    n = data.graph.n_nodes
    rng = np.random.default_rng(3)
    for _ in range(5):
        picks = rng.choice(data.ids, size=3, replace=False)
        expected = metrics.hypervolume_ratio(
            data.values_of(picks), data.values_of(front), 3, lower=[0, 0], upper=[n - 1, 1]
        )
        assert data.hypervolume_ratio(picks, 3) == pytest.approx(expected)
        assert 0.0 <= expected <= 1.0
    best = front[:1] if len(front) == 1 else None
    assert best is None or data.hypervolume_ratio(best, 1) <= 1.0
    run = methods.graph_pareto_run(data, "DP-MOTkIN-Pareto-local", 5.0, rng, {"k": 3}, reference_seed=None)
    assert 0.0 <= run["hypervolume_ratio"] <= 1.0
