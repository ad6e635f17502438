"""Loading graphs (files, arrays, scipy, networkx) and computing degree, triangles and ego density."""

from __future__ import annotations

import gzip
import pickle

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo import graphs
from dpmo.graphs import Graph, read_edge_list
from dpmo.graphs import load_graph as _load_graph


def load_graph(source, **kw):
    """These tests are about reading graphs: the input's own node set unless the test declares one."""
    if not isinstance(source, Graph):
        kw.setdefault("nodes", "observed")
    return _load_graph(source, **kw)


def _adjacency_set(g: Graph) -> set[frozenset]:
    """Edges as a set of frozensets of original ids (read from the CSR structure)."""
    ids = g.ids.tolist()
    return {
        frozenset((ids[i], ids[j]))
        for i in range(g.n_nodes)
        for j in g.indices[g.indptr[i] : g.indptr[i + 1]].tolist()
    }


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


# --------------------------------------------------------------------------------------------------------
# Edge-list files
# --------------------------------------------------------------------------------------------------------
def test_read_whitespace_tabs_comments_blank_lines(tmp_path):
    p = _write(
        tmp_path,
        "g.txt",
        "# SNAP style\n# FromNodeId\tToNodeId\n0\t1\n1\t0\n\n1 2   # inline\n% other comment\n2  3\n",
    )
    edges = read_edge_list(p)
    assert edges.tolist() == [[0, 1], [1, 0], [1, 2], [2, 3]]
    g = load_graph(p)
    assert g.n_nodes == 4 and g.n_edges == 3
    assert _adjacency_set(g) == {frozenset((0, 1)), frozenset((1, 2)), frozenset((2, 3))}


def test_read_comma_with_and_without_header(tmp_path):
    body = "0,23977\n1,34526\n1, 2370\n"
    with_header = _write(tmp_path, "a.csv", "id_1,id_2\n" + body)
    without = _write(tmp_path, "b.csv", body)
    assert read_edge_list(with_header, header=True).tolist() == [[0, 23977], [1, 34526], [1, 2370]]
    assert read_edge_list(without).tolist() == read_edge_list(with_header, header=True).tolist()
    # a header is never guessed: a first line that is not two ids is refused (the hint names header=True)
    with pytest.raises(ValueError, match=r"a line is not two integer node ids.*header=True"):
        read_edge_list(with_header)
    p = _write(tmp_path, "c.csv", "# comment\n\nsrc,dst\n5,6\n")
    assert read_edge_list(p, header=True).tolist() == [[5, 6]]
    with pytest.raises(ValueError, match="a line is not two integer node ids"):
        read_edge_list(p, header=False)


def test_first_line_of_numbers_is_never_dropped(tmp_path):
    p = _write(tmp_path, "f.txt", "1.5 2\n2 3\n")
    with pytest.raises(ValueError, match="a line is not two integer node ids"):
        read_edge_list(p)
    with pytest.raises(ValueError, match="a line is not two integer node ids"):
        load_graph(p)


