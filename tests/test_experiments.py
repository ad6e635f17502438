"""The experiment framework: seeding, resume, parallel equality (joblib and Dask), report and figures.

Most tests use a fast stand-in run function (``dpmo.experiments.methods:toy_run``) so that they test the
framework, not the applications; the end-to-end runs of the real experiments are in ``test_cli.py``.
"""

from __future__ import annotations

import csv
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpmo.experiments import report as report_mod
from dpmo.experiments import toy_experiment
from dpmo.experiments.config import (
    DATASETS,
    EXPERIMENTS,
    find_dataset,
    missing_dataset_message,
)
from dpmo.experiments.runner import (
    cell_seed,
    columns,
    plan_tasks,
    read_rows,
    reference_seed,
    run_experiment,
    run_task,
)

TOY = toy_experiment(methods=("A-local", "A-global", "NODP"), epsilons=(0.1, 1.0, 10.0), runs=6, chunk=4)
DATA = {"toy": []}


def _by_key(rows):
    """{(dataset, method, epsilon, run): (score, ref)}: the results without the timing column."""
    return {
        (r["dataset"], r["method"], float(r["epsilon"]), int(r["run"])): (r["score"], r["ref"]) for r in rows
    }


# ------------------------------------------------------------------------------------------ seeding
def test_cell_seed_is_a_pure_function_of_the_cell():
    a = cell_seed(7, "tree-agg", "nltcs", "DP-MOET-Agg-local", 0.5, 3).generate_state(4)
    b = cell_seed(7, "tree-agg", "nltcs", "DP-MOET-Agg-local", 0.5, 3).generate_state(4)
    assert np.array_equal(a, b)
    others = [
        cell_seed(8, "tree-agg", "nltcs", "DP-MOET-Agg-local", 0.5, 3),
        cell_seed(7, "tree-pareto", "nltcs", "DP-MOET-Agg-local", 0.5, 3),
        cell_seed(7, "tree-agg", "acs", "DP-MOET-Agg-local", 0.5, 3),
        cell_seed(7, "tree-agg", "nltcs", "DP-MOET-Agg-global", 0.5, 3),
        cell_seed(7, "tree-agg", "nltcs", "DP-MOET-Agg-local", 1.0, 3),
        cell_seed(7, "tree-agg", "nltcs", "DP-MOET-Agg-local", 0.5, 4),
        reference_seed(7, "tree-agg", "nltcs", 3),
    ]
    states = {tuple(s.generate_state(4)) for s in others} | {tuple(a)}
    assert len(states) == len(others) + 1
    # the same budget written differently is the same cell
    assert np.array_equal(
        cell_seed(7, "e", "d", "m", 0.5, 0).generate_state(2),
        cell_seed(7, "e", "d", "m", 5e-1, 0).generate_state(2),
    )


def test_reference_seed_shared_by_methods_and_budgets(tmp_path):
    run_experiment(TOY, DATA, tmp_path, seed=3, jobs=1, progress=False)
    rows = read_rows(tmp_path / "toy.csv")
    for run in range(TOY.runs):
        refs = {r["ref"] for r in rows if int(r["run"]) == run}
        assert len(refs) == 1  # every method and epsilon of repetition `run` saw the same reference draw
    assert len({r["ref"] for r in rows}) == TOY.runs


# ------------------------------------------------------------------------------------------ planning / resume
def test_plan_counts_every_cell_and_run():
    tasks = plan_tasks(TOY, DATA, seed=0)
    runs = sorted((t.method, t.epsilon, r) for t in tasks for r in t.runs)
    # 2 private methods x 3 budgets + 1 non-private method (epsilon = inf), 6 runs each
    expected = sorted(
        [(m, e, r) for m in ("A-local", "A-global") for e in TOY.epsilons for r in range(6)]
        + [("NODP", math.inf, r) for r in range(6)]
    )
    assert runs == expected
    assert all(len(t.runs) <= TOY.chunk for t in tasks)


