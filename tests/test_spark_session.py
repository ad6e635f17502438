"""dpmo.spark: the workers' Python, the shuffle partitions, quiet calls, block shuffles; and a driver run by a
virtual environment's python without activation.

The Spark tests share the session fixture ``spark`` of ``tests/conftest.py`` (one JVM, xdist group
"spark"), started as a driver in a virtual environment that is not activated would start it: ``python3``
on ``PATH`` has no dpmo. Tests of the rules themselves use stand-in sessions (no JVM).
"""

from __future__ import annotations

import doctest
import os
import re
import site
import subprocess
import sys
import textwrap
import threading
import time
import venv
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpmo

pyspark = pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')

from dpmo.spark import blocks, session, workers  # noqa: E402
from dpmo.spark.session import SparkEnvironmentError  # noqa: E402

# the tests that use the JVM of the session fixture ``spark`` are in its xdist group (tests/_xdist_groups.py);
# the others, stand-ins and subprocesses, run on either worker
SPARK_GROUP = pytest.mark.xdist_group("spark")

SHUFFLE = "spark.sql.shuffle.partitions"


def _stand_in(master="local[2]", exec_="python3", environment=None):
    """A session with just what the worker rule reads (no JVM)."""
    sc = SimpleNamespace(master=master, pythonExec=exec_, environment=environment or {}, _jvm=None)
    return SimpleNamespace(sparkContext=sc)


# ------------------------------------------------------------------------------------------ partitions
@pytest.mark.parametrize(
    "rows, cores, expected",
    [
        (0, 2, 1),
        (156, 2, 1),
        (2**14, 2, 1),
        (2**14 + 1, 2, 2),
        (2 * 10**6, 2, 2),
        (2 * 10**7, 2, 20),
        (2 * 10**7, 64, 64),
        (2 * 10**9, 400, 1908),
    ],
)
def test_the_partition_rule(rows, cores, expected):
    assert session.partitions_for(rows, cores) == expected


