"""Issue 38 (tables without declared ranges): the Pareto gate of ``chebyshev`` and of the corner staircase.

Without a declared range on some objective the scores have no public span; the gate then takes the largest
weight the round's resolution allows (``dpmo.chebyshev_gate.gate_span``; docs/pareto.md, "Without declared
ranges"). Checked here:

* the rule itself (public weights, the gated round's sensitivity, the span it covers);
* exact audits of the gated rounds (``chebyshev`` and the corner staircase, no bounds) on every small
  database of ``test_privacy_multiobjective`` (add/remove one record), local and global, with a negative
  control;
* the property on generated tables without bounds: at epsilon 1e6 no pick is dominated while a front row
  is left, whenever the public condition (the columns' widths in sensitivity units within the gate's span)
  holds; controls where the rounds without the gate pick a dominated row.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpmo
import dpmo.chebyshev_gate as cg
from dpmo.chebyshev import AUGMENT, ChebyshevApproach
from dpmo.pareto.consistent import RESOLVE, resolution
from dpmo.staircase import StaircaseApproach, StaircaseRounds
from test_front_covering import (
    COLUMNS,
    _on_front_while_front_rows_left,
    _strictly_dominated,
    front_copy_tables,
    tables,
)
from test_privacy_multiobjective import CONFIGS, N_CAND, audit_neighbours
from test_privacy_multiobjective import objectives as db_objectives

HISTORIES = [[], [0], [1, 3], [4, 2, 0]]


# ------------------------------------------------------------------------------------------------ the rule
@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 10**6),
    st.floats(1e-3, 1e9),
    st.floats(0.01, 10.0),
    st.lists(st.floats(1e-4, 1.0), min_size=1, max_size=4),
)
def test_gate_weights_without_ranges(n_left, epsilon, scale, e):
    """``span=None``: on exactly when :func:`gate_span` covers one unit of the finest objective; then ``S = 1
    + 2 gamma`` (the gated round's sensitivity, ``G`` moving by at most 2), the round still resolves one
    unit (``x S scale <= e_min``), one unit of ``G`` outweighs any lead of at most ``gate_span`` by ``x S``,
    and a larger epsilon never gives a smaller span."""
    x = resolution(n_left, epsilon, RESOLVE)
    span = cg.gate_span(n_left, epsilon, scale, e)
    got = cg.gate_weights(n_left, epsilon, scale, None, e)
    assert span >= 0.0
    assert cg.gate_span(n_left, 2.0 * epsilon, scale, e) >= span
    if got is None:
        assert span * scale < min(e) or 2 * x >= 1
        assert not cg.gate_on(n_left, epsilon, scale, None, e)
        return
    gamma, S = got
    assert span * scale >= min(e) and cg.gate_on(n_left, epsilon, scale, None, e)
    assert math.isclose(S, 1.0 + 2.0 * gamma, rel_tol=1e-9)
    assert x * S * scale <= min(e) * (1 + 1e-9)
    assert gamma - span >= x * S - 1e-9 * gamma  # (the difference of two large floats)
    # the declared-range rule at the same span gives the same weights
    assert cg.gate_weights(n_left, epsilon, scale, span, e) == pytest.approx(got, rel=1e-9)


def test_gate_span_grows_with_epsilon_and_is_off_at_moderate_budgets():
    """400 rows, k = 3, sensitivity units: off at epsilon 50 and 300 (per round 17 and 100), on from about
    eps_j = 120; at epsilon 1e6 it covers about ``eps_j / (4 (ln n_j + 6))`` units (6,880)."""
    assert cg.gate_weights(400, 50 / 3, 1.01, None, [1.0]) is None
    assert cg.gate_weights(400, 100.0, 1.01, None, [1.0]) is None
    assert cg.gate_weights(400, 200.0, 1.01, None, [1.0]) is not None
    span = cg.gate_span(400, 1e6 / 3, 1.01, [1.0])
    assert 0.95 < span * 1.01 / ((1e6 / 3) / (4 * (math.log(400) + RESOLVE))) < 1.0


# --------------------------------------------------------------------------------------------- exact audits
def _cheb_scores(c, names, kind, sensitivity, chosen, w, understate=1.0):
    """One chebyshev round without bounds with its gate on (eps_j = 1e4), divided to sensitivity 1."""
    objs = db_objectives(c, names, kind)
    rounds = ChebyshevApproach(directions=w).rounds(objs, None, sensitivity, None)
    rounds.begin(len(chosen), 1e4)
    s, sens = rounds.scores(list(chosen), np.setdiff1d(np.arange(N_CAND), chosen))
    assert sens > 1.0 and "Pareto gate" in rounds.score_name
    return s / sens * understate


def _corner_scores(c, names, kind, sensitivity, chosen, understate=1.0):
    """One round of the corner staircase without bounds with its gate on (eps_j = 1e4): the released points
    of the earlier picks are public (fixed here), their exact values private (they move with ``c``)."""
    objs = db_objectives(c, names, kind)
    m = len(objs)
    rounds = StaircaseRounds(objs, sensitivity, np.zeros(m), 1.0, {})
    rounds.augment = True
    rounds.points = [np.linspace(1.5, -0.5, m) + 0.25 * j for j in range(len(chosen))]
    rounds.begin(len(chosen), 1e4)
    s, sens = rounds.scores(list(chosen), np.setdiff1d(np.arange(N_CAND), chosen))
    assert sens > 1.0 and "Pareto gate" in rounds.score_name
    return s / sens * understate


@pytest.mark.slow
def test_exact_audit_of_the_gates_without_ranges():
    """Every gated round (chebyshev along two directions, the corner staircase; four public histories;
    local dampening: the fast test below audits the global sensitivity) moves every score by at most 1
    after its division, and the exact output laws of the exponential mechanism and permute-and-flip are
    within e^epsilon, on all 120 databases and their neighbours."""
    sensitivity = "local"
    names, kind = CONFIGS[2]
    m = len(names)
    worst = 0.0
    for chosen in HISTORIES:
        fns = [lambda c, ch=chosen: _corner_scores(c, names, kind, sensitivity, ch)]
        for w in ([1.0] * m, [1.0] + [3.0] * (m - 1)):
            fns.append(lambda c, ch=chosen, w=w: _cheb_scores(c, names, kind, sensitivity, ch, w))
        for fn in fns:
            moved, excess = audit_neighbours(fn)
            assert moved <= 1.0 + 1e-9
            assert excess <= 1e-9
            worst = max(worst, moved)
    assert worst > 0.05  # not vacuous: the gated scores move


def test_exact_audit_of_the_gates_without_ranges_fast():
    """The fast tier's part: global sensitivity, one history, both approaches."""
    names, kind = CONFIGS[2]
    for fn in (
        lambda c: _cheb_scores(c, names, kind, "global", HISTORIES[2], [1.0, 3.0, 3.0]),
        lambda c: _corner_scores(c, names, kind, "global", HISTORIES[2]),
    ):
        moved, excess = audit_neighbours(fn, eps_list=(4.0,))
        assert 0.05 < moved <= 1.0 + 1e-9
        assert excess <= 1e-9


def test_negative_control_of_the_gates_without_ranges_audit():
    """The audit catches the gated rounds with their sensitivity understated by 4."""
    names, kind = CONFIGS[2]
    for fn in (
        lambda c: _cheb_scores(c, names, kind, "global", HISTORIES[1], [1.0, 1.0, 1.0], understate=4.0),
        lambda c: _corner_scores(c, names, kind, "global", HISTORIES[1], understate=4.0),
    ):
        _, excess = audit_neighbours(fn, eps_list=(4.0,))
        assert excess > 0.5


# ---------------------------------------------------------------------------- the property at epsilon 1e6
def _unbounded(vals, spec, keep=()):
    """The objectives without bounds (the columns in ``keep`` keep theirs)."""
    return [
        dpmo.Objective(v, u, bounds=b if i in keep else None, name=f"o{i}")
        for i, (v, (u, b)) in enumerate(zip(vals, spec, strict=True))
    ]


def _smallest_round_epsilon(approach, objs, k: int, epsilon: float) -> float:
    """The smallest epsilon of a round in the approach's public plan."""
    if approach != "staircase":
        return epsilon / k
    appr = StaircaseApproach().resolved(objs)
    return epsilon * min(s.share for s in appr.steps(k, len(objs)) if s.kind == "round")


def _covered(vals, spec, objs, approach: str, k: int, epsilon: float) -> bool:
    """The public condition of the gate's guarantee in every round: the columns' widths in sensitivity
    units (the most two scores can differ) within :func:`dpmo.chebyshev_gate.gate_span` at the round's
    epsilon (the largest ``n_j``, the smallest ``eps_j``; the scores' divisor at least 1)."""
    width = max((b[1] - b[0]) / u for u, b in spec)
    eps_j = _smallest_round_epsilon(approach, objs, k, epsilon)
    return width * (1.0 + AUGMENT) <= cg.gate_span(vals.shape[1], eps_j, 1.0 + AUGMENT, [1.0])


def _front(vals):
    return [i for i in range(vals.shape[1]) if not _strictly_dominated(vals, i, np.arange(vals.shape[1]))]


def _check_on_front(vals, spec, k, seed):
    n = vals.shape[1]
    k = min(k, n)
    objs = _unbounded(vals, spec)
    front = _front(vals)
    for approach in ("chebyshev", "staircase"):
        assert _covered(vals, spec, objs, approach, k, 1e6)
        for sens in ("local", "global"):
            picks = dpmo.select_multiobjective(
                objs, 1e6, approach=approach, k=k, rng=seed, exact=False, sensitivity=sens
            ).tolist()
            _on_front_while_front_rows_left(vals, picks, front)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 4), st.integers(0, 2**16))
