"""Degree, triangle count and ego density of every node of a graph held as a Spark edge table.

The same statistics as :func:`dpmo.graphs.degree`, :func:`dpmo.graphs.triangles` and
:func:`dpmo.graphs.ego_density` (the paper's section "Problem statement"), computed on the executors in
three hash-partitioned steps whose per-partition work is compiled (:mod:`dpmo.graphs.spark.kernels`, run by
``mapInArrow`` on all the rows of a partition at once) instead of generic joins:

1. **Degrees.** Both directions of every edge, partitioned by their first node ``x``: duplicates and
   reverse edges merge, self-loops are dropped (as in :mod:`dpmo.graphs.csr`), and ``x`` sends its degree
   to each neighbour.
2. **Orientation** (Chiba and Nishizeki 1985; Latapy 2008). Partitioned by node, every node ``y`` sees its
   neighbours with their degrees; each edge is oriented from the lower to the higher ``(degree, id)``, so
   ``y`` has at most ``sqrt(2 m)`` out-neighbours. ``y`` sends its sorted out-neighbours to itself and,
   to each out-neighbour ``a``, those ranked above ``a``: the degree-ordered *wedges*, ``W = sum_y d+(y)
   (d+(y) - 1) / 2 <= m sqrt(2 m) / 2`` ids in all (the naive wedge join lists ``sum_v d(v)^2 / 2``).
3. **Closing.** Partitioned by ``a``: the wedge ``y -> a, y -> b`` is a triangle exactly when ``b`` is an
   out-neighbour of ``a`` (a binary search); each triangle is found once, from its lowest corner, and
   counted for its three corners (partial counts summed by Spark with the node set's rows).
4. **Ego density** ``2 T / (d (d - 1))`` (0 below degree 2) by
   :func:`dpmo.graphs.centrality.ego_density_from_counts` on every partition: the very function of the
   in-memory path, so the floats are the same.

Every endpoint must lie in the public node set: the node table is the node set's rows summed with the counts,
and a row that only the edges name is refused with ``ValueError``, never naming the node (as
:func:`dpmo.graphs.load_graph` does); nodes of the set without edges get degree 0. Text ids are numbered by
the node set first (a join, which finds the endpoints outside it). Nothing is collected to the driver but one
row flagging an endpoint outside the node set, if there is one (its value is never shown). Shuffles: ``2 m``
rows of two ids, ``2 m`` rows of three, ``n + m`` rows carrying ``m + W`` ids, the partial counts (at most ``3
T``) with the ``n`` nodes; the number of hash partitions is :func:`edge_partitions`. The cost is measured in
``docs/spark.md``.
"""

from __future__ import annotations

from functools import partial

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...spark.blocks import BLOCK_SCHEMA, bucket_keys
from ...spark.session import estimated_rows, library_call, shuffle_partitions, sql_conf, worker_udfs
from ..nodes import OUTSIDE
from .inputs import NodeSet, edge_frame, id_kind, node_frame, parquet_pieces, session_of
from .steps import (
    announce_step,
    close_step,
    edge_blocks,
    final_step,
    member_blocks,
    orient_step,
    piece_blocks,
)

__all__ = [
    "STATISTICS_COLUMNS",
    "edge_partitions",
    "node_statistics",
    "prepare",
    "refuse_endpoint",
    "statistics",
    "triangle_steps",
]

#: Columns of :func:`node_statistics`.
STATISTICS_COLUMNS = ("node", "degree", "triangles", "ego_density")


def prepare(edges, nodes, what: str) -> tuple[DataFrame, NodeSet]:
    """The edge table (columns ``u``, ``v``) and the public node set, checked; refusals name ``what``.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import prepare
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> e, ns = prepare(session.createDataFrame([(0, 1), (1, 2)], "a long, b long"), 4, "example")
    >>> e.columns, ns.n, ns.is_range
    (['u', 'v'], 4, True)
    """
    if nodes is None:  # refused before the edges are even looked at
        node_frame(None, None, "int", what)
    e = edge_frame(edges)
    kind = id_kind(e.schema["u"].dataType)
    return e, node_frame(nodes, e.sparkSession, kind, what)


