"""Permute-and-flip (McKenna and Sheldon 2020): exact output distribution.

Sampling uses report-noisy-max with exponential noise of scale ``2 Delta u / epsilon``, which has the same
distribution (Ding, Kifer et al. 2021); see :mod:`dpmo.mechanisms.noisy_max`.

With ``p_j = exp(epsilon (u_j - max u) / (2 Delta u))`` the mechanism visits the candidates in a uniformly
random order and stops at the first ``j`` whose coin (heads with probability ``p_j``) comes up heads, so

    P(r) = p_r * integral_0^1 prod_{j != r} (1 - t p_j) dt

(average over the position of ``r``: a uniform ``t`` plays the role of the fraction of candidates seen
before it). The integrand is a polynomial of degree n - 1 in t, so Gauss-Legendre quadrature with
``n // 2 + 1`` nodes is exact; everything is computed in log space.
"""

from __future__ import annotations

import functools

import numpy as np

from ._common import log_sum_exp, scaled_scores

_CHUNK = 2**22  # entries of the (nodes x candidates) table computed at once


def log_probabilities_permute_and_flip(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """Exact log-probabilities of one pick of permute-and-flip.

    O(n^2) time (n // 2 + 1 quadrature nodes times n candidates), O(n) extra memory per chunk of nodes.
    Meant for audits on small and medium n.
    """
    n = scores.size
    log_p = scaled_scores(scores, epsilon, sensitivity)
    if n == 1:
        return np.zeros(1)
    p = np.exp(log_p)
    t, log_w = quadrature(n // 2 + 1)
    # L[k, j] = log(1 - t_k p_j); S_k = sum_j L[k, j]; log prod_{j != r} = S_k - L[k, r].
    rows = max(1, _CHUNK // n)
    acc = np.full(n, -np.inf)
    for start in range(0, t.size, rows):
        tk = t[start : start + rows, None]
        L = np.log1p(-tk * p[None, :])
        S = L.sum(axis=1, keepdims=True)
        acc = np.logaddexp(acc, log_sum_exp(log_w[start : start + rows, None] + S - L, axis=0))
    return log_p + acc


@functools.lru_cache(maxsize=32)
def quadrature(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes on (0, 1) and the logs of their weights, ``size`` of each (read-only arrays).
    Cached: a pure function of ``size``, which an audit asks for again with every set of scores."""
    nodes, weights = np.polynomial.legendre.leggauss(size)
    t = (nodes + 1.0) / 2.0  # strictly inside (0, 1): 1 - t p_j > 0 always
    log_w = np.log(weights / 2.0)
    t.flags.writeable = log_w.flags.writeable = False
    return t, log_w
