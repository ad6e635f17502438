"""What ``dpmo trees`` prints and saves: the private trees, and statistics only where they may be shown.

The default output is the release: a header naming the method, epsilon and the recorded spend, then each
output tree as readable rules (:meth:`dpmo.trees.Tree.to_text`). Nothing computed from the private table
is printed beside it: not its number of rows, not the trees' TPR/TNR on it. Those exact statistics are
shown only on request (``--show-exact-statistics``) under a heading that says they are NOT PRIVATE; the
trees' TPR/TNR on a public evaluation table the user names (``--eval FILE``) are public and shown as such.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

__all__: list[str] = []

NOT_PRIVATE_TREES = (
    "# NOT PRIVATE: exact TPR/TNR of the trees on the private training table, for checking only. "
    "Do not publish them."
)


def _rates(clf, X, y, weights) -> list[dict]:
    from ..metrics import weighted_fitness

    objectives = np.asarray(clf.evaluate(X, y), dtype=float).reshape(-1, 2)
    return [
        {
            "tree": i,
            "TPR": float(tpr),
            "TNR": float(tnr),
            "fitness": float(weighted_fitness(np.array([tpr, tnr]), tuple(weights))),
        }
        for i, (tpr, tnr) in enumerate(objectives)
    ]


def _print_rates(rows: list[dict], prefix: str) -> None:
    print(f"{prefix}tree\tTPR\tTNR\tfitness")
    for r in rows:
        print(f"{prefix}{r['tree']}\t{r['TPR']:.4f}\t{r['TNR']:.4f}\t{r['fitness']:.4f}")


def release(clf, data, *, header: str, classes, weights, exact_on=None, eval_on=None, save_json=None) -> None:
    """Print (and optionally save as JSON) the trees of the fitted ``clf``.

    ``data`` is the training table (used for its public schema only, unless ``exact_on`` is given);
    ``exact_on`` the private ``(X, y)`` whose exact statistics were requested; ``eval_on`` a public
    evaluation table ``(name, X, y)``; ``save_json`` a path.
    """
    features = data.features
    trees = [t.to_dict(features, classes) for t in clf.trees_]
    print(header)
    for i, tree in enumerate(clf.trees_):
        print(f"## tree {i}")
        text = tree.to_text(features)
        print(re.sub(r"predict ([01])$", lambda m: f"predict {classes[int(m.group(1))]}", text, flags=re.M))
    doc: dict = {"header": header.lstrip("# "), "classes": list(classes), "trees": trees}
    if eval_on is not None:
        name, X_eval, y_eval = eval_on
        rows = _rates(clf, X_eval, y_eval, weights)
        print(f"# TPR/TNR on the public evaluation table {name}")
        _print_rates(rows, "")
        doc["evaluation"] = {"table": str(name), "rates": rows}
    if exact_on is not None:
        rows = _rates(clf, *exact_on, weights)
        print(NOT_PRIVATE_TREES)
        _print_rates(rows, "# ")
        doc["NOT_PRIVATE_exact_statistics_on_the_training_table"] = rows
    if save_json is not None:
        Path(save_json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
