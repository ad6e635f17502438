"""The hypervolume gain in the graph staircase's rounds (issue 38, convergence): the area gain against its
definition, its global sensitivity 2 by brute force (every graph on 5 nodes and every one-edge neighbour, both
directions; random graphs on 6-12 nodes), exact audits of the blended round with a negative control, the
public rule ``t``, and the picks at negligible noise as greedy hypervolume steps (hypothesis)."""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _five_node_graphs import CODES, FLIPS, distinct_objectives, objectives
from dpmo import graphs
from dpmo.graphs import chebyshev as cheb
from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.hypervolume_rounds import AREA_GAIN_SENSITIVITY, blend_weight, staircase_area_gains
from dpmo.greedy_hypervolume import hypervolume_gains
from dpmo.hypervolume import hypervolume
from dpmo.mechanisms import probabilities_by_row
from dpmo.selection import SelectionCache
from test_graph_front_properties import CONVENTIONS, SMALL_GRAPHS, generated
from test_staircase import replay_history

# public staircases (released (degree, ego density) of earlier picks), including none
STAIRCASES = [
    np.zeros((0, 2)),
    np.array([[2.0, 1.0]]),
    np.array([[3.0, 1.0 / 3.0]]),
    np.array([[4.0, 0.25], [2.5, 0.6]]),
    np.array([[1.5, 0.5], [3.5, 0.2], [0.5, 1.0]]),
    np.array([[6.0, 0.1], [1.0, 0.9]]),
]


@functools.cache
def _values(formula: str, low: float) -> np.ndarray:
    """(1024, 5, 2): every graph's (degree, ego density) per node."""
    out = []
    for c in CODES:
        objs = objectives(c, low, formula)
        d, e = (np.asarray(o.values, dtype=np.float64) for o in objs)
        out.append(np.c_[d, e])
    return np.array(out)


@settings(max_examples=60, deadline=None)
@given(
    pts=st.lists(st.tuples(st.floats(0, 20), st.floats(0, 1)), max_size=5),
    cands=st.lists(st.tuples(st.floats(0, 20), st.floats(0, 1)), min_size=1, max_size=8),
)
def test_area_gains_match_the_hypervolume_definition(pts, cands):
    P, Q = np.array(pts).reshape(-1, 2), np.array(cands)
    want = hypervolume_gains(P, Q, [0.0, 0.0])
    np.testing.assert_allclose(staircase_area_gains(P, Q[:, 0], Q[:, 1]), want, atol=1e-9)


@pytest.mark.parametrize("formula,low,bound", [("paper", 0.0, 2.0), ("paper", 1.0, 2.0),
                                               ("published", 0.0, 1.0), ("published", 1.0, 1.0)])  # fmt: skip
def test_area_gain_sensitivity_on_every_graph_with_five_nodes(formula, low, bound):
    """For every public staircase, every node's area gain moves by at most the proven bound (2 for the
    paper's ego density, 1 for the published one) between every graph on 5 nodes and each of its one-edge
    neighbours (the flips cover both directions), and the bound is reached (it is exact)."""
    X = _values(formula, low)
    worst = 0.0
    for P in STAIRCASES:
        G = np.array([staircase_area_gains(P, x[:, 0], x[:, 1]) for x in X])  # (1024, 5)
        worst = max(worst, max(np.abs(G - G[f]).max() for f in FLIPS))
    assert worst <= bound + 1e-12
    assert worst == pytest.approx(bound)
    assert bound <= AREA_GAIN_SENSITIVITY


def test_area_gain_sensitivity_on_random_graphs():
    """Random graphs on 6-12 nodes, a random edge added or removed, random public staircases: the gain of
    every node moves by at most 2 (the degree-d node of ego density 1 losing a triangle-free neighbour and
    the triangle-free node gaining one adjacent to all its neighbours come closest)."""
    rng = np.random.default_rng(38)
    worst = 0.0
    for _ in range(300):
        n = int(rng.integers(6, 13))
        G = nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.9)), seed=int(rng.integers(2**31)))
        u, v = rng.choice(n, 2, replace=False)
        H = G.copy()
        if H.has_edge(u, v):
            H.remove_edge(u, v)
        else:
            H.add_edge(u, v)
        P = np.c_[rng.uniform(0, n, 3), rng.uniform(0, 1, 3)][: int(rng.integers(0, 4))]
        gains = []
        for F in (G, H):
            d, e = (np.asarray(o.values, float) for o in graphs.objectives(graphs.load_graph(F, nodes=n)))
            gains.append(staircase_area_gains(P, d, e))
        worst = max(worst, np.abs(gains[0] - gains[1]).max())
    assert 0.5 < worst <= AREA_GAIN_SENSITIVITY + 1e-12


def test_blend_weight_is_one_at_the_papers_budgets_and_falls_to_zero():
    """``t = 1`` in every round of the plan on the paper's graphs (n = 36,692 and 37,700, k = 3) at epsilon
    up to 50, so nothing changes there; ``t`` falls as ``1 / epsilon`` beyond, is > 0, and 1 without an
    epsilon."""
    for n in (36_692, 37_700):
        for eps in (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0):
            appr = GraphStaircaseApproach(3, epsilon=eps)
            rounds = [s for s in appr.steps(3, 2) if s.kind == "round"]
            for j, s in enumerate(rounds):
                assert blend_weight(n - j, s.share * eps) == 1.0
    ts = [blend_weight(1000, e) for e in (10.0, 100.0, 1e3, 1e4, 1e6)]
    assert ts[0] == 1.0 and all(a > b > 0 for a, b in zip(ts, ts[1:], strict=False)) and ts[-1] < 1e-4
    assert blend_weight(1000, None) == 1.0
    assert blend_weight(1000, 400.0) == pytest.approx(2 * (np.log(1000) + 1) / 400)


