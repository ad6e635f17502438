"""The conversion of zCDP to (epsilon, delta)-DP (Canonne, Kamath and Steinke 2020, Proposition 12).

:func:`zcdp_delta` and :func:`zcdp_max_rho`, the accountant's zCDP bound (:mod:`dpmo.accounting`, which
re-exports both, the latter with its arguments checked). Every order ``a > 1`` of the conversion gives a
valid bound, so a search that misses the best order loses tightness, never soundness; the log-delta is
convex in ``a`` and its best order is found as the root of its slope (:func:`_best_order`), also where it
lies far beyond a fixed search interval (small epsilon). Ground floor: imports only math and scipy.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq, minimize_scalar

__all__ = ["zcdp_delta", "zcdp_max_rho"]

#: A conservative margin: a float computation of delta is trusted to this relative error and no closer.
_MARGIN = 1e-9


def _log_delta_at(alpha: float, rho: float, epsilon: float) -> float:
    """``log`` of Canonne, Kamath and Steinke's delta at order ``alpha`` (valid for every ``alpha > 1``)."""
    return (alpha - 1.0) * (alpha * rho - epsilon) + alpha * math.log1p(-1.0 / alpha) - math.log(alpha - 1.0)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The smallest ``delta`` for which ``rho``-zCDP implies ``(epsilon, delta)``-DP by the conversion of
    Canonne, Kamath and Steinke (2020, Proposition 12): ``inf_{a > 1} exp((a - 1)(a rho - epsilon))
    (1 - 1/a)^a / (a - 1)``, capped at 1.

    Every order ``a`` gives a valid bound, so the numerical minimisation can only lose tightness, never
    soundness. O(1) (a bounded scalar minimisation).

    Examples
    --------
    >>> from dpmo.zcdp import zcdp_delta
    >>> zcdp_delta(0.024, 1.0) < 1e-6 < zcdp_delta(0.025, 1.0)
    True
    """
    rho, epsilon = float(rho), float(epsilon)
    if rho <= 0:
        return 0.0
    # the unconstrained optimum is near a = (epsilon + rho) / (2 rho) + 1
    guess = (epsilon + rho) / (2.0 * rho) + 1.0
    res = minimize_scalar(
        lambda a: _log_delta_at(a, rho, epsilon),
        bounds=(1.0 + 1e-9, max(guess * 4.0, 2.0)),
        method="bounded",
        options={"xatol": 1e-10},
    )
    best = min(float(res.fun), _log_delta_at(max(guess, 1.0 + 1e-9), rho, epsilon))
    best = min(best, _log_delta_at(_best_order(rho, epsilon), rho, epsilon))
    return min(1.0, math.exp(best) * (1.0 + _MARGIN))


def _best_order(rho: float, epsilon: float) -> float:
    """The order ``a > 1`` that minimises :func:`_log_delta_at` (``rho > 0``): the root of its derivative
    ``(2a - 1) rho - epsilon + log(1 - 1/a)``, which increases with ``a`` (the second derivative is ``2 rho +
    1 / (a (a - 1)) > 0``: the log-delta is convex in ``a``). For small ``epsilon`` the root is near ``1 /
    sqrt(2 rho)``, far above the guess ``(epsilon + rho) / (2 rho) + 1`` that :func:`zcdp_delta` searches
    around (at ``epsilon = 1e-12``, ``rho = 1e-26``: about ``10^13`` against 51). O(log) bisection."""

    def slope(a: float) -> float:
        return (2.0 * a - 1.0) * rho - epsilon + math.log1p(-1.0 / a)

    lo, hi = 1.0 + 1e-12, 2.0
    if slope(lo) >= 0:  # a large rho: the log-delta rises from the smallest order on
        return lo
    while slope(hi) < 0 and hi < 1e300:
        lo, hi = hi, hi * hi
    if slope(hi) < 0:
        return hi
    return float(brentq(slope, lo, hi, xtol=1e-12, rtol=1e-12))


def zcdp_max_rho(epsilon: float, delta: float) -> float:
    """The largest ``rho`` whose zCDP implies ``(epsilon, delta)``-DP by :func:`zcdp_delta`'s conversion.

    For an order ``a > 1`` the conversion allows ``rho <= (epsilon + (log(delta) - a log(1 - 1/a) +
    log(a - 1)) / (a - 1)) / a``; the result is the best order's value, shrunk by a relative 1e-9 and
    checked with :func:`zcdp_delta`. 0 when ``delta`` is 0. O(1). ``epsilon > 0`` and ``delta`` in ``[0, 1)``
    are the caller's to check (:func:`dpmo.accounting.zcdp_max_rho` does).

    Examples
    --------
    >>> from dpmo.zcdp import zcdp_max_rho, zcdp_delta
    >>> rho = zcdp_max_rho(1e-12, 1e-6)  # its best order lies near 1 / sqrt(2 rho), far above 1e7
    >>> rho > 0, zcdp_delta(rho, 1e-12) <= 1e-6
    (True, True)
    """
    epsilon, delta = float(epsilon), float(delta)
    if delta == 0:
        return 0.0
    log_d = math.log(delta)

    def rho_at(a: float) -> float:
        return (epsilon + (log_d - a * math.log1p(-1.0 / a) + math.log(a - 1.0)) / (a - 1.0)) / a

    res = minimize_scalar(
        lambda a: -rho_at(a), bounds=(1.0 + 1e-9, 1e7), method="bounded", options={"xatol": 1e-10}
    )
    best = float(res.x)
    # the best order can lie far above 1e7 (small epsilon: about 1 / sqrt(2 rho)); search log(a - 1) too
    far = minimize_scalar(
        lambda x: -rho_at(1.0 + math.exp(x)), bounds=(math.log(1e7), 700.0), method="bounded"
    )
    if rho_at(1.0 + math.exp(float(far.x))) > rho_at(best):
        best = 1.0 + math.exp(float(far.x))
    rho = max(0.0, rho_at(best)) * (1.0 - _MARGIN)
    shrink = 1e-6
    while rho > 0 and zcdp_delta(rho, epsilon) > delta:  # never: a safety net for float rounding
        rho *= 1.0 - shrink
        shrink = min(2.0 * shrink, 0.5)  # geometric: a few dozen steps at most
    return rho
