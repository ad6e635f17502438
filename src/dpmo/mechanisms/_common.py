"""Helpers shared by the selection mechanisms."""

from __future__ import annotations

import math

import numpy as np

#: Largest ``|log-weight|`` (``epsilon * (max u - u_r) / (2 Delta u)``) a candidate that may still be
#: picked in a later round may have for the one-shot float samplers to be used. Beyond it, standard noise
#: added to the log-weight would lose more than 20 of its 53 bits (or vanish altogether), so the samplers
#: recompute the log-weights relative to the best remaining candidate in every round instead.
ONE_SHOT_LIMIT = 2.0**32
#: The smallest normal float64: below it ``epsilon / (2 sensitivity)`` is scaled through mantissas and
#: exponents (:func:`scaled_scores`), and :func:`dpmo.mechanisms.probabilities_by_row` falls back to it.
TINY = float(np.finfo(np.float64).tiny)


def scaled_scores(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """``epsilon * (u - max u) / (2 * sensitivity)``: the log-weights of the exponential mechanism.

    Subtracting the maximum first keeps ties exact and every value <= 0, however large the scores or
    epsilon (no ``exp`` is ever taken of a large number). Every best candidate gets exactly 0 and no
    value is ever NaN, for every finite score and every epsilon, sensitivity in (0, 1.8e308]:

    * in the ordinary case (``epsilon / (2 sensitivity)`` a normal float and ``max u - min u`` finite)
      it is ``(u - max u) * (epsilon / (2 sensitivity))`` in float64, as it always was;
    * otherwise the product is formed from mantissas and exponents (``frexp``/``ldexp``), so that
      ``epsilon / (2 sensitivity)`` may overflow or underflow and ``u - max u`` may exceed the float
      range without an inf times 0: a value below ``-1.8e308`` becomes ``-inf`` (its weight underflows
      to 0, which is its float value), and a tie stays a tie. The result is the correctly rounded value
      up to two extra roundings, monotone in ``u``.
    """
    top = float(scores.max())
    # Python floats: inf on overflow, never a warning or an exception (sensitivity > 0 is checked)
    c = float(epsilon) / (2.0 * float(sensitivity))
    spread = top - float(scores.min())  # = -(u - max u).min(), the same float
    if math.isfinite(c) and c >= TINY and math.isfinite(spread):
        g = scores - top  # no overflow: every |u - max u| <= spread
        if spread * c < math.inf:  # every |g| * c <= spread * c (rounding is monotone): no overflow either
            g *= c  # in place: the same floats as g * c, one temporary array less
            return g
        with np.errstate(over="ignore"):  # far candidates' log-weights may become -inf (no branch on it)
            g *= c
        return g
    return _scaled_frexp(scores, top, epsilon, sensitivity)


def _scaled_frexp(scores: np.ndarray, top: float, epsilon: float, sensitivity: float) -> np.ndarray:
    em, ee = np.frexp(epsilon)
    dm, de = np.frexp(sensitivity)
    cm = em / dm  # in (0.5, 2): no overflow; c = cm * 2**(ee - de - 1)
    with np.errstate(all="ignore"):
        g = scores - top
        shift = 0
        if not np.isfinite(g).all():
            # halves of large floats are exact; the difference of halves cannot overflow
            g = scores * 0.5 - top * 0.5
            shift = 1
        gm, ge = np.frexp(g)
        z = np.ldexp(gm * cm, ge + (int(ee) - int(de) - 1 + shift))
    return z


def needs_rounds(scores: np.ndarray, epsilon: float, sensitivity: float, k: int) -> bool:
    """True when a one-shot float sampler could lose its noise: recompute per round (see ONE_SHOT_LIMIT).

    The candidates that can win one of the k rounds are the k best and those close to them, so the
    one-shot form is safe when the k-th best score's log-weight is at least ``-ONE_SHOT_LIMIT``. O(1) for
    k = 1, otherwise O(n)
    (O(n) more, a partition, only when the spread of all scores is large).
    """
    if k == 1:
        return False  # the best candidate has log-weight 0: the only round is always safe (O(1))
    with np.errstate(all="ignore"):
        c = epsilon / (2.0 * sensitivity)
        spread = (scores.max() - scores.min()) * c
    if np.isfinite(spread) and spread <= ONE_SHOT_LIMIT:
        return False
    kth = -np.partition(-scores, k - 1)[k - 1]
    z = scaled_scores(np.array([scores.max(), kth]), epsilon, sensitivity)[1]
    return not (z >= -ONE_SHOT_LIMIT)


def sample_rounds(scores, epsilon, sensitivity, k, noise) -> np.ndarray:
    """k rounds of argmax of (log-weights relative to the best remaining) + noise. O(k n)."""
    remaining = np.arange(scores.size)
    out = np.empty(k, dtype=np.intp)
    for i in range(k):
        sub = scores[remaining]
        z = scaled_scores(sub, epsilon, sensitivity) + noise(sub.size)
        j = int(np.argmax(z))
        out[i] = remaining[j]
        remaining = np.delete(remaining, j)
    return out


def top_k_of(z: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest entries of ``z``, largest first. O(n + k log k)."""
    if k == 1:
        return np.array([int(z.argmax())], dtype=np.intp)
    if k < z.size:
        part = np.argpartition(-z, k - 1)[:k]
    else:
        part = np.arange(z.size)
    return part[np.argsort(-z[part], kind="stable")].astype(np.intp)


def log_sum_exp(a: np.ndarray, axis: int | None = None):
    """``log(sum(exp(a)))`` along ``axis`` (all of ``a`` when None), for the exact audits' distributions.

    The algorithm of :func:`scipy.special.logsumexp` (SciPy 1.15 and later) for real input: the ``m``
    entries equal to the maximum are counted apart and the others summed shifted by it, ``log1p(s / m) +
    log(m) + max``, with the same numpy operations in the same order, so the floats are SciPy's. Without
    its array-API dispatch, which costs about 0.3 ms a call on the small arrays of the exhaustive audits
    (they make hundreds of thousands of calls). A maximum that is not finite (every entry ``-inf``, an
    ``inf`` or a NaN) is left to SciPy itself. O(size of ``a``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.mechanisms._common import log_sum_exp
    >>> float(log_sum_exp(np.log(np.array([1.0, 2.0, 1.0]))) - np.log(4.0)) == 0.0
    True
    """
    if axis is None and a.ndim == 1:
        return _log_sum_exp_flat(a)
    a_max = np.max(a, axis=axis, keepdims=True)
    if not np.isfinite(a_max).all():
        from scipy.special import logsumexp

        return logsumexp(a, axis=axis)
    top = a == a_max
    m = np.sum(top, axis=axis, keepdims=True, dtype=a.dtype)  # exact: a count
    s = np.sum(np.exp(np.where(top, -np.inf, a) - a_max), axis=axis, keepdims=True, dtype=a.dtype)
    s = np.where(s == 0, s, s / m)
    out = np.log1p(s) + np.log(m) + a_max
    return out.reshape(())[()] if axis is None else np.squeeze(out, axis=axis)


def _log_sum_exp_flat(a: np.ndarray):
    """:func:`log_sum_exp` of a 1-D float64 array: the same numpy operations on the same floats (the sum
    of the shifted weights over the same array, hence the same pairwise order; the logarithms by the same
    ufuncs), with numpy scalars in place of the one-element arrays (fewer calls per small array)."""
    a_max = a.max()
    if not math.isfinite(a_max):
        from scipy.special import logsumexp

        return logsumexp(a)
    top = a == a_max
    m = a.dtype.type(np.count_nonzero(top))  # exact: a count, as np.sum(top, dtype=a.dtype)
    s = np.exp(np.where(top, -np.inf, a) - a_max).sum(dtype=a.dtype)
    if s != 0:
        s = s / m
    return np.log1p(s) + np.log(m) + a_max
