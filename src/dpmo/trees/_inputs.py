"""Inputs of the tree estimators: tables, labels, randomness, and their scikit-learn conformance.

One place for what :class:`~dpmo.trees.DPMOETClassifier`, :class:`~dpmo.trees.DiffPID3Classifier` and
:class:`~dpmo.trees.LocalDiffPID3Classifier` accept, so that the three behave alike.

Tables (``X``)
--------------
The units of a table are read off its type, never guessed from its values (:mod:`dpmo.trees.units`):

* a pandas DataFrame, or any plain array, is in **raw** units: a categorical column holds the category
  values themselves (strings, numbers, a pandas Categorical), a numeric column holds values in the units of
  the feature's public bounds, which scale it. A DataFrame's columns are found by the features' names, an
  array's columns are the features in order. Without ``features`` every column is numeric with the public
  range ``[0, 1]``;
* a :class:`~dpmo.datasets.Dataset`, its table :class:`~dpmo.datasets.EncodedTable` (``data.X`` and its
  selections) and an :class:`~dpmo.trees.EncodedData` are in the **encoded** form of :mod:`dpmo.datasets`
  (category codes ``0 .. K-1``, numbers ``(v - lo) / (hi - lo)``); a Dataset brings its features (and
  ``y``);
* where that is ambiguous (a plain array after an encoded fit, ...) the input is refused with a ValueError
  saying what to pass.

Numeric values outside the public range are clipped to it: the bounds are a public contract, the data are
made to fit it, and nothing about the data's own range is used. ``fit`` never says whether it clipped: a
warning only when some training record lies outside its bounds would tell a table from its neighbour with
one more such record (``docs/public-inputs.md``). What ``fit`` does say, with the same words whatever the
table holds, is when nobody declared the bounds: a raw table (an array or a DataFrame) fitted without
``features`` gets a :class:`DefaultBoundsWarning` on every fit (every column read as numeric on the default
range ``[0, 1]``), as diffprivlib warns on every fit without bounds. ``predict`` warns when the rows it is
given are clipped (the caller's own rows, not the private training table). A categorical value outside its
public domain is an error naming the column, never the value (a domain error: such a table is outside the
declared schema).

Labels (``y``)
--------------
Any two labels. The label set is public: declare it with ``classes=[negative, positive]``; otherwise it is
read from ``y`` (documented as such, and said on every such fit by an :class:`InferredClassesWarning` whose
words never depend on ``y``), and then a ``y`` holding fewer than two labels (one, or none: no record) is an
error. The labels of a Dataset (``fit(data)``) or of an EncodedData are in the encoded form, the public label
set ``{0, 1}`` (no warning; ``fit(data.X, data.y)`` passes a ``y`` like any other: declare
``classes=[0, 1]``).
With a declared label set a table in which one class has no record still fits, and so does a table with no
record at all (an empty selection input: the mechanisms run on zero counts; a refusal would tell it apart from
its neighbour with one record, ``docs/public-inputs.md``).
"""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d, validate_data

from ._messages import (
    DEFAULT_BOUNDS_MESSAGE,
    INFERRED_CLASSES_MESSAGE,
    NOT_SHOWN_LABEL,
    ONE_LABEL_PER_ROW,
    DefaultBoundsWarning,
    InferredClassesWarning,
    redacted,
)
from .raw_tables import check_domains, encode_raw, frame_columns, listed
from .units import RAW, array_columns, is_frame, read_as

__all__ = [
    "DefaultBoundsWarning",
    "DEFAULT_BOUNDS_MESSAGE",
    "InferredClassesWarning",
    "estimator_rng",
    "check_X_fit",
    "check_X_predict",
    "fit_labels",
    "feature_domains",
    "labels_as_01",
    "DPEstimatorMixin",
    "EXPECTED_FAILED_CHECKS",
    "TAG_REASONS",
]

#: Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that differential privacy makes fail,
#: with the reason. Pass them as ``check_estimator(est, expected_failed_checks=...)``
#: (:func:`dpmo.trees.expected_failed_checks`).
EXPECTED_FAILED_CHECKS: dict[str, str] = {}

#: scikit-learn tags the estimators set because of differential privacy, with the reason.
TAG_REASONS: dict[str, str] = {
    "classifier_tags.poor_score": (
        "differential privacy: the fit adds noise calibrated to epsilon and may use only public feature "
        "ranges, so the accuracy thresholds of check_classifiers_train (0.83 on standardised blobs, whose "
        "values fall outside the default public range [0, 1] and are clipped) are not a property a private "
        "classifier can promise"
    ),
    "classifier_tags.multi_class": (
        "the private selections score trees by TPR and TNR (binary cost-sensitive classification, the "
        "paper's Application 1); the estimators are binary by design"
    ),
}


