"""Datasets of the paper's Application 1 (cost-sensitive decision trees), with public feature metadata.

Every loader returns a :class:`Dataset`: a float64 matrix ``X``, binary labels ``y`` (1 = positive class)
and one :class:`Feature` per column describing its *public* domain:

* a categorical feature has a fixed tuple of categories and ``X`` holds the codes ``0 .. len(categories) - 1``
  (as floats);
* a numeric feature has fixed public bounds ``(lo, hi)`` and ``X`` holds ``(v - lo) / (hi - lo)`` clipped to
  ``[0, 1]``.

Privacy note. The bounds and the category lists are written in the code (or given by the caller), never read
off the private data: scaling with the data's own minimum and maximum, as the published code does, releases
them (``../shared/notes/ERRATA.md``, point 6). The decision trees of :mod:`dpmo.trees` draw their splits from
this metadata only.

Conventions (``../shared/data/README.md``): NLTCS label = column 13 and ACS label = column 10 (0-based), all
attributes binary; Adult = ``adult.data`` + ``adult.test`` with the rows holding ``?`` dropped (45,222 rows),
label ``>50K``. The package never reads ``../shared`` itself: the loaders take a path.
"""

from __future__ import annotations

import csv
import itertools
import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "Feature",
    "Dataset",
    "ADULT_FEATURES",
    "BREAST_CANCER_BOUNDS",
    "load_nltcs",
    "load_acs",
    "load_adult",
    "load_csv",
    "load_breast_cancer",
]

KINDS = ("categorical", "numeric")


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
            lo, hi = _check_bounds(self.bounds, f"bounds of feature {self.name!r}")
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


def _check_bounds(bounds, what: str) -> tuple[float, float]:
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


