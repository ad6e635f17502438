"""Round 1 of the graph staircase on a hub graph: when the largest degree is the better first pick (issue 38).

Round 1 of the staircase plan (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`) is an ego round when
the released ego signal ``S`` (the largest dampened ego density) reaches the threshold ``T`` at which round 1
can single out a node that leads the nodes it searches by ``S`` units; below, it takes the largest degree at
the epsilon that needs (the *weak path*) and round 2 gets the rest of round 1's part. ``T`` measures the
lead over 0, but the dense end of a front rarely stands alone: its runners-up lie within about one edge of it
(a unit), so just above ``T`` the ego round is a coin among them. On a graph whose largest degree stands far
above the next one -- a hub, cheap to take -- the weak path is then the better plan: one cheap pick on the
front, and round 2 with nearly all of round 1's part for the dense end. :func:`hub_threshold` moves ``T`` up
by ``min(T, 1)`` there (the unit, while it is below ``T``, so that the rule fades as the noise vanishes and
the plan still converges to the greedy hypervolume). Public quantities only: ``n``, the plan's epsilons and
the released degrees of ranks 1 and 2. Derivation and measurements: ``docs/pareto.md``, "A hub's degree first
when the ego signal is marginal". Also the weak round's epsilon at negligible noise
(:func:`weak_round_epsilon`; "Duplicates of the picks at negligible noise").
"""

from __future__ import annotations

import math

from ..pareto.consistent import PARETO_RESOLVE, resolution
from .staircase_rules import top_degree_epsilon

__all__ = ["HUB_SHARE", "hub_threshold", "WEAK_ROUND_SHARE", "weak_round_epsilon"]

#: A graph counts as a hub graph for round 1 when the largest degree needs at most this share of round 1's
#: epsilon (:func:`~dpmo.graphs.staircase_rules.top_degree_epsilon` of the released lead of rank 1 over rank
#: 2): the weak path then hands at least three quarters of round 1's part to round 2. Measured on the
#: generated graphs (``docs/pareto.md``): a half also takes the weak path on Erdos-Renyi and block-model
#: graphs at epsilon 200-500, where the largest degree is worth little; an eighth leaves one of the five
#: cases it helps. Where the largest degree is not the best hub the rule costs (held out: docs/pareto.md).
HUB_SHARE = 0.25


def hub_threshold(threshold: float, n: int, lead: float, epsilon_round_one: float) -> float:
    """Round 1's signal threshold with the hub rule: ``threshold + min(threshold, 1)`` when
    ``top_degree_epsilon(n, lead) <= HUB_SHARE x epsilon_round_one``, else ``threshold``.

    Parameters
    ----------
    threshold : float
        :meth:`GraphStaircaseApproach.round_one_threshold` (``2 (ln c + 1) / eps_1``, ``c`` the nodes round
        1 searches).
    n : int
        Number of nodes (public).
    lead : float
        Released degree of rank 1 minus that of rank 2 (post-processing of the ranks' release).
    epsilon_round_one : float
        Round 1's planned epsilon (public).

    Returns
    -------
    float
        The threshold that the released ego signal is compared with. Post-processing of released values
        and public quantities: no epsilon is spent and no score changes. O(1).

    Examples
    --------
    >>> from dpmo.graphs.round_one import hub_threshold
    >>> hub_threshold(1.7, 10_000, 112.0, 12.0), hub_threshold(0.4, 10_000, 112.0, 12.0)
    (2.7, 0.8)
    >>> hub_threshold(1.7, 10_000, 2.0, 12.0)  # no hub: 10.2 > 3
    1.7
    """
    t = float(threshold)
    if top_degree_epsilon(int(n), float(lead)) <= HUB_SHARE * float(epsilon_round_one):
        return t + min(t, 1.0)
    return t


#: The weak round 1 keeps the epsilon that makes a miss of the largest degree a ``e^-20`` event
#: (:data:`dpmo.pareto.consistent.PARETO_RESOLVE`) whenever that costs at most this share of its part.
WEAK_ROUND_SHARE = 0.001


def weak_round_epsilon(n: int, lead: float, part: float) -> float:
    """The epsilon of a weak round 1 (``min(degree - W_1, 0)``, the largest degree ``lead`` released edges
    above the others): :func:`~dpmo.graphs.staircase_rules.top_degree_epsilon` (a miss about ``1 / e`` of
    the time), or ``2 (ln n + PARETO_RESOLVE) / max(lead, 1)`` (a miss at most ``e^-20``) when that is at
    most :data:`WEAK_ROUND_SHARE` of the round's ``part``: at negligible noise round 1 is on the front, not
    a node with one edge less. From a call's epsilon of about 10^5 on; below, the former epsilon (the rest of
    the part goes to round 2 in both). Public: ``n``, the released lead, the plan's part. O(1).

    Examples
    --------
    >>> from dpmo.graphs.round_one import weak_round_epsilon
    >>> weak_round_epsilon(200, 1.0, 50.0), weak_round_epsilon(200, 1.0, 1e5)
    (12.597, 50.597)
    """
    sure = resolution(max(int(n), 2), max(float(lead), 1.0), PARETO_RESOLVE)
    if sure <= WEAK_ROUND_SHARE * float(part):
        return math.ceil(sure * 1000.0 - 1e-9) / 1000.0
    return top_degree_epsilon(n, lead)
