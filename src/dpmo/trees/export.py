"""Trees as plain data: :func:`tree_to_dict` (JSON-ready nested dicts) for publishing a private tree.

A released tree is private output: its structure, split features, thresholds or categories and leaf
labels are what the mechanism selected, and nothing else. The rendering below reads only the tree and the
public schema (feature names, categories, numeric bounds, label names), never a data set.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from .tree import Tree

__all__ = ["tree_to_dict"]


def _plain(value):
    """A JSON-ready scalar (numpy ints/floats/bools become Python ones; anything else its text)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value if isinstance(value, str) else str(value)


def tree_to_dict(tree: Tree, features: Sequence | None = None, classes: Sequence | None = None) -> dict:
    """The tree as nested dicts, ready for :func:`json.dumps`.

    Parameters
    ----------
    tree : Tree
        The tree to render.
    features : sequence of Feature or str, optional
        The public schema: :class:`~dpmo.datasets.Feature` objects (categories are shown by name and
        numeric thresholds in the original units, ``lo + value * (hi - lo)``) or plain names. None names
        feature ``f`` ``"x[f]"`` and shows the stored values.
    classes : pair, optional
        The public label names ``[negative, positive]``; leaves then show ``classes[label]``. None shows
        the labels 0 and 1.

    Returns
    -------
    dict
        A leaf is ``{"leaf": label}``. A decision node is ``{"feature": name, "column": f, "test": "<=",
        "threshold": t, "left": ..., "right": ...}`` for a numeric test (rows with ``x <= t`` go left) and
        ``{"feature": name, "column": f, "test": "==", "category": c, "left": ..., "right": ...}`` for a
        categorical one (rows with ``x == c`` go left). Same structure as :meth:`Tree.to_text`.

    Notes
    -----
    O(nodes) time; recursion depth is the tree's depth.

    Examples
    --------
    >>> import json
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import tree_from_nested
    >>> from dpmo.trees.export import tree_to_dict
    >>> schema = [Feature("age", "numeric", bounds=(0, 100)), Feature("sex", "categorical", ("F", "M"))]
    >>> tree = tree_from_nested((0, 0.5, False, 0, (1, 1.0, True, 1, 0)))
    >>> d = tree_to_dict(tree, schema, classes=("healthy", "sick"))
    >>> d["feature"], d["test"], d["threshold"], d["left"]
    ('age', '<=', 50.0, {'leaf': 'healthy'})
    >>> d["right"]["category"], d["right"]["left"]
    ('M', {'leaf': 'sick'})
    >>> json.loads(json.dumps(d)) == d  # JSON round trip
    True
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a dpmo.trees.Tree, got {type(tree).__name__}")
    n_features = int(tree.feature.max()) + 1 if tree.n_nodes > 1 else 0
    if features is not None and len(features) < n_features:
        raise ValueError(
            f"features names {len(features)} columns, but the tree tests column {n_features - 1}"
        )
    if classes is not None and len(classes) != 2:
        raise ValueError(f"classes must be a pair [negative, positive], got {len(classes)} labels")

    def build(i: int) -> dict:
        f = int(tree.feature[i])
        if f < 0:
            label = int(tree.label[i])
            return {"leaf": _plain(classes[label]) if classes is not None else label}
        item = None if features is None else features[f]
        name = f"x[{f}]" if item is None else str(getattr(item, "name", item))
        v = float(tree.value[i])
        node: dict = {"feature": name, "column": f}
        if tree.categorical[i]:
            cats = getattr(item, "categories", ()) or ()
            node["test"] = "=="
            node["category"] = _plain(cats[int(v)]) if 0 <= int(v) < len(cats) else _plain(v)
        else:
            bounds = getattr(item, "bounds", None)
            node["test"] = "<="
            node["threshold"] = v if bounds is None else float(bounds[0] + v * (bounds[1] - bounds[0]))
        left = i + 1
        node["left"] = build(left)
        node["right"] = build(left + int(tree.size[left]))
        return node

    return build(0)
