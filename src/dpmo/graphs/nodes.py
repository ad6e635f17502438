"""The public node set of a graph (edge differential privacy).

Two graphs are neighbours when they are on the same node set and differ in one edge. The node set is public
input, declared by the caller (``nodes=``: the ids, or an int ``n`` for the ids ``0 .. n-1``); it is never
read from the private edges, because the endpoints that appear in an edge list change when a leaf's only
edge is removed. The private graph functions take their graph through :func:`dpmo.graphs.io.public_graph`,
which refuses a graph without a declared node set with the one line :data:`NODES_REQUIRED`. See
``docs/public-inputs.md``.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "GRAPH_OUTSIDE",
    "INT64_IDS",
    "NODES_REQUIRED",
    "OUTSIDE",
    "OBSERVED",
    "as_node_ids",
    "check_int64",
    "endpoint_positions",
    "is_observed",
    "networkx_labels",
    "not_in",
]

#: The one-line refusal of every private graph entry point called without a public node set.
NODES_REQUIRED = (
    "nodes= is required: the node set is public input and is not read from the private edges (an edge to a "
    "leaf makes its node appear, so the node set would reveal that edge); pass the public node ids, or an "
    "int n for the ids 0..n-1"
)
#: The refusal of an edge whose endpoint is outside the declared node set (the endpoint is not named: an edge
#: is a private record). ``{size}``: the public node set's size, or nothing.
OUTSIDE = (
    "an edge names a node that is not in nodes (the declared public node set{size}); which edge and node are "
    "not shown: the edges are private. Fix the node set or remove the edges outside it"
)
#: The refusal of a graph object holding a node outside the declared node set (``{nodes}``: that set).
GRAPH_OUTSIDE = (
    "the graph holds a node that is not in nodes ({nodes}); which one is not shown: the graph is private. "
    "Declare every node of the graph, or remove the others from it"
)
#: The refusal of integer node ids outside the int64 range (no id is named: an id may come from the private
#: edges, and the declared ones need not be shown to fix the input).
INT64_IDS = (
    "node ids must be integers in the int64 range (-2^63 .. 2^63 - 1), or text ids (which id is not shown); "
    "map larger ids to smaller ones, or read them as text (ids='str', CLI --string-ids)"
)
#: What ``nodes=`` may be, for the refusal of anything else.
NODES_KINDS = "node ids (a 1-D sequence of distinct ids), an int n for the ids 0..n-1, or 'observed'"
#: ``nodes=OBSERVED`` takes the nodes of the input itself (not a public node set).
OBSERVED = "observed"


def is_observed(nodes) -> bool:
    return nodes is None or (isinstance(nodes, str) and nodes == OBSERVED)


def _is_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_kind(nodes) -> list | np.ndarray:
    """``nodes`` as a list (or the array itself), or a TypeError naming ``nodes`` and what it may be (a
    bool, a float, any other object that is not a sequence of ids)."""
    if isinstance(nodes, np.ndarray):
        return nodes
    if isinstance(nodes, (bool, np.bool_, bytes)) or not hasattr(nodes, "__iter__"):
        raise TypeError(f"nodes must be {NODES_KINDS}; got a {type(nodes).__name__}")
    return list(nodes)


def check_int64(ids) -> None:
    """Refuse (:data:`INT64_IDS`) integer ids of ``ids`` (an iterable) outside the int64 range."""
    if any(_is_int(v) and not -(2**63) <= int(v) < 2**63 for v in ids):
        raise ValueError(INT64_IDS)


def as_node_ids(nodes) -> np.ndarray:
    """The public node ids, sorted: from an int ``n`` (ids ``0 .. n-1``) or an array of distinct ids
    (integers in the int64 range, or text ids for edge lists read with ``ids="str"``)."""
    if isinstance(nodes, str):
        if nodes == "observed":  # allowed where a raw graph is read (load_graph), not for a Graph object
            raise TypeError(
                "nodes='observed' reads the node set off an edge list or graph given as input; "
                "here give the public node ids or an int n"
            )
        raise TypeError(f"nodes must be node ids, an int n or 'observed', got {nodes!r}")
    if _is_int(nodes):
        if nodes < 1:
            raise ValueError(f"nodes as a count must be at least 1, got {nodes}")
        return np.arange(int(nodes), dtype=np.int64)
    items = _check_kind(nodes)
    arr = np.asarray(items)
    if arr.ndim != 1 or arr.dtype == np.bool_:
        raise TypeError("nodes must be an int n (ids 0..n-1) or a 1-D array of node ids")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(INT64_IDS)
    if arr.dtype.kind in "fO" and isinstance(items, list):  # Python ints beyond int64 become floats/objects
        check_int64(items)
    if arr.dtype.kind != "U":
        if not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
            raise TypeError("nodes must be an int n (ids 0..n-1) or a 1-D array of integer (or text) ids")
        arr = arr.astype(np.int64, copy=False)
    ids, counts = np.unique(arr, return_counts=True)
    if ids.size != arr.size:
        raise ValueError(duplicate_message(ids[counts > 1][0].item()))
    if ids.size == 0:
        raise ValueError("nodes is empty: a graph needs at least one node")
    return ids


def duplicate_message(node) -> str:
    """The refusal of a node set that names ``node`` twice (the node set is public: it may be named)."""
    hint = (
        " (a name with spaces split in two? pass a delimiter that is not in the names, e.g. "
        "delimiter=',' / --delimiter ',')"
        if isinstance(node, str)
        else ""
    )
    return f"nodes must not contain duplicates: {node!r} appears more than once{hint}"


def not_in(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Boolean mask of the entries of ``values`` that are not in the sorted array ``ids``."""
    pos = np.minimum(np.searchsorted(ids, values), ids.size - 1)
    return ids[pos] != values


