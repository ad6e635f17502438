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
from dpmo.graphs.chebyshev import degree_margin, pick_quantum, tie_weight

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_front_robust import dominated_mask  # noqa: E402


def _values(g):
    d, e = (np.asarray(o.values, dtype=np.float64) for o in graphs.objectives(g))
    return np.c_[d, e]


def generated(family, n, p, seed):
    """A small networkx graph of ``family`` (G(n, p), Barabasi-Albert, powerlaw-cluster, Watts-Strogatz, a
    random bipartite graph: no triangle, every ego density 0; or a front of duplicates: cliques of ``a`` and
    ``a - 1`` nodes, or three stars of ``a`` leaves, beside a sparse G(25 n, 2 / (25 n)) graph)."""
    if family in ("cliques", "stars"):  # with 25 n other nodes (sparse), where the former tie rule faded
        a = max(3, n // 4)
        two = [nx.complete_graph(a), nx.complete_graph(a - 1)]
        parts = [nx.star_graph(a)] * 3 if family == "stars" else two
        return nx.disjoint_union_all([*parts, nx.gnp_random_graph(25 * n, 2.0 / (25 * n), seed=seed)])
    if family == "gnp":
        return nx.gnp_random_graph(n, p, seed=seed)
    if family == "bipartite":
        return nx.bipartite.random_graph(n // 2, n - n // 2, p, seed=seed)
    m = max(1, min(int(p * 5) + 1, n - 1))
    if family == "ba":
        return nx.barabasi_albert_graph(n, m, seed=seed)
    if family == "plc":
        return nx.powerlaw_cluster_graph(n, m, p, seed=seed)
    return nx.watts_strogatz_graph(n, 4, p, seed=seed)


#: hypothesis's small generated graphs and pick counts (the negligible-noise properties)
SMALL_GRAPHS = dict(
    n=st.integers(5, 40),
    p=st.floats(0.05, 0.7),
    k=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    family=st.sampled_from(["gnp", "ba", "plc", "ws", "bipartite"]),
)
#: the same, and fronts of duplicates beside a sparse graph of ``25 n`` nodes (:func:`generated`)
FAMILIES = ["gnp", "ba", "plc", "ws", "bipartite", "cliques", "stars"]
FRONT_GRAPHS = dict(SMALL_GRAPHS, family=st.sampled_from(FAMILIES))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**FRONT_GRAPHS)
def test_no_dominated_pick_at_negligible_noise(n, p, k, seed, family):
    """At epsilon 1e6 the default (and ``approach="staircase"``, and PrivPareto, global and local) picks a
    dominated node only when every node of the front is picked: at most ``k`` minus the front's nodes
    (duplicates count: a node equal to a front point is Pareto-optimal too)."""
    G = generated(family, n, p, seed)
    g = graphs.load_graph(G, nodes=G.number_of_nodes())
    X = _values(g)
    dom = dominated_mask(X)
    for approach, sens in (
        ("chebyshev", "local"),
        ("staircase", "local"),
        ("pareto", "local"),
        ("pareto", "global"),
    ):
        idx = graphs.top_k(g, k, 1e6, approach=approach, sensitivity=sens, rng=seed % 1000, exact=False)
        assert dom[idx].sum() <= max(0, k - np.count_nonzero(~dom)), (
            approach,
            X[idx].tolist(),
            X[~dom].tolist(),
        )


def test_pareto_on_graphs_the_former_rule_left_dominated():
    """PrivPareto at epsilon 1e6 on two graphs where the former negligible-noise rule (the Pareto score,
    sensitivity ``n - 1``, plus an escape in sensitivity units) did not hold or did not resolve: a star of
    2,000 nodes joined to a clique of 45 (``eps_j`` below ``6 n (ln n + 20)``: the paper's local rounds
    picked leaves after the centre) and a G(n, p) graph of 200 nodes (ego densities a few hundredths apart,
    far below the sensitivity 1: a pick's dominated neighbour in ego density was not told apart). Every
    pick is on the front, global and local; control: the paper's rounds (``consistent=False``) pick
    dominated nodes on both."""
    from dpmo import select_multiobjective
    from dpmo.pareto import ParetoApproach

    star = nx.complete_graph(45)
    star.add_edges_from((0, v) for v in range(45, 2000))
    cases = [star, nx.fast_gnp_random_graph(200, 8.0 / 199, seed=1)]
    for G in cases:
        g = graphs.load_graph(G, nodes=G.number_of_nodes())
        dom = dominated_mask(_values(g))
        paper = 0
        for seed in range(6):
            for sens in ("local", "global"):
                idx = graphs.top_k(g, 3, 1e6, approach="pareto", sensitivity=sens, rng=seed, exact=False)
                assert not dom[np.searchsorted(g.ids, idx)].any()
            objs = graphs.objectives(g)
            q = select_multiobjective(
                objs, 1e6, approach=ParetoApproach(consistent=False), k=3, rng=seed, sensitivity="local"
            )
            paper += int(dom[q].sum())
        assert paper > 0


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
    # the pick release's grid: an integer, 1 below eps_b = 2, the largest integer <= eps_b above, capped
    assert [pick_quantum(e) for e in (None, 0.01, 1.0, 1.99, 2.0, 6.5, 2.0**40)] == [1, 1, 1, 1, 2, 6, 2**30]
    for e in (0.3, 1.5, 2.7, 7.2, 150.0, 3e4):
        q = pick_quantum(e)
        # the grid's error sd 1 / (q sqrt 12) is at most 1 / sqrt(6) of the noise's sqrt(2) / e, and the step
        # 1 / q no finer than the noise scale 1 / e
        assert 1.0 / (q * np.sqrt(12.0)) <= np.sqrt(2.0) / e / np.sqrt(6.0) + 1e-12
        assert q == 1 or 1.0 / q >= 1.0 / e


def test_release_of_a_pick_moves_by_one_and_q():
    """The pick release on every graph with 5 nodes and every one-edge neighbour (edge-DP): the degree moves
    by at most 1 and ``floor(q D_ego)`` by at most ``q`` (brute force, ``q = pick_quantum(eps / 2)`` for step
    epsilons 2, 4, 6, 14: q = 1, 2, 3, 7; both bounds reached), so the two discrete Laplace parts at ``x_a =
    eps / 2`` and ``x_b = eps / (2 q)`` give every output a log-probability ratio at most ``x_a |d - d'| +
    x_b |v - v'| <= eps``. Negative control: the ego part calibrated as if its sensitivity were 1 (``x_b =
    eps / 2``) exceeds eps for ``q >= 2``."""
    from itertools import combinations

    from dpmo.graphs.chebyshev import GraphStaircaseApproach
    from dpmo.graphs.staircase_rules import pick_quantum

    pairs = list(combinations(range(5), 2))
    codes = np.arange(1 << len(pairs))
    rounds = []
    for c in codes:
        edges = np.array([pairs[i] for i in range(len(pairs)) if (c >> i) & 1], dtype=np.int64)
        g = graphs.Graph.from_edges(edges.reshape(-1, 2), nodes=np.arange(5))
        rounds.append(GraphStaircaseApproach(3).rounds(graphs.objectives(g), None, "local", None))
    flips = [codes ^ (1 << i) for i in range(len(pairs))]
    for eps in (2.0, 4.0, 6.0, 14.0):
        q = pick_quantum(eps / 2)
        assert q == eps / 2
        stats = []
        for r in rounds:
            r.q = q
            stats.append(np.stack([r.statistic(1, [v]) for v in range(5)]))
        S = np.array(stats)  # (graphs, nodes, 2)
        move = np.stack([np.abs(S - S[f]) for f in flips])  # (flips, graphs, nodes, 2)
        assert move[..., 0].max() == 1 and move[..., 1].max() == q
        x_a, x_b = eps / 2, eps / (2 * q)
        assert (x_a * move[..., 0] + x_b * move[..., 1]).max() <= eps + 1e-12
        worst_as_if_one = (x_a * move[..., 0] + x_a * move[..., 1]).max()
        assert (worst_as_if_one > eps) == (q >= 2)


def _five_node_graphs():
    from itertools import combinations

    pairs = list(combinations(range(5), 2))
    codes = np.arange(1 << len(pairs))
    out = []
    for c in codes:
        edges = np.array([pairs[i] for i in range(len(pairs)) if (c >> i) & 1], dtype=np.int64)
        out.append(graphs.Graph.from_edges(edges.reshape(-1, 2), nodes=np.arange(5)))
    return out, [codes ^ (1 << i) for i in range(len(pairs))]


#: The conventions every 5-node audit of the graph default runs (local "paper" in the fast tier; the other
#: two slow): sensitivity, ego-density formula, ego density below degree 2.
CONVENTIONS = [
    ("local", "paper", 0.0),
    pytest.param("local", "published", 1.0, marks=pytest.mark.slow),
    pytest.param("global", "paper", 0.0, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("sensitivity,formula,low", CONVENTIONS)
def test_exact_audit_of_the_signal_release_and_the_weak_round(sensitivity, formula, low):
    """Every graph on 5 nodes and every one-edge neighbour: (1) the ego signal ``floor(max D_ego)`` moves by
    at most 1 (more than 0 somewhere) and the degrees of the ranks by at most 2, so the two-part release
    (``x_a = eps_a / 2``, ``x_b = eps_b``) has log-probability ratios at most ``2 x_a + x_b = eps``; (2) the
    round that takes the largest degree when the signal is weak, ``min(degree - W_1, 0)`` with the tie rule,
    moves by at most 1 and its exact exponential-mechanism log-probabilities by at most epsilon."""
    from dpmo.graphs.chebyshev import GraphStaircaseApproach
    from dpmo.graphs.staircase_rules import ego_signal_statistic
    from dpmo.mechanisms import probabilities_by_row
    from dpmo.selection import SelectionCache

    gs, flips = _five_node_graphs()
    sig, ranks, weak = [], [], []
    appr = GraphStaircaseApproach(3, formula)
    for g in gs:
        objs = graphs.objectives(g, low_degree=low, formula=formula)
        r = appr.rounds(objs, None, sensitivity, SelectionCache(objs))
        D = r.dampened()[1]
        sig.append(ego_signal_statistic(D))
        ranks.append(r.statistic(0, []))
        r.receive(0, [], np.array([4, 3, 2, 1]), 1.0)  # a public history of released ranks
        r.signal, r.threshold = 0.0, 1.0  # a released weak signal
        r.begin(0, 1.0)
        assert r.weak_signal()
        s, sens = r.scores([], np.arange(5))
        assert sens == 1.0
        weak.append(s)
    sig, ranks, weak = np.array(sig), np.array(ranks), np.array(weak)
    assert 0 < max(np.abs(sig - sig[f]).max() for f in flips) <= 1
    assert max(np.abs(ranks - ranks[f]).sum(axis=1).max() for f in flips) <= 2
    change = max(np.abs(weak - weak[f]).max() for f in flips)
    assert 0.3 < change <= 1.0 + 1e-9
    for eps in (0.5, 4.0):
        lp = probabilities_by_row(weak, eps, 1.0, mechanism="exponential", log=True)
        assert max(np.abs(lp - lp[f]).max() for f in flips) <= eps + 1e-9


def test_weak_signal_takes_the_top_degree_and_records_one_release():
    """A graph without any triangle (bipartite: every ego density 0) has no ego signal: at a large epsilon
    round 1 takes the largest degree; the plan's first release carries QUANTILE_SHARE + SIGNAL_SHARE."""
    import dpmo
    from dpmo.graphs.chebyshev import QUANTILE_SHARE, GraphStaircaseApproach
    from dpmo.graphs.staircase_rules import SIGNAL_SHARE

    G = nx.star_graph(30)  # node 0: degree 30, ego density 0; leaves: degree 1
    G.add_edges_from((i, i + 1) for i in range(31, 60, 2))
    g = graphs.load_graph(G, nodes=61)
    first = [graphs.top_k(g, 3, 40.0, approach="staircase", rng=s)[0] for s in range(20)]
    assert first.count(0) >= 14  # the signal's release is noisy: about 0.86 of the calls see it weak
    budget = dpmo.Budget(40.0)
    graphs.top_k(g, 3, 40.0, approach="staircase", rng=1, budget=budget)
    plan = GraphStaircaseApproach(3, epsilon=40.0).steps(3, 2)
    assert plan[0].share == pytest.approx(QUANTILE_SHARE + SIGNAL_SHARE)
    # below the epsilon at which round 1's window opens, no signal release: the plan without it
    assert GraphStaircaseApproach(3, epsilon=5.0).steps(3, 2)[0].share == pytest.approx(QUANTILE_SHARE)
    assert "largest dampened ego density" in budget.ledger[0].what
    assert budget.ledger[0].epsilon == pytest.approx(40.0 * (QUANTILE_SHARE + SIGNAL_SHARE))


def test_rounds_know_their_index():
    """The rounds' plan-dependent scores (top-first plan, windows, the weak-signal round 1) read the round
    index that the pipeline gives to ``begin``."""
    from dpmo.graphs.chebyshev import GraphStaircaseApproach

    g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    for appr in (GraphStaircaseApproach(3), GraphStaircaseApproach(3, top_first=True, epsilon=1.0)):
        r = appr.rounds(graphs.objectives(g), None, "local", None)
        r.begin(2, 0.5)
        assert (r.round, r.epsilon) == (2, 0.5)


def test_the_robustness_benchmark_runs_and_resumes(tmp_path, capsys):
    """``bench_front_robust.main`` at a tiny size: one CSV row per cell, the summary and the targets' check
    printed, and a second call skips the cells already in the file."""
    import csv

    from bench_front_robust import main

    out = tmp_path / "r.csv"
    args = ["--runs", "2", "--sizes", "60", "--generators", "ba", "star-clique", "--approaches", "agg",
            "chebyshev", "chebyshev-fixed", "--epsilons", "1", "1e6", "--out", str(out)]  # fmt: skip
    main(args)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2 * 3 * 2
    assert {r["case"] for r in rows} == {"ba-60", "star-clique-60"}
    for r in rows:
        assert 0.0 <= float(r["hv_ratio"]) <= 1.0 + 1e-9 and 0.0 <= float(r["dominated_share"]) <= 1.0
        if r["approach"] in ("chebyshev", "chebyshev-fixed") and float(r["epsilon"]) == 1e6:
            assert float(r["dominated_share"]) == 0.0
    text = capsys.readouterr().out
    assert "| ba-60 | chebyshev |" in text and "| ba-60 | chebyshev-fixed |" in text
    assert text.count("worst shortfall vs agg") == 2  # the targets of the default and of the fixed settings
    main(args)
    assert len(list(csv.DictReader(out.open()))) == 12  # resumed: nothing added


def test_the_robustness_benchmark_passes_k_to_the_tables(monkeypatch):
    """``--k`` reaches the tables' side too (``front_tables.run_tables(..., k=K)``), not only the graphs."""
    import bench_front_robust
    import front_tables

    seen = []

    def fake(approaches, epsilons, runs, k=3, **_):
        seen.append(k)
        return [("t", approaches[0], epsilons[0], 0.5, 0.0, 0.0)]

    monkeypatch.setattr(front_tables, "run_tables", fake)
    rows = bench_front_robust.table_rows(["agg"], [1.0], 2, 5)
    assert seen == [5] and rows[0]["case"] == "t" and rows[0]["hv_ratio"] == 0.5
