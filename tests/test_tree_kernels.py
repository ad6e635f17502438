"""Tests of the compiled tree kernels: the population operators of ``dpmo.trees.breeding`` against the
one-tree operators, the bitset evaluation against a per-row walk, the fit against a reference loop written
with the public operators, the module layering, and the simplification of printed trees.

References are independent of the code under test: Python loops over the public one-tree operators
(``random_tree``, ``crossover``, ``mutate``, ``prune``), a per-row walk of the nested form, and a brute
force over a grid of points that covers every cell the tests of a tree can tell apart.
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo.datasets import Feature, load_breast_cancer
from dpmo.trees import (
    DPMOETClassifier,
    EncodedData,
    TreePopulation,
    crossover,
    mutate,
    prune,
    random_tree,
    tree_from_nested,
)
from dpmo.trees.breeding import breed, node_arrays, node_matrix, random_population
from dpmo.trees.operations import feature_spec

FEATURES = (
    Feature("num0", "numeric", bounds=(0, 1)),
    Feature("cat1", "categorical", ("a", "b", "c")),
    Feature("num2", "numeric", bounds=(0, 1)),
    Feature("bin3", "categorical", (0, 1)),
)
ONE_CATEGORY = (Feature("only", "categorical", ("x",)),)  # integers(1) draws nothing
NODE_ARRAYS = ("feature", "value", "categorical", "label", "size", "depth")


def ref_generation(parents, n_pairs, dmax, features, rng):
    """One generation of children with the public one-tree operators (the paper's loop, in Python)."""
    children = []
    for _ in range(n_pairs):
        m = len(parents) + len(children)
        a, b = rng.choice(m, size=2, replace=False) if m >= 2 else (0, 0)
        pool = parents + children
        c1, c2 = crossover(pool[int(a)], pool[int(b)], rng)
        children.append(prune(mutate(c1, dmax, features, rng), dmax, rng))
        children.append(prune(mutate(c2, dmax, features, rng), dmax, rng))
    return children


def nested(population):
    return [t.to_nested() for t in population]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dmax=st.integers(0, 7),
    d=st.integers(0, 4),
    n_par=st.integers(1, 5),
    n_pairs=st.integers(0, 6),
    which=st.sampled_from(["mixed", "numeric", "one-category"]),
)
def test_population_operators_make_the_draws_of_the_one_tree_operators(seed, dmax, d, n_par, n_pairs, which):
    features = {"mixed": FEATURES, "numeric": 3, "one-category": ONE_CATEGORY}[which]
    is_cat, ncat = feature_spec(features)
    d = min(d, dmax)
    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    nodes, offsets = random_population(n_par, d, is_cat, ncat, fast)
    population = TreePopulation.from_arrays(*node_arrays(nodes), offsets).check()
    parents = [random_tree(d, features, slow) for _ in range(n_par)]
    assert nested(population) == nested(parents)
    nodes, offsets = breed(
        node_matrix([getattr(population, a) for a in NODE_ARRAYS]),
        population.offsets,
        n_pairs,
        dmax,
        is_cat,
        ncat,
        fast,
    )
    want = ref_generation(parents, n_pairs, dmax, features, slow)
    if n_pairs:
        children = TreePopulation.from_arrays(*node_arrays(nodes), offsets).check()
        assert nested(children) == nested(want)
        for t in children:  # the same arrays as the operators' trees (sizes, depths, dtypes)
            assert t == want[children.trees.index(t)]
    else:
        assert offsets.tolist() == [0]
    assert fast.random() == slow.random()  # the generator is left in the same state


def ref_predict(tree, X):
    out = []
    for x in X:
        node = tree.to_nested()
        while not isinstance(node, int):
            f, v, cat, left, right = node
            node = left if ((x[f] == v) if cat else (x[f] <= v)) else right
        out.append(node)
    return np.array(out, dtype=np.int8)


