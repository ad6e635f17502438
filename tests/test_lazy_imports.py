"""Answers at once (issue 31, point 5): ``import dpmo``, ``dpmo --version``, ``--help`` and argument errors
load neither numpy nor numba; the public names load on first use and behave as before (``__all__``,
``dir()``, ``from dpmo import X``, pickling, joblib's process pool); the layering holds.

The CLI checks run in a fresh interpreter (``sys.modules`` of this one holds everything already).
"""

from __future__ import annotations

import ast
import functools
import pathlib
import pickle
import subprocess
import sys

import pytest

import dpmo

SRC = pathlib.Path(dpmo.__file__).resolve().parent
HEAVY = ("numba", "llvmlite", "numpy", "scipy", "sklearn", "pandas")


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter (the test's own ``PYTHONPATH``) and return its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


_CLI_RUNS = """
import contextlib, io, sys
from dpmo.cli import main
argvs = [
    ["--version"], ["--help"],
    ["reproduce", "--help"], ["topk", "--help"], ["trees", "--help"], ["id3", "--help"], ["select", "--help"],
    ["select", "x.csv", "-k", "2"],                      # --objective missing
    ["select", "x.csv", "--objective", "a=oops"],        # a bad COL=SENS
    ["topk", "g.csv", "--epsilon", "-1"],                # a bad epsilon
    ["trees", "t.csv", "--mechanism", "nope"],           # a bad choice
    ["nope"],                                            # an unknown command
]
codes = []
for argv in argvs:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            codes.append(main(argv))
        except SystemExit as exc:
            codes.append(exc.code)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(codes, heavy)
"""


def test_version_help_and_argument_errors_load_no_numpy_nor_numba():
    out = _fresh(f"HEAVY = {HEAVY!r}\n" + _CLI_RUNS)
    codes, heavy = out.strip().split("] ")
    assert heavy == "[]", f"the command line loaded {heavy} to answer --version, --help or a bad argument"
    assert codes == "[0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2"


def test_python_m_dpmo_cli_version_imports_no_numba():
    """The issue's own check: ``python -X importtime -m dpmo.cli --version`` names no numba, no llvmlite."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dpmo.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == f"dpmo {dpmo.__version__}"
    imported = [line for line in done.stderr.splitlines() if "numba" in line or "llvmlite" in line]
    assert imported == []


def test_import_dpmo_loads_no_numpy_and_names_load_on_first_use():
    out = _fresh(
        "import sys, dpmo\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
        "dpmo.Budget(1.0)\n"
        "print('numpy' in sys.modules, 'numba' in sys.modules)\n"
    )
    before, after = out.splitlines()
    assert before == "[]"
    assert after == "True False"  # the budget needs numpy, not the compiled kernels


def test_every_public_name_imports_and_dir_lists_it():
    names = dpmo.__all__
    assert len(names) == len(set(names)) and "select" in names and "lead_needed" in names
    namespace: dict = {}
    exec(f"from dpmo import {', '.join(names)}", namespace)
    for name in names:
        assert namespace[name] is getattr(dpmo, name)
        assert name in dir(dpmo)
    for sub in ("graphs", "trees", "datasets", "metrics", "audit", "experiments", "cli"):
        assert sub in dir(dpmo)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        dpmo.nope  # noqa: B018


def test_type_checking_imports_match_the_table():
    """The names static analysers see (the ``if TYPE_CHECKING:`` block) are exactly the public table."""
    for init, table in ((SRC / "__init__.py", dpmo._EXPORTS), (SRC / "experiments" / "__init__.py", None)):
        tree = ast.parse(init.read_text())
        if table is None:
            import dpmo.experiments as table_module

            table = table_module._EXPORTS
        block = next(
            n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
        )
        seen = {}
        for node in block.body:
            for alias in node.names:
                seen[alias.name] = node.module
        assert seen == {name: module for name, module in table.items()}, (
            f"{init}: add each public name to the table and to the TYPE_CHECKING block"
        )


@pytest.mark.slow
def test_a_public_name_that_is_also_a_submodule_stays_the_function():
    """``dpmo.aggregate`` is the function even when ``dpmo/aggregate.py`` is imported first."""
    out = _fresh(
        "import dpmo.aggregate as first\n"  # the submodule imported before the name is asked for
        "import dpmo, sys, types\n"
        "print(callable(dpmo.aggregate), isinstance(dpmo.aggregate, types.ModuleType),"
        " isinstance(sys.modules['dpmo.aggregate'], types.ModuleType))\n"
    )
    assert out.split() == ["True", "False", "True"]


@pytest.mark.slow
def test_selection_alone_knows_the_built_in_approaches():
    out = _fresh(
        "from dpmo.selection import approaches, select_multiobjective\n"
        "from dpmo.sensitivity import Objective\n"
        "objs = [Objective([3.0, 1.0, 2.0], 1.0), Objective([0.0, 2.0, 1.0], 1.0)]\n"
        "print(len(select_multiobjective(objs, 1.0, approach='pareto', k=2, rng=0)), approaches())\n"
    )
    assert out.strip() == "2 ('pareto', 'agg', 'chebyshev', 'staircase')"


def test_name_tables_agree_with_the_registered_objects():
    from dpmo import _choices, mechanisms, selection
    from dpmo.mechanisms import exact

    assert _choices.APPROACHES == selection.approaches()[: len(_choices.APPROACHES)]
    assert _choices.WEIGHTED_APPROACHES == tuple(
        a for a in _choices.APPROACHES if selection.get_approach(a).uses_weights
    )
    assert mechanisms.MECHANISMS is _choices.MECHANISMS
    for m in _choices.EXACT_CAPABLE:
        assert m in exact.EXACT_MECHANISMS


def test_pickle_and_joblib_processes_resolve_lazy_names():
    joblib = pytest.importorskip("joblib")
    obj = dpmo.Objective([1.0, 2.0, 3.0], 1.0, name="u")
    back = pickle.loads(pickle.dumps(obj))
    assert back.values.tolist() == [1.0, 2.0, 3.0]
    # a fresh process unpickles functions and objects of dpmo by their modules
    out = _fresh(
        "import pickle, sys\n"
        f"f, o = pickle.loads({pickle.dumps((dpmo.pick_probability, obj))!r})\n"
        "print(round(f(0.0, 4, 1.0), 12), o.name)\n"
    )
    assert out.split() == ["0.25", "u"]
    got = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(dpmo.pick_probability)(0.0, n, 1.0) for n in (2, 4)
    )
    assert [round(p, 12) for p in got] == [0.5, 0.25]


# ----------------------------------------------------------------------------------------- layering
#: Layer of each top-level module or package of dpmo: a module may import its own layer and below.
LAYERS = {
    "_defaults": 0, "_choices": 0, "_extras": 0, "_validation": 0, "epsilons": 0, "ledger": 0, "budget": 0,
    "_numbers": 0, "_prefetch": 0, "_kernel_args": 0, "_status": 0, "zcdp": 0, "_warnings": 0,
    "accounting": 0, "adaptive_composition": 0, "budget_calls": 0, "calls": 0, "_fork": 0, "_lazy": 0,
    "mechanisms": 1, "sensitivity": 1, "dampening": 1, "breakpoints": 1, "preview": 1, "audit": 1,
    "ranges": 1,
    "selection": 2, "steps": 2, "registry": 2,
    "pareto": 3, "aggregate": 3, "chebyshev": 3, "staircase": 3, "hypervolume": 3, "metrics": 3,
    "greedy_hypervolume": 3, "chebyshev_gate": 3,
    "spark": 4, "graphs": 4, "trees": 4, "datasets": 4, "tables": 4,
    "experiments": 5,
    "cli": 6,
}  # fmt: skip


def _statements(nodes, *, module_level: bool):
    """Every statement under ``nodes``; with ``module_level``, none inside a function (run when it is called)
    or under ``if TYPE_CHECKING:`` (never run)."""
    for node in nodes:
        if module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if module_level and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _statements(node.orelse, module_level=True)
            continue
        yield node
        yield from _statements(ast.iter_child_nodes(node), module_level=module_level)


def _imports(tree: ast.Module, package: str, *, module_level: bool = False):
    """The ``dpmo`` modules that ``tree`` (a module of ``package``) imports, as absolute dotted names."""
    for node in _statements(tree.body, module_level=module_level):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            if node.module:
                yield ".".join([*base, node.module])
            else:
                yield from (".".join([*base, a.name]) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpmo"):
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("dpmo"))


def _module_and_package(path: pathlib.Path) -> tuple[str, str]:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return module, module if parts[-1] == "__init__" else module.rpartition(".")[0]


@functools.cache
def _source_facts(path: pathlib.Path) -> dict:
    """What the tests below read in a source file of dpmo, from one parse (a parse of all of ``src/dpmo``
    costs 0.7 s; three tests read every file): the ``dpmo`` modules it imports anywhere (``False``) and at
    module level (``True``), and its compiled kernels (``"kernels"``: line, name, ``cache=True`` or not).
    Only these small tuples are kept, not the syntax trees (which every later collection would walk)."""
    tree = ast.parse(path.read_text())
    package = _module_and_package(path)[1]
    kernels = []

    def compiler(deco) -> tuple[bool, bool]:
        """Whether ``deco`` is numba's compiler (``njit``, ``jit``, ...), and whether with ``cache=True``."""
        call = deco if isinstance(deco, ast.Call) else None
        name = ast.unparse(call.func if call else deco)
        if name.split(".")[-1] not in ("njit", "jit", "vectorize", "guvectorize", "cfunc"):
            return False, False
        cached = call is not None and any(
            k.arg == "cache" and getattr(k.value, "value", None) is True for k in call.keywords
        )
        return True, cached

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):  # @njit(cache=True) def f(...)
            for deco in node.decorator_list:
                found, cached = compiler(deco)
                if found:
                    kernels.append((node.lineno, node.name, cached))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call):  # njit(cache=True)(f): lazily
            found, cached = compiler(node.func)
            if found:
                kernels.append((node.lineno, ast.unparse(node.args[0]) if node.args else "?", cached))
    return {
        False: tuple(_imports(tree, package, module_level=False)),
        True: tuple(_imports(tree, package, module_level=True)),
        "kernels": tuple(kernels),
    }