def test_no_dominated_pick_without_ranges_at_negligible_noise(table, k, seed):
    """epsilon 1e6, no bounds declared: every pick of chebyshev and of the corner staircase (local and
    global) is a front row while an unpicked front row is left (2 to 5 objectives, mixed units, ties,
    minimised columns, heavy tails; the public condition of the gate's guarantee asserted)."""
    vals, spec = table
    _check_on_front(vals, spec, k, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(fine=100), st.integers(1, 4), st.integers(0, 2**16))
def test_no_dominated_pick_without_ranges_off_the_grid(table, k, seed):
    """The same on values a hundred times finer than their sensitivities (the gate reads strict excesses)."""
    vals, spec = table
    _check_on_front(vals, spec, k, seed)


def test_gates_without_ranges_are_needed(monkeypatch):
    """Controls: without the gate, chebyshev picks (9, 9), in the shadow of its first pick (10, 10), and the
    corner staircase picks (10, 9), which its first pick dominates but which escapes the released point by
    its confidence margin; with the gate neither does, in any of 10 seeds."""
    cheb = (np.array([[10.0, 9.0, 0.0, 20.0], [10.0, 9.0, 20.0, 0.0]]), "chebyshev", 1)
    corner = (np.array([[10.0, 10.0, 0.0], [10.0, 9.0, 15.0]]), "staircase", 1)
    for vals, approach, bad in (cheb, corner):
        objs = [dpmo.Objective(v, 1.0) for v in vals]
        for seed in range(10):
            picks = dpmo.select_multiobjective(objs, 1e6, approach=approach, k=2, rng=seed, exact=False)
            assert bad not in picks.tolist(), (approach, picks)
    monkeypatch.setattr(cg, "gate_weights", lambda *args: None)
    for vals, approach, bad in (cheb, corner):
        objs = [dpmo.Objective(v, 1.0) for v in vals]
        picks = dpmo.select_multiobjective(objs, 1e6, approach=approach, k=2, rng=0, exact=False)
        assert bad in picks.tolist(), (approach, picks)


