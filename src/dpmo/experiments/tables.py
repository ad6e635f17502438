"""Markdown tables of an experiment: rows epsilon, columns dataset x method, ours beside the paper's.

Each cell is the mean over repetitions with its 95% interval (:mod:`dpmo.experiments.stats`).
:func:`markdown_table` lays a metric out like the paper's tables; :func:`comparison_table` sets ours, the
paper's value and the difference side by side for one dataset, starring a difference that is both outside
our interval and at least :func:`star_threshold`; :func:`paper_table` prints the paper's own numbers when
our datasets are not the paper's. :func:`format_value` and :func:`epsilon_label` are the number formats
shared with the prose of ``report.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .config import DATASETS, ExperimentConfig
from .figures import dataset_order
from .stats import Stat

__all__ = [
    "STAR_SHARE",
    "comparison_table",
    "epsilon_label",
    "format_value",
    "markdown_table",
    "paper_table",
    "star_threshold",
    "summary_epsilons",
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


def format_value(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals; ``-`` for a missing value (None or NaN). O(1).

    Examples
    --------
    >>> from dpmo.experiments.tables import format_value
    >>> format_value(0.12345), format_value(2.0, 1), format_value(float("nan"))
    ('0.123', '2.0', '-')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _fmt_stat(s: Stat | None, digits: int = 3) -> str:
    if s is None or s.n == 0:
        return "-"
    if s.n == 1:
        return f"{format_value(s.mean, digits)}"
    return f"{format_value(s.mean, digits)} [{format_value(s.lo, digits)}, {format_value(s.hi, digits)}]"


def epsilon_label(e: float) -> str:
    """How an epsilon is printed: ``%g``, and ``non-private`` for infinity (the non-private baselines). O(1).

    Examples
    --------
    >>> from dpmo.experiments.tables import epsilon_label
    >>> epsilon_label(0.5), epsilon_label(float("inf"))
    ('0.5', 'non-private')
    """
    return "non-private" if math.isinf(e) else f"{e:g}"


def summary_epsilons(summary: dict, datasets: Sequence[str] | None = None) -> list[float]:
    """The epsilons of a :func:`~dpmo.experiments.stats.summarize` result, sorted. O(cells).

    With ``datasets``, only the epsilons of those datasets' cells.

    Examples
    --------
    >>> from dpmo.experiments.tables import summary_epsilons
    >>> summary = {("a", "m", 1.0): {}, ("b", "m", 0.1): {}, ("a", "m", 0.1): {}}
    >>> summary_epsilons(summary), summary_epsilons(summary, ["b"])
    ([0.1, 1.0], [0.1])
    """
    return sorted({k[2] for k in summary if datasets is None or k[0] in datasets})


def markdown_table(
    config: ExperimentConfig, summary: dict, metric: str | None = None, datasets: Sequence[str] | None = None
) -> str:
    """The paper-like table of ``metric``: rows epsilon, columns dataset x method, mean [95% interval].

    ``summary`` is :func:`dpmo.experiments.stats.summarize`'s result; ``metric`` defaults to the
    experiment's primary metric. O(cells).

    Examples
    --------
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> from dpmo.experiments.stats import mean_ci
    >>> from dpmo.experiments.tables import markdown_table
    >>> config = EXPERIMENTS["graph-agg"]
    >>> method = config.methods[0]
    >>> summary = {("enron", method, 1.0): {"recall": mean_ci([0.5])}}
    >>> print(markdown_table(config, summary).splitlines()[-1])
    | 1 | 0.500 |
    """
    metric = metric or config.primary_metric
    datasets = list(datasets or sorted({k[0] for k in summary}, key=dataset_order(config)))
    methods = [m for m in config.methods if any(k[1] == m for k in summary)]
    head = ["epsilon"] + [
        f"{DATASETS[d].label if d in DATASETS else d} {m}" for d in datasets for m in methods
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in summary_epsilons(summary, datasets):
        cells = [epsilon_label(e)]
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
    O(cells).

    Examples
    --------
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> from dpmo.experiments.stats import mean_ci
    >>> from dpmo.experiments.tables import comparison_table
    >>> config = EXPERIMENTS["graph-agg"]
    >>> method = config.methods[0]
    >>> summary = {("enron", method, 1.0): {"recall": mean_ci([0.5, 0.6, 0.7])}}
    >>> paper = {("graph-agg", "enron", method, 1.0, "recall"): (0.2, "Figure 3")}
    >>> text, records = comparison_table(config, summary, paper, "enron")
    >>> [(r["paper"], round(r["diff"], 3), r["outside"]) for r in records]
    [(0.2, 0.4, True)]
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
        cells = [epsilon_label(e)]
        for m in methods:
            s = summary.get((dataset, m, e), {}).get(metric)
            p = paper.get((config.name, dataset, m, e, metric))
            cells.append(_fmt_stat(s))
            if p is None:
                cells += ["-", "-"]
                continue
            cells.append(format_value(p[0], 3 if metric != "fitness" else 2))
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


def paper_table(config: ExperimentConfig, paper: dict, metric: str) -> str:
    """The paper's numbers of ``metric`` for ``config`` as a :func:`markdown_table`; ``""`` if it has none.

    ``paper`` is :func:`dpmo.experiments.paper.paper_results`. O(paper values).

    Examples
    --------
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> from dpmo.experiments.paper import paper_results
    >>> from dpmo.experiments.tables import paper_table
    >>> config = EXPERIMENTS["graph-agg"]
    >>> text = paper_table(config, paper_results(), "recall")
    >>> text.startswith("| epsilon |") and text.count("\\n") > 2
    True
    """
    keys = [k for k in paper if k[0] == config.name and k[4] == metric]
    if not keys:
        return ""
    summary = {}
    for k in keys:
        summary[(k[1], k[2], k[3])] = {metric: Stat(1, paper[k][0], paper[k][0], paper[k][0])}
    datasets = [d for d in config.datasets if any(k[1] == d for k in keys)]
    return markdown_table(config, summary, metric, datasets)
