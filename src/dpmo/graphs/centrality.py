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
def _triangles_forward(indptr, indices, n):  # pragma: no cover - compiled
    """Per-node triangle counts by the forward algorithm over out-lists (higher rank only)."""
    tri = np.zeros(n, np.int64)
    mark = np.zeros(n, np.bool_)
    for u in range(n):
        start = indptr[u]
        stop = indptr[u + 1]
        for j in range(start, stop):
            mark[indices[j]] = True
        for j in range(start, stop):
            v = indices[j]
            for ell in range(indptr[v], indptr[v + 1]):
                w = indices[ell]
                if mark[w]:
                    tri[u] += 1
                    tri[v] += 1
                    tri[w] += 1
        for j in range(start, stop):
            mark[indices[j]] = False
    return tri


def csr_triangles(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``T(v)`` per node from the symmetric CSR structure (int64, shape (n,), read-only).

    The algorithm and its cost are described in :func:`dpmo.graphs.triangles`.
    """
    n = indptr.shape[0] - 1
    deg = np.diff(indptr)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), deg))] = np.arange(n, dtype=np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    keep = rank[rows] < rank[indices]
    out_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=out_indptr[1:])
    out_indices = np.ascontiguousarray(indices[keep])
    tri = _triangles_forward(out_indptr, out_indices, n)
    tri.setflags(write=False)
    return tri


def csr_ego_density(indptr: np.ndarray, triangles: np.ndarray, low: float, formula: str) -> np.ndarray:
    """Ego density of every node from the CSR row pointers and ``T(v)`` (float64, shape (n,), read-only).

    ``low`` and ``formula`` as returned by :func:`check_convention`; see :func:`dpmo.graphs.ego_density`.
    O(n).
    """
    return ego_density_from_counts(np.diff(indptr), triangles, low, formula)


def ego_density_from_counts(degree, triangles, low: float, formula: str) -> np.ndarray:
    """Ego density from the degrees and the counts ``T(v)`` (float64, read-only): the one formula.

    ``factor * T / (d (d - 1))`` for ``d >= 2`` (``factor`` 2 for ``"paper"``, 1 for ``"published"``),
    ``low`` below. Every path that computes ego density (the in-memory graphs and
    :mod:`dpmo.graphs.spark`, which calls it on each partition) goes through here, so they give the same
    floats. ``low`` and ``formula`` as returned by :func:`check_convention`. O(n).

    Examples
    --------
    >>> from dpmo.graphs.centrality import ego_density_from_counts
    >>> ego_density_from_counts([0, 1, 3, 4], [0, 0, 2, 3], 0.0, "paper").tolist()  # 2 T / (d (d - 1))
    [0.0, 0.0, 0.6666666666666666, 0.5]
    """
    d = np.asarray(degree).astype(np.float64)
    tri = np.asarray(triangles).astype(np.float64)
    pairs = d * (d - 1.0)
    factor = 2.0 if formula == "paper" else 1.0
    out = np.full(d.shape, low)
    ok = d >= 2
    out[ok] = factor * tri[ok] / pairs[ok]
    out.setflags(write=False)
    return out
