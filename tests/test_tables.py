"""dpmo.tables.read_table and ``dpmo trees`` on tables in the forms users bring them."""

from __future__ import annotations

import numpy as np
import pytest

from dpmo.cli import main
from dpmo.datasets import load_acs, load_adult, load_nltcs
from dpmo.tables import read_domain, read_table

SMALL = ["--population-size", "6", "--selection-size", "2", "--iterations", "1", "--seed", "0"]


@pytest.mark.parametrize("name", ["nltcs.dat", "acs.dat", "adult.test", "."])
def test_shipped_tables_run_through_dpmo_trees_unchanged(shared_data, name, capsys):
    assert main(["trees", str(shared_data / name), *SMALL]) == 0
    out = capsys.readouterr().out
    assert "## tree 0" in out and "DP-MOET" in out
    assert "TPR" not in out  # the private trees only: no exact statistic without the flag


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_dat_tables_match_the_loaders(shared_data):
    for path, loader in ((shared_data / "nltcs.dat", load_nltcs), (shared_data / "acs.dat", load_acs)):
        a, b = read_table(path), loader(path)
        np.testing.assert_array_equal(a.X, b.X)
        np.testing.assert_array_equal(a.y, b.y)
        assert a.feature_names == b.feature_names
    adult = read_table(shared_data)
    assert adult.n_samples == load_adult(shared_data).n_samples == 45222


def test_dat_with_domain(tmp_path):
    (tmp_path / "t.dat").write_text("0 1 5\n1 0 2\n1 1 9\n")
    (tmp_path / "t.domain").write_text("D 0 1\nD 0 1\nC 0 10\n")
    with pytest.raises(ValueError, match="label column 2 must be discrete"):
        read_table(tmp_path / "t.dat")
    data = read_table(tmp_path / "t.dat", label=0)
    assert data.y.tolist() == [0, 1, 1] and data.feature_names == ("x1", "x2")
    np.testing.assert_allclose(data.X, [[1, 0.5], [0, 0.2], [1, 0.9]])
    (tmp_path / "u.dat").write_text("0 1\n")
    with pytest.raises(ValueError, match=r"u\.domain"):
        read_table(tmp_path / "u.dat")
    (tmp_path / "bad.domain").write_text("D 0 1\nX 3\n")
    with pytest.raises(ValueError, match="line 2"):
        read_domain(tmp_path / "bad.domain")


def test_csv_without_header(tmp_path, capsys):
    rows = (
        "\n".join(
            f"{a},{'yes' if a > 40 else 'no'},{s}" for a, s in zip(range(20, 80, 3), "MF" * 10, strict=True)
        )
        + "\n"
    )
    p = tmp_path / "people.csv"
    p.write_text(rows)
    data = read_table(
        p, label="1", positive="yes", bounds={"0": (17, 90)}, categorical={"2": ("F", "M")}, header=False
    )
    assert data.n_samples == 20 and data.feature_names == ("0", "2")
    argv = ["trees", str(p), "--no-header", "--label", "1", "--positive", "yes", "--numeric", "0=17:90"]
    assert main([*argv, "--categorical", "2=F,M", *SMALL]) == 0
    assert "if 2 == " in capsys.readouterr().out  # the column named by its number
    with pytest.raises(ValueError, match="label"):
        read_table(p, header=False, bounds={"0": (17, 90)})
    with pytest.raises(ValueError, match="predictors"):
        read_table(p, label="1", header=False)


def test_empty_and_one_class_tables(tmp_path, capsys):
    p = tmp_path / "e.csv"
    p.write_text("a,y\n")
    # issue 41: a table with no record releases like its one-record neighbours (the header is public)
    assert main(["trees", str(p), "--label", "y", "--numeric", "a=0:1", *SMALL]) == 0
    assert "## tree 0" in capsys.readouterr().out
    q = tmp_path / "one.csv"
    q.write_text("a,y\n0.1,1\n0.5,1\n")
    # the label set is public (the declared positive value, binarised): one class releases (issue 16)
    assert main(["trees", str(q), "--label", "y", "--numeric", "a=0:1", *SMALL]) == 0
    assert "## tree 0" in capsys.readouterr().out
