"""The dataset types of Application 1: :class:`Feature` (public metadata of one column) and :class:`Dataset`.

A categorical feature has a fixed tuple of categories and ``X`` holds the codes ``0 .. len(categories) - 1``
(as floats); a numeric feature has fixed public bounds ``(lo, hi)`` and ``X`` holds ``(v - lo) / (hi - lo)``
clipped to ``[0, 1]``. Also the two checks every loader shares (:func:`check_bounds`, :func:`resolve_path`).
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["KINDS", "Feature", "Dataset", "LabelError", "check_bounds", "resolve_path"]

KINDS = ("categorical", "numeric")


class LabelError(ValueError):
    """A label outside the declared label set ``{negative, positive}`` (a domain error, naming the line)."""


@dataclass(frozen=True)
class Feature:
    """Public metadata of one predictor.

    Parameters
    ----------
    name : str
        Column name.
    kind : {"categorical", "numeric"}
    categories : tuple
        Categorical only: the public domain. ``X`` holds the code ``i`` for ``categories[i]`` (as a float).
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
        if not isinstance(self.categories, tuple):
            object.__setattr__(self, "categories", tuple(self.categories))
        if self.kind == "categorical":
            if len(self.categories) < 1:
                raise ValueError(f"categorical feature {self.name!r} needs a non-empty tuple of categories")
            if len(set(self.categories)) != len(self.categories):
                raise ValueError(f"categories of feature {self.name!r} must be distinct")
            if self.bounds is not None:
                raise ValueError(f"categorical feature {self.name!r} takes no bounds")
        else:
            if self.categories:
                raise ValueError(f"numeric feature {self.name!r} takes no categories")
            lo, hi = check_bounds(self.bounds, f"bounds of feature {self.name!r}")
            object.__setattr__(self, "bounds", (lo, hi))

    @property
    def is_categorical(self) -> bool:
        return self.kind == "categorical"

    @property
    def n_categories(self) -> int:
        """Number of categories (0 for a numeric feature)."""
        return len(self.categories)

    def scale(self, values) -> np.ndarray:
        """Numeric only: ``(v - lo) / (hi - lo)`` clipped to ``[0, 1]`` (public bounds, data independent)."""
        if self.kind != "numeric":
            raise ValueError(f"feature {self.name!r} is categorical; scale applies to numeric features")
        lo, hi = self.bounds
        return np.clip((np.asarray(values, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)


@dataclass(frozen=True)
class Dataset:
    """A binary classification table with public feature metadata.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape (n, d)
        Categorical codes or numeric values scaled to ``[0, 1]`` with public bounds (see :class:`Feature`).
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
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
        if len(self.features) != X.shape[1]:
            raise ValueError(
                f"features must have one entry per column of X ({X.shape[1]}), got {len(self.features)}"
            )
        if not all(isinstance(f, Feature) for f in self.features):
            raise TypeError("features must be Feature objects")

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
        """The rows ``idx`` (e.g. a train/test split), with the same metadata."""
        idx = np.asarray(idx)
        return Dataset(self.X[idx], self.y[idx], self.features, self.name)

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_samples={self.n_samples}, n_features={self.n_features}, "
            f"positives={int(np.sum(self.y))})"
        )


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
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{what} must be finite with lo < hi, got {bounds!r}")
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
