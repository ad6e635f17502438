"""Local dampening (Farias et al., PVLDB 2020 and VLDB Journal 2023; the paper's "Dampening function").

Given a utility ``u(x, r)`` and an admissible local sensitivity function ``delta(x, t, r)``, the breakpoints

    b(x, 0, r) = 0,  b(x, i, r) = sum_{j < i} delta(x, j, r)  (i > 0),  b(x, -i, r) = -b(x, i, r)

and the dampened score ``D(x, r)`` is the piecewise-linear interpolation of the points ``(b(x, i, r), i)``:
``D = i + (u - b_i) / (b_{i+1} - b_i)`` for the ``i`` with ``u`` in ``[b_i, b_{i+1})``. ``D`` is odd in ``u``,
continuous, and for neighbouring inputs ``|D(x, r) - D(y, r)| <= 1`` (Farias et al., Theorem "Dampening
function sensitivity"), so any selection mechanism with sensitivity 1 on ``D`` is epsilon-DP.

Rules that make ``D`` defined and computable for every input (all checked by the tests):

* **Zero deltas.** A width-0 segment leaves ``D`` undefined (and a naive interval search loops forever).
  Every delta is raised to a public floor ``c > 0`` (``min_sensitivity``): ``max(delta, c)`` is admissible
  whenever ``delta`` is (both admissibility conditions are preserved by a monotone map applied to both
  sides), so the guarantee ``|D(x, r) - D(y, r)| <= 1`` still holds. ``c`` is a constant, never derived
  from the data.
* **Global cap.** ``min(delta, Delta u)`` is admissible; once a candidate's delta reaches ``Delta u`` it
  stays there (admissible functions are non-decreasing in ``t``), so the rest is the closed form
  ``D = t + (u - b_t) / Delta u``.
* **Iteration cap.** After ``max_steps`` steps the global sensitivity is used from that step on. The
  function ``delta'(t) = delta(t)`` for ``t < T``, ``Delta u`` for ``t >= T`` is admissible (condition 2
  holds trivially where the left side is ``Delta u``), so this is exact local dampening with ``delta'``.
  Without a global sensitivity the floor rises from that step on: ``delta'(t) = max(delta(t), c_t)`` with
  the public, non-decreasing ``c_t = min(c 2^(t - T + 1), 2^1020)``; a public non-decreasing floor keeps
  both admissibility conditions, and the breakpoints then grow geometrically, so every candidate is
  bracketed within about a thousand more steps. ``dampen`` never raises because of the data.
* **Constant runs in closed form.** Zero and tiny deltas sit at the public floor, and an admissible delta
  is non-decreasing in ``t``: when ``delta(t')`` equals the last delta seen at a later distance ``t'``, every
  segment in between has that same width, so the breakpoints are known without stepping (a candidate whose
  ``|u|`` falls in that range gets ``D = t + (|u| - b_t) / width``; when every remaining candidate is in such
  a run, the loop jumps to ``t' + 1``). The first probe comes after 3 evaluations of the function (a block
  counts once), and first evaluates (without stepping) every distance below 16. A function marked
  ``stepwise`` (:class:`dpmo.LocalSensitivity`: a far distance costs every distance in between, as
  PrivPareto's running sums ``delta^PS``) is probed only from ``t = 16`` and after 6 evaluations. Probes
  look at most ``max(16, 2t)`` further. The result is the same dampened score up to rounding.
* **Decreasing functions are refused where they are evaluated**: every distance below 16, and the probes.
  A skipped run is exact for every admissible function, blind to a dip of a non-admissible one inside it;
  only a non-admissible function is ever refused (``docs/core.md``, dampening rule 5).
* **No overflow**: a score beyond the float range saturates at the largest float of its sign (1-Lipschitz).
* Each step works only on the candidates not yet bracketed; local functions marked
  ``vectorized_t`` (see :class:`dpmo.LocalSensitivity`) are evaluated for blocks of steps at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _defaults
from ._validation import (
    check_choice,
    check_epsilon,
    check_exact,
    check_int,
    check_k,
    check_random_state,
    check_scores,
    check_sensitivity,
)
from .accounting import check_delta
from .breakpoints import bracket, checked_bracket, closed_form_scores, rising_floor
from .calls import check_budget_first, releases_on_error, resolve_call
from .mechanisms import MECHANISMS, draw, select
from .sensitivity import Objective, check_local_values, check_non_decreasing, evaluate_local

__all__ = ["dampen", "dampen_objective", "local_dampening", "DEFAULT_FLOOR"]

#: Default floor of the deltas, relative to the global sensitivity (absolute when none is given).
DEFAULT_FLOOR = 1e-9


def default_floor(G: float | None) -> float:
    """``DEFAULT_FLOOR * G`` (``DEFAULT_FLOOR`` without ``G``); ``G`` itself where that product is not a
    normal float (``G`` below about 2e-299: a floor of 0 is no floor, and a subnormal one loses its
    digits). Public: ``G`` only."""
    if G is None:
        return DEFAULT_FLOOR
    f = DEFAULT_FLOOR * G
    return f if f >= np.finfo(np.float64).tiny else G


_MAX_BLOCK = 4096
_MAX_BLOCK_CELLS = 2**16
_FIRST_BLOCK_CELLS = 2**9
#: The shortest probe, and the distance below which every delta is evaluated before a probe (module notes).
_FIRST_PROBE = 16
#: Evaluations of the local function (steps or blocks of steps) before the first probe, for a plain and
#: for a stepwise function (module notes; measured with benchmarks/test_core.py and test_pareto.py).
_PROBE_AFTER_CALLS = 3
_STEPWISE_PROBE_AFTER_CALLS = 6


def dampen(
    values,
    local: Callable | None,
    *,
    global_sensitivity: float | None = None,
    min_sensitivity: float | None = None,
    max_steps: int = 100_000,
    name: str = "utility",
) -> np.ndarray:
    """Dampened scores ``D(x, r)`` of local dampening, for all candidates at once.

    Parameters
    ----------
    values : array_like, shape (n,)
        Utility ``u(x, r)`` of every candidate, finite.
    local : callable or None
        Admissible local sensitivity function ``t -> delta(x, t, .)`` (shape (n,)), or a
        :class:`dpmo.LocalSensitivity`. None means the constant global sensitivity, which gives
        ``D = u / Delta u``.
    global_sensitivity : float, optional
        ``Delta u``. Deltas are capped at it, and it closes the computation (see the module notes).
        Required when ``local`` is None; without it, a candidate still unbracketed after ``max_steps``
        steps continues with a public rising floor (admissible; never an error).
    min_sensitivity : float, optional
        Public floor ``c > 0`` for the deltas (zero deltas are raised to it). Default
        ``1e-9 * global_sensitivity`` (the global sensitivity itself where that is below the normal
        floats), or ``1e-9`` when no global sensitivity is given.
    max_steps : int, default 100000
        Number of t-steps after which the global sensitivity is used.
    name : str
        Named in error messages.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Raises
    ------
    ValueError
        Bad values, or a local function that returns the wrong shape, a negative or non-finite value, or
        decreases in ``t`` (an admissible function never does). Never because of the size of the values
        or of the deltas: every candidate is bracketed (module notes).

    Notes
    -----
    Time O(n + sum over steps of the number of candidates still unbracketed), plus the cost of the local
    function; memory O(n). The number of steps is ``max_r`` of the level reached by candidate ``r``
    (``|D(x, r)|`` rounded up), at most ``max_steps``.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u = np.array([0.0, 3.0, 10.0])
    >>> # with the global sensitivity only, D = u / Delta u
    >>> dpmo.dampen(u, None, global_sensitivity=2.0).tolist()
    [0.0, 1.5, 5.0]
    >>> # a smaller local sensitivity stretches the scores: D grows by more than one per unit of Delta u
    >>> d = dpmo.dampen(u, lambda t: np.full(3, 0.5), global_sensitivity=2.0)
    >>> bool(np.all(np.diff(d) > 0)) and bool(d[2] >= 5.0)
    True
    """
    u = check_scores(values, "values")
    G = None if global_sensitivity is None else check_sensitivity(global_sensitivity, "global_sensitivity")
    if min_sensitivity is None:
        floor = default_floor(G)
    else:
        floor = check_sensitivity(min_sensitivity, "min_sensitivity")
        if G is not None and floor > G:
            raise ValueError(f"min_sensitivity ({floor}) must not exceed global_sensitivity ({G})")
    max_steps = check_int(max_steps, "max_steps")
    if local is None and G is None:
        raise ValueError("global_sensitivity is required when local is None")
    if local is not None and not callable(local):
        raise TypeError("local must be callable as local(t), a dpmo.LocalSensitivity, or None")
    with np.errstate(over="ignore"):  # saturates instead (module notes): no warning depends on the data
        D = u / G if local is None else _dampened(u, local, G, floor, max_steps, name, np.empty(u.size))
    # D is a fresh array: clipped in place (at 10^7 candidates a new array costs its page faults)
    return saturate(D)


def dampen_over(values: np.ndarray, local, *, global_sensitivity: float, name: str = "utility") -> np.ndarray:
    """:func:`dampen` with a local function, the default floor and ``max_steps``, written over ``values``
    (internal: a float64 array of finite utilities that the caller made and gives up).

    The same floats as :func:`dampen`; each candidate's utility is read before its dampened score takes
    its place, so no second array of n values is made (PrivPareto's rounds, :mod:`dpmo.pareto.rounds`).
    """
    if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1):
        raise TypeError("values must be a 1-D float64 array the caller owns")
    if not values.flags.writeable or not values.size:
        raise ValueError("values must be a non-empty writeable array")
    if local is None or not callable(local):
        raise TypeError("local must be callable as local(t) or a dpmo.LocalSensitivity")
    G = check_sensitivity(global_sensitivity, "global_sensitivity")
    with np.errstate(over="ignore"):
        D = _dampened(values, local, G, default_floor(G), 100_000, name, values)
    return saturate(D)


def saturate(x: np.ndarray) -> np.ndarray:
    """``np.clip(x, -max, max, out=x)`` (max the largest float64; ``x`` a float64 array its caller owns) in
    two ufunc calls, without the Python layers of ``np.clip`` (the same floats: each is ``x`` or a bound,
    NaN kept). O(n) in place."""
    return np.minimum(np.maximum(x, -_MAX_FLOAT, out=x), _MAX_FLOAT, out=x)


def _dampened(u: np.ndarray, local, G, floor: float, max_steps: int, name: str, D: np.ndarray) -> np.ndarray:
    """The dampened scores of :func:`dpmo.dampen` (arguments checked), possibly +-inf where beyond the
    float range, written into ``D`` (n values; it may be ``u`` itself: every candidate's ``u`` is read
    before its score is written, and each score is written once, with its sign)."""
    n = u.size
    vectorized = bool(getattr(local, "vectorized_t", False)) and getattr(local, "supports_index", False)
    if vectorized and getattr(local, "cumulative", None) is not None and n:
        D[:] = np.sign(u) * closed_form_scores(np.abs(u), local, G, floor, max_steps, name)
        return D
    # Until the first step is done every candidate is active with breakpoint 0: ``active`` and ``b`` are
    # None then (:func:`dpmo.breakpoints.bracket`), and ``|u|`` is taken where it is read, so that no array
    # of n values is made for them (at 10^7 candidates each costs the kernel's zeroing of its pages). A
    # score is written once, times ``sign(u)`` (the same product as ``sign(u) * D`` after the loop).
    active = None
    b = None
    prev = None
    t = 0
    # first block: about 512 cells (cheap even when one step would do), then doubling;
    # depends on n only, never on the values
    block = max(1, _FIRST_BLOCK_CELLS // n)
    # a stepwise function pays for the distances up to a probe: probe it only from t = 16 on
    stepwise = bool(getattr(local, "stepwise", False))
    probe_at = _FIRST_PROBE if stepwise else 1
    min_calls = _STEPWISE_PROBE_AFTER_CALLS if stepwise else _PROBE_AFTER_CALLS
    calls = 0  # evaluations of the local function by the loop (a block counts once)

    def delta_at(T: int, idx: np.ndarray | None) -> np.ndarray:
        """Deltas of the candidates ``idx`` (None: all) at the single distance ``T`` (validated)."""
        if idx is None:
            idx = np.arange(n)
        if vectorized:
            return check_local_values(local(np.array([[T]]), idx), (1, idx.size), T, name)[0]
        sub = None if idx.size == n else idx
        return check_local_values(evaluate_local(local, T, sub), (idx.size,), T, name)

    while active is None or active.size:
        if t >= max_steps:
            if active is None:
                active, b = np.arange(n), np.zeros(n)
            ua = u[active]
            if G is None:
                D[active] = (t + rising_floor(np.abs(ua) - b, t, active, delta_at, floor)) * np.sign(ua)
            else:
                D[active] = (t + (np.abs(ua) - b) / G) * np.sign(ua)
            break
        q = n if active is None else active.size
        idx = None if q == n else active
        if vectorized:
            B = max(1, min(block, max_steps - t, _MAX_BLOCK, _MAX_BLOCK_CELLS // q))
            d = local(np.arange(t, t + B)[:, None], np.arange(n) if active is None else active)
        else:
            B = 1
            d = evaluate_local(local, t, idx)
        try:
            d = np.asarray(d, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"local sensitivity of {name} must return real numbers at t={t}") from None
        if d.shape != ((B, q) if vectorized else (q,)):
            check_local_values(d, (B, q) if vectorized else (q,), t, name)  # raises: the wrong shape
        d = d if vectorized else d[None, :]
        # checked (finite, >= 0; capped at Delta u, non-decreasing from prev) and bracketed in one compiled
        # pass, with the floats of the checks and the numpy cap they replace (breakpoints.checked_bracket)
        stepped = checked_bracket(d, b, u, active, t, G, floor, D, prev)
        if stepped is None:  # refused: the checks raise their errors
            d = check_local_values(d, d.shape, t, name)
            d = d if G is None else np.minimum(d, G)
            check_non_decreasing(d, t, name, prev)
            stepped = bracket(d, b, u, active, t, G, floor, D)
        active, b, prev = stepped
        t += B
        block *= 2
        calls += 1
        if active.size and t >= probe_at and calls >= min_calls and t < max_steps:
            last_seen = prev
            if t < _FIRST_PROBE:  # every distance below 16 is evaluated first: a decrease there is refused
                last_seen = _check_up_to(
                    local, vectorized, delta_at, active, t, min(_FIRST_PROBE, max_steps), G, prev, name
                )
            # closed form over a run of constant deltas (module notes)
            w = np.maximum(prev, floor)
            with np.errstate(over="ignore"):  # inf: more segments than any probe looks at
                s_need = (np.abs(u[active]) - b) / w  # segments of width w still needed
            span = min(max(_FIRST_PROBE, 2 * t), max_steps - t)
            t_p = t + span - 1
            d_p = delta_at(t_p, active)
            if G is not None:
                d_p = np.minimum(d_p, G)
            if np.any(d_p < last_seen):
                raise ValueError(
                    f"local sensitivity of {name} decreases in t between t={t - 1} and t={t_p}; an "
                    "admissible function is non-decreasing in t"
                )
            same = np.maximum(d_p, floor) == w
            if G is not None:
                same &= d_p < G
            done = same & (s_need < span)
            hit = active[done]
            D[hit] = (t + s_need[done]) * np.sign(u[hit])
            keep = ~done
            if np.all(same):  # every remaining candidate: segments of its width w up to t_p
                b = b[keep] + span * w[keep]
                prev = d_p[keep]  # delta(t_p), the last distance now behind the loop
                t = t_p + 1
                probe_at = t
            else:
                b = b[keep]
                prev = prev[keep]
                probe_at = 2 * t
            active = active[keep]
    return D


_MAX_FLOAT = float(np.finfo(np.float64).max)


def _check_up_to(local, vectorized: bool, delta_at, active, t: int, end: int, G, prev, name: str):
    """The deltas of ``active`` at every distance ``t .. end - 1`` (capped at ``G``), refused if they
    decrease (from ``prev`` at ``t - 1`` on); returns those at ``end - 1``. Blocks of at most 2^20 cells."""
    last, T, q = prev, t, active.size
    while T < end:
        B = max(1, min(end - T, 2**20 // q)) if vectorized else 1
        if vectorized:
            d = check_local_values(local(np.arange(T, T + B)[:, None], active), (B, q), T, name)
        else:
            d = delta_at(T, active)[None, :]
        d = d if G is None else np.minimum(d, G)
        check_non_decreasing(d, T, name, last)
        last, T = d[-1], T + B
    return last


def dampen_objective(objective: Objective, **kwargs) -> np.ndarray:
    """:func:`dampen` with an :class:`Objective`'s values, local function and global sensitivity."""
    if not isinstance(objective, Objective):
        raise TypeError(f"objective must be a dpmo.Objective, got {type(objective).__name__}")
    return dampen(
        objective.values,
        objective.local,
        global_sensitivity=objective.global_sensitivity,
        name=objective.name,
        **kwargs,
    )


@releases_on_error
def local_dampening(
    values,
    epsilon: float,
    local: Callable | None,
    *,
    mechanism: str = "exponential",
    k: int = 1,
    rng=None,
    global_sensitivity: float | None = None,
    min_sensitivity: float | None = None,
    max_steps: int = 100_000,
    budget=None,
    exact: bool = _defaults.EXACT,
    delta: float = 0.0,
) -> np.ndarray:
    """Local dampening mechanism: :func:`dpmo.select` on the dampened scores with sensitivity 1.

    The paper's Definition "Local dampening mechanism" uses the exponential mechanism; since ``D`` has
    global sensitivity 1 under an admissible ``delta``, any mechanism of :func:`dpmo.select` may be used
    (permute-and-flip is never worse in expected utility). ``k > 1`` picks k distinct candidates in k
    rounds with ``epsilon / k`` each (``D(x, r)`` depends only on candidate ``r``, so removing the chosen
    ones changes nothing for the others).

    Parameters
    ----------
    values, local, global_sensitivity, min_sensitivity, max_steps
        As in :func:`dampen`.
    epsilon, mechanism, k, rng
        As in :func:`dpmo.select`.
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (checked before the scores are dampened): ``k`` records of
        ``epsilon / k``, mechanism ``mechanism``, sensitivity 1. Without it the call spends ``epsilon`` of
        its own.
    exact : bool, default True
        Sample exactly (the default; ``False`` opts in to the faster floating-point sampler, measured
        in ``docs/core.md``): :func:`dpmo.select` with ``exact=True``; rng None then reads the OS's secure
        source).
    delta : float, default 0
        ``> 0``: the k rounds are together ``(epsilon, delta)``-DP, each at :func:`dpmo.per_pick_epsilon`
        (the exponential mechanism on the dampened scores, sensitivity 1, is bounded-range), planned and
        charged before the scores are dampened (``docs/privacy-accounting.md``, "Approximate DP").

    Returns
    -------
    numpy.ndarray of intp, shape (k,)

    Notes
    -----
    Cost of :func:`dampen` plus that of :func:`dpmo.select`.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u = np.arange(10.0)
    >>> local = lambda t: np.full(10, 0.5)  # an admissible (constant) local sensitivity below Delta u = 1
    >>> picks = dpmo.local_dampening(u, epsilon=1.0, local=local, k=2, rng=0, global_sensitivity=1.0)
    >>> picks.shape, len(set(picks.tolist())) == 2
    ((2,), True)
    """
    check_exact(exact, mechanism if isinstance(mechanism, str) and mechanism in MECHANISMS else None)
    # every argument checked before the local function is called (a refusal after the dampening loop
    # would have run the caller's function on private data for nothing); rng checked, not consumed
    check_choice(mechanism, MECHANISMS, "mechanism")
    if rng is not None and not isinstance(rng, np.random.Generator):
        check_random_state(rng)  # raises for what SPEC 7 does not allow
    private = budget is not None or check_delta(delta) > 0
    if private:
        check_budget_first(epsilon, budget, delta)  # before the values are read (issue 37, point 11)
    # the public arguments before the values' finiteness: which error a call gets says nothing of them
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    if global_sensitivity is not None:
        check_sensitivity(global_sensitivity, "global_sensitivity")
    if min_sensitivity is not None:
        check_sensitivity(min_sensitivity, "min_sensitivity")
    check_int(max_steps, "max_steps")
    if local is not None and not callable(local):
        raise TypeError("local must be callable as local(t), a dpmo.LocalSensitivity, or None")
    n = int(np.size(values))  # the number of candidates is public (none: check_scores says so)
    if n:
        check_k(k, n)
    check_scores(values, "values")
    if private:
        budget, total, _ = resolve_call(epsilon, budget, delta, k, mechanism, "local_dampening")
    D = dampen(
        values,
        local,
        global_sensitivity=global_sensitivity,
        min_sensitivity=min_sensitivity,
        max_steps=max_steps,
    )
    if budget is None:
        return select(D, epsilon, 1.0, mechanism=mechanism, k=k, rng=rng, exact=exact)
    # spent here, right before the sampling, with the dampened scores' sensitivity 1, and drawn at what
    # was recorded (select(D, total) would check total again as a float: a tiny share failed after it)
    eps_round = budget.spend_rounds(
        total, k, "local_dampening", mechanism=mechanism, sensitivity=1.0, candidates=n
    )
    return draw(
        D, total / k, eps_round, 1.0, k, rng, exact=check_exact(exact, mechanism), mechanism=mechanism
    )
