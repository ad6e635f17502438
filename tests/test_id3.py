"""DiffPID3Classifier and LocalDiffPID3Classifier: API, tree structure, budget, and the paper's figures."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import clone

from dpmo.datasets import Dataset, EncodedTable, Feature, load_acs, load_nltcs
from dpmo.metrics import tpr_tnr, weighted_fitness
from dpmo.trees import DiffPID3Classifier, InferredClassesWarning, LocalDiffPID3Classifier, SingleLeafWarning
from dpmo.trees.id3 import ID3Tree, split_choice_scores

ESTIMATORS = [DiffPID3Classifier, LocalDiffPID3Classifier]
PARAMS = {"epsilon", "max_depth", "criterion", "random_state", "features", "n_bins", "max_records"}
PARAMS |= {"mechanism", "classes", "exact", "delta"}


def synthetic(n: int = 400, seed: int = 0) -> Dataset:
    """Label = x0 (binary categorical) except for 5% flips; x1 ternary noise; x2 numeric noise in [0, 1]."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 2, n)
    x1 = rng.integers(0, 3, n)
    x2 = rng.random(n)
    y = np.where(rng.random(n) < 0.05, 1 - x0, x0).astype(np.int8)
    features = (
        Feature("x0", "categorical", (0, 1)),
        Feature("x1", "categorical", ("a", "b", "c")),
        Feature("x2", "numeric", bounds=(0.0, 1.0)),
    )
    return Dataset(np.column_stack([x0, x1, x2]).astype(float), y, features, "synthetic")


def fitness(clf, X, y) -> float:
    return float(weighted_fitness(tpr_tnr(y, clf.predict(X)), (3.0, 2.0)))


# ------------------------------------------------------------------------------------------------------
# scikit-learn API


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_parameters_and_clone(cls):
    clf = cls(0.5, max_depth=3, criterion="gini", random_state=7, n_bins=4)
    params = clf.get_params()
    assert set(params) == PARAMS
    assert params["epsilon"] == 0.5 and params["max_depth"] == 3 and params["criterion"] == "gini"
    assert params["random_state"] == 7 and params["n_bins"] == 4 and params["max_records"] == 100_000
    twin = clone(clf)
    assert twin.get_params() == params and twin is not clf
    clf.set_params(criterion="max", epsilon=2.0)
    assert clf.criterion == "max" and clf.epsilon == 2.0
    assert not hasattr(twin, "tree_")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_fit_predict_and_score(cls):
    data = synthetic()
    clf = cls(5.0, max_depth=3, features=data.features, random_state=0)
    assert clf.fit(data.X, data.y) is clf
    pred = clf.predict(data.X)
    assert pred.shape == (data.X.shape[0],) and set(np.unique(pred)) <= {0, 1}
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert clf.n_features_in_ == 3
    assert 0.0 <= clf.score(data.X, data.y) <= 1.0
    assert isinstance(clf.tree_, ID3Tree)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_dataset_input_supplies_labels_and_metadata(cls):
    data = synthetic()
    a = cls(5.0, random_state=3).fit(data)
    b = cls(5.0, features=data.features, random_state=3).fit(data.X, data.y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.predict(data), b.predict(data.X))
    np.testing.assert_array_equal(a.domain_sizes_, [2, 3, 5])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_same_seed_same_tree_and_seeds_matter(cls):
    data = synthetic()
    fits = [cls(2.0, features=data.features, random_state=s).fit(data.X, data.y) for s in (1, 1, 2)]
    np.testing.assert_array_equal(fits[0].tree_.feature, fits[1].tree_.feature)
    np.testing.assert_array_equal(fits[0].tree_.noisy_count, fits[1].tree_.noisy_count)
    assert not np.array_equal(fits[0].tree_.noisy_count, fits[2].tree_.noisy_count, equal_nan=True)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_generator_random_state_is_used_and_advanced(cls):
    data = synthetic()
    rng = np.random.default_rng(0)
    a = cls(2.0, features=data.features, random_state=rng).fit(data.X, data.y)
    b = cls(2.0, features=data.features, random_state=rng).fit(data.X, data.y)
    assert not np.array_equal(a.tree_.noisy_count, b.tree_.noisy_count, equal_nan=True)


