"""``predict_proba`` and ``decision_function`` of the private tree estimators: post-processing of the release.

A fitted private estimator releases its trees and nothing else (its ``budget_`` says at what cost). The
scores here are functions of that release and of the rows they are asked about, so they cost no budget and
read no training data (``docs/trees.md``, "Probabilities, scores"):

* :class:`~dpmo.trees.DPMOETClassifier` releases its ``n_output`` trees, the ``s`` trees of its last
  generation's selection (``voters_``, picks it has paid for) and, with ``leaf_count_share > 0``, the noisy
  class counts of every output tree's leaves (``leaf_counts_``, their own share of the budget). Its
  probability of the positive class is ``p = (v_t + r) / 2``: ``v_t = 1`` when the tree :meth:`predict`
  uses (``t``, 0 unless said) predicts the positive class, and ``r`` in ``[0, 1)`` orders the rows within
  a predicted class, ``r = (share_t + m) / 2`` with ``share_t`` the smoothed noisy positive share of the
  row's leaf in tree ``t`` (:func:`dpmo.trees.leaf_counts.leaf_positive_share`) and ``m`` the share of
  all released trees (output trees and voters) that vote positive; without counts ``r = m``. So the most
  probable class is the one :meth:`predict` returns. It is 0 or 1 only with one output tree, no
  generation and no counts.
* :class:`~dpmo.trees.DiffPID3Classifier` and :class:`~dpmo.trees.LocalDiffPID3Classifier` release the
  noisy class counts ``(c0, c1)`` of every leaf (Laplace noise, part of their budget). The probability of
  the positive class is the leaf's **noisy positive share**
  ``p = 1/2 + (c1 - c0) / (2 (|c0| + |c1|))``, which is ``c1 / (c0 + c1)`` when both counts are
  non-negative, stays in ``[0, 1]`` when noise makes one negative, and is above ``1/2`` exactly when the
  leaf predicts the positive class (``c1 > c0``).

Neither is a calibrated probability: the trees were chosen for their TPR and TNR, and calibrating on data
would be a new release. ``predict_proba`` has one column per class of ``classes_`` (scikit-learn's sorted
order, so its scorers, such as ``"roc_auc"``, see the right class), and ``decision_function`` is
``2 P(classes_[1]) - 1``: positive exactly when :meth:`predict` returns ``classes_[1]``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import check_int
from .evaluation import TreePopulation
from .leaf_counts import leaf_positive_share

__all__ = ["VoteScoresMixin", "LeafCountScoresMixin", "fitted_classes", "labels_of"]


def fitted_classes(classes) -> tuple[np.ndarray, object]:
    """``(classes_, positive_class_)`` from the pair ``[negative, positive]``.

    ``classes_`` holds the two labels in scikit-learn's order (sorted, as ``np.unique`` gives them), so
    that the columns of ``predict_proba`` and the sign of ``decision_function`` mean what scikit-learn's
    scorers expect; ``positive_class_`` is the class whose true positive rate the private selection
    measures. O(1).

    Examples
    --------
    >>> from dpmo.trees.proba import fitted_classes
    >>> classes_, positive = fitted_classes(["well", "sick"])
    >>> classes_.tolist(), str(positive)
    (['sick', 'well'], 'sick')
    """
    classes = np.asarray(classes)
    return classes[np.argsort(classes, kind="stable")], classes[1]


def labels_of(est, positive) -> np.ndarray:
    """Labels (from ``est.classes_``) of 0/1 predictions, 1 meaning ``est.positive_class_``. O(n).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from dpmo.trees.proba import labels_of
    >>> est = SimpleNamespace(classes_=np.array(["sick", "well"]), positive_class_="sick")
    >>> labels_of(est, np.array([1, 0, 1])).tolist()
    ['sick', 'well', 'sick']
    """
    flip = int(est.classes_[0] == est.positive_class_)
    return est.classes_[np.asarray(positive, dtype=np.intp) ^ flip]


def proba_columns(est, p_positive: np.ndarray) -> np.ndarray:
    """``(n, 2)`` probabilities in the order of ``classes_`` from the positive class's probability."""
    if est.classes_[1] == est.positive_class_:
        return np.column_stack([1.0 - p_positive, p_positive])
    return np.column_stack([p_positive, 1.0 - p_positive])


class _ScoresMixin:
    """``decision_function`` from ``predict_proba`` (shared)."""

    def decision_function(self, X, **kwargs) -> np.ndarray:
        """``2 P(classes_[1]) - 1`` in ``[-1, 1]``, shape (n,): positive exactly where :meth:`predict` returns
        ``classes_[1]``. A post-processing of the released trees (see :meth:`predict_proba`); the
        scikit-learn scorers ``"roc_auc"`` and ``"average_precision"`` use it. Same cost as
        :meth:`predict_proba`.

        Examples
        --------
        >>> import numpy as np
        >>> from dpmo.trees import DiffPID3Classifier
        >>> X = np.random.default_rng(0).random((300, 2))
        >>> clf = DiffPID3Classifier(5.0, random_state=0).fit(X, X[:, 0] > 0.5)
        >>> d = clf.decision_function(X)
        >>> bool(np.all((d > 0) == (clf.predict(X) == clf.classes_[1])))
        True
        """
        proba = self.predict_proba(X, **kwargs)
        return 2.0 * proba[:, 1] - 1.0


