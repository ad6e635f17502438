"""``chebyshev``'s Pareto gate on the executors: one pass per round, for tables of any size (issue 38).

A round of ``approach="chebyshev"`` whose noise is negligible adds the Pareto gate to its scores
(:func:`dpmo.chebyshev_gate.gated_scores`, ``docs/pareto.md``, "The Pareto gate"): ``G(r) = min(H(r), 2 - 2
Dm(r))``, ``Dm(r)`` whether another candidate dominates ``r`` and ``H(r)`` the escape from (or copy of) the
earlier picks. Both read other candidates, so these rounds cannot draw their noise from scores fixed in one
pass (:mod:`dpmo.spark.sampling`). :func:`gated_picks` runs them as the in-memory pipeline does, on a table
too large for the driver (above :data:`dpmo.spark.tables.DRIVER_MAX_ROWS` rows):

* ``Dm``: every partition keeps the candidates that no other candidate of the partition dominates (a
  candidate the whole table leaves undominated is among them); the driver reduces them to the table's
  non-dominated points ``F`` (:func:`front_points`), and a candidate is dominated exactly when a point of
  ``F`` dominates it (dominance is transitive and the table is finite);
* round ``j``: the picks so far (their values) and ``F`` go to the executors, which compute each remaining
  candidate's Chebyshev score plus ``gamma G`` (:func:`gated_score_batches`: the library's own
  functions); the round's noise is drawn from them as the sequential plan draws it
  (:class:`dpmo.spark.sampling.SparkSelection`), and its budget record is made on the driver right before.

Every public weight (``gamma``, the round's sensitivity ``S``) comes from ``n``, the round's epsilon and the
declarations (:func:`dpmo.chebyshev_gate.gate_weights`), never from the data; a round whose gate is off
samples its plain Chebyshev score with sensitivity 1, as in memory. The picks have the law of
:func:`dpmo.select_multiobjective` on the same rows. Cost: one pass for the fronts, then per round one pass of
scores, one of their best value, one of noise and one to read the pick's values; the driver holds the
non-dominated points of every partition (the table's front, and at most every row for a table with no
dominated row).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..chebyshev import AUGMENT, objective_scale
from ..chebyshev_gate import gate_weights, round_gate_parameters
from ..pareto.consistent import dominated_among, escape_or_copy
from .checks import column
from .noise import NOISE, Round, frame_ids, picks_by_round
from .sampling import SparkSelection
from .scores import ScoreSpec, candidate_scores, table_objectives
from .session import worker_udfs

__all__ = ["front_points", "gated_picks", "gated_score_batches", "reduce_front", "round_gates"]


def _declared(batch, objectives) -> np.ndarray:
    """The objectives' values as declared (``"min"`` columns negated), shape (m, rows)."""
    cols = {c: batch[c].to_numpy(dtype=np.float64) for c, _, _ in objectives}
    return np.stack([o.values for o in table_objectives(cols, objectives)])


def _front_batches(batches, objectives):
    """mapInPandas: the declared values of the partition's candidates that no other of the partition
    dominates (each batch's front merged into the partition's, so the driver gets one front per
    partition)."""
    front = None
    for batch in batches:
        if len(batch) == 0:
            continue
        W = _declared(batch, objectives)
        W = W[:, ~dominated_among(W)]  # the batch's front, then merged with the partition's so far
        front = reduce_front(W if front is None else np.concatenate([front, W], axis=1))
    if front is not None:
        yield pd.DataFrame({f"w{i}": front[i] for i in range(front.shape[0])})


def front_points(frame: DataFrame, objectives) -> np.ndarray:
    """The table's non-dominated points, values as declared, shape (m, f) (duplicates kept once): every
    partition's own front on the executors, reduced on the driver. O(rows log^(m - 1) rows) on the
    executors.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.gated import front_points
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> df = session.createDataFrame([(3.0, 1.0), (1.0, 3.0), (1.0, 1.0), (2.0, 2.0)], "a double, b double")
    >>> front_points(df, [("a", 1.0, "max"), ("b", 1.0, "min")]).tolist()  # b minimised: (3, -1) leads
    [[3.0], [-1.0]]
    """
    m = len(objectives)
    schema = T.StructType([T.StructField(f"w{i}", T.DoubleType(), False) for i in range(m)])
    with worker_udfs(frame.sparkSession):
        rows = frame.mapInPandas(partial(_front_batches, objectives=list(objectives)), schema).toPandas()
    return reduce_front(rows[[f"w{i}" for i in range(m)]].to_numpy(dtype=np.float64).T.reshape(m, -1))


