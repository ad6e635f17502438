"""What a DP-MOET estimator checks before reading its fitted trees: that it is fitted, the rows it is given,
the index of an output tree, and the labels an :class:`~dpmo.trees.EncodedData` brings.

:class:`FittedTreesMixin` holds these checks for :class:`~dpmo.trees.DPMOETClassifier` (its ``predict``,
``predict_proba``, ``evaluate`` and ``fit`` call them), so that the estimator's module keeps to the fit and
the outputs. Nothing here reads the private table or spends budget.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int
from ._inputs import check_X_predict
from .encoding import EncodedData

__all__ = ["FittedTreesMixin"]


class FittedTreesMixin:
    """The input checks of a fitted DP-MOET estimator (a mixin of :class:`~dpmo.trees.DPMOETClassifier`).

    Examples
    --------
    >>> from dpmo.trees import DPMOETClassifier
    >>> from dpmo.trees.moet_fitted import FittedTreesMixin
    >>> issubclass(DPMOETClassifier, FittedTreesMixin)
    True
    """

    @staticmethod
    def _labels_of(enc: EncodedData, y):
        """``(X, y)`` of an :class:`EncodedData` passed as ``X`` (it must hold the labels)."""
        if y is not None:
            raise ValueError("with an EncodedData as X, pass the labels when building it, not as y")
        if enc.y is None:
            raise ValueError("the EncodedData passed as X has no labels; build it with EncodedData(X, y)")
        return enc.X, enc.y.astype(np.int8)

    def _check_fitted(self):
        if not hasattr(self, "trees_"):
            try:
                from sklearn.exceptions import NotFittedError
            except ImportError:  # pragma: no cover
                NotFittedError = ValueError  # noqa: N806
            raise NotFittedError("this DPMOETClassifier is not fitted yet; call fit first")

    def _X(self, X) -> np.ndarray:
        self._check_fitted()
        return check_X_predict(self, X)

    def _tree_index(self, tree) -> int:
        tree = check_int(tree, "tree", minimum=None)
        if not -len(self.trees_) <= tree < len(self.trees_):
            raise ValueError(f"tree must index the {len(self.trees_)} output trees, got {tree}")
        return int(tree)
