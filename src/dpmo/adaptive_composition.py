"""The optimal adaptive composition of bounded-range and pure mechanisms, bounded from above on a grid.

:func:`dpmo.accounting.adaptive_delta` is :func:`adaptive_delta` here; the accountant (:mod:`dpmo.accounting`)
takes the smallest of it, zCDP and basic composition. The proof is in ``docs/privacy-accounting.md``
("Approximate DP", "The adaptive recursion on a grid"); in short:

* ``V_0(l) = (1 - exp(epsilon - l))_+`` and ``V_j(l) = sup E_P[V_{j-1}(l + L)]`` over the privacy-loss
  distributions ``L`` of mechanism ``k - j + 1`` (Dong, Durfee and Rogers 2020, Section 6), so that
  ``V_k(0)`` is the worst ``delta(epsilon)`` of every adaptive composition. Every ``V_j`` is non-decreasing
  in ``l`` and, as a function of ``y = exp(-l)``, convex (``V_0`` is; a supremum of expectations of convex
  functions is convex).
* By convexity the worst pair of an ``e``-bounded-range mechanism is a two-point generalised randomised
  response with losses ``t`` and ``t - e`` (probability ``(e^e - e^t) / (e^e - 1)`` of ``t``), ``t`` in
  ``[0, e]`` chosen by the adversary; of a pure ``e``-DP one, randomised response (losses ``+-e``). A wider
  pair (``e`` rounded up) dominates a narrower one.
* Only grid values ``W_j(n h) >= V_j(n h)`` are kept. Between grid points the bound used is the chord in
  ``y`` (piecewise linear interpolation in ``exp(-l)``): above ``V_j`` there by convexity. For a cell of
  ``t`` on which neither loss crosses a grid point, the two-point expectation of the chords is
  ``C u + B + A / u`` in ``u = exp(-t)``, so its supremum over the cell is at most the larger value at the
  cell's ends plus ``max(0, -A) (exp(t_b / 2) - exp(t_a / 2))^2`` (the largest gap between ``1/u`` and
  its chord). No loss is rounded: the bound loses only the chord's second-order gap, O(h^2).
* The grid covers the losses that matter, ``[-X, max(epsilon, rho) + X]`` with ``X`` twelve standard
  deviations of the total loss (Hoeffding: ``exp(-72)``) plus two steps: below it ``W_j`` is its bottom
  value (``V_j`` is non-decreasing), above it 1. Both only raise the bound, so the result stays an upper
  bound; they only cut the work (O(sqrt(k)) grid points instead of O(k)).

Layering: the ground floor, beside :mod:`dpmo.accounting` (which re-exports :func:`adaptive_delta`);
imports only numpy.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["adaptive_delta", "grid_step"]

#: A conservative margin: the float recursion is trusted to this relative error, and to 2^-50 absolute per
#: step (each step is a convex combination of values in [0, 1]), and no closer.
_MARGIN = 1e-9
_ABS_PER_STEP = 2.0**-50
#: Work (array elements touched) allowed for one evaluation of the recursion: WORK, or WORK_PER_STEP per
#: mechanism for long calls (more than 125 mechanisms), so that the grid keeps a few steps per epsilon.
WORK = 1_500_000
WORK_PER_STEP = 12_000
#: Grid steps tried, as fractions 1/m of the smallest epsilon, finest first.
_STEPS = (64, 48, 32, 24, 16, 12, 8, 6, 4, 3, 2, 1)


def _window(epsilon: float, eps: np.ndarray, kinds) -> tuple[float, float]:
    """The losses the grid covers, ``[low, high]`` (module notes)."""
    pure = np.asarray([kd == "pure" for kd in kinds])
    rho = float(np.sum(np.where(pure, 0.5, 0.125) * eps * eps))
    reach = float(eps.sum())
    spread = 12.0 * math.sqrt(2.0 * rho) + 2.0 * float(eps.max())
    low = max(-reach, -spread)
    high = min(reach, max(epsilon, rho, 0.0) + spread)
    return low, max(high, low + float(eps.max()))


def grid_step(
    epsilon: float, eps: np.ndarray, kinds, work: int | None = None, finest: int = 64
) -> float | None:
    """The grid step of :func:`adaptive_delta`: ``1/m`` of the smallest epsilon for the largest ``m`` in
    64, 48, ..., 1 (at most ``finest``) whose work fits in ``work`` array elements (default: :data:`WORK`
    or :data:`WORK_PER_STEP` per mechanism, the larger; equal pure steps: ``m = 1``, exact); None when
    even ``m = 1`` does not (very long calls: the recursion is not tried).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.adaptive_composition import grid_step
    >>> h = grid_step(1.0, np.full(10, 0.15), ["bounded_range"] * 10)
    >>> round(0.15 / h)
    64
    """
    work = max(WORK, WORK_PER_STEP * eps.size) if work is None else work
    low, high = _window(epsilon, eps, kinds)
    smallest = float(eps.min())
    bounded = np.asarray([kd == "bounded_range" for kd in kinds])
    if not bounded.any() and float(eps.max()) == smallest:  # equal pure steps: exact on their own grid
        return smallest if (high - low) / smallest * eps.size <= work else None
    values, counts = np.unique(eps[bounded], return_counts=True)
    for m in (m for m in _STEPS if m <= finest):
        h = smallest / m
        while Fraction(m) * Fraction(h) < Fraction(smallest):  # m h >= smallest exactly: on the grid
            h = math.nextafter(h, math.inf)
        points = (high - low) / h + 2.0 * float(eps.max()) / h + 8.0
        cells = 2.0 * float((~bounded).sum()) + sum(
            float(c) * _breakpoints(float(e), h)[1].size for e, c in zip(values, counts, strict=True)
        )
        if points * cells <= work:
            return h
    return None


def _breakpoints(e: float, h: float) -> tuple[float, np.ndarray]:
    """The width a step is run at and the breakpoints of ``t`` in units of ``h``, where a loss of the pair
    crosses a grid point. On the grid (``e / h`` within 1e-9 of an integer ``r`` with ``r h >= e``
    exactly): width ``r h`` (rounded up: a wider pair dominates) and ``0, 1, ..., r``. Else ``e`` itself and
    the union of ``t = a h`` and ``t = e - a h``."""
    r = max(1, round(e / h))
    if abs(r - e / h) <= 1e-9 and Fraction(r) * Fraction(h) >= Fraction(e):
        return r * h, np.arange(r + 1, dtype=np.float64)
    a = np.arange(math.floor(e / h) + 1, dtype=np.float64)
    s = np.concatenate([a, e / h - a, [0.0, e / h]])
    return e, np.unique(np.clip(s, 0.0, e / h))


class _Grid:
    """Values ``W`` on the grid ``n h`` for ``n`` in ``[lo, hi]``, padded below with the bottom value and
    above with 1 (``pad`` points each side), and the chord interpolation between them."""

    def __init__(self, h: float, lo: int, hi: int, pad: int):
        self.h, self.lo, self.hi, self.pad = h, lo, hi, pad
        self.q = math.exp(-h)
        self.index = np.arange(hi - lo + 1)  # state n = lo + index

    def padded(self, w: np.ndarray) -> np.ndarray:
        return np.concatenate([np.full(self.pad, w[0]), w, np.ones(self.pad)])

    def at(self, v: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """Chord values at loss ``l + offset`` (offsets in units of ``h``, any real) for every state ``l``,
        one row per offset: ``v`` padded, rows ``(len(offset), states)``."""
        offset = np.asarray(offset, dtype=np.float64)
        base = np.floor(offset).astype(np.int64)
        frac = offset - base
        rows = np.lib.stride_tricks.sliding_window_view(v, self.index.size)  # rows[j] = v[j : j + n]
        lower = rows[self.pad + base]
        if not frac.any():  # on the grid
            return lower
        # weight of the lower grid point: (exp(-frac h) - exp(-h)) / (1 - exp(-h)), in [0, 1]
        w = np.clip((np.exp(-frac * self.h) - self.q) / (1.0 - self.q), 0.0, 1.0)[:, None]
        return w * lower + (1.0 - w) * rows[self.pad + base + 1]

    def intercepts(self, v: np.ndarray) -> np.ndarray:
        """Intercept at ``y = 0`` of each chord segment ``[n, n + 1]`` as a line in ``y = exp(-l)``."""
        return (v[1:] - self.q * v[:-1]) / (1.0 - self.q)


def _bounded_range_step(grid: _Grid, v: np.ndarray, e: float) -> np.ndarray:
    """``W_j`` at every state from the padded ``W_{j-1}`` for an ``e``-bounded-range mechanism."""
    h = grid.h
    e, s = _breakpoints(e, h)  # s: breakpoints of t in units of h
    r = e / h
    big = math.expm1(e)  # E - 1
    p = np.clip((big - np.expm1(s * h)) / big, 0.0, 1.0)  # probability of the high loss t
    ends = p[:, None] * grid.at(v, s) + (1.0 - p)[:, None] * grid.at(v, s - r)  # the pair at each t
    if s.size < 2:
        return ends.max(axis=0)
    # each cell [t_a, t_b] (module notes): in u = exp(-t) the pair's value is F(u) = C u + B + A / u with
    # A = (a_lo - a_hi) / (E - 1), C = E (b_hi - b_lo) / (E - 1) from the two chords' lines a + b u.
    # Every cell: at most the larger end plus max(0, -A) times the gap of 1/u to its chord.
    mids = 0.5 * (s[:-1] + s[1:])
    c_hi, c_lo = np.floor(mids).astype(np.int64), np.floor(mids - r).astype(np.int64)
    n = grid.index.size
    icept = np.lib.stride_tricks.sliding_window_view(grid.intercepts(v), n)
    coef_a = (icept[grid.pad + c_lo] - icept[grid.pad + c_hi]) / big
    u_all = np.exp(-h * s)
    gap = (1.0 / np.sqrt(u_all[1:]) - 1.0 / np.sqrt(u_all[:-1])) ** 2
    cells = np.maximum(ends[:-1], ends[1:]) - np.minimum(coef_a, 0.0) * gap[:, None]
    # the two cells beside each state's best end: also below the tangent of the concave F (A < 0) at its
    # stationary point clipped into the cell (F is below every tangent); the smaller bound is kept
    best = ends.argmax(axis=0)
    cols = grid.index
    for j in (np.maximum(best - 1, 0), np.minimum(best, s.size - 2)):
        a = coef_a[j, cols]
        rows = grid.pad + cols
        hi0, lo0 = rows + c_hi[j], rows + c_lo[j]
        a_hi, a_lo = icept[grid.pad + c_hi[j], cols], icept[grid.pad + c_lo[j], cols]
        b_hi = (v[hi0] - v[hi0 + 1]) / (1.0 - grid.q) * np.exp(c_hi[j] * h)  # slopes in u (low loss: E u)
        b_lo = (v[lo0] - v[lo0 + 1]) / (1.0 - grid.q) * np.exp(c_lo[j] * h)
        c = (b_hi - b_lo) * (big + 1.0) / big
        u_a, u_b = u_all[j], u_all[j + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            star = np.where((a < 0) & (c < 0), np.sqrt(a / c), u_a)
        u0 = np.clip(np.nan_to_num(star, nan=u_a), u_b, u_a)
        p0 = ((big + 1.0) * u0 - 1.0) / (u0 * big)  # probability of the high loss at u0
        f0 = p0 * (a_hi + b_hi * u0) + (1.0 - p0) * (a_lo + b_lo * (big + 1.0) * u0)
        slope = c - a / (u0 * u0)
        tangent = f0 + np.maximum(slope * (u_a - u0), slope * (u_b - u0))
        larger = np.maximum(ends[j, cols], ends[j + 1, cols])
        cells[j, cols] = np.where(a < 0, np.minimum(cells[j, cols], np.maximum(tangent, larger)), larger)
    return cells.max(axis=0)


def _pure_step(grid: _Grid, v: np.ndarray, e: float) -> np.ndarray:
    """``W_j`` from the padded ``W_{j-1}`` for a pure ``e``-DP mechanism (randomised response)."""
    e, s = _breakpoints(e, grid.h)
    r = e / grid.h
    p = 1.0 / (1.0 + math.exp(-e))
    vals = grid.at(v, np.array([r, -r]))
    return p * vals[0] + (1.0 - p) * vals[1]


def adaptive_delta(epsilon: float, eps: np.ndarray, kinds, *, step: float | None = None) -> float:
    """An upper bound on ``delta(epsilon)`` of every adaptive composition of mechanisms at ``eps`` of
    ``kinds`` (``"bounded_range"`` or ``"pure"``), in that order (module notes). Arguments checked by
    :func:`dpmo.accounting.adaptive_delta`. O(k P T) for ``P`` grid points (O(sqrt(k) / h)) and ``T`` cells
    of ``t`` per mechanism (``e / h``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.adaptive_composition import adaptive_delta
    >>> bound = adaptive_delta(1.0, np.full(10, 0.15), ["bounded_range"] * 10)
    >>> 4.8e-7 < bound < 1e-6  # above the non-adaptive worst case 4.84e-7, below delta = 1e-6
    True
    """
    eps = np.asarray(eps, dtype=np.float64)
    if eps.size == 0:
        return 0.0
    h = (grid_step(epsilon, eps, kinds) or float(eps.min())) if step is None else float(step)
    low, high = _window(epsilon, eps, kinds)
    # grid points epsilon + n h (V_0 is linear in exp(-l) between them: its kink is a grid point)
    lo, hi = math.floor((low - epsilon) / h) - 1, math.ceil((high - epsilon) / h) + 1
    pad = math.ceil(float(eps.max()) / h) + 3
    grid = _Grid(h, lo, hi, pad)
    w = np.maximum(-np.expm1(-(lo + grid.index) * h), 0.0)
    for e, kd in zip(eps[::-1], list(kinds)[::-1], strict=True):
        v = grid.padded(w)
        w = _bounded_range_step(grid, v, float(e)) if kd == "bounded_range" else _pure_step(grid, v, float(e))
        w = np.minimum(w, 1.0)
    x = -epsilon / h - lo  # l = 0 is state index x (not on the grid in general): the chord there
    i = math.floor(x)
    weight = min(1.0, max(0.0, (math.exp(-(x - i) * h) - grid.q) / (1.0 - grid.q)))
    value = weight * float(w[i]) + (1.0 - weight) * float(w[min(i + 1, w.size - 1)])
    return min(1.0, value * (1.0 + _MARGIN) + _ABS_PER_STEP * (eps.size + 1))
