"""Loaders of the paper's tables: NLTCS, ACS, Adult (with :data:`ADULT_FEATURES`) and breast cancer.

Each returns a :class:`~dpmo.datasets.types.Dataset` whose domains and bounds are written here, never read
off the private data. Conventions: NLTCS label = column 13 and ACS label = column 10 (0-based), all
attributes binary; Adult = ``adult.data`` + ``adult.test`` with the rows holding ``?`` dropped (45,222
rows), label ``>50K``; breast cancer is scikit-learn's bundled copy with :data:`BREAST_CANCER_BOUNDS`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from .._extras import require
from .types import NONFINITE, NOT_SHOWN, Dataset, Feature, resolve_path

__all__ = [
    "ADULT_FEATURES",
    "BREAST_CANCER_BOUNDS",
    "load_nltcs",
    "load_acs",
    "load_adult",
    "load_breast_cancer",
]


def _check_label_column(label_column, n_columns: int) -> int:
    """``label_column`` as an int in ``0 .. n_columns - 1`` (the file's public width), else refused."""
    allowed = f"label_column must be an int in 0..{n_columns - 1} (the file's {n_columns} columns, 0-based)"
    if isinstance(label_column, (bool, np.bool_)) or not isinstance(label_column, (int, np.integer)):
        raise TypeError(f"{allowed}, got {type(label_column).__name__}")
    if not 0 <= label_column < n_columns:  # a negative one is refused: -1 is not read as the last column
        raise ValueError(f"{allowed}, got {int(label_column)}")
    return int(label_column)


def _load_binary_table(path, *, default_name: str, n_columns: int, label_column: int, name: str) -> Dataset:
    label_column = _check_label_column(label_column, n_columns)
    p = resolve_path(path, default_name)
    try:
        with warnings.catch_warnings():  # numpy warns on a file with no row: a table like any other
            warnings.simplefilter("ignore", UserWarning)
            data = np.loadtxt(p, dtype=np.float64, ndmin=2, encoding="utf-8-sig")  # a BOM is not a cell
    except UnicodeDecodeError:
        raise ValueError(f"{p}: not UTF-8 text ({NOT_SHOWN})") from None
    except ValueError:
        raise ValueError(
            f"{p}: not a whitespace-separated numeric table (a cell that is not a number, or rows of "
            f"different lengths; {NOT_SHOWN})"
        ) from None
    if data.shape[0] == 0:  # no record: the empty table (refusing it would tell it from its neighbours)
        data = np.empty((0, n_columns))
    if data.shape[1] != n_columns:
        raise ValueError(f"{p}: expected {n_columns} columns for {name}, found {data.shape[1]}")
    if not np.all((data == 0) | (data == 1)):
        col = int(np.argwhere((data != 0) & (data != 1))[0][1])
        what = "label" if col == label_column else "attribute"
        raise ValueError(
            f"{p}: {name} values must be binary 0/1; {what} column {col} holds another ({NOT_SHOWN})"
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
        0-based label column, in ``0..15`` (the published code's convention is 13; a negative number is
        refused, not counted from the end); the other 15 columns are the predictors, named
        ``x<column>``, categorical with domain ``(0, 1)``.

    Raises
    ------
    TypeError
        If ``label_column`` is not an int (a bool, float or str is refused).
    FileNotFoundError
        If the file does not exist.
    ValueError
        If ``label_column`` is outside ``0..15``, the file is not UTF-8 text, or the table does not have
        16 columns or holds a value other than 0 and 1.

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
        0-based label column, in ``0..22`` (the published code's convention is 10; a negative number is
        refused); the other 22 columns are the predictors.

    Raises
    ------
    TypeError, FileNotFoundError, ValueError
        As :func:`load_nltcs` (with ``0..22`` and 23 columns).

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


def read_adult_rows(p: Path, keep_missing: bool = False) -> list[list[str]]:
    """The records of one Adult file as lists of 15 stripped fields (``adult.names`` layout; blank and
    ``|`` comment lines skipped; rows with a ``?`` dropped unless ``keep_missing``; a UTF-8 byte order
    mark ignored, as :func:`load_csv` does). A file that is not UTF-8 or a line of another length is
    refused naming the file, never a value or a line. O(file size)."""
    rows = []
    with open(p, encoding="utf-8-sig") as fh:  # a byte order mark is not part of the first field
        try:
            lines = list(fh)
        except UnicodeDecodeError:  # its message holds the byte and its position: not shown
            raise ValueError(f"{p}: not UTF-8 text ({NOT_SHOWN})") from None
    for line in lines:
        line = line.strip()
        if not line or line.startswith("|"):
            continue
        fields = [s.strip() for s in line.split(",")]
        if len(fields) != len(_ADULT_COLUMNS):
            raise ValueError(f"{p}: a line does not have Adult's {len(_ADULT_COLUMNS)} fields ({NOT_SHOWN})")
        if "?" in fields and not keep_missing:
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
        hours-per-week, native-country); rows with a ``?`` are dropped (a file left with no row gives the
        empty table, like any other); ``y = 1`` for ``>50K`` (the test file's trailing ``.`` is removed).

    Raises
    ------
    FileNotFoundError
        If the folder lacks one of the two files, or the file does not exist.
    ValueError
        On a file that is not UTF-8 text, a malformed line, a label other than ``>50K`` / ``<=50K``, or a
        category outside the public domain.

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
        rows.extend(read_adult_rows(f))
    # no complete row is an empty table, returned like any other (a refusal would tell it apart from its
    # neighbour with one complete row)
    col = {c: i for i, c in enumerate(_ADULT_COLUMNS)}
    n = len(rows)
    X = np.empty((n, len(ADULT_FEATURES)), dtype=np.float64)
    for j, feat in enumerate(ADULT_FEATURES):
        raw = [r[col[feat.name]] for r in rows]
        if feat.kind == "numeric":
            try:
                vals = np.array(raw, dtype=np.float64)
            except ValueError:
                raise ValueError(
                    f"{p}: column {feat.name!r} holds a cell that is not a number ({NOT_SHOWN})"
                ) from None
            if not np.all(np.isfinite(vals)):  # refused, as fit refuses them (finite values are clipped)
                raise ValueError(f"{p}: numeric column {feat.name!r} {NONFINITE}")
            X[:, j] = feat.scale(vals)
        else:
            if feat.name == "marital-status":
                lookup = {v: 0 for v in _MARRIED} | {v: 1 for v in _NOT_MARRIED}
            else:
                lookup = {v: i for i, v in enumerate(feat.categories)}
            try:
                X[:, j] = [lookup[v] for v in raw]
            except KeyError:
                raise ValueError(
                    f"{p}: column {feat.name!r} holds a value that is not in its public domain ({NOT_SHOWN})"
                ) from None
    labels = [r[col["income"]].rstrip(".") for r in rows]
    if set(labels) - {">50K", "<=50K"}:
        raise ValueError(f"{p}: the label column holds a label other than '>50K' and '<=50K' ({NOT_SHOWN})")
    y = np.fromiter((lab == ">50K" for lab in labels), dtype=np.int8, count=n)
    return Dataset(X, y, ADULT_FEATURES, "adult")


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
    raw = require("sklearn.datasets", "load_breast_cancer").load_breast_cancer()
    names = [str(n) for n in raw.feature_names]
    features = tuple(
        Feature(name, "numeric", bounds=b) for name, b in zip(names, BREAST_CANCER_BOUNDS, strict=True)
    )
    X = np.column_stack([f.scale(raw.data[:, j]) for j, f in enumerate(features)])
    y = (raw.target == 0).astype(np.int8)  # scikit-learn codes malignant as 0
    return Dataset(X, y, features, "breast_cancer")
