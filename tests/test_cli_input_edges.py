"""Edge cases of the command line's and the readers' inputs found by fuzzing: each is refused in one line
(exit status 2) naming the option or file and what is allowed, before anything is spent or printed, and
without quoting a private value; or, where the input is fine, it is read.

Covered: an --id-column that is an --objective column (its private cells would be printed as ids), a
``.gz`` edge list that is not gzip or is truncated, a damaged ``.parquet`` table, numeric bounds whose width
leaves the floats, node ids beyond int64, output files that cannot be written (checked before the fit), the
exact reference at weights whose sum overflows, a column named twice (options and header lines), the
default shortlist of ``top_k_two_stage`` on small graphs, the library's parameter names in the trees'
messages, a node set read from a pipe, and ``nodes=True``.
"""

from __future__ import annotations

import gzip
import json
import os
import warnings

import networkx as nx
import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.cli import main
from dpmo.datasets import Feature

SECRET = "9137"  # a distinctive private value: never in a message


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(argv, capsys, *expected) -> str:
    """Run ``argv``: exit status 2, nothing on stdout, one ``dpmo: error:`` line holding ``expected``."""
    code, out, err = _run(argv, capsys)
    assert code == 2, (out, err)
    assert out == ""  # nothing released
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpmo: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def _patients(tmp_path):
    path = tmp_path / "patients.csv"
    rows = [f"{20 + (7 * i) % 60},{i % 2},{'FM'[i % 3 == 0]},{(i * 5) % 7 < 3:d}" for i in range(200)]
    path.write_text("age,smoker,sex,sick\n" + "\n".join(rows) + "\n")
    return path


def _club(tmp_path):
    path = tmp_path / "club.csv"
    path.write_text("".join(f"{u},{v}\n" for u, v in nx.karate_club_graph().edges()))
    return path


def _trees(path, *extra):
    return [
        "trees",
        path,
        "--label",
        "sick",
        "--categorical",
        "smoker",
        "sex=F,M",
        "--numeric",
        "age=0:120",
        "--seed",
        "0",
        "--iterations",
        "2",
        "--population-size",
        "10",
        "--selection-size",
        "5",
        *extra,
    ]


# ------------------------------------------------------------------------------------------ 1: id column
def test_select_refuses_an_id_column_that_is_an_objective(tmp_path, capsys):
    path = tmp_path / "models.csv"
    path.write_text(f"model,accuracy\ntree,0.{SECRET}\nforest,0.88\nboosted,0.90\n")
    argv = ["select", path, "--objective", "accuracy=0.001", "--id-column", "accuracy", "-k", "2"]
    for extra in ([], ["--explain"]):
        line = _refused([*argv, "--seed", "0", *extra], capsys, "--id-column", "--objective")
        assert SECRET not in line


# ------------------------------------------------------------------------------------------ 2, 4: compressed
@pytest.mark.parametrize("kind", ["plain", "truncated", "damaged"])
def test_a_bad_gzip_edge_list_is_refused_naming_the_file(tmp_path, capsys, kind):
    path = tmp_path / "e.csv.gz"
    if kind == "plain":
        path.write_bytes(f"{SECRET},34\n".encode())
        expected = "not a gzip file"
    elif kind == "truncated":
        path.write_bytes(gzip.compress(f"{SECRET},34\n1,2\n".encode())[:20])
        expected = "truncated gzip file"
    else:
        path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + SECRET.encode() * 4)
        expected = "damaged gzip file"
    line = _refused(["topk", path, "--n-nodes", "50", "-k", "1", "--seed", "0"], capsys, str(path), expected)
    assert SECRET not in line and "b'" not in line
    with pytest.raises(ValueError, match=expected) as info:
        graphs.load_graph(path, nodes=50)
    assert SECRET not in str(info.value) and info.value.__cause__ is None


def test_a_good_gzip_edge_list_is_still_read(tmp_path, capsys):
    path = tmp_path / "club.csv.gz"
    path.write_bytes(gzip.compress(_club(tmp_path).read_bytes()))
    code, out, err = _run(["topk", path, "--n-nodes", "34", "-k", "2", "--seed", "0"], capsys)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 4


def test_a_damaged_parquet_table_is_refused_naming_the_file(tmp_path, capsys):
    path = tmp_path / "c.parquet"
    path.write_bytes(b"PAR1" + SECRET.encode() * 3 + b"PAR1")
    for extra in ([], ["--explain"]):
        line = _refused(["select", path, "--objective", "a=1", "--seed", "0", *extra], capsys, str(path))
        assert "Parquet" in line and SECRET not in line


# ------------------------------------------------------------------------------------------ 3: bounds
@pytest.mark.parametrize("bounds", [(-1e308, 1e308), (0.0, 1e-320), (-1.7e308, 2e307)])
def test_feature_refuses_bounds_whose_width_leaves_the_floats(bounds):
    with pytest.raises(ValueError, match="bounds of feature 'age': the width"):
        Feature("age", "numeric", bounds=bounds)


