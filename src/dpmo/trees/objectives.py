"""True positive rate and true negative rate as objectives, with admissible local sensitivity.

The paper's Application 1 ("Problem Statement") scores a tree ``r`` on the private table ``x`` by

    TPR(x, r) = TP(x, r) / P(x),        TNR(x, r) = TN(x, r) / N(x)

(0 when the class is absent). Both lie in ``[0, 1]`` and their global sensitivity is 1 (the paper's
example with one record). The paper's local sensitivity function delta^TPR ("Sensitivity Analysis") is
**not admissible**: removing one false negative changes the rate by ``TP / (P (P - 1))`` while the printed
function gives ``(P - TP) / (P (P - 1))`` (``docs/errata.md``, point 1, and the tests). This module
uses the exact element local sensitivity at distance ``t`` instead, for each neighbouring relation:

**add/remove one record** (the relation of the paper's proofs, the default). For the rate ``h / s``
(``h`` hits = TP or TN, ``s`` = P or N) a positive record (for TPR) moves ``(h, s - h)`` by one unit in one
coordinate; with ``m = min(h, s - h)`` and ``M = max(h, s - h)``:

    delta(t) = 1                          if (t >= s - 1 and h >= 1) or t >= s
             = 1 / (s - t + 1)            else if h = 0 or h = s
             = M / ((s - t) (s - t - 1))  else if t < m
             = 1 / (s - t)                otherwise.

**substitution of one record** (Hamming distance, the paper's Definition 1). A record can also switch
between hit and miss, or between the classes, and the exact element local sensitivity is

    delta(t) = 1 if s - t <= 1, else 1 / (s - t).

Both are the exact element local sensitivities at distance ``t`` (the paper's Definition "Element Local
Sensitivity") of the rate under their relation, hence admissible and the pointwise smallest admissible
functions. The tests recompute them by breadth-first search over all count states with ``s <= 40`` and
``t <= 40`` and check both admissibility conditions; the substitution function is also admissible (but up
to twice larger) under add/remove.

A one-record change moves the counts of every tree at once, but each tree's rate only through its own
``(h, s)``, and the element local sensitivity is per tree; the count-state model lets the record fall on
either side of every tree, which can only over-approximate what a real tree allows.
"""

from __future__ import annotations

import numba
import numpy as np
from scipy.special import digamma

from .._validation import check_choice
from ..sensitivity import LocalSensitivity, Objective

__all__ = ["NEIGHBOURING", "rate_sensitivity", "rate", "tpr_objective", "tnr_objective"]

#: Neighbouring relations supported by :func:`rate_sensitivity` (and :class:`dpmo.trees.DPMOETClassifier`).
NEIGHBOURING = ("add_remove", "substitution")


def _counts(hits, total, hits_name: str, total_name: str) -> tuple[np.ndarray, np.ndarray]:
    h = np.asarray(hits)
    s = np.asarray(total)
    for arr, name in ((h, hits_name), (s, total_name)):
        if arr.dtype == object or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name} must hold non-negative integer counts, got dtype {arr.dtype}")
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise ValueError(f"{name} must hold non-negative integer counts")
    h = h.astype(np.int64)
    s = s.astype(np.int64)
    if np.any(h < 0) or np.any(s < 0):
        raise ValueError(f"{hits_name} and {total_name} must be non-negative counts")
    try:
        hb, sb = np.broadcast_arrays(h, s)
    except ValueError:
        raise ValueError(
            f"{hits_name} and {total_name} must have broadcastable shapes, got {h.shape} and {s.shape}"
        ) from None
    if np.any(hb > sb):
        raise ValueError(f"{hits_name} must not exceed {total_name}")
    return h, s


