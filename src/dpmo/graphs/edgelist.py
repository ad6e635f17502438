"""Parsing of edge-list files: one edge ``u v`` (or ``u,v``) per line, integer or text node ids.

:func:`read_edge_list` turns a (possibly gzipped) text file into an ``(E, 2)`` array of endpoints, with
comments (``#``, ``%``) and an optional header line; a malformed line is refused without its number or
content (a line is a private edge: the message names the file and the rule broken). It returns
the edges only: the public node set and the :class:`dpmo.graphs.Graph` are built by
:func:`dpmo.graphs.load_graph`.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn

import numpy as np

__all__ = ["read_edge_list"]

_COMMENTS = ("#", "%")


#: What a damaged compressed file raises while it is read (gzip's BadGzipFile, a truncated stream's EOFError,
#: zlib's error): turned into a ValueError naming the file, never the reader's text (which may quote bytes).
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def _gzip_error(path: Path, exc: BaseException) -> ValueError:
    """The refusal of a ``.gz`` edge list that cannot be decompressed; its bytes are not quoted."""
    if isinstance(exc, EOFError):
        what = "a truncated gzip file (it ends before the end of its compressed stream)"
    elif isinstance(exc, gzip.BadGzipFile):
        what = "not a gzip file (a name ending in .gz is read as gzip: rename a plain text file)"
    else:
        what = "a damaged gzip file (its compressed data cannot be read)"
    return ValueError(f"{path}: {what}; its content is not shown (the edges are private)")


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace")
    return open(path, encoding="utf-8-sig", errors="replace")  # a byte-order mark is not part of an id


def _strip_comment(line: str, comments: Iterable[str]) -> str:
    cut = len(line)
    for c in comments:
        pos = line.find(c)
        if pos != -1:
            cut = min(cut, pos)
    return line[:cut].strip()


def _split(line: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return line.split()
    return [tok.strip() for tok in line.split(delimiter)]


def read_edge_list(
    path, *, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
) -> np.ndarray:
    """Read an edge list: one edge ``u v`` (or ``u,v``) per line, integer (or string) node ids.

    Parameters
    ----------
    path : str or os.PathLike
        Text file, or ``.gz`` compressed text (as SNAP distributes them).
    delimiter : str, optional
        Field separator. Default: commas or any whitespace (spaces or tabs), whichever reads every line
        (commas tried first when the first data line holds one: a running-time choice only, so whether a
        file is read never depends on which edge comes first).
    header : bool, optional
        Whether the first data line is a header (such as ``id_1,id_2``) to skip. Never guessed: None and
        False read it as data, so a first line that is not two ids is an error (whose hint names header=True).
    ids : {"int", "str"}, default "int"
        Node ids are integers, or any text without the delimiter (then every token is an id, as written).

    Returns
    -------
    numpy.ndarray of int64 (``ids="int"``) or str (``ids="str"``), shape (E, 2)
        The rows as written (no symmetrisation here; :func:`load_graph` does that).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If a data line does not hold exactly two integers (in the int64 range); the message names the file
        and the rule, never the line or its content (an edge is a private record). Also for a ``.gz`` file
        that is not gzip, or is truncated or damaged, and for a path that is not a regular file (a pipe:
        the file is read more than once); their content is never quoted.

    Notes
    -----
    Lines starting with ``#`` or ``%`` are comments, text after ``#``/``%`` on a line is ignored, blank lines
    are skipped, a UTF-8 byte-order mark (as spreadsheets write) is ignored. The fast path is
    :func:`numpy.loadtxt` (O(E) time; twice when the first separator tried fails); text ids are split line
    by line.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpmo import graphs
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "edges.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# a path\\n1 2\\n2 3\\n")
    >>> graphs.read_edge_list(path).tolist()
    [[1, 2], [2, 3]]
    >>> os.remove(path); os.rmdir(folder)
    """
    path = Path(os.fspath(path))
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not an edge-list file")
    if path.exists() and not path.is_file():
        raise ValueError(
            f"{path}: not a regular file (a pipe or a device?): an edge list is read more than once; save it "
            "to a file first"
        )
    if not path.is_file():
        raise FileNotFoundError(f"edge list not found: {path}")
    if delimiter is not None and (
        not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "#%\n\r"
    ):
        raise ValueError(
            f"delimiter must be a single character other than '#', '%' and a line break, got {delimiter!r}"
        )
    if header not in (None, True, False):
        raise TypeError(f"header must be None, True or False, got {header!r}")
    if ids not in ("int", "str"):
        raise ValueError(f"ids must be 'int' or 'str', got {ids!r}")
    if path.suffix != ".gz":
        return _read(path, delimiter, header, ids)
    try:
        return _read(path, delimiter, header, ids)
    except _GZIP_ERRORS as exc:
        raise _gzip_error(path, exc) from None


def _read(path: Path, delimiter: str | None, header: bool | None, ids: str) -> np.ndarray:
    """The edges of :func:`read_edge_list` (its arguments checked)."""

    # Sniff the first data line (for the header, and the separator to try first) without reading the file.
    first_lineno = None
    first_line = ""
    with _open_text(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = _strip_comment(raw, _COMMENTS)
            if line:
                first_lineno, first_line = lineno, line
                break
    if first_lineno is None:
        return np.empty((0, 2), dtype=np.int64)
    skiprows = first_lineno if header else first_lineno - 1
    if delimiter is not None:
        tried = [delimiter]
    else:
        # commas first when the first data line has one, else whitespace first; the other is tried when the
        # first fails, so that whether a file is read, and the refusal's text, never depend on which edge
        # comes first (an edge is a private record)
        tried = [","] if "," in first_line else [None]
        tried.append(None if tried[0] == "," else ",")
    for sep in tried:
        edges = _parse(path, sep, skiprows, ids)
        if edges is not None:
            return edges
    _raise_malformed(path, delimiter, ids)


def _parse(path: Path, delimiter: str | None, skiprows: int, ids: str) -> np.ndarray | None:
    """The edges under one ``delimiter`` (None: whitespace); None when a line is not two ids."""
    if ids == "str":
        return _read_string_edges(path, delimiter, skiprows)
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            edges = np.loadtxt(
                path,
                dtype=np.int64,
                delimiter=delimiter,
                comments=_COMMENTS,
                skiprows=skiprows,
                ndmin=2,
                encoding="utf-8-sig",
            )
    except ValueError:
        return None
    if edges.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    return edges if edges.shape[1] == 2 else None


def _data_lines(path: Path, delimiter: str | None, skiprows: int):
    """``(line number, raw line, line without comment, tokens)`` of every data line after ``skiprows``
    (comment-only and blank lines skipped)."""
    with _open_text(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno <= skiprows:
                continue
            line = _strip_comment(raw, _COMMENTS)
            if line:
                yield lineno, raw, line, _split(line, delimiter)


def _raise_malformed(path: Path, delimiter: str | None, ids: str) -> NoReturn:
    """The refusal of a malformed edge list: the rule broken, never the line or its content (an edge is a
    private record; numpy's own message, which names both, is dropped). It holds no digit at all, so that
    none can be mistaken for a line or an id (the int64 range is spelt out in words). ``delimiter`` None:
    none was given (whitespace and commas were both tried)."""
    sep = "whitespace or by commas (one separator on every line)" if delimiter is None else repr(delimiter)
    if ids == "str":
        raise ValueError(
            f"{path}: a line is not two node ids separated by {sep} (which line is not shown: the edges "
            "are private); a header line? pass header=True (CLI --header)"
        )
    raise ValueError(
        f"{path}: a line is not two integer node ids separated by {sep} (ids must be integers in the signed "
        "sixty-four-bit range, numpy's int sixty-four; which line is not shown: the edges are private); a "
        "header line? pass header=True (CLI --header); text ids? ids='str' (--string-ids)"
    ) from None


def _read_string_edges(path: Path, delimiter: str | None, skiprows: int) -> np.ndarray | None:
    """Edge list with text ids: every non-comment line after ``skiprows`` holds exactly two tokens (None
    when one does not)."""
    rows = []
    for _, _, _, tokens in _data_lines(path, delimiter, skiprows):
        if len(tokens) != 2 or not all(tokens):
            return None
        rows.append(tokens)
    if not rows:
        return np.empty((0, 2), dtype=str)
    return np.array(rows, dtype=str)
