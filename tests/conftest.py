"""Shared fixtures. Real datasets are read from ``../shared/data`` beside the repository (never copied in)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests: no per-example deadline (CI machines are shared and slow at times) and a derandomised
# search, so that a run is reproducible; each test still explores many generated cases.
settings.register_profile("dpmo", deadline=None, derandomize=True)
settings.load_profile("dpmo")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DPMO_DATA_DIR", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder holding the real datasets; tests that need it are skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real datasets not found in {SHARED_DATA} (set DPMO_DATA_DIR)")
    return SHARED_DATA
