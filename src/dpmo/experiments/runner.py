"""Run an experiment grid in parallel, seeded per cell, resumable, into a tidy CSV.

Seeding
-------
Every run draws its randomness from ``numpy.random.SeedSequence(entropy=seed, spawn_key=key)`` with
``key = (crc32(experiment), crc32(dataset), crc32(method), crc32(epsilon), run)``: a pure function of the
master seed and the run's coordinates. The whole grid is reproducible from one seed, any cell (or single run)
can be re-run alone with identical results, results do not depend on ``--jobs``, on the backend or on the
order in which tasks finish, and adding an epsilon or a method to the grid leaves the other runs unchanged.
A second stream, keyed by ``(experiment, dataset, "reference", run)``, drives what a run compares against
(the non-private reference of the tree Pareto experiment), so it is shared by all methods and budgets of
repetition ``run``.

Resume
------
Rows are appended to ``OUT/<experiment>.csv`` as each task finishes. A run whose ``(dataset, method,
epsilon, run)`` is already in the CSV with the same ``settings`` fingerprint (algorithm settings and master
seed, :func:`dpmo.experiments.config.settings_hash`) is not run again.

Parallelism
-----------
Tasks (a few runs of one cell) go through joblib: the ``loky`` process pool on this machine, or a Dask
cluster through ``dask.distributed``'s joblib backend (``backend="dask"``, ``scheduler=ADDRESS``; without an
address a local cluster of ``jobs`` worker processes is started). A task is a small picklable
:class:`Task`; the worker loads and caches the dataset itself. ``jobs="auto"`` (the default) starts the
pool only when the work left is estimated to take more than a few seconds in this process and other cores
were idle meanwhile (:mod:`dpmo.experiments.cores`): a pool costs its start and one copy of the data per
worker, which small grids and busy machines never win back.
"""

from __future__ import annotations

import csv
import importlib
import math
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .config import NONPRIVATE_EPSILON, ExperimentConfig, settings_hash
from .cores import (
    AUTO_SERIAL_SECONDS,
    AUTO_WINDOW_SECONDS,
    auto_workers,
    cpu_times,
    idle_cores,
    usable_cores,
)
from .progress import make_progress

__all__ = [
    "BASE_COLUMNS",
    "Task",
    "cell_seed",
    "reference_seed",
    "plan_tasks",
    "run_task",
    "read_rows",
    "done_keys",
    "run_experiment",
    "csv_path",
]

#: Leading columns of every results CSV; the experiment's metric columns follow, then ``readings`` (the
#: readings of :mod:`dpmo.experiments.readings` the run used, ``default`` for none), ``private`` (``yes``
#: when the run is epsilon-DP at its stated epsilon, ``no`` under a reading that breaks it, ``-`` for a
#: non-private method), ``seconds``
#: (wall time of the run), ``cpu_seconds`` (CPU time of the worker process during the run), ``seed`` and
#: ``settings``.
BASE_COLUMNS = ("experiment", "dataset", "method", "epsilon", "run")
TRAILING_COLUMNS = ("readings", "private", "seconds", "cpu_seconds", "seed", "settings")


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _eps_text(epsilon: float) -> str:
    return "inf" if math.isinf(epsilon) else f"{float(epsilon):.12g}"


def cell_seed(
    seed: int, experiment: str, dataset: str, method: str, epsilon: float, run: int
) -> np.random.SeedSequence:
    """The seed sequence of one run of one cell (a pure function of its arguments).

    O(1). ``epsilon = inf`` stands for a non-private method.

    Examples
    --------
    >>> from dpmo.experiments import cell_seed
    >>> a = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 3).generate_state(2)
    >>> b = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 3).generate_state(2)
    >>> c = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 4).generate_state(2)
    >>> bool((a == b).all()), bool((a == c).all())  # a pure function of the run's coordinates
    (True, False)
    """
    key = (_crc(experiment), _crc(dataset), _crc(method), _crc(_eps_text(epsilon)), int(run))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=key)


