"""The released graph: randomized response on every node pair, then the greedy hypervolume picks (issue 38).

Under edge differential privacy the graph itself can be released: each of the ``N = n (n - 1) / 2`` pairs of
the public node set is flipped (an edge removed, a non-edge added) independently with probability
``r = 1 - e^(-1/t)`` for an integer ``2 <= t <= e^epsilon`` (Warner's randomized response, one bit per
pair). Neighbouring graphs differ in one pair, whose released bit has probabilities ``1 - r`` and ``r``
either way round, so every released graph's probability changes by a factor at most
``(1 - r) / r = 1 / (e^(1/t) - 1) < t <= e^epsilon``: epsilon-edge-DP. The ``k`` picks are then the greedy
hypervolume picks of (degree, ego density) *on the released graph* (:func:`dpmo.graphs.exact.
greedy_hypervolume_picks`), post-processing that costs no budget. Proof and measurements:
``docs/pareto.md``, "The released graph at large epsilon".

The flips do not depend on the graph (the released graph is ``G`` xor a random set of pairs), so they are
sampled without reading it: exactly from the geometric gaps between flipped pairs
(:func:`dpmo.mechanisms.exact.laplace.sample_geometric`, ``P(gap >= j) = e^(-j/t)``), or with numpy's
binomial count and a uniform subset of that size (the same law). Only then are the objectives of the
flipped pairs' endpoints and common neighbours updated.

When it runs (:func:`uses_released_graph`, public quantities only): a node gets a false edge from each of
its ``n - 1`` pairs with probability ``r``, so ``lambda = (n - 1) r`` false edges on average; the released
graph is used when ``lambda <= MAX_FALSE_DEGREE`` (and ``t >= 2``). The constant was chosen on the
generated families of ``benchmarks/bench_front_robust.py`` (the released graph beat the staircase on every
generated case up to ``lambda`` about 7; 2 leaves a margin), not on GitHub or Enron.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._validation import check_random_state
from ..mechanisms.exact.bits import RandomBits
from ..mechanisms.exact.enclosures import decimal_enclosure
from ..mechanisms.exact.laplace import sample_geometric
from .centrality import csr_degree, csr_triangles, ego_density_from_counts
from .csr import csr_from_pairs
from .exact import greedy_hypervolume_picks
from .graph import Graph

__all__ = [
    "MAX_FALSE_DEGREE",
    "T_MAX",
    "flip_scale",
    "flip_probability",
    "false_degree",
    "uses_released_graph",
    "pair_count",
    "pair_endpoints",
    "sample_flips",
    "released_counts",
    "FEW_FLIPS",
    "released_graph_picks",
]

#: The released graph is used when a node's expected number of false edges, ``(n - 1) r``, is at most this.
MAX_FALSE_DEGREE = 2.0
#: Up to this many flipped pairs the objectives are updated pair by pair, beyond it recounted on the
#: released graph (:func:`released_counts`; the same counts, a speed choice).
FEW_FLIPS = 256
#: The largest ``t`` used: a flip probability of about ``2^-128`` (no flip among ``2^61`` pairs but with
#: probability below ``2^-66``).
T_MAX = 2**128
_LN2_UP = Fraction(6931471805599454, 10**16)  # > ln 2


def flip_scale(epsilon) -> int:
    """``t``: the largest integer at most ``e^epsilon`` (certified), capped at :data:`T_MAX`.

    The flip probability is ``r = 1 - e^(-1/t)``; any ``t <= e^epsilon`` with ``t >= 2`` is epsilon-DP. O(1)
    (one decimal ``exp`` at 256 bits).

    Examples
    --------
    >>> flip_scale(1.0), flip_scale(50.0), flip_scale(1000.0) == T_MAX  # e^50 = 5184705528587072464087.45...
    (2, 5184705528587072464087, True)
    """
    eps = Fraction(epsilon)
    if eps <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    if eps >= 128 * _LN2_UP:  # e^eps >= 2^128
        return T_MAX
    _, hi = decimal_enclosure(eps, 0, 256)  # hi >= e^-eps, so 1 / hi <= e^eps
    return max(1, min(T_MAX, math.floor(1 / hi)))


def flip_probability(epsilon) -> float:
    """``r = 1 - e^(-1/t)`` with ``t = flip_scale(epsilon)``, as a float (``-expm1(-1/t)``)."""
    return -math.expm1(-1.0 / flip_scale(epsilon))


def false_degree(n: int, epsilon) -> float:
    """``lambda = (n - 1) r``: the expected number of false edges at a node of the released graph."""
    return (int(n) - 1) * flip_probability(epsilon)


def uses_released_graph(n: int, epsilon) -> bool:
    """Whether the graph default releases the graph: ``n >= 2``, ``t >= 2`` and ``(n - 1) r <= 2``.

    Public: ``n`` and ``epsilon`` only. For example from epsilon 4.6 at ``n = 200``, 6.3 at ``10^3``,
    8.6 at ``10^4``, 9.9 at 37,700 (GitHub's size) and 10.9 at ``10^5``.

    Examples
    --------
    >>> uses_released_graph(10_000, 5.0), uses_released_graph(10_000, 10.0), uses_released_graph(10**6, 10.0)
    (False, True, False)
    """
    return int(n) >= 2 and flip_scale(epsilon) >= 2 and false_degree(n, epsilon) <= MAX_FALSE_DEGREE


def pair_count(n: int) -> int:
    """``N = n (n - 1) / 2``: the node pairs, numbered ``0 .. N - 1`` row by row (:func:`pair_endpoints`)."""
    return int(n) * (int(n) - 1) // 2


def pair_endpoints(index, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(u, v)``, ``u < v``, of pair numbers ``index``: number ``u (2n - u - 1) / 2 + v - u - 1``.

    Exact in int64 for ``n < 2^31`` (a float estimate of ``u``, then corrected). O(len(index)).

    Examples
    --------
    >>> [a.tolist() for a in pair_endpoints([0, 1, 2, 3, 4, 5], 4)]
    [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    """
    n = int(n)
    idx = np.asarray(index, dtype=np.int64)
    b = 2.0 * n - 1.0
    u = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * idx.astype(np.float64), 0.0))) / 2.0).astype(np.int64)
    u = np.clip(u, 0, max(n - 2, 0))

    def start(x):
        return x * (2 * n - x - 1) // 2

    for _ in range(3):  # the float estimate is off by at most one or two
        u = np.where(start(u) > idx, u - 1, u)
        u = np.where((u + 1 <= n - 2) & (start(u + 1) <= idx), u + 1, u)
    v = idx - start(u) + u + 1
    return u, v


