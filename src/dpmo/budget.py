"""A privacy budget that is spent, never recomputed: :class:`Budget` and :class:`BudgetExceededError`.

Every private entry point of ``dpmo`` (``select``, ``local_dampening``, ``priv_pareto``, ``priv_agg``, the
graph and tree applications) takes ``budget=`` next to ``epsilon`` and records each epsilon it spends in the
budget, in the code that calls the mechanism, at the moment it calls it. A spend that does not fit raises
:class:`BudgetExceededError` *before* anything private is computed and records nothing.

Accounting
----------
Arithmetic is exact: every epsilon is recorded as a :class:`fractions.Fraction`. A float is read as the
decimal number it prints as (``repr``): ``0.1`` is recorded as exactly 1/10 and ``0.3`` as 3/10, so ten
spends of ``0.1`` fit in ``Budget(1.0)`` and ``0.1 + 0.2`` in ``Budget(0.3)``, as people count. An int or a
Fraction is taken as it is. ``k`` equal shares of ``epsilon`` add up to ``epsilon`` exactly, so a budget is
never over- or under-spent by rounding.

The float a mechanism runs at is :func:`dpmo.epsilons.float_at_most` of the recorded share: the largest
float not above it (``0.1`` recorded as 1/10 runs at ``0.09999999999999999``, one unit in the last place
below the float ``0.1``, which is a little more than 1/10). No mechanism ever runs at an epsilon larger
than the one recorded; the exact samplers (:mod:`dpmo.mechanisms.exact`) take the recorded Fraction itself.
The proof is in ``docs/privacy-accounting.md`` ("Decimal budgets").

Copies
------
A budget cannot be copied while it can still spend: ``pickle``, :func:`copy.copy`, :func:`copy.deepcopy`
and sending it to another process (joblib's ``loky``, ``multiprocessing``, Dask) raise :class:`TypeError`
saying what to do, and in a process forked after it was made it refuses to spend (:mod:`dpmo._fork`): a
copy's spends would never reach the original, so the two together could spend more than its epsilon.
Threads share the object, and every check-and-record runs under one lock per tree of budgets. A budget
with nothing left to spend (a fitted estimator's ``budget_``) copies as a detached record of its ledger.
Why refusing is the design: ``docs/privacy-accounting.md``, "Copies and other processes".

Composition is **basic sequential composition** (the sum of the epsilons, Dwork and Roth 2014, Theorem
3.16), as in the paper; the cost of a spend is :meth:`Budget._cost`. In ``Budget(epsilon, delta)``, calls
with ``delta > 0`` are planned by the accountant (:mod:`dpmo.budget_calls`).

Parallel composition (disjoint parts of the data, as the nodes of one depth of an ID3 tree) is recorded by
the caller as *one* spend whose ``what`` says so.
"""

from __future__ import annotations

import math
import numbers
import os
import threading
from fractions import Fraction

import numpy as np

from . import _fork
from ._validation import check_int
from .budget_calls import ApproximateDP, Charge
from .epsilons import decimal_float_at_most, exact_epsilon, exact_text, float_at_most
from .ledger import LedgerSummary, Spend, expand

__all__ = ["Budget", "BudgetExceededError", "Charge", "Spend", "fit_budget", "resolve_budget"]

#: Where the accounting rules are explained (named in the refusal messages).
DOCS = "docs/privacy-accounting.md"


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


def _restore(total: Fraction, spent: Fraction, records: list, delta=Fraction(0), spent_delta=0, charges=()):
    """Unpickle a budget with nothing left (see :meth:`Budget.__reduce_ex__`): a detached record."""
    b = Budget.__new__(Budget)
    Budget.__init__(b, total)
    b._committed, b._spent, b._records = total, spent, list(records)
    b._delta, b._committed_delta, b._spent_delta, b._charges = delta, delta, spent_delta, list(charges)
    return b


