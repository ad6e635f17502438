"""DP-MOTkIN on Spark: :func:`top_k`, the private selection of ``k`` nodes of a graph held in Spark.

The same mechanism and guarantee as :func:`dpmo.graphs.top_k` (epsilon-edge-DP for the whole epsilon;
neighbours: graphs on the same public node set that differ in one edge), with the work placed as follows:

* the node statistics on the executors (:func:`dpmo.graphs.spark.node_statistics`);
* ``approach="agg"`` and ``"chebyshev"``: the scores, their sensitivities and local dampening on the
  executors (:mod:`dpmo.graphs.spark.scores`), the noise on the executors and the ``k`` picks by
  report-noisy-max whose few best candidates reach the driver (:mod:`dpmo.spark.sampling`, shared with
  :func:`dpmo.spark.select`);
* ``approach="pareto"`` (the Pareto score of a node depends on all the others) and ``exact=True``: the
  statistics are collected to the driver (``n <= DRIVER_MAX_NODES``) and the in-memory pipeline
  (:func:`dpmo.select_multiobjective`) runs there, exactly as in :func:`dpmo.graphs.top_k`;
* ``approach="chebyshev"`` where the released graph's rule holds: the graph released by randomized response
  (flips drawn on the driver, the released graph's statistics on the executors) and the settings' gated
  picks on the driver (:mod:`dpmo.graphs.spark.released`);
* a **small** graph (:func:`dpmo.graphs.spark.small.is_small`: at most 2^16 edges possible on the public
  node set or estimated by Spark's plan statistics), whatever the approach: its distinct edges reach the
  driver in one Spark job, and the statistics and the picks are computed there as above (Spark's cost per
  job and stage, about 0.3 s each in local mode, would be all of the call's time).

Every epsilon is recorded in the :class:`dpmo.Budget` on the driver, right before the noise it pays for is
drawn; the budget never leaves the driver.
"""

from __future__ import annotations

import numpy as np

from ... import _defaults
from ..._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from ...accounting import check_delta
from ...budget import resolve_budget
from ...calls import check_budget_first, releases_on_error, resolve_call
from ...epsilons import float_at_most
from ...mechanisms import MECHANISMS
from ...selection import SENSITIVITIES, approaches, get_approach, round_parts, select_multiobjective
from ...spark.sampling import driver_entropy, executor_rounds, private_picks, round_recorder
from ...spark.session import library_call
from ..chebyshev import graph_chebyshev_approach, graph_staircase_approach
from ..exact import check_weights
from ..objectives import statistics_objectives
from ..pair_response import pair_count, uses_released_graph
from .inputs import parquet_pieces, session_of
from .released import released_chebyshev_ids
from .scores import SPARK_APPROACHES, ScoreSpec, round_sensitivity, score_frame
from .small import driver_statistics, is_small
from .statistics import prepare, statistics

__all__ = ["DRIVER_MAX_NODES", "top_k"]

#: Largest public node count for which the driver path (``approach="pareto"``, ``exact=True``) collects
#: the statistics (about 24 bytes per node through Arrow, plus the in-memory pipeline's own arrays; the
#: Spark driver needs ``spark.driver.memory`` and ``spark.driver.maxResultSize`` to match). Refused above
#: it, from ``n`` alone (public), before any data is read.
DRIVER_MAX_NODES = 10**8

_LABEL = "graphs.spark.top_k"


