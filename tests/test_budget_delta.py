"""Budget(epsilon, delta) and delta= on every entry point: the picks of one call at the accountant's
epsilons, recorded one by one, the call charged (epsilon, delta) before anything is computed."""

from __future__ import annotations

import copy
import pickle
import threading
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

import dpmo
from dpmo import accounting, graphs
from dpmo.calls import call_budget, delta_for_plan

DELTA = 1e-6


def _objectives(n=30, seed=0):
    rng = np.random.default_rng(seed)
    return [dpmo.Objective(rng.random(n), 1.0, name="a"), dpmo.Objective(rng.random(n), 1.0, name="b")]


def test_contract_of_the_issue():
    b = dpmo.Budget(1.0, delta=1e-6)
    picks = dpmo.priv_agg(_objectives(), [0.5, 0.5], 1.0, k=10, delta=1e-6, budget=b, rng=0)
    assert len(set(picks.tolist())) == 10
    e0 = dpmo.per_pick_epsilon(1.0, 10, delta=1e-6)
    assert [r.epsilon for r in b.ledger] == [Fraction(e0)] * 10
    assert b.spent == 1.0 and b.spent_delta == 1e-6 and b.remaining == 0.0 and b.remaining_delta == 0.0
    assert b.charges == (dpmo.budget.Charge("priv_agg", Fraction(1), Fraction(1, 10**6)),)
    with pytest.raises(dpmo.BudgetExceededError):
        b.spend(1e-9, "one more")
    with pytest.raises(dpmo.BudgetExceededError):
        dpmo.priv_agg(_objectives(), [0.5, 0.5], 1e-9, k=1, delta=1e-12, budget=b)
    assert len(b.ledger) == 10


def test_refused_before_anything_is_computed():
    b = dpmo.Budget(1.0, delta=1e-7)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(dpmo.BudgetExceededError, match="delta"):
        dpmo.priv_pareto(_objectives(), 0.5, k=3, delta=1e-6, budget=b, rng=rng)
    with pytest.raises(dpmo.BudgetExceededError):
        dpmo.priv_pareto(_objectives(), 2.0, k=3, delta=1e-8, budget=b, rng=rng)
    assert rng.bit_generator.state == state and b.ledger == () and b.spent == 0 and b.charges == ()
    pure = dpmo.Budget(1.0)
    with pytest.raises(dpmo.BudgetExceededError, match="delta"):
        dpmo.select(np.arange(5.0), 0.5, 1.0, k=2, delta=1e-9, budget=pure)


def test_pure_spends_and_calls_mix_by_basic_composition():
    b = dpmo.Budget(2.0, delta=1e-6)
    b.spend(0.5, "a count", mechanism="laplace")
    dpmo.select(np.arange(10.0), 1.0, 1.0, k=4, delta=1e-6, budget=b, rng=1)
    assert b.remaining == 0.5 and b.remaining_delta == 0.0
    dpmo.select(np.arange(10.0), 0.5, 1.0, k=2, budget=b, rng=1)  # pure: delta 0
    assert b.spent_exact == 2 and b.remaining_exact == 0
    e0 = Fraction(dpmo.per_pick_epsilon(1.0, 4, delta=1e-6))
    assert [r.epsilon for r in b.ledger] == [Fraction(1, 2), e0, e0, e0, e0, Fraction(1, 4), Fraction(1, 4)]
    assert "delta" in repr(b) and "spent epsilon 2 and delta 0.000001" in b.report()


def test_threads_never_overspend_a_delta_budget():
    b = dpmo.Budget(1.0, delta=1e-6)
    outcomes = []

    def run():
        try:
            dpmo.select(np.arange(20.0), 0.5, 1.0, k=3, delta=5e-7, budget=b, rng=0)
            outcomes.append("fit")
        except dpmo.BudgetExceededError:
            outcomes.append("refused")

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["fit", "fit", "refused"]
    assert b.spent_delta == 1e-6 and len(b.ledger) == 6


