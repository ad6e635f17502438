"""Options shared by the sub-commands of ``dpmo`` (:mod:`.parser` builds the parser from them)."""

from __future__ import annotations

import argparse

from .. import _defaults
from .._choices import APPROACHES, MECHANISMS
from .args import delimiter, epsilon, seed
from .args import delta as delta_type

__all__ = [
    "DROPPED_ROWS",
    "add_table_options",
    "add_delta",
    "add_seed",
    "add_selection_options",
    "add_float_sampler",
    "add_explain",
]

#: What ``--help`` of the table commands says about rows with missing values (never their number).
DROPPED_ROWS = (
    "Rows of TABLE with a missing value ('?', empty, NA or nan) in the label or a declared predictor are "
    "left out of the fit (a per-record rule: the guarantee is unchanged); their number is private and is "
    "never printed; a table left with no record releases trees like any other (fitted on zero counts)."
)


def add_table_options(sub: argparse.ArgumentParser) -> None:
    """The table options of ``dpmo trees`` and ``dpmo id3``: the file, its label, predictors and outputs."""
    sub.add_argument("csv_file", metavar="TABLE")
    sub.add_argument(
        "--label",
        metavar="COL",
        help="the class column: its name (a CSV with a header), its 0-based number (a CSV without header, "
        "or a .dat table: default 13 for nltcs, 10 for acs, else the last); not needed for Adult",
    )
    sub.add_argument(
        "--no-header", action="store_true", help="the CSV has no header line (columns 0, 1, ...)"
    )
    sub.add_argument(
        "--positive",
        metavar="VALUE",
        help="CSV: VALUE is the positive class and every other label the negative one (without it and "
        "--classes: the label set is 0,1)",
    )
    sub.add_argument(
        "--classes",
        metavar="NEGATIVE,POSITIVE",
        help="CSV: the public label set (default 0,1, as load_csv's default); any other label is an error "
        "naming the column (never the row or the label), whatever the other rows hold; leaves are printed "
        "with these names",
    )
    sub.add_argument(
        "--show-exact-statistics",
        action="store_true",
        help="also print the trees' exact TPR/TNR on the private table, under a NOT PRIVATE heading "
        "(never publish them)",
    )
    sub.add_argument(
        "--eval",
        metavar="FILE",
        help="a public evaluation table, read like TABLE: print the trees' TPR/TNR on it",
    )
    sub.add_argument(
        "--save-json", metavar="FILE", help="also save the trees (and any statistics shown) as JSON"
    )
    sub.add_argument(
        "--categorical",
        nargs="+",
        metavar="COL[=V1,V2,...]",
        help="categorical predictors with their public categories (COL alone: 0,1)",
    )
    sub.add_argument(
        "--numeric",
        nargs="+",
        metavar="COL=LO:HI",
        help="numeric predictors with public bounds (never taken from the data)",
    )
    sub.add_argument(
        "--delimiter",
        type=delimiter,
        metavar="CHAR",
        default=",",
        help="CSV: the one character between fields",
    )
    sub.add_argument("--epsilon", type=epsilon, default=_defaults.EPSILON, help="total privacy budget")
    add_delta(sub)
    add_seed(sub)


def add_delta(sub: argparse.ArgumentParser, help_text: str | None = None) -> None:
    """Add ``--delta`` (0: pure epsilon-DP; > 0: (epsilon, delta)-DP, docs/privacy-accounting.md)."""
    sub.add_argument(
        "--delta",
        type=delta_type,
        default=0.0,
        help=help_text
        or "approximate DP: the release is (epsilon, delta)-DP and its mechanism calls run at the "
        "accountant's epsilons (dpmo.per_pick_epsilon; 0: pure epsilon-DP, the paper's accounting)",
    )


def add_seed(sub: argparse.ArgumentParser) -> None:
    """Add ``--seed`` (tests only; None reads fresh randomness from the OS's secure source)."""
    sub.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="seed, for tests only (None: fresh randomness from the OS's secure source); the same seed "
        "gives the same release as the library called with rng=SEED (random_state=SEED)",
    )


def add_selection_options(
    sub: argparse.ArgumentParser,
    *,
    approach: str,
    approach_help: str,
    weights: tuple[float, ...] | None,
    weight_names: tuple[str, ...] | str,
) -> None:
    """Add the options every private selection command shares: approach, sensitivity, weights, mechanism.

    ``weights`` None: any number of weights (one per objective), no default.

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
        "--approach", choices=APPROACHES, default=approach, help=f"selection approach: {approach_help}"
    )
    sub.add_argument(
        "--sensitivity", choices=("local", "global"), default=_defaults.SENSITIVITY, help="sensitivity"
    )
    sub.add_argument(
        "--weights",
        type=float,
        nargs="+" if weights is None else len(weights),
        default=weights,
        metavar=weight_names,
        help="weights of the aggregation"
        + (", one per --objective, in their order" if weights is None else ""),
    )
    sub.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        default=_defaults.MECHANISM,
        help="base mechanism of the private selection",
    )


def add_float_sampler(sub: argparse.ArgumentParser, exact: bool = True) -> None:
    """Add ``--float-sampler`` and ``--exact-sampler`` to ``sub``; ``exact``: the library's default there.

    The command's default is the library's (:mod:`dpmo._defaults`), so the same seed gives the same
    release from Python and from the command line; :func:`dpmo.cli.args.exact_sampling` reads the choice.
    """
    group = sub.add_mutually_exclusive_group()
    group.add_argument(
        "--float-sampler",
        action="store_true",
        help="sample with the fast floating-point sampler instead of the exact one"
        + (
            " (the default: exact rational scores, randomness from the OS's secure source; see "
            "docs/core.md); needed for --mechanism laplace, which has no exact sampler"
            if exact
            else " (the default here)"
        ),
    )
    group.add_argument(
        "--exact-sampler",
        action="store_true",
        help="sample exactly: rational scores, randomness from the OS's secure source (docs/core.md)"
        + (
            "; the default"
            if exact
            else "; the float sampler is the default here, exact costs 4-9x on Adult (docs/core.md)"
        ),
    )
    sub.set_defaults(exact_default=exact)


def add_explain(sub: argparse.ArgumentParser, what: str) -> None:
    """Add ``--explain``: the public preview of :mod:`dpmo.cli.explain` instead of the release."""
    sub.add_argument(
        "--explain",
        action="store_true",
        help="print what this selection can deliver instead of running it: the lead the best candidate "
        "needs over the others to be picked with probability 1/2 and 9/10, and the probability at given "
        f"leads, from public quantities only ({what}, -k, --epsilon, the sensitivity, the mechanism); "
        "uses no private value and spends nothing (docs/core.md, 'Know before you spend')",
    )
