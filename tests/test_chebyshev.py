"""PrivChebyshev: exact audit on all graphs with 5 nodes, the graph defaults, contract and bad inputs."""

from __future__ import annotations

import functools
from itertools import combinations

import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.chebyshev import chebyshev_scores, default_directions, priv_chebyshev
from dpmo.graphs.chebyshev import chebyshev_round_scores, graph_chebyshev_settings
from dpmo.graphs.chebyshev_fixed import released_chebyshev_picks
from dpmo.graphs.pair_response import released_graph_picks, uses_released_graph
from dpmo.mechanisms import probabilities_by_row

PAIRS = list(combinations(range(5), 2))


@functools.cache
def five_node_scores(formula: str, low: float, sensitivity: str):
    """Scores of the three rounds of the graph default (n = 5, k = 3) and of two other rounds, per graph."""
    rounds = [*range(3)]
    extra = [([1.0, 3.0], [1.0, 0.0]), ([0.0, 1.0], [0.0, 0.5])]
    out = np.zeros((1 << len(PAIRS), len(rounds) + len(extra), 5))
    for code in range(1 << len(PAIRS)):
        edges = np.array([PAIRS[p] for p in range(len(PAIRS)) if (code >> p) & 1], dtype=np.int64).reshape(
            -1, 2
        )
        g = graphs.Graph.from_edges(edges, nodes=np.arange(5))
        objs = graphs.objectives(g, low_degree=low, formula=formula)
        for j in rounds:
            s, sens = chebyshev_round_scores(objs, 5, 3, j, sensitivity)
            assert sens == 1.0
            out[code, j] = s
        for e, (w, a) in enumerate(extra):
            out[code, len(rounds) + e] = chebyshev_scores(objs, w, a, sensitivity)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.parametrize("formula,low", [("paper", 0.0), ("published", 1.0)])
def test_exact_audit_all_graphs_with_five_nodes(formula, low, sensitivity):
    """Every graph on 5 nodes, every one-edge neighbour (same node set): each round's scores move by at most
    1, and the exact output log-probabilities of the exponential mechanism and permute-and-flip differ by
    at most epsilon, on all nodes and on every set of remaining nodes (later rounds)."""
    S = five_node_scores(formula, low, sensitivity)
    codes = np.arange(S.shape[0])
    flips = [codes ^ (1 << p) for p in range(len(PAIRS))]
    worst_change = max(np.abs(S - S[f]).max() for f in flips)
    assert worst_change <= 1.0 + 1e-9
    assert worst_change > 0.3  # not vacuous
    subsets = [list(c) for r in (2, 5) for c in combinations(range(5), r)]
    for mechanism in ("exponential", "permute_and_flip"):
        for eps in (0.5, 4.0):
            for j in range(S.shape[1]):
                for sub in subsets:
                    rows, inv = np.unique(S[:, j][:, sub], axis=0, return_inverse=True)
                    lp = probabilities_by_row(rows, eps, 1.0, mechanism=mechanism, log=True)[inv.ravel()]
                    worst = max(np.abs(lp - lp[f]).max() for f in flips)
                    assert worst <= eps + 1e-9, (j, sub, worst)


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_negative_control_understated_sensitivity():
    S = five_node_scores("paper", 0.0, "local")
    codes = np.arange(S.shape[0])
    bad = 3.0 * S[:, 1]  # as if the round's sensitivity were 1/3 of the truth
    lp = probabilities_by_row(bad, 4.0, 1.0, mechanism="exponential", log=True)
    worst = max(np.abs(lp - lp[codes ^ (1 << p)]).max() for p in range(len(PAIRS)))
    assert worst > 4.0


