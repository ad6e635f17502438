"""Progress of a long run that also shows in a log: a bar on a terminal, plain lines everywhere else.

``dpmo reproduce all > log 2>&1`` (a pipe, a file, a CI job) gets lines such as::

    dpmo: tree-pareto: 350/700 runs (50%), cells 7/14, 8.4 s elapsed, about 8.4 s left

one each time the run crosses a multiple of ``percent`` per cent (at most one a second), at least one every
``seconds`` while runs finish, and one at the end. On a terminal a tqdm bar is drawn instead.

The time left is estimated from the work done *after the warm-up*: the first runs of a process pay for
compiling the kernels, loading the data and importing scikit-learn (seconds, against milliseconds per run
later), so the rate is measured from the end of the first update on, ``(now - t_1) / (done - done_1)`` per
run, and a line before any run has finished after that says no time left at all. (Extrapolating from the
start made the first line of ``dpmo reproduce all --quick`` say "about 43.6 min left" for a run that ended
13 s later.)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["PROGRESS_MODES", "ProgressLines", "make_progress"]

#: Accepted values of ``progress`` (``dpmo reproduce --progress``): ``auto`` = a bar when stderr is a
#: terminal, lines otherwise.
PROGRESS_MODES = ("auto", "bar", "lines", "off")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressLines:
    """Plain progress lines on ``stream`` (default ``sys.stderr``), for logs and pipes.

    Parameters
    ----------
    total : int
        Runs to do.
    desc : str
        Name shown at the start of each line (the experiment).
    stream : file, optional
        Where the lines go; default ``sys.stderr`` (looked up at each line).
    seconds : float
        Longest silence between two lines while runs finish.
    percent : int
        A line each time the share of runs done crosses a multiple of ``percent``.
    min_interval : float
        Shortest time between two lines, except the last one.
    clock : callable
        Time source (``time.monotonic``); tests pass a fake one.

    Notes
    -----
    O(1) per update. Lines are written only when a task finishes (no thread), so a single task longer than
    ``seconds`` shows as a longer gap.

    Examples
    --------
    >>> import io
    >>> from dpmo.experiments.progress import ProgressLines
    >>> out = io.StringIO()
    >>> bar = ProgressLines(4, "toy", stream=out, min_interval=0.0)
    >>> for _ in range(4):
    ...     bar.update(1)
    >>> bar.close()
    >>> lines = out.getvalue().splitlines()
    >>> lines[-1].startswith("dpmo: toy: 4/4 runs (100%)")
    True
    >>> len(lines) == 4  # each run crossed a multiple of 10%
    True
    """

    def __init__(
        self,
        total: int,
        desc: str,
        *,
        stream: TextIO | None = None,
        seconds: float = 30.0,
        percent: int = 10,
        min_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = max(0, int(total))
        self.desc = desc
        self.stream = stream
        self.seconds = float(seconds)
        self.percent = max(1, int(percent))
        self.min_interval = float(min_interval)
        self.clock = clock
        self.done = 0
        self.cells: str | None = None
        self.start = clock()
        self._warm: tuple[float, int] | None = None  # (time, runs done) at the end of the first update
        self.last = self.start
        self._step = 0  # multiples of `percent` already reported
        self._closed = False
        self._last_done = -1

    def _write(self, now: float) -> None:
        elapsed = now - self.start
        pct = 100.0 * self.done / self.total if self.total else 100.0
        text = f"dpmo: {self.desc}: {self.done}/{self.total} runs ({pct:.0f}%)"
        if self.cells:
            text += f", cells {self.cells}"
        text += f", {_duration(elapsed)} elapsed"
        left = self.seconds_left(now)
        if left is not None:
            text += f", about {_duration(left)} left"
        print(text, file=self.stream or sys.stderr, flush=True)
        self.last = now
        self._last_done = self.done

    def seconds_left(self, now: float) -> float | None:
        """Seconds left at the rate of the runs done after the first update (None: no such run yet, or
        nothing left)."""
        if self._warm is None or not 0 < self.done < self.total:
            return None
        t1, d1 = self._warm
        if self.done <= d1 or now <= t1:
            return None
        return (now - t1) / (self.done - d1) * (self.total - self.done)

    def update(self, n: int = 1, cells: str | None = None) -> None:
        """Count ``n`` more runs done (and the cells done, e.g. ``"3/14"``); print a line when one is due."""
        self.done += int(n)
        if cells is not None:
            self.cells = cells
        now = self.clock()
        if self._warm is None:  # the warm-up ends with the first runs done
            self._warm = (now, self.done)
        step = int(100 * self.done / self.total // self.percent) if self.total else 0
        crossed = step > self._step
        if self.done >= self.total:
            return  # the last line is written by close()
        if (crossed and now - self.last >= self.min_interval) or now - self.last >= self.seconds:
            self._step = step
            self._write(now)

    def set_postfix_str(self, text: str) -> None:  # tqdm's name, so that callers treat both alike
        self.cells = text.removeprefix("cells ")

    def close(self) -> None:
        """Write the final line (once)."""
        if not self._closed:
            self._closed = True
            if self.done != self._last_done:
                self._write(self.clock())


def make_progress(total: int, desc: str, mode: Any = "auto") -> Any:
    """A progress reporter with ``update(n)``, ``set_postfix_str(text)`` and ``close()``, or None.

    ``mode``: one of :data:`PROGRESS_MODES`; also None (= ``"auto"``), True (= ``"bar"``) and False
    (= ``"off"``). ``"bar"`` falls back to lines when tqdm is not installed.

    Examples
    --------
    >>> from dpmo.experiments.progress import ProgressLines, make_progress
    >>> make_progress(10, "toy", "off") is None
    True
    >>> isinstance(make_progress(10, "toy", "lines"), ProgressLines)
    True
    """
    if mode is None:
        mode = "auto"
    elif mode is True:
        mode = "bar"
    elif mode is False:
        mode = "off"
    if mode not in PROGRESS_MODES:
        raise ValueError(f"progress must be one of {', '.join(PROGRESS_MODES)}, got {mode!r}")
    if mode == "off":
        return None
    if mode == "auto":
        mode = "bar" if sys.stderr.isatty() else "lines"
    if mode == "bar":
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - tqdm is in the experiments extra
            mode = "lines"
        else:
            return tqdm(total=total, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)
    return ProgressLines(total, desc)
