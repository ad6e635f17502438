"""The corner score of the graph staircase's rounds: a pick's duplicates capped at its corners (issue 38).

A round of the staircase plan (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`) scores every node at
the corners of the released picks (:func:`dpmo.staircase.local_lower_bounds`): at corner ``l``, ``min(D_deg(r,
l_1), D_ego(r, l_2))`` with a bounded augmented term (:func:`corner_scores`). A corner's coordinates are the
*released* degree (times the margin) and ego density of picks: they err by the release's noise, and the ego
density also by the floor of ``q D_ego``. When they fall below a pick ``b``'s own values, every node with
``b``'s values (a duplicate: on a star joined to a clique, the clique's other nodes) shows an excess it does
not have, and the next round can take it for a node beyond ``b``. The release's epsilon and the next round's
are fixed shares of the call's, so the duplicates' false lead times the round's epsilon has a distribution
that does not depend on epsilon: it does not fade as epsilon grows (``docs/staircase-measurements.md``,
"Duplicates of a pick on a star joined to a clique").

:func:`pick_degree_caps` caps a node's excess at a coordinate that is ``b``'s by exact degree comparisons with
``b``: the degree excess by ``deg(r) - deg(b)``, the ego excess by ``|deg(r) - deg(b)|``. Each has sensitivity
1 (``b`` public, its degree not) and is 0 for ``b``'s duplicates; neither bounds a node whose degree stands
farther from ``b`` than its excess (the front's other points, as a rule). Proof and measurements:
``docs/pareto.md``, "A pick's duplicates capped at its corners". The same comparisons lift the upper edge
of the top-first plan's last round for a node that outranks a top pick (:func:`outranked_edge`).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_indices
from ..chebyshev import dampened_excess

__all__ = ["degree_distance", "pick_degree_caps", "corner_scores", "outranked_edge"]


def degree_distance(degrees, pick: int) -> np.ndarray:
    """``|deg(r) - deg(b)|`` for every node ``r``, ``b = pick`` (public: an earlier round's output).

    Sensitivity 1 for every ``r != b``: one edge ``{x, y}`` changes ``deg(r)`` by 1 when ``r`` is an end,
    ``deg(b)`` by 1 when ``b`` is one, and both by the same 1 when the edge is ``{r, b}``; so ``deg(r) -
    deg(b)`` moves by at most 1, and so does its absolute value. O(n).

    Examples
    --------
    >>> from dpmo.graphs.staircase_corners import degree_distance
    >>> degree_distance([5, 3, 5, 9], 0).tolist()
    [0.0, 2.0, 0.0, 4.0]
    """
    d = np.asarray(degrees, dtype=np.float64)
    return np.abs(d - d[int(pick)])


def pick_degree_caps(degrees, points, picks, level: float, axis: int = 1, floor: float = 0.0):
    """The cap on a node's excess at a corner coordinate ``level`` of objective ``axis`` (0 degree, 1 ego
    density), over the picks ``b`` whose released corner point has that coordinate (``points[j][axis] ==
    level``, ``picks[j]`` its node): the minimum over them of ``deg(r) - deg(b)`` (``axis`` 0: the degree
    excess over a pick's corner is at most the excess over its exact degree) or ``|deg(r) - deg(b)|``
    (``axis`` 1: the ego excess over a pick's corner at most the degree distance to it, 0 for its
    duplicates). None when no pick has that coordinate or ``level`` is the ``floor`` (a pick released at the
    floor raises no corner above it). Public: the released points, the picks, the level. Sensitivity 1
    (:func:`degree_distance` and its signed form; a minimum of such functions). O(n p).

    Examples
    --------
    >>> from dpmo.graphs.staircase_corners import pick_degree_caps
    >>> pick_degree_caps([5, 3, 5, 9], [[7.5, 0.4]], [0], 0.4).tolist()
    [0.0, 2.0, 0.0, 4.0]
    >>> pick_degree_caps([5, 3, 5, 9], [[7.5, 0.4]], [0], 7.5, axis=0).tolist()
    [0.0, -2.0, 0.0, 4.0]
    >>> pick_degree_caps([5, 3, 5, 9], [[7.5, 0.4]], [0], 0.0) is None
    True
    """
    cap = None
    if not level > floor:
        return None
    d = np.asarray(degrees, dtype=np.float64)
    for point, b in zip(points, picks, strict=True):
        if float(point[axis]) == float(level):
            dist = d - d[int(b)] if axis == 0 else degree_distance(d, b)
            cap = dist if cap is None else np.minimum(cap, dist)
    return cap


def corner_scores(objectives, corners, sensitivity, cache, tie: float, points=(), picks=None) -> np.ndarray:
    """``max_l (min(F(r, l), E(r, l)) + c min(|F(r, l) - E(r, l)|, 1)) / (1 + 2 c)``, ``c = tie``
    (``CORNER_TIE``), ``F(r, l) = min(D_deg(r, l_1), cap_0(r))``, ``E(r, l) = min(D_ego(r, l_2), cap_1(r))``
    (:func:`pick_degree_caps` of the picks ``picks`` released at ``points``, at the corner's degree and ego
    coordinates; the dampened excess alone where no cap applies, or with ``picks`` None): the
    staircase round (:func:`dpmo.staircase.staircase_scores`) with a bounded augmented term at each corner, so
    that a node the binding objective ties with another is ordered by the other objective. ``F`` and ``E``
    (minima of sensitivity-1 functions) move by at most 1 and ``|F - E|`` by at most 2 between
    neighbours, so the numerator moves by at most ``1 + 2 c``: sensitivity 1, kept by the maximum over public
    corners. ``cache``: the dampened excesses by level (:func:`dpmo.chebyshev.dampened_excess`)."""
    c, best = float(tie), None
    deg = objectives[0].values
    for corner in corners:
        D0 = dampened_excess(objectives[0], corner[0], sensitivity, cache, 0)
        D1 = dampened_excess(objectives[1], corner[1], sensitivity, cache, 1)
        for axis in (0, 1) if picks is not None else ():
            cap = pick_degree_caps(deg, points, picks, corner[axis], axis)
            if cap is not None and axis == 0:
                D0 = np.minimum(D0, cap)
            elif cap is not None:
                D1 = np.minimum(D1, cap)
        t = (np.minimum(D0, D1) + c * np.minimum(np.abs(D0 - D1), 1.0)) / (1.0 + 2.0 * c)
        best = t if best is None else np.maximum(best, t)
    return best


def outranked_edge(edge: float, degrees, remaining, top) -> np.ndarray:
    """The upper edge of the top-first plan's last round (the term ``edge - deg(r)`` of its window), lifted
    for a node that outranks a top pick: ``max(edge - deg(r), max_{b in top} (deg(r) - deg(b)))`` for
    every node ``r`` of ``remaining`` (``edge`` the released degree at the edge's rank, public; ``top`` the
    top rounds' picks, public). The edge leaves the highest degrees to the top rounds; a node of higher
    degree than one they took was left by them, and the last round may take it (``docs/pareto.md``, "The
    top-first plan's last round after a missed top pick"). Sensitivity 1 for every ``r`` not in ``top``:
    ``edge - deg(r)`` and each ``deg(r) - deg(b)`` move by at most 1 (:func:`degree_distance`), so does
    their maximum. O(n).

    Examples
    --------
    >>> from dpmo.graphs.staircase_corners import outranked_edge
    >>> outranked_edge(30.0, [999, 1, 31, 31, 1], [2, 3, 4], [0, 1]).tolist()  # a leaf was a top pick
    [30.0, 30.0, 29.0]
    >>> outranked_edge(30.0, [999, 31, 31, 1], [2, 3], [0, 1]).tolist()  # the clique's node was
    [0.0, 29.0]
    """
    deg = np.asarray(degrees, dtype=np.float64)
    rem, tops = check_indices(remaining, deg.size, "remaining"), check_indices(top, deg.size, "top")
    d = deg[rem]
    out = float(edge) - d
    if tops.size:
        out = np.maximum(out, d - float(np.min(deg[tops])))
    return out
