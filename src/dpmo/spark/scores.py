"""The scores each round of a private selection samples from, computed per partition on the executors.

The approaches whose score of a candidate depends on that candidate's own objective values only run on
the executors: PrivAgg (``approach="agg"``, one score for all rounds) and PrivChebyshev
(``approach="chebyshev"``, one score per round along the round's public direction). A partition's
candidates go through the library's own functions, exactly as the in-memory pipeline
(:func:`dpmo.select_multiobjective`) runs them on all candidates:

* ``"agg"``: the scores of the pipeline's PrivAgg rounds (:class:`dpmo.aggregate.AggregateApproach`: the
  weighted sum with ``sum |w_i| Delta u_i`` as sensitivity, or its local dampening with sensitivity 1,
  with the public scaling of weights whose sensitivity overflows), as the pipeline asks for them;
* ``"chebyshev"``: :func:`dpmo.chebyshev.chebyshev_selection_scores` with the round's public direction and
  aspiration, sensitivity 1.

Local dampening (:func:`dpmo.dampen`) is per candidate: ``D(x, r)`` depends on ``u(x, r)`` and
``delta(x, t, r)`` only, so dampening a partition gives each candidate the score it gets among all of
them, up to the last bits of rounding (the dampening loop sums a candidate's breakpoints in blocks whose
sizes depend on how many candidates are still unbracketed); with the global sensitivity alone (a
candidate table) it is ``u / Delta u``, the same float.

The sensitivity handed to the mechanism is public (it depends on the weights and the objectives' global
sensitivities only); the driver obtains it from the same functions on a public one-candidate placeholder,
never from the data.

This module is shared by :func:`dpmo.spark.select` (:func:`table_score_batches`) and
:mod:`dpmo.graphs.spark` (its node statistics become the two graph objectives first).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..chebyshev import chebyshev_selection_scores
from ..selection import get_approach
from ..sensitivity import Objective
from .noise import frame_ids

__all__ = [
    "SPARK_APPROACHES",
    "ScoreSpec",
    "candidate_scores",
    "table_objectives",
    "table_sensitivities",
    "table_score_batches",
]

#: Approaches whose scores the executors compute (the others run on the driver).
SPARK_APPROACHES = ("agg", "chebyshev")


class ScoreSpec(NamedTuple):
    """Public settings of the scores: the approach, ``"local"``/``"global"``, the weights (agg) and the
    per-round directions and aspirations (chebyshev; ``(R, m)`` arrays, one row per score column).

    Examples
    --------
    >>> from dpmo.spark.scores import ScoreSpec
    >>> ScoreSpec("agg", "local", (1.0, 100.0)).columns
    1
    """

    approach: str
    sensitivity: str
    weights: tuple[float, ...] | None = None
    directions: np.ndarray | None = None
    aspirations: np.ndarray | None = None

    @property
    def columns(self) -> int:
        """Number of score columns: 1 for agg (every round), one per round for chebyshev."""
        return 1 if self.approach == "agg" else len(self.directions)


def candidate_scores(objectives: list[Objective], spec: ScoreSpec) -> tuple[np.ndarray, list[float]]:
    """``(scores of shape (columns, n), sensitivities)`` of the candidates of these objectives.

    The library's functions on these candidates alone (module notes); O(n m) plus the dampening.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> from dpmo.spark.scores import ScoreSpec, candidate_scores
    >>> objs = [dpmo.Objective([3.0, 1.0], 1.0), dpmo.Objective([0.5, 2.0], 2.0)]
    >>> scores, sens = candidate_scores(objs, ScoreSpec("agg", "global", (1.0, 2.0)))
    >>> scores.tolist(), sens  # 1 * a + 2 * b, sensitivity 1 * 1 + 2 * 2
    ([[4.0, 5.0]], [5.0])
    """
    if spec.approach == "agg":  # the pipeline's first (and only) score vector of PrivAgg
        appr = get_approach("agg")
        rounds = appr.rounds(
            objectives, appr.check_weights(spec.weights, len(objectives)), spec.sensitivity, None
        )
        scores, sens = rounds.scores([], np.arange(objectives[0].n, dtype=np.intp))
        return np.asarray(scores, dtype=np.float64)[None, :], [float(sens)]
    rows, sens = [], []
    for w, a in zip(spec.directions, spec.aspirations, strict=True):
        s, d = chebyshev_selection_scores(objectives, w, a, spec.sensitivity)
        rows.append(np.asarray(s, dtype=np.float64))
        sens.append(float(d))
    return np.stack(rows), sens


def table_objectives(columns: dict[str, np.ndarray], objectives) -> list[Objective]:
    """The objectives ``dpmo select`` builds from a candidate table: column ``c`` with its declared global
    sensitivity, negated for a ``"min"`` column (the sensitivity is unchanged).

    ``objectives`` is a sequence of ``(column, sensitivity, direction)``; ``columns`` maps a column name to
    its float values.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.scores import table_objectives
    >>> objs = table_objectives({"a": np.array([1.0, 2.0])}, [("a", 0.5, "min")])
    >>> objs[0].values.tolist(), objs[0].global_sensitivity, objs[0].name
    ([-1.0, -2.0], 0.5, 'a')
    """
    return [
        Objective(-columns[c] if direction == "min" else columns[c], sens, name=c)
        for c, sens, direction in objectives
    ]


def table_sensitivities(objectives, spec: ScoreSpec) -> list[float]:
    """The public sensitivity of every score column: :func:`candidate_scores` on a one-candidate
    placeholder of zeros with the declared sensitivities (its scores are never used).

    Examples
    --------
    >>> from dpmo.spark.scores import ScoreSpec, table_sensitivities
    >>> table_sensitivities([("a", 1.0, "max"), ("b", 2.0, "min")], ScoreSpec("agg", "global", (1.0, -3.0)))
    [7.0]
    """
    zeros = {c: np.zeros(1) for c, _, _ in objectives}
    return candidate_scores(table_objectives(zeros, objectives), spec)[1]


def table_score_batches(batches, key: str, objectives, spec: ScoreSpec):
    """mapInPandas over a candidate table (the id column ``key`` and one float column per objective, named
    as the objective): yields ``key, s0 .. s{R-1}`` for every batch.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.spark.scores import ScoreSpec, table_score_batches
    >>> batch = pd.DataFrame({"id": [7, 8], "a": [3.0, 1.0], "b": [1.0, 4.0]})
    >>> spec = ScoreSpec("agg", "global", (1.0, 1.0))
    >>> out = next(table_score_batches(iter([batch]), "id", [("a", 1.0, "max"), ("b", 1.0, "min")], spec))
    >>> out.columns.tolist(), out["s0"].tolist()  # a - b
    (['id', 's0'], [2.0, -3.0])
    """
    for batch in batches:
        if len(batch) == 0:
            continue
        cols = {c: batch[c].to_numpy(dtype=np.float64) for c, _, _ in objectives}
        scores, _ = candidate_scores(table_objectives(cols, objectives), spec)
        out = {key: frame_ids(batch[key].to_numpy())}
        for j in range(scores.shape[0]):
            out[f"s{j}"] = scores[j]
        yield pd.DataFrame(out)
