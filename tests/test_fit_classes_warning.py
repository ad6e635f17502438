"""A fit whose label set nobody declared says so, with words that do not depend on the labels (issue 37,
point 5). The label set is public input (docs/public-inputs.md); without ``classes=`` it is read from
``y``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from dpmo.datasets import Dataset, Feature  # noqa: E402
from dpmo.trees import (  # noqa: E402
    DiffPID3Classifier,
    DPMOETClassifier,
    EncodedData,
    InferredClassesWarning,
    LocalDiffPID3Classifier,
    SingleLeafWarning,
)
from dpmo.trees._messages import INFERRED_CLASSES_MESSAGE  # noqa: E402

SMALL = {
    DPMOETClassifier: dict(population_size=4, selection_size=2, n_iterations=1),
    DiffPID3Classifier: dict(max_depth=2),
    LocalDiffPID3Classifier: dict(max_depth=2),
}
FEATURES = (Feature("a", "numeric", bounds=(0, 1)), Feature("b", "numeric", bounds=(0, 1)))
X = np.random.default_rng(2).random((30, 2))


def _said(fit) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            fit()
        except ValueError:
            pass
    # a single-leaf tree is said too (a property of the release, tests/test_id3_single_leaf.py): not counted
    return [(w.category, str(w.message)) for w in seen if w.category is not SingleLeafWarning]


@pytest.mark.parametrize("cls", list(SMALL))
def test_an_undeclared_label_set_warns_the_same_for_every_y(cls):
    labels = [
        np.arange(30) % 2,
        np.where(np.arange(30) % 3 == 0, "spam", "ham"),
        np.zeros(30, dtype=int),  # one label: refused, after the same warning
    ]
    said = [
        _said(lambda y=y: cls(1.0, features=FEATURES, random_state=0, **SMALL[cls]).fit(X, y)) for y in labels
    ]
    assert said[0] == said[1] == said[2] == [(InferredClassesWarning, INFERRED_CLASSES_MESSAGE)]
    assert issubclass(InferredClassesWarning, UserWarning)
    for token in ("classes=None", "classes=[negative, positive]", "same for every table", "public"):
        assert token in INFERRED_CLASSES_MESSAGE
    with pytest.warns(InferredClassesWarning):
        cls(1.0, features=FEATURES, random_state=0, **SMALL[cls]).fit(X, labels[0])


@pytest.mark.parametrize("cls", list(SMALL))
def test_a_declared_label_set_or_a_dataset_fits_without_a_word(cls):
    y = np.arange(30) % 2
    fits = [
        lambda: cls(1.0, features=FEATURES, classes=[0, 1], random_state=0, **SMALL[cls]).fit(X, y),
        lambda: cls(1.0, random_state=0, **SMALL[cls]).fit(Dataset(X, y, FEATURES, "t")),
    ]
    if cls is DPMOETClassifier:
        fits.append(lambda: cls(1.0, features=FEATURES, random_state=0, **SMALL[cls]).fit(EncodedData(X, y)))
    for fit in fits:
        assert _said(fit) == []
    # a Dataset's labels: {0, 1}, as declared (a table with one class fits)
    one = cls(1.0, random_state=0, **SMALL[cls]).fit(Dataset(X, np.zeros(30, dtype=int), FEATURES, "t"))
    assert one.classes_.tolist() == [0, 1]
    # the Dataset's table with a y of the caller's: read from y, so said
    table = Dataset(X, y, FEATURES, "t").X
    assert _said(lambda: cls(1.0, random_state=0, **SMALL[cls]).fit(table, y)) == [
        (InferredClassesWarning, INFERRED_CLASSES_MESSAGE)
    ]
