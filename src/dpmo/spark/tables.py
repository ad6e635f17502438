"""The paper's general problem on Spark: :func:`select`, ``k`` private picks from a candidate DataFrame.

A row is a candidate (public, with its id), a column named in ``objectives`` holds one utility of every
candidate computed on the private data, with its declared global sensitivity: the problem of
``dpmo select`` (:mod:`dpmo.cli.select_command`), whose law :func:`select` has on the same rows.

* ``approach="agg"`` and ``"chebyshev"``: the scores on the executors (:mod:`dpmo.spark.scores`, the
  library's own functions per partition), the noise on the executors and the ``k`` picks by
  report-noisy-max whose few best candidates reach the driver (:mod:`dpmo.spark.sampling`, shared with
  :func:`dpmo.graphs.spark.top_k`);
* ``approach="pareto"`` (the Pareto score of a candidate depends on all the others), ``exact=True`` and
  ``chebyshev`` where a round's Pareto gate may be on (it reads every candidate: :func:`_may_gate`):
  the objective columns are collected to the driver (at most :data:`DRIVER_MAX_ROWS` rows) and the
  in-memory pipeline (:func:`dpmo.select_multiobjective`, the one ``dpmo select`` calls) runs there;
  ``chebyshev`` on a larger table runs its gated rounds on the executors, one pass each
  (:mod:`dpmo.spark.gated`).

Every epsilon is recorded in the :class:`dpmo.Budget` on the driver, right before the executors are asked
to draw the noise it pays for; the budget never leaves the driver.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _defaults
from .._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from ..accounting import check_delta
from ..aggregate import AggregateApproach
from ..budget import Budget, resolve_budget
from ..calls import releases_on_error, resolve_call
from ..chebyshev import ChebyshevApproach, default_directions
from ..chebyshev_gate import gate_weights
from ..epsilons import exact_epsilon
from ..mechanisms import MECHANISMS
from ..selection import SENSITIVITIES, get_approach, round_parts, select_multiobjective
from .checks import check_table_objectives, check_table_schema, column, scan_table
from .gated import gated_picks, round_gates
from .sampling import driver_entropy, executor_rounds, private_picks, round_recorder
from .scores import ScoreSpec, table_objectives, table_score_batches, table_sensitivities
from .session import estimated_rows, library_call, worker_udfs

__all__ = ["DRIVER_MAX_ROWS", "select", "select_samples"]

#: Largest number of rows for which the driver path (``approach="pareto"``, ``exact=True``) collects the
#: objective columns (8 bytes per cell and the id through Arrow, plus the in-memory pipeline's arrays:
#: PrivPareto on 10^7 candidates with two objectives peaks near 3 GB, ``docs/pareto.md``; the Spark driver
#: needs ``spark.driver.memory`` and ``spark.driver.maxResultSize`` to match). Refused above it, from the
#: number of rows (public), before any objective value is collected.
DRIVER_MAX_ROWS = 10**7

_LABEL = "spark.select"


def _check_count(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


def _chebyshev_settings(appr: ChebyshevApproach, k: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The public direction and aspiration of every round, as the pipeline's PrivChebyshev rounds take
    them (round ``j``: row ``j``, or the default direction ``j`` and aspiration 0)."""
    if appr.directions is None:
        W = np.stack([default_directions(j + 1, m)[j] for j in range(k)])
    else:
        W = np.broadcast_to(np.asarray(appr.directions, dtype=np.float64), (k, m)).copy()
    A = np.zeros((k, m)) if appr.aspirations is None else np.asarray(appr.aspirations, dtype=np.float64)
    return W, np.broadcast_to(A, (k, m)).copy()


