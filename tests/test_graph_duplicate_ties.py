"""Duplicates of the picks at negligible noise, in the graph staircase's tie rule (issue 38; docs/pareto.md,
"Duplicates of the picks at negligible noise").

Once the picks' boxes cover every node (a clique's other nodes after one of them, the other centres of equal
stars after one centre, a Watts-Strogatz graph's front after its distinct points), every hypervolume gain is
0 and only the tie terms separate a duplicate of a pick (Pareto-optimal) from a node the picks dominate. The
duplicates' tie ``u(r) = clip(max_b min(-|deg(r) - deg(b)|, E_b(r)), -1, 0)`` (``E_b`` the dampened ego
density excess over pick ``b``'s released ego density) enters the rule at the weight ``min(x, max(0, 0.01 -
x))``, ``x = 2 (ln n_left + 6) / eps_j``: 0 up to a round epsilon of about 1,300. Neighbouring graphs: the
same public nodes, one edge added or removed.
"""

from __future__ import annotations

import math
from unittest import mock

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _five_node_graphs import CODES, FLIPS, audit_scores, objectives, round_two_scores, scores_on_every_graph
from dpmo import graphs
from dpmo.chebyshev import dampened_excess
from dpmo.graphs import chebyshev as cheb
from dpmo.graphs import hypervolume_rounds as hv
from dpmo.graphs.chebyshev import GraphStaircaseApproach
from dpmo.graphs.hypervolume_rounds import DUPLICATE_TIE_SPAN, duplicate_tie_weight, duplicate_ties


@settings(max_examples=80, deadline=None)
@given(
    deg=st.lists(st.integers(0, 30), min_size=2, max_size=12),
    scale=st.floats(1.0, 30.0),
    data=st.data(),
)
def test_duplicate_ties_by_their_definition(deg, scale, data):
    """Node by node: ``clip(max_b min(deg(r) - deg(b), L E_b(r)), -1, 0)``; 0 for a node with at least a
    pick's degree whose excess over that pick's level is not negative, -1 for a node with fewer edges than
    every pick."""
    n = len(deg)
    picks = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    E = [data.draw(st.lists(st.floats(-5, 5), min_size=n, max_size=n)) for _ in picks]
    out = duplicate_ties(deg, [deg[b] for b in picks], E, scale)
    for r in range(n):
        want = max(min(deg[r] - deg[b], scale * E[j][r]) for j, b in enumerate(picks))
        assert out[r] == pytest.approx(min(max(want, -1.0), 0.0), abs=1e-12)
        if any(deg[r] >= deg[b] and E[j][r] >= 0 for j, b in enumerate(picks)):
            assert out[r] == 0.0
        if all(deg[r] <= deg[b] - 1 for b in picks):
            assert out[r] == -1.0


def test_the_weight_is_zero_unless_the_noise_is_negligible_and_fades():
    """0 at every round epsilon up to ``2 (ln 2 + 20) / DUPLICATE_TIE_SPAN`` (4,138: every call of the
    benchmark's grid and the paper's), ``max(x, floor)`` once ``x <= DUPLICATE_TIE_SPAN / 2`` (``x = 2 (ln
    n + 20) / eps``, a miss at most ``e^-20``), continuous in epsilon, and falling to 0 with ``x`` and the
    floor as epsilon grows (so the rounds still tend to the greedy hypervolume)."""
    assert DUPLICATE_TIE_SPAN == 0.01
    for n in (2, 5, 200, 10_000, 10**6):
        assert duplicate_tie_weight(n, 4138.0) == 0.0 and duplicate_tie_weight(n, 500.0, 1.0) == 0.0
        x = 2.0 * (math.log(n) + 20.0) / 1e6
        assert duplicate_tie_weight(n, 1e6) == pytest.approx(x)
        assert duplicate_tie_weight(n, 1e6, 3 * x) == pytest.approx(3 * x)
        eps = np.geomspace(4e3, 1e10, 600)
        w = np.array([duplicate_tie_weight(n, e) for e in eps])
        assert np.all(np.abs(np.diff(w)) <= 3.0 * DUPLICATE_TIE_SPAN * np.diff(np.log(eps)))  # no jump
        assert w.max() <= DUPLICATE_TIE_SPAN / 2 + 1e-12 and w[-1] < 1e-7
    assert duplicate_tie_weight(200, None) == 0.0 and duplicate_tie_weight(200, 0.0) == 0.0


# ---------------------------------------------------------------------------------- sensitivity, audits
LEVELS = (0.0, 1.0 / 6.0, 1.0 / 3.0, 0.5, 1.0)  # public released ego densities of the pick