def test_top_k_equals_priv_chebyshev_and_settings_are_public():
    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 5], [5, 3], [0, 6], [6, 7]])
    # 40 public nodes (32 without edges): at epsilon 1 a node's expected false edges are 10.5, above the
    # released graph's rule, so the settings' rounds run
    big = graphs.load_graph(edges, nodes=40)
    assert not uses_released_graph(big.n_nodes, 1.0)
    objs = graphs.objectives(big)
    W, A, S = graph_chebyshev_settings(big.n_nodes, 3)
    g = graphs.load_graph(edges, nodes=8)
    for seed in range(5):
        ids = graphs.top_k(big, 3, 1.0, approach="chebyshev", shares=S, rng=seed)  # the fixed settings
        idx = priv_chebyshev(objs, 1.0, k=3, directions=W, aspirations=A, shares=S, rng=seed)
        np.testing.assert_array_equal(ids, big.ids[idx])
        assert len(set(ids.tolist())) == 3
        # 8 nodes, epsilon 1 (a node's expected false edges 1.9): the released graph, without settings its
        # greedy picks, with settings the gated picks along them (docs/pareto.md, "The released graph at
        # large epsilon")
        assert uses_released_graph(g.n_nodes, 1.0)
        np.testing.assert_array_equal(
            graphs.top_k(g, 3, 1.0, approach="chebyshev", rng=seed),
            g.ids[released_graph_picks(g, 3, 1.0, rng=seed)],
        )
        W8, A8, S8 = graph_chebyshev_settings(g.n_nodes, 3)
        np.testing.assert_array_equal(
            graphs.top_k(g, 3, 1.0, approach="chebyshev", shares=S8, rng=seed),
            g.ids[released_chebyshev_picks(g, 3, 1.0, directions=W8, aspirations=A8, rng=seed)],
        )
    assert S.sum() == pytest.approx(1.0) and W[0].tolist() == [1.0, 0.0]
    np.testing.assert_allclose(A[1:, 0], [2 * 40**0.5, 2 * 40**0.25])


def test_contract_and_reproducibility():
    rng = np.random.default_rng(0)
    objs = [dpmo.Objective(rng.integers(0, 50, 30), 1.0, name="a"), dpmo.Objective(rng.random(30), 1.0)]
    a = priv_chebyshev(objs, 2.0, k=5, rng=1)
    b = priv_chebyshev(objs, 2.0, k=5, rng=1)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (5,) and len(set(a.tolist())) == 5
    assert sorted(priv_chebyshev(objs, 1.0, k=30, rng=2).tolist()) == list(range(30))
    # a huge epsilon picks the argmax of each round's scores (global: no dampening)
    W = np.array([[1.0, 0.0], [0.0, 1.0]])
    out = priv_chebyshev(objs, 1e6, k=2, directions=W, sensitivity="global", rng=3)
    assert out[0] == np.argmax(objs[0].values)
    assert out[1] == np.argmax(np.where(np.arange(30) == out[0], -np.inf, objs[1].values))


