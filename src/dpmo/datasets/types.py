"""The dataset types of Application 1: :class:`Feature` (public metadata of one column) and :class:`Dataset`.

A categorical feature has a fixed tuple of categories and ``X`` holds the codes ``0 .. len(categories) - 1``
(as floats); a numeric feature has fixed public bounds ``(lo, hi)`` and ``X`` holds ``(v - lo) / (hi - lo)``
clipped to ``[0, 1]``. A Dataset's ``X`` is an :class:`EncodedTable`: an array that says it holds the encoded
form, so that an estimator never reads it as raw units (``docs/trees.md``, "Units"). Also the two checks
every loader shares (:func:`check_bounds`, :func:`resolve_path`) and the rule on a numeric feature's width
(:func:`check_width`).
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .encoded_table import EncodedTable

__all__ = [
    "KINDS",
    "NOT_SHOWN",
    "NONFINITE",
    "Feature",
    "Dataset",
    "EncodedTable",
    "LabelError",
    "check_bounds",
    "check_width",
    "MIN_WIDTH",
    "resolve_path",
]

#: Said by a refusal that one record caused, instead of the record: its row, value and the counts are not
#: in any message the library raises or prints (the records are private; a message is an output too).
NOT_SHOWN = "which row and value are not shown: the records are private"
#: The refusal of a numeric value that is not a finite number, after "numeric column 'c'" (one rule for the
#: readers, the command line and ``fit``: finite values outside the bounds are clipped, these are refused).
NONFINITE = (
    "holds a value that is not a finite number (inf, -inf or nan; finite values outside the public bounds "
    f"are clipped, these are not numbers of the domain; {NOT_SHOWN})"
)

KINDS = ("categorical", "numeric")


class LabelError(ValueError):
    """A label outside the declared label set ``{negative, positive}`` (a domain error, naming the column,
    never the row or the label)."""


@dataclass(frozen=True)
class Feature:
    """Public metadata of one predictor.

    Parameters
    ----------
    name : str
        Column name.
    kind : {"categorical", "numeric"}
    categories : tuple
        Categorical only: the public domain, a list or tuple of distinct hashable values (a str or a set
        is a TypeError: a str is not split into characters, a set has no order for the codes). ``X``
        holds the code ``i`` for ``categories[i]`` (as a float).
    bounds : tuple (lo, hi) or None
        Numeric only: the public bounds. ``X`` holds ``(v - lo) / (hi - lo)`` clipped to ``[0, 1]``.

    Examples
    --------
    >>> from dpmo.datasets import Feature
    >>> age = Feature("age", "numeric", bounds=(0, 120))
    >>> sex = Feature("sex", "categorical", categories=("F", "M"))
    >>> age.kind, sex.categories
    ('numeric', ('F', 'M'))
    """

    name: str
    kind: str
    categories: tuple = ()
    bounds: tuple | None = None

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"Feature name must be a str, got {type(self.name).__name__}")
        if self.kind not in KINDS:
            raise ValueError(
                f"Feature kind must be one of {list(KINDS)}, got {self.kind!r} for {self.name!r}"
            )
        if isinstance(self.categories, (str, bytes, set, frozenset)):  # split into characters, or no order
            raise TypeError(
                f"categories of feature {self.name!r} must be a list or tuple (the codes follow its order), "
                f"got {type(self.categories).__name__}"
            )
        if not isinstance(self.categories, tuple):
            object.__setattr__(self, "categories", tuple(self.categories))
        if self.kind == "categorical":
            if len(self.categories) < 1:
                raise ValueError(f"categorical feature {self.name!r} needs a non-empty tuple of categories")
            try:
                distinct = len(set(self.categories))
            except TypeError:
                raise TypeError(
                    f"categories of feature {self.name!r} must be hashable values (str, numbers), not lists "
                    "or other containers"
                ) from None
            if distinct != len(self.categories):
                raise ValueError(f"categories of feature {self.name!r} must be distinct")
            if self.bounds is not None:
                raise ValueError(f"categorical feature {self.name!r} takes no bounds")
        else:
            if self.categories:
                raise ValueError(f"numeric feature {self.name!r} takes no categories")
            lo, hi = check_width(check_bounds(self.bounds, f"bounds of feature {self.name!r}"), self.name)
            object.__setattr__(self, "bounds", (lo, hi))

    @property
    def is_categorical(self) -> bool:
        return self.kind == "categorical"

    @property
    def n_categories(self) -> int:
        """Number of categories (0 for a numeric feature)."""
        return len(self.categories)

    def scale(self, values) -> np.ndarray:
        """Numeric only: ``(v - lo) / (hi - lo)`` clipped to ``[0, 1]`` (public bounds, data independent).

        A finite value outside the bounds is clipped; a value that is not a finite number (``inf``,
        ``-inf``, ``nan``) is not a number of the domain and is refused with a ValueError naming the
        feature, never the value (:data:`NONFINITE`): the one rule of every reader, the command line and
        the estimators' ``fit`` (``docs/public-inputs.md``). Values that are not numbers (a text that is
        not a number, a complex number, a ragged list) are refused with a ValueError naming the feature,
        never the value.
        """
        if self.kind != "numeric":
            raise ValueError(f"feature {self.name!r} is categorical; scale applies to numeric features")
        lo, hi = self.bounds
        try:
            v = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):  # numpy's message quotes the value: not shown
            raise ValueError(
                f"numeric feature {self.name!r}: the values to scale must be numbers (an array_like of "
                f"real numbers or numeric strings, of a regular shape; {NOT_SHOWN})"
            ) from None
        if not np.all(np.isfinite(v)):
            raise ValueError(f"numeric feature {self.name!r} {NONFINITE}")
        with np.errstate(over="ignore"):  # a value far outside the bounds: +-inf here, clipped to 0 or 1
            return np.clip((v - lo) / (hi - lo), 0.0, 1.0)


@dataclass(frozen=True)
class Dataset:
    """A binary classification table with public feature metadata.

    Attributes
    ----------
    X : EncodedTable, shape (n, d)
        Categorical codes or numeric values scaled to ``[0, 1]`` with public bounds (see :class:`Feature`):
        a numpy array marked as the encoded form (:class:`EncodedTable`), so that the tree estimators read
        it (and its row subsets) as encoded, never as raw units.
    y : numpy.ndarray of int8, shape (n,)
        1 for the positive class, 0 otherwise.
    features : tuple of Feature, length d
    name : str

    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> data = load_breast_cancer()
    >>> data.X.shape == (len(data.y), len(data.features))
    True
    >>> set(data.y.tolist()) == {0, 1}
    True
    """

    X: np.ndarray
    y: np.ndarray
    features: tuple
    name: str

    def __post_init__(self):
        if not isinstance(self.features, tuple):
            object.__setattr__(self, "features", tuple(self.features))
        X = np.asarray(self.X)
        y = np.asarray(self.y)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got a {X.ndim}-D array")
        if y.shape != (X.shape[0],):  # the row counts are private: not shown
            raise ValueError("y must be 1-D with one label per row of X")
        if len(self.features) != X.shape[1]:
            raise ValueError(
                f"features must have one entry per column of X ({X.shape[1]}), got {len(self.features)}"
            )
        if not all(isinstance(f, Feature) for f in self.features):
            raise TypeError("features must be Feature objects")
        object.__setattr__(self, "X", EncodedTable(X, self.features))  # marked: never read as raw units

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)

    def take(self, idx) -> Dataset:
        """The rows ``idx`` (e.g. a train/test split), with the same metadata.

        ``idx`` holds integer row indices (negative ones count from the end) or is a boolean mask with one
        entry per row. Other indices are a TypeError, a mask of another length or an index outside the
        table a ValueError naming ``idx``, never the number of rows (private).
        """
        idx = np.asarray(idx)
        n = self.n_samples
        if idx.ndim != 1:
            raise ValueError(f"idx must be 1-D (row indices or a boolean mask of the rows), got {idx.ndim}-D")
        if idx.dtype == np.bool_:
            if idx.shape[0] != n:  # the row count is private: not shown
                raise ValueError("idx: a boolean mask needs one entry per row of the Dataset")
        elif idx.dtype.kind in "iu" or idx.size == 0:
            if idx.size and (int(idx.min()) < -n or int(idx.max()) >= n):
                raise ValueError(
                    "idx holds a row index outside the Dataset (which index and the row count are not "
                    "shown: the records are private)"
                )
            idx = idx.astype(np.intp)
        else:
            raise TypeError(
                f"idx must hold integer row indices or be a boolean mask of the rows, got dtype {idx.dtype}"
            )
        return Dataset(self.X[idx], self.y[idx], self.features, self.name)

    def __repr__(self) -> str:
        """Public facts only: the name and the columns (the numbers of rows and of positives are private,
        and a repr is printed by notebooks and logs)."""
        names = ", ".join(self.feature_names[:5]) + (", ..." if self.n_features > 5 else "")
        return f"Dataset(name={self.name!r}, n_features={self.n_features}, features=[{names}])"


# ----------------------------------------------------------------------------------------------------------
# helpers


def check_bounds(bounds, what: str) -> tuple[float, float]:
    """Public bounds ``(lo, hi)`` as floats, checked: real, finite, ``lo < hi`` (``what`` names them).

    Examples
    --------
    >>> from dpmo.datasets.types import check_bounds
    >>> check_bounds((0, 10), "bounds of age")
    (0.0, 10.0)
    """
    if bounds is None:
        raise ValueError(
            f"{what} are required for a numeric feature (public (lo, hi), never the data's range)"
        )
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a pair (lo, hi), got {bounds!r}") from None
    for v in (lo, hi):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.integer, np.floating)):
            raise TypeError(f"{what} must be real numbers, got {bounds!r}")
    try:
        lo, hi = float(lo), float(hi)
    except OverflowError:  # an int beyond the floats: not finite
        lo = hi = math.inf
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{what} must be finite with lo < hi, got {bounds!r}")
    return lo, hi


#: The smallest width ``hi - lo`` of a numeric feature's bounds: the smallest normal float (a narrower,
#: subnormal width makes ``(v - lo) / (hi - lo)`` overflow and loses the bins' precision).
MIN_WIDTH = float(np.finfo(np.float64).tiny)


def check_width(bounds: tuple[float, float], name: str) -> tuple[float, float]:
    """Finite bounds ``(lo, hi)`` with ``lo < hi`` of the numeric feature ``name``, refused unless their
    width ``hi - lo`` is a finite float of at least :data:`MIN_WIDTH` (about ``2.2e-308``) and
    ``lo + (hi - lo)`` is finite, so that the scaled values, the bins' edges ``lo + (hi - lo) i / n`` and
    the thresholds ``lo + t (hi - lo)`` in the feature's units are finite numbers. Public: the bounds only.

    Examples
    --------
    >>> from dpmo.datasets.types import check_width
    >>> check_width((0.0, 120.0), "age")
    (0.0, 120.0)
    >>> try:
    ...     check_width((-1e308, 1e308), "age")
    ... except ValueError as exc:
    ...     print(str(exc)[:59])
    bounds of feature 'age': the width hi - lo must be a finite
    """
    lo, hi = bounds
    with np.errstate(over="ignore"):
        width = float(np.float64(hi) - np.float64(lo))
        top = float(np.float64(lo) + np.float64(width))
    if not (math.isfinite(width) and width >= MIN_WIDTH and math.isfinite(top)):
        raise ValueError(
            f"bounds of feature {name!r}: the width hi - lo must be a finite number of at least "
            f"{MIN_WIDTH:.2g} (the smallest normal float), got ({lo:g}, {hi:g})"
        )
    return lo, hi


def resolve_path(path, default_name: str) -> Path:
    """``path`` itself if it is a file, or ``path / default_name`` if it is a folder.

    Raises TypeError for a path that is not a str / PathLike, FileNotFoundError if there is no such file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from dpmo.datasets.types import resolve_path
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "t.dat").write_text("1 0")
    >>> resolve_path(folder, "t.dat") == resolve_path(folder / "t.dat", "") == folder / "t.dat"
    True
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    p = Path(path)
    if p.is_dir():
        p = p / default_name
    if not p.is_file():
        raise FileNotFoundError(f"dataset file not found: {p}")
    return p
