"""The results CSV of an experiment: its path, columns, rows and the resume keys of the runs done.

Rows are appended to ``OUT/<experiment>.csv`` as each task finishes; a run whose ``(dataset, method,
epsilon, run)`` is already there with the same ``settings`` fingerprint is not run again
(:func:`done_keys`).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from pathlib import Path

from .config import ExperimentConfig
from .seeding import eps_text

__all__ = [
    "BASE_COLUMNS",
    "TRAILING_COLUMNS",
    "TIMING_COLUMNS",
    "csv_path",
    "columns",
    "metric_columns",
    "read_rows",
    "current_rows",
    "run_key",
    "done_keys",
]

#: Leading columns of every results CSV; the experiment's metric columns follow, then ``readings`` (the
#: readings of :mod:`dpmo.experiments.readings` the run used, ``default`` for none), ``private`` (``yes``
#: when the run is epsilon-DP at its stated epsilon, ``no`` under a reading that breaks it, ``-`` for a
#: non-private method), ``seconds``
#: (wall time of the run), ``cpu_seconds`` (CPU time of the worker process during the run), ``seed`` and
#: ``settings``.
BASE_COLUMNS = ("experiment", "dataset", "method", "epsilon", "run")
TRAILING_COLUMNS = ("readings", "private", "seconds", "cpu_seconds", "seed", "settings")
#: The columns that measure time: they differ between two runs of the same code and seed.
TIMING_COLUMNS = ("seconds", "cpu_seconds")


def csv_path(out_dir: str | os.PathLike, experiment: str) -> Path:
    """Where the rows of ``experiment`` go: ``OUT/<experiment>.csv``.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import csv_path
    >>> csv_path("out", "graph-agg").name
    'graph-agg.csv'
    """
    return Path(out_dir) / f"{experiment}.csv"


def columns(config: ExperimentConfig) -> list[str]:
    """The header of ``config``'s results CSV: base, metric and trailing columns.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import columns
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> columns(EXPERIMENTS["graph-agg"])[:5]
    ['experiment', 'dataset', 'method', 'epsilon', 'run']
    """
    return [*BASE_COLUMNS, *config.metrics, *TRAILING_COLUMNS]


def metric_columns(header: Iterable[str]) -> list[str]:
    """The metric columns of a results CSV's header: those between ``run`` and ``readings``.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import columns, metric_columns
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> metric_columns(columns(EXPERIMENTS["tree-agg"]))
    ['fitness', 'tpr', 'tnr']
    """
    header = list(header)
    start = header.index(BASE_COLUMNS[-1]) + 1 if BASE_COLUMNS[-1] in header else 0
    stop = header.index(TRAILING_COLUMNS[0]) if TRAILING_COLUMNS[0] in header else len(header)
    return header[start:stop]


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """All rows of a results CSV (empty if the file does not exist).

    Examples
    --------
    >>> from dpmo.experiments import toy_experiment
    >>> toy = toy_experiment()  # a fast stand-in grid: methods A and NODP, epsilons 0.1 and 1, 4 runs
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


def current_rows(rows: list[dict[str, str]], settings: dict[str, str] | None) -> list[dict[str, str]]:
    """The rows of the given settings (``{dataset: fingerprint}``, as in ``meta.json``); all rows when None.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import current_rows
    >>> rows = [{"dataset": "d", "settings": "a"}, {"dataset": "d", "settings": "b"}]
    >>> current_rows(rows, {"d": "b"})
    [{'dataset': 'd', 'settings': 'b'}]
    """
    if settings is None:
        return rows
    return [r for r in rows if r["dataset"] in settings and settings[r["dataset"]] == r.get("settings")]


def run_key(dataset: str, method: str, epsilon: float | str, run: int | str, settings: str) -> tuple:
    """The resume key of one run: ``(dataset, method, epsilon text, run, settings)``.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import run_key
    >>> run_key("enron", "A", "1.0", "3", "abc") == run_key("enron", "A", 1.0, 3, "abc")
    True
    """
    return (dataset, method, eps_text(float(epsilon)), int(run), settings)


def done_keys(rows: Iterable[dict[str, str]]) -> set[tuple]:
    """Keys ``(dataset, method, epsilon, run, settings)`` of the runs present in ``rows``.

    Examples
    --------
    >>> from dpmo.experiments.results_csv import done_keys
    >>> rows = [{"dataset": "d", "method": "A", "epsilon": "0.5", "run": "0", "settings": "s"},
    ...         {"dataset": "d", "method": "A"}]  # a truncated line is ignored
    >>> done_keys(rows)
    {('d', 'A', '0.5', 0, 's')}
    """
    out = set()
    for r in rows:
        try:
            out.add(run_key(r["dataset"], r["method"], r["epsilon"], r["run"], r["settings"]))
        except (KeyError, ValueError):
            continue  # a truncated last line (interrupted write) is simply redone
    return out
