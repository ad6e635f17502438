"""Read a CSV file with a named binary label column and public feature metadata (:func:`load_csv`).

The generic table reader of the trees application (:func:`dpmo.tables.read_table` uses it for CSV files);
categories and bounds come from the caller, never from the data. Re-exported as ``dpmo.datasets.load_csv``.

A refusal names the file, the column and the rule broken, never a record's value, line number or count
(:data:`dpmo.datasets.types.NOT_SHOWN`), as ``dpmo select`` does: the records are private, and a message
is an output.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .types import NONFINITE, NOT_SHOWN, Dataset, Feature, LabelError, resolve_path

__all__ = ["load_csv", "DEFAULT_MISSING"]

#: The cells read as missing unless ``missing=`` says otherwise.
DEFAULT_MISSING = ("?", "", "NA", "nan")


# ----------------------------------------------------------------------------------------------------------
# generic CSV


def _as_number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _label_matcher(value):
    """``v -> bool``: the label text ``v`` is ``value`` (as text, or numerically when both are numbers)."""
    text = str(value)
    num = _as_number(text) if not isinstance(value, bool) else None

    def matches(v: str) -> bool:
        if v == text:
            return True
        if num is not None:
            other = _as_number(v)
            return other is not None and other == num
        return False

    return matches


def _check_categorical(categorical) -> dict:
    """``categorical`` as a dict column -> tuple of categories (a bare str or None as a domain is refused)."""
    if categorical is None:
        return {}
    if not isinstance(categorical, Mapping):
        kind = type(categorical).__name__
        raise TypeError(f"categorical must be a mapping column -> sequence of categories, got {kind}")
    out = {}
    for col, cats in categorical.items():
        if isinstance(cats, (str, bytes, set, frozenset)) or not isinstance(cats, Iterable):
            raise TypeError(
                f"categorical[{col!r}] must be a sequence of the column's categories (a list or tuple; a str "
                "is not split into characters, a set has no fixed order for the codes), got "
                f"{type(cats).__name__}"
            )
        out[col] = tuple(cats)
    return out


def _check_columns(mapping: dict, what: str) -> None:
    """The keys of ``categorical`` / ``bounds`` are column names (str), as ``label`` is."""
    for col in mapping:
        if not isinstance(col, str):
            raise TypeError(
                f"{what} must map column names (str) to their domains, got a {type(col).__name__} key; "
                "without a header line the columns are named '0', '1', ... (dpmo.tables.read_table also "
                "takes their numbers)"
            )


def _check_domain_text(categorical: dict, missing: frozenset, default: bool) -> None:
    """Each declared category is one distinct text a stripped cell can hold, and none is a default missing
    token (``default``: its rows would be dropped without the caller having chosen the tokens; tokens
    passed as ``missing=`` drop their rows as documented). Public: the declared domains and tokens only."""
    for col, cats in categorical.items():
        texts = [str(c) for c in cats]
        spaced = [t for t in texts if t != t.strip()]
        if spaced:
            raise ValueError(
                f"categorical[{col!r}]: category {spaced[0]!r} has surrounding whitespace, but cells are "
                f"read stripped; declare it as {spaced[0].strip()!r}"
            )
        gone = [t for t in texts if t in missing] if default else []
        if gone:
            raise ValueError(
                f"categorical[{col!r}]: category {gone[0]!r} is also one of the default missing tokens "
                f"{list(DEFAULT_MISSING)}, so the rows holding it would be dropped; pass the tokens that "
                "mean a missing cell as missing= (() for none)"
            )
        if len(set(texts)) != len(texts):
            raise ValueError(
                f"categorical[{col!r}]: two categories are the same text (e.g. 1 and '1'); a CSV cell is "
                "text, declare each category once"
            )


def _column_number(c) -> bool:
    """Whether ``c`` names a column of a file without a header line: ``"0"``, ``"1"``, ... (ASCII digits
    without a leading zero, as the reader names them)."""
    return isinstance(c, str) and c.isascii() and c.isdigit() and (c == "0" or not c.startswith("0"))


def _check_missing(missing) -> frozenset:
    """``missing`` as a set of tokens: one str is one token, else an iterable of str."""
    if isinstance(missing, str):
        return frozenset((missing,))
    if isinstance(missing, bytes) or not isinstance(missing, Iterable):
        raise TypeError(
            "missing must be a str (one marker) or a collection of str (e.g. ('?', 'NA'); () for none), got "
            f"{type(missing).__name__}"
        )
    tokens = tuple(missing)
    if not all(isinstance(t, str) for t in tokens):
        raise TypeError("missing must hold str markers only (cells are compared as text)")
    return frozenset(tokens)


def _read_records(p, label, categorical, bounds, delimiter, missing, header):
    """The header, the predictors' names (file order) and the complete records ``[label, *predictors]``."""
    with open(p, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            first = next(reader)
        except StopIteration:
            if header:  # the header line is the public schema: a file without one is malformed
                raise ValueError(f"{p}: empty file (a header line naming the columns is needed)") from None
            first = None  # no header line expected: an empty file is the table with no record
        header_given = bool(header)
        if header:
            header = [h.strip() for h in first]
        elif first is None:  # no row: the columns are the numbers the caller named (public), in their order
            named = {c for c in (label, *categorical, *bounds) if _column_number(c)}
            header = sorted(named, key=int)  # never a list as long as the largest number named
        else:
            header = [str(i) for i in range(len(first))]
            reader = itertools.chain([first], reader)
        pos = {h: i for i, h in enumerate(header)}
        needed = [label, *categorical, *bounds]
        absent = [c for c in needed if c not in pos]
        if absent:
            raise ValueError(
                f"{p}: no column(s) {absent} in the header line (names match exactly, spaces stripped; "
                "the line is not shown, in case it is a record: for a file without a header line pass "
                "header=False, CLI --no-header)"
                if header_given
                else f"{p}: no column(s) {absent}: without a header line the columns are named by their "
                f"0-based numbers '0' .. '{len(header) - 1}'"
                if first is not None
                else f"{p}: no column(s) {absent}: without a header line the columns are named by their "
                "0-based numbers ('0', '1', ...)"
            )
        repeated = [c for c in dict.fromkeys(needed) if header.count(c) > 1]
        if repeated:  # which of the two columns to read is not for the reader to guess
            raise ValueError(
                f"{p}: column {repeated[0]!r} appears more than once in the header line; each column may be "
                "named once"
            )
        names = [h for h in header if h in categorical or h in bounds]
        used = [pos[label]] + [pos[h] for h in names]
        records = []
        for row in reader:
            if not row or all(not s.strip() for s in row):
                continue
            if len(row) != len(header):
                raise ValueError(
                    f"{p}: a row does not have the header's {len(header)} fields ({NOT_SHOWN}); check the "
                    f"delimiter ({delimiter!r}) and the quoting of fields that hold it"
                )
            vals = [row[i].strip() for i in used]
            if any(v in missing for v in vals):
                continue
            records.append(vals)
    return header, names, records


def load_csv(
    path,
    label: str,
    *,
    positive=None,
    negative=None,
    categorical: Mapping[str, Sequence] | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    name: str | None = None,
    delimiter: str = ",",
    missing: Iterable[str] = DEFAULT_MISSING,
    header: bool = True,
) -> Dataset:
    """Load a CSV file with a header line, a named binary label column and public feature metadata.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (first line = column names).
    label : str
        Name of the label column.
    positive : str or number, optional
        The label value of the positive class (``y = 1``); compared as text, or numerically when both
        sides are numbers (so ``1`` matches ``1.0``).
    negative : str or number, optional
        The label value of the negative class. The label rule is the command line's (``dpmo trees``,
        ``dpmo id3``):

        * neither given (the default): the declared label set ``{0, 1}`` (0 negative, 1 positive), as
          the commands without ``--positive`` and ``--classes``;
        * ``positive`` alone: ``positive`` against every other value (``--positive VALUE``);
        * ``negative`` (and ``positive``, 1 when not given): the declared label set ``{negative,
          positive}`` (``--classes NEGATIVE,POSITIVE``).

        With a declared label set, a record with any other label is a domain error
        (:class:`dpmo.datasets.types.LabelError`, naming the column, never the row or the label),
        whatever the other records hold. Either way each label is read by a public rule alone, and a
        table in which a class has no record loads like any other.
    categorical : mapping column -> sequence of categories, optional
        Categorical predictors with their PUBLIC domain (codes follow the given order; a list or tuple,
        never a bare str, a set or None). A value outside the domain is an error. Matched as text, or
        numerically for numeric categories. The column names are str (``"0"``, ``"1"``, ... without a
        header line); a category must be text a stripped cell can hold (no surrounding whitespace), not
        a default ``missing`` token, and distinct from the others as text (not both ``1`` and ``"1"``).
    bounds : mapping column -> (lo, hi), optional
        Numeric predictors with their PUBLIC bounds; values are scaled to ``[0, 1]`` and clipped.
    name : str, optional
        Dataset name (default: the file name without extension).
    delimiter : str, default ","
    missing : str or iterable of str, default ("?", "", "NA", "nan")
        Tokens read as missing, each compared with the whole (stripped) cell: a single str is one token
        (``missing="NA"`` reads only ``NA`` as missing, not ``N`` or ``A``), ``()`` none; None is refused.
        Rows with a missing value in a used column are dropped, a rule per row. A declared category
        that is one of the default tokens is refused unless ``missing`` is given (then its rows are
        dropped, as chosen).
        A table left with no record (every row dropped, or only a header line) is returned empty, like
        any other table: refusing it would tell it apart from its neighbour with one complete record,
        and the estimators fit it (the mechanisms run on zero counts; ``docs/public-inputs.md``).
    header : bool, default True
        Whether the first line holds the column names. False: every line is a row and the columns are
        named by their 0-based number (``"0"``, ``"1"``, ...); a number beyond the rows' width is a
        missing column (a file with no row has the columns named).

    Returns
    -------
    Dataset
        The predictors are the columns named in ``categorical`` and ``bounds``, in the file's order; the
        other columns are ignored. Domains and bounds are never inferred from the data: inferring them
        would release information about the private records.

    Raises
    ------
    TypeError
        If ``label`` or a key of ``categorical`` / ``bounds`` is not a str, ``header`` is not a bool,
        ``categorical`` or ``bounds`` is not a mapping, a categorical domain is not a sequence (a str, a
        set or None), or ``missing`` is neither a str nor a collection of str.
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the file is not UTF-8 text or not a readable CSV table (a field longer than the ``csv``
        module's limit of 131072 characters), a named column is missing, no predictor is given, a column
        is both categorical and numeric, a declared category is a default ``missing`` token, has surrounding
        whitespace or repeats another's text, a label is outside the declared label set (:class:`LabelError`),
        a value is outside its categorical domain or not numeric, or a row has the wrong number of fields.
        Each depends on the declared metadata and on one record at a time, never on what the other records
        hold, and the message names the file, the column and the rule, never the row, the value or a count
        (:data:`dpmo.datasets.types.NOT_SHOWN`).

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
    p = resolve_path(path, "")
    if not isinstance(label, str):
        raise TypeError(f"label must be a column name (str), got {type(label).__name__}")
    if not isinstance(header, (bool, np.bool_)):
        raise TypeError(f"header must be a bool (whether the first line names the columns), got {header!r}")
    categorical = _check_categorical(categorical)
    if bounds is not None and not isinstance(bounds, Mapping):
        raise TypeError(f"bounds must be a mapping column -> (lo, hi), got {type(bounds).__name__}")
    bounds = dict(bounds or {})
    _check_columns(categorical, "categorical")
    _check_columns(bounds, "bounds")
    both = set(categorical) & set(bounds)
    if both:
        raise ValueError(f"columns {sorted(both)} are given both as categorical and with numeric bounds")
    if not categorical and not bounds:
        raise ValueError(
            "give the predictors: categorical={column: categories} and/or bounds={column: (lo, hi)}"
        )
    if label in categorical or label in bounds:
        raise ValueError(f"the label column {label!r} cannot also be a predictor")
    if positive is None:  # the command line's default: the declared label set {0, 1}
        positive, negative = 1, (0 if negative is None else negative)
    is_positive = _label_matcher(positive)
    is_negative = None if negative is None else _label_matcher(negative)
    if is_negative is not None and (is_negative(str(positive)) or is_positive(str(negative))):
        raise ValueError(f"positive and negative must be two different labels, got {positive!r} twice")
    default = missing is DEFAULT_MISSING
    missing = _check_missing(missing)
    _check_domain_text(categorical, missing, default)
    try:
        header, names, records = _read_records(p, label, categorical, bounds, delimiter, missing, header)
    except UnicodeDecodeError:  # its message holds the byte and its position: not shown
        raise ValueError(f"{p}: not UTF-8 text ({NOT_SHOWN})") from None
    except csv.Error as exc:  # the csv module's message is not passed on: it may describe the content
        why = (
            f"a field is longer than the csv module's limit of {csv.field_size_limit()} characters"
            if str(exc).startswith("field larger than field limit")
            else "malformed CSV"
        )
        raise ValueError(f"{p}: not a readable CSV table ({why}; {NOT_SHOWN})") from None
    # no complete record is an empty table, read like any other: its refusal would tell it apart from its
    # neighbour with one complete record (issue 41); the estimators fit it (the mechanisms run on zero counts)

    # each label by the public rule alone (one record at a time): never a check of the label set found
    flags = {}
    for r in records:
        v = r[0]
        if v not in flags:
            if is_positive(v):
                flags[v] = 1
            elif is_negative is None or is_negative(v):
                flags[v] = 0
            else:
                raise LabelError(
                    f"{p}: label column {label!r} holds a label that is not in the declared label set "
                    f"[{negative!r}, {positive!r}] (negative, positive) ({NOT_SHOWN})"
                )
    y = np.fromiter((flags[r[0]] for r in records), dtype=np.int8, count=len(records))

    features = []
    X = np.empty((len(records), len(names)), dtype=np.float64)
    for j, col in enumerate(names):
        raw = [r[j + 1] for r in records]
        if col in bounds:
            feat = Feature(col, "numeric", bounds=tuple(bounds[col]) if bounds[col] is not None else None)
            nums = [_as_number(v) for v in raw]
            if any(v is None for v in nums):
                raise ValueError(
                    f"{p}: numeric column {col!r} holds a cell that is not a number ({NOT_SHOWN})"
                )
            vals = np.array(nums, dtype=np.float64)
            if not np.all(np.isfinite(vals)):  # inf, -inf, nan, 1e999: refused, as fit refuses them
                raise ValueError(f"{p}: numeric column {col!r} {NONFINITE}")
            X[:, j] = feat.scale(vals)
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
                    shown = f"{cats[:8]}{' ...' if len(cats) > 8 else ''}"
                    raise ValueError(
                        f"{p}: column {col!r} holds a value that is not in its public domain {shown} "
                        f"({NOT_SHOWN})"
                    )
                codes[i] = code
            X[:, j] = codes
        features.append(feat)
    return Dataset(X, y, tuple(features), name if name is not None else p.stem)
