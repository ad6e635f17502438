"""Docstring examples: every public function and class has an ``Examples`` section, and all of them run.

The rule (binding for new code): a name exported by ``dpmo.__all__`` or by the ``__all__`` of
``dpmo.graphs``, ``dpmo.trees``, ``dpmo.datasets``, ``dpmo.metrics``, ``dpmo.audit`` or ``dpmo.experiments``
that is a function or a class needs a numpydoc ``Examples`` section with at least one doctest. Examples are
deterministic (seeded ``rng``), quick (well under a second), and show shapes, properties or independently
computed values rather than outputs copied from the code under test. Every doctest in every ``dpmo``
module runs here (``test_doctests_run``), so they stay true.

``EXAMPLES_TODO`` lists the names that still lack an example; it may only shrink. A new public name that is
not in it must come with its example, or ``test_every_public_callable_has_an_example`` fails.
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

#: Public names without an Examples section yet (to be emptied; never add to it).
EXAMPLES_TODO = frozenset(
    {
        "dpmo.LocalSensitivity",
        "dpmo.Objective",
        "dpmo.aggregate",
        "dpmo.check_random_state",
        "dpmo.dampen",
        "dpmo.local_dampening",
        "dpmo.pareto_sensitivity",
        "dpmo.priv_agg",
        "dpmo.priv_chebyshev",
        "dpmo.priv_pareto",
        "dpmo.probabilities",
        "dpmo.select",
        "dpmo.graphs.Graph",
        "dpmo.graphs.aggregate_scores",
        "dpmo.graphs.degree",
        "dpmo.graphs.degree_objective",
        "dpmo.graphs.degree_sensitivity",
        "dpmo.graphs.ego_density",
        "dpmo.graphs.ego_density_objective",
        "dpmo.graphs.ego_density_sensitivity",
        "dpmo.graphs.load_graph",
        "dpmo.graphs.objectives",
        "dpmo.graphs.pareto_front",
        "dpmo.graphs.pareto_scores",
        "dpmo.graphs.random_collaboration_graph",
        "dpmo.graphs.read_edge_list",
        "dpmo.graphs.selection_scores",
        "dpmo.graphs.top_k",
        "dpmo.graphs.top_k_exact",
        "dpmo.graphs.top_k_two_stage",
        "dpmo.graphs.triangles",
        "dpmo.graphs.two_stage_candidates",
        "dpmo.trees.EncodedData",
        "dpmo.trees.ID3Tree",
        "dpmo.trees.Tree",
        "dpmo.trees.TreePopulation",
        "dpmo.trees.crossover",
        "dpmo.trees.expected_failed_checks",
        "dpmo.trees.mutate",
        "dpmo.trees.prune",
        "dpmo.trees.random_tree",
        "dpmo.trees.rate_sensitivity",
        "dpmo.trees.selection_scores",
        "dpmo.trees.split_choice_scores",
        "dpmo.trees.tnr_objective",
        "dpmo.trees.tpr_objective",
        "dpmo.trees.tree_from_nested",
        "dpmo.datasets.Feature",
        "dpmo.datasets.Dataset",
        "dpmo.datasets.load_nltcs",
        "dpmo.datasets.load_acs",
        "dpmo.datasets.load_adult",
        "dpmo.datasets.load_csv",
        "dpmo.datasets.load_breast_cancer",
        "dpmo.metrics.dominates",
        "dpmo.metrics.coverage",
        "dpmo.metrics.recall",
        "dpmo.metrics.front_share",
        "dpmo.metrics.hypervolume",
        "dpmo.metrics.hypervolume_ratio",
        "dpmo.metrics.best_hypervolume",
        "dpmo.metrics.weighted_fitness",
        "dpmo.metrics.tpr_tnr",
        "dpmo.audit.Violation",
        "dpmo.audit.check_admissibility",
        "dpmo.audit.local_sensitivity_at_distance",
        "dpmo.audit.max_log_ratio",
        "dpmo.audit.max_dampened_change",
        "dpmo.experiments.DatasetSpec",
        "dpmo.experiments.ExperimentConfig",
        "dpmo.experiments.Task",
        "dpmo.experiments.cell_seed",
        "dpmo.experiments.mean_ci",
        "dpmo.experiments.paper_results",
        "dpmo.experiments.plan_tasks",
        "dpmo.experiments.plot_experiment",
        "dpmo.experiments.read_rows",
        "dpmo.experiments.reference_seed",
        "dpmo.experiments.run_experiment",
        "dpmo.experiments.run_task",
        "dpmo.experiments.summarize",
    }
)


def _modules() -> list[str]:
    names = ["dpmo"]
    for info in pkgutil.walk_packages(dpmo.__path__, prefix="dpmo."):
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