# ------------------------------------------------------------------------------------------------------
# what the trees contain


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("criterion", ["info_gain", "gini", "max"])
def test_large_epsilon_finds_the_informative_attribute(cls, criterion):
    data = synthetic(n=600, seed=1)
    clf = cls(1e6, max_depth=1, criterion=criterion, features=data.features, random_state=0)
    clf.fit(data.X, data.y)
    assert clf.tree_.feature[0] == 0  # root splits on x0
    expected_acc = np.mean(data.y == data.X[:, 0])  # the best one-split tree predicts y = x0
    assert clf.score(data.X, data.y) == pytest.approx(expected_acc)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_tree_structure(cls):
    data = synthetic(n=2000, seed=2)
    clf = cls(50.0, max_depth=5, features=data.features, n_bins=4, random_state=0).fit(data.X, data.y)
    tree = clf.tree_
    domain = np.array([2, 3, 4])
    assert tree.max_depth <= 3  # three attributes, each used at most once on a path
    internal = np.nonzero(tree.feature >= 0)[0]
    assert internal.size >= 1
    for i in internal:
        f = tree.feature[i]
        assert tree.n_children[i] == domain[f]  # one child per public value, empty ones included
        kids = tree.first_child[i] + np.arange(tree.n_children[i])
        assert np.all(tree.depth[kids] == tree.depth[i] + 1)
    # no attribute twice on a path
    parent = {int(c): int(i) for i in internal for c in tree.first_child[i] + np.arange(tree.n_children[i])}
    for leaf in np.nonzero(tree.feature < 0)[0]:
        seen, node = [], int(leaf)
        while node in parent:
            node = parent[node]
            seen.append(int(tree.feature[node]))
        assert len(seen) == len(set(seen))
    # leaves predict the larger of their released noisy counts
    leaves = tree.feature < 0
    np.testing.assert_array_equal(tree.label[leaves], tree.leaf_counts[leaves].argmax(axis=1))
    assert np.all(np.isnan(tree.leaf_counts[~leaves]))
    assert clf.get_n_leaves() == int(leaves.sum()) and clf.get_depth() == tree.max_depth
    assert "x0 = 0:" in tree.to_text(["x0", "x1", "x2"])


def _walk(tree: ID3Tree, codes_row: np.ndarray) -> int:
    node = 0
    while tree.feature[node] >= 0:
        node = tree.first_child[node] + codes_row[tree.feature[node]]
    return node


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_predict_matches_a_row_by_row_walk(cls):
    data = synthetic(n=1500, seed=3)
    clf = cls(20.0, features=data.features, n_bins=5, random_state=4).fit(data.X, data.y)
    Xt = np.random.default_rng(9).random((300, 3))
    Xt[:, 0] = Xt[:, 0] > 0.5
    Xt[:, 1] = np.floor(Xt[:, 1] * 3)
    Xt[:5, 2] = [0.0, 0.2, 0.7999, 0.8, 1.0]  # bin edges: 1.0 falls in the last bin
    codes = Xt.astype(np.int64)
    codes[:, 2] = np.minimum(np.floor(Xt[:, 2] * 5), 4).astype(np.int64)
    np.testing.assert_array_equal(codes[:5, 2], [0, 1, 3, 4, 4])
    Xt = EncodedTable(Xt, data.features)  # encoded, as the Dataset it was fitted on
    expect = np.array([clf.tree_.label[_walk(clf.tree_, row)] for row in codes])
    np.testing.assert_array_equal(clf.predict(Xt), expect)
    np.testing.assert_array_equal(clf.apply(Xt), [_walk(clf.tree_, row) for row in codes])


def test_without_features_every_column_is_numeric():
    data = synthetic()
    plain = np.asarray(data.X[:, [0, 2]])  # a plain array: no features (data.X would bring its own)
    clf = DiffPID3Classifier(5.0, n_bins=3, random_state=0).fit(plain, data.y)
    np.testing.assert_array_equal(clf.domain_sizes_, [3, 3])
    assert not clf.categorical_.any()


def test_max_criterion_makes_both_estimators_identical():
    # the local sensitivity of "max" is its global sensitivity 1, so local dampening is the identity
    data = synthetic(n=800, seed=5)
    kw = dict(criterion="max", features=data.features, random_state=11)
    a = DiffPID3Classifier(3.0, **kw).fit(data.X, data.y)
    b = LocalDiffPID3Classifier(3.0, **kw).fit(data.X, data.y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.leaf_counts, b.tree_.leaf_counts)


def test_tiny_budget_gives_a_single_leaf():
    data = synthetic(n=100)
    with pytest.warns(SingleLeafWarning, match="Too few records for the budget per level"):
        clf = LocalDiffPID3Classifier(1e-3, features=data.features, random_state=0).fit(data.X, data.y)
    assert clf.tree_.n_nodes == 1 and clf.get_depth() == 0
    assert np.isfinite(clf.tree_.noisy_count[0])