@releases_on_error
def select(
    df: DataFrame,
    k: int,
    epsilon,
    *,
    objectives,
    id_column: str | None = None,
    approach="pareto",
    weights=None,
    sensitivity: str = _defaults.SENSITIVITY,
    mechanism: str = _defaults.MECHANISM,
    budget=None,
    rng=None,
    exact: bool = _defaults.EXACT_SPARK,
    delta: float = 0.0,
) -> list:
    """Pick ``k`` rows of a candidate DataFrame good in several objectives, under epsilon-DP, in Spark.

    The problem and the law of ``dpmo select`` (:func:`dpmo.select_multiobjective` on the objective
    columns) for a table of any size: the scores and the noise are computed on the executors.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The candidates, one per row (public), with the objective columns (private utilities).
    k : int
        Number of distinct candidates, ``1 <= k <= rows``.
    epsilon : float
        Total privacy budget (> 0); the rounds share it as in :func:`dpmo.select_multiobjective`
        (``epsilon / k`` each). None (with ``budget``): all the budget has left.
    objectives : dict
        ``{column: sensitivity}`` or ``{column: (sensitivity, "min")}``: each objective column (numeric,
        larger is better; ``"min"``: smaller is better, the column is negated) with its declared global
        sensitivity (how far one change of the private data can move any value of the column; never read
        from the data). The order of the dict is the order of ``weights``.
    id_column : str, optional
        The column of the candidates' ids (integers or strings, public, distinct); the picks are its
        values. None: the row numbers ``0, 1, ...`` in the order Spark reads the DataFrame (for a CSV or
        Parquet file: the file's order; that order must not change between two reads).
    approach : {"pareto", "agg", "chebyshev"} or dpmo.selection.Approach, default "pareto"
        As in :func:`dpmo.select_multiobjective` (the default of ``dpmo select``). ``"agg"`` and
        ``"chebyshev"`` (or a configured :class:`dpmo.chebyshev.ChebyshevApproach`) run on the
        executors; ``"pareto"`` (and any other registered approach) on the driver, for at most
        :data:`DRIVER_MAX_ROWS` rows. ``"chebyshev"`` at a budget where a round's Pareto gate may be on
        (``docs/pareto.md``, "Without declared ranges") runs on the driver up to that many rows and
        above it on the executors, one pass per round (:mod:`dpmo.spark.gated`).
    weights : sequence of float, optional
        One per objective, required by ``"agg"`` (refused by the others).
    sensitivity : {"local", "global"}, default "local"
    mechanism : {"exponential", "gumbel", "permute_and_flip", "laplace"}
        Base mechanism of every round; all four run in Spark (report-noisy-max forms).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it, checked before any Spark job; the records of
        :func:`dpmo.select_multiobjective`, made on the driver right before the noise is drawn.
    rng : None, int or numpy.random.Generator
        None (a release): the noise's seed comes from the operating system's secure source. An int or a
        Generator seeds it: reproducible, for tests.
    exact : bool, default False
        True: the objective columns go to the driver (at most :data:`DRIVER_MAX_ROWS` rows) and the picks
        are sampled there with dpmo's exact samplers. False (``dpmo._defaults.EXACT_SPARK``): the float
        samplers, on the executors for ``"agg"`` and ``"chebyshev"``.
    delta : float, default 0
        As in :func:`dpmo.select_multiobjective`: ``0`` is pure epsilon-DP; ``> 0`` makes the ``k`` picks
        together ``(epsilon, delta)``-DP, each round run and recorded at the accountant's epsilon
        (:func:`dpmo.accounting.scaled_epsilons`), the same as the in-memory path's; ``budget`` is charged
        ``(epsilon, delta)`` once the number of rows is known, before any objective value is read.

    Returns
    -------
    list
        The ``k`` chosen ids (Python ints or strings), in pick order.

    Raises
    ------
    TypeError, ValueError
        Bad arguments; a missing or non-numeric column; a table without rows, with a NULL or repeated id,
        or with an objective cell that is not a finite number (the column and the rule are named, never a
        value or its row); ``k`` above the number of rows; a driver path above :data:`DRIVER_MAX_ROWS`.
    dpmo.BudgetExceededError
        Before any Spark job, when ``epsilon`` does not fit in ``budget``.

    Notes
    -----
    Privacy: epsilon-DP for the relation the declared sensitivities are stated for, as
    :func:`dpmo.select_multiobjective`: the output has its distribution on the same rows (the scores
    are its own functions per candidate; the picks are its report-noisy-max rounds, ``docs/spark.md``).

    Cost: one scan of the table (the checks), then for ``"agg"`` / ``"chebyshev"`` the scores (O(rows m)
    per partition), one pass for the ``k`` largest scores and one of noise; the driver receives O(k)
    rows per partition (O(k^2) for the per-round plans). The driver path collects ``rows x (m + 1)``
    values and costs what :func:`dpmo.select_multiobjective` costs. The gated rounds above
    :data:`DRIVER_MAX_ROWS`: one pass for the table's front (the batches' fronts reach the driver), then
    four passes per round.

    Examples
    --------
    >>> import dpmo
    >>> from pyspark.sql import SparkSession
    >>> from dpmo import spark as dpmo_spark
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> rows = [(f"m{i}", 0.5 + i / 40, 10.0 - i % 7) for i in range(20)]
    >>> df = session.createDataFrame(rows, "model string, accuracy double, cost double")
    >>> budget = dpmo.Budget(1.0)
    >>> picks = dpmo_spark.select(df, 3, 0.5, objectives={"accuracy": 0.01, "cost": (1.0, "min")},
    ...                           id_column="model", approach="agg", weights=[100.0, 1.0],
    ...                           budget=budget, rng=0)
    >>> len(set(picks)), all(p.startswith("m") for p in picks), budget.remaining
    (3, True, 0.5)
    """
    return select_samples(
        df,
        k,
        epsilon,
        1,
        objectives=objectives,
        id_column=id_column,
        approach=approach,
        weights=weights,
        sensitivity=sensitivity,
        mechanism=mechanism,
        budget=budget,
        rng=rng,
        exact=exact,
        delta=delta,
    )[0]


