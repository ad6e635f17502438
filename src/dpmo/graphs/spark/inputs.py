"""Inputs of the Spark path: the edge table, the public node set, and text edge lists read by Spark.

* :func:`read_edges`: a text edge list (as :func:`dpmo.graphs.read_edge_list` reads it: one edge per line,
  two integer ids separated by whitespace or a comma, ``#``/``%`` comments, an optional header line) read
  by Spark into a DataFrame ``src, dst`` without passing through the driver.
* :func:`edge_frame`: the two endpoint columns of a Spark DataFrame (integral ids as ``long``, or text
  ids), or of a Parquet / text path.
* :func:`parquet_pieces`: the row groups of a Parquet edge table on a local file system, for the
  first step of :func:`dpmo.graphs.spark.node_statistics` to read with pyarrow (no JVM row conversion).
* :func:`node_frame`: the public node set as a one-column DataFrame ``node`` and its size ``n``, from an
  int ``n`` (ids ``0 .. n-1``), an array of ids or a Spark DataFrame of ids. Without it the private
  functions refuse with :data:`dpmo.graphs.nodes.NODES_REQUIRED` (``docs/public-inputs.md``).

Everything here reads the public inputs (the node set, the schema of the edge table) or checks that the
edge table is well formed; nothing reads a statistic of the edges.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...spark.parquet import local_row_groups
from ...spark.session import check_running
from ..nodes import NODES_REQUIRED, as_node_ids

__all__ = [
    "NodeSet",
    "read_edges",
    "edge_frame",
    "node_frame",
    "id_kind",
    "parquet_pieces",
    "read_path",
    "session_of",
]

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_INT_TOKEN = r"^[+-]?[0-9]+$"


def _session(spark) -> SparkSession:
    if spark is not None:
        if not isinstance(spark, SparkSession):
            raise TypeError(f"spark must be a pyspark.sql.SparkSession or None, got {type(spark).__name__}")
        return spark
    active = SparkSession.getActiveSession()
    return active if active is not None else SparkSession.builder.getOrCreate()


def session_of(edges) -> SparkSession:
    """The session of an edge DataFrame (``ValueError`` if it is stopped), or for a path the active session
    (one is created if none is).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import session_of
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> session_of("edges.parquet") is session
    True
    """
    if isinstance(edges, DataFrame):
        check_running(edges.sparkSession, "edges")
        return edges.sparkSession
    return _session(None)


def id_kind(dtype) -> str:
    """``"int"`` for an integral Spark type, ``"str"`` for a string type; ``TypeError`` otherwise.

    Examples
    --------
    >>> from pyspark.sql import types as T
    >>> from dpmo.graphs.spark.inputs import id_kind
    >>> id_kind(T.IntegerType()), id_kind(T.StringType())
    ('int', 'str')
    """
    if isinstance(dtype, _INTEGRAL):
        return "int"
    if isinstance(dtype, T.StringType):
        return "str"
    raise TypeError(f"node ids must be integers or strings, got Spark type {dtype.simpleString()}")


def read_edges(path, *, delimiter: str | None = None, header: bool | None = None, spark=None) -> DataFrame:
    """Read a text edge list with Spark: a DataFrame with the ``long`` columns ``src`` and ``dst``.

    Parameters
    ----------
    path : str or os.PathLike
        A file, a directory of files or a glob, on any file system Spark reads (``.gz`` too).
    delimiter : str, optional
        One character separating the two ids. Default: a comma or any run of whitespace (spaces, tabs).
    header : bool, optional
        Whether the first data line of every file is a header (such as ``id_1,id_2``) to skip. Never
        guessed (as :func:`dpmo.graphs.read_edge_list`): None and False read it as data.
    spark : SparkSession, optional
        Default: the active session.

    Returns
    -------
    pyspark.sql.DataFrame
        Columns ``src``, ``dst`` (``long``), one row per data line, as written (no symmetrisation).

    Raises
    ------
    ValueError
        If a data line does not hold exactly two integer ids (the message names the file, never the line: an
        edge is private), or if Spark finds no file at ``path``.

    Notes
    -----
    Lines starting with ``#`` or ``%`` are comments, text after ``#``/``%`` on a line is ignored, blank lines
    are skipped. One Spark job checks every line (O(E) work on the executors); the rows are then read
    again lazily by whatever uses the DataFrame.

    Examples
    --------
    >>> import os, tempfile
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs import spark as dpmo_spark
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "edges.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# a path\\nid_1,id_2\\n1,2\\n2,3 % the second edge\\n")
    >>> sorted(tuple(r) for r in dpmo_spark.read_edges(path, header=True).collect())
    [(1, 2), (2, 3)]
    >>> os.remove(path); os.rmdir(folder)
    """
    return _read_edges(path, delimiter, header, _session(spark), "path")


def _read_edges(path, delimiter, header, session, name: str) -> DataFrame:
    """:func:`read_edges` in ``session``; a path where Spark finds nothing is refused naming ``name``."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or os.PathLike, got {type(path).__name__}")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "#%"):
        raise ValueError(f"delimiter must be a single character other than '#' and '%', got {delimiter!r}")
    if header not in (None, True, False):
        raise TypeError(f"header must be None, True or False, got {header!r}")
    lines = read_path(session.read.text, path, name, "a text edge list").select(
        "value",
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("pos"),
    )
    data = lines.withColumn("line", F.trim(F.regexp_replace("value", "[#%].*$", ""))).where(
        F.col("line") != ""
    )
    if header:
        # the first data line of every file: in the split that starts the file, the smallest position
        first = data.where(F.col("block") == 0).groupBy("file").agg(F.min("pos").alias("pos"))
        data = data.join(F.broadcast(first), ["file", "pos"], "left_anti")
    sep = r"\s*,\s*|\s+" if delimiter is None else _delimiter_regex(delimiter)
    parts = F.split(F.col("line"), sep)
    parsed = data.select(
        "file",
        "value",
        (F.size(parts) == 2).alias("two"),
        F.trim(F.try_element_at(parts, F.lit(1))).alias("t0"),
        F.trim(F.try_element_at(parts, F.lit(2))).alias("t1"),
    ).select(
        "file",
        "value",
        "two",
        F.expr("try_cast(t0 as bigint)").alias("src"),
        F.expr("try_cast(t1 as bigint)").alias("dst"),
        (F.col("t0").rlike(_INT_TOKEN) & F.col("t1").rlike(_INT_TOKEN)).alias("ints"),
    )
    good = F.col("two") & F.col("ints") & F.col("src").isNotNull() & F.col("dst").isNotNull()
    bad = parsed.where(~F.coalesce(good, F.lit(False))).select("file").limit(1).collect()
    if bad:  # the file is named, never the line or its content (an edge is a private record)
        sep_name = "a comma or whitespace" if delimiter is None else repr(delimiter)
        raise ValueError(
            f"{bad[0]['file']}: a line is not two integer node ids separated by {sep_name} (which line is "
            "not shown: the edges are private); a header line? pass header=True"
        )
    return parsed.select("src", "dst")