class _RateDelta:
    """Closed-form delta of the rate ``h / s`` for fixed counts; evaluates ``(t, idx)`` with few numpy ops.

    Every branch is computed with a denominator clamped to a safe value and then chosen with ``where``:
    outside its branch a clamped value is discarded, inside it the clamp is inactive (``s - t >= 2`` in
    the two ``M / ...`` and ``1 / (s - t)`` branches, ``s - t + 1 >= 2`` in the pure branch).

    When every tree has the same ``s`` (the trees of one data set), the factors that depend on ``t`` only
    are computed once per distance and broadcast, and the branches that cannot occur in the requested
    block (``delta = 1`` near ``t = s``, the pure trees) are skipped: the result is the same.
    """

    __slots__ = ("h", "s", "m", "M", "pure", "one_at", "substitution", "s_common", "s_max")

    def __init__(self, h: np.ndarray, s: np.ndarray, substitution: bool):
        h, s = np.broadcast_arrays(np.asarray(h, dtype=np.float64), np.asarray(s, dtype=np.float64))
        self.h = np.array(h)
        self.s = np.array(s)
        self.m = np.minimum(h, s - h)
        self.M = np.maximum(h, s - h)
        self.pure = (h == 0) | (h == s)
        # delta = 1 once s - t <= one_at: 1 when h >= 1 (t >= s - 1), 0 when h = 0 (t >= s)
        self.one_at = np.where(h >= 1, 1.0, 0.0)
        self.substitution = substitution
        self.s_common = float(s.flat[0]) if s.size and np.all(s == s.flat[0]) else None
        # the compiled kernels take one tree per entry (1-D counts); s_max None keeps the numpy forms
        self.s_max = float(self.s.max(initial=0.0)) if self.h.ndim == 1 else None

    def _grid(self, t: np.ndarray, idx):
        """``(t as a 2-D array (B, 1) or (B, q), candidate indices, output shape)`` for the compiled
        kernels, or None when the shapes call for the numpy forms. Cheap: the kernels check the values."""
        if self.s_max is None:
            return None
        if idx is None:
            ii, q = _NO_INDEX, self.h.shape[0]
        else:
            ii = idx if type(idx) is np.ndarray and idx.dtype == np.int64 else np.asarray(idx, dtype=np.int64)
            q = ii.size
            if ii.ndim != 1 or q == 0:
                return None
        nd = t.ndim
        if nd == 0:
            return t.reshape(1, 1), ii, (q,)
        if nd == 1:
            if t.size == q or t.size == 1:
                return t.reshape(1, -1), ii, (q,)
            return None
        if nd == 2 and t.shape[0] and (t.shape[1] == 1 or t.shape[1] == q):
            return t, ii, (t.shape[0], q)
        return None

    def __call__(self, t, idx=None) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        grid = self._grid(t, idx)
        if grid is not None:  # one compiled pass, the same floats as the numpy forms below
            t2, ii, shape = grid
            common = self.s_common is not None
            out, ok = _delta_kernel(
                t2, ii, self.s, self.m, self.M, self.pure, self.one_at, self.substitution, common
            )
            if ok:
                return out.reshape(shape)
        if self.s_common is not None and self.h.ndim == 1:
            return self._common(t, idx)
        if idx is None:
            s, m, M, pure, one_at = self.s, self.m, self.M, self.pure, self.one_at
        else:
            s, m, M, pure, one_at = self.s[idx], self.m[idx], self.M[idx], self.pure[idx], self.one_at[idx]
        r = s - t
        if self.substitution:
            return np.where(r <= 1.0, 1.0, 1.0 / np.maximum(r, 2.0))
        rs = np.maximum(r, 2.0)
        out = np.where(t < m, M / (rs * (rs - 1.0)), 1.0 / rs)
        out = np.where(pure, 1.0 / np.maximum(r + 1.0, 2.0), out)
        return np.where(r <= one_at, 1.0, out)

    def _common(self, t: np.ndarray, idx) -> np.ndarray:
        # t: scalar or an array broadcasting against the (q,) candidates, e.g. (B, 1)
        q = self.h.shape[0] if idx is None else len(idx)
        shape = np.broadcast_shapes(t.shape, (q,))
        r = self.s_common - t  # depends on t only
        rs = np.maximum(r, 2.0)
        inv = 1.0 / rs
        if self.substitution:
            out = np.broadcast_to(inv, shape).copy()
            if np.any(r <= 1.0):
                out = np.where(np.broadcast_to(r, shape) <= 1.0, 1.0, out)
            return out
        m = self.m if idx is None else self.m[idx]
        M = self.M if idx is None else self.M[idx]
        out = np.where(t < m, M * (inv / (rs - 1.0)), inv)
        pure = self.pure if idx is None else self.pure[idx]
        if np.any(pure):
            out = np.where(pure, 1.0 / np.maximum(r + 1.0, 2.0), out)
        if np.any(r <= 1.0):
            one_at = self.one_at if idx is None else self.one_at[idx]
            out = np.where(r <= one_at, 1.0, out)
        return np.broadcast_to(out, shape).copy() if out.shape != shape else out

    def cumulative(self, T, idx=None) -> np.ndarray:
        """``b(T) = sum_{j < T} delta(j)`` in closed form, elementwise (``T`` broadcasts against the trees).

        With ``H(k) = 1 + 1/2 + ... + 1/k`` (computed as ``digamma(k + 1) + euler_gamma``) and
        ``c = s - one_at`` the first distance where ``delta = 1``, ``T' = min(T, c)``:

        * substitution: ``H(s) - H(s - T')`` (``c = s - 1``);
        * a pure tree (``h = 0`` or ``h = s``): ``H(s + 1) - H(s + 1 - T')``;
        * otherwise, with ``T'' = min(T', m)``: ``M (1/(s - T'') - 1/s)`` (the terms
          ``M / ((s - j)(s - j - 1)) = M (1/(s - j - 1) - 1/(s - j))`` telescope) plus
          ``H(s - m) - H(s - T')`` when ``T' > m``;

        plus ``T - T'`` steps of 1. O(size) time.
        """
        T = np.asarray(T, dtype=np.float64)
        grid = self._grid(T, idx) if self.s_max is not None and self.s_max < _MAX_TABLE else None
        if grid is not None:  # one compiled pass with harmonic numbers from a table (the same floats)
            T2, ii, shape = grid
            H = _harmonic_table(int(self.s_max) + 2)
            parts = (self.s, self.m, self.M, self.pure, self.one_at)
            out, ok = _cumulative_kernel(T2, ii, *parts, self.substitution, H)
            if ok:  # else: a distance that is not a whole number >= 0, or a bad index (numpy reports)
                return out.reshape(shape)
        parts = (self.s, self.m, self.M, self.pure, self.one_at)
        s, m, M, pure, one_at = parts if idx is None else (a[idx] for a in parts)
        if self.substitution:
            c = np.maximum(s - 1.0, 0.0)
            Tc = np.minimum(T, c)
            return _harmonic(s) - _harmonic(s - Tc) + (T - Tc)
        c = s - one_at
        Tc = np.minimum(T, c)
        pure_sum = _harmonic(s + 1.0) - _harmonic(s + 1.0 - Tc)
        Tm = np.minimum(Tc, m)
        safe_s = np.maximum(s, 2.0)  # s >= 2 for a tree that is not pure; the clamp only guards the others
        rising = M * (1.0 / np.maximum(safe_s - Tm, 1.0) - 1.0 / safe_s)
        flat = np.where(Tc > m, _harmonic(np.maximum(s - m, 0.0)) - _harmonic(np.maximum(s - Tc, 0.0)), 0.0)
        return np.where(pure, pure_sum, rising + flat) + (T - Tc)


