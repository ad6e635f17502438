"""The per-node scores of DP-MOTkIN on the executors: the graph's two objectives from a node's statistics.

A node's statistics become :func:`dpmo.graphs.statistics_objectives` (degree, sensitivity 1; ego density,
global 1, the tight admissible local function ``2 / (d - t)``), and their scores are the general ones of
:mod:`dpmo.spark.scores` (PrivAgg's weighted sum, or PrivChebyshev's round scores along the graph's public
directions and aspirations, :func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`), computed per
partition by the library's own functions. Local dampening is per candidate, so dampening a partition gives
every node the score it gets in the whole graph, up to the last bits of rounding
(``tests/test_graphs_spark.py`` compares the two).

The sensitivity handed to the mechanism is public (it depends on the weights and the objectives' global
sensitivities only); the driver obtains it from the same functions on a public one-node placeholder
(:func:`round_sensitivity`), never from the data.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from ...spark.noise import frame_ids
from ...spark.scores import SPARK_APPROACHES, ScoreSpec, candidate_scores
from ...spark.session import worker_udfs
from ..objectives import statistics_objectives

__all__ = [
    "ScoreSpec",
    "SPARK_APPROACHES",
    "round_sensitivity",
    "batch_scores",
    "score_batches",
    "score_frame",
]


def batch_scores(degree, ego_density, spec: ScoreSpec) -> tuple[np.ndarray, list[float]]:
    """``(scores of shape (columns, len), sensitivities)`` of the nodes with these statistics.

    :func:`dpmo.spark.scores.candidate_scores` on these nodes' objectives alone; O(len) plus the dampening.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from dpmo import graphs
    >>> from dpmo.graphs.spark.scores import ScoreSpec, batch_scores
    >>> g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    >>> scores, sens = batch_scores(g.degree, g.ego_density(), ScoreSpec("agg", "global", (1.0, 100.0)))
    >>> want, want_sens = graphs.selection_scores(g, approach="agg", sensitivity="global")
    >>> bool(np.array_equal(scores[0], want)), sens == [want_sens]
    (True, True)
    """
    return candidate_scores(statistics_objectives(np.asarray(degree, dtype=np.int64), ego_density), spec)


def round_sensitivity(spec: ScoreSpec) -> list[float]:
    """The public sensitivity of every score column: :func:`batch_scores` on a one-node placeholder (its
    values are never used; the sensitivities depend on the public settings only).

    Examples
    --------
    >>> from dpmo.graphs.spark.scores import ScoreSpec, round_sensitivity
    >>> round_sensitivity(ScoreSpec("agg", "global", (1.0, 100.0)))  # |w_1| + |w_2|
    [101.0]
    >>> round_sensitivity(ScoreSpec("agg", "local", (1.0, 100.0)))  # dampened scores
    [1.0]
    """
    return batch_scores(np.zeros(1, dtype=np.int64), np.zeros(1), spec)[1]


def score_batches(batches, spec: ScoreSpec):
    """mapInPandas over the node statistics: yields ``node, s0 .. s{R-1}`` for every batch.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.graphs.spark.scores import ScoreSpec, score_batches
    >>> batch = pd.DataFrame({"node": [7, 8], "degree": [3, 1], "ego_density": [1 / 3, 0.0]})
    >>> out = next(score_batches(iter([batch]), ScoreSpec("agg", "global", (1.0, 100.0))))
    >>> out.columns.tolist(), out["s0"].round(6).tolist()  # 1 * degree + 100 * ego density
    (['node', 's0'], [36.333333, 1.0])
    """
    for batch in batches:
        if len(batch) == 0:
            continue
        scores, _ = batch_scores(batch["degree"].to_numpy(), batch["ego_density"].to_numpy(), spec)
        out = {"node": frame_ids(batch["node"].to_numpy())}
        for j in range(scores.shape[0]):
            out[f"s{j}"] = scores[j]
        yield pd.DataFrame(out)


def score_frame(stats: DataFrame, spec: ScoreSpec) -> DataFrame:
    """The scores of every node (columns ``node, s0 .. s{R-1}``), computed on the executors from
    :func:`dpmo.graphs.spark.node_statistics` by :func:`score_batches` (lazy: nothing runs yet).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs.spark.scores import ScoreSpec, score_frame
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> stats = session.createDataFrame([(0, 2, 1, 1.0), (1, 1, 0, 0.0)], "node long, degree long, "
    ...                                 "triangles long, ego_density double")
    >>> score_frame(stats, ScoreSpec("agg", "global", (1.0, 100.0))).orderBy("node").toPandas()["s0"].tolist()
    [102.0, 1.0]
    """
    fields = [T.StructField("node", stats.schema["node"].dataType, False)]
    fields += [T.StructField(f"s{j}", T.DoubleType(), False) for j in range(spec.columns)]
    with worker_udfs(stats.sparkSession):
        return stats.mapInPandas(partial(score_batches, spec=spec), T.StructType(fields))