def test_a_call_runs_only_its_plan_and_is_not_copied_while_it_can_spend():
    b = dpmo.Budget(1.0, delta=1e-6)
    call, parts = call_budget(1.0, b, 1e-6, [1.0, 1.0], ["laplace", "exponential"], "two steps")
    assert parts == [
        Fraction(e)
        for e in accounting.scaled_epsilons(1.0, [1, 1], delta=1e-6, kinds=["pure", "bounded_range"])
    ]
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(call)
    with pytest.raises(dpmo.BudgetExceededError, match="plan"):
        call.spend(parts[0] * 2, "too much", mechanism="laplace")
    call.spend(parts[0], "count", mechanism="laplace")
    with pytest.raises(dpmo.BudgetExceededError, match="plan"):  # a pure mechanism in a bounded-range slot
        call.spend(parts[1], "choice", mechanism="permute_and_flip")
    call.spend(parts[1], "choice", mechanism="exponential")
    with pytest.raises(ValueError, match="split"):
        call.split(2)
    restored = pickle.loads(pickle.dumps(call))  # nothing left: a detached record
    assert restored.delta == 1e-6 and len(restored.ledger) == 2 and copy.deepcopy(call).spent == 1.0


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_select_and_local_dampening_record_the_accountant_epsilons(mechanism):
    e0 = Fraction(dpmo.per_pick_epsilon(1.0, 3, delta=DELTA, mechanism=mechanism))
    b = dpmo.Budget(2.0, delta=2 * DELTA)
    dpmo.select(np.arange(8.0), 1.0, 1.0, k=3, mechanism=mechanism, delta=DELTA, budget=b, rng=0, exact=True)
    dpmo.local_dampening(np.arange(8.0), 1.0, lambda t: np.full(8, 0.5), k=3, mechanism=mechanism,
                         global_sensitivity=1.0, delta=DELTA, budget=b, rng=0)  # fmt: skip
    assert [r.epsilon for r in b.ledger] == [e0] * 6
    assert b.remaining_exact == 0 and b.remaining_delta_exact == 0


def test_chebyshev_scales_its_unequal_shares_together():
    shares = [0.1, 0.45, 0.45]
    b = dpmo.Budget(1.0, delta=DELTA)
    dpmo.priv_chebyshev(_objectives(), 1.0, k=3, shares=shares, delta=DELTA, budget=b, rng=0)
    expected = accounting.scaled_epsilons(1.0, shares, delta=DELTA)
    assert [float(r.epsilon) for r in b.ledger] == list(expected)
    assert expected[0] > 0.1 and expected[1] / expected[0] == pytest.approx(4.5)


def test_graph_entry_points():
    g = nx.karate_club_graph()
    for approach, settings in (("agg", {}), ("pareto", {}), ("chebyshev", {}), ("chebyshev", "fixed")):
        b = dpmo.Budget(1.0, delta=DELTA)
        extra = {} if settings != "fixed" else {"shares": graphs.chebyshev.graph_chebyshev_settings(34, 4)[2]}
        picks = graphs.top_k(g, 4, 1.0, approach=approach, nodes=34, rng=0, delta=DELTA, budget=b, **extra)
        # the staircase (chebyshev's graph default) records a release before each of its 4 rounds
        records = 8 if approach == "chebyshev" and not extra else 4
        assert len(set(picks.tolist())) == 4 and len(b.ledger) == records and b.remaining_delta == 0
        if approach != "chebyshev":
            assert {float(r.epsilon) for r in b.ledger} == {dpmo.per_pick_epsilon(1.0, 4, delta=DELTA)}
        elif extra:  # the graph's public shares: 0.1 for the degree round, the rest equal
            assert float(b.ledger[1].epsilon) / float(b.ledger[0].epsilon) == pytest.approx(3.0)
        else:  # releases are pure Laplace steps, rounds the call's mechanism
            assert [r.mechanism for r in b.ledger] == ["laplace", "exponential"] * 4
    b = dpmo.Budget(1.0, delta=DELTA)
    graphs.top_k_two_stage(g, 3, 1.0, candidates=10, nodes=34, rng=0, delta=DELTA, budget=b)
    kinds = ["laplace"] + ["exponential"] * 3
    expected = accounting.scaled_epsilons(1.0, [0.1] + [0.3] * 3, delta=DELTA, kinds=kinds)
    assert [r.mechanism for r in b.ledger] == ["laplace"] + ["exponential"] * 3
    assert [float(r.epsilon) for r in b.ledger] == pytest.approx(list(expected), rel=1e-15)


def _moet_spec(k=1, o=2, leaf=0.05, final=0.4):
    """Relative shares and kinds of a DP-MOET fit's mechanism calls, from the docs' split (written out
    here, not read from the code): ``leaf`` of epsilon to the o count releases, ``final`` of the rest to
    the final selection's o picks, the other part equally to the k generations' 4 picks each."""
    sel = 1 - leaf
    gen = sel * (1 - final) / k
    rel = [gen / 4] * (4 * k) + [sel * final / o] * o + [leaf / o] * o
    return rel, ["exponential"] * (4 * k + o) + ["laplace"] * o


