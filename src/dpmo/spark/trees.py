"""The private tree estimators on a Spark DataFrame: :func:`fit` (DP-MOET, DiffP-ID3, LocalDiffPID3).

``dpmo.spark.fit(estimator, df, label)`` fits a :mod:`dpmo.trees` estimator on a Spark table whose columns
are the estimator's declared ``features`` (raw units, found by name) and the label column ``label``, and
returns the estimator, fitted: the same class, which predicts on numpy arrays and pandas DataFrames as
usual. The estimators read their private table only through counts (:mod:`dpmo.trees.counts`,
:mod:`dpmo.trees.id3_counts`); here those counts are computed on the executors and summed, and only they
reach the driver, never a row:

* one pass that checks and encodes: per column, whether some value is null, outside its public
  categories, non-numeric or infinite (flags, no value), the number of rows and the tally of each label
  (at most three labels) reach the driver; the encoded table, batch by batch, stays in Spark's cache on the
  executors (DP-MOET: the bit sets of :class:`~dpmo.trees.EncodedData`; the ID3 estimators: 16-bit value
  codes). A plain Parquet table on the local file system is read by pyarrow (:func:`parquet_pieces`);
* DP-MOET: one job per population evaluated (the initial trees, then one per generation), returning the
  (negative, positive) records at every leaf of every tree. TP and TN are sums of those counts; the output
  trees' leaf counts are among them (no further pass);
* DiffP-ID3 / LocalDiffPID3: one job per depth, returning the class counts of every (node, attribute
  value) of the depth's nodes and each node's class counts.

The selection code is the in-memory fit's (``_evolve`` / ``_grow`` with another counts provider), and the
counts are exact integers, so with the same ``random_state`` the released model and the ledger are the
in-memory fit's on the same rows, record for record (tests/test_spark_trees.py). ``budget=`` and the
estimator's ``delta`` work as in memory. A column that does not match its feature (a null, an undeclared
category, a non-numeric or infinite value in a numeric column) gets the in-memory refusal, with the same
words: the column is named, never a value or a row. Numeric values outside the bounds are clipped without a
word, as in memory.
"""

from __future__ import annotations

import pickle
import time
from functools import partial

import numpy as np

from .session import library_call
from .tree_batches import (
    BLOB_SCHEMA,
    ENCODED_SCHEMA,
    NOT_FINITE,
    NOT_NUMERIC,
    NULL,
    UNKNOWN,
    count_partition,
    encode_partition,
    encode_pieces,
    id3_partition,
)

__all__ = ["fit", "FitStats"]

_ARRAYS = ("feature", "value", "categorical", "label", "size", "depth")


class FitStats:
    """What the last :func:`fit` ran: ``jobs`` (Spark jobs started by dpmo), ``passes`` (their names) and
    ``seconds`` (the wall-clock time of each)."""

    def __init__(self):
        self.jobs = 0
        self.passes: list[str] = []
        self.seconds: list[float] = []

    def add(self, name: str, seconds: float) -> None:
        self.jobs += 1
        self.passes.append(name)
        self.seconds.append(seconds)


#: The counters of the last :func:`fit` (read by the benchmarks and the tests).
last_fit = FitStats()


def _collect(frame, fn, name: str) -> list[bytes]:
    start = time.perf_counter()
    out = [bytes(r[0]) for r in frame.mapInArrow(fn, BLOB_SCHEMA).collect()]
    last_fit.add(name, time.perf_counter() - start)
    return out


def _estimator_kind(estimator) -> str:
    from ..trees.id3 import DiffPID3Classifier, LocalDiffPID3Classifier
    from ..trees.moet import DPMOETClassifier

    if isinstance(estimator, DPMOETClassifier):
        return "moet"
    if isinstance(estimator, (DiffPID3Classifier, LocalDiffPID3Classifier)):
        return "id3"
    raise TypeError(
        "estimator must be a dpmo.trees estimator (DPMOETClassifier, DiffPID3Classifier or "
        f"LocalDiffPID3Classifier), got {type(estimator).__name__}"
    )


