"""PrivPareto's rounds among few candidates, one compiled pass per round (:func:`small_round_scores`).

On a small candidate set (DP-MOET selects among 30-130 trees) the work of a round of local PrivPareto is
tiny, and the general path (:class:`dpmo.pareto.state.ParetoState` driven by :func:`dpmo.dampen`) spends
its time in Python around it: a call of the local function, a validation and a few array allocations per
block of distances. Here one compiled kernel computes a round's Pareto scores, ``delta^PS`` at every
distance the dampening loop asks for, and the dampened scores, with the same floats:

* **Running sums.** ``S[t, i, r] = S[t - 1, i, r] + min(delta^{u_i}(t, r), Delta u_i)`` for the distances
  ``0 .. T - 1`` are one table (:class:`RunningSums`), made once per selection for all its rounds (it does
  not depend on which candidates were chosen) and extended by doubling when a round needs a further
  distance. The rows are added one distance after the other (``np.cumsum`` along the distances is
  sequential), the additions of the general path in its order: the same floats. Every chunk of deltas is
  validated as the general path validates it (shape, finite, non-negative, non-decreasing in ``t``).
* **delta^PS by thresholds.** For a candidate ``r`` and another ``x``, the conditions of the identity of
  :mod:`dpmo.pareto`, ``u_i(x) + S_i(x) >= u_i(r) - S_i(r)`` for every ``i`` ("x can dominate r") and
  ``u_i(x) - S_i(x) > u_i(r) + S_i(r)`` for every ``i`` ("x surely dominates r"), are monotone in ``t``
  *as evaluated in floating point*: the sums do not decrease in ``t`` (non-negative addends) and rounding
  is monotone, so the first holds from some distance ``tau(x, r)`` on and the second up to some
  ``sigma(x, r)``. Both are found by bisection in the table (O(m log T) per pair) and
  ``delta^PS(t, r) = #{x : tau <= t} - 1 - #{x : sigma > t}`` (``r`` itself has ``tau = sigma = 0``) is
  then a count in two sorted arrays: the same integers as the direct comparison at ``t`` that every
  counting path of the general one gives, for O(log n) per distance instead of O(n m).
* **The dampening loop** is :func:`dpmo.dampen`'s own, step for step: the same blocks of distances (sizes
  from the number of candidates still unbracketed), the same bracketing arithmetic
  (:func:`dpmo.breakpoints.bracket`), the same look-ahead probes over runs of constant deltas and the same
  cap, so the dampened scores are the same floats (``tests/test_pareto_small.py`` compares the two paths
  bit for bit). The loop's refusal of a decreasing ``delta^PS`` cannot fire here: with the objectives'
  deltas checked non-decreasing, ``delta^PS`` (a count that grows minus one that shrinks) never decreases.

The path is taken when a selection has at most :data:`SMALL_N` candidates and, for local sensitivity,
every objective's function is None or evaluates blocks of distances (``vectorized_t``), the case in which
the general loop asks for blocks too: sizes and declared capabilities only, never the data. A round whose
table would exceed :data:`MAX_TABLE_CELLS` goes to the general path, which gives the same scores.
"""

from __future__ import annotations

import numba
import numpy as np

from ..sensitivity import Objective, check_local_values, check_non_decreasing

__all__ = ["SMALL_N", "MAX_TABLE_CELLS", "RunningSums", "small_path_applies", "small_round_scores"]

#: The compiled path serves selections among at most this many candidates.
SMALL_N = 128
#: Largest table of running sums (distances x objectives x candidates) a selection may hold (16 MB).
MAX_TABLE_CELLS = 1 << 21
#: Distances in a new table (then doubled as needed).
_FIRST_ROWS = 64

# dpmo.dampen's constants (dpmo.dampening) for a stepwise function evaluated in blocks
_FIRST_BLOCK_CELLS = 2**9
_MAX_BLOCK = 4096
_MAX_BLOCK_CELLS = 2**16
_FIRST_PROBE = 16
_STEPWISE_PROBE_AFTER_CALLS = 6
#: dpmo.dampen's default max_steps and floor (relative to the global sensitivity n_r - 1).
_MAX_STEPS = 100_000
_FLOOR = 1e-9


def _vectorized(local) -> bool:
    return local is None or (
        bool(getattr(local, "vectorized_t", False)) and bool(getattr(local, "supports_index", False))
    )


def small_path_applies(objectives: list[Objective], sensitivity: str) -> bool:
    """Whether a selection among ``objectives`` takes the compiled path (sizes and declared capabilities
    only: at most :data:`SMALL_N` candidates and, for ``"local"``, every local function vectorised).
    O(m).

    Examples
    --------
    >>> import dpmo
    >>> small_path_applies([dpmo.Objective([1.0, 2.0], 1.0)], "global")
    True
    """
    if objectives[0].n > SMALL_N:
        return False
    return sensitivity == "global" or all(_vectorized(o.local) for o in objectives)


