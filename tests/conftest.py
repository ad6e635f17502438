"""Shared fixtures. Real datasets are read from ``../shared/data`` beside the repository (never copied in)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DPMO_DATA_DIR", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder holding the real datasets; tests that need it are skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real datasets not found in {SHARED_DATA} (set DPMO_DATA_DIR)")
    return SHARED_DATA
