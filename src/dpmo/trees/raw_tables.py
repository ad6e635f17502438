"""A raw or numeric table brought into the encoded form, and the words of the clipping warnings.

Part of the inputs of the tree estimators (:mod:`dpmo.trees._inputs`): the columns of a raw table (a pandas
DataFrame found by the features' names, or a plain array) encoded with the features' public categories and
bounds (:func:`encode_raw`), the public-domain check and the clipping of a table already in ``[0, 1]``
(:func:`check_domains`), and the prediction-time warnings that say which columns were clipped (never for the
private training table: ``docs/public-inputs.md``). :func:`frame_positions` and :func:`finite_numbers` are
shared with the lean fit (:mod:`dpmo.trees.columns`), so both paths refuse with the same words.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numba
import numpy as np

from .._kernel_args import kernel_input
from .units import encode_categories

__all__ = ["listed"]


def frame_positions(X, features) -> dict:
    """``column name -> position`` in a raw DataFrame whose columns must be exactly the features' (else a
    ValueError naming the missing and the undescribed columns)."""
    names = [f.name for f in features]
    cols = [str(c) for c in X.columns]
    twice = sorted(c for c, times in Counter(cols).items() if times > 1)
    if twice:
        raise ValueError(
            f"the columns of X must have distinct names; {twice} name more than one column (as text: a "
            "column 1 and a column '1' are the same feature)"
        )
    missing = [n for n in names if n not in cols]
    extra = [c for c in cols if c not in names]
    if missing or extra:
        raise ValueError(
            f"the columns of X must be the features' columns; missing {missing}, not described {extra} "
            "(declare every column with features=, or drop it)"
        )
    return {c: i for i, c in enumerate(cols)}


def finite_numbers(values, feature) -> np.ndarray:
    """The raw values of a numeric column (a pandas Series or a 1-D array) as float64, refused with the
    column's name when one is not a number or not finite."""
    try:
        raw = np.asarray(
            values.to_numpy(dtype=np.float64) if hasattr(values, "to_numpy") else values, np.float64
        )
    except (TypeError, ValueError):
        raise ValueError(
            f"column {feature.name!r} of X is numeric (bounds {feature.bounds}) but holds non-numeric values"
        ) from None
    if not np.all(np.isfinite(raw)):
        raise ValueError(f"column {feature.name!r} of X must be finite (no NaN or inf)")
    return raw


def frame_columns(X, features) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(values, is_missing)`` of the columns of a raw DataFrame, found by the features' names."""
    pos = frame_positions(X, features)
    out = []
    for f in features:
        col = X.iloc[:, pos[f.name]]
        out.append((col.to_numpy(dtype=object), col.isna().to_numpy()))
    return out


def listed(names, shown: int = 5, *, quote: bool = True) -> str:
    """The first ``shown`` of ``names`` as a list, and how many more there are (``quote=False``: the items
    are written as they are).

    Examples
    --------
    >>> from dpmo.trees.raw_tables import listed
    >>> listed(["a", "b"]), listed([str(j) for j in range(14)])
    ("['a', 'b']", "['0', '1', '2', '3', '4'] and 9 more")
    """
    names = list(names)
    more = len(names) - shown
    text = repr(names[:shown]) if quote else "[" + ", ".join(str(n) for n in names[:shown]) + "]"
    return text + (f" and {more} more" if more > 0 else "")


def clip_warning(text: str) -> None:
    """A prediction-time clipping warning (the caller's own rows, never the private training table)."""
    warnings.warn(text, UserWarning, stacklevel=6)  # the caller of predict


def encode_raw(columns, features, warn: bool) -> np.ndarray:
    """Raw columns (``(values, is_missing)`` per feature) -> encoded float matrix (features' order);
    ``warn``: say when a numeric value is clipped (never for the private training table)."""
    out = np.empty((columns[0][0].shape[0] if columns else 0, len(features)), dtype=np.float64)
    clipped = []
    for j, (f, (values, isna)) in enumerate(zip(features, columns, strict=True)):
        if isna.any():
            raise ValueError(f"column {f.name!r} of X holds missing values (NaN/None); drop or fill them")
        if f.is_categorical:
            out[:, j] = encode_categories(values, f)
        else:
            raw = finite_numbers(values, f)
            lo, hi = f.bounds
            if warn and (np.any(raw < lo) or np.any(raw > hi)):
                clipped.append(f"{f.name!r} {f.bounds}")
            out[:, j] = f.scale(raw)
    if clipped:
        clip_warning(
            f"numeric column(s) {listed(clipped, quote=False)} of X hold values outside their public bounds "
            "(declared with features=, shown after each name); they are clipped to them"
        )
    return out