def test_resume_skips_done_runs_and_redoes_missing_ones(tmp_path):
    first = run_experiment(TOY, DATA, tmp_path, seed=5, jobs=1, progress=False)
    assert first["planned"] == 7 * 6 and first["skipped"] == 0
    full = _by_key(read_rows(tmp_path / "toy.csv"))

    again = run_experiment(TOY, DATA, tmp_path, seed=5, jobs=1, progress=False)
    assert again["planned"] == 0 and again["skipped"] == 42
    assert len(read_rows(tmp_path / "toy.csv")) == 42  # nothing appended

    # simulate an interrupted run: keep the header and the first 10 rows only
    path = tmp_path / "toy.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:11]))
    resumed = run_experiment(TOY, DATA, tmp_path, seed=5, jobs=1, progress=False)
    assert resumed["planned"] == 32 and resumed["skipped"] == 10
    rows = read_rows(path)
    assert len(rows) == 42
    assert _by_key(rows) == full  # the redone runs equal the lost ones

    # more repetitions: only the new ones run
    more = run_experiment(replace(TOY, runs=8), DATA, tmp_path, seed=5, jobs=1, progress=False)
    assert more["planned"] == 7 * 2

    # another master seed is another grid: nothing is reused
    other = run_experiment(TOY, DATA, tmp_path, seed=6, jobs=1, progress=False)
    assert other["planned"] == 42


def test_a_truncated_last_line_is_redone(tmp_path):
    run_experiment(TOY, DATA, tmp_path, seed=1, jobs=1, progress=False)
    path = tmp_path / "toy.csv"
    text = path.read_text()
    path.write_text(text[: len(text) - 25])  # cut the last row in the middle
    res = run_experiment(TOY, DATA, tmp_path, seed=1, jobs=1, progress=False)
    assert res["planned"] >= 1


