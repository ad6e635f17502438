"""Edge inputs of the graph layer: the Graph constructor's structure checks, scipy duplicates, networkx
node counts, two-stage shares, the staircase rules' arguments and the synthetic generator's team sizes."""

import math
import pickle

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from dpmo import graphs
from dpmo.graphs import Graph
from dpmo.graphs.chebyshev import GraphStaircaseApproach, graph_staircase_approach
from dpmo.graphs.chebyshev_fixed import chebyshev_round_scores, graph_chebyshev_settings
from dpmo.graphs.staircase_rules import top_pick_epsilon


# -- 1. the constructor refuses what is not a simple undirected CSR structure -----------------------------
@pytest.mark.parametrize(
    ("indptr", "indices", "n", "match"),
    [
        ([0, 2, 2, 2], [1, 1], 3, "simple undirected"),  # repeated entry, no reverse entries
        ([0, 1, 1, 1], [1], 3, "not symmetric"),
        ([0, 1, 2, 3], [1, 2, 0], 3, "not symmetric"),  # a directed triangle
        ([0, 2, 3, 4], [2, 1, 0, 0], 3, "strictly increasing"),  # an unsorted row
        ([0, 1, 1], [0], 2, "self-loop"),
        ([0, 2, 1, 2], [1, 2], 3, "indptr"),
    ],
)
def test_constructor_refuses_structures_that_are_not_simple(indptr, indices, n, match):
    with pytest.raises(ValueError, match=match):
        Graph(np.array(indptr), np.array(indices), np.arange(n))


def test_constructor_refuses_the_fuzzed_structure_before_edges_reads_it():
    with pytest.raises(ValueError, match="simple undirected graph"):
        Graph(np.array([0, 2, 2, 2]), np.array([1, 1]), np.array([0, 1, 2])).edges()


def test_constructor_accepts_what_load_graph_builds_and_pickles_round_trip():
    g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    h = Graph(g.indptr, g.indices, g.ids, public=True)
    assert np.array_equal(h.edges(), g.edges())
    u = pickle.loads(pickle.dumps(g))
    assert np.array_equal(u.edges(), g.edges()) and u.public_nodes


@pytest.mark.parametrize("ids", [[5, 1, 3], [1, 1, 3], [1.0, np.nan, 3.0]])
def test_constructor_refuses_unsorted_or_repeated_ids(ids):
    with pytest.raises(ValueError, match="ids must be distinct and sorted"):
        Graph(np.zeros(4, dtype=np.int64), np.array([], dtype=np.int64), np.array(ids))


def test_constructor_refuses_repeated_object_ids():
    ids = np.empty(2, dtype=object)
    ids[:] = ["a", "a"]
    with pytest.raises(ValueError, match="ids must be distinct"):
        Graph(np.zeros(3, dtype=np.int64), np.array([], dtype=np.int64), ids)


def test_edges_never_writes_past_its_output():
    from dpmo.graphs.csr import csr_edges

    with pytest.raises(ValueError, match="simple undirected graph"):
        csr_edges(np.array([0, 2, 2, 2]), np.array([1, 2], dtype=np.int32))


def test_unpickling_checks_bounds_but_not_symmetry(monkeypatch):
    """A pickle is trusted (unpickling runs code): its arrays' bounds are checked, not the symmetry pass
    the constructor makes (70 ms per 10^6 edges). No timing: the pass is replaced by one that fails."""
    from dpmo.graphs import graph as graph_mod

    g = graphs.random_collaboration_graph(200, 600, rng=0)
    blob = pickle.dumps(g)

    def no_pass(*args):
        raise AssertionError("the symmetry pass ran")

    monkeypatch.setattr(graph_mod, "check_simple_csr", no_pass)
    h = pickle.loads(blob)
    assert np.array_equal(h.edges(), g.edges()) and np.array_equal(h.ids, g.ids)
    with pytest.raises(AssertionError, match="symmetry pass"):
        Graph(g.indptr, g.indices, g.ids)


