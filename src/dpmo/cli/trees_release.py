"""What ``dpmo trees`` prints and saves: the private trees, and statistics only where they may be shown.

The default output is the release: a header naming the method, epsilon and the recorded spend, then each
output tree as readable rules (:meth:`dpmo.trees.Tree.to_text`). Nothing computed from the private table
is printed beside it: not its number of rows, not the trees' TPR/TNR on it. Those exact statistics are
shown only on request (``--show-exact-statistics``) under a heading that says they are NOT PRIVATE; the
trees' TPR/TNR on a public evaluation table the user names (``--eval FILE``) are public and shown as such.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

__all__ = ["release", "ID3Rules"]

NOT_PRIVATE_TREES = (
    "# NOT PRIVATE: exact TPR/TNR of the trees on the private training table, for checking only. "
    "Do not publish them."
)


def _rates(clf, X, y, weights) -> list[dict]:
    from ..metrics import tpr_tnr, weighted_fitness

    n_trees = len(clf.trees_) if hasattr(clf, "trees_") else 1
    if len(y) == 0:  # a table with no record: both classes absent, rates 0 (as tpr_tnr and evaluate say)
        objectives = np.zeros((n_trees, 2))
    elif hasattr(clf, "evaluate"):  # DP-MOET: every output tree
        objectives = np.asarray(clf.evaluate(X, y), dtype=float).reshape(-1, 2)
    else:  # one tree: its predictions
        objectives = np.asarray(tpr_tnr(np.asarray(y), clf.predict(X)), dtype=float).reshape(1, 2)
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
    fitted = clf.trees_ if hasattr(clf, "trees_") else [ID3Rules(clf)]
    trees = [t.to_dict(features, classes) for t in fitted]
    print(header)
    for i, tree in enumerate(fitted):
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


def _edge(lo: float, hi: float, i: int, n: int) -> float:
    """The edge ``lo + (hi - lo) i / n`` of the equal-width bins of ``(lo, hi)``; where ``(hi - lo) i``
    overflows (bounds near the largest float), ``(hi - lo) (i / n)``, which never exceeds the width (finite:
    :func:`dpmo.datasets.types.check_width`)."""
    width = hi - lo
    scaled = width * i
    return lo + (scaled / n if math.isfinite(scaled) else width * (i / n))


class ID3Rules:
    """The rules of a fitted ID3 estimator's tree, as :class:`dpmo.trees.Tree` shows DP-MOET's.

    A post-processing of the private tree and the public schema: a categorical split shows its public
    categories, a numeric one the equal-width bins of the column's public bounds in its units (the last
    bin is closed), a leaf ``predict 0`` / ``predict 1``.
    """

    def __init__(self, clf):
        self.tree = clf.tree_
        self.sizes = clf.domain_sizes_

    def _value(self, features, f: int, v: int):
        item = features[f] if features is not None else None
        if item is not None and getattr(item, "categories", ()):
            return "==", item.categories[v]
        lo, hi = getattr(item, "bounds", None) or (0.0, 1.0)
        nb = int(self.sizes[f])
        a, b = _edge(lo, hi, v, nb), _edge(lo, hi, v + 1, nb)
        return "in", (float(a), float(b), v == nb - 1)

    def to_text(self, features=None) -> str:
        t, lines = self.tree, []

        def walk(i: int, pad: str) -> None:
            f = int(t.feature[i])
            if f < 0:
                lines.append(f"{pad}predict {int(t.label[i])}")
                return
            name = features[f].name if features is not None else f"x[{f}]"
            for v in range(int(t.n_children[i])):
                test, val = self._value(features, f, v)
                shown = repr(val) if test == "==" else f"[{val[0]:.6g}, {val[1]:.6g}{']' if val[2] else ')'}"
                lines.append(f"{pad}{'if' if v == 0 else 'elif'} {name} {test} {shown}:")
                walk(int(t.first_child[i]) + v, pad + "    ")

        walk(0, "")
        return "\n".join(lines)

    def to_dict(self, features=None, classes=None) -> dict:
        t = self.tree

        def plain(x):
            return x.item() if isinstance(x, np.generic) else x

        def build(i: int) -> dict:
            f = int(t.feature[i])
            if f < 0:
                label = int(t.label[i])
                return {"leaf": plain(classes[label]) if classes is not None else label}
            children = []
            for v in range(int(t.n_children[i])):
                test, val = self._value(features, f, v)
                child = {"category": plain(val)} if test == "==" else {"bin": [val[0], val[1]]}
                children.append({**child, "node": build(int(t.first_child[i]) + v)})
            name = features[f].name if features is not None else f"x[{f}]"
            return {"feature": name, "column": f, "children": children}

        return build(0)
