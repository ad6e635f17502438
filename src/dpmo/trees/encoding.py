"""A data set encoded as packed bit sets for fast tree evaluation, and a content-keyed cache of encodings.

The **bitset** engine of :mod:`dpmo.trees.evaluation` is used when every feature has few distinct values
(as in NLTCS, ACS and Adult): each split ``x[f] <= v`` / ``x[f] == v`` is one of few distinct row sets;
all of them are precomputed once per data set as packed bit sets (:class:`EncodedData`).
:meth:`EncodedData.cached` reuses an encoding when the same data (same contents) come again.
Nothing here is released: the tables are a private intermediate used to compute exact counts.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from .._validation import check_X

__all__ = ["EncodedData"]

_ENGINES = ("auto", "bitset", "level")


def _pack_rows(mask: np.ndarray) -> np.ndarray:
    """Boolean array (..., n) -> packed uint64 bit sets (..., W), W = ceil(n / 64), little-endian bits."""
    n = mask.shape[-1]
    W = (n + 63) // 64
    packed = np.packbits(mask, axis=-1, bitorder="little")
    pad = W * 8 - packed.shape[-1]
    if pad:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (pad,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view(np.uint64)


def _unique_codes(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of ``col`` and the index of each entry among them (``col == u[code]``).

    Small non-negative integer columns (categorical codes, 0/1 attributes) are counted in O(n); other
    columns are sorted. Both give the same result.
    """
    if col.size:
        lo, hi = col.min(), col.max()
        if lo >= 0 and hi < 65536:
            ints = col.astype(np.intp)
            if np.array_equal(ints, col):
                present = np.bincount(ints, minlength=int(hi) + 1) > 0
                rank = np.cumsum(present) - 1
                return np.flatnonzero(present).astype(np.float64), rank[ints]
    u, code = np.unique(col, return_inverse=True)
    return u, code.reshape(-1)


