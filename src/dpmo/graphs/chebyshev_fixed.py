"""PrivChebyshev on graphs with fixed settings: the public directions, aspirations and shares of
``graphs.top_k(approach="chebyshev", directions=..., aspirations=..., shares=...)`` and of the Spark graph
path, from ``n`` and ``k`` only.

The mechanism is :func:`dpmo.priv_chebyshev` on the two objectives of :func:`dpmo.graphs.objectives`
(degree: sensitivity 1; ego density: global sensitivity 1, admissible local function ``2 / (deg - t)``). The
data-adaptive default (the private staircase) is :mod:`dpmo.graphs.chebyshev`, which re-exports these names.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_int, check_k
from ..chebyshev import (
    ChebyshevApproach,
    chebyshev_scores,
    chebyshev_selection_scores,
    check_aspirations,
    check_directions,
    priv_chebyshev,
)
from ..chebyshev_gate import gated_argmax_picks
from ..pareto import SENSITIVITY_MODES
from .graph import Graph
from .objectives import statistics_objectives
from .pair_response import released_statistics

__all__ = [
    "DEGREE_ROUND_SHARE",
    "graph_chebyshev_settings",
    "graph_chebyshev_approach",
    "top_k_chebyshev",
    "released_chebyshev_picks",
    "gated_chebyshev_picks",
    "chebyshev_round_scores",
]

#: Share of epsilon of the first round (degree alone: the largest degrees are hundreds apart).
DEGREE_ROUND_SHARE = 0.1


def graph_chebyshev_settings(n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Public ``(directions, aspirations, shares)`` of the graph default, from ``n`` and ``k`` only.

    Round 0 takes degree alone (direction ``(1, 0)``) with ``DEGREE_ROUND_SHARE`` of epsilon. Rounds
    ``j = 1 .. k - 1`` take direction ``(1, 1)`` (dampened degree and dampened ego density in the same
    unit, edges) with a degree aspiration ``2 n^((k - j) / (2 (k - 1)))`` (from ``2 sqrt(n)`` for ``j = 1``
    down to ``2 n^(1 / (2 (k - 1)))``, geometrically: each round aims at a lower-degree, denser part of
    the front) and share equal parts of the rest of epsilon. ``k = 1``: direction ``(1, 1)``,
    aspiration 0, all of epsilon. ``n`` and ``k`` positive ints (``TypeError`` / ``ValueError`` naming them).
    """
    n, k = check_int(n, "n"), check_int(k, "k")
    if k == 1:
        return np.ones((1, 2)), np.zeros((1, 2)), np.ones(1)
    W = np.ones((k, 2))
    W[0] = (1.0, 0.0)
    A = np.zeros((k, 2))
    j = np.arange(1, k)
    A[1:, 0] = 2.0 * float(n) ** ((k - j) / (2.0 * (k - 1)))
    S = np.full(k, (1.0 - DEGREE_ROUND_SHARE) / (k - 1))
    S[0] = DEGREE_ROUND_SHARE
    return W, A, S


def graph_chebyshev_approach(n: int, k: int, directions=None, aspirations=None, shares=None):
    """A :class:`dpmo.chebyshev.ChebyshevApproach` with the graph defaults (:func:`graph_chebyshev_settings`)
    for every setting left None; depends on the public ``n`` and ``k`` only.

    Examples
    --------
    >>> from dpmo.graphs.chebyshev import graph_chebyshev_approach
    >>> appr = graph_chebyshev_approach(100, 3)
    >>> appr.round_shares(3, 2).round(2).tolist()  # degree round 0.1 of epsilon, the others share the rest
    [0.1, 0.45, 0.45]
    """
    W, A, S = graph_chebyshev_settings(n, k)
    return ChebyshevApproach(
        directions=W if directions is None else directions,
        aspirations=A if aspirations is None else aspirations,
        shares=S if shares is None else shares,
    )


