"""Properties of the graph default ``top_k(approach="chebyshev")`` on generated graphs (issue 38): with
negligible noise no pick is dominated, the tie rule keeps every round at sensitivity 1, and the robustness
benchmark's helpers are right."""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpmo import graphs
from dpmo.graphs.chebyshev import degree_margin, quantum_for, tie_weight

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_front_robust import dominated_mask  # noqa: E402


def _values(g):
    d, e = (np.asarray(o.values, dtype=np.float64) for o in graphs.objectives(g))
    return np.c_[d, e]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(5, 40),
    p=st.floats(0.05, 0.7),
    k=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    family=st.sampled_from(["gnp", "ba", "plc", "ws"]),
)
def test_no_dominated_pick_at_negligible_noise(n, p, k, seed, family):
    """At epsilon 1e6 no pick of the default (and of ``approach="staircase"``) is dominated, whenever the
    front has at least ``k`` distinct points (else some dominated pick is unavoidable)."""
    if family == "gnp":
        G = nx.gnp_random_graph(n, p, seed=seed)
    elif family == "ba":
        G = nx.barabasi_albert_graph(n, max(1, min(int(p * 5) + 1, n - 1)), seed=seed)
    elif family == "plc":
        G = nx.powerlaw_cluster_graph(n, max(1, min(int(p * 5) + 1, n - 1)), p, seed=seed)
    else:
        G = nx.watts_strogatz_graph(n, 4, p, seed=seed)
    g = graphs.load_graph(G, nodes=n)
    X = _values(g)
    dom = dominated_mask(X)
    if np.unique(X[~dom], axis=0).shape[0] < k:
        return
    for approach in ("chebyshev", "staircase"):
        idx = graphs.top_k(g, k, 1e6, approach=approach, rng=seed % 1000, exact=False)
        assert not dom[idx].any(), (approach, X[idx].tolist(), X[~dom].tolist())


def test_dominated_mask_matches_its_definition():
    rng = np.random.default_rng(0)
    for _ in range(100):
        X = rng.integers(0, 4, (25, 2)).astype(float)
        want = [any(np.all(X[j] >= X[i]) and np.any(X[j] > X[i]) for j in range(25)) for i in range(25)]
        assert dominated_mask(X).tolist() == want


def test_public_rules():
    # the tie rule's whole span, rho (D_deg + D_ego) < rho 1.5 n, stays below 1 / n
    for n in (5, 100, 10**5):
        assert tie_weight(n) * 1.5 * n < 1.0 / n
    assert degree_margin(1.5, 0.0) == 1.0 and degree_margin(1.5, 3.0) == 1.5
    assert degree_margin(1.5, 0.5) == pytest.approx(1.25)
    assert [quantum_for(e) for e in (None, 1.0, 15.99, 16.0, 400.0)] == [1, 1, 1, 2, 10]


def test_release_of_a_pick_moves_by_one_plus_q():
    """The pick release ``(degree, floor(q D_ego))`` on every graph with 5 nodes: L1 change at most
    ``1 + q`` between one-edge neighbours (so ``x = eps / (1 + q)`` is eps-DP), reached for ``q = 3``."""
    from itertools import combinations

    from dpmo.graphs.chebyshev import GraphStaircaseApproach

    pairs = list(combinations(range(5), 2))
    codes = np.arange(1 << len(pairs))
    stats = []
    for c in codes:
        edges = np.array([pairs[i] for i in range(len(pairs)) if (c >> i) & 1], dtype=np.int64)
        g = graphs.Graph.from_edges(edges.reshape(-1, 2), nodes=np.arange(5))
        r = GraphStaircaseApproach(3).rounds(graphs.objectives(g), None, "local", None)
        r.begin(0, 36.0)  # q = 3
        assert r.quantum() == 3
        stats.append(np.concatenate([r.statistic(1, [v]) for v in range(5)]))
    S = np.array(stats)
    worst = max(np.abs(S - S[codes ^ (1 << i)]).reshape(len(codes), 5, 2).sum(axis=2).max() for i in range(10))
    assert 1 < worst <= 4
