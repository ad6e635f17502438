"""A privacy budget that is spent, never recomputed: :class:`Budget` and :class:`BudgetExceededError`.

Every private entry point of ``dpmo`` (``select``, ``local_dampening``, ``priv_pareto``, ``priv_agg``, the
graph and tree applications) takes ``budget=`` next to ``epsilon`` and records each epsilon it spends in the
budget, in the code that calls the mechanism, at the moment it calls it. A spend that does not fit raises
:class:`BudgetExceededError` *before* anything private is computed and records nothing.

Accounting
----------
Arithmetic is exact: every epsilon is turned into a :class:`fractions.Fraction` of the float (or int, or
Fraction) given, so ``k`` equal shares of ``epsilon`` add up to ``epsilon`` exactly and a budget is never
over- or under-spent by rounding. The float a mechanism uses is the float nearest to its exact share (for a
float ``epsilon`` and an int ``k`` that is exactly ``epsilon / k`` as Python computes it).

Composition is **basic sequential composition** (the sum of the epsilons, Dwork and Roth 2014, Theorem
3.16), which is what the paper uses. The cost of a spend is computed in one place,
:meth:`Budget._cost`, from the whole record (epsilon *and* mechanism), and the budget only ever compares
and adds costs; a tighter accountant (for instance zero-concentrated DP, in which the exponential mechanism
is ``epsilon^2 / 8``-zCDP by its bounded range, Cesar and Rogers 2021) would be a subclass that changes the
cost and the comparison. None is shipped: it needs a proof reference and tests first.

Parallel composition (disjoint parts of the data, as the nodes of one depth of an ID3 tree) is recorded by
the caller as *one* spend whose ``what`` says so.
"""

from __future__ import annotations

import math
import numbers
import threading
from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = ["Budget", "BudgetExceededError", "Spend", "fit_budget", "resolve_budget"]


class _Lock:
    """A re-entrant lock that survives pickling (a fitted estimator holds its Budget): pickle keeps one
    object per tree of budgets, and unpickling gives it a fresh lock."""

    def __init__(self):
        self._lock = threading.RLock()

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self._lock = threading.RLock()


class BudgetExceededError(BaseException):
    """A spend (or a split) asked for more epsilon than the budget has left; nothing was recorded.

    A ``BaseException``, as ``KeyboardInterrupt``: a handler of ``Exception`` does not swallow it, so a
    budget that runs out inside a scikit-learn loop (``cross_val_score``, ``GridSearchCV``, which turn a
    failed fit into a NaN score) stops the loop instead of scoring NaN. Catch it by its name
    (``docs/privacy-accounting.md``, "When the budget runs out").

    Examples
    --------
    >>> import dpmo
    >>> budget = dpmo.Budget(1.0)
    >>> try:
    ...     budget.spend(2.0, "too much")
    ... except dpmo.BudgetExceededError as err:
    ...     print(isinstance(err, Exception), budget.spent)
    False 0.0
    """


class Spend(NamedTuple):
    """One record of a :class:`Budget`'s ledger: one call of a private mechanism.

    Attributes
    ----------
    what : str
        What was selected or released, e.g. ``"priv_pareto: round 2 of 3"``.
    mechanism : str or None
        The mechanism called (``"exponential"``, ``"permute_and_flip"``, ``"laplace"``, ``"gumbel"``, ...).
    epsilon : fractions.Fraction
        The epsilon spent, exact.
    sensitivity : float or None
        The sensitivity the mechanism was calibrated with (1 for dampened scores).
    candidates : int or None
        The number of candidates of a selection (or of released values).
    """

    what: str
    mechanism: str | None
    epsilon: Fraction
    sensitivity: float | None
    candidates: int | None


def _exact(value, name: str = "epsilon", *, allow_zero: bool = False) -> Fraction:
    """``value`` as an exact Fraction, checked positive and finite."""
    kind = type(value)
    if kind is Fraction or kind is float:  # the common cases, fast
        if (value > 0 or (allow_zero and value == 0)) and (kind is Fraction or math.isfinite(value)):
            return value if kind is Fraction else Fraction(value)
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if isinstance(value, Fraction):
        frac = value
    else:
        f = float(value) if not isinstance(value, numbers.Rational) else None
        if f is not None and not np.isfinite(f):
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
        frac = Fraction(value) if f is None else Fraction(f)
    if frac < 0 or (frac == 0 and not allow_zero):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return frac


