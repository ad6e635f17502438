"""Exact privacy audit of PrivPareto and PrivAgg over ALL small databases.

Private input: a multiset of records over a universe of ``V = 3`` record types, stored as its count vector
``c = (c_0, c_1, c_2)``. Neighbouring relation: add or remove one record (one count changes by 1, counts
stay >= 0). Five candidates, each with up to three utilities that are real queries on the counts:

* ``count``: ``u(c, r) = sum_{j in A_r} c_j`` (a counting query), ``Delta = 1`` and ``delta(c, t, r) = 1``;
* ``rate``: ``u(c, r) = c_a / (c_a + c_b)`` for a pair ``(a, b)`` of types (0 when ``c_a + c_b = 0``), a
  TPR-like ratio with ``Delta = 1`` and the closed-form admissible function of ERRATA point 1,
  ``delta(c, t, r) = 1 if P - t <= 1 else 1 / (P - t)`` with ``P = c_a + c_b``;
* ``cost``: ``u(c, r) = -c_{j_r}`` (an objective to be minimised), ``Delta = 1``, ``delta = 1``.

Each objective's function is first checked against the brute-force element local sensitivity at
distance t (``dpmo.audit.local_sensitivity_at_distance``). The Pareto and aggregate functions are then
audited twice: built on the closed forms, and built on the exact brute-force local sensitivities (the
tightest admissible inputs, which stress the composition the most). For every database in the checked
set and every neighbour: both admissibility conditions of ``delta^PS`` and ``delta^agg``,
``|D(x, r) - D(y, r)| <= 1``, and ``max_r |log P_x(r) - log P_y(r)| <= epsilon`` for the exponential mechanism
and permute-and-flip, local and global, plus the two-round (k = 2) composition of PrivPareto. The
``-block`` configurations mark the objectives ``vectorized_t``, so that ``delta^PS`` and the dampening loop
run on blocks of distances (the code path DP-MOET uses); the audit covers that path too.
"""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest

import dpmo
from dpmo.audit import check_admissibility, local_sensitivity_at_distance, max_dampened_change, max_log_ratio
from dpmo.mechanisms import probabilities_by_row
from dpmo.pareto import pareto_selection_scores
from pareto_paths import PATHS, force_counting_path

agg_mod = importlib.import_module("dpmo.aggregate")

V = 3
N_CHECK = 7  # databases of up to 7 records are audited (120 of them)
T_MAX = 5  # admissibility condition 2 checked for t < T_MAX
N_TABLE = N_CHECK + T_MAX + 3  # enumeration for the exact local sensitivities (margin: exact where used)

COUNT_SETS = [(0,), (1,), (2,), (0, 1), (1, 2)]
RATE_PAIRS = [(0, 1), (1, 0), (1, 2), (2, 0), (0, 2)]
COST_TYPES = [0, 1, 2, 0, 1]
N_CAND = 5


def neighbours(c):
    for v in range(V):
        yield c[:v] + (c[v] + 1,) + c[v + 1 :]
        if c[v]:
            yield c[:v] + (c[v] - 1,) + c[v + 1 :]


def states_up_to(total):
    return [c for c in itertools.product(range(total + 1), repeat=V) if sum(c) <= total]


CHECK = states_up_to(N_CHECK)


def audit_neighbours(score_of, eps_list=(0.5, 4.0)):
    """Exact audit of one round's scores (sensitivity 1) over every database of ``CHECK`` and each of its
    neighbours: ``(largest |score change|, largest log-probability ratio minus epsilon)`` of the exponential
    mechanism and permute-and-flip at each epsilon of ``eps_list`` (shared by the issue-38 audits)."""
    cache = {c: score_of(c) for c in CHECK}
    for c in CHECK:
        for y in neighbours(c):
            if y not in cache:
                cache[y] = score_of(y)
    states = list(cache)
    S = np.array([cache[c] for c in states], dtype=np.float64)
    left, right = _neighbour_pairs(states)
    moved = float(np.abs(S[left] - S[right]).max())
    excess = -np.inf
    for eps in eps_list:
        for mech in ("exponential", "permute_and_flip"):
            lp = probabilities_by_row(S, eps, 1.0, mechanism=mech, log=True)
            excess = max(excess, _largest_log_ratio(lp, left, right) - eps)
    return moved, excess


