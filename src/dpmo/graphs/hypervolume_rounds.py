"""The hypervolume part of the graph staircase's rounds: what makes them converge (issue 38).

Every round of the staircase plan (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`) scores

    s(r) = tie((1 - t) g(r) / AREA_GAIN_SENSITIVITY + t s_corner(r))

``s_corner`` the round's former score (corners in dampened units, the window on degree), ``tie`` the tie rule
(:meth:`_GraphStaircaseRounds.tie_break`), ``g(r)`` the area that node ``r``'s box ``[0, degree] x [0, ego
density]`` adds to the union of the boxes of the *released* earlier picks (:func:`staircase_area_gains`; an
empty staircase in round 1: ``g = degree x ego density``) and ``t = blend_weight(n_left, eps_j)`` a public
rule. With the staircase public, ``g(r)`` depends on ``r``'s own degree and ego density only, and one edge
moves it by at most :data:`AREA_GAIN_SENSITIVITY` = 2 (proof in ``docs/pareto.md``, "Rounds that converge:
the hypervolume gain"), so the blend keeps sensitivity 1. As epsilon grows ``t`` falls to 0 and the rounds
become the greedy hypervolume algorithm on the exact objectives (:func:`dpmo.graphs.top_k_exact` with
``approach="chebyshev"``); at the paper's budgets ``t = 1`` and nothing changes.
"""

from __future__ import annotations

import math

import numpy as np

from ..chebyshev import dampened_excess
from ..pareto.consistent import PARETO_RESOLVE, resolution
from .objectives import ego_density_delta
from .staircase_rules import signal_threshold, tie_weight

__all__ = [
    "AREA_GAIN_SENSITIVITY",
    "ONE_PICK_PRIOR_EPSILON",
    "staircase_area_gains",
    "DUPLICATE_CAP_SDS",
    "duplicate_cap_weight",
    "capped_area_gains",
    "DUPLICATE_TIE_SPAN",
    "duplicate_tie_weight",
    "duplicate_ties",
    "duplicate_tie_term",
    "blend_weight",
    "one_pick_scores",
    "one_pick_round",
    "point_box",
    "ego_from_dampened",
]

#: Global sensitivity of :func:`staircase_area_gains` for a fixed (public) staircase under the edge-neighbour
#: relation, ego density in either convention (``"paper"``: exactly 2, reached; ``"published"``: 1, and 2 is
#: then a valid, looser bound). Proof: ``docs/pareto.md``; brute force: test_graph_hypervolume_rounds.py.
AREA_GAIN_SENSITIVITY = 2.0

#: The one-pick round's degree prior (``k = 1``, :func:`one_pick_scores`) takes ``min(eps, 0.2)`` of the
#: round's epsilon: from epsilon 0.2 on, its law is one exponential family in epsilon with a fixed base
#: measure, so the expected one-point hypervolume (with the tie term) never falls as epsilon grows, and the
#: expected ratio falls by at most ``(1 / sqrt(n) + 0.75 / n) / (max area / 2)`` (``docs/pareto.md``, "One
#: pick").
ONE_PICK_PRIOR_EPSILON = 0.2


