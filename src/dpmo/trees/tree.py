"""Array-based decision trees and populations of trees (the paper's "Tree Representation and Operations").

A :class:`Tree` stores its nodes in **preorder** in a few parallel numpy arrays:

* ``feature`` (int32): the attribute tested by a decision node, ``-1`` for a leaf;
* ``value`` (float64): the threshold of a numeric test or the category code of a categorical test;
* ``categorical`` (bool): the kind of test. A numeric node sends a row to its left child when
  ``x[feature] <= value``, a categorical node when ``x[feature] == value``; otherwise to the right child;
* ``label`` (int8): the class predicted by a leaf (0 or 1);
* ``size`` (int32): the number of nodes of the subtree rooted at the node (1 for a leaf);
* ``depth`` (int32): the depth of the node, the root being at depth 0.

In preorder the subtree of node ``i`` is the contiguous block ``i .. i + size[i] - 1``, its left child is
``i + 1`` and its right child ``i + 1 + size[i + 1]``, so the genetic operators of
:mod:`dpmo.trees.operations` (swap, replace, prune a subtree) are array slicing and concatenation.
Depth counts edges: a single leaf has depth 0 and :func:`~dpmo.trees.random_tree` ``(d)`` has its
``2**d`` leaves at depth ``d`` (the paper's node depth ``d'`` counts the root as 1, so its
``d_max - d' + 1`` is ``d_max - depth`` here).

A :class:`TreePopulation` packs many trees into flat arrays and evaluates all of them on all rows at once
(:meth:`TreePopulation.counts`, :meth:`TreePopulation.predict`). Two exact engines, chosen from the data's
shape only (never from private values in a way that changes the result):

* **bitset** (used when every feature has few distinct values, as in NLTCS, ACS and Adult): each split
  ``x[f] <= v`` / ``x[f] == v`` is one of few distinct row sets; all of them are precomputed once per data
  set as packed bit sets (:class:`EncodedData`). The trees are then walked level by level for the whole
  population at once: the row set of a child is the parent's set AND the split's set (or AND NOT), so a
  level costs O(nodes x n / 64) word operations. Children that receive no row are dropped with their
  subtree; leaves are counted with ``popcount``.
* **level** (general): the classic vectorised traversal, one node index per (tree, row) pair, advanced one
  depth level at a time for every pair at once; pairs that reached a leaf are dropped.

Both engines give identical results; the tests compare them with a per-row traversal.
"""

from __future__ import annotations

import hashlib
import numbers
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np

from .._validation import check_X

__all__ = ["Tree", "TreePopulation", "EncodedData", "tree_from_nested"]

_ENGINES = ("auto", "bitset", "level")


# ----------------------------------------------------------------------------------------------------------
# single tree