def node_statistics(edges, nodes) -> DataFrame:
    """Degree, triangle count and ego density of every node of the public node set, computed in Spark.

    Parameters
    ----------
    edges : pyspark.sql.DataFrame or str
        The private edges: a DataFrame with exactly two columns of node ids (both integral, or both
        strings), one edge per row, in any direction; or a path, read as Parquet when it ends in
        ``.parquet`` and as a text edge list otherwise (:func:`read_edges`). Self-loops are dropped,
        duplicate and reverse edges merged.
    nodes : int, array_like or pyspark.sql.DataFrame
        The **public** node set: an int ``n`` for the ids ``0 .. n-1``, the ids, or a DataFrame with one
        column of distinct ids. Required (refused with :data:`dpmo.graphs.nodes.NODES_REQUIRED` when
        None); nodes without edges are kept, with degree 0.

    Returns
    -------
    pyspark.sql.DataFrame
        One row per node of the set, columns ``node``, ``degree`` (long), ``triangles`` (long: edges among
        the node's neighbours) and ``ego_density`` (double, ``2 T / (d (d - 1))``, 0 below degree 2), equal
        to :func:`dpmo.graphs.degree`, :func:`dpmo.graphs.triangles` and :func:`dpmo.graphs.ego_density`
        of the same graph. Already computed (local checkpoint on the executors), in no particular order.
        These are exact statistics of the private graph: NOT PRIVATE (``top_k`` releases from them).

    Raises
    ------
    ValueError
        Without a node set, for an edge naming a node outside it (the message does not name it) or with a
        null endpoint, for duplicate ids in ``nodes``, or for a malformed text edge list.
    TypeError
        For edges or nodes of the wrong kind (three columns, ids that are neither integers nor strings,
        text ids against an int ``n``).

    Notes
    -----
    Work O(m sqrt(m)) for ``m`` edges (the degree-ordered wedges, module notes) plus shuffles of O(m + n)
    rows; nothing of size ``m`` reaches the driver. Measured in ``docs/spark.md``.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyspark.sql import SparkSession
    >>> from dpmo import graphs
    >>> from dpmo.graphs import spark as dpmo_spark
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> g = nx.karate_club_graph()
    >>> edges = session.createDataFrame(list(g.edges()), "src long, dst long")
    >>> stats = dpmo_spark.node_statistics(edges, 34).orderBy("node").toPandas()
    >>> stats["triangles"].tolist() == graphs.triangles(g).tolist()   # the in-memory counts
    True
    >>> stats["ego_density"].tolist() == graphs.ego_density(g).tolist()   # the same floats
    True
    """
    if nodes is None:  # refused before the edges are even looked at
        node_frame(None, None, "int", "node_statistics")
    with library_call(session_of(edges)):  # the workers' Python checked before any job
        e, ns = prepare(edges, nodes, "node_statistics")
        return statistics(e, ns, pieces=parquet_pieces(edges))


def statistics(e: DataFrame, ns: NodeSet, partitions: int | None = None, pieces=None) -> DataFrame:
    """:func:`node_statistics` of the edge table ``e`` (columns ``u``, ``v``) on the node set ``ns``, with
    ``partitions`` hash partitions in every step (default: :func:`edge_partitions`). ``pieces``, optional:
    :func:`dpmo.graphs.spark.inputs.parquet_pieces` of the file ``e`` reads, for pyarrow to read them on
    the executors (the same rows, without Spark's row conversion).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import prepare, statistics
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> e, ns = prepare(session.createDataFrame([(0, 1), (1, 2), (2, 0)], "a long, b long"), 4, "example")
    >>> sorted(tuple(r) for r in statistics(e, ns).select("node", "triangles").collect())
    [(0, 1), (1, 1), (2, 1), (3, 0)]
    """
    p = edge_partitions(e, ns) if partitions is None else int(partitions)
    with sql_conf(e.sparkSession, {"spark.sql.shuffle.partitions": p}):
        if isinstance(e.schema["u"].dataType, T.StringType):
            return _text_statistics(e, ns, p)
        return _integral_statistics(e, ns, p, pieces)


def _integral_statistics(e: DataFrame, ns: NodeSet, p: int, pieces=None) -> DataFrame:
    """The pipeline on integral ids: three block steps, the node set's blocks, the node table."""
    keys = bucket_keys(p)
    counts = triangle_steps(e, p, keys, pieces)[2]
    with worker_udfs(e.sparkSession):
        members = ns.frame.mapInArrow(partial(member_blocks, partitions=p, keys=keys), BLOCK_SCHEMA)
        table = counts.unionByName(members).repartition(p, "key")
        done = table.mapInArrow(partial(final_step, partitions=p, keys=keys), _FINISHED)
    done = done.localCheckpoint(eager=True)
    _check_endpoints(done, ns)
    return done.where(F.col("member") > 0).select(*STATISTICS_COLUMNS)


def edge_partitions(e: DataFrame, ns: NodeSet) -> int:
    """The hash partitions of the triangle steps: :func:`dpmo.spark.session.shuffle_partitions` of the
    rows of the first step, ``2 m`` (both directions of every edge, at least the ``n`` nodes).

    ``m`` is read from Spark's own size statistics of the edge table's plan (exact row counts for data
    built in memory, file sizes at 8 bytes a row for Parquet and text; no job), or counted when Spark has
    no statistics. It sets only how the work is split: the statistics and the law of the picks do not
    depend on it (like the running time, it is not a release).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import edge_partitions, prepare
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> e, ns = prepare(session.createDataFrame([(0, 1), (1, 2)], "a long, b long"), 4, "example")
    >>> user = session.conf.get("spark.sql.shuffle.partitions", None)
    >>> edge_partitions(e, ns) == (1 if user is None else int(user))
    True
    """
    rows = estimated_rows(e)
    if rows is None:
        rows = e.count()
    return shuffle_partitions(e.sparkSession, 2 * max(int(rows), ns.n))


