"""Noisy class counts of the leaves of released trees: the scores DP-MOET ranks rows by.

A fitted :class:`~dpmo.trees.DPMOETClassifier` releases trees whose leaves hold labels only, chosen for
their TPR and TNR; a row's label says on which side of the tree's trade-off it falls, not how likely it
is to be positive. With ``leaf_count_share > 0`` the fit also releases, for every output tree, the
number of negative and positive training records that reach each of its leaves, with noise, and
:meth:`~dpmo.trees.DPMOETClassifier.predict_proba` orders the rows within a predicted class by their
leaf's noisy positive share (``docs/trees.md``, "Probabilities, scores and scikit-learn's tooling").

Privacy
-------
The tree is fixed before its counts are read: it is an output of the fit's earlier private selections
(adaptive sequential composition, Dwork and Roth 2014, Theorem 3.16, covers releasing it and anything
computed from it). Its leaves partition the records, so the histogram ``h`` of (leaf, class) cells has
L1 sensitivity

* 1 for ``neighbouring="add_remove"``: adding or removing one record changes one cell by 1;
* 2 for ``neighbouring="substitution"``: changing one record takes 1 from one cell and adds 1 to another.

Adding independent Laplace noise of scale ``Delta / epsilon`` to every cell (the Laplace mechanism,
Dwork, McSherry, Nissim and Smith 2006), or, with ``exact=True``, discrete Laplace noise of parameter
``epsilon / Delta`` (the geometric mechanism, Ghosh, Roughgarden and Sundararajan 2009;
:func:`dpmo.mechanisms.exact.sample_discrete_laplace`), is ``epsilon``-DP. Every cell gets noise, also
the cells no record reaches, so which cells are released depends on the public tree only. One budget
record per tree is made right before its noise is drawn.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..epsilons import float_at_most
from ..mechanisms.exact import RandomBits, sample_discrete_laplace
from .bitsets import node_class_counts

__all__ = ["leaf_class_counts", "noisy_leaf_counts", "leaf_positive_share", "COUNT_SENSITIVITY"]

#: L1 sensitivity of one tree's (leaf, class) histogram for each neighbouring relation.
COUNT_SENSITIVITY = {"add_remove": 1, "substitution": 2}


def leaf_class_counts(population, enc) -> list[np.ndarray]:
    """Exact (negative, positive) record counts at every node of every tree of ``population``. NOT private.

    Parameters
    ----------
    population : TreePopulation
    enc : EncodedData
        The table, built with its 0/1 labels.

    Returns
    -------
    list of ndarray of int64, shape (n_nodes of the tree, 2)
        One per tree, rows in the tree's preorder; decision nodes hold 0.

    Notes
    -----
    With the bit sets (``enc.bitset``): O(W) word operations per node reached (:func:`dpmo.trees.bitsets.
    node_class_counts`); otherwise O(T n depth) (one compiled walk per tree and row) plus O(T n).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> from dpmo.trees.leaf_counts import leaf_class_counts
    >>> stump = tree_from_nested((0, 0.5, False, 0, 1))
    >>> enc = EncodedData(np.array([[0.1], [0.2], [0.9], [0.8]]), np.array([0, 1, 1, 1]))
    >>> leaf_class_counts(TreePopulation([stump]), enc)[0].tolist()  # root, left leaf, right leaf
    [[0, 0], [1, 1], [0, 2]]
    """
    if enc.y is None:
        raise ValueError("leaf counts need labels: build the EncodedData with y")
    offsets = population.offsets
    if enc.bitset:  # the packed row sets: O(W) per node reached, no (T, n) leaf table
        population._check_features(enc.d)
        rows = enc.test_index(population.feature, population.value, population.categorical)
        counts = node_class_counts(
            enc.tables, enc.all_bits, enc.pos_bits, rows, population.feature, population.size,
            population.depth, offsets,
        )  # fmt: skip
        return [counts[offsets[t] : offsets[t + 1]] for t in range(len(population))]
    leaves = population.leaf_index(enc.X)  # (T, n) global node indices
    m = population.feature.shape[0]
    cells = leaves * 2 + enc.y.astype(np.int64)[None, :]
    counts = np.bincount(cells.ravel(), minlength=2 * m).reshape(m, 2)
    return [counts[offsets[t] : offsets[t + 1]] for t in range(len(population))]


def noisy_leaf_counts(
    population, enc, epsilon, budget, *, neighbouring, exact, rng, counts=None
) -> list[np.ndarray]:
    """Release the (negative, positive) counts of every leaf of every tree, ``epsilon`` per tree (or its own).

    Parameters
    ----------
    population : TreePopulation
        Released (public) trees.
    enc : EncodedData
        The private table with its labels.
    epsilon : fractions.Fraction, sequence of Fraction or None
        Budget of each tree's histogram (exact), or one per tree (a fit with ``delta > 0``: the slots the
        accountant planned). None: the exact counts, NOT private (NODP-MOET).
    budget : dpmo.Budget or None
        Receives one record per tree, made right before that tree's noise is drawn.
    neighbouring : {"add_remove", "substitution"}
        Sets the L1 sensitivity (:data:`COUNT_SENSITIVITY`).
    exact : bool
        Discrete Laplace noise from :class:`dpmo.mechanisms.exact.RandomBits` (``rng`` None: the operating
        system's secure source) instead of float Laplace noise from ``rng``.
    rng : numpy.random.Generator or None
    counts : list of ndarray, optional
        The exact counts of :func:`leaf_class_counts`, when the caller has them (a fit on Spark: counted
        on the executors); ``enc`` is then not read.

    Returns
    -------
    list of ndarray of float64, shape (n_nodes of the tree, 2)
        Noisy counts at the leaves (they may be negative), NaN at the decision nodes.

    Notes
    -----
    :func:`leaf_class_counts` plus O(leaves) noise draws per tree.
    """
    delta = COUNT_SENSITIVITY[neighbouring]
    per_tree = epsilon if isinstance(epsilon, (list, tuple)) else [epsilon] * len(population)
    if len(per_tree) != len(population):
        raise ValueError(f"epsilon must give one value per tree ({len(population)}), got {len(per_tree)}")
    private = any(e is not None for e in per_tree)
    if private and not all(e is not None for e in per_tree):
        raise ValueError("epsilon must be None for every tree or for none")
    bits = RandomBits(rng) if exact and private else None
    out = []
    exact_counts = leaf_class_counts(population, enc) if counts is None else counts
    for t, counts in enumerate(exact_counts):
        eps = per_tree[t]
        leaf = np.flatnonzero(population[t].feature < 0)
        noisy = np.full(counts.shape, np.nan)
        noise = np.zeros((leaf.size, 2))
        if eps is not None:
            budget.spend(
                eps,
                f"noisy class counts of the {leaf.size} leaves of output tree {t} (histogram, L1 "
                f"sensitivity {delta})",
                mechanism="laplace",
                sensitivity=float(delta),
                candidates=2 * leaf.size,
            )
            if bits is not None:
                draws = sample_discrete_laplace(2 * leaf.size, Fraction(eps) / delta, bits)
                noise = np.asarray(draws, dtype=np.float64).reshape(leaf.size, 2)
            else:
                noise = rng.laplace(0.0, delta / float_at_most(Fraction(eps)), size=(leaf.size, 2))
        noisy[leaf] = counts[leaf] + noise
        out.append(noisy)
    return out


def leaf_positive_share(counts: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Smoothed positive share of the leaves ``nodes`` of one tree, from its released noisy counts.

    ``(c1+ + pi) / (c0+ + c1+ + 1)``, where ``c+ = max(c, 0)`` and ``pi`` is the tree's noisy positive rate
    ``sum c1+ / (sum c0+ + sum c1+)`` (1/2 when every count is clipped to 0): one pseudo-record at the
    tree's rate, so that a leaf with few records (or none, only noise) is not ranked at 0 or 1 on noise
    alone. Post-processing of the counts, in ``[0, 1]``. O(leaves + len(nodes)).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.leaf_counts import leaf_positive_share
    >>> counts = np.array([[np.nan, np.nan], [30.0, 10.0], [-2.0, 3.0]])  # a root and two leaves
    >>> leaf_positive_share(counts, np.array([1, 2])).round(3).tolist()  # pi = 13 / 43
    [0.251, 0.826]
    """
    clipped = np.maximum(np.nan_to_num(counts, nan=0.0), 0.0)
    total = clipped.sum(axis=0)
    pi = total[1] / total.sum() if total.sum() > 0 else 0.5
    c = clipped[nodes]
    return (c[:, 1] + pi) / (c.sum(axis=1) + 1.0)
