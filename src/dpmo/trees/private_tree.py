"""PrivateTreeClassifier: private greedy trees on public bins, Gini splits, noisy leaf counts.

In the spirit of PrivaTree (Vos, Belle, Lukina and Verwer, "Differentially-Private Decision Trees and Provable
Robustness to Data Poisoning", 2023): numeric features cut into bins from their public bounds, a complete
binary tree of a public depth grown greedily with splits chosen by a selection mechanism on a Gini score of
bounded sensitivity, and the leaves' class counts released with noise. dpmo's own code and proof (no code of
PrivaTree's); the rules and their measurements are in ``docs/private-tree.md``.

Algorithm (neighbouring relation: **add or remove one record**, on the same public schema and label set)
---------------------------------------------------------------------------------------------------------
1. **Bins** (public): a numeric column's public range ``[0, 1]`` (the encoded form of its declared bounds) is
   cut into ``n_bins`` equal bins; a categorical column keeps its codes. The candidate splits
   (:func:`dpmo.trees.binned_kernels.candidate_splits`) depend on the schema only.
2. **Parts**: every record is assigned to one of ``n_trees`` parts, independently and uniformly at random
   (the assignment of one record does not depend on the others).
3. **Structure**: tree ``t`` is grown on part ``t`` only, a complete binary tree of depth ``D = max_depth``
   (every internal node splits, so the shape is public). At depth ``l`` every node of every tree picks its
   split among all candidates with ``mechanism`` on the Gini utility
   (:func:`dpmo.trees.binned_kernels.gini_scores`, sensitivity 2) at ``eps_level``.
4. **Leaves**: the ``(negative, positive)`` counts of every leaf of every tree get independent Laplace noise
   of scale ``1 / eps_leaf``.

With ``n_trees="auto"`` a noisy record count (Laplace, ``eps_c = epsilon / 20``) first sets the number of
trees (:func:`auto_trees`); of the rest ``e = epsilon - eps_c``, ``eps_leaf = leaf_share * e`` and
``eps_level = (1 - leaf_share) * e / D``.

Privacy (proof in ``docs/private-tree.md``): the nodes of one depth of one tree hold disjoint records, and
the parts are disjoint, so at depth ``l`` a record reaches exactly one node of one tree: the depth's picks
cost ``eps_level`` by parallel composition (adaptive: which records a node holds is fixed by the earlier
released splits), the ``D`` depths compose sequentially, and the leaf histogram (L1 sensitivity 1 over all
trees' leaves together) costs ``eps_leaf``: with the count's ``eps_c``, ``epsilon`` in all. The random
parts are covered by the coupling of the added record's own assignment (the others' assignments are the
same independent draws). One budget record is made for the count, one at the start of every depth, and one
right before the leaves' noise is drawn.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import check_choice, check_int
from ..accounting import check_delta
from ..budget import fit_budget
from ..calls import check_budget_first
from ..mechanisms import select
from ._fitted import FittedMixin
from ._inputs import (
    DPEstimatorMixin,
    check_X_fit,
    check_X_predict,
    estimator_rng,
    feature_domains,
    fit_labels,
)
from .binned_kernels import (
    GINI_SENSITIVITY,
    bin_codes,
    candidate_splits,
    gini_scores,
    node_split_counts,
    route,
)
from .budget_params import check_fit_epsilon, check_share
from .proba import fitted_classes, labels_of, proba_columns

__all__ = ["PrivateTreeClassifier", "OBJECTIVES", "auto_trees", "smoothed_leaf_shares", "noisy_positive_rate"]

#: What :meth:`PrivateTreeClassifier.predict` optimises: the threshold on the ensemble's positive share.
OBJECTIVES = ("accuracy", "balanced_accuracy")
SELECTIONS = ("exponential", "permute_and_flip")


#: Share of epsilon spent on the noisy record count that sets ``n_trees="auto"``.
COUNT_SHARE = Fraction(1, 20)
#: ``n_trees="auto"``: ``clip(ceil(2^(D + AUTO_LOG2) / (eps n_hat)), 1, MAX_TREES)``.
AUTO_LOG2 = 7
MAX_TREES = 10


def auto_trees(epsilon: float, n_hat: float, depth: int) -> int:
    """Number of trees for ``n_trees="auto"``: ``clip(ceil(2^(D + 7) / (epsilon n_hat)), 1, 10)``.

    A function of the noisy record count ``n_hat`` (a release) and public settings
    (``docs/private-tree.md``, "Settings"). O(1).

    Examples
    --------
    >>> from dpmo.trees.private_tree import auto_trees
    >>> auto_trees(1.0, 400.0, 5), auto_trees(1.0, 30000.0, 5), auto_trees(1.0, -3.0, 5)
    (10, 1, 10)
    """
    eff = epsilon * max(n_hat, 1.0)
    return int(min(MAX_TREES, max(1, np.ceil(2.0 ** (depth + AUTO_LOG2) / eff))))


def smoothed_leaf_shares(leaf_counts: np.ndarray, m: float) -> np.ndarray:
    """Smoothed positive share of every leaf of every tree, ``(n_trees, 2^D)``, from the noisy counts.

    Counts are clipped at 0 and summed up the complete tree (heap order: leaves ``2i`` and ``2i + 1`` are
    siblings); from the root down, a node's share is ``(c1 + m p) / (c0 + c1 + m)`` with ``p`` its
    parent's share (the root's prior 1/2) and ``m`` pseudo-records. Post-processing. O(n_trees 2^D).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.private_tree import smoothed_leaf_shares
    >>> counts = np.array([[[8.0, 0.0], [0.0, 8.0]]])  # one stump: a negative and a positive leaf
    >>> smoothed_leaf_shares(counts, 0.0).tolist()  # no smoothing: the raw shares
    [[0.0, 1.0]]
    >>> smoothed_leaf_shares(counts, 8.0).tolist()  # the root's share is 1/2; 8 pseudo-records of it
    [[0.25, 0.75]]
    """
    counts = np.maximum(np.asarray(leaf_counts, dtype=np.float64), 0.0)
    out = []
    for c in counts:
        levels = [c]
        while levels[-1].shape[0] > 1:
            levels.append(levels[-1].reshape(-1, 2, 2).sum(axis=1))
        p = np.array([0.5])
        for lev in reversed(levels):
            p = np.repeat(p, lev.shape[0] // p.size)
            total = lev.sum(axis=1) + m
            p = np.divide(lev[:, 1] + m * p, total, out=p.copy(), where=total > 0)
        out.append(p)
    return np.asarray(out)


def noisy_positive_rate(leaf_counts: np.ndarray) -> float:
    """Mean over the trees of the positive share of their clipped noisy counts (1/2 for a tree at 0).

    The threshold of ``objective="balanced_accuracy"``. Post-processing. O(n_trees 2^D).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.private_tree import noisy_positive_rate
    >>> noisy_positive_rate(np.array([[[6.0, 1.0], [-1.0, 3.0]]]))  # 4 positives of 10
    0.4
    """
    c = np.maximum(np.asarray(leaf_counts, dtype=np.float64), 0.0).sum(axis=1)  # (trees, 2)
    tot = c.sum(axis=1)
    rates = np.divide(c[:, 1], tot, out=np.full(c.shape[0], 0.5), where=tot > 0)
    return float(rates.mean())


class PrivateTreeClassifier(FittedMixin, DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Private trees on public bins for accuracy: Gini splits by a selection mechanism, noisy leaf counts.

    dpmo's recommended private classifier for **accuracy** (and, through :meth:`predict_proba`, for
    ranking: ROC-AUC). Algorithm, budget and proof: :mod:`dpmo.trees.private_tree` and
    ``docs/private-tree.md``; in the spirit of PrivaTree (Vos et al. 2023).

    Parameters
    ----------
    epsilon : float, default 1.0
        Total privacy budget of the fit (pure epsilon-DP, add or remove one record).
    max_depth : int, default 5
        Depth ``D`` of every tree, at most 12 (public; every tree is complete, ``2^D`` leaves: time
        O(n_trees 2^D) selections).
    n_trees : int or "auto", default "auto"
        Number of trees, each grown on its own random part of the records (parallel composition).
        ``"auto"``: :func:`auto_trees` of a noisy record count (``epsilon / 20`` of the budget, shown as
        ``n_records_``): one tree when ``epsilon n`` is large, up to 10 when it is small.
    n_bins : int, default 32
        Equal bins of every numeric column's public range (the candidate thresholds), 2 to 1024.
    leaf_share : float or "auto", default "auto"
        Share of the budget (after the count) spent on the leaves' noisy counts; the rest is split evenly
        over the depths. ``"auto"``: 1/4 for one tree, 1/2 for an ensemble.
    mechanism : {"permute_and_flip", "exponential"}, default "permute_and_flip"
        Selection of each node's split.
    objective : {"accuracy", "balanced_accuracy"}, default "accuracy"
        What :meth:`predict` optimises: ``"accuracy"`` predicts the positive class when the ensemble's
        positive share is at least 1/2, ``"balanced_accuracy"`` when it is at least the trees' mean noisy
        positive rate (post-processing: no budget).
    random_state : None, int or numpy.random.Generator
    features : sequence of dpmo.datasets.Feature, optional
        Public schema: categories and numeric bounds.
    classes : [negative, positive], optional
        Public label set (otherwise read from ``y``).
    delta : float, default 0.0
        Accepted for an ``(epsilon, delta)`` call: the fit is pure epsilon-DP, which is
        ``(epsilon, delta)``-DP for every ``delta``; nothing is spent on it.

    Attributes
    ----------
    feature_, kind_, value_ : ndarray, shape (n_trees, 2^D - 1)
        Split of every internal node (heap layout): column, 0 threshold (bin codes ``< value`` left) or
        1 category (code ``== value`` left).
    leaf_counts_ : ndarray, shape (n_trees, 2^D, 2)
        Noisy (negative, positive) counts of every leaf.
    leaf_shares_ : ndarray, shape (n_trees, 2^D)
        Smoothed positive share of every leaf (:func:`smoothed_leaf_shares`, ``m = 2 / eps_leaf``).
    threshold_ : float
        The positive share from which :meth:`predict` says positive: 1/2 for ``objective="accuracy"``,
        :func:`noisy_positive_rate` for ``"balanced_accuracy"``.
    n_records_ : float or None
        The noisy record count (``n_trees="auto"``), None otherwise.
    budget_ : dpmo.Budget
        The fit's ledger: the count (auto), one record per depth and one for the leaves; it sums to
        ``epsilon``.

    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> from dpmo.trees import PrivateTreeClassifier
    >>> data = load_breast_cancer()
    >>> clf = PrivateTreeClassifier(1.0, features=data.features, random_state=0).fit(data)
    >>> sum(r.epsilon for r in clf.budget_.ledger) == 1.0
    True
    >>> clf.predict_proba(data.X).shape
    (569, 2)
    """

    #: pseudo-records of the leaf shares' smoothing, in units of the leaf noise's scale ``1 / eps_leaf``
    SMOOTHING = 2.0
    _fitted_attribute = "leaf_counts_"  # FittedMixin._check_fitted

    def __init__(
        self,
        epsilon=1.0,
        max_depth=5,
        n_trees="auto",
        n_bins=32,
        leaf_share="auto",
        mechanism="permute_and_flip",
        objective="accuracy",
        random_state=None,
        *,
        features=None,
        classes=None,
        delta=0.0,
    ):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.n_trees = n_trees
        self.n_bins = n_bins
        self.leaf_share = leaf_share
        self.mechanism = mechanism
        self.objective = objective
        self.random_state = random_state
        self.features = features
        self.classes = classes
        self.delta = delta

    def _check_params(self):
        check_fit_epsilon(self.epsilon)
        depth = check_int(self.max_depth, "max_depth", minimum=1, maximum=12)
        trees = None if self.n_trees == "auto" else check_int(self.n_trees, "n_trees", minimum=1)
        bins = check_int(self.n_bins, "n_bins", minimum=2, maximum=1024)
        if self.leaf_share == "auto":
            share = None
        else:
            share = check_share(self.leaf_share, "leaf_share")
        check_choice(self.mechanism, SELECTIONS, "mechanism")
        check_choice(self.objective, OBJECTIVES, "objective")
        check_delta(self.delta)
        return depth, trees, bins, None if share is None else Fraction(share).limit_denominator(10**6)

    def fit(self, X, y=None, budget=None):
        """Grow the private trees (see the module docstring).

        Parameters
        ----------
        X : array_like, shape (n, d), or dpmo.datasets.Dataset
            Raw values with ``features``, or the encoded form (a Dataset, its ``data.X``).
        y : array_like, shape (n,)
        budget : dpmo.Budget, optional
            Spend the fit's ``epsilon`` from this budget (reserved at once, :func:`dpmo.budget.fit_budget`).

        Returns
        -------
        self

        Notes
        -----
        O(n d D) for the counts plus O(n_trees 2^D (sum of sizes)) for the selections.
        """
        depth, n_trees, n_bins, share = self._check_params()
        check_budget_first(self.epsilon, budget)  # before the table is read (issue 37, point 11)
        X, y, features = check_X_fit(self, X, y)
        y01, classes = fit_labels(self, y, X.shape[0])
        n, d = X.shape
        own = fit_budget(self.epsilon, budget)  # raises before anything private is computed
        rng = estimator_rng(self.random_state)
        rest = own.epsilon_exact
        self.n_records_ = None
        if n_trees is None:  # the ensemble's size from a noisy record count (its own share)
            count_eps = own.epsilon_exact * COUNT_SHARE
            e = own.spend(count_eps, "noisy record count (sets n_trees)", mechanism="laplace",
                          sensitivity=1.0, candidates=1)  # fmt: skip
            self.n_records_ = float(n + rng.laplace(0.0, 1.0 / e))
            rest -= count_eps
            n_trees = auto_trees(float(rest), self.n_records_, depth)
        if share is None:  # one tree: its structure matters most; an ensemble: its leaves
            share = Fraction(1, 4) if n_trees == 1 else Fraction(1, 2)
        leaf_eps = rest * share
        level_eps = (rest - leaf_eps) / depth  # the same for every depth
        is_cat, size = feature_domains(features, d, n_bins)
        codes = bin_codes(X, is_cat, n_bins)
        splits = candidate_splits(is_cat, size)
        offsets = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
        y = y01.astype(np.int64)

        part = rng.integers(n_trees, size=n)  # each record's part, independently
        inner = 2**depth - 1
        feature = np.zeros((n_trees, inner), dtype=np.int64)
        kind = np.zeros((n_trees, inner), dtype=np.int64)
        value = np.zeros((n_trees, inner), dtype=np.int64)
        frontier = [[np.flatnonzero(part == t)] for t in range(n_trees)]  # rows of each node of the depth
        for level in range(depth):
            eps = own.spend(
                level_eps,
                f"depth {level}: the split of each of the {n_trees * 2**level} nodes ({self.mechanism} on "
                f"the Gini utility, sensitivity {GINI_SENSITIVITY:g}; parallel over the depth's disjoint "
                "nodes and the trees' disjoint parts)",
                mechanism=self.mechanism,
                sensitivity=GINI_SENSITIVITY,
                candidates=splits[0].size,
            )
            for t in range(n_trees):
                nxt = []
                for i, rows in enumerate(frontier[t]):
                    node = 2**level - 1 + i
                    counts = node_split_counts(codes, y, rows, is_cat, size, offsets, splits)
                    c = int(select(gini_scores(counts), eps, GINI_SENSITIVITY, mechanism=self.mechanism,
                                   rng=rng)[0])  # fmt: skip
                    f, k, v = splits[0][c], splits[1][c], splits[2][c]
                    feature[t, node], kind[t, node], value[t, node] = f, k, v
                    col = codes[rows, f]
                    left = col < v if k == 0 else col == v
                    nxt += [rows[left], rows[~left]]
                frontier[t] = nxt
        eps = own.spend(
            leaf_eps,
            f"noisy (negative, positive) counts of the {n_trees * 2**depth} leaves (Laplace, L1 sensitivity "
            "1: the leaves of all trees partition the records)",
            mechanism="laplace",
            sensitivity=1.0,
            candidates=2 * n_trees * 2**depth,
        )
        exact = np.zeros((n_trees, 2**depth, 2))
        for t in range(n_trees):
            for i, rows in enumerate(frontier[t]):
                pos = int(y[rows].sum())
                exact[t, i] = (rows.size - pos, pos)
        self.leaf_counts_ = exact + rng.laplace(0.0, 1.0 / eps, size=exact.shape)
        self.feature_, self.kind_, self.value_ = feature, kind, value
        self.budget_ = own
        self.classes_, self.positive_class_ = fitted_classes(classes)
        self.features_ = None if features is None else tuple(features)
        self.categorical_, self.domain_sizes_ = is_cat, size
        self.n_bins_, self.depth_ = n_bins, depth
        self.leaf_epsilon_ = float(eps)
        # post-processing of the noisy counts only
        self.leaf_shares_ = smoothed_leaf_shares(self.leaf_counts_, self.SMOOTHING / self.leaf_epsilon_)
        self.threshold_ = 0.5 if self.objective == "accuracy" else noisy_positive_rate(self.leaf_counts_)
        return self

    # -------------------------------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """Leaf (``0 .. 2^D - 1``) of every row in every tree, shape (n, n_trees). O(n n_trees D)."""
        self._check_fitted()
        codes = bin_codes(check_X_predict(self, X), self.categorical_, self.n_bins_)
        return np.column_stack([
            route(codes, self.feature_[t], self.kind_[t], self.value_[t], self.depth_)
            for t in range(self.feature_.shape[0])
        ])  # fmt: skip

    def positive_share(self, X) -> np.ndarray:
        """Mean over the trees of the smoothed noisy positive share of each row's leaf (post-processing).

        Reads ``leaf_shares_`` (see :func:`smoothed_leaf_shares`). O(n n_trees D).
        """
        leaves = self.apply(X)
        table = self.leaf_shares_
        return np.mean([table[t, leaves[:, t]] for t in range(leaves.shape[1])], axis=0)

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` probabilities in the order of ``classes_``: the mean noisy positive share.

        O(n n_trees D).
        """
        return proba_columns(self, self.positive_share(X))

    def predict(self, X) -> np.ndarray:
        """Label of every row: positive when its positive share reaches the objective's threshold."""
        return labels_of(self, self.positive_share(X) >= self.threshold_)
