"""The per-partition steps of the Spark triangle count: numpy arrays in, numpy arrays out, compiled loops.

:func:`dpmo.graphs.spark.node_statistics` hash-partitions its rows by node three times; each time one
function here runs on every partition (inside ``mapInArrow``), on all of that partition's rows at once:

1. :func:`announce_degrees` (rows ``(x, y)``: both directions of every edge, partitioned by ``x``): merge
   duplicates, drop self-loops, count ``d(x)``, and send every neighbour ``y`` the row ``(y, x, d(x))``;
   a node with self-loops only sends itself ``(x, x, 0)`` so that it keeps its row (degree 0).
2. :func:`out_neighbours` (rows ``(y, x, d(x))`` partitioned by ``y``: the neighbours of ``y`` with
   their degrees, so ``d(y)`` is their number): orient every edge from the lower to the higher
   ``(degree, id)``, keep the out-neighbours ``N+(y)`` (at most ``sqrt(2 m)`` of them, since each has a
   degree at least ``d(y)``), and send (a) ``N+(y)`` sorted by id, with ``d(y)``, to ``y`` itself and
   (b) to every out-neighbour ``a``, the out-neighbours of ``y`` ranked above ``a``: the wedges
   ``y -> a, y -> b`` with ``a`` below ``b``, ``d+(y) (d+(y) - 1) / 2`` ids in ``d+(y) - 1`` rows.
3. :func:`close_wedges` (the rows of step 2 partitioned by their target ``a``): a wedge ``(y; a, b)`` is
   a triangle exactly when ``b`` is in ``N+(a)`` (a binary search in the sorted list); every triangle is
   found once, from its lowest corner ``y`` (Chiba and Nishizeki 1985; Latapy 2008), and counted for its
   three corners. Out: ``(node, degree, triangles)`` rows, the node's own row with its degree and partial
   counts (degree -1) for the corners held by other partitions, summed by Spark.

Every step is linear in its rows after one sort (of 64-bit keys packed from two ids when their ranges
allow, else a lexicographic sort); the wedges are ``W = sum_y d+(y) (d+(y) - 1) / 2 <= m sqrt(2 m) / 2``.
The functions know nothing of Spark and are tested against :func:`dpmo.graphs.triangles` by running the
three steps on hand-made partitions.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["announce_degrees", "argsort_ids", "out_neighbours", "close_wedges", "sorted_pairs"]

_I64 = np.int64


def sorted_pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pairs ``(x, y)``, sorted by ``x`` then ``y``. O(r log r).

    The two ids are packed into one 64-bit key when ``x`` spans less than 2^31 values and ``y`` less than
    2^32 (one integer sort); otherwise a lexicographic sort.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.kernels import sorted_pairs
    >>> a, b = sorted_pairs(np.array([3, 1, 3, 1]), np.array([0, 2, 0, 1]))
    >>> a.tolist(), b.tolist()
    ([1, 1, 3], [1, 2, 0])
    """
    x = np.asarray(x, dtype=_I64)
    y = np.asarray(y, dtype=_I64)
    if x.size == 0:
        return x, y
    x0, y0 = int(x.min()), int(y.min())
    if int(x.max()) - x0 < 2**31 and int(y.max()) - y0 < 2**32:
        key = np.sort(((x - x0) << 32) | (y - y0))
        keep = np.ones(key.size, dtype=np.bool_)
        np.not_equal(key[1:], key[:-1], out=keep[1:])
        key = key[keep]
        return (key >> 32) + x0, (key & 0xFFFFFFFF) + y0
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.ones(x.size, dtype=np.bool_)
    keep[1:] = (x[1:] != x[:-1]) | (y[1:] != y[:-1])
    return x[keep], y[keep]


