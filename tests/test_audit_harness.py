"""``dpmo.audit``'s brute-force checks against their definitions as plain loops, on random state graphs.

The harness is what the exhaustive sensitivity tests rest on, and its two checks are vectorised over the
distance ``t`` and the candidates (:func:`dpmo.audit.check_admissibility`) and over the states
(:func:`dpmo.audit.local_sensitivity_at_distance`). Here each is compared, value for value and violation for
violation, with the paper's definitions ("Element Local Sensitivity", "Admissibility") evaluated one state,
one neighbour, one ``t`` and one candidate at a time.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmo.audit import Violation, check_admissibility, local_sensitivity_at_distance


@st.composite
def state_graphs(draw):
    """States ``0..S-1``, a neighbour relation (possibly not symmetric, possibly reaching states outside the
    enumerated ones), integer utilities of ``n`` candidates and a delta table ``(state, t, candidate)``."""
    S = draw(st.integers(1, 7))
    extra = draw(st.integers(0, 2))  # states S..S+extra-1: neighbours that are not enumerated
    n = draw(st.integers(1, 3))
    t_max = draw(st.integers(0, 3))
    adj = [draw(st.lists(st.integers(0, S + extra - 1), max_size=4)) for _ in range(S)]
    u = np.array(draw(st.lists(st.integers(-3, 3), min_size=(S + extra) * n, max_size=(S + extra) * n)))
    d = np.array(draw(st.lists(st.integers(0, 4), min_size=(S + extra) * (t_max + 1) * n,
                               max_size=(S + extra) * (t_max + 1) * n)))  # fmt: skip
    u, d = u.reshape(S + extra, n).astype(float), d.reshape(S + extra, t_max + 1, n).astype(float)
    return S, adj, u, d, t_max


def _ls_by_definition(S, adj, u, t_max):
    """``LS(x, 0, r) = max_{y ~ x} |u(x, r) - u(y, r)|``, then ``LS(x, t) = max(LS(x, t - 1), max_{y ~ x,
    y enumerated} LS(y, t - 1))``, one value at a time."""
    n = u.shape[1]
    ls = np.zeros((S, t_max + 1, n))
    for x in range(S):
        for r in range(n):
            ls[x, 0, r] = max([abs(u[x, r] - u[y, r]) for y in adj[x]], default=0.0)
    for t in range(1, t_max + 1):
        for x in range(S):
            for r in range(n):
                ls[x, t, r] = max([ls[x, t - 1, r]] + [ls[y, t - 1, r] for y in adj[x] if y < S])
    return ls


def _violations_by_definition(S, adj, u, d, t_max, atol, cap):
    out = []
    for x in range(S):
        for y in adj[x]:
            for r in range(u.shape[1]):
                gap = abs(u[x, r] - u[y, r])
                if d[x, 0, r] < gap - atol and len(out) < cap:
                    out.append(Violation(1, x, y, 0, r, d[x, 0, r], gap))
            for t in range(t_max):
                for r in range(u.shape[1]):
                    if d[x, t + 1, r] < d[y, t, r] - atol and len(out) < cap:
                        out.append(Violation(2, x, y, t, r, d[x, t + 1, r], d[y, t, r]))
            if len(out) >= cap:
                return out
    return out


@settings(max_examples=150, deadline=None)
@given(state_graphs())
def test_local_sensitivity_at_distance_is_the_definition(case):
    S, adj, u, _, t_max = case
    got = local_sensitivity_at_distance(range(S), lambda x: adj[x], lambda x: u[x], t_max)
    want = _ls_by_definition(S, adj, u, t_max)
    assert sorted(got) == list(range(S))
    for x in range(S):
        assert got[x].shape == (t_max + 1, u.shape[1])
        np.testing.assert_array_equal(got[x], want[x])


@settings(max_examples=150, deadline=None)
@given(state_graphs(), st.integers(1, 6))
def test_check_admissibility_finds_the_violations_of_the_definition(case, cap):
    S, adj, u, d, t_max = case
    got = check_admissibility(
        range(S), lambda x: adj[x], lambda x: u[x], lambda x, t: d[x, t], t_max, max_violations=cap
    )
    assert got == _violations_by_definition(S, adj, u, d, t_max, 1e-12, cap)


def test_the_audits_refuse_what_they_cannot_compare():
    """A NaN utility, delta or dampened score passed both audits silently (NaN comparisons are False, and
    Python's max drops a NaN); a delta of the wrong shape or a negative t_max failed deep inside."""
    from dpmo.audit import check_admissibility, max_dampened_change

    nbrs = lambda x: [x - 1, x + 1]  # noqa: E731
    util = lambda x: np.array([float(x)])  # noqa: E731
    with pytest.raises(ValueError, match="^delta returned a value that is not finite"):
        check_admissibility(range(3), nbrs, util, lambda x, t: np.array([np.nan]), 2)
    with pytest.raises(ValueError, match="^utility returned a value that is not finite"):
        check_admissibility(range(3), nbrs, lambda x: np.array([np.nan]), lambda x, t: np.array([1.0]), 2)
    with pytest.raises(ValueError, match="^dampened returned a value that is not finite"):
        max_dampened_change([0], lambda x: [1], lambda x: np.array([0.0 if x == 0 else np.nan]))
    with pytest.raises(ValueError, match="^delta must return one array per t of one value per candidate"):
        check_admissibility(range(3), nbrs, util, lambda x, t: np.array([1.0, 2.0]), 2)
    with pytest.raises(ValueError, match="^t_max must be a non-negative int"):
        check_admissibility(range(3), nbrs, util, lambda x, t: np.array([1.0]), -1)
    assert max_dampened_change([0], lambda x: [1], lambda x: np.array([])) == 0.0
    assert check_admissibility(range(6), nbrs, util, lambda x, t: np.array([1.0]), 3) == []
