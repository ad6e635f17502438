"""A seeded synthetic collaboration graph with a heavy-tailed degree distribution (for scale tests).

The SNAP DBLP co-authorship network (317,080 nodes, 1,049,866 edges) is too large to ship; this generator
builds a graph of the same size and of a similar kind: a union of small cliques ("papers") whose members
("authors") are drawn with Pareto-distributed activity weights, so degrees are heavy-tailed and many
neighbourhoods are dense (high ego density), as in co-authorship data. It is not a model of DBLP; it exists
to measure speed and memory at DBLP's size.
"""

from __future__ import annotations

import math
import sys

import numba
import numpy as np

from .._validation import check_int, check_random_state, check_real
from .csr import csr_from_pairs, index_dtype
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
        Mean clique size (sizes are ``2 + Geometric``), finite, > 2.
    max_team : int, default 25
        Largest clique size, >= 2. A team is drawn from the nodes, so one larger than the node set is
        meaningless: the sizes are capped at ``min(max_team, n_nodes)`` (a ``max_team`` above ``n_nodes``
        acts as ``n_nodes``).

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
    n = int(n_nodes)
    indptr, indices = csr_from_pairs(edges[:, 0], edges[:, 1], n)
    del edges
    return Graph._trusted(indptr, indices, np.arange(n, dtype=np.int64), True)  # nodes 0..n_nodes-1, declared


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
    graph: an ``(n_edges, 2)`` integer array (int32 while ``n_nodes < 2^31``, else int64), ``u < v``,
    sorted.

    For writing a large synthetic graph to disk (``benchmarks/bench_spark.py`` writes it as Parquet for
    :mod:`dpmo.graphs.spark`) without holding its CSR structure. O(n_nodes + n_edges log n_edges) time,
    O(n_nodes + n_edges) memory (the pair codes, decoded in place), for graphs of a few edges per node as
    the model intends. Near-complete requests cost a coupon collector's draws of the rarest pairs: 3.7 s
    for 1,000 nodes and all 499,500 pairs.

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
    exponent, mean_team = check_real(exponent, "exponent"), check_real(mean_team, "mean_team")
    if not exponent > 2 or not 2 < mean_team < math.inf or max_team < 2:
        raise ValueError("need exponent > 2, a finite mean_team > 2 and max_team >= 2")
    n = int(n_nodes)
    top = min(int(max_team), n)  # the largest team: no team has more members than there are nodes
    target = int(n_edges)
    per_paper = mean_team * (mean_team - 1) / 2  # pairs per paper, about
    paper_pairs = min(per_paper, top * (top - 1) / 2)  # ... at most those of the largest team
    batch_pairs = max(4 * target, _BATCH_PAIRS)  # the pairs a first batch may hold
    if paper_pairs > batch_pairs:
        raise ValueError(
            f"mean_team and max_team ask for teams of about {paper_pairs:.3g} pairs, more than "
            f"max(4 n_edges, {_BATCH_PAIRS}) = {batch_pairs}: lower mean_team or max_team"
        )
    gen = check_random_state(rng)
    cdf = np.cumsum((1.0 - gen.random(n)) ** (-1.0 / (exponent - 1.0)))  # activity weights, cumulated
    cdf /= cdf[-1]
    table = np.empty(n + 1, dtype=np.int64)
    _bucket_table(cdf, table)
    p_geo = 1.0 / (mean_team - 1.0)

    codes = np.empty(0, dtype=np.int64)
    # at least 1,024 papers a batch, unless their pairs would pass batch_pairs (large teams)
    least = min(1024, max(1, int(batch_pairs / paper_pairs)))
    drawn = 0  # papers drawn so far
    while codes.size < target:
        missing = target - codes.size
        # at least as many papers as so far (up to 4 n_edges pairs' worth): a near-complete graph's last
        # pairs are rare, and a batch of 1,024 papers per sort of every code took 81 s on 1,000 nodes
        n_papers = max(least, int(1.2 * missing / per_paper), min(drawn, int(4 * target / per_paper)))
        drawn += n_papers
        # 1 + min(g, top - 1), not min(1 + g, top): numpy clips a huge geometric draw to 2^63 - 1
        counts = np.bincount(np.minimum(gen.geometric(p_geo, size=n_papers), top - 1) + 1)
        teams = np.flatnonzero(counts)  # the team sizes drawn, increasing (the order of the draws)
        pairs = counts[teams] * (teams * (teams - 1) // 2)
        buf = np.empty(codes.size + int(pairs.sum()), dtype=np.int64)
        buf[: codes.size] = codes
        end = codes.size
        del codes
        for s, count in zip(teams.tolist(), counts[teams].tolist(), strict=True):
            iu, ju = np.triu_indices(s, k=1)
            step = max(1, _CHUNK // s)
            for first in range(0, count, step):  # the same uniform draws as one (count, s) draw, in chunks
                u = gen.random((min(step, count - first), s))
                end = _team_codes(u, cdf, table, iu, ju, n, buf, end)
        buf[:end].sort()
        buf.resize(_merge_sorted(buf, end), refcheck=False)  # in place: no other reference to buf
        codes = buf
    if codes.size > target:
        chosen = np.zeros(codes.size, dtype=np.bool_)
        chosen[gen.permutation(codes.size)[:target]] = True
        codes.resize(_compress(codes, chosen), refcheck=False)  # sorted codes stay sorted
        del chosen
    del cdf, table
    return _decode(codes, n)  # in place when n < 2^31: the two int32 ids of a pair over its code


_CHUNK = 1 << 20  # uniform draws per chunk (8 MB)
_BATCH_PAIRS = 1 << 22  # pairs (32 MB of codes) a batch may hold whatever n_edges


@numba.njit(cache=True, nogil=True)
def _bucket_table(cdf, table):  # pragma: no cover - compiled
    """``table[k] = #{i : cdf[i] <= k / B}`` for ``k = 0 .. B`` (``B = len(cdf)`` buckets of [0, 1))."""
    n = cdf.shape[0]
    i = 0
    for k in range(n + 1):
        q = k / n
        while i < n and cdf[i] <= q:
            i += 1
        table[k] = i


@numba.njit(cache=True, nogil=True)
def _member(cdf, table, x):  # pragma: no cover - compiled
    """``min(searchsorted(cdf, x, side="right"), n - 1)``, exactly, searching one window of the table.

    With ``k = floor(x B)`` (rounded), ``x`` lies above ``k - 1`` and below ``k + 2`` bucket bounds
    whatever the rounding of ``x B`` and ``k / B``, so the count of ``cdf <= x`` lies between
    ``table[k - 1]`` and ``table[k + 2]``; a binary search of that window (a few entries, since every
    weight is at least 1) finishes it."""
    n = cdf.shape[0]
    k = min(int(x * n), n)
    lo = table[k - 1] if k >= 1 else 0
    hi = table[k + 2] if k + 2 <= n else n
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return min(lo, n - 1)


@numba.njit(cache=True, nogil=True)
def _team_codes(u, cdf, table, iu, ju, n, out, end):  # pragma: no cover - compiled
    """The members of every team (row of uniforms ``u``) by inverse CDF, and the code ``a n + b`` (a < b)
    of every pair of distinct members, appended to ``out`` from ``end``; returns the new end."""
    s = u.shape[1]
    members = np.empty(s, np.int64)
    for p in range(u.shape[0]):
        for j in range(s):
            members[j] = _member(cdf, table, u[p, j])
        for t in range(iu.shape[0]):
            a = members[iu[t]]
            b = members[ju[t]]
            if a != b:
                out[end] = min(a, b) * n + max(a, b)
                end += 1
    return end


@numba.njit(cache=True, nogil=True)
def _merge_sorted(x, end):  # pragma: no cover - compiled
    """Merge the repeats of the sorted ``x[:end]`` in place; returns the number of distinct values."""
    if end == 0:
        return 0
    k = 1
    for i in range(1, end):
        if x[i] != x[k - 1]:
            x[k] = x[i]
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _compress(x, keep):  # pragma: no cover - compiled
    """Move ``x[keep]`` to the front of ``x`` (in order); returns its length."""
    k = 0
    for i in range(x.shape[0]):
        if keep[i]:
            x[k] = x[i]
            k += 1
    return k


def _decode(codes: np.ndarray, n: int) -> np.ndarray:
    """The pairs ``(a, b)`` of the codes ``a n + b`` as an ``(E, 2)`` array: int32 written over ``codes``
    itself when ``n < 2^31`` (each code's 8 bytes become its two ids; ``codes`` is spent), else int64."""
    if index_dtype(n) is np.int64:
        out = np.empty((codes.shape[0], 2), np.int64)
        _decode_into(codes, n, out)
        return out
    out = codes.view(np.int32).reshape(-1, 2)
    _decode_over(out, n, 0 if sys.byteorder == "little" else 1)
    return out


@numba.njit(cache=True, nogil=True)
def _decode_into(codes, n, out):  # pragma: no cover - compiled
    for i in range(codes.shape[0]):
        a = codes[i] // n
        out[i, 0] = a
        out[i, 1] = codes[i] - a * n


@numba.njit(cache=True, nogil=True)
def _decode_over(pairs, n, low):  # pragma: no cover - compiled
    """Row ``i`` of ``pairs`` (int32) holds the int64 code ``a n + b`` (its low half at column ``low``);
    replace it by ``(a, b)``, reading both halves before writing."""
    for i in range(pairs.shape[0]):
        code = (np.int64(pairs[i, 1 - low]) << 32) | (np.int64(pairs[i, low]) & 0xFFFFFFFF)
        a = code // n
        pairs[i, 0] = a
        pairs[i, 1] = code - a * n
