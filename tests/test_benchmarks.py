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

#: the benchmarks use no hypothesis; its pytest plugin would import it anyway, for its end-of-run summary
#: (about 2 s of CPU per pytest subprocess)
NO_HYPOTHESIS = ["-p", "no:hypothesispytest"]

#: the benchmark files that ``test_compare_against_a_commit_in_one_command`` leaves out: its ``-k`` selects
#: a benchmark of ``test_core.py`` only, and collecting the others imports the graph, tree and Pareto code
#: on both sides for nothing (about 4 s of CPU per side)
NOT_CORE = ["--ignore=" + str(BENCH / f"test_{name}.py") for name in ("graphs", "pareto", "trees")]


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
           "-p", "no:benchmark", *NO_HYPOTHESIS]  # fmt: skip
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
        "--",
        *NO_HYPOTHESIS,
        *NOT_CORE,
    ]
    res = subprocess.run(cmd, env=_env(), capture_output=True, text=True, cwd=REPO, timeout=HANG)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = [line for line in res.stdout.splitlines() if line.startswith("| test_select[exponential-1]")]
    assert len(lines) == 1
    cells = [c.strip() for c in lines[0].strip("|").split("|")]
    assert float(cells[1]) > 0 and float(cells[2]) > 0 and float(cells[3]) > 0


def _privatree_side():
    spec = importlib.util.spec_from_file_location("privatree_side", BENCH / "privatree_side.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A stand-in for the authors' package, written here (not their code): it records what it was given and
# predicts the majority label of its training part, so the side runner's plumbing can be checked without it.
_STUB = """
import json, os
import numpy as np

class PrivaTreeClassifier:
    def __init__(self, **kw):
        self.kw = kw

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.label_ = int(np.mean(y) > 0.5)
        with open(os.environ["STUB_LOG"], "a") as fh:
            kw = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in self.kw.items()}
            fh.write(json.dumps({"kw": kw, "n": len(y)}) + "\\n")
        return self

    def predict_proba(self, X):
        p = np.zeros((len(X), 2))
        p[:, self.label_] = 1
        return p

    def predict(self, X):
        return self.classes_.take(self.predict_proba(X).argmax(axis=1))
"""


def test_privatree_side_refuses_a_directory_without_the_package(tmp_path, capsys):
    side = _privatree_side()
    assert side.main(["--privatree-path", str(tmp_path), "a.npz", "b.json"]) == 2
    assert "--privatree-path" in capsys.readouterr().err


def test_privatree_side_passes_the_splits_bounds_categories_and_settings(tmp_path, monkeypatch):
    import json

    import numpy as np

    (tmp_path / "pkg" / "privatree").mkdir(parents=True)
    (tmp_path / "pkg" / "privatree" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "privatree" / "privatree.py").write_text(_STUB)
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STUB_LOG", str(log))
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.random(40), rng.integers(0, 3, 40)]).astype(float)
    y = (np.arange(40) < 30).astype(np.int8)  # 30 ones: the majority label is 1
    test = np.zeros((2, 40), dtype=bool)
    test[0, :5], test[0, 30:35] = True, True  # seed 0 trains on 25 ones and 5 zeros: predicts 1
    test[1, :25], test[1, 30:32] = True, True  # seed 1 trains on 5 ones and 8 zeros: predicts 0
    npz = tmp_path / "splits.npz"
    np.savez(npz, X=X, y=y, lo=np.zeros(2), hi=np.array([1.0, 2.0]), ncat=np.array([0, 3]), epsilon=0.5,
             seeds=np.array([0, 1]), test=np.packbits(test, axis=1))  # fmt: skip
    out = tmp_path / "out.json"
    side = _privatree_side()
    monkeypatch.setattr(sys, "path", list(sys.path))  # the runner prepends --privatree-path
    monkeypatch.delitem(sys.modules, "privatree", raising=False)
    monkeypatch.delitem(sys.modules, "privatree.privatree", raising=False)
    assert side.main(["--privatree-path", str(tmp_path / "pkg"), "--commit", "abc", str(npz), str(out)]) == 0
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["n"] for c in calls] == [30, 13]
    assert [c["kw"]["random_state"] for c in calls] == [0, 1]
    for c in calls:
        assert c["kw"]["epsilon"] == 0.5 and c["kw"]["max_depth"] == 4 and c["kw"]["max_bins"] == 10
        assert c["kw"]["epsilon_shares"] == "auto"
        assert c["kw"]["feature_range"] == [[0.0, 1.0], [0.0, 2.0]]  # one [lo, hi] row per column
        assert c["kw"]["categorical_features"] == [0, 3]
    res = json.loads(out.read_text())
    assert res["versions"]["privatree"] == "abc"
    r = res["models"]["PrivaTree"]
    assert r["acc"] == [0.5, 2 / 27]  # seed 0: 5 of 10 test rows are 1s; seed 1: 2 of 27 are 0s
    assert r["ba"] == [0.5, 0.5] and r["auc"] == [0.5, 0.5]  # one constant score: chance
    monkeypatch.delitem(sys.modules, "privatree", raising=False)
    monkeypatch.delitem(sys.modules, "privatree.privatree", raising=False)
