"""Sorting and sweeping kernels of the dominance counts for one and two coordinates.

The counts behind :func:`dpmo.pareto_score` and ``delta^PS`` (:mod:`dpmo.pareto.dominance`,
:mod:`dpmo.pareto.state`) for one or two coordinates come down to three compiled passes:

1. **Sort** every coordinate of the points and of the queries: an LSD radix argsort of the float64 values
   (mapped to unsigned keys with the same order; 8-bit digits, at most 8 passes, a pass skipped when all
   keys share its digit). O(n) time, streaming memory access; a comparison argsort of 10^7 floats spends
   most of its time in cache misses (measured 3 to 14 times slower). Equal values keep their input order
   (any order of equal values would do: the counts below compare values, never positions).
2. **Rank** the second coordinate: a point's y-rank is its position in the sorted y order; a query's
   threshold is the number of points whose y is ``<`` (weak count) or ``<=`` (strict count) its own, found
   by merging the two sorted lists. "Point y ``>=`` (``>``) query y" is then "y-rank ``>=`` threshold".
3. **Sweep** the first coordinate from the top: points enter while their x is ``>=`` (``>``) the query's,
   and each query counts the entered y-ranks ``>=`` its threshold. The entered ranks are a bitmap
   (``n / 64`` words) with a Fenwick tree over the words: an insertion sets one bit and updates about
   ``log2(n / 64)`` counters, a query adds the popcount of one partial word to a Fenwick suffix sum. That is
   1.9 MB of state for 10^7 points, which stays in cache (a Fenwick tree over all ranks takes 40 MB and
   misses the cache at every level). O(n log n) time in the worst case, O(n) memory.

The counts are exact integers: every comparison is between the very float64 values of the inputs (``u + s``
and ``u - s`` are formed by the same single IEEE operation as numpy's ``U + S``, ``U - S``), so every path
gives the counts of a direct comparison (the tests compare them on every path).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._kernel_args import kernel_input

__all__ = [
    "SortedAxis",
    "SortScratch",
    "sort_scratch",
    "sorted_axis",
    "sorted_order",
    "count_1d",
    "count_2d",
    "add_counts",
    "removed_delta_correction",
    "removed_dominating",
    "delta_from_counts",
    "scores_from_counts",
]


class SortedAxis(NamedTuple):
    """One coordinate in ascending order: ``values[j] + shift = v[order[j]]``.

    ``shift`` (default 0) lets two axes share one array: ``u`` sorted serves as ``u + c`` and ``u - c`` for
    a constant ``c`` (rounding is monotone, so the order is the same). The counting kernels form
    ``values[j] + shift`` where they compare it: one IEEE addition, the same float as the array
    ``u + c`` (``u - c`` is ``u + (-c)`` in IEEE arithmetic); a shift of 0 turns -0.0 into +0.0 only,
    which compares equal.
    """

    order: np.ndarray
    values: np.ndarray
    shift: float = 0.0


def index_dtype(n: int):
    """int32 positions while they fit (half the memory and bandwidth of int64), int64 beyond."""
    return np.int32 if n < 2**31 - 1 else np.int64


class SortScratch(NamedTuple):
    """Work arrays of :func:`sorted_axis` for ``n`` values, reusable from one sort to the next.

    Above the allocator's reuse threshold every fresh array of 10^7 values costs the kernel's page faults
    and zeroing (measured at 10^7: a sort into fresh arrays takes up to twice as long), so a caller that
    sorts several axes of the same size passes one of these to each (see :func:`sort_scratch`)."""

    keys: np.ndarray  # uint64, the radix sort's second key buffer
    order: np.ndarray  # its second position buffer (index_dtype(n))
    values: np.ndarray  # float64, the values of a sort whose caller keeps the order only


def sort_scratch(n: int) -> SortScratch:
    """:class:`SortScratch` for ``n`` values (28 bytes per value with int32 positions)."""
    return SortScratch(np.empty(n, dtype=np.uint64), np.empty(n, dtype=index_dtype(n)), np.empty(n))


def _prepare(scratch, n):
    if scratch is not None and scratch.keys.size != n:
        raise ValueError(f"scratch holds {scratch.keys.size} values, the axis {n}")
    return scratch if scratch is not None else sort_scratch(n)


def sorted_axis(
    u: np.ndarray, s: np.ndarray | None = None, sign: int = 0, *, scratch: SortScratch | None = None
) -> SortedAxis:
    """``u`` (``sign == 0``), ``u + s`` (``sign > 0``) or ``u - s`` (``sign < 0``), sorted ascending.

    float64 arrays of one size; the shifted values are formed inside the kernel (no temporary array) and
    their bits sorted in place. ``scratch`` (:func:`sort_scratch`): work arrays to reuse, else fresh ones.
    O(n) time (radix sort); the result's 12 bytes per value, and 16 of scratch.
    """
    u = np.ascontiguousarray(u, dtype=np.float64)
    s = u if s is None else np.ascontiguousarray(s, dtype=np.float64)
    n = u.size
    work = _prepare(scratch, n)
    order = np.empty(n, dtype=index_dtype(n))
    values = np.empty(n)
    _sorted_shifted(u, s, np.int64(sign), order, values, work.keys, work.order)
    return SortedAxis(order, values)


def sorted_order(u: np.ndarray, *, scratch: SortScratch | None = None) -> np.ndarray:
    """The positions of ``u`` in ascending order (stable), as ``sorted_axis(u).order``; the sorted values
    are written into ``scratch.values``. O(n) time."""
    u = np.ascontiguousarray(u, dtype=np.float64)
    n = u.size
    work = _prepare(scratch, n)
    order = np.empty(n, dtype=index_dtype(n))
    _sorted_shifted(u, u, np.int64(0), order, work.values, work.keys, work.order)
    return order


def count_1d(p: SortedAxis, q: SortedAxis, strict: bool, out: np.ndarray, sign: int = 1) -> None:
    """``out[j] += sign * #{points p_i >= q_j}`` (``> q_j`` when ``strict``); ``p``, ``q`` sorted."""
    thr = np.empty(q.values.size, dtype=index_dtype(p.values.size))
    p, q = _frozen(p), _frozen(q)
    _count_1d_kernel(p.values, p.shift, q.order, q.values, q.shift, strict, np.int64(sign), thr, out)