def estimator_rng(random_state) -> np.random.Generator:
    """A Generator from ``random_state`` as scikit-learn accepts it (None, int, RandomState, Generator).

    None draws fresh OS entropy, an int seeds a new generator, a Generator is used (and advanced) as it
    is, a legacy ``numpy.random.RandomState`` seeds a new Generator from four of its draws (so a seeded
    RandomState gives a reproducible fit and is advanced, as scikit-learn does).
    """
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32, size=4, dtype=np.uint64))
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng() if random_state is None else random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise TypeError(
            "random_state must be None, an int, a numpy.random.Generator or a numpy.random.RandomState, "
            f"got {type(random_state).__name__}"
        )
    if int(random_state) < 0:
        raise ValueError(f"random_state must be a non-negative int, got {random_state}")
    return np.random.default_rng(int(random_state))


# --------------------------------------------------------------------------------------------------------
# tables


def check_features(features):
    if features is None:
        return None
    from ..datasets import Feature

    if isinstance(features, (str, bytes)) or not hasattr(features, "__len__"):
        raise TypeError("features must be a sequence of dpmo.datasets.Feature")
    features = tuple(features)
    if not features:
        raise ValueError("features must describe at least one column")
    for j, f in enumerate(features):
        if not isinstance(f, Feature):
            raise TypeError(f"features[{j}] must be a dpmo.datasets.Feature, got {type(f).__name__}")
    seen: set[str] = set()
    for f in features:
        if f.name in seen:
            raise ValueError(f"features must name each column once; {f.name!r} is described twice")
        seen.add(f.name)
    return features


def _non_numeric_columns(X) -> list[str]:
    import pandas as pd

    return [
        str(c)
        for c, dt in zip(X.columns, X.dtypes, strict=True)
        if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))
    ]


def _validate(est, X, *, reset: bool) -> np.ndarray:
    # fit (reset) takes a table with no row: an empty selection input the mechanisms handle (zero counts)
    return validate_data(
        est,
        X,
        reset=reset,
        dtype=np.float64,
        accept_sparse=False,
        ensure_all_finite=True,
        ensure_min_samples=0 if reset else 1,
    )


def _names(est, features, d: int) -> list[str]:
    if features is not None:
        return [f.name for f in features]
    names = getattr(est, "feature_names_in_", None)
    return [str(n) for n in names] if names is not None and len(names) == d else [str(j) for j in range(d)]


def check_X_fit(est, X, y=None, *, encoded: bool = False):
    """``(X_encoded, y, features)`` for ``fit``: X as float64 in the encoded form, features checked.

    ``X`` is read in the units its type says (:mod:`dpmo.trees.units`): a DataFrame or a plain array in
    raw units, a :class:`~dpmo.datasets.Dataset` or its table in the encoded form (then ``y`` defaults to
    its labels and ``features`` to its features when the estimator's ``features`` is None);
    ``encoded=True`` says that a plain ``X`` is an EncodedData's table. Sets ``n_features_in_``,
    ``units_in_`` (``"raw"`` or ``"encoded"``) and, for a DataFrame, ``feature_names_in_``.
    """
    from ..datasets import Dataset

    features = check_features(est.features)
    # the labels of a Dataset (y not given) or of an EncodedData: 0/1 by the loader's public rule, the public
    # label set {0, 1} (a fact about the arguments only). A table data.X with a y of the caller's: read from y
    est._encoded_labels = encoded or (isinstance(X, Dataset) and y is None)
    if isinstance(X, Dataset):
        if y is None:
            y = X.y
        X = X.X
    if y is None:
        raise ValueError(
            f"{type(est).__name__} requires y to be passed, but the target y is None "
            "(or pass a dpmo.datasets.Dataset as X)"
        )
    form, features, path = read_as(est, X, features, fitting=True, encoded=encoded)
    if features is None and form == RAW:  # public: the call's arguments, never the values
        warnings.warn(DEFAULT_BOUNDS_MESSAGE, DefaultBoundsWarning, stacklevel=3)
    with redacted():  # scikit-learn's and numpy's messages quote values and row counts: not ours
        X = _table(est, X, features, path, reset=True)
        est.units_in_ = form
        check_consistent_length(X, y)
    return X, y, features