class EncodedData:
    """A data matrix prepared for fast evaluation of many trees (the bitset engine).

    For every numeric column the sorted distinct values ``u_0 < ... < u_{k-1}`` and the packed row sets
    ``{x <= u_j}``; for every column used categorically the row sets ``{x == c}``. A test
    ``x[f] <= v`` is the set ``{x <= u_j}`` with ``j`` the last distinct value ``<= v`` (the empty set when
    there is none), so every split of every tree is one of ``sum_f (k_f + 1)`` precomputed sets.

    Parameters
    ----------
    X : array_like, shape (n, d)
    y : array_like of 0/1, shape (n,), optional
        Labels; required by :meth:`TreePopulation.counts`.
    engine : {"auto", "bitset", "level"}, default "auto"
        ``"auto"`` builds the bitset tables when every column has at most ``max_distinct`` distinct values
        and the tables fit in ``max_bytes`` (memory ``2 sum_f k_f n / 8`` bytes); otherwise
        :attr:`bitset` is False and the level engine is used. Both engines return the same exact counts,
        so the choice (which depends on the data's shape) changes the running time only.
    max_distinct, max_bytes : int
        Limits of ``"auto"`` (``max_bytes`` also bounds ``"bitset"``).

    Notes
    -----
    Built in O(n d log n + sum_f k_f n / 64) time. Nothing here is released: the tables are a private
    intermediate used to compute the exact counts that the private selection then protects.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import EncodedData, TreePopulation, tree_from_nested
    >>> X, y = np.array([[0.1], [0.4], [0.8], [0.9]]), np.array([0, 1, 1, 1])
    >>> enc = EncodedData(X, y)
    >>> population = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])
    >>> [c.tolist() for c in population.counts(enc)] == [c.tolist() for c in population.counts(X, y)]
    True
    """

    def __init__(
        self, X, y=None, *, engine: str = "auto", max_distinct: int = 4096, max_bytes: int = 256 << 20
    ):
        if engine not in _ENGINES:
            raise ValueError(f"engine must be one of {list(_ENGINES)}, got {engine!r}")
        X = check_X(X)
        self.X = X
        self.n, self.d = X.shape
        self.W = (self.n + 63) // 64
        if y is not None:
            y = np.asarray(y)
            if y.shape != (self.n,):
                raise ValueError(f"y must have shape ({self.n},), got {y.shape}")
            if not np.all((y == 0) | (y == 1)):
                raise ValueError("y must hold binary labels 0/1")
            y = y.astype(bool)
            self.y = y
            self.positives = int(y.sum())
            self.negatives = int(self.n - self.positives)
            self.pos_bits = _pack_rows(y)
            self.neg_bits = _pack_rows(~y)
        else:
            self.y = None
            self.positives = self.negatives = None
            self.pos_bits = self.neg_bits = None
        self.all_bits = _pack_rows(np.ones(self.n, dtype=bool))
        uniq_codes = [_unique_codes(X[:, f]) for f in range(self.d)]
        self.uniques = [u for u, _ in uniq_codes]
        self._codes = [c for _, c in uniq_codes]
        total = sum(u.size for u in self.uniques)
        fits = (2 * total + 1) * self.W * 8 <= max_bytes
        if engine == "bitset" and not fits:
            raise ValueError(f"the bitset tables would take more than max_bytes={max_bytes} bytes")
        self.bitset = bool(
            self.n > 0
            and self.d > 0
            and engine != "level"
            and fits
            and (engine == "bitset" or max(u.size for u in self.uniques) <= max_distinct)
        )
        if self.bitset:
            self._build_tables()
        del self._codes

    #: Encodings kept by :meth:`cached` (least recently used first).
    _CACHE: OrderedDict[bytes, EncodedData] = OrderedDict()
    _CACHE_LOCK = threading.Lock()
    #: Number of encodings :meth:`cached` keeps.
    CACHE_SIZE = 4

    @classmethod
    def cached(cls, X, y=None) -> EncodedData:
        """The encoding of ``(X, y)`` with the default settings, reused when the same data come again.

        Estimators call this once per ``fit`` and once per ``evaluate``; in an experiment with hundreds
        of fits on one table the encoding (sorting every column and building the bit sets) would
        otherwise dominate. The key is a digest of the *contents* of ``X`` and ``y`` (with their shapes
        and dtypes), so a modified array is encoded anew; the last :attr:`CACHE_SIZE` encodings are kept.
        Thread-safe.
        The result is the same object for equal data: treat it as read-only (its tables are).

        Notes
        -----
        O(n d) to hash the data (a few milliseconds for 45,000 x 12 values) when the encoding is
        cached, otherwise the cost of the constructor. Nothing is released: the cache lives in the
        process that holds the data anyway.
        """
        X = check_X(X)
        Xc = np.ascontiguousarray(X)
        digest = hashlib.sha256()
        digest.update(repr((Xc.shape, Xc.dtype.str)).encode())
        digest.update(Xc.tobytes() if Xc.size == 0 else memoryview(Xc).cast("B"))
        if y is not None:
            yc = np.ascontiguousarray(np.asarray(y))
            digest.update(repr((yc.shape, yc.dtype.str)).encode())
            digest.update(yc.tobytes() if yc.size == 0 else memoryview(yc).cast("B"))
        key = digest.digest()
        with cls._CACHE_LOCK:
            enc = cls._CACHE.get(key)
            if enc is not None:
                cls._CACHE.move_to_end(key)
                return enc
        Xc = Xc.copy()  # the cached encoding must not see later changes of the caller's array
        Xc.setflags(write=False)
        enc = cls(Xc, y)
        with cls._CACHE_LOCK:
            cls._CACHE[key] = enc
            while len(cls._CACHE) > cls.CACHE_SIZE:
                cls._CACHE.popitem(last=False)
        return enc

    def _build_tables(self) -> None:
        # numeric table: for column f, block rows offset_le[f] .. + k_f : {x <= u_j}; one extra empty row
        # at index 0 for thresholds below every value. Categorical: offset_eq[f] + j : {x == u_j}.
        ks = np.array([u.size for u in self.uniques], dtype=np.int64)
        self.offset_le = 1 + np.concatenate([[0], np.cumsum(ks)[:-1]])
        self.offset_eq = self.offset_le + ks.sum()
        tables = np.zeros((1 + 2 * int(ks.sum()), self.W), dtype=np.uint64)
        rows = np.arange(self.n, dtype=np.uint64)
        for f, u in enumerate(self.uniques):
            code = self._codes[f]  # X[:, f] == u[code]
            if u.size * self.n <= 1 << 24:
                eq_bits = _pack_rows(code[None, :] == np.arange(u.size)[:, None])
            else:
                eq_bits = np.zeros((u.size, self.W), dtype=np.uint64)
                # distinct rows set distinct bits, so adding them is OR-ing them
                np.add.at(
                    eq_bits,
                    (code, (rows >> np.uint64(6)).astype(np.intp)),
                    np.uint64(1) << (rows & np.uint64(63)),
                )
            tables[self.offset_eq[f] : self.offset_eq[f] + u.size] = eq_bits
            tables[self.offset_le[f] : self.offset_le[f] + u.size] = np.bitwise_or.accumulate(eq_bits, axis=0)
        tables.setflags(write=False)
        self.tables = tables

    def test_index(self, feature: np.ndarray, value: np.ndarray, categorical: np.ndarray) -> np.ndarray:
        """Row of :attr:`tables` holding the set of rows that go LEFT at each given split. O(s log k)."""
        out = np.zeros(feature.shape[0], dtype=np.int64)
        if feature.size == 0:
            return out
        if np.any(feature >= self.d):
            raise ValueError(f"a tree tests feature {int(feature.max())} but X has {self.d} columns")
        order = np.argsort(feature, kind="stable")
        fs = feature[order]
        starts = np.searchsorted(fs, np.arange(self.d + 1))
        for f in range(self.d):
            a, b = starts[f], starts[f + 1]
            if a == b:
                continue
            sel = order[a:b]
            u = self.uniques[f]
            v = value[sel]
            cat = categorical[sel]
            le = np.searchsorted(u, v, side="right")  # number of distinct values <= v
            res = np.where(le > 0, self.offset_le[f] + le - 1, 0)
            if np.any(cat):
                pos = np.searchsorted(u, v[cat])
                pos_c = np.minimum(pos, u.size - 1)
                hit = (pos < u.size) & (u[pos_c] == v[cat])
                res[cat] = np.where(hit, self.offset_eq[f] + pos_c, 0)
            out[sel] = res
        return out
