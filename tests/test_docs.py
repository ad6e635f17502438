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
    # -b dummy reads and resolves everything (autodoc included) without writing HTML; smartquotes=0 skips
    # docutils' SmartQuotes transform, which only turns straight quotes of the text into typographic ones
    # for the HTML (it warns about nothing): about 1.8 s of the build's 22 s of CPU
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "dummy"]
    cmd += ["-D", "smartquotes=0"]
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


def _titles(page: Path) -> list[str]:
    """Headings and bold run-in titles (``**Title.**`` opening a line or list item) of a page, casefolded."""
    text = page.read_text()
    found = re.findall(r"^#+ (.*)$", text, re.M)
    found += re.findall(r"^\s*(?:[*-]\s+)?\*\*(.+?)\*\*", text, re.M | re.S)
    return [re.sub(r"\s+", " ", t).strip().casefold() for t in found]


# `docs/X.md, "Title"`, ``docs/X.md``, "Title", `docs/X.md` ("Title", [`docs/X.md`](X.md), "Title", and
# [text](X.md), "Title" inside the docs; further titles joined by "and" or "," are checked too
_CITATION = re.compile(
    r"(?:docs/([a-z0-9-]+)\.md`{0,2}(?:\]\([^)]*\))?|\]\(([a-z0-9-]+)\.md\))\)?(?:\s*,\s*|\s*\(\s*)"
    r"([\"'])((?:(?!\3).){2,}?)\3((?:\s*(?:,|and)\s*\"[^\"]{2,}?\")*)"
)


def _citations(text: str, python: bool):
    if python:  # join implicit string concatenation and comment continuations across lines
        text = re.sub(r"[\"']\s*\n\s*[fr]?[\"']", "", text)
        text = re.sub(r"\n\s*#:?", "\n", text)
    text = re.sub(r"\s+", " ", text)
    for m in _CITATION.finditer(text):
        page = m.group(1) or m.group(2)
        for title in [m.group(4), *re.findall(r"\"([^\"]+)\"", m.group(5) or "")]:
            yield page, title.strip()


def test_every_cited_section_exists():
    """A citation such as ``docs/pareto.md``, "The Pareto gate" names a heading (or part of one, or a
    bold run-in title) of that page: moving or renaming a section must update the code and docs citing it."""
    root = DOCS.parent
    dirs = ("src", "tests", "benchmarks", "docs")
    files = [p for d in dirs for p in (root / d).rglob("*") if p.suffix in (".py", ".md")]
    files.append(root / "README.md")
    titles = {p.stem: _titles(p) for p in DOCS.glob("*.md")}
    checked, broken = 0, []
    for f in files:
        for page, title in _citations(f.read_text(), f.suffix == ".py"):
            checked += 1
            if not any(title.casefold() in t for t in titles.get(page, [])):
                broken.append(f"{f.relative_to(root)}: docs/{page}.md, {title!r}")
    assert checked >= 100  # the pattern still finds the repository's citations
    assert not broken, "\n".join(broken)


def test_citation_check_catches_a_missing_section():
    # built at run time, so that the scan above does not read it as a citation
    sample = 'see ``docs/{}.md``, "No such\n    section" and "The Pareto gate"'.format("pareto")
    cited = list(_citations(sample, True))
    assert cited == [("pareto", "No such section"), ("pareto", "The Pareto gate")]
    titles = _titles(DOCS / "pareto.md")
    assert not any("no such section" in t for t in titles)
    assert any("the pareto gate" in t for t in titles)