def _check_columns(df, features, label: str) -> list[str]:
    cols = list(df.columns)
    if label not in cols:
        raise ValueError(f"label must name a column of df; {label!r} is not one of {cols[:10]}")
    names = [f.name for f in features]
    others = [c for c in cols if c != label]
    missing = [n for n in names if n not in others]
    extra = [c for c in others if c not in names]
    if missing or extra:
        raise ValueError(
            f"the columns of df must be the features' columns and the label; missing {missing}, not "
            f"described {extra} (declare every column with features=, or drop it)"
        )
    return others


def _refuse(flags: np.ndarray, features) -> None:
    """The in-memory refusal of the first column at fault (features' order), with its words."""
    from ..trees.units import unknown_category

    for f, flag in zip(features, flags[: len(features)], strict=True):
        if flag & NULL:
            raise ValueError(f"column {f.name!r} of X holds missing values (NaN/None); drop or fill them")
        if flag & UNKNOWN:
            unknown_category(f)
        if flag & NOT_NUMERIC:
            raise ValueError(
                f"column {f.name!r} of X is numeric (bounds {f.bounds}) but holds non-numeric values"
            )
        if flag & NOT_FINITE:
            raise ValueError(f"column {f.name!r} of X must be finite (no NaN or inf)")
    if flags[len(features)] & NULL:
        raise ValueError("the label column holds missing values (which rows is not shown); drop or fill them")


def _labels(estimator, tally: dict, rows: int):
    """``(classes, positives)`` by the in-memory rule (:func:`dpmo.trees._inputs.fit_labels`) applied to
    the distinct labels; the number of positive records."""
    from ..trees._inputs import fit_labels

    values = list(tally)
    distinct = np.asarray(values) if values else np.asarray([], dtype=np.int64)
    _, classes = fit_labels(estimator, distinct, distinct.shape[0])
    positive = classes[1]
    positives = sum(c for v, c in tally.items() if v == positive)
    return classes, int(positives)


