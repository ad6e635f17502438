"""dpmo.spark.fit: the tree estimators on a Spark DataFrame equal their in-memory fit, counts only.

Law and ledger: with the same ``random_state`` the Spark fit releases the same model (trees, leaf counts,
ID3 tree) and the same ledger, record for record, as ``estimator.fit`` on the same rows in a pandas
DataFrame, on NLTCS, ACS and Adult (subsets, few generations / depths) and on generated tables. The two
fits run one selection code on the same exact integers (``dpmo.trees.counts``), so equality is expected
bit for bit; a difference in one count would change the selection scores and, almost surely, a pick.
Refusals: the in-memory words, no value, no row. What reaches the driver: per partition, a blob whose size
depends on the population (or the depth's nodes), never on the rows.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pyspark = pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')
pd = pytest.importorskip("pandas")

import dpmo  # noqa: E402
from dpmo import spark as dpspark  # noqa: E402
from dpmo.datasets import Feature  # noqa: E402
from dpmo.spark import trees as spark_trees  # noqa: E402
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier  # noqa: E402

pytestmark = [pytest.mark.xdist_group("spark")]

SMALL_MOET = dict(population_size=8, selection_size=3, n_iterations=1, initial_depth=2, max_depth=3)


def raw_frame(data, rows: int, seed: int = 0):
    """``(frame of raw values, y, features)`` of ``rows`` random records of a Dataset: categories by name,
    numbers in the units of their bounds."""
    idx = np.sort(np.random.default_rng(seed).choice(data.n_samples, size=rows, replace=False))
    X = np.asarray(data.X)[idx]
    cols = {}
    for j, f in enumerate(data.features):
        if f.is_categorical:
            cols[f.name] = np.asarray(f.categories, dtype=object)[X[:, j].astype(int)]
        else:
            lo, hi = f.bounds
            cols[f.name] = lo + X[:, j] * (hi - lo)
    return pd.DataFrame(cols), np.asarray(data.y)[idx], tuple(data.features)


def generated(rows: int = 600, seed: int = 0):
    """A table with a numeric column (with ties, values beyond its bounds) and two categorical ones."""
    rng = np.random.default_rng(seed)
    features = (
        Feature("age", "numeric", bounds=(18, 90)),
        Feature("colour", "categorical", ("red", "green", "blue")),
        Feature("n", "categorical", (0, 1, 2, 3)),
    )
    frame = pd.DataFrame(
        {
            "age": np.round(rng.normal(50, 25, rows)),
            "colour": rng.choice(["red", "green", "blue"], rows),
            "n": rng.integers(0, 4, rows),
        }
    )
    y = np.where((frame["colour"] == "red") ^ (rng.random(rows) < 0.2), "yes", "no")
    return frame, y, features


def spark_frame(spark, frame, y, label="label"):
    full = frame.copy()
    full[label] = y
    return spark.createDataFrame(full)


def same_model(a, b) -> None:
    assert type(a) is type(b)
    assert list(a.classes_) == list(b.classes_)
    if isinstance(a, DPMOETClassifier):
        assert [t.to_nested() for t in a.trees_] == [t.to_nested() for t in b.trees_]
        assert [t.to_nested() for t in a.voters_] == [t.to_nested() for t in b.voters_]
        if a.leaf_counts_ is None:
            assert b.leaf_counts_ is None
        else:
            assert all(
                np.array_equal(x, z, equal_nan=True)
                for x, z in zip(a.leaf_counts_, b.leaf_counts_, strict=True)
            )
    else:
        assert pickle.dumps(a.tree_) == pickle.dumps(b.tree_)
    if a.budget_ is None:
        assert b.budget_ is None
    else:
        assert a.budget_.ledger == b.budget_.ledger  # record for record: what, mechanism, epsilon, ...


@pytest.fixture(scope="module")
def datasets(shared_data):
    from dpmo.datasets import load_acs, load_adult, load_nltcs

    return {
        "nltcs": load_nltcs(shared_data / "nltcs.dat"),
        "acs": load_acs(shared_data / "acs.dat"),
        "adult": load_adult(shared_data),
    }


ESTIMATORS = [
    (DPMOETClassifier, SMALL_MOET),
    (DiffPID3Classifier, dict(max_depth=2)),
    (LocalDiffPID3Classifier, dict(max_depth=2)),
]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nltcs", "acs", "adult"])
def test_the_spark_fit_equals_the_in_memory_fit_on_the_papers_tables(spark, datasets, name):
    frame, y, features = raw_frame(datasets[name], 1500)
    df = spark_frame(spark, frame, y)
    for cls, kw in ESTIMATORS:
        here = cls(1.0, features=features, random_state=7, **kw).fit(frame, y)
        there = dpspark.fit(cls(1.0, features=features, random_state=7, **kw), df, "label")
        same_model(here, there)
        assert np.array_equal(there.predict(frame), here.predict(frame))  # pandas, by column name
        with warnings.catch_warnings():  # scikit-learn: "X does not have valid feature names" (as in memory)
            warnings.simplefilter("ignore", UserWarning)
            assert np.array_equal(there.predict(frame.to_numpy()), here.predict(frame))  # numpy, in order


@pytest.mark.slow
def test_generated_tables_with_budget_and_delta(spark):
    frame, y, features = generated()
    df = spark_frame(spark, frame, y)
    for cls, kw in ESTIMATORS:
        for delta in (0.0, 1e-6):
            outer_here, outer_there = dpmo.Budget(3.0, delta=1e-5), dpmo.Budget(3.0, delta=1e-5)
            est = dict(features=features, random_state=1, delta=delta, **kw)
            here = cls(1.0, **est).fit(frame, y, budget=outer_here)
            there = dpspark.fit(cls(1.0, **est), df, "label", budget=outer_there)
            same_model(here, there)
            assert outer_there.ledger == outer_here.ledger and outer_there.spent == outer_here.spent
            assert there.feature_names_in_.tolist() == ["age", "colour", "n"] and there.units_in_ == "raw"


@pytest.mark.slow
def test_jobs_and_what_reaches_the_driver(spark, monkeypatch):
    """One check pass, then one job per population (DP-MOET) or per depth (ID3); every job returns one
    blob per partition whose size does not depend on the number of rows."""
    sizes: dict[int, list] = {}
    real = spark_trees._collect

    def spy(frame, fn, name):
        out = real(frame, fn, name)
        sizes.setdefault(rows, []).append((name, sorted(len(b) for b in out)))
        return out

    monkeypatch.setattr(spark_trees, "_collect", spy)
    for rows in (300, 1200):
        frame, y, features = generated(rows)
        df = spark_frame(spark, frame, y).coalesce(2)
        dpspark.fit(DPMOETClassifier(1.0, features=features, random_state=0, **SMALL_MOET), df)
        assert spark_trees.last_fit.passes == ["check and encode", "counts", "counts"]  # n_iterations + 1
    counts_small = [s for n, s in sizes[300] if n == "counts"]
    counts_large = [s for n, s in sizes[1200] if n == "counts"]
    assert counts_small == counts_large  # (nodes x 2) int64 per partition, whatever the rows


@pytest.mark.slow
def test_refusals_name_no_value_and_no_row(spark):
    frame, y, features = generated(200)
    secret = "mauve-17"
    cases = {
        "undeclared category": frame.assign(colour=frame["colour"].where(frame.index != 5, secret)),
        "null": frame.assign(colour=frame["colour"].where(frame.index != 5, None)),
        "non-numeric": frame.assign(age=frame["age"].astype(object).where(frame.index != 5, secret)),
    }
    for what, bad in cases.items():
        est = DPMOETClassifier(1.0, features=features, random_state=0, **SMALL_MOET)
        with pytest.raises(ValueError) as here:
            DPMOETClassifier(1.0, features=features, random_state=0, **SMALL_MOET).fit(bad, y)
        budget = dpmo.Budget(1.0)
        sdf = spark_frame(spark, bad.astype({"age": str}) if what == "non-numeric" else bad, y)
        with pytest.raises(ValueError) as there:
            dpspark.fit(est, sdf, budget=budget)
        assert str(there.value) == str(here.value), what
        assert secret not in str(there.value) and " 5" not in str(there.value)
        assert budget.spent == 0  # refused before anything is spent
    # a value beyond its bounds is clipped, silently, as in memory
    far = frame.assign(age=frame["age"].where(frame.index != 5, 1e6))
    here = DPMOETClassifier(1.0, features=features, random_state=2, **SMALL_MOET).fit(far, y)
    same_model(here, dpspark.fit(DPMOETClassifier(1.0, features=features, random_state=2, **SMALL_MOET),
                                 spark_frame(spark, far, y)))  # fmt: skip


def test_arguments_are_checked(spark):
    frame, y, features = generated(50)
    df = spark_frame(spark, frame, y, label="target")
    with pytest.raises(ValueError, match="features="):
        dpspark.fit(DPMOETClassifier(1.0), df, "target")
    with pytest.raises(ValueError, match="label must name a column"):
        dpspark.fit(DPMOETClassifier(1.0, features=features), df, "label")
    with pytest.raises(ValueError, match="not described"):
        dpspark.fit(DPMOETClassifier(1.0, features=features[:2]), df, "target")
    with pytest.raises(TypeError, match="dpmo.trees estimator"):
        dpspark.fit(object(), df, "target")


@pytest.mark.slow
def test_a_parquet_file(spark, tmp_path):
    frame, y, features = generated(2000, seed=4)
    path = str(tmp_path / "table.parquet")
    full = frame.copy()
    full["label"] = y
    full.to_parquet(path)
    df = spark.read.parquet(path)
    est = dict(features=features, random_state=5)
    same_model(DPMOETClassifier(1.0, **est).fit(frame, y), dpspark.fit(DPMOETClassifier(1.0, **est), df))


# A virtual environment run without activation (trees' fit on Spark through a venv's python by path): checked
# by tests/test_spark_session.py::test_a_virtual_environment_run_without_activation, whose script fits a
# DPMOETClassifier on Spark in the same JVM as its graph call (one JVM instead of two, issue 37).


@pytest.mark.slow
def test_the_docs_example_runs(spark, tmp_path):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "spark.md").read_text()
    block = re.search(r"```python\n(# trees: a Parquet table.*?)```", text, re.S).group(1)
    # the JVM resolves relative paths from its own working directory
    block = block.replace('"people.parquet"', repr(str(tmp_path / "people.parquet")))
    namespace: dict = {}
    exec(compile(block, "docs/spark.md", "exec"), namespace)  # noqa: S102 - the page's own example
    assert namespace["budget"].spent == 1.0
    assert namespace["model"].budget_.ledger and len(namespace["model"].trees_) == 1
    assert spark_trees.last_fit.passes == ["check and encode", "counts", "counts", "counts"]


@pytest.mark.slow
def test_an_empty_table_fits_and_an_exhausted_budget_reads_no_data(spark):
    """Issue 41 on Spark: a DataFrame with no row fits (declared classes) as in memory, like its
    neighbour with one record; issue 37, point 11: an exhausted budget refuses before any row is read, so a
    table with an undeclared category and a clean one give the same error."""
    frame, y, features = generated(40)
    kw = dict(features=features, classes=["no", "yes"], random_state=3)
    empty_frame, empty_y = frame.iloc[:0], y[:0]
    schema = spark_frame(spark, frame, y).schema
    empty = spark.createDataFrame([], schema)
    one = spark_frame(spark, frame.iloc[:1], y[:1])
    for cls, extra in ESTIMATORS:
        here = cls(1.0, **kw, **extra).fit(empty_frame, empty_y)
        there = dpspark.fit(cls(1.0, **kw, **extra), empty, "label")
        same_model(here, there)
        neighbour = dpspark.fit(cls(1.0, **kw, **extra), one, "label")
        assert type(neighbour) is type(there)
    bad = frame.assign(colour=frame["colour"].where(frame.index != 5, "mauve"))
    for table in (frame, bad):
        spent = dpmo.Budget(1.0)
        spent.spend(1.0, "all of it")
        with pytest.raises(dpmo.BudgetExceededError):
            dpspark.fit(DPMOETClassifier(0.5, **kw, **SMALL_MOET), spark_frame(spark, table, y), budget=spent)
