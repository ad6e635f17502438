"""PrivChebyshev with public settings on the released graph (``graphs.top_k(approach="chebyshev",
directions=...)`` at large epsilon), and the gated argmax it applies.

Neighbouring relation: edge-level, graphs on the same public node set that differ in one pair (an edge added
or removed). The exact audit computes the law of the picks on every graph with 5 nodes from the flip law of
the randomized response (``_five_node_graphs.released_law``) and checks ``P(picks | G) <= e^epsilon
P(picks | G')`` for every neighbour; a negative control with a quarter of the flip probability fails it.
``top_k`` is checked to draw from that law. At negligible noise the picks are the gated picks of the true
graph (convergent to the settings' exact limit) and no pick is dominated while a non-dominated node is left
(Pareto-consistent).
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from _five_node_graphs import CODES, assert_first_pick_follows, graph, released_law, worst_log_ratio
from dpmo import graphs
from dpmo.chebyshev_gate import gated_argmax_picks
from dpmo.graphs import pair_response as pr
from dpmo.graphs.chebyshev import graph_chebyshev_settings
from dpmo.graphs.chebyshev_fixed import gated_chebyshev_picks

USER = {"directions": [0.3, 0.7], "aspirations": [1.0, 0.0]}  # a user's settings, every round


def _settings(k: int, user: bool):
    if user:
        return USER["directions"], USER["aspirations"]
    W, A, _ = graph_chebyshev_settings(5, k)
    return W, A


# ----------------------------------------------------------------------------------------- the gated argmax
def _dominated(W: np.ndarray) -> np.ndarray:
    """Brute force: column ``r`` dominated by another column (``>=`` everywhere, ``>`` once)."""
    ge = (W[:, :, None] >= W[:, None, :]).all(axis=0)
    gt = (W[:, :, None] > W[:, None, :]).any(axis=0)
    return (ge & gt).any(axis=0)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 3),
    st.integers(1, 14),
    st.integers(0, 2**32 - 1),
    st.integers(1, 14),
    st.integers(1, 4),
)
def test_gated_argmax_takes_new_front_points_then_copies_then_the_dominated(m, n, seed, k, levels):
    """A brute-force reference of the order: among the nodes left, a non-dominated node whose point no
    earlier pick has, then a non-dominated copy of a pick's point, then a dominated node; within the class
    the largest score, ties to the smaller index."""
    rng = np.random.default_rng(seed)
    W = rng.integers(0, levels + 1, size=(m, n)).astype(float)  # few levels: ties and copies
    k = min(k, n)
    S = rng.integers(0, 3, size=(k, n)).astype(float)  # scores with ties too
    got = gated_argmax_picks(W, lambda j: S[j], k).tolist()
    dom = _dominated(W)
    picks: list[int] = []
    for j in range(k):
        left = [r for r in range(n) if r not in picks]
        seen = {tuple(W[:, p]) for p in picks}
        new = [r for r in left if not dom[r] and tuple(W[:, r]) not in seen]
        copies = [r for r in left if not dom[r] and tuple(W[:, r]) in seen]
        cls = new or copies or left
        picks.append(min(cls, key=lambda r: (-S[j, r], r)))
    assert got == picks
    # no pick is dominated while a non-dominated node is left
    assert dom[got].sum() == max(0, k - int((~dom).sum()))


def test_gated_argmax_names_bad_arguments():
    W = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="round_scores"):
        gated_argmax_picks(W, lambda j: np.zeros(3), 1)
    with pytest.raises(ValueError, match="round_scores"):
        gated_argmax_picks(W, lambda j: np.array([np.nan, 0.0]), 1)
    with pytest.raises(ValueError, match="W must be"):
        gated_argmax_picks(np.array([1.0, np.inf]), lambda j: np.zeros(2), 1)
    with pytest.raises(ValueError, match="k"):
        gated_argmax_picks(W, lambda j: np.zeros(2), 3)


# ------------------------------------------------------------------------- exact audit, every 5-node graph
@functools.cache
def _picks_of_every_graph(k: int, user: bool) -> tuple[np.ndarray, int]:
    """The gated Chebyshev picks of every released graph on 5 nodes, as one output number per graph."""
    W, A = _settings(k, user)
    outs: dict[tuple, int] = {}
    out = np.empty(CODES.size, dtype=np.intp)
    for code in CODES:
        h = graph(int(code))
        picks = tuple(gated_chebyshev_picks(h.degree, h.ego_density(), k, W, A, "local").tolist())
        out[code] = outs.setdefault(picks, len(outs))
    return out, len(outs)


@pytest.mark.parametrize(("k", "user"), [(1, True), (2, False)])
def test_exact_audit_on_every_five_node_graph(k, user):
    out, n_out = _picks_of_every_graph(k, user)
    assert n_out > 3  # the picks depend on the graph: the audit is not of a constant
    for eps in (1.0, 3.0):
        law = released_law(out, n_out, pr.flip_probability(eps))
        assert np.allclose(law.sum(axis=1), 1.0)
        assert worst_log_ratio(law) <= eps + 1e-9
        # negative control: a quarter of the rule's flip probability breaks epsilon-DP
        assert worst_log_ratio(released_law(out, n_out, pr.flip_probability(eps) / 4)) > eps + 0.5


def test_top_k_with_settings_draws_from_the_audited_law():
    eps, k, draws = 2.0, 1, 1_000
    assert pr.uses_released_graph(5, eps)
    out, n_out = _picks_of_every_graph(k, True)
    law = released_law(out, n_out, pr.flip_probability(eps))
    first = {}
    for code in CODES:  # output number -> the pick (k = 1)
        h = graph(int(code))
        pick = gated_chebyshev_picks(h.degree, h.ego_density(), k, USER["directions"], USER["aspirations"])
        first.setdefault(int(out[code]), int(pick[0]))
    code = 0b1000111011  # a graph with a triangle and a pendant path
    rng = np.random.default_rng(3)

    def draw() -> int:
        return graphs.top_k(graph(code), k, eps, approach="chebyshev", rng=rng, exact=False, **USER)[0]

    assert_first_pick_follows(law[code], first, draw, draws)


# ---------------------------------------------------------------------------------------- through top_k
def test_settings_check_before_one_release_of_the_whole_epsilon():
    g = graphs.load_graph(nx.barabasi_albert_graph(300, 3, seed=2), nodes=300)
    assert pr.uses_released_graph(300, 20.0)
    b = dpmo.Budget(20.0)
    picks = graphs.top_k(g, 3, 20.0, approach="chebyshev", budget=b, rng=0, exact=True, **USER)
    assert len(b.ledger) == 1 and b.ledger[0].mechanism == "randomized_response"
    assert b.ledger[0].epsilon == 20.0 and b.remaining == 0.0
    assert len(set(picks.tolist())) == 3
    # bad settings are refused before anything is spent
    b2 = dpmo.Budget(20.0)
    with pytest.raises(ValueError, match="directions"):
        graphs.top_k(g, 3, None, approach="chebyshev", budget=b2, rng=0, directions=[[1.0, 0.0]] * 2)
    assert b2.remaining == 20.0 and not b2.ledger
    # below the rule's epsilon the settings' rounds run, one record each
    assert not pr.uses_released_graph(300, 2.0)
    b3 = dpmo.Budget(2.0)
    graphs.top_k(g, 3, 2.0, approach="chebyshev", budget=b3, rng=0, exact=False, shares=[0.2, 0.4, 0.4])
    assert [s.epsilon for s in b3.ledger] == pytest.approx([0.4, 0.8, 0.8])


def _brute_gated(W: np.ndarray, S: list) -> list:
    """The gate's order by brute force: per round, a new front point, then a copy, then a dominated node;
    the largest score within the class, ties to the smaller index."""
    dom, picks = _dominated(W), []
    for s in S:
        left = [r for r in range(W.shape[1]) if r not in picks]
        seen = {tuple(W[:, p]) for p in picks}
        new = [r for r in left if not dom[r] and tuple(W[:, r]) not in seen]
        copies = [r for r in left if not dom[r] and tuple(W[:, r]) in seen]
        picks.append(min(new or copies or left, key=lambda r: (-s[r], r)))
    return picks


def test_each_round_scores_along_its_own_settings():
    """Round j uses direction j and aspiration j: the picks equal the brute-force gate over the private
    rounds' own scores (chebyshev_round_scores, computed from graphs.objectives, not from the statistics),
    and reversing the rounds' settings changes them on this graph (the check is not vacuous)."""
    from dpmo.graphs.chebyshev import chebyshev_round_scores

    g = graphs.load_graph(nx.barabasi_albert_graph(300, 3, seed=2), nodes=300)
    k = 3
    W, A, _ = graph_chebyshev_settings(g.n_nodes, k)
    objs = graphs.objectives(g)
    d, e = g.degree.astype(float), np.asarray(g.ego_density())
    for sensitivity in ("local", "global"):
        S = [chebyshev_round_scores(objs, g.n_nodes, k, j, sensitivity)[0] for j in range(k)]
        got = gated_chebyshev_picks(g.degree, e, k, W, A, sensitivity).tolist()
        assert got == _brute_gated(np.vstack([d, e]), S)
    assert got != gated_chebyshev_picks(g.degree, e, k, W[::-1], A[::-1], sensitivity).tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(8, 50),
    st.integers(0, 2**32 - 1),
    st.integers(1, 8),
    st.booleans(),
    st.sampled_from(["local", "global"]),
    st.floats(0.0, 1.0),
    st.sampled_from([(0.0, "paper"), (1.0, "paper"), (0.0, "published"), (1.0, "published")]),
)
def test_at_negligible_noise_the_settings_picks_are_gated_and_exact(
    n, seed, k, cliques, sensitivity, w, conv
):
    """Pareto-consistent and convergent: at epsilon 1e6, with any public settings and ego-density
    convention, the picks are the gated picks of the true graph (the settings' exact limit), and no pick is
    dominated while a non-dominated node is left."""
    low, formula = conv
    G = nx.gnp_random_graph(n, 4.0 / n, seed=seed)
    if cliques:  # equal points: two cliques of 4 nodes
        G.add_edges_from((a, b) for c in (0, 4) for a in range(c, c + 4) for b in range(a + 1, c + 4))
    g = graphs.load_graph(G, nodes=n)
    k = min(k, n)
    user = {"directions": [w, 1.0 - w] if 0 < w < 1 else [1.0, 1.0], "aspirations": [2.0, 0.0]}
    got = graphs.top_k(
        g, k, 1e6, approach="chebyshev", rng=seed, exact=False, sensitivity=sensitivity,
        low_degree=low, formula=formula, **user,
    )  # fmt: skip
    idx = g.index(got)
    d, e = g.degree, np.asarray(g.ego_density(low_degree=low, formula=formula))
    ref = gated_chebyshev_picks(d, e, k, user["directions"], user["aspirations"], sensitivity, formula)
    assert np.array_equal(idx, ref)
    dom = _dominated(np.vstack([d.astype(float), e]))
    assert len(set(idx.tolist())) == k
    assert dom[idx].sum() == max(0, k - int((~dom).sum()))


def test_gated_chebyshev_picks_name_bad_arguments():
    d, e = np.array([3, 2, 1]), np.array([0.1, 0.5, 1.0])
    with pytest.raises(ValueError, match="directions"):
        gated_chebyshev_picks(d, e, 2, [[1.0, 0.0]] * 3, [0.0, 0.0])
    with pytest.raises(ValueError, match="directions"):
        gated_chebyshev_picks(d, e, 2, [-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="aspirations"):
        gated_chebyshev_picks(d, e, 2, [1.0, 1.0], [0.0, np.nan])
    with pytest.raises(TypeError, match="aspirations"):
        gated_chebyshev_picks(d, e, 2, [1.0, 1.0], ["a", "b"])
    with pytest.raises(ValueError, match="sensitivity"):
        gated_chebyshev_picks(d, e, 2, [1.0, 1.0], [0.0, 0.0], "medium")
    with pytest.raises(ValueError, match="k"):
        gated_chebyshev_picks(d, e, 4, [1.0, 1.0], [0.0, 0.0])
