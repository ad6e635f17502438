"""The top-first plan when its ranks' release cannot tell the degrees from 0 (issue 38: the dip at epsilon
1.5-2 on 200-node graphs; docs/pareto.md, "The top degree on offer until picked, and the top-first plan when
its release sees nothing").

A released degree ``W`` (an upper bound, ``point + RANK_CONFIDENCE sd``) is *unresolved* when ``W -
(RANK_CONFIDENCE + 1) sd < 0``. Then a top round scores ``degree - W`` (no cap at 0), and the last round's
window edge at nominal rank ``c`` is ``W (1 - c / n)``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import dpmo
from _five_node_graphs import audit_scores, round_scores, scores_on_every_graph
from dpmo import graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.staircase_rules import (
    RANK_CONFIDENCE,
    ego_window_for,
    last_window_edge,
    top_round_scores,
    unresolved_degree,
)
from dpmo.staircase import discrete_laplace_sd


def _stub(sd: float, top_first: bool = True):
    return SimpleNamespace(rank_sd=sd, appr=SimpleNamespace(rank_confidence=0.5, top_first=top_first))


def test_the_rules_by_hand():
    r = _stub(10.0)
    assert unresolved_degree(14.9, r) and not unresolved_degree(15.1, r)
    assert top_round_scores([20, 5, 1], 14.9, r).tolist() == pytest.approx([5.1, -9.9, -13.9])
    assert top_round_scores([20, 5, 1], 15.1, r).tolist() == pytest.approx([0.0, -10.1, -14.1])
    assert last_window_edge(14.9, 50.0, 200, r) == pytest.approx(14.9 * 0.75)
    assert last_window_edge(15.1, 50.0, 200, r) == 15.1
    assert last_window_edge(14.9, 50.0, 200, _stub(10.0, top_first=False)) == 14.9


def _hub_graph():
    """A hub joined to 300 leaves, and a path of 40 nodes (degrees 300, 2, 1): 341 nodes."""
    edges = [(0, j) for j in range(1, 301)] + [(j, j + 1) for j in range(301, 340)]
    return graphs.load_graph(np.array(edges), nodes=341)


def test_a_top_round_on_an_unresolved_release_keeps_the_hubs_lead():
    """All released degrees 0 at ``x = 0.01`` (sd 141): ``W = 0.5 sd`` (70.7) is unresolved. The top round
    at epsilon 0.13 puts more than 0.99 of its mass on the hub (its lead over the leaves, 299 edges, counts
    in full); capped at 0 at ``W`` (the former score), under 0.3: the leaves 69.7 edges below weigh ``300
    exp(-0.065 x 69.7)`` = 3.2 against the hub's 1."""
    g = _hub_graph()
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=1.0, top_first=True)
    rounds = appr.rounds(objs, None, "local", None)
    rounds.receive(0, [], np.zeros(rounds.ranks.size), 0.01)
    W = RANK_CONFIDENCE * discrete_laplace_sd(0.01)
    assert rounds._degree_at(2.0) == pytest.approx(W)
    rounds.begin(0, 0.13)
    s, sens = rounds.scores([], np.arange(341))
    assert sens == 1.0
    assert dpmo.probabilities(s, 0.13, 1.0, mechanism="exponential")[0] > 0.99
    deg = np.asarray(objs[0].values, dtype=np.float64)
    old = rounds.tie_break(np.minimum(deg - W, 0.0), np.arange(341))
    assert dpmo.probabilities(old, 0.13, 1.0, mechanism="exponential")[0] < 0.3


def test_the_last_window_edge_of_an_unresolved_release_falls_with_its_rank():
    """200 nodes, all released degrees 0 at ``x = 0.02`` (epsilon 2): the last round's edge at epsilon 1.46
    is ``0.5 sd (1 - c / 200)``, ``c = s exp(2 x 1.46)`` (``s`` the upper rank of ``ego_window_for(200)``),
    not ``0.5 sd`` (35.4)."""
    import networkx as nx

    g = graphs.load_graph(nx.barabasi_albert_graph(200, 3, seed=1), nodes=200)
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=2.0, top_first=True)
    rounds = appr.rounds(objs, None, "local", None)
    rounds.receive(0, [], np.zeros(rounds.ranks.size), 0.02)
    rounds.begin(2, 1.46)
    c = ego_window_for(200)[1] * math.exp(1.46 * 4.0 / 2.0)
    assert c < 200
    W = RANK_CONFIDENCE * discrete_laplace_sd(0.02)
    assert W == pytest.approx(35.355, abs=1e-3)
    assert rounds._window() == pytest.approx(W * (1.0 - c / 200.0))


def _audit(S, other):
    S, other = np.array(S), np.array(other)
    assert np.abs(S - other).max() > 0.3  # the rule acts
    audit_scores(S)


@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.slow
def test_exact_audit_on_all_graphs_with_five_nodes(sensitivity):
    """Every graph on 5 nodes and every one-edge neighbour, the top-first plan (call's epsilon 1.5) after an
    unresolved release (released degrees 4, 3, 2, 1 at ``x = 0.01``): round 1's scores (epsilon 0.2) and the
    last round's (nodes 0 and 1 picked; epsilon 0.1, where the window's nominal rank is 3.7 of 5; the top
    degree's option off, whose level 26 would cover the window) move by at most 1, the exact
    log-probabilities by at most epsilon, and they differ from those after a resolved release of the same
    degrees (``x = 1``)."""
    for r, chosen, eps in ((0, [], 0.2), (2, [0, 1], 0.1)):

        def score_of(x, objs, cache, r=r, chosen=chosen, eps=eps):
            appr = GraphStaircaseApproach(3, epsilon=1.5, top_first=True)
            appr.epsilon = None if r else 1.5  # the option's gate (the plan is the same)
            return round_scores(appr, objs, sensitivity, cache, r, eps, chosen=chosen, x=x)

        _audit(*scores_on_every_graph((0.01, 1.0), score_of))
