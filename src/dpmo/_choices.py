"""The names that the public arguments ``mechanism=``, ``approach=`` and ``sensitivity=`` accept.

This module imports nothing, so every layer may use it; the command line's parser takes its choices from
here and answers ``--help`` and argument errors without loading numpy or the compiled kernels.
:mod:`dpmo.mechanisms`, :mod:`dpmo._validation` and :mod:`dpmo.selection` re-export these tuples.
"""

from __future__ import annotations

__all__ = [
    "MECHANISMS",
    "EXACT_CAPABLE",
    "BUILTIN_APPROACHES",
    "APPROACHES",
    "WEIGHTED_APPROACHES",
    "SENSITIVITIES",
]

#: Names accepted by ``mechanism`` (:func:`dpmo.select`).
MECHANISMS = ("exponential", "permute_and_flip", "laplace", "gumbel")
#: Mechanisms of :func:`dpmo.select` that have an exact sampler (see :mod:`dpmo.mechanisms.exact`).
EXACT_CAPABLE = ("exponential", "gumbel", "permute_and_flip")
#: The built-in approaches of :func:`dpmo.select_multiobjective`, and the module that registers each when
#: it is imported (:mod:`dpmo.selection` imports it on first use of the name).
BUILTIN_APPROACHES = {
    "pareto": "dpmo.pareto",
    "agg": "dpmo.aggregate",
    "chebyshev": "dpmo.chebyshev",
    "staircase": "dpmo.staircase",
}
APPROACHES = tuple(BUILTIN_APPROACHES)
#: The built-in approaches that use ``weights`` (their registered objects' ``uses_weights``).
WEIGHTED_APPROACHES = ("agg",)
#: Values of ``sensitivity``.
SENSITIVITIES = ("local", "global")
