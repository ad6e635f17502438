"""Graphs for DP-MOTkIN: loading edge lists, networkx graphs, scipy matrices and edge arrays.

Every input becomes a :class:`Graph`: a *simple undirected* graph stored as a CSR adjacency structure
(self-loops dropped, duplicate and reverse edges merged, direction ignored), with the nodes relabelled
``0 .. n-1`` and their original ids kept in :attr:`Graph.ids` for the output.

Privacy model (the paper's Definition "Edge Differential Privacy"): two graphs are neighbours when they have
the same node set and differ in exactly one edge (one edge added or removed). The node set, and so the number
of nodes ``n``, is **public input**: the caller declares it with ``nodes=`` (the ids, or an int ``n`` for the
ids ``0 .. n-1``). It is never read from the private edges: the set of endpoints that appear in an edge list
changes when a leaf's only edge is removed (the node disappears), so it would reveal that edge.
:func:`load_graph` refuses an edge list, edge array, networkx graph or scipy matrix without ``nodes=``;
``nodes="observed"`` takes the nodes of the input itself, which is fine for exact (non-private) statistics
but gives a graph that the private functions (:func:`dpmo.graphs.top_k` and friends) refuse.
See ``docs/public-inputs.md``.
"""

from __future__ import annotations

import gzip
import numbers
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .nodes import NODES_REQUIRED, as_node_ids, endpoint_positions, is_observed, networkx_labels, not_in

__all__ = ["Graph", "load_graph", "read_edge_list"]

_COMMENTS = ("#", "%")