class Budget:
    """A privacy budget of ``epsilon`` (pure epsilon-DP, basic sequential composition).

    Parameters
    ----------
    epsilon : float, int or fractions.Fraction
        Total budget, > 0 and finite. Kept exactly (the Fraction of the float given).

    Attributes
    ----------
    epsilon : float
        The total budget.
    spent : float
        The sum of the ledger's epsilons (including the spends of the sub-budgets of :meth:`split`).
    remaining : float
        What can still be spent directly: the total minus the direct spends and minus the whole of every
        sub-budget made by :meth:`split` (reserved when it is made, whether or not it is spent yet).
    ledger : tuple of Spend
        Every spend, in the order made (the sub-budgets' spends appear in their parents' ledgers too).

    See Also
    --------
    dpmo.select, dpmo.priv_pareto, dpmo.priv_agg : entry points that take ``budget=``.

    Notes
    -----
    Thread-safe: a spend is checked and recorded under one lock per tree of budgets. ``spend`` is O(depth of
    the tree of sub-budgets); ``ledger`` copies the records, O(records).

    Examples
    --------
    >>> from dpmo import Budget, BudgetExceededError
    >>> b = Budget(1.0)
    >>> b.spend(0.25, "a count", mechanism="laplace", sensitivity=1.0)
    0.25
    >>> b.spent, b.remaining
    (0.25, 0.75)
    >>> parts = b.split(3)            # three equal shares of what remains, reserved in b
    >>> [p.epsilon for p in parts]
    [0.25, 0.25, 0.25]
    >>> b.remaining
    0.0
    >>> try:
    ...     b.spend(0.1, "too much")
    ... except BudgetExceededError as err:
    ...     print("refused")
    refused
    >>> for p in parts:
    ...     _ = p.spend(p.remaining, "a pick", mechanism="exponential")
    >>> sum(r.epsilon for r in b.ledger) == 1      # exact, no rounding
    True

    Floats are taken exactly, so ``0.1`` is slightly more than 1/10: ten spends of ``0.1`` do not fit in
    ``Budget(1.0)``. Use ``split(10)`` or ``fractions.Fraction(1, 10)`` for exact tenths.
    """

    #: Name of the composition rule (basic sequential composition); a tighter accountant would change it.
    composition = "basic"

    def __init__(self, epsilon):
        self._total = _exact(epsilon)
        self._committed = Fraction(0)  # direct spends + reservations of the sub-budgets
        self._spent = Fraction(0)  # every record, own or of a sub-budget
        # Spend records, or (what, mechanism, epsilon, k, sensitivity, candidates) for k equal rounds of
        # spend_rounds, expanded into k records when the ledger is read (recording stays O(1) per call)
        self._records: list = []
        self._parent: Budget | None = None
        self._lock = _Lock()

    # ------------------------------------------------------------------------------------ reading
    @property
    def epsilon(self) -> float:
        return float(self._total)

    @property
    def epsilon_exact(self) -> Fraction:
        """The total budget as an exact Fraction."""
        return self._total

    @property
    def spent(self) -> float:
        return float(self._spent)

    @property
    def spent_exact(self) -> Fraction:
        """The sum of the ledger, exact."""
        return self._spent

    @property
    def remaining(self) -> float:
        return float(self._total - self._committed)

    @property
    def remaining_exact(self) -> Fraction:
        """What can still be spent or split, exact."""
        return self._total - self._committed

    @property
    def ledger(self) -> tuple[Spend, ...]:
        with self._lock:
            entries = list(self._records)
        out: list[Spend] = []
        for e in entries:
            if isinstance(e, Spend):
                out.append(e)
                continue
            what, mech, eps, k, sens, cand = e
            share = eps / k
            for i in range(k):
                label = f"{what}: round {i + 1} of {k}" if k > 1 else what
                out.append(Spend(label, mech, share, sens, None if cand is None else cand - i))
        return tuple(out)

    @property
    def parent(self) -> Budget | None:
        """The budget this one was split from (it is charged for every spend), or None."""
        return self._parent

    def __repr__(self) -> str:
        return f"Budget(epsilon={self.epsilon!r}, spent={self.spent!r}, remaining={self.remaining!r})"

    # ------------------------------------------------------------------------------------ spending
    def _cost(self, epsilon: Fraction, mechanism: str | None) -> Fraction:
        """The share of the budget a spend of ``epsilon`` with ``mechanism`` uses: ``epsilon`` under basic
        composition. The one place a tighter accountant would change."""
        return epsilon

    def check(self, epsilon) -> Fraction:
        """Raise :class:`BudgetExceededError` unless ``epsilon`` fits in what remains; record nothing.

        Returns the exact Fraction of ``epsilon``. Entry points call it up front, before computing
        anything private, for the whole epsilon of the call.
        """
        eps = _exact(epsilon)
        with self._lock:
            if self._cost(eps, None) > self.remaining_exact:
                raise BudgetExceededError(
                    f"epsilon {float(eps)!r} exceeds the remaining budget {self.remaining!r} "
                    f"(of {self.epsilon!r}, spent {self.spent!r})"
                )
        return eps

    def spend(self, epsilon, what: str, *, mechanism=None, sensitivity=None, candidates=None) -> float:
        """Record one spend of ``epsilon`` and return it (as the float the mechanism is to use).

        Parameters
        ----------
        epsilon : float, int or fractions.Fraction
            > 0; at most :attr:`remaining`.
        what : str
            What is selected or released.
        mechanism : str, optional
            The mechanism about to be called.
        sensitivity : float, optional
            The sensitivity it is calibrated with.
        candidates : int, optional
            The number of candidates (or released values).

        Returns
        -------
        float
            ``float(epsilon)``.

        Raises
        ------
        BudgetExceededError
            ``epsilon`` exceeds :attr:`remaining`; nothing is recorded. Call this *before* computing
            anything private.
        """
        eps = _exact(epsilon)
        if not isinstance(what, str):
            raise TypeError(f"what must be a str, got {type(what).__name__}")
        record = Spend(
            what,
            None if mechanism is None else str(mechanism),
            eps,
            None if sensitivity is None else float(sensitivity),
            None if candidates is None else int(candidates),
        )
        with self._lock:
            if self._cost(eps, record.mechanism) > self.remaining_exact:
                raise BudgetExceededError(
                    f"spending epsilon {float(eps)!r} on {what!r} exceeds the remaining budget "
                    f"{self.remaining!r} (of {self.epsilon!r}, spent {self.spent!r}); nothing was recorded"
                )
            self._committed += self._cost(eps, record.mechanism)
            node: Budget | None = self
            while node is not None:  # the parents reserved this share when they split: only record it
                node._spent += eps
                node._records.append(record)
                node = node._parent
        return float(eps)

    def spend_rounds(self, epsilon, k: int, what: str, *, mechanism=None, sensitivity=None, candidates=None):
        """Record ``k`` spends of ``epsilon / k`` (exact), one per round of a selection without replacement.

        ``epsilon`` is checked to fit as a whole first; round ``i`` (from 0) is recorded with
        ``candidates - i`` candidates when ``candidates`` is given. Returns the float of one share (for a
        float ``epsilon``, exactly ``epsilon / k``). Used by callers that sample the ``k`` rounds at once
        (the Gumbel top-k trick): all ``k`` records are made before the sampling.
        """
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be a positive int, got {k}")
        if not isinstance(what, str):
            raise TypeError(f"what must be a str, got {type(what).__name__}")
        eps = _exact(epsilon)
        mech = None if mechanism is None else str(mechanism)
        sens = None if sensitivity is None else float(sensitivity)
        with self._lock:
            # basic composition: the k shares cost eps exactly (a tighter accountant costs each round)
            basic = type(self)._cost is Budget._cost
            cost = eps if basic else self._cost(eps / k, mech) * k
            if cost > (self._total - self._committed if self._committed else self._total):
                raise BudgetExceededError(
                    f"spending epsilon {float(eps)!r} on {what!r} exceeds the remaining budget "
                    f"{self.remaining!r} (of {self.epsilon!r}, spent {self.spent!r}); nothing was recorded"
                )
            entry = (what, mech, eps, k, sens, None if candidates is None else int(candidates))
            self._committed = cost if not self._committed else self._committed + cost
            node: Budget | None = self
            while node is not None:  # k records of share = eps / k each: together exactly eps
                node._spent = eps if not node._spent else node._spent + eps
                node._records.append(entry)
                node = node._parent
        return eps.numerator / (eps.denominator * k)  # correctly rounded: the float of eps / k

    def split(self, parts) -> list[Budget]:
        """Sub-budgets that charge this one, reserved in it now.

        Parameters
        ----------
        parts : int or sequence of (float, int or Fraction)
            An int ``m >= 1``: ``m`` equal shares of :attr:`remaining` (exact, so they add up to it). A
            sequence: one sub-budget per epsilon given (each > 0, together at most :attr:`remaining`).

        Returns
        -------
        list of Budget
            Each spend of a sub-budget appears in its own ledger and in this one's (and its parents'). The
            sub-budgets' whole epsilon is taken from :attr:`remaining` at once, so this budget can never be
            overspent, whatever the sub-budgets do.

        Raises
        ------
        BudgetExceededError
            The parts exceed :attr:`remaining` (nothing is reserved).
        """
        with self._lock:
            if isinstance(parts, (numbers.Integral, np.integer)) and not isinstance(parts, (bool, np.bool_)):
                m = int(parts)
                if m < 1:
                    raise ValueError(f"parts must be a positive int or a sequence of epsilons, got {m}")
                rest = self.remaining_exact
                if rest <= 0:
                    raise BudgetExceededError(f"nothing remains to split (budget {self.epsilon!r} all used)")
                shares = [rest / m] * m
            elif isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
                raise TypeError(
                    f"parts must be a positive int or a sequence of epsilons, got {type(parts).__name__}"
                )
            else:
                shares = [_exact(p, "parts[i]") for p in parts]
                if not shares:
                    raise ValueError("parts must not be empty")
                if sum(shares) > self.remaining_exact:
                    raise BudgetExceededError(
                        f"the parts add up to {float(sum(shares))!r}, more than the remaining budget "
                        f"{self.remaining!r}; nothing was reserved"
                    )
            children = []
            for share in shares:
                child = type(self).__new__(type(self))
                Budget.__init__(child, share)
                child._parent = self
                child._lock = self._lock  # one lock per tree of budgets
                children.append(child)
            self._committed += sum(shares, Fraction(0))
        return children


