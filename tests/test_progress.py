"""Long runs that talk: progress lines without a terminal, and the ``jobs="auto"`` choice of workers."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import dpmo
from dpmo.experiments import backends as backends_mod
from dpmo.experiments import cores, toy_experiment
from dpmo.experiments.progress import PROGRESS_MODES, ProgressLines, make_progress
from dpmo.experiments.runner import read_rows, run_experiment

TOY = toy_experiment(methods=("A-local", "A-global", "NODP"), epsilons=(0.1, 1.0, 10.0), runs=6, chunk=2)
DATA = {"toy": []}
LINE = re.compile(r"^dpmo: (\S+): (\d+)/(\d+) runs \((\d+)%\)")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _lines(text: str) -> list[tuple[int, int, int]]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return out


# ------------------------------------------------------------------------------------------ ProgressLines
def test_a_line_per_crossed_step_when_runs_are_slow_enough():
    clock, out = FakeClock(), io.StringIO()
    bar = ProgressLines(100, "exp", stream=out, percent=25, seconds=1e9, min_interval=1.0, clock=clock)
    for _ in range(100):
        clock.now += 0.1  # 10 s in all: every 25% step is more than min_interval after the last line
        bar.update(1)
    bar.close()
    bar.close()  # the final line is written once
    lines = _lines(out.getvalue())
    assert [d for d, _, _ in lines] == [25, 50, 75, 100]
    assert all(t == 100 for _, t, _ in lines)
    assert "about" in out.getvalue().splitlines()[0] and "left" in out.getvalue().splitlines()[0]


def test_the_time_left_comes_from_the_runs_after_the_warm_up():
    # issue 37, point 9: a first task of 10 s (compiling the kernels) then 1,000 runs of 10 ms each; the
    # first line used to extrapolate the warm-up over every run ("about 43.6 min left" for a 13 s run)
    clock, out = FakeClock(), io.StringIO()
    bar = ProgressLines(1010, "exp", stream=out, percent=1, seconds=1e9, min_interval=1.0, clock=clock)
    clock.now = 10.0
    bar.update(11)  # the warm-up: crosses 1%, but no run has finished after it yet
    first = out.getvalue().splitlines()
    assert len(first) == 1 and "left" not in first[0]
    assert bar.seconds_left(clock.now) is None
    for _ in range(150):
        clock.now += 0.01
        bar.update(1)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # one more line, at least 1 s after the first
    done = _lines(lines[-1])[0][0]
    left = float(re.search(r"about ([0-9.]+) s left", lines[-1]).group(1))
    assert left == pytest.approx(0.01 * (1010 - done), abs=0.1)  # runs of 10 ms left, not of 100 ms
    bar.close()


def test_fast_runs_are_not_reported_more_than_once_a_min_interval():
    clock, out = FakeClock(), io.StringIO()
    bar = ProgressLines(1000, "exp", stream=out, percent=1, seconds=1e9, min_interval=5.0, clock=clock)
    for _ in range(1000):
        clock.now += 0.01  # 10 s in all: 100 crossed steps, but at most one line per 5 s
        bar.update(1)
    bar.close()
    lines = _lines(out.getvalue())
    assert 2 <= len(lines) <= 3 and lines[-1][0] == 1000


def test_a_heartbeat_line_when_steps_are_far_apart():
    clock, out = FakeClock(), io.StringIO()
    bar = ProgressLines(10_000, "exp", stream=out, percent=50, seconds=30.0, min_interval=1.0, clock=clock)
    for _ in range(100):
        clock.now += 1.0  # 100 s for 1% of the runs: no step crossed, but a line every 30 s
        bar.update(1, cells="0/7")
    lines = _lines(out.getvalue())
    assert len(lines) == 3
    assert "cells 0/7" in out.getvalue()


def test_make_progress_modes(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    assert isinstance(make_progress(5, "x", "auto"), ProgressLines)
    assert isinstance(make_progress(5, "x", None), ProgressLines)
    assert isinstance(make_progress(5, "x", "lines"), ProgressLines)
    assert make_progress(5, "x", "off") is None and make_progress(5, "x", False) is None
    assert not isinstance(make_progress(5, "x", "bar"), ProgressLines)  # a tqdm bar, even without a terminal
    assert set(PROGRESS_MODES) == {"auto", "bar", "lines", "off"}
    with pytest.raises(ValueError, match="progress must be one of"):
        make_progress(5, "x", "loud")


def test_run_experiment_writes_lines_to_stderr_without_a_terminal(tmp_path, capsys):
    run_experiment(TOY, DATA, tmp_path, seed=1, jobs=1)  # progress="auto"; pytest's stderr is no terminal
    lines = _lines(capsys.readouterr().err)
    assert lines and lines[-1] == (42, 42, 100)
    assert [d for d, _, _ in lines] == sorted(d for d, _, _ in lines)


@pytest.mark.slow
def test_reproduce_piped_into_a_log_shows_progress_lines(tmp_path):
    # what a user does: dpmo reproduce ... > log 2>&1 (no terminal anywhere)
    log = tmp_path / "log"
    src = Path(dpmo.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "dpmo.cli", "reproduce", "graph-agg", "--quick", "--runs", "2"]
    cmd += ["--jobs", "1", "--no-report", "--out", str(tmp_path / "out")]
    with log.open("w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    text = log.read_text()
    assert proc.returncode == 0, text
    lines = _lines(text)
    assert lines, text
    done, total, pct = lines[-1]
    assert done == total == 2 * 2 * 10 * 2 and pct == 100  # 2 datasets x 2 methods x 10 budgets x 2 runs
    assert "\r" not in text  # no bar redrawn in place


# ------------------------------------------------------------------------------------------ jobs="auto"
def test_auto_workers_counts_this_process_and_idle_cores():
    assert cores.auto_workers(0.0, 2) == 1
    assert cores.auto_workers(0.49, 2) == 1
    assert cores.auto_workers(0.51, 2) == 2
    assert cores.auto_workers(7.0, 4) == 4  # never more than the usable cores
    assert cores.auto_workers(None, 3) == 3
    n = os.cpu_count() or 1
    assert cores.idle_cores((0, 0), (10, 40)) == pytest.approx(0.25 * n)
    assert cores.idle_cores((10, 40), (10, 40)) is None  # no time passed: unknown
    sample = cores.cpu_times()
    assert sample is None or 0 <= sample[0] <= sample[1]


def test_auto_jobs_stays_in_process_for_small_work(tmp_path):
    res = run_experiment(TOY, DATA, tmp_path / "auto", seed=2, jobs="auto", progress=False)
    assert res["jobs"] == 1  # the toy grid takes milliseconds: a pool would only cost its start
    one = run_experiment(TOY, DATA, tmp_path / "one", seed=2, jobs=1, progress=False)
    assert one["jobs"] == 1
    auto, one = read_rows(tmp_path / "auto" / "toy.csv"), read_rows(tmp_path / "one" / "toy.csv")
    assert len(auto) == len(one) == 42


def _results(path):
    return {(r["method"], r["epsilon"], r["run"]): (r["score"], r["ref"]) for r in read_rows(path)}


@pytest.mark.parametrize("idle", [1.0, 0.0])
@pytest.mark.slow
def test_auto_jobs_hands_long_work_to_a_pool_only_when_cores_are_idle(tmp_path, monkeypatch, idle):
    monkeypatch.setattr(backends_mod, "AUTO_SERIAL_SECONDS", -1.0)  # any work counts as long
    monkeypatch.setattr(backends_mod, "AUTO_WINDOW_SECONDS", 0.0)
    monkeypatch.setattr(backends_mod, "usable_cores", lambda: 2)
    monkeypatch.setattr(backends_mod, "idle_cores", lambda before, after: idle)
    cfg = replace(TOY, runs=4)
    res = run_experiment(cfg, DATA, tmp_path / "auto", seed=3, jobs="auto", progress=False)
    assert res["jobs"] == (2 if idle else 1)
    run_experiment(cfg, DATA, tmp_path / "one", seed=3, jobs=1, progress=False)
    auto, one = _results(tmp_path / "auto" / "toy.csv"), _results(tmp_path / "one" / "toy.csv")
    assert len(one) == 28 and auto == one  # where a run happens never changes its result


def test_cli_jobs_option(tmp_path):
    from dpmo.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["reproduce", "graph-agg"]).jobs == "auto"
    assert parser.parse_args(["reproduce", "graph-agg", "--jobs", "AUTO"]).jobs == "auto"
    assert parser.parse_args(["reproduce", "graph-agg", "-j", "2"]).jobs == 2
    assert parser.parse_args(["reproduce", "graph-agg", "--jobs", "-1"]).jobs == (os.cpu_count() or 1)
    assert parser.parse_args(["reproduce", "graph-agg"]).progress == "auto"


def test_the_quick_grid_has_the_runs_the_docs_state():
    # issue 37, point 9: docs/experiments.md said 5,610 runs for `dpmo reproduce all --quick`, which did 6,390
    import pathlib

    from dpmo.experiments import EXPERIMENTS, plan_tasks

    total = 0
    for config in EXPERIMENTS.values():
        quick = config.quick_version()
        total += sum(len(t.runs) for t in plan_tasks(quick, {d: [] for d in quick.datasets}, seed=0))
    docs = (pathlib.Path(__file__).parents[1] / "docs" / "experiments.md").read_text()
    stated = re.search(r"`dpmo reproduce all --quick` runs \*\*([0-9,]+) runs\*\*", docs)
    assert stated is not None and int(stated.group(1).replace(",", "")) == total
