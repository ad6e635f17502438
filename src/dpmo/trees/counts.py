"""Counts providers: where DP-MOET's fit reads its exact counts (in memory, or aggregated on Spark).

DP-MOET reads its private table only through counts: the positives and negatives of the table (P, N), the
true positives and true negatives of every tree of a population (TP, TN), and the (negative, positive)
counts at the leaves of the output trees. :meth:`dpmo.trees.DPMOETClassifier._evolve` (the evolution and
the private selections) takes a *counts provider* with that interface, so the fit in memory and the fit on
Spark (:func:`dpmo.spark.fit`) run the same selection code on the same integers, and release the same
model for the same ``random_state`` by construction:

* :class:`MemoryCounts`: the bit sets of an :class:`~dpmo.trees.EncodedData` (one process);
* :class:`NodeCounts`: a provider built from a function that counts the (negative, positive) records at
  every leaf of a population (the Spark provider: the counts are summed over the executors' partitions,
  and only they reach the driver). TP and TN are sums of those leaf counts; the leaf counts of every
  tree evaluated are kept, so the output trees' counts need no further pass.

Nothing here is released: the counts are private intermediates that the selections protect.
"""

from __future__ import annotations

import numpy as np

from .leaf_counts import leaf_class_counts

__all__ = ["MemoryCounts", "NodeCounts", "confusion_from_nodes"]


class MemoryCounts:
    """Counts read from the bit sets of an in-memory table.

    Parameters
    ----------
    enc : EncodedData
        The table, built with its 0/1 labels.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> from dpmo.trees.counts import MemoryCounts
    >>> counts = MemoryCounts(EncodedData(np.array([[0.1], [0.9]]), np.array([0, 1])))
    >>> tp, tn = counts.confusion(TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))]))
    >>> counts.positives, counts.negatives, tp.tolist(), tn.tolist()
    (1, 1, [1], [1])
    """

    def __init__(self, enc):
        self.enc = enc
        self.positives = enc.positives
        self.negatives = enc.negatives

    def confusion(self, population) -> tuple[np.ndarray, np.ndarray]:
        """``(TP, TN)`` of every tree, int64. Bitset engine: O(W) word operations per node reached."""
        tp, _, tn, _ = population.counts(self.enc)
        return tp, tn

    def leaf_counts(self, population) -> list[np.ndarray]:
        """(negative, positive) counts at every node of every tree (:func:`leaf_class_counts`)."""
        return leaf_class_counts(population, self.enc)


def confusion_from_nodes(population, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(TP, TN)`` of every tree from the (negative, positive) counts at its nodes, int64. O(nodes).

    A tree's true positives are the positive records of the leaves that predict 1, its true negatives
    the negative records of the leaves that predict 0.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import TreePopulation, tree_from_nested
    >>> from dpmo.trees.counts import confusion_from_nodes
    >>> pop = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])  # root, leaf 0, leaf 1
    >>> tp, tn = confusion_from_nodes(pop, np.array([[0, 0], [3, 1], [2, 5]]))
    >>> tp.tolist(), tn.tolist()
    ([5], [3])
    """
    nodes = np.asarray(nodes, dtype=np.int64)
    leaf = population.feature < 0
    says_one = leaf & (population.label == 1)
    says_zero = leaf & (population.label == 0)
    starts = population.offsets[:-1]  # every tree has a node: reduceat sums each tree's own nodes
    tp = np.add.reduceat(np.where(says_one, nodes[:, 1], 0), starts)
    tn = np.add.reduceat(np.where(says_zero, nodes[:, 0], 0), starts)
    return tp.astype(np.int64), tn.astype(np.int64)


def _key(population, t: int) -> bytes:
    a, b = int(population.offsets[t]), int(population.offsets[t + 1])
    parts = (population.feature, population.value, population.categorical, population.label)
    return b"|".join(np.ascontiguousarray(x[a:b]).tobytes() for x in parts)


class NodeCounts:
    """Counts from a function that returns the (negative, positive) records at every node of a population.

    Parameters
    ----------
    count_nodes : callable
        ``count_nodes(population) -> int64 array (nodes, 2)``: exact counts at the leaves (0 at decision
        nodes), e.g. summed over the partitions of a Spark table.
    positives, negatives : int
        P and N of the table.

    Notes
    -----
    One call of ``count_nodes`` per :meth:`confusion` (a generation); :meth:`leaf_counts` reuses the counts
    of trees already evaluated (a tree is recognised by its arrays) and calls ``count_nodes`` only for the
    others. Counts are exact integers (int64).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> from dpmo.trees.counts import MemoryCounts, NodeCounts
    >>> enc = EncodedData(np.array([[0.1], [0.9], [0.7]]), np.array([0, 1, 0]))
    >>> memory = MemoryCounts(enc)
    >>> nodes = NodeCounts(lambda pop: np.concatenate(memory.leaf_counts(pop)), 1, 2)
    >>> pop = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])
    >>> [c.tolist() for c in nodes.confusion(pop)] == [c.tolist() for c in memory.confusion(pop)]
    True
    """

    def __init__(self, count_nodes, positives: int, negatives: int):
        self._count = count_nodes
        self.positives = int(positives)
        self.negatives = int(negatives)
        self._seen: dict[bytes, np.ndarray] = {}
        self.calls = 0

    def _nodes(self, population) -> np.ndarray:
        self.calls += 1
        nodes = np.asarray(self._count(population), dtype=np.int64).reshape(-1, 2)
        for t in range(len(population)):
            a, b = int(population.offsets[t]), int(population.offsets[t + 1])
            self._seen[_key(population, t)] = nodes[a:b]
        return nodes

    def confusion(self, population) -> tuple[np.ndarray, np.ndarray]:
        """``(TP, TN)`` of every tree: one call of ``count_nodes``."""
        return confusion_from_nodes(population, self._nodes(population))

    def leaf_counts(self, population) -> list[np.ndarray]:
        """(negative, positive) counts at every node of every tree, reusing those already counted."""
        keys = [_key(population, t) for t in range(len(population))]
        if any(k not in self._seen for k in keys):
            self._nodes(population)
        return [self._seen[k].copy() for k in keys]
