"""Shared helper of the law tests: a pooled chi-square goodness of fit of observed picks."""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy import stats as sps


def chi_square_p(counts: Counter, probs: dict, trials: int) -> float:
    """p-value of the chi-square goodness of fit of ``counts`` (``trials`` draws) to ``probs``; cells with
    an expected count below 5 are pooled into one. Fails if a draw fell outside ``probs``."""
    obs, exp, pool_o, pool_e = [], [], 0, 0.0
    for c in sorted(probs, key=lambda c: -probs[c]):
        e = probs[c] * trials
        if e >= 5:
            obs.append(counts.get(c, 0))
            exp.append(e)
        else:
            pool_o += counts.get(c, 0)
            pool_e += e
    if pool_e > 0:
        obs.append(pool_o)
        exp.append(pool_e)
    assert sum(obs) == trials, "a pick outside the candidates"
    return float(sps.chisquare(obs, np.array(exp) * trials / np.sum(exp)).pvalue)
