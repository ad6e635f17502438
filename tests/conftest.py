"""Shared fixtures. Real datasets are read from ``../shared/data`` beside the repository (never copied in)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests: no per-example deadline (CI machines are shared and slow at times) and a derandomised
# search, so that a run is reproducible; each test still explores many generated cases.
settings.register_profile("dpmo", deadline=None, derandomize=True)
settings.load_profile("dpmo")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DPMO_DATA_DIR", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder holding the real datasets; tests that need it are skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real datasets not found in {SHARED_DATA} (set DPMO_DATA_DIR)")
    return SHARED_DATA


# ------------------------------------------------------------------------------------------ Spark
# One local Spark session (one JVM) for every Spark test of a pytest process. The Spark tests are in one xdist
# group, "spark" (tests/_xdist_groups.py): `pytest -n 2` runs them all on one worker, which starts the only
# JVM, its Python workers and each module fixture once, while the other worker runs the rest of the suite.
# (Measured under xdist, the Spark tests only, on a loaded machine: spread over both workers, as when the
# groups are lost, 336 s of CPU; two groups, one JVM each, 366 s; one group 287 s.)
def java_problem() -> str | None:
    """Why Spark cannot start here (no Java, or one older than 17), or None."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        return "Java not found (Spark needs Java 17 or later; see the README, 'Graphs beyond one machine')"
    out = subprocess.run([java, "-version"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    found = re.search(r'version "(\d+)', out.stderr + out.stdout)
    if found and int(found.group(1)) < 17:
        return f"Java {found.group(1)} found; Spark needs Java 17 or later"
    return None


@pytest.fixture(scope="session")
def needs_java() -> None:
    """Skip, with the reason, where Spark cannot start (no Java 17+)."""
    reason = java_problem()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory) -> Path:
    """A virtual environment without packages (no dpmo, numpy or pandas): its ``bin`` folder."""
    import venv

    folder = tmp_path_factory.mktemp("bare-python")
    venv.create(folder, with_pip=False)
    return folder / ("Scripts" if os.name == "nt" else "bin")


@pytest.fixture(scope="session")
def spark(bare_python, needs_java):
    """One local Spark session for the Spark tests of this pytest process (its xdist group: one JVM).

    The docs' session (``local[2]``, Spark's defaults: no shuffle partitions, no worker Python set), with the
    web UI off (several suites may share the machine) and the JVM's quick compiler only (see below),
    started with ``python3`` on ``PATH`` an interpreter without dpmo, numpy or pandas: what a driver run
    from a virtual environment that is not activated sees.
    So the tests pass only if dpmo's calls run their workers on an interpreter that has dpmo themselves.
    Skipped, with the reason, without pyspark or Java 17+.
    """
    pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')
    from pyspark.sql import SparkSession

    path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(bare_python), path])  # the JVM starts with it
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("dpmo-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", "1g")
            # the JVM's quick compiler only, one GC thread: the tests' jobs are small and short, and the
            # optimising compiler's work was half of the JVM's CPU time (67 s -> 38 s over two Spark test
            # files, issue 37); flags of the JVM, not of Spark: no job's plan or result changes
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .getOrCreate()
        )
    finally:
        os.environ["PATH"] = path
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def spark_jobs(spark):
    """``with spark_jobs() as jobs:`` -- after the block, ``jobs`` lists the ids of the Spark jobs that the
    block's calls ran, and no others.

    The block runs in a job group of its own (a fresh name), so jobs of other tests or threads in the same
    JVM are not counted; and Spark's listener bus is drained before the group is read (the status tracker
    learns of a job from that bus, asynchronously: on a loaded machine a job that has finished can still be
    missing from it), so the count does not depend on the load.
    """

    @contextmanager
    def counted():
        sc = spark.sparkContext
        group = f"dpmo-tests-{uuid.uuid4().hex}"
        jobs: list[int] = []
        sc.setJobGroup(group, "counted by a test")
        try:
            yield jobs
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
            sc.setLocalProperty("spark.job.description", None)
        # every event posted so far delivered (a job's start is posted before the job runs); 2 min at most
        sc._jsc.sc().listenerBus().waitUntilEmpty(120_000)
        jobs.extend(sorted(sc.statusTracker().getJobIdsForGroup(group)))

    return counted


# ------------------------------------------------------------------------------------------ xdist groups
# The Spark group above, kept by the scheduler (tests/_xdist_groups.py): xdist's own grouping is lost with
# pytest 9.2 and later (pytest-dev/pytest-xdist#1386).
@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    import _xdist_groups

    return _xdist_groups.scheduling(config, log)


def pytest_collection_modifyitems(config, items):
    import _xdist_groups

    wrong = _xdist_groups.check_marks(items)
    if wrong:
        raise pytest.UsageError("xdist_group marks and tests/_xdist_groups.py disagree:\n" + "\n".join(wrong))


# ------------------------------------------------------------------------------------------ numba
# Under xdist, one compile of each kernel for the whole run (tests/_numba_once.py): with an empty cache the
# workers wait for each other's compile of a kernel instead of both compiling it. Serial runs are untouched.
if os.environ.get("PYTEST_XDIST_WORKER"):
    import _numba_once

    _numba_once.install()


@pytest.fixture(scope="module")
def star_clique():
    """A star joined to a clique on 1,000 nodes, the graph objectives (for the graph staircase's duplicate
    tests): node 0 (degree 999, ego density 0.0009) and the 31 other nodes of the 32-node clique (degree 31,
    ego density 1) are the front's two points; the leaves are dominated."""
    import networkx as nx

    from dpmo import graphs

    g = nx.complete_graph(32)
    g.add_edges_from((0, v) for v in range(32, 1000))
    return graphs.objectives(graphs.load_graph(g, nodes=1000))
