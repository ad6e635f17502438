"""The fitted tree of the ID3 baselines: a multiway decision tree in flat breadth-first arrays.

:class:`ID3Tree` is what :class:`~dpmo.trees.DiffPID3Classifier` and
:class:`~dpmo.trees.LocalDiffPID3Classifier` grow (``tree_``); it holds only the private algorithm's
outputs and public facts, so it can be published.
"""

from __future__ import annotations

import numpy as np

from .export import check_feature_names

__all__ = ["ID3Tree"]


class ID3Tree:
    """A fitted multiway ID3 tree in flat arrays (nodes in breadth-first order, root = 0).

    Attributes
    ----------
    feature : ndarray of int64, shape (n_nodes,)
        Split attribute of an internal node, -1 for a leaf.
    first_child : ndarray of int64
        Index of the child for value 0 of the split attribute (the children of a node are contiguous, one
        per value of the attribute's public domain); -1 for a leaf.
    n_children : ndarray of int64
    label : ndarray of int8
        Predicted class of a leaf (0 for internal nodes).
    depth : ndarray of int64
    noisy_count : ndarray of float64
        The released noisy record count of the node (NaN where none was drawn: depth ``L``).
    leaf_counts : ndarray of float64, shape (n_nodes, 2)
        The released noisy class counts of a leaf (NaN for internal nodes).

    All of these are outputs of the private algorithm (or public), so the tree can be published.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import DiffPID3Classifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(200, 3)).astype(float)
    >>> features = [Feature(f"x{i}", "categorical", categories=(0, 1)) for i in range(3)]
    >>> clf = DiffPID3Classifier(epsilon=1.0, max_depth=2, features=features, random_state=0).fit(X, X[:, 0])
    >>> tree = clf.tree_  # an ID3Tree: flat arrays, breadth-first
    >>> tree.max_depth <= 2, len(tree.feature) == tree.n_nodes
    (True, True)
    """

    __slots__ = ("feature", "first_child", "n_children", "label", "depth", "noisy_count", "leaf_counts")

    def __init__(self, feature, first_child, n_children, label, depth, noisy_count, leaf_counts):
        self.feature = np.asarray(feature, dtype=np.int64)
        self.first_child = np.asarray(first_child, dtype=np.int64)
        self.n_children = np.asarray(n_children, dtype=np.int64)
        self.label = np.asarray(label, dtype=np.int8)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.noisy_count = np.asarray(noisy_count, dtype=np.float64)
        self.leaf_counts = np.asarray(leaf_counts, dtype=np.float64).reshape(-1, 2)

    @property
    def n_nodes(self) -> int:
        return int(self.feature.size)

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.feature < 0))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.depth.size else 0

    def apply(self, codes: np.ndarray) -> np.ndarray:
        """Leaf index of each row of the discretised matrix ``codes`` (n, d) of int.

        O(n * depth) time, vectorised over rows (one numpy step per level).
        """
        node = np.zeros(codes.shape[0], dtype=np.int64)
        for _ in range(self.max_depth):
            rows = np.nonzero(self.feature[node] >= 0)[0]
            if rows.size == 0:
                break
            cur = node[rows]
            node[rows] = self.first_child[cur] + codes[rows, self.feature[cur]]
        return node

    def to_text(self, feature_names=None) -> str:
        """Indented text rendering (one line per node). O(n_nodes)."""
        check_feature_names(self.feature, feature_names)
        lines: list[str] = []

        def name(f: int) -> str:
            return str(feature_names[f]) if feature_names is not None else f"x{f}"

        def walk(i: int, indent: str) -> None:
            if self.feature[i] < 0:
                lines.append(f"{indent}-> class {int(self.label[i])}")
                return
            f = int(self.feature[i])
            for v in range(int(self.n_children[i])):
                lines.append(f"{indent}{name(f)} = {v}:")
                walk(int(self.first_child[i]) + v, indent + "  ")

        walk(0, "")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ID3Tree(n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, max_depth={self.max_depth})"
