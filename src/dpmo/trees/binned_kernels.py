"""Kernels of :class:`~dpmo.trees.PrivateTreeClassifier`: binning, candidate splits and their Gini scores.

A table in the encoded form of :mod:`dpmo.datasets` (category codes ``0 .. K-1``, numbers in ``[0, 1]``) is
turned into one small integer code per cell (a numeric value's bin among ``n_bins`` equal bins of its
public range, a category's code); a node's class counts per (column, code) then give the Gini score of
every candidate split at once. Everything here is a function of public metadata or exact counts: the
private releases are in :mod:`dpmo.trees.private_tree`.

Candidate splits of a column (public: they depend on the schema and ``n_bins`` only)
------------------------------------------------------------------------------------
* numeric, ``B = n_bins`` bins: ``B - 1`` thresholds, candidate ``k`` (``1 <= k < B``) sends the codes
  ``< k`` left;
* categorical with 2 categories: one split (code 0 left);
* categorical with ``K > 2`` categories: ``K`` one-against-the-rest splits (code ``v`` left).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bin_codes", "candidate_splits", "node_split_counts", "gini_scores", "GINI_SENSITIVITY", "route"]

#: Global sensitivity of :func:`gini_scores` under adding or removing one record (see its Notes).
GINI_SENSITIVITY = 2.0


def bin_codes(X: np.ndarray, is_cat: np.ndarray, n_bins: int) -> np.ndarray:
    """Integer codes (n, d): categorical codes as they are, numeric values in ``[0, 1]`` -> bin ``0..B-1``.

    Bin ``b`` holds the values in ``[b / B, (b + 1) / B)``, the last one also 1. O(n d).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.binned_kernels import bin_codes
    >>> bin_codes(np.array([[0.0, 2.0], [0.5, 1.0], [1.0, 0.0]]), np.array([False, True]), 4).tolist()
    [[0, 2], [2, 1], [3, 0]]
    """
    X = np.asarray(X, dtype=np.float64)
    codes = np.minimum(np.floor(X * n_bins), n_bins - 1)
    codes = np.where(is_cat[None, :], X, codes)
    return codes.astype(np.int32)


def candidate_splits(is_cat: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(feature, kind, value)`` of every candidate split, from public metadata only.

    ``kind`` is 0 for a threshold (codes ``< value`` go left) and 1 for a category (code ``== value``
    goes left); ``size`` is the number of bins (numeric) or categories. O(sum of sizes).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.binned_kernels import candidate_splits
    >>> f, k, v = candidate_splits(np.array([False, True, True]), np.array([3, 2, 3]))
    >>> f.tolist(), k.tolist(), v.tolist()
    ([0, 0, 1, 2, 2, 2], [0, 0, 1, 1, 1, 1], [1, 2, 0, 0, 1, 2])
    """
    feats, kinds, values = [], [], []
    for j, (cat, k) in enumerate(zip(is_cat.tolist(), size.tolist(), strict=True)):
        if cat:
            vals = [0] if k == 2 else list(range(k))
            kind = 1
        else:
            vals = list(range(1, k))
            kind = 0
        feats += [j] * len(vals)
        kinds += [kind] * len(vals)
        values += vals
    as_int = lambda a: np.asarray(a, dtype=np.int64)  # noqa: E731
    return as_int(feats), as_int(kinds), as_int(values)


def node_split_counts(codes, y, rows, is_cat, size, offsets, splits) -> np.ndarray:
    """Class counts ``(n_candidates, 4)``: ``(left 0, left 1, right 0, right 1)`` of every candidate split
    at the node holding ``rows``. Exact: NOT private. O(r d + sum of sizes) for r rows.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.binned_kernels import candidate_splits, node_split_counts
    >>> is_cat, size = np.array([False]), np.array([2])
    >>> codes, y = np.array([[0], [0], [1]]), np.array([0, 1, 1])
    >>> splits = candidate_splits(is_cat, size)
    >>> node_split_counts(codes, y, np.arange(3), is_cat, size, np.array([0, 2]), splits).tolist()
    [[1, 1, 0, 1]]
    """
    feat, kind, value = splits
    total = int(offsets[-1])
    sub = codes[rows] + offsets[:-1][None, :]
    cells = sub * 2 + y[rows, None]
    table = np.bincount(cells.ravel(), minlength=2 * total).reshape(total, 2)
    node = np.array([rows.size - int(y[rows].sum()), int(y[rows].sum())], dtype=np.int64)
    # per column: cumulative counts (thresholds) and the counts themselves (categories)
    cum = np.cumsum(table, axis=0)
    before = np.vstack([np.zeros((1, 2), dtype=np.int64), cum])  # before[g] = counts of cells < g
    left = np.where(
        (kind == 0)[:, None],
        before[offsets[feat] + value] - before[offsets[feat]],
        table[np.minimum(offsets[feat] + value, total - 1)],
    )
    right = node[None, :] - left
    return np.hstack([left, right])


def gini_scores(counts: np.ndarray) -> np.ndarray:
    """Utility of every candidate split: minus the record-weighted Gini impurity of its two children.

    ``u = -(g(a_L, b_L) + g(a_R, b_R))`` with ``g(a, b) = 2 a b / (a + b)`` (``0`` for an empty child):
    ``g(a, b) / (a + b)`` is a child's Gini impurity, so ``-u`` is the node's record count times the
    children's weighted impurity, the quantity CART minimises.

    Notes
    -----
    Sensitivity (add or remove one record): the record changes one class count of one child by one, so
    one term ``g`` moves, by ``g(a + 1, b) - g(a, b) = 2 b^2 / ((a + b)(a + b + 1)) < 2`` (and ``g(1, 0)
    - g(0, 0) = 0``): :data:`GINI_SENSITIVITY` ``= 2`` bounds it for every table (the tests check it by
    brute force). O(candidates).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.binned_kernels import gini_scores
    >>> gini_scores(np.array([[5, 0, 0, 5], [3, 2, 2, 3]])).tolist()  # a pure split scores best
    [-0.0, -4.8]
    """
    c = counts.astype(np.float64)

    def g(a, b):
        s = a + b
        return np.divide(2.0 * a * b, s, out=np.zeros_like(s), where=s > 0)

    return -(g(c[:, 0], c[:, 1]) + g(c[:, 2], c[:, 3]))


def route(codes: np.ndarray, feature, kind, value, depth: int) -> np.ndarray:
    """Leaf (0 .. 2^depth - 1) reached by every row in one complete tree in heap layout. O(n depth).

    Node ``i``'s children are ``2 i + 1`` (left) and ``2 i + 2``; ``feature``, ``kind`` and ``value`` give
    the split of each of the ``2^depth - 1`` internal nodes.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.binned_kernels import route
    >>> route(np.array([[0], [3]]), np.array([0]), np.array([0]), np.array([2]), 1).tolist()
    [0, 1]
    """
    n = codes.shape[0]
    node = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    for _ in range(depth):
        f, k, v = feature[node], kind[node], value[node]
        c = codes[rows, f]
        left = np.where(k == 0, c < v, c == v)
        node = 2 * node + 1 + (~left).astype(np.int64)
    return node - (2**depth - 1)
