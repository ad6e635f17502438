"""``--delta`` on every command: the release is (epsilon, delta)-DP and the header says what was spent in
both units; the paper's rows of ``dpmo reproduce`` stay pure, ``--delta`` adds labelled improvement rows."""

from __future__ import annotations

import numpy as np
import pytest

from dpmo.cli import main
from dpmo.cli.parser import build_parser
from dpmo.experiments.runner import read_rows


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_takes_delta():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # noqa: SLF001 - argparse has no public accessor
    for name, sub in commands.items():
        assert any("--delta" in a.option_strings for a in sub._actions), name


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "x"])
def test_bad_delta_is_one_line(bad, capsys):
    code, out, err = _run(["topk", "/no/such/file", "--delta", bad], capsys)
    assert code == 2 and out == "" and "delta must be" in err and "Traceback" not in err


def test_topk_and_id3_headers_say_both_units(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_text("\n".join(f"{u} {v}" for u, v in [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5)]))
    base = ["topk", str(path), "-k", "2", "--n-nodes", "6", "--seed", "1"]
    code, out, err = _run([*base, "--delta", "1e-6"], capsys)
    assert code == 0, err
    assert "epsilon=1, delta=1e-06" in out.splitlines()[0]
    assert "spent epsilon 1 and delta 1e-06 in 2 recorded mechanism calls" in out.splitlines()[0]
    code, out, _ = _run(base, capsys)  # delta 0: the header as before
    assert "delta" not in out.splitlines()[0] and "spent in 2 recorded" in out.splitlines()[0]
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 200)
    y = (a == 1).astype(int)
    table = tmp_path / "t.csv"
    table.write_text("a,label\n" + "\n".join(f"{x},{t}" for x, t in zip(a, y, strict=True)))
    argv = ["id3", str(table), "--label", "label", "--categorical", "a", "--seed", "0", "--delta", "1e-6"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "delta=1e-06" in out.splitlines()[0] and "delta 1e-06" in out.splitlines()[0]
    code, out, err = _run(["trees", str(table), "--label", "label", "--categorical", "a", "--non-private",
                           "--delta", "1e-6"], capsys)  # fmt: skip
    assert code == 2 and "--non-private" in err


def test_select_takes_delta(tmp_path, capsys):
    path = tmp_path / "c.csv"
    path.write_text("id,acc\n" + "\n".join(f"r{i},{i / 10}" for i in range(10)))
    argv = ["select", str(path), "--objective", "acc=0.1", "-k", "3", "--id-column", "id", "--seed", "2"]
    code, out, err = _run([*argv, "--delta", "1e-6"], capsys)
    assert code == 0, err
    assert len(set(out.split())) == 3  # the ids only, as without --delta


def test_reproduce_delta_rows_are_labelled(tmp_path, capsys):
    out = tmp_path / "r"
    argv = ["reproduce", "graph-agg", "--quick", "--runs", "1", "--epsilons", "1", "--jobs", "1",
            "--progress", "off", "--no-report", "--out", str(out)]  # fmt: skip
    code, _, err = _run([*argv, "--delta", "1e-6", "--reading", "delta=1e-6"], capsys)
    assert code == 2 and "not both" in err
    code, _, err = _run([*argv, "--delta", "1e-6"], capsys)
    assert code == 0, err
    rows = read_rows(out / "graph-agg.csv")
    assert rows and {r["readings"] for r in rows} == {"delta=1e-06"}
