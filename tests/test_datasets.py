"""Tests of dpmo.datasets: the loaders of the paper's tables and the generic CSV loader.

Expectations are derived independently of the loaders: the real files are re-parsed here with plain Python,
and scaled values are computed by hand from the public bounds.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpmo.datasets import (
    ADULT_FEATURES,
    BREAST_CANCER_BOUNDS,
    Dataset,
    Feature,
    load_acs,
    load_adult,
    load_breast_cancer,
    load_csv,
    load_nltcs,
)
from dpmo.datasets.types import LabelError


def _parse_binary(path):
    return [[int(v) for v in line.split()] for line in open(path) if line.strip()]


# ---------------------------------------------------------------------------------------------------------
# metadata classes


def test_feature_validation():
    assert Feature("a", "numeric", bounds=(0, 10)).bounds == (0.0, 10.0)
    assert Feature("c", "categorical", ["x", "y"]).categories == ("x", "y")
    with pytest.raises(ValueError, match="kind"):
        Feature("a", "ordinal")
    with pytest.raises(ValueError, match="bounds"):
        Feature("a", "numeric")
    with pytest.raises(ValueError, match="lo < hi"):
        Feature("a", "numeric", bounds=(1, 1))
    with pytest.raises(ValueError, match="categories"):
        Feature("c", "categorical")
    with pytest.raises(ValueError, match="distinct"):
        Feature("c", "categorical", ("x", "x"))
    with pytest.raises(ValueError, match="no bounds"):
        Feature("c", "categorical", ("x",), bounds=(0, 1))


def test_feature_scale_is_clipped_affine():
    f = Feature("age", "numeric", bounds=(17, 90))
    np.testing.assert_allclose(f.scale([17, 53.5, 90, 0, 200]), [0.0, 0.5, 1.0, 0.0, 1.0])


def test_dataset_validation():
    feats = (Feature("a", "numeric", bounds=(0, 1)),)
    d = Dataset(np.zeros((3, 1)), np.zeros(3, np.int8), feats, "t")
    assert d.n_samples == 3 and d.n_features == 1 and d.feature_names == ("a",)
    assert d.take([0, 2]).n_samples == 2
    with pytest.raises(ValueError, match="one label per row of X"):
        Dataset(np.zeros((3, 1)), np.zeros(2), feats, "t")
    with pytest.raises(ValueError, match="one entry per column"):
        Dataset(np.zeros((3, 2)), np.zeros(3), feats, "t")


# ---------------------------------------------------------------------------------------------------------
# NLTCS / ACS


def test_load_nltcs(shared_data):
    ds = load_nltcs(shared_data)
    raw = np.array(_parse_binary(shared_data / "nltcs.dat"))
    assert raw.shape == (21574, 16)
    assert ds.X.shape == (21574, 15) and ds.X.dtype == np.float64 and ds.y.dtype == np.int8
    np.testing.assert_array_equal(ds.y, raw[:, 13])
    np.testing.assert_array_equal(ds.X, np.delete(raw, 13, axis=1))
    assert all(f.kind == "categorical" and f.categories == (0, 1) for f in ds.features)
    assert ds.features[13].name == "x14"  # column 13 is the label, so the 14th predictor is column 14
    # a file path works too
    assert load_nltcs(shared_data / "nltcs.dat").n_samples == 21574


def test_load_acs(shared_data):
    ds = load_acs(shared_data / "acs.dat")
    raw = np.array(_parse_binary(shared_data / "acs.dat"))
    assert raw.shape == (47461, 23)
    assert ds.X.shape == (47461, 22)
    np.testing.assert_array_equal(ds.y, raw[:, 10])
    np.testing.assert_array_equal(ds.X, np.delete(raw, 10, axis=1))


def test_binary_table_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_nltcs(tmp_path / "missing.dat")
    with pytest.raises(FileNotFoundError):
        load_nltcs(tmp_path)  # a folder without nltcs.dat
    bad_cols = tmp_path / "cols.dat"
    bad_cols.write_text("0 1 0\n1 1 0\n")
    with pytest.raises(ValueError, match="16 columns"):
        load_nltcs(bad_cols)
    bad_label = tmp_path / "label.dat"
    row = ["0"] * 16
    row[13] = "2"
    bad_label.write_text(" ".join(row) + "\n" + " ".join(["1"] * 16) + "\n")
    with pytest.raises(ValueError, match="label column 13"):
        load_nltcs(bad_label)
    bad_text = tmp_path / "text.dat"
    bad_text.write_text("a b c\n")
    with pytest.raises(ValueError):
        load_acs(bad_text)


# ---------------------------------------------------------------------------------------------------------
# Adult


def _adult_rows(paths):
    rows = []
    for p in paths:
        for line in open(p):
            line = line.strip()
            if not line or line.startswith("|"):
                continue
            fields = [s.strip() for s in line.split(",")]
            if "?" in fields:
                continue
            rows.append(fields)
    return rows


def test_load_adult_counts(shared_data):
    ds = load_adult(shared_data)
    rows = _adult_rows([shared_data / "adult.data", shared_data / "adult.test"])
    assert ds.n_samples == len(rows) == 45222  # the paper's figure
    positives = sum(r[-1] in (">50K", ">50K.") for r in rows)
    assert int(ds.y.sum()) == positives
    assert [f.name for f in ds.features] == [
        "age", "workclass", "education-num", "marital-status", "occupation", "relationship", "race", "sex",
        "capital-gain", "capital-loss", "hours-per-week", "native-country",
    ]  # fmt: skip
    assert np.all((ds.X >= 0) & (ds.X <= 45))
    for j, f in enumerate(ds.features):
        if f.kind == "numeric":
            assert ds.X[:, j].min() >= 0 and ds.X[:, j].max() <= 1
        else:
            assert set(np.unique(ds.X[:, j])) <= set(range(len(f.categories)))


def test_load_adult_first_row_by_hand(shared_data):
    # adult.data line 1: 39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family,
    # White, Male, 2174, 0, 40, United-States, <=50K
    ds = load_adult(shared_data / "adult.data")
    expected = [
        (39 - 17) / 73, 5, (13 - 1) / 15, 1, 8, 3, 0, 1, 2174 / 99999, 0.0, (40 - 1) / 98, 0,
    ]  # fmt: skip
    np.testing.assert_allclose(ds.X[0], expected)
    assert ds.y[0] == 0
    # test file: first row "25, Private, ..., <=50K." and third row "28, Local-gov, ..., >50K."
    test = load_adult(shared_data / "adult.test")
    assert test.y[0] == 0 and test.y[2] == 1
    assert test.X[2, 0] == pytest.approx((28 - 17) / 73)


def test_adult_bounds_are_public_constants(shared_data):
    # the scaling does not depend on which rows are loaded
    a = load_adult(shared_data / "adult.data")
    b = load_adult(shared_data / "adult.test")
    assert a.features == b.features == ADULT_FEATURES
    assert dict((f.name, f.bounds) for f in ADULT_FEATURES if f.kind == "numeric") == {
        "age": (17.0, 90.0),
        "education-num": (1.0, 16.0),
        "capital-gain": (0.0, 99999.0),
        "capital-loss": (0.0, 4356.0),
        "hours-per-week": (1.0, 99.0),
    }


ADULT_LINE = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, {}\n"  # noqa: E501


def test_adult_synthetic_file(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text(
        "|1x3 Cross validator\n"
        + ADULT_LINE.format(">50K.")
        + ADULT_LINE.replace("State-gov", "?").format("<=50K")
        + ADULT_LINE.replace("Never-married", "Married-spouse-absent")
        .replace("39, State", "95, State")
        .format("<=50K")
    )
    ds = load_adult(p)
    assert ds.n_samples == 2  # the '?' row is dropped
    np.testing.assert_array_equal(ds.y, [1, 0])
    assert ds.X[1, 3] == 0  # married
    assert ds.X[1, 0] == 1.0  # age 95 clipped to the public upper bound 90


def test_adult_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_adult(tmp_path / "nope")
    (tmp_path / "adult.data").write_text(ADULT_LINE.format("<=50K"))
    with pytest.raises(FileNotFoundError, match="adult.test"):
        load_adult(tmp_path)
    bad = tmp_path / "bad_label.csv"
    bad.write_text(ADULT_LINE.format("rich"))
    with pytest.raises(ValueError, match="label"):
        load_adult(bad)
    bad = tmp_path / "bad_cat.csv"
    bad.write_text(ADULT_LINE.replace("State-gov", "Space-gov").format("<=50K"))
    with pytest.raises(ValueError, match="public domain"):
        load_adult(bad)
    bad = tmp_path / "bad_fields.csv"
    bad.write_text("1, 2, 3\n")
    with pytest.raises(ValueError, match="fields"):
        load_adult(bad)


# ---------------------------------------------------------------------------------------------------------
# generic CSV


CSV = """id,age,colour,score,label
1,20,red,3.5,yes
2,60,blue,?,no
3,100,green,1.0,yes
4,40,red,2.0,no
"""


def test_load_csv(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV)
    ds = load_csv(
        p,
        "label",
        positive="yes",
        categorical={"colour": ("red", "green", "blue")},
        bounds={"age": (0, 80), "score": (0, 5)},
    )
    assert ds.name == "t"
    assert ds.feature_names == ("age", "colour", "score")  # file order, id ignored
    np.testing.assert_array_equal(ds.y, [1, 1, 0])  # row 2 has a missing score
    np.testing.assert_allclose(ds.X, [[0.25, 0, 0.7], [1.0, 1, 0.2], [0.5, 0, 0.4]])


def test_load_csv_numeric_label_and_categories(tmp_path):
    p = tmp_path / "n.csv"
    p.write_text("a,b,y\n1,0.5,1.0\n0,0.25,0\n1,1,1\n")
    ds = load_csv(p, "y", categorical={"a": (0, 1)}, bounds={"b": (0, 1)}, name="n")
    np.testing.assert_array_equal(ds.y, [1, 0, 1])
    np.testing.assert_array_equal(ds.X[:, 0], [1, 0, 1])


def test_load_csv_errors(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV)
    with pytest.raises(FileNotFoundError):
        load_csv(tmp_path / "none.csv", "label", bounds={"age": (0, 1)})
    with pytest.raises(ValueError, match=r"no column\(s\) \['target'\] in the header line"):
        load_csv(p, "target", positive="yes", bounds={"age": (0, 80)})
    with pytest.raises(ValueError, match=r"no column\(s\) \['height'\]"):
        load_csv(p, "label", positive="yes", bounds={"height": (0, 80)})
    with pytest.raises(ValueError, match="give the predictors"):
        load_csv(p, "label", positive="yes")
    with pytest.raises(ValueError, match="both"):
        load_csv(p, "label", positive="yes", categorical={"age": (20,)}, bounds={"age": (0, 80)})
    # each label by the public rule alone, never a check of the set found: "red" against every other
    # colour, and a positive value no record holds gives a one-class table
    assert load_csv(p, "colour", positive="red", bounds={"age": (0, 80)}).y.tolist() == [1, 0, 0, 1]
    assert load_csv(p, "label", positive="maybe", bounds={"age": (0, 80)}).y.tolist() == [0, 0, 0, 0]
    with pytest.raises(LabelError, match="'colour' holds a label that is not in the declared") as e:
        load_csv(p, "colour", positive="red", negative="blue", bounds={"age": (0, 80)})
    assert "green" not in str(e.value) and "line" not in str(e.value)  # neither the label nor its line
    with pytest.raises(ValueError, match="two different labels"):
        load_csv(p, "label", positive="1", negative="1.0", bounds={"age": (0, 80)})
    with pytest.raises(ValueError, match="public domain"):
        load_csv(p, "label", positive="yes", categorical={"colour": ("red", "blue")})
    with pytest.raises(ValueError, match="holds a cell that is not a number"):
        load_csv(p, "label", positive="yes", bounds={"colour": (0, 1)})
    with pytest.raises(ValueError, match="bounds"):
        load_csv(p, "label", positive="yes", bounds={"age": None})
    bad = tmp_path / "b.csv"
    bad.write_text("a,y\n1,1\n1,2,3\n")
    with pytest.raises(ValueError, match="fields"):
        load_csv(bad, "y", bounds={"a": (0, 1)})


# ---------------------------------------------------------------------------------------------------------
# breast cancer


def test_load_breast_cancer():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    raw = sklearn_datasets.load_breast_cancer()
    ds = load_breast_cancer()
    assert ds.X.shape == (569, 30)
    assert int(ds.y.sum()) == 212  # malignant is the positive class
    np.testing.assert_array_equal(ds.y, raw.target == 0)
    assert all(f.kind == "numeric" for f in ds.features)
    lo = np.array([b[0] for b in BREAST_CANCER_BOUNDS])
    hi = np.array([b[1] for b in BREAST_CANCER_BOUNDS])
    np.testing.assert_allclose(ds.X, np.clip((raw.data - lo) / (hi - lo), 0, 1))
    # the fixed bounds cover the documented attribute ranges: almost nothing is clipped
    assert np.mean((ds.X == 0) | (ds.X == 1)) < 0.01
