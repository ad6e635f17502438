"""The marked encoded table of a :class:`~dpmo.datasets.Dataset`: :class:`EncodedTable`.

An :class:`EncodedTable` is a numpy array that says it holds the encoded form of its features, so that an
estimator never reads it as raw units (``docs/trees.md``, "Units"). Its row selections keep the features
and its column selections carry theirs; every other array made from it is plain, or marked with unknown
features (refused by the estimators) when numpy changes it in place.
"""

from __future__ import annotations

import operator

import numpy as np

__all__ = ["EncodedTable"]


class EncodedTable(np.ndarray):
    """A table in the encoded form of its features, marked as such: what ``Dataset.X`` holds.

    A numpy array (every numpy function takes it) with one attribute, ``features``: the features it is
    encoded with (category codes, numeric values scaled with the public bounds). The tree estimators read
    an EncodedTable in the encoded form and any other array in the raw units of the features, so the
    encoded table of a Dataset is never mistaken for raw values (``docs/trees.md``, "Units").

    Row selections (``X[rows]``, ``X[:100]``, ``X.take(rows, axis=0)``, ``np.take``, scikit-learn's
    splitters), copies (``X.copy()``, pickling) and column selections (``X[:, cols]``,
    ``X.take(cols, axis=1)``, ``X[np.ix_(rows, cols)]``, whose ``features`` follow) stay marked. What is
    *computed* from it (``X * 2``, comparisons, ``np.clip``, reductions, ``np.asarray(X)``, ``np.vstack``,
    ``np.sort``, ``np.roll``, every other numpy function, a transpose, a reshape, ``X.dot``) is a plain
    array: it no longer says which units it is in, and an estimator with ``features`` reads it as raw units.
    A table sorted in place within its rows (``X.sort(axis=1)``) or indexed in a way its features cannot
    follow stays marked with ``features=None``, which the estimators refuse.

    Parameters
    ----------
    X : array_like, shape (n, d)
    features : sequence of Feature, length d

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import EncodedTable, Feature
    >>> age = Feature("age", "numeric", bounds=(0, 120))
    >>> X = EncodedTable([[0.25], [0.5]], [age])
    >>> X[1:].features == (age,), type(X * 120).__name__, (X * 120).ravel().tolist()
    (True, 'ndarray', [30.0, 60.0])
    """

    features: tuple | None

    def __new__(cls, X, features):
        obj = np.asarray(X).view(cls)
        obj.features = tuple(features)
        if obj.ndim != 2 or obj.shape[1] != len(obj.features):
            shape = "2-D" if obj.ndim == 2 else f"{obj.ndim}-D"  # the row count is private: never shown
            width = f" of {obj.shape[1]} columns" if obj.ndim == 2 else ""
            raise ValueError(
                f"an EncodedTable needs a 2-D table with one feature per column, got a {shape} table{width} "
                f"and {len(obj.features)} features"
            )
        return obj

    def __array_finalize__(self, obj):
        # numpy made this array from obj (a copy, a view, astype, a new array of a method): obj's features
        # only at obj's shape. __getitem__ and take set the features of their selections themselves; the
        # methods that move values across columns at the same shape return plain arrays (_PLAIN_METHODS)
        features = getattr(obj, "features", None)
        same = features is not None and getattr(obj, "shape", None) == self.shape
        self.features = features if same else None

    def __getitem__(self, key):
        out = super().__getitem__(key)
        if not isinstance(out, EncodedTable):
            return out
        if out.ndim != 2:
            return out.view(np.ndarray)
        cols = _column_key(key)
        if cols is _ALL:
            out.features = self.features
        elif cols is None or self.features is None:  # the features cannot follow: marked, unknown features
            out.features = None
        else:
            out.features = _picked(self.features, cols, out.shape[1])
        return out

    def take(self, indices, axis=None, out=None, mode="raise"):
        """:meth:`numpy.ndarray.take`: rows (``axis=0``) keep the features, columns (``axis=1``) carry
        theirs; any other result is a plain array."""
        target = out.view(np.ndarray) if isinstance(out, EncodedTable) else out
        result = self.view(np.ndarray).take(indices, axis=axis, out=target, mode=mode)
        marked, features = False, None
        if axis is not None and self.ndim == 2 and result.ndim == 2:
            along = operator.index(axis) % 2
            marked = True
            if along == 0:
                features = self.features
            elif self.features is not None:
                columns = np.arange(self.shape[1]).take(indices, mode=mode)
                features = _picked(self.features, columns, result.shape[1])
        if out is not None:
            if isinstance(out, EncodedTable):
                out.features = features
            return out
        if not marked:
            return result
        result = result.view(EncodedTable)
        result.features = features
        return result

    def compress(self, condition, axis=None, out=None):
        """:meth:`numpy.ndarray.compress`: the selection ``take`` makes of the true entries' indices."""
        if axis is None or np.ndim(condition) != 1:
            return self.view(np.ndarray).compress(condition, axis=axis, out=out)
        return self.take(np.flatnonzero(condition), axis=axis, out=out)

    def sort(self, *args, **kwargs):
        """In place, :meth:`numpy.ndarray.sort`: sorting within rows leaves the columns unknown."""
        super().sort(*args, **kwargs)
        self._unless_along_rows(args, kwargs)

    def partition(self, *args, **kwargs):
        """In place, :meth:`numpy.ndarray.partition`: within rows it leaves the columns unknown."""
        super().partition(*args, **kwargs)
        self._unless_along_rows(args, kwargs, position=1)

    def _unless_along_rows(self, args, kwargs, position=0):
        axis = args[position] if len(args) > position else kwargs.get("axis", -1)
        if axis is None or self.ndim != 2 or operator.index(axis) % 2 != 0:
            self.features = None

    @property
    def T(self):  # noqa: N802 - numpy's name
        return self.view(np.ndarray).T

    @property
    def mT(self):  # noqa: N802 - numpy's name
        return self.view(np.ndarray).mT

    def __array_function__(self, func, types, args, kwargs):
        # numpy's functions compute a new array (np.sort, np.roll, np.delete, np.concatenate ...): plain;
        # np.take is the method take, whose selections carry their features
        result = super().__array_function__(func, types, args, kwargs)
        return result if func is np.take else _plain(result)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = tuple(x.view(np.ndarray) if isinstance(x, EncodedTable) else x for x in inputs)
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, EncodedTable) else o for o in out)
        return getattr(ufunc, method)(*plain, **kwargs)

    def __reduce__(self):
        rebuild, args, state = super().__reduce__()
        return rebuild, args, (state, self.features)

    def __setstate__(self, state):
        base, self.features = state
        super().__setstate__(base)


