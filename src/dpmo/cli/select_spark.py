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

__all__ = ["spark_select_command", "read_candidates_spark"]


def _session():
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        session = (
            SparkSession.builder.master("local[*]")
            .appName("dpmo select")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
    return session


def read_candidates_spark(session, path, objectives, id_column: str | None, delimiter: str = ","):
    """The candidate table at ``path`` as a Spark DataFrame with the objective columns as doubles (Spark's
    ``try_cast``: a cell that is not a number becomes NULL, which :func:`dpmo.spark.select` refuses) and
    the id column as integers or text.

    ``objectives`` is the ``--objective`` list ``(column, sensitivity, direction)``. Missing columns are
    named (the layout is public).
    """
    from pyspark.sql import types as T

    from ..spark.checks import column

    path = Path(path)
    if path.suffix.lower() == ".parquet":
        df = session.read.parquet(str(path))
    else:
        df = session.read.csv(
            str(path),
            header=True,
            sep=delimiter,
            inferSchema=False,
            ignoreLeadingWhiteSpace=True,
            ignoreTrailingWhiteSpace=True,
        )
    names = [c for c, _, _ in objectives]
    absent = [c for c in names + ([id_column] if id_column else []) if c not in df.columns]
    if absent:
        raise CLIError(f"{path}: no column {absent[0]!r}; the table has {df.columns}")
    changes = {c: column(c).try_cast("double") for c in names}
    if id_column is not None and id_column not in changes:
        if not isinstance(df.schema[id_column].dataType, (T.IntegralType, T.StringType)):
            changes[id_column] = column(id_column).cast("string")  # printed as text, as in memory
    return df.withColumns(changes)


def spark_select_command(args) -> int:
    """``dpmo select --spark``: :func:`dpmo.spark.select` on CANDIDATES read by a local Spark session."""
    if getattr(args, "explain", False):
        raise CLIError("--explain runs without --spark (it reads the number of rows only); leave out --spark")
    path = Path(args.candidates)
    if not path.exists():
        raise CLIError(f"cannot read {path}: no such file or folder")
    names = [c for c, _, _ in args.objective]
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

    df = read_candidates_spark(_session(), path, args.objective, args.id_column, args.delimiter)
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
