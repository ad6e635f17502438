"""PrivChebyshev with private, data-adaptive aspirations: every round aims at a gap of a released staircase.

Not in the paper. :mod:`dpmo.chebyshev` fixes its directions and aspirations before it sees the data, so
its picks cannot follow the front: on some data more budget only makes them land more surely on the same,
poor, points. Here the aspirations of round ``j`` come from the data, through a private release:

1. Round 1 is PrivChebyshev with the public aspiration ``floor`` (default 0) and equal weights:
   ``s_1(r) = min_i D_i(r)``, where ``D_i(r) = dampen(u_i(r) - floor_i)`` has sensitivity 1
   (:func:`dpmo.chebyshev.dampened_excess`).
2. Before each later round the previous pick's dampened values ``floor(D_i(p))`` are released with the
   discrete Laplace mechanism (:meth:`StaircaseRounds.release`); their lower confidence bounds -- never the
   exact values -- are the points of a *staircase* ``S`` (in dampened units).
3. Round ``j`` scores ``s_j(r) = max_{l in L(S)} min_i (D_i(r) - l_i)``. ``L(S)`` are the local lower bounds
   of the region that ``S`` does not dominate (:func:`local_lower_bounds`; for two objectives the inner
   corners of the staircase and its two outer corners): ``s_j(r) > 0`` exactly when ``r`` is better than
   every released point in some objective, and it grows with the margin by which ``r`` fills the gap at its
   corner -- a private step of the greedy hypervolume algorithm.

Dominance in dampened units is dominance in the objectives' own units when dampening maps every candidate's
values through the same increasing function (the global sensitivity; rates of one data set, as DP-MOET's
TPR and TNR). Where it does not (a graph node's ego density is dampened by its own degree),
the application releases values in the objectives' units and sets corners there
(:func:`staircase_scores`; ``dpmo.graphs.chebyshev``).

Privacy (proof in ``docs/pareto.md``): for any fixed public corner ``l`` each term moves by at most 1
between neighbours, and so do their minimum and the maximum over corners; corners are computed from
released values only; every release and every round is recorded in the budget when it is made
(:func:`dpmo.select_multiobjective`), and adaptive sequential composition adds their shares to epsilon.
"""

from __future__ import annotations

import copy
import math
import numbers
from fractions import Fraction

import numpy as np

from ._validation import check_int
from .chebyshev import AUGMENT, dampened_excess
from .chebyshev_gate import gated_scores
from .greedy_hypervolume import (
    HypervolumeRounds,
    hypervolume_gains,
    reference_offset,
    round_settings,
    tie_weights,
)
from .mechanisms.exact import sample_discrete_laplace
from .ranges import warn_mixed_ranges
from .selection import Approach, Rounds, register_approach
from .steps import Step

__all__ = [
    "hypervolume_gains",
    "reference_offset",
    "round_settings",
    "tie_weights",
    "HypervolumeRounds",
    "local_lower_bounds",
    "staircase_scores",
    "discrete_laplace_sd",
    "StaircaseApproach",
    "StaircaseRounds",
    "RELEASE_SHARE",
    "release_share_for",
]

_LIM = float(np.finfo(np.float64).max) / 64.0

#: Default share of epsilon of each release (one per round after the first), while the releases take at most
#: half of epsilon (:meth:`StaircaseApproach.release_share_at`).
RELEASE_SHARE = 0.04
#: Default number of standard deviations of the release's noise below the released value that a corner takes
#: (a lower confidence bound: a noisy staircase never hides a gap that the exact one would show).
CONFIDENCE = 1.0


