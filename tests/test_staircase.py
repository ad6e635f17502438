"""The staircase PrivChebyshev: exact audits of its releases and rounds on every graph with 5 nodes (edge
neighbours), a negative control that reads private values, the corners, the plan and the budget records."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from _five_node_graphs import CODES, FLIPS, audit_scores, distinct_objectives
from _five_node_graphs import graph as _graph
from dpmo import graphs
from dpmo.graphs.chebyshev import (
    GraphStaircaseApproach,
    degree_ranks,
    ego_from_dampened,
    graph_staircase_approach,
    top_first_probability,
)
from dpmo.mechanisms import probabilities_by_row
from dpmo.selection import SelectionCache, selection_plan
from dpmo.staircase import StaircaseApproach, local_lower_bounds, staircase_scores

# Public histories of a 3-pick selection on 5 nodes: (released degrees of the ranks 1, 2, 4, 5; then per
# earlier pick: (pick, released degree, released floor(dampened ego density)); the round's epsilon).
HISTORIES = [
    ((4, 3, 2, 1), [], 0.3),  # round 1 inside a window (small epsilon)
    ((4, 3, 2, 1), [], 50.0),  # round 1 without a window
    ((3, 3, 1, 0), [(0, 3, 1)], 2.0),
    ((4, 2, 2, 0), [(1, 4, 2), (3, 1, 0)], 0.5),
    ((2, 2, 1, 1), [(2, 2, 3), (0, 0, 0)], 20.0),
]


def replay_history(objs, sensitivity: str, formula: str, history, leak: bool = False, cache=None):
    """The graph default's rounds (n = 5, k = 3) after the public ``history`` (released degrees of the
    ranks; per earlier pick its released degree and floor of the dampened ego density; the next round's
    epsilon), begun: ``(rounds, chosen, remaining)``. ``leak``: the negative control, whose corners are the
    picks' exact (degree, ego density)."""
    appr = GraphStaircaseApproach(3, formula)
    rounds = appr.rounds(objs, None, sensitivity, cache)
    q, picks, eps = history
    chosen: list[int] = []
    rounds.receive(0, chosen, np.array(q), 1.0)
    for j, (p, d, D) in enumerate(picks, start=1):
        chosen.append(p)
        if leak:
            rounds.points.append(np.array([1.5 * objs[0].values[p], objs[1].values[p]]))
        else:
            rounds.receive(j, chosen, np.array([d, D]), 1.0)
    rounds.begin(len(picks), eps)
    return rounds, chosen, np.setdiff1d(np.arange(5), chosen)


def _round_scores(objs, sensitivity: str, formula: str, history, leak: bool = False, cache=None):
    """The scores of the next round after the public ``history`` (:func:`replay_history`)."""
    rounds, chosen, remaining = replay_history(objs, sensitivity, formula, history, leak, cache)
    s, sens = rounds.scores(chosen, remaining)
    assert sens == 1.0
    return s


@functools.cache
def _five_node(sensitivity: str, formula: str, low: float, leak: bool = False):
    """Per history, the (1024, remaining) round scores; and every graph's released integers."""
    scores = [[] for _ in HISTORIES]
    stats = []
    reps, group = distinct_objectives(low, formula)  # a row per distinct objectives, copied to their codes
    for objs in reps:
        cache = SelectionCache(objs)  # the dampened objectives over the public floor, shared by the histories
        for h, history in enumerate(HISTORIES):
            scores[h].append(_round_scores(objs, sensitivity, formula, history, leak, cache))
        r = GraphStaircaseApproach(3, formula).rounds(objs, None, sensitivity, cache)
        stats.append(np.concatenate([r.statistic(0, [])] + [r.statistic(1, [p]) for p in range(5)]))
    return [np.array(S)[group] for S in scores], np.array(stats)[group]


