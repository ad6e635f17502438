"""Degree, triangle count and ego density of every node of a graph held as a Spark edge table.

The same statistics as :func:`dpmo.graphs.degree`, :func:`dpmo.graphs.triangles` and
:func:`dpmo.graphs.ego_density` (the paper's section "Problem statement"), computed on the executors:

1. **Simple graph.** Every edge becomes ``(min, max)``; duplicates and reverse edges merge (a ``distinct``),
   self-loops are dropped from the degrees (as in :mod:`dpmo.graphs.csr`).
2. **Degrees and the node set.** ``degree(v)`` is the number of distinct edges at ``v``. Every endpoint must
   lie in the public node set (an edge outside it is refused with ``ValueError``, never naming the node, as
   :func:`dpmo.graphs.load_graph` does); nodes of the set without edges get degree 0.
3. **Triangles, degree-ordered** (Chiba and Nishizeki 1985; Latapy 2008; Suri and Vassilvitskii 2011 for
   the MapReduce form). Each edge is oriented from the lower to the higher ``(degree, id)``: a node has at
   most ``sqrt(2 m)`` out-neighbours, since they all have a degree at least its own. The *wedges* are the
   pairs ``v, w`` of out-neighbours of one node ``u`` with ``(degree, id)`` of ``v`` below ``w``'s: at most
   ``sum_u d+(u)^2 / 2 <= m sqrt(2 m) / 2`` of them (the naive wedge join lists ``sum_v d(v)^2 / 2``). A
   wedge is closed when the oriented edge ``v -> w`` exists (a join on ``(v, w)``); each triangle is found
   once, from its lowest corner, and counted for its three nodes.
4. **Ego density** ``2 T / (d (d - 1))`` (0 below degree 2) by
   :func:`dpmo.graphs.centrality.ego_density_from_counts` on every partition: the very function of the
   in-memory path, so the floats are the same.

Nothing is collected to the driver but the first edge outside the node set, if there is one. Shuffles: the
edge table once (``distinct``), the degrees (partial sums), the edges twice more (orientation joins), the
oriented edges for the wedge self-join, the wedges and the oriented edges for the closing join, the
triangle counts (partial sums) and the final joins on the ``n`` nodes. The shuffle volume of the triangle
step is worked out for 10^9 edges in ``docs/spark.md``.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..centrality import ego_density_from_counts
from ..nodes import OUTSIDE
from .inputs import NodeSet, edge_frame, id_kind, node_frame

__all__ = [
    "STATISTICS_COLUMNS",
    "node_statistics",
    "prepare",
    "statistics",
    "oriented_edges",
    "wedges",
    "triangle_counts",
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
        Without a node set, for an edge naming a node outside it (the message does not name it) or with a null
        endpoint, for duplicate ids in ``nodes``, or for a malformed text edge list.
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
    e, ns = prepare(edges, nodes, "node_statistics")
    return statistics(e, ns)


def statistics(e: DataFrame, ns: NodeSet) -> DataFrame:
    """:func:`node_statistics` of the edge table ``e`` (columns ``u``, ``v``) on the node set ``ns``.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import prepare, statistics
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> e, ns = prepare(session.createDataFrame([(0, 1), (1, 2), (2, 0)], "a long, b long"), 4, "example")
    >>> sorted(tuple(r) for r in statistics(e, ns).select("node", "triangles").collect())
    [(0, 1), (1, 1), (2, 1), (3, 0)]
    """
    u, v = F.col("u"), F.col("v")
    missing = u.isNull() | v.isNull()
    pairs = e.select(
        F.when(missing, F.lit(None)).otherwise(F.least(u, v)).alias("a"),
        F.when(missing, F.lit(None)).otherwise(F.greatest(u, v)).alias("b"),
    ).distinct()
    pairs = pairs.persist(StorageLevel.MEMORY_AND_DISK)
    ends = pairs.select(
        F.explode(F.array("a", "b")).alias("node"), (F.col("a") != F.col("b")).cast("int").alias("real")
    )
    deg = ends.groupBy("node").agg(F.sum("real").alias("degree")).persist(StorageLevel.MEMORY_AND_DISK)
    cached = [pairs, deg]
    try:
        _check_endpoints(deg, ns)
        oriented = oriented_edges(pairs.where(F.col("a") != F.col("b")), deg)
        oriented = oriented.persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(oriented)
        tri = triangle_counts(oriented)
        counts = (
            ns.frame.join(deg, "node", "left")
            .join(tri, "node", "left")
            .select(
                "node",
                F.coalesce("degree", F.lit(0)).cast("long").alias("degree"),
                F.coalesce("triangles", F.lit(0)).cast("long").alias("triangles"),
            )
        )
        schema = T.StructType(
            [
                T.StructField("node", counts.schema["node"].dataType, False),
                T.StructField("degree", T.LongType(), False),
                T.StructField("triangles", T.LongType(), False),
                T.StructField("ego_density", T.DoubleType(), False),
            ]
        )
        stats = counts.mapInPandas(_with_ego_density, schema)
        return stats.localCheckpoint(eager=True)
    finally:
        for df in cached:
            df.unpersist()


def _check_endpoints(deg: DataFrame, ns: NodeSet) -> None:
    """Refuse an edge with a null endpoint or an endpoint outside the public node set (domain check)."""
    node = F.col("node")
    if ns.is_range:
        outside = deg.where(node.isNull() | (node < 0) | (node >= ns.n))
    else:
        outside = deg.join(ns.frame, "node", "left_anti")
    bad = outside.select("node").limit(1).collect()
    if not bad:
        return
    if bad[0]["node"] is None:
        raise ValueError("an edge has a missing (null) endpoint; every edge needs two node ids")
    raise ValueError(OUTSIDE.format(size=f" of {ns.n} nodes"))


def oriented_edges(edges: DataFrame, deg: DataFrame) -> DataFrame:
    """The simple graph ``edges`` (columns ``a < b``) oriented from the lower to the higher ``(degree, id)``:
    columns ``src``, ``dst`` and ``ddst`` (the degree of ``dst``). ``deg``: columns ``node``, ``degree``.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import oriented_edges
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame([(0, 1), (0, 2), (1, 2), (2, 3)], "a long, b long")
    >>> deg = session.createDataFrame([(0, 2), (1, 2), (2, 3), (3, 1)], "node long, degree long")
    >>> sorted((r.src, r.dst) for r in oriented_edges(edges, deg).collect())  # 3 (degree 1) -> 2
    [(0, 1), (0, 2), (1, 2), (3, 2)]
    """
    da = deg.select(F.col("node").alias("a"), F.col("degree").alias("da"))
    db = deg.select(F.col("node").alias("b"), F.col("degree").alias("db"))
    ranked = edges.join(da, "a").join(db, "b")
    # a < b, so (da, a) < (db, b) exactly when da <= db: orient a -> b then, else b -> a
    fwd = F.col("da") <= F.col("db")
    return ranked.select(
        F.when(fwd, F.col("a")).otherwise(F.col("b")).alias("src"),
        F.when(fwd, F.col("b")).otherwise(F.col("a")).alias("dst"),
        F.when(fwd, F.col("db")).otherwise(F.col("da")).alias("ddst"),
    )


def wedges(oriented: DataFrame) -> DataFrame:
    """The wedges ``x -> y, x -> z`` of the oriented edges with ``(degree, id)`` of ``y`` below ``z``'s:
    columns ``x, y, z``, at most ``sum_x d+(x) (d+(x) - 1) / 2`` rows (a self-join on ``x``).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import wedges
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> oriented = session.createDataFrame(
    ...     [(0, 1, 2), (0, 2, 3), (1, 2, 3), (3, 2, 3)], "src long, dst long, ddst long"
    ... )
    >>> [tuple(r) for r in wedges(oriented).collect()]  # node 0 is the only one with two out-neighbours
    [(0, 1, 2)]
    """
    # one side, joined with itself: both sides are the same plan, so Spark shuffles it once (reused exchange)
    side = oriented.select(F.col("src").alias("x"), F.col("dst").alias("y"), F.col("ddst").alias("d"))
    p, q = side.alias("p"), side.alias("q")
    below = (F.col("p.d") < F.col("q.d")) | ((F.col("p.d") == F.col("q.d")) & (F.col("p.y") < F.col("q.y")))
    return (
        p.join(q, F.col("p.x") == F.col("q.x"))
        .where(below)
        .select(F.col("p.x").alias("x"), F.col("p.y").alias("y"), F.col("q.y").alias("z"))
    )


def triangle_counts(oriented: DataFrame) -> DataFrame:
    """Columns ``node``, ``triangles`` (nodes in no triangle are absent): every wedge closed by the oriented
    edge ``y -> z`` is a triangle, found once from its lowest corner ``x`` and counted for its three nodes.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.statistics import triangle_counts
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> oriented = session.createDataFrame(
    ...     [(0, 1, 2), (0, 2, 3), (1, 2, 3), (3, 2, 3)], "src long, dst long, ddst long"
    ... )
    >>> sorted(tuple(r) for r in triangle_counts(oriented).collect())  # the triangle 0-1-2
    [(0, 1), (1, 1), (2, 1)]
    """
    closing = oriented.select(F.col("src").alias("y"), F.col("dst").alias("z"))
    found = wedges(oriented).join(closing, ["y", "z"])
    return (
        found.select(F.explode(F.array("x", "y", "z")).alias("node"))
        .groupBy("node")
        .agg(F.count(F.lit(1)).alias("triangles"))
    )


def _with_ego_density(batches):
    """mapInPandas: the ego density of every row from its degree and triangle count (the shared formula)."""
    for batch in batches:
        ego = ego_density_from_counts(batch["degree"].to_numpy(), batch["triangles"].to_numpy(), 0.0, "paper")
        yield batch.assign(ego_density=ego)
