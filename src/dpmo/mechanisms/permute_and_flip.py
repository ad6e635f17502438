"""Permute-and-flip (McKenna and Sheldon 2020): exact output distribution.

Sampling uses report-noisy-max with exponential noise of scale ``2 Delta u / epsilon``, which has the same
distribution (Ding, Kifer et al. 2021); see :mod:`dpmo.mechanisms.noisy_max`.

With ``p_j = exp(epsilon (u_j - max u) / (2 Delta u))`` the mechanism visits the candidates in a uniformly
random order and stops at the first ``j`` whose coin (heads with probability ``p_j``) comes up heads, so

    P(r) = p_r * integral_0^1 prod_{j != r} (1 - t p_j) dt

(average over the position of ``r``: a uniform ``t`` plays the role of the fraction of candidates seen
before it). The integrand is a polynomial of degree n - 1 in t, so Gauss-Legendre quadrature with
``n // 2 + 1`` nodes is exact; everything is computed in log space. The nodes and weights are computed
here in O(n^2) time and O(n) memory (:func:`quadrature`).
"""

from __future__ import annotations

import functools

import numpy as np

from ._common import log_sum_exp, scaled_scores

_CHUNK = 2**22  # entries of the (nodes x candidates) table computed at once


def log_probabilities_permute_and_flip(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """Exact log-probabilities of one pick of permute-and-flip.

    Parameters
    ----------
    scores : numpy.ndarray of float64, shape (n,)
        Finite scores.
    epsilon, sensitivity : float
        As in :func:`dpmo.select`.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        ``log P(r)``, each ``<= 0``.

    Notes
    -----
    O(n^2) time: the Gauss-Legendre rule with ``n // 2 + 1`` nodes (:func:`quadrature`, O(n^2) once per
    ``n``, then cached) and ``n // 2 + 1`` times ``n`` values of ``log1p``. Memory: O(n) for the nodes
    and the result, plus tables of at most ``2**22`` floats (32 MB) for a chunk of nodes times the
    candidates (about 140 MB peak from n = 4,000 on, 17 MB at n = 1,000). Measured (shared machine):
    n = 1,000 / 4,000 / 8,000 in 0.08 / 0.95 / 1.6 s, of which the rule 0.05 / 0.17 / 0.41 s. The
    tied law is ``1 / n`` within 2e-15 relative up to n = 10,000, and the probabilities sum to 1 within
    a few 1e-15.
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
    # the exact law is <= 1; the rounding of the weights (which sum to 1) may not be
    return np.minimum(log_p + acc, 0.0)


@functools.lru_cache(maxsize=32)
def quadrature(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes on (0, 1), ascending, and the logs of their weights.

    Parameters
    ----------
    size : int
        Number of nodes ``N >= 1``; the rule integrates polynomials of degree ``2 N - 1`` exactly.

    Returns
    -------
    t, log_w : numpy.ndarray of float64, shape (size,)
        Read-only. Cached: a pure function of ``size``, which an audit asks for again with every set of
        scores.

    Notes
    -----
    With ``x = cos(theta) = 1 - 2 t`` the nodes are the zeros of ``P_N(cos theta)`` and the weights on
    (0, 1) are ``w = 1 / (d P_N / d theta)^2`` (half the classical ``2 / ((1 - x^2) P_N'(x)^2)``;
    Abramowitz and Stegun 25.4.29). Each node ``theta <= pi / 2`` starts from Tricomi's asymptotic
    ``x ~ (1 - (N - 1) / (8 N^3) - (39 - 28 / sin^2 phi) / (384 N^4)) cos phi``, ``phi = (k - 1/4) pi /
    (N + 1/2)`` (Tricomi 1950; as quoted by Hale and Townsend, SIAM J. Sci. Comput. 35 (2013) A652),
    and takes Newton steps in ``theta`` on ``P_N(cos theta)``, evaluated by the three-term
    recurrence written for ``t`` (:func:`_legendre_at`). The other half mirrors it: ``1 - t = cos^2(theta
    / 2)``, computed directly, so every node has full relative precision, including those near 0 where
    permute-and-flip's integrand has its mass when one coin is certain.

    O(N^2) time (two to four passes of the recurrence, vectorised over the N / 2 nodes; 0.4 s at N =
    5,001, 1.8 s at N = 18,851), O(N) memory (1 MB at N = 18,851). Against 40-digit references: nodes
    to 1e-15 (N = 1,000) and 2.5e-15 (N = 5,000) relative, weights to 1.2e-14 and 1.8e-14 at worst (the
    rounding of the recurrence grows like sqrt(N)); the weights sum to 1 within 5e-16. numpy's
    ``leggauss`` took O(N^3) time and O(N^2) memory (the eigenvalues of a dense companion matrix) and
    lost relative precision near the ends (6e-12 for the tied law at n = 1000, 9e-10 at n = 8000).
    """
    n = int(size)
    half = (n + 1) // 2  # the nodes with theta in (0, pi / 2]; the middle one (odd n) is pi / 2
    phi = (np.arange(1, half + 1) - 0.25) * (np.pi / (n + 0.5))
    x0 = (1.0 - (n - 1) / (8.0 * n**3) - (39.0 - 28.0 / np.sin(phi) ** 2) / (384.0 * n**4)) * np.cos(phi)
    theta = np.arccos(np.clip(x0, 0.0, 1.0))
    if n % 2:
        theta[-1] = np.pi / 2  # P_n(0) = 0 for odd n
    deriv = np.empty(half)  # d P_n / d theta at the final nodes
    active = np.arange(half)
    for _ in range(_NEWTON_PASSES):
        th = theta[active]
        t = np.sin(th / 2.0) ** 2
        value, slope = _legendre_at(n, t, np.sin(th))
        step = value / slope
        if n % 2 and active[-1] == half - 1:
            step[-1] = 0.0
        # the phase error n * |step| squares each step: below 1e-9 the next is below 1e-18
        done = n * np.abs(step) <= 1e-9
        # d/dtheta of dP/dtheta is -cot(theta) dP/dtheta at a zero (Legendre's equation in theta)
        deriv[active[done]] = slope[done] * (1.0 + step[done] / np.tan(th[done]))
        theta[active] = th - step
        active = active[~done]
        if active.size == 0:
            break
    else:  # pragma: no cover - Newton from Tricomi's start converges in 2 to 4 passes
        raise RuntimeError(f"Gauss-Legendre nodes for N = {n} did not converge")
    t_low = np.sin(theta / 2.0) ** 2
    if n % 2:
        t_low[-1] = 0.5
    log_w_low = -2.0 * np.log(np.abs(deriv))
    m = n // 2  # mirrored nodes: 1 - t, the same weights
    t = np.concatenate([t_low, (np.cos(theta[:m] / 2.0) ** 2)[::-1]])
    log_w = np.concatenate([log_w_low, log_w_low[:m][::-1]])
    t.flags.writeable = log_w.flags.writeable = False
    return t, log_w


_NEWTON_PASSES = 12


def _legendre_at(n: int, t: np.ndarray, sin_theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P_n(1 - 2 t)`` and its derivative in ``theta`` (``1 - 2 t = cos theta``), for ``n >= 1``.

    The three-term recurrence ``(k + 1) P_{k+1} = (2 k + 1) x P_k - k P_{k-1}`` rewritten for the
    differences ``D_k = P_k - P_{k-1}`` and ``1 - x = 2 t`` (the device of Reinsch's modification of
    Clenshaw's recurrence): ``D_{k+1} = (k D_k - (4 k + 2) t P_k) / (k + 1)``, ``P_{k+1} = P_k + D_{k+1}``.
    Near ``t = 0`` the corrections are of the size of ``t``, so ``P_n`` keeps its relative precision
    there, where ``x`` itself would have lost it. Then ``dP_n / dtheta = -sin(theta) P_n'(x) = n (D_n -
    2 t P_n) / sin(theta)`` (from ``(1 - x^2) P_n' = n (P_{n-1} - x P_n)``). O(n len(t)).
    """
    p = 1.0 - 2.0 * t
    d = -2.0 * t
    tmp = np.empty_like(t)
    for k in range(1, n):
        np.multiply(t, p, out=tmp)
        tmp *= 4 * k + 2
        d *= k
        d -= tmp
        d /= k + 1
        p += d
    return p, n * (d - 2.0 * t * p) / sin_theta