def check_X_predict(est, X) -> np.ndarray:
    """X (array, DataFrame, Dataset or its table) in the encoded form, in the units its type says.

    A plain array is read as at fit time; where that is ambiguous (after an encoded fit, or a DataFrame fit
    whose columns are in another order than the features) it is a ValueError (:mod:`dpmo.trees.units`).
    """
    from ..datasets import Dataset

    if isinstance(X, Dataset):
        X = X.X
    _, features, path = read_as(est, X, est.features_, fitting=False)
    with redacted():
        return _table(est, X, features, path, reset=False)


def _has_rows(X) -> bool:
    shape = getattr(X, "shape", None)
    return bool(shape[0]) if shape else bool(len(X))


def _fitted_columns(est, X, enc, path: str):
    """``enc`` after setting what a fit on a raw table records: ``n_features_in_`` and, for a DataFrame,
    ``feature_names_in_`` (removed otherwise)."""
    est.n_features_in_ = enc.shape[1]
    if path == "frame":
        est.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    return enc


def _table(est, X, features, path: str, *, reset: bool) -> np.ndarray:
    from ..datasets import EncodedTable

    encoded_table = isinstance(X, EncodedTable)
    if path != "numbers" and reset and getattr(est, "_coded_fit", False) and _has_rows(X):
        # the lean fit (dpmo.trees.columns): narrow columns, no (n, d) float table
        from .columns import coded_columns

        return _fitted_columns(est, X, coded_columns(X, features, path), path)
    if path != "numbers":  # raw values: categories by value, numeric columns in the units of their bounds
        columns = frame_columns(X, features) if path == "frame" else array_columns(X, features)
        enc = check_array(
            encode_raw(columns, features, warn=not reset),
            dtype=np.float64,
            input_name="X",
            ensure_min_samples=0 if reset else 1,
        )
        return _fitted_columns(est, X, enc, path) if reset else enc
    if is_frame(X):
        bad = _non_numeric_columns(X)
        if bad:
            raise ValueError(
                f"column(s) {listed(bad)} of X hold non-numeric values; declare their public categories with "
                "features=[dpmo.datasets.Feature(name, 'categorical', categories), ...] (one Feature per "
                "column, numeric ones with public bounds)"
            )
    X = _validate(est, X, reset=reset)
    if features is not None and len(features) != X.shape[1]:
        raise ValueError(f"features describes {len(features)} columns but X has {X.shape[1]}")
    # fit (reset) clips silently: a warning there would depend on the private records
    if reset:
        kind = None
    elif features is None:
        kind = "default"
    else:
        kind = "encoded" if getattr(est, "units_in_", RAW) != RAW or encoded_table else "declared"
    return check_domains(X, features, _names(est, features, X.shape[1]), warn=kind)


# --------------------------------------------------------------------------------------------------------
# labels


def _declared_classes(classes):
    if classes is None:
        return None
    arr = np.asarray(classes)
    if arr.ndim != 1 or arr.shape[0] != 2:
        raise ValueError(f"classes must list the two public labels [negative, positive], got {classes!r}")
    if arr[0] == arr[1]:
        raise ValueError(f"classes must be two distinct labels, got {classes!r}")
    return arr


