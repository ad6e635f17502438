"""Reproduce the paper's experiments: grid, seeding, parallel runs, tables, figures and report.

Used by ``dpmo reproduce`` (:mod:`dpmo.cli`); see ``docs/experiments.md``.

* :mod:`.config`: the paper's settings per experiment (:data:`EXPERIMENTS`) and the datasets
  (:data:`DATASETS`).
* :mod:`.methods`: adapters calling :mod:`dpmo.trees` and :mod:`dpmo.graphs` for one run.
* :mod:`.orchestrate`: what ``dpmo reproduce`` does (:func:`~.orchestrate.reproduce`).
* :mod:`.runner`: run a grid, resumable (:func:`run_experiment`); :mod:`.seeding` the per-run seeds
  (:func:`cell_seed`); :mod:`.tasks` planning and running tasks; :mod:`.backends` joblib / Dask execution;
  :mod:`.results_csv` the results CSV.
* :mod:`.report`: the writer of ``report.md`` and its prose (:func:`write_report`); :mod:`.stats` the
  means and 95% intervals; :mod:`.tables` its Markdown tables; :mod:`.figures` its PNG figures;
  :mod:`.findings` where and why ours differ (every number computed from the run); :mod:`.paper` the
  paper's numbers, cited by table and figure number.
* :mod:`.environment`: dpmo version, git commit and package versions for ``meta.json`` and the report.
* :mod:`.progress` and :mod:`.cores`: progress lines without a terminal, and ``jobs="auto"``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: Public name -> the module of :mod:`dpmo.experiments` that defines it (imported on first use, so that
#: ``dpmo --help`` reads :mod:`.config` without loading the runner and its applications).
_EXPORTS = {
    "DATASETS": "config",
    "EXPERIMENTS": "config",
    "EXPERIMENT_NAMES": "config",
    "DatasetSpec": "config",
    "ExperimentConfig": "config",
    "Task": "tasks",
    "cell_seed": "seeding",
    "mean_ci": "stats",
    "paper_results": "paper",
    "plan_tasks": "tasks",
    "plot_experiment": "figures",
    "read_rows": "results_csv",
    "reference_seed": "seeding",
    "run_experiment": "runner",
    "run_task": "tasks",
    "summarize": "stats",
    "toy_experiment": "config",
    "write_report": "report",
}

__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # for static analysers only
    from .config import DATASETS as DATASETS
    from .config import EXPERIMENT_NAMES as EXPERIMENT_NAMES
    from .config import EXPERIMENTS as EXPERIMENTS
    from .config import DatasetSpec as DatasetSpec
    from .config import ExperimentConfig as ExperimentConfig
    from .config import toy_experiment as toy_experiment
    from .figures import plot_experiment as plot_experiment
    from .paper import paper_results as paper_results
    from .report import write_report as write_report
    from .results_csv import read_rows as read_rows
    from .runner import run_experiment as run_experiment
    from .seeding import cell_seed as cell_seed
    from .seeding import reference_seed as reference_seed
    from .stats import mean_ci as mean_ci
    from .stats import summarize as summarize
    from .tasks import Task as Task
    from .tasks import plan_tasks as plan_tasks
    from .tasks import run_task as run_task


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