def _frozen(axis: SortedAxis) -> SortedAxis:
    """``axis`` with read-only C views of its arrays: the counting kernels are compiled for one signature
    whether the caller's sorts are frozen or not. O(1) (a copy only for another dtype or layout)."""
    order, values = kernel_input(axis.order, axis.order.dtype), kernel_input(axis.values, np.float64)
    return SortedAxis(order, values, axis.shift)


def count_2d(px, py, qx, qy, strict: bool, out: np.ndarray, sign: int = 1, *, scratch=None) -> None:
    """``out[j] += sign * #{points i : px_i >= qx_j and py_i >= qy_j}`` (``>`` in both when ``strict``).

    Points and queries are given as their sorted coordinates (:func:`sorted_axis`); the same objects may
    serve as points and queries (the self-count of the Pareto score). Three work arrays of positions: one
    holds in turn the y-ranks, the thresholds and the results, two the ranks and thresholds in x order;
    ``scratch`` (:class:`SortScratch` of the points' size, its sorts done) provides them when points and
    queries are as many and positions are int32 (its ``values`` are not touched). O((P + Q) log P) time,
    O(P + Q) memory (see the module notes).
    """
    n_p, n_q = px.values.size, qx.values.size
    dt = index_dtype(n_p)
    px, py, qx, qy = _frozen(px), _frozen(py), _frozen(qx), _frozen(qy)
    if scratch is not None and n_p == n_q == scratch.keys.size and dt == np.int32:
        turns, halves = scratch.order, scratch.keys.view(np.int32)  # the keys: two int32 arrays
        ry, tq = halves[:n_p], halves[n_p:]
    else:
        turns = np.empty(max(n_p, n_q), dtype=dt)
        ry, tq = np.empty(n_p, dtype=dt), np.empty(n_q, dtype=dt)
    _count_2d_kernel(
        px.order, px.values, px.shift, py.order, py.values, py.shift,
        qx.order, qx.values, qx.shift, qy.order, qy.values, qy.shift,
        strict, np.int64(sign), out, turns, ry, tq,
    )  # fmt: skip


def add_counts(P_axes, Q_axes, out: np.ndarray, *, scratch=None) -> None:
    """``out[r] += #{r' : P(r') >= Q(r)} - #{r' : Q(r') > P(r)}`` for every candidate ``r`` (m = 1, 2).

    ``P_axes[i]``, ``Q_axes[i]`` are ``u_i + S_i`` and ``u_i - S_i`` sorted (:func:`sorted_axis`). The two
    counts of ``delta^PS`` share these four sorts (and ``scratch``, see :func:`count_2d`). O(n log n) time,
    O(n) memory.
    """
    if len(P_axes) == 1:
        count_1d(P_axes[0], Q_axes[0], False, out, 1)
        count_1d(Q_axes[0], P_axes[0], True, out, -1)
    else:
        count_2d(P_axes[0], P_axes[1], Q_axes[0], Q_axes[1], False, out, 1, scratch=scratch)
        count_2d(Q_axes[0], Q_axes[1], P_axes[0], P_axes[1], True, out, -1, scratch=scratch)