@pytest.mark.slow  # about 2 s of CPU each: the whole suite only (the definition's test is fast)
@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_duplicate_ties_move_by_at_most_one_on_every_graph_with_five_nodes(sensitivity):
    """Every graph on 5 nodes, every one-edge neighbour (both directions), every pick ``b`` and every public
    level of its ego density, at the scales ``L`` = 1 and 3: the duplicates' tie of every other node moves by
    at most 1 (the clip to an interval of width 1 keeps it there whatever the scale), and by 1 somewhere;
    without the clip at -1 (the negative control) the scaled term moves by more than 1."""
    U = {}
    for code in CODES:
        deg_obj, ego_obj = objectives(int(code))
        deg = np.asarray(deg_obj.values, dtype=np.float64)
        for level in LEVELS:
            E = dampened_excess(ego_obj, level, sensitivity)
            for b in range(5):
                for L in (1.0, 3.0):
                    U[code, level, b, L] = duplicate_ties(deg, [deg[b]], [E], L)
                unclipped = np.minimum(deg - deg[b], 3.0 * np.asarray(E))  # the control
                U[code, level, b, "control"] = np.minimum(unclipped, 0.0)
    for L in (1.0, 3.0, "control"):
        worst = 0.0
        for level in LEVELS:
            for b in range(5):
                others = np.delete(np.arange(5), b)
                S = np.array([U[c, level, b, L] for c in CODES])
                worst = max(worst, max(float(np.abs(S - S[f])[:, others].max()) for f in FLIPS))
        if L == "control":
            assert worst > 1.0 + 1e-9
        else:
            assert worst == pytest.approx(1.0)


#: round 2 of the staircase plan after node 0 was picked and released as (degree, floor(q D_ego)) at the
#: release's x; round 2's epsilon 20,000 puts the duplicates' tie at weight 0.0021 (2 (ln 4 + 20) / 20,000)
TIE_HISTORIES = (((3, 1), 2000.0), ((2, 0), 2000.0), ((4, 2), 2000.0))
EPS2 = 20_000.0


def _round_two(sensitivity: str):
    def score_of(variant, objs, cache, released=None, x=None):
        appr = GraphStaircaseApproach(3, epsilon=None)
        if variant == "off":
            with mock.patch.object(hv, "duplicate_tie_weight", lambda *a: 0.0):
                return round_two_scores(appr, objs, sensitivity, cache, released, x, EPS2)
        return round_two_scores(appr, objs, sensitivity, cache, released, x, EPS2)

    for released, x in TIE_HISTORIES:
        yield scores_on_every_graph(
            (None, "off"), lambda v, o, c, released=released, x=x: score_of(v, o, c, released, x)
        )


@pytest.mark.slow
@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_exact_audit_of_round_two_with_the_duplicates_tie_on_all_graphs_with_five_nodes(sensitivity):
    """Every graph on 5 nodes and every one-edge neighbour, three public histories with the duplicates' tie
    on: every score moves by at most 1, the exact log-probabilities of the exponential mechanism and
    permute-and-flip by at most epsilon (0.5, 4 and the round's 20,000), and the term changes some score (by
    more than a tenth of its weight)."""
    w = duplicate_tie_weight(4, EPS2)
    assert 0.002 < w < 0.005
    acted = 0.0
    for S, off in _round_two(sensitivity):
        acted = max(acted, float(np.abs(S - off).max()))
        audit_scores(S, (0.5, 4.0, EPS2))
    assert acted > 0.1 * w


# ------------------------------------------------------------------------------------ what it is for
def _cliques(a: int, pad: int = 0) -> graphs.Graph:
    """Cliques of ``a`` and ``a - 1`` nodes, a 30-node path and (``pad``) a G(pad, 3 / pad) graph: the
    larger clique's ``a`` nodes are the whole front (one point), every other node is dominated."""
    parts = [nx.complete_graph(a), nx.complete_graph(a - 1), nx.path_graph(30)]
    if pad:
        parts.append(nx.gnp_random_graph(pad, 3.0 / pad, seed=1))
    g = nx.disjoint_union_all(parts)
    return graphs.load_graph(g, nodes=g.number_of_nodes())


