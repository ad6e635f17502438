"""PrivateTreeClassifier (issue 39): Gini sensitivity by brute force, an exact privacy audit on tiny tables,
the budget's records, and the estimator's contract.

Neighbouring relation audited: add or remove one record (same public schema and label set).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpmo import Budget
from dpmo.datasets import Feature
from dpmo.mechanisms import probabilities
from dpmo.trees import PrivateTreeClassifier
from dpmo.trees.binned_kernels import (
    GINI_SENSITIVITY,
    bin_codes,
    candidate_splits,
    gini_scores,
    node_split_counts,
    route,
)
from dpmo.trees.private_tree import auto_trees

# ------------------------------------------------------------------------------------------ sensitivity


@pytest.mark.slow
def test_gini_sensitivity_brute_force():
    """|u(x) - u(y)| <= 2 for every pair of count vectors one record apart (every cell, up and down)."""
    worst = 0.0
    for cell in itertools.product(range(9), repeat=4):
        c = np.array([cell])
        u = gini_scores(c)[0]
        for j in range(4):
            d = c.copy()
            d[0, j] += 1
            worst = max(worst, abs(gini_scores(d)[0] - u))
    assert worst <= GINI_SENSITIVITY
    assert worst > 1.5  # the bound is nearly reached (2 b^2 / ((a + b)(a + b + 1)) with a = 0, b = 8)


def test_node_split_counts_match_a_direct_count():
    rng = np.random.default_rng(3)
    is_cat = np.array([False, True, True])
    size = np.array([4, 2, 3])
    codes = np.column_stack([rng.integers(0, k, 40) for k in size])
    y = rng.integers(0, 2, 40)
    rows = np.flatnonzero(rng.random(40) < 0.6)
    splits = candidate_splits(is_cat, size)
    offsets = np.concatenate([[0], np.cumsum(size)])
    got = node_split_counts(codes, y, rows, is_cat, size, offsets, splits)
    for i, (f, k, v) in enumerate(zip(*splits, strict=True)):
        col = codes[rows, f]
        left = col < v if k == 0 else col == v
        want = [np.sum(left & (y[rows] == 0)), np.sum(left & (y[rows] == 1)),
                np.sum(~left & (y[rows] == 0)), np.sum(~left & (y[rows] == 1))]  # fmt: skip
        assert got[i].tolist() == want


# ------------------------------------------------------------------------------------------ exact audit
# Tiny schema: one numeric column in 2 bins and one categorical column with 3 categories: 4 candidate splits.
IS_CAT = np.array([False, True])
SIZE = np.array([2, 3])
SPLITS = candidate_splits(IS_CAT, SIZE)
OFFSETS = np.concatenate([[0], np.cumsum(SIZE)])
RECORDS = [(a, b, c) for a in range(2) for b in range(3) for c in range(2)]  # (bin, category, label)


def _tree_log_density(records, choice, leaves, depth, eps_level, eps_leaf, mechanism):
    """log P(tree structure ``choice`` (candidate per internal node), noisy leaf counts ``leaves``) on the
    records of one part: the product of the selections' exact probabilities and the Laplace densities."""
    codes = np.array([[r[0], r[1]] for r in records], dtype=np.int64).reshape(-1, 2)
    y = np.array([r[2] for r in records], dtype=np.int64)
    logp = 0.0
    frontier = [np.arange(len(records))]
    for level in range(depth):
        nxt = []
        for i, rows in enumerate(frontier):
            node = 2**level - 1 + i
            counts = node_split_counts(codes, y, rows, IS_CAT, SIZE, OFFSETS, SPLITS)
            scores = gini_scores(counts)
            lp = probabilities(scores, eps_level, GINI_SENSITIVITY, mechanism=mechanism, log=True)
            c = choice[node]
            logp += lp[c]
            f, k, v = SPLITS[0][c], SPLITS[1][c], SPLITS[2][c]
            col = codes[rows, f]
            left = col < v if k == 0 else col == v
            nxt += [rows[left], rows[~left]]
        frontier = nxt
    for i, rows in enumerate(frontier):
        pos = int(y[rows].sum())
        for cls, exact in enumerate((rows.size - pos, pos)):
            logp += math.log(eps_leaf / 2) - eps_leaf * abs(leaves[i][cls] - exact)
    return logp


