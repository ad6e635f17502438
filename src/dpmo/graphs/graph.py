"""The :class:`Graph` type of DP-MOTkIN: a simple undirected graph with original ids and a cache.

A :class:`Graph` is a CSR adjacency structure (built by :mod:`dpmo.graphs.csr`: self-loops dropped,
duplicate and reverse edges merged, direction ignored) over the nodes ``0 .. n-1``, with their original ids
kept in :attr:`Graph.ids`, a flag saying whether its node set was declared public, and a cache of the
utilities (kernels in :mod:`dpmo.graphs.centrality`), objectives and scores computed on it. Build one with
:func:`dpmo.graphs.load_graph` (:mod:`dpmo.graphs.io`), which handles every input form and the public node
set; see ``docs/public-inputs.md``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp

from .centrality import check_convention, csr_degree, csr_ego_density, csr_triangles
from .csr import as_edge_array, bounded_csr, check_simple_csr, csr_edges, csr_from_pairs, relabel
from .edgelist import read_edge_list
from .nodes import (
    GRAPH_OUTSIDE,
    as_node_ids,
    check_int64,
    endpoint_positions,
    is_observed,
    networkx_labels,
    not_in,
)

__all__ = ["Graph"]


def check_ids(ids: np.ndarray) -> None:
    """Refuse ids that repeat, or (unless Python objects) are not strictly increasing: :meth:`Graph.index`
    looks integer and text ids up by bisection. O(n) (a dictionary's worth for object ids)."""
    if ids.dtype == object:
        try:
            distinct = len(set(ids.tolist())) == ids.size
        except TypeError:
            raise ValueError("ids must be hashable node labels") from None
        if not distinct:
            raise ValueError("ids must be distinct (a node id appears twice; which one is not shown)")
    elif ids.size > 1 and not np.all(ids[1:] > ids[:-1]):
        raise ValueError(
            "ids must be distinct and sorted increasingly (node i has the i-th smallest id); sort them and "
            "permute indptr and indices accordingly, or build the graph with load_graph"
        )


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
        ``indices[indptr[i]:indptr[i + 1]]``, sorted increasingly. ``indptr`` is int64; ``indices`` int32
        while ``n < 2^31`` (int64 beyond: :func:`dpmo.graphs.csr.index_dtype`), half the memory.

    Notes
    -----
    Utilities (degree, triangles, ego density), objectives, Pareto scores and the scores each private
    method selects from are computed on first use and cached on the object: load a graph once, then call
    :func:`dpmo.graphs.top_k` on it many times. The cache holds deterministic functions of the graph only
    (never random draws). Memory O(n + #edges) plus O(n) per cached vector.

    Pickling keeps the graph and drops the cache (it is rebuilt on first use), so a graph can be sent to
    worker processes. Unpickling checks the arrays' shapes and bounds (O(n + E) vectorised, about 1 ms per
    10^6 edges) but not the symmetry the constructor checks (a compiled pass with random access, about
    70 ms per 10^6 edges): a pickle is trusted input (unpickling runs code), written by :meth:`__reduce__`
    from a checked graph.

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
        """Check and freeze a CSR structure and its ids (``ValueError`` for anything else).

        ``indptr``/``indices`` must be the CSR structure of a simple undirected graph over ``len(ids)``
        nodes, as :func:`dpmo.graphs.csr.csr_from_pairs` builds it (symmetric, rows strictly increasing, no
        self-loop: :func:`dpmo.graphs.csr.check_simple_csr`); ``ids`` distinct, and strictly increasing
        unless they are Python objects (labels that need not be comparable). O(n + E) time (one compiled
        pass over the structure, one comparison of the ids), O(n) memory; unpickling checks bounds only.
        """
        ids = _ids_1d(ids)
        indptr, indices = check_simple_csr(indptr, indices, ids.shape[0])
        check_ids(ids)
        self._set(indptr, indices, ids, public)

    def _set(self, indptr, indices, ids, public) -> None:
        for arr in (indptr, indices, ids):
            arr.setflags(write=False)
        self._indptr = indptr
        self._indices = indices
        self._ids = ids
        self._cache: dict[Any, Any] = {}
        self._id_lookup = None
        self._public = bool(public)

    @classmethod
    def _trusted(cls, indptr: np.ndarray, indices: np.ndarray, ids: np.ndarray, public: bool) -> Graph:
        """A graph on a structure built by :func:`dpmo.graphs.csr.csr_from_pairs` (simple by construction)
        and sorted distinct ids: the internal path, without the constructor's O(n + E) checks."""
        graph = object.__new__(cls)
        graph._set(indptr, indices, ids, public)
        return graph

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
            endpoint (an endpoint outside it raises ``ValueError``, never naming it); nodes without edges are
            isolated nodes. ``None`` or ``"observed"``: the endpoints that appear in ``edges``, which is not
            a public node set (:attr:`public_nodes` is then False and the private functions refuse the
            graph).

        Notes
        -----
        O(n + E) time for the CSR structure (:func:`dpmo.graphs.csr.csr_from_pairs`: a counting sort by
        row) after mapping the ids to indices (O(E) for ``nodes=n``, O(E log n) for other ids, O(E + id
        range) for the observed ids when they are dense); memory: the graph and, when the ids are not
        ``0 .. n-1``, one ``(E, 2)`` array of indices.
        """
        edges = as_edge_array(edges, "edges")
        public = not is_observed(nodes)
        if not public:
            ids, inv = relabel(edges)
        else:
            ids = as_node_ids(nodes)
            inv = endpoint_positions(ids, edges)
        if ids.size == 0:
            raise ValueError("the graph has no nodes (pass nodes= to give the public node set)")
        indptr, indices = csr_from_pairs(inv[:, 0], inv[:, 1], ids.size)
        return cls._trusted(indptr, indices, ids, public)

    @classmethod
    def from_scipy(cls, matrix, *, nodes=None) -> Graph:
        """Graph from a square scipy sparse matrix or array; node ``i`` gets original id ``i``.

        Any non-zero entry ``(i, j)`` or ``(j, i)`` with ``i != j`` is an edge (weights and direction are
        ignored); repeated entries of a COO matrix are summed first, as scipy reads them (two that cancel
        are no edge). ``nodes``: the public node count ``n`` (it must equal the matrix's size; the ids are
        ``0 .. n-1``), or None / ``"observed"`` for a graph whose node set is not declared public.
        O(nnz log nnz) time, O(n + nnz) memory.
        """
        if not sp.issparse(matrix):
            raise TypeError(f"matrix must be a scipy sparse matrix or array, got {type(matrix).__name__}")
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError("an adjacency matrix must be square (its shape is not shown: it counts nodes)")
        n = matrix.shape[0]
        public = not is_observed(nodes)
        if public:
            ids = as_node_ids(nodes)
            if ids.size != n or (n and (ids[0] != 0 or ids[-1] != n - 1)):
                raise ValueError(
                    f"nodes must be the matrix's size n (the ids 0..n-1) for a scipy matrix; the {ids.size} "
                    "node ids given are not (the matrix's size is not shown: it may count private nodes)"
                )
        coo = sp.coo_array(matrix, copy=True)  # a copy: summing the duplicates must not touch the caller's
        coo.sum_duplicates()  # repeated entries are one entry, their sum (what the matrix holds)
        keep = coo.data != 0
        edges = np.column_stack([coo.row[keep], coo.col[keep]]).astype(np.int64, copy=False)
        if n == 0:
            raise ValueError("the graph has no nodes")
        indptr, indices = csr_from_pairs(edges[:, 0], edges[:, 1], n)
        return cls._trusted(indptr, indices, np.arange(n, dtype=np.int64), public)

    @classmethod
    def from_networkx(cls, graph, *, nodes=None) -> Graph:
        """Graph from a networkx graph (any of Graph, DiGraph, MultiGraph, MultiDiGraph).

        Edges are symmetrised and merged. ``nodes``: the public node set, as labels (every node of
        ``graph`` must be among them; the others are isolated nodes) or an int ``n`` (the labels must be
        integers in ``0 .. n-1``, or ``graph`` must have exactly ``n`` nodes). None / ``"observed"``: the
        nodes of ``graph``, not declared public. The original ids are the labels, sorted when they are
        mutually comparable, in the given order otherwise. O(n log n + E) time (sorting the labels, a
        dictionary of them); for an int ``nodes`` and integer labels, O(n) numpy time and memory for the
        ids ``0 .. n-1`` plus O(graph's nodes + E) Python time, as for an edge array.
        """
        try:
            node_list = list(graph.nodes())
            edge_list = list(graph.edges())
        except AttributeError as exc:
            raise TypeError(f"expected a networkx graph, got {type(graph).__name__}") from exc
        public = not is_observed(nodes)
        if public:
            node_list = networkx_labels(nodes, node_list)
            if isinstance(
                node_list, np.ndarray
            ):  # nodes=n, integer labels: the ids 0..n-1, their own positions
                pairs = np.fromiter(
                    (x for e in edge_list for x in e[:2]), dtype=np.int64, count=2 * len(edge_list)
                )
                indptr, indices = csr_from_pairs(pairs[0::2], pairs[1::2], node_list.size)
                return cls._trusted(indptr, indices, node_list, public)
        if not node_list:
            raise ValueError("the graph has no nodes")
        try:
            node_list = sorted(node_list)
        except TypeError:
            pass
        if all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool) for v in node_list):
            check_int64(node_list)  # never a raw OverflowError (and no label named: they may be private)
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
        indptr, indices = csr_from_pairs(pairs[:, 0], pairs[:, 1], len(node_list))
        return cls._trusted(indptr, indices, ids, public)

    @classmethod
    def read(
        cls, path, *, nodes=None, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
    ) -> Graph:
        """Graph from an edge-list file; see :func:`read_edge_list` for the format and
        :meth:`from_edges` for ``nodes``."""
        return cls.from_edges(read_edge_list(path, delimiter=delimiter, header=header, ids=ids), nodes=nodes)

    def on_nodes(self, nodes) -> Graph:
        """This graph on the public node set ``nodes`` (ids, or an int ``n`` for the ids ``0 .. n-1``).

        Every node of the graph must be in ``nodes`` (``ValueError`` otherwise, never naming the node);
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
            same = object.__new__(Graph)  # the same checked arrays: no second O(E) check
            same._indptr, same._indices, same._ids = self._indptr, self._indices, self._ids
            same._cache = self._cache  # same graph: share the cached utilities and scores
            same._id_lookup, same._public = None, True
            return same
        if not_in(ids, self._ids).any():
            raise ValueError(GRAPH_OUTSIDE.format(nodes="the public node set"))
        return Graph.from_edges(self._ids[self.edges()], nodes=ids)

    # -- pickling ------------------------------------------------------------------------------------------
    def __reduce__(self):
        return (
            _unpickle,
            (np.array(self._indptr), np.array(self._indices), np.array(self._ids), self._public),
        )

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
        """Public facts only: the declared node count (the edges, and nodes read off them, are private)."""
        if not self._public:
            return "Graph(public_nodes=False)"
        return f"Graph(n_nodes={self.n_nodes}, public_nodes=True)"

    @property
    def adjacency(self) -> sp.csr_array:
        """Symmetric 0/1 adjacency matrix as a new ``scipy.sparse.csr_array`` of int8 (O(n + E))."""
        data = np.ones(self._indices.shape[0], dtype=np.int8)
        return sp.csr_array((data, self._indices.copy(), self._indptr.copy()), shape=(self.n_nodes,) * 2)

    def edges(self) -> np.ndarray:
        """The edges as an (E, 2) array of internal indices with ``u < v``, sorted. O(n + E)."""
        return csr_edges(self._indptr, self._indices)

    def index(self, ids) -> np.ndarray:
        """Internal indices of the nodes with original ids ``ids`` (array_like).

        For a graph with object labels (a networkx graph's, e.g. tuples), ``ids`` is one label when it is a
        label of the graph, else a sequence of labels.

        Raises
        ------
        KeyError
            If an id is not a node of the graph.
        TypeError
            If ``ids`` is not an id or a 1-D sequence of ids (e.g. an unhashable label).

        Notes
        -----
        O(m log n) for sortable integer ids, O(m) after an O(n) dictionary otherwise.
        """
        if self._ids.dtype == object:
            return self._index_labels(ids)
        try:
            arr = np.asarray(ids)
        except ValueError:  # ragged nesting
            arr = None
        if arr is None or arr.ndim > 1:
            raise TypeError("ids must be one node id or a 1-D sequence of node ids")
        scalar = arr.ndim == 0
        arr = np.atleast_1d(arr)
        if arr.dtype != object and np.issubdtype(arr.dtype, np.integer):
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
            except TypeError:
                raise TypeError("ids must be one node id or a 1-D sequence of node ids") from None
        return out[0] if scalar else out

    def _index_labels(self, ids):
        """:meth:`index` on object labels (a networkx graph's): ``ids`` is one label when it is a label of
        the graph (a tuple label too), else a sequence of labels; never converted by numpy, which would
        turn tuple labels into rows and mixed labels into text."""
        if self._id_lookup is None:
            self._id_lookup = {v: i for i, v in enumerate(self._ids.tolist())}
        lookup = self._id_lookup
        try:
            if ids in lookup:
                return np.intp(lookup[ids])
        except TypeError:  # unhashable: a sequence of labels
            pass
        if isinstance(ids, np.ndarray):
            if ids.ndim > 1:
                raise TypeError("ids must be one node label or a 1-D sequence of node labels")
            items = [ids.item()] if ids.ndim == 0 else ids.tolist()
        elif isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise KeyError(f"node id {ids!r} is not in the graph")
        else:
            items = list(ids)
        out = np.empty(len(items), dtype=np.intp)
        for i, v in enumerate(items):
            try:
                out[i] = lookup[v]
            except KeyError:
                raise KeyError(f"node id {v!r} is not in the graph") from None
            except TypeError:
                raise TypeError(
                    f"ids must be node labels of the graph (hashable), got an unhashable {type(v).__name__}"
                ) from None
        return out[0] if isinstance(ids, np.ndarray) and ids.ndim == 0 else out

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

    # -- utilities (kernels in dpmo.graphs.centrality, cached here) --- --------------------------------------
    @property
    def degree(self) -> np.ndarray:
        """Degree of every node, int64, shape (n,), read-only (O(n), cached)."""
        return self.cached("degree", lambda: csr_degree(self.indptr))

    @property
    def triangles(self) -> np.ndarray:
        """Number of edges among the neighbours of every node, T(v), int64, shape (n,) (cached)."""
        return self.cached("triangles", lambda: csr_triangles(self.indptr, self.indices))

    def ego_density(self, *, low_degree: float = 0.0, formula: str = "paper") -> np.ndarray:
        """Ego density of every node (cached); see :func:`dpmo.graphs.ego_density`."""
        low, formula = check_convention(low_degree, formula)
        key = ("ego_density", low, formula)
        return self.cached(key, lambda: csr_ego_density(self.indptr, self.triangles, low, formula))

    def points(self, ids=None, *, low_degree: float = 0.0, formula: str = "paper") -> np.ndarray:
        """Objective vectors ``[degree, ego density]`` of the nodes ``ids`` (original ids; all when None).

        Returns a new float64 array of shape (m, 2), the input of :func:`dpmo.metrics.coverage`.
        """
        pts = np.column_stack(
            [self.degree.astype(np.float64), self.ego_density(low_degree=low_degree, formula=formula)]
        )
        return pts if ids is None else pts[self.index(ids)]


def _ids_1d(ids) -> np.ndarray:
    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise ValueError("ids must be a 1-D array")
    return ids


def _unpickle(indptr, indices, ids, public) -> Graph:
    """The graph :meth:`Graph.__reduce__` pickled: bounds checked, symmetry trusted (see :class:`Graph`)."""
    ids = _ids_1d(ids)
    return Graph._trusted(*bounded_csr(indptr, indices, ids.shape[0]), ids, public)
