"""The Spark passes of a private selection: persisted scores, their best values, and the noisy picks.

Shared by :func:`dpmo.spark.select` (candidate tables) and :func:`dpmo.graphs.spark.top_k` (graphs): both
compute one score column per distinct round on the executors (:mod:`dpmo.spark.scores`), then
:func:`private_picks` makes the ``k`` picks.

:class:`SparkSelection` holds the per-candidate scores of one selection (a DataFrame with the candidates'
ids in its first column and the score columns ``s0, s1, ...``, persisted) and runs the passes over them:

* :meth:`SparkSelection.top_values`: the largest scores of every column (with their ids), to place the
  log-weights and to decide, as :func:`dpmo.select` does, whether one pass is numerically safe;
* :meth:`SparkSelection.draw`: one pass of noise (:func:`dpmo.spark.noise.batch_candidates` on every
  partition), returning the candidates the driver merges.

:func:`run_plan` turns them into the ``k`` picks with one of three plans (:func:`plan_rounds`):
``"one_shot"`` (Gumbel top-k, one noise per candidate), ``"rounds"`` (one pass, one independent noise per
candidate and round) or ``"sequential"`` (one pass per round, log-weights relative to the best remaining
score, as the float samplers of :mod:`dpmo.mechanisms`). :func:`round_recorder` makes the budget records,
on the driver, right before the executors are asked to draw the noise they pay for.

Randomness: the driver fixes one 128-bit root per call (:func:`driver_entropy`: from the operating
system's secure source, or from ``rng`` when the caller gave one, for tests), and every partition of every
pass draws from ``SeedSequence(root, spawn_key=(pass, partition))`` (PCG64), over its rows sorted by id.
So a task that Spark retries, or runs twice speculatively, draws exactly the noise of its first attempt:
whichever attempt's result the driver reads, the values are the same, and no budget is spent by a task
(the budget never leaves the driver).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd
from pyspark import StorageLevel, TaskContext
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from ..epsilons import float_at_most
from ..mechanisms import needs_rounds
from .noise import NOISE, Round, batch_candidates, best_rows, frame_ids, picks_by_round, picks_one_shot
from .session import worker_udfs

__all__ = [
    "ROUNDS_MAX_K",
    "Plan",
    "SparkSelection",
    "driver_entropy",
    "executor_rounds",
    "plan_rounds",
    "private_picks",
    "round_recorder",
    "run_plan",
]

#: Largest ``k`` of the one-pass per-round plan, whose partitions send ``k (k + 1) / 2`` candidates each; a
#: larger (public) ``k`` takes the sequential plan (one pass per round, one candidate per partition).
ROUNDS_MAX_K = 100


class Plan(NamedTuple):
    """How the ``k`` picks are drawn: ``mode`` and, per round, ``(column, epsilon, sensitivity)``.

    Examples
    --------
    >>> from dpmo.spark.sampling import Plan
    >>> Plan("one_shot", [(0, 0.25, 1.0)] * 2, "exponential").mode
    'one_shot'
    """

    mode: str
    rounds: list[tuple[int, float, float]]
    mechanism: str


def plan_rounds(static: bool, mechanism: str, rounds, k: int, tops) -> Plan:
    """The plan of the ``k`` picks: ``rounds`` are the public ``(column, epsilon, sensitivity)`` of every
    round, ``tops`` the best scores of every column (at least ``j + 1`` values of round ``j``'s column).

    One pass is used when :func:`dpmo.select` would sample at once (no round's candidates have log-weights
    below ``-2^32`` relative to the column's best, :func:`dpmo.mechanisms.needs_rounds`); a static
    approach with the exponential mechanism then takes the Gumbel top-k (one noise per candidate), the
    others one noise per candidate and round (for ``k <= ROUNDS_MAX_K``). Otherwise one pass per round,
    relative to the best remaining score.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.sampling import plan_rounds
    >>> tops = [(np.array([9.0, 8.0]), np.array([4, 2]))]  # the best scores of the one column
    >>> plan_rounds(True, "exponential", [(0, 0.5, 1.0)] * 2, 2, tops).mode
    'one_shot'
    >>> plan_rounds(True, "permute_and_flip", [(0, 0.5, 1.0)] * 2, 2, tops).mode
    'rounds'
    >>> plan_rounds(True, "exponential", [(0, 1e300, 1.0)] * 2, 2, tops).mode  # log-weight gap 5e299
    'sequential'
    >>> many = [(np.arange(200.0)[::-1], np.arange(200))]  # k = 101 > ROUNDS_MAX_K picks
    >>> plan_rounds(True, "laplace", [(0, 0.01, 1.0)] * 101, 101, many).mode
    'sequential'
    """
    safe = all(
        not needs_rounds(np.asarray(tops[c][0][: j + 1]), e, s, j + 1) for j, (c, e, s) in enumerate(rounds)
    )
    if not safe:
        return Plan("sequential", list(rounds), mechanism)
    if static and mechanism in ("exponential", "gumbel"):
        return Plan("one_shot", list(rounds), mechanism)
    return Plan("rounds" if k <= ROUNDS_MAX_K else "sequential", list(rounds), mechanism)


def executor_rounds(static: bool, total, parts, k: int, sensitivities) -> list[tuple[int, float, float]]:
    """The public ``(column, epsilon, sensitivity)`` of every round: each round's float is the largest not
    above its exact share (:func:`dpmo.epsilons.float_at_most`), as the budget returns it and
    :func:`dpmo.select` uses it; a static approach samples every round from column 0.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.spark.sampling import executor_rounds
    >>> executor_rounds(True, Fraction(1), [Fraction(1, 2)] * 2, 2, [3.0])
    [(0, 0.5, 3.0), (0, 0.5, 3.0)]
    """
    if static:
        return [(0, float_at_most(total / k), float(sensitivities[0]))] * k
    return [(j, float_at_most(parts[j]), float(sensitivities[j])) for j in range(k)]


def driver_entropy(rng) -> list[int]:
    """The root of every partition's seed, fixed on the driver: 128 bits from ``rng`` (a Generator, for
    tests) or, for ``rng`` None, from the operating system's secure source (:class:`numpy.random.SeedSequence`
    without entropy reads it).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.sampling import driver_entropy
    >>> driver_entropy(np.random.default_rng(0)) == driver_entropy(np.random.default_rng(0))
    True
    >>> len(driver_entropy(None))
    4
    """
    if rng is None:
        root = int(np.random.SeedSequence().entropy)
        return [(root >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    return [int(x) for x in rng.integers(0, 2**32, size=4)]


def _partition_rng(entropy, pass_id: int) -> np.random.Generator:
    pid = TaskContext.get().partitionId()
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(pass_id, pid)))


def _top_batches(batches, keep: list[int], key: str):
    """mapInPandas: the ``keep[j]`` largest scores of every column ``j`` in this partition."""
    parts = []
    for batch in batches:
        for j, k in enumerate(keep):
            s = batch[f"s{j}"].to_numpy()
            best = np.argpartition(-s, k - 1)[:k] if k < s.size else np.arange(s.size)
            ids = frame_ids(batch[key].to_numpy()[best])
            parts.append(pd.DataFrame({"column": j, "id": ids, "value": s[best]}))
    if parts:
        rows = pd.concat(parts, ignore_index=True).sort_values(["column", "value"], ascending=[True, False])
        rank = rows.groupby("column", sort=False).cumcount().to_numpy()
        yield rows[rank < np.asarray(keep)[rows["column"].to_numpy()]]


def _noise_batches(batches, rounds, noise, trials, exclude, entropy, pass_id, columns, key):
    """mapInPandas: this partition's best noisy values of every round and trial."""
    rng = _partition_rng(entropy, pass_id)
    keep = [r.keep for r in rounds]
    found = []
    for batch in batches:
        if len(batch) == 0:
            continue
        ids = batch[key].to_numpy()
        scores = np.stack([batch[f"s{j}"].to_numpy() for j in range(columns)])
        rows = batch_candidates(ids, scores, rounds, noise, rng, trials, exclude)
        found.append(best_rows(rows, keep))
    if found:
        yield best_rows(pd.concat(found, ignore_index=True), keep)