def staircase_area_gains(points, degree, ego) -> np.ndarray:
    """The area ``g(r)`` that each node's box ``[0, degree_r] x [0, ego_r]`` adds to the union of the boxes
    ``[0, a] x [0, b]`` over ``(a, b)`` in ``points`` (reference point the origin; degree in edges).

    Parameters
    ----------
    points : array_like, shape (p, 2)
        The staircase: released (public) ``(degree, ego density)`` of earlier picks; dominated points and
        repeats change nothing. Negative coordinates count as 0.
    degree, ego : array_like, shape (q,)
        The candidates' values (>= 0).

    Returns
    -------
    numpy.ndarray, shape (q,)
        ``degree x ego - area(box within the union)``, >= 0; 0 for a box the staircase covers.

    Notes
    -----
    With the non-dominated points sorted by degree, ``a_1 > ... > a_p`` (then ``b_1 < ... < b_p``) and
    ``a_{p+1} = 0``, the covered part of the box is ``sum_i (min(a_i, d) - min(a_{i+1}, d)) min(b_i, e)``.
    O(p log p + p q) time, O(q) memory per point.

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import staircase_area_gains
    >>> picks = [[8.0, 0.25], [4.0, 0.5]]  # released (degree, ego density) of two earlier picks
    >>> staircase_area_gains(picks, [12.0, 6.0, 3.0, 2.0], [0.125, 0.75, 0.25, 1.0]).tolist()
    [0.5, 2.0, 0.0, 1.0]
    """
    d = np.maximum(np.asarray(degree, dtype=np.float64), 0.0)
    e = np.maximum(np.asarray(ego, dtype=np.float64), 0.0)
    P = np.maximum(np.asarray(points, dtype=np.float64).reshape(-1, 2), 0.0)
    own = d * e
    if P.shape[0] == 0:
        return own
    P = P[np.lexsort((-P[:, 1], -P[:, 0]))]  # degree desc, then ego density desc
    best = np.concatenate([[-np.inf], np.maximum.accumulate(P[:, 1])[:-1]])
    P = P[P[:, 1] > best]  # the non-dominated points: degree strictly falling, ego density strictly rising
    a = np.append(P[:, 0], 0.0)
    covered = np.zeros_like(own)
    for i in range(P.shape[0]):
        covered += (np.minimum(a[i], d) - np.minimum(a[i + 1], d)) * np.minimum(P[i, 1], e)
    return np.maximum(own - covered, 0.0)


#: The gain cap of :func:`capped_area_gains` applies whole while the pick release's noise has a standard
#: deviation of at least ``1 / DUPLICATE_CAP_SDS`` unit (a release off its cell by a step with probability
#: about 0.1 or more), and fades to 0 with the noise (:func:`duplicate_cap_weight`). 2 and 3 measured the
#: same on the generated graphs, 1 leaves part of the star's duplicates (``docs/pareto.md``, "A pick's
#: duplicates capped in the gain").
DUPLICATE_CAP_SDS = 3.0


def duplicate_cap_weight(sd: float) -> float:
    """``min(1, DUPLICATE_CAP_SDS x sd)``: the weight of :func:`capped_area_gains`' cap, ``sd`` the standard
    deviation of the last pick release's degree noise (public: a function of its epsilon). O(1).

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import duplicate_cap_weight
    >>> duplicate_cap_weight(0.86), duplicate_cap_weight(0.1), duplicate_cap_weight(0.0)
    (1.0, 0.30000000000000004, 0.0)
    """
    return min(1.0, DUPLICATE_CAP_SDS * max(float(sd), 0.0))


