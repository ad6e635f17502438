"""Evaluation metrics: coverage C under the three readings of dominance, recall, fitness, TPR/TNR."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpmo import metrics


def test_coverage_readings_on_hand_example():
    ref = [[3, 5], [5, 3]]
    ev = [[3, 5], [2, 2], [4, 3], [6, 0]]
    # strict: (2,2) is below (3,5) in both; (4,3) is not strictly below (5,3); (3,5) equals a ref point.
    assert metrics.coverage(ref, ev) == pytest.approx(1 / 4)
    # pareto: (4,3) is dominated by (5,3); (3,5) equal -> not dominated
    assert metrics.coverage(ref, ev, dominance="pareto") == pytest.approx(2 / 4)
    # weak (the paper's text): every point equal to a reference point is covered too
    assert metrics.coverage(ref, ev, dominance="weak") == pytest.approx(3 / 4)


def test_identical_output_is_best_under_strict_and_worst_under_weak():
    # ERRATA 4: with weak dominance a private output equal to the exact one scores the worst value, 1.
    X = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    assert metrics.coverage(X, X) == 0.0
    assert metrics.coverage(X, X, dominance="weak") == 1.0


@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=8),
)
def test_coverage_matches_definition(A, B):
    for dom in metrics.DOMINANCE:

        def covers(a, b, dom=dom):
            ge = all(x >= y for x, y in zip(a, b, strict=True))
            gt = [x > y for x, y in zip(a, b, strict=True)]
            return all(gt) if dom == "strict" else (ge if dom == "weak" else ge and any(gt))

        expected = sum(any(covers(a, b) for a in A) for b in B) / len(B)
        assert metrics.coverage(A, B, dominance=dom) == pytest.approx(expected)


def test_recall_front_share_fitness_rates():
    assert metrics.recall([1, 2, 3], [3, 4]) == 0.5
    assert metrics.front_share([1, 2, 3, 9], [1, 9]) == 0.5
    np.testing.assert_allclose(metrics.weighted_fitness([[1.0, 0.5], [0.0, 1.0]], (3, 2)), [4.0, 2.0])
    assert metrics.tpr_tnr([1, 1, 0, 0, 0], [1, 0, 0, 0, 1]) == (0.5, 2 / 3)
    assert metrics.tpr_tnr([0, 0], [0, 1]) == (0.0, 0.5)


def test_bad_input():
    with pytest.raises(ValueError, match="dominance"):
        metrics.coverage([[1, 2]], [[1, 2]], dominance="nope")
    with pytest.raises(ValueError, match="objectives"):
        metrics.coverage([[1, 2]], [[1, 2, 3]])
    with pytest.raises(ValueError, match="X_eval"):
        metrics.coverage([[1, 2]], np.empty((0, 2)))
    with pytest.raises(ValueError, match="relevant"):
        metrics.recall([1], [])
    with pytest.raises(ValueError, match="weights"):
        metrics.weighted_fitness([[1.0, 2.0]], (1.0,))