def fit(estimator, df, label: str = "label", *, budget=None):
    """Fit a :mod:`dpmo.trees` estimator on a Spark DataFrame; only counts leave the executors.

    Parameters
    ----------
    estimator : DPMOETClassifier, DiffPID3Classifier or LocalDiffPID3Classifier
        With its parameters as given; its ``features`` (the public metadata of the columns) are required.
    df : pyspark.sql.DataFrame
        The features' columns (raw units: categories themselves, numbers in the units of their bounds;
        found by name) and the label column. Any source: a Parquet file (``spark.read.parquet``), a table.
    label : str, default "label"
        The name of the label column. Two labels (declare them with the estimator's ``classes``).
    budget : dpmo.Budget, optional
        As :meth:`~dpmo.trees.DPMOETClassifier.fit`'s: the fit's epsilon is reserved in it.

    Returns
    -------
    estimator
        Fitted: with the same ``random_state`` the same trees, leaf counts and ledger as
        ``estimator.fit(pandas_frame, y)`` on the same rows (columns in ``df``'s order).

    Notes
    -----
    Spark jobs: one pass that checks and encodes the table into Spark's cache (DP-MOET: 1 bit per row and
    split set; ID3: 2 bytes per row and column); then DP-MOET: one job per population evaluated
    (``n_iterations + 1``); the ID3 estimators: one per depth. Each job returns one small row per
    partition. Time: O(rows x columns) to read, then O(W) word operations per tree node reached per batch
    of 2^16 rows (DP-MOET) or O(rows x columns) per depth (ID3). Driver memory: the counts only.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import pandas as pd
    >>> from dpmo import spark as dpspark
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import DPMOETClassifier
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> rows = pd.DataFrame({"smoker": ["no", "yes"] * 50, "label": [0, 1] * 50})
    >>> features = [Feature("smoker", "categorical", ("no", "yes"))]
    >>> est = DPMOETClassifier(1.0, features=features, population_size=6, selection_size=2, random_state=0)
    >>> fitted = dpspark.fit(est, session.createDataFrame(rows), "label")
    >>> fitted is est, fitted.predict(pd.DataFrame({"smoker": ["yes"]})).shape
    (True, (1,))
    """
    kind = _estimator_kind(estimator)
    if not isinstance(label, str):
        raise TypeError(f"label must be the name of the label column (a str), got {type(label).__name__}")
    from ..trees._inputs import check_features

    features = check_features(estimator.features)
    if features is None:
        raise ValueError(
            "dpmo.spark.fit needs the estimator's features= (the public metadata of every column: "
            "categories, numeric bounds); they are never read from the data"
        )
    if kind == "moet":
        params = estimator._validate_params()
        if params[0] is None and budget is not None:
            raise ValueError("epsilon=None (the non-private variant) spends no budget; pass budget=None")
    else:
        estimator._check_params()
    if getattr(estimator, "epsilon", None) is not None:  # before the table is read (issue 37, point 11)
        from ..calls import check_budget_first

        check_budget_first(estimator.epsilon, budget, estimator.delta)
    order = _check_columns(df, features, label)
    last_fit.__init__()
    spark = df.sparkSession
    with library_call(spark):
        frame = df.select(*[f.name for f in features], label)
        # check and encode in one pass; the encoding stays in Spark's cache on the executors
        n_bins = None if kind == "moet" else estimator._check_params()[2]
        names = [f.name for f in features] + [label]
        pieces = parquet_pieces(df, names)
        if pieces is None:
            encoded = frame.mapInArrow(
                partial(encode_partition, features=features, n_bins=n_bins), ENCODED_SCHEMA
            )
        else:  # a plain Parquet table on the local file system: pyarrow reads its row groups
            slices = max(1, min(len(pieces), 4 * spark.sparkContext.defaultParallelism))
            listed = spark.createDataFrame(
                spark.sparkContext.parallelize(pieces, slices), "path string, grp int"
            )
            fn = partial(encode_pieces, features=features, names=names, n_bins=n_bins)
            encoded = listed.mapInArrow(fn, ENCODED_SCHEMA)
        encoded = encoded.persist()
        start = time.perf_counter()
        blobs = [bytes(r[0]) for r in encoded.filter("kind = 1").select("blob").collect()]
        last_fit.add("check and encode", time.perf_counter() - start)
        try:
            flags = np.zeros(len(features) + 1, dtype=np.int64)
            rows, tally = 0, {}
            for f, n, t in (pickle.loads(b) for b in blobs):
                flags |= f
                rows += n
                for v, c in t.items():
                    tally[v] = tally.get(v, 0) + c
            _refuse(flags, features)
            # no row: an empty selection input, fitted as in memory when the label set is declared
            # (issue 41: a refusal would tell the table apart from its neighbour with one record)
            classes, positives = _labels(estimator, tally, rows)
            estimator.n_features_in_ = len(features)
            estimator.feature_names_in_ = np.asarray(order, dtype=object)
            estimator.units_in_ = "raw"
            positive = classes[1].item() if hasattr(classes[1], "item") else classes[1]
            batches = encoded.filter("kind = 0").select("blob")
            if kind == "moet":
                return _fit_moet(estimator, batches, classes, positive, positives, rows, budget)
            return _fit_id3(estimator, batches, features, classes, positive, positives, rows, budget)
        finally:
            encoded.unpersist()