class VoteScoresMixin(_ScoresMixin):
    """Scores of :class:`~dpmo.trees.DPMOETClassifier`: its tree's class, then leaf counts and votes."""

    def predict_proba(self, X, tree: int = 0) -> np.ndarray:
        """Probabilities from the released trees and leaf counts, shape (n, 2), columns in ``classes_`` order.

        ``P(positive) = (v_tree + r) / 2``: ``v_tree = 1`` when output tree ``tree`` (the one
        :meth:`predict` uses) predicts ``positive_class_``; ``r = (share + m) / 2`` orders the rows within
        a predicted class, with ``share`` the smoothed noisy positive share of the row's leaf in that tree
        (``leaf_counts_``; :func:`dpmo.trees.leaf_counts.leaf_positive_share`) and ``m`` the share of the
        released trees (``trees_`` and ``voters_``) voting positive; ``r = m`` when no counts were released
        (``leaf_count_share=0``). ``r < 1`` when ``v_tree = 0`` and ``r > 0`` when ``v_tree = 1``, so the
        most probable class is the one :meth:`predict` returns. A post-processing of the release (no
        budget, no training data); not a calibrated probability. O((n_output + s) * n * depth).

        Examples
        --------
        >>> from dpmo.datasets import load_breast_cancer
        >>> from dpmo.trees import DPMOETClassifier
        >>> data = load_breast_cancer()
        >>> clf = DPMOETClassifier(5.0, random_state=0).fit(data)
        >>> proba = clf.predict_proba(data)
        >>> proba.shape, bool((clf.classes_[proba.argmax(axis=1)] == clf.predict(data)).all())
        ((569, 2), True)
        """
        check_is_fitted(self)
        X = self._X(X)  # validates X and the fitting
        t = check_int(tree, "tree", minimum=None)
        if not -len(self.trees_) <= t < len(self.trees_):
            raise ValueError(f"tree must index the {len(self.trees_)} output trees, got {tree}")
        t %= len(self.trees_)  # a row of the output trees, not of the voters after them
        released = TreePopulation([*self.trees_, *getattr(self, "voters_", ())])
        votes = released.predict(X) == 1  # (n_output + s, n), 1 = positive_class_
        rest = votes.mean(axis=0)
        counts = getattr(self, "leaf_counts_", None)
        if counts is not None:
            leaves = TreePopulation([self.trees_[t]]).leaf_index(X)[0]
            rest = (leaf_positive_share(counts[t], leaves) + rest) / 2.0
        return proba_columns(self, (votes[t] + rest) / 2.0)


class LeafCountScoresMixin(_ScoresMixin):
    """Scores of the private ID3 estimators: the noisy class counts of the released leaves."""

    def predict_proba(self, X) -> np.ndarray:
        """Noisy positive share of the leaf each row reaches, shape (n, 2), columns in ``classes_`` order.

        ``P(positive) = 1/2 + (c1 - c0) / (2 (|c0| + |c1|))`` from the leaf's released noisy class counts
        ``tree_.leaf_counts = (c0, c1)``: ``c1 / (c0 + c1)`` when both are non-negative, in ``[0, 1]``
        always, above 1/2 exactly when the leaf predicts ``positive_class_`` (a tie ``c0 = c1`` leans to the
        leaf's predicted class by one float step, so the most probable class is the predicted one). A
        post-processing of the private tree (the counts were released with their share of the budget);
        no training data is read. Not calibrated. O(n * depth).

        Examples
        --------
        >>> import numpy as np
        >>> from dpmo.trees import LocalDiffPID3Classifier
        >>> X = np.random.default_rng(0).random((300, 2))
        >>> clf = LocalDiffPID3Classifier(5.0, random_state=0).fit(X, X[:, 0] > 0.5)
        >>> proba = clf.predict_proba(X)
        >>> bool(np.allclose(proba.sum(axis=1), 1) and (proba >= 0).all())
        True
        """
        check_is_fitted(self)
        leaves = self.apply(X)
        c0, c1 = self.tree_.leaf_counts[leaves].T
        positive = self.tree_.label[leaves] == 1
        total = np.abs(c0) + np.abs(c1)
        known = np.isfinite(total) & (total > 0)
        p = np.divide(c1 - c0, 2.0 * total, out=np.zeros(c0.shape), where=known) + 0.5
        # a tie (c0 = c1, or a leaf without counts) leans to the predicted class by one float step
        lean = np.where(positive, np.nextafter(0.5, 1.0), np.nextafter(0.5, 0.0))
        p = np.where(known & (p != 0.5), np.clip(p, 0.0, 1.0), lean)
        return proba_columns(self, p)