@pytest.mark.parametrize("bounds", ["-1e308:1e308", "0:1e-320"])
def test_cli_refuses_such_bounds_naming_numeric(tmp_path, capsys, bounds):
    argv = ["id3", _patients(tmp_path), "--label", "sick", "--numeric", f"age={bounds}", "--seed", "0"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow warning either
        _refused(argv, capsys, "--numeric", "age")


def test_bounds_near_the_largest_float_give_finite_bins(tmp_path, capsys):
    save = tmp_path / "tree.json"
    argv = ["id3", _patients(tmp_path), "--label", "sick", "--numeric", "age=1e308:1.7e308", "--seed", "0"]
    code, out, err = _run([*argv, "--max-depth", "1", "--epsilon", "100", "--save-json", save], capsys)
    assert code == 0, err
    assert "if age in [1e+308, " in out  # a split on the bins (old: the edges beyond the first were inf)
    assert "inf" not in out.replace("info_gain", "") and "nan" not in out
    doc = json.loads(save.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert doc["trees"]


def test_scale_far_outside_narrow_bounds_does_not_warn():
    age = Feature("age", "numeric", bounds=(0.0, 3e-308))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert age.scale([1e300, -1e300]).tolist() == [1.0, 0.0]


# ------------------------------------------------------------------------------------------ 5: int64 ids
def test_node_ids_beyond_int64(tmp_path, capsys):
    big = "99999999999999999999999"
    nodes, edges = tmp_path / "n.txt", tmp_path / "e.csv"
    nodes.write_text(f"{big}\n1\n")
    edges.write_text(f"{big},1\n")
    line = _refused(["topk", edges, "--nodes", nodes, "-k", "1", "--seed", "0"], capsys, "int64")
    assert big not in line
    line = _refused(
        ["topk", edges, "--n-nodes", "5", "-k", "1", "--seed", "0"], capsys, "sixty-four-bit range"
    )
    assert big not in line
    for nodes_arg in ([2**63, 1], np.array([2**63, 1], dtype=np.uint64)):
        with pytest.raises(ValueError, match="int64 range") as info:
            graphs.top_k(nx.Graph([(2**63, 1)]), 1, 1.0, nodes=nodes_arg, rng=0)
        assert str(2**63) not in str(info.value)
    for edge_list in ([[2**63, 1]], [[-(2**63) - 1, 1]]):  # a Python list numpy turns into floats
        with pytest.raises(ValueError, match="int64 range") as info:
            graphs.load_graph(edge_list, nodes=3)
        assert "63" not in str(info.value) and "dtype" not in str(info.value)


# ---------------------------------------------------------------------------------------- 6: after a release
@pytest.mark.parametrize("where", ["missing folder", "a folder"])
def test_save_json_is_checked_before_the_fit(tmp_path, capsys, where):
    target = tmp_path / "nope" / "x.json" if where == "missing folder" else tmp_path
    _refused(_trees(_patients(tmp_path), "--save-json", target), capsys, "--save-json")
    argv = ["id3", _patients(tmp_path), "--label", "sick", "--numeric", "age=0:120", "--save-json", target]
    _refused(argv, capsys, "--save-json")


def test_exact_statistics_at_weights_whose_sum_overflows(tmp_path, capsys):
    argv = ["topk", _club(tmp_path), "--n-nodes", "34", "-k", "3", "--seed", "0", "--show-exact-statistics"]
    code, out, err = _run([*argv, "--weights", "1e308", "1e308"], capsys)
    assert code == 0 and err == "", err
    exact = out.strip().splitlines()[-1]
    assert exact.startswith("# exact (non-private) top-k:")
    g = nx.karate_club_graph()
    same = graphs.top_k_exact(g, 3, approach="agg", weights=(0.25, 0.25))
    assert graphs.top_k_exact(g, 3, approach="agg", weights=(1e308, 1e308)).tolist() == same.tolist()
    assert exact.split(":")[1].split() == [str(v) for v in same]


# ------------------------------------------------------------------------------------------ 7: named twice
@pytest.mark.parametrize(
    ("option", "values", "column"),
    [("--numeric", ["age=0:120", "age=50:60"], "age"), ("--categorical", ["sex=F,M", "sex"], "sex")],
)
def test_a_column_named_twice_in_an_option(tmp_path, capsys, option, values, column):
    argv = ["id3", _patients(tmp_path), "--label", "sick", option, *values, "--seed", "0"]
    _refused(argv, capsys, option, "named once", repr(column))


def test_a_repeated_header_column(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text(f"a,a,id\n1,{SECRET},x\n3,4,y\n")
    for extra in ([], ["--explain"]):
        argv = ["select", path, "--objective", "a=1", "--id-column", "id", "--seed", "0", *extra]
        line = _refused(argv, capsys, "'a'", "named once")
        assert SECRET not in line
    table = tmp_path / "t.csv"
    table.write_text("age,age,sick\n30,40,1\n50,60,0\n")
    _refused(["id3", table, "--label", "sick", "--numeric", "age=0:120", "--seed", "0"], capsys, "'age'")


# ------------------------------------------------------------------------------------------ 8: two stages
def test_two_stage_default_shortlist_on_a_small_graph():
    g = nx.karate_club_graph()
    picks = graphs.top_k_two_stage(g, 3, 1.0, nodes=34, rng=0)
    assert picks.shape == (3,) and len(set(picks.tolist())) == 3
    with pytest.raises(ValueError, match=r"candidates \(the size of the shortlist\).*public node set \(34\)"):
        graphs.top_k_two_stage(g, 3, 1.0, nodes=34, rng=0, candidates=100)
    with pytest.raises(ValueError, match=r"k \(3\) must not exceed candidates"):
        graphs.top_k_two_stage(g, 3, 1.0, nodes=34, rng=0, candidates=2)


# ------------------------------------------------------------------------------------------ 9: option names
@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--population-size", "10", "--selection-size", "20"], "--selection-size (20) must not exceed "),
        (["--population-size", "10", "--selection-size", "5", "--n-output", "50"], "--n-output (50)"),
    ],
)
def test_trees_messages_name_the_options(tmp_path, capsys, extra, expected):
    argv = ["trees", _patients(tmp_path), "--label", "sick", "--numeric", "age=0:120", "--seed", "0", *extra]
    line = _refused(argv, capsys, expected)
    assert "selection_size" not in line and "n_output" not in line and "population_size" not in line


# ---------------------------------------------------------------------------------------- 10: streams, kinds
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_node_set_from_a_pipe_is_read(tmp_path, capsys):
    import threading

    fifo = tmp_path / "nodes.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write("\n".join(str(i) for i in range(34)) + "\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        code, out, err = _run(["topk", _club(tmp_path), "--nodes", fifo, "-k", "2", "--seed", "0"], capsys)
    finally:
        if writer.is_alive():  # the command did not open the pipe: let the writer finish
            reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            writer.join(timeout=10)
            os.close(reader)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 4


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_an_edge_list_from_a_pipe_is_refused_as_not_a_regular_file(tmp_path, capsys):
    fifo = tmp_path / "edges.fifo"
    os.mkfifo(fifo)
    _refused(["topk", fifo, "--n-nodes", "34", "-k", "1", "--seed", "0"], capsys, "not a regular file")
    with pytest.raises(ValueError, match="not a regular file"):
        graphs.read_edge_list(fifo)


@pytest.mark.parametrize("nodes", [True, 3.5])
def test_nodes_of_the_wrong_kind(nodes):
    g = nx.karate_club_graph()
    for graph in (g, graphs.load_graph(g, nodes=34)):
        with pytest.raises(TypeError, match=r"nodes must be .*an int n"):
            graphs.top_k(graph, 1, 1.0, nodes=nodes, rng=0)


# ------------------------------------------------------------------------------------------ declared ranges
def test_a_declared_range_near_the_largest_float_is_read(tmp_path, capsys):
    """LOW:HIGH was checked through LOW + HIGH, which overflows for 1e308:1.7e308 (a width of 7e307)."""
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "".join(f"{1.1e308 + i * 1e306},{i % 3}\n" for i in range(6)))
    argv = ["select", path, "--objective", "a=1e305@1e308:1.7e308", "--objective", "b=1@0:2", "-k", "2"]
    code, out, err = _run([*argv, "--seed", "0"], capsys)
    assert code == 0, err
    wide = ["select", path, "--objective", "a=1@-1e308:1e308", "--objective", "b=1", "--seed", "0"]
    _refused(wide, capsys, "a:", "width")


