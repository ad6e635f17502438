"""Compare two result folders of ``dpmo reproduce`` cell by cell: identical run by run, or within noise.

After a change of the code, the same ``dpmo reproduce`` command (same master seed) run before and after
gives two folders. Where the change preserves the random stream, every run must give the same row: the
comparison counts the rows that differ in any column except the timing ones (``seconds``,
``cpu_seconds``) and the settings fingerprint. Where the stream cannot be preserved, the runs differ and
only their distribution can be compared: for every cell (dataset, method, epsilon) and metric, is the new
mean inside the old run's 95% Student t interval of the mean (:func:`dpmo.experiments.mean_ci`)? Even with
no change at all, two independent samples of n runs each put the new mean outside the old interval in
about 17% of the cells (the difference of two means has sqrt(2) times the standard error of one), so the
table also gives Welch's two-sample t test per cell, the number of cells with p < 0.05 (about 5% of them
by chance) and the smallest p after Holm's correction over all cells and metrics.

Command line::

    python -m dpmo.experiments.compare OLD_DIR NEW_DIR [--experiments NAME ...] [--details N]

prints Markdown (a summary table per experiment, then the cells that differ); exit status 0 when every
experiment is identical run by run or has every cell inside the old interval, 1 otherwise, 2 on bad input.
Cost: O(rows) to read and group, plus one t quantile per cell and metric.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .results_csv import TIMING_COLUMNS, current_rows, metric_columns, read_rows
from .seeding import eps_text
from .stats import mean_ci

__all__ = ["CellDifference", "ExperimentComparison", "compare_rows", "compare_folders", "markdown", "main"]

#: Columns left out of the run-by-run identity check: the timings and the settings fingerprint (a
#: fingerprint of the configuration, compared on its own).
IGNORED_COLUMNS = (*TIMING_COLUMNS, "settings")


@dataclass(frozen=True)
class CellDifference:
    """One metric of one cell: the old mean and 95% interval, the new mean, Welch's p, differing rows."""

    dataset: str
    method: str
    epsilon: str
    metric: str
    old_n: int
    old_mean: float
    old_lo: float
    old_hi: float
    new_n: int
    new_mean: float
    p_value: float
    differing_rows: int

    @property
    def inside(self) -> bool:
        """The new mean lies in the old 95% interval (up to rounding)."""
        tol = 1e-12 * max(1.0, abs(self.old_mean))
        return self.old_lo - tol <= self.new_mean <= self.old_hi + tol


@dataclass
class ExperimentComparison:
    """The comparison of one experiment's CSV in two folders."""

    name: str
    old_runs: int = 0
    new_runs: int = 0
    compared: int = 0  # runs present in both folders
    differing: int = 0  # of them, rows with a different value in a compared column
    settings_differ: bool = False
    cells: list[CellDifference] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Every run present in both folders gives the same row, and both folders hold the same runs."""
        return self.compared > 0 and self.differing == 0 and self.old_runs == self.new_runs == self.compared

    @property
    def outside(self) -> list[CellDifference]:
        return [c for c in self.cells if not c.inside]

    @property
    def ok(self) -> bool:
        return self.identical or (bool(self.cells) and not self.outside)


def _key(row: dict[str, str]) -> tuple[str, str, str, int]:
    missing = [c for c in ("dataset", "method", "epsilon", "run") if c not in row]
    if missing:
        raise ValueError(f"a results CSV lacks the columns {missing} (not a CSV of dpmo reproduce)")
    try:
        return (row["dataset"], row["method"], eps_text(float(row["epsilon"])), int(row["run"]))
    except (TypeError, ValueError):
        raise ValueError("a row's 'epsilon' or 'run' is not a number (not a CSV of dpmo reproduce)") from None


def _metric_value(text: str | None, column: str) -> float:
    """A metric cell as a float; NaN when empty. ValueError naming the column when it is not a number."""
    if text in (None, ""):
        return math.nan
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ValueError(f"the metric column {column!r} holds a value that is not a number") from None


def _welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p value of Welch's t test of equal means; 1 or 0 when both samples are constant."""
    if a.size < 2 or b.size < 2:
        return math.nan
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    diff = float(b.mean() - a.mean())
    if va + vb == 0.0:
        return 1.0 if diff == 0.0 else 0.0
    from scipy.stats import t

    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    return float(2.0 * t.sf(abs(diff) / math.sqrt(va + vb), dof))


