"""``dpmo select`` (the paper's general problem on a candidate table), ``dpmo id3`` and ``dpmo --version``
(issue 23, point 5): the release only, the library's picks for the same seed, one-line errors that name the
file and the problem and never a private value."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import dpmo
from dpmo.cli import main


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _error(argv, capsys) -> str:
    code, out, err = _run(argv, capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("dpmo: error: "), err
    return lines[0]


A = [0.3, 2.0, 1.5, 0.1, 3.0, 2.2, 0.9, 1.1]
B = [4.0, 0.5, 2.5, 3.9, 0.2, 1.0, 3.0, 2.0]
IDS = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "candidates.csv"
    rows = [f"{i},{a},{b}" for i, a, b in zip(IDS, A, B, strict=True)]
    path.write_text("id,a,b\n" + "\n".join(rows) + "\n")
    return path


def _python(k, seed, approach="pareto", weights=None, b_min=False, **kw):
    objs = [dpmo.Objective(A, 1.0, name="a"), dpmo.Objective(-np.array(B) if b_min else B, 1.0, name="b")]
    picks = dpmo.select_multiobjective(objs, 1.0, approach=approach, weights=weights, k=k, rng=seed, **kw)
    return [IDS[i] for i in picks]


def test_the_contract_command_prints_the_ids_of_the_picks_and_nothing_else(table, capsys):
    argv = ["select", str(table), "-k", "3", "--epsilon", "1", "--objective", "a=1", "--objective", "b=1"]
    code, out, err = _run([*argv, "--id-column", "id", "--seed", "0"], capsys)
    assert code == 0 and err == ""
    assert out.splitlines() == _python(3, 0)  # same seed, same picks as the library (exact by default)
    code, out, _ = _run([*argv, "--seed", "0"], capsys)  # no --id-column: row numbers
    assert out.splitlines() == [str(IDS.index(v)) for v in _python(3, 0)]


@pytest.mark.parametrize("seed", [1, 2])
def test_approaches_directions_and_samplers_match_the_library(table, capsys, seed):
    base = ["select", str(table), "-k", "2", "--id-column", "id", "--seed", str(seed), "--objective", "a=1"]
    _, out, _ = _run([*base, "--objective", "b=1:min"], capsys)
    assert out.splitlines() == _python(2, seed, b_min=True)
    _, out, _ = _run([*base, "--objective", "b=1", "--approach", "agg", "--weights", "1", "3"], capsys)
    assert out.splitlines() == _python(2, seed, "agg", (1.0, 3.0))
    _, out, _ = _run([*base, "--objective", "b=1", "--approach", "chebyshev", "--float-sampler"], capsys)
    assert out.splitlines() == _python(2, seed, "chebyshev", exact=False)
    _, out, _ = _run(
        [*base, "--objective", "b=1", "--sensitivity", "global", "--mechanism", "permute_and_flip"], capsys
    )
    assert out.splitlines() == _python(2, seed, sensitivity="global", mechanism="permute_and_flip")


def test_parquet_and_delimiter(tmp_path, table, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "candidates.parquet"
    pq.write_table(pa.table({"id": IDS, "a": A, "b": B}), path)
    args = ["-k", "3", "--objective", "a=1", "--objective", "b=1", "--id-column", "id", "--seed", "5"]
    _, out, _ = _run(["select", str(path), *args], capsys)
    assert out.splitlines() == _python(3, 5)
    semi = tmp_path / "semi.csv"
    semi.write_text(table.read_text().replace(",", ";"))
    _, out2, _ = _run(["select", str(semi), "--delimiter", ";", *args], capsys)
    assert out2 == out


def test_select_errors_name_the_file_and_the_problem_never_a_private_value(tmp_path, table, capsys):
    base = ["select", str(table), "--objective", "a=1"]
    assert "no column 'c'" in _error([*base, "--objective", "c=1"], capsys)
    assert "larger than the number of candidates (8)" in _error([*base, "-k", "9"], capsys)
    assert "needs --weights" in _error([*base, "--approach", "agg"], capsys)
    assert "give 1 weights" in _error([*base, "--approach", "agg", "--weights", "1", "2"], capsys)
    assert "agg only" in _error([*base, "--weights", "1"], capsys)
    assert "COL=SENS" in _error(["select", str(table), "--objective", "a"], capsys)
    assert "positive" in _error(["select", str(table), "--objective", "a=0"], capsys)
    assert "max or min" in _error(["select", str(table), "--objective", "a=1:up"], capsys)
    assert "invalid choice: 'foo'" in _error([*base, "--mechanism", "foo"], capsys)
    assert "no such file" in _error(["select", str(tmp_path / "nope.csv"), "--objective", "a=1"], capsys)
    holes = tmp_path / "holes.csv"
    holes.write_text("id,a\nx,1.5\ny,\nz,31.25\n")
    line = _error(["select", str(holes), "--objective", "a=1"], capsys)
    assert str(holes) in line and "'a'" in line and "not a finite number" in line
    assert "31.25" not in line and "1.5" not in line and "line " not in line  # no value, no row
    binary = tmp_path / "garbage.bin"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 50)
    line = _error(["select", str(binary), "--objective", "a=1"], capsys)
    assert str(binary) in line and "UTF-8" in line


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpmo {dpmo.__version__}"


def _patients(tmp_path, n=300):
    rng = np.random.default_rng(1)
    age, smoker = rng.integers(18, 90, n), rng.integers(0, 2, n)
    sick = ((age > 60) & (smoker == 1)) | (rng.random(n) < 0.1)
    path = tmp_path / "p.csv"
    path.write_text(
        "age,smoker,sick\n"
        + "\n".join(f"{a},{s},{'sick' if y else 'well'}" for a, s, y in zip(age, smoker, sick, strict=True))
    )
    return path


@pytest.mark.parametrize("sensitivity", ["local", "global"])
def test_id3_prints_the_library_tree(tmp_path, capsys, sensitivity):
    from dpmo.cli.trees_release import ID3Rules
    from dpmo.tables import read_table
    from dpmo.trees import DiffPID3Classifier, LocalDiffPID3Classifier

    path = _patients(tmp_path)
    spec = ["--label", "sick", "--categorical", "smoker", "--numeric", "age=0:120"]
    saved = tmp_path / "tree.json"
    code, out, err = _run(
        ["id3", str(path), *spec, "--max-depth", "2", "--seed", "3", "--sensitivity", sensitivity,
         "--classes", "well,sick", "--save-json", str(saved)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# 1 tree by " + ("LocalDiffPID3" if sensitivity == "local" else "DiffP-ID3"))
    assert "float sampler" in lines[0] and "TPR" not in out  # the library's default; no private statistic
    schema = {"categorical": {"smoker": ("0", "1")}, "bounds": {"age": (0.0, 120.0)}}
    data = read_table(path, label="sick", positive="sick", **schema)
    cls = LocalDiffPID3Classifier if sensitivity == "local" else DiffPID3Classifier
    clf = cls(1.0, max_depth=2, features=data.features, random_state=3, classes=[0, 1]).fit(data.X, data.y)
    expected = (
        ID3Rules(clf)
        .to_text(data.features)
        .replace("predict 0", "predict well")
        .replace("predict 1", "predict sick")
    )
    assert lines[2:] == expected.splitlines()
    doc = json.loads(saved.read_text())
    assert doc["classes"] == ["well", "sick"] and doc["trees"][0]["feature"] in ("age", "smoker")
    # exact sampling on request, the exact statistics only behind their flag
    more = ["--seed", "3", "--classes", "well,sick", "--exact-sampler", "--show-exact-statistics"]
    code, out, err = _run(["id3", str(path), *spec, *more], capsys)
    assert code == 0, err
    assert "exact sampler" in out.splitlines()[0] and "NOT PRIVATE" in out


def test_help_of_the_new_commands(capsys):
    for command, needle in (("select", "--objective"), ("id3", "LocalDiffPID3"), ("trees", "missing value")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert needle in out
    proc = subprocess.run([sys.executable, "-m", "dpmo.cli", "--help"], capture_output=True, text=True)
    assert "select" in proc.stdout and "id3" in proc.stdout
