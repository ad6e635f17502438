"""PrivPareto at negligible noise (issue 38): the round's privacy, its public rule and why its picks are
Pareto-optimal.

Neighbouring relation: add or remove one record (the 120 databases of ``test_privacy_multiobjective``,
up to 7 records of 3 types; count, rate and cost objectives with global sensitivity 1; the rate's values
are fractions, off any grid of its sensitivity). The property itself (every pick Pareto-optimal at
epsilon 1e6 on generated tables and graphs) is in ``test_front_covering`` and
``test_graph_front_properties``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.pareto import ParetoApproach
from dpmo.pareto.consistent import (
    ESCAPE_WEIGHT,
    PARETO_RESOLVE,
    ConsistentParetoRounds,
    dominated_among,
    escape_or_copy,
    negligible_noise,
    resolution,
)
from dpmo.pareto.rounds import ParetoRounds
from test_privacy_multiobjective import CHECK, CONFIGS, N_CAND, audit_neighbours, neighbours, objectives

HISTORIES = [[], [0], [1, 3], [4, 2, 0]]


def _scores(c, names, kind, sensitivity, chosen, gamma, understate=1.0):
    """One round's scores divided by their stated sensitivity (sensitivity 1), the rule forced on."""
    rounds = ConsistentParetoRounds(objectives(c, names, kind), sensitivity, None, gamma=gamma)
    rounds.begin(len(chosen), 1.0)
    s, sens = rounds.scores(list(chosen), np.setdiff1d(np.arange(N_CAND), chosen))
    return s / sens * understate


@pytest.mark.slow
@pytest.mark.parametrize("names, kind", [CONFIGS[0], CONFIGS[2]])
@pytest.mark.parametrize("gamma", [0.5, ESCAPE_WEIGHT, 4.0])
def test_exact_audit_of_the_negligible_noise_round(names, kind, gamma):
    """``(-[dominated among the rows left] + gamma H) / (1 + 2 gamma)`` (round 1: the first term over 1)
    moves by at most 1 and the exact output laws of both mechanisms are within e^epsilon on every database
    and neighbour, for every public history of earlier picks (whose values are private and move with the
    database); local and global sensitivity run the same score when the rule is on."""
    nonvacuous = 0.0
    for chosen in HISTORIES:
        moved, excess = audit_neighbours(lambda c, ch=chosen: _scores(c, names, kind, "global", ch, gamma))
        assert moved <= 1.0 + 1e-9
        assert excess <= 1e-9
        nonvacuous = max(nonvacuous, moved)
    assert nonvacuous > 0.3
    c = CHECK[-1]
    for chosen in HISTORIES:
        np.testing.assert_array_equal(
            _scores(c, names, kind, "local", chosen, gamma), _scores(c, names, kind, "global", chosen, gamma)
        )


def test_exact_audit_of_the_negligible_noise_round_fast():
    """The fast tier's part of the audit above (three objectives, the public weight, two histories)."""
    names, kind = CONFIGS[2]
    for chosen in ([], [1, 3]):
        moved, excess = audit_neighbours(
            lambda c, ch=chosen: _scores(c, names, kind, "global", ch, ESCAPE_WEIGHT), (4.0,)
        )
        assert 0.3 < moved <= 1.0 + 1e-9
        assert excess <= 1e-9


def test_the_terms_move_within_their_ranges():
    """Brute force over the 120 databases and their neighbours, every history: the indicator "dominated
    among the rows left" moves by at most 1 and ``H`` by at most 2, and both bounds are reached (so the
    round's sensitivity ``1 + 2 gamma`` is not loose by design); the rate's values are off the grid of its
    sensitivity, where the former unit-based escape gave fractions."""
    names, kind = CONFIGS[2]
    worst_d = worst_h = 0.0
    for chosen in HISTORIES:
        rest = np.setdiff1d(np.arange(N_CAND), chosen)

        def terms(c, ch=chosen, rest=rest):
            V = np.stack([o.values for o in objectives(c, names, kind)])
            d = dominated_among(V[:, rest]).astype(float)
            return d, (escape_or_copy(V[:, ch], V[:, rest]) if ch else np.zeros(rest.size))

        for c in CHECK:
            dc, hc = terms(c)
            for y in neighbours(c):
                dy, hy = terms(y)
                worst_d = max(worst_d, float(np.max(np.abs(dc - dy))))
                worst_h = max(worst_h, float(np.max(np.abs(hc - hy))))
    assert worst_d == 1.0
    assert worst_h == 2.0