def _harmonic(k: np.ndarray) -> np.ndarray:
    """Harmonic numbers ``H(k) = sum_{i=1}^{k} 1/i`` for integer-valued ``k >= 0`` (``H(0) = 0``)."""
    return digamma(np.asarray(k, dtype=np.float64) + 1.0) + np.euler_gamma


_H_TABLES: dict[int, np.ndarray] = {}
#: Largest class size whose harmonic numbers are tabulated (32 MB); larger ones use scipy directly.
_MAX_TABLE = 1 << 22
_NO_INDEX = np.zeros(0, dtype=np.int64)


def _harmonic_table(size: int) -> np.ndarray:
    """``H(0) .. H(size - 1)`` by :func:`_harmonic` (scipy's digamma is computed element by element, so the
    table holds the floats of any other call). A few tables are kept per process."""
    size = max(1024, 1 << (int(size) - 1).bit_length())  # few distinct sizes
    table = _H_TABLES.get(size)
    if table is None:
        if len(_H_TABLES) >= 8:
            _H_TABLES.clear()
        table = _harmonic(np.arange(size, dtype=np.float64))
        table.setflags(write=False)
        _H_TABLES[size] = table
    return table


@numba.njit(cache=True, nogil=True, inline="always")
def _indices_ok(idx, n):  # pragma: no cover - compiled
    """Every index in ``[-n, n)`` (numpy's rule; the kernels wrap negative ones)."""
    for j in idx:
        if j < -n or j >= n:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _delta_kernel(t, idx, s, m, M, pure, one_at, substitution, common):  # pragma: no cover - compiled
    """``delta(t)`` of :class:`_RateDelta` for the candidates ``idx`` (all when empty): t (B, 1) or (B, q)
    broadcast against them, result ``(values (B, q), ok)``, ``ok`` False for an index out of range or a
    NaN distance. The operations of its numpy forms in the same order (``common``: the form for one ``s``
    shared by every tree)."""
    B, n, wide = t.shape[0], s.shape[0], t.shape[1] > 1
    q = idx.shape[0] if idx.shape[0] else n
    out = np.empty((B, q))
    if not _indices_ok(idx, n):
        return out, False
    for b in range(B):
        for jj in range(q):
            j = (idx[jj] + n) % n if idx.shape[0] else jj
            tt = t[b, jj] if wide else t[b, 0]
            if tt != tt:  # NaN: left to the numpy forms
                return out, False
            r = s[j] - tt
            rs = r if r >= 2.0 else 2.0
            if substitution:
                v = 1.0 if r <= 1.0 else 1.0 / rs
            else:
                if common:
                    inv = 1.0 / rs
                    v = M[j] * (inv / (rs - 1.0)) if tt < m[j] else inv
                else:
                    v = M[j] / (rs * (rs - 1.0)) if tt < m[j] else 1.0 / rs
                if pure[j]:
                    r1 = r + 1.0
                    v = 1.0 / (r1 if r1 >= 2.0 else 2.0)
                if r <= one_at[j]:
                    v = 1.0
            out[b, jj] = v
    return out, True