def _equal_stars(leaves: int = 20, rest: int = 1000) -> graphs.Graph:
    """Three stars of ``leaves`` leaves and a random tree of ``rest`` nodes (maximum degree below
    ``leaves``): no triangle, every ego density 0, the three centres the whole front (one point)."""
    g = nx.disjoint_union_all([nx.star_graph(leaves)] * 3 + [nx.random_labeled_tree(rest, seed=3)])
    assert max(d for _, d in g.degree()) == leaves
    return graphs.load_graph(g, nodes=g.number_of_nodes())


def _outside(g, k: int, front: set, seeds=range(12), off: bool = False) -> int:
    """Picks outside ``front`` over ``seeds`` at epsilon 1e6 (``off``: the duplicates' tie switched off)."""
    ctx = mock.patch.object(hv, "duplicate_tie_weight", lambda *a: 0.0) if off else mock.MagicMock()
    with ctx:
        picks = [graphs.top_k(g, k, 1e6, approach="staircase", rng=s, exact=False) for s in seeds]
    return sum(int(v) not in front for p in picks for v in p)


@pytest.mark.parametrize("a,pad", [(10, 0), (20, 1000)])
def test_no_dominated_pick_at_negligible_noise_on_cliques_of_two_sizes(a, pad):
    """k = 5, epsilon 1e6: every pick is a node of the larger clique (the front); with the duplicates' tie
    switched off (the former rule) some pick is not (the test fails on the former code)."""
    g = _cliques(a, pad)
    assert _outside(g, 5, set(range(a))) == 0
    assert _outside(g, 5, set(range(a)), off=True) > 0


def test_no_dominated_pick_at_negligible_noise_on_equal_stars():
    """k = 3, epsilon 1e6, three equal stars in a 1,063-node forest: the picks are the three centres (the
    former rule took one centre, then nodes of any degree: every gain and corner score is 0)."""
    g = _equal_stars()
    centres = {0, 21, 42}
    assert _outside(g, 3, centres) == 0
    assert _outside(g, 3, centres, off=True) > 0


def test_no_law_changes_below_a_round_epsilon_of_4138(monkeypatch):
    """The benchmark's and the paper's epsilons: the same picks with the term's code path removed."""
    g = _cliques(8)
    calls = []
    real = hv.duplicate_tie_weight
    monkeypatch.setattr(hv, "duplicate_tie_weight", lambda *a: calls.append(real(*a)) or 0.0)
    with_off = [
        graphs.top_k(g, 3, e, approach="staircase", rng=s, exact=False) for e in (50, 500) for s in range(4)
    ]
    assert calls and max(calls) == 0.0
    monkeypatch.setattr(hv, "duplicate_tie_weight", real)
    shipped = [
        graphs.top_k(g, 3, e, approach="staircase", rng=s, exact=False) for e in (50, 500) for s in range(4)
    ]
    assert all(np.array_equal(a, b) for a, b in zip(with_off, shipped, strict=True))


def test_the_weak_round_resolves_the_largest_degree_at_negligible_noise():
    """A weak round 1 (``min(degree - W_1, 0)``) at epsilon 1e6 on a 7-node bipartite graph whose largest
    degree (4) leads by one edge: ``weak_round_epsilon`` keeps ``2 (ln n + 20) / lead`` (a miss at most
    ``e^-20``) once that is at most a thousandth of the round's part, so the first pick is always the largest
    degree; at :func:`top_degree_epsilon` (the former rule, about 5.9 here) it misses about one call in five.
    Below a call's epsilon of about 10^5 the rule is the former one."""
    from dpmo.graphs import round_one
    from dpmo.graphs.staircase_rules import top_degree_epsilon

    assert round_one.weak_round_epsilon(200, 1.0, 50.0) == top_degree_epsilon(200, 1.0)
    assert round_one.weak_round_epsilon(200, 1.0, 1e5) == pytest.approx(2 * (math.log(200) + 20), abs=1e-3)
    assert round_one.weak_round_epsilon(200, 4.0, 1e5) == pytest.approx((math.log(200) + 20) / 2, abs=1e-3)
    G = nx.Graph([(0, 1), (1, 2), (1, 4), (1, 6), (3, 0), (3, 2), (3, 4), (5, 0), (5, 2), (5, 6)])
    g = graphs.load_graph(G, nodes=7)
    assert [d for _, d in sorted(G.degree())] == [3, 4, 3, 3, 2, 3, 2]

    def first_picks():
        return [int(graphs.top_k(g, 2, 1e6, approach="staircase", rng=s, exact=False)[0]) for s in range(200)]

    assert first_picks().count(1) == 200
    with mock.patch.object(cheb, "weak_round_epsilon", lambda n, lead, part: top_degree_epsilon(n, lead)):
        assert first_picks().count(1) < 190
