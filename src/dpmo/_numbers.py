"""Real numbers beyond the floats, for the checks of arguments: :func:`describe_real` and :func:`as_float`.

numpy-free (``dpmo.preview`` imports it and no numpy); :mod:`dpmo._validation` builds on it.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["describe_real", "as_float"]


def describe_real(value) -> str:
    """``repr(value)`` for an error message, or its order of magnitude when that is long (an int of 400
    digits, a Fraction of two). O(digits).

    Examples
    --------
    >>> from dpmo._numbers import describe_real
    >>> describe_real(2.5), describe_real(-(10**400))
    ('2.5', 'about -1e400 (int)')
    """
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python writes
        text = ""
    if 0 < len(text) <= 40:
        return text
    kind = type(value).__name__
    if isinstance(value, numbers.Rational) and value != 0:
        size = math.log10(abs(value.numerator)) - math.log10(value.denominator)
        return f"about {'-' if value < 0 else ''}1e{math.floor(size)} ({kind})"
    return f"a long {kind}"


def as_float(value) -> float | None:
    """``float(value)`` for a real number, or None when it has no float: beyond the float range (an int or a
    Fraction above 1.8e308, whose ``float`` raises ``OverflowError``; a finite longdouble of 1e4000, whose
    ``float`` is inf). NaN and inf themselves pass. O(1) (O(digits) for a long int).

    Examples
    --------
    >>> from dpmo._numbers import as_float
    >>> as_float(3), as_float(10**400), as_float(float("inf"))
    (3.0, None, inf)
    """
    try:
        out = float(value)
    except OverflowError:
        return None
    return None if math.isinf(out) and value != out else out