def _facts(sensitivity, candidates) -> tuple[float | None, int | None]:
    """A record's sensitivity (a finite number >= 0) and number of candidates (an int >= 0), or None."""
    sens = None if sensitivity is None else float(sensitivity)
    if sens is not None and not (math.isfinite(sens) and sens >= 0):
        raise ValueError(f"sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return sens, None if candidates is None else check_int(candidates, "candidates", minimum=0)


class Budget(ApproximateDP, LedgerSummary):
    """A privacy budget of ``(epsilon, delta)`` (pure epsilon-DP by default, basic sequential composition).

    Parameters
    ----------
    epsilon : float, int or fractions.Fraction
        Total budget, > 0 and finite. Kept exactly: a float as the decimal it prints as (``0.3`` is 3/10,
        :func:`dpmo.epsilons.exact_epsilon`).
    delta : float, int or fractions.Fraction, default 0
        Total delta in ``[0, 1)``, kept exactly as ``epsilon``. 0: pure DP (calls with ``delta > 0`` are
        refused). ``> 0``: such calls are planned by the accountant (:mod:`dpmo.budget_calls`).

    Attributes
    ----------
    epsilon : float
        The total budget.
    spent : float
        The sum of the ledger's epsilons (the sub-budgets' too; a call with ``delta > 0``: its epsilon).
    remaining : float
        What can still be spent directly: the total minus the direct spends and minus the whole of every
        sub-budget made by :meth:`split` (reserved when it is made, whether or not it is spent yet). The
        largest float whose decimal does not exceed it, so ``spend(remaining)`` always fits
        (:attr:`remaining_exact` is the exact value).
    ledger : tuple of Spend
        Every spend, in the order made (the sub-budgets' spends appear in their parents' ledgers too).

    Notes
    -----
    Thread-safe: a spend is checked and recorded under one lock per tree of budgets (joblib's ``threading``
    backend shares the object). Not copyable while it can still spend: ``pickle``, ``copy.copy``,
    ``copy.deepcopy`` and sending it to another process raise :class:`TypeError` (module notes, "Copies");
    in a process forked after it was made, it refuses to spend (:class:`RuntimeError`, :mod:`dpmo._fork`).
    ``spend`` is O(depth of the tree of sub-budgets); ``ledger`` copies the records, O(records).

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

    Floats count as the decimals they print as (ten spends of ``0.1`` fit in ``Budget(1.0)``; module notes).
    """

    #: Name of the composition rule between calls (basic sequential composition, of epsilons and deltas).
    composition = "basic"
    _exceeded = BudgetExceededError  # raised by the approximate-DP part (dpmo.budget_calls)

    def __init__(self, epsilon, delta=0.0):
        self._total = exact_epsilon(epsilon)
        self._init_delta(delta)
        self._committed = Fraction(0)  # direct spends + reservations of the sub-budgets
        self._spent = Fraction(0)  # every record, own or of a sub-budget
        # Spend records, or (what, mechanism, epsilon, k, sensitivity, candidates) for k equal rounds of
        # spend_rounds, expanded into k records when the ledger is read (recording stays O(1) per call)
        self._records: list = []
        self._parent: Budget | None = None
        self._lock = threading.RLock()
        self._born = _fork.generation  # spends only in this process, not in a forked child (dpmo._fork)
        self._pid = os.getpid()  # the same, kept in the budget itself: no reload of dpmo._fork resets it

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
        return decimal_float_at_most(self._remaining_epsilon())

    @property
    def remaining_exact(self) -> Fraction:
        """What can still be spent or split, exact (a call's budget: the sum of its unused slots)."""
        return self._remaining_epsilon()

    @property
    def ledger(self) -> tuple[Spend, ...]:
        with self._lock:
            entries = list(self._records)
        return tuple(expand(entries))  # dpmo.ledger: the k-round entries and a call's records unpacked

    @property
    def parent(self) -> Budget | None:
        """The budget this one was split from (it is charged for every spend), or None."""
        return self._parent

    def __repr__(self) -> str:
        if self._delta:
            return self._repr_delta()
        return f"Budget(epsilon={self.epsilon!r}, spent={self.spent!r}, remaining={self.remaining!r})"

    # ------------------------------------------------------------------------------------ copies
    def _refuse_copy(self, how: str):
        raise TypeError(
            f"a dpmo.Budget cannot be {how} while it can still spend (remaining "
            f"{exact_text(self.remaining_exact)}): the copy's spends would never reach this budget, so "
            "together they could spend more than its epsilon. Spend from this budget in this process "
            "(n_jobs=1, or joblib's threading backend, which shares it), or give each worker an epsilon "
            "of its own instead of the Budget (epsilon=..., budget=None) after recording the workers' "
            f"shares here (budget.spend(eps_i, 'worker i') or budget.split([...])); see {DOCS}, "
            "'Copies and other processes'"
        )

    def __reduce_ex__(self, protocol):
        """Pickling: refused while the budget can still spend; with nothing left, a detached record."""
        with self._lock:
            if self._remaining_epsilon() > 0:
                self._refuse_copy("pickled or sent to another process")
            return _restore, (self._total, self._spent, list(self._records), *self._delta_state())

    def __copy__(self):
        with self._lock:
            if self._remaining_epsilon() > 0:
                self._refuse_copy("copied (copy.copy)")
            return _restore(self._total, self._spent, self._records, *self._delta_state())

    def __deepcopy__(self, memo):
        with self._lock:
            if self._remaining_epsilon() > 0:
                self._refuse_copy("deep-copied (copy.deepcopy)")
            return _restore(self._total, self._spent, self._records, *self._delta_state())

    # ------------------------------------------------------------------------------------ spending
    def _cost(self, epsilon: Fraction, mechanism: str | None) -> Fraction:
        """The share of the budget a spend of ``epsilon`` with ``mechanism`` uses: ``epsilon`` under basic
        composition. The one place a tighter accountant would change."""
        return epsilon

    def _refuse_if_forked(self) -> None:
        """Raise (:func:`dpmo._fork.refuse`) in a process forked after this budget was made."""
        if self._born != _fork.generation or self._pid != os.getpid():
            _fork.refuse(DOCS)

    def check(self, epsilon, delta=0.0) -> Fraction:
        """Raise :class:`BudgetExceededError` unless ``epsilon`` (and ``delta``) fit in what remains.

        Returns the exact Fraction of ``epsilon``. Entry points call it up front, before computing
        anything private, for the whole epsilon (and delta) of the call.
        """
        self._refuse_if_forked()
        eps = exact_epsilon(epsilon)
        with self._lock:
            if self._cost(eps, None) > self._remaining_epsilon():
                raise BudgetExceededError(self._refusal(eps, None, "nothing was computed"))
            self._check_delta(delta)
        return eps

    def _refusal(self, eps: Fraction, what, tail: str) -> str:
        """The message of a refused spend: the exact epsilon asked and the exact remaining budget."""
        on = "" if what is None else f" on {what!r}"
        return (
            f"spending epsilon {exact_text(eps)}{on} exceeds the remaining budget "
            f"{exact_text(self.remaining_exact)} exactly (of {exact_text(self._total)}, spent "
            f"{exact_text(self._spent)}); {tail}. Epsilons are counted exactly, a float as the decimal it "
            f"prints as: see {DOCS}, 'Decimal budgets'"
        )

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
            The epsilon the mechanism is to run at: :func:`dpmo.epsilons.float_at_most` of the recorded
            ``epsilon`` (never above it: ``0.25`` for ``0.25``, the float just below ``0.1`` for ``0.1``).

        Raises
        ------
        BudgetExceededError
            ``epsilon`` exceeds :attr:`remaining`; nothing is recorded. Call it *before* computing.
        """
        self._refuse_if_forked()
        eps = exact_epsilon(epsilon)
        if not isinstance(what, str):
            raise TypeError(f"what must be a str, got {type(what).__name__}")
        record = Spend(
            what, None if mechanism is None else str(mechanism), eps, *_facts(sensitivity, candidates)
        )
        with self._lock:
            if self._plan is not None:  # a call with delta > 0: its next slot (dpmo.budget_calls)
                return self._spend_planned(eps, 1, record, record.mechanism, what)
            if self._cost(eps, record.mechanism) > self.remaining_exact:
                raise BudgetExceededError(self._refusal(eps, what, "nothing was recorded"))
            self._committed += self._cost(eps, record.mechanism)
            node: Budget | None = self
            while node is not None:  # the parents reserved this share when they split: only record it
                node._spent += eps
                node._records.append(record)
                node = node._parent
        return float_at_most(eps)

    def spend_rounds(self, epsilon, k: int, what: str, *, mechanism=None, sensitivity=None, candidates=None):
        """Record ``k`` spends of ``epsilon / k`` (exact), one per round of a selection without replacement.

        ``epsilon`` is checked to fit as a whole first; round ``i`` (from 0) is recorded with
        ``candidates - i`` candidates when ``candidates`` is given. Returns the float each round runs at,
        :func:`dpmo.epsilons.float_at_most` of the exact share ``epsilon / k``. Used by callers that sample
        the ``k`` rounds at once (the Gumbel top-k trick): all ``k`` records are made before the sampling.
        """
        self._refuse_if_forked()
        k = check_int(k, "k")
        if not isinstance(what, str):
            raise TypeError(f"what must be a str, got {type(what).__name__}")
        eps = exact_epsilon(epsilon)
        mech = None if mechanism is None else str(mechanism)
        sens, cand = _facts(sensitivity, candidates)
        if cand is not None and cand < k:
            raise ValueError(f"candidates must be at least k = {k} (round i has candidates - i), got {cand}")
        with self._lock:
            entry = (what, mech, eps, k, sens, cand)
            if self._plan is not None:  # a call with delta > 0: its next k slots (dpmo.budget_calls)
                return self._spend_planned(eps / k, k, entry, mech, what)
            # basic composition: the k shares cost eps exactly (a tighter accountant costs each round)
            basic = type(self)._cost is Budget._cost
            cost = eps if basic else self._cost(eps / k, mech) * k
            if cost > (self._total - self._committed if self._committed else self._total):
                raise BudgetExceededError(self._refusal(eps, what, "nothing was recorded"))
            self._committed = cost if not self._committed else self._committed + cost
            node: Budget | None = self
            while node is not None:  # k records of share = eps / k each: together exactly eps
                node._spent = eps if not node._spent else node._spent + eps
                node._records.append(entry)
                node = node._parent
        return float_at_most(eps / k)

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
        self._refuse_if_forked()
        with self._lock:
            if self._plan is not None:
                raise ValueError("a call's budget (delta > 0) cannot be split: it runs its plan only")
            if isinstance(parts, (numbers.Integral, np.integer)) and not isinstance(parts, (bool, np.bool_)):
                m = int(parts)
                if m < 1:
                    raise ValueError(f"parts must be a positive int or a sequence of epsilons, got {m}")
                rest = self.remaining_exact
                if rest <= 0:
                    raise BudgetExceededError(
                        f"nothing remains to split (budget {exact_text(self._total)} all used); see {DOCS}"
                    )
                shares = [rest / m] * m
            elif isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
                raise TypeError(
                    f"parts must be a positive int or a sequence of epsilons, got {type(parts).__name__}"
                )
            else:
                shares = [exact_epsilon(p, "parts[i]") for p in parts]
                if not shares:
                    raise ValueError("parts must not be empty")
                if sum(shares) > self.remaining_exact:
                    raise BudgetExceededError(
                        f"the parts add up to {exact_text(sum(shares))}, more than the remaining budget "
                        f"{exact_text(self.remaining_exact)} exactly; nothing was reserved. Epsilons are "
                        f"counted exactly, a float as the decimal it prints as: see {DOCS}, 'Decimal budgets'"
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


def resolve_budget(epsilon, budget, name: str = "epsilon", *, delta=0.0) -> tuple[Budget, Fraction]:
    """The budget an entry point spends from and the exact epsilon of the call, checked up front.

    * ``budget`` None: a new ``Budget(epsilon, delta)`` (``epsilon`` required).
    * ``budget`` given, ``epsilon`` None: the whole of ``budget.remaining``.
    * both: ``epsilon`` out of ``budget``.

    Raises :class:`BudgetExceededError` when the epsilon does not fit, before anything is computed.
    """
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"budget must be a dpmo.Budget or None, got {type(budget).__name__}")
    if budget is None:
        if epsilon is None:
            raise ValueError(f"{name} is required when no budget is given")
        budget = Budget(epsilon, delta)
        return budget, budget.epsilon_exact
    if epsilon is None:
        eps = budget.remaining_exact
        if eps <= 0:
            raise BudgetExceededError(
                f"the budget is used up (epsilon {exact_text(budget.epsilon_exact)}, all spent or reserved)"
            )
        return budget, budget.check(eps, delta)
    return budget, budget.check(exact_epsilon(epsilon, name), delta)


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
