"""Exhaustive checks of privacy claims on enumerated small inputs.

These functions are what the test suite uses to prove, by brute force, that a shipped sensitivity function
is admissible and that a mechanism's output distributions on neighbouring inputs differ by at most
``e^epsilon``. They are public so that users can audit their own utilities the same way.

A *state* is any hashable description of a private input (a tuple of counts, a bitmask of edges...),
``neighbours(state)`` lists the states at distance 1 under the neighbouring relation being audited, and
``utility(state)`` / ``delta(state, t)`` return arrays over the same ``n`` candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from ._validation import check_int

__all__ = [
    "Violation",
    "check_admissibility",
    "local_sensitivity_at_distance",
    "max_log_ratio",
    "max_dampened_change",
]


@dataclass(frozen=True)
class Violation:
    """One failure of an admissibility condition.

    ``condition`` is 1 (``delta(x, 0, r) >= |u(x, r) - u(y, r)|``) or 2
    (``delta(x, t + 1, r) >= delta(y, t, r)``); ``value`` is the left side and ``required`` the right side.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.audit import Violation, check_admissibility
    >>> found = check_admissibility(range(3), lambda x: [x + 1], lambda x: np.array([2.0 * x]),
    ...                             lambda x, t: np.array([1.0]), t_max=1)
    >>> isinstance(found[0], Violation), found[0].value < found[0].required
    (True, True)
    """

    condition: int
    state: Hashable
    neighbour: Hashable
    t: int
    candidate: int
    value: float
    required: float


class _Cache:
    """``func`` memoised per state; each value checked once: real, finite, ``ndim`` axes, and the same
    length as the first value (the number of candidates). An audit cannot compare a NaN: it is an error
    naming ``name`` and the state, never a silent pass."""

    def __init__(self, func, name: str = "utility", ndim: int = 1, peer: _Cache | None = None):
        self.func, self.name, self.ndim, self.peer = func, name, ndim, peer
        self.store: dict = {}
        self.n: int | None = None

    def __call__(self, *key):
        if key in self.store:
            return self.store[key]
        try:
            value = np.asarray(self.func(*key), dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{self.name} must return real numbers (at state {key[0]!r})") from None
        if self.n is None and self.peer is not None:
            self.n = self.peer.n
        if value.ndim != self.ndim or (self.n is not None and value.shape[-1] != self.n):
            what = "a 1-D array" if self.ndim == 1 else "one array per t"
            raise ValueError(
                f"{self.name} must return {what} of one value per candidate (at state {key[0]!r}: shape "
                f"{value.shape})"
            )
        if not np.all(np.isfinite(value)):
            raise ValueError(f"{self.name} returned a value that is not finite (at state {key[0]!r})")
        self.n = value.shape[-1]
        self.store[key] = value
        return value


def check_admissibility(
    states: Iterable[Hashable],
    neighbours: Callable[[Hashable], Iterable[Hashable]],
    utility: Callable[[Hashable], np.ndarray],
    delta: Callable[[Hashable, int], np.ndarray],
    t_max: int,
    *,
    atol: float = 1e-12,
    max_violations: int = 50,
) -> list[Violation]:
    """Check both admissibility conditions (the paper's Definition "Admissibility") by brute force.

    For every ``x`` in ``states``, every neighbour ``y`` of ``x`` and every candidate ``r``:
    condition 1, ``delta(x, 0, r) >= |u(x, r) - u(y, r)|``;
    condition 2, ``delta(x, t + 1, r) >= delta(y, t, r)``
    for ``0 <= t < t_max``. Neighbours outside ``states`` are evaluated too (utility and delta are
    functions of the state), so no boundary effect weakens the check.

    Returns
    -------
    list of Violation
        Empty when both conditions hold everywhere (at most ``max_violations`` are kept).

    Notes
    -----
    O(len(states) * degree * t_max * n) comparisons, vectorised over the pairs ``(x, y)``, ``t`` and the
    candidates (memory O(states met * t_max * n)); ``utility`` is called once per state met and ``delta``
    once per state met and distance ``t <= t_max``. The violations, when there are any, are listed by a loop
    over the states in their order.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.audit import check_admissibility
    >>> # states: integers 0..5, neighbours differ by 1; utility of the single candidate: the state itself
    >>> states = range(6)
    >>> neighbours = lambda x: [x - 1, x + 1]
    >>> utility = lambda x: np.array([float(x)])
    >>> check_admissibility(states, neighbours, utility, lambda x, t: np.array([1.0]), t_max=3)
    []
    >>> bad = check_admissibility(states, neighbours, utility, lambda x, t: np.array([0.5]), t_max=3)
    >>> bad[0].condition  # |u(x) - u(y)| = 1 exceeds delta(x, 0) = 0.5
    1
    """
    t_max = check_int(t_max, "t_max", minimum=0)
    u = _Cache(utility, "utility")
    curve = _Cache(lambda x: [delta(x, t) for t in range(t_max + 1)], "delta", ndim=2, peer=u)
    states = list(states)
    adj = [list(neighbours(x)) for x in states]
    if not _any_violation(states, adj, u, curve, atol):
        return []
    # some pair fails: list the violations in the order of the states, neighbours, t and candidates
    out: list[Violation] = []
    for x, nbrs in zip(states, adj, strict=True):
        ux = u(x)
        cx = curve(x)  # delta(x, t) for t = 0..t_max, one row each
        for y in nbrs:
            gap = np.abs(ux - u(y))
            bad = np.nonzero(cx[0] < gap - atol)[0]
            for r in bad[: max_violations - len(out)]:
                out.append(Violation(1, x, y, 0, int(r), float(cx[0, r]), float(gap[r])))
            lhs, rhs = cx[1:], curve(y)[:-1]  # every t < t_max at once (row t: delta(x, t + 1), delta(y, t))
            ts, rs = np.nonzero(lhs < rhs - atol)  # in the order of t, then of the candidate
            for t, r in zip(ts[: max_violations - len(out)], rs, strict=False):
                out.append(Violation(2, x, y, int(t), int(r), float(lhs[t, r]), float(rhs[t, r])))
            if len(out) >= max_violations:
                return out
    return out


def _pair_index(states: list, adj: list) -> tuple[list, np.ndarray, np.ndarray]:
    """The states met (``states`` and their neighbours, each once, in the order first met) and, for every
    pair ``(x, y ~ x)`` in the order of ``states`` and ``adj``: ``[position of x in states, index of x in
    met]`` and the index of ``y`` in met."""
    index: dict = {}
    met: list = []
    xs: list[tuple[int, int]] = []
    ys: list[int] = []
    for p, (x, nbrs) in enumerate(zip(states, adj, strict=True)):
        i = index.setdefault(x, len(met))
        if i == len(met):
            met.append(x)
        for y in nbrs:
            j = index.setdefault(y, len(met))
            if j == len(met):
                met.append(y)
            xs.append((p, i))
            ys.append(j)
    return met, np.array(xs, dtype=np.intp).reshape(-1, 2), np.array(ys, dtype=np.intp)


def _any_violation(
    states: list, adj: list, u: _Cache, curve: _Cache, atol: float, block: int = 1 << 15
) -> bool:
    """Whether any pair ``(x, y ~ x)`` breaks a condition: the comparisons of :func:`check_admissibility`,
    elementwise the same, on stacked arrays (blocks of ``block`` pairs). Falls back to True (the exact loop)
    unless every utility has one shape and every row of delta that shape too."""
    met, xs, ys = _pair_index(states, adj)
    if not met:
        return False
    us, cs = [u(z) for z in met], [curve(z) for z in met]
    shapes = {a.shape for a in us}, {c.shape[1:] for c in cs}, {c.shape for c in cs}
    if len(shapes[0]) > 1 or len(shapes[2]) > 1 or shapes[0] != shapes[1]:
        return True
    U, C = np.stack(us), np.stack(cs)
    xi, yi = xs[:, 1], ys
    for lo in range(0, xi.size, block):
        bx, by = xi[lo : lo + block], yi[lo : lo + block]
        cx = C[bx]
        if np.any(cx[:, 0] < np.abs(U[bx] - U[by]) - atol) or np.any(cx[:, 1:] < C[by, :-1] - atol):
            return True
    return False


def local_sensitivity_at_distance(
    states: Iterable[Hashable],
    neighbours: Callable[[Hashable], Iterable[Hashable]],
    utility: Callable[[Hashable], np.ndarray],
    t_max: int,
) -> dict[Hashable, np.ndarray]:
    """Exact element local sensitivity at distance t (the paper's Definition "Element Local Sensitivity").

    ``LS(x, 0, r) = max_{y ~ x} |u(x, r) - u(y, r)|`` and
    ``LS(x, t, r) = max(LS(x, t - 1, r), max_{y ~ x} LS(y, t - 1, r))``.

    Returns
    -------
    dict
        ``state -> array of shape (t_max + 1, n)``.

    Notes
    -----
    ``LS(x, t)`` needs every state within distance ``t`` of ``x``: it is exact for the states whose
    ``t``-ball lies inside ``states`` and a lower bound for the others (enumerate a margin of ``t_max``
    around the states you check). Time O(len(states) * degree * t_max * n), vectorised over the states and
    the candidates at each ``t``; memory O(len(states) * degree * n); ``utility`` called once per state met.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.audit import local_sensitivity_at_distance
    >>> # utility min(x, 3) on states 0..9 with neighbours x +- 1: it moves by 1 below 3, by 0 above
    >>> ls = local_sensitivity_at_distance(range(10), lambda x: [x - 1, x + 1],
    ...                                    lambda x: np.array([float(min(x, 3))]), t_max=2)
    >>> ls[8][:, 0].tolist()  # far from 3: no change within distance 2
    [0.0, 0.0, 0.0]
    >>> ls[5][:, 0].tolist()  # distance 2 reaches state 3, whose neighbour 2 differs by 1
    [0.0, 0.0, 1.0]
    """
    states = list(states)
    u = _Cache(utility)
    pos = {x: i for i, x in enumerate(states)}
    adj = [list(neighbours(x)) for x in states]
    level = np.zeros((len(states), *u(states[0]).shape) if states else (0, 0))  # row i: LS(states[i], 0)
    met, xs, ys = _pair_index(states, adj)
    us = [u(z) for z in met]
    if len({a.shape for a in us}) == 1 and us[0].shape == level.shape[1:]:  # every pair at once
        U = np.stack(us)
        np.maximum.at(level, xs[:, 0], np.abs(U[xs[:, 1]] - U[ys]))  # max: exact in any order
    else:
        for i, x in enumerate(states):
            ux = u(x)
            for y in adj[i]:
                np.maximum(level[i], np.abs(ux - u(y)), out=level[i])
    # the neighbours inside ``states``: an index matrix padded with the state itself (max is idempotent)
    inside = [[pos[y] for y in nb if y in pos] for nb in adj]
    nbr = np.tile(np.arange(len(states))[:, None], (1, max(map(len, inside), default=0) + 1))
    for i, row in enumerate(inside):
        nbr[i, 1 : 1 + len(row)] = row
    out = [level]
    for _ in range(t_max):
        level = level[nbr].max(axis=1)
        out.append(level)
    stacked = np.stack(out, axis=1)  # (states, t_max + 1, n)
    return {x: stacked[i] for i, x in enumerate(states)}


def max_log_ratio(p, q, *, log: bool = False) -> float:
    """``max_r |log p_r - log q_r|`` of two output distributions (inf when one is 0 and the other not).

    With ``log=True`` the inputs are already log-probabilities. A mechanism is epsilon-DP on a pair of
    neighbouring inputs exactly when this is at most epsilon.

    Examples
    --------
    >>> import math
    >>> from dpmo.audit import max_log_ratio
    >>> p, q = [0.5, 0.5], [0.25, 0.75]
    >>> max_log_ratio(p, q) == math.log(2)  # the first output: log(0.5 / 0.25)
    True
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        lp, lq = (p, q) if log else (np.log(p), np.log(q))
        both_zero = np.isneginf(lp) & np.isneginf(lq)
        diff = np.abs(np.where(both_zero, 0.0, lp - lq))
    diff = np.where(np.isnan(diff), np.inf, diff)
    return float(diff.max()) if diff.size else 0.0


def max_dampened_change(
    states: Iterable[Hashable],
    neighbours: Callable[[Hashable], Iterable[Hashable]],
    dampened: Callable[[Hashable], np.ndarray],
) -> float:
    """``max |D(x, r) - D(y, r)|`` over states, neighbours and candidates (local dampening needs <= 1).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.audit import max_dampened_change
    >>> max_dampened_change(range(5), lambda x: [x + 1], lambda x: np.array([0.5 * x, 2.0]))
    0.5
    """
    D = _Cache(dampened, "dampened")
    worst = 0.0
    for x in states:
        dx = D(x)
        for y in neighbours(x):
            if dx.size:
                worst = max(worst, float(np.max(np.abs(dx - D(y)))))
    return worst