def _resolve(path, default_name: str) -> Path:
    """``path`` itself if it is a file, or ``path / default_name`` if it is a folder."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    p = Path(path)
    if p.is_dir():
        p = p / default_name
    if not p.is_file():
        raise FileNotFoundError(f"dataset file not found: {p}")
    return p


def _load_binary_table(path, *, default_name: str, n_columns: int, label_column: int, name: str) -> Dataset:
    p = _resolve(path, default_name)
    try:
        data = np.loadtxt(p, dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{p}: not a whitespace-separated numeric table ({exc})") from None
    if data.shape[0] == 0:
        raise ValueError(f"{p}: no rows")
    if data.shape[1] != n_columns:
        raise ValueError(f"{p}: expected {n_columns} columns for {name}, found {data.shape[1]}")
    if not np.all((data == 0) | (data == 1)):
        bad = np.argwhere((data != 0) & (data != 1))[0]
        col = int(bad[1])
        what = "label" if col == label_column else "attribute"
        raise ValueError(
            f"{p}: {name} values must be binary 0/1; found {data[bad[0], col]!r} in {what} column {col} "
            f"(row {int(bad[0])})"
        )
    keep = [j for j in range(n_columns) if j != label_column]
    features = tuple(Feature(f"x{j}", "categorical", (0, 1)) for j in keep)
    X = np.ascontiguousarray(data[:, keep])
    y = data[:, label_column].astype(np.int8)
    return Dataset(X, y, features, name)


def load_nltcs(path, *, label_column: int = 13) -> Dataset:
    """National Long Term Care Survey: 21,574 rows, 16 binary attributes (the paper's NLTCS).

    Parameters
    ----------
    path : str or os.PathLike
        The ``nltcs.dat`` file (whitespace-separated 0/1, no header) or a folder holding it.
    label_column : int, default 13
        0-based label column (the published code's convention); the other 15 columns are the predictors,
        named ``x<column>``, categorical with domain ``(0, 1)``.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the table does not have 16 columns or holds a value other than 0 and 1.

    Notes
    -----
    O(rows) time and memory.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from dpmo.datasets import load_nltcs
    >>> folder = tempfile.mkdtemp()
    >>> rows = np.random.default_rng(0).integers(0, 2, size=(5, 16))  # a made-up table in NLTCS's format
    >>> np.savetxt(os.path.join(folder, "nltcs.dat"), rows, fmt="%d")
    >>> data = load_nltcs(folder)
    >>> data.X.shape, data.y.tolist() == rows[:, 13].tolist()  # 15 predictors; column 13 is the label
    ((5, 15), True)
    >>> os.remove(os.path.join(folder, "nltcs.dat")); os.rmdir(folder)
    """
    return _load_binary_table(
        path, default_name="nltcs.dat", n_columns=16, label_column=label_column, name="nltcs"
    )


def load_acs(path, *, label_column: int = 10) -> Dataset:
    """American Community Survey PUMS 2013-2014: 47,461 rows, 23 binary attributes (the paper's ACS).

    Parameters
    ----------
    path : str or os.PathLike
        The ``acs.dat`` file (whitespace-separated 0/1, no header) or a folder holding it.
    label_column : int, default 10
        0-based label column (the published code's convention); the other 22 columns are the predictors.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`load_nltcs`.

    Notes
    -----
    O(rows) time and memory.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from dpmo.datasets import load_acs
    >>> folder = tempfile.mkdtemp()
    >>> rows = np.random.default_rng(0).integers(0, 2, size=(4, 23))  # a made-up table in ACS's format
    >>> np.savetxt(os.path.join(folder, "acs.dat"), rows, fmt="%d", delimiter="\\t")
    >>> data = load_acs(folder)
    >>> data.X.shape, data.y.tolist() == rows[:, 10].tolist()
    ((4, 22), True)
    >>> os.remove(os.path.join(folder, "acs.dat")); os.rmdir(folder)
    """
    return _load_binary_table(
        path, default_name="acs.dat", n_columns=23, label_column=label_column, name="acs"
    )


# ----------------------------------------------------------------------------------------------------------
# Adult

_ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)

_MARRIED = ("Married-civ-spouse", "Married-spouse-absent", "Married-AF-spouse")
_NOT_MARRIED = ("Never-married", "Divorced", "Separated", "Widowed")

#: Predictors of Adult with their public metadata: the domains of the UCI documentation (``adult.names``)
#: and fixed bounds for the numeric attributes (the documented ranges, written here, not read from the data).
#: marital-status is folded to married (``Married-civ-spouse``, ``Married-spouse-absent``,
#: ``Married-AF-spouse``) / not married (``Never-married``, ``Divorced``, ``Separated``, ``Widowed``).
ADULT_FEATURES: tuple[Feature, ...] = (
    Feature("age", "numeric", bounds=(17.0, 90.0)),
    Feature(
        "workclass",
        "categorical",
        (
            "Private",
            "Self-emp-not-inc",
            "Self-emp-inc",
            "Federal-gov",
            "Local-gov",
            "State-gov",
            "Without-pay",
            "Never-worked",
        ),
    ),
    Feature("education-num", "numeric", bounds=(1.0, 16.0)),
    Feature("marital-status", "categorical", ("married", "not married")),
    Feature(
        "occupation",
        "categorical",
        (
            "Tech-support",
            "Craft-repair",
            "Other-service",
            "Sales",
            "Exec-managerial",
            "Prof-specialty",
            "Handlers-cleaners",
            "Machine-op-inspct",
            "Adm-clerical",
            "Farming-fishing",
            "Transport-moving",
            "Priv-house-serv",
            "Protective-serv",
            "Armed-Forces",
        ),
    ),
    Feature(
        "relationship",
        "categorical",
        ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    ),
    Feature("race", "categorical", ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")),
    Feature("sex", "categorical", ("Female", "Male")),
    Feature("capital-gain", "numeric", bounds=(0.0, 99999.0)),
    Feature("capital-loss", "numeric", bounds=(0.0, 4356.0)),
    Feature("hours-per-week", "numeric", bounds=(1.0, 99.0)),
    Feature(
        "native-country",
        "categorical",
        (
            "United-States",
            "Cambodia",
            "England",
            "Puerto-Rico",
            "Canada",
            "Germany",
            "Outlying-US(Guam-USVI-etc)",
            "India",
            "Japan",
            "Greece",
            "South",
            "China",
            "Cuba",
            "Iran",
            "Honduras",
            "Philippines",
            "Italy",
            "Poland",
            "Jamaica",
            "Vietnam",
            "Mexico",
            "Portugal",
            "Ireland",
            "France",
            "Dominican-Republic",
            "Laos",
            "Ecuador",
            "Taiwan",
            "Haiti",
            "Columbia",
            "Hungary",
            "Guatemala",
            "Nicaragua",
            "Scotland",
            "Thailand",
            "Yugoslavia",
            "El-Salvador",
            "Trinadad&Tobago",
            "Peru",
            "Hong",
            "Holand-Netherlands",
        ),
    ),
)


def _read_adult_file(p: Path) -> list[list[str]]:
    rows = []
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("|"):
                continue
            fields = [s.strip() for s in line.split(",")]
            if len(fields) != len(_ADULT_COLUMNS):
                raise ValueError(
                    f"{p}, line {lineno}: expected {len(_ADULT_COLUMNS)} fields, found {len(fields)}"
                )
            if "?" in fields:
                continue
            rows.append(fields)
    return rows


def load_adult(path_or_dir) -> Dataset:
    """UCI Adult (census income): 45,222 rows with 12 predictors, label ``>50K``.

    Parameters
    ----------
    path_or_dir : str or os.PathLike
        A folder holding ``adult.data`` and ``adult.test`` (both are read, as the paper does), or one of
        these files (then only that file is read).

    Returns
    -------
    Dataset
        Predictors :data:`ADULT_FEATURES` (age, workclass, education-num, marital-status folded to
        married / not married, occupation, relationship, race, sex, capital-gain, capital-loss,
        hours-per-week, native-country); rows with a ``?`` are dropped; ``y = 1`` for ``>50K`` (the test
        file's trailing ``.`` is removed).

    Raises
    ------
    FileNotFoundError
        If the folder lacks one of the two files, or the file does not exist.
    ValueError
        On a malformed line, a label other than ``>50K`` / ``<=50K``, or a category outside the public
        domain.

    Notes
    -----
    O(rows) time. Numeric attributes are scaled with the fixed public bounds of :data:`ADULT_FEATURES`.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpmo.datasets import load_adult
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "adult.data")
    >>> line = ("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
    ...         "Male, 2174, 0, 40, United-States, {}")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write(line.format("<=50K") + "\\n" + line.format(">50K") + "\\n")
    >>> data = load_adult(path)  # one file: only it is read
    >>> data.X.shape, data.y.tolist()
    ((2, 12), [0, 1])
    >>> os.remove(path); os.rmdir(folder)
    """
    if not isinstance(path_or_dir, (str, os.PathLike)):
        raise TypeError(f"path_or_dir must be a str or os.PathLike, got {type(path_or_dir).__name__}")
    p = Path(path_or_dir)
    if p.is_dir():
        files = [p / "adult.data", p / "adult.test"]
        for f in files:
            if not f.is_file():
                raise FileNotFoundError(f"dataset file not found: {f}")
    elif p.is_file():
        files = [p]
    else:
        raise FileNotFoundError(f"dataset file or folder not found: {p}")
    rows: list[list[str]] = []
    for f in files:
        rows.extend(_read_adult_file(f))
    if not rows:
        raise ValueError(f"{p}: no complete rows")
    col = {c: i for i, c in enumerate(_ADULT_COLUMNS)}
    n = len(rows)
    X = np.empty((n, len(ADULT_FEATURES)), dtype=np.float64)
    for j, feat in enumerate(ADULT_FEATURES):
        raw = [r[col[feat.name]] for r in rows]
        if feat.kind == "numeric":
            try:
                vals = np.array(raw, dtype=np.float64)
            except ValueError:
                raise ValueError(f"{p}: non-numeric value in column {feat.name!r}") from None
            X[:, j] = feat.scale(vals)
        else:
            if feat.name == "marital-status":
                lookup = {v: 0 for v in _MARRIED} | {v: 1 for v in _NOT_MARRIED}
            else:
                lookup = {v: i for i, v in enumerate(feat.categories)}
            try:
                X[:, j] = [lookup[v] for v in raw]
            except KeyError as exc:
                raise ValueError(
                    f"{p}: value {exc.args[0]!r} of column {feat.name!r} is not in its public domain"
                ) from None
    labels = [r[col["income"]].rstrip(".") for r in rows]
    bad = set(labels) - {">50K", "<=50K"}
    if bad:
        raise ValueError(f"{p}: label must be '>50K' or '<=50K', found {sorted(bad)[:3]}")
    y = np.fromiter((lab == ">50K" for lab in labels), dtype=np.int8, count=n)
    return Dataset(X, y, ADULT_FEATURES, "adult")


# ----------------------------------------------------------------------------------------------------------
# generic CSV


def _as_number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def load_csv(
    path,
    label: str,
    *,
    positive=1,
    categorical: Mapping[str, Sequence] | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    name: str | None = None,
    delimiter: str = ",",
    missing: Iterable[str] = ("?", "", "NA", "nan"),
    header: bool = True,
) -> Dataset:
    """Load a CSV file with a header line, a named binary label column and public feature metadata.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (first line = column names).
    label : str
        Name of the label column.
    positive : str or number, default 1
        The label value of the positive class (``y = 1``); compared as text, or numerically when both
        sides are numbers (so ``1`` matches ``1.0``). The label column must hold at most two distinct
        values, one of which is ``positive`` when there are two.
    categorical : mapping column -> sequence of categories, optional
        Categorical predictors with their PUBLIC domain (codes follow the given order). A value outside
        the domain is an error. Matched as text, or numerically for numeric categories.
    bounds : mapping column -> (lo, hi), optional
        Numeric predictors with their PUBLIC bounds; values are scaled to ``[0, 1]`` and clipped.
    name : str, optional
        Dataset name (default: the file name without extension).
    delimiter : str, default ","
    missing : iterable of str
        Tokens read as missing; rows with a missing value in a used column are dropped.
    header : bool, default True
        Whether the first line holds the column names. False: every line is a row and the columns are
        named by their 0-based number (``"0"``, ``"1"``, ...).

    Returns
    -------
    Dataset
        The predictors are the columns named in ``categorical`` and ``bounds``, in the file's order; the
        other columns are ignored. Domains and bounds are never inferred from the data: inferring them
        would release information about the private records.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If a named column is missing, no predictor is given, a column is both categorical and numeric,
        the label is not binary, a value is outside its categorical domain or not numeric, or a row has the
        wrong number of fields.

    Notes
    -----
    O(rows x columns) time.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpmo.datasets import load_csv
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "patients.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("age,sex,sick\\n30,F,0\\n60,M,1\\n90,F,1\\n")
    >>> data = load_csv(path, label="sick", categorical={"sex": ["F", "M"]}, bounds={"age": (0, 120)})
    >>> data.X.tolist()  # age scaled with the public bounds, sex as its code
    [[0.25, 0.0], [0.5, 1.0], [0.75, 0.0]]
    >>> data.y.tolist()
    [0, 1, 1]
    >>> os.remove(path); os.rmdir(folder)
    """
    p = _resolve(path, "")
    if not isinstance(label, str):
        raise TypeError(f"label must be a column name (str), got {type(label).__name__}")
    categorical = dict(categorical or {})
    bounds = dict(bounds or {})
    both = set(categorical) & set(bounds)
    if both:
        raise ValueError(f"columns {sorted(both)} are given both as categorical and with numeric bounds")
    if not categorical and not bounds:
        raise ValueError(
            "give the predictors: categorical={column: categories} and/or bounds={column: (lo, hi)}"
        )
    if label in categorical or label in bounds:
        raise ValueError(f"the label column {label!r} cannot also be a predictor")
    missing = set(missing)
    with open(p, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            first = next(reader)
        except StopIteration:
            raise ValueError(f"{p}: empty file") from None
        start = 2 if header else 1
        if header:
            header = [h.strip() for h in first]
        else:
            header = [str(i) for i in range(len(first))]
            reader = itertools.chain([first], reader)
        pos = {h: i for i, h in enumerate(header)}
        needed = [label, *categorical, *bounds]
        absent = [c for c in needed if c not in pos]
        if absent:
            raise ValueError(f"{p}: missing column(s) {absent}; the header has {header}")
        names = [h for h in header if h in categorical or h in bounds]
        used = [pos[label]] + [pos[h] for h in names]
        records = []
        for lineno, row in enumerate(reader, start):
            if not row or all(not s.strip() for s in row):
                continue
            if len(row) != len(header):
                raise ValueError(f"{p}, line {lineno}: expected {len(header)} fields, found {len(row)}")
            vals = [row[i].strip() for i in used]
            if any(v in missing for v in vals):
                continue
            records.append(vals)
    if not records:
        raise ValueError(f"{p}: no complete rows")

    labels = [r[0] for r in records]

    def norm(v: str):  # "1" and "1.0" are one label value
        num = _as_number(v)
        return ("num", num) if num is not None else ("text", v)

    groups: dict = {}
    for v in set(labels):
        groups.setdefault(norm(v), []).append(v)
    distinct = sorted(min(g) for g in groups.values())
    pos_num = _as_number(str(positive)) if not isinstance(positive, bool) else None

    def is_positive(v: str) -> bool:
        if v == str(positive):
            return True
        if pos_num is not None:
            num = _as_number(v)
            return num is not None and num == pos_num
        return False

    group_flag = {key: is_positive(min(g)) for key, g in groups.items()}
    flags = {v: group_flag[norm(v)] for v in set(labels)}
    if len(distinct) > 2 or (len(distinct) == 2 and sum(group_flag.values()) != 1):
        raise ValueError(
            f"{p}: label column {label!r} must be binary with positive value {positive!r}; "
            f"found values {distinct[:5]}{' ...' if len(distinct) > 5 else ''}"
        )
    y = np.fromiter((flags[v] for v in labels), dtype=np.int8, count=len(labels))

    features = []
    X = np.empty((len(records), len(names)), dtype=np.float64)
    for j, col in enumerate(names):
        raw = [r[j + 1] for r in records]
        if col in bounds:
            feat = Feature(col, "numeric", bounds=tuple(bounds[col]) if bounds[col] is not None else None)
            nums = [_as_number(v) for v in raw]
            if any(v is None for v in nums):
                bad = next(r for r, v in zip(raw, nums, strict=True) if v is None)
                raise ValueError(f"{p}: non-numeric value {bad!r} in numeric column {col!r}")
            X[:, j] = feat.scale(np.array(nums, dtype=np.float64))
        else:
            cats = tuple(categorical[col])
            feat = Feature(col, "categorical", cats)
            text = {str(c): i for i, c in enumerate(cats)}
            nums_map = {}
            for i, c in enumerate(cats):
                cn = _as_number(str(c))
                if cn is not None and not isinstance(c, bool):
                    nums_map.setdefault(cn, i)
            codes = np.empty(len(raw), dtype=np.float64)
            for i, v in enumerate(raw):
                code = text.get(v)
                if code is None and nums_map:
                    num = _as_number(v)
                    code = nums_map.get(num) if num is not None else None
                if code is None:
                    raise ValueError(f"{p}: value {v!r} of column {col!r} is not in its public domain {cats}")
                codes[i] = code
            X[:, j] = codes
        features.append(feat)
    return Dataset(X, y, tuple(features), name if name is not None else p.stem)


# ----------------------------------------------------------------------------------------------------------
# breast cancer (bundled with scikit-learn)

#: Public bounds of the 30 attributes of the Wisconsin diagnostic breast cancer table: the documented
#: attribute ranges (scikit-learn's description of the UCI table) widened to round numbers.
BREAST_CANCER_BOUNDS: tuple[tuple[float, float], ...] = (
    # mean: radius, texture, perimeter, area, smoothness, compactness, concavity, concave points,
    # symmetry, fractal dimension
    (5.0, 30.0),
    (5.0, 40.0),
    (40.0, 200.0),
    (100.0, 2600.0),
    (0.05, 0.17),
    (0.0, 0.35),
    (0.0, 0.45),
    (0.0, 0.21),
    (0.1, 0.31),
    (0.04, 0.1),
    # standard error
    (0.1, 3.0),
    (0.3, 5.0),
    (0.7, 22.0),
    (6.0, 550.0),
    (0.0, 0.032),
    (0.0, 0.14),
    (0.0, 0.4),
    (0.0, 0.055),
    (0.0, 0.08),
    (0.0, 0.03),
    # worst
    (7.0, 37.0),
    (12.0, 50.0),
    (50.0, 260.0),
    (180.0, 4300.0),
    (0.07, 0.23),
    (0.0, 1.1),
    (0.0, 1.3),
    (0.0, 0.3),
    (0.15, 0.67),
    (0.05, 0.21),
)


def load_breast_cancer() -> Dataset:
    """scikit-learn's bundled Wisconsin diagnostic breast cancer table (569 rows, 30 numeric attributes).

    ``y = 1`` for a malignant tumour (the costly class to miss), so TPR is the share of malignant tumours
    found. Numeric attributes are scaled with the fixed public bounds :data:`BREAST_CANCER_BOUNDS`.
    Requires scikit-learn. O(rows) time.

    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> data = load_breast_cancer()
    >>> data.X.shape, int(data.y.sum())  # 569 tumours, 212 malignant (scikit-learn's table)
    ((569, 30), 212)
    >>> bool((data.X >= 0).all() and (data.X <= 1).all())  # scaled with public bounds
    True
    """
    try:
        from sklearn.datasets import load_breast_cancer as _sk_load
    except ImportError as exc:  # pragma: no cover - scikit-learn is an optional dependency
        raise ImportError("load_breast_cancer needs scikit-learn (pip install dpmo[experiments])") from exc
    raw = _sk_load()
    names = [str(n) for n in raw.feature_names]
    features = tuple(
        Feature(name, "numeric", bounds=b) for name, b in zip(names, BREAST_CANCER_BOUNDS, strict=True)
    )
    X = np.column_stack([f.scale(raw.data[:, j]) for j, f in enumerate(features)])
    y = (raw.target == 0).astype(np.int8)  # scikit-learn codes malignant as 0
    return Dataset(X, y, features, "breast_cancer")