@releases_on_error
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
    delta: float = 0.0,
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
        each; ``"chebyshev"``: the graph's public shares, or all of it for the released graph where its rule
        holds).
    nodes : int, array_like or pyspark.sql.DataFrame
        The **public** node set (ids ``0 .. n-1`` for an int ``n``, the ids, or a one-column DataFrame of
        ids). Required: refused without it (:data:`dpmo.graphs.nodes.NODES_REQUIRED`).
    approach : {"agg", "chebyshev", "pareto", "staircase"}, default "agg"
        As in :func:`dpmo.graphs.top_k`. ``"agg"`` and ``"chebyshev"`` run in Spark; ``"pareto"``,
        ``"staircase"`` (and any other registered approach) collect the statistics and run on the driver.
        ``"chebyshev"`` here is PrivChebyshev with the fixed public graph settings
        (:func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`), which is what
        ``graphs.top_k(..., approach="chebyshev", shares=graph_chebyshev_settings(n, k)[2])`` runs: its
        rounds, or where :func:`dpmo.graphs.pair_response.uses_released_graph` holds (and ``n <=
        DRIVER_MAX_NODES``) the settings' gated picks on the released graph
        (:mod:`dpmo.graphs.spark.released`: one record, the same picks for the same ``rng``); the
        in-memory default of ``"chebyshev"``, the private staircase (releases between rounds; for ``k = 3``
        at epsilon 1-5 the top-first plan, chosen as :func:`dpmo.graphs.chebyshev.graph_staircase_approach`
        does; ``docs/pareto.md``), is ``approach="staircase"`` here (on the driver,
        ``n <= DRIVER_MAX_NODES``).
    sensitivity : {"local", "global"}
    weights : (float, float), default (1.0, 100.0)
        ``(w_degree, w_ego_density)`` of ``"agg"``.
    mechanism : {"exponential", "gumbel", "permute_and_flip", "laplace"}
        Base mechanism of every round; all four run in Spark (report-noisy-max forms).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed; the same
        records as :func:`dpmo.graphs.top_k`, made on the driver right before the noise is drawn.
    delta : float, default 0
        As in :func:`dpmo.graphs.top_k`: ``> 0`` runs the rounds at the accountant's epsilons, planned on
        the driver before the statistics are computed.
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
    (``"chebyshev"``: with the fixed settings, see ``approach``; up to the last bits of rounding of the
    dampened scores), hence its guarantee: epsilon-edge-DP.
    ``docs/spark.md`` gives the argument (Gumbel top-k, Durfee and Rogers 2019; independent noise per
    round for the other mechanisms and for PrivChebyshev).

    Cost: :func:`node_statistics` (O(m sqrt(m)) work), the scores (O(n) plus the dampening, per
    partition), one pass for the ``k`` largest scores and one pass of noise (``k`` passes in the rare
    sequential plan); the driver receives O(k) rows per partition (O(k^2) for the per-round plans). A small
    graph (:mod:`dpmo.graphs.spark.small`): one pass over the edges, then the in-memory cost on the driver.
    Which path runs is decided from ``n`` and Spark's plan estimate, never from the edges; both have the
    same output distribution and make the same budget records.

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
    check_budget_first(epsilon, budget, delta)  # before the edges are read (issue 37, point 11)
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
        if approach == "chebyshev":  # the fixed public settings: the rounds run on the executors
            appr = graph_chebyshev_approach(n, k)
        elif approach == "staircase":  # the graph form, as graphs.top_k runs it, on the driver
            appr = graph_staircase_approach(n, k)
        else:
            appr = get_approach(approach)
        on_driver = exact or appr.name not in SPARK_APPROACHES
        if on_driver and n > DRIVER_MAX_NODES:
            raise ValueError(
                f"approach={approach!r}{' with exact=True' if exact else ''} runs on the driver, which takes "
                f"at most DRIVER_MAX_NODES = {DRIVER_MAX_NODES} nodes; this node set has {n} (public). Use "
                "approach='agg' or 'chebyshev' with exact=False (they run on the executors), or raise "
                "dpmo.graphs.spark.topk.DRIVER_MAX_NODES with the driver's memory"
            )
        shares = appr.round_shares(k, 2)  # public; checks the Chebyshev settings
        small = is_small(e, ns)  # public: n and Spark's estimate of the plan, no job
        if approach == "chebyshev" and n <= DRIVER_MAX_NODES:  # large epsilon: the released graph
            resolved, total = resolve_budget(epsilon, budget, delta=delta)  # checked: nothing spent yet
            if uses_released_graph(n, float_at_most(total)):
                budget = resolved

                def record() -> float:  # the whole epsilon, right before the flips are drawn
                    return budget.spend(
                        total,
                        f"{_LABEL}: randomized response on the {pair_count(n)} node pairs (the released "
                        "graph; its gated Chebyshev picks along the graph settings are post-processing)",
                        mechanism="randomized_response",
                        sensitivity=1,
                        candidates=pair_count(n),
                    )

                return released_chebyshev_ids(
                    e, ns, k, record, small=small, sensitivity=sensitivity, rng=gen, exact=exact
                )
        # up front: raises before anything is computed (delta > 0: the accountant's epsilons of the rounds,
        # planned here for the executors, in the pipeline on the driver)
        parts = None
        if on_driver or small or not check_delta(delta):
            budget, total = resolve_budget(epsilon, budget, delta=delta)
            if approach == "staircase":  # its plan depends on the call's epsilon (as graphs.top_k's)
                appr = graph_staircase_approach(n, k, epsilon=float(total), rng=gen)
        else:
            relative = k if shares is None else [float(x) for x in shares]
            budget, total, parts = resolve_call(epsilon, budget, delta, relative, mechanism, _LABEL)
        if small:  # one Spark job: the edges to the driver, the statistics and the picks there
            table = driver_statistics(e, ns)
        else:
            stats = statistics(e, ns, pieces=parquet_pieces(edges))  # a local Parquet path: read by pyarrow
            if not on_driver:
                return _on_executors(
                    stats, n, k, total, shares, parts, appr, sensitivity, w, mechanism, gen, budget
                )
            table = _collect(stats)
        return _on_driver(table, k, total, appr, sensitivity, w, mechanism, gen, budget, exact, delta)


def _on_executors(stats, n, k, total, shares, parts, appr, sensitivity, w, mechanism, gen, budget) -> list:
    """PrivAgg and PrivChebyshev: scores and noise on the executors, the budget records on the driver
    (``parts``: the rounds' epsilons when the accountant planned them, else None)."""
    static = appr.name == "agg"
    if static:
        spec = ScoreSpec("agg", sensitivity, w)
    else:
        spec = ScoreSpec(
            "chebyshev", sensitivity, None, np.asarray(appr.directions), np.asarray(appr.aspirations)
        )
    sens = round_sensitivity(spec)
    if parts is None:
        parts = round_parts(total, k, shares)
    if n == 1:  # the only candidate: returned without using its statistics, its share still recorded
        only = stats.select("node").first()["node"]
        if static:
            budget.spend(total, f"{_LABEL}: the only candidate, no data used")
        else:
            budget.spend(parts[0], f"{_LABEL}: round 1 of 1 (one candidate left, no data used)")
        return [only]
    label, score = _LABEL, "dampened aggregate" if spec.sensitivity == "local" else "aggregate"
    # the words of the in-memory pipeline's records (dpmo.chebyshev)
    unit = "dampened objectives" if spec.sensitivity == "local" else "objectives / their global sensitivities"

    def score_name(j: int) -> str:
        if static:
            return score
        return f"Chebyshev scalarisation of the {unit} along {spec.directions[j].tolist()}"

    before = round_recorder(
        budget,
        total=total,
        parts=parts,
        k=k,
        n=n,
        static=static,
        mechanism=mechanism,
        sensitivities=sens,
        label=label,
        score_name=score_name,
    )
    rounds = executor_rounds(static, total, parts, k, sens)
    scores = score_frame(stats, spec)
    return private_picks(
        scores, k, rounds, static=static, mechanism=mechanism, entropy=driver_entropy(gen), before=before
    )[0]


def _collect(stats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The statistics on the driver, sorted by node: ids, degrees, ego densities."""
    table = stats.select("node", "degree", "ego_density").orderBy("node").toPandas()
    return table["node"].to_numpy(), table["degree"].to_numpy(np.int64), table["ego_density"].to_numpy()


def _on_driver(table, k, total, appr, sensitivity, w, mechanism, gen, budget, exact, delta=0.0) -> list:
    """The in-memory pipeline on the driver, on ``table``: the ids (sorted), degrees and ego densities."""
    ids, degree, ego = table
    objs = statistics_objectives(degree, ego)
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
        delta=delta,
    )
    return ids[np.asarray(idx, dtype=np.intp)].tolist()
