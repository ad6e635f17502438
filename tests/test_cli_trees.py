"""``dpmo trees`` prints the private trees, never a private statistic by default; the command line's
releases sample exactly unless ``--float-sampler`` is given (issues 12 and 16)."""

from __future__ import annotations

import pytest

from dpmo._defaults import TREE_WEIGHTS
from dpmo.cli import main


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _edges(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n")
    return path


# ------------------------------------------------------------------------------------------ exact by default
@pytest.mark.parametrize(("extra", "expected"), [([], True), (["--float-sampler"], False)])
def test_topk_samples_exactly_by_default(tmp_path, capsys, monkeypatch, extra, expected):
    import dpmo.graphs as graphs

    seen = []
    original = graphs.top_k

    def spy(*args, **kwargs):
        seen.append(kwargs.get("exact"))
        return original(*args, **kwargs)

    monkeypatch.setattr(graphs, "top_k", spy)
    code, out, err = _run(
        ["topk", str(_edges(tmp_path)), "--n-nodes", "6", "-k", "2", "--seed", "1", *extra], capsys
    )
    assert code == 0, err
    assert seen == [expected]
    assert len(out.strip().splitlines()) == 4  # header, "node", two picks


def test_laplace_needs_the_float_sampler(tmp_path, capsys):
    base = ["topk", str(_edges(tmp_path)), "--n-nodes", "6", "-k", "2", "--mechanism", "laplace"]
    code, _, err = _run(base, capsys)
    assert code == 2 and "--float-sampler" in err and "Traceback" not in err
    code, out, err = _run([*base, "--float-sampler", "--seed", "0"], capsys)
    assert code == 0, err


def test_help_shows_the_float_sampler(capsys):
    for command in ("topk", "trees"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out, _ = capsys.readouterr()
        assert "--float-sampler" in out


# ------------------------------------------------------------------------------------------ dpmo trees
def _table(tmp_path, name="t.csv", n=200, seed=0, one_class=None):
    import numpy as np

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = rng.uniform(0, 10, n)
    y = ((a == 1) & (b > 5)).astype(int) if one_class is None else np.full(n, one_class)
    path = tmp_path / name
    path.write_text("a,b,label\n" + "\n".join(f"{x},{z:.3f},{t}" for x, z, t in zip(a, b, y, strict=True)))
    return path


def _trees_argv(path, *extra):
    return [
        "trees",
        str(path),
        "--label",
        "label",
        "--categorical",
        "a",
        "--numeric",
        "b=0:10",
        "--epsilon",
        "5",
        "--population-size",
        "12",
        "--selection-size",
        "3",
        "--iterations",
        "2",
        "--n-output",
        "2",
        "--seed",
        "3",
        *extra,
    ]


def _leaves(node):
    return [node["leaf"]] if "leaf" in node else _leaves(node["left"]) + _leaves(node["right"])


def test_trees_default_output_is_the_trees_only(tmp_path, capsys):
    path = _table(tmp_path)
    code, out, err = _run(_trees_argv(path), capsys)
    assert code == 0, err
    assert "TPR" not in out and "TNR" not in out and "NOT PRIVATE" not in out
    assert "rows" not in out and "200" not in out  # the number of private rows is not released
    assert out.count("## tree ") == 2
    assert "predict " in out
    lines = out.splitlines()
    assert lines[0].startswith("# 2 tree(s) by DP-MOET") and "exact sampler" in lines[0]
    # every printed decision names a declared feature
    tests = [ln.strip() for ln in lines if ln.strip().startswith("if ")]
    assert all(t.startswith(("if a == ", "if b <= ")) for t in tests)


def test_trees_exact_statistics_only_behind_the_flag(tmp_path, capsys):
    path = _table(tmp_path)
    code, plain, err = _run(_trees_argv(path), capsys)
    assert code == 0, err
    code, out, err = _run(_trees_argv(path, "--show-exact-statistics"), capsys)
    assert code == 0, err
    assert out.startswith(plain)  # same seed: same trees, the NOT PRIVATE section appended
    extra = out[len(plain) :].splitlines()
    w = TREE_WEIGHTS
    assert extra[0].startswith("# NOT PRIVATE") and "Do not publish" in extra[0]
    assert extra[1] == "# tree\tTPR\tTNR\tfitness" and len(extra) == 4
    for row in extra[2:]:
        tpr, tnr, fit = (float(x) for x in row[2:].split("\t")[1:])
        assert 0 <= tpr <= 1 and 0 <= tnr <= 1 and fit == pytest.approx(w[0] * tpr + w[1] * tnr, abs=2e-4)


def test_trees_save_json_and_public_evaluation_table(tmp_path, capsys):
    import json

    path = _table(tmp_path)
    evaluation = _table(tmp_path, "public.csv", n=50, seed=7)
    saved = tmp_path / "trees.json"
    code, out, err = _run(_trees_argv(path, "--save-json", str(saved), "--eval", str(evaluation)), capsys)
    assert code == 0, err
    doc = json.loads(saved.read_text())
    assert len(doc["trees"]) == 2 and "NOT_PRIVATE_exact_statistics_on_the_training_table" not in doc
    for tree in doc["trees"]:
        assert set(_leaves(tree)) <= {"0", "1"}
    assert f"# TPR/TNR on the public evaluation table {evaluation}" in out
    rates = doc["evaluation"]["rates"]
    assert [r["tree"] for r in rates] == [0, 1]
    # the JSON trees are the printed trees: the rates on the public table agree with predictions of a
    # re-implementation that walks the saved dicts
    rows = [ln.split(",") for ln in evaluation.read_text().splitlines()[1:]]

    def predict(node, a, b):
        while "leaf" not in node:
            go_left = (a == node["category"]) if node["test"] == "==" else (b <= node["threshold"])
            node = node["left"] if go_left else node["right"]
        return node["leaf"]

    for tree, r in zip(doc["trees"], rates, strict=True):
        pred = [predict(tree, str(a), float(b)) for a, b, _ in rows]
        truth = [t for _, _, t in rows]
        pos = [p for p, t in zip(pred, truth, strict=True) if t == "1"]
        neg = [p for p, t in zip(pred, truth, strict=True) if t == "0"]
        assert r["TPR"] == pytest.approx(pos.count("1") / len(pos), abs=1e-9)
        assert r["TNR"] == pytest.approx(neg.count("0") / len(neg), abs=1e-9)


def test_trees_one_class_table_releases(tmp_path, capsys):
    path = _table(tmp_path, one_class=0)
    code, out, err = _run(_trees_argv(path, "--classes", "0,1"), capsys)
    assert code == 0, err
    assert out.count("## tree ") == 2
    path = _table(tmp_path, "ones.csv", one_class=1)  # the declared positive value alone
    code, out, err = _run(_trees_argv(path), capsys)
    assert code == 0, err
    code, _, err = _run(_trees_argv(path, "--classes", "1"), capsys)
    assert code == 2 and "NEGATIVE,POSITIVE" in err


def test_trees_one_class_dat_table_releases(tmp_path, capsys):
    (tmp_path / "tiny.domain").write_text("D 0 1\nD 0 1\nD 0 1\n")
    (tmp_path / "tiny.dat").write_text("0 1 0\n1 1 0\n1 0 0\n0 0 0\n")
    argv = ["trees", str(tmp_path / "tiny.dat"), "--population-size", "4", "--selection-size", "2"]
    code, out, err = _run([*argv, "--iterations", "1", "--seed", "0"], capsys)
    assert code == 0, err
    assert "## tree 0" in out
