"""Calls with ``delta > 0``, planned before anything is computed: :func:`call_budget`, :func:`resolve_call`.

Entry points with ``delta=`` use :func:`resolve_call` in place of :func:`dpmo.budget.resolve_budget`: with
``delta == 0`` it is that function, unchanged; with ``delta > 0`` it asks the accountant
(:func:`dpmo.accounting.scaled_epsilons`) for the epsilons of the call's mechanism calls and reserves the
call's ``(epsilon, delta)`` in the budget (:mod:`dpmo.budget_calls`), before anything private is computed.
"""

from __future__ import annotations

import contextvars
import functools
import numbers
from fractions import Fraction

import numpy as np

from .accounting import check_delta, mechanism_kind, scaled_epsilons
from .budget import Budget, BudgetExceededError, resolve_budget
from .budget_calls import exact_delta
from .epsilons import exact_epsilon, exact_text, float_at_most

__all__ = ["call_budget", "check_budget_first", "delta_for_plan", "resolve_call", "releases_on_error"]

#: The call budgets reserved inside the innermost running :func:`releases_on_error` entry point.
_RESERVED: contextvars.ContextVar[list | None] = contextvars.ContextVar("dpmo_reserved_calls", default=None)


def releases_on_error(func):
    """Decorate an entry point whose ``delta > 0`` calls reserve their budget (:func:`call_budget`): when it
    raises, every call budget it reserved that recorded nothing is released
    (:meth:`dpmo.Budget.release_unrecorded_call`). A call that fails before its first mechanism (a local
    function that returns NaN, a bad shape) then spends nothing, as with ``delta = 0``; a call that
    recorded anything stays charged."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        token = _RESERVED.set([])
        try:
            return func(*args, **kwargs)
        except BaseException:
            for call in _RESERVED.get():
                call.release_unrecorded_call()
            raise
        finally:
            _RESERVED.reset(token)

    return wrapper


def call_budget(epsilon, budget, delta, shares, mechanisms, what: str) -> tuple[Budget, list[Fraction]]:
    """The budget of one call with ``delta > 0`` and the exact epsilons its mechanism calls run at.

    Parameters
    ----------
    epsilon : float, Fraction or None
        The call's epsilon (None with ``budget``: all that ``budget`` has left).
    budget : Budget or None
        Charged ``(epsilon, delta)`` now (None: a new ``Budget(epsilon, delta)``).
    delta : float
        The call's delta, in ``(0, 1)``.
    shares : sequence of float
        Relative shares of the call's mechanism calls, in the order they run.
    mechanisms : str or sequence of str
        Their mechanism names or kinds (:func:`dpmo.accounting.mechanism_kind`).
    what : str
        The call's label in the budget's charges.

    Returns
    -------
    (Budget, list of Fraction)
        The call's budget, whose slots are the returned epsilons (each the exact value of the float that
        :func:`dpmo.accounting.scaled_epsilons` gives for the call's ``(epsilon, delta)``, read as the
        largest floats not above the exact ones); every record the call makes takes the next slot.

    Raises
    ------
    BudgetExceededError
        ``(epsilon, delta)`` exceeds what ``budget`` has left; before anything is computed.
    """
    d = exact_delta(delta)
    if d == 0:
        raise ValueError("call_budget is for calls with delta > 0")
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"budget must be a dpmo.Budget or None, got {type(budget).__name__}")
    if budget is None:
        if epsilon is None:
            raise ValueError("epsilon is required when no budget is given")
        budget = Budget(epsilon, d)
    eps = budget.remaining_exact if epsilon is None else exact_epsilon(epsilon)
    if eps <= 0:
        raise BudgetExceededError(f"the budget is used up (epsilon {exact_text(budget.epsilon_exact)})")
    kinds, floats = _accountant_epsilons(eps, d, shares, mechanisms)
    parts = [Fraction(f) for f in floats]
    call = budget.reserve_call(eps, d, list(zip(parts, kinds, strict=True)), what)
    reserved = _RESERVED.get()
    if reserved is not None:
        reserved.append(call)
    return call, parts


def _accountant_epsilons(eps, d, shares, mechanisms) -> tuple[list[str], tuple[float, ...]]:
    """The mechanisms' kinds and the accountant's epsilons for a call of exact ``(eps, d)``, ``d > 0``."""
    kinds = [mechanisms] * len(shares) if isinstance(mechanisms, str) else list(mechanisms)
    kinds = [mechanism_kind(m) for m in kinds]
    # the accountant certifies the floats at most the exact (epsilon, delta): a stronger statement
    return kinds, scaled_epsilons(float_at_most(eps), list(shares), delta=float_at_most(d), kinds=kinds)


def delta_for_plan(epsilon, budget, delta, shares, mechanisms, reallocable: float):
    """The delta a call with a plan runs at: ``delta``, or 0 when the plan may move more of epsilon between
    its rounds than the accountant adds to it.

    A plan's rounds may move epsilon between them after a release (``Rounds.reallocate``), with pure
    epsilon-DP only: the parts are then chosen from earlier outputs, and every path sums to epsilon. With
    ``delta > 0`` the accountant's parts are fixed before any release and sum to ``(1 + g) epsilon``. An
    ``(epsilon, delta)`` call may always run the epsilon-DP one (it is ``(epsilon, 0)``-DP, so ``(epsilon,
    delta)``-DP), and does when the gain ``g`` is below ``reallocable``, the largest share of epsilon the
    plan's reallocation can move (``Approach.reallocable_share``; ``docs/privacy-accounting.md``, "Plans that
    reallocate"). Public: epsilon (or the budget's remaining epsilon), delta, the shares and the kinds.

    Parameters
    ----------
    epsilon, budget, delta
        As given to :func:`resolve_call` (checked by :func:`check_budget_first`).
    shares, mechanisms
        The plan's relative shares and mechanism names or kinds, in the order they run.
    reallocable : float
        The largest share of epsilon the plan may move (0: never; ``delta`` is returned as given).

    Returns
    -------
    float or Fraction
        ``delta`` or 0. O(len(shares)) calls of the accountant's scaling.

    Examples
    --------
    >>> from dpmo.calls import delta_for_plan
    >>> delta_for_plan(1.0, None, 1e-6, [1, 1, 1], "exponential", 0.25)  # the accountant adds under 25 %
    0
    >>> delta_for_plan(1.0, None, 1e-6, [1, 1, 1], "exponential", 0.0)
    1e-06
    """
    d = exact_delta(delta)
    if d == 0 or not reallocable > 0:
        return delta
    eps = budget.remaining_exact if epsilon is None else exact_epsilon(epsilon)
    if eps <= 0:  # resolve_call says why
        return delta
    floats = _accountant_epsilons(eps, d, shares, mechanisms)[1]
    gain = Fraction(sum(floats)) / eps - 1
    return 0 if gain < Fraction(reallocable) else delta


def resolve_call(epsilon, budget, delta, shares, mechanisms, what: str, name: str = "epsilon"):
    """:func:`dpmo.budget.resolve_budget` for ``delta == 0`` (exactly as before: returns ``(budget, total,
    None)``), or :func:`call_budget` for ``delta > 0`` (returns ``(call's budget, sum of the parts,
    parts)``).

    ``shares`` is a sequence of relative shares, or an int ``k`` for ``k`` equal ones. Raises before
    anything is computed when the call does not fit.

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.calls import resolve_call
    >>> b = dpmo.Budget(1.0, delta=1e-6)
    >>> call, total, parts = resolve_call(1.0, b, 1e-6, 10, "exponential", "ten picks")
    >>> len(parts), float(parts[0]) == dpmo.per_pick_epsilon(1.0, 10, delta=1e-6), b.remaining_delta
    (10, True, 0.0)
    """
    if check_delta(delta) == 0:
        budget, total = resolve_budget(epsilon, budget, name)
        return budget, total, None
    if epsilon is not None:
        exact_epsilon(epsilon, name)
    if isinstance(shares, (numbers.Integral, np.integer)):
        shares = [1.0] * int(shares)
    call, parts = call_budget(epsilon, budget, delta, shares, mechanisms, what)
    return call, sum(parts, Fraction(0)), parts


def check_budget_first(epsilon, budget, delta=0.0, name: str = "epsilon") -> None:
    """Raise :class:`dpmo.BudgetExceededError` when a call of ``(epsilon, delta)`` does not fit in
    ``budget``, reading nothing but public parameters; nothing is reserved.

    Every entry point calls it before any check that reads the private data (finite scores, an edge's
    nodes, a table's labels): a call that does not fit then raises the same error on every input, so
    the error says nothing about the data (``docs/privacy-accounting.md``, "When the budget runs out").
    ``budget`` None: nothing to check (the call makes its own budget). ``epsilon`` None: all that
    ``budget`` has left, which must be more than 0. Bad ``epsilon``, ``delta`` or ``budget`` types raise
    ``ValueError``/``TypeError`` naming them (public parameters too). A budget forked from another
    process raises its ``RuntimeError`` (:mod:`dpmo._fork`). O(1).

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.calls import check_budget_first
    >>> b = dpmo.Budget(1.0)
    >>> _ = b.spend(1.0, "all of it")
    >>> try:
    ...     check_budget_first(0.5, b)
    ... except dpmo.BudgetExceededError:
    ...     print("refused before reading any data")
    refused before reading any data
    """
    if budget is None:
        return
    if not isinstance(budget, Budget):
        raise TypeError(f"budget must be a dpmo.Budget or None, got {type(budget).__name__}")
    check_delta(delta)  # its type and range; the budget reads the value exactly (a Fraction stays exact)
    d = delta
    if epsilon is None:
        rest = budget.remaining_exact
        if rest <= 0:
            raise BudgetExceededError(
                f"the budget is used up (epsilon {exact_text(budget.epsilon_exact)}, all spent or reserved); "
                "nothing was computed"
            )
        budget.check(rest, d)
    else:
        budget.check(exact_epsilon(epsilon, name), d)
