"""The lean fit of a raw table (issue 40): column codes instead of an (n, d) float table, the same model.

The estimators read a raw DataFrame (or a plain raw array) column by column (``dpmo.trees.columns``) and
build the bit sets per column; the float path (``_coded_fit = False``) is the code before the change. On
generated tables with mixed scales, ties, values beyond the bounds, pandas Categoricals, numbers and text
as categories, both paths must give the same trees, leaf counts and ledger (the counts are exact integers),
and the same refusal, word for word. The counts providers agree with each other and with a per-row walk.
Memory and time figures live in benchmarks/bench_tree_memory.py.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pd = pytest.importorskip("pandas")

from dpmo.datasets import Feature  # noqa: E402
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, EncodedData, LocalDiffPID3Classifier  # noqa: E402
from dpmo.trees.columns import coded_columns  # noqa: E402
from dpmo.trees.counts import MemoryCounts, NodeCounts  # noqa: E402
from dpmo.trees.leaf_counts import leaf_class_counts  # noqa: E402

SMALL = {
    DPMOETClassifier: dict(population_size=8, selection_size=3, n_iterations=2, initial_depth=2, max_depth=4),
    DiffPID3Classifier: dict(max_depth=3),
    LocalDiffPID3Classifier: dict(max_depth=3),
}


def _float_path(cls):
    return type(f"Float{cls.__name__}", (cls,), {"_coded_fit": False})


def table(seed: int, rows: int):
    rng = np.random.default_rng(seed)
    features = (
        Feature("income", "numeric", bounds=(0, 1e5)),
        Feature("colour", "categorical", ("red", "green", "blue")),
        Feature("grade", "categorical", (1, 2, 3, 4, 5)),
        Feature("flag", "categorical", ("0", "1")),
        Feature("score", "numeric", bounds=(-1, 1)),
    )
    frame = pd.DataFrame(
        {
            "grade": rng.integers(1, 6, rows),  # numbers matched to numeric categories
            "income": np.round(rng.lognormal(10, 1.2, rows), -3),  # ties, values beyond the bound
            "colour": pd.Categorical(
                rng.choice(["red", "blue", "green"], rows), categories=["red", "green", "blue", "x"]
            ),
            "flag": rng.integers(0, 2, rows),  # numbers matched to text categories
            "score": rng.uniform(-2, 2, rows),  # half beyond the bounds: clipped
        }
    )
    y = rng.choice(["a", "b"], rows)
    return frame, y, features


def same(a, b) -> None:
    if isinstance(a, DPMOETClassifier):
        assert [t.to_nested() for t in a.trees_] == [t.to_nested() for t in b.trees_]
        assert all(
            np.array_equal(x, z, equal_nan=True) for x, z in zip(a.leaf_counts_, b.leaf_counts_, strict=True)
        )
    else:
        assert pickle.dumps(a.tree_) == pickle.dumps(b.tree_)
    assert a.budget_.ledger == b.budget_.ledger
    assert list(a.feature_names_in_) == list(b.feature_names_in_) and a.n_features_in_ == b.n_features_in_


def check_paths_agree(seed: int, rows: int) -> None:
    frame, y, features = table(seed, rows)
    for cls, kw in SMALL.items():
        est = dict(features=features, random_state=seed, classes=["a", "b"], **kw)
        lean = cls(1.0, **est).fit(frame, y)
        same(lean, _float_path(cls)(1.0, **est).fit(frame, y))
        # a plain raw array (columns in the features' order) is read the same way
        ordered = frame[[f.name for f in features]].to_numpy(dtype=object)
        arr = cls(1.0, **est).fit(ordered, y)
        ref = _float_path(cls)(1.0, **est).fit(ordered, y)
        if isinstance(arr, DPMOETClassifier):
            assert [t.to_nested() for t in arr.trees_] == [t.to_nested() for t in ref.trees_]
        else:
            assert pickle.dumps(arr.tree_) == pickle.dumps(ref.tree_)


def test_the_lean_fit_equals_the_float_path():
    check_paths_agree(0, 300)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), rows=st.integers(1, 400))
def test_the_lean_fit_equals_the_float_path_on_generated_tables(seed, rows):
    check_paths_agree(seed, rows)


@pytest.mark.parametrize(
    "column, value",
    [("colour", "mauve-17"), ("colour", None), ("income", "mauve-17"), ("income", np.inf), ("grade", 9)],
)
def test_the_same_refusal_word_for_word(column, value):
    frame, y, features = table(0, 30)
    frame[column] = frame[column].astype(object)
    frame.loc[7, column] = value
    for cls, kw in SMALL.items():
        with pytest.raises(ValueError) as lean:
            cls(1.0, features=features, random_state=0, **kw).fit(frame, y)
        with pytest.raises(ValueError) as ref:
            _float_path(cls)(1.0, features=features, random_state=0, **kw).fit(frame, y)
        assert str(lean.value) == str(ref.value)
        assert "mauve" not in str(lean.value) and " 7" not in str(lean.value)


def test_encodings_and_counts_providers_agree():
    frame, y, features = table(3, 700)
    cc = coded_columns(frame, features, "frame")
    y01 = (y == "b").astype(np.int8)
    lean, ref = EncodedData.from_columns(cc, y01), EncodedData(cc.to_matrix(), y01)
    assert lean.bitset and np.array_equal(lean.tables, ref.tables)
    assert np.array_equal(lean.X, ref.X)  # built on first use only
    level = EncodedData(cc.to_matrix(), y01, engine="level")  # the per-row walk
    from dpmo.trees import TreePopulation
    from dpmo.trees.breeding import node_arrays, random_population
    from dpmo.trees.operations import feature_spec

    is_cat, ncat = feature_spec(features)
    nodes, offsets = random_population(12, 4, is_cat, ncat, np.random.default_rng(1))
    pop = TreePopulation.from_arrays(*node_arrays(nodes), offsets)
    by_bits = np.concatenate(leaf_class_counts(pop, lean))
    by_rows = np.concatenate(leaf_class_counts(pop, level))
    assert np.array_equal(by_bits, by_rows)
    memory = MemoryCounts(lean)
    provider = NodeCounts(
        lambda p: np.concatenate(leaf_class_counts(p, level)), memory.positives, memory.negatives
    )
    for a, b in zip(memory.confusion(pop), provider.confusion(pop), strict=True):
        assert np.array_equal(a, b)
    assert provider.calls == 1
    again = provider.leaf_counts(pop.take([3, 0]))  # trees already counted: no further call
    assert provider.calls == 1 and np.array_equal(
        np.concatenate(again), np.concatenate(leaf_class_counts(pop.take([3, 0]), ref))
    )
