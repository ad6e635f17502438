"""Real numbers beyond the floats, for the checks of arguments: :func:`describe_real`, :func:`as_float` and
:func:`real_as_float`.

numpy-free (``dpmo.preview`` imports it and no numpy); :mod:`dpmo._validation` builds on it.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["describe_real", "as_float", "real_as_float"]


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


#: The largest float: a real number of larger magnitude (an int, a Fraction) has no float.
FLOAT_MAX = 1.7976931348623157e308


def real_as_float(value, name: str, allowed: str = "a real number") -> float:
    """``value`` as a float: a TypeError saying ``{name} must be {allowed}`` unless it is a real number (not a
    bool: numpy's ``bool_`` is no ``numbers.Real`` either), a ValueError when it has no float
    (:func:`as_float`). NaN and inf pass. O(1).

    Examples
    --------
    >>> from dpmo._numbers import real_as_float
    >>> real_as_float(3, "k")
    3.0
    >>> real_as_float(10**400, "epsilon")
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a real number within the float64 range (...), got about 1e400 (int)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__}")
    out = as_float(value)
    if out is None:
        raise ValueError(
            f"{name} must be {allowed} within the float64 range (magnitude at most {FLOAT_MAX:.4g}), "
            f"got {describe_real(value)}"
        )
    return out
