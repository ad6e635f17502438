"""A seeded synthetic collaboration graph with a heavy-tailed degree distribution (for scale tests).

The SNAP DBLP co-authorship network (317,080 nodes, 1,049,866 edges) is too large to ship; this generator
builds a graph of the same size and of a similar kind: a union of small cliques ("papers") whose members
("authors") are drawn with Pareto-distributed activity weights, so degrees are heavy-tailed and many
neighbourhoods are dense (high ego density), as in co-authorship data. It is not a model of DBLP; it exists
to measure speed and memory at DBLP's size.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_random_state
from .csr import csr_from_pairs, unique_sorted
from .graph import Graph

__all__ = ["random_collaboration_graph", "random_collaboration_edges"]


def random_collaboration_graph(
    n_nodes: int = 317_080,
    n_edges: int = 1_049_866,
    *,
    rng=0,
    exponent: float = 2.5,
    mean_team: float = 3.0,
    max_team: int = 25,
) -> Graph:
    """Union of random cliques with heavy-tailed membership, with exactly ``n_edges`` edges.

    Parameters
    ----------
    n_nodes, n_edges : int
        Size of the graph (defaults: DBLP's). Nodes are ``0 .. n_nodes - 1``; some may be isolated.
    rng : None, int or numpy.random.Generator, default 0
        Seed (SPEC 7): the same seed gives the same graph.
    exponent : float, default 2.5
        Tail exponent of the activity weights (``P(w > x) ~ x^(1 - exponent)``), > 2.
    mean_team : float, default 3.0
        Mean clique size (sizes are ``2 + Geometric``), > 2.
    max_team : int, default 25
        Largest clique size.

    Returns
    -------
    Graph

    Notes
    -----
    Papers are drawn in batches until the union of their cliques has at least ``n_edges`` distinct edges;
    a uniformly random subset of exactly ``n_edges`` of them is kept. O(n_nodes + n_edges log n_edges)
    time, O(n_nodes + n_edges) memory.

    Examples
    --------
    >>> from dpmo import graphs
    >>> a = graphs.random_collaboration_graph(200, 500, rng=3)
    >>> a.n_nodes, a.n_edges  # exactly the requested size
    (200, 500)
    >>> b = graphs.random_collaboration_graph(200, 500, rng=3)
    >>> bool((a.indices == b.indices).all())  # the same seed, the same graph
    True
    """
    edges = random_collaboration_edges(
        n_nodes, n_edges, rng=rng, exponent=exponent, mean_team=mean_team, max_team=max_team
    )
    indptr, indices = csr_from_pairs(edges[:, 0], edges[:, 1], int(n_nodes))
    n = int(n_nodes)
    return Graph(indptr, indices, np.arange(n, dtype=np.int64), public=True)  # nodes 0..n_nodes-1, declared


def random_collaboration_edges(
    n_nodes: int = 317_080,
    n_edges: int = 1_049_866,
    *,
    rng=0,
    exponent: float = 2.5,
    mean_team: float = 3.0,
    max_team: int = 25,
) -> np.ndarray:
    """The edges of :func:`random_collaboration_graph` (same arguments, same seed, same edges), without the
    graph: an ``(n_edges, 2)`` int64 array, ``u < v``, sorted.

    For writing a large synthetic graph to disk (``benchmarks/bench_spark.py`` writes it as Parquet for
    :mod:`dpmo.graphs.spark`) without holding its CSR structure. O(n_nodes + n_edges log n_edges) time,
    O(n_nodes + n_edges) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo import graphs
    >>> e = graphs.random_collaboration_edges(200, 500, rng=3)
    >>> g = graphs.random_collaboration_graph(200, 500, rng=3)
    >>> e.shape, bool(np.array_equal(e, g.edges()))
    ((500, 2), True)
    """
    for name, value in (("n_nodes", n_nodes), ("n_edges", n_edges), ("max_team", max_team)):
        check_int(value, name)
    if n_nodes < 2 or n_edges > n_nodes * (n_nodes - 1) // 2:
        raise ValueError("n_edges must be at most n_nodes * (n_nodes - 1) / 2 and n_nodes at least 2")
    if not exponent > 2 or not mean_team > 2 or max_team < 2:
        raise ValueError("need exponent > 2, mean_team > 2 and max_team >= 2")
    gen = check_random_state(rng)
    n = int(n_nodes)
    weights = (1.0 - gen.random(n)) ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    p_geo = 1.0 / (mean_team - 1.0)

    codes = np.empty(0, dtype=np.int64)
    target = int(n_edges)
    while codes.size < target:
        missing = target - codes.size
        n_papers = max(1024, int(1.2 * missing / (mean_team * (mean_team - 1) / 2)))
        sizes = np.minimum(1 + gen.geometric(p_geo, size=n_papers), max_team)
        batch = [codes]
        for s in np.unique(sizes):
            count = int(np.sum(sizes == s))
            members = np.searchsorted(cdf, gen.random((count, int(s))), side="right")
            members = np.minimum(members, n - 1)
            iu, ju = np.triu_indices(int(s), k=1)
            a = members[:, iu].ravel()
            b = members[:, ju].ravel()
            keep = a != b
            lo = np.minimum(a[keep], b[keep])
            hi = np.maximum(a[keep], b[keep])
            batch.append(lo * np.int64(n) + hi)
        codes = unique_sorted(np.concatenate(batch))
    if codes.size > target:
        codes = np.sort(codes[gen.permutation(codes.size)[:target]])
    out = np.empty((codes.size, 2), dtype=np.int64)
    np.floor_divide(codes, n, out=out[:, 0])
    out[:, 1] = codes - out[:, 0] * n
    return out
