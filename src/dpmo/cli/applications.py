"""``dpmo topk`` and ``dpmo trees``: the applications' commands on the user's own graph or table."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from .. import _choices, _defaults
from .args import CLIError, exact_sampling

__all__ = ["topk_command", "trees_command", "id3_command"]


def _check_file(path: Path, *, stream: bool = False) -> Path:
    """``path``, refused unless a readable file; ``stream``: a pipe (``<(...)``) or device is read too (a
    reader that reads it once), else it is refused as not a regular file."""
    if path.is_dir():
        raise CLIError(f"cannot read {path}: it is a folder, not a file")
    if not path.exists():
        raise CLIError(f"cannot read {path}: no such file")
    if not path.is_file() and not stream:
        raise CLIError(
            f"cannot read {path}: not a regular file (a pipe or a device?); it is read more than once: save "
            "it to a file first"
        )
    if not os.access(path, os.R_OK):
        raise CLIError(f"cannot read {path}: permission denied")
    return path


def check_output(text: str, option: str) -> Path:
    """The output path of ``option`` (``--save-json FILE``), checked before anything is read or spent: its
    folder exists and may be written to, and it is not a folder (a release must not end in an error)."""
    path = Path(text)
    folder = path.parent
    if path.is_dir():
        raise CLIError(f"{option} {text}: it is a folder; give a file name")
    if not folder.is_dir():
        raise CLIError(f"{option} {text}: the folder {str(folder)!r} does not exist (create it first)")
    if path.exists() and not path.is_file():
        raise CLIError(f"{option} {text}: not a regular file")
    writable = os.access(path, os.W_OK) if path.exists() else os.access(folder, os.W_OK | os.X_OK)
    if not writable:
        raise CLIError(f"{option} {text}: permission denied (cannot write it)")
    return path


def _tokens(line: str, delimiter: str | None) -> list[str]:
    """The ids of one line of a node file: split at ``delimiter`` (then an id may hold spaces), else at
    commas and whitespace."""
    if delimiter is None:
        return line.replace(",", " ").split()
    return [t.strip() for t in line.split(delimiter) if t.strip()]


def _read_node_ids(path: Path, text: bool = False, delimiter: str | None = None):
    """The public node ids listed in ``path`` (one or more per line, see :func:`_tokens`; '#' comments)."""
    import numpy as np

    ids: list = []
    with open(path, encoding="utf-8-sig") as fh:
        for lineno, raw in enumerate(fh, start=1):
            for tok in _tokens(raw.split("#", 1)[0].rstrip("\r\n"), delimiter):
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
                if not _INT64[0] <= ids[-1] <= _INT64[1]:
                    raise CLIError(
                        f"{path}: line {lineno}: node ids must be integers in the int64 range "
                        "(-2^63 .. 2^63 - 1), or text ids with --string-ids (the id is not shown)"
                    )
    if not ids:
        raise CLIError(f"{path}: no node ids (the public node set must not be empty)")
    return np.asarray(ids) if text else np.asarray(ids, dtype=np.int64)


_INT64 = (-(2**63), 2**63 - 1)
_NOT_PRIVATE = "# NOT PRIVATE: exact statistics of the private graph, for checking only. Do not publish them."


def _uses_weights(approach: str) -> bool:
    return approach in _choices.WEIGHTED_APPROACHES


def _spent(budget) -> str:
    """What the run spent, for the header line (public: it depends on the parameters only); with a delta,
    in both units."""
    if budget.delta:
        return (
            f"spent epsilon {budget.spent:g} and delta {budget.spent_delta:g} in {len(budget.ledger)} "
            "recorded mechanism calls at the accountant's epsilons, see docs/privacy-accounting.md"
        )
    return f"spent in {len(budget.ledger)} recorded mechanism calls, see docs/privacy-accounting.md"


def _budget_text(args) -> str:
    """``epsilon=E`` and, with ``--delta``, ``delta=D``."""
    return f"epsilon={args.epsilon:g}" + (f", delta={args.delta:g}" if args.delta else "")


def topk_command(args) -> int:
    """``dpmo topk``: private top-k influential nodes of a graph file."""
    path = None if args.explain else _check_file(Path(args.graph_file))  # --explain never opens it
    if args.nodes is not None:
        nodes = _read_node_ids(  # read once: a pipe (--nodes <(...)) is read too
            _check_file(Path(args.nodes), stream=True), text=args.string_ids, delimiter=args.delimiter
        )
    elif args.n_nodes is not None:
        if args.string_ids:
            raise CLIError("--n-nodes N means the integer ids 0..N-1; with --string-ids pass --nodes FILE")
        nodes = args.n_nodes
    else:
        from ..graphs.nodes import NODES_REQUIRED

        raise CLIError(
            NODES_REQUIRED.replace("nodes= is required", "--nodes FILE or --n-nodes N is required")
        )
    n_public = int(nodes) if isinstance(nodes, int) else len(nodes)
    if args.k > n_public:  # the declared node set is public: so is this check
        raise CLIError(f"-k {args.k} is larger than the number of nodes of the public node set ({n_public})")
    if args.explain:  # public figures only: the graph file is not opened, nothing is spent
        from .explain import explain_topk

        return explain_topk(args, n_public)
    from .. import graphs
    from ..budget import Budget
    from ..graphs.exact import APPROACHES as EXACT_APPROACHES
    from ..graphs.exact import SPREAD_APPROACHES

    if args.show_exact_statistics and args.approach not in EXACT_APPROACHES:  # before anything is spent
        raise CLIError(
            f"--show-exact-statistics: approach {args.approach!r} has no exact reference (those of "
            f"{list(EXACT_APPROACHES)} have one)"
        )
    try:
        graph = graphs.load_graph(
            path,
            nodes=nodes,
            header=args.header,
            ids="str" if args.string_ids else "int",
            delimiter=args.delimiter,
        )
        budget = Budget(args.epsilon, delta=args.delta)
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
            exact=exact_sampling(args),
            delta=args.delta,
        )
        method = f"DP-MOTkIN-{args.approach.capitalize()}-{args.sensitivity}"
        if any(s.mechanism == "randomized_response" for s in budget.ledger):
            method = "DP-MOTkIN-Chebyshev on the released graph (randomized response on the node pairs)"
        print(
            f"# {args.k} nodes by {method}, {_budget_text(args)} "
            f"(edge DP on the public node set; {_spent(budget)})"
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
            what = (
                "greedy hypervolume picks over (degree, ego density), the reference of the spread approaches"
                if args.approach in SPREAD_APPROACHES
                else "top-k"
            )
            print(f"# exact (non-private) {what}: " + " ".join(str(v) for v in exact))
    except (ValueError, TypeError, KeyError) as exc:
        raise CLIError(_message(exc)) from None
    return 0


def _message(exc: Exception) -> str:
    """The text of ``exc`` for ``dpmo: error: ...`` (a KeyError's own quotes dropped, nothing else)."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    return str(exc)


def _once(option: str, col: str, seen: dict) -> None:
    """Refuse a column named twice by ``option`` (as ``dpmo select`` refuses a repeated --objective)."""
    if col in seen:
        raise CLIError(f"{option}: each column may be named once, {col!r} is named twice")


def _parse_bounds(items: Sequence[str] | None) -> dict[str, tuple[float, float]]:
    from ..datasets.types import check_width

    out: dict[str, tuple[float, float]] = {}
    for item in items or []:
        col, sep, rng = item.partition("=")
        lo, sep2, hi = rng.partition(":")
        try:
            if not col or not sep or not sep2:
                raise ValueError
            lo_f, hi_f = float(lo), float(hi)
        except ValueError:
            raise CLIError(f"argument --numeric: expected COL=LO:HI, got {item!r}") from None
        if not (math.isfinite(lo_f) and math.isfinite(hi_f)):
            raise CLIError(f"argument --numeric: {col}: LO and HI must be finite numbers, got {item!r}")
        if not lo_f < hi_f:
            raise CLIError(f"argument --numeric: {col}: LO must be smaller than HI")
        try:  # the rule of dpmo.datasets.Feature, checked before the table is read
            check_width((lo_f, hi_f), col)
        except ValueError as exc:
            raise CLIError(f"argument --numeric: {exc}") from None
        _once("--numeric", col, out)
        out[col] = (lo_f, hi_f)
    return out


def _parse_categories(items: Sequence[str] | None) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for item in items or []:
        col, sep, values = item.partition("=")
        cats = tuple(v.strip() for v in values.split(",") if v.strip()) if sep else ("0", "1")
        if not col or not cats:
            raise CLIError(f"argument --categorical: expected COL or COL=V1,V2,..., got {item!r}")
        _once("--categorical", col, out)
        if len(set(cats)) != len(cats):
            raise CLIError(f"argument --categorical: {col}: each category may be named once")
        out[col] = cats
    return out


def _training_tables(args):
    """``(data, evaluation, classes)`` of ``dpmo trees`` / ``dpmo id3``: the training table, the public
    evaluation table ``(name, X, y)`` or None, and the public label names ``(negative, positive)``."""
    from ..tables import read_table

    def table(name: str):
        path = Path(name)
        if not (path.is_dir() and (path / "adult.data").is_file()):
            path = _check_file(path)
        return read_table(
            path,
            label=args.label,
            positive=positive,
            negative=negative,
            categorical=categorical,
            bounds=bounds,
            header=not args.no_header,
            delimiter=args.delimiter,
        )

    if args.save_json is not None:  # before the table is read and anything spent: the release may not fail
        check_output(args.save_json, "--save-json")
    bounds = _parse_bounds(args.numeric)
    categorical = _parse_categories(args.categorical)
    negative, positive, classes = _label_set(args.classes, args.positive)
    # every reader reads each label by a public rule (the declared label set, the .domain file's
    # values, Adult's '>50K'): a label outside the declared set is a domain error whatever the other
    # records hold, and a table in which one class has no record releases like any other
    data = table(args.csv_file)
    evaluation = None
    if args.eval is not None:
        ev = table(args.eval)
        evaluation = (args.eval, ev.X, ev.y)
    return data, evaluation, classes


def _release(args, clf, data, evaluation, classes, header: str, *, weights) -> None:
    """Print (and save) the fitted trees of ``dpmo trees`` / ``dpmo id3`` under ``header`` (+ the labels)."""
    from .trees_release import release

    release(
        clf,
        data,
        header=f"{header}; leaves predict {classes[1]} (positive) or {classes[0]}",
        classes=classes,
        weights=weights,
        exact_on=(data.X, data.y) if args.show_exact_statistics else None,
        eval_on=evaluation,
        save_json=args.save_json,
    )


def trees_command(args) -> int:
    """``dpmo trees``: private cost-sensitive decision trees on a table; prints the trees."""
    with _table_errors():
        from ..budget import Budget
        from ..trees import DPMOETClassifier

        kw = {"weights": tuple(args.weights)} if _uses_weights(args.approach) else {}
        if args.non_private and args.delta:
            raise CLIError("--delta applies to a private fit, not with --non-private")
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
            random_state=args.seed,
            classes=[0, 1],
            exact=False if args.non_private else exact_sampling(args),
            delta=args.delta,
            leaf_count_share=0,  # the command prints trees, not scores: all of epsilon for the selections
            **kw,
        )
        data, evaluation, classes = _checked_then_read(args, clf)
        budget = None if args.non_private else Budget(args.epsilon, delta=args.delta)
        _fit(clf, data, budget)
        spent = "NON-PRIVATE (no budget)" if budget is None else f"{_budget_text(args)} ({_spent(budget)})"
        sampler = "" if args.non_private else ("; float sampler" if args.float_sampler else "; exact sampler")
        _release(
            args,
            clf,
            data,
            evaluation,
            classes,
            f"# {args.n_output} tree(s) by DP-MOET-{args.approach.capitalize()}-{args.sensitivity}, "
            f"{spent}{sampler}",
            weights=tuple(args.weights),
        )
    return 0


