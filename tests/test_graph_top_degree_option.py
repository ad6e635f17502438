"""Round 1 of the graph staircase plan with the largest degree on offer (issue 38: the dip at epsilon 5 on
Barabasi-Albert graphs; docs/pareto.md, "Round 1 with the top degree on offer").

For ``k = 3`` at the call's epsilon >= 1, when the ego signal is not released, round 1 scores ``max(s(v),
L + min(lead(v), 0))``: ``s`` its staircase score, ``lead(v) = deg(v) - max_{u != v} deg(u)`` (sensitivity
1) and ``L = 2 ln c / eps_1`` (``c`` the window's nominal size). No epsilon is spent on it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from _five_node_graphs import (
    audit_scores,
    draw_degrees_and_neighbour,
    round_scores,
    scores_on_every_graph,
)
from dpmo import graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach, degree_ranks
from dpmo.graphs.staircase_rules import (
    degree_leads,
    offers_top_degree,
    top_degree_level,
    top_degree_scores,
)


@given(st.lists(st.integers(0, 40), min_size=1, max_size=30))
def test_degree_leads_by_brute_force(d):
    want = [d[v] - max((d[u] for u in range(len(d)) if u != v), default=d[v]) for v in range(len(d))]
    assert degree_leads(d).tolist() == [float(x) for x in want]


@settings(max_examples=60)
@given(st.integers(3, 12), st.data())
def test_degree_leads_move_by_at_most_one_between_edge_neighbours(n, data):
    """Add or remove any one edge of a random graph: every lead moves by at most 1."""
    deg, neighbour = draw_degrees_and_neighbour(n, data)
    assert np.abs(degree_leads(deg) - degree_leads(neighbour)).max() <= 1.0


def test_the_gate_and_the_level():
    assert [offers_top_degree(e, 3) for e in (None, 0.5, 0.99, 1.0, 5.0, 1e6)] == [
        False, False, False, True, True, True
    ]  # fmt: skip
    assert all(offers_top_degree(5.0, k) for k in (2, 4, 10, 50)) and not offers_top_degree(5.0, 1)
    assert not offers_top_degree(0.99, 10)
    # the leader at L above c - 1 nodes at 0 is exactly as likely as all of them together
    for c, eps in ((11, 0.6375), (300, 2.0), (2, 0.1)):
        L = top_degree_level(c, eps)
        assert math.exp(eps * L / 2.0) == pytest.approx(c)
    L = top_degree_level(11, 0.5)
    assert top_degree_scores([3, 9, 9, 1], np.array([0, 1, 3]), 11, 0.5).tolist() == pytest.approx(
        [L - 6.0, L, L - 8.0]
    )


def _round_one(g, epsilon_call: float | None, eps1: float, sensitivity: str = "local", k: int = 3):
    """Round 1's scores of the staircase plan of ``GraphStaircaseApproach(k, epsilon=epsilon_call)`` on
    ``g`` at round epsilon ``eps1``, after a release of the exact degrees of the ranks (``x`` large:
    negligible noise)."""
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(k, epsilon=epsilon_call)
    assert not appr.top_first and not appr.uses_signal()
    rounds = appr.rounds(objs, None, sensitivity, None)
    rounds.receive(0, [], rounds.statistic(0, []), 1e9)
    rounds.begin(0, eps1)
    s, sens = rounds.scores([], np.arange(objs[0].n))
    assert sens == 1.0
    return s


def _eps1(epsilon_call: float, k: int = 3) -> float:
    return float(GraphStaircaseApproach(k, epsilon=epsilon_call).steps(k, 2)[1].share) * epsilon_call


@pytest.mark.parametrize("k", [3, 2, 5])
def test_round_one_takes_the_top_degree_on_a_graph_without_ego_signal(k):
    """Barabasi-Albert, 1,000 nodes (hub end: degree 91 then 64, ego densities about 0.02): at epsilon 5
    round 1's exponential mechanism puts more than 0.4 of its mass on the largest degree (0.46: about as
    much as on the rest of its window, whose staircase scores are 0.4-0.9, not 0); the round without the
    option (no call epsilon; the same round epsilon), the staircase score alone, spreads it over its window
    (0.10). At 0.5 the option is off: the scores are the round's without it. The same for k = 2 and 5, where
    the option is on since "The top degree on offer for every k" (docs/pareto.md)."""
    import networkx as nx

    g = graphs.load_graph(nx.barabasi_albert_graph(1000, 3, seed=1), nodes=1000)
    top = int(np.argmax(graphs.objectives(g)[0].values))
    eps1 = _eps1(5.0, k)
    p = dpmo.probabilities(_round_one(g, 5.0, eps1, k=k), eps1, 1.0, mechanism="exponential")
    assert p[top] > 0.4
    p = dpmo.probabilities(_round_one(g, None, eps1, k=k), eps1, 1.0, mechanism="exponential")
    assert p[top] < 0.15
    eps1 = _eps1(0.5, k)
    assert np.array_equal(_round_one(g, 0.5, eps1, k=k), _round_one(g, None, eps1, k=k))


def test_round_one_keeps_an_ego_rich_node_of_its_window():
    """A hub of degree 600 (ego density 0) and six nodes of degree 100 whose neighbourhoods are random graphs
    of density 1/2 (their dampened ego density, about 25, stands far above ``L``, 7.5): round 1 still
    prefers them to the hub (the option is a floor for the largest degree, not a switch)."""
    rng = np.random.default_rng(0)
    edges = [(0, j) for j in range(7, 607)]  # the hub
    nxt = 607
    for v in range(1, 7):
        nb = np.arange(nxt, nxt + 100)
        nxt += 100
        edges += [(v, int(u)) for u in nb]
        edges += [(int(a), int(b)) for a, b in combinations(nb, 2) if rng.random() < 0.5]
    g = graphs.load_graph(np.array(edges), nodes=nxt)
    eps1 = _eps1(5.0)
    p = dpmo.probabilities(_round_one(g, 5.0, eps1), eps1, 1.0, mechanism="exponential")
    assert p[1:7].sum() > 0.95 and p[0] < 0.01


@pytest.mark.parametrize("sensitivity, k", [("local", 3), ("global", 3), ("local", 5)])
@pytest.mark.slow
def test_exact_audit_of_round_one_with_the_option_on_all_graphs_with_five_nodes(sensitivity, k):
    """Every graph on 5 nodes and every one-edge neighbour, the public history (released degrees of the ranks
    4, 3, 2, 1; round 1's epsilon), the option on (call's epsilon 5 and 8; k = 3, and k = 5 with local
    sensitivity): every score moves by at most 1
    (and by more than 0.3 somewhere), the exact log-probabilities of the exponential mechanism and
    permute-and-flip differ by at most epsilon, and the option changes the scores of some graph (the audit
    is not the old round's)."""
    ranks = degree_ranks(5)
    assert ranks.tolist() == [1, 2, 4, 5]
    for call_eps, eps1 in ((5.0, 0.6375), (5.0, 3.0), (8.0, 1.02)):

        def score_of(e, objs, cache, eps1=eps1):
            appr = GraphStaircaseApproach(k, epsilon=e)
            assert not appr.uses_signal()
            return round_scores(appr, objs, sensitivity, cache, 0, eps1)

        S, plain = scores_on_every_graph((call_eps, None), score_of)
        assert np.abs(S - plain).max() > 0.5  # the option acts
        audit_scores(S)


def test_no_epsilon_is_spent_on_the_option():
    """At epsilon 5 (k = 3: the staircase plan, no ego signal) the records are the plan's five steps,
    adding up to epsilon exactly; the option reads no release of its own."""
    import networkx as nx

    g = graphs.load_graph(nx.barabasi_albert_graph(300, 3, seed=4), nodes=300)
    budget = dpmo.Budget(5.0)
    ids = graphs.top_k(g, 3, 5.0, approach="staircase", rng=1, budget=budget)
    assert len(set(ids.tolist())) == 3
    ledger = budget.ledger
    assert [r.mechanism for r in ledger] == ["laplace", "exponential", "laplace", "exponential", "laplace",
                                             "exponential"][: len(ledger)]  # fmt: skip
    assert len(ledger) == 6 and budget.spent_exact == Fraction(5)
