"""The genetic operators of DP-MOET on whole populations in flat arrays, compiled (numba).

:func:`random_population` draws the initial population and :func:`breed` one generation's children
(the paper's Algorithm "DP-MOET", lines "crossover", "mutate", "prune") in one compiled call each. They
make exactly the random draws, in the same order, from the same ``numpy.random.Generator``, as the one-tree
operators of :mod:`dpmo.trees.operations` called one after another (numba's Generator methods follow
NumPy's algorithms), so a seeded fit gives the same trees whichever is used; the tests compare them.

Layout: the nodes of a population are the rows of one float64 matrix with the columns :data:`COLUMNS`
(feature, value, categorical, label, size, depth: the preorder arrays of :class:`~dpmo.trees.Tree`, whole
numbers stored exactly), and ``offsets`` gives each tree's first row; :func:`node_matrix` and
:func:`node_arrays` convert from and to the typed arrays of
:class:`~dpmo.trees.evaluation.TreePopulation`. One matrix keeps a subtree a contiguous block of rows,
so every operator is block copies.

Randomness is public: the operators read the public feature metadata (``is_categorical``,
``n_categories``), the trees (earlier private outputs) and the generator, never the data. The compiled
code does not take the generator's lock as NumPy's methods do: a caller that may share the generator
between threads holds ``rng.bit_generator.lock`` around the call (:class:`dpmo.trees.DPMOETClassifier`
does).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["COLUMNS", "node_matrix", "node_arrays", "random_population", "breed"]

#: Columns of the node matrix.
COLUMNS = ("feature", "value", "categorical", "label", "size", "depth")
_F, _V, _C, _L, _S, _D = range(6)
_DTYPES = (np.int32, np.float64, np.bool_, np.int8, np.int32, np.int32)


def node_matrix(arrays) -> np.ndarray:
    """The (nodes, 6) float64 matrix of six preorder arrays (in the order of :data:`COLUMNS`). O(nodes).

    Examples
    --------
    >>> from dpmo.trees.breeding import node_matrix
    >>> node_matrix(([0, -1, -1], [0.5, 0, 0], [False] * 3, [0, 0, 1], [3, 1, 1], [0, 1, 1])).shape
    (3, 6)
    """
    return np.column_stack([np.asarray(a, dtype=np.float64) for a in arrays])


def node_arrays(matrix: np.ndarray) -> list[np.ndarray]:
    """The six typed preorder arrays (int32, float64, bool, int8, int32, int32) of a node matrix. O(nodes).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.breeding import node_arrays, node_matrix
    >>> stump = ([0, -1, -1], [0.5, 0, 0], [False] * 3, [0, 0, 1], [3, 1, 1], [0, 1, 1])
    >>> [a.tolist() for a in node_arrays(node_matrix(stump))] == [list(a) for a in stump]
    True
    """
    return [np.ascontiguousarray(matrix[:, j]).astype(dt) for j, dt in enumerate(_DTYPES)]


@numba.njit(cache=True, nogil=True)
def _copy_rows(dst, d0, src, s0, n):  # pragma: no cover - compiled
    """Rows ``s0 .. s0 + n - 1`` of ``src`` into rows ``d0 ..`` of ``dst`` (plain loops: quick to compile)."""
    for q in range(n):
        for c in range(6):
            dst[d0 + q, c] = src[s0 + q, c]


@numba.njit(cache=True, nogil=True)
def _reserve(nodes, need):  # pragma: no cover - compiled
    """``nodes`` with room for at least ``need`` rows (copied into a larger matrix if needed)."""
    if nodes.shape[0] >= need:
        return nodes
    out = np.empty((max(need, 2 * nodes.shape[0]), 6))
    zero = np.int64(0)  # a typed 0: a literal argument would compile _copy_rows once more
    _copy_rows(out, zero, nodes, zero, nodes.shape[0])
    return out


@numba.njit(cache=True, nogil=True)
def _random_tree(dst, pos, depth, is_cat, ncat, rng):  # pragma: no cover - compiled
    """Write ``random_tree(depth)`` at row ``pos`` of ``dst``; returns its number of nodes.

    The draws of :func:`dpmo.trees.random_tree`: the attribute of every decision node (preorder), then
    their uniform numbers, then the label of every leaf.
    """
    m = (1 << (depth + 1)) - 1
    stack = np.empty(depth + 2, np.int64)
    stack[0] = 0
    sp = 1
    p = pos
    while sp > 0:  # preorder depths of the full tree
        sp -= 1
        d = stack[sp]
        dst[p, _D] = d
        dst[p, _S] = (1 << (depth - d + 1)) - 1
        dst[p, _L] = 0.0
        dst[p, _V] = 0.0
        dst[p, _C] = 0.0
        dst[p, _F] = -1.0
        p += 1
        if d < depth:
            stack[sp] = d + 1
            stack[sp + 1] = d + 1
            sp += 2
    n_features = is_cat.shape[0]
    for q in range(pos, pos + m):
        if dst[q, _D] < depth:
            dst[q, _F] = rng.integers(0, n_features)
    for q in range(pos, pos + m):
        if dst[q, _D] < depth:
            u = rng.random()
            f = np.int64(dst[q, _F])
            if is_cat[f]:
                dst[q, _V] = np.floor(u * max(ncat[f], 1))
                dst[q, _C] = 1.0
            else:
                dst[q, _V] = u
    for q in range(pos, pos + m):
        if dst[q, _D] == depth:
            dst[q, _L] = rng.integers(0, 2)
    return m


@numba.njit(cache=True, nogil=True)
def _replace(dst, d0, X, xs, nx, i, Y, ys, j):  # pragma: no cover - compiled
    """Tree X (rows ``xs .. xs + nx - 1``) with its node ``i``'s subtree replaced by Y's subtree at row
    ``ys + j``, written from row ``d0`` of ``dst`` (as :meth:`dpmo.trees.Tree.replace`); returns its size."""
    size_i = np.int64(X[xs + i, _S])
    size_j = np.int64(Y[ys + j, _S])
    delta = size_j - size_i
    _copy_rows(dst, d0, X, xs, i)
    for k in range(i):
        if k + X[xs + k, _S] > i:  # an ancestor of i
            dst[d0 + k, _S] += delta
    shift = X[xs + i, _D] - Y[ys + j, _D]
    _copy_rows(dst, d0 + i, Y, ys + j, size_j)
    for k in range(d0 + i, d0 + i + size_j):
        dst[k, _D] += shift
    _copy_rows(dst, d0 + i + size_j, X, xs + i + size_i, nx - i - size_i)
    return nx + delta


@numba.njit(cache=True, nogil=True)
def _prune_into(pool, at, src, n, dmax, rng):  # pragma: no cover - compiled
    """Write ``prune(src[:n], dmax)`` at row ``at`` of ``pool`` (as :func:`dpmo.trees.prune`); returns the
    pool (maybe reallocated) and the number of rows written."""
    deepest = 0.0
    for q in range(n):
        deepest = max(deepest, src[q, _D])
    pool = _reserve(pool, at + n)
    if deepest <= dmax:
        _copy_rows(pool, at, src, np.int64(0), n)
        return pool, n
    kept_before = np.empty(n + 1, np.int64)  # kept nodes among the first q
    kept_before[0] = 0
    for q in range(n):
        kept_before[q + 1] = kept_before[q] + (1 if src[q, _D] <= dmax else 0)
    w = at
    for q in range(n):
        if src[q, _D] > dmax:
            continue
        _copy_rows(pool, w, src, q, np.int64(1))
        pool[w, _S] = kept_before[q + np.int64(src[q, _S])] - kept_before[q]
        if src[q, _D] == dmax and src[q, _F] >= 0:  # cut: a random leaf
            pool[w, _F] = -1.0
            pool[w, _V] = 0.0
            pool[w, _C] = 0.0
            pool[w, _L] = rng.integers(0, 2)
        w += 1
    return pool, w - at


@numba.njit(cache=True, nogil=True)
def random_population(n_trees, depth, is_cat, ncat, rng):  # pragma: no cover - compiled
    """``n_trees`` calls of :func:`dpmo.trees.random_tree` ``(depth)``: the node matrix and the offsets.

    O(n_trees 2**depth) time; uses no data.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.breeding import random_population
    >>> nodes, offsets = random_population(4, 2, np.zeros(3, bool), np.zeros(3, np.int64),
    ...                                    np.random.default_rng(0))
    >>> offsets.tolist()  # four full trees of depth 2: 7 nodes each
    [0, 7, 14, 21, 28]
    """
    m = (1 << (depth + 1)) - 1
    out = np.empty((n_trees * m, 6))
    offsets = np.empty(n_trees + 1, np.int64)
    offsets[0] = 0
    for t in range(n_trees):
        offsets[t + 1] = offsets[t] + _random_tree(out, offsets[t], depth, is_cat, ncat, rng)
    return out, offsets


@numba.njit(cache=True, nogil=True)
def _choose_two(rng, m):  # pragma: no cover - compiled
    """``rng.choice(m, size=2, replace=False)`` with NumPy's draws (Floyd's algorithm, then a shuffle)."""
    first = rng.integers(0, m - 1)
    second = rng.integers(0, m)
    if second == first:
        second = m - 1
    if rng.integers(0, 2) == 0:
        return second, first
    return first, second


@numba.njit(cache=True, nogil=True)
def breed(parents, offsets, n_pairs, dmax, is_cat, ncat, rng):  # pragma: no cover - compiled
    """The ``2 n_pairs`` children of one generation of DP-MOET: their node matrix and offsets.

    For each pair: two distinct trees drawn uniformly from the parents and the children made so far
    (the population grows with the children), crossed over (:func:`dpmo.trees.crossover`); each child is
    then mutated with ``d_max`` (:func:`dpmo.trees.mutate`) and pruned to ``d_max``
    (:func:`dpmo.trees.prune`). Same draws as those functions called in that order.

    Notes
    -----
    O(sum of the sizes of the trees handled + 2**d_max per mutation) time; uses no data.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import TreePopulation
    >>> from dpmo.trees.breeding import breed, node_arrays, random_population
    >>> rng = np.random.default_rng(0)
    >>> is_cat, ncat = np.zeros(3, bool), np.zeros(3, np.int64)
    >>> parents, offsets = random_population(4, 2, is_cat, ncat, rng)
    >>> nodes, child_offsets = breed(parents, offsets, 3, 4, is_cat, ncat, rng)
    >>> children = TreePopulation.from_arrays(*node_arrays(nodes), child_offsets).check()
    >>> len(children), max(t.max_depth for t in children) <= 4  # 2 children per pair, pruned to d_max
    (6, True)
    """
    n_par = offsets.shape[0] - 1
    starts = np.empty(n_par + 2 * n_pairs, np.int64)
    lens = np.empty(n_par + 2 * n_pairs, np.int64)
    end = offsets[n_par]
    pool = np.empty((max(2 * end, 64), 6))
    zero = np.int64(0)  # typed 0s: literal arguments would compile the helpers once more
    _copy_rows(pool, zero, parents, zero, end)
    for t in range(n_par):
        starts[t] = offsets[t]
        lens[t] = offsets[t + 1] - offsets[t]
    first_child = end
    full = (1 << (dmax + 1)) - 1
    x = np.empty((64, 6))
    y = np.empty((64, 6))
    r = np.empty((full, 6))
    m_pair = np.empty(2, np.int64)
    for pair in range(n_pairs):
        m = n_par + 2 * pair
        if m >= 2:
            a, b = _choose_two(rng, m)
        else:
            a = b = 0
        sa, na, sb, nb = starts[a], lens[a], starts[b], lens[b]
        ia = rng.integers(0, na)
        ib = rng.integers(0, nb)
        x = _reserve(x, 2 * (na + nb))  # the two crossover children, one after the other
        m_pair[0] = _replace(x, zero, pool, sa, na, ia, pool, sb, ib)
        m_pair[1] = _replace(x, m_pair[0], pool, sb, nb, ib, pool, sa, ia)
        for child in range(2):
            at = 0 if child == 0 else m_pair[0]
            nc = m_pair[child]
            i = rng.integers(0, nc)
            depth = max(dmax - np.int64(x[at + i, _D]), 0)
            nr = _random_tree(r, zero, depth, is_cat, ncat, rng)
            y = _reserve(y, nc + nr)
            ny = _replace(y, zero, x, at, nc, i, r, zero, zero)
            pool, added = _prune_into(pool, end, y, ny, dmax, rng)
            k = n_par + 2 * pair + child
            starts[k] = end
            lens[k] = added
            end += added
    child_offsets = np.empty(2 * n_pairs + 1, np.int64)
    child_offsets[0] = 0
    for k in range(2 * n_pairs):
        child_offsets[k + 1] = child_offsets[k] + lens[n_par + k]
    out = np.empty((end - first_child, 6))
    _copy_rows(out, zero, pool, first_child, end - first_child)
    return out, child_offsets
