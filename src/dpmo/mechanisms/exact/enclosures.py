"""Proven enclosures of ``x = epsilon (top - u) / (2 Delta)`` and of ``exp(-x) 2^L``, in float and decimal.

Every input float is the dyadic rational it denotes, so ``x`` is an exact rational (:func:`exact_x`). The
coins of the exact samplers compare a uniform with ``a = exp(-x) 2^L`` through two enclosures:

1. :func:`float_x` and :func:`float_enclosure`, float64 bounds for all candidates at once. IEEE 754 rounds
   ``+ - * /`` correctly, so the float value of ``x`` is within a relative ``2^-50`` (plus ``2^-1072``) of
   ``x``; ``exp`` is trusted to a relative ``2^-40`` (any libm is within a few ulps, ~``2^-52``; the margin
   also covers the few roundings of the products). The enclosure is ``[a_lo, a_hi]`` with
   ``a_hi - a_lo <= a (2^-39 + 3 x 2^-47) + 2^-1059``, hence at most ``2^-38.6`` for every ``a <= 1``
   (with ``L <= 32``); a coin, compared on a grid of ``2^-53``, is undecided by it with probability at
   most ``2^-38.5``.
2. :func:`decimal_enclosure`, any number of bits with :mod:`decimal`, whose ``exp`` is correctly rounded.

Both are fixed work for a given number of candidates: no branch on the values (``exp`` is taken only of
arguments in ``[-700, 0]``, never of ones whose result would be subnormal, slower on some processors).
"""

from __future__ import annotations

import decimal
import functools
from fractions import Fraction

import numpy as np

__all__ = [
    "REL_X",
    "ABS_X",
    "REL_EXP",
    "ABS_EXP",
    "LOG2E_LOW",
    "frexp_value",
    "float_x",
    "float_enclosure",
    "exact_x",
    "decimal_enclosure",
]

REL_X = 2.0**-48  # relative margin on x (the float error is below 2^-50)
ABS_X = 2.0**-1070  # absolute margin on x (subnormal roundings)
REL_EXP = 2.0**-40  # relative margin on libm's exp and on the roundings of the products around it
ABS_EXP = 2.0**-1060  # absolute margin on exp (subnormal results)
LOG2E_LOW = 1.4426950408889634 * (1.0 - 2.0**-40)  # below 1 / ln 2 by a wide margin
_X_CLAMP = 700.0  # exp(-700) ~ 1e-304 is normal: exp is never asked for a subnormal or a zero


def frexp_value(value) -> tuple[float, int]:
    """``(m, e)``: ``value = M 2^e`` with ``M`` in [0.5, 1) and ``m`` the float nearest to ``M``.

    One rounding (none for a float); works for a :class:`fractions.Fraction` of any size.

    Examples
    --------
    >>> from fractions import Fraction
    >>> frexp_value(6.0), frexp_value(Fraction(1, 3))
    ((0.75, 3), (0.6666666666666666, -1))
    """
    if isinstance(value, float):
        m, e = np.frexp(value)
        return float(m), int(e)
    v = Fraction(value)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    m = v / Fraction(2) ** e
    if m >= 1:
        m, e = m / 2, e + 1
    elif m < Fraction(1, 2):
        m, e = m * 2, e - 1
    return float(m), e


@functools.lru_cache(maxsize=1024)
def ordinary_ratio(epsilon, sensitivity) -> float | None:
    """``epsilon / (2 sensitivity)`` correctly rounded when it is in ``[2^-1000, 2^1000]``, else None."""
    ratio = Fraction(epsilon) / (2 * Fraction(sensitivity))
    if abs(ratio.numerator.bit_length() - ratio.denominator.bit_length()) < 1000:
        return float(ratio)
    return None


def float_x(scores: np.ndarray, top: float, epsilon, sensitivity: float) -> np.ndarray:
    """Float approximation of ``x = epsilon (top - u) / (2 sensitivity)`` (inf when ``x >= 2^24``, or more).

    ``|x_float - x| <= 2^-50 x + 2^-1072`` whenever ``x_float`` is finite, and ``x_float = inf`` only when
    ``x >= 2^24``. Two ways, chosen from the public ``c = epsilon / (2 sensitivity)`` alone:

    * ``c`` in ``[2^-1000, 2^1000]`` (every ordinary budget): ``(top - u) * c`` in float64, three roundings
      (``c``, the difference, the product) and at most an absolute 2^-1075 of underflow; a difference that
      overflows gives inf, and then ``x >= 2^1024 c >= 2^24``;
    * otherwise, from mantissas and exponents so that no intermediate overflows or underflows: ``g = top - u``
      (one rounding), or, for the entries where that difference overflows, ``top / 2 - u / 2`` (halving a
      float >= 2^-1021 is exact, and a smaller one is negligible next to an overflowing difference) with one
      more power of two; the mantissa of ``epsilon`` (one rounding when it is a fraction, see
      :func:`frexp_value`), the mantissa ratio, the product of the mantissas (one rounding each) and an
      exact power-of-two scaling (Python int exponents: epsilon may be a tiny fraction), which may round
      only into the subnormal range (absolute error <= 2^-1075) or overflow (then ``x > 2^1023``). At most
      five roundings of relative 2^-53 each.

    Both are the same work whatever the scores (both differences are formed for every entry in the second).
    O(n), one array of n floats allocated in the first way.

    Examples
    --------
    >>> import numpy as np
    >>> float_x(np.array([3.0, 1.0, -1e308]), 3.0, 2.0, 1.0).tolist()
    [0.0, 2.0, 1e+308]
    """
    c = ordinary_ratio(epsilon, sensitivity)
    if c is not None:
        with np.errstate(over="ignore"):  # an overflowing difference is inf, as stated above
            x = np.subtract(top, scores)
            x *= c
        return x
    em, ee = frexp_value(epsilon)
    dm, de = frexp_value(sensitivity)
    cm = em / dm
    with np.errstate(all="ignore"):
        g = top - scores
        half = top * 0.5 - scores * 0.5
        big = ~np.isfinite(g)
        gm, ge = np.frexp(np.where(big, half, g))
        return np.ldexp(gm * cm, ge + big + (ee - de - 1))


