"""Small graphs on the driver: which inputs of :func:`dpmo.graphs.spark.top_k` skip the Spark pipeline, and
their edges collected in one Spark job.

A Spark job costs about 0.3 s of Spark's own time per stage in local mode, whatever the data
(``docs/spark.md``, "Local mode"): the statistics pipeline (:func:`dpmo.graphs.spark.node_statistics`,
five stages) and the selection passes make a graph of 78 edges take seconds, where the in-memory path takes
milliseconds. So :func:`dpmo.graphs.spark.top_k` computes a **small** graph's statistics on the driver, with
the in-memory kernels (:func:`dpmo.graphs.csr.csr_from_pairs`, :func:`dpmo.graphs.centrality.csr_triangles`,
:func:`dpmo.graphs.centrality.ego_density_from_counts`: what :func:`dpmo.graphs.triangles` and
:func:`dpmo.graphs.ego_density` run, so the same integers and floats as the Spark pipeline), and selects
there with the in-memory pipeline (:func:`dpmo.select_multiobjective`), as its driver path does for
``approach="pareto"``: the same law of the picks and the same budget records as the Spark path.

**Which graphs are small** (:func:`is_small`) is decided from public inputs and Spark's plan estimate only,
never from the edges: at most :data:`SMALL_NODES` nodes, and either the node set admits at most
:data:`SMALL_EDGES` edges (``n (n - 1) / 2``, public) or Spark's size estimate of the edge table's plan
(:func:`dpmo.spark.session.estimated_rows`: row counts of data built from pandas or ``range``, file sizes at
8 bytes a row; no job) is at most :data:`SMALL_EDGES` rows. The choice changes where the work runs, not the
output's distribution.

**The one job** (:func:`edge_codes`, :func:`driver_statistics`): a Spark SQL query, without Python
workers (a cold worker would cost seconds of imports), turns every edge into one int64 code ``a n + b`` of the
positions ``a <= b`` of its endpoints in the sorted public node set, or a flag if an endpoint is null or
outside the node set, and keeps the distinct codes: the driver receives at most ``n (n + 1) / 2 + 2`` codes,
whatever the table holds, and nothing that names the offending endpoint. Self-loops are dropped and
duplicate and reverse edges merged on the driver, as :mod:`dpmo.graphs.csr` does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from ...spark.session import estimated_rows
from ..centrality import csr_triangles, ego_density_from_counts
from ..csr import csr_from_pairs
from .inputs import NodeSet
from .statistics import refuse_endpoint

__all__ = [
    "NULL_CODE",
    "OUTSIDE_CODE",
    "SMALL_EDGES",
    "SMALL_NODES",
    "driver_pairs",
    "driver_statistics",
    "edge_codes",
    "is_small",
    "node_ids",
]

#: A graph is small when its node set admits at most this many edges, or Spark estimates its edge table at
#: most this many rows (and it has at most :data:`SMALL_NODES` nodes).
SMALL_EDGES = 1 << 16
#: Most nodes of a small graph (the driver holds O(n) arrays per call).
SMALL_NODES = 1 << 20
#: Flags of :func:`edge_codes`: an endpoint outside the node set, a null endpoint.
OUTSIDE_CODE, NULL_CODE = -1, -2


def is_small(e: DataFrame, ns: NodeSet) -> bool:
    """Whether :func:`dpmo.graphs.spark.top_k` runs on the driver for the edge table ``e`` and the node set
    ``ns``: ``n <= SMALL_NODES`` and (``n (n - 1) / 2 <= SMALL_EDGES`` or Spark's estimate of the rows of
    ``e`` is at most ``SMALL_EDGES``). Reads the public ``n`` and Spark's plan statistics, no job.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.small import is_small
    >>> from dpmo.graphs.spark.statistics import prepare
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame([(0, 1), (1, 2)], "a long, b long")  # Spark has no estimate
    >>> is_small(*prepare(edges, 34, "example")), is_small(*prepare(edges, 10**5, "example"))
    (True, False)
    >>> ten = session.range(10).selectExpr("id AS a", "id + 1 AS b")  # Spark knows: 10 rows
    >>> is_small(*prepare(ten, 10**5, "example"))
    True
    """
    n = int(ns.n)
    if n > SMALL_NODES:
        return False
    if n * (n - 1) // 2 <= SMALL_EDGES:
        return True
    rows = estimated_rows(e)
    return rows is not None and rows <= SMALL_EDGES


def edge_codes(e: DataFrame, ns: NodeSet, ids=None, *, one_partition: bool = True) -> DataFrame:
    """The distinct codes of the edges of ``e`` (columns ``u``, ``v``): ``a n + b`` for the positions ``a <=
    b`` of the endpoints in the sorted node set (``ids``, its sorted ids; None for ``0 .. n-1``),
    :data:`OUTSIDE_CODE` for an edge with an endpoint outside it, :data:`NULL_CODE` for a null endpoint.

    One Spark SQL query, no Python worker: the edge table in one partition (``coalesce(1)``, no shuffle),
    the ids numbered by a broadcast join with the node set when they are not ``0 .. n-1`` (the broadcast
    may be a second, small job, as Spark plans the local table), and a hash aggregate of the distinct
    codes: at most ``n (n + 1) / 2 + 2`` rows, whatever the table holds. ``one_partition=False`` keeps the
    table's partitions and numbers other ids by a shuffle join, not a broadcast (a large graph's codes, left
    on the executors: the released graph of :mod:`dpmo.graphs.spark.released`).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.small import edge_codes
    >>> from dpmo.graphs.spark.statistics import prepare
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame([(2, 0), (0, 2), (1, 1), (1, 3)], "a long, b long")
    >>> sorted(r.code for r in edge_codes(*prepare(edges, 4, "example")).collect())  # 2 = 0 * 4 + 2
    [2, 5, 7]
    >>> named = session.createDataFrame([("b", "a"), ("x", "a")], "a string, b string")
    >>> sorted(r.code for r in edge_codes(*prepare(named, ["a", "b"], "example"), ["a", "b"]).collect())
    [-1, 1]
    """
    from pyspark.sql import functions as F

    n = int(ns.n)
    u, v = F.col("u"), F.col("v")
    rows = e.coalesce(1) if one_partition else e
    if ids is None:
        a, b = u, v
        outside = (F.least(u, v) < 0) | (F.greatest(u, v) >= n)
    else:
        kind = e.schema["u"].dataType
        ids = np.asarray(ids)
        table = e.sparkSession.createDataFrame(  # through Arrow when Spark enables it: no Python row per id
            pd.DataFrame({"id": ids.astype(str) if kind == T.StringType() else ids.astype(np.int64),
                          "pos": np.arange(n, dtype=np.int64)}),
            "id string, pos long" if kind == T.StringType() else "id long, pos long",
        ).select(F.col("id").cast(kind).alias("id"), "pos")  # fmt: skip
        for end, pos in (("u", "a"), ("v", "b")):
            side = table.select(F.col("id").alias(end), F.col("pos").alias(pos))
            # one task's table is broadcast; on the executors (a large node set) a shuffle join
            rows = rows.join(F.broadcast(side) if one_partition else side, end, "left")
        a, b = F.col("a"), F.col("b")
        outside = a.isNull() | b.isNull()
    code = (
        F.when(u.isNull() | v.isNull(), F.lit(NULL_CODE))
        .when(outside, F.lit(OUTSIDE_CODE))
        .otherwise(F.least(a, b) * n + F.greatest(a, b))
    )
    return rows.select(code.cast("long").alias("code")).distinct()


def driver_pairs(e: DataFrame, ns: NodeSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node set's ids (sorted) and the edges of ``e`` as positions ``(a, b)`` in them (``a < b``,
    distinct, self-loops dropped), collected in one Spark job (:func:`edge_codes`); ``ValueError`` for an
    endpoint that is null or outside the node set, naming neither. Cost: one pass over the edges in one
    Spark task; on the driver at most ``n (n + 1) / 2 + 2`` codes."""
    n = int(ns.n)
    ids = node_ids(ns)
    codes = edge_codes(e, ns, None if ns.is_range else ids).toArrow().column("code").to_numpy()
    if codes.size and codes.min() < 0:
        refuse_endpoint(None if (codes == NULL_CODE).any() else OUTSIDE_CODE, ns)
    a, b = codes // n, codes % n
    keep = a != b  # self-loops dropped, as in dpmo.graphs.csr
    return ids, a[keep], b[keep]


