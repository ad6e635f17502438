"""Docstring examples: every public function and class has an ``Examples`` section, and all of them run.

The rule (binding for new code): a name exported by ``dpmo.__all__`` or by the ``__all__`` of
``dpmo.graphs``, ``dpmo.trees``, ``dpmo.datasets``, ``dpmo.metrics``, ``dpmo.audit`` or ``dpmo.experiments``
that is a function or a class needs a numpydoc ``Examples`` section with at least one doctest. Examples are
deterministic (seeded ``rng``), quick (well under a second), and show shapes, properties or independently
computed values rather than outputs copied from the code under test. Every doctest in every ``dpmo``
module runs here (``test_doctests_run``), so they stay true.

A new public name must come with its example, or ``test_every_public_callable_has_an_example`` fails
(``EXAMPLES_TODO`` is empty and must stay so).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import dpmo

PUBLIC_MODULES = (
    "dpmo",
    "dpmo.graphs",
    "dpmo.trees",
    "dpmo.datasets",
    "dpmo.metrics",
    "dpmo.audit",
    "dpmo.experiments",
)

#: Public names allowed without an Examples section: none (keep it empty; never add to it).
EXAMPLES_TODO: frozenset[str] = frozenset()


#: Modules whose examples need a running Spark session: tests/test_graphs_spark.py and
#: tests/test_spark_select.py run them in their session (and skip them, with the reason, where pyspark or
#: Java is missing).
SPARK_PREFIXES = ("dpmo.graphs.spark", "dpmo.spark")


def _modules() -> list[str]:
    names = ["dpmo"]
    for info in pkgutil.walk_packages(dpmo.__path__, prefix="dpmo."):
        if any(info.name == p or info.name.startswith(p + ".") for p in SPARK_PREFIXES):
            continue
        names.append(info.name)
    return sorted(names)


def _public_callables():
    for mname in PUBLIC_MODULES:
        module = importlib.import_module(mname)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{mname}.{name}", obj


def _has_example(obj) -> bool:
    doc = inspect.getdoc(obj) or ""
    if "Examples\n--------" not in doc:
        return False
    return ">>>" in doc.split("Examples\n--------", 1)[1]


def test_every_public_callable_has_an_example():
    missing = sorted(n for n, obj in _public_callables() if not _has_example(obj) and n not in EXAMPLES_TODO)
    assert not missing, (
        "public functions/classes without an 'Examples' section with a doctest (see this file's docstring "
        f"for the rule): {missing}"
    )


def test_the_todo_list_names_public_callables():
    public = dict(_public_callables())
    assert EXAMPLES_TODO <= set(public), sorted(EXAMPLES_TODO - set(public))


@pytest.mark.parametrize("name", _modules())
def test_doctests_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failures = []
    for test in finder.find(module, name):
        runner = doctest.DocTestRunner(optionflags=flags)
        out: list[str] = []
        runner.run(test, out=out.append)
        if runner.failures:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)
