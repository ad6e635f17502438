"""The small things of a data scientist's first week (issue 23, point 6), one test each: install lines that
work from a clone, extras that hold what their docs import, one-line messages for a missing extra,
``ids=`` / ``delimiter=`` wherever an edge-list path is accepted, node names with spaces, messages that name
the file and the problem, dropped rows stated (never counted), the core names in the API reference,
``APPROACHES`` complete, and an inapplicable ``--reading`` refused."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dpmo import graphs
from dpmo.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _error(argv, capsys) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("dpmo: error: "), err
    return lines[0]


# ------------------------------------------------------------------------------------------ installing
def _docs_text() -> str:
    files = [ROOT / "README.md", *ROOT.joinpath("docs").glob("*.md"), *ROOT.joinpath("src").rglob("*.py")]
    return "\n".join(p.read_text() for p in [*files, *ROOT.joinpath("benchmarks").glob("*.py")])


def test_install_lines_work_from_a_clone():
    # dpmo is installed from its clone: "pip install dpmo[...]" asks an index for a package it does not have
    bad = re.findall(r"pip install [\"']?dpmo\[", _docs_text())
    assert not bad
    assert 'python -m pip install ".[experiments]"' in (ROOT / "docs" / "start-here.md").read_text()


def _extra(name: str) -> str:
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(rf"^{name} = \[(.*?)^\]", text, re.S | re.M).group(1)


def test_extras_hold_what_their_docs_import():
    experiments = _extra("experiments")
    for dist in ("pandas", "networkx", "matplotlib", "dpmo[trees]"):
        assert f'"{dist}' in experiments, dist
    assert '"scikit-learn' in _extra("trees") and '"pyarrow' in _extra("parquet")
    tutorial = (ROOT / "docs" / "start-here.md").read_text()
    imported = set(re.findall(r"^(?:import|from) (\w+)", tutorial, re.M)) - {"dpmo", "pathlib"}
    # numpy is a core dependency, scikit-learn comes with dpmo[trees], the others are in the extra itself
    assert imported == {"networkx", "numpy", "pandas", "sklearn"}


# Every public module, imported with the optional dependencies blocked: it imports, or it raises one line
# that names the extra to install.
_BLOCKED_IMPORTS = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, sys
    BLOCKED = {"sklearn", "pandas", "networkx", "matplotlib", "joblib", "tqdm", "dask", "pyarrow"}

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, Block())
    import dpmo
    names = ["dpmo"] + [m.name for m in pkgutil.walk_packages(dpmo.__path__, "dpmo.")]
    for name in sorted(n for n in names if not any(p.startswith("_") for p in n.split("."))):
        try:
            importlib.import_module(name)
            print("ok", name)
        except ImportError as exc:
            print("needs", name, "|", str(exc).replace("\\n", " NEWLINE "))
    try:
        from dpmo.trees import DPMOETClassifier
    except ImportError as exc:
        print("estimator |", exc)
    """
)


def test_a_plain_install_imports_or_names_the_extra(tmp_path):
    script = tmp_path / "blocked.py"
    script.write_text(_BLOCKED_IMPORTS)
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    ok = {ln.split()[1] for ln in lines if ln.startswith("ok ")}
    assert {"dpmo", "dpmo.graphs", "dpmo.selection", "dpmo.cli", "dpmo.datasets", "dpmo.metrics"} <= ok
    needs = [ln for ln in lines if ln.startswith("needs ")]
    assert any(ln.startswith("needs dpmo.trees ") for ln in needs)
    for ln in needs:
        message = ln.split("|", 1)[1]
        assert (
            "NEWLINE" not in message and 'pip install ".[' in message and "No module named" not in message
        ), ln
    estimator = next(ln for ln in lines if ln.startswith("estimator |"))
    assert "scikit-learn" in estimator and 'pip install ".[trees]"' in estimator


# ------------------------------------------------------------------------------------------ graph files
@pytest.fixture
def davis(tmp_path):
    nx = pytest.importorskip("networkx")
    g = nx.davis_southern_women_graph()  # 32 women and events, names with spaces
    edges = tmp_path / "davis.csv"
    edges.write_text("\n".join(f"{u},{v}" for u, v in g.edges()) + "\n")
    nodes = tmp_path / "davis_nodes.txt"
    nodes.write_text("\n".join(g.nodes()) + "\n")
    return g, edges, nodes