def id3_command(args) -> int:
    """``dpmo id3``: one private ID3 tree (DiffP-ID3 or LocalDiffPID3) on a table; prints the tree."""
    with _table_errors():
        exact = exact_sampling(args)
        from ..budget import Budget
        from ..trees import DiffPID3Classifier, LocalDiffPID3Classifier

        local = args.sensitivity == "local"
        cls = LocalDiffPID3Classifier if local else DiffPID3Classifier
        clf = cls(
            args.epsilon,
            max_depth=args.max_depth,
            criterion=args.criterion,
            random_state=args.seed,
            n_bins=args.n_bins,
            max_records=args.max_records,
            mechanism=args.mechanism,
            classes=[0, 1],
            exact=exact,
            delta=args.delta,
        )
        data, evaluation, classes = _checked_then_read(args, clf)
        budget = Budget(args.epsilon, delta=args.delta)
        _fit(clf, data, budget)
        _release(
            args,
            clf,
            data,
            evaluation,
            classes,
            f"# 1 tree by {'LocalDiffPID3' if local else 'DiffP-ID3'} ({args.criterion}), "
            f"{_budget_text(args)} ({_spent(budget)}); {'exact' if exact else 'float'} sampler",
            weights=_defaults.TREE_WEIGHTS,
        )
    return 0


