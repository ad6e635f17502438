"""DP-MOTkIN on Spark: :func:`top_k`, the private selection of ``k`` nodes of a graph held in Spark.

The same mechanism and guarantee as :func:`dpmo.graphs.top_k` (epsilon-edge-DP for the whole epsilon;
neighbours: graphs on the same public node set that differ in one edge), with the work placed as follows:

* the node statistics on the executors (:func:`dpmo.graphs.spark.node_statistics`);
* ``approach="agg"`` and ``"chebyshev"``: the scores, their sensitivities and local dampening on the
  executors (:mod:`dpmo.graphs.spark.scores`), the noise on the executors and the ``k`` picks by
  report-noisy-max whose few best candidates reach the driver (:mod:`dpmo.graphs.spark.sampling`);
* ``approach="pareto"`` (the Pareto score of a node depends on all the others) and ``exact=True``: the
  statistics are collected to the driver (``n <= DRIVER_MAX_NODES``) and the in-memory pipeline
  (:func:`dpmo.select_multiobjective`) runs there, exactly as in :func:`dpmo.graphs.top_k`.

Every epsilon is recorded in the :class:`dpmo.Budget` on the driver, right before the noise it pays for is
drawn; the budget never leaves the driver.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ... import _defaults
from ..._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from ...budget import resolve_budget
from ...epsilons import float_at_most
from ...mechanisms import MECHANISMS, needs_rounds
from ...selection import SENSITIVITIES, approaches, get_approach, round_parts, select_multiobjective
from ...spark.session import library_call
from ..chebyshev import graph_chebyshev_approach
from ..exact import check_weights
from ..objectives import statistics_objectives
from .inputs import session_of
from .sampling import Plan, SparkSelection, run_plan
from .scores import SPARK_APPROACHES, ScoreSpec, round_sensitivity
from .statistics import prepare, statistics

__all__ = ["DRIVER_MAX_NODES", "ROUNDS_MAX_K", "top_k", "plan_rounds"]

#: Largest public node count for which the driver path (``approach="pareto"``, ``exact=True``) collects
#: the statistics (about 24 bytes per node through Arrow, plus the in-memory pipeline's own arrays; the
#: Spark driver needs ``spark.driver.memory`` and ``spark.driver.maxResultSize`` to match). Refused above
#: it, from ``n`` alone (public), before any data is read.
DRIVER_MAX_NODES = 10**8

#: Largest ``k`` of the one-pass per-round plan, whose partitions send ``k (k + 1) / 2`` candidates each; a
#: larger (public) ``k`` takes the sequential plan (one pass per round, one candidate per partition).
ROUNDS_MAX_K = 100

_LABEL = "graphs.spark.top_k"


def plan_rounds(static: bool, mechanism: str, rounds, k: int, tops) -> Plan:
    """The plan of the ``k`` picks (module :mod:`dpmo.graphs.spark`): ``rounds`` are the public
    ``(column, epsilon, sensitivity)`` of every round, ``tops`` the ``k`` best scores of every column.

    One pass is used when :func:`dpmo.select` would sample at once (no round's candidates have log-weights
    below ``-2^32`` relative to the column's best, :func:`dpmo.mechanisms.needs_rounds`); a static
    approach with the exponential mechanism then takes the Gumbel top-k (one noise per node), the others
    one noise per node and round (for ``k <= ROUNDS_MAX_K``). Otherwise one pass per round, relative to the
    best remaining score. ``tops`` holds at least ``j + 1`` values of round ``j``'s column.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.topk import plan_rounds
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


def top_k(
    edges,
    k: int,
    epsilon,
    *,
    nodes=None,
    approach: str = _defaults.GRAPH_APPROACH,
    sensitivity: str = _defaults.SENSITIVITY,
    weights=_defaults.GRAPH_WEIGHTS,
    mechanism: str = _defaults.MECHANISM,
    budget=None,
    rng=None,
    exact: bool = _defaults.EXACT_SPARK,
) -> list:
    """DP-MOTkIN in Spark: ``k`` influential nodes chosen under epsilon-edge differential privacy.

    Parameters
    ----------
    edges : pyspark.sql.DataFrame or str
        The private edges, as :func:`node_statistics` takes them (a DataFrame with two id columns, or a
        Parquet / text path).
    k : int
        Number of nodes, ``1 <= k <= n``.
    epsilon : float
        Total privacy budget (> 0); the rounds share it as in :func:`dpmo.graphs.top_k` (``epsilon / k``
        each; ``"chebyshev"``: the graph's public shares).
    nodes : int, array_like or pyspark.sql.DataFrame
        The **public** node set (ids ``0 .. n-1`` for an int ``n``, the ids, or a one-column DataFrame of
        ids). Required: refused without it (:data:`dpmo.graphs.nodes.NODES_REQUIRED`).
    approach : {"agg", "chebyshev", "pareto"}, default "agg"
        As in :func:`dpmo.graphs.top_k`. ``"agg"`` and ``"chebyshev"`` run in Spark; ``"pareto"`` (and any
        other registered approach) collects the statistics and runs on the driver.
    sensitivity : {"local", "global"}
    weights : (float, float), default (1.0, 100.0)
        ``(w_degree, w_ego_density)`` of ``"agg"``.
    mechanism : {"exponential", "gumbel", "permute_and_flip", "laplace"}
        Base mechanism of every round; all four run in Spark (report-noisy-max forms).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed; the same
        records as :func:`dpmo.graphs.top_k`, made on the driver right before the noise is drawn.
    rng : None, int or numpy.random.Generator
        None (a release): every partition seeds its noise from the operating system's entropy. An int or a
        Generator seeds the partitions from it: reproducible, for tests only.
    exact : bool, default False
        True: the statistics go to the driver (``n <= DRIVER_MAX_NODES``) and the picks are sampled there
        with dpmo's exact samplers (:func:`dpmo.select` with ``exact=True``; rng None then reads the OS's
        secure source). False (the default here, ``dpmo._defaults.EXACT_SPARK``, unlike
        :func:`dpmo.graphs.top_k`): float samplers on the executors; ``docs/spark.md`` and ``docs/core.md``
        ("Which sampler is the default") say why.

    Returns
    -------
    list
        The ``k`` chosen node ids (Python ints or strings), in pick order.

    Raises
    ------
    ValueError
        Without a node set, for an edge outside it, for bad arguments, or for a driver path with
        ``n > DRIVER_MAX_NODES``; never because of a statistic of the edges.

    Notes
    -----
    Privacy: the output has exactly the distribution of :func:`dpmo.graphs.top_k` with the same arguments
    (up to the last bits of rounding of the dampened scores), hence its guarantee: epsilon-edge-DP.
    ``docs/spark.md`` gives the argument (Gumbel top-k, Durfee and Rogers 2019; independent noise per
    round for the other mechanisms and for PrivChebyshev).

    Cost: :func:`node_statistics` (O(m sqrt(m)) work), the scores (O(n) plus the dampening, per
    partition), one pass for the ``k`` largest scores and one pass of noise (``k`` passes in the rare
    sequential plan); the driver receives O(k) rows per partition (O(k^2) for the per-round plans).

    Examples
    --------
    >>> import networkx as nx
    >>> import dpmo
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.graphs import spark as dpmo_spark
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> edges = session.createDataFrame(list(nx.karate_club_graph().edges()), "src long, dst long")
    >>> budget = dpmo.Budget(1.0)
    >>> picks = dpmo_spark.top_k(edges, 3, 0.5, nodes=34, budget=budget, rng=0)
    >>> len(set(picks)), all(0 <= v < 34 for v in picks), budget.remaining
    (3, True, 0.5)
    """
    if nodes is None:
        prepare(edges, None, "top_k")  # refused with NODES_REQUIRED before the edges are read
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    if approach != "chebyshev":
        check_choice(approach, approaches(), "approach")
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    w = check_weights(weights)
    exact = check_exact(exact, mechanism)
    gen = None if rng is None else check_random_state(rng)  # None: OS entropy (the secure source if exact)
    with library_call(session_of(edges)):  # the workers' Python checked before any Spark job
        e, ns = prepare(edges, nodes, "top_k")  # reads the schema and counts the public node set
        n = ns.n
        k = check_k(k, n)
        appr = graph_chebyshev_approach(n, k) if approach == "chebyshev" else get_approach(approach)
        on_driver = exact or appr.name not in SPARK_APPROACHES
        if on_driver and n > DRIVER_MAX_NODES:
            raise ValueError(
                f"approach={approach!r}{' with exact=True' if exact else ''} runs on the driver, which takes "
                f"at most DRIVER_MAX_NODES = {DRIVER_MAX_NODES} nodes; this node set has {n} (public). Use "
                "approach='agg' or 'chebyshev' with exact=False (they run on the executors), or raise "
                "dpmo.graphs.spark.topk.DRIVER_MAX_NODES with the driver's memory"
            )
        shares = appr.round_shares(k, 2)  # public; checks the Chebyshev settings
        budget, total = resolve_budget(epsilon, budget)  # up front: raises before anything is computed
        stats = statistics(e, ns)
        if on_driver:
            return _on_driver(stats, k, total, appr, sensitivity, w, mechanism, gen, budget, exact)
        return _on_executors(stats, n, k, total, shares, appr, sensitivity, w, mechanism, gen, budget)


def _on_executors(stats, n, k, total, shares, appr, sensitivity, w, mechanism, gen, budget) -> list:
    """PrivAgg and PrivChebyshev: scores and noise on the executors, the budget records on the driver."""
    static = appr.name == "agg"
    if static:
        spec = ScoreSpec("agg", sensitivity, w)
    else:
        spec = ScoreSpec(
            "chebyshev", sensitivity, None, np.asarray(appr.directions), np.asarray(appr.aspirations)
        )
    sens = round_sensitivity(spec)
    parts = round_parts(total, k, shares)
    if n == 1:  # the only candidate: returned without using its statistics, its share still recorded
        only = stats.select("node").first()["node"]
        if static:
            budget.spend(total, f"{_LABEL}: the only candidate, no data used")
        else:
            budget.spend(parts[0], f"{_LABEL}: round 1 of 1 (one candidate left, no data used)")
        return [only]
    # each round's float: the largest not above its exact share, as the budget returns it (and select uses)
    if static:
        rounds = [(0, float_at_most(total / k), sens[0])] * k
    else:
        rounds = [(j, float_at_most(parts[j]), sens[j]) for j in range(k)]
    entropy = None if gen is None else gen.integers(0, 2**32, size=4).tolist()
    sel = SparkSelection(stats, spec, entropy)
    try:
        tops = sel.top_values(k if static else [j + 1 for j in range(k)])
        plan = plan_rounds(static, mechanism, rounds, k, tops)
        before = _recorder(budget, total, parts, k, n, static, mechanism, sens, spec)
        return run_plan(sel, plan, k, tops, before=before)[0]
    finally:
        sel.close()


def _recorder(budget, total: Fraction, parts, k: int, n: int, static: bool, mechanism, sens, spec):
    """``before(j)``: the budget record(s) of round ``j``, as :func:`dpmo.select_multiobjective` makes
    them."""
    score = "dampened aggregate" if spec.sensitivity == "local" else "aggregate"

    def before(j: int) -> None:
        if static:
            if j == 0:  # the k rounds are sampled together: k records of epsilon / k, all before
                what = f"{_LABEL} ({score})"
                budget.spend_rounds(total, k, what, mechanism=mechanism, sensitivity=sens[0], candidates=n)
            return
        if n - j == 1:
            budget.spend(parts[j], f"{_LABEL}: round {j + 1} of {k} (one candidate left, no data used)")
            return
        what = f"{_LABEL}: round {j + 1} of {k} (Chebyshev scalarisation along {spec.directions[j].tolist()})"
        budget.spend(parts[j], what, mechanism=mechanism, sensitivity=sens[j], candidates=n - j)

    return before


def _on_driver(stats, k, total, appr, sensitivity, w, mechanism, gen, budget, exact) -> list:
    """Collect the statistics (sorted by node) and run the in-memory pipeline on the driver."""
    table = stats.select("node", "degree", "ego_density").orderBy("node").toPandas()
    objs = statistics_objectives(table["degree"].to_numpy(np.int64), table["ego_density"].to_numpy())
    idx = select_multiobjective(
        objs,
        total,
        approach=appr,
        sensitivity=sensitivity,
        weights=w if appr.uses_weights else None,
        mechanism=mechanism,
        k=k,
        rng=gen,
        budget=budget,
        what=_LABEL,
        exact=exact,
    )
    return table["node"].to_numpy()[np.asarray(idx, dtype=np.intp)].tolist()
