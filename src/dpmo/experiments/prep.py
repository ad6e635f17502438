"""Data-preparation readings of the tables (:mod:`dpmo.experiments.readings`): label, class, rows, columns.

:func:`load_table` loads a table as :func:`dpmo.datasets.load_nltcs`, :func:`~dpmo.datasets.load_acs` and
:func:`~dpmo.datasets.load_adult` do, then applies the choices of ``prep`` (a dict, the ``data`` entry of an
experiment's ``params``):

* ``positive``: ``"usual"`` or ``"flipped"`` (the other class is the positive one);
* ``label_column``: NLTCS/ACS label column (0-based);
* Adult only: ``adult_files`` (``"both"``, ``"train"``, ``"test"``), ``adult_missing`` (``"drop"`` or
  ``"keep"``: ``?`` becomes one more category), ``adult_marital`` (``"folded"`` or ``"full"``),
  ``adult_bins`` (an int: equal-width bins over the public bounds, then categorical), ``adult_numeric``
  (``"quantile"``: bins at the data's quartiles, or ``"minmax"``: scaled by the data's min and max - both
  read the private data and are NOT private), ``adult_columns`` (``"all"``: also fnlwgt and education).

These variants exist to explain the paper's numbers; the library's loaders keep the documented defaults.
O(rows) time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import datasets
from ..datasets import ADULT_FEATURES, Dataset, Feature
from ..datasets.loaders import read_adult_rows

__all__ = ["load_table", "ADULT_MARITAL", "ADULT_EDUCATION"]

_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
    "income",
)  # fmt: skip
#: The 7 marital-status categories of ``adult.names``.
ADULT_MARITAL = (
    "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent",
    "Married-AF-spouse",
)  # fmt: skip
#: The 16 education categories of ``adult.names``.
ADULT_EDUCATION = (
    "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm", "Assoc-voc", "9th",
    "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool",
)  # fmt: skip
_MARRIED = ("Married-civ-spouse", "Married-spouse-absent", "Married-AF-spouse")


def _adult(files: Sequence[str], prep: dict[str, Any]) -> Dataset:
    folder = Path(files[0]).parent
    which = prep.get("adult_files", "both")
    names = {"both": ("adult.data", "adult.test"), "train": ("adult.data",), "test": ("adult.test",)}[which]
    keep = prep.get("adult_missing", "drop") == "keep"
    rows = [r for name in names for r in read_adult_rows(folder / name, keep)]
    col = {c: i for i, c in enumerate(_COLUMNS)}
    feats = list(ADULT_FEATURES)
    if prep.get("adult_columns") == "all":
        feats.insert(2, Feature("fnlwgt", "numeric", bounds=(0.0, 1_500_000.0)))
        feats.insert(3, Feature("education", "categorical", ADULT_EDUCATION))
    full_marital = prep.get("adult_marital", "folded") == "full"
    bins = prep.get("adult_bins")
    numeric = prep.get("adult_numeric", "scaled")
    columns, features = [], []
    for feat in feats:
        raw = [r[col[feat.name]] for r in rows]
        if feat.kind == "numeric":
            v = np.array(raw, dtype=np.float64)
            if numeric == "minmax":  # NOT private: the data's own range
                lo, hi = float(v.min()), float(v.max())
                columns.append((v - lo) / (hi - lo) if hi > lo else np.zeros_like(v))
                features.append(feat)
            elif numeric == "quantile":  # NOT private: the data's quartiles
                cuts = np.unique(np.quantile(v, [0.25, 0.5, 0.75]))
                columns.append(np.searchsorted(cuts, v, side="right").astype(np.float64))
                features.append(Feature(feat.name, "categorical", tuple(range(cuts.size + 1))))
            elif bins:
                s = feat.scale(v)
                columns.append(np.minimum(np.floor(s * bins), bins - 1).astype(np.float64))
                features.append(Feature(feat.name, "categorical", tuple(range(int(bins)))))
            else:
                columns.append(feat.scale(v))
                features.append(feat)
            continue
        if feat.name == "marital-status":
            cats = ADULT_MARITAL if full_marital else ("married", "not married")
            lookup = (
                {c: i for i, c in enumerate(ADULT_MARITAL)}
                if full_marital
                else {c: (0 if c in _MARRIED else 1) for c in ADULT_MARITAL}
            )
        else:
            cats = tuple(feat.categories)
            lookup = {c: i for i, c in enumerate(cats)}
        if keep:
            lookup["?"] = len(cats)
            cats = (*cats, "?")
        columns.append(np.array([lookup[v] for v in raw], dtype=np.float64))
        features.append(Feature(feat.name, "categorical", cats))
    X = np.column_stack(columns)
    y = np.array([r[col["income"]].rstrip(".") == ">50K" for r in rows], dtype=np.int8)
    return Dataset(X, y, tuple(features), "adult")


def load_table(name: str, files: Sequence[str] = (), prep: dict[str, Any] | None = None) -> Dataset:
    """Table ``name`` prepared with the choices of ``prep`` (module notes); ``prep`` empty = the defaults."""
    prep = dict(prep or {})
    if name == "breast-cancer":
        data = datasets.load_breast_cancer()
    elif name in ("nltcs", "acs"):
        loader = datasets.load_nltcs if name == "nltcs" else datasets.load_acs
        kw = {"label_column": int(prep["label_column"])} if prep.get("label_column") is not None else {}
        data = loader(Path(files[0]), **kw)
    elif name == "adult":
        adult_keys = {k for k in prep if k.startswith("adult_")}
        data = _adult(files, prep) if adult_keys else datasets.load_adult(Path(files[0]).parent)
    else:
        raise ValueError(f"unknown table dataset {name!r}")
    if prep.get("positive", "usual") == "flipped":
        data = Dataset(data.X, (1 - data.y).astype(np.int8), data.features, data.name)
    return data
