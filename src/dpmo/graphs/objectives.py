"""Degree and ego density as :class:`dpmo.Objective`, with admissible local sensitivity functions.

Neighbouring relation: edge differential privacy (the paper's Definition "Edge Differential Privacy"). Two
graphs on the same (public) node set are neighbours when they differ in exactly one edge, added or removed.
"Distance t" is the number of edge additions and removals between two graphs.

Degree (the paper's section "Sensitivity Analysis", paragraph "Degree"): one edge changes the degree of its
two endpoints by exactly 1 and no other degree, so ``Delta degree = 1`` and ``delta(G, t, v) = 1`` for every
``t`` (admissible: condition 1 is the global bound, condition 2 holds with equality).

Ego density (paragraph "Egocentric density"; ``docs/errata.md`` point 2): the global sensitivity is
1 (the paper's example: the centre of a path on 3 nodes goes from 0 to 1 when the path is closed into a
triangle; the paper's text calls it "Delta degree", a typo). The paper prints
``delta(G, t, v) = 2 / (|N(v)| - t - 2)`` if ``|N(v)| - t > 2``, else 1. That function is *not admissible*: at
``|N(v)| - t = 3`` it is 2, above the global sensitivity, and condition 2 fails (``v`` of degree 2 in ``G``
and degree 3 in a neighbour ``G'``: ``delta(G, 1, v) = 1 < delta(G', 0, v) = 2``). The exact local
sensitivity at degree ``d >= 3`` is ``2 / d``, reached by removing a neighbour that has no edge to the
others (or adding a new one), so this module uses the tight admissible function

    delta(G, t, v) = 1 if deg(v) - t <= 2, else 2 / (deg(v) - t),

which equals the exact largest local sensitivity at distance ``t`` over graphs in which ``v`` has degree
``deg(v)`` (both admissibility conditions and that equality are checked exhaustively on all graphs with 5 and
6 nodes in ``tests/test_graphs_sensitivity.py``). With ``formula="published"`` (values halved for degree
>= 2) the function is ``1 if deg(v) - t <= 2, else 1 / (deg(v) - t)``; the value ``low_degree`` given to
nodes of degree < 2 does not matter, as long as it lies in [0, 1], since those nodes always get 1.
"""

from __future__ import annotations

import numba
import numpy as np

from .._kernel_args import kernel_input
from ..sensitivity import LocalSensitivity, Objective, objectives_on_rows
from .centrality import FORMULAS, check_convention, ego_density_from_counts
from .graph import Graph
from .io import public_graph

__all__ = [
    "degree_sensitivity",
    "ego_density_sensitivity",
    "ego_density_delta",
    "degree_objective",
    "ego_density_objective",
    "objectives",
    "statistics_objectives",
]


def degree_sensitivity(degree, t) -> np.ndarray:
    """``delta(G, t, v) = 1`` for every node and ``t`` (broadcasts ``t`` against ``degree``).

    Examples
    --------
    >>> from dpmo import graphs
    >>> graphs.degree_sensitivity([1, 5, 9], 3).tolist()  # one edge moves a degree by 1, at any distance
    [1.0, 1.0, 1.0]
    """
    degree = _checked_counts(degree, "degree")
    t = _checked_counts(t, "t")
    return np.ones(_broadcast_shape(degree, t), dtype=np.float64)


def _broadcast_shape(degree: np.ndarray, t: np.ndarray) -> tuple:
    """The shape ``degree`` and ``t`` broadcast to, else a ValueError naming both (shapes only)."""
    try:
        return np.broadcast_shapes(degree.shape, t.shape)
    except ValueError:
        raise ValueError(
            f"degree (shape {degree.shape}) and t (shape {t.shape}) do not broadcast together: give t as one "
            "distance, an array of degree's shape, or a column of distances of shape (B, 1)"
        ) from None


def _checked_counts(x, name: str) -> np.ndarray:
    """``x`` as an array of finite numbers >= 0 (degrees, distances), else a TypeError / ValueError naming
    ``name`` (a NaN or inf one gave NaN or zero sensitivities)."""
    arr = np.asarray(x)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be numbers >= 0, got dtype {arr.dtype}")
    if np.iscomplexobj(arr) or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
        raise ValueError(f"{name} must be finite real numbers >= 0")
    if arr.size and np.min(arr) < 0:
        raise ValueError(f"{name} must be non-negative")
    return arr


