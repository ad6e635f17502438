"""Issue 41: one rule for a numeric value that is not a finite number, and the docs of two refusals.

A numeric column's domain is the finite reals: finite values outside the public bounds are clipped, while
``inf``, ``-inf`` and ``nan`` are refused (a domain check, one record at a time, naming the column and never
the row or the value) by every reader, the command line, ``Feature.scale`` and the estimators' ``fit``.
Before, ``dpmo trees`` clipped ``inf`` silently to the bound while ``fit`` refused it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpmo.cli import main
from dpmo.datasets import Feature, load_csv
from dpmo.graphs.nodes import OUTSIDE
from dpmo.tables import read_table
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier

DOCS = Path(__file__).resolve().parents[1] / "docs"
NONFINITE = ("inf", "-inf", "Infinity", "NaN", "1e999")


@pytest.mark.parametrize("cell", NONFINITE)
def test_cli_and_load_csv_refuse_a_cell_that_is_not_a_finite_number(tmp_path, capsys, cell):
    p = tmp_path / "t.csv"
    p.write_text(f"a,b,label\n0.1,0.2,0\n{cell},0.5,1\n7.25,0.3,1\n")  # 7.25: clipped, not refused
    assert main(["trees", str(p), "--numeric", "a=0:1", "b=0:1", "--label", "label"]) == 2
    err = capsys.readouterr().err
    assert "numeric column 'a'" in err and "not a finite number" in err
    assert cell not in err.replace("inf, -inf or nan", "") and "line" not in err
    with pytest.raises(ValueError, match="not a finite number"):
        load_csv(p, label="label", bounds={"a": (0, 1), "b": (0, 1)})
    # the same table with a finite out-of-range value instead releases (clipped to the bound)
    p.write_text("a,b,label\n0.1,0.2,0\n1e300,0.5,1\n7.25,0.3,1\n")
    assert main(["trees", str(p), "--numeric", "a=0:1", "b=0:1", "--label", "label", "--seed", "0"]) == 0
    assert load_csv(p, label="label", bounds={"a": (0, 1), "b": (0, 1)}).X[1:, 0].tolist() == [1.0, 1.0]


def test_a_missing_token_is_missing_not_refused(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,label\n0.1,0\nnan,1\n0.3,1\n")
    assert load_csv(p, label="label", bounds={"a": (0, 1)}).y.tolist() == [0, 1]  # the nan row left out


def test_dat_tables_refuse_inf_in_a_continuous_column(tmp_path):
    (tmp_path / "t.domain").write_text("C 0 10\nD 0 1\n")
    p = tmp_path / "t.dat"
    p.write_text("3 0\ninf 1\n")
    with pytest.raises(ValueError, match="not a finite number"):
        read_table(p)
    p.write_text("3 0\n99 1\n")  # finite, outside the bounds: clipped
    assert read_table(p).X[:, 0].tolist() == [0.3, 1.0]


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_feature_scale_and_fit_refuse_it_too(value):
    f = Feature("a", "numeric", bounds=(0, 10))
    assert f.scale([-5.0, 5.0, 50.0]).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="'a'.*not a finite number"):
        f.scale([1.0, value])
    X = np.array([[0.1, 0.2], [value, 0.5], [0.3, 0.3]])
    y = np.array([0, 1, 1])
    for est in (
        DPMOETClassifier(population_size=6, selection_size=2, n_iterations=1, classes=[0, 1]),
        DiffPID3Classifier(max_depth=2, classes=[0, 1]),
    ):
        with pytest.raises(ValueError):
            est.fit(X, y)
        feats = [Feature("a", "numeric", bounds=(0, 1)), Feature("b", "numeric", bounds=(0, 1))]
        with pytest.raises(ValueError, match="finite|infinity|NaN"):
            est.set_params(features=feats).fit(X, y)


def test_public_inputs_doc_states_what_the_refusals_say():
    text = " ".join((DOCS / "public-inputs.md").read_text(encoding="utf-8").split())
    # the out-of-set edge refusal names neither the node nor the edge (the code's message)
    assert "(`ValueError` naming the node)" not in text
    assert "names neither the node nor the edge" in text
    assert "which edge and node are not shown" in OUTSIDE and "which edge and node are not shown" in text
    # one rule for non-finite numeric values, and no refusal of a table left with no record
    assert "not a finite number (`inf`, `-inf`, `nan`" in text
    assert "no complete rows" not in text.replace("(`no complete rows`", "")
    assert "A table with no record is not refused" in text