def node_ids(ns: NodeSet) -> np.ndarray:
    """The public node set's ids, sorted (collected when it is a DataFrame; at most ``SMALL_NODES`` or the
    driver path's limit)."""
    if ns.is_range:
        return np.arange(int(ns.n), dtype=np.int64)
    return ns.ids if ns.ids is not None else _collected_ids(ns)


def driver_statistics(e: DataFrame, ns: NodeSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node set's ids (sorted), degrees and ego densities, computed on the driver from the edges of
    ``e`` collected in one Spark job (:func:`driver_pairs`); ``ValueError`` for an endpoint that is null or
    outside the node set, naming neither.

    Equal to :func:`dpmo.graphs.spark.node_statistics` sorted by node (the same kernels as
    :func:`dpmo.graphs.degree` and :func:`dpmo.graphs.ego_density`). Cost: one pass over the edges in one
    Spark task; on the driver at most ``n (n + 1) / 2 + 2`` codes, then O(m sqrt(m)) for the ``m`` distinct
    edges.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.small import driver_statistics
    >>> from dpmo.graphs.spark.statistics import prepare
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame([(0, 1), (1, 2), (2, 0), (2, 3)], "a long, b long")
    >>> ids, degree, ego = driver_statistics(*prepare(edges, 5, "example"))
    >>> ids.tolist(), degree.tolist(), ego.tolist()
    ([0, 1, 2, 3, 4], [2, 2, 3, 1, 0], [1.0, 1.0, 0.3333333333333333, 0.0, 0.0])
    """
    ids, a, b = driver_pairs(e, ns)
    indptr, indices = csr_from_pairs(a, b, int(ns.n))
    degree = np.diff(indptr)
    ego = ego_density_from_counts(degree, csr_triangles(indptr, indices), 0.0, "paper")
    return ids, degree, ego


def _collected_ids(ns: NodeSet) -> np.ndarray:
    """The ids of a node set given as a DataFrame, sorted (public; at most ``SMALL_NODES``)."""
    ids = ns.frame.toArrow().column("node").to_numpy(zero_copy_only=False)
    return np.sort(ids.astype(str) if ids.dtype == object else ids.astype(np.int64))
