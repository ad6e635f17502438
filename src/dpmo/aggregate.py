"""PrivAgg: private selection by a weighted sum of objectives (the paper's section "PrivAgg Mechanism").

``u_agg(x, r) = sum_i w_i u_i(x, r)``. Its global sensitivity is at most ``sum_i |w_i| Delta u_i``
(Theorem "Upper Bound on the Global Sensitivity of Aggregate Utility Function") and
``sum_i |w_i| delta^{u_i}(x, t, r)`` is admissible (Theorem "Admissible Sensitivity Function of Weighted
Sum"), both by the triangle inequality; the absolute value of the weights matters, so a negative weight
(an objective to be minimised) costs as much privacy as a positive one.

Neighbouring relation: whatever the objectives' sensitivities are stated for (all the same).

No refusal that depends on the values, whatever the public weights:

* a weighted sum beyond the float range **saturates** at the largest float of its sign (computed with
  the weights divided by a public power of two, :func:`weight_scale`, where nothing overflows). Clipping
  is 1-Lipschitz, so the saturated sum keeps the global sensitivity ``sum_i |w_i| Delta u_i`` and the
  admissible local function ``sum_i |w_i| delta^{u_i}``; where nothing overflows the values are the plain
  sums, bit for bit;
* when the global sensitivity itself is beyond the float range (public: it depends on the weights and the
  objectives' global sensitivities only; weights like ``(1e308, 1e308)``), :func:`priv_agg` scores with the
  weights divided by that public power of two, which makes ``sum_i |w_i| < 1/2``. The dampened scores and
  the mechanism are unchanged by scaling scores and sensitivities together, and dividing by a power of two
  is exact in floating point. Weights that are all tiny (below ``2^-500``, like ``(5e-324, 5e-324)``), whose
  products with the values and the local sensitivities would underflow to 0, are multiplied by a power of
  two the same way (:func:`weight_scale` is then negative): the same law, no 0 / 0.
"""

from __future__ import annotations

import numpy as np

from . import _defaults
from .dampening import dampen
from .selection import Approach, Rounds, check_objectives, register_approach, select_multiobjective
from .sensitivity import LocalSensitivity, Objective, check_local_values

_MAX = float(np.finfo(np.float64).max)
#: Weights all below this (in absolute value) are scaled up by the same power of two (module notes).
_TINY_WEIGHT = 2.0**-500

__all__ = ["aggregate", "priv_agg", "aggregate_selection_scores", "weight_scale", "AggregateApproach"]