# ----------------------------------------------------------------------------------------------- kernels
# Radix digits of 8 bits (at most 8 passes): 256 buckets keep the scatter's write positions within the
# TLB and the first-level cache, where 2,048 buckets (11 bits, 6 passes) thrash both once the arrays pass
# the last-level cache (10^7 values: about 1.6x faster; 10^6: no slower).
_DIGIT = 8
_PASSES = -(-64 // _DIGIT)  # enough digits for the 64 bits of a key


@numba.njit(cache=True, nogil=True)
def _radix_sort(keys, idx, k2, i2):  # pragma: no cover - compiled
    """Sort the uint64 ``keys`` in place, carrying ``idx`` along: stable LSD radix sort, 8-bit digits
    (``k2``, ``i2``: scratch of the same sizes)."""
    n = keys.size
    nb = 1 << _DIGIT
    mask = np.uint64(nb - 1)
    hist = np.zeros((_PASSES, nb), dtype=np.int64)
    for i in range(n):
        k = keys[i]
        for p in range(_PASSES):
            hist[p, np.intp((k >> np.uint64(_DIGIT * p)) & mask)] += 1
    src_k, src_i, dst_k, dst_i = keys, idx, k2, i2
    pos = np.empty(nb, dtype=np.int64)
    for p in range(_PASSES):
        h = hist[p]
        constant = False
        for b in range(nb):
            if h[b] != 0:
                constant = h[b] == n
                break
        if constant:  # every key has the same digit here: the pass would move nothing
            continue
        acc = 0
        for b in range(nb):
            pos[b] = acc
            acc += h[b]
        shift = np.uint64(_DIGIT * p)
        for i in range(n):
            k = src_k[i]
            b = np.intp((k >> shift) & mask)
            j = pos[b]
            pos[b] = j + 1
            dst_k[j] = k
            dst_i[j] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
    if src_k is not keys:  # (element loops: a slice assignment takes seconds to compile)
        for i in range(n):
            keys[i] = src_k[i]
            idx[i] = src_i[i]


@numba.njit(cache=True, nogil=True)
def _sorted_shifted(u, s, sign, order, values, keys2, order2):  # pragma: no cover - compiled
    """Sort ``u + s`` / ``u - s`` / ``u`` (sign > 0 / < 0 / 0): ``order`` gets the positions, ``values`` the
    sorted values. The values' own bits serve as the keys (flipped in place so that their unsigned order
    is the order of the floats, sorted, flipped back); ``keys2``, ``order2``: the radix sort's scratch."""
    n = u.size
    for i in range(n):
        if sign > 0:
            values[i] = u[i] + s[i]
        elif sign < 0:
            values[i] = u[i] - s[i]
        else:
            values[i] = u[i]
        order[i] = i
    top = np.uint64(1) << np.uint64(63)
    keys = values.view(np.uint64)
    for i in range(n):  # flip: the unsigned order of the keys is the order of the floats
        b = keys[i]
        keys[i] = ~b if b & top else b | top
    _radix_sort(keys, order, keys2, order2)
    for i in range(n):
        k = keys[i]
        keys[i] = k & ~top if k & top else ~k  # the sorted values, written back through their bits


@numba.njit(cache=True, nogil=True)
def _thresholds(p_values, p_shift, q_order, q_values, q_shift, strict, thr):  # pragma: no cover - compiled
    """``thr[q] = #{points < value of q}`` (``<=`` when strict), by merging the two sorted lists (values
    plus their axes' shifts, :class:`SortedAxis`)."""
    n_p = p_values.size
    j = 0
    for i in range(q_values.size):
        v = q_values[i] + q_shift
        if strict:
            while j < n_p and p_values[j] + p_shift <= v:
                j += 1
        else:
            while j < n_p and p_values[j] + p_shift < v:
                j += 1
        thr[q_order[i]] = j


@numba.njit(cache=True, nogil=True)
def _count_1d_kernel(
    p_values, p_shift, q_order, q_values, q_shift, strict, sign, thr, out
):  # pragma: no cover - compiled
    _thresholds(p_values, p_shift, q_order, q_values, q_shift, strict, thr)
    n_p = p_values.size
    for j in range(q_values.size):
        out[j] += sign * (n_p - thr[j])


@numba.njit(cache=True, nogil=True)
def _popcount(x):  # pragma: no cover - compiled
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True, nogil=True)
def _count_2d_kernel(
    px_order, px_values, px_shift, py_order, py_values, py_shift,
    qx_order, qx_values, qx_shift, qy_order, qy_values, qy_shift,
    strict, sign, out, turns, ry, tq,
):  # pragma: no cover - compiled  # fmt: skip
    """``out[q] += sign * #{points with x >= (>) x_q and y >= (>) y_q}`` (module notes, steps 2 and 3).

    ``turns`` (at least as many as the points and the queries) holds the points' y-ranks, then the
    queries' thresholds, then the counts in x order; ``ry``, ``tq``: the ranks and thresholds in x order.
    The random accesses run in loops of their own (independent loads overlap), the sweep on contiguous
    data."""
    n_p = px_values.size
    n_q = qx_values.size
    for j in range(n_p):
        turns[py_order[j]] = j  # y-rank of every point
    for j in range(n_p):
        ry[j] = turns[px_order[j]]  # in x order
    _thresholds(py_values, py_shift, qy_order, qy_values, qy_shift, strict, turns)
    for i in range(n_q):
        tq[i] = turns[qx_order[i]]  # thresholds of the queries, in x order
    words = (n_p + 63) >> 6
    bits = np.zeros(words + 1, dtype=np.uint64)
    fen = np.zeros(words + 1, dtype=np.int32)  # over reversed word indices: prefix sums = suffixes
    one = np.uint64(1)
    j = n_p - 1
    for i in range(n_q - 1, -1, -1):
        v = qx_values[i] + qx_shift
        while j >= 0 and (px_values[j] + px_shift > v or (not strict and px_values[j] + px_shift == v)):
            r = np.int64(ry[j])
            w = r >> 6
            bits[w] |= one << np.uint64(r & 63)
            k = words - w
            while k <= words:
                fen[k] += 1
                k += k & (-k)
            j -= 1
        c = 0
        t = np.int64(tq[i])
        if t < n_p:
            w0 = t >> 6
            c = _popcount(bits[w0] >> np.uint64(t & 63))
            k = words - w0 - 1  # the words after w0
            while k > 0:
                c += fen[k]
                k -= k & (-k)
        turns[i] = c
    for i in range(n_q):
        out[qx_order[i]] += sign * np.int64(turns[i])


