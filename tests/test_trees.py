"""Tests of the array-based trees, the genetic operators and the vectorised evaluation.

Expectations come from independent references written here: trees as nested tuples, a per-row recursive
traversal, subtree surgery on nested tuples, and hand-built examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo.datasets import Feature
from dpmo.trees import Tree, TreePopulation, crossover, mutate, prune, random_tree
from dpmo.trees.encoding import EncodedData
from dpmo.trees.tree import tree_from_nested

FEATURES = (
    Feature("num0", "numeric", bounds=(0, 1)),
    Feature("cat1", "categorical", ("a", "b", "c")),
    Feature("num2", "numeric", bounds=(0, 1)),
    Feature("bin3", "categorical", (0, 1)),
)


# ---------------------------------------------------------------------------------------------------------
# independent references on nested tuples: (feature, value, categorical, left, right) or a leaf label


def ref_predict_row(node, x):
    while not isinstance(node, int):
        f, v, cat, left, right = node
        go_left = (x[f] == v) if cat else (x[f] <= v)
        node = left if go_left else right
    return node


def ref_nodes(node, depth=0, out=None):
    """Preorder list of (node, depth)."""
    out = [] if out is None else out
    out.append((node, depth))
    if not isinstance(node, int):
        ref_nodes(node[3], depth + 1, out)
        ref_nodes(node[4], depth + 1, out)
    return out


def ref_replace(node, target, new):
    """Replace the subtree at preorder index ``target``; returns (new tree, next index)."""

    def walk(n, i):
        if i == target:
            return new, i + len(ref_nodes(n))
        if isinstance(n, int):
            return n, i + 1
        left, j = walk(n[3], i + 1)
        right, k = walk(n[4], j)
        return (n[0], n[1], n[2], left, right), k

    return walk(node, 0)[0]


def ref_subtree(node, target):
    return ref_nodes(node)[target][0]


def ref_depth(node):
    return max(d for _, d in ref_nodes(node))


def random_data(rng, n):
    X = np.column_stack(
        [
            rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n),  # ties with thresholds are common
            rng.integers(0, 3, n).astype(float),
            rng.random(n),
            rng.integers(0, 2, n).astype(float),
        ]
    )
    y = rng.integers(0, 2, n)
    return X, y


# ---------------------------------------------------------------------------------------------------------
# structure


def test_tree_from_nested_roundtrip_and_layout():
    nested = (0, 0.5, False, (1, 2.0, True, 1, 0), 1)
    t = tree_from_nested(nested)
    assert t.to_nested() == nested
    np.testing.assert_array_equal(t.feature, [0, 1, -1, -1, -1])
    np.testing.assert_array_equal(t.size, [5, 3, 1, 1, 1])
    np.testing.assert_array_equal(t.depth, [0, 1, 2, 2, 1])
    np.testing.assert_array_equal(t.left, [1, 2, -1, -1, -1])
    np.testing.assert_array_equal(t.right, [4, 3, -1, -1, -1])
    assert t.max_depth == 2 and t.n_leaves == 3 and t.n_nodes == 5
    assert t.to_text(FEATURES).splitlines() == [
        "if num0 <= 0.5:",
        "    if cat1 == 'c':",
        "        predict 1",
        "    else:",
        "        predict 0",
        "else:",
        "    predict 1",
    ]
    scaled = (Feature("age", "numeric", bounds=(17, 90)),) + FEATURES[1:]
    assert t.to_text(scaled).splitlines()[0] == "if age <= 53.5:"  # original units


def test_tree_validation():
    with pytest.raises(ValueError, match="size"):
        Tree([0, -1, -1], [0.5, 0, 0], [False] * 3, [0, 1, 0], [3, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match="depth"):
        Tree([0, -1, -1], [0.5, 0, 0], [False] * 3, [0, 1, 0], [3, 1, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="full binary tree"):
        Tree([0, -1], [0.5, 0], [False] * 2, [0, 1], [2, 1], [0, 1])
    with pytest.raises(ValueError, match="labels"):
        Tree([-1], [0], [False], [2], [1], [0])
    with pytest.raises(ValueError):
        tree_from_nested((0, 0.5, False, 1))
    with pytest.raises(AttributeError):
        tree_from_nested(1).feature = None


@pytest.mark.parametrize("depth", [0, 1, 3, 6])
def test_random_tree_is_full_and_uses_public_domains(depth):
    rng = np.random.default_rng(depth)
    t = random_tree(depth, FEATURES, rng)
    assert t.n_nodes == 2 ** (depth + 1) - 1
    leaves = t.feature < 0
    assert np.all(t.depth[leaves] == depth) and np.all(t.depth[~leaves] < depth)
    assert set(np.unique(t.label[leaves])) <= {0, 1}
    f = t.feature[~leaves]
    v = t.value[~leaves]
    cat = t.categorical[~leaves]
    np.testing.assert_array_equal(cat, np.isin(f, [1, 3]))
    assert np.all((v[~cat] >= 0) & (v[~cat] < 1))
    ncat = np.array([0, 3, 0, 2])[f[cat]]
    assert np.all((v[cat] == np.floor(v[cat])) & (v[cat] >= 0) & (v[cat] < ncat))
    Tree(t.feature, t.value, t.categorical, t.label, t.size, t.depth)  # passes full validation


def test_random_tree_distribution():
    rng = np.random.default_rng(0)
    feats, cats, labels = [], [], []
    for _ in range(400):
        t = random_tree(3, FEATURES, rng)
        inner = t.feature >= 0
        feats.extend(t.feature[inner])
        cats.extend(t.value[inner & (t.feature == 1)])
        labels.extend(t.label[~inner])
    counts = np.bincount(feats, minlength=4) / len(feats)
    np.testing.assert_allclose(counts, 0.25, atol=0.03)
    np.testing.assert_allclose(np.bincount(np.array(cats, int), minlength=3) / len(cats), 1 / 3, atol=0.04)
    assert abs(np.mean(labels) - 0.5) < 0.03


def test_random_tree_reproducible_and_validated():
    a = random_tree(4, FEATURES, 7)
    b = random_tree(4, FEATURES, np.random.default_rng(7))
    assert a == b
    assert a != random_tree(4, FEATURES, 8)
    assert random_tree(2, 3, 0).categorical.sum() == 0  # int = numeric features
    with pytest.raises(ValueError):
        random_tree(-1, FEATURES, 0)
    with pytest.raises(TypeError):
        random_tree(2.5, FEATURES, 0)
    with pytest.raises(TypeError):
        random_tree(2, ["a", "b"], 0)


# ---------------------------------------------------------------------------------------------------------
# operators


def test_subtree_and_replace_match_nested_surgery():
    rng = np.random.default_rng(1)
    for _ in range(30):
        t = prune(mutate(random_tree(3, FEATURES, rng), 5, FEATURES, rng), 5, rng)
        s = random_tree(int(rng.integers(0, 3)), FEATURES, rng)
        i = int(rng.integers(t.n_nodes))
        assert t.subtree(i).to_nested() == ref_subtree(t.to_nested(), i)
        r = t.replace(i, s)
        assert r.to_nested() == ref_replace(t.to_nested(), i, s.to_nested())
        Tree(r.feature, r.value, r.categorical, r.label, r.size, r.depth)  # sizes and depths consistent


def test_crossover_swaps_the_drawn_subtrees():
    rng = np.random.default_rng(3)
    for seed in range(20):
        t1 = random_tree(int(rng.integers(0, 4)), FEATURES, rng)
        t2 = random_tree(int(rng.integers(0, 4)), FEATURES, rng)
        draw = np.random.default_rng(seed)
        a, b = int(draw.integers(t1.n_nodes)), int(draw.integers(t2.n_nodes))
        c1, c2 = crossover(t1, t2, np.random.default_rng(seed))
        n1, n2 = t1.to_nested(), t2.to_nested()
        assert c1.to_nested() == ref_replace(n1, a, ref_subtree(n2, b))
        assert c2.to_nested() == ref_replace(n2, b, ref_subtree(n1, a))
        assert c1.n_nodes + c2.n_nodes == t1.n_nodes + t2.n_nodes


def test_mutate_replaces_one_node_by_a_full_tree_within_max_depth():
    rng = np.random.default_rng(4)
    for seed in range(30):
        t = random_tree(3, FEATURES, rng)
        i = int(np.random.default_rng(seed).integers(t.n_nodes))
        m = mutate(t, 6, FEATURES, np.random.default_rng(seed))
        new = m.subtree(i)
        want = 6 - int(t.depth[i])
        assert new.n_nodes == 2 ** (want + 1) - 1 and new.max_depth == want  # full random tree
        assert m.to_nested() == ref_replace(t.to_nested(), i, new.to_nested())
        assert m.max_depth <= 6


def test_mutate_below_max_depth_gives_a_leaf():
    deep = random_tree(5, FEATURES, 0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        m = mutate(deep, 2, FEATURES, rng)
        assert m.n_nodes <= deep.n_nodes + 2**3 - 1


def test_prune_matches_reference():
    rng = np.random.default_rng(5)
    for _ in range(20):
        t = mutate(random_tree(4, FEATURES, rng), 8, FEATURES, rng)
        dmax = int(rng.integers(0, 6))
        p = prune(t, dmax, rng)
        assert p.max_depth <= dmax

        def cut(node, depth, dmax=dmax):
            if isinstance(node, int):
                return node
            if depth == dmax:
                return "leaf"
            return (node[0], node[1], node[2], cut(node[3], depth + 1), cut(node[4], depth + 1))

        def mask(node, ref, depth, dmax=dmax):  # the labels of the new leaves become "leaf"
            if ref == "leaf":
                assert isinstance(node, int) and depth == dmax
                return "leaf"
            if isinstance(ref, int):
                return node
            return (
                node[0],
                node[1],
                node[2],
                mask(node[3], ref[3], depth + 1),
                mask(node[4], ref[4], depth + 1),
            )

        ref = cut(t.to_nested(), 0)
        assert mask(p.to_nested(), ref, 0) == ref
        Tree(p.feature, p.value, p.categorical, p.label, p.size, p.depth)
    shallow = random_tree(2, FEATURES, 0)
    assert prune(shallow, 2, 0) is shallow


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dmax=st.integers(0, 7), d=st.integers(0, 4))
def test_operator_sequences_keep_valid_trees(seed, dmax, d):
    rng = np.random.default_rng(seed)
    d = min(d, dmax)
    pop = [random_tree(d, FEATURES, rng) for _ in range(4)]
    for _ in range(6):
        i, j = rng.choice(len(pop), 2, replace=False)
        c1, c2 = crossover(pop[i], pop[j], rng)
        for c in (c1, c2):
            c = prune(mutate(c, dmax, FEATURES, rng), dmax, rng)
            assert c.max_depth <= dmax
            Tree(c.feature, c.value, c.categorical, c.label, c.size, c.depth)
            pop.append(c)


# ---------------------------------------------------------------------------------------------------------
# evaluation


def test_paper_example_global_sensitivity_tree():
    # the paper's example: one record x1 = 0.7 (label 1) versus x1' = 0.3 (label 1), threshold 0.5
    t = tree_from_nested((0, 0.5, False, 0, 1))
    for X, tp in (([[0.7]], 1), ([[0.3]], 0)):
        tp_, p_, tn_, n_ = TreePopulation([t]).counts(np.array(X), [1])
        assert (int(tp_[0]), int(p_[0]), int(tn_[0]), int(n_[0])) == (tp, 1, 0, 0)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 500])
@pytest.mark.slow
def test_population_matches_per_row_traversal(n):
    rng = np.random.default_rng(n)
    X, y = random_data(rng, n)
    trees = [random_tree(int(rng.integers(0, 4)), FEATURES, rng) for _ in range(6)]
    trees += [prune(mutate(t, 7, FEATURES, rng), 7, rng) for t in trees]
    # splits on values present in the data (ties), absent categories, thresholds below every value
    trees.append(tree_from_nested((0, 0.5, False, (1, 2.0, True, 1, 0), (3, 1.0, True, 0, 1))))
    trees.append(tree_from_nested((0, -1.0, False, 1, (1, 7.0, True, 1, 0))))
    nested = [t.to_nested() for t in trees]
    expected = np.array([[ref_predict_row(nt, x) for x in X] for nt in nested])
    pop = TreePopulation(trees)
    np.testing.assert_array_equal(pop.predict(X), expected)
    enc = EncodedData(X, y)
    assert enc.bitset
    np.testing.assert_array_equal(pop.predict(enc), expected)
    tp = (expected == 1).astype(int) @ (y == 1).astype(int)
    fp = (expected == 1).astype(int) @ (y == 0).astype(int)
    P, N = int(y.sum()), int(n - y.sum())
    for engine in ("bitset", "level"):
        enc = EncodedData(X, y, engine=engine)
        assert enc.bitset == (engine == "bitset")
        TP, P_, TN, N_ = pop.counts(enc)
        np.testing.assert_array_equal(TP, tp)
        np.testing.assert_array_equal(TN, N - fp)
        assert np.all(P_ == P) and np.all(N_ == N)
    np.testing.assert_array_equal(pop.counts(X, y)[0], tp)
    assert trees[3].predict(X).tolist() == expected[3].tolist()


def test_cached_encoding_follows_the_contents_not_the_object():
    rng = np.random.default_rng(5)
    X, y = random_data(rng, 80)
    pop = TreePopulation([random_tree(3, FEATURES, rng) for _ in range(4)])
    first = EncodedData.cached(X, y)
    assert EncodedData.cached(X.copy(), y.copy()) is first  # equal contents: reused
    assert not first.tables.flags.writeable and not first.X.flags.writeable
    before = pop.counts(first)
    # the caller changes its arrays in place: the cached encoding keeps the old contents ...
    X[:, 0] = 1.0 - X[:, 0]
    np.testing.assert_array_equal(pop.counts(first)[0], before[0])
    # ... and the changed data get a fresh encoding with their own counts
    changed = EncodedData.cached(X, y)
    assert changed is not first
    np.testing.assert_array_equal(pop.counts(changed)[0], pop.counts(X, y)[0])
    y2 = 1 - y
    assert EncodedData.cached(X, y2) is not changed  # labels are part of the key
    np.testing.assert_array_equal(pop.counts(EncodedData.cached(X, y2))[0], pop.counts(X, y2)[0])
    # bounded: old entries are dropped
    for i in range(1, EncodedData.CACHE_SIZE + 2):
        EncodedData.cached(np.roll(X, i, axis=0), np.roll(y, i))
    assert len(EncodedData._CACHE) == EncodedData.CACHE_SIZE
    assert EncodedData.cached(X, y) is not changed  # evicted, encoded again


def test_leaf_index_points_to_leaves():
    rng = np.random.default_rng(11)
    X, _ = random_data(rng, 50)
    pop = TreePopulation([random_tree(3, FEATURES, rng) for _ in range(3)])
    leaves = pop.leaf_index(X)
    assert np.all(pop.feature[leaves] < 0)
    for i in range(3):
        assert np.all((leaves[i] >= pop.offsets[i]) & (leaves[i] < pop.offsets[i + 1]))


def test_population_input_errors():
    pop = TreePopulation([tree_from_nested((5, 0.5, False, 0, 1))])
    with pytest.raises(ValueError, match="feature 5"):
        pop.predict(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        pop.predict(np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        TreePopulation([tree_from_nested(1)]).predict(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="labels"):
        TreePopulation([tree_from_nested(1)]).counts(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="binary"):
        EncodedData(np.zeros((2, 1)), [0, 2])
    with pytest.raises(ValueError):
        TreePopulation([])
    with pytest.raises(ValueError, match="engine"):
        EncodedData(np.zeros((2, 1)), engine="gpu")
    assert not EncodedData(np.arange(10.0)[:, None], max_distinct=5).bitset  # auto falls back