def read_path(read, path, name: str, what: str) -> DataFrame:
    """``read(path)`` (a lazy read by Spark: the listing and the schema), or ``ValueError`` naming the
    argument ``name`` when Spark finds no file there or cannot read it as ``what`` (Spark's message, which
    may quote a file, is not shown).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import read_path
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> read_path(session.read.parquet, "/nonexistent/e.parquet", "edges", "Parquet")
    Traceback (most recent call last):
    ...
    ValueError: edges: no file or folder at '/nonexistent/e.parquet' (give a Parquet file or folder, ...
    """
    from pyspark.errors import AnalysisException

    path = os.fspath(path)
    allowed = (
        "give a Parquet file or folder, a text edge list, or a Spark DataFrame with two id columns"
        if name == "edges"
        else "give a text edge list: a file, a folder of files or a glob"
    )
    try:
        return read(path)
    except AnalysisException as exc:
        missing = (exc.getCondition() or "").startswith("PATH_NOT_FOUND")
        why = f"no file or folder at {path!r}" if missing else f"Spark cannot read {path!r} as {what}"
        raise ValueError(f"{name}: {why} ({allowed}; Spark's message is not shown)") from None


def _delimiter_regex(c: str) -> str:
    """A regex matching the one-character delimiter ``c`` with any whitespace around it."""
    if c.isspace():
        return r"\s+"
    return r"\s*" + ("\\" + c if not c.isalnum() else c) + r"\s*"


