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

This module holds the loading step: :func:`load_graph` (any supported input to a :class:`Graph`) and the
gates of the private and exact graph functions, :func:`public_graph` and :func:`observed_graph`. The
:class:`Graph` type is :mod:`dpmo.graphs.graph`, the edge-list parser :mod:`dpmo.graphs.edgelist`;
``Graph`` and ``read_edge_list`` are re-exported here.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from .edgelist import read_edge_list
from .graph import Graph
from .nodes import NODES_REQUIRED, OBSERVED, is_observed

__all__ = ["Graph", "load_graph", "read_edge_list", "public_graph", "observed_graph"]


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
        ``n``). Every endpoint must be in it: an edge naming another node raises ``ValueError``, never
        naming the edge or the node (the edges are private; the declared set is public, so this checks that
        the input is well formed: the graphs that differ from it in one edge are on the same node set).
        Nodes without edges are isolated nodes, candidates like any other. ``"observed"`` takes the nodes
        of the input itself: fine for exact statistics, but the private functions refuse such a graph (it
        is not a public node set).
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
        message names the file and the rule, never the line: it is a private edge), a badly shaped array,
        or an empty graph.

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


def public_graph(
    graph, nodes=None, what: str = "this function", *, delimiter=None, header=None, ids: str = "int"
) -> Graph:
    """``graph`` as a :class:`Graph` on a public node set, or a ``ValueError`` saying why it is refused.

    The gate of the private graph functions: ``graph`` is loaded with :func:`load_graph` (``nodes`` is then
    required) or, for a :class:`Graph`, put on ``nodes`` when given; a graph whose node set was not
    declared public is refused with :data:`NODES_REQUIRED`. ``delimiter``, ``header`` and ``ids`` are
    those of :func:`load_graph` for an edge-list path. O(1) for a public :class:`Graph`.
    """
    if not isinstance(graph, Graph) and is_observed(nodes):
        raise ValueError(f"{what}: {NODES_REQUIRED}")
    read = {"delimiter": delimiter, "header": header, "ids": ids}
    g = load_graph(graph, nodes=nodes, **read) if nodes is not None or isinstance(graph, Graph) else None
    if g is None or not g.public_nodes:
        raise ValueError(f"{what}: {NODES_REQUIRED}")
    return g


def observed_graph(graph, *, delimiter=None, header=None, ids: str = "int") -> Graph:
    """``graph`` as a :class:`Graph`, with the input's own nodes when it is not one already.

    For exact (non-private) statistics only: the node set of the result is not public. ``delimiter``,
    ``header`` and ``ids`` are those of :func:`load_graph` for an edge-list path.
    """
    if isinstance(graph, Graph):
        return graph
    return load_graph(graph, nodes=OBSERVED, delimiter=delimiter, header=header, ids=ids)
