"""Offline dominance counting: for every query point, how many points are >= it in every coordinate.

This is the counting engine behind :func:`dpmo.pareto_score` and :func:`dpmo.pareto_sensitivity`.
Every method computes the same exact integer counts, and the choice among them depends on sizes only,
so the result never depends on which one ran.

Algorithms (``P`` points, ``Q`` queries, ``m`` coordinates, ``N = P + Q``):

* ``m = 1``: sort the points, one ``searchsorted`` per query. O(N log P).
* ``m = 2``: offline sweep. Points are sorted by the first coordinate; each query gets the position
  where its first coordinate would enter that order (``searchsorted`` on the left, so ``>=`` is exact with
  ties) and the queries are processed by decreasing position. Sweeping positions from the top, each point
  is added to a Fenwick tree indexed by its position in the order of the second coordinate, and each
  query reads the suffix of that tree that starts at its own ``searchsorted`` position. When the queries
  are the points themselves, a whole group of equal first coordinates is inserted before it is queried.
  O(N log P) time, O(P + Q) memory; the sweep is sequential and runs in a numba kernel.
* ``m >= 3``: Bentley's multidimensional divide and conquer. The points and queries are split at a
  median value ``v`` of the current coordinate (ties kept together: low = ``< v``, high = ``>= v``);
  high points dominate low queries in that coordinate for sure, so that cross pair recurses on the
  remaining coordinates only, while (high, high) and (low, low) recurse on the same coordinate. A block
  whose values are all equal in the current coordinate drops it. The two-coordinate base is the sweep
  above. O(N log^(m-1) N) time, O(N m) memory.
* Small problems (``P * Q`` up to a few million pairs, or few queries) use a brute force in O(P Q m) time
  and O(P) memory (a numba kernel whose inner loops vectorise), which beats sorting when there are few
  queries (the dampening loop asks about a handful of candidates against all of them).

Strict counts (``>`` in every coordinate) are reduced to weak ones exactly: for finite float64 values,
``p > q`` if and only if ``p >= nextafter(q, +inf)``.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["count_dominating", "count_dominating_naive", "count_columns", "pareto_delta_few"]

#: Brute force when points * queries is at most this (pairs); above it, sort-based methods.
_BRUTE_PAIRS = 1 << 22
#: ... or when the number of queries is small compared with log(points) * this factor.
_BRUTE_QUERIES_PER_LOG = 4


def _as_columns(X: np.ndarray) -> np.ndarray:
    """(n, m) array -> C-contiguous float64 (m, n) columns."""
    return np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)


def count_dominating(points, queries=None, *, strict: bool = False) -> np.ndarray:
    """Count, for every query ``q``, the points ``p`` with ``p >= q`` in every coordinate.

    Parameters
    ----------
    points : array_like, shape (n_points, m)
    queries : array_like, shape (n_queries, m), optional
        Finite real values (not checked here: the public functions validate their input). None means the
        points themselves (each point then counts itself).
    strict : bool, default False
        Count ``p > q`` in every coordinate instead.

    Returns
    -------
    numpy.ndarray of int64, shape (n_queries,)

    Notes
    -----
    O((P + Q) log P) for m <= 2, O(N log^(m-1) N) for m >= 3 (``N = P + Q``), or O(P Q m) by brute force
    for small ``P Q``; O((P + Q) m) memory. See the module docstring.
    """
    P = _as_columns(points)
    if P.ndim != 2:
        raise ValueError("points must be a 2-D array")
    if queries is None and not strict:
        return _count(P, P, 0, True)
    Q = P if queries is None else _as_columns(queries)
    if Q.ndim != 2 or P.shape[0] != Q.shape[0]:
        raise ValueError("points and queries must be 2-D arrays with the same number of columns")
    if strict:
        Q = np.nextafter(Q, np.inf)
    return _count(P, Q, 0, False)


def count_columns(P: np.ndarray, Q: np.ndarray | None = None, *, strict: bool = False) -> np.ndarray:
    """:func:`count_dominating` on float64 column arrays ``P`` (m, n_points) and ``Q`` (m, n_queries)."""
    if Q is None and not strict:
        return _count(P, P, 0, True)
    if Q is None:
        Q = P
    if strict:
        Q = np.nextafter(Q, np.inf)
    return _count(P, Q, 0, False)


def count_dominating_naive(points, queries=None, *, strict: bool = False) -> np.ndarray:
    """The O(P Q m) reference of :func:`count_dominating` (for tests), by direct comparison."""
    P = np.asarray(points, dtype=np.float64)
    Q = P if queries is None else np.asarray(queries, dtype=np.float64)
    if strict:
        return np.sum(np.all(P[None, :, :] > Q[:, None, :], axis=2), axis=1).astype(np.int64)
    return np.sum(np.all(P[None, :, :] >= Q[:, None, :], axis=2), axis=1).astype(np.int64)


def _count(P: np.ndarray, Q: np.ndarray, d: int, same: bool) -> np.ndarray:
    """Counts over the coordinates ``d:`` of the column arrays ``P`` (m, P) and ``Q`` (m, Q).

    ``same`` says that ``Q`` is ``P`` (the self-count of :func:`dpmo.pareto_score`), which saves sorts.
    """
    n_p = P.shape[1]
    n_q = Q.shape[1]
    m = P.shape[0]
    if n_p == 0 or n_q == 0:
        return np.zeros(n_q, dtype=np.int64)
    rem = m - d
    if rem == 1:
        return _count_1d(P[d], Q[d], same)
    if _use_brute(n_p, n_q):
        return _brute(P[d:], Q[d:])
    if rem == 2:
        return _count_2d(P[d], P[d + 1], Q[d], Q[d + 1], same)
    # Bentley's divide and conquer on coordinate d.
    allv = P[d] if same else np.concatenate((P[d], Q[d]))
    half = allv.size // 2
    v = np.partition(allv, half)[half]
    lo_min = allv.min()
    if v == lo_min:
        above = allv[allv > v]
        if above.size == 0:  # every value equal: coordinate d holds (>=) for every pair
            return _count(P, Q, d + 1, same)
        v = above.min()
    p_hi = P[d] >= v
    q_hi = p_hi if same else Q[d] >= v
    q_lo = ~q_hi
    out = np.empty(n_q, dtype=np.int64)
    P_hi = P[:, p_hi]
    Q_lo = Q[:, q_lo]
    P_lo = Q_lo if same else P[:, ~p_hi]
    out[q_lo] = _count(P_hi, Q_lo, d + 1, False) + _count(P_lo, Q_lo, d, same)
    out[q_hi] = _count(P_hi, P_hi if same else Q[:, q_hi], d, same)
    return out


def _use_brute(n_p: int, n_q: int) -> bool:
    if n_p * n_q <= _BRUTE_PAIRS:
        return True
    return n_q <= _BRUTE_QUERIES_PER_LOG * np.log2(n_p + 1)


def _count_1d(p: np.ndarray, q: np.ndarray, same: bool) -> np.ndarray:
    if same:
        order = np.argsort(p)
        out = np.empty(p.size, dtype=np.int64)
        out[order] = p.size - _group_starts(p[order])
        return out
    return p.size - _start_positions(np.sort(p), q)


def _brute(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """O(P Q m) count; P and Q are (m, .) float64 column arrays."""
    return _brute_kernel(np.ascontiguousarray(P), np.ascontiguousarray(Q))


@numba.njit(cache=True, nogil=True)
def _brute_kernel(P, Q):  # pragma: no cover - compiled
    """For each query column ``Q[:, j]``, the number of point columns ``P[:, p] >= Q[:, j]`` (all rows).

    One vectorisable pass per row and query over a byte mask of the points: O(P Q m) time, O(P) memory.
    """
    m, n_p = P.shape
    n_q = Q.shape[1]
    out = np.empty(n_q, dtype=np.int64)
    ok = np.empty(n_p, dtype=np.uint8)
    for j in range(n_q):
        ok[:] = 1
        for i in range(m):
            thr = Q[i, j]
            row = P[i]
            for p in range(n_p):
                ok[p] &= row[p] >= thr
        c = 0
        for p in range(n_p):
            c += ok[p]
        out[j] = c
    return out


def _start_positions(sorted_vals: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``searchsorted(sorted_vals, q, "left")``; many queries are sorted first (cache-friendly)."""
    if q.size * 8 < sorted_vals.size:
        return np.searchsorted(sorted_vals, q, side="left").astype(np.int64)
    qo = np.argsort(q)
    out = np.empty(q.size, dtype=np.int64)
    out[qo] = np.searchsorted(sorted_vals, q[qo], side="left")
    return out