def reference_seed(seed: int, experiment: str, dataset: str, run: int) -> np.random.SeedSequence:
    """The seed sequence of the reference computation of repetition ``run`` (shared by all cells).

    Examples
    --------
    >>> from dpmo.experiments import reference_seed
    >>> r = reference_seed(0, "tree-pareto", "nltcs", 2).generate_state(2)
    >>> bool((r == reference_seed(0, "tree-pareto", "nltcs", 2).generate_state(2)).all())
    True
    """
    key = (_crc(experiment), _crc(dataset), _crc("reference"), int(run))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=key)


@dataclass(frozen=True)
class Task:
    """A few runs of one cell: everything a worker needs, as plain picklable data.

    Examples
    --------
    >>> from dpmo.experiments import ExperimentConfig
    >>> toy = ExperimentConfig(name="toy", title="toy grid", kind="tree", methods=("A", "NODP"),
    ...                        nonprivate=("NODP",), datasets=("toy",), epsilons=(0.1, 1.0),
    ...                        metrics=("score", "ref"), run_function="dpmo.experiments.methods:toy_run",
    ...                        runs=4, chunk=2, params={"n": 20})
    >>> from dpmo.experiments import plan_tasks
    >>> task = plan_tasks(toy, {"toy": []}, seed=0)[0]
    >>> task.experiment, task.method, task.runs
    ('toy', 'A', (0, 1))
    """

    experiment: str
    dataset: str
    files: tuple[str, ...]
    method: str
    epsilon: float
    runs: tuple[int, ...]
    seed: int
    settings: str
    run_function: str
    metrics: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    nonprivate: bool = False


def _resolve(path: str) -> Callable[..., dict[str, float]]:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def run_task(task: Task) -> list[dict[str, Any]]:
    """Compute the runs of ``task``; one CSV row (a dict) per run.

    The run function is called as ``fn(data, method, epsilon, rng, params, reference_seed=...)`` where
    ``data`` comes from :func:`dpmo.experiments.methods.load_data` (cached per process), ``epsilon`` is
    None for a non-private method and ``rng`` a Generator on :func:`cell_seed`. It returns a dict with one
    float per metric.

    Examples
    --------
    >>> from dpmo.experiments import ExperimentConfig
    >>> toy = ExperimentConfig(name="toy", title="toy grid", kind="tree", methods=("A", "NODP"),
    ...                        nonprivate=("NODP",), datasets=("toy",), epsilons=(0.1, 1.0),
    ...                        metrics=("score", "ref"), run_function="dpmo.experiments.methods:toy_run",
    ...                        runs=4, chunk=2, params={"n": 20})
    >>> from dpmo.experiments import plan_tasks, run_task
    >>> task = plan_tasks(toy, {"toy": []}, seed=0)[0]
    >>> rows = run_task(task)
    >>> len(rows) == len(task.runs), sorted(rows[0])[:3]
    (True, ['cpu_seconds', 'dataset', 'epsilon'])
    >>> run_task(task)[0]["score"] == rows[0]["score"]  # seeded per run: the same result again
    True
    """
    from .methods import load_data
    from .readings import readings_label, readings_private

    fn = _resolve(task.run_function)
    prep = tuple(sorted(task.params.get("data", {}).items()))
    data = load_data(task.dataset, task.files, prep)
    label = readings_label(task.params)
    private = "-" if task.nonprivate else ("yes" if readings_private(task.params) else "no")
    rows = []
    for run in task.runs:
        rng = np.random.default_rng(
            cell_seed(task.seed, task.experiment, task.dataset, task.method, task.epsilon, run)
        )
        ref = reference_seed(task.seed, task.experiment, task.dataset, run)
        eps = None if task.nonprivate else task.epsilon
        start, cpu_start = time.perf_counter(), time.process_time()
        values = fn(data, task.method, eps, rng, dict(task.params), reference_seed=ref)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        row: dict[str, Any] = {
            "experiment": task.experiment,
            "dataset": task.dataset,
            "method": task.method,
            "epsilon": _eps_text(task.epsilon),
            "run": run,
        }
        for m in task.metrics:
            row[m] = repr(float(values[m]))
        row.update(readings=label, private=private)
        row.update(seconds=f"{seconds:.6f}", cpu_seconds=f"{cpu:.6f}", seed=task.seed, settings=task.settings)
        rows.append(row)
    return rows


