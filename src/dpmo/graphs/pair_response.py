"""The released graph: randomized response on every node pair, then the greedy hypervolume picks (issue 38).

Under edge differential privacy the graph itself can be released: each of the ``N = n (n - 1) / 2`` pairs of
the public node set is flipped (an edge removed, a non-edge added) independently with probability
``r = 1 - e^-x``, ``x`` a rational at least ``ln(1 + e^-epsilon)`` (:func:`flip_rate`; ``r`` is then the
optimal ``1 / (1 + e^epsilon)`` of Warner's randomized response, rounded up). Neighbouring graphs differ in
one pair, whose released bit has probabilities ``1 - r`` and ``r`` either way round, so every released
graph's probability changes by a factor at most ``max((1 - r) / r, r / (1 - r)) <= e^epsilon``:
epsilon-edge-DP. The ``k`` picks are then the greedy hypervolume picks of (degree, ego density) *on the
released graph* (:func:`dpmo.graphs.exact.greedy_hypervolume_picks`), post-processing that costs no budget.
Proof and measurements: ``docs/pareto.md``, "The released graph at large epsilon".

The flips do not depend on the graph (the released graph is ``G`` xor a random set of pairs), so they are
sampled without reading it: exactly from the geometric gaps between flipped pairs
(:func:`dpmo.mechanisms.exact.laplace.sample_geometric`, ``P(gap >= j) = e^(-j x)``), or with numpy's
binomial count and a uniform subset of that size (the same law). Only then are the objectives of the
flipped pairs' endpoints and common neighbours updated.

When it runs (:func:`uses_released_graph`, public quantities only): a node gets a false edge from each of
its ``n - 1`` pairs with probability ``r``, so ``lambda = (n - 1) r`` false edges on average; the released
graph is used when ``lambda <= MAX_FALSE_DEGREE`` (8). The constant was chosen on generated families (the
robustness benchmark's, and held-out ones): the released graph's picks were ahead of the staircase's or
level on every generated case up to ``lambda`` about 10, and behind on some from 16-26; not on GitHub or
Enron.
"""

from __future__ import annotations

import decimal
import functools
import math
import numbers
from fractions import Fraction

import numpy as np

from .._validation import check_int, check_random_state, check_real
from ..mechanisms.exact.bits import RandomBits
from ..mechanisms.exact.enclosures import decimal_enclosure
from ..mechanisms.exact.laplace import sample_geometric
from .centrality import csr_degree, csr_triangles, ego_density_from_counts
from .csr import csr_from_pairs
from .exact import greedy_hypervolume_picks
from .graph import Graph

__all__ = [
    "MAX_FALSE_DEGREE",
    "MAX_FLIPS",
    "X_MIN",
    "MIN_EPSILON",
    "flip_rate",
    "flip_probability",
    "false_degree",
    "uses_released_graph",
    "pair_count",
    "pair_endpoints",
    "sample_flips",
    "released_counts",
    "released_statistics",
    "FEW_FLIPS",
    "flip_batch",
    "released_graph_picks",
]

#: The released graph is used when a node's expected number of false edges, ``(n - 1) r``, is at most this.
MAX_FALSE_DEGREE = 8.0
#: At most this many flips expected (``N r``): the released graph's extra edges bound its memory (about 8
#: million, from about 2 million nodes on the rule asks more epsilon than ``lambda <= 8`` does).
MAX_FLIPS = 2**23
#: Up to this many flipped pairs the objectives are updated pair by pair, beyond it recounted on the
#: released graph (:func:`released_counts`; the same counts, a speed choice).
FEW_FLIPS = 256
#: The smallest rate used, ``2^-128``: a flip probability of about ``2^-128`` (no flip among ``2^61`` pairs
#: but with probability below ``2^-66``), from epsilon ``128 ln 2`` (about 88.7) on.
X_MIN = Fraction(1, 2**128)
#: Below this epsilon the rate is not computed (its rounding, below ``2^-159``, must stay below epsilon).
MIN_EPSILON = Fraction(1, 10**40)
_LN2_UP = Fraction(6931471805599454, 10**16)  # > ln 2
_DIGITS = 160