class SparkSelection:
    """The persisted scores of one selection and the passes over them (call :meth:`close` when done).

    Parameters
    ----------
    scores : pyspark.sql.DataFrame
        The candidates' ids (first column, unique) and their score columns ``s0, s1, ...`` (doubles).
    entropy : list of int
        The root of the per-partition seeds (:func:`driver_entropy`).

    Notes
    -----
    The rows are sorted by id within their partitions and persisted, so every pass (and every retry of a
    task) sees the same rows in the same order.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.sampling import SparkSelection
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> scores = session.createDataFrame([(i, float(i % 5)) for i in range(10)], "id long, s0 double")
    >>> sel = SparkSelection(scores, entropy=[1, 2, 3, 4])
    >>> values, ids = sel.top_values(3)[0]  # the three largest scores, 4.0 (ids 4 and 9) then 3.0
    >>> sel.close()
    >>> values.tolist(), sorted(ids[:2].tolist())
    ([4.0, 4.0, 3.0], [4, 9])
    """

    def __init__(self, scores: DataFrame, entropy):
        self.key = scores.columns[0]
        self.columns = len(scores.columns) - 1
        self.entropy = list(entropy)
        self.key_type = scores.schema[self.key].dataType
        # the same rows in the same order in every pass and every attempt of a task
        self.scores = scores.sortWithinPartitions(self.key).persist(StorageLevel.MEMORY_AND_DISK)
        self._passes = 0

    def close(self) -> None:
        self.scores.unpersist()

    def top_values(self, keep) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per column ``j``, the ``keep[j]`` largest scores (descending) and their ids (``keep``: one int
        per column, or one int for all)."""
        keep = [int(keep)] * self.columns if np.ndim(keep) == 0 else [int(x) for x in keep]
        schema = T.StructType(
            [
                T.StructField("column", T.LongType(), False),
                T.StructField("id", self.key_type, False),
                T.StructField("value", T.DoubleType(), False),
            ]
        )
        with worker_udfs(self.scores.sparkSession):
            rows = self.scores.mapInPandas(partial(_top_batches, keep=keep, key=self.key), schema)
        rows = rows.toPandas()
        out = []
        for j in range(self.columns):
            mine = rows[rows["column"] == j].sort_values("value", ascending=False, kind="stable")
            mine = mine.head(keep[j])
            out.append((mine["value"].to_numpy(), mine["id"].to_numpy()))
        return out

    def draw(self, rounds: list[Round], noise: str, trials: int = 1, exclude=None) -> pd.DataFrame:
        """One pass: the candidates (``trial, round, id, z``) of every partition, merged per round.
        ``exclude``: per trial, the ids out of play."""
        self._passes += 1
        schema = T.StructType(
            [
                T.StructField("trial", T.LongType(), False),
                T.StructField("round", T.LongType(), False),
                T.StructField("id", self.key_type, False),
                T.StructField("z", T.DoubleType(), False),
            ]
        )
        fn = partial(
            _noise_batches,
            rounds=list(rounds),
            noise=noise,
            trials=int(trials),
            exclude=None if exclude is None else [list(x) for x in exclude],
            entropy=self.entropy,
            pass_id=self._passes,
            columns=self.columns,
            key=self.key,
        )
        with worker_udfs(self.scores.sparkSession):
            rows = self.scores.mapInPandas(fn, schema)
        rows = rows.toPandas()
        return best_rows(rows, [r.keep for r in rounds])


def run_plan(sel: SparkSelection, plan: Plan, k: int, tops, *, trials: int = 1, before=None) -> list[list]:
    """The ``k`` picks of each trial under ``plan``; ``before(j)`` is called right before round ``j`` is
    sampled (all rounds before the one pass of ``"one_shot"`` and ``"rounds"``): the budget records.

    ``tops`` is :meth:`SparkSelection.top_values` with at least ``j + 1`` values of round ``j``'s column.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.sampling import Plan, SparkSelection, run_plan
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> scores = session.createDataFrame([(i, float(i)) for i in range(8)], "id long, s0 double")
    >>> sel = SparkSelection(scores, entropy=[0, 0, 0, 1])
    >>> plan = Plan("one_shot", [(0, 0.5, 1.0)] * 2, "exponential")
    >>> picks = run_plan(sel, plan, 2, sel.top_values(2), trials=3, before=print)  # 3 independent draws
    0
    1
    >>> sel.close()
    >>> [len(set(p)) for p in picks]
    [2, 2, 2]
    """
    noise = NOISE[plan.mechanism]

    def announce(rounds):
        if before is not None:
            for j in rounds:
                before(j)

    if plan.mode == "one_shot":
        column, eps, sens = plan.rounds[0]
        announce(range(k))
        rows = sel.draw([Round(column, eps, sens, float(tops[column][0][0]), k)], noise, trials)
        return picks_one_shot(rows, k, trials)
    if plan.mode == "rounds":
        rounds = [Round(c, e, s, float(tops[c][0][0]), j + 1) for j, (c, e, s) in enumerate(plan.rounds)]
        announce(range(k))
        return picks_by_round(sel.draw(rounds, noise, trials), k, trials)
    if plan.mode != "sequential":
        raise ValueError(f"unknown plan {plan.mode!r}")
    chosen: list[list] = [[] for _ in range(trials)]
    for j, (c, e, s) in enumerate(plan.rounds):
        values, ids = tops[c]
        top = np.empty(trials)
        for t, mine in enumerate(chosen):  # the best score still in play (at most j taken of the k listed)
            free = ~np.isin(ids, np.asarray(mine, dtype=ids.dtype)) if mine else np.ones(ids.size, bool)
            top[t] = values[np.flatnonzero(free)[0]]
        announce([j])
        rows = sel.draw([Round(c, e, s, top, 1)], noise, trials, exclude=chosen if j else None)
        chosen = picks_by_round(rows, 1, trials, chosen)
    return chosen


def round_recorder(
    budget,
    *,
    total,
    parts,
    k: int,
    n: int,
    static: bool,
    mechanism: str,
    sensitivities,
    label: str,
    score_name,
    trials: int = 1,
):
    """``before(j)``: the budget record(s) of round ``j``, as :func:`dpmo.select_multiobjective` makes them.

    A static approach: all ``k`` records of ``total / k`` before round 0 (the rounds are sampled together),
    labelled ``f"{label} ({score_name(0)})"`` and the round (:meth:`dpmo.Budget.spend_rounds`); otherwise
    one record of ``parts[j]`` per round, ``f"{label}: round {j + 1} of {k} ({score_name(j)})"`` (or "one
    candidate left, no data used" when ``n - j == 1``). ``trials`` independent draws
    (:func:`dpmo.spark.tables.select_samples`) record the same ``trials`` times. Called on the driver only:
    the budget never goes to an executor.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import dpmo
    >>> from dpmo.spark.sampling import round_recorder
    >>> b = dpmo.Budget(1.0)
    >>> before = round_recorder(b, total=Fraction(1), parts=[Fraction(1, 2)] * 2, k=2, n=5, static=True,
    ...                         mechanism="exponential", sensitivities=[1.0], label="x",
    ...                         score_name=lambda j: "aggregate")
    >>> before(0); before(1)
    >>> [(r.what, float(r.epsilon), r.candidates) for r in b.ledger]
    [('x (aggregate): round 1 of 2', 0.5, 5), ('x (aggregate): round 2 of 2', 0.5, 4)]
    """

    def before(j: int) -> None:
        for _ in range(trials):
            if static:
                if j == 0:  # the k rounds are sampled together: k records of total / k, all before
                    budget.spend_rounds(
                        total,
                        k,
                        f"{label} ({score_name(0)})",
                        mechanism=mechanism,
                        sensitivity=sensitivities[0],
                        candidates=n,
                    )
                continue
            if n - j == 1:
                budget.spend(parts[j], f"{label}: round {j + 1} of {k} (one candidate left, no data used)")
                continue
            what = f"{label}: round {j + 1} of {k} ({score_name(j)})"
            budget.spend(parts[j], what, mechanism=mechanism, sensitivity=sensitivities[j], candidates=n - j)

    return before


def private_picks(
    scores: DataFrame, k: int, rounds, *, static: bool, mechanism: str, entropy, before, trials: int = 1
) -> list[list]:
    """The ``k`` picks (of each of ``trials`` independent draws) from the score columns of ``scores``: the
    best scores of every column (one pass), the plan (:func:`plan_rounds`), then the noise pass(es)
    (:func:`run_plan`, with ``before(j)`` the budget records). ``rounds``: :func:`executor_rounds`.

    Cost: one pass for the ``k`` largest scores of every column, one pass of noise (``k`` passes in the
    rare sequential plan); the driver receives O(k) rows per partition (O(k^2) for the per-round plans).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.sampling import private_picks
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> scores = session.createDataFrame([(f"c{i}", float(i)) for i in range(6)], "id string, s0 double")
    >>> picks = private_picks(scores, 2, [(0, 1e6, 1.0)] * 2, static=True, mechanism="exponential",
    ...                       entropy=[5, 6, 7, 8], before=None)
    >>> picks  # at epsilon 1e6 per round: the two best, best first
    [['c5', 'c4']]
    """
    sel = SparkSelection(scores, entropy)
    try:
        tops = sel.top_values(k if static else [j + 1 for j in range(k)])
        plan = plan_rounds(static, mechanism, rounds, k, tops)
        return run_plan(sel, plan, k, tops, trials=trials, before=before)
    finally:
        sel.close()
