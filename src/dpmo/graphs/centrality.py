"""Kernels of the node utilities of DP-MOTkIN on CSR arrays: degree, triangle counts, ego density.

The computations behind :func:`dpmo.graphs.degree`, :func:`dpmo.graphs.triangles` and
:func:`dpmo.graphs.ego_density` (and the cached ``Graph.degree``, ``Graph.triangles`` and
``Graph.ego_density()``), on the symmetric CSR structure ``indptr, indices`` of a simple undirected graph
(the paper's section "Problem statement"; the definitions and conventions are in
:mod:`dpmo.graphs.utilities`). Also the ego-density conventions themselves: :data:`FORMULAS` and
:func:`check_convention`, shared by every function that takes ``low_degree`` and ``formula``.
"""

from __future__ import annotations

import numba
import numpy as np

from .._kernel_args import kernel_input
from .._prefetch import prefetch
from .._validation import check_real

__all__ = [
    "FORMULAS",
    "check_convention",
    "csr_degree",
    "csr_triangles",
    "csr_ego_density",
    "ego_density_from_counts",
]

#: Accepted values of ``formula``: the paper's ``2T/(d(d-1))`` and the published code's ``T/(d(d-1))``.
FORMULAS = ("paper", "published")


def check_convention(low_degree, formula) -> tuple[float, str]:
    low = check_real(low_degree, "low_degree")
    if not 0.0 <= low <= 1.0:
        raise ValueError(
            f"low_degree must lie in [0, 1] (ego density's range, which keeps its global sensitivity 1), "
            f"got {low_degree!r}"
        )
    if not isinstance(formula, str) or formula not in FORMULAS:
        raise ValueError(f"formula must be one of {list(FORMULAS)}, got {formula!r}")
    return low, formula


def csr_degree(indptr: np.ndarray) -> np.ndarray:
    """Degree of every node from the CSR row pointers (int64, shape (n,), read-only). O(n)."""
    out = np.diff(indptr)
    out.setflags(write=False)
    return out


@numba.njit(cache=True, nogil=True)
def _degree_ranks(indptr, top, rank):  # pragma: no cover - compiled
    """Rank of every node in the order of (degree, index) into ``rank``: a stable counting sort by degree
    (``top``: the largest degree), O(n)."""
    n = indptr.shape[0] - 1
    first = np.zeros(top + 2, np.int64)
    for u in range(n):
        first[indptr[u + 1] - indptr[u] + 1] += 1
    for d in range(1, top + 2):
        first[d] += first[d - 1]
    for u in range(n):
        d = indptr[u + 1] - indptr[u]
        rank[u] = first[d]
        first[d] += 1


# Software prefetch (dpmo._prefetch; hints, no effect on any value): the forward count asks for the records
# of the next _AHEAD nodes' out-neighbours (10^7 nodes: 4.9 -> 2.7 s; 10^6: 0.24 -> 0.13 s), the two passes
# that build the records for the neighbour _DISTANCE edges ahead (10^7: 1.8 -> 1.0 s; 10^6: unchanged).
_AHEAD = 2
_DISTANCE = 32
_CAP = 255  # degrees are compared as uint8 below this (n bytes, which stay in cache)


@numba.njit(cache=True, nogil=True)
def _record_ends(indptr, indices, rank, size):  # pragma: no cover - compiled
    """``size[r + 1]``: the end of the record of the node of rank ``r`` (see :func:`_fill_records`), from
    the out-degrees of the edges oriented to the higher rank (``size`` of n + 1 zeros)."""
    n = indptr.shape[0] - 1
    m2 = indices.shape[0]
    capped = np.empty(n, np.uint8)  # min(degree, _CAP): decides most comparisons from n bytes
    for u in range(n):
        capped[u] = min(indptr[u + 1] - indptr[u], _CAP)
    for u in range(n):
        cu = capped[u]
        du = indptr[u + 1] - indptr[u]
        c = 0
        for j in range(indptr[u], indptr[u + 1]):
            if j + _DISTANCE < m2:  # the neighbour read _DISTANCE edges later (a hint only)
                prefetch(capped, indices[j + _DISTANCE])
            w = indices[j]
            cw = capped[w]
            if cw == _CAP and cu == _CAP:  # two large degrees (rare): compare them exactly
                dw = indptr[w + 1] - indptr[w]
                c += (dw > du) | ((dw == du) & (w > u))
            else:
                c += (cw > cu) | ((cw == cu) & (w > u))
        size[rank[u] + 1] = 2 + c
    for r in range(n):
        size[r + 1] += size[r]