def random_nested(rng, depth, d, uniform_prob):
    """A random tree as nested tuples; some subtrees have one label only (the kernel's shortcut)."""
    if depth == 0 or rng.random() < 0.2:
        return int(rng.integers(2))
    if rng.random() < uniform_prob:
        label = int(rng.integers(2))
        return (int(rng.integers(d)), float(rng.integers(0, 5)) / 4, False, label, label)
    f = int(rng.integers(d))
    cat = f == 1
    v = float(rng.integers(0, 3)) if cat else float(rng.integers(-1, 6)) / 4
    return (
        f,
        v,
        cat,
        random_nested(rng, depth - 1, d, uniform_prob),
        random_nested(rng, depth - 1, d, uniform_prob),
    )


@pytest.mark.parametrize("n", [1, 64, 130])
def test_bitset_walk_matches_the_per_row_walk(n):
    rng = np.random.default_rng(n)
    X = np.column_stack([rng.integers(0, 5, n) / 4, rng.integers(0, 3, n), rng.integers(0, 5, n) / 4])
    y = rng.integers(0, 2, n)
    trees = [tree_from_nested(random_nested(rng, 8, 3, p)) for p in (0.0, 0.3, 0.8) for _ in range(15)]
    trees += [tree_from_nested(0), tree_from_nested(1), tree_from_nested((0, 0.5, False, 1, 1))]
    expected = np.array([ref_predict(t, X) for t in trees])
    pop = TreePopulation(trees)
    enc = EncodedData(X, y, engine="bitset")
    np.testing.assert_array_equal(pop.predict(enc), expected)
    tp, P, tn, N = pop.counts(enc)
    np.testing.assert_array_equal(tp, (expected == 1).astype(int) @ (y == 1))
    np.testing.assert_array_equal(N - tn, (expected == 1).astype(int) @ (y == 0))
    # the same population built from its arrays, and a reordered subset of it
    again = TreePopulation.from_arrays(*(getattr(pop, a) for a in NODE_ARRAYS), pop.offsets)
    np.testing.assert_array_equal(again.counts(enc)[0], tp)
    idx = [5, 0, 5, 44]
    np.testing.assert_array_equal(pop.take(idx).counts(enc)[0], tp[idx])
    assert pop.take(idx)[2] == trees[5] and again[-1] == trees[-1]
    both = pop.take([1]).concat(again.take([2, 3]))
    assert nested(both) == nested([trees[1], trees[2], trees[3]])


