"""The decision tree type: one tree in preorder arrays (the paper's "Tree Representation and Operations").

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

Evaluating a whole population on data lives in :mod:`dpmo.trees.evaluation` (which builds on this
module), the bitset encoding of a data set in :mod:`dpmo.trees.encoding`, the compiled kernels in
:mod:`dpmo.trees.bitsets`, the rendering in :mod:`dpmo.trees.export` and the simplification of a tree in
:mod:`dpmo.trees.simplify`; none of them imports this module back.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .._validation import check_int, check_X
from .bitsets import leaf_index
from .export import simplified, tree_to_dict, tree_to_text

__all__ = ["Tree", "tree_from_nested"]


#: The dtype of each preorder array of a :class:`Tree`.
_DTYPES = {
    "feature": np.int32,
    "value": np.float64,
    "categorical": np.bool_,
    "label": np.int8,
    "size": np.int32,
    "depth": np.int32,
}


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
        arrays = {}
        given = (feature, value, categorical, label, size, depth)
        for (name, dtype), raw in zip(_DTYPES.items(), given, strict=True):
            try:
                arrays[name] = np.array(raw, dtype=dtype)
            except (OverflowError, TypeError, ValueError):  # numpy's message would quote the value
                raise ValueError(
                    f"tree array {name!r} must hold numbers that fit its dtype {np.dtype(dtype).name}"
                ) from None
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
        """A tree made of one leaf predicting ``label`` (the int 0 or 1, as a leaf of
        :func:`tree_from_nested`: a bool is a TypeError)."""
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (numbers.Integral, np.integer)):
            raise TypeError(f"label must be the int 0 or 1, got {type(label).__name__}")
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
        i = check_int(i, "node index", minimum=None)
        if not 0 <= i < self.n_nodes:
            raise ValueError(f"node index must be in [0, {self.n_nodes}), got {i}")
        return i

    # -- prediction ------------------------------------------------------------------------------------
    def predict(self, X) -> np.ndarray:
        """Predicted labels (int8, shape (n,)) for the rows of ``X``. O(n * depth) time, compiled."""
        X = check_X(X)
        top = int(self.feature.max())
        if top >= X.shape[1]:
            raise ValueError(f"a tree tests feature {top} but X has {X.shape[1]} columns")
        offsets = np.array([0, self.n_nodes], dtype=np.int64)
        leaves = leaf_index(X, self.feature, self.value, self.categorical, self.size, offsets)[0]
        return self.label[leaves]

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

    def simplify(self, features: Sequence | None = None) -> Tree:
        """The same predictions with no unreachable branch and no repeated test (:mod:`dpmo.trees.simplify`).

        ``features`` (:class:`~dpmo.datasets.Feature` objects) gives the public domains: codes
        ``0 .. K-1`` for a categorical column, ``[0, 1]`` for a numeric one (the encoded form the
        estimators enforce); without them only the tests on the path are used. Post-processing: reads no
        data. O(nodes x depth) time.

        Examples
        --------
        >>> from dpmo.trees import tree_from_nested
        >>> tree = tree_from_nested((0, 0.5, False, (0, 0.7, False, 1, 0), 0))  # x0 <= 0.7 under x0 <= 0.5
        >>> tree.simplify().to_nested()
        (0, 0.5, False, 1, 0)
        """
        s = simplified(self, features)
        return Tree._raw(s.feature, s.value, s.categorical, s.label, s.size, s.depth)

    def to_dict(
        self, features: Sequence | None = None, classes: Sequence | None = None, *, simplify: bool = True
    ) -> dict:
        """The tree as JSON-ready nested dicts: :func:`dpmo.trees.tree_to_dict` (same arguments)."""
        return tree_to_dict(self, features, classes, simplify=simplify)

    def to_text(self, features: Sequence | None = None, *, simplify: bool = True) -> str:
        """Human-readable rules: :func:`dpmo.trees.export.tree_to_text` (same arguments).

        With :class:`~dpmo.datasets.Feature` metadata, categories are shown by name and numeric thresholds
        in the original units (``lo + value * (hi - lo)``). By default the simplified tree is shown
        (:meth:`simplify`; ``simplify=False`` prints the tree as stored). O(nodes x depth) time.
        """
        return tree_to_text(self, features, simplify=simplify)

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


#: The largest column index a tree stores (its ``feature`` array is int32).
_MAX_COLUMN = int(np.iinfo(np.int32).max)


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
        if isinstance(f, (bool, np.bool_)) or not isinstance(f, (numbers.Integral, np.integer)):
            raise ValueError(f"feature must be a non-negative int, got {f!r}")
        if not 0 <= f <= _MAX_COLUMN:
            raise ValueError(f"feature must be a column index in 0 .. {_MAX_COLUMN}, got {f!r}")
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.integer, np.floating)):
            raise TypeError(f"value must be a real number (a threshold or a category code), got {v!r}")
        if not isinstance(c, (bool, np.bool_)) and not (
            isinstance(c, (numbers.Integral, np.integer)) and c in (0, 1)
        ):
            raise TypeError(f"categorical must be a bool (the kind of test), got {c!r}")
        try:
            val.append(float(v))
        except OverflowError:  # an int beyond the floats
            raise ValueError("value must be a finite number") from None
        feat.append(int(f))
        cat.append(bool(c))
        lab.append(0)
        walk(left)
        walk(right)

    walk(nested)
    leaf = np.array(feat) < 0
    size, depth = _structure_from_leaves(leaf)
    return Tree(feat, val, cat, lab, size, depth)
