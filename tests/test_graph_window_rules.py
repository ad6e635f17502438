"""The graph staircase's window rules (issue 38: no constant fitted to a named data set).

``window_last(n, k) = max(WINDOW_FIRST, n^(2/3))``: the last round's window at epsilon -> 0 (three equal
bands in log rank; docs/pareto.md, "What was tuned, on which data"). ``ego_window_for(n)``: the top-first
plan's window, ``(s / WINDOW_FIRST, s)`` with ``s`` the start of the staircase's middle window (it replaced
the constant ``EGO_WINDOW = (20, 50)``). Both are functions of the public ``n`` only, so they leave every
score's sensitivity and the plan's epsilons unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.staircase_rules import WINDOW_FIRST, ego_window_for, window_last


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
def test_ego_window_is_the_staircase_middle_window(n):
    """The lower edge is where the staircase's middle round (k = 3) starts at epsilon -> 0; the upper edge
    ``WINDOW_FIRST`` times fewer ranks; above 5 nodes the two are centred in log rank on ``n^(1/3)``."""
    hi, lo = ego_window_for(n)
    assert lo == pytest.approx(GraphStaircaseApproach(3).window_starts(n)[1])
    assert lo == pytest.approx(hi * WINDOW_FIRST)
    if n >= 6:  # window_last is n^(2/3) there, not its floor WINDOW_FIRST
        assert math.sqrt(hi * lo) == pytest.approx(n ** (1.0 / 3.0))
    assert 1.0 <= hi < lo
    assert ego_window_for(n + 1)[1] >= lo  # more nodes, a window no smaller


@pytest.mark.parametrize("n,want", [(36_692, (19.19, 57.56)), (37_700, (19.36, 58.08)), (200, (3.38, 10.13))])
def test_ego_window_values(n, want):
    """Written out: ``sqrt(3) n^(1/3)`` and ``n^(1/3) / sqrt(3)`` (Enron, GitHub, 200 nodes)."""
    assert ego_window_for(n) == pytest.approx(want, abs=0.01)
    assert want == pytest.approx((n ** (1 / 3) / math.sqrt(3), n ** (1 / 3) * math.sqrt(3)), abs=0.01)


def test_a_given_window_is_capped_by_the_bands():
    """An explicit window (the audits shrink it) keeps the former cap ``(n^(1/3), n^(1/2))``."""
    assert ego_window_for(200, (20.0, 50.0)) == pytest.approx((200 ** (1 / 3), 200**0.5))
    assert ego_window_for(37_700, (20.0, 50.0)) == (20.0, 50.0)
