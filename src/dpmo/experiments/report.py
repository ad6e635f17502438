"""Tables, figures and ``report.md`` from the results CSVs, beside the paper's reported numbers.

* Tables (``OUT/tables/<experiment>.md``): laid out like the paper's (rows epsilon, columns dataset x method),
  each cell the mean over repetitions with its 95% interval (Student t interval of the mean).
* Figures (``OUT/figures/<experiment>.png``, matplotlib Agg): metric vs epsilon on a log axis, one panel per
  dataset, one line per method with its 95% band, non-private methods dashed, the paper's numbers dotted
  with hollow markers.
* ``OUT/report.md``: a header with the software that computed the runs (dpmo version and git commit,
  Python and package versions, :mod:`dpmo.experiments.environment`), then per experiment the settings, the
  figure, per-dataset tables ours | paper | difference, and where and why ours differ
  (:mod:`dpmo.experiments.findings`, ``docs/errata.md``). Every number in the prose is computed from the
  run's results; the paper is cited by table and figure number (:data:`PAPER_NUMBERS`).

The paper's numbers are in ``dpmo/experiments/data/paper_results.csv`` (transcribed from its tables and
the coordinates of its figures; column ``source`` names the table or figure).
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
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
from .runner import csv_path, read_rows

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

#: A difference is starred only when it is at least this share of the metric's range (and the paper's value
#: lies outside our 95% interval): 0.01 for C, recall and shares, 0.05 for a fitness 3 TPR + 2 TNR.
STAR_SHARE = 0.01


def star_threshold(config: ExperimentConfig, metric: str) -> float:
    """Smallest ``abs(ours - paper)`` that may be starred: :data:`STAR_SHARE` of the metric's range.

    Fractions (C, recall, shares, TPR, TNR) have range 1; a weighted fitness ``w1 TPR + w2 TNR`` has range
    ``|w1| + |w2|`` (from the experiment's ``weights``).

    Examples
    --------
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> from dpmo.experiments.report import star_threshold
    >>> star_threshold(EXPERIMENTS["graph-agg"], "recall")
    0.01
    >>> weights = EXPERIMENTS["tree-agg"].params["weights"]
    >>> star_threshold(EXPERIMENTS["tree-agg"], "fitness") == 0.01 * sum(abs(w) for w in weights)
    True
    """
    if metric == "fitness":
        return STAR_SHARE * float(sum(abs(w) for w in config.params.get("weights", (1.0,))))
    return STAR_SHARE


class Stat(tuple):
    """``(n, mean, lo, hi)`` of one metric in one cell."""

    __slots__ = ()

    def __new__(cls, n: int, mean: float, lo: float, hi: float):
        return super().__new__(cls, (n, mean, lo, hi))

    n = property(lambda self: self[0])
    mean = property(lambda self: self[1])
    lo = property(lambda self: self[2])
    hi = property(lambda self: self[3])


def mean_ci(values: Sequence[float], level: float = 0.95) -> Stat:
    """Mean and two-sided ``level`` Student t interval of the mean. O(n).

    One value gives a zero-width interval; identical values too.

    Examples
    --------
    >>> import math
    >>> from dpmo.experiments import mean_ci
    >>> s = mean_ci([1.0, 2.0, 3.0])
    >>> s.n, s.mean
    (3, 2.0)
    >>> # half width t(0.975, 2) * sd / sqrt(n), with t(0.975, 2) = 4.302653 (statistical tables)
    >>> abs((s.hi - s.mean) - 4.302653 * 1.0 / math.sqrt(3)) < 1e-5
    True
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = x.size
    if n == 0:
        return Stat(0, math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if n == 1:
        return Stat(1, mean, mean, mean)
    from scipy.stats import t

    half = float(t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return Stat(n, mean, mean - half, mean + half)


#: Range of the metrics that are fractions; their intervals are clipped to it.
UNIT_METRICS = ("coverage", "coverage_weak", "front_share", "recall", "tpr", "tnr")


def _clip(s: Stat, lo: float, hi: float) -> Stat:
    return Stat(s.n, s.mean, max(s.lo, lo), min(s.hi, hi))


def summarize(rows: Iterable[dict[str, str]], metrics: Sequence[str]) -> dict[tuple, dict[str, Stat]]:
    """``{(dataset, method, epsilon): {metric: Stat}}`` over the repetitions in ``rows``. O(rows).

    Intervals of fractions (:data:`UNIT_METRICS`) are clipped to [0, 1].

    Examples
    --------
    >>> from dpmo.experiments import summarize
    >>> rows = [{"dataset": "d", "method": "m", "epsilon": "1.0", "recall": v} for v in ("0.2", "0.4")]
    >>> stat = summarize(rows, ["recall"])[("d", "m", 1.0)]["recall"]
    >>> stat.n, round(stat.mean, 12), stat.lo >= 0.0  # intervals of fractions are clipped to [0, 1]
    (2, 0.3, True)
    """
    groups: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r["dataset"], r["method"], float(r["epsilon"]))
        for m in metrics:
            if r.get(m) not in (None, ""):
                groups[key][m].append(float(r[m]))
    out = {}
    for key, ms in groups.items():
        out[key] = {
            m: _clip(mean_ci(v), 0.0, 1.0) if m in UNIT_METRICS else mean_ci(v) for m, v in ms.items()
        }
    return out


def _fmt(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _fmt_stat(s: Stat | None, digits: int = 3) -> str:
    if s is None or s.n == 0:
        return "-"
    if s.n == 1:
        return f"{_fmt(s.mean, digits)}"
    return f"{_fmt(s.mean, digits)} [{_fmt(s.lo, digits)}, {_fmt(s.hi, digits)}]"


def _eps_label(e: float) -> str:
    return "non-private" if math.isinf(e) else f"{e:g}"


def _epsilons(summary: dict, datasets: Sequence[str] | None = None) -> list[float]:
    return sorted({k[2] for k in summary if datasets is None or k[0] in datasets})


def markdown_table(
    config: ExperimentConfig, summary: dict, metric: str | None = None, datasets: Sequence[str] | None = None
) -> str:
    """The paper-like table of ``metric``: rows epsilon, columns dataset x method, mean [95% interval]."""
    metric = metric or config.primary_metric
    datasets = list(datasets or sorted({k[0] for k in summary}, key=dataset_order(config)))
    methods = [m for m in config.methods if any(k[1] == m for k in summary)]
    head = ["epsilon"] + [
        f"{DATASETS[d].label if d in DATASETS else d} {m}" for d in datasets for m in methods
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in _epsilons(summary, datasets):
        cells = [_eps_label(e)]
        for d in datasets:
            for m in methods:
                cells.append(_fmt_stat(summary.get((d, m, e), {}).get(metric)))
        if any(c != "-" for c in cells[1:]):
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def comparison_table(
    config: ExperimentConfig, summary: dict, paper: dict, dataset: str, metric: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Per-dataset table: for each method, ours (mean [95% interval]), paper, difference.

    Returns the Markdown text and one record per (method, epsilon) with a paper value (for the summary of
    differences). ``*`` marks a paper value outside our 95% interval (widened by the paper's rounding) that
    also differs from ours by at least :func:`star_threshold`: no star on a difference too small to print.
    """
    metric = metric or config.primary_metric
    methods = [m for m in config.methods if any(k[0] == dataset and k[1] == m for k in summary)]
    head = ["epsilon"]
    for m in methods:
        head += [f"{m} (ours)", "paper", "diff"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    records = []
    threshold = star_threshold(config, metric)
    eps_all = sorted(
        {k[2] for k in summary if k[0] == dataset}
        | {k[3] for k in paper if k[0] == config.name and k[1] == dataset and k[4] == metric}
    )
    for e in eps_all:
        cells = [_eps_label(e)]
        for m in methods:
            s = summary.get((dataset, m, e), {}).get(metric)
            p = paper.get((config.name, dataset, m, e, metric))
            cells.append(_fmt_stat(s))
            if p is None:
                cells += ["-", "-"]
                continue
            cells.append(_fmt(p[0], 3 if metric != "fitness" else 2))
            if s is None or s.n == 0:
                cells.append("-")
                continue
            diff = s.mean - p[0]
            tol = p[2] if len(p) > 2 else 0.0
            outside = s.n > 1 and not (s.lo - tol <= p[0] <= s.hi + tol) and abs(diff) >= threshold
            cells.append(f"{diff:+.3f}{'*' if outside else ''}")
            records.append(
                {"method": m, "epsilon": e, "ours": s.mean, "paper": p[0], "diff": diff, "outside": outside}
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), records


def _paper_only_table(config: ExperimentConfig, paper: dict, metric: str) -> str:
    keys = [k for k in paper if k[0] == config.name and k[4] == metric]
    if not keys:
        return ""
    summary = {}
    for k in keys:
        summary[(k[1], k[2], k[3])] = {metric: Stat(1, paper[k][0], paper[k][0], paper[k][0])}
    datasets = [d for d in config.datasets if any(k[1] == d for k in keys)]
    return markdown_table(config, summary, metric, datasets)


def _current_rows(rows: list[dict[str, str]], settings: dict[str, str] | None) -> list[dict[str, str]]:
    """The rows of the given settings (``{dataset: fingerprint}``); all rows when None."""
    if settings is None:
        return rows
    return [r for r in rows if r["dataset"] in settings and settings[r["dataset"]] == r.get("settings")]


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
        f"{_eps_label(worst['epsilon'])}, ours {worst['ours']:.3f} against {worst['paper']:.3f}."
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
    values["epsilons"] = "{" + ", ".join(_eps_label(e) for e in epsilons if math.isfinite(e)) + "}"
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
    names = list(experiments or [n for n in EXPERIMENTS if csv_path(out, n).exists()])
    paper = paper_results(paper_path)
    if meta is None:
        meta_file = out / "meta.json"
        meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    present = [n for n in names if csv_path(out, n).exists()]
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
        rows = _current_rows(read_rows(csv_path(out, name)), current)
        if not rows:
            continue
        summary = summarize(rows, config.metrics)
        datasets = sorted({r["dataset"] for r in rows}, key=dataset_order(config))
        reps = sorted({s[config.primary_metric].n for s in summary.values() if config.primary_metric in s})
        cpu = sum(float(r.get("cpu_seconds") or r.get("seconds") or 0.0) for r in rows)
        rep_text = "-".join(str(x) for x in sorted({reps[0], reps[-1]})) if reps else "-"
        lines.append(
            f"| {name} | {', '.join(datasets)} | {rep_text} "
            f"| {len(rows)} | {_fmt(info.get('seconds', math.nan), 1)} | {cpu:.1f} |"
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
        eps = ", ".join(_eps_label(e) for e in _epsilons(summary))
        body += [
            f"**Settings used.** datasets {', '.join(datasets)}; epsilon {eps}; {params}"
            + (f"; per-dataset overrides {config.dataset_params}" if config.dataset_params else "")
            + (_run_text(info) if info else "")
            + ".",
            "",
            _note(config, datasets, _epsilons(summary)),
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
            ptable = _paper_only_table(config, paper, config.primary_metric)
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