def _check_weights(weights, m: int) -> np.ndarray:
    if type(weights) is tuple and len(weights) == m and all(type(x) is float for x in weights):
        # fast path (the applications pass tuples of floats on every call)
        if all(np.isfinite(weights)) and any(x != 0 for x in weights):
            return np.array(weights, dtype=np.float64)
    try:
        w = np.asarray(weights)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds of errors here
        raise TypeError("weights must be a 1-D sequence of real numbers") from exc
    if (
        w.dtype == object
        or not (np.issubdtype(w.dtype, np.number) or w.dtype == np.bool_)
        or np.iscomplexobj(w)
    ):
        raise TypeError(f"weights must be a 1-D sequence of real numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if w.ndim != 1:
        raise ValueError(f"weights must be 1-D, got shape {w.shape}")
    if w.size != m:
        raise ValueError(f"weights must have one entry per objective ({m}), got {w.size}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite (no NaN or inf)")
    if not np.any(w != 0):
        raise ValueError("weights must not all be zero (the aggregate would be constant)")
    return w


def weight_scale(weights: np.ndarray) -> int:
    """The public exponent ``E`` with ``sum_i |w_i| 2^-E < 1/2`` that :func:`priv_agg` scores with.

    ``E = max_i e_i + ceil(log2 m) + 1`` for ``|w_i| < 2^e_i`` (:func:`numpy.frexp`), so every
    ``|w_i| 2^-E < 1 / (2m)``. Depends on the weights only. O(m).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.aggregate import weight_scale
    >>> w = np.array([1e308, 1e308])
    >>> bool(np.sum(np.abs(np.ldexp(w, -weight_scale(w)))) < 0.5)
    True
    """
    m = int(weights.size)
    return int(np.frexp(weights)[1].max()) + max(m - 1, 0).bit_length() + 1


def _global_sensitivity(w: np.ndarray, objs) -> float:
    """``sum_i |w_i| Delta u_i`` (inf when beyond the float range); public."""
    with np.errstate(over="ignore"):
        return float(sum(abs(float(wi)) * o.global_sensitivity for wi, o in zip(w, objs, strict=True) if wi))


def _weighted_sum(used, n: int, E: int) -> np.ndarray:
    """``sum_i w_i u_i``, saturated at the largest float of its sign where it overflows (module notes)."""
    values = np.zeros(n)
    with np.errstate(over="ignore", invalid="ignore"):
        for wi, o in used:
            values = values + wi * o.values
    bad = ~np.isfinite(values)
    if bad.any():  # again with the weights divided by 2^E, where nothing overflows, then saturate
        scaled = np.zeros(int(bad.sum()))
        for wi, o in used:
            scaled = scaled + np.ldexp(wi, -E) * o.values[bad]
        with np.errstate(over="ignore"):
            values[bad] = np.clip(np.ldexp(scaled, E), -_MAX, _MAX)
    return values


def _objective_delta(o: Objective, t, idx) -> np.ndarray:
    """``min(delta^{u}(t, idx), Delta u)`` for an int ``t`` or, for vectorised functions, an int array."""
    if np.ndim(t) == 0:
        return o.sensitivity(t, idx)
    size = o.n if idx is None else len(idx)
    t = np.asarray(t)
    if o.local is None:
        return np.full(np.broadcast_shapes(t.shape, (size,)), o.global_sensitivity)
    shape = np.broadcast_shapes(t.shape, (size,))
    d = check_local_values(o.local(t, idx), shape, f"{t.min()}..{t.max()}", f"objective {o.name!r}")
    return np.minimum(d, o.global_sensitivity)


def aggregate(objectives, weights, *, name: str | None = None) -> Objective:
    """The weighted sum of objectives as one :class:`dpmo.Objective`.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` objectives over the same ``n`` candidates.
    weights : sequence of float, length m
        Finite, not all zero. ``w_i > 0`` rewards objective ``i``, ``w_i < 0`` means objective ``i`` is to be
        minimised, ``w_i = 0`` ignores it. Only ``|w_i|`` enters the sensitivities.
    name : str, optional
        The objective's name (default: the weighted sum written out).

    Returns
    -------
    dpmo.Objective
        Values ``sum_i w_i u_i(x, r)``; global sensitivity ``sum_i |w_i| Delta u_i`` (the paper's Theorem
        "Upper Bound on the Global Sensitivity of Aggregate Utility Function"); local function
        ``t -> sum_i |w_i| delta^{u_i}(x, t, r)`` (Theorem "Admissible Sensitivity Function of Weighted
        Sum"), where ``delta^{u_i}`` is ``objectives[i].sensitivity`` (capped at ``Delta u_i``; the global
        sensitivity when the objective has no local function). The local function is a
        :class:`dpmo.LocalSensitivity` (evaluable on a subset of candidates); it is None when no objective
        with a non-zero weight has a local function (then it would equal the global sensitivity).

    Raises
    ------
    ValueError
        Bad weights, or a global sensitivity ``sum_i |w_i| Delta u_i`` beyond the float range or 0 (it
        underflows): refused
        from the public weights and sensitivities, before any value is read (:func:`priv_agg` scales such
        weights instead). A weighted sum beyond the float range saturates (module notes): never an error.

    Notes
    -----
    O(n m) time and memory; each evaluation of the local function costs one evaluation of every
    objective's function with a non-zero weight.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> a = dpmo.Objective([1.0, 0.0, 2.0], global_sensitivity=1.0)
    >>> b = dpmo.Objective([0.0, 1.0, 0.5], global_sensitivity=0.5)
    >>> agg = dpmo.aggregate([a, b], weights=[2.0, -4.0])
    >>> agg.values.tolist() == (2 * np.array([1.0, 0.0, 2.0]) - 4 * np.array([0.0, 1.0, 0.5])).tolist()
    True
    >>> agg.global_sensitivity == 2 * 1.0 + 4 * 0.5  # sum of |w_i| times each global sensitivity
    True
    """
    objs = check_objectives(objectives)
    w = _check_weights(weights, len(objs))
    used = [(float(wi), o) for wi, o in zip(w, objs, strict=True) if wi != 0]
    G = _global_sensitivity(w, objs)  # public: checked before any value is read
    if not np.isfinite(G) or G == 0.0:
        what, fix = ("underflows to 0", "multiply") if G == 0.0 else ("overflows the float range", "divide")
        raise ValueError(
            f"the weighted sum's global sensitivity sum |w_i| Delta u_i {what} for weights {w.tolist()}; "
            f"{fix} the weights by a common factor (priv_agg does it for you)"
        )
    if name is None:
        name = "aggregate(" + ", ".join(f"{wi:g}*{o.name}" for wi, o in used) + ")"
    values = _weighted_sum(used, objs[0].n, weight_scale(w))
    if all(o.local is None for _, o in used):
        return Objective(values, G, None, name=name)

    vectorized = all(
        o.local is None
        or (getattr(o.local, "vectorized_t", False) and getattr(o.local, "supports_index", False))
        for _, o in used
    )

    def local(t, idx=None):
        total = 0.0
        for wi, o in used:
            total = total + abs(wi) * _objective_delta(o, t, idx)
        return total

    # Closed-form breakpoints when every part has them and its cap never acts (bound <= Delta u_i): then
    # sum_{j<T} sum_i |w_i| min(delta_i(j), Delta u_i) = sum_i |w_i| b_i(T).
    def closed(o: Objective) -> bool:
        f = o.local
        if f is None:
            return True
        bound = getattr(f, "bound", None)
        return (
            getattr(f, "cumulative", None) is not None
            and getattr(f, "supports_index", False)
            and bound is not None
            and bound <= o.global_sensitivity
        )

    cumulative = bound = None
    if vectorized and all(closed(o) for _, o in used):

        def cumulative(T, idx=None):
            T = np.asarray(T)
            total = 0.0
            for wi, o in used:
                if o.local is None:
                    part = o.global_sensitivity * T.astype(np.float64)
                else:
                    size = o.n if idx is None else len(idx)
                    part = check_local_values(
                        o.local.cumulative(T, idx),
                        np.broadcast_shapes(T.shape, (size,)),
                        "T",
                        f"objective {o.name!r} (cumulative)",
                    )
                total = total + abs(wi) * part
            return total

        bound = float(
            sum(abs(wi) * (o.global_sensitivity if o.local is None else o.local.bound) for wi, o in used)
        )

    local_fn = LocalSensitivity(local, name=name, vectorized_t=vectorized, cumulative=cumulative, bound=bound)
    return Objective(values, G, local_fn, name=name)


def priv_agg(
    objectives,
    weights,
    epsilon: float,
    *,
    k: int = 1,
    sensitivity: str = "local",
    mechanism: str = "exponential",
    rng=None,
    budget=None,
    exact: bool = _defaults.EXACT,
    delta: float = 0.0,
) -> np.ndarray:
    """PrivAgg: pick ``k`` candidates with a large weighted sum of objectives, epsilon-DP.

    The paper's Definitions "PrivAgg Mechanism - Global Sensitivity" and "PrivAgg Mechanism - Local
    Sensitivity".

    Parameters
    ----------
    objectives, weights
        As in :func:`aggregate`.
    epsilon : float
        Total privacy budget, > 0.
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``: k rounds without replacement with ``epsilon / k``
        each (as :func:`dpmo.select`).
    sensitivity : {"local", "global"}
        ``"global"``: ``dpmo.select(u_agg, epsilon, sum |w_i| Delta u_i)``. ``"local"``: local dampening of
        ``u_agg`` with ``sum |w_i| delta^{u_i}`` (capped at ``sum |w_i| Delta u_i``), then
        ``dpmo.select(D, epsilon, 1)``.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left); checked up front, then ``k`` records of
        ``epsilon / k`` made right before the sampling. Without it the call spends ``epsilon`` of its own.
    exact : bool, default True
        Sample exactly (the default; ``False`` opts in to the faster floating-point sampler, measured
        in ``docs/core.md``): :func:`dpmo.select` with ``exact=True``, given the exact share of each
        round that is recorded; rng None then reads the OS's secure source.
    delta : float, default 0
        ``0``: pure epsilon-DP. ``> 0``: the k rounds together are ``(epsilon, delta)``-DP, each at the
        accountant's epsilon (:func:`dpmo.per_pick_epsilon`; ``docs/privacy-accounting.md``,
        "Approximate DP"); ``budget`` is charged ``(epsilon, delta)`` before anything is computed.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Indices of the chosen candidates, in selection order.

    Notes
    -----
    The dampened score of a candidate depends on that candidate only, so the scores are dampened once
    and the k rounds remove the chosen candidates. Cost: O(n m) plus :func:`dpmo.dampen` (local) and
    :func:`dpmo.select`. With ``n = 1`` the only candidate is returned without looking at the data.
    Nothing overflows for any finite weights and values (module notes): a weighted sum beyond the float
    range saturates, and weights whose global sensitivity is beyond it are divided by a public power of two
    (:func:`weight_scale`) first; the call never refuses because of the values.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> rng = np.random.default_rng(0)
    >>> degree = dpmo.Objective(rng.integers(0, 50, 20).astype(float), global_sensitivity=1.0)
    >>> density = dpmo.Objective(rng.random(20), global_sensitivity=1.0)
    >>> picks = dpmo.priv_agg([degree, density], [1.0, 100.0], epsilon=1.0, k=3, sensitivity="global", rng=1)
    >>> picks.shape, len(set(picks.tolist())) == 3
    ((3,), True)
    >>> budget = dpmo.Budget(1.0)
    >>> _ = dpmo.priv_agg([degree, density], [1.0, 100.0], epsilon=0.4, budget=budget, rng=2)
    >>> round(budget.spent, 12), round(budget.remaining, 12)
    (0.4, 0.6)
    """
    return select_multiobjective(
        objectives,
        epsilon,
        approach="agg",
        sensitivity=sensitivity,
        weights=weights,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        what="priv_agg",
        exact=exact,
        delta=delta,
    )


def aggregate_selection_scores(agg: Objective, sensitivity: str = "local") -> tuple[np.ndarray, float]:
    """Scores and sensitivity that PrivAgg hands to :func:`dpmo.select` for the aggregate objective ``agg``.

    ``"global"``: ``(u_agg, Delta u_agg)``; ``"local"``: ``(D, 1)``. Exposed for audits.
    """
    if not isinstance(agg, Objective):
        raise TypeError(f"agg must be a dpmo.Objective (see dpmo.aggregate), got {type(agg).__name__}")
    if sensitivity == "global":
        return np.asarray(agg.values, dtype=np.float64), agg.global_sensitivity
    if sensitivity != "local":
        raise ValueError(f"sensitivity must be one of ['global', 'local'], got {sensitivity!r}")
    D = dampen(agg.values, agg.local, global_sensitivity=agg.global_sensitivity, name=agg.name)
    return D, 1.0


class _AggregateRounds(Rounds):
    """PrivAgg's rounds: one score vector (a candidate's aggregate does not depend on the others)."""

    static = True

    def __init__(self, objectives, weights, sensitivity: str, cache):
        self.objectives, self.weights, self.sensitivity, self.cache = objectives, weights, sensitivity, cache
        self.score_name = "dampened aggregate" if sensitivity == "local" else "aggregate"

    def _compute(self) -> tuple[np.ndarray, float]:
        w = self.weights
        gs = _global_sensitivity(w, self.objectives)
        # public: scale (module notes); also where sum |w_i| Delta u_i would underflow (tiny sensitivities)
        if not np.isfinite(gs) or gs < _TINY_WEIGHT or float(np.abs(w).max()) < _TINY_WEIGHT:
            terms = [f"{x:g}*{o.name}" for x, o in zip(w, self.objectives, strict=True) if x != 0]
            name = "aggregate(" + ", ".join(terms) + ")"  # named by the weights as given
            agg = aggregate(self.objectives, np.ldexp(w, -weight_scale(w)), name=name)
        else:
            agg = aggregate(self.objectives, w)
        scores, sens = aggregate_selection_scores(agg, self.sensitivity)
        scores = np.array(scores, dtype=np.float64)
        scores.setflags(write=False)
        return scores, sens

    def scores(self, chosen, remaining):
        if self.cache is None:
            scores, sens = self._compute()
        else:  # keyed by everything the scores depend on besides the objectives the cache is bound to
            key = ("agg", self.sensitivity, tuple(float(w) for w in self.weights))
            scores, sens = self.cache.slot(key, self._compute)
        return (scores, sens) if len(chosen) == 0 else (scores[remaining], sens)


class AggregateApproach(Approach):
    """``approach="agg"`` of :func:`dpmo.selection.select_multiobjective`: PrivAgg's weighted sum, with
    sensitivity ``sum |w_i| Delta u_i`` or dampened with ``sum |w_i| delta^{u_i}``."""

    name = "agg"
    uses_weights = True

    def check_weights(self, weights, m: int) -> np.ndarray:
        if weights is None:
            raise ValueError("weights are required for approach='agg' (one per objective)")
        return _check_weights(weights, m)

    def rounds(self, objectives, weights, sensitivity, cache) -> Rounds:
        return _AggregateRounds(list(objectives), weights, sensitivity, cache)

    def utility(self, objectives, weights, remaining):
        # the weighted sum as NODP-MOET computes it (one matrix-vector product, then the remaining rows)
        return (np.column_stack([o.values for o in objectives]) @ weights)[remaining]


register_approach(AggregateApproach())
