"""The compiled graph kernels against plain references: the CSR build, the edge list, the triangle count,
and the synthetic generator's member draws, pair decoding and whole output."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo import graphs
from dpmo.graphs import centrality, synthetic
from dpmo.graphs.csr import csr_edges, csr_from_pairs, index_dtype


def _reference_csr(u, v, n):
    """Sorted neighbour sets of the simple graph (self-loops dropped, repeats and reverses merged)."""
    rows = [set() for _ in range(n)]
    for a, b in zip(u.tolist(), v.tolist(), strict=True):
        if a != b:
            rows[a].add(b)
            rows[b].add(a)
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = [c for r in rows for c in sorted(r)]
    return indptr, np.array(indices, dtype=np.int64)


pairs_strategy = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80),
    )
)


@settings(max_examples=150, deadline=None)
@given(case=pairs_strategy, sort_first=st.booleans())
def test_csr_from_pairs_matches_the_neighbour_sets(case, sort_first):
    n, pairs = case
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    if sort_first:  # sorted pairs (as the generator gives them) and arbitrary ones
        arr = arr[np.lexsort((arr[:, 1], arr[:, 0]))]
    indptr, indices = csr_from_pairs(arr[:, 0], arr[:, 1], n)  # strided column views
    ref_ptr, ref_idx = _reference_csr(arr[:, 0], arr[:, 1], n)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    assert np.array_equal(indptr, ref_ptr) and np.array_equal(indices, ref_idx)
    edges = csr_edges(indptr, indices)
    ref_edges = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    assert edges.dtype == np.int64 and edges.tolist() == [list(e) for e in ref_edges]


def test_csr_from_pairs_long_rows_duplicates_and_isolated_nodes():
    rng = np.random.default_rng(4)
    u = rng.integers(0, 5, 4000)  # five hubs with rows far longer than the insertion-sort limit
    v = rng.integers(0, 300, 4000)
    n = 320  # nodes 300..319 isolated
    indptr, indices = csr_from_pairs(np.concatenate([u, v]), np.concatenate([v, u]), n)
    ref_ptr, ref_idx = _reference_csr(u, v, n)
    assert np.array_equal(indptr, ref_ptr) and np.array_equal(indices, ref_idx)
    assert np.all(np.diff(indptr)[300:] == 0)


def test_csr_from_pairs_refuses_bad_pairs():
    with pytest.raises(ValueError, match="0..2"):
        csr_from_pairs(np.array([0, 3]), np.array([1, 1]), 3)
    with pytest.raises(ValueError, match="0..2"):
        csr_from_pairs(np.array([0, -1]), np.array([1, 1]), 3)
    with pytest.raises(ValueError, match="same length"):
        csr_from_pairs(np.array([0, 1]), np.array([1]), 3)
    with pytest.raises(ValueError, match="not in nodes"):
        graphs.load_graph(np.array([[0, 1], [1, 3]]), nodes=3)
    indptr, indices = csr_from_pairs(np.empty(0, np.int64), np.empty(0, np.int64), 4)
    assert indptr.tolist() == [0] * 5 and indices.size == 0


def test_index_dtype_switches_at_2_31():
    assert index_dtype(2**31 - 1) is np.int32 and index_dtype(2**31) is np.int64


def _hub_graph(seed):
    """Four joined hubs of degree >= 255 (hubs 0 and 1 of the same degree) over a sparse random graph on
    nodes 10..699 (4..9 isolated): the triangle count's exact comparison of two large degrees, and ties
    broken by index."""
    rng = np.random.default_rng(seed)
    G = nx.relabel_nodes(nx.gnm_random_graph(690, 1500, seed=seed), lambda v: v + 10)
    G.add_nodes_from(range(10))
    for h, size in zip(range(4), (287, 287, 300, 260), strict=True):
        G.add_edges_from((h, int(v)) for v in rng.choice(np.arange(10, 700), size, replace=False))
    G.add_edges_from((a, b) for a in range(4) for b in range(a + 1, 4))
    return G


@pytest.mark.parametrize("seed", [0, 1])
def test_triangles_with_large_and_tied_degrees_match_networkx(seed):
    G = _hub_graph(seed)
    assert sum(d >= 255 for _, d in G.degree) >= 4 and G.degree(0) == G.degree(1)
    g = graphs.load_graph(G, nodes="observed")
    expect = nx.triangles(G)
    assert g.triangles.tolist() == [expect[v] for v in g.ids.tolist()]


@settings(max_examples=60, deadline=None)
@given(case=pairs_strategy)
@pytest.mark.slow
def test_triangle_kernels_in_both_record_widths(case):
    n, pairs = case
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    indptr, indices = csr_from_pairs(arr[:, 0], arr[:, 1], n)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((a, b) for a, b in pairs if a != b)
    expect = [nx.triangles(G, v) for v in range(n)]
    assert centrality.csr_triangles(indptr, indices).tolist() == expect
    deg = np.diff(indptr)
    for dtype in (np.int32, np.int64):  # the int64 records, used past 2^31 slots, on the same graph
        rank = np.empty(n, dtype)
        centrality._degree_ranks(indptr, int(deg.max()), rank)
        assert np.array_equal(np.argsort(rank), np.lexsort((np.arange(n), deg)))
        size = np.zeros(n + 1, np.int64)
        centrality._record_ends(indptr, indices, rank, size)
        at, rec = np.empty(n, dtype), np.empty(size[n] + 1, dtype)
        centrality._fill_records(indptr, indices, rank, size, at, rec)
        tri = np.empty(n, np.int64)
        centrality._triangles_forward(at, rec, np.zeros(rec.size // 64 + 1, np.uint64), tri)
        assert tri.tolist() == expect


@settings(max_examples=100, deadline=None)
@given(
    weights=st.lists(st.floats(1.0, 50.0), min_size=1, max_size=60),
    xs=st.lists(st.floats(0.0, 1.0, exclude_max=True), min_size=1, max_size=40),
)
def test_member_draw_is_searchsorted(weights, xs):
    cdf = np.cumsum(np.array(weights))
    cdf /= cdf[-1]
    n = cdf.size
    table = np.empty(n + 1, np.int64)
    synthetic._bucket_table(cdf, table)
    edges = [k / n for k in range(n + 1)] + list(cdf)  # bucket bounds, cdf values, and their neighbours
    probes = [x for e in edges for x in (np.nextafter(e, 0.0), e, np.nextafter(e, 1.0)) if 0.0 <= x < 1.0]
    for x in xs + probes:
        expect = min(int(np.searchsorted(cdf, x, side="right")), n - 1)
        assert synthetic._member(cdf, table, x) == expect


@pytest.mark.parametrize("n", [7, 2**31])
def test_decode_pairs_in_place_and_wide(n):
    rng = np.random.default_rng(1)
    a = rng.integers(0, min(n, 2**40), 500)
    b = rng.integers(0, min(n, 2**40), 500)
    codes = a * np.int64(n) + b
    pairs = synthetic._decode(codes.copy(), n)
    assert pairs.dtype == (np.int32 if n < 2**31 else np.int64)
    assert pairs[:, 0].tolist() == a.tolist() and pairs[:, 1].tolist() == b.tolist()


def _reference_collaboration_graph(n, n_edges, seed, exponent=2.5, mean_team=3.0, max_team=25):
    """The generator written plainly (searchsorted draws, a sort-unique of all pair codes per batch)."""
    gen = np.random.default_rng(seed)
    cdf = np.cumsum((1.0 - gen.random(n)) ** (-1.0 / (exponent - 1.0)))
    cdf /= cdf[-1]
    codes = np.empty(0, dtype=np.int64)
    per_paper, drawn = mean_team * (mean_team - 1) / 2, 0
    while codes.size < n_edges:
        missing = n_edges - codes.size
        n_papers = max(1024, int(1.2 * missing / per_paper), min(drawn, int(4 * n_edges / per_paper)))
        drawn += n_papers
        sizes = np.minimum(1 + gen.geometric(1.0 / (mean_team - 1.0), size=n_papers), max_team)
        batch = [codes]
        for s in np.unique(sizes):
            members = np.searchsorted(cdf, gen.random((int(np.sum(sizes == s)), int(s))), side="right")
            members = np.minimum(members, n - 1)
            iu, ju = np.triu_indices(int(s), k=1)
            a, b = members[:, iu].ravel(), members[:, ju].ravel()
            keep = a != b
            batch.append(np.minimum(a[keep], b[keep]) * np.int64(n) + np.maximum(a[keep], b[keep]))
        codes = np.unique(np.concatenate(batch))
    if codes.size > n_edges:
        codes = np.sort(codes[gen.permutation(codes.size)[:n_edges]])
    return np.column_stack([codes // n, codes % n])


@pytest.mark.parametrize(
    ("n", "m", "seed", "kw"),
    [(200, 500, 3, {}), (50, 1200, 1, {}), (60, 1770, 2, {}), (3000, 100, 4, {}), (20000, 66000, 0, {}),
     (5000, 20000, 7, {"exponent": 2.1, "mean_team": 5.0, "max_team": 8})],
)  # fmt: skip
def test_random_collaboration_graph_matches_the_plain_generator(n, m, seed, kw):
    g = graphs.random_collaboration_graph(n, m, rng=seed, **kw)
    assert np.array_equal(g.edges(), _reference_collaboration_graph(n, m, seed, **kw))


def test_graph_constructor_refuses_indices_outside_the_nodes():
    with pytest.raises(ValueError, match="indices must be integers in 0..1"):
        graphs.Graph(np.array([0, 1, 2]), np.array([1, 2]), np.arange(2))
    with pytest.raises(ValueError, match="indices must be integers"):
        graphs.Graph(np.array([0, 1, 2]), np.array([1.0, 0.0]), np.arange(2))
    g = graphs.Graph(np.array([0, 1, 2]), np.array([1, 0], dtype=np.int64), np.arange(2))
    assert g.indices.dtype == np.int32 and g.triangles.tolist() == [0, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 400), min_size=1, max_size=60),
    st.lists(st.integers(0, 300), min_size=1, max_size=4),
    st.sampled_from(["paper", "published"]),
    st.sampled_from([np.int64, np.int32, np.uint16, np.float64]),
    st.sampled_from(["scalar", "column", "row", "one"]),
)
def test_compiled_ego_density_sensitivity_is_the_numpy_formula(degrees, ts, formula, dtype, shape):
    # the compiled pass (a scalar t or a column of distances) and the numpy path (other shapes) give the
    # floats and the broadcast shape of the plain formula (1 if d - t <= 2 else c / (d - t))
    d = np.array(degrees, dtype=dtype)
    t = {
        "scalar": np.int64(ts[0]),
        "column": np.array(ts, dtype=np.int64)[:, None],
        "row": np.array(ts[:1] * len(degrees), dtype=np.int64),  # (n,) against (n,)
        "one": np.array(ts[:1], dtype=np.int64),  # (1,) broadcasts to (n,)
    }[shape]
    rest = d.astype(np.float64) - t
    c = 2.0 if formula == "paper" else 1.0
    with np.errstate(divide="ignore"):
        want = np.where(rest <= 2.0, 1.0, c / np.maximum(rest, 1.0))
    got = graphs.ego_density_sensitivity(d, t, formula=formula)
    assert got.shape == want.shape
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 10**6)), min_size=1, max_size=60),
    st.sampled_from(["paper", "published"]),
    st.sampled_from([0.0, 1.0, 0.25]),
    st.sampled_from([np.int64, np.int32]),
)
def test_compiled_ego_density_is_the_numpy_formula(pairs, formula, low, dtype):
    d = np.array([p[0] for p in pairs], dtype=dtype)
    tri = np.array([p[1] for p in pairs], dtype=dtype)
    df, tf = d.astype(np.float64), tri.astype(np.float64)
    factor = 2.0 if formula == "paper" else 1.0
    want = np.full(d.shape, low)
    ok = d >= 2
    want[ok] = factor * tf[ok] / (df * (df - 1.0))[ok]
    got = centrality.ego_density_from_counts(d, tri, low, formula)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    # lists and floats take the numpy path: the same floats
    assert np.array_equal(centrality.ego_density_from_counts(df, tf, low, formula), want)


def test_prefetch_hint_changes_nothing():
    # the hint compiles here (else the kernels fall back to a no-op: slower, never different)
    from dpmo import _prefetch

    # on the supported numba/llvmlite the hint compiles: were it to fall back silently to the no-op, the
    # triangle count's measured speed (docs/pareto.md) would no longer hold
    assert _prefetch.PREFETCH_COMPILED is True
    assert _prefetch.prefetch is _prefetch._with_hint
    for dtype in (np.int32, np.int64, np.float64):
        a = np.arange(10, dtype=dtype)
        _prefetch._with_hint(a, 3)
        _prefetch._no_hint(a, 3)
        np.testing.assert_array_equal(a, np.arange(10))  # a hint reads nothing into and writes nothing