def csv_path(out_dir: str | os.PathLike, experiment: str) -> Path:
    """Where the rows of ``experiment`` go: ``OUT/<experiment>.csv``."""
    return Path(out_dir) / f"{experiment}.csv"


def columns(config: ExperimentConfig) -> list[str]:
    return [*BASE_COLUMNS, *config.metrics, *TRAILING_COLUMNS]


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """All rows of a results CSV (empty if the file does not exist).

    Examples
    --------
    >>> from dpmo.experiments import ExperimentConfig
    >>> toy = ExperimentConfig(name="toy", title="toy grid", kind="tree", methods=("A", "NODP"),
    ...                        nonprivate=("NODP",), datasets=("toy",), epsilons=(0.1, 1.0),
    ...                        metrics=("score", "ref"), run_function="dpmo.experiments.methods:toy_run",
    ...                        runs=4, chunk=2, params={"n": 20})
    >>> import tempfile
    >>> from dpmo.experiments import read_rows, run_experiment
    >>> folder = tempfile.mkdtemp()
    >>> result = run_experiment(toy, {"toy": []}, folder, seed=0, jobs=1, progress="off")
    >>> rows = read_rows(result["csv"])
    >>> len(rows) == result["planned"] == 12
    True
    >>> import shutil; shutil.rmtree(folder)
    """
    path = Path(path)
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _key(dataset: str, method: str, epsilon: float | str, run: int | str, settings: str) -> tuple:
    return (dataset, method, _eps_text(float(epsilon)), int(run), settings)


def done_keys(rows: Iterable[dict[str, str]]) -> set[tuple]:
    """Keys ``(dataset, method, epsilon, run, settings)`` of the runs present in ``rows``."""
    out = set()
    for r in rows:
        try:
            out.add(_key(r["dataset"], r["method"], r["epsilon"], r["run"], r["settings"]))
        except (KeyError, ValueError):
            continue  # a truncated last line (interrupted write) is simply redone
    return out


def plan_tasks(
    config: ExperimentConfig,
    datasets: dict[str, Sequence[str]],
    *,
    seed: int,
    methods: Sequence[str] | None = None,
    done: set[tuple] | None = None,
    chunk: int | None = None,
) -> list[Task]:
    """The tasks still to run for ``config`` on ``datasets`` (name -> file paths).

    Non-private methods get one cell (``epsilon = inf``); every other method one cell per epsilon. Runs in
    ``done`` are left out. O(datasets x methods x epsilons x runs).

    Examples
    --------
    >>> from dpmo.experiments import ExperimentConfig
    >>> toy = ExperimentConfig(name="toy", title="toy grid", kind="tree", methods=("A", "NODP"),
    ...                        nonprivate=("NODP",), datasets=("toy",), epsilons=(0.1, 1.0),
    ...                        metrics=("score", "ref"), run_function="dpmo.experiments.methods:toy_run",
    ...                        runs=4, chunk=2, params={"n": 20})
    >>> from dpmo.experiments import plan_tasks
    >>> tasks = plan_tasks(toy, {"toy": []}, seed=0)
    >>> sum(len(t.runs) for t in tasks) == (2 + 1) * 4  # method A at 2 budgets, NODP once; 4 runs each
    True
    >>> max(len(t.runs) for t in tasks) <= toy.chunk
    True
    """
    done = done or set()
    chunk = max(1, int(chunk or config.chunk))
    methods = tuple(methods or config.methods)
    tasks = []
    for dataset, files in datasets.items():
        params = config.params_for(dataset)
        settings = settings_hash(config.name, dataset, params, seed)
        for method in methods:
            nonprivate = method in config.nonprivate
            eps_list = (NONPRIVATE_EPSILON,) if nonprivate else config.epsilons
            for eps in eps_list:
                todo = [r for r in range(config.runs) if _key(dataset, method, eps, r, settings) not in done]
                for i in range(0, len(todo), chunk):
                    tasks.append(
                        Task(
                            experiment=config.name,
                            dataset=dataset,
                            files=tuple(str(f) for f in files),
                            method=method,
                            epsilon=float(eps),
                            runs=tuple(todo[i : i + chunk]),
                            seed=int(seed),
                            settings=settings,
                            run_function=config.run_function,
                            metrics=config.metrics,
                            params=params,
                            nonprivate=nonprivate,
                        )
                    )
    return tasks