def _top_level_imports(*, module_level: bool = False):
    """``(module, its top-level unit, target, the target's unit)`` for every import of one top-level unit of
    ``dpmo`` (a module or package under ``src/dpmo``) by another; ``dpmo`` itself and its public names
    (``from .. import X``) are left out."""
    for path in SRC.rglob("*.py"):
        module = _module_and_package(path)[0]
        mine = module.split(".")[1] if "." in module else None
        if mine is None:
            continue
        assert mine in LAYERS, f"{module}: give its layer in LAYERS"
        for target in _source_facts(path)[module_level]:
            other = target.split(".")[1] if "." in target else None
            if other is not None and other != mine and other in LAYERS:
                yield module, mine, target, other


@pytest.mark.slow
def test_lower_layers_never_import_higher_ones():
    """No exception, not even inside a function: a lower layer that needs a higher one's work calls the
    layer below that does it (``experiments.verdict`` runs ``experiments.orchestrate.reproduce``, not
    ``dpmo reproduce``)."""
    bad = []
    for module, mine, target, other in _top_level_imports():
        higher = LAYERS[other] > LAYERS[mine]
        siblings = {mine, other} == {"graphs", "trees"}  # the two applications never import each other
        if higher or siblings:
            bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_no_two_top_level_units_import_each_other_at_import_time():
    """Within a layer too, the module-level imports between top-level units (``datasets``, ``tables``, ...)
    go one way: no loop such as the former ``datasets`` <-> ``csv_reader`` one (the reader now lives in
    ``datasets/``)."""
    edges: dict[str, set[str]] = {}
    for _, mine, _, other in _top_level_imports(module_level=True):
        edges.setdefault(mine, set()).add(other)

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    loops = {unit: sorted(edges[unit]) for unit in sorted(edges) if unit in reachable(unit)}
    assert not loops, f"top-level units in an import loop (each with what it imports): {loops}"


def test_every_compiled_kernel_is_cached():
    """A process-pool worker loads the kernels from numba's cache instead of compiling them again
    (``docs/trees.md``, "Process pools"): every ``numba.njit`` / ``numba.jit`` has ``cache=True``."""
    missing, seen = [], 0
    for path in SRC.rglob("*.py"):
        for lineno, name, cached in _source_facts(path)["kernels"]:  # decorated by njit, jit, ...
            seen += 1
            if not cached:
                missing.append(f"{path.relative_to(SRC)}:{lineno} {name}")
    assert seen > 50 and not missing, missing
