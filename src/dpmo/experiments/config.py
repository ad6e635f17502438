"""The paper's four experiments and the datasets they use, as data.

Every setting below is taken from the paper's "Experimental Evaluation" sections
(Farias et al.); where the paper contradicts itself (``docs/errata.md``, row 7) we
follow the axes of its tables and figures and say so in ``note``.

An experiment is a grid ``dataset x method x epsilon x run``. One *run* of one *cell*
``(experiment, dataset, method, epsilon)`` is computed by the function named in ``run_function`` (a
``"module:function"`` path, so that a task pickles to a few strings and runs on any joblib or Dask worker).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = [
    "DatasetSpec",
    "ExperimentConfig",
    "DATASETS",
    "EXPERIMENTS",
    "EXPERIMENT_NAMES",
    "NONPRIVATE_EPSILON",
    "PAPER_TREE_AGG",
    "PAPER_TREE_PARETO",
    "default_data_dirs",
    "find_dataset",
    "missing_dataset_message",
    "settings_hash",
    "toy_experiment",
]

#: Value written in the ``epsilon`` column for a non-private method (no privacy budget).
NONPRIVATE_EPSILON = math.inf

#: The paper's DP-MOET settings (``DPMOETClassifier`` arguments), written out so that a change of the
#: estimator's defaults changes neither the grid nor the benchmarks that reuse them: the Pareto runs
#: (``tree-pareto``; population, selection, iterations, depths, trees released) ...
PAPER_TREE_PARETO = dict(
    population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3
)
#: ... and the aggregation runs (``tree-agg``: fitness 3 TPR + 2 TNR, one tree released).
PAPER_TREE_AGG = dict(
    population_size=100,
    selection_size=20,
    n_iterations=2,
    initial_depth=3,
    max_depth=5,
    n_output=1,
    weights=(3.0, 2.0),
)


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset the experiments can use.

    Attributes
    ----------
    name : str
        Name used on the command line (``--datasets``) and in the CSV.
    kind : {"tree", "graph"}
        Tree experiments take labelled tables, graph experiments take graphs.
    files : tuple of tuple of str
        The files it needs, each as a tuple of accepted names (e.g. a file or its ``.gz``); empty for
        embedded data.
    source : str
        Where to get the files (printed when they are missing).
    embedded : bool
        Ships with an installed package (scikit-learn, networkx) or is generated from a fixed seed.
    title : str
        Human-readable name for tables and figures.

    Examples
    --------
    >>> from dpmo.experiments import DATASETS
    >>> spec = DATASETS["karate"] if "karate" in DATASETS else DATASETS["les-miserables"]
    >>> spec.kind, spec.embedded  # ships with networkx: no file needed
    ('graph', True)
    >>> "Email-Enron.txt" in DATASETS["enron"].files[0]  # a real dataset names the file(s) it needs
    True
    """

    name: str
    kind: str
    files: tuple[tuple[str, ...], ...] = ()
    source: str = ""
    embedded: bool = False
    title: str = ""

    @property
    def label(self) -> str:
        return self.title or self.name


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        DatasetSpec(
            "nltcs",
            "tree",
            (("nltcs.dat",),),
            "the 16-attribute binary NLTCS table (National Long Term Care Survey, 21,574 rows) as used by "
            "PrivBayes and the paper's code; survey home: https://www.nltcs.aas.duke.edu/",
            title="NLTCS",
        ),
        DatasetSpec(
            "adult",
            "tree",
            (("adult.data",), ("adult.test",)),
            "UCI Adult: https://archive.ics.uci.edu/dataset/2/adult (files adult.data and adult.test)",
            title="Adult",
        ),
        DatasetSpec(
            "acs",
            "tree",
            (("acs.dat",),),
            "the 23-attribute binary ACS PUMS 2013-2014 table (47,461 rows) as used by PrivBayes and the "
            "paper's code; PUMS home: https://www.census.gov/programs-surveys/acs/microdata.html",
            title="ACS",
        ),
        DatasetSpec(
            "github",
            "graph",
            (("musae_git_edges.csv",),),
            "SNAP GitHub social network: https://snap.stanford.edu/data/github-social.html "
            "(git_web_ml.zip, file musae_git_edges.csv)",
            title="Github",
        ),
        DatasetSpec(
            "enron",
            "graph",
            (("Email-Enron.txt", "Email-Enron.txt.gz", "email-Enron.txt", "email-Enron.txt.gz"),),
            "SNAP email-Enron: https://snap.stanford.edu/data/email-Enron.html (Email-Enron.txt.gz)",
            title="Enron",
        ),
        DatasetSpec(
            "dblp",
            "graph",
            (("com-dblp.ungraph.txt", "com-dblp.ungraph.txt.gz"),),
            "SNAP com-DBLP: https://snap.stanford.edu/data/com-DBLP.html (com-dblp.ungraph.txt.gz)",
            title="DBLP",
        ),
        # embedded data: needs no file
        DatasetSpec("breast-cancer", "tree", embedded=True, title="Breast cancer (sklearn)"),
        DatasetSpec("les-miserables", "graph", embedded=True, title="Les Miserables (networkx)"),
        DatasetSpec("karate", "graph", embedded=True, title="Karate club (networkx)"),
        DatasetSpec("florentine", "graph", embedded=True, title="Florentine families (networkx)"),
        DatasetSpec("synthetic", "graph", embedded=True, title="Synthetic power-law (seeded)"),
    )
}