def select_samples(
    df: DataFrame,
    k: int,
    epsilon,
    trials: int,
    *,
    objectives,
    id_column: str | None = None,
    approach="pareto",
    weights=None,
    sensitivity: str = _defaults.SENSITIVITY,
    mechanism: str = _defaults.MECHANISM,
    budget=None,
    rng=None,
    exact: bool = _defaults.EXACT_SPARK,
    delta: float = 0.0,
) -> list[list]:
    """``trials`` independent draws of :func:`select` (same arguments), in the same Spark passes: for audits
    of its law (``tests/test_spark_select.py``). Each draw is a release: the call spends ``trials x
    epsilon`` (the budget records of :func:`select`, ``trials`` times; without ``budget``, a
    ``Budget(trials x epsilon)`` of its own).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.tables import select_samples
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> df = session.createDataFrame([(float(i),) for i in range(6)], "u double")
    >>> draws = select_samples(df, 2, 1.0, 50, objectives={"u": 1.0}, approach="agg", weights=[1.0], rng=1)
    >>> len(draws), all(len(set(d)) == 2 and set(d) <= set(range(6)) for d in draws)
    (50, True)
    """
    objs = check_table_objectives(objectives)
    m = len(objs)
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    trials = _check_count(trials, "trials")
    k = _check_count(k, "k")
    appr = get_approach(approach)
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    if appr.uses_weights:
        w = appr.check_weights(weights, m)
    elif weights is not None:
        raise ValueError(f"weights are used by approach='agg' only, not by approach={appr.name!r}")
    else:
        w = None
    exact = check_exact(exact, mechanism)
    gen = None if rng is None else check_random_state(rng)
    check_table_schema(df, objs, id_column)
    shares = appr.round_shares(k, m)  # public; checks a configured approach's settings against k and m
    check_delta(delta)  # kept as given: a Fraction reaches the budget exactly
    if trials == 1:
        budget, total = resolve_budget(epsilon, budget, delta=delta)  # before any Spark job
    elif delta:
        raise ValueError("select_samples takes delta > 0 with trials=1 only (each draw is a call of its own)")
    else:
        if epsilon is None:
            raise ValueError("select_samples needs epsilon (the epsilon of each draw)")
        total = exact_epsilon(epsilon)
        budget = Budget(total * trials) if budget is None else budget
        budget.check(total * trials)
    # every Spark job of the call in a library call: the workers' Python checked first (refused in one
    # line), quiet output, shuffle partitions from the table's size (Spark's estimate: no job) and the cores
    with library_call(df.sparkSession, rows=estimated_rows(df) or 0):
        return _run(
            df,
            k,
            objs,
            id_column,
            appr,
            sensitivity,
            mechanism,
            w,
            exact,
            gen,
            shares,
            budget,
            total,
            trials,
            delta,
        )


