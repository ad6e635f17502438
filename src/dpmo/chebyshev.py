"""PrivChebyshev: k private picks spread along the Pareto front, for any number of objectives.

Not in the paper. PrivPareto ranks candidates by how many others dominate them; on real data that count
is extremely sensitive and the picks are nearly uniform (``docs/pareto.md``). PrivChebyshev instead
scalarises the objectives along one public *direction* per round, in units where every objective has
sensitivity 1:

1. every objective ``i`` is dampened (:func:`dpmo.dampen`) after subtracting a public *aspiration*
   ``a_ji``: ``D_ij(r) = dampen(u_i(r) - a_ji)`` (``"local"``), or ``(u_i(r) - a_ji) / Delta_i``
   (``"global"``). Each ``D_ij`` has global sensitivity 1 (local dampening, Farias et al. 2020; the
   global case is immediate);
2. round ``j`` scores ``s_j(r) = min_{i : w_ji > 0} (w_j,min / w_ji) D_ij(r)`` (a weighted Chebyshev /
   achievement scalarisation, Wierzbicki 1980, along the public direction ``w_j``), which has global
   sensitivity at most 1: ``|min_i f_i - min_i g_i| <= max_i |f_i - g_i| <= max_i w_j,min / w_ji = 1``;
3. ``dpmo.select(s_j, epsilon_j, 1)`` among the candidates not chosen yet, with public shares
   ``epsilon_j`` summing to epsilon (basic sequential composition).

The directions spread the k picks over the front (each round's best candidate is where the ray of its
direction leaves the dominated region); the aspirations make the candidates far below them score
negatively, i.e. they move the scalarisation's zero to the region of interest. Everything the rounds use
besides the data (directions, aspirations, shares, which candidates were chosen before) is public.

No overflow, whatever the public aspirations and sensitivities: ``u_i - a_ji`` and ``(u_i - a_ji) / Delta_i``
saturate at the largest float of their sign (as does :func:`dpmo.dampen`); clipping is 1-Lipschitz, so each
``D_ij`` keeps sensitivity 1 and an admissible local function stays admissible: never a refusal or warning
from the values (a warning when only some objectives declare a range: :mod:`dpmo.ranges`).
"""

from __future__ import annotations

import itertools

import numpy as np

from . import _defaults
from ._validation import check_choice, check_int, check_real, check_shares
from .chebyshev_gate import gate_on, gated_scores, round_gate_parameters
from .dampening import dampen, dampen_over, saturate
from .pareto import SENSITIVITY_MODES, check_objectives
from .ranges import warn_mixed_ranges
from .selection import Approach, Rounds, register_approach, select_multiobjective

_MAX = float(np.finfo(np.float64).max)

__all__ = [
    "priv_chebyshev", "chebyshev_scores", "chebyshev_selection_scores", "check_aspirations",
    "check_directions", "dampened_excess", "default_directions", "objective_scale", "range_units",
    "ChebyshevApproach", "AUGMENT",
]  # fmt: skip

#: Augmentation of the Chebyshev scalarisation: ``rho = AUGMENT / m'`` (``m'`` objectives in the round), so
#: that the augmentation term moves a score by at most ``AUGMENT`` of the declared range (``docs/pareto.md``,
#: "Pareto-consistent picks"). A design constant, not fitted to any data set.
AUGMENT = 0.01


def _van_der_corput(j: int) -> float:
    """The j-th point (j >= 1) of the base-2 van der Corput sequence: 1/2, 1/4, 3/4, 1/8, 5/8, ..."""
    x, f = 0.0, 0.5
    while j:
        x += f * (j & 1)
        j >>= 1
        f /= 2
    return x


