"""PrivPareto at negligible noise: every pick Pareto-optimal in the whole table (issue 38). Not in the paper.

The paper's rounds (:class:`dpmo.pareto.rounds.ParetoRounds`) count the dominators of a candidate among
the candidates *left*, so once a front point is picked the points that only it dominated score 0, as the
front does, and a later round may pick them even without noise; local dampening can also rank a dominated
candidate above its dominator (the dampened score is not monotone in the Pareto score across candidates).
When the round's noise is negligible -- a public condition on ``n_j`` and ``eps_j`` only --
:class:`ConsistentParetoRounds` scores instead

    s(r) = -[r dominated among the candidates left] + gamma H(r),    sensitivity 1 + 2 gamma, gamma = 1

(no ``H`` in round 1: sensitivity 1), ``H`` :func:`escape_or_copy` of the objectives' values (2 when
``r`` exceeds every earlier pick in some objective, 1 when ``r`` equals an earlier pick and exceeds none,
0 otherwise). Both terms take a bounded set of values, so their sensitivities are their ranges (1 and 2),
whatever the data and the objectives' units: no grid of values is assumed (ego densities, rates with
fine steps). Otherwise the round is the paper's, float for float. Proof and conditions:
``docs/pareto.md``, "PrivPareto at negligible noise" and "Copies of the picks".
"""

from __future__ import annotations

import math

import numpy as np

from ..selection import Rounds
from .dominance import count_columns
from .rounds import ParetoRounds

__all__ = [
    "negligible_noise",
    "escape_or_copy",
    "dominated_among",
    "copy_groups",
    "resolution",
    "ConsistentParetoRounds",
    "RESOLVE",
    "PARETO_RESOLVE",
    "TIE_SHARE",
    "ESCAPE_WEIGHT",
]

#: ``lambda`` of the staircase's tie terms: a term is worth ``x = 2 (ln n_j + lambda) / eps_j`` per unit of
#: dominance after the division by the round's sensitivity, so the exponential mechanism prefers the better
#: of two candidates by a factor ``n_j e^lambda`` and a dominated pick has probability at most
#: ``e^-lambda`` (0.25 %) per round. Small because the tie terms' cost grows with it (``docs/pareto.md``).
RESOLVE = 6.0
#: ``lambda`` of PrivPareto's escape term (cheap: a dominated pick has probability at most ``e^-20``,
#: 2e-9, per round).
PARETO_RESOLVE = 20.0
#: ``theta``: the largest share of a round's sensitivity that the tie terms may take; beyond it the noise
#: is not negligible and the round has no tie term (``docs/pareto.md``, "Ties at negligible noise").
TIE_SHARE = 0.8
#: ``gamma``, the weight of :func:`escape_or_copy` in :class:`ConsistentParetoRounds`: with 1 the best class
#: of candidates leads every other by one unit of a score of sensitivity 3 (``docs/pareto.md``).
ESCAPE_WEIGHT = 1.0


def resolution(n_left: int, epsilon: float, lam: float) -> float:
    """``x = 2 (ln n_j + lambda) / eps_j``: a score lead of ``x`` (sensitivity 1) makes the exponential
    mechanism (and report-noisy-max with Gumbel noise; permute-and-flip favours it at least as much) prefer
    the leader to all ``n_j - 1`` others together by a factor ``e^lambda``.

    Examples
    --------
    >>> from dpmo.pareto.consistent import resolution
    >>> round(resolution(1, 2.0, 6.0), 6)
    6.693147
    """
    return 2.0 * (math.log(max(int(n_left), 2)) + float(lam)) / float(epsilon)


def negligible_noise(n_left: int, epsilon: float | None) -> bool:
    """The public condition ``3 x <= 1``, ``x = resolution(n_j, eps_j, PARETO_RESOLVE)``: a lead of one
    unit of :class:`ConsistentParetoRounds`'s score (sensitivity at most 3) makes the exponential mechanism
    prefer the leaders to the ``n_j`` others together by ``e^20`` (``eps_j >= 6 (ln n_j + 20)``: 152 at
    ``n_j`` = 200, 189 at 10^5; ``docs/pareto.md``).

    Examples
    --------
    >>> from dpmo.pareto.consistent import negligible_noise
    >>> negligible_noise(400, 10.0), negligible_noise(400, 1e6), negligible_noise(10**5, 190.0)
    (False, True, True)
    """
    if epsilon is None or not epsilon > 0 or n_left < 2:
        return False
    return 3.0 * resolution(n_left, epsilon, PARETO_RESOLVE) <= 1.0