@numba.njit(cache=True, nogil=True)
def _fill_records(indptr, indices, rank, size, at, rec):  # pragma: no cover - compiled
    """The edges oriented to the higher rank as one array of records, in rank order: the record of node
    ``u`` starts at ``at[u]`` and holds ``[T, length, at[w] for the out-neighbours w]``, with ``T = 0``
    (a slot for the count). An out-neighbour is named by the offset of its own record, so the forward
    count reaches it in one memory access; and ``at`` grows with the rank, so it orients the edges too.
    ``rec`` has ``size[n] + 1`` slots (one spare at the end)."""
    n = at.shape[0]
    m2 = indices.shape[0]
    for u in range(n):
        at[u] = size[rank[u]]
    for u in range(n):
        au = at[u]
        k = au + 2
        for j in range(indptr[u], indptr[u + 1]):  # branch-free: a write past the record lands on the
            if j + _DISTANCE < m2:  # next record's first slot (or the spare one), reset below
                prefetch(at, indices[j + _DISTANCE])  # the offset read _DISTANCE edges later (a hint)
            aw = at[indices[j]]
            rec[k] = aw
            k += aw > au
        rec[au + 1] = k - au - 2
    p = 0
    while p < size[n]:
        rec[p] = 0
        p += 2 + rec[p + 1]


@numba.njit(cache=True, nogil=True)
def _triangles_forward(at, rec, mark, tri):  # pragma: no cover - compiled
    """Per-node triangle counts into ``tri`` by the forward algorithm over the records of
    :func:`_fill_records` (the out-neighbours of the current node marked in ``mark``, a zeroed bitset over
    record offsets halved: records are at least two slots apart, so ``offset >> 1`` names one and the
    bitset, read at every step, is half as large; at 10^7 nodes 3.2 MB, the count 5-8 % faster), counted
    into the records' first slots and read back in node order."""
    n = at.shape[0]
    one = np.uint64(1)
    last = rec.shape[0] - 1
    p = 0
    while p < last:  # the records in rank order (and the spare slot)
        a = p + 2
        b = a + rec[p + 1]
        # the records this loop reads are one random access each: ask for those of the next two nodes'
        # out-neighbours now, so that their cache misses overlap with this node's work (a hint only)
        r = b
        for _ in range(_AHEAD):
            if r >= last:
                break
            for j in range(r + 2, r + 2 + rec[r + 1]):
                prefetch(rec, rec[j])
            r += 2 + rec[r + 1]
        for j in range(a, b):
            h = rec[j] >> 1  # records are >= 2 slots apart: offset / 2 names one (a bitset half as large)
            mark[h >> 6] |= one << np.uint64(h & 63)
        total = 0
        for j in range(a, b):
            q = rec[j]
            found = 0
            for ell in range(q + 2, q + 2 + rec[q + 1]):
                w = rec[ell]
                h = w >> 1
                if (mark[h >> 6] >> np.uint64(h & 63)) & one:
                    found += 1
                    rec[w] += 1
            rec[q] += found
            total += found
        rec[p] += total
        for j in range(a, b):
            mark[(rec[j] >> 1) >> 6] = 0
        p = b
    for u in range(n):
        tri[u] = rec[at[u]]