def default_directions(k: int, m: int) -> np.ndarray:
    """``k`` public directions spread over the *interior* of the simplex of ``m`` objectives (shape (k, m)).

    The first ``k`` of one sequence that does not depend on ``k`` (so round ``j`` has the same direction
    whatever the number of picks). ``m = 1``: ones. ``m = 2``: ``(1 - t_j, t_j)`` with ``t_j`` the van der
    Corput sequence ``1/2, 1/4, 3/4, 1/8, 5/8, 3/8, 7/8, ...``: evenly spread, never an objective alone (a
    direction with a zero entry ignores that objective and returns one end of the front, e.g. a tree that
    predicts one class only). ``m >= 3``: the interior points of the simplex lattice with ``h = m + 3``
    (Das and Dennis 1998; compositions of ``h`` into ``m`` positive parts), farthest-first from the one
    nearest the centroid, repeated cyclically beyond their number. O(k L m) for ``L`` lattice points.
    """
    k, m = check_int(k, "k"), check_int(m, "m")
    if m == 1:
        return np.ones((k, 1))
    if m == 2:
        t = np.array([_van_der_corput(j + 1) for j in range(k)])
        return np.stack([1.0 - t, t], axis=1)
    h = m + 3
    lattice = []
    for cuts in itertools.combinations(range(1, h), m - 1):  # positive parts summing to h
        lattice.append(np.diff(np.concatenate(([0], cuts, [h]))) / h)
    L = np.asarray(lattice)
    chosen = [int(np.argmin(np.linalg.norm(L - 1.0 / m, axis=1)))]
    while len(chosen) < min(k, L.shape[0]):
        dist = np.min(np.linalg.norm(L[:, None, :] - L[None, chosen, :], axis=2), axis=1)
        dist[chosen] = -1.0
        chosen.append(int(np.argmax(dist)))
    return L[[chosen[j % len(chosen)] for j in range(k)]]