@pytest.mark.parametrize(
    "sensitivity,formula,low",
    [("local", "paper", 0.0), ("local", "published", 1.0), ("global", "paper", 0.0)],
)
@pytest.mark.slow
def test_exact_audit_of_the_staircase_on_all_graphs_with_five_nodes(sensitivity, formula, low):
    """Every graph on 5 nodes and every one-edge neighbour: (1) the released integers move little: the
    degrees of the ranks by at most 2 in L1 (discrete Laplace ``x = epsilon / 2``), each node's degree and
    floor(dampened ego density) by at most 1 each (``q = 1``; the pick release's two parts at ``x = epsilon /
    2`` each), so the releases are epsilon-DP; (2) for every public history (released
    values and picks), each round's scores move by at most 1 and the exact log-probabilities of the
    exponential mechanism and permute-and-flip differ by at most epsilon."""
    scores, stats = _five_node(sensitivity, formula, low)
    ranks = degree_ranks(5).size
    blocks = [slice(0, ranks)] + [slice(ranks + 2 * p, ranks + 2 * p + 2) for p in range(5)]
    for b in blocks:
        worst = max(np.abs(stats[:, b] - stats[f][:, b]).sum(axis=1).max() for f in FLIPS)
        assert 0 < worst <= 2
        if b.start >= ranks:  # a pick: each part by at most 1
            assert max(np.abs(stats[:, b] - stats[f][:, b]).max() for f in FLIPS) == 1
    for S in scores:
        change = max(np.abs(S - S[f]).max() for f in FLIPS)
        # > 0.2: not vacuous (the last history's round blends in the hypervolume gain, t = 0.21, over a
        # released box that covers most nodes: its scores move by up to 0.26)
        assert 0.2 < change <= 1.0 + 1e-9
        for mechanism in ("exponential", "permute_and_flip"):
            for eps in (0.5, 4.0):
                rows, inv = np.unique(S, axis=0, return_inverse=True)
                lp = probabilities_by_row(rows, eps, 1.0, mechanism=mechanism, log=True)
                lp = lp[inv.ravel()]
                assert max(np.abs(lp - lp[f]).max() for f in FLIPS) <= eps + 1e-9


@pytest.mark.slow
def test_negative_controls():
    """(1) Corners made of the picks' exact values instead of released ones: a round's scores move by more
    than 1 between neighbours (the audit above fails). (2) The degree release calibrated as if its
    sensitivity were 1 (``x = epsilon``): the exact probability of some output differs by more than
    e^epsilon between neighbours."""
    scores, stats = _five_node("local", "paper", 0.0, leak=True)
    assert max(max(np.abs(S - S[f]).max() for f in FLIPS) for S in scores[2:]) > 1.0
    eps = 1.0
    q = stats[:, : degree_ranks(5).size]
    # log P(v | x) = const - x |v - q(x)|_1; the worst output v gives a log-ratio of x |q(x) - q(y)|_1
    for x, ok in ((eps / 2, True), (eps, False)):
        worst = max(x * np.abs(q - q[f]).sum(axis=1).max() for f in FLIPS)
        assert (worst <= eps + 1e-12) == ok


def test_sorted_degree_sequence_moves_by_two():
    """The whole sorted degree sequence (every rank), on every graph with 5 nodes: L1 change exactly 2."""
    seq = np.array([np.sort(_graph(c).degree)[::-1] for c in CODES])
    for f in FLIPS:
        assert np.all(np.abs(seq - seq[f]).sum(axis=1) == 2)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)), min_size=0, max_size=5),
    st.tuples(st.integers(-1, 7), st.integers(-1, 7), st.integers(-1, 7)),
)
def test_local_lower_bounds_describe_the_region_not_dominated(points, y):
    """``y`` is above some local lower bound exactly when it is above the floor and no point weakly
    dominates it (three objectives, integer grid)."""
    P = np.array(points, dtype=float).reshape(-1, 3)
    L = local_lower_bounds(P, np.zeros(3))
    y = np.array(y, dtype=float)
    inside = bool(np.any(np.all(y > L, axis=1))) if L.size else False
    expected = bool(np.all(y > 0) and not np.any(np.all(y <= P, axis=1)))
    assert inside == expected
    assert not any(np.all(a <= b) and np.any(a < b) for a in L for b in L)  # no redundant bound


def test_two_objective_corners():
    L = local_lower_bounds([[7085.0, 0.003], [50.0, 0.58], [239.0, 0.09]], [0.0, 0.0])
    assert L.tolist() == [[0.0, 0.58], [50.0, 0.09], [239.0, 0.003], [7085.0, 0.0]]