def capped_area_gains(points, degree, ego, pick_degrees, weight: float) -> np.ndarray:
    """:func:`staircase_area_gains` with a released pick's duplicates capped by exact degree comparisons:
    ``g - w max(g - AREA_GAIN_SENSITIVITY x dist, 0)``, ``dist = min_b |deg(r) - deg(b)|`` over the picks
    ``b`` (their exact degrees ``pick_degrees``), ``w = weight`` in [0, 1].

    A pick's box is its released point, which the noise can put below the pick itself; its duplicates
    (nodes equal to it in both objectives) then show a gain they do not have, and at ``k = 2`` on a star
    joined to a clique they outscored the centre (``docs/pareto.md``, "A pick's duplicates capped in the
    gain"). The cap is 0 for a node of a pick's degree, ``2 g`` for one ``g`` edges from it. For public
    points and ``w`` and candidates other than the picks, ``g`` and ``2 dist`` each move by at most 2
    between edge-neighbouring graphs (``|deg(r) - deg(b)|`` by at most 1: an edge ``{r, b}`` moves both
    degrees), so does their minimum and the convex combination ``(1 - w) g + w min(g, 2 dist)``: the
    sensitivity stays :data:`AREA_GAIN_SENSITIVITY`.

    Parameters
    ----------
    points : array_like, shape (p', 2)
        The released boxes of the earlier picks (public), as for :func:`staircase_area_gains`.
    degree, ego : array_like, shape (q,)
        The candidates' values; the picks themselves are not among them.
    pick_degrees : array_like, shape (p,)
        The picks' exact degrees (empty: no cap).
    weight : float
        ``w``, clipped to [0, 1]: :func:`duplicate_cap_weight` of the last pick release (public).

    Returns
    -------
    numpy.ndarray, shape (q,)
        The capped gains, between ``min(g, 2 dist)`` and ``g``. O(p q) time, O(q) memory.

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import capped_area_gains
    >>> box = [[13.0, 0.9]]  # a clique node (13, 1.0) released at ego density 0.9
    >>> capped_area_gains(box, [13.0, 199.0, 14.0], [1.0, 0.004, 1.0], [13], 1.0).round(3).tolist()
    [0.0, 0.744, 2.0]
    >>> capped_area_gains(box, [13.0, 199.0, 14.0], [1.0, 0.004, 1.0], [13], 0.0).round(3).tolist()
    [1.3, 0.744, 2.3]
    """
    g = staircase_area_gains(np.asarray(points, dtype=np.float64).reshape(-1, 2), degree, ego)
    b = np.asarray(pick_degrees, dtype=np.float64).reshape(-1)
    w = min(max(float(weight), 0.0), 1.0)
    if b.size == 0 or w == 0.0:
        return g
    d = np.asarray(degree, dtype=np.float64)
    dist = np.abs(d - b[0])
    for x in b[1:]:  # the nearest pick's degree, one pick at a time (O(q) memory)
        np.minimum(dist, np.abs(d - x), out=dist)
    return g - w * np.maximum(g - AREA_GAIN_SENSITIVITY * dist, 0.0)


#: The duplicates' tie (:func:`duplicate_ties`) is on only once the round resolves a lead of half this many
#: units (a hundredth of what one edge can move a score), and then spans at most that half, or twice the
#: span of the other tie term where that is more (graphs of a few dozen nodes). A design rule, not fitted: it
#: bounds the hypervolume gain (in degree x ego density, twice the span) that the tie may outweigh.
DUPLICATE_TIE_SPAN = 0.01


def duplicate_tie_weight(n_left: int, epsilon, floor: float = 0.0) -> float:
    """``r(x) max(x, floor)``: the weight of :func:`duplicate_ties` in a round's tie rule, with ``x = 2 (ln
    n_left + PARETO_RESOLVE) / eps_j`` (the lead that the round's exponential mechanism resolves to a miss of
    at most ``e^-20``, :func:`dpmo.pareto.consistent.resolution`) and ``r(x) = clip(2 (1 - x /
    DUPLICATE_TIE_SPAN), 0, 1)``. 0 while ``x >= DUPLICATE_TIE_SPAN`` (the noise is not negligible: every
    epsilon of the robustness benchmark's grid up to 500), rising to ``max(x, floor)`` as ``x`` falls to
    ``DUPLICATE_TIE_SPAN / 2``, where a duplicate of a pick leads a node one edge away from every pick by one
    resolved lead; ``floor`` (the caller's: twice the span of the round's other tie term, below ``1.5 /
    n``) keeps it above that term. Public: ``n_left``, the round's epsilon, ``floor``. O(1).

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import duplicate_tie_weight
    >>> duplicate_tie_weight(200, 500.0), duplicate_tie_weight(200, None)
    (0.0, 0.0)
    >>> round(duplicate_tie_weight(200, 1e5), 6)  # 2 (ln 200 + 20) / 10^5
    0.000506
    """
    if epsilon is None or not float(epsilon) > 0.0:
        return 0.0
    x = resolution(n_left, float(epsilon), PARETO_RESOLVE)
    return min(1.0, max(0.0, 2.0 * (1.0 - x / DUPLICATE_TIE_SPAN))) * max(x, float(floor))


