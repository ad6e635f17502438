"""The fitted-state check shared by the private tree estimators (ID3 and PrivateTreeClassifier)."""

from __future__ import annotations

__all__ = ["FittedMixin"]


class FittedMixin:
    """``_check_fitted``: raise scikit-learn's ``NotFittedError`` until ``fit`` has set ``_fitted_attribute``.

    A subclass names the fitted attribute its release is read from (``tree_``, ``leaf_counts_``). O(1).

    Examples
    --------
    >>> from dpmo.trees._fitted import FittedMixin
    >>> class Est(FittedMixin):
    ...     _fitted_attribute = "tree_"
    >>> try:
    ...     Est()._check_fitted()
    ... except Exception as exc:
    ...     print(type(exc).__name__, exc)
    NotFittedError This Est instance is not fitted yet; call fit first
    """

    _fitted_attribute = "tree_"

    def _check_fitted(self):
        if not hasattr(self, self._fitted_attribute):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit first")
