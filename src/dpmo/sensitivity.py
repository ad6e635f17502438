"""Utilities with their sensitivities: :class:`Objective` and local sensitivity functions.

Vocabulary (the paper's section "Sensitivity", after Nissim et al. 2007 and Farias et al. 2023):

* ``x`` is the private input, ``r`` a candidate, ``u(x, r)`` the utility (larger is better).
* The global sensitivity ``Delta u`` bounds ``|u(x, r) - u(y, r)|`` over all neighbouring inputs ``x, y``.
* A *local sensitivity function* ``delta(x, t, r)`` is *admissible* (the paper's Definition
  "Admissibility") when

  1. ``delta(x, 0, r) >= |u(x, r) - u(y, r)|`` for every neighbour ``y`` of ``x``, and
  2. ``delta(x, t + 1, r) >= delta(y, t, r)`` for every neighbour ``y`` of ``x`` and every ``t >= 0``.

  Taking ``y = x`` in 2 shows that an admissible function is non-decreasing in ``t``, and
  ``min(delta, Delta u)`` is admissible whenever ``delta`` is.

In ``dpmo`` the private input is fixed when an :class:`Objective` is built, so its local function is a
callable of ``t`` alone that returns ``delta(x, t, r)`` for every candidate ``r`` at once.
A local function may also accept an index array (``local(t, idx)``, returning the entries for the
candidates ``idx`` only); mark such a function with :class:`LocalSensitivity`. The dampening loop uses it
to work on the few candidates still unbracketed instead of all ``n``.

What "neighbouring" means is the application's choice, and each application states its own (records
added or removed for the trees, one edge for the graphs).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._validation import check_bounds, check_indices, check_scores, check_sensitivity, check_t

__all__ = ["Objective", "LocalSensitivity", "evaluate_local", "check_local_values", "check_non_decreasing"]

#: The global sensitivity in range units, ``Delta / (high - low)``, must lie in ``[1 / _UNIT_SPAN,
#: _UNIT_SPAN]``: the range-unit scores and their scale factors of :mod:`dpmo.chebyshev` and
#: :mod:`dpmo.greedy_hypervolume` (products and quotients of a few such units) then stay finite and nonzero.
_UNIT_SPAN = 1e100


class LocalSensitivity:
    """A local sensitivity function that can be evaluated on a subset of candidates.

    Parameters
    ----------
    func : callable
        ``func(t, idx)`` returns ``delta(x, t, r)`` for the candidates ``r`` in ``idx`` (an int array), or
        for all candidates when ``idx`` is None.
    name : str, optional
        Shown in error messages.

    vectorized_t : bool, default False
        Declare that ``func`` broadcasts over an integer array of distances: called with ``t`` of shape
        ``(B, 1)`` and ``idx`` of length ``q`` it returns shape ``(B, q)``, and with ``t`` of shape ``(q,)``
        the value of each candidate at its own distance. Closed-form functions (degree, ego density, rates
        and their weighted sums) do; the dampening loop then brackets a candidate that needs thousands of
        steps in a few block evaluations instead of thousands of calls.
    cumulative : callable, optional
        ``cumulative(T, idx)``: the breakpoints ``b(T, r) = sum_{j < T} delta(j, r)`` of local dampening in
        closed form, for an integer array ``T`` of shape ``(q,)`` (one distance per candidate of ``idx``;
        all candidates when ``idx`` is None), without the floor and cap of :func:`dpmo.dampen`. It must
        be the exact sum of ``func`` (the tests of every shipped one compare it with the running sum).
        Requires ``vectorized_t``. :func:`dpmo.dampen` then finds each candidate's segment by search,
        O(n log max_steps) instead of O(number of steps x n).
    bound : float, optional
        A constant ``func`` never exceeds (1 for a rate). :func:`dpmo.aggregate` combines closed-form
        sums only of functions whose bound is at most their objective's global sensitivity (so the cap
        at the global sensitivity never acts).
    stepwise : bool, default False
        Declare that evaluating a distance far ahead costs every distance in between (a function kept
        as running sums, as PrivPareto's ``delta^PS``). :func:`dpmo.dampen` then looks ahead for runs of
        constant deltas only after 16 steps, so that a failed look costs at most about twice the steps
        already done. A hint about speed only: the dampened scores are the same up to rounding.

    Notes
    -----
    Calling the object as ``f(t)`` gives the full vector, so it is a valid local function anywhere.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> base = np.array([1.0, 2.0, 4.0])
    >>> f = dpmo.LocalSensitivity(lambda t, idx: (base if idx is None else base[idx]) + t, name="toy")
    >>> f(0).tolist(), f(2, np.array([2])).tolist()  # all candidates, or a subset
    ([1.0, 2.0, 4.0], [6.0])
    """

    supports_index = True

    def __init__(
        self,
        func: Callable[[int, np.ndarray | None], np.ndarray],
        name: str | None = None,
        *,
        vectorized_t: bool = False,
        cumulative: Callable[[np.ndarray, np.ndarray | None], np.ndarray] | None = None,
        bound: float | None = None,
        stepwise: bool = False,
    ):
        if not callable(func):
            raise TypeError("func must be callable as func(t, idx)")
        if cumulative is not None:
            if not callable(cumulative):
                raise TypeError("cumulative must be callable as cumulative(T, idx) or None")
            if not vectorized_t:
                raise ValueError(
                    "cumulative needs vectorized_t=True (dampen evaluates one distance per candidate)"
                )
        if bound is not None:
            bound = check_sensitivity(bound, "bound")
        self._func = func
        self.name = name or getattr(func, "__name__", "local sensitivity")
        self.vectorized_t = bool(vectorized_t)
        self.cumulative = cumulative
        self.bound = bound
        self.stepwise = bool(stepwise)

    def __call__(self, t: int, idx: np.ndarray | None = None) -> np.ndarray:
        return self._func(t, idx)

    def __repr__(self) -> str:
        return f"LocalSensitivity({self.name})"


def evaluate_local(local: Callable, t: int, idx: np.ndarray | None = None) -> np.ndarray:
    """Evaluate a local function at distance ``t``, on the candidates ``idx`` (all when None).

    Uses the subset form of a :class:`LocalSensitivity` (or any callable with ``supports_index = True``)
    and falls back to slicing the full vector otherwise. No validation: see :meth:`Objective.sensitivity`.
    """
    if idx is not None and getattr(local, "supports_index", False):
        return local(t, idx)
    out = local(t)
    if idx is None:
        return out
    return np.asarray(out)[idx]


def check_non_decreasing(rows, t, name: str, previous=None) -> None:
    """Refuse a local function that decreases in ``t`` (an admissible one never does: take ``y = x`` in
    condition 2 of admissibility).

    ``rows`` is one evaluation (shape (q,)) or a block of consecutive distances along axis 0 (shape
    (B, q)); ``previous`` (shape (q,)), if given, holds the same candidates' values at the distance just
    before. Every entry point that evaluates a local function at consecutive distances (the dampening
    loop, its closed form, PrivPareto's ``delta^PS``, PrivAgg's weighted sum) checks here, so that the same
    functions are refused everywhere with the same message.
    """
    block = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    # compared in place, without stacking: this runs at every step of the dampening loop
    drops = block.shape[0] > 1 and bool((block[1:] < block[:-1]).any())
    if previous is not None and not drops:
        drops = bool((block[0] < np.asarray(previous, dtype=np.float64)).any())
    if drops:
        raise ValueError(
            f"local sensitivity of {name} decreases in t near t={t}; an admissible function is "
            "non-decreasing in t"
        )


_MIN = np.minimum.reduce
_MAX = np.maximum.reduce


def kept_for_check(d: np.ndarray):
    """What a caller keeps of the deltas ``d`` of one distance for the next distance's
    :func:`check_non_decreasing`: a copy of ``d`` (a local function may hand back the same array at every
    call), or its one value when every candidate has the same (a constant function, as degree's
    ``delta = 1``: no array of n values is kept). O(n)."""
    if d.size and d[0] == d[-1] and _MIN(d) == _MAX(d):
        return np.float64(d[0])
    return np.array(d)


def check_local_values(
    values, shape: tuple, t, name: str, *, previous=None, along_t: bool = False
) -> np.ndarray:
    """Return the output of a local function as float64 after checking it is real (a TypeError for complex
    values), its shape, finiteness and sign.

    ``t`` (an int or a description of a block of distances) and ``name`` go into the error message. With
    ``along_t`` (axis 0 of a 2-D output is consecutive distances) or ``previous`` (the values at the
    distance before), also that it does not decrease in ``t`` (:func:`check_non_decreasing`).
    """
    try:
        out = np.asarray(values)
        if out.dtype.kind == "c":  # float64 of complex numbers drops their imaginary parts (a warning)
            raise TypeError
        out = out.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise TypeError(f"local sensitivity of {name} must return real numbers at t={t}") from None
    if out.shape != tuple(shape):
        raise ValueError(
            f"local sensitivity of {name} returned shape {out.shape} at t={t}; expected {tuple(shape)}"
        )
    # all finite and none negative <=> min >= 0 and max < inf (NaN fails both): two reductions, no
    # temporaries (this runs at every evaluation of every local function); the messages come after
    if out.size and not (_MIN(out, axis=None) >= 0.0 and _MAX(out, axis=None) < np.inf):
        if not np.all(np.isfinite(out)):
            raise ValueError(f"local sensitivity of {name} is not finite at t={t}")
        raise ValueError(f"local sensitivity of {name} is negative at t={t}")
    if previous is not None or (along_t and out.ndim == 2):
        check_non_decreasing(out, t, name, previous)
    return out


class Objective:
    """One utility function evaluated on a fixed private input, with its sensitivities.

    Parameters
    ----------
    values : array_like, shape (n,)
        ``u(x, r)`` for every candidate ``r`` (larger is better). Finite.
    global_sensitivity : float
        ``Delta u`` (the paper's Definition "Global Sensitivity"). Positive and finite.
    local : callable, optional
        An admissible local sensitivity function ``t -> delta(x, t, .)`` of shape (n,), or a
        :class:`LocalSensitivity`. None means the constant global sensitivity (always admissible).
    name : str, optional
        Used in error messages and reports.
    bounds : (float, float), optional
        A **public** range ``(low, high)`` (finite, ``low < high``) in the objective's own units, declared
        by the user before seeing the data (never read from it): where the values are expected to lie
        (values outside it are allowed). The front-covering approaches (``"chebyshev"``,
        ``"staircase"``) compare objectives in units of their ranges, ``(u - low) / (high - low)``, so
        objectives in different units weigh alike (``docs/pareto.md``, "Units"). None: the objective is
        measured in units of its global sensitivity.

    Notes
    -----
    The object is immutable: ``values`` is a read-only copy. Every evaluation of the local function
    through :meth:`sensitivity` is checked (shape, finite, non-negative) and capped at the global
    sensitivity; the dampening loop also checks that it does not decrease in ``t``. Nothing here can check
    admissibility itself: that is what the exhaustive tests of each shipped function do
    (:mod:`dpmo.audit`).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> degree = dpmo.Objective([3.0, 1.0, 2.0], global_sensitivity=1.0, name="degree")
    >>> degree.values.shape, degree.values.flags.writeable  # a read-only copy
    ((3,), False)
    >>> # without a local function every candidate's sensitivity is the global one
    >>> bool(np.all(degree.sensitivity(5) == 1.0))
    True
    >>> dpmo.Objective([0.7, 0.9], 0.001, name="rate", bounds=(0.5, 1)).bounds
    (0.5, 1.0)
    """

    __slots__ = ("_values", "_global", "_local", "_name", "_bounds")

    def __init__(
        self,
        values,
        global_sensitivity: float,
        local: Callable | None = None,
        *,
        name: str = "objective",
        bounds=None,
    ):
        vals = check_scores(values, name=f"values of objective {_checked_name(name)!r}").copy()
        vals.setflags(write=False)
        self._fill(vals, global_sensitivity, local, name, bounds)

    def _fill(self, vals: np.ndarray, global_sensitivity, local, name: str, bounds=None) -> None:
        """Set the fields from checked, read-only values (the other arguments checked here)."""
        _checked_name(name)
        object.__setattr__(self, "_bounds", check_bounds(bounds, f"bounds of objective {name!r}"))
        if local is not None and not callable(local):
            raise TypeError(f"local of objective {name!r} must be callable as local(t) or None")
        object.__setattr__(self, "_values", vals)
        object.__setattr__(
            self,
            "_global",
            check_sensitivity(global_sensitivity, f"global_sensitivity of objective {name!r}"),
        )
        object.__setattr__(self, "_local", local)
        object.__setattr__(self, "_name", name)
        if self._bounds is not None:
            width = self._bounds[1] - self._bounds[0]
            if not width / _UNIT_SPAN <= self._global <= width * _UNIT_SPAN:
                raise ValueError(
                    f"bounds of objective {name!r}: the global sensitivity over the width high - low must "
                    f"be in [1e-100, 1e100] (a finer or coarser objective has no range units), got "
                    f"{self._global:.3g} / {width:.3g}"
                )

    def __setattr__(self, key, value):
        raise AttributeError("Objective is immutable")

    def __reduce__(self):
        return (_make_objective, (self._values, self._global, self._local, self._name, self._bounds))

    @property
    def values(self) -> np.ndarray:
        """Utility of every candidate, shape (n,), read-only."""
        return self._values

    @property
    def global_sensitivity(self) -> float:
        """The global sensitivity ``Delta u``."""
        return self._global

    @property
    def local(self) -> Callable | None:
        """The local sensitivity function, or None for the constant global one."""
        return self._local

    @property
    def name(self) -> str:
        return self._name

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The public declared range ``(low, high)``, or None."""
        return self._bounds

    @property
    def n(self) -> int:
        """Number of candidates."""
        return self._values.shape[0]

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        kind = "global only" if self._local is None else "local"
        return f"Objective(name={self._name!r}, n={self.n}, global_sensitivity={self._global:g}, {kind})"

    def sensitivity(self, t: int, idx: np.ndarray | None = None) -> np.ndarray:
        """``min(delta(x, t, r), Delta u)`` for the candidates ``idx`` (all when None).

        Parameters
        ----------
        t : int
            Distance, ``t >= 0``.
        idx : array of int, optional
            Candidates to evaluate.

        Returns
        -------
        numpy.ndarray of float64, shape (n,) or (len(idx),)

        Raises
        ------
        ValueError
            If the local function returns the wrong shape, a non-finite or a negative value.

        Notes
        -----
        O(cost of the local function) time. Capping at the global sensitivity keeps an admissible
        function admissible.
        """
        size, out = self._local_values(t, idx)
        return np.full(size, self._global) if out is None else np.minimum(out, self._global)

    def capped_view(self, t: int) -> np.ndarray:
        """:meth:`sensitivity` at ``t`` for every candidate, to read once and let go (internal).

        The same values, but the local function's own array when it is already capped (no copy of n
        values): a caller must neither write into it nor keep it (the function may reuse its array at the
        next call). O(cost of the local function).
        """
        size, out = self._local_values(t, None)
        if out is None:
            return np.full(size, self._global)
        return np.minimum(out, self._global) if _MAX(out, axis=None) > self._global else out

    def _local_values(self, t, idx) -> tuple[int, np.ndarray | None]:
        """``(number of candidates, the local function's validated output at t)`` for ``idx`` (all when
        None); the output is None without a local function."""
        t = check_t(t)
        size = self.n if idx is None else len(idx)
        if self._local is None:
            return size, None
        name = f"objective {self._name!r}"
        return size, check_local_values(evaluate_local(self._local, t, idx), (size,), t, name)

    def take(self, idx) -> Objective:
        """The same objective restricted to the candidates ``idx`` (in that order).

        The element local sensitivity of a candidate does not depend on which other candidates are
        present, so the restricted local function stays admissible.
        """
        idx = check_indices(idx, self.n, negative=True) % max(self.n, 1)
        local = self._local
        if local is None:
            new_local = None
        elif getattr(local, "supports_index", False):
            cum = getattr(local, "cumulative", None)
            new_local = LocalSensitivity(
                lambda t, sub=None, _idx=idx: local(t, _idx if sub is None else _idx[np.asarray(sub)]),
                name=getattr(local, "name", None),
                vectorized_t=getattr(local, "vectorized_t", False),
                cumulative=None
                if cum is None
                else lambda T, sub=None, _idx=idx: cum(T, _idx if sub is None else _idx[np.asarray(sub)]),
                bound=getattr(local, "bound", None),
            )
        else:
            new_local = LocalSensitivity(
                lambda t, sub=None, _idx=idx: np.asarray(local(t))[
                    _idx if sub is None else _idx[np.asarray(sub)]
                ],
                name=getattr(local, "name", None),
            )
        return Objective(self._values[idx], self._global, new_local, name=self._name, bounds=self._bounds)


def objectives_on_rows(values, specs, *, copy: bool = True) -> list[Objective]:
    """Objectives whose values are the rows of one read-only (m, n) float64 array (internal).

    ``values`` (m, n) is copied once into a C-ordered array; ``specs`` gives each row's
    ``(global_sensitivity, local, name)`` (or ``(..., bounds)``), checked as :class:`Objective` checks them.
    The objectives are
    those ``Objective(values[i], *specs[i])`` would make (read-only values, the same floats), except that
    their values share one array: a computation that needs the (m, n) matrix of all the values (the
    counting state of PrivPareto, :func:`stacked_values`) takes it without a copy (at 10^7 candidates
    160 MB for two objectives). ``copy=False``: ``values`` (a C-ordered float64 array that the caller
    made and gives up) is made read-only and used as it is. O(m n).
    """
    if copy:
        V = np.array(values, dtype=np.float64, order="C")
    else:
        V = values
        if not (isinstance(V, np.ndarray) and V.dtype == np.float64 and V.flags.c_contiguous):
            raise TypeError("values must be a C-ordered float64 array when copy is False")
    if V.ndim != 2 or len(specs) != V.shape[0]:
        raise ValueError(f"values must be (m, n) with one spec per row, got {V.shape} and {len(specs)}")
    V.setflags(write=False)
    out = []
    for i, spec in enumerate(specs):
        global_sensitivity, local, name = spec[:3]
        bounds = spec[3] if len(spec) > 3 else None
        check_scores(V[i], name=f"values of objective {_checked_name(name)!r}")
        obj = object.__new__(Objective)
        obj._fill(V[i], global_sensitivity, local, name, bounds)  # a read-only view of the shared array
        out.append(obj)
    return out


def stacked_values(objectives) -> np.ndarray:
    """The (m, n) float64 matrix of the objectives' values (read-only): the common array of
    :func:`objectives_on_rows` when the objectives are its rows in order, else a stacked copy. O(m n)
    for a copy, O(m) otherwise."""
    rows = [o.values for o in objectives]
    base = rows[0].base
    if (
        isinstance(base, np.ndarray)
        and base.ndim == 2
        and base.shape == (len(rows), rows[0].size)
        and base.dtype == np.float64
        and base.flags.c_contiguous
        and not base.flags.writeable
        and all(
            r.base is base and r.__array_interface__["data"][0] == base[i].__array_interface__["data"][0]
            for i, r in enumerate(rows)
        )
    ):
        return base
    return np.ascontiguousarray(np.vstack(rows))


def _checked_name(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    return name


def _make_objective(values, global_sensitivity, local, name, bounds=None):
    """Unpickling helper of :class:`Objective`."""
    return Objective(values, global_sensitivity, local, name=name, bounds=bounds)