def edge_frame(edges, spark=None) -> DataFrame:
    """The edge table as a DataFrame of two endpoint columns ``u``, ``v`` (``long``, or both strings).

    ``edges`` is a Spark DataFrame with exactly two columns of node ids (both integral, or both strings), or
    a path: ending in ``.parquet`` (a file or a directory) it is read as Parquet, otherwise as a text edge
    list (:func:`read_edges` with its defaults).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import edge_frame
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edge_frame(session.createDataFrame([(1, 2)], "src int, dst int")).dtypes
    [('u', 'bigint'), ('v', 'bigint')]
    """
    if isinstance(edges, (str, os.PathLike)):
        path = os.fspath(edges)
        session = _session(spark)
        if path.rstrip("/").endswith(".parquet"):
            edges = read_path(session.read.parquet, path, "edges", "Parquet")
        else:
            edges = _read_edges(path, None, None, session, "edges")
    if not isinstance(edges, DataFrame):
        raise TypeError(
            "edges must be a Spark DataFrame with two id columns, or a path to Parquet or to a text edge "
            f"list; got {type(edges).__name__}"
        )
    fields = edges.schema.fields
    if len(fields) != 2:
        raise ValueError(
            f"edges must have exactly two columns (the endpoint ids), got {[f.name for f in fields]}; select "
            "them first, e.g. edges.select('src', 'dst')"
        )
    kinds = [id_kind(f.dataType) for f in fields]
    if kinds[0] != kinds[1]:
        raise TypeError(f"the two id columns of edges must both be integers or both strings, got {kinds}")
    cast = "long" if kinds[0] == "int" else "string"
    return edges.select(
        *[F.col(f"`{f.name}`").cast(cast).alias(a) for f, a in zip(fields, "uv", strict=True)]
    )


def parquet_pieces(edges, spark=None) -> tuple[tuple[str, str], list[tuple[str, int]]] | None:
    """For a Parquet path of integral ids on the local file system: its two column names and its row
    groups ``(file, index)``, which :func:`dpmo.graphs.spark.node_statistics` reads with pyarrow on the
    executors; None for anything else (the edges are then read by Spark).

    Only what Spark itself would read qualifies: every file Spark lists for the path (``inputFiles``,
    ``file:`` URIs, at most :data:`dpmo.spark.parquet.MAX_DIRECT_FILES`) holds exactly Spark's two columns,
    by name, with integer types. Only the footers are read here (the schema and the row counts, for the
    layout).

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import parquet_pieces
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> folder = os.path.join(tempfile.mkdtemp(), "e.parquet"); os.mkdir(folder)
    >>> table = pa.table({"a": [0, 1, 2], "b": [1, 2, 0]})
    >>> pq.write_table(table, os.path.join(folder, "p.parquet"), row_group_size=2)
    >>> names, pieces = parquet_pieces(folder)
    >>> names, [g for _, g in pieces]
    (('a', 'b'), [0, 1])
    >>> parquet_pieces(session.createDataFrame([(0, 1)], "a long, b long")) is None   # a DataFrame
    True
    """
    if not isinstance(edges, (str, os.PathLike)) or not os.fspath(edges).rstrip("/").endswith(".parquet"):
        return None
    import pyarrow.types as pat

    raw = _session(spark).read.parquet(os.fspath(edges))
    fields = raw.schema.fields
    if len(fields) != 2 or not all(isinstance(f.dataType, _INTEGRAL) for f in fields):
        return None  # edge_frame refuses or casts it; Spark reads it
    names = (fields[0].name, fields[1].name)
    files = raw.inputFiles()

    def integral_pair(path, schema) -> bool:
        return tuple(schema.names) == names and all(pat.is_integer(t) for t in schema.types)

    pieces = local_row_groups(files, integral_pair)
    return None if pieces is None else (names, pieces)


