"""Evaluation of a population of decision trees on a data set, all trees and all rows at once.

A :class:`TreePopulation` packs many :class:`~dpmo.trees.tree.Tree` objects into flat arrays and evaluates
all of them on all rows at once (:meth:`TreePopulation.counts`, :meth:`TreePopulation.predict`). Two exact
engines, chosen from the data's shape only (never from private values in a way that changes the result):

* **bitset** (used when every feature has few distinct values, as in NLTCS, ACS and Adult): each split
  ``x[f] <= v`` / ``x[f] == v`` is one of few distinct row sets; all of them are precomputed once per data
  set as packed bit sets (:class:`~dpmo.trees.encoding.EncodedData`). The trees are then walked level by
  level for the whole population at once: the row set of a child is the parent's set AND the split's set
  (or AND NOT), so a level costs O(nodes x n / 64) word operations. Children that receive no row are
  dropped with their subtree; leaves are counted with ``popcount``.
* **level** (general): the classic vectorised traversal, one node index per (tree, row) pair, advanced one
  depth level at a time for every pair at once; pairs that reached a leaf are dropped.

Both engines give identical results; the tests compare them with a per-row traversal.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._validation import check_X
from .encoding import EncodedData
from .tree import Tree

__all__ = ["TreePopulation"]


class TreePopulation:
    """A population of trees packed into flat arrays, evaluated all at once.

    Parameters
    ----------
    trees : iterable of Tree

    Attributes
    ----------
    offsets : ndarray of int64, shape (T + 1,)
        Tree ``i`` occupies the global nodes ``offsets[i] .. offsets[i + 1] - 1``.
    feature, value, categorical, label, depth : ndarray
        Concatenated node arrays.
    left, right : ndarray of int64
        Global child indices (a leaf points to itself, so extra traversal steps are no-ops).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import TreePopulation, tree_from_nested
    >>> trees = [tree_from_nested((0, 0.5, False, 0, 1)), tree_from_nested(1)]  # a stump, an "always 1" leaf
    >>> X, y = np.array([[0.1], [0.4], [0.8], [0.9]]), np.array([0, 1, 1, 1])
    >>> tp, p, tn, n = TreePopulation(trees).counts(X, y)
    >>> # the stump misses row 1; the "always 1" leaf finds every positive and no negative
    >>> tp.tolist(), p.tolist(), tn.tolist(), n.tolist()
    ([2, 3], [3, 3], [1, 0], [1, 1])
    >>> TreePopulation(trees).predict(X).shape  # (trees, rows)
    (2, 4)
    """

    def __init__(self, trees: Iterable[Tree]):
        trees = list(trees)
        for i, t in enumerate(trees):
            if not isinstance(t, Tree):
                raise TypeError(f"trees[{i}] must be a Tree, got {type(t).__name__}")
        if not trees:
            raise ValueError("a population needs at least one tree")
        self.trees = tuple(trees)
        sizes = np.array([t.n_nodes for t in trees], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.feature = np.concatenate([t.feature for t in trees])
        self.value = np.concatenate([t.value for t in trees])
        self.categorical = np.concatenate([t.categorical for t in trees])
        self.label = np.concatenate([t.label for t in trees])
        self.depth = np.concatenate([t.depth for t in trees])
        size = np.concatenate([t.size for t in trees]).astype(np.int64)
        gid = np.arange(self.feature.shape[0], dtype=np.int64)
        internal = self.feature >= 0
        self.left = np.where(internal, gid + 1, gid)
        li = np.minimum(gid + 1, gid.size - 1)
        self.right = np.where(internal, gid + 1 + size[li], gid)
        self.tree_of_node = np.repeat(np.arange(len(trees), dtype=np.int64), sizes)

    def __len__(self) -> int:
        return len(self.trees)

    def __getitem__(self, i) -> Tree:
        return self.trees[i]

    def __iter__(self):
        return iter(self.trees)

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def __repr__(self) -> str:
        return (
            f"TreePopulation(n_trees={len(self)}, n_nodes={self.feature.shape[0]}, "
            f"max_depth={self.max_depth})"
        )

    # -- engines ---------------------------------------------------------------------------------------
    def _check_features(self, d: int) -> None:
        if self.feature.size and int(self.feature.max()) >= d:
            raise ValueError(f"a tree tests feature {int(self.feature.max())} but X has {d} columns")

    def leaf_index(self, X) -> np.ndarray:
        """Global index of the leaf reached by every row in every tree, shape (T, n) (level engine).

        O(T * n * depth) time, vectorised over (tree, row) pairs one depth level at a time; pairs that
        reach a leaf leave the working set.
        """
        X = X.X if isinstance(X, EncodedData) else check_X(X)
        n, d = X.shape
        self._check_features(d)
        T = len(self)
        out = np.empty(T * n, dtype=np.int64)
        node = np.repeat(self.offsets[:-1], n)
        pair = np.arange(T * n, dtype=np.int64)
        Xf = X.ravel()
        row_base = np.tile(np.arange(n, dtype=np.int64) * d, T)
        feature = self.feature.astype(np.int64)
        while node.size:
            f = feature[node]
            done = f < 0
            if np.any(done):
                out[pair[done]] = node[done]
                keep = ~done
                node, pair, row_base, f = node[keep], pair[keep], row_base[keep], f[keep]
                if not node.size:
                    break
            x = Xf[row_base + f]
            v = self.value[node]
            go_left = np.where(self.categorical[node], x == v, x <= v)
            node = np.where(go_left, self.left[node], self.right[node])
        return out.reshape(T, n)

    def positive_sets(self, enc: EncodedData, *, chunk_bytes: int = 1 << 22) -> np.ndarray:
        """Packed set of the rows each tree predicts positive, shape (T, W) uint64 (bitset engine).

        The trees are walked level by level, a group of trees at a time (about ``chunk_bytes`` of row sets
        per level, so the working set stays in cache). At a decision node the left child's set is the
        node's set AND the split's precomputed set, the right child's the remainder; children with no row
        are dropped together with their subtrees; the sets of the leaves labelled 1 are OR-ed into their
        tree's row of the result. O(nodes_reached * W) word operations.
        """
        if not enc.bitset:
            raise ValueError("this EncodedData has no bitset tables (too many distinct values)")
        self._check_features(enc.d)
        T = len(self)
        W = enc.W
        acc = np.zeros((T, W), dtype=np.uint64)
        tid = enc.test_index(self.feature, self.value, self.categorical)
        tables = enc.tables
        budget = max(1, chunk_bytes // (8 * W))
        sizes = np.diff(self.offsets)
        a = 0
        while a < T:
            b = a + 1
            total = int(sizes[a])
            while b < T and total + int(sizes[b]) <= budget:
                total += int(sizes[b])
                b += 1
            nodes = self.offsets[a:b].copy()
            sets = np.repeat(enc.all_bits[None, :], nodes.size, axis=0)
            while True:
                leaf = self.feature[nodes] < 0
                if leaf.any():
                    pos = leaf & (self.label[nodes] == 1)
                    if pos.any():
                        owners = self.tree_of_node[nodes[pos]]  # non-decreasing: children keep tree order
                        starts = np.flatnonzero(np.concatenate([[True], owners[1:] != owners[:-1]]))
                        acc[owners[starts]] |= np.bitwise_or.reduceat(sets[pos], starts, axis=0)
                    inner = ~leaf
                    nodes, sets = nodes[inner], sets[inner]
                if not nodes.size:
                    break
                K = nodes.size
                out = np.empty((K, 2, W), dtype=np.uint64)
                go = np.take(tables, tid[nodes], axis=0)
                np.bitwise_and(sets, go, out=out[:, 0])
                np.bitwise_xor(sets, out[:, 0], out=out[:, 1])
                children = np.empty(2 * K, dtype=np.int64)
                children[0::2] = nodes + 1  # the left child follows its parent in preorder
                children[1::2] = self.right[nodes]
                nodes = children
                sets = out.reshape(2 * K, W)
                nonempty = sets.any(axis=1)
                if not nonempty.all():
                    nodes, sets = nodes[nonempty], sets[nonempty]
            a = b
        return acc

    def counts(self, X, y=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Confusion counts of every tree: ``(TP, P, TN, N)``, four int64 arrays of shape (T,).

        Parameters
        ----------
        X : array_like (n, d) or EncodedData
            Reuse an :class:`EncodedData` (built with ``y``) to evaluate many populations on one data set.
        y : array_like of 0/1, shape (n,)
            Required unless ``X`` is an EncodedData built with labels.

        Notes
        -----
        ``P`` and ``N`` (positives and negatives of the data) are the same for every tree. Bitset engine:
        O(nodes_reached * n / 64) word operations; level engine: O(T * n * depth).
        """
        enc = self._encoded(X, y)
        if enc.y is None:
            raise ValueError("counts needs labels: pass y, or an EncodedData built with y")
        T = len(self)
        if enc.bitset:
            acc = self.positive_sets(enc)
            tp = np.bitwise_count(acc & enc.pos_bits).sum(axis=1, dtype=np.int64)
            fp = np.bitwise_count(acc & enc.neg_bits).sum(axis=1, dtype=np.int64)
        else:
            pred = self.label[self.leaf_index(enc.X)] == 1  # (T, n)
            tp = np.count_nonzero(pred & enc.y, axis=1).astype(np.int64)
            fp = np.count_nonzero(pred & ~enc.y, axis=1).astype(np.int64)
        P = np.full(T, enc.positives, dtype=np.int64)
        N = np.full(T, enc.negatives, dtype=np.int64)
        return tp, P, N - fp, N

    def predict(self, X) -> np.ndarray:
        """Predicted labels of every tree on every row, int8 array of shape (T, n).

        O(T * n * depth) (level engine) or O(nodes_reached * n / 64) (bitset engine, when ``X`` is an
        :class:`EncodedData` with tables).
        """
        if isinstance(X, EncodedData) and X.bitset:
            acc = self.positive_sets(X)
            bits = np.unpackbits(acc.view(np.uint8), axis=1, count=X.n, bitorder="little")
            return bits.astype(np.int8)
        return self.label[self.leaf_index(X)]

    def _encoded(self, X, y) -> EncodedData:
        if isinstance(X, EncodedData):
            if y is not None:
                raise ValueError("pass y when building the EncodedData, not with it")
            self._check_features(X.d)
            return X
        enc = EncodedData(X, y)
        self._check_features(enc.d)
        return enc
