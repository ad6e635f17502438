"""How many worker processes: the cores this process may use and the idle ones, for ``jobs="auto"``.

On the 2-core development machine shared with other work, a pool of 2 workers was up to 2.3x slower than
one process on the quick grid, and 1.75x faster on an idle machine with more work (docs/experiments.md).
``jobs="auto"`` therefore starts in this process and starts a pool only when the work left is long enough
to repay the pool's start and other cores were seen idle meanwhile.
"""

from __future__ import annotations

import os

__all__ = [
    "AUTO_SERIAL_SECONDS",
    "AUTO_WINDOW_SECONDS",
    "auto_workers",
    "cpu_times",
    "idle_cores",
    "parse_jobs",
    "usable_cores",
]


def usable_cores() -> int:
    """The cores this process may run on (``os.sched_getaffinity`` where available, else ``os.cpu_count``).

    Examples
    --------
    >>> from dpmo.experiments.cores import usable_cores
    >>> usable_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def parse_jobs(value: int | str) -> int | str:
    """``--jobs``: ``"auto"``, a whole number >= 1, or -1 for every core (:func:`os.cpu_count`); else
    ``ValueError`` saying what is allowed. O(1).

    Examples
    --------
    >>> from dpmo.experiments.cores import parse_jobs
    >>> parse_jobs(" Auto "), parse_jobs("2"), parse_jobs(-1) >= 1
    ('auto', 2, True)
    """
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"expected auto or a whole number, got {value!r}") from None
    if n == -1:
        return os.cpu_count() or 1
    if n < 1:
        raise ValueError(f"must be auto, at least 1, or -1 for all cores, got {n}")
    return n


#: ``jobs="auto"`` runs tasks in this process while the estimated time of the runs left is under this many
#: seconds; only longer work is worth a pool's start (measurements: docs/experiments.md).
AUTO_SERIAL_SECONDS = 3.0
#: Shortest stretch of in-process work over which ``jobs="auto"`` measures the machine's idle cores.
AUTO_WINDOW_SECONDS = 1.0


def cpu_times() -> tuple[int, int] | None:
    """``(idle, total)`` CPU time of the whole machine in clock ticks (Linux ``/proc/stat``), or None.

    Examples
    --------
    >>> from dpmo.experiments.cores import cpu_times
    >>> sample = cpu_times()
    >>> sample is None or 0 <= sample[0] <= sample[1]
    True
    """
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
        ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
        return ticks[3] + ticks[4], sum(ticks)
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return None


def idle_cores(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """Cores left idle between two :func:`cpu_times` samples (None when unknown). O(1).

    Examples
    --------
    >>> from dpmo.experiments.cores import idle_cores
    >>> import os
    >>> round(idle_cores((100, 1000), (150, 1100)) / (os.cpu_count() or 1), 2)  # half the ticks idle
    0.5
    >>> idle_cores(None, (150, 1100)) is None
    True
    """
    if before is None or after is None or after[1] <= before[1]:
        return None
    share = (after[0] - before[0]) / (after[1] - before[1])
    return max(0.0, share) * (os.cpu_count() or 1)


def auto_workers(idle: float | None, cores: int) -> int:
    """Workers for ``jobs="auto"``: this process plus the idle cores seen while it worked alone.

    ``idle`` is measured while this process keeps one core busy; an other core counts when at least half of
    it was idle. Unknown (``None``) means all ``cores``. O(1).

    Examples
    --------
    >>> from dpmo.experiments.cores import auto_workers
    >>> auto_workers(1.0, 2)  # the other core was idle: use both
    2
    >>> auto_workers(0.2, 2)  # the machine is busy with other work: stay in this process
    1
    >>> auto_workers(None, 4)
    4
    """
    if idle is None:
        return max(1, cores)
    return max(1, min(cores, 1 + int(idle + 0.5)))
