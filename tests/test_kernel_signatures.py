"""Each compiled kernel is compiled for one signature whatever arrays its callers hold, with the same results.

numba compiles a kernel once per tuple of argument types (dtype, layout C/F/neither, read-only or not, a
literal constant): every extra signature costs each process with an empty cache a compile (0.1 to 1.5 s of
CPU). The callers give the kernels one type per argument (:func:`dpmo._kernel_args.kernel_input`), so a
caller's C, Fortran-ordered, strided, read-only or integer table gives the same results as a plain float64
table (compared with numpy references written here) and no second compile. The signature counts hold in any
order of the suite: every call path of these kernels goes through the normalising callers. The graph
kernels, which `tests/test_graphs_csr.py` also calls directly (both record widths), are checked on the
argument types their callers pass (:func:`_spy`), not on the process's compiled signatures.
"""

from __future__ import annotations

import numpy as np

from dpmo.trees import EncodedData, TreePopulation, tree_from_nested


def _layouts(X: np.ndarray) -> list[np.ndarray]:
    """``X`` as C, Fortran-ordered, strided, read-only and integer-valued arrays of the same values."""
    frozen = X.copy()
    frozen.setflags(write=False)
    wide = np.repeat(X, 2, axis=1)[:, ::2]  # neither C nor F contiguous
    return [X, np.asfortranarray(X), wide, frozen]


def _walk(tree, x) -> int:
    """The preorder index of the leaf a row reaches in a nested tree (a per-row reference walk)."""
    i = 0
    while not isinstance(tree, int):
        f, v, cat, left, right = tree
        goes_left = x[f] == v if cat else x[f] <= v
        size_left = _size(left)
        i, tree = (i + 1, left) if goes_left else (i + 1 + size_left, right)
    return i


def _size(tree) -> int:
    return 1 if isinstance(tree, int) else 1 + _size(tree[3]) + _size(tree[4])


def test_leaf_index_compiles_once_for_every_table_and_tree():
    from dpmo.trees import bitsets

    rng = np.random.default_rng(0)
    X = np.round(rng.random((40, 3)) * 4) / 4  # ties with the thresholds
    nested = (0, 0.5, False, (2, 1.0, True, 0, 1), (1, 0.25, False, 1, 0))
    pop = TreePopulation([tree_from_nested(nested), tree_from_nested(1)])
    want = np.array([_walk(nested, x) for x in X])
    for table in [*_layouts(X), (X * 4).astype(np.int64) / 4]:
        got = pop.leaf_index(table)
        assert np.array_equal(got[0], want) and np.array_equal(
            got[1], np.full(len(X), _size(nested))
        )  # the leaf after tree 0
        assert np.array_equal(pop[0].predict(table), np.array(pop.label)[want])  # a Tree's frozen arrays
    assert len(bitsets._leaf_index.signatures) == 1


def test_domain_check_compiles_once_for_every_layout():
    from dpmo.trees import raw_tables

    rng = np.random.default_rng(1)
    top, is_cat = np.array([1.0, 2.0, 1.0]), np.array([False, True, False])
    inside = np.column_stack([rng.random(30), rng.integers(0, 3, 30), rng.random(30)])
    for bad in (None, (4, 0, 1.5), (7, 1, 0.5), (9, 2, -0.1)):  # a numeric overflow, a fraction, a negative
        X = inside.copy()
        if bad is not None:
            X[bad[0], bad[1]] = bad[2]
        want = bool(((X < 0) | (X > top) | (is_cat & (np.floor(X) != X))).any())
        assert want == (bad is not None)
        for table in _layouts(X):
            assert bool(raw_tables._outside(table, top, is_cat)) == want
    assert len(raw_tables._any_outside.signatures) == 1


def test_split_tables_compile_once_for_every_code_width():
    import pandas as pd

    from dpmo.datasets import Feature
    from dpmo.trees import bitsets
    from dpmo.trees.columns import coded_columns

    features = [Feature("c", "categorical", tuple("abcd")), Feature("x", "numeric", bounds=(0, 1))]
    frame = pd.DataFrame({"c": list("abcdabca"), "x": [0.1, 0.5, 0.5, 0.9, 0.0, 1.0, 0.3, 0.1]})
    columns = coded_columns(frame, features, "frame")  # narrow (uint8) codes
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    lean = EncodedData.from_columns(columns, y)
    plain = EncodedData(columns.to_matrix(), y)  # int64 codes
    assert np.array_equal(lean.tables, plain.tables)
    assert len(bitsets.add_column_sets.signatures) == 1