def test_byte_order_mark_and_string_ids(tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeff1,2\n2,3\n3,1\n".encode())  # a triangle saved by a spreadsheet
    g = load_graph(p)
    assert g.n_nodes == 3 and g.n_edges == 3
    q = tmp_path / "names.txt"
    q.write_bytes("\ufeffalice bob\nbob carol\ncarol alice\ncarol dave\n".encode())
    edges = read_edge_list(q, ids="str")
    assert edges.tolist()[0] == ["alice", "bob"]
    g = load_graph(q, ids="str")
    assert g.n_nodes == 4 and g.n_edges == 4
    assert int(g.degree[g.index("carol")]) == 3
    with pytest.raises(ValueError, match=r"a line is not two integer node ids.*ids='str'"):
        load_graph(q)
    bad = _write(tmp_path, "bad.txt", "a b\nc\n")
    with pytest.raises(ValueError, match="a line is not two node ids"):
        read_edge_list(bad, ids="str")


def test_read_explicit_delimiter_and_gzip(tmp_path):
    p = _write(tmp_path, "s.txt", "1;2\n3;4\n")
    assert read_edge_list(p, delimiter=";").tolist() == [[1, 2], [3, 4]]
    gz = tmp_path / "g.txt.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write("# gz\n7 8\n8 9\n")
    assert read_edge_list(gz).tolist() == [[7, 8], [8, 9]]
    assert load_graph(gz).n_edges == 2


@pytest.mark.parametrize(
    "text,line",
    [
        ("0 1\n1 2\n# c\n3 4 5\n", 4),  # three fields
        ("0 1\n\n1 x\n", 3),  # not an integer
        ("0 1\n2\n", 2),  # one field
        ("0 1\n1 2.5\n", 2),  # float id
        ("id_1,id_2\n0,1\n2,3,4\n", 1),  # a header is not guessed: refused on its line
        ("0,1\n1;2\n", 2),
        ("1 2 7\n3 4 8\n", 1),  # a weighted edge list: its first line is data, not a header
    ],
)
def test_malformed_line_is_refused_without_its_number_or_content(tmp_path, text, line):
    p = _write(tmp_path, "bad.txt", text)
    for read in (read_edge_list, load_graph):
        with pytest.raises(ValueError, match="a line is not two integer node ids") as err:
            read(p)
        message = str(err.value).replace(str(p), "")  # the path is the caller's own
        assert f"line {line}" not in message and not any(ch.isdigit() for ch in message), message


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_edge_list(tmp_path / "nope.txt")
    p = _write(tmp_path, "empty.txt", "# nothing\n\n")
    assert read_edge_list(p).shape == (0, 2)
    with pytest.raises(ValueError, match="no nodes"):
        load_graph(p)
    # with a public node set, an edgeless graph is fine
    g = load_graph(p, nodes=[3, 1, 2])
    assert g.ids.tolist() == [1, 2, 3] and g.n_edges == 0
    assert g.degree.tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="delimiter"):
        read_edge_list(p, delimiter="#")


# --------------------------------------------------------------------------------------------------------
# Symmetrisation, ids, and the other input kinds
# --------------------------------------------------------------------------------------------------------
def test_simple_undirected_graph_from_messy_edges():
    edges = np.array([[10, 20], [20, 10], [10, 10], [30, 20], [20, 30], [20, 30], [40, 10]])
    g = Graph.from_edges(edges)
    assert g.ids.tolist() == [10, 20, 30, 40]
    assert g.n_edges == 3
    assert _adjacency_set(g) == {frozenset((10, 20)), frozenset((20, 30)), frozenset((10, 40))}
    assert g.degree.tolist() == [2, 2, 1, 1]
    for i in range(g.n_nodes):  # rows sorted, no self loop
        row = g.indices[g.indptr[i] : g.indptr[i + 1]]
        assert np.all(np.diff(row) > 0) and i not in row
    assert np.array_equal(g.edges(), np.array([[0, 1], [0, 3], [1, 2]]))


def test_large_negative_and_sparse_ids_are_kept():
    edges = np.array([[-5, 10**12], [10**12, 7], [7, -5], [3, 10**15]])
    g = load_graph(edges)
    assert g.ids.tolist() == [-5, 3, 7, 10**12, 10**15]
    assert g.index([10**12, -5]).tolist() == [3, 0]
    assert g.index(7) == 2
    with pytest.raises(KeyError):
        g.index([8])
    # the exact top-1 by aggregate is a triangle node; the answer comes back as an original id
    assert graphs.top_k_exact(g, 1, approach="agg")[0] in (-5, 7, 10**12)


def test_nodes_argument_keeps_isolated_nodes_and_checks_endpoints():
    g = Graph.from_edges([[1, 2]], nodes=[0, 1, 2, 5])
    assert g.ids.tolist() == [0, 1, 2, 5] and g.degree.tolist() == [0, 1, 1, 0]
    with pytest.raises(ValueError, match="not in nodes"):
        Graph.from_edges([[1, 9]], nodes=[1, 2])
    with pytest.raises(ValueError, match="duplicates"):
        Graph.from_edges([[1, 2]], nodes=[1, 2, 2])


