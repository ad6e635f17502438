"""Shuffling numpy arrays between Spark partitions in blocks: Spark moves bytes, numpy does the work.

A Spark shuffle of ``r`` rows costs the JVM work per row (a row object, hashing, serialisation, and the Arrow
conversion on both sides of a Python step). dpmo's Spark algorithms shuffle *blocks* instead: a Python step
(``mapInArrow``) groups its output rows by target bucket itself and sends each group as one row ``(bucket,
key, blob)``, the blob holding int64 arrays, or int32 when every value fits (:func:`split`, :func:`encode`,
:func:`decode`, zero-copy on the way in); Spark's hash partitioning of ``key`` then puts bucket ``b`` in
partition ``b`` (:func:`bucket_keys` picks, for every bucket, an int whose Spark hash lands there), so a step
receives all the blocks of its bucket and runs on them at once. The JVM handles a few rows of bytes per pair
of partitions instead of one row per item.

* :func:`buckets`: the bucket of every int64 id (a 64-bit mixing hash, so any ids spread evenly);
* :func:`split`: the blocks of a step's output rows, one per target bucket;
* :func:`blocks_by_bucket`: the blocks a step received, decoded and grouped by bucket;
* :func:`settle_worker`: once per Python worker, the heap of its imports frozen out of the cyclic
  garbage collector (pyspark collects after every task of a reused worker).

Nothing here depends on the data's meaning: the algorithms (:mod:`dpmo.graphs.spark.statistics`) choose
the buckets of their rows. Correctness never depends on where a bucket lands (a partition that receives
two buckets runs them one after the other); only the balance does.
"""

from __future__ import annotations

import gc
from collections import defaultdict

import numba
import numpy as np

__all__ = [
    "BLOCK_SCHEMA",
    "bucket_keys",
    "buckets",
    "encode",
    "decode",
    "split",
    "blocks_by_bucket",
    "settle_worker",
]

#: The Spark schema of a block shuffle (DDL).
BLOCK_SCHEMA = "bucket int, key int, tag int, blob binary"

_M32 = 0xFFFFFFFF
_settled = False


def _spark_hash_int(value: int, seed: int = 42) -> int:
    """Spark's ``hash`` of an int column (Murmur3 x86 32-bit, ``hashInt`` with seed 42), signed."""

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & _M32

    k = (value & _M32) * 0xCC9E2D51 & _M32
    k = rotl(k, 15) * 0x1B873593 & _M32
    h = rotl(seed ^ k, 13)
    h = (h * 5 + 0xE6546B64) & _M32
    h ^= 4
    h ^= h >> 16
    h = h * 0x85EBCA6B & _M32
    h ^= h >> 13
    h = h * 0xC2B2AE35 & _M32
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


def bucket_keys(partitions: int) -> np.ndarray:
    """``keys[b]``: an int whose Spark hash partitioning into ``partitions`` parts is ``b``
    (``pmod(hash(key), partitions) == b``, as ``DataFrame.repartition(partitions, "key")`` places it).

    Examples
    --------
    >>> from dpmo.spark.blocks import bucket_keys
    >>> keys = bucket_keys(4)
    >>> len(keys), len(set(keys.tolist()))
    (4, 4)
    """
    p = int(partitions)
    keys = np.full(p, -1, dtype=np.int32)
    missing, candidate = p, 0
    while missing:
        b = _spark_hash_int(candidate) % p
        if keys[b] < 0:
            keys[b] = candidate
            missing -= 1
        candidate += 1
    return keys


def buckets(ids: np.ndarray, partitions: int) -> np.ndarray:
    """The bucket (``0 .. partitions-1``, int64) of every int64 id: a SplitMix64 finaliser, then modulo.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.blocks import buckets
    >>> b = buckets(np.arange(100_000), 4)
    >>> int(b.min()), int(b.max()), bool(abs(np.bincount(b) - 25_000).max() < 1_000)
    (0, 3, True)
    """
    x = np.ascontiguousarray(ids, dtype=np.int64).view(np.uint64)
    out = np.empty(x.size, dtype=np.int64)
    _mix(x, np.uint64(int(partitions)), out)
    return out


