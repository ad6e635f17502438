"""The ``dpmo`` command line.

``dpmo reproduce EXPERIMENT``
    Reproduce a table or figure of the paper (``tree-pareto``, ``tree-agg``, ``graph-pareto``,
    ``graph-agg``, or ``all``) in parallel, resumably, with tables, figures and ``report.md``.
``dpmo topk GRAPH_FILE``
    Private top-k influential nodes (DP-MOTkIN) of your own graph.
``dpmo trees CSV_FILE --label COL``
    A private cost-sensitive decision tree (DP-MOET) on your own table.
``dpmo id3 CSV_FILE --label COL``
    A private ID3 tree (DiffP-ID3, or LocalDiffPID3 with local dampening) on your own table.
``dpmo select CANDIDATES --objective COL=SENS ...``
    The paper's general problem: k of the rows of a candidate table, by several objective columns.
``dpmo --version``

Bad input gives one line on stderr (``dpmo: error: ...``) and exit status 2; never a traceback
(set ``DPMO_DEBUG=1`` to see one for an internal error).

Layout: :mod:`.args` (argument types, :class:`CLIError`), :mod:`.parser` (:func:`build_parser`),
:mod:`.options` (options shared by the commands), :mod:`.reproduce`, :mod:`.applications` and
:mod:`.select_command` (the commands; ``select --spark`` in :mod:`.select_spark`), :mod:`.explain`
(``--explain``); the orchestration of ``reproduce`` lives in :mod:`dpmo.experiments.orchestrate`. ``python -m
dpmo.cli`` runs :func:`main`.

Answers at once: the parser imports nothing beyond the standard library and ``dpmo``'s name tables, and a
command's module (numpy, numba, the applications) is imported only when that command runs
(:data:`COMMANDS`), so ``--version``, ``--help`` and argument errors never load the compiled kernels.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from .._status import exit_status
from .args import CLIError
from .parser import build_parser

__all__ = ["main", "build_parser", "CLIError", "COMMANDS"]

#: Command -> (module of :mod:`dpmo.cli`, function): imported when the command runs.
COMMANDS = {
    "reproduce": ("reproduce", "reproduce_command"),
    "topk": ("applications", "topk_command"),
    "trees": ("applications", "trees_command"),
    "id3": ("applications", "id3_command"),
    "select": ("select_command", "select_command"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpmo`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        module, function = COMMANDS[args.command]
        command = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return command(args)
    except CLIError as exc:
        print(f"dpmo: error: {exc}", file=sys.stderr)
        return 2
    except BaseException as exc:  # the rule of dpmo._status: one line and a status, or the traceback
        status = exit_status(exc)
        if status is None:
            raise
        return status