@dataclass(frozen=True)
class ExperimentConfig:
    """Settings of one experiment of the paper.

    Attributes
    ----------
    name : str
        ``tree-pareto``, ``tree-agg``, ``graph-pareto`` or ``graph-agg``.
    title : str
    kind : {"tree", "graph"}
    methods : tuple of str
        Methods compared, in the order of the paper's legend / table columns.
    nonprivate : tuple of str
        Methods of ``methods`` that use no privacy budget: run once per repetition, written with
        ``epsilon = inf``, drawn as a dashed horizontal line.
    datasets : tuple of str
        The paper's datasets.
    epsilons : tuple of float
        The paper's privacy budgets (total budget of one run).
    runs : int
        Repetitions per cell (500 in the paper).
    params : dict
        Algorithm settings passed to the run function.
    dataset_params : dict
        Per-dataset overrides of ``params`` (e.g. k = 10 for DBLP).
    metrics : tuple of str
        Metric columns of the CSV, the first one being the paper's.
    metric_labels : dict
        Axis label per metric.
    lower_is_better : tuple of str
        Metrics where smaller is better (coverage C).
    paper_source : str
        Label of the paper's table or figure.
    paper_layout : {"table", "figure"}
    quick : dict
        Overrides for ``--quick`` (``datasets``, ``epsilons``, ``runs``, ``params``).
    run_function : str
        ``"module:function"`` computing one run (see :mod:`dpmo.experiments.methods`).
    chunk : int
        Runs per parallel task.
    shared_reference : bool
        The run function computes, per repetition, a reference shared by every method and budget of that
        repetition (cached per process, e.g. the non-private trees of ``tree-pareto``). The tasks of the
        same repetitions (dataset and runs) then go to one worker together, so that each reference is
        computed once and not once per worker (:func:`dpmo.experiments.tasks.batch_tasks`).
    note : str
        Settings we had to choose, and why (written into the report). ``$name`` placeholders are filled
        with the run's own settings: any scalar of ``params``, ``$w1``, ``$w2`` (the weights) and
        ``$epsilons`` (the budgets in the results).

    Examples
    --------
    >>> from dpmo.experiments import EXPERIMENTS
    >>> config = EXPERIMENTS["graph-agg"]
    >>> config.primary_metric, config.kind
    ('recall', 'graph')
    >>> quick = config.quick_version()  # the --quick grid: embedded data, fewer runs
    >>> quick.runs < config.runs and set(quick.datasets).isdisjoint(config.datasets)
    True
    """

    name: str
    title: str
    kind: str
    methods: tuple[str, ...]
    datasets: tuple[str, ...]
    epsilons: tuple[float, ...]
    metrics: tuple[str, ...]
    run_function: str
    nonprivate: tuple[str, ...] = ()
    runs: int = 500
    params: dict[str, Any] = field(default_factory=dict)
    dataset_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    metric_labels: dict[str, str] = field(default_factory=dict)
    lower_is_better: tuple[str, ...] = ()
    paper_source: str = ""
    paper_layout: str = "figure"
    quick: dict[str, Any] = field(default_factory=dict)
    chunk: int = 10
    shared_reference: bool = False
    note: str = ""

    @property
    def primary_metric(self) -> str:
        return self.metrics[0]

    def params_for(self, dataset: str) -> dict[str, Any]:
        """``params`` with the overrides for ``dataset``."""
        out = dict(self.params)
        out.update(self.dataset_params.get(dataset, {}))
        return out

    def private_methods(self) -> tuple[str, ...]:
        return tuple(m for m in self.methods if m not in self.nonprivate)

    def quick_version(self) -> ExperimentConfig:
        """The small ``--quick`` grid on embedded data."""
        q = self.quick
        params = dict(self.params)
        params.update(q.get("params", {}))
        return replace(
            self,
            datasets=tuple(q.get("datasets", self.datasets)),
            epsilons=tuple(q.get("epsilons", self.epsilons)),
            runs=int(q.get("runs", self.runs)),
            params=params,
            dataset_params={**self.dataset_params, **q.get("dataset_params", {})},
        )


