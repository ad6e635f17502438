"""The released graph (randomized response on every node pair) of the graph default at large epsilon.

Neighbouring relation: edge-level, graphs on the same public node set that differ in one pair (an edge added
or removed). The exact audit below computes the law of the picks on every graph with 5 nodes from the flip
probability (``P(H | G) = r^d (1 - r)^(10 - d)``, ``d`` the pairs where ``H`` and ``G`` differ) and checks
``P(picks | G) <= e^epsilon P(picks | G')`` for every neighbour ``G'``; a negative control with a flip
probability below the rule's fails it. The samplers are checked against that law.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from itertools import combinations
from unittest import mock

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from _five_node_graphs import CODES, assert_first_pick_follows, graph, released_law, worst_log_ratio
from dpmo import graphs
from dpmo.graphs import pair_response as pr
from dpmo.graphs.exact import greedy_hypervolume_picks
from dpmo.mechanisms.exact.laplace import sample_geometric

mpmath = pytest.importorskip("mpmath")


# ------------------------------------------------------------------------------------------ the flip law
@pytest.mark.parametrize("eps", [1e-39, 1e-12, 0.01, 0.5, 1.0, 2.5, 10.0, 37.3, 50.0, 88.0, 88.8, 1e6])
def test_flip_rate_gives_the_optimal_flip_probability_within_epsilon_dp(eps):
    with mpmath.workdps(400):
        _check_rate(eps)


def _check_rate(eps):
    x = pr.flip_rate(eps)
    e = mpmath.mpf(eps)  # a binary float: exact in mpf
    lowest = mpmath.log1p(mpmath.exp(-e))  # ln(1 + e^-eps): the optimal randomized response's rate
    xm = mpmath.mpf(x.numerator) / x.denominator
    assert xm >= lowest
    assert xm == mpmath.mpf(2) ** -128 if eps > 88.7 else xm - lowest < mpmath.mpf(2) ** -150
    r = -mpmath.expm1(-xm)
    # both ratios of a pair's released probabilities are at most e^epsilon
    assert (1 - r) / r <= mpmath.exp(e) and r / (1 - r) <= mpmath.exp(e)
    assert pr.flip_probability(eps) >= r  # the float rounded up: never fewer flips than the law


def test_flip_rate_refuses_an_epsilon_below_its_precision():
    for bad in (0.0, -1.0, 1e-41):
        with pytest.raises(ValueError, match="epsilon"):
            pr.flip_rate(bad)
    with pytest.raises(ValueError, match="1e-40"):
        pr.sample_flips(10, 1e-50, rng=0)
    assert not pr.uses_released_graph(3, 1e-50)


def test_the_rule_uses_public_figures_and_grows_with_epsilon():
    for n in (1, 2, 5, 200, 10**3, 10**4, 10**6):
        uses = [pr.uses_released_graph(n, e / 4) for e in range(1, 160)]
        assert uses == sorted(uses)  # once on, it stays on as epsilon grows
        assert not pr.uses_released_graph(1, 50.0)
    for e in (3.0, 6.0, 9.0, 12.0):
        uses = [pr.uses_released_graph(n, e) for n in (2, 10, 100, 10**3, 10**4, 10**5, 10**6)]
        assert uses == sorted(uses, reverse=True)  # more nodes need more epsilon
    lam = pr.false_degree(10**4, 10.0)
    assert lam == pytest.approx((10**4 - 1) / (1 + math.exp(10.0)))
    assert pr.uses_released_graph(10**4, 10.0) == (lam <= pr.MAX_FALSE_DEGREE)
    assert pr.uses_released_graph(10**4, 7.2) and not pr.uses_released_graph(10**4, 7.0)  # lambda 8 at 7.14


def test_pair_endpoints_number_the_pairs_row_by_row():
    for n in range(2, 41):
        u, v = pr.pair_endpoints(np.arange(pr.pair_count(n)), n)
        assert list(zip(u.tolist(), v.tolist(), strict=True)) == list(combinations(range(n), 2))
    rng = np.random.default_rng(0)
    for n in (2**20 + 3, 380_017_146, 536_870_913, 2**31 - 1):
        N = pr.pair_count(n)
        rows = np.arange(n - 201, n - 1)  # every pair of the last 200 rows, where the float estimate cancels
        starts = rows * (2 * n - rows - 1) // 2
        tail = np.concatenate(
            [np.arange(a, a + n - 1 - r) for a, r in zip(starts.tolist(), rows.tolist(), strict=True)]
        )
        idx = np.r_[0, 1, N - 1, N - 2, rng.integers(0, N, 2_000), tail]
        u, v = pr.pair_endpoints(idx, n)
        assert ((0 <= u) & (u < v) & (v < n)).all()
        assert (u * (2 * n - u - 1) // 2 + v - u - 1 == idx).all()
        assert len(set(zip(u[-tail.size :].tolist(), v[-tail.size :].tolist(), strict=True))) == tail.size


@pytest.mark.parametrize("exact", [False, True])
def test_every_pair_is_flipped_with_probability_r(exact):
    """Each of the 10 pairs on 5 nodes (the first and the last too) is flipped with probability r."""
    n, eps, draws = 5, 1.0, 3_000
    r = pr.flip_probability(eps)
    rng = np.random.default_rng(11)
    counts = np.zeros(pr.pair_count(n))
    for _ in range(draws):
        np.add.at(counts, pr.sample_flips(n, eps, rng=rng, exact=exact), 1)
    sd = math.sqrt(r * (1 - r) / draws)
    assert np.all(np.abs(counts / draws - r) < 5 * sd), counts / draws


def test_the_rule_is_read_at_the_epsilon_the_sampler_runs_at():
    """An exact epsilon just above the rule's floor whose float is below it: the staircase, nothing spent
    on a release that then fails."""
    g = graphs.load_graph(np.array([[0, 1], [1, 2]]), nodes=3)
    eps = pr.MIN_EPSILON + Fraction(1, 10**60)
    assert float(eps) < pr.MIN_EPSILON <= eps
    b = dpmo.Budget(eps)
    graphs.top_k(g, 1, None, approach="chebyshev", budget=b, rng=0, exact=False)
    assert all(s.mechanism != "randomized_response" for s in b.ledger)


@pytest.mark.parametrize("exact", [False, True])
def test_sample_flips_flips_each_pair_with_probability_r(exact):
    n, eps = 300, 3.0
    N, r = pr.pair_count(n), pr.flip_probability(eps)
    counts = []
    for seed in range(6):
        f = pr.sample_flips(n, eps, rng=np.random.default_rng(seed), exact=exact)
        assert f.dtype == np.int64 and (np.diff(f) > 0).all() and (f.size == 0 or (0 <= f[0] and f[-1] < N))
        counts.append(f.size)
    sd = math.sqrt(N * r * (1 - r) / len(counts))
    assert abs(np.mean(counts) - N * r) < 5 * sd
    # at epsilon 50 and 10^4 nodes no pair is flipped but with probability about 1e-14
    assert pr.sample_flips(10**4, 50.0, rng=1, exact=exact).size == 0


def test_the_exact_sampler_draws_a_public_number_of_words():
    """Timing (docs/core.md): the exact flip sampler draws flip_batch(n, epsilon) gaps, so the same number of
    random words, whatever the flips it returns (outside an event of probability below 2^-60)."""
    from dpmo.mechanisms.exact.bits import RandomBits

    n, eps = 60, 3.0
    used = set()
    sizes = set()
    for seed in range(40):
        source = RandomBits(np.random.default_rng(seed))
        words = source.words
        calls = []
        source.words = lambda m, _w=words, _c=calls: (_c.append(m), _w(m))[1]  # count the words drawn
        sizes.add(pr.sample_flips(n, eps, rng=source).size)
        used.add(sum(calls))
    assert len(sizes) > 5 and len(used) == 1  # different flips, the same words


def test_sample_flips_reads_the_secure_source_by_default():
    a, b = (pr.sample_flips(200, 4.0) for _ in range(2))  # rng None: fresh OS entropy
    assert a.size > 0 and b.size > 0 and not np.array_equal(a, b)


def test_exact_geometric_gaps_follow_their_law():
    g = sample_geometric(40_000, 0.5, rng=0)
    for j in (1, 2, 4):
        p = math.exp(-0.5 * j)
        assert abs(np.mean(g >= j) - p) < 5 * math.sqrt(p * (1 - p) / g.size)
    big = sample_geometric(4_000, 2.0**-100, rng=1)  # values near 2^100: Python ints
    frac = np.mean([int(v) >= 2**100 for v in big])
    assert abs(frac - math.exp(-1)) < 5 * math.sqrt(0.25 / big.size)


# ------------------------------------------------------------------------------ the released objectives
@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 12),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.sampled_from([-1, 3, 10**9]),
    st.sampled_from([None, 0, 70]),
)
def test_released_counts_are_those_of_the_flipped_graph(n, seed, density, share, few, pad):
    rng = np.random.default_rng(seed)
    pairs = np.array(list(combinations(range(n), 2)), dtype=np.int64)
    present = rng.random(len(pairs)) < density
    g = graphs.Graph.from_edges(pairs[present].reshape(-1, 2), nodes=n)
    flips = np.flatnonzero(rng.random(len(pairs)) < share)
    u, v = pr.pair_endpoints(flips, n)
    with mock.patch.object(pr, "FEW_FLIPS", few):  # every path: pair by pair, the rebuilt graph, padded
        degree, tri = pr.released_counts(g, u, v, pad=pad)  # and the exact path's padded codes
    toggled = present.copy()
    toggled[flips] ^= True
    h = graphs.Graph.from_edges(pairs[toggled].reshape(-1, 2), nodes=n)
    assert np.array_equal(degree, h.degree) and np.array_equal(tri, h.triangles)
    assert np.array_equal(g.degree, graphs.Graph.from_edges(pairs[present].reshape(-1, 2), nodes=n).degree)


def test_greedy_picks_refuse_bad_points():
    with pytest.raises(ValueError, match="same length"):
        greedy_hypervolume_picks([1, 2], [0.5], 1)
    with pytest.raises(ValueError, match="finite"):
        greedy_hypervolume_picks([1, np.nan], [0.5, 0.5], 1)


# ------------------------------------------------------------------------- exact audit, every 5-node graph
@functools.cache
def _picks_of_every_graph(k: int) -> tuple[np.ndarray, int]:
    """The greedy picks of every released graph ``H`` on 5 nodes, as one output number per ``H``."""
    outs: dict[tuple, int] = {}
    out = np.empty(CODES.size, dtype=np.intp)
    for code in CODES:
        h = graph(int(code))
        picks = tuple(greedy_hypervolume_picks(h.degree, h.ego_density(), k).tolist())
        out[code] = outs.setdefault(picks, len(outs))
    return out, len(outs)


def _law(k: int, r: float) -> np.ndarray:
    """``P(output | G)`` for every graph ``G`` (rows) when each pair is flipped with probability ``r``."""
    return released_law(*_picks_of_every_graph(k), r)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("eps", [0.7, 1.0, 3.0, 8.0])
def test_exact_audit_on_every_five_node_graph(k, eps):
    law = _law(k, pr.flip_probability(eps))
    assert np.allclose(law.sum(axis=1), 1.0)
    assert worst_log_ratio(law) <= eps + 1e-9
    # negative control: a flip probability a quarter of the rule's breaks epsilon-DP
    assert worst_log_ratio(_law(k, pr.flip_probability(eps) / 4)) > eps + 0.5


@pytest.mark.parametrize("exact", [False, True])
def test_top_k_draws_from_the_audited_law(exact):
    eps, k, draws = 2.0, 1, (1_000 if exact else 2_000)  # the exact path rebuilds the graph
    assert pr.uses_released_graph(5, eps)
    law = _law(k, pr.flip_probability(eps))
    out, _ = _picks_of_every_graph(k)
    first = {}
    for code in CODES:  # output number -> the pick (k = 1)
        h = graph(int(code))
        first.setdefault(int(out[code]), int(greedy_hypervolume_picks(h.degree, h.ego_density(), k)[0]))
    code = 0b1000111011  # a graph with a triangle and a pendant path
    rng = np.random.default_rng(7)

    def draw() -> int:
        return graphs.top_k(graph(code), k, eps, approach="chebyshev", rng=rng, exact=exact)[0]

    assert_first_pick_follows(law[code], first, draw, draws)


# ---------------------------------------------------------------------------------------- through top_k
def test_top_k_records_one_release_of_the_whole_epsilon():
    g = graphs.load_graph(nx.barabasi_albert_graph(300, 3, seed=2), nodes=300)
    b = dpmo.Budget(20.0)
    picks = graphs.top_k(g, 3, 20.0, approach="chebyshev", budget=b, rng=0)
    assert len(b.ledger) == 1 and b.ledger[0].mechanism == "randomized_response"
    assert b.ledger[0].epsilon == 20.0 and b.remaining == 0.0
    assert len(set(picks.tolist())) == 3
    # approach="staircase" is the private staircase at every epsilon: several records
    b2 = dpmo.Budget(20.0)
    graphs.top_k(g, 3, 20.0, approach="staircase", budget=b2, rng=0)
    assert len(b2.ledger) > 1 and all(s.mechanism != "randomized_response" for s in b2.ledger)


@settings(max_examples=60, deadline=None)
@given(st.integers(8, 60), st.integers(0, 2**32 - 1), st.integers(1, 12), st.booleans())
def test_at_negligible_noise_the_picks_are_the_greedy_hypervolume_picks(n, seed, k, cliques):
    """Pareto-consistent and convergent: at epsilon 1e6 the graph default returns the exact greedy picks,
    and no pick is dominated while a front node (a duplicate of a front point counts) is left."""
    G = nx.gnp_random_graph(n, 4.0 / n, seed=seed)
    if cliques:  # equal points: two cliques of 4 nodes
        G.add_edges_from((a, b) for c in (0, 4) for a in range(c, c + 4) for b in range(a + 1, c + 4))
    g = graphs.load_graph(G, nodes=n)
    k = min(k, n)
    got = graphs.top_k(g, k, 1e6, approach="chebyshev", rng=seed, exact=False)
    assert np.array_equal(got, graphs.top_k_exact(g, k, approach="chebyshev"))
    d, e = g.degree.astype(float), np.asarray(g.ego_density())
    dominated = np.array(
        [bool(np.any((d >= d[i]) & (e >= e[i]) & ((d > d[i]) | (e > e[i])))) for i in range(n)]
    )  # brute force, O(n^2)
    idx = g.index(got)
    assert len(set(idx.tolist())) == k
    assert dominated[idx].sum() == max(0, k - int((~dominated).sum()))


# ----------------------------------------------------------------------------------------- command line
def test_the_command_line_names_the_released_graph(tmp_path, capsys):
    from dpmo.cli import main

    path = tmp_path / "edges.txt"
    path.write_text("0 1\n1 2\n2 0\n2 3\n")
    base = ["topk", str(path), "-k", "2", "--n-nodes", "6", "--seed", "1", "--approach"]
    assert main([*base, "chebyshev", "--epsilon", "20"]) == 0
    out = capsys.readouterr().out
    assert "released graph" in out and "1 recorded mechanism call" in out
    assert main([*base, "staircase", "--epsilon", "20"]) == 0
    assert "released graph" not in capsys.readouterr().out
    # --explain: public figures only (the file is never opened), the rule's figures at this n and epsilon
    assert main([*base, "chebyshev", "--epsilon", "20", "--explain", "--n-nodes", "10000"]) == 0
    out = capsys.readouterr().out
    assert "randomized response on the 49995000 node pairs" in out and "not printed" in out
    assert main([*base, "chebyshev", "--epsilon", "6", "--explain", "--n-nodes", "10000"]) == 0
    assert "randomized response" not in capsys.readouterr().out


@pytest.mark.parametrize(("n", "eps"), [(20_000, 8.0), (2**31 - 1, 40.0)])
def test_the_exact_sampler_across_chunks_and_at_the_largest_n(n, eps):
    """More gaps than one chunk of 2^16 (20,000 nodes at epsilon 8: about 67,000 flips), and pair numbers
    beyond 2^46 (Python ints): sorted distinct flips in range, as many as expected."""
    N, r = pr.pair_count(n), pr.flip_probability(eps)
    counts = []
    for seed in range(3):
        f = pr.sample_flips(n, eps, rng=seed)
        assert f.dtype == np.int64 and (np.diff(f) > 0).all() and (f.size == 0 or (f[0] >= 0 and f[-1] < N))
        counts.append(f.size)
    assert abs(np.mean(counts) - N * r) < 5 * math.sqrt(N * r / 3) + 1


def test_public_functions_name_bad_arguments():
    for bad in ("5", True, None):
        with pytest.raises(TypeError, match="epsilon"):
            pr.uses_released_graph(100, bad)
    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="epsilon"):
            pr.flip_rate(bad)
    for bad in ("5", 5.0, True):
        with pytest.raises(TypeError, match="n must"):
            pr.uses_released_graph(bad, 5.0)
    with pytest.raises(ValueError, match="n must"):
        pr.sample_flips(0, 5.0, rng=0)
    with pytest.raises(ValueError, match="float64 range"):  # as every epsilon of the library
        pr.uses_released_graph(100, 10**400)
    assert pr.flip_rate(Fraction(10**300, 3)) == pr.X_MIN and pr.flip_rate(np.float32(2.5)) == pr.flip_rate(
        2.5
    )
