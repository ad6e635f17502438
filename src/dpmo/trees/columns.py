"""A raw training table read column by column into narrow encoded columns (the lean fit, issue 40).

``fit`` on a raw table (a pandas DataFrame, or a plain array, with declared ``features``) used to read every
value as a Python object and to build a float64 copy of the whole table, then a second copy in the
encoding cache: about 780 bytes per row for 12 categorical columns. Here each column is read once, with
vectorised pandas/numpy operations, into what the fit needs:

* a categorical column becomes its codes ``0 .. K-1`` in the narrowest unsigned integer type (one byte per
  row for ``K <= 256``): the distinct raw values are found by ``pandas.factorize`` (a pandas Categorical:
  its own codes), and only those few distinct values are matched to the public categories, with the rule
  of :func:`dpmo.trees.units.encode_categories` (as it is, as text, an integral number as an int);
* a numeric column becomes its values scaled with the public bounds and clipped to ``[0, 1]``
  (:meth:`dpmo.datasets.Feature.scale`), float64.

The refusals are those of the float path, with the same words: a missing value (a null), a value outside a
column's public categories, a non-numeric or infinite value in a numeric column; none names a value or a
row. :class:`CodedColumns` is what :func:`dpmo.trees._inputs.check_X_fit` hands to the estimators that
read it (:class:`~dpmo.trees.EncodedData.from_columns` builds the bit sets from it; the ID3 estimators
take their codes from it), so no (n, d) float table exists during such a fit. Nothing here is released.
"""

from __future__ import annotations

import numpy as np

from .raw_tables import finite_numbers, frame_positions
from .units import category_code, category_lookup, encode_categories, isna_mask, unknown_category

__all__ = ["CodedColumns", "coded_columns", "id3_codes", "id3_column_codes", "map_categories", "narrow_codes"]


def narrow_codes(k: int):
    """The narrowest unsigned integer type holding the codes ``0 .. k - 1``.

    Examples
    --------
    >>> from dpmo.trees.columns import narrow_codes
    >>> narrow_codes(4).__name__, narrow_codes(300).__name__
    ('uint8', 'uint16')
    """
    if k <= 1 << 8:
        return np.uint8
    if k <= 1 << 16:
        return np.uint16
    return np.uint32


class CodedColumns:
    """The encoded columns of a raw table, each kept in its own narrow array.

    Parameters
    ----------
    columns : list of ndarray, one per feature, each of shape (n,)
        Category codes (unsigned integers) of a categorical feature, scaled values in ``[0, 1]`` (float64)
        of a numeric one.
    features : sequence of dpmo.datasets.Feature

    Notes
    -----
    Memory: one byte per row for a categorical column of at most 256 categories, eight for a numeric one.
    :meth:`to_matrix` builds the (n, d) float64 table of the encoded form when a caller needs it (the
    level engine of :mod:`dpmo.trees.evaluation`, for tables too large for the bit sets).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.columns import CodedColumns
    >>> cc = CodedColumns([np.array([1, 0], np.uint8)], [Feature("sex", "categorical", ("F", "M"))])
    >>> cc.shape, cc.to_matrix().tolist()
    ((2, 1), [[1.0], [0.0]])
    """

    def __init__(self, columns, features):
        self.columns = list(columns)
        self.features = tuple(features)
        n = self.columns[0].shape[0] if self.columns else 0
        self.shape = (n, len(self.columns))
        self.ndim = 2

    def __len__(self) -> int:
        return self.shape[0]

    def to_matrix(self) -> np.ndarray:
        """The (n, d) float64 table of the encoded form (category codes, scaled numbers). O(n d)."""
        out = np.empty(self.shape, dtype=np.float64)
        for j, col in enumerate(self.columns):
            out[:, j] = col
        return out

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns."""
        return sum(c.nbytes for c in self.columns)


def _missing(name) -> ValueError:
    return ValueError(f"column {name!r} of X holds missing values (NaN/None); drop or fill them")


def _categorical(values, feature) -> np.ndarray:
    """Codes of one categorical column (a pandas Series or a 1-D array), vectorised; refusals as
    :func:`dpmo.trees.raw_tables.encode_raw`'s. O(n) plus one look-up per distinct value."""
    import pandas as pd

    dtype = getattr(values, "dtype", None)
    try:
        if isinstance(dtype, pd.CategoricalDtype):
            codes = np.asarray(values.cat.codes.to_numpy())
            uniques = list(values.cat.categories.tolist())
        else:
            codes, uniq = pd.factorize(values, use_na_sentinel=True)
            uniques = list(uniq.tolist()) if hasattr(uniq, "tolist") else list(uniq)
    except TypeError:  # unhashable values: the per-value reading (it refuses them as unknown)
        raw = np.asarray(
            values.to_numpy(dtype=object) if hasattr(values, "to_numpy") else values, dtype=object
        )

        if isna_mask(raw).any():
            raise _missing(feature.name) from None
        return encode_categories(raw, feature).astype(narrow_codes(feature.n_categories))
    if codes.size and int(codes.min()) < 0:
        raise _missing(feature.name)
    mapped = map_categories(codes, uniques, feature)
    if mapped is None:
        unknown_category(feature)
    return mapped


