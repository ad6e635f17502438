"""The private greedy hypervolume: ``approach="staircase"`` on candidate tables with declared ranges.

Not in the paper (issue 38). Every objective is put in units of its public declared range
(:func:`dpmo.chebyshev.range_units`), and round ``j`` scores every remaining candidate by the hypervolume it
adds to the earlier picks (blended, when the round's noise is too large for the gains, with the sum of the
range-unit objectives), with sensitivity 1. Proof, guarantees and audits: ``docs/pareto.md``, "Front-covering
picks that hold on any data". :mod:`dpmo.staircase` re-exports these names and plugs the rounds into
``approach="staircase"``.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_int, check_real
from .chebyshev import range_units
from .pareto.consistent import RESOLVE, TIE_SHARE, dominated_among, escape_or_copy, resolution
from .selection import Rounds

__all__ = [
    "hypervolume_gains",
    "reference_offset",
    "round_settings",
    "tie_weights",
    "escape_or_copy",
    "HypervolumeRounds",
    "RESOLVE",
    "TIE_SHARE",
]


def reference_offset(k: int, m: int, noise: float = 0.0) -> float:
    """``delta``: the hypervolume's reference point lies ``delta`` below the declared lows (range units).

    ``delta = max(1 / (m H), noise)``. ``H`` is the smallest integer with ``C(H + m - 1, m - 1) >= k``: the
    spacing ``1 / H`` of ``k`` points spread evenly over a normalised front (the rule of Ishibuchi, Imada,
    Setoguchi and Nojima 2018, "How to specify a reference point in hypervolume calculation for fair
    performance comparison", Evolutionary Computation 26(3), puts the reference ``1 / H`` beyond the
    nadir); divided by ``m`` so that the part of a box that lies below the declared lows, about ``m delta``
    of it, is at most ``1 / H`` (the measure, whose reference is the lows, does not count it). ``noise``:
    the distance in range units that the round's noise blurs (:class:`HypervolumeRounds`), below which a
    value cannot be told from the low end. Public (``k``, ``m``, the round's epsilon and the declared
    sensitivities and ranges). O(H).

    Examples
    --------
    >>> from dpmo.staircase import reference_offset
    >>> reference_offset(3, 2), reference_offset(3, 3), round(reference_offset(10, 2), 4)
    (0.25, 0.3333333333333333, 0.0556)
    >>> reference_offset(3, 3, noise=0.8)
    0.8
    """
    k, m, noise = check_int(k, "k"), check_int(m, "m"), check_real(noise, "noise")
    if m == 1:  # one objective: one best point
        H = 1
    elif m == 2:  # C(H + 1, 1) = H + 1 >= k (a loop of k steps in every round: O(k^2) for k picks)
        H = max(1, k - 1)
    else:  # H ~ k^(1 / (m - 1)) steps
        H = 1
        while math.comb(H + m - 1, m - 1) < k:
            H += 1
    return max(1.0 / (m * H), noise)


#: Largest number of earlier (non-dominated) picks handled by inclusion-exclusion (2^p terms).
_MAX_INCLUSION = 10


def _finite_array(x, name: str, ndim: int, m: int | None = None) -> np.ndarray:
    """``x`` as finite float64 of ``ndim`` dimensions (rows of ``m`` values; no rows at all may be ``[]``)."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of real numbers") from None
    if ndim == 2 and arr.size == 0:
        arr = arr.reshape(0, m)
    if arr.ndim != ndim or arr.size == 0 and ndim == 1 or (m is not None and arr.shape[1] != m):
        want = "(m,) with m >= 1" if ndim == 1 else f"(rows, {m})"
        raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def hypervolume_gains(points, candidates, reference) -> np.ndarray:
    """Exact hypervolume gain ``HV(P + {q}) - HV(P)`` of every candidate ``q`` (maximisation).

    Parameters
    ----------
    points : array_like, shape (p, m)
        The points already chosen, every coordinate >= ``reference``.
    candidates : array_like, shape (q, m)
        Every coordinate >= ``reference``.
    reference : array_like, shape (m,)
        The reference point (the common lower corner of the boxes).

    Returns
    -------
    numpy.ndarray, shape (q,)
        ``vol([reference, q] minus the union of [reference, s] over s in P)``, >= 0; exactly 0 for a
        candidate weakly dominated by a point of ``P``.

    Notes
    -----
    Inclusion-exclusion over the subsets of the non-dominated points of ``P``, vectorised over the
    candidates: O(2^p q m) for ``p <= 10``; beyond, one exact hypervolume per candidate
    (:func:`dpmo.hypervolume.hypervolume`).

    Examples
    --------
    >>> from dpmo.staircase import hypervolume_gains
    >>> hypervolume_gains([[2.0, 1.0]], [[1.0, 2.0], [1.0, 1.0], [3.0, 3.0]], [0.0, 0.0]).tolist()
    [1.0, 0.0, 7.0]
    """
    ref = _finite_array(reference, "reference", 1)
    m = ref.size
    Q = _finite_array(candidates, "candidates", 2, m) - ref
    P = _finite_array(points, "points", 2, m) - ref
    own = np.prod(Q, axis=1)
    if P.shape[0] == 0:
        return own
    # the non-dominated points of P (a weakly dominated one adds nothing to the union)
    keep = [
        i
        for i in range(P.shape[0])
        if not any(
            j != i and np.all(P[j] >= P[i]) and (np.any(P[j] > P[i]) or j < i) for j in range(P.shape[0])
        )
    ]
    P = P[keep]
    covered = np.zeros(Q.shape[0], dtype=bool)
    for s in P:
        covered |= np.all(Q <= s, axis=1)
    out = np.zeros(Q.shape[0])
    live = np.flatnonzero(~covered)
    if live.size == 0:
        return out
    Ql = Q[live]
    p = P.shape[0]
    if p <= _MAX_INCLUSION:
        mins = np.empty((1 << p, m))
        size = np.zeros(1 << p, dtype=np.int64)
        union = np.zeros(live.size)
        for mask in range(1, 1 << p):
            low = (mask & -mask).bit_length() - 1
            rest = mask & (mask - 1)
            mins[mask] = P[low] if rest == 0 else np.minimum(mins[rest], P[low])
            size[mask] = size[rest] + 1
            term = np.prod(np.minimum(Ql, mins[mask]), axis=1)
            union += term if size[mask] % 2 else -term
        out[live] = np.maximum(own[live] - union, 0.0)
        return out
    from .hypervolume import hypervolume

    zero = np.zeros(m)
    base = hypervolume(P, zero)
    out[live] = [max(hypervolume(np.vstack([P, q]), zero) - base, 0.0) for q in Ql]
    return out


