"""Row groups of Parquet files on the local file system, read by pyarrow on the executors instead of by Spark.

Shared by :func:`dpmo.spark.trees.parquet_pieces` (a table of features and labels) and
:func:`dpmo.graphs.spark.inputs.parquet_pieces` (an edge table): both list the files Spark would read and
accept them only when every one is a local ``file:`` URI whose footer passes their own schema check.
"""

from __future__ import annotations

__all__ = ["MAX_DIRECT_FILES", "local_row_groups"]

#: At most this many Parquet files are read by pyarrow directly (their footers are read on the driver).
MAX_DIRECT_FILES = 4096


def local_row_groups(files, accept) -> list[tuple[str, int]] | None:
    """The non-empty row groups ``(path, index)`` of the Parquet ``files`` (URIs, as Spark's
    ``inputFiles`` lists them), in the order of the sorted URIs; None when there is no file, more than
    :data:`MAX_DIRECT_FILES`, one that is not a ``file:`` URI, one whose footer cannot be read, or one for
    which ``accept(path, arrow_schema)`` is false. Only the footers are read. O(files + row groups).

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from dpmo.spark.parquet import local_row_groups
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> pq.write_table(pa.table({"a": [0, 1, 2]}), path, row_group_size=2)
    >>> [g for _, g in local_row_groups(["file://" + path], lambda p, s: "a" in s.names)]
    [0, 1]
    >>> local_row_groups(["file://" + path], lambda p, s: "b" in s.names) is None
    True
    """
    from urllib.parse import unquote, urlparse

    import pyarrow.parquet as pq

    if not files or len(files) > MAX_DIRECT_FILES:
        return None
    pieces = []
    for uri in sorted(files):
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        path = unquote(parsed.path)
        try:
            meta = pq.ParquetFile(path).metadata
            schema = meta.schema.to_arrow_schema()
        except (OSError, ValueError):
            return None
        if not accept(path, schema):
            return None
        pieces += [(path, g) for g in range(meta.num_row_groups) if meta.row_group(g).num_rows > 0]
    return pieces