def sample_flips(n: int, epsilon, rng=None, exact: bool = True) -> np.ndarray:
    """The flipped pairs' numbers, sorted: each of the ``N`` pairs independently with probability ``r``.

    Never reads a graph. ``exact``: the gaps between flips are exact geometric variables with
    ``P(gap >= j) = e^(-j/t)`` from ``rng`` as in :class:`dpmo.mechanisms.exact.bits.RandomBits` (None: the
    operating system's secure source); else ``K ~ Binomial(N, r)`` (numpy, ``r`` the float
    :func:`flip_probability`) and ``K`` distinct numbers drawn uniformly (``rng`` as in SPEC 7: None, an
    int or a numpy Generator).

    Cost: O(K) for ``K`` flips (expected ``N r``) plus one batch of the exact sampler; the work and the
    random words depend on ``n``, ``epsilon`` and the draws only.
    """
    n_pairs = pair_count(n)
    t = flip_scale(epsilon)
    if t < 2:
        raise ValueError(f"randomized response needs epsilon >= ln 2 (t >= 2), got {epsilon!r}")
    if n_pairs == 0:
        return np.zeros(0, dtype=np.int64)
    if not exact:
        gen = check_random_state(rng)
        k = int(gen.binomial(n_pairs, -math.expm1(-1.0 / t)))
        return np.sort(gen.choice(n_pairs, size=k, replace=False).astype(np.int64))
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    x = Fraction(1, t)
    batch = min(n_pairs, math.ceil(n_pairs * -math.expm1(-1.0 / t))) + 16  # public: n and epsilon only
    out: list[int] = []
    pos = -1
    while True:
        for gap in sample_geometric(batch, x, source).tolist():
            pos += 1 + int(gap)
            if pos >= n_pairs:
                return np.asarray(out, dtype=np.int64)
            out.append(pos)