def _moet(delta, **kw):
    from dpmo.trees import DPMOETClassifier

    params = dict(population_size=10, selection_size=4, n_iterations=1, n_output=2, final_share=0.4)
    return DPMOETClassifier(1.0, delta=delta, random_state=0, **{**params, **kw})


@pytest.mark.parametrize("exact", [True, False])
def test_dpmoet_delta_fit_is_one_planned_call_with_its_leaf_counts(exact):
    from dpmo.datasets import load_breast_cancer

    data = load_breast_cancer()
    b = dpmo.Budget(1.0, delta=DELTA)
    est = _moet(DELTA, exact=exact).fit(data, budget=b)
    rel, kinds = _moet_spec()
    expected = accounting.scaled_epsilons(1.0, rel, delta=DELTA, kinds=kinds)
    ledger = est.budget_.ledger
    assert len(ledger) == 8 and [r.mechanism for r in ledger] == kinds
    assert [float(r.epsilon) for r in ledger] == pytest.approx(list(expected), rel=1e-12)
    # counted together, each runs above its pure share; the call is charged (1, delta) once
    assert all(float(r.epsilon) > x for r, x in zip(ledger, rel, strict=True))
    assert [r.candidates for r in ledger[-2:]] == [2 * t.n_leaves for t in est.trees_]
    assert b.charges == (dpmo.budget.Charge("DP-MOET fit", Fraction(1), Fraction(1, 10**6)),)
    assert b.ledger == ledger and b.remaining == 0 and b.remaining_delta == 0
    assert est.leaf_counts_ is not None and len(est.leaf_counts_) == 2
    assert accounting.composed_delta(1.0, [float(r.epsilon) for r in ledger], kinds) <= DELTA


def test_estimators_take_delta():
    from dpmo.datasets import load_breast_cancer
    from dpmo.trees import DiffPID3Classifier, DPMOETClassifier

    data = load_breast_cancer()
    est = DPMOETClassifier(1.0, delta=DELTA, features=data.features, random_state=0, leaf_count_share=0,
                           population_size=10, selection_size=4, n_iterations=1)  # fmt: skip
    est.fit(data.X, data.y)
    rel = [1 / 8] * 4 + [1 / 2]  # two rounds of 1/2: four picks, then the output pick
    expected = accounting.scaled_epsilons(1.0, rel, delta=DELTA)
    assert [float(r.epsilon) for r in est.budget_.ledger] == list(expected)
    assert est.get_params()["delta"] == DELTA and est.budget_.spent_delta == DELTA
    assert pickle.loads(pickle.dumps(est)).budget_.delta == DELTA
    id3 = DiffPID3Classifier(1.0, max_depth=2, delta=DELTA, features=data.features, random_state=0)
    id3.fit(data.X, data.y)
    assert len(id3.budget_.ledger) == 5 and id3.budget_.spent_delta == DELTA
    with pytest.raises(ValueError, match="delta"):
        DiffPID3Classifier(1.0, delta=2.0).fit(data.X, data.y)
    with pytest.raises(ValueError, match="delta"):
        DPMOETClassifier(None, delta=DELTA).fit(data.X, data.y)


@pytest.mark.parametrize(
    "budget", [(1.0, 1e-6, 0.5), (1.0, 1e-7, 0.0), (1.0, 0.0, 0.0)], ids=["epsilon", "delta", "pure"]
)
def test_dpmoet_delta_fit_refused_before_anything_is_computed(monkeypatch, budget):
    from dpmo.datasets import load_breast_cancer
    from dpmo.trees import moet

    def computed(*args, **kwargs):
        raise AssertionError("the fit computed something before its budget was checked")

    monkeypatch.setattr(moet, "random_population", computed)
    monkeypatch.setattr(moet.TreePopulation, "counts", computed)
    total, delta, spent = budget
    b = dpmo.Budget(total, delta=delta)
    if spent:
        b.spend(spent, "earlier release")
    with pytest.raises(dpmo.BudgetExceededError):
        _moet(DELTA).fit(load_breast_cancer(), budget=b)
    assert len(b.ledger) == (1 if spent else 0) and b.charges == () and b.remaining == total - spent


