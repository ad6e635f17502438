"""CSR adjacency arrays of simple undirected graphs: building them from edge endpoints, listing their edges.

The construction step behind :class:`dpmo.graphs.Graph` (and :func:`dpmo.graphs.random_collaboration_graph`):
:func:`as_edge_array` checks an ``(E, 2)`` array of endpoints, :func:`relabel` maps the original ids to
``0 .. n-1``, :func:`csr_from_pairs` builds the symmetric CSR structure of the simple graph (self-loops
dropped, duplicate and reverse edges merged, rows sorted), :func:`csr_edges` lists its edges back and
:func:`unique_sorted` is the sorted-distinct helper they share; :func:`check_simple_csr` checks a
structure given from outside (:class:`dpmo.graphs.Graph`'s constructor). :func:`index_dtype` is the
integer type of the column indices: int32 while the node indices fit (``n < 2^31``), int64 beyond, so a
graph of 10^7 nodes and 3.3 x 10^7 edges holds 264 MB of indices instead of 528 MB. Pure functions over
numpy arrays (the passes over the edges are compiled numba loops); nothing here knows about node sets or
privacy.
"""

from __future__ import annotations

import numba
import numpy as np

from .._kernel_args import kernel_input

__all__ = [
    "as_edge_array",
    "relabel",
    "unique_sorted",
    "index_dtype",
    "csr_from_pairs",
    "csr_edges",
    "bounded_csr",
    "check_simple_csr",
]

_INSERTION_MAX = 32  # rows up to this length are sorted by insertion (linear on an already sorted row)


def as_edge_array(edges, name: str) -> np.ndarray:
    arr = np.asarray(edges)
    if arr.dtype.kind == "U" and arr.ndim == 2 and arr.shape[1] == 2:
        return arr  # text ids (read_edge_list(..., ids="str"))
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        if not isinstance(edges, np.ndarray) and _python_ints(edges):  # ids numpy could not hold as int64
            raise ValueError(f"{name} holds ids outside the int64 range (node ids must be int64 integers)")
        raise TypeError(f"{name} must be an array of integer node ids of shape (E, 2), got dtype {arr.dtype}")
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (E, 2), got {arr.shape}")
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids larger than the int64 range")
    return arr.astype(np.int64, copy=False)


def _python_ints(edges) -> bool:
    """Whether ``edges`` (a sequence, not an array) holds Python ints only (no bool): a list numpy turned
    into floats or objects because some id lies outside int64."""
    try:
        flat = np.asarray(edges, dtype=object).ravel()
    except (TypeError, ValueError):
        return False
    return flat.size > 0 and all(isinstance(v, int) and not isinstance(v, bool) for v in flat)


