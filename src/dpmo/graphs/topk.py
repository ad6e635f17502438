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

The non-private ground truth is :func:`top_k_exact` (largest Pareto score or largest weighted sum) and
:func:`pareto_front`.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from .. import _defaults
from .._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from ..aggregate import aggregate
from ..budget import resolve_budget
from ..mechanisms import MECHANISMS
from ..mechanisms.exact import random_permutation, sample_discrete_laplace
from ..pareto import pareto_score
from ..selection import SelectionCache, approaches, get_approach, select_multiobjective
from ..selection import selection_scores as _pipeline_scores
from .chebyshev import top_k_chebyshev
from .io import Graph
from .nodes import observed_graph, public_graph
from .objectives import objectives
from .utilities import check_convention

__all__ = [
    "APPROACHES",
    "SENSITIVITIES",
    "DOMINANCE",
    "top_k",
    "top_k_exact",
    "pareto_front",
    "pareto_scores",
    "aggregate_scores",
    "selection_scores",
    "top_k_two_stage",
    "two_stage_candidates",
]

#: Values of ``approach`` shipped with dpmo (any approach registered with
#: :func:`dpmo.selection.register_approach` is accepted too).
APPROACHES = ("pareto", "agg")
#: Values of ``sensitivity``.
SENSITIVITIES = ("local", "global")
#: Readings of dominance accepted by :func:`pareto_front` (as in :data:`dpmo.metrics.DOMINANCE`).
DOMINANCE = ("pareto", "strict", "weak")

_PAPER_WEIGHTS = (1.0, 100.0)


def _graph(graph) -> Graph:
    """For the exact (non-private) functions: a raw input keeps its own node set."""
    return observed_graph(graph)


def _selection_cache(g: Graph, low: float, formula: str) -> SelectionCache:
    """The graph's objectives with the pipeline's speed cache bound to them (kept with the graph)."""
    return g.cached(
        ("mo-selection", low, formula),
        lambda: SelectionCache(objectives(g, low_degree=low, formula=formula)),
    )


def _weights_key(weights) -> tuple[float, float]:
    w = np.asarray(weights, dtype=np.float64) if not isinstance(weights, str) else None
    if w is None or w.shape != (2,) or not np.all(np.isfinite(w)):
        raise ValueError(
            f"weights must be two finite numbers (w_degree, w_ego_density), as the paper's (1.0, 100.0); got "
            f"{weights!r}"
        )
    return float(w[0]), float(w[1])


def pareto_scores(graph, *, low_degree: float = 0.0, formula: str = "paper") -> np.ndarray:
    """Pareto score of every node over (degree, ego density) (:func:`dpmo.pareto_score`; cached).

    Weak dominance, as the paper's Definition "Pareto Score": ``PS(v) = -#{u != v : deg(u) >= deg(v) and
    ed(u) >= ed(v)}``. O(n log n) on first use, read-only int64 array.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> ps = graphs.pareto_scores(g)
    >>> deg, ed = graphs.degree(g), graphs.ego_density(g)
    >>> # minus the number of other nodes at least as good in both objectives
    >>> at_least = lambda u, v: u != v and deg[u] >= deg[v] and ed[u] >= ed[v]
    >>> manual = [-sum(at_least(u, v) for u in range(34)) for v in range(34)]
    >>> ps.tolist() == manual
    True
    """
    g = _graph(graph)
    low, formula = check_convention(low_degree, formula)

    def build():
        ps = pareto_score(g.points(low_degree=low, formula=formula))
        ps.setflags(write=False)
        return ps

    return g.cached(("pareto_score", low, formula), build)