def release_share_for(k: int, share_at_three: float, before: float = 0.0) -> float:
    """Share of epsilon of each of the ``k - 1`` releases of a staircase plan of ``k`` rounds (public: ``k``
    and the plan's constants).

    A release is worth a fixed fraction ``rho`` of an average round, whatever ``k``: with ``b`` the share
    spent before the rounds, each release takes ``p = rho (1 - b) / (k + rho (k - 1))``, so that ``p = rho
    (1 - b - (k - 1) p) / k``. ``rho = 3 a / (1 - b - 2 a)`` is the ratio of the plan with three rounds and
    releases of share ``a`` (``share_at_three``), which the rule reproduces exactly at ``k = 3``. The
    releases together take ``rho (k - 1) (1 - b) / (k + rho (k - 1))``, less than ``rho (1 - b) / (1 +
    rho)`` of epsilon for every ``k`` (0.170 for the graph default, ``a = 0.06``, ``b = 0.03``): a fixed
    share per release, ``(k - 1) a``, left nothing to the rounds from ``k = 1 + (1 - b) / a`` (17 there).
    ``docs/pareto.md``, "Shares that hold for every k".

    Parameters
    ----------
    k : int
        Rounds of the plan (>= 1).
    share_at_three : float
        Each release's share in the plan with three rounds (``0 < 2 a < 1 - b``).
    before : float
        Share of epsilon spent before round 1 (``0 <= b < 1``).

    Returns
    -------
    float
        Each release's share, > 0, with ``(k - 1) p < 1 - b``; exactly ``a`` at ``k = 3``. O(1).

    Examples
    --------
    >>> from dpmo.staircase import release_share_for
    >>> round(release_share_for(3, 0.06, 0.03), 10), round(release_share_for(10, 0.06, 0.03), 4)
    (0.06, 0.0173)
    """
    a, b = float(share_at_three), float(before)
    if not (0.0 <= b < 1.0 and 0.0 < 2.0 * a < 1.0 - b):
        raise ValueError(
            f"share_at_three and before must satisfy 0 < 2 share_at_three < 1 - before, 0 <= before < 1; "
            f"got {share_at_three!r}, {before!r}"
        )
    k = check_int(k, "k")
    rho = 3.0 * a / (1.0 - b - 2.0 * a)
    # rho (1 - b) = a (3 + 2 rho): written as a times a ratio whose two sides are the same float at k = 3
    return a * ((3.0 + 2.0 * rho) / (k + (k - 1) * rho))


def local_lower_bounds(points, floor) -> np.ndarray:
    """Local lower bounds of the region above ``floor`` that no point of ``points`` weakly dominates.

    Maximisation. The region ``{y > floor : for every s in points, y_i > s_i for some i}`` is the union of
    the open boxes ``{y > l}`` over the returned ``l`` (Klamroth, Lacour and Vanderpooten 2015, "On the
    representation of the search region in multi-objective optimization", here for maximisation). For two
    objectives they are the staircase's inner corners ``(u_1 of the next point, u_2 of this one)`` and its two
    outer corners.

    Parameters
    ----------
    points : array_like, shape (p, m)
        The staircase (any points; dominated ones change nothing).
    floor : array_like, shape (m,)
        Lower bound of the region.

    Returns
    -------
    numpy.ndarray, shape (L, m)
        No row weakly below another (a redundant bound is dropped). O(p L^2 m) time.

    Examples
    --------
    >>> from dpmo.staircase import local_lower_bounds
    >>> local_lower_bounds([[4.0, 1.0], [1.0, 3.0]], [0.0, 0.0]).tolist()
    [[0.0, 3.0], [1.0, 1.0], [4.0, 0.0]]
    """
    F = np.asarray(floor, dtype=np.float64).ravel()
    P = np.asarray(points, dtype=np.float64).reshape(-1, F.size)
    if np.isnan(F).any() or np.isnan(P).any():  # NaN: the arrays' own comparisons and keys
        return _lower_bounds_of_arrays(F, P)
    # the same steps on tuples of Python floats (the same comparisons, in the same order; a few corners:
    # no numpy call per comparison)
    bounds = [tuple(F.tolist())]
    for s in P.tolist():
        cut = [b for b in bounds if _below(b, s)]
        if not cut:
            continue
        bounds = [b for b in bounds if not _below(b, s)]
        for b in cut:  # {y > b} minus the points s dominates: the boxes with one coordinate raised to s
            bounds.extend(b[:i] + (s[i],) + b[i + 1 :] for i in range(F.size))
        bounds = [b for b in bounds if not any(_weakly_below(o, b) for o in bounds)]
        bounds = list({b: b for b in bounds}.values())
    out = np.array(bounds, dtype=np.float64).reshape(-1, F.size)
    return out[np.lexsort(out.T[::-1])]