def released_counts(g: Graph, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Degrees and ``T`` (edges among the neighbours) of ``g`` with the distinct pairs ``(u[i], v[i])``,
    ``u < v``, flipped.

    Up to :data:`FEW_FLIPS` pairs: toggling ``(a, b)`` changes the degrees of ``a`` and ``b`` by one and
    ``T`` of ``a``, ``b`` by the number of their common neighbours ``c``, and ``T`` of each ``c`` by one (the
    edge ``(a, b)`` is among ``c``'s neighbours exactly then), applied one pair at a time on the current
    neighbour sets of the endpoints: O(sum of the endpoints' degrees) plus copies of two O(n) arrays. More
    pairs: the released graph's CSR is built (the symmetric difference of the edge codes) and counted by the
    compiled kernels, O(n + E log E + E sqrt(E)). The choice depends on the number of flips only (noise,
    not data); both give the same counts.
    """
    if len(u) > FEW_FLIPS:
        return _rebuilt_counts(g, np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64))
    degree = g.degree.astype(np.int64, copy=True)
    tri = g.triangles.astype(np.int64, copy=True)
    indptr, indices = g.indptr, g.indices
    nbrs: dict[int, set] = {}

    def around(x: int) -> set:
        s = nbrs.get(x)
        if s is None:
            s = nbrs[x] = set(indices[indptr[x] : indptr[x + 1]].tolist())
        return s

    for a, b in zip(np.asarray(u).tolist(), np.asarray(v).tolist(), strict=True):
        na, nb = around(a), around(b)
        common = na & nb
        step = -1 if b in na else 1
        if step > 0:
            na.add(b)
            nb.add(a)
        else:
            na.discard(b)
            nb.discard(a)
        degree[a] += step
        degree[b] += step
        tri[a] += step * len(common)
        tri[b] += step * len(common)
        if common:
            tri[np.fromiter(common, dtype=np.int64, count=len(common))] += step
    return degree, tri


def _rebuilt_counts(g: Graph, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`released_counts` by building the released graph (many flips)."""
    n = g.n_nodes
    e = g.edges().astype(np.int64)
    codes = np.setxor1d(e[:, 0] * n + e[:, 1], u * n + v, assume_unique=True)
    indptr, indices = csr_from_pairs(codes // n, codes % n, n)
    return csr_degree(indptr).astype(np.int64), csr_triangles(indptr, indices).astype(np.int64)


def released_graph_picks(
    g: Graph,
    k: int,
    epsilon: float,
    *,
    rng=None,
    exact: bool = True,
    low: float = 0.0,
    formula: str = "paper",
) -> np.ndarray:
    """Indices of the ``k`` greedy hypervolume picks of the released graph (the caller records epsilon).

    ``epsilon`` is the float the budget returned for this release (never above the recorded one).
    """
    flips = sample_flips(g.n_nodes, epsilon, rng=rng, exact=exact)
    u, v = pair_endpoints(flips, g.n_nodes)
    degree, tri = released_counts(g, u, v)
    ed = ego_density_from_counts(degree, tri, low, formula)
    return greedy_hypervolume_picks(degree, ed, k)