class Tree:
    """One decision tree in preorder arrays (see the module notes for the layout).

    Parameters
    ----------
    feature, value, categorical, label, size, depth : array_like
        Preorder node arrays, all of the same length. ``depth`` and ``size`` are checked against the
        structure.
    check : bool, default True
        Validate the arrays (O(nodes)). The operators build trees from valid pieces and skip it.

    Notes
    -----
    Trees are immutable (read-only arrays). A tree does not know the data set; it refers to attributes
    by column index, so it predicts on any matrix laid out like the one it was built for.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import tree_from_nested
    >>> stump = tree_from_nested((0, 0.5, False, 0, 1))  # x[0] <= 0.5 -> class 0, else class 1
    >>> stump.n_nodes, stump.n_leaves, stump.max_depth
    (3, 2, 1)
    >>> deeper = tree_from_nested((0, 0.5, False, (1, 0.5, False, 0, 1), 1))
    >>> deeper.predict(np.array([[0.2, 0.9], [0.2, 0.1], [0.7, 0.0]])).tolist()
    [1, 0, 1]
    """

    __slots__ = ("feature", "value", "categorical", "label", "size", "depth")

    def __init__(self, feature, value, categorical, label, size, depth, *, check: bool = True):
        arrays = {
            "feature": np.array(feature, dtype=np.int32),
            "value": np.array(value, dtype=np.float64),
            "categorical": np.array(categorical, dtype=bool),
            "label": np.array(label, dtype=np.int8),
            "size": np.array(size, dtype=np.int32),
            "depth": np.array(depth, dtype=np.int32),
        }
        for name, arr in arrays.items():
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if check:
            self._check()

    def __setattr__(self, key, value):
        raise AttributeError("Tree is immutable")

    def __reduce__(self):  # pickling (e.g. a fitted estimator) goes around the immutability guard
        return (_tree_from_arrays, tuple(getattr(self, k) for k in self.__slots__))

    def _check(self) -> None:
        m = self.feature.shape[0]
        for name in ("value", "categorical", "label", "size", "depth"):
            arr = getattr(self, name)
            if arr.ndim != 1 or arr.shape[0] != m:
                raise ValueError(f"tree array {name!r} must have shape ({m},), got {arr.shape}")
        if m == 0:
            raise ValueError("a tree has at least one node")
        if not np.all(np.isfinite(self.value)):
            raise ValueError("tree values must be finite")
        leaf = self.feature < 0
        if np.any(self.feature < -1):
            raise ValueError("feature must be a column index >= 0, or -1 for a leaf")
        if np.any(~np.isin(self.label[leaf], (0, 1))):
            raise ValueError("leaf labels must be 0 or 1")
        # rebuild size and depth from the preorder leaf pattern and compare
        size, depth = _structure_from_leaves(leaf)
        if size is None:
            raise ValueError("the preorder leaf pattern is not a full binary tree")
        if not np.array_equal(size, self.size):
            raise ValueError("size does not match the tree structure")
        if not np.array_equal(depth, self.depth):
            raise ValueError("depth does not match the tree structure")

    @classmethod
    def _raw(cls, feature, value, categorical, label, size, depth) -> Tree:
        """Trusted constructor (arrays already of the right dtypes, owned by the new tree)."""
        obj = object.__new__(cls)
        for name, arr in (
            ("feature", feature),
            ("value", value),
            ("categorical", categorical),
            ("label", label),
            ("size", size),
            ("depth", depth),
        ):
            arr.setflags(write=False)
            object.__setattr__(obj, name, arr)
        return obj

    @classmethod
    def leaf(cls, label: int) -> Tree:
        """A tree made of one leaf predicting ``label``."""
        if label not in (0, 1):
            raise ValueError(f"label must be 0 or 1, got {label!r}")
        return cls._raw(
            np.array([-1], np.int32),
            np.zeros(1),
            np.zeros(1, bool),
            np.array([label], np.int8),
            np.ones(1, np.int32),
            np.zeros(1, np.int32),
        )

    # -- structure -------------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.feature < 0

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.feature < 0))

    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf (0 for a single leaf)."""
        return int(self.depth.max())

    @property
    def left(self) -> np.ndarray:
        """Index of the left child of every node (-1 for leaves)."""
        idx = np.arange(self.n_nodes, dtype=np.int64)
        return np.where(self.feature >= 0, idx + 1, -1)

    @property
    def right(self) -> np.ndarray:
        """Index of the right child of every node (-1 for leaves)."""
        idx = np.arange(self.n_nodes, dtype=np.int64)
        internal = self.feature >= 0
        out = np.full(self.n_nodes, -1, dtype=np.int64)
        li = idx[internal] + 1
        out[internal] = li + self.size[li]
        return out

    def subtree(self, i: int) -> Tree:
        """The subtree rooted at node ``i`` (a new tree, depths relative to ``i``). O(size) time."""
        i = self._node(i)
        sl = slice(i, i + int(self.size[i]))
        return Tree._raw(
            self.feature[sl].copy(),
            self.value[sl].copy(),
            self.categorical[sl].copy(),
            self.label[sl].copy(),
            self.size[sl].copy(),
            self.depth[sl] - self.depth[i],
        )

    def replace(self, i: int, sub: Tree) -> Tree:
        """This tree with the subtree at node ``i`` replaced by ``sub``. O(n_nodes + sub.n_nodes) time."""
        i = self._node(i)
        if not isinstance(sub, Tree):
            raise TypeError(f"sub must be a Tree, got {type(sub).__name__}")
        end = i + int(self.size[i])
        delta = sub.n_nodes - int(self.size[i])
        size_prefix = self.size[:i].copy()
        idx = np.arange(i)
        ancestors = idx + size_prefix > i  # nodes before i whose block contains i
        size_prefix[ancestors] += delta
        return Tree._raw(
            np.concatenate([self.feature[:i], sub.feature, self.feature[end:]]),
            np.concatenate([self.value[:i], sub.value, self.value[end:]]),
            np.concatenate([self.categorical[:i], sub.categorical, self.categorical[end:]]),
            np.concatenate([self.label[:i], sub.label, self.label[end:]]),
            np.concatenate([size_prefix, sub.size, self.size[end:]]),
            np.concatenate([self.depth[:i], sub.depth + self.depth[i], self.depth[end:]]),
        )

    def _node(self, i) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (numbers.Integral, np.integer)):
            raise TypeError(f"node index must be an int, got {type(i).__name__}")
        i = int(i)
        if not 0 <= i < self.n_nodes:
            raise ValueError(f"node index must be in [0, {self.n_nodes}), got {i}")
        return i

    # -- prediction ------------------------------------------------------------------------------------
    def predict(self, X) -> np.ndarray:
        """Predicted labels (int8, shape (n,)) for the rows of ``X``. O(n * depth) time."""
        return TreePopulation([self]).predict(X)[0]

    def to_nested(self) -> object:
        """The tree as nested tuples ``(feature, value, categorical, left, right)`` / leaf label ints."""

        def build(i: int):
            if self.feature[i] < 0:
                return int(self.label[i])
            left = i + 1
            right = left + int(self.size[left])
            return (
                int(self.feature[i]),
                float(self.value[i]),
                bool(self.categorical[i]),
                build(left),
                build(right),
            )

        return build(0)

    def to_text(self, features: Sequence | None = None) -> str:
        """Human-readable rules (``features``: Feature objects or names, optional).

        With :class:`~dpmo.datasets.Feature` metadata, categories are shown by name and numeric thresholds
        in the original units (``lo + value * (hi - lo)``). O(nodes) time.
        """

        def fname(f: int) -> str:
            if features is None:
                return f"x[{f}]"
            item = features[f]
            return getattr(item, "name", str(item))

        def cat(f: int, v: float) -> str:
            if features is not None and getattr(features[f], "categories", ()):
                return repr(features[f].categories[int(v)])
            return f"{v:g}"

        lines: list[str] = []

        def walk(i: int, level: int) -> None:
            pad = "    " * level
            f = int(self.feature[i])
            if f < 0:
                lines.append(f"{pad}predict {int(self.label[i])}")
                return
            if self.categorical[i]:
                lines.append(f"{pad}if {fname(f)} == {cat(f, self.value[i])}:")
            else:
                v = float(self.value[i])
                bounds = getattr(features[f], "bounds", None) if features is not None else None
                shown = f"{v:.6g}" if bounds is None else f"{bounds[0] + v * (bounds[1] - bounds[0]):.6g}"
                lines.append(f"{pad}if {fname(f)} <= {shown}:")
            left = i + 1
            walk(left, level + 1)
            lines.append(f"{pad}else:")
            walk(left + int(self.size[left]), level + 1)

        walk(0, 0)
        return "\n".join(lines)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return all(np.array_equal(getattr(self, k), getattr(other, k)) for k in self.__slots__)

    def __hash__(self):  # pragma: no cover - trees are compared by value, not hashed
        raise TypeError("Tree is not hashable")

    def __repr__(self) -> str:
        return f"Tree(n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, max_depth={self.max_depth})"


def _tree_from_arrays(feature, value, categorical, label, size, depth) -> Tree:
    """Unpickle a :class:`Tree` (trusted arrays, made read-only)."""
    return Tree._raw(*(np.array(a) for a in (feature, value, categorical, label, size, depth)))


def _structure_from_leaves(leaf: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """size and depth of a full binary tree given its preorder leaf pattern (None if not a valid tree)."""
    m = leaf.shape[0]
    size = np.zeros(m, dtype=np.int32)
    depth = np.zeros(m, dtype=np.int32)
    stack: list[list[int]] = []  # [node, children seen]
    for i in range(m):
        if stack:
            depth[i] = depth[stack[-1][0]] + 1
        elif i > 0:
            return None, None
        if leaf[i]:
            size[i] = 1
            # close finished ancestors
            while stack:
                top = stack[-1]
                top[1] += 1
                if top[1] < 2:
                    break
                stack.pop()
                node = top[0]
                size[node] = i - node + 1
        else:
            stack.append([i, 0])
    if stack:
        return None, None
    return size, depth


def tree_from_nested(nested) -> Tree:
    """Build a tree from nested tuples ``(feature, value, categorical, left, right)``; a leaf is 0 or 1.

    Convenient for hand-written trees in tests and examples. O(nodes) time.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import tree_from_nested
    >>> stump = tree_from_nested((0, 0.5, False, 0, 1))  # x[0] <= 0.5 -> class 0, else class 1
    >>> stump.predict(np.array([[0.2], [0.9]])).tolist()
    [0, 1]
    >>> stump.to_nested() == (0, 0.5, False, 0, 1)  # and back
    True
    """
    feat, val, cat, lab = [], [], [], []

    def walk(node):
        if isinstance(node, (bool, np.bool_)):
            raise TypeError("a leaf must be the int 0 or 1")
        if isinstance(node, (numbers.Integral, np.integer)):
            if node not in (0, 1):
                raise ValueError(f"a leaf must be 0 or 1, got {node!r}")
            feat.append(-1)
            val.append(0.0)
            cat.append(False)
            lab.append(int(node))
            return
        try:
            f, v, c, left, right = node
        except (TypeError, ValueError):
            raise ValueError(
                f"a node must be (feature, value, categorical, left, right), got {node!r}"
            ) from None
        if isinstance(f, (bool, np.bool_)) or not isinstance(f, (numbers.Integral, np.integer)) or f < 0:
            raise ValueError(f"feature must be a non-negative int, got {f!r}")
        feat.append(int(f))
        val.append(float(v))
        cat.append(bool(c))
        lab.append(0)
        walk(left)
        walk(right)

    walk(nested)
    leaf = np.array(feat) < 0
    size, depth = _structure_from_leaves(leaf)
    return Tree(feat, val, cat, lab, size, depth)


# ----------------------------------------------------------------------------------------------------------
# encoded data for the bitset engine


def _pack_rows(mask: np.ndarray) -> np.ndarray:
    """Boolean array (..., n) -> packed uint64 bit sets (..., W), W = ceil(n / 64), little-endian bits."""
    n = mask.shape[-1]
    W = (n + 63) // 64
    packed = np.packbits(mask, axis=-1, bitorder="little")
    pad = W * 8 - packed.shape[-1]
    if pad:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (pad,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view(np.uint64)


def _unique_codes(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of ``col`` and the index of each entry among them (``col == u[code]``).

    Small non-negative integer columns (categorical codes, 0/1 attributes) are counted in O(n); other
    columns are sorted. Both give the same result.
    """
    if col.size:
        lo, hi = col.min(), col.max()
        if lo >= 0 and hi < 65536:
            ints = col.astype(np.intp)
            if np.array_equal(ints, col):
                present = np.bincount(ints, minlength=int(hi) + 1) > 0
                rank = np.cumsum(present) - 1
                return np.flatnonzero(present).astype(np.float64), rank[ints]
    u, code = np.unique(col, return_inverse=True)
    return u, code.reshape(-1)