def _pool_results(tasks: list[Task], jobs: int) -> Iterator[list[dict]]:
    import joblib

    par = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    yield from par(joblib.delayed(run_task)(t) for t in tasks)


def _auto_results(tasks: list[Task], cores: int, used: dict[str, int]) -> Iterator[list[dict]]:
    """``jobs="auto"``: run in this process; hand the rest to a pool once the work left looks long enough
    (over ``AUTO_SERIAL_SECONDS``) and other cores were seen idle (over a window of at least
    ``AUTO_WINDOW_SECONDS``). Outputs do not depend on where a task runs (per-run seeds)."""
    start = window = time.perf_counter()
    sample = cpu_times()
    runs_left = sum(len(t.runs) for t in tasks)
    runs_done = 0
    for i, t in enumerate(tasks):
        rows = run_task(t)
        runs_done += len(t.runs)
        runs_left -= len(t.runs)
        yield rows
        rest = tasks[i + 1 :]
        now = time.perf_counter()
        if not rest or cores < 2 or now - window < AUTO_WINDOW_SECONDS:
            continue
        if (now - start) / runs_done * runs_left <= AUTO_SERIAL_SECONDS:
            continue
        current = cpu_times()
        workers = auto_workers(idle_cores(sample, current), cores)
        if workers > 1:
            used["jobs"] = workers
            yield from _pool_results(rest, workers)
            return
        window, sample = now, current  # busy machine: measure again over the next window