def test_all_input_kinds_agree(tmp_path):
    G = nx.gnm_random_graph(60, 200, seed=3)
    G.add_node(60)  # isolated
    from_nx = load_graph(G)
    from_sp = load_graph(nx.to_scipy_sparse_array(G, nodelist=range(61)))
    edges = np.array(list(G.edges()))
    from_arr = load_graph(edges, nodes=np.arange(61))
    p = tmp_path / "g.txt"
    np.savetxt(p, np.vstack([edges, edges[:, ::-1]]), fmt="%d")
    from_file = load_graph(p, nodes=np.arange(61))
    for other in (from_sp, from_arr, from_file):
        assert np.array_equal(other.ids, from_nx.ids)
        assert np.array_equal(other.indptr, from_nx.indptr)
        assert np.array_equal(other.indices, from_nx.indices)
    assert load_graph(from_nx) is from_nx


def test_networkx_directed_multi_and_string_labels():
    D = nx.MultiDiGraph()
    D.add_edges_from([("b", "a"), ("a", "b"), ("a", "b"), ("c", "a"), ("c", "c")])
    D.add_node("z")
    g = load_graph(D)
    assert g.ids.tolist() == ["a", "b", "c", "z"]
    assert g.n_edges == 2 and g.degree.tolist() == [2, 1, 1, 0]
    assert g.index(["c", "a"]).tolist() == [2, 0]
    with pytest.raises(KeyError):
        g.index(["q"])
    # unsortable labels keep networkx's order
    H = nx.Graph()
    H.add_edge(1, "x")
    H.add_edge("x", (2, 3))
    h = load_graph(H)
    assert list(h.ids) == list(H.nodes())


def test_scipy_input_ignores_weights_direction_and_diagonal():
    A = sp.csr_array(np.array([[5, 2, 0], [0, 0, 0], [0, 3, 1]]))
    g = load_graph(A)
    assert g.ids.tolist() == [0, 1, 2]
    assert _adjacency_set(g) == {frozenset((0, 1)), frozenset((1, 2))}
    assert g.adjacency.toarray().tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    with pytest.raises(ValueError, match="square"):
        load_graph(sp.csr_array(np.ones((2, 3))))


@pytest.mark.parametrize(
    "bad,exc",
    [
        ({"a": 1}, TypeError),
        (np.array([[0.5, 1.0]]), TypeError),
        (np.array([[1, 2, 3]]), ValueError),
        (np.array([1, 2]), ValueError),
        (3, TypeError),
    ],
)
def test_bad_inputs(bad, exc):
    with pytest.raises(exc):
        load_graph(bad)


def test_pickle_drops_cache_and_keeps_graph():
    g = load_graph(np.array([[0, 1], [1, 2], [2, 0], [2, 3]]), nodes=4)
    obj = graphs.ego_density_objective(g)
    assert graphs.ego_density_objective(g) is obj  # cached
    h = pickle.loads(pickle.dumps(g))
    assert np.array_equal(h.indices, g.indices) and np.array_equal(h.ids, g.ids)
    assert h.public_nodes and not h._cache
    np.testing.assert_array_equal(h.ego_density(), g.ego_density())
    assert (
        graphs.top_k(h, 2, 1.0, approach="agg", rng=4).tolist()
        == graphs.top_k(g, 2, 1.0, approach="agg", rng=4).tolist()
    )


def test_cached_arrays_are_read_only():
    g = load_graph(np.array([[0, 1], [1, 2], [2, 0]]))
    for arr in (g.degree, g.triangles, g.ego_density(), g.ids, g.indptr, g.indices, graphs.pareto_scores(g)):
        with pytest.raises(ValueError):
            arr[0] = 7


# --------------------------------------------------------------------------------------------------------
# Utilities against networkx and hand-computed values
# --------------------------------------------------------------------------------------------------------
def test_paper_example_ego_density():
    # the paper's example: path v2 - v1 - v3 has ego density 0 at v1; closing the triangle makes it 1
    path = load_graph(np.array([[1, 2], [1, 3]]))
    tri = load_graph(np.array([[1, 2], [1, 3], [2, 3]]))
    assert path.ego_density()[0] == 0.0 and tri.ego_density().tolist() == [1.0, 1.0, 1.0]
    # K4 minus one edge: the two full-degree nodes see 2 of 3 possible neighbour edges
    g = load_graph(np.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3]]))
    assert g.triangles.tolist() == [2, 2, 1, 1]
    np.testing.assert_allclose(g.ego_density(), [2 / 3, 2 / 3, 1.0, 1.0])
    np.testing.assert_allclose(g.ego_density(formula="published"), [1 / 3, 1 / 3, 0.5, 0.5])


