"""``python -m dpmo.experiments.verdict``: one command re-runs the readings table of docs/errata.md."""

from __future__ import annotations

import contextlib
import inspect
import io
from pathlib import Path

import pytest

from dpmo.experiments.verdict import GROUPS, TABLE_HEADER, Group, main, replace_table, run_group

ERRATA = Path(__file__).resolve().parents[1] / "docs" / "errata.md"


def test_the_errata_table_is_replaced_and_nothing_else():
    page = ERRATA.read_text()
    table = f"{TABLE_HEADER}\n|---|---|---|---|---|---|---|\n| new | row | - | - | - | - | - |"
    new = replace_table(page, table)
    old_lines, new_lines = page.splitlines(), new.splitlines()
    start = old_lines.index(TABLE_HEADER)
    end = start + 1
    while old_lines[end].startswith("|"):
        end += 1
    assert new_lines[:start] == old_lines[:start]
    assert new_lines[start : start + 3] == table.splitlines()
    assert new_lines[start + 3 :] == old_lines[end:]
    with pytest.raises(ValueError, match="no verdict table"):
        replace_table("no table here\n", table)


def test_table_command_rewrites_the_page_with_one_row_per_group(tmp_path):
    page = tmp_path / "errata.md"
    page.write_text(ERRATA.read_text())
    (tmp_path / "nothing-run").mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["table", "--out", str(tmp_path / "nothing-run"), "--errata", str(page)]) == 0
    lines = page.read_text().splitlines()
    start = lines.index(TABLE_HEADER)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert len(rows) == len(GROUPS)
    assert all(" 0 x 0 " in r for r in rows)  # nothing was run into that folder
    assert not any(" nan " in r for r in rows)  # no distance measured: "-", not "nan"


def test_no_group_asks_for_a_tree_that_cannot_be_grown():
    # LocalDiffPID3 without the stopping rule at depth >= 10 on Adult: one child per public value, ~10^9
    # nodes; the fit never ends, so `verdict all` would hang there
    for g in GROUPS.values():
        if "adult" not in g.datasets:
            continue
        for reading in g.readings:
            parts = reading.split("+")
            deep = any(p.startswith("id3-depth=") and int(p.split("=")[1]) >= 10 for p in parts)
            assert not ("id3-no-stop" in parts and deep), (g.name, reading)