def top_k_chebyshev(
    objs,
    n,
    k,
    epsilon,
    *,
    directions,
    aspirations,
    shares,
    sensitivity,
    mechanism,
    rng,
    budget=None,
    exact=True,
    delta=0.0,
) -> np.ndarray:
    """Indices of the ``k`` nodes chosen by :func:`dpmo.priv_chebyshev` (graph defaults for None)."""
    W, A, S = graph_chebyshev_settings(n, k)
    return priv_chebyshev(
        objs,
        epsilon,
        k=k,
        directions=W if directions is None else directions,
        aspirations=A if aspirations is None else aspirations,
        shares=S if shares is None else shares,
        sensitivity=sensitivity,
        mechanism=mechanism,
        rng=rng,
        budget=budget,
        exact=exact,
        delta=delta,
    )


def gated_chebyshev_picks(
    degree, ego_density, k: int, directions, aspirations, sensitivity: str = "local", formula: str = "paper"
) -> np.ndarray:
    """Indices of the ``k`` picks of PrivChebyshev with public settings *without noise*, Pareto-gated (NOT
    PRIVATE: apply it to released statistics only).

    Round ``j`` scores every node along ``directions[j]`` from ``aspirations[j]`` exactly as a private round
    does (:func:`dpmo.chebyshev.chebyshev_scores` of :func:`dpmo.graphs.statistics_objectives`, dampened
    with the admissible functions for ``"local"``) and takes the best node allowed by the Pareto gate
    (:func:`dpmo.chebyshev_gate.gated_argmax_picks`): a node that no node dominates and whose point no
    earlier pick has, then a copy of an earlier pick's point, then a dominated node. No pick is dominated
    while a non-dominated node is left. ``directions`` and ``aspirations``: shape (k, 2), or (2,) for every
    round (degree, ego density). O(k (n + dampening loops)) plus O(n log n).
    """
    objs = statistics_objectives(degree, ego_density, formula=formula)
    k = check_k(k, objs[0].n)
    Wd = check_directions(directions, k, 2)  # ValueError / TypeError naming the setting
    A = check_aspirations(aspirations, k, 2)
    sensitivity = check_choice(sensitivity, SENSITIVITY_MODES, "sensitivity")
    W = np.vstack([objs[0].values, objs[1].values]).astype(np.float64)
    return gated_argmax_picks(W, lambda j: chebyshev_scores(objs, Wd[j], A[j], sensitivity), k)


def released_chebyshev_picks(
    g: Graph,
    k: int,
    epsilon: float,
    *,
    directions=None,
    aspirations=None,
    sensitivity: str = "local",
    rng=None,
    exact: bool = True,
    low: float = 0.0,
    formula: str = "paper",
) -> np.ndarray:
    """Indices of the ``k`` picks of PrivChebyshev with public settings on the released graph (the caller
    records epsilon).

    One randomized-response release of every node pair (:func:`dpmo.graphs.pair_response.released_statistics`,
    epsilon-edge-DP), then :func:`gated_chebyshev_picks` of the released degrees and ego densities along the
    settings (:func:`graph_chebyshev_settings` for those left None; ``shares`` do not apply: there are no
    rounds to share epsilon between), post-processing. At negligible noise these are the gated picks of the
    true graph. ``docs/pareto.md``, "The released graph at large epsilon".
    """
    W, A, _ = graph_chebyshev_settings(g.n_nodes, k)
    degree, ed = released_statistics(g, epsilon, rng=rng, exact=exact, low=low, formula=formula)
    return gated_chebyshev_picks(
        degree,
        ed,
        k,
        W if directions is None else directions,
        A if aspirations is None else aspirations,
        sensitivity,
        formula,
    )


def chebyshev_round_scores(objs, n: int, k: int, round_: int = 0, sensitivity: str = "local"):
    """``(scores, 1.0)`` of round ``round_`` (``0 .. k - 1``) of the graph default (every node still in play;
    for audits)."""
    W, A, _ = graph_chebyshev_settings(n, k)
    round_ = check_int(round_, "round_", minimum=0, maximum=len(W) - 1)
    return chebyshev_selection_scores(objs, W[round_], A[round_], sensitivity)
