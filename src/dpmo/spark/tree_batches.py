"""What the executors do for :func:`dpmo.spark.fit`: Arrow batches of a table read into the trees' codes,
checked, encoded, and counted. Every function here runs on a partition (inside ``mapInArrow``) and yields
one small row per partition: flags, label tallies or counts, never a record.

* :func:`check_partition`: per column, whether some value is null, outside the public categories,
  non-numeric or infinite (:data:`NULL`, :data:`UNKNOWN`, :data:`NOT_NUMERIC`, :data:`NOT_FINITE`: bit
  flags, no value, no row), the number of rows and the tally of each label value (at most three distinct
  values are kept: two are a binary label, three say "more than two");
* :func:`encode_partition`: the same check and, in the same pass, each batch as an
  :class:`~dpmo.trees.EncodedData` (the bit sets of :mod:`dpmo.trees.encoding`, 1 bit per row and split
  set) with its labels' codes, pickled: the table that later passes read from Spark's cache (it stays on
  the executors);
* :func:`count_partition`: the (negative, positive) records at every node of a population of DP-MOET
  trees, summed over the partition's batches (:func:`dpmo.trees.leaf_counts.leaf_class_counts`);
* :func:`id3_partition`: the class counts of every (node, attribute value) of an ID3 tree's frontier,
  from the cached codes.

The reading of a column follows :mod:`dpmo.trees.columns` (the in-memory lean fit): categories are matched
with the rule of :func:`dpmo.trees.units.encode_categories` on the column's distinct values (Arrow's
``dictionary_encode``), numeric values are scaled with the public bounds and clipped.
"""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "NULL",
    "UNKNOWN",
    "NOT_NUMERIC",
    "NOT_FINITE",
    "BLOB_SCHEMA",
    "ENCODED_SCHEMA",
    "batch_columns",
    "check_partition",
    "encode_partition",
    "encode_pieces",
    "read_pieces",
    "count_partition",
    "id3_partition",
]

#: Problem flags of a column (bits of :func:`check_partition`'s result).
NULL, UNKNOWN, NOT_NUMERIC, NOT_FINITE = 1, 2, 4, 8
#: The one column of every row the executors return.
BLOB_SCHEMA = "blob binary"


def _blob_batch(blob: bytes) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array([blob], type=pa.binary())], names=["blob"])


def _plain(arr):
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _categorical(arr, feature):
    """Codes of one categorical Arrow column, or None when a value is outside the public categories."""
    from ..trees.columns import map_categories

    try:
        if pa.types.is_dictionary(arr.type):
            idx, dic = arr.indices, arr.dictionary
        else:
            encoded = pc.dictionary_encode(arr)
            idx, dic = encoded.indices, encoded.dictionary
        codes = idx.to_numpy(zero_copy_only=False)
        uniques = dic.to_pylist()
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # types without a dictionary kernel
        import pandas as pd

        codes, uniq = pd.factorize(np.asarray(arr.to_pylist(), dtype=object))
        uniques = list(uniq)
    return map_categories(codes, uniques, feature)


def _numeric(arr, feature):
    """Scaled values of one numeric Arrow column and its problem flag (0, NOT_NUMERIC or NOT_FINITE)."""
    try:
        values = pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError):
        return None, NOT_NUMERIC
    if not np.all(np.isfinite(values)):
        return None, NOT_FINITE
    return feature.scale(values), 0


def batch_columns(batch: pa.RecordBatch, features) -> tuple[list, np.ndarray]:
    """The coded columns of a batch whose first ``len(features)`` columns are the features (in order), and
    a problem flag per column (0: none). O(rows x columns), vectorised."""
    cols, flags = [], np.zeros(len(features), dtype=np.int64)
    for j, f in enumerate(features):
        arr = _plain(batch.column(j))
        if arr.null_count:
            flags[j] = NULL
            cols.append(None)
            continue
        if f.is_categorical:
            col = _categorical(arr, f)
            flags[j] = UNKNOWN if col is None else 0
        else:
            col, flags[j] = _numeric(arr, f)
        cols.append(col)
    return cols, flags


def _labels(batch: pa.RecordBatch, d: int) -> np.ndarray:
    return np.asarray(_plain(batch.column(d)).to_numpy(zero_copy_only=False))


def _label_tally(lab, tally: dict) -> None:
    if len(tally) > 2:
        return
    counts = pc.value_counts(lab)
    for v, c in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True):
        tally[v] = tally.get(v, 0) + int(c)


def _check_batch(batch, features, flags: np.ndarray, tally: dict):
    """One batch's part of a partition's check: its columns' flags and the label's NULL flag or-ed into
    ``flags`` (length ``d + 1``), its labels counted into ``tally``; ``(columns, labels)``, labels None
    when one is NULL (then not counted)."""
    d = len(features)
    cols, f = batch_columns(batch, features)
    flags[:d] |= f
    lab = _plain(batch.column(d))
    if lab.null_count:
        flags[d] |= NULL
        return cols, None
    _label_tally(lab, tally)
    return cols, lab


def check_partition(batches, features):
    """One row per partition: pickled ``(flags per column and the label's, rows, {label: count})``."""
    d = len(features)
    flags = np.zeros(d + 1, dtype=np.int64)
    tally: dict = {}
    rows = 0
    for batch in batches:
        rows += batch.num_rows
        _check_batch(batch, features, flags, tally)
    yield _blob_batch(pickle.dumps((flags, rows, tally)))


#: Rows of :func:`encode_partition`: ``kind`` 0 holds a batch's encoding, 1 the partition's check.
ENCODED_SCHEMA = "kind int, blob binary"


