"""Ranges declared on some objectives only: dpmo.ranges.MixedRangesWarning (issue 38, "Unit-free").

chebyshev compares declared columns in range units with undeclared ones in sensitivity units, and staircase
ignores the declared ranges: both say so once per selection, naming the columns, from the declarations alone.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpmo
from dpmo.cli import main
from dpmo.ranges import MixedRangesWarning, mixed_ranges, mixed_ranges_note


def _table(seed: int, bounds_a=(0.5, 1.0), bounds_b=None):
    rng = np.random.default_rng(seed)
    a = dpmo.Objective(rng.uniform(0.5, 1.0, 40), 0.001, name="rate", bounds=bounds_a)
    b = dpmo.Objective(rng.integers(0, 300, 40).astype(float), 1.0, name="count", bounds=bounds_b)
    return [a, b]


def _run(objs, approach: str) -> list:
    kw = {"weights": [1.0, 1.0]} if approach == "agg" else {}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        dpmo.select_multiobjective(objs, 5.0, k=3, approach=approach, rng=0, **kw)
    return [w for w in seen if issubclass(w.category, MixedRangesWarning)]


@pytest.mark.parametrize("approach", ["chebyshev", "staircase"])
def test_a_mixed_table_warns_once_naming_the_columns_at_the_callers_line(approach):
    seen = _run(_table(0), approach)
    assert len(seen) == 1
    text = str(seen[0].message)
    assert "'count'" in text and "'rate'" in text and approach in text and "bounds=" in text
    assert seen[0].filename == __file__  # the user's line, not the pipeline's
    assert ("not used" in text) == (approach == "staircase")


@pytest.mark.parametrize("approach", ["chebyshev", "staircase", "agg", "pareto"])
@pytest.mark.parametrize("declared", ["all", "none"])
def test_no_warning_when_every_range_or_none_is_declared(approach, declared):
    objs = _table(1, bounds_b=(0, 300)) if declared == "all" else _table(1, bounds_a=None)
    assert _run(objs, approach) == []


@pytest.mark.parametrize("approach", ["agg", "pareto"])
def test_approaches_that_do_not_compare_units_never_warn(approach):
    assert _run(_table(2), approach) == []


def test_the_warning_reads_the_declarations_only():
    # the same message whatever the values (two unrelated tables, one with every count equal)
    first = _run(_table(3), "chebyshev")
    objs = _table(4)
    objs[1] = dpmo.Objective(np.zeros(40), 1.0, name="count")
    second = _run(objs, "chebyshev")
    assert [str(w.message) for w in first] == [str(w.message) for w in second] != []
    unnamed = [dpmo.Objective([1.0, 2.0], 1.0, bounds=(0, 3)), dpmo.Objective([1.0, 0.0], 1.0)]
    assert mixed_ranges(unnamed) == (["objective 1"], ["objective 2"])


def test_the_explicit_corner_staircase_is_not_warned_about():
    from dpmo.staircase import StaircaseApproach

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        dpmo.select_multiobjective(_table(5), 5.0, k=2, approach=StaircaseApproach(score="corners"), rng=0)
    assert not [w for w in seen if issubclass(w.category, MixedRangesWarning)]


@pytest.mark.parametrize("approach", ["chebyshev", "staircase"])
def test_cli_says_it_in_one_line_on_stderr_and_prints_only_the_picks(tmp_path, capsys, approach):
    rng = np.random.default_rng(6)
    path = tmp_path / "t.csv"
    rows = [f"{i},{rng.uniform(0.5, 1):.4f},{int(rng.integers(0, 300))}" for i in range(30)]
    path.write_text("id,a,b\n" + "\n".join(rows) + "\n")
    base = ["select", str(path), "--id-column", "id", "--approach", approach, "-k", "3", "--epsilon", "5"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", MixedRangesWarning)  # the library's warning is not shown twice
        assert main([*base, "--objective", "a=0.001@0.5:1", "--objective", "b=1", "--seed", "0"]) == 0
    out, err = capsys.readouterr()
    assert len(out.split()) == 3 and all(x.isdigit() for x in out.split())
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dpmo: warning: --approach {approach}: 'b'")
    assert "COL=SENS@LOW:HIGH" in lines[0]
    objs = [dpmo.Objective([0.7], 0.001, name="a", bounds=(0.5, 1.0)), dpmo.Objective([3.0], 1.0, name="b")]
    assert mixed_ranges_note(objs, approach) in lines[0]  # the library's wording, not a second one
    assert main([*base, "--objective", "a=0.001@0.5:1", "--objective", "b=1@0:300", "--seed", "0"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("bad", [None, 3, "ab"])
def test_mixed_ranges_refuses_what_is_not_a_sequence_of_objectives(bad):
    with pytest.raises(TypeError, match="objectives must be a sequence"):
        mixed_ranges(bad)
