"""Split criteria of DiffP-ID3 and their global and exact local sensitivities.

A node of an ID3 tree holds a set ``T`` of records; for a candidate attribute ``A`` with (public) domain
``{0, ..., K - 1}`` and a binary class, the criterion depends only on the count table
``n[j, c]`` = number of records of ``T`` with ``A = j`` and class ``c`` (``n_j = n[j, 0] + n[j, 1]``).
The three criteria of Friedman and Schuster ("Data Mining with Differential Privacy", KDD 2010,
section 4.2), all "larger is better":

* ``"info_gain"``: ``u(T, A) = sum_j sum_c n[j, c] log2(n[j, c] / n_j) = -|T| H(C | A)``, the
  information gain up to the term ``|T| H(C)`` that is the same for every attribute. Global sensitivity
  ``log2(N + 1) + 1 / ln 2`` for sets of at most ``N`` records (Friedman and Schuster).
* ``"gini"``: ``u(T, A) = -sum_j n_j (1 - sum_c (n[j, c] / n_j)^2)``, global sensitivity 2.
* ``"max"``: ``u(T, A) = sum_j max_c n[j, c]`` (the records a one-level tree on ``A`` classifies right),
  global sensitivity 1.

**Neighbouring relation: add or remove one record** (anywhere in the dataset; a record outside ``T`` does
not change ``T``'s table).

Exact local sensitivity at distance t
-------------------------------------
One record changes one cell ``(j, c)`` by one, so the table decomposes into *cells*: for a cell write
``b = n[j, c]`` (its own count) and ``o = n[j, 1 - c]`` (the other class of the same value), ``a = b + o``.
With ``phi(x) = x log2 x`` and ``d(x) = phi(x + 1) - phi(x)`` the largest change of ``u`` caused by adding
or removing one record of that cell is

* info gain: ``g(b, o) = d(a - 1) - d(b - 1)`` if ``b >= 1`` (removal; at least the change on addition,
  ``d(a) - d(b)``, since ``d`` is concave), ``g(0, o) = d(o)`` (addition);
* Gini: ``g(b, o) = 2 o^2 / (a (a - 1))`` if ``b >= 1`` (0 when ``a = 1``), ``g(0, o) = 2 o / (o + 1)``;

and ``LS(T, A) = max`` of ``g`` over the ``2K`` cells of ``A``'s table (including the values that no record
of ``T`` takes: the domain is public). Both ``g`` decrease in ``b``, increase in ``o``, and
``g(0, o) = g(1, o)``. Within ``t`` additions/removals the cell can at best lose ``k`` records of its own
class and gain ``t - k`` of the other one, so the element local sensitivity at distance ``t`` (the
paper's Definition "Element local sensitivity at distance t") of the cell is, *exactly*,

    LS_cell(b, o, t) = max_{0 <= k <= min(b, t)} g(b - k, o + t - k)
                     = g(0, o + t)                                    if b = 0
                     = max(g(b, o + t), g(b - k*, o + t - k*)),  k* = min(t, b - 1)   if b >= 1,

and ``delta(T, t, A) = max`` over the cells of ``LS_cell`` is the exact local sensitivity at distance ``t``
of ``u(., A)``, hence admissible (Farias et al.: the exact one always is). The closed form (the maximum
over ``k`` sits at an end of the range) holds because ``k -> g(b - k, o + t - k)``, extended to real ``k``,
is quasi-convex: with ``m = b - k - 1`` and ``s = o + t - b`` the info-gain path is
``H(m) = d(2m + s + 1) - d(m)`` and ``H'(m) >= 0`` exactly when ``m (2s + 1) <= -(s + 1)^2`` (never if
``s >= 0``; for all ``m`` beyond one threshold if ``s < 0``); for Gini (``m = b - k``,
``Q(m) = 2 (m + s)^2 / ((2m + s)(2m + s - 1))``) ``Q'(m) >= 0`` exactly when ``m (2s + 1) <= -s^2``. A
quasi-convex function takes its maximum over an interval at an end, and ``k = b`` is never better than
``k = b - 1`` (``g(0, o') = g(1, o') <= g(1, o' + 1)``). ``tests/test_id3_sensitivity.py`` checks the
closed form against brute force on every small table.

Non-negative form (what LocalDiffPID3 dampens)
----------------------------------------------
Local dampening is odd in the score, so with the criteria above (info gain and Gini are ``<= 0``) a more
sensitive attribute is dampened towards 0, i.e. *favoured*. ``nonnegative=True`` adds ``c |T|``, ``c`` the
public largest impurity per record (``IMPURITY_OFFSET``: 1 bit for info gain, 1/2 for Gini, 0 for max):
``u + c |T| = sum_j n_j (c - impurity_j) >= 0``, the same for every attribute of a node up to that common
term (same order). Adding a record to a cell changes it by ``c - F(b, o)``, ``F`` the plain decrease on
addition (info gain ``F = d(a) - d(b)``, Gini ``F = 2 o^2 / (a (a + 1))``; ``F`` decreases in ``b``,
increases in ``o``, ``F(b, 0) = 0``), removing one by ``g(b, o) - c``. Hence
``g_c(b, o) = max(g(b, o) - c, c - F(b, o))``, global sensitivity ``max(c, G - c)``, and at distance t

    LS_c(b, o, t) = max(LS_cell(b, o, t) - c, c - min F),

``min F`` over the cells reachable within t steps: 0 if ``t >= o``, else the minimum over ``k`` of
``P(m) = F(m, m + s)``, ``m = b + k``, ``s = o - t - b``; for both criteria ``P'(m) >= 0`` iff
``m (1 - 2 s) >= s^2``, so the minimum is at ``k = 0``, ``k = t`` or next to ``m0 = s^2 / (1 - 2 s)``.
The tests check it equals the brute-force local sensitivity at distance t (hence admissible).

The local dampening paper (Farias et al., VLDB Journal 2023, "private decision tree induction") uses the
information gain of Friedman and Schuster with an element local sensitivity obtained by enumerating the
reachable cell counts ("Candidates" algorithm) and the same per-cell change ``h(a, b)``; the closed form
above replaces the enumeration by two evaluations per cell. For ``"max"`` the exact local sensitivity is 1
for every table (adding a record to the majority class of any value), so local dampening gains nothing.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import xlogy

from .._validation import check_choice, check_int
from ..sensitivity import LocalSensitivity
from .id3_kernels import cell_curve, undominated_cells

__all__ = [
    "CRITERIA",
    "info_gain_global_sensitivity",
    "criterion_global_sensitivity",
    "split_scores",
    "cell_sensitivity",
    "cell_local_sensitivity",
    "split_local_sensitivity",
    "node_local_sensitivity",
    "IMPURITY_OFFSET",
]

#: Names accepted by ``criterion``.
CRITERIA = ("info_gain", "gini", "max")

_LN2 = math.log(2.0)

#: Largest impurity per record of each criterion with two classes (``log2 2 = 1`` bit for the entropy,
#: ``1 - 1/2`` for Gini; ``"max"`` is already non-negative). ``nonnegative=True`` adds ``c |T|`` to the
#: criterion: ``u + c |T| = sum_j n_j (c - impurity_j) >= 0``. Public constants.
IMPURITY_OFFSET = {"info_gain": 1.0, "gini": 0.5, "max": 0.0}


def info_gain_global_sensitivity(n_records: float) -> float:
    """``log2(N + 1) + 1 / ln 2``: global sensitivity of the information-gain criterion on at most N records.

    Friedman and Schuster (KDD 2010), section 4.2. With the notation of the module, a change is at most
    ``d(a) <= d(N) = log2(N + 1) + N log2(1 + 1 / N) <= log2(N + 1) + 1 / ln 2``. O(1).
    """
    n = float(n_records)
    if not math.isfinite(n) or n < 0:
        raise ValueError(f"n_records must be a finite non-negative number, got {n_records!r}")
    return math.log2(n + 1.0) + 1.0 / _LN2


def criterion_global_sensitivity(
    criterion: str, max_records: float | None = None, *, nonnegative: bool = False
) -> float:
    """Global sensitivity of a split criterion (add/remove one record).

    Parameters
    ----------
    criterion : {"info_gain", "gini", "max"}
    max_records : float, optional
        Public upper bound on the number of records; required for ``"info_gain"`` (whose global
        sensitivity grows with it), ignored otherwise.
    nonnegative : bool, default False
        Sensitivity of the non-negative form ``u + c |T|`` (``c = IMPURITY_OFFSET[criterion]``): a change
        ``c - F`` with ``0 <= F <= G`` (``G`` the plain criterion's bound), so ``max(c, G - c)``.

    Returns
    -------
    float
        ``log2(max_records + 1) + 1 / ln 2``, 2 or 1 (non-negative form: ``G - 1``, 1.5, 1). O(1).
    """
    check_choice(criterion, CRITERIA, "criterion")
    if criterion == "gini":
        g = 2.0
    elif criterion == "max":
        g = 1.0
    elif max_records is None:
        raise ValueError("max_records is required for the global sensitivity of criterion 'info_gain'")
    else:
        g = info_gain_global_sensitivity(max_records)
    if nonnegative:
        c = IMPURITY_OFFSET[criterion]
        return max(c, g - c)
    return g


def _phi(x: np.ndarray) -> np.ndarray:
    """``x log2 x`` with ``0 log 0 = 0``."""
    return xlogy(x, x) / _LN2


def _d(x: np.ndarray) -> np.ndarray:
    """``d(x) = phi(x + 1) - phi(x) = log2(x + 1) + x log2(1 + 1/x)`` (``d(0) = 0``), cancellation-free."""
    x = np.asarray(x, dtype=np.float64)
    xs = np.maximum(x, 1.0)
    val = np.log2(x + 1.0) + xs * np.log1p(1.0 / xs) / _LN2
    return np.where(x > 0, val, 0.0)


_D_TABLE = np.zeros(0)


def _d_table(upto: int) -> np.ndarray:
    """``d(0) .. d(>= upto)`` by :func:`_d` (numpy's ufuncs compute each element alone: the same floats)."""
    global _D_TABLE
    if _D_TABLE.size <= upto:
        _D_TABLE = _d(np.arange(max(2 * _D_TABLE.size, upto + 1, 1024), dtype=np.float64))
    return _D_TABLE


def _d_of(x: np.ndarray) -> np.ndarray:
    """:func:`_d` of a float64 array, read from :func:`_d_table` (``_d``'s own floats) below ``2^16``."""
    top = x.max(initial=0.0)
    if 0.0 <= top < 65536.0 and x.min(initial=0.0) >= 0.0:
        xi = x.astype(np.intp)
        if (xi == x).all():
            return _d_table(int(top))[xi]
    return _d(x)


def _check_counts(n0, n1, groups, n_groups) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    n0 = np.asarray(n0, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.float64)
    if n0.ndim != 1 or n0.shape != n1.shape:
        raise ValueError(f"n0 and n1 must be 1-D of the same length, got shapes {n0.shape} and {n1.shape}")
    if n0.size and not (n0.min() >= 0.0 and n1.min() >= 0.0 and n0.max() < np.inf and n1.max() < np.inf):
        raise ValueError("class counts n0 and n1 must be finite and non-negative")
    if groups is None and n_groups is None:  # one candidate
        return n0, n1, np.zeros(n0.shape[0], dtype=np.intp), 1
    if groups is None:
        groups = np.zeros(n0.shape[0], dtype=np.intp)
        n_groups = 1 if n_groups is None else n_groups
    groups = np.asarray(groups)  # whole numbers, never truncated
    if groups.size and (groups.dtype.kind not in "iuf" or not np.all(np.mod(groups, 1) == 0)):
        raise ValueError("groups must hold integer candidate indices")
    groups = groups.astype(np.intp)
    if groups.shape != n0.shape:
        raise ValueError(f"groups must have the shape of n0 {n0.shape}, got {groups.shape}")
    if n_groups is None:
        n_groups = int(groups.max()) + 1 if groups.size else 0
    n_groups = check_int(n_groups, "n_groups", minimum=None, maximum=2**31)  # candidates are int32 columns
    if groups.size and (groups.min() < 0 or groups.max() >= n_groups):
        raise ValueError(f"groups must lie in [0, n_groups) = [0, {n_groups})")
    return n0, n1, groups, n_groups


def _check_cell(b, o, t=0) -> tuple[np.ndarray, ...]:
    """Cell counts ``b``, ``o`` (finite, >= 0) and distances ``t`` (ints >= 0, as ``rate_sensitivity``)."""
    b, o, t = np.asarray(b, dtype=np.float64), np.asarray(o, dtype=np.float64), np.asarray(t)
    if not all(x.size == 0 or (x.min() >= 0.0 and x.max() < np.inf) for x in (b, o)):  # False for NaN
        raise ValueError("the cell counts b and o must be finite and non-negative")
    if (not_int := t.dtype == bool or not np.issubdtype(t.dtype, np.integer)) or (t.size and t.min() < 0):
        raise (TypeError if not_int else ValueError)("t must be non-negative ints (an int or an int array)")
    return b, o, t


def split_scores(
    n0,
    n1,
    groups=None,
    n_groups: int | None = None,
    *,
    criterion: str = "info_gain",
    nonnegative: bool = False,
) -> np.ndarray:
    """Criterion value ``u(T, A)`` of every candidate attribute of a node.

    Parameters
    ----------
    n0, n1 : array_like, shape (m,)
        Class-0 and class-1 counts of each (attribute, value) pair of the node, all attributes concatenated.
    groups : array_like of int, shape (m,), optional
        Candidate (attribute) index of each pair; default all 0 (one attribute).
    n_groups : int, optional
        Number of candidates, at most ``2**31`` (default ``max(groups) + 1``).
    criterion : {"info_gain", "gini", "max"}
        See the module docstring (Friedman and Schuster's three criteria; larger is better).
    nonnegative : bool, default False
        Add ``c |T|`` with the public constant ``c = IMPURITY_OFFSET[criterion]`` (the largest impurity
        per record): ``sum_j n_j (1 - H(C | A = j))`` for info gain (the information gain measured from the
        uniform class prior), ``sum_j n_j (1/2 - Gini_j)`` for Gini, unchanged for max. Every attribute of
        a node gets the same ``c |T|``, so the order of the attributes is unchanged; the values are >= 0.

    Returns
    -------
    numpy.ndarray of float64, shape (n_groups,)

    Notes
    -----
    O(m) time and memory (one pass of numpy over the pairs, summed per candidate with ``np.bincount``).
    """
    check_choice(criterion, CRITERIA, "criterion")
    n0, n1, groups, n_groups = _check_counts(n0, n1, groups, n_groups)
    a = n0 + n1
    if criterion == "info_gain":
        per_value = _phi(n0) + _phi(n1) - _phi(a)
    elif criterion == "gini":
        per_value = -2.0 * n0 * n1 / np.maximum(a, 1.0)
    else:
        per_value = np.maximum(n0, n1)
    if nonnegative:
        per_value = np.maximum(per_value + IMPURITY_OFFSET[criterion] * a, 0.0)  # >= 0 up to rounding
    return np.bincount(groups, weights=per_value, minlength=n_groups).astype(np.float64)


def _addition_change(b, o, criterion: str) -> np.ndarray:
    """``F(b, o) >= 0``: the criterion *decreases* by ``F`` when a record is added to a cell ``(b, o)``.

    Info gain: ``F = d(b + o) - d(b)``; Gini: ``F = 2 o^2 / (a (a + 1))``. ``F`` decreases in ``b``,
    increases in ``o``, and ``F(b, 0) = 0``.
    """
    a = b + o
    if criterion == "info_gain":
        ab = np.empty((2, *a.shape))  # _d(a) and _d(b) in one call (elementwise: the same floats)
        ab[0], ab[1] = a, b
        da, db = _d_of(ab)
        return da - db
    return 2.0 * o * o / np.maximum(a * (a + 1.0), 1.0)


def cell_sensitivity(b, o, *, criterion: str = "info_gain", nonnegative: bool = False) -> np.ndarray:
    """``g(b, o)``: largest change of the criterion when one record of a cell is added or removed.

    ``b`` is the cell's count (records with value ``j`` and class ``c``), ``o`` the count of the other class
    for the same value. See the module docstring for the formulas. Criteria ``"info_gain"`` and ``"gini"``
    (the table-level local sensitivity of ``"max"`` is the constant 1: see :func:`split_local_sensitivity`).
    With ``nonnegative=True`` the change of ``u + c |T|``: ``max(g - c, c - F(b, o))`` (an addition changes
    it by ``c - F(b, o)``, a removal by ``F(b - 1, o) - c = g - c``). Broadcasts; O(size) time.
    """
    check_choice(criterion, ("info_gain", "gini"), "criterion")
    b, o, _ = _check_cell(b, o)
    g = _addition_change(np.maximum(b - 1.0, 0.0), o, criterion)  # removal if b >= 1, else addition
    if not nonnegative:
        return g
    c = IMPURITY_OFFSET[criterion]
    return np.maximum(g - c, c - _addition_change(b, o, criterion))


def _min_addition_change(b, o, t, criterion: str) -> np.ndarray:
    """``min F(b', o')`` over the cells ``(b', o')`` reachable from ``(b, o)`` within ``t`` steps.

    ``F`` decreases in ``b`` and increases in ``o``, so the minimum uses all ``t`` steps to add own records
    and remove other ones: ``0`` if ``t >= o`` (the cell becomes pure), else the minimum over
    ``0 <= k <= t`` of ``P(m) = F(m, m + s)``, ``m = b + k``, ``s = o - t - b``. For both criteria
    ``P'(m) >= 0`` exactly when ``m (1 - 2 s) >= s^2`` (info gain: ``P = d(2m + s) - d(m)``,
    ``d'(x) = log2(1 + 1/x)``; Gini: ``ln P = 2 ln(m + s) - ln(2m + s) - ln(2m + s + 1)``): ``P`` decreases
    everywhere when ``s >= 1`` and has its minimum at ``m0 = s^2 / (1 - 2 s)`` when ``s <= 0``, so the
    integer minimum is among ``k = 0``, ``t`` and the integers next to ``m0 - b``.
    """
    s = o - t - b
    m0 = np.where(s <= 0, s * s / np.maximum(1.0 - 2.0 * s, 1.0), b)
    k = np.empty((4, *s.shape))  # the four k of every cell, evaluated in one call
    k[0], k[1], k[2], k[3] = 0.0, t, np.clip(np.floor(m0) - b, 0.0, t), np.clip(np.ceil(m0) - b, 0.0, t)
    val = _addition_change(b + k, np.maximum(o - t + k, 0.0), criterion)
    return np.where(t >= o, 0.0, np.minimum.reduce(val, axis=0))


def cell_local_sensitivity(b, o, t, *, criterion: str = "info_gain", nonnegative: bool = False) -> np.ndarray:
    """Exact local sensitivity at distance ``t`` of one cell, ``max_{0<=k<=min(b,t)} g(b - k, o + t - k)``.

    Closed form (module docstring): ``g(0, o + t)`` when ``b = 0``, else the larger of ``g(b, o + t)`` and
    ``g(b - k*, o + t - k*)`` with ``k* = min(t, b - 1)``. With ``nonnegative=True`` (criterion
    ``u + c |T|``) it is ``max(LS - c, c - min F)``, ``LS`` the plain closed form and ``min F`` the smallest
    addition change over the cells reachable within ``t`` steps (module docstring). Broadcasts over ``b``,
    ``o`` and ``t`` (e.g. ``t`` of shape (B, 1) against cells of shape (m,) gives (B, m)). Criteria
    ``"info_gain"`` and ``"gini"``. O(size) time.
    """
    check_choice(criterion, ("info_gain", "gini"), "criterion")
    return _cell_local(*_check_cell(b, o, t), criterion, nonnegative)


def _cell_local(b, o, t, criterion: str, nonnegative: bool) -> np.ndarray:
    """:func:`cell_local_sensitivity` of checked arguments (the fit's twin: no check)."""
    b, o, t = (np.asarray(x, dtype=np.float64) for x in (b, o, t))
    k = np.minimum(t, np.maximum(b - 1.0, 0.0))
    ot = o + t  # g(b, o + t) and g(b - k, o + t - k) in one call (elementwise: the same floats)
    otk = ot - k  # of the shape of b, o and t broadcast
    cells = np.empty((4, *otk.shape))
    cells[0], cells[1], cells[2], cells[3] = b, b - k, ot, otk
    first, second = _addition_change(np.maximum(cells[:2] - 1.0, 0.0), cells[2:], criterion)
    plain = np.maximum(first, second)
    if not nonnegative:
        return plain
    c = IMPURITY_OFFSET[criterion]
    return np.maximum(plain - c, c - _min_addition_change(b, o, t, criterion))


def split_local_sensitivity(
    n0,
    n1,
    t,
    groups=None,
    n_groups: int | None = None,
    *,
    criterion: str = "info_gain",
    nonnegative: bool = False,
) -> np.ndarray:
    """Exact local sensitivity at distance ``t`` of the criterion, for every candidate attribute of a node.

    ``delta(T, t, A) = max`` over the ``2 K_A`` cells of ``A`` of :func:`cell_local_sensitivity` (the cells
    of the class-0 count with the class-1 count as ``o``, and conversely). It equals the element local
    sensitivity at distance ``t`` under add/remove-one-record neighbours, so it is admissible.

    Parameters
    ----------
    n0, n1, groups, n_groups
        As in :func:`split_scores`. Include the values no record takes (count 0): the domain is public and
        such values matter at ``t > 0``.
    t : int or array of int
        Distance(s); an array of shape (B, 1) gives a (B, n_groups) result.
    criterion : {"info_gain", "gini", "max"}
    nonnegative : bool, default False
        Local sensitivity of the non-negative form ``u + c |T|`` (:func:`split_scores`).

    Returns
    -------
    numpy.ndarray of float64, shape ``np.shape(t)[:-1] + (n_groups,)`` for array ``t``, (n_groups,) for int.

    Notes
    -----
    O(B m) time and memory for B distances and m (attribute, value) pairs.
    """
    check_choice(criterion, CRITERIA, "criterion")
    t = _check_cell(0, 0, t)[2]
    n0, n1, groups, n_groups = _check_counts(n0, n1, groups, n_groups)
    return _grouped_local(n0, n1, groups, n_groups, t, criterion, nonnegative)


def _grouped_local(n0, n1, groups, n_groups, t, criterion, nonnegative=False) -> np.ndarray:
    scalar = t.ndim == 0
    tt = t.reshape(1, 1) if scalar else t
    if criterion == "max":
        out = np.ones(tt.shape[:-1] + (n_groups,))
    else:
        cells_b = np.concatenate([n0, n1])
        cells_o = np.concatenate([n1, n0])
        cells_g = np.concatenate([groups, groups])
        ls = _cell_local(cells_b, cells_o, tt, criterion, nonnegative)
        out = _group_max(ls, cells_g, n_groups)
    return out[0] if scalar else out


def _group_max(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Maximum of ``values[..., i]`` over the columns ``i`` of each group (0 for an empty group)."""
    if n_groups == 1 and values.shape[-1]:  # one group (groups in [0, n_groups)): the maximum of each row
        return values.max(axis=-1, keepdims=True)
    order = np.argsort(groups, kind="stable")
    g_sorted = groups[order]
    v = values[..., order]
    present = np.bincount(groups, minlength=n_groups) > 0
    starts = np.searchsorted(g_sorted, np.nonzero(present)[0])
    out = np.zeros(values.shape[:-1] + (n_groups,))
    if starts.size:
        out[..., present] = np.maximum.reduceat(v, starts, axis=-1)
    return out


def node_local_sensitivity(
    n0,
    n1,
    groups=None,
    n_groups: int | None = None,
    *,
    criterion: str = "info_gain",
    nonnegative: bool = False,
    shared: bool = False,
) -> LocalSensitivity:
    """The local sensitivity function of a node, ready for :func:`dpmo.dampen` / :func:`dpmo.local_dampening`.

    Returns a :class:`dpmo.LocalSensitivity` ``f(t, idx)`` giving :func:`split_local_sensitivity` for the
    candidates ``idx`` (all when None); it broadcasts over an integer array ``t`` of shape (B, 1)
    (``vectorized_t=True``), so the dampening loop evaluates blocks of distances at once.
    ``nonnegative=True``: the function of the non-negative form ``u + c |T|`` (:func:`split_scores`).
    ``shared=True``: every candidate gets the node's *shared curve*, the elementwise maximum over all
    ``n_groups`` candidates, ``max_A delta(T, t, A)`` (admissible for each candidate: condition 1 because
    it is at least the candidate's own curve, condition 2 because each curve satisfies it, so their
    maximum does). Local dampening with one curve for all candidates is a monotone map of the scores, so
    it keeps their order (with a curve per candidate it does not).

    Only the cells that no other cell of the same attribute dominates are kept (see
    :func:`dpmo.trees.id3_kernels.undominated_cells`); the result is the same, the work much smaller (an
    attribute with many values usually has two or three undominated cells).

    Notes
    -----
    Building it is O(m log m); each call costs O(B c) for the c undominated cells of the requested
    candidates.
    """
    check_choice(criterion, CRITERIA, "criterion")
    n0, n1, groups, n_groups = _check_counts(n0, n1, groups, n_groups)
    if shared:  # one curve: the maximum over all the node's cells, whatever their attribute
        groups = np.zeros_like(groups)
    cb, co, cg = undominated_cells(n0, n1, groups, both=nonnegative)
    starts = np.searchsorted(cg, np.arange(n_groups + 1))
    info = criterion == "info_gain"  # whole-number counts: the shared curve is compiled (id3_kernels)
    whole = bool(np.all(cb == np.floor(cb)) and np.all(co == np.floor(co)))
    top = float(max(cb.max(initial=0.0) + co.max(initial=0.0), 0.0))

    def func(t, idx=None):
        t = _check_cell(0, 0, t)[2]  # O(B): the distances of one call
        idx = np.arange(n_groups) if idx is None else np.asarray(idx)
        valid = idx.size == 0 or idx.dtype.kind in "iu" and 0 <= idx.min() <= idx.max() < n_groups
        if idx.ndim != 1 or not valid:
            raise ValueError(f"idx must be 1-D candidate indices in [0, n_groups) = [0, {n_groups})")
        shape = (idx.size,) if t.ndim == 0 else t.shape[:-1] + (idx.size,)
        if criterion == "max":
            return np.ones(shape)
        tt = t.reshape(1, 1) if t.ndim == 0 else t
        if shared:
            ts = tt.reshape(-1).astype(np.int64) if t.dtype.kind in "iu" and tt.shape[-1] == 1 else None
            if whole and ts is not None and ts.min(initial=0) >= 0:  # compiled: the same floats
                dtab = _d_table(int(top) + int(ts.max(initial=0)) + 2) if info else _D_TABLE
                curve = cell_curve(cb, co, ts, info, nonnegative, IMPURITY_OFFSET[criterion], dtab)
            else:
                curve = _cell_local(cb, co, tt, criterion, nonnegative)
                curve = curve.max(axis=-1, initial=0.0).reshape(-1)
            out = np.empty((curve.size, idx.size))
            out[:] = curve[:, None]
            return out.reshape(shape)
        lo, hi = starts[idx], starts[idx + 1]
        counts = hi - lo
        sel = np.repeat(lo - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(counts.sum())
        ls = _cell_local(cb[sel], co[sel], tt, criterion, nonnegative)
        out = _group_max(ls, np.repeat(np.arange(idx.size), counts), idx.size)
        return out.reshape(shape)

    form = (" non-negative" if nonnegative else "") + (" shared" if shared else "")
    name = f"{criterion}{form} split local sensitivity"
    return LocalSensitivity(func, name=name, vectorized_t=True)