class NodeSet(NamedTuple):
    """The public node set: a DataFrame with one column ``node``, its size, whether it is ``0 .. n-1``,
    and, when the caller gave them as an array, its ids sorted (None for ``0 .. n-1`` and for a DataFrame).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import node_frame
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> node_frame(5, session, "int", "example")[1:3]  # NodeSet(frame, n, is_range, ids)
    (5, True)
    """

    frame: DataFrame
    n: int
    is_range: bool
    ids: np.ndarray | None = None


def node_frame(nodes, spark: SparkSession, kind: str, what: str) -> NodeSet:
    """The public node set as a :class:`NodeSet`; refusals name ``what``.

    ``nodes``: an int ``n`` (ids ``0 .. n-1``), an array_like of distinct ids, or a Spark DataFrame with
    one column of distinct, non-null ids of the edges' kind (``kind`` is ``"int"`` or ``"str"``). None is
    refused with :data:`dpmo.graphs.nodes.NODES_REQUIRED`. ``n`` is counted on the node set (public).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.inputs import node_frame
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> ns = node_frame([3, 7, 9], session, "int", "example")
    >>> ns.n, ns.is_range, sorted(r.node for r in ns.frame.collect())
    (3, False, [3, 7, 9])
    """
    if nodes is None or (isinstance(nodes, str) and nodes == "observed"):
        raise ValueError(f"{what}: {NODES_REQUIRED}")
    if isinstance(nodes, DataFrame):
        check_running(nodes.sparkSession, "nodes")
        fields = nodes.schema.fields
        if len(fields) != 1:
            raise ValueError(f"nodes must be a DataFrame with one column of node ids, got {nodes.columns}")
        node_kind = id_kind(fields[0].dataType)
        if node_kind != kind:
            raise TypeError(
                f"the edges hold {_kind_name(kind)} ids: nodes must list {_kind_name(kind)} ids too"
            )
        frame = nodes.select(
            F.col(f"`{fields[0].name}`").cast("long" if kind == "int" else "string").alias("node")
        )
        counts = frame.agg(
            F.count(F.lit(1)).alias("rows"),
            F.count("node").alias("ids"),
            F.count_distinct("node").alias("distinct"),
        ).first()
        if counts["ids"] != counts["rows"]:
            raise ValueError("nodes must not contain null ids")
        if counts["distinct"] != counts["rows"]:
            raise ValueError("nodes must not contain duplicates")
        if counts["rows"] == 0:
            raise ValueError("nodes is empty: a graph needs at least one node")
        return NodeSet(frame, int(counts["rows"]), False)
    if _is_count(nodes):  # ids 0 .. n-1: Spark's range, O(1) on the driver whatever n
        n = int(nodes)
        if n < 1:
            as_node_ids(n)  # its refusal
        if kind != "int":
            raise TypeError(
                f"the edges hold {_kind_name(kind)} ids: nodes must list {_kind_name(kind)} ids too"
            )
        return NodeSet(spark.range(n).select(F.col("id").alias("node")), n, True)
    ids = as_node_ids(nodes)  # an int n or an array of distinct ids (ValueError / TypeError otherwise)
    ids_kind = "str" if ids.dtype.kind == "U" else "int"
    if ids_kind != kind:
        raise TypeError(f"the edges hold {_kind_name(kind)} ids: nodes must list {_kind_name(kind)} ids too")
    n = int(ids.size)
    if kind == "int" and ids[0] == 0 and ids[-1] == n - 1:
        return NodeSet(spark.range(n).select(F.col("id").alias("node")), n, True)
    # through a pandas frame (Arrow when Spark enables it), not a Python tuple per id: 10^6 ids, the frame
    # made and counted, 4.1 -> 2.7 s (its Python part 6.2 -> 0.4 s under cProfile)
    column = pd.DataFrame({"node": ids.astype(str) if kind == "str" else np.asarray(ids, dtype=np.int64)})
    frame = spark.createDataFrame(column, "node long" if kind == "int" else "node string")
    return NodeSet(frame, n, False, ids)


def _is_count(nodes) -> bool:
    """Whether ``nodes`` is an int ``n`` (as :func:`dpmo.graphs.nodes.as_node_ids` reads one)."""
    import numbers

    return isinstance(nodes, (numbers.Integral, np.integer)) and not isinstance(nodes, (bool, np.bool_))


def _kind_name(kind: str) -> str:
    return "integer" if kind == "int" else "text"