@numba.njit(cache=True, nogil=True)
def _cumulative_kernel(T, idx, s, m, M, pure, one_at, substitution, H):  # pragma: no cover - compiled
    """:meth:`_RateDelta.cumulative` for the candidates ``idx`` (all when empty), ``T`` of whole numbers
    >= 0 broadcast as in :func:`_delta_kernel`, with the harmonic numbers read from ``H``; the operations
    of the numpy form in the same order. ``ok`` False for a distance that is not a whole number >= 0 or an
    index out of range."""
    B, n, wide = T.shape[0], s.shape[0], T.shape[1] > 1
    q = idx.shape[0] if idx.shape[0] else n
    out = np.empty((B, q))
    if not _indices_ok(idx, n):
        return out, False
    for b in range(B):
        for c in range(T.shape[1]):
            if not (T[b, c] >= 0.0 and T[b, c] == np.floor(T[b, c])):
                return out, False
    for b in range(B):
        for jj in range(q):
            j = (idx[jj] + n) % n if idx.shape[0] else jj
            TT = T[b, jj] if wide else T[b, 0]
            sj = s[j]
            if substitution:
                c = sj - 1.0 if sj - 1.0 >= 0.0 else 0.0
                Tc = TT if TT <= c else c
                v = H[np.int64(sj)] - H[np.int64(sj - Tc)]
            else:
                c = sj - one_at[j]
                Tc = TT if TT <= c else c
                if pure[j]:
                    v = H[np.int64(sj + 1.0)] - H[np.int64(sj + 1.0 - Tc)]
                else:
                    mj = m[j]
                    Tm = Tc if Tc <= mj else mj
                    safe_s = sj if sj >= 2.0 else 2.0
                    low = safe_s - Tm
                    rising = M[j] * (1.0 / (low if low >= 1.0 else 1.0) - 1.0 / safe_s)
                    flat = 0.0
                    if Tc > mj:
                        a = sj - mj if sj - mj >= 0.0 else 0.0
                        z = sj - Tc if sj - Tc >= 0.0 else 0.0
                        flat = H[np.int64(a)] - H[np.int64(z)]
                    v = rising + flat
            out[b, jj] = v + (TT - Tc)
    return out, True