def parquet_pieces(df, names) -> list[tuple[str, int]] | None:
    """The row groups ``(file, index)`` of ``df`` when it is exactly a Parquet table on the local file
    system (``spark.read.parquet(path)``: its analysed plan is the file relation itself, every file Spark
    lists is a ``file:`` URI holding the columns ``names``); None for anything else (Spark reads it).
    Only the footers are read here. The rows are the ones Spark would read; pyarrow reads them on the
    executors without Spark's conversion of every value into a row and back (the costly part of a pass).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.trees import parquet_pieces
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> parquet_pieces(session.createDataFrame([(0, 1)], "a long, b long"), ["a", "b"]) is None
    True
    """
    import os

    from .parquet import local_row_groups

    try:
        plan = df._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() != "LogicalRelation":
            return None
        if "parquet" not in str(plan.relation().fileFormat().toString()).lower():
            return None
        files = list(df.inputFiles())
    except Exception:  # Spark Connect, another plan or relation: Spark reads it
        return None

    def holds_names(path, schema) -> bool:
        return set(names) <= set(schema.names) and os.path.isfile(path)

    return local_row_groups(files, holds_names)


def _fit_moet(estimator, batches, classes, positive, positives, rows, budget):
    from ..trees.counts import NodeCounts

    def count_nodes(population):
        arrays = [getattr(population, n) for n in _ARRAYS]
        fn = partial(count_partition, arrays=arrays, offsets=population.offsets, positive=positive)
        m = population.feature.shape[0]
        total = np.zeros((m, 2), dtype=np.int64)
        for blob in _collect(batches, fn, "counts"):
            total += np.frombuffer(blob, dtype=np.int64).reshape(m, 2)
        return total

    counts = NodeCounts(count_nodes, positives, rows - positives)
    return estimator._evolve(counts, tuple(estimator.features), classes, budget)


class SparkID3Counts:
    """The ID3 counts provider of :func:`fit`: one Spark job per depth (:func:`id3_partition`)."""

    def __init__(self, batches, d, positive, positives, rows, size):
        self.batches, self.positive = batches, positive
        self.d = d
        self.total = int(np.sum(size))
        self.offsets = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
        self._root = (int(rows), int(positives))
        self._table = self._sizes = None
        self._pos: dict[int, int] = {}

    def root(self):
        return 0

    def begin_level(self, handles, tree, tables: bool) -> None:
        if handles == [0]:  # the root's size and positives are the check pass's tallies
            self._sizes = np.array([[self._root[0] - self._root[1], self._root[1]]], dtype=np.int64)
            self._pos = {0: 0}
            if not tables:
                return
        frontier = np.full(len(tree[0]), -1, dtype=np.int64)
        frontier[np.asarray(handles, dtype=np.int64)] = np.arange(len(handles))
        fn = partial(
            id3_partition, offsets=self.offsets, positive=self.positive,
            tree=(list(tree[0]), list(tree[1])), frontier=frontier, total=self.total,
        )  # fmt: skip
        F = len(handles)
        table = np.zeros((F, self.total, 2), dtype=np.int64)
        sizes = np.zeros((F, 2), dtype=np.int64)
        for blob in _collect(self.batches, fn, "depth"):
            t, s = pickle.loads(blob)
            if t.shape[0]:
                table += t
                sizes += s
        self._table, self._sizes = table, sizes
        self._pos = {int(h): i for i, h in enumerate(handles)}

    def size(self, h) -> int:
        return int(self._sizes[self._pos[h]].sum())

    def positives(self, h) -> int:
        return int(self._sizes[self._pos[h], 1])

    def table(self, h, remaining) -> np.ndarray:
        return self._table[self._pos[h]]

    def split(self, h, a, k, child_remaining, with_tables, first) -> list:
        return list(range(first, first + k))


def _fit_id3(estimator, batches, features, classes, positive, positives, rows, budget):
    from ..trees._inputs import feature_domains

    _, _, n_bins, _ = estimator._check_params()
    _, size = feature_domains(features, len(features), n_bins)
    counts = SparkID3Counts(batches, len(features), positive, positives, rows, size)
    return estimator._grow(counts, tuple(features), classes, budget)
