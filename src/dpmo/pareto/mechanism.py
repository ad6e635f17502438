"""PrivPareto's public functions: ``delta^PS``, one round's scores, the mechanism and its approach.

:func:`pareto_sensitivity` (the paper's Definition "Admissible Function for Pareto Score"),
:func:`pareto_selection_scores` (what one round hands to :func:`dpmo.select`), :func:`priv_pareto` (the
paper's Definitions "Global PrivPareto Mechanism" and "Local PrivPareto Mechanism") and
:class:`ParetoApproach`, registered as ``approach="pareto"`` of
:func:`dpmo.selection.select_multiobjective`. The counting behind them is in :mod:`dpmo.pareto.state`,
the rounds in :mod:`dpmo.pareto.rounds` (overview: :mod:`dpmo.pareto`).
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .._validation import check_choice
from ..selection import (
    SENSITIVITIES,
    Approach,
    Rounds,
    check_objectives,
    register_approach,
    select_multiobjective,
)
from ..sensitivity import LocalSensitivity
from .consistent import ConsistentParetoRounds
from .rounds import ParetoRounds, RoundCache, round_scores
from .score import pareto_score
from .state import ParetoState

__all__ = [
    "pareto_sensitivity",
    "pareto_selection_scores",
    "priv_pareto",
    "ParetoApproach",
    "SENSITIVITY_MODES",
]

#: Values accepted by ``sensitivity`` in :func:`priv_pareto` and :func:`dpmo.priv_agg`.
SENSITIVITY_MODES = SENSITIVITIES


def pareto_sensitivity(objectives) -> LocalSensitivity:
    """Admissible local sensitivity function of the Pareto score, ``t -> delta^PS(x, t, .)``.

    The paper's Definition "Admissible Function for Pareto Score" (admissible by the theorem that follows
    it, label ``theo:admissible_delta_ps``, whenever every objective's function is admissible for the same
    neighbouring relation; ERRATA point 3 confirms it exhaustively), computed as

        delta^PS(t, r) = #{r' != r : u^{+t}(r') >= u^{-t}(r) in every objective}
                         - #{r' : u^{-t}(r') > u^{+t}(r) in every objective},

    where ``u_i^{+-t}(r) = u_i(r) +- sum_{j=0}^{t} delta^{u_i}(j, r)`` and ``delta^{u_i}(j, .)`` is
    ``objectives[i].sensitivity(j)`` (the objective's local function capped at its global sensitivity, or
    the global sensitivity when it has none). The result is capped at ``n - 1``.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` objectives over the same ``n`` candidates.

    Returns
    -------
    dpmo.LocalSensitivity
        ``f(t)`` gives ``delta^PS(x, t, r)`` for every candidate (float64, shape (n,)); ``f(t, idx)`` for the
        candidates ``idx`` only. ``t`` may also be an integer array of shape ``(B, 1)`` holding consecutive
        distances ``t0, t0 + 1, ..., t0 + B - 1``: the result then has shape ``(B, q)``, row ``b`` being
        ``delta^PS(x, t0 + b, .)`` (exactly the floats of ``B`` single calls). The function is marked
        ``vectorized_t`` (so that :func:`dpmo.dampen` asks for blocks) whenever every objective's local
        function is None or itself ``vectorized_t``. It may be 0, for instance for the centre of a star
        graph (ERRATA point 3); :func:`dpmo.dampen` raises zero deltas to a public floor.

    Notes
    -----
    The running sums are cached (O(n m) memory) and always accumulated one distance after the other,
    ``S_t = S_{t-1} + delta(t)``, whatever the form of the calls, so every path gives the same floats and
    the same integer counts. Calling ``t = 0, 1, 2, ...`` in order (as the dampening loop does) costs, per
    distance, one evaluation of every objective's local function on all ``n`` candidates (one call per
    chunk of distances for vectorised functions) plus the two counts. For m <= 2 and at least n / 16
    queried candidates both are made for every candidate at once from four radix-sorted lists shared by
    the two counts (two when an objective's running sums are the same for every candidate: the order of
    its utility is reused) and two sweeps: O(n) sorts and O(n log(n / 64)) sweeps, no comparison sort
    (:mod:`dpmo.pareto.sweep`). Otherwise two dominance counts of the ``q`` queries against all ``n``:
    O((n + q) log n) for m <= 2, O((n + q) log^(m-1) (n + q)) for m >= 3, or one fused O(n q m) pass when
    q is small. For a block of ``B`` distances on a small problem (at most 128
    candidates and ``q n m <= 4096``) the counts are a vectorised brute force over (distances, queries,
    candidates), O(B q n m) time, done in chunks of at most 2^16 cells (bounded memory); larger problems
    run the single-distance counts for each distance of the block. A call with a smaller ``t`` than the
    last one starts the sums again from 0. A far ``t`` costs the steps up to it, or up to the first
    distance (checked every 2^16) where every running sum reaches its objective's span ``max u_i - min
    u_i``: from there on every value is ``n - 1`` (:func:`dpmo.pareto.dominance.sums_saturated`).
    The counts of at most 8 single-distance steps that queried at
    least n / 16 candidates are kept (n int32 each), so evaluating such a step again costs O(q).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u1 = dpmo.Objective([3.0, 1.0, 2.0], global_sensitivity=1.0)
    >>> u2 = dpmo.Objective([1.0, 3.0, 2.0], global_sensitivity=1.0)
    >>> delta = dpmo.pareto_sensitivity([u1, u2])
    >>> d0 = delta(0)
    >>> d0.shape, bool(np.all(d0 >= 0)), bool(np.all(d0 <= 2))  # between 0 and n - 1
    ((3,), True, True)
    >>> bool(np.all(delta(3) >= d0))  # non-decreasing in the distance t
    True
    """
    objs = check_objectives(objectives)
    return ParetoState(objs).local(np.arange(objs[0].n, dtype=np.intp))


def pareto_selection_scores(objectives, sensitivity: str = "local") -> tuple[np.ndarray, float]:
    """Scores and sensitivity that PrivPareto hands to :func:`dpmo.select` in one round.

    ``"global"``: ``(PS, n - 1)``; ``"local"``: ``(D, 1)`` with ``D`` the dampened Pareto scores
    (``dpmo.dampen(PS, pareto_sensitivity(objectives), global_sensitivity=n - 1)``, up to rounding: see
    :func:`priv_pareto` for when the dampening loop uses blocks of distances). Needs ``n >= 2``.
    Exposed for audits: the output distribution of ``priv_pareto(..., k=1)`` is that of
    ``dpmo.select(*pareto_selection_scores(...), ...)``.
    """
    objs = check_objectives(objectives)
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    if objs[0].n < 2:
        raise ValueError("the Pareto score needs at least 2 candidates to have a positive sensitivity")
    return round_scores(ParetoState(objs), np.arange(objs[0].n, dtype=np.intp), sensitivity)


def priv_pareto(
    objectives,
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
    """PrivPareto: pick ``k`` candidates close to the Pareto front under epsilon-differential privacy.

    The paper's Definitions "Global PrivPareto Mechanism" and "Local PrivPareto Mechanism".

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` utilities over the same ``n`` candidates, larger is better, with global sensitivities
        and (for ``"local"``) admissible local functions, all for the same neighbouring relation.
    epsilon : float
        Total privacy budget, > 0.
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``.
    sensitivity : {"local", "global"}
        ``"global"``: ``dpmo.select(PS, epsilon / k, n - 1)``. ``"local"``: local dampening, i.e.
        ``dpmo.select(D, epsilon / k, 1)`` with ``D = dampen(PS, delta^PS, global_sensitivity=n - 1)``
        (see :func:`pareto_sensitivity`).
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`, for either version.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left); checked up front, then one record of
        ``epsilon / k`` per round, made right before the round's sampling. Without it the call spends
        ``epsilon`` of its own.
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
        Indices into the original candidates, in selection order.

    Notes
    -----
    Negligible noise (issue 38, not in the paper): a round with ``eps_j >= 6 (ln n_j + 20)`` (public)
    scores "dominated by a candidate left" plus an escape from the earlier picks (bounded terms, sensitivity
    3), so that its pick is Pareto-optimal in the whole table (:mod:`dpmo.pareto.consistent`); the paper's
    mechanism at every epsilon is ``dpmo.select_multiobjective(...,
    approach=dpmo.pareto.ParetoApproach(consistent=False))``.

    Privacy: each of the ``k`` rounds is an ``epsilon / k``-DP selection (the Pareto score has global
    sensitivity ``n_round - 1``; ``D`` has global sensitivity 1 under admissible deltas), and the rounds
    compose to epsilon-DP (basic sequential composition). Each round recomputes the Pareto score and
    ``delta^PS`` on the candidates not yet chosen (a candidate's score depends on the others, so it changes
    when one is removed); which candidates remain depends only on earlier private outputs. With one
    candidate left, it is returned without looking at the data.

    Cost: the first round is :func:`pareto_score` plus, for ``"local"``, the dampening loop with
    :func:`pareto_sensitivity` (see there) and :func:`dpmo.select`. The later rounds reuse the counts made
    against all candidates and correct them for the ones already chosen, in one compiled pass with the
    gather of the kept counts (O(q k m) per step, no sort), which gives exactly the scores of a fresh
    computation on the remaining candidates; a round then costs O(n k m) plus the dampening and the
    selection, O(n) each (measured: 0.8 s of CPU per round at 10^7 candidates, ``docs/pareto.md``).
    When at most 8,192 candidates remain and the objectives' functions are vectorised, the dampening loop
    evaluates ``delta^PS`` for blocks of distances (a few calls instead of thousands when the deltas are
    tiny, as for the rates of DP-MOET); with more candidates every distance costs a pass over all of
    them, and the loop asks one distance at a time so as not to compute distances it does not need. The
    choice depends on sizes only, and the scores agree to rounding (the dampening's own running sums are
    added in a different order).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> u1 = dpmo.Objective([5.0, 1.0, 4.0, 0.0, 2.0], global_sensitivity=1.0)
    >>> u2 = dpmo.Objective([1.0, 5.0, 4.0, 0.0, 2.0], global_sensitivity=1.0)
    >>> picks = dpmo.priv_pareto([u1, u2], epsilon=1.0, k=2, rng=0)
    >>> picks.shape, len(set(picks.tolist())) == 2
    ((2,), True)
    >>> # at a huge budget each pick lies on the Pareto front of the candidates left at its round: the
    >>> # first in {0, 1, 2}; candidate 4 = (2, 2) joins the front once candidate 2 = (4, 4) is picked
    >>> int(dpmo.priv_pareto([u1, u2], epsilon=1e6, k=1, sensitivity="global", rng=1)[0]) in {0, 1, 2}
    True
    """
    return select_multiobjective(
        objectives,
        epsilon,
        approach="pareto",
        sensitivity=sensitivity,
        mechanism=mechanism,
        k=k,
        rng=rng,
        budget=budget,
        what="priv_pareto",
        exact=exact,
        delta=delta,
    )


class ParetoApproach(Approach):
    """``approach="pareto"`` of :func:`dpmo.selection.select_multiobjective`: PrivPareto's rounds (the
    Pareto score, global sensitivity ``n_round - 1``, or dampened with :func:`pareto_sensitivity`).

    Parameters
    ----------
    consistent : bool, default True
        ``True`` (the registered ``"pareto"``): a round whose noise is negligible (the public condition
        :func:`dpmo.pareto.consistent.negligible_noise` on the candidates left and the round's epsilon)
        scores "dominated by a candidate left" plus an escape from the earlier picks, so that its pick is
        Pareto-optimal in the whole table (:class:`dpmo.pareto.consistent.ConsistentParetoRounds`); every
        other round is the paper's, float for float. ``False``: the paper's mechanism at every epsilon.
    """

    name = "pareto"

    def __init__(self, consistent: bool = True):
        if not isinstance(consistent, bool):
            raise TypeError(f"consistent must be True or False, got {consistent!r}")
        self.consistent = consistent

    def rounds(self, objectives, weights, sensitivity, cache) -> Rounds:
        store = None if cache is None else cache.slot(("pareto-rounds",), RoundCache)
        if self.consistent:
            return ConsistentParetoRounds(list(objectives), sensitivity, store)
        return ParetoRounds(list(objectives), sensitivity, store)

    def utility(self, objectives, weights, remaining):
        U = np.column_stack([o.values for o in objectives])
        return pareto_score(U[remaining])


register_approach(ParetoApproach())
