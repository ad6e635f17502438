"""The rules of ``tests/_xdist_groups.py``: the Spark tests' group and the tests handed out last."""

from __future__ import annotations

from pathlib import Path

import _xdist_groups as groups

TESTS = Path(__file__).resolve().parent


def test_group_of_reads_the_id_with_or_without_the_suffix_of_xdist():
    assert groups.group_of("tests/test_graphs_spark.py::test_refusals") == "spark"
    assert groups.group_of("tests/test_spark_trees.py::test_x[acs]@spark") == "spark"
    budget = "tests/test_budget_first.py::test_spark_entry_points_check_the_budget_before_the_data[0.0]"
    assert groups.group_of(budget) == "spark"
    # the other tests of that module, and an "@" inside a test's parameters, are no group
    assert groups.group_of("tests/test_budget_first.py::test_select_refuses[0.0]") is None
    assert groups.group_of("tests/test_pareto.py::test_x[a@b]") is None


def test_every_entry_names_a_test_that_exists():
    for start in [s for s, _ in groups.GROUPS] + list(groups.LAST):
        module, _, name = start.partition("::")
        text = (TESTS.parent / module).read_text()
        assert not name or f"def {name}(" in text, start
