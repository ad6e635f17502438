"""Evaluation metrics shared by the applications: coverage C, recall, hypervolume, weighted fitness, TPR/TNR.

These are computed on non-private quantities, for evaluation only; they are not private releases.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_choice
from .hypervolume import best_hypervolume, hypervolume, hypervolume_ratio

__all__ = [
    "DOMINANCE",
    "dominates",
    "coverage",
    "recall",
    "front_share",
    "hypervolume",
    "hypervolume_ratio",
    "best_hypervolume",
    "weighted_fitness",
    "tpr_tnr",
]

#: Readings of "a dominates b" for objective vectors (larger is better in every objective).
#: ``"strict"``: better in every objective (the published code's reading of C; the default);
#: ``"pareto"``: no worse in any and better in at least one (the textbook Pareto dominance);
#: ``"weak"``: no worse in any (the paper's text; then every point covers itself).
DOMINANCE = ("strict", "pareto", "weak")


def _as_points(X, name: str) -> np.ndarray:
    arr = _reals(X, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (n_points, n_objectives), got {arr.shape}")
    return arr  # finite: checked by _reals


def dominates(A, B, *, dominance: str = "strict") -> np.ndarray:
    """Boolean matrix ``M[i, j]`` = point ``A[i]`` dominates point ``B[j]``.

    Parameters
    ----------
    A, B : array_like, shape (a, m) and (b, m)
        Objective vectors, larger is better.
    dominance : {"strict", "pareto", "weak"}
        See :data:`DOMINANCE`.

    Notes
    -----
    O(a b m) time and memory.

    Examples
    --------
    >>> from dpmo.metrics import dominates
    >>> A = [[2.0, 2.0], [1.0, 3.0]]
    >>> B = [[1.0, 1.0], [2.0, 2.0]]
    >>> dominates(A, B).tolist()  # strict: better in every objective
    [[True, False], [False, False]]
    >>> dominates(A, B, dominance="weak").tolist()  # weak: no worse in every objective
    [[True, True], [True, False]]
    """
    check_choice(dominance, DOMINANCE, "dominance")
    A = _as_points(A, "A")
    B = _as_points(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must have the same number of objectives, got {A.shape[1]} and {B.shape[1]}"
        )
    diff = A[:, None, :] - B[None, :, :]
    if dominance == "strict":
        return np.all(diff > 0, axis=2)
    geq = np.all(diff >= 0, axis=2)
    if dominance == "weak":
        return geq
    return geq & np.any(diff > 0, axis=2)


def coverage(X_ref, X_eval, *, dominance: str = "strict") -> float:
    """Coverage ``C(X', X'')`` (Zitzler, Deb and Thiele 2000; the paper's metric C).

    The fraction of the points of ``X_eval`` (X'') dominated by at least one point of ``X_ref`` (X').
    With ``X_ref`` the exact (non-private) result and ``X_eval`` a private one, 0 is best.

    Parameters
    ----------
    X_ref, X_eval : array_like, shape (a, m) and (b, m)
        Objective vectors of the two sets, larger is better.
    dominance : {"strict", "pareto", "weak"}
        The paper writes C with weak dominance, under which every point covers itself, so that a private
        output equal to the exact one would score 1, the worst value (``docs/errata.md``, 4).
        The default is strict dominance (better in every objective), as the published code computes it.

    Returns
    -------
    float in [0, 1]

    Notes
    -----
    O(a b m) time.

    Examples
    --------
    >>> from dpmo.metrics import coverage
    >>> exact = [[3.0, 3.0]]
    >>> private = [[1.0, 1.0], [3.0, 3.0], [4.0, 0.0]]
    >>> coverage(exact, private)  # only [1, 1] is strictly dominated: 1 of 3
    0.3333333333333333
    >>> coverage(exact, exact), coverage(exact, exact, dominance="weak")  # weak C scores a copy as 1
    (0.0, 1.0)
    """
    B = _as_points(X_eval, "X_eval")
    if B.shape[0] == 0:
        raise ValueError("X_eval must contain at least one point")
    A = _as_points(X_ref, "X_ref")
    if B.shape[1] == 0 or A.shape[1] != B.shape[1]:
        raise ValueError(
            f"X_ref and X_eval must have the same number of objectives, at least one; got {A.shape[1]} and "
            f"{B.shape[1]}"
        )
    if A.shape[0] == 0:
        return 0.0
    return float(np.mean(np.any(dominates(A, B, dominance=dominance), axis=0)))


def recall(selected, relevant) -> float:
    """Fraction of ``relevant`` items that appear in ``selected`` (recall of the true top-k).

    O((a + b) log(a + b)) time.

    Examples
    --------
    >>> from dpmo.metrics import recall
    >>> recall([4, 7, 9], [7, 9, 11, 12])  # 2 of the 4 relevant items were selected
    0.5
    """
    relevant = np.unique(_ids(relevant, "relevant"))
    if relevant.size == 0:
        raise ValueError("relevant must contain at least one item")
    return float(np.isin(relevant, _ids(selected, "selected", like=relevant)).mean())


def front_share(selected, front) -> float:
    """Fraction of ``selected`` items that belong to ``front`` (e.g. the Pareto front).

    Examples
    --------
    >>> from dpmo.metrics import front_share
    >>> front_share([4, 7, 9, 1], [7, 9])  # 2 of the 4 picks lie on the front
    0.5
    """
    selected = _ids(selected, "selected")
    if selected.size == 0:
        raise ValueError("selected must contain at least one item")
    return float(np.isin(selected, _ids(front, "front", like=selected)).mean())


def _ids(items, name: str, like: np.ndarray | None = None) -> np.ndarray:
    """Item ids as a 1-D array: a list, tuple, array, set or other iterable of ints or of strings (not
    mixed, no NaN), of the same kind as ``like`` when given (ints never match strings: refused, not 0)."""
    if items is None or isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(
            f"{name} must be a collection of item ids (ints or strings), got {type(items).__name__}"
        )
    arr = np.asarray(items if isinstance(items, (list, tuple, np.ndarray)) else list(items))
    if arr.ndim != 1 and arr.size:
        raise ValueError(f"{name} must be a 1-D collection of item ids, got shape {arr.shape}")
    arr = arr.ravel()
    kind = arr.dtype.kind
    if arr.size and kind not in "iuU":
        raise TypeError(
            f"{name} must hold ints or strings as ids (no floats, NaN or mixed kinds), got {arr.dtype}"
        )
    if like is not None and arr.size and like.size and (kind == "U") != (like.dtype.kind == "U"):
        raise TypeError(f"{name} and the other collection must hold ids of one kind (ints or strings)")
    return arr


def weighted_fitness(values, weights) -> np.ndarray:
    """Weighted sum ``sum_i w_i v_i`` over the last axis (e.g. 3 TPR + 2 TNR).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.metrics import weighted_fitness
    >>> weighted_fitness(np.array([[1.0, 0.5], [0.0, 1.0]]), [3.0, 2.0]).tolist()  # 3 TPR + 2 TNR
    [4.0, 2.0]
    """
    values = _reals(values, "values")
    weights = _reals(weights, "weights")
    if values.ndim < 1:
        raise ValueError("values must have the objectives on their last axis, got a scalar")
    if weights.ndim != 1 or values.shape[-1] != weights.shape[0]:
        raise ValueError(
            f"weights must have one entry per objective ({values.shape[-1]}), got {weights.shape}"
        )
    return values @ weights


def _reals(x, name: str) -> np.ndarray:
    """``x`` as a float array of finite real numbers, else a TypeError / ValueError naming ``name``."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of real numbers") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be an array of real numbers, got complex values")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def _binary(y, name: str) -> np.ndarray:
    """Labels ``y`` as booleans: bools, or numbers each 0 or 1; anything else (strings, NaN, 2) refused."""
    arr = np.asarray(y)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(
            f"{name} must hold binary labels (bools, or the numbers 0 and 1), got dtype {arr.dtype}"
        )
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold binary labels 0 and 1 only (which values are not shown)")
    return arr.astype(bool)


def tpr_tnr(y_true, y_pred) -> tuple[float, float]:
    """True positive rate and true negative rate of binary predictions (0 when a class is absent).

    Examples
    --------
    >>> from dpmo.metrics import tpr_tnr
    >>> tpr_tnr([1, 1, 0, 0, 0], [1, 0, 0, 0, 1])  # 1 of 2 positives found, 2 of 3 negatives
    (0.5, 0.6666666666666666)
    """
    y_true = _binary(y_true, "y_true")
    y_pred = _binary(y_pred, "y_pred")
    if y_true.shape != y_pred.shape:
        raise ValueError("y_true and y_pred must have the same shape (not shown: the shapes count records)")
    p = int(y_true.sum())
    n = y_true.size - p
    tp = int(np.sum(y_true & y_pred))
    tn = int(np.sum(~y_true & ~y_pred))
    return (tp / p if p else 0.0, tn / n if n else 0.0)