class HypervolumeRounds(Rounds):
    """The private greedy hypervolume: round ``j`` scores every remaining candidate by its hypervolume gain
    over the earlier picks, in range units, with sensitivity 1 (``docs/pareto.md``, "The private greedy
    hypervolume").

    Every objective is put in units of its declared range (:func:`dpmo.chebyshev.range_units`: ``Z_i``
    moves by at most ``d_i = Delta_i / (high_i - low_i)`` between neighbours) and clipped to [0, 1]; the
    reference point is ``-delta`` (:func:`reference_offset` with ``noise = 2 ln(n_j) sum_i min(d_i, 1) /
    eps_j``, ``n_j`` the candidates left and ``eps_j`` the round's epsilon). Round ``j`` scores
    ``g(r) = HV(S + {r}) - HV(S)`` over ``(1 + delta)^m`` (``S``: the earlier picks' values, private) and
    divides by ``sum_i min(d_i, 1) / (1 + delta)`` (round 1) or twice that (later rounds): a union of
    boxes in ``[-delta, 1]^m`` changes volume by at most ``sum_i e_i (1 + delta)^(m - 1)`` when every point
    moves by at most ``e_i`` in coordinate ``i``.

    At negligible noise two tie terms are added (:func:`tie_weights`): ``beta D(r)``, ``D`` 1 when no
    candidate left dominates ``r`` (values clipped to the declared ranges) and 0 otherwise, and, after round
    1, ``gamma H(r)``, ``H`` the escape of ``r`` from the earlier picks with copies half-way
    (:func:`dpmo.pareto.consistent.escape_or_copy`: 2 when ``r`` exceeds every earlier pick in some
    objective, 1 when ``r`` equals an earlier pick, 0 when an earlier pick weakly dominates it without
    equalling it; no unit).

    ``delta``, ``t``, ``beta`` and ``gamma`` are fixed, for a given round, by public quantities only;
    ``delta=``, ``weight=`` (``t``) and ``ties=`` (``(beta, gamma)``) fix them outright (audits).
    """

    def __init__(
        self,
        objectives,
        sensitivity: str,
        keep: dict,
        k: int | None = None,
        delta=None,
        weight=None,
        ties=None,
    ):
        self.objectives, self.sensitivity = list(objectives), sensitivity
        self._keep = keep
        self.k = k
        self.delta, self.weight, self.ties = delta, weight, ties
        self.epsilon = None  # of the current round (told by the pipeline); None: no noise (argmax)
        self.score_name = "hypervolume gain of the objectives in units of their declared ranges"

    def begin_selection(self, k: int) -> None:
        """Told by the pipeline: the number of picks of the call (public), which sets the reference point."""
        self.k = int(k)

    def begin(self, r: int, epsilon: float) -> None:
        self.epsilon = float(epsilon)

    def units(self) -> tuple[np.ndarray, np.ndarray]:
        """``(Z clipped to [0, 1], d)`` (kept across calls in the selection cache)."""
        key = ("range_units", self.sensitivity)
        if key not in self._keep:
            Z, d = range_units(self.objectives, self.sensitivity)
            self._keep[key] = (np.clip(Z, 0.0, 1.0), d)
        return self._keep[key]

    def settings(self, n_left: int, first: bool) -> tuple[float, float]:
        """``(delta, t)`` of the round (:func:`round_settings`, unless fixed at construction)."""
        _, d = self.units()
        delta, t = round_settings(n_left, self.k or 1, d, self.epsilon, first)
        return (delta if self.delta is None else float(self.delta)), (
            t if self.weight is None else float(self.weight)
        )

    def scores(self, chosen, remaining):
        Z, d = self.units()
        m = Z.shape[0]
        delta, t = self.settings(remaining.size, not chosen)
        ref = np.full(m, -delta)
        e = np.minimum(d, 1.0)
        dsum = float(np.sum(e))
        gain_sens = (2.0 if chosen else 1.0) * dsum / (1.0 + delta)
        score = np.zeros(remaining.size)
        if t < 1.0:
            gains = hypervolume_gains(Z[:, chosen].T, Z[:, remaining].T, ref) / (1.0 + delta) ** m
            score += (1.0 - t) * gains
        if t > 0.0:
            score += t * np.sum(Z[:, remaining], axis=0) / m
        sens = (1.0 - t) * gain_sens + t * dsum / m
        if self.ties is None:
            beta, gamma = tie_weights(remaining.size, d, self.epsilon, t, gain_sens, not chosen)
        else:
            beta, gamma = (float(w) for w in self.ties)
        if beta > 0.0:  # D: 1 where no candidate left dominates r, in {0, 1}: sensitivity 1
            score += beta * (1.0 - dominated_among(Z[:, remaining]))
            sens += beta
        if gamma > 0.0 and chosen:  # H: the escape from (or copy of) the earlier picks, in [0, 2]
            score += gamma * escape_or_copy(Z[:, chosen], Z[:, remaining])
            sens += 2.0 * gamma
        return score / sens, 1.0


