"""Edge inputs of the trees' tables and helpers: the encoded table's markings, the CSV / table readers'
column names and domains, the tree constructors, the export and the split sensitivity helpers."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from dpmo.datasets import Dataset, EncodedTable, Feature, load_adult, load_csv, load_nltcs
from dpmo.tables import read_table
from dpmo.trees import EncodedData, Tree, tree_from_nested, tree_to_dict
from dpmo.trees.split_sensitivity import (
    cell_local_sensitivity,
    cell_sensitivity,
    node_local_sensitivity,
    split_local_sensitivity,
    split_scores,
)
from dpmo.trees.units import encode_categories

AGE = Feature("age", "numeric", bounds=(0, 100))
SEX = Feature("sex", "categorical", ("F", "M", "X"))


def table():
    rng = np.random.default_rng(0)
    return EncodedTable(np.column_stack([rng.random(12), rng.integers(0, 3, 12)]), [AGE, SEX])


# ---------------------------------------------------------------------------------------------------------
# EncodedTable: every result is plain, or carries the features of its columns


def names(X):
    return None if X.features is None else [f.name for f in X.features]


def test_take_along_columns_carries_the_columns_features():
    X = table()
    for Z in (X.take([1, 0], axis=1), np.take(X, [1, 0], axis=1), X.take([1, 0], axis=-1)):
        assert isinstance(Z, EncodedTable) and names(Z) == ["sex", "age"]
        np.testing.assert_array_equal(np.asarray(Z), np.asarray(X)[:, [1, 0]])
    assert names(X.take([1], axis=1, mode="wrap")) == ["sex"]
    assert names(X.take([3, 0], axis=0)) == ["age", "sex"]  # rows keep the features
    assert names(X.compress([False, True], axis=1)) == ["sex"]


def test_computed_arrays_are_plain():
    X = table()
    computed = [
        np.sort(X, axis=1),
        np.roll(X, 1, axis=1),
        np.delete(X, 0, axis=1),
        np.flip(X, 1),
        np.repeat(X, 1, axis=1),
        X.repeat(1, axis=1),
        X.dot(np.eye(2)[::-1]),
        X.T.T,
        X.swapaxes(0, 1).swapaxes(0, 1),
        X.reshape(X.shape),
        X.argsort(axis=1),
        np.split(X, 2, axis=1)[1],
    ]
    for Z in computed:
        assert type(Z) is np.ndarray


def test_in_place_sort_within_rows_leaves_the_columns_unknown():
    X = table()
    X.sort(axis=1)
    assert isinstance(X, EncodedTable) and X.features is None
    Y = table()
    Y.sort(axis=0)  # within columns: each column keeps its feature
    assert names(Y) == ["age", "sex"]


def test_copies_and_pickles_keep_the_features():
    X = table()
    for Z in (X.copy(), pickle.loads(pickle.dumps(X)), X[2:], X[[0, 1]], X[:, [1]]):
        assert isinstance(Z, EncodedTable)
    assert names(pickle.loads(pickle.dumps(X))) == ["age", "sex"]


def test_ix_selection_carries_its_columns():
    X = table()
    Z = X[np.ix_(np.arange(5), [1])]
    assert names(Z) == ["sex"]
    assert names(X[np.ix_(np.arange(5), [1, 0])]) == ["sex", "age"]
    rows, cols = np.array([[0], [1]]), np.array([[1, 1], [0, 0]])  # columns vary along the rows
    assert X[rows, cols].features is None


def test_estimator_refuses_swapped_columns_and_fits_an_ix_selection():
    from dpmo.trees import DiffPID3Classifier

    X = table()
    y = (np.asarray(X)[:, 0] > 0.5).astype(int)
    clf = DiffPID3Classifier(5.0, random_state=0, classes=[0, 1]).fit(
        Dataset(np.asarray(X), y, [AGE, SEX], "t")
    )
    with pytest.raises(ValueError, match="differ"):
        clf.predict(X.take([1, 0], axis=1))
    DiffPID3Classifier(5.0, random_state=0, classes=[0, 1]).fit(X[np.ix_(np.arange(12), [1])], y)


# ---------------------------------------------------------------------------------------------------------
# messages without the row count


def test_one_dimensional_X_is_refused_without_its_length():
    with pytest.raises(ValueError, match="1-D") as err:
        EncodedData(np.zeros(569), np.zeros(569, int))
    assert "569" not in str(err.value)


@pytest.mark.parametrize("idx", [np.ones(10, bool), [10**6], [-(10**6)]])
def test_dataset_take_refuses_without_the_row_count(idx):
    data = Dataset(np.zeros((569, 1)), np.zeros(569, int), [AGE], "t")
    with pytest.raises(ValueError, match="idx") as err:
        data.take(idx)
    assert "569" not in str(err.value)
    with pytest.raises(TypeError, match="idx"):
        data.take(["a"])
    assert data.take([0, -1]).n_samples == 2 and data.take(np.arange(569) < 3).n_samples == 3


# ---------------------------------------------------------------------------------------------------------
# CSV and tables


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_headerless_empty_file_is_read_without_a_wide_header(tmp_path):
    import tracemalloc

    path = write(tmp_path, "empty.csv", "")
    tracemalloc.start()
    try:
        data = load_csv(path, "3000000", categorical={"0": ["a"]}, header=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data.X.shape == (0, 1) and peak < 10_000_000  # no header of 3 million names
    with pytest.raises(ValueError, match="no column"):
        load_csv(path, "²", categorical={"0": ["a"]}, header=False)
    rows = write(tmp_path, "c.csv", "30,F,1\n60,M,0\n")
    with pytest.raises(ValueError, match="no column"):
        load_csv(rows, "5", categorical={"1": ["F", "M"]}, header=False)


def test_read_table_takes_column_numbers_as_keys(tmp_path):
    path = write(tmp_path, "c.csv", "30,F,1\n60,M,0\n")
    by_number = read_table(path, label=2, categorical={1: ["F", "M"]}, bounds={0: (0, 100)}, header=False)
    by_text = read_table(path, label="2", categorical={"1": ["F", "M"]}, bounds={"0": (0, 100)}, header=False)
    np.testing.assert_array_equal(by_number.X, by_text.X)
    with pytest.raises(TypeError, match="categorical"):
        load_csv(path, "2", categorical={1: ["F", "M"]}, header=False)
    with pytest.raises(TypeError, match="header"):
        read_table(path, label=2, categorical={1: ["F", "M"]}, header="no")


def test_declared_categories_are_checked_against_the_cells_rules(tmp_path):
    path = write(tmp_path, "e.csv", "age,sex,y\n1, a b ,1\n2,,0\n")
    with pytest.raises(ValueError, match="whitespace"):
        load_csv(path, "y", categorical={"sex": [" a b ", "c"]}, bounds={"age": (0, 10)})
    with pytest.raises(ValueError, match="missing"):
        load_csv(path, "y", categorical={"sex": ["a b", ""]}, bounds={"age": (0, 10)})
    kept = load_csv(path, "y", categorical={"sex": ["a b", ""]}, bounds={"age": (0, 10)}, missing=())
    assert kept.X.shape == (2, 2)
    with pytest.raises(ValueError, match="same text"):
        load_csv(path, "y", categorical={"sex": [1, "1"]}, bounds={"age": (0, 10)})


@pytest.mark.parametrize("cats", [{"F", "M"}, frozenset({"F", "M"})])
def test_unordered_domains_are_refused(tmp_path, cats):
    path = write(tmp_path, "a.csv", "sex,y\nF,1\n")
    with pytest.raises(TypeError, match="sex"):
        load_csv(path, "y", categorical={"sex": cats})
    with pytest.raises(TypeError, match="categories"):
        Feature("sex", "categorical", cats)


def test_feature_refuses_a_str_unhashable_categories_and_huge_bounds():
    with pytest.raises(TypeError, match="categories"):
        Feature("s", "categorical", "FM")
    with pytest.raises(TypeError, match="categories"):
        Feature("s", "categorical", [[1], [2]])
    with pytest.raises(ValueError, match="bounds"):
        Feature("a", "numeric", bounds=(0, 10**400))


def test_exact_categories_win_over_text_aliases():
    for cats in ((1, "1"), ("1", 1)):
        feature = Feature("k", "categorical", cats)
        codes = encode_categories(np.array([1, "1"], dtype=object), feature)
        assert codes.tolist() == [float(cats.index(1)), float(cats.index("1"))]


def test_dat_label_must_be_an_int(tmp_path):
    write(tmp_path, "t.domain", "D 0 1\nD 0 1\nC 0 1\n")
    path = write(tmp_path, "t.dat", "0 1 0.5\n1 0 0.25\n")
    assert read_table(path, label=1).X.shape == (2, 2)
    for label in (1.5, True, 1.0):
        with pytest.raises(ValueError, match="label"):
            read_table(path, label=label)


def test_byte_order_mark_is_accepted(tmp_path):
    line = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
    line += "2174, 0, 40, United-States, <=50K\n"
    adult = write(tmp_path, "adult.data", line + line.replace("<=50K", ">50K"), encoding="utf-8-sig")
    assert load_adult(adult).y.tolist() == [0, 1]
    assert read_table(adult).y.tolist() == [0, 1]
    nltcs = write(
        tmp_path, "nltcs.dat", " ".join(["0"] * 16) + "\n" + " ".join(["1"] * 16) + "\n", "utf-8-sig"
    )
    assert load_nltcs(nltcs).X.shape == (2, 15)


# ---------------------------------------------------------------------------------------------------------
# trees and their export


def test_tree_constructors_name_their_arguments():
    with pytest.raises(ValueError, match="feature"):
        tree_from_nested((2**31, 0.5, False, 0, 1))
    with pytest.raises(TypeError, match="value"):
        tree_from_nested((0, "abc", False, 0, 1))
    with pytest.raises(TypeError, match="categorical"):
        tree_from_nested((0, 0.5, "no", 0, 1))
    with pytest.raises(TypeError, match="label"):
        Tree.leaf(True)
    with pytest.raises(ValueError, match="label"):
        Tree([-1], [0], [False], [257], [1], [0])
    with pytest.raises(TypeError, match="features"):
        tree_from_nested((0, 0.5, False, 0, 1)).to_text(3)


def test_fractional_category_test_is_not_shown_as_a_category():
    sex = [Feature("sex", "categorical", ("F", "M"))]
    node = tree_to_dict(tree_from_nested((0, 0.5, True, 1, 0)), sex, simplify=False)
    assert node["category"] not in ("F", "M") and node["category"] == pytest.approx(0.5)
    assert tree_to_dict(tree_from_nested((0, 1.0, True, 1, 0)), sex, simplify=False)["category"] == "M"


# ---------------------------------------------------------------------------------------------------------
# split sensitivity helpers


@pytest.mark.parametrize("t", [np.nan, np.inf, 1.5])
def test_distances_must_be_ints(t):
    with pytest.raises(TypeError, match="t must"):
        cell_local_sensitivity(1, 2, t)
    with pytest.raises(TypeError, match="t must"):
        split_local_sensitivity([1, 2], [3, 4], t)
    with pytest.raises(TypeError, match="t must"):
        node_local_sensitivity([1, 2], [3, 4])(t)


def test_negative_arguments_are_refused():
    with pytest.raises(ValueError, match="t must"):
        split_local_sensitivity([1, 2], [3, 4], -1, criterion="max")
    with pytest.raises(ValueError, match="t must"):
        node_local_sensitivity([1, 2], [3, 4], shared=True)(np.array([[-1]]))
    with pytest.raises(ValueError, match="cell counts"):
        cell_sensitivity(2, -5)


def test_groups_and_indices_are_checked():
    with pytest.raises(ValueError, match="groups"):
        split_local_sensitivity([1, 2], [3, 4], 1, groups=[0.5, 1.7])
    with pytest.raises(ValueError, match="n_groups"):
        split_scores([1, 2], [3, 4], groups=[0, 0], n_groups=10**12)
    f = node_local_sensitivity([1, 2], [3, 4])
    with pytest.raises(ValueError, match="idx"):
        f(1, idx=[5])
    with pytest.raises(ValueError, match="idx"):
        f(1, idx=[-1])
    assert f(1, idx=[0]).shape == (1,)
