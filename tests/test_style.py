"""The code is ``ruff`` clean, lint and format, as the project's configuration (pyproject.toml) asks.

ruff is pinned to one minor release in the ``test`` extra, because its rule sets and its format style change
between minor releases; a new release is taken on purpose (bump the pin, fix what it finds).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ["src", "tests", "benchmarks"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    pytest.importorskip("ruff", reason="ruff comes with the test extra (pip install -e '.[test]')")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *TREES], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_ruff_lint_is_clean():
    done = _ruff("check", "--no-cache", "--output-format", "concise")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_ruff_format_is_clean():
    done = _ruff("format", "--check", "--no-cache")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
