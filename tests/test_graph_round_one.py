"""Round 1's ego-signal test over the nodes its window searches, and the gain's boxes as released (issue 38).

``GraphStaircaseApproach.round_one_threshold``: ``signal_threshold`` at round 1's epsilon over the nodes its
window searches (public: ``n``, the plan, the step's epsilon). ``point_box``: a pick's box from its release,
a function of released integers and public values only (post-processing; no new release, no new score).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st

from dpmo import Budget, graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach, ego_from_dampened
from dpmo.graphs.hypervolume_rounds import point_box
from dpmo.graphs.round_one import HUB_SHARE, hub_threshold
from dpmo.graphs.staircase_rules import top_degree_epsilon
from dpmo.selection import SelectionCache, _reallocated

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_front_robust import GraphCase, generate  # noqa: E402


def _hand_threshold(n: int, epsilon: float) -> tuple[int, float, float]:
    """The rule written out from the documented plan for k = 3 (docs/pareto.md): first release 0.03 + 0.08,
    two pick releases 0.06, rounds 0.15 : 0.85 x (1 : 2) of the rest; windows from rank 3, opening as
    ``exp(eps_1 x 0.85 / 0.77 x 4 / 2)``."""
    first, left = 0.03 + 0.08, 1.0 - 0.03 - 0.08 - 2 * 0.06
    eps1 = epsilon * left * 0.15
    log_size = math.log(3.0) + eps1 * (0.85 / 0.77) * 2.0
    m = n if log_size >= math.log(n) else math.ceil(math.exp(log_size))
    return m, 2.0 * (math.log(m) + 1.0) / eps1, first


@pytest.mark.parametrize("n,epsilon", [(37_700, 10.0), (37_700, 50.0), (1_000, 20.0), (200, 50.0)])
def test_round_one_threshold_is_the_lead_over_the_window(n, epsilon):
    appr = GraphStaircaseApproach(3, epsilon=epsilon)
    assert appr.uses_signal()
    m, T, first = _hand_threshold(n, epsilon)
    e0 = epsilon * appr.steps(3, 2)[0].share
    assert appr.steps(3, 2)[0].share == pytest.approx(first)
    assert appr.round_one_candidates(n, e0) == m
    assert appr.round_one_threshold(n, e0) == pytest.approx(T)


def test_round_one_threshold_falls_with_epsilon_and_grows_with_n():
    """More budget: a smaller lead suffices; more nodes in the window: a larger one (public monotonicity)."""
    appr = lambda e: GraphStaircaseApproach(3, epsilon=e)  # noqa: E731
    T = [appr(e).round_one_threshold(10_000, e * appr(e).steps(3, 2)[0].share) for e in (10, 20, 50, 200)]
    assert all(a > b for a, b in zip(T, T[1:], strict=False))
    a = appr(50.0)
    e0 = 50.0 * a.steps(3, 2)[0].share
    small, mid, big = (a.round_one_threshold(n, e0) for n in (200, 10_000, 10**6))
    assert small < mid < big


def test_weak_round_one_on_a_graph_whose_front_is_flat():
    """A Barabasi-Albert graph with 1,000 nodes has its largest dampened ego density near 1 unit, below round
    1's threshold at epsilon 50 (2.74, 3.74 with the hub rule): the call's release reports it weak and round 1
    takes a top degree."""
    g = graphs.load_graph(nx.barabasi_albert_graph(1000, 3, seed=1), nodes=1000)
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=50.0)
    r = appr.rounds(objs, None, "local", SelectionCache(objs))
    D = r.dampened()[1]
    assert D.max() < 2.0  # exact (NOT private) check of the premise
    r.release(0, [], 50.0 * appr.steps(3, 2)[0].share, np.random.default_rng(0))
    T, eps1 = 2.0 * (math.log(1000) + 1.0) / (50.0 * 0.77 * 0.15), 50.0 * 0.77 * 0.15
    # a hub graph (the released largest degree leads the next by 20-30 edges: it costs under a quarter of
    # round 1), so the hub rule raises the threshold by min(T, 1) (docs/pareto.md, "A hub's degree first")
    lead = float(r.degrees_at_ranks[0] - r.degrees_at_ranks[1])
    assert top_degree_epsilon(1000, lead) <= 0.25 * eps1
    assert r.threshold == pytest.approx(T + min(T, 1.0))
    r.begin(0, 50.0 * 0.77 * 0.15)
    assert r.weak_signal()
    s, _ = r.scores([], np.arange(1000))
    deg = np.asarray(objs[0].values)
    assert deg[int(np.argmax(s))] == deg.max()


def test_point_box_inverts_the_release():
    """At negligible noise the box is the pick's exact (degree, ego density), from below within one grid
    step of ``1 / q``; the degree is clipped to the public range [1, n - 1]."""
    g = graphs.load_graph(nx.powerlaw_cluster_graph(60, 3, 0.6, seed=2), nodes=60)
    objs = graphs.objectives(g)
    r = GraphStaircaseApproach(3).rounds(objs, None, "local", SelectionCache(objs))
    D = r.dampened()[1]
    deg, ego = np.asarray(objs[0].values, dtype=float), np.asarray(objs[1].values, dtype=float)
    q = 1000
    for v in np.argsort(-ego)[:10]:
        d_hat, e_hat = point_box([int(deg[v]), math.floor(q * D[v])], q, 60)
        assert d_hat == deg[v]
        assert e_hat <= ego[v] + 1e-12
        # one grid step of D at degree d is at most 2 / (d - 1) ego density (or 1 below degree 3)
        assert ego[v] - e_hat <= (2.0 / max(deg[v] - 1.0, 1.0)) / q + 1e-12
    assert point_box([10**6, 0], 1, 60) == (59.0, 0.0)
    assert point_box([-5, -3], 1, 60) == (1.0, 0.0)


def test_point_box_is_the_documented_inverse():
    """``point_box`` is ``ego_from_dampened`` at the released degree, the released integer over q."""
    for d, Dq, q in [(100, 2, 1), (40, 13, 4), (7, 9, 2)]:
        assert point_box([d, Dq], q, 1000) == (float(d), min(ego_from_dampened(Dq / q, d), 1.0))
    assert point_box([40, 13], 40, 1000, sensitivity="global") == (40.0, 13 / 40)  # D_ego is the ego density
    assert point_box([40, 13], 4, 1000, sensitivity="global") == (40.0, 1.0)  # clipped to its range


# ------------------------------------------------------------- round 1's unneeded epsilon (issue 38)
def _weak_rounds(epsilon: float = 50.0, seed: int = 0):
    g = graphs.load_graph(nx.barabasi_albert_graph(1000, 3, seed=1), nodes=1000)
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=epsilon)
    r = appr.rounds(objs, None, "local", SelectionCache(objs))
    r.release(0, [], epsilon * appr.steps(3, 2)[0].share, np.random.default_rng(seed))
    return g, appr, r


def _clique_graph():
    """A 40-clique next to a Barabasi-Albert graph: a strong ego signal (round 1 is the ego round)."""
    h = nx.disjoint_union(nx.complete_graph(40), nx.barabasi_albert_graph(960, 3, seed=1))
    return graphs.load_graph(h, nodes=1000)


@pytest.mark.parametrize("n,lead", [(1000, 11.0), (10_000, 3.0), (37_700, 0.4), (200, 250.0)])
def test_top_degree_epsilon_is_the_resolution_rule(n, lead):
    """``2 (ln n + 1) / max(lead, 1)``, rounded up to 1 / 1000, written out by hand."""
    hand = 2.0 * (math.log(n) + 1.0) / max(lead, 1.0)
    got = top_degree_epsilon(n, lead)
    assert hand <= got < hand + 0.001 + 1e-12
    assert abs(got * 1000 - round(got * 1000)) < 1e-9


def test_weak_round_one_gives_what_it_does_not_need_to_round_two():
    """After a weak signal, round 1 runs at ``top_degree_epsilon(n, W_1 - W_2)`` and round 2 at its part plus
    the rest; round 3 keeps its part and the sum is exact."""
    _, appr, r = _weak_rounds()
    assert r.weak_signal()
    parts = [Fraction(50) * Fraction(st.share) for st in appr.steps(3, 2) if st.kind == "round"]
    new = r.reallocate(0, parts)
    lead = float(r.degrees_at_ranks[0] - r.degrees_at_ranks[1])
    need = math.ceil(2000.0 * (math.log(1000) + 1.0) / max(lead, 1.0) - 1e-9)
    assert new[0] == Fraction(need, 1000) < parts[0]
    assert new[1] == parts[1] + parts[0] - new[0] and new[2] == parts[2]
    assert sum(new) == sum(parts)
    assert r.reallocate(1, parts[1:]) is None  # only after the first release


def test_no_reallocation_when_round_one_is_the_ego_round():
    """The clique graph: the signal is far above round 1's threshold, the plan stays as it is."""
    g = _clique_graph()
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=50.0)
    r = appr.rounds(objs, None, "local", SelectionCache(objs))
    r.release(0, [], 50.0 * appr.steps(3, 2)[0].share, np.random.default_rng(0))
    assert not r.weak_signal()
    assert r.reallocate(0, [Fraction(6), Fraction(11), Fraction(22)]) is None


