"""Exact (non-private) ground truth of DP-MOTkIN: Pareto scores, weighted sums, exact top-k, Pareto front.

The references the private methods of :mod:`dpmo.graphs.topk` are measured against (the paper's
section "Application 2"): :func:`pareto_scores` (the Pareto score over degree and ego density),
:func:`aggregate_scores` (``w_degree * degree + w_ego * ego density``), :func:`top_k_exact` (largest
score, ties broken by degree, ego density, id) and :func:`pareto_front` (three readings of dominance,
:data:`DOMINANCE`). Not private: they read the graph exactly and take any graph with its own node set.
Also the values shared with the private methods: :data:`APPROACHES`, :data:`PAPER_WEIGHTS` and
:func:`check_weights`.
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .._validation import check_choice, check_k
from ..aggregate import aggregate, weight_scale
from ..pareto import pareto_score
from .centrality import check_convention
from .graph import Graph
from .io import observed_graph
from .objectives import objectives

__all__ = [
    "APPROACHES",
    "DOMINANCE",
    "PAPER_WEIGHTS",
    "check_weights",
    "pareto_scores",
    "aggregate_scores",
    "top_k_exact",
    "greedy_hypervolume_picks",
    "pareto_front",
]

#: Values of ``approach`` of :func:`top_k_exact`: every approach of :func:`dpmo.graphs.top_k` shipped with
#: dpmo (the private functions accept any approach registered with :func:`dpmo.selection.register_approach`
#: too; it has no exact reference here).
APPROACHES = ("pareto", "agg", "chebyshev", "staircase")
#: The approaches whose reference is the greedy hypervolume picks (:func:`top_k_exact`).
SPREAD_APPROACHES = ("chebyshev", "staircase")
#: Readings of dominance accepted by :func:`pareto_front` (as in :data:`dpmo.metrics.DOMINANCE`).
DOMINANCE = ("pareto", "strict", "weak")
#: The paper's weights ``(w_degree, w_ego_density)`` of the aggregate approach.
PAPER_WEIGHTS = (1.0, 100.0)


def _graph(graph, **read) -> Graph:
    """For the exact (non-private) functions: a raw input keeps its own node set."""
    return observed_graph(graph, **read)


def check_weights(weights) -> tuple[float, float]:
    try:
        w = np.asarray(weights, dtype=np.float64) if not isinstance(weights, (str, bytes)) else None
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (2,) or not np.all(np.isfinite(w)):
        raise ValueError(
            f"weights must be two finite numbers (w_degree, w_ego_density), as the paper's (1.0, 100.0); got "
            f"{weights!r}"
        )
    return float(w[0]), float(w[1])


def pareto_scores(
    graph,
    *,
    low_degree: float = 0.0,
    formula: str = "paper",
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
) -> np.ndarray:
    """Pareto score of every node over (degree, ego density) (:func:`dpmo.pareto_score`; cached).

    Weak dominance, as the paper's Definition "Pareto Score": ``PS(v) = -#{u != v : deg(u) >= deg(v) and
    ed(u) >= ed(v)}``. O(n log n) on first use, read-only int64 array. ``graph`` as in
    :func:`pareto_front` (a path read with ``delimiter``, ``header`` and ``ids`` of :func:`load_graph`).

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
    g = _graph(graph, delimiter=delimiter, header=header, ids=ids)
    low, formula = check_convention(low_degree, formula)

    def build():
        ps = pareto_score(g.points(low_degree=low, formula=formula))
        ps.setflags(write=False)
        return ps

    return g.cached(("pareto_score", low, formula), build)


