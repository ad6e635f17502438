"""PrivPareto at negligible noise: every pick Pareto-optimal in the whole table (issue 38). Not in the paper.

The paper's rounds (:class:`dpmo.pareto.rounds.ParetoRounds`) count the dominators of a candidate among
the candidates *left*, so once a front point is picked the points that only it dominated score 0, as the
front does, and a later round may pick them even without noise; local dampening can also rank a dominated
candidate above its dominator (the dampened score is not monotone in the Pareto score across candidates).
When the round's noise is negligible -- a public condition on ``n_j`` and ``eps_j`` only --
:class:`ConsistentParetoRounds` scores instead

    s(r) = PS(r) + gamma H(r),     sensitivity S = (n_j - 1) + 2 gamma   (no H in round 1: S = n_j - 1)

``PS`` the paper's Pareto score on the candidates left (global sensitivity ``n_j - 1``) and ``H``
:func:`escape_or_duplicate` of the objectives in units of their global sensitivities (on values on their
sensitivity grid: 2 when ``r`` beats every earlier pick by one sensitivity unit in some objective, 1 when
``r`` equals an earlier pick, 0 when an earlier pick weakly dominates ``r`` without equalling it; values
in [0, 2], so sensitivity 2). Otherwise the round is the paper's, float for float. Proof and conditions:
``docs/pareto.md``, "PrivPareto at negligible noise" and "Copies of the picks".
"""

from __future__ import annotations

import math

import numpy as np

from ..selection import Rounds
from .rounds import ParetoRounds