# ------------------------------------------------------------------------------------------------------
# privacy budget


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("max_depth, n_features, levels", [(5, 3, 4), (2, 3, 3), (0, 3, 1)])
def test_ledger_sums_to_epsilon(cls, max_depth, n_features, levels):
    data = synthetic()
    clf = cls(0.7, max_depth=max_depth, features=data.features, random_state=0).fit(data.X, data.y)
    ledger = clf.budget_.ledger
    assert all(isinstance(r.what, str) and r.epsilon > 0 for r in ledger)
    assert len(ledger) == 2 * (levels - 1) + 1  # per depth: count + choice-or-leaf; last depth: leaves
    assert sum(r.epsilon for r in ledger) == Fraction("0.7")  # exact
    level_share = Fraction("0.7") / levels
    for r in ledger[:-1]:
        assert r.epsilon == level_share / 2
    assert ledger[-1].epsilon == level_share
    assert "leaves" in ledger[-1].what


def test_noise_scales_follow_the_budget_split():
    # root count: Lap(1 / eps_c) with eps_c = eps / (2 (L + 1)); depth-L leaves: Lap(1 / eps_level).
    # The mean absolute deviation of a Laplace variable is its scale.
    data = synthetic(n=300, seed=6)
    eps, depth = 3.0, 1  # L = 1: two depths, eps_level = 1.5, eps_c = 0.75
    root_dev, leaf_dev = [], []
    for s in range(400):
        clf = DiffPID3Classifier(eps, max_depth=depth, features=data.features, random_state=s)
        clf.fit(data.X, data.y)
        root_dev.append(abs(clf.tree_.noisy_count[0] - 300))
        if clf.tree_.feature[0] >= 0:
            f = clf.tree_.feature[0]
            child = clf.tree_.first_child[0]  # value 0 of the split attribute
            mask = data.X[:, f] == 0 if f < 2 else data.X[:, f] < 0.2
            true = np.array([np.sum(mask & (data.y == 0)), np.sum(mask & (data.y == 1))])
            leaf_dev.extend(np.abs(clf.tree_.leaf_counts[child] - true))
    assert np.mean(root_dev) == pytest.approx(1 / 0.75, rel=0.15)
    assert len(leaf_dev) > 400
    assert np.mean(leaf_dev) == pytest.approx(1 / 1.5, rel=0.15)


def test_noisy_count_sensitivity_warns():
    data = synthetic()
    with pytest.warns(UserWarning, match="not a worst-case bound"):
        DiffPID3Classifier(1.0, max_records=None, features=data.features, random_state=0).fit(data.X, data.y)
    # LocalDiffPID3 needs no bound: no warning
    LocalDiffPID3Classifier(1.0, max_records=None, features=data.features, random_state=0).fit(data.X, data.y)


def test_own_curves_on_negative_scores_prefer_a_worse_attribute_and_the_default_does_not():
    # Why LocalDiffPID3 dampens the non-negative criterion with the node's shared curve. D(x, r) dampens
    # each candidate with its own sensitivity curve and is odd in the score; with Friedman and Schuster's
    # negative info gain (-|T| H(C | A)) a more sensitive candidate is dampened towards 0, i.e. favoured.
    # Attribute 0: pure-ish large cells; attribute 1: a slightly worse split with a tiny cell.
    n0 = np.array([900.0, 100.0, 950.0, 2.0])
    n1 = np.array([100.0, 900.0, 300.0, 750.0])
    groups = np.array([0, 0, 1, 1])
    u, _ = split_choice_scores(n0, n1, groups, 2, local=False)
    assert u[0] > u[1]
    D, one = split_choice_scores(n0, n1, groups, 2, local=True, nonnegative=False, shared=False)
    assert one == 1.0 and D[1] > D[0]  # the worse attribute wins
    D, one = split_choice_scores(n0, n1, groups, 2, local=True)  # shipped: u + |T|, shared curve
    assert one == 1.0 and D[0] > D[1] > 0


