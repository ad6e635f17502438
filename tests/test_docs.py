"""The documentation site builds without warnings, and the "start here" tutorial runs as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.slow
def test_sphinx_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    # -W: every warning (broken reference, malformed docstring, page missing from the toctree) fails;
    # -b dummy reads and resolves everything (autodoc included) without writing HTML
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "dummy"]
    cmd += [str(DOCS), str(tmp_path / "out"), "-d", str(tmp_path / "doctrees")]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-5000:]


def test_every_page_is_in_the_site():
    index = (DOCS / "index.md").read_text()
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    listed = set(re.findall(r"^([a-z0-9-]+)$", index, re.M))
    assert pages <= listed, f"pages missing from docs/index.md's toctree: {sorted(pages - listed)}"
    assert {"start-here", "privacy-accounting", "errata"} <= pages


@pytest.mark.slow
def test_start_here_tutorial_runs(tmp_path):
    pytest.importorskip("networkx")
    pytest.importorskip("pandas")
    text = (DOCS / "start-here.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    script = tmp_path / "tutorial.py"
    script.write_text("\n".join(blocks))
    src = Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "1.5 0.5" in out  # the budget after spending 1.0 and 0.5 of 2.0
    assert "refused:" in out
    assert (tmp_path / "patients.csv").exists() and (tmp_path / "friends.csv").exists()