def tie_weights(n_left: int, d, epsilon: float | None, t: float, gain_sens: float, first: bool):
    """``(beta, gamma)``: the weights of the tie terms of one round of the private greedy hypervolume.

    The round's score before them is ``(1 - t) G + t A`` with sensitivity ``B = (1 - t) S_G + t s / m``
    (``S_G = gain_sens``, ``s = sum_i e_i``, ``e_i = min(d_i, 1)``). The tie terms are ``beta D + gamma H``:
    ``D(r)`` 1 when no candidate left dominates ``r``, else 0 (:func:`dpmo.pareto.consistent.dominated_among`,
    values in {0, 1}: sensitivity 1) and, after round 1, ``H`` (:func:`escape_or_copy`, in {0, 1, 2}:
    sensitivity 2; one unit separates a candidate that escapes the earlier picks from a copy of one, and a
    copy from a candidate they weakly dominate). With ``x = 2 (ln n_left + RESOLVE) / eps_j``
    (:func:`dpmo.pareto.consistent.resolution`: a lead the round's noise resolves, a dominated pick then
    having probability at most ``e^-RESOLVE``) they are used when ``x (m + 2 + 2U) <= TIE_SHARE``, ``U =
    sum_i 1 / e_i`` (negligible noise: the condition of the former sum term, kept so that the terms switch
    on where they did), with

        round 1:      S = B / (1 - x),               beta = x S, gamma = 0
        later rounds: S = (B + 2t) / (1 - 3x),       beta = x S, gamma = x S + t

    so that ``S = B + beta + 2 gamma`` is the round's sensitivity, one unit of ``D`` is worth ``x`` after
    the division by ``S``, and so is one unit of ``H`` (``gamma``) minus what ``A`` can take back (``t``;
    ``D`` takes nothing back: it is 1 on every non-dominated candidate).
    Otherwise, or without noise (``epsilon`` None), ``(0, 0)``. All inputs are public. Proof in
    ``docs/pareto.md``, "Ties at negligible noise" and "Copies of the picks".

    Examples
    --------
    >>> from dpmo.greedy_hypervolume import tie_weights
    >>> tie_weights(20, [0.01, 0.02], 5.0, 1.0, 0.03, False)  # noisy: no tie term
    (0.0, 0.0)
    >>> beta, gamma = tie_weights(20, [0.01, 0.02], 1e6, 0.0, 0.03, False)
    >>> 0 < beta == gamma < 1e-6  # t = 0: one unit of D and one of H are worth the same
    True
    """
    if epsilon is None or not epsilon > 0:
        return 0.0, 0.0
    e = np.minimum(np.asarray(d, dtype=np.float64), 1.0)
    m, s, U = e.size, float(np.sum(e)), float(np.sum(1.0 / e))
    x = resolution(n_left, epsilon, RESOLVE)
    if not x * (m + 2.0 + 2.0 * U) <= TIE_SHARE:
        return 0.0, 0.0
    B = (1.0 - t) * gain_sens + t * s / m
    if first:
        S = B / (1.0 - x)
        return x * S, 0.0
    S = (B + 2.0 * t) / (1.0 - 3.0 * x)
    return x * S, x * S + t


