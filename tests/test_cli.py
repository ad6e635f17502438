"""The ``dpmo`` command line: argument errors, the reproduce pipeline end to end (tiny grids), topk, trees."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dpmo.cli import main
from dpmo.experiments.runner import read_rows


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("dpmo: error: ")
    return lines[0]


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["reproduce", "tree-nope"], "unknown experiment 'tree-nope'"),
        (["reproduce", "graph-agg", "--datasets", "facebook"], "unknown dataset 'facebook'"),
        (["reproduce", "graph-agg", "--epsilons", "0"], "epsilon must be a positive finite number, got 0"),
        (["reproduce", "graph-agg", "--epsilons", "1,-2"], "got -2"),
        (["reproduce", "graph-agg", "--epsilons", "abc"], "epsilon must be a number"),
        (["reproduce", "graph-agg", "--epsilons", "inf"], "positive finite"),
        (["reproduce", "graph-agg", "--runs", "0"], "--runs: must be at least 1"),
        (["reproduce", "graph-agg", "--runs", "two"], "--runs: expected a whole number"),
        (["reproduce", "graph-agg", "--jobs", "0"], "--jobs"),
        (["reproduce", "graph-agg", "--seed", "-1"], "seed must be >= 0"),
        (["reproduce", "graph-agg", "--backend", "spark"], "invalid choice: 'spark'"),
        (["reproduce", "graph-agg", "--scheduler", "tcp://x:1"], "--scheduler needs --backend dask"),
        (["reproduce", "tree-agg", "--datasets", "github"], "'github' is a graph dataset"),
        (["reproduce", "graph-agg", "--methods", "Magic"], "unknown method 'Magic'"),
        (["reproduce", "graph-agg", "--data-dir", "/no/such/folder"], "is not a folder"),
        (["topk", "/no/such/file.txt"], "cannot read /no/such/file.txt"),
        (["topk", "/no/such/file.txt", "--epsilon", "-1"], "epsilon must be a positive finite number"),
        (["trees", "/no/such/file.csv", "--label", "y"], "cannot read /no/such/file.csv"),
        (["trees", "x.csv"], "cannot read x.csv"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(argv, needle, capsys):
    code, out, err = _run(argv, capsys)
    assert code == 2
    line = _one_error_line(err)
    assert needle in line


def test_missing_dataset_says_which_file_and_where_to_get_it(tmp_path, capsys):
    code, _, err = _run(
        ["reproduce", "graph-agg", "--datasets", "enron", "--data-dir", str(tmp_path)], capsys
    )
    assert code == 2
    line = _one_error_line(err)
    assert "Email-Enron.txt" in line and str(tmp_path) in line and "snap.stanford.edu" in line
    code, _, err = _run(["reproduce", "tree-pareto", "--data-dir", str(tmp_path)], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "nltcs.dat" in line and "also missing: adult, acs" in line


def test_console_script_prints_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "dpmo.cli", "reproduce", "everything"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "dpmo: error: unknown experiment 'everything'; choose one of tree-pareto, tree-agg, graph-pareto, "
        "graph-agg, all"
    ]


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--help"])
    assert exc.value.code == 0
    assert "--quick" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------ reproduce
def test_reproduce_graph_agg_tiny_grid_and_resume(tmp_path, capsys):
    out = tmp_path / "res"
    argv = [
        "reproduce",
        "graph-agg",
        "--datasets",
        "karate",
        "--epsilons",
        "0.5,50",
        "--runs",
        "3",
        "--jobs",
        "1",
        "--out",
        str(out),
        "--seed",
        "9",
    ]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    rows = read_rows(out / "graph-agg.csv")
    assert len(rows) == 2 * 2 * 3  # 2 methods x 2 budgets x 3 runs
    assert {r["dataset"] for r in rows} == {"karate"}
    assert all(0.0 <= float(r["recall"]) <= 1.0 for r in rows)
    for f in ("report.md", "figures/graph-agg.png", "tables/graph-agg.md", "meta.json"):
        assert (out / f).exists(), f
    # again: nothing new is run, the CSV is unchanged
    before = (out / "graph-agg.csv").read_text()
    code, _, err = _run(argv, capsys)
    assert code == 0 and "0 runs done, 12 already" in err
    assert (out / "graph-agg.csv").read_text() == before
    # one more run per cell: only those are added
    code, _, err = _run(argv[:-6] + ["--runs", "4", "--jobs", "1", "--out", str(out), "--seed", "9"], capsys)
    assert code == 0 and "4 runs done, 12 already" in err


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_reproduce_all_quick_tiny(tmp_path, capsys):
    """Every experiment end to end on embedded data (tiny grid): CSVs, tables, figures and report."""
    import matplotlib.image as mpimg

    pytest.importorskip("dpmo.trees.moet", reason="DP-MOET not available yet")
    out = tmp_path / "quick"
    code, _, err = _run(
        [
            "reproduce",
            "all",
            "--quick",
            "--runs",
            "2",
            "--epsilons",
            "1",
            "--jobs",
            "1",
            "--datasets",
            "breast-cancer",
            "karate",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    text = (out / "report.md").read_text()
    for name in ("tree-pareto", "tree-agg", "graph-pareto", "graph-agg"):
        assert (out / f"{name}.csv").exists()
        img = mpimg.imread(out / "figures" / f"{name}.png")
        assert img.shape[0] > 100 and img.shape[1] > 100
        assert f"## {name}" in text
    agg = read_rows(out / "tree-agg.csv")
    assert {r["method"] for r in agg} == {
        "DP-MOET-Agg-local",
        "DP-MOET-Agg-global",
        "LocalDiffPID3",
        "NODP-MOET-Agg",
    }
    assert all(0.0 <= float(r["fitness"]) <= 5.0 for r in agg)
    assert {r["epsilon"] for r in agg if r["method"] == "NODP-MOET-Agg"} == {"inf"}


def test_reproduce_all_without_real_data_falls_back_to_embedded(tmp_path, capsys, monkeypatch):
    """``all`` with no real data anywhere: a notice per experiment and a run on embedded data."""
    monkeypatch.chdir(tmp_path)  # no ./data, no ../shared/data
    monkeypatch.delenv("DPMO_DATA_DIR", raising=False)
    code, _, err = _run(
        [
            "reproduce",
            "all",
            "--runs",
            "1",
            "--epsilons",
            "1",
            "--jobs",
            "1",
            "--methods",
            "DP-MOTkIN-Agg-global",
            "--out",
            str(tmp_path / "o"),
            "--no-report",
        ],
        capsys,
    )
    assert code == 0, err
    assert "musae_git_edges.csv" in err  # says what is missing
    assert "graph-agg: no real data found; running on embedded data" in err
    rows = read_rows(tmp_path / "o" / "graph-agg.csv")
    assert {r["dataset"] for r in rows} == {"les-miserables", "synthetic"}


# ------------------------------------------------------------------------------------------ user files
def test_topk_on_a_user_edge_list(tmp_path, capsys):
    # two triangles joined by a path, plus a star; nodes 0, 8, 9 and 14 are isolated nodes of the public set
    edges = [(1, 2), (2, 3), (1, 3), (3, 4), (4, 5), (5, 6), (6, 7), (5, 7), (10, 11), (10, 12), (10, 13)]
    path = tmp_path / "g.txt"
    path.write_text("# my graph\n" + "\n".join(f"{u} {v}" for u, v in edges) + "\n")
    base = ["topk", str(path), "-k", "3", "--epsilon", "2", "--seed", "1", "--n-nodes", "15"]
    code, out, err = _run(base, capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[1] == "node" and len(lines) == 5  # a heading, then the private picks only
    picked = [int(ln) for ln in lines[2:5]]
    assert len(set(picked)) == 3 and all(0 <= v < 15 for v in picked)
    assert "15" not in lines[0] and "11" not in lines[0]  # no node or edge count printed
    # the exact statistics only on request, under a NOT PRIVATE heading
    code, out_x, err = _run([*base, "--show-exact-statistics"], capsys)
    assert code == 0, err
    assert out_x.startswith(out)  # the same private output first
    extra = out_x[len(out) :].strip().splitlines()
    assert "NOT PRIVATE" in extra[0] and all(ln.startswith("#") for ln in extra)
    deg = {v: sum(v in e for e in edges) for v in range(15)}
    rows = [ln[2:].split("\t") for ln in extra[2:5]]
    assert [int(r[0]) for r in rows] == picked and all(int(r[1]) == deg[int(r[0])] for r in rows)
    assert extra[-1].startswith("# exact (non-private) top-k: ")
    # same seed, same answer; the node set from a file gives the same graph
    nodes_file = tmp_path / "nodes.txt"
    nodes_file.write_text("# public ids\n" + "\n".join(str(v) for v in range(15)) + "\n")
    code2, out2, _ = _run([*base[:-2], "--nodes", str(nodes_file)], capsys)
    assert code2 == 0 and out2 == out
    # k larger than the public node set
    code, _, err = _run(["topk", str(path), "-k", "50", "--n-nodes", "15"], capsys)
    assert code == 2 and "larger than the number of nodes" in _one_error_line(err)


def test_topk_refuses_without_a_public_node_set(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n")
    code, out, err = _run(["topk", str(path), "-k", "1"], capsys)
    line = _one_error_line(err)
    assert code == 2 and out == ""
    assert "--nodes FILE or --n-nodes N is required" in line and "leaf" in line
    # an edge outside the declared node set is refused, without naming the edge or its node (private)
    code, _, err = _run(["topk", str(path), "-k", "1", "--n-nodes", "4"], capsys)
    line = _one_error_line(err)
    assert code == 2 and "not in nodes" in line and "node 4" not in line and "3 4" not in line
    bad = tmp_path / "nodes.txt"  # the node file is public: its line is named
    bad.write_text("0 1 x\n")
    code, _, err = _run(["topk", str(path), "--nodes", str(bad)], capsys)
    assert code == 2 and "line 1" in _one_error_line(err)


def test_topk_malformed_file(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("1 2\n3 x\n")
    code, _, err = _run(["topk", str(path), "--n-nodes", "5"], capsys)
    assert code == 2
    _one_error_line(err)


def test_trees_on_a_user_csv(tmp_path, capsys):
    pytest.importorskip("dpmo.trees.moet", reason="DP-MOET not available yet")
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 300)
    b = rng.uniform(0, 10, 300)
    y = ((a == 1) & (b > 5)).astype(int)
    path = tmp_path / "t.csv"
    path.write_text("a,b,label\n" + "\n".join(f"{x},{z:.3f},{t}" for x, z, t in zip(a, b, y, strict=True)))
    code, out, err = _run(
        [
            "trees",
            str(path),
            "--label",
            "label",
            "--categorical",
            "a",
            "--numeric",
            "b=0:10",
            "--epsilon",
            "5",
            "--population-size",
            "20",
            "--selection-size",
            "4",
            "--seed",
            "3",
        ],
        capsys,
    )
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[1] == "## tree 0" and "TPR" not in out  # the private tree, no exact statistic
    # no declared predictors: refused (domains are never read off the data)
    code, _, err = _run(["trees", str(path), "--label", "label"], capsys)
    assert code == 2 and "--categorical" in _one_error_line(err)
    code, _, err = _run(["trees", str(path), "--label", "nope", "--numeric", "b=0:10"], capsys)
    assert code == 2 and "nope" in _one_error_line(err)
    code, _, err = _run(["trees", str(path), "--label", "label", "--numeric", "b=10:0"], capsys)
    assert code == 2 and "LO must be smaller than HI" in _one_error_line(err)


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_reproduce_graph_pareto_published_ego_density(tmp_path, capsys):
    out = tmp_path / "eg"
    base = [
        "reproduce",
        "graph-pareto",
        "--datasets",
        "karate",
        "--epsilons",
        "5",
        "--runs",
        "2",
        "--jobs",
        "1",
    ]
    assert main([*base, "--out", str(out)]) == 0
    assert main([*base, "--out", str(out), "--ego-density", "published"]) == 0  # other settings: new rows
    capsys.readouterr()
    rows = read_rows(out / "graph-pareto.csv")
    assert len(rows) == 2 * 3 * 2 and len({r["settings"] for r in rows}) == 2  # 3 methods, 2 runs, 2 settings
    metrics = ("coverage", "front_share", "recall", "hypervolume_ratio")
    assert all(0.0 <= float(r[m]) <= 1.0 for r in rows for m in metrics)


def test_a_budget_that_runs_out_is_one_line_not_a_traceback(monkeypatch, capsys):
    # BudgetExceededError is a BaseException (so scikit-learn loops stop on it): the command line must
    # still turn it into its one-line error and exit status 2.
    import dpmo
    import dpmo.cli.select_command as command

    def exhausted(args):
        dpmo.Budget(0.5).spend(1.0, "more than the budget")

    monkeypatch.setattr(command, "select_command", exhausted)  # main imports the command when it runs
    status = main(["select", "x.csv", "-k", "1", "--epsilon", "1", "--objective", "a=1"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("dpmo: error:") and "Traceback" not in err
    assert err.count("\n") == 1


# ------------------------------------------------------------------------------ a command that raises
def _raising(exc):
    def command(args):
        raise exc

    return command


@pytest.mark.parametrize(
    ("exc", "status", "line"),
    [
        (ValueError("bad value"), 2, "dpmo: error: bad value"),
        (OSError("no such file"), 2, "dpmo: error: no such file"),
        (KeyboardInterrupt(), 130, "dpmo: interrupted"),
        (
            LookupError("lost"),
            1,
            "dpmo: internal error: LookupError: lost (set DPMO_DEBUG=1 for the traceback)",
        ),
    ],
)
def test_a_command_that_raises_gives_one_line_and_its_status(monkeypatch, capsys, exc, status, line):
    from dpmo.cli import reproduce

    monkeypatch.delenv("DPMO_DEBUG", raising=False)
    monkeypatch.setattr(reproduce, "reproduce_command", _raising(exc))
    code, out, err = _run(["reproduce", "graph-agg"], capsys)
    assert (code, out, err.strip()) == (status, "", line)


def test_a_budget_run_out_is_an_error_and_debug_shows_the_traceback(monkeypatch, capsys):
    import dpmo
    from dpmo.cli import reproduce

    monkeypatch.delenv("DPMO_DEBUG", raising=False)
    monkeypatch.setattr(reproduce, "reproduce_command", _raising(dpmo.BudgetExceededError("spent")))
    assert _one_error_line(_run(["reproduce", "graph-agg"], capsys)[2]) == "dpmo: error: spent"
    monkeypatch.setenv("DPMO_DEBUG", "1")
    for exc in (dpmo.BudgetExceededError("spent"), ValueError("bad"), LookupError("lost")):
        monkeypatch.setattr(reproduce, "reproduce_command", _raising(exc))
        with pytest.raises(type(exc)):
            main(["reproduce", "graph-agg"])
    monkeypatch.setattr(reproduce, "reproduce_command", _raising(SystemExit(3)))  # never turned into a status
    with pytest.raises(SystemExit):
        main(["reproduce", "graph-agg"])