def test_default_directions():
    np.testing.assert_allclose(default_directions(3, 2), [[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    np.testing.assert_allclose(default_directions(7, 2)[:3], default_directions(3, 2))  # a prefix
    np.testing.assert_allclose(default_directions(2, 1), [[1], [1]])
    for k in (1, 2, 5, 10):
        D = default_directions(k, 3)
        assert D.shape == (k, 3) and np.allclose(D.sum(axis=1), 1.0)
        assert np.all(D > 0)  # interior: every objective counts in every round
        assert len({tuple(r) for r in D}) == k
        np.testing.assert_allclose(D, default_directions(12, 3)[:k])
    np.testing.assert_allclose(default_directions(1, 3), [[1 / 3, 1 / 3, 1 / 3]])


def test_pipeline_approach_equals_priv_chebyshev_with_equal_shares():
    from dpmo.selection import select_multiobjective

    rng = np.random.default_rng(4)
    objs = [dpmo.Objective(rng.integers(0, 30, 40), 1.0), dpmo.Objective(rng.random(40), 1.0)]
    for sens in ("local", "global"):
        for seed in range(3):
            a = select_multiobjective(objs, 1.5, approach="chebyshev", sensitivity=sens, k=4, rng=seed)
            b = priv_chebyshev(objs, 1.5, k=4, sensitivity=sens, rng=seed)
            np.testing.assert_array_equal(a, b)
    budget = dpmo.Budget(2.0)
    select_multiobjective(objs, 1.0, approach="chebyshev", k=3, rng=0, budget=budget)
    assert budget.spent == pytest.approx(1.0) and len(budget.ledger) == 3


def test_bad_inputs():
    objs = [dpmo.Objective([1.0, 2.0, 3.0], 1.0), dpmo.Objective([3.0, 2.0, 1.0], 1.0)]
    with pytest.raises(ValueError, match="directions"):
        priv_chebyshev(objs, 1.0, k=2, directions=[[1, 0]])
    with pytest.raises(ValueError, match="non-negative"):
        priv_chebyshev(objs, 1.0, directions=[-1, 1])
    with pytest.raises(ValueError, match="positive entry"):
        priv_chebyshev(objs, 1.0, directions=[0, 0])
    with pytest.raises(ValueError, match="shares"):
        priv_chebyshev(objs, 1.0, k=2, shares=[0.5, 0.6])
    with pytest.raises(ValueError, match="aspirations"):
        priv_chebyshev(objs, 1.0, aspirations=[np.nan, 0])
    with pytest.raises(ValueError, match="epsilon"):
        priv_chebyshev(objs, 0.0)
    with pytest.raises(ValueError, match="approach"):
        graphs.top_k(np.array([[0, 1]]), 1, 1.0, approach="nope", nodes=2)


def test_one_pipeline_records_the_shares_of_every_chebyshev_entry_point():
    """priv_chebyshev and graphs.top_k(approach="chebyshev") run in select_multiobjective: the ledger
    has one record per round, in order, with the exact parts of the public shares, summing to epsilon."""
    from fractions import Fraction

    from dpmo.chebyshev import ChebyshevApproach
    from dpmo.selection import select_multiobjective

    rng = np.random.default_rng(5)
    objs = [dpmo.Objective(rng.integers(0, 30, 25), 1.0), dpmo.Objective(rng.random(25), 1.0)]
    shares = [0.1, 0.2, 0.3, 0.4]
    b = dpmo.Budget(1.0)
    picks = priv_chebyshev(objs, 0.7, k=4, shares=shares, rng=0, budget=b)
    want = [Fraction("0.7") * Fraction(x) for x in shares[:3]]
    want.append(Fraction("0.7") - sum(want))
    assert [r.epsilon for r in b.ledger] == want and b.spent == 0.7
    assert all(r.what.startswith(f"priv_chebyshev: round {j + 1} of 4") for j, r in enumerate(b.ledger))
    # the same call through the pipeline with the configured approach: the same picks, seed for seed
    appr = ChebyshevApproach(shares=shares)
    np.testing.assert_array_equal(select_multiobjective(objs, 0.7, approach=appr, k=4, rng=0), picks)
    # without shares: exactly epsilon / k per round
    b = dpmo.Budget(1.0)
    priv_chebyshev(objs, 0.7, k=3, rng=0, budget=b)
    assert [r.epsilon for r in b.ledger] == [Fraction("0.7") / 3] * 3 and b.spent == 0.7
    # graphs with the fixed settings: the graph's public shares (0.1 for the degree round, equal parts of
    # the rest); the staircase's records are tested in tests/test_staircase.py
    # (40 public nodes: below the released graph's rule at epsilon 1)
    g = graphs.load_graph(np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4]]), nodes=40)
    b = dpmo.Budget(1.0)
    W = graph_chebyshev_settings(40, 3)[0]
    graphs.top_k(g, 3, 1.0, approach="chebyshev", directions=W, rng=0, budget=b)
    parts = [float(r.epsilon) for r in b.ledger]
    assert parts == pytest.approx([0.1, 0.45, 0.45]) and b.spent == 1.0
    assert all(r.what.startswith("top_k: round") for r in b.ledger)


def test_bad_chebyshev_settings_are_refused_before_any_spend():
    from dpmo.chebyshev import ChebyshevApproach
    from dpmo.selection import select_multiobjective

    objs = [dpmo.Objective([1.0, 2.0, 3.0], 1.0), dpmo.Objective([3.0, 2.0, 1.0], 1.0)]
    b = dpmo.Budget(1.0)
    for bad in (
        dict(shares=[0.5, 0.6]),
        dict(shares=[1.0]),
        dict(directions=[[1, 0]]),
        dict(aspirations=[[0, 0, 0]]),
    ):
        with pytest.raises(ValueError, match="shares|directions|aspirations"):
            select_multiobjective(objs, 0.5, approach=ChebyshevApproach(**bad), k=2, budget=b)
    assert b.ledger == () and b.spent == 0.0
    # a static approach (the aggregate draws its k picks at once) takes equal shares only
    from dpmo.selection import get_approach

    class Unequal(type(get_approach("agg"))):
        def round_shares(self, k, m):
            return np.full(k, 1.0 / k)

    with pytest.raises(ValueError, match="equal shares"):
        select_multiobjective(objs, 0.5, approach=Unequal(), weights=[1, 1], k=2, budget=b)
    assert b.spent == 0.0