# ----------------------------------------------------------------------------------------------------------
# The graph object
# ----------------------------------------------------------------------------------------------------------
class Graph:
    """A simple undirected graph with original node ids and cached utilities.

    Build it with :func:`load_graph` (or the ``from_*`` class methods), not with the constructor.

    Attributes
    ----------
    ids : numpy.ndarray, shape (n,)
        Original id of node ``i`` (read-only). Sorted increasingly whenever the ids can be sorted (always for
        files, edge arrays and scipy matrices), so that "smaller original id" and "smaller index" agree.
    n_nodes, n_edges : int
        Number of nodes and of undirected edges.
    indptr, indices : numpy.ndarray
        CSR structure of the symmetric adjacency matrix (read-only); the neighbours of node ``i`` are
        ``indices[indptr[i]:indptr[i + 1]]``, sorted increasingly.

    Notes
    -----
    Utilities (degree, triangles, ego density), objectives, Pareto scores and the scores each private
    method selects from are computed on first use and cached on the object: load a graph once, then call
    :func:`dpmo.graphs.top_k` on it many times. The cache holds deterministic functions of the graph only
    (never random draws). Memory O(n + #edges) plus O(n) per cached vector.

    Pickling keeps the graph and drops the cache (it is rebuilt on first use), so a graph can be sent to
    worker processes.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> graph = graphs.load_graph(g, nodes=34)  # the public node set: the 34 members
    >>> (graph.n_nodes, graph.n_edges) == (g.number_of_nodes(), g.number_of_edges())
    True
    >>> sorted(graph.ids.tolist()) == sorted(g.nodes)
    True
    """

    __slots__ = ("_indptr", "_indices", "_ids", "_cache", "_id_lookup", "_public")

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, ids: np.ndarray, public: bool = False):
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        indices = np.ascontiguousarray(indices, dtype=np.int64)
        ids = np.asarray(ids)
        if indptr.ndim != 1 or indices.ndim != 1 or ids.ndim != 1:
            raise ValueError("indptr, indices and ids must be 1-D arrays")
        n = ids.shape[0]
        if indptr.shape[0] != n + 1 or indptr[0] != 0 or indptr[-1] != indices.shape[0]:
            raise ValueError("indptr does not describe a CSR structure over len(ids) nodes")
        if indices.size % 2:
            raise ValueError("a symmetric adjacency structure has an even number of entries")
        for arr in (indptr, indices, ids):
            arr.setflags(write=False)
        self._indptr = indptr
        self._indices = indices
        self._ids = ids
        self._cache: dict[Any, Any] = {}
        self._id_lookup = None
        self._public = bool(public)

    # -- construction ------------------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, edges, *, nodes=None) -> Graph:
        """Graph from an integer array of shape (E, 2) (one edge per row, any order and direction).

        Parameters
        ----------
        edges : array_like of int, shape (E, 2)
            Endpoints (original ids). Self-loops are dropped; duplicates and reverse edges are merged.
        nodes : array_like of int, int, or "observed", optional
            The public node set: the ids, or an int ``n`` for the ids ``0 .. n-1``. It must contain every
            endpoint (an endpoint outside it raises ``ValueError`` naming it); nodes without edges are
            isolated nodes. ``None`` or ``"observed"``: the endpoints that appear in ``edges``, which is not
            a public node set (:attr:`public_nodes` is then False and the private functions refuse the
            graph).

        Notes
        -----
        O(E log E) time (a sort of the edge codes; O(E + id range) for the relabelling when the ids are
        dense), O(n + E) memory.
        """
        edges = _as_edge_array(edges, "edges")
        public = not is_observed(nodes)
        if not public:
            ids, inv = _relabel(edges)
        else:
            ids = as_node_ids(nodes)
            inv = endpoint_positions(ids, edges)
        if ids.size == 0:
            raise ValueError("the graph has no nodes (pass nodes= to give the public node set)")
        indptr, indices = _csr_from_pairs(inv[:, 0], inv[:, 1], ids.size)
        return cls(indptr, indices, ids, public=public)

    @classmethod
    def from_scipy(cls, matrix, *, nodes=None) -> Graph:
        """Graph from a square scipy sparse matrix or array; node ``i`` gets original id ``i``.

        Any non-zero entry ``(i, j)`` or ``(j, i)`` with ``i != j`` is an edge (weights and direction are
        ignored). ``nodes``: the public node count ``n`` (it must equal the matrix's size; the ids are
        ``0 .. n-1``), or None / ``"observed"`` for a graph whose node set is not declared public.
        O(nnz log nnz) time, O(n + nnz) memory.
        """
        if not sp.issparse(matrix):
            raise TypeError(f"matrix must be a scipy sparse matrix or array, got {type(matrix).__name__}")
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"an adjacency matrix must be square, got shape {matrix.shape}")
        n = matrix.shape[0]
        public = not is_observed(nodes)
        if public:
            ids = as_node_ids(nodes)
            if ids.size != n or (n and (ids[0] != 0 or ids[-1] != n - 1)):
                raise ValueError(
                    f"nodes must be the matrix's size ({n}, meaning ids 0..{n - 1}) for a scipy matrix, "
                    f"got {ids.size} node ids"
                )
        coo = sp.coo_array(matrix)
        keep = coo.data != 0
        edges = np.column_stack([coo.row[keep], coo.col[keep]]).astype(np.int64, copy=False)
        if n == 0:
            raise ValueError("the graph has no nodes")
        indptr, indices = _csr_from_pairs(edges[:, 0], edges[:, 1], n)
        return cls(indptr, indices, np.arange(n, dtype=np.int64), public=public)

    @classmethod
    def from_networkx(cls, graph, *, nodes=None) -> Graph:
        """Graph from a networkx graph (any of Graph, DiGraph, MultiGraph, MultiDiGraph).

        Edges are symmetrised and merged. ``nodes``: the public node set, as labels (every node of
        ``graph`` must be among them; the others are isolated nodes) or an int ``n`` (the labels must be
        integers in ``0 .. n-1``, or ``graph`` must have exactly ``n`` nodes). None / ``"observed"``: the
        nodes of ``graph``, not declared public. The original ids are the labels, sorted when they are
        mutually comparable, in the given order otherwise. O(n + E log E) time.
        """
        try:
            node_list = list(graph.nodes())
            edge_list = list(graph.edges())
        except AttributeError as exc:
            raise TypeError(f"expected a networkx graph, got {type(graph).__name__}") from exc
        public = not is_observed(nodes)
        if public:
            node_list = networkx_labels(nodes, node_list)
        if not node_list:
            raise ValueError("the graph has no nodes")
        try:
            node_list = sorted(node_list)
        except TypeError:
            pass
        if all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool) for v in node_list):
            ids = np.asarray(node_list, dtype=np.int64)
        else:
            ids = np.empty(len(node_list), dtype=object)
            ids[:] = node_list
        position = {v: i for i, v in enumerate(node_list)}
        if edge_list:
            pairs = np.fromiter(
                (position[x] for e in edge_list for x in e[:2]), dtype=np.int64, count=2 * len(edge_list)
            ).reshape(-1, 2)
        else:
            pairs = np.empty((0, 2), dtype=np.int64)
        indptr, indices = _csr_from_pairs(pairs[:, 0], pairs[:, 1], len(node_list))
        return cls(indptr, indices, ids, public=public)

    @classmethod
    def read(
        cls, path, *, nodes=None, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
    ) -> Graph:
        """Graph from an edge-list file; see :func:`read_edge_list` for the format and
        :meth:`from_edges` for ``nodes``."""
        return cls.from_edges(read_edge_list(path, delimiter=delimiter, header=header, ids=ids), nodes=nodes)

    def on_nodes(self, nodes) -> Graph:
        """This graph on the public node set ``nodes`` (ids, or an int ``n`` for the ids ``0 .. n-1``).

        Every node of the graph must be in ``nodes`` (``ValueError`` naming the first one that is not);
        declared nodes that the graph lacks become isolated nodes. The result has :attr:`public_nodes`
        True; when ``nodes`` is exactly the graph's node set it shares this graph's arrays and cache.
        O(n) when the sets agree, else O(n + E log E).
        """
        if self._ids.dtype == object:
            if is_observed(nodes):
                raise ValueError("nodes must be the public node set, not 'observed'")
            labels = networkx_labels(nodes, self._ids.tolist())
            if len(labels) != self.n_nodes:
                raise ValueError("a graph with non-integer ids cannot gain nodes; load it again with nodes=")
            ids = None
        else:
            ids = as_node_ids(nodes)
        if ids is None or (ids.size == self.n_nodes and np.array_equal(ids, self._ids)):
            same = Graph(self._indptr, self._indices, self._ids, public=True)
            same._cache = self._cache  # same graph: share the cached utilities and scores
            return same
        missing = self._ids[not_in(ids, self._ids)]
        if missing.size:
            raise ValueError(f"node {missing[0].item()!r} of the graph is not in nodes (the public node set)")
        return Graph.from_edges(self._ids[self.edges()], nodes=ids)

    # -- pickling ------------------------------------------------------------------------------------------
    def __reduce__(self):
        return (Graph, (np.array(self._indptr), np.array(self._indices), np.array(self._ids), self._public))

    # -- basic properties ----------------------------------------------------------------------------------
    @property
    def ids(self) -> np.ndarray:
        """Original node ids, shape (n,), read-only."""
        return self._ids

    @property
    def public_nodes(self) -> bool:
        """Whether the node set was declared public (``nodes=``) rather than read from the input."""
        return self._public

    @property
    def n_nodes(self) -> int:
        return int(self._ids.shape[0])

    @property
    def n_edges(self) -> int:
        return int(self._indices.shape[0] // 2)

    @property
    def indptr(self) -> np.ndarray:
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        return self._indices

    def __len__(self) -> int:
        return self.n_nodes

    def __repr__(self) -> str:
        return f"Graph(n_nodes={self.n_nodes}, n_edges={self.n_edges}, public_nodes={self._public})"

    @property
    def adjacency(self) -> sp.csr_array:
        """Symmetric 0/1 adjacency matrix as a new ``scipy.sparse.csr_array`` of int8 (O(n + E))."""
        data = np.ones(self._indices.shape[0], dtype=np.int8)
        return sp.csr_array((data, self._indices.copy(), self._indptr.copy()), shape=(self.n_nodes,) * 2)

    def edges(self) -> np.ndarray:
        """The edges as an (E, 2) array of internal indices with ``u < v``, sorted. O(n + E)."""
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(self._indptr))
        keep = rows < self._indices
        return np.column_stack([rows[keep], self._indices[keep]])

    def index(self, ids) -> np.ndarray:
        """Internal indices of the nodes with original ids ``ids`` (array_like).

        Raises
        ------
        KeyError
            If an id is not a node of the graph.

        Notes
        -----
        O(m log n) for sortable integer ids, O(m) after an O(n) dictionary otherwise.
        """
        arr = np.asarray(ids)
        scalar = arr.ndim == 0
        arr = np.atleast_1d(arr)
        if self._ids.dtype != object and arr.dtype != object and np.issubdtype(arr.dtype, np.integer):
            pos = np.searchsorted(self._ids, arr)
            pos_c = np.minimum(pos, self.n_nodes - 1)
            missing = self._ids[pos_c] != arr
            if np.any(missing):
                raise KeyError(f"node id {arr[np.argmax(missing)]!r} is not in the graph")
            out = pos_c.astype(np.intp)
        else:
            if self._id_lookup is None:
                self._id_lookup = {v: i for i, v in enumerate(self._ids.tolist())}
            try:
                out = np.fromiter((self._id_lookup[v] for v in arr.tolist()), dtype=np.intp, count=arr.size)
            except KeyError as exc:
                raise KeyError(f"node id {exc.args[0]!r} is not in the graph") from None
        return out[0] if scalar else out

    def cached(self, key, compute):
        """Return ``self._cache[key]``, computing it with ``compute()`` on first use (internal helper)."""
        try:
            return self._cache[key]
        except KeyError:
            value = compute()
            self._cache[key] = value
            return value

    def clear_cache(self) -> None:
        """Forget every cached utility, objective and score (they are recomputed on demand)."""
        self._cache.clear()

    # -- utilities (implemented in dpmo.graphs.utilities, cached here) --------------------------------------
    @property
    def degree(self) -> np.ndarray:
        """Degree of every node, int64, shape (n,), read-only (O(n), cached)."""
        from .utilities import degree

        return self.cached("degree", lambda: degree(self))

    @property
    def triangles(self) -> np.ndarray:
        """Number of edges among the neighbours of every node, T(v), int64, shape (n,) (cached)."""
        from .utilities import triangles

        return self.cached("triangles", lambda: triangles(self))

    def ego_density(self, *, low_degree: float = 0.0, formula: str = "paper") -> np.ndarray:
        """Ego density of every node (cached); see :func:`dpmo.graphs.ego_density`."""
        from .utilities import check_convention, ego_density

        key = ("ego_density",) + check_convention(low_degree, formula)
        return self.cached(key, lambda: ego_density(self, low_degree=low_degree, formula=formula))

    def points(self, ids=None, *, low_degree: float = 0.0, formula: str = "paper") -> np.ndarray:
        """Objective vectors ``[degree, ego density]`` of the nodes ``ids`` (original ids; all when None).

        Returns a new float64 array of shape (m, 2), the input of :func:`dpmo.metrics.coverage`.
        """
        pts = np.column_stack(
            [self.degree.astype(np.float64), self.ego_density(low_degree=low_degree, formula=formula)]
        )
        return pts if ids is None else pts[self.index(ids)]


