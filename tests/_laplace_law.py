"""The Laplace law's density and distribution function, for the quadrature references of report-noisy-max
with Laplace noise (``tests/test_mechanisms.py``, ``tests/test_sampler_audit.py``): the formulas of SciPy's
``stats.laplace`` at scale ``b``, without its per-call argument checks (many calls inside one integral)."""

from __future__ import annotations

import numpy as np


def laplace_pdf(x, b):
    """Density of the Laplace law of scale ``b`` at ``x``: ``exp(-|x| / b) / (2 b)`` (SciPy's
    ``stats.laplace.pdf(x, scale=b)``, the same floating-point operations, without its per-call checks)."""
    return 0.5 * np.exp(-abs(x / b)) / b


def laplace_cdf(x, b):
    """Distribution function of the Laplace law of scale ``b`` (as ``stats.laplace.cdf(x, scale=b)``)."""
    u = x / b
    with np.errstate(over="ignore"):
        return np.where(u > 0, 1.0 - 0.5 * np.exp(-u), 0.5 * np.exp(u))