def aggregate_scores(graph, *, weights=_PAPER_WEIGHTS, low_degree: float = 0.0, formula: str = "paper"):
    """``u_agg = w_degree * degree + w_ego * ego density`` as a :class:`dpmo.Objective` (cached).

    :func:`dpmo.aggregate` of :func:`dpmo.graphs.objectives.objectives`: global sensitivity
    ``|w_degree| + |w_ego|``, local ``|w_degree| + |w_ego| * delta^ego``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> agg = graphs.aggregate_scores(g, weights=(1.0, 100.0))
    >>> expected = graphs.degree(g) + 100.0 * graphs.ego_density(g)
    >>> bool(abs(agg.values - expected).max() < 1e-9), agg.global_sensitivity
    (True, 101.0)
    """
    g = _graph(graph)
    low, formula = check_convention(low_degree, formula)
    w = _weights_key(weights)
    return g.cached(
        ("aggregate", w, low, formula),
        lambda: aggregate(objectives(g, low_degree=low, formula=formula), w),
    )


def selection_scores(
    graph,
    *,
    approach: str = "pareto",
    sensitivity: str = "local",
    weights=_PAPER_WEIGHTS,
    low_degree: float = 0.0,
    formula: str = "paper",
    nodes=None,
) -> tuple[np.ndarray, float]:
    """Scores and sensitivity a method hands to :func:`dpmo.select` in its first round (cached, read-only).

    * pareto / global: ``(PS, n - 1)``; pareto / local: ``(D, 1)``, the Pareto scores dampened with
      ``delta^PS`` (:func:`dpmo.pareto.pareto_selection_scores`);
    * agg / global: ``(u_agg, |w_1| + |w_2|)``; agg / local: ``(D, 1)``, the dampened ``u_agg``
      (:func:`dpmo.aggregate.aggregate_selection_scores`).

    ``top_k(..., k=1)`` draws from ``dpmo.select(*selection_scores(...), ...)``: this is what the exhaustive
    privacy audit checks. ``graph`` and ``nodes`` as in :func:`top_k` (a public node set is required).
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
    g = public_graph(graph, nodes, "selection_scores")
    appr = get_approach(check_choice(approach, approaches(), "approach"))
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    w = _weights_key(weights)
    low, formula = check_convention(low_degree, formula)
    if g.n_nodes < 2:
        raise ValueError("private selection needs a graph with at least 2 nodes")
    cache = _selection_cache(g, low, formula)
    scores, sens = _pipeline_scores(
        cache.objectives,
        approach=appr.name,
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
    exact: bool = False,
    nodes=None,
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
    approach : {"pareto", "agg", "chebyshev"}, default "agg"
        Default shared with ``dpmo topk`` (:mod:`dpmo._defaults`): on the real graphs DP-MOTkIN-Pareto's
        picks are close to random (``docs/graphs.md``), DP-MOTkIN-Agg's are useful; the paper's experiments
        pass their approach explicitly.
        Pareto score (:func:`dpmo.priv_pareto`), weighted sum (:func:`dpmo.priv_agg`), or PrivChebyshev
        (:func:`dpmo.priv_chebyshev`, not in the paper: k public directions spread the picks along the
        front; defaults :func:`dpmo.graphs.chebyshev.graph_chebyshev_settings`).
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
        record of ``epsilon / k`` per round. Without it the call spends ``epsilon`` of its own.
    directions, aspirations, shares : optional
        Public settings of ``approach="chebyshev"`` (see :func:`dpmo.priv_chebyshev`; objectives in the
        order degree, ego density); ignored by the other approaches.
    exact : bool, default False
        Sample exactly (:func:`dpmo.select` with ``exact=True``; rng None then reads the OS's secure
        source). The scores are the same floats (see ``docs/core.md``, "Floating point and exact
        sampling").
    nodes : array_like of int, or int
        The public node set (ids, or ``n`` for the ids ``0 .. n-1``); required unless ``graph`` is a
        :class:`Graph` loaded with ``nodes=``. Without it the call is refused with one line
        (:data:`dpmo.graphs.nodes.NODES_REQUIRED`): the nodes that appear in the edges are not public (an
        edge to a leaf makes its node appear). Nodes without edges are candidates like any other.

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
    g = public_graph(graph, nodes, "top_k")
    n = g.n_nodes
    k = check_k(k, n)
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    if approach == "chebyshev":  # PrivChebyshev (dpmo.chebyshev): its own rounds and shares
        appr = None
    else:
        appr = get_approach(check_choice(approach, (*approaches(), "chebyshev"), "approach"))
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    w = _weights_key(weights)
    low, formula = check_convention(low_degree, formula)
    exact = check_exact(exact, mechanism)
    rng = None if exact and rng is None else check_random_state(rng)  # None: the OS's secure source
    budget, epsilon = resolve_budget(epsilon, budget)  # up front: raises before anything is computed
    if appr is None:
        if n == 1:
            budget.spend(epsilon, "top_k: the only node, no data used")
            return g.ids.copy()  # the only node, without looking at the (edgeless) data
        idx = top_k_chebyshev(
            objectives(g, low_degree=low, formula=formula),
            n,
            k,
            epsilon,
            directions=directions,
            aspirations=aspirations,
            shares=shares,
            sensitivity=sensitivity,
            mechanism=mechanism,
            rng=rng,
            budget=budget,
            exact=exact,
        )
        return g.ids[np.asarray(idx, dtype=np.intp)]
    # The multi-objective pipeline, with its speed cache bound to the graph's objectives: the Pareto
    # approach keeps each round's scores keyed by the nodes already chosen (repeated calls skip the rounds
    # already seen, always the first one), the aggregate its dampened scores. Outputs are those of
    # priv_pareto / priv_agg on the same objectives (checked in the tests).
    cache = _selection_cache(g, low, formula)
    idx = select_multiobjective(
        cache.objectives,
        epsilon,
        approach=appr.name,
        sensitivity=sensitivity,
        weights=w if appr.uses_weights else None,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        cache=cache,
        what="top_k",
        exact=exact,
    )
    return g.ids[np.asarray(idx, dtype=np.intp)]


def _exact_order(g: Graph, primary: np.ndarray, low: float, formula: str) -> np.ndarray:
    """Indices by primary desc, then degree desc, ego density desc, index (= original id) asc."""
    ed = g.ego_density(low_degree=low, formula=formula)
    idx = np.arange(g.n_nodes)
    return np.lexsort((idx, -ed, -g.degree, -np.asarray(primary, dtype=np.float64)))


def top_k_exact(
    graph,
    k: int,
    *,
    approach: str = _defaults.GRAPH_APPROACH,
    weights=_defaults.GRAPH_WEIGHTS,
    low_degree: float = 0.0,
    formula: str = "paper",
) -> np.ndarray:
    """The non-private top-k: largest Pareto score, or largest weighted sum (original ids).

    Ties are broken by a fixed rule that does not depend on the order of the input: larger degree first,
    then larger ego density, then smaller original id (for networkx graphs whose labels cannot be sorted,
    networkx's node order stands for the id order). GitHub has 46 nodes with Pareto score 0, so with
    ``approach="pareto"`` and ``k < 46`` "the" top-k is this choice: the Pareto-optimal nodes of largest
    degree. Use :func:`pareto_front` for a reference free of that choice.

    Parameters
    ----------
    graph, approach, weights, low_degree, formula
        As in :func:`top_k`.
    k : int
        ``1 <= k <= n``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        Original ids, best first.

    Notes
    -----
    O(n log n) (cached scores, one lexicographic sort).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> best = graphs.top_k_exact(g, 2, approach="agg")  # NOT PRIVATE: a reference for checks
    >>> agg = graphs.degree(g) + 100 * graphs.ego_density(g)
    >>> sorted(agg.tolist(), reverse=True)[:2] == [agg[v] for v in best.tolist()]
    True
    """
    g = _graph(graph)
    k = check_k(k, g.n_nodes)
    approach = check_choice(approach, APPROACHES, "approach")
    w = _weights_key(weights)
    low, formula = check_convention(low_degree, formula)
    if approach == "pareto":
        primary = pareto_scores(g, low_degree=low, formula=formula)
    else:
        primary = aggregate_scores(g, weights=w, low_degree=low, formula=formula).values
    order = _exact_order(g, primary, low, formula)
    return g.ids[order[:k]]


def pareto_front(
    graph, *, dominance: str = "pareto", low_degree: float = 0.0, formula: str = "paper"
) -> np.ndarray:
    """The Pareto front of the graph over (degree, ego density), as original ids.

    Parameters
    ----------
    graph : Graph or anything :func:`dpmo.graphs.load_graph` accepts
    dominance : {"pareto", "strict", "weak"}, default "pareto"
        Which nodes count as dominated:

        * ``"pareto"`` (textbook): another node is no worse in both objectives and better in one. Nodes with
          identical objective vectors are all on the front together.
        * ``"strict"``: another node is better in both objectives (the reading of the coverage metric C of
          the published code); the front is larger (it keeps ties in one objective).
        * ``"weak"``: another node is no worse in both (the paper's definition); the front is the set of
          nodes with Pareto score 0, which excludes nodes whose vector is shared with another node.
    low_degree, formula
        Ego density convention, see :func:`dpmo.graphs.ego_density`.

    Returns
    -------
    numpy.ndarray
        Original ids of the front, by decreasing degree (then decreasing ego density, increasing id).

    Notes
    -----
    O(n log n): one sort by degree and a running maximum of the ego density over larger degrees.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> front = graphs.pareto_front(g)
    >>> deg, ed = graphs.degree(g), graphs.ego_density(g)
    >>> # no node is at least as good in both objectives and better in one than a front node
    >>> all(not any(deg[u] >= deg[v] and ed[u] >= ed[v] and (deg[u] > deg[v] or ed[u] > ed[v])
    ...             for u in range(34)) for v in front)
    True
    """
    g = _graph(graph)
    dominance = check_choice(dominance, DOMINANCE, "dominance")
    low, formula = check_convention(low_degree, formula)
    key = ("front", dominance, low, formula)
    idx = g.cached(
        key, lambda: _front_indices(g.degree, g.ego_density(low_degree=low, formula=formula), dominance)
    )
    order = _exact_order(g, np.zeros(g.n_nodes), low, formula)
    on = np.zeros(g.n_nodes, dtype=bool)
    on[idx] = True
    return g.ids[order[on[order]]]


def _front_indices(deg: np.ndarray, ed: np.ndarray, dominance: str) -> np.ndarray:
    """Indices of the nodes not dominated (in the given reading) by another node, for 2 objectives."""
    n = deg.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.intp)
    order = np.lexsort((ed, deg))  # by degree, then ego density, increasing
    d_s = deg[order]
    e_s = ed[order]
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(d_s[1:], d_s[:-1], out=starts[1:])
    group = np.cumsum(starts) - 1
    ends = np.flatnonzero(np.r_[starts[1:], True])  # last (largest ego density) position of each degree
    group_max = e_s[ends]
    above = np.full(group_max.shape[0], -np.inf)  # largest ego density among strictly larger degrees
    if group_max.shape[0] > 1:
        above[:-1] = np.maximum.accumulate(group_max[::-1])[::-1][1:]
    best_above = above[group]
    if dominance == "strict":
        on = e_s >= best_above
    else:
        on = (e_s > best_above) & (e_s == group_max[group])
        if dominance == "weak":  # a node sharing its (degree, ego density) with another has score <= -1
            same = np.zeros(n + 1, dtype=bool)
            same[1:n] = (d_s[1:] == d_s[:-1]) & (e_s[1:] == e_s[:-1])
            on &= ~(same[:-1] | same[1:])
    return np.sort(order[on])


# ----------------------------------------------------------------------------------------------------------
# Beyond the paper: restrict the candidates by a private pass on degree, then PrivPareto among them
# ----------------------------------------------------------------------------------------------------------
def _check_share(degree_share) -> float:
    if isinstance(degree_share, (bool, np.bool_)) or not isinstance(
        degree_share, (numbers.Real, np.floating)
    ):
        raise TypeError(f"degree_share must be a number in (0, 1), got {type(degree_share).__name__}")
    share = float(degree_share)
    if not 0.0 < share < 1.0:
        raise ValueError(f"degree_share must lie strictly between 0 and 1, got {degree_share!r}")
    return share


def two_stage_candidates(
    graph, epsilon: float, candidates: int, *, rng=None, budget=None, exact: bool = False, nodes=None
) -> np.ndarray:
    """Stage 1 of :func:`top_k_two_stage`: the ``candidates`` nodes of largest noisy degree (indices).

    Releases (internally) the whole degree vector with Laplace noise of scale ``2 / epsilon`` and keeps the
    ``candidates`` largest entries. One edge changes exactly two degrees by 1, so the degree vector has
    L1 sensitivity 2 and the noisy vector is epsilon-edge-DP (Laplace mechanism, Dwork et al. 2006); the
    choice of the top entries is post-processing. O(n) time (``argpartition``) and memory. ``graph`` and
    ``nodes`` as in :func:`top_k` (a public node set is required; isolated nodes get a noisy degree too).

    ``budget`` (a :class:`dpmo.Budget`, optional): spend ``epsilon`` from it (one record, mechanism
    ``"laplace"``, sensitivity 2), right before the noise is drawn; None: all it has left.

    ``exact=True``: the degrees are integers, and the noise is exact discrete Laplace noise with
    ``P(z) ~ exp(-epsilon |z| / 2)`` (the geometric mechanism, epsilon-edge-DP for L1 sensitivity 2;
    :func:`dpmo.mechanisms.exact.sample_discrete_laplace`) from the OS's secure source when rng is None;
    equal noisy degrees are ordered by a uniformly random permutation (post-processing).

    Returns
    -------
    numpy.ndarray of intp, shape (candidates,)
        Sorted by decreasing noisy degree.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> short = graphs.two_stage_candidates(g, epsilon=1.0, candidates=5, rng=0, nodes=34)
    >>> short.shape, len(set(short.tolist())) == 5
    ((5,), True)
    """
    g = public_graph(graph, nodes, "two_stage_candidates")
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    m = check_k(candidates, g.n_nodes, "candidates")
    exact = check_exact(exact)
    gen = None if exact and rng is None else check_random_state(rng)
    budget, total = resolve_budget(epsilon, budget)
    epsilon = budget.spend(
        total,
        f"two_stage_candidates: noisy degree vector, shortlist of {m}",
        mechanism="laplace",
        sensitivity=2.0,
        candidates=g.n_nodes,
    )
    if exact:
        noise = sample_discrete_laplace(g.n_nodes, total / 2, gen)
        noisy = np.asarray(g.degree, dtype=np.int64) + noise
        order = random_permutation(g.n_nodes, gen)
        ranked = order[np.argsort(-noisy[order], kind="stable")]
        return ranked[:m].astype(np.intp)
    noisy = g.degree + gen.laplace(scale=2.0 / epsilon, size=g.n_nodes)
    if m < g.n_nodes:
        part = np.argpartition(-noisy, m - 1)[:m]
    else:
        part = np.arange(g.n_nodes)
    return part[np.argsort(-noisy[part], kind="stable")].astype(np.intp)


def top_k_two_stage(
    graph,
    k: int,
    epsilon: float,
    *,
    candidates: int = 100,
    degree_share: float = 0.1,
    sensitivity: str = "local",
    mechanism: str = "exponential",
    rng=None,
    low_degree: float = 0.0,
    formula: str = "paper",
    budget=None,
    exact: bool = False,
    nodes=None,
) -> np.ndarray:
    """Private Pareto top-k in two stages: noisy-degree shortlist, then PrivPareto on the shortlist.

    Not in the paper. On the real graphs the Pareto score of a low-degree node is extremely sensitive (one
    edge can move its ego density from 0 to 1, past thousands of nodes), so the dampened scores of all
    nodes are squeezed into [-2, 0] and DP-MOTkIN-Pareto picks a Pareto-optimal node with probability about
    0.002 (``docs/graphs.md``). Restricting the candidates to high-degree nodes, whose ego density moves by
    at most ``2 / degree`` per edge, removes most of that noise:

    1. with ``epsilon_1 = degree_share * epsilon``: :func:`two_stage_candidates` keeps the ``candidates``
       nodes of largest noisy degree (Laplace mechanism on the degree vector);
    2. with ``epsilon_2 = epsilon - epsilon_1``: :func:`dpmo.priv_pareto` (``k`` rounds, ``epsilon_2 / k``
       each) on degree and ego density restricted to the shortlist; the Pareto score counts dominating nodes
       of the shortlist only.

    Privacy: epsilon-edge-DP by sequential composition (neighbours differ in one edge; the node set is
    public). Stage 2 is epsilon_2-DP for every fixed shortlist, because the element local sensitivities of
    degree and ego density do not depend on which other nodes are candidates and ``delta^PS`` is
    admissible for any candidate set; ``tests/test_graphs_sensitivity.py`` checks the exact output
    probabilities of stage 2 for every shortlist of every graph on 5 nodes, and that the degree vector's
    L1 sensitivity is 2.

    Parameters
    ----------
    graph, k, epsilon, sensitivity, mechanism, rng, low_degree, formula, nodes
        As in :func:`top_k` (``k <= candidates``; a public node set is required).
    candidates : int, default 100
        Size of the shortlist (public), ``k <= candidates <= n``.
    degree_share : float in (0, 1), default 0.1
        Share of epsilon spent on the shortlist.
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed: one record
        for the shortlist (``degree_share * epsilon``, Laplace) and one per round of stage 2 (the rest,
        divided by ``k``). Without it the call spends ``epsilon`` of its own.
    exact : bool, default False
        Both stages exact: discrete Laplace noise on the degrees (see :func:`two_stage_candidates`) and
        exact sampling in stage 2; rng None then reads the OS's secure source.

    Returns
    -------
    numpy.ndarray, shape (k,)
        Original ids of the chosen nodes, in selection order.

    Notes
    -----
    Because a node's dominators have at least its degree, a shortlist that holds every node above some
    degree has the same Pareto front as the graph on it; the noisy shortlist is close to that. The output is
    biased towards the high-degree end of the front (it never returns a front node outside the shortlist).
    Cost: O(n) for stage 1, then ``k`` Pareto scores and dampening loops on ``candidates`` nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> picks = graphs.top_k_two_stage(g, 3, epsilon=2.0, candidates=10, rng=0, nodes=34)
    >>> picks.shape, len(set(picks.tolist())) == 3, set(picks.tolist()) <= set(g.nodes)
    ((3,), True, True)
    """
    g = public_graph(graph, nodes, "top_k_two_stage")
    n = g.n_nodes
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    m = check_k(candidates, n, "candidates")
    k = check_k(k, m)
    share = _check_share(degree_share)
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    low, formula = check_convention(low_degree, formula)
    exact = check_exact(exact, mechanism)
    gen = None if exact and rng is None else check_random_state(rng)  # None: the OS's secure source
    budget, total = resolve_budget(epsilon, budget)
    # stage 1 gets the float share * epsilon (exactly, as a Fraction), stage 2 the exact rest
    eps1 = Fraction(float(Fraction(share) * total))
    eps2 = total - eps1
    shortlist = two_stage_candidates(g, eps1, m, rng=gen, budget=budget, exact=exact)
    if m == 1:
        budget.spend(eps2, "top_k_two_stage: stage 2, the only candidate, no data used")
        return g.ids[shortlist]
    objs = [o.take(shortlist) for o in objectives(g, low_degree=low, formula=formula)]
    idx = select_multiobjective(
        objs,
        eps2,
        approach="pareto",
        sensitivity=sensitivity,
        mechanism=mechanism,
        k=k,
        rng=gen,
        budget=budget,
        what="top_k_two_stage: stage 2",
        exact=exact,
    )
    return g.ids[shortlist[np.asarray(idx, dtype=np.intp)]]