def relabel(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the edges in indices 0..n-1 (dense ids: O(E + range), else O(E log E))."""
    if edges.shape[0] == 0:
        return np.empty(0, dtype=np.int64), edges
    if edges.dtype.kind == "U":
        ids, inv = np.unique(edges, return_inverse=True)
        return ids, inv.reshape(edges.shape).astype(np.int64)
    lo = int(edges.min())
    hi = int(edges.max())
    span = hi - lo + 1
    if span <= 4 * edges.size + 1024:
        present = np.zeros(span, dtype=np.bool_)
        present[(edges - lo).ravel()] = True
        ids = np.flatnonzero(present).astype(np.int64) + lo
        position = np.cumsum(present, dtype=np.int64) - 1
        return ids, position[edges - lo]
    ids = unique_sorted(edges.ravel())
    return ids, np.searchsorted(ids, edges).astype(np.int64, copy=False)


def unique_sorted(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a comparison: faster than ``np.unique``'s hash path here)."""
    s = np.sort(x)
    if s.size == 0:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def index_dtype(n: int) -> type:
    """The dtype of the column indices of a graph on ``n`` nodes: int32 for ``n < 2^31``, else int64.

    Examples
    --------
    >>> from dpmo.graphs.csr import index_dtype
    >>> index_dtype(10**7).__name__, index_dtype(2**31).__name__
    ('int32', 'int64')
    """
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


@numba.njit(cache=True, nogil=True)
def _row_starts(u, v, starts):  # pragma: no cover - compiled
    """Start of every row in the CSR of the pairs (self-loops skipped, repeats counted) into ``starts``
    (n + 1 zeros)."""
    n = starts.shape[0] - 1
    for i in range(u.shape[0]):
        a = u[i]
        b = v[i]
        if a != b:
            starts[a] += 1
            starts[b] += 1
    total = 0
    for r in range(n + 1):  # exclusive prefix sums, in place
        c = starts[r]
        starts[r] = total
        total += c


@numba.njit(cache=True, nogil=True)
def _scatter(u, v, indptr, out):  # pragma: no cover - compiled
    """Both directions of every pair into its row of ``out`` (in pair order); ``indptr`` as built by
    :func:`_row_starts`, used as the rows' cursors and restored."""
    n = indptr.shape[0] - 1
    for i in range(u.shape[0]):
        a = u[i]
        b = v[i]
        if a != b:
            out[indptr[a]] = b
            indptr[a] += 1
            out[indptr[b]] = a
            indptr[b] += 1
    for r in range(n, 0, -1):  # every cursor now points at the end of its row: shift back to the starts
        indptr[r] = indptr[r - 1]
    indptr[0] = 0


@numba.njit(cache=True, nogil=True)
def _sort_merge_rows(indptr, out):  # pragma: no cover - compiled
    """Sort every row, merge repeated entries and pack the rows to the front of ``out``, in place; returns
    the number of entries kept (``indptr`` is updated to the packed rows)."""
    n = indptr.shape[0] - 1
    write = 0
    start = indptr[0]
    for r in range(n):
        stop = indptr[r + 1]
        if stop - start > _INSERTION_MAX:
            out[start:stop].sort()
        else:
            for j in range(start + 1, stop):
                x = out[j]
                i = j - 1
                while i >= start and out[i] > x:
                    out[i + 1] = out[i]
                    i -= 1
                out[i + 1] = x
        for j in range(start, stop):
            x = out[j]
            if j == start or x != out[j - 1]:
                out[write] = x
                write += 1
        indptr[r + 1] = write
        start = stop
    return write


def csr_from_pairs(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (sorted rows) of the simple graph with edges {u_i, v_i} over nodes 0..n-1.

    ``u`` and ``v`` are integer arrays of equal length with values in ``0 .. n-1`` (strided views, such as
    the two columns of an ``(E, 2)`` array, are read in place). Returns ``indptr`` (int64, shape (n + 1,))
    and ``indices`` (:func:`index_dtype` of ``n``): a counting sort of both directions of every pair by
    row, then a sort of each row (insertion, linear on the rows that come out sorted, as they do when the
    pairs are sorted) and the merge of repeated entries. O(n + E + sum of d log d over rows longer than 32)
    time; memory: the two outputs (one array of 2E indices, shrunk when pairs repeat) and nothing else of
    size E.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.csr import csr_from_pairs
    >>> indptr, indices = csr_from_pairs(np.array([2, 0, 1, 1]), np.array([0, 1, 0, 1]), 3)
    >>> indptr.tolist(), indices.tolist()  # the self-loop (1, 1) dropped, (0, 1) and (1, 0) merged
    ([0, 2, 3, 4], [1, 2, 0, 0])
    """
    u = np.asarray(u)
    v = np.asarray(v)
    if u.shape != v.shape or u.ndim != 1:
        raise ValueError("u and v must be 1-D arrays of the same length")
    n = int(n)
    if u.size:
        lo = min(int(u.min()), int(v.min()))
        hi = max(int(u.max()), int(v.max()))
        if lo < 0 or hi >= n:
            raise ValueError(f"pair endpoints must lie in 0..{n - 1}, got {lo if lo < 0 else hi}")
    else:
        u = v = np.empty(0, dtype=np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)  # allocated by numpy (huge pages), filled by compiled loops
    _row_starts(u, v, indptr)
    out = np.empty(int(indptr[n]), dtype=index_dtype(n))
    _scatter(u, v, indptr, out)
    nnz = _sort_merge_rows(indptr, out)
    return indptr, (out if nnz == out.size else out[:nnz].copy())


@numba.njit(cache=True, nogil=True)
def _upper_pairs(indptr, indices, out):  # pragma: no cover - compiled
    k = 0
    for r in range(indptr.shape[0] - 1):
        for j in range(indptr[r], indptr[r + 1]):
            c = indices[j]
            if c > r:
                if k < out.shape[0]:  # never past the end, even on a structure that is not symmetric
                    out[k, 0] = r
                    out[k, 1] = c
                k += 1
    return k


def csr_edges(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The edges of a symmetric CSR structure (no self-loops) as an ``(E, 2)`` int64 array of ``u < v``,
    sorted. O(n + E) time, no memory beyond the output.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.csr import csr_edges, csr_from_pairs
    >>> csr_edges(*csr_from_pairs(np.array([2, 0]), np.array([0, 1]), 3)).tolist()
    [[0, 1], [0, 2]]
    """
    out = np.empty((indices.shape[0] // 2, 2), dtype=np.int64)
    # read-only C views whatever the caller's flags: one compiled signature
    k = _upper_pairs(kernel_input(indptr, np.int64), kernel_input(indices, indices.dtype), out)
    if k != out.shape[0]:
        raise ValueError(_NOT_SIMPLE)
    return out


@numba.njit(cache=True, nogil=True)
def _simple_csr_fault(indptr, indices, cursor):  # pragma: no cover - compiled
    """0 when ``indptr``/``indices`` (indices already in ``0 .. n-1``) is the CSR of a simple undirected
    graph with sorted rows; else 1 (a row not strictly increasing: unsorted or a repeated entry), 2 (a
    self-loop) or 3 (not symmetric). ``cursor``: a copy of ``indptr[:-1]``, consumed.

    Rows are visited in increasing order, so the entries ``r`` that the rows ``r`` put in row ``c`` arrive
    in increasing order too: each must be the next unconsumed entry of row ``c``, and every entry must be
    consumed at the end. One pass, O(n + E)."""
    n = indptr.shape[0] - 1
    for r in range(n):
        start = indptr[r]
        stop = indptr[r + 1]
        for j in range(start, stop):
            c = indices[j]
            if j > start and c <= indices[j - 1]:
                return 1
            if c == r:
                return 2
            k = cursor[c]
            if k >= indptr[c + 1] or indices[k] != r:
                return 3
            cursor[c] = k + 1
    return 0


_NOT_SIMPLE = "indptr, indices is not the CSR structure of a simple undirected graph"
_FAULTS = {
    1: "a row of indices is not strictly increasing (rows must be sorted, without repeated entries)",
    2: "it holds a self-loop (an entry i in row i)",
    3: "it is not symmetric (an entry j in row i without the entry i in row j)",
}


def bounded_csr(indptr, indices, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` as int64 and :func:`index_dtype` arrays, after checking what the kernels need
    never to read out of bounds: both 1-D, ``indptr`` of ``n + 1`` integers rising from 0 to
    ``len(indices)``, every index in ``0 .. n-1`` (``ValueError`` otherwise). Symmetry is not checked
    (:func:`check_simple_csr`). O(n + E) vectorised."""
    if np.asarray(indptr).dtype.kind not in "iu":
        raise ValueError(f"{_NOT_SIMPLE}: indptr must be an array of integers (row offsets into indices)")
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    if indptr.ndim != 1 or indices.ndim != 1 or indptr.shape[0] != n + 1:
        raise ValueError(f"{_NOT_SIMPLE}: indptr must have len(ids) + 1 entries, indices must be 1-D")
    if indices.size and (indices.dtype.kind not in "iu" or indices.min() < 0 or indices.max() >= n):
        raise ValueError(
            f"{_NOT_SIMPLE}: indices must be integers in 0..{n - 1} (the positions of the nodes in ids)"
        )
    if indptr[0] != 0 or indptr[-1] != indices.shape[0] or np.any(indptr[1:] < indptr[:-1]):
        raise ValueError(f"{_NOT_SIMPLE}: indptr must rise from 0 to len(indices) and never decrease")
    return indptr, np.ascontiguousarray(indices, dtype=index_dtype(n))


def check_simple_csr(indptr, indices, n: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bounded_csr`, then refuse (``ValueError``) a structure that is not the CSR of a simple
    undirected graph on ``n`` nodes as :func:`csr_from_pairs` builds it: every row strictly increasing
    (sorted, no repeated entry), no self-loop, symmetric. Returns the arrays of :func:`bounded_csr`. The
    message says which rule fails, never where (the structure is a private graph). O(n + E) time (one
    compiled pass), O(n) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.csr import check_simple_csr
    >>> _ = check_simple_csr(np.array([0, 1, 2]), np.array([1, 0]), 2)  # the edge {0, 1}
    >>> try:
    ...     check_simple_csr(np.array([0, 1, 1]), np.array([1]), 2)  # the entry (0, 1) without (1, 0)
    ... except ValueError as exc:
    ...     print(str(exc).split(": ")[1])
    it is not symmetric (an entry j in row i without the entry i in row j)
    """
    indptr, indices = bounded_csr(indptr, indices, n)
    # read-only C views whatever the caller's flags: one compiled signature
    fault = _simple_csr_fault(
        kernel_input(indptr, np.int64), kernel_input(indices, indices.dtype), indptr[:-1].copy()
    )
    if fault:
        raise ValueError(f"{_NOT_SIMPLE}: {_FAULTS[fault]}")
    return indptr, indices
