"""The parser of the ``dpmo`` command line (:func:`build_parser`): its sub-commands and their options."""

from __future__ import annotations

import argparse

from .. import __version__, _defaults
from .._choices import MECHANISMS
from .args import Parser, delimiter, epsilon, jobs, objective, positive_int, seed
from .options import (
    DROPPED_ROWS,
    add_delta,
    add_explain,
    add_float_sampler,
    add_seed,
    add_selection_options,
    add_table_options,
)

__all__ = ["build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dpmo`` (exposed for the docs and tests); imports no numpy (module notes of
    :mod:`dpmo.cli`)."""
    from ..experiments.config import DATASETS, EXPERIMENT_NAMES

    parser = Parser(
        prog="dpmo",
        description="Differentially private multi-objective selection: reproduce the "
        "paper's experiments, or run private selection (select), DP-MOTkIN (topk), DP-MOET (trees) "
        "or DiffP-ID3 / LocalDiffPID3 (id3) on your own data.",
    )
    parser.add_argument("--version", action="version", version=f"dpmo {__version__}")
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
    add_delta(
        rep,
        "improvement rows: run every private method (epsilon, DELTA)-DP at the accountant's epsilons, "
        "as --reading delta=DELTA (the paper's rows, without --delta, stay pure epsilon-DP)",
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
        help="the public node set: a file of node ids (whitespace- or comma-separated, '#' comments; with "
        "--delimiter: separated by it and by line breaks, so that ids may hold spaces)",
    )
    node_set.add_argument(
        "--n-nodes", type=positive_int, metavar="N", help="the public node set is the ids 0..N-1"
    )
    top.add_argument("-k", type=positive_int, default=_defaults.GRAPH_K, help="number of nodes")
    top.add_argument("--epsilon", type=epsilon, default=_defaults.EPSILON, help="total privacy budget")
    add_delta(top)
    add_selection_options(
        top,
        approach=_defaults.GRAPH_APPROACH,
        approach_help="agg = weighted sum, pareto = Pareto score (near-random on real graphs), chebyshev = "
        "picks spread along the front (no dominated pick without noise): where a node's expected false "
        "edges (n - 1) / (1 + e^epsilon) are at most 8 (from epsilon 4.82 at 10^3 nodes, 7.13 at 10^4) "
        "the graph released by randomized response on every node pair and its greedy hypervolume picks, "
        "below that the private staircase; staircase = the private staircase at every epsilon; agg can be "
        "ahead at epsilon 0.5-2 on graphs with few triangles, where the top degrees barely stand out, and "
        "for one pick (-k 1) on small preferential-attachment graphs below the released graph's epsilon, "
        "and for two (-k 2) on a hub joined to a clique at epsilon 10 (--explain)",
        weights=_defaults.GRAPH_WEIGHTS,
        weight_names=("W_DEGREE", "W_EGO"),
    )
    add_seed(top)
    add_float_sampler(top)
    add_explain(top, "the size of the public node set; the graph file is not opened")
    top.add_argument(
        "--show-exact-statistics",
        action="store_true",
        help="also print the exact degree and ego density of the picks and the exact reference of the "
        "approach (the top-k; for chebyshev and staircase the greedy hypervolume picks), under a NOT PRIVATE "
        "heading (never publish them)",
    )
    top.add_argument("--header", action="store_true", help="skip the first line (never guessed)")
    top.add_argument("--string-ids", action="store_true", help="node ids are text, not integers")
    top.add_argument(
        "--delimiter",
        type=delimiter,
        metavar="CHAR",
        help="the one character between the two ids of a line (default: a comma if the first line has "
        "one, else any run of spaces or tabs); with --delimiter ',' or '\\t' node names may hold spaces",
    )

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
        "or a folder holding both). " + DROPPED_ROWS + " DP-MOET optimises a cost-sensitive trade-off, "
        "W_TPR TPR + W_TNR TNR (default 3 TPR + 2 TNR), not accuracy: on Adult at epsilon 1 its tree's "
        "accuracy was 0.692, below the 0.754 of always predicting the majority class "
        "(docs/private-tree.md). For balanced accuracy pass --weights 1 1; for accuracy, weights "
        "proportional to the classes' shares, or use dpmo.trees.PrivateTreeClassifier (0.836 on Adult).",
    )
    add_table_options(tr)
    tr.add_argument("--non-private", action="store_true", help="no privacy (NODP-MOET), for comparison")
    add_selection_options(
        tr,
        approach=_defaults.TREE_APPROACH,
        approach_help="agg = weighted sum; pareto = Pareto score, CAUTION: close to random at epsilon 1, its "
        "tree can be worse than a constant (breast cancer, epsilon 1, 10 seeds: accuracy 0.25-0.79, 7 fits "
        "below the constant classifier's 0.63; agg: 0.59-0.91; docs/trees.md, 'Which approach'); "
        "chebyshev = PrivChebyshev",
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
    add_float_sampler(tr)

    id3 = sub.add_parser(
        "id3",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help="private ID3 decision tree on a table (DiffP-ID3 / LocalDiffPID3)",
        description="Build one private ID3 tree on TABLE and print it (the private release: one multiway "
        "split per node on a categorical column's public categories or a numeric column's equal-width bins "
        "of its public bounds, leaf labels). --sensitivity global is DiffP-ID3 (Friedman and Schuster), "
        "local is LocalDiffPID3 (local dampening). TABLE, the predictors, --eval, --save-json and "
        "--show-exact-statistics as in 'dpmo trees'. " + DROPPED_ROWS,
    )
    add_table_options(id3)
    id3.add_argument(
        "--sensitivity",
        choices=("local", "global"),
        default=_defaults.SENSITIVITY,
        help="local = LocalDiffPID3, global = DiffP-ID3",
    )
    id3.add_argument("--max-depth", type=positive_int, default=_defaults.ID3_MAX_DEPTH, help="maximum depth")
    id3.add_argument(
        "--criterion",
        choices=("info_gain", "gini", "max"),
        default=_defaults.ID3_CRITERION,
        help="split criterion",
    )
    id3.add_argument(
        "--n-bins", type=positive_int, default=_defaults.ID3_N_BINS, help="bins of a numeric column's bounds"
    )
    id3.add_argument(
        "--max-records",
        type=positive_int,
        default=_defaults.ID3_MAX_RECORDS,
        help="public bound of the information gain's counts (see docs/id3.md)",
    )
    id3.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        default=_defaults.MECHANISM,
        help="selection of the split attribute",
    )
    add_float_sampler(id3, exact=_defaults.EXACT_ID3)

    sel = sub.add_parser(
        "select",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help="private selection of k candidates of a table by several objectives",
        description="Pick k rows of CANDIDATES (a CSV file with a header line, or a .parquet file) that are "
        "good in every objective, under epsilon-DP: the paper's general problem. Each --objective names a "
        "column of utilities computed on the private data, its global sensitivity (how far one change of "
        "the private data can move any value of the column: declared by you, never read from the data) "
        "and its direction. The candidates themselves (the rows and --id-column) are public. Prints the "
        "ids of the k picks, one per line, in selection order, and nothing else. Every objective cell must "
        "hold a finite number; the command stops, releasing nothing, at the first one that does not.",
    )
    sel.add_argument("candidates", metavar="CANDIDATES")
    sel.add_argument(
        "--objective",
        type=objective,
        action="append",
        required=True,
        metavar="COL=SENS[@LOW:HIGH][:max|:min]",
        help="an objective column, its global sensitivity, optionally its public declared range LOW:HIGH "
        "in the column's units (declared by you, never read from the data), and its direction (max: larger "
        "is better, the default; min: smaller is better), e.g. --objective rate=0.001@0.5:1 "
        "--objective cost=2@0:300:min (repeat for each objective). chebyshev and staircase compare the "
        "objectives in units of their ranges; without ranges, in units of their sensitivities (declare "
        "ranges when the columns are in different units)",
    )
    sel.add_argument("-k", type=positive_int, default=1, help="number of candidates to pick")
    sel.add_argument("--epsilon", type=epsilon, default=_defaults.EPSILON, help="total privacy budget")
    add_delta(sel)
    sel.add_argument(
        "--id-column",
        metavar="COL",
        help="column holding the candidates' ids (default: row numbers 0, 1, ...)",
    )
    sel.add_argument(
        "--delimiter",
        type=delimiter,
        default=",",
        metavar="CHAR",
        help="CSV: the one character between fields",
    )
    add_selection_options(
        sel,
        approach="pareto",
        approach_help="pareto = PrivPareto, agg = PrivAgg (needs --weights), chebyshev = PrivChebyshev "
        "(augmented, along fixed directions), staircase = private greedy hypervolume (every objective needs "
        "@LOW:HIGH; without ranges the corner staircase, in sensitivity units; ranges on some objectives "
        "only: a warning). Picks are Pareto-optimal when the noise is negligible (pareto always, chebyshev "
        "and staircase with ranges, without ranges while every column spans at most the gate's width, "
        "--explain); agg is the safer choice when one weighted sum is what you want, at "
        "small epsilon (below about 1 per pick), or with few rows per sensitivity unit (docs/pareto.md, "
        "'Which approach')",
        weights=None,
        weight_names="W",
    )
    add_seed(sel)
    add_float_sampler(sel, exact=_defaults.EXACT)
    add_explain(
        sel, "the number of rows of CANDIDATES: every line's fields are counted, no objective value is parsed"
    )
    sel.add_argument(
        "--spark",
        action="store_true",
        help="read CANDIDATES with a local Apache Spark session and select with dpmo.spark.select (the same "
        "law; scores and noise on Spark's executors): a CSV or .parquet file or a folder of them, as Spark "
        "writes them; needs the extra spark and Java 17+; the float sampler is the default here",
    )
    return parser
