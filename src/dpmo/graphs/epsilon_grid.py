"""The smallest epsilon on the grid of multiples of 1 / 1000 at which a decreasing mass falls to a bound.

The search behind :func:`dpmo.graphs.staircase_rules.top_pick_epsilon`: a bisection of ``[0, hi]``, then the
grid point just above, stepped up while the float rounding leaves the mass above the bound. Every loop has
a fixed number of steps, so the search ends for every input (an epsilon near 10^45, where a step of 1/1000
does not move a float, once looped forever).
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["grid_epsilon"]

_BISECTIONS = 60  # halvings of [0, hi]
_UNIT_STEPS = 100  # steps of 1/1000 once on the grid (0 or 1 on the library's inputs)
_DOUBLINGS = 1100  # of hi where the grid cannot be written, until past the largest float


def grid_epsilon(mass: Callable[[float], float], hi: float, miss: float) -> float:
    """The smallest multiple of 1 / 1000 (at least 1 / 1000) with ``mass(eps) <= miss``, for ``mass``
    non-increasing in ``eps`` and ``hi`` an upper bound of the answer; ``inf`` when none is found.

    Bisection of ``[0, hi]`` (60 steps), the grid point above, then at most 100 steps of 1/1000 (float
    rounding). Where the grid of 1/1000 cannot be written at the answer's size (above about 10^13), or the
    steps do not reach the bound, the bisection's upper end, doubled until the mass meets the bound (at
    most 1,100 times: past the largest float, ``inf``). O(1) calls of ``mass`` (at most 1,260).

    Examples
    --------
    >>> import math
    >>> from dpmo.graphs.epsilon_grid import grid_epsilon
    >>> grid_epsilon(lambda e: 10.0 * math.exp(-e), 50.0, 1.0)  # ln 10 = 2.3026 -> 2.303
    2.303
    >>> grid_epsilon(lambda e: 1.0, 50.0, 0.5)  # never at the bound
    inf
    """
    if not math.isfinite(hi):
        return math.inf
    lo = 0.0
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if mass(mid) <= miss else (mid, hi)
    scaled = hi * 1000.0
    if math.isfinite(scaled) and hi + 0.001 != hi:
        eps = max(math.ceil(scaled - 1e-9) / 1000.0, 0.001)
        for _ in range(_UNIT_STEPS):  # the rounding kept on the right side
            if mass(eps) <= miss:
                return round(eps, 3)
            eps += 0.001
    for _ in range(_DOUBLINGS):  # off the grid (or the bound's float rounding): hi, doubled until it holds
        if mass(hi) <= miss:
            return hi
        hi *= 2.0
        if not math.isfinite(hi):
            break
    return math.inf
