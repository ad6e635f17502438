"""Report-noisy-max with Laplace, Gumbel or exponential noise (Dwork and Roth 2014; Ding et al. 2021).

``argmax_r u(r) + Z_r`` with ``Z_r`` i.i.d. of scale ``2 * Delta u / epsilon``. The paper writes the Laplace
scale as "Lap(epsilon / (2 Delta u))", which we read as scale ``2 Delta u / epsilon`` (ERRATA, point 4).
Computed as ``argmax (u - max u) / scale + Z`` with standard noise ``Z``, the same argmax, so that huge scores
or a tiny scale cannot swallow the noise in floating point and make ties deterministic.

* Gumbel noise gives exactly the exponential mechanism (Durfee and Rogers 2019).
* Exponential noise gives exactly permute-and-flip (Ding, Kifer et al. 2021).
* Laplace noise is the classic report-noisy-max.
"""

from __future__ import annotations

import numpy as np

from ._common import needs_rounds, sample_rounds, scaled_scores

_NOISE = {
    "laplace": lambda rng, n: rng.laplace(size=n),
    "gumbel": lambda rng, n: rng.gumbel(size=n),
    "exponential": lambda rng, n: rng.standard_exponential(size=n),
}


def sample_noisy_max(
    scores: np.ndarray, epsilon: float, sensitivity: float, k: int, rng: np.random.Generator, noise: str
) -> np.ndarray:
    """k rounds of report-noisy-max without replacement, each with budget ``epsilon``, fresh noise each round.

    O(k n) time, O(n) memory. When epsilon or the scores are so large that the noise would vanish in the
    log-weights of a later round's candidates (see :data:`dpmo.mechanisms._common.ONE_SHOT_LIMIT`), each
    round's log-weights are taken relative to the best remaining candidate instead of the overall best
    (the same distribution; never a repeated pick).
    """
    draw = _NOISE[noise]
    if needs_rounds(scores, epsilon, sensitivity, k):
        return sample_rounds(scores, epsilon, sensitivity, k, lambda size: draw(rng, size))
    # scaled_scores divides by 2 * sensitivity / epsilon, the scale of the noise.
    base = scaled_scores(scores, epsilon, sensitivity)
    out = np.empty(k, dtype=np.intp)
    taken = np.zeros(scores.size, dtype=bool)
    for i in range(k):
        z = draw(rng, scores.size)
        z += base  # in place (float addition commutes: the same floats as base + noise)
        if i:
            z[taken] = -np.inf
        j = int(z.argmax())  # the method np.argmax calls, without its dispatch
        out[i] = j
        taken[j] = True
    return out
