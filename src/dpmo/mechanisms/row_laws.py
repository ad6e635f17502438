"""Exact output laws of one pick for many score vectors at once (:func:`probabilities_by_row`).

The exhaustive privacy audits (``docs/privacy-audits.md``) compute the law of one pick for every small
input of a family (every graph on 5 nodes, every small table) and its neighbours: tens of thousands of
short score vectors. One call per vector spends most of its time in numpy's per-call overhead; this module
computes them as one array, row by row the same formulas as :func:`dpmo.probabilities`:

* exponential (and gumbel): ``log p_r = g_r - log sum_j exp(g_j)`` with ``g = epsilon (u - max u) / (2
  Delta u)`` (:func:`dpmo.mechanisms._common.scaled_scores`), ``max u`` per row;
* permute-and-flip: ``log p_r = g_r + log integral_0^1 prod_{j != r} (1 - t e^{g_j}) dt``, the integral by
  Gauss-Legendre quadrature with ``n // 2 + 1`` nodes, exact for the polynomial of degree ``n - 1``
  (:mod:`dpmo.mechanisms.permute_and_flip`).
"""

from __future__ import annotations

import math

import numpy as np

from .._choices import MECHANISMS
from .._validation import as_real_array, check_choice, check_epsilon, check_scores, check_sensitivity
from ._common import TINY, log_sum_exp
from .permute_and_flip import quadrature

__all__ = ["probabilities_by_row"]

_EXACT = ("exponential", "gumbel", "permute_and_flip")
_CHUNK = 2**22  # entries of the (rows x nodes x candidates) table of permute-and-flip computed at once


def probabilities_by_row(
    scores, epsilon: float, sensitivity: float, *, mechanism: str, log: bool = False
) -> np.ndarray:
    """Exact output distribution of one private pick (k = 1) for each row of ``scores``, for audits.

    Row ``i`` of the result is ``dpmo.probabilities(scores[i], epsilon, sensitivity,
    mechanism=mechanism, log=log)`` (equal to it up to the rounding of the same float operations done on
    a 2-D array), computed for all rows at once.

    Parameters
    ----------
    scores : array_like of real, shape (m, n)
        One score vector of ``n`` candidates per row; finite, ``m, n >= 1``.
    epsilon, sensitivity, mechanism, log
        As in :func:`dpmo.probabilities` (``mechanism`` one of "exponential", "gumbel",
        "permute_and_flip"; ``log=True`` for natural-log probabilities).

    Returns
    -------
    numpy.ndarray of float64, shape (m, n)

    Notes
    -----
    O(m n) for exponential/gumbel; O(m n^2) for permute_and_flip. Rows whose scaled spread is outside the
    ordinary float range (every row when ``epsilon / (2 sensitivity)`` is not a normal float; a row whose
    ``max u - min u`` exceeds the floats, e.g. scores of +-1.7e308) are passed to
    :func:`dpmo.probabilities` one by one, which handles them exactly (saturating).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> from dpmo.mechanisms import probabilities_by_row
    >>> S = np.array([[0.0, 1.0, 3.0], [2.0, 2.0, 0.0]])
    >>> P = probabilities_by_row(S, 2.0, 1.0, mechanism="permute_and_flip")
    >>> bool(np.allclose(P[1], dpmo.probabilities(S[1], 2.0, 1.0, mechanism="permute_and_flip")))
    True
    >>> bool(np.allclose(P.sum(axis=1), 1.0))
    True
    """
    mechanism, epsilon, sensitivity = check_law_arguments(mechanism, log, epsilon, sensitivity)
    S = _check_rows(scores)
    c = float(epsilon) / (2.0 * float(sensitivity))
    if not (math.isfinite(c) and c >= TINY):
        return _one_by_one(S, epsilon, sensitivity, mechanism, log)
    with np.errstate(over="ignore"):  # u - max u of +-1.7e308: -inf (saturated), those rows one by one
        G = S - S.max(axis=1, keepdims=True)
        far = np.isneginf(G.min(axis=1))
        G *= c  # the floats of scaled_scores, row by row
    if not far.any():
        return _law(G, mechanism, log)
    out = np.empty(S.shape)
    out[far] = _one_by_one(S[far], epsilon, sensitivity, mechanism, log)
    if not far.all():
        out[~far] = _law(G[~far], mechanism, log)
    return out


def _law(G: np.ndarray, mechanism: str, log: bool) -> np.ndarray:
    """Row-wise (log-)probabilities from the log-weights ``G`` (each row's maximum 0, every entry finite
    or -inf by the scaling alone)."""
    if mechanism == "permute_and_flip":
        logp = _log_permute_and_flip(G)
    else:
        logp = G - log_sum_exp(G, axis=1)[:, None]
    return logp if log else np.exp(logp)


def _one_by_one(S: np.ndarray, epsilon: float, sensitivity: float, mechanism: str, log: bool) -> np.ndarray:
    """The rows of ``S`` through :func:`dpmo.probabilities` one at a time (it handles any spread exactly)."""
    from . import probabilities

    return np.vstack([probabilities(row, epsilon, sensitivity, mechanism=mechanism, log=log) for row in S])


def check_law_arguments(mechanism, log, epsilon, sensitivity) -> tuple[str, float, float]:
    """The checks shared with :func:`dpmo.probabilities`: ``mechanism`` one with an exact law
    (report-noisy-max with Laplace noise has no closed form), ``log`` a bool, ``epsilon`` and
    ``sensitivity`` valid; returns ``(mechanism, epsilon, sensitivity)`` as checked."""
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    if mechanism not in _EXACT:
        raise ValueError(
            f"mechanism must be one of {list(_EXACT)} for exact probabilities, got {mechanism!r}"
        )
    if not isinstance(log, (bool, np.bool_)):
        raise TypeError(f"log must be a bool, got {type(log).__name__}")
    return mechanism, check_epsilon(epsilon), check_sensitivity(sensitivity)


def _check_rows(scores) -> np.ndarray:
    """``scores`` as a 2-D float64 array with at least one row and one column, every entry finite."""
    arr = as_real_array(scores, "scores", "a 2-D array of real numbers")
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"scores must be 2-D with at least one row and one column, got shape {arr.shape}")
    return check_scores(arr.reshape(-1)).reshape(arr.shape)  # finite


def _log_permute_and_flip(G: np.ndarray) -> np.ndarray:
    """Row-wise exact log-probabilities of permute-and-flip from the log-weights ``G`` (each row's
    maximum 0). O(m n^2)."""
    m, n = G.shape
    if n == 1:
        return np.zeros((m, 1))
    p = np.exp(G)
    t, log_w = quadrature(n // 2 + 1)
    out = np.empty_like(G)
    rows = max(1, _CHUNK // (t.size * n))
    for start in range(0, m, rows):
        block = p[start : start + rows]
        # L[i, k, j] = log(1 - t_k p_ij); log prod_{j != r} = sum_j L[i, k, j] - L[i, k, r]
        L = np.log1p(-t[None, :, None] * block[:, None, :])
        total = L.sum(axis=2, keepdims=True)
        acc = log_sum_exp(log_w[None, :, None] + total - L, axis=1)
        out[start : start + rows] = G[start : start + rows] + acc
    return np.minimum(out, 0.0, out=out)  # the exact law is at most 1 (rounding gave log p = +1e-16)