def duplicate_ties(degree, pick_degrees, ego_excesses, scale: float = 1.0) -> np.ndarray:
    """``clip(max_b min(deg(r) - deg(b), L E_b(r)), -1, 0)`` over the picks ``b``, ``L = scale >= 1``: 0 for a
    duplicate of a pick and for a node that dominates one (at least its degree and ego density), -1 for a node
    with fewer edges than every pick it does not fall short of in ego density, between for a node of a
    pick's degree (or more) and lower ego density. A "pick" may also be a public point (a released degree
    with ``E_b = 0``: ``min(deg(r) - W, 0)``).

    Parameters
    ----------
    degree : array_like, shape (n,)
        Every node's degree.
    pick_degrees : sequence of float
        The earlier picks' degrees ``deg(b)`` (the exact ones: ``deg(r) - deg(b)`` is what has sensitivity
        1), or public degrees.
    ego_excesses : sequence of array_like, shape (n,), or float
        Per pick, every node's dampened ego density excess over the pick's *released* ego density
        (:func:`dpmo.chebyshev.dampened_excess` at that public level; sensitivity 1); a public point's 0.
    scale : float, default 1
        ``L``, public: one triangle at degree ``d`` is about ``1 / (d - 1)`` unit of ``E_b``, so ``L = d -
        1`` makes it a whole unit. It costs no sensitivity: the clip keeps the result in an interval of
        width 1.

    Returns
    -------
    numpy.ndarray, shape (n,)
        In ``[-1, 0]``; meaningful for nodes other than the picks. For those, one edge moves it by at most
        1: it is a value in ``[-1, 0]`` (and before the clip ``deg(r) - deg(b)`` moves by at most 1 -- an
        edge ``{r, b}`` moves both degrees, any other edge at most one of them; a public ``W`` does not move
        -- and ``L E_b`` by at most ``L``; ``docs/pareto.md``, "Duplicates of the picks at negligible
        noise"). O(n p) time, O(n) memory.

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import duplicate_ties
    >>> E = [[0.0, 0.0, -0.125, 0.0, 0.5, 2.0]]  # over pick 0's released ego density
    >>> duplicate_ties([9, 9, 9, 8, 2, 10], [9], E).tolist()
    [0.0, 0.0, -0.125, -1.0, -1.0, 0.0]
    >>> duplicate_ties([9, 9, 9, 8, 2, 10], [9], E, scale=8.0).tolist()
    [0.0, 0.0, -1.0, -1.0, -1.0, 0.0]
    """
    d = np.asarray(degree, dtype=np.float64)
    best = np.full(d.shape, -1.0)
    for b, E in zip(pick_degrees, ego_excesses, strict=True):
        near = np.minimum(d - float(b), float(scale) * np.asarray(E, dtype=np.float64))
        np.maximum(best, near, out=best)
    return np.minimum(best, 0.0)


def duplicate_tie_term(rounds, remaining, t: float) -> tuple[np.ndarray | float, float]:
    """``(rho_2 u, rho_2)``: what a round of the graph staircase adds to its tie rule's numerator and
    divisor (:meth:`~dpmo.graphs.chebyshev._GraphStaircaseRounds.tie_break`; ``u`` has sensitivity 1).
    ``rho_2 =`` :func:`duplicate_tie_weight` of the nodes ``remaining`` at the round's epsilon in a round that
    blends in the gain (``t < 1``) after a released pick, else 0 (then ``(0, 0)``, nothing computed); ``u``
    the :func:`duplicate_ties` of ``remaining`` over ``rounds.picks`` (each pick's ego level its released
    box's, ``rounds.boxes``) and, while no pick's released degree reaches ``W_1 - 1/2``, the degree end of
    the front: the released degree of rank 1 ``W_1`` at ego level 0 (a node of the largest degree is on the
    front unless one of that degree has more ego density, and such a one has a gain), at the scale ``L =
    max(1, D - 1)``, ``D`` the largest released pick degree (the boxes' degrees, at most ``n - 1``): one
    triangle below a pick of degree up to ``D`` is then a whole unit. O(n p) when it acts, O(1) otherwise."""
    if not (t < 1.0 and rounds.picks):
        return 0.0, 0.0
    n = rounds.objectives[0].n
    floor = 3.0 * n * t**0.25 * tie_weight(n)  # twice the span of the tie rule's rho (D_deg + D_ego) term
    rho2 = duplicate_tie_weight(remaining.size, rounds.epsilon, floor)
    if not rho2 > 0.0:
        return 0.0, 0.0
    top = max(float(box[0]) for box in rounds.boxes)
    L = max(1.0, top - 1.0)
    ego, sens, cache = rounds.objectives[1], rounds.sensitivity, rounds._cache
    E = [dampened_excess(ego, level, sens, cache, 1) for _, level in rounds.boxes]
    deg = rounds.objectives[0].values
    points = [float(deg[b]) for b in rounds.picks]
    W = None if rounds.degrees_at_ranks is None else float(rounds.degrees_at_ranks[0])
    if W is not None and top < W - 0.5:  # the degree end of the front, min(deg(r) - W_1, 0)
        points, E = [*points, W], [*E, 0.0]
    u = duplicate_ties(deg, points, E, L)[remaining]
    return rho2 * u, rho2