_ALL = object()

#: ndarray methods whose result may hold the values in other places than their columns (a transpose, a
#: reshape, a product, indices): a plain array, never marked with features it does not follow.
_PLAIN_METHODS = (
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "choose",
    "diagonal",
    "dot",
    "flatten",
    "ravel",
    "repeat",
    "reshape",
    "squeeze",
    "swapaxes",
    "transpose",
)


def _plain_method(name):
    method = getattr(np.ndarray, name)

    def plain(self, *args, **kwargs):
        return method(self.view(np.ndarray), *args, **kwargs)

    plain.__name__ = plain.__qualname__ = name
    plain.__doc__ = f":meth:`numpy.ndarray.{name}` of the values: a plain array."
    return plain


for _name in _PLAIN_METHODS:
    setattr(EncodedTable, _name, _plain_method(_name))


def _plain(result):
    """``result`` with every EncodedTable in it (a list or tuple of them too) a plain array."""
    if isinstance(result, EncodedTable):
        return result.view(np.ndarray)
    if isinstance(result, (list, tuple)):
        return type(result)(_plain(r) for r in result)
    return result


def _picked(features, cols, width):
    """The features of the columns ``cols`` (an index of one axis, or a row of a broadcast 2-D index),
    or None when they are not ``width`` columns of one feature each."""
    picked = np.empty(len(features), dtype=object)
    picked[:] = features
    try:
        names = np.asarray(picked[cols], dtype=object)
    except (IndexError, TypeError, ValueError):
        return None
    if names.ndim == 2 and names.shape[0] == 1:  # X[np.ix_(rows, cols)]: cols of shape (1, k)
        names = names[0]
    if names.ndim != 1 or names.shape[0] != width:
        return None
    return tuple(names)


def _column_key(key):
    """The column part of an index of a 2-D table: ``_ALL`` for a row selection, None when unknown."""
    if not isinstance(key, tuple) or len(key) == 1 or (len(key) == 2 and key[1] is Ellipsis):
        return _ALL  # rows only (an int array, a slice, a boolean mask of rows; X[rows, ...])
    if len(key) != 2 or key[1] is None or (key[0] is None):
        return None
    cols = key[1]  # X[rows, cols] or X[..., cols]
    if isinstance(cols, slice) and cols == slice(None):
        return _ALL
    return cols
