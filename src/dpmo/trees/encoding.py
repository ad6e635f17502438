"""A data set encoded as packed row sets for fast tree evaluation, and a cache of encodings.

The **bitset** engine of :mod:`dpmo.trees.evaluation` is used when every feature has few distinct values
(as in NLTCS, ACS and Adult): each split ``x[f] <= v`` / ``x[f] == v`` is one of few distinct row sets;
all of them are precomputed once per data set as packed bit sets (:class:`EncodedData`, built by the
compiled kernels of :mod:`dpmo.trees.bitsets`). :meth:`EncodedData.cached` reuses an encoding when the
same data (same contents, compared in full) come again. Nothing here is released: the tables are a
private intermediate used to compute exact counts.
"""

from __future__ import annotations

import threading

import numpy as np

from .._validation import check_X
from .bitsets import add_column_sets, pack_rows, split_rows
from .columns import narrow_codes

__all__ = ["EncodedData"]

_ENGINES = ("auto", "bitset", "level")


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


def _words(a: np.ndarray) -> np.ndarray:
    """The bytes of an array as a flat array of unsigned integers (a view when it is contiguous)."""
    flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    return flat.view(np.uint64) if flat.size % 8 == 0 else flat


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
        self._X = X
        self._columns = None
        self.n, self.d = X.shape
        self.W = (self.n + 63) // 64
        self._set_labels(y)
        uniq_codes = [_unique_codes(X[:, f]) for f in range(self.d)]
        self._encode(uniq_codes, engine, max_distinct, max_bytes)

    @classmethod
    def from_columns(
        cls, columns, y=None, *, engine: str = "auto", max_distinct: int = 4096, max_bytes: int = 256 << 20
    ) -> EncodedData:
        """The encoding of a :class:`~dpmo.trees.columns.CodedColumns` (the lean fit of a raw table).

        The same tables and counts as ``EncodedData(columns.to_matrix(), y)``, built column by column from
        the narrow codes: no (n, d) float table is made unless the level engine needs it (:attr:`X`, on
        first use). Memory ``n / 8`` bytes per split set plus one code array per column at a time.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from dpmo.datasets import Feature
        >>> from dpmo.trees import EncodedData
        >>> from dpmo.trees.columns import coded_columns
        >>> f = [Feature("sex", "categorical", ("F", "M"))]
        >>> cc = coded_columns(pd.DataFrame({"sex": ["M", "F", "M"]}), f, "frame")
        >>> enc = EncodedData.from_columns(cc, np.array([1, 0, 0]))
        >>> np.array_equal(enc.tables, EncodedData(cc.to_matrix(), np.array([1, 0, 0])).tables)
        True
        """
        if engine not in _ENGINES:
            raise ValueError(f"engine must be one of {list(_ENGINES)}, got {engine!r}")
        self = object.__new__(cls)
        self._X = None
        self._columns = columns
        self.n, self.d = columns.shape
        self.W = (self.n + 63) // 64
        self._set_labels(y)
        uniq_codes = []
        for f, col in enumerate(columns.columns):
            if columns.features[f].is_categorical:
                present = np.bincount(col, minlength=1) > 0
                rank = (np.cumsum(present) - 1).astype(col.dtype)
                uniq_codes.append((np.flatnonzero(present).astype(np.float64), rank[col]))
            else:
                u, code = _unique_codes(col)
                uniq_codes.append((u, code.astype(narrow_codes(max(u.size, 1)))))
        self._encode(uniq_codes, engine, max_distinct, max_bytes)
        return self

    @property
    def X(self) -> np.ndarray:
        """The (n, d) float64 table in the encoded form (built on first use for :meth:`from_columns`)."""
        if self._X is None:
            X = self._columns.to_matrix()
            X.setflags(write=False)
            self._X = X
        return self._X

    def _set_labels(self, y) -> None:
        if y is not None:
            y = np.asarray(y)
            if y.shape != (self.n,):
                raise ValueError("y must be 1-D with one label per row of X (the numbers are not shown)")
            if not np.all((y == 0) | (y == 1)):
                raise ValueError("y must hold binary labels 0/1")
            y = y.astype(bool)
            self.y = y
            self.positives = int(y.sum())
            self.negatives = int(self.n - self.positives)
            self.pos_bits = pack_rows(y)
            self.neg_bits = pack_rows(~y)
        else:
            self.y = None
            self.positives = self.negatives = None
            self.pos_bits = self.neg_bits = None
        self.all_bits = pack_rows(np.ones(self.n, dtype=bool))

    def _encode(self, uniq_codes, engine, max_distinct, max_bytes) -> None:
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

    #: Encodings kept by :meth:`cached`, least recently used first: ``(X copy, y copy, encoding)``.
    _CACHE: list[tuple[np.ndarray, np.ndarray | None, EncodedData]] = []
    _CACHE_LOCK = threading.Lock()
    #: Number of encodings :meth:`cached` keeps.
    CACHE_SIZE = 4

    @classmethod
    def cached(cls, X, y=None) -> EncodedData:
        """The encoding of ``(X, y)`` with the default settings, reused when the same data come again.

        Estimators call this once per ``fit`` and once per ``evaluate``; in an experiment with hundreds
        of fits on one table the encoding (sorting every column and building the bit sets) would
        otherwise dominate. An entry is reused when its stored copy of ``X`` and ``y`` has the same
        shape, dtype and bytes as the arrays given (compared in full, word by word: no digest), so a
        modified array is encoded anew; the last :attr:`CACHE_SIZE` encodings are kept. Thread-safe.
        The result is the same object for equal data: treat it as read-only (its tables are).

        Notes
        -----
        O(n d) word comparisons per entry of the same shape (a fraction of a millisecond for Adult's
        45,222 x 12 values), otherwise the cost of the constructor. Nothing is released: the cache
        lives in the process that holds the data anyway.
        """
        X = check_X(X)
        yc = None if y is None else np.asarray(y)
        with cls._CACHE_LOCK:
            for pos, (Xk, yk, enc) in enumerate(cls._CACHE):
                if _same_array(Xk, X) and (
                    yk is None if yc is None else yk is not None and _same_array(yk, yc)
                ):
                    cls._CACHE.append(cls._CACHE.pop(pos))
                    return enc
        Xc = np.array(X, order="C")  # the cached encoding must not see later changes of the caller's array
        Xc.setflags(write=False)
        if yc is not None:
            yc = np.array(yc)
            yc.setflags(write=False)
        enc = cls(Xc, yc)
        with cls._CACHE_LOCK:
            cls._CACHE.append((Xc, yc, enc))
            while len(cls._CACHE) > cls.CACHE_SIZE:
                cls._CACHE.pop(0)
        return enc

    def _build_tables(self) -> None:
        # numeric sets: rows offset_le[f] .. + k_f hold {x <= u_j}; row 0 is the empty set (thresholds below
        # every value). Categorical sets: offset_eq[f] + j holds {x == u_j}. Built by one compiled pass.
        ks = np.array([u.size for u in self.uniques], dtype=np.int64)
        self.offset_le = 1 + np.concatenate([[0], np.cumsum(ks)[:-1]]).astype(np.int64)
        self.offset_eq = self.offset_le + ks.sum()
        tables = np.zeros((1 + 2 * int(ks.sum()), self.W), dtype=np.uint64)
        for f, c in enumerate(self._codes):  # one column at a time: no (d, n) table of codes
            # int64 codes whatever their stored width: the kernel is compiled for one signature only
            c = np.ascontiguousarray(c, dtype=np.int64)
            add_column_sets(tables, c, int(ks[f]), int(self.offset_le[f]), int(self.offset_eq[f]))
        tables.setflags(write=False)
        self.tables = tables
        self._uniq_start = np.concatenate([[0], np.cumsum(ks)]).astype(np.int64)
        self._uniq_flat = np.concatenate(self.uniques).astype(np.float64)

    def test_index(self, feature: np.ndarray, value: np.ndarray, categorical: np.ndarray) -> np.ndarray:
        """Row of :attr:`tables` holding the set of rows that go LEFT at each given split.

        ``-1`` for a leaf (``feature < 0``). O(s log k) for s splits and k distinct values per column.
        """
        feature = np.asarray(feature)
        if feature.size and int(feature.max()) >= self.d:
            raise ValueError(f"a tree tests feature {int(feature.max())} but X has {self.d} columns")
        return split_rows(
            feature.astype(np.int64, copy=False),
            np.asarray(value, dtype=np.float64),
            np.asarray(categorical, dtype=np.bool_),
            self._uniq_flat,
            self._uniq_start,
            self.offset_le,
            self.offset_eq,
        )


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, dtype and bytes (bit for bit, so -0.0 and 0.0 differ). O(size) word comparisons."""
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(_words(a), _words(b)))