def ego_density_sensitivity(degree, t, *, formula: str = "paper") -> np.ndarray:
    """Tight admissible local sensitivity of ego density at distance ``t`` (see the module notes).

    Parameters
    ----------
    degree : array_like of int
        Degrees of the nodes in the graph ``G``.
    t : int or array_like of int
        Distance(s) ``t >= 0``; broadcast against ``degree`` (``t`` of shape (B, 1) gives (B, n)).
    formula : {"paper", "published"}
        ``"paper"``: ``1 if d - t <= 2 else 2 / (d - t)``;
        ``"published"``: ``1 if d - t <= 2 else 1 / (d - t)``.

    Returns
    -------
    numpy.ndarray of float64

    Notes
    -----
    O(size of the broadcast) time. Non-decreasing in ``t`` and at most 1 (the global sensitivity).

    Examples
    --------
    >>> from dpmo import graphs
    >>> # 2 / (d - t) for d - t > 2, else 1
    >>> graphs.ego_density_sensitivity([10, 4, 2], 0).tolist()
    [0.2, 0.5, 1.0]
    >>> graphs.ego_density_sensitivity([10], 6).tolist()  # 2 / (10 - 6)
    [0.5]
    """
    if type(formula) is not str or formula not in FORMULAS:
        check_convention(0.0, formula)  # raises
    d = _checked_counts(degree, "degree")
    t = _checked_counts(t, "t")
    _broadcast_shape(d, t)
    return ego_density_delta(d, t, formula)


def ego_density_delta(d: np.ndarray, t: np.ndarray, formula: str) -> np.ndarray:
    """:func:`ego_density_sensitivity` without its input checks, for degrees and distances that are already
    finite and non-negative (the library's own: the local functions of the pipeline call it at every
    distance, and the O(n) checks would run each time). Same floats as the checked function. O(len(d) x
    len(t)).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.graphs.objectives import ego_density_delta
    >>> ego_density_delta(np.array([10, 3]), np.array(6), "paper").tolist()  # 2 / (10 - 6); capped at 1
    [0.5, 1.0]
    """
    t = np.asarray(t)
    c = 2.0 if formula == "paper" else 1.0
    column = t.ndim == 2 and t.shape[1] == 1  # (B, 1): one row per distance
    if d.ndim == 1 and (t.ndim == 0 or column) and _numeric(d) and _numeric(t):
        # the shapes of the selection pipeline (t a scalar or a column of distances): one compiled pass
        # writing the result only (no temporaries of the result's size); the same floats as below
        ts = t.reshape(-1)
        out = np.empty((ts.size, d.size))
        if not _ego_delta_kernel(_one_type(d), ts, c, out):  # False: some t < 0 (np.any(t < 0))
            raise ValueError("t must be non-negative")
        return out[0] if t.ndim == 0 else out
    if np.any(t < 0):
        raise ValueError("t must be non-negative")
    rest = d.astype(np.float64) - t
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rest <= 2.0, 1.0, c / np.maximum(rest, 1.0))


def _numeric(a: np.ndarray) -> bool:
    return a.dtype.kind in "iuf" and a.dtype.itemsize <= 8


def _one_type(d: np.ndarray) -> np.ndarray:
    """Degrees as a read-only int64 view when they are integers that int64 holds (a copy for narrower
    types), else float64: the kernel converts each to float64, so the floats are the same, and it is
    compiled for two signatures at most instead of one per dtype and flag."""
    if d.dtype.kind == "i" or (d.dtype.kind == "u" and d.dtype.itemsize < 8):
        return kernel_input(d, np.int64)
    return kernel_input(d, np.float64)


@numba.njit(cache=True, nogil=True)
def _ego_delta_kernel(d, ts, c, out):  # pragma: no cover - compiled
    """``out[b, v] = 1 if d_v - t_b <= 2 else c / max(d_v - t_b, 1)`` in float64 (as numpy computes it);
    False (``out`` unfinished) when some ``t_b < 0``."""
    for b in range(ts.size):
        if ts[b] < 0:
            return False
        tb = np.float64(ts[b])
        for v in range(d.size):
            rest = np.float64(d[v]) - tb
            out[b, v] = 1.0 if rest <= 2.0 else c / max(rest, 1.0)
    return True


