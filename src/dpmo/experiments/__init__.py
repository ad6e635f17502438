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

from .config import DATASETS, EXPERIMENT_NAMES, EXPERIMENTS, DatasetSpec, ExperimentConfig, toy_experiment
from .figures import plot_experiment
from .paper import paper_results
from .report import write_report
from .results_csv import read_rows
from .runner import run_experiment
from .seeding import cell_seed, reference_seed
from .stats import mean_ci, summarize
from .tasks import Task, plan_tasks, run_task

__all__ = [
    "DATASETS",
    "EXPERIMENTS",
    "EXPERIMENT_NAMES",
    "DatasetSpec",
    "ExperimentConfig",
    "Task",
    "cell_seed",
    "mean_ci",
    "paper_results",
    "plan_tasks",
    "plot_experiment",
    "read_rows",
    "reference_seed",
    "run_experiment",
    "run_task",
    "summarize",
    "toy_experiment",
    "write_report",
]
