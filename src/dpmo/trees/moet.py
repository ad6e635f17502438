"""DP-MOET: differentially private multi-objective evolutionary decision trees (the paper's Algorithm 1).

:class:`DPMOETClassifier` evolves a population of random decision trees and, in every generation, privately
selects the trees with the best trade-off between TPR and TNR, with PrivPareto (``approach="pareto"``) or
PrivAgg (``"agg"``), local or global sensitivity: the paper's four DP-MOET algorithms (also PrivChebyshev,
``"chebyshev"``, and the staircase). ``epsilon=None``: the non-private NODP-MOET (argmax, not a private pick).

Privacy (see ``docs/trees.md``)
-------------------------------
* Neighbouring relation: ``neighbouring="add_remove"`` (default; adding or removing one record, the
  relation of the paper's proofs) or ``"substitution"`` (changing one record, the paper's Definition 1).
  Each uses the exact element local sensitivity of TPR and TNR for that relation
  (:mod:`dpmo.trees.objectives`); the global sensitivities hold for both.
* Only the selections read the private data, through the counts TP, P, TN, N of each tree. The initial
  trees and the genetic operators use only the public feature metadata and earlier private outputs
  (post-processing). Numeric features must already be scaled with *public* bounds
  (:mod:`dpmo.datasets` does it); the estimator never looks at the data's range to build a split.
* Budget: the total ``epsilon`` is split equally over the ``k + 1`` selection rounds (``k`` generations and
  the final selection) and, within a round, equally over its picks (``s`` picks, ``o`` in the final round),
  as the published code does; the paper does not say (``docs/errata.md``, point 4). Every pick is a
  private selection with its share; by basic sequential composition the whole fit is ``epsilon``-DP.
  ``leaf_count_share`` of ``epsilon`` is set aside first for the noisy class counts of the output trees'
  leaves (:mod:`dpmo.trees.leaf_counts`), and ``final_share`` moves budget between the generations and
  the final selection. Every pick and every count release is recorded in the fit's :class:`dpmo.Budget`
  (``budget_``) by the code that makes it, right before it samples; the ledger sums to ``epsilon`` exactly.
  With ``delta > 0`` the same relative shares are scaled together by the accountant (one call: every pick
  and every count release, planned before anything is computed) and each record keeps its own epsilon.
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .._validation import check_choice, check_exact, check_int
from ..accounting import check_delta
from ..budget import fit_budget
from ..calls import check_budget_first
from ..mechanisms import MECHANISMS
from ..selection import (
    approaches,
    argmax_multiobjective,
    get_approach,
    plan_selections,
    select_multiobjective,
)
from ._inputs import DPEstimatorMixin, check_X_fit, estimator_rng, fit_labels, labels_as_01
from .breeding import COLUMNS, breed, node_arrays, node_matrix, random_population
from .budget_params import check_fit_epsilon
from .columns import CodedColumns
from .counts import MemoryCounts
from .encoding import EncodedData
from .evaluation import TreePopulation
from .leaf_counts import noisy_leaf_counts
from .moet_fitted import FittedTreesMixin
from .moet_rounds import SENSITIVITIES, check_tree_weights, fit_shares, selection_scores, tpr_tnr_objectives
from .objectives import NEIGHBOURING
from .operations import feature_spec
from .proba import VoteScoresMixin, fitted_classes, labels_of

try:  # scikit-learn is an optional dependency; the estimator API needs it
    from sklearn.base import BaseEstimator, ClassifierMixin
except ImportError:  # pragma: no cover
    BaseEstimator = object

    class ClassifierMixin:  # type: ignore[no-redef]
        pass


__all__ = ["DPMOETClassifier", "selection_scores", "APPROACHES", "SENSITIVITIES"]

#: Approaches shipped with dpmo (any approach registered with :func:`dpmo.selection.register_approach` is
#: accepted too).
APPROACHES = ("pareto", "agg", "chebyshev", "staircase")


class DPMOETClassifier(FittedTreesMixin, VoteScoresMixin, DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """DP-MOET (the paper's Algorithm "DP-MOET"): private cost-sensitive decision trees by evolution.

    **What it optimises**: a cost-sensitive trade-off, ``w_tpr TPR + w_tnr TNR`` (the defaults: the paper's
    ``3 TPR + 2 TNR``), not accuracy. Measured consequence (``docs/private-tree.md``, 10 seeds, epsilon 1,
    the splits of ``benchmarks/bench_classifiers.py``): 0.692 accuracy on Adult, below the 0.754 of always
    predicting the majority class. For balanced accuracy pass ``weights=(1, 1)`` (``(TPR + TNR) / 2``); for
    accuracy pass weights proportional to the classes' shares, ``weights=(p, 1 - p)`` with ``p`` a public
    estimate of the positive share, or use :class:`~dpmo.trees.PrivateTreeClassifier`, dpmo's recommended
    classifier for accuracy (0.836 on Adult in the same benchmark).

    Parameters
    ----------
    epsilon : float or None, default 1.0
        Total privacy budget of the fit, > 0. None gives the non-private NODP-MOET variant (each pick is
        the argmax of the Pareto score or of the weighted sum, ties broken at random); it is not private.
    approach : {"pareto", "agg", "chebyshev"}, default "agg"
        Selection by the Pareto score (PrivPareto), by ``w_tpr TPR + w_tnr TNR`` (PrivAgg), or by
        PrivChebyshev (``dpmo.chebyshev.ChebyshevApproach``, not in the paper: the picks of a round follow
        the default directions of :func:`dpmo.chebyshev.default_directions`, between TPR and TNR). The
        defaults of this estimator and of ``dpmo trees`` are one set (:mod:`dpmo._defaults`, measured in
        ``docs/defaults.md``): DP-MOET-Agg with the paper's aggregation settings. The Pareto table's
        settings are ``approach="pareto", population_size=30, selection_size=3, n_iterations=3,
        initial_depth=4, max_depth=10, n_output=3`` (what ``dpmo reproduce tree-pareto`` uses).

        **Caution on** ``"pareto"``: the Pareto score of a tree is very sensitive and its picks are close
        to uniform among the population at the usual budgets, so the tree ``predict`` uses can be worse
        than a constant. Measured on breast cancer at epsilon 1 (training accuracy over seeds 0-9,
        ``benchmarks/bench_tree_approaches.py``): ``approach="pareto"`` 0.25-0.79, median 0.56, 7 of 10
        fits below the constant classifier's 0.63 (global sensitivity: 0.13-0.74, median 0.37); the default
        ``"agg"`` 0.59-0.91, median 0.83. Use ``"pareto"`` for a set of trade-off trees (``trees_``), not
        for ``predict`` (``docs/trees.md``, "Which approach").
    sensitivity : {"local", "global"}, default "local"
        Local dampening with the admissible local functions, or the global sensitivity.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}, default "exponential"
        Base selection mechanism of :func:`dpmo.select`.
    population_size, selection_size, n_iterations : int, default 100, 20, 2
        ``p``: initial trees, and trees created per generation (``p // 2`` crossovers of two); ``s``:
        trees kept by the private selection of each generation; ``k``: generations.
    initial_depth, max_depth : int, default 3, 5
        ``d``: depth of the initial full random trees (root at depth 0); trees are pruned to ``d_max``
        (at most 16: memory grows as ``population_size 2^d_max``, about 1 GB at 16 with the defaults).
    n_output : int, default 1
        ``o``: trees returned by the final private selection.
    weights : pair of float, default (3.0, 2.0)
        ``(w_tpr, w_tnr)`` for ``approach="agg"`` (ignored by "pareto").
    neighbouring : {"add_remove", "substitution"}, default "add_remove"
        Neighbouring relation of the guarantee; selects the local sensitivity functions of TPR and TNR
        (:mod:`dpmo.trees.objectives`). The global variants are valid for both.
    features : sequence of dpmo.datasets.Feature, optional
        Public metadata of the columns of ``X`` (categorical domains, numeric bounds), e.g.
        ``dataset.features``. A pandas DataFrame (columns found by name) and a plain array (columns in
        the order of the features) hold raw values: the categories themselves, numeric values in the
        units of their bounds, which scale them. A Dataset and its table ``data.X`` are encoded
        (``docs/trees.md``, "Units"); an ambiguous table is refused. None means every column is numeric
        with the public range [0, 1], and ``fit`` on a raw table then warns
        (:class:`~dpmo.trees.DefaultBoundsWarning`, the same words for every table). Never
        inferred from the data: the splits would then leak it. Numeric values outside the public range
        are clipped to it (``fit`` never says whether it clipped: that depends on the records;
        ``predict`` warns).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        All randomness of the fit (trees, operators and private selections). None draws fresh OS entropy.
    classes : pair of labels, optional
        The public label set ``[negative, positive]``; TPR is measured on ``classes[1]``. None reads the
        label set from ``y`` (its two distinct values, sorted; the fitted ``classes_`` then reveals it,
        and a ``y`` holding fewer than two labels is refused). Declared, a table in which a class has no
        record fits, and so does a table with no record at all (the selections run on zero counts).
    exact : bool, default True
        Exact private selections (:func:`dpmo.select` with ``exact=True``, ``docs/core.md``); ``False``
        opts in to floating point. With ``random_state=None`` they read the OS's secure source; the
        random trees and operators (public randomness) keep using ``random_state``.
    delta : float, default 0
        ``0``: epsilon-DP (basic composition). ``> 0``: ``(epsilon, delta)``-DP; every pick and count
        release of the fit is planned together by the accountant before anything is computed (relative
        shares kept, :func:`dpmo.accounting.scaled_epsilons`), each recording its own epsilon
        (``docs/privacy-accounting.md``, "Approximate DP").
    leaf_count_share : float, 0 or in [1e-6, 1 - 1e-6], default 0.05
        Share of ``epsilon`` spent on the noisy (negative, positive) counts of the leaves of each output
        tree (Laplace, ``docs/trees.md``): :meth:`predict_proba` ranks the rows within a predicted class
        by their leaf's noisy positive share. 0 releases no counts (the scores are then the released
        trees' votes only); the selections share the rest.
    final_share : float in [1e-6, 1 - 1e-6], optional
        Share of the selections' budget given to the final selection, the generations sharing the rest
        equally. None (default): every one of the ``k + 1`` rounds gets the same share.

    Attributes
    ----------
    trees_ : list of Tree
        The ``n_output`` selected trees, in selection order.
    population_ : TreePopulation
        The same trees packed for evaluation.
    voters_ : list of Tree
        The ``s`` trees kept by the last generation's private selection (none when ``n_iterations=0``):
        released picks, so free to publish; :meth:`predict_proba` counts their votes.
    leaf_counts_ : list of ndarray (n_nodes, 2) or None
        Per output tree, the released noisy (negative, positive) counts of its leaves (NaN at decision
        nodes); None when ``leaf_count_share=0``. Exact counts (NOT private) for ``epsilon=None``.
    budget_ : dpmo.Budget or None
        The fit's budget of ``epsilon`` (a sub-budget of the ``budget`` given to :meth:`fit`, if any): one
        ledger record per private pick and per output tree's leaf counts, recorded as it is made, summing
        to ``epsilon`` exactly. None for the non-private variant.
    features_ : tuple of Feature or None
    n_features_in_ : int
    classes_ : ndarray of shape (2,)
        The two labels in scikit-learn's (sorted) order, the order of the columns of
        :meth:`predict_proba`; :meth:`predict` returns these labels.
    positive_class_ : label
        The positive class (``classes[1]``, or the larger label of ``y``): TPR is measured on it.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame.
    units_in_ : {"raw", "encoded"}
        The units of ``X`` at fit (``docs/trees.md``, "Units"): raw for a DataFrame or a plain array,
        encoded for a Dataset, its table or an EncodedData.

    Notes
    -----
    The fitted estimator holds only the private outputs (the trees and the ledger), so it can be
    published. :meth:`evaluate` computes exact TPR/TNR on the data it is given: that is not private.

    Cost of a fit: the tree evaluations (bitset engine: O(nodes reached x n / 64) word operations per
    new tree) plus ``k + 1`` selection rounds (:func:`dpmo.priv_pareto` / :func:`dpmo.priv_agg`) on at most
    ``s + p`` trees.

    Examples
    --------
    >>> from dpmo.datasets import load_breast_cancer
    >>> from dpmo.trees import DPMOETClassifier
    >>> data = load_breast_cancer()
    >>> clf = DPMOETClassifier(epsilon=1.0, features=data.features, random_state=0).fit(data)
    >>> clf.evaluate(data.X, data.y).shape
    (1, 2)
    """

    _coded_fit = True  # a raw table is read column by column (dpmo.trees.columns), no float copy

    def __init__(
        self,
        epsilon=_defaults.EPSILON,
        *,
        approach=_defaults.TREE_APPROACH,
        sensitivity=_defaults.SENSITIVITY,
        mechanism=_defaults.MECHANISM,
        population_size=_defaults.TREE_POPULATION_SIZE,
        selection_size=_defaults.TREE_SELECTION_SIZE,
        n_iterations=_defaults.TREE_N_ITERATIONS,
        initial_depth=_defaults.TREE_INITIAL_DEPTH,
        max_depth=_defaults.TREE_MAX_DEPTH,
        n_output=_defaults.TREE_N_OUTPUT,
        weights=_defaults.TREE_WEIGHTS,
        neighbouring="add_remove",
        features=None,
        random_state=None,
        classes=None,
        exact=_defaults.EXACT,
        delta=0.0,
        leaf_count_share=_defaults.TREE_LEAF_COUNT_SHARE,
        final_share=None,
    ):
        self.epsilon = epsilon
        self.approach = approach
        self.sensitivity = sensitivity
        self.mechanism = mechanism
        self.population_size = population_size
        self.selection_size = selection_size
        self.n_iterations = n_iterations
        self.initial_depth = initial_depth
        self.max_depth = max_depth
        self.n_output = n_output
        self.weights = weights
        self.neighbouring = neighbouring
        self.features = features
        self.random_state = random_state
        self.classes = classes
        self.exact = exact
        self.delta = delta
        self.leaf_count_share = leaf_count_share
        self.final_share = final_share

    # ------------------------------------------------------------------------------------------------
    def _validate_params(self):
        eps = None if self.epsilon is None else check_fit_epsilon(self.epsilon)
        if check_delta(self.delta) and eps is None:
            raise ValueError("delta > 0 needs a private fit (epsilon=None is the non-private variant)")
        check_choice(self.approach, approaches(), "approach")
        check_choice(self.sensitivity, SENSITIVITIES, "sensitivity")
        check_choice(self.mechanism, MECHANISMS, "mechanism")
        check_exact(self.exact, self.mechanism)
        check_choice(self.neighbouring, NEIGHBOURING, "neighbouring")
        p = check_int(self.population_size, "population_size", minimum=2)
        s = check_int(self.selection_size, "selection_size")
        k = check_int(self.n_iterations, "n_iterations", minimum=0)
        d = check_int(self.initial_depth, "initial_depth", minimum=0)
        dmax = check_int(self.max_depth, "max_depth", minimum=0)
        o = check_int(self.n_output, "n_output")
        if dmax > 16:  # memory O(population_size 2^max_depth): about 1 GB at 16 with the defaults
            raise ValueError(f"max_depth must be at most 16, got {dmax}")
        if d > dmax:
            raise ValueError(f"initial_depth ({d}) must not exceed max_depth ({dmax})")
        if s > p:
            raise ValueError(f"selection_size ({s}) must not exceed population_size ({p})")
        final_size = p if k == 0 else s + 2 * (p // 2)
        if o > final_size:
            raise ValueError(f"n_output ({o}) must not exceed the final population size ({final_size})")
        w = check_tree_weights(self.weights)
        fit_shares(1, k, o, self.leaf_count_share, self.final_share)  # validates the shares
        return eps, p, s, k, d, dmax, o, w

    # ------------------------------------------------------------------------------------------------
    def _select(self, tp, p, tn, n, count, eps_round, what, rng, budget, w, objectives=None):
        """Indices of ``count`` trees chosen among the current ones by the multi-objective pipeline
        (NOT private when ``eps_round`` is None: the argmax, ties broken at random). ``objectives``
        replaces the (TPR, TNR) objectives of the counts (the experiments' readings use it)."""
        objs = tpr_tnr_objectives(tp, p, tn, n, self.neighbouring) if objectives is None else objectives
        w = w if get_approach(self.approach).uses_weights else None
        if self.exact and self.random_state is None:
            rng = None  # exact selections read the OS's secure source
        if eps_round is None:
            return argmax_multiobjective(objs, approach=self.approach, weights=w, k=count, rng=rng)
        chosen = select_multiobjective(
            objs,
            eps_round,
            approach=self.approach,
            sensitivity=self.sensitivity,
            weights=w,
            mechanism=self.mechanism,
            k=count,
            rng=rng,
            budget=budget,
            what=what,
            exact=self.exact,
        )
        return np.asarray(chosen, dtype=np.intp)

    def _plan(self, budget, s: int, k: int, o: int):
        """``delta > 0``: the fit as one call of the accountant, before anything is computed. Returns
        ``(the call's budget, the exact epsilon of each of the k + 1 selections, of each leaf-count
        release)``; the relative shares are :func:`fit_shares`'s, the picks of ``mechanism``'s kind and the
        Laplace count releases pure."""
        gen, final, leaf = fit_shares(1, k, o, self.leaf_count_share, self.final_share)
        own, round_eps, leaf_eps = plan_selections(
            self.epsilon,
            budget,
            self.delta,
            self.approach,
            [s] * k + [o],
            self.mechanism,
            "DP-MOET fit",
            weights=[gen] * k + [final],
            releases=[] if leaf is None else [(leaf, "laplace")] * o,
        )
        return own, round_eps, leaf_eps if leaf is not None else [None] * o

    def fit(self, X, y=None, budget=None):
        """Run DP-MOET on ``(X, y)``.

        Parameters
        ----------
        X : array_like (n, d), dpmo.datasets.Dataset or dpmo.trees.EncodedData
            Raw values (a DataFrame or a plain array) or an encoded table (a Dataset, its ``data.X``),
            as ``features`` says. A Dataset supplies ``y`` and (when ``features`` is None) the metadata.
            An EncodedData built with labels (``EncodedData(X, y)``, encoded) supplies both and is used
            as it is: fitting many estimators on one table then encodes it once (otherwise an encoded
            table is recognised by :meth:`EncodedData.cached`, which compares it with its stored copy, a
            fraction of a millisecond per call). A raw table is read column by column into narrow codes
            and bit sets on every fit, with no float copy (:mod:`dpmo.trees.columns`; about 44 bytes per
            row for 12 categorical columns, ``docs/trees.md``, "Large tables").
        y : array_like of 0/1, shape (n,)
            1 = positive class (not with an EncodedData).
        budget : dpmo.Budget, optional
            Spend the fit's ``epsilon`` from this budget: a sub-budget of ``epsilon`` is reserved in it
            (:meth:`dpmo.Budget.split`) before anything private is computed
            (:class:`dpmo.BudgetExceededError` when it does not fit) and becomes ``budget_``. A fit
            parameter, not a constructor one, because a budget is stateful (``sklearn.base.clone`` copies
            constructor parameters). Not with ``epsilon=None``.

        Returns
        -------
        self
        """
        eps, p, s, k, d, dmax, o, w = self._validate_params()
        if eps is not None:  # before the table is read (issue 37, point 11)
            check_budget_first(self.epsilon, budget, self.delta)
        given = X if isinstance(X, EncodedData) else None
        if given is not None:
            X, y = self._labels_of(given, y)
        X, y, features = check_X_fit(self, X, y, encoded=given is not None)
        y01, classes = fit_labels(self, y, X.shape[0])
        if given is not None and given.X is not X:  # clipped: encode the clipped table
            given = None
        if isinstance(X, CodedColumns):  # a raw table read column by column (the lean fit)
            enc = EncodedData.from_columns(X, y01)
        else:
            enc = given if given is not None else EncodedData.cached(X, y01)
        features = features if features is not None else X.shape[1]
        return self._evolve(MemoryCounts(enc), features, classes, budget)

    def _evolve(self, counts, features, classes, budget):
        """The evolution and the private selections of :meth:`fit` on the exact counts that ``counts`` (a
        counts provider: :class:`MemoryCounts`, or the Spark aggregations of :func:`dpmo.spark.fit`) gives;
        ``features``: the Feature tuple or the number of columns. Sets the fitted attributes."""
        eps, p, s, k, d, dmax, o, w = self._validate_params()
        is_cat, ncat = feature_spec(features)
        if eps is None:
            if budget is not None:
                raise ValueError("epsilon=None (the non-private variant) spends no budget; pass budget=None")
            own = None
            round_eps, leaf_eps = [None] * (k + 1), [None] * o
        elif not self.delta:  # exact shares of each round (split equally over its picks) and count release
            own = fit_budget(self.epsilon, budget)  # raises before anything private is computed
            eps_round, eps_final, eps_leaf = fit_shares(
                own.epsilon_exact, k, o, self.leaf_count_share, self.final_share
            )
            round_eps, leaf_eps = [eps_round] * k + [eps_final], [eps_leaf] * o
        else:  # every pick and count release of the fit planned together; raises before anything private
            own, round_eps, leaf_eps = self._plan(budget, s, k, o)
        rng = estimator_rng(self.random_state)
        P, N = counts.positives, counts.negatives

        # the genetic operators (public randomness, no data) run compiled on the population's arrays, with
        # the same draws as dpmo.trees.random_tree / crossover / mutate / prune called one by one
        lock = rng.bit_generator.lock  # held as NumPy's own methods hold it (the kernels do not take it)
        with lock:
            nodes, offsets = random_population(p, d, is_cat, ncat, rng)
        population = TreePopulation.from_arrays(*node_arrays(nodes), offsets)
        tp, tn = counts.confusion(population)
        voters = ()

        for rnd in range(k):
            keep = self._select(
                tp, P, tn, N, s, round_eps[rnd], f"DP-MOET generation {rnd + 1} of {k}", rng, own, w
            )
            population = voters = population.take(keep)
            tp, tn = tp[keep], tn[keep]
            parents = node_matrix([getattr(population, name) for name in COLUMNS])
            with lock:
                nodes, offsets = breed(parents, population.offsets, p // 2, dmax, is_cat, ncat, rng)
            children = TreePopulation.from_arrays(*node_arrays(nodes), offsets)
            ctp, ctn = counts.confusion(children)
            population = population.concat(children)
            tp = np.concatenate([tp, ctp])
            tn = np.concatenate([tn, ctn])

        final = self._select(tp, P, tn, N, o, round_eps[k], "DP-MOET final selection", rng, own, w)
        self.trees_ = [population[i] for i in final]
        self.population_ = TreePopulation(self.trees_)
        self.voters_ = list(voters)
        self.leaf_counts_ = None
        if self.leaf_count_share:  # after the trees are chosen, own share; NOT private for epsilon=None
            self.leaf_counts_ = noisy_leaf_counts(
                self.population_, None, leaf_eps, own, neighbouring=self.neighbouring, exact=self.exact,
                rng=None if self.exact and self.random_state is None else rng,
                counts=counts.leaf_counts(self.population_),
            )  # fmt: skip
        self.budget_ = own
        self.features_ = None if isinstance(features, int) else features
        self.classes_, self.positive_class_ = fitted_classes(classes)
        return self

    # ------------------------------------------------------------------------------------------------
    def predict(self, X, tree: int = 0) -> np.ndarray:
        """Labels (from ``classes_``) predicted by output tree ``tree`` (0 = the first selected), shape (n,).

        O(n * depth) time.
        """
        X = self._X(X)
        pred = TreePopulation([self.trees_[self._tree_index(tree)]]).predict(X)[0]
        return labels_of(self, pred)

    def predict_all(self, X) -> np.ndarray:
        """Labels (from ``classes_``) predicted by every output tree, shape (n_output, n).

        O(n_output * n * depth).
        """
        X = self._X(X)  # NotFittedError before population_ is read
        return labels_of(self, self.population_.predict(X))

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of output tree 0 (the first tree of the final private selection) on ``(X, y)``.

        The share of rows whose label :meth:`predict` (``tree=0``) gets right, as scikit-learn's
        ``accuracy_score`` (weighted by ``sample_weight`` if given). DP-MOET selects trees for their
        TPR/TNR trade-off, not for accuracy; :meth:`evaluate` gives (TPR, TNR) of every output tree.
        Computed exactly on ``(X, y)``: NOT private. O(n * depth).
        """
        return super().score(X, y, sample_weight=sample_weight)

    def evaluate(self, X, y=None) -> np.ndarray:
        """(TPR, TNR) of every output tree on ``(X, y)``, array (n_output, 2). NOT private.

        The positive class is ``positive_class_``. Rates are 0 when a class is absent. Used by experiments
        (coverage C, aggregate fitness). ``X`` may be an EncodedData built with 0/1 labels (as in
        :meth:`fit`). O(nodes x n / 64) with the bitset engine.
        """
        from ..datasets import Dataset

        if isinstance(X, EncodedData):
            self._check_fitted()
            if X.d != self.n_features_in_:
                raise ValueError(
                    f"X has {X.d} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input"
                )
            self._labels_of(X, y)  # it must hold the labels, and y must not be given
            enc = X
        else:
            if isinstance(X, Dataset) and y is None:
                y = X.y
            X = self._X(X)
            if y is None:
                raise ValueError("evaluate needs labels y")
            enc = EncodedData.cached(X, labels_as_01(self, y, X.shape[0]))
        tp, P, tn, N = self.population_.counts(enc)
        tpr = np.divide(tp, P, out=np.zeros(tp.size), where=P > 0)
        tnr = np.divide(tn, N, out=np.zeros(tn.size), where=N > 0)
        return np.column_stack([tpr, tnr])

    def fitness(self, X, y=None) -> np.ndarray:
        """``w_tpr TPR + w_tnr TNR`` of every output tree on ``(X, y)`` (NOT private), shape (n_output,)."""
        return self.evaluate(X, y) @ np.asarray(self.weights, dtype=np.float64)