@pytest.mark.parametrize("weak", [True, False])
def test_the_ledger_sums_exactly_to_epsilon_on_both_paths(weak):
    """Through ``graphs.top_k`` at epsilon 50 (pure DP): six records, each made when it is spent, adding up
    to epsilon exactly (``Fraction``), with the budget empty. On the weak path round 1's record is below its
    planned part and round 2's above by the same amount (round 3 and the releases as planned); on the
    non-weak path (the clique graph) every record is its planned part."""
    g = _weak_rounds()[0] if weak else _clique_graph()
    plan = GraphStaircaseApproach(3, epsilon=50.0).steps(3, 2)
    want = [Fraction(50) * Fraction(st.share) for st in plan]
    for seed in range(3):
        b = Budget(50.0)
        graphs.top_k(g, 3, 50.0, approach="staircase", rng=seed, exact=False, budget=b)
        eps = [r.epsilon for r in b.ledger]
        assert len(eps) == 6 and sum(eps, Fraction(0)) == Fraction(50) and b.remaining == 0
        assert [eps[i] for i in (0, 2, 4)] == pytest.approx([want[i] for i in (0, 2, 4)], rel=1e-12)
        assert eps[5] == pytest.approx(want[5], rel=1e-12)
        if weak:
            assert eps[1] < want[1] and eps[3] > want[3]
            assert eps[1] + eps[3] == pytest.approx(want[1] + want[3], rel=1e-12)
        else:
            assert [float(e) for e in eps] == pytest.approx([float(w) for w in want], rel=1e-12)