# ----------------------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------------------
def load_graph(
    source, *, nodes=None, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
) -> Graph:
    """Turn a graph given in any supported form into a simple undirected :class:`Graph`.

    Parameters
    ----------
    source : Graph, str or os.PathLike, scipy sparse matrix/array, networkx graph, or array_like (E, 2)
        * a :class:`Graph` is returned unchanged (with its cache), or on ``nodes`` (:meth:`Graph.on_nodes`);
        * a path is read with :func:`read_edge_list` (``.gz`` files too);
        * a square scipy sparse matrix: node ``i`` has id ``i``, non-zero off-diagonal entries are edges;
        * a networkx graph (directed or multi graphs are symmetrised and merged);
        * an integer array of shape (E, 2): one edge per row, original ids.
    nodes : array_like, int, or "observed"
        **Required** (except for a :class:`Graph`): the public node set, as the node ids or an int ``n``
        meaning the ids ``0 .. n-1`` (for a scipy matrix, its size; for a networkx graph, its labels or
        ``n``). Every endpoint must be in it: an edge naming another node raises ``ValueError`` naming
        that node (the declared set is public, so this checks that the input is well formed: the graphs
        that differ from it in one edge are on the same node set). Nodes without edges are isolated nodes,
        candidates like any other. ``"observed"`` takes the nodes of the input itself: fine for exact
        statistics, but the private functions refuse such a graph (it is not a public node set).
    delimiter, header, ids : optional
        Passed to :func:`read_edge_list` for paths (``ids="str"``: text node ids; ``nodes`` then lists
        text ids too).

    Returns
    -------
    Graph

    Raises
    ------
    TypeError
        For an unsupported kind of input.
    ValueError
        Without ``nodes`` (:data:`NODES_REQUIRED`), for an endpoint outside ``nodes``, a malformed file (the
        message gives the line number), a badly shaped array, or an empty graph.

    Notes
    -----
    Self-loops are dropped, duplicate and reverse edges merged. O(E log E) time and O(n + E) memory (reading
    GitHub's 289,003 edges takes a few tens of milliseconds).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo import graphs
    >>> graph = graphs.load_graph(np.array([[10, 20], [20, 30], [30, 10], [20, 10]]), nodes=[10, 20, 30])
    >>> graph.n_nodes, graph.n_edges  # a triangle: duplicates and directions merged
    (3, 3)
    >>> graph.ids.tolist()
    [10, 20, 30]
    >>> g = graphs.load_graph([[0, 1], [1, 2], [2, 3], [3, 4]], nodes=6)  # node 5 is isolated
    >>> g.n_nodes, g.public_nodes
    (6, True)
    """
    if isinstance(source, Graph):
        return source if nodes is None else source.on_nodes(nodes)
    if nodes is None:
        raise ValueError(NODES_REQUIRED)
    if isinstance(source, (str, os.PathLike)):
        return Graph.read(source, nodes=nodes, delimiter=delimiter, header=header, ids=ids)
    if sp.issparse(source):
        return Graph.from_scipy(source, nodes=nodes)
    if hasattr(source, "nodes") and hasattr(source, "edges") and hasattr(source, "is_directed"):
        return Graph.from_networkx(source, nodes=nodes)
    if isinstance(source, (np.ndarray, list, tuple)):
        return Graph.from_edges(source, nodes=nodes)
    raise TypeError(
        "graph must be a dpmo.graphs.Graph, an edge-list path, a scipy sparse adjacency matrix, a networkx "
        f"graph or an (E, 2) integer array of edges; got {type(source).__name__}"
    )


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


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


