"""The tree estimators at the edges of their parameters: refused with a message naming the parameter, or a
valid model (finite probabilities in [0, 1]); never a NaN, an overflow or an error from deep inside.

Rules under test (``dpmo.trees.budget_params``, the estimators' docstrings): epsilon at least 1e-100; a
budget share 0 (where allowed) or in [1e-6, 1 - 1e-6]; ``n_bins`` at most 1024; ``max_depth`` at most 12
(PrivateTree) and 16 (DP-MOET); distinct column names; ``weights`` two finite numbers, the same trees
whatever their common power-of-two scale; a fit with ``delta > 0`` at a large epsilon.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpmo.datasets import Feature
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier, PrivateTreeClassifier

SMALL = {"population_size": 4, "selection_size": 2, "n_iterations": 1}
FLOAT = {**SMALL, "exact": False}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DefaultBoundsWarning, InferredClassesWarning, SingleLeafWarning
        yield


def _xy(n=80):
    rng = np.random.default_rng(0)
    X = rng.random((n, 3))
    return X, (X[:, 0] > 0.5).astype(int)


def _valid(model, X):
    p = model.predict_proba(X)
    assert np.all(np.isfinite(p)) and p.min() >= 0 and p.max() <= 1
    assert np.allclose(p.sum(axis=1), 1.0)


MAKERS = {
    "DPMOET": lambda **kw: DPMOETClassifier(**SMALL, **kw),
    "DPMOET-exact": lambda **kw: DPMOETClassifier(**SMALL, exact=True, **kw),
    "DiffPID3": lambda **kw: DiffPID3Classifier(max_depth=2, **kw),
    "DiffPID3-exact": lambda **kw: DiffPID3Classifier(max_depth=2, exact=True, **kw),
    "LocalDiffPID3": lambda **kw: LocalDiffPID3Classifier(max_depth=2, **kw),
    "PrivateTree": lambda **kw: PrivateTreeClassifier(max_depth=2, **kw),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_the_smallest_epsilon_fits_and_smaller_ones_are_refused(name):
    X, y = _xy()
    make = MAKERS[name]
    _valid(make(epsilon=1e-100, random_state=0).fit(X, y), X)
    for eps in (1e-101, 1e-307, 5e-324):
        with pytest.raises(ValueError, match=r"^epsilon must be at least 1e-100"):
            make(epsilon=eps, random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "make, name, low, high",
    [
        (lambda s: DPMOETClassifier(**FLOAT, leaf_count_share=s), "leaf_count_share", 1e-310, 1.0),
        (lambda s: DPMOETClassifier(**SMALL, leaf_count_share=s, exact=True), "leaf_count_share", 1e-7, 1.0),
        (lambda s: DPMOETClassifier(**SMALL, final_share=s), "final_share", 1e-7, 0.9999999),
        (lambda s: PrivateTreeClassifier(max_depth=2, leaf_share=s), "leaf_share", 1e-7, 0.9999999),
    ],
)
def test_shares_at_their_limits(make, name, low, high):
    """A share at 1e-6 or 1 - 1e-6 gives a valid model, even at the smallest epsilon; beyond, refused by
    name (formerly: NaN probabilities, an OverflowError, or a message about epsilon)."""
    X, y = _xy()
    for s in (1e-6, 1 - 1e-6):
        _valid(make(s).set_params(epsilon=1e-100, random_state=0).fit(X, y), X)
    for s in (low, high):
        with pytest.raises(ValueError, match=rf"^{name} must be"):
            make(s).set_params(random_state=0).fit(X, y)


def test_size_caps_are_stated():
    X, y = _xy()
    cases = [
        (PrivateTreeClassifier(max_depth=13), "max_depth"),
        (PrivateTreeClassifier(n_bins=1025), "n_bins"),
        (DiffPID3Classifier(n_bins=1025), "n_bins"),
        (LocalDiffPID3Classifier(n_bins=2**40), "n_bins"),
        (DPMOETClassifier(max_depth=17, initial_depth=3), "max_depth"),
    ]
    for est, name in cases:
        with pytest.raises(ValueError, match=rf"^{name} must be"):
            est.set_params(random_state=0).fit(X, y)
    _valid(PrivateTreeClassifier(max_depth=1, n_bins=1024, random_state=0).fit(X, y), X)


def test_large_epsilon_with_delta_fits():
    """The approximate-DP plan at epsilon 3000 (steps above 700: accounted as pure) -- formerly an
    OverflowError inside the accountant."""
    X, y = _xy()
    model = DPMOETClassifier(**SMALL, epsilon=3000.0, delta=1e-6, random_state=0).fit(X, y)
    _valid(model, X)
    assert model.budget_.spent_exact <= 3000 and model.budget_.ledger  # recorded, within the budget


def test_weights_are_checked_and_their_scale_does_not_matter():
    X, y = _xy()
    for bad in ("ab", ("a", 1), (1.0, 2.0, 3.0), (0.0, 0.0), (np.nan, 1.0)):
        with pytest.raises(ValueError, match="^weights must be two finite numbers"):
            DPMOETClassifier(**SMALL, weights=bad).fit(X, y)
    tiny = DPMOETClassifier(**SMALL, weights=(5e-324, 5e-324), random_state=3).fit(X, y)
    unit = DPMOETClassifier(**SMALL, weights=(1.0, 1.0), random_state=3).fit(X, y)
    assert tiny.trees_ == unit.trees_  # scaled by a power of two: the same scores, the same draws


def test_duplicate_columns_and_features_are_refused():
    pd = pytest.importorskip("pandas")
    a = np.random.default_rng(0).random(60)
    y = (a > 0.5).astype(int)
    feats = [Feature("x", "numeric", bounds=(0, 1))]
    twice = pd.concat([pd.DataFrame({"x": a}), pd.DataFrame({"x": 1 - a})], axis=1)
    alike = pd.DataFrame({1: a, "1": 1 - a})
    for make in (DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier, PrivateTreeClassifier):
        with pytest.raises(ValueError, match="distinct names"):
            make(features=feats, random_state=0).fit(twice, y)
        with pytest.raises(ValueError, match="distinct names"):
            make(features=[Feature("1", "numeric", bounds=(0, 1))], random_state=0).fit(alike, y)
        with pytest.raises(ValueError, match="described twice"):
            make(features=feats * 2, random_state=0).fit(pd.DataFrame({"x": a}), y)


def test_to_text_with_too_few_names():
    X, y = _xy()
    moet = DPMOETClassifier(**SMALL, max_depth=3, random_state=0).fit(X, y).trees_[0]
    id3 = DiffPID3Classifier(50.0, max_depth=3, random_state=0).fit(X, y).tree_
    for tree in (moet, id3):
        used = int(tree.feature.max())
        if used < 1:
            continue
        with pytest.raises(ValueError, match="names 1 columns"):
            tree.to_text(["a"])
        assert tree.to_text(["a", "b", "c"])