def _neighbour_pairs(states):
    """Row indices ``(left, right)`` into ``states`` of every database of ``CHECK`` and each neighbour."""
    index = {c: i for i, c in enumerate(states)}
    pairs = [(index[c], index[y]) for c in CHECK for y in neighbours(c)]
    return np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])


def _largest_log_ratio(lp, left, right) -> float:
    """``max`` over the pairs of :func:`dpmo.audit.max_log_ratio` (log inputs) of rows ``left`` and ``right``
    of the log-probabilities ``lp``: 0 where both are ``-inf``, inf where only one is."""
    a, b = lp[left], lp[right]
    with np.errstate(invalid="ignore"):
        diff = np.abs(np.where(np.isneginf(a) & np.isneginf(b), 0.0, a - b))
    return float(np.where(np.isnan(diff), np.inf, diff).max())


def u_count(c):
    return np.array([sum(c[j] for j in A) for A in COUNT_SETS], float)


def u_rate(c):
    return np.array([c[a] / (c[a] + c[b]) if c[a] + c[b] else 0.0 for a, b in RATE_PAIRS])


def u_cost(c):
    return np.array([-c[j] for j in COST_TYPES], float)


def d_one(c, t):
    return np.ones(N_CAND)


def d_rate(c, t):
    P = np.array([c[a] + c[b] for a, b in RATE_PAIRS], float)
    return np.where(P - t <= 1, 1.0, 1.0 / np.maximum(P - t, 1.0))


UTILITIES = {"count": u_count, "rate": u_rate, "cost": u_cost}
CLOSED = {"count": d_one, "rate": d_rate, "cost": d_one}

_TABLES: dict = {}


def exact_tables():
    """Exact element local sensitivity at distance t, by BFS over all databases of up to N_TABLE records."""
    if not _TABLES:
        big = states_up_to(N_TABLE)
        for name, u in UTILITIES.items():
            _TABLES[name] = local_sensitivity_at_distance(big, neighbours, u, t_max=T_MAX + 1)
    return _TABLES


def exact_delta(name):
    tables = exact_tables()[name]

    def delta(c, t):
        # exact for the databases used (their (T_MAX + 1)-balls lie inside the enumeration); beyond T_MAX + 1
        # the global sensitivity 1 keeps the function admissible (condition 2 holds trivially there).
        return tables[c][t] if t <= T_MAX + 1 else np.ones(N_CAND)

    return delta


def block_local(delta, c):
    """``delta(c, .)`` as a ``vectorized_t`` LocalSensitivity: ``t`` of shape (B, 1) gives (B, q) (each row
    computed by the scalar function, so the values are the audited ones; each distance's row computed once,
    ``delta`` being a pure function of ``(c, t)``)."""
    memo: dict[int, np.ndarray] = {}

    def row(s: int) -> np.ndarray:
        if s not in memo:
            memo[s] = np.asarray(delta(c, s))
        return memo[s]

    def f(t, idx=None):
        t = np.asarray(t)
        rows = np.array([row(int(s)) for s in t.reshape(-1)]).reshape(t.shape[:-1] + (N_CAND,))
        if t.ndim == 0:
            rows = np.asarray(delta(c, int(t)))
        return rows if idx is None else rows[..., np.asarray(idx)]

    return dpmo.LocalSensitivity(f, vectorized_t=True)


def objectives(c, names, kind):
    """``kind``: "closed" / "exact" functions; with "-block" they are marked ``vectorized_t``, so delta^PS
    and the dampening loop work on blocks of distances (the block paths of ``dpmo.pareto``)."""
    objs = []
    base, _, block = kind.partition("-")
    for name in names:
        delta = CLOSED[name] if base == "closed" else exact_delta(name)
        local = block_local(delta, c) if block else (lambda t, delta=delta: delta(c, t))
        objs.append(dpmo.Objective(UTILITIES[name](c), 1.0, local, name=name))
    return objs


CONFIGS = [
    (("count", "rate"), "closed"),
    (("count", "rate"), "exact"),
    (("rate", "cost", "count"), "closed"),
    (("rate", "cost", "count"), "exact"),
]
BLOCK_CONFIGS = [
    (("count", "rate"), "closed-block"),
    (("rate", "cost", "count"), "exact-block"),
]
WEIGHTS = {2: [1.0, 3.0], 3: [2.0, -0.5, 1.0]}
EPSILONS = [0.1, 1.0, 5.0]