#: The library's parameter names of the tree estimators -> the options of ``dpmo trees`` / ``dpmo id3``.
_OPTIONS = {
    "population_size": "--population-size",
    "selection_size": "--selection-size",
    "n_iterations": "--iterations",
    "initial_depth": "--initial-depth",
    "max_depth": "--max-depth",
    "n_output": "--n-output",
    "n_bins": "--n-bins",
    "max_records": "--max-records",
}
_PARAMETER = re.compile(r"\b(" + "|".join(_OPTIONS) + r")\b")


def _checked_then_read(args, clf):
    """:func:`_training_tables` after the estimator's public parameters are checked (with the options'
    names): which error a bad option gets never depends on the table. The table's features (its public
    schema) are then set on ``clf``."""
    from ..trees.budget_params import check_parameters

    try:
        check_parameters(clf)
    except (ValueError, TypeError) as exc:
        raise CLIError(_PARAMETER.sub(lambda m: _OPTIONS[m.group(1)], str(exc))) from None
    data, evaluation, classes = _training_tables(args)
    clf.set_params(features=data.features)
    return data, evaluation, classes


def _fit(clf, data, budget) -> None:
    """``clf.fit`` on the table; a refused parameter (checked before anything is spent) is reported with
    the command line's option names (``--selection-size``, not ``selection_size``)."""
    try:
        clf.fit(data.X, data.y, budget=budget)
    except (ValueError, TypeError) as exc:
        raise CLIError(_PARAMETER.sub(lambda m: _OPTIONS[m.group(1)], str(exc))) from None


