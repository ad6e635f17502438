"""The Pareto gate of ``approach="chebyshev"`` at negligible noise (issue 38). Not in the paper.

With a declared range on every objective, a round of :class:`dpmo.chebyshev.ChebyshevApproach` whose
noise is negligible (:func:`gate_on`, public) scores

    s(r) = [C(r) + gamma G(r)] / S,    G(r) = min(H(r), 2 - 2 Dm(r)),    S = (1 + 2 sigma) / (1 - 2 x),
    gamma = sigma + x S

``C`` the augmented Chebyshev score (sensitivity 1), ``sigma`` the most two of its scores can differ inside
the declared ranges, ``x`` the round's resolution (:func:`dpmo.pareto.consistent.resolution`), ``Dm``
(:func:`dominance`: 1 when some candidate dominates ``r``, 0 otherwise), ``H``
(:func:`dpmo.pareto.consistent.escape_or_copy`: 0 when an earlier pick weakly dominates ``r`` without
equalling it, 1 when ``r`` equals an earlier pick, 2 when it escapes them all; round 1 takes
``G = 1 - Dm``).
``G`` is 2 on the non-dominated candidates that equal no earlier pick, 1 on the copies of earlier picks
and 0 on every dominated candidate (on any values: both terms read strict excesses, with no unit), so
the gate decides *whether* a
candidate may be picked (a copy only when no new front point is left) and the Chebyshev score alone,
undistorted, *which* of the allowed ones. ``G`` lies in [0, 2], so it moves by at most 2 between
neighbours, and ``s`` has sensitivity 1. Proofs: ``docs/pareto.md``, "The Pareto gate".

Without a declared range on some objective (and in the corner staircase, :mod:`dpmo.staircase`) the scores
have no public span; ``sigma`` is then :func:`gate_span`, the largest the round's resolution allows, and the
picks stay on the front while the scores span at most that (``docs/pareto.md``, "Without declared ranges").
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_k
from .pareto.consistent import RESOLVE, copy_groups, dominated_among, escape_or_copy, resolution

__all__ = [
    "dominance",
    "pareto_gate",
    "gate_span",
    "gate_weights",
    "gate_on",
    "round_gate_parameters",
    "gated_scores",
    "gated_argmax_picks",
]


def dominance(W) -> np.ndarray:
    """``Dm(r)``: 1 for every column ``r`` of ``W`` (shape (m, n), larger is better) that another column
    dominates (``>=`` in every row, ``>`` in one), 0 otherwise
    (:func:`dpmo.pareto.consistent.dominated_among`).
    Values in {0, 1}, so it moves by at most 1 between any two inputs (the gate's proof charges it 2). No
    unit or grid of values enters it: on values on their sensitivity grid it equals the former "dominated by
    a sensitivity unit", and off the grid it still marks every dominated column (a rate 0.0004 below
    another at sensitivity 0.001, say). O(n log n) for m <= 2, O(n log^(m - 1) n) beyond.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.chebyshev_gate import dominance
    >>> dominance(np.array([[3.0, 2.0, 0.0, 3.0, 2.5], [3.0, 2.0, 5.0, 3.0, 3.0]])).tolist()
    [0.0, 1.0, 0.0, 0.0, 1.0]
    """
    return dominated_among(W).astype(np.float64)


def pareto_gate(W, chosen, remaining, dm=None) -> np.ndarray:
    """``G(r) = min(H(r), 2 - 2 Dm(r))`` of the ``remaining`` columns of ``W`` (sensitivity units): the escape
    from (or copy of) the ``chosen`` columns (:func:`dpmo.pareto.consistent.escape_or_copy`), capped by
    the non-dominance in the whole table; without chosen columns ``1 - Dm(r)``. In [0, 2], so it moves by at
    most 2 between neighbours. O(n log^(m - 1) n + p q m).
    ``dm``: :func:`dominance` of ``W`` if already computed (it does not depend on the round).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.chebyshev_gate import pareto_gate
    >>> W = np.array([[3.0, 2.0, 0.0, 3.0], [3.0, 2.0, 5.0, 3.0]])
    >>> pareto_gate(W, [0], np.array([1, 2, 3])).tolist()  # dominated, on the front, a copy of the pick
    [0.0, 2.0, 1.0]
    """
    W = np.asarray(W, dtype=np.float64)
    remaining = np.asarray(remaining, dtype=np.intp)
    G = 1.0 - (dominance(W) if dm is None else np.asarray(dm))[remaining]
    if len(chosen):  # round 1 (no earlier pick): 1 - Dm, in [0, 1]
        G = np.minimum(2.0 * G, escape_or_copy(W[:, list(chosen)], W[:, remaining]))
    return G


def gate_span(n_left: int, epsilon: float | None, scale: float, e) -> float:
    """The largest ``span`` for which :func:`gate_on` holds: ``(e_min (1 - 2 x) / (x scale) - 1) / 2``
    (0.0 when the round cannot resolve a unit at all). Without declared ranges a round's scores have no
    public span; its gate then takes this one, the largest weight the round's resolution allows
    (:func:`gate_weights`). Public: ``n_left``, epsilon, ``scale`` and ``e``.

    Examples
    --------
    >>> from dpmo.chebyshev_gate import gate_span
    >>> round(gate_span(400, 1e6 / 3, 1.01, [1.0])), gate_span(400, 50 / 3, 1.01, [1.0])
    (6879, 0.0)
    """
    if epsilon is None or not epsilon > 0:
        return 0.0
    x = resolution(n_left, epsilon, RESOLVE)
    if not 2.0 * x < 1.0:
        return 0.0
    return max((float(np.min(e)) * (1.0 - 2.0 * x) / (x * float(scale)) - 1.0) / 2.0, 0.0)


def gate_weights(n_left: int, epsilon: float | None, scale: float, span, e) -> tuple[float, float] | None:
    """``(gamma, S)`` of a gated round, or None when the gate is off (:func:`gate_on`).

    ``x = resolution(n_left, epsilon, RESOLVE)``, ``S = (1 + 2 span) / (1 - 2 x)``, ``gamma = span + x
    S``. ``span`` the most two of the round's scores can differ (declared ranges), or None (no declared
    range on some objective): then :func:`gate_span`, and the gate is on when that covers one
    sensitivity unit of the finest objective (``gate_span >= e_min / scale``). The gate then keeps every
    pick on the front whenever the scores of the candidates left span at most ``gate_span``: with no range
    declared (``e = 1``, ``scale`` about 1) about ``eps_j / (4 (ln n_j + 6))`` sensitivity units, a public
    bound that grows with the round's epsilon; with some ranges declared ``e_min`` scales it down
    (``docs/pareto.md``, "Without declared ranges"). All public.

    Examples
    --------
    >>> from dpmo.chebyshev_gate import gate_weights
    >>> gamma, S = gate_weights(400, 1e6 / 3, 1.01, None, [1.0])
    >>> round(gamma), round(S), gate_weights(400, 100.0, 1.01, None, [1.0])
    (6880, 13761, None)
    """
    if span is None:
        span = gate_span(n_left, epsilon, scale, e)
        if not span * float(scale) >= float(np.min(e)):
            return None
    elif epsilon is None or not epsilon > 0:
        return None
    x = resolution(n_left, epsilon, RESOLVE)
    if not 2.0 * x < 1.0:
        return None
    S = (1.0 + 2.0 * float(span)) / (1.0 - 2.0 * x)
    if x * S * float(scale) > float(np.min(e)) * (1.0 + 1e-12):
        return None
    gamma = float(span) + x * S
    return gamma, max(S, math.nextafter(1.0 + 2.0 * gamma, math.inf))  # S >= 1 + 2 gamma, exactly


def gate_on(n_left: int, epsilon: float | None, scale: float, span, e) -> bool:
    """The public condition ``x S scale <= min_i e_i`` under which a Chebyshev round has the gate.

    ``x = resolution(n_left, epsilon, RESOLVE)``, ``S = (1 + 2 span) / (1 - 2 x)`` the gated round's
    sensitivity, ``scale`` the Chebyshev score's divisor (range units per unit of ``C``) and ``e`` the
    round's objectives' sensitivities in range units: after the division by ``S`` the gated round still
    resolves (a lead of ``x``) a Chebyshev lead of one sensitivity unit of the finest objective, i.e. the
    gate costs nothing that the data's own granularity can show. Requires ``2 x < 1``. ``span`` None (no
    declared ranges): :func:`gate_weights`.

    Examples
    --------
    >>> from dpmo.chebyshev_gate import gate_on
    >>> e = [0.002, 1 / 3000]
    >>> gate_on(400, 50 / 3, 0.0025, 405.0, e), gate_on(400, 1e6 / 3, 0.0025, 405.0, e)
    (False, True)
    """
    return gate_weights(n_left, epsilon, scale, span, e) is not None


def round_gate_parameters(direction, d, ranged: bool, augment: float):
    """``(used, e, S_c, span)`` of a Chebyshev round along ``direction`` (public): the objectives it weighs
    (``used``, the indices with a positive weight), their sensitivities in range units capped at 1 (``e``,
    from ``d``, every objective's sensitivity over its unit), the Chebyshev score's divisor ``S_c =
    max_i (w_min / w_i) d_i + rho sum_i d_i`` with ``rho = augment / |used|``, and the score's span inside
    the declared ranges, ``(1 + rho |used|) / S_c``, or None when some objective declares no range
    (``ranged`` False: :func:`gate_span` then). The in-memory rounds
    (:class:`dpmo.chebyshev.ChebyshevApproach`) and :func:`dpmo.spark.select` read the gate's weights
    (:func:`gate_weights`) from these. O(m).

    Examples
    --------
    >>> from dpmo.chebyshev_gate import round_gate_parameters
    >>> used, e, S_c, span = round_gate_parameters([1.0, 1.0], [1.0, 1.0], False, 0.01)
    >>> used.tolist(), e.tolist(), S_c, span
    ([0, 1], [1.0, 1.0], 1.01, None)
    """
    w, d = np.asarray(direction, dtype=np.float64), np.asarray(d, dtype=np.float64)
    used = np.flatnonzero(w > 0)
    rho = float(augment) / used.size
    S_c = float(np.max((w[used].min() / w[used]) * d[used]) + rho * np.sum(d[used]))
    span = (1.0 + rho * used.size) / S_c if ranged else None
    return used, np.minimum(d, 1.0)[used], S_c, span


def gated_scores(score, span, scale: float, W, e, chosen, remaining, epsilon, cache=None):
    """``(score + gamma G, S)`` when :func:`gate_on` holds, else ``(score, 1.0)``.

    ``score`` the ``remaining`` candidates' Chebyshev scores (sensitivity 1, at most ``span`` apart inside
    the declared ranges, or ``span`` None: :func:`gate_weights`; ``scale`` its divisor); ``W`` (m, n) every
    objective, larger is better (only its dominance order is read); ``e`` the round's objectives'
    sensitivities in range units. ``S = (1 + 2 span) / (1 - 2 x)``, ``gamma = span + x S``: ``S = 1 + 2
    gamma`` bounds the change of the sum (``G`` moves by at most 2), and one unit of ``G`` (``gamma``)
    outweighs what ``score`` can take back by ``x S``, a lead of ``x`` after the division. All weights are
    public. ``cache``: an optional dict keeping :func:`dominance` of ``W`` across the rounds (key
    ``"dominance"``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.chebyshev_gate import gated_scores
    >>> W = np.array([[10.0, 9.0, 0.0, 20.0], [10.0, 9.0, 20.0, 0.0]])
    >>> s, S = gated_scores(np.array([9.0, 0.0, 5.0]), 20.0, 0.05, W, [0.05, 0.05], [0], np.arange(1, 4), 1e6)
    >>> bool(np.argmax(s) != 0), round(S, 2)  # (9, 9), in the shadow of (10, 10), loses its lead
    (True, 41.0)
    """
    remaining = np.asarray(remaining, dtype=np.intp)
    weights = gate_weights(remaining.size, epsilon, scale, span, e)
    if weights is None:
        return score, 1.0
    gamma, S = weights
    if cache is None or "dominance" not in cache:
        dm = dominance(W)
        if cache is not None:
            cache["dominance"] = dm
    else:
        dm = cache["dominance"]
    return score + gamma * pareto_gate(W, chosen, remaining, dm), S


def gated_argmax_picks(W, round_scores, k: int) -> np.ndarray:
    """The gated rounds without noise (NOT PRIVATE by itself: apply it to released values only).

    Round ``j`` takes, among the candidates not yet picked, the one with the largest gate
    ``G = min(H, 2 - 2 Dm)`` (:func:`pareto_gate`: a non-dominated candidate that equals no earlier pick,
    then a copy of one, then a dominated candidate) and, within the largest gate, the largest score
    ``round_scores(j)`` (an array over all ``n`` candidates); exact ties go to the smaller index. Up to
    those ties (which noisy rounds break at random) this is what the gated rounds of :func:`gated_scores`
    return as their noise vanishes, and no pick is dominated while a non-dominated candidate is left,
    whatever the scores.

    Parameters
    ----------
    W : array_like, shape (m, n)
        The objectives, larger is better.
    round_scores : callable
        ``round_scores(j)`` for ``j = 0 .. k - 1``: finite scores of shape (n,).
    k : int
        Number of picks, ``1 <= k <= n``.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Distinct indices, in pick order.

    Notes
    -----
    O(n log^(m - 1) n) once for the dominance and the equal points, then per round the scores plus O(n)
    (a non-dominated candidate is weakly dominated by an earlier pick only when it equals it, so the gate
    needs no escape test).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.chebyshev_gate import gated_argmax_picks
    >>> W = np.array([[10.0, 9.0, 0.0, 20.0], [10.0, 9.0, 20.0, 0.0]])
    >>> gated_argmax_picks(W, lambda j: W.min(axis=0), 2).tolist()  # (9, 9) is in the shadow of (10, 10)
    [0, 2]
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or not np.isfinite(W).all():
        raise ValueError(f"W must be a finite 2-D array (objectives x candidates), got shape {W.shape}")
    n = W.shape[1]
    k = check_k(k, n)
    # the gate's three values without its O(j n m) escape test: a non-dominated candidate can be weakly
    # dominated by an earlier pick only if it equals it (anything else would dominate it), so G is 2 on the
    # non-dominated candidates whose point no pick has, 1 on the non-dominated copies, 0 on the dominated
    front = dominance(W) == 0.0
    point = copy_groups(W)  # equal columns, one number (a sort: np.unique(axis=0) took 2.5x as long)
    point_taken = np.zeros(int(point.max()) + 1 if n else 0, dtype=bool)
    taken = np.zeros(n, dtype=bool)
    picks: list[int] = []
    for j in range(k):
        s = np.asarray(round_scores(j), dtype=np.float64)
        if s.shape != (n,) or np.isnan(s).any():
            raise ValueError(f"round_scores({j}) must be {n} scores, not NaN, got shape {s.shape}")
        gate = np.where(taken, -1, np.where(front, np.where(point_taken[point], 1, 2), 0))
        allowed = np.flatnonzero(gate == gate.max())  # the highest class left, in index order
        best = allowed[int(np.argmax(s[allowed]))]  # the first of the largest: ties to the smaller index
        picks.append(int(best))
        taken[best] = True
        point_taken[point[best]] = True
    return np.asarray(picks, dtype=np.intp)