class EncodedData:
    """A data matrix prepared for fast evaluation of many trees (the bitset engine).

    For every numeric column the sorted distinct values ``u_0 < ... < u_{k-1}`` and the packed row sets
    ``{x <= u_j}``; for every column used categorically the row sets ``{x == c}``. A test
    ``x[f] <= v`` is the set ``{x <= u_j}`` with ``j`` the last distinct value ``<= v`` (the empty set when
    there is none), so every split of every tree is one of ``sum_f (k_f + 1)`` precomputed sets.

    Parameters
    ----------
    X : array_like, shape (n, d)
    y : array_like of 0/1, shape (n,), optional
        Labels; required by :meth:`TreePopulation.counts`.
    engine : {"auto", "bitset", "level"}, default "auto"
        ``"auto"`` builds the bitset tables when every column has at most ``max_distinct`` distinct values
        and the tables fit in ``max_bytes`` (memory ``2 sum_f k_f n / 8`` bytes); otherwise
        :attr:`bitset` is False and the level engine is used. Both engines return the same exact counts,
        so the choice (which depends on the data's shape) changes the running time only.
    max_distinct, max_bytes : int
        Limits of ``"auto"`` (``max_bytes`` also bounds ``"bitset"``).

    Notes
    -----
    Built in O(n d log n + sum_f k_f n / 64) time. Nothing here is released: the tables are a private
    intermediate used to compute the exact counts that the private selection then protects.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> X, y = np.array([[0.1], [0.4], [0.8], [0.9]]), np.array([0, 1, 1, 1])
    >>> enc = EncodedData(X, y)
    >>> population = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])
    >>> [c.tolist() for c in population.counts(enc)] == [c.tolist() for c in population.counts(X, y)]
    True
    """

    def __init__(
        self, X, y=None, *, engine: str = "auto", max_distinct: int = 4096, max_bytes: int = 256 << 20
    ):
        if engine not in _ENGINES:
            raise ValueError(f"engine must be one of {list(_ENGINES)}, got {engine!r}")
        X = check_X(X)
        self.X = X
        self.n, self.d = X.shape
        self.W = (self.n + 63) // 64
        if y is not None:
            y = np.asarray(y)
            if y.shape != (self.n,):
                raise ValueError(f"y must have shape ({self.n},), got {y.shape}")
            if not np.all((y == 0) | (y == 1)):
                raise ValueError("y must hold binary labels 0/1")
            y = y.astype(bool)
            self.y = y
            self.positives = int(y.sum())
            self.negatives = int(self.n - self.positives)
            self.pos_bits = _pack_rows(y)
            self.neg_bits = _pack_rows(~y)
        else:
            self.y = None
            self.positives = self.negatives = None
            self.pos_bits = self.neg_bits = None
        self.all_bits = _pack_rows(np.ones(self.n, dtype=bool))
        uniq_codes = [_unique_codes(X[:, f]) for f in range(self.d)]
        self.uniques = [u for u, _ in uniq_codes]
        self._codes = [c for _, c in uniq_codes]
        total = sum(u.size for u in self.uniques)
        fits = (2 * total + 1) * self.W * 8 <= max_bytes
        if engine == "bitset" and not fits:
            raise ValueError(f"the bitset tables would take more than max_bytes={max_bytes} bytes")
        self.bitset = bool(
            self.n > 0
            and self.d > 0
            and engine != "level"
            and fits
            and (engine == "bitset" or max(u.size for u in self.uniques) <= max_distinct)
        )
        if self.bitset:
            self._build_tables()
        del self._codes

    #: Encodings kept by :meth:`cached` (least recently used first).
    _CACHE: OrderedDict[bytes, EncodedData] = OrderedDict()
    _CACHE_LOCK = threading.Lock()
    #: Number of encodings :meth:`cached` keeps.
    CACHE_SIZE = 4

    @classmethod
    def cached(cls, X, y=None) -> EncodedData:
        """The encoding of ``(X, y)`` with the default settings, reused when the same data come again.

        Estimators call this once per ``fit`` and once per ``evaluate``; in an experiment with hundreds
        of fits on one table the encoding (sorting every column and building the bit sets) would
        otherwise dominate. The key is a digest of the *contents* of ``X`` and ``y`` (with their shapes
        and dtypes), so a modified array is encoded anew; the last :attr:`CACHE_SIZE` encodings are kept.
        Thread-safe.
        The result is the same object for equal data: treat it as read-only (its tables are).

        Notes
        -----
        O(n d) to hash the data (a few milliseconds for 45,000 x 12 values) when the encoding is
        cached, otherwise the cost of the constructor. Nothing is released: the cache lives in the
        process that holds the data anyway.
        """
        X = check_X(X)
        Xc = np.ascontiguousarray(X)
        digest = hashlib.sha256()
        digest.update(repr((Xc.shape, Xc.dtype.str)).encode())
        digest.update(Xc.tobytes() if Xc.size == 0 else memoryview(Xc).cast("B"))
        if y is not None:
            yc = np.ascontiguousarray(np.asarray(y))
            digest.update(repr((yc.shape, yc.dtype.str)).encode())
            digest.update(yc.tobytes() if yc.size == 0 else memoryview(yc).cast("B"))
        key = digest.digest()
        with cls._CACHE_LOCK:
            enc = cls._CACHE.get(key)
            if enc is not None:
                cls._CACHE.move_to_end(key)
                return enc
        Xc = Xc.copy()  # the cached encoding must not see later changes of the caller's array
        Xc.setflags(write=False)
        enc = cls(Xc, y)
        with cls._CACHE_LOCK:
            cls._CACHE[key] = enc
            while len(cls._CACHE) > cls.CACHE_SIZE:
                cls._CACHE.popitem(last=False)
        return enc

    def _build_tables(self) -> None:
        # numeric table: for column f, block rows offset_le[f] .. + k_f : {x <= u_j}; one extra empty row
        # at index 0 for thresholds below every value. Categorical: offset_eq[f] + j : {x == u_j}.
        ks = np.array([u.size for u in self.uniques], dtype=np.int64)
        self.offset_le = 1 + np.concatenate([[0], np.cumsum(ks)[:-1]])
        self.offset_eq = self.offset_le + ks.sum()
        tables = np.zeros((1 + 2 * int(ks.sum()), self.W), dtype=np.uint64)
        rows = np.arange(self.n, dtype=np.uint64)
        for f, u in enumerate(self.uniques):
            code = self._codes[f]  # X[:, f] == u[code]
            if u.size * self.n <= 1 << 24:
                eq_bits = _pack_rows(code[None, :] == np.arange(u.size)[:, None])
            else:
                eq_bits = np.zeros((u.size, self.W), dtype=np.uint64)
                # distinct rows set distinct bits, so adding them is OR-ing them
                np.add.at(
                    eq_bits,
                    (code, (rows >> np.uint64(6)).astype(np.intp)),
                    np.uint64(1) << (rows & np.uint64(63)),
                )
            tables[self.offset_eq[f] : self.offset_eq[f] + u.size] = eq_bits
            tables[self.offset_le[f] : self.offset_le[f] + u.size] = np.bitwise_or.accumulate(eq_bits, axis=0)
        tables.setflags(write=False)
        self.tables = tables

    def test_index(self, feature: np.ndarray, value: np.ndarray, categorical: np.ndarray) -> np.ndarray:
        """Row of :attr:`tables` holding the set of rows that go LEFT at each given split. O(s log k)."""
        out = np.zeros(feature.shape[0], dtype=np.int64)
        if feature.size == 0:
            return out
        if np.any(feature >= self.d):
            raise ValueError(f"a tree tests feature {int(feature.max())} but X has {self.d} columns")
        order = np.argsort(feature, kind="stable")
        fs = feature[order]
        starts = np.searchsorted(fs, np.arange(self.d + 1))
        for f in range(self.d):
            a, b = starts[f], starts[f + 1]
            if a == b:
                continue
            sel = order[a:b]
            u = self.uniques[f]
            v = value[sel]
            cat = categorical[sel]
            le = np.searchsorted(u, v, side="right")  # number of distinct values <= v
            res = np.where(le > 0, self.offset_le[f] + le - 1, 0)
            if np.any(cat):
                pos = np.searchsorted(u, v[cat])
                pos_c = np.minimum(pos, u.size - 1)
                hit = (pos < u.size) & (u[pos_c] == v[cat])
                res[cat] = np.where(hit, self.offset_eq[f] + pos_c, 0)
            out[sel] = res
        return out


# ----------------------------------------------------------------------------------------------------------
# population


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
