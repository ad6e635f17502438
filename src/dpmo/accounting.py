"""Approximate-DP accounting of one call's mechanisms: :func:`per_pick_epsilon` and :func:`scaled_epsilons`.

A call of ``dpmo`` (a selection of ``k`` picks, a DP-MOET fit, an ID3 fit) runs a sequence of mechanisms whose
epsilons are fixed before any data are read, each chosen adaptively in *what* it selects (its utility depends
on the earlier outputs). With ``delta = 0`` they compose by basic composition (the epsilons add up, exactly:
:mod:`dpmo.budget`). With ``delta > 0`` this module finds the largest epsilons that keep the composition
``(epsilon, delta)``-DP, by the best of three bounds, each an upper bound on the composition's
``delta(epsilon)`` that holds for *adaptive* composition (``docs/privacy-accounting.md``, "Approximate DP"):

* **basic**: ``sum_i e_i <= epsilon`` gives ``delta = 0`` (Dwork and Roth 2014, Theorem 3.16);
* **zCDP**: an ``e``-bounded-range mechanism (the exponential mechanism, Gumbel report-noisy-max, local
  dampening over the exponential mechanism) is ``e^2 / 8``-zCDP (Cesar and Rogers 2021), a
  pure ``e``-DP one (permute-and-flip, Laplace report-noisy-max, the Laplace mechanism) ``e^2 / 2``-zCDP
  (Bun and Steinke 2016, Proposition 3.3); zCDP adds up under adaptive composition, and ``rho``-zCDP is
  ``(epsilon, delta)``-DP with ``delta = inf_{a > 1} exp((a - 1)(a rho - epsilon)) (1 - 1/a)^a / (a - 1)``
  (Canonne, Kamath and Steinke 2020, Proposition 12), :func:`zcdp_delta`;
* **optimal adaptive composition** (``"adaptive"``): the exact worst case over all adaptive compositions of
  the given sequence of ``e_i``-bounded-range and ``e_i``-DP mechanisms, by the recursion of Dong, Durfee and
  Rogers (2020, Section 6): every ``e``-bounded-range pair is dominated by a two-point generalised randomised
  response with privacy losses ``t`` and ``t - e`` (``t`` in ``[0, e]``, chosen by the adversary after the
  earlier outputs), every pure ``e``-DP pair by randomised response (losses ``+-e``; Kairouz, Oh and
  Viswanath 2015). The recursion is bounded from above on a grid of privacy losses
  (:mod:`dpmo.adaptive_composition`): chords in ``exp(-loss)`` between grid points and a closed-form bound
  on each cell of ``t``, so the number it gives is an upper bound on the exact worst case
  (:func:`adaptive_delta`).

The largest scale of given relative shares (:func:`scaled_epsilons`) is the largest over the three bounds,
each solved for its own largest scale; :func:`per_pick_epsilon` is its case of ``k`` equal shares. On every
branch the floats returned are checked once more before they are returned: their exact sum (as Fractions)
is at most ``epsilon``, or :func:`composed_delta` of them is at most ``delta``. Basic composition's shares
are rounded *down* exactly (:mod:`dpmo.epsilons`), so they never add up to more than ``epsilon``.

Layering: the ground floor, beside :mod:`dpmo.budget` (which uses it); imports only numpy, scipy,
:mod:`dpmo.epsilons` and :mod:`dpmo.adaptive_composition`.
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction

import numpy as np

from . import adaptive_composition as _adaptive
from . import zcdp as _zcdp
from .epsilons import decimal_float_at_most, exact_epsilon, float_at_most

__all__ = [
    "KINDS",
    "adaptive_delta",
    "composed_delta",
    "mechanism_kind",
    "per_pick_bounds",
    "per_pick_epsilon",
    "scaled_epsilons",
    "zcdp_delta",
    "zcdp_max_rho",
]

#: Kinds of mechanism the accountant tells apart: ``"bounded_range"`` (the exponential mechanism and its
#: equals: ``e``-bounded-range, ``e^2 / 8``-zCDP) and ``"pure"`` (any other ``e``-DP mechanism, credited
#: ``e``-DP only: ``e^2 / 2``-zCDP).
KINDS = ("bounded_range", "pure")

#: Mechanism names of :func:`dpmo.select` (and the budget's records) that are bounded-range.
_BOUNDED_RANGE = frozenset({"exponential", "gumbel", "bounded_range"})
#: Every other name the library records: pure credit only. Permute-and-flip is not bounded-range in
#: general (docs/privacy-accounting.md, "Approximate DP").
_PURE = frozenset({"permute_and_flip", "laplace", "randomized_response", "pure"})


def mechanism_kind(mechanism) -> str:
    """The accountant's kind of a mechanism name: ``"bounded_range"`` or ``"pure"``.

    ``"exponential"`` and ``"gumbel"`` (the same distribution, Durfee and Rogers 2019) are bounded-range;
    ``"permute_and_flip"``, ``"laplace"`` (report-noisy-max, or the Laplace mechanism of a count) and
    ``"randomized_response"`` (the released graph of :mod:`dpmo.graphs.pair_response`) get pure credit.
    The kinds themselves are accepted as names. Anything else raises ``ValueError``.

    Examples
    --------
    >>> from dpmo.accounting import mechanism_kind
    >>> mechanism_kind("exponential"), mechanism_kind("permute_and_flip")
    ('bounded_range', 'pure')
    """
    if mechanism in _BOUNDED_RANGE:
        return "bounded_range"
    if mechanism in _PURE:
        return "pure"
    raise ValueError(
        f"mechanism must be one of {sorted(_BOUNDED_RANGE | _PURE)} for the accountant, got {mechanism!r}"
    )


def _check_positive(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return v


def check_delta(delta, name: str = "delta") -> float:
    """``delta`` as a float in ``[0, 1)`` (``TypeError`` / ``ValueError`` naming it otherwise)."""
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number in [0, 1), got {type(delta).__name__}")
    d = float(delta)
    if not 0 <= d < 1:
        raise ValueError(f"{name} must be in [0, 1), got {delta!r}")
    return d


# ------------------------------------------------------------------------------------------ zCDP
def zcdp_delta(rho: float, epsilon: float) -> float:
    """The smallest ``delta`` for which ``rho``-zCDP implies ``(epsilon, delta)``-DP (Canonne, Kamath and
    Steinke 2020, Proposition 12), capped at 1: :func:`dpmo.zcdp.zcdp_delta`. O(1).

    Examples
    --------
    >>> from dpmo.accounting import zcdp_delta
    >>> zcdp_delta(0.024, 1.0) < 1e-6 < zcdp_delta(0.025, 1.0)
    True
    """
    return _zcdp.zcdp_delta(rho, epsilon)


def zcdp_max_rho(epsilon: float, delta: float) -> float:
    """The largest ``rho`` whose zCDP implies ``(epsilon, delta)``-DP by :func:`zcdp_delta`'s conversion
    (:func:`dpmo.zcdp.zcdp_max_rho`, with ``epsilon`` and ``delta`` checked here). 0 when ``delta`` is 0.

    Examples
    --------
    >>> from dpmo.accounting import zcdp_max_rho, zcdp_delta
    >>> rho = zcdp_max_rho(1.0, 1e-6)
    >>> round(rho, 4), zcdp_delta(rho, 1.0) <= 1e-6
    (0.0244, True)
    """
    return _zcdp.zcdp_max_rho(_check_positive(epsilon, "epsilon"), check_delta(delta))


def _rho_weight(kind: str) -> float:
    return 0.125 if kind == "bounded_range" else 0.5


# ------------------------------------------------------------------------------------------ adaptive
def adaptive_delta(epsilon: float, epsilons, kinds, *, step: float | None = None) -> float:
    """An upper bound on ``delta(epsilon)`` of any adaptive composition of the given mechanisms, in order.

    Parameters
    ----------
    epsilon : float
        The composed epsilon.
    epsilons : sequence of float
        ``e_i > 0`` of each mechanism, in the order they run (fixed before the data are read).
    kinds : sequence of {"bounded_range", "pure"}
        Each mechanism's kind (:func:`mechanism_kind`).
    step : float, optional
        Width of the privacy-loss grid (default: 1/m of the smallest ``e_i`` for the largest ``m`` in
        256, ..., 1 whose work fits in :data:`dpmo.adaptive_composition.WORK`).

    Returns
    -------
    float
        An upper bound on ``V_k(0)`` of the recursion ``V_0(l) = (1 - exp(epsilon - l))_+``, ``V_j(l) = sup
        E[V_{j-1}(l + L)]`` over the worst pairs of mechanism ``k - j + 1`` (Dong, Durfee and Rogers 2020,
        Section 6: a two-point generalised randomised response for a bounded-range mechanism, the
        adversary's ``t`` chosen per state; randomised response for a pure one), kept on a grid of losses
        with chords in ``exp(-l)`` between grid points (above ``V_j`` by convexity) and the supremum over
        each cell of ``t`` bounded in closed form (:mod:`dpmo.adaptive_composition`; proof in
        ``docs/privacy-accounting.md``, "Approximate DP").

    Notes
    -----
    O(k P T) for ``P`` grid points (O(sqrt(k) / h) for ``k`` mechanisms) and ``T`` cells of ``t`` per
    bounded-range mechanism (``e_i / h``).

    Examples
    --------
    >>> from dpmo.accounting import adaptive_delta
    >>> adaptive_delta(1.0, [0.07] * 41, ["bounded_range"] * 41) < 1e-6
    True
    """
    eps = np.asarray([_check_positive(e, "epsilons[i]") for e in epsilons], dtype=np.float64)
    kinds = [mechanism_kind(kd) for kd in kinds]
    if eps.size != len(kinds):
        raise ValueError("epsilons and kinds must have the same length")
    epsilon = _check_positive(epsilon, "epsilon")
    if step is not None:
        step = _check_positive(step, "step")
    return _adaptive.adaptive_delta(epsilon, eps, kinds, step=step)


def _grid_step(epsilon: float, eps, kinds) -> float | None:
    return _adaptive.grid_step(epsilon, np.asarray(eps, dtype=np.float64), list(kinds))


# ------------------------------------------------------------------------------------------ composition
def _as_kinds(kinds, k: int) -> list[str]:
    if isinstance(kinds, str):
        return [mechanism_kind(kinds)] * k
    kinds = [mechanism_kind(kd) for kd in kinds]
    if len(kinds) != k:
        raise ValueError(f"kinds must be one name or one per share ({k}), got {len(kinds)}")
    return kinds


def composed_delta(epsilon: float, epsilons, kinds="bounded_range") -> float:
    """An upper bound on ``delta(epsilon)`` of the adaptive composition of mechanisms at ``epsilons``.

    The smallest of the three bounds (module notes): 0 when ``sum(epsilons) <= epsilon`` (basic), else the
    smaller of :func:`zcdp_delta` of the summed zCDP and :func:`adaptive_delta`.

    Examples
    --------
    >>> from dpmo.accounting import composed_delta
    >>> composed_delta(1.0, [0.25] * 4)
    0.0
    >>> composed_delta(1.0, [0.06] * 41) < 1e-6 < composed_delta(1.0, [0.08] * 41)
    True
    """
    epsilon = _check_positive(epsilon, "epsilon")
    eps = [_check_positive(e, "epsilons[i]") for e in epsilons]
    kinds = _as_kinds(kinds, len(eps))
    approx = math.fsum(eps)  # correctly rounded; compared exactly only when it is this close
    if approx <= epsilon * (1.0 - 1e-12) or (
        approx <= epsilon * (1.0 + 1e-12) and sum(map(Fraction, eps)) <= Fraction(epsilon)
    ):
        return 0.0  # basic composition
    rho = math.fsum(_rho_weight(kd) * e * e for e, kd in zip(eps, kinds, strict=True))
    if _grid_step(epsilon, eps, kinds) is None:  # too long for the recursion
        return min(1.0, zcdp_delta(rho, epsilon))
    return min(1.0, zcdp_delta(rho, epsilon), adaptive_delta(epsilon, eps, kinds))


def _scale_bounds(epsilon: float, delta: float, shares: tuple, kinds: tuple) -> dict[str, float]:
    """The largest scale ``c`` such that mechanisms at ``c * shares[i]`` are ``(epsilon, delta)``-DP, by
    each bound (``"basic"``, ``"zcdp"``, ``"adaptive"``; the last where it beats the other two). Cached
    (:func:`per_pick_bounds` and :func:`scaled_epsilons` share the work)."""
    return dict(_scale_bounds_cached(epsilon, delta, shares, kinds))


@functools.lru_cache(maxsize=256)
def _scale_bounds_cached(epsilon: float, delta: float, shares: tuple, kinds: tuple) -> tuple:
    s = np.asarray(shares, dtype=np.float64)
    out = {"basic": epsilon / math.fsum(shares)}
    if delta == 0:
        return tuple(out.items())
    weight = math.fsum(_rho_weight(kd) * x * x for x, kd in zip(shares, kinds, strict=True))
    if epsilon < _zcdp_useful_below(delta, math.fsum(shares) ** 2 / weight):
        out["zcdp"] = math.sqrt(zcdp_max_rho(epsilon, delta) / weight)
    target = delta * (1.0 - 1e-6)
    seen: dict = {}  # (scale, grid step) -> fits: for large k the work cap makes the two grids one

    def fits(c: float, finest: int = 64) -> bool:
        step = _adaptive.grid_step(epsilon, c * s, kinds, finest=finest)
        if (c, step) not in seen:
            seen[c, step] = step is not None and adaptive_delta(epsilon, c * s, kinds, step=step) <= target
        return seen[c, step]

    # the recursion is tried only where it beats the other two: first on a coarse grid (1/6 of the
    # smallest epsilon at most, a looser bound, cheap), then from there on the default grid (the one
    # composed_delta certifies with), upwards, or downwards where the coarse value does not fit on it
    base = max(out.values()) * 1.0002
    known = None  # a scale found not to fit on the default grid
    fine = _grid_step(epsilon, base * s, kinds)
    if fine is None or not fits(base, 6):
        same = fine == _adaptive.grid_step(epsilon, base * s, kinds, finest=6)
        if fine is None or same or not fits(base):
            return tuple(out.items())
        coarse = base
    else:
        coarse, above = _largest(fits, base, 6, 1.08, 1e-3)
        known = _known_failure(epsilon, s, kinds, coarse, above, fits)
    if fits(coarse):
        out["adaptive"] = _largest(fits, coarse, 64, 1.004, 2e-4, known)[0]
    elif fits(base):
        lo, hi = base, coarse
        while hi - lo > 2e-4 * lo:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        out["adaptive"] = lo
    return tuple(out.items())


def _known_failure(epsilon: float, s: np.ndarray, kinds: tuple, coarse: float, above: float, fits):
    """``above`` (the coarse search's first failing scale) where it also bounds the search on the default
    grid, else None. That holds for bounded-range steps where the work cap (large k) makes the coarse grid
    the default one at ``above`` and the default grid has the same steps per epsilon there as at ``coarse``
    (it switches at isolated scales, where ``fits`` is not monotone): the fine search then only refines the
    bracket (12 recursions in place of 17 at k = 1,000). Equal pure steps have one exact grid at every k and
    keep the upward search."""
    if "bounded_range" not in kinds:
        return None
    step = _adaptive.grid_step(epsilon, above * s, kinds, finest=6)
    at_coarse = _grid_step(epsilon, coarse * s, kinds)
    if step is None or at_coarse is None or step != _grid_step(epsilon, above * s, kinds):
        return None
    if round(coarse * float(s.min()) / at_coarse) != round(above * float(s.min()) / step):
        return None
    return None if fits(above) else above


def _zcdp_useful_below(delta: float, R: float) -> float:
    """An epsilon from which the zCDP bound cannot beat basic composition (so it is not computed: its
    conversion overflows near 1e308). ``R = (sum s_i)^2 / sum w_i s_i^2``.

    The largest ``rho`` that converts to ``(epsilon, delta)`` is below ``epsilon + A``, ``A = 1 + max(0,
    ln(1 / ln(1 / delta)))`` (from the conversion at order ``1 + ln(1 / delta)``; checked numerically in
    the tests). zCDP's scale ``sqrt(rho / sum w_i s_i^2)`` beats basic's ``epsilon / sum s_i`` only if
    ``epsilon^2 < (epsilon + A) R``, impossible once ``epsilon >= 2 max(R, A)``."""
    A = 1.0 + max(0.0, math.log(1.0 / math.log(1.0 / delta)))
    return 2.0 * max(R, A)


def _largest(fits, lo: float, finest: int, grow: float, tol: float, hi=None) -> tuple[float, float]:
    """``(lo, hi)``: the largest scale ``lo`` that ``fits`` on grids of at most ``finest`` steps per epsilon,
    from ``lo`` (which fits) by growing by ``grow`` (or from a known failing ``hi``) then bisecting to the
    relative ``tol``; ``hi`` the smallest scale found not to fit."""
    if hi is None:
        hi = lo * grow
        while fits(hi, finest):
            lo, hi = hi, hi * grow
    while hi - lo > tol * lo:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if fits(mid, finest) else (lo, mid)
    return lo, hi


def _at_most(value: Fraction) -> float:
    """The largest float not above ``value`` read either way: as its exact binary value (how a call's plan
    records it, :func:`dpmo.calls.call_budget`) and as the decimal it prints as (how a budget reads a
    float)."""
    return min(float_at_most(value), decimal_float_at_most(value))


def _basic_shares(epsilon: float, shares: tuple, *, decimal: bool) -> tuple[float, ...]:
    """``epsilon * shares[i] / sum(shares)``, each rounded down exactly, so that their exact sum never
    exceeds ``epsilon`` (read as the decimal it prints as when ``decimal``, else as its binary value)."""
    total = sum(map(Fraction, shares), Fraction(0))
    if decimal:
        eps = exact_epsilon(epsilon)
        return tuple(decimal_float_at_most(eps * Fraction(x) / total) for x in shares)
    eps = Fraction(epsilon)
    return tuple(_at_most(eps * Fraction(x) / total) for x in shares)


def _certified(epsilon: float, delta: float, out: tuple, kinds: tuple) -> bool:
    """Whether mechanisms at the floats ``out`` compose to ``(epsilon, delta)``-DP: their exact sum is at
    most ``epsilon`` (basic composition, delta 0), or :func:`composed_delta` is at most ``delta``."""
    if sum(map(Fraction, out), Fraction(0)) <= Fraction(epsilon):
        return True
    if delta == 0:
        return False
    rho = math.fsum(_rho_weight(kd) * e * e for e, kd in zip(out, kinds, strict=True))
    return zcdp_delta(rho, epsilon) <= delta or composed_delta(epsilon, out, kinds) <= delta


@functools.lru_cache(maxsize=256)
def _scaled(epsilon: float, delta: float, shares: tuple, kinds: tuple) -> tuple[float, ...]:
    bounds = _scale_bounds(epsilon, delta, shares, kinds)
    c = max(bounds.values())
    if bounds["basic"] < c:  # zCDP or the recursion: certified once more at the floats returned
        out = tuple(c * x for x in shares)
        if _certified(epsilon, delta, out, kinds):
            return out
    # basic composition (or the safety net of a failed check): the exact shares, rounded down
    out = _basic_shares(epsilon, shares, decimal=False)
    if not _certified(epsilon, delta, out, kinds):  # never: the rounding is exact
        raise AssertionError(f"the accountant could not certify basic composition of {out} at {epsilon}")
    return out


def scaled_epsilons(epsilon, shares, *, delta=0.0, kinds="bounded_range") -> tuple[float, ...]:
    """Epsilons in proportion to ``shares`` whose mechanisms compose to ``(epsilon, delta)``-DP.

    Parameters
    ----------
    epsilon : float
        The composed epsilon, > 0.
    shares : sequence of float
        Relative shares (> 0) of the mechanisms, in the order they run; only their ratios matter.
    delta : float, default 0
        The composed delta, in ``[0, 1)``. 0: basic composition, ``epsilon * shares[i] / sum(shares)``
        rounded down to the largest float whose decimal is at most it (their decimals never add up to more
        than ``epsilon``).
    kinds : str or sequence of str
        The mechanisms' kinds or names (:func:`mechanism_kind`), one for all or one per share.

    Returns
    -------
    tuple of float
        ``c * shares[i]`` for the largest scale ``c`` allowed by the best bound (module notes); the
        mechanisms run at these floats. Cached (the same call returns at once).

    Notes
    -----
    The adaptive bound is found by bisection (about 25 evaluations of :func:`adaptive_delta`, 0.1-0.2 s
    the first time for 10-50 mechanisms on a busy 2-core machine, plus once per process the load of the
    recursion's compiled step: its compile, a few seconds, when numba's cache is empty); the zCDP and basic
    ones in O(1).

    Examples
    --------
    >>> from dpmo.accounting import scaled_epsilons
    >>> scaled_epsilons(1.0, [1, 3])
    (0.25, 0.75)
    >>> chebyshev = scaled_epsilons(1.0, [0.1] + [0.9 / 9] * 9, delta=1e-6)
    >>> chebyshev[0] > 0.1
    True
    """
    epsilon = _check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    if isinstance(shares, (str, bytes)) or not hasattr(shares, "__iter__"):
        raise TypeError(f"shares must be a sequence of positive numbers, got {type(shares).__name__}")
    sh = tuple(_check_positive(x, "shares[i]") for x in shares)
    if not sh:
        raise ValueError("shares must not be empty")
    kd = tuple(_as_kinds(kinds, len(sh)))
    if delta == 0:
        return _basic_shares(epsilon, sh, decimal=True)
    return _scaled(epsilon, delta, sh, kd)


def per_pick_epsilon(epsilon, k, *, delta=0.0, mechanism="exponential") -> float:
    """The largest ``e0`` such that ``k`` adaptively chosen picks of ``mechanism``, each at ``e0``, are
    ``(epsilon, delta)``-DP.

    Parameters
    ----------
    epsilon : float
        The budget of the ``k`` picks together, > 0.
    k : int
        Number of picks, >= 1.
    delta : float, default 0
        In ``[0, 1)``. 0 gives ``epsilon / k`` (basic composition, the library's default), as the largest
        float whose decimal is at most the exact share (``epsilon`` read as the decimal it prints as), so
        that ``k`` spends of it always fit in ``Budget(epsilon)``: ``0.1`` for ``(1.0, 10)``,
        ``3.333333333333333`` for ``(10, 3)``.
    mechanism : str, default "exponential"
        ``"exponential"`` / ``"gumbel"`` (bounded-range: ``e0^2 / 8``-zCDP and the bounded-range
        recursion) or ``"permute_and_flip"`` / ``"laplace"`` (pure credit: ``e0^2 / 2``-zCDP and the
        randomised-response recursion), or a kind (:data:`KINDS`).

    Returns
    -------
    float
        The best of basic composition, zCDP with Canonne, Kamath and Steinke's conversion, and the optimal
        adaptive composition (module notes; :func:`per_pick_bounds` gives each).

    Examples
    --------
    >>> import dpmo
    >>> dpmo.per_pick_epsilon(1.0, 10)
    0.1
    >>> e0 = dpmo.per_pick_epsilon(1.0, 41, delta=1e-6)
    >>> 0.058 < e0
    True
    >>> dpmo.per_pick_epsilon(1.0, 3, delta=1e-6) >= 1 / 3
    True
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral, np.integer)):
        raise TypeError(f"k must be a positive int, got {type(k).__name__}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be a positive int, got {k}")
    epsilon = _check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    kind = mechanism_kind(mechanism)
    if delta == 0:
        return decimal_float_at_most(exact_epsilon(epsilon) / k)
    return _scaled(epsilon, delta, (1.0,) * k, (kind,) * k)[0]


def per_pick_bounds(epsilon, k, *, delta=0.0, mechanism="exponential") -> dict[str, float]:
    """Each bound's per-pick epsilon (``"basic"``, ``"zcdp"``, ``"adaptive"``) for :func:`per_pick_epsilon`,
    which returns the largest. For the docs and the tests.

    Examples
    --------
    >>> from dpmo.accounting import per_pick_bounds
    >>> b = per_pick_bounds(1.0, 41, delta=1e-6)
    >>> round(b["basic"], 4), round(b["zcdp"], 3)
    (0.0244, 0.069)
    """
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be a positive int, got {k}")
    epsilon, delta = _check_positive(epsilon, "epsilon"), check_delta(delta)
    kind = mechanism_kind(mechanism)
    return _scale_bounds(epsilon, delta, (1.0,) * k, (kind,) * k)