def test_range_units_message_shows_the_quotient_parts():
    """1e-200 / 1e200 underflowed: the message said "got 0"."""
    with pytest.raises(ValueError, match=r"got 1e-200 / 1e\+200"):
        dpmo.Objective([0.0, 1.0], 1e-200, bounds=(0.0, 1e200))


# ------------------------------------------------------------------------------------------ check order
@pytest.mark.parametrize(
    ("command", "bad"),
    [
        ("trees", ["--selection-size", "50", "--population-size", "10"]),
        ("trees", ["--max-depth", "17"]),
        ("trees", ["--non-private", "--delta", "1e-6"]),
        ("id3", ["--n-bins", "5000"]),
    ],
)
def test_tree_options_are_checked_before_the_table_is_read(tmp_path, capsys, command, bad):
    """With a bad option, a table holding a record outside its declared domain got the domain error, a
    clean one the option's: which error a call got depended on the table."""
    clean = _patients(tmp_path)
    dirty = tmp_path / "dirty.csv"
    dirty.write_text(clean.read_text() + f"{SECRET},1,X,1\n")  # sex X: outside the declared F,M
    argv = _trees(clean)[1:] if command == "trees" else _trees(clean)[1:11]  # (to --seed 0)
    lines = set()
    for path in (clean, dirty):
        line = _refused([command, path, *argv[1:], *bad], capsys)
        assert SECRET not in line
        lines.add(line)
    assert len(lines) == 1, lines
    assert ("--n-bins" if command == "id3" else bad[0]) in lines.pop()
