"""The edges of the Spark entry points' inputs (``dpmo select --spark``, ``dpmo.spark.select``,
``dpmo.graphs.spark.top_k``): what they refuse, in which words, and what they never quote.

``dpmo select --spark`` reads a table as ``dpmo select`` reads it: the same refusals of a header line (never
shown: without a header it is a candidate's row), the same numbers in an objective column (Python's
``float`` syntax for a finite decimal number, not Spark's cast) and the same printed ids; a file Spark cannot
read is refused in one line without Spark's message. The library refuses with ``ValueError`` naming the
argument: an id column that is also an objective, a column named twice, a stopped session, a path without
a file. The data are tiny; the refusals of the library run no Spark job.
"""

from __future__ import annotations

import math

import pytest

import dpmo
from dpmo.cli import main

pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from dpmo import spark as dpmo_spark  # noqa: E402
from dpmo.graphs import spark as graphs_spark  # noqa: E402
from dpmo.graphs.spark.inputs import node_frame  # noqa: E402
from dpmo.spark.files import read_candidates  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

SECRET = "PATIENT_SMITH_HIV_POSITIVE"


def _run(argv, capsys) -> tuple[int, list[str], str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out.split(), err.strip()


def _one_line_refusal(code: int, out: list[str], err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == [] and len(lines) == 1 and lines[0].startswith("dpmo: error: "), err
    return lines[0]


# ------------------------------------------------------------------------------------------ the command line
def test_a_header_line_is_refused_in_the_words_of_dpmo_select_and_never_shown(spark, tmp_path, capsys):
    headerless = tmp_path / "nohdr.csv"
    headerless.write_text(f"alice,0.91,{SECRET}\nbob,0.42,NEGATIVE\n")
    twice = tmp_path / "twice.csv"
    twice.write_text("id,u,u\na,1,5\nb,2,6\n")
    for path in (headerless, twice):
        argv = ["select", str(path), "--objective", "u=1"]
        local = _one_line_refusal(*_run(argv, capsys))
        remote = _one_line_refusal(*_run([*argv, "--spark"], capsys))
        assert remote == local and "alice" not in remote and SECRET not in remote


def test_parquet_without_the_suffix_is_read_as_parquet_and_never_quoted(spark, tmp_path, capsys):
    # a .pq file and a folder of part files, found by Parquet's magic bytes (formerly read as CSV: the
    # refusal quoted the binary file, cells included)
    table = pa.table({"id": ["a", "b", "c"], "u": [0.25, 0.5, 0.75], "note": [SECRET, "x", "y"]})
    single = tmp_path / "single.pq"
    pq.write_table(table, single, compression="NONE")
    folder = tmp_path / "cands"
    folder.mkdir()
    pq.write_table(table, folder / "part-00000", compression="NONE")
    argv = ["select", str(single), "--spark", "-k", "3", "--objective", "u=1", "--id-column", "id"]
    code, out, err = _run(argv, capsys)
    assert code == 0 and sorted(out) == ["a", "b", "c"], err
    line = _one_line_refusal(*_run(["select", str(folder), "--spark", "--objective", "zz=1"], capsys))
    assert "no column 'zz'" in line and "'note'" in line and SECRET not in line and "PAR1" not in line


def test_parquet_files_whose_schemas_disagree_are_refused_in_one_line(spark, tmp_path, capsys):
    folder = tmp_path / "mixed.parquet"
    folder.mkdir()
    pq.write_table(pa.table({"id": ["a", "b"], "u": [1.0, 2.0]}), folder / "p0.parquet")
    pq.write_table(pa.table({"id": ["c", "d"], "u": [SECRET, "x"]}), folder / "p1.parquet")
    argv = ["select", str(folder), "--spark", "--objective", "u=1", "--id-column", "id"]
    line = _one_line_refusal(*_run(argv, capsys))  # formerly "internal error: Py4JJavaError ..."
    assert line.startswith(f"dpmo: error: {folder}: ") and "nothing was released" in line
    assert SECRET not in line and "Py4J" not in line and "p1.parquet" not in line


def test_floating_point_ids_are_printed_as_dpmo_select_prints_them(spark, tmp_path, capsys):
    path = tmp_path / "ids.parquet"  # 2e23: Java 17 writes 1.9999999999999998E23; 1e-7: Spark 1.0E-7
    pq.write_table(pa.table({"id": [1e20, 2e23, 1e-7], "u": [1.0, 2.0, 3.0]}), path)
    argv = ["select", str(path), "-k", "3", "--objective", "u=1", "--id-column", "id", "--seed", "0"]
    code, local, err = _run(argv, capsys)
    assert code == 0, err
    code, remote, err = _run([*argv, "--spark"], capsys)
    assert code == 0 and sorted(remote) == sorted(local), err


def test_an_objective_cell_is_a_number_exactly_when_dpmo_select_reads_one(spark, tmp_path):
    cells = ["1d", "3f", "1_0", "1e1_0", "+.5", "5.", ".5", "1__0", "_1", "1_", "1._5", "0x10", "inf", "nan"]
    cells += ["Infinity", "1e400", "", "1.5e-3", "-0", "1_000.000_1", "1e", "e5", ".", "+", "1.2.3", "1E5"]
    cells += ["--1", "1e+5", "0012", "12abc", "1 2", "0.1"]
    path = tmp_path / "cells.csv"
    path.write_text("id,u\n" + "".join(f"r{i},{c}\n" for i, c in enumerate(cells)))

    def local(cell):  # dpmo select's reading: float() of the stripped cell, kept when finite
        try:
            x = float(cell.strip())
        except ValueError:
            return None
        return x if math.isfinite(x) else None

    rows = dict(read_candidates(spark, path, [("u", 1.0, "max")], "id").collect())
    got = [rows[f"r{i}"] for i in range(len(cells))]
    got = [x if x is not None and math.isfinite(x) else None for x in got]
    assert got == [local(c) for c in cells]


# ------------------------------------------------------------------------------------------ the library
def test_library_refusals_name_the_argument_and_run_no_spark_job(spark, spark_jobs, tmp_path):
    df = spark.createDataFrame([(37, 1.0), (74, 2.0), (10, 3.0)], "secret long, u double")
    twice = spark.createDataFrame([("a", 1.0, 2.0)], "id string, u double, U double")
    with spark_jobs() as jobs:
        budget = dpmo.Budget(1.0)
        with pytest.raises(ValueError, match="^id_column 'secret' is also an objective column"):
            dpmo_spark.select(
                df,
                2,
                1.0,
                objectives={"secret": 1.0, "u": 1.0},
                id_column="secret",
                approach="agg",
                weights=[1.0, 1.0],
                budget=budget,
            )
        with pytest.raises(ValueError, match="^df: column 'u' appears more than once"):
            dpmo_spark.select(twice, 1, 1.0, objectives={"u": 1.0}, budget=budget)
        for path in (tmp_path / "absent.parquet", tmp_path / "absent.txt"):
            with pytest.raises(ValueError, match="^edges: no file or folder at") as info:
                graphs_spark.top_k(str(path), 2, 1.0, nodes=5, budget=budget)
            assert "Spark's message is not shown" in str(info.value)
        # an int node count is Spark's range: nothing of size n on the driver (formerly np.arange(n))
        ns = node_frame(10**12, spark, "int", "top_k")
        assert (ns.n, ns.is_range, ns.frame.columns) == (10**12, True, ["node"])
    assert jobs == [] and budget.spent == 0 and not budget.ledger


def test_a_stopped_session_is_refused_naming_the_argument(spark, monkeypatch):
    df = spark.createDataFrame([("a", 1.0), ("b", 2.0)], "id string, u double")
    edges = spark.createDataFrame([(0, 1), (1, 2)], "a long, b long")
    budget = dpmo.Budget(1.0)
    monkeypatch.setattr(spark.sparkContext, "_jsc", None)  # what spark.stop() leaves
    with pytest.raises(ValueError, match="^df: its SparkSession is stopped"):
        dpmo_spark.select(df, 1, 1.0, objectives={"u": 1.0}, approach="agg", weights=[1.0], budget=budget)
    with pytest.raises(ValueError, match="^edges: its SparkSession is stopped"):
        graphs_spark.top_k(edges, 1, 1.0, nodes=3, budget=budget)
    monkeypatch.undo()
    assert budget.spent == 0 and not budget.ledger
