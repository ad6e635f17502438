"""dpmo: differentially private multi-objective selection.

Privacy accounting:
    :class:`Budget` (spent, never recomputed; exact) and :class:`BudgetExceededError`; every private entry
    point takes ``budget=`` and ``delta=`` (see ``docs/privacy-accounting.md``); :func:`per_pick_epsilon`
    (the approximate-DP accountant, :mod:`dpmo.accounting`).
Core (single objective):
    :func:`select`, :func:`probabilities` (exponential mechanism, permute-and-flip, report-noisy-max),
    :class:`Objective` (a utility with its global and local sensitivity), :func:`dampen` and
    :func:`local_dampening` (local dampening, Farias et al. 2020/2023).
Know before you spend:
    :func:`lead_needed` and :func:`pick_probability` (:mod:`dpmo.preview`): from public quantities only,
    the score lead the best candidate needs to be picked, and the probability that it is.
Multi-objective (the paper's contribution):
    :func:`pareto_score`, :func:`pareto_sensitivity`, :func:`priv_pareto` (PrivPareto) and
    :func:`aggregate`, :func:`priv_agg` (PrivAgg), both through the one pipeline
    :func:`select_multiobjective` (:mod:`dpmo.selection`).
Applications, imported on first use:
    :mod:`dpmo.graphs` (DP-MOTkIN), :mod:`dpmo.trees` (DP-MOET, DiffP-ID3, LocalDiffPID3),
    :mod:`dpmo.datasets`, :mod:`dpmo.metrics`, :mod:`dpmo.audit`, :mod:`dpmo.experiments`.

Every public name is loaded from its module on first use (PEP 562): ``import dpmo`` itself imports
neither numpy nor numba, so ``dpmo --version`` and ``--help`` answer at once, and the compiled kernels are
loaded when a function that needs them is first called. :data:`_EXPORTS` is the one table of the public
names (adding one is one line there, and one in the ``TYPE_CHECKING`` block below, which only static
analysers read; ``tests/test_lazy_imports.py`` checks that the two agree).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: Public name -> the module of ``dpmo`` that defines it (imported on first use).
_EXPORTS = {
    "Budget": "budget",
    "BudgetExceededError": "budget",
    "MECHANISMS": "mechanisms",
    "LocalSensitivity": "sensitivity",
    "Objective": "sensitivity",
    "aggregate": "aggregate",
    "check_random_state": "_validation",
    "dampen": "dampening",
    "lead_needed": "preview",
    "local_dampening": "dampening",
    "pareto_score": "pareto",
    "pareto_sensitivity": "pareto",
    "per_pick_epsilon": "accounting",
    "pick_probability": "preview",
    "priv_agg": "aggregate",
    "priv_chebyshev": "chebyshev",
    "priv_pareto": "pareto",
    "probabilities": "mechanisms",
    "select": "mechanisms",
    "select_multiobjective": "selection",
}

#: Sub-packages reachable as attributes (``dpmo.graphs``) without importing them first.
_SUBMODULES = {"accounting", "audit", "datasets", "experiments", "graphs", "metrics", "trees", "cli"}

__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # for static analysers and IDEs only: at run time the names load on first use
    from ._validation import check_random_state as check_random_state
    from .accounting import per_pick_epsilon as per_pick_epsilon
    from .aggregate import aggregate as aggregate
    from .aggregate import priv_agg as priv_agg
    from .budget import Budget as Budget
    from .budget import BudgetExceededError as BudgetExceededError
    from .chebyshev import priv_chebyshev as priv_chebyshev
    from .dampening import dampen as dampen
    from .dampening import local_dampening as local_dampening
    from .mechanisms import MECHANISMS as MECHANISMS
    from .mechanisms import probabilities as probabilities
    from .mechanisms import select as select
    from .pareto import pareto_score as pareto_score
    from .pareto import pareto_sensitivity as pareto_sensitivity
    from .pareto import priv_pareto as priv_pareto
    from .preview import lead_needed as lead_needed
    from .preview import pick_probability as pick_probability
    from .selection import select_multiobjective as select_multiobjective
    from .sensitivity import LocalSensitivity as LocalSensitivity
    from .sensitivity import Objective as Objective


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)


class _Package(types.ModuleType):
    """``dpmo`` itself: a public name that is also the name of a submodule (``dpmo.aggregate``, the
    function, defined in ``dpmo/aggregate.py``) stays the public name when the submodule is first imported
    (the import system sets the package's attribute to the submodule; here that is not done, and
    ``sys.modules["dpmo.aggregate"]`` still holds the module)."""

    def __setattr__(self, name: str, value) -> None:
        if name in _EXPORTS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