def test_staircase_scores_and_the_greedy_argmax():
    """Global sensitivity: s(r) = max over corners of min_i (u_i - l_i) / Delta_i, by hand."""
    u = dpmo.Objective([5.0, 1.0, 4.0, 0.0, 3.0], 1.0)
    v = dpmo.Objective([1.0, 5.0, 4.0, 0.0, 3.0], 1.0)
    s = staircase_scores([u, v], [[0.0, 0.0]], "global")
    assert s.tolist() == [1.0, 1.0, 4.0, 0.0, 3.0]
    s = staircase_scores([u, v], local_lower_bounds([[4.0, 4.0]], [0.0, 0.0]), "global")
    assert s.tolist() == [1.0, 1.0, 0.0, -4.0, -1.0]  # (5, 1), (1, 5) escape (4, 4) by 1; (3, 3) is 1 short


def test_ego_from_dampened_inverts_dampening():
    """At the node's own degree, the inverse of its dampened ego density is its ego density."""
    import networkx as nx

    g = graphs.load_graph(nx.powerlaw_cluster_graph(300, 4, 0.5, seed=1), nodes=300)
    objs = graphs.objectives(g)
    D = dpmo.dampen(objs[1].values, objs[1].local, global_sensitivity=1.0)
    for v in np.flatnonzero(g.degree >= 3)[:50]:
        assert ego_from_dampened(D[v], float(g.degree[v])) == pytest.approx(objs[1].values[v], abs=1e-9)
        # a larger degree gives a lower ego density: the released upper bound on degree is conservative
        assert ego_from_dampened(D[v], float(g.degree[v]) + 5) <= objs[1].values[v] + 1e-12


def test_plan_records_and_exact_parts():
    """The plan is the one place deciding the split; the budget records each step's exact part, in order,
    right before it runs (releases with mechanism "laplace": the ranks' with sensitivity 2, a pick's two parts
    each with sensitivity 1 in its unit), summing to epsilon."""
    import networkx as nx

    g = graphs.load_graph(nx.powerlaw_cluster_graph(300, 3, 0.3, seed=2), nodes=300)
    budget = dpmo.Budget(3.0)
    ids = graphs.top_k(g, 3, 0.5, approach="staircase", rng=0, budget=budget)  # below the top-first plan
    assert len(set(ids.tolist())) == 3
    plan = GraphStaircaseApproach(3).steps(3, 2)
    assert [s.kind for s in plan] == ["release", "round", "release", "round", "release", "round"]
    assert sum(s.share for s in plan) == pytest.approx(1.0)
    ledger = budget.ledger
    assert len(ledger) == 6 and budget.spent_exact == Fraction(1, 2)
    assert [r.mechanism for r in ledger] == ["laplace", "exponential"] * 3
    assert [r.sensitivity for r in ledger] == [2.0, 1.0] + [1.0, 1.0] * 2
    assert "epsilon split 1:1" in ledger[2].what and "sensitivity q" in ledger[2].what
    for rec, step in zip(ledger[:-1], plan[:-1], strict=True):
        assert rec.epsilon == Fraction(1, 2) * Fraction(step.share)
    assert selection_plan(StaircaseApproach(), 3, 2)[1].kind == "release"


def test_pick_release_runs_two_parts_at_half_the_step_each(monkeypatch):
    """A pick release draws two discrete Laplace noises, the degree's at ``x_a = eps / 2`` and the ego
    part's at ``x_b = eps / (2 q)``, ``q = pick_quantum(eps / 2)`` (exact Fractions), added to the statistic
    (degree, floor(q D_ego)) of that ``q``; the point and the box read the lower edge of the released cell."""
    import networkx as nx

    from dpmo.graphs import chebyshev as C
    from dpmo.graphs.staircase_rules import pick_quantum

    g = graphs.load_graph(nx.powerlaw_cluster_graph(60, 3, 0.6, seed=2), nodes=60)
    objs = graphs.objectives(g)
    seen, draws = [], []

    def fake(size, x, rng):  # records each call's x; the draws alternate 1, -1, 1, ...
        seen.append(x)
        out = [1 if (len(draws) + i) % 2 == 0 else -1 for i in range(size)]
        draws.extend(out)
        return np.array(out, dtype=np.int64)

    monkeypatch.setattr(C, "sample_discrete_laplace", fake)
    for eps in (Fraction(3), Fraction(12), Fraction(1, 10), Fraction(61, 3)):
        seen.clear()
        draws.clear()
        r = GraphStaircaseApproach(3).rounds(objs, None, "local", SelectionCache(objs))
        r.receive(0, [], np.array([20, 15, 10, 8, 6, 4, 3, 2]), 1.0)
        r.release(1, [7], eps, None)
        q = pick_quantum(float(eps / 2))
        # q = 1: x_b = x_a, one call of two draws (the former release); else one call per part
        assert r.quantum() == q and seen == ([eps / 2] if q == 1 else [eps / 2, eps / 2 / q])
        want = r.statistic(1, [7]) + np.array([1, -1])
        assert r.boxes[-1] == C.point_box(want, q, 60)
        D = float(want[1]) / q
        assert r.points[-1][1] == pytest.approx(min(ego_from_dampened(D, min(want[0], 59.0)), 1.0))