def aggregate_scores(
    graph,
    *,
    weights=PAPER_WEIGHTS,
    low_degree: float = 0.0,
    formula: str = "paper",
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
):
    """``u_agg = w_degree * degree + w_ego * ego density`` as a :class:`dpmo.Objective` (cached).

    :func:`dpmo.aggregate` of :func:`dpmo.graphs.objectives.objectives`: global sensitivity
    ``|w_degree| + |w_ego|``, local ``|w_degree| + |w_ego| * delta^ego``. ``graph`` as in
    :func:`pareto_front` (a path read with ``delimiter``, ``header`` and ``ids`` of :func:`load_graph`).

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
    g = _graph(graph, delimiter=delimiter, header=header, ids=ids)
    low, formula = check_convention(low_degree, formula)
    w = check_weights(weights)
    return g.cached(
        ("aggregate", w, low, formula),
        lambda: aggregate(objectives(g, low_degree=low, formula=formula), w),
    )


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
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
) -> np.ndarray:
    """The non-private top-k: largest Pareto score, largest weighted sum, or the greedy hypervolume picks.

    ``"pareto"`` and ``"agg"`` sort by their score. ``"chebyshev"`` and ``"staircase"`` have no score to
    sort by: they spread ``k`` picks along the front of (degree, ego density), so their reference is the
    greedy hypervolume algorithm that the staircase imitates privately (``docs/pareto.md``): each round
    takes the node that adds the largest area to the region the earlier picks dominate above ``(0, 0)``
    (only front nodes add any; ties in the fixed order below; once the front adds nothing, its other nodes --
    duplicates of its points -- come before the dominated ones: :func:`greedy_hypervolume_picks`).

    Ties are broken by a fixed rule that does not depend on the order of the input: larger degree first,
    then larger ego density, then smaller original id (for networkx graphs whose labels cannot be sorted,
    networkx's node order stands for the id order). GitHub has 46 nodes with Pareto score 0, so with
    ``approach="pareto"`` and ``k < 46`` "the" top-k is this choice: the Pareto-optimal nodes of largest
    degree. Use :func:`pareto_front` for a reference free of that choice.

    Parameters
    ----------
    graph, weights, low_degree, formula, delimiter, header, ids
        As in :func:`top_k`.
    approach : {"pareto", "agg", "chebyshev", "staircase"}, default "agg"
        As in :func:`top_k` (:data:`APPROACHES`).
    k : int
        ``1 <= k <= n``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        Original ids, best first (``"chebyshev"``, ``"staircase"``: in the greedy order).

    Notes
    -----
    O(n log n) (cached scores, one lexicographic sort); the greedy picks add O(k f) for ``f`` front nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> best = graphs.top_k_exact(g, 2, approach="agg")  # NOT PRIVATE: a reference for checks
    >>> agg = graphs.degree(g) + 100 * graphs.ego_density(g)
    >>> sorted(agg.tolist(), reverse=True)[:2] == [agg[v] for v in best.tolist()]
    True
    >>> spread = graphs.top_k_exact(g, 2, approach="staircase")  # NOT PRIVATE: greedy hypervolume picks
    >>> deg, ed = graphs.degree(g), graphs.ego_density(g)
    >>> first = int(spread[0])  # the first greedy pick has the largest degree * ego density
    >>> bool(deg[first] * ed[first] == max(deg * ed))
    True
    """
    g = _graph(graph, delimiter=delimiter, header=header, ids=ids)
    k = check_k(k, g.n_nodes)
    approach = check_choice(approach, APPROACHES, "approach")
    w = check_weights(weights)
    low, formula = check_convention(low_degree, formula)
    if approach in SPREAD_APPROACHES:
        return g.ids[_greedy_hypervolume(g, k, low, formula)]
    if approach == "pareto":
        primary = pareto_scores(g, low_degree=low, formula=formula)
    else:  # weights whose sum |w_i| overflows: divided by a power of two, as top_k does (same order)
        scaled = np.ldexp(w, -weight_scale(np.asarray(w))) if not np.isfinite(abs(w[0]) + abs(w[1])) else w
        primary = aggregate_scores(g, weights=tuple(scaled), low_degree=low, formula=formula).values
    order = _exact_order(g, primary, low, formula)
    return g.ids[order[:k]]


def _greedy_hypervolume(g: Graph, k: int, low: float, formula: str) -> np.ndarray:
    """Indices of the greedy hypervolume picks of ``g`` (:func:`greedy_hypervolume_picks`)."""
    ed = g.ego_density(low_degree=low, formula=formula)
    return greedy_hypervolume_picks(g.degree, ed, k)


def greedy_hypervolume_picks(degree, ego_density, k: int) -> np.ndarray:
    """Indices of ``k`` greedy hypervolume picks of the points ``(degree, ego_density)`` (NOT PRIVATE).

    Reference ``(0, 0)``; ties in the fixed order (degree desc, ego density desc, index asc). In that order
    a node is a *corner* of the front when its ego density exceeds that of every node before it: the
    distinct non-dominated points, by degree desc and ego density asc; any other node adds no area once its
    corner is picked, so the greedy rounds look at the corners only. Between picked corners ``L`` (larger
    degree) and ``R`` (smaller degree) a corner ``p`` adds the box ``(deg_R, deg_p] x (ed_L, ed_p]``
    exactly (0 where there is no such pick). Once the front adds nothing, the remaining picks are the
    front's other nodes (duplicates of its points), then the dominated nodes, each in the fixed order: no
    pick is dominated while a front node is left.

    Parameters
    ----------
    degree, ego_density : array_like, shape (n,)
        The two objectives (maximised), finite.
    k : int
        ``1 <= k <= n``.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Distinct indices, in the greedy order.

    Notes
    -----
    O(n log n) for the order, then O(k f) for ``f`` corners.

    Examples
    --------
    >>> greedy_hypervolume_picks([5, 3, 1, 3], [0.1, 0.5, 1.0, 0.4], 2).tolist()  # 1.5, then 0.5 more
    [1, 2]
    """
    deg = np.asarray(degree, dtype=np.float64)
    ed = np.asarray(ego_density, dtype=np.float64)
    n = deg.size
    if deg.ndim != 1 or ed.shape != deg.shape:
        raise ValueError(
            f"degree and ego_density must be 1-D of the same length, got {deg.shape} and {ed.shape}"
        )
    if not (np.isfinite(deg).all() and np.isfinite(ed).all()):
        raise ValueError("degree and ego_density must be finite")
    k = check_k(k, n)
    order = np.lexsort((np.arange(n), -ed, -deg))  # degree desc, then ego density desc, then index
    eds = ed[order]
    before = np.concatenate([[-np.inf], np.maximum.accumulate(eds)[:-1]])
    corners = order[eds > before]
    cd, ce = deg[corners], ed[corners]
    f = corners.size
    chosen = np.zeros(f, dtype=bool)
    picks: list[int] = []
    for _ in range(min(k, f)):
        pos = np.arange(f)
        left = np.maximum.accumulate(np.where(chosen, pos, -1))  # nearest pick at or before each corner
        right = np.minimum.accumulate(np.where(chosen, pos, f)[::-1])[::-1]
        ed_left = np.where(left >= 0, ce[np.maximum(left, 0)], 0.0)
        deg_right = np.where(right < f, cd[np.minimum(right, f - 1)], 0.0)
        gain = np.where(chosen, -1.0, (cd - deg_right) * (ce - ed_left))
        j = int(np.argmax(gain))  # the first of the largest: the fixed order breaks ties
        if gain[j] <= 0.0:
            break
        chosen[j] = True
        picks.append(int(corners[j]))
    taken = np.zeros(n, dtype=bool)
    taken[picks] = True
    # after the corners: the front's other nodes (duplicates of its points) first, then the dominated ones
    ds = deg[order]
    new_run = np.r_[True, (ds[1:] != ds[:-1]) | (eds[1:] != eds[:-1])]  # runs of equal points
    run_start = np.flatnonzero(new_run)[np.cumsum(new_run) - 1]
    on_front = (eds > before)[run_start]  # the run's first node is a corner
    left = ~taken[order]
    rest = np.concatenate([order[left & on_front], order[left & ~on_front]])[: k - len(picks)]
    return np.concatenate([np.asarray(picks, dtype=np.intp), rest.astype(np.intp)])


def pareto_front(
    graph,
    *,
    dominance: str = "pareto",
    low_degree: float = 0.0,
    formula: str = "paper",
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
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
    delimiter, header, ids : optional
        For an edge-list path: as in :func:`dpmo.graphs.load_graph` (``ids="str"``: text node ids).

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
    g = _graph(graph, delimiter=delimiter, header=header, ids=ids)
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