# ------------------------------------------------------------------ the same runs as ``dpmo reproduce``
def _recorder(monkeypatch, fail_on=()):
    """Replace :func:`dpmo.experiments.orchestrate.reproduce` by a recorder of its bound arguments (defaults
    filled in); a call whose readings are ``fail_on`` raises ValueError("boom")."""
    from dpmo.experiments import orchestrate

    signature = inspect.signature(orchestrate.reproduce)
    calls: list[dict] = []

    def fake(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append(dict(bound.arguments))
        if bound.arguments["readings"] and "+".join(bound.arguments["readings"]) in fail_on:
            raise ValueError("boom")
        return {}

    monkeypatch.setattr(orchestrate, "reproduce", fake)
    return calls


def _cli_argv(group, reading, *, out, data_dir, runs, jobs, seed):
    """The command line the verdict used to run for one reading (written here, independently of the code)."""
    folder = Path(out) / (group.folder or group.name) / reading.replace("=", "-")
    argv = ["reproduce", group.experiment, "--methods", group.method, "--datasets", *group.datasets]
    argv += ["--data-dir", str(data_dir), "--runs", str(runs), "--jobs", str(jobs), "--seed", str(seed)]
    argv += ["--out", str(folder), "--no-report"]
    if group.epsilons:
        argv += ["--epsilons", *map(str, group.epsilons)]
    if reading != "default":
        for r in reading.split("+"):
            argv += ["--reading", r]
    return argv


@pytest.mark.parametrize("jobs", ["2", "auto", "-1", 1])
def test_run_group_calls_reproduce_as_dpmo_reproduce_does(tmp_path, monkeypatch, jobs):
    from dpmo.cli import main as cli_main

    g = GROUPS["motkin-agg-global"]  # runs_factor 2 and readings of two kinds
    calls = _recorder(monkeypatch)
    run_group(g.name, out=tmp_path / "v", data_dir=str(tmp_path), runs=7, jobs=jobs, seed=3)
    ours = list(calls)
    calls.clear()
    for reading in ("default", *g.readings):
        argv = _cli_argv(g, reading, out=tmp_path / "v", data_dir=tmp_path, runs=14, jobs=jobs, seed=3)
        assert cli_main(argv) == 0
    assert len(ours) == len(calls) == 1 + len(g.readings)
    for mine, cli in zip(ours, calls, strict=True):
        mine["out"], cli["out"] = Path(mine["out"]), Path(cli["out"])
        assert mine == cli
    assert [c["report"] for c in ours] == [False] * len(ours) and ours[0]["runs"] == 14


def test_verdict_run_command_passes_its_defaults(tmp_path, monkeypatch):
    from dpmo.cli import main as cli_main

    g = GROUPS["nodp-moet-agg-nltcs"]
    calls = _recorder(monkeypatch)
    assert main(["run", g.name, "--data-dir", str(tmp_path), "--out", str(tmp_path / "v")]) == 0
    ours = list(calls)
    calls.clear()
    for reading in ("default", *g.readings):  # --runs 50 and --jobs 1 by default, seed 0
        cli_main(_cli_argv(g, reading, out=tmp_path / "v", data_dir=tmp_path, runs=50, jobs=1, seed=0))
    assert [(c["jobs"], c["runs"], c["seed"]) for c in ours] == [(1, 50, 0)] * len(ours)
    assert [{**c, "out": Path(c["out"])} for c in ours] == [{**c, "out": Path(c["out"])} for c in calls]


def test_a_failing_reading_is_reported_with_the_status_of_dpmo_reproduce(tmp_path, monkeypatch, capsys):
    from dpmo.cli import main as cli_main

    g = Group("probe", "graph-agg", "DP-MOTkIN-Agg-local", ("enron",), ("eps-per-pick", "id3-gini", "nope"))
    monkeypatch.setitem(GROUPS, g.name, g)
    calls = _recorder(monkeypatch, fail_on=("eps-per-pick",))
    expected = {}
    for reading in ("default", *g.readings):  # boom, a tree reading on a graph experiment, an unknown one
        argv = _cli_argv(g, reading, out=tmp_path / "v", data_dir=tmp_path, runs=2, jobs=1, seed=0)
        expected[reading] = cli_main(argv)
    assert expected == {"default": 0, "eps-per-pick": 2, "id3-gini": 2, "nope": 2}
    cli_err = capsys.readouterr().err
    calls.clear()
    run_group(g.name, out=tmp_path / "v", data_dir=str(tmp_path), runs=2, jobs=1)
    err = capsys.readouterr().err
    assert len(calls) == 2  # the next readings still ran after boom; the refused ones never reached it
    for reading, status in expected.items():
        assert (f"verdict: probe / {reading} failed with status {status}" in err) == bool(status)
    assert err.count("dpmo: error: ") == cli_err.count("dpmo: error: ") == 3
    assert "dpmo: error: boom" in err
    # the data folder is checked as dpmo reproduce checks it, after the readings
    absent = tmp_path / "absent"
    for reading in ("default", *g.readings):
        cli_main(_cli_argv(g, reading, out=tmp_path / "v", data_dir=absent, runs=2, jobs=1, seed=0))
    cli_err = capsys.readouterr().err
    run_group(g.name, out=tmp_path / "v", data_dir=str(absent), runs=2, jobs=1)
    err = capsys.readouterr().err
    assert err.count("is not a folder") == cli_err.count("is not a folder") == 2  # default, eps-per-pick
    # the command's exit status says that readings failed (it was 0)
    calls.clear()
    argv = ["run", g.name, "--data-dir", str(tmp_path), "--out", str(tmp_path / "v"), "--runs", "2"]
    assert main(argv) == 1
    assert len(calls) == 2


def test_every_group_names_known_cells_and_readings_that_apply():
    from dpmo.experiments.config import DATASETS, EXPERIMENTS
    from dpmo.experiments.readings import resolve_readings

    for g in GROUPS.values():
        config = EXPERIMENTS[g.experiment]
        assert g.method in config.methods, g.name
        assert all(DATASETS[d].kind == config.kind for d in g.datasets), g.name
        for reading in g.readings:
            for r, _ in resolve_readings(reading.split("+")):
                assert g.experiment in r.experiments, (g.name, reading)


def test_the_command_refuses_unknown_groups_and_missing_folders(tmp_path, capsys):
    """They stopped with KeyError and FileNotFoundError tracebacks."""
    from dpmo.experiments.verdict import main as verdict_main

    for argv, said in [
        (["table", "nope", "--out", str(tmp_path)], "unknown groups"),
        (["report", "--out", str(tmp_path / "absent")], "no such folder"),
        (["table", "--out", str(tmp_path), "--errata", str(tmp_path / "absent.md")], "no such file"),
        (["table", "--out", str(tmp_path / "absent")], "no such folder"),  # it printed rows of nan
        (["detail", "--out", str(tmp_path / "absent")], "no such folder"),
        (["run", "--data-dir", str(tmp_path / "absent"), "--out", str(tmp_path)], "--data-dir"),  # exit 0
    ]:
        with pytest.raises(SystemExit) as info:
            verdict_main(argv)
        assert info.value.code == 2 and said in capsys.readouterr().err
