"""Trees as plain data and text: :func:`tree_to_dict` (JSON-ready nested dicts) and :func:`tree_to_text`.

A released tree is private output: its structure, split features, thresholds or categories and leaf
labels are what the mechanism selected, and nothing else. The rendering below reads only the tree and the
public schema (feature names, categories, numeric bounds, label names), never a data set. By default the
tree is first simplified (:mod:`dpmo.trees.simplify`: no unreachable branch, no repeated test), which
is post-processing of the private tree and costs no privacy.

This module works on any object with a tree's preorder arrays (``feature``, ``value``, ``categorical``,
``label``, ``size``): it does not import :mod:`dpmo.trees.tree`, which builds on it.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import SimpleNamespace

from .simplify import column_domains, simplify_arrays

__all__ = ["tree_to_dict", "tree_to_text", "simplified"]

_NODE_ARRAYS = ("feature", "value", "categorical", "label", "size")


def check_feature_names(feature, features) -> None:
    """Refuse ``features`` (names or :class:`~dpmo.datasets.Feature` objects) that are not a sequence
    (TypeError) or are shorter than the columns a tree tests (``feature``: each node's column, -1 at a
    leaf), with a ValueError; None passes. O(nodes)."""
    if features is None:
        return
    if isinstance(features, (str, bytes)) or not (
        hasattr(features, "__len__") and hasattr(features, "__getitem__")
    ):
        raise TypeError(
            "features must be a sequence of Feature objects or names, one per column, got "
            f"{type(features).__name__}"
        )
    if feature.size == 0:
        return
    n_features = int(feature.max()) + 1
    if len(features) < n_features:
        raise ValueError(
            f"features names {len(features)} columns, but the tree tests column {n_features - 1}"
        )


def _check_tree(tree) -> None:
    if not all(hasattr(tree, name) for name in _NODE_ARRAYS):
        raise TypeError(f"tree must be a dpmo.trees.Tree, got {type(tree).__name__}")


def simplified(tree, features: Sequence | None = None) -> SimpleNamespace:
    """The preorder arrays of the simplified ``tree`` (``feature``, ``value``, ``categorical``, ``label``,
    ``size``, ``depth`` attributes), with the public domains of ``features``
    (:func:`dpmo.trees.simplify.simplify_arrays`). O(nodes x depth).

    Examples
    --------
    >>> from dpmo.trees import tree_from_nested
    >>> from dpmo.trees.export import simplified
    >>> simplified(tree_from_nested((0, 0.5, False, 1, 1))).label.tolist()  # both branches say 1
    [1]
    """
    _check_tree(tree)
    n_columns = int(max(tree.feature.max(), -1)) + 1
    if features is not None:
        n_columns = max(n_columns, len(features))
    arrays = simplify_arrays(*(getattr(tree, n) for n in _NODE_ARRAYS), column_domains(features, n_columns))
    return SimpleNamespace(**dict(zip(_NODE_ARRAYS + ("depth",), arrays, strict=True)))


def _plain(value):
    """A JSON-ready scalar (numpy ints/floats/bools become Python ones; anything else its text)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value if isinstance(value, str) else str(value)


def tree_to_dict(
    tree, features: Sequence | None = None, classes: Sequence | None = None, *, simplify: bool = True
) -> dict:
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
    simplify : bool, default True
        Render the simplified tree (:func:`simplified`: the same predictions, no unreachable branch, no
        repeated test); False renders the tree as stored.

    Returns
    -------
    dict
        A leaf is ``{"leaf": label}``. A decision node is ``{"feature": name, "column": f, "test": "<=",
        "threshold": t, "left": ..., "right": ...}`` for a numeric test (rows with ``x <= t`` go left) and
        ``{"feature": name, "column": f, "test": "==", "category": c, "left": ..., "right": ...}`` for a
        categorical one (rows with ``x == c`` go left). Same structure as :meth:`Tree.to_text`.

    Notes
    -----
    O(nodes) time (O(nodes x depth) with ``simplify``); recursion depth is the tree's depth.

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
    _check_tree(tree)
    check_feature_names(tree.feature, features)
    if isinstance(classes, (str, bytes)):  # "ab" is no pair of names
        raise TypeError("classes must be a pair [negative, positive] of names, not a str")
    if classes is not None and len(classes) != 2:
        raise ValueError(f"classes must be a pair [negative, positive], got {len(classes)} labels")
    if simplify:
        tree = simplified(tree, features)

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
            named = v.is_integer() and 0 <= v < len(cats)  # a fractional value matches no code
            node["category"] = _plain(cats[int(v)]) if named else _plain(v)
        else:
            bounds = getattr(item, "bounds", None)
            node["test"] = "<="
            node["threshold"] = v if bounds is None else float(bounds[0] + v * (bounds[1] - bounds[0]))
        left = i + 1
        node["left"] = build(left)
        node["right"] = build(left + int(tree.size[left]))
        return node

    return build(0)


def tree_to_text(tree, features: Sequence | None = None, *, simplify: bool = True) -> str:
    """Human-readable rules of ``tree``, one line per test or leaf, nested by indentation.

    Parameters
    ----------
    tree : Tree
    features : sequence of Feature or str, optional
        With :class:`~dpmo.datasets.Feature` metadata, categories are shown by name and numeric
        thresholds in the original units (``lo + value * (hi - lo)``); plain names are shown as they are;
        None names feature ``f`` ``x[f]``.
    simplify : bool, default True
        Print the simplified tree (:func:`simplified`), as :func:`tree_to_dict`.

    Returns
    -------
    str

    Notes
    -----
    O(nodes) time (O(nodes x depth) with ``simplify``); recursion depth is the tree's depth.

    Examples
    --------
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import tree_from_nested
    >>> from dpmo.trees.export import tree_to_text
    >>> smoker = [Feature("smoker", "categorical", ("0", "1"))]
    >>> tree = tree_from_nested((0, 0.0, True, (0, 0.0, True, 1, 0), 0))  # the same test twice
    >>> print(tree_to_text(tree, smoker))
    if smoker == '0':
        predict 1
    else:
        predict 0
    """
    _check_tree(tree)
    check_feature_names(tree.feature, features)
    if simplify:
        tree = simplified(tree, features)

    def fname(f: int) -> str:
        if features is None:
            return f"x[{f}]"
        item = features[f]
        return getattr(item, "name", str(item))

    def cat(f: int, v: float) -> str:
        cats = getattr(features[f], "categories", ()) if features is not None else ()
        if cats and float(v).is_integer() and 0 <= v < len(cats):
            return repr(cats[int(v)])
        return f"{v:g}"

    lines: list[str] = []

    def walk(i: int, level: int) -> None:
        pad = "    " * level
        f = int(tree.feature[i])
        if f < 0:
            lines.append(f"{pad}predict {int(tree.label[i])}")
            return
        if tree.categorical[i]:
            lines.append(f"{pad}if {fname(f)} == {cat(f, tree.value[i])}:")
        else:
            v = float(tree.value[i])
            bounds = getattr(features[f], "bounds", None) if features is not None else None
            shown = f"{v:.6g}" if bounds is None else f"{bounds[0] + v * (bounds[1] - bounds[0]):.6g}"
            lines.append(f"{pad}if {fname(f)} <= {shown}:")
        left = i + 1
        walk(left, level + 1)
        lines.append(f"{pad}else:")
        walk(left + int(tree.size[left]), level + 1)

    walk(0, 0)
    return "\n".join(lines)