def _log_density(table, choices, leaves, depth, n_trees, eps_level, eps_leaf, mechanism):
    """Exact log density of one output of the whole fit: a mixture over the records' parts."""
    terms = []
    for parts in itertools.product(range(n_trees), repeat=len(table)):
        lp = -len(table) * math.log(n_trees)
        for t in range(n_trees):
            mine = [r for r, p in zip(table, parts, strict=True) if p == t]
            lp += _tree_log_density(mine, choices[t], leaves[t], depth, eps_level, eps_leaf, mechanism)
        terms.append(lp)
    top = max(terms)
    return top + math.log(sum(math.exp(x - top) for x in terms))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("depth", "n_trees", "mechanism"),
    [(2, 1, "exponential"), (1, 2, "permute_and_flip"), (1, 2, "exponential")],
)
def test_exact_audit_on_tiny_tables(depth, n_trees, mechanism):
    """For tables of up to 2 records and each one-record addition: every output's density ratio <= e^eps."""
    eps, leaf_share = 1.0, 0.5
    eps_leaf, eps_level = eps * leaf_share, eps * (1 - leaf_share) / depth
    rng = np.random.default_rng(0)
    inner = 2**depth - 1
    structures = list(itertools.product(range(SPLITS[0].size), repeat=inner))
    tables = [()] + [(r,) for r in RECORDS[::3]] + [(RECORDS[1], RECORDS[6]), (RECORDS[4], RECORDS[4])]
    worst = 0.0
    for table in tables:
        for extra in RECORDS[::2]:
            bigger = (*table, extra)
            for _ in range(3):
                leaves = rng.integers(-1, 3, size=(n_trees, 2**depth, 2)).astype(float)
                for choice in itertools.islice(itertools.product(structures, repeat=n_trees), 0, None, 7):
                    a = _log_density(table, choice, leaves, depth, n_trees, eps_level, eps_leaf, mechanism)
                    b = _log_density(bigger, choice, leaves, depth, n_trees, eps_level, eps_leaf, mechanism)
                    worst = max(worst, abs(a - b))
    assert worst <= eps + 1e-9
    assert worst > 0.1  # the outputs do depend on the records


def test_the_estimator_draws_what_the_audit_describes():
    """The fitted splits are candidates of the public list and the leaves are the routed records' counts
    plus noise that shrinks with epsilon (the audit's model of the fit)."""
    X = np.array([[0.1, 0], [0.9, 2], [0.8, 1], [0.2, 2]] * 25, dtype=float)
    y = np.array([0, 1, 1, 0] * 25)
    feats = [Feature("x", "numeric", bounds=(0.0, 1.0)), Feature("c", "categorical", categories=(0, 1, 2))]
    clf = PrivateTreeClassifier(1e6, max_depth=2, n_trees=1, n_bins=2, features=feats, random_state=0)
    clf.fit(X, y)
    codes = bin_codes(X, IS_CAT, 2)
    leaf = route(codes, clf.feature_[0], clf.kind_[0], clf.value_[0], 2)
    exact = np.zeros((4, 2))
    np.add.at(exact, (leaf, y), 1)
    assert np.allclose(clf.leaf_counts_[0], exact, atol=1e-3)
    assert (clf.predict(X) == y).all()  # the first split on x (or c) separates the classes


# ------------------------------------------------------------------------------------------ estimator


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(1)
    X = rng.random((300, 3))
    y = (X[:, 0] + 0.2 * rng.standard_normal(300) > 0.5).astype(int)
    feats = [Feature(f"x{j}", "numeric", bounds=(0.0, 1.0)) for j in range(3)]
    return X, y, feats


def test_ledger_sums_to_epsilon_one_record_per_step(small):
    X, y, feats = small
    clf = PrivateTreeClassifier(0.7, max_depth=3, features=feats, random_state=0).fit(X, y)
    ledger = clf.budget_.ledger
    assert len(ledger) == 1 + 3 + 1  # the count (auto), every depth, the leaves
    assert sum(r.epsilon for r in ledger) == clf.budget_.epsilon_exact
    clf = PrivateTreeClassifier(0.7, max_depth=3, n_trees=2, leaf_share=0.3, features=feats).fit(X, y)
    assert len(clf.budget_.ledger) == 3 + 1 and clf.n_records_ is None


