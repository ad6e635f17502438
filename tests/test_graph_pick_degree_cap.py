"""A pick's duplicates capped at its corners in the graph staircase's later rounds (issue 38: star-clique
below agg at epsilon 5-50; docs/pareto.md, "A pick's duplicates capped at its corners").

At a corner coordinate that is a released pick ``b``'s, a node's excess is capped by exact degree comparisons
with ``b`` (:func:`dpmo.graphs.staircase_corners.pick_degree_caps`): the ego excess by ``|deg(r) - deg(b)|``,
the degree excess by ``deg(r) - deg(b)``. ``b``'s duplicates, which the release's noise (or the floor of ``q
D_ego``) puts above ``b``'s corner, score no more than 0 there. No epsilon is spent on it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from _five_node_graphs import (
    FLIPS,
    audit_scores,
    draw_degrees_and_neighbour,
    round_two_scores,
    scores_on_every_graph,
)
from dpmo import graphs
from dpmo.graphs import staircase_corners
from dpmo.graphs.chebyshev import GraphStaircaseApproach, degree_ranks
from dpmo.graphs.staircase_corners import degree_distance, pick_degree_caps


@settings(max_examples=80)
@given(st.integers(3, 10), st.data())
def test_degree_distance_moves_by_at_most_one_between_edge_neighbours(n, data):
    """Any graph, any one edge added or removed (including an edge at the pick or between the pick and a
    node), any pick: every other node's ``|deg(r) - deg(b)|`` moves by at most 1."""
    pick = data.draw(st.integers(0, n - 1))
    deg, neighbour = draw_degrees_and_neighbour(n, data)
    a, b = degree_distance(deg, pick), degree_distance(neighbour, pick)
    assert np.abs(np.delete(a - b, pick)).max() <= 1.0


def test_pick_degree_caps_match_the_corner_level():
    deg = [5, 3, 5, 9]
    # two picks at the same released ego density: the smaller distance; at another level or the floor: none
    cap = pick_degree_caps(deg, [[7.5, 0.4], [13.5, 0.4], [4.5, 0.7]], [0, 3, 1], 0.4)
    assert cap.tolist() == [0.0, 2.0, 0.0, 0.0]
    assert pick_degree_caps(deg, [[7.5, 0.4]], [1], 0.7) is None
    assert pick_degree_caps(deg, [[7.5, 0.0]], [0], 0.0) is None


def _round_two(objs, pick: int, under: int, cap: bool, call_eps: float = 50.0, k: int = 3):
    """Round 2 of the staircase plan for ``k`` picks at the call's ``call_eps`` after exact releases of the
    degrees of the ranks and of ``pick``'s degree, its ``floor(q D_ego)`` released ``under`` below the exact
    integer. Also used by tests/test_graph_duplicate_gain_cap.py."""
    appr = GraphStaircaseApproach(k, epsilon=call_eps)
    appr.pick_cap = cap
    plan = appr.steps(k, 2)
    rounds = appr.rounds(objs, None, "local", None)
    rounds.receive(0, [], rounds.statistic(0, []), 1e9)
    rounds.begin(0, float(plan[1].share) * call_eps)
    x = float(plan[2].share) * call_eps / 2.0
    rounds.receive(1, [pick], rounds.statistic(1, [pick]) - np.array([0, under]), x)
    eps2 = float(plan[3].share) * call_eps
    rounds.begin(1, eps2)
    rem = np.delete(np.arange(objs[0].n), pick)
    s, sens = rounds.scores([pick], rem)
    assert sens == 1.0
    return dpmo.probabilities(s, eps2, 1.0, mechanism="exponential"), rem


@pytest.mark.parametrize("under", [0, 1, 2])
def test_round_two_takes_the_centre_not_a_duplicate_of_the_clique_pick(star_clique, under):
    """Round 1 took a clique node; its ``floor(D_ego)`` (12 of 12.4) is released as is or 1-2 below. Round 2
    at epsilon 50 puts more than 0.9 of its mass on the centre (0.96), the only node that adds hypervolume;
    the former rounds put at least half on the clique's other 30 nodes (0.49 as released, 0.9997 one
    below: the test fails on the former code)."""
    p, rem = _round_two(star_clique, 1, under, cap=True)
    assert rem[0] == 0 and p[0] > 0.9
    p_old, _ = _round_two(star_clique, 1, under, cap=False)
    assert p_old[1:31].sum() > 0.45 and p_old[0] < 0.55


