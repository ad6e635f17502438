"""A Budget cannot be copied while it can still spend (issue 20 point 3), and threads share it safely.

The joblib and cross_val_score cases fail on the old Budget: every worker got a copy, all three fits ran and
the caller's budget showed nothing spent.
"""

from __future__ import annotations

import copy
import pickle
import threading
from fractions import Fraction

import numpy as np
import pytest

from dpmo import Budget, BudgetExceededError

joblib = pytest.importorskip("joblib")
pytest.importorskip("sklearn")

from sklearn.model_selection import cross_val_score  # noqa: E402

from dpmo.trees import DiffPID3Classifier  # noqa: E402

MESSAGE = "dpmo.Budget cannot be"


def _table(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    return X, (X[:, 0] > 0.5).astype(int)


def _fit(budget, epsilon=1.0):
    X, y = _table()
    return DiffPID3Classifier(epsilon=epsilon, max_depth=1, random_state=0).fit(X, y, budget=budget)


@pytest.mark.parametrize(
    "how",
    [
        lambda b: pickle.dumps(b),
        lambda b: pickle.dumps(b, protocol=2),
        copy.copy,
        copy.deepcopy,
        lambda b: copy.deepcopy({"budget": [b]}),
    ],
)
def test_a_budget_that_can_spend_refuses_every_copy(how):
    b = Budget(1.0)
    child = b.split([0.5])[0]
    for live in (b, child):
        with pytest.raises(TypeError, match=MESSAGE) as err:
            how(live)
        text = str(err.value)
        assert "n_jobs=1" in text and "threading" in text and "split" in text
        assert "docs/privacy-accounting.md" in text
    child.spend(0.25, "half of the child")
    assert b.spent == 0.25 and b.remaining == 0.5  # nothing changed by the refusals


def test_a_spent_budget_copies_as_a_detached_record():
    b = Budget(1.0)
    child = b.split([0.5])[0]
    child.spend(0.5, "all of it", mechanism="laplace", sensitivity=1.0)
    for back in (pickle.loads(pickle.dumps(child)), copy.copy(child), copy.deepcopy(child)):
        assert back is not child and back.parent is None  # the live parent is not copied
        assert back.ledger == child.ledger and back.spent_exact == Fraction(1, 2)
        assert back.remaining_exact == 0
        with pytest.raises(BudgetExceededError):
            back.spend(1e-9, "more")
        with pytest.raises(BudgetExceededError):
            back.split(2)
    assert b.spent_exact == Fraction(1, 2) and b.remaining_exact == Fraction(1, 2)
    with pytest.raises(TypeError, match=MESSAGE):
        pickle.dumps(b)  # the parent can still spend


def test_a_fitted_estimator_pickles_with_its_spent_budget():
    shared = Budget(2.0)
    est = _fit(shared)
    again = pickle.loads(pickle.dumps(est))
    assert again.budget_.ledger == est.budget_.ledger and again.budget_.parent is None
    X, _ = _table()
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert shared.spent_exact == 1 and shared.remaining_exact == 1
    # scikit-learn's clone copies constructor parameters only: the budget is a fit parameter
    from sklearn.base import clone

    assert not any(isinstance(v, Budget) for v in est.get_params().values())
    assert not hasattr(clone(est), "budget_")


def test_joblib_processes_refuse_the_budget_instead_of_copying_it():
    """The issue's case: three fits of epsilon 1 on one Budget(1.0) under joblib n_jobs=2 all ran."""
    b = Budget(1.0)
    with pytest.raises(Exception) as err:  # noqa: PT011 - joblib wraps the TypeError in a PicklingError
        joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(_fit)(b) for _ in range(3))
    chain = f"{err.value} {err.value.__cause__}"
    assert MESSAGE in chain or isinstance(err.value, TypeError)
    assert b.spent == 0 and b.ledger == ()  # no fit ran anywhere


def test_cross_val_score_with_processes_refuses_the_budget():
    X, y = _table(60)
    b = Budget(1.0)
    est = DiffPID3Classifier(epsilon=0.2, max_depth=1, random_state=0)
    with pytest.raises(Exception) as err:  # noqa: PT011 - joblib wraps the TypeError in a PicklingError
        cross_val_score(est, X, y, params={"budget": b}, n_jobs=2, cv=3)
    chain = f"{err.value} {err.value.__cause__}"
    assert MESSAGE in chain or isinstance(err.value, TypeError)
    assert b.spent == 0
    # in this process the same call spends from the one budget, fold after fold
    scores = cross_val_score(est, X, y, params={"budget": b}, n_jobs=1, cv=3)
    assert len(scores) == 3 and b.spent_exact == Fraction(3, 5) and len(b.ledger) == 3 * 3


def test_threads_share_the_budget():
    b = Budget(1.0)

    def attempt(budget):
        try:
            _fit(budget)
            return "fit"
        except BudgetExceededError:
            return "refused"

    out = joblib.Parallel(n_jobs=2, backend="threading")(joblib.delayed(attempt)(b) for _ in range(3))
    assert sorted(out) == ["fit", "refused", "refused"]
    assert b.spent_exact == 1


def test_concurrent_spends_never_overspend():
    b = Budget(1.0)
    parts = b.split(2)
    results: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def worker(i):
        start.wait()
        for _ in range(40):
            target = parts[i % 2] if i < 4 else b
            try:
                target.spend(Fraction(1, 100), f"thread {i}")
                ok = True
            except BudgetExceededError:
                ok = False
            with lock:
                results.append(ok)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(results) == 100  # exactly the hundred hundredths that fit
    assert b.spent_exact == 1 and sum(r.epsilon for r in b.ledger) == 1
