"""One pick (``k = 1``) of the graph default (issue 38): the round of :func:`one_pick_scores`.

Exact audits on every graph with 5 nodes (with a negative control), the law's exponential-family form and
the budget-monotone property it gives (exact expectations on generated graphs, hypothesis), and the pick at
negligible noise on graphs with and without triangles."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _five_node_graphs import FLIPS, audit_scores, scores_on_every_graph
from dpmo import graphs
from dpmo.graphs import hypervolume_rounds as hvr
from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.hypervolume_rounds import ONE_PICK_PRIOR_EPSILON, one_pick_scores
from dpmo.graphs.staircase_rules import tie_weight
from dpmo.mechanisms import probabilities_by_row
from dpmo.selection import selection_plan
from test_graph_front_properties import SMALL_GRAPHS, generated

EPSILONS = (0.05, ONE_PICK_PRIOR_EPSILON, 1.0, 8.0)


def _round(objs, sensitivity, eps, cache=None):
    """The one round's scores on ``objs`` at ``eps`` (the plan has no release); asserts sensitivity 1."""
    rounds = GraphStaircaseApproach(1).rounds(objs, None, sensitivity, cache)
    rounds.begin(0, eps)
    s, sens = rounds.scores([], np.arange(objs[0].n))
    assert sens == 1.0
    return s, rounds


def test_the_plan_is_one_round_with_all_of_epsilon():
    plan = selection_plan(GraphStaircaseApproach(1), 1, 2)
    assert [(st.kind, st.share) for st in plan] == [("round", 1.0)]


@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_exact_audit_on_every_graph_with_five_nodes(sensitivity):
    """Every graph on 5 nodes and every one-edge neighbour: every score moves by at most 1 (by more than 0.3
    somewhere), and the exact log-probabilities of the exponential mechanism and permute-and-flip differ by
    at most epsilon, below and above the prior's epsilon."""
    rows = scores_on_every_graph(EPSILONS, lambda eps, objs, cache: _round(objs, sensitivity, eps, cache)[0])
    for eps, S in zip(EPSILONS, rows, strict=True):
        audit_scores(S, epsilons=(eps,))


def test_negative_control_understated_area_sensitivity(monkeypatch):
    """The area divided by 1 instead of its sensitivity 2: some score moves by more than 1 and the audit's
    log-probability ratio exceeds epsilon."""
    monkeypatch.setattr(hvr, "AREA_GAIN_SENSITIVITY", 1.0)
    (S,) = scores_on_every_graph([8.0], lambda eps, objs, cache: _round(objs, "local", eps, cache)[0])
    assert max(np.abs(S - S[f]).max() for f in FLIPS) > 1.2
    with pytest.raises(AssertionError):
        audit_scores(S, epsilons=(8.0,))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 14), p=st.floats(0.1, 0.9), seed=st.integers(0, 2**31 - 1), data=st.data())
def test_scores_move_by_at_most_one_on_larger_random_graphs(n, p, seed, data):
    """Random graphs on 6-14 nodes (degrees beyond the 5-node audit's 4) and their neighbour through one
    drawn pair: every node's score moves by at most 1, below and above the prior's epsilon."""
    G = nx.gnp_random_graph(n, p, seed=seed)
    a, b = data.draw(st.sampled_from([(i, j) for i in range(n) for j in range(i + 1, n)]))
    H = G.copy()
    if H.has_edge(a, b):
        H.remove_edge(a, b)
    else:
        H.add_edge(a, b)
    pair = [graphs.objectives(graphs.load_graph(X, nodes=n)) for X in (G, H)]
    for eps in (0.1, 1.0, 30.0):
        s, t = (_round(objs, "local", eps)[0] for objs in pair)
        assert np.abs(s - t).max() <= 1.0 + 1e-9


def _parts(g):
    """Degrees, ego densities, the objectives, and the round's fixed ``u`` and tie term ``T``."""
    objs = graphs.objectives(g)
    d, e = (np.asarray(o.values, dtype=np.float64) for o in objs)
    n = d.size
    lead = d - d.max()
    u = np.maximum(d * e / hvr.AREA_GAIN_SENSITIVITY, (1.0 + np.maximum(lead, -1.0)) / math.sqrt(n))
    _, rounds = _round(objs, "local", 1.0)
    T = rounds.dampened().sum(axis=0)
    return d, e, objs, u, T