def resolve_budget(epsilon, budget, name: str = "epsilon") -> tuple[Budget, Fraction]:
    """The budget an entry point spends from and the exact epsilon of the call, checked up front.

    * ``budget`` None: a new ``Budget(epsilon)`` (``epsilon`` required).
    * ``budget`` given, ``epsilon`` None: the whole of ``budget.remaining``.
    * both: ``epsilon`` out of ``budget``.

    Raises :class:`BudgetExceededError` when the epsilon does not fit, before anything is computed.
    """
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"budget must be a dpmo.Budget or None, got {type(budget).__name__}")
    if budget is None:
        if epsilon is None:
            raise ValueError(f"{name} is required when no budget is given")
        budget = Budget(epsilon)
        return budget, budget.epsilon_exact
    if epsilon is None:
        eps = budget.remaining_exact
        if eps <= 0:
            raise BudgetExceededError(f"the budget is used up (epsilon {budget.epsilon!r}, all spent)")
        return budget, eps
    return budget, budget.check(_exact(epsilon, name))


def fit_budget(epsilon, budget) -> Budget:
    """The budget of one estimator fit: its own ``Budget(epsilon)``, or ``epsilon`` split off ``budget``.

    The split reserves ``epsilon`` in ``budget`` at once, so a fit that does not fit raises
    :class:`BudgetExceededError` before anything private is computed; the returned budget's ledger then
    sums to ``epsilon`` exactly (each of its spends is charged to ``budget`` too). O(1).

    Examples
    --------
    >>> from dpmo.budget import Budget, fit_budget
    >>> shared = Budget(1.0)
    >>> own = fit_budget(0.6, shared)
    >>> own.epsilon, shared.remaining <= 0.4 + 1e-12
    (0.6, True)
    """
    if budget is None:
        return Budget(epsilon)
    if not isinstance(budget, Budget):
        raise TypeError(f"budget must be a dpmo.Budget or None, got {type(budget).__name__}")
    return budget.split([epsilon])[0]
