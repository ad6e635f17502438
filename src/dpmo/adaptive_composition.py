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

The step of a bounded-range mechanism, O(states x cells of ``t``), is one compiled loop
(:func:`_bounded_range_cells`, numba, compiled on first use and cached on disk), the same float operations
in the same order as the numpy expressions it replaced: the same bound, bit for bit.

Layering: the ground floor, beside :mod:`dpmo.accounting` (which re-exports :func:`adaptive_delta`);
imports only numpy (numba inside :func:`_kernel`, when the recursion first runs).
"""

from __future__ import annotations

import functools
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
#: A bounded-range step above this epsilon is accounted as a pure one: ``exp(e)`` of its plan would leave the
#: floats (from 709.8), and every ``e``-bounded-range mechanism is ``e``-DP, so the pure step's worst pair
#: (randomised response) bounds it from above too (Dong, Durfee and Rogers 2020: bounded range ``e``
#: implies pure ``e``-DP). The bound stays an upper bound; it is only less tight for such steps.
BOUNDED_RANGE_LIMIT = 700.0


def _accounted_kinds(eps: np.ndarray, kinds) -> list[str]:
    """``kinds`` with every bounded-range step above :data:`BOUNDED_RANGE_LIMIT` read as pure."""
    return [
        "pure" if kd == "bounded_range" and float(e) > BOUNDED_RANGE_LIMIT else kd
        for e, kd in zip(eps, kinds, strict=True)
    ]


def _window(epsilon: float, eps: np.ndarray, kinds) -> tuple[float, float]:
    """The losses the grid covers, ``[low, high]`` (module notes)."""
    pure = np.asarray([kd == "pure" for kd in kinds])
    with np.errstate(over="ignore"):  # steps above 1e154: rho is inf, and the window is the reach
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
    kinds = _accounted_kinds(eps, kinds)
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
        fewest = 2.0 * float((~bounded).sum()) + sum(
            float(c) * (float(e) / h + 1.0) for e, c in zip(values, counts, strict=True)
        )
        if not points * fewest <= work:  # even the fewest breakpoints do not fit: not counted (no array)
            continue
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
        self._v = np.ones(self.index.size + 2 * pad)

    def padded(self, w: np.ndarray) -> np.ndarray:
        """``w`` with ``pad`` copies of ``w[0]`` below and ``pad`` ones above (one buffer, rewritten)."""
        v = self._v
        v[: self.pad] = w[0]
        v[self.pad : self.pad + w.size] = w
        return v

    def offsets(self, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For offsets (in units of ``h``, any real): the padded index of each one's lower grid point at state
        0 and the chord's weights of it and of the next grid point (both empty when every offset is on the
        grid)."""
        offset = np.asarray(offset, dtype=np.float64)
        base = np.floor(offset).astype(np.int64)
        frac = offset - base
        if not frac.any():  # on the grid
            return self.pad + base, np.zeros(0), np.zeros(0)
        # weight of the lower grid point: (exp(-frac h) - exp(-h)) / (1 - exp(-h)), in [0, 1]
        w = np.clip((np.exp(-frac * self.h) - self.q) / (1.0 - self.q), 0.0, 1.0)
        return self.pad + base, w, 1.0 - w

    def reader(self, offset: np.ndarray) -> tuple:
        """What :meth:`at` needs for these offsets (:meth:`offsets`), computed once: the padded indices of
        each offset's lower grid point for every state, and the chord's weights (None on the grid)."""
        at, w, w_up = self.offsets(offset)
        lower = at[:, None] + self.index  # v[lower][j] = v[pad + base[j] : ...][: states]
        if not w.size:
            return lower, None, None, None
        return lower, lower + 1, w[:, None], w_up[:, None]

    @staticmethod
    def at(v: np.ndarray, reader: tuple) -> np.ndarray:
        """Chord values at loss ``l + offset`` for every state ``l``, one row per offset of ``reader``
        (:meth:`reader`): ``v`` padded, rows ``(len(offset), states)``."""
        lower, upper, w, w_up = reader
        if w is None:
            return v[lower]
        return w * v[lower] + w_up * v[upper]


