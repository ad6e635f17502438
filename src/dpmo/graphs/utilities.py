"""Node utilities of DP-MOTkIN: degree and egocentric density (the paper's section "Problem statement").

* ``degree(G, v) = |N(v)|``.
* ``egodensity(G, v) = 2 T(v) / (d (d - 1))`` with ``d = |N(v)|`` and ``T(v)`` the number of edges among the
  neighbours of ``v`` (so it is the local clustering coefficient). For ``d < 2`` the formula is 0/0; the
  value given to those nodes is the parameter ``low_degree`` (default 0, as networkx's clustering; the
  paper's published code uses 1 for degree-1 nodes, which ties every leaf at the top ego density).
* ``formula="published"`` reproduces the published code's ``T(v) / (d (d - 1))`` (no factor 2, so values of
  nodes with ``d >= 2`` lie in [0, 1/2]); ``formula="paper"`` (the default) is the paper's formula.

Both conventions keep ego density in [0, 1] (``low_degree`` must lie in [0, 1]), so its global sensitivity
under edge differential privacy stays 1.

This module holds the public functions, which accept any graph :func:`dpmo.graphs.load_graph` accepts
(with the input's own nodes: exact statistics, not releases); the kernels on CSR arrays and the
conventions (:data:`FORMULAS`, :func:`check_convention`) are in :mod:`dpmo.graphs.centrality`.
"""

from __future__ import annotations

import numpy as np

from .centrality import FORMULAS, check_convention, csr_degree, csr_ego_density, csr_triangles
from .graph import Graph
from .io import observed_graph

__all__ = ["degree", "triangles", "ego_density", "FORMULAS"]


def _as_graph(graph, **read) -> Graph:
    # exact statistics, not releases: a raw input keeps its own node set
    return observed_graph(graph, **read)


def degree(
    graph, *, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
) -> np.ndarray:
    """Degree of every node (int64, shape (n,), read-only). O(n).

    ``graph`` as in :func:`ego_density` (a path read with ``delimiter``, ``header`` and ``ids`` of
    :func:`dpmo.graphs.load_graph`).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> deg = graphs.degree(g)
    >>> deg.tolist() == [d for _, d in sorted(g.degree())]  # node i is the i-th smallest id
    True
    """
    g = _as_graph(graph, delimiter=delimiter, header=header, ids=ids)
    return csr_degree(g.indptr)


def triangles(
    graph, *, delimiter: str | None = None, header: bool | None = None, ids: str = "int"
) -> np.ndarray:
    """``T(v)``, the number of edges among the neighbours of ``v`` (= triangles through ``v``), per node.

    ``graph`` as in :func:`ego_density` (a path read with ``delimiter``, ``header`` and ``ids`` of
    :func:`dpmo.graphs.load_graph`).

    Returns
    -------
    numpy.ndarray of int64, shape (n,), read-only

    Notes
    -----
    Equivalent to the row sums of ``(A @ A).multiply(A) / 2`` without forming ``A @ A`` (which has
    ``sum_v d(v)^2`` entries, hundreds of millions on GitHub). The edges are oriented from lower to higher
    (degree, index) rank, so every out-list has at most ``sqrt(2 m)`` entries (m edges), and each triangle
    is found once from its lowest-ranked corner (Chiba and Nishizeki 1985; Latapy 2008). Time
    O(m sqrt(m)) worst case (tens of milliseconds on GitHub), memory O(n + m). The kernel is a
    sequential numba loop (compiled once and cached on disk).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> t = graphs.triangles(g)
    >>> t.tolist() == [nx.triangles(g)[v] for v in sorted(g)]  # checked against networkx
    True
    """
    g = _as_graph(graph, delimiter=delimiter, header=header, ids=ids)
    return csr_triangles(g.indptr, g.indices)


def ego_density(
    graph,
    *,
    low_degree: float = 0.0,
    formula: str = "paper",
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
) -> np.ndarray:
    """Egocentric density of every node (the paper's Equation "egodensity").

    Parameters
    ----------
    graph : Graph or anything :func:`dpmo.graphs.load_graph` accepts
    low_degree : float in [0, 1], default 0
        Value for nodes of degree 0 or 1, where the formula is 0/0. The paper does not say; 0 is the
        convention of networkx's clustering coefficient; the published code uses 1 for degree-1 nodes,
        which makes every leaf tie at the top ego density and changes which nodes are Pareto-optimal.
    formula : {"paper", "published"}, default "paper"
        ``"paper"``: ``2 T(v) / (d (d - 1))`` (in [0, 1]); ``"published"``: ``T(v) / (d (d - 1))``, the
        published code's (in [0, 1/2] for ``d >= 2``).
    delimiter, header, ids : optional
        For an edge-list path: as in :func:`dpmo.graphs.load_graph` (``ids="str"``: text node ids).

    Returns
    -------
    numpy.ndarray of float64, shape (n,), read-only

    Notes
    -----
    O(n) after :func:`triangles`. For a :class:`Graph` use ``graph.ego_density(...)``, which caches.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> ed = graphs.ego_density(g)
    >>> cc = nx.clustering(g)  # 2 T(v) / (d (d - 1)), 0 below degree 2: the "paper" formula
    >>> bool(all(abs(ed[i] - cc[v]) < 1e-12 for i, v in enumerate(sorted(g))))
    True
    """
    low, formula = check_convention(low_degree, formula)
    g = _as_graph(graph, delimiter=delimiter, header=header, ids=ids)
    return csr_ego_density(g.indptr, g.triangles, low, formula)
