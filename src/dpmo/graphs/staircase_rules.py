"""Public rules of the graph staircase (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`): functions of
public quantities only (``n``, a round's epsilon, the noise of a release), each derived in ``docs/pareto.md``
("On any graph"). Issue 38: settings must be rules, not constants fitted to GitHub and Enron.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int
from ..pareto.consistent import resolution
from .epsilon_grid import grid_epsilon

__all__ = [
    "SIGNAL_SHARE",
    "CORNER_TIE",
    "tie_weight",
    "degree_margin",
    "pick_quantum",
    "PICK_QUANTUM_MAX",
    "signal_threshold",
    "top_degree_epsilon",
    "top_pick_epsilon",
    "signal_quantum",
    "ego_signal_statistic",
    "QUANTILE_SHARE",
    "PICK_SHARE",
    "FIRST_ROUND",
    "WINDOW_FIRST",
    "WINDOW_LAST",
    "window_last",
    "WINDOW_GAP",
    "DEGREE_MARGIN",
    "PICK_CONFIDENCE",
    "RANK_CONFIDENCE",
    "TOP_FIRST_EPSILONS",
    "TOP_PICKS",
    "TOP_QUANTILE_SHARE",
    "ego_window_for",
    "degree_ranks",
    "top_first_probability",
    "offers_top_degree",
    "degree_leads",
    "top_degree_level",
    "top_degree_scores",
    "with_top_degree",
    "unresolved_degree",
    "top_round_scores",
    "last_window_edge",
    "window_log_size",
]

#: Share of epsilon of the release of ``floor(max_v D_ego(v))`` (the largest dampened ego density; sensitivity
#: 1), made together with the degrees of the ranks before round 1 of the staircase plan.
SIGNAL_SHARE = 0.08


#: Weight of the bounded augmented term of a staircase round at each corner, ``c min(|D_deg - D_ego|, 1)``
#: (``GraphStaircaseApproach``): it moves a score by at most 0.001 unit -- nothing at the paper's epsilons (a
#: factor ``e^(eps_j 0.0005)`` in the exponential mechanism) -- and separates a node that the binding
#: objective ties with a dominating one once the round's epsilon is in the tens of thousands.
CORNER_TIE = 0.001


def tie_weight(n: int) -> float:
    """``rho = 1 / (2 n^2)``: the weight of the tie rule (:meth:`_GraphStaircaseRounds.tie_break`). Its term
    ``rho (D_deg + D_ego)`` spans less than ``1 / n`` unit (``D_deg <= n - 1``, ``D_ego <= n / 2``): below the
    smallest positive staircase score that exact values give (a degree step is 1 unit, an ego step at degree
    ``d`` about ``1 / d``), so it never lifts a node inside the staircase above one outside; it only orders
    nodes the staircase score ties, by a rule strictly increasing under dominance.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import tie_weight
    >>> tie_weight(10)
    0.005
    """
    return 0.5 / float(max(int(n), 1)) ** 2


def degree_margin(margin: float, sd: float) -> float:
    """The factor on a released pick's degree: ``1 + (margin - 1) min(1, sd)``, ``sd`` the release noise's
    standard deviation (public). With noise of a unit or more it is ``margin`` (a later pick must have that
    much more degree to count as filling a gap); as the noise vanishes it tends to 1, so the staircase is the
    exact one and no node dominated by an earlier pick scores above a node that is not.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import degree_margin
    >>> degree_margin(1.5, 2.0), degree_margin(1.5, 0.0)
    (1.5, 1.0)
    """
    return 1.0 + (float(margin) - 1.0) * min(1.0, float(sd))


#: Largest grid of a pick's release, ``q <= 2^30`` (:func:`pick_quantum`): finer than any difference of
#: dampened ego densities a float can tell at that scale, and ``q D_ego`` stays an int64 for ``D_ego < 2^32``.
PICK_QUANTUM_MAX = 1 << 30


def pick_quantum(epsilon_part) -> int:
    """``q = min(max(1, floor(eps_b)), PICK_QUANTUM_MAX)`` (1 for None): a pick's dampened ego density is
    released as ``floor(q D_ego)`` with its own part ``eps_b`` of the release step's epsilon (sensitivity
    ``q``, discrete Laplace ``x = eps_b / q``; public: ``eps_b``).

    The noise in ``D_ego`` units has scale ``1 / eps_b`` (sd about ``sqrt(2) / eps_b``) whatever ``q`` is. The
    grid step ``1 / q`` is then between one and two noise scales (``eps_b >= 1``; one unit below): no finer
    than the noise resolves, and its error, uniform over a cell (sd ``1 / (q sqrt(12))``), is at most
    ``1 / sqrt(6)`` (0.41) of the noise's sd. As epsilon grows the grid follows the noise down, so the
    released staircase tends to the exact one (``docs/pareto.md``, "A pick's degree and ego density released
    apart").

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import pick_quantum
    >>> [pick_quantum(e) for e in (None, 0.5, 1.5, 6.0, 3e4, 1e300)]
    [1, 1, 1, 6, 30000, 1073741824]
    """
    if epsilon_part is None:
        return 1
    e = float(epsilon_part)
    if not e < PICK_QUANTUM_MAX:
        return PICK_QUANTUM_MAX
    return max(1, int(math.floor(e)))


def signal_threshold(n: int, epsilon_best: float) -> float:
    """``2 (ln n + 1) / epsilon_best``: the smallest margin, in dampened units, by which a node must lead
    ``n - 1`` others for the exponential mechanism at ``epsilon_best`` (the plan's best-funded round) to be
    ``e`` times likelier than all of them together (``e^(eps G / 2) >= e n``; probability at least 0.73).
    Below it no ego-density round of the plan can single out the dense end of the front, and the
    staircase's first round takes the largest degree instead.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import signal_threshold
    >>> round(signal_threshold(10_000, 20.0), 3)
    1.021
    """
    return resolution(n, epsilon_best, 1.0)


def top_degree_epsilon(n: int, lead: float) -> float:
    """``2 (ln n + 1) / max(lead, 1)``, rounded up to a multiple of 1 / 1000: the epsilon at which the
    exponential mechanism on a sensitivity-1 score picks a node that leads the ``n - 1`` others by ``lead``
    units with probability at least ``e / (1 + e)`` (:func:`signal_threshold` solved for the epsilon; public:
    ``n`` and a released lead). The weak round 1 of the staircase plan, whose score ``min(degree - W_1, 0)``
    puts the largest degree ``lead`` = (released degree of rank 1) - (released degree of rank 2) edges above
    every other node, needs no more (``docs/pareto.md``, "With change 1"; measured in
    ``docs/staircase-measurements.md``, "Where epsilon 50 is lost on 10^4 nodes", change 1).

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import top_degree_epsilon
    >>> top_degree_epsilon(10_000, 11.0), top_degree_epsilon(10_000, 0.0)
    (1.857, 20.421)
    """
    eps = resolution(n, max(float(lead), 1.0), 1.0)
    return math.ceil(eps * 1000.0 - 1e-9) / 1000.0


def top_pick_epsilon(ranks, degrees, top: float, edge: float, n: int, miss: float | None = None) -> float:
    """The epsilon of a top-first round, ``min(degree - W, 0)`` with ``W = degrees(top)``: the smallest
    multiple of 1 / 1000 at which the nodes of degree rank ``edge`` and below (those the plan's last round
    searches, and the bulk) weigh together at most ``miss`` (default ``1 / n``) of one node scoring 0, read
    from the released degree sequence (public: ``ranks``, ``degrees`` the released degrees there, ``edge``,
    ``n``): ``sum_b c_b exp(-eps (W - W_b) / 2) <= miss``, the ``c_b`` nodes of band ``b`` of ranks (from
    ``max(r_b, edge)`` to the next released rank; the last band is rank ``n`` itself) counted at the released
    degree ``W_b`` of the band's first released rank ``r_b <= max(r_b, edge)`` (an upper bound: the released
    degrees are non-increasing). The round then lands below ``edge`` with probability at most ``miss``, in
    released terms: the exponential mechanism's utility bound (McSherry and Talwar 2007) with ``ln(1 /
    miss) = ln n``; with all ``n`` nodes at one lead, ``2 (ln n + ln n) / lead``. A miss loses the top corner
    of the front, so ``1 / n`` and not the ``1 / e`` of :func:`top_degree_epsilon` (``docs/pareto.md``, "What
    was tuned, on which data"). ``inf`` when a band has no lead (``W_b >= W``): no epsilon separates it; also
    when the answer is beyond the floats (leads near 1e-308). The search
    (:func:`dpmo.graphs.epsilon_grid.grid_epsilon`) takes a bounded number of steps.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import top_pick_epsilon
    >>> r = [1, 2, 4, 8, 10]
    >>> top_pick_epsilon(r, [900, 800, 50, 10, 5], 2, 4, 10)  # 7 nodes, 750 or more edges below
    0.012
    >>> top_pick_epsilon(r, [900, 800, 800, 10, 5], 2, 4, 10)
    inf
    """
    r = np.asarray(ranks, dtype=np.float64)
    d = np.asarray(degrees, dtype=np.float64)
    lr = np.log(r)
    W = float(np.interp(math.log(top), lr, d))
    lo = max(float(edge), 1.0)
    starts = np.concatenate([[lo], r[r > lo]])
    ends = np.concatenate([r[r > lo], [float(n) + 1.0]])
    counts = np.maximum(np.ceil(ends) - np.ceil(starts), 0.0)  # integer ranks in [start, end)
    tops = np.concatenate([[d[np.searchsorted(r, lo, side="right") - 1]], d[r > lo]])  # step: upper bounds
    leads = W - tops
    keep = counts > 0
    counts, leads = counts[keep], leads[keep]
    if counts.size == 0:
        return 0.001
    if not leads.min() > 0.0:
        return math.inf

    miss = 1.0 / max(float(n), math.e) if miss is None else float(miss)

    def mass(eps: float) -> float:
        return float(np.sum(counts * np.exp(-eps * leads / 2.0)))

    hi = 2.0 * (math.log(counts.sum()) - math.log(miss)) / float(leads.min())  # all at the smallest lead
    return grid_epsilon(mass, hi, miss)  # bounded steps: inf when the answer is beyond the floats


def signal_quantum(threshold: float) -> int:
    """``q = max(1, ceil(2 / threshold))``, at most ``PICK_QUANTUM_MAX``: the signal is released as ``floor(q
    max D_ego)`` (sensitivity ``q``, discrete Laplace ``x = eps_b / q``), a grid at least twice as fine as
    :func:`signal_threshold`, so that a graph with no ego signal at all (``max D_ego`` near 0) can be told
    from one whose dense end the best round can find.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import signal_quantum
    >>> signal_quantum(5.0), signal_quantum(0.45)
    (1, 5)
    """
    t = float(threshold)
    if not 0.0 < t < math.inf:
        raise ValueError(f"threshold must be a positive finite number, got {threshold!r}")
    q = 2.0 / t  # inf for a subnormal threshold: capped as a pick's quantum is
    return PICK_QUANTUM_MAX if q >= PICK_QUANTUM_MAX else max(1, math.ceil(q))


def ego_signal_statistic(dampened_ego) -> int:
    """``floor(max_v D_ego(v))``: the integer the signal release adds noise to (called on ``q D_ego``).
    Every ``D_ego(v)`` moves by at most 1 between edge neighbours (dampened scores have sensitivity 1), so
    does their maximum, and the floor of a value that moves by at most 1 moves by at most 1 (sensitivity 1;
    ``q`` for ``q D_ego`` with an integer ``q``: the floor of a value moving by at most ``q`` moves by at
    most ``q``).

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import ego_signal_statistic
    >>> ego_signal_statistic([0.2, 3.7, 1.0])
    3
    """
    D = np.asarray(dampened_ego, dtype=np.float64)
    return int(math.floor(float(np.clip(D.max(), -(2.0**62), 2.0**62)))) if D.size else 0


# --------------------------------------------------------------------------- the data-adaptive default
#: Share of epsilon of the release of the degrees at the ranks :func:`degree_ranks` (before round 1).
QUANTILE_SHARE = 0.03
#: Share of epsilon of each release of a pick's degree and dampened ego density (before rounds 2..k).
PICK_SHARE = 0.06
#: Relative share of round 1 among the rounds; round ``j >= 2`` gets a part of the rest proportional to
#: ``j - 1`` (k = 3: 0.15, 0.283, 0.567): the later rounds aim at the denser, costlier end of the front.
FIRST_ROUND = 0.15
#: Windows at epsilon -> 0: round ``j`` (from 0) sees the ``WINDOW_FIRST (L / WINDOW_FIRST)^(j / (k - 1))``
#: highest degrees, ``L = window_last(n, k) = n^(2/3)`` (k = 3, n = 37,700: 3, 58, 1,124). ``WINDOW_LAST``
#: (2000, the former constant chosen on GitHub and Enron) is no longer used by the default; kept for
#: comparison.
WINDOW_FIRST, WINDOW_LAST = 3.0, 2000.0
#: A window holds ``exp(epsilon_j WINDOW_GAP / 2)`` times as many nodes: about as many as the exponential
#: mechanism can search at the round's epsilon for a node ``WINDOW_GAP`` units better than the rest.
WINDOW_GAP = 4.0
#: A later pick must have ``DEGREE_MARGIN`` times the (upper bound of the) degree of a released pick to fill
#: the gap at a corner.
DEGREE_MARGIN = 1.5
#: Standard deviations of the release noise: a pick's degree is raised and its ego density lowered by
#: ``PICK_CONFIDENCE``, the degrees of the ranks raised by ``RANK_CONFIDENCE``. ``PICK_CONFIDENCE`` is 0
#: (issue 38): a pick's corner is the released point itself, no constant (``docs/pareto.md``, "Round 1 over
#: the nodes it searches, and picks as released"); it was 1, chosen on GitHub and Enron.
PICK_CONFIDENCE, RANK_CONFIDENCE = 0.0, 0.5

# ------------------------------------------------------------- the top-first plan (k = 3, mid budgets)
#: ``(a, b, c)``: the graph default runs the top-first plan for ``k = 3`` with probability 1 for epsilon in
#: ``[a, b]``, ``(c - epsilon) / (c - b)`` on ``(b, c)`` (a public coin: the expected ratio rises with
#: epsilon into the staircase's), and 0 outside (:func:`top_first_probability`).
TOP_FIRST_EPSILONS = (1.0, 2.0, 5.0)
#: Picks of the top-first plan taken among the highest degrees, each planned at round 1's share of the
#: staircase plan (:meth:`GraphStaircaseApproach.top_round_share`) and, with pure epsilon-DP, run at
#: :func:`top_pick_epsilon` of the released degrees when that is less (the rest to the last round). It
#: replaces ``TOP_PICK_EPSILON = 0.03``, an absolute epsilon chosen on GitHub and Enron.
TOP_PICKS = 2
#: Share of epsilon of the top-first plan's release of the degrees at the ranks :func:`degree_ranks`.
TOP_QUANTILE_SHARE = 0.02


def window_last(n: int, k: int) -> float:
    """``max(WINDOW_FIRST, n^(2/3))``: the last round's window at epsilon -> 0 (public: ``n``; ``k`` kept for
    the signature). Cut the degree ranks ``1 .. n`` into three bands of equal length in log rank, ``[1,
    n^(1/3))``, ``[n^(1/3), n^(2/3))``, ``[n^(2/3), n]``: the top degrees, the middle, and the bulk of the
    lowest degrees. At epsilon -> 0 the rounds' windows spread geometrically over the first two bands and stop
    at the bulk, whose nodes no round at that epsilon can tell apart; as a round's epsilon grows its window
    opens into the bulk (``exp(eps_j WINDOW_GAP / 2)``). It replaces the constant ``WINDOW_LAST = 2000``
    chosen on GitHub and Enron (``docs/pareto.md``, "What was tuned, on which data": why the exponent does not
    grow with ``k``; the audit: ``docs/staircase-measurements.md``, "Audit of the graph constants").

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import window_last
    >>> round(window_last(37_700, 3)), round(window_last(1000, 5)), window_last(10, 3)
    (1124, 100, 4.641588833612778)
    """
    return max(WINDOW_FIRST, float(max(int(n), 1)) ** (2.0 / 3.0))


def ego_window_for(n: int, window=None) -> tuple[float, float]:
    """The top-first plan's window of degree ranks on ``n`` nodes, ``(s / WINDOW_FIRST, s)`` with ``s =
    sqrt(WINDOW_FIRST window_last(n, 3))`` (``sqrt(3) n^(1/3)``: 19.4 and 58.1 on 37,700 nodes; public:
    ``n``). The plan's last round plays the staircase's middle round: at epsilon -> 0 that round's window
    starts at ``s`` (:meth:`GraphStaircaseApproach.window_starts`, ``k = 3``), the lower edge here, which
    opens with the round's epsilon as every window does; the upper edge leaves the ranks above ``s /
    WINDOW_FIRST`` to the top rounds, so the window spans the factor ``WINDOW_FIRST`` in rank that round 1 of
    the staircase spans (ranks 1 to ``WINDOW_FIRST``), centred in log rank on ``n^(1/3)``, the border of the
    top band and the middle band (:func:`window_last`). It replaces ``EGO_WINDOW = (20, 50)``, chosen on
    GitHub and Enron (``docs/pareto.md``, "What was tuned, on which data"). ``window = (a, b)`` given:
    ``(min(a, n^(1/3)), min(b, n^(1/2)))``, the former cap of a constant window (kept for the audits that
    shrink it).

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import ego_window_for
    >>> [round(x, 1) for x in ego_window_for(37_700)], [round(x, 1) for x in ego_window_for(200)]
    ([19.4, 58.1], [3.4, 10.1])
    """
    nn = float(max(int(n), 1))
    if window is not None:
        return min(float(window[0]), nn ** (1.0 / 3.0)), min(float(window[1]), nn**0.5)
    s = math.sqrt(WINDOW_FIRST * window_last(n, 3))
    return s / WINDOW_FIRST, s


def degree_ranks(n: int) -> np.ndarray:
    """The public ranks ``1, 2, 4, ..., 2^floor(log2 n), n`` whose degrees the staircase default releases."""
    r = [1 << i for i in range(int(n).bit_length()) if (1 << i) <= n]
    return np.array(sorted(set(r + [int(n)])), dtype=np.int64)


def top_first_probability(epsilon: float, k: int) -> float:
    """Probability that the graph default runs the top-first plan
    (:class:`dpmo.graphs.chebyshev.GraphStaircaseApproach`) for ``k`` picks at ``epsilon``: public, from ``k``
    and epsilon only (:data:`TOP_FIRST_EPSILONS`).

    Examples
    --------
    >>> from dpmo.graphs.chebyshev import top_first_probability
    >>> [top_first_probability(e, 3) for e in (0.5, 1.0, 2.0, 3.5, 5.0)], top_first_probability(1.0, 10)
    ([0.0, 1.0, 1.0, 0.5, 0.0], 0.0)
    """
    lo, full, hi = TOP_FIRST_EPSILONS
    e = float(epsilon)
    if check_int(k, "k") != TOP_PICKS + 1 or not lo <= e < hi:
        return 0.0
    return 1.0 if e <= full else (hi - e) / (hi - full)


# ---------------------------------------- round 1 of the staircase plan: the top degree on offer (k >= 2)
def offers_top_degree(epsilon, k: int) -> bool:
    """Whether the ego rounds of the staircase plan offer the largest degree (:func:`top_degree_scores`): for
    ``k >= 2`` at the call's ``epsilon >= TOP_FIRST_EPSILONS[0]`` (public: ``k``, epsilon). For ``k = 3``
    those are the budgets where the default's top-first plan, whose first pick is the largest degree, runs or
    has run out; for other ``k`` the same budgets (measured at ``k`` = 2, 5 and 10: ``docs/pareto.md``, "The
    top degree on offer for every k"). Below, round 1's window holds a few nodes and its epsilon cannot tell
    them apart: the option would fix the pick to the largest degree whatever the data
    (``docs/staircase-measurements.md``, "The dip at epsilon 5 on Barabasi-Albert graphs").

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import offers_top_degree
    >>> [offers_top_degree(e, k) for e, k in ((0.5, 3), (5.0, 3), (5.0, 10), (5.0, 1), (None, 3))]
    [False, True, True, False, False]
    """
    return epsilon is not None and int(k) >= 2 and float(epsilon) >= TOP_FIRST_EPSILONS[0]


def degree_leads(degrees) -> np.ndarray:
    """``deg(v) - max_{u != v} deg(u)`` for every node: positive for a node whose degree is the largest and
    unique, its lead over the runner-up; else minus the gap to the largest. Sensitivity 1: adding an edge
    raises ``deg(v)`` by 0 or 1 and the largest other degree by 0 or 1 (removing one lowers each by 0 or
    1), so the difference moves by at most 1.

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import degree_leads
    >>> degree_leads([5, 3, 5, 1]).tolist(), degree_leads([9, 2, 4]).tolist()
    ([0.0, -2.0, 0.0, -4.0], [5.0, -7.0, -5.0])
    """
    d = np.asarray(degrees, dtype=np.float64)
    if d.size < 2:
        return np.zeros(d.size)
    i = int(np.argmax(d))
    second = float(np.max(np.delete(d, i)))
    other = np.full(d.size, d[i])
    other[i] = second
    return d - other


def top_degree_level(n_window: float, epsilon_round: float) -> float:
    """``2 ln c / eps_1``: the score lead over ``c`` (``n_window``, public) nodes at which the exponential
    mechanism at round 1's ``eps_1`` makes the leader at least as likely as the ``c - 1`` others together
    (``e^(eps_1 x / 2) >= c``; :func:`dpmo.pareto.consistent.resolution` with ``lambda = 0``).

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import top_degree_level
    >>> round(top_degree_level(11, 0.6375), 3)
    7.523
    """
    return resolution(max(int(math.ceil(float(n_window))), 2), epsilon_round, 0.0)


def top_degree_scores(degrees, remaining, n_window: float, epsilon_round: float) -> np.ndarray:
    """``L + min(degree_leads(v), 0)`` for the ``remaining`` nodes, ``L`` = :func:`top_degree_level`: the
    largest degree scores ``L``, a node ``g`` edges below it ``L - g``. Round 1 of the staircase plan takes
    the maximum of this and its staircase score (both of sensitivity 1, so is the maximum): a node of the
    window whose staircase score stands ``x`` above ``L`` is ``e^(eps_1 x / 2)`` times as likely as the
    largest degree, and on a graph whose top degrees carry no ego signal the largest degree is picked at
    least as often as every other node of the window together (``docs/pareto.md``, "Round 1 with the top
    degree on offer").

    Examples
    --------
    >>> from dpmo.graphs.staircase_rules import top_degree_scores
    >>> import numpy as np
    >>> (top_degree_scores([9, 2, 4], np.arange(3), 11, 0.6375) - 7.523).round(3).tolist()
    [-0.0, -7.0, -5.0]
    """
    level = top_degree_level(n_window, epsilon_round)
    return level + np.minimum(degree_leads(degrees)[np.asarray(remaining)], 0.0)


def with_top_degree(scores, degrees, remaining, epsilon_round: float, appr, rounds=None) -> np.ndarray:
    """An ego round's scores with the largest degree on offer: ``max(scores, min(top_degree_scores(...), L +
    deg - D))`` when :func:`offers_top_degree` (``appr.epsilon``, ``appr.k``), else ``scores`` (those of the
    ``remaining`` nodes, after the window's margin). ``rounds``: the rounds' state (None: round 1), read for
    the round (``rounds.round``) and the released picks' degrees plus one noise sd, capped at their corners
    (``rounds.covers``; ``D`` the largest: a node ``g`` edges below gets at most ``L - g``; none: no cap).
    Every ego round offers it -- round 1 of the staircase plan without the ego signal, its later rounds, the
    top-first plan's last round -- until the largest degree is picked: then every remaining node's lead is
    minus its gap to it. ``c`` is the round's nominal window, ``start exp(eps_j window_scale WINDOW_GAP / 2)``
    at most ``n`` (``start``: ``window_starts(n)[round]``, or :func:`ego_window_for`'s lower edge in the
    top-first plan). Public: ``appr``'s plan, ``n``, the round's epsilon, released corners. All terms have
    sensitivity 1, so has the result (``docs/pareto.md``, "The top degree on offer until picked, and the
    top-first plan when its release sees nothing"). ``appr``: a
    :class:`dpmo.graphs.chebyshev.GraphStaircaseApproach` (read, not imported).
    """
    if not offers_top_degree(appr.epsilon, appr.k):
        return scores
    deg = np.asarray(degrees)
    n, r = int(deg.size), 0 if rounds is None else int(rounds.round)
    log_size = window_log_size(appr, n, r, epsilon_round)
    size = float(n) if log_size >= math.log(max(n, 2)) else math.exp(log_size)
    option = top_degree_scores(deg, remaining, size, epsilon_round)
    covered = [float(c) for c in getattr(rounds, "covers", [])]
    if covered:  # a released pick's degree (+ 1 sd) above a node's: its option falls with the gap
        level = top_degree_level(size, epsilon_round)
        option = np.minimum(option, level + deg[np.asarray(remaining)] - max(covered))
    return np.maximum(scores, option)


def window_log_size(appr, n: int, r: int, epsilon_round: float) -> float:
    """The log of round ``r``'s nominal window on ``n`` nodes at its epsilon: ``log(start) + eps_j
    window_scale WINDOW_GAP / 2``, ``start`` the window at epsilon -> 0 (``window_starts(n)[r]``, or in the
    top-first plan :func:`ego_window_for`'s upper edge). The window holds every node once it reaches ``log
    n`` (public: ``appr``'s plan, ``n``, the round's epsilon). ``appr``: a
    :class:`dpmo.graphs.chebyshev.GraphStaircaseApproach` (read, not imported). O(k)."""
    start = ego_window_for(n, appr.ego_window)[1] if appr.top_first else appr.window_starts(n)[r]
    return math.log(start) + float(epsilon_round) * appr.window_scale() * appr.window_gap / 2.0


# ------------------------------------- the top-first plan when its ranks' release sees nothing (issue 38)
def unresolved_degree(released: float, rounds) -> bool:
    """Whether a released degree (an upper bound: point estimate plus ``RANK_CONFIDENCE`` sd) is within one
    noise sd of 0: ``released - (RANK_CONFIDENCE + 1) sd < 0`` (public: the release, its noise's sd
    ``rounds.rank_sd``, ``rounds.appr.rank_confidence``). With sd ``141 / eps`` edges in the top-first plan,
    on 200 nodes every degree is (``docs/pareto.md``, "The top degree on offer until picked, and the
    top-first plan when its release sees nothing")."""
    return float(released) - (rounds.appr.rank_confidence + 1.0) * rounds.rank_sd < 0.0


def top_round_scores(degrees, W: float, rounds) -> np.ndarray:
    """A top round of the top-first plan: ``min(degree - W, 0)``, ``W`` the released degree of rank
    ``TOP_PICKS``; ``degree - W`` (no cap) when ``W`` is unresolved (:func:`unresolved_degree`): the cap at a
    level set by the noise would tie a hub with every node above ``0.5 sd``. Sensitivity 1 either way."""
    s = np.asarray(degrees, dtype=np.float64) - float(W)
    return s if unresolved_degree(W, rounds) else np.minimum(s, 0.0)


def last_window_edge(W: float, size: float, n: int, rounds) -> float:
    """The lower edge of a window at nominal rank ``size < n`` (``W`` the released degree there): ``W``, but
    in the top-first plan (``rounds.appr.top_first``; its last round) ``W (1 - size / n)`` when ``W`` is
    unresolved (:func:`unresolved_degree`). A resolved edge falls to the smallest degree as the window
    reaches ``n`` nodes; an unresolved one stays at ``0.5 sd`` at every rank, so it is interpolated linearly
    in rank from ``W`` to 0 at rank ``n``, where the window is dropped (public: ``W``, ``size``, ``n``, the
    noise's sd)."""
    if rounds.appr.top_first and unresolved_degree(W, rounds):
        return float(W) * (1.0 - float(size) / float(n))
    return float(W)
