"""PrivChebyshev on graphs: k nodes spread along the (degree, ego density) front, epsilon-edge-DP.

:func:`dpmo.graphs.top_k` with ``approach="chebyshev"`` runs the selection pipeline
(:func:`dpmo.select_multiobjective`) with the data-adaptive private staircase of this module
(:class:`GraphStaircaseApproach`, :func:`graph_staircase_approach`): its releases, windows and rounds, every
setting a public rule or constant of :mod:`dpmo.graphs.staircase_rules`. With fixed directions, aspirations
or shares it runs :func:`dpmo.priv_chebyshev` with the settings of :mod:`dpmo.graphs.chebyshev_fixed`
(re-exported here: :func:`graph_chebyshev_settings`, :func:`graph_chebyshev_approach`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._validation import check_int
from ..chebyshev import dampened_excess
from ..mechanisms.exact import sample_discrete_laplace
from ..mechanisms.exact.bits import RandomBits
from ..staircase import (
    StaircaseApproach,
    StaircaseRounds,
    discrete_laplace_sd,
    local_lower_bounds,
    release_share_for,
)
from ..steps import Step
from .chebyshev_fixed import (
    DEGREE_ROUND_SHARE,
    chebyshev_round_scores,
    graph_chebyshev_approach,
    graph_chebyshev_settings,
    top_k_chebyshev,
)
from .hypervolume_rounds import (
    AREA_GAIN_SENSITIVITY,
    blend_weight,
    capped_area_gains,
    duplicate_cap_weight,
    duplicate_tie_term,
    ego_from_dampened,
    one_pick_round,
    point_box,
)
from .round_one import hub_threshold, weak_round_epsilon
from .staircase_corners import corner_scores, outranked_edge
from .staircase_rules import (
    CORNER_TIE,
    DEGREE_MARGIN,
    FIRST_ROUND,
    PICK_CONFIDENCE,
    PICK_SHARE,
    QUANTILE_SHARE,
    RANK_CONFIDENCE,
    SIGNAL_SHARE,
    TOP_PICKS,
    TOP_QUANTILE_SHARE,
    WINDOW_FIRST,
    WINDOW_GAP,
    degree_margin,
    degree_ranks,
    ego_signal_statistic,
    ego_window_for,
    last_window_edge,
    pick_quantum,
    signal_quantum,
    signal_threshold,
    tie_weight,
    top_first_probability,
    top_pick_epsilon,
    top_round_scores,
    window_last,
    window_log_size,
    with_top_degree,
)

__all__ = [
    "DEGREE_ROUND_SHARE", "graph_chebyshev_settings", "graph_chebyshev_approach",
    "graph_staircase_approach", "GraphStaircaseApproach", "top_first_probability", "degree_ranks",
    "ego_from_dampened", "top_k_chebyshev", "chebyshev_round_scores", "tie_weight", "degree_margin",
    "pick_quantum",
]  # fmt: skip


class _GraphStaircaseRounds(StaircaseRounds):
    """Staircase rounds on (degree, ego density), releases and windows of :class:`GraphStaircaseApproach`."""

    def __init__(self, objectives, sensitivity, keep, appr):
        super().__init__(objectives, sensitivity, np.zeros(2), appr.confidence, keep)
        self.appr, self.round, self.ranks = appr, 0, degree_ranks(objectives[0].n)
        self.degrees_at_ranks = None  # released degrees of the ranks (upper confidence bounds)
        self.signal, self.threshold = None, 0.0  # released floor(q max D_ego) / q (the staircase plan only)
        self.boxes: list[tuple[float, float]] = []  # released (degree+, ego density-) of picks, no margin
        self.q, self.pick_sd = 1, 0.0  # the last pick release's grid (pick_quantum) and degree noise sd
        self.picks: list[int] = []  # the released picks' nodes, in the order of self.points (public)
        self.covers: list[float] = []  # released pick degree + 1 sd, at most its corner (with_top_degree)
        self.taken: list[int] = []  # the picks so far (public), set by scores() for margin()

    def release(self, r, chosen, epsilon, rng):
        """Discrete Laplace releases, basic composition. Before round 1: the degrees of the ranks (L1
        sensitivity 2, ``x = eps_a / 2``) and ``floor(q max D_ego)`` (sensitivity ``q``, ``x = eps_b / q``),
        ``eps_a : eps_b = QUANTILE_SHARE : SIGNAL_SHARE`` (without the signal: the base class's release).
        Before round ``r >= 1``: the previous pick's degree (sensitivity 1, ``x = eps / 2``) and ``floor(q
        D_ego)`` (sensitivity ``q``, ``x = eps / (2 q)``, ``q = pick_quantum(eps / 2)``): ``1 x_a + q x_b =
        eps``."""
        if r != 0:
            x_a = Fraction(epsilon) / 2  # degree: sensitivity 1
            self.q = pick_quantum(float(x_a))  # public: the step's epsilon
            x_b = x_a / self.q  # floor(q D_ego): sensitivity q
            stat = self.statistic(r, chosen)
            if self.q == 1:  # x_b = x_a: one call of two draws (the former release, draw for draw)
                noise = sample_discrete_laplace(2, x_a, rng)
            else:  # (int64, or Python ints below x = 45 / 2^62)
                noise = np.concatenate([sample_discrete_laplace(1, x, rng) for x in (x_a, x_b)])
            return self.receive(r, chosen, stat + noise, float(x_a))
        if not self.appr.uses_signal():
            return super().release(r, chosen, epsilon, rng)
        eps = Fraction(epsilon)
        qs, ss = Fraction(self.appr.quantile_share), Fraction(self.appr.signal_share)
        x_a, e_b = eps * qs / (qs + ss) / 2, eps * ss / (qs + ss)
        stat = self.statistic(0, chosen)
        self.receive(0, chosen, stat + sample_discrete_laplace(stat.size, x_a, rng), float(x_a))
        n = self.objectives[0].n
        self.threshold = self.appr.round_one_threshold(n, float(eps))
        q = signal_quantum(self.threshold)  # the grid 1 / q is finer than the threshold
        D = dampened_excess(self.objectives[1], 0.0, self.sensitivity, self._cache, 1)
        noisy = ego_signal_statistic(q * D) + int(sample_discrete_laplace(1, e_b / q, rng)[0])
        self.signal = (noisy + 0.5) / q  # the floor loses half a step on average
        lead = float(np.ptp(self.degrees_at_ranks[:2]))  # released rank 1 over rank 2: the hub rule
        self.threshold = hub_threshold(self.threshold, n, lead, self.appr.round_one_epsilon(float(eps)))

    def weak_signal(self) -> bool:
        """True in round 1 when the released ego signal is below round 1's threshold (public:
        :meth:`GraphStaircaseApproach.round_one_threshold`, raised by :func:`hub_threshold` on a hub graph).
        Round 1 then takes the largest degree."""
        return self.round == 0 and self.signal is not None and self.signal < self.threshold

    def begin(self, r, epsilon):
        self.round, self.epsilon = r, epsilon

    def reallocate(self, r, parts):
        """Round 1's unneeded epsilon to round 2 (asked after each release; None keeps the plan); in the
        top-first plan, the top rounds' to the last round (:meth:`_top_first_parts`). A weak round 1
        (:meth:`weak_signal`) puts the largest degree ``lead = W_1 - W_2`` released edges above every other
        node and runs at :func:`weak_round_epsilon` ``(n, lead, part)`` when below its part, round 2 at its
        part plus the rest. Pure epsilon-DP only (never with ``delta > 0``): adaptive composition, every path
        summing to epsilon exactly (``docs/pareto.md``, "With change 1"). Public: plan, ``n``, releases."""
        if r != 0 or len(parts) < 2 or self.degrees_at_ranks is None or self.degrees_at_ranks.size < 2:
            return None
        if self.appr.top_first:
            return self._top_first_parts(parts)
        if not (self.signal is not None and self.signal < self.threshold):  # round 1 is not the weak one
            return None
        lead = float(self.degrees_at_ranks[0] - self.degrees_at_ranks[1])
        need = Fraction(round(weak_round_epsilon(self.objectives[0].n, lead, float(parts[0])) * 1000), 1000)
        if need >= parts[0]:
            return None
        return [need, parts[1] + (parts[0] - need), *parts[2:]]

    def _top_first_parts(self, parts):
        """The top-first plan's parts after the ranks' release: each top round at :func:`top_pick_epsilon`
        (the nodes from the last round's upper edge down weigh at most ``1 / n`` of a node at the released
        degree of rank :data:`TOP_PICKS`) when that is below its planned part, the rest to the last round,
        the exact sum unchanged (None: the plan). Public: the plan, ``n``, the released degrees."""
        n, a = self.objectives[0].n, self.appr
        edge = ego_window_for(n, a.ego_window)[0]
        e = top_pick_epsilon(self.ranks, self.degrees_at_ranks, float(a.top_picks), edge, n)
        if not math.isfinite(e):
            return None
        need = Fraction(round(e * 1000), 1000)
        new = [min(p, need) for p in parts[: a.top_picks]]
        if new == list(parts[: a.top_picks]):
            return None
        rest = sum(parts[: a.top_picks], Fraction(0)) - sum(new, Fraction(0))
        return [*new, *parts[a.top_picks : -1], parts[-1] + rest]

    def quantum(self) -> int:
        """``q = pick_quantum(eps_b)`` of the last pick release (``floor(q D_ego)``, sensitivity ``q``, with
        half the step's epsilon ``eps_b``): a grid step of one to two noise scales."""
        return self.q

    def release_spec(self, r, chosen):
        if r == 0 and not self.appr.uses_signal():
            return f"degrees of ranks {self.ranks.tolist()} (sorted degree sequence)", 2.0, self.ranks.size
        if r == 0:  # two parts of the step's epsilon (see release): sensitivity 2 (x = eps_a / 2) and q
            return (
                f"degrees of ranks {self.ranks.tolist()} (sorted degree sequence; sensitivity 2) and "
                "floor(q x largest dampened ego density) (sensitivity q), epsilon split "
                f"{self.appr.quantile_share}:{self.appr.signal_share}",
                2.0,
                self.ranks.size + 1,
            )
        # two parts, each of sensitivity 1 in its own unit (edges; D_ego on the grid 1 / q): see release
        return (
            f"degree (sensitivity 1, x = eps / 2) and floor(q x dampened ego density) (sensitivity q, "
            f"x = eps / (2 q), q = pick_quantum(eps / 2)) of pick {len(chosen)}, epsilon split 1:1",
            1.0,
            2,
        )

    def statistic(self, r, chosen):
        deg = self.objectives[0].values
        if r == 0:  # one edge moves the sorted degree sequence by at most 2 in L1 (Hay et al. 2009)
            return np.sort(np.asarray(deg, dtype=np.int64))[::-1][self.ranks - 1]
        p = chosen[-1]  # its degree (moves by at most 1) and floor(q D_ego) (moves by at most q)
        D = dampened_excess(self.objectives[1], 0.0, self.sensitivity, self._cache, 1)
        qD = min(max(self.quantum() * float(D[p]), -(2.0**62)), 2.0**62)
        return np.array([int(deg[p]), math.floor(qD)], dtype=np.int64)

    def receive(self, r, chosen, noisy, x):
        """Post-processing of a release (public: the noisy integers, ``x``). Round 0: the ranks' degrees.
        Round ``r >= 1``: a pick's ``(degree, floor(q D_ego))``, ``x = eps / 2`` the degree part's parameter
        (the ego part's ``x / q``, ``q = pick_quantum(x)``); its corner and box read ``D_ego`` at the lower
        edge of the released cell, ``v / q`` (at negligible noise within a step below: never over-covers)."""
        sd = discrete_laplace_sd(x)
        v = np.asarray(noisy, dtype=np.float64)
        if r == 0:  # post-processing: non-increasing in the rank, >= 0, then an upper confidence bound
            self.degrees_at_ranks = np.maximum(np.minimum.accumulate(v), 0.0) + self.appr.rank_confidence * sd
            self.rank_sd = sd  # public: the noise's sd, for unresolved_degree
            return
        self.q = q = pick_quantum(x)
        self.pick_sd = sd
        sd_ego = discrete_laplace_sd(x / q) / q  # the ego part's noise, in D_ego units
        d_high = max(v[0] + self.confidence * sd, 1.0)
        D_low = v[1] / q - self.confidence * sd_ego
        margin = degree_margin(self.appr.degree_margin, sd)
        if self.sensitivity == "local":
            # the inverse of dampening at min(d+, n - 1), still an upper bound of the pick's degree: its work
            # is at most n whatever the noise (at d+ ~ 1 / epsilon it took 7.5 GB at 1e-7, issue 41)
            d_cap = min(d_high, max(self.objectives[0].n - 1.0, 1.0))
            ego_low = ego_from_dampened(D_low, d_cap, self.appr.formula)
        else:  # the dampened excess is the ego density itself (global sensitivity 1)
            ego_low = D_low
        self.points.append(np.array([margin * d_high, min(max(ego_low, 0.0), 1.0)]))
        self.covers.append(min(margin * d_high, d_high + sd))
        self.picks.append(int(chosen[-1]))
        self.boxes.append(point_box(v, q, self.objectives[0].n, self.sensitivity, self.appr.formula))

    def corners(self):
        return local_lower_bounds(self.points, self.floor)

    def scores(self, chosen, remaining):
        """``min(max_l min_i D_i(r, l_i), degree(r) - W)``: corners in the objectives' units (the dampened
        excesses are recomputed for each released corner; those over 0 are kept across calls), blended with
        the hypervolume gain (:meth:`blend`), ordered by the tie rule. The top-first plan's top rounds:
        :func:`top_round_scores`; ego rounds: :func:`with_top_degree`; ``k = 1``: :func:`one_pick_round`."""
        if self.appr.k == 1:  # one round, all of epsilon, no release (begin() set the epsilon)
            return self.tie_break(one_pick_round(self, remaining), remaining), 1.0
        if self.appr.top_first and self.round < self.appr.top_picks:
            deg = self.objectives[0].values[remaining].astype(np.float64)
            s = top_round_scores(deg, self._degree_at(float(self.appr.top_picks)), self)
            return self.tie_break(s, remaining), 1.0
        if self.weak_signal():  # no ego round can find the dense end: the top degree
            deg = self.objectives[0].values[remaining].astype(np.float64)
            return self.tie_break(np.minimum(deg - self._degree_at(1.0), 0.0), remaining), 1.0
        s = self._corner_scores()
        for i in range(2):
            key = (i, 0.0, self.sensitivity)
            if key in self._cache:
                self._keep.setdefault(key, self._cache[key])
        t, self.taken = blend_weight(remaining.size, self.epsilon), list(chosen)
        s = self.margin(s[remaining], remaining)
        if self.round > 0 or self.signal is None:  # the largest degree on offer until picked (k = 3)
            s = with_top_degree(s, self.objectives[0].values, remaining, self.epsilon, self.appr, self)
        s = self.blend(s, remaining, t)
        return self.tie_break(s, remaining, t), 1.0

    def blend(self, corner_scores, remaining, t):
        """``(1 - t) g / AREA_GAIN_SENSITIVITY + t corner_scores``, ``t = blend_weight(n_left, eps_j)``
        (:mod:`dpmo.graphs.hypervolume_rounds`): ``g`` the area each remaining node adds to the released
        picks' boxes (public: :attr:`boxes`), of sensitivity 2, so both parts have sensitivity 1 and so does
        the blend. ``t = 1`` (the corner score alone) while the round's epsilon is below
        ``2 (ln n_left + 1)``."""
        if t >= 1.0:
            return corner_scores
        deg = self.objectives[0].values[remaining]
        ego = self.objectives[1].values[remaining]
        caps = self.objectives[0].values[self.picks] if self.appr.pick_cap else []  # duplicates' gains
        g = capped_area_gains(self.boxes, deg, ego, caps, duplicate_cap_weight(self.pick_sd))
        return (1.0 - t) * g / AREA_GAIN_SENSITIVITY + t * corner_scores

    def _corner_scores(self) -> np.ndarray:
        """:func:`~dpmo.graphs.staircase_corners.corner_scores` at the released corners (``CORNER_TIE``), a
        node's excess at a pick's corner coordinate capped by exact degree comparisons with that pick (unless
        ``appr.pick_cap`` is False): sensitivity 1 (``docs/pareto.md``, "A pick's duplicates capped at its
        corners")."""
        ok = self.appr.pick_cap and len(self.picks) == len(self.points)  # else points not from releases
        picks = self.picks if ok else None
        return corner_scores(
            self.objectives, self.corners(), self.sensitivity, self._cache, CORNER_TIE, self.points, picks
        )

    def tie_break(self, scores, remaining, t: float = 1.0):
        """The tie rule: ``(s + rho (D_deg + D_ego) + a) / (1 + 2 rho + b)``, ``rho = t^(1/4) tie_weight(n)``
        (``t`` the round's :func:`blend_weight`), ``D_i`` the dampened objectives over the floor 0, ``a`` the
        picks' :func:`duplicate_tie_term` of sensitivity ``b`` (0 unless ``t < 1`` and the noise is
        negligible). The numerator moves by at most the divisor: sensitivity 1. Strictly increasing under
        Pareto dominance; at negligible noise a pick's duplicates lead the nodes the picks dominate
        (``docs/pareto.md``, "Pareto-consistent picks", "Duplicates of the picks at negligible noise")."""
        rho = t**0.25 * tie_weight(self.objectives[0].n)
        D = self.dampened()[:, remaining]
        a, b = duplicate_tie_term(self, remaining, t)
        return (scores + rho * (D[0] + D[1]) + a) / (1.0 + 2.0 * rho + b)

    def margin(self, scores, remaining):
        W, deg = self._window(), self.objectives[0].values[remaining]
        out = scores if W is None else np.minimum(scores, deg - W)
        if self.appr.top_first and self.degrees_at_ranks is not None:  # the upper edge of the last round
            high = ego_window_for(self.objectives[0].n, self.appr.ego_window)[0]
            if high < self.objectives[0].n:  # lifted for nodes above a top pick's degree (outranked_edge)
                top = self.taken[: self.appr.top_picks] if self.appr.outrank_edge else []
                edge = outranked_edge(self._degree_at(high), self.objectives[0].values, remaining, top)
                out = np.minimum(out, edge)
        return out

    def _degree_at(self, rank: float) -> float:
        """The released degree (upper confidence bound) at ``rank``, interpolated in log rank (public)."""
        return float(np.interp(math.log(rank), np.log(self.ranks.astype(np.float64)), self.degrees_at_ranks))

    def _window(self) -> float | None:
        """Lower degree edge of this round's window (public: the released degrees and the round's
        epsilon), or None when the window holds every node."""
        if self.degrees_at_ranks is None or self.epsilon is None:
            return None
        n = self.objectives[0].n
        log_size = window_log_size(self.appr, n, self.round, self.epsilon)
        if log_size >= math.log(n):
            return None
        return last_window_edge(self._degree_at(math.exp(log_size)), math.exp(log_size), n, self)


class GraphStaircaseApproach(StaircaseApproach):
    """The data-adaptive PrivChebyshev of ``graphs.top_k(approach="chebyshev")``, for ``k`` picks.

    Its plan (:meth:`steps`): a release of the degrees at the ranks :func:`degree_ranks` (share
    :data:`QUANTILE_SHARE`), round 1, then for each later pick a release of the previous pick's degree and
    dampened ego density (:meth:`release_share_at`) and a round. Round ``j`` is the staircase round
    (:mod:`dpmo.staircase`) on (degree, ego density), its corners from the released picks (degree: the
    upper confidence bound times :data:`DEGREE_MARGIN`; ego density: the lower confidence bound), bounded by
    a window on degree, ``min(s_j, degree - W_j)``, with ``W_j`` the released degree at rank
    ``start_j exp(epsilon_j WINDOW_GAP / 2)`` (:meth:`window_starts`, from ``n`` and ``k``; no bound once that
    rank reaches ``n``). Every setting is a public constant or a function of ``n``, ``k``, the epsilon of the
    step and released values. Once a round's epsilon exceeds ``2 (ln n_left + 1)`` its score blends in the
    hypervolume gain over the released picks' boxes (:mod:`dpmo.graphs.hypervolume_rounds`): as epsilon grows
    the picks become the greedy hypervolume picks of the exact objectives.

    ``top_first=True`` (``k = 3``; ``epsilon``, the call's, required): the *top-first plan* instead. A
    release of the degrees at the ranks (:data:`TOP_QUANTILE_SHARE`); :data:`TOP_PICKS` rounds planned at
    :meth:`top_round_share` each, scoring ``min(degree - W, 0)`` (``W`` the released degree of rank
    ``TOP_PICKS``): the highest degrees, nearly free; then one round with the rest of epsilon, the
    staircase round at the floor ``(0, 0)``, ``min(degree, D_ego)``, in the window of degree ranks
    :func:`ego_window_for` (no release between rounds). With pure epsilon-DP each top round runs at
    :func:`top_pick_epsilon` of the released degrees when that is less, the rest going to the last round
    (:meth:`_GraphStaircaseRounds.reallocate`); a node above a top pick's degree is not kept from the last
    round (:func:`~dpmo.graphs.staircase_corners.outranked_edge`).
    """

    name = "staircase"

    def __init__(self, k: int, formula: str = "paper", *, top_first: bool = False, epsilon=None):
        super().__init__(release_share=None, confidence=PICK_CONFIDENCE)
        self.score = "corners"  # the generic staircase's non-private utility on released corners (issue 38)
        self.k, self.formula = check_int(k, "k"), formula
        if top_first and (self.k != TOP_PICKS + 1 or epsilon is None or not float(epsilon) > 0.0):
            raise ValueError(
                f"top_first=True takes k = {TOP_PICKS + 1} and the call's epsilon > 0, got k={k!r}, "
                f"epsilon={epsilon!r}"
            )
        self.top_first, self.epsilon = bool(top_first), None if epsilon is None else float(epsilon)
        self.top_quantile_share, self.ego_window = TOP_QUANTILE_SHARE, None  # None: ego_window_for's rule
        self.quantile_share, self.first_round, self.signal_share = QUANTILE_SHARE, FIRST_ROUND, SIGNAL_SHARE
        self.window_first, self.window_gap, self.top_picks = WINDOW_FIRST, WINDOW_GAP, TOP_PICKS
        self.degree_margin, self.rank_confidence = DEGREE_MARGIN, RANK_CONFIDENCE
        # staircase_corners' pick_degree_caps and outranked_edge on (False: the former rounds, for audits)
        self.pick_cap, self.outrank_edge = True, True

    def release_share_at(self, k: int) -> float:
        """A pick release's share: :func:`~dpmo.staircase.release_share_for`, :data:`PICK_SHARE` at k = 3."""
        return release_share_for(k, PICK_SHARE, self.quantile_share)

    def rounds_part(self, signal: bool = False) -> float:
        """What the releases (with the ego signal's when ``signal``) leave to the rounds (public)."""
        extra = self.signal_share if signal else 0.0
        return 1.0 - self.quantile_share - extra - (self.k - 1) * self.release_share_at(self.k)

    def window_starts(self, n: int) -> np.ndarray:
        """Each round's window at epsilon -> 0 on ``n`` nodes: ``WINDOW_FIRST`` to :func:`window_last` nodes,
        geometrically (public: ``n``, ``k``)."""
        j = np.arange(self.k) / max(self.k - 1, 1)
        return self.window_first * (window_last(n, self.k) / self.window_first) ** j

    def uses_signal(self) -> bool:
        """Whether the staircase plan releases the ego signal (:data:`SIGNAL_SHARE` of epsilon, with the
        degrees of the ranks): for ``k >= 2``, when the call's epsilon is known and round 1's window opens to
        at least ``e^2`` times its start (``eps_1 WINDOW_GAP / 2 >= 2``, ``eps_1`` round 1's epsilon in the
        plan with the release; 22 nodes for the start 3) -- below, round 1 stays among the top degrees
        whatever the signal, and the plan is the one without it (public: ``k``, epsilon, the shares)."""
        if self.top_first or self.epsilon is None or self.k < 2:
            return False
        w = self.round_weights()
        return self.epsilon * self.rounds_part(True) * float(w[0] / w.sum()) * self.window_gap / 2.0 >= 2.0

    def window_scale(self) -> float:
        """``left_0 / left``: the windows open with the round epsilons of the plan without the signal release
        (the rounds' part ``left_0 = 1 - QUANTILE_SHARE - (k - 1) PICK_SHARE`` over the part ``left`` they
        have), so that the release changes the rounds' budget but not where their windows stand (public)."""
        if not self.uses_signal():
            return 1.0
        return self.rounds_part() / self.rounds_part(True)

    def round_one_epsilon(self, epsilon_step: float) -> float:
        """Round 1's epsilon in the staircase plan, from the epsilon of its first release (public)."""
        plan = self.steps(self.k, 2)
        if len(plan) < 2:
            raise ValueError("k = 1 has one round and no release before it: round 1's window needs k >= 2")
        return epsilon_step * plan[1].share / plan[0].share

    def round_one_candidates(self, n: int, epsilon_step: float) -> int:
        """How many nodes round 1 searches: its window's nominal rank ``WINDOW_FIRST exp(eps_1 window_scale
        WINDOW_GAP / 2)``, at most ``n`` (public: ``n``, the plan, the step's epsilon)."""
        eps1 = self.round_one_epsilon(epsilon_step)
        log_size = window_log_size(self, n, 0, eps1)
        return int(n) if log_size >= math.log(max(int(n), 2)) else max(2, int(math.ceil(math.exp(log_size))))

    def round_one_threshold(self, n: int, eps_step: float) -> float:
        """:func:`signal_threshold` of round 1: the lead it needs over the nodes it searches (public; the
        release raises it on a hub graph, :func:`~dpmo.graphs.round_one.hub_threshold`)."""
        return signal_threshold(self.round_one_candidates(n, eps_step), self.round_one_epsilon(eps_step))

    def round_weights(self) -> np.ndarray:
        """Relative shares of the rounds: ``FIRST_ROUND`` for round 1, the rest in proportion to 1, 2, ..."""
        if self.k == 1:
            return np.ones(1)
        w = np.arange(self.k, dtype=np.float64)
        w[1:] *= (1.0 - self.first_round) / w[1:].sum()
        w[0] = self.first_round
        return w

    def top_round_share(self) -> float:
        """The planned share of each top round of the top-first plan: round 1's share in the staircase plan
        without the signal release, ``FIRST_ROUND (1 - QUANTILE_SHARE - (k - 1) PICK_SHARE)`` (0.1275 at
        ``k = 3``). A top round does what round 1 of that plan does on its weak path (the largest degree by
        ``min(degree - W, 0)``) and is planned at no more; with pure epsilon-DP it runs at
        :func:`top_pick_epsilon` of the released degrees when that is less (public: the plan's shares)."""
        w = self.round_weights()
        return float(w[0] / w.sum() * self.rounds_part())

    def reallocable_share(self, k: int, m: int) -> float:
        """The most of epsilon the top-first plan's reallocation can move: its top rounds' parts (0.255 at
        ``k = 3``); 0 for the staircase plan (its round-1 move is only on the weak path). With ``delta > 0``
        a plan runs as pure epsilon-DP when the accountant adds less (:func:`dpmo.calls.delta_for_plan`;
        ``docs/privacy-accounting.md``, "Plans that reallocate"). Public: the plan."""
        plan = self.steps(k, m)
        if not self.top_first:
            return 0.0
        return float(sum(st.share for st in plan if st.kind == "round" and st.round < self.top_picks))

    def steps(self, k: int, m: int):
        if m != 2 or k != self.k:
            raise ValueError(f"this approach was made for k = {self.k} picks over the 2 graph objectives")
        if self.top_first:  # the ranks' release, TOP_PICKS top rounds, one round with the rest
            top = self.top_round_share()
            plan = [Step("release", 0, self.top_quantile_share, "laplace")]
            plan += [Step("round", j, top, None) for j in range(self.top_picks)]
            last = 1.0 - self.top_quantile_share - self.top_picks * top
            return (*plan, Step("round", self.top_picks, last, None))
        if self.k == 1:  # one round, no release (one_pick_scores)
            return (Step("round", 0, 1.0, None),)
        signal = self.uses_signal()
        first, left = self.quantile_share + (self.signal_share if signal else 0.0), self.rounds_part(signal)
        w = self.round_weights()
        w = w / w.sum()
        plan = [Step("release", 0, first, "laplace"), Step("round", 0, float(w[0] * left), None)]
        share = self.release_share_at(k)
        for j in range(1, k):
            plan.append(Step("release", j, share, "laplace"))
            plan.append(Step("round", j, float(w[j] * left), None))
        return tuple(plan)

    def round_shares(self, k: int, m: int):
        self.steps(k, m)  # checks k and m
        return None

    def rounds(self, objectives, weights, sensitivity, cache):
        keep = {} if cache is None else cache.slot(("staircase", sensitivity), dict)
        return _GraphStaircaseRounds(objectives, sensitivity, keep, self)


def graph_staircase_approach(
    n: int, k: int, formula: str = "paper", *, epsilon=None, rng=None
) -> GraphStaircaseApproach:
    """The data-adaptive default of ``graphs.top_k(approach="chebyshev")`` for ``k`` picks on ``n`` public
    nodes at the call's ``epsilon`` (:class:`GraphStaircaseApproach`): the top-first plan with
    :func:`top_first_probability`, else (always when ``epsilon`` is None) the staircase. The coin, when
    needed (``0 < p < 1``), is drawn from ``rng`` (None: the OS's secure source), independent of the data."""
    p = 0.0 if epsilon is None else top_first_probability(epsilon, k)  # both check k (check_int)
    top_first = p >= 1.0 or (p > 0.0 and RandomBits(rng).getrandbits(53) < p * 2.0**53)
    return GraphStaircaseApproach(k, formula, top_first=top_first, epsilon=epsilon)