def ref_fit(est, X, y):
    """DP-MOET's loop with the public one-tree operators and the estimator's own private selections."""
    features = est.features
    p, s, k = est.population_size, est.selection_size, est.n_iterations
    rng = np.random.default_rng(est.random_state)
    enc = EncodedData(X, y)
    P, N = enc.positives, enc.negatives
    eps_round = None if est.epsilon is None else est.epsilon / (k + 1)
    pop = [random_tree(est.initial_depth, features, rng) for _ in range(p)]
    tp, _, tn, _ = TreePopulation(pop).counts(enc)
    w = np.asarray(est.weights, dtype=float)
    for _ in range(k):
        keep = est._select(tp, P, tn, N, s, eps_round, "generation", rng, None, w)
        pop = [pop[i] for i in keep]
        children = ref_generation(pop, p // 2, est.max_depth, features, rng)
        ctp, _, ctn, _ = TreePopulation(children).counts(enc)
        pop += children
        tp, tn = np.concatenate([tp[keep], ctp]), np.concatenate([tn[keep], ctn])
    final = est._select(tp, P, tn, N, est.n_output, eps_round, "final", rng, None, w)
    return [pop[i] for i in final]


@pytest.mark.parametrize("approach", ["pareto", "agg"])
@pytest.mark.parametrize("epsilon", [None, 1.0])
def test_fit_equals_the_loop_of_the_public_operators(approach, epsilon):
    data = load_breast_cancer()
    settings_ = dict(  # no leaf counts: ref_fit gives every round epsilon / (k + 1), as the paper
        population_size=9,
        selection_size=3,
        n_iterations=2,
        initial_depth=2,
        max_depth=5,
        n_output=2,
        leaf_count_share=0,
    )
    for seed in range(3):
        est = DPMOETClassifier(
            epsilon, approach=approach, features=data.features, random_state=seed, **settings_
        )
        est.fit(data.X, data.y)
        want = ref_fit(est, data.X, data.y)
        assert nested(est.trees_) == nested(want)


@pytest.mark.slow
def test_tree_modules_do_not_import_each_other_back():
    # tree.py builds on export/simplify/bitsets, evaluation.py on tree.py: no module imports one above it
    code = (
        "import sys, dpmo.trees.export, dpmo.trees.simplify, dpmo.trees.bitsets;"
        "assert 'dpmo.trees.tree' not in sys.modules and 'dpmo.trees.evaluation' not in sys.modules;"
        "import dpmo.trees.tree; assert 'dpmo.trees.evaluation' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------------------
# simplified printing


def grid(tree, features):
    """Points that meet every cell of the tree's tests: each category, each threshold, the points between
    and beyond consecutive thresholds within the public domain."""
    axes = []
    for f, feat in enumerate(features):
        if feat.is_categorical:
            axes.append([float(c) for c in range(feat.n_categories)])
            continue
        cuts = sorted(
            {0.0, 1.0} | {float(v) for v, g in zip(tree.value, tree.feature, strict=True) if g == f}
        )
        cuts = [c for c in cuts if 0.0 <= c <= 1.0]
        mids = [(a + b) / 2 for a, b in itertools.pairwise(cuts)]
        axes.append(sorted(set(cuts) | set(mids)))
    return np.array(list(itertools.product(*axes)), dtype=float)


def leaves_reached(tree, X):
    leaves = TreePopulation([tree]).leaf_index(X)[0]
    return set(leaves.tolist()), set(np.flatnonzero(tree.feature < 0).tolist())


SCHEMA = (
    Feature("smoker", "categorical", ("0", "1")),
    Feature("age", "numeric", bounds=(0, 100)),
    Feature("colour", "categorical", ("r", "g", "b")),
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 6))
def test_simplified_tree_predicts_alike_and_has_no_unreachable_leaf(seed, depth):
    rng = np.random.default_rng(seed)
    tree = mutate(random_tree(depth, SCHEMA, rng), depth + 2, SCHEMA, rng)  # repeated tests are common
    simple = tree.simplify(SCHEMA)
    X = grid(tree, SCHEMA)
    np.testing.assert_array_equal(simple.predict(X), tree.predict(X))
    reached, leaves = leaves_reached(simple, X)
    assert reached == leaves  # every branch of the simplified tree is taken by some point of the domain
    assert simple.n_nodes <= tree.n_nodes
    # every test splits its rows: no decision node sends every point of the grid the same way
    lab = TreePopulation([simple]).leaf_index(X)[0]
    for i in np.flatnonzero(simple.feature >= 0):
        inside = (lab >= i) & (lab < i + simple.size[i])
        left_end = i + 1 + simple.size[i + 1]
        assert np.any(inside & (lab < left_end)) and np.any(inside & (lab >= left_end))
    # without the schema only the tests on the paths are used: still the same predictions
    np.testing.assert_array_equal(tree.simplify().predict(X), tree.predict(X))


def test_printed_trees_drop_repeated_and_unreachable_tests():
    smoker_twice = tree_from_nested((0, 0.0, True, (0, 0.0, True, 1, (1, 0.5, False, 0, 1)), 0))
    text = smoker_twice.to_text(SCHEMA)
    assert text.count("smoker") == 1 and "age" not in text  # the inner test and its dead branch are gone
    assert text.splitlines() == ["if smoker == '0':", "    predict 1", "else:", "    predict 0"]
    assert smoker_twice.to_text(SCHEMA, simplify=False).count("smoker") == 2  # as stored, on request
    # a threshold above the one on the path, a category excluded on the path, two equal branches
    dead = tree_from_nested(
        (
            1,
            0.3,
            False,
            (1, 0.6, False, (2, 1.0, True, 0, (2, 1.0, True, 0, 1)), 0),  # age <= 0.6 under age <= 0.3
            (0, 1.0, True, 1, 1),  # both branches predict 1
        )
    )
    d = dead.to_dict(SCHEMA)
    assert d["right"] == {"leaf": 1}
    assert d["left"]["feature"] == "colour" and d["left"]["right"] == {"leaf": 1}
    assert dead.to_text(SCHEMA).count("age") == 1
    # the last category left on a path decides the test (domain of the schema)
    last = tree_from_nested((2, 0.0, True, 0, (2, 1.0, True, 1, (2, 2.0, True, 0, 1))))
    assert last.to_text(SCHEMA).count("colour") == 2 and last.to_text().count("x[2]") == 3


# ---------------------------------------------------------------------------------------------------------
# compiled sensitivity kernels: the same floats as the numpy forms they replace


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    common=st.booleans(),
    substitution=st.booleans(),
    shape=st.sampled_from(["scalar", "block", "per-candidate", "wide"]),
    subset=st.booleans(),
)
def test_rate_kernels_give_the_floats_of_the_numpy_forms(seed, common, substitution, shape, subset):
    from dpmo.trees import objectives

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    s = np.full(n, int(rng.integers(0, 40))) if common else rng.integers(0, 40, n)
    h = np.array([int(rng.integers(0, si + 1)) for si in s])
    f = objectives._RateDelta(h, s, substitution=substitution)
    idx = rng.integers(0, n, int(rng.integers(1, n + 2))) if subset else None
    q = n if idx is None else idx.size
    t = {
        "scalar": int(rng.integers(0, 50)),
        "block": np.arange(int(rng.integers(0, 40)), 45)[:, None],
        "per-candidate": rng.integers(0, 60, q),
        "wide": rng.integers(0, 60, (3, q)),
    }[shape]
    fast = f(t, idx), f.cumulative(t, idx)
    with pytest.MonkeyPatch.context() as patch:  # the numpy forms
        patch.setattr(objectives._RateDelta, "_grid", lambda self, *a, **k: None)
        slow = f(t, idx), f.cumulative(t, idx)
    for a, b in zip(fast, slow, strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)  # bit for bit


