"""``python -m dpmo.experiments.compare``: two result folders compared run by run and cell by cell."""

from __future__ import annotations

import contextlib
import csv
import io

import numpy as np
import pytest
from scipy import stats

from dpmo.experiments import mean_ci, read_rows, run_experiment, toy_experiment
from dpmo.experiments.compare import compare_folders, compare_rows, main
from dpmo.experiments.orchestrate import reproduce

TOY = toy_experiment(methods=("A-local", "A-global", "NODP"), epsilons=(0.1, 1.0), runs=30, chunk=10)


def _grid(folder, seed=0):
    run_experiment(TOY, {"toy": []}, folder, seed=seed, jobs=1, progress=False)
    return folder / "toy.csv"


def _rewrite(path, change):
    """Apply ``change(row)`` to every row of a results CSV."""
    rows = read_rows(path)
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:
            writer.writerow(change(dict(r)))


def _main(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main([str(a) for a in argv])
    return status, out.getvalue()


def test_same_code_and_seed_is_identical_whatever_the_timings(tmp_path):
    _grid(tmp_path / "old")
    new = _grid(tmp_path / "new")
    _rewrite(new, lambda r: {**r, "seconds": "9.5", "cpu_seconds": "9.1"})
    status, text = _main(tmp_path / "old", tmp_path / "new")
    [res] = compare_folders(tmp_path / "old", tmp_path / "new")
    assert status == 0 and res.identical and res.compared == 5 * 30 and res.differing == 0
    assert "identical run by run" in text


def test_a_changed_cell_is_found_and_listed(tmp_path):
    _grid(tmp_path / "old")
    new = _grid(tmp_path / "new")

    # one cell shifted far beyond its interval, another changed in one run only
    def change(r):
        if r["method"] == "A-global" and r["epsilon"] == "0.1":
            r["score"] = repr(float(r["score"]) + 50.0)
        if r["method"] == "NODP" and r["run"] == "3":
            r["ref"] = "0.5"
        return r

    _rewrite(new, change)
    status, text = _main(tmp_path / "old", tmp_path / "new")
    [res] = compare_folders(tmp_path / "old", tmp_path / "new")
    assert status == 1 and not res.ok
    assert res.differing == 30 + 1
    outside = {(c.method, c.epsilon, c.metric) for c in res.outside}
    assert ("A-global", "0.1", "score") in outside
    shifted = next(c for c in res.cells if (c.method, c.epsilon, c.metric) == ("A-global", "0.1", "score"))
    assert shifted.differing_rows == 30 and shifted.p_value < 1e-6
    assert "**outside**" in text and "A-global" in text


def test_inside_means_the_new_mean_in_the_old_t_interval():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.normal(size=25), rng.normal(0.3, 1.0, size=25)
        old, new = (
            [{"dataset": "d", "method": "m", "epsilon": "1.0", "run": str(i), "x": repr(float(v))}
             for i, v in enumerate(x)]
            for x in (a, b)
        )  # fmt: skip
        [cell] = compare_rows("e", old, new, ["x"]).cells
        s = mean_ci(a)
        assert cell.inside == (s.lo <= b.mean() <= s.hi)
        assert cell.p_value == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)


def test_constant_cells():
    rows = [{"dataset": "d", "method": "m", "epsilon": "1.0", "run": str(i), "x": "0.0"} for i in range(5)]
    moved = [dict(r, x="1.0") for r in rows]
    [same] = compare_rows("e", rows, rows, ["x"]).cells
    [other] = compare_rows("e", rows, moved, ["x"]).cells
    assert same.inside and same.p_value == 1.0
    assert not other.inside and other.p_value == 0.0


def test_another_seed_differs_run_by_run_but_not_in_distribution(tmp_path):
    # the toy's metric is the same distribution under both seeds: rows differ, cells mostly inside
    _grid(tmp_path / "old", seed=0)
    _grid(tmp_path / "new", seed=1)
    [res] = compare_folders(tmp_path / "old", tmp_path / "new")
    assert res.compared == 150 and res.differing > 100
    assert not res.identical
    assert len(res.outside) <= len(res.cells) // 2


def test_reproduce_folders_and_bad_input(tmp_path):
    kw = dict(experiment="graph-agg", data_dirs=[], quick=True, runs=3, epsilons=(1.0,), jobs=1,
              progress="off", report=False)  # fmt: skip
    with contextlib.redirect_stderr(io.StringIO()):
        reproduce(["graph-agg"], tmp_path / "a", seed=0, **kw)
        reproduce(["graph-agg"], tmp_path / "b", seed=0, **kw)
    status, text = _main(tmp_path / "a", tmp_path / "b")
    assert status == 0 and "| graph-agg |" in text and "identical run by run" in text
    assert _main(tmp_path / "a", tmp_path / "missing")[0] == 2
    (tmp_path / "empty").mkdir()
    assert _main(tmp_path / "a", tmp_path / "empty")[0] == 2


def test_a_csv_of_another_layout_is_bad_input(tmp_path, capsys):
    """A results CSV with another header stopped with a KeyError traceback (exit 1); the docstring says 2."""
    from dpmo.experiments.compare import main as compare_main

    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "graph-agg.csv").write_text("a,b,c\n1,2,3\n")
    assert compare_main([str(tmp_path / "old"), str(tmp_path / "new")]) == 2
    assert "lacks the columns" in capsys.readouterr().err


def test_nan_metrics_are_missing_not_counted():
    """A NaN metric (undefined in that run) counted towards a cell's n, as the report (mean_ci) does not."""
    cell = {"dataset": "d", "method": "m", "epsilon": "1.0"}
    old = [dict(cell, run=str(i), x=str(float(i))) for i in range(6)]
    new = [dict(r, x="nan" if int(r["run"]) % 2 else r["x"]) for r in old]
    [cell] = compare_rows("e", old, new, ["x"]).cells
    assert cell.old_n == 6 and cell.new_n == 3
    assert cell.new_mean == pytest.approx(2.0)  # runs 0, 2 and 4
    bad = [dict(r, x="high") for r in old]
    with pytest.raises(ValueError, match="'x'"):
        compare_rows("e", old, bad, ["x"])
