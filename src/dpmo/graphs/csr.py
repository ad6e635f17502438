"""CSR adjacency arrays of simple undirected graphs: building them from edge endpoints.

The construction step behind :class:`dpmo.graphs.Graph` (and :func:`dpmo.graphs.random_collaboration_graph`):
:func:`as_edge_array` checks an ``(E, 2)`` array of endpoints, :func:`relabel` maps the original ids to
``0 .. n-1``, :func:`csr_from_pairs` builds the symmetric CSR structure of the simple graph (self-loops
dropped, duplicate and reverse edges merged, rows sorted) and :func:`unique_sorted` is the sorted-distinct
helper they share. Pure functions over numpy arrays; nothing here knows about node sets or privacy.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["as_edge_array", "relabel", "unique_sorted", "csr_from_pairs"]


def as_edge_array(edges, name: str) -> np.ndarray:
    arr = np.asarray(edges)
    if arr.dtype.kind == "U" and arr.ndim == 2 and arr.shape[1] == 2:
        return arr  # text ids (read_edge_list(..., ids="str"))
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise TypeError(f"{name} must be an array of integer node ids of shape (E, 2), got dtype {arr.dtype}")
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (E, 2), got {arr.shape}")
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids larger than the int64 range")
    return arr.astype(np.int64, copy=False)


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


def csr_from_pairs(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (sorted rows) of the simple graph with edges {u_i, v_i} over nodes 0..n-1."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    a = np.minimum(u[keep], v[keep])
    b = np.maximum(u[keep], v[keep])
    codes = unique_sorted(a * np.int64(n) + b)  # sorted by (a, b), duplicates merged
    a = codes // n
    b = codes - a * n
    # Entries (b, a) come first (for a fixed row b their columns a < b are increasing), then (a, b)
    # (columns b > a increasing); scipy's COO -> CSR conversion is a stable counting sort by row (O(nnz)),
    # so every row comes out sorted.
    rows = np.concatenate([b, a])
    cols = np.concatenate([a, b])
    csr = sp.coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n)).tocsr()
    indptr = csr.indptr.astype(np.int64, copy=False)
    indices = csr.indices.astype(np.int64, copy=False)
    return indptr, indices