# ------------------------------------------------------------------------------------------- base functions


@pytest.mark.parametrize("name", sorted(UTILITIES))
def test_base_functions_are_admissible_and_bound_exact_local_sensitivity(name):
    u, d = UTILITIES[name], CLOSED[name]
    assert check_admissibility(CHECK, neighbours, u, d, t_max=T_MAX) == []
    exact = exact_tables()[name]
    for c in states_up_to(N_CHECK + 1):
        for t in range(T_MAX + 1):
            assert np.all(d(c, t) >= exact[c][t] - 1e-12), (name, c, t)
    # and the exact tables are admissible themselves on the audited set
    assert check_admissibility(CHECK, neighbours, u, exact_delta(name), t_max=T_MAX) == []


# ------------------------------------------------------------------------------------------ PrivPareto audit


def pareto_delta(names, kind):
    def delta(c, t):
        f = dpmo.pareto_sensitivity(objectives(c, names, kind))
        if kind.endswith("-block"):
            assert f.vectorized_t
            return f(np.arange(t + 1)[:, None])[-1]  # the last row of the block 0 .. t
        return f(t)

    return delta


def pareto_utility(names):
    def util(c):
        return dpmo.pareto_score(np.column_stack([UTILITIES[n](c) for n in names])).astype(float)

    return util


@pytest.mark.parametrize("names, kind", CONFIGS + BLOCK_CONFIGS)
def test_delta_ps_admissible_on_all_databases(names, kind):
    violations = check_admissibility(
        CHECK, neighbours, pareto_utility(names), pareto_delta(names, kind), T_MAX
    )
    assert violations == []


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["closed", "exact"])
def test_delta_ps_admissible_on_all_databases_on_every_counting_path(monkeypatch, path, kind):
    # the counting paths of delta^PS (chosen by sizes in normal use) forced one by one on the audited
    # databases: both admissibility conditions hold on each (m = 2; "count" has a constant local function,
    # so the sweep path reuses the order of its utility)
    force_counting_path(monkeypatch, path)
    names = ("count", "rate")
    delta = pareto_delta(names, kind)
    assert check_admissibility(CHECK, neighbours, pareto_utility(names), delta, T_MAX) == []


def log_probs(scores_and_sensitivity, eps, mechanism):
    scores, sensitivity = scores_and_sensitivity
    return dpmo.probabilities(scores, eps, sensitivity, mechanism=mechanism, log=True)


def _cached(func):
    store = {}

    def wrapper(c):
        if c not in store:
            store[c] = func(c)
        return store[c]

    return wrapper


def _assert_probability_ratios(local, glob):
    """max |log P_x(r) - log P_y(r)| <= eps over all checked databases and neighbours, both versions."""
    states = list(dict.fromkeys([*CHECK, *(y for c in CHECK for y in neighbours(c))]))
    left, right = _neighbour_pairs(states)
    for version in (local, glob):
        rows = [version(c) for c in states]
        S = np.array([scores for scores, _ in rows], dtype=np.float64)
        sens = np.array([sensitivity for _, sensitivity in rows], dtype=np.float64)
        for mechanism in ("exponential", "permute_and_flip"):
            for eps in EPSILONS:
                lp = np.empty_like(S)
                for value in np.unique(sens):  # one law per sensitivity (the scores' own)
                    at = sens == value
                    lp[at] = probabilities_by_row(S[at], eps, value, mechanism=mechanism, log=True)
                worst = _largest_log_ratio(lp, left, right)
                assert worst <= eps + 1e-9, (mechanism, eps, worst)


@pytest.mark.parametrize("names, kind", CONFIGS + BLOCK_CONFIGS)
@pytest.mark.slow
def test_priv_pareto_dampened_scores_and_probability_ratios(names, kind):
    local = _cached(lambda c: pareto_selection_scores(objectives(c, names, kind), "local"))
    glob = _cached(lambda c: pareto_selection_scores(objectives(c, names, kind), "global"))
    assert max_dampened_change(CHECK, neighbours, lambda c: local(c)[0]) <= 1 + 1e-9
    for c in CHECK:
        assert local(c)[1] == 1.0 and glob(c)[1] == N_CAND - 1
    _assert_probability_ratios(local, glob)