def escape_or_copy(picked, candidates) -> np.ndarray:
    """``H(r)`` for every column ``r`` of ``candidates`` (shape (m, q)) against the columns ``p`` of
    ``picked`` (shape (m, p), p >= 1), values as declared (maximised): 2 when for every ``p`` some
    objective has ``r_i > p_i`` (no pick weakly dominates ``r``), else 1 when ``r`` equals some ``p`` in
    every objective (a copy of a pick), else 0 (a pick weakly dominates ``r`` without equalling it). Values
    in {0, 1, 2}, so it moves by at most 2 between any two inputs; no unit or grid of values enters it. It
    replaces ``max(2 E, 1 + u)``, an escape ``E`` and a copy term ``u`` in sensitivity units, which took the
    same three values only on values on their sensitivity grid (``docs/pareto.md``, "Copies of the
    picks"). O(p q m) time, O(q m) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import escape_or_copy
    >>> P = np.array([[2.0], [0.02]])
    >>> escape_or_copy(P, np.array([[2.0, 2.0, 1.0, 3.0], [0.03, 0.02, 0.5, 0.0]])).tolist()
    [2.0, 1.0, 2.0, 2.0]
    >>> escape_or_copy(P, np.array([[2.0, 1.0], [0.01, 0.02]])).tolist()
    [0.0, 0.0]
    """
    R = np.asarray(candidates, dtype=np.float64)
    P = np.asarray(picked, dtype=np.float64)
    escapes = np.ones(R.shape[1], dtype=bool)
    copies = np.zeros(R.shape[1], dtype=bool)
    for j in range(P.shape[1]):  # one pick at a time: O(q m) memory
        p = P[:, j : j + 1]
        escapes &= np.any(R > p, axis=0)
        copies |= np.all(R == p, axis=0)
    return np.where(escapes, 2.0, np.where(copies, 1.0, 0.0))


def dominated_among(points) -> np.ndarray:
    """``True`` for every column ``r`` of ``points`` (shape (m, q), maximised) that another column
    dominates (``>=`` in every objective, ``>`` in one). Values in {False, True}. O(q log q) for m <= 2,
    O(q log^(m - 1) q) beyond (:func:`dpmo.pareto.dominance.count_columns`, weak counts, minus the copies).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import dominated_among
    >>> dominated_among(np.array([[3.0, 3.0, 2.0, 0.0], [1.0, 1.0, 1.0, 2.0]])).tolist()
    [False, False, True, False]
    """
    P = np.ascontiguousarray(np.asarray(points, dtype=np.float64) + 0.0)  # + 0.0: -0.0 as 0.0
    q = P.shape[1]
    if q == 0:
        return np.zeros(0, dtype=bool)
    weak = count_columns(P, None)  # columns >= r everywhere, r and its copies included
    group = copy_groups(P)
    return weak > np.bincount(group)[group]


def copy_groups(points) -> np.ndarray:
    """One label per column of ``points`` (shape (m, q)), equal exactly for equal columns (``==``: ``-0.0``
    equals ``0.0``): a lexicographic sort, O(m q log q).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import copy_groups
    >>> copy_groups(np.array([[3.0, 1.0, 3.0, -0.0], [1.0, 2.0, 1.0, 0.0]])).tolist()
    [2, 1, 2, 0]
    """
    P = np.asarray(points, dtype=np.float64)
    q = P.shape[1]
    order = np.lexsort(P[::-1])
    S = P[:, order]
    new = np.r_[True, np.any(S[:, 1:] != S[:, :-1], axis=0)] if q else np.zeros(0, dtype=bool)
    labels = np.empty(q, dtype=np.intp)
    labels[order] = np.cumsum(new) - 1
    return labels


class ConsistentParetoRounds(Rounds):
    """PrivPareto's rounds, with a Pareto-consistent score at negligible noise.

    Parameters
    ----------
    objs, sensitivity, cache
        As :class:`dpmo.pareto.rounds.ParetoRounds`.
    gamma : float, optional
        Fixes the weight of ``H`` and turns the rule on in every round (audits); None: the public rule
        (:func:`negligible_noise`; weight :data:`ESCAPE_WEIGHT`).
    """

    def __init__(self, objs, sensitivity: str, cache, gamma=None):
        self.objs, self.sensitivity, self.cache, self.gamma = list(objs), sensitivity, cache, gamma
        self.paper = ParetoRounds(self.objs, sensitivity, cache)
        self.epsilon = None
        self.score_name = self.paper.score_name
        self._values = None

    def begin(self, r: int, epsilon: float) -> None:
        self.epsilon = float(epsilon)

    def values(self) -> np.ndarray:
        """(m, n): the objectives' values as declared."""
        if self._values is None:
            self._values = np.stack([np.asarray(o.values, dtype=np.float64) for o in self.objs])
        return self._values

    def scores(self, chosen, remaining):
        on = self.gamma is not None or negligible_noise(remaining.size, self.epsilon)
        if not on:
            self.score_name = self.paper.score_name
            return self.paper.scores(chosen, remaining)
        V = self.values()
        s = -dominated_among(V[:, remaining]).astype(np.float64)  # range [-1, 0]: sensitivity 1
        if not chosen:
            self.score_name = "dominated among the candidates left (negligible noise)"
            return s, 1.0
        gamma = ESCAPE_WEIGHT if self.gamma is None else float(self.gamma)
        self.score_name = "dominated among those left, escape from or copy of a pick (negligible noise)"
        return s + gamma * escape_or_copy(V[:, chosen], V[:, remaining]), 1.0 + 2.0 * gamma

    def chosen(self, candidate: int) -> None:
        self.paper.chosen(candidate)