def test_csv_with_other_columns_is_refused(tmp_path):
    (tmp_path / "toy.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="columns"):
        run_experiment(TOY, DATA, tmp_path, seed=1, jobs=1, progress=False)


def test_tidy_csv_columns(tmp_path):
    run_experiment(TOY, DATA, tmp_path, seed=1, jobs=1, progress=False)
    with (tmp_path / "toy.csv").open() as fh:
        header = next(csv.reader(fh))
    assert header == [
        "experiment",
        "dataset",
        "method",
        "epsilon",
        "run",
        "score",
        "ref",
        "readings",
        "private",
        "seconds",
        "cpu_seconds",
        "seed",
        "settings",
    ]
    assert header == columns(TOY)
    rows = read_rows(tmp_path / "toy.csv")
    assert {r["epsilon"] for r in rows if r["method"] == "NODP"} == {"inf"}
    assert all(float(r["seconds"]) >= 0 for r in rows)


# ------------------------------------------------------------------------------------------ reproducibility
def test_a_cell_rerun_alone_gives_identical_results(tmp_path):
    run_experiment(TOY, DATA, tmp_path / "grid", seed=11, jobs=1, progress=False)
    grid = _by_key(read_rows(tmp_path / "grid" / "toy.csv"))
    alone = replace(TOY, epsilons=(1.0,))
    run_experiment(alone, DATA, tmp_path / "cell", seed=11, jobs=1, methods=["A-global"], progress=False)
    cell = _by_key(read_rows(tmp_path / "cell" / "toy.csv"))
    assert len(cell) == TOY.runs
    assert all(grid[k] == v for k, v in cell.items())
    # and one run of it, straight from its task
    task = next(t for t in plan_tasks(alone, DATA, seed=11, methods=["A-global"]) if 2 in t.runs)
    one = [r for r in run_task(replace(task, runs=(2,)))][0]
    assert (one["score"], one["ref"]) == grid[("toy", "A-global", 1.0, 2)]


def test_joblib_two_jobs_equals_one_job(tmp_path):
    run_experiment(TOY, DATA, tmp_path / "one", seed=2, jobs=1, progress=False)
    run_experiment(TOY, DATA, tmp_path / "two", seed=2, jobs=2, chunk=3, progress=False)
    one = _by_key(read_rows(tmp_path / "one" / "toy.csv"))
    two = _by_key(read_rows(tmp_path / "two" / "toy.csv"))
    assert len(one) == 42 and one == two


def test_shared_reference_is_computed_once_per_repetition_by_two_workers(tmp_path):
    # tree-pareto's references (one non-private fit per repetition, shared by every method and budget)
    # are cached per process: a worker must get all the cells of the same repetitions together, or each
    # worker recomputes every reference
    log = tmp_path / "references.log"
    toy = toy_experiment(
        methods=("A-local", "A-global", "NODP"), epsilons=(0.1, 1.0, 10.0), runs=12, chunk=2,
        shared_reference=True, params={"reference_log": str(log)},
    )  # fmt: skip
    assert EXPERIMENTS["tree-pareto"].shared_reference
    res = run_experiment(toy, DATA, tmp_path / "two", seed=8123, jobs=2, progress=False)
    assert res["planned"] == 7 * 12
    assert sorted(log.read_text().splitlines()) == sorted(str(r) for r in _spawn_runs(12))
    one = run_experiment(replace(toy, params={"n": 20}), DATA, tmp_path / "one", seed=8123, jobs=1,
                         progress=False)  # fmt: skip
    assert one["planned"] == 7 * 12
    rows_one, rows_two = (read_rows(tmp_path / side / "toy.csv") for side in ("one", "two"))
    assert _by_key(rows_one) == _by_key(rows_two)


def _spawn_runs(runs):
    """The last spawn-key entry of each repetition's reference seed (the run number)."""
    return [tuple(reference_seed(8123, "toy", "toy", r).spawn_key) for r in range(runs)]


def test_dask_backend_on_a_local_cluster_equals_one_job(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    run_experiment(TOY, DATA, tmp_path / "one", seed=4, jobs=1, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        res = run_experiment(
            TOY,
            DATA,
            tmp_path / "dask",
            seed=4,
            backend="dask",
            scheduler=cluster.scheduler_address,
            chunk=2,
            progress=False,
        )
    assert res["planned"] == 42
    assert _by_key(read_rows(tmp_path / "one" / "toy.csv")) == _by_key(
        read_rows(tmp_path / "dask" / "toy.csv")
    )


def test_toy_mechanism_prefers_high_scores_at_large_budget(tmp_path):
    # guards against a run function that ignores epsilon (the runner must pass it through)
    cfg = replace(TOY, runs=40, epsilons=(0.01, 10.0))
    run_experiment(cfg, DATA, tmp_path, seed=0, jobs=1, progress=False)
    rows = read_rows(tmp_path / "toy.csv")
    mean = {
        e: np.mean([float(r["score"]) for r in rows if r["method"] == "A-local" and float(r["epsilon"]) == e])
        for e in (0.01, 10.0)
    }
    assert mean[10.0] > 18.5 and mean[0.01] < 14


# ------------------------------------------------------------------------------------------ config / data
def test_paper_settings():
    tp, ta, gp, ga = (EXPERIMENTS[n] for n in ("tree-pareto", "tree-agg", "graph-pareto", "graph-agg"))
    assert tp.epsilons == (0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0) and tp.runs == 500
    assert {
        k: tp.params[k]
        for k in (
            "population_size",
            "selection_size",
            "n_iterations",
            "initial_depth",
            "max_depth",
            "n_output",
        )
    } == dict(population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3)
    assert ta.epsilons == (0.01, 0.05, 0.1, 0.5, 1.0, 2.0) and tuple(ta.params["weights"]) == (3.0, 2.0)
    assert (
        ta.params["population_size"],
        ta.params["selection_size"],
        ta.params["n_iterations"],
        ta.params["initial_depth"],
        ta.params["max_depth"],
        ta.params["n_output"],
    ) == (100, 20, 2, 3, 5, 1)
    assert gp.epsilons == (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
    assert (
        gp.params_for("github")["k"] == 3
        and gp.params_for("enron")["k"] == 3
        and gp.params_for("dblp")["k"] == 10
    )
    assert ga.epsilons == (0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 100.0)
    assert ga.params["k"] == 5 and tuple(ga.params["weights"]) == (1.0, 100.0)
    for cfg in (tp, ta, gp, ga):
        q = cfg.quick_version()
        assert all(DATASETS[d].embedded for d in q.datasets)
        assert q.runs < cfg.runs


def test_find_dataset_and_missing_message(tmp_path):
    assert find_dataset("breast-cancer", [tmp_path]) == []
    assert find_dataset("adult", [tmp_path]) is None
    (tmp_path / "adult.data").write_text("x")
    assert find_dataset("adult", [tmp_path]) is None  # adult.test is needed too
    (tmp_path / "adult.test").write_text("x")
    assert find_dataset("adult", [tmp_path / "nowhere", tmp_path]) == [
        tmp_path / "adult.data",
        tmp_path / "adult.test",
    ]
    msg = missing_dataset_message("github", [tmp_path])
    assert "musae_git_edges.csv" in msg and str(tmp_path) in msg and "snap.stanford.edu" in msg
    assert "\n" not in msg


def test_paper_results_transcription():
    paper = report_mod.paper_results()
    count = {}
    for key in paper:
        count[key[0]] = count.get(key[0], 0) + 1
    # table: 7 budgets x 3 datasets x 2 methods; figure: 6 x 3 x 3 + 3 constant lines; table 8 x 3 x 2;
    # figure 10 x 3 x 2
    assert count == {"tree-pareto": 42, "tree-agg": 57, "graph-pareto": 48, "graph-agg": 60}
    # spot checks against the paper's source (hand-read)
    assert paper[("tree-pareto", "nltcs", "DP-MOET-Pareto-local", 0.5, "coverage")][0] == 0.13
    assert paper[("tree-pareto", "acs", "DP-MOET-Pareto-global", 5.0, "coverage")][0] == 0.28
    assert paper[("graph-pareto", "github", "DP-MOTkIN-Pareto-local", 0.5, "coverage")][0] == 0.0
    assert paper[("graph-pareto", "enron", "DP-MOTkIN-Pareto-global", 0.1, "coverage")][0] == 0.41
    assert paper[("graph-agg", "github", "DP-MOTkIN-Agg-local", 0.05, "recall")][0] == pytest.approx(0.5008)
    assert paper[("graph-agg", "dblp", "DP-MOTkIN-Agg-global", 100.0, "recall")][0] == pytest.approx(0.9972)
    assert paper[("tree-agg", "nltcs", "NODP-MOET-Agg", math.inf, "fitness")][0] == pytest.approx(4.199937)
    assert paper[("tree-agg", "acs", "LocalDiffPID3", 2.0, "fitness")][0] == pytest.approx(4.6985, abs=1e-4)
    assert all("table" in src or "fig" in src for _, src, _ in paper.values())
    # table values are printed with 2 decimals; figure coordinates in full
    assert paper[("tree-pareto", "nltcs", "DP-MOET-Pareto-local", 0.5, "coverage")][2] == pytest.approx(0.005)
    assert paper[("graph-agg", "enron", "DP-MOTkIN-Agg-global", 0.01, "recall")][2] == 0.0


# ------------------------------------------------------------------------------------------ helpers
def test_mean_ci_against_hand_computation():
    s = report_mod.mean_ci([1.0, 2.0, 3.0, 4.0])
    # sd = sqrt(5/3); t(0.975, 3) = 3.182446305 (table value); half width = t * sd / 2
    half = 3.182446305 * math.sqrt(5 / 3) / 2
    assert s.n == 4 and s.mean == 2.5
    assert s.lo == pytest.approx(2.5 - half, abs=1e-8) and s.hi == pytest.approx(2.5 + half, abs=1e-8)
    assert report_mod.mean_ci([0.3]) == (1, 0.3, 0.3, 0.3)
    assert report_mod.mean_ci([1.0, 1.0, 1.0])[1:] == (1.0, 1.0, 1.0)


# ------------------------------------------------------------------------------------------ report
def _fake_csv(out: Path, name: str, metric_fn, seed: int = 0):
    """Rows for a real experiment name, made up (the report does not care where they come from)."""
    cfg = EXPERIMENTS[name]
    rng = np.random.default_rng(seed)
    rows = []
    for d in ("les-miserables", "enron") if cfg.kind == "graph" else ("breast-cancer", "nltcs"):
        for m in cfg.methods:
            for e in [math.inf] if m in cfg.nonprivate else cfg.epsilons[:4]:
                for r in range(5):
                    row = {
                        "experiment": name,
                        "dataset": d,
                        "method": m,
                        "epsilon": repr(e),
                        "run": r,
                        "seconds": 0.01,
                        "seed": 0,
                        "settings": "x",
                    }
                    for metric in cfg.metrics:
                        row[metric] = metric_fn(e, rng)
                    rows.append(row)
    out.mkdir(parents=True, exist_ok=True)
    with (out / f"{name}.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns(cfg))
        w.writeheader()
        w.writerows(rows)


def test_report_tables_and_figures(tmp_path):
    import matplotlib.image as mpimg

    _fake_csv(tmp_path, "graph-agg", lambda e, rng: float(rng.random() < min(1.0, e / 2)))
    _fake_csv(tmp_path, "tree-agg", lambda e, rng: 2.5 + rng.random())
    path = report_mod.write_report(tmp_path, ["graph-agg", "tree-agg"])
    text = path.read_text()
    for name in ("graph-agg", "tree-agg"):
        png = tmp_path / "figures" / f"{name}.png"
        img = mpimg.imread(png)
        assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 400
        assert img[..., :3].std() > 0.05  # not a blank canvas
        assert f"figures/{name}.png" in text
        assert (tmp_path / "tables" / f"{name}.md").exists()
    # beside the paper's numbers, with a difference column, on the datasets both have (enron / nltcs)
    assert "| epsilon | DP-MOTkIN-Agg-global (ours) | paper | diff |" in text
    assert "### Enron" in text and "### NLTCS" in text
    assert "Where and why ours differ" in text and "ERRATA 2" in text
    # the non-private method has its own row
    assert "| non-private |" in text


def test_markdown_table_layout():
    cfg = EXPERIMENTS["tree-pareto"]
    summary = {
        ("nltcs", "DP-MOET-Pareto-local", 0.1): {"coverage": report_mod.mean_ci([0.2, 0.4])},
        ("nltcs", "DP-MOET-Pareto-global", 0.1): {"coverage": report_mod.mean_ci([0.5])},
    }
    text = report_mod.markdown_table(cfg, summary)
    lines = text.splitlines()
    assert lines[0] == "| epsilon | NLTCS DP-MOET-Pareto-global | NLTCS DP-MOET-Pareto-local |"
    # mean 0.3, t(0.975, 1) = 12.7062047, sd = 0.1414214, half = 1.2706205
    assert lines[2] == "| 0.1 | 0.500 | 0.300 [-0.971, 1.571] |"


def test_budget_factor_finds_a_known_shift():
    grid = [0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 100.0]
    ours = {e: 1 - math.exp(-e) for e in grid}
    paper = {e: 1 - math.exp(-2 * e) for e in grid}  # the paper reaches at e what we reach at 2 e
    c, gap, cells = report_mod.budget_factor(ours, paper)
    assert c == pytest.approx(2.0, rel=0.03) and gap < 0.01 and cells >= 3
    same = report_mod.budget_factor(ours, ours, [1.0])
    assert same[0] == 1.0 and same[1] == 0.0
    assert report_mod.budget_factor({1.0: 0.5}, paper) is None  # one point: no curve


def test_graph_adapter_ego_density_conventions():
    """The adapter passes the ego-density convention through (checked against networkx's triangle counts)."""
    import networkx as nx

    from dpmo.experiments.methods import EGO_CONVENTIONS, load_graph_data

    data = load_graph_data("karate")
    g = nx.karate_club_graph()
    nodes = np.array(sorted(g.nodes()))
    tri = nx.triangles(g)
    deg = dict(g.degree())
    paper = data.values_of(nodes, EGO_CONVENTIONS["paper"])
    published = data.values_of(nodes, EGO_CONVENTIONS["published"])
    for i, v in enumerate(nodes):
        d = deg[v]
        assert paper[i, 0] == published[i, 0] == d
        if d >= 2:
            assert paper[i, 1] == pytest.approx(2 * tri[v] / (d * (d - 1)))
            assert published[i, 1] == pytest.approx(tri[v] / (d * (d - 1)))
        else:
            assert paper[i, 1] == 0.0 and published[i, 1] == 1.0
    assert min(deg.values()) == 1  # the degree-1 branch was exercised


def test_report_uses_only_rows_of_the_current_settings(tmp_path):
    _fake_csv(tmp_path, "graph-agg", lambda e, rng: float(rng.random() < 0.5))
    path = report_mod.write_report(tmp_path, ["graph-agg"], settings={"graph-agg": {"enron": "x"}})
    text = path.read_text()
    assert "### Enron" in text and "Les Miserables" not in text
    text = report_mod.write_report(tmp_path, ["graph-agg"], settings={"graph-agg": {"enron": "other"}})
    assert "### Enron" not in text.read_text()  # no row of those settings: the experiment is left out


@pytest.mark.parametrize(
    "change, error, match",
    [
        ({"config": {"runs": -1}}, ValueError, "^config.runs must be a positive int"),
        ({"config": {"epsilons": (0.0,)}}, ValueError, r"^config.epsilons\[i\] must be a positive finite"),
        ({"datasets": {"nosuch": []}}, ValueError, r"^datasets names \['nosuch'\]: unknown"),
        ({"datasets": ["toy"]}, TypeError, "^datasets must be a dict"),
        ({"methods": ["Z"]}, ValueError, r"^methods \['Z'\] are not in this experiment"),
        ({"methods": []}, ValueError, "^methods must be a non-empty list"),
        ({"jobs": 0}, ValueError, "^jobs must be a positive int"),
        ({"seed": 1.5}, TypeError, "^seed must be a non-negative int"),
        ({"out_is_file": True}, ValueError, "^out_dir must be a folder"),
    ],
)
def test_run_experiment_refuses_before_running(tmp_path, change, error, match):
    """Each of these ran (rows for a method not in the experiment, epsilon 0) or failed deep inside (a
    KeyError for an unknown dataset, joblib's message for jobs=0)."""
    from dpmo.experiments import run_experiment

    config = replace(toy_experiment(), **change.get("config", {}))
    out = tmp_path / "out"
    if change.get("out_is_file"):
        out.write_text("")
    kwargs = {"jobs": 1, **{k: v for k, v in change.items() if k in ("methods", "jobs", "seed")}}
    datasets = change.get("datasets", {"toy": []})
    with pytest.raises(error, match=match):
        run_experiment(config, datasets, out, progress="off", **kwargs)
    assert not (tmp_path / "out" / "toy.csv").exists()


def test_reports_with_an_all_nan_metric_and_bad_arguments(tmp_path):
    """A dataset whose metric is NaN in every run stopped the report with matplotlib's "Data cannot be
    log-scaled"; write_report took a string as a list of letters and an unknown name as a KeyError."""
    from dpmo.experiments import EXPERIMENTS, mean_ci
    from dpmo.experiments.figures import plot_experiment
    from dpmo.experiments.report import write_report

    cell = {("enron", "DP-MOTkIN-Agg-local", 1.0): {"recall": mean_ci([float("nan")])}}
    assert Path(plot_experiment(EXPERIMENTS["graph-agg"], cell, {}, tmp_path / "a.png")).exists()
    with pytest.raises(TypeError, match="not one string"):
        write_report(tmp_path, "graph-agg")
    with pytest.raises(ValueError, match=r"experiments \['nope'\]: unknown"):
        write_report(tmp_path, ["nope"])
    with pytest.raises(ValueError, match="out_dir must be a folder"):
        write_report(tmp_path / "absent")


def test_reports_refuse_other_layouts_naming_the_file(tmp_path):
    """A CSV with another header stopped write_report with KeyError 'dataset'; a meta.json of another
    shape with an AttributeError."""
    from dpmo.experiments.report import write_report

    (tmp_path / "graph-agg.csv").write_text("a,b,c\n1,2,3\n")
    with pytest.raises(ValueError, match="graph-agg.csv lacks the columns"):
        write_report(tmp_path, ["graph-agg"], meta={})
    (tmp_path / "graph-agg.csv").unlink()
    for meta in ([1, 2], {"graph-agg": {"environment": "x"}}):
        with pytest.raises(ValueError, match="must map each experiment to an object"):
            write_report(tmp_path, meta=meta)
