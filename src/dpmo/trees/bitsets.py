"""Compiled kernels on packed row sets: the split tables of a data set and the evaluation of many trees.

A set of rows of a table with ``n`` rows is packed into ``W = ceil(n / 64)`` machine words (``uint64``,
row ``i`` is bit ``i % 64`` of word ``i // 64``); Adult's 45,222 rows are 707 words. The kernels here
work on such sets (numba, compiled once and cached on disk):

* :func:`build_split_tables`: for every column the sets ``{x == u_j}`` and ``{x <= u_j}`` of its sorted
  distinct values ``u_j`` (one pass over the table plus a running OR), so that every split of every tree
  is one precomputed set;
* :func:`split_rows`: the table row of each split (a binary search among the column's distinct values);
* :func:`positive_sets`: the set of rows every tree of a population predicts positive, by a depth-first
  walk of each tree in which a child's set is its parent's AND the split's set (or AND NOT); a child with
  no row is skipped with its subtree, and a subtree whose leaves all predict the same label is not
  walked (its set goes to that label as a whole);
* :func:`masked_popcounts`: the number of rows of each set, and of each set AND a mask, with the
  processor's ``popcount``;
* :func:`leaf_index`: the classic per-row walk (the "level" engine, for tables with many distinct
  values), O(trees x rows x depth).

Nothing here is released: the tables and counts are private intermediates of the estimators, which
protect them with their private selections.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from .._kernel_args import kernel_input

__all__ = ["pack_rows", "build_split_tables", "add_column_sets", "node_class_counts", "split_rows"]
__all__ += ["subtree_labels", "positive_sets", "masked_popcounts", "leaf_index"]


@intrinsic
def _popcount(typingctx, x):  # pragma: no cover - compiled
    """The processor's population count of a uint64 (LLVM ``ctpop``)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


