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

**The one job** (:func:`driver_statistics`): every partition of the edge table sends its distinct edges, as
pairs of positions in the sorted public node set (one int64 code ``a n + b``, ``a < b``; self-loops dropped,
duplicates and reverse edges merged), or one flag if an endpoint is null or outside the node set. So the
driver receives at most ``n (n - 1) / 2`` codes per partition, whatever the table holds (the table's rows,
when fewer), and nothing names the offending endpoint.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from ...spark.session import estimated_rows, worker_udfs
from ..centrality import csr_triangles, ego_density_from_counts
from ..csr import csr_from_pairs
from .inputs import NodeSet
from .statistics import refuse_endpoint

__all__ = [
    "NULL_CODE",
    "OUTSIDE_CODE",
    "SMALL_EDGES",
    "SMALL_NODES",
    "driver_statistics",
    "edge_codes",
    "is_small",
]

#: A graph is small when its node set admits at most this many edges, or Spark estimates its edge table at
#: most this many rows (and it has at most :data:`SMALL_NODES` nodes).
SMALL_EDGES = 1 << 16
#: Most nodes of a small graph (the driver holds O(n) arrays per call).
SMALL_NODES = 1 << 20
#: Flags of :func:`edge_codes`: an endpoint outside the node set, a null endpoint.
OUTSIDE_CODE, NULL_CODE = -1, -2

_CODES = T.StructType([T.StructField("code", T.LongType(), False)])


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


def edge_codes(batches, n: int, members):
    """mapInArrow over the edge table (columns ``u``, ``v``): this partition's distinct edges as codes ``a n
    + b`` of the positions ``a < b`` of their endpoints in the sorted node set (``members``, a pyarrow-able
    array of the sorted ids; None for the ids ``0 .. n-1``), sorted; or the one code :data:`NULL_CODE` or
    :data:`OUTSIDE_CODE` when an endpoint is null or outside the node set (the first found).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from dpmo.graphs.spark.small import edge_codes
    >>> batch = pa.record_batch({"u": [2, 0, 1, 1], "v": [0, 2, 1, 3]})
    >>> [b.column(0).to_pylist() for b in edge_codes([batch], 4, None)]  # (0, 2) once, no self-loop
    [[2, 7]]
    >>> names = pa.record_batch({"u": ["b", "x"], "v": ["a", "a"]})
    >>> [b.column(0).to_pylist() for b in edge_codes([names], 2, ["a", "b"])]  # "x" is not a node
    [[-1]]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    value_set = None if members is None else pa.array(members)
    found, flag = np.empty(0, np.int64), 0
    for batch in batches:  # read to the end, whatever was found
        if flag or batch.num_rows == 0:
            continue
        u, v = batch.column("u"), batch.column("v")
        if u.null_count or v.null_count:
            flag = NULL_CODE
            continue
        if value_set is None:
            a = u.to_numpy().astype(np.int64, copy=False)
            b = v.to_numpy().astype(np.int64, copy=False)
            if min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n:
                flag = OUTSIDE_CODE
                continue
        else:
            a, b = pc.index_in(u, value_set=value_set), pc.index_in(v, value_set=value_set)
            if a.null_count or b.null_count:
                flag = OUTSIDE_CODE
                continue
            a = a.to_numpy().astype(np.int64, copy=False)
            b = b.to_numpy().astype(np.int64, copy=False)
        low, high = np.minimum(a, b), np.maximum(a, b)
        keep = low != high
        found = np.union1d(found, low[keep] * n + high[keep])
    out = np.array([flag], np.int64) if flag else found
    yield pa.RecordBatch.from_arrays([pa.array(out, pa.int64())], names=["code"])


def driver_statistics(e: DataFrame, ns: NodeSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node set's ids (sorted), degrees and ego densities, computed on the driver from the edges of
    ``e`` collected in one Spark job (:func:`edge_codes`); ``ValueError`` for an endpoint that is null or
    outside the node set, naming neither.

    Equal to :func:`dpmo.graphs.spark.node_statistics` sorted by node (the same kernels as
    :func:`dpmo.graphs.degree` and :func:`dpmo.graphs.ego_density`). Cost: one pass over the edges on the
    executors; on the driver O(P n^2) codes at most for ``P`` partitions (the distinct edges of each), then
    O(m sqrt(m)) for the ``m`` distinct edges.

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
    n = int(ns.n)
    if ns.is_range:
        ids, members = np.arange(n, dtype=np.int64), None
    else:
        ids = ns.ids if ns.ids is not None else _collected_ids(ns)
        members = ids.tolist()
    with worker_udfs(e.sparkSession):
        frame = e.mapInArrow(partial(edge_codes, n=n, members=members), _CODES)
    codes = frame.toArrow().column("code").to_numpy()
    if codes.size and codes.min() < 0:
        refuse_endpoint(None if (codes == NULL_CODE).any() else OUTSIDE_CODE, ns)
    codes = np.unique(codes)
    indptr, indices = csr_from_pairs(codes // n, codes % n, n)
    degree = np.diff(indptr)
    ego = ego_density_from_counts(degree, csr_triangles(indptr, indices), 0.0, "paper")
    return ids, degree, ego


def _collected_ids(ns: NodeSet) -> np.ndarray:
    """The ids of a node set given as a DataFrame, sorted (public; at most ``SMALL_NODES``)."""
    ids = ns.frame.toArrow().column("node").to_numpy(zero_copy_only=False)
    return np.sort(ids.astype(str) if ids.dtype == object else ids.astype(np.int64))