class _BoundedPlan:
    """The parts of an ``e``-bounded-range step that depend on ``e`` and the grid only, not on ``W``:
    computed once per distinct ``e`` of a call (a call of ``k`` equal picks runs ``k`` steps of one plan),
    as the flat arguments of :func:`_bounded_range_cells` (:attr:`args`)."""

    def __init__(self, grid: _Grid, e: float):
        h = grid.h
        e, s = _breakpoints(e, h)  # s: breakpoints of t in units of h
        r = e / h
        self.big = big = math.expm1(e)  # E - 1
        p = np.clip((big - np.expm1(s * h)) / big, 0.0, 1.0)  # probability of the high loss t
        cells = max(s.size - 1, 0)
        if cells:
            mids = 0.5 * (s[:-1] + s[1:])
            c_hi, c_lo = np.floor(mids).astype(np.int64), np.floor(mids - r).astype(np.int64)
            u_all = np.exp(-h * s)
            # exp(c h) of each cell's two grid points (the slopes in u of the chords there) and the largest
            # gap between 1/u and its chord on each cell
            exp_hi, exp_lo = np.exp(c_hi * h), np.exp(c_lo * h)
            gap = (1.0 / np.sqrt(u_all[1:]) - 1.0 / np.sqrt(u_all[:-1])) ** 2
        else:  # one breakpoint: no cell
            c_hi = c_lo = np.zeros(0, dtype=np.int64)
            u_all = exp_hi = exp_lo = gap = np.zeros(0)
        pad_hi, pad_lo = grid.pad + c_hi, grid.pad + c_lo  # their padded indices at state 0
        readers = (*grid.offsets(s), *grid.offsets(s - r))  # the high and the low loss at each breakpoint
        self.args = (p, 1.0 - p, *readers, pad_hi, pad_lo, exp_hi, exp_lo, u_all, gap)