def _kind_batch(kind: int, blob: bytes) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array([kind], type=pa.int32()), pa.array([blob], type=pa.binary())], names=["kind", "blob"]
    )


def encode_partition(batches, features, n_bins=None):
    """The check of :func:`check_partition` and the encoding, in one pass: one row per batch (``kind``
    0: the batch's pickled ``(encoding, label codes, label values)``) and, last, the partition's check
    (``kind`` 1). The encoding: DP-MOET's (``n_bins`` None) is an EncodedData without labels (the bit sets
    of :mod:`dpmo.trees.encoding`), the ID3 estimators' the (n, d) global value indices in 16 bits
    (:func:`dpmo.trees.columns.id3_codes`). A batch at fault is not encoded (the fit is refused anyway)."""
    from ..trees.columns import CodedColumns, id3_codes, narrow_codes
    from ..trees.encoding import EncodedData

    d = len(features)
    flags = np.zeros(d + 1, dtype=np.int64)
    tally: dict = {}
    rows = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        rows += batch.num_rows
        cols, lab = _check_batch(batch, features, flags, tally)
        if lab is None or flags.any():
            continue
        encoded = pc.dictionary_encode(lab)
        values = encoded.dictionary.to_pylist()
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(narrow_codes(max(len(values), 1)))
        if n_bins is not None:
            ids, _ = id3_codes(CodedColumns(cols, features), n_bins)
            enc = ids.astype(np.int16 if int(ids.max(initial=0)) < 2**15 else np.int32)
        else:
            enc = EncodedData.from_columns(CodedColumns(cols, features))
            if enc.bitset:
                enc._columns = None  # the bit sets answer every count; the columns are not kept
        yield _kind_batch(0, pickle.dumps((enc, codes, values), protocol=pickle.HIGHEST_PROTOCOL))
    yield _kind_batch(1, pickle.dumps((flags, rows, tally)))


def read_pieces(batches, names, batch_rows: int = 1 << 16):
    """The record batches of the Parquet row groups listed in ``batches`` (rows ``path``, ``group``), read
    by pyarrow with the columns ``names`` in that order (dictionary columns kept as such): the rows Spark
    would read, without its row conversion."""
    import pyarrow.parquet as pq

    for batch in batches:
        for path, group in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
            table = pq.ParquetFile(path).read_row_group(group, columns=list(names))
            yield from table.select(list(names)).to_batches(max_chunksize=batch_rows)


def encode_pieces(batches, features, names, n_bins=None):
    """:func:`encode_partition` of the Parquet row groups listed in ``batches`` (:func:`read_pieces`)."""
    yield from encode_partition(read_pieces(batches, names), features, n_bins)


def count_partition(batches, arrays, offsets, positive):
    """One row per partition: the int64 (nodes, 2) leaf counts of the population, summed, as bytes; the
    labels of a batch are 1 where they equal ``positive``."""
    from ..trees.evaluation import TreePopulation
    from ..trees.leaf_counts import leaf_class_counts

    population = TreePopulation.from_arrays(*arrays, offsets)
    total = np.zeros((population.feature.shape[0], 2), dtype=np.int64)
    for batch in batches:
        for blob in batch.column(0).to_pylist():
            enc, codes, values = pickle.loads(blob)
            is_positive = np.array([v == positive for v in values] + [False], dtype=bool)
            enc._set_labels(is_positive[codes].astype(np.int8))
            total += np.concatenate(leaf_class_counts(population, enc))
    yield _blob_batch(total.tobytes())


def id3_partition(batches, offsets, positive, tree, frontier, total):
    """One row per partition: class counts of ``(frontier node, global value index)`` and of each node,
    from the cached batches of :func:`encode_partition` (ID3 codes).

    ``tree = (feature, first_child)`` of the nodes grown so far (``feature`` -1: not split); a row walks
    from the root through the split nodes, taking the child of its code. ``frontier`` maps a node to its
    position among the nodes counted (-1: not counted); ``offsets``: each attribute's first value index.
    Returns pickled int64 ``(F, total, 2)`` and ``(F, 2)`` arrays. O(rows x (depth + columns)) per batch.
    """
    feature, first_child = (np.asarray(a, dtype=np.int64) for a in tree)
    frontier = np.asarray(frontier, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    F = int(frontier.max()) + 1 if frontier.size else 0
    table = np.zeros((F, total, 2), dtype=np.int64)
    sizes = np.zeros((F, 2), dtype=np.int64)
    for batch in batches:
        for blob in batch.column(0).to_pylist():
            codes, lab, values = pickle.loads(blob)
            is_positive = np.array([v == positive for v in values] + [False], dtype=bool)
            y = is_positive[lab].astype(np.int64)
            node = np.zeros(codes.shape[0], dtype=np.int64)
            split = feature[node] >= 0
            while split.any():
                at = np.flatnonzero(split)
                f = feature[node[at]]
                node[at] = first_child[node[at]] + codes[at, f] - offsets[f]
                split = feature[node] >= 0
            pos = frontier[node]
            keep = pos >= 0
            pos, yk, ck = pos[keep], y[keep], codes[keep].astype(np.int64)
            sizes += np.bincount(pos * 2 + yk, minlength=2 * F).reshape(F, 2)
            for j in range(codes.shape[1]):
                cell = (pos * total + ck[:, j]) * 2 + yk
                table += np.bincount(cell, minlength=F * total * 2).reshape(F, total, 2)
    yield _blob_batch(pickle.dumps((table, sizes)))
