"""Counting state behind PrivPareto's local sensitivity ``delta^PS`` (:class:`ParetoState`).

The paper's Definition "Admissible Function for Pareto Score", ``delta^PS(x, t, r) = |dom^-_{x,t,r}| +
|ndom^+_{x,t,r}|``, is evaluated here through two offline dominance counts (:mod:`dpmo.pareto.dominance`; the
identity is stated in :mod:`dpmo.pareto` and proved in ``docs/pareto.md``). :class:`ParetoState` keeps the
running sums of the objectives' local functions, the candidates removed in earlier rounds and the counts
worth keeping, so that the dampening loop and the later rounds of PrivPareto reuse them. The public
functions built on it are :func:`dpmo.pareto_sensitivity` and :func:`dpmo.priv_pareto`; the rounds that
drive it are in :mod:`dpmo.pareto.rounds`.
"""

from __future__ import annotations

import numpy as np

from .._kernel_args import kernel_input
from .._validation import check_indices, check_t_block
from ..sensitivity import (
    LocalSensitivity,
    Objective,
    check_local_values,
    check_non_decreasing,
    kept_for_check,
    stacked_values,
)
from . import dominance, sweep

__all__ = ["ParetoState"]

#: Fused brute force for delta^PS when queries * objectives <= this factor * log2(n) ** max(1, m - 1) (the
#: cost ratio of the sort-based counts).
_FEW_QUERIES_PER_LOG = 24
#: Steps whose counts are kept for the later rounds of priv_pareto: those that queried at least
#: n / _CACHE_FRACTION candidates (the expensive, sort-based ones), at most _CACHE_STEPS of them.
_CACHE_FRACTION = 16
_CACHE_STEPS = 8
#: A step that queries at least n / _CACHE_FRACTION candidates, with m <= 2 objectives and more than this
#: many (query, candidate) pairs, is counted for every candidate at once
#: (:func:`dpmo.pareto.sweep.add_counts`: four radix sorts shared by the two counts, two when an objective's
#: running sums are the same for every candidate); the Pareto score likewise (:meth:`ParetoState.scores`).
_SWEEP_MIN_PAIRS = 1 << 22
#: A block of distances is counted by a vectorised brute force over (distances, queries, candidates) when
#: at most _BLOCK_BRUTE_N candidates remain and queries * remaining candidates * objectives is at most
#: _BLOCK_BRUTE_CELLS (per distance); otherwise each distance of the block goes through the counting path
#: of a single t (sort-based or fused kernel), which is faster there (measured: benchmarks/bench_pareto.py).
_BLOCK_BRUTE_N = 128
_BLOCK_BRUTE_CELLS = 1 << 12
#: Memory bound of the block paths: the rows of a block are processed in chunks whose temporaries
#: (running sums (rows, m, n), comparison masks (rows, q, n)) hold at most this many cells each.
_BLOCK_CELLS = 1 << 16
#: A long jump of the running sums checks every this many distances whether they saturated (then it stops).
_SATURATION_CHECK_ROWS = 1 << 16


def _is_vectorized(local) -> bool:
    """True when ``local`` is None (constant global sensitivity) or evaluates blocks of distances."""
    return local is None or (
        bool(getattr(local, "vectorized_t", False)) and bool(getattr(local, "supports_index", False))
    )


def _unknown(n: int) -> int:
    """Marks a count not made yet in the kept counts (never a count: those lie in [-n, n - 1])."""
    return int(np.iinfo(sweep.index_dtype(n)).min)


#: Kept for an objective's deltas at ``t = 0``: the running sums' row holds the very same values.
_ROW_OF_S = object()


