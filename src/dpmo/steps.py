"""The plan of a private selection: every mechanism call in order with its public share of epsilon.

A selection (:func:`dpmo.select_multiobjective`) makes ``k`` rounds; an approach may also make private
*releases* between them (values that later rounds use, e.g. the noisy objective values of earlier picks
in :mod:`dpmo.staircase`). :class:`Step` describes one call; the shares of a plan sum to 1 and
:func:`step_parts` turns them into exact epsilons that sum to the call's budget exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = ["Step", "step_parts", "check_steps"]


class Step(NamedTuple):
    """One private mechanism call of a selection, in the order the pipeline makes them.

    Attributes
    ----------
    kind : {"round", "release"}
        A selection round (the selection's base mechanism) or a release of private values that later
        rounds use (the discrete Laplace mechanism).
    round : int
        The round (from 0) it belongs to; a release is made right before that round's scores.
    share : float
        Its public share of the call's epsilon (the shares of a plan sum to 1).
    mechanism : str or None
        ``"laplace"`` for a release; None for a round (the selection's ``mechanism``).
    """

    kind: str
    round: int
    share: float
    mechanism: str | None


def step_parts(total: Fraction, shares) -> list[Fraction]:
    """The exact epsilon of each step of a plan: ``total * shares[j]`` for all steps but the last, which
    gets the exact rest (so the steps always spend exactly ``total``). ``shares``: public positive floats
    summing to 1."""
    parts = [total * Fraction(float(x)) for x in shares[:-1]]
    parts.append(total - sum(parts, Fraction(0)))
    if parts[-1] <= 0:
        raise ValueError("shares must sum to 1")
    return parts


def check_steps(plan, k: int, name: str = "the approach") -> tuple[Step, ...] | None:
    """The steps ``plan`` of a selection of ``k`` picks (or None), checked: the ``k`` rounds in order, at
    most one release right before each round, positive shares summing to 1 (``ValueError`` naming the
    approach otherwise)."""
    if plan is None:
        return None
    plan = tuple(Step(*st) for st in plan)
    rounds = [st.round for st in plan if st.kind == "round"]
    ok = rounds == list(range(k)) and all(st.kind in ("round", "release") for st in plan)
    seen: set[int] = set()
    for i, st in enumerate(plan):
        if st.kind == "release":
            nxt = plan[i + 1] if i + 1 < len(plan) else None
            ok = ok and nxt is not None and nxt.kind == "round" and nxt.round == st.round
            ok = ok and st.round not in seen and st.mechanism == "laplace"
            seen.add(st.round)
    shares = np.array([st.share for st in plan], dtype=np.float64)
    ok = ok and bool(np.all(np.isfinite(shares)) and np.all(shares > 0)) and abs(shares.sum() - 1.0) <= 1e-9
    if not ok:
        raise ValueError(
            f"approach {name!r}: its steps must be the {k} rounds in order, each after at most one "
            f"release, with positive shares summing to 1; got {plan!r}"
        )
    return plan
