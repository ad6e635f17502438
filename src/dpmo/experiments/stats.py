"""Statistics of the results CSVs: mean and 95% Student t interval of each metric per cell.

A cell is one ``(dataset, method, epsilon)`` of an experiment; :func:`summarize` groups the repetitions of
the rows into cells and :func:`mean_ci` gives each metric's mean with its two-sided Student t interval of
the mean (:class:`Stat`). Intervals of fractions (:data:`UNIT_METRICS`) are clipped to [0, 1]. The tables
(:mod:`dpmo.experiments.tables`), figures (:mod:`dpmo.experiments.figures`) and ``report.md``
(:mod:`dpmo.experiments.report`) are all drawn from these summaries.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["Stat", "UNIT_METRICS", "mean_ci", "summarize"]


class Stat(tuple):
    """``(n, mean, lo, hi)`` of one metric in one cell.

    Examples
    --------
    >>> from dpmo.experiments.stats import Stat
    >>> s = Stat(2, 0.5, 0.4, 0.6)
    >>> s.n, s.mean, s == (2, 0.5, 0.4, 0.6)
    (2, 0.5, True)
    """

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
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
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
