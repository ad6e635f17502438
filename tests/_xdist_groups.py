"""The xdist group of the Spark tests, kept by the scheduler itself (``pytest -n 2``, ``--dist loadgroup``).

pytest-xdist's ``loadgroup`` learns a test's group from its ``xdist_group`` mark by appending ``@name`` to
the test's id in the worker; from pytest 9.2 on, a test's id is no longer changed that way
(pytest-dev/pytest-xdist#1386) and the marks are silently ignored: the Spark tests were spread over both
workers one by one, each worker started a JVM and set up the same module fixtures. The controller does not
collect, so it cannot read the marks: :data:`GROUPS` names each group's tests by the start of their ids, and
:func:`check_marks` (run where the tests are collected) fails the run if a test's mark and its entry here
disagree. :func:`scheduling` is xdist's ``loadgroup`` with these groups; as in xdist (its default
``--loadscope-reorder``), the units with the most tests are handed out first, so the Spark group starts at
once and the single tests fill in around it; the tests of :data:`LAST` come last. Only which worker runs a
test, and when, changes; never what a test does.
"""

from __future__ import annotations

#: (start of a test id, xdist group); the first match counts
GROUPS: tuple[tuple[str, str], ...] = (
    ("tests/test_budget_first.py::test_spark_entry_points_check_the_budget_before_the_data", "spark"),
    ("tests/test_graphs_spark.py::", "spark"),
    ("tests/test_graphs_spark_small.py::", "spark"),
    ("tests/test_spark_select.py::", "spark"),
    ("tests/test_spark_input_edges.py::", "spark"),
    # the tests of test_spark_session.py on the session's JVM (the others: stand-ins, subprocesses)
    ("tests/test_spark_session.py::test_the_user_setting_is_never_overridden", "spark"),
    ("tests/test_spark_session.py::test_a_call_sets_its_options_and_restores_the_session", "spark"),
    ("tests/test_spark_session.py::test_bucket_keys_land_in_their_partitions", "spark"),
    ("tests/test_spark_session.py::test_a_bad_worker_python_is_refused_before_any_spark_job", "spark"),
    ("tests/test_spark_session.py::test_a_worker_that_cannot_import_is_reported_in_one_line", "spark"),
    ("tests/test_spark_session.py::test_on_a_cluster_one_probe_task_checks_the_executors", "spark"),
    ("tests/test_spark_session.py::test_quiet_holds_the_progress_bar_and_the_pandas_warnings", "spark"),
    ("tests/test_spark_trees.py::", "spark"),
)


#: tests handed out last: they run ``pytest`` on ``benchmarks/`` in a subprocess, which compiles every numba
#: kernel not in the cache yet, without the lock of ``tests/_numba_once.py``; run last, they find in the cache
#: what the workers compiled (with an empty cache, as in CI, the first took 67 s of CPU at the start of the
#: run, against 9 s warm)
LAST: tuple[str, ...] = (
    "tests/test_benchmarks.py::test_every_benchmark_runs_once_at_a_tiny_size",
    "tests/test_benchmarks.py::test_compare_against_a_commit_in_one_command",
)


def group_of(nodeid: str) -> str | None:
    """The xdist group of the test ``nodeid`` (its id from the repository's root, as pytest prints it)."""
    if "@" in nodeid.rpartition("]")[2]:  # xdist's own suffix, where it still adds one
        nodeid = nodeid.rpartition("@")[0]
    for start, name in GROUPS:
        if nodeid.startswith(start):
            return name
    return None


def check_marks(items) -> list[str]:
    """The tests among ``items`` whose ``xdist_group`` marks disagree with :func:`group_of`, with both."""
    wrong = []
    for item in items:
        marks = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        want = {group_of(item.nodeid)} - {None}
        if marks != want:
            wrong.append(f"{item.nodeid}: marked {sorted(marks)}, tests/_xdist_groups.py says {sorted(want)}")
    return wrong


def scheduling(config, log):
    """xdist's ``loadgroup`` scheduling with the groups of :data:`GROUPS` (None where xdist lacks it)."""
    try:
        from xdist.scheduler import LoadGroupScheduling
    except ImportError:  # another xdist layout: its own scheduling
        return None
    if not callable(getattr(LoadGroupScheduling, "_split_scope", None)):
        return None  # another xdist: its own scheduling (the groups may be lost again, never a test)

    class Scheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or super()._split_scope(nodeid)

        def schedule(self) -> None:
            super().schedule()  # the first units are handed out; the rest wait in the queue, in order
            queue = getattr(self, "workqueue", None)
            if hasattr(queue, "move_to_end"):  # xdist's OrderedDict of waiting units (else: xdist's order)
                for scope in [s for s in queue if s.startswith(LAST)]:
                    queue.move_to_end(scope)

    return Scheduling(config, log)
