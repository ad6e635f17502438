"""Know before you spend: what a private selection can deliver, from public quantities only.

:func:`lead_needed` answers "by how much must the best candidate lead the others for my picks to be
signal rather than noise?", and :func:`pick_probability` "how likely is a candidate with this lead to be
picked?", from ``n``, ``k``, epsilon, the sensitivity and the mechanism alone. Neither reads any data nor
spends any budget: they can be asked before a release (``dpmo select --explain``, ``dpmo topk --explain``).

**The model.** One candidate, the *best*, leads each of the ``n - 1`` others by ``lead`` (in the scores'
units; ``lead / sensitivity`` sensitivity units), and the others are tied. The selection makes ``k``
picks without replacement, each a round of the mechanism with the per-pick epsilon (``epsilon / k`` by
basic sequential composition, as :func:`dpmo.select` spends it). The figure is the probability that the
best candidate is among the ``k`` picks:

    P_k = 1 - prod_{i=0}^{k-1} (1 - P_1(n - i)),

because a round that misses the best removes one of the tied others, leaving the best ahead of ``n - i - 1``
tied candidates. With ``a = epsilon_pick * lead / (2 sensitivity)`` (the gap of the log-weights; every
mechanism of :func:`dpmo.select` has noise scale ``2 sensitivity / epsilon_pick``) and ``m = n - 1``:

* exponential mechanism (and report-noisy-max with Gumbel noise, the same law):
  ``P_1 = 1 / (1 + m e^-a)`` (closed form); so ``lead_needed = (2 sensitivity / epsilon_pick)
  ln(q m / (1 - q))`` for ``k = 1``;
* permute-and-flip: with ``p = e^-a``, ``P_1 = int_0^1 (1 - t p)^m dt = (1 - (1 - p)^n) / (n p)``
  (McKenna and Sheldon 2020's formula for the best candidate, whose coin always comes up heads; closed
  form);
* report-noisy-max with Laplace noise: ``P_1 = P(Z_0 + a > max_j Z_j)`` for standard Laplace ``Z``,
  split where the Laplace density changes form: ``e^-a / (2^n n) + e^a (1 - (1 - w)^n) / n + J / 2``
  with ``w = e^-a / 2`` and ``J = int_{2w}^1 (1 - w / v)^m dv``, a smooth integral in ``[0, 1]``
  computed numerically (``scipy.integrate.quad``, absolute error below 1e-12).

The lead needed for probability ``q`` is the root of ``P_k(lead) = q`` (closed form for the exponential
mechanism with ``k = 1``, else bisection to 1e-12 relative); 0 when ``q <= k / n``, the probability of a
pick among ``n`` tied candidates, which needs no lead at all.

**Why this model.** For ``k = 1`` it is the least favourable case for a given lead: raising any other
candidate's score can only lower the best one's probability (a larger weight in the exponential
mechanism's normalisation, a larger coin ``p_j`` in permute-and-flip's integrand, a larger noisy value to
beat in report-noisy-max), and with every other candidate exactly ``lead`` behind, they are as high as
the lead allows. For ``k > 1`` it is the least favourable case for the exponential mechanism too (its ``k``
rounds are the top ``k`` of one Gumbel-perturbed vector, and raising another score can only push the best
out of it); for permute-and-flip and report-noisy-max, ``tests/test_preview.py`` checks it on small
enumerated configurations. Real data are kinder when the others trail by more than the lead; the figures
are what a lead of that size guarantees.

**Reading a lead.** The scores of neighbouring inputs differ by at most ``sensitivity`` each, so a lead of
``L`` sensitivity units means that at least ``L / 2`` changes of the private data (records, edges)
separate the best candidate from being overtaken; a lead below 1 unit is within one change.

**Approximate DP.** ``delta > 0`` asks for the per-pick epsilon of approximate-DP accounting from
``dpmo.per_pick_epsilon(epsilon, k, delta=..., mechanism=...)`` (the accountant every entry point uses,
``docs/privacy-accounting.md``); ``epsilon_per_pick=`` gives the per-pick epsilon directly, from any
accountant.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from ._choices import MECHANISMS
from ._numbers import describe_real, real_as_float

__all__ = ["lead_needed", "pick_probability"]

_LN2 = math.log(2.0)
#: The most candidates: every count of the formulas (``n``, ``n - 1``, ``n - i``) is then an exact float.
_MAX_N = 2**53


def _to_float(value: Fraction) -> float:
    """``float(value)`` for a non-negative Fraction, ``inf`` beyond the float range (saturated)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _check_int(value, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f" and at most {high}"
        raise ValueError(f"{name} must be at least {low}{upper}, got {describe_real(value)}")
    return value


def _check_positive(value, name: str) -> float:
    out = real_as_float(value, name, "a positive finite number")
    if not math.isfinite(out) or out <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {describe_real(value)}")
    return out


def _check_mechanism(mechanism) -> str:
    if not isinstance(mechanism, str) or mechanism not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {list(MECHANISMS)}, got {mechanism!r}")
    return mechanism


def _per_pick_epsilon(
    epsilon, k: int, *, delta: float = 0.0, mechanism: str = "exponential", epsilon_per_pick=None
) -> Fraction:
    """The epsilon of each of ``k`` picks: ``epsilon / k`` (pure DP, basic composition), or the given
    ``epsilon_per_pick``, or, with ``delta > 0``, what :func:`dpmo.per_pick_epsilon` (approximate-DP
    accounting) gives. Exactly, as a Fraction: ``epsilon / k`` may be below the smallest float while the
    figures made of it (``epsilon_pick lead / sensitivity``) are not.

    Examples
    --------
    >>> _per_pick_epsilon(1.0, 4)
    Fraction(1, 4)
    >>> float(_per_pick_epsilon(None, 4, epsilon_per_pick=0.5))
    0.5
    """
    k = _check_int(k, "k", 1)
    mechanism = _check_mechanism(mechanism)
    d = real_as_float(delta, "delta", "a number in [0, 1)")
    if not 0.0 <= d < 1.0:
        raise ValueError(f"delta must be a number in [0, 1), got {describe_real(delta)}")
    if epsilon_per_pick is not None:
        if epsilon is not None:
            raise TypeError("give epsilon (the total of the k picks) or epsilon_per_pick, not both")
        return Fraction(_check_positive(epsilon_per_pick, "epsilon_per_pick"))
    total = _check_positive(epsilon, "epsilon")
    if d == 0.0:
        return Fraction(total) / k
    from .accounting import per_pick_epsilon  # numpy only; loaded when delta > 0 is asked for

    return Fraction(
        _check_positive(
            float(per_pick_epsilon(total, k, delta=d, mechanism=mechanism)), "the per-pick epsilon"
        )
    )


# ------------------------------------------------------------------------------ one pick among n
def _one_pick(a: float, n: int, mechanism: str) -> float:
    """``P_1``: the probability that the best of ``n`` candidates, ahead of the ``n - 1`` tied others by a
    log-weight gap ``a >= 0``, is picked (module notes)."""
    if n == 1:
        return 1.0
    m = n - 1
    if math.isinf(a):
        return 1.0
    if mechanism in ("exponential", "gumbel"):
        return 1.0 / (1.0 + math.exp(math.log(m) - a))
    if mechanism == "permute_and_flip":
        p = math.exp(-a)
        if p == 1.0:
            return 1.0 / n
        if p == 0.0:
            return 1.0
        return -math.expm1(n * math.log1p(-p)) / (n * p)
    return _one_pick_laplace(a, m)


def _one_pick_laplace(a: float, m: int) -> float:
    """``P(Z_0 + a > max_{j <= m} Z_j)`` for i.i.d. standard Laplace ``Z`` (module notes)."""
    if a == 0.0:
        return 1.0 / (m + 1)
    w = math.exp(-a) / 2.0
    if w == 0.0:  # a > 745: 1 - P < m (1 + a / 2) e^-a / 2 underflows
        return 1.0
    below = math.exp(-a - (m + 1) * _LN2 - math.log(m + 1))  # Z_0 < -a: every Z_j must be below too
    above = math.exp(a + math.log(-math.expm1((m + 1) * math.log1p(-w))) - math.log(m + 1))  # Z_0 >= 0
    return min(1.0, below + above + _laplace_middle(w, m) / 2.0)


def _laplace_middle(w: float, m: int) -> float:
    """``J = int_{2w}^1 (1 - w / v)^m dv``, as ``int e^s (1 - w e^-s)^m ds`` over ``s in [ln 2w, 0]``."""
    from scipy.integrate import quad

    lo = math.log(2.0 * w)

    def f(s: float) -> float:
        return math.exp(s + m * math.log1p(-w * math.exp(-s)))

    knee = math.log(m * w)  # where (1 - w / v)^m turns from ~0 to ~1
    points = [x for x in (knee - 2.0, knee, knee + 2.0) if lo < x < 0.0]
    value, _ = quad(f, lo, 0.0, points=points or None, epsabs=1e-13, epsrel=1e-12, limit=200)
    return min(1.0, max(0.0, value))


def _k_picks(a: float, n: int, k: int, mechanism: str) -> float:
    """``P_k = 1 - prod_i (1 - P_1(n - i))``: the best among the k picks (module notes), in ``[k / n, 1]``.

    The product in log space (``sum log1p(-P_1)``): a probability of the best far below the float epsilon
    (``n`` in the billions, ``a`` small) is not lost in ``1 - P_1``."""
    log_miss = 0.0
    for i in range(k):
        p1 = _one_pick(a, n - i, mechanism)
        if p1 >= 1.0:
            log_miss = -math.inf
            break
        log_miss += math.log1p(-p1)
    return min(1.0, max(k / n, -math.expm1(log_miss)))


# ------------------------------------------------------------------------------------ public API
def pick_probability(
    lead,
    n: int,
    epsilon=None,
    *,
    k: int = 1,
    mechanism: str = "exponential",
    sensitivity: float = 1.0,
    delta: float = 0.0,
    epsilon_per_pick=None,
) -> float:
    """The probability that a candidate leading the others by ``lead`` is among the ``k`` picks.

    Public quantities only: no data is read, no budget is spent. The model (module notes): the candidate
    leads each of the ``n - 1`` others by ``lead``, the others are tied (the least favourable case for
    that lead), and the ``k`` picks are rounds without replacement, each with the per-pick epsilon.

    Parameters
    ----------
    lead : float
        The candidate's lead over every other, in the scores' units, ``>= 0`` (``inf``: probability 1).
    n : int
        Number of candidates, ``1 <= n <= 2^53``.
    epsilon : float, optional
        Total budget of the ``k`` picks, as passed to :func:`dpmo.select` (each pick gets ``epsilon / k``).
    k : int, default 1
        Number of picks, ``1 <= k <= n``.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        The base mechanism of :func:`dpmo.select`.
    sensitivity : float, default 1.0
        The scores' global sensitivity: ``lead / sensitivity`` is the lead in sensitivity units (dampened
        scores, as the local approaches select on, have sensitivity 1).
    delta : float, default 0.0
        Approximate DP: each pick runs at ``dpmo.per_pick_epsilon(epsilon, k, delta=delta,
        mechanism=mechanism)``, as in every entry point.
    epsilon_per_pick : float, optional
        The epsilon of each pick, given directly (then ``epsilon`` must be None).

    Returns
    -------
    float
        ``P_k`` in ``[k / n, 1]``: ``k / n`` at lead 0 (no signal), 1 as the lead grows.

    Notes
    -----
    Exact closed forms for the exponential mechanism and permute-and-flip; report-noisy-max with Laplace
    noise by one numerical integral per round (absolute error below 1e-12). O(k) evaluations. The gap
    ``epsilon_pick lead / (2 sensitivity)`` is computed exactly (fractions) and rounded once, so subnormal
    or huge arguments give the figure of their ratio. Numbers beyond the float range (an int above
    1.8e308) are refused with a ValueError, strings and other non-numbers with a TypeError.

    Examples
    --------
    >>> import math
    >>> import dpmo
    >>> # exponential mechanism, one pick among 34 at epsilon 1: P = 1 / (1 + 33 e^(-lead / 2))
    >>> p = dpmo.pick_probability(7.0, 34, 1.0)
    >>> bool(abs(p - 1 / (1 + 33 * math.exp(-3.5))) < 1e-15)
    True
    >>> bool(abs(dpmo.pick_probability(0.0, 34, 1.0, k=3) - 3 / 34) < 1e-15)  # no lead: 3 of 34 tied
    True
    """
    x = real_as_float(lead, "lead", "a number >= 0")
    if math.isnan(x) or x < 0:
        raise ValueError(f"lead must be a number >= 0, got {describe_real(lead)}")
    n = _check_int(n, "n", 1, _MAX_N)
    k = _check_int(k, "k", 1, n)
    mechanism = _check_mechanism(mechanism)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    eps = _per_pick_epsilon(epsilon, k, delta=delta, mechanism=mechanism, epsilon_per_pick=epsilon_per_pick)
    # a = eps lead / (2 sensitivity) exactly, then rounded once (inf beyond the floats): no intermediate
    # product or quotient overflows to inf or underflows to 0
    a = math.inf if math.isinf(x) else _to_float(eps * Fraction(x) / (2 * Fraction(sensitivity)))
    return _k_picks(a, n, k, mechanism)


def lead_needed(
    n: int,
    epsilon=None,
    probability: float = 0.5,
    *,
    k: int = 1,
    mechanism: str = "exponential",
    sensitivity: float = 1.0,
    delta: float = 0.0,
    epsilon_per_pick=None,
) -> float:
    """The lead over the other candidates that the best one needs to be among the ``k`` picks with
    ``probability``.

    Public quantities only: no data is read, no budget is spent. The model (module notes): the best
    candidate leads each of the ``n - 1`` others by the returned lead, the others are tied (the least
    favourable case for that lead), and the ``k`` picks are rounds without replacement, each with the
    per-pick epsilon (``epsilon / k``). A lead of ``L`` sensitivity units means at least ``L / 2`` changes
    of the private data separate the best candidate from being overtaken: when no candidate of your data
    can lead by that much, the picks are mostly noise.

    Parameters
    ----------
    n : int
        Number of candidates, ``1 <= n <= 2^53``.
    epsilon : float, optional
        Total budget of the ``k`` picks, as passed to :func:`dpmo.select` (each pick gets ``epsilon / k``).
    probability : float, default 0.5
        The probability wanted, in ``(0, 1)``.
    k, mechanism, sensitivity, delta, epsilon_per_pick
        As in :func:`pick_probability`.

    Returns
    -------
    float
        The lead in the scores' units (``sensitivity`` times the lead in sensitivity units; with the
        default ``sensitivity=1`` the lead in sensitivity units). 0 when ``probability <= k / n``; inf
        when the lead is beyond the float range (a per-pick epsilon far below the sensitivity).

    Notes
    -----
    Exponential mechanism with ``k = 1``: ``(2 sensitivity / epsilon) ln(probability (n - 1) /
    (1 - probability))``, closed form. Otherwise the root of :func:`pick_probability` by bisection (about
    45 evaluations, each O(k)). The lead ``2 a sensitivity / epsilon_pick`` is computed exactly from the
    gap ``a`` (fractions) and rounded once.

    Examples
    --------
    >>> import math
    >>> import dpmo
    >>> # 34 candidates, epsilon 1, one pick by the exponential mechanism: a lead of 2 ln(33) for 1/2
    >>> bool(abs(dpmo.lead_needed(34, 1.0) - 2 * math.log(33)) < 1e-12)
    True
    >>> # 3 picks at epsilon 1/3 each: the probability at the lead returned is the one asked for
    >>> lead = dpmo.lead_needed(34, 1.0, 0.9, k=3, mechanism="permute_and_flip")
    >>> round(dpmo.pick_probability(lead, 34, 1.0, k=3, mechanism="permute_and_flip"), 9)
    0.9
    """
    n = _check_int(n, "n", 1, _MAX_N)
    k = _check_int(k, "k", 1, n)
    mechanism = _check_mechanism(mechanism)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    q = real_as_float(probability, "probability", "a number in (0, 1)")
    if not 0.0 < q < 1.0:
        raise ValueError(f"probability must be a number in (0, 1), got {describe_real(probability)}")
    eps = _per_pick_epsilon(epsilon, k, delta=delta, mechanism=mechanism, epsilon_per_pick=epsilon_per_pick)
    if q <= k / n:  # reached with no lead: k picks among n tied candidates
        return 0.0
    if mechanism in ("exponential", "gumbel") and k == 1:
        a = math.log(q) + math.log(n - 1) - math.log1p(-q)
    else:
        lo, hi = 0.0, 1.0
        while _k_picks(hi, n, k, mechanism) < q:
            lo, hi = hi, 2.0 * hi
        while hi - lo > 1e-12 * hi:
            mid = (lo + hi) / 2.0
            if _k_picks(mid, n, k, mechanism) < q:
                lo = mid
            else:
                hi = mid
        a = hi
    # 2 a sensitivity / eps exactly, then rounded once: inf only when the lead itself is beyond the floats
    return _to_float(2 * Fraction(a) * Fraction(sensitivity) / eps)
