"""Argument types and errors of the ``dpmo`` command line: each checks one value and says what is allowed.

A user error is a :class:`CLIError` (one line on stderr, exit status 2, see :func:`dpmo.cli.main`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

from .._choices import EXACT_CAPABLE

__all__ = [
    "CLIError",
    "Parser",
    "whole",
    "positive_int",
    "jobs",
    "delta",
    "epsilon",
    "seed",
    "split",
    "delimiter",
    "objective",
    "exact_sampling",
    "absent_column_error",
    "bad_row_error",
    "repeated_column",
    "parquet_error",
]


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


def absent_column_error(path: Path, column: str, delimiter: str) -> CLIError:
    """The refusal of a header line without ``column`` (the line is not shown: without a header line it is
    a candidate's row). One rule for ``dpmo select`` and ``dpmo select --explain``."""
    return CLIError(
        f"{path}: no column {column!r} in the header line (names match exactly, spaces stripped; "
        f"--delimiter {delimiter!r}; the line is not shown, in case it is not a header)"
    )


def bad_row_error(path: Path, n_fields: int, delimiter: str) -> CLIError:
    """The refusal of a row whose field count is not the header's. Which row, and its fields, are not
    shown: such a row usually means that a private cell holds the delimiter. One rule for ``dpmo select``
    and ``dpmo select --explain``."""
    return CLIError(
        f"{path}: a row does not have the header's {n_fields} fields (which row is not shown: "
        f"the values are private); check --delimiter {delimiter!r} and the quoting of fields"
    )


def repeated_column(path: Path, wanted: list[str], names: list[str]) -> None:
    """Refuse a table whose header (or schema) names a wanted column more than once: which of the two
    would be read is not for the command to guess. One rule for ``dpmo select`` and its ``--explain``."""
    for c in dict.fromkeys(wanted):
        if names.count(c) > 1:
            raise CLIError(
                f"{path}: column {c!r} appears more than once in the header; each column may be named once"
            )


def parquet_error(path: Path) -> CLIError:
    """The refusal of a ``.parquet`` file pyarrow cannot read (its message, which may quote the file's
    bytes and does not name the file, is not shown)."""
    return CLIError(
        f"{path}: not a readable Parquet file (damaged, truncated or another format; the reader's message is "
        "not shown, in case it quotes the file's content)"
    )


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one-line :class:`CLIError` (no usage block)."""

    def error(self, message: str):  # one line, no usage block
        raise CLIError(f"{message} (see '{self.prog} --help')")


def whole(text: str, what: str = "expected") -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} a whole number, got {text!r}") from None


def positive_int(text: str) -> int:
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def jobs(text: str) -> int | str:
    from ..experiments.cores import parse_jobs  # the one rule (dpmo.experiments.verdict uses it too)

    try:
        return parse_jobs(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"epsilon must be a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"epsilon must be a positive finite number, got {text}")
    return value


def delta(text: str) -> float:
    """``--delta``: a number in ``[0, 1)`` (0: pure epsilon-DP)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"delta must be a number, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"delta must be in [0, 1), got {text}")
    return value


def seed(text: str) -> int:
    value = whole(text, "seed must be")
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be >= 0, got {value}")
    return value


def split(values: Sequence[str] | None) -> list[str] | None:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]`` (lists may be given with commas or spaces)."""
    if values is None:
        return None
    return [v for item in values for v in item.split(",") if v.strip()]


def delimiter(text: str) -> str:
    """One field separator character; ``\\t`` (as typed in a shell) and ``tab`` mean a tab."""
    value = "\t" if text in ("\\t", "tab", "TAB") else text
    if len(value) != 1 or value in '#%\n\r"':
        raise argparse.ArgumentTypeError(
            "expected one character other than '#', '%', a quote or a line break (\\t for a tab), "
            f"got {text!r}"
        )
    return value


class ObjectiveSpec(tuple):
    """``(column, global sensitivity, direction)`` of one ``--objective``, with its public declared range in
    the column's own units as ``.bounds`` (``(low, high)`` or None). A 3-tuple, so ``col, sens, direction =
    spec`` keeps working."""

    bounds: tuple[float, float] | None

    def __new__(cls, col: str, sens: float, direction: str, bounds=None):
        self = super().__new__(cls, (col, sens, direction))
        self.bounds = bounds
        return self

    def objective_bounds(self) -> tuple[float, float] | None:
        """The bounds of the objective the command builds (``(-high, -low)`` for a negated ``min`` column)."""
        if self.bounds is None:
            return None
        low, high = self.bounds
        return (-high, -low) if self[2] == "min" else (low, high)


def objective(text: str) -> ObjectiveSpec:
    """``COL=SENS[@LOW:HIGH][:max|:min]`` -> ``(column, global sensitivity, direction)`` with ``.bounds``
    (``(LOW, HIGH)``, the public declared range in the column's units, or None); the column name may hold
    ``=`` (the last one separates it)."""
    col, sep, rest = text.rpartition("=")
    bounds = None
    usage = (
        "expected COL=SENS, COL=SENS:min or COL=SENS@LOW:HIGH[:min] (SENS: the column's global sensitivity; "
        f"LOW:HIGH: its public declared range), got {text!r}"
    )
    try:
        if not col or not sep:
            raise ValueError
        if "@" in rest:
            sens, _, after = rest.partition("@")
            parts = after.split(":")
            if len(parts) not in (2, 3):
                raise ValueError
            low, high = float(parts[0]), float(parts[1])
            direction = parts[2] if len(parts) == 3 else ""
            bounds = (low, high)
        else:
            sens, _, direction = rest.partition(":")
        direction = direction.strip().lower() or "max"
        value = float(sens)
    except ValueError:
        raise argparse.ArgumentTypeError(usage) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{col}: the global sensitivity must be a positive number, got {sens}"
        )
    if bounds is not None and not (bounds[0] < bounds[1] and math.isfinite(bounds[1] - bounds[0])):
        raise argparse.ArgumentTypeError(
            f"{col}: the declared range LOW:HIGH must be finite with LOW < HIGH and a finite width, "
            f"got {bounds[0]:g}:{bounds[1]:g}"
        )
    if direction not in ("max", "min"):
        raise argparse.ArgumentTypeError(f"{col}: the direction must be max or min, got {direction!r}")
    return ObjectiveSpec(col, value, direction, bounds)


def exact_sampling(args) -> bool:
    """Whether a command samples exactly: ``--exact-sampler`` / ``--float-sampler``, else the default of
    the library's entry point it calls (``args.exact_default``, set by :func:`.parser.add_float_sampler`)."""
    exact = bool(args.exact_sampler) or (not args.float_sampler and getattr(args, "exact_default", True))
    if exact and args.mechanism not in EXACT_CAPABLE:
        raise CLIError(
            f"--mechanism {args.mechanism} has no exact sampler: pass --float-sampler, or use one of "
            f"{', '.join(EXACT_CAPABLE)}"
        )
    return exact