_TREE_PARETO_NOTE = (
    "Pareto selection of trees by TPR and TNR on the whole table (the paper's objectives are defined on the "
    "data x; no train/test split). C(X', X'') with X' the (TPR, TNR) of the $n_output output trees of "
    "NODP-MOET-Pareto and X'' those of the private method, counting a tree as covered when an exact tree is "
    "strictly better in both objectives (the published code's reading; the paper's weak-dominance formula "
    "would give C = 1 to a private output equal to the exact one, ERRATA 4); `coverage_weak` keeps the "
    "paper's formula. The reference NODP run of repetition r is shared by every method and epsilon of "
    "repetition r. The total budget epsilon covers all k + 1 selection rounds (ERRATA 4)."
)
_TREE_AGG_NOTE = (
    "Fitness $w1 TPR + $w2 TNR of the single output tree, measured on the whole table. The TPR/TNR local "
    "sensitivity is the corrected admissible one (ERRATA 1), not the paper's printed formula. "
    "NODP-MOET-Agg uses no budget and is drawn as a dashed line. LocalDiffPID3 gets max depth $max_depth "
    "(= dmax)."
)
_GRAPH_PARETO_NOTE = (
    "The table's caption says epsilon in {10^-1, ..., 10^3} and k = 3; its rows are {0.1, ..., 50} and the "
    "text sets k = 10 for DBLP: we follow the rows and the text (ERRATA 7); this run: epsilon in $epsilons, "
    "k = $k. C(X', X'') with X' the "
    "(degree, ego density) of the exact top-k by Pareto score and X'' those of the k private picks (strict "
    "dominance). We also report the share of picks that lie on the Pareto front and the recall of the exact "
    "top-k, because C alone rewards picks with other trade-offs (ERRATA 5). Ego-density sensitivity is the "
    "tight admissible 2/(deg - t) (ERRATA 2), not the paper's 2/(deg - t - 2)."
)
_GRAPH_AGG_NOTE = (
    "The figure's caption says epsilon in {0.01, ..., 2.0}, its axis goes to 100: we follow the axis "
    "{0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 100} (ERRATA 7); this run: epsilon in $epsilons. Recall of "
    "the exact top-$k by u_agg = $w1 degree + $w2 ego density. Ego-density sensitivity corrected as in "
    "ERRATA 2."
)