def _below(b: tuple, s) -> bool:
    """``np.all(b < s)`` on tuples of floats."""
    return all(x < y for x, y in zip(b, s, strict=True))


def _weakly_below(o: tuple, b: tuple) -> bool:
    """``np.all(o <= b) and np.any(o < b)`` on tuples of floats."""
    return all(x <= y for x, y in zip(o, b, strict=True)) and any(x < y for x, y in zip(o, b, strict=True))


def _lower_bounds_of_arrays(F: np.ndarray, P: np.ndarray) -> np.ndarray:
    """:func:`local_lower_bounds` on numpy rows (any floats, NaN too)."""
    bounds = [F]
    for s in P:
        cut = [b for b in bounds if np.all(b < s)]
        if not cut:
            continue
        bounds = [b for b in bounds if not np.all(b < s)]
        for b in cut:  # {y > b} minus the points s dominates: the boxes with one coordinate raised to s
            for i in range(F.size):
                c = b.copy()
                c[i] = s[i]
                bounds.append(c)
        bounds = [b for b in bounds if not any(np.all(o <= b) and np.any(o < b) for o in bounds)]
        bounds = list({tuple(b): b for b in bounds}.values())
    out = np.array(bounds, dtype=np.float64).reshape(-1, F.size)
    return out[np.lexsort(out.T[::-1])]


def staircase_scores(objectives, corners, sensitivity: str = "local", cache=None) -> np.ndarray:
    """``s(r) = max_{l in corners} min_i D_i(r, l_i)``: one staircase round's scores (sensitivity 1).

    ``D_i(r, a)`` is :func:`dpmo.chebyshev.dampened_excess` (``"local"``: local dampening; ``"global"``:
    ``(u_i - a) / Delta_i``). For neighbouring inputs and public ``corners`` every ``D_i`` moves by at most 1,
    hence so do the minimum over objectives and the maximum over corners
    (``|max_l f_l - max_l g_l| <= max_l |f_l - g_l|``). O(L m n) plus one dampening loop per distinct
    ``(i, l_i)``; ``cache``: an optional dict of the dampened excesses.
    """
    objs = list(objectives)
    C = np.asarray(corners, dtype=np.float64).reshape(-1, len(objs))
    cache = {} if cache is None else cache
    best = None
    for corner in C:
        s = dampened_excess(objs[0], corner[0], sensitivity, cache, 0)
        for i in range(1, len(objs)):
            s = np.minimum(s, dampened_excess(objs[i], corner[i], sensitivity, cache, i))
        best = s.copy() if best is None else np.maximum(best, s)
    return best


