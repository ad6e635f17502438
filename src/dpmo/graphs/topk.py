"""DP-MOTkIN: private multi-objective top-k influential nodes (the paper's section "Application 2").

Four private methods, each ``k`` rounds of a private multi-objective selection without replacement with
``epsilon / k`` per round (so the whole output is epsilon-edge-DP by basic sequential composition):

* ``approach="pareto", sensitivity="global"``: DP-MOTkIN-Pareto_global, :func:`dpmo.priv_pareto` with the
  Pareto score's global sensitivity ``n - 1``;
* ``approach="pareto", sensitivity="local"``: DP-MOTkIN-Pareto_local, local dampening of the Pareto score
  with ``delta^PS`` built from the degree's and ego density's admissible functions;
* ``approach="agg", sensitivity="global"``: DP-MOTkIN-Agg_global, :func:`dpmo.priv_agg` on
  ``u_agg = w_degree * degree + w_ego * ego density`` with sensitivity ``|w_degree| + |w_ego|``;
* ``approach="agg", sensitivity="local"``: DP-MOTkIN-Agg_local, local dampening of ``u_agg`` with
  ``|w_degree| * 1 + |w_ego| * delta^ego``.

Neighbouring relation: edge differential privacy. Two graphs on the same public node set are neighbours
when they differ in exactly one edge (added or removed). The node set (its ids and its size ``n``) is public
input: the private functions take it from the caller (``nodes=``, or a :class:`Graph` loaded with
``nodes=``) and refuse without it (:data:`dpmo.graphs.nodes.NODES_REQUIRED`); nodes without edges are
candidates like any other.

The non-private ground truth (:func:`dpmo.graphs.top_k_exact`, :func:`dpmo.graphs.pareto_front` and the
exact scores) is in :mod:`dpmo.graphs.exact`; the two-stage variant (noisy-degree shortlist, then
PrivPareto) in :mod:`dpmo.graphs.two_stage`. This module holds the four private methods: :func:`top_k`
and the scores they sample from, :func:`selection_scores`.
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .. import selection as _selection
from .._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from ..accounting import check_delta
from ..budget import resolve_budget
from ..calls import check_budget_first
from ..epsilons import float_at_most
from ..mechanisms import MECHANISMS
from ..selection import SelectionCache, approaches, get_approach, select_multiobjective
from .centrality import check_convention
from .chebyshev import graph_chebyshev_approach, graph_staircase_approach
from .chebyshev_fixed import released_chebyshev_picks
from .exact import PAPER_WEIGHTS, check_weights
from .graph import Graph
from .io import public_graph
from .objectives import objectives
from .pair_response import pair_count, released_graph_picks, uses_released_graph

__all__ = ["APPROACHES", "SENSITIVITIES", "top_k", "selection_scores"]

#: Values of ``approach`` of :func:`top_k` shipped with dpmo (PrivPareto, PrivAgg, PrivChebyshev); any
#: approach registered with :func:`dpmo.selection.register_approach` is accepted too.
APPROACHES = ("pareto", "agg", "chebyshev", "staircase")
#: Values of ``sensitivity``.
SENSITIVITIES = ("local", "global")


def _selection_cache(g: Graph, low: float, formula: str) -> SelectionCache:
    """The graph's objectives with the pipeline's speed cache bound to them (kept with the graph)."""
    return g.cached(
        ("mo-selection", low, formula),
        lambda: SelectionCache(objectives(g, low_degree=low, formula=formula)),
    )


def selection_scores(
    graph,
    *,
    approach: str = "pareto",
    sensitivity: str = "local",
    weights=PAPER_WEIGHTS,
    low_degree: float = 0.0,
    formula: str = "paper",
    nodes=None,
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
) -> tuple[np.ndarray, float]:
    """Scores and sensitivity a method hands to :func:`dpmo.select` in its first round (cached, read-only).

    * pareto / global: ``(PS, n - 1)``; pareto / local: ``(D, 1)``, the Pareto scores dampened with
      ``delta^PS`` (:func:`dpmo.pareto.pareto_selection_scores`);
    * agg / global: ``(u_agg, |w_1| + |w_2|)``; agg / local: ``(D, 1)``, the dampened ``u_agg``
      (:func:`dpmo.aggregate.aggregate_selection_scores`).

    ``top_k(..., k=1)`` draws from ``dpmo.select(*selection_scores(...), ...)``: this is what the exhaustive
    privacy audit checks. ``graph``, ``nodes``, ``delimiter``, ``header`` and ``ids`` as in :func:`top_k` (a
    public node set is required).
    The Pareto approach recomputes the scores on the remaining nodes in later rounds (see
    :func:`dpmo.priv_pareto`); the aggregate's scores do not depend on the other nodes.

    Notes
    -----
    Cost on first use: the Pareto score (O(n log n)) or the aggregate (O(n)), plus for ``"local"`` the
    dampening loop (:func:`dpmo.dampen`).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> scores, sensitivity = graphs.selection_scores(g, approach="agg", sensitivity="global", nodes=34)
    >>> sensitivity, bool(abs(scores - graphs.aggregate_scores(g).values).max() < 1e-9)
    (101.0, True)
    >>> scores, sensitivity = graphs.selection_scores(g, approach="pareto", sensitivity="local", nodes=34)
    >>> sensitivity  # dampened scores have sensitivity 1
    1.0
    """
    g = public_graph(graph, nodes, "selection_scores", delimiter=delimiter, header=header, ids=ids)
    appr = get_approach(check_choice(approach, approaches(), "approach"))
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    w = check_weights(weights)
    low, formula = check_convention(low_degree, formula)
    if g.n_nodes < 2:
        raise ValueError("private selection needs a graph with at least 2 nodes")
    cache = _selection_cache(g, low, formula)
    scores, sens = _selection.selection_scores(
        cache.objectives,
        approach=appr,
        sensitivity=sensitivity,
        weights=w if appr.uses_weights else None,
        cache=cache,
    )
    scores.setflags(write=False)
    return scores, sens


def top_k(
    graph,
    k: int,
    epsilon: float,
    *,
    approach: str = _defaults.GRAPH_APPROACH,
    sensitivity: str = _defaults.SENSITIVITY,
    weights=_defaults.GRAPH_WEIGHTS,
    mechanism: str = _defaults.MECHANISM,
    rng=None,
    low_degree: float = 0.0,
    formula: str = "paper",
    budget=None,
    directions=None,
    aspirations=None,
    shares=None,
    exact: bool = _defaults.EXACT,
    nodes=None,
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
    delta: float = 0.0,
) -> np.ndarray:
    """DP-MOTkIN: ``k`` influential nodes chosen under epsilon-edge differential privacy.

    Parameters
    ----------
    graph : Graph or anything :func:`dpmo.graphs.load_graph` accepts
        Load once with ``load_graph(source, nodes=...)`` and pass the :class:`Graph` to reuse its cached
        utilities.
    k : int
        Number of nodes, ``1 <= k <= n``.
    epsilon : float
        Total privacy budget (> 0); each of the ``k`` rounds gets ``epsilon / k``.
    approach : {"pareto", "agg", "chebyshev", "staircase"}, default "agg"
        Default shared with ``dpmo topk`` (:mod:`dpmo._defaults`): on the real graphs DP-MOTkIN-Pareto's
        picks are close to random (``docs/graphs.md``), DP-MOTkIN-Agg's are useful; the paper's experiments
        pass their approach explicitly.
        Pareto score (:func:`dpmo.priv_pareto`), weighted sum (:func:`dpmo.priv_agg`), or PrivChebyshev
        (not in the paper): ``"chebyshev"`` without ``directions``, ``aspirations`` and ``shares`` is the
        graph's front-covering default. Where the public rule
        :func:`dpmo.graphs.pair_response.uses_released_graph` holds (a node's expected false edges
        ``(n - 1) r <= 8``, ``r = 1 / (1 + e^epsilon)``: from epsilon 4.82 at ``n = 10^3``, 7.13 at
        ``10^4``, 9.44 at ``10^5``) it
        releases the graph by randomized response on every node pair with all of epsilon and returns the
        greedy hypervolume picks of the released graph (:mod:`dpmo.graphs.pair_response`; one budget
        record; at negligible noise the exact greedy picks of :func:`dpmo.graphs.top_k_exact`;
        ``sensitivity``, ``weights`` and ``mechanism`` do not apply to it, though they are still checked).
        Otherwise,
        and always with ``"staircase"``, it runs the private staircase, whose aspirations come from private
        releases of the degree sequence and of the earlier picks
        (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`; ``docs/pareto.md``) -- for ``k = 3`` at
        epsilon 1-2 its top-first plan (the two highest degrees nearly free, then one ego-density round with
        the rest), between 2 and 5 one of the two by a public coin drawn from ``rng``
        (:func:`dpmo.graphs.chebyshev.graph_staircase_approach`); with any of them,
        :func:`dpmo.priv_chebyshev` with those public settings (the fixed graph settings
        :func:`dpmo.graphs.chebyshev.graph_chebyshev_settings` for the others).
    sensitivity : {"local", "global"}
        Local dampening with the admissible functions, or the global sensitivity.
    weights : (float, float), default (1.0, 100.0)
        ``(w_degree, w_ego_density)`` for ``approach="agg"`` (the paper's order and values); ignored by
        ``"pareto"`` (but still checked).
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    low_degree : float in [0, 1], default 0
        Ego density of nodes of degree < 2 (the published code uses 1 for degree-1 nodes).
    formula : {"paper", "published"}, default "paper"
        Ego density formula, see :func:`dpmo.graphs.ego_density`.
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed; one
        record per round, ``epsilon / k`` each (``"chebyshev"`` with settings: its public ``shares``; the
        staircase: one record per release and per round, its public plan). Without it the call spends
        ``epsilon`` of its own.
    directions, aspirations, shares : optional
        Public settings of ``approach="chebyshev"`` (see :func:`dpmo.priv_chebyshev`; objectives in the
        order degree, ego density); giving any of them selects PrivChebyshev with public settings instead
        of the staircase (:func:`dpmo.graphs.chebyshev.graph_chebyshev_settings` for the others). Where
        :func:`dpmo.graphs.pair_response.uses_released_graph` holds, its rounds run without noise on the
        released graph, Pareto-gated (:func:`dpmo.graphs.chebyshev_fixed.released_chebyshev_picks`: one
        budget record; ``shares`` and ``mechanism`` do not apply), so that at negligible noise no pick is
        dominated while a non-dominated node is left; below it, ``k`` private rounds at the ``shares``
        (``docs/graphs.md``). Refused with the other approaches.
    exact : bool, default True
        Sample exactly (the default; ``False`` opts in to the faster floating-point sampler, measured
        in ``docs/core.md``): :func:`dpmo.select` with ``exact=True``; rng None then reads the OS's secure
        source). The scores are the same floats (see ``docs/core.md``, "Floating point and exact
        sampling").
    nodes : array_like of int, or int
        The public node set (ids, or ``n`` for the ids ``0 .. n-1``); required unless ``graph`` is a
        :class:`Graph` loaded with ``nodes=``. Without it the call is refused with one line
        (:data:`dpmo.graphs.nodes.NODES_REQUIRED`): the nodes that appear in the edges are not public (an
        edge to a leaf makes its node appear). Nodes without edges are candidates like any other.
    delimiter, header, ids : optional
        For an edge-list path: as in :func:`dpmo.graphs.load_graph` (``ids="str"``: text node ids).

    delta : float, default 0
        ``0``: pure epsilon-edge-DP. ``> 0``: the k rounds together are ``(epsilon, delta)``-edge-DP, each
        at the accountant's epsilon (``"chebyshev"``: its shares scaled together by
        :func:`dpmo.accounting.scaled_epsilons`); ``docs/privacy-accounting.md``, "Approximate DP". The
        released graph of the default is pure epsilon-edge-DP whatever ``delta`` (delta unused).

    Returns
    -------
    numpy.ndarray, shape (k,)
        Original ids of the chosen nodes, in selection order.

    Raises
    ------
    ValueError
        Without a public node set, or for bad arguments; never because of the edges.

    Notes
    -----
    Privacy: epsilon-edge-DP (neighbours: graphs on the same public node set that differ in one edge).
    The first round draws from ``dpmo.select(*selection_scores(...))`` (audited exhaustively on all graphs
    with 5 nodes). Later
    rounds remove the chosen nodes; for the Pareto approach the scores are recomputed on the remaining
    nodes (:func:`dpmo.priv_pareto`), for the aggregate they are the same (:func:`dpmo.priv_agg`, whose
    dampened scores are cached on the graph, so repeated calls cost one :func:`dpmo.select`).

    Cost: the utilities once per graph (O(m sqrt(m)) for m edges), then per call ``k`` Pareto scores and
    dampening loops (pareto) or one selection (agg). Measured figures are in ``docs/graphs.md``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> picks = graphs.top_k(g, 3, epsilon=1.0, approach="agg", rng=0, nodes=34)  # 34 members: public
    >>> picks.shape, len(set(picks.tolist())) == 3, set(picks.tolist()) <= set(g.nodes)
    ((3,), True, True)
    """
    check_budget_first(epsilon, budget, delta)  # before the edges are read (issue 37, point 11)
    g = public_graph(graph, nodes, "top_k", delimiter=delimiter, header=header, ids=ids)
    n = g.n_nodes
    k = check_k(k, n)
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    fixed = directions is not None or aspirations is not None or shares is not None
    if fixed and approach != "chebyshev":
        raise ValueError(
            f"directions, aspirations and shares are settings of approach='chebyshev' only; approach "
            f"{approach!r} takes none of them"
        )
    default_plan = approach == "chebyshev" and not fixed  # the graph's front-covering default
    staircase = approach == "staircase" or default_plan
    if staircase:  # PrivChebyshev with private, data-adaptive aspirations (the graph default, docs/pareto.md)
        appr = None  # its plan depends on the call's epsilon: made below, once the budget is resolved
    elif approach == "chebyshev":  # PrivChebyshev with public settings (graph defaults for the unset ones)
        appr = graph_chebyshev_approach(n, k, directions, aspirations, shares)
    else:
        appr = get_approach(check_choice(approach, approaches(), "approach"))
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    w = check_weights(weights)
    low, formula = check_convention(low_degree, formula)
    exact = check_exact(exact, mechanism)
    rng = None if exact and rng is None else check_random_state(rng)  # None: the OS's secure source
    check_delta(delta)  # kept as given: a Fraction reaches the budget exactly
    budget, epsilon = resolve_budget(epsilon, budget, delta=delta)  # up front: raises before anything
    # large epsilon: the released graph (a public rule, at the float the sampler will run at)
    if (default_plan or fixed) and uses_released_graph(n, float_at_most(epsilon)):
        if fixed:
            appr.round_shares(k, 2)  # the public settings checked before the spend
        picks = "greedy hypervolume picks" if default_plan else "gated Chebyshev picks along the settings"
        eps = budget.spend(
            epsilon,
            f"top_k: randomized response on the {pair_count(n)} node pairs (the released graph; its {picks} "
            "are post-processing)",
            mechanism="randomized_response",
            sensitivity=1,
            candidates=pair_count(n),
        )
        if default_plan:
            idx = released_graph_picks(g, k, eps, rng=rng, exact=exact, low=low, formula=formula)
        else:
            idx = released_chebyshev_picks(
                g,
                k,
                eps,
                directions=directions,
                aspirations=aspirations,
                sensitivity=sensitivity,
                rng=rng,
                exact=exact,
                low=low,
                formula=formula,
            )
        return g.ids[idx]
    if staircase:  # the top-first plan or the staircase (a public coin on some epsilons), before any spend
        appr = graph_staircase_approach(n, k, formula, epsilon=float(epsilon), rng=rng)
    # The multi-objective pipeline, with its speed cache bound to the graph's objectives: the Pareto
    # approach keeps each round's scores keyed by the nodes already chosen (repeated calls skip the rounds
    # already seen, always the first one), the aggregate its dampened scores. Outputs are those of
    # priv_pareto / priv_agg / priv_chebyshev on the same objectives (checked in the tests).
    cache = _selection_cache(g, low, formula)
    idx = select_multiobjective(
        cache.objectives,
        epsilon,
        approach=appr,
        sensitivity=sensitivity,
        weights=w if appr.uses_weights else None,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        cache=cache,
        what="top_k",
        exact=exact,
        delta=delta,
    )
    return g.ids[np.asarray(idx, dtype=np.intp)]
