"""``python -m dpmo.experiments.verdict``: one command re-runs the readings table of docs/errata.md."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from dpmo.experiments.verdict import GROUPS, TABLE_HEADER, main, replace_table

ERRATA = Path(__file__).resolve().parents[1] / "docs" / "errata.md"


def test_the_errata_table_is_replaced_and_nothing_else():
    page = ERRATA.read_text()
    table = f"{TABLE_HEADER}\n|---|---|---|---|---|---|---|\n| new | row | - | - | - | - | - |"
    new = replace_table(page, table)
    old_lines, new_lines = page.splitlines(), new.splitlines()
    start = old_lines.index(TABLE_HEADER)
    end = start + 1
    while old_lines[end].startswith("|"):
        end += 1
    assert new_lines[:start] == old_lines[:start]
    assert new_lines[start : start + 3] == table.splitlines()
    assert new_lines[start + 3 :] == old_lines[end:]
    with pytest.raises(ValueError, match="no verdict table"):
        replace_table("no table here\n", table)


def test_table_command_rewrites_the_page_with_one_row_per_group(tmp_path):
    page = tmp_path / "errata.md"
    page.write_text(ERRATA.read_text())
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["table", "--out", str(tmp_path / "nothing-run"), "--errata", str(page)]) == 0
    lines = page.read_text().splitlines()
    start = lines.index(TABLE_HEADER)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert len(rows) == len(GROUPS)
    assert all(" 0 x 0 " in r for r in rows)  # nothing was run into that folder


def test_no_group_asks_for_a_tree_that_cannot_be_grown():
    # LocalDiffPID3 without the stopping rule at depth >= 10 on Adult: one child per public value, ~10^9
    # nodes; the fit never ends, so `verdict all` would hang there
    for g in GROUPS.values():
        if "adult" not in g.datasets:
            continue
        for reading in g.readings:
            parts = reading.split("+")
            deep = any(p.startswith("id3-depth=") and int(p.split("=")[1]) >= 10 for p in parts)
            assert not ("id3-no-stop" in parts and deep), (g.name, reading)
