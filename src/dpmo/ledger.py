"""A budget's records for people: :class:`Spend` (one mechanism call) and the per-call summary.

:attr:`dpmo.Budget.ledger` lists one :class:`Spend` per mechanism call, each epsilon an exact
:class:`fractions.Fraction`; their ``repr`` writes it as a float, with its decimal digits when the float is
not exact (:func:`dpmo.epsilons.readable`): ``epsilon=0.1``, or ``epsilon=0.05064735717773437 (exactly
0.05064735717773437284616733...)`` for an accountant's share. :class:`LedgerSummary` (a part of
:class:`dpmo.Budget`) groups the records by call -- one direct spend, the ``k`` rounds of one selection, or
every record of one call with ``delta > 0`` -- into rows ``(what, mechanism, calls, epsilon, delta)``
(:class:`CallSummary`): :meth:`LedgerSummary.summary_rows`, :meth:`LedgerSummary.summary` (a text table) and
:meth:`LedgerSummary.to_frame` (a pandas DataFrame; pandas is imported only there).

Nothing here changes what is recorded or how it composes: these read the records the budget keeps.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from .epsilons import readable

__all__ = ["Spend", "CallSummary", "InCall", "expand", "LedgerSummary", "FLOAT_READING"]

#: How a float argument is read (said under every summary table).
FLOAT_READING = (
    "A float epsilon or delta is read as the decimal it prints as (1e-6 / 3 prints as 3.333333333333333e-07: "
    "three of them leave 1e-22 of a delta of 1e-6); pass a fractions.Fraction, e.g. Fraction(1, 3_000_000), "
    "for shares that have no short decimal (docs/privacy-accounting.md, 'Decimal budgets')"
)


class Spend(NamedTuple):
    """One record of a :class:`Budget`'s ledger: one call of a private mechanism.

    Attributes
    ----------
    what : str
        What was selected or released, e.g. ``"priv_pareto: round 2 of 3"``.
    mechanism : str or None
        The mechanism called (``"exponential"``, ``"permute_and_flip"``, ``"laplace"``, ``"gumbel"``, ...).
    epsilon : fractions.Fraction
        The epsilon spent, exact (a float given as the decimal it prints as); the mechanism ran at most
        at it. The ``repr`` writes it as :func:`dpmo.epsilons.readable` does.
    sensitivity : float or None
        The sensitivity the mechanism was calibrated with (1 for dampened scores).
    candidates : int or None
        The number of candidates of a selection (or of released values).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpmo.budget import Spend
    >>> Spend("a count", "laplace", Fraction(1, 10), 1.0, None)
    Spend(what='a count', mechanism='laplace', epsilon=0.1, sensitivity=1.0, candidates=None)
    >>> print(Spend("a third", "laplace", Fraction(1, 3), 1.0, None))  # doctest: +ELLIPSIS
    Spend(..., epsilon=0.3333333333333333 (exactly 0.3333333333333333333333333...), sensitivity=1.0, ...)

    """

    what: str
    mechanism: str | None
    epsilon: Fraction
    sensitivity: float | None
    candidates: int | None

    def __repr__(self) -> str:
        return (
            f"Spend(what={self.what!r}, mechanism={self.mechanism!r}, epsilon={readable(self.epsilon)}, "
            f"sensitivity={self.sensitivity!r}, candidates={self.candidates!r})"
        )


class InCall(NamedTuple):
    """A record entry made inside a call with ``delta > 0``: ``charge`` is that call's :class:`Charge` (the
    same object for all its records), ``entry`` a :class:`Spend` or ``k`` equal rounds."""

    charge: object
    entry: object


def expand(entries) -> list[Spend]:
    """The ledger of a budget's record entries: a :class:`Spend`, ``k`` equal rounds ``(what, mechanism,
    epsilon, k, sensitivity, candidates)`` (``k`` records of ``epsilon / k``), or an :class:`InCall`."""
    out: list[Spend] = []
    for e in entries:
        if isinstance(e, InCall):
            e = e.entry
        if isinstance(e, Spend):
            out.append(e)
            continue
        what, mech, eps, k, sens, cand = e
        share = eps / k
        for i in range(k):
            label = f"{what}: round {i + 1} of {k}" if k > 1 else what
            out.append(Spend(label, mech, share, sens, None if cand is None else cand - i))
    return out


class CallSummary(NamedTuple):
    """One row of :meth:`LedgerSummary.summary_rows`: what one call cost.

    Attributes
    ----------
    what : str
        The call (a direct spend's ``what``; a selection's name; a call with ``delta > 0``: its name).
    mechanism : str
        Its mechanisms, comma-separated in order of first use ("" when none was named).
    calls : int
        The number of mechanism calls (ledger records) it made.
    epsilon, delta : fractions.Fraction
        What it cost, exact (a call with ``delta > 0``: its composed epsilon and delta, not the sum of
        its records' epsilons).
    """

    what: str
    mechanism: str
    calls: int
    epsilon: Fraction
    delta: Fraction

    def __repr__(self) -> str:
        return (
            f"CallSummary(what={self.what!r}, mechanism={self.mechanism!r}, calls={self.calls}, "
            f"epsilon={readable(self.epsilon)}, delta={readable(self.delta)})"
        )


def _short(value: Fraction) -> str:
    """A table cell: the float, marked ``~`` when it is not the exact value."""
    text = readable(value)
    return text if " " not in text else "~" + text.split(" ", 1)[0]


class LedgerSummary:
    """The per-call summary of a :class:`dpmo.Budget` (a part of it; module notes)."""

    def summary_rows(self) -> list[CallSummary]:
        """One :class:`CallSummary` per call, in the order the calls were made. O(records).

        Examples
        --------
        >>> import numpy as np
        >>> import dpmo
        >>> b = dpmo.Budget(1.0)
        >>> _ = dpmo.select(np.arange(5.0), 0.3, 1.0, k=3, budget=b, rng=0)
        >>> _ = b.spend(0.5, "a count", mechanism="laplace")
        >>> [(r.what, r.calls, float(r.epsilon)) for r in b.summary_rows()]
        [('select', 3, 0.3), ('a count', 1, 0.5)]
        """
        with self._lock:
            entries = list(self._records)
        rows: list[list] = []
        calls: dict[int, list] = {}
        for e in entries:
            charge = None
            if isinstance(e, InCall):
                charge, e = e.charge, e.entry
            if isinstance(e, Spend):
                what, mech, eps, n = e.what, e.mechanism, e.epsilon, 1
            else:
                what, mech, eps, n = e[0], e[1], e[2], e[3]
            if charge is not None:
                row = calls.get(id(charge))
                if row is None:
                    row = calls[id(charge)] = [charge.what, [], 0, charge.epsilon, charge.delta]
                    rows.append(row)
            else:
                row = [what, [], 0, eps, Fraction(0)]
                rows.append(row)
            if mech is not None and mech not in row[1]:
                row[1].append(mech)
            row[2] += n
        return [CallSummary(w, ", ".join(m), n, eps, d) for w, m, n, eps, d in rows]

    def summary(self) -> str:
        """The per-call summary as a text table, with the totals, the remaining budget and how a float is
        read. ``~`` marks a float that is not the exact value (:meth:`summary_rows` and :meth:`to_frame`
        keep the exact Fractions). O(records).

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> import dpmo
        >>> b = dpmo.Budget(1.0, delta=1e-6)
        >>> for _ in range(3):
        ...     _ = dpmo.select(np.arange(5.0), 0.1, 1.0, k=2, budget=b, rng=0, delta=Fraction(1, 3_000_000))
        >>> print(b.summary().splitlines()[0])
        what       mechanism    calls  epsilon  delta
        >>> print(b.summary().splitlines()[-2])
        remaining                      0.7      0
        """
        rows = self.summary_rows()
        with self._lock:
            spent, spent_delta = self._spent, self._spent_delta
            left, left_delta = self._remaining_epsilon(), self._delta - self._committed_delta
        n = sum(r.calls for r in rows)
        table = [("what", "mechanism", "calls", "epsilon", "delta")]
        table += [(r.what, r.mechanism, str(r.calls), _short(r.epsilon), _short(r.delta)) for r in rows]
        table += [
            ("total", "", str(n), _short(spent), _short(spent_delta)),
            ("remaining", "", "", _short(left), _short(left_delta)),
        ]
        widths = [max(len(row[j]) for row in table) for j in range(5)]

        def line(row) -> str:
            pairs = enumerate(zip(row, widths, strict=True))
            cells = [c.rjust(w) if j == 2 else c.ljust(w) for j, (c, w) in pairs]
            return "  ".join(cells).rstrip()

        note = "~: the nearest float of an exact value. " + FLOAT_READING
        return "\n".join([*(line(r) for r in table), note])

    def to_frame(self):
        """The per-call summary as a pandas DataFrame: columns ``what``, ``mechanism``, ``calls``, ``epsilon``
        and ``delta`` (floats) and ``epsilon_exact``, ``delta_exact`` (Fractions). pandas is imported here
        only (``pip install pandas``). O(records).

        Examples
        --------
        >>> import dpmo
        >>> b = dpmo.Budget(1.0)
        >>> _ = b.spend(0.25, "a count", mechanism="laplace")
        >>> b.to_frame()[["what", "calls", "epsilon"]].values.tolist()
        [['a count', 1, 0.25]]
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is installed with the test extra
            raise ImportError(
                "Budget.to_frame needs pandas (pip install pandas); Budget.summary() needs nothing"
            ) from None
        rows = self.summary_rows()
        return pd.DataFrame(
            {
                "what": [r.what for r in rows],
                "mechanism": [r.mechanism for r in rows],
                "calls": [r.calls for r in rows],
                "epsilon": [float(r.epsilon) for r in rows],
                "delta": [float(r.delta) for r in rows],
                "epsilon_exact": pd.Series([r.epsilon for r in rows], dtype=object),
                "delta_exact": pd.Series([r.delta for r in rows], dtype=object),
            }
        )
