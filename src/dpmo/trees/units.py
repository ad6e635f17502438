"""The units of a table handed to a tree estimator: raw or encoded, read off the input's type, never guessed.

A table reaches :class:`~dpmo.trees.DPMOETClassifier`, :class:`~dpmo.trees.DiffPID3Classifier` and
:class:`~dpmo.trees.LocalDiffPID3Classifier` in one of two forms (``docs/trees.md``, "Units"):

* **raw**: the units the features are written in. A numeric column holds values in the units of its
  public bounds, a categorical column holds the categories themselves. A pandas DataFrame (columns found by
  name) and every plain array (columns in the order of the features: scikit-learn's convention that an
  array with the fitted columns in order means the same features) are raw.
* **encoded**: category codes ``0 .. K-1`` and numbers scaled to ``[0, 1]`` with the public bounds
  (:class:`dpmo.datasets.Feature`). Only inputs that say so are read encoded: a
  :class:`~dpmo.datasets.Dataset`, its table :class:`~dpmo.datasets.EncodedTable` (``data.X`` and its row
  and column selections) and an :class:`~dpmo.trees.EncodedData`.

Without features every column is numeric with the public range ``[0, 1]``, where the two forms coincide;
they also coincide for features whose encoding is the identity (:func:`encoding_is_identity`: bounds
``(0, 1)``, categories ``0 .. K-1``).

Where the meaning of an input is ambiguous, :func:`read_as` raises a ValueError saying what to pass instead;
it never warns and reads on:

* a plain array at predict time after an encoded fit (it may be a copy of the encoded table, or raw
  values), unless the two forms coincide;
* a plain array at predict time after a fit on a DataFrame whose columns are in another order than the
  features (the array's order could be either);
* an encoded table whose features differ from the ones the estimator declares or was fitted with, or whose
  columns were selected in a way the features cannot follow.

Every decision reads the type and the shape of the input and the public features, never the values.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "RAW",
    "ENCODED",
    "read_as",
    "is_frame",
    "encoding_is_identity",
    "encode_categories",
    "array_columns",
]

#: The two forms of a table (the fitted ``units_in_``).
RAW = "raw"
ENCODED = "encoded"

_HOW = (
    "pass a pandas DataFrame (raw values, columns found by name), a plain array of raw values in the order "
    "of the features, or the Dataset itself (encoded)"
)


def is_frame(X) -> bool:
    """Whether ``X`` is a pandas DataFrame (duck-typed: pandas is optional). O(1).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.units import is_frame
    >>> is_frame(np.zeros((2, 2)))
    False
    """
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def category_code(lookup: dict, v):
    """Code of the raw value ``v`` (numbers also match numeric categories and their text), or None."""
    try:
        code = lookup.get(v)
    except TypeError:  # unhashable
        return None
    if code is None:
        code = lookup.get(str(v))
    if (
        code is None
        and isinstance(v, (numbers.Real, np.number))
        and not isinstance(v, (bool, np.bool_))
        and float(v).is_integer()
    ):
        code = lookup.get(int(v), lookup.get(str(int(v))))
    return code


def category_lookup(feature) -> dict:
    """The look-up of :func:`category_code`: each public category, as it is and as text -> its code.

    A category as it is comes first: the text of another (``"1"`` of the category ``1``) never shadows a
    category declared as that text (``"1"``), whatever their order.
    """
    lookup: dict = {}
    for i, c in enumerate(feature.categories):
        lookup.setdefault(c, i)
    for i, c in enumerate(feature.categories):
        lookup.setdefault(str(c), i)  # an alias only where no category is that text
    return lookup


def encode_categories(values, feature) -> np.ndarray:
    """Codes (float64) of the raw values of one categorical column.

    A value is matched to the feature's categories as it is, then as text, then (an integral number) as an
    int, so ``1.0`` matches the category ``1`` or ``"1"``. A value outside the categories is a ValueError
    naming the column (never the value). O(n) dict look-ups, one per distinct value of a numeric column.

    Examples
    --------
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.units import encode_categories
    >>> sex = Feature("sex", "categorical", categories=("F", "M"))
    >>> encode_categories(["M", "F", "M"], sex).tolist()
    [1.0, 0.0, 1.0]
    """
    lookup = category_lookup(feature)
    values = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if values.dtype.kind in "biuf":  # numbers: one look-up per distinct value
        distinct, inverse = np.unique(values, return_inverse=True)
        mapped = [category_code(lookup, v.item()) for v in distinct]
        missing = [v for v, c in zip(distinct, mapped, strict=True) if c is None]
        if missing:
            unknown_category(feature)
        return np.asarray(mapped, dtype=np.float64)[inverse.reshape(-1)]
    codes = np.empty(values.shape[0], dtype=np.float64)
    memo: dict = {}
    for i, v in enumerate(values):
        try:
            code = memo[(type(v), v)]
        except KeyError:
            code = memo[(type(v), v)] = category_code(lookup, v)
        except TypeError:
            code = category_code(lookup, v)
        if code is None:
            unknown_category(feature)
        codes[i] = code
    return codes


def unknown_category(feature):
    """The refusal of a value outside a categorical column's public categories (the value is not named)."""
    from ..datasets.types import NOT_SHOWN

    cats = feature.categories
    raise ValueError(
        f"column {feature.name!r} holds a value that is not one of its public categories "
        f"{cats[:8]}{' ...' if len(cats) > 8 else ''} (raw units: a categorical column holds the categories "
        f"themselves; {NOT_SHOWN})"
    )