def test_gate_off_at_moderate_budgets_without_ranges():
    """Below the switch the rounds are the former ones, seed for seed: epsilon 50 on 40 rows, k = 3."""
    rng = np.random.default_rng(3)
    unit, width = COLUMNS[1]
    objs = [dpmo.Objective(rng.integers(0, int(width), 40).astype(float), unit) for _ in range(3)]
    for approach, plain in (("chebyshev", ChebyshevApproach(ties=False)), ("staircase", None)):
        for seed in range(5):
            a = dpmo.select_multiobjective(objs, 50.0, approach=approach, k=3, rng=seed, exact=False)
            if plain is not None:
                b = dpmo.select_multiobjective(objs, 50.0, approach=plain, k=3, rng=seed, exact=False)
                assert a.tolist() == b.tolist()
    rounds = StaircaseApproach().resolved(objs).rounds(objs, None, "local", None)
    rounds.begin(0, 50.0 / 3)
    assert rounds.scores([], np.arange(40))[1] == 1.0


def test_the_benchmark_without_ranges_runs(capsys):
    """``benchmarks/front_unbounded.py`` (the measurements of docs/pareto.md, "Without declared ranges") runs
    at a tiny size, and at epsilon 1e6 its first tables get no dominated pick beyond the forced ones."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "front_unbounded.py"
    spec = importlib.util.spec_from_file_location("front_unbounded", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--tables", "1", "--runs", "2", "--epsilons", "1e6"])
    out = capsys.readouterr().out
    assert "| table | approach | 1e+06 |" in out and "dominated picks, staircase: 1e+06:" in out
    rs = np.random.default_rng(11)
    for _ in range(2):
        P, objs = mod.random_table(rs)
        front = np.flatnonzero(~mod.dominated_rows(P)).tolist()
        for approach in ("chebyshev", "staircase"):
            picks = dpmo.select_multiobjective(objs, 1e6, approach=approach, k=3, rng=0, exact=False)
            _on_front_while_front_rows_left(P.T, picks.tolist(), front)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(max_m=4), st.integers(0, 2**16), st.integers(-6, 6), st.data())
def test_unit_free_without_ranges(table, seed, power, data):
    """Without bounds, multiplying an objective and its sensitivity by 2^power gives the same picks with
    the same seed, at epsilon 2 and at 1e6 (the gate on: its weights read sensitivities in their own units,
    and its dominance no unit)."""
    vals, spec = table
    i = data.draw(st.integers(0, vals.shape[0] - 1))
    c = 2.0**power
    scaled = [
        (v * c, u * c) if j == i else (v, u) for j, (v, (u, _)) in enumerate(zip(vals, spec, strict=True))
    ]
    k = min(3, vals.shape[1])
    for epsilon in (2.0, 1e6):
        for approach in ("chebyshev", "staircase"):
            a = dpmo.select_multiobjective(
                _unbounded(vals, spec), epsilon, approach=approach, k=k, rng=seed, exact=False
            )
            b = dpmo.select_multiobjective(
                [dpmo.Objective(v, u, name=f"o{j}") for j, (v, u) in enumerate(scaled)],
                epsilon,
                approach=approach,
                k=k,
                rng=seed,
                exact=False,
            )
            assert a.tolist() == b.tolist(), (approach, epsilon)


def test_cli_explain_prints_the_gate_without_ranges(tmp_path, capsys):
    """``dpmo select --explain`` without ranges says in which rounds the gate is on and the column width it
    covers there (``gate_span`` at the round's n and epsilon; public), and that it is off at epsilon 10."""
    from dpmo.cli import main
    from dpmo.selection import selection_plan

    rng = np.random.default_rng(3)
    path = tmp_path / "t.csv"
    rows = zip(rng.integers(0, 300, 50), np.round(rng.uniform(0.5, 1, 50), 3), strict=True)
    path.write_text("a,b\n" + "".join(f"{x},{y}\n" for x, y in rows))
    for approach in ("chebyshev", "staircase"):
        for epsilon, on in (("1e6", True), ("10", False)):
            argv = ["select", str(path), "--objective", "a=1", "--objective", "b=0.001", "-k", "3"]
            argv += ["--epsilon", epsilon, "--approach", approach, "--explain"]
            assert main(argv) == 0
            line = next(x for x in capsys.readouterr().out.splitlines() if "Pareto gate without ranges" in x)
            if not on:
                assert "off" in line
                continue
            plan = [step for step in selection_plan(approach, 3, 2) if step.kind == "round"]
            for j, step in enumerate(plan):
                span = cg.gate_span(50 - j, 1e6 * step.share, 1.0 + AUGMENT, [1.0])
                assert f"{j + 1} ({span:,.0f})" in line, (approach, line)


# ------------------------------------------------------------------------- the weights each round takes
def test_each_gated_round_takes_the_rules_weights():
    """The sensitivity ``S`` a gated round hands to the mechanism is the rule's, computed here from its
    definition: chebyshev without ranges (a direction with a zero weight on a declared objective, whose
    finer resolution must not count), chebyshev with every range declared (``S = (1 + 2 sigma) / (1 - 2x)``,
    ``sigma = (1 + rho m') / S_c``, ``S_c = max_i c_i d_i + rho sum_i d_i``), and the corner staircase
    (scale ``1 + rho m``, ``e = 1``)."""
    rng = np.random.default_rng(4)
    n, eps = 30, 1e5
    rate = np.round(rng.uniform(0.5, 1.0, n), 3)
    count = rng.integers(0, 300, n).astype(float)
    # chebyshev, mixed, direction (0, 1): only the undeclared count is used (d = 1, e = 1)
    objs = [dpmo.Objective(rate, 0.001, bounds=(0.5, 1.0)), dpmo.Objective(count, 1.0)]
    rounds = ChebyshevApproach(directions=[[0.0, 1.0]]).rounds(objs, None, "global", None)
    rounds.begin(0, eps)
    S = rounds.scores([], np.arange(n))[1]
    assert S == pytest.approx(cg.gate_weights(n, eps, 1.0 + AUGMENT, None, [1.0])[1], rel=1e-12)
    # chebyshev, both ranges declared, direction (1, 3): c = (1, 1/3), d = (0.002, 1/300)
    objs = [dpmo.Objective(rate, 0.001, bounds=(0.5, 1.0)), dpmo.Objective(count, 1.0, bounds=(0.0, 300.0))]
    rounds = ChebyshevApproach(directions=[[1.0, 3.0]]).rounds(objs, None, "global", None)
    rounds.begin(0, 1e6)
    S = rounds.scores([], np.arange(n))[1]
    d, c, rho = np.array([0.002, 1 / 300]), np.array([1.0, 1 / 3]), AUGMENT / 2
    S_c = max(c * d) + rho * d.sum()
    x6 = resolution(n, 1e6, RESOLVE)
    assert S == pytest.approx((1 + 2 * (1 + 2 * rho) / S_c) / (1 - 2 * x6), rel=1e-12)
    # the corner staircase, no ranges
    objs = [dpmo.Objective(rate, 0.001), dpmo.Objective(count, 1.0)]
    rounds = StaircaseRounds(objs, "global", np.zeros(2), 1.0, {})
    rounds.augment = True
    rounds.begin(0, eps)
    S = rounds.scores([], np.arange(n))[1]
    assert S == pytest.approx(cg.gate_weights(n, eps, 1.0 + AUGMENT, None, [1.0, 1.0])[1], rel=1e-12)
    assert S > 1.0  # the gate is on


def test_the_declared_range_condition_is_exact():
    """With a declared span the gate is on exactly when ``x S scale <= e_min`` (up to float rounding): off
    half a percent above the bound, on half a percent below it."""
    n, scale, e = 50, 0.01, [0.002]
    for span in (5.0, 40.0, 400.0):

        def ratio(eps, span=span):
            x = resolution(n, eps, RESOLVE)
            return x * (1 + 2 * span) / (1 - 2 * x) * scale / e[0]

        lo, hi = 1.0, 1e12  # the epsilon where the ratio crosses 1, by bisection in log space
        for _ in range(200):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if ratio(mid) <= 1.0 else (mid, hi)
        assert cg.gate_on(n, hi * 1.005, scale, span, e) and not cg.gate_on(n, lo / 1.005, scale, span, e)


def test_adjacent_floats_are_told_apart():
    """A rate and the next float up (equal once divided by the sensitivity 0.001): the row with the larger
    one dominates, and at 1e6 the gate never picks the other while it is left (the gate reads the values
    as declared, not in units of their sensitivities; a review found 11 of 20 seeds picking it)."""
    rng = np.random.default_rng(0)
    while True:
        a = float(rng.uniform(0.5, 1.0))
        b = math.nextafter(a, 2.0)
        if a / 0.001 == b / 0.001:
            break
    objs = [dpmo.Objective([a, b, 0.6], 0.001), dpmo.Objective([0.7, 0.7, 0.9], 0.001)]
    for approach in ("chebyshev", "staircase"):
        for sens in ("global", "local"):
            for seed in range(10):
                picks = dpmo.select_multiobjective(
                    objs, 1e6, approach=approach, k=2, rng=seed, exact=False, sensitivity=sens
                ).tolist()
                assert 0 not in picks, (approach, sens, picks)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(front_copy_tables(), st.integers(1, 3), st.integers(0, 2**16))
def test_new_front_points_before_copies_before_dominated_rows_without_ranges(table, extra, seed):
    """epsilon 1e6, no ranges, k = the distinct front points plus 1-3: every pick is a new front point
    while one is left, then a copy of a picked point while a front row is left (``G`` is 2, 1 and 0 on
    them)."""
    vals, spec = table
    n = vals.shape[1]
    front = _front(vals)
    points = {tuple(vals[:, f]) for f in front}
    k = min(len(points) + extra, n)
    objs = _unbounded(vals, spec)
    assert _covered(vals, spec, objs, "chebyshev", k, 1e6) and _covered(vals, spec, objs, "staircase", k, 1e6)
    for approach in ("chebyshev", "staircase"):
        picks = dpmo.select_multiobjective(objs, 1e6, approach=approach, k=k, rng=seed, exact=False).tolist()
        for j, p in enumerate(picks):
            taken = {tuple(vals[:, q]) for q in picks[:j]}
            if points - taken:
                assert p in front and tuple(vals[:, p]) not in taken, (approach, j, picks)
            elif set(front) - set(picks[:j]):
                assert p in front, (approach, j, picks)


def test_cli_explain_gate_threshold_and_mixed_tables(tmp_path, capsys):
    """The ``--explain`` line is "off" where the span is below one unit (half a unit here, at the epsilon
    found by bisection), and a table with some ranges declared gets the mixed-table line instead."""
    from dpmo.cli import main
    from dpmo.selection import selection_plan

    rng = np.random.default_rng(5)
    path = tmp_path / "t.csv"
    rows = zip(rng.integers(0, 300, 50), np.round(rng.uniform(0.5, 1, 50), 3), strict=True)
    path.write_text("a,b\n" + "".join(f"{x},{y}\n" for x, y in rows))
    share = min(step.share for step in selection_plan("chebyshev", 3, 2) if step.kind == "round")
    lo, hi = 1.0, 1e6  # the call's epsilon where the largest span is half a unit
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        lo, hi = (
            (mid, hi)
            if cg.gate_span(48, mid * share, 1.0 + AUGMENT, [1.0]) * (1 + AUGMENT) < 0.5
            else (lo, mid)
        )
    base = ["select", str(path), "-k", "3", "--approach", "chebyshev", "--explain"]
    assert main([*base, "--epsilon", repr(hi), "--objective", "a=1", "--objective", "b=0.001"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "Pareto gate without ranges" in x)
    assert "off" in line
    mixed = ["--epsilon", "1e6", "--objective", "a=1@0:300", "--objective", "b=0.001"]
    assert main([*base, *mixed]) == 0
    out = capsys.readouterr().out
    assert "Pareto gate with some ranges declared" in out and "Pareto gate without ranges" not in out
    # the corner staircase ignores the declared ranges: its gate is the one without ranges
    assert main([*base[:-3], "--approach", "staircase", "--explain", *mixed]) == 0
    out = capsys.readouterr().out
    assert "Pareto gate without ranges" in out and "with some ranges declared" not in out
