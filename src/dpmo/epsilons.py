"""Exact epsilons: a float read as the decimal it prints as, and the float a mechanism runs at.

:class:`dpmo.Budget` records every epsilon as a :class:`fractions.Fraction` (:func:`exact_epsilon`: a float
as the decimal its ``repr`` writes, ``0.1`` as 1/10) and every float mechanism runs at
:func:`float_at_most` of the recorded value, never above it (``docs/privacy-accounting.md``, "Decimal
budgets"). :func:`exact_text` writes an exact value for messages, :func:`readable` one for people (its float,
and its decimal digits when the float is not exact).
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction

import numpy as np

__all__ = [
    "exact_epsilon",
    "float_at_most",
    "decimal_float_at_most",
    "exact_text",
    "readable",
    "decimal_digits",
]

_MAX_FLOAT = Fraction(np.finfo(np.float64).max)


def exact_epsilon(value, name: str = "epsilon", *, allow_zero: bool = False) -> Fraction:
    """``value`` as the exact Fraction a budget records, checked positive and finite.

    A float (or numpy float) is read as the decimal number it prints as (its shortest ``repr``, the
    number the user wrote): ``0.1`` gives ``Fraction(1, 10)``. An int or a Fraction is taken as it is.
    The value must be positive and at most the largest float (1.8e308), so that a mechanism can run at
    :func:`float_at_most` of it (a share below the smallest float runs the float samplers at 0, and the
    exact samplers at the share itself). O(1) (parsing a float's ``repr``).

    Examples
    --------
    >>> from dpmo.epsilons import exact_epsilon
    >>> exact_epsilon(0.1), exact_epsilon(0.3), exact_epsilon(2)
    (Fraction(1, 10), Fraction(3, 10), Fraction(2, 1))
    """
    kind = type(value)
    if kind is Fraction and 0 < value <= _MAX_FLOAT:  # the common case (internal shares), fast
        return value
    if kind is float or isinstance(value, np.floating):
        f = float(value)
        if f > 0 and f != math.inf:
            return _decimal(f)
        if allow_zero and f == 0:
            return Fraction(0)
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if isinstance(value, (numbers.Rational, np.integer)):
        frac = Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)
    else:  # another real type: through its float, as a float
        return exact_epsilon(float(value), name, allow_zero=allow_zero)
    if frac == 0 and allow_zero:
        return frac
    if not 0 < frac <= _MAX_FLOAT:
        raise ValueError(f"{name} must be a positive finite number at most 1.8e308, got {exact_text(frac)}")
    return frac


@functools.lru_cache(maxsize=4096)
def _decimal(f: float) -> Fraction:
    """``Fraction(repr(f))``, cached: parsing costs about 7 us and the same epsilons recur."""
    return Fraction(repr(f))


def float_at_most(value: Fraction) -> float:
    """The largest float not above the exact ``value`` (>= 0): the epsilon a float mechanism runs at.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.epsilons import float_at_most
    >>> float_at_most(Fraction(1, 10)), float_at_most(Fraction(1, 4)), float_at_most(Fraction(3, 10))
    (0.09999999999999999, 0.25, 0.3)
    """
    p, q = value.numerator, value.denominator
    f = p / q  # correctly rounded (int true division)
    a, b = f.as_integer_ratio()
    if a * q > p * b:  # f > value, compared exactly in integers
        f = math.nextafter(f, -math.inf)
    return f


def decimal_float_at_most(value: Fraction) -> float:
    """The largest float whose decimal (``repr``) is not above ``value``: spending it always fits.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.epsilons import decimal_float_at_most
    >>> decimal_float_at_most(Fraction(1, 10)), decimal_float_at_most(Fraction(1, 3))
    (0.1, 0.3333333333333333)
    """
    f = value.numerator / value.denominator  # the nearest float; no float above it qualifies
    while f > 0 and Fraction(repr(f)) > value:  # at most two steps down
        f = math.nextafter(f, -math.inf)
    return f


def exact_text(value: Fraction) -> str:
    """``value`` written exactly: a finite decimal when it has one (``0.05``), else ``p/q`` (``1/3``).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.epsilons import exact_text
    >>> exact_text(Fraction(1, 20)), exact_text(Fraction(1, 3)), exact_text(Fraction(3))
    ('0.05', '1/3', '3')
    """
    q = value.denominator
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return f"{value.numerator}/{value.denominator}"
    digits = max(twos, fives)
    if digits == 0:
        return str(value.numerator)
    scaled = value.numerator * 10**digits // value.denominator  # exact
    sign = "-" if scaled < 0 else ""
    text = str(abs(scaled)).rjust(digits + 1, "0")
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


def decimal_digits(value: Fraction, significant: int = 25) -> str:
    """The decimal expansion of ``value`` (>= 0): exact when it ends within ``significant`` significant
    digits, else those digits followed by ``...`` (truncated, never rounded up).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.epsilons import decimal_digits
    >>> decimal_digits(Fraction(1, 8)), decimal_digits(Fraction(1, 3), 5), decimal_digits(Fraction(0))
    ('0.125', '0.33333...', '0')
    """
    p, q = value.numerator, value.denominator
    if p == 0:
        return "0"
    whole = p // q
    if whole:
        places = max(significant - len(str(whole)), 0)
    else:  # the zeros after the point do not count as significant
        zeros, r = 0, p * 10
        while r < q:
            r *= 10
            zeros += 1
        places = zeros + significant
    scaled, rest = divmod(p * 10**places, q)
    text = str(scaled).rjust(places + 1, "0")
    text = f"{text[:-places]}.{text[-places:]}" if places else text
    if rest:
        return text + "..."
    return text.rstrip("0").rstrip(".") if places else text


def readable(value: Fraction) -> str:
    """An exact epsilon or delta for people: its float when that prints as exactly ``value`` (``0.1``), else
    the float and the decimal digits of ``value`` (``1/3``: ``0.3333333333333333 (exactly 0.33333...)``
    with 25 significant digits).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.epsilons import readable
    >>> readable(Fraction(1, 10)), readable(Fraction(1, 4))
    ('0.1', '0.25')
    >>> readable(Fraction(3649526702607119, 2**56))
    '0.05064735717773437 (exactly 0.05064735717773437284616733...)'
    """
    if value == 0:
        return "0"
    try:
        f = float(value)
    except OverflowError:  # beyond the float range (never an epsilon a budget accepts)
        return decimal_digits(value)
    if 0 < f < math.inf and _decimal(f) == value:
        return repr(f)
    return f"{f!r} (exactly {decimal_digits(value)})"