#: Queries per block of the correction kernels: the block's values stay in cache while every removed
#: candidate is compared with them (one pass over memory, vectorisable inner loops).
_BLOCK = 1024


@numba.njit(cache=True, nogil=True)
def _removed_points(U, S, removed):  # pragma: no cover - compiled
    """``P(c) = U + S`` and ``Q(c) = U - S`` of the removed candidates, (R, m) each."""
    m = U.shape[0]
    R = removed.size
    Pc = np.empty((R, m))
    Qc = np.empty((R, m))
    for k in range(R):
        c = removed[k]
        for i in range(m):
            Pc[k, i] = U[i, c] + S[i, c]
            Qc[k, i] = U[i, c] - S[i, c]
    return Pc, Qc


@numba.njit(cache=True, nogil=True)
def _block_buffers(m):  # pragma: no cover - compiled
    """Scratch of :func:`_block_corrections` for one block of queries."""
    lo = np.empty((m, _BLOCK))
    hi = np.empty((m, _BLOCK))
    a = np.empty(_BLOCK, dtype=np.bool_)
    b = np.empty(_BLOCK, dtype=np.bool_)
    return lo, hi, a, b, np.empty(_BLOCK, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _block_corrections(U, S, Pc, Qc, idx, start, size, lo, hi, a, b, acc):  # pragma: no cover
    """``acc[j] = #{c : Q(c) > P(r)} - #{c : P(c) >= Q(r)}`` for ``r = idx[start + j]``, ``j < size``."""
    m = U.shape[0]
    for i in range(m):
        for j in range(size):
            r = idx[start + j]
            lo[i, j] = U[i, r] - S[i, r]
            hi[i, j] = U[i, r] + S[i, r]
    for j in range(size):
        acc[j] = 0
    for k in range(Pc.shape[0]):
        for j in range(size):
            a[j] = Pc[k, 0] >= lo[0, j]
            b[j] = Qc[k, 0] > hi[0, j]
        for i in range(1, m):
            for j in range(size):
                a[j] &= Pc[k, i] >= lo[i, j]
                b[j] &= Qc[k, i] > hi[i, j]
        for j in range(size):
            acc[j] += np.int64(b[j]) - np.int64(a[j])


@numba.njit(cache=True, nogil=True)
def removed_delta_correction(U, S, removed, idx, out):  # pragma: no cover - compiled
    """``out[j] += #{c in removed : Q(c) > P(r)} - #{c in removed : P(c) >= Q(r)}`` for ``r = idx[j]``.

    ``P = U + S``, ``Q = U - S`` ((m, n) columns), compared in every row: what the full counts of
    ``delta^PS`` lose when the ``removed`` candidates leave (:mod:`dpmo.pareto.state`). O(q |removed| m)
    time, in blocks of 1,024 queries (their values stay in cache while every removed candidate is compared
    with them).
    """
    m = U.shape[0]
    Pc, Qc = _removed_points(U, S, removed)
    lo, hi, a, b, acc = _block_buffers(m)
    for start in range(0, idx.size, _BLOCK):
        size = min(_BLOCK, idx.size - start)
        _block_corrections(U, S, Pc, Qc, idx, start, size, lo, hi, a, b, acc)
        for j in range(size):
            out[start + j] += acc[j]


def delta_from_counts(counts, U, S, removed, idx, cap: int) -> np.ndarray:
    """``min(counts[r] + correction(r), cap)`` as float64 for ``r`` in ``idx``, in one pass.

    ``counts`` holds the full counts of one distance for every candidate; the correction is that of
    :func:`removed_delta_correction`. The values are small integers, exact in float64. O(q |removed| m).
    """
    out = np.empty(idx.size)
    _delta_from_counts(counts, U, S, removed, idx, np.int64(cap), out)
    return out


def scores_from_counts(ps_all, U, removed, idx, dtype=np.int64) -> np.ndarray:
    """``ps_all[r] + #{c in removed : U(c) >= U(r) in every row}`` for ``r`` in ``idx``: the Pareto score
    among the candidates left, as ``dtype`` (int64, or float64: the same integers, exact below 2^53).
    O(q (|removed| + 1) m)."""
    if dtype not in (np.int64, np.float64):
        raise ValueError(f"dtype must be int64 or float64, got {dtype}")
    out = np.empty(idx.size, dtype=dtype)
    _scores_from_counts(ps_all, U, removed, idx, out)
    return out


@numba.njit(cache=True, nogil=True)
def _delta_from_counts(counts, U, S, removed, idx, cap, out):  # pragma: no cover - compiled
    m = U.shape[0]
    q = idx.size
    Pc, Qc = _removed_points(U, S, removed)
    lo, hi, a, b, acc = _block_buffers(m)
    for start in range(0, q, _BLOCK):
        size = min(_BLOCK, q - start)
        _block_corrections(U, S, Pc, Qc, idx, start, size, lo, hi, a, b, acc)
        for j in range(size):
            v = np.int64(counts[idx[start + j]]) + acc[j]
            out[start + j] = np.float64(min(v, cap))


@numba.njit(cache=True, nogil=True)
def _scores_from_counts(ps_all, U, removed, idx, out):  # pragma: no cover - compiled
    for j in range(idx.size):
        out[j] = ps_all[idx[j]]
    if removed.size:
        removed_dominating(U, removed, idx, out)


@numba.njit(cache=True, nogil=True)
def removed_dominating(U, removed, idx, out):  # pragma: no cover - compiled
    """``out[j] += #{c in removed : U(c) >= U(r) in every row}`` for ``r = idx[j]``. O(q |removed| m) time,
    blocks of 1,024 queries as in :func:`removed_delta_correction`."""
    m = U.shape[0]
    R = removed.size
    q = idx.size
    Uc = np.empty((R, m))
    for k in range(R):
        for i in range(m):
            Uc[k, i] = U[i, removed[k]]
    v = np.empty((m, _BLOCK))
    a = np.empty(_BLOCK, dtype=np.bool_)
    for start in range(0, q, _BLOCK):
        size = min(_BLOCK, q - start)
        for i in range(m):
            for j in range(size):
                v[i, j] = U[i, idx[start + j]]
        for k in range(R):
            for j in range(size):
                a[j] = Uc[k, 0] >= v[0, j]
            for i in range(1, m):
                for j in range(size):
                    a[j] &= Uc[k, i] >= v[i, j]
            for j in range(size):
                out[start + j] += np.int64(a[j])
