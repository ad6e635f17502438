"""dpmo: differentially private multi-objective selection.

Privacy accounting:
    :class:`Budget` (spent, never recomputed; exact) and :class:`BudgetExceededError`; every private entry
    point takes ``budget=`` (see ``docs/privacy-accounting.md``).
Core (single objective):
    :func:`select`, :func:`probabilities` (exponential mechanism, permute-and-flip, report-noisy-max),
    :class:`Objective` (a utility with its global and local sensitivity), :func:`dampen` and
    :func:`local_dampening` (local dampening, Farias et al. 2020/2023).
Multi-objective (the paper's contribution):
    :func:`pareto_score`, :func:`pareto_sensitivity`, :func:`priv_pareto` (PrivPareto) and
    :func:`aggregate`, :func:`priv_agg` (PrivAgg), both through the one pipeline
    :func:`select_multiobjective` (:mod:`dpmo.selection`).
Applications, imported on first use:
    :mod:`dpmo.graphs` (DP-MOTkIN), :mod:`dpmo.trees` (DP-MOET, DiffP-ID3, LocalDiffPID3),
    :mod:`dpmo.datasets`, :mod:`dpmo.metrics`, :mod:`dpmo.audit`, :mod:`dpmo.experiments`.
"""

from __future__ import annotations

import importlib

from ._validation import check_random_state
from .aggregate import aggregate, priv_agg
from .budget import Budget, BudgetExceededError
from .chebyshev import priv_chebyshev
from .dampening import dampen, local_dampening
from .mechanisms import MECHANISMS, probabilities, select
from .pareto import pareto_score, pareto_sensitivity, priv_pareto
from .selection import select_multiobjective
from .sensitivity import LocalSensitivity, Objective
from .staircase import StaircaseApproach  # noqa: F401 - registers approach="staircase"

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "BudgetExceededError",
    "MECHANISMS",
    "LocalSensitivity",
    "Objective",
    "aggregate",
    "check_random_state",
    "dampen",
    "local_dampening",
    "pareto_score",
    "pareto_sensitivity",
    "priv_agg",
    "priv_chebyshev",
    "priv_pareto",
    "probabilities",
    "select",
    "select_multiobjective",
]

_SUBMODULES = {"audit", "datasets", "experiments", "graphs", "metrics", "trees", "cli"}


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
