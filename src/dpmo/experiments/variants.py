"""The non-default readings of :mod:`dpmo.experiments.readings`, for the experiments only.

Nothing here is part of the library's API and several variants are **not differentially private** at the
epsilon they are given (they say so): the paper's printed delta^TPR is not admissible (``docs/errata.md``
point 1), and the budget readings spend epsilon several times. They exist to measure which reading the
paper's numbers correspond to. The public estimators and functions of :mod:`dpmo.trees` and
:mod:`dpmo.graphs` take no parameter that reaches them.

* :class:`ReadingMOET`: :class:`dpmo.trees.DPMOETClassifier` whose private picks use another TPR/TNR
  sensitivity function and/or another share of the budget, and whose non-private reference can use Pareto
  dominance;
* :func:`graph_top_k`: :func:`dpmo.graphs.top_k` with another ego-density bound or budget;
* :class:`ReadingID3`: :class:`dpmo.trees.LocalDiffPID3Classifier` with another dampened form, budget per
  level or factor in the exponent;
* :func:`eps_factor`: the factor by which a budget reading multiplies the epsilon of a selection.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .. import LocalSensitivity, Objective, priv_agg
from ..epsilons import exact_epsilon
from ..selection import select_multiobjective
from ..trees import DPMOETClassifier, LocalDiffPID3Classifier, tnr_objective, tpr_objective

__all__ = [
    "eps_factor",
    "printed_rate_objective",
    "published_rate_objective",
    "pareto_dominance_score",
    "ReadingMOET",
    "ReadingID3",
    "ego_bound",
    "graph_top_k",
    "published_agg_objective",
]


def eps_factor(params: dict[str, Any], *, rounds: int = 1, picks: int = 1) -> float:
    """Factor applied to the library's per-pick epsilon by the budget readings of ``params``.

    The library gives a pick ``epsilon / (rounds * picks)`` (a round's share split over its picks).
    ``eps_scale="round"`` gives each round ``epsilon`` (factor ``rounds``), ``"pick"`` each pick
    ``epsilon`` (factor ``rounds * picks``); ``exp_half=False`` doubles it (``exp(eps u / Delta)`` is the
    exponential mechanism with ``2 eps``).
    """
    scale = params.get("eps_scale", "run")
    f = {"run": 1.0, "round": float(rounds), "pick": float(rounds * picks)}[scale]
    return f * (1.0 if params.get("exp_half", True) else 2.0)


# --------------------------------------------------------------------------------------------- TPR/TNR
def _rate_table(hits, total, kind: str) -> tuple[np.ndarray, int]:
    """delta(t) for t = 0 .. T-1 (rows) and every tree (columns) of a non-default rate bound."""
    h = np.asarray(hits, dtype=np.float64)
    s = float(total)
    T = int(s) + 3
    t = np.arange(T, dtype=np.float64)[:, None]
    miss = s - h[None, :]
    # the state t removals away along the path of the printed formula: misses first, then hits
    sp = np.maximum(s - t, 2.0)
    hp = np.maximum(h[None, :] - np.maximum(t - miss, 0.0), 0.0)
    if kind == "printed":
        hp2 = np.maximum(hp, 2.0)
        d = np.where(t <= miss, (sp - hp2) / (sp * (sp - 1.0)), hp2 / (sp * (sp - 1.0)))
    else:  # "published": the largest of six one-step changes of hp / sp
        r = hp / sp
        moves = [
            (hp + 1.0) / (sp + 1.0),  # add a hit
            hp / (sp + 1.0),  # add a miss
            np.where(hp >= 1.0, (hp - 1.0) / np.maximum(sp - 1.0, 1.0), r),  # remove a hit
            np.where(sp - hp >= 1.0, hp / np.maximum(sp - 1.0, 1.0), r),  # remove a miss
            np.where(hp >= 1.0, (hp - 1.0) / sp, r),  # a hit becomes a miss
            np.where(sp - hp >= 1.0, (hp + 1.0) / sp, r),  # a miss becomes a hit
        ]
        d = np.max([np.abs(m - r) for m in moves], axis=0)
    # clipped at 0, made non-decreasing in t (dpmo.dampen refuses a decreasing function), capped at 1
    return np.minimum(np.maximum.accumulate(np.maximum(d, 0.0), axis=0), 1.0), T


def _rate_objective(hits, total, name: str, kind: str) -> Objective:
    table, T = _rate_table(hits, total, kind)

    def local(t, idx=None):
        t = np.minimum(np.asarray(t), T - 1)
        rows = table[t] if t.ndim == 0 else (table[t[:, 0]] if t.ndim == 2 else table[t, np.arange(t.size)])
        if idx is None:
            return rows
        idx = np.asarray(idx)
        return rows[..., idx] if t.ndim != 1 else table[t, idx]

    h = np.asarray(hits, dtype=np.float64)
    values = np.divide(h, float(total), out=np.zeros_like(h), where=float(total) > 0)
    sens = LocalSensitivity(local, name=f"{kind} {name}", vectorized_t=True)
    return Objective(values, 1.0, sens, name=name)


def printed_rate_objective(hits, total, name: str = "TPR") -> Objective:
    """The rate with the paper's PRINTED ``delta^TPR`` (NOT admissible, ``docs/errata.md`` point 1).

    ``(P' - TP') / (P' (P' - 1))`` while ``t <= P - TP``, else ``TP' / (P' (P' - 1))``, with ``P' = max(P -
    t, 2)``, ``TP' = max(TP - max(t - (P - TP), 0), 2)``; clipped at 0 and replaced by its running maximum
    over t (it decreases in places, which :func:`dpmo.dampen` refuses), capped at 1. O(P x trees).
    """
    return _rate_objective(hits, total, name, "printed")


def published_rate_objective(hits, total, name: str = "TPR") -> Objective:
    """The rate with a reconstruction of the published code's bound (admissible in the exhaustive audit
    of ``tests/test_readings.py`` on all states with ``P <= 13``, ``t <= 10``; not proved in general).

    ``docs/errata.md`` reports that the published code takes "the maximum of six one-step changes along one
    path"; we read it as: at distance t, the state reached by removing t records of the class (misses first,
    the printed formula's path), and there the largest change of the rate by adding or removing a hit or a
    miss or switching one between hit and miss; running maximum over t, capped at 1. O(P x trees).
    """
    return _rate_objective(hits, total, name, "published")


def pareto_dominance_score(U) -> np.ndarray:
    """Pareto score with Pareto dominance (``>=`` in every objective, ``>`` in one): identical candidates
    do not dominate each other (the published code's two-objective convention). O(n^2)."""
    U = np.asarray(U, dtype=np.float64)
    geq = np.all(U[None, :, :] >= U[:, None, :], axis=2)
    gt = np.any(U[None, :, :] > U[:, None, :], axis=2)
    return -np.sum(geq & gt, axis=1)


class ReadingMOET(DPMOETClassifier):
    """DP-MOET under readings (experiments only; NOT private with the non-private readings).

    ``reading`` is the experiment's ``params`` dict (keys ``tpr_delta``, ``eps_scale``, ``exp_half``,
    ``ref_dominance``). Everything else is :class:`dpmo.trees.DPMOETClassifier`. Under a budget reading the
    fit's :class:`dpmo.Budget` (``budget_``) is made as large as what the reading spends (``epsilon`` times
    the number of rounds or picks, times 2 without the factor 1/2), so its ledger shows the real cost.
    """

    def __init__(self, epsilon=1.0, *, reading=None, **kw):
        # the paper's DP-MOET: the trees only (no leaf counts), every round's share as _select computes it
        super().__init__(epsilon, **{"leaf_count_share": 0, **kw})
        self.reading = reading

    def _factor_total(self) -> float:
        r = self.reading or {}
        k, s, o = self.n_iterations, self.selection_size, self.n_output
        scale = r.get("eps_scale", "run")
        f = {"run": 1.0, "round": float(k + 1), "pick": float(k * s + o)}[scale]
        return f * (1.0 if r.get("exp_half", True) else 2.0)

    def fit(self, X, y=None, budget=None):
        stated = self.epsilon
        # the decimal the budget records (dpmo.epsilons.exact_epsilon), not the float's binary value: the
        # rounds' exact shares then add up to what the budget holds
        self._stated = None if stated is None else exact_epsilon(stated)
        factor = self._factor_total()
        if stated is None or factor == 1.0:
            return super().fit(X, y, budget)
        self.epsilon = float(stated) * factor * (1.0 + 1e-9)  # slack: the spends below are exact fractions
        try:
            return super().fit(X, y, budget)
        finally:
            self.epsilon = stated

    def _select(self, tp, p, tn, n, count, eps_round, rnd, rng, budget, w):
        r = self.reading or {}
        if eps_round is None:
            if r.get("ref_dominance", "weak") == "pareto" and self.approach == "pareto":
                return self._select_nodp_pareto_dominance(tp, p, tn, n, count, rng)
            return super()._select(tp, p, tn, n, count, eps_round, rnd, rng, budget, w)
        k = self.n_iterations
        # the library's share of this round, times the reading's factor (exact)
        factor = eps_factor(r, rounds=k + 1, picks=count)
        eps_round = self._stated / (k + 1) * Fraction(factor)
        kind = r.get("tpr_delta", "tight")
        if kind == "tight":
            return super()._select(tp, p, tn, n, count, eps_round, rnd, rng, budget, w)
        make = printed_rate_objective if kind == "printed" else published_rate_objective
        objs = [make(tp, p, "TPR"), make(tn, n, "TNR")]
        return super()._select(tp, p, tn, n, count, eps_round, rnd, rng, budget, w, objectives=objs)

    def _select_nodp_pareto_dominance(self, tp, p, tn, n, count, rng):
        rates = np.column_stack([tpr_objective(tp, p).values, tnr_objective(tn, n).values])
        remaining = np.arange(rates.shape[0], dtype=np.intp)
        chosen = []
        for _ in range(count):
            score = pareto_dominance_score(rates[remaining])
            best = np.flatnonzero(score == score.max())
            j = int(best[rng.integers(best.size)]) if best.size > 1 else int(best[0])
            chosen.append(int(remaining[j]))
            remaining = np.delete(remaining, j)
        return np.asarray(chosen, dtype=np.intp)


# --------------------------------------------------------------------------------------------- ID3
class ReadingID3(LocalDiffPID3Classifier):
    """LocalDiffPID3 under readings (experiments only).

    ``form``: ``"shipped"`` (non-negative form, shared curve), ``"plain-own"`` (the criterion <= 0, one
    curve per attribute), ``"plain-shared"``; ``select_factor`` multiplies the epsilon of every attribute
    choice (``exp-no-half``: 2); ``stopping_rule=False`` drops Friedman and Schuster's stopping rule (every
    node above the last depth is split; still private: the noisy count is then simply not used). The
    budget per level is set by the caller through ``epsilon``.
    """

    def __init__(self, epsilon=1.0, *, form="shipped", select_factor=1.0, stopping_rule=True, **kw):
        super().__init__(epsilon, **kw)
        self.form = form
        self.select_factor = select_factor
        self.stopping_rule = stopping_rule

    @property
    def _stopping_rule(self):  # type: ignore[override]
        return self.stopping_rule

    @property
    def _nonnegative(self):  # type: ignore[override]
        return self.form == "shipped"

    @property
    def _shared(self):  # type: ignore[override]
        return self.form != "plain-own"

    def _choose(self, n0, n1, groups, n_groups, eps, n_hat, max_records, rng) -> int:
        return super()._choose(n0, n1, groups, n_groups, eps * self.select_factor, n_hat, max_records, rng)


# --------------------------------------------------------------------------------------------- graphs
def ego_bound(degree, t, kind: str) -> np.ndarray:
    """The paper's printed ego-density bound (``kind="printed"``: ``2 / (d - t - 2)`` if ``d - t > 2``,
    else 1) or the published code's (``"published"``: ``2 / (d - t - 1)``), capped at the global
    sensitivity 1. Both are admissible once capped (each is at least the tight ``2 / (d - t)`` and a
    non-increasing function of ``d - t``), only looser. O(size)."""
    d = np.asarray(degree, dtype=np.float64)
    rest = d - np.asarray(t, dtype=np.float64)
    off = 2.0 if kind == "printed" else 1.0
    with np.errstate(divide="ignore"):
        return np.where(rest > 2.0, np.minimum(2.0 / np.maximum(rest - off, 1e-300), 1.0), 1.0)


_GRAPH_OBJECTIVES: dict[tuple, list] = {}


def _graph_objectives(graph, kind: str, conv: dict[str, Any]) -> list:
    from ..graphs import degree_objective, ego_density_objective

    key = (id(graph), kind, tuple(sorted(conv.items())))
    if key not in _GRAPH_OBJECTIVES or _GRAPH_OBJECTIVES[key][0] is not graph:
        deg = np.asarray(graph.degree)
        ego = ego_density_objective(graph, **conv)

        def local(t, idx=None):
            d = deg if idx is None else deg[np.asarray(idx, dtype=np.intp)]
            return ego_bound(d, t, kind)

        sens = LocalSensitivity(local, name=f"{kind} ego density", vectorized_t=True)
        _GRAPH_OBJECTIVES[key] = [graph, [degree_objective(graph), Objective(ego.values, 1.0, sens)]]
    return _GRAPH_OBJECTIVES[key][1]


def published_agg_objective(graph, weights, conv: dict[str, Any]) -> Objective:
    """``u_agg = w_degree degree + w_ego ego density`` with the published code's weighted local sensitivity as
    ``docs/errata.md`` (point 6) describes it, "the first objective's function added twice":
    ``2 |w_degree| delta^degree + |w_ego| delta^ego``, capped at the global ``|w_degree| + |w_ego|``.
    Admissible (a sum of admissible functions, then capped), only looser than ours. O(n) per evaluation."""
    from ..aggregate import aggregate
    from ..graphs import degree_objective, ego_density_objective

    key = (id(graph), "agg-published", tuple(weights), tuple(sorted(conv.items())))
    if key not in _GRAPH_OBJECTIVES or _GRAPH_OBJECTIVES[key][0] is not graph:
        deg, ego = degree_objective(graph), ego_density_objective(graph, **conv)
        w1, w2 = (float(w) for w in weights)
        loose = aggregate([deg, deg, ego], (w1, w1, w2))  # its local function: 2 |w1| d1 + |w2| d2
        values = w1 * deg.values + w2 * ego.values
        obj = Objective(values, abs(w1) + abs(w2), loose.local, name="u_agg (published sensitivity)")
        _GRAPH_OBJECTIVES[key] = [graph, obj]
    return _GRAPH_OBJECTIVES[key][1]


def graph_top_k(graph, k, epsilon, *, approach, sensitivity, weights, mechanism, rng, params, conv):
    """:func:`dpmo.graphs.top_k` under the readings of ``params`` (original node ids).

    ``eps_scale="pick"`` gives each of the k picks ``epsilon``; ``exp_half=False`` doubles it;
    ``ego_delta`` in ``{"printed", "published"}`` replaces the ego-density bound of the local methods.
    """
    from .. import graphs

    eps = float(epsilon) * eps_factor(params, rounds=1, picks=int(k))
    kind = params.get("ego_delta", "tight")
    if (kind == "tight" and params.get("agg_delta", "tight") == "tight") or sensitivity == "global":
        kw = {"weights": weights} if approach == "agg" else {}
        return np.asarray(
            graphs.top_k(graph, k, eps, approach=approach, sensitivity=sensitivity, mechanism=mechanism,
                         rng=rng, exact=False, **kw, **conv)
        )  # fmt: skip
    kw = dict(k=int(k), sensitivity=sensitivity, mechanism=mechanism, rng=rng, exact=False)
    if kind == "tight" and params.get("agg_delta") == "published" and approach == "agg":
        idx = priv_agg([published_agg_objective(graph, weights, conv)], (1.0,), eps, **kw)
        return np.asarray(graph.ids)[np.asarray(idx, dtype=np.intp)]
    objs = _graph_objectives(graph, kind, conv)
    if approach == "chebyshev":  # the graph method's public settings, as graphs.top_k uses them
        from ..graphs.chebyshev import graph_chebyshev_approach

        approach = graph_chebyshev_approach(graph.n_nodes, int(k))
    idx = select_multiobjective(objs, eps, approach=approach, weights=weights, what="top_k", **kw)
    return np.asarray(graph.ids)[np.asarray(idx, dtype=np.intp)]