def test_reproducible_distinct_and_generic_approach():
    rng = np.random.default_rng(0)
    objs = [dpmo.Objective(rng.integers(0, 50, 40), 1.0), dpmo.Objective(rng.integers(0, 50, 40), 1.0)]
    a = dpmo.select_multiobjective(objs, 3.0, approach="staircase", k=4, rng=1)
    b = dpmo.select_multiobjective(objs, 3.0, approach="staircase", k=4, rng=1)
    np.testing.assert_array_equal(a, b)
    assert len(set(a.tolist())) == 4
    # a huge epsilon follows the greedy argmax of the exact staircase (global units, integer values)
    big = dpmo.select_multiobjective(objs, 1e6, approach="staircase", sensitivity="global", k=3, rng=2)
    greedy = dpmo.selection.argmax_multiobjective(objs, approach="staircase", k=3, rng=2)
    assert big[0] == greedy[0]


def test_bad_settings_are_refused_before_any_spend():
    objs = [dpmo.Objective([1.0, 2.0, 3.0], 1.0), dpmo.Objective([3.0, 2.0, 1.0], 1.0)]
    budget = dpmo.Budget(1.0)
    for bad in (
        StaircaseApproach(release_share=1.0),
        StaircaseApproach(confidence=-1.0),
        StaircaseApproach(floor=[0.0]),
        StaircaseApproach(shares=[1.0, 0.0]),
    ):
        with pytest.raises(ValueError):
            dpmo.select_multiobjective(objs, 1.0, approach=bad, k=2, budget=budget)
    assert budget.spent == 0.0
    with pytest.raises(ValueError, match="k = 3"):
        dpmo.select_multiobjective(
            [dpmo.Objective([1.0, 2.0], 1.0)] * 2, 1.0, approach=GraphStaircaseApproach(3), k=2
        )


def test_delta_scales_every_release_and_round_as_one_call():
    """delta > 0: the accountant certifies the whole plan at once (releases as pure epsilon-DP Laplace
    steps, rounds as bounded-range picks); every record runs at its step's certified epsilon, in order, and
    the call's (epsilon, delta) is all the budget had."""
    import networkx as nx

    from dpmo.accounting import scaled_epsilons

    g = graphs.load_graph(nx.powerlaw_cluster_graph(300, 3, 0.3, seed=2), nodes=300)
    budget = dpmo.Budget(0.5, delta=1e-6)
    ids = graphs.top_k(g, 3, 0.5, approach="chebyshev", rng=0, budget=budget, delta=1e-6, exact=False)
    assert len(set(ids.tolist())) == 3
    plan = GraphStaircaseApproach(3).steps(3, 2)
    kinds = [s.mechanism or "exponential" for s in plan]
    expected = scaled_epsilons(0.5, [s.share for s in plan], delta=1e-6, kinds=kinds)
    ledger = budget.ledger
    assert [r.mechanism for r in ledger] == ["laplace", "exponential"] * 3
    assert [float(r.epsilon) for r in ledger] == pytest.approx(expected, rel=1e-12)
    # bounded-range composition buys the rounds more than their pure shares
    pure = [0.5 * s.share for s in plan]
    assert all(float(r.epsilon) >= p for r, p in zip(ledger, pure, strict=True) if r.mechanism != "laplace")
    with pytest.raises(dpmo.BudgetExceededError):
        graphs.top_k(g, 1, 0.01, approach="agg", rng=0, budget=budget)