def round_settings(n_left: int, k: int, d, epsilon: float | None, first: bool) -> tuple[float, float]:
    """The public settings ``(delta, t)`` of one round of the private greedy hypervolume.

    ``s = sum_i min(d_i, 1)`` (``d_i = Delta_i / (high_i - low_i)``), ``res(S) = 2 ln(n_left) S / eps_j``: the
    score difference that the exponential mechanism resolves among ``n_left`` candidates for a score of
    sensitivity ``S`` (it favours a lead of ``res`` by a factor ``n_left``). The reference offset is
    ``delta = reference_offset(k, m, res(s))`` (values within the noise of the low end count as the low end);
    the weight of the range-unit sum is ``t = min(1, m res(S_G))`` with ``S_G = (1 or 2) s / (1 + delta)``
    the gain's sensitivity (round 1, later rounds): the gains of good candidates differ by about ``1 / m``
    of the gain's range (a box's volume is a product of ``m`` range-unit sides, each changing it by about
    a share ``1 / m``), so when the noise resolves less than that the sum, which the same noise resolves
    ``m`` times better per unit, takes the weight. ``epsilon`` None (no noise): ``t = 0``,
    ``delta = 1 / (m H)``. All inputs are public.

    Examples
    --------
    >>> from dpmo.staircase import round_settings
    >>> round_settings(500, 3, [0.002, 1 / 3000, 1 / 300], None, False)
    (0.3333333333333333, 0.0)
    >>> delta, t = round_settings(500, 3, [0.1, 0.1, 0.1, 0.1], 0.5, False)
    >>> round(delta, 3), t
    (9.943, 1.0)
    """
    d = np.minimum(np.asarray(d, dtype=np.float64), 1.0)
    m, s = d.size, float(np.sum(d))

    def res(sens: float) -> float:
        if epsilon is None or not epsilon > 0:
            return 0.0
        return resolution(n_left, epsilon, 0.0) * sens

    delta = reference_offset(k, m, res(s))
    gain_sens = (1.0 if first else 2.0) * s / (1.0 + delta)
    return delta, min(1.0, m * res(gain_sens))
