"""Kernels of the private ID3 baselines: discretised codes, class counts per node, row partitions, the
cells that matter for a node's local sensitivity, and that sensitivity on blocks of distances (compiled).

:mod:`dpmo.trees.id3` grows a DiffP-ID3 / LocalDiffPID3 tree node by node; at each node it needs the
class counts of every (remaining attribute, value) pair of the node's rows (:func:`class_counts`) and,
after the split, the node's rows grouped by the value of the chosen attribute, with the children's class
counts (:func:`split_node`, which counts every child but the largest, whose counts are the parent's minus
the others').
LocalDiffPID3's dampening evaluates the node's local sensitivity at many distances
(:func:`cell_curve`). The counts are integers, and the sensitivity kernel performs the floating-point
operations of :func:`dpmo.trees.split_sensitivity.cell_local_sensitivity` in the same order, reading the
one transcendental term ``d(x) = log2(x + 1) + x log2(1 + 1/x)`` (``x`` is always a whole number) from
a table computed by that module's numpy expression, so the results are the same floats.

Nothing here is released: the counts are private intermediates that the private selections protect.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["encode_codes", "encode_indices", "class_counts", "split_node", "undominated_cells", "cell_curve"]


@numba.njit(cache=True, nogil=True)
def encode_codes(X, is_cat, size):  # pragma: no cover - compiled
    """Integer codes (n, d): categorical codes as they are, numeric values in [0, 1] cut into ``size[f]``
    equal bins (``min(floor(x * size[f]), size[f] - 1)``). O(n d).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_kernels import encode_codes
    >>> X = np.array([[0.0, 2.0], [0.99, 1.0], [1.0, 0.0]])  # a numeric column, a categorical one
    >>> encode_codes(X, np.array([False, True]), np.array([5, 3])).tolist()  # 5 bins of [0, 1]
    [[0, 2], [4, 1], [4, 0]]
    """
    n, d = X.shape
    out = np.empty((n, d), dtype=np.int64)
    for i in range(n):
        for f in range(d):
            x = X[i, f]
            if is_cat[f]:
                out[i, f] = np.int64(x)
            else:
                c = np.int64(np.floor(x * size[f]))
                out[i, f] = min(c, size[f] - 1)
    return out


@numba.njit(cache=True, nogil=True)
def encode_indices(X, is_cat, size, offsets, flat, columns):  # pragma: no cover - compiled
    """The codes of :func:`encode_codes` written straight into the fit's two narrow layouts, in one pass
    and without the (n, d) int64 table: ``flat[i, f] = code + offsets[f]`` (the global value index) and
    ``columns[f, i] = code``. O(n d).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 2.0], [0.99, 1.0]])  # a numeric column (5 bins), a categorical one (3 codes)
    >>> flat, columns = np.empty((2, 2), np.int16), np.empty((2, 2), np.int16)
    >>> encode_indices(X, np.array([False, True]), np.array([5, 3]), np.array([0, 5]), flat, columns)
    >>> flat.tolist(), columns.tolist()
    ([[0, 7], [4, 6]], [[0, 4], [2, 1]])
    """
    n, d = X.shape
    for i in range(n):
        for f in range(d):
            x = X[i, f]
            if is_cat[f]:
                c = np.int64(x)
            else:
                c = min(np.int64(np.floor(x * size[f])), size[f] - 1)
            flat[i, f] = c + offsets[f]
            columns[f, i] = c


@numba.njit(cache=True, nogil=True)
def class_counts(flat, y, rows, attributes, total):  # pragma: no cover - compiled
    """Class counts (total, 2) of the given rows for the given attributes.

    ``flat[i, a]`` is the global index of row ``i``'s value of attribute ``a`` (the attribute's code plus
    the attribute's offset among all values); ``y`` holds 0/1. O(rows x attributes).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_kernels import class_counts
    >>> flat = np.array([[0, 2], [1, 2], [1, 3]], np.int16)  # attribute 0: values 0-1, attribute 1: 2-3
    >>> y, rows = np.array([0, 1, 1], np.int8), np.arange(3, dtype=np.int32)  # a fit's narrow dtypes
    >>> class_counts(flat, y, rows, np.array([0, 1]), 4).tolist()
    [[1, 0], [0, 2], [1, 1], [0, 1]]
    """
    out = np.zeros((total, 2), dtype=np.int64)
    for r in rows:
        c = y[r]
        for a in attributes:
            out[flat[r, a], c] += 1
    return out


@numba.njit(cache=True, nogil=True)
def split_node(rows, columns, flat, y, attribute, k, child_attributes, offsets, parent_table, with_tables):
    """Split a node's rows by their code of ``attribute`` (0 .. k-1), with each child's class counts.

    ``columns`` holds the codes one attribute per row (d, n): ``columns[attribute]`` is read in one sweep.

    Returns ``(grouped, bounds, positives, tables)``: the rows grouped by code (each group in the order
    of ``rows``: a stable counting sort) with the ``k + 1`` group boundaries, the number of rows with
    ``y = 1`` of each child, and (``with_tables``) each child's class counts (k, total, 2) for the
    ``child_attributes``, as :func:`class_counts` gives them. The largest child's counts are the parent's
    (``parent_table``, for the parent's rows) minus the other children's, so its rows are not counted
    again. O(rows + (rows outside the largest child) x attributes + k x values) time.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_kernels import class_counts, split_node
    >>> codes = np.array([[0, 1], [1, 0], [0, 0], [1, 1]], np.int16)  # two binary attributes
    >>> flat, y = codes + np.array([0, 2], np.int16), np.array([1, 0, 1, 1], np.int8)  # a fit's dtypes
    >>> rows = np.arange(4, dtype=np.int32)
    >>> parent = class_counts(flat, y, rows, np.array([0, 1]), 4)
    >>> grouped, bounds, positives, tables = split_node(
    ...     rows, codes.T.copy(), flat, y, 0, 2, np.array([1]), np.array([0, 2, 4]), parent, True)
    >>> grouped.tolist(), bounds.tolist(), positives.tolist()
    ([0, 2, 1, 3], [0, 2, 4], [2, 1])
    >>> direct = [class_counts(flat, y, grouped[bounds[v]:bounds[v + 1]], np.array([1]), 4) for v in (0, 1)]
    >>> all((tables[v][2:] == direct[v][2:]).all() for v in (0, 1))  # attribute 1's values: rows 2-3
    True
    """
    code = columns[attribute]
    starts = np.zeros(k + 1, dtype=np.int64)
    for r in rows:
        starts[code[r] + 1] += 1
    for v in range(k):
        starts[v + 1] += starts[v]
    largest = 0
    for v in range(1, k):
        if starts[v + 1] - starts[v] > starts[largest + 1] - starts[largest]:
            largest = v
    pos = starts[:k].copy()
    grouped = np.empty(rows.shape[0], dtype=rows.dtype)
    positives = np.zeros(k, dtype=np.int64)
    total = parent_table.shape[0]
    tables = np.zeros((k if with_tables else 0, total, 2), dtype=np.int64)
    for r in rows:
        v = code[r]
        grouped[pos[v]] = r
        pos[v] += 1
        positives[v] += y[r]
    if with_tables:
        for v in range(k):
            if v == largest:
                continue
            tv = tables[v]
            for q in range(starts[v], starts[v + 1]):
                r = grouped[q]
                c = y[r]
                for b in child_attributes:
                    tv[flat[r, b], c] += 1
        for b in child_attributes:
            for i in range(offsets[b], offsets[b + 1]):
                for c in range(2):
                    rest = parent_table[i, c]
                    for v in range(k):
                        if v != largest:
                            rest -= tables[v, i, c]
                    tables[largest, i, c] = rest
    return grouped, starts, positives, tables


@numba.njit(cache=True, nogil=True, inline="always")
def _max(a, b):  # pragma: no cover - compiled
    """``np.maximum`` of two floats (NaN-free inputs; the first operand on ties, as numpy)."""
    return a if a >= b else b


@numba.njit(cache=True, nogil=True, inline="always")
def _min(a, b):  # pragma: no cover - compiled
    return a if a <= b else b


@numba.njit(cache=True, nogil=True, inline="always")
def _addition_change(b, o, info, dtab):  # pragma: no cover - compiled
    a = b + o
    if info:
        return dtab[np.int64(a)] - dtab[np.int64(b)]
    return 2.0 * o * o / _max(a * (a + 1.0), 1.0)


@numba.njit(cache=True, nogil=True, inline="always")
def _cell_sensitivity(b, o, info, dtab):  # pragma: no cover - compiled
    return _addition_change(_max(b - 1.0, 0.0), o, info, dtab)


@numba.njit(cache=True, nogil=True, inline="always")
def _min_addition_change(b, o, t, info, dtab):  # pragma: no cover - compiled
    s = o - t - b
    if s <= 0.0:
        m0 = s * s / _max(1.0 - 2.0 * s, 1.0)
    else:
        m0 = b
    best = _addition_change(b, _max(o - t, 0.0), info, dtab)  # k = 0
    best = _min(best, _addition_change(b + t, _max(o - t + t, 0.0), info, dtab))  # k = t
    for r in (np.floor(m0), np.ceil(m0)):
        k = _min(_max(r - b, 0.0), t)
        best = _min(best, _addition_change(b + k, _max(o - t + k, 0.0), info, dtab))
    return 0.0 if t >= o else best


@numba.njit(cache=True, nogil=True)
def cell_curve(cb, co, ts, info, nonnegative, offset, dtab):  # pragma: no cover - compiled
    """The largest exact local sensitivity at distance ``t`` over the cells ``(cb[c], co[c])``, for every
    distance of ``ts``: float64 (len(ts),), 0 where there is no cell.

    The closed form of :func:`dpmo.trees.split_sensitivity.cell_local_sensitivity` (``info``: information
    gain, else Gini; ``nonnegative``: the form ``u + offset |T|``), with ``d(x) = dtab[x]``. O(len(ts) x
    cells).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_kernels import cell_curve
    >>> from dpmo.trees.split_sensitivity import cell_local_sensitivity
    >>> b, o, t = np.array([3.0, 0.0]), np.array([1.0, 4.0]), np.arange(5)
    >>> want = cell_local_sensitivity(b, o, t[:, None], criterion="gini").max(axis=1)
    >>> bool(np.array_equal(cell_curve(b, o, t, False, False, 0.5, np.zeros(0)), want))  # Gini: no table
    True
    """
    out = np.zeros(ts.shape[0])
    for j in range(ts.shape[0]):
        t = np.float64(ts[j])
        best = 0.0
        for c in range(cb.shape[0]):
            b = cb[c]
            o = co[c]
            first = _cell_sensitivity(b, o + t, info, dtab)
            k = _min(t, _max(b - 1.0, 0.0))
            second = _cell_sensitivity(b - k, o + t - k, info, dtab)
            v = _max(first, second)
            if nonnegative:
                v = _max(v - offset, offset - _min_addition_change(b, o, t, info, dtab))
            best = _max(best, v)
        out[j] = best
    return out


@numba.njit(cache=True, nogil=True)
def _frontier_mask(b, o, g, n_groups, reverse, keep):  # pragma: no cover - compiled
    """Mark in ``keep`` the cells that no other cell of their group dominates (``b' <= b`` and ``o' >= o``;
    ``reverse``: ``b' >= b`` and ``o' <= o``), one of equal cells. Each group's frontier is kept as the
    cells are read: O(cells x frontier size), no sort."""
    c = b.shape[0]
    order = np.empty(c, np.int64)  # the cells grouped by group (a counting sort)
    starts = np.zeros(n_groups + 1, np.int64)
    for i in range(c):
        starts[g[i] + 1] += 1
    for k in range(n_groups):
        starts[k + 1] += starts[k]
    pos = starts[:n_groups].copy()
    for i in range(c):
        order[pos[g[i]]] = i
        pos[g[i]] += 1
    front = np.empty(c, np.int64)
    for k in range(n_groups):
        size = 0
        for q in range(starts[k], starts[k + 1]):
            i = order[q]
            dominated = False
            for f in range(size):
                j = front[f]
                if (b[j] <= b[i] and o[j] >= o[i]) if not reverse else (b[j] >= b[i] and o[j] <= o[i]):
                    dominated = True
                    break
            if dominated:
                continue
            kept = 0
            for f in range(size):  # drop the frontier cells that i dominates
                j = front[f]
                if not ((b[i] <= b[j] and o[i] >= o[j]) if not reverse else (b[i] >= b[j] and o[i] <= o[j])):
                    front[kept] = j
                    kept += 1
            front[kept] = i
            size = kept + 1
        for f in range(size):
            keep[front[f]] = True
    return order


@numba.njit(cache=True, nogil=True)
def _undominated(n0, n1, groups, n_groups, both):  # pragma: no cover - compiled
    m = n0.shape[0]
    b, o, g = np.empty(2 * m), np.empty(2 * m), np.empty(2 * m, np.int64)
    for i in range(m):  # the cells (n0, n1) then (n1, n0)
        b[i], o[i], g[i] = n0[i], n1[i], groups[i]
        b[m + i], o[m + i], g[m + i] = n1[i], n0[i], groups[i]
    keep = np.zeros(2 * m, dtype=np.bool_)
    # typed flags (np.bool_): literal True / False would compile _frontier_mask twice
    order = _frontier_mask(b, o, g, n_groups, np.bool_(False), keep)
    if both:
        _frontier_mask(b, o, g, n_groups, np.bool_(True), keep)
    count = 0
    for i in range(2 * m):
        count += keep[i]
    cb, co, cg = np.empty(count), np.empty(count), np.empty(count, np.int64)
    w = 0
    for i in order:  # by group, stable
        if keep[i]:
            cb[w], co[w], cg[w] = b[i], o[i], g[i]
            w += 1
    return cb, co, cg


def undominated_cells(n0, n1, groups, *, both: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells ``(b, o)`` of each group that no other cell of the group dominates, sorted by group.

    A cell ``(b', o')`` with ``b' <= b`` and ``o' >= o`` has at least the local sensitivity at every distance
    of the cell ``(b, o)`` (:func:`dpmo.trees.split_sensitivity.cell_local_sensitivity` decreases in ``b``
    and increases in ``o``: from ``(b', o')`` the path ``k' = min(k, b')`` reaches a cell with no larger own
    count and no smaller other count), so dropping dominated cells leaves the group maximum unchanged.
    ``both=True`` (non-negative criterion) also keeps the cells undominated in the reverse order
    (``b' >= b`` and ``o' <= o``): its term ``c - min F`` increases in ``b`` and decreases in ``o`` (the
    reachable cells of ``(b', o')`` are those of ``(b, o)`` shifted to more own and fewer other records,
    where ``F`` is smaller). The cells are ``(n0, n1)`` then ``(n1, n0)`` of every (attribute, value) pair;
    of equal cells one is kept. O(m x frontier size), compiled (no sort).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_kernels import undominated_cells
    >>> b, o, g = undominated_cells(np.array([5.0, 1.0]), np.array([2.0, 2.0]), np.array([0, 0]))
    >>> # cells (5, 2), (1, 2), (2, 5), (2, 1): (1, 2) dominates (5, 2) and (2, 1)
    >>> sorted(zip(b.tolist(), o.tolist()))
    [(1.0, 2.0), (2.0, 5.0)]
    """
    g = np.asarray(groups, dtype=np.int64)
    n_groups = int(g.max()) + 1 if g.size else 0
    if g.size and g.min() < 0:
        raise ValueError("groups must be non-negative")
    return _undominated(np.asarray(n0, dtype=np.float64), np.asarray(n1, dtype=np.float64), g, n_groups, both)