# ------------------------------------------------------------------------------------------------------
# input validation


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_parameters_are_refused(cls):
    data = synthetic(n=50)
    bad = [
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": "1"}, TypeError, "epsilon"),
        ({"max_depth": -1}, ValueError, "max_depth"),
        ({"max_depth": 2.5}, TypeError, "max_depth"),
        ({"criterion": "entropy"}, ValueError, "criterion"),
        ({"n_bins": 0}, ValueError, "n_bins"),
        ({"mechanism": "magic"}, ValueError, "mechanism"),
        ({"max_records": 0}, ValueError, "max_records"),  # a larger table than max_records fits (clipped)
    ]
    for params, err, match in bad:
        clf = cls(1.0, features=data.features).set_params(**params)
        with pytest.raises(err, match=match):
            clf.fit(data.X, data.y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_data_is_refused(cls):
    data = synthetic(n=50)
    clf = cls(1.0, features=data.features, random_state=0)
    X = data.X.copy()
    with pytest.raises(ValueError, match="binary"):
        clf.fit(X, data.y + np.arange(data.y.size) % 3)
    with pytest.raises(ValueError, match="different numbers of rows"):  # the numbers are not shown
        clf.fit(X, data.y[:-1])
    X[0, 1] = 3  # ternary attribute: code 3 is outside its public domain
    with pytest.raises(ValueError, match="codes"):
        clf.fit(X, data.y)
    X = data.X.copy()
    X[0, 2] = 1.5  # numeric columns are scaled to [0, 1]: clipped to the public range
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # clipped silently: a warning would depend on the records
        # ... except the constant InferredClassesWarning of every fit without a declared label set
        warnings.filterwarnings("ignore", category=InferredClassesWarning)
        warnings.filterwarnings("ignore", category=SingleLeafWarning)  # a property of the release
        clf.fit(X, data.y)
    X[0, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(X, data.y)
    with pytest.raises(ValueError, match="features describes"):
        cls(1.0, features=data.features[:2]).fit(np.asarray(data.X), data.y)
    with pytest.raises(ValueError, match="differ from the ones the estimator declares"):
        cls(1.0, features=data.features[:2]).fit(data.X, data.y)
    with pytest.raises(ValueError, match="requires y"):
        clf.fit(data.X)
    with pytest.raises(Exception, match="not fitted"):
        cls(1.0).predict(data.X)
    fitted = cls(1.0, features=data.features, random_state=0).fit(data.X, data.y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(data.X[:, :2])


# ------------------------------------------------------------------------------------------------------
# the paper's figure (tree aggregation experiment, NLTCS, epsilon = 1) and where local dampening pays off


@pytest.fixture(scope="module")
def nltcs(shared_data):
    return load_nltcs(shared_data / "nltcs.dat")


def paired_fitness(data, epsilon: float, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Fitness of LocalDiffPID3 and DiffP-ID3 for the same seeds (the same count and leaf noise)."""
    local, diffp = [], []
    for s in seeds:
        for cls, out in ((LocalDiffPID3Classifier, local), (DiffPID3Classifier, diffp)):
            clf = cls(epsilon, features=data.features, random_state=s).fit(data)
            out.append(fitness(clf, data.X, data.y))
    return np.array(local), np.array(diffp)


def test_nltcs_fitness_matches_the_paper_and_beats_diffp_id3(nltcs):
    # Acceptance of issue 7: NLTCS, epsilon = 1, depth 5, info gain, seeds 0..11 paired. The paper's
    # LocalDiffPID3 at epsilon = 1: 3.95 (3 TPR + 2 TNR on the training data).
    local, diffp = paired_fitness(nltcs, 1.0, range(12))
    assert abs(np.mean(local) - 3.95) <= 0.3
    # at least DiffP-ID3's mean with the same settings (mean paired difference >= 0, no tolerance). The
    # 40-seed benchmark gives +0.052 +- 0.015 (3.4 standard errors), so 12 seeds are enough to be stable.
    assert np.mean(local - diffp) >= 0.0
    assert 3.0 < min(local) and max(local) <= 5.0


def test_local_dampening_beats_the_global_sensitivity_on_acs(shared_data):
    # ACS: at epsilon = 0.1 local dampening's finer resolution pays (40 seeds: +0.33 +- 0.10); at epsilon
    # = 1 both find the same trees (+0.004 +- 0.003), and LocalDiffPID3 is never behind on average.
    data = load_acs(shared_data / "acs.dat")
    local, diffp = paired_fitness(data, 0.1, range(6))
    assert np.mean(local - diffp) > 0.1
    local, diffp = paired_fitness(data, 1.0, range(4))
    assert np.mean(local - diffp) >= 0.0
    assert abs(np.mean(local) - 4.69) <= 0.3  # the paper's LocalDiffPID3 on ACS at epsilon = 1


def test_info_gain_bound_matches_friedman_schuster():
    assert DiffPID3Classifier(1.0).max_records == 100_000
    counts = (np.array([10.0, 5.0]), np.array([5.0, 10.0]), np.array([0, 0]), 1)
    _, sens = split_choice_scores(*counts, max_records=100_000)
    assert sens == pytest.approx(math.log2(100_001) + 1 / math.log(2))
    _, noisy = split_choice_scores(*counts, max_records=None, noisy_count=14.2)
    assert noisy == pytest.approx(math.log2(15.2) + 1 / math.log(2))
    with pytest.raises(ValueError, match="noisy_count"):
        split_choice_scores(*counts, max_records=None)
