"""The top-first plan's rules (issue 38: no constant fitted to a named data set).

``top_pick_epsilon``: a top round's epsilon from the released degree sequence, the smallest multiple of
1 / 1000 at which the nodes from the last round's upper edge down weigh at most ``1 / n`` of a node scoring 0
(docs/pareto.md, "What was tuned, on which data"). With pure epsilon-DP the top rounds run at it when it is
below their planned part and the rest goes to the last round (adaptive composition: every path spends the
call's epsilon exactly). With ``delta > 0`` the call runs that epsilon-DP plan, delta unspent, because the
accountant adds less to epsilon than the top rounds may move (``dpmo.calls.delta_for_plan``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpmo import Budget, graphs
from dpmo.graphs import chebyshev as C
from dpmo.graphs.staircase_rules import degree_ranks, top_pick_epsilon


@given(st.integers(1, 5000), st.integers(1, 4000), st.integers(4, 10**5))
@settings(max_examples=200, deadline=None)
def test_one_band_is_the_resolution_rule(top, lead, n):
    """Every node from rank 4 (a released rank, the edge) down at one degree, ``lead`` edges below rank 2's:
    the ``n - 3`` of them weigh ``(n - 3) exp(-eps lead / 2)``, at most ``1 / n`` from ``2 (ln(n - 3) + ln n)
    / lead`` on (written out; the rule rounds up to 1 / 1000)."""
    r = degree_ranks(n)
    d = np.full(r.size, float(top))
    d[2:] = top - lead  # ranks 4, 8, ..., n
    want = math.ceil(1000.0 * 2.0 * (math.log(n - 3) + math.log(n)) / lead - 1e-6) / 1000.0
    assert top_pick_epsilon(r, d, 2.0, 4.0, n) == pytest.approx(max(want, 0.001), abs=1.0000001e-3)


@given(
    st.lists(st.integers(0, 3000), min_size=4, max_size=400),
    st.floats(2.0, 50.0),
)
@settings(max_examples=200, deadline=None)
def test_the_nodes_below_the_edge_weigh_at_most_one_over_n(degrees, edge):
    """Released degrees equal to the true ones: at the rule's epsilon the exponential mechanism's weights
    ``exp(eps (d - W) / 2)`` of the true nodes at rank ``ceil(edge)`` and below sum to at most ``1 / n``
    (``W`` the degree of rank 2, the weight of a node scoring 0 being 1)."""
    d = np.sort(np.array(degrees, dtype=np.float64))[::-1]
    n = d.size
    r = degree_ranks(n)
    e = top_pick_epsilon(r, d[r - 1], 2.0, edge, n)
    below = d[int(math.ceil(edge)) - 1 :]
    if below.size == 0:
        assert e == 0.001
        return
    if below.max() >= d[1]:  # a node below the edge as high as rank 2: no epsilon separates them
        assert math.isinf(e)
        return
    assume(math.isfinite(e))  # infinite too when a band's released upper bound reaches W
    assert np.sum(np.exp(e * (below - d[1]) / 2.0)) <= 1.0 / max(n, math.e) + 1e-12


def test_no_lead_is_infinite():
    r = degree_ranks(100)
    assert math.isinf(top_pick_epsilon(r, np.full(r.size, 7.0), 2.0, 3.0, 100))


def _two_hubs():
    """Two hubs of degree 2,998 joined to every other node, and a triangle: the top two lead by thousands."""
    edges = [(h, j) for h in (0, 1) for j in range(2, 3000)] + [(2, 3), (3, 4), (2, 4)]
    return graphs.load_graph(np.array(edges), nodes=3000)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 2.0])
def test_top_rounds_spend_the_rule_and_the_last_round_the_rest(epsilon):
    """Pure DP: four records, made as spent; the two top rounds at the same part, far below their planned
    part (the released lead is thousands of edges), the last round the exact rest; the top picks are the
    hubs."""
    g = _two_hubs()
    for seed in range(3):
        b = Budget(epsilon)
        ids = graphs.top_k(g, 3, epsilon, approach="chebyshev", rng=seed, exact=False, budget=b)
        assert sorted(ids[:2].tolist()) == [0, 1]
        eps = [r.epsilon for r in b.ledger]
        assert [r.mechanism for r in b.ledger] == ["laplace", "exponential", "exponential", "exponential"]
        assert sum(eps, Fraction(0)) == Fraction(epsilon) and b.remaining == 0
        assert eps[1] == eps[2] and float(eps[1]) < 0.02  # planned: 0.1275 epsilon each
        assert eps[1] >= Fraction(1, 1000)
        assert float(eps[0]) == pytest.approx(epsilon * C.TOP_QUANTILE_SHARE)
        assert eps[3] == Fraction(epsilon) - eps[0] - 2 * eps[1]


@pytest.mark.parametrize("epsilon", [1.0, 2.0])
def test_with_delta_the_top_first_plan_runs_as_pure_dp(epsilon):
    """``delta > 0``: the accountant adds 3-5 % to epsilon, the top rounds may move 25.5 % of it, so the
    call is the epsilon-DP one: the same picks and the same ledger as with ``delta = 0`` (the top rounds
    reallocated), exactly epsilon spent and the delta left in the budget (it failed before: the
    accountant's parts, the top rounds at 0.1275 of epsilon times 1.03-1.05)."""
    g = _two_hubs()
    appr = C.GraphStaircaseApproach(3, top_first=True, epsilon=epsilon)
    assert appr.reallocable_share(3, 2) == pytest.approx(2 * appr.top_round_share())
    for seed in range(3):
        pure, approx = Budget(epsilon), Budget(epsilon, delta=1e-6)
        a = graphs.top_k(g, 3, epsilon, approach="chebyshev", rng=seed, exact=False, budget=pure)
        b = graphs.top_k(
            g, 3, epsilon, approach="chebyshev", rng=seed, exact=False, budget=approx, delta=1e-6
        )
        assert a.tolist() == b.tolist()
        assert [r.epsilon for r in approx.ledger] == [r.epsilon for r in pure.ledger]
        assert approx.remaining_delta == pytest.approx(1e-6) and approx.remaining_exact == 0
        assert float(pure.ledger[1].epsilon) < appr.top_round_share() * epsilon  # reallocated


@pytest.mark.parametrize("epsilon", [1.0, 2.0, 4.0])
def test_a_top_round_is_planned_at_the_staircase_round_one_share(epsilon):
    """Written out: round 1 of the staircase plan without the signal gets ``0.15 (1 - 0.03 - 2 x 0.06)``
    (FIRST_ROUND of the rounds' part) of epsilon; each top round is planned at that share, the release at
    TOP_QUANTILE_SHARE, the last round at the rest."""
    top = C.GraphStaircaseApproach(3, top_first=True, epsilon=epsilon)
    plan = top.steps(3, 2)
    assert [st.kind for st in plan] == ["release", "round", "round", "round"]
    assert plan[1].share == plan[2].share == pytest.approx(0.15 * (1.0 - 0.03 - 2 * 0.06))
    assert plan[1].share == pytest.approx(C.GraphStaircaseApproach(3).steps(3, 2)[1].share)
    assert plan[3].share == pytest.approx(1.0 - C.TOP_QUANTILE_SHARE - 2 * 0.1275)
