"""The parser of the ``dpmo`` command line (:func:`build_parser`): its sub-commands and their options."""

from __future__ import annotations

import argparse

from .. import _defaults
from ..selection import approaches
from .args import Parser, epsilon, jobs, positive_int, seed

__all__ = ["build_parser", "add_float_sampler", "add_selection_options"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dpmo`` (exposed for the docs and tests)."""
    from ..experiments.config import DATASETS, EXPERIMENT_NAMES

    parser = Parser(
        prog="dpmo",
        description="Differentially private multi-objective selection: reproduce the "
        "paper's experiments, or run DP-MOTkIN / DP-MOET on your own data.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    rep = sub.add_parser(
        "reproduce",
        help="reproduce the paper's tables and figures",
        description="Run an experiment grid of the paper (resumable: runs already in the CSV "
        "are skipped) and write CSV, tables, figures and report.md to --out.",
    )
    rep.add_argument(
        "experiment", metavar="EXPERIMENT", nargs="?", help=f"one of {', '.join(EXPERIMENT_NAMES)}, all"
    )
    rep.add_argument(
        "--data-dir",
        metavar="DIR",
        help="folder with the real datasets (default: $DPMO_DATA_DIR, ./data, ../shared/data)",
    )
    rep.add_argument("--runs", type=positive_int, metavar="N", help="repetitions per cell (paper: 500)")
    rep.add_argument("--epsilons", nargs="+", metavar="EPS", help="privacy budgets, e.g. 0.1,1,10")
    rep.add_argument("--datasets", nargs="+", metavar="NAME", help=f"datasets, among {', '.join(DATASETS)}")
    rep.add_argument("--methods", nargs="+", metavar="NAME", help="subset of the experiment's methods")
    rep.add_argument(
        "--jobs",
        "-j",
        type=jobs,
        default="auto",
        metavar="N",
        help="parallel workers: auto (default: runs in this process while the work left looks shorter "
        "than a few seconds, then on all cores; measured fastest on 2 cores), N, or -1 = all cores",
    )
    rep.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    rep.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="output folder (default: results, or results-quick with --quick)",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="small grid on embedded data (breast cancer table, networkx graphs): a few minutes",
    )
    rep.add_argument(
        "--backend",
        choices=("loky", "dask"),
        default="loky",
        help="joblib's process pool (default) or a Dask cluster",
    )
    rep.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (default with --backend dask: a "
        "local cluster of --jobs workers)",
    )
    rep.add_argument(
        "--progress",
        choices=("auto", "bar", "lines", "off"),
        default="auto",
        help="auto (default): a bar on a terminal, a plain line on stderr every 10%% or 30 s otherwise "
        "(logs, pipes)",
    )
    rep.add_argument("--no-report", action="store_true", help="only run, do not write tables/figures/report")
    rep.add_argument(
        "--ego-density",
        choices=("paper", "published"),
        default="paper",
        help="graph experiments: the paper's ego density (default) or the published code's convention "
        "(no factor 2, density 1 at degree 1), see ERRATA 4",
    )
    rep.add_argument(
        "--reading",
        action="append",
        metavar="NAME[=VALUE]",
        help="run under a named alternative reading of the paper (repeatable; see --list-readings); "
        "readings marked NOT PRIVATE break differential privacy and say so in the CSV and report",
    )
    rep.add_argument("--list-readings", action="store_true", help="list the readings, one per line, and exit")

    top = sub.add_parser(
        "topk",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help="private top-k influential nodes of a graph (DP-MOTkIN)",
        description="Select k influential nodes of GRAPH_FILE (an edge list: two node ids per "
        "line, separated by spaces, tabs or a comma; '#' comments) under epsilon-edge DP, "
        "by degree and ego density. The node set is public input (--nodes FILE or --n-nodes N): "
        "it is never read from the private edges. Prints only the private node ids.",
    )
    top.add_argument("graph_file", metavar="GRAPH_FILE")
    node_set = top.add_mutually_exclusive_group()
    node_set.add_argument(
        "--nodes",
        metavar="FILE",
        help="the public node set: a file of node ids (whitespace- or comma-separated, '#' comments)",
    )
    node_set.add_argument(
        "--n-nodes", type=positive_int, metavar="N", help="the public node set is the ids 0..N-1"
    )
    top.add_argument("-k", type=positive_int, default=_defaults.GRAPH_K, help="number of nodes")
    top.add_argument("--epsilon", type=epsilon, default=_defaults.EPSILON, help="total privacy budget")
    add_selection_options(
        top,
        approach=_defaults.GRAPH_APPROACH,
        approach_help="agg = weighted sum, pareto = Pareto score (near-random on real graphs)",
        weights=_defaults.GRAPH_WEIGHTS,
        weight_names=("W_DEGREE", "W_EGO"),
    )
    top.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="seed, for tests only (None: fresh randomness from the OS's secure source)",
    )
    add_float_sampler(top)
    top.add_argument(
        "--show-exact-statistics",
        action="store_true",
        help="also print the exact degree and ego density of the picks and the exact top-k, under a "
        "NOT PRIVATE heading (never publish them)",
    )
    top.add_argument("--header", action="store_true", help="skip the first line (never guessed)")
    top.add_argument("--string-ids", action="store_true", help="node ids are text, not integers")

    tr = sub.add_parser(
        "trees",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help="private cost-sensitive decision tree on a CSV table (DP-MOET)",
        description="Build DP-MOET trees on TABLE and print them (the private release: splits by feature "
        "and threshold or category, leaf labels; --save-json FILE saves them). Their TPR/TNR are shown on a "
        "public evaluation table (--eval FILE), or on TABLE itself only with --show-exact-statistics, "
        "under a NOT PRIVATE heading. "
        "TABLE is a CSV file (comma-separated, with a header line or --no-header; the predictors are "
        "the columns named by --categorical and --numeric, with public domains), a .dat table with its "
        ".domain file beside it (nltcs.dat, acs.dat), or the UCI Adult files (adult.data, adult.test, "
        "or a folder holding both).",
    )
    tr.add_argument("csv_file", metavar="TABLE")
    tr.add_argument(
        "--label",
        metavar="COL",
        help="the class column: its name (a CSV with a header), its 0-based number (a CSV without header, "
        "or a .dat table: default 13 for nltcs, 10 for acs, else the last); not needed for Adult",
    )
    tr.add_argument("--no-header", action="store_true", help="the CSV has no header line (columns 0, 1, ...)")
    tr.add_argument(
        "--positive",
        metavar="VALUE",
        help="CSV: VALUE is the positive class and every other label the negative one (without it and "
        "--classes: the label set is 0,1)",
    )
    tr.add_argument(
        "--classes",
        metavar="NEGATIVE,POSITIVE",
        help="CSV: the public label set (default 0,1); any other label is an error naming its line, whatever "
        "the other rows hold; leaves are printed with these names",
    )
    tr.add_argument(
        "--show-exact-statistics",
        action="store_true",
        help="also print the trees' exact TPR/TNR on the private table, under a NOT PRIVATE heading "
        "(never publish them)",
    )
    tr.add_argument(
        "--eval",
        metavar="FILE",
        help="a public evaluation table, read like TABLE: print the trees' TPR/TNR on it",
    )
    tr.add_argument(
        "--save-json", metavar="FILE", help="also save the trees (and any statistics shown) as JSON"
    )
    tr.add_argument("--epsilon", type=epsilon, default=_defaults.EPSILON, help="total privacy budget")
    tr.add_argument("--non-private", action="store_true", help="no privacy (NODP-MOET), for comparison")
    add_selection_options(
        tr,
        approach=_defaults.TREE_APPROACH,
        approach_help="agg = weighted sum, pareto = Pareto score",
        weights=_defaults.TREE_WEIGHTS,
        weight_names=("W_TPR", "W_TNR"),
    )
    tr.add_argument(
        "--population-size",
        type=positive_int,
        default=_defaults.TREE_POPULATION_SIZE,
        help="initial trees, and trees created per generation",
    )
    tr.add_argument(
        "--selection-size",
        type=positive_int,
        default=_defaults.TREE_SELECTION_SIZE,
        help="trees kept per generation",
    )
    tr.add_argument(
        "--iterations", type=positive_int, default=_defaults.TREE_N_ITERATIONS, help="generations"
    )
    tr.add_argument(
        "--initial-depth",
        type=positive_int,
        default=_defaults.TREE_INITIAL_DEPTH,
        help="depth of the initial random trees",
    )
    tr.add_argument("--max-depth", type=positive_int, default=_defaults.TREE_MAX_DEPTH, help="maximum depth")
    tr.add_argument("--n-output", type=positive_int, default=_defaults.TREE_N_OUTPUT, help="trees returned")
    tr.add_argument(
        "--categorical",
        nargs="+",
        metavar="COL[=V1,V2,...]",
        help="categorical predictors with their public categories (COL alone: 0,1)",
    )
    tr.add_argument(
        "--numeric",
        nargs="+",
        metavar="COL=LO:HI",
        help="numeric predictors with public bounds (never taken from the data)",
    )
    tr.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="seed, for tests only (None: fresh randomness from the OS's secure source)",
    )
    add_float_sampler(tr)
    return parser


def add_selection_options(
    sub: argparse.ArgumentParser,
    *,
    approach: str,
    approach_help: str,
    weights: tuple[float, float],
    weight_names: tuple[str, str],
) -> None:
    """Add the options every private selection command shares: approach, sensitivity, weights, mechanism.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_selection_options(p, approach="agg", approach_help="", weights=(1.0, 2.0),
    ...                       weight_names=("A", "B"))
    >>> args = p.parse_args(["--sensitivity", "global", "--weights", "3", "4"])
    >>> args.approach, args.sensitivity, list(args.weights)
    ('agg', 'global', [3.0, 4.0])
    """
    sub.add_argument(
        "--approach", choices=approaches(), default=approach, help=f"selection approach: {approach_help}"
    )
    sub.add_argument(
        "--sensitivity", choices=("local", "global"), default=_defaults.SENSITIVITY, help="sensitivity"
    )
    sub.add_argument(
        "--weights",
        type=float,
        nargs=2,
        default=weights,
        metavar=weight_names,
        help="weights of the aggregation",
    )
    sub.add_argument(
        "--mechanism", default=_defaults.MECHANISM, help="exponential, permute_and_flip, laplace or gumbel"
    )


def add_float_sampler(sub: argparse.ArgumentParser) -> None:
    """Add the ``--float-sampler`` option (exact sampling is the default) to the sub-command ``sub``."""
    sub.add_argument(
        "--float-sampler",
        action="store_true",
        help="sample with the fast floating-point sampler instead of the exact one (the default: exact "
        "rational scores, randomness from the OS's secure source; see docs/core.md); needed for "
        "--mechanism laplace, which has no exact sampler",
    )
