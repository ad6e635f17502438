"""The report writer: ``report.md``, its tables and figures from the results CSVs, beside the paper's numbers.

:func:`write_report` writes, for each experiment with a CSV in ``OUT``:

* ``OUT/tables/<experiment>.md``: every metric laid out like the paper's tables
  (:mod:`dpmo.experiments.tables`), each cell the mean over repetitions with its 95% interval
  (:mod:`dpmo.experiments.stats`).
* ``OUT/figures/<experiment>.png``: metric vs epsilon beside the paper's numbers
  (:mod:`dpmo.experiments.figures`).
* ``OUT/report.md``: a header with the software that computed the runs (dpmo version and git commit,
  Python and package versions, :mod:`dpmo.experiments.environment`), then per experiment the settings, the
  figure, per-dataset tables ours | paper | difference, and where and why ours differ
  (:mod:`dpmo.experiments.findings`, ``docs/errata.md``). This module holds the prose: every number in it
  is computed from the run's results, never typed in; the paper is cited by table and figure number
  (:data:`PAPER_NUMBERS`).

The paper's numbers are in ``dpmo/experiments/data/paper_results.csv`` (transcribed from its tables and
the coordinates of its figures; column ``source`` names the table or figure; :mod:`dpmo.experiments.paper`).
The statistics, table and figure names are re-exported here (``from dpmo.experiments.report import
mean_ci`` keeps working).
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from .config import DATASETS, EXPERIMENTS, ExperimentConfig
from .environment import environment, environment_text
from .figures import dataset_order, plot_experiment
from .findings import budget_factor, why_different
from .paper import PAPER_NUMBERS, paper_reference, paper_results
from .readings import readings_note
from .results_csv import csv_path, current_rows, read_rows
from .stats import Stat, mean_ci, summarize
from .tables import (
    STAR_SHARE,
    comparison_table,
    epsilon_label,
    format_value,
    markdown_table,
    paper_table,
    star_threshold,
    summary_epsilons,
)

__all__ = [
    "Stat",
    "mean_ci",
    "summarize",
    "paper_results",
    "markdown_table",
    "comparison_table",
    "plot_experiment",
    "budget_factor",
    "paper_reference",
    "star_threshold",
    "write_report",
    "PAPER_NUMBERS",
    "STAR_SHARE",
]


def _differences_text(config: ExperimentConfig, records: list[dict[str, Any]]) -> str:
    if not records:
        return (
            "Our datasets are not the paper's (embedded data), so the numbers are not comparable cell by "
            "cell; the paper's table is printed above for reference."
        )
    diffs = np.array([r["diff"] for r in records])
    outside = sum(r["outside"] for r in records)
    worst = max(records, key=lambda r: abs(r["diff"]))
    by_method = defaultdict(list)
    for r in records:
        by_method[r["method"]].append(r["diff"])
    parts = [f"{m}: mean difference {np.mean(v):+.3f}" for m, v in by_method.items()]
    return (
        f"Over {len(records)} cells with a paper value, the mean absolute difference is "
        f"{np.mean(np.abs(diffs)):.3f} ({'; '.join(parts)}); the paper's value lies outside our 95% "
        f"interval by at least the threshold in {outside} of them (marked *). Largest: {worst['method']} at "
        f"epsilon "
        f"{epsilon_label(worst['epsilon'])}, ours {worst['ours']:.3f} against {worst['paper']:.3f}."
    )


def _note(config: ExperimentConfig, datasets: Sequence[str], epsilons: Sequence[float]) -> str:
    """The experiment's note with the run's own settings filled in (``$k``, ``$w1``, ``$epsilons``, ...).

    A setting that differs between the datasets reads ``3 (dblp: 10)``.
    """

    def scalars(dataset: str) -> dict[str, str]:
        params = config.params_for(dataset)
        out = {}
        for key, value in params.items():
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                out[key] = f"{value:g}" if isinstance(value, float) else str(value)
        for i, w in enumerate(params.get("weights", ()), start=1):
            out[f"w{i}"] = f"{float(w):g}"
        return out

    per = {d: scalars(d) for d in datasets}
    first = per[datasets[0]]
    values = {}
    for key, value in first.items():
        other = [f"{d}: {per[d][key]}" for d in datasets[1:] if per[d].get(key, value) != value]
        values[key] = value + (f" ({', '.join(other)})" if other else "")
    values["epsilons"] = "{" + ", ".join(epsilon_label(e) for e in epsilons if math.isfinite(e)) + "}"
    return Template(config.note).safe_substitute(values)


def _run_text(info: dict[str, Any]) -> str:
    jobs = info.get("jobs", "?")
    option = info.get("jobs_option", jobs)
    workers = "1 process" if jobs == 1 else f"{jobs} worker processes"
    return f"; run with {info.get('backend', '?')}, --jobs {option} ({workers} at the end)"


def _software_lines(names: Sequence[str], meta: dict[str, Any]) -> list[str]:
    """The header lines naming the software that computed each experiment's runs and wrote the report."""
    groups: dict[str, list[str]] = {}
    for name in names:
        env = (meta.get(name) or {}).get("environment")
        text = environment_text(env) if env else "not recorded (runs made before dpmo recorded it)"
        groups.setdefault(text, []).append(name)
    lines = [f"* Runs of {', '.join(group)}: {text}." for text, group in groups.items()]
    now = environment_text(environment())
    if list(groups) != [now]:
        lines.append(f"* This report written with: {now}.")
    return lines


