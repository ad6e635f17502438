"""The prediction-time clipping warning speaks of what the caller passed, and counts the columns it does not
list (issue 37, point 7)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dpmo.datasets import Feature
from dpmo.trees import DiffPID3Classifier
from dpmo.trees.raw_tables import check_domains, listed

COLUMNS = [f"c{j}" for j in range(14)]


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((40, 14)), columns=COLUMNS)
    y = np.arange(40) % 2
    return X, y


def _predict_warnings(clf, X) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        clf.predict(X)
    return [str(w.message) for w in seen if w.category is UserWarning]


def test_listed_counts_the_rest():
    assert listed(["a"]) == "['a']"
    assert listed(COLUMNS) == "['c0', 'c1', 'c2', 'c3', 'c4'] and 9 more"
    assert listed(COLUMNS[:5]) == repr(COLUMNS[:5])


def test_a_dataframe_without_declared_bounds(table):
    X, y = table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = DiffPID3Classifier(1.0, random_state=0, classes=[0, 1]).fit(X, y)
    msgs = _predict_warnings(clf, X * 10)
    assert len(msgs) == 1
    (msg,) = msgs
    assert "['c0', 'c1', 'c2', 'c3', 'c4'] and 9 more" in msg
    assert "default public range [0, 1]" in msg and "features=" in msg
    assert "encoded" not in msg and "DataFrame" not in msg  # the user encoded nothing and passed a DataFrame


def test_declared_bounds_are_named_once_for_all_columns(table):
    X, y = table
    features = [Feature(c, "numeric", bounds=(0.0, 2.0)) for c in COLUMNS]
    clf = DiffPID3Classifier(1.0, features=features, random_state=0, classes=[0, 1]).fit(X, y)
    assert _predict_warnings(clf, X) == []
    msgs = _predict_warnings(clf, X * 10)
    assert len(msgs) == 1  # one warning, not one per column
    assert "['c0' (0.0, 2.0), 'c1' (0.0, 2.0)," in msgs[0]
    assert "and 9 more" in msgs[0] and "public bounds" in msgs[0]
    assert "encoded" not in msgs[0]


def test_the_encoded_form_is_named_only_for_encoded_tables():
    X = np.full((3, 7), 2.0)
    names = [f"f{j}" for j in range(7)]
    for kind, needle in (("encoded", "the encoded table"), ("default", "default public range")):
        with pytest.warns(UserWarning) as seen:
            check_domains(X, None, names, warn=kind)
        msg = str(seen[0].message)
        assert needle in msg and "and 2 more" in msg
        assert ("encoded" in msg) == (kind == "encoded")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the training table: clipped silently
        assert check_domains(X, None, names, warn=None).max() == 1.0
