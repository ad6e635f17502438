"""The figure of an experiment: metric vs epsilon, one panel per dataset, ours beside the paper's numbers."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .._extras import require
from .config import DATASETS, ExperimentConfig

__all__ = ["dataset_order", "plot_experiment"]


def dataset_order(config: ExperimentConfig):
    """Sort key putting ``config.datasets`` first, in their order, then any other dataset by name."""
    order = {d: i for i, d in enumerate(config.datasets)}
    return lambda d: (order.get(d, len(order)), d)


_COLORS = {"local": "tab:red", "global": "tab:purple", "LocalDiffPID3": "tab:blue", "NODP": "black"}
_MARKERS = {"local": "s", "global": "^", "LocalDiffPID3": "o", "NODP": ""}


def _style(method: str) -> tuple[str, str]:
    for key in ("LocalDiffPID3", "NODP"):
        if method.startswith(key):
            return _COLORS[key], _MARKERS[key]
    for key in ("local", "global"):
        if method.endswith(key):
            return _COLORS[key], _MARKERS[key]
    return "tab:green", "D"


def plot_experiment(
    config: ExperimentConfig,
    summary: dict,
    paper: dict,
    path: str | os.PathLike,
    metrics: Sequence[str] | None = None,
) -> Path:
    """PNG figure: one panel per dataset (and per metric), metric vs epsilon on a log x axis.

    Private methods are solid lines with markers and a shaded 95% band; non-private methods a dashed
    horizontal line; the paper's reported numbers, where it has them, the same colour, dotted, hollow markers.

    Examples
    --------
    >>> import tempfile, os
    >>> from dpmo.experiments import EXPERIMENTS, mean_ci, plot_experiment
    >>> config = EXPERIMENTS["graph-agg"]
    >>> summary = {("enron", m, e): {"recall": mean_ci([min(1.0, e), min(1.0, e) / 2])}
    ...            for m in config.methods for e in (0.1, 1.0, 10.0)}
    >>> folder = tempfile.mkdtemp()
    >>> path = plot_experiment(config, summary, {}, os.path.join(folder, "graph-agg.png"))
    >>> path.stat().st_size > 1000  # a PNG was written
    True
    >>> os.remove(path); os.rmdir(folder)
    """
    matplotlib = require("matplotlib", "the figures of dpmo reproduce")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter

    metrics = list(metrics or [config.primary_metric])
    datasets = sorted({k[0] for k in summary}, key=dataset_order(config))
    if not datasets:
        raise ValueError(f"no results to plot for {config.name}")
    nrow, ncol = len(metrics), len(datasets)
    width = max(6.4, 4.6 * ncol)
    legend_cols = 2 if ncol == 1 else 4
    n_handles = len(config.methods) + 1
    legend_rows = math.ceil(n_handles / legend_cols)
    height = 3.4 * nrow + 0.8 + 0.25 * legend_rows
    fig, axes = plt.subplots(nrow, ncol, figsize=(width, height), squeeze=False, layout="constrained")
    methods = [m for m in config.methods if any(k[1] == m for k in summary)]
    for i, metric in enumerate(metrics):
        for j, d in enumerate(datasets):
            ax = axes[i, j]
            eps_grid = sorted({k[2] for k in summary if k[0] == d and math.isfinite(k[2])})
            for m in methods:
                color, marker = _style(m)
                if m in config.nonprivate:
                    s = summary.get((d, m, math.inf), {}).get(metric)
                    if s is not None and s.n:
                        ax.axhline(s.mean, color=color, ls="--", lw=1.6)
                        ax.axhspan(s.lo, s.hi, color=color, alpha=0.08, lw=0)
                    p = paper.get((config.name, d, m, math.inf, metric))
                    if p is not None:
                        ax.axhline(p[0], color=color, ls=":", lw=1.2, alpha=0.7)
                    continue
                pts = [  # a cell whose runs all gave NaN has no mean to draw (it would break the log axis)
                    (e, summary[(d, m, e)][metric])
                    for e in eps_grid
                    if (d, m, e) in summary
                    and metric in summary[(d, m, e)]
                    and math.isfinite(summary[(d, m, e)][metric].mean)
                ]
                if pts:
                    x = np.array([e for e, _ in pts])
                    y = np.array([s.mean for _, s in pts])
                    lo = np.array([s.lo for _, s in pts])
                    hi = np.array([s.hi for _, s in pts])
                    ax.plot(x, y, color=color, marker=marker, lw=1.8, ms=6)
                    ax.fill_between(x, lo, hi, color=color, alpha=0.15, lw=0)
                ppts = sorted(
                    (k[3], v[0])
                    for k, v in paper.items()
                    if k[0] == config.name and k[1] == d and k[2] == m and k[4] == metric
                )
                if ppts:
                    ax.plot(
                        [e for e, _ in ppts],
                        [v for _, v in ppts],
                        color=color,
                        ls=":",
                        lw=1.2,
                        marker=marker,
                        mfc="none",
                        ms=6,
                        alpha=0.75,
                    )
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            ax.grid(True, which="major", alpha=0.3)
            ax.set_xlabel(r"privacy budget $\varepsilon$")
            ax.set_ylabel(config.metric_labels.get(metric, metric))
            title = DATASETS[d].label if d in DATASETS else d
            if i == 0:  # dataset on top of its column; the metric is in each panel's y label
                ax.set_title(title)
    handles = []
    for m in methods:
        color, marker = _style(m)
        ls = "--" if m in config.nonprivate else "-"
        handles.append(
            Line2D([], [], color=color, marker=marker if ls == "-" else "", ls=ls, lw=1.8, label=m)
        )
    if any(k[0] == config.name and k[1] in datasets for k in paper):
        handles.append(Line2D([], [], color="grey", ls=":", marker="o", mfc="none", label="paper (dotted)"))
    fig.suptitle(config.title, fontsize=12)
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(handles), legend_cols),
        frameon=False,
        fontsize=9.5,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
