"""Candidate tables read by Spark for ``dpmo select --spark``: :func:`local_session`, :func:`candidate_table`.

CANDIDATES is a CSV file with a header line, a Parquet file, or a folder of either (as Spark writes them).
It is read as Parquet when its name ends in ``.parquet`` or when its first file begins with Parquet's magic
bytes ``PAR1`` (a ``.pq`` file, a folder of ``part-*`` files), as CSV otherwise. Every CSV column is read as
text, cells trimmed; an objective cell is read as a number when it is written as Python's ``float`` reads a
finite decimal number (:data:`NUMBER`, what ``dpmo select`` accepts), and is NULL otherwise, which
:func:`dpmo.spark.select` refuses without naming its row or value. Nothing here quotes a cell or the
header line: without a header, that line is a candidate's row.
"""

from __future__ import annotations

import os
from pathlib import Path

from .checks import column

__all__ = ["NUMBER", "candidate_table", "is_parquet", "local_session", "read_candidates"]

#: An objective cell read as a number (Java regex, for Spark's ``rlike``): Python's ``float`` syntax for a
#: decimal number (``1``, ``-2.5``, ``.5``, ``5.``, ``1e-3``, ``1_000.5``), with ASCII whitespace around it.
#: Text such as ``1d``, ``3f``, ``0x10``, ``inf`` or ``nan``, which Spark's own cast reads or which is not
#: finite, does not match: as in ``dpmo select``, such a cell stops the command.
_DIGITS = r"[0-9](?:_?[0-9])*"
NUMBER = rf"^\s*[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?\s*$"


def local_session():
    """The SparkSession running in this process, or a new local one (``local[*]``, no web UI, no progress
    bar): the session of ``dpmo select --spark``."""
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


def is_parquet(path) -> bool:
    """Whether ``path`` is read as Parquet: its name ends in ``.parquet``, or its first non-empty file (for a
    folder: in name order, files and folders whose names start with ``_`` or ``.`` left out, as Spark leaves
    them out) begins with Parquet's magic bytes ``PAR1``. Reads at most 4 bytes of one file.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpmo.spark.files import is_parquet
    >>> path = os.path.join(tempfile.mkdtemp(), "t.pq")
    >>> _ = open(path, "wb").write(b"PAR1 ... PAR1")
    >>> is_parquet(path), is_parquet("t.parquet"), is_parquet(os.path.dirname(path))
    (True, True, True)
    """
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return True
    first = _first_file(path)
    if first is None:
        return False
    try:
        with open(first, "rb") as fh:
            return fh.read(4) == b"PAR1"
    except OSError:
        return False


def _first_file(path: Path) -> Path | None:
    """The first non-empty data file of ``path`` (itself, for a file), in name order; None without one."""
    if path.is_file():
        return path
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        for name in sorted(files):
            full = Path(root) / name
            if not name.startswith(("_", ".")) and full.is_file() and full.stat().st_size > 0:
                return full
    return None


def _as_double(name: str, dtype):
    """The objective column ``name`` as doubles: text by :data:`NUMBER` (NULL where it does not match),
    numbers and booleans cast, any other type NULL (``dpmo select``'s ``float`` refuses it too)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    c = column(name)
    if isinstance(dtype, T.StringType):
        return F.when(c.rlike(NUMBER), F.regexp_replace(c, r"[\s_]", "").try_cast("double"))
    if isinstance(dtype, (T.NumericType, T.BooleanType)):
        return c.try_cast("double")
    return F.lit(None).cast("double")


def _id_text(dtype):
    """How a pick of an id column of Spark type ``dtype`` (read as text by :func:`candidate_table`) is
    printed: as ``dpmo select`` prints the same cell (``str`` of the value pyarrow reads), or unchanged."""
    from pyspark.sql import types as T

    if isinstance(dtype, (T.FloatType, T.DoubleType)):
        # Java's text of the double (round trip: float() reads back the same double), then Python's
        return lambda text: str(float(text))
    if isinstance(dtype, T.BooleanType):
        return lambda text: str(text == "true")
    return lambda text: text


def candidate_table(session, path, objectives, id_column: str | None, delimiter: str = ","):
    """The candidate table at ``path`` as a Spark DataFrame, and how to print its ids.

    Parameters
    ----------
    session : pyspark.sql.SparkSession
    path : str or os.PathLike
        A CSV file with a header line, a Parquet file, or a folder of either (:func:`is_parquet`).
    objectives : list of (str, float, str)
        The ``--objective`` list ``(column, sensitivity, direction)``.
    id_column : str or None
    delimiter : str, default ","
        Of a CSV file.

    Returns
    -------
    (pyspark.sql.DataFrame, callable)
        The table with the objective columns as doubles (a cell that is not a finite decimal number, by
        :data:`NUMBER`, is NULL: :func:`dpmo.spark.select` refuses it) and the id column as integers or text;
        and the function that turns a pick (an id as the DataFrame holds it) into the text ``dpmo select``
        prints for it (floating-point ids: Python's ``str`` of the double, ``1e+20``, not Spark's
        ``1.0E20``).

    Raises
    ------
    KeyError
        A missing column, named; a CSV header line is not shown (without one, it is a candidate's row), a
        Parquet schema is (it is public).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.files import candidate_table
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write(chr(10).join(["id,u", "a,1_5", "b,1d"]))
    >>> df, text = candidate_table(session, path, [("u", 1.0, "max")], "id")
    >>> [tuple(r) for r in df.collect()], text("a")
    ([('a', 15.0), ('b', None)], 'a')
    """
    from pyspark.sql import types as T

    path = Path(path)
    parquet = is_parquet(path)
    if parquet:
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
        if parquet:  # the schema is public
            raise KeyError(f"{path}: no column {absent[0]!r}; the table has {df.columns}")
        twice = [n for i, n in enumerate(df.columns) if n == f"{absent[0]}{i}"]  # Spark's renamed duplicates
        if len(twice) > 1:  # the words of dpmo select (dpmo.cli.args.repeated_column)
            raise KeyError(
                f"{path}: column {absent[0]!r} appears more than once in the header; each column may be "
                "named once"
            )
        raise KeyError(  # the words of dpmo select (dpmo.cli.args.absent_column_error)
            f"{path}: no column {absent[0]!r} in the header line (names match exactly, spaces stripped; "
            f"--delimiter {delimiter!r}; the line is not shown, in case it is not a header)"
        )
    types = {f.name: f.dataType for f in df.schema.fields}
    changes = {c: _as_double(c, types[c]) for c in names}
    text = _id_text(None)
    if id_column is not None and id_column not in changes:
        dtype = types[id_column]
        if not isinstance(dtype, (T.IntegralType, T.StringType)):
            wide = column(id_column).cast("double") if isinstance(dtype, T.FloatType) else column(id_column)
            changes[id_column] = wide.cast("string")  # printed as text, as in memory (``text``)
            text = _id_text(dtype)
    return df.withColumns(changes), text


def read_candidates(session, path, objectives, id_column: str | None, delimiter: str = ","):
    """The DataFrame of :func:`candidate_table` (without the printing of its ids).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.files import read_candidates
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write(chr(10).join(["id,u", "a,1.5", "b,x"]))
    >>> [tuple(r) for r in read_candidates(session, path, [("u", 1.0, "max")], "id").collect()]
    [('a', 1.5), ('b', None)]
    """
    return candidate_table(session, path, objectives, id_column, delimiter)[0]