def test_low_degree_convention():
    g = load_graph(np.array([[0, 1], [1, 2], [3, 4]]), nodes=np.arange(6))  # node 5 isolated
    assert g.degree.tolist() == [1, 2, 1, 1, 1, 0]
    assert g.ego_density().tolist() == [0, 0, 0, 0, 0, 0]
    assert g.ego_density(low_degree=1.0).tolist() == [1, 0, 1, 1, 1, 1]
    assert g.ego_density(low_degree=0.25, formula="published").tolist() == [0.25, 0, 0.25, 0.25, 0.25, 0.25]
    with pytest.raises(ValueError, match="low_degree"):
        g.ego_density(low_degree=1.5)
    with pytest.raises(TypeError, match="low_degree"):
        g.ego_density(low_degree="1")
    with pytest.raises(ValueError, match="formula"):
        g.ego_density(formula="other")


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 40),
    p=st.floats(0.0, 1.0),
    hub=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_utilities_match_networkx(n, p, hub, seed):
    G = nx.gnp_random_graph(n, p, seed=seed)
    if hub:
        G.add_edges_from((0, v) for v in range(1, n))
    g = load_graph(G)
    assert g.degree.tolist() == [G.degree(v) for v in range(n)]
    assert g.triangles.tolist() == [nx.triangles(G, v) for v in range(n)]
    clust = nx.clustering(G)
    np.testing.assert_allclose(g.ego_density(), [clust[v] for v in range(n)], atol=1e-12)
    deg = np.array([G.degree(v) for v in range(n)])
    expect_pub = np.where(deg >= 2, np.array([clust[v] for v in range(n)]) / 2, 1.0)
    np.testing.assert_allclose(g.ego_density(low_degree=1.0, formula="published"), expect_pub, atol=1e-12)


def test_triangles_on_a_larger_heavy_tailed_graph():
    G = nx.barabasi_albert_graph(3000, 6, seed=1)
    g = load_graph(G)
    expect = nx.triangles(G)
    assert g.triangles.tolist() == [expect[v] for v in range(3000)]
    # and the sparse-algebra identity T = rowsum((A @ A) * A) / 2
    A = g.adjacency.astype(np.int64)
    np.testing.assert_array_equal(np.asarray((A @ A).multiply(A).sum(axis=1)).ravel() // 2, g.triangles)


def test_random_collaboration_graph_is_seeded_and_sized():
    a = graphs.random_collaboration_graph(2000, 6000, rng=5)
    b = graphs.random_collaboration_graph(2000, 6000, rng=5)
    c = graphs.random_collaboration_graph(2000, 6000, rng=6)
    assert a.n_nodes == 2000 and a.n_edges == 6000
    assert np.array_equal(a.indices, b.indices) and not np.array_equal(a.indices, c.indices)
    # heavy tail and clustered: the largest degree is far above the median, many triangles
    assert a.degree.max() > 10 * np.median(a.degree)
    assert a.triangles.sum() > 1000
    with pytest.raises(ValueError):
        graphs.random_collaboration_graph(10, 100)
    with pytest.raises(ValueError, match="finite mean_team"):  # numpy's "p <= 0" from deep inside
        graphs.random_collaboration_edges(100, 200, mean_team=float("inf"))


@pytest.mark.parametrize("ids", ["int", "str"])
def test_an_edge_lists_reading_never_depends_on_which_edge_comes_first(tmp_path, ids):
    """The separator was guessed from the first data line (a private edge): the same edges in another
    order were read or refused, with a refusal text naming the guessed separator."""
    import itertools

    for lines in (["0 1", "2,3"], ["1 2", "3 ,4"], ["1,2", "3,4"], ["5 6", "7 8"]):
        outcomes = set()
        for order in itertools.permutations(lines):
            path = tmp_path / "e.txt"
            path.write_text("\n".join(order) + "\n")
            try:
                edges = graphs.read_edge_list(path, ids=ids)
                outcomes.add(("read", tuple(sorted(map(tuple, edges.tolist())))))
            except ValueError as exc:
                outcomes.add(("refused", str(exc)))
        assert len(outcomes) == 1, outcomes