class StaircaseRounds(Rounds):
    """The rounds of one staircase selection: the released points and the scores of every round.

    Generic release (:meth:`release`): the integers ``floor(D_i(p))`` of the previous pick ``p`` (each
    moves by at most 1 between neighbours: L1 sensitivity ``m``) with discrete Laplace noise of parameter
    ``epsilon / m``; the point is the noisy values lowered by ``confidence`` standard deviations of the
    noise (dampened units). Subclasses refine :meth:`release_spec`, :meth:`statistic`, :meth:`receive`,
    :meth:`scores` and :meth:`margin`.
    """

    def __init__(self, objectives, sensitivity: str, floor, confidence: float, keep: dict):
        self.objectives, self.sensitivity = list(objectives), sensitivity
        self.floor = np.asarray(floor, dtype=np.float64)
        self.confidence = float(confidence)
        # the dampened excesses over the public floor are kept across calls (``keep``, the selection
        # cache); those over released corners are new in every call and kept for this call only
        self._keep, self._cache = keep, dict(keep)
        self.points: list[np.ndarray] = []  # released (conservative) points, in the order made
        self.augment = False  # the generic approach sets it: + AUGMENT / m times the sum (docs/pareto.md)
        self._gate: dict = {}  # the Pareto gate's dominance of every candidate (the same in every round)
        self.epsilon = None  # of the current round (told by the pipeline)
        self.score_name = "staircase Chebyshev scalarisation of the dampened objectives"

    def dampened(self) -> np.ndarray:
        """``(m, n)``: ``D_i = dampened_excess(u_i, floor_i)`` of every candidate (kept across calls)."""
        rows = []
        for i, o in enumerate(self.objectives):
            key = (i, float(self.floor[i]), self.sensitivity)
            if key not in self._keep:
                self._keep[key] = dampened_excess(o, self.floor[i], self.sensitivity)
            rows.append(self._keep[key])
        return np.stack(rows)

    def begin(self, r: int, epsilon: float) -> None:
        self.epsilon = epsilon

    def release_spec(self, r: int, chosen: list[int]) -> tuple[str, float, int]:
        m = len(self.objectives)
        return f"floor of the dampened objectives of pick {len(chosen)}", float(m), m

    def release(self, r: int, chosen: list[int], epsilon: Fraction, rng) -> None:
        """The release before round ``r``: :meth:`statistic` plus discrete Laplace noise of parameter
        ``epsilon / sensitivity`` (the geometric mechanism, exact), handed to :meth:`receive`."""
        _, sens, _ = self.release_spec(r, chosen)
        x = Fraction(epsilon) / Fraction(sens)
        stat = self.statistic(r, chosen)
        self.receive(r, chosen, stat + sample_discrete_laplace(stat.size, x, rng), float(x))

    def statistic(self, r: int, chosen: list[int]) -> np.ndarray:
        """The private integers released before round ``r`` (L1 sensitivity: :meth:`release_spec`): here
        ``floor(D_i(p))`` of the previous pick ``p``."""
        D = self.dampened()[:, chosen[-1]]
        return np.array([math.floor(float(v)) for v in np.clip(D, -(2.0**62), 2.0**62)], dtype=np.int64)

    def receive(self, r: int, chosen: list[int], noisy: np.ndarray, x: float) -> None:
        """Post-processing of a release (public: the noisy integers and the noise parameter ``x`` only): the
        point of the staircase, ``confidence`` standard deviations of the noise below the noisy values."""
        sd = discrete_laplace_sd(x)
        self.points.append(np.asarray(noisy, dtype=np.float64) - self.confidence * sd)

    def corners(self) -> np.ndarray:
        """The local lower bounds of the released staircase (public: computed from released values)."""
        return local_lower_bounds(self.points, np.zeros(len(self.objectives)))

    def margin(self, scores: np.ndarray, remaining: np.ndarray) -> np.ndarray:
        """Hook: a sensitivity-1 bound on the scores of the ``remaining`` candidates (none here)."""
        return scores

    def scores(self, chosen, remaining):
        D = self.dampened()[:, remaining]
        s = None
        for corner in self.corners():
            t = np.min(D - corner[:, None], axis=0)
            s = t if s is None else np.maximum(s, t)
        if not self.augment:
            return self.margin(s, remaining), 1.0
        # + rho * sum_i D_i (sensitivity rho m): strictly larger for a dominating candidate
        m = D.shape[0]
        rho = AUGMENT / m
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.clip((s + rho * np.sum(np.clip(D, -_LIM, _LIM), axis=0)) / (1.0 + rho * m), -_LIM, _LIM)
        # the Pareto gate at negligible noise, without declared ranges (docs/pareto.md, "Without declared
        # ranges"): the largest weight the round's resolution allows; dominance of the values as declared
        if "values" not in self._gate:  # stacked once per selection
            self._gate["values"] = np.stack([o.values for o in self.objectives])
        W = self._gate["values"]
        s = self.margin(s, remaining)
        out = gated_scores(s, None, 1.0 + rho * m, W, np.ones(m), chosen, remaining, self.epsilon, self._gate)
        if out[1] != 1.0 and "Pareto gate" not in self.score_name:
            self.score_name += " + Pareto gate (negligible noise)"
        return out