__all__ = [
    "negligible_noise",
    "escape_weight",
    "escape",
    "duplicate_tie",
    "escape_or_duplicate",
    "resolution",
    "ConsistentParetoRounds",
    "RESOLVE",
    "PARETO_RESOLVE",
    "TIE_SHARE",
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


_LIM = float(np.finfo(np.float64).max) / 8.0


def negligible_noise(n_left: int, epsilon: float | None) -> bool:
    """The public condition ``x (3 n_j - 3) <= 1``, ``x = resolution(n_j, eps_j, PARETO_RESOLVE)``: the
    round's noise resolves one unit of the Pareto score after the escape term has taken its share
    (``docs/pareto.md``).

    Examples
    --------
    >>> from dpmo.pareto.consistent import negligible_noise
    >>> negligible_noise(400, 10.0), negligible_noise(400, 1e6), negligible_noise(24, 2.5e5)
    (False, True, True)
    """
    if epsilon is None or not epsilon > 0 or n_left < 2:
        return False
    return resolution(n_left, epsilon, PARETO_RESOLVE) * (3.0 * n_left - 3.0) <= 1.0


def escape_weight(n_left: int, epsilon: float) -> float:
    """``gamma = (n_j - 2) + x S`` with ``S = (3 n_j - 5) / (1 - 2 x)``: one unit of ``H``
    (:func:`escape_or_duplicate`) outweighs what the Pareto score can take back (a front point with copies
    left scores down to ``-(n_j - 2)``) by ``x S``.

    Examples
    --------
    >>> from dpmo.pareto.consistent import escape_weight
    >>> round(escape_weight(10, 1e6), 4)
    8.0011
    """
    x = resolution(n_left, epsilon, PARETO_RESOLVE)
    S = (3.0 * n_left - 5.0) / (1.0 - 2.0 * x)
    return (n_left - 2.0) + x * S


def escape(picked, candidates) -> np.ndarray:
    """``E(r) = clip(min_p max_i (r_i - p_i), 0, 1)`` for every column ``r`` of ``candidates`` (shape (m, q))
    against the columns ``p`` of ``picked`` (shape (m, p), p >= 1), both in sensitivity units: 0 when some
    ``p`` weakly dominates ``r``, 1 when ``r`` beats every ``p`` by at least one unit in some objective.
    Moves by at most 2 when every coordinate of every point moves by at most 1 (each difference by at most
    2; a maximum, a minimum and a clip are 1-Lipschitz). Non-decreasing in ``r``. O(p q m).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import escape
    >>> escape(np.array([[2.0], [2.0]]), np.array([[1.0, 3.0, 2.5], [2.0, 0.0, 1.0]])).tolist()
    [0.0, 1.0, 0.5]
    """
    return _escape_of(_differences(picked, candidates))


def _differences(picked, candidates) -> np.ndarray:
    """``r_i - p_i`` for every objective, candidate and pick, shape (m, q, p); inf - inf gives NaN quietly."""
    with np.errstate(over="ignore", invalid="ignore"):
        return candidates[:, :, None] - picked[:, None, :]


def _escape_of(diff) -> np.ndarray:
    return np.clip(np.nan_to_num(np.min(np.max(diff, axis=0), axis=1), nan=0.0), 0.0, 1.0)


def _duplicate_of(diff) -> np.ndarray:
    near = np.nan_to_num(-np.min(np.max(np.abs(diff), axis=0), axis=1), nan=-1.0)
    return np.clip(near, -1.0, 0.0) + 0.0  # + 0.0: no -0.0


def duplicate_tie(picked, candidates) -> np.ndarray:
    """``u(r) = clip(max_p min_i -|r_i - p_i|, -1, 0)`` for every column ``r`` of ``candidates`` (shape
    (m, q)) against the columns ``p`` of ``picked`` (shape (m, p), p >= 1), both in sensitivity units: 0
    when ``r`` equals some ``p`` in every objective, -1 when ``r`` is at least one unit from every ``p`` in
    some objective. Values in [-1, 0], so it moves by at most 1 between any two tables (without the clip:
    by up to 2 when every coordinate of every point moves by at most 1). O(p q m).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import duplicate_tie
    >>> P, Q = np.array([[2.0], [2.0]]), np.array([[2.0, 1.0, 2.0, 9.0], [2.0, 2.0, 2.5, 9.0]])
    >>> duplicate_tie(P, Q).tolist()
    [0.0, -1.0, -0.5, -1.0]
    """
    return _duplicate_of(_differences(picked, candidates))


def escape_or_duplicate(picked, candidates) -> np.ndarray:
    """``H(r) = max(2 E(r), 1 + u(r))`` (:func:`escape`, :func:`duplicate_tie`): the escape from the picks
    with a copy of a pick half-way. On values on their sensitivity grid: 2 when ``r`` beats every pick by
    a unit somewhere, 1 when it equals a pick, 0 when a pick weakly dominates it without equalling it.
    Values in [0, 2], so it moves by at most 2 between any two tables (the bound stated for ``E``). Off the
    grid it is not monotone (a point a quarter unit above a pick scores 0.75, its copy 1). O(p q m).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.pareto.consistent import escape_or_duplicate
    >>> escape_or_duplicate(np.array([[2.0], [2.0]]), np.array([[3.0, 2.0, 1.0], [0.0, 2.0, 2.0]])).tolist()
    [2.0, 1.0, 0.0]
    """
    diff = _differences(picked, candidates)  # once for both terms: O(p q m) memory
    return np.maximum(2.0 * _escape_of(diff), 1.0 + _duplicate_of(diff))


class ConsistentParetoRounds(Rounds):
    """PrivPareto's rounds, with the global Pareto score and the escape term at negligible noise.

    Parameters
    ----------
    objs, sensitivity, cache
        As :class:`dpmo.pareto.rounds.ParetoRounds`.
    gamma : float, optional
        Fixes the escape weight and turns the rule on in every round (audits); None: the public rule
        (:func:`negligible_noise`, :func:`escape_weight`).
    """

    def __init__(self, objs, sensitivity: str, cache, gamma=None):
        self.objs, self.sensitivity, self.cache, self.gamma = list(objs), sensitivity, cache, gamma
        self.paper = ParetoRounds(self.objs, sensitivity, cache)
        self._global = self.paper if sensitivity == "global" else None
        self.epsilon = None
        self.score_name = self.paper.score_name
        self._units = None

    def begin(self, r: int, epsilon: float) -> None:
        self.epsilon = float(epsilon)

    def units(self) -> np.ndarray:
        """(m, n): every objective divided by its global sensitivity (saturating)."""
        if self._units is None:
            with np.errstate(over="ignore", invalid="ignore"):
                self._units = np.stack(
                    [
                        np.clip(np.asarray(o.values, float) / o.global_sensitivity, -_LIM, _LIM)
                        for o in self.objs
                    ]
                )
        return self._units

    def scores(self, chosen, remaining):
        n_j = remaining.size
        on = self.gamma is not None or negligible_noise(n_j, self.epsilon)
        if not on:
            self.score_name = self.paper.score_name
            return self.paper.scores(chosen, remaining)
        if self._global is None:
            self._global = ParetoRounds(self.objs, "global", self.cache)
        ps, sens = self._global.scores(chosen, remaining)  # (PS, n_j - 1)
        self.score_name = "Pareto score (negligible noise: global sensitivity)"
        if not chosen:
            return ps, sens
        gamma = escape_weight(n_j, self.epsilon) if self.gamma is None else float(self.gamma)
        U = self.units()
        self.score_name = "Pareto score + escape from (or copy of) the earlier picks (negligible noise)"
        return ps + gamma * escape_or_duplicate(U[:, chosen], U[:, remaining]), sens + 2.0 * gamma

    def chosen(self, candidate: int) -> None:
        self.paper.chosen(candidate)
        if self._global is not None and self._global is not self.paper:
            self._global.chosen(candidate)
