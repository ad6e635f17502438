"""The ``dpmo`` command line.

``dpmo reproduce EXPERIMENT``
    Reproduce a table or figure of the paper (``tree-pareto``, ``tree-agg``, ``graph-pareto``,
    ``graph-agg``, or ``all``) in parallel, resumably, with tables, figures and ``report.md``.
``dpmo topk GRAPH_FILE``
    Private top-k influential nodes (DP-MOTkIN) of your own graph.
``dpmo trees CSV_FILE --label COL``
    A private cost-sensitive decision tree (DP-MOET) on your own table.

Bad input gives one line on stderr (``dpmo: error: ...``) and exit status 2; never a traceback
(set ``DPMO_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import _defaults
from ._validation import EXACT_CAPABLE
from .budget import Budget
from .selection import approaches, get_approach

__all__ = ["main", "build_parser", "CLIError"]


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block
        raise CLIError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------------------------ parsing
def _whole(text: str, what: str = "expected") -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} a whole number, got {text!r}") from None


def _positive_int(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _jobs(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    value = _whole(text)
    if value == -1:
        return os.cpu_count() or 1
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be auto, at least 1, or -1 for all cores, got {value}")
    return value


def _epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"epsilon must be a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"epsilon must be a positive finite number, got {text}")
    return value


def _seed(text: str) -> int:
    value = _whole(text, "seed must be")
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be >= 0, got {value}")
    return value


def _split(values: Sequence[str] | None) -> list[str] | None:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]`` (lists may be given with commas or spaces)."""
    if values is None:
        return None
    return [v for item in values for v in item.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dpmo`` (exposed for the docs and tests)."""
    from .experiments.config import DATASETS, EXPERIMENT_NAMES

    parser = _Parser(
        prog="dpmo",
        description="Differentially private multi-objective selection: reproduce the "
        "paper's experiments, or run DP-MOTkIN / DP-MOET on your own data.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
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
    rep.add_argument("--runs", type=_positive_int, metavar="N", help="repetitions per cell (paper: 500)")
    rep.add_argument("--epsilons", nargs="+", metavar="EPS", help="privacy budgets, e.g. 0.1,1,10")
    rep.add_argument("--datasets", nargs="+", metavar="NAME", help=f"datasets, among {', '.join(DATASETS)}")
    rep.add_argument("--methods", nargs="+", metavar="NAME", help="subset of the experiment's methods")
    rep.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default="auto",
        metavar="N",
        help="parallel workers: auto (default: runs in this process while the work left looks shorter "
        "than a few seconds, then on all cores; measured fastest on 2 cores), N, or -1 = all cores",
    )
    rep.add_argument("--seed", type=_seed, default=0, help="master seed (default 0)")
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
        "--n-nodes", type=_positive_int, metavar="N", help="the public node set is the ids 0..N-1"
    )
    top.add_argument("-k", type=_positive_int, default=_defaults.GRAPH_K, help="number of nodes")
    top.add_argument("--epsilon", type=_epsilon, default=_defaults.EPSILON, help="total privacy budget")
    top.add_argument(
        "--approach",
        choices=approaches(),
        default=_defaults.GRAPH_APPROACH,
        help="selection approach: agg = weighted sum, pareto = Pareto score (near-random on real graphs)",
    )
    top.add_argument(
        "--sensitivity", choices=("local", "global"), default=_defaults.SENSITIVITY, help="sensitivity"
    )
    top.add_argument(
        "--weights",
        type=float,
        nargs=2,
        default=_defaults.GRAPH_WEIGHTS,
        metavar=("W_DEGREE", "W_EGO"),
        help="weights of the aggregation",
    )
    top.add_argument(
        "--mechanism",
        default=_defaults.MECHANISM,
        help="exponential, permute_and_flip, laplace or gumbel",
    )
    top.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="seed, for tests only (None: fresh randomness from the OS's secure source)",
    )
    _add_float_sampler(top)
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
        description="Build DP-MOET trees on TABLE and print their TPR and TNR on the same table. "
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
        default="1",
        help="value of the label column that is the positive class",
    )
    tr.add_argument("--epsilon", type=_epsilon, default=_defaults.EPSILON, help="total privacy budget")
    tr.add_argument("--non-private", action="store_true", help="no privacy (NODP-MOET), for comparison")
    tr.add_argument(
        "--approach",
        choices=approaches(),
        default=_defaults.TREE_APPROACH,
        help="selection approach: agg = weighted sum, pareto = Pareto score",
    )
    tr.add_argument(
        "--sensitivity", choices=("local", "global"), default=_defaults.SENSITIVITY, help="sensitivity"
    )
    tr.add_argument(
        "--mechanism",
        default=_defaults.MECHANISM,
        help="exponential, permute_and_flip, laplace or gumbel",
    )
    tr.add_argument(
        "--weights",
        type=float,
        nargs=2,
        default=_defaults.TREE_WEIGHTS,
        metavar=("W_TPR", "W_TNR"),
        help="weights of the aggregation",
    )
    tr.add_argument(
        "--population-size",
        type=_positive_int,
        default=_defaults.TREE_POPULATION_SIZE,
        help="initial trees, and trees created per generation",
    )
    tr.add_argument(
        "--selection-size",
        type=_positive_int,
        default=_defaults.TREE_SELECTION_SIZE,
        help="trees kept per generation",
    )
    tr.add_argument(
        "--iterations", type=_positive_int, default=_defaults.TREE_N_ITERATIONS, help="generations"
    )
    tr.add_argument(
        "--initial-depth",
        type=_positive_int,
        default=_defaults.TREE_INITIAL_DEPTH,
        help="depth of the initial random trees",
    )
    tr.add_argument("--max-depth", type=_positive_int, default=_defaults.TREE_MAX_DEPTH, help="maximum depth")
    tr.add_argument("--n-output", type=_positive_int, default=_defaults.TREE_N_OUTPUT, help="trees returned")
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
        type=_seed,
        default=None,
        help="seed, for tests only (None: fresh randomness from the OS's secure source)",
    )
    _add_float_sampler(tr)
    return parser


def _add_float_sampler(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--float-sampler",
        action="store_true",
        help="sample with the fast floating-point sampler instead of the exact one (the default: exact "
        "rational scores, randomness from the OS's secure source; see docs/core.md); needed for "
        "--mechanism laplace, which has no exact sampler",
    )


def _exact(args) -> bool:
    """The releases of the command line sample exactly unless ``--float-sampler`` is given (issue 12)."""
    exact = not args.float_sampler
    if exact and args.mechanism not in EXACT_CAPABLE:
        raise CLIError(
            f"--mechanism {args.mechanism} has no exact sampler: pass --float-sampler, or use one of "
            f"{', '.join(EXACT_CAPABLE)}"
        )
    return exact


# ------------------------------------------------------------------------------------------ reproduce
def _notice(text: str) -> None:
    print(f"dpmo: {text}", file=sys.stderr, flush=True)


def _resolve_datasets(config, requested, data_dirs, *, allow_fallback: bool, explicit: bool):
    """Dataset name -> files for one experiment. Raises CLIError when nothing can run."""
    from .experiments.config import find_dataset, missing_dataset_message

    names = requested if requested is not None else list(config.datasets)
    found: dict[str, list] = {}
    missing = []
    for name in names:
        files = find_dataset(name, data_dirs)
        if files is None:
            missing.append(name)
        else:
            found[name] = files
    if missing and (explicit or (not found and not allow_fallback)):
        more = f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else ""
        raise CLIError(missing_dataset_message(missing[0], data_dirs) + more)
    for name in missing:
        _notice(missing_dataset_message(name, data_dirs))
    if not found:
        quick = config.quick.get("datasets", ())
        _notice(f"{config.name}: no real data found; running on embedded data ({', '.join(quick)}) instead")
        return {d: [] for d in quick}
    return found


def _reproduce(args) -> int:
    from dataclasses import replace

    from .experiments.config import DATASETS, EXPERIMENT_NAMES, EXPERIMENTS, default_data_dirs, settings_hash
    from .experiments.environment import environment
    from .experiments.readings import apply_readings, list_readings, resolve_readings
    from .experiments.report import write_report
    from .experiments.runner import run_experiment

    if args.list_readings:
        print(list_readings())
        return 0
    if args.experiment is None:
        raise CLIError("give an EXPERIMENT (or --list-readings)")
    try:
        resolve_readings(args.reading)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if args.experiment not in (*EXPERIMENT_NAMES, "all"):
        raise CLIError(
            f"unknown experiment {args.experiment!r}; choose one of {', '.join(EXPERIMENT_NAMES)}, all"
        )
    names = list(EXPERIMENT_NAMES) if args.experiment == "all" else [args.experiment]
    if args.scheduler and args.backend != "dask":
        raise CLIError("--scheduler needs --backend dask")
    epsilons = None
    if args.epsilons is not None:
        try:
            epsilons = tuple(sorted({_epsilon(e) for e in _split(args.epsilons)}))
        except argparse.ArgumentTypeError as exc:
            raise CLIError(f"argument --epsilons: {exc}") from None
        if not epsilons:
            raise CLIError("argument --epsilons: give at least one value")
    requested = _split(args.datasets)
    if requested is not None:
        for d in requested:
            if d not in DATASETS:
                raise CLIError(f"unknown dataset {d!r}; choose among {', '.join(DATASETS)}")
    if args.data_dir is not None:
        data_dir = Path(args.data_dir)
        if not data_dir.is_dir():
            raise CLIError(f"--data-dir {data_dir} is not a folder")
        data_dirs = [data_dir]
    else:
        data_dirs = default_data_dirs()
    out = Path(args.out or ("results-quick" if args.quick else "results"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"cannot create output folder {out}: {exc.strerror}") from None

    meta_file = out / "meta.json"
    try:
        meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    except (OSError, ValueError):
        meta = {}
    settings: dict[str, dict[str, str]] = {}
    methods_req = _split(args.methods)
    ran = []
    for name in names:
        config = EXPERIMENTS[name]
        if args.quick:
            config = config.quick_version()
        if args.runs is not None:
            config = replace(config, runs=args.runs)
        if epsilons is not None:
            config = replace(config, epsilons=epsilons)
        if config.kind == "graph" and args.ego_density != "paper":
            config = replace(config, params={**config.params, "ego_density": args.ego_density})
        config, applied, ignored = apply_readings(config, args.reading)
        if ignored:
            _notice(f"{name}: readings {', '.join(ignored)} do not apply to this experiment; ignored")
        if applied and not config.params.get("private", True):
            _notice(f"{name}: NOT PRIVATE readings ({config.params['readings']}): results are not "
                    "epsilon-DP at the epsilons written")  # fmt: skip
        methods = None
        if methods_req is not None:
            methods = [m for m in methods_req if m in config.methods]
            unknown = [m for m in methods_req if not any(m in EXPERIMENTS[n].methods for n in names)]
            if unknown:
                raise CLIError(
                    f"unknown method {unknown[0]!r} for {args.experiment}; methods of {name}: "
                    f"{', '.join(config.methods)}"
                )
            if not methods:
                continue
        req = None
        if requested is not None:
            req = [d for d in requested if DATASETS[d].kind == config.kind]
            wrong = [d for d in requested if DATASETS[d].kind != config.kind]
            if len(names) == 1 and wrong:
                raise CLIError(
                    f"dataset {wrong[0]!r} is a {DATASETS[wrong[0]].kind} dataset; {name} takes "
                    f"{config.kind} datasets: "
                    + ", ".join(d for d, s in DATASETS.items() if s.kind == config.kind)
                )
            if not req:
                continue
        elif args.quick:
            req = list(config.datasets)
        datasets = _resolve_datasets(
            config, req, data_dirs, allow_fallback=args.experiment == "all", explicit=requested is not None
        )
        settings[name] = {d: settings_hash(name, d, config.params_for(d), args.seed) for d in datasets}
        _notice(
            f"{name}: datasets {', '.join(datasets)}; {len(config.epsilons)} budgets; {config.runs} runs "
            f"per cell; --jobs {args.jobs} ({args.backend})"
        )
        try:
            result = run_experiment(
                config,
                datasets,
                out,
                seed=args.seed,
                jobs=args.jobs,
                backend=args.backend,
                scheduler=args.scheduler,
                methods=methods,
                progress=args.progress,
            )
        except KeyboardInterrupt:
            raise CLIError(
                f"interrupted; finished runs are in {out / (name + '.csv')}; run the same command "
                "again to resume"
            ) from None
        _notice(
            f"{name}: {result['planned']} runs done, {result['skipped']} already in {result['csv']}, "
            f"{result['seconds']:.1f} s"
        )
        previous = meta.get(name, {})
        if result["planned"] == 0 and "seconds" in previous:
            result = {**result, "seconds": previous["seconds"]}  # a pure resume keeps the last real timing
        meta[name] = {
            "seconds": round(result["seconds"], 2),
            "planned": result["planned"],
            "skipped": result["skipped"],
            "jobs": result.get("jobs", args.jobs),
            "jobs_option": args.jobs,
            "backend": args.backend,
            "datasets": list(datasets),
            "quick": bool(args.quick),
            "seed": args.seed,
            "runs": config.runs,
            "epsilons": list(config.epsilons),
            "readings": applied,
            "private": bool(config.params.get("private", True)),
            # datasets run earlier into the same folder stay in the report unless their settings changed
            "settings": {**previous.get("settings", {}), **settings[name]},
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            # the code that computed these rows: dpmo version, git commit, Python and package versions
            "environment": environment(),
        }
        meta_file.write_text(json.dumps(meta, indent=2))
        ran.append(name)
    if not ran:
        raise CLIError("nothing to run: no experiment matches the given --datasets / --methods")
    if not args.no_report:
        report = write_report(out, meta=meta)
        _notice(f"report: {report}")
    return 0


# ------------------------------------------------------------------------------------------ topk / trees
def _check_file(path: Path) -> Path:
    if path.is_dir():
        raise CLIError(f"cannot read {path}: it is a folder, not a file")
    if not path.is_file():
        raise CLIError(f"cannot read {path}: no such file")
    if not os.access(path, os.R_OK):
        raise CLIError(f"cannot read {path}: permission denied")
    return path


def _read_node_ids(path: Path, text: bool = False):
    """The public node ids listed in ``path`` (whitespace- or comma-separated, '#' comments)."""
    import numpy as np

    ids: list = []
    with open(path, encoding="utf-8-sig") as fh:
        for lineno, raw in enumerate(fh, start=1):
            for tok in raw.split("#", 1)[0].replace(",", " ").split():
                if text:
                    ids.append(tok)
                    continue
                try:
                    ids.append(int(tok))
                except ValueError:
                    raise CLIError(
                        f"{path}: line {lineno}: expected integer node ids, got {tok!r} "
                        "(text ids: --string-ids)"
                    ) from None
    if not ids:
        raise CLIError(f"{path}: no node ids (the public node set must not be empty)")
    return np.asarray(ids) if text else np.asarray(ids, dtype=np.int64)


_NOT_PRIVATE = "# NOT PRIVATE: exact statistics of the private graph, for checking only. Do not publish them."


def _uses_weights(approach: str) -> bool:
    return get_approach(approach).uses_weights


def _spent(budget) -> str:
    """What the run spent, for the header line (public: it depends on the parameters only)."""
    return f"spent in {len(budget.ledger)} recorded mechanism calls, see docs/privacy-accounting.md"


def _topk(args) -> int:
    from . import graphs
    from .graphs.nodes import NODES_REQUIRED

    path = _check_file(Path(args.graph_file))
    if args.nodes is not None:
        nodes = _read_node_ids(_check_file(Path(args.nodes)), text=args.string_ids)
    elif args.n_nodes is not None:
        if args.string_ids:
            raise CLIError("--n-nodes N means the integer ids 0..N-1; with --string-ids pass --nodes FILE")
        nodes = args.n_nodes
    else:
        raise CLIError(
            NODES_REQUIRED.replace("nodes= is required", "--nodes FILE or --n-nodes N is required")
        )
    n_public = int(nodes) if isinstance(nodes, int) else len(nodes)
    if args.k > n_public:  # the declared node set is public: so is this check
        raise CLIError(f"-k {args.k} is larger than the number of nodes of the public node set ({n_public})")
    try:
        graph = graphs.load_graph(
            path, nodes=nodes, header=args.header, ids="str" if args.string_ids else "int"
        )
        budget = Budget(args.epsilon)
        picks = graphs.top_k(
            graph,
            args.k,
            args.epsilon,
            approach=args.approach,
            sensitivity=args.sensitivity,
            weights=tuple(args.weights),
            mechanism=args.mechanism,
            rng=args.seed,
            budget=budget,
            exact=_exact(args),
        )
        print(
            f"# {args.k} nodes by DP-MOTkIN-{args.approach.capitalize()}-{args.sensitivity}, "
            f"epsilon={args.epsilon:g} (edge DP on the public node set; {_spent(budget)})"
        )
        print("node")
        for v in picks:
            print(v)
        if args.show_exact_statistics:
            print(_NOT_PRIVATE)
            print("# node\tdegree\tego_density")
            for v, (d, e) in zip(picks, graph.points(picks), strict=True):
                print(f"# {v}\t{int(d)}\t{e:.4f}")
            kw = {"weights": tuple(args.weights)} if _uses_weights(args.approach) else {}
            exact = graphs.top_k_exact(graph, args.k, approach=args.approach, **kw)
            print("# exact (non-private) top-k: " + " ".join(str(v) for v in exact))
    except (ValueError, TypeError, KeyError) as exc:
        raise CLIError(str(exc).strip("'\"")) from None
    return 0


def _parse_bounds(items: Sequence[str] | None) -> dict[str, tuple[float, float]]:
    out = {}
    for item in items or []:
        col, sep, rng = item.partition("=")
        lo, sep2, hi = rng.partition(":")
        try:
            if not col or not sep or not sep2:
                raise ValueError
            lo_f, hi_f = float(lo), float(hi)
        except ValueError:
            raise CLIError(f"argument --numeric: expected COL=LO:HI, got {item!r}") from None
        if not lo_f < hi_f:
            raise CLIError(f"argument --numeric: {col}: LO must be smaller than HI")
        out[col] = (lo_f, hi_f)
    return out


def _parse_categories(items: Sequence[str] | None) -> dict[str, tuple[str, ...]]:
    out = {}
    for item in items or []:
        col, sep, values = item.partition("=")
        cats = tuple(v.strip() for v in values.split(",") if v.strip()) if sep else ("0", "1")
        if not col or not cats:
            raise CLIError(f"argument --categorical: expected COL or COL=V1,V2,..., got {item!r}")
        out[col] = cats
    return out


def _trees(args) -> int:
    import numpy as np

    from .metrics import weighted_fitness
    from .tables import read_table

    path = Path(args.csv_file)
    if not (path.is_dir() and (path / "adult.data").is_file()):
        path = _check_file(path)
    bounds = _parse_bounds(args.numeric)
    categorical = _parse_categories(args.categorical)
    try:
        data = read_table(
            path,
            label=args.label,
            positive=args.positive,
            categorical=categorical,
            bounds=bounds,
            header=not args.no_header,
        )
        if data.y.min() == data.y.max():
            raise CLIError(f"column {args.label!r} has a single class; need positives and negatives")
        from .trees import DPMOETClassifier

        kw = {"weights": tuple(args.weights)} if _uses_weights(args.approach) else {}
        clf = DPMOETClassifier(
            epsilon=None if args.non_private else args.epsilon,
            approach=args.approach,
            sensitivity=args.sensitivity,
            mechanism=args.mechanism,
            population_size=args.population_size,
            selection_size=args.selection_size,
            n_iterations=args.iterations,
            initial_depth=args.initial_depth,
            max_depth=args.max_depth,
            n_output=args.n_output,
            features=data.features,
            random_state=args.seed,
            exact=False if args.non_private else _exact(args),
            **kw,
        )
        budget = None if args.non_private else Budget(args.epsilon)
        clf.fit(data.X, data.y, budget=budget)
        objectives = np.asarray(clf.evaluate(data.X, data.y), dtype=float).reshape(-1, 2)
    except (ValueError, TypeError, KeyError) as exc:
        raise CLIError(str(exc)) from None
    spent = "non-private" if budget is None else f"epsilon={args.epsilon:g} ({_spent(budget)})"
    print(f"# DP-MOET-{args.approach.capitalize()}-{args.sensitivity} on {data.n_samples} rows, {spent}")
    print("tree\tTPR\tTNR\tfitness")
    for i, (tpr, tnr) in enumerate(objectives):
        fit = float(weighted_fitness(np.array([tpr, tnr]), tuple(args.weights)))
        print(f"{i}\t{tpr:.4f}\t{tnr:.4f}\t{fit:.4f}")
    return 0


# ------------------------------------------------------------------------------------------ main
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpmo`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "reproduce":
            return _reproduce(args)
        if args.command == "topk":
            return _topk(args)
        return _trees(args)
    except CLIError as exc:
        print(f"dpmo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpmo: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError, TypeError, ImportError, RuntimeError) as exc:
        if os.environ.get("DPMO_DEBUG"):
            raise
        print(f"dpmo: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an internal error: still one line unless debugging
        if os.environ.get("DPMO_DEBUG"):
            raise
        print(
            f"dpmo: internal error: {type(exc).__name__}: {exc} (set DPMO_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
