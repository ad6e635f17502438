"""``dpmo select``: the paper's general problem from the command line, on a table of candidates.

A row is a candidate (public), a column named by ``--objective COL=SENS[@LOW:HIGH][:max|:min]`` holds one
utility of every candidate computed on the private data, with its declared global sensitivity and, optionally,
its public declared range ``LOW:HIGH`` (``dpmo.Objective(bounds=...)``; a ``min`` column's range is negated
with it). The command is
:func:`dpmo.select_multiobjective` on those objectives (a ``min`` column is negated: sensitivity
unchanged) with the same seed, so ``dpmo select --seed S`` prints the ids of
``select_multiobjective(..., rng=S)``. It prints the ids of the k picks and nothing else.
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

from .. import _choices
from .._extras import require
from ..ranges import MixedRangesWarning, mixed_ranges_note
from .args import (
    CLIError,
    absent_column_error,
    bad_row_error,
    exact_sampling,
    parquet_error,
    repeated_column,
)

__all__ = [
    "select_command",
    "read_candidates",
    "absent_column_error",
    "bad_row_error",
    "repeated_column",
    "parquet_error",
]


def _csv_columns(path: Path, wanted: list[str], delimiter: str) -> tuple[dict[str, list[str]], int]:
    """The text cells of the ``wanted`` columns of a CSV file with a header line, and the number of rows."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = [h.strip() for h in next(reader, [])]
        if not header:
            raise CLIError(f"{path}: empty file (a header line naming the columns is needed)")
        absent = [c for c in wanted if c not in header]
        if absent:  # the first line is not shown: in a file without a header line it is a candidate
            raise absent_column_error(path, absent[0], delimiter)
        repeated_column(path, wanted, header)
        pos = [header.index(c) for c in wanted]
        cells: dict[str, list[str]] = {c: [] for c in wanted}
        rows = 0
        for row in reader:
            if not row or all(not f.strip() for f in row):
                continue
            if len(row) != len(header):  # which row, and its fields, are not shown: they hold private cells
                raise bad_row_error(path, len(header), delimiter)
            for c, i in zip(wanted, pos, strict=True):
                cells[c].append(row[i].strip())
            rows += 1
    return cells, rows