def _check_inputs(out: Path, present: Sequence[str], meta) -> None:
    """Refuse, naming the file, a results CSV of another layout and run information of another shape
    (they stopped the report with a KeyError or an AttributeError from deep inside)."""
    for name in present:
        with csv_path(out, name).open(newline="") as fh:
            header = fh.readline().strip().split(",")
        missing = [c for c in ("dataset", "method", "epsilon", "run") if c not in header]
        if missing:
            raise ValueError(
                f"{csv_path(out, name)} lacks the columns {missing}: not a CSV of dpmo reproduce"
            )
    if not isinstance(meta, dict) or any(
        not isinstance(v, dict) or not isinstance(v.get("environment", {}), dict) for v in meta.values()
    ):
        raise ValueError(
            "meta (or OUT/meta.json) must map each experiment to an object of run information, its "
            "'environment' an object too"
        )


def write_report(
    out_dir: str | os.PathLike,
    experiments: Sequence[str] | None = None,
    *,
    settings: dict[str, dict[str, str]] | None = None,
    meta: dict[str, Any] | None = None,
    paper_path: str | os.PathLike | None = None,
) -> Path:
    """Write tables, figures and ``report.md`` for the experiments whose CSV is in ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Folder holding ``<experiment>.csv``; ``tables/``, ``figures/`` and ``report.md`` are written there.
    experiments : sequence of str, optional
        Default: every experiment with a CSV.
    settings : dict, optional
        ``{experiment: {dataset: settings fingerprint}}``: only rows of these settings are used (the last
        ``dpmo reproduce`` of each experiment). Default: ``meta[experiment]["settings"]`` when present, else
        every row.
    meta : dict, optional
        ``{experiment: {...}}`` run information (wall time, jobs, backend, data, settings, ``environment``
        as :func:`dpmo.experiments.environment.environment` returns it) shown in the report; default:
        ``OUT/meta.json`` when present.

    Returns
    -------
    Path
        The path of ``report.md``.

    Notes
    -----
    O(rows of the CSVs) plus one figure per experiment (matplotlib, about a second each).

    Examples
    --------
    >>> import csv, tempfile
    >>> from pathlib import Path
    >>> from dpmo.experiments.report import write_report
    >>> from dpmo.experiments.runner import columns
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> folder = Path(tempfile.mkdtemp())
    >>> config = EXPERIMENTS["graph-agg"]
    >>> with open(folder / "graph-agg.csv", "w", newline="") as fh:
    ...     writer = csv.DictWriter(fh, fieldnames=columns(config))
    ...     _ = writer.writeheader()
    ...     for e in (0.1, 1.0):
    ...         for m in config.methods:
    ...             for run in range(3):
    ...                 _ = writer.writerow({"experiment": "graph-agg", "dataset": "enron", "method": m,
    ...                                  "epsilon": e, "run": run, "recall": min(1.0, e), "seconds": 0.1,
    ...                                  "cpu_seconds": 0.1, "seed": 0, "settings": "x"})
    >>> text = write_report(folder, ["graph-agg"]).read_text()
    >>> "Figure 3" in text and "fig:graph_weighted" not in text  # the paper cited by figure number
    True
    >>> (folder / "figures" / "graph-agg.png").exists()
    True
    >>> import shutil; shutil.rmtree(folder)
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise ValueError(
            f"out_dir must be a folder holding the experiments' CSV files; {str(out)!r} is not one"
        )
    if isinstance(experiments, str):
        raise TypeError(f"experiments must be a list of experiment names, not one string ({experiments!r})")
    unknown = [n for n in experiments or [] if n not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"experiments {unknown}: unknown; known: {sorted(EXPERIMENTS)}")
    names = list(experiments or [n for n in EXPERIMENTS if csv_path(out, n).exists()])
    paper = paper_results(paper_path)
    if meta is None:
        meta_file = out / "meta.json"
        meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    present = [n for n in names if csv_path(out, n).exists()]
    _check_inputs(out, present, meta)
    lines = [
        "# Reproduction of the paper's experiments",
        "",
        "Generated by `dpmo reproduce`. Cells give the mean over repetitions and its 95% interval "
        "(Student t); the paper's numbers come from `dpmo/experiments/data/paper_results.csv`, transcribed "
        "from its tables and the coordinates of its figures. `diff` = ours - paper; `*` = the paper's value "
        "lies outside our 95% interval (widened by the rounding of the paper's printed value) and differs "
        f"from ours by at least {STAR_SHARE * 100:g}% of the metric's range (each experiment states its "
        "threshold).",
        "",
        "**Software.**",
        "",
        *_software_lines(present, meta),
        "",
        "| experiment | datasets | repetitions per cell | runs in the CSV | wall time (s) "
        "| CPU time of the runs (s) |",
        "|---|---|---|---|---|---|",
    ]
    body: list[str] = []
    for name in names:
        config = EXPERIMENTS[name]
        info = meta.get(name, {})
        current = (settings or {}).get(name, info.get("settings"))
        rows = current_rows(read_rows(csv_path(out, name)), current)
        if not rows:
            continue
        summary = summarize(rows, config.metrics)
        datasets = sorted({r["dataset"] for r in rows}, key=dataset_order(config))
        reps = sorted({s[config.primary_metric].n for s in summary.values() if config.primary_metric in s})
        cpu = sum(float(r.get("cpu_seconds") or r.get("seconds") or 0.0) for r in rows)
        rep_text = "-".join(str(x) for x in sorted({reps[0], reps[-1]})) if reps else "-"
        lines.append(
            f"| {name} | {', '.join(datasets)} | {rep_text} "
            f"| {len(rows)} | {format_value(info.get('seconds', math.nan), 1)} | {cpu:.1f} |"
        )
        metrics = [m for m in config.metrics if m != "coverage_weak" and m not in ("tpr", "tnr")]
        fig = plot_experiment(config, summary, paper, out / "figures" / f"{name}.png", metrics)
        tables_dir = out / "tables"
        tables_dir.mkdir(parents=True, exist_ok=True)
        table_text = [f"# {config.title}", ""]
        for m in config.metrics:
            table_text += [
                f"## {config.metric_labels.get(m, m)} (`{m}`)",
                "",
                markdown_table(config, summary, m),
                "",
            ]
        (tables_dir / f"{name}.md").write_text("\n".join(table_text))

        source = paper_reference(config.paper_source)
        body += [f"## {name}: {config.title}", "", f"Paper: {source}.", ""]
        params = ", ".join(f"{k}={v}" for k, v in config.params_for(datasets[0]).items())
        eps = ", ".join(epsilon_label(e) for e in summary_epsilons(summary))
        body += [
            f"**Settings used.** datasets {', '.join(datasets)}; epsilon {eps}; {params}"
            + (f"; per-dataset overrides {config.dataset_params}" if config.dataset_params else "")
            + (_run_text(info) if info else "")
            + ".",
            "",
            _note(config, datasets, summary_epsilons(summary)),
            "",
            readings_note(rows),
            "",
            f"![{name}](figures/{fig.name})",
            "",
        ]
        records: list[dict[str, Any]] = []
        stars = "; ".join(
            f"{config.metric_labels.get(m, m)}: {star_threshold(config, m):g}"
            for m in config.metrics
            if m not in ("coverage_weak", "tpr", "tnr")
        )
        body += [f"Smallest starred difference ({STAR_SHARE * 100:g}% of the range): {stars}.", ""]
        for d in datasets:
            for m in [x for x in config.metrics if x not in ("coverage_weak", "tpr", "tnr")]:
                text, recs = comparison_table(config, summary, paper, d, m)
                records += recs
                label = DATASETS[d].label if d in DATASETS else d
                body += [f"### {label}: {config.metric_labels.get(m, m)}", "", text, ""]
        if not records:
            ptable = paper_table(config, paper, config.primary_metric)
            if ptable:
                body += ["### The paper's numbers (its datasets)", "", ptable, ""]
        body += [
            "### Where and why ours differ",
            "",
            _differences_text(config, records),
            "",
            why_different(config, summary, paper, datasets, records),
            "",
            f"All tables of this experiment (every metric): [tables/{name}.md](tables/{name}.md).",
            "",
        ]
    lines += [""] + body
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