def compare_rows(
    name: str,
    old: Sequence[dict[str, str]],
    new: Sequence[dict[str, str]],
    metrics: Sequence[str] | None = None,
) -> ExperimentComparison:
    """Compare the rows of one experiment: run by run, then each cell's metrics.

    ``metrics`` default to the metric columns of the rows (between ``run`` and ``readings``). A run is
    identified by (dataset, method, epsilon, run); when a folder holds a run twice, the last row counts.
    O(rows).

    Examples
    --------
    >>> from dpmo.experiments.compare import compare_rows
    >>> old = [{"dataset": "d", "method": "m", "epsilon": "1.0", "run": str(r), "score": str(r % 2),
    ...         "seconds": "0.1"} for r in range(6)]
    >>> new = [dict(r, seconds="0.3") for r in old]  # other timings only
    >>> res = compare_rows("toy", old, new, ["score"])
    >>> res.identical, res.compared, res.differing
    (True, 6, 0)
    >>> new[0]["score"] = "1"  # one run changes: the mean 0.667 stays inside the old 95% interval
    >>> res = compare_rows("toy", old, new, ["score"])
    >>> res.identical, res.differing, res.ok, res.cells[0].inside
    (False, 1, True, True)
    """
    old_by = {_key(r): r for r in old}
    new_by = {_key(r): r for r in new}
    if metrics is None:
        header = list((old or new or [{}])[0])
        metrics = metric_columns(header)
    res = ExperimentComparison(name, old_runs=len(old_by), new_runs=len(new_by))
    diff_cells: dict[tuple, int] = defaultdict(int)
    for key in old_by.keys() & new_by.keys():
        a, b = old_by[key], new_by[key]
        res.compared += 1
        res.settings_differ |= a.get("settings") != b.get("settings")
        cols = (set(a) | set(b)) - set(IGNORED_COLUMNS)
        if any(a.get(c) != b.get(c) for c in cols):
            res.differing += 1
            diff_cells[key[:3]] += 1
    values: dict[tuple, dict[str, tuple[list[float], list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: ([], []))
    )
    for side, rows in ((0, old_by), (1, new_by)):
        for key, r in rows.items():
            for m in metrics:
                x = _metric_value(r.get(m), m)
                if math.isfinite(x):  # NaN (undefined in that run) or inf: missing, as in the report
                    values[key[:3]][m][side].append(x)
    for cell in sorted(values, key=lambda c: (c[0], c[1], float(c[2]))):
        for m, (a, b) in values[cell].items():
            if not a or not b:
                continue
            s = mean_ci(a)
            xa, xb = np.asarray(a), np.asarray(b)
            res.cells.append(
                CellDifference(*cell, m, s.n, s.mean, s.lo, s.hi, xb.size, float(xb.mean()),
                               _welch_p(xa, xb), diff_cells.get(cell, 0))
            )  # fmt: skip
    return res


def _settings(folder: Path, name: str) -> dict[str, str] | None:
    try:
        return json.loads((folder / "meta.json").read_text())[name]["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def compare_folders(
    old: str | Path, new: str | Path, experiments: Sequence[str] | None = None
) -> list[ExperimentComparison]:
    """Compare every experiment CSV present in both folders (or those named in ``experiments``).

    Only the rows of each folder's last settings (``meta.json``) are used, as in its report. Raises
    ValueError when a folder is missing or no experiment is in both.

    Examples
    --------
    >>> import contextlib, io, tempfile, shutil
    >>> from dpmo.experiments import run_experiment, toy_experiment
    >>> from dpmo.experiments.compare import compare_folders
    >>> a, b = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> for folder in (a, b):
    ...     _ = run_experiment(toy_experiment(), {"toy": []}, folder, seed=0, jobs=1, progress="off")
    >>> [(c.name, c.identical) for c in compare_folders(a, b)]
    [('toy', True)]
    >>> shutil.rmtree(a); shutil.rmtree(b)
    """
    old, new = Path(old), Path(new)
    for folder in (old, new):
        if not folder.is_dir():
            raise ValueError(f"{folder} is not a folder")
    names = list(experiments) if experiments else sorted(
        p.stem for p in old.glob("*.csv") if (new / p.name).is_file()
    )  # fmt: skip
    if not names:
        raise ValueError(f"no results CSV in both {old} and {new}")
    out = []
    for name in names:
        a = current_rows(read_rows(old / f"{name}.csv"), _settings(old, name))
        b = current_rows(read_rows(new / f"{name}.csv"), _settings(new, name))
        if not a or not b:
            raise ValueError(f"{name}: no rows in {old if not a else new}")
        out.append(compare_rows(name, a, b))
    return out


def _holm_min(p_values: Sequence[float]) -> float:
    """The smallest Holm-adjusted p value, ``min(1, m p_(1))`` over the m finite p values."""
    p = [x for x in p_values if not math.isnan(x)]
    return min(1.0, len(p) * min(p)) if p else math.nan


def _verdict(c: ExperimentComparison) -> str:
    if not c.cells:
        return "no cell in both folders"
    if c.identical:
        return "identical run by run"
    if c.compared and c.differing == 0:
        return "identical on the common runs"
    if not c.outside:
        return "every cell inside"
    return f"{len(c.outside)} cell-metrics outside"


def markdown(comparisons: Sequence[ExperimentComparison], details: int = 20) -> str:
    """The comparison as Markdown: one summary row per experiment, then up to ``details`` cells that
    changed (outside the old interval first, then those with differing rows).

    Examples
    --------
    >>> from dpmo.experiments.compare import compare_rows, markdown
    >>> rows = [{"dataset": "d", "method": "m", "epsilon": "1.0", "run": "0", "score": "0.5"}]
    >>> print(markdown([compare_rows("toy", rows, rows, ["score"])]).splitlines()[2])
    | toy | 1 | 1 / 1 | 1 | 0 | 0 / 1 | 0 / 1 (0.1 expected) | - | identical run by run |
    """
    lines = [
        "| experiment | cells | runs old / new | runs compared | rows differing | new mean outside old 95% "
        "interval | Welch p < 0.05 | smallest p (Holm) | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    changed: list[tuple[str, CellDifference]] = []
    for c in comparisons:
        n_cells = len({(d.dataset, d.method, d.epsilon) for d in c.cells})
        p = [d.p_value for d in c.cells]
        low = sum(1 for x in p if x < 0.05)
        holm = _holm_min(p)
        holm_text = "-" if math.isnan(holm) else f"{holm:.3g}"
        verdict = _verdict(c) + (" (settings fingerprints differ)" if c.settings_differ else "")
        lines.append(
            f"| {c.name} | {n_cells} | {c.old_runs} / {c.new_runs} | {c.compared} | {c.differing} | "
            f"{len(c.outside)} / {len(c.cells)} | {low} / {len(c.cells)} "
            f"({0.05 * len(c.cells):.1f} expected) | {holm_text} | {verdict} |"
        )
        changed += [(c.name, d) for d in c.outside]
        changed += [(c.name, d) for d in c.cells if d.inside and d.differing_rows]
    if changed and details > 0:
        lines += [
            "",
            "| experiment | dataset | method | epsilon | metric | old mean [95%] (n) | new mean (n) "
            "| Welch p | rows differing |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, d in changed[:details]:
            mark = "" if d.inside else " **outside**"
            lines.append(
                f"| {name} | {d.dataset} | {d.method} | {d.epsilon} | {d.metric} | {d.old_mean:.4f} "
                f"[{d.old_lo:.4f}, {d.old_hi:.4f}] ({d.old_n}) | {d.new_mean:.4f} ({d.new_n}){mark} | "
                f"{d.p_value:.3g} | {d.differing_rows} |"
            )
        if len(changed) > details:
            lines.append(f"\n({len(changed) - details} more; `--details N` shows more)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpmo.experiments.compare OLD NEW``: print the comparison, exit 0 when it holds."""
    parser = argparse.ArgumentParser(
        prog="python -m dpmo.experiments.compare", description=__doc__.splitlines()[0]
    )
    parser.add_argument("old", help="result folder of the code before (the reference)")
    parser.add_argument("new", help="result folder of the code after")
    parser.add_argument("--experiments", nargs="+", help="experiment names (default: every CSV in both)")
    parser.add_argument("--details", type=int, default=20, help="cells listed below the summary (20)")
    args = parser.parse_args(argv)
    try:
        comparisons = compare_folders(args.old, args.new, args.experiments)
    except ValueError as exc:
        print(f"compare: error: {exc}", file=sys.stderr)
        return 2
    print(markdown(comparisons, args.details))
    return 0 if all(c.ok for c in comparisons) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