def _run(
    df, k, objs, id_column, appr, sensitivity, mechanism, w, exact, gen, shares, budget, total, trials, delta
):
    """The Spark part of :func:`select_samples`, arguments checked (inside its library call)."""
    m = len(objs)
    names = [c for c, _, _ in objs]
    scan = scan_table(df, names, id_column)
    n = scan.n
    k = check_k(k, n)
    inner = [(f"o{i}", sens, direction) for i, (_, sens, direction) in enumerate(objs)]
    values = [column(c).cast("double").alias(f"o{i}") for i, c in enumerate(names)]
    key = F.monotonically_increasing_id() if id_column is None else column(id_column)
    on_executors = not exact and isinstance(appr, (AggregateApproach, ChebyshevApproach))
    gated = on_executors and _may_gate(appr, n, k, total, delta)
    if gated and n <= DRIVER_MAX_ROWS:
        on_executors = False  # the Pareto gate reads every candidate: the in-memory law, on the driver
    if not on_executors:
        if n > DRIVER_MAX_ROWS:
            raise ValueError(
                f"approach={appr.name!r}{' with exact=True' if exact else ''} runs on the driver, which "
                f"takes at most DRIVER_MAX_ROWS = {DRIVER_MAX_ROWS} rows; this table has {n}. Use "
                "approach='agg' or 'chebyshev' with exact=False (they run on the executors), or raise "
                "dpmo.spark.tables.DRIVER_MAX_ROWS with the driver's memory"
            )
        settings = dict(
            approach=appr,
            sensitivity=sensitivity,
            weights=w,
            mechanism=mechanism,
            k=k,
            exact=exact,
            delta=delta,
        )
        return _on_driver(
            df.select(key.alias("_id"), *values), inner, id_column, total, budget, gen, trials, settings
        )
    static = isinstance(appr, AggregateApproach)
    if static:
        spec = ScoreSpec("agg", sensitivity, tuple(float(x) for x in w))
    else:
        spec = ScoreSpec("chebyshev", sensitivity, None, *_chebyshev_settings(appr, k, m))
    sens = table_sensitivities(inner, spec)
    if delta:  # the accountant's epsilons of the k rounds; (epsilon, delta) reserved in the budget now
        relative = k if shares is None else [float(x) for x in shares]
        budget, total, parts = resolve_call(total, budget, delta, relative, mechanism, _LABEL)
    else:
        parts = round_parts(total, k, shares)
    if n == 1:  # the only candidate: returned without using its values, its share still recorded
        only = 0 if id_column is None else _plain(df.select(key).first()[0])
        for _ in range(trials):
            if static:
                budget.spend(total, f"{_LABEL}: the only candidate, no data used")
            else:
                budget.spend(parts[0], f"{_LABEL}: round 1 of 1 (one candidate left, no data used)")
        return [[only] for _ in range(trials)]
    rounds = executor_rounds(static, total, parts, k, sens)
    gates = round_gates(inner, spec, n, k, [r[1] for r in rounds]) if gated else [None] * k
    per_round = any(g is not None for g in gates)  # above DRIVER_MAX_ROWS: the gated rounds, one pass each
    before = round_recorder(
        budget,
        total=total,
        parts=parts,
        k=k,
        n=n,
        static=static,
        mechanism=mechanism,
        sensitivities=[sens[j] if g is None else g[1] for j, g in enumerate(gates)] if per_round else sens,
        label=_LABEL,
        score_name=partial(_score_name, spec, gates),
        trials=1 if per_round else trials,
    )
    frame = df.select(key.alias("id"), *values)
    if per_round:
        picks = gated_picks(frame, "id", inner, spec, n, k, rounds, gates, mechanism=mechanism,
                            entropy=driver_entropy(gen), before=before, trials=trials)  # fmt: skip
        return picks if id_column is not None else _row_numbers(picks, scan.partition_rows)
    fields = [T.StructField("id", frame.schema["id"].dataType, False)]
    fields += [T.StructField(f"s{j}", T.DoubleType(), False) for j in range(spec.columns)]
    with worker_udfs(df.sparkSession):
        scores = frame.mapInPandas(
            partial(table_score_batches, key="id", objectives=inner, spec=spec), T.StructType(fields)
        )
    entropy = driver_entropy(gen)
    picks = private_picks(
        scores, k, rounds, static=static, mechanism=mechanism, entropy=entropy, before=before, trials=trials
    )
    return picks if id_column is not None else _row_numbers(picks, scan.partition_rows)


