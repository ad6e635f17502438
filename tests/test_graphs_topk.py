"""DP-MOTkIN selection: exact top-k with ties, the Pareto front, and the four private methods."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo import graphs
from dpmo.graphs import load_graph as _load_graph


def load_graph(source, **kw):
    """The test declares the public node set: a networkx graph's nodes, or an edge array's endpoints."""
    if "nodes" not in kw and not isinstance(source, graphs.Graph):
        kw["nodes"] = list(source.nodes()) if hasattr(source, "nodes") else np.unique(np.asarray(source))
    return _load_graph(source, **kw)


METHODS = [("pareto", "global"), ("pareto", "local"), ("agg", "global"), ("agg", "local")]


def _nx_points(G, nodes, low=0.0):
    clust = nx.clustering(G)
    return np.array([[G.degree(v), clust[v] if G.degree(v) >= 2 else low] for v in nodes], dtype=float)


def _brute_pareto_score(P):
    return np.array(
        [-sum(1 for j in range(len(P)) if j != i and np.all(P[j] >= P[i])) for i in range(len(P))]
    )


@pytest.fixture(scope="module")
def karate():
    G = nx.karate_club_graph()
    return G, load_graph(G)


# --------------------------------------------------------------------------------------------------------
# Exact ground truth
# --------------------------------------------------------------------------------------------------------
def test_hand_example_exact_top_k_and_ties():
    # node 0: hub of a star with leaves 1..4 (degree 4, ego density 0)
    # nodes 5, 6, 7: a triangle (degree 2, ego density 1), all tied
    # node 8 - 9: an isolated edge (degree 1, ego density 0 by default)
    edges = [[0, 1], [0, 2], [0, 3], [0, 4], [5, 6], [6, 7], [5, 7], [8, 9]]
    g = load_graph(np.array(edges))
    # Pareto scores (weak dominance): hub 0 is dominated by nobody; triangle nodes dominate each other
    np.testing.assert_array_equal(graphs.pareto_scores(g), [0, -9, -9, -9, -9, -2, -2, -2, -9, -9])
    # score first, then degree, then ego density, then smaller id
    assert graphs.top_k_exact(g, 4, approach="pareto").tolist() == [0, 5, 6, 7]
    # weighted sum 1 * degree + 100 * ego density: triangle nodes 102, hub 4, the rest 1
    assert graphs.top_k_exact(g, 5, approach="agg").tolist() == [5, 6, 7, 0, 1]
    assert graphs.top_k_exact(g, 4, approach="agg", weights=(1.0, 1.0)).tolist() == [0, 5, 6, 7]
    # with leaves at ego density 1 (the published code's convention) the leaves beat the hub on the sum
    assert graphs.top_k_exact(g, 4, approach="agg", low_degree=1.0).tolist() == [5, 6, 7, 1]
    # fronts: pareto dominance keeps the tied triangle, weak dominance (score 0) does not
    assert graphs.pareto_front(g).tolist() == [0, 5, 6, 7]
    assert graphs.pareto_front(g, dominance="weak").tolist() == [0]
    assert graphs.pareto_front(g, dominance="strict").tolist() == [0, 5, 6, 7]


def test_exact_top_k_does_not_depend_on_edge_order():
    G = nx.powerlaw_cluster_graph(300, 3, 0.4, seed=2)
    edges = np.array(list(G.edges()))
    rng = np.random.default_rng(0)
    shuffled = edges[rng.permutation(len(edges))]
    flip = rng.random(len(edges)) < 0.5
    shuffled[flip] = shuffled[flip, ::-1]
    a, b = load_graph(edges), load_graph(shuffled)
    for approach in ("pareto", "agg"):
        for low in (0.0, 1.0):
            assert np.array_equal(
                graphs.top_k_exact(a, 40, approach=approach, low_degree=low),
                graphs.top_k_exact(b, 40, approach=approach, low_degree=low),
            )
    assert np.array_equal(graphs.pareto_front(a), graphs.pareto_front(b))


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(3, 30), p=st.floats(0.05, 0.9), seed=st.integers(0, 10**6), low=st.sampled_from([0.0, 1.0])
)
def test_exact_top_k_and_front_match_brute_force(n, p, seed, low):
    G = nx.gnp_random_graph(n, p, seed=seed)
    g = load_graph(G)
    P = _nx_points(G, range(n), low)
    ps = _brute_pareto_score(P)
    np.testing.assert_array_equal(graphs.pareto_scores(g, low_degree=low), ps)
    key = lambda v: (-ps[v], -P[v, 0], -P[v, 1], v)  # noqa: E731
    assert graphs.top_k_exact(g, n, approach="pareto", low_degree=low).tolist() == sorted(range(n), key=key)
    agg = P[:, 0] * 1.0 + P[:, 1] * 100.0
    key = lambda v: (-agg[v], -P[v, 0], -P[v, 1], v)  # noqa: E731
    assert graphs.top_k_exact(g, n, approach="agg", low_degree=low).tolist() == sorted(range(n), key=key)
    for dominance in ("pareto", "strict", "weak"):
        dom = dpmo.metrics.dominates(P, P, dominance=dominance)
        np.fill_diagonal(dom, False)
        expect = {v for v in range(n) if not dom[:, v].any()}
        assert set(graphs.pareto_front(g, dominance=dominance, low_degree=low).tolist()) == expect
    assert set(graphs.pareto_front(g, dominance="weak", low_degree=low).tolist()) == set(
        np.flatnonzero(ps == 0)
    )


# --------------------------------------------------------------------------------------------------------
# Private selection: validity, equivalence with priv_pareto / priv_agg, and its distribution
# --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("approach,sensitivity", METHODS)
def test_top_k_returns_distinct_original_ids(karate, approach, sensitivity):
    G, _ = karate
    H = nx.relabel_nodes(G, {v: 1000 + 7 * v for v in G})
    h = load_graph(H)
    out = graphs.top_k(h, 5, 2.0, approach=approach, sensitivity=sensitivity, rng=1)
    assert out.shape == (5,) and len(set(out.tolist())) == 5
    assert set(out.tolist()) <= set(H.nodes())
    again = graphs.top_k(h, 5, 2.0, approach=approach, sensitivity=sensitivity, rng=1)
    assert np.array_equal(out, again)
    # a Generator is advanced: two calls give (almost surely) different draws over a few tries
    gen = np.random.default_rng(3)
    draws = {
        tuple(graphs.top_k(h, 5, 2.0, approach=approach, sensitivity=sensitivity, rng=gen)) for _ in range(5)
    }
    assert len(draws) > 1


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip", "laplace", "gumbel"])
def test_top_k_equals_priv_pareto_and_priv_agg(karate, mechanism):
    _, g = karate
    exact = mechanism != "laplace"  # the default (exact) sampler, and the float one for laplace
    for low, formula in ((0.0, "paper"), (1.0, "published")):
        objs = [
            dpmo.Objective(g.degree, 1.0, lambda t: np.ones(g.n_nodes)),
            graphs.ego_density_objective(g, low_degree=low, formula=formula),
        ]
        for seed in range(3):
            for sensitivity in ("local", "global"):
                ours = graphs.top_k(
                    g,
                    3,
                    1.5,
                    approach="pareto",
                    sensitivity=sensitivity,
                    mechanism=mechanism,
                    rng=seed,
                    exact=exact,
                    low_degree=low,
                    formula=formula,
                )
                ref = dpmo.priv_pareto(
                    objs, 1.5, k=3, sensitivity=sensitivity, mechanism=mechanism, rng=seed, exact=exact
                )
                assert ours.tolist() == g.ids[ref].tolist()
                ours = graphs.top_k(
                    g,
                    4,
                    1.5,
                    approach="agg",
                    sensitivity=sensitivity,
                    mechanism=mechanism,
                    rng=seed,
                    exact=exact,
                    low_degree=low,
                    formula=formula,
                    weights=(2.0, 50.0),
                )
                ref = dpmo.priv_agg(
                    objs,
                    (2.0, 50.0),
                    1.5,
                    k=4,
                    sensitivity=sensitivity,
                    mechanism=mechanism,
                    rng=seed,
                    exact=exact,
                )
                assert ours.tolist() == g.ids[ref].tolist()


@pytest.mark.parametrize("approach,sensitivity", METHODS)
def test_first_pick_draws_from_the_audited_scores(karate, approach, sensitivity):
    """top_k(k=1) is dpmo.select on selection_scores: the scores the exhaustive audit checks."""
    _, g = karate
    scores, sens = graphs.selection_scores(g, approach=approach, sensitivity=sensitivity)
    for seed in range(5):
        ours = graphs.top_k(g, 1, 0.7, approach=approach, sensitivity=sensitivity, rng=seed)
        ref = dpmo.select(scores, 0.7, sens, rng=seed, exact=True)  # top_k samples exactly by default
        assert ours.tolist() == g.ids[ref].tolist()
    if approach == "pareto":
        ps = graphs.pareto_scores(g)
        if sensitivity == "global":
            assert sens == g.n_nodes - 1 and np.array_equal(scores, ps)
        else:
            assert sens == 1.0 and np.all(scores <= 0) and np.all(scores[ps == 0] == 0)
    else:
        assert sens == (101.0 if sensitivity == "global" else 1.0)


@pytest.mark.slow
def test_empirical_distribution_matches_exact_probabilities():
    G = nx.Graph([(0, 1), (0, 2), (0, 3), (1, 2), (3, 4), (4, 5), (5, 3), (5, 6)])
    g = load_graph(G)
    eps = 2.0
    scores, sens = graphs.selection_scores(g, approach="agg", sensitivity="local")
    p = dpmo.probabilities(scores, eps, sens, mechanism="exponential")
    gen = np.random.default_rng(11)
    N = 6000
    picks = np.array([graphs.top_k(g, 1, eps, approach="agg", rng=gen)[0] for _ in range(N)])
    freq = np.bincount(g.index(picks), minlength=g.n_nodes) / N
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / N) + 1e-3)


def test_large_epsilon_concentrates_on_the_best_selection_scores(karate):
    _, g = karate
    exact = graphs.top_k_exact(g, 3, approach="agg")
    u = graphs.aggregate_scores(g).values
    out = graphs.top_k(g, 3, 1e5, approach="agg", sensitivity="global", rng=0)
    # node 7 (degree 4, ego density 1: 104) then a random three of the nodes tied at 102
    assert out[0] == exact[0] == 7 and np.all(u[g.index(out[1:])] == 102.0)
    # local dampening does not preserve the order across nodes: D rewards the hubs' small sensitivity,
    # so at large epsilon the local method returns the top of D, not the exact top-k (here 0, 3, 33)
    D, _ = graphs.selection_scores(g, approach="agg", sensitivity="local")
    out = graphs.top_k(g, 3, 1e5, approach="agg", sensitivity="local", rng=0)
    assert sorted(out.tolist()) == sorted(g.ids[np.argsort(-D)[:3]].tolist())
    assert not set(out.tolist()) & set(exact.tolist())
    front = set(graphs.pareto_front(g, dominance="weak").tolist())
    out = graphs.top_k(g, 2, 1e5, approach="pareto", sensitivity="local", rng=0)
    assert set(out.tolist()) <= front


def test_objectives_are_cached_per_convention(karate):
    _, g = karate
    assert graphs.degree_objective(g) is graphs.degree_objective(g)
    a = graphs.ego_density_objective(g)
    b = graphs.ego_density_objective(g, low_degree=1.0)
    assert a is graphs.ego_density_objective(g, low_degree=0.0)
    assert a is not b
    s1 = graphs.selection_scores(g, approach="agg", sensitivity="local")[0]
    s2 = graphs.selection_scores(g, approach="agg", sensitivity="local", weights=(1.0, 10.0))[0]
    assert not np.array_equal(s1, s2)
    assert graphs.selection_scores(g, approach="agg", sensitivity="local")[0] is s1


def test_top_k_accepts_other_graph_forms(tmp_path):
    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4]])
    p = tmp_path / "e.txt"
    np.savetxt(p, edges, fmt="%d")
    outs = []
    for source in (p, str(p), edges, nx.Graph(edges.tolist())):
        with pytest.raises(ValueError, match="nodes= is required"):
            graphs.top_k(source, 2, 1.0, approach="agg", rng=0)
        outs.append(graphs.top_k(source, 2, 1.0, approach="agg", rng=0, nodes=5).tolist())
    assert all(o == outs[0] for o in outs)  # same graph, same public node set, same seed
    # a Graph read with its own nodes ("observed") is refused; declaring the node set fixes it
    seen = graphs.load_graph(edges, nodes="observed")
    with pytest.raises(ValueError, match="nodes= is required"):
        graphs.top_k(seen, 2, 1.0, rng=0)
    assert graphs.top_k(seen, 2, 1.0, approach="agg", rng=0, nodes=5).tolist() == outs[0]
    single = load_graph(np.empty((0, 2), dtype=int), nodes=[42])
    assert graphs.top_k(single, 1, 1.0, rng=0).tolist() == [42]


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"k": 0}, ValueError, "k"),
        ({"k": 35}, ValueError, "k"),
        ({"k": 2.0}, TypeError, "k"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": float("nan")}, ValueError, "epsilon"),
        ({"approach": "sum"}, ValueError, "approach"),
        ({"sensitivity": "smooth"}, ValueError, "sensitivity"),
        ({"mechanism": "laplacian"}, ValueError, "mechanism"),
        ({"weights": (1.0,)}, ValueError, "weights"),
        ({"weights": (1.0, np.inf)}, ValueError, "weights"),
        ({"low_degree": -0.1}, ValueError, "low_degree"),
        ({"formula": "x"}, ValueError, "formula"),
        ({"rng": "seed"}, TypeError, "rng"),
    ],
)
def test_top_k_validation(karate, kwargs, exc, match):
    _, g = karate
    args = {"k": 2, "epsilon": 1.0}
    args.update(kwargs)
    k = args.pop("k")
    eps = args.pop("epsilon")
    with pytest.raises(exc, match=match):
        graphs.top_k(g, k, eps, **args)


def test_top_k_exact_and_front_validation(karate):
    _, g = karate
    with pytest.raises(ValueError, match="k"):
        graphs.top_k_exact(g, 0)
    with pytest.raises(ValueError, match="approach"):
        graphs.top_k_exact(g, 1, approach="x")
    with pytest.raises(ValueError, match="dominance"):
        graphs.pareto_front(g, dominance="x")


@pytest.mark.parametrize(
    "share, exc",
    [(0.0, ValueError), (1.0, ValueError), (-0.5, ValueError), (True, TypeError), ("0.5", TypeError)],
)
def test_two_stage_refuses_a_share_outside_the_open_unit_interval(karate, share, exc):
    _, g = karate
    with pytest.raises(exc, match="degree_share"):
        graphs.top_k_two_stage(g, 2, 1.0, candidates=5, degree_share=share, rng=0)


def test_library_and_cli_share_the_graph_defaults():
    import inspect

    from dpmo import _defaults
    from dpmo.cli import build_parser

    args = build_parser().parse_args(["topk", "g.txt"])
    sig = inspect.signature(graphs.top_k).parameters
    assert args.approach == sig["approach"].default == _defaults.GRAPH_APPROACH == "agg"
    assert args.sensitivity == sig["sensitivity"].default and args.mechanism == sig["mechanism"].default
    assert tuple(args.weights) == sig["weights"].default and args.epsilon == _defaults.EPSILON
    assert inspect.signature(graphs.top_k_exact).parameters["approach"].default == "agg"
    text = " ".join(build_parser()._subparsers._group_actions[0].choices["topk"].format_help().split())
    assert "(default: agg)" in text and "(default: local)" in text


@pytest.mark.parametrize("approach", ["agg", "pareto", "staircase"])
def test_chebyshev_settings_are_refused_by_other_approaches(approach):
    """aspirations=[1, 2, 3] or shares=[1, -1] were silently ignored outside approach='chebyshev'."""
    g = nx.karate_club_graph()
    for setting in ({"aspirations": [1, 2, 3]}, {"shares": [1, -1]}, {"directions": [[1.0, 1.0]]}):
        with pytest.raises(ValueError, match="settings of approach='chebyshev' only"):
            graphs.top_k(g, 2, 1.0, approach=approach, nodes=34, rng=0, **setting)