#: How a table read as it is (the ``"numbers"`` path of :func:`dpmo.trees.units.read_as`) came to be in
#: ``[0, 1]``, for the clipping warning: ``(what X is, what the range is, what to do)``.
RANGES = {
    "default": (
        "X",
        "the default public range [0, 1] (the model was fitted without features=, so no bounds were "
        "declared)",
        "Declare each column's public bounds when fitting: features=[dpmo.datasets.Feature(name, "
        "'numeric', bounds=(lo, hi)), ...], then pass rows in those units",
    ),
    "declared": ("X", "their declared public bounds (0, 1)", ""),
    "encoded": (
        "the encoded table",
        "[0, 1], the encoded range of their public bounds",
        "Encode rows with the features' Feature.scale, or pass raw units in a pandas DataFrame",
    ),
}


def check_domains(X: np.ndarray, features, names, warn: str | None) -> np.ndarray:
    """Categorical codes must be in the domain; numeric values are clipped to the public range [0, 1]
    (``warn``: a key of :data:`RANGES`, for a warning naming the columns; None for the private training
    table, which is clipped silently).

    One pass over the whole row-major table (no strided column scans); the columns at fault are located
    only when there is one.
    """
    d = X.shape[1]
    is_cat = np.zeros(d, dtype=bool)
    ncat = np.zeros(d, dtype=np.int64)
    if features is not None:
        for j, f in enumerate(features):
            if f.is_categorical:
                is_cat[j], ncat[j] = True, f.n_categories
    top = np.where(is_cat, ncat - 1, 1.0)  # largest code, or the numeric range's upper end
    if not _outside(X, top, is_cat):  # one compiled pass, no temporaries
        return X
    outside = (X < 0) | (X > top)
    if is_cat.any():
        outside |= (np.floor(X) != X) & is_cat  # a code is an integer
    at_fault = outside.any(axis=0)
    cat_bad = np.flatnonzero(at_fault & is_cat)
    if cat_bad.size:
        j = cat_bad[0]
        raise ValueError(
            f"categorical column {names[j]!r} of X must hold the codes 0 .. {int(ncat[j]) - 1} of its "
            "public categories (or pass a pandas DataFrame holding the categories themselves)"
        )
    num = ~is_cat
    bad = [names[j] for j in np.flatnonzero(at_fault & num)]
    if warn is not None and bad:
        table, where, todo = RANGES[warn]
        clip_warning(
            f"numeric column(s) {listed(bad)} of {table} hold values outside {where}; they are clipped to "
            "it" + (f". {todo}" if todo else "")
        )
    X = X.copy()
    X[:, num] = np.clip(X[:, num], 0.0, 1.0)
    return X


def _outside(X: np.ndarray, top: np.ndarray, is_cat: np.ndarray) -> bool:
    """:func:`_any_outside` on a read-only C array: ``X`` itself, or ``X.T`` (a view) when ``X`` is in
    column-major order (a DataFrame's table), else a C copy. One compiled signature for every layout."""
    by_column = X.flags.f_contiguous and not X.flags.c_contiguous
    rows = kernel_input(X.T if by_column else X, np.float64)
    return _any_outside(rows, kernel_input(top, np.float64), kernel_input(is_cat, np.bool_), by_column)


@numba.njit(cache=True, nogil=True)
def _any_outside(X, top, is_cat, by_column):  # pragma: no cover - compiled
    """Whether some ``X[i, j]`` is below 0 or above ``top[j]``, or not whole in a categorical column (the
    test of :func:`check_domains`, in memory order: row by row, or column by column when ``by_column``
    says ``X`` holds the table's transpose). Branch-free, one flag per column and no early exit: the
    compiler vectorises the pass (Adult: 0.58 -> 0.31 ms), whose time then depends on the shape only."""
    if by_column:
        d, n = X.shape
    else:
        n, d = X.shape
    bad = np.zeros(d, np.bool_)
    if by_column:
        for j in range(d):
            t, c, acc = top[j], is_cat[j], False
            for i in range(n):
                v = X[j, i]
                acc |= (v < 0) | (v > t) | (c & (np.floor(v) != v))
            bad[j] = acc
    else:
        for i in range(n):
            for j in range(d):
                v = X[i, j]
                bad[j] |= (v < 0) | (v > top[j]) | (is_cat[j] & (np.floor(v) != v))
    return bad.any()
