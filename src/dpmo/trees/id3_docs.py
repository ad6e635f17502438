"""The parameters and attributes section shared by the docstrings of the ID3 estimators
(:class:`dpmo.trees.DiffPID3Classifier`, :class:`dpmo.trees.LocalDiffPID3Classifier`)."""

__all__ = ["PARAMS_DOC"]

PARAMS_DOC = """
    Parameters
    ----------
    epsilon : float, default 1.0
        Total privacy budget (epsilon-DP; neighbouring datasets differ by adding or removing one record).
    max_depth : int, default 5
        Largest depth of a leaf (root = depth 0); the budget is split over ``min(max_depth, d) + 1``
        depths.
    criterion : {"info_gain", "gini", "max"}, default "info_gain"
        Split criterion (Friedman and Schuster; see :mod:`dpmo.trees.split_sensitivity`).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        All randomness of the fit. None draws fresh OS entropy.
    features : sequence of dpmo.datasets.Feature, optional
        Public column metadata (e.g. ``dataset.features``): a categorical column with ``K`` categories
        splits ``K`` ways; a numeric column is cut into ``n_bins`` equal-width bins of its public range.
        A pandas DataFrame (columns found by name) and a plain array (columns in the order of the
        features) hold raw values (the categories themselves, numbers in the units of their bounds); a
        Dataset and its table ``data.X`` are encoded (``docs/trees.md``, "Units"); an ambiguous table
        is refused. None: every column is numeric on ``[0, 1]``, and ``fit`` on a raw table warns (the same
        ``DefaultBoundsWarning`` for every table). Values outside the public range are clipped to it (``fit``
        never says whether: that depends on the records; ``predict`` warns).
    n_bins : int, default 5
        Bins of a numeric column over its public range ``[0, 1]``, 1 to 1024 (a numeric split has
        ``n_bins`` children).
    max_records : int or None, default 100000
        Public bound of the information gain: each (value, class) count is clipped at ``max_records // 2``
        (larger tables fit; nothing is refused on the private size); sets the global
        sensitivity of the information gain, ``log2(max_records + 1) + 1 / ln 2``. See the module notes
        for None.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}, default "exponential"
        Selection mechanism of the split attribute (:func:`dpmo.select`).
    classes : pair of labels, optional
        The public label set ``[negative, positive]``. None reads it from ``y`` (its two distinct values,
        sorted; the fitted ``classes_`` then reveals it, and a ``y`` with fewer than two labels is
        refused). Declared, a table in which a class has no record still fits, and so does a table with
        no record at all (the noisy counts are then noise alone).
    exact : bool, default False
        The float sampler is the default here, unlike DP-MOET's: exact discrete Laplace noise on every
        count makes a fit on Adult 4-9 times slower (``docs/core.md``, "Floating point and exact
        sampling"). ``True``: exact sampling throughout: the attribute choices by :func:`dpmo.select`
        with ``exact=True``, and the noisy counts (integers) with exact discrete Laplace noise
        ``P(z) ~ exp(-eps |z|)`` instead of float Laplace noise of scale ``1 / eps`` (the geometric
        mechanism, eps-DP for a count of sensitivity 1;
        :func:`dpmo.mechanisms.exact.sample_discrete_laplace`). With ``random_state=None`` every bit
        comes from the OS's secure source; a seed makes it reproducible (tests only).
    delta : float, default 0
        ``0``: the fit is epsilon-DP. ``> 0``: ``(epsilon, delta)``-DP; the depths' steps keep their
        relative shares and are scaled together by the accountant
        (:func:`dpmo.accounting.scaled_epsilons`), all with pure credit (a depth's second step is an
        attribute choice for some nodes and Laplace leaf counts for others; ``docs/privacy-accounting.md``,
        "Approximate DP"). ``budget_``'s records then keep each step's epsilon.

    Attributes
    ----------
    tree_ : ID3Tree
        The private tree (flat arrays; publishable).
    budget_ : dpmo.Budget
        The fit's budget of ``epsilon``: one ledger record per budget step, recorded when it is taken (per
        depth: node counts, then attribute choice or leaf counts; last depth: leaf counts), summing to
        ``epsilon`` exactly.
    classes_ : ndarray of shape (2,)
        The two labels in scikit-learn's (sorted) order, the order of the columns of
        :meth:`predict_proba`; :meth:`predict` returns these labels.
    positive_class_ : label
        The positive class (``classes[1]``, or the larger label of ``y``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame.
    units_in_ : {"raw", "encoded"}
        The units of ``X`` at fit (``docs/trees.md``, "Units").
    features_ : tuple of Feature or None
    domain_sizes_ : ndarray of int
        Number of children of a split on each column (categories or bins).
    categorical_ : ndarray of bool
"""
