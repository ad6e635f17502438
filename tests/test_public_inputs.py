"""Issue 16: public inputs, no data-dependent refusals, attributes or hangs around the mechanisms.

Neighbouring relation for graphs: edge differential privacy, two graphs *on the same public node set*
that differ in one edge. The node set is declared by the caller (``nodes=``), never read from the edges.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.graphs.nodes import NODES_REQUIRED

# x: the path 0-1-2-3-4; y: x without the edge 3-4 (node 4 becomes isolated): edge neighbours on {0..4}
X_EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
Y_EDGES = X_EDGES[:3]
METHODS = [(a, s) for a in ("agg", "pareto") for s in ("local", "global")]


# ------------------------------------------------------------------------------------------ node set
@pytest.mark.parametrize("approach,sensitivity", METHODS)
@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_leaf_edge_neighbours_on_a_public_node_set_are_within_e_epsilon(
    approach, sensitivity, mechanism, epsilon
):
    """Exact audit: every output probability of top_k(k=1) on x and y within a factor e^epsilon."""
    probs = []
    for edges in (X_EDGES, Y_EDGES):
        g = graphs.load_graph(edges, nodes=5)
        scores, sens = graphs.selection_scores(g, approach=approach, sensitivity=sensitivity)
        probs.append(dpmo.probabilities(scores, epsilon, sens, mechanism=mechanism))
    p, q = probs
    assert p.shape == q.shape == (5,)  # node 4 is a candidate on both (isolated on y)
    assert np.all(p > 0) and np.all(q > 0)
    bound = math.exp(epsilon) * (1 + 1e-9)
    assert np.all(p <= bound * q) and np.all(q <= bound * p)


def test_without_the_public_node_set_the_leaf_disappears_and_the_call_is_refused():
    # what the public node set prevents: on the observed nodes, node 4 exists on x only
    gx = graphs.load_graph(X_EDGES, nodes="observed")
    gy = graphs.load_graph(Y_EDGES, nodes="observed")
    assert 4 in gx.ids and 4 not in gy.ids
    for g in (gx, gy, X_EDGES):
        with pytest.raises(ValueError, match="nodes= is required"):
            graphs.top_k(g, 1, 1.0, approach="agg", sensitivity="local", rng=0)
        with pytest.raises(ValueError, match="nodes= is required"):
            graphs.top_k_two_stage(g, 1, 1.0, candidates=2, rng=0)
        with pytest.raises(ValueError, match="nodes= is required"):
            graphs.two_stage_candidates(g, 1.0, 2, rng=0)
        with pytest.raises(ValueError, match="nodes= is required"):
            graphs.selection_scores(g)
    with pytest.raises(ValueError) as info:
        graphs.load_graph(X_EDGES)
    assert str(info.value) == NODES_REQUIRED and "\n" not in NODES_REQUIRED and "leaf" in NODES_REQUIRED
    # the same calls with the node set run, on either input
    for g in (gx, gy):
        assert graphs.top_k(g, 2, 1.0, nodes=5, rng=0).shape == (2,)
        assert graphs.top_k_two_stage(g, 1, 1.0, candidates=3, nodes=range(5), rng=0).shape == (1,)
        assert graphs.two_stage_candidates(g, 1.0, 5, nodes=5, rng=0).tolist() != []


def test_isolated_nodes_are_candidates_and_may_be_picked():
    g = graphs.load_graph(Y_EDGES, nodes=[0, 1, 2, 3, 4, 7])
    assert g.n_nodes == 6 and g.degree.tolist() == [1, 2, 2, 1, 0, 0]
    scores, sens = graphs.selection_scores(g, approach="agg", sensitivity="global")
    p = dpmo.probabilities(scores, 1.0, sens, mechanism="exponential")
    assert p[-1] > 0 and p[-2] > 0
    picks = {
        int(graphs.top_k(g, 1, 0.01, approach="agg", sensitivity="global", rng=s)[0]) for s in range(200)
    }
    assert {4, 7} <= picks  # the isolated nodes come out at a small epsilon
    assert graphs.top_k(g, 6, 1.0, rng=0).tolist() != [] and set(graphs.top_k(g, 6, 1.0, rng=0)) == {
        0,
        1,
        2,
        3,
        4,
        7,
    }


def test_node_set_forms_and_edges_outside_it():
    a = graphs.load_graph(X_EDGES, nodes=7)
    b = graphs.load_graph(X_EDGES, nodes=np.arange(7)[::-1])
    c = graphs.load_graph(nx.Graph(X_EDGES.tolist()), nodes=7)
    d = graphs.load_graph(nx.to_scipy_sparse_array(nx.path_graph(5)), nodes=5)
    for g in (a, b, c):
        assert g.public_nodes and g.ids.tolist() == list(range(7)) and g.n_edges == 4
    assert d.public_nodes and d.n_nodes == 5
    with pytest.raises(ValueError, match="node 4"):
        graphs.load_graph(X_EDGES, nodes=4)
    with pytest.raises(ValueError, match="node 9"):
        graphs.load_graph(np.array([[0, 9]]), nodes=[0, 1, 2])
    with pytest.raises(ValueError, match="node 4"):
        graphs.load_graph(nx.Graph(X_EDGES.tolist()), nodes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="matrix's size"):
        graphs.load_graph(nx.to_scipy_sparse_array(nx.path_graph(5)), nodes=6)
    with pytest.raises(TypeError, match="nodes"):
        graphs.load_graph(X_EDGES, nodes="all")
    with pytest.raises(ValueError, match="at least 1"):
        graphs.load_graph(X_EDGES, nodes=0)
    with pytest.raises(ValueError, match="duplicates"):
        graphs.load_graph(X_EDGES, nodes=[0, 1, 2, 3, 4, 4])
    # a Graph put on a larger declared node set keeps its edges and gains isolated nodes
    seen = graphs.load_graph(X_EDGES, nodes="observed")
    on7 = graphs.load_graph(seen, nodes=7)
    assert on7.public_nodes and on7.n_nodes == 7 and on7.n_edges == 4 and not seen.public_nodes
    with pytest.raises(ValueError, match="node 4"):
        seen.on_nodes(4)
    # string labels (networkx): the declared labels
    s = graphs.load_graph(nx.Graph([("a", "b")]), nodes=["a", "b", "c"])
    assert s.public_nodes and s.ids.tolist() == ["a", "b", "c"]