def test_ids_and_delimiter_wherever_an_edge_list_path_is_accepted(davis):
    g, edges, _ = davis
    names = list(g.nodes())
    read = {"ids": "str", "delimiter": ","}
    loaded = graphs.load_graph(edges, nodes=names, **read)
    picks = graphs.top_k(edges, 3, 1.0, nodes=names, rng=0, **read)
    assert picks.tolist() == graphs.top_k(loaded, 3, 1.0, rng=0).tolist()
    scores, _ = graphs.selection_scores(edges, nodes=names, **read)
    assert np.array_equal(scores, graphs.selection_scores(loaded)[0])
    assert graphs.top_k_two_stage(edges, 2, 1.0, candidates=5, nodes=names, rng=0, **read).shape == (2,)
    assert graphs.two_stage_candidates(edges, 1.0, 5, nodes=names, rng=0, **read).shape == (5,)
    observed = graphs.load_graph(edges, nodes="observed", **read)
    for fn in (graphs.degree, graphs.triangles, graphs.ego_density, graphs.pareto_scores):
        assert np.array_equal(fn(edges, **read), fn(observed)), fn.__name__
    assert graphs.top_k_exact(edges, 3, **read).tolist() == graphs.top_k_exact(observed, 3).tolist()
    assert graphs.pareto_front(edges, **read).tolist() == graphs.pareto_front(observed).tolist()
    assert np.array_equal(
        graphs.aggregate_scores(edges, **read).values, graphs.aggregate_scores(observed).values
    )


def test_node_names_with_spaces_and_a_named_duplicate(davis, capsys):
    g, edges, nodes = davis
    base = ["topk", str(edges), "--nodes", str(nodes), "--string-ids", "-k", "3", "--seed", "0"]
    line = _error(base, capsys)  # split at the spaces: "Evelyn Jefferson" -> "Evelyn", "Jefferson"
    assert "appears more than once" in line and "--delimiter" in line
    assert re.search(r"'[A-Z][a-z]+' appears", line)
    assert main([*base, "--delimiter", ","]) == 0
    picks = capsys.readouterr().out.splitlines()[2:]
    expected = graphs.top_k(edges, 3, 1.0, nodes=list(g.nodes()), ids="str", delimiter=",", rng=0)
    assert picks == expected.tolist()
    with pytest.raises(ValueError, match="'Evelyn Jefferson' appears more than once"):
        graphs.load_graph(edges, nodes=[*g.nodes(), "Evelyn Jefferson"], ids="str", delimiter=",")


# ------------------------------------------------------------------------------------------ messages
def test_messages_name_the_file_and_the_actual_problem(tmp_path, capsys):
    with pytest.raises(IsADirectoryError, match=f"{re.escape(str(tmp_path))} is a folder"):
        graphs.load_graph(tmp_path, nodes=3)
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n")
    line = _error(["topk", str(edges), "--n-nodes", "3", "--mechanism", "foo"], capsys)
    assert "invalid choice: 'foo'" in line and "exact sampler" not in line
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(128, 256)) * 4)
    line = _error(["trees", str(garbage), "--label", "y", "--numeric", "a=0:1"], capsys)
    assert str(garbage) in line and "not UTF-8 text" in line and "codec" not in line


def test_dropped_rows_are_stated_in_help_and_docs_never_counted(tmp_path, capsys):
    for command in ("trees", "id3"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "missing value" in out and "never printed" in out
    assert "never printed" in (ROOT / "docs" / "start-here.md").read_text()
    table = tmp_path / "t.csv"
    table.write_text("a,y\n" + "".join(f"{i % 2},{i % 3 == 0:d}\n" for i in range(40)) + "?,1\n,0\n1,NA\n")
    assert main(["id3", str(table), "--label", "y", "--categorical", "a", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "43" not in out and "40" not in out and "3 rows" not in out  # nothing counts the rows


# ------------------------------------------------------------------------------------------ reference
def test_core_names_are_indexed_in_the_api_reference():
    core = (ROOT / "docs" / "api" / "core.rst").read_text()
    assert ":no-index:" not in core
    assert ".. automodule:: dpmo.selection" in core and "dpmo.budget.Spend" in core


def test_approaches_lists_every_approach_top_k_accepts():
    from dpmo.selection import approaches

    assert set(approaches()) <= set(graphs.APPROACHES) and "chebyshev" in graphs.APPROACHES
    g = graphs.load_graph([[0, 1], [1, 2], [2, 0], [2, 3]], nodes=5)
    for approach in graphs.APPROACHES:
        assert graphs.top_k(g, 2, 1.0, approach=approach, rng=0).shape == (2,)


def test_an_inapplicable_reading_is_refused_in_one_line(capsys):
    line = _error(["reproduce", "tree-pareto", "--reading", "ego-printed", "--quick"], capsys)
    assert "--reading ego-printed applies to graph-pareto, graph-agg only" in line
