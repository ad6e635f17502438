"""Local dampening's breakpoints: one step of the bracketing loop (:func:`bracket`), the closed form.

:func:`dpmo.dampen` brackets each candidate's ``|u|`` between consecutive breakpoints
``b_t = sum_{j < t} max(delta(j), c)`` (module notes of :mod:`dpmo.dampening`). One step (or block of
distances) of that loop over the candidates not yet bracketed is a single compiled pass here, with the
floating-point operations of the vectorised numpy form in the same order (``tests/test_dampening.py``
compares them bit for bit), so the dampened scores are the same floats; on 10^7 candidates the numpy form
took about fifteen passes and as many temporaries of the candidates' size. :func:`checked_bracket` makes
the loop's checks of the local function's output (finite, non-negative; capped, non-decreasing) in the same
pass: at a few candidates each numpy call of those checks cost more than the step itself.

:func:`closed_form_scores` is :func:`dpmo.dampen` for a function whose breakpoints are known in closed
form, by search (:func:`first_true`: the first distance at which a monotone per-candidate test holds, 31
distances per candidate and call); :func:`rising_floor` closes the loop at ``max_steps`` without a global
sensitivity (both paths of :func:`dpmo.dampen` use it).
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernel_args import kernel_input
from .sensitivity import check_local_values, check_non_decreasing

__all__ = ["bracket", "checked_bracket", "first_true", "closed_form_scores", "rising_floor"]


def bracket(d, b, u, active, t: int, G, floor: float, D) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step (or block of ``B`` steps) of :func:`dpmo.dampen`'s loop on the candidates ``active``.

    ``d`` (B, q): their deltas at ``t .. t + B - 1`` (capped); ``b``: their breakpoints ``b_t`` (None: all
    0, the loop's first step); ``u``: the utilities of all n candidates (the loop brackets ``|u|``);
    ``active``: the candidates' indices (None: all n, in order). Writes ``D`` of the candidates bracketed
    in the block (``D`` may be ``u`` itself: a candidate's ``u`` is read before its ``D`` is written) and
    returns, for the others in order: their indices, ``b_{t+B}`` and their deltas at ``t + B - 1``. One
    compiled pass over the candidates with the floating-point operations of the vectorised form, so the
    same floats: ``ends = b + cumsum(max(d, floor))`` along the block, ``D = ((t + j) + (|u| - (ends_j -
    d_j)) / d_j) * sign(u)`` at the first ``j`` where ``|u| < ends_j`` or ``d_j >= Delta u``. O(B q) time.
    The three results are written only as far as candidates are left, so the pages of a step that
    brackets every candidate are never touched (at 10^7 candidates each fresh array of n values costs the
    kernel's zeroing of its pages).

    Examples
    --------
    >>> import numpy as np
    >>> D = np.zeros(2)
    >>> # |u| = 0.5 lies in the first segment [0, 2): D = 0 + 0.5 / 2; |u| = 5 is past b_1 = 2
    >>> d, u = np.array([[2.0, 2.0]]), np.array([0.5, -5.0])
    >>> left, b1, last = bracket(d, None, u, None, 0, None, 1e-9, D)
    >>> left.tolist(), b1.tolist(), last.tolist(), D.tolist()
    ([1], [2.0], [2.0], [0.25, 0.0])
    >>> _ = bracket(d, None, -u, None, 0, None, 1e-9, D)  # the sign of u is the sign of D
    >>> D.tolist()
    [-0.25, 0.0]
    """
    return _step(d, b, u, active, t, G, floor, D, None)


def checked_bracket(d, b, u, active, t: int, G, floor: float, D, previous):
    """:func:`bracket` on a local function's raw deltas ``d`` (float64, shape (B, q)), after the checks of
    the dampening loop in the same compiled pass: every delta finite and non-negative
    (:func:`dpmo.sensitivity.check_local_values`), then, capped at ``Delta u``, non-decreasing along the
    block and from ``previous`` (the capped deltas at ``t - 1``, or None;
    :func:`dpmo.sensitivity.check_non_decreasing`). None when a check fails, before anything is written
    (the caller then runs those checks, which raise their errors). The same results as capping ``d`` and
    calling :func:`bracket` (``min(d, Delta u)`` is ``d`` or ``Delta u``). O(B q) time.
    """
    return _step(d, b, u, active, t, G, floor, D, _NO_VALUES if previous is None else np.asarray(previous))


_NO_VALUES = np.empty(0)
_NO_INDICES = np.empty(0, dtype=np.intp)
_NO_PREVIOUS = kernel_input(_NO_VALUES, np.float64)
# the kernel's switches, one int (each argument of a compiled call costs its dispatch a type check)
_BY_COLUMN, _FIRST, _IDENTITY, _HAS_CAP, _CHECK = 1, 2, 4, 8, 16


