"""A call that does not fit in its budget reads no data: neighbours give the same error (issue 37.11).

Before the fix, with an exhausted ``Budget(1, 1e-6)``, ``DPMOETClassifier.fit`` raised ``ValueError`` for a
NaN in X, a label outside ``classes`` or a one-class ``y`` and ``BudgetExceededError`` for a clean table;
``graphs.top_k(..., nodes=33)`` raised ``ValueError`` for a graph with an edge to node 33 and
``BudgetExceededError`` for its neighbour without that edge: the kind of error told the two apart. Now every
entry point checks the budget (public parameters only: epsilon, delta, the budget) before any check that
reads the private input, so both inputs of each pair raise ``BudgetExceededError``.

Neighbouring relations: scores and objectives differ in one candidate's value; graphs differ in one edge
(edge-level privacy); tables differ in one row (X or its label). A "poisoned" objective raises whenever its
values or its local sensitivity are read: a call that reads it before the budget check fails with that
error instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

DELTAS = [0.0, 1e-7]


def exhausted(kind: str = "epsilon") -> dpmo.Budget:
    """A Budget(1, 1e-6) with no epsilon left (``"epsilon"``) or no delta left (``"delta"``)."""
    b = dpmo.Budget(1, 1e-6)
    if kind == "epsilon":
        b.spend(1, "everything")
    else:
        dpmo.select(np.arange(3.0), 0.5, 1.0, budget=b, delta=1e-6, rng=0)
    return b


class Poisoned(dpmo.Objective):
    """An objective whose data may not be read: its values and local sensitivity raise."""

    __slots__ = ()

    @property
    def values(self):
        raise AssertionError("the objective's values were read before the budget was checked")

    def sensitivity(self, *args, **kwargs):
        raise AssertionError("the objective's sensitivity was read before the budget was checked")


def _error(call) -> type:
    try:
        call()
    except BaseException as err:  # BudgetExceededError is a BaseException
        return type(err)
    return type(None)


def _same_refusal(calls, delta, kind="epsilon"):
    """Every call (one per neighbouring input) raises BudgetExceededError on an exhausted budget."""
    got = [_error(lambda c=c: c(exhausted(kind), delta)) for c in calls]
    assert got == [dpmo.BudgetExceededError] * len(calls), got


SCORES = np.array([1.0, 3.0, 2.0])
NAN_SCORES = np.array([np.nan, 3.0, 2.0])


@pytest.mark.parametrize("delta", DELTAS)
def test_select_and_local_dampening_check_the_budget_before_the_scores(delta):
    _same_refusal(
        [lambda b, d, s=s: dpmo.select(s, 0.5, 1.0, budget=b, delta=d) for s in (SCORES, NAN_SCORES)], delta
    )
    _same_refusal(
        [
            lambda b, d, s=s: dpmo.local_dampening(s, 0.5, None, global_sensitivity=1.0, budget=b, delta=d)
            for s in (SCORES, NAN_SCORES)
        ],
        delta,
    )


def _objectives(poisoned: bool):
    kind = Poisoned if poisoned else dpmo.Objective
    return [kind([1.0, 3.0, 2.0], 1.0, name="a"), kind([2.0, 1.0, 2.0], 1.0, name="b")]


MULTI = {
    "priv_pareto": lambda o, b, d: dpmo.priv_pareto(o, 0.5, budget=b, delta=d),
    "priv_agg": lambda o, b, d: dpmo.priv_agg(o, [1.0, 1.0], 0.5, budget=b, delta=d),
    "priv_chebyshev": lambda o, b, d: dpmo.priv_chebyshev(o, 0.5, budget=b, delta=d),
    "select_multiobjective": lambda o, b, d: dpmo.select_multiobjective(o, 0.5, budget=b, delta=d),
    "staircase": lambda o, b, d: dpmo.select_multiobjective(o, 0.5, approach="staircase", budget=b, delta=d),
}


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("name", sorted(MULTI))
def test_multiobjective_entry_points_check_the_budget_before_reading_the_objectives(name, delta):
    call = MULTI[name]
    _same_refusal([lambda b, d, p=p: call(_objectives(p), b, d) for p in (False, True)], delta)
    # with budget to spend, the poisoned objective is read (the test's poison works)
    with pytest.raises(AssertionError, match="were read|was read"):
        call(_objectives(True), dpmo.Budget(1, 1e-6), delta)


EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
EDGE_TO_33 = np.array([[0, 1], [1, 2], [2, 3], [3, 33]])  # a neighbour: one edge differs

GRAPH_CALLS = {
    "top_k": lambda g, b, d: graphs.top_k(g, 1, 0.5, nodes=33, budget=b, delta=d),
    "top_k_two_stage": lambda g, b, d: graphs.top_k_two_stage(
        g, 1, 0.5, candidates=2, nodes=33, budget=b, delta=d
    ),
    "two_stage_candidates": lambda g, b, d: graphs.two_stage_candidates(
        g, 0.5, 2, nodes=33, budget=b, delta=d
    ),
}


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("name", sorted(GRAPH_CALLS))
def test_graph_entry_points_check_the_budget_before_the_edges(name, delta):
    call = GRAPH_CALLS[name]
    _same_refusal([lambda b, d, g=g: call(g, b, d) for g in (EDGES, EDGE_TO_33)], delta)
    with pytest.raises(ValueError, match="not in nodes"):  # the edge to 33 is refused when the budget fits
        call(EDGE_TO_33, dpmo.Budget(1, 1e-6), delta)


def _tables():
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    nan_x = X.copy()
    nan_x[0, 0] = np.nan
    label_7 = y.copy()
    label_7[0] = 7
    return {"clean": (X, y), "nan X": (nan_x, y), "label 7": (X, label_7), "one class": (X, np.ones_like(y))}


ESTIMATORS = {
    "DPMOETClassifier": lambda d: DPMOETClassifier(
        epsilon=0.5,
        delta=d,
        classes=[0, 1],
        population_size=8,
        selection_size=2,
        n_iterations=1,
        random_state=0,
    ),
    "DiffPID3Classifier": lambda d: DiffPID3Classifier(
        epsilon=0.5, delta=d, classes=[0, 1], max_depth=1, random_state=0
    ),
    "LocalDiffPID3Classifier": lambda d: LocalDiffPID3Classifier(
        epsilon=0.5, delta=d, classes=[0, 1], max_depth=1, random_state=0
    ),
}


@pytest.mark.parametrize("kind", ["epsilon", "delta"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimators_check_the_budget_before_the_table(name, kind):
    delta = 1e-7 if kind == "delta" else 0.0
    make = ESTIMATORS[name]
    tables = _tables()
    _same_refusal([lambda b, d, t=t: make(d).fit(*t, budget=b) for t in tables.values()], delta, kind)
    # with budget to spend, the bad tables are refused with a ValueError naming the problem
    for label in ("nan X", "label 7"):  # a one-class y is fine with classes=[0, 1]
        with pytest.raises(ValueError):
            make(delta).fit(*tables[label], budget=dpmo.Budget(1, 1e-6))


def test_private_tree_checks_the_budget_before_the_table():
    """PrivateTreeClassifier (pure: it spends no delta) refuses every neighbouring table alike when the
    budget's epsilon is used up."""
    from dpmo.trees import PrivateTreeClassifier

    def make(d):
        return PrivateTreeClassifier(0.5, classes=[0, 1], max_depth=2, random_state=0)

    tables = _tables()
    _same_refusal([lambda b, d, t=t: make(d).fit(*t, budget=b) for t in tables.values()], 0.0, "epsilon")
    with pytest.raises(ValueError):
        make(0.0).fit(*tables["nan X"], budget=dpmo.Budget(1.0))


