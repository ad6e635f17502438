"""The graph staircase's window rules (issue 38: no constant fitted to a named data set).

``window_last(n, k) = max(WINDOW_FIRST, n^(2/3))``: the last round's window at epsilon -> 0 (three equal
bands in log rank; docs/pareto.md, "What was tuned, on which data"). ``ego_window_for(n)``: the top-first
plan's window ``EGO_WINDOW`` capped by ``n^(1/3)`` and ``n^(1/2)``. Both are functions of the public ``n``
only, so they leave every score's sensitivity and the plan's epsilons unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.staircase_rules import EGO_WINDOW, WINDOW_FIRST, ego_window_for, window_last


@given(st.integers(1, 10**7), st.integers(1, 12))
@settings(max_examples=200, deadline=None)
def test_window_last_is_the_top_two_log_rank_bands(n, k):
    L = window_last(n, k)
    assert L == pytest.approx(max(WINDOW_FIRST, math.exp(2.0 * math.log(n) / 3.0)))
    assert L >= WINDOW_FIRST
    assert window_last(n + 1, k) >= L  # more nodes, a window no smaller


@given(st.integers(2, 10**6), st.sampled_from([2, 3, 5, 8]))
@settings(max_examples=100, deadline=None)
def test_window_starts_run_geometrically_from_first_to_last(n, k):
    starts = GraphStaircaseApproach(k).window_starts(n)
    assert starts[0] == pytest.approx(WINDOW_FIRST)
    assert starts[-1] == pytest.approx(window_last(n, k))
    ratios = starts[1:] / starts[:-1]
    assert np.allclose(ratios, ratios[0])  # equal steps in log rank


@given(st.integers(1, 10**7))
@settings(max_examples=200, deadline=None)
def test_ego_window_is_capped_by_the_bands(n):
    hi, lo = ego_window_for(n)
    assert hi <= EGO_WINDOW[0] and lo <= EGO_WINDOW[1]
    assert hi == pytest.approx(min(EGO_WINDOW[0], n ** (1.0 / 3.0)))
    assert lo == pytest.approx(min(EGO_WINDOW[1], math.sqrt(n)))
    assert hi <= lo  # the upper edge stays above (at a smaller rank than) the lower edge's start


@pytest.mark.parametrize("n", [8_001, 36_692, 37_700, 10**6])
def test_ego_window_unchanged_on_large_graphs(n):
    assert ego_window_for(n) == (float(EGO_WINDOW[0]), float(EGO_WINDOW[1]))


def test_ego_window_on_small_graphs():
    hi, lo = ego_window_for(200)
    assert hi == pytest.approx(200 ** (1 / 3)) and lo == pytest.approx(200**0.5)
    assert hi < 20.0 and lo < 50.0
