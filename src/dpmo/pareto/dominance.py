"""Offline dominance counting: for every query point, how many points are >= it in every coordinate.

This is the counting engine behind :func:`dpmo.pareto_score` and :func:`dpmo.pareto_sensitivity`.
Every method computes the same exact integer counts, and the choice among them depends on sizes only,
so the result never depends on which one ran.

Algorithms (``P`` points, ``Q`` queries, ``m`` coordinates, ``N = P + Q``):

* ``m = 1``: radix-sort the points and the queries, merge the two lists. O(N) time.
* ``m = 2``: offline sweep (:mod:`dpmo.pareto.sweep`): both coordinates radix-sorted, the second turned
  into ranks and thresholds by a merge, then a sweep of the first coordinate from the top in which each
  point enters a bitmap of y-ranks (with a Fenwick tree over its words) and each query counts the entered
  ranks at or above its threshold. Ties are exact (values are compared, never positions). O(N log P)
  time, O(P + Q) memory, compiled.
* ``m >= 3``: Bentley's multidimensional divide and conquer. The points and queries are split at a
  median value ``v`` of the current coordinate (ties kept together: low = ``< v``, high = ``>= v``);
  high points dominate low queries in that coordinate for sure, so that cross pair recurses on the
  remaining coordinates only, while (high, high) and (low, low) recurse on the same coordinate. A block
  whose values are all equal in the current coordinate drops it. The two-coordinate base is the sweep
  above. O(N log^(m-1) N) time, O(N m) memory.
* Small problems (``P * Q`` up to a few million pairs, or few queries, or few points) use a brute force in
  O(P Q m) time and O(P) memory (a numba kernel whose inner loops vectorise), which beats sorting when
  there are few queries (the dampening loop asks about a handful of candidates against all of them) or few
  points (the candidates removed in earlier rounds against all the others).

Strict counts (``>`` in every coordinate) are reduced to weak ones exactly: for finite float64 values,
``p > q`` if and only if ``p >= nextafter(q, +inf)``.
"""

from __future__ import annotations

import numba
import numpy as np

from . import sweep

__all__ = ["count_dominating", "count_dominating_naive", "count_columns", "pareto_delta_few"]

#: Brute force when points * queries is at most this (pairs); above it, sort-based methods.
_BRUTE_PAIRS = 1 << 22
#: ... or when the number of queries (or of points) is small compared with log(the other) * this factor.
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
    return min(n_q, n_p) <= _BRUTE_QUERIES_PER_LOG * np.log2(max(n_p, n_q) + 1)


def _count_1d(p: np.ndarray, q: np.ndarray, same: bool) -> np.ndarray:
    work = sweep.sort_scratch(p.size)
    ps = sweep.sorted_axis(p, scratch=work)
    qs = ps if same else sweep.sorted_axis(q, scratch=work if q.size == p.size else None)
    del work
    out = np.zeros(q.size, dtype=np.int64)
    sweep.count_1d(ps, qs, False, out)
    return out


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


def _count_2d(
    px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, same: bool = False
) -> np.ndarray:
    """Two-coordinate count by a sweep (:func:`dpmo.pareto.sweep.count_2d`). ``same``: the queries are the
    points themselves (their sorts are shared)."""
    work = sweep.sort_scratch(px.size)  # one set of work arrays for the sorts of the points' size
    ax, ay = sweep.sorted_axis(px, scratch=work), sweep.sorted_axis(py, scratch=work)
    qwork = work if qx.size == px.size else sweep.sort_scratch(qx.size)
    if same:
        bx, by = ax, ay
    else:
        bx, by = sweep.sorted_axis(qx, scratch=qwork), sweep.sorted_axis(qy, scratch=qwork)
    del work, qwork
    out = np.zeros(qx.size, dtype=np.int64)
    sweep.count_2d(ax, ay, bx, by, False, out)
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


def spans(U: np.ndarray) -> np.ndarray:
    """``max u_i - min u_i`` of each row of ``U`` (m, n) as floats; inf where the width leaves the floats."""
    with np.errstate(over="ignore"):
        return U.max(axis=1) - U.min(axis=1)


def sums_saturated(S: np.ndarray, spans: np.ndarray) -> bool:
    """Whether every running sum ``S[i, r]`` is at least its objective's span (:func:`spans`). O(m n).

    Then ``delta^PS = n_live - 1`` for every candidate, at this distance and at every later one, whatever
    the later deltas. For any two candidates ``S(r) + S(r') >= 2 fl(span) >= u(r) - u(r')`` exactly in the
    reals, so ``u(r') + S(r') >= u(r) - S(r)`` and ``u(r') - S(r') <= u(r) + S(r)``; rounding to nearest is
    monotone, so the float comparisons of the counts say the same: every ``r'`` may dominate ``r`` and none
    surely does. The sums never decrease (the deltas are >= 0), so sums stopped here give the very counts
    of the true sums at any later distance: :class:`dpmo.pareto.state.ParetoState` stops a long jump
    there (``pareto_sensitivity(objs)(10**12)`` walked 10^12 distances).
    """
    return bool(np.all(S.min(axis=1) >= spans))
