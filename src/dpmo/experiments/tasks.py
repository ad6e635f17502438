"""Tasks of an experiment grid: what is left to run (:func:`plan_tasks`) and running one (:func:`run_task`).

A task is a few runs of one cell (dataset, method, epsilon), as a small picklable :class:`Task`; the worker
loads and caches the dataset itself. Seeds come from :mod:`dpmo.experiments.seeding`. A batch
(:func:`batch_tasks`) is what one worker call computes: one task, or, where the runs of a repetition share a
reference (``ExperimentConfig.shared_reference``), every task of the same dataset and repetitions.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config import NONPRIVATE_EPSILON, ExperimentConfig, settings_hash
from .results_csv import run_key
from .seeding import cell_seed, eps_text, reference_seed

__all__ = ["Task", "plan_tasks", "run_task", "batch_tasks", "run_batch"]


@dataclass(frozen=True)
class Task:
    """A few runs of one cell: everything a worker needs, as plain picklable data.

    Examples
    --------
    >>> from dpmo.experiments import toy_experiment
    >>> toy = toy_experiment()  # a fast stand-in grid: methods A and NODP, epsilons 0.1 and 1, 4 runs
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
    >>> from dpmo.experiments import toy_experiment
    >>> toy = toy_experiment()  # a fast stand-in grid: methods A and NODP, epsilons 0.1 and 1, 4 runs
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
            "epsilon": eps_text(task.epsilon),
            "run": run,
        }
        for m in task.metrics:
            row[m] = repr(float(values[m]))
        row.update(readings=label, private=private)
        row.update(seconds=f"{seconds:.6f}", cpu_seconds=f"{cpu:.6f}", seed=task.seed, settings=task.settings)
        rows.append(row)
    return rows


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
    >>> from dpmo.experiments import toy_experiment
    >>> toy = toy_experiment()  # a fast stand-in grid: methods A and NODP, epsilons 0.1 and 1, 4 runs
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
                todo = [
                    r for r in range(config.runs) if run_key(dataset, method, eps, r, settings) not in done
                ]
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


def batch_tasks(tasks: Sequence[Task], shared_reference: bool = False) -> list[tuple[Task, ...]]:
    """Group ``tasks`` into what one worker computes in one call, in the order of first appearance.

    Without ``shared_reference`` every task is its own batch. With it, the tasks of the same dataset and
    the same runs (every method and budget of those repetitions) form one batch: the per-repetition
    reference that their run function caches per process is then computed by one worker, once, instead of
    by every worker that meets those repetitions. Grouping never changes a row (seeds are per run).
    O(len(tasks)).

    Examples
    --------
    >>> from dpmo.experiments import toy_experiment
    >>> from dpmo.experiments.tasks import batch_tasks, plan_tasks
    >>> toy = toy_experiment(runs=4, chunk=2)  # A at 2 budgets + NODP: 3 cells x 2 chunks = 6 tasks
    >>> tasks = plan_tasks(toy, {"toy": []}, seed=0)
    >>> len(batch_tasks(tasks)), len(batch_tasks(tasks, shared_reference=True))
    (6, 2)
    >>> [t.runs for t in batch_tasks(tasks, shared_reference=True)[0]]
    [(0, 1), (0, 1), (0, 1)]
    """
    if not shared_reference:
        return [(t,) for t in tasks]
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault((t.dataset, t.runs), []).append(t)
    return [tuple(g) for g in groups.values()]


def run_batch(batch: Sequence[Task]) -> list[list[dict[str, Any]]]:
    """:func:`run_task` on each task of ``batch``, in order (one worker call).

    Examples
    --------
    >>> from dpmo.experiments import toy_experiment
    >>> from dpmo.experiments.tasks import batch_tasks, plan_tasks, run_batch
    >>> toy = toy_experiment()
    >>> batch = batch_tasks(plan_tasks(toy, {"toy": []}, seed=0), shared_reference=True)[0]
    >>> [len(rows) for rows in run_batch(batch)]
    [2, 2, 2]
    """
    return [run_task(t) for t in batch]