def _parquet_columns(path: Path, wanted: list[str]) -> tuple[dict[str, list], int]:
    pq = require("pyarrow.parquet", "dpmo select on a .parquet file")
    try:
        names = pq.read_schema(path).names
    except (OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise parquet_error(path) from None
    absent = [c for c in wanted if c not in names]
    if absent:
        raise CLIError(f"{path}: no column {absent[0]!r}; the file has {names}")
    repeated_column(path, wanted, names)
    try:
        table = pq.read_table(path, columns=list(dict.fromkeys(wanted)))
    except (OSError, ValueError):
        raise parquet_error(path) from None
    return {c: table.column(c).to_pylist() for c in wanted}, table.num_rows


def read_candidates(path, objectives, id_column: str | None, delimiter: str = ","):
    """``(ids, values)`` of a candidate table: the public ids (text) and one float array per objective.

    A cell of an objective that is not a finite number stops the command without naming its row or value
    (they are private); the layout (columns, field counts, ids) is public and is named.
    """
    import numpy as np

    path = Path(path)
    columns = [c for c, _, _ in objectives]
    wanted = columns + ([id_column] if id_column is not None else [])
    try:
        if path.suffix.lower() == ".parquet":
            cells, n = _parquet_columns(path, wanted)
        else:
            cells, n = _csv_columns(path, wanted, delimiter)
    except UnicodeDecodeError:
        raise CLIError(
            f"{path}: not a UTF-8 text file (give a CSV file with a header line, or a .parquet file)"
        ) from None
    if n == 0:
        raise CLIError(f"{path}: no candidates (the table has no rows)")
    values = {}
    for c in columns:
        try:
            col = np.array([np.nan if v is None or v == "" else float(v) for v in cells[c]], dtype=np.float64)
        except (TypeError, ValueError):
            col = None
        if col is None or not np.all(np.isfinite(col)):
            raise CLIError(
                f"{path}: column {c!r} holds a cell that is not a finite number (missing, text, inf or nan); "
                "every candidate needs a number in every objective column (which cell is not shown: the "
                "values are private)"
            )
        values[c] = col
    ids = [str(v) for v in cells[id_column]] if id_column is not None else [str(i) for i in range(n)]
    if id_column is not None and len(set(ids)) != n:
        seen: set[str] = set()
        dup = next(v for v in ids if v in seen or seen.add(v))
        raise CLIError(f"{path}: id {dup!r} appears twice in --id-column {id_column!r} (ids are public)")
    return ids, values


def _note_mixed_ranges(objectives, approach: str) -> None:
    """One stderr line when ``chebyshev`` or ``staircase`` gets ranges on some objectives only
    (:func:`dpmo.ranges.mixed_ranges_note`; the declarations are public)."""
    note = mixed_ranges_note(objectives, approach) if approach in ("chebyshev", "staircase") else None
    if note is not None:
        print(
            f"dpmo: warning: --approach {approach}: {note}; give every --objective a range, "
            "COL=SENS@LOW:HIGH (dpmo select --explain)",
            file=sys.stderr,
        )


def select_command(args) -> int:
    """``dpmo select``: private selection of k candidates of a table by several objectives."""
    if args.id_column is not None and args.id_column in [c for c, _, _ in args.objective]:
        raise CLIError(  # the ids are printed: they must be public, and objective cells are private
            f"--id-column {args.id_column!r} is also an --objective column: the ids are printed (public) and "
            "the objective cells are private; give a column of public ids, or leave out --id-column"
        )
    if getattr(args, "spark", False):  # the table read and selected in Spark (pyspark imported there only)
        from .select_spark import spark_select_command

        return spark_select_command(args)
    path = Path(args.candidates)
    if path.is_dir():
        raise CLIError(f"cannot read {path}: it is a folder, not a file")
    if not path.exists():
        raise CLIError(f"cannot read {path}: no such file")
    if not path.is_file() and path.suffix.lower() == ".parquet":
        raise CLIError(f"cannot read {path}: not a regular file (a pipe?); save the Parquet table to a file")
    names = [c for c, _, _ in args.objective]
    if len(set(names)) != len(names):
        raise CLIError("--objective: each column may be named once")
    weights = None
    if args.approach in _choices.WEIGHTED_APPROACHES:
        if args.weights is None:
            raise CLIError(f"--approach {args.approach} needs --weights, one per --objective ({len(names)})")
        if len(args.weights) != len(names):
            raise CLIError(
                f"--weights: give {len(names)} weights, one per --objective, got {len(args.weights)}"
            )
        weights = tuple(args.weights)
    elif args.weights is not None:
        raise CLIError(f"--weights is used by --approach agg only, not by --approach {args.approach}")
    if getattr(args, "explain", False):  # public figures only: no objective cell is read, nothing spent
        from .explain import explain_select

        return explain_select(args, path, weights)
    exact = exact_sampling(args)
    from ..selection import select_multiobjective
    from ..sensitivity import Objective

    ids, values = read_candidates(path, args.objective, args.id_column, args.delimiter)
    if args.k > len(ids):  # the candidate set is public: so is this check
        raise CLIError(f"-k {args.k} is larger than the number of candidates ({len(ids)})")
    objectives = [
        Objective(
            -values[c] if spec[2] == "min" else values[c],
            spec[1],
            name=spec[0],
            bounds=spec.objective_bounds() if hasattr(spec, "objective_bounds") else None,
        )
        for spec in args.objective
        for c in (spec[0],)
    ]
    _note_mixed_ranges(objectives, args.approach)
    with warnings.catch_warnings():  # said above in the command line's words
        warnings.simplefilter("ignore", MixedRangesWarning)
        picks = select_multiobjective(
            objectives,
            args.epsilon,
            approach=args.approach,
            sensitivity=args.sensitivity,
            weights=weights,
            mechanism=args.mechanism,
            k=args.k,
            rng=args.seed,
            exact=exact,
            delta=args.delta,
        )
    for i in picks:
        print(ids[int(i)])
    return 0
