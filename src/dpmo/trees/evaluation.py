"""Evaluation of a population of decision trees on a data set, all trees and all rows at once.

A :class:`TreePopulation` packs many :class:`~dpmo.trees.tree.Tree` objects into flat preorder arrays and
evaluates all of them on all rows in one compiled pass (:meth:`TreePopulation.counts`,
:meth:`TreePopulation.predict`; kernels in :mod:`dpmo.trees.bitsets`). Two exact engines, chosen from the
data's shape only (never from private values in a way that changes the result):

* **bitset** (used when every feature has few distinct values, as in NLTCS, ACS and Adult): each split
  ``x[f] <= v`` / ``x[f] == v`` is one of few distinct row sets, precomputed once per data set as packed
  bit sets (:class:`~dpmo.trees.encoding.EncodedData`). Each tree is walked depth first: the row set of a
  child is the parent's set AND the split's set (or AND NOT), a child with no row is skipped with its
  subtree, and a subtree whose leaves all predict the same label takes its set whole. O(W) word
  operations per node reached (``W = ceil(n / 64)``); the positives are counted with ``popcount``.
* **level** (general): every row walks every tree, O(T n depth).

Both engines give identical results; the tests compare them with a per-row traversal.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._validation import check_X
from .bitsets import leaf_index, masked_popcounts, positive_sets, subtree_labels
from .encoding import EncodedData
from .tree import Tree

__all__ = ["TreePopulation"]

_ARRAYS = ("feature", "value", "categorical", "label", "size", "depth")
_DTYPES = (np.int32, np.float64, np.bool_, np.int8, np.int32, np.int32)


class TreePopulation:
    """A population of trees packed into flat arrays, evaluated all at once.

    Parameters
    ----------
    trees : iterable of Tree

    Attributes
    ----------
    offsets : ndarray of int64, shape (T + 1,)
        Tree ``i`` occupies the global nodes ``offsets[i] .. offsets[i + 1] - 1``.
    feature, value, categorical, label, size, depth : ndarray
        Concatenated preorder node arrays (as in :class:`Tree`).
    left, right : ndarray of int64
        Global child indices (a leaf points to itself, so extra traversal steps are no-ops).
    tree_of_node : ndarray of int64
        The tree each global node belongs to.

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
        sizes = np.array([t.n_nodes for t in trees], dtype=np.int64)
        arrays = [np.concatenate([getattr(t, name) for t in trees]) for name in _ARRAYS]
        self._set(arrays, np.concatenate([[0], np.cumsum(sizes)]), tuple(trees))

    @classmethod
    def from_arrays(cls, feature, value, categorical, label, size, depth, offsets) -> TreePopulation:
        """A population from concatenated preorder arrays (tree ``i`` at ``offsets[i] .. offsets[i+1]-1``).

        The arrays are taken as they are (trusted: the compiled genetic operators of
        :mod:`dpmo.trees.breeding` build valid trees); :meth:`check` validates every tree. O(1).

        Examples
        --------
        >>> import numpy as np
        >>> from dpmo.trees import TreePopulation
        >>> stump = ([0, -1, -1], [0.5, 0, 0], [False] * 3, [0, 0, 1], [3, 1, 1], [0, 1, 1])
        >>> pop = TreePopulation.from_arrays(*stump, offsets=[0, 3])
        >>> pop.check()[0].to_nested()
        (0, 0.5, False, 0, 1)
        """
        arrays = [
            np.asarray(a, dtype=dt)
            for a, dt in zip((feature, value, categorical, label, size, depth), _DTYPES, strict=True)
        ]
        offsets = np.asarray(offsets, dtype=np.int64)
        if offsets.ndim != 1 or offsets.size < 2 or offsets[0] != 0 or offsets[-1] != arrays[0].size:
            raise ValueError(
                "offsets must run from 0 to the number of nodes, one entry per tree and one more"
            )
        if np.any(np.diff(offsets) < 1):
            raise ValueError("every tree needs at least one node (offsets must increase)")
        obj = object.__new__(cls)
        obj._set(arrays, offsets, None)
        return obj

    def _set(self, arrays, offsets, trees) -> None:
        for name, arr in zip(_ARRAYS, arrays, strict=True):
            setattr(self, name, arr)
        self.offsets = offsets
        self._trees = trees
        self._labels = None

    def check(self) -> TreePopulation:
        """Validate every tree (:class:`Tree` checks); returns ``self``. O(nodes)."""
        for i in range(len(self)):
            a, b = int(self.offsets[i]), int(self.offsets[i + 1])
            Tree(*(getattr(self, name)[a:b] for name in _ARRAYS))
        return self

    # -- trees -----------------------------------------------------------------------------------------
    @property
    def trees(self) -> tuple[Tree, ...]:
        """The trees, as :class:`Tree` objects (made on first use when built from arrays, O(nodes))."""
        if self._trees is None:
            self._trees = tuple(self._tree(i) for i in range(len(self)))
        return self._trees

    def _tree(self, i: int) -> Tree:
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return Tree._raw(*(getattr(self, name)[a:b].copy() for name in _ARRAYS))

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def __getitem__(self, i) -> Tree:
        if self._trees is not None:
            return self._trees[i]
        if isinstance(i, slice):
            return tuple(self._tree(j) for j in range(len(self))[i])
        j = int(i)
        if not -len(self) <= j < len(self):
            raise IndexError(f"tree index {i} out of range for {len(self)} trees")
        return self._tree(j % len(self))

    def __iter__(self):
        return iter(self.trees)

    def take(self, indices) -> TreePopulation:
        """The trees ``indices`` (in that order, repeats allowed) as a new population. O(their nodes)."""
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if idx.size == 0:
            raise ValueError("a population needs at least one tree")
        if idx.min() < -len(self) or idx.max() >= len(self):
            raise IndexError(f"tree indices must lie in [-{len(self)}, {len(self)})")
        idx = idx % len(self)
        starts, ends = self.offsets[idx], self.offsets[idx + 1]
        lengths = ends - starts
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        # global node positions of the chosen trees, in order
        pos = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        arrays = [getattr(self, name)[pos] for name in _ARRAYS]
        out = object.__new__(TreePopulation)
        trees = None if self._trees is None else tuple(self._trees[i] for i in idx)
        out._set(arrays, offsets, trees)
        return out

    def concat(self, other: TreePopulation) -> TreePopulation:
        """The trees of ``self`` followed by those of ``other``, as a new population. O(nodes)."""
        arrays = [np.concatenate([getattr(self, n), getattr(other, n)]) for n in _ARRAYS]
        offsets = np.concatenate([self.offsets, other.offsets[1:] + self.offsets[-1]])
        out = object.__new__(TreePopulation)
        both = self._trees is not None and other._trees is not None
        out._set(arrays, offsets, self._trees + other._trees if both else None)
        return out

    # -- derived arrays --------------------------------------------------------------------------------
    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf of any tree. O(nodes)."""
        return int(self.depth.max())

    @property
    def left(self) -> np.ndarray:
        """Global index of every node's left child (a leaf: itself). O(nodes)."""
        gid = np.arange(self.feature.shape[0], dtype=np.int64)
        return np.where(self.feature >= 0, gid + 1, gid)

    @property
    def right(self) -> np.ndarray:
        """Global index of every node's right child (a leaf: itself). O(nodes)."""
        gid = np.arange(self.feature.shape[0], dtype=np.int64)
        li = np.minimum(gid + 1, gid.size - 1)
        return np.where(self.feature >= 0, gid + 1 + self.size[li], gid)

    @property
    def tree_of_node(self) -> np.ndarray:
        """The tree of every global node. O(nodes)."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.offsets))

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

        O(T * n * depth) time in one compiled pass.
        """
        X = X.X if isinstance(X, EncodedData) else check_X(X)
        self._check_features(X.shape[1])
        return leaf_index(X, self.feature, self.value, self.categorical, self.size, self.offsets)

    def positive_sets(self, enc: EncodedData) -> np.ndarray:
        """Packed set of the rows each tree predicts positive, shape (T, W) uint64 (bitset engine).

        One compiled depth-first walk per tree (module notes). O(W) word operations per node reached
        with rows and leaves of both labels below it, W = ceil(n / 64).
        """
        if not enc.bitset:
            raise ValueError("this EncodedData has no bitset tables (too many distinct values)")
        self._check_features(enc.d)
        if self._labels is None:
            self._labels = subtree_labels(self.feature, self.label, self.size, self.offsets)
        rows = enc.test_index(self.feature, self.value, self.categorical)
        return positive_sets(
            enc.tables, enc.all_bits, rows, self.feature, self.size, self.depth, self.offsets, self._labels
        )

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
        O(W) word operations per node reached plus O(T W) for the popcounts; level engine:
        O(T * n * depth).
        """
        enc = self._encoded(X, y)
        if enc.y is None:
            raise ValueError("counts needs labels: pass y, or an EncodedData built with y")
        T = len(self)
        if enc.bitset:
            predicted, tp = masked_popcounts(self.positive_sets(enc), enc.pos_bits)
            fp = predicted - tp
        else:
            pred = self.label[self.leaf_index(enc.X)] == 1  # (T, n)
            tp = np.count_nonzero(pred & enc.y, axis=1).astype(np.int64)
            fp = np.count_nonzero(pred & ~enc.y, axis=1).astype(np.int64)
        P = np.full(T, enc.positives, dtype=np.int64)
        N = np.full(T, enc.negatives, dtype=np.int64)
        return tp, P, N - fp, N

    def predict(self, X) -> np.ndarray:
        """Predicted labels of every tree on every row, int8 array of shape (T, n).

        O(T * n * depth) (level engine) or O(W) per node reached (bitset engine, when ``X`` is an
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
