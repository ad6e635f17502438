"""The scores each round of a private selection samples from, computed per partition on the executors.

The approaches whose score of a node depends on that node's statistics only run here: PrivAgg
(``approach="agg"``, one score for all rounds) and PrivChebyshev (``approach="chebyshev"``, one score per
round along the round's public direction). A partition's nodes go through the library's own functions,
exactly as the in-memory pipeline (:func:`dpmo.select_multiobjective`) runs them on the whole graph:

* :func:`dpmo.graphs.statistics_objectives`: degree (sensitivity 1) and ego density (global 1, the tight
  admissible local function ``2 / (d - t)``);
* ``"agg"``: the scores of the pipeline's PrivAgg rounds (:class:`dpmo.aggregate.AggregateApproach`: the
  weighted sum with ``sum |w_i|`` as sensitivity, or its local dampening with sensitivity 1, with the
  public scaling of weights whose sensitivity overflows), as :func:`dpmo.select_multiobjective` asks for
  them;
* ``"chebyshev"``: :func:`dpmo.chebyshev.chebyshev_selection_scores` with the round's public direction and
  aspiration (:func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`), sensitivity 1.

Local dampening (:func:`dpmo.dampen`) is per candidate: ``D(x, r)`` depends on ``u(x, r)`` and
``delta(x, t, r)`` only, so dampening a partition gives each node the score it gets in the whole graph, up
to the last bits of rounding (the dampening loop sums a candidate's breakpoints in blocks whose sizes depend
on how many candidates are still unbracketed; ``tests/test_graphs_spark.py`` compares the two).

The sensitivity handed to the mechanism is public (it depends on the weights and the objectives' global
sensitivities only); the driver obtains it from the same functions on a public one-node placeholder
(:func:`round_sensitivity`), never from the data.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ...chebyshev import chebyshev_selection_scores
from ...selection import get_approach
from ..objectives import statistics_objectives

__all__ = ["ScoreSpec", "SPARK_APPROACHES", "round_sensitivity", "batch_scores", "score_batches"]

#: Approaches whose scores the executors compute (the others run on the driver).
SPARK_APPROACHES = ("agg", "chebyshev")


class ScoreSpec(NamedTuple):
    """Public settings of the scores: the approach, ``"local"``/``"global"``, the weights (agg) and the
    per-round directions and aspirations (chebyshev; ``(R, 2)`` arrays, one row per score column).

    Examples
    --------
    >>> from dpmo.graphs.spark.scores import ScoreSpec
    >>> ScoreSpec("agg", "local", (1.0, 100.0)).columns
    1
    """

    approach: str
    sensitivity: str
    weights: tuple[float, float] | None = None
    directions: np.ndarray | None = None
    aspirations: np.ndarray | None = None

    @property
    def columns(self) -> int:
        """Number of score columns: 1 for agg (every round), one per round for chebyshev."""
        return 1 if self.approach == "agg" else len(self.directions)


def batch_scores(degree, ego_density, spec: ScoreSpec) -> tuple[np.ndarray, list[float]]:
    """``(scores of shape (columns, len), sensitivities)`` of the nodes with these statistics.

    The library's functions on these nodes alone (module notes); O(len) plus the dampening.

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
    objs = statistics_objectives(np.asarray(degree, dtype=np.int64), ego_density)
    if spec.approach == "agg":  # the pipeline's first (and only) score vector of PrivAgg
        appr = get_approach("agg")
        rounds = appr.rounds(objs, appr.check_weights(spec.weights, len(objs)), spec.sensitivity, None)
        scores, sens = rounds.scores([], np.arange(len(objs[0].values), dtype=np.intp))
        return np.asarray(scores, dtype=np.float64)[None, :], [float(sens)]
    rows, sens = [], []
    for w, a in zip(spec.directions, spec.aspirations, strict=True):
        s, d = chebyshev_selection_scores(objs, w, a, spec.sensitivity)
        rows.append(np.asarray(s, dtype=np.float64))
        sens.append(float(d))
    return np.stack(rows), sens


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
        out = {"node": batch["node"].to_numpy()}
        for j in range(scores.shape[0]):
            out[f"s{j}"] = scores[j]
        yield pd.DataFrame(out)
