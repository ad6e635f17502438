"""A DiffP-ID3 / LocalDiffPID3 fit released as a single leaf says so, naming the cause in public words
(issue 37, point 6): too few records for the budget per level."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_wine  # noqa: E402

from dpmo.datasets import Feature  # noqa: E402
from dpmo.trees import DiffPID3Classifier, LocalDiffPID3Classifier, SingleLeafWarning  # noqa: E402
from dpmo.trees._messages import single_leaf_message  # noqa: E402

FEATURES = [Feature(f"f{j}", "numeric", bounds=(0.0, 1.0)) for j in range(13)]


@pytest.fixture(scope="module")
def wine():
    """Wine, class 0 against the rest, 142 training rows (80%), scaled by the columns' maxima."""
    data = load_wine()
    X = data.data / data.data.max(axis=0)
    y = (data.target == 0).astype(int)
    idx = np.random.default_rng(0).permutation(len(y))[:142]
    return X[idx], y[idx]


def _fit(cls, X, y, **kw):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        clf = cls(features=FEATURES, classes=[0, 1], **kw).fit(X, y)
    return clf, [w for w in seen if w.category is SingleLeafWarning]


@pytest.mark.parametrize("cls", [LocalDiffPID3Classifier, DiffPID3Classifier])
def test_a_single_leaf_on_a_small_table_is_said(cls, wine):
    X, y = wine
    for seed in range(3):
        clf, said = _fit(cls, X, y, epsilon=1.0, random_state=seed)
        assert clf.get_n_leaves() == 1  # 142 rows: the root's noisy count is far below 170
        assert len(said) == 1
        # max_depth 5 on 13 attributes: 6 levels, eps_c = 1 / 12, t = 5 bins (the default n_bins)
        assert str(said[0].message) == single_leaf_message(5, 1.0 / 12, 6)
    text = single_leaf_message(5, 1.0 / 12, 6)
    assert "too few records for the budget per level" in text.lower() and "at least 170 records" in text


@pytest.mark.parametrize("cls", [LocalDiffPID3Classifier, DiffPID3Classifier])
def test_a_tree_that_splits_or_cannot_split_is_not_warned_about(cls, wine):
    X, y = wine
    clf, said = _fit(cls, X, y, epsilon=200.0, max_depth=2, random_state=0)
    assert clf.get_n_leaves() > 1 and said == []
    clf, said = _fit(cls, X, y, epsilon=1.0, max_depth=0, random_state=0)  # no split allowed: by design
    assert clf.get_n_leaves() == 1 and said == []


def test_the_words_depend_on_the_public_settings_only(wine):
    X, y = wine
    _, a = _fit(LocalDiffPID3Classifier, X, y, epsilon=1.0, random_state=0)
    _, b = _fit(LocalDiffPID3Classifier, X[:60], 1 - y[:60], epsilon=1.0, random_state=1)
    assert [str(w.message) for w in a] == [str(w.message) for w in b]