def blend_weight(n_left: int, epsilon) -> float:
    """``t = min(1, 2 (ln n_left + 1) / eps_j)``: the corner score's weight in a staircase round (public:
    the candidates left and the round's epsilon; 1 when the round has no epsilon).

    ``2 (ln n + 1) / eps_j`` is the lead, in units of the score's sensitivity, that a node needs for the
    exponential mechanism at ``eps_j`` to pick it over ``n - 1`` others with probability at least
    ``e / (1 + e)`` (:func:`dpmo.graphs.staircase_rules.signal_threshold`). While it is at least one unit --
    the most one edge can change any score -- the round cannot tell apart two nodes whose hypervolume gains
    differ by what one edge moves, and the corner score with its public windows (which spend the round on
    the degree ranks it can search) keeps all the weight; beyond, the gain takes the share ``1 - t`` of the
    score, all of it as epsilon grows without bound. O(1).

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import blend_weight
    >>> blend_weight(37_700, 20.0), round(blend_weight(37_700, 200.0), 3), blend_weight(37_700, None)
    (1.0, 0.115, 1.0)
    """
    if epsilon is None or not float(epsilon) > 0.0:
        return 1.0
    return min(1.0, signal_threshold(n_left, epsilon))


def one_pick_scores(degree, ego, top_degree: float, n: int, epsilon: float) -> np.ndarray:
    """The score of the graph default's one round for ``k = 1``: ``(a c + b u) / (a + b)``, sensitivity 1.

    ``a = min(eps, ONE_PICK_PRIOR_EPSILON) / 2`` and ``b = eps / 2 - a`` (``eps`` the round's epsilon), so
    the exponential mechanism's weight is ``exp(a c + b u)``:

    * ``c = max(degree - top_degree, -(ln n + 1) / a)``, the degree prior: the lead over the largest degree
      (``top_degree``, over the candidates; sensitivity 1), clipped where a round at ``2 a`` could no
      longer pick the top over ``n`` others (:func:`dpmo.graphs.staircase_rules.signal_threshold`'s lead);
    * ``u = max(degree x ego / AREA_GAIN_SENSITIVITY, theta [degree = top_degree])``, ``theta = 1 /
      sqrt(n)``: the one-point hypervolume (sensitivity 1), lifted to ``theta`` for the largest degrees,
      so that a graph without a triangle (every area 0) still has its one front point win as the noise
      vanishes.

    From ``eps >= ONE_PICK_PRIOR_EPSILON`` the prior's weight ``a`` is fixed and only ``b`` grows: with the
    staircase's tie rule at its fixed weight, the expected ``u`` plus the tie term is nondecreasing in
    epsilon (its derivative in ``b`` is a variance), and as epsilon grows the pick is the largest area.
    Proofs: ``docs/pareto.md``, "One pick (k = 1)". O(n).

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import one_pick_scores
    >>> s = one_pick_scores([10.0, 4.0, 3.0], [0.0, 0.5, 1.0], 10.0, 100, 50.0)  # a = 0.1, b = 24.9
    >>> [round(float(x), 4) for x in s]  # (a c + b u) / 25: c = 0, -6, -7 and u = 0.1, 1, 1.5
    [0.0996, 0.972, 1.466]
    """
    d = np.asarray(degree, dtype=np.float64)
    e = np.asarray(ego, dtype=np.float64)
    eps = float(epsilon)
    a = min(eps, ONE_PICK_PRIOR_EPSILON) / 2.0
    b = eps / 2.0 - a
    lead = d - float(top_degree)
    c = np.maximum(lead, -(math.log(max(int(n), 1)) + 1.0) / a)
    theta = 1.0 / math.sqrt(max(int(n), 1))
    u = np.maximum(d * e / AREA_GAIN_SENSITIVITY, theta * (1.0 + np.maximum(lead, -1.0)))
    return (a * c + b * u) / (a + b)