def flip_rate(epsilon) -> Fraction:
    """``x``: the flip probability is ``r = 1 - e^-x``, with ``ln(1 + e^-epsilon) <= x`` (certified).

    Then ``r`` is at least the optimal randomized response's ``1 / (1 + e^epsilon)`` and
    ``(1 - r) / r = 1 / (e^x - 1) <= e^epsilon``; ``x`` exceeds ``ln(1 + e^-epsilon)`` by less than
    ``2^-158``, so ``r / (1 - r) = e^x - 1 <= e^epsilon`` too (``ln(1 + e^epsilon) - ln(1 + e^-epsilon) =
    epsilon``, above :data:`MIN_EPSILON`). Rounded up to a binary fraction of 160 significant bits;
    :data:`X_MIN` from epsilon ``128 ln 2``. O(1), cached.

    Examples
    --------
    >>> import math
    >>> round(float(flip_rate(1.0)), 12), round(flip_probability(1.0), 12), round(1 / (1 + math.e), 12)
    (0.313261687518, 0.26894142137, 0.26894142137)
    >>> flip_rate(100.0) == X_MIN
    True
    """
    eps = _exact_epsilon(epsilon)
    if not eps >= MIN_EPSILON:
        raise ValueError(f"epsilon must be at least 1e-40 for the released graph, got {epsilon!r}")
    return _rate(eps)


def _exact_epsilon(epsilon) -> Fraction:
    """``epsilon`` as the exact binary rational the sampler runs at (a float's own value, not its decimal
    ``repr`` as :func:`dpmo.epsilons.exact_epsilon` reads a budget's): checked by
    :func:`dpmo._validation.check_real` (a real number within the float range), and finite."""
    if not math.isfinite(check_real(epsilon, "epsilon")):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    return Fraction(epsilon) if isinstance(epsilon, numbers.Rational) else Fraction(float(epsilon))


@functools.lru_cache(maxsize=256)
def _rate(eps: Fraction) -> Fraction:
    if eps >= 128 * _LN2_UP:  # ln(1 + e^-eps) <= e^-eps <= 2^-128
        return X_MIN
    _, hi = decimal_enclosure(eps, 0, 600)  # hi >= e^-eps, within 2^-592
    kw = {"prec": _DIGITS, "Emin": -(10**9), "Emax": 10**9}
    up = decimal.Context(rounding=decimal.ROUND_CEILING, **kw)
    one_plus = up.add(
        decimal.Decimal(1), up.divide(decimal.Decimal(hi.numerator), decimal.Decimal(hi.denominator))
    )
    ctx = decimal.Context(**kw)  # ln is correctly rounded (half-even) whatever the rounding mode
    y = Fraction(ctx.next_plus(ctx.next_plus(ctx.ln(one_plus))))  # >= ln(1 + hi) >= ln(1 + e^-eps)
    shift = 160 - math.floor(math.log2(y))  # y in (0, ln 2]: a binary fraction of about 160 bits
    return Fraction(math.ceil(y * 2**shift), 2**shift)


def flip_probability(epsilon) -> float:
    """``r = 1 - e^-x`` with ``x = flip_rate(epsilon)``, as a float rounded up (``-expm1(-x)``)."""
    return -math.expm1(-float(flip_rate(epsilon))) * (1.0 + 2.0**-50)


def false_degree(n: int, epsilon) -> float:
    """``lambda = (n - 1) r``: the expected number of false edges at a node of the released graph."""
    return (int(n) - 1) * flip_probability(epsilon)


def uses_released_graph(n: int, epsilon) -> bool:
    """Whether the graph default releases the graph: ``n >= 2``, ``(n - 1) r <= MAX_FALSE_DEGREE`` (8) and
    ``N r <= MAX_FLIPS`` (memory).

    Public: ``n`` and ``epsilon`` only (``epsilon`` below :data:`MIN_EPSILON`: no). For example from
    epsilon 1.14 at ``n = 34``, 3.18 at 200, 4.82 at ``10^3``, 7.13 at ``10^4``, 8.46 at 37,700 (GitHub's
    size), 9.44 at ``10^5`` and 11.74 at ``10^6``. Callers evaluate it at the float the sampler will run at.

    Examples
    --------
    >>> uses_released_graph(10_000, 5.0), uses_released_graph(10_000, 8.0), uses_released_graph(10**6, 8.0)
    (False, True, False)
    """
    eps = _exact_epsilon(epsilon)
    return (
        check_int(n, "n") >= 2
        and eps >= MIN_EPSILON
        and false_degree(n, eps) <= MAX_FALSE_DEGREE
        and pair_count(n) * flip_probability(eps) <= MAX_FLIPS
    )


