"""Hypervolume of a set of objective vectors, and the hypervolume ratio of k private picks.

Maximisation, as everywhere in dpmo: larger is better in every objective. The hypervolume of a set ``P`` with
respect to a reference point ``r`` is the Lebesgue measure of the region dominated by ``P`` and dominating
``r``: ``{y : r <= y <= p for some p in P}`` (Zitzler and Thiele 1998, the "S metric"). It rewards a set of
points that is both close to the front and spread along it, which the share of picks on the front and the
coverage C do not.

These are evaluation metrics, computed on exact (non-private) objective values; they are not releases.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._validation import check_int

__all__ = ["hypervolume", "hypervolume_ratio", "best_hypervolume"]

#: Largest number of k-subsets :func:`best_hypervolume` enumerates for three or more objectives.
MAX_SUBSETS = 200_000


def _points(X, name: str, m: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, shape (n_points, n_objectives)") from exc
    if arr.ndim == 1 and m is not None and arr.size == 0:
        arr = arr.reshape(0, m)
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (n_points, n_objectives), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if m is not None and arr.shape[1] != m:
        raise ValueError(f"{name} must have {m} objectives (columns), got {arr.shape[1]}")
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one objective")
    return arr


def _vector(v, name: str, m: int) -> np.ndarray:
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or a vector of {m} real numbers") from exc
    if arr.ndim == 0:
        arr = np.full(m, float(arr))
    if arr.shape != (m,):
        raise ValueError(
            f"{name} must be a real number or a vector of {m} real numbers, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def _nondominated(Z: np.ndarray) -> np.ndarray:
    """Unique rows of ``Z`` that no other row weakly dominates. O(n log n) for m = 2, O(n^2 m) otherwise."""
    Z = np.unique(Z, axis=0)
    if Z.shape[0] <= 1:
        return Z
    if Z.shape[1] == 2:
        Z = Z[np.lexsort((-Z[:, 1], -Z[:, 0]))]  # x descending, then y descending
        prev = np.concatenate(([-np.inf], np.maximum.accumulate(Z[:-1, 1])))
        return Z[Z[:, 1] > prev]
    geq = np.all(Z[:, None, :] >= Z[None, :, :], axis=2)  # geq[a, b]: a >= b everywhere
    np.fill_diagonal(geq, False)
    return Z[~np.any(geq, axis=0)]


def _hv2(Z: np.ndarray) -> float:
    """2-D hypervolume of the rows of ``Z`` (>= 0) with respect to the origin: a sweep, O(n log n)."""
    order = np.lexsort((-Z[:, 1], -Z[:, 0]))  # x descending, then y descending
    x = Z[order, 0]
    y = Z[order, 1]
    ymax = np.maximum.accumulate(y)
    prev = np.concatenate(([0.0], ymax[:-1]))
    rise = np.maximum(y - prev, 0.0)
    up = rise > 0  # a strip of height 0 adds nothing (and inf * 0 would be NaN)
    return float(np.sum(x[up] * rise[up]))


def _hv(Z: np.ndarray) -> float:
    """Hypervolume of the rows of ``Z`` (>= 0 everywhere) with respect to the origin."""
    n, m = Z.shape
    if n == 0:
        return 0.0
    if m == 1:
        return float(Z[:, 0].max())
    if m == 2:
        return _hv2(Z)
    # Slicing on the last objective (While et al. 2006, "HSO"): between two consecutive levels of the last
    # objective, the cross-section is the (m-1)-dimensional hypervolume of the points at or above the level.
    Z = _nondominated(Z)
    levels = np.unique(Z[:, -1])[::-1]  # descending
    total = 0.0
    for j, level in enumerate(levels):
        below = levels[j + 1] if j + 1 < levels.size else 0.0
        if level <= 0.0:
            break
        total += (level - max(below, 0.0)) * _hv(Z[Z[:, -1] >= level, :-1])
    return float(total)


def hypervolume(points, reference) -> float:
    """Hypervolume of ``points`` with respect to ``reference`` (larger is better in every objective).

    The Lebesgue measure of ``{y : reference <= y <= p for some p in points}``. A point that is not above the
    reference in every objective adds nothing (its box is clipped to the reference).

    Parameters
    ----------
    points : array_like, shape (n_points, m)
        Objective vectors, ``m >= 1``; ``n_points`` may be 0 (volume 0).
    reference : float or array_like, shape (m,)
        The reference point (a scalar is used for every objective).

    Returns
    -------
    float

    Notes
    -----
    Exact for every ``m`` (up to floating-point rounding of the sums). ``m = 1``: the largest value.
    ``m = 2``: sort by the first objective, sweep the running maximum of the second, O(n log n). ``m >= 3``:
    slicing on the last objective (HSO, While, Hingston, Barone and Huband 2006): for each of the at most
    ``n`` distinct levels, the ``(m - 1)``-dimensional hypervolume of the points at or above it, so
    O(n^(m-1) log n) time for ``m >= 2`` (O(n^2 log n) for three objectives), after an O(n^2 m) removal of
    dominated points. Meant for the small sets of this library (k picks, a front of at most a few thousand
    points for ``m = 2``, a few hundred for ``m = 3``).

    Examples
    --------
    >>> from dpmo.metrics import hypervolume
    >>> hypervolume([[1.0, 2.0], [2.0, 1.0]], reference=0.0)  # two 1x2 boxes overlapping in a 1x1 square
    3.0
    >>> hypervolume([[0.5, -1.0]], reference=0.0)  # below the reference in one objective: nothing
    0.0
    """
    P = _points(points, "points")
    m = P.shape[1]
    ref = _vector(reference, "reference", m)
    with np.errstate(over="ignore"):  # a box beyond the float range: its volume is inf, said as such
        Z = np.maximum(P - ref, 0.0)
    Z = Z[np.all(Z > 0.0, axis=1)]
    return _hv(Z)


def _normalise(X: np.ndarray, lower, upper, name: str, *, half: bool = False) -> np.ndarray:
    """``(X - lower) / (upper - lower)`` (or ``X - lower`` without ``upper``), clipped at 0. ``half``: from
    the halves of the values and bounds, which never overflow (``1e308 - (-1e308)``); halving is exact, so
    a ratio of two such values is the ratio of the plain ones, and without ``upper`` every value is half
    the plain one."""
    m = X.shape[1]
    lo = _vector(lower, "lower", m)
    hi = None if upper is None else _vector(upper, "upper", m)
    if hi is not None and np.any(hi <= lo):
        raise ValueError("upper must be larger than lower in every objective")
    if hi is not None and np.any(X > hi):
        raise ValueError(
            f"{name} exceed the public upper bounds `upper`; give bounds that hold for every candidate"
        )
    scale = 0.5 if half else 1.0  # exact
    X, lo = X * scale, lo * scale
    if hi is None:
        return np.maximum(X - lo, 0.0)
    hi = hi * scale
    return np.maximum((X - lo) / (hi - lo), 0.0)


def _unit_exponents(*parts: np.ndarray) -> np.ndarray:
    """Per objective, the exponent ``e`` such that ``2^-e`` brings the largest value of ``parts`` (>= 0) into
    ``[1/2, 1)``: products of ``m`` such values cannot overflow, and scaling by powers of two is exact (also
    from subnormals: ``np.ldexp(Z, -e)`` makes no factor ``2^-e``, which is inf for ``e < -1023``), so every
    hypervolume scales by one exact factor and a ratio of two is unchanged (no inf / inf)."""
    top = np.max(np.vstack([p.max(axis=0, initial=0.0) for p in parts]), axis=0)
    return np.where(top > 0, np.frexp(top)[1], 0)


def _best2(Z: np.ndarray, k: int) -> float:
    """Largest 2-D hypervolume of ``k`` rows of ``Z`` (origin reference): dynamic programming, O(k n^2)."""
    Z = _nondominated(Z[np.all(Z > 0.0, axis=1)])
    n = Z.shape[0]
    if n == 0:
        return 0.0
    if k >= n:
        return _hv2(Z)
    order = np.argsort(-Z[:, 0], kind="stable")  # x descending; on a front y is then ascending
    x = Z[order, 0]
    y = Z[order, 1]
    # f[j] = best hypervolume of c points whose last one (largest y) is j. Adding j after i (i < j) adds the
    # strip x_j * (y_j - y_i); a first point adds x_j * y_j.
    f = x * y
    best = float(f.max())
    for _ in range(1, k):
        g = np.full(n, -np.inf)
        for j in range(1, n):
            g[j] = x[j] * y[j] + np.max(f[:j] - x[j] * y[:j])
        f = g
        best = max(best, float(f.max()))
    return best


def best_hypervolume(front, k: int, *, lower=0.0, upper=None, max_subsets: int = MAX_SUBSETS) -> float:
    """Largest hypervolume that any ``k`` points of ``front`` reach (normalised objectives, origin reference).

    Parameters
    ----------
    front : array_like, shape (n_points, m)
        Objective vectors (usually the exact Pareto front; dominated points are allowed and ignored).
    k : int
        Number of points, ``k >= 1`` (all points when ``k`` is at least their number).
    lower, upper : float or array_like of shape (m,)
        **Public** bounds of the objectives (never computed from the private data). Values are normalised to
        ``(u - lower) / (upper - lower)``, the reference point being ``lower`` (the origin after
        normalisation). ``upper=None`` skips the division; with the reference at ``lower`` the hypervolume
        *ratio* does not depend on ``upper`` (every volume scales by the same factor).
    max_subsets : int
        For ``m >= 3``: the largest number of k-subsets enumerated (see Notes).

    Returns
    -------
    float

    Notes
    -----
    ``m = 1``: the largest value. ``m = 2``: exact, by dynamic programming over the front sorted by the first
    objective (the hypervolume of a chosen staircase is a sum of strips, each depending on two consecutive
    chosen points only), O(k n^2) time and O(n) memory after an O(n^2) removal of dominated points.
    ``m >= 3``: exact, by enumerating the ``C(n', k)`` subsets of the ``n'`` non-dominated points (``k <= 3``:
    a few seconds for ``n' = 100``); when there are more than ``max_subsets`` of them a ``ValueError`` is
    raised rather than return an approximation (the problem is NP-hard for general ``m``; Bringmann and
    Friedrich 2010).

    Examples
    --------
    >>> from dpmo.metrics import best_hypervolume, hypervolume
    >>> front = [[1.0, 4.0], [2.0, 3.0], [4.0, 1.0]]
    >>> best = best_hypervolume(front, 2)
    >>> pairs = [[front[i], front[j]] for i in range(3) for j in range(i + 1, 3)]
    >>> best == max(hypervolume(p, 0.0) for p in pairs)  # checked by enumerating the pairs
    True
    """
    F = _points(front, "front")
    k = check_int(k, "k")
    return _best(_normalise(F, lower, upper, "front values"), k, max_subsets)


def _best(Z: np.ndarray, k: int, max_subsets) -> float:
    """:func:`best_hypervolume` of the normalised front ``Z`` (``max_subsets`` checked here)."""
    max_subsets = check_int(max_subsets, "max_subsets")
    m = Z.shape[1]
    if m == 1:
        return float(Z[:, 0].max()) if Z.shape[0] else 0.0
    if m == 2:
        return _best2(Z, k)
    Z = _nondominated(Z[np.all(Z > 0.0, axis=1)])
    n = Z.shape[0]
    if k >= n:
        return _hv(Z)
    count = math.comb(n, k)
    if count > max_subsets:
        raise ValueError(
            f"{count} subsets of {k} among {n} non-dominated front points exceed max_subsets={max_subsets}; "
            "raise max_subsets (exact enumeration) or pass a smaller front"
        )
    return max(_hv(Z[list(c)]) for c in itertools.combinations(range(n), k))


def hypervolume_ratio(
    picks, front, k: int, *, lower=0.0, upper=None, max_subsets: int = MAX_SUBSETS
) -> float:
    """Hypervolume of ``picks`` over the largest hypervolume any ``k`` points of ``front`` reach.

    Parameters
    ----------
    picks : array_like, shape (p, m)
        Objective vectors of the chosen candidates (exact values; at most ``k`` of them for the ratio to be
        at most 1).
    front : array_like, shape (n, m)
        Objective vectors of the exact Pareto front of all candidates.
    k : int
        The number of picks asked for (the denominator's subset size).
    lower, upper : float or array_like of shape (m,)
        Public bounds, see :func:`best_hypervolume`; the reference point is ``lower``.
    max_subsets : int
        See :func:`best_hypervolume` (three or more objectives).

    Returns
    -------
    float in [0, 1] when the picks are at most ``k`` candidates and ``front`` is their exact front
        1 means the picks reach the best hypervolume possible with ``k`` points. When the front's
        hypervolume is 0 (no point above the reference) the ratio is 1 by convention.

    Notes
    -----
    Every candidate is weakly dominated by a front point, so ``k`` picks never exceed the best ``k`` front
    points: the ratio is at most 1. Cost: :func:`hypervolume` of the picks plus :func:`best_hypervolume`
    (compute the latter once and divide yourself when the front is fixed across many runs).

    Examples
    --------
    >>> from dpmo.metrics import hypervolume_ratio
    >>> front = [[1.0, 4.0], [2.0, 3.0], [4.0, 1.0]]
    >>> hypervolume_ratio([[2.0, 3.0]], front, 1)  # the best single point of the front
    1.0
    >>> 0.0 < hypervolume_ratio([[1.0, 1.0]], front, 1) < 1.0
    True
    """
    F = _points(front, "front")
    m = F.shape[1]
    P = _points(picks, "picks", m)
    k = check_int(k, "k")
    Zf = _normalise(F, lower, upper, "front values", half=True)
    Zp = _normalise(P, lower, upper, "picks values", half=True)
    e = _unit_exponents(Zf, Zp)
    Zf, Zp = np.ldexp(Zf, -e), np.ldexp(Zp, -e)
    best = _best(Zf, k, max_subsets)
    hv = _hv(Zp[np.all(Zp > 0.0, axis=1)])
    if best <= 0.0:
        return 1.0
    return float(hv / best)