@given(st.integers(0, 10**12), st.integers(1, 10**4))
def test_the_partition_rule_bounds_every_partition(rows, cores):
    p = session.partitions_for(rows, cores)
    assert p >= 1
    assert rows <= p * session.ROWS_PER_PARTITION  # never more than 2^20 rows a partition on average
    if p > 1:  # split no further than the cores while partitions keep 2^14 rows, nor than 2^20 a part
        assert p <= max(cores, -(-rows // session.ROWS_PER_PARTITION))
        assert p <= max(-(-rows // session.MIN_ROWS_PER_PARTITION), -(-rows // session.ROWS_PER_PARTITION))


@SPARK_GROUP
def test_the_user_setting_is_never_overridden(spark):
    from dpmo.graphs.spark import statistics

    spark.conf.set(SHUFFLE, "3")
    try:
        assert session.shuffle_partitions(spark, 10**9) == 3
        with session.library_call(spark, rows=10**9):
            assert spark.conf.get(SHUFFLE) == "3"
            e, ns = statistics.prepare(spark.createDataFrame([(0, 1)], "a long, b long"), 2, "test")
            assert statistics.edge_partitions(e, ns) == 3
        assert spark.conf.get(SHUFFLE) == "3"
    finally:
        spark.conf.unset(SHUFFLE)


@SPARK_GROUP
def test_a_call_sets_its_options_and_restores_the_session(spark):
    sc = spark.sparkContext
    before = sc.pythonExec
    assert spark.conf.get(SHUFFLE, None) is None
    with session.library_call(spark, rows=156):
        assert spark.conf.get(SHUFFLE) == "1"
        assert spark.conf.get("spark.sql.adaptive.enabled") == "false"
        assert sc.pythonExec == workers.worker_python(spark)[0]
        assert session.user_conf(spark, SHUFFLE) is None  # dpmo's own value, not the user's
        with session.sql_conf(spark, {SHUFFLE: 4}):  # a nested call may set it again
            assert spark.conf.get(SHUFFLE) == "4"
        assert spark.conf.get(SHUFFLE) == "1"
    for key in (SHUFFLE, "spark.sql.adaptive.enabled", "spark.sql.execution.arrow.maxRecordsPerBatch"):
        assert spark.conf.get(key, None) is None
    assert sc.pythonExec == before


# ------------------------------------------------------------------------------------------ blocks
@SPARK_GROUP
def test_bucket_keys_land_in_their_partitions(spark):
    from pyspark.sql import functions as F

    for p in (1, 2, 3, 7, 64):
        keys = blocks.bucket_keys(p)
        df = spark.createDataFrame([(int(k),) for k in keys], "key int").repartition(p, "key")
        got = {r.key: r.part for r in df.select("key", F.spark_partition_id().alias("part")).collect()}
        assert got == {int(k): b for b, k in enumerate(keys)}


def test_blocks_carry_rows_and_lists_to_their_buckets():
    rng = np.random.default_rng(0)
    rows = 500
    target = rng.integers(0, 5, rows)
    a, b = rng.integers(-(2**62), 2**62, rows), np.arange(rows)
    sizes = rng.integers(0, 4, rows)
    offsets = np.r_[0, np.cumsum(sizes)]
    values = rng.integers(0, 100, offsets[-1])
    got = {}
    for batch in blocks.split(target, [a, b], 3, blocks.bucket_keys(5), lists=(offsets, values)):
        assert batch.column("tag").to_pylist() == [3] * batch.num_rows
        for bucket, blob in zip(batch.column("bucket").to_pylist(), batch.column("blob"), strict=True):
            ga, gb, goff, gval = blocks.decode(blob.as_buffer())
            for i in range(ga.size):
                got[int(gb[i])] = (bucket, int(ga[i]), gval[goff[i] : goff[i + 1]].tolist())
    want = {i: (int(target[i]), int(a[i]), values[offsets[i] : offsets[i + 1]].tolist()) for i in range(rows)}
    assert got == want


# ------------------------------------------------------------------------------------------ workers' Python
def test_the_worker_python_rule(monkeypatch):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert workers.worker_python(_stand_in()) == (sys.executable, "this interpreter")
    assert workers.worker_python(_stand_in(master="yarn")) == ("python3", "pyspark's default")
    assert workers.worker_python(_stand_in(exec_="/env/bin/python")) == ("/env/bin/python", "PYSPARK_PYTHON")
    monkeypatch.setenv("PYSPARK_PYTHON", "python3")  # set to the default on purpose: kept
    assert workers.worker_python(_stand_in()) == ("python3", "PYSPARK_PYTHON")
    assert workers.worker_python(SimpleNamespace()) is None  # no SparkContext here (Spark Connect)


@pytest.mark.parametrize("value", [None, "python3", "/env/bin/python"])
def test_the_worker_python_example_holds_with_pyspark_python_set_or_unset(monkeypatch, value):
    # the docstring's example describes the rule whatever the caller's environment says
    if value is None:
        monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    else:
        monkeypatch.setenv("PYSPARK_PYTHON", value)
    (test,) = doctest.DocTestFinder().find(workers.worker_python, "worker_python", globs={})
    runner = doctest.DocTestRunner()
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0 and runner.tries >= 5, "".join(out)


def test_a_worker_python_without_dpmo_is_refused_in_one_line(bare_python):
    python = str(bare_python / "python3")
    with pytest.raises(SparkEnvironmentError) as info:
        workers.check_worker_python(_stand_in(exec_=python))
    message = str(info.value)
    assert "\n" not in message
    # dpmo itself may be found (through PYTHONPATH); its dependencies are not
    assert re.search(r"which cannot import (dpmo, )?numpy, pandas, pyarrow, numba, scipy;", message), message
    assert message.endswith(
        f"set PYSPARK_PYTHON={sys.executable} (this interpreter, which has dpmo) "
        "before the Spark session starts"
    )
    missing = r"/no/such/python \(PYSPARK_PYTHON\), which is not found"
    with pytest.raises(SparkEnvironmentError, match=missing):
        workers.check_worker_python(_stand_in(exec_="/no/such/python"))


def test_another_copy_of_dpmo_on_the_workers_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)  # local mode, pyspark's default: this interpreter
    (tmp_path / "dpmo").mkdir()
    (tmp_path / "dpmo" / "__init__.py").write_text("")  # another dpmo, first on the workers' path
    stand_in = _stand_in(environment={"PYTHONPATH": str(tmp_path)})
    with pytest.raises(SparkEnvironmentError, match="which imports dpmo from .* put .* on PYTHONPATH"):
        workers.check_worker_python(stand_in)


@SPARK_GROUP
def test_a_bad_worker_python_is_refused_before_any_spark_job(spark, spark_jobs, bare_python, monkeypatch):
    # as if the user had set PYSPARK_PYTHON to an interpreter without dpmo before starting the session
    from dpmo.graphs import spark as dpmo_spark

    sc = spark.sparkContext
    monkeypatch.setenv("PYSPARK_PYTHON", str(bare_python / "python3"))
    monkeypatch.setattr(sc, "pythonExec", str(bare_python / "python3"))
    edges = spark.createDataFrame([(0, 1), (1, 2)], "src long, dst long")
    budget = dpmo.Budget(1.0)
    with spark_jobs() as jobs:
        for call in (
            lambda: dpmo_spark.top_k(edges, 1, 1.0, nodes=3, budget=budget),
            lambda: dpmo_spark.node_statistics(edges, 3),
        ):
            with pytest.raises(SparkEnvironmentError, match="PYSPARK_PYTHON"):
                call()
    assert jobs == [] and budget.spent == 0


@SPARK_GROUP
@pytest.mark.slow
def test_a_worker_that_cannot_import_is_reported_in_one_line(spark, bare_python):
    sc = spark.sparkContext
    with pytest.raises(SparkEnvironmentError, match="a Python worker .* cannot import pyarrow"):
        with session.library_call(spark):
            sc.pythonExec = str(bare_python / "python3")  # the workers change after the check

            def same(batches):
                yield from batches

            spark.range(3).mapInArrow(same, "id long").collect()
    assert sc.pythonExec == "python3" or "PYSPARK_PYTHON" in os.environ  # restored


@SPARK_GROUP
def test_on_a_cluster_one_probe_task_checks_the_executors(spark, monkeypatch):
    monkeypatch.setattr(workers, "is_local", lambda _: False)
    monkeypatch.setattr(workers, "_checked", {})
    # pyspark's default python3 on the executors: here the interpreter without dpmo
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.setattr(workers, "worker_python", lambda _: ("python3", "pyspark's default"))
    with pytest.raises(SparkEnvironmentError, match="the executors' Python .*spark.archives=") as info:
        workers.check_worker_python(spark)
    assert "\n" not in str(info.value)
    monkeypatch.setattr(workers, "worker_python", lambda _: (sys.executable, "PYSPARK_PYTHON"))
    assert workers.check_worker_python(spark) == sys.executable


# ------------------------------------------------------------------------------------------ quiet
@SPARK_GROUP
def test_quiet_holds_the_progress_bar_and_the_pandas_warnings(spark):
    calls = []
    hold = session._ProgressHold(SimpleNamespace(finishAll=lambda: calls.append(1)))
    hold.start()
    time.sleep(0.45)
    hold.stop()
    assert len(calls) >= 3  # every 100 ms, and once more at the end
    assert session._progress_bar(spark.sparkContext) is not None  # pyspark sessions show the bar
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")  # the user's filters, before the call
        with session.quiet(spark):
            assert any(t.name == "dpmo-progress-hold" for t in threading.enumerate())
            warnings.warn("PySpark does not yet fully support pandas >= 3.0.0.", FutureWarning, stacklevel=1)
            warnings.warn("something else", FutureWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["something else"]
    assert not any(t.name == "dpmo-progress-hold" for t in threading.enumerate())


# ------------------------------------------------------------------------------------------ a venv
_SCRIPT = """
import os, sys
import dpmo
from pyspark.sql import SparkSession
from dpmo.graphs import spark as dpmo_spark
from dpmo.spark.session import SparkEnvironmentError

JIT = ("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")  # as tests/conftest.py

spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config(*JIT).getOrCreate()
edges = spark.createDataFrame([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)], "src long, dst long")
budget = dpmo.Budget(1.0)
print("PICKS", dpmo_spark.top_k(edges, 2, 1.0, nodes=5, budget=budget), budget.spent, flush=True)
# trees on the same session (issue 37: one JVM for both applications' checks): the fit on Spark equals the
# in-memory fit, ledger included
import pandas as pd
from dpmo import spark as dpspark
from dpmo.datasets import Feature
from dpmo.trees import DPMOETClassifier

rows = pd.DataFrame({"smoker": ["no", "yes", "yes", "no"] * 40, "label": [0, 1, 1, 1] * 40})
features = [Feature("smoker", "categorical", ("no", "yes"))]
kw = dict(features=features, population_size=6, selection_size=2, n_iterations=1, random_state=0)
there = dpspark.fit(DPMOETClassifier(1.0, **kw), spark.createDataFrame(rows), "label")
here = DPMOETClassifier(1.0, **kw).fit(rows[["smoker"]], rows["label"])
print("SAME", [t.to_nested() for t in there.trees_] == [t.to_nested() for t in here.trees_],
      there.budget_.ledger == here.budget_.ledger, flush=True)
spark.stop()
os.environ["PYSPARK_PYTHON"] = sys.argv[1]  # an interpreter without dpmo, read by the next SparkContext
spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config(*JIT).getOrCreate()
edges = spark.createDataFrame([(0, 1), (1, 2)], "src long, dst long")
try:
    dpmo_spark.top_k(edges, 1, 1.0, nodes=3)
except SparkEnvironmentError as exc:
    print("REFUSED", exc, flush=True)
    print("JOBS", len(spark.sparkContext.statusTracker().getJobIdsForGroup(None)), flush=True)
"""


def _venv_seeing_this_environment(env_dir):
    """A new virtual environment whose ``site-packages`` holds one ``.pth`` file that adds this interpreter's
    site directories (``.pth`` files included): it sees exactly the packages the suite runs with (an
    activated venv's, never the base interpreter's); its python, by path."""
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    ).stdout.strip()
    ours = [p for p in site.getsitepackages() if os.path.isdir(p)]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        ours.append(site.getusersitepackages())
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in ours)
    (Path(purelib) / "_dpmo_tests_outer_environment.pth").write_text(lines)
    return python


@pytest.mark.slow
def test_a_virtual_environment_run_without_activation(needs_java, tmp_path, bare_python):
    # a venv that sees the packages installed here (pyspark, numpy, dpmo: through a .pth file, not the base
    # interpreter's site-packages), its python run by path, without activation, while python3 on PATH has
    # none of them: the picks; then, with PYSPARK_PYTHON pointing at
    # an interpreter without dpmo, the one-line refusal before any Spark job (the fixture ``needs_java`` only
    # skips the test where Spark cannot run; its JVM is the subprocess's own, so it is in no xdist group)
    env_dir = tmp_path / "venv"
    python = _venv_seeing_this_environment(env_dir)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(bare_python), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.dirname(os.path.dirname(dpmo.__file__)), env.get("PYTHONPATH", "")] if p
    )
    proc = subprocess.run(
        [str(python), str(script), str(bare_python / "python3")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    out = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr[-3000:]
    picks = [line for line in out if line.startswith("PICKS")]
    assert picks and picks[0].endswith(" 1.0"), proc.stdout + proc.stderr[-3000:]
    assert "SAME True True" in out, proc.stdout + proc.stderr[-3000:]  # the trees' fit on Spark
    refused = [line for line in out if line.startswith("REFUSED")]
    assert refused and "PYSPARK_PYTHON" in refused[0] and "cannot import" in refused[0], proc.stdout
    assert out[-1] == "JOBS 0"
    # quiet calls: no progress bar, and no FutureWarning but the one pyspark may give when the session
    # starts (with pandas 3), outside dpmo's calls
    warned = [line for line in proc.stderr.splitlines() if "FutureWarning" in line]
    assert all("pyspark/" in line and "pandas" in line for line in warned), warned
    assert "[Stage" not in proc.stderr