def csr_triangles(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``T(v)`` per node from the symmetric CSR structure (int64, shape (n,), read-only).

    The algorithm and its cost are described in :func:`dpmo.graphs.triangles`. Three compiled passes: the
    ranks by (degree, index) (a counting sort, O(n)); the edges oriented to the higher rank, stored as one
    record per node in rank order (``[count, length, offsets of the out-neighbours' records]``, O(n + m):
    the high-degree nodes, which most out-lists point to, sit together, and an out-neighbour's list is one
    memory access away); the forward count over them (O(m sqrt(m))). Memory: the records, ``2 n + m``
    int32 (int64 when that or a possible count ``d (d - 1) / 2`` passes 2^31 - 1), and O(n) words.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.centrality import csr_triangles
    >>> from dpmo.graphs.csr import csr_from_pairs
    >>> csr_triangles(*csr_from_pairs(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3]), 4)).tolist()
    [1, 1, 1, 0]
    """
    # read-only C views (the graph's own arrays are frozen, a caller's may not be): one compiled signature
    indptr, indices = kernel_input(indptr, np.int64), kernel_input(indices, indices.dtype)
    n = indptr.shape[0] - 1
    top = int(np.max(indptr[1:] - indptr[:-1], initial=0))
    m = int(indptr[-1]) // 2
    big = max(2 * n + m + 1, min(top * (top - 1) // 2, m))  # record offsets; counts T(v) <= d(d-1)/2, m
    dtype = np.int32 if big <= np.iinfo(np.int32).max else np.int64
    # The arrays are allocated by numpy, which asks the kernel for huge pages (fewer TLB misses in the
    # random accesses); the compiled passes fill them.
    rank = np.empty(n, dtype)
    _degree_ranks(indptr, top, rank)
    size = np.zeros(n + 1, np.int64)
    _record_ends(indptr, indices, rank, size)
    at = np.empty(n, dtype)
    rec = np.empty(int(size[n]) + 1, dtype)
    _fill_records(indptr, indices, rank, size, at, rec)
    del rank, size
    tri = np.empty(n, np.int64)
    _triangles_forward(at, rec, np.zeros((rec.shape[0] >> 7) + 1, np.uint64), tri)
    tri.setflags(write=False)
    return tri


def csr_ego_density(indptr: np.ndarray, triangles: np.ndarray, low: float, formula: str) -> np.ndarray:
    """Ego density of every node from the CSR row pointers and ``T(v)`` (float64, shape (n,), read-only).

    ``low`` and ``formula`` as returned by :func:`check_convention`; see :func:`dpmo.graphs.ego_density`.
    O(n).
    """
    return ego_density_from_counts(np.diff(indptr), triangles, low, formula)


def ego_density_from_counts(degree, triangles, low: float, formula: str, out=None) -> np.ndarray:
    """Ego density from the degrees and the counts ``T(v)`` (float64, read-only): the one formula.

    ``factor * T / (d (d - 1))`` for ``d >= 2`` (``factor`` 2 for ``"paper"``, 1 for ``"published"``),
    ``low`` below; written into ``out`` (float64, the degrees' shape) when given. Every path that computes
    ego density (the in-memory graphs and :mod:`dpmo.graphs.spark`, which calls it on each partition) goes
    through here, so they give the same floats. ``low`` and ``formula`` as returned by
    :func:`check_convention`. O(n).

    Examples
    --------
    >>> from dpmo.graphs.centrality import ego_density_from_counts
    >>> ego_density_from_counts([0, 1, 3, 4], [0, 0, 2, 3], 0.0, "paper").tolist()  # 2 T / (d (d - 1))
    [0.0, 0.0, 0.6666666666666666, 0.5]
    """
    d = np.asarray(degree)
    tri = np.asarray(triangles)
    factor = 2.0 if formula == "paper" else 1.0
    if out is not None and (out.shape != d.shape or out.dtype != np.float64):
        raise ValueError(f"out must be float64 of shape {d.shape}")
    if d.ndim == 1 and d.shape == tri.shape and d.dtype.kind in "iu" and tri.dtype.kind in "iu":
        if out is None:
            out = np.empty(d.size)  # one compiled pass, no temporaries of n floats (the same floats as below)
        _ego_density_kernel(_int64(d), _int64(tri), float(low), factor, out)
    else:
        d = d.astype(np.float64)
        tri = tri.astype(np.float64)
        pairs = d * (d - 1.0)
        res = np.full(d.shape, low)
        ok = d >= 2
        res[ok] = factor * tri[ok] / pairs[ok]
        if out is None:
            out = res
        else:
            out[...] = res
    out.setflags(write=False)
    return out


def _int64(a: np.ndarray) -> np.ndarray:
    """Integer counts as a read-only int64 view (a copy for narrower types, exact): one compiled signature
    (the kernels convert every count to float64, and an int64 holds every count exactly)."""
    return kernel_input(a, np.int64) if a.dtype.kind == "i" or a.dtype.itemsize < 8 else a


@numba.njit(cache=True, nogil=True)
def _ego_density_kernel(degree, triangles, low, factor, out):  # pragma: no cover - compiled
    """``out[v] = factor * T(v) / (d (d - 1))`` for ``d >= 2``, else ``low``, in float64 as numpy does it."""
    for v in range(degree.size):
        d = np.float64(degree[v])
        if d >= 2.0:
            out[v] = factor * np.float64(triangles[v]) / (d * (d - 1.0))
        else:
            out[v] = low
