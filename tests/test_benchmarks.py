"""The timing benchmarks (``benchmarks/``) still run: every definition once at a tiny size.

The benchmarks themselves are measured with ``python benchmarks/compare.py`` (pytest-benchmark, the
``bench`` extra); here they only have to run: ``DPMO_BENCH_SMOKE=1`` shrinks the inputs, replaces the real
tables by the embedded one and skips the real graphs, and pytest-benchmark (or, where it is not installed,
the stand-in fixture of ``benchmarks/conftest.py``) calls each function once.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"

#: seconds before a subprocess counts as hung (wall time on a loaded machine is many times its CPU time)
HANG = 1800


def _env():
    env = dict(os.environ, DPMO_BENCH_SMOKE="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH")) if p)
    return env


def _has_pytest_benchmark() -> bool:
    return importlib.util.find_spec("pytest_benchmark") is not None


def _compare_module():
    spec = importlib.util.spec_from_file_location("bench_compare", BENCH / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_every_benchmark_runs_once_at_a_tiny_size():
    # without pytest-benchmark (as in CI): the stand-in fixture of benchmarks/conftest.py calls each once
    cmd = [sys.executable, "-m", "pytest", str(BENCH), "-q", "-p", "no:cacheprovider", "-m", "not slow",
           "--rootdir", str(BENCH), "-o", "addopts=", "-o", "testpaths=", "-p", "no:xdist",
           "-p", "no:benchmark"]  # fmt: skip
    # the timeout only guards against a hang: about 27 s of CPU, which took over 300 s of wall time at load 20
    res = subprocess.run(cmd, env=_env(), capture_output=True, text=True, cwd=REPO, timeout=HANG)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    summary = res.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary
    assert int(summary.split(" passed")[0].split()[-1]) >= 40  # core, pareto, graphs, trees ran


def test_seconds_format_and_tables():
    cmp = _compare_module()
    assert [cmp.seconds(x) for x in (0.0223, 0.00152, 1.364, 1035.2)] == ["0.0223", "0.00152", "1.36", "1035"]
    assert cmp.seconds(None) == "-" and cmp.seconds(float("nan")) == "-"
    run = {"stats": {"median": 2.0}, "extra_info": {"case": "c", "peak_mb": 3.5, "note": "n"}}
    rounds = [
        {"f::a": run},
        {"f::a": {**run, "stats": {"median": 4.0}}},
        {"f::a": {**run, "stats": {"median": 3.0}}},
    ]
    s = cmp.summarize(rounds)["f::a"]
    assert (s["median"], s["lo"], s["hi"]) == (3.0, 2.0, 4.0)
    readme = cmp.table({"f::a": s}, None, None, True).splitlines()
    assert readme[0] == "| case | seconds | note |" and readme[2] == "| c | 3.00 | peak 3.5 MB; n |"
    marked = {"f::a": s, "f::b": {**s, "extra": {"case": "b", "readme": True}}}
    assert [
        r.split(" | ")[0] for r in cmp.table(marked, None, None, True, every_row=False).splitlines()[2:]
    ] == ["| b"]
    assert len(cmp.table(marked, None, None, True).splitlines()) == 4  # --all: every row
    old = {"f::a": {**s, "median": 6.0}, "f::gone": s}
    rows = cmp.table({"f::a": s}, old, "abc123", False).splitlines()
    assert "| a | 6.00 | 3.00 | 0.50 | 67% |" in rows[2]
    assert rows[3].startswith("| gone | 3.00 | - | - | - |")


@pytest.mark.skipif(not _has_pytest_benchmark(), reason="pytest-benchmark (the bench extra) not installed")
@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="not a git checkout")
@pytest.mark.slow
def test_compare_against_a_commit_in_one_command():
    cmd = [
        sys.executable,
        str(BENCH / "compare.py"),
        "--smoke",
        "--against",
        "HEAD",
        "-k",
        "test_select and exponential-1",
    ]
    res = subprocess.run(cmd, env=_env(), capture_output=True, text=True, cwd=REPO, timeout=HANG)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = [line for line in res.stdout.splitlines() if line.startswith("| test_select[exponential-1]")]
    assert len(lines) == 1
    cells = [c.strip() for c in lines[0].strip("|").split("|")]
    assert float(cells[1]) > 0 and float(cells[2]) > 0 and float(cells[3]) > 0