def read_edge_list(
    path, *, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
) -> np.ndarray:
    """Read an edge list: one edge ``u v`` (or ``u,v``) per line, integer (or string) node ids.

    Parameters
    ----------
    path : str or os.PathLike
        Text file, or ``.gz`` compressed text (as SNAP distributes them).
    delimiter : str, optional
        Field separator. Default: a comma if the first data line contains one, else any whitespace (spaces or
        tabs).
    header : bool, optional
        Whether the first data line is a header (such as ``id_1,id_2``) to skip. Never guessed: None and
        False read it as data, so a first line that is not two ids is an error naming its line.
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
        If a data line does not hold exactly two integers; the message gives the 1-based line number.

    Notes
    -----
    Lines starting with ``#`` or ``%`` are comments, text after ``#``/``%`` on a line is ignored, blank lines
    are skipped, a UTF-8 byte-order mark (as spreadsheets write) is ignored. The fast path is
    :func:`numpy.loadtxt` (O(E) time); only a failing file is scanned line by
    line to report the first malformed line.

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
    if not path.is_file():
        raise FileNotFoundError(f"edge list not found: {path}")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "#%"):
        raise ValueError(f"delimiter must be a single character other than '#' and '%', got {delimiter!r}")
    if header not in (None, True, False):
        raise TypeError(f"header must be None, True or False, got {header!r}")
    if ids not in ("int", "str"):
        raise ValueError(f"ids must be 'int' or 'str', got {ids!r}")

    # Sniff the first data line (delimiter and header) without reading the whole file.
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
    if delimiter is None:
        delimiter = "," if "," in first_line else None
    skiprows = first_lineno if header else first_lineno - 1
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
    except ValueError as exc:
        _raise_malformed(path, delimiter, skiprows, exc)
        raise  # pragma: no cover - _raise_malformed always raises
    if edges.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if edges.shape[1] != 2:
        _raise_malformed(path, delimiter, skiprows, None)
    return edges


def _raise_malformed(path: Path, delimiter: str | None, skiprows: int, exc: Exception | None):
    sep = "whitespace" if delimiter is None else repr(delimiter)
    seen = False
    with _open_text(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno <= skiprows:
                continue
            line = _strip_comment(raw, _COMMENTS)
            if not line:
                continue
            tokens = _split(line, delimiter)
            first = not seen
            seen = True
            if len(tokens) != 2 or not all(_is_int(tok) for tok in tokens):
                shown = raw.rstrip("\r\n")
                if len(shown) > 80:
                    shown = shown[:77] + "..."
                hint = ""
                if first:
                    hint = " (a header? pass header=True, CLI --header; text ids? ids='str', --string-ids)"
                raise ValueError(
                    f"{path}: line {lineno}: expected two integer node ids separated by {sep}, got {shown!r}"
                    f"{hint}"
                ) from exc
    raise ValueError(f"{path}: could not be read as an edge list ({exc})") from exc


def _read_string_edges(path: Path, delimiter: str | None, skiprows: int) -> np.ndarray:
    """Edge list with text ids: every non-comment line after ``skiprows`` holds exactly two tokens."""
    rows = []
    sep = "whitespace" if delimiter is None else repr(delimiter)
    with _open_text(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno <= skiprows:
                continue
            line = _strip_comment(raw, _COMMENTS)
            if not line:
                continue
            tokens = _split(line, delimiter)
            if len(tokens) != 2 or not all(tokens):
                raise ValueError(
                    f"{path}: line {lineno}: expected two node ids separated by {sep}, got {line!r}"
                )
            rows.append(tokens)
    if not rows:
        return np.empty((0, 2), dtype=str)
    return np.array(rows, dtype=str)


# ----------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------
def _as_edge_array(edges, name: str) -> np.ndarray:
    arr = np.asarray(edges)
    if arr.dtype.kind == "U" and arr.ndim == 2 and arr.shape[1] == 2:
        return arr  # text ids (read_edge_list(..., ids="str"))
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise TypeError(f"{name} must be an array of integer node ids of shape (E, 2), got dtype {arr.dtype}")
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (E, 2), got {arr.shape}")
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids larger than the int64 range")
    return arr.astype(np.int64, copy=False)


def _relabel(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the edges in indices 0..n-1 (dense ids: O(E + range), else O(E log E))."""
    if edges.shape[0] == 0:
        return np.empty(0, dtype=np.int64), edges
    if edges.dtype.kind == "U":
        ids, inv = np.unique(edges, return_inverse=True)
        return ids, inv.reshape(edges.shape).astype(np.int64)
    lo = int(edges.min())
    hi = int(edges.max())
    span = hi - lo + 1
    if span <= 4 * edges.size + 1024:
        present = np.zeros(span, dtype=np.bool_)
        present[(edges - lo).ravel()] = True
        ids = np.flatnonzero(present).astype(np.int64) + lo
        position = np.cumsum(present, dtype=np.int64) - 1
        return ids, position[edges - lo]
    ids = _unique_sorted(edges.ravel())
    return ids, np.searchsorted(ids, edges).astype(np.int64, copy=False)


def _unique_sorted(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a comparison: faster than ``np.unique``'s hash path here)."""
    s = np.sort(x)
    if s.size == 0:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _csr_from_pairs(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (sorted rows) of the simple graph with edges {u_i, v_i} over nodes 0..n-1."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    a = np.minimum(u[keep], v[keep])
    b = np.maximum(u[keep], v[keep])
    codes = _unique_sorted(a * np.int64(n) + b)  # sorted by (a, b), duplicates merged
    a = codes // n
    b = codes - a * n
    # Entries (b, a) come first (for a fixed row b their columns a < b are increasing), then (a, b)
    # (columns b > a increasing); scipy's COO -> CSR conversion is a stable counting sort by row (O(nnz)),
    # so every row comes out sorted.
    rows = np.concatenate([b, a])
    cols = np.concatenate([a, b])
    csr = sp.coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n)).tocsr()
    indptr = csr.indptr.astype(np.int64, copy=False)
    indices = csr.indices.astype(np.int64, copy=False)
    return indptr, indices


#: Public names of the parsing helpers, for the other modules of :mod:`dpmo.graphs`.
csr_from_pairs = _csr_from_pairs
unique_sorted = _unique_sorted