# -- 2. scipy: repeated entries are summed before the zeros are dropped -------------------------------------
def test_scipy_duplicates_that_cancel_are_no_edge():
    m = sp.coo_array((np.array([1.0, -1.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    assert graphs.load_graph(m, nodes=2).n_edges == m.tocsr().count_nonzero() == 0
    assert m.data.tolist() == [1.0, -1.0]  # the caller's matrix untouched
    m2 = sp.coo_array((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(3, 3))
    assert graphs.load_graph(m2, nodes=3).n_edges == 1


# -- 3. two-stage: a share below the floats is refused up front ---------------------------------------------
@pytest.mark.parametrize(("epsilon", "share"), [(1e-300, 1e-30), (5e-324, 0.1)])
def test_two_stage_refuses_a_share_that_rounds_to_zero(epsilon, share):
    g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    with pytest.raises(ValueError, match="degree_share"):
        graphs.top_k_two_stage(g, 3, epsilon, degree_share=share, candidates=10, rng=0)


# -- 4, 8. statistics and sensitivities -------------------------------------------------------------------
def test_statistics_objectives_refuses_degrees_beyond_int64_and_text_ego_density():
    with pytest.raises(ValueError, match="degree"):
        graphs.statistics_objectives(np.array([2**64 - 1, 5], dtype=np.uint64), [0.5, 0.5])
    with pytest.raises(TypeError, match="ego_density"):
        graphs.statistics_objectives([3, 1], ["a", 0.0])


@pytest.mark.parametrize(
    ("degree", "error"), [([-1], ValueError), ([np.nan], ValueError), (["a"], TypeError)]
)
def test_degree_sensitivity_checks_its_degrees(degree, error):
    with pytest.raises(error, match="degree"):
        graphs.degree_sensitivity(degree, 0)


@pytest.mark.parametrize("f", [graphs.degree_sensitivity, graphs.ego_density_sensitivity])
def test_sensitivities_name_both_arguments_on_a_shape_mismatch(f):
    with pytest.raises(ValueError, match=r"degree \(shape \(3,\)\) and t \(shape \(2,\)\)"):
        f([3, 4, 5], [0, 1])


def test_networkx_unhashable_nodes_and_tuple_labels():
    with pytest.raises(TypeError, match="nodes must be"):
        graphs.load_graph(nx.path_graph(2), nodes=[[0], [1]])
    h = nx.Graph()
    h.add_edge((0, 1), (1, 2))
    g = graphs.load_graph(h, nodes=[(0, 1), (1, 2)])
    assert g.index([(0, 1)]).tolist() == [0] and int(g.index((1, 2))) == 1
    assert g.index([(1, 2), (0, 1)]).tolist() == [1, 0]
    with pytest.raises(TypeError, match="ids must be node labels"):
        g.index([[0]])
    with pytest.raises(KeyError):
        g.index([(5, 5)])


# -- 5. the synthetic generator ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kw", "error"),
    [({"exponent": "3"}, TypeError), ({"mean_team": "3"}, TypeError), ({"mean_team": math.nan}, ValueError)],
)
def test_random_collaboration_edges_checks_its_reals(kw, error):
    with pytest.raises(error, match="exponent|mean_team"):
        graphs.random_collaboration_edges(10, 5, rng=0, **kw)


@pytest.mark.parametrize(
    "kw", [{"mean_team": 1e20}, {"max_team": 10**30}, {"mean_team": 200.0, "max_team": 400}]
)
def test_random_collaboration_edges_caps_teams_at_the_node_count(kw):
    e = graphs.random_collaboration_edges(10, 5, rng=0, **kw)
    assert e.shape == (5, 2) and np.all(e[:, 0] < e[:, 1]) and e.max() < 10


def test_random_collaboration_edges_first_batch_is_bounded():
    import tracemalloc

    tracemalloc.start()
    graphs.random_collaboration_edges(1000, 5, rng=0, mean_team=200.0, max_team=400)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 80 * 2**20  # 180 MB before


def test_random_collaboration_edges_refuses_teams_far_beyond_the_request():
    with pytest.raises(ValueError, match="mean_team"):
        graphs.random_collaboration_edges(10**6, 5, rng=0, mean_team=1e20, max_team=10**30)


# -- 6. networkx with nodes=n: arrays, not a dictionary of n labels ----------------------------------------
def test_networkx_int_node_count_matches_the_array_path():
    """No Python object per id (a list and a dictionary of n labels took 692 MB at n = 3e6): the peak of
    traced memory, not a timing, is checked (a dictionary of 10^6 ints alone passes 100 MB)."""
    import tracemalloc

    g = nx.Graph([(5, 7), (0, 999_999), (7, 5)])
    tracemalloc.start()
    try:
        a = graphs.load_graph(g, nodes=1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    b = graphs.load_graph(np.array([[5, 7], [0, 999_999]]), nodes=1_000_000)
    assert np.array_equal(a.ids, b.ids) and np.array_equal(a.edges(), b.edges()) and a.public_nodes
    assert peak < 60 * 2**20
    k = graphs.load_graph(nx.karate_club_graph(), nodes=40)
    assert k.n_nodes == 40 and k.n_edges == 78 and k.ids.tolist() == list(range(40))


# -- 7. top_pick_epsilon ends on every finite input ----------------------------------------------------------
def test_top_pick_epsilon_ends_on_tiny_leads():
    e = top_pick_epsilon([1, 2, 4, 8, 10], [7.7e-45, 6.7e-45, 4.8e-45, 8.5e-46, 4.3e-46], 1, 10, 10)
    assert e > 1e40
    assert top_pick_epsilon([1, 2], [3e-308, 0.0], 1, 2, 2) > 1e300


# -- 9. the staircase and fixed-settings helpers check their ints --------------------------------------------
def test_staircase_and_settings_check_their_arguments():
    with pytest.raises(ValueError, match="k >= 2"):
        GraphStaircaseApproach(1).round_one_candidates(10, 1.0)
    with pytest.raises(ValueError, match="k must be"):
        graph_chebyshev_settings(34, 0)
    with pytest.raises(ValueError, match="n must be"):
        graph_chebyshev_settings(-4, 3)
    objs = graphs.objectives(graphs.load_graph(nx.karate_club_graph(), nodes=34))
    with pytest.raises(ValueError, match="round_"):
        chebyshev_round_scores(objs, 34, 3, -1)
    with pytest.raises(TypeError, match="k must be"):
        graph_staircase_approach(10, "3")
    with pytest.raises(TypeError, match="k must be"):
        GraphStaircaseApproach(2.5)


def test_signal_quantum_of_any_threshold():
    """signal_quantum(0) and (5e-324) raised ZeroDivisionError / OverflowError; a threshold is positive."""
    import math

    from dpmo.graphs.staircase_rules import PICK_QUANTUM_MAX, signal_quantum

    for t in (5.0, 0.45, 1e-3):
        assert signal_quantum(t) == max(1, math.ceil(2.0 / t))
    assert signal_quantum(5e-324) == signal_quantum(1e-300) == PICK_QUANTUM_MAX
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="threshold"):
            signal_quantum(bad)


def test_tree_to_dict_refuses_a_str_of_classes():
    """to_dict(classes="ab") read the two letters as the two labels' names."""
    from dpmo.trees import tree_from_nested, tree_to_dict

    tree = tree_from_nested((0, 0.5, False, 0, 1))
    with pytest.raises(TypeError, match="classes"):
        tree_to_dict(tree, classes="ab")
    assert tree_to_dict(tree, classes=("no", "yes"))["left"]["leaf"] == "no"


def test_index_refuses_nested_ids():
    """g.index([[0, 1], [1]]) gave numpy's ragged-array message; [[0, 1]] gave a 2-D answer."""
    g = graphs.load_graph(np.array([[0, 1], [1, 2]]), nodes=3)
    for bad in ([[0, 1], [1]], [[0, 1]], np.zeros((2, 2), dtype=np.int64)):
        with pytest.raises(TypeError, match="1-D sequence"):
            g.index(bad)
    assert g.index([2, 0]).tolist() == [2, 0] and g.index(1) == 1