def test_negative_control_of_the_audit():
    """The audit catches the round's sensitivity understated by 3 (with ``H`` dominating)."""
    names, kind = CONFIGS[2]
    worst = max(
        audit_neighbours(
            lambda c, ch=ch: _scores(c, names, kind, "global", ch, 20.0, understate=3.0), (4.0,)
        )[1]
        for ch in HISTORIES[1:3]
    )
    assert worst > 0.5


def test_escape_values():
    P = np.array([[2.0, 0.0], [2.0, 5.0]])  # two earlier picks (columns): (2, 2) and (0, 5)
    Q = np.array([[2.0, 0.0, 3.0, 2.5, 2.0, 0.0], [2.0, 4.0, 0.0, 1.0, 6.0, 5.0]])
    # (2, 2) and (0, 4) are weakly dominated; (3, 0) beats (2, 2) by 1 and (0, 5) by 3; (2.5, 1) beats
    # (2, 2) by 0.5 only; (2, 6) beats both; (0, 5) is a copy of a pick. H counts any strict excess,
    # however small (no unit): (2.5, 1) escapes as fully as (2, 6)
    assert escape_or_copy(P, Q).tolist() == [1.0, 0.0, 2.0, 2.0, 2.0, 1.0]


_POINTS = st.integers(1, 4).flatmap(
    lambda m: st.lists(
        st.lists(st.sampled_from([0.0, 0.25, 1.0 / 3.0, 0.5, 1.0, 2.0, -0.0]), min_size=m, max_size=m),
        min_size=1,
        max_size=12,
    )
)


@settings(max_examples=200, deadline=None)
@given(_POINTS, st.data())
def test_terms_equal_their_definitions(points, data):
    X = np.array(points, dtype=float)  # (q, m) rows; -0.0 and 0.0 are the same value
    n = len(X)
    want = [any(np.all(X[j] >= X[i]) and np.any(X[j] > X[i]) for j in range(n)) for i in range(n)]
    assert dominated_among(X.T).tolist() == want
    picks = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    P = X[picks]
    h = []
    for r in X:
        if all(np.any(r > p) for p in P):
            h.append(2.0)
        elif any(np.all(r == p) for p in P):
            h.append(1.0)
        else:
            h.append(0.0)
    assert escape_or_copy(P.T, X.T).tolist() == h


@settings(max_examples=200, deadline=None)
@given(_POINTS.filter(lambda p: len(p) >= 2), st.data())
def test_the_best_rows_are_pareto_optimal_and_lead_by_one_unit(points, data):
    """The proof of ``docs/pareto.md`` ("PrivPareto at negligible noise"), checked on its own: after any
    history of Pareto-optimal picks, while a Pareto-optimal row is left, every row of the largest score is
    Pareto-optimal in the whole table (picks included), it leads every other row by at least one unit
    (``1 / 3`` of the sensitivity), and it is a copy of a pick only when no Pareto-optimal row that
    escapes every pick is left. Off any grid of values (fractions, ties, -0.0)."""
    X = np.array(points, dtype=float)
    n = len(X)
    dom = dominated_among(X.T)
    front = np.flatnonzero(~dom)
    picks = sorted(set(data.draw(st.lists(st.sampled_from(front.tolist()), max_size=min(3, n - 1)))))
    rest = np.setdiff1d(np.arange(n), picks)
    if not np.any(~dom[rest]):
        return
    objs = [dpmo.Objective(X[:, i], 1.0) for i in range(X.shape[1])]
    rounds = ConsistentParetoRounds(objs, "global", None, gamma=ESCAPE_WEIGHT)
    rounds.begin(len(picks), 1.0)
    s, sens = rounds.scores(picks, rest)
    assert sens == (3.0 if picks else 1.0)
    best = s == s.max()
    assert not np.any(dom[rest[best]])
    if np.any(~best):
        assert s.max() - s[~best].max() >= 1.0
    if picks:
        h = escape_or_copy(X[picks].T, X[rest].T)
        if np.any((h == 2.0) & ~dom[rest]):
            assert np.all(h[best] == 2.0)