def _bounded_range_cells(
    v, n, p_hi, p_lo, hi_at, hi_w, hi_wu, lo_at, lo_w, lo_wu, c_hi, c_lo, exp_hi, exp_lo, u, gap, big, q, out
):
    """``W_j`` at the ``n`` states from the padded ``W_{j-1}`` ``v`` (the arguments: :class:`_BoundedPlan`),
    into ``out``: compiled on first use (:func:`_kernel`). The value of the pair at each breakpoint ``t``
    (chords between grid points, weights ``w`` and ``1 - w`` of an offset's two grid points when it is off
    the grid), each cell's bound (the larger end plus ``max(0, -A)`` times the gap of ``1/u`` to its chord,
    module notes), and for the two cells beside the best end also the tangent of the concave ``F`` at its
    stationary point clipped into the cell, the smaller of the two kept; ``W_j`` is the largest cell.
    Float operations in the order of the former numpy version (the same floats, NaN handled as
    ``np.maximum`` / ``np.minimum`` / ``np.fmin`` / ``np.fmax`` / ``argmax`` do). O(n T) for T breakpoints."""
    t_count, size = p_hi.size, v.size - 1
    ends = np.empty(t_count)
    cells = np.empty(max(t_count - 1, 1))
    one_q, big1, last = 1.0 - q, big + 1.0, t_count - 2
    # per grid point x of v, once: the intercept at u = 0 and the slope (before its factor exp(c h)) of the
    # chord on [x, x + 1] as a line a + b u, and per distance d = c_lo - c_hi of a cell's two grid points
    # A = (a[x + d] - a[x]) / (E - 1) (module notes): what the cells read, computed once per grid point
    icept, slope_of = np.empty(size), np.empty(size)
    for x in range(size):
        icept[x] = (v[x + 1] - q * v[x]) / one_q
        slope_of[x] = (v[x] - v[x + 1]) / one_q
    d_min = d_max = 0
    if t_count > 1:
        d_min, d_max = (c_lo - c_hi).min(), (c_lo - c_hi).max()
    coef = np.zeros((d_max - d_min + 1, size))
    for d in range(d_min, d_max + 1):
        for x in range(max(0, -d), min(size, size - d)):
            coef[d - d_min, x] = (icept[x + d] - icept[x]) / big
    for i in range(n):
        best = 0  # the first largest end (argmax)
        for j in range(t_count):
            x_hi, x_lo = v[hi_at[j] + i], v[lo_at[j] + i]
            if hi_w.size:
                x_hi = hi_w[j] * x_hi + hi_wu[j] * v[hi_at[j] + 1 + i]
            if lo_w.size:
                x_lo = lo_w[j] * x_lo + lo_wu[j] * v[lo_at[j] + 1 + i]
            ends[j] = p_hi[j] * x_hi + p_lo[j] * x_lo
            if ends[j] > ends[best] or (ends[j] != ends[j] and ends[best] == ends[best]):
                best = j
        if t_count < 2:
            out[i] = ends[0]
            continue
        # in u = exp(-t) the pair's value on a cell is F(u) = C u + B + A / u (A: coef)
        for j in range(t_count - 1):
            a = coef[c_lo[j] - c_hi[j] - d_min, c_hi[j] + i]
            e_max = ends[j] if (ends[j] >= ends[j + 1] or ends[j] != ends[j]) else ends[j + 1]
            neg = a if (a <= 0.0 or a != a) else 0.0
            cells[j] = e_max - neg * gap[j]
        for side in range(2):
            j = max(best - 1, 0) if side == 0 else min(best, last)
            x, y = c_hi[j] + i, c_lo[j] + i
            a = coef[y - x - d_min, x]
            larger = ends[j] if (ends[j] >= ends[j + 1] or ends[j] != ends[j]) else ends[j + 1]
            if not a < 0:
                cells[j] = larger
                continue
            a_hi, a_lo = icept[x], icept[y]
            b_hi, b_lo = slope_of[x] * exp_hi[j], slope_of[y] * exp_lo[j]  # slopes in u (low loss: E u)
            c = (b_hi - b_lo) * big1 / big
            u_a, u_b = u[j], u[j + 1]
            star = math.sqrt(a / c) if c < 0 else u_a
            u0 = star if (star <= u_a or u_a != u_a) else u_a  # clipped into [u_b, u_a], NaN read as u_a
            u0 = u0 if (u0 >= u_b or u_b != u_b) else u_b
            p0 = (big1 * u0 - 1.0) / (u0 * big)  # probability of the high loss at u0
            f0 = p0 * (a_hi + b_hi * u0) + (1.0 - p0) * (a_lo + b_lo * big1 * u0)
            slope = c - a / (u0 * u0)
            d_a, d_b = slope * (u_a - u0), slope * (u_b - u0)
            tangent = f0 + (d_a if (d_a >= d_b or d_a != d_a) else d_b)
            top = tangent if (tangent >= larger or tangent != tangent) else larger
            cells[j] = cells[j] if (cells[j] <= top or cells[j] != cells[j]) else top
        m = cells[0]
        for j in range(1, t_count - 1):
            m = m if (m >= cells[j] or m != m) else cells[j]
        out[i] = m
    return out


@functools.cache
def _kernel():
    """:func:`_bounded_range_cells` compiled (numba, cached on disk), made on first use: importing this module
    (and :mod:`dpmo.accounting`, :mod:`dpmo.budget`) loads no numba. numpy's error model: a float division by
    zero gives inf or NaN, as the numpy expressions did, never an exception. One signature (the plan's
    arrays: C-contiguous float64 and int64)."""
    import numba

    return numba.njit(cache=True, nogil=True, error_model="numpy")(_bounded_range_cells)