@contextmanager
def _table_errors():
    """A bad table or label set as the command line's one-line error (:class:`CLIError`)."""
    from ..datasets.types import LabelError

    try:
        yield
    except LabelError as exc:
        raise CLIError(_label_hint(exc)) from None
    except (ValueError, TypeError, KeyError) as exc:
        raise CLIError(str(exc)) from None


def _label_hint(exc) -> str:
    """A label outside the declared set, with what to declare instead."""
    return (
        f"{exc}. Declare the label set with --classes NEGATIVE,POSITIVE, or give --positive VALUE alone "
        "to read VALUE against every other label"
    )


def _label_set(classes_arg: str | None, positive_arg: str | None) -> tuple[str | None, str, tuple[str, str]]:
    """``(negative, positive, names)`` of ``dpmo trees`` from ``--classes`` and ``--positive`` (public).

    ``--classes NEG,POS``: the label set ``{NEG, POS}``. ``--positive P`` alone: ``P`` against every other
    label (negative None, printed ``not P``). Neither: ``--classes 0,1``.
    """
    if classes_arg is not None:
        names = tuple(c.strip() for c in classes_arg.split(","))
        if len(names) != 2 or not all(names) or names[0] == names[1]:
            raise CLIError(f"argument --classes: expected NEGATIVE,POSITIVE, got {classes_arg!r}")
        if positive_arg is not None and positive_arg != names[1]:
            raise CLIError(
                f"--positive {positive_arg} and --classes {classes_arg} disagree: --classes names the "
                "positive class second"
            )
        return names[0], names[1], (names[0], names[1])
    if positive_arg is not None:
        return None, positive_arg, (f"not {positive_arg}", positive_arg)
    return "0", "1", ("0", "1")