def pair_count(n: int) -> int:
    """``N = n (n - 1) / 2``: the node pairs, numbered ``0 .. N - 1`` row by row (:func:`pair_endpoints`)."""
    return int(n) * (int(n) - 1) // 2


def pair_endpoints(index, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(u, v)``, ``u < v``, of pair numbers ``index``: number ``u (2n - u - 1) / 2 + v - u - 1``.

    Exact for every ``n < 2^31``: a float estimate of the row ``u``, corrected until ``start(u) <= index <
    start(u + 1)`` holds in exact int64 arithmetic (near the last rows of a large ``n`` the estimate can be
    several rows off: ``(2n - 1)^2 - 8 index`` cancels). O(len(index)) times the corrections (a few).

    Examples
    --------
    >>> [a.tolist() for a in pair_endpoints([0, 1, 2, 3, 4, 5], 4)]
    [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    """
    n = int(n)
    idx = np.asarray(index, dtype=np.int64)
    if n < 2:
        return np.zeros(idx.shape, np.int64), np.zeros(idx.shape, np.int64)
    b = 2.0 * n - 1.0
    u = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * idx.astype(np.float64), 0.0))) / 2.0).astype(np.int64)
    u = np.clip(u, 0, n - 2)

    def start(x):  # the first pair number of row x; exact in int64 for n < 2^31
        return x * (2 * n - x - 1) // 2

    while True:  # converges: each pass moves every wrong row one step towards its row
        low = start(u) > idx
        high = (u < n - 2) & (start(np.minimum(u + 1, n - 2)) <= idx)
        if not (low.any() or high.any()):
            break
        u = u - low + high
    return u, idx - start(u) + u + 1


def sample_flips(n: int, epsilon, rng=None, exact: bool = True) -> np.ndarray:
    """The flipped pairs' numbers, sorted: each of the ``N`` pairs independently with probability ``r``.

    Never reads a graph. ``exact``: the gaps between flips are exact geometric variables with
    ``P(gap >= j) = e^(-j x)``, ``x = flip_rate(epsilon)``, from ``rng`` as in
    :class:`dpmo.mechanisms.exact.bits.RandomBits` (None: the operating system's secure source); else
    ``K ~ Binomial(N, r)`` (numpy, ``r`` the float :func:`flip_probability`) and ``K`` distinct numbers drawn
    uniformly (``rng`` as in SPEC 7: None, an int or a numpy Generator).

    Cost: the exact sampler draws :func:`flip_batch` gaps at once (about ``N r``), so its work and random
    words depend on ``n`` and epsilon only, except on an event of probability below ``2^-60``; the float
    path is O(K) for ``K`` flips.
    """
    n_pairs = pair_count(check_int(n, "n"))
    x = flip_rate(epsilon)
    r = flip_probability(epsilon)
    if n_pairs == 0:
        return np.zeros(0, dtype=np.int64)
    if not exact:
        gen = check_random_state(rng)
        k = int(gen.binomial(n_pairs, r))
        return np.sort(gen.choice(n_pairs, size=k, replace=False).astype(np.int64))
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    m = flip_batch(n, epsilon)  # public: n and epsilon only
    # chunks of c gaps, each capped at N: below 2^46 pairs a chunk's cumulative sum fits in int64
    c = min(m, 1 << 16)
    wide = n_pairs >= 1 << 46  # beyond: Python ints (n above about 1.2e7)
    out = []
    pos = -1
    while True:  # one pass but with probability below 2^-60 (more flips than m): the same law either way
        for size in [c] * (m // c) + ([m % c] if m % c else []):  # a fixed amount of work per pass
            gaps = np.minimum(sample_geometric(size, x, source), n_pairs)
            ends = pos + np.cumsum(gaps.astype(object if wide else np.int64) + 1)
            out.append(ends[ends < n_pairs].astype(np.int64))
            pos = min(int(ends[-1]), n_pairs)
        if pos >= n_pairs:
            return np.concatenate(out)


def flip_batch(n: int, epsilon) -> int:
    """``m``: how many gaps the exact sampler draws at once, ``ceil(mu + 12 sqrt(mu) + 60)`` for
    ``mu = N r`` flips expected: more than ``m - 1`` flips has probability below ``2^-60`` (a Poisson tail;
    the binomial count is smaller in convex order), so the sampler's work and words depend on ``n`` and
    epsilon only outside that event (``docs/core.md``, "Timing")."""
    mu = pair_count(n) * flip_probability(epsilon)
    return math.ceil(mu + 12.0 * math.sqrt(mu) + 60.0)


def released_counts(
    g: Graph, u: np.ndarray, v: np.ndarray, pad: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Degrees and ``T`` (edges among the neighbours) of ``g`` with the distinct pairs ``(u[i], v[i])``,
    ``u < v``, flipped.

    Up to :data:`FEW_FLIPS` pairs: toggling ``(a, b)`` changes the degrees of ``a`` and ``b`` by one and
    ``T`` of ``a``, ``b`` by the number of their common neighbours ``c``, and ``T`` of each ``c`` by one (the
    edge ``(a, b)`` is among ``c``'s neighbours exactly then), applied one pair at a time on the current
    neighbour sets of the endpoints: O(sum of the endpoints' degrees) plus copies of two O(n) arrays. More
    pairs: the released graph's CSR is built (the symmetric difference of the edge codes) and counted by the
    compiled kernels, O(n + E log E + E sqrt(E)). The choice depends on the number of flips only (noise,
    not data); both give the same counts. ``pad`` (the exact path: :func:`flip_batch`): always the rebuilt
    graph, the flips padded to ``pad`` codes, so that the work depends on the true graph's edge count (as
    every graph computation here does) and on the released graph, not on the number of flips.
    """
    if len(u) > FEW_FLIPS or pad is not None:
        return _rebuilt_counts(g, np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64), pad)
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


def _rebuilt_counts(g: Graph, u: np.ndarray, v: np.ndarray, pad: int | None = None):
    """:func:`released_counts` by building the released graph (many flips, or ``pad`` codes)."""
    n = g.n_nodes
    edges = g.cached("edge-codes", lambda: _edge_codes(g))  # the true graph's, once per graph
    flips = u * n + v
    if pad is not None and pad > flips.size:  # codes n^2 + i: no pair's, removed below
        flips = np.concatenate([flips, n * n + np.arange(pad - flips.size, dtype=np.int64)])
    codes = np.setxor1d(edges, flips, assume_unique=True)
    codes = codes[: np.searchsorted(codes, n * n)]
    indptr, indices = csr_from_pairs(codes // n, codes % n, n)
    return csr_degree(indptr).astype(np.int64), csr_triangles(indptr, indices).astype(np.int64)


def _edge_codes(g: Graph) -> np.ndarray:
    """The edges' pair codes ``u n + v`` (``u < v``), sorted, read-only."""
    e = g.edges().astype(np.int64)
    codes = e[:, 0] * g.n_nodes + e[:, 1]
    codes.setflags(write=False)
    return codes


def released_statistics(
    g: Graph,
    epsilon: float,
    *,
    rng=None,
    exact: bool = True,
    low: float = 0.0,
    formula: str = "paper",
) -> tuple[np.ndarray, np.ndarray]:
    """``(degree, ego density)`` of every node of the released graph: one randomized-response release of
    every node pair (the caller records epsilon), then post-processing.

    ``epsilon`` is the float the budget returned for this release (never above the recorded one). ``low``
    and ``formula`` as in :func:`dpmo.graphs.ego_density`. Cost: :func:`sample_flips`, then
    :func:`released_counts` (``O(n + E log E + E sqrt(E))`` on the exact path).
    """
    flips = sample_flips(g.n_nodes, epsilon, rng=rng, exact=exact)
    u, v = pair_endpoints(flips, g.n_nodes)
    # exact: the count update's work depends on the true edge count and the released graph only
    degree, tri = released_counts(g, u, v, pad=flip_batch(g.n_nodes, epsilon) if exact else None)
    return degree, ego_density_from_counts(degree, tri, low, formula)


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
    """Indices of the ``k`` greedy hypervolume picks of the released graph (the caller records epsilon;
    :func:`released_statistics`, then :func:`dpmo.graphs.exact.greedy_hypervolume_picks`)."""
    degree, ed = released_statistics(g, epsilon, rng=rng, exact=exact, low=low, formula=formula)
    return greedy_hypervolume_picks(degree, ed, k)
