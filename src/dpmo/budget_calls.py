"""Approximate DP in :class:`dpmo.Budget`: a budget's delta, the calls planned by the accountant, and charges.

``Budget(epsilon, delta)`` with ``delta > 0`` also takes calls made with ``delta > 0``. Such a call is
planned before anything is computed: :func:`dpmo.calls.call_budget` asks the accountant
(:mod:`dpmo.accounting`) for the epsilons of its mechanism calls (all of them counted together: the picks
of a selection, every pick of a DP-MOET fit), reserves the call's ``(epsilon, delta)`` in the budget
(refused, nothing computed, when either does not fit) and returns a budget *of the call* whose slots are
those epsilons: each record of the call must take the next slot, at most its epsilon and of its kind (a
bounded-range slot takes no pure mechanism), so the mechanisms that run are the ones the accountant
certified. Records keep each pick's epsilon; the call is charged ``(epsilon, delta)`` as a whole when its
first record is made.

Between calls the budget composes the calls' ``(epsilon_c, delta_c)`` by basic composition (the epsilons
add up, and so do the deltas; a pure spend has ``delta_c = 0``). That holds even when each call's
parameters are chosen after the earlier calls' outputs (a privacy filter: Rogers, Roth, Ullman and Vadhan
2016, "Privacy odometers and filters"); the accountant's tighter bounds hold for a sequence whose epsilons
are fixed before the data are read, which is what one call is (``docs/privacy-accounting.md``,
"Approximate DP").

:class:`ApproximateDP` is the part of :class:`dpmo.Budget` that does this (a mixin: it uses the budget's
lock, totals and records); :class:`Charge` is one entry of :attr:`dpmo.Budget.charges`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from .accounting import check_delta, mechanism_kind
from .epsilons import decimal_float_at_most, exact_epsilon, exact_text, float_at_most, readable
from .ledger import InCall

__all__ = ["ApproximateDP", "Charge", "exact_delta"]

#: Where the accounting rules are explained (named in the refusal messages).
DOCS = "docs/privacy-accounting.md"


class Charge(NamedTuple):
    """What one call (or one direct spend, or one part of a split) cost a :class:`Budget`, in both units.

    Attributes
    ----------
    what : str
        The call, e.g. ``"agg"`` or ``"split: part 1 of 2"``.
    epsilon : fractions.Fraction
        Its epsilon (for a call with ``delta > 0``: the call's composed epsilon, not a pick's).
    delta : fractions.Fraction
        Its delta (0 for a pure spend).
    """

    what: str
    epsilon: Fraction
    delta: Fraction

    def __repr__(self) -> str:
        return f"Charge(what={self.what!r}, epsilon={readable(self.epsilon)}, delta={readable(self.delta)})"


def exact_delta(delta) -> Fraction:
    """``delta`` (checked in ``[0, 1)``) as an exact Fraction, a float as the decimal it prints as.

    Examples
    --------
    >>> from dpmo.budget_calls import exact_delta
    >>> exact_delta(1e-6), exact_delta(0)
    (Fraction(1, 1000000), Fraction(0, 1))
    """
    check_delta(delta)
    return exact_epsilon(delta, "delta", allow_zero=True)


class ApproximateDP:
    """The delta of a :class:`dpmo.Budget` and its calls with ``delta > 0`` (module notes)."""

    def _init_delta(self, delta) -> None:
        self._delta = Fraction(0) if delta is None or delta == 0 else exact_delta(delta)
        self._committed_delta = Fraction(0)  # deltas of the calls made or reserved
        self._spent_delta = Fraction(0)
        self._charges: list[Charge] = []
        # a call's budget: the slots (exact epsilon, kind) its records take, in order
        self._plan: list[tuple[Fraction, str]] | None = None
        self._used = 0

    def _delta_state(self) -> tuple:
        """What a detached copy keeps (``_restore``)."""
        return self._delta, self._spent_delta, list(self._charges)

    def _remaining_epsilon(self) -> Fraction:
        if self._plan is not None:
            return sum((e for e, _ in self._plan[self._used :]), Fraction(0))
        return self._total - self._committed

    def _check_delta(self, delta) -> None:
        if delta and exact_delta(delta) > self._delta - self._committed_delta:
            raise self._exceeded(
                f"delta {delta!r} exceeds the remaining delta "
                f"{exact_text(self._delta - self._committed_delta)} of this budget (of "
                f"{exact_text(self._delta)}); nothing was computed. See {DOCS}, 'Approximate DP'"
            )

    def _repr_delta(self) -> str:
        return (
            f"Budget(epsilon={float(self._total)!r}, delta={self.delta!r}, spent=({float(self._spent)!r}, "
            f"{self.spent_delta!r}), remaining=({float(self._total - self._committed)!r}, "
            f"{self.remaining_delta!r}))"
        )

    @property
    def delta(self) -> float:
        """The total delta (0: pure DP)."""
        return float(self._delta)

    @property
    def delta_exact(self) -> Fraction:
        """The total delta as an exact Fraction."""
        return self._delta

    @property
    def spent_delta(self) -> float:
        """The deltas of the calls charged so far (basic composition: their sum)."""
        return float(self._spent_delta)

    @property
    def remaining_delta(self) -> float:
        """The delta still free to spend or reserve: the largest float whose decimal does not exceed the
        exact rest (as :attr:`remaining`), so a call with ``delta=remaining_delta`` fits (1e-22, not
        9.999999999999999e-23, after three calls of ``1e-6 / 3`` in a delta of 1e-6)."""
        return decimal_float_at_most(self._delta - self._committed_delta)

    @property
    def remaining_delta_exact(self) -> Fraction:
        return self._delta - self._committed_delta

    @property
    def charges(self) -> tuple[Charge, ...]:
        """What each call with ``delta > 0`` cost in both units, in order (its records keep each pick's
        epsilon; a pure spend costs the epsilon of its record and no delta)."""
        with self._lock:
            return tuple(self._charges)

    def report(self) -> str:
        """One line: spent and remaining, in epsilon and delta (exact), as the CLI prints it."""
        with self._lock:
            eps_left = self._remaining_epsilon()
            return (
                f"spent epsilon {exact_text(self._spent)} and delta {exact_text(self._spent_delta)} of "
                f"({exact_text(self._total)}, {exact_text(self._delta)}); remaining epsilon "
                f"{exact_text(eps_left)} and delta {exact_text(self._delta - self._committed_delta)} "
                f"({len(self.ledger)} mechanism call(s))"
            )

    # ------------------------------------------------------------------------------------ calls (delta > 0)
    def planned(self, k: int) -> list[Fraction] | None:
        """The exact epsilons of the next ``k`` slots of a call's budget (:func:`dpmo.calls.call_budget`),
        or None (another budget, or fewer than ``k`` slots left). A selection run inside a planned call
        runs its rounds at them."""
        with self._lock:
            if self._plan is None or len(self._plan) - self._used < k:
                return None
            return [e for e, _ in self._plan[self._used : self._used + k]]

    def _take_slots(self, share: Fraction, k: int, mechanism, what) -> bool:
        """A call's budget: check that ``k`` records of ``share`` with ``mechanism`` take the next ``k`` slots
        (each at most its slot's epsilon, of its kind), and take them; raise, recording nothing, otherwise.
        Returns whether they are the call's first records."""
        try:  # a mechanism the accountant does not know is credited as pure epsilon-DP only
            kind = None if mechanism is None else mechanism_kind(mechanism)
        except ValueError:
            kind = "pure"
        slots = self._plan[self._used : self._used + k]
        ok = len(slots) == k and all(
            share <= e and (kind != "pure" or slot_kind == "pure") for e, slot_kind in slots
        )
        if not ok:
            planned = ", ".join(f"{exact_text(e)} ({kd})" for e, kd in self._plan[self._used :]) or "none"
            raise self._exceeded(
                f"{k} record(s) of epsilon {exact_text(share)} with mechanism {mechanism!r} on {what!r} do "
                f"not take the next slot(s) of this call's plan (remaining: {planned}); nothing was "
                f"recorded. A call with delta > 0 runs only the mechanisms its plan certified; see {DOCS}, "
                "'Approximate DP'"
            )
        self._used += k
        return self._used == k

    def _spend_planned(self, share: Fraction, k: int, record, mechanism, what) -> float:
        """Record ``record`` (one Spend, or ``k`` equal rounds) in a call's budget: it takes the next ``k``
        slots. Returns the float the mechanism runs at."""
        self._record_call([record], self._take_slots(share, k, mechanism, what))
        return float_at_most(share)

    def _record_call(self, records, first: bool) -> None:
        """Record ``records`` of a call's budget in it and its parents; the call's ``(epsilon, delta)`` is
        charged (as spent) with its first records."""
        entries = [InCall(self._charges[0], r) for r in records]  # the call's rows of Budget.summary
        node = self
        while node is not None:
            if first:
                node._spent += self._total
                node._spent_delta += self._delta
            node._records.extend(entries)
            node = node._parent

    def release_unrecorded_call(self) -> bool:
        """A call's budget that recorded nothing (an error before its first mechanism): give its reserved
        ``(epsilon, delta)`` back to the budget it was reserved in, and drop its charge, so that a call that
        fails before anything runs spends nothing, with ``delta > 0`` as with ``delta = 0``
        (``docs/privacy-accounting.md``, "When the budget runs out"). Returns whether it did; a call that
        recorded anything stays charged. O(charges)."""
        with self._lock:
            parent = self._parent
            if self._plan is None or self._used or parent is None or not self._charges:
                return False
            charge = self._charges[0]
            at = next((i for i, c in enumerate(parent._charges) if c is charge), None)
            if at is None:  # released already
                return False
            del parent._charges[at]
            parent._committed -= self._total
            parent._committed_delta -= self._delta
            self._used = len(self._plan)  # nothing more may be recorded in it
            return True

    def reserve_call(self, epsilon: Fraction, delta: Fraction, plan, what: str):
        """Reserve ``(epsilon, delta)`` for one call whose mechanisms run at ``plan`` (a list of ``(exact
        epsilon, kind)`` certified by the accountant) and return the call's budget; raise
        :class:`dpmo.BudgetExceededError` (nothing reserved) when either does not fit. Used by
        :func:`dpmo.calls.call_budget`."""
        self._refuse_if_forked()
        with self._lock:
            if self._plan is not None:
                raise ValueError("a call's budget (delta > 0) cannot make another call with delta > 0")
            if epsilon > self._total - self._committed or delta > self._delta - self._committed_delta:
                raise self._exceeded(
                    f"the call {what!r} of (epsilon {exact_text(epsilon)}, delta {exact_text(delta)}) "
                    f"exceeds the remaining budget (epsilon {exact_text(self._total - self._committed)}, "
                    f"delta {exact_text(self._delta - self._committed_delta)}) exactly; nothing computed. "
                    f"Calls compose by basic composition of (epsilon, delta): see {DOCS}, 'Approximate DP'"
                )
            child = type(self).__new__(type(self))
            type(self).__init__(child, epsilon)
            child._delta = delta
            child._committed, child._committed_delta = epsilon, delta
            child._plan = list(plan)
            charge = Charge(what, epsilon, delta)  # one object: it names the call's records (InCall)
            child._charges.append(charge)
            child._parent = self
            child._lock = self._lock
            self._committed += epsilon
            self._committed_delta += delta
            self._charges.append(charge)
        return child
