"""The paper's reported numbers, and its tables and figures cited by number.

The numbers are in ``dpmo/experiments/data/paper_results.csv`` (transcribed from the paper's tables and the
coordinates of its figures' ``pgfplots`` source; column ``source`` names the table or figure by its LaTeX
label, which :func:`paper_reference` turns into "Table 1", "Figure 3", ...).
"""

from __future__ import annotations

import csv
import os
import re
from importlib import resources
from pathlib import Path

__all__ = ["PAPER_NUMBERS", "paper_reference", "paper_results"]

#: The paper's tables and figures by LaTeX label. Numbered by counting, in order, the ``table`` and the
#: ``figure`` / ``figure*`` environments of its LaTeX source (acmart numbers ``figure`` and ``figure*`` with
#: one counter; ``algorithm`` has its own); sub-figures are lettered in the order of their ``subfigure``
#: environments.
PAPER_NUMBERS: dict[str, str] = {
    "fig:pareto_example": "Figure 1",
    "table:private_tree_pareto": "Table 1",
    "fig:weighted_tree": "Figure 2",
    "fig:wtree_nltcs": "Figure 2a",
    "fig:wtree_adult": "Figure 2b",
    "fig:wtree_acs": "Figure 2c",
    "fig:graph_weighted": "Figure 3",
    "table:topk_graph_pareto": "Table 2",
}

_PART = re.compile(r"Figure\s+(?:\\ref\{)?(fig:[A-Za-z0-9_:-]+)\}?\s*\((fig:[A-Za-z0-9_:-]+)\)")
_LABEL = re.compile(r"(?:(?:Table|Figure|Fig\.)~?\s*)?(?:\\ref\{)?((?:table|tab|fig):[A-Za-z0-9_:-]+)\}?")


def paper_reference(text: str) -> str:
    """``text`` with the paper's LaTeX labels replaced by their numbers (:data:`PAPER_NUMBERS`).

    Accepts ``Table \\ref{table:x}``, ``Figure \\ref{fig:x}``, ``Table table:x`` (the ``source`` column of
    the transcribed numbers) or a bare label; an unknown label is left as it is. O(len(text)).

    Examples
    --------
    >>> from dpmo.experiments.paper import paper_reference
    >>> paper_reference("Table \\\\ref{table:private_tree_pareto}")
    'Table 1'
    >>> paper_reference("Figure fig:graph_weighted")
    'Figure 3'
    >>> paper_reference("Figure fig:weighted_tree (fig:wtree_acs)")  # a sub-figure
    'Figure 2c'
    >>> paper_reference("see fig:unknown")
    'see fig:unknown'
    """

    def number(m: re.Match) -> str:
        return PAPER_NUMBERS.get(m.group(1), m.group(0))

    def sub_figure(m: re.Match) -> str:  # "Figure fig:x (fig:x_part)" -> "Figure 2b"
        inner = m.group(2)
        return PAPER_NUMBERS[inner] if inner in PAPER_NUMBERS else m.group(0)

    text = _PART.sub(sub_figure, text)
    return _LABEL.sub(number, text)


def paper_results(path: str | os.PathLike | None = None) -> dict[tuple, tuple[float, str]]:
    """The paper's reported numbers.

    Returns ``{(experiment, dataset, method, epsilon, metric): (value, source, rounding)}`` where
    ``rounding`` is half a unit of the last printed digit for the values of the paper's tables and 0 for the
    coordinates of its figures (printed in full).

    Examples
    --------
    >>> from dpmo.experiments import paper_results
    >>> paper = paper_results()
    >>> value, source, rounding = paper[("tree-pareto", "nltcs", "DP-MOET-Pareto-local", 0.5, "coverage")]
    >>> value, source, rounding  # the paper's Table 1 prints 0.13, i.e. 0.13 +- 0.005
    (0.13, 'Table table:private_tree_pareto', 0.005)
    """
    if path is None:
        text = resources.files("dpmo.experiments").joinpath("data/paper_results.csv").read_text()
    else:
        text = Path(path).read_text()
    out = {}
    for r in csv.DictReader(text.splitlines()):
        key = (r["experiment"], r["dataset"], r["method"], float(r["epsilon"]), r["metric"])
        text_value = r["value"].strip()
        decimals = len(text_value.partition(".")[2])
        # a table value printed with 2 decimals stands for anything within half a unit of its last digit;
        # the figures' coordinates are exact
        rounding = 0.5 * 10.0**-decimals if r["source"].startswith("Table") else 0.0
        out[key] = (float(text_value), r["source"], rounding)
    return out
