"""The Spark passes of a private selection: persisted scores, their best values, and the noisy picks.

:class:`SparkSelection` holds the per-node scores of one selection (computed on the executors by
:mod:`dpmo.graphs.spark.scores`, persisted) and runs the passes over them:

* :meth:`SparkSelection.top_values`: the largest scores of every column (with their nodes), to place
  the log-weights and to decide, as :func:`dpmo.select` does, whether one pass is numerically safe;
* :meth:`SparkSelection.draw`: one pass of noise (:func:`dpmo.graphs.spark.noise.batch_candidates` on
  every partition), returning the candidates the driver merges.

:func:`run_plan` turns them into the ``k`` picks with one of three plans (module :mod:`dpmo.graphs.spark`
explains when each is used): ``"one_shot"`` (Gumbel top-k, one noise per node), ``"rounds"`` (one pass,
one independent noise per node and round) or ``"sequential"`` (one pass per round, log-weights relative
to the best remaining score, as the float samplers of :mod:`dpmo.mechanisms`).

Randomness: every partition of every pass draws from its own generator, a PCG64 seeded from the operating
system's entropy (``numpy.random.default_rng()``, as ``rng=None`` does in the in-memory path), or, when the
caller gave ``rng`` (tests only), from ``SeedSequence(entropy, spawn_key=(pass, partition))`` with
``entropy`` drawn from ``rng`` on the driver.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd
from pyspark import StorageLevel, TaskContext
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from ...spark.session import worker_udfs
from .noise import NOISE, Round, batch_candidates, best_rows, picks_by_round, picks_one_shot
from .scores import ScoreSpec, score_batches

__all__ = ["Plan", "SparkSelection", "run_plan"]


class Plan(NamedTuple):
    """How the ``k`` picks are drawn: ``mode`` and, per round, ``(column, epsilon, sensitivity)``.

    Examples
    --------
    >>> from dpmo.graphs.spark.sampling import Plan
    >>> Plan("one_shot", [(0, 0.25, 1.0)] * 2, "exponential").mode
    'one_shot'
    """

    mode: str
    rounds: list[tuple[int, float, float]]
    mechanism: str


def _partition_rng(entropy, pass_id: int) -> np.random.Generator:
    if entropy is None:
        return np.random.default_rng()  # fresh OS entropy (numpy's SeedSequence reads the secure source)
    pid = TaskContext.get().partitionId()
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(pass_id, pid)))


def _top_batches(batches, keep: list[int]):
    """mapInPandas: the ``keep[j]`` largest scores of every column ``j`` in this partition."""
    parts = []
    for batch in batches:
        for j, k in enumerate(keep):
            s = batch[f"s{j}"].to_numpy()
            best = np.argpartition(-s, k - 1)[:k] if k < s.size else np.arange(s.size)
            parts.append(
                pd.DataFrame({"column": j, "node": batch["node"].to_numpy()[best], "value": s[best]})
            )
    if parts:
        rows = pd.concat(parts, ignore_index=True).sort_values(["column", "value"], ascending=[True, False])
        rank = rows.groupby("column", sort=False).cumcount().to_numpy()
        yield rows[rank < np.asarray(keep)[rows["column"].to_numpy()]]


def _noise_batches(batches, rounds, noise, trials, exclude, entropy, pass_id, columns):
    """mapInPandas: this partition's best noisy values of every round and trial."""
    rng = _partition_rng(entropy, pass_id)
    keep = [r.keep for r in rounds]
    found = []
    for batch in batches:
        if len(batch) == 0:
            continue
        ids = batch["node"].to_numpy()
        scores = np.stack([batch[f"s{j}"].to_numpy() for j in range(columns)])
        rows = batch_candidates(ids, scores, rounds, noise, rng, trials, exclude)
        found.append(best_rows(rows, keep))
    if found:
        yield best_rows(pd.concat(found, ignore_index=True), keep)