def map_categories(codes: np.ndarray, uniques, feature) -> np.ndarray | None:
    """The feature's codes of a column given as ``uniques[codes]`` (its distinct raw values and the index
    of each row's value among them), or None when a value that occurs is not one of the public
    categories. The rule of :func:`dpmo.trees.units.encode_categories`, one look-up per distinct value.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.columns import map_categories
    >>> sex = Feature("sex", "categorical", ("F", "M"))
    >>> map_categories(np.array([0, 1, 0]), ["M", "F", "X"], sex).tolist()  # "X" does not occur
    [1, 0, 1]
    """
    used = np.bincount(np.asarray(codes, dtype=np.intp), minlength=len(uniques)) > 0
    lookup = category_lookup(feature)
    mapping = np.zeros(max(len(uniques), 1), dtype=narrow_codes(feature.n_categories))
    for i, v in enumerate(uniques):
        if not used[i]:
            continue
        c = category_code(lookup, v)
        if c is None:
            return None
        mapping[i] = c
    return mapping[codes]


def _numeric(values, isna: np.ndarray, feature) -> np.ndarray:
    if isna.any():
        raise _missing(feature.name)
    return feature.scale(finite_numbers(values, feature))


def coded_columns(X, features, path: str) -> CodedColumns:
    """Read a raw table (``path`` ``"frame"``: a DataFrame, columns by name; ``"array"``: a plain array,
    columns in the order of ``features``) into :class:`CodedColumns`.

    Numeric values outside the public bounds are clipped without a word (a fit's table is private). The
    columns of a DataFrame must be the features' (the message of :func:`dpmo.trees._inputs.check_X_fit`).
    O(n d) vectorised.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.columns import coded_columns
    >>> features = [Feature("age", "numeric", bounds=(0, 100)), Feature("sex", "categorical", ("F", "M"))]
    >>> cc = coded_columns(pd.DataFrame({"sex": ["M", "F"], "age": [50, 120]}), features, "frame")
    >>> cc.to_matrix().tolist()
    [[0.5, 1.0], [1.0, 0.0]]
    """
    features = tuple(features)
    if path == "frame":
        pos = frame_positions(X, features)
        series = [X.iloc[:, pos[f.name]] for f in features]
        isna = [None] * len(features)
    else:
        from .units import array_columns

        pairs = array_columns(X, features)
        series = [v for v, _ in pairs]
        isna = [m for _, m in pairs]
    out = []
    for f, values, na in zip(features, series, isna, strict=True):
        if f.is_categorical:
            out.append(_categorical(values, f))
        else:
            if na is None:
                na = values.isna().to_numpy()
            out.append(_numeric(values, na, f))
    return CodedColumns(out, features)


def id3_column_codes(col: np.ndarray, categorical: bool, size: int) -> np.ndarray:
    """The ID3 estimators' code of one coded column: a category code as it is, a scaled number in
    ``[0, 1]`` cut into ``size`` equal bins (``min(floor(x * size), size - 1)``, as
    :func:`dpmo.trees.id3_kernels.encode_codes`). int64, O(n).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.columns import id3_column_codes
    >>> id3_column_codes(np.array([0.0, 0.99, 1.0]), False, 5).tolist()
    [0, 4, 4]
    """
    if categorical:
        return col.astype(np.int64)
    return np.minimum(np.floor(col * size), size - 1).astype(np.int64)


def id3_codes(columns: CodedColumns, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, offsets)``: every row's global value index per attribute, int64 (n, d), and each
    attribute's first index (domain sizes: the categories, ``n_bins`` bins of a numeric column).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees.columns import CodedColumns, id3_codes
    >>> f = [Feature("x", "numeric", bounds=(0, 1)), Feature("s", "categorical", ("a", "b"))]
    >>> codes, offsets = id3_codes(CodedColumns([np.array([0.1, 0.9]), np.array([1, 0], np.uint8)], f), 4)
    >>> codes.tolist(), offsets.tolist()
    ([[0, 5], [3, 4]], [0, 4])
    """
    sizes = [f.n_categories if f.is_categorical else n_bins for f in columns.features]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    codes = np.empty(columns.shape, dtype=np.int64)
    for j, (f, col) in enumerate(zip(columns.features, columns.columns, strict=True)):
        codes[:, j] = id3_column_codes(col, f.is_categorical, sizes[j]) + offsets[j]
    return codes, offsets