# The top-first plan's rounds on 5 nodes (released degrees of the ranks 1, 2, 4, 5; the picks so far, none
# released; the round's epsilon). Its last round's window is shrunk to degree ranks 2 .. 3 exp(2 epsilon)
# so that both edges act on 5 nodes (closed at epsilon 0.2, the lower edge open at 4).
TOP_FIRST = [
    ((4, 3, 2, 1), [], 0.02),
    ((3, 3, 1, 0), [0], 0.02),
    ((4, 2, 2, 0), [1, 3], 0.2),
    ((2, 2, 1, 1), [2, 0], 4.0),
]


def _top_first_scores(objs, sensitivity: str, history, cache=None):
    appr = GraphStaircaseApproach(3, top_first=True, epsilon=1.0)
    appr.ego_window = (2.0, 3.0)
    rounds = appr.rounds(objs, None, sensitivity, cache)
    q, picks, eps = history
    rounds.receive(0, [], np.array(q), 1.0)
    rounds.begin(len(picks), eps)
    s, sens = rounds.scores(list(picks), np.setdiff1d(np.arange(5), picks))
    assert sens == 1.0
    return s


@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.slow
def test_exact_audit_of_the_top_first_rounds_on_all_graphs_with_five_nodes(sensitivity):
    """The top-first plan's rounds (two ``min(degree - W, 0)`` rounds, then the floor round inside a window
    with both edges): on every graph with 5 nodes and every one-edge neighbour, given the public history,
    every score moves by at most 1 (and by more than 0.3 somewhere) and the exact log-probabilities of the
    exponential mechanism and permute-and-flip differ by at most epsilon. Its only release is the ranks',
    audited above."""
    scores = [[] for _ in TOP_FIRST]
    reps, group = distinct_objectives()  # a row per distinct objectives, copied to their codes
    for objs in reps:
        cache = SelectionCache(objs)
        for h, history in enumerate(TOP_FIRST):
            scores[h].append(_top_first_scores(objs, sensitivity, history, cache))
    for S in (np.array(rows)[group] for rows in scores):
        audit_scores(S)


def test_top_first_plan_records_and_refusals():
    """At epsilon 1-2 (k = 3) the graph default runs the top-first plan: the ranks' release, two rounds at
    the same part each, at most round 1's share of the staircase plan (``top_round_share``), one round with
    the rest; recorded in that order, adding up to epsilon exactly."""
    import networkx as nx

    from dpmo.graphs import chebyshev as C

    g = graphs.load_graph(nx.powerlaw_cluster_graph(300, 3, 0.3, seed=2), nodes=300)
    budget = dpmo.Budget(1.5)
    ids = graphs.top_k(g, 3, 1.5, approach="chebyshev", rng=0, budget=budget)
    assert len(set(ids.tolist())) == 3
    ledger = budget.ledger
    assert [r.mechanism for r in ledger] == ["laplace", "exponential", "exponential", "exponential"]
    assert [r.sensitivity for r in ledger] == [2.0, 1.0, 1.0, 1.0]
    assert ledger[1].epsilon == ledger[2].epsilon
    assert 0 < float(ledger[1].epsilon) <= 1.5 * 0.15 * (1.0 - 0.03 - 2 * 0.06) + 1e-12
    assert float(ledger[0].epsilon) == pytest.approx(1.5 * C.TOP_QUANTILE_SHARE)
    assert budget.spent_exact == Fraction(3, 2)
    # the two top rounds take the two highest degrees when they stand thousands of edges above the rest
    star = graphs.load_graph(
        np.array([(h, j) for h in (0, 1) for j in range(2, 3000)] + [(2, 3), (3, 4), (2, 4)]), nodes=3000
    )
    for seed in range(3):
        assert sorted(graphs.top_k(star, 3, 1.0, rng=seed, approach="chebyshev")[:2].tolist()) == [0, 1]
    for bad in ({"k": 4}, {"epsilon": None}):
        with pytest.raises(ValueError, match="top_first"):
            GraphStaircaseApproach(bad.get("k", 3), top_first=True, epsilon=bad.get("epsilon", 1.0))