def _group_starts(sorted_vals: np.ndarray) -> np.ndarray:
    """For a sorted array, the index of the first element equal to each element. O(n)."""
    n = sorted_vals.size
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(sorted_vals[1:], sorted_vals[:-1], out=new[1:])
    return np.maximum.accumulate(np.where(new, np.arange(n, dtype=np.int64), 0))


def _count_2d(
    px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, same: bool = False
) -> np.ndarray:
    """Two-coordinate count by a Fenwick sweep. ``same``: the queries are the points themselves."""
    n = px.size
    order_x = np.argsort(px)
    order_y = np.argsort(py)
    rank_y = np.empty(n, dtype=np.int64)
    rank_y[order_y] = np.arange(n, dtype=np.int64)
    ry_x = rank_y[order_x]  # y-position of the points, in x order
    sx = px[order_x]
    sy = py[order_y]
    if same:
        start_y = np.empty(n, dtype=np.int64)
        start_y[order_y] = _group_starts(sy)
        out_x = _sweep2d_self(ry_x, _group_starts(sx), start_y[order_x])
        out = np.empty(n, dtype=np.int64)
        out[order_x] = out_x
        return out
    qo = np.argsort(qx)
    start_x = np.searchsorted(sx, qx[qo], side="left").astype(np.int64)  # non-decreasing
    start_y = _start_positions(sy, qy)[qo]
    out = np.empty(qx.size, dtype=np.int64)
    out[qo] = _sweep2d(ry_x, start_x, start_y)
    return out


