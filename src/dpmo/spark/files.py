"""Candidate tables read by Spark for ``dpmo select --spark``: :func:`local_session`, :func:`read_candidates`.

CANDIDATES is a CSV file with a header line, a ``.parquet`` file, or a folder of either (as Spark writes
them; a folder whose name ends in ``.parquet`` is read as Parquet). Every CSV column is read as text, cells
trimmed; an objective column is cast to double by Spark's ``try_cast`` (a cell that is not a number becomes
NULL, which :func:`dpmo.spark.select` refuses without naming its row or value).
"""

from __future__ import annotations

from pathlib import Path

from .checks import column

__all__ = ["local_session", "read_candidates"]


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


def read_candidates(session, path, objectives, id_column: str | None, delimiter: str = ","):
    """The candidate table at ``path`` as a Spark DataFrame with the objective columns as doubles (Spark's
    ``try_cast``: a cell that is not a number becomes NULL, which :func:`dpmo.spark.select` refuses) and
    the id column as integers or text.

    ``objectives`` is the ``--objective`` list ``(column, sensitivity, direction)``. Missing columns are
    named in a ``KeyError`` (the layout is public).

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
    from pyspark.sql import types as T

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
        raise KeyError(f"{path}: no column {absent[0]!r}; the table has {df.columns}")
    changes = {c: column(c).try_cast("double") for c in names}
    if id_column is not None and id_column not in changes:
        if not isinstance(df.schema[id_column].dataType, (T.IntegralType, T.StringType)):
            changes[id_column] = column(id_column).cast("string")  # printed as text, as in memory
    return df.withColumns(changes)
