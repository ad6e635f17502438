"""Edge cases of the dataset loaders: the label column of NLTCS / ACS, files that are not UTF-8 text or hold
an over-long CSV field, the ``missing`` and ``categorical`` arguments of :func:`load_csv`, and
:meth:`Feature.scale` on values that are not numbers.

Each refusal is a TypeError / ValueError naming the argument (or the file) and what is allowed, and never
quotes the private data: no cell value, byte value or position, row or line number.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpmo.datasets import Feature, load_acs, load_adult, load_csv, load_nltcs

SECRET = "SECRET"


def _binary_table(path, n_columns, n_rows=6, seed=0):
    """A made-up table in the format of nltcs.dat / acs.dat (whitespace-separated 0/1, no header)."""
    rows = np.random.default_rng(seed).integers(0, 2, size=(n_rows, n_columns))
    path.write_text("\n".join(" ".join(str(v) for v in r) for r in rows) + "\n")
    return rows


def _assert_private(message, *forbidden):
    for word in (SECRET, *forbidden):
        assert word not in message, message
    assert "line " not in message and "position" not in message and "row 2" not in message, message


# ---------------------------------------------------------------------------------------------------------
# label_column of NLTCS and ACS

LOADERS = [(load_nltcs, "nltcs.dat", 16), (load_acs, "acs.dat", 23)]


@pytest.mark.parametrize(("loader", "file", "d"), LOADERS)
@pytest.mark.parametrize("label_column", [0, 5, "last"])
def test_label_column_valid_is_removed_from_predictors(tmp_path, loader, file, d, label_column):
    label_column = d - 1 if label_column == "last" else label_column
    rows = _binary_table(tmp_path / file, d)
    data = loader(tmp_path, label_column=label_column)
    assert data.X.shape == (len(rows), d - 1)
    assert data.y.tolist() == rows[:, label_column].tolist()
    kept = [j for j in range(d) if j != label_column]
    assert np.array_equal(np.asarray(data.X), rows[:, kept])
    assert f"x{label_column}" not in data.feature_names


@pytest.mark.parametrize(("loader", "file", "d"), LOADERS)
def test_label_column_numpy_integer_accepted(tmp_path, loader, file, d):
    rows = _binary_table(tmp_path / file, d)
    data = loader(tmp_path, label_column=np.int64(2))
    assert data.y.tolist() == rows[:, 2].tolist()


@pytest.mark.parametrize(("loader", "file", "d"), LOADERS)
@pytest.mark.parametrize("offset", ["-1", "-d", "d", "100"])
def test_label_column_out_of_range_refused(tmp_path, loader, file, d, offset):
    label_column = {"-1": -1, "-d": -d, "d": d, "100": 100}[offset]
    _binary_table(tmp_path / file, d)
    with pytest.raises(ValueError, match=rf"label_column must be an int in 0\.\.{d - 1}"):
        loader(tmp_path, label_column=label_column)


@pytest.mark.parametrize(("loader", "file", "d"), LOADERS)
@pytest.mark.parametrize("label_column", [13.0, "13", True, False, None, np.bool_(True)])
def test_label_column_wrong_type_refused(tmp_path, loader, file, d, label_column):
    _binary_table(tmp_path / file, d)
    with pytest.raises(TypeError, match=rf"label_column must be an int in 0\.\.{d - 1}"):
        loader(tmp_path, label_column=label_column)


def test_label_column_checked_before_the_file(tmp_path):
    # the argument is public: it is refused as such even when the file is absent
    with pytest.raises(ValueError, match="label_column"):
        load_nltcs(tmp_path / "absent.dat", label_column=-1)


def test_label_column_real_nltcs(shared_data):
    with pytest.raises(ValueError, match=r"label_column must be an int in 0\.\.15"):
        load_nltcs(shared_data, label_column=-1)


# ---------------------------------------------------------------------------------------------------------
# files that are not UTF-8 text

BAD_CSV = b"age,sex,sick\n30,F,0\n31,\xe9SECRET,1\n"


def _utf8_refusal(excinfo, path):
    message = str(excinfo.value)
    assert str(path) in message and "not UTF-8" in message
    _assert_private(message, "0xe9", "xe9", "\xe9")
    assert excinfo.value.__suppress_context__


def test_load_csv_not_utf8(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(BAD_CSV)
    with pytest.raises(ValueError) as excinfo:
        load_csv(path, "sick", categorical={"sex": ["F", "M"]}, bounds={"age": (0, 100)})
    assert not isinstance(excinfo.value, UnicodeDecodeError)
    _utf8_refusal(excinfo, path)


def test_load_csv_not_utf8_header(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes(b"age,s\xe9x,sick\n30,F,0\n")
    with pytest.raises(ValueError) as excinfo:
        load_csv(path, "sick", bounds={"age": (0, 100)})
    assert not isinstance(excinfo.value, UnicodeDecodeError)
    _utf8_refusal(excinfo, path)


ADULT_LINE = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, {sex}, 2174, 0, "
    "40, United-States, <=50K\n"
)


def test_load_adult_not_utf8(tmp_path):
    path = tmp_path / "adult.data"
    path.write_bytes(
        ADULT_LINE.format(sex="Male").encode() + ADULT_LINE.format(sex="\xe9SECRET").encode("latin-1")
    )
    with pytest.raises(ValueError) as excinfo:
        load_adult(path)
    assert not isinstance(excinfo.value, UnicodeDecodeError)
    _utf8_refusal(excinfo, path)


def test_load_adult_folder_not_utf8(tmp_path):
    (tmp_path / "adult.data").write_text(ADULT_LINE.format(sex="Male"))
    (tmp_path / "adult.test").write_bytes(ADULT_LINE.format(sex="\xe9SECRET").encode("latin-1"))
    with pytest.raises(ValueError) as excinfo:
        load_adult(tmp_path)
    assert not isinstance(excinfo.value, UnicodeDecodeError)
    _utf8_refusal(excinfo, tmp_path / "adult.test")


@pytest.mark.parametrize(("loader", "file", "d"), LOADERS)
def test_binary_table_not_utf8(tmp_path, loader, file, d):
    path = tmp_path / file
    path.write_bytes(b"0 " * (d - 1) + b"1\n" + b"\xe9 " * (d - 1) + b"1\n")
    with pytest.raises(ValueError) as excinfo:
        loader(tmp_path)
    assert not isinstance(excinfo.value, UnicodeDecodeError)
    _utf8_refusal(excinfo, path)


def test_adult_utf8_file_still_loads(tmp_path):
    path = tmp_path / "adult.data"
    path.write_text(ADULT_LINE.format(sex="Female") + ADULT_LINE.format(sex="Male"), encoding="utf-8")
    assert load_adult(path).X.shape == (2, 12)


# ---------------------------------------------------------------------------------------------------------
# a CSV field over the csv module's limit


def test_load_csv_field_over_limit(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("age,sex,sick\n30,F,0\n31," + SECRET * 30000 + ",1\n")
    with pytest.raises(ValueError) as excinfo:
        load_csv(path, "sick", categorical={"sex": ["F", "M"]}, bounds={"age": (0, 100)})
    message = str(excinfo.value)
    assert type(excinfo.value) is ValueError
    assert str(path) in message and "limit" in message
    _assert_private(message)


# ---------------------------------------------------------------------------------------------------------
# missing markers and categorical domains of load_csv

NA_CSV = "age,sex,sick\n30,A,0\n31,N,1\n32,NA,1\n33,?,0\n"


def test_missing_single_string_is_one_marker(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text(NA_CSV)
    data = load_csv(
        path, "sick", categorical={"sex": ["A", "N", "?"]}, bounds={"age": (0, 100)}, missing="NA"
    )
    # only the cell "NA" is missing: the rows holding "A" and "N" (and "?", not a marker here) are kept
    assert data.y.tolist() == [0, 1, 0]
    assert np.asarray(data.X)[:, 1].tolist() == [0.0, 1.0, 2.0]


def test_missing_collection_and_empty(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text(NA_CSV)
    meta = {"categorical": {"sex": ["A", "N", "?", "NA"]}, "bounds": {"age": (0, 100)}}
    assert load_csv(path, "sick", missing=["NA", "?"], **meta).y.tolist() == [0, 1]
    assert load_csv(path, "sick", missing=(), **meta).y.tolist() == [0, 1, 1, 0]
    assert load_csv(path, "sick", missing=frozenset({"?"}), **meta).y.tolist() == [0, 1, 1]


@pytest.mark.parametrize("missing", [None, 3, b"NA", ["NA", None], [1]])
def test_missing_wrong_type_refused(tmp_path, missing):
    path = tmp_path / "na.csv"
    path.write_text(NA_CSV)
    with pytest.raises(TypeError, match="missing must"):
        load_csv(path, "sick", categorical={"sex": ["A", "N"]}, bounds={"age": (0, 100)}, missing=missing)


@pytest.mark.parametrize("cats", [None, "FM", 3, b"FM"])
def test_categorical_domain_wrong_type_refused(tmp_path, cats):
    path = tmp_path / "a.csv"
    path.write_text("age,sex,sick\n30,F,0\n31,M,1\n")
    with pytest.raises(TypeError, match=r"categorical\['sex'\] must be a sequence"):
        load_csv(path, "sick", categorical={"sex": cats}, bounds={"age": (0, 100)})


@pytest.mark.parametrize(("arg", "value"), [("categorical", ["sex"]), ("bounds", [("age", (0, 1))])])
def test_metadata_not_a_mapping_refused(tmp_path, arg, value):
    path = tmp_path / "a.csv"
    path.write_text("age,sex,sick\n30,F,0\n31,M,1\n")
    kwargs = {"categorical": {"sex": ["F", "M"]}, "bounds": {"age": (0, 100)}}
    kwargs[arg] = value
    with pytest.raises(TypeError, match=f"{arg} must be a mapping"):
        load_csv(path, "sick", **kwargs)


def test_categorical_none_mapping_and_generator_domain(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("age,sex,sick\n30,F,0\n31,M,1\n")
    data = load_csv(path, "sick", categorical=None, bounds={"age": (0, 100)})
    assert data.feature_names == ("age",)
    data = load_csv(path, "sick", categorical={"sex": (c for c in ("F", "M"))})
    assert np.asarray(data.X)[:, 0].tolist() == [0.0, 1.0]


# ---------------------------------------------------------------------------------------------------------
# Feature.scale on values that are not numbers


@pytest.mark.parametrize("values", [[SECRET], ["1", SECRET], [1 + 2j], [[1.0, 2.0], [3.0]], [{"a": 1}]])
def test_scale_refuses_non_numbers_without_the_value(values):
    with pytest.raises(ValueError, match="numeric feature 'age'.*must be numbers") as excinfo:
        Feature("age", "numeric", bounds=(0, 100)).scale(values)
    _assert_private(str(excinfo.value))
    assert "could not convert" not in str(excinfo.value)
    assert excinfo.value.__suppress_context__


def test_scale_numbers_and_numeric_text_unchanged():
    age = Feature("age", "numeric", bounds=(0, 100))
    assert age.scale([25, "50", 150.0, -3]).tolist() == [0.25, 0.5, 1.0, 0.0]
    with pytest.raises(ValueError, match="not a finite number"):
        age.scale([np.nan])