#: ``(d, floor(q D_ego), x, round 2's epsilon, the call's epsilon)``: node 0 picked and released at degree
#: ``d`` and that integer at the degree part's ``x`` (``q = pick_quantum(x)``: 4 and 10 put the corner's ego
#: level at a quarter or a tenth of a unit, where other nodes of the 5 stand above it)
HISTORIES = ((2, 1, 4.0, 1.2, None), (3, 2, 10.0, 3.0, None), (4, 1, 4.0, 1.2, 5.0), (3, 1, 1.0, 3.0, 5.0))


def _five_node_scores(sensitivity: str, d: int, ego: int, x: float, eps2: float, call_eps, plain_too=True):
    """Round 2's scores on every 5-node graph with the cap, and (``plain_too``) without it (else None)."""

    def score_of(cap, objs, cache):
        appr = GraphStaircaseApproach(3, epsilon=call_eps)
        appr.pick_cap = cap
        return round_two_scores(appr, objs, sensitivity, cache, (d, ego), x, eps2)

    S, *plain = scores_on_every_graph((True, False) if plain_too else (True,), score_of)
    return S, (plain[0] if plain_too else None)


@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.slow
def test_exact_audit_of_round_two_with_the_cap_on_all_graphs_with_five_nodes(sensitivity):
    """Every graph on 5 nodes and every one-edge neighbour, public histories (released degrees of the ranks
    4, 3, 2, 1; node 0 picked and released at ``HISTORIES``, so that its corner has an ego level above the
    floor and below some nodes; round 2 at epsilon 1.2 or 3; with and without the top degree option): every
    score moves by at most 1, the exact log-probabilities of the exponential mechanism and permute-and-flip by
    at most epsilon, and the cap changes some scores (the audit is of the new rounds)."""
    assert degree_ranks(5).tolist() == [1, 2, 4, 5]
    acted = 0.0
    for d, ego, x, eps2, call_eps in HISTORIES:
        S, plain = _five_node_scores(sensitivity, d, ego, x, eps2, call_eps)
        acted = max(acted, float(np.abs(S - plain).max()))
        audit_scores(S, (0.5, 4.0, eps2))
    assert acted > 0.3


@pytest.mark.slow
def test_negative_control_a_doubled_cap_breaks_the_audit(monkeypatch):
    """The cap at ``2 |deg(r) - deg(b)|`` (sensitivity 2): some score moves by more than 1 between
    neighbours, so the audit above can catch a cap of the wrong sensitivity."""
    real = staircase_corners.pick_degree_caps

    def doubled(*a, **k):
        cap = real(*a, **k)
        return None if cap is None else 2.0 * cap

    monkeypatch.setattr(staircase_corners, "pick_degree_caps", doubled)
    worst = 0.0
    for d, ego, x, eps2, call_eps in HISTORIES:  # until one history shows it
        S, _ = _five_node_scores("local", d, ego, x, eps2, call_eps, plain_too=False)
        worst = max(worst, max(np.abs(S - S[f]).max() for f in FLIPS))
        if worst > 1.0 + 1e-9:
            break
    assert worst > 1.0 + 1e-9


def test_no_epsilon_is_spent_on_the_cap():
    """At epsilon 50 (the staircase plan with the ego signal) the records are the plan's six steps, adding up
    to epsilon exactly; the cap reads no release of its own."""
    g = graphs.load_graph(np.array([[0, 1], [1, 2], [0, 2], [2, 3], [3, 4], [4, 5], [0, 5]]), nodes=6)
    budget = dpmo.Budget(50.0)
    ids = graphs.top_k(g, 3, 50.0, approach="staircase", rng=3, budget=budget)
    assert len(set(ids.tolist())) == 3
    assert [r.mechanism for r in budget.ledger] == ["laplace", "exponential"] * 3
    assert budget.spent_exact == Fraction(50)