def _step(d, b, u, active, t, G, floor, D, previous):
    """:func:`bracket` (``previous`` None) or :func:`checked_bracket` (an array: the checks are made)."""
    q = d.shape[1]
    left = np.empty(q, dtype=np.intp)
    ends = np.empty((2, q))  # b_{t+B} and the last deltas of the candidates left
    by_column = d.flags.f_contiguous and not d.flags.c_contiguous  # read through d.T: no copy
    mode = (
        (_BY_COLUMN if by_column else 0)
        | (_FIRST if b is None else 0)
        | (_IDENTITY if active is None else 0)
        | (_HAS_CAP if G is not None else 0)
        | (_CHECK if previous is not None else 0)
    )
    kept = _bracket_kernel(
        kernel_input(d.T if by_column else d, np.float64),  # one compiled signature for both layouts
        mode,
        _NO_VALUES if b is None else b,
        kernel_input(u, np.float64),  # read-only view (one compiled signature); D may be u: read first
        _NO_INDICES if active is None else active,
        t,
        0.0 if G is None else float(G),
        floor,
        D,
        left,
        ends,
        _NO_PREVIOUS if previous is None or not previous.size else kernel_input(previous, np.float64),
    )
    if kept < 0:
        return None
    if not kept:  # every candidate bracketed: nothing to copy
        return left[:0], ends[0, :0], ends[1, :0]
    if kept * 2 < q:  # drop the unused tails (no copy of a large array: most are gone by then)
        return left[:kept].copy(), ends[0, :kept].copy(), ends[1, :kept].copy()
    return left[:kept], ends[0, :kept], ends[1, :kept]


@numba.njit(cache=True, nogil=True)
def _bracket_kernel(d, mode, b, u, active, t, G, floor, D, left, ends, prev):  # pragma: no cover - compiled
    # d: the (B, q) deltas, or their transpose (mode & _BY_COLUMN); capped at G here (min(d, G): d or G)
    by_column, first, identity = (mode & 1) != 0, (mode & 2) != 0, (mode & 4) != 0
    has_cap, check = (mode & 8) != 0, (mode & 16) != 0
    B, q = (d.shape[1], d.shape[0]) if by_column else (d.shape[0], d.shape[1])
    if check:  # checked_bracket: refused (-1) before anything is written
        for c in range(q):
            below = prev[c] if prev.size else -np.inf
            for j in range(B):
                dj = d[c, j] if by_column else d[j, c]
                if not (dj >= 0.0 and dj < np.inf):  # check_local_values: finite and non-negative
                    return -1
                if has_cap and dj > G:
                    dj = G
                if dj < below:  # check_non_decreasing, on the capped deltas
                    return -1
                below = dj
    kept = 0
    for c in range(q):
        r = c if identity else active[c]
        ur = u[r]  # read before D[r] is written (D may be u)
        ac = abs(ur)
        sg = 1.0 if ur > 0 else (-1.0 if ur < 0 else 0.0)  # np.sign(ur) (u is finite)
        bc = 0.0 if first else b[c]
        s = 0.0
        done = False
        for j in range(B):
            dj = d[c, j] if by_column else d[j, c]
            if has_cap and dj > G:
                dj = G
            if not dj >= floor:  # np.maximum(d, floor) (d is finite)
                dj = floor
            # np.cumsum: s_0 = d_0, s_j = s_{j-1} + d_j; then ends_j = b + s_j
            start = bc if j == 0 else bc + s  # ends_{j-1}: finite (else the loop stopped at j - 1)
            s = dj if j == 0 else s + dj
            e = bc + s
            if ac < e or (has_cap and dj >= G):  # from d >= G on, the closed form with Delta u holds
                # ends_j - d_j is the segment's start; where ends_j passed the floats (inf) it is
                # ends_{j-1} itself (inf - d_j gave a score of -inf: the sign of D flipped)
                lo = e - dj if e < np.inf else start
                D[r] = (np.float64(t + j) + (ac - lo) / dj) * sg
                done = True
                break
        if not done:
            left[kept] = r
            ends[0, kept] = bc + s
            dl = d[c, B - 1] if by_column else d[B - 1, c]
            ends[1, kept] = G if has_cap and dl > G else dl
            kept += 1
    return kept


#: Distances probed per candidate and round by :func:`first_true` (rounds: log base 32 of the range).
_SEARCH_POINTS = 31