@pytest.mark.parametrize("names, kind", CONFIGS[:2] + BLOCK_CONFIGS[:1])
@pytest.mark.slow
def test_priv_pareto_two_rounds_compose(names, kind):
    """k = 2: P(r1, r2) = P1(r1) P2(r2 | remaining), each round with epsilon / 2 on the candidates left."""
    eps = 1.0

    def joint(c, version):
        objs = objectives(c, names, kind)
        p1 = np.exp(log_probs(pareto_selection_scores(objs, version), eps / 2, "exponential"))
        out = np.zeros((N_CAND, N_CAND))
        for r1 in range(N_CAND):
            rest = np.delete(np.arange(N_CAND), r1)
            sub = [o.take(rest) for o in objs]
            p2 = np.exp(log_probs(pareto_selection_scores(sub, version), eps / 2, "exponential"))
            out[r1, rest] = p1[r1] * p2
        return out

    for version in ("local", "global"):
        table = _cached(lambda c, v=version: joint(c, v))
        worst = 0.0
        for c in CHECK:
            px = table(c)
            assert px.sum() == pytest.approx(1.0)
            for y in neighbours(c):
                py = table(y)
                mask = ~np.eye(N_CAND, dtype=bool)
                worst = max(worst, max_log_ratio(px[mask], py[mask]))
        assert worst <= eps + 1e-9, (version, worst)


def test_block_paths_give_the_audited_values():
    # the block kinds compute exactly the values of the single-distance kinds on every audited database
    for names, kind in BLOCK_CONFIGS:
        base = kind.partition("-")[0]
        for c in CHECK:
            f = dpmo.pareto_sensitivity(objectives(c, names, kind))
            g = dpmo.pareto_sensitivity(objectives(c, names, base))
            assert f.vectorized_t and not g.vectorized_t
            np.testing.assert_array_equal(f(np.arange(T_MAX + 2)[:, None]), [g(t) for t in range(T_MAX + 2)])


def test_priv_pareto_samples_from_the_audited_distribution():
    # the mechanism really is select() on the audited scores: same seed, same output
    c = (3, 1, 2)
    for names, kind in CONFIGS + BLOCK_CONFIGS:
        objs = objectives(c, names, kind)
        for version in ("local", "global"):
            scores, sens = pareto_selection_scores(objs, version)
            for mech in ("exponential", "permute_and_flip"):
                for seed in range(3):
                    got = dpmo.priv_pareto(objs, 0.7, sensitivity=version, mechanism=mech, rng=seed)
                    want = dpmo.select(
                        scores, 0.7, sens, mechanism=mech, rng=seed, exact=True
                    )  # priv_pareto: exact
                    assert np.array_equal(got, want)


# -------------------------------------------------------------------------------------------- PrivAgg audit


def agg_parts(names, kind):
    w = WEIGHTS[len(names)]

    def util(c):
        return dpmo.aggregate(objectives(c, names, kind), w).values

    def delta(c, t):
        return dpmo.aggregate(objectives(c, names, kind), w).sensitivity(t)

    return util, delta


@pytest.mark.parametrize("names, kind", CONFIGS)
def test_delta_agg_admissible_on_all_databases(names, kind):
    util, delta = agg_parts(names, kind)
    assert check_admissibility(CHECK, neighbours, util, delta, T_MAX) == []
    # the global sensitivity bounds every change (Theorem "Upper Bound on the Global Sensitivity ...")
    G = sum(abs(w) for w in WEIGHTS[len(names)])
    assert dpmo.aggregate(objectives((0, 0, 0), names, kind), WEIGHTS[len(names)]).global_sensitivity == G
    for c in CHECK:
        for y in neighbours(c):
            assert np.max(np.abs(util(c) - util(y))) <= G + 1e-12


@pytest.mark.parametrize("names, kind", CONFIGS)
def test_priv_agg_dampened_scores_and_probability_ratios(names, kind):
    w = WEIGHTS[len(names)]
    local = _cached(
        lambda c: agg_mod.aggregate_selection_scores(dpmo.aggregate(objectives(c, names, kind), w), "local")
    )
    glob = _cached(
        lambda c: agg_mod.aggregate_selection_scores(dpmo.aggregate(objectives(c, names, kind), w), "global")
    )
    assert max_dampened_change(CHECK, neighbours, lambda c: local(c)[0]) <= 1 + 1e-9
    _assert_probability_ratios(local, glob)