def encoding_is_identity(features) -> bool:
    """Whether raw and encoded values coincide: numeric bounds ``(0, 1)``, categories matching ``0 .. K-1``.

    Then a plain array means the same in both forms and is never ambiguous. True for ``features=None``
    (every column numeric on ``[0, 1]``). O(sum of the domain sizes).

    Examples
    --------
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.units import encoding_is_identity
    >>> smoker, x = Feature("smoker", "categorical", (0, 1)), Feature("x", "numeric", bounds=(0, 1))
    >>> encoding_is_identity([smoker, x])
    True
    >>> encoding_is_identity([Feature("age", "numeric", bounds=(0, 120))])
    False
    """
    if features is None:
        return True
    for f in features:
        if f.is_categorical:
            k = f.n_categories
            try:
                if not np.array_equal(encode_categories(np.arange(k, dtype=np.float64), f), np.arange(k)):
                    return False
            except ValueError:
                return False
        elif tuple(f.bounds) != (0.0, 1.0):
            return False
    return True


def isna_mask(values: np.ndarray) -> np.ndarray:
    """Which entries of a 1-D column are missing (NaN or None)."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape[0], dtype=bool)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        return np.array([v is None or (isinstance(v, float) and v != v) for v in values], dtype=bool)
    return np.asarray(pd.isna(values), dtype=bool)


def array_columns(X, features) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(values, is_missing)`` of every column of a plain raw array, in the order of ``features``.

    ``X`` may hold numbers or objects (``df.to_numpy()`` of a table with text columns). Sparse input, a
    table that is not 2-D or has no row, and a width other than ``len(features)`` are errors. O(n d).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.units import array_columns
    >>> features = [Feature("age", "numeric", bounds=(0, 120)), Feature("sex", "categorical", ("F", "M"))]
    >>> X = np.array([[30, "F"], [61, "M"]], dtype=object)
    >>> [values.tolist() for values, _ in array_columns(X, features)]
    [[30, 61], ['F', 'M']]
    """
    from sklearn.utils.validation import check_array

    X = check_array(X, dtype=None, accept_sparse=False, ensure_all_finite=False, input_name="X")
    if X.shape[1] != len(features):
        raise ValueError(
            f"X has {X.shape[1]} columns but features describes {len(features)}: a plain array holds the "
            "features' columns in their order"
        )
    return [(X[:, j], isna_mask(X[:, j])) for j in range(X.shape[1])]


def _mark_features(X, features, *, fitted: bool):
    """The features of an encoded table, checked against the estimator's (declared or fitted) ones."""
    mark = X.features
    if mark is None or len(mark) != X.shape[1]:
        raise ValueError(
            "X is part of a Dataset's encoded table whose columns cannot be matched to its features "
            "(selected with take or a multi-dimensional index); select columns as X[:, cols], or pass a "
            "Dataset"
        )
    if features is None:
        if fitted and not encoding_is_identity(mark):
            raise ValueError(
                "X is a Dataset's encoded table, but the estimator was fitted without features (on numbers "
                f"in [0, 1]); {_HOW}"
            )
        return None if fitted else tuple(mark)
    if tuple(features) != tuple(mark):
        what = "was fitted with" if fitted else "declares (features=)"
        raise ValueError(
            f"X is a Dataset's encoded table with features {[f.name for f in mark][:5]}..., which differ "
            f"from the ones the estimator {what}; encode the table with the same features, or pass raw "
            "values"
        )
    return tuple(features)


def read_as(est, X, features, *, fitting: bool, encoded: bool = False) -> tuple[str, tuple | None, str]:
    """How to read ``X``: ``(form, features, path)``; raises ValueError where the meaning is ambiguous.

    ``form`` is :data:`RAW` or :data:`ENCODED` (what the fit records as ``units_in_``), ``features`` the
    features to read it with, and ``path`` the reader: ``"frame"`` (raw, columns by name), ``"array"`` (raw,
    columns by position) or ``"numbers"`` (values as they are: the encoded form, or raw values when the
    two forms coincide). ``features`` are the estimator's declared features when ``fitting``, its fitted
    ``features_`` otherwise; ``encoded`` says that ``X`` is an :class:`~dpmo.trees.EncodedData`'s table.
    O(d) (plus the identity test, O(sum of the domain sizes)); the values of ``X`` are not read.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import DPMOETClassifier
    >>> from dpmo.trees.units import read_as
    >>> age = Feature("age", "numeric", bounds=(0, 120))
    >>> read_as(DPMOETClassifier(features=[age]), np.array([[30.0]]), [age], fitting=True)[::2]
    ('raw', 'array')
    """
    from ..datasets import EncodedTable

    if encoded:
        return ENCODED, features, "numbers"
    if isinstance(X, EncodedTable):
        return ENCODED, _mark_features(X, features, fitted=not fitting), "numbers"
    if is_frame(X):
        return RAW, features, ("numbers" if features is None else "frame")
    if encoding_is_identity(features):
        return RAW, features, "numbers"
    if not fitting:
        if getattr(est, "units_in_", RAW) == ENCODED:
            raise ValueError(
                "X is a plain array, but the estimator was fitted on an encoded table (a Dataset): a plain "
                "array could hold encoded or raw values. Pass the Dataset or its table data.X (encoded, "
                "marked as such), or raw values in a pandas DataFrame (columns found by name)"
            )
        names = getattr(est, "feature_names_in_", None)
        order = [f.name for f in features]
        if names is not None and [str(n) for n in names] != order:
            raise ValueError(
                f"X is a plain array, but the estimator was fitted on a DataFrame whose columns "
                f"{[str(n) for n in names][:5]} are in another order than features {order[:5]}: pass a "
                "DataFrame, or fit on one whose columns are in the order of the features"
            )
    return RAW, features, "array"