@pytest.mark.parametrize("criterion", ["info_gain", "gini"])
@pytest.mark.parametrize("nonnegative", [False, True])
def test_node_curve_kernel_gives_the_floats_of_the_numpy_form(criterion, nonnegative):
    from dpmo.trees.split_sensitivity import cell_local_sensitivity, node_local_sensitivity

    rng = np.random.default_rng(7)
    for _ in range(40):
        m = int(rng.integers(1, 9))
        n0 = rng.integers(0, 60, m).astype(float)
        n1 = rng.integers(0, 60, m).astype(float)
        groups = np.sort(rng.integers(0, 3, m))
        f = node_local_sensitivity(
            n0, n1, groups, 3, criterion=criterion, nonnegative=nonnegative, shared=True
        )
        t = np.arange(int(rng.integers(0, 30)), 70)[:, None]
        b, o = np.concatenate([n0, n1]), np.concatenate([n1, n0])
        want = cell_local_sensitivity(b, o, t, criterion=criterion, nonnegative=nonnegative).max(axis=1)
        got = f(t, np.array([0, 2]))
        assert np.array_equal(got, np.column_stack([want, want]))  # bit for bit
        assert np.array_equal(f(5), f(np.array([[5]]))[0])  # a single distance: the same curve


def test_id3_count_kernels_match_numpy():
    from dpmo.trees.id3_kernels import class_counts, split_node

    rng = np.random.default_rng(3)
    # the fit's narrow dtypes (dpmo.trees.id3_counts), so the kernels compile for the fit's signature only
    codes = rng.integers(0, 4, (300, 5)).astype(np.int16)
    y = rng.integers(0, 2, 300).astype(np.int8)
    offsets = np.arange(6) * 4
    flat = np.ascontiguousarray(codes + offsets[:-1], dtype=np.int16)
    rows = np.sort(rng.choice(300, 120, replace=False)).astype(np.int32)

    def ref(r, attrs):
        keys = flat[np.ix_(r, attrs)] * 2 + y[r, None]
        return np.bincount(keys.ravel(), minlength=40).reshape(20, 2)

    attrs = np.array([0, 2, 3, 4])
    parent = class_counts(flat, y, rows, attrs, 20)
    np.testing.assert_array_equal(parent, ref(rows, attrs))
    child_attrs = np.array([0, 2, 4])
    columns = np.ascontiguousarray(codes.T)
    for with_tables in (True, False):
        grouped, bounds, positives, tables = split_node(
            rows, columns, flat, y, 3, 4, child_attrs, offsets, parent, with_tables
        )
        order = np.argsort(codes[rows, 3], kind="stable")  # each group keeps the order of rows
        np.testing.assert_array_equal(grouped, rows[order])
        np.testing.assert_array_equal(np.diff(bounds), np.bincount(codes[rows, 3], minlength=4))
        used = np.isin(np.repeat(np.arange(5), 4), child_attrs)  # the values of the child attributes
        for v in range(4):
            part = grouped[bounds[v] : bounds[v + 1]]
            assert positives[v] == y[part].sum()
            if with_tables:  # every child, the largest one by subtraction from the parent's counts
                np.testing.assert_array_equal(tables[v][used], ref(part, child_attrs)[used])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), both=st.booleans())