def one_pick_round(rounds, remaining) -> np.ndarray:
    """:func:`one_pick_scores` of the nodes ``remaining`` (all of them: ``k = 1``) from ``rounds``' graph
    objectives (degree, ego density) at its round's epsilon, the largest degree taken among them; names the
    score for the budget's record (``rounds.score_name``). O(n)."""
    deg, ego = rounds.objectives
    rounds.score_name = "degree prior and area degree x ego density (one pick)"
    d = deg.values[remaining].astype(np.float64)
    return one_pick_scores(d, ego.values[remaining], d.max(), deg.n, float(rounds.epsilon))


def point_box(noisy, q: int, n: int, sensitivity: str = "local", formula: str = "paper") -> tuple:
    """The box ``(degree, ego density)`` of a pick that the hypervolume gain covers, from its release
    ``(degree + Z_1, floor(q D_ego) + Z_2)`` (post-processing of released integers and public ``q``, ``n``).

    A point estimate, not a confidence bound: the degree is the released one (clipped to ``[1, n - 1]``, the
    public range), the dampened ego density ``floor(q D_ego) / q`` (the released integer over ``q``, clipped
    at 0), and the ego density its inverse (:func:`ego_from_dampened` at that degree;
    the dampened value itself with ``sensitivity="global"``). A lower confidence bound (the corners') shrinks
    the box of a pick whose ``D_ego`` is a unit or two -- at a pick release of sd 1 it is most of the value
    -- and the next rounds then re-pick nodes next to it; the estimate errs both ways, by the noise. As the
    noise vanishes it tends to ``(degree, ego density)`` from below (the floor loses less than ``1 / q``).

    Examples
    --------
    >>> from dpmo.graphs.hypervolume_rounds import point_box
    >>> d, e = point_box([100, 2], 1, 1000)  # released degree 100 and floor(D_ego) 2
    >>> d, round(e, 6)
    (100.0, 0.040202)
    """
    v = np.asarray(noisy, dtype=np.float64)
    d = min(max(float(v[0]), 1.0), max(float(n) - 1.0, 1.0))
    D = max(float(v[1]), 0.0) / float(q)
    e = ego_from_dampened(D, d, formula) if sensitivity == "local" else D
    return d, min(max(e, 0.0), 1.0)


def ego_from_dampened(D: float, degree: float, formula: str = "paper") -> float:
    """The ego density whose dampened score is ``D`` at ``degree`` (0 for ``D <= 0``; at most 1): the inverse
    of local dampening with the public :func:`ego_density_sensitivity` at that degree. Applied to released
    values only (post-processing). O(min(D, degree)) time and memory: callers bound ``degree`` by a public
    range (the staircase passes at most ``n - 1``), never by a noisy value alone. Also importable from
    :mod:`dpmo.graphs.chebyshev` (its former home; here so that :func:`point_box` needs no import cycle).

    Examples
    --------
    >>> from dpmo.graphs.chebyshev import ego_from_dampened
    >>> round(ego_from_dampened(2.0, 100.0), 6)  # two steps of 2 / 100 and 2 / 99
    0.040202
    """
    if not D > 0.0:
        return 0.0
    t = int(min(math.floor(D), degree + 3))  # the ego density reaches 1 within degree + 3 steps
    delta = ego_density_delta(np.array([degree]), np.arange(t + 1)[:, None], formula)[:, 0]
    return float(min(delta[:t].sum() + (min(D, t + 1.0) - t) * delta[t], 1.0))
