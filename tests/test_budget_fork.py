"""A budget that reaches a process through a fork refuses to spend there (issue 31 point 1).

The audit: with multiprocessing's ``fork`` start method a module-level ``Budget(1.0)`` reached three workers
without being pickled, each spent all of it, and the parent still showed 0 spent. On the old Budget the
first test below fails (the workers spend); now every spend, split and check in a forked child raises a
RuntimeError, the parent's budget is untouched, and a budget made in the child spends normally there.
"""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

from dpmo import Budget, BudgetExceededError
from dpmo.trees import DiffPID3Classifier  # imported here: the forked workers inherit it

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork start method on this platform"
)

MESSAGE = "reached this one through a fork"

#: The audit's module-level budget (set by the tests before they fork).
SHARED: Budget | None = None


def _outcome(call):
    try:
        return ("ran", call())
    except RuntimeError as err:
        return ("refused", str(err))
    except BaseException as err:  # BudgetExceededError is a BaseException: report it, never kill the worker
        return ("other", f"{type(err).__name__}: {err}")


def _spend_all(i):
    return _outcome(lambda: SHARED.spend(1.0, f"worker {i}", mechanism="laplace"))


def _every_way(_):
    return [
        _outcome(lambda: SHARED.spend(0.1, "spend")),
        _outcome(lambda: SHARED.spend_rounds(0.3, 3, "rounds", mechanism="exponential")),
        _outcome(lambda: SHARED.check(0.1)),
        _outcome(lambda: SHARED.split(2)),
        _outcome(lambda: SHARED.split([0.1])),
        _outcome(lambda: (SHARED.spent, len(SHARED.ledger), SHARED.remaining)),  # reading is fine
    ]


def _table():
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    return X, (X[:, 0] > 0.5).astype(int)


def _fit_in_worker(_):
    X, y = _table()
    est = DiffPID3Classifier(epsilon=0.5, max_depth=1, random_state=0)
    return _outcome(lambda: est.fit(X, y, budget=SHARED) and "fitted")


def _own_budget_in_worker(_):
    own = Budget(1.0)  # made in the child: it spends there as anywhere
    return _outcome(lambda: (own.spend(0.25, "child's own"), own.spend_rounds(0.75, 3, "rounds"), own.spent))


def _pool(n=3):
    return multiprocessing.get_context("fork").Pool(n)


def test_the_audit_forked_workers_cannot_spend_a_module_level_budget():
    global SHARED
    SHARED = Budget(1.0)
    with _pool() as pool:
        results = pool.map(_spend_all, range(3))
    assert [r[0] for r in results] == ["refused"] * 3, results
    for _, text in results:
        assert MESSAGE in text and "docs/privacy-accounting.md" in text and "epsilon=eps_i" in text
    # the parent's budget saw nothing and can still spend all of it
    assert SHARED.spent == 0.0 and SHARED.ledger == ()
    assert SHARED.spend(1.0, "the parent's own spend") == 1.0


def test_every_spending_path_refuses_in_a_forked_child_and_reading_works():
    global SHARED
    SHARED = Budget(1.0)
    SHARED.spend(0.25, "before the fork")
    with _pool(1) as pool:
        (results,) = pool.map(_every_way, [0])
    assert [r[0] for r in results[:5]] == ["refused"] * 5, results
    assert results[5] == ("ran", (0.25, 1, 0.75))  # the ledger as it was at the fork
    assert SHARED.spent == 0.25 and SHARED.remaining == 0.75


def test_a_sub_budget_and_an_estimator_fit_are_refused_in_a_forked_child():
    global SHARED
    parent = Budget(2.0)
    SHARED = parent.split([1.0])[0]
    X, y = _table()
    DiffPID3Classifier(epsilon=0.5, max_depth=1, random_state=0).fit(X, y)  # in the parent: it fits
    with _pool(1) as pool:
        results = pool.map(_fit_in_worker, [0])
    assert results[0][0] == "refused", results
    assert parent.spent == 0.0 and parent.remaining == 1.0 and SHARED.remaining == 1.0


def test_a_budget_made_in_the_child_spends_there():
    with _pool(1) as pool:
        (result,) = pool.map(_own_budget_in_worker, [0])
    assert result == ("ran", (0.25, 0.25, 1.0))


def test_a_grandchild_cannot_spend_its_parents_budget_and_the_parent_still_can():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: makes a budget, forks a grandchild that tries to spend it
        try:
            own = Budget(1.0)
            inner = os.fork()
            if inner == 0:
                code = 0
                try:
                    own.spend(0.5, "grandchild")
                except RuntimeError as err:
                    code = 3 if MESSAGE in str(err) else 1
                except BaseException:
                    code = 1
                os._exit(code)
            _, status = os.waitpid(inner, 0)
            own.spend(1.0, "the child's own spend")  # the child still spends its own budget
            os.write(write, f"{os.waitstatus_to_exitcode(status)} {own.spent}".encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as fh:
        reported = fh.read()
    assert reported == "3 1.0", reported
    b = Budget(0.5)
    b.spend(0.5, "after the forks")
    with pytest.raises(BudgetExceededError):
        b.spend(0.1, "too much")


def _delta_call_in_worker(_):
    import dpmo

    return _outcome(lambda: dpmo.select(np.arange(5.0), 0.5, 1.0, k=2, delta=1e-7, budget=SHARED, rng=0))


def test_a_call_with_delta_is_refused_in_a_forked_child():
    # a call with delta > 0 reserves its (epsilon, delta) and spends from a budget of its own, made in the
    # child: the reservation itself must be refused there, or that budget would spend freely
    global SHARED
    SHARED = Budget(1.0, delta=1e-6)
    with _pool(1) as pool:
        (result,) = pool.map(_delta_call_in_worker, [0])
    assert result[0] == "refused" and MESSAGE in result[1], result
    assert SHARED.spent == 0.0 and SHARED.remaining_delta == 1e-6


# ------------------------------------------------------------------------------------------ issue 37.13
def _reload_then_spend(_):
    import importlib

    import dpmo._fork

    importlib.reload(dpmo._fork)  # the fork counter is 0 again in this child
    return _outcome(lambda: SHARED.spend(1.0, "after a reload", mechanism="laplace"))


def _reset_then_spend(_):
    import dpmo._fork

    dpmo._fork.generation = 0
    return [
        _outcome(lambda: SHARED.spend(1.0, "after a reset", mechanism="laplace")),
        _outcome(lambda: SHARED.check(0.5)),
        _outcome(lambda: SHARED.split(2)),
    ]


def test_resetting_the_fork_counter_in_a_child_does_not_let_it_spend():
    """``importlib.reload(dpmo._fork)`` or ``dpmo._fork.generation = 0`` in a forked child reset the
    counter; the budget also keeps the id of the process that made it, so the child is still refused."""
    global SHARED
    SHARED = Budget(1.0)
    with _pool(2) as pool:
        reloaded = pool.map(_reload_then_spend, range(1))
        reset = pool.map(_reset_then_spend, range(1))
    assert reloaded[0][0] == "refused", reloaded
    assert [r[0] for r in reset[0]] == ["refused"] * 3, reset
    assert SHARED.spent == 0 and SHARED.remaining == 1.0
    assert SHARED.spend(1.0, "the parent spends", mechanism="laplace") == 1.0