class _DegreeDelta:
    """Picklable ``(t, idx) -> 1`` (vectorised over ``t``)."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, t, idx=None):
        size = self.n if idx is None else len(idx)
        shape = np.shape(t)
        if shape == () or (len(shape) == 2 and shape[1] == 1):  # a distance or a column: no broadcast call
            return np.ones((*shape[:1], size), dtype=np.float64)
        return np.ones(np.broadcast_shapes(shape, (size,)), dtype=np.float64)


class _EgoDensityDelta:
    """Picklable ``(t, idx) -> ego_density_sensitivity(degree[idx], t)`` (vectorised over ``t``)."""

    def __init__(self, degree: np.ndarray, formula: str):
        self.degree = degree
        self.formula = formula

    def __call__(self, t, idx=None):
        d = self.degree if idx is None else self.degree[np.asarray(idx, dtype=np.intp)]
        return ego_density_delta(d, t, self.formula)


def _degree_spec(degree: np.ndarray) -> tuple:
    """``(global sensitivity, local function, name)`` of the degree objective."""
    return 1.0, LocalSensitivity(_DegreeDelta(len(degree)), name="degree", vectorized_t=True), "degree"


def _ego_density_spec(degree: np.ndarray, formula: str) -> tuple:
    """``(global sensitivity, local function, name)`` of the ego-density objective."""
    local = LocalSensitivity(_EgoDensityDelta(degree, formula), name="ego density", vectorized_t=True)
    return 1.0, local, "ego density"


def _degree_objective(degree: np.ndarray) -> Objective:
    G, local, name = _degree_spec(degree)
    return Objective(np.asarray(degree).astype(np.float64), G, local, name=name)


def _ego_density_objective(degree: np.ndarray, ego_density: np.ndarray, formula: str) -> Objective:
    G, local, name = _ego_density_spec(degree, formula)
    return Objective(ego_density, G, local, name=name)


def _objective_pair(degree: np.ndarray, ego_density, formula: str) -> list[Objective]:
    """Degree and ego density as :func:`dpmo.sensitivity.objectives_on_rows`: the objectives of
    :func:`_degree_objective` and :func:`_ego_density_objective`, their values the rows of one array (the
    counting state of PrivPareto takes the (2, n) matrix without a copy: 160 MB at 10^7 nodes).

    ``ego_density``: the values, or a function that writes them into the float64 array it is given
    and returns what it wrote (or the values, when they were already known elsewhere)."""
    V = np.empty((2, len(degree)))
    V[0] = degree
    if callable(ego_density):
        got = ego_density(V[1])
        if got.base is not V:
            V[1] = got
    else:
        V[1] = ego_density
    specs = [_degree_spec(degree), _ego_density_spec(degree, formula)]
    return objectives_on_rows(V, specs, copy=False)


def _graph(graph) -> Graph:
    # A raw input needs its public node set (load it with load_graph(..., nodes=)); the private entry
    # points check that a Graph's node set was declared public before they use its objectives.
    return graph if isinstance(graph, Graph) else public_graph(graph, None, "the graph objectives")


def degree_objective(graph) -> Objective:
    """Degree centrality as a :class:`dpmo.Objective` (global sensitivity 1, local ``delta = 1``).

    Parameters
    ----------
    graph : Graph (see :func:`dpmo.graphs.load_graph`)

    Returns
    -------
    dpmo.Objective
        Cached on the graph: calling again returns the same object.

    Notes
    -----
    O(n) on first use. Neighbouring relation: one edge added or removed (edge differential privacy).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> obj = graphs.degree_objective(graphs.load_graph(g, nodes=34))  # on the public node set
    >>> obj.global_sensitivity, obj.values.tolist() == graphs.degree(g).tolist()
    (1.0, True)
    """
    g = _graph(graph)
    return g.cached(("objective", "degree"), lambda: _degree_objective(g.degree))


def ego_density_objective(graph, *, low_degree: float = 0.0, formula: str = "paper") -> Objective:
    """Egocentric density as a :class:`dpmo.Objective` with the tight admissible local sensitivity.

    Parameters
    ----------
    graph : Graph (see :func:`dpmo.graphs.load_graph`)
    low_degree : float in [0, 1], default 0
        Ego density of nodes of degree < 2 (see :func:`dpmo.graphs.ego_density`).
    formula : {"paper", "published"}, default "paper"
        See :func:`dpmo.graphs.ego_density`.

    Returns
    -------
    dpmo.Objective
        Global sensitivity 1, local function :func:`ego_density_sensitivity` (ERRATA point 2; the paper's
        printed ``2 / (d - t - 2)`` is not admissible). Cached on the graph per convention.

    Notes
    -----
    O(n) after the triangle count. Neighbouring relation: one edge added or removed.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> obj = graphs.ego_density_objective(graphs.load_graph(g, nodes=34))
    >>> obj.global_sensitivity, obj.values.shape
    (1.0, (34,))
    >>> bool((obj.sensitivity(0) <= 1.0).all())  # capped at the global sensitivity
    True
    """
    g = _graph(graph)
    low, formula = check_convention(low_degree, formula)

    def build():
        return _ego_density_objective(g.degree, g.ego_density(low_degree=low, formula=formula), formula)

    return g.cached(("objective", "ego_density", low, formula), build)


def objectives(graph, *, low_degree: float = 0.0, formula: str = "paper") -> list[Objective]:
    """The paper's two objectives, degree first: the objectives of :func:`degree_objective` and
    :func:`ego_density_objective` (the same values, sensitivities and local functions), their values the
    rows of one read-only array (:func:`dpmo.sensitivity.objectives_on_rows`: PrivPareto's counting
    state takes the (2, n) matrix without a copy). Cached on the graph as a pair per convention.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> degree, density = graphs.objectives(graphs.load_graph(g, nodes=34))
    >>> degree.values.tolist() == graphs.degree(g).tolist()
    True
    """
    g = _graph(graph)
    low, formula = check_convention(low_degree, formula)

    def build():  # the values of both in one array (_objective_pair), cached as a pair
        def ego_into(row):
            # computed into the pair's row, which the graph then keeps as its ego density (no second
            # array of n floats); when the graph has it already, that one is copied
            key = ("ego_density", low, formula)
            return g.cached(key, lambda: ego_density_from_counts(g.degree, g.triangles, low, formula, row))

        return _objective_pair(g.degree, ego_into, formula)

    return list(g.cached(("objectives", low, formula), build))


def statistics_objectives(degree, ego_density, *, formula: str = "paper") -> list[Objective]:
    """The two objectives of :func:`objectives` built from the per-node statistics alone.

    For code that has the degrees and ego densities but no :class:`Graph` (the partitions of
    :mod:`dpmo.graphs.spark`, or the statistics collected on its driver): the same values, global
    sensitivities and admissible local functions as :func:`objectives` gives on the graph.

    Parameters
    ----------
    degree : array_like of int, shape (n,)
        Degrees (non-negative integers).
    ego_density : array_like of float, shape (n,)
        Ego densities computed with ``formula`` (:func:`dpmo.graphs.ego_density`), in [0, 1].
    formula : {"paper", "published"}, default "paper"
        The ego-density formula the values were computed with (it sets the local function).

    Returns
    -------
    list of dpmo.Objective
        ``[degree, ego density]`` (not cached: build them once per set of statistics).

    Notes
    -----
    O(n). Each candidate's local sensitivities depend on its own degree only, so the objectives of a
    subset of the nodes are the subset of the objectives.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    >>> deg, ed = graphs.statistics_objectives(g.degree, g.ego_density())
    >>> ref = graphs.objectives(g)
    >>> bool((deg.values == ref[0].values).all() and (ed.sensitivity(3) == ref[1].sensitivity(3)).all())
    True
    """
    _, formula = check_convention(0.0, formula)
    d = np.asarray(degree)
    if d.ndim != 1 or not (np.issubdtype(d.dtype, np.integer) or d.size == 0) or (d.size and d.min() < 0):
        raise ValueError("degree must be a 1-D array of non-negative integers")
    if d.dtype == np.uint64 and d.size and d.max() > np.iinfo(np.int64).max:
        raise ValueError("degree must be non-negative integers in the int64 range")
    d = d.astype(np.int64, copy=False)
    raw = np.asarray(ego_density)
    try:
        if raw.dtype.kind in "USc":  # text (numpy would parse it) or complex
            raise TypeError
        ed = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"ego_density must be real numbers in [0, 1], got dtype {raw.dtype}") from None
    if ed.shape != d.shape:
        raise ValueError(f"ego_density must have the shape of degree {d.shape}, got {ed.shape}")
    if not np.all((ed >= 0.0) & (ed <= 1.0)):
        raise ValueError("ego_density must lie in [0, 1]")
    return _objective_pair(d, ed, formula)