@numba.njit(cache=True, nogil=True)
def _mix(x, p, out):  # pragma: no cover - compiled
    for i in range(x.size):
        z = x[i]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        out[i] = np.int64(z % p)


def encode(arrays) -> bytes:
    """One blob of int64 arrays: their count and lengths, then their values.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.blocks import decode, encode
    >>> [a.tolist() for a in decode(encode([np.array([1, 2]), np.array([], dtype=np.int64)]))]
    [[1, 2], []]
    """
    arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]
    head = np.array([len(arrays)] + [a.size for a in arrays], dtype=np.int64)
    return b"".join([head.tobytes()] + [a.tobytes() for a in arrays])


def decode(blob) -> list[np.ndarray]:
    """The arrays of one blob (read-only views of it, no copy). See :func:`encode`.

    A blob of :func:`split` whose values all fit in 32 bits holds them as int32 (its count is written
    negated, as an int32): its arrays are int32 views, with the same values.
    """
    head = np.frombuffer(blob, dtype=np.int32, count=min(1, len(blob) // 4))
    if head.size == 0:  # a block that only carries its tag
        return []
    narrow = int(head[0]) < 0
    data = np.frombuffer(blob, dtype=np.int32 if narrow else np.int64)
    count = -int(data[0]) if narrow else int(data[0])
    sizes = data[1 : 1 + count]
    out, at = [], 1 + count
    for size in sizes.tolist():
        out.append(data[at : at + size])
        at += size
    return out


def _fits_int32(arrays) -> bool:
    """Whether every value of the int64 arrays lies in ``[-2^31, 2^31)``."""
    lo, hi = -(1 << 31), (1 << 31) - 1
    return all(a.size == 0 or (int(a.min()) >= lo and int(a.max()) <= hi) for a in arrays)


def split(target: np.ndarray, columns, tag: int, keys: np.ndarray, lists=None):
    """The Arrow batches (:data:`BLOCK_SCHEMA`) of the rows of ``columns`` (equal-length int64 arrays)
    grouped by their ``target`` bucket: one block per bucket present, written once into one buffer that
    Arrow takes without a copy (at most ``2^30`` bytes a batch). When every value (and every list's
    length) fits in 32 bits the blocks hold int32, half the bytes for Spark to move (:func:`decode`).

    ``lists``, optional ``(offsets, values)``: a list of ids per row, carried along (the block holds the
    rows' own offsets and values after the columns). O(rows + ids).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.blocks import bucket_keys, decode, split
    >>> [batch] = split(np.array([1, 0, 1]), [np.array([7, 8, 9])], 0, bucket_keys(2))
    >>> batch.column("bucket").to_pylist(), [decode(b.as_buffer())[0].tolist() for b in batch.column("blob")]
    ([0, 1], [[8], [7, 9]])
    """
    import pyarrow as pa

    target = np.asarray(target, dtype=np.int64)
    columns = [np.asarray(c, dtype=np.int64) for c in columns]
    small = target.astype(np.uint16) if len(keys) <= 1 << 16 else target
    order = np.argsort(small, kind="stable")  # a radix sort for up to 2^16 buckets
    sorted_target = target[order]
    firsts = np.flatnonzero(np.r_[True, sorted_target[1:] != sorted_target[:-1]]) if target.size else []
    bounds = np.r_[firsts, target.size].astype(np.int64)
    blocks = len(bounds) - 1
    rows = np.diff(bounds)
    arrays = len(columns) + (2 if lists is not None else 0)
    length = 1 + arrays + len(columns) * rows
    if lists is not None:
        offsets, values = np.asarray(lists[0], dtype=np.int64), np.asarray(lists[1], dtype=np.int64)
        sizes = np.diff(offsets)[order]
        starts = offsets[:-1][order]
        ids = np.add.reduceat(sizes, bounds[:-1]) if blocks else np.empty(0, np.int64)
        length = length + rows + 1 + ids
    at = np.r_[0, np.cumsum(length)].astype(np.int64)
    checked = columns + ([values, ids] if lists is not None else []) + [rows]
    narrow = _fits_int32(checked)
    width = 4 if narrow else 8
    buf = np.empty(int(at[-1]), dtype=np.int32 if narrow else np.int64)
    for g in range(blocks):
        lo, hi = bounds[g], bounds[g + 1]
        view = buf[at[g] : at[g + 1]]
        view[0] = -arrays if narrow else arrays
        view[1 : 1 + len(columns)] = hi - lo
        w = 1 + arrays
        for c in columns:
            np.take(c, order[lo:hi], out=view[w : w + hi - lo])
            w += hi - lo
        if lists is not None:
            view[1 + len(columns)] = hi - lo + 1
            view[2 + len(columns)] = ids[g]
            view[w] = 0
            np.cumsum(sizes[lo:hi], out=view[w + 1 : w + 1 + hi - lo])
            w += hi - lo + 1
            view[w : w + ids[g]] = _gather(values, starts[lo:hi], sizes[lo:hi])
    bucket_of = sorted_target[bounds[:-1]] if blocks else np.empty(0, np.int64)
    out, first = [], 0
    byte_at = at * width
    while first < blocks:  # batches of at most 2^30 bytes (Arrow's binary offsets are int32)
        last = max(first + 1, int(np.searchsorted(byte_at, byte_at[first] + (1 << 30), side="right")) - 1)
        last = min(last, blocks)
        data = pa.py_buffer(buf[at[first] : at[last]])
        offsets32 = pa.py_buffer((byte_at[first : last + 1] - byte_at[first]).astype(np.int32))
        blob = pa.Array.from_buffers(pa.binary(), last - first, [None, offsets32, data])
        b = bucket_of[first:last].astype(np.int32)
        out.append(
            pa.RecordBatch.from_arrays(
                [
                    pa.array(b),
                    pa.array(np.asarray(keys)[b].astype(np.int32)),
                    pa.array(np.full(last - first, tag, np.int32)),
                    blob,
                ],
                names=["bucket", "key", "tag", "blob"],
            )
        )
        first = last
    return out


def _gather(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``concatenate([values[s : s + n] for s, n in zip(starts, sizes)])`` without a Python loop."""
    total = int(sizes.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    shift = np.repeat(starts - np.r_[0, np.cumsum(sizes)[:-1]], sizes)
    return values[np.arange(total, dtype=np.int64) + shift]


def settle_worker() -> bool:
    """In a Spark Python worker, once per process: collect, then :func:`gc.freeze` the objects alive now.

    pyspark's daemon runs a full :func:`gc.collect` after every task of a reused worker; with numba and
    scipy imported (several hundred thousand tracked objects) each one cost about 0.15 CPU-seconds, the
    same order as a task's own work at 2^20 rows. Frozen objects are skipped by the cyclic collector;
    reference counting still frees them, so nothing is kept alive and no value changes. Outside a
    Spark task (the driver, tests) it does nothing. Returns whether it froze now.

    Examples
    --------
    >>> from dpmo.spark.blocks import settle_worker
    >>> settle_worker()   # not in a Spark task: nothing to do
    False
    """
    global _settled
    if _settled:
        return False
    from pyspark import TaskContext

    if TaskContext.get() is None:
        return False
    _settled = True
    gc.collect()
    gc.freeze()
    return True


def blocks_by_bucket(batches) -> dict[tuple[int, int], list[list[np.ndarray]]]:
    """The blocks of a partition, decoded: ``{(bucket, tag): [arrays of each block]}``.

    Examples
    --------
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from dpmo.spark.blocks import blocks_by_bucket, encode
    >>> batch = pa.RecordBatch.from_pydict(
    ...     {"bucket": [0], "key": [5], "tag": [1], "blob": [encode([np.array([3, 4])])]}
    ... )
    >>> {k: [[a.tolist() for a in b] for b in v] for k, v in blocks_by_bucket([batch]).items()}
    {(0, 1): [[[3, 4]]]}
    """
    settle_worker()
    found: dict[tuple[int, int], list[list[np.ndarray]]] = defaultdict(list)
    for batch in batches:
        bucket = batch.column("bucket").to_pylist()
        tag = batch.column("tag").to_pylist()
        blob = batch.column("blob")
        for i in range(batch.num_rows):
            found[(bucket[i], tag[i])].append(decode(blob[i].as_buffer()))
    return found
