"""The Pareto score (the paper's Definition "Pareto Score") and the validation of a utility matrix."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validation import as_real_array
from ..selection import check_objectives
from ..sensitivity import Objective
from .dominance import count_dominating

__all__ = ["pareto_score"]


def _utility_matrix(U) -> np.ndarray:
    if isinstance(U, Sequence) and len(U) and all(isinstance(o, Objective) for o in U):
        U = np.column_stack([o.values for o in check_objectives(U)])
    arr = as_real_array(U, "U", "an array of shape (n, m) of real numbers")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(
            f"U must have shape (n, m) (one row per candidate, one column per objective), got {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"U must have at least one candidate and one objective, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError("U must be finite (no NaN or inf)")
    return arr


def pareto_score(U) -> np.ndarray:
    """Pareto score of every candidate (the paper's Definition "Pareto Score").

    Parameters
    ----------
    U : array_like, shape (n, m), or a sequence of dpmo.Objective
        ``U[r, i] = u_i(x, r)``, larger is better in every column; a 1-D array is one objective. Finite.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        ``PS(r) = -#{r' != r : U[r'] >= U[r] in every column}`` (weak dominance: identical candidates
        dominate each other). 0 exactly on the Pareto front, at least ``-(n - 1)``.

    Notes
    -----
    Time O(n) for m = 1 and O(n log(n / 64)) for m = 2 (radix sorts, then a sweep over a bitmap of ranks
    with a Fenwick tree over its words: :mod:`dpmo.pareto.sweep`), O(n log^(m-1) n) for m >= 3 (Bentley's
    divide and conquer), and a direct O(n^2 m) count when n is small; memory O(n m).
    See :mod:`dpmo.pareto.dominance`.

    Examples
    --------
    The paper's Example (candidates a..e):

    >>> pareto_score([[3, 5], [5, 3], [4, 2], [2, 4], [1, 1]]).tolist()
    [0, 0, -1, -1, -4]
    """
    arr = _utility_matrix(U)
    return 1 - count_dominating(arr)
