"""The released graph on Spark: :func:`dpmo.graphs.spark.top_k` with ``approach="chebyshev"`` at large
epsilon.

Where the public rule :func:`dpmo.graphs.pair_response.uses_released_graph` holds, ``dpmo.graphs.top_k(...,
approach="chebyshev")`` with the fixed graph settings releases the graph by randomized response on every node
pair and returns the settings' gated picks on it
(:func:`dpmo.graphs.chebyshev_fixed.released_chebyshev_picks`; ``docs/pareto.md``, "With public settings").
The Spark path does the same, so that its ``"chebyshev"`` keeps the in-memory call's law and is
Pareto-consistent at negligible noise:

* the flips are drawn on the driver (:func:`dpmo.graphs.pair_response.sample_flips`: they do not depend on
  the graph), as pair numbers of the positions in the sorted public node set;
* a **small** graph (:mod:`dpmo.graphs.spark.small`): its edges reach the driver in one job and the
  in-memory code runs there (:func:`dpmo.graphs.pair_response.released_statistics`), the same integers and
  floats, the same random words;
* otherwise the released graph is built on the executors (the distinct edge codes of
  :func:`dpmo.graphs.spark.small.edge_codes`, their symmetric difference with the flips' codes) and its
  statistics computed by :func:`dpmo.graphs.spark.statistics.statistics`; they reach the driver (``n <=
  DRIVER_MAX_NODES``, public), where the gated picks are computed.

Neighbouring relation: edge-level (graphs on the same public node set that differ in one pair). Privacy: the
release is epsilon-edge-DP (Warner's randomized response, ``docs/pareto.md``, "The released graph at large
epsilon"); the picks read the released graph only. One budget record, made by the caller.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...spark.session import sql_conf
from ..chebyshev_fixed import gated_chebyshev_picks, graph_chebyshev_settings
from ..csr import csr_from_pairs
from ..graph import Graph
from ..pair_response import pair_endpoints, released_statistics, sample_flips
from .inputs import NodeSet
from .small import NULL_CODE, OUTSIDE_CODE, driver_pairs, edge_codes, node_ids
from .statistics import edge_partitions, prepare, refuse_endpoint, statistics

__all__ = ["released_chebyshev_ids"]


def released_chebyshev_ids(
    e: DataFrame, ns: NodeSet, k: int, record, *, small: bool, sensitivity: str, rng, exact: bool
) -> list:
    """The ids of the fixed graph settings' gated picks on the released graph.

    ``record()`` spends the release's epsilon and returns the float it runs at; it is called once the edges
    have been read and checked (an endpoint outside the node set is refused before anything is spent) and
    before the flips are drawn. ``small``: the edges go to the driver
    (:func:`dpmo.graphs.spark.small.is_small`), else the released graph's statistics are computed on the
    executors. Either way the output has the law of ``dpmo.graphs.top_k(g, k, epsilon,
    approach="chebyshev", shares=graph_chebyshev_settings(n, k)[2])`` on the same graph (the same picks for
    the same ``rng``). Cost: the flips (O(n + flips) on the driver), one pass over the edges (small) or the
    statistics pipeline of the released graph, then the gated picks on the driver (O(k n) plus ``k``
    dampening loops).
    """
    n = int(ns.n)
    W, A, _ = graph_chebyshev_settings(n, k)
    if small:
        ids, a, b = driver_pairs(e, ns)  # the edges read and checked
        indptr, indices = csr_from_pairs(a, b, n)
        g = Graph._trusted(indptr, indices, np.arange(n, dtype=np.int64), True)
        degree, ego = released_statistics(g, record(), rng=rng, exact=exact)
    else:
        ids = node_ids(ns)
        # the distinct codes, kept on the executors (one read of the edges for the check and the join), with
        # the statistics pipeline's number of shuffle partitions (Spark's default, 200, costs seconds a stage)
        p = edge_partitions(e, ns)  # the released graph has about as many edges: m plus a few flips
        with sql_conf(e.sparkSession, {"spark.sql.shuffle.partitions": p}):
            codes = edge_codes(e, ns, None if ns.is_range else ids, one_partition=False)
            codes = codes.localCheckpoint(eager=True)
            worst = codes.agg(F.min("code").alias("worst")).first()["worst"]  # the flags are negative
            if worst is not None and worst < 0:
                refuse_endpoint(None if worst == NULL_CODE else OUTSIDE_CODE, ns)
            flips = sample_flips(n, record(), rng=rng, exact=exact)
            degree, ego = _executor_statistics(codes, n, flips, p)
    idx = gated_chebyshev_picks(degree, ego, k, W, A, sensitivity)
    return ids[idx].tolist()


def _executor_statistics(codes: DataFrame, n: int, flips: np.ndarray, partitions: int):
    """Degrees and ego densities (by position in the sorted node set) of the graph of the edge ``codes``
    (:func:`dpmo.graphs.spark.small.edge_codes`, checked) with the pairs numbered ``flips`` toggled, computed
    on the executors with ``partitions`` hash partitions."""
    edges = codes.where(F.expr(f"code div {n} != pmod(code, {n})")).select(F.col("code").alias("edge"))
    u, v = pair_endpoints(flips, n)
    # the flips' codes (at most a few million: the rule's MAX_FLIPS), through Arrow when Spark enables it
    toggled = codes.sparkSession.createDataFrame(pd.DataFrame({"flip": u * n + v}), "flip long")
    joined = edges.join(toggled, edges["edge"] == toggled["flip"], "full_outer")  # the symmetric difference
    released = joined.where(F.col("edge").isNull() | F.col("flip").isNull()).select(
        F.coalesce(F.col("edge"), F.col("flip")).alias("code")
    )
    pairs = released.select(F.expr(f"code div {n}").alias("u"), F.expr(f"pmod(code, {n})").alias("v"))
    # computed once (the pipeline reads its edges in several steps); the partitions given, not read from
    # Spark's size estimate of the join, which can be far off and make millions of tiny tasks
    e2, ns2 = prepare(pairs.localCheckpoint(eager=True), n, "top_k")
    table = statistics(e2, ns2, partitions=partitions)
    table = table.select("node", "degree", "ego_density").orderBy("node").toPandas()
    return table["degree"].to_numpy(np.int64), table["ego_density"].to_numpy()
