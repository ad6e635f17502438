"""The exit status of a command that raised: one rule for ``dpmo`` (:func:`dpmo.cli.main`) and for the
drivers that make its commands' library calls themselves (:func:`dpmo.experiments.verdict.run_group`).

Standard library only, and :mod:`dpmo.budget` is never imported here: the command line answers ``--help``
and argument errors without numpy.
"""

from __future__ import annotations

import os
import sys

__all__ = ["exit_status"]


def _budget_exceeded(exc: BaseException) -> bool:
    """Whether ``exc`` is a :class:`dpmo.BudgetExceededError` (only possible once :mod:`dpmo.budget` is
    imported: the check never imports it)."""
    budget = sys.modules.get("dpmo.budget")
    return budget is not None and isinstance(exc, budget.BudgetExceededError)


def exit_status(exc: BaseException) -> int | None:
    """Report ``exc`` in one line on stderr and return the exit status, or None when it must be re-raised.

    2 for an error of the input (``OSError``, ``ValueError``, ``TypeError``, ``ImportError``,
    ``RuntimeError``, :class:`dpmo.BudgetExceededError`), 130 for an interrupt, 1 for any other
    ``Exception`` (an internal error). None, with nothing printed, for any other ``BaseException``
    (``SystemExit`` among them) and, with ``DPMO_DEBUG`` set, for every error but an interrupt, so that its
    traceback is shown.

    Examples
    --------
    >>> import contextlib, io
    >>> from dpmo._status import exit_status
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     codes = [exit_status(e) for e in (ValueError("bad"), KeyboardInterrupt(), KeyError("k"))]
    >>> codes, err.getvalue().splitlines()[:2]
    ([2, 130, 1], ['dpmo: error: bad', 'dpmo: interrupted'])
    >>> exit_status(SystemExit(0)) is None
    True
    """
    debug = bool(os.environ.get("DPMO_DEBUG"))
    if isinstance(exc, KeyboardInterrupt):
        print("dpmo: interrupted", file=sys.stderr)
        return 130
    if isinstance(exc, (OSError, ValueError, TypeError, ImportError, RuntimeError)):
        if debug:
            return None
        print(f"dpmo: error: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, Exception):  # an internal error: still one line unless debugging
        if debug:
            return None
        print(
            f"dpmo: internal error: {type(exc).__name__}: {exc} (set DPMO_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1
    # BudgetExceededError is a BaseException (so scikit-learn loops stop on it)
    if not _budget_exceeded(exc) or debug:
        return None
    print(f"dpmo: error: {exc}", file=sys.stderr)
    return 2