@numba.njit(cache=True, nogil=True)
def _sweep2d(ry_x, start_x, start_y):  # pragma: no cover - compiled
    """Fenwick sweep over points in x order (``ry_x``: their y-positions). Queries come sorted by
    ``start_x`` (first x-position with ``px >= qx``); query ``j`` counts the points at x-positions
    ``>= start_x[j]`` and y-positions ``>= start_y[j]``."""
    n = ry_x.size
    nq = start_x.size
    tree = np.zeros(n + 1, dtype=np.int32)  # over reversed y-positions: prefix sums = suffixes in y
    out = np.empty(nq, dtype=np.int64)
    p = n
    for j in range(nq - 1, -1, -1):
        while p > start_x[j]:
            p -= 1
            i = n - ry_x[p]
            while i <= n:
                tree[i] += 1
                i += i & (-i)
        i = n - start_y[j]
        acc = 0
        while i > 0:
            acc += tree[i]
            i -= i & (-i)
        out[j] = acc
    return out


@numba.njit(cache=True, nogil=True)
def _sweep2d_self(ry_x, gstart_x, start_y_x):  # pragma: no cover - compiled
    """Self-count: each point (in x order) is also a query; a group of equal x is added before it is
    queried, so ties in x count (``>=``); ``start_y_x`` is the first y-position of the point's y value."""
    n = ry_x.size
    tree = np.zeros(n + 1, dtype=np.int32)
    out = np.empty(n, dtype=np.int64)
    pos = n - 1
    while pos >= 0:
        g = gstart_x[pos]
        for p in range(g, pos + 1):
            i = n - ry_x[p]
            while i <= n:
                tree[i] += 1
                i += i & (-i)
        for p in range(g, pos + 1):
            i = n - start_y_x[p]
            acc = 0
            while i > 0:
                acc += tree[i]
                i -= i & (-i)
            out[p] = acc
        pos = g - 1
    return out


@numba.njit(cache=True, nogil=True)
def pareto_delta_few(U, S, idx):  # pragma: no cover - compiled
    """``delta^PS`` of the candidates ``idx`` by a fused O(n q m) pass (few queries).

    ``U`` and ``S`` are (m, n) float64 columns: utilities and running sums of the objectives' deltas.
    Returns ``#{r' != r : U + S >= U_r - S_r} - #{r' : U - S > U_r + S_r}`` (in every row) for each ``r`` in
    ``idx``, with the same floating-point sums as the sort-based path.
    """
    m, n = U.shape
    q = idx.size
    out = np.empty(q, dtype=np.int64)
    ok_a = np.empty(n, dtype=np.uint8)
    ok_b = np.empty(n, dtype=np.uint8)
    for j in range(q):
        r = idx[j]
        ok_a[:] = 1
        ok_b[:] = 1
        for i in range(m):
            lo = U[i, r] - S[i, r]  # u^{-t}(r)
            hi = U[i, r] + S[i, r]  # u^{+t}(r)
            u = U[i]
            s = S[i]
            for rp in range(n):
                ok_a[rp] &= u[rp] + s[rp] >= lo
                ok_b[rp] &= u[rp] - s[rp] > hi
        ca = 0
        cb = 0
        for rp in range(n):
            ca += ok_a[rp]
            cb += ok_b[rp]
        out[j] = ca - 1 - cb
    return out
