"""The fork guard of :class:`dpmo.Budget`: a budget spends only in the process that made it.

A fork (``os.fork``; ``multiprocessing``'s ``fork`` start method, the default on Linux before Python 3.14)
copies every object into the child without pickling it, so a budget's refusal to be copied
(``Budget.__reduce_ex__``) never runs: three forked workers each spent all of a module-level ``Budget(1.0)``
while the parent showed nothing spent. :data:`generation` counts the forks between the process that
imported ``dpmo`` and this one (:func:`os.register_at_fork` advances it in every forked child); a budget
records it when it is made and refuses to spend where it differs (:func:`refuse`). The budget also records
the id of the process that made it (``os.getpid()``) and refuses where the current one differs: that state
lives in the budget itself, so neither ``importlib.reload(dpmo._fork)`` nor ``dpmo._fork.generation = 0``
in a forked child lets it spend there (issue 37, point 13). Cost on the spend path: a comparison of two ints
and one ``os.getpid()``. See ``docs/privacy-accounting.md``, "Copies and other processes" (threat model).
"""

from __future__ import annotations

import os

__all__ = ["generation", "refuse"]

#: 0 in the process that imported dpmo; one more in every child forked from a process (read it as
#: ``_fork.generation``, never ``from ._fork import generation``: the hook rebinds it).
generation = 0


def _forked_child() -> None:
    global generation
    generation += 1


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_forked_child)


def refuse(docs: str):
    """Raise the :class:`RuntimeError` of a budget asked to spend in a process forked after it was made."""
    raise RuntimeError(
        "this dpmo.Budget was made in a parent process and reached this one through a fork "
        "(multiprocessing's 'fork' start method, os.fork): its spends here would never reach the parent's "
        "budget, so together they could spend more than its epsilon; it refuses to spend (nothing was "
        "recorded). Spend from the budget in the process that made it (n_jobs=1, or joblib's threading "
        "backend), or record the workers' shares there (budget.spend(eps_i, 'worker i') or "
        "budget.split([...])) and give each worker its epsilon as a number (epsilon=eps_i, budget=None); "
        f"see {docs}, 'Copies and other processes'"
    )