def test_dpmoet_delta_zero_is_the_pure_fit():
    from dpmo.datasets import load_breast_cancer

    data = load_breast_cancer()
    b = dpmo.Budget(1.0, delta=DELTA)  # a budget with a delta: a delta=0 fit still spends pure shares
    est = _moet(0.0).fit(data, budget=b)
    same = _moet(0).fit(data)
    # the docs' split, exactly: 0.95 * 0.6 over 4 picks, 0.95 * 0.4 over 2, 0.05 over 2 count releases
    want = [Fraction(57, 400)] * 4 + [Fraction(19, 100)] * 2 + [Fraction(1, 40)] * 2
    assert [r.epsilon for r in est.budget_.ledger] == want and sum(want) == 1
    assert b.charges == () and b.spent_delta == 0 and b.remaining_delta == DELTA
    assert [r.epsilon for r in same.budget_.ledger] == want
    for a, c in zip(est.trees_ + est.voters_, same.trees_ + same.voters_, strict=True):
        assert a == c
    for a, c in zip(est.leaf_counts_, same.leaf_counts_, strict=True):
        np.testing.assert_array_equal(a, c)


def test_delta_zero_keeps_the_pure_path():
    b = dpmo.Budget(1.0)
    dpmo.priv_agg(_objectives(), [0.5, 0.5], 1.0, k=10, delta=0.0, budget=b, rng=0)
    assert [r.epsilon for r in b.ledger] == [Fraction(1, 10)] * 10 and b.delta == 0 and b.charges == ()


@pytest.mark.parametrize("shares", [[1.0, 1.0, 1.0], [0.02, 0.1275, 0.1275, 0.725]])
def test_a_plan_that_may_move_more_than_the_accountant_adds_runs_pure(shares):
    """``delta_for_plan``: 0 exactly when the accountant's gain ``sum(parts) / epsilon - 1`` (read here from
    ``scaled_epsilons``) is below the share the plan may move; ``delta`` as given otherwise, and always when
    the plan moves nothing; a budget's remaining epsilon when ``epsilon`` is None."""
    gain = sum(accounting.scaled_epsilons(1.0, shares, delta=1e-6, kinds="bounded_range")) - 1.0
    assert 0.0 < gain < 0.1
    assert delta_for_plan(1.0, None, 1e-6, shares, "exponential", gain * 1.001) == 0
    assert delta_for_plan(1.0, None, 1e-6, shares, "exponential", gain * 0.999) == 1e-6
    assert delta_for_plan(1.0, None, 1e-6, shares, "exponential", 0.0) == 1e-6
    assert delta_for_plan(1.0, None, 0.0, shares, "exponential", 1.0) == 0.0
    b = dpmo.Budget(2.0, delta=1e-6)
    b.spend(1.0, "before")
    assert delta_for_plan(None, b, 1e-6, shares, "exponential", gain * 1.001) == 0  # the same 1.0 left


def test_a_call_that_fails_before_its_first_record_spends_nothing():
    """A delta > 0 call reserves its (epsilon, delta) before the data are read; a refusal after that
    (here: a local function returning NaN) gave the reservation back only with delta = 0. Now both spend
    nothing; a call that recorded a mechanism stays charged."""
    from dpmo.calls import releases_on_error, resolve_call

    b = dpmo.Budget(1.0, delta=1e-6)
    nan_local = lambda t: np.full(5, np.nan)  # noqa: E731
    with pytest.raises(ValueError, match="not finite"):
        dpmo.local_dampening(np.arange(5.0), 0.5, nan_local, global_sensitivity=1.0, budget=b, delta=1e-6)
    with pytest.raises(ValueError, match="not finite"):
        objs = [dpmo.Objective(np.arange(5.0), 1.0, nan_local), dpmo.Objective(np.ones(5), 1.0)]
        dpmo.priv_pareto(objs, 0.5, budget=b, delta=1e-6, rng=0)
    assert (b.remaining_exact, b.remaining_delta, b.charges, b.ledger) == (1, 1e-6, (), ())

    @releases_on_error
    def records_then_fails(budget):
        call, _, parts = resolve_call(0.5, budget, 1e-6, 2, "exponential", "two picks")
        call.spend(parts[0], "first pick", mechanism="exponential", sensitivity=1.0, candidates=2)
        raise RuntimeError("after the first record")

    with pytest.raises(RuntimeError):
        records_then_fails(b)
    assert b.remaining_exact == Fraction(1, 2) and b.remaining_delta == 0 and len(b.charges) == 1
    assert dpmo.select(np.arange(3.0), 0.5, 1.0, budget=b, rng=0).shape == (1,)  # the rest, pure
