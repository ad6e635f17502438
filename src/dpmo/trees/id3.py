"""DiffP-ID3 (Friedman and Schuster, KDD 2010) and LocalDiffPID3 (Farias et al., local dampening).

The two private ID3 baselines the paper's tree aggregation experiment compares DP-MOET with
(figure "Mean fitness/utility score u_agg", method "LocalDiffPID3").

Algorithm (Friedman and Schuster, "Data Mining with Differential Privacy", Algorithm "DiffP-ID3")
-----------------------------------------------------------------------------------------------
The tree is grown level by level from the root (depth 0) down to depth ``L = min(max_depth, d)`` (``d``
attributes; an attribute is used at most once on a path, so no path can be longer). At each node ``T``
with remaining attributes ``R``:

1. if the node is at depth ``L`` (no split allowed, or no attribute left) it is a leaf;
2. otherwise a noisy record count ``N = |T| + Lap(1 / eps_c)`` decides: if
   ``N / (t |C|) < sqrt(2) / eps_c`` (``t`` = largest domain size in ``R``, ``|C| = 2``: too few records
   per cell for the noise, Friedman and Schuster's rule) the node is a leaf;
3. otherwise the split attribute is chosen among ``R`` with the criterion (:mod:`.split_sensitivity`):
   by the exponential mechanism with the criterion's global sensitivity (DiffP-ID3) or by local dampening
   (LocalDiffPID3) of the criterion's non-negative form ``u + c |T|`` (``c`` = 1 bit for info gain, 1/2
   for Gini: the same for every attribute, so the same order) with the node's shared curve, the
   elementwise maximum over the attributes of their exact local sensitivities at distance t (admissible;
   with one curve the dampened scores keep the order of the scores, with a curve per attribute and
   negative scores they favour the more sensitive attributes), and the node gets one child per value of the
   attribute's public domain (also the values no record takes, so that the tree's shape reveals nothing
   beyond the noisy decisions);
4. a leaf predicts the class with the larger Laplace-noised class count.

Budget (total ``epsilon``; neighbouring relation: **add or remove one record**)
------------------------------------------------------------------------------
* Levels: ``eps_level = epsilon / (L + 1)`` for each of the ``L + 1`` depths. The nodes of one depth hold
  disjoint sets of records, so their releases compose in parallel: one depth costs ``eps_level`` however
  many nodes it has, and the levels compose sequentially.
* Within a node above depth ``L``: ``eps_c = eps_level / 2`` for the noisy count and ``eps_level / 2``
  for *either* the attribute choice *or* the leaf's class counts (Friedman and Schuster's
  ``epsilon / (2 (d + 1))`` per query).
* At depth ``L`` the node is a leaf whatever the data (a public fact), so no count is needed there and the
  leaf's class counts get the whole ``eps_level`` (Friedman and Schuster spend half of it on a count
  whose outcome is ignored).
* Leaf class counts: the two counts change by 1 in total when a record is added or removed (L1
  sensitivity 1), so ``Lap(1 / eps)`` on each is ``eps``-DP.

Each step is recorded in the fit's :class:`dpmo.Budget` (``budget_``) when its depth starts, right before
the depth's first node draws: two records per depth above ``L`` (the counts; the attribute choices or leaf
counts), one for depth ``L``, each one spend under parallel composition over the depth's disjoint nodes.
The ledger sums to ``epsilon`` exactly. A depth that no node reaches (all stopped earlier, a fact decided
by the earlier noisy releases only) still spends its allotment: the allotment is the guarantee.

Information-gain sensitivity
----------------------------
``log2(N + 1) + 1 / ln 2`` grows with the node size N. Friedman and Schuster plug in the *noisy* count of
the node; that is not a worst-case bound (when the noise is negative the true change can exceed it), so
the exponential mechanism is then epsilon-DP only when the noisy count is not below the true size. By
default (``max_records=100_000``) the estimators use a *public* upper bound on the number of records
instead, which is a true global sensitivity (the local dampening paper's experiments do the same with
50,000). ``max_records=None`` reproduces Friedman and Schuster's reading for DiffP-ID3 (with a warning);
LocalDiffPID3 needs no bound at all (``None`` only drops the cap of its local sensitivity).
A table may hold more than ``max_records`` rows: nothing is refused on the private size. Each (value,
class) count is clipped at ``max_records // 2`` before the information gain is computed
(:func:`dpmo.trees.id3_choice.clip_class_counts`, which proves that the bound then holds for every table).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .. import _defaults
from .._validation import check_choice, check_exact, check_int
from ..accounting import check_delta
from ..budget import fit_budget
from ..calls import call_budget, check_budget_first
from ..epsilons import float_at_most
from ..mechanisms import MECHANISMS, select
from ..mechanisms.exact import RandomBits, sample_discrete_laplace
from ._fitted import FittedMixin
from ._inputs import (
    DPEstimatorMixin,
    check_X_fit,
    check_X_predict,
    estimator_rng,
    feature_domains,
    fit_labels,
)
from ._messages import SingleLeafWarning, single_leaf_message
from .budget_params import check_fit_epsilon
from .id3_choice import clip_class_counts, split_choice_scores
from .id3_counts import MemoryID3Counts
from .id3_docs import PARAMS_DOC as _PARAMS_DOC
from .id3_kernels import encode_codes
from .id3_tree import ID3Tree
from .proba import LeafCountScoresMixin, fitted_classes, labels_of
from .split_sensitivity import CRITERIA

# ID3Tree and split_choice_scores live in .id3_tree and .id3_choice; re-exported here, where they were first
__all__ = ["DiffPID3Classifier", "LocalDiffPID3Classifier", "ID3Tree", "split_choice_scores"]


class _BaseID3(FittedMixin, LeafCountScoresMixin, DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the two private ID3 estimators (see the module docstring)."""

    _local = False
    _fitted_attribute = "tree_"  # FittedMixin._check_fitted
    _coded_fit = True  # a raw table is read column by column (dpmo.trees.columns), no float copy
    # LocalDiffPID3's form of the attribute choice (see split_choice_scores); class-level, not parameters:
    # the defaults are the shipped algorithm, benchmarks/bench_id3.py --ablation overrides them in
    # subclasses to measure each part.
    _nonnegative = True
    _shared = True
    # Friedman and Schuster's stopping rule (a node with too few records for the noise becomes a leaf);
    # class-level for the same reason: dpmo.experiments.variants switches it off to test a reading.
    _stopping_rule = True

    def __init__(
        self,
        epsilon=_defaults.EPSILON,
        max_depth=_defaults.ID3_MAX_DEPTH,
        criterion=_defaults.ID3_CRITERION,
        random_state=None,
        *,
        features=None,
        n_bins=_defaults.ID3_N_BINS,
        max_records=_defaults.ID3_MAX_RECORDS,
        mechanism=_defaults.MECHANISM,
        classes=None,
        exact=_defaults.EXACT_ID3,
        delta=0.0,
    ):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.criterion = criterion
        self.random_state = random_state
        self.features = features
        self.n_bins = n_bins
        self.max_records = max_records
        self.mechanism = mechanism
        self.classes = classes
        self.exact = exact
        self.delta = delta

    # -------------------------------------------------------------------------------------------------
    def _check_params(self):
        eps = check_fit_epsilon(self.epsilon)
        depth = check_int(self.max_depth, "max_depth", minimum=0)
        check_choice(self.criterion, CRITERIA, "criterion")
        n_bins = check_int(self.n_bins, "n_bins", minimum=1, maximum=1024)
        check_choice(self.mechanism, MECHANISMS, "mechanism")
        check_exact(self.exact, self.mechanism)
        check_delta(self.delta)
        max_records = self.max_records
        if max_records is not None:
            max_records = check_int(max_records, "max_records", minimum=1)
        return eps, depth, n_bins, max_records

    @staticmethod
    def _encode(X, is_cat: np.ndarray, size: np.ndarray) -> np.ndarray:
        """Integer codes (n, d): categorical codes as they are, numeric values (checked: in [0, 1]) binned."""
        return encode_codes(
            np.ascontiguousarray(X, dtype=np.float64), is_cat.astype(bool), size.astype(np.int64)
        )

    # -------------------------------------------------------------------------------------------------
    def fit(self, X, y=None, budget=None):
        """Grow the private tree.

        Parameters
        ----------
        X : array_like, shape (n, d), or dpmo.datasets.Dataset
            Raw values (a DataFrame or a plain array: categories themselves, numbers in the units of
            their public bounds) or an encoded table (a Dataset, its ``data.X``); ``features`` says which
            column is which (without it every column is numeric on ``[0, 1]``). A Dataset supplies ``y``
            and, when ``features`` is None, the metadata.
        y : array_like of 0/1, shape (n,)
        budget : dpmo.Budget, optional
            Spend the fit's ``epsilon`` from this budget: a sub-budget of ``epsilon`` is reserved in it
            (:meth:`dpmo.Budget.split`) before anything private is computed
            (:class:`dpmo.BudgetExceededError` when it does not fit) and becomes ``budget_``. A fit
            parameter, not a constructor one: a budget is stateful and ``sklearn.base.clone`` copies
            constructor parameters.

        Returns
        -------
        self

        Notes
        -----
        Time O(L n d + nodes * (sum of domain sizes)) for the counts (``np.bincount`` over the node's
        records and remaining attributes) plus one selection per internal node: O(d) for DiffP-ID3, and for
        LocalDiffPID3 the dampening loop, O(cells * number of t-steps) in blocks of distances.
        """
        eps, max_depth, n_bins, max_records = self._check_params()
        if self.epsilon is not None:  # before the table is read (issue 37, point 11)
            check_budget_first(self.epsilon, budget, self.delta)
        X, y, features = check_X_fit(self, X, y)
        y01, classes = fit_labels(self, y, X.shape[0])
        y = y01.astype(np.int8)  # the kernels take narrow integers (less memory to sweep)
        d = X.shape[1]
        # no refusal on the private size: information-gain counts are clipped at max_records // 2 below
        # (clip_class_counts: the sensitivity bound then holds for every table)
        is_cat, size = feature_domains(features, d, n_bins)
        counts = MemoryID3Counts(X, y, is_cat, size)
        return self._grow(counts, features, classes, budget)

    def _grow(self, counts, features, classes, budget):
        """Grow the tree level by level on the exact counts that ``counts`` (an ID3 counts provider:
        :class:`~dpmo.trees.id3_counts.MemoryID3Counts`, or the Spark aggregations of
        :func:`dpmo.spark.fit`) gives, and set the fitted attributes."""
        eps, max_depth, n_bins, max_records = self._check_params()
        d = counts.d
        is_cat, size = feature_domains(features, d, n_bins)
        levels = min(max_depth, d) + 1
        if not self.delta:  # raises before anything private is computed
            own = fit_budget(self.epsilon, budget)
            level_share = own.epsilon_exact / levels  # exact, as recorded below
            half_share = level_share / 2
        else:  # the accountant scales the depths' shares together, pure credit (a depth's second step may
            # be a leaf's Laplace counts); raises before anything private is computed
            shares = [0.5] * (2 * (levels - 1)) + [1.0]
            name = f"{type(self).__name__}.fit"
            own, parts = call_budget(self.epsilon, budget, self.delta, shares, "pure", name)
            half_share, level_share = parts[0], parts[-1]
        rng = estimator_rng(self.random_state)
        # exact mode: every private draw from the OS's secure source (or, seeded, from rng: tests only)
        secure = None if self.random_state is None else rng
        bits = RandomBits(secure) if self.exact else None
        if self.criterion == "info_gain" and max_records is None and not self._local:
            warnings.warn(
                "DiffPID3Classifier with max_records=None uses Friedman and Schuster's noisy node count in "
                "the information-gain sensitivity; that is not a worst-case bound (epsilon-DP only when the "
                "noise does not underestimate the node size). Pass a public max_records for a strict "
                "guarantee.",
                UserWarning,
                stacklevel=3,
            )

        # the float mechanisms run at the largest floats not above the recorded shares
        eps_level = float_at_most(level_share)
        eps_half = float_at_most(half_share)
        how = "local dampening" if self._local else f"{self.mechanism} mechanism"
        value_attribute = np.repeat(np.arange(d), size)  # the attribute of each global value index

        feature, first_child, n_children, label = [-1], [-1], [0], [0]
        depth_of, noisy, leaf_counts = [0], [np.nan], [(np.nan, np.nan)]
        node_lists = (feature, first_child, n_children, label, depth_of, noisy, leaf_counts)

        def make_leaf(node: int, rows: int, c1: int, eps_leaf: float, share, noise=None) -> None:
            if noise is None:
                if bits is not None:
                    noise = sample_discrete_laplace(2, share, bits).astype(np.float64)
                else:
                    noise = rng.laplace(0.0, 1.0 / eps_leaf, size=2)
            counts = np.array([rows - c1, c1], dtype=np.float64) + noise
            label[node] = int(counts[1] > counts[0])
            leaf_counts[node] = (float(counts[0]), float(counts[1]))

        # a node: (index, its handle in the counts provider, remaining attributes)
        frontier = [(0, counts.root(), np.arange(d))]
        sqrt2 = math.sqrt(2.0)
        for level in range(levels):
            last = level == levels - 1
            nxt = []
            nodes = len(frontier)
            # the provider's pass over the table for this depth (Spark: one job), before any draw
            counts.begin_level([h for _, h, _ in frontier], (feature, first_child), tables=not last)
            if last:
                own.spend(
                    level_share,
                    f"depth {level}: noisy class counts of each of the {nodes} leaves (L1 sensitivity 1; "
                    "parallel over the depth's disjoint nodes)",
                    mechanism="laplace",
                    sensitivity=1.0,
                    candidates=nodes,
                )
                # float noise: one draw for the whole depth, the same numbers as one draw per leaf
                noise = None if bits is not None else rng.laplace(0.0, 1.0 / eps_level, size=(nodes, 2))
                for i, (node, h, _) in enumerate(frontier):
                    make_leaf(
                        node, counts.size(h), counts.positives(h), eps_level, level_share,
                        None if noise is None else noise[i],
                    )  # fmt: skip
                break
            own.spend(
                half_share,
                f"depth {level}: noisy record count of each of the {nodes} nodes (parallel over the "
                "depth's disjoint nodes)",
                mechanism="laplace",
                sensitivity=1.0,
                candidates=nodes,
            )
            own.spend(
                half_share,
                f"depth {level}: per node either the split attribute ({how} on {self.criterion}) or "
                "the leaf's noisy class counts (Laplace); parallel over the depth's disjoint nodes",
                mechanism="local_dampening" if self._local else self.mechanism,
                candidates=nodes,
            )
            for node, h, remaining in frontier:
                rows = counts.size(h)
                if bits is not None:
                    n_hat = float(rows + int(sample_discrete_laplace(1, half_share, bits)[0]))
                else:
                    n_hat = rows + float(rng.laplace(0.0, 1.0 / eps_half))
                noisy[node] = n_hat
                t_max = int(size[remaining].max())
                if self._stopping_rule and n_hat / (t_max * 2) < sqrt2 / eps_half:
                    make_leaf(node, rows, counts.positives(h), eps_half, half_share)
                    continue
                table = counts.table(h, remaining)
                value_ids = np.flatnonzero(np.bincount(remaining, minlength=d)[value_attribute])
                groups = np.repeat(np.arange(remaining.size), size[remaining])
                n0 = table[value_ids, 0].astype(np.float64)
                n1 = table[value_ids, 1].astype(np.float64)
                if self.criterion == "info_gain" and max_records is not None:
                    n0, n1 = clip_class_counts(n0, n1, max_records)
                if bits is not None:
                    j = self._choose(n0, n1, groups, remaining.size, half_share, n_hat, max_records, secure)
                else:
                    j = self._choose(n0, n1, groups, remaining.size, eps_half, n_hat, max_records, rng)
                a = int(remaining[j])
                k = int(size[a])
                feature[node] = a
                first_child[node] = len(feature)
                n_children[node] = k
                child_remaining = remaining[remaining != a]
                # the children (unless they are at the last depth, always leaves, with class counts)
                with_tables = level + 1 < levels - 1
                children = counts.split(h, a, k, child_remaining, with_tables, first_child[node])
                new = (-1, -1, 0, 0, level + 1, np.nan, (np.nan, np.nan))  # k children, leaves for now
                for column, value in zip(node_lists, new, strict=True):
                    column.extend([value] * k)
                for v in range(k):
                    nxt.append((first_child[node] + v, children[v], child_remaining))
            frontier = nxt

        self.tree_ = ID3Tree(feature, first_child, n_children, label, depth_of, noisy, leaf_counts)
        if levels > 1 and self.tree_.n_leaves == 1:  # the released tree (public): post-processing
            message = single_leaf_message(int(size.max()), eps_half, levels)
            warnings.warn(message, SingleLeafWarning, stacklevel=2)
        self.budget_ = own
        self.classes_, self.positive_class_ = fitted_classes(classes)
        self.features_ = None if features is None else tuple(features)
        self.domain_sizes_ = size
        self.categorical_ = is_cat
        return self

    def _choose(self, n0, n1, groups, n_groups, eps, n_hat, max_records, rng) -> int:
        scores, sens = split_choice_scores(
            n0,
            n1,
            groups,
            n_groups,
            criterion=self.criterion,
            local=self._local,
            max_records=max_records,
            noisy_count=n_hat,
            nonnegative=self._nonnegative,
            shared=self._shared,
        )
        return int(select(scores, eps, sens, mechanism=self.mechanism, rng=rng, exact=self.exact)[0])

    # -------------------------------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """Index of the leaf reached by each row of ``X``. O(n * depth)."""
        self._check_fitted()
        X = check_X_predict(self, X)
        codes = self._encode(X, self.categorical_, self.domain_sizes_)
        return self.tree_.apply(codes)

    def predict(self, X) -> np.ndarray:
        """Predicted label (from ``classes_``) of each row of ``X``: post-processing of the private tree.

        O(n * depth) time, vectorised over rows.
        """
        leaves = self.apply(X)
        return labels_of(self, self.tree_.label[leaves])

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of the private tree on ``(X, y)``: the share of rows :meth:`predict` labels right.

        As scikit-learn's ``accuracy_score`` (weighted by ``sample_weight`` if given). Computed exactly
        on ``(X, y)``: NOT private. O(n * depth).
        """
        return super().score(X, y, sample_weight=sample_weight)

    def get_depth(self) -> int:
        """Depth of the fitted tree (0 for a single leaf)."""
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        self._check_fitted()
        return self.tree_.n_leaves


class DiffPID3Classifier(_BaseID3):
    __doc__ = (
        """DiffP-ID3 (Friedman and Schuster, KDD 2010): private ID3 with the exponential mechanism.

    The split attribute is chosen by :func:`dpmo.select` on the criterion with its global sensitivity
    (information gain ``log2(max_records + 1) + 1 / ln 2``, Gini 2, max 1). See :mod:`dpmo.trees.id3`
    for the algorithm and the budget split.
