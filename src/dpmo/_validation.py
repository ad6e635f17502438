"""Input validation shared by every public function (the scikit-learn ``check_*`` style).

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of the right
kind outside what is allowed, and the message names the argument and says what is allowed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from ._choices import EXACT_CAPABLE
from ._numbers import describe_real, real_as_float

__all__ = [
    "check_random_state",
    "check_epsilon",
    "check_sensitivity",
    "check_scores",
    "check_k",
    "check_choice",
    "check_exact",
    "check_t",
    "check_int",
    "check_real",
    "check_fraction",
    "check_t_block",
    "check_X",
    "check_bounds",
    "check_indices",
    "check_shares",
]

#: The narrowest declared range: the smallest normal float (a subnormal width loses the range units).
_MIN_WIDTH = float(np.finfo(np.float64).tiny)
#: The largest float64: a real number of larger magnitude has no float64.
_FLOAT_MAX = float(np.finfo(np.float64).max)


def check_random_state(rng: None | int | np.random.Generator) -> np.random.Generator:
    """Turn ``rng`` into a :class:`numpy.random.Generator` (Scientific Python SPEC 7).

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` draws fresh entropy from the operating system, an int seeds a new PCG64 generator (the
        same int gives the same stream), and a Generator is used as it is (and advanced).

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo import check_random_state
    >>> a, b = check_random_state(7), check_random_state(7)
    >>> bool(a.random() == b.random())  # the same seed, the same stream
    True
    >>> g = np.random.default_rng(1)
    >>> check_random_state(g) is g  # a Generator is used as it is
    True
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError("rng must be None, an int seed or a numpy.random.Generator, not a bool")
    if isinstance(rng, numbers.Integral):
        if int(rng) < 0:
            raise ValueError(f"rng must be a non-negative int seed, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}")


def check_int(value, name: str, minimum: int | None = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer (not a bool) in ``[minimum, maximum]``.

    The one check of an integer argument: ``minimum=1`` (the default) asks for a positive int,
    ``minimum=0`` for a non-negative one, ``None`` leaves that side open. Raises ``TypeError`` for a
    non-integer (a float, even integral, or a bool) and ``ValueError`` outside the range; both messages
    name the argument and the range.

    Examples
    --------
    >>> from dpmo._validation import check_int
    >>> check_int(3, "max_steps")
    3
    >>> check_int(0, "depth", minimum=0)
    0
    >>> check_int(0, "k")
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive int, got 0
    """
    # fast path (inner loops of the tree operations): a plain int in range; type() excludes bool
    if type(value) is int and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
        return value
    if minimum == 1 and maximum is None:
        allowed = "a positive int"
    elif minimum == 0 and maximum is None:
        allowed = "a non-negative int"
    elif minimum is None and maximum is None:
        allowed = "an int"
    elif maximum is None:
        allowed = f"an int >= {minimum}"
    elif minimum is None:
        allowed = f"an int <= {maximum}"
    else:
        allowed = f"an int in [{minimum}, {maximum}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def check_real(value, name: str) -> float:
    """Return ``value`` as a float after checking it is a real number (not a bool; NaN and inf pass).

    A finite number beyond the float64 range (an int or a Fraction above 1.8e308, whose ``float`` raises
    ``OverflowError``; a longdouble of 1e4000, whose ``float`` is inf) is refused with a ValueError naming
    ``name``: it has no float, and an infinite one would be refused as "not finite" though it is.

    Examples
    --------
    >>> from dpmo._validation import check_real
    >>> check_real(2, "low_degree")
    2.0
    >>> check_real(10**400, "epsilon")
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a real number within the float64 range (...), got about 1e400 (int)
    """
    if type(value) is float:  # fast path (every call of select): the same float, no ABC check
        return value
    return real_as_float(value, name)


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a positive finite number."""
    value = check_real(epsilon, name)
    if not math.isfinite(value) or value <= 0:  # a Python float: math's test, as numpy's
        raise ValueError(f"{name} must be a positive finite number, got {describe_real(epsilon)}")
    return value


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float after checking it is a positive finite number.

    A sensitivity of 0 is refused: a utility that cannot change needs no private mechanism, and dividing by
    it would silently make the selection deterministic.
    """
    if type(sensitivity) is float and 0.0 < sensitivity < math.inf:  # the common case: the same float
        return sensitivity
    value = check_real(sensitivity, name)
    if not math.isfinite(value) or value <= 0:  # a Python float: math's test, as numpy's
        raise ValueError(f"{name} must be a positive finite number, got {describe_real(sensitivity)}")
    return value


def as_real_array(value, name: str, what: str) -> np.ndarray:
    """``np.asarray(value)`` after checking it holds real numbers (bools allowed), else a TypeError saying
    ``{name} must be {what}`` (``what``: the shape wanted, e.g. "a 1-D array of real numbers"). The shape
    itself is the caller's to check."""
    if type(value) is np.ndarray and value.dtype == np.float64:  # fast path: asarray would return it
        return value
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds of errors here
        raise TypeError(f"{name} must be {what}") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be {what}, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real, got complex values")
    return arr


def check_scores(scores, name: str = "scores") -> np.ndarray:
    """Return ``scores`` as a 1-D float64 array after checking it is non-empty and finite (as float64: a
    longdouble of 1e4000 is refused as beyond the float64 range)."""
    arr = as_real_array(scores, name, "a 1-D array of real numbers")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    given = arr
    if arr.dtype != np.float64:
        with np.errstate(over="ignore"):  # a longdouble beyond the float64 range: inf, refused below
            arr = arr.astype(np.float64)
    # all finite <=> min > -inf and max < inf (NaN fails both): two reductions, no array of n booleans
    if not (np.minimum.reduce(arr) > -np.inf and np.maximum.reduce(arr) < np.inf):
        if given.dtype != np.float64 and np.all(np.isfinite(given)):
            raise ValueError(
                f"{name} must lie within the float64 range (magnitude at most {_FLOAT_MAX:.4g}): some are "
                f"finite as {given.dtype} but beyond it"
            )
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def check_k(k, n: int, name: str = "k") -> int:
    """Return ``k`` as an int after checking ``1 <= k <= n``."""
    if type(k) is int and 1 <= k <= n:  # fast path: a plain int in range (type() excludes bool)
        return k
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(k).__name__}")
    k = int(k)
    if k < 1 or k > n:
        raise ValueError(f"{name} must be between 1 and the number of candidates ({n}), got {k}")
    return k


def check_choice(value, allowed, name: str) -> str:
    """Return ``value`` after checking it is one of the strings in ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    return value


def check_fraction(value, name: str) -> float:
    """Return ``value`` as a float after checking it is a real number strictly between 0 and 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {type(value).__name__}")
    share = float(value)
    if not 0.0 < share < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return share


def check_t(t, name: str = "t") -> int:
    """Return the distance ``t`` of a local sensitivity function as an int after checking ``t >= 0``."""
    return check_int(t, name, minimum=0)


def check_t_block(t) -> tuple[int, int]:
    """``t`` as ``(t0, B)``: an int gives ``(t, 1)``; an integer array of shape (B, 1) must hold the
    consecutive distances ``t0, t0 + 1, ..., t0 + B - 1`` with ``t0 >= 0``."""
    if not isinstance(t, np.ndarray):
        return check_t(t), 1
    if t.ndim == 0:
        return check_t(t[()]), 1
    if t.dtype == np.bool_ or not np.issubdtype(t.dtype, np.integer):
        raise TypeError(
            f"t must be a non-negative int or an integer array of shape (B, 1), got dtype {t.dtype}"
        )
    if t.ndim != 2 or t.shape[1] != 1 or t.shape[0] == 0:
        raise ValueError(
            f"an array t must have shape (B, 1) with B >= 1 (consecutive distances), got {t.shape}"
        )
    ts = t[:, 0].astype(np.int64)
    if ts[0] < 0:
        raise ValueError(f"t must be non-negative, got {int(ts[0])}")
    if ts.size > 1 and not np.all(np.diff(ts) == 1):
        raise ValueError("an array t must hold consecutive distances t0, t0 + 1, ..., t0 + B - 1")
    return int(ts[0]), int(ts.size)


def check_X(X, name: str = "X") -> np.ndarray:
    """Return the estimator input ``X`` as a 2-D float64 array after checking it holds finite numbers."""
    X = np.asarray(X)
    if X.ndim != 2:
        # the number of rows is private: only the number of dimensions is said
        raise ValueError(f"{name} must be 2-D (rows x features), got a {X.ndim}-D array")
    if X.dtype == object or not np.issubdtype(X.dtype, np.number):
        raise TypeError(f"{name} must hold numbers, got dtype {X.dtype}")
    X = np.asarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return X


def check_exact(exact, mechanism: str | None = None) -> bool:
    """Return ``exact`` after checking it is a bool and, if True, that ``mechanism`` has an exact sampler."""
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be a bool, got {type(exact).__name__}")
    if exact and mechanism is not None and mechanism not in EXACT_CAPABLE:
        raise ValueError(
            f"mechanism={mechanism!r} has no exact sampler (exact=True, the default): pass exact=False for "
            f"the floating-point sampler, or use one of {list(EXACT_CAPABLE)}"
        )
    return bool(exact)


def check_bounds(bounds, name: str = "bounds") -> tuple[float, float] | None:
    """``bounds`` as a tuple ``(low, high)`` of finite floats with ``low < high`` and a width ``high - low``
    that is a finite normal float (None stays None): the range units ``(v - low) / (high - low)`` of
    :mod:`dpmo.chebyshev` and :mod:`dpmo.greedy_hypervolume` are then finite. O(1)."""
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes, Mapping)):
        raise TypeError(f"{name} must be a pair (low, high) of finite numbers, got {bounds!r}")
    try:
        pair = tuple(bounds)
    except TypeError:
        raise TypeError(f"{name} must be a pair (low, high) of finite numbers, got {bounds!r}") from None
    if len(pair) != 2 or not all(
        isinstance(b, (numbers.Real, np.integer, np.floating)) and not isinstance(b, (bool, np.bool_))
        for b in pair
    ):
        raise TypeError(f"{name} must be a pair (low, high) of finite numbers, got {bounds!r}")
    low, high = float(pair[0]), float(pair[1])
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"{name} must be finite with low < high, got {bounds!r}")
    with np.errstate(over="ignore"):
        width = float(np.float64(high) - np.float64(low))
    if not np.isfinite(width) or width < _MIN_WIDTH:
        raise ValueError(
            f"{name}: the width high - low must be a finite number of at least {_MIN_WIDTH:.3g}, "
            f"got {bounds!r}"
        )
    return (low, high)


def check_indices(idx, size: int, name: str = "idx", *, negative: bool = False) -> np.ndarray:
    """``idx`` as a 1-D ``intp`` array of indices into ``size`` candidates (``negative``: from the end too).
    Integers only: a boolean mask or floats are refused (a TypeError), not read as indices. O(len(idx))."""
    arr = np.asarray(idx)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be a 1-D array of integer candidate indices, got dtype {arr.dtype}")
    arr = arr.astype(np.intp, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of candidate indices")
    if arr.size and (arr.min() < (-size if negative else 0) or arr.max() >= size):
        raise ValueError(f"{name} must index the {size} candidates")
    return arr


def check_shares(shares, k: int) -> np.ndarray:
    """``k`` positive shares summing to 1 (within 1e-9; returned normalised), or ``1 / k`` each for None."""
    if shares is None:
        return np.full(k, 1.0 / k)
    if isinstance(shares, (numbers.Number, str, bytes)):
        raise TypeError("shares must be a sequence of k positive numbers summing to 1")
    try:
        arr = np.asarray(shares, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"shares must be a sequence of k positive numbers summing to 1, got {shares!r}"
        ) from None
    if arr.shape != (k,) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"shares must be {k} positive numbers (one per round), got {shares!r}")
    if abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError(f"shares must sum to 1, got {arr.sum()!r}")
    return arr / arr.sum()
