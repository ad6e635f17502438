"""dpmo.Budget: exact spends, refusal before anything is computed, split, and every entry point's ledger."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo import Budget, BudgetExceededError
from dpmo.budget import Spend


def test_spend_records_and_returns():
    b = Budget(1.0)
    out = b.spend(0.25, "a count", mechanism="laplace", sensitivity=1, candidates=3)
    assert out == 0.25 and isinstance(out, float)
    assert b.spent == 0.25 and b.remaining == 0.75 and b.epsilon == 1.0
    assert b.ledger == (Spend("a count", "laplace", Fraction(1, 4), 1.0, 3),)
    assert isinstance(b.ledger, tuple)


def test_exceeding_raises_and_records_nothing():
    b = Budget(1.0)
    b.spend(0.6, "first")
    with pytest.raises(BudgetExceededError, match="exceeds the remaining budget"):
        b.spend(0.6, "second")
    # not an Exception: scikit-learn's loops (and `except Exception`) must not turn it into a NaN score
    assert issubclass(BudgetExceededError, BaseException) and not issubclass(BudgetExceededError, Exception)
    assert len(b.ledger) == 1 and b.spent == 0.6
    b.spend(b.remaining_exact, "the rest")
    assert b.remaining == 0 and b.spent_exact == 1


def test_decimal_budgets_add_up_as_people_count():
    """Issue 23 point 2: a float counts as the decimal it prints as (fails on the old Fraction(float))."""
    b = Budget(1.0)
    runs_at = [b.spend(0.1, "tenth") for _ in range(10)]  # the tenth spend used to be refused
    assert b.spent_exact == 1 and b.remaining == 0 and b.remaining_exact == 0
    assert all(r.epsilon == Fraction(1, 10) for r in b.ledger)
    assert set(runs_at) == {np.nextafter(0.1, 0.0)}  # the largest float not above 1/10
    c = Budget(0.3)
    c.spend(0.1, "a")
    c.spend(0.2, "b")  # used to be refused
    assert c.remaining_exact == 0 and c.epsilon_exact == Fraction(3, 10)
    d = Budget(1.0)
    parts = d.split([0.1] * 10)  # used to be refused
    assert len(parts) == 10 and d.remaining_exact == 0
    for part in parts:
        part.spend(part.remaining, "tenth")  # remaining (a float) always fits
    assert d.spent_exact == 1
    e = Budget(1.0)
    for part in e.split(10):
        part.spend(part.remaining_exact, "tenth")
    assert e.spent_exact == 1 and e.remaining == 0


def test_refusal_names_the_remaining_budget_exactly_and_the_doc():
    b = Budget(1.0)
    b.spend(0.95, "most")
    with pytest.raises(BudgetExceededError) as err:
        b.spend(0.1, "more")
    text = str(err.value)
    assert "remaining budget 0.05 exactly" in text and "0.1" in text  # not 0.04999999999999993
    assert "docs/privacy-accounting.md" in text and "Decimal budgets" in text
    c = Budget(1)
    c.split(3)[0].spend(Fraction(1, 3), "a third")
    with pytest.raises(BudgetExceededError, match="remaining budget 0 exactly"):
        c.spend(0.1, "x")
    third = Budget(1).split(3)[0]
    with pytest.raises(BudgetExceededError, match="remaining budget 1/3 exactly"):
        third.spend(0.5, "x")
    with pytest.raises(BudgetExceededError, match="add up to 1.1, more than the remaining budget 1 exactly"):
        Budget(1.0).split([0.5, 0.6])


def _decimal_floats():
    digits = st.integers(min_value=1, max_value=10**6)
    return st.builds(
        lambda m, e: float(f"{m}e{e}"), digits, st.integers(min_value=-310, max_value=300)
    ).filter(lambda x: 0 < x < float("inf"))


@settings(max_examples=200, deadline=None)
@given(eps=st.one_of(_decimal_floats(), st.floats(min_value=5e-324, max_value=1.7e308)), k=st.integers(1, 9))
def test_no_mechanism_runs_above_the_recorded_epsilon(eps, k):
    """The float returned (the epsilon a mechanism runs at) is the largest float not above the record."""
    b = Budget(eps)
    assert b.epsilon_exact == Fraction(repr(eps))  # the decimal the float prints as
    one = b.split([eps])[0]
    runs = one.spend(eps, "all")
    rec = one.ledger[0].epsilon
    assert rec == Fraction(repr(eps)) and Fraction(runs) <= rec < Fraction(np.nextafter(runs, np.inf))
    c = Budget(eps)
    share = c.spend_rounds(eps, k, "rounds")
    exact_share = Fraction(repr(eps)) / k
    assert all(r.epsilon == exact_share for r in c.ledger) and sum(r.epsilon for r in c.ledger) == rec
    assert Fraction(share) <= exact_share < Fraction(np.nextafter(share, np.inf))
    assert Fraction(repr(c.remaining)) <= c.remaining_exact


@settings(max_examples=40, deadline=None)
@given(
    eps=st.floats(min_value=1e-3, max_value=10, allow_nan=False),
    parts=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=5),
)
def test_split_reserves_and_children_charge_the_parent(eps, parts):
    b = Budget(eps)
    kids = b.split(len(parts))
    assert b.remaining_exact == 0  # reserved at once: the parent cannot be overspent
    with pytest.raises(BudgetExceededError):
        b.spend(eps * 1e-9, "more")
    for kid, m in zip(kids, parts, strict=True):
        assert kid.parent is b and kid.epsilon_exact == Fraction(repr(eps)) / len(parts)
        for part in kid.split(m):  # grandchildren charge the grandparent too
            part.spend(part.remaining_exact, "pick")
        assert kid.spent_exact == kid.epsilon_exact and len(kid.ledger) == m
    assert b.spent_exact == Fraction(repr(eps))
    assert len(b.ledger) == sum(parts)


def test_split_by_epsilons_and_its_errors():
    b = Budget(1.0)
    a, c = b.split([0.25, Fraction(1, 4)])
    assert b.remaining == 0.5 and b.spent == 0  # reserved, not spent
    a.spend(0.25, "x")
    assert b.spent == 0.25 and b.ledger == a.ledger
    with pytest.raises(BudgetExceededError):
        a.spend(1e-12, "over the part")
    with pytest.raises(BudgetExceededError, match="nothing was reserved"):
        b.split([0.3, 0.3])
    assert b.remaining == 0.5
    with pytest.raises(ValueError, match="parts"):
        b.split(0)
    with pytest.raises(TypeError, match="parts"):
        b.split("2")
    with pytest.raises(ValueError, match="empty"):
        b.split([])


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_bad_epsilons(bad):
    with pytest.raises(ValueError, match="epsilon"):
        Budget(bad)
    with pytest.raises(ValueError, match="epsilon"):
        Budget(1.0).spend(bad, "x")


@pytest.mark.parametrize("bad", [True, "1", None, [1.0]])
def test_bad_types(bad):
    with pytest.raises(TypeError, match="epsilon"):
        Budget(bad)
    with pytest.raises(TypeError):
        dpmo.select([1.0, 2.0], 1.0, 1.0, budget=1.0)


# ----------------------------------------------------------------------------------- entry points
def _objectives(n=12, seed=3):
    gen = np.random.default_rng(seed)
    a = gen.integers(0, 5, n).astype(float)
    b = gen.integers(0, 5, n).astype(float)
    return [dpmo.Objective(a, 1.0, lambda t: np.ones(n)), dpmo.Objective(b, 2.0, None)]


def _graph():
    import networkx as nx

    from dpmo import graphs

    return graphs.load_graph(nx.karate_club_graph(), nodes=34)  # the public node set: 34 members


def _calls(**kw):
    """(name, call(epsilon, budget, rng)) for every function entry point; ``kw`` (e.g. ``exact=False``) goes
    to the entry points whose default sampler is exact."""
    scores = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
    objs = _objectives()
    from dpmo import graphs

    g = _graph()
    return [
        ("select", lambda e, b, r: dpmo.select(scores, e, 1.0, k=3, rng=r, budget=b)),
        ("select_pf", lambda e, b, r: dpmo.select(scores, e, 1.0, k=2, mechanism="laplace", rng=r, budget=b)),
        (
            "local_dampening",
            lambda e, b, r: dpmo.local_dampening(scores, e, lambda t: np.ones(6), k=2, rng=r, budget=b, **kw),
        ),
        ("priv_pareto", lambda e, b, r: dpmo.priv_pareto(objs, e, k=3, rng=r, budget=b, **kw)),
        (
            "priv_pareto_all",
            lambda e, b, r: dpmo.priv_pareto(objs, e, k=12, sensitivity="global", rng=r, budget=b, **kw),
        ),
        ("priv_agg", lambda e, b, r: dpmo.priv_agg(objs, [1.0, -0.5], e, k=3, rng=r, budget=b, **kw)),
        ("top_k_pareto", lambda e, b, r: graphs.top_k(g, 3, e, rng=r, budget=b, **kw)),
        ("top_k_agg", lambda e, b, r: graphs.top_k(g, 3, e, approach="agg", rng=r, budget=b, **kw)),
        (
            "top_k_two_stage",
            lambda e, b, r: graphs.top_k_two_stage(g, 3, e, candidates=8, degree_share=0.3, rng=r, budget=b),
        ),
    ]


CALL_NAMES = [name for name, _ in _calls()]


@pytest.mark.parametrize("name", CALL_NAMES)
@pytest.mark.slow
def test_entry_point_ledger_sums_to_epsilon_and_output_unchanged(name):
    call = dict(_calls())[name]
    b = Budget(2.0)
    out = call(0.7, b, 5)
    assert np.array_equal(out, call(0.7, None, 5))  # the budget changes nothing in the output
    assert sum(r.epsilon for r in b.ledger) == Fraction("0.7")  # exact
    assert b.remaining_exact == 2 - Fraction("0.7")
    assert all(r.epsilon > 0 and isinstance(r.what, str) for r in b.ledger)
    # epsilon=None spends what remains
    call(None, b, 5)
    assert b.remaining == 0 and b.spent_exact == 2


@pytest.mark.parametrize("name", CALL_NAMES)
def test_second_call_on_shared_budget_raises_before_computing(name):
    call = dict(_calls())[name]
    b = Budget(1.0)
    call(0.6, b, np.random.default_rng(1))
    n = len(b.ledger)
    gen = np.random.default_rng(1)
    state = gen.bit_generator.state
    with pytest.raises(BudgetExceededError):
        call(0.6, b, gen)
    assert gen.bit_generator.state == state  # no randomness drawn: nothing was computed
    assert len(b.ledger) == n


@pytest.mark.parametrize("name", CALL_NAMES)
@pytest.mark.parametrize("epsilon", [0.1, 0.7, 0.3])
def test_every_float_mechanism_runs_at_most_at_its_recorded_epsilon(monkeypatch, name, epsilon):
    """Issue 23 point 2: with the decimal records, no float sampler ever runs above the recorded share."""
    import dpmo.mechanisms as mech

    ran: list[float] = []
    for sampler in ("sample_exponential", "sample_noisy_max"):
        real = getattr(mech, sampler)

        def spy(scores, eps, *args, _real=real):
            ran.append(eps)
            return _real(scores, eps, *args)

        monkeypatch.setattr(mech, sampler, spy)
    b = Budget(1.0)
    dict(_calls(exact=False))[name](epsilon, b, 0)
    shares = [r.epsilon for r in b.ledger]
    assert ran and sum(shares) == Fraction(repr(epsilon))
    assert all(Fraction(e) <= max(shares) for e in ran)
    assert all(any(Fraction(e) <= s < Fraction(np.nextafter(e, np.inf)) for s in shares) for e in ran)


def test_select_records_one_spend_per_round():
    b = Budget(1.0)
    dpmo.select(np.arange(10.0), 0.9, 2.0, k=3, mechanism="permute_and_flip", rng=0, budget=b)
    assert [r.epsilon for r in b.ledger] == [Fraction("0.9") / 3] * 3
    assert [r.candidates for r in b.ledger] == [10, 9, 8]
    assert {(r.mechanism, r.sensitivity) for r in b.ledger} == {("permute_and_flip", 2.0)}


def test_local_dampening_refuses_before_dampening():
    calls = []

    def local(t):
        calls.append(t)
        return np.ones(3)

    b = Budget(0.5)
    with pytest.raises(BudgetExceededError):
        dpmo.local_dampening([1.0, 2.0, 3.0], 0.6, local, rng=0, budget=b)
    assert calls == [] and b.ledger == ()


def test_two_stage_ledger_shape():
    from dpmo import graphs

    b = Budget(1.0)
    graphs.top_k_two_stage(_graph(), 2, 1.0, candidates=6, degree_share=0.25, rng=0, budget=b)
    first, *rounds = b.ledger
    assert first.mechanism == "laplace" and first.sensitivity == 2.0 and first.epsilon == Fraction(0.25)
    assert [r.epsilon for r in rounds] == [Fraction(3, 8)] * 2 and rounds[0].candidates == 6


# ----------------------------------------------------------------------------------- estimators
@pytest.fixture(scope="module")
def cancer():
    from dpmo.datasets import load_breast_cancer

    return load_breast_cancer()


def _estimators(features):
    from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

    small = dict(population_size=6, selection_size=2, n_iterations=2, n_output=2, max_depth=4)
    return [
        DPMOETClassifier(0.6, features=features, random_state=0, **small),
        DPMOETClassifier(
            0.6, approach="agg", sensitivity="global", features=features, random_state=0, **small
        ),
        DiffPID3Classifier(0.6, max_depth=2, features=features, random_state=0),
        LocalDiffPID3Classifier(0.6, max_depth=2, features=features, random_state=0),
    ]


@pytest.mark.parametrize("i", range(4))
@pytest.mark.slow
def test_estimator_budget_and_shared_budget(cancer, i):
    from sklearn.base import clone

    est = _estimators(cancer.features)[i]
    alone = clone(est).fit(cancer.X, cancer.y)
    assert isinstance(alone.budget_, Budget) and alone.budget_.parent is None
    assert sum(r.epsilon for r in alone.budget_.ledger) == Fraction("0.6")
    shared = Budget(1.0)
    fitted = clone(est).fit(cancer.X, cancer.y, budget=shared)
    assert fitted.budget_.parent is shared and fitted.budget_.ledger == shared.ledger
    assert [r.epsilon for r in fitted.budget_.ledger] == [r.epsilon for r in alone.budget_.ledger]
    assert sum(r.epsilon for r in shared.ledger) == Fraction("0.6")
    with pytest.raises(BudgetExceededError):
        clone(est).fit(cancer.X, cancer.y, budget=shared)
    assert sum(r.epsilon for r in shared.ledger) == Fraction("0.6")
    with pytest.raises(TypeError, match="budget"):
        clone(est).fit(cancer.X, cancer.y, budget=0.5)


# ----------------------------------------------------------------------------------- the pipeline
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_pipeline_picks_are_those_of_the_direct_lower_level_calls(seed, mechanism):
    """Same seed, same picks as calling dpmo.select round by round on scores computed directly: fails if
    the pipeline ever changes a result."""
    from dpmo.aggregate import aggregate_selection_scores
    from dpmo.pareto import pareto_selection_scores
    from dpmo.selection import select_multiobjective

    objs = _objectives(n=15, seed=seed)
    eps, k = 2.5, 4
    # Pareto, global sensitivity: k rounds, each on the candidates left, epsilon / k each
    gen = np.random.default_rng(seed)
    remaining, direct = np.arange(15), []
    for _ in range(k):
        scores, sens = pareto_selection_scores([o.take(remaining) for o in objs], "global")
        pick = int(dpmo.select(scores, eps / k, sens, mechanism=mechanism, rng=gen)[0])
        direct.append(int(remaining[pick]))
        remaining = np.delete(remaining, pick)
    ours = select_multiobjective(
        objs, eps, approach="pareto", sensitivity="global", mechanism=mechanism, k=k, rng=seed, exact=False
    )
    assert ours.tolist() == direct
    # aggregate: one score vector, the k rounds in one call of select
    for sensitivity in ("local", "global"):
        scores, sens = aggregate_selection_scores(dpmo.aggregate(objs, [1.0, 3.0]), sensitivity)
        direct = dpmo.select(scores, eps, sens, mechanism=mechanism, k=k, rng=seed)
        ours = select_multiobjective(
            objs, eps, approach="agg", weights=[1.0, 3.0], sensitivity=sensitivity, mechanism=mechanism,
            k=k, rng=seed, exact=False,
        )  # fmt: skip
        assert ours.tolist() == direct.tolist()


def test_registered_approach_plugs_into_every_layer(monkeypatch):
    from dpmo import graphs, registry
    from dpmo.selection import Approach, Rounds, approaches, register_approach

    monkeypatch.setattr(registry, "_APPROACHES", dict(registry._APPROACHES))  # restored afterwards

    class FirstObjective(Approach):  # a toy approach: the first objective alone, global sensitivity
        name = "first-objective-test"

        def rounds(self, objectives, weights, sensitivity, cache):
            o = objectives[0]

            class R(Rounds):
                static = True
                score_name = "first objective"

                def scores(self, chosen, remaining):
                    return np.asarray(o.values)[remaining], o.global_sensitivity

            return R()

        def utility(self, objectives, weights, remaining):
            return np.asarray(objectives[0].values)[remaining]

    register_approach(FirstObjective(), replace=True)
    assert "first-objective-test" in approaches()
    with pytest.raises(ValueError, match="already registered"):
        register_approach(FirstObjective())
    b = Budget(1.0)
    picks = graphs.top_k(_graph(), 2, 1.0, approach="first-objective-test", rng=0, budget=b)
    assert len(picks) == 2 and [r.what for r in b.ledger][0].startswith("top_k (first objective)")
    with pytest.raises(ValueError, match="approach must be one of"):
        dpmo.selection.select_multiobjective(_objectives(), 1.0, approach="nope")


def test_a_built_in_name_clashes_at_registration_not_at_a_later_call():
    """Registering an approach named "agg" before dpmo.aggregate was imported was accepted; every later
    selection (whatever its approach) then failed with "an approach named 'agg' is already registered".
    In a fresh interpreter: the built-ins are imported on first use."""
    import subprocess
    import sys

    code = """
