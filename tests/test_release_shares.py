"""Shares that hold for every k (issue 38): the rounds of a staircase plan keep most of epsilon however many
picks are asked for.

The graph default: ``dpmo.staircase.release_share_for``, each release a fixed fraction of an average round.
The tables' ``approach="staircase"`` with corner scores: a fixed share per release while the releases take
at most half of epsilon. The shares are public functions of ``k`` and the plan's constants: the privacy
argument of every step is unchanged (each release and round is still recorded at its share, and the shares
sum to 1), and the exact audits of the releases and rounds in ``tests/test_staircase.py`` and
``tests/test_privacy_multiobjective.py`` hold at any share.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo import graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.staircase_rules import PICK_SHARE, QUANTILE_SHARE
from dpmo.staircase import RELEASE_SHARE, StaircaseApproach, release_share_for

shares_at_three = st.floats(0.001, 0.3)
befores = st.floats(0.0, 0.3)


@settings(max_examples=200, deadline=None)
@given(k=st.integers(1, 10**6), a=shares_at_three, b=befores)
def test_a_release_is_the_same_fraction_of_an_average_round_for_every_k(k, a, b):
    """``p = rho (1 - b - (k - 1) p) / k`` with the ``rho`` of the plan with three rounds; every share is
    positive, and the releases together stay below ``rho (1 - b) / (1 + rho)`` of epsilon."""
    if not 2 * a < 1 - b:
        with pytest.raises(ValueError, match="share_at_three"):
            release_share_for(k, a, b)
        return
    p = release_share_for(k, a, b)
    rho = 3 * a / (1 - b - 2 * a)
    rounds = 1 - b - (k - 1) * p
    assert p > 0 and rounds > 0
    assert p == pytest.approx(rho * rounds / k, rel=1e-9)
    assert (k - 1) * p < rho * (1 - b) / (1 + rho) + 1e-12
    if k >= 2:  # more picks: a smaller share each, a larger total for the releases
        q = release_share_for(k - 1, a, b)
        assert p < q and (k - 1) * p >= (k - 2) * q - 1e-12


@settings(max_examples=200, deadline=None)
@given(a=shares_at_three, b=befores)
def test_the_plan_with_three_rounds_keeps_its_share_exactly(a, b):
    """Bit for bit and with no special case: the plan at k = 3, the one measured, is unchanged."""
    if 2 * a < 1 - b:
        assert release_share_for(3, a, b) == a


@pytest.mark.parametrize("k, error", [(0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_k_that_is_not_a_positive_integer_is_refused(k, error):
    with pytest.raises(error, match="k must be a positive int"):
        release_share_for(k, PICK_SHARE)


@pytest.mark.parametrize("k", [2, 3, 10, 16, 17, 30, 120])
def test_graph_plans_have_positive_shares_summing_to_one_for_every_k(k):
    """The graph default's plan (with and without the ego signal) for any ``k``: a fixed 0.06 per release
    left nothing for the rounds from ``k = 17``."""
    for eps in (None, 1.0, 50.0, 500.0):
        appr = GraphStaircaseApproach(k, epsilon=eps)
        plan = appr.steps(k, 2)
        shares = [s.share for s in plan]
        assert all(s > 0 for s in shares) and sum(shares) == pytest.approx(1.0)
        releases = [s.share for s in plan if s.kind == "release" and s.round > 0]
        assert releases == [release_share_for(k, PICK_SHARE, QUANTILE_SHARE)] * (k - 1)
        assert sum(releases) < 0.175


def test_graph_default_takes_many_picks_and_spends_exactly_epsilon():
    """``graphs.top_k(approach="staircase")`` (the graph default below the released graph's epsilon) with k =
    20 and 40 (a ValueError from inside the pipeline
    before): distinct picks, one record per step, the ledger summing to the call's epsilon."""
    g = graphs.load_graph(nx.barabasi_albert_graph(400, 3, seed=1), nodes=400)
    for k in (20, 40):
        budget = dpmo.Budget(10.0)
        ids = graphs.top_k(g, k, 5.0, approach="staircase", rng=0, budget=budget)
        assert len(set(ids.tolist())) == k
        assert len(budget.ledger) == 2 * k and budget.spent_exact == Fraction(5)
        assert [r.mechanism for r in budget.ledger[2::2]] == ["laplace"] * (k - 1)


def test_tables_staircase_takes_many_picks_without_bounds():
    """The tables' corner staircase (objectives without bounds) with k = 40: a fixed 0.04 per release was
    refused from k = 26; now the releases take at most half of epsilon (the plan unchanged up to k = 13); an
    explicit ``release_share`` keeps its check."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 50, size=(300, 3))
    objs = [dpmo.Objective(X[:, i], 1.0) for i in range(3)]
    budget = dpmo.Budget(5.0)
    picks = dpmo.select_multiobjective(objs, 5.0, approach="staircase", k=40, rng=1, budget=budget)
    assert len(set(np.asarray(picks).tolist())) == 40 and budget.spent_exact == Fraction(5)
    plan = StaircaseApproach().steps(40, 3)
    assert [s.share for s in plan if s.kind == "release"] == [0.5 / 39] * 39
    for k in (2, 3, 10, 13):
        shares = [s.share for s in StaircaseApproach().steps(k, 3) if s.kind == "release"]
        assert shares == [RELEASE_SHARE] * (k - 1)
    with pytest.raises(ValueError, match="release_share"):
        StaircaseApproach(release_share=0.04).steps(40, 3)