def test_the_rule_is_public_and_resolves_one_unit():
    for n in (2, 3, 10, 400, 10**5):
        for eps in (1.0, 50.0, 150.0, 200.0, 1e3, 1e5, 1e7):
            x = resolution(n, eps, PARETO_RESOLVE)
            assert negligible_noise(n, eps) == (3 * x <= 1)
            if negligible_noise(n, eps):  # one unit of a score of sensitivity 3 is worth at least x
                assert 1.0 / (1.0 + 2.0 * ESCAPE_WEIGHT) >= x * (1 - 1e-12)
    assert math.isclose(resolution(400, 1e6 / 3, 0.0), 2 * math.log(400) / (1e6 / 3))
    assert not negligible_noise(400, 50.0) and negligible_noise(400, 1e6 / 3)
    # 6 (ln n + 20): about 189 per round at 10^5 candidates, so epsilon 1e6 is negligible for every n here
    assert negligible_noise(10**5, 190.0) and not negligible_noise(10**5, 180.0)
    assert not negligible_noise(1, 1e9) and not negligible_noise(10, None)


@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_outside_the_rule_the_rounds_are_the_papers_float_for_float(sensitivity):
    rng = np.random.default_rng(4)
    objs = [dpmo.Objective(rng.integers(0, 6, 40).astype(float), 1.0) for _ in range(3)]
    chosen = [3, 17]
    rest = np.setdiff1d(np.arange(40), chosen)
    ours = ConsistentParetoRounds(objs, sensitivity, None)
    ours.begin(2, 10.0)  # n_j = 38 needs eps_j >= 6 (ln 38 + 20), about 142
    paper = ParetoRounds(objs, sensitivity, None)
    a, sa = ours.scores(chosen, rest)
    b, sb = paper.scores(chosen, rest)
    np.testing.assert_array_equal(a, b)
    assert sa == sb
    for seed in range(3):
        assert (
            dpmo.select_multiobjective(
                objs, 5.0, approach="pareto", k=3, rng=seed, sensitivity=sensitivity
            ).tolist()
            == dpmo.select_multiobjective(
                objs, 5.0, approach=ParetoApproach(consistent=False), k=3, rng=seed, sensitivity=sensitivity
            ).tolist()
        )
    with pytest.raises(TypeError, match="consistent"):
        ParetoApproach(consistent="yes")


def test_off_grid_values_at_negligible_noise_control():
    """A table whose first objective steps by 0.01 with sensitivity 1 (off its grid): at epsilon 1e6 the
    consistent rounds never pick a dominated row; the paper's rounds (``consistent=False``) do."""
    X = np.array([[1.0, 0.0], [0.99, 5.0], [0.98, 5.0], [0.97, 5.0], [0.0, 6.0]])
    objs = [dpmo.Objective(X[:, i], 1.0) for i in range(2)]
    dom = dominated_among(X.T)
    bad_new = bad_paper = 0
    for seed in range(30):
        for sens in ("local", "global"):
            p = dpmo.select_multiobjective(objs, 1e6, approach="pareto", k=3, rng=seed, sensitivity=sens)
            bad_new += int(dom[p].sum())
            q = dpmo.select_multiobjective(
                objs, 1e6, approach=ParetoApproach(consistent=False), k=3, rng=seed, sensitivity=sens
            )
            bad_paper += int(dom[q].sum())
    assert bad_new == 0
    assert bad_paper > 0


@pytest.mark.parametrize("chosen", [[], [0], [1, 3]])
def test_exact_audit_of_the_negligible_noise_round_on_every_graph_with_five_nodes(chosen):
    """Edge-level neighbours (``_five_node_graphs``: every graph on 5 labelled nodes, every one-edge
    neighbour): with degree and ego density as objectives (ego densities are fractions, off any grid of
    their sensitivity 1), the rule's scores over their sensitivity move by at most 1 (and by 1/3 or more
    somewhere), and the exact laws of the exponential mechanism and permute-and-flip are within e^epsilon,
    for public histories of picks; local and global sensitivity give the same scores. Negative control: the
    sensitivity understated by 3 is caught."""
    from _five_node_graphs import audit_scores, scores_on_every_graph

    rest = np.setdiff1d(np.arange(5), chosen)

    def score_of(sensitivity, objs, cache):
        rounds = ConsistentParetoRounds(objs, sensitivity, None, gamma=ESCAPE_WEIGHT)
        rounds.begin(len(chosen), 1.0)
        s, sens = rounds.scores(list(chosen), rest)
        return s / sens

    local, glob = scores_on_every_graph(["local", "global"], score_of)
    np.testing.assert_array_equal(local, glob)
    audit_scores(glob, acts=0.3)
    with pytest.raises(AssertionError):  # negative control: the sensitivity understated by 3
        audit_scores(3.0 * glob, acts=0.3)
