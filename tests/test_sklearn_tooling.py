"""The tree estimators in scikit-learn's tooling (issue 23, points 1 and 4).

* Units never silently change: a DataFrame and its numpy array mean the same features, a plain array at fit
  time is read in the features' raw units, the encoded table of a Dataset says so, and an ambiguous table is
  an error (docs/trees.md, "Units").
* predict_proba / decision_function are post-processing of the released trees, with columns in the order
  of classes_, and ROC-AUC works in cross_val_score.
* A Budget that runs out inside a scikit-learn loop raises instead of scoring NaN.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import dpmo
from dpmo.datasets import BREAST_CANCER_BOUNDS, Dataset, EncodedTable, Feature
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

pd = pytest.importorskip("pandas")

ESTIMATORS = (DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier)
SMALL_MOET = dict(population_size=20, selection_size=4, n_iterations=1, initial_depth=2, max_depth=3)


def small(cls, **kw):
    if cls is DPMOETClassifier:
        return cls(**{**SMALL_MOET, **kw})
    return cls(**{"max_depth": 3, **kw})


@pytest.fixture(scope="module")
def cancer():
    """Breast cancer, first 5 columns in raw units, with public bounds in raw units (the issue's case)."""
    from sklearn.datasets import load_breast_cancer

    raw = load_breast_cancer(as_frame=True)
    cols = [str(c) for c in raw.frame.columns[:5]]
    df = raw.frame[cols]
    y = (raw.target.to_numpy() == 0).astype(int)  # malignant = positive
    features = tuple(Feature(c, "numeric", bounds=BREAST_CANCER_BOUNDS[j]) for j, c in enumerate(cols))
    return df, y, features


# ---------------------------------------------------------------------------------------------------------
# units


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_dataframe_and_its_numpy_array_mean_the_same(cls, cancer):
    df, y, features = cancer
    a = small(cls, epsilon=5.0, features=features, random_state=0).fit(df, y)
    np.testing.assert_array_equal(a.predict(df.to_numpy()), a.predict(df))  # was 21-60% agreement
    np.testing.assert_array_equal(a.predict_proba(df.to_numpy()), a.predict_proba(df))
    b = small(cls, epsilon=5.0, features=features, random_state=0).fit(df.to_numpy(), y)  # raw at fit
    assert a.units_in_ == b.units_in_ == "raw"
    np.testing.assert_array_equal(b.predict(df.to_numpy()), a.predict(df))
    assert np.mean(a.predict(df) == y) > 0.6  # not the clipped reading (0.37 on main)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_pipeline_step_that_returns_an_array_keeps_the_units(cls, cancer):
    df, y, _ = cancer
    logged = tuple(  # a public transformation, so public bounds in its units
        Feature(c, "numeric", bounds=(float(np.log1p(lo)), float(np.log1p(hi))))
        for c, (lo, hi) in zip(df.columns, BREAST_CANCER_BOUNDS, strict=False)
    )
    est = small(cls, epsilon=5.0, features=logged, random_state=0)
    pipe = make_pipeline(FunctionTransformer(np.log1p, validate=True), est).fit(df, y)  # arrays inside
    alone = clone(est).fit(np.log1p(df), y)  # the same numbers in a DataFrame
    np.testing.assert_array_equal(pipe.predict(df), alone.predict(np.log1p(df)))
    np.testing.assert_array_equal(pipe.predict(df.to_numpy()), pipe.predict(df))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_an_ambiguous_table_is_an_error_not_a_warning(cls, cancer):
    df, y, features = cancer
    enc = np.column_stack([f.scale(df[f.name]) for f in features])
    data = Dataset(enc, y, features, "cancer5")
    fitted = small(cls, epsilon=5.0, random_state=0).fit(data)  # encoded, features from the Dataset
    assert fitted.units_in_ == "encoded" and fitted.features_ == features
    np.testing.assert_array_equal(fitted.predict(data.X), fitted.predict(data))  # marked: encoded
    np.testing.assert_array_equal(fitted.predict(data.X[:50]), fitted.predict(data)[:50])
    np.testing.assert_array_equal(fitted.predict(df), fitted.predict(data))  # a DataFrame is raw
    with pytest.raises(ValueError, match="plain array"):  # a copy of data.X, or raw values?
        fitted.predict(np.asarray(data.X))
    with pytest.raises(ValueError, match="plain array"):
        fitted.predict(df.to_numpy())
    # the old idiom fit(data.X, data.y) with the Dataset's features still reads data.X as encoded
    old = small(cls, epsilon=5.0, features=features, random_state=0).fit(data.X, data.y)
    np.testing.assert_array_equal(old.predict(data.X), fitted.predict(data))
    with pytest.raises(ValueError, match="differ"):  # encoded with other features than declared
        small(cls, features=features[:4]).fit(data.X[:, :5], y)
    reordered = df[list(df.columns[::-1])]
    swapped = small(cls, epsilon=5.0, features=features, random_state=0).fit(reordered, y)
    with pytest.raises(ValueError, match="another order"):
        swapped.predict(reordered.to_numpy())
    sex = Feature("sex", "categorical", ("F", "M"))
    with pytest.raises(ValueError, match="'sex'.*public categories"):  # codes where raw values belong
        small(cls, features=(sex,)).fit(np.array([[0.0], [1.0], [1.0]]), [0, 1, 1])


def test_the_encoded_table_stays_marked_through_selections_not_computations(cancer):
    df, y, features = cancer
    data = Dataset(np.column_stack([f.scale(df[f.name]) for f in features]), y, features, "c")
    X = data.X
    assert isinstance(X, EncodedTable) and X.features == features
    train, _ = train_test_split(X, random_state=0)
    for part in (X[:10], X[np.arange(5)], X[X[:, 0] > 0.5], X.take([1, 2], axis=0), train, data.take([0]).X):
        assert isinstance(part, EncodedTable) and part.features == features
    assert X[:, [3, 1]].features == (features[3], features[1])
    assert X[:, 1:3].features == features[1:3]
    for computed in (X * 2, X + 0, np.clip(X, 0, 1), np.asarray(X), np.vstack([X, X]), X[:, 0]):
        assert type(computed) is np.ndarray
    again = pickle.loads(pickle.dumps(X[:3]))
    assert isinstance(again, EncodedTable) and again.features == features


# ---------------------------------------------------------------------------------------------------------
# predict_proba and decision_function


def _leaf_of(tree, x) -> int:
    """The preorder index of the leaf row ``x`` reaches (a walk of the node arrays, not the kernels)."""
    i = 0
    while tree.feature[i] >= 0:
        v = x[tree.feature[i]]
        left = v == tree.value[i] if tree.categorical[i] else v <= tree.value[i]
        i = i + 1 if left else i + 1 + int(tree.size[i + 1])
    return i


def _released_probability(est, X) -> np.ndarray:
    """P(positive) recomputed from the released trees and counts only (the documented formulas)."""
    if isinstance(est, DPMOETClassifier):
        Xe = np.asarray(est._X(X), dtype=np.float64)  # the estimator's units (encoded)
        trees = [*est.trees_, *est.voters_]
        votes = np.array([[t.label[_leaf_of(t, x)] for x in Xe] for t in trees], dtype=float)
        rest = votes.mean(axis=0)
        if est.leaf_counts_ is not None:  # (c1+ + pi) / (c0+ + c1+ + 1), pi the tree's clipped positive rate
            counts = np.clip(np.nan_to_num(est.leaf_counts_[0]), 0, None)
            pi = counts[:, 1].sum() / counts.sum()
            c = counts[[_leaf_of(est.trees_[0], x) for x in Xe]]
            rest = ((c[:, 1] + pi) / (c.sum(axis=1) + 1) + rest) / 2
        return (votes[0] + rest) / 2
    c0, c1 = est.tree_.leaf_counts[est.apply(X)].T
    return 0.5 + (c1 - c0) / (2 * (np.abs(c0) + np.abs(c1)))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_probabilities_are_post_processing_of_the_released_trees(cls, cancer):
    df, y, features = cancer
    labels = np.where(y == 1, "malignant", "benign")
    rows = np.arange(len(y))
    train, test = rows[rows % 3 != 0], rows[rows % 3 == 0]
    X_train, y_train = df.iloc[train].to_numpy().copy(), labels[train].copy()
    kw = dict(epsilon=5.0, features=features, random_state=1, classes=["benign", "malignant"])
    if cls is DPMOETClassifier:
        kw["n_output"] = 3
    est = small(cls, **kw).fit(X_train, y_train)
    X_test = df.iloc[test]
    proba = est.predict_proba(X_test)
    assert proba.shape == (len(test), 2) and np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    positive_column = list(est.classes_).index(est.positive_class_)
    np.testing.assert_allclose(proba[:, positive_column], _released_probability(est, X_test))
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X_test))
    decision = est.decision_function(X_test)
    np.testing.assert_array_equal(decision > 0, est.predict(X_test) == est.classes_[1])
    # nothing of the training data is kept: wiping it changes nothing, and a pickled copy agrees
    X_train[:] = 0.0
    y_train[:] = "benign"
    np.testing.assert_array_equal(est.predict_proba(X_test), proba)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).decision_function(X_test), decision)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_declared_classes_in_any_order_keep_columns_and_auc_right(cls, cancer):
    df, y, features = cancer
    labels = np.where(y == 1, "sick", "well")  # "sick" < "well": the positive class sorts first
    est = small(cls, epsilon=5.0, features=features, random_state=2, classes=["well", "sick"]).fit(df, labels)
    assert list(est.classes_) == ["sick", "well"] and est.positive_class_ == "sick"
    p_sick = est.predict_proba(df)[:, 0]
    np.testing.assert_allclose(p_sick, _released_probability(est, df))
    tpr = est.evaluate(df, labels)[0, 0] if cls is DPMOETClassifier else None
    if tpr is not None:  # TPR is measured on the declared positive class
        assert tpr == pytest.approx(np.mean(est.predict(df)[labels == "sick"] == "sick"))
    from sklearn.metrics import get_scorer

    scored = get_scorer("roc_auc")(est, df, labels)  # scikit-learn's own reading of the scores
    assert scored == pytest.approx(roc_auc_score(labels == "sick", p_sick))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_roc_auc_in_cross_val_score(cls, cancer):
    df, y, features = cancer
    est = small(cls, epsilon=5.0, features=features, random_state=3)
    rows = np.arange(len(y))
    folds = [(rows[rows % 3 != k], rows[rows % 3 == k]) for k in range(3)]
    scores = cross_val_score(est, df, y, scoring="roc_auc", cv=folds)  # [nan nan nan] on main
    assert np.all(np.isfinite(scores))
    for (train, test), score in zip(folds, scores, strict=True):
        fold = clone(est).fit(df.iloc[train], y[train])
        assert score == pytest.approx(roc_auc_score(y[test], fold.decision_function(df.iloc[test])))


# ---------------------------------------------------------------------------------------------------------
# a budget that runs out inside a scikit-learn loop


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_budget_that_runs_out_in_cross_val_score_raises(cls, cancer):
    df, y, features = cancer
    est = small(cls, epsilon=1.0, features=features, random_state=0)
    budget = dpmo.Budget(2.0)  # two folds of 1.0, not three
    with pytest.raises(dpmo.BudgetExceededError):  # default error_score=np.nan caught Exceptions: NaN
        cross_val_score(est, df, y, cv=3, params={"budget": budget})
    assert budget.spent == 2.0 and budget.remaining == 0.0
    with pytest.raises(dpmo.BudgetExceededError):
        GridSearchCV(est, {"epsilon": [0.5, 1.0]}, cv=2).fit(df, y, budget=dpmo.Budget(1.0))
    try:  # a handler of Exception does not swallow it
        try:
            est.fit(df, y, budget=dpmo.Budget(0.5))
        except Exception:  # noqa: BLE001 - the point of the test
            pytest.fail("BudgetExceededError was caught as an Exception")
    except dpmo.BudgetExceededError:
        pass
