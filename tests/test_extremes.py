"""Extreme epsilon, sensitivity and scores (issue 12 item 3, issue 16 item 5): every mechanism, float and
exact, returns k distinct candidates, the exact order of the best ones when it is numerically certain,
never a NaN probability, and no warning."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo

EXACT = ["exponential", "gumbel", "permute_and_flip"]
MODES = [(m, False) for m in dpmo.MECHANISMS] + [(m, True) for m in EXACT]

epsilons = st.one_of(
    st.floats(min_value=5e-324, max_value=1e308, allow_nan=False),
    st.sampled_from([1e308, 1e307, 1e300, 5e-324, 1e-300, 1.0]),
)
sensitivities = st.one_of(
    st.floats(min_value=5e-324, max_value=1e308, allow_nan=False),
    st.sampled_from([5e-324, 1e-10, 1.0, 1e15]),
)
score_lists = st.lists(
    st.one_of(st.floats(-1e15, 1e15), st.sampled_from([0.0, 1.0, -1.0, 1e15, -1e15, 5e-324])),
    min_size=1,
    max_size=7,
)


def certain_top(scores, epsilon, sensitivity, k):
    """The top-k indices in order when every round's winner beats all others by a log-weight > 80 (exact
    rationals); else None."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    c = Fraction(epsilon) / k / (2 * Fraction(sensitivity))
    for i in range(k):
        if i + 1 < len(order) and (Fraction(scores[order[i]]) - Fraction(scores[order[i + 1]])) * c <= 80:
            return None
    return order[:k]


@pytest.mark.parametrize("mechanism,exact", MODES)
@settings(max_examples=60)
@given(scores=score_lists, epsilon=epsilons, sensitivity=sensitivities, data=st.data())
def test_extremes_k_distinct_certain_order_no_warning(mechanism, exact, scores, epsilon, sensitivity, data):
    k = data.draw(st.integers(1, len(scores)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = dpmo.select(scores, epsilon, sensitivity, mechanism=mechanism, k=k, exact=exact, rng=3)
    assert out.shape == (k,) and len(set(out.tolist())) == k
    assert out.min() >= 0 and out.max() < len(scores)
    top = certain_top(scores, epsilon, sensitivity, k)
    if top is not None:
        assert out.tolist() == top


@pytest.mark.parametrize("mechanism", EXACT)
@settings(max_examples=80)
@given(scores=score_lists, epsilon=epsilons, sensitivity=sensitivities)
def test_extreme_probabilities_finite(mechanism, scores, epsilon, sensitivity):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = dpmo.probabilities(scores, epsilon, sensitivity, mechanism=mechanism)
        logp = dpmo.probabilities(scores, epsilon, sensitivity, mechanism=mechanism, log=True)
    assert not np.isnan(p).any() and not np.isnan(logp).any()
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-9)
    best = np.flatnonzero(np.asarray(scores) == max(scores))
    assert np.all(p[best] > 0)


@pytest.mark.parametrize("mechanism,exact", MODES)
@pytest.mark.parametrize("epsilon", [1e307, 1e308])
def test_issue_examples(mechanism, exact, epsilon):
    scores = np.random.default_rng(0).permutation(100) * 1000.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = dpmo.select(
            scores, epsilon=epsilon, sensitivity=1.0, k=5, mechanism=mechanism, rng=0, exact=exact
        )
        assert scores[out].tolist() == [99000.0, 98000.0, 97000.0, 96000.0, 95000.0]
        out = dpmo.select([3, 2, -1.7e308, -1.7e308], 10, 1, k=4, mechanism=mechanism, exact=exact, rng=1)
    assert sorted(out[:2].tolist()) == [0, 1] and sorted(out[2:].tolist()) == [2, 3]


@pytest.mark.parametrize("mechanism,exact", MODES)
@pytest.mark.parametrize("epsilon,sensitivity", [(1.0, 5e-324), (1e300, 1e-10), (1e308, 5e-324)])
def test_overflowing_ratio_keeps_ties_random(mechanism, exact, epsilon, sensitivity):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picks = [
            dpmo.select([5.0, 5.0, 5.0, 4.0], epsilon, sensitivity, mechanism=mechanism, exact=exact, rng=s)[
                0
            ]
            for s in range(300)
        ]
    counts = np.bincount(picks, minlength=4)
    assert counts[3] == 0 and counts[:3].min() > 60


def test_tied_losers_in_later_rounds_are_shuffled():
    """At epsilon 1e300 the two tied worst candidates come last, in a uniformly random order."""
    for mechanism, exact in MODES:
        lasts = [
            dpmo.select([9.0, 0.0, 0.0], 1e300, 1.0, k=3, mechanism=mechanism, exact=exact, rng=s)[1]
            for s in range(200)
        ]
        assert 60 < lasts.count(1) < 140, (mechanism, exact)


@pytest.mark.parametrize(
    "scores,epsilon,sensitivity",
    [
        ([0.0, -1.0, 1.0], 1.7e308, 1.0),  # epsilon / (2 sensitivity) beyond 2^1000: the vectorised envelope
        ([1.5e308, 0.0], 2.0, 1.0),  # an ordinary ratio, x = 1.5e308 for the proposal 0.0
        ([0.5, -1.5, -1.5, 0.0], 1.5e308, 1.0),  # x = 1.5e308 for the two -1.5: x log2(e) overflowed
    ],
)
@pytest.mark.parametrize("k", [1, 2])
def test_exact_exponential_mechanism_warns_for_no_scores(scores, epsilon, sensitivity, k):
    """Issue 31 item 6: at extreme epsilon / sensitivity the exact exponential mechanism raised a numpy
    overflow RuntimeWarning whose presence depended on the scores (``x * log2(e)`` for ``x > 1.2e308``).
    Every call, whatever the scores, now runs without a warning: warnings are errors here."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mechanism in ("exponential", "gumbel", "permute_and_flip"):
            out = dpmo.select(scores, epsilon, sensitivity, mechanism=mechanism, k=k, exact=True, rng=5)
            assert len(set(out.tolist())) == k
        objective = dpmo.Objective(scores, sensitivity)
        dpmo.priv_agg([objective], [1.0], epsilon=epsilon, k=k, sensitivity="global", rng=5)
