"""Exponential mechanism (McSherry and Talwar 2007; the paper's Definition "Exponential Mechanism").

``P(r)`` is proportional to ``exp(epsilon * u(r) / (2 * Delta u))``. Sampled with the Gumbel-max trick: add
independent standard Gumbel noise to the log-weights and take the argmax, all in log space. (The exact
sampler, with rational arithmetic and a secure random source, is in :mod:`dpmo.mechanisms.exact`.)
"""

from __future__ import annotations

import numpy as np

from ._common import log_sum_exp, needs_rounds, sample_rounds, scaled_scores, top_k_of


def sample_exponential(
    scores: np.ndarray, epsilon: float, sensitivity: float, k: int, rng: np.random.Generator
) -> np.ndarray:
    """k draws without replacement, each an exponential mechanism with ``epsilon`` on what is left.

    The top k of the Gumbel-perturbed log-weights have exactly the distribution of k sequential
    exponential-mechanism picks without replacement (Durfee and Rogers 2019), so this one-shot form is
    the fast path, O(n + k log k). ``epsilon`` here is the budget of one pick. When the later rounds'
    winners have log-weights so far below 0 that float noise would vanish in them (huge epsilon or
    scores, see :data:`dpmo.mechanisms._common.ONE_SHOT_LIMIT`), the k rounds are done one by one, each
    with log-weights relative to the best remaining candidate, O(k n): never a repeated pick, and the
    exact order of the best ones when it is numerically certain.
    """
    if not needs_rounds(scores, epsilon, sensitivity, k):
        z = scaled_scores(scores, epsilon, sensitivity) + rng.gumbel(size=scores.size)
        return top_k_of(z, k)
    return sample_rounds(scores, epsilon, sensitivity, k, lambda size: rng.gumbel(size=size))


def log_probabilities_exponential(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """Exact log-probabilities of one pick (no NaN for any valid input: see ``scaled_scores``). O(n)."""
    logits = scaled_scores(scores, epsilon, sensitivity)
    return logits - log_sum_exp(logits)
