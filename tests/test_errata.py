"""Errata of the paper that are not tied to one application (docs/errata.md), shown by brute force.

Item 8: the shorthand ``u_i^{+t}(x, r) = u_i(x, r) + sum_{j=0}^{t} delta^{u_i}(x, j, r)`` must be read
with the sum; reading it as ``u_i(x, r) + delta^{u_i}(x, t, r)`` makes ``delta^PS`` inadmissible.
Private input: count vectors over 3 record types (databases of up to 8 records), neighbours add or remove one
record. Candidates have two utilities: a count and a TPR-like rate with its admissible closed form.
"""

from __future__ import annotations

import itertools

import numpy as np

import dpmo
from dpmo.audit import check_admissibility

V = 3
COUNT_SETS = [(0,), (1,), (2,), (0, 1), (1, 2)]
RATE_PAIRS = [(0, 1), (1, 0), (1, 2), (2, 0), (0, 2)]
STATES = [c for c in itertools.product(range(9), repeat=V) if sum(c) <= 8]


def neighbours(c):
    for v in range(V):
        yield c[:v] + (c[v] + 1,) + c[v + 1 :]
        if c[v]:
            yield c[:v] + (c[v] - 1,) + c[v + 1 :]


def utilities(c):
    count = np.array([sum(c[j] for j in A) for A in COUNT_SETS], float)
    rate = np.array([c[a] / (c[a] + c[b]) if c[a] + c[b] else 0.0 for a, b in RATE_PAIRS])
    return np.stack([count, rate])  # (m, n)


def deltas(c, t):
    P = np.array([c[a] + c[b] for a, b in RATE_PAIRS], float)
    rate = np.where(P - t <= 1, 1.0, 1.0 / np.maximum(P - t, 1.0))
    return np.stack([np.ones(len(COUNT_SETS)), rate])


def delta_ps_by_sets(c, t, cumulative):
    """The paper's Definition "Admissible Function for Pareto Score", written with sets."""
    U = utilities(c)
    S = sum(deltas(c, j) for j in range(t + 1)) if cumulative else deltas(c, t)
    up, lo = U + S, U - S
    n = U.shape[1]
    out = np.zeros(n)
    for r in range(n):
        for s in range(n):
            if s == r:
                continue
            dominates = np.all(U[:, s] >= U[:, r])
            if dominates and np.any(lo[:, s] <= up[:, r]):
                out[r] += 1  # dom^-: may stop dominating r
            if not dominates and np.all(up[:, s] >= lo[:, r]):
                out[r] += 1  # ndom^+: may start dominating r
    return out


def pareto_scores(c):
    return dpmo.pareto_score(utilities(c).T).astype(float)


def test_cumulative_reading_is_admissible_and_matches_the_library():
    delta = lambda c, t: delta_ps_by_sets(c, t, cumulative=True)  # noqa: E731
    assert check_admissibility(STATES, neighbours, pareto_scores, delta, t_max=4) == []
    for c in STATES[::7]:
        objs = [dpmo.Objective(utilities(c)[i], 1.0, lambda t, c=c, i=i: deltas(c, t)[i]) for i in range(2)]
        f = dpmo.pareto_sensitivity(objs)
        for t in range(4):
            np.testing.assert_array_equal(f(t), delta_ps_by_sets(c, t, cumulative=True))


def test_pointwise_reading_is_not_admissible():
    delta = lambda c, t: delta_ps_by_sets(c, t, cumulative=False)  # noqa: E731
    violations = check_admissibility(STATES, neighbours, pareto_scores, delta, t_max=4)
    assert violations and {v.condition for v in violations} == {2}
