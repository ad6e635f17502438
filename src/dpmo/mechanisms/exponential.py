"""Exponential mechanism (McSherry and Talwar 2007; the paper's Definition "Exponential Mechanism").

``P(r)`` is proportional to ``exp(epsilon * u(r) / (2 * Delta u))``. Sampled with the Gumbel-max trick: add
independent standard Gumbel noise to the log-weights and take the argmax, all in log space.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ._common import scaled_scores, top_k_of


def sample_exponential(
    scores: np.ndarray, epsilon: float, sensitivity: float, k: int, rng: np.random.Generator
) -> np.ndarray:
    """k draws without replacement, each an exponential mechanism with ``epsilon`` on what is left.

    The top k of the Gumbel-perturbed log-weights have exactly the distribution of k sequential
    exponential-mechanism picks without replacement (Durfee and Rogers 2019), so this one-shot form is
    the fast path. ``epsilon`` here is the budget of one pick. O(n + k log k).
    """
    z = scaled_scores(scores, epsilon, sensitivity) + rng.gumbel(size=scores.size)
    return top_k_of(z, k)


def log_probabilities_exponential(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """Exact log-probabilities of one pick. O(n)."""
    logits = scaled_scores(scores, epsilon, sensitivity)
    return logits - logsumexp(logits)
