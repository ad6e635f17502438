"""``dpmo select --spark``: the general problem on a candidate table read by Apache Spark.

The table is read by a local Spark session (``local[*]``, or the session already running in this
process) and the selection is :func:`dpmo.spark.select`, which has the law of ``dpmo select`` on the same
rows. CANDIDATES is a CSV file with a header line, a Parquet file, or a folder of either (as Spark writes
them; :func:`dpmo.spark.files.is_parquet` tells them apart). It prints the ids of the k picks, as
``dpmo select`` prints them, and nothing else on stdout.

Reading, as the in-memory command reads: every column as text (CSV), cells trimmed; an objective cell is
read as a number when it is written as Python's ``float`` reads a finite decimal number
(:data:`dpmo.spark.files.NUMBER`), and a cell that is not (missing, text, inf or nan) stops the command
without naming its row or value. Spark's CSV reader is lenient where the in-memory one is strict: a line with
fewer fields than the header gets NULLs (refused in an objective column) and extra fields are dropped. A
table Spark cannot read (a damaged file, Parquet files whose schemas disagree) is refused in one line that
names CANDIDATES, without Spark's message (it may quote the file).
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
    from ..spark.files import candidate_table, local_session

    try:
        df, id_text = candidate_table(local_session(), path, args.objective, args.id_column, args.delimiter)
    except KeyError as exc:  # a missing column (the layout is public)
        raise CLIError(str(exc.args[0])) from None
    except Exception as exc:  # Spark's own (a damaged Parquet file): its text may quote the file
        if not type(exc).__module__.startswith(("pyspark", "py4j")):
            raise
        raise CLIError(
            f"{path}: not a table Spark can read (a CSV file with a header, a Parquet file, or a folder of "
            "either); Spark's message is not shown, it may quote the file"
        ) from None
    try:  # the rows are read by the jobs of select: its first (the scan) comes before any mechanism
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
    except Exception as exc:  # nothing is printed, so nothing is released; select's budget rules hold
        if not _read_failure(exc):
            raise
        raise CLIError(
            f"{path}: Spark could not read the table's rows (a damaged or vanished file, or Parquet files "
            "whose schemas disagree?); nothing was released; Spark's message is not shown, it may quote "
            "the file"
        ) from None
    for p in picks:
        print(id_text(p))
    return 0


#: Spark's error conditions of a failed read of a table's files (its Java exception or a cause of it).
_READ_CONDITIONS = ("FAILED_READ_FILE", "CANNOT_READ_FILE", "PATH_NOT_FOUND", "UNABLE_TO_INFER_SCHEMA")


def _read_failure(exc: BaseException) -> bool:
    """Whether ``exc``, raised inside :func:`dpmo.spark.select`, is Spark failing to read the table: an
    ``AnalysisException``, or a Java exception (``Py4JJavaError``) with a read condition
    (:data:`_READ_CONDITIONS`) or an ``IOException`` among its causes."""
    module = type(exc).__module__
    if not module.startswith(("pyspark", "py4j")):
        return False
    from pyspark.errors import AnalysisException

    if isinstance(exc, AnalysisException):
        return True
    java = getattr(exc, "java_exception", None)
    for _ in range(16):  # the chain of causes, bounded
        if java is None:
            return False
        try:
            condition = _condition(java)
            name = java.getClass().getName()
            io = _is_io(java)
            java = java.getCause()
        except Exception:  # the JVM is gone, or not an exception: not a read failure we can tell
            return False
        if (condition and str(condition).startswith(_READ_CONDITIONS)) or io or "parquet" in name.lower():
            return True
    return False


def _condition(java) -> str | None:
    """The error condition of a Java ``SparkThrowable`` (``FAILED_READ_FILE.…``), None for another."""
    try:
        return java.getCondition()
    except Exception:  # py4j: no such method (not a SparkThrowable)
        return None


def _is_io(java) -> bool:
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    return gateway is not None and is_instance_of(gateway, java, "java.io.IOException")