def float_enclosure(x_float: np.ndarray, levels: np.ndarray | None):
    """Proven float bounds ``a_lo <= exp(-x) 2^L <= a_hi`` from the float value of ``x``. O(n), one ``exp``.

    With ``x_c = min(x_float, 700)``, ``e = exp(-x_c)`` and ``s = x_c 2^-47`` (which bounds
    ``|x - x_float|`` by the error of :func:`float_x`, for ``x_float <= 700``): ``exp(-x)`` lies in
    ``[e (1 - s), e (1 + 2 s)]`` (``e^-d >= 1 - d``, ``e^d <= 1 + 2 d`` for ``d <= 1``), widened by the
    relative margin ``REL_EXP`` for libm and the roundings and by ``ABS_EXP``. Where ``x_float > 700`` the
    upper bound still holds (``x >= 700 (1 - 2^-47)``) and the lower bound is 0. ``exp`` is never taken of
    an argument below -700 (no subnormal result). ``levels`` (default 0) must satisfy ``L <= 64``; then
    ``a_hi - a_lo <= a (2^-39 + 3 x 2^-47) + 2^-1059``, at most ``2^-38.6`` for every ``a <= 1`` with
    ``L <= 32``. ``x_float`` is overwritten (it becomes ``a_lo``): one more array of n floats is allocated.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> lo, hi = float_enclosure(np.array([0.0, 1.0, 800.0]), None)
    >>> bool(lo[1] <= math.exp(-1.0) <= hi[1]), bool(lo[0] <= 1.0 <= hi[0]), float(lo[2])
    (True, True, 0.0)
    """
    far = x_float > _X_CLAMP
    e = np.minimum(x_float, _X_CLAMP, out=x_float)
    a_hi = e * 2.0**-46
    a_hi += 1.0  # 1 + 2 s
    np.negative(e, out=e)
    np.exp(e, out=e)
    a_hi *= e  # e (1 + 2 s)
    e -= a_hi  # -2 e s
    e *= 1.5  # -3 e s
    a_lo = np.add(e, a_hi, out=e)  # e (1 - s); the roundings (a few 2^-53 e) are inside REL_EXP
    a_hi *= 1.0 + REL_EXP
    a_hi += ABS_EXP
    a_lo *= 1.0 - REL_EXP
    a_lo -= ABS_EXP
    np.maximum(a_lo, 0.0, out=a_lo)
    np.copyto(a_lo, 0.0, where=far)
    if levels is not None:
        np.ldexp(a_lo, levels, out=a_lo)
        np.ldexp(a_hi, levels, out=a_hi)
    return a_lo, a_hi


def exact_x(score: float, top: float, epsilon, sensitivity: float) -> Fraction:
    """``x = epsilon (top - u) / (2 sensitivity)`` as an exact rational (floats are dyadic rationals).

    Examples
    --------
    >>> exact_x(1.0, 3.0, 0.5, 1.0)
    Fraction(1, 2)
    """
    return (Fraction(top) - Fraction(score)) * Fraction(epsilon) / (2 * Fraction(sensitivity))


def decimal_enclosure(x: Fraction, L: int, bits: int) -> tuple[Fraction, Fraction]:
    """Bounds ``lo <= exp(-x) 2^L <= hi`` with ``hi - lo <= 2^-(bits - 8)``, in decimal arithmetic.

    ``x >= 0`` rational, ``0 <= L <= x / ln 2``. O(bits^2) or so per call (decimal ``exp`` at ``bits``
    bits of precision).

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> lo, hi = decimal_enclosure(Fraction(1), 0, 100)
    >>> lo <= Fraction(math.exp(-1)) * (1 + Fraction(1, 2**50)) and hi - lo < Fraction(1, 2**90)
    True
    """
    if x >= Fraction(7, 10) * (bits + 2 + L):
        # exp(-x) = 2^(-x / ln 2) < 2^(-x / 0.7) <= 2^-(bits + 2 + L)
        return Fraction(0), Fraction(1, 1 << (bits + 2))
    digits = int(bits * 0.30103) + 10
    kw = {"prec": digits, "Emin": -(10**9), "Emax": 10**9}
    down = decimal.Context(rounding=decimal.ROUND_FLOOR, **kw)
    up = decimal.Context(rounding=decimal.ROUND_CEILING, **kw)
    num, den = decimal.Decimal(x.numerator), decimal.Decimal(x.denominator)
    x_lo = down.divide(num, den)
    x_hi = up.divide(num, den)
    ctx = decimal.Context(**kw)  # exp is correctly rounded (half-even) whatever the rounding mode
    # ctx.minus, not unary minus: ``-d`` rounds to the thread's context (28 digits by default), which put
    # the bounds off by about 1e-28 relative (both on one side of exp(-x) beyond 93 bits)
    e_lo = ctx.next_minus(ctx.next_minus(ctx.exp(ctx.minus(x_hi))))
    e_hi = ctx.next_plus(ctx.next_plus(ctx.exp(ctx.minus(x_lo))))
    scale = Fraction(1 << L)
    return max(Fraction(e_lo), Fraction(0)) * scale, Fraction(e_hi) * scale