def first_true(pred, idx: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """For each candidate ``idx[c]``, the first distance ``t`` in ``[lo[c], hi[c]]`` with ``pred`` true, given
    that ``pred`` is false then true along ``t`` (monotone) and true at ``hi[c]`` (never evaluated there).

    ``pred(T, cand)`` answers for one distance per candidate (``T`` and ``cand`` of the same length; a
    candidate may appear several times). Each round asks :data:`_SEARCH_POINTS` distances per candidate
    still open, spread over its interval, in one call: ``ceil(log_32(hi - lo + 1))`` rounds instead of the
    ``log_2`` rounds of a bisection, and for a monotone predicate the same answer (the only one).
    O(len(idx) * 31) per round.

    Examples
    --------
    >>> import numpy as np
    >>> first_true(lambda T, c: T * T >= 1000 + c, np.arange(3), np.zeros(3, np.int64),
    ...            np.full(3, 10**6, np.int64)).tolist()  # first t with t^2 >= 1000, 1001, 1002
    [32, 32, 32]
    """
    lo = np.array(lo, dtype=np.int64)
    hi = np.array(hi, dtype=np.int64)
    idx = np.asarray(idx, dtype=np.int64)
    act = np.flatnonzero(lo < hi)
    while act.size:
        pts, cand = _points(lo, hi, act, idx, _SEARCH_POINTS)  # (q K,) distances in [lo, hi)
        hit = np.asarray(pred(pts, cand), dtype=np.bool_)
        if hit.shape != pts.shape:
            raise ValueError(f"pred must answer one bool per distance, shape {pts.shape}, got {hit.shape}")
        act = act[: _narrow(hit, pts, lo, hi, act, _SEARCH_POINTS)]
    return lo


@numba.njit(cache=True, nogil=True)
def _points(lo, hi, act, idx, K):  # pragma: no cover - compiled
    """The ``K`` distances ``lo + floor((hi - lo) j / (K + 1))``, ``j = 1 .. K``, of every open candidate (in
    ``[lo, hi)``, non-decreasing), flattened, and the candidate of each."""
    q = act.shape[0]
    pts = np.empty(q * K, np.int64)
    cand = np.empty(q * K, np.int64)
    for c in range(q):
        a = act[c]
        w = hi[a] - lo[a]
        for j in range(K):
            pts[c * K + j] = lo[a] + (w * (j + 1)) // (K + 1)
            cand[c * K + j] = idx[a]
    return pts, cand


@numba.njit(cache=True, nogil=True)
def _narrow(hit, pts, lo, hi, act, K):  # pragma: no cover - compiled
    """Shrink each open interval to the one holding the first true point (``(pts[j - 1], pts[j]]``; none
    true: ``(pts[K - 1], hi]``); the candidates still open are moved to the front of ``act``, their number
    returned."""
    kept = 0
    for c in range(act.shape[0]):
        a = act[c]
        j = 0
        while j < K and not hit[c * K + j]:
            j += 1
        if j < K:
            hi[a] = pts[c * K + j]
            if j > 0:
                lo[a] = pts[c * K + j - 1] + 1
        else:
            lo[a] = pts[c * K + K - 1] + 1
        if lo[a] < hi[a]:
            act[kept] = a
            kept += 1
    return kept


#: Largest width of the rising floor (keeps every breakpoint finite).
_MAX_WIDTH = 2.0**1020


def rising_floor(rem: np.ndarray, T: int, cand: np.ndarray, delta_at, floor: float) -> np.ndarray:
    """``|D| - T`` for candidates unbracketed at distance ``T = max_steps`` without a global sensitivity.

    ``rem = |u| - b_T``. From ``T`` on the deltas are ``max(delta(t), c_t)`` with the public, non-decreasing
    floor ``c_t = max(min(floor * 2^(t - T + 1), 2^1020), floor)`` (admissible, module notes; never below
    ``floor``, which may exceed ``2^1020``). ``delta_at(t, idx)``
    gives the deltas of the candidates ``idx`` at distance ``t``; ``cand`` are the candidates of ``rem``.
    Tracks ``|u| - b_t``, which only decreases, so nothing overflows. At most about 1,100 steps for any
    finite ``|u|``.
    """
    rem = np.array(rem, dtype=np.float64)
    out = np.empty(rem.size)
    act = np.arange(rem.size)
    k = 0
    c_t = floor
    while act.size:
        c_t = max(min(2.0 * c_t, _MAX_WIDTH), floor)
        width = np.maximum(delta_at(T + k, cand[act]), c_t)
        stop = rem[act] < width
        hit = act[stop]
        out[hit] = k + rem[hit] / width[stop]
        go = act[~stop]
        rem[go] -= width[~stop]
        act = go
        k += 1
    return out


def closed_form_scores(a, local, G, floor, max_steps: int, name: str) -> np.ndarray:
    """``|D|`` from closed-form breakpoints ``b(T) = local.cumulative(T)``, by search.

    The loop stops a candidate at the first step ``j`` with ``|u| < b'(j + 1)`` or ``delta(j) >= Delta u``
    (or at ``max_steps``), where ``b'`` sums the floored deltas ``max(delta, c)``. Here, per candidate, with
    ``delta`` non-decreasing: ``t_c`` (first distance with ``delta >= c``: the floor acts only before it),
    ``t_G`` (first distance with ``delta >= Delta u``, else ``max_steps``; ``t_c <= t_G``),
    ``b'(T) = c min(T, t_c) + b(T) - b(min(T, t_c))`` and ``T = max{t <= t_G : b'(t) <= |u|}``, all found by
    :func:`dpmo.breakpoints.first_true` (31 distances per candidate and call: ``ceil(log_32 max_steps)``
    calls per search, 4 at the default 100,000, where a bisection makes 17; the same answers). That is the
    loop's segment: ``D = T + (|u| - b'(T)) / max(delta(T), c)`` when ``T < t_G``, else
    ``t_G + (|u| - b'(t_G)) / Delta u``. O(n log max_steps) evaluations of ``local`` and
    ``local.cumulative`` in O(log_32 max_steps) calls; which path :func:`dampen` takes depends only on the
    function having a closed form.
    """
    n = a.size
    everyone = np.arange(n)
    where = "(one distance per candidate)"

    def delta(T, idx):
        return check_local_values(local(T, idx), (idx.size,), where, name)

    def cum(T, idx):
        return check_local_values(local.cumulative(T, idx), (idx.size,), where, f"{name} (cumulative)")

    def first_at_least(threshold) -> np.ndarray:
        """First distance in [0, max_steps) where delta >= threshold, max_steps when there is none."""
        out = np.full(n, max_steps, dtype=np.int64)
        at_zero = delta0 >= threshold
        out[at_zero] = 0
        later = np.flatnonzero(~at_zero)
        if not later.size:
            return out
        last = np.full(later.size, max_steps - 1, dtype=np.int64)
        reach = later[delta(last, later) >= threshold]
        # delta(0) < threshold <= delta(max_steps - 1): the first distance in (0, max_steps - 1]
        ones, ends = np.ones(reach.size, np.int64), last[: reach.size]
        out[reach] = first_true(lambda T, idx: delta(T, idx) >= threshold, reach, ones, ends)
        return out

    delta0 = delta(np.zeros(n, dtype=np.int64), everyone)
    # the searches see a few distances only: check monotonicity between t = 0 and the last distance
    check_non_decreasing(
        delta(np.full(n, max_steps - 1, dtype=np.int64), everyone), f"0..{max_steps - 1}", name, delta0
    )
    t_c = first_at_least(floor)
    floored = np.flatnonzero(t_c > 0)
    top = first_at_least(G) if G is not None else np.full(n, max_steps, dtype=np.int64)

    def cum_floored(T, idx):
        out = cum(T, idx)
        if floored.size:
            Tc = np.minimum(T, t_c[idx])
            low = Tc > 0
            if np.any(low):
                out[low] = out[low] - cum(Tc[low], idx[low]) + floor * Tc[low]
        return out

    # T = max{t <= top : b'(t) <= |u|} (b'(0) = 0 <= |u|): one before the first t in (0, top + 1] with
    # b'(t) > |u| (top + 1 stands for "none", never evaluated)
    T = first_true(lambda T, idx: cum_floored(T, idx) > a[idx], everyone, np.ones(n, np.int64), top + 1) - 1
    bT = cum_floored(T, everyone)
    D = np.empty(n)
    inside = np.flatnonzero(T < top)
    if inside.size:
        dT = delta(T[inside], inside)
        check_non_decreasing(dT, "(one distance per candidate)", name, delta0[inside])
        step = np.maximum(dT, floor)
        D[inside] = T[inside] + (a[inside] - bT[inside]) / step
    capped = np.flatnonzero(T >= top)
    if capped.size:
        if G is None:  # top == max_steps here: the public rising floor (module notes)
            D[capped] = max_steps + rising_floor(
                a[capped] - bT[capped],
                max_steps,
                capped,
                lambda t, idx: delta(np.full(idx.size, t, dtype=np.int64), idx),
                floor,
            )
        else:
            D[capped] = top[capped] + (a[capped] - bT[capped]) / G
    return D