def triangle_steps(
    e: DataFrame, partitions: int, keys=None, pieces=None
) -> tuple[DataFrame, DataFrame, DataFrame]:
    """The three steps of the triangle count (:mod:`dpmo.graphs.spark.kernels`) on the integral edge table
    ``e`` (columns ``u``, ``v``; or the Parquet row groups ``pieces``, as in :func:`statistics`),
    ``partitions`` buckets: the block DataFrames
    (:data:`dpmo.spark.blocks.BLOCK_SCHEMA`) each step sends, their rows ``(dst, src, dsrc)``,
    ``(key, origin, degree, offsets, values)`` and ``(node, degree, triangles)``.

    The wedge rows of the second (``degree == -1``) hold the ``W`` degree-ordered wedges in their lists.

    Examples
    --------
    >>> import numpy as np
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import triangle_steps
    >>> from dpmo.spark.blocks import decode
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> e = session.createDataFrame([(0, 1), (1, 2), (2, 0), (2, 3)], "u long, v long")
    >>> _, sent, _ = triangle_steps(e, 2)
    >>> rows = [decode(r.blob) for r in sent.collect()]  # key, origin, degree, offsets, values
    >>> sum(int(np.diff(offsets)[degree < 0].sum()) for _, _, degree, offsets, _ in rows)  # one wedge
    1
    """
    p = int(partitions)
    keys = bucket_keys(p) if keys is None else keys
    steps = []
    with worker_udfs(e.sparkSession):
        if pieces is not None and pieces[1]:
            names, groups = pieces
            frame = e.sparkSession.createDataFrame(groups, "file string, group int")
            read = partial(piece_blocks, partitions=p, keys=keys, names=names)
            first = frame.mapInArrow(read, BLOCK_SCHEMA)
        else:
            first = e.mapInArrow(partial(edge_blocks, partitions=p, keys=keys), BLOCK_SCHEMA)
        for step in (announce_step, orient_step, close_step):
            run = partial(step, partitions=p, keys=keys)
            first = first.repartition(p, "key").mapInArrow(run, BLOCK_SCHEMA)
            steps.append(first)
    return steps[0], steps[1], steps[2]


def _text_statistics(e: DataFrame, ns: NodeSet, p: int) -> DataFrame:
    """Text ids: numbered by the node set (a join that also finds the endpoints outside it), counted as
    integers, named again."""
    index = ns.frame.select("node", F.monotonically_increasing_id().alias("index"))
    index = index.localCheckpoint(eager=True)  # the numbering is fixed once
    a = index.select(F.col("node").alias("u"), F.col("index").alias("iu"))
    b = index.select(F.col("node").alias("v"), F.col("index").alias("iv"))
    coded = e.join(a, "u", "left").join(b, "v", "left").localCheckpoint(eager=True)
    iu, iv = F.col("iu"), F.col("iv")
    bad = coded.where(iu.isNull() | iv.isNull()).select("u", "v", "iu").limit(1).collect()
    if bad:
        row = bad[0]
        value = row["u"] if row["iu"] is None else row["v"]
        refuse_endpoint(value, ns)
    numbers = NodeSet(index.select(F.col("index").alias("node")), ns.n, False)
    stats = statistics(coded.select(iu.alias("u"), iv.alias("v")), numbers, p)
    named = stats.join(index.withColumnRenamed("index", "code"), stats["node"] == F.col("code"))
    return named.select(index["node"].alias("node"), "degree", "triangles", "ego_density").localCheckpoint(
        eager=True
    )


def _check_endpoints(done: DataFrame, ns: NodeSet) -> None:
    """Refuse an edge with a null endpoint or an endpoint outside the public node set (domain check)."""
    bad = done.where(F.col("member") == 0).select("node").limit(1).collect()
    if bad:
        refuse_endpoint(bad[0]["node"], ns)


def refuse_endpoint(value, ns: NodeSet) -> None:
    """Raise the refusal of an edge endpoint outside the node set ``ns`` (``value`` None: a null endpoint);
    the endpoint is never named (an edge is a private record)."""
    if value is None:
        raise ValueError("an edge has a missing (null) endpoint; every edge needs two node ids")
    raise ValueError(OUTSIDE.format(size=f" of {ns.n} nodes"))


_FINISHED = T.StructType(
    [
        T.StructField("node", T.LongType(), True),
        T.StructField("degree", T.LongType(), False),
        T.StructField("triangles", T.LongType(), False),
        T.StructField("ego_density", T.DoubleType(), False),
        T.StructField("member", T.LongType(), False),
    ]
)