def discrete_laplace_sd(x: float) -> float:
    """Standard deviation ``sqrt(2 q) / (1 - q)``, ``q = e^-x``, of the discrete Laplace law
    ``P(z) ~ exp(-x |z|)`` (public: a function of the noise parameter only). ``1 - q`` is computed as
    ``-expm1(-x)``: finite for every ``x > 0`` (``1 - exp(-x)`` is 0 below ``x`` ~ 1e-16)."""
    q = math.exp(-x)
    return math.sqrt(2.0 * q) / -math.expm1(-x) if q > 0.0 else 0.0


class StaircaseApproach(Approach):
    """``approach="staircase"``: the front-covering approach for candidate tables.

    Parameters
    ----------
    shares : sequence of k floats, optional
        Public relative shares of the ``k`` rounds (default equal); with ``score="corners"`` they split what
        the releases leave.
    release_share : float, optional
        ``score="corners"``: public share of epsilon of each of the ``k - 1`` releases
        (``(k - 1) release_share < 1``). Default :meth:`release_share_at`: :data:`RELEASE_SHARE`, at most
        ``1 / (2 (k - 1))``.
    confidence : float, default :data:`CONFIDENCE`
        ``score="corners"``: standard deviations of the release noise below each released value (>= 0).
    floor : array_like of m floats, optional
        ``score="corners"``: public lower corner of round 1 (default 0 in every objective).
    score : {"auto", "hypervolume", "corners"}, default "auto"
        ``"hypervolume"``: the private greedy hypervolume (:class:`HypervolumeRounds`; every objective must
        declare ``bounds``, a hypervolume needs a bounded box), no release. ``"corners"``: PrivChebyshev
        whose aspirations are the corners of a released staircase (:class:`StaircaseRounds`, in sensitivity
        units, augmented by ``AUGMENT / m`` times the sum of the dampened objectives so that a dominating
        candidate always scores more). ``"auto"``: ``"hypervolume"`` when every objective declares bounds,
        else ``"corners"`` (:meth:`resolved`, which the pipeline calls with the objectives; without them,
        e.g. :func:`dpmo.selection.selection_plan`, ``"auto"`` is ``"corners"``).

    Notes
    -----
    :meth:`steps` is the plan of the call (``"hypervolume"``: ``k`` rounds; ``"corners"``: round 1, then a
    release and a round for each later pick); the pipeline records each step's exact share right before it
    runs. Sensitivity 1 in every round.
    """

    name = "staircase"

    def __init__(
        self,
        shares=None,
        release_share: float | None = None,
        confidence: float = CONFIDENCE,
        floor=None,
        score: str = "auto",
    ):
        self.shares, self.release_share = shares, release_share
        self.confidence, self.floor = confidence, floor
        if score not in ("auto", "hypervolume", "corners"):
            raise ValueError(f"score must be 'auto', 'hypervolume' or 'corners', got {score!r}")
        self.score = score
        self._argmax_k = None  # the k of argmax_multiobjective (the reference point of the exact greedy)

    def release_share_at(self, k: int) -> float:
        """Each release's share of epsilon in the plan of ``k`` rounds: ``release_share``, or when it is None
        :data:`RELEASE_SHARE` while the ``k - 1`` releases take at most half of epsilon, ``min(0.04, 1 / (2
        (k - 1)))`` (public; the same plan as before for ``k <= 13``, where a fixed 0.04 per release was
        refused from ``k = 26``). The ratio rule of :func:`release_share_for` was measured worse here at ``k =
        10`` (these rounds take each release's lower confidence bound, so their corners need precise
        releases): ``docs/pareto.md``, "Shares that hold for every k"."""
        if self.release_share is not None:
            return self.release_share
        return min(RELEASE_SHARE, 0.5 / max(int(k) - 1, 1))

    def _check(self, k: int, m: int):
        r = self.release_share_at(k)
        if (
            isinstance(r, bool)
            or not isinstance(r, numbers.Real)
            or not (0.0 < float(r) and (k - 1) * r < 1.0)
        ):
            raise ValueError(
                f"release_share must be a number > 0 with (k - 1) * release_share < 1, got {r!r}"
            )
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not (math.isfinite(c) and c >= 0):
            raise ValueError(f"confidence must be a finite number >= 0, got {c!r}")
        if self.floor is not None:
            f = np.asarray(self.floor, dtype=np.float64)
            if f.shape != (m,) or not np.all(np.isfinite(f)):
                raise ValueError(f"floor must be {m} finite numbers (one per objective), got {self.floor!r}")
        if self.shares is None:
            return np.full(k, 1.0 / k)
        s = np.asarray(self.shares, dtype=np.float64)
        if s.shape != (k,) or not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise ValueError(f"shares must be {k} positive numbers (one per round), got {self.shares!r}")
        return s / s.sum()

    def round_shares(self, k: int, m: int):
        self._check(k, m)
        return None  # the plan (steps) decides

    def resolved(self, objectives) -> StaircaseApproach:
        """This approach for these objectives: ``score="auto"`` becomes ``"hypervolume"`` when every objective
        declares bounds, else ``"corners"`` (public: the declared bounds only). ``"hypervolume"`` without
        bounds on every objective raises ValueError."""
        has_bounds = all(o.bounds is not None for o in objectives)
        if self.score == "hypervolume" and not has_bounds:
            raise ValueError(
                "score='hypervolume' needs bounds=(low, high) on every objective (a hypervolume needs a "
                "bounded box); declare them, or use score='auto' or 'corners'"
            )
        if self.score != "auto" or type(self) is not StaircaseApproach:
            return self
        warn_mixed_ranges(objectives, "staircase")  # the ranges left unused (declarations only)
        out = copy.copy(self)
        out.score = "hypervolume" if has_bounds else "corners"
        return out

    def steps(self, k: int, m: int):
        rel = self._check(k, m)
        if self.score == "hypervolume":
            return tuple(Step("round", j, float(rel[j]), None) for j in range(k))
        share = float(self.release_share_at(k))
        left = 1.0 - (k - 1) * share
        plan = [Step("round", 0, float(rel[0] * left), None)]
        for j in range(1, k):
            plan.append(Step("release", j, share, "laplace"))
            plan.append(Step("round", j, float(rel[j] * left), None))
        return tuple(plan)

    def rounds(self, objectives, weights, sensitivity, cache) -> Rounds:
        m = len(objectives)
        if self.score == "hypervolume":
            keep = {} if cache is None else cache.slot(("hypervolume", sensitivity), dict)
            return HypervolumeRounds(objectives, sensitivity, keep)
        floor = np.zeros(m) if self.floor is None else np.asarray(self.floor, dtype=np.float64)
        keep = {} if cache is None else cache.slot(("staircase", sensitivity), dict)
        rounds = StaircaseRounds(objectives, sensitivity, floor, self.confidence, keep)
        rounds.augment = True
        return rounds

    def utility(self, objectives, weights, remaining):
        """NOT private: the round's score on the exact values (``"hypervolume"``: the greedy hypervolume gain
        in range units, global sensitivity; ``"corners"``: the staircase round on the exact values of the
        candidates chosen so far, in units of the global sensitivities)."""
        n, m = objectives[0].n, len(objectives)
        picked = np.setdiff1d(np.arange(n), remaining)
        if self.resolved(objectives).score == "hypervolume":
            r = HypervolumeRounds(objectives, "global", {}, self._argmax_k)
            return r.scores(list(picked), remaining)[0]
        pts = np.array([[o.values[p] for o in objectives] for p in picked]).reshape(-1, m)
        floor = np.zeros(m) if self.floor is None else np.asarray(self.floor, dtype=np.float64)
        return staircase_scores(objectives, local_lower_bounds(pts, floor), "global")[remaining]


register_approach(StaircaseApproach())