class RunningSums:
    """The running sums ``S[t, i, r] = sum_{j <= t} min(delta^{u_i}(j, r), Delta u_i)`` of a selection.

    Rows ``0 .. T - 1`` are held (:attr:`S`, shape (T, m, n)); :meth:`extend` adds rows (at least doubling),
    each the previous one plus the deltas of its distance. O(T m n) memory, O(m n) per row added plus the
    objectives' functions.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> quarter = dpmo.LocalSensitivity(lambda t, idx=None: np.full(np.shape(t)[:1] + (2,), 0.25),
    ...                                 vectorized_t=True)  # (B, 1) distances -> (B, 2) deltas
    >>> sums = RunningSums([dpmo.Objective([0.0, 1.0], 1.0, quarter)])
    >>> sums.extend(3)
    >>> sums.S[:3, 0, 0].tolist()
    [0.25, 0.5, 0.75]
    """

    def __init__(self, objectives: list[Objective]):
        self.objectives = objectives
        self.U = np.ascontiguousarray(np.vstack([o.values for o in objectives]))  # (m, n)
        self.m, self.n = self.U.shape
        self.S = np.zeros((0, self.m, self.n))
        self._last: list = [None] * self.m  # each objective's deltas at the last distance held

    @property
    def rows(self) -> int:
        return self.S.shape[0]

    def fits(self, rows: int) -> bool:
        """Whether a table of ``rows`` distances stays within :data:`MAX_TABLE_CELLS`."""
        return rows * self.m * self.n <= MAX_TABLE_CELLS

    def extend(self, rows: int) -> None:
        """Hold at least ``rows`` distances (``rows`` must fit)."""
        t0 = self.rows
        if rows <= t0:
            return
        rows = min(max(rows, 2 * t0, _FIRST_ROWS), MAX_TABLE_CELLS // (self.m * self.n))
        B = rows - t0
        S = np.empty((rows, self.m, self.n))
        S[:t0] = self.S
        ts = np.arange(t0, rows, dtype=np.int64)[:, None]
        for i, o in enumerate(self.objectives):
            G = float(o.global_sensitivity)
            if o.local is None:
                _add_constant(S, t0, i, G)
                continue
            raw = o.local(ts, None)
            d = np.asarray(raw, dtype=np.float64)
            last = self._last[i]
            if d.shape != (B, self.n) or not _add_deltas(S, t0, i, d, G, _NONE if last is None else last):
                # refused: the general path's checks, in its order, say why (they raise)
                name = f"objective {o.name!r}"
                d = check_local_values(raw, (B, self.n), f"{t0}..{rows - 1}", name)
                check_non_decreasing(np.minimum(d, G), t0, name, last)
                raise ValueError(f"local sensitivity of {name} is not admissible near t={t0}")  # unreachable
            self._last[i] = np.minimum(d[-1], G)
        self.S = S


_NONE = np.empty(0)


@numba.njit(cache=True, nogil=True)
def _add_constant(S, t0, i, G):  # pragma: no cover - compiled
    """``S[t, i] = S[t - 1, i] + G`` for ``t >= t0`` (``S[-1] = 0``)."""
    for t in range(t0, S.shape[0]):
        for x in range(S.shape[2]):
            S[t, i, x] = (S[t - 1, i, x] if t > 0 else 0.0) + G


@numba.njit(cache=True, nogil=True)
def _add_deltas(S, t0, i, d, G, last):  # pragma: no cover - compiled
    """``S[t, i] = S[t - 1, i] + min(d[t - t0], G)`` for ``t >= t0`` (``S[-1] = 0``: the general path's
    ``zeros += delta``), one distance after the other; False (and ``S`` partly written) when a delta is
    not finite, negative, or (capped) smaller than at the distance before (``last``: the capped deltas at
    ``t0 - 1``, empty at 0)."""
    B, n = d.shape
    for b in range(B):
        t = t0 + b
        for x in range(n):
            v = d[b, x]
            if not (v >= 0.0 and v < np.inf):  # NaN fails too
                return False
            if v > G:
                v = G
            if b > 0:
                p = d[b - 1, x]
                if v < (p if p <= G else G):
                    return False
            elif last.shape[0] and v < last[x]:
                return False
            S[t, i, x] = (S[t - 1, i, x] if t > 0 else 0.0) + v
    return True


def small_round_scores(sums: RunningSums, remaining: np.ndarray, sensitivity: str):
    """``(scores, sensitivity)`` of one round of PrivPareto among the candidates ``remaining``, or None when
    the running sums it needs would not fit (the caller then takes the general path).

    The same floats as :func:`dpmo.pareto.rounds.round_scores` on a state holding the same candidates:
    ``(PS, n_r - 1)`` for ``"global"``; for ``"local"`` the dampened scores of
    ``dpmo.dampen(PS, delta^PS, global_sensitivity=n_r - 1)`` with the loop's blocks of distances, and 1.

    Notes
    -----
    O(n_r^2 m) for the Pareto scores; for ``"local"`` O(n_r^2 m log T) for the thresholds and
    O(log n_r) per (candidate, distance) the loop visits, T the distances reached (at most ``max_steps``
    of :func:`dpmo.dampen`), plus extending the running sums when T grows.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> from dpmo.pareto.rounds import round_scores
    >>> from dpmo.pareto.state import ParetoState
    >>> def quarter(t, idx=None):  # a constant local sensitivity, for one distance or a block (B, 1)
    ...     return np.full(np.shape(t)[:1] + ((4,) if idx is None else np.shape(idx)), 0.25)
    >>> objs = [dpmo.Objective([3.0, 1.0, 2.0, 0.0], 1.0, dpmo.LocalSensitivity(quarter, vectorized_t=True)),
    ...         dpmo.Objective([1.0, 3.0, 2.0, 0.0], 1.0)]
    >>> rem = np.array([0, 1, 3])
    >>> D, sens = small_round_scores(RunningSums(objs), rem, "local")
    >>> state = ParetoState(objs); state.remove(2)
    >>> want, _ = round_scores(state, rem, "local")
    >>> bool(np.array_equal(D, want)), sens
    (True, 1.0)
    """
    rem = np.ascontiguousarray(remaining, dtype=np.int64)
    q = rem.size
    out = np.empty(q)
    local = sensitivity == "local"
    G = float(q - 1)
    while True:
        need = _round_kernel(sums.U, sums.S, rem, local, _FLOOR * G, _MAX_STEPS, out)
        if need < 0:
            break
        if not sums.fits(need):
            return None
        sums.extend(need)
    return out, (1.0 if local else G)


@numba.njit(cache=True, nogil=True)
def _thresholds(U, S, rem, c, tau, sig):  # pragma: no cover - compiled
    """Row ``c`` of ``tau`` / ``sig`` (sorted): for every ``x`` in ``rem``, the first distance in
    ``[0, T)`` from which ``x`` can dominate ``r = rem[c]``, and the first from which it no longer surely
    dominates it (``T`` when there is none in the table); both conditions are monotone in ``t``."""
    m = U.shape[0]
    T = S.shape[0]
    r = rem[c]
    for k in range(rem.shape[0]):
        x = rem[k]
        t_can = 0
        t_sure = T
        for i in range(m):
            ux = U[i, x]
            ur = U[i, r]
            # can_i(t): ux + S[t, i, x] >= ur - S[t, i, r], false then true
            if t_can < T and not (ux + S[t_can, i, x] >= ur - S[t_can, i, r]):
                lo = t_can + 1
                hi = T
                while lo < hi:
                    mid = (lo + hi) // 2
                    if ux + S[mid, i, x] >= ur - S[mid, i, r]:
                        hi = mid
                    else:
                        lo = mid + 1
                t_can = lo
            # sure_i(t): ux - S[t, i, x] > ur + S[t, i, r], true then false
            if t_sure > 0:
                if not (ux - S[0, i, x] > ur + S[0, i, r]):
                    t_sure = 0
                else:
                    lo = 1
                    hi = t_sure
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if ux - S[mid, i, x] > ur + S[mid, i, r]:
                            lo = mid + 1
                        else:
                            hi = mid
                    t_sure = lo
        tau[c, k] = t_can
        sig[c, k] = t_sure
    tau[c].sort()
    sig[c].sort()


@numba.njit(cache=True, nogil=True, inline="always")
def _delta_ps(tau, sig, c, t, G):  # pragma: no cover - compiled
    """``min(delta^PS(t, rem[c]), n_r - 1)`` from the sorted thresholds, as a float."""
    q = tau.shape[1]
    can = np.searchsorted(tau[c], t, side="right")  # #{x : tau <= t}, r itself included
    sure = q - np.searchsorted(sig[c], t, side="right")  # #{x : sigma > t}
    d = float(can - 1 - sure)
    return d if d <= G else G


@numba.njit(cache=True, nogil=True)
def _round_kernel(U, S, rem, local, floor, max_steps, out):  # pragma: no cover - compiled
    """The scores of one round into ``out``; returns -1, or the number of distances of running sums it
    needs when ``S`` holds fewer (the caller extends ``S`` and calls again).

    The loop is :func:`dpmo.dampening._dampened` for a stepwise function evaluated in blocks, with the
    bracketing of :func:`dpmo.breakpoints.bracket` (operations in the same order: the same floats)."""
    m = U.shape[0]
    q0 = rem.shape[0]
    T_avail = S.shape[0]
    u = np.empty(q0)
    for c in range(q0):  # Pareto scores among rem: minus the others that weakly dominate
        r = rem[c]
        k = 0
        for x in rem:
            if x == r:
                continue
            dom = True
            for i in range(m):
                if U[i, x] < U[i, r]:
                    dom = False
                    break
            k += dom
        u[c] = float(-k)
    if not local:
        out[:] = u
        return -1
    G = float(q0 - 1)
    # the first block's distances must be in the table before any threshold is taken
    block = max(1, _FIRST_BLOCK_CELLS // q0)
    first = max(1, min(block, max_steps, _MAX_BLOCK, _MAX_BLOCK_CELLS // q0))
    if first > T_avail:
        return first
    a = np.abs(u)
    tau = np.empty((q0, q0), np.int64)
    sig = np.empty((q0, q0), np.int64)
    for c in range(q0):
        if a[c] != 0.0:  # a candidate on the front is bracketed at distance 0 whatever delta^PS is
            _thresholds(U, S, rem, c, tau, sig)
    D = np.zeros(q0)
    act = np.arange(q0)
    na = q0
    b = np.zeros(q0)
    prev = np.zeros(q0)
    t = 0
    probe_at = _FIRST_PROBE
    calls = 0
    w = np.empty(q0)
    s_need = np.empty(q0)
    d_p = np.empty(q0)
    same = np.empty(q0, np.bool_)
    while na > 0:
        if t >= max_steps:
            for c in range(na):
                D[act[c]] = float(t) + (a[act[c]] - b[c]) / G
            break
        B = max(1, min(block, max_steps - t, _MAX_BLOCK, _MAX_BLOCK_CELLS // na))
        if t + B > T_avail:
            return t + B
        kept = 0
        for c in range(na):  # dpmo.breakpoints.bracket, evaluating delta^PS as the candidate needs it
            j_r = act[c]
            ac = a[j_r]
            bc = b[c]
            s = 0.0
            last = 0.0
            stopped = ac == 0.0  # at t = 0: D = 0 + (0 - (d - d)) / d = 0 (D is 0 already)
            for j in range(0 if stopped else B):
                dv = _delta_ps(tau, sig, j_r, t + j, G)
                dj = dv if dv >= floor else floor
                s = dj if j == 0 else s + dj
                e = bc + s
                if ac < e or dj >= G:
                    D[j_r] = np.float64(t + j) + (ac - (e - dj)) / dj
                    stopped = True
                    break
                last = dv
            if not stopped:
                act[kept] = j_r
                b[kept] = bc + s
                prev[kept] = last
                kept += 1
        na = kept
        t += B
        block *= 2
        calls += 1
        if na > 0 and t >= probe_at and calls >= _STEPWISE_PROBE_AFTER_CALLS and t < max_steps:
            # a run of constant deltas in closed form (dpmo.dampen's probe)
            span = min(max(_FIRST_PROBE, 2 * t), max_steps - t)
            t_p = t + span - 1
            if t_p >= T_avail:
                return t_p + 1
            all_same = True
            for c in range(na):
                j_r = act[c]
                w[c] = prev[c] if prev[c] >= floor else floor
                s_need[c] = (a[j_r] - b[c]) / w[c]
                d_p[c] = _delta_ps(tau, sig, j_r, t_p, G)
                dpf = d_p[c] if d_p[c] >= floor else floor
                same[c] = dpf == w[c] and d_p[c] < G
                all_same = all_same and same[c]
            kept = 0
            for c in range(na):
                j_r = act[c]
                if same[c] and s_need[c] < span:
                    D[j_r] = float(t) + s_need[c]
                    continue
                act[kept] = j_r
                if all_same:
                    b[kept] = b[c] + span * w[c]
                    prev[kept] = d_p[c]
                else:
                    b[kept] = b[c]
                    prev[kept] = prev[c]
                kept += 1
            na = kept
            if all_same:
                t = t_p + 1
                probe_at = t
            else:
                probe_at = 2 * t
    for c in range(q0):
        sg = 1.0 if u[c] > 0.0 else (-1.0 if u[c] < 0.0 else 0.0)
        out[c] = sg * D[c]
    return -1