def test_top_first_probability_and_its_public_coin():
    """1 on [1, 2], falling linearly to 0 at 5, 0 below 1 and for k != 3; the coin is drawn from the call's
    rng only when 0 < p < 1, with frequency p (binomial bound, 2,000 draws)."""
    assert [top_first_probability(e, 3) for e in (0.1, 0.99, 1.0, 2.0, 2.6, 5.0, 50.0)] == pytest.approx(
        [0.0, 0.0, 1.0, 1.0, 0.8, 0.0, 0.0]
    )
    assert top_first_probability(1.5, 2) == top_first_probability(1.5, 4) == 0.0
    freq = np.mean([graph_staircase_approach(100, 3, epsilon=2.6, rng=s).top_first for s in range(2000)])
    assert abs(freq - 0.8) < 4 * (0.8 * 0.2 / 2000) ** 0.5
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert graph_staircase_approach(100, 3, epsilon=1.5, rng=rng).top_first
    assert rng.bit_generator.state == state  # no coin drawn where p is 0 or 1
    assert not graph_staircase_approach(100, 3, rng=rng).top_first  # no epsilon: the staircase


# ------------------------------------------------------------------ issue 41: work bounded at any epsilon
PATH5 = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])


def test_tiny_epsilon_runs_in_memory_bounded_by_public_quantities():
    """The releases' noise grows like 1 / epsilon; no array may follow it. At 1e-5 the inverse of dampening
    at a noisy degree bound allocated 51 MB on this 5-node path (seed 0; 7.5 GB at 1e-7): now the degree
    bound passed to it is at most n - 1 (public), and the call allocates kilobytes whatever epsilon is."""
    import tracemalloc

    g = graphs.load_graph(PATH5, nodes=5)
    graphs.top_k(g, 3, 1.0, approach="chebyshev", exact=False, rng=0)  # first-call costs apart
    for epsilon in (1e-5, 1e-15):
        for seed in range(2):
            for exact in (False, True):
                tracemalloc.start()
                try:
                    picks = graphs.top_k(g, 3, epsilon, approach="chebyshev", exact=exact, rng=seed)
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                assert len(set(picks.tolist())) == 3
                assert peak < 5e6, (epsilon, seed, exact, peak)


def test_discrete_laplace_sd_is_finite_below_1e_16():
    from dpmo.staircase import discrete_laplace_sd

    for x in (1e-3, 1e-12, 1e-17, 1e-300):
        sd = discrete_laplace_sd(x)
        assert np.isfinite(sd) and sd == pytest.approx(np.sqrt(2.0) / x, rel=1e-3)  # sqrt(2q) / (1 - q)


def test_the_5_node_call_at_1e_7_stays_under_300_mb():
    """Issue 41's figure: graphs.top_k(g, 3, 1e-7, approach="chebyshev") on 5 nodes peaked at 7.5 GB
    (exact=False) before the bound. Measured as the peak of the memory the calls allocate (tracemalloc
    traces numpy's arrays, where the growth was), not the process's resident size, which a cold numba
    compilation in a loaded test run can raise by hundreds of MB whatever the epsilon."""
    import tracemalloc

    g = graphs.load_graph(np.array([[0, 1], [1, 2], [2, 3], [3, 4]]), nodes=5)
    for seed in range(4):
        for exact in (False, True):
            tracemalloc.start()
            try:
                graphs.top_k(g, 3, 1e-7, approach="chebyshev", exact=exact, rng=seed)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 300e6, (seed, exact, peak)


def test_exact_discrete_laplace_below_1e_100():
    """The exact sampler divided by zero for some x below ~1e-100 (x = 1e-110: e^-(16 x) within the first
    enclosure's precision of 1); the enclosure is now widened to [0, 1] there, and more bits are taken."""
    from dpmo.mechanisms.exact import sample_discrete_laplace

    x = Fraction(1e-110)
    z = sample_discrete_laplace(4, x, np.random.default_rng(0))
    scale = 10**110  # the noise's standard deviation is about sqrt(2) / x
    assert all(abs(int(v)) < 100 * scale for v in z)
    assert sum(abs(int(v)) > scale // 1000 for v in z) >= 3  # P(|Z| <= sd / 1000) ~ 1 / 700 per draw


def test_the_shared_audit_catches_a_score_of_sensitivity_two():
    """The negative control of ``_five_node_graphs.audit_scores``: node degrees (sensitivity 1 under one
    edge) pass it; twice the degrees fail it."""
    S = np.array([np.asarray(_graph(c).degree, dtype=float) for c in CODES])
    audit_scores(S, (1.0,))
    with pytest.raises(AssertionError):
        audit_scores(2.0 * S, (1.0,))