def _results(
    tasks: list[Task], jobs: int | str, backend: str, scheduler: str | None, used: dict[str, int]
) -> Iterator[list[dict]]:
    """Yield the rows of each task as it finishes (any order); ``used["jobs"]``: workers actually used."""
    if not tasks:
        return
    if backend == "loky" and jobs == "auto":
        used["jobs"] = 1
        yield from _auto_results(tasks, usable_cores(), used)
        return
    if jobs == "auto":
        jobs = usable_cores()
    used["jobs"] = int(jobs)
    if backend == "loky" and jobs == 1:
        for t in tasks:
            yield run_task(t)
        return
    import joblib

    if backend == "loky":
        yield from _pool_results(tasks, int(jobs))
        return
    if backend != "dask":
        raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError("the dask backend needs dask.distributed: pip install 'dpmo[dask]'") from exc
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    else:
        import logging

        cluster = LocalCluster(
            n_workers=max(1, jobs),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    try:
        with joblib.parallel_config(backend="dask"):
            par = joblib.Parallel(return_as="generator_unordered", batch_size=1)
            yield from par(joblib.delayed(run_task)(t) for t in tasks)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_experiment(
    config: ExperimentConfig,
    datasets: dict[str, Sequence[str]],
    out_dir: str | os.PathLike,
    *,
    seed: int = 0,
    jobs: int | str = "auto",
    backend: str = "loky",
    scheduler: str | None = None,
    methods: Sequence[str] | None = None,
    progress: str | bool | None = "auto",
    chunk: int | None = None,
) -> dict[str, Any]:
    """Run what is missing of ``config``'s grid on ``datasets`` and append it to ``OUT/<name>.csv``.

    Parameters
    ----------
    config : ExperimentConfig
        Grid and settings (possibly the ``--quick`` version, or with other epsilons / runs).
    datasets : dict
        Dataset name -> paths of its files (``[]`` for embedded data), see
        :func:`dpmo.experiments.config.find_dataset`.
    out_dir : path
        Folder of the CSV (created).
    seed : int
        Master seed.
    jobs : int or "auto"
        Worker processes for ``backend="loky"`` (1 runs in this process); for ``"dask"`` without
        ``scheduler``, the number of workers of the local cluster. ``"auto"`` (default): run in this process
        while the estimated time of the runs left stays under
        :data:`~dpmo.experiments.cores.AUTO_SERIAL_SECONDS`, then hand the rest to a pool of this process
        plus the cores seen idle meanwhile (:func:`~dpmo.experiments.cores.auto_workers`; the fastest choice
        measured on 2 cores, idle or shared, see ``docs/experiments.md``); with ``"dask"``, one worker per
        usable core.
    backend : {"loky", "dask"}
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``).
    methods : sequence of str, optional
        Subset of ``config.methods``.
    progress : {"auto", "bar", "lines", "off"} or bool, optional
        ``"auto"``: a bar when stderr is a terminal, plain lines on stderr otherwise (logs, pipes), see
        :class:`dpmo.experiments.progress.ProgressLines`; True = ``"bar"``, False = ``"off"``.
    chunk : int, optional
        Runs per task (default ``config.chunk``).

    Returns
    -------
    dict
        ``csv`` (path), ``planned`` (runs to do), ``skipped`` (runs already done), ``seconds`` (wall time),
        ``jobs`` (worker processes used at the end: 1 when everything ran in this process).

    Notes
    -----
    Time: the sum of the runs' times divided by the number of workers, plus the start of the pool.
    Memory: one copy of each dataset per worker.

    Examples
    --------
    >>> from dpmo.experiments import ExperimentConfig
    >>> toy = ExperimentConfig(name="toy", title="toy grid", kind="tree", methods=("A", "NODP"),
    ...                        nonprivate=("NODP",), datasets=("toy",), epsilons=(0.1, 1.0),
    ...                        metrics=("score", "ref"), run_function="dpmo.experiments.methods:toy_run",
    ...                        runs=4, chunk=2, params={"n": 20})
    >>> import tempfile
    >>> from dpmo.experiments import run_experiment
    >>> folder = tempfile.mkdtemp()
    >>> first = run_experiment(toy, {"toy": []}, folder, seed=0, jobs=1, progress="off")
    >>> first["planned"], first["skipped"]
    (12, 0)
    >>> again = run_experiment(toy, {"toy": []}, folder, seed=0, jobs=1, progress="off")  # resume
    >>> again["planned"], again["skipped"]
    (0, 12)
    >>> import shutil; shutil.rmtree(folder)
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = csv_path(out, config.name)
    cols = columns(config)
    existing = read_rows(path)
    if path.exists() and path.stat().st_size > 0:
        with path.open(newline="") as fh:
            header = next(csv.reader(fh), [])
        if header != cols:
            raise ValueError(f"{path} has columns {header}, expected {cols}; use another --out folder")
    done = done_keys(existing)
    tasks = plan_tasks(config, datasets, seed=seed, methods=methods, done=done, chunk=chunk)
    planned = sum(len(t.runs) for t in tasks)
    chosen = tuple(methods or config.methods)
    per_dataset = sum(1 if m in config.nonprivate else len(config.epsilons) for m in chosen) * config.runs
    total = per_dataset * len(datasets)
    start = time.perf_counter()
    bar = make_progress(planned, config.name, progress)
    used = {"jobs": 1}
    n_cells = len({(t.dataset, t.method, t.epsilon) for t in tasks})
    remaining = {}
    for t in tasks:
        key = (t.dataset, t.method, t.epsilon)
        remaining[key] = remaining.get(key, 0) + len(t.runs)
    cells_done = 0
    new_file = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=cols)
        if new_file:
            writer.writeheader()
            fh.flush()
        for rows in _results(tasks, jobs, backend, scheduler, used):
            writer.writerows(rows)
            fh.flush()
            if rows:
                key = (rows[0]["dataset"], rows[0]["method"], float(rows[0]["epsilon"]))
                remaining[key] -= len(rows)
                if remaining[key] == 0:
                    cells_done += 1
            if bar is not None:
                bar.update(len(rows))
                bar.set_postfix_str(f"cells {cells_done}/{n_cells}")
    if bar is not None:
        bar.close()
    return {
        "csv": path,
        "planned": planned,
        "skipped": total - planned,
        "seconds": time.perf_counter() - start,
        "jobs": used["jobs"],
    }