def test_undominated_cells_are_the_brute_force_frontier(seed, both):
    from dpmo.trees.id3_kernels import undominated_cells

    rng = np.random.default_rng(seed)
    m, hi = int(rng.integers(1, 25)), int(rng.integers(1, 12))
    n0, n1 = rng.integers(0, hi, m).astype(float), rng.integers(0, hi, m).astype(float)
    groups = rng.integers(0, 3, m)
    cells = {(int(g), b, o) for g, b, o in zip(groups, n0, n1, strict=True)}
    cells |= {(int(g), o, b) for g, b, o in zip(groups, n0, n1, strict=True)}

    def frontier(better):  # distinct cells no other cell of the group is at least as good as
        return {c for c in cells if not any(d != c and d[0] == c[0] and better(d, c) for d in cells)}

    want = frontier(lambda d, c: d[1] <= c[1] and d[2] >= c[2])
    if both:
        want |= frontier(lambda d, c: d[1] >= c[1] and d[2] <= c[2])
    b, o, g = undominated_cells(n0, n1, groups, both=both)
    assert set(zip(g.tolist(), b.tolist(), o.tolist(), strict=True)) == want
    assert list(g) == sorted(g)  # grouped


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    cats=st.lists(st.integers(0, 6), min_size=1, max_size=6),  # 0: a numeric column, k: k categories
    bins=st.integers(1, 9),
    seed=st.integers(0, 2**16),
)
def test_encode_indices_writes_the_codes_of_encode_codes(n, cats, bins, seed):
    """The ID3 fit's one-pass encoding equals encode_codes plus the attribute offsets (flat) and its
    transpose (columns), in the narrow dtype, values at the bin edges included."""
    from dpmo.trees.id3_kernels import encode_codes, encode_indices

    rng = np.random.default_rng(seed)
    is_cat = np.array([c > 0 for c in cats])
    size = np.array([c if c > 0 else bins for c in cats], dtype=np.int64)
    edges = np.arange(bins + 1) / bins  # numeric values on and between the bin edges, 0 and 1 included
    X = np.column_stack(
        [
            rng.integers(0, c, n).astype(float) if c else rng.choice(np.r_[edges, rng.random(5)], n)
            for c in cats
        ]
    )
    offsets = np.concatenate([[0], np.cumsum(size)])[:-1].astype(np.int64)
    codes = encode_codes(X, is_cat, size)
    flat, columns = np.empty((n, len(cats)), np.int16), np.empty((len(cats), n), np.int16)
    encode_indices(X, is_cat, size, offsets, flat, columns)
    assert flat.tolist() == (codes + offsets).tolist() and columns.tolist() == codes.T.tolist()