# ------------------------------------------------------------------------------ exact audits of the round
# Public histories on 5 nodes (k = 3): released degrees of the ranks 1, 2, 4, 5; per earlier pick (pick,
# released degree, released floor(dampened ego density)); the round's epsilon (t < 1 in every one).
HISTORIES = [
    ((4, 3, 2, 1), [], 40.0),  # round 1: g = degree x ego density, t = 0.13
    ((3, 3, 1, 0), [(0, 3, 1)], 8.0),  # t = 0.60
    ((4, 2, 2, 0), [(1, 1, 0)], 30.0),  # a low released box: most gains over it are positive
    ((4, 2, 2, 0), [(1, 4, 0), (3, 1, 1)], 100.0),  # t = 0.04
    ((4, 2, 2, 0), [(1, 5, 0), (3, 2, 0)], 100.0),  # boxes of area 0 (the released ego densities 0)
]


def _round(objs, sensitivity, formula, history, cache, gain_sensitivity=None):
    r, chosen, remaining = replay_history(objs, sensitivity, formula, history, cache=cache)
    assert blend_weight(5 - len(chosen), history[2]) < 1.0
    if gain_sensitivity is None:
        s, sens = r.scores(chosen, remaining)
        assert sens == 1.0
        return s
    old = cheb.AREA_GAIN_SENSITIVITY  # the negative control: the gain's sensitivity understated
    cheb.AREA_GAIN_SENSITIVITY = gain_sensitivity
    try:
        return r.scores(chosen, remaining)[0]
    finally:
        cheb.AREA_GAIN_SENSITIVITY = old


@functools.cache
def _five_node_scores(sensitivity, formula, low, gain_sensitivity=None):
    out = [[] for _ in HISTORIES]
    reps, group = distinct_objectives(low, formula)  # a row per distinct objectives, copied to their codes
    for objs in reps:
        cache = SelectionCache(objs)
        for h, history in enumerate(HISTORIES):
            out[h].append(_round(objs, sensitivity, formula, history, cache, gain_sensitivity))
    return [np.array(S)[group] for S in out]


def _worst_log_ratio(S, eps):
    rows, inv = np.unique(S, axis=0, return_inverse=True)
    lp = probabilities_by_row(rows, eps, 1.0, mechanism="exponential", log=True)
    lp = lp[inv.ravel()]
    return max(np.abs(lp - lp[f]).max() for f in FLIPS)


@pytest.mark.parametrize("sensitivity,formula,low", CONVENTIONS)
def test_exact_audit_of_the_blended_round_on_every_graph_with_five_nodes(sensitivity, formula, low):
    """Every graph on 5 nodes and every one-edge neighbour, four public histories with ``t < 1``: every
    score ``tie((1 - t) g / 2 + t s_corner)`` moves by at most 1 (more than 0.3 somewhere) and the exact
    log-probabilities of the exponential mechanism differ by at most epsilon."""
    for S in _five_node_scores(sensitivity, formula, low):
        change = max(np.abs(S - S[f]).max() for f in FLIPS)
        assert 0.3 < change <= 1.0 + 1e-9
        for eps in (0.5, 4.0):
            assert _worst_log_ratio(S, eps) <= eps + 1e-9


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_negative_control_understated_gain_sensitivity():
    """The gain divided by 1 instead of its sensitivity 2: some score moves by more than 1 between
    neighbours and the exponential mechanism's log-probabilities by more than epsilon (the audit catches
    it)."""
    scores = _five_node_scores("local", "paper", 0.0, gain_sensitivity=1.0)
    assert max(max(np.abs(S - S[f]).max() for f in FLIPS) for S in scores) > 1.5
    assert max(_worst_log_ratio(S, 4.0) for S in scores) > 4.0 + 1e-6


# ---------------------------------------------------------------------------- convergence (negligible noise)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SMALL_GRAPHS)
def test_picks_at_negligible_noise_are_greedy_hypervolume_steps(n, p, k, seed, family):
    """At epsilon 1e6 every pick of the default adds the largest area (degree x ego density, reference the
    origin) to the earlier picks' boxes among all nodes, as long as some node adds any: the greedy
    hypervolume picks up to exact ties; and their hypervolume is that of ``top_k_exact``'s greedy picks when
    no round has a tie."""
    g = graphs.load_graph(generated(family, n, p, seed), nodes=n)
    d, e = (np.asarray(o.values, dtype=np.float64) for o in graphs.objectives(g))
    picks = graphs.top_k(g, k, 1e6, approach="chebyshev", rng=seed % 1000, exact=False)
    X = np.c_[d, e]
    P = np.zeros((0, 2))
    tied = False
    for v in picks:
        gains = staircase_area_gains(P, d, e)
        best = gains.max()
        if best <= 1e-12:
            break
        assert gains[v] >= best - 1e-9, (P.tolist(), X[v].tolist(), best)
        tied |= np.unique(X[gains >= best - 1e-9], axis=0).shape[0] > 1  # distinct values tie
        P = np.vstack([P, X[v]])
    if not tied and len(P):
        ref = graphs.top_k_exact(g, k, approach="chebyshev")[: len(P)]
        assert hypervolume(P, np.zeros(2)) == pytest.approx(hypervolume(X[ref], np.zeros(2)))