import dpmo
from dpmo.selection import Approach, register_approach, select_multiobjective
class Mine(Approach):
    name = "agg"
try:
    register_approach(Mine())
except ValueError as exc:
    print("refused:", exc)
print(select_multiobjective([dpmo.Objective([1.0, 2.0], 1.0)], 1e6, approach="pareto", rng=0).tolist())
mine = register_approach(Mine(), replace=True)
from dpmo import registry
print(registry.get_approach("agg") is mine)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    refused = "refused: an approach named 'agg' is already registered"
    assert out.stdout.splitlines() == [refused, "[1]", "True"]


def test_a_record_holds_only_facts_it_can_hold():
    """A NaN or negative sensitivity, fractional candidates, a k of 2.7, "3" or True were recorded as given
    (or truncated); fewer candidates than rounds recorded negative counts."""
    b = dpmo.Budget(1.0)
    refused = [
        (ValueError, lambda: b.spend(0.1, "x", sensitivity=float("nan"))),
        (ValueError, lambda: b.spend(0.1, "x", sensitivity=-1.0)),
        (TypeError, lambda: b.spend(0.1, "x", candidates=1.5)),
        (TypeError, lambda: b.spend_rounds(0.1, 2.7, "x")),
        (TypeError, lambda: b.spend_rounds(0.1, "3", "x")),
        (TypeError, lambda: b.spend_rounds(0.1, True, "x")),
        (ValueError, lambda: b.spend_rounds(0.2, 2, "x", candidates=1)),
    ]
    for error, call in refused:
        with pytest.raises(error):
            call()
    assert b.ledger == () and b.remaining == 1.0
    b.spend_rounds(0.2, 2, "two picks", mechanism="exponential", sensitivity=1.0, candidates=2)
    assert [r.candidates for r in b.ledger] == [2, 1]
