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
    # refused without naming the node outside (an edge is private)
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes"):
        graphs.load_graph(X_EDGES, nodes=4)
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes") as err:
        graphs.load_graph(np.array([[0, 9]]), nodes=[0, 1, 2])
    assert "9" not in str(err.value)
    with pytest.raises(ValueError, match="the graph holds a node that is not in nodes"):
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
    with pytest.raises(ValueError, match="the graph holds a node that is not in nodes"):
        seen.on_nodes(4)
    # string labels (networkx): the declared labels
    s = graphs.load_graph(nx.Graph([("a", "b")]), nodes=["a", "b", "c"])
    assert s.public_nodes and s.ids.tolist() == ["a", "b", "c"]


# ------------------------------------------------------------------------------------ no hangs, no raise
def _run_with_limit(code: str, seconds: float = 120.0) -> str:
    """Run ``code`` in a fresh interpreter with a generous time limit (a hang fails, not a slow machine)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(dpmo.__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=seconds, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_zero_local_sensitivities_do_not_hang():
    out = _run_with_limit(
        "import numpy as np, dpmo\n"
        "print(dpmo.dampen([0, 3], lambda t: np.zeros(2)).tolist())\n"
        "n = 2000\n"
        "rng = np.random.default_rng(0)\n"
        "objs = [dpmo.Objective(rng.random(n), 1.0, local=lambda t: np.zeros(n)) for _ in range(2)]\n"
        "print(dpmo.priv_pareto(objs, 1.0, k=2, rng=0).tolist())\n"
    )
    d, picks = out.strip().splitlines()
    assert eval(d)[0] == 0.0 and eval(d)[1] > 0
    assert len(set(eval(picks))) == 2


def test_dampen_never_raises_because_of_the_data():
    """Without a global sensitivity, candidates past max_steps continue with a public rising floor."""
    zero = lambda t: np.zeros(3)  # noqa: E731
    D = dpmo.dampen([0.0, 3.0, -1e300], zero, max_steps=50)
    assert D[0] == 0.0 and D[1] > 50 and D[2] < -50 and np.all(np.isfinite(D))
    # monotone and odd in the value, as a dampened score must be
    u = np.array([0.5, 1.0, 2.0, 1e6, 1e12])
    Du = dpmo.dampen(u, lambda t: np.full(5, 1e-3), max_steps=100)
    assert np.all(np.diff(Du) > 0) and np.allclose(
        dpmo.dampen(-u, lambda t: np.full(5, 1e-3), max_steps=100), -Du
    )
    # before the cap, the closed form over constant runs gives the stepping's values
    const = dpmo.dampen([0.3, 7.5, 40.0], lambda t: np.full(3, 0.5))
    np.testing.assert_allclose(const, [0.6, 15.0, 80.0])
    ramp = dpmo.dampen([3.0, 7.5], lambda t: np.array([0.5, 0.5]) + 0.1 * t)
    # breakpoints 0, .5, 1.1, 1.8, 2.6, 3.5, ...: 3 lies in [2.6, 3.5)
    assert ramp[0] == pytest.approx(4 + (3.0 - 2.6) / 0.9)
    with pytest.raises(ValueError, match="decreases"):
        dpmo.dampen([50.0, 90.0], lambda t: np.full(2, 1.0 if t < 20 else 0.5))


# ------------------------------------------------------------------------------------------ estimators
def _public_attributes(est) -> dict:
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def test_fitted_estimators_store_no_timing_or_count_of_the_private_data():
    from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3)).astype(float)
    y = (X[:, 0] == 1).astype(int)
    Xn, yn = X[:-1], y[:-1]  # a neighbouring table: one record removed
    for make in (
        lambda: DPMOETClassifier(
            epsilon=1.0, population_size=6, selection_size=2, n_iterations=1, random_state=3
        ),
        lambda: DiffPID3Classifier(epsilon=1.0, random_state=3),
        lambda: LocalDiffPID3Classifier(epsilon=1.0, random_state=3),
    ):
        a, b = make().fit(X, y), make().fit(Xn, yn)
        attrs_a, attrs_b = _public_attributes(a), _public_attributes(b)
        assert "fit_time_" not in attrs_a
        assert set(attrs_a) == set(attrs_b)
        for name in attrs_a:
            va, vb = attrs_a[name], attrs_b[name]
            if isinstance(va, (int, float, np.integer, np.floating)) and not isinstance(va, bool):
                # a number that differs between neighbours must be a private output, never a size or time
                assert name not in {"n_samples_", "n_records_", "fit_time_"}, name
            if name in {"classes_", "n_features_in_", "features_", "domain_sizes_", "categorical_"}:
                assert np.array_equal(np.asarray(va, dtype=object), np.asarray(vb, dtype=object)), name
