"""The ``mapInArrow`` functions of :func:`dpmo.graphs.spark.node_statistics`: blocks in, blocks out.

Each function runs on one Spark partition: it decodes the blocks it received (:mod:`dpmo.spark.blocks`: int32
or int64 arrays, grouped by bucket; widened to int64 for the kernels), runs one kernel of
:mod:`dpmo.graphs.spark.kernels` on all the rows of a bucket at once, and sends its output rows to their
buckets as blocks again (the node's bucket, :func:`dpmo.spark.blocks.buckets`). In order:

* :func:`edge_blocks`: the edge table's rows (both directions of every edge) to the bucket of their first
  node; an edge with a null endpoint sends the tag :data:`NULL_TAG` instead, which every later step
  forwards, and the last step refuses; :func:`piece_blocks` the same from Parquet row groups read by
  pyarrow;
* :func:`announce_step`, :func:`orient_step`, :func:`close_step`: the three steps of the kernels module;
* :func:`member_blocks`: the public node set's ids to their buckets;
* :func:`final_step`: per bucket, the node set's rows with their degree and triangle count summed from
  the partial counts, the ego density (:func:`dpmo.graphs.centrality.ego_density_from_counts`, the
  in-memory formula) and ``member = 0`` rows for counted ids outside the node set (the refusal).
"""

from __future__ import annotations

import numpy as np

from ...spark.blocks import blocks_by_bucket, buckets, settle_worker, split
from ..centrality import ego_density_from_counts
from .kernels import announce_degrees, argsort_ids, close_wedges, out_neighbours

__all__ = [
    "NULL_TAG",
    "ROWS_TAG",
    "MEMBERS_TAG",
    "FINAL_COLUMNS",
    "edge_blocks",
    "piece_blocks",
    "member_blocks",
    "announce_step",
    "orient_step",
    "close_step",
    "final_step",
]

#: Block tags: rows of a step, ids of the node set, "an edge has a null endpoint".
ROWS_TAG, MEMBERS_TAG, NULL_TAG = 0, 1, 2
#: Columns of :func:`final_step` (``member`` 0: an id of the edges outside the node set, or null).
FINAL_COLUMNS = ("node", "degree", "triangles", "ego_density", "member")
_CHUNK_ROWS = 1 << 20  # input rows turned into blocks at a time


def _batch(out):
    import pyarrow as pa

    b, k, t, blob = out
    return pa.RecordBatch.from_arrays(
        [
            pa.array(b, pa.int32()),
            pa.array(k, pa.int32()),
            pa.array(t, pa.int32()),
            pa.array(blob, pa.binary()),
        ],
        names=["bucket", "key", "tag", "blob"],
    )


def _null_block(keys):
    return _batch(([0], [int(keys[0])], [NULL_TAG], [b""]))


def edge_blocks(batches, partitions: int, keys):
    """mapInArrow over the edge table (columns ``u``, ``v``): rows ``(x, y)`` in both directions, in blocks
    by the bucket of ``x``, about ``2^20`` input rows at a time."""
    settle_worker()
    yield from _edge_rows(((b.column("u"), b.column("v")) for b in batches), partitions, keys)


def piece_blocks(batches, partitions: int, keys, names):
    """mapInArrow over row groups of Parquet files (columns ``file``, ``group``;
    :func:`dpmo.graphs.spark.inputs.parquet_pieces`): each read by pyarrow (the columns ``names``), then
    as :func:`edge_blocks`."""
    import pyarrow.parquet as pq

    settle_worker()

    def columns():
        for batch in batches:
            files, groups = batch.column("file").to_pylist(), batch.column("group").to_pylist()
            for path, group in zip(files, groups, strict=True):
                table = pq.ParquetFile(path).read_row_group(group, columns=list(names), use_threads=False)
                yield table.column(0).combine_chunks(), table.column(1).combine_chunks()

    yield from _edge_rows(columns(), partitions, keys)


def _edge_rows(pairs, partitions: int, keys):
    """The blocks of :func:`edge_blocks` from ``(u, v)`` Arrow arrays of integers."""
    us, vs, rows, nulls = [], [], 0, False

    def flush():
        x = np.concatenate(us + vs)
        y = np.concatenate(vs + us)
        return split(buckets(x, partitions), [x, y], ROWS_TAG, keys)

    for u, v in pairs:
        if u.null_count or v.null_count:
            valid = np.asarray(u.is_valid()) & np.asarray(v.is_valid())
            nulls = nulls or not valid.all()
            u, v = u.filter(valid), v.filter(valid)
        us.append(u.to_numpy().astype(np.int64, copy=False))
        vs.append(v.to_numpy().astype(np.int64, copy=False))
        rows += len(u)
        if rows >= _CHUNK_ROWS:
            yield from flush()
            us, vs, rows = [], [], 0
    if rows:
        yield from flush()
    if nulls:
        yield _null_block(keys)