GRAPHS = {name: strategy for name, strategy in SMALL_GRAPHS.items() if name != "k"}  # one pick


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GRAPHS)
def test_the_law_is_one_exponential_family_and_its_mean_never_falls(n, p, seed, family):
    """From the prior's epsilon on, the exponential mechanism's log-weights are ``A + beta(eps) U'`` with
    ``A`` and ``U' = u + rho T`` fixed and ``beta`` increasing; so the exact ``E[U']`` is nondecreasing in
    epsilon, and the expected hypervolume ratio (area over the largest area) falls by at most
    ``2 (theta + 0.75 / n) / g*`` (``theta = 1 / sqrt n``)."""
    g = graphs.load_graph(generated(family, n, p, seed), nodes=n)
    d, e, objs, u, T = _parts(g)
    rho = tie_weight(n)
    U = u + rho * T
    grid = (ONE_PICK_PRIOR_EPSILON, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 200.0)
    a = ONE_PICK_PRIOR_EPSILON / 2.0
    means, ratios, base = [], [], None
    area = d * e
    for eps in grid:
        s, _ = _round(objs, "local", eps)
        logw = eps / 2.0 * s
        beta = (eps / 2.0 - a) / (1.0 + 2.0 * rho)
        A = logw - beta * U
        base = A if base is None else base
        assert np.allclose(A - A.max(), base - base.max(), atol=1e-7 * max(1.0, eps))  # a fixed base measure
        P = probabilities_by_row(s[None, :], eps, 1.0, mechanism="exponential")[0]
        means.append(float(P @ U))
        if area.max() > 0:
            ratios.append(float(P @ area) / area.max())
    assert all(b >= a_ - 1e-9 for a_, b in zip(means, means[1:], strict=False))
    if ratios:
        slack = (1.0 / math.sqrt(n) + 0.75 / n) / (area.max() / 2.0)  # |area / 2 - U'| <= theta + 0.75 / n
        assert all(b >= a_ - slack - 1e-9 for a_, b in zip(ratios, ratios[1:], strict=False))
        assert ratios[-1] > ratios[0] - 1e-9


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 300), p=st.floats(0.01, 0.3), seed=st.integers(0, 2**31 - 1), tree=st.booleans())
def test_without_a_triangle_the_pick_at_negligible_noise_has_the_largest_degree(n, p, seed, tree):
    """Every area is 0 (a bipartite graph or a tree): the front is the largest degree, and the pick at
    epsilon 1e6 has it (the former k = 1 round picked a dominated node there)."""
    if tree:  # node i joined to a random earlier node
        parent = np.random.default_rng(seed).integers(0, np.arange(1, n))
        edges = np.c_[np.arange(1, n), parent]
    else:
        G = nx.bipartite.random_graph(n // 2, n - n // 2, p, seed=seed)
        edges = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    g = graphs.load_graph(edges, nodes=n)
    deg = g.degree
    (pick,) = graphs.top_k(g, 1, 1e6, approach="chebyshev", rng=seed % 997)
    assert deg[pick] == deg.max()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GRAPHS)
def test_at_negligible_noise_the_pick_has_the_largest_area(n, p, seed, family):
    """Epsilon 1e6: the pick's area ``degree x ego density`` is the largest (the greedy hypervolume's first
    step, the best one-point front cover) up to the tie term (``rho T <= 0.75 / n`` in units of area / 2)
    whenever that area is over ``2 theta``; it is never dominated."""
    g = graphs.load_graph(generated(family, n, p, seed), nodes=n)
    d, e, *_ = _parts(g)
    (pick,) = graphs.top_k(g, 1, 1e6, approach="chebyshev", rng=seed % 991)
    dominated = np.any((d >= d[pick]) & (e >= e[pick]) & ((d > d[pick]) | (e > e[pick])))
    assert not dominated
    if (d * e).max() / 2.0 > 1.0 / math.sqrt(n):
        assert d[pick] * e[pick] / 2.0 >= (d * e).max() / 2.0 - 0.75 / n - 1e-12


def test_one_pick_scores_weights():
    """``exp(eps / 2 s) = exp(a c + b u)``: the prior's part ``a = min(eps, 0.2) / 2`` and ``b = eps / 2 -
    a``, worked by hand on three nodes."""
    s = one_pick_scores([10.0, 4.0, 3.0], [0.0, 0.5, 1.0], 10.0, 100, 0.1)  # a = 0.05, b = 0, no clip
    assert np.allclose(s, [0.0, -6.0, -7.0])
    s = one_pick_scores([80.0, 1.0], [0.0, 1.0], 80.0, 100, 2.0)  # a = 0.1, b = 0.9, c clipped at -L
    L = (math.log(100) + 1.0) / 0.1
    assert L < 79
    assert np.allclose(s, [(0.0 + 0.9 * 0.1) / 1.0, (0.1 * -L + 0.9 * 0.5) / 1.0])
