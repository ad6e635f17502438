"""The approaches of :func:`dpmo.select_multiobjective`: what one is, and the registry of them by name.

An approach (:class:`Approach`) says how the objectives become one score per candidate in each round
(:class:`Rounds`); :func:`register_approach` makes one selectable by its name everywhere
(:func:`dpmo.select_multiobjective`, ``dpmo.graphs.top_k``, ``DPMOETClassifier``, the experiments, the
CLI). The built-in approaches' modules (:data:`dpmo._choices.BUILTIN_APPROACHES`) register theirs when
imported; :func:`approaches` and :func:`get_approach` import them by name the first time they are asked
for. Everything here is public configuration: no private data is read. :mod:`dpmo.selection` re-exports
these names (``from dpmo.selection import Approach`` keeps working).
"""

from __future__ import annotations

import importlib
import threading
from fractions import Fraction

import numpy as np

from . import _choices
from ._validation import check_choice
from .sensitivity import Objective
from .steps import Step

__all__ = ["Approach", "Rounds", "approaches", "get_approach", "register_approach"]


class Rounds:
    """The scores of the k rounds of one selection (returned by :meth:`Approach.rounds`).

    ``static`` is True when a candidate's score does not depend on the other candidates (the aggregate):
    the rounds then draw from one score vector without replacement, sampled at once by :func:`dpmo.select`
    with ``k``. Otherwise (the Pareto score) :meth:`scores` is asked again in every round, for the
    candidates still in play, and :meth:`chosen` is told every pick.
    """

    static = False
    #: Shown in the budget's records, e.g. ``"dampened Pareto score"``.
    score_name = "score"

    def scores(self, chosen: list[int], remaining: np.ndarray) -> tuple[np.ndarray, float]:
        """``(scores, sensitivity)`` of the ``remaining`` candidates (original indices, sorted) after the
        picks ``chosen`` (in order); handed to :func:`dpmo.select`."""
        raise NotImplementedError

    def chosen(self, candidate: int) -> None:  # noqa: B027 - optional hook
        """Told the original index of every pick, after the round."""

    def begin(self, r: int, epsilon: float) -> None:  # noqa: B027 - optional hook
        """Told, before :meth:`scores` of round ``r`` (from 0), the epsilon that round runs at (the float
        the budget returned for its recorded share). Public: approaches whose scores depend on the
        budget of the round (windows that widen with epsilon) read it here."""

    def release_spec(self, r: int, chosen: list[int]) -> tuple[str, float, int]:
        """``(what, sensitivity, count)`` of the private release made right before round ``r`` (for the
        budget's record): what is released, its L1 sensitivity and the number of values. Only asked by
        approaches whose :meth:`Approach.steps` has releases."""
        raise NotImplementedError

    def release(self, r: int, chosen: list[int], epsilon: Fraction, rng) -> None:
        """Make the private release planned right before round ``r`` at exactly ``epsilon`` (already
        recorded in the budget), keeping its output for the later rounds' scores. ``rng``: the
        selection's randomness (None: the OS's secure source). Only called for the releases of
        :meth:`Approach.steps`."""
        raise NotImplementedError


class Approach:
    """How a multi-objective selection scores the candidates; subclass and :func:`register_approach`.

    Attributes
    ----------
    name : str
        The value of ``approach`` that selects it.
    uses_weights : bool
        Whether it needs ``weights`` (one per objective).
    """

    name = ""
    uses_weights = False

    def check_weights(self, weights, m: int):
        """Checked weights (or None when the approach does not use them)."""
        return None

    def round_shares(self, k: int, m: int):
        """The public shares of epsilon of the ``k`` rounds over ``m`` objectives: ``None`` for equal
        shares (``epsilon / k`` each, the default), or ``k`` positive floats summing to 1. Called before
        anything is computed; it also checks any other public per-round setting of the approach against
        ``k`` and ``m`` (``ValueError`` naming it)."""
        return None

    def steps(self, k: int, m: int) -> tuple[Step, ...] | None:
        """The public plan of an approach that makes private releases between its rounds: every
        mechanism call (releases and rounds) in order with its share of epsilon (summing to 1). None
        (the default): the ``k`` rounds only, with :meth:`round_shares`. Called before anything is
        computed, after :meth:`round_shares`."""
        return None

    def reallocable_share(self, k: int, m: int) -> float:
        """The largest share of epsilon that the rounds of :meth:`steps` may move between them after a
        release (``Rounds.reallocate``, pure epsilon-DP only); 0 (the default): none. With ``delta > 0``
        the call runs its epsilon-DP plan when the accountant adds less than this to epsilon
        (:func:`dpmo.calls.delta_for_plan`). Public; called before anything is computed."""
        return 0.0

    def rounds(self, objectives: list[Objective], weights, sensitivity: str, cache) -> Rounds:
        """The :class:`Rounds` of one selection; ``cache`` is a :class:`SelectionCache` or None."""
        raise NotImplementedError

    def utility(self, objectives: list[Objective], weights, remaining: np.ndarray) -> np.ndarray:
        """The exact (NOT private) score of the ``remaining`` candidates, larger is better; used by
        :func:`argmax_multiobjective`."""
        raise NotImplementedError


_APPROACHES: dict[str, Approach] = {}
_LOCK = threading.Lock()


def register_approach(approach: Approach, *, replace: bool = False) -> Approach:
    """Make ``approach`` selectable by its ``name`` in :func:`select_multiobjective` and everything built on
    it (``dpmo.graphs.top_k``, ``DPMOETClassifier``, the experiments, the CLI). Returns it.

    A name already registered raises ``ValueError`` unless ``replace`` is true.
    """
    if not isinstance(approach, Approach):
        raise TypeError(f"approach must be a dpmo.selection.Approach, got {type(approach).__name__}")
    if not isinstance(approach.name, str) or not approach.name:
        raise ValueError("approach.name must be a non-empty str")
    builtin = _choices.BUILTIN_APPROACHES.get(approach.name)
    if builtin is not None and not type(approach).__module__.startswith(builtin):
        # the built-in of that name registers itself when its module is imported: import it first, so that
        # the name clashes now (or is replaced) rather than at that import, under any later call
        importlib.import_module(builtin)
    with _LOCK:
        if approach.name in _APPROACHES and not replace:
            raise ValueError(f"an approach named {approach.name!r} is already registered")
        _APPROACHES[approach.name] = approach
    return approach


_BUILTINS_LOADED = False


def _load_builtins() -> None:
    """Import the modules of the built-in approaches (each registers its approach when imported)."""
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        for module in _choices.BUILTIN_APPROACHES.values():
            importlib.import_module(module)
        _BUILTINS_LOADED = True


def approaches() -> tuple[str, ...]:
    """Names of the registered approaches (``"pareto"``, ``"agg"``, ``"chebyshev"``, and any registered
    later), the built-ins first, in a fixed order whatever order their modules were imported in."""
    _load_builtins()
    builtins = [a for a in _choices.APPROACHES if a in _APPROACHES]
    return tuple(builtins + [a for a in _APPROACHES if a not in _choices.BUILTIN_APPROACHES])


def get_approach(name) -> Approach:
    """The registered approach called ``name`` (``ValueError`` naming the allowed ones otherwise)."""
    if isinstance(name, Approach):
        return name
    _load_builtins()  # once: the built-ins are registered by their modules
    return _APPROACHES[check_choice(name, approaches(), "approach")]
