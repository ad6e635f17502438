"""PrivPareto at negligible noise (issue 38): the escape term's privacy and the public rule.

Neighbouring relation: add or remove one record (the 120 databases of ``test_privacy_multiobjective``,
up to 7 records of 3 types; count, rate and cost objectives with global sensitivity 1). The property
itself (every pick Pareto-optimal at epsilon 1e6 on generated tables) is in ``test_front_covering``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpmo
from dpmo.pareto import ParetoApproach
from dpmo.pareto.consistent import (
    PARETO_RESOLVE,
    ConsistentParetoRounds,
    escape,
    escape_weight,
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


_audit = audit_neighbours


@pytest.mark.slow
@pytest.mark.parametrize("names, kind", [CONFIGS[0], CONFIGS[2]])
@pytest.mark.parametrize("gamma", [0.5, 4.0])
def test_exact_audit_of_the_escape_term(names, kind, gamma):
    """``(PS + gamma H) / (n_j - 1 + 2 gamma)`` (H: the escape, copies of picks half-way) moves by at most 1
    and the exact output laws of both mechanisms are within e^epsilon on every database and neighbour, for
    every public history of earlier picks (whose values are private and move with the database); local and
    global sensitivity run the same score when the rule is on (the global Pareto score)."""
    nonvacuous = 0.0
    for chosen in HISTORIES:
        moved, excess = _audit(lambda c, ch=chosen: _scores(c, names, kind, "global", ch, gamma))
        assert moved <= 1.0 + 1e-9
        assert excess <= 1e-9
        nonvacuous = max(nonvacuous, moved)
    assert nonvacuous > 0.2
    c = CHECK[-1]
    for chosen in HISTORIES:
        np.testing.assert_array_equal(
            _scores(c, names, kind, "local", chosen, gamma), _scores(c, names, kind, "global", chosen, gamma)
        )


def test_exact_audit_of_the_escape_term_fast():
    """The fast tier's part of the audit above (three objectives, one weight, one history)."""
    names, kind = CONFIGS[2]
    moved, excess = _audit(lambda c: _scores(c, names, kind, "global", [1, 3], 4.0), (4.0,))
    assert 0.2 < moved <= 1.0 + 1e-9
    assert excess <= 1e-9


def test_escape_moves_by_at_most_two():
    names, kind = CONFIGS[2]
    worst = 0.0
    for chosen in HISTORIES[1:]:
        rest = np.setdiff1d(np.arange(N_CAND), chosen)

        def E(c, ch=chosen, rest=rest):
            U = np.stack([o.values / o.global_sensitivity for o in objectives(c, names, kind)])
            return escape(U[:, ch], U[:, rest])

        for c in CHECK:
            for y in neighbours(c):
                worst = max(worst, float(np.max(np.abs(E(c) - E(y)))))
    assert 0.5 <= worst <= 2.0


def test_negative_control_of_the_escape_audit():
    """The audit catches the round's sensitivity understated by 4 with the escape term dominating (on these
    databases E moves by about half its bound 2, so smaller understatements can stay within epsilon)."""
    names, kind = CONFIGS[2]
    worst = max(
        _audit(lambda c, ch=ch: _scores(c, names, kind, "global", ch, 20.0, understate=4.0), (4.0,))[1]
        for ch in HISTORIES[1:3]
    )
    assert worst > 0.5


def test_escape_values():
    P = np.array([[2.0, 0.0], [2.0, 5.0]])  # two earlier picks (columns): (2, 2) and (0, 5)
    Q = np.array([[2.0, 0.0, 3.0, 2.5, 2.0], [2.0, 4.0, 0.0, 1.0, 6.0]])
    # (2, 2) and (0, 4) are weakly dominated; (3, 0) beats (2, 2) by 1 and (0, 5) by 3; (2.5, 1) beats
    # (2, 2) by 0.5 only; (2, 6) beats both
    assert escape(P, Q).tolist() == [0.0, 0.0, 1.0, 0.5, 1.0]


def test_the_rule_is_public_and_its_weights_give_the_stated_margins():
    for n in (2, 3, 10, 400, 10**5):
        for eps in (1.0, 50.0, 1e3, 1e5, 1e7):
            x = resolution(n, eps, PARETO_RESOLVE)
            assert negligible_noise(n, eps) == (x * (3 * n - 3) <= 1)
            if negligible_noise(n, eps):
                g = escape_weight(n, eps)
                S = (n - 1) + 2 * g
                # one unit of E, minus what the Pareto score can take back (n - 2), is worth x after the
                # division by S; one unit of the Pareto score is worth at least x
                assert (g - (n - 2)) / S == pytest.approx(x)
                assert 1 / S >= x * (1 - 1e-12)
    assert math.isclose(resolution(400, 1e6 / 3, 0.0), 2 * math.log(400) / (1e6 / 3))
    assert not negligible_noise(400, 50.0) and negligible_noise(400, 1e6 / 3)


@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_outside_the_rule_the_rounds_are_the_papers_float_for_float(sensitivity):
    rng = np.random.default_rng(4)
    objs = [dpmo.Objective(rng.integers(0, 6, 40).astype(float), 1.0) for _ in range(3)]
    chosen = [3, 17]
    rest = np.setdiff1d(np.arange(40), chosen)
    ours = ConsistentParetoRounds(objs, sensitivity, None)
    ours.begin(2, 10.0)  # n_j = 38 needs eps_j >= 2 (ln 38 + 20)(111), about 5,200
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