def test_delta_never_reallocates(monkeypatch):
    """With ``delta > 0`` the staircase plan keeps the accountant's parts (it declares nothing to move:
    its round-1 move happens only on the weak path) and the pipeline never asks: a ``reallocate`` that
    would fail is not called, and the rounds keep the plan's ratios on the weak path."""
    from dpmo.graphs import chebyshev as C

    def boom(self, r, parts):
        raise AssertionError("reallocate called with delta > 0")

    g, appr, _ = _weak_rounds()
    plan = appr.steps(3, 2)
    assert appr.reallocable_share(3, 2) == 0.0
    monkeypatch.setattr(C._GraphStaircaseRounds, "reallocate", boom)
    b = Budget(50.0, delta=1e-6)
    graphs.top_k(g, 3, 50.0, approach="staircase", rng=0, exact=False, budget=b, delta=1e-6)
    e = [float(r.epsilon) for r in b.ledger]
    assert len(e) == 6 and e[1] / e[5] == pytest.approx(plan[1].share / plan[5].share)
    assert b.remaining_delta == 0 and sum(e) > 50.0  # the accountant's parts, its delta spent
    with pytest.raises(AssertionError, match="delta > 0"):  # the control: without delta it is asked
        graphs.top_k(g, 3, 50.0, approach="staircase", rng=0, exact=False)


