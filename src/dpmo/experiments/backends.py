"""Execution backends of an experiment grid: this process, a joblib ``loky`` pool, or a Dask cluster.

Tasks go through joblib: the ``loky`` process pool on this machine, or a Dask cluster through
``dask.distributed``'s joblib backend (``backend="dask"``, ``scheduler=ADDRESS``; without an address a local
cluster of ``jobs`` worker processes is started). ``jobs="auto"`` starts the pool only when the work left is
estimated to take more than a few seconds in this process and other cores were idle meanwhile
(:mod:`dpmo.experiments.cores`). Where a task runs never changes its rows (seeds are per run).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from .._extras import require
from .cores import (
    AUTO_SERIAL_SECONDS,
    AUTO_WINDOW_SECONDS,
    auto_workers,
    cpu_times,
    idle_cores,
    usable_cores,
)
from .tasks import Task, batch_tasks, run_batch, run_task

__all__ = ["task_results"]


def _pool_results(tasks: list[Task], jobs: int, shared_reference: bool = False) -> Iterator[list[dict]]:
    joblib = require("joblib", "dpmo reproduce (parallel runs)")
    par = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    batches = batch_tasks(tasks, shared_reference)
    for results in par(joblib.delayed(run_batch)(b) for b in batches):
        yield from results


def _auto_results(
    tasks: list[Task], cores: int, used: dict[str, int], shared_reference: bool = False
) -> Iterator[list[dict]]:
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
            yield from _pool_results(rest, workers, shared_reference)
            return
        window, sample = now, current  # busy machine: measure again over the next window


def task_results(
    tasks: list[Task],
    jobs: int | str,
    backend: str,
    scheduler: str | None,
    used: dict[str, int],
    shared_reference: bool = False,
) -> Iterator[list[dict]]:
    """Yield the rows of each task as it finishes (any order); ``used["jobs"]``: workers actually used.

    ``shared_reference``: a worker gets every task of the same repetitions at once
    (:func:`dpmo.experiments.tasks.batch_tasks`).
    """
    if not tasks:
        return
    if backend == "loky" and jobs == "auto":
        used["jobs"] = 1
        yield from _auto_results(tasks, usable_cores(), used, shared_reference)
        return
    if jobs == "auto":
        jobs = usable_cores()
    used["jobs"] = int(jobs)
    if backend == "loky" and jobs == 1:
        for t in tasks:
            yield run_task(t)
        return
    joblib = require("joblib", "dpmo reproduce (parallel runs)")
    if backend == "loky":
        yield from _pool_results(tasks, int(jobs), shared_reference)
        return
    if backend != "dask":
        raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
    distributed = require("dask.distributed", "the dask backend")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster  # noqa: N806
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
            batches = batch_tasks(tasks, shared_reference)
            for results in par(joblib.delayed(run_batch)(b) for b in batches):
                yield from results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