def test_a_call_without_delta_left_is_refused_before_the_data():
    _same_refusal(
        [lambda b, d, s=s: dpmo.select(s, 0.1, 1.0, budget=b, delta=d) for s in (SCORES, NAN_SCORES)],
        1e-7,
        "delta",
    )
    _same_refusal(
        [lambda b, d, g=g: graphs.top_k(g, 1, 0.1, nodes=33, budget=b, delta=d) for g in (EDGES, EDGE_TO_33)],
        1e-7,
        "delta",
    )


@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("delta", DELTAS)
def test_spark_entry_points_check_the_budget_before_the_data(spark, delta):
    from dpmo import spark as dpmo_spark
    from dpmo.graphs import spark as graphs_spark

    edges = [
        spark.createDataFrame([tuple(map(int, p)) for p in g], "src long, dst long")
        for g in (EDGES, EDGE_TO_33)
    ]
    _same_refusal(
        [lambda b, d, e=e: graphs_spark.top_k(e, 1, 0.5, nodes=33, budget=b, delta=d) for e in edges], delta
    )
    rows = [[("a", 1.0, 2.0), ("b", 3.0, 1.0)], [("a", float("nan"), 2.0), ("b", 3.0, 1.0)]]
    frames = [spark.createDataFrame(r, "id string, u double, v double") for r in rows]
    objectives = {"u": 1.0, "v": 1.0}
    _same_refusal(
        [
            lambda b, d, f=f: dpmo_spark.select(
                f, 1, 0.5, objectives=objectives, id_column="id", budget=b, delta=d
            )
            for f in frames
        ],
        delta,
    )