def test_breeding_helpers_compile_once():
    from dpmo.trees import breeding
    from dpmo.trees.id3_kernels import _frontier_mask, undominated_cells

    rng = np.random.default_rng(2)
    is_cat, ncat = np.array([False, True, False]), np.array([0, 3, 0])
    parents, offsets = breeding.random_population(6, 2, is_cat, ncat, rng)
    breeding.breed(parents, offsets, 4, 3, is_cat, ncat, rng)
    for kernel in (breeding._copy_rows, breeding._replace, breeding._random_tree, breeding._reserve):
        assert len(kernel.signatures) <= 1, kernel  # none when breed was loaded from the cache
    b, o, _ = undominated_cells(
        np.array([5.0, 1.0, 3.0]), np.array([2.0, 2.0, 2.0]), np.zeros(3, int), both=True
    )
    # cells (5, 2), (1, 2), (3, 2) and (2, 5), (2, 1), (2, 3): (1, 2) and (2, 5) are the undominated ones
    # (b' <= b, o' >= o), (5, 2) and (2, 1) those in reverse order; (3, 2) and (2, 3) are dominated both ways
    want = [(1.0, 2.0), (2.0, 1.0), (2.0, 5.0), (5.0, 2.0)]
    assert sorted(zip(b.tolist(), o.tolist(), strict=True)) == want
    assert len(_frontier_mask.signatures) <= 1


def test_bracket_compiles_once_for_both_layouts_and_frozen_utilities():
    from dpmo import breakpoints

    rng = np.random.default_rng(3)
    d = np.sort(rng.random((3, 50)) * 2 + 0.01, axis=0)  # non-decreasing deltas per candidate
    u = rng.normal(0, 3, 50)
    frozen = u.copy()
    frozen.setflags(write=False)
    results = []
    for deltas, utilities in ((d, u), (np.asfortranarray(d), u), (d, frozen), (np.asfortranarray(d), frozen)):
        D = np.zeros(50)
        left, b_next, last = breakpoints.bracket(deltas, None, utilities, None, 0, None, 1e-9, D)
        results.append((left, b_next, last, D))
    # the reference: ends_j = d_0 + ... + d_j; a candidate is bracketed at the first j with |u| < ends_j,
    # where D = (j + (|u| - (ends_j - d_j)) / d_j) sign(u); else it is left with b = ends of the last step
    ends = np.cumsum(d, axis=0)
    for c in range(50):
        j = int(np.argmax(np.abs(u[c]) < ends[:, c])) if (np.abs(u[c]) < ends[:, c]).any() else None
        for left, b_next, _, D in results:
            if j is None:
                assert c in left.tolist() and b_next[left.tolist().index(c)] == ends[-1, c]
            else:
                assert D[c] == (j + (abs(u[c]) - (ends[j, c] - d[j, c])) / d[j, c]) * np.sign(u[c])
    assert len(breakpoints._bracket_kernel.signatures) == 1


def _spy(monkeypatch, module, name: str) -> list:
    """Replace the kernel ``module.name`` by a wrapper that records the numba type of every argument its
    Python callers pass (what numba compiles a signature for), then calls it: the count of distinct type
    tuples is that of this test's calls, whatever other tests of the same process compiled before (a test
    of the kernels themselves calls them with other arrays)."""
    import numba

    kernel, seen = getattr(module, name), []

    def wrapper(*args):
        seen.append(tuple(numba.typeof(a) for a in args))
        return kernel(*args)

    monkeypatch.setattr(module, name, wrapper)
    return seen


def test_graph_kernels_compile_once_for_frozen_and_narrow_arrays(monkeypatch):
    from dpmo.graphs import centrality, csr

    names = ("_degree_ranks", "_record_ends", "_fill_records", "_ego_density_kernel")
    calls = {name: _spy(monkeypatch, centrality, name) for name in names}
    calls["_upper_pairs"] = _spy(monkeypatch, csr, "_upper_pairs")
    rng = np.random.default_rng(4)
    indptr, indices = csr.csr_from_pairs(rng.integers(0, 30, 120), rng.integers(0, 30, 120), 30)
    frozen_ptr, frozen_idx = indptr.copy(), indices.copy()
    frozen_ptr.setflags(write=False)
    frozen_idx.setflags(write=False)
    adjacency = np.zeros((30, 30), dtype=np.int64)
    for r in range(30):
        adjacency[r, indices[indptr[r] : indptr[r + 1]]] = 1
    want = np.diag(adjacency @ adjacency @ adjacency) // 2  # triangles through each node
    for p, i in ((indptr, indices), (frozen_ptr, frozen_idx)):
        assert np.array_equal(centrality.csr_triangles(p, i), want)
        edges = csr.csr_edges(p, i)
        assert np.array_equal(edges, np.argwhere(np.triu(adjacency, 1)))
    degree = np.diff(indptr)
    ego = [
        centrality.ego_density_from_counts(degree.astype(dt), want.astype(dt), 0.0, "paper")
        for dt in (np.int64, np.int32, np.uint16)
    ]
    ref = np.where(degree >= 2, 2.0 * want / np.maximum(degree * (degree - 1.0), 1.0), 0.0)
    for e in ego:
        assert np.array_equal(e, ref)
    for name, seen in calls.items():  # every kernel called, always with the same argument types
        assert len(seen) >= 2 and len(set(seen)) == 1, (name, sorted(set(map(str, seen))))