class ParetoState:
    """Pareto score and ``delta^PS`` of the candidates still in play, across the rounds of PrivPareto.

    * ``S[i, r] = sum_{j <= t} delta^{u_i}(j, r)`` is kept for every candidate (O(n m) memory), always
      accumulated one distance after the other (``S_t = S_{t-1} + delta(t)``), so every path gives the same
      floats; a smaller ``t`` starts again from 0. A long jump stops walking once the sums saturate
      (:func:`dpmo.pareto.dominance.sums_saturated`: every later count is then ``n_live - 1``).
    * Counts are made against all ``n`` candidates and corrected for the removed ones (chosen in earlier
      rounds; :func:`dpmo.pareto.sweep.removed_delta_correction`, O(q * removed * m)). The full counts of
      the expensive steps are kept (one int32 per candidate) for the later rounds. The results are the
      same integers as a fresh computation on the remaining candidates.
    * A step that queries many candidates (``m <= 2``) is counted for all of them at once, with the sorts
      shared between the two counts; the order of ``u_i`` serves ``u_i +- S_i`` whenever ``S_i`` is the same
      for every candidate, since ``fl(u + c)`` is non-decreasing in ``u``.
    * Blocks of distances: small problems are counted by a vectorised brute force over (distances, queries,
      remaining candidates); larger ones run the single-``t`` counting for each distance of the block.
    """

    def __init__(self, objectives: list[Objective], keep_all: bool = False):
        self.objectives = objectives
        self.keep_all = keep_all  # keep the counts of every step (not only the expensive ones)
        self.U = stacked_values(objectives)  # (m, n) columns (no copy for objectives_on_rows' objectives)
        self.m, self.n = self.U.shape
        self.t = -1
        self.S = np.zeros(self.U.shape)
        self._other = None  # a second cursor (t, S, last deltas): see _select_cursor
        self.removed = np.empty(0, dtype=np.intp)
        self.cache: dict[int, np.ndarray] = {}  # full counts of kept steps (int32 while n fits)
        self.complete: set[int] = set()  # the kept steps counted for every candidate
        self._ps_all = None
        self._u_orders: list = [None] * self.m  # ascending order of each u_i, filled when first needed
        self._u_sorted: list = [None] * self.m  # u_i in that order (kept by the sort that made the order)
        self._work = None  # work arrays of the sorts and counts (_scratch)
        self._live = None
        self.vectorized = all(_is_vectorized(o.local) for o in objectives)

    def fork(self) -> ParetoState:
        """A new state on the same candidates with nothing removed, keeping what this one has counted.

        The Pareto scores and the full counts of the kept steps are exact integers that do not depend on
        the removals, so the new state gives the same results as a fresh one, only faster. Running sums
        start again from 0 (the dampening loop starts at ``t = 0``).
        """
        new = object.__new__(ParetoState)
        new.objectives = self.objectives
        new.U = self.U
        new.m, new.n = self.m, self.n
        new.t = -1
        new.S = None  # allocated at the first step (a kept template never steps)
        new._other = None
        new.removed = np.empty(0, dtype=np.intp)
        new.keep_all = self.keep_all
        # shared: an entry is filled at most once, always with the same exact count, whoever fills it
        new.cache = dict(self.cache)
        new.complete = set(self.complete)
        new._ps_all = self._ps_all
        new._u_orders = self._u_orders  # filled at most once per objective, always with the same order
        new._u_sorted = self._u_sorted  # read-only, filled (or let go) as the orders are
        new._work = None
        new._live = None
        new.vectorized = self.vectorized
        return new

    def remove(self, r: int) -> None:
        self.removed = np.append(self.removed, np.intp(r))
        self._live = None

    def live(self) -> np.ndarray:
        """Indices of the candidates not removed (sorted)."""
        if self._live is None:
            self._live = np.delete(np.arange(self.n, dtype=np.intp), self.removed)
        return self._live

    def scores(self, remaining: np.ndarray, dtype=np.int64) -> np.ndarray:
        """Pareto score of the ``remaining`` candidates among themselves (``dtype``: int64, or float64,
        the same integers, exact below 2^53, made in the same pass: no conversion of n values after)."""
        if self._ps_all is None:
            if self._sweeps(self.n):
                counts = np.zeros(self.n, dtype=sweep.index_dtype(self.n))
                scratch = self._scratch()  # one set of work arrays for the sorts and the count
                axes = [self._u_axis(i, scratch) for i in range(self.m)]
                if self.m == 1:
                    sweep.count_1d(axes[0], axes[0], False, counts)
                else:
                    sweep.count_2d(axes[0], axes[1], axes[0], axes[1], False, counts, scratch=scratch)
                self._ps_all = np.subtract(1, counts, out=counts)
            else:
                self._ps_all = (1 - dominance.count_columns(self.U)).astype(sweep.index_dtype(self.n))
        # (with nothing removed, a gather; else the removed candidates that dominated r no longer count)
        return sweep.scores_from_counts(self._ps_all, self.U, self.removed, remaining, dtype)

    # ------------------------------------------------------------------------------------ sorted axes
    def _sweeps(self, q: int) -> bool:
        """Count a step for every candidate at once (sizes only: module constants)."""
        return self.m <= 2 and q * _CACHE_FRACTION >= self.n and q * self.n > _SWEEP_MIN_PAIRS

    def _u_axis(self, i: int, scratch=None) -> sweep.SortedAxis:
        """``u_i`` sorted. The first sort writes the sorted values as it goes (no gather ``u_i[order]``, a
        random access per candidate); order and values are kept while ``S_i`` is constant (see
        :meth:`_shifted_axes`)."""
        order, values = self._u_orders[i], self._u_sorted[i]  # read once: forks share the lists
        if order is None:
            order, values, _ = sweep.sorted_axis(self.U[i], scratch=scratch)
            values.setflags(write=False)
            self._u_orders[i], self._u_sorted[i] = order, values
        elif values is None:
            values = self.U[i][order]
            values.setflags(write=False)
            self._u_sorted[i] = values
        return sweep.SortedAxis(order, values)

    def _shifted_axes(self, i: int, scratch=None) -> tuple[sweep.SortedAxis, sweep.SortedAxis]:
        """``u_i + S_i`` and ``u_i - S_i`` sorted. When ``S_i`` holds one value ``c`` for every candidate, the
        order of ``u_i`` is an order of ``fl(u_i +- c)`` (rounding is monotone): both are ``u_i`` sorted,
        with the shifts ``+c`` and ``-c`` that the counting kernels add where they compare (the same floats
        as ``(U +- S)[i]`` sorted; no array of n values). Otherwise two sorts, and the sorted ``u_i`` and
        its order are let go (memory back before the sorts run; sorted again, to the same stable order, if
        ever needed)."""
        s = self.S[i]
        c = s[0]
        if s.min() == c == s.max():
            axis = self._u_axis(i, scratch)
            return axis._replace(shift=float(c)), axis._replace(shift=-float(c))
        self._u_orders[i] = self._u_sorted[i] = None
        u = self.U[i]
        return sweep.sorted_axis(u, s, 1, scratch=scratch), sweep.sorted_axis(u, s, -1, scratch=scratch)

    # -------------------------------------------------------------------------------- running sums
    def _deltas(self, t0: int, rows: int, skip=None) -> list:
        """``min(delta^{u_i}(t), Delta u_i)`` for ``t = t0 .. t0 + rows - 1``: one entry per objective, an
        array (rows, n), or the float ``Delta u_i`` for an objective without local function (the same for
        every distance and candidate).

        The same values as :meth:`dpmo.Objective.sensitivity` (validated the same way); vectorised
        functions are called once for the whole chunk, the others once per distance.
        """
        out: list = []
        last = getattr(self, "_last_deltas", None)
        keep = []
        for i, o in enumerate(self.objectives):
            if o.local is None:
                out.append(o.global_sensitivity)
                keep.append(None)
                continue
            if rows > 1 and _is_vectorized(o.local):
                ts = np.arange(t0, t0 + rows, dtype=np.int64)[:, None]
                d = check_local_values(
                    o.local(ts, None), (rows, self.n), f"{t0}..{t0 + rows - 1}", f"objective {o.name!r}"
                )
                d = np.minimum(d, o.global_sensitivity)
            else:
                # validated and capped at the global sensitivity by Objective.sensitivity
                d = np.vstack([o.sensitivity(t0 + b) for b in range(rows)])
            # non-decreasing in t, within the block and from the previous block (dpmo.sensitivity's check)
            prev = self._previous(last, i) if last is not None and last[0] == t0 else None
            check_non_decreasing(d, t0, f"objective {o.name!r}", prev)
            out.append(d)
            keep.append(kept_for_check(d[-1]))
        self._last_deltas = (t0 + rows, keep)
        return out

    def _previous(self, last: tuple, i: int):
        """The deltas of objective ``i`` at the distance before, as kept in ``last`` (the running sums'
        row itself after the step to ``t = 0``: they are read before the sums move on)."""
        prev = last[1][i]
        return self.S[i] if prev is _ROW_OF_S else prev

    def _add_row(self, D: list, b: int) -> None:
        """``S += delta(t)`` for the row ``b`` of a chunk from :meth:`_deltas` (one addition per entry, the
        same floats as ``S[i] += Objective.sensitivity(t)``)."""
        S = self.S
        for i, d in enumerate(D):
            if d is not None:
                S[i] += d if isinstance(d, float) else d[b]
        self.t += 1

    def _add_rows(self, D: list, rows: int) -> None:
        """``S += delta(t)`` for all ``rows`` of a chunk from :meth:`_deltas`, in order, with the same floats
        as ``rows`` calls of :meth:`_add_row` but without a Python loop of array additions.

        * An objective without local function adds its constant ``Delta u`` to every candidate at every
          distance from the same start 0, so its row of ``S`` holds one value: it is summed as a float,
          one addition per distance (the same IEEE additions), and the row filled with it.
        * The others: ``np.cumsum`` along the distances adds one row after the other (``add.accumulate``
          is sequential).
        """
        if rows == 1:
            self._add_row(D, 0)
            return
        S = self.S
        arrays = []
        for i, d in enumerate(D):
            if isinstance(d, float):
                c = float(S[i, 0])
                for _ in range(rows):
                    c += d
                S[i].fill(c)
            else:
                arrays.append(i)
        if arrays:
            steps = np.empty((rows + 1, len(arrays), self.n))
            steps[0] = S[arrays]
            for j, i in enumerate(arrays):
                steps[1:, j, :] = D[i]
            S[arrays] = np.cumsum(steps, axis=0)[-1]
        self.t += rows

    def _select_cursor(self, t: int) -> None:
        """Make the current running sums the furthest ones kept at a distance ``<= t`` (or zeros at -1).

        Two cursors are kept: the dampening loop steps through ``t = 0, 1, 2, ...`` and now and then
        probes one distance far ahead (:func:`dpmo.dampen`'s constant runs); with a single cursor every
        probe would send the loop back to distance 0 and every probe would step again from the loop's
        distance. A cursor's sums are always accumulated from 0 one distance after the other, so which
        cursor serves a distance changes the running time only, never a float.
        """
        cur = (self.t, self.S, getattr(self, "_last_deltas", None))
        cands = [cur] if self._other is None else [cur, self._other]
        behind = [c for c in cands if c[0] <= t]
        if behind:
            best = max(behind, key=lambda c: c[0])
            rest = [c for c in cands if c is not best]
            other = rest[0] if rest else None
            if t > best[0] + 1 and (other is None or other[0] < best[0]):
                other = (best[0], best[1].copy(), best[2])  # keep the loop's place before a jump
        else:
            other = max(cands, key=lambda c: c[0])
            best = (-1, np.zeros(self.U.shape), None)
        self.t, self.S, self._last_deltas = best
        self._other = other

    def _advance(self, t: int) -> None:
        """Bring the running sums to distance ``t`` (from the nearest cursor behind ``t``, or from 0)."""
        if self.S is None:  # a fork's first step
            self.S = np.zeros(self.U.shape)
        if t == self.t:  # already there (a later round asks for t = 0 again)
            return
        if t != self.t + 1:
            self._select_cursor(t)
            if t == self.t:
                return
        if t == self.t + 1:  # one step, the common case of the dampening loop
            last = getattr(self, "_last_deltas", None)
            keep = []
            for i, o in enumerate(self.objectives):
                d = o.capped_view(t)  # validated and capped; read here, kept only as a copy (kept_for_check)
                if o.local is not None and last is not None and last[0] == t and last[1][i] is not None:
                    check_non_decreasing(d, t, f"objective {o.name!r}", self._previous(last, i))
                # at t = 0 the sums are 0 + delta(0) = delta(0): their row serves (no second array of n)
                keep.append(None if o.local is None else _ROW_OF_S if t == 0 else kept_for_check(d))
                self.S[i] += d
            self._last_deltas = (t + 1, keep)
            self.t = t
            return
        # An objective whose deltas are all 0 at distance t has all its deltas 0 up to t (non-negative and
        # non-decreasing): its running sums stay as they are (adding zeros), so skip it. This makes a
        # long jump (a probe of the dampening loop) cheap for data-independent objectives.
        skip = [o.local is not None and not np.any(o.sensitivity(t)) for o in self.objectives]
        if all(skip):
            self.t = t
            return
        # only the objectives with a local function take cells (the others are summed as floats)
        with_local = sum(o.local is not None for o in self.objectives)
        chunk = max(1, _BLOCK_CELLS // (with_local * self.n)) if with_local else _SATURATION_CHECK_ROWS
        done = 0
        while self.t < t:
            rows = min(chunk, t - self.t, _SATURATION_CHECK_ROWS)
            D = self._deltas(self.t + 1, rows, skip)
            self._add_rows(D, rows)
            done += rows
            if done >= _SATURATION_CHECK_ROWS and self.t < t and self._saturated():
                self.t, self._last_deltas = t, None  # every later count is that of these sums
                return
            done %= _SATURATION_CHECK_ROWS

    def _saturated(self) -> bool:
        """:func:`dpmo.pareto.dominance.sums_saturated` of the current running sums. O(m n)."""
        self._spans = dominance.spans(self.U) if getattr(self, "_spans", None) is None else self._spans
        return dominance.sums_saturated(self.S, self._spans)

    # ------------------------------------------------------------------------------------ counting
    def _count_all(self, idx: np.ndarray) -> np.ndarray:
        """``#{r' != r : P(r') >= Q(r)} - #{r' : Q(r') > P(r)}`` over all n candidates, for r in idx."""
        if idx.size * self.m <= _FEW_QUERIES_PER_LOG * np.log2(self.n + 1) ** max(1, self.m - 1):
            U, S = kernel_input(self.U, np.float64), kernel_input(self.S, np.float64)  # one signature
            return dominance.pareto_delta_few(U, S, idx.astype(np.int64))
        P = self.U + self.S  # u^{+t}, (m, n)
        Q = self.U - self.S  # u^{-t}
        # r itself always satisfies u^{+t}(r) >= u^{-t}(r) (the deltas are >= 0), hence the - 1.
        can_dominate = dominance.count_columns(P, Q[:, idx]) - 1
        surely_dominates = dominance.count_columns(Q, P[:, idx], strict=True)
        return can_dominate - surely_dominates

    def _count_every(self) -> np.ndarray:
        """:meth:`_count_all` for every candidate at once (m <= 2), in the dtype of the kept counts."""
        full = np.full(self.n, -1, dtype=sweep.index_dtype(self.n))  # r itself: the - 1
        P_axes, Q_axes = [], []
        scratch = self._scratch()  # one set of work arrays for the (up to 2 m) sorts and the counts
        for i in range(self.m):
            P, Q = self._shifted_axes(i, scratch)
            P_axes.append(P)
            Q_axes.append(Q)
        sweep.add_counts(P_axes, Q_axes, full, scratch=scratch)
        return full

    def _scratch(self) -> sweep.SortScratch:
        """The work arrays of this state's sorts and counts (:class:`dpmo.pareto.sweep.SortScratch`), made
        once: the Pareto scores and the counts of ``delta^PS`` reuse them (at 10^7 candidates every fresh
        array of n values costs the kernel's zeroing of its pages; these are 200 MB)."""
        if self._work is None:
            self._work = sweep.sort_scratch(self.n)
        return self._work

    def _delta_now(self, idx: np.ndarray) -> np.ndarray:
        """``delta^PS(self.t, r)`` for ``r`` in ``idx``, among the remaining candidates (counting path)."""
        t = self.t
        cap = self.n - self.removed.size - 1
        cached = self.cache.get(t)
        keep = (self.keep_all or idx.size * _CACHE_FRACTION >= self.n) and len(self.cache) < _CACHE_STEPS
        if cached is None and self._sweeps(idx.size):
            cached = self._count_every()
            if keep:
                self.cache[t] = cached
                self.complete.add(t)
        if cached is not None and t in self.complete:
            # every count known: gather, correct and cap in one pass
            return sweep.delta_from_counts(cached, self.U, self.S, self.removed, idx, cap)
        if cached is None:
            counts = self._count_all(idx)
            if keep:
                store = np.full(self.n, _unknown(self.n), dtype=sweep.index_dtype(self.n))
                store[idx] = counts
                self.cache[t] = store
                if idx.size == self.n and not np.any(store == _unknown(self.n)):  # (indices may repeat)
                    self.complete.add(t)
            d = counts.astype(np.float64)
        else:
            d = cached[idx].astype(np.float64)  # small integers: exact in float64
            missing = d == _unknown(self.n)
            if missing.any():
                d[missing] = cached[idx[missing]] = self._count_all(idx[missing])
        if self.removed.size:  # the removed candidates no longer count in either set
            sweep.removed_delta_correction(self.U, self.S, self.removed, idx, d)
        return np.minimum(d, cap, out=d)

    def _brute_rows(self, S_rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``delta^PS`` for every row of running sums ``S_rows`` (rows, m, n), by direct comparison of the
        queries ``idx`` with the remaining candidates: (rows, q). O(rows q n m)."""
        live = self.live()
        U = self.U
        if live.size == self.n:
            U_l, S_l = U, S_rows
        else:
            U_l, S_l = U[:, live], S_rows[:, :, live]
        up = U_l + S_l  # u^{+t}(r'), (rows, m, n_live)
        lo = U_l - S_l  # u^{-t}(r')
        up_q = U[:, idx] + S_rows[:, :, idx]  # u^{+t}(r), (rows, m, q)
        lo_q = U[:, idx] - S_rows[:, :, idx]  # u^{-t}(r)
        can = up[:, 0, None, :] >= lo_q[:, 0, :, None]  # (rows, q, n_live)
        sure = lo[:, 0, None, :] > up_q[:, 0, :, None]
        for i in range(1, self.m):
            can &= up[:, i, None, :] >= lo_q[:, i, :, None]
            sure &= lo[:, i, None, :] > up_q[:, i, :, None]
        # r itself is among the live candidates and always satisfies u^{+t}(r) >= u^{-t}(r): the - 1.
        d = np.count_nonzero(can, axis=2) - 1 - np.count_nonzero(sure, axis=2)
        return np.minimum(d, live.size - 1).astype(np.float64)

    def delta(self, t: int, idx: np.ndarray) -> np.ndarray:
        """``delta^PS(t, r)`` for ``r`` in ``idx`` (original indices), among the remaining candidates."""
        self._advance(t)
        return self._delta_now(idx)

    def delta_block(self, t0: int, B: int, idx: np.ndarray) -> np.ndarray:
        """``delta^PS(t, r)`` for ``t = t0 .. t0 + B - 1`` and ``r`` in ``idx``: shape (B, q)."""
        q = idx.size
        out = np.empty((B, q))
        n_live = self.n - self.removed.size
        brute = n_live <= _BLOCK_BRUTE_N and q * n_live * self.m <= _BLOCK_BRUTE_CELLS
        if self.S is None:  # a fork's first step
            self.S = np.zeros(self.U.shape)
        if t0 <= self.t or self.t < t0 - 1:
            self._select_cursor(t0 - 1)
        if self.t < t0 - 1:
            self._advance(t0 - 1)
        per_row = self.m * self.n + (q * n_live if brute else 0)
        chunk = max(1, _BLOCK_CELLS // max(1, per_row))
        row = 0
        while row < B:
            rows = min(chunk, B - row)
            D = self._deltas(self.t + 1, rows)
            if brute:
                steps = np.empty((rows + 1, self.m, self.n))
                steps[0] = self.S
                for i, d in enumerate(D):
                    steps[1:, i, :] = d
                # S_rows[b] = S + D[0] + ... + D[b], added in that order (as the single-step path does)
                S_rows = np.cumsum(steps, axis=0)[1:]
                out[row : row + rows] = self._brute_rows(S_rows, idx)
                self.S = S_rows[-1].copy()
                self.t += rows
            else:
                for b in range(rows):
                    self._add_row(D, b)
                    out[row + b] = self._delta_now(idx)
            row += rows
        return out

    def local(self, remaining: np.ndarray, blocks: bool = True) -> LocalSensitivity:
        """``delta^PS`` of the ``remaining`` candidates as a function ``f(t, sub)`` (``sub`` indexes them).

        ``t`` is an int (result (q,)) or an integer array of shape (B, 1) of consecutive distances
        (result (B, q)); the function is marked ``vectorized_t`` when every objective's function is None
        or vectorised itself (and ``blocks`` is true).
        """
        size = remaining.size

        def func(t, sub=None):
            t0, B = check_t_block(t)
            if sub is None:
                idx = remaining
            else:
                idx = remaining[check_indices(sub, size)]
            if isinstance(t, np.ndarray) and t.ndim == 2:
                return self.delta_block(t0, B, idx)
            return self.delta(t0, idx)

        # stepwise: a far distance costs the steps of the running sums up to it (dampen's probes wait)
        return LocalSensitivity(
            func, name="pareto score", vectorized_t=self.vectorized and blocks, stepwise=True
        )
