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
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._validation import check_epsilon, check_int
from .backends import task_results
from .config import DATASETS, ExperimentConfig
from .progress import make_progress

# Re-exported (redundant aliases): importable from here since before the split.
from .results_csv import BASE_COLUMNS as BASE_COLUMNS
from .results_csv import TRAILING_COLUMNS as TRAILING_COLUMNS
from .results_csv import columns as columns
from .results_csv import csv_path as csv_path
from .results_csv import done_keys as done_keys
from .results_csv import read_rows as read_rows
from .seeding import cell_seed as cell_seed
from .seeding import reference_seed as reference_seed
from .tasks import Task as Task
from .tasks import plan_tasks as plan_tasks
from .tasks import run_task as run_task

__all__ = ["run_experiment"]


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
    >>> from dpmo.experiments import toy_experiment
    >>> toy = toy_experiment()  # a fast stand-in grid: methods A and NODP, epsilons 0.1 and 1, 4 runs
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
    _check_arguments(config, datasets, out_dir, seed, jobs, methods, chunk)
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
        for rows in task_results(tasks, jobs, backend, scheduler, used, config.shared_reference):
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


def _check_arguments(config, datasets, out_dir, seed, jobs, methods, chunk) -> None:
    """Refuse, before anything runs, what :func:`run_experiment` cannot run: a TypeError or ValueError
    naming the argument and what is allowed. O(methods + epsilons + datasets)."""
    if not isinstance(config, ExperimentConfig):
        raise TypeError(f"config must be an ExperimentConfig, got {type(config).__name__}")
    check_int(config.runs, "config.runs", minimum=1)
    for e in config.epsilons:
        check_epsilon(e, "config.epsilons[i]")
    if not isinstance(datasets, dict):
        raise TypeError(
            f"datasets must be a dict of dataset name -> file paths, got {type(datasets).__name__}"
        )
    known = set(DATASETS) | {"toy"}
    unknown = sorted(str(d) for d in datasets if d not in known)
    if unknown:
        raise ValueError(f"datasets names {unknown}: unknown; known datasets: {sorted(known)}")
    if methods is not None:
        if isinstance(methods, str) or not len(methods):
            raise ValueError(f"methods must be a non-empty list of names among {list(config.methods)}")
        outside = [m for m in methods if m not in config.methods]
        if outside:
            raise ValueError(
                f"methods {outside} are not in this experiment; its methods: {list(config.methods)}"
            )
    if Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise ValueError(f"out_dir must be a folder; {os.fspath(out_dir)!r} is a file")
    check_int(seed, "seed", minimum=0)
    if jobs != "auto":
        check_int(jobs, "jobs", minimum=1)
    if chunk is not None:
        check_int(chunk, "chunk", minimum=1)
