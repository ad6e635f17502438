"""One step of local dampening's bracketing loop, compiled (:func:`bracket`).

:func:`dpmo.dampen` brackets each candidate's ``|u|`` between consecutive breakpoints
``b_t = sum_{j < t} max(delta(j), c)`` (module notes of :mod:`dpmo.dampening`). One step (or block of
distances) of that loop over the candidates not yet bracketed is a single compiled pass here, with the
floating-point operations of the vectorised numpy form in the same order (``tests/test_dampening.py``
compares them bit for bit), so the dampened scores are the same floats; on 10^7 candidates the numpy form
took about fifteen passes and as many temporaries of the candidates' size.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["bracket"]


def bracket(d, b, a, active, t: int, G, floor: float, D) -> tuple[np.ndarray, np.ndarray]:
    """One step (or block of ``B`` steps) of :func:`dpmo.dampen`'s loop on the candidates ``active``.

    ``d`` (B, q): their deltas at ``t .. t + B - 1`` (capped); ``b``: their breakpoints ``b_t``. Writes
    ``D`` of the candidates bracketed in the block and returns (not bracketed, ``b_{t+B}``). One compiled
    pass over the candidates with the floating-point operations of the vectorised form, so the same
    floats: ``ends = b + cumsum(max(d, floor))`` along the block, ``D = (t + j) + (|u| - (ends_j - d_j)) /
    d_j`` at the first ``j`` where ``|u| < ends_j`` or ``d_j >= Delta u``. O(B q) time, no temporaries of
    size q besides the two results.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.zeros(2)
    >>> # |u| = 0.5 lies in the first segment [0, 2): D = 0 + 0.5 / 2; |u| = 5 is past b_1 = 2
    >>> d, b0, u = np.array([[2.0, 2.0]]), np.zeros(2), np.array([0.5, 5.0])
    >>> keep, b1 = bracket(d, b0, u, np.arange(2), 0, None, 1e-9, D)
    >>> keep.tolist(), float(b1[1]), D.tolist()
    ([False, True], 2.0, [0.25, 0.0])
    """
    keep = np.empty(d.shape[1], dtype=np.bool_)
    b_next = np.empty(d.shape[1])
    has_cap = G is not None
    _bracket_kernel(d, b, a, active, t, float(G) if has_cap else 0.0, has_cap, floor, D, keep, b_next)
    return keep, b_next


@numba.njit(cache=True, nogil=True)
def _bracket_kernel(d, b, a, active, t, G, has_cap, floor, D, keep, b_next):  # pragma: no cover - compiled
    B, q = d.shape
    for c in range(q):
        r = active[c]
        ac = a[r]
        bc = b[c]
        s = 0.0
        keep[c] = True
        for j in range(B):
            dj = d[j, c]
            if not dj >= floor:  # np.maximum(d, floor) (d is finite)
                dj = floor
            # np.cumsum: s_0 = d_0, s_j = s_{j-1} + d_j; then ends_j = b + s_j
            s = dj if j == 0 else s + dj
            e = bc + s
            if ac < e or (has_cap and dj >= G):  # from d >= G on, the closed form with Delta u holds
                D[r] = np.float64(t + j) + (ac - (e - dj)) / dj
                keep[c] = False
                break
        b_next[c] = bc + s
