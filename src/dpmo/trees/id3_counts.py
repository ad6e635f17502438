"""Counts providers of the ID3 estimators: where the tree growth reads its exact counts.

:meth:`dpmo.trees.DiffPID3Classifier._grow` (shared by :class:`~dpmo.trees.LocalDiffPID3Classifier`) reads
its private table only through, at every node of a depth, the number of records, of positive records, and
the class counts of every (remaining attribute, value) pair. It takes a *counts provider* with that
interface, so that the fit in memory (:class:`MemoryID3Counts`) and on Spark (:func:`dpmo.spark.fit`, whose
provider aggregates the same counts on the executors, one Spark job per depth) run one code path on the
same integers and release the same tree for the same ``random_state``.

The interface: ``d`` (columns); ``root()`` (the root's handle); ``begin_level(handles, tree, tables)``
before a depth's first draw (``tree = (feature, first_child)`` of the nodes grown so far; ``tables``:
whether the class counts are needed); ``size(h)``, ``positives(h)``, ``table(h, remaining)`` ((values, 2)
class counts, read for the ``remaining`` attributes' values); ``split(h, a, k, child_remaining,
with_tables, first)`` (the handles of the ``k`` children, nodes ``first .. first + k - 1``).

Nothing here is released: the counts are private intermediates that the private selections protect.
"""

from __future__ import annotations

import numpy as np

from .columns import CodedColumns, id3_column_codes
from .id3_kernels import class_counts, encode_indices, split_node

__all__ = ["MemoryID3Counts"]


class MemoryID3Counts:
    """The counts of an in-memory table: rows per node, grouped by the compiled kernels of
    :mod:`dpmo.trees.id3_kernels` (a node's class counts from its parent's, the largest child's by
    difference).

    Parameters
    ----------
    X : ndarray (n, d) in the encoded form, or CodedColumns
    y : int8 array of 0/1
    is_cat, size : the public domains (:func:`dpmo.trees._inputs.feature_domains`)

    Notes
    -----
    Memory: the codes twice in the narrowest integer type (one layout per row, one per attribute), plus
    the row indices of one depth. Time O(n d) to encode, then O(rows x attributes) per depth.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_counts import MemoryID3Counts
    >>> counts = MemoryID3Counts(np.array([[0.0], [1.0], [1.0]]), np.array([0, 1, 1], np.int8),
    ...                          np.array([True]), np.array([2]))
    >>> root = counts.root()
    >>> counts.size(root), counts.positives(root), counts.table(root, np.array([0])).tolist()
    (3, 2, [[1, 0], [0, 2]])
    """

    def __init__(self, X, y, is_cat, size):
        n, d = X.shape
        self.d = d
        self.y = y
        self.offsets = np.concatenate([[0], np.cumsum(size)])
        self.total = int(self.offsets[-1])
        narrow = np.int16 if self.total < 2**15 else np.int32  # value indices; codes one attribute per row
        # the codes of _encode, written straight into the two narrow layouts the kernels sweep
        flat, columns = np.empty((n, d), dtype=narrow), np.empty((d, n), dtype=narrow)
        if isinstance(X, CodedColumns):  # a raw table read column by column (the lean fit)
            for f, col in enumerate(X.columns):
                columns[f] = id3_column_codes(col, bool(is_cat[f]), int(size[f]))
                flat[:, f] = columns[f] + narrow(self.offsets[f])
        else:
            encode_indices(
                np.ascontiguousarray(X, dtype=np.float64), is_cat.astype(bool), size.astype(np.int64),
                self.offsets[:-1].astype(np.int64), flat, columns,
            )  # fmt: skip
        self.flat, self.columns = flat, columns
        self._n = n

    def root(self):
        """The root's handle: ``[its rows, its class counts or None, its positive rows]``."""
        rows = np.arange(self._n, dtype=np.int32 if self._n < 2**31 else np.int64)
        return [rows, None, int(self.y.sum())]

    def begin_level(self, handles, tree, tables: bool) -> None:
        """Nothing to do in memory: every node's counts come with its rows."""

    def size(self, h) -> int:
        return int(h[0].size)

    def positives(self, h) -> int:
        return int(h[2])

    def table(self, h, remaining) -> np.ndarray:
        if h[1] is None:  # the root: class counts of every (attribute, value) pair, compiled
            h[1] = class_counts(self.flat, self.y, h[0], remaining, self.total)
        return h[1]

    def split(self, h, a, k, child_remaining, with_tables, first) -> list:
        # children's rows (stable: each keeps the parent's order), positives and, unless they are at the
        # last depth (always leaves), class counts
        grouped, bounds, positives, tables = split_node(
            h[0], self.columns, self.flat, self.y, a, k, child_remaining, self.offsets, h[1], with_tables
        )
        return [
            [grouped[bounds[v] : bounds[v + 1]], tables[v] if with_tables else None, int(positives[v])]
            for v in range(k)
        ]