def test_priv_agg_samples_from_the_audited_distribution():
    c = (2, 4, 1)
    for names, kind in CONFIGS:
        w = WEIGHTS[len(names)]
        objs = objectives(c, names, kind)
        for version in ("local", "global"):
            scores, sens = agg_mod.aggregate_selection_scores(dpmo.aggregate(objs, w), version)
            for seed in range(3):
                got = dpmo.priv_agg(
                    objs, w, 0.7, k=2, sensitivity=version, mechanism="permute_and_flip", rng=seed
                )
                want = dpmo.select(scores, 0.7, sens, mechanism="permute_and_flip", k=2, rng=seed, exact=True)
                assert np.array_equal(got, want)


def test_local_sensitivity_is_smaller_than_global_somewhere():
    # the audit is not vacuous: the local versions use much less noise than the global ones on some databases
    names, kind = CONFIGS[1]
    smaller = 0
    for c in CHECK:
        d = dpmo.pareto_sensitivity(objectives(c, names, kind))(0)
        smaller += int(np.any(d < N_CAND - 1))
    assert smaller > len(CHECK) // 2


# ------------------------------------------------------------------------------------------- PrivChebyshev
CHEB_ROUNDS = {
    2: [([1.0, 0.0], [0.0, 0.0]), ([1.0, 1.0], [2.0, 0.3]), ([1.0, 4.0], [0.0, 0.5])],
    3: [([1.0, 1.0, 1.0], [0.0, 0.0, -2.0]), ([0.0, 2.0, 1.0], [1.0, 0.2, 0.0])],
}


@pytest.mark.parametrize("names, kind", CONFIGS + BLOCK_CONFIGS[:1])
@pytest.mark.slow
def test_priv_chebyshev_scores_and_probability_ratios(names, kind):
    """PrivChebyshev's round scores move by at most 1 between neighbouring databases (local and global), and
    the exact output distributions of every round (on all candidates and on every set of remaining ones)
    are within e^epsilon."""
    from dpmo.chebyshev import chebyshev_selection_scores

    for w, a in CHEB_ROUNDS[len(names)]:
        local = _cached(
            lambda c, w=w, a=a: chebyshev_selection_scores(objectives(c, names, kind), w, a, "local")
        )
        glob = _cached(
            lambda c, w=w, a=a: chebyshev_selection_scores(objectives(c, names, kind), w, a, "global")
        )
        for version in (local, glob):
            assert max_dampened_change(CHECK, neighbours, lambda c, v=version: v(c)[0]) <= 1 + 1e-9
        _assert_probability_ratios(local, glob)
        # later rounds choose among the remaining candidates: every subset of at least 2 (one round)
        if (w, a) != CHEB_ROUNDS[len(names)][-1] or kind != "closed":
            continue
        states = list(dict.fromkeys([*CHECK, *(y for c in CHECK for y in neighbours(c))]))
        left, right = _neighbour_pairs(states)
        S = np.array([local(c)[0] for c in states], dtype=np.float64)
        for r in range(2, N_CAND):
            for sub in itertools.combinations(range(N_CAND), r):
                lp = probabilities_by_row(S[:, list(sub)], 1.0, 1.0, mechanism="exponential", log=True)
                assert _largest_log_ratio(lp, left, right) <= 1.0 + 1e-9


@pytest.mark.slow
def test_priv_chebyshev_negative_control():
    """The audit catches a Chebyshev scalarisation with understated sensitivity (weights not normalised)."""
    names, kind = CONFIGS[0]

    def bad(c):
        objs = objectives(c, names, kind)
        D = np.stack([dpmo.dampening.dampen_objective(o) for o in objs])
        return np.min(np.array([[3.0], [1.0]]) * D, axis=0), 1.0

    worst = 0.0
    for c in CHECK:
        for y in neighbours(c):
            worst = max(
                worst,
                max_log_ratio(
                    log_probs(bad(c), 5.0, "exponential"), log_probs(bad(y), 5.0, "exponential"), log=True
                ),
            )
    assert worst > 5.0
