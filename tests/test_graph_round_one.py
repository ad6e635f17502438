"""Round 1's ego-signal test over the nodes its window searches, and the gain's boxes as released (issue 38).

``GraphStaircaseApproach.round_one_threshold``: ``signal_threshold`` at round 1's epsilon over the nodes its
window searches (public: ``n``, the plan, the step's epsilon). ``point_box``: a pick's box from its release,
a function of released integers and public values only (post-processing; no new release, no new score).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from dpmo import graphs
from dpmo.graphs.chebyshev import GraphStaircaseApproach, ego_from_dampened
from dpmo.graphs.hypervolume_rounds import point_box
from dpmo.selection import SelectionCache


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
    1's threshold at epsilon 50 (2.74): the call's release reports it weak and round 1 takes a top degree."""
    g = graphs.load_graph(nx.barabasi_albert_graph(1000, 3, seed=1), nodes=1000)
    objs = graphs.objectives(g)
    appr = GraphStaircaseApproach(3, epsilon=50.0)
    r = appr.rounds(objs, None, "local", SelectionCache(objs))
    D = r.dampened()[1]
    assert D.max() < 2.0  # exact (NOT private) check of the premise
    r.release(0, [], 50.0 * appr.steps(3, 2)[0].share, np.random.default_rng(0))
    assert r.threshold == pytest.approx(2.0 * (math.log(1000) + 1.0) / (50.0 * 0.77 * 0.15))
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