def _tight_add_remove(h: np.ndarray, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return _RateDelta(h, s, substitution=False)(t)


def _simple(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return _RateDelta(np.zeros_like(np.asarray(s)), s, substitution=True)(t)


def rate_sensitivity(hits, total, t, *, neighbouring: str = "add_remove") -> np.ndarray:
    """Exact element local sensitivity at distance ``t`` of the rate ``hits / total``.

    Parameters
    ----------
    hits : array_like of int
        ``TP`` (for TPR) or ``TN`` (for TNR), one entry per tree.
    total : array_like of int
        ``P`` or ``N``: records of the class (broadcast against ``hits``).
    t : int or array_like of int
        Distance, ``t >= 0`` (broadcast against the counts: ``t`` of shape ``(B, 1)`` with counts of shape
        ``(q,)`` gives ``(B, q)``).
    neighbouring : {"add_remove", "substitution"}
        The neighbouring relation (see the module notes for both formulas).

    Returns
    -------
    numpy.ndarray of float64
        Values in ``(0, 1]``; the broadcast shape of the inputs.

    Notes
    -----
    O(size of the broadcast) time. Admissible (the paper's Definition "Admissibility") for its relation;
    the ``"substitution"`` function is admissible for both relations.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import rate_sensitivity
    >>> s = rate_sensitivity(np.array([5, 50]), 100, 0)
    >>> bool(np.all((s > 0) & (s <= 1)))  # a rate moves by at most 1
    True
    >>> bool(np.all(rate_sensitivity(np.array([5, 50]), 100, 3) >= s))  # non-decreasing in t
    True
    """
    neighbouring = check_choice(neighbouring, NEIGHBOURING, "neighbouring")
    h, s = _counts(hits, total, "hits", "total")
    t = np.asarray(t)
    if t.dtype == bool or not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"t must be a non-negative int (or int array), got dtype {t.dtype}")
    if np.any(t < 0):
        raise ValueError("t must be non-negative")
    if neighbouring == "substitution":
        return _simple(np.broadcast_to(s, np.broadcast_shapes(h.shape, s.shape)), t)
    return _tight_add_remove(h, s, t)


def rate(hits, total) -> np.ndarray:
    """``hits / total`` as float64, 0 where ``total`` is 0. O(size) time."""
    h, s = _counts(hits, total, "hits", "total")
    h, s = np.broadcast_arrays(h, s)
    out = np.zeros(h.shape, dtype=np.float64)
    np.divide(h, s, out=out, where=s > 0)
    return out


def _objective(hits, total, neighbouring: str, name: str, hits_name: str, total_name: str) -> Objective:
    neighbouring = check_choice(neighbouring, NEIGHBOURING, "neighbouring")
    h, s = _counts(hits, total, hits_name, total_name)
    if h.ndim != 1:
        raise ValueError(f"{hits_name} must be a 1-D array with one count per tree, got shape {h.shape}")
    if s.ndim > 1 or (s.ndim == 1 and s.shape != h.shape):
        raise ValueError(f"{total_name} must be a number or have the shape of {hits_name} {h.shape}")
    s = np.broadcast_to(s, h.shape).copy()
    h = h.copy()
    h.setflags(write=False)
    s.setflags(write=False)
    values = rate(h, s)

    func = _RateDelta(h, s, substitution=neighbouring == "substitution")
    local = LocalSensitivity(
        func, name=f"delta^{name} ({neighbouring})", vectorized_t=True, cumulative=func.cumulative, bound=1.0
    )
    return Objective(values, 1.0, local, name=name)


def tpr_objective(tp, p, *, neighbouring: str = "add_remove") -> Objective:
    """True positive rate ``TP / P`` of every tree as a :class:`dpmo.Objective`.

    Parameters
    ----------
    tp : array_like of int, shape (T,)
        True positives of each tree.
    p : int or array_like of int
        Positive records of the data (the same for every tree).
    neighbouring : {"add_remove", "substitution"}
        Relation the local sensitivity function is exact for (module notes).

    Returns
    -------
    dpmo.Objective
        Values ``TP / P`` (0 when ``P = 0``), global sensitivity 1 and the admissible local function of
        :func:`rate_sensitivity` (evaluable on subsets of trees and on blocks of distances).

    Notes
    -----
    O(T) time to build; each evaluation of the local function is O(number of trees asked).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import tpr_objective
    >>> tpr = tpr_objective(np.array([3, 10, 0]), 10)  # true positives of three trees, 10 positives
    >>> tpr.values.tolist(), tpr.global_sensitivity
    ([0.3, 1.0, 0.0], 1.0)
    """
    return _objective(tp, p, neighbouring, "TPR", "tp", "p")


def tnr_objective(tn, n, *, neighbouring: str = "add_remove") -> Objective:
    """True negative rate ``TN / N`` of every tree as a :class:`dpmo.Objective`.

    Same as :func:`tpr_objective` with true negatives ``tn`` and negative records ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import tnr_objective
    >>> tnr_objective(np.array([4, 8]), 8).values.tolist()  # true negatives / negatives
    [0.5, 1.0]
    """
    return _objective(tn, n, neighbouring, "TNR", "tn", "n")
