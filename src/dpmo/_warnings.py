"""Warnings that name the user's line: :func:`warn_at_caller`."""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn_at_caller"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn(message, category)`` at the first frame outside the ``dpmo`` package: the line of the
    user's code that started the call, not the pipeline's (Python 3.11 has no ``skip_file_prefixes``).
    O(depth of the stack)."""
    frame, level = sys._getframe(1), 2  # level 1: this function; 2: its caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