def member_blocks(batches, partitions: int, keys):
    """mapInArrow over the node set (column ``node``): its ids, in blocks by bucket."""
    settle_worker()
    for batch in batches:
        node = batch.column("node").to_numpy().astype(np.int64, copy=False)
        if node.size:
            yield from split(buckets(node, partitions), [node], MEMBERS_TAG, keys)


def _rows(blocks, count: int) -> list[np.ndarray]:
    """The first ``count`` arrays of every block, concatenated (fresh, aligned arrays)."""
    return [np.concatenate([blk[j] for blk in blocks]).astype(np.int64, copy=False) for j in range(count)]


def _lists(blocks, count: int):
    """Like :func:`_rows` for blocks whose last two arrays are a list per row (offsets, values)."""
    cols = _rows(blocks, count)
    sizes = [np.diff(blk[count]) for blk in blocks]
    offsets = np.r_[0, np.cumsum(np.concatenate(sizes))].astype(np.int64)
    values = np.concatenate([blk[count + 1] for blk in blocks]).astype(np.int64, copy=False)
    return cols, offsets, values


def _each_bucket(batches, keys, run):
    """Run ``run(bucket, blocks_by_tag)`` on every bucket received; forward the null tag."""
    found = blocks_by_bucket(batches)
    if any(tag == NULL_TAG for _, tag in found):
        yield _null_block(keys)
    for bucket in sorted({b for b, tag in found if tag != NULL_TAG}):
        yield from run(bucket, {tag: blocks for (b, tag), blocks in found.items() if b == bucket})


def announce_step(batches, partitions: int, keys):
    """mapInArrow, step 1: :func:`dpmo.graphs.spark.kernels.announce_degrees`."""

    def run(bucket, blocks):
        x, y = _rows(blocks[ROWS_TAG], 2)
        dst, src, dsrc = announce_degrees(x, y)
        return split(buckets(dst, partitions), [dst, src, dsrc], ROWS_TAG, keys)

    yield from _each_bucket(batches, keys, run)


def orient_step(batches, partitions: int, keys):
    """mapInArrow, step 2: :func:`dpmo.graphs.spark.kernels.out_neighbours`."""

    def run(bucket, blocks):
        dst, src, dsrc = _rows(blocks[ROWS_TAG], 3)
        key, origin, degree, offsets, values = out_neighbours(dst, src, dsrc)
        target = buckets(key, partitions)
        return split(target, [key, origin, degree], ROWS_TAG, keys, lists=(offsets, values))

    yield from _each_bucket(batches, keys, run)


def close_step(batches, partitions: int, keys):
    """mapInArrow, step 3: :func:`dpmo.graphs.spark.kernels.close_wedges`."""

    def run(bucket, blocks):
        (key, origin, degree), offsets, values = _lists(blocks[ROWS_TAG], 3)
        node, deg, tri = close_wedges(key, origin, degree, offsets, values)
        return split(buckets(node, partitions), [node, deg, tri], ROWS_TAG, keys)

    yield from _each_bucket(batches, keys, run)


def final_step(batches, partitions: int, keys):
    """mapInArrow, the node table of every bucket: :data:`FINAL_COLUMNS`."""
    import pyarrow as pa

    found = blocks_by_bucket(batches)
    if any(tag == NULL_TAG for _, tag in found):
        yield pa.RecordBatch.from_pydict(
            {
                "node": pa.array([None], pa.int64()),
                "degree": [0],
                "triangles": [0],
                "ego_density": [0.0],
                "member": [0],
            }
        )
    for bucket in sorted({b for b, tag in found if tag != NULL_TAG}):
        parts = found.get((bucket, ROWS_TAG), [])
        members = found.get((bucket, MEMBERS_TAG), [])
        node = np.sort(_rows(members, 1)[0]) if members else np.empty(0, np.int64)
        degree = np.zeros(node.size, np.int64)
        tri = np.zeros(node.size, np.int64)
        outside = np.empty(0, np.int64)
        if parts:
            ids, deg, count = _rows(parts, 3)
            order = argsort_ids(ids)
            ids, deg, count = ids[order], deg[order], count[order]
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            ids, deg, count = ids[starts], np.maximum.reduceat(deg, starts), np.add.reduceat(count, starts)
            at = np.minimum(np.searchsorted(node, ids), max(node.size - 1, 0))
            inside = node[at] == ids if node.size else np.zeros(ids.size, np.bool_)
            degree[at[inside]] = np.maximum(deg[inside], 0)
            tri[at[inside]] = count[inside]
            outside = ids[~inside][:1]  # one is enough to refuse
        ego = ego_density_from_counts(degree, tri, 0.0, "paper")
        size = node.size + outside.size
        yield pa.RecordBatch.from_arrays(
            [
                pa.array(np.r_[node, outside]),
                pa.array(np.r_[degree, np.zeros(outside.size, np.int64)]),
                pa.array(np.r_[tri, np.zeros(outside.size, np.int64)]),
                pa.array(np.r_[ego, np.zeros(outside.size)]),
                pa.array(np.r_[np.ones(node.size, np.int64), np.zeros(outside.size, np.int64)][:size]),
            ],
            names=list(FINAL_COLUMNS),
        )
