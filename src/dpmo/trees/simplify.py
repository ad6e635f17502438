"""Simplification of a decision tree: the same predictions with no unreachable branch and no repeated test.

Random trees and the genetic operators of DP-MOET test attributes without looking at the tests above
them, so a released tree can hold a branch that no row can reach (``x <= 0.3`` under ``x <= 0.2``), a test
repeated on its own path (``smoker == '0'`` under ``smoker == '0'``), or a test whose two branches predict
the same. :func:`simplify_arrays` removes them: every test whose outcome is already decided by the tests
above it (and by the public domain of its attribute) is replaced by the branch the rows take, and a test
whose two branches are the same tree is replaced by that tree. The result predicts what the tree
predicts for every row of the domain.

This is post-processing of the private tree: it reads the tree and the public schema only, never data,
so it costs no privacy.

Domains (what a row can hold in each column): a categorical :class:`~dpmo.datasets.Feature` with ``K``
categories holds the codes ``0 .. K-1``; a numeric Feature holds values in ``[0, 1]`` (the encoded form:
the estimators clip to the public bounds); a column without a Feature may hold any real number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["simplify_arrays", "column_domains"]


class _Reals:
    """The values a column can still hold on a path: an interval, minus excluded points, maybe one point."""

    __slots__ = ("lo", "lo_closed", "hi", "hi_closed", "point", "excluded")

    def __init__(self, lo, lo_closed, hi, hi_closed, point=None, excluded=frozenset()):
        self.lo, self.lo_closed, self.hi, self.hi_closed = lo, lo_closed, hi, hi_closed
        self.point = point
        self.excluded = excluded

    def _inside(self, x: float) -> bool:
        above = x > self.lo or (x == self.lo and self.lo_closed)
        below = x < self.hi or (x == self.hi and self.hi_closed)
        return above and below and x not in self.excluded and (self.point is None or x == self.point)

    def nonempty(self) -> bool:
        if self.point is not None:
            return self._inside(self.point)
        if self.lo < self.hi:
            return True  # infinitely many values, finitely many excluded
        return self.lo == self.hi and self.lo_closed and self.hi_closed and self.lo not in self.excluded

    def split(self, v: float, categorical: bool) -> tuple[_Reals, _Reals]:
        if categorical:  # left: x == v, right: x != v
            return (
                _Reals(self.lo, self.lo_closed, self.hi, self.hi_closed, v, self.excluded),
                _Reals(self.lo, self.lo_closed, self.hi, self.hi_closed, self.point, self.excluded | {v}),
            )
        # left: x <= v, right: x > v
        if v < self.hi:
            left = _Reals(self.lo, self.lo_closed, v, True, self.point, self.excluded)
        else:
            left = self
        if v > self.lo or (v == self.lo and self.lo_closed):
            right = _Reals(v, False, self.hi, self.hi_closed, self.point, self.excluded)
        else:
            right = self
        return left, right


class _Codes:
    """The codes a categorical column can still hold on a path (a finite set)."""

    __slots__ = ("codes",)

    def __init__(self, codes: frozenset):
        self.codes = codes

    def nonempty(self) -> bool:
        return bool(self.codes)

    def split(self, v: float, categorical: bool) -> tuple[_Codes, _Codes]:
        if categorical:
            return _Codes(frozenset(c for c in self.codes if c == v)), _Codes(
                frozenset(c for c in self.codes if c != v)
            )
        return _Codes(frozenset(c for c in self.codes if c <= v)), _Codes(
            frozenset(c for c in self.codes if c > v)
        )


def column_domains(features: Sequence | None, n_columns: int) -> list:
    """The public domain of each column (module notes): codes of a categorical Feature, ``[0, 1]`` for a
    numeric one, all reals otherwise (``features`` None, or names). O(columns + categories)."""
    out: list = []
    for f in range(n_columns):
        item = None if features is None or f >= len(features) else features[f]
        kind = getattr(item, "kind", None)
        if kind == "categorical":
            out.append(_Codes(frozenset(float(c) for c in range(len(item.categories)))))
        elif kind == "numeric":
            out.append(_Reals(0.0, True, 1.0, True))
        else:
            out.append(_Reals(-math.inf, False, math.inf, False))
    return out


def simplify_arrays(feature, value, categorical, label, size, domains: list) -> tuple[np.ndarray, ...]:
    """Preorder arrays of the simplified tree (module notes): ``(feature, value, categorical, label, size,
    depth)``.

    Parameters
    ----------
    feature, value, categorical, label, size : array_like
        The preorder arrays of a tree (:class:`dpmo.trees.Tree`).
    domains : list
        :func:`column_domains` for at least every column the tree tests.

    Notes
    -----
    O(nodes x depth) time (each subtree is compared with its sibling when both are kept); recursion depth
    is the tree's depth.

    Examples
    --------
    >>> from dpmo.trees import tree_from_nested
    >>> from dpmo.trees.simplify import column_domains, simplify_arrays
    >>> t = tree_from_nested((0, 1.0, True, (0, 1.0, True, 1, 0), 0))  # x0 == 1 tested twice on a path
    >>> out = simplify_arrays(t.feature, t.value, t.categorical, t.label, t.size, column_domains(None, 1))
    >>> out[0].tolist(), out[3].tolist()  # one test left: x0 == 1 -> 1, else 0
    ([0, -1, -1], [0, 1, 0])
    """
    feature = np.asarray(feature)
    value = np.asarray(value, dtype=np.float64)
    categorical = np.asarray(categorical, dtype=bool)
    label = np.asarray(label)
    size = np.asarray(size)

    def walk(i: int, state: tuple):
        f = int(feature[i])
        if f < 0:
            return int(label[i])
        v, cat = float(value[i]), bool(categorical[i])
        left_dom, right_dom = state[f].split(v, cat)
        left, right = i + 1, i + 1 + int(size[i + 1])
        go_left, go_right = left_dom.nonempty(), right_dom.nonempty()
        if not go_right:
            return walk(left, state)
        if not go_left:
            return walk(right, state)
        a = walk(left, state[:f] + (left_dom,) + state[f + 1 :])
        b = walk(right, state[:f] + (right_dom,) + state[f + 1 :])
        if a == b:  # both branches predict alike: the test does not matter
            return a
        return (f, v, cat, a, b)

    nested = walk(0, tuple(domains))
    out_f, out_v, out_c, out_l, out_s, out_d = [], [], [], [], [], []

    def emit(node, depth: int) -> int:
        pos = len(out_f)
        out_d.append(depth)
        out_s.append(1)
        if isinstance(node, int):
            out_f.append(-1)
            out_v.append(0.0)
            out_c.append(False)
            out_l.append(node)
            return 1
        f, v, cat, a, b = node
        out_f.append(f)
        out_v.append(v)
        out_c.append(cat)
        out_l.append(0)
        total = 1 + emit(a, depth + 1) + emit(b, depth + 1)
        out_s[pos] = total
        return total

    emit(nested, 0)
    return (
        np.array(out_f, dtype=np.int32),
        np.array(out_v, dtype=np.float64),
        np.array(out_c, dtype=bool),
        np.array(out_l, dtype=np.int8),
        np.array(out_s, dtype=np.int32),
        np.array(out_d, dtype=np.int32),
    )
