"""The genetic operators of DP-MOET on whole populations in flat arrays, compiled (numba).

:func:`random_population` draws the initial population and :func:`breed` one generation's children
(the paper's Algorithm "DP-MOET", lines "crossover", "mutate", "prune") in one compiled call each, on the
preorder arrays of :class:`~dpmo.trees.evaluation.TreePopulation` (``feature``, ``value``,
``categorical``, ``label``, ``size``, ``depth`` and the ``offsets`` of the trees). They make exactly the
random draws, in the same order, from the same ``numpy.random.Generator``, as the one-tree operators of
:mod:`dpmo.trees.operations` called one after another (numba's Generator methods follow NumPy's
algorithms), so a seeded fit gives the same trees whichever is used; the tests compare them.

Randomness is public: the operators read the public feature metadata (``is_categorical``,
``n_categories``), the trees (earlier private outputs) and the generator, never the data.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["random_population", "breed"]


@numba.njit(cache=True, nogil=True)
def _reserve(arrs, need):  # pragma: no cover - compiled
    """The six node arrays with room for at least ``need`` nodes (copied into larger ones if needed)."""
    F, V, C, L, S, D = arrs
    if F.shape[0] >= need:
        return arrs
    cap = max(need, 2 * F.shape[0])
    F2 = np.empty(cap, np.int32)
    V2 = np.empty(cap, np.float64)
    C2 = np.empty(cap, np.bool_)
    L2 = np.empty(cap, np.int8)
    S2 = np.empty(cap, np.int32)
    D2 = np.empty(cap, np.int32)
    n = F.shape[0]
    F2[:n] = F
    V2[:n] = V
    C2[:n] = C
    L2[:n] = L
    S2[:n] = S
    D2[:n] = D
    return F2, V2, C2, L2, S2, D2


@numba.njit(cache=True, nogil=True)
def _empty(cap):  # pragma: no cover - compiled
    return (
        np.empty(cap, np.int32),
        np.empty(cap, np.float64),
        np.empty(cap, np.bool_),
        np.empty(cap, np.int8),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
    )


@numba.njit(cache=True, nogil=True)
def _copy(dst, dpos, src, spos, n, shift):  # pragma: no cover - compiled
    """``n`` nodes of ``src`` from ``spos`` to ``dst`` at ``dpos``, depths moved by ``shift``."""
    for q in range(n):
        dst[0][dpos + q] = src[0][spos + q]
        dst[1][dpos + q] = src[1][spos + q]
        dst[2][dpos + q] = src[2][spos + q]
        dst[3][dpos + q] = src[3][spos + q]
        dst[4][dpos + q] = src[4][spos + q]
        dst[5][dpos + q] = src[5][spos + q] + shift


@numba.njit(cache=True, nogil=True)
def _random_tree(dst, pos, depth, is_cat, ncat, rng):  # pragma: no cover - compiled
    """Write ``random_tree(depth)`` at ``dst[pos:]``; returns its number of nodes.

    The draws of :func:`dpmo.trees.random_tree`: the attribute of every decision node (preorder), then
    their uniform numbers, then the label of every leaf.
    """
    F, V, C, L, S, D = dst
    m = (1 << (depth + 1)) - 1
    stack = np.empty(depth + 2, np.int32)
    sp = 0
    stack[0] = 0
    sp = 1
    p = pos
    while sp > 0:  # preorder depths of the full tree
        sp -= 1
        d = stack[sp]
        D[p] = d
        S[p] = (1 << (depth - d + 1)) - 1
        p += 1
        if d < depth:
            stack[sp] = d + 1
            stack[sp + 1] = d + 1
            sp += 2
    n_features = is_cat.shape[0]
    for q in range(pos, pos + m):
        if D[q] < depth:
            F[q] = rng.integers(0, n_features)
        else:
            F[q] = -1
    for q in range(pos, pos + m):
        L[q] = 0
        if D[q] < depth:
            u = rng.random()
            f = F[q]
            if is_cat[f]:
                V[q] = np.floor(u * max(ncat[f], 1))
                C[q] = True
            else:
                V[q] = u
                C[q] = False
        else:
            V[q] = 0.0
            C[q] = False
    for q in range(pos, pos + m):
        if D[q] == depth:
            L[q] = rng.integers(0, 2)
    return m


@numba.njit(cache=True, nogil=True)
def _replace(dst, X, xs, nx, i, Y, ys, j):  # pragma: no cover - compiled
    """Tree X (at ``xs``, ``nx`` nodes) with its node ``i``'s subtree replaced by Y's subtree at ``ys + j``,
    written at ``dst[0:]`` (as :meth:`dpmo.trees.Tree.replace`); returns its number of nodes."""
    size_i = X[4][xs + i]
    size_j = Y[4][ys + j]
    delta = size_j - size_i
    _copy(dst, 0, X, xs, i, 0)
    for k in range(i):
        if k + X[4][xs + k] > i:  # an ancestor of i
            dst[4][k] += delta
    _copy(dst, i, Y, ys + j, size_j, X[5][xs + i] - Y[5][ys + j])
    _copy(dst, i + size_j, X, xs + i + size_i, nx - i - size_i, 0)
    return nx + delta


@numba.njit(cache=True, nogil=True)
def _prune_append(pool, at, src, n, dmax, rng):  # pragma: no cover - compiled
    """Append ``prune(src[:n], dmax)`` to ``pool`` at ``at`` (as :func:`dpmo.trees.prune`); returns the
    pool (maybe reallocated) and the number of nodes appended."""
    F, V, C, L, S, D = src
    deepest = 0
    for q in range(n):
        if D[q] > deepest:
            deepest = D[q]
    pool = _reserve(pool, at + n)
    if deepest <= dmax:
        _copy(pool, at, src, 0, n, 0)
        return pool, n
    kept_before = np.empty(n + 1, np.int64)  # kept nodes among the first q
    kept_before[0] = 0
    for q in range(n):
        kept_before[q + 1] = kept_before[q] + (1 if D[q] <= dmax else 0)
    PF, PV, PC, PL, PS, PD = pool
    w = at
    for q in range(n):
        if D[q] > dmax:
            continue
        PS[w] = kept_before[q + S[q]] - kept_before[q]
        PD[w] = D[q]
        if D[q] == dmax and F[q] >= 0:  # cut: a random leaf
            PF[w] = -1
            PV[w] = 0.0
            PC[w] = False
            PL[w] = rng.integers(0, 2)
        else:
            PF[w] = F[q]
            PV[w] = V[q]
            PC[w] = C[q]
            PL[w] = L[q]
        w += 1
    return pool, w - at


@numba.njit(cache=True, nogil=True)
def random_population(n_trees, depth, is_cat, ncat, rng):  # pragma: no cover - compiled
    """``n_trees`` calls of :func:`dpmo.trees.random_tree` ``(depth)``: the six node arrays and the offsets.

    O(n_trees 2**depth) time; uses no data.
    """
    m = (1 << (depth + 1)) - 1
    out = _empty(n_trees * m)
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
    """The ``2 n_pairs`` children of one generation of DP-MOET: the six node arrays and their offsets.

    For each pair: two distinct trees drawn uniformly from the parents and the children made so far
    (the population grows with the children), crossed over (:func:`dpmo.trees.crossover`); each child is
    then mutated with ``d_max`` (:func:`dpmo.trees.mutate`) and pruned to ``d_max``
    (:func:`dpmo.trees.prune`). Same draws as those functions called in that order.

    Notes
    -----
    O(sum of the sizes of the trees handled + 2**d_max per mutation) time; uses no data.
    """
    n_par = offsets.shape[0] - 1
    total = n_par + 2 * n_pairs
    starts = np.empty(total, np.int64)
    lens = np.empty(total, np.int64)
    pool = _empty(max(2 * offsets[n_par], 64))
    _copy(pool, 0, parents, 0, offsets[n_par], 0)
    for t in range(n_par):
        starts[t] = offsets[t]
        lens[t] = offsets[t + 1] - offsets[t]
    end = offsets[n_par]
    children_start = end
    full = (1 << (dmax + 1)) - 1
    x1 = _empty(64)
    x2 = _empty(64)
    rt = _empty(64)
    y = _empty(64)
    for pair in range(n_pairs):
        m = n_par + 2 * pair
        if m >= 2:
            a, b = _choose_two(rng, m)
        else:
            a = b = 0
        sa, na, sb, nb = starts[a], lens[a], starts[b], lens[b]
        ia = rng.integers(0, na)
        ib = rng.integers(0, nb)
        x1 = _reserve(x1, na + nb)
        x2 = _reserve(x2, na + nb)
        n1 = _replace(x1, pool, sa, na, ia, pool, sb, ib)
        n2 = _replace(x2, pool, sb, nb, ib, pool, sa, ia)
        for child in range(2):
            src = x1 if child == 0 else x2
            nc = n1 if child == 0 else n2
            i = rng.integers(0, nc)
            depth = max(dmax - src[5][i], 0)
            rt = _reserve(rt, full)
            nr = _random_tree(rt, 0, depth, is_cat, ncat, rng)
            y = _reserve(y, nc + nr)
            ny = _replace(y, src, 0, nc, i, rt, 0, 0)
            pool, added = _prune_append(pool, end, y, ny, dmax, rng)
            k = n_par + 2 * pair + child
            starts[k] = end
            lens[k] = added
            end += added
    child_offsets = np.empty(2 * n_pairs + 1, np.int64)
    child_offsets[0] = 0
    for k in range(2 * n_pairs):
        child_offsets[k + 1] = child_offsets[k] + lens[n_par + k]
    out = _empty(end - children_start)
    _copy(out, 0, pool, children_start, end - children_start, 0)
    return out, child_offsets