def _matrix(x, name: str, k: int, m: int, *, default: float | None) -> np.ndarray:
    if x is None:
        if default is None:
            raise ValueError(f"{name} is required")
        return np.full((k, m), float(default))
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers of shape ({k}, {m}) or ({m},)") from exc
    if arr.ndim == 1 and arr.shape == (m,):
        arr = np.broadcast_to(arr, (k, m)).copy()
    if arr.shape != (k, m):
        raise ValueError(f"{name} must have shape ({k}, {m}) (one row per round) or ({m},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def check_directions(directions, k: int, m: int) -> np.ndarray:
    """``directions`` of ``k`` rounds, ``m`` objectives, as (k, m) (an (m,) row for every round; None:
    :func:`default_directions`); errors name ``directions`` (shape, sign, finiteness, a positive entry)."""
    if directions is None:
        return default_directions(k, m)
    W = _matrix(directions, "directions", k, m, default=None)
    if np.any(W < 0):
        raise ValueError("directions must be non-negative")
    if np.any(W.max(axis=1) <= 0):
        raise ValueError("every direction needs at least one positive entry")
    return W


def check_aspirations(aspirations, k: int, m: int) -> np.ndarray:
    """``aspirations`` of ``k`` rounds as (k, m) (an (m,) row for every round; None: 0); errors name them."""
    return _matrix(aspirations, "aspirations", k, m, default=0.0)


def dampened_excess(
    objective, aspiration: float, sensitivity: str = "local", cache=None, key=None
) -> np.ndarray:
    """``D(r) = dampen(u(r) - a)`` (``"local"``) or ``(u(r) - a) / Delta`` (``"global"``) for every
    candidate: the excess of one objective over a public aspiration ``a``, in units of sensitivity 1.

    For neighbouring inputs every ``D(r)`` moves by at most 1 (local dampening with the objective's
    admissible function, which subtracting a public constant keeps admissible; or the global
    sensitivity). Saturating arithmetic: nothing overflows (module notes). ``cache``: an optional dict,
    filled under ``(key, a, sensitivity)``. O(n) plus one dampening loop.

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.chebyshev import dampened_excess
    >>> u = dpmo.Objective([3.0, 1.0, 5.0], global_sensitivity=2.0)
    >>> dampened_excess(u, 1.0, "global").tolist()
    [1.0, 0.0, 2.0]
    """
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    a = check_real(aspiration, "aspiration")
    if not np.isfinite(a):
        raise ValueError(f"aspiration must be a finite number, got {a}")
    ck = (key, a, sensitivity)
    if cache is not None and ck in cache:
        return cache[ck]
    with np.errstate(over="ignore"):  # saturate: np.clip's floats, in place on the fresh arrays
        u = saturate(np.asarray(objective.values, dtype=np.float64) - a)
        out = saturate(u / objective.global_sensitivity) if sensitivity == "global" else None
    if out is None:  # dampen_over: the same floats as dampen, in place (u is a fresh array of finite floats)
        fn = dampen_over if objective.local is not None and u.size else dampen
        out = fn(u, objective.local, global_sensitivity=objective.global_sensitivity, name=objective.name)
    if cache is not None:
        cache[ck] = out
    return out


def objective_scale(objective) -> tuple[float, float]:
    """``(low, unit)`` of an objective, both public: its declared ``bounds`` give ``(low, high - low)``;
    without bounds ``(0, global sensitivity)`` (sensitivity units). Never read from the values.

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.chebyshev import objective_scale
    >>> objective_scale(dpmo.Objective([0.7], 0.001, bounds=(0.5, 1.0)))
    (0.5, 0.5)
    >>> objective_scale(dpmo.Objective([3.0], 2.0))
    (0.0, 2.0)
    """
    b = objective.bounds
    if b is None:
        return 0.0, float(objective.global_sensitivity)
    return float(b[0]), float(b[1]) - float(b[0])


def _in_range_units(D: np.ndarray, objective) -> tuple[np.ndarray, float]:
    """``(D * Delta / unit, Delta / unit)``: dampened excesses (sensitivity 1) in units of the objective's
    range (sensitivity ``Delta / unit``), saturating below the largest float / 64."""
    _, unit = objective_scale(objective)
    d = float(objective.global_sensitivity) / unit
    lim = _MAX / 64.0
    with np.errstate(over="ignore", invalid="ignore"):
        Z = np.clip(np.clip(D, -lim, lim) * d, -lim, lim)
    return Z, d


def range_units(objectives, sensitivity: str = "local", cache=None) -> tuple[np.ndarray, np.ndarray]:
    """Every objective in units of its public range: ``(Z, d)`` with ``Z`` of shape (m, n) and ``d`` (m,).

    ``Z_i = dampened_excess(u_i, low_i) * Delta_i / unit_i`` (:func:`objective_scale`): with declared
    bounds ``(u_i - low_i) / (high_i - low_i)`` when the dampening is the global sensitivity; without, the
    dampened excess over 0 in sensitivity units. For neighbouring inputs every ``Z_i(r)`` moves by at most
    ``d_i = Delta_i / unit_i`` (``dampened_excess`` moves by at most 1). Multiplying an objective, its
    sensitivity and its bounds by one factor ``c > 0`` changes nothing (exactly, for ``c`` a power of 2).
    O(m n) plus m dampening loops; ``cache``: an optional dict of the dampened excesses.

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.chebyshev import range_units
    >>> Z, d = range_units([dpmo.Objective([0.5, 0.75, 1.0], 0.001, bounds=(0.5, 1.0))], "global")
    >>> Z.round(6).tolist(), d.tolist()
    ([[0.0, 0.5, 1.0]], [0.002])
    """
    objs = check_objectives(objectives)
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    cache = {} if cache is None else cache
    rows, ds = [], []
    for i, o in enumerate(objs):
        low, _ = objective_scale(o)
        Z, d = _in_range_units(dampened_excess(o, low, sensitivity, cache, i), o)
        rows.append(Z)
        ds.append(d)
    return np.stack(rows), np.asarray(ds)


def _aspiration_default(objs) -> np.ndarray:
    """The default aspiration of every objective: its declared low, or 0 (public)."""
    return np.array([objective_scale(o)[0] for o in objs])


def _dampened(objs, aspirations_row: np.ndarray, sensitivity: str, cache: dict, used) -> np.ndarray:
    """(m', n) dampened objectives ``used`` minus the aspirations, with global sensitivity 1 each."""
    return np.stack([dampened_excess(objs[i], aspirations_row[i], sensitivity, cache, i) for i in used])


def _round(objs, a: np.ndarray, w: np.ndarray, sensitivity: str, cache: dict) -> np.ndarray:
    """The augmented Chebyshev score of one round, with sensitivity 1 (objectives with ``w_i = 0`` are never
    looked at): ``[min_i c_i Z_i + rho sum_i Z_i] / S``, ``Z_i`` the dampened excess over ``a_i`` in range
    units (sensitivity ``d_i``), ``c_i = w_min / w_i``, ``rho = AUGMENT / m'``,
    ``S = max_i c_i d_i + rho sum_i d_i``."""
    used = np.flatnonzero(w > 0)
    c = w[used].min() / w[used]
    D = _dampened(objs, a, sensitivity, cache, used)
    Z = np.empty_like(D)
    d = np.empty(used.size)
    for row, i in enumerate(used):
        Z[row], d[row] = _in_range_units(D[row], objs[i])
    rho = AUGMENT / used.size
    S = float(np.max(c * d) + rho * np.sum(d))
    with np.errstate(over="ignore", invalid="ignore"):
        s = (np.min(c[:, None] * Z, axis=0) + rho * np.sum(Z, axis=0)) / S
    return np.clip(s, -_MAX, _MAX)


def chebyshev_scores(objectives, direction, aspiration=None, sensitivity: str = "local") -> np.ndarray:
    """The scores ``s(r) = min_{i : w_i > 0} (w_min / w_i) D_i(r)`` of one PrivChebyshev round.

    ``D_i = dampen(u_i - a_i)`` (``"local"``) or ``(u_i - a_i) / Delta_i`` (``"global"``); global
    sensitivity 1 (see :func:`priv_chebyshev`). O(n m) plus ``m`` dampening loops.
    """
    objs = check_objectives(objectives)
    m = len(objs)
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    if direction is None:
        raise ValueError(f"direction is required: {m} non-negative weights, one of them positive")
    W = check_directions(direction, 1, m)
    if aspiration is None:
        A = _aspiration_default(objs)[None, :]
    else:
        A = _matrix(aspiration, "aspiration", 1, m, default=0.0)
    return _round(objs, A[0], W[0], sensitivity, {})


def chebyshev_selection_scores(
    objectives, direction, aspiration=None, sensitivity: str = "local"
) -> tuple[np.ndarray, float]:
    """``(scores, 1.0)``: what one PrivChebyshev round hands to :func:`dpmo.select` (for audits)."""
    return chebyshev_scores(objectives, direction, aspiration, sensitivity), 1.0


def priv_chebyshev(
    objectives,
    epsilon: float,
    *,
    k: int = 1,
    directions=None,
    aspirations=None,
    shares=None,
    sensitivity: str = "local",
    mechanism: str = "exponential",
    rng=None,
    budget=None,
    exact: bool = _defaults.EXACT,
    delta: float = 0.0,
) -> np.ndarray:
    """PrivChebyshev: ``k`` candidates spread along the Pareto front, under epsilon-DP.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` utilities over the same ``n`` candidates, larger is better, with global sensitivities
        and (for ``"local"``) admissible local functions, all for the same neighbouring relation.
    epsilon : float
        Total privacy budget, > 0.
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``.
    directions : array_like, shape (k, m) or (m,), optional
        **Public** non-negative direction of each round (a zero entry drops that objective from the
        round). Default :func:`default_directions`.
    aspirations : array_like, shape (k, m) or (m,), optional
        **Public** aspiration levels subtracted from the objectives before dampening (default 0).
    shares : sequence of k floats, optional
        **Public** share of epsilon of each round (positive, summing to 1; default equal).
    sensitivity : {"local", "global"}
        Dampen each objective with its admissible local function, or divide by its global sensitivity.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed; one record
        per round (``epsilon * shares[j]``, the last round the exact rest; without ``shares`` exactly
        ``epsilon / k`` each). Without it the call spends ``epsilon`` of its own. The rounds, their records
        and the sampling are those of :func:`dpmo.select_multiobjective` with a configured
        :class:`ChebyshevApproach`.
    exact : bool, default True
        Sample exactly (the default; ``False`` opts in to the faster floating-point sampler, measured
        in ``docs/core.md``): :func:`dpmo.select` with ``exact=True``, given the exact share of each
        round that is recorded; rng None then reads the OS's secure source.
    delta : float, default 0
        ``0``: pure epsilon-DP. ``> 0``: the k rounds together are ``(epsilon, delta)``-DP, each at the
        accountant's epsilon (:func:`dpmo.per_pick_epsilon`, or the shares scaled by
        :func:`dpmo.accounting.scaled_epsilons`; ``docs/privacy-accounting.md``,
        "Approximate DP"); ``budget`` is charged ``(epsilon, delta)`` before anything is computed.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Indices of the chosen candidates, in selection order.

    Notes
    -----
    Privacy (proof in ``docs/pareto.md``): for neighbouring inputs ``x, y`` each ``D_ij`` moves by at most
    1 (local dampening with an admissible function, or division by the global sensitivity), so ``s_j``
    moves by at most ``max_i w_j,min / w_ji = 1``; round ``j`` is ``dpmo.select(s_j, epsilon_j, 1)`` on
    the candidates not chosen yet, which is ``epsilon_j``-DP for every fixed set of earlier picks; the
    scores of a candidate depend on that candidate's objective values only, never on the other candidates.
    The rounds compose to ``sum_j epsilon_j = epsilon`` (basic sequential composition).

    Cost: at most ``k m`` dampening loops (one per distinct aspiration of each objective), then ``k``
    selections: O(k m n) plus the dampening.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u1 = dpmo.Objective([5.0, 1.0, 4.0, 0.0, 3.0], global_sensitivity=1.0)
    >>> u2 = dpmo.Objective([1.0, 5.0, 4.0, 0.0, 3.0], global_sensitivity=1.0)
    >>> picks = dpmo.priv_chebyshev([u1, u2], epsilon=1.0, k=2, sensitivity="global", rng=0)
    >>> picks.shape, len(set(picks.tolist())) == 2
    ((2,), True)
    """
    objs = check_objectives(objectives)
    # the rounds, their budget records and the sampling are the pipeline's (dpmo.select_multiobjective);
    # the approach checks the public directions, aspirations and shares against k and m up front
    approach = ChebyshevApproach(directions=directions, aspirations=aspirations, shares=shares)
    return select_multiobjective(
        objs,
        epsilon,
        approach=approach,
        sensitivity=sensitivity,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        what="priv_chebyshev",
        exact=exact,
        delta=delta,
    )


# ----------------------------------------------------------------------------------- the pipeline's approach
class _ChebyshevRounds(Rounds):
    """Round ``j`` (= the number of picks so far) scores along direction ``j`` with aspiration ``j``."""

    def __init__(self, objectives, sensitivity: str, directions, aspirations):
        self.objectives, self.sensitivity, self._cache = objectives, sensitivity, {}
        self.directions, self.aspirations = directions, aspirations
        self.epsilon = None  # of the current round (told by the pipeline)
        self.ties = True  # the Pareto gate at negligible noise
        self._gate: dict = {}  # the gate's dominance of every candidate (the same in every round)
        local = sensitivity == "local"
        self._unit = "dampened objectives" if local else "objectives / their global sensitivities"
        self.score_name = f"Chebyshev scalarisation of the {self._unit}"

    def scores(self, chosen, remaining):
        j, m = len(chosen), len(self.objectives)
        w = _row(self.directions, j, m, None)
        if self.aspirations is None:
            a = _aspiration_default(self.objectives)
        else:
            a = _row(self.aspirations, j, m, 0.0)
        self.score_name = f"Chebyshev scalarisation of the {self._unit} along {w.tolist()}"
        s = _round(self.objectives, a, w, self.sensitivity, self._cache)[remaining]
        if not self.ties or self.epsilon is None:
            return s, 1.0
        # the Pareto gate at negligible noise (docs/pareto.md, "The Pareto gate"): public weights from d, the
        # sensitivities in range units; span (1 + rho m') / S_c inside declared ranges, else gate_span's
        d = np.array([float(o.global_sensitivity) / objective_scale(o)[1] for o in self.objectives])
        ranged = all(o.bounds is not None for o in self.objectives)
        _, e, S_c, span = round_gate_parameters(w, d, ranged, AUGMENT)  # span None: gate_span (no range)
        if not gate_on(remaining.size, self.epsilon, S_c, span, e):
            return s, 1.0  # the usual case: no O(n m) work for a gate that is off
        # the gate reads dominance only, unit-free: of the values as declared (not their rounded quotients)
        W = np.stack([o.values for o in self.objectives])
        out = gated_scores(s, span, S_c, W, e, chosen, remaining, self.epsilon, self._gate)
        if out[1] != 1.0:
            self.score_name += " + Pareto gate (negligible noise)"
        return out

    def begin(self, r: int, epsilon: float) -> None:
        self.epsilon = float(epsilon)


def _row(x, j: int, m: int, default: float | None) -> np.ndarray:
    """Row ``j`` of a public per-round setting (checked by :meth:`ChebyshevApproach.round_shares`): None
    is the default (:func:`default_directions`, or ``default``), an (m,) array serves every round."""
    if x is None:
        return default_directions(j + 1, m)[j] if default is None else np.full(m, float(default))
    arr = np.asarray(x, dtype=np.float64)
    return arr if arr.ndim == 1 else arr[j]


class ChebyshevApproach(Approach):
    """``approach="chebyshev"``: PrivChebyshev in :func:`dpmo.selection.select_multiobjective`.

    Parameters
    ----------
    directions, aspirations, shares : optional
        The public per-round settings of :func:`priv_chebyshev` (checked against ``k`` and ``m`` by
        :meth:`round_shares` when a selection starts). None: the default directions
        (:func:`default_directions`, round ``j`` takes the ``j``-th one whatever ``k``), aspirations 0 and
        the pipeline's equal shares ``epsilon / k``.
    ties : bool, default True
        A round with negligible noise adds the gate :func:`dpmo.chebyshev_gate.gated_scores` (``gamma
        G``, ``G`` 0 on the dominated candidates, 1 on copies of earlier picks, 2 on the others; sensitivity
        1): no pick is dominated, not even by an earlier pick (without a declared range on every objective:
        while the scores span at most :func:`dpmo.chebyshev_gate.gate_span`), and the allowed candidates are
        ranked by the scalarisation alone (``docs/pareto.md``, "The Pareto gate"). ``False``: no gate.

    Notes
    -----
    Sensitivity 1 in every round (see :func:`priv_chebyshev`). The registered instance (the name
    ``"chebyshev"``, used by DP-MOET and the experiments) has every setting None. The NON-private
    counterpart (:func:`dpmo.selection.argmax_multiobjective`) maximises the same scalarisation of
    ``u_i / Delta_i`` along the default directions.
    """

    name = "chebyshev"

    def __init__(self, directions=None, aspirations=None, shares=None, ties: bool = True):
        self.directions, self.aspirations, self.shares = directions, aspirations, shares
        if not isinstance(ties, bool):
            raise TypeError(f"ties must be True or False, got {ties!r}")
        self.ties = ties

    def round_shares(self, k: int, m: int):
        if self.directions is not None:
            check_directions(self.directions, k, m)
        if self.aspirations is not None:
            check_aspirations(self.aspirations, k, m)
        return None if self.shares is None else check_shares(self.shares, k)

    def rounds(self, objectives, weights, sensitivity, cache) -> Rounds:
        warn_mixed_ranges(objectives, "chebyshev")  # declarations only, public
        rounds = _ChebyshevRounds(list(objectives), sensitivity, self.directions, self.aspirations)
        rounds.ties = self.ties
        return rounds

    def utility(self, objectives, weights, remaining):
        n, m = objectives[0].n, len(objectives)
        j = n - remaining.size  # the round: one candidate is removed per round
        w = default_directions(j + 1, m)[j]
        return _round(objectives, _aspiration_default(objectives), w, "global", {})[remaining]


register_approach(ChebyshevApproach())