EXPERIMENTS: dict[str, ExperimentConfig] = {
    cfg.name: cfg
    for cfg in (
        ExperimentConfig(
            name="tree-pareto",
            title="DP-MOET-Pareto: coverage C against NODP-MOET-Pareto",
            kind="tree",
            methods=(
                "DP-MOET-Pareto-global",
                "DP-MOET-Pareto-local",
                "DP-MOET-Chebyshev-local",
                "DP-MOET-Staircase-local",
            ),
            datasets=("nltcs", "adult", "acs"),
            epsilons=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0),
            metrics=("coverage", "coverage_weak", "hypervolume_ratio"),
            metric_labels={
                "coverage": "mean C(X', X'') (lower is better)",
                "coverage_weak": "mean C with weak dominance",
                "hypervolume_ratio": "hypervolume of the output trees / best of the reference's",
            },
            lower_is_better=("coverage", "coverage_weak"),
            run_function="dpmo.experiments.methods:tree_pareto_run",
            params=dict(PAPER_TREE_PARETO, mechanism="exponential", dominance="strict"),
            paper_source="Table \\ref{table:private_tree_pareto}",
            paper_layout="table",
            quick=dict(datasets=("breast-cancer",), runs=10),  # the paper's budgets, 10 repetitions
            chunk=5,
            shared_reference=True,
            note=_TREE_PARETO_NOTE,
        ),
        ExperimentConfig(
            name="tree-agg",
            title="DP-MOET-Agg: fitness 3 TPR + 2 TNR",
            kind="tree",
            methods=("DP-MOET-Agg-local", "DP-MOET-Agg-global", "LocalDiffPID3", "NODP-MOET-Agg"),
            nonprivate=("NODP-MOET-Agg",),
            datasets=("nltcs", "adult", "acs"),
            epsilons=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0),
            metrics=("fitness", "tpr", "tnr"),
            metric_labels={"fitness": "mean fitness 3 TPR + 2 TNR", "tpr": "TPR", "tnr": "TNR"},
            run_function="dpmo.experiments.methods:tree_agg_run",
            params=dict(
                PAPER_TREE_AGG,
                mechanism="exponential",
            ),
            paper_source="Figure \\ref{fig:weighted_tree}",
            paper_layout="figure",
            quick=dict(datasets=("breast-cancer",), runs=10),
            chunk=5,
            note=_TREE_AGG_NOTE,
        ),
        ExperimentConfig(
            name="graph-pareto",
            title="DP-MOTkIN-Pareto: coverage C against the exact top-k",
            kind="graph",
            methods=("DP-MOTkIN-Pareto-global", "DP-MOTkIN-Pareto-local", "DP-MOTkIN-Chebyshev-local"),
            datasets=("github", "enron", "dblp"),
            epsilons=(0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0),
            metrics=("coverage", "front_share", "recall", "hypervolume_ratio"),
            metric_labels={
                "coverage": "mean C(top-k, picks) (lower is better)",
                "front_share": "share of picks on the Pareto front",
                "recall": "recall of the exact top-k",
                "hypervolume_ratio": "hypervolume of the picks / best of k front nodes",
            },
            lower_is_better=("coverage",),
            run_function="dpmo.experiments.methods:graph_pareto_run",
            params=dict(k=3, mechanism="exponential", dominance="strict", ego_density="paper"),
            dataset_params={"dblp": {"k": 10}},
            paper_source="Table \\ref{table:topk_graph_pareto}",
            paper_layout="table",
            quick=dict(datasets=("les-miserables", "synthetic"), runs=40),
            chunk=100,
            note=_GRAPH_PARETO_NOTE,
        ),
        ExperimentConfig(
            name="graph-agg",
            title="DP-MOTkIN-Agg: recall of the exact top-k",
            kind="graph",
            methods=("DP-MOTkIN-Agg-global", "DP-MOTkIN-Agg-local"),
            datasets=("enron", "dblp", "github"),
            epsilons=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 100.0),
            metrics=("recall",),
            metric_labels={"recall": "mean recall of the exact top-k"},
            run_function="dpmo.experiments.methods:graph_agg_run",
            params=dict(k=5, weights=(1.0, 100.0), mechanism="exponential", ego_density="paper"),
            paper_source="Figure \\ref{fig:graph_weighted}",
            paper_layout="figure",
            quick=dict(datasets=("les-miserables", "synthetic"), runs=100),
            chunk=100,
            note=_GRAPH_AGG_NOTE,
        ),
    )
}