def pack_rows(mask: np.ndarray) -> np.ndarray:
    """Boolean array (..., n) -> packed uint64 row sets (..., W), ``W = ceil(n / 64)``, little-endian bits.

    O(size) time.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import pack_rows
    >>> pack_rows(np.array([True, False, True])).tolist()  # rows 0 and 2: bits 0 and 2
    [5]
    """
    n = mask.shape[-1]
    W = (n + 63) // 64
    packed = np.packbits(mask, axis=-1, bitorder="little")
    pad = W * 8 - packed.shape[-1]
    if pad:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (pad,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view(np.uint64)


@numba.njit(cache=True, nogil=True)
def build_split_tables(codes, ks, n_rows):  # pragma: no cover - compiled
    """The packed split sets of a table, from the index of each value among its column's distinct values.

    Parameters
    ----------
    codes : int64 array (d, n)
        ``codes[f, i] = j`` when ``x[i, f]`` is the ``j``-th smallest distinct value ``u_j`` of column ``f``.
    ks : int64 array (d,)
        Number of distinct values of each column.
    n_rows : int
        ``n``.

    Returns
    -------
    tables : uint64 array (1 + 2 sum(ks), W)
        Row 0 is the empty set (a threshold below every value). With ``K = sum(ks)`` and
        ``o_f = 1 + ks[0] + ... + ks[f - 1]``: row ``o_f + j`` is ``{x[:, f] <= u_j}`` and row
        ``K + o_f + j`` is ``{x[:, f] == u_j}``.

    Notes
    -----
    O(n d + K W) time: one pass over the codes sets one bit per value, then a running OR over each
    column's distinct values.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import build_split_tables
    >>> codes = np.array([[0, 1, 1, 0]])  # one column, 4 rows, 2 distinct values
    >>> t = build_split_tables(codes, np.array([2]), 4)
    >>> t.shape, [int(w) for w in t[:, 0]]  # empty, {x <= u0}, {x <= u1}, {x == u0}, {x == u1}
    ((5, 1), [0, 9, 15, 9, 6])
    """
    d = codes.shape[0]
    W = (n_rows + 63) // 64
    K = 0
    for f in range(d):
        K += ks[f]
    tables = np.zeros((1 + 2 * K, W), dtype=np.uint64)
    one = np.uint64(1)
    base = 1
    for f in range(d):
        eq = K + base
        for i in range(n_rows):
            tables[eq + codes[f, i], i >> 6] |= one << np.uint64(i & 63)
        for w in range(W):
            tables[base, w] = tables[eq, w]
        for j in range(1, ks[f]):
            for w in range(W):
                tables[base + j, w] = tables[base + j - 1, w] | tables[eq + j, w]
        base += ks[f]
    return tables


@numba.njit(cache=True, nogil=True)
def add_column_sets(tables, codes, k, base, eq):  # pragma: no cover - compiled
    """Write one column's split sets into ``tables`` (the layout of :func:`build_split_tables`, in place).

    ``codes[i]`` is the index of row ``i``'s value among the column's ``k`` sorted distinct values (int64,
    C-contiguous: another type compiles the kernel once more); rows ``base .. base + k - 1`` receive
    ``{x <= u_j}`` and rows ``eq .. eq + k - 1`` receive ``{x == u_j}``. One column at a time, so the fit
    never holds a (d, n) table of codes. O(n + k W).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import add_column_sets
    >>> t = np.zeros((5, 1), np.uint64)
    >>> add_column_sets(t, np.array([0, 1, 1, 0], np.int64), 2, 1, 3)
    >>> [int(w) for w in t[:, 0]]  # empty, {x <= u0}, {x <= u1}, {x == u0}, {x == u1}
    [0, 9, 15, 9, 6]
    """
    W = tables.shape[1]
    one = np.uint64(1)
    for i in range(codes.shape[0]):
        tables[eq + np.int64(codes[i]), i >> 6] |= one << np.uint64(i & 63)
    for w in range(W):
        tables[base, w] = tables[eq, w]
    for j in range(1, k):
        for w in range(W):
            tables[base + j, w] = tables[base + j - 1, w] | tables[eq + j, w]


@numba.njit(cache=True, nogil=True)
def node_class_counts(tables, all_rows, pos_bits, rows, feature, size, depth, offsets):  # pragma: no cover
    """(negative, positive) row counts at every leaf of every tree, int64 (nodes, 2); decision nodes 0.

    Each tree is walked in preorder holding one packed set per level: a child's set is its parent's AND
    the split's set (left) or AND NOT (right); a node with no row skips its subtree. Exact: the counts of
    :func:`dpmo.trees.leaf_counts.leaf_class_counts`, in O(W) word operations per node reached instead of
    a walk per row (and no (n, d) float table). ``rows``: :func:`split_rows`.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> from dpmo.trees.bitsets import node_class_counts
    >>> enc = EncodedData(np.array([[0.1], [0.2], [0.9], [0.8]]), np.array([0, 1, 1, 1]))
    >>> pop = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])
    >>> r = enc.test_index(pop.feature, pop.value, pop.categorical)
    >>> node_class_counts(enc.tables, enc.all_bits, enc.pos_bits, r, pop.feature, pop.size, pop.depth,
    ...                   pop.offsets).tolist()
    [[0, 0], [1, 1], [0, 2]]
    """
    m = feature.shape[0]
    W = all_rows.shape[0]
    out = np.zeros((m, 2), dtype=np.int64)
    maxd = 0
    for i in range(m):
        if depth[i] > maxd:
            maxd = depth[i]
    sets = np.empty((maxd + 2, W), dtype=np.uint64)
    path = np.empty(maxd + 2, dtype=np.int64)
    for t in range(offsets.shape[0] - 1):
        root = offsets[t]
        i = root
        while i < offsets[t + 1]:
            lvl = depth[i] - depth[root]
            nz = np.uint64(0)
            if lvl == 0:
                for w in range(W):
                    sets[0, w] = all_rows[w]
                    nz |= all_rows[w]
            else:
                p = path[lvl - 1]
                tab = tables[rows[p]]
                left = i == p + 1
                for w in range(W):
                    v = sets[lvl - 1, w] & tab[w] if left else sets[lvl - 1, w] & ~tab[w]
                    sets[lvl, w] = v
                    nz |= v
            path[lvl] = i
            if nz == 0:  # no row reaches this node: its subtree counts nothing
                i += size[i]
                continue
            if feature[i] < 0:
                c = np.uint64(0)
                h = np.uint64(0)
                for w in range(W):
                    v = sets[lvl, w]
                    c += _popcount(v)
                    h += _popcount(v & pos_bits[w])
                out[i, 1] = np.int64(h)
                out[i, 0] = np.int64(c) - np.int64(h)
            i += 1
    return out


@numba.njit(cache=True, nogil=True)
def split_rows(feature, value, categorical, uniques, uniq_start, offset_le, offset_eq):  # pragma: no cover
    """Row of the split tables holding the set of rows that go LEFT at each node (-1 for a leaf).

    ``uniques[uniq_start[f]:uniq_start[f + 1]]`` are the sorted distinct values of column ``f``. A numeric
    test ``x <= v`` is the set ``{x <= u_j}`` of the last distinct value ``u_j <= v`` (row 0, the empty set,
    when there is none); a categorical test ``x == v`` is ``{x == v}`` when ``v`` is one of the column's
    values, else the empty set. O(nodes log k) time.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import split_rows
    >>> uniques, start = np.array([0.2, 0.5]), np.array([0, 2])  # one column, values 0.2 and 0.5
    >>> le, eq = np.array([1]), np.array([3])  # rows of {x <= u_j} and {x == u_j} (build_split_tables)
    >>> split_rows(np.array([0, 0, 0, -1]), np.array([0.1, 0.3, 0.5, 0.0]),
    ...            np.array([False, False, True, False]), uniques, start, le, eq).tolist()
    [0, 1, 4, -1]
    """
    m = feature.shape[0]
    out = np.empty(m, dtype=np.int64)
    for i in range(m):
        f = feature[i]
        if f < 0:
            out[i] = -1
            continue
        lo = uniq_start[f]
        hi = uniq_start[f + 1]
        v = value[i]
        if categorical[i]:
            a, b = lo, hi  # first position with uniques[pos] >= v
            while a < b:
                mid = (a + b) >> 1
                if uniques[mid] < v:
                    a = mid + 1
                else:
                    b = mid
            out[i] = offset_eq[f] + (a - lo) if a < hi and uniques[a] == v else 0
        else:
            a, b = lo, hi  # first position with uniques[pos] > v
            while a < b:
                mid = (a + b) >> 1
                if uniques[mid] <= v:
                    a = mid + 1
                else:
                    b = mid
            out[i] = offset_le[f] + (a - lo) - 1 if a > lo else 0
    return out


@numba.njit(cache=True, nogil=True)
def subtree_labels(feature, label, size, offsets):  # pragma: no cover - compiled
    """For every node, which labels the leaves of its subtree predict: bit 0 = some leaf says 0, bit 1 = 1.

    Preorder arrays of several trees (tree ``t`` at ``offsets[t] .. offsets[t + 1] - 1``). O(nodes).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import subtree_labels
    >>> # a stump with leaves 0 and 1, then a single leaf 1 (the node arrays' dtypes of dpmo.trees.Tree)
    >>> feature, size = np.array([0, -1, -1, -1], np.int32), np.array([3, 1, 1, 1], np.int32)
    >>> subtree_labels(feature, np.array([0, 0, 1, 1], np.int8), size, np.array([0, 3, 4])).tolist()
    [3, 1, 2, 2]
    """
    out = np.empty(feature.shape[0], dtype=np.uint8)
    for t in range(offsets.shape[0] - 1):
        for i in range(offsets[t + 1] - 1, offsets[t] - 1, -1):
            if feature[i] < 0:
                out[i] = np.uint8(1) << np.uint8(label[i])
            else:
                left = i + 1
                out[i] = out[left] | out[left + size[left]]
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _and(out, a, b, W):  # pragma: no cover - compiled
    nz = np.uint64(0)
    for w in range(W):
        v = a[w] & b[w]
        out[w] = v
        nz |= v
    return nz != 0


@numba.njit(cache=True, nogil=True, inline="always")
def _and_not(out, a, b, W):  # pragma: no cover - compiled
    nz = np.uint64(0)
    for w in range(W):
        v = a[w] & ~b[w]
        out[w] = v
        nz |= v
    return nz != 0


@numba.njit(cache=True, nogil=True, inline="always")
def _walk_one_side(acc, S, tab, nxt, W, walk_left, settled_one):  # pragma: no cover - compiled
    """``nxt = S AND tab`` (``walk_left``) or ``S AND NOT tab``; the other side of ``S`` is OR-ed into
    ``acc`` when ``settled_one``. Whether ``nxt`` has a row."""
    nz = np.uint64(0)
    for w in range(W):
        v = S[w]
        keep = v & tab[w] if walk_left else v & ~tab[w]
        if settled_one:
            acc[w] |= v ^ keep  # the rows of S that do not go the walked way
        nxt[w] = keep
        nz |= keep
    return nz != 0


@numba.njit(cache=True, nogil=True)
def positive_sets(tables, all_rows, rows, feature, size, depth, offsets, labels):  # pragma: no cover
    """Packed set of the rows each tree predicts positive, uint64 array (T, W).

    Parameters
    ----------
    tables : uint64 (K, W)
        Split sets (:func:`build_split_tables`).
    all_rows : uint64 (W,)
        The set of all rows.
    rows : int64 (nodes,)
        Table row of every node's split (:func:`split_rows`).
    feature, size, depth : preorder node arrays of the trees (concatenated)
    offsets : int64 (T + 1,)
        Tree ``t`` holds the nodes ``offsets[t] .. offsets[t + 1] - 1``.
    labels : uint8 (nodes,)
        :func:`subtree_labels`.

    Notes
    -----
    A depth-first walk per tree holds one set per level. At a node whose subtree predicts one label only,
    the node's set goes to that label whole; at a node with such a child, the child's share is settled
    in the same pass that computes the other child's set. Otherwise the left set is ``S AND split`` and,
    when the walk comes back, the right set is ``S AND NOT split``; an empty set ends the branch. Time
    O(W) word operations per node reached with rows and mixed labels, memory O(depth W).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> enc = EncodedData(np.array([[0.1], [0.4], [0.8]]), np.array([0, 1, 1]))
    >>> pop = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])  # x <= 0.5 -> 0, else 1
    >>> int(pop.positive_sets(enc)[0, 0])  # only row 2 is predicted positive: bit 2
    4
    """
    T = offsets.shape[0] - 1
    W = all_rows.shape[0]
    maxd = 0
    for i in range(feature.shape[0]):
        if depth[i] > maxd:
            maxd = depth[i]
    sets = np.empty((maxd + 2, W), dtype=np.uint64)
    stack = np.empty(maxd + 2, dtype=np.int64)
    acc = np.zeros((T, W), dtype=np.uint64)
    for t in range(T):
        a = acc[t]
        root = offsets[t]
        for w in range(W):
            sets[0, w] = all_rows[w]
        sp = 0
        i = root
        lvl = 0
        while True:
            m = labels[i]
            descend = False
            if m == 2:  # every leaf below predicts 1: the whole set
                S = sets[lvl]
                for w in range(W):
                    a[w] |= S[w]
            elif m == 3:  # a decision node whose leaves disagree
                S = sets[lvl]
                tab = tables[rows[i]]
                li = i + 1
                ri = li + size[li]
                ml = labels[li]
                mr = labels[ri]
                nxt = sets[lvl + 1]
                if ml != 3 and mr != 3:  # both children settled at once (one says 1, the other 0)
                    if ml == 2:
                        for w in range(W):
                            a[w] |= S[w] & tab[w]
                    else:
                        for w in range(W):
                            a[w] |= S[w] & ~tab[w]
                elif ml != 3 or mr != 3:  # one child settled: its share at once, walk the other
                    walk_left = ml == 3
                    settled_one = (mr if walk_left else ml) == 2
                    if _walk_one_side(a, S, tab, nxt, W, walk_left, settled_one):
                        i = li if walk_left else ri
                        lvl += 1
                        descend = True
                else:  # both children mixed: walk left now, right when coming back
                    stack[sp] = i
                    sp += 1
                    if _and(nxt, S, tab, W):
                        i = li
                        lvl += 1
                        descend = True
            if descend:
                continue
            # come back to the nearest pending right child with rows
            found = False
            while sp > 0:
                sp -= 1
                p = stack[sp]
                pl = depth[p] - depth[root]
                if _and_not(sets[pl + 1], sets[pl], tables[rows[p]], W):
                    i = p + 1 + size[p + 1]
                    lvl = pl + 1
                    found = True
                    break
            if not found:
                break
    return acc


@numba.njit(cache=True, nogil=True)
def masked_popcounts(sets, mask):  # pragma: no cover - compiled
    """``(|S|, |S AND mask|)`` for every row set ``S`` of ``sets`` (T, W): two int64 arrays. O(T W).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import masked_popcounts
    >>> total, hits = masked_popcounts(np.array([[0b1011]], dtype=np.uint64), np.array([0b0011], np.uint64))
    >>> int(total[0]), int(hits[0])
    (3, 2)
    """
    T, W = sets.shape
    total = np.zeros(T, dtype=np.int64)
    hits = np.zeros(T, dtype=np.int64)
    for t in range(T):
        c = np.uint64(0)
        h = np.uint64(0)
        for w in range(W):
            v = sets[t, w]
            c += _popcount(v)
            h += _popcount(v & mask[w])
        total[t] = c
        hits[t] = h
    return total, hits


def leaf_index(X, feature, value, categorical, size, offsets) -> np.ndarray:
    """Global index of the leaf each row reaches in each tree, int64 (T, n). O(T n depth) time.

    A numeric node sends a row left when ``x[feature] <= value``, a categorical one when
    ``x[feature] == value``; the left child follows its parent in preorder, the right child comes after
    the left child's subtree.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.bitsets import leaf_index
    >>> f, v, c, s = np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.zeros(3, bool), np.array([3, 1, 1])
    >>> leaf_index(np.array([[0.2], [0.9]]), f, v, c, s, np.array([0, 3])).tolist()  # left leaf, right leaf
    [[1, 2]]
    """
    args = (X, feature, value, categorical, size, offsets)  # one signature: the dtypes of Tree, read-only
    dtypes = (np.float64, np.int32, np.float64, np.bool_, np.int32, np.int64)
    return _leaf_index(*(kernel_input(a, dt) for a, dt in zip(args, dtypes, strict=True)))


@numba.njit(cache=True, nogil=True)
def _leaf_index(X, feature, value, categorical, size, offsets):  # pragma: no cover - compiled
    T = offsets.shape[0] - 1
    n = X.shape[0]
    out = np.empty((T, n), dtype=np.int64)
    for t in range(T):
        root = offsets[t]
        for r in range(n):
            i = root
            while feature[i] >= 0:
                x = X[r, feature[i]]
                v = value[i]
                left = (x == v) if categorical[i] else (x <= v)
                i = i + 1 if left else i + 1 + size[i + 1]
            out[t, r] = i
    return out
