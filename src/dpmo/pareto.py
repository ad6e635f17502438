"""PrivPareto: private selection near the Pareto front (the paper's section "PrivPareto Mechanism").

Vocabulary (the paper's section "Pareto Score"): ``m`` utilities ``u_1 .. u_m`` (larger is better) over
``n`` candidates. Candidate ``a`` *dominates* ``b`` (the paper's ``a >=^x b``) when ``u_i(x, a) >= u_i(x, b)``
for every ``i``: **weak** dominance, so two identical candidates dominate each other. The Pareto score
(Definition "Pareto Score") is minus the number of *other* candidates that dominate ``r``:

    PS(x, r) = -#{r' != r : u_i(x, r') >= u_i(x, r) for all i},

0 on the Pareto front and at least ``-(n - 1)``, so its global sensitivity is ``n - 1``.

The local sensitivity function (Definition "Admissible Function for Pareto Score") is
``delta^PS(x, t, r) = |dom^-_{x,t,r}| + |ndom^+_{x,t,r}|`` with ``u_i^{+-t}(x, r) = u_i(x, r) +- sum_{j=0}^{t}
delta^{u_i}(x, j, r)``. This module computes it through the identity (proved in ``docs/pareto.md`` and
checked by brute force in the tests)

    delta^PS(x, t, r) = #{r' != r : u^{+t}(r') >= u^{-t}(r) in every objective}
                        - #{r' : u^{-t}(r') > u^{+t}(r) in every objective},

i.e. two offline dominance counts (:mod:`dpmo._dominance`), instead of enumerating the sets.

Neighbouring relation: whatever the objectives' sensitivities are stated for (their admissible functions
and global sensitivities must all refer to the same relation); the Pareto score's guarantees hold for
that relation.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from . import _dominance
from ._validation import check_choice, check_t
from .dampening import dampen
from .selection import (
    SENSITIVITIES,
    Approach,
    Rounds,
    check_objectives,
    register_approach,
    select_multiobjective,
)
from .sensitivity import LocalSensitivity, Objective, check_local_values, check_non_decreasing

__all__ = [
    "pareto_score",
    "pareto_sensitivity",
    "pareto_selection_scores",
    "priv_pareto",
    "ParetoApproach",
    "RoundCache",
    "SENSITIVITY_MODES",
    "check_objectives",
]

#: Values accepted by ``sensitivity`` in :func:`priv_pareto` and :func:`dpmo.priv_agg`.
SENSITIVITY_MODES = SENSITIVITIES


def _utility_matrix(U) -> np.ndarray:
    if isinstance(U, Sequence) and len(U) and all(isinstance(o, Objective) for o in U):
        U = np.column_stack([o.values for o in check_objectives(U)])
    try:
        arr = np.asarray(U)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds of errors here
        raise TypeError("U must be an array of shape (n, m) of real numbers") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"U must be an array of shape (n, m) of real numbers, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError("U must be real, got complex values")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(
            f"U must have shape (n, m) (one row per candidate, one column per objective), got {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"U must have at least one candidate and one objective, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError("U must be finite (no NaN or inf)")
    return arr


def pareto_score(U) -> np.ndarray:
    """Pareto score of every candidate (the paper's Definition "Pareto Score").

    Parameters
    ----------
    U : array_like, shape (n, m), or a sequence of dpmo.Objective
        ``U[r, i] = u_i(x, r)``, larger is better in every column; a 1-D array is one objective. Finite.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        ``PS(r) = -#{r' != r : U[r'] >= U[r] in every column}`` (weak dominance: identical candidates
        dominate each other). 0 exactly on the Pareto front, at least ``-(n - 1)``.

    Notes
    -----
    Time O(n log n) for m <= 2 (sort, then a Fenwick sweep for m = 2), O(n log^(m-1) n) for m >= 3
    (Bentley's divide and conquer), and a direct O(n^2 m) count when n is small; memory O(n m).
    See :mod:`dpmo._dominance`.

    Examples
    --------
    The paper's Example (candidates a..e):

    >>> pareto_score([[3, 5], [5, 3], [4, 2], [2, 4], [1, 1]]).tolist()
    [0, 0, -1, -1, -4]
    """
    arr = _utility_matrix(U)
    return 1 - _dominance.count_dominating(arr)


#: Fused brute force for delta^PS when queries * objectives <= this factor * log2(n) ** max(1, m - 1) (the
#: cost ratio of the sort-based counts).
_FEW_QUERIES_PER_LOG = 24
#: Steps whose counts are kept for the later rounds of priv_pareto: those that queried at least
#: n / _CACHE_FRACTION candidates (the expensive, sort-based ones), at most _CACHE_STEPS of them.
_CACHE_FRACTION = 16
_CACHE_STEPS = 8
_UNKNOWN = np.iinfo(np.int64).min
#: After this many removals, priv_pareto starts a fresh state on the remaining candidates (the corrections
#: cost O(removed) per candidate and step).
_REBUILD_AFTER = 32
#: A block of distances is counted by a vectorised brute force over (distances, queries, candidates) when
#: at most _BLOCK_BRUTE_N candidates remain and queries * remaining candidates * objectives is at most
#: _BLOCK_BRUTE_CELLS (per distance); otherwise each distance of the block goes through the counting path
#: of a single t (sort-based or fused kernel), which is faster there (measured: benchmarks/bench_pareto.py).
_BLOCK_BRUTE_N = 128
_BLOCK_BRUTE_CELLS = 1 << 12
#: Memory bound of the block paths: the rows of a block are processed in chunks whose temporaries
#: (running sums (rows, m, n), comparison masks (rows, q, n)) hold at most this many cells each.
_BLOCK_CELLS = 1 << 16
#: priv_pareto lets the dampening loop ask for blocks of distances when at most this many candidates remain.
_DAMPEN_BLOCKS_MAX_N = 1 << 13


def _is_vectorized(local) -> bool:
    """True when ``local`` is None (constant global sensitivity) or evaluates blocks of distances."""
    return local is None or (
        bool(getattr(local, "vectorized_t", False)) and bool(getattr(local, "supports_index", False))
    )


def _check_t_block(t) -> tuple[int, int]:
    """``t`` as ``(t0, B)``: an int gives ``(t, 1)``; an integer array of shape (B, 1) must hold the
    consecutive distances ``t0, t0 + 1, ..., t0 + B - 1`` with ``t0 >= 0``."""
    if not isinstance(t, np.ndarray):
        return check_t(t), 1
    if t.ndim == 0:
        return check_t(t[()]), 1
    if t.dtype == np.bool_ or not np.issubdtype(t.dtype, np.integer):
        raise TypeError(
            f"t must be a non-negative int or an integer array of shape (B, 1), got dtype {t.dtype}"
        )
    if t.ndim != 2 or t.shape[1] != 1 or t.shape[0] == 0:
        raise ValueError(
            f"an array t must have shape (B, 1) with B >= 1 (consecutive distances), got {t.shape}"
        )
    ts = t[:, 0].astype(np.int64)
    if ts[0] < 0:
        raise ValueError(f"t must be non-negative, got {int(ts[0])}")
    if ts.size > 1 and not np.all(np.diff(ts) == 1):
        raise ValueError("an array t must hold consecutive distances t0, t0 + 1, ..., t0 + B - 1")
    return int(ts[0]), int(ts.size)


class _ParetoState:
    """Pareto score and ``delta^PS`` of the candidates still in play, across the rounds of PrivPareto.

    * ``S[i, r] = sum_{j <= t} delta^{u_i}(j, r)`` is kept for every candidate (O(n m) memory); the dampening
      loop calls ``t = 0, 1, 2, ...`` in order (one at a time, or in blocks of consecutive distances), so
      each step adds one evaluation of every objective's function (a smaller ``t`` starts again from 0).
      The sums are always accumulated one distance after the other, ``S_t = S_{t-1} + delta(t)``, so every
      path gives the same floats. A candidate's deltas do not depend on the others.
    * Counts are made against all ``n`` candidates and corrected for the removed ones (the candidates chosen
      in earlier rounds): ``#{r' : P(r') >= Q(r)}`` and ``#{r' : Q(r') > P(r)}`` each lose the removed
      candidates that satisfy their condition. The full counts of the expensive steps (many queried
      candidates) are kept, so a later round costs O(removed * q * m) there instead of a new sort-based count.
      The results are the same integers as a fresh computation on the remaining candidates.
    * Blocks of distances: small problems (``q * n_remaining * m`` cells per distance) are counted by a
      vectorised brute force over (distances, queries, remaining candidates), directly among the remaining
      candidates; larger ones run the single-``t`` counting above for each distance of the block. Either way
      the objectives' functions are evaluated for a chunk of distances at once when they are vectorised.
    """

    def __init__(self, objectives: list[Objective], keep_all: bool = False):
        self.objectives = objectives
        self.keep_all = keep_all  # keep the counts of every step (not only the expensive ones)
        self.U = np.ascontiguousarray(np.vstack([o.values for o in objectives]))  # (m, n) columns
        self.m, self.n = self.U.shape
        self.t = -1
        self.S = np.zeros_like(self.U)
        self.removed = np.empty(0, dtype=np.intp)
        self.cache: dict[int, np.ndarray] = {}
        self._ps_all = None
        self._live = None
        self.vectorized = all(_is_vectorized(o.local) for o in objectives)

    def fork(self) -> _ParetoState:
        """A new state on the same candidates with nothing removed, keeping what this one has counted.

        The Pareto scores and the full counts of the kept steps are exact integers that do not depend on
        the removals, so the new state gives the same results as a fresh one, only faster. Running sums
        start again from 0 (the dampening loop starts at ``t = 0``).
        """
        new = object.__new__(_ParetoState)
        new.objectives = self.objectives
        new.U = self.U
        new.m, new.n = self.m, self.n
        new.t = -1
        new.S = np.zeros_like(self.U)
        new.removed = np.empty(0, dtype=np.intp)
        new.keep_all = self.keep_all
        # shared: an entry is filled at most once, always with the same exact count, whoever fills it
        new.cache = dict(self.cache)
        new._ps_all = self._ps_all
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

    def scores(self, remaining: np.ndarray) -> np.ndarray:
        """Pareto score of the ``remaining`` candidates among themselves (int64)."""
        if self._ps_all is None:
            self._ps_all = 1 - _dominance.count_columns(self.U)
        ps = self._ps_all[remaining]
        if self.removed.size:  # the removed candidates that dominated r no longer count
            ps = ps + _dominance.count_columns(self.U[:, self.removed], self.U[:, remaining])
        return ps

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
            prev = last[1][i] if last is not None and last[0] == t0 else None
            check_non_decreasing(d, t0, f"objective {o.name!r}", prev)
            out.append(d)
            keep.append(d[-1])
        self._last_deltas = (t0 + rows, keep)
        return out

    def _add_row(self, D: list, b: int) -> None:
        """``S += delta(t)`` for the row ``b`` of a chunk from :meth:`_deltas` (one addition per entry, the
        same floats as ``S[i] += Objective.sensitivity(t)``)."""
        S = self.S
        for i, d in enumerate(D):
            if d is not None:
                S[i] += d if isinstance(d, float) else d[b]
        self.t += 1

    def _advance(self, t: int) -> None:
        """Bring the running sums to distance ``t`` (from 0 again when ``t`` is behind them)."""
        if t < self.t:
            self.t = -1
            self.S = np.zeros_like(self.U)
        if t == self.t + 1:  # one step, the common case of the dampening loop
            last = getattr(self, "_last_deltas", None)
            keep = []
            for i, o in enumerate(self.objectives):
                d = o.sensitivity(t)  # validated, capped at the objective's global sensitivity
                if o.local is not None and last is not None and last[0] == t and last[1][i] is not None:
                    check_non_decreasing(d, t, f"objective {o.name!r}", last[1][i])
                keep.append(None if o.local is None else d)
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
        chunk = max(1, _BLOCK_CELLS // (self.m * self.n))
        while self.t < t:
            rows = min(chunk, t - self.t)
            D = self._deltas(self.t + 1, rows, skip)
            for b in range(rows):
                self._add_row(D, b)

    # ------------------------------------------------------------------------------------ counting
    def _count_all(self, idx: np.ndarray) -> np.ndarray:
        """``#{r' != r : P(r') >= Q(r)} - #{r' : Q(r') > P(r)}`` over all n candidates, for r in idx."""
        if idx.size * self.m <= _FEW_QUERIES_PER_LOG * np.log2(self.n + 1) ** max(1, self.m - 1):
            return _dominance.pareto_delta_few(self.U, self.S, idx.astype(np.int64))
        P = self.U + self.S  # u^{+t}, (m, n)
        Q = self.U - self.S  # u^{-t}
        # r itself always satisfies u^{+t}(r) >= u^{-t}(r) (the deltas are >= 0), hence the - 1.
        can_dominate = _dominance.count_columns(P, Q[:, idx]) - 1
        surely_dominates = _dominance.count_columns(Q, P[:, idx], strict=True)
        return can_dominate - surely_dominates

    def _delta_now(self, idx: np.ndarray) -> np.ndarray:
        """``delta^PS(self.t, r)`` for ``r`` in ``idx``, among the remaining candidates (counting path)."""
        t = self.t
        cached = self.cache.get(t)
        if cached is None:
            d = self._count_all(idx)
            if (self.keep_all or idx.size * _CACHE_FRACTION >= self.n) and len(self.cache) < _CACHE_STEPS:
                store = np.full(self.n, _UNKNOWN, dtype=np.int64)
                store[idx] = d
                self.cache[t] = store
        else:
            d = cached[idx]
            missing = d == _UNKNOWN
            if missing.any():
                d[missing] = cached[idx[missing]] = self._count_all(idx[missing])
        if self.removed.size:  # the removed candidates no longer count in either set
            U, S, c = self.U, self.S, self.removed
            lo = U[:, idx] - S[:, idx]  # u^{-t}(r)
            hi = U[:, idx] + S[:, idx]  # u^{+t}(r)
            d = d - _dominance.count_columns(U[:, c] + S[:, c], lo)
            d = d + _dominance.count_columns(U[:, c] - S[:, c], hi, strict=True)
        return np.minimum(d, self.n - self.removed.size - 1).astype(np.float64)

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
        if t0 <= self.t:
            self.t = -1
            self.S = np.zeros_like(self.U)
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
            t0, B = _check_t_block(t)
            if sub is None:
                idx = remaining
            else:
                sub = np.asarray(sub, dtype=np.intp)
                if sub.ndim != 1:
                    raise ValueError("idx must be a 1-D array of candidate indices")
                if sub.size and (sub.min() < 0 or sub.max() >= size):
                    raise ValueError(f"idx must index the {size} candidates")
                idx = remaining[sub]
            if isinstance(t, np.ndarray) and t.ndim == 2:
                return self.delta_block(t0, B, idx)
            return self.delta(t0, idx)

        return LocalSensitivity(func, name="pareto score", vectorized_t=self.vectorized and blocks)


def pareto_sensitivity(objectives) -> LocalSensitivity:
    """Admissible local sensitivity function of the Pareto score, ``t -> delta^PS(x, t, .)``.

    The paper's Definition "Admissible Function for Pareto Score" (admissible by the theorem that follows
    it, label ``theo:admissible_delta_ps``, whenever every objective's function is admissible for the same
    neighbouring relation; ERRATA point 3 confirms it exhaustively), computed as

        delta^PS(t, r) = #{r' != r : u^{+t}(r') >= u^{-t}(r) in every objective}
                         - #{r' : u^{-t}(r') > u^{+t}(r) in every objective},

    where ``u_i^{+-t}(r) = u_i(r) +- sum_{j=0}^{t} delta^{u_i}(j, r)`` and ``delta^{u_i}(j, .)`` is
    ``objectives[i].sensitivity(j)`` (the objective's local function capped at its global sensitivity, or
    the global sensitivity when it has none). The result is capped at ``n - 1``.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` objectives over the same ``n`` candidates.

    Returns
    -------
    dpmo.LocalSensitivity
        ``f(t)`` gives ``delta^PS(x, t, r)`` for every candidate (float64, shape (n,)); ``f(t, idx)`` for the
        candidates ``idx`` only. ``t`` may also be an integer array of shape ``(B, 1)`` holding consecutive
        distances ``t0, t0 + 1, ..., t0 + B - 1``: the result then has shape ``(B, q)``, row ``b`` being
        ``delta^PS(x, t0 + b, .)`` (exactly the floats of ``B`` single calls). The function is marked
        ``vectorized_t`` (so that :func:`dpmo.dampen` asks for blocks) whenever every objective's local
        function is None or itself ``vectorized_t``. It may be 0, for instance for the centre of a star
        graph (ERRATA point 3); :func:`dpmo.dampen` raises zero deltas to a public floor.

    Notes
    -----
    The running sums are cached (O(n m) memory) and always accumulated one distance after the other,
    ``S_t = S_{t-1} + delta(t)``, whatever the form of the calls, so every path gives the same floats and
    the same integer counts. Calling ``t = 0, 1, 2, ...`` in order (as the dampening loop does) costs, per
    distance, one evaluation of every objective's local function on all ``n`` candidates (one call per
    chunk of distances for vectorised functions) plus two dominance counts of the ``q`` queried candidates
    against all ``n``: O((n + q) log n) for m <= 2, O((n + q) log^(m-1) (n + q)) for m >= 3, or one fused
    O(n q m) pass when q is small. For a block of ``B`` distances on a small problem (at most 128
    candidates and ``q n m <= 4096``) the counts are a vectorised brute force over (distances, queries,
    candidates), O(B q n m) time, done in chunks of at most 2^16 cells (bounded memory); larger problems
    run the single-distance counts for each distance of the block. A call with a smaller ``t`` than the
    last one starts the sums again from 0. The counts of at most 8 single-distance steps that queried at
    least n / 16 candidates are kept (n integers each), so evaluating such a step again costs O(q).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u1 = dpmo.Objective([3.0, 1.0, 2.0], global_sensitivity=1.0)
    >>> u2 = dpmo.Objective([1.0, 3.0, 2.0], global_sensitivity=1.0)
    >>> delta = dpmo.pareto_sensitivity([u1, u2])
    >>> d0 = delta(0)
    >>> d0.shape, bool(np.all(d0 >= 0)), bool(np.all(d0 <= 2))  # between 0 and n - 1
    ((3,), True, True)
    >>> bool(np.all(delta(3) >= d0))  # non-decreasing in the distance t
    True
    """
    objs = check_objectives(objectives)
    return _ParetoState(objs).local(np.arange(objs[0].n, dtype=np.intp))


def pareto_selection_scores(objectives, sensitivity: str = "local") -> tuple[np.ndarray, float]:
    """Scores and sensitivity that PrivPareto hands to :func:`dpmo.select` in one round.

    ``"global"``: ``(PS, n - 1)``; ``"local"``: ``(D, 1)`` with ``D`` the dampened Pareto scores
    (``dpmo.dampen(PS, pareto_sensitivity(objectives), global_sensitivity=n - 1)``, up to rounding: see
    :func:`priv_pareto` for when the dampening loop uses blocks of distances). Needs ``n >= 2``.
    Exposed for audits: the output distribution of ``priv_pareto(..., k=1)`` is that of
    ``dpmo.select(*pareto_selection_scores(...), ...)``.
    """
    objs = check_objectives(objectives)
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    if objs[0].n < 2:
        raise ValueError("the Pareto score needs at least 2 candidates to have a positive sensitivity")
    return _round_scores(_ParetoState(objs), np.arange(objs[0].n, dtype=np.intp), sensitivity)


def _round_scores(state: _ParetoState, remaining: np.ndarray, sensitivity: str) -> tuple[np.ndarray, float]:
    n_r = remaining.size
    ps = state.scores(remaining)
    if sensitivity == "global":
        return ps.astype(np.float64), float(n_r - 1)
    # Blocks of distances pay when a step is cheap (few candidates): they save the per-step overhead of
    # the dampening loop. With many candidates every distance costs a pass over all of them, and the
    # loop's doubling blocks would compute up to twice the distances it needs (sizes only, never values).
    blocks = n_r <= _DAMPEN_BLOCKS_MAX_N
    D = dampen(ps, state.local(remaining, blocks), global_sensitivity=float(n_r - 1), name="pareto score")
    return D, 1.0


def priv_pareto(
    objectives,
    epsilon: float,
    *,
    k: int = 1,
    sensitivity: str = "local",
    mechanism: str = "exponential",
    rng=None,
    budget=None,
    exact: bool = False,
) -> np.ndarray:
    """PrivPareto: pick ``k`` candidates close to the Pareto front under epsilon-differential privacy.

    The paper's Definitions "Global PrivPareto Mechanism" and "Local PrivPareto Mechanism".

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` utilities over the same ``n`` candidates, larger is better, with global sensitivities
        and (for ``"local"``) admissible local functions, all for the same neighbouring relation.
    epsilon : float
        Total privacy budget, > 0.
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``.
    sensitivity : {"local", "global"}
        ``"global"``: ``dpmo.select(PS, epsilon / k, n - 1)``. ``"local"``: local dampening, i.e.
        ``dpmo.select(D, epsilon / k, 1)`` with ``D = dampen(PS, delta^PS, global_sensitivity=n - 1)``
        (see :func:`pareto_sensitivity`).
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`, for either version.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left); checked up front, then one record of
        ``epsilon / k`` per round, made right before the round's sampling. Without it the call spends
        ``epsilon`` of its own.
    exact : bool, default False
        Sample exactly (:func:`dpmo.select` with ``exact=True``, given the exact share of each round that
        is recorded; rng None then reads the OS's secure source).

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Indices into the original candidates, in selection order.

    Notes
    -----
    Privacy: each of the ``k`` rounds is an ``epsilon / k``-DP selection (the Pareto score has global
    sensitivity ``n_round - 1``; ``D`` has global sensitivity 1 under admissible deltas), and the rounds
    compose to epsilon-DP (basic sequential composition). Each round recomputes the Pareto score and
    ``delta^PS`` on the candidates not yet chosen (a candidate's score depends on the others, so it changes
    when one is removed); which candidates remain depends only on earlier private outputs. With one
    candidate left, it is returned without looking at the data.

    Cost: the first round is :func:`pareto_score` plus, for ``"local"``, the dampening loop with
    :func:`pareto_sensitivity` (see there) and :func:`dpmo.select`. The later rounds reuse the counts made
    against all candidates and correct them for the ones already chosen (O(k q m) per step instead of a new
    sort), which gives exactly the scores of a fresh computation on the remaining candidates. When at most
    8,192 candidates remain and the objectives' functions are vectorised, the dampening loop evaluates
    ``delta^PS`` for blocks of distances (a few calls instead of thousands when the deltas are tiny, as for
    the rates of DP-MOET); with more candidates every distance costs a pass over all of them, and the
    loop asks one distance at a time so as not to compute distances it does not need. The choice depends
    on sizes only, and the scores agree to rounding (the dampening's own running sums are added in a
    different order).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u1 = dpmo.Objective([5.0, 1.0, 4.0, 0.0, 2.0], global_sensitivity=1.0)
    >>> u2 = dpmo.Objective([1.0, 5.0, 4.0, 0.0, 2.0], global_sensitivity=1.0)
    >>> picks = dpmo.priv_pareto([u1, u2], epsilon=1.0, k=2, rng=0)
    >>> picks.shape, len(set(picks.tolist())) == 2
    ((2,), True)
    >>> # at a huge budget the picks lie on the Pareto front {0, 1, 2} (candidate 3 is dominated by all)
    >>> set(dpmo.priv_pareto([u1, u2], epsilon=1e6, k=3, sensitivity="global", rng=1).tolist())
    {0, 1, 2}
    """
    return select_multiobjective(
        objectives,
        epsilon,
        approach="pareto",
        sensitivity=sensitivity,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        what="priv_pareto",
        exact=exact,
    )


class RoundCache:
    """Scores of PrivPareto rounds for one fixed list of objectives, kept for later calls (internal).

    A round's scores (``(D, 1)`` or ``(PS, n_round - 1)``) are a deterministic function of the objectives
    and of the candidates already chosen, so an application that runs :func:`priv_pareto` many times on
    the same data (the experiments of :mod:`dpmo.graphs`) can keep them: the key is the sensitivity mode
    and the chosen candidates *in order*, and the stored scores are the very floats the round would
    compute again (the state is rebuilt exactly as without a cache: see :func:`_pareto_rounds`). Caching
    changes the running time only, never an output or its distribution. Least recently used entries are
    dropped once the scores held exceed ``max_bytes``. Thread-safe.
    """

    def __init__(self, max_bytes: int = 64 << 20):
        self.max_bytes = int(max_bytes)
        self._entries: OrderedDict[tuple, tuple[np.ndarray, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._template: _ParetoState | None = None

    def state(self) -> _ParetoState | None:
        """A fresh counting state on all the candidates with the counts of an earlier call, or None."""
        with self._lock:
            return None if self._template is None else self._template.fork()

    def keep_state(self, state: _ParetoState) -> None:
        """Remember the counts of ``state`` (built on all the candidates, nothing removed yet)."""
        with self._lock:
            if self._template is None:
                self._template = state.fork()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple):
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def put(self, key: tuple, scores: np.ndarray, sens: float) -> None:
        scores = np.array(scores, dtype=np.float64)
        scores.setflags(write=False)
        if scores.nbytes > self.max_bytes:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (scores, float(sens))
            self._bytes += scores.nbytes
            while self._bytes > self.max_bytes:
                _, (old, _) = self._entries.popitem(last=False)
                self._bytes -= old.nbytes


class _ParetoRounds(Rounds):
    """The rounds of PrivPareto: the Pareto score (and ``delta^PS``) recomputed on the remaining candidates.

    The state that counts dominance is built at rounds 0, R, 2R, ... (R = ``_REBUILD_AFTER``) on the
    candidates remaining then, and told about every later pick; with a :class:`RoundCache`, a round the
    cache answers needs no state, and the state is built (with the same removals) only at the first round
    the cache cannot answer, so the scores are the very floats computed without a cache.
    """

    def __init__(self, objs: list[Objective], sensitivity: str, cache: RoundCache | None):
        self.objs = objs
        self.sensitivity = sensitivity
        self.cache = cache
        self.n = objs[0].n
        self.all_idx = np.arange(self.n, dtype=np.intp)
        self.state: _ParetoState | None = None
        self.state_round = -1
        self.base = self.all_idx  # the original indices the state was built on
        self.score_name = "dampened Pareto score" if sensitivity == "local" else "Pareto score"

    def scores(self, chosen, remaining):
        r = len(chosen)
        r0 = r - r % _REBUILD_AFTER  # the round whose candidates the state is built on
        if self.state_round != r0:
            self.state = None
        cache = self.cache
        key = (self.sensitivity, tuple(chosen))
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            return hit
        if self.state is None:
            base = np.delete(self.all_idx, chosen[:r0]) if r0 else self.all_idx
            state = cache.state() if cache is not None and r0 == 0 else None
            if state is None:
                sub = self.objs if base.size == self.n else [o.take(base) for o in self.objs]
                state = _ParetoState(sub, keep_all=cache is not None and r0 == 0)
            for c in chosen[r0:]:
                state.remove(int(np.searchsorted(base, c)))
            self.state, self.state_round, self.base = state, r0, base
        local_idx = np.searchsorted(self.base, remaining)  # base and remaining are sorted
        scores, sens = _round_scores(self.state, local_idx, self.sensitivity)
        if cache is not None:
            cache.put(key, scores, sens)
            if r == 0:
                cache.keep_state(self.state)
        return scores, sens

    def chosen(self, candidate: int) -> None:
        if self.state is not None:
            self.state.remove(int(np.searchsorted(self.base, candidate)))


class ParetoApproach(Approach):
    """``approach="pareto"`` of :func:`dpmo.selection.select_multiobjective`: PrivPareto's rounds (the
    Pareto score, global sensitivity ``n_round - 1``, or dampened with :func:`pareto_sensitivity`)."""

    name = "pareto"

    def rounds(self, objectives, weights, sensitivity, cache) -> Rounds:
        store = None if cache is None else cache.slot(("pareto-rounds",), RoundCache)
        return _ParetoRounds(list(objectives), sensitivity, store)

    def utility(self, objectives, weights, remaining):
        U = np.column_stack([o.values for o in objectives])
        return pareto_score(U[remaining])


register_approach(ParetoApproach())