def _bounded_range_step(grid: _Grid, v: np.ndarray, e: float, plan: _BoundedPlan | None = None) -> np.ndarray:
    """``W_j`` at every state from the padded ``W_{j-1}`` for an ``e``-bounded-range mechanism (``plan``:
    :class:`_BoundedPlan` of ``grid`` and ``e``, made here when not given)."""
    pl = _BoundedPlan(grid, e) if plan is None else plan
    n = grid.index.size
    return _kernel()(v, n, *pl.args, pl.big, grid.q, np.empty(n))


def _pure_plan(grid: _Grid, e: float) -> tuple:
    """What a pure ``e``-DP step needs that does not depend on ``W``: the reader of the offsets ``+-r``
    (:meth:`_Grid.reader`) and the probability of the high loss."""
    e = _breakpoints(e, grid.h)[0]
    r = e / grid.h
    return grid.reader(np.array([r, -r])), 1.0 / (1.0 + math.exp(-e))


def _pure_step(grid: _Grid, v: np.ndarray, e: float, plan: tuple | None = None) -> np.ndarray:
    """``W_j`` from the padded ``W_{j-1}`` for a pure ``e``-DP mechanism (randomised response); ``plan``:
    :func:`_pure_plan` of ``grid`` and ``e`` (made here when not given)."""
    reader, p = _pure_plan(grid, e) if plan is None else plan
    vals = grid.at(v, reader)
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
    kinds = _accounted_kinds(eps, kinds)
    if step is None:
        h = grid_step(epsilon, eps, kinds)
        if h is None and grid_step(epsilon, eps, kinds, work=100 * WORK, finest=1) is None:
            raise ValueError(
                "epsilons: this composition is too long or too uneven for the recursion's grid (its steps "
                "span more than the grid can hold); dpmo.accounting.composed_delta falls back to zCDP"
            )
        h = float(eps.min()) if h is None else h
    else:
        h = float(step)
    return _delta_on_grid(float(epsilon), eps.tobytes(), tuple(kinds), h)


@functools.lru_cache(maxsize=64)
def _delta_on_grid(epsilon: float, eps_bytes: bytes, kinds: tuple, h: float) -> float:
    """:func:`adaptive_delta` on the grid of step ``h`` (``eps`` as the bytes of a float64 array). A pure
    function of its arguments, cached: the accountant's searches and its final check meet the same
    composition on the same grid more than once."""
    eps = np.frombuffer(eps_bytes, dtype=np.float64)
    low, high = _window(epsilon, eps, kinds)
    # grid points epsilon + n h (V_0 is linear in exp(-l) between them: its kink is a grid point)
    lo, hi = math.floor((low - epsilon) / h) - 1, math.ceil((high - epsilon) / h) + 1
    pad = math.ceil(float(eps.max()) / h) + 3
    grid = _Grid(h, lo, hi, pad)
    w = -np.expm1(-np.maximum((lo + grid.index) * h, 0.0))  # (1 - e^-x)_+, no overflow at x << 0
    plans: dict = {}  # what a step needs that depends on (e, kind) only, made once per distinct pair
    for e, kd in zip(eps[::-1], list(kinds)[::-1], strict=True):
        v, e = grid.padded(w), float(e)
        bounded = kd == "bounded_range"
        if (e, kd) not in plans:
            plans[e, kd] = _BoundedPlan(grid, e) if bounded else _pure_plan(grid, e)
        step_of = _bounded_range_step if bounded else _pure_step
        w = step_of(grid, v, e, plans[e, kd])
        w = np.minimum(w, 1.0)
    x = -epsilon / h - lo  # l = 0 is state index x (not on the grid in general): the chord there
    i = math.floor(x)
    weight = min(1.0, max(0.0, (math.exp(-(x - i) * h) - grid.q) / (1.0 - grid.q)))
    value = weight * float(w[i]) + (1.0 - weight) * float(w[min(i + 1, w.size - 1)])
    return min(1.0, value * (1.0 + _MARGIN) + _ABS_PER_STEP * (eps.size + 1))