EXPERIMENT_NAMES: tuple[str, ...] = tuple(EXPERIMENTS)


def toy_experiment(
    *,
    methods=("A", "NODP"),
    epsilons=(0.1, 1.0),
    runs: int = 4,
    chunk: int = 2,
    shared_reference: bool = False,
    params: dict[str, Any] | None = None,
) -> ExperimentConfig:
    """A toy grid for examples and tests: the fast stand-in run function
    :func:`dpmo.experiments.methods.toy_run` (no data) on one data set ``"toy"``; a method named
    ``"NODP"`` is the non-private one. ``params`` are added to the run function's (``{"n": 20}``).

    Examples
    --------
    >>> from dpmo.experiments import plan_tasks, toy_experiment
    >>> toy = toy_experiment()
    >>> toy.methods, toy.epsilons, toy.runs
    (('A', 'NODP'), (0.1, 1.0), 4)
    >>> sum(len(t.runs) for t in plan_tasks(toy, {"toy": []}, seed=0))  # A at 2 budgets, NODP once
    12
    """
    methods = tuple(methods)
    return ExperimentConfig(
        name="toy",
        title="toy grid",
        kind="tree",
        methods=methods,
        nonprivate=tuple(m for m in methods if m == "NODP"),
        datasets=("toy",),
        epsilons=tuple(epsilons),
        metrics=("score", "ref"),
        run_function="dpmo.experiments.methods:toy_run",
        runs=runs,
        chunk=chunk,
        shared_reference=shared_reference,
        params={"n": 20, **(params or {})},
    )


def default_data_dirs() -> list[Path]:
    """Folders searched for real data when ``--data-dir`` is not given, in order.

    ``$DPMO_DATA_DIR``, ``./data``, ``../shared/data`` (the layout of this project's machines).
    """
    dirs = []
    env = os.environ.get("DPMO_DATA_DIR")
    if env:
        dirs.append(Path(env))
    dirs += [Path("data"), Path("..") / "shared" / "data"]
    return dirs


def find_dataset(name: str, data_dirs: list[Path]) -> list[Path] | None:
    """Paths of the files of dataset ``name`` in the first folder that has all of them, else None.

    Embedded datasets need no file and give ``[]``.
    """
    spec = DATASETS[name]
    if spec.embedded:
        return []
    for folder in data_dirs:
        found = []
        for alternatives in spec.files:
            hit = next((folder / f for f in alternatives if (folder / f).is_file()), None)
            if hit is None:
                break
            found.append(hit)
        else:
            return found
    return None


def missing_dataset_message(name: str, data_dirs: list[Path]) -> str:
    """One line saying which file of ``name`` is missing, where we looked, and where to get it."""
    spec = DATASETS[name]
    files = " and ".join(alts[0] for alts in spec.files)
    where = ", ".join(str(d) for d in data_dirs) or "(no folder)"
    return f"dataset '{name}' not found: need {files} in one of {where}; get it from {spec.source}"


def settings_hash(experiment: str, dataset: str, params: dict[str, Any], seed: int) -> str:
    """Short fingerprint of everything that determines a run besides (method, epsilon, run).

    Rows of the CSV with another fingerprint (other settings or master seed) are not reused.
    """
    blob = json.dumps(
        {"e": experiment, "d": dataset, "p": params, "s": int(seed)}, sort_keys=True, default=str
    )
    return hashlib.sha1(blob.encode()).hexdigest()[:10]
