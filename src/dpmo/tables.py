"""Read a table in any of the common forms the project meets, as a :class:`~dpmo.datasets.Dataset`.

:func:`read_table` is what ``dpmo trees`` uses: the shipped tables as they are (``nltcs.dat`` /
``acs.dat`` with their ``.domain`` files, the UCI Adult files ``adult.data`` / ``adult.test`` or a folder
holding both) and any CSV file, with or without a header line. Domains and bounds come from the
``.domain`` file, the Adult loader's documented metadata or the caller: never from the data.
"""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .datasets import Dataset, Feature, load_adult, load_csv
from .datasets.csv_reader import DEFAULT_MISSING
from .datasets.types import NONFINITE, NOT_SHOWN

__all__ = ["read_table", "read_domain"]

#: Label column (0-based) of the shipped binary tables, the published code's convention.
LABEL_COLUMNS = {"nltcs": 13, "acs": 10}


def read_domain(path) -> list[tuple[str, tuple]]:
    """The columns of a ``.domain`` file: ``D v1 v2 ...`` (discrete values) or ``C lo hi`` (continuous).

    Returns a list of ``("D", values)`` / ``("C", (lo, hi))``, one per line (blank lines skipped).
    Raises ValueError naming the line of a malformed entry. O(lines).
    """
    out: list[tuple[str, tuple]] = []
    with open(path, encoding="utf-8-sig") as fh:
        for lineno, raw in enumerate(fh, 1):
            tokens = raw.split()
            if not tokens:
                continue
            kind, rest = tokens[0].upper(), tokens[1:]
            try:
                values = tuple(float(v) for v in rest)
            except ValueError:
                raise ValueError(
                    f"{path}: line {lineno}: domain values must be numbers, got {raw.strip()!r}"
                ) from None
            if kind == "D" and len(values) >= 1 and len(set(values)) == len(values):
                out.append(("D", values))
            elif kind == "C" and len(values) == 2 and values[0] < values[1]:
                out.append(("C", values))
            else:
                raise ValueError(
                    f"{path}: line {lineno}: expected 'D v1 v2 ...' (distinct values) or 'C lo hi', "
                    f"got {raw.strip()!r}"
                )
    if not out:
        raise ValueError(f"{path}: empty domain file")
    return out


def _read_dat(path: Path, label) -> Dataset:
    domain_path = path.with_suffix(".domain")
    if not domain_path.is_file():
        raise ValueError(
            f"{path}: a .dat table needs its public domain beside it ({domain_path.name}: one line "
            "'D v1 v2 ...' or 'C lo hi' per column)"
        )
    domain = read_domain(domain_path)
    d = len(domain)
    if label is None:
        label = LABEL_COLUMNS.get(path.stem.lower(), d - 1)
    if isinstance(label, str) and label.isascii() and label.isdigit():
        label = int(label)
    if isinstance(label, (bool, np.bool_)) or not isinstance(label, (numbers.Integral, np.integer)):
        raise ValueError(
            f"the label of a .dat table is a 0-based column number (an int), got {type(label).__name__} "
            f"{label!r}"
        )
    label = int(label)
    if not 0 <= label < d:
        raise ValueError(f"label column {label} is outside the {d} columns of {domain_path.name}")
    if domain[label][0] != "D" or len(domain[label][1]) != 2:
        raise ValueError(f"label column {label} must be discrete with two values in {domain_path.name}")
    try:
        with warnings.catch_warnings():  # numpy warns on a file with no row: a table like any other
            warnings.simplefilter("ignore", UserWarning)
            data = np.loadtxt(path, dtype=np.float64, ndmin=2, encoding="utf-8-sig")
    except ValueError:
        raise ValueError(
            f"{path}: not a whitespace-separated numeric table (a cell that is not a number, or rows of "
            f"different lengths; {NOT_SHOWN})"
        ) from None
    if data.shape[0] == 0:  # no record: the empty table, of the domain's width (refusing it would tell it
        data = np.empty((0, d))  # apart from its one-record neighbours; the estimators fit it)
    if data.shape[1] != d:
        raise ValueError(f"{path}: {data.shape[1]} columns, but {domain_path.name} describes {d}")
    features = []
    X = np.empty((data.shape[0], d - 1), dtype=np.float64)
    j = 0
    for col, (kind, values) in enumerate(domain):
        vals = data[:, col]
        if kind == "D":
            cats = np.asarray(values)
            pos = np.searchsorted(np.sort(cats), vals)
            order = np.argsort(cats)
            ok = (pos < cats.size) & (np.sort(cats)[np.minimum(pos, cats.size - 1)] == vals)
            if not ok.all():
                raise ValueError(
                    f"{path}: column {col} holds a value that is not in its public domain "
                    f"{[float(v) for v in values][:8]} ({domain_path.name}; {NOT_SHOWN})"
                )
            codes = order[np.minimum(pos, cats.size - 1)]
            if col == label:
                y = (codes == 1).astype(np.int8)  # the domain's second value is the positive class
                continue
            cat_names = tuple(int(v) if float(v).is_integer() else v for v in values)
            features.append(Feature(f"x{col}", "categorical", cat_names))
            X[:, j] = codes
        else:
            f = Feature(f"x{col}", "numeric", bounds=values)
            features.append(f)
            if not np.all(np.isfinite(vals)):  # refused, as fit refuses them (finite values are clipped)
                raise ValueError(f"{path}: numeric column {col} {NONFINITE}")
            X[:, j] = f.scale(vals)
        j += 1
    return Dataset(X, y, tuple(features), path.stem)