def reduce_front(P) -> np.ndarray:
    """The distinct non-dominated columns of ``P`` (shape (m, q), maximised): the driver's step of
    :func:`front_points`, from the partitions' fronts. O(q log^(m - 1) q).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.gated import reduce_front
    >>> reduce_front(np.array([[3.0, 3.0, 2.0, 0.0], [1.0, 1.0, 1.0, 2.0]])).tolist()
    [[0.0, 3.0], [2.0, 1.0]]
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or not np.isfinite(P).all():
        raise ValueError(f"P must be a finite 2-D array (objectives x points), got shape {P.shape}")
    if P.shape[1] == 0:
        return P
    P = np.unique(P, axis=1)
    return P[:, ~dominated_among(P)]


def round_gates(objectives, spec: ScoreSpec, n: int, k: int, epsilons) -> list[tuple[float, float] | None]:
    """``(gamma, S)`` of every round, or None where its gate is off: the in-memory rounds' public weights
    (:func:`dpmo.chebyshev_gate.round_gate_parameters`, :func:`dpmo.chebyshev_gate.gate_weights`) with
    ``n - j`` candidates left in round ``j`` at its float epsilon. Public: the declarations (``objectives``:
    ``(column, sensitivity, direction)``), the directions, ``n``, ``k`` and the epsilons. O(k m).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.gated import round_gates
    >>> from dpmo.spark.scores import ScoreSpec
    >>> spec = ScoreSpec("chebyshev", "global", None, np.ones((2, 2)), np.zeros((2, 2)))
    >>> [g is None for g in round_gates([("a", 1.0, "max"), ("b", 1.0, "max")], spec, 400, 2, [1.0, 1e6])]
    [True, False]
    """
    if len(epsilons) < k or len(spec.directions) < k:
        raise ValueError(f"epsilons and spec.directions need one entry per round (k = {k})")
    placeholder = table_objectives({c: np.zeros(1) for c, _, _ in objectives}, objectives)
    d = np.array([float(o.global_sensitivity) / objective_scale(o)[1] for o in placeholder])
    out = []
    for j in range(k):
        _, e, S_c, span = round_gate_parameters(spec.directions[j], d, False, AUGMENT)
        out.append(gate_weights(n - j, float(epsilons[j]), S_c, span, e))
    return out


def gated_score_batches(batches, key: str, objectives, spec: ScoreSpec, j: int, picks, picked, front, gamma):
    """mapInPandas: ``key, s0`` for the candidates not yet picked (their ids not in ``picked``), ``s0``
    round ``j``'s Chebyshev score (:func:`dpmo.spark.scores.candidate_scores`) plus ``gamma G`` (``gamma``
    None: the score alone). ``G = min(H, 2 - 2 Dm)`` (``1 - Dm`` in round 1): ``Dm`` 1 when a point of
    ``front`` (:func:`front_points`) dominates the candidate, ``H`` its escape from the ``picks`` (declared
    values, shape (m, j): :func:`dpmo.pareto.consistent.escape_or_copy`). O(rows (m + f log f + j m)).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dpmo.spark.gated import gated_score_batches
    >>> from dpmo.spark.scores import ScoreSpec
    >>> spec = ScoreSpec("chebyshev", "global", None, np.ones((1, 2)), np.zeros((1, 2)))
    >>> batch = pd.DataFrame({"id": [1, 2, 3], "a": [2.0, 1.0, 0.0], "b": [2.0, 1.0, 3.0]})
    >>> objs = [("a", 1.0, "max"), ("b", 1.0, "max")]
    >>> front = np.array([[2.0, 0.0], [2.0, 3.0]])
    >>> out = next(gated_score_batches(iter([batch]), "id", objs, spec, 0, np.zeros((2, 0)), [], front, 10.0))
    >>> (out["s0"] - next(gated_score_batches(iter([batch]), "id", objs, spec, 0, np.zeros((2, 0)), [],
    ...  front, None))["s0"]).tolist()  # (1, 1) is dominated: no gate term
    [10.0, 0.0, 10.0]
    """
    one = ScoreSpec(spec.approach, spec.sensitivity, None, spec.directions[j : j + 1],
                    spec.aspirations[j : j + 1])  # fmt: skip
    taken = set(picked)
    for batch in batches:
        if len(batch) == 0:
            continue
        ids = batch[key].to_numpy()
        if taken:
            batch = batch[~np.isin(ids, np.asarray(list(taken), dtype=ids.dtype))]
            ids = batch[key].to_numpy()
            if len(batch) == 0:
                continue
        cols = {c: batch[c].to_numpy(dtype=np.float64) for c, _, _ in objectives}
        objs = table_objectives(cols, objectives)
        s = candidate_scores(objs, one)[0][0]
        if gamma is not None:
            W = np.stack([o.values for o in objs])  # as declared: the values the scores were made from
            dm = dominated_among(np.concatenate([front, W], axis=1))[front.shape[1] :]
            G = 1.0 - dm.astype(np.float64)
            if picks.shape[1]:
                G = np.minimum(2.0 * G, escape_or_copy(picks, W))
            s = s + float(gamma) * G
        yield pd.DataFrame({key: frame_ids(ids), "s0": s})


def _pick_values(frame: DataFrame, key: str, objectives, pick) -> np.ndarray:
    """The declared values of the picked row, shape (m, 1) (one filtered read)."""
    row = frame.filter(column(key) == F.lit(pick)).select(*[c for c, _, _ in objectives]).toPandas()
    return _declared(row, objectives)[:, :1]


def gated_picks(frame, key: str, objectives, spec: ScoreSpec, n: int, k: int, rounds, gates, *,
                mechanism: str, entropy, before, trials: int = 1) -> list[list]:  # fmt: skip
    """The ``k`` picks of each of ``trials`` draws, one round at a time (module notes). ``frame``: the ids
    (column ``key``) and the objective columns; ``rounds``: :func:`dpmo.spark.sampling.executor_rounds`
    (every round's float epsilon and plain sensitivity); ``gates``: :func:`round_gates`; ``before(j)``: round
    ``j``'s budget record, made right before its noise is drawn (or its only candidate taken). Every round of
    every draw has its own seeds (``entropy`` extended by the draw and the round).
    """
    front = front_points(frame, objectives)
    m = len(objectives)
    schema = T.StructType([T.StructField(key, frame.schema[key].dataType, False),
                           T.StructField("s0", T.DoubleType(), False)])  # fmt: skip
    out = []
    for t in range(trials):
        picked: list = []
        values = np.zeros((m, 0))
        for j in range(k):
            if n - j == 1:  # the only candidate left: no data used (as in memory)
                before(j)
                left = frame.filter(~column(key).isin(picked)).select(key).first()[0]
                picked.append(left.item() if hasattr(left, "item") else left)
                continue
            gate = gates[j]
            fn = partial(gated_score_batches, key=key, objectives=list(objectives), spec=spec, j=j,
                         picks=values, picked=list(picked), front=front,
                         gamma=None if gate is None else gate[0])  # fmt: skip
            with worker_udfs(frame.sparkSession):
                scores = frame.mapInPandas(fn, schema)
            sel = SparkSelection(scores, [*entropy, t, j])
            try:
                top = sel.top_values(1)[0][0]
                eps, sens = rounds[j][1], (rounds[j][2] if gate is None else gate[1])
                before(j)
                rows = sel.draw([Round(0, eps, sens, float(top[0]), 1)], NOISE[mechanism], 1)
            finally:
                sel.close()
            pick = picks_by_round(rows, 1, 1)[0][0]
            picked.append(pick)
            values = np.concatenate([values, _pick_values(frame, key, objectives, pick)], axis=1)
        out.append(picked)
    return out
