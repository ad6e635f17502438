"""Datasets of the paper's Application 1 (cost-sensitive decision trees), with public feature metadata.

Every loader returns a :class:`Dataset`: a float matrix ``X`` (an :class:`EncodedTable`, marked as the
encoded form), binary labels ``y`` (1 = positive class) and one :class:`Feature` per column describing its
*public* domain:

* a categorical feature has a fixed tuple of categories and ``X`` holds the codes ``0 .. len(categories) - 1``
  (as floats);
* a numeric feature has fixed public bounds ``(lo, hi)`` and ``X`` holds ``(v - lo) / (hi - lo)`` clipped to
  ``[0, 1]``.

Privacy note. The bounds and the category lists are written in the code (or given by the caller), never read
off the private data: scaling with the data's own minimum and maximum, as the published code does, releases
them (``docs/errata.md``, point 6). The decision trees of :mod:`dpmo.trees` draw their splits from
this metadata only.

Conventions (``../shared/data/README.md``): NLTCS label = column 13 and ACS label = column 10 (0-based), all
attributes binary; Adult = ``adult.data`` + ``adult.test`` with the rows holding ``?`` dropped (45,222 rows),
label ``>50K``. The package never reads ``../shared`` itself: the loaders take a path.

Layout: :mod:`.types` (:class:`Feature`, :class:`Dataset`), :mod:`.loaders` (the paper's tables) and
:mod:`.csv_reader` (:func:`load_csv`); every name stays importable from ``dpmo.datasets``.
"""

from __future__ import annotations

from .csv_reader import load_csv
from .loaders import (
    ADULT_FEATURES,
    BREAST_CANCER_BOUNDS,
    load_acs,
    load_adult,
    load_breast_cancer,
    load_nltcs,
)
from .types import KINDS as KINDS  # noqa: F401  (importable from here, not documented twice)
from .types import Dataset, EncodedTable, Feature

__all__ = [
    "Feature",
    "Dataset",
    "EncodedTable",
    "ADULT_FEATURES",
    "BREAST_CANCER_BOUNDS",
    "load_nltcs",
    "load_acs",
    "load_adult",
    "load_csv",
    "load_breast_cancer",
]