def _is_adult(path: Path) -> bool:
    if path.is_dir():
        return (path / "adult.data").is_file()
    return path.name.lower() in ("adult.data", "adult.test")


def read_table(
    path,
    *,
    label=None,
    positive=None,
    negative=None,
    categorical: Mapping[str, Sequence] | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    header: bool = True,
    delimiter: str = ",",
    missing=DEFAULT_MISSING,
) -> Dataset:
    """Read ``path`` as a binary classification table with public metadata.

    Parameters
    ----------
    path : str or os.PathLike
        * ``*.dat`` with a ``*.domain`` file beside it (``nltcs.dat``, ``acs.dat``): whitespace-separated
          numbers, no header; the domain file gives each column's public values (``D v1 v2 ...``) or
          bounds (``C lo hi``); the label's second value is the positive class;
        * ``adult.data`` / ``adult.test`` (UCI files, no header) or a folder holding both:
          :func:`dpmo.datasets.load_adult`;
        * any other file: a CSV read by :func:`dpmo.datasets.load_csv`.
    label : str or int, optional
        CSV: the label column's name (its 0-based number, an int or its text, without a header).
        ``.dat``: the label's 0-based column, an int (default: 13 for NLTCS and 10 for ACS, the published
        code's convention, else the last).
        Ignored for Adult (``>50K``).
    positive, negative : str, optional
        CSV only: the label values of the two classes, by the one label rule of
        :func:`dpmo.datasets.load_csv` and the command line: neither (the default) declares the label set
        ``{0, 1}``; ``positive`` alone reads it against every other value; ``negative`` declares the label
        set ``{negative, positive}``. With a declared set, a record with another label is a domain error
        (:class:`dpmo.datasets.types.LabelError`).
    categorical, bounds : mapping, optional
        CSV only: the predictors with their public domains (see :func:`dpmo.datasets.load_csv`), each
        column named as ``label`` is (a name, or a 0-based number: ``{1: ["F", "M"]}`` is ``{"1": ...}``).
    header : bool, default True
        CSV only (a bool, whatever the table): whether the first line holds the column names; without
        one, columns are named by their 0-based number (``"0"``, ``"1"``, ...).
    delimiter : str, default ","
        CSV only: the field separator.
    missing : str or iterable of str, default ("?", "", "NA", "nan")
        CSV only: the cells read as missing (their rows are dropped), as :func:`dpmo.datasets.load_csv`.

    Returns
    -------
    Dataset

    Raises
    ------
    TypeError
        If ``path`` is not a path, ``header`` is not a bool, or a CSV column is named by something other
        than a str or an int.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        For a malformed table (the message names the file and the line or column), a file that is not
        UTF-8 text, a missing domain file, or a CSV without label or predictors (a table with no record
        is returned empty, like any other).

    Notes
    -----
    O(rows x columns) time.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    if not isinstance(header, (bool, np.bool_)):
        raise TypeError(f"header must be a bool (whether the first line names the columns), got {header!r}")
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"table not found: {p}")
    try:
        return _read_table(p, label, positive, negative, categorical, bounds, header, delimiter, missing)
    except UnicodeDecodeError:
        raise ValueError(
            f"{p}: not a text table (not UTF-8); give a CSV file, a .dat table with its .domain file, or "
            "the Adult files"
        ) from None


def _read_table(
    p: Path, label, positive, negative, categorical, bounds, header: bool, delimiter: str, missing
) -> Dataset:
    if _is_adult(p):
        return load_adult(p)
    if p.is_dir():
        raise ValueError(
            f"{p} is a folder; give a table file (or a folder holding adult.data and adult.test)"
        )
    if p.suffix.lower() == ".dat":
        return _read_dat(p, label)
    if label is None:
        raise ValueError("name the label column of a CSV table (CLI: --label COL)")
    label = _column_name(label, "label")
    categorical = _named_columns(categorical, "categorical")
    bounds = _named_columns(bounds, "bounds")
    if not categorical and not bounds:
        raise ValueError(
            "name the predictors and their public domains: categorical={column: categories} and/or "
            "bounds={column: (lo, hi)} (CLI: --categorical COL[=V1,V2,...] and/or --numeric COL=LO:HI); "
            "they are never read off the data"
        )
    return load_csv(
        p,
        label,
        positive=positive,
        negative=negative,
        categorical=categorical,
        bounds=bounds,
        header=header,
        delimiter=delimiter,
        missing=missing,
    )


def _column_name(col, what: str) -> str:
    """A CSV column named by its name (str) or its 0-based number (an int, for a file without a header
    line), as text."""
    if isinstance(col, str):
        return col
    if isinstance(col, (numbers.Integral, np.integer)) and not isinstance(col, (bool, np.bool_)):
        return str(int(col))
    raise TypeError(
        f"{what} must name a column: its name (str) or its 0-based number (int), got {type(col).__name__}"
    )


def _named_columns(mapping, what: str):
    """``categorical`` / ``bounds`` with their columns as text (int keys are column numbers)."""
    if not isinstance(mapping, Mapping):
        return mapping  # load_csv refuses it, naming it
    out = {}
    for col, value in mapping.items():
        key = _column_name(col, f"a key of {what}")
        if key in out:
            raise ValueError(f"{what} names the column {key!r} twice (as a number and as text)")
        out[key] = value
    return out