def _may_gate(appr, n: int, k: int, total, delta) -> bool:
    """Whether a round of ``chebyshev`` may have its Pareto gate (``docs/pareto.md``, "Without declared
    ranges"; the table's objectives declare no range here): the gate's condition at an upper bound on every
    round's epsilon (the whole epsilon; with ``delta > 0``, whose accountant may give a round slightly more,
    twice it plus 1), the fewest candidates left and the smallest divisor (1), so never False where a round's
    gate is on. Public: ``n``, ``k``, epsilon, ``delta``."""
    if not isinstance(appr, ChebyshevApproach) or not appr.ties:
        return False
    upper = float(total) if not delta else 2.0 * float(total) + 1.0
    return gate_weights(max(n - k + 1, 1), upper, 1.0, None, [1.0]) is not None


def _score_name(spec: ScoreSpec, gates, j: int) -> str:
    """What round ``j`` samples from, in the words of the in-memory pipeline's budget records (``gates``:
    :func:`dpmo.spark.gated.round_gates`, None where the gate is off)."""
    if spec.approach == "agg":
        return "dampened aggregate" if spec.sensitivity == "local" else "aggregate"
    unit = "dampened objectives" if spec.sensitivity == "local" else "objectives / their global sensitivities"
    gate = " + Pareto gate (negligible noise)" if gates[j] is not None else ""
    return f"Chebyshev scalarisation of the {unit} along {spec.directions[j].tolist()}{gate}"


def _row_numbers(picks: list[list], partition_rows: dict[int, int]) -> list[list]:
    """The row numbers of picks identified by ``monotonically_increasing_id`` (the input partition in the
    upper 31 bits, the row within it in the lower 33), from the rows of every partition (the scan's)."""
    offsets, start = {}, 0
    for p in sorted(partition_rows):
        offsets[p] = start
        start += partition_rows[p]
    low = (1 << 33) - 1
    return [[offsets[int(x) >> 33] + (int(x) & low) for x in draw] for draw in picks]


def _on_driver(
    table: DataFrame, inner, id_column, total, budget, gen, trials: int, settings: dict
) -> list[list]:
    """The in-memory pipeline (:func:`dpmo.select_multiobjective`, as ``dpmo select`` runs it) on the ids
    and objective columns collected to the driver, in the order Spark reads the rows."""
    table = table.withColumn("_order", F.monotonically_increasing_id()).toPandas()
    table = table.sort_values("_order", kind="stable")
    ids = np.arange(len(table)) if id_column is None else table["_id"].to_numpy()
    objs = table_objectives({c: table[c].to_numpy(np.float64) for c, _, _ in inner}, inner)
    out = []
    for _ in range(trials):  # rng None: the OS's entropy (its secure source for the exact samplers)
        picks = select_multiobjective(objs, total, rng=gen, budget=budget, what=_LABEL, **settings)
        out.append([_plain(ids[int(i)]) for i in picks])
    return out


def _plain(x):
    return x.item() if hasattr(x, "item") else x
