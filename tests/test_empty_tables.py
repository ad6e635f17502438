"""Issue 41, point 1: a table whose every record is dropped (or that has none) releases like its neighbours.

Neighbouring relation: tables on the same public schema (columns, domains, label set) that differ in one
record added or removed. A row with a missing value in a used column is dropped by a rule per row, so the
table of two incomplete rows (x) and the same table plus one complete record (y) are neighbours: the
records that reach the mechanism are none on x and one on y. Both must give the same kind of outcome (a
release), never a refusal on one and a tree on the other.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpmo.cli import main
from dpmo.datasets import Feature, load_csv, load_nltcs
from dpmo.tables import read_table
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier, SingleLeafWarning

ALL_MISSING = "a,b,label\n0.1,0.2,?\n0.4,0.5,?\n"
PLUS_ONE = ALL_MISSING + "0.3,0.3,1\n"
SMALL = ["--population-size", "6", "--selection-size", "2", "--iterations", "1", "--seed", "0"]
FEATURES = [Feature("a", "numeric", bounds=(0, 1)), Feature("b", "numeric", bounds=(0, 1))]


def _tables(tmp_path):
    x, y = tmp_path / "x.csv", tmp_path / "y.csv"
    x.write_text(ALL_MISSING)
    y.write_text(PLUS_ONE)
    return x, y


@pytest.mark.parametrize("command,extra", [("trees", SMALL), ("id3", ["--seed", "0"])])
def test_cli_neighbours_both_release(tmp_path, capsys, command, extra):
    x, y = _tables(tmp_path)
    outs = []
    for path in (x, y):
        argv = [command, str(path), "--numeric", "a=0:1", "b=0:1", "--label", "label", "--classes", "0,1"]
        assert main([*argv, *extra]) == 0
        out, err = capsys.readouterr()
        assert "## tree 0" in out and "predict" in out
        assert "complete" not in out + err and "rows" not in out + err
        outs.append(out.splitlines()[0])
    assert outs[0] == outs[1]  # the same header (it names no statistic of the table)


def test_cli_header_only_table_releases_with_exact_statistics(tmp_path, capsys):
    p = tmp_path / "h.csv"
    p.write_text("a,b,label\n")
    argv = ["trees", str(p), "--numeric", "a=0:1", "b=0:1", "--label", "label", *SMALL]
    assert main([*argv, "--show-exact-statistics"]) == 0
    out = capsys.readouterr().out
    assert "## tree 0" in out and "NOT PRIVATE" in out
    assert "# 0\t0.0000\t0.0000" in out  # both classes absent: rates 0, as metrics.tpr_tnr says


def test_load_csv_and_read_table_return_the_empty_table(tmp_path):
    x, _ = _tables(tmp_path)
    data = load_csv(x, label="label", bounds={"a": (0, 1), "b": (0, 1)})
    assert data.X.shape == (0, 2) and data.y.shape == (0,)
    assert data.feature_names == ("a", "b")
    same = read_table(x, label="label", bounds={"a": (0, 1), "b": (0, 1)})
    assert same.X.shape == (0, 2)
    empty = tmp_path / "none.csv"
    empty.write_text("")
    no_header = load_csv(empty, label="2", bounds={"0": (0, 1)}, header=False)  # no line: no record
    assert no_header.X.shape == (0, 1)
    with pytest.raises(ValueError, match="header line"):  # the public header is absent: malformed
        load_csv(empty, label="label", bounds={"a": (0, 1)})


def test_binary_tables_with_no_row_are_empty(tmp_path):
    p = tmp_path / "nltcs.dat"
    p.write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "input contained no data" would depend on the records
        data = load_nltcs(p)
    assert data.X.shape == (0, 15) and data.y.shape == (0,)
    q = tmp_path / "t.dat"
    q.write_text("")
    (tmp_path / "t.domain").write_text("D 0 1\nC 0 10\nD 0 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = read_table(q)
    assert table.X.shape == (0, 2)


def _make(cls):
    if cls is DPMOETClassifier:
        return cls(
            epsilon=1.0,
            population_size=6,
            selection_size=2,
            n_iterations=1,
            max_depth=3,
            random_state=0,
            classes=[0, 1],
            features=FEATURES,
        )
    return cls(epsilon=1.0, max_depth=2, random_state=0, classes=[0, 1], features=FEATURES)


@pytest.mark.parametrize("cls", [DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier])
def test_estimators_fit_the_empty_table_like_its_neighbour(cls):
    X, y = np.empty((0, 2)), np.empty(0, dtype=int)
    Xn, yn = np.array([[0.3, 0.3]]), np.array([1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning that reads the records either
        # ... except the single-leaf warning, which reads only the released (public) tree: post-processing
        warnings.simplefilter("ignore", SingleLeafWarning)
        a = _make(cls).fit(X, y)
        b = _make(cls).fit(Xn, yn)
    attrs = [{k for k in vars(m) if k.endswith("_") and not k.startswith("_")} for m in (a, b)]
    assert attrs[0] == attrs[1]
    assert list(a.classes_) == list(b.classes_) == [0, 1]
    assert a.predict(np.array([[0.5, 0.5], [0.1, 0.9]])).shape == (2,)


def test_adult_file_whose_every_row_has_a_question_mark_is_empty(tmp_path):
    from dpmo.datasets import load_adult

    line = (
        "39, ?, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, "
        "United-States, <=50K\n"
    )
    p = tmp_path / "adult.data"
    p.write_text(line * 2)
    data = load_adult(p)
    assert data.X.shape == (0, 12) and data.y.shape == (0,)