def test_budget_parameter_reserves_the_fit(small):
    X, y, feats = small
    shared = Budget(1.0)
    PrivateTreeClassifier(0.4, features=feats, random_state=0).fit(X, y, budget=shared)
    assert shared.remaining <= 0.6 + 1e-12
    from dpmo import BudgetExceededError

    with pytest.raises(BudgetExceededError):
        PrivateTreeClassifier(0.7, features=feats).fit(X, y, budget=shared)


def test_predictions_and_probabilities(small):
    X, y, feats = small
    clf = PrivateTreeClassifier(5.0, features=feats, random_state=0, classes=[0, 1]).fit(X, y)
    p = clf.predict_proba(X)
    assert p.shape == (300, 2) and np.allclose(p.sum(axis=1), 1) and (p >= 0).all() and (p <= 1).all()
    assert (clf.predict(X) == (p[:, 1] >= 0.5)).all()
    assert clf.score(X, y) > 0.7
    bal = PrivateTreeClassifier(5.0, objective="balanced_accuracy", features=feats, random_state=0).fit(X, y)
    assert (bal.predict(X) == (bal.predict_proba(X)[:, 1] >= bal.threshold_)).all()
    again = PrivateTreeClassifier(5.0, features=feats, random_state=0, classes=[0, 1]).fit(X, y)
    assert np.array_equal(again.leaf_counts_, clf.leaf_counts_)


def test_auto_trees_rule():
    assert auto_trees(1.0, 400.0, 5) == 10  # ceil(4096 / 400) = 11, capped at 10
    assert auto_trees(1.0, 1e6, 5) == 1
    assert auto_trees(0.1, 4096.0 * 10 / 3, 5) == 3  # ceil(4096 / 1365.3)
    assert all(1 <= auto_trees(e, n, 5) <= 10 for e in (0.01, 1, 10) for n in (-5, 0, 10, 1e9))


@pytest.mark.parametrize(
    ("param", "value", "error"),
    [("max_depth", 0, ValueError), ("n_trees", 0, ValueError), ("n_bins", 1, ValueError),
     ("leaf_share", 1.0, ValueError), ("mechanism", "laplace", ValueError), ("objective", "auc", ValueError),
     ("epsilon", -1.0, ValueError), ("delta", 1.0, ValueError)],
)  # fmt: skip
def test_bad_parameters_are_refused(small, param, value, error):
    X, y, feats = small
    with pytest.raises(error, match=param if param != "epsilon" else "epsilon"):
        PrivateTreeClassifier(**{param: value}, features=feats).fit(X, y)


@pytest.mark.slow
def test_check_estimator_passes_except_declared_dp_checks():
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    from dpmo.trees import expected_failed_checks

    est = PrivateTreeClassifier(max_depth=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, expected_failed_checks=expected_failed_checks(est), on_fail=None,
                                  on_skip=None)  # fmt: skip
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert failed == []
    assert sum(r["status"] == "passed" for r in results) >= 50


def test_fit_says_the_same_whatever_the_records(small):
    """No warning depends on the records (an out-of-bounds value is clipped silently), and a table whose
    records all carry one label fits when the label set is declared."""
    import warnings

    X, y, feats = small
    outside = X.copy()
    outside[0, 0] = 7.0  # outside the public bounds [0, 1]: clipped, silently
    for table in (X, outside):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            PrivateTreeClassifier(features=feats, classes=[0, 1], random_state=0).fit(table, y)
    one = PrivateTreeClassifier(features=feats, classes=[0, 1], random_state=0).fit(X, np.zeros(300, int))
    assert one.predict(X).shape == (300,)


def test_dpmoet_says_what_it_optimises(capsys):
    """Issue 39, point 3: DP-MOET's docstring and ``dpmo trees --help`` say it optimises a cost-sensitive
    trade-off, not accuracy, and how to ask for accuracy or balanced accuracy."""
    from dpmo.cli import main
    from dpmo.trees import DPMOETClassifier

    doc = " ".join(DPMOETClassifier.__doc__.split())
    assert "not accuracy" in doc and "weights=(1, 1)" in doc and "PrivateTreeClassifier" in doc
    with pytest.raises(SystemExit):
        main(["trees", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "not accuracy" in out and "--weights 1 1" in out and "PrivateTreeClassifier" in out
