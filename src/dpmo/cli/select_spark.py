"""``dpmo select --spark``: the general problem on a candidate table read by Apache Spark.

The table is read by a local Spark session (``local[*]``, or the session already running in this
process) and the selection is :func:`dpmo.spark.select`, which has the law of ``dpmo select`` on the same
rows. CANDIDATES is a CSV file with a header line, a ``.parquet`` file, or a folder of either (as Spark
writes them; a folder whose name ends in ``.parquet`` is read as Parquet). It prints the ids of the k
picks and nothing else on stdout.

Reading, as the in-memory command reads: every column as text (CSV), cells trimmed; an objective cell is
read as a number by Spark's ``try_cast`` to double, and a cell that is not a finite number (missing, text,
inf or nan) stops the command without naming its row or value. Spark's CSV reader is lenient where the
in-memory one is strict: a line with fewer fields than the header gets NULLs (refused in an objective
column) and extra fields are dropped.
"""

from __future__ import annotations

from pathlib import Path

from .. import _defaults
from .._validation import check_exact
from .args import CLIError

__all__ = ["spark_select_command"]


def spark_select_command(args) -> int:
    """``dpmo select --spark``: :func:`dpmo.spark.select` on CANDIDATES read by a local Spark session."""
    if getattr(args, "explain", False):
        raise CLIError("--explain runs without --spark (it reads the number of rows only); leave out --spark")
    path = Path(args.candidates)
    if not path.exists():
        raise CLIError(f"cannot read {path}: no such file or folder")
    names = [c for c, _, _ in args.objective]
    if any(getattr(spec, "bounds", None) is not None for spec in args.objective):
        raise CLIError(
            "--spark does not take declared ranges (COL=SENS@LOW:HIGH) yet: drop @LOW:HIGH or --spark"
        )
    if len(set(names)) != len(names):
        raise CLIError("--objective: each column may be named once")
    exact = bool(args.exact_sampler) or (not args.float_sampler and _defaults.EXACT_SPARK)
    try:
        check_exact(exact, args.mechanism)
    except ValueError:
        raise CLIError(
            f"--mechanism {args.mechanism} has no exact sampler: leave out --exact-sampler"
        ) from None
    from ..spark import select  # pyspark: a one-line ImportError naming the extra when it is missing
    from ..spark.files import local_session, read_candidates

    try:
        df = read_candidates(local_session(), path, args.objective, args.id_column, args.delimiter)
    except KeyError as exc:  # a missing column (the layout is public)
        raise CLIError(str(exc.args[0])) from None
    except Exception as exc:  # Spark's own (a damaged Parquet file): its text may quote the file
        if not type(exc).__module__.startswith(("pyspark", "py4j")):
            raise
        raise CLIError(
            f"{path}: not a table Spark can read (a CSV file with a header, a .parquet file, or a folder of "
            "either); Spark's message is not shown, it may quote the file"
        ) from None
    picks = select(
        df,
        args.k,
        args.epsilon,
        objectives={c: (sens, direction) for c, sens, direction in args.objective},
        id_column=args.id_column,
        approach=args.approach,
        weights=None if args.weights is None else list(args.weights),
        sensitivity=args.sensitivity,
        mechanism=args.mechanism,
        rng=args.seed,
        exact=exact,
        delta=getattr(args, "delta", 0.0),
    )
    for p in picks:
        print(p)
    return 0