def fit_labels(est, y, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(y01, classes)``: labels as int8 0/1 and the pair ``[negative, positive]`` (1 = ``classes[1]``).

    ``classes`` is ``est.classes`` when declared (public), otherwise the sorted distinct labels of ``y``
    (read from the data: the fitted estimator then reveals the label set; an :class:`InferredClassesWarning`
    says so), or ``[0, 1]`` for the labels of a Dataset or an EncodedData (encoded by the loader's public
    rule). Raises ValueError for a continuous target, more than two labels, fewer than two inferred labels
    (an empty ``y`` included: without declared classes there is no label set), or a label outside the
    declared ones. With declared classes an empty ``y`` is read like any other.
    """
    declared = _declared_classes(getattr(est, "classes", None))
    if declared is None and getattr(est, "_encoded_labels", False):  # the encoded form: {0, 1}, public
        declared = np.array([0, 1])
    if declared is None:  # the arguments only, before y is read
        warnings.warn(INFERRED_CLASSES_MESSAGE, InferredClassesWarning, stacklevel=3)
    with redacted():
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n:
        raise ValueError(ONE_LABEL_PER_ROW)
    if declared is None:
        if y.dtype.kind not in "biu":  # integer and boolean labels are never continuous: skip the scan
            check_classification_targets(y)
        classes = np.unique(y)
        if classes.size > 2:
            raise ValueError(
                f"Only binary classification is supported. {type(est).__name__} scores trees by TPR and "
                f"TNR; y holds more than two labels (which are not shown: the labels are private)"
            )
        if classes.size < 2:
            raise ValueError(  # the same words for no record and for one class: neither is shown
                "without classes= the label set is read from y, and y holds fewer than two labels (one "
                "class or none; which is not shown: the labels are private); a binary classifier needs "
                "two. Declare the public label set with classes=[negative, positive] to fit a table in "
                "which a class has no record, or a table with no record at all"
            )
    else:
        if y.dtype.kind == "f" and declared.dtype.kind not in "fiub":
            check_classification_targets(y)
        classes = declared
        if not np.isin(y, classes).all():
            raise ValueError(
                f"y holds a label that is not in classes={classes.tolist()!r} ({NOT_SHOWN_LABEL})"
            )
    return (y == classes[1]).astype(np.int8), classes


def labels_as_01(est, y, n: int) -> np.ndarray:
    """Labels of an evaluation set as 0/1, 1 = the fitted ``positive_class_`` (unknown labels: error)."""
    with redacted():
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n:
        raise ValueError(ONE_LABEL_PER_ROW)
    if not np.isin(y, est.classes_).all():
        raise ValueError(
            f"y holds a label that is not in classes_={np.asarray(est.classes_).tolist()!r} "
            f"({NOT_SHOWN_LABEL})"
        )
    return (y == est.positive_class_).astype(np.int8)


# --------------------------------------------------------------------------------------------------------
# scikit-learn glue


class _FeaturesSummary:
    """Stands in for a long ``features`` tuple in ``repr``."""

    def __init__(self, features):
        self.features = tuple(features)

    def __repr__(self) -> str:
        names = [getattr(f, "name", "?") for f in self.features]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"<{len(names)} features: {shown}>"


class DPEstimatorMixin:
    """``__sklearn_tags__`` and a short ``repr`` shared by the private tree estimators."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # see TAG_REASONS
        tags.classifier_tags.poor_score = True  # see TAG_REASONS
        tags.input_tags.allow_nan = False
        return tags

    def __repr__(self, N_CHAR_MAX=700):  # noqa: N803 - scikit-learn's signature
        features = getattr(self, "features", None)
        if features is None or isinstance(features, _FeaturesSummary):
            return super().__repr__(N_CHAR_MAX)
        shown = copy.copy(self)
        try:
            shown.features = _FeaturesSummary(features)
        except TypeError:  # not a sequence: show it as it is
            return super().__repr__(N_CHAR_MAX)
        return super(DPEstimatorMixin, shown).__repr__(N_CHAR_MAX)


def expected_failed_checks(estimator=None) -> dict[str, str]:
    """Checks of ``sklearn.utils.estimator_checks.check_estimator`` that differential privacy makes fail.

    Returns a dict ``check name -> reason`` for ``check_estimator(est, expected_failed_checks=...)``.
    The other concessions are scikit-learn tags, listed in :data:`TAG_REASONS`.

    Examples
    --------
    >>> from dpmo.trees import DPMOETClassifier, expected_failed_checks
    >>> reasons = expected_failed_checks(DPMOETClassifier())
    >>> all(isinstance(k, str) and isinstance(v, str) and v for k, v in reasons.items())
    True
    """
    return dict(EXPECTED_FAILED_CHECKS)


def feature_domains(features, d: int, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``(is_categorical, domain_size)`` per column from public metadata (numeric: ``n_bins`` bins)."""
    if features is None:
        return np.zeros(d, dtype=bool), np.full(d, n_bins, dtype=np.int64)
    if isinstance(features, (str, bytes)) or not hasattr(features, "__len__"):
        raise TypeError("features must be a sequence of dpmo.datasets.Feature")
    features = tuple(features)
    if len(features) != d:
        raise ValueError(f"features describes {len(features)} columns but X has {d}")
    is_cat = np.zeros(d, dtype=bool)
    size = np.full(d, n_bins, dtype=np.int64)
    for j, f in enumerate(features):
        kind = getattr(f, "kind", None)
        if kind == "categorical":
            k = len(getattr(f, "categories", ()))
            if k < 1:
                raise ValueError(f"features[{j}] is categorical with no categories")
            is_cat[j] = True
            size[j] = k
        elif kind != "numeric":
            raise TypeError(
                f"features[{j}] must be a dpmo.datasets.Feature of kind 'categorical' or 'numeric', got {f!r}"
            )
    return is_cat, size