class SparkSelection:
    """The persisted scores of one selection and the passes over them (call :meth:`close` when done).

    Parameters
    ----------
    stats : pyspark.sql.DataFrame
        :func:`dpmo.graphs.spark.node_statistics`.
    spec : ScoreSpec
        Public settings of the scores.
    entropy : None or list of int
        None: every partition seeds itself from the OS; otherwise the root of the per-partition seeds.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from pyspark.sql import SparkSession
    >>> from dpmo import graphs
    >>> from dpmo.graphs import spark as dpmo_spark
    >>> from dpmo.graphs.spark.sampling import SparkSelection
    >>> from dpmo.graphs.spark.scores import ScoreSpec
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> g = nx.karate_club_graph()
    >>> edges = session.createDataFrame(list(g.edges()), "src long, dst long")
    >>> stats = dpmo_spark.node_statistics(edges, 34)
    >>> sel = SparkSelection(stats, ScoreSpec("agg", "global", (1.0, 100.0)))
    >>> values, nodes = sel.top_values(3)[0]  # the three largest 1 * degree + 100 * ego density
    >>> sel.close()
    >>> values.tolist() == np.sort(graphs.aggregate_scores(g).values)[::-1][:3].tolist()
    True
    """

    def __init__(self, stats: DataFrame, spec: ScoreSpec, entropy=None):
        self.spec = spec
        self.columns = spec.columns
        self.entropy = entropy
        self.node_type = stats.schema["node"].dataType
        fields = [T.StructField("node", self.node_type, False)]
        fields += [T.StructField(f"s{j}", T.DoubleType(), False) for j in range(self.columns)]
        with worker_udfs(stats.sparkSession):
            scores = stats.mapInPandas(partial(score_batches, spec=spec), T.StructType(fields))
        if entropy is not None:  # seeded (tests): the same rows in the same order in every run
            scores = scores.sortWithinPartitions("node")
        self.scores = scores.persist(StorageLevel.MEMORY_AND_DISK)
        self._passes = 0

    def close(self) -> None:
        self.scores.unpersist()

    def top_values(self, keep) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per column ``j``, the ``keep[j]`` largest scores (descending) and their nodes (``keep``: one int
        per column, or one int for all)."""
        keep = [int(keep)] * self.columns if np.ndim(keep) == 0 else [int(x) for x in keep]
        schema = T.StructType(
            [
                T.StructField("column", T.LongType(), False),
                T.StructField("node", self.node_type, False),
                T.StructField("value", T.DoubleType(), False),
            ]
        )
        with worker_udfs(self.scores.sparkSession):
            rows = self.scores.mapInPandas(partial(_top_batches, keep=keep), schema)
        rows = rows.toPandas()
        out = []
        for j in range(self.columns):
            mine = rows[rows["column"] == j].sort_values("value", ascending=False, kind="stable")
            mine = mine.head(keep[j])
            out.append((mine["value"].to_numpy(), mine["node"].to_numpy()))
        return out

    def draw(self, rounds: list[Round], noise: str, trials: int = 1, exclude=None) -> pd.DataFrame:
        """One pass: the candidates (``trial, round, node, z``) of every partition, merged per round.
        ``exclude``: per trial, the nodes out of play."""
        self._passes += 1
        schema = T.StructType(
            [
                T.StructField("trial", T.LongType(), False),
                T.StructField("round", T.LongType(), False),
                T.StructField("node", self.node_type, False),
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
    >>> import networkx as nx
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs import spark as dpmo_spark
    >>> from dpmo.graphs.spark.sampling import Plan, SparkSelection, run_plan
    >>> from dpmo.graphs.spark.scores import ScoreSpec
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame(list(nx.karate_club_graph().edges()), "src long, dst long")
    >>> stats = dpmo_spark.node_statistics(edges, 34)
    >>> sel = SparkSelection(stats, ScoreSpec("agg", "local", (1.0, 100.0)))
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
        values, nodes = tops[c]
        top = np.empty(trials)
        for t, mine in enumerate(chosen):  # the best score still in play (at most j taken of the k listed)
            free = ~np.isin(nodes, np.asarray(mine, dtype=nodes.dtype)) if mine else np.ones(nodes.size, bool)
            top[t] = values[np.flatnonzero(free)[0]]
        announce([j])
        rows = sel.draw([Round(c, e, s, top, 1)], noise, trials, exclude=chosen if j else None)
        chosen = picks_by_round(rows, 1, trials, chosen)
    return chosen