def test_a_reallocation_that_changes_the_sum_is_refused():
    """The pipeline's check (``dpmo.selection._reallocated``): exact parts > 0, the same sum, or an error."""

    class Bad:
        def reallocate(self, r, parts):
            return [parts[0] / 2, parts[1]]

    with pytest.raises(RuntimeError, match="sum"):
        _reallocated(Bad(), 0, [Fraction(1), Fraction(2)], "test")


# ------------------------------------------------------------------ the hub rule (docs/pareto.md, "A hub's
# degree first when the ego signal is marginal")
def test_hub_threshold_adds_the_smaller_of_the_threshold_and_one_unit_on_a_hub_only():
    """A hub (the largest degree costs at most a quarter of round 1: ``top_degree_epsilon(n, lead) <=
    0.25 eps_1``): ``T + min(T, 1)``; otherwise ``T``; as ``T`` vanishes (epsilon grows) so does the rise,
    so the plan still converges to the greedy hypervolume."""
    assert HUB_SHARE == 0.25
    n, eps1 = 10_000, 12.0
    assert top_degree_epsilon(n, 112.0) <= 3.0 < top_degree_epsilon(n, 4.0)
    assert hub_threshold(1.7, n, 112.0, eps1) == pytest.approx(2.7)
    assert hub_threshold(0.4, n, 112.0, eps1) == pytest.approx(0.8)
    assert hub_threshold(1.7, n, 4.0, eps1) == 1.7  # no hub: the lead costs 5.1 > 3
    assert hub_threshold(1e-6, n, 112.0, eps1) == pytest.approx(2e-6)


@pytest.mark.slow
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(family=st.sampled_from(["ba", "plc"]), n=st.integers(200, 300), graph_seed=st.integers(0, 2**16))
@example(family="plc", n=200, graph_seed=1)  # the robustness benchmark's plc-200 and ba-200
@example(family="ba", n=200, graph_seed=1)
def test_on_hub_graphs_two_picks_do_not_fall_from_epsilon_50_to_100(family, n, graph_seed):
    """Generated Barabasi-Albert and powerlaw-cluster graphs with 200-300 nodes whose largest degree is a hub
    by the rule at epsilon 100 (its exact lead over the next costs at most a quarter of round 1; a premise
    read on exact values, NOT private, for choosing the test's graphs only), k = 2, 40 seeds: the mean
    hypervolume ratio at epsilon 100 is not below the one at 50 by more than 3 standard errors of the
    difference (0.01 at least). Without the hub rule, round 1 became an ego round at 100 as soon as the
    released signal passed its threshold, and the ratio fell (the benchmark's powerlaw-cluster graph with 200
    nodes: 0.997 at 50, 0.886 at 100; the test fails on the former code). Not covered, and still falling:
    epsilon 200 (0.997 -> 0.969 there), and graphs with two hubs of nearly equal degree (docs/pareto.md)."""
    g = graphs.load_graph(generate(family, n, seed=graph_seed), nodes=n)
    case = GraphCase(f"{family}-{n}", g, n, 2)
    deg = np.sort(np.asarray(graphs.objectives(g)[0].values, dtype=float))[::-1]
    appr = GraphStaircaseApproach(2, epsilon=100.0)
    eps1 = appr.round_one_epsilon(100.0 * appr.steps(2, 2)[0].share)
    assume(case.best > 0 and top_degree_epsilon(n, deg[0] - deg[1]) <= HUB_SHARE * eps1)
    runs = 40
    stats = []
    for eps in (50.0, 100.0):
        r = np.array([case.score(case.pick("chebyshev", eps, s))[0] for s in range(runs)])
        stats.append((r.mean(), r.std(ddof=1) / np.sqrt(runs)))
    (m50, s50) = stats[0]
    for m, s in stats[1:]:
        assert m >= m50 - 3 * max(np.hypot(s, s50), 0.01 / 3), (family, n, graph_seed, stats)