"""
        + _PARAMS_DOC
        + """
    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> from dpmo.trees import DiffPID3Classifier
    >>> data = load_breast_cancer()
    >>> clf = DiffPID3Classifier(1.0, features=data.features, random_state=0).fit(data)
    >>> sum(r.epsilon for r in clf.budget_.ledger) == 1.0
    True
"""
    )

    _local = False


class LocalDiffPID3Classifier(_BaseID3):
    __doc__ = (
        """LocalDiffPID3: private ID3 whose split attribute is chosen by local dampening.

    Farias et al., "Local Dampening: Differential Privacy for Non-numeric Queries via Local Sensitivity"
    (PVLDB 14(4) 2020; VLDB Journal 2023), application "private decision tree induction"; the paper's
    "LocalDiffPID3" baseline. Same algorithm and budget as :class:`DiffPID3Classifier`, but the attribute
    is chosen by local dampening (:func:`dpmo.dampen`, then :func:`dpmo.select` with sensitivity 1, as
    :func:`dpmo.local_dampening` does) of the criterion's non-negative form ``u + c |T|`` with the node's
    shared curve, the maximum over the attributes of their exact local sensitivities at distance t
    (:func:`dpmo.trees.split_sensitivity.node_local_sensitivity`, a function of the node's class counts
    per attribute value), capped at the global sensitivity; see :func:`split_choice_scores`. With
    ``criterion="max"`` the local sensitivity is the global one (1) and the two estimators coincide.
"""
        + _PARAMS_DOC
        + """
    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> from dpmo.trees import LocalDiffPID3Classifier
    >>> data = load_breast_cancer()
    >>> clf = LocalDiffPID3Classifier(1.0, features=data.features, random_state=0).fit(data)
    >>> clf.predict(data.X).shape
    (569,)
"""
    )

    _local = True