def endpoint_positions(ids: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Indices of the endpoints in the sorted public ids; ``ValueError`` (:data:`OUTSIDE`) for an endpoint
    outside them, never naming it."""
    if edges.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if (ids.dtype.kind == "U") != (edges.dtype.kind == "U"):
        kind = "text" if edges.dtype.kind == "U" else "integer"
        raise TypeError(f"the edges hold {kind} ids: nodes must list {kind} ids too")
    if ids.dtype.kind != "U" and ids[0] == 0 and ids[-1] == ids.size - 1:  # nodes = n: a range check
        if edges.min() >= 0 and edges.max() < ids.size:
            return edges.astype(np.int64, copy=False)  # no temporary of the edges' size
        bad = (edges < 0) | (edges >= ids.size)
        inv = edges
    else:
        inv = np.minimum(np.searchsorted(ids, edges), ids.size - 1)
        bad = ids[inv] != edges
    if np.any(bad):
        raise ValueError(OUTSIDE.format(size=f" of {ids.size} nodes"))
    return inv.astype(np.int64, copy=False)


def networkx_labels(nodes, labels: list) -> list | np.ndarray:
    """The public node labels for a networkx graph with labels ``labels`` (all must be among them).

    For an int ``nodes`` ``n`` and integer labels, ``np.arange(n)`` (int64; each id is its own position):
    O(n) numpy time and memory plus O(len(labels)) to check the labels, no Python object per id. Otherwise
    a list of the labels, O(n) Python objects.
    """
    if _is_int(nodes):
        n = int(nodes)
        if all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool) for v in labels):
            if any(not 0 <= v < n for v in labels):
                raise ValueError(GRAPH_OUTSIDE.format(nodes=f"ids 0..{n - 1}"))
            return np.arange(n, dtype=np.int64)
        if n != len(labels):
            raise ValueError(
                f"nodes={n} means the ids 0..{n - 1}, but the graph's node labels are not all integers and "
                f"they are not {n}; pass the public node labels (nodes=[...]) (how many the graph has is not "
                "shown: the graph is private)"
            )
        return list(labels)
    if isinstance(nodes, str):
        raise TypeError(f"nodes must be node labels, an int n or 'observed', got {nodes!r}")
    declared = list(_check_kind(nodes))
    try:
        distinct = len(set(declared)) == len(declared)
    except TypeError:
        raise TypeError(
            f"nodes must be {NODES_KINDS}: node labels must be hashable, as networkx's are (a list or other "
            "unhashable item was given)"
        ) from None
    if not distinct:
        seen: set = set()
        raise ValueError(duplicate_message(next(v for v in declared if v in seen or seen.add(v))))
    known = set(declared)
    if any(v not in known for v in labels):
        raise ValueError(GRAPH_OUTSIDE.format(nodes="the declared public node set"))
    return declared
