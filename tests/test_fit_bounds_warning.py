"""A fit whose numeric bounds nobody declared says so at fit, with words that do not depend on the records
(issue 31 point 2).

The audit: ``DPMOETClassifier().fit(raw_breast_cancer_df, y)`` clipped every value into [0, 1] without a
word (0.92 training accuracy from the few columns already in [0, 1]); the ID3 estimators and numpy input
the same. On the old code the first test fails: no warning at fit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")

from dpmo.datasets import Dataset, Feature  # noqa: E402
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier  # noqa: E402

SMALL = {
    DPMOETClassifier: dict(population_size=4, selection_size=2, n_iterations=1),
    DiffPID3Classifier: dict(max_depth=2),
    LocalDiffPID3Classifier: dict(max_depth=2),
}
ESTIMATORS = list(SMALL)


def _make(cls, **kw):
    kw = {"classes": [0, 1], **kw}  # the label set declared: its own warning is tested elsewhere
    return cls(epsilon=1.0, random_state=0, **SMALL[cls], **kw)


def _said(fit) -> list[tuple[str, str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fit()
    # a single-leaf tree is said too (a property of the release, tests/test_id3_single_leaf.py): not counted
    return [(w.category.__name__, str(w.message)) for w in seen if w.category.__name__ != "SingleLeafWarning"]


def _tables():
    """Three tables of two columns: in [0, 1]; far outside it (raw units); a neighbour of the first with one
    more record outside."""
    rng = np.random.default_rng(1)
    inside = rng.random((40, 2))
    y = (inside[:, 0] > 0.5).astype(int)
    raw = inside * np.array([[250.0, 4000.0]]) - 17.99123
    return [(inside, y), (raw, y), (np.vstack([inside, [[9137.0, -9137.0]]]), np.append(y, 1))]


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("frame", [False, True], ids=["numpy", "DataFrame"])
def test_a_fit_without_declared_bounds_warns_the_same_for_every_table(cls, frame):
    texts = []
    for X, y in _tables():
        X = pd.DataFrame(X, columns=["mean_radius", "mean_area"]) if frame else X
        said = _said(lambda X=X, y=y: _make(cls).fit(X, y))
        assert [name for name, _ in said] == ["DefaultBoundsWarning"], said  # at fit, once
        texts.append(said)
    assert texts[0] == texts[1] == texts[2]  # the same words whatever the table holds
    from dpmo.trees import DefaultBoundsWarning
    from dpmo.trees._inputs import DEFAULT_BOUNDS_MESSAGE

    assert texts[0] == [(DefaultBoundsWarning.__name__, DEFAULT_BOUNDS_MESSAGE)]
    assert issubclass(DefaultBoundsWarning, UserWarning)
    for token in ("features=None", "[0, 1]", "clipped", "Feature", "same for every table"):
        assert token in DEFAULT_BOUNDS_MESSAGE
    with pytest.warns(DefaultBoundsWarning):  # at fit, not at predict: the warning points at fit
        _make(cls).fit(*_tables()[1])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_declared_bounds_or_an_encoded_table_fit_without_a_word(cls):
    (inside, y), (raw, _), _ = _tables()
    feats = (Feature("a", "numeric", bounds=(-20.0, 300.0)), Feature("b", "numeric", bounds=(-20.0, 4000.0)))
    unit = (Feature("a", "numeric", bounds=(0, 1)), Feature("b", "numeric", bounds=(0, 1)))
    for fit in (
        lambda: _make(cls, features=feats).fit(raw, y),
        lambda: _make(cls, features=feats).fit(pd.DataFrame(raw, columns=["a", "b"]), y),
        lambda: _make(cls, features=unit).fit(inside, y),  # the default range, declared: silent
        lambda: _make(cls).fit(Dataset(inside, y, unit, "t")),  # a Dataset brings its features
        lambda: _make(cls).fit(Dataset(inside, y, unit, "t").X, y),  # and so does its encoded table
    ):
        assert _said(fit) == []
