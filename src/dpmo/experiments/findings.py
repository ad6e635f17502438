"""Where and why our numbers differ from the paper's: known reasons and this run's own evidence.

Every number written here is computed from the run's results (or from the paper's transcribed numbers);
the fixed text gives only reasons, each pointing to its point of ``docs/errata.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .config import DATASETS, ExperimentConfig

__all__ = ["REASONS", "budget_factor", "budget_shifts", "evidence", "shift_table", "why_different"]

#: Known reasons why our numbers differ from the paper's, per experiment (fixed text, no measured numbers).
REASONS: dict[str, str] = {
    "tree-pareto": (
        "* **Sensitivity of TPR/TNR (ERRATA 1).** The paper's printed delta^TPR is not admissible (it can be "
        "far too small); we use the exact element local sensitivity (dpmo.trees.objectives), which is "
        "larger, so DP-MOET-Pareto-local is noisier than a run with the printed formula would be (the "
        "published code used yet another bound).\n"
        "* **Reading of C (ERRATA 4).** With the paper's weak-dominance formula an exact copy of the "
        "reference does not score 0; we count strict dominance (as the published code does), column "
        "`coverage`; `coverage_weak` in the CSV keeps the paper's formula.\n"
        "* **Budget split (ERRATA 4).** The paper does not say how epsilon is split over the k + 1 "
        "selection rounds and the picks inside a round; we split the total epsilon over all of them, as "
        "the published code does (a reading with epsilon per round would give each pick k + 1 times "
        "more).\n"
        "* The NODP reference is itself random (random initial trees), so C stays above 0 even at large "
        "epsilon, like the plateau the paper reports."
    ),
    "tree-agg": (
        "* **Sensitivity of TPR/TNR (ERRATA 1).** Exact element local sensitivity for DP-MOET-Agg-local "
        "(the printed one is not admissible and would give optimistic numbers).\n"
        "* **Public scaling bounds (ERRATA 6).** Numeric attributes (Adult) are scaled with public domain "
        "bounds, not the private data's min and max.\n"
        "* **Budget split (ERRATA 4).** One total epsilon split over every selection round and pick.\n"
        "* Fitness is measured on the same table the trees are built on, as the paper's objectives are "
        "defined on x."
    ),
    "graph-pareto": (
        "* **Ego-density sensitivity (ERRATA 2).** The printed 2/(deg - t - 2) exceeds the global "
        "sensitivity and breaks admissibility; we use the tight admissible 2/(deg - t), capped at 1.\n"
        "* **The paper's table is not reproduced (ERRATA 5).** With correct sensitivities the Pareto "
        "score's local sensitivity is huge on real graphs (one edge moves a low-degree node's ego density "
        "from 0 to 1, past thousands of others), so local dampening gains little or nothing over the "
        "global sensitivity. C counts a pick as an error only when one of the k exact nodes is strictly "
        "better in both objectives, and the nodes a large epsilon favours (few nodes dominate them) are "
        "rarely strictly dominated by the k chosen optimal ones: a C near 0 does not by itself mean good "
        "picks. Read C beside the share of picks on the Pareto front and the recall of the exact top-k "
        "(tables above).\n"
        "* **Settings (ERRATA 7).** The rows of the paper's table and the k of its text, not its caption's "
        "budgets. DBLP is not in the shared data; `dpmo reproduce graph-pareto --datasets dblp --data-dir "
        "DIR` runs it where the file is."
    ),
    "graph-agg": (
        "* **Ego-density sensitivity (ERRATA 2).** Tight admissible 2/(deg - t) capped at 1 instead of "
        "the printed 2/(deg - t - 2) (which is not admissible) or the published code's looser 2/(deg - t "
        "- 1).\n"
        "* **Global method: a factor 2 in epsilon.** A best budget shift c near 2 for DP-MOTkIN-Agg-global "
        "(above) is what an exponential mechanism sampling proportionally to exp(epsilon u / Delta u) "
        "instead of exp(epsilon u / (2 Delta u)) gives. Dropping the 1/2 is epsilon-DP only for utilities "
        "that move in one direction between neighbours, and u_agg does not (adding an edge at v raises "
        "its degree and can lower its ego density, while it raises the ego density of common neighbours). "
        "We keep the 1/2: our global numbers are the correct ones for the stated epsilon.\n"
        "* **Local method.** A best shift c below 1 for DP-MOTkIN-Agg-local means ours reaches a given "
        "recall with less budget than the paper's; the tighter ego-density sensitivity explains part of "
        "it; we have not pinned down the rest.\n"
        "* **Settings (ERRATA 7).** The epsilon grid of the figure's axis, not its caption's."
    ),
}

#: Curves with fewer repetitions per cell than this are not used for a budget shift (too noisy).
MIN_SHIFT_RUNS = 10


def _label(dataset: str) -> str:
    return DATASETS[dataset].label if dataset in DATASETS else dataset


def _eps(e: float) -> str:
    return "non-private" if math.isinf(e) else f"{e:g}"


def budget_factor(
    ours: dict[float, float], paper: dict[float, float], factors: Sequence[float] | None = None
) -> tuple[float, float, int] | None:
    """The factor ``c`` for which our curve at ``c * epsilon`` best matches the paper's at ``epsilon``.

    Our means are interpolated linearly in ``log epsilon``; only the paper's budgets with ``c * epsilon``
    inside our grid count. Returns ``(c, mean absolute difference, cells compared)``, or None when fewer than
    three cells can be compared. A clear best ``c`` far from 1 means the two curves have the same shape with
    another effective budget (another split of epsilon or another mechanism scale). O(factors x cells).
    """
    xs = sorted(e for e in ours if math.isfinite(e))
    if len(xs) < 2:
        return None
    lx = np.log(xs)
    ly = np.array([ours[e] for e in xs])
    if factors is None:
        factors = np.exp(np.linspace(np.log(1 / 20), np.log(20), 241))
    best = None
    for c in factors:
        pts = [(e, v) for e, v in paper.items() if math.isfinite(e) and xs[0] <= c * e <= xs[-1]]
        if len(pts) < 3:
            continue
        diffs = [abs(float(np.interp(np.log(c * e), lx, ly)) - v) for e, v in pts]
        score = float(np.mean(diffs))
        if (
            best is None
            or score < best[1] - 1e-12
            or (abs(score - best[1]) <= 1e-12 and abs(math.log(c)) < abs(math.log(best[0])))
        ):
            best = (float(c), score, len(pts))
    return best


def budget_shifts(
    config: ExperimentConfig, summary: dict, paper: dict, datasets: Sequence[str]
) -> list[dict[str, Any]]:
    """The budget shift of every (dataset, private method) curve that stands out of its noise.

    A curve counts when every cell has at least :data:`MIN_SHIFT_RUNS` repetitions and its means spread over
    more than 4 times its largest 95% half-width (a shift of a flat or noisy curve means nothing), and the
    paper has numbers for it. Returns one record per curve: ``dataset, method, gap_at_1`` (mean absolute
    difference at c = 1), ``c`` (best factor), ``gap`` (at the best c), ``cells``. O(curves x factors).
    """
    metric = config.primary_metric
    out = []
    for d in datasets:
        for m in config.private_methods():
            stats = {k[2]: v[metric] for k, v in summary.items() if k[0] == d and k[1] == m and metric in v}
            ours = {e: st.mean for e, st in stats.items()}
            theirs = {
                k[3]: v[0]
                for k, v in paper.items()
                if k[0] == config.name and k[1] == d and k[2] == m and k[4] == metric
            }
            if not ours or not theirs:
                continue
            spread = max(ours.values()) - min(ours.values())
            noise = max((st.hi - st.lo) / 2 for st in stats.values())
            if min(st.n for st in stats.values()) < MIN_SHIFT_RUNS or spread < 4 * noise:
                continue
            same = budget_factor(ours, theirs, [1.0])
            fit = budget_factor(ours, theirs)
            if fit is None or same is None:
                continue
            out.append(
                {"dataset": d, "method": m, "gap_at_1": same[1], "c": fit[0], "gap": fit[1], "cells": fit[2]}
            )
    return out


def shift_table(shifts: list[dict[str, Any]]) -> str:
    """The Markdown table of :func:`budget_shifts` (empty text when there is none)."""
    if not shifts:
        return ""
    lines = [
        "Budget shift: the factor c for which our curve at c x epsilon best matches the paper's at epsilon "
        "(linear interpolation in log epsilon). c = 1 with a small gap: the same result; a small gap only "
        "at c != 1: the same shape with another effective budget.",
        "",
        "| dataset | method | mean abs. diff. at c = 1 | best c | mean abs. diff. at best c | cells |",
        "|---|---|---|---|---|---|",
    ]
    for s in shifts:
        lines.append(
            f"| {_label(s['dataset'])} | {s['method']} | {s['gap_at_1']:.3f} | {s['c']:.2f} | {s['gap']:.3f} "
            f"| {s['cells']} |"
        )
    return "\n".join(lines)


def _reps(summary: dict, metric: str) -> str:
    ns = sorted({v[metric].n for v in summary.values() if metric in v})
    if not ns:
        return "no"
    return str(ns[0]) if ns[0] == ns[-1] else f"{ns[0]}-{ns[-1]}"


def _graph_pareto_evidence(config: ExperimentConfig, summary: dict, datasets: Sequence[str]) -> list[str]:
    out = []
    methods = config.private_methods()
    for d in datasets:
        cells = {(k[1], k[2]): v for k, v in summary.items() if k[0] == d and k[1] in methods}
        eps = sorted({e for _, e in cells if math.isfinite(e)})
        if not eps:
            continue
        parts = []
        both = [e for e in eps if all((m, e) in cells and "coverage" in cells[(m, e)] for m in methods)]
        if len(methods) == 2 and both:
            gap = max(
                abs(cells[(methods[0], e)]["coverage"].mean - cells[(methods[1], e)]["coverage"].mean)
                for e in both
            )
            parts.append(
                f"{methods[0]} and {methods[1]} differ in mean C by at most {gap:.3f} over "
                f"{len(both)} budgets"
            )
        for metric, what in (
            ("front_share", "share of picks on the Pareto front"),
            ("recall", "recall of the exact top-k"),
        ):
            vals = [v[metric].mean for v in cells.values() if metric in v]
            if vals:
                parts.append(f"the mean {what} is at most {max(vals):.3f}")
        top = eps[-1]
        at_top = [
            f"{cells[(m, top)]['coverage'].mean:.3f} ({m})"
            for m in methods
            if (m, top) in cells and "coverage" in cells[(m, top)]
        ]
        if at_top:
            parts.append(f"at epsilon = {top:g} mean C is {' and '.join(at_top)}")
        if parts:
            out.append(
                f"* **This run on {_label(d)}** ({_reps(summary, 'coverage')} repetitions per cell): "
                + "; ".join(parts)
                + "."
            )
    return out


def _shift_evidence(
    config: ExperimentConfig, shifts: list[dict[str, Any]], records: list[dict[str, Any]]
) -> list[str]:
    out = []
    for m in config.private_methods():
        mine = [s for s in shifts if s["method"] == m]
        if not mine and not any(r["method"] == m for r in records):
            continue  # no paper numbers for these datasets: nothing to compare
        if not mine:
            out.append(
                f"* **{m}: no budget shift estimated in this run** (it needs at least {MIN_SHIFT_RUNS} "
                "repetitions per cell, the paper's numbers for the dataset and a curve that rises above its "
                "noise)."
            )
            continue
        text = "; ".join(
            f"{_label(s['dataset'])}: c = {s['c']:.2f}, mean abs. difference {s['gap']:.3f} against "
            f"{s['gap_at_1']:.3f} at c = 1"
            for s in mine
        )
        below = [r["paper"] - r["ours"] for r in records if r["method"] == m]
        extra = (
            f"; at equal epsilon ours is at most {max(below):.3f} below the paper's"
            if below and max(below) > 0
            else ""
        )
        out.append(f"* **{m} in this run:** best budget shift {text}{extra}.")
    return out


def _extreme_evidence(config: ExperimentConfig, summary: dict) -> list[str]:
    metric = config.primary_metric
    private = [(k, v[metric]) for k, v in summary.items() if k[1] in config.private_methods() and metric in v]
    if not private:
        return []
    lower = metric in config.lower_is_better
    (d, m, e), st = (min if lower else max)(private, key=lambda kv: kv[1].mean)
    word = "smallest" if lower else "largest"
    return [
        f"* **This run:** the {word} mean {metric} of a private cell is {st.mean:.3f} ({m} on {_label(d)} at "
        f"epsilon = {_eps(e)}, {st.n} repetitions)."
    ]


def evidence(
    config: ExperimentConfig,
    summary: dict,
    datasets: Sequence[str],
    shifts: list[dict[str, Any]],
    records: list[dict[str, Any]],
) -> str:
    """Bullet points with the figures of this run that bear on the known reasons (all computed here)."""
    lines: list[str] = []
    if config.name == "graph-pareto":
        lines += _graph_pareto_evidence(config, summary, datasets)
    elif config.name == "graph-agg":
        lines += _shift_evidence(config, shifts, records)
    else:
        lines += _extreme_evidence(config, summary)
    return "\n".join(lines)


def why_different(
    config: ExperimentConfig,
    summary: dict,
    paper: dict,
    datasets: Sequence[str],
    records: list[dict[str, Any]],
) -> str:
    """The budget-shift table, this run's evidence and the known reasons, as Markdown."""
    shifts = budget_shifts(config, summary, paper, datasets)
    parts = [
        shift_table(shifts),
        evidence(config, summary, datasets, shifts, records),
        REASONS.get(config.name, ""),
    ]
    return "\n\n".join(p for p in parts if p)