def announce_degrees(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 1: ``(dst, src, dsrc)`` rows telling every neighbour ``y`` of ``x`` the degree ``d(x)``.

    ``x, y`` hold both directions of every edge, all rows of each ``x`` in this call (self-loops,
    duplicates allowed). O(r log r).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.kernels import announce_degrees
    >>> dst, src, dsrc = announce_degrees(np.array([0, 0, 0, 5]), np.array([1, 2, 1, 5]))
    >>> list(zip(dst.tolist(), src.tolist(), dsrc.tolist()))  # 0 has degree 2; 5 only a self-loop
    [(1, 0, 2), (2, 0, 2), (5, 5, 0)]
    """
    x, y = sorted_pairs(x, y)
    if x.size == 0:
        return x, y, x.copy()
    starts = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
    real = x != y
    deg = np.add.reduceat(real.astype(_I64), starts)
    per_row = np.repeat(deg, np.diff(np.r_[starts, x.size]))
    emit = real | (per_row == 0)  # the self-loop row of a node with self-loops only is its marker
    return y[emit], x[emit], per_row[emit]


@numba.njit(cache=True, nogil=True)
def _sort_pairs(first, second, k):  # pragma: no cover - compiled
    """Sort ``first[:k]`` ascending, ``second`` along, stably (equal values keep their order): insertion
    sort when short, merge sort otherwise."""
    if k > 24:
        o = np.argsort(first[:k], kind="mergesort")
        f = first[:k][o]
        g = second[:k][o]
        first[:k] = f
        second[:k] = g
        return
    for i in range(1, k):
        x, y = first[i], second[i]
        j = i - 1
        while j >= 0 and first[j] > x:
            first[j + 1] = first[j]
            second[j + 1] = second[j]
            j -= 1
        first[j + 1] = x
        second[j + 1] = y


@numba.njit(cache=True, nogil=True)
def _orient(dst, src, dsrc, starts):  # pragma: no cover - compiled
    """Per group (one ``y``): its degree, and its out-neighbours in id order and in rank order."""
    groups = starts.size - 1
    degree = np.zeros(groups, dtype=np.int64)
    out_start = np.zeros(groups + 1, dtype=np.int64)
    keep = np.zeros(dst.size, dtype=np.bool_)
    longest = 0
    for g in range(groups):
        y = dst[starts[g]]
        d = 0
        for i in range(starts[g], starts[g + 1]):
            if src[i] != y:
                d += 1
        degree[g] = d
        c = 0
        for i in range(starts[g], starts[g + 1]):
            x = src[i]
            if x != y and (dsrc[i] > d or (dsrc[i] == d and x > y)):
                keep[i] = True
                c += 1
        out_start[g + 1] = out_start[g] + c
        longest = max(longest, c)
    by_id = np.empty(out_start[groups], dtype=np.int64)
    by_rank = np.empty(out_start[groups], dtype=np.int64)
    ids = np.empty(longest, dtype=np.int64)  # scratch, reused by every group
    degs = np.empty(longest, dtype=np.int64)
    wedge_rows = 0
    wedge_ids = 0
    for g in range(groups):
        lo = out_start[g]
        k = out_start[g + 1] - lo
        if k == 0:
            continue
        j = 0
        for i in range(starts[g], starts[g + 1]):
            if keep[i]:
                ids[j] = src[i]
                degs[j] = dsrc[i]
                j += 1
        _sort_pairs(ids, degs, k)  # by id
        for j in range(k):
            by_id[lo + j] = ids[j]
        if k > 1:
            _sort_pairs(degs, ids, k)  # rank (degree, id): the id-ordered list, stably by degree
            wedge_rows += k - 1
            wedge_ids += k * (k - 1) // 2
        for j in range(k):
            by_rank[lo + j] = ids[j]
    return degree, out_start, by_id, by_rank, wedge_rows, wedge_ids


@numba.njit(cache=True, nogil=True)
def _wedge_rows(nodes, out_start, by_rank, rows, ids):  # pragma: no cover - compiled
    """The wedge rows of every node: target ``a``, origin ``y``, offsets into ``ids`` (ids above ``a``)."""
    key = np.empty(rows, dtype=np.int64)
    origin = np.empty(rows, dtype=np.int64)
    offsets = np.empty(rows + 1, dtype=np.int64)
    values = np.empty(ids, dtype=np.int64)
    r = 0
    v = 0
    offsets[0] = 0
    for g in range(nodes.size):
        lo, hi = out_start[g], out_start[g + 1]
        for a in range(lo, hi - 1):
            key[r] = by_rank[a]
            origin[r] = nodes[g]
            for b in range(a + 1, hi):
                values[v] = by_rank[b]
                v += 1
            r += 1
            offsets[r] = v
    return key, origin, offsets, values


def out_neighbours(dst: np.ndarray, src: np.ndarray, dsrc: np.ndarray):
    """Step 2: the adjacency rows and the wedge rows of the nodes ``dst`` (all their rows in this call).

    Returns
    -------
    (key, origin, degree, offsets, values)
        One row per node ``y`` (``key = origin = y``, ``degree = d(y)``, ids ``N+(y)`` sorted) and one per
        wedge row (``key = a``, ``origin = y``, ``degree = -1``, the ids of ``N+(y)`` ranked above ``a``);
        row ``i`` holds ``values[offsets[i]:offsets[i + 1]]``. O(r log r + W).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.kernels import out_neighbours
    >>> # node 0 of degree 2 with neighbours 1 and 2, both of degree 2 (a triangle)
    >>> rows = out_neighbours(np.zeros(2, int), np.array([1, 2]), np.array([2, 2]))
    >>> [r.tolist() for r in rows]  # key, origin, degree, offsets, values
    [[0, 1], [0, 0], [2, -1], [0, 2, 3], [1, 2, 2]]
    """
    dst, src = np.asarray(dst, dtype=_I64), np.asarray(src, dtype=_I64)
    dsrc = np.asarray(dsrc, dtype=_I64)
    if dst.size == 0:
        e = np.empty(0, dtype=_I64)
        return e, e, e, np.zeros(1, dtype=_I64), e
    order = argsort_ids(dst)  # grouped by dst; each group's out-neighbours are sorted in _orient
    dst, src, dsrc = dst[order], src[order], dsrc[order]
    starts = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]])
    nodes = dst[starts]
    starts = np.r_[starts, dst.size].astype(_I64)
    degree, out_start, by_id, by_rank, wedge_rows, wedge_ids = _orient(dst, src, dsrc, starts)
    wkey, worigin, woffsets, wvalues = _wedge_rows(nodes, out_start, by_rank, wedge_rows, wedge_ids)
    key = np.concatenate([nodes, wkey])
    origin = np.concatenate([nodes, worigin])
    deg = np.concatenate([degree, np.full(wkey.size, -1, dtype=_I64)])
    offsets = np.concatenate([out_start, woffsets[1:] + out_start[-1]])
    values = np.concatenate([by_id, wvalues])
    return key, origin, deg, offsets, values


def argsort_ids(a: np.ndarray) -> np.ndarray:
    """A stable argsort of int64 ids: when they span less than 2^31 values, one sort of 64-bit keys
    ``(id - min) << 32 | position`` (several times faster than :func:`numpy.argsort`), else ``numpy``'s.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.kernels import argsort_ids
    >>> argsort_ids(np.array([5, 3, 5, 1])).tolist()
    [3, 1, 0, 2]
    """
    a = np.asarray(a, dtype=_I64)
    if a.size == 0:
        return np.empty(0, dtype=_I64)
    lo = int(a.min())
    if int(a.max()) - lo < 2**31 and a.size < 2**32:
        key = ((a - lo) << 32) | np.arange(a.size, dtype=_I64)
        key.sort()
        return key & 0xFFFFFFFF
    return np.argsort(a, kind="stable")


@numba.njit(cache=True, nogil=True)
def _close(adj_keys, adj_rows, wedges, key, origin, offsets, values, local_tri, far_nodes, far_counts):
    """Close the wedge rows ``wedges`` (sorted by their target ``a``: merged with the adjacency rows, so
    ``N+(a)`` stays in cache): per row ``(a; y; ids)`` count the ids in ``N+(a)``; ``a``'s count goes to
    ``local_tri`` (indexed like ``adj_keys``), ``y`` and every ``b`` found are appended to the far arrays.
    Returns how many far entries were written."""  # pragma: no cover - compiled
    r = 0
    pos = 0
    for t in range(wedges.size):
        i = wedges[t]
        a = key[i]
        while adj_keys[pos] < a:  # a has an adjacency row (it has an in-edge)
            pos += 1
        j = adj_rows[pos]
        s, e = offsets[j], offsets[j + 1]
        c = 0
        for q in range(offsets[i], offsets[i + 1]):
            b = values[q]
            lo, hi = s, e
            while lo < hi:
                mid = (lo + hi) // 2
                if values[mid] < b:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < e and values[lo] == b:
                c += 1
                far_nodes[r] = b
                far_counts[r] = 1
                r += 1
        if c > 0:
            local_tri[pos] += c
            far_nodes[r] = origin[i]
            far_counts[r] = c
            r += 1
    return r


def close_wedges(key, origin, degree, offsets, values):
    """Step 3: the ``(node, degree, triangles)`` rows of one partition of the rows of :func:`out_neighbours`.

    ``key`` holds every adjacency row (``degree >= 0``) of the nodes that wedge rows (``degree == -1``)
    target. Out: one row per adjacency row (its node, degree and the triangles found at it as the middle
    corner ``a``), then the partial counts of the other corners (``degree == -1``), summed per node.
    O(rows log rows + W log d+).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.spark.kernels import close_wedges
    >>> # the triangle 0-1-2 (all of degree 2): N+(0) = [1, 2], N+(1) = [2], N+(2) = []; one wedge (0; 1, 2)
    >>> key, origin, deg = np.array([0, 1, 2, 1]), np.array([0, 1, 2, 0]), np.array([2, 2, 2, -1])
    >>> offsets, values = np.array([0, 2, 3, 3, 4]), np.array([1, 2, 2, 2])
    >>> node, degree, tri = close_wedges(key, origin, deg, offsets, values)
    >>> sorted(zip(node.tolist(), degree.tolist(), tri.tolist()))
    [(0, -1, 1), (0, 2, 0), (1, 2, 1), (2, -1, 1), (2, 2, 0)]
    """
    key, origin = np.asarray(key, dtype=_I64), np.asarray(origin, dtype=_I64)
    degree, offsets = np.asarray(degree, dtype=_I64), np.asarray(offsets, dtype=_I64)
    values = np.asarray(values, dtype=_I64)
    adj = np.flatnonzero(degree >= 0)
    adj_rows = adj[argsort_ids(key[adj])].astype(_I64)
    adj_keys = key[adj_rows]
    wedges = np.flatnonzero(degree < 0)
    wedges = wedges[argsort_ids(key[wedges])].astype(_I64)
    local_tri = np.zeros(adj_keys.size, dtype=_I64)
    far_nodes = np.empty(values.size + key.size, dtype=_I64)  # at most every id and every wedge row
    far_counts = np.empty(values.size + key.size, dtype=_I64)
    r = _close(adj_keys, adj_rows, wedges, key, origin, offsets, values, local_tri, far_nodes, far_counts)
    far_nodes, far_counts = far_nodes[:r], far_counts[:r]
    if r:
        order = argsort_ids(far_nodes)
        far_nodes, far_counts = far_nodes[order], far_counts[order]
        starts = np.flatnonzero(np.r_[True, far_nodes[1:] != far_nodes[:-1]])
        far_counts = np.add.reduceat(far_counts, starts)
        far_nodes = far_nodes[starts]
    node = np.concatenate([adj_keys, far_nodes])
    deg = np.concatenate([degree[adj_rows], np.full(far_nodes.size, -1, dtype=_I64)])
    tri = np.concatenate([local_tri, far_counts])
    return node, deg, tri
