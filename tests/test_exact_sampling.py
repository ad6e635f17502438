"""Exact samplers (dpmo.mechanisms.exact): proven enclosures, exact coins, exact distributions."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dpmo
from dpmo.mechanisms import exact as ex
from dpmo.mechanisms.exact import enclosures as enc

EXACT = ["exponential", "gumbel", "permute_and_flip"]


def exp_neg(x: Fraction, digits: int = 80) -> Fraction:
    """exp(-x) to ``digits`` significant digits (an independent reference: mpmath at high precision; the
    former reference, decimal with a unary minus, rounded ``-x`` to 28 digits as the code under test did)."""
    with mpmath.workdps(digits + 10):
        m = mpmath.exp(-(mpmath.mpf(x.numerator) / x.denominator))
        man, exp = m.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def chi_p(counts, probs):
    counts = np.asarray(counts, float)
    keep = probs > 0
    return stats.chisquare(counts[keep], probs[keep] / probs[keep].sum() * counts[keep].sum()).pvalue


finite = st.floats(allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=5e-324, max_value=1.7976931348623157e308, allow_nan=False)


# ---------------------------------------------------------------- enclosures are proven bounds


@settings(max_examples=300)
@given(top=finite, u=finite, eps=positive, sens=positive)
def test_float_x_within_stated_error(top, u, eps, sens):
    top, u = max(top, u), min(top, u)
    x = ex.exact_x(u, top, eps, sens)
    xf = float(enc.float_x(np.array([u]), top, eps, sens)[0])
    assert not math.isnan(xf) and xf >= 0
    if math.isinf(xf):
        assert x >= 2**24  # the only use of inf: exp(-x) is below every float
    else:
        assert abs(Fraction(xf) - x) <= Fraction(2) ** -50 * x + Fraction(2) ** -1072


moderate = st.floats(min_value=-60.0, max_value=60.0)


@settings(max_examples=400)
@given(
    top=st.one_of(finite, moderate),
    u=st.one_of(finite, moderate),
    eps=st.one_of(positive, st.floats(1e-3, 10.0)),
    sens=st.one_of(positive, st.floats(0.1, 10.0)),
    level=st.integers(0, 80),
)
def test_float_enclosure_contains_exp(top, u, eps, sens, level):
    top, u = max(top, u), min(top, u)
    x = ex.exact_x(u, top, eps, sens)
    level = min(level, int(x / Fraction(0.6932)))  # the samplers only use L <= x / ln 2
    xf = enc.float_x(np.array([u]), top, eps, sens)
    lo, hi = enc.float_enclosure(xf, np.array([level]))
    if x > 10**6:
        a = Fraction(0)  # below 2^-10^6: only the sign of the bounds matters here
        assert lo[0] == 0.0
    else:
        a = exp_neg(x) * 2**level
    assert Fraction(float(lo[0])) <= a * (1 + Fraction(1, 10**60)) and a <= Fraction(float(hi[0]))


@settings(max_examples=200)
@given(
    num=st.integers(0, 10**40),
    den=st.integers(1, 10**40),
    level=st.integers(0, 20),
    bits=st.integers(40, 400),
)
def test_decimal_enclosure_contains_exp_and_is_tight(num, den, level, bits):
    x = Fraction(num, den)
    level = min(level, int(x / Fraction(0.6932)))
    lo, hi = enc.decimal_enclosure(x, level, bits)
    if x > 300:
        assert lo >= 0 and hi <= Fraction(1, 2**bits)
        return
    a = exp_neg(x, digits=bits // 3 + 40) * 2**level
    assert lo <= a <= hi
    assert hi - lo <= Fraction(1, 2 ** (bits - 8))  # U is compared at an absolute resolution


# ---------------------------------------------------------------- exact coins and picks


@pytest.mark.parametrize("chunk", [200, 3000])
@pytest.mark.parametrize("margin", [0.9, 2.0**-12])
@pytest.mark.parametrize("x", [0.0, 0.05, 0.7, 2.5])
def test_coins_exact_through_the_decimal_stage(monkeypatch, x, margin, chunk):
    """Widen the float stage's margin so that many coins are not decided at once: with 3000 coins a call
    (two stages) 0.9 sends most past the second stage's padded slots and then to the exact decimal stage,
    2^-12 a few, within the slots; with 200 (one stage of 53 bits) both send some to the decimal stage."""
    monkeypatch.setattr(enc, "REL_EXP", margin)
    source = ex.RandomBits(7)
    n = 3000
    heads = np.concatenate(
        [ex.bernoulli_exp(np.zeros(chunk), 2 * x, 1.0, 1.0, source) for _ in range(n // chunk)]
    )
    p = math.exp(-x)
    if x == 0:
        assert heads.all()
    else:
        assert stats.binomtest(int(heads.sum()), n, p).pvalue > 1e-3


def test_coin_with_level_is_exp_times_two_to_the_level():
    source = ex.RandomBits(3)
    x = 2.0  # x / ln 2 = 2.88: level 2 gives a = 4 e^-2 = 0.541
    n = 4000
    heads = ex.bernoulli_exp(np.zeros(n), 2 * x, 1.0, 1.0, source, levels=np.full(n, 2))
    assert stats.binomtest(int(heads.sum()), n, 4 * math.exp(-x)).pvalue > 1e-3


@pytest.mark.parametrize("mechanism", EXACT)
@pytest.mark.parametrize("scores", [[3.0, 2.0, 1.0, 0.0, 2.5], [1.0, 1.0, 0.0, -30.0]])
def test_exact_pick_distribution(mechanism, scores):
    probs = dpmo.probabilities(scores, 2.0, 1.0, mechanism=mechanism)
    g = np.random.default_rng(11)
    draws = [dpmo.select(scores, 2.0, 1.0, mechanism=mechanism, exact=True, rng=g)[0] for _ in range(3000)]
    assert chi_p(np.bincount(draws, minlength=len(scores)), probs) > 1e-3


@pytest.mark.parametrize("mechanism", EXACT)
def test_exact_two_rounds_distribution(mechanism):
    """k = 2: the ordered pair has probability P1(a) * P2(b | a removed), each round with epsilon / 2."""
    s = np.array([2.0, 1.5, 0.0, 1.0])
    expected = np.zeros((4, 4))
    p1 = dpmo.probabilities(s, 1.5, 1.0, mechanism=mechanism)
    for a in range(4):
        rest = np.delete(np.arange(4), a)
        p2 = dpmo.probabilities(s[rest], 1.5, 1.0, mechanism=mechanism)
        expected[a, rest] = p1[a] * p2
    g = np.random.default_rng(2)
    counts = np.zeros((4, 4))
    for _ in range(3000):
        a, b = dpmo.select(s, 3.0, 1.0, mechanism=mechanism, k=2, exact=True, rng=g)
        counts[a, b] += 1
    assert chi_p(counts.ravel(), expected.ravel()) > 1e-3


def test_exact_reproducible_with_seed_and_secure_without():
    s = np.random.default_rng(0).normal(size=200)
    for m in EXACT:
        a = dpmo.select(s, 1.0, 1.0, mechanism=m, k=5, exact=True, rng=4)
        assert np.array_equal(a, dpmo.select(s, 1.0, 1.0, mechanism=m, k=5, exact=True, rng=4))
        assert len(set(a.tolist())) == 5
    assert ex.RandomBits(None).secure and not ex.RandomBits(3).secure
    flat = np.zeros(1000)
    assert not np.array_equal(
        dpmo.select(flat, 1.0, 1.0, k=5, exact=True), dpmo.select(flat, 1.0, 1.0, k=5, exact=True)
    )


def test_random_bits_below_is_uniform():
    src = ex.RandomBits(9)
    counts = np.bincount([src.below(5) for _ in range(5000)], minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert src.getrandbits(0) == 0 and 0 <= src.getrandbits(130) < 2**130


def test_exact_refuses_laplace_and_non_bool():
    with pytest.raises(ValueError, match="exact"):
        dpmo.select([1.0, 2.0], 1.0, 1.0, mechanism="laplace", exact=True)
    with pytest.raises(TypeError, match="exact"):
        dpmo.select([1.0, 2.0], 1.0, 1.0, exact=1)


def test_exact_one_candidate_and_all_ties():
    assert dpmo.select([4.0], 1.0, 1.0, exact=True).tolist() == [0]
    for m in EXACT:
        out = dpmo.select([5.0, 5.0, 5.0], 1e300, 1e-10, mechanism=m, k=3, exact=True, rng=1)
        assert sorted(out.tolist()) == [0, 1, 2]
        firsts = [dpmo.select([5.0] * 3, 1.0, 5e-324, mechanism=m, exact=True, rng=i)[0] for i in range(300)]
        assert stats.chisquare(np.bincount(firsts, minlength=3)).pvalue > 1e-3


def test_exact_spends_through_the_budget_and_uses_the_exact_share():
    b = dpmo.Budget(1.0)
    out = dpmo.select([3.0, 1.0, 2.0], 0.3, 1.0, k=3, exact=True, budget=b, rng=0)
    assert len(set(out.tolist())) == 3
    assert len(b.ledger) == 3 and b.spent_exact == Fraction("0.3")
    # a share below the smallest float is used exactly (not rounded to 0)
    x = enc.float_x(np.array([0.0]), 1.0, Fraction(5e-324) / 7, 1.0)
    assert x[0] == 0.0 or abs(Fraction(float(x[0])) - Fraction(5e-324) / 14) <= Fraction(2) ** -1072
    assert dpmo.select([1.0, 0.0], 5e-324, 1.0, k=2, exact=True, rng=1).shape == (2,)
    with pytest.raises(ValueError, match="exact"):
        dpmo.select([1.0, 0.0], 0.5, 1.0, mechanism="laplace", exact=True, budget=b)
    assert b.spent_exact == Fraction("0.3")  # refused before anything was recorded


def _entry_points():
    from dpmo.graphs import load_graph, top_k, top_k_two_stage
    from dpmo.trees import (
        DiffPID3Classifier,
        DPMOETClassifier,
        LocalDiffPID3Classifier,
        tnr_objective,
        tpr_objective,
    )

    objs = [tpr_objective(np.array([2, 1, 3, 0]), 3), tnr_objective(np.array([1, 3, 0, 2]), 3)]
    g = load_graph(np.array([[0, 1], [1, 2], [2, 3], [3, 4], [1, 3]]), nodes=np.arange(6))
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = (X[:, 0] > 0.5).astype(int)

    def tree(cls, **kw):
        return lambda **a: cls(2.0, max_depth=2, **kw, **a).fit(X, y).tree_.feature.tolist()

    return {
        "local_dampening": lambda **a: dpmo.local_dampening(
            [1.0, 3.0, 2.0], 1.0, lambda t: np.ones(3), k=2, **a
        ),
        "priv_agg": lambda **a: dpmo.priv_agg(objs, (3.0, 2.0), 1.0, k=2, **a),
        "priv_pareto": lambda **a: dpmo.priv_pareto(objs, 1.0, k=2, **a),
        "top_k": lambda **a: top_k(g, 2, 1.0, **a),
        "top_k agg": lambda **a: top_k(g, 2, 1.0, approach="agg", **a),
        "top_k chebyshev": lambda **a: top_k(g, 2, 1.0, approach="chebyshev", **a),
        "priv_chebyshev": lambda **a: dpmo.priv_chebyshev(objs, 1.0, k=2, **a),
        "top_k_two_stage": lambda **a: top_k_two_stage(g, 2, 1.0, candidates=4, **a),
        "DiffPID3": tree(DiffPID3Classifier),
        "LocalDiffPID3": tree(LocalDiffPID3Classifier),
        "DPMOET": lambda **a: [
            t.n_nodes
            for t in DPMOETClassifier(
                1.0,
                population_size=4,
                selection_size=2,
                n_iterations=1,
                n_output=2,
                initial_depth=2,
                random_state=a.pop("rng", None),
                **a,
            )
            .fit(X, y)
            .trees_
        ],
    }


@pytest.mark.parametrize("name", list(_entry_points()))
def test_every_entry_point_takes_exact(name):
    call = _entry_points()[name]
    is_tree = name in ("DiffPID3", "LocalDiffPID3", "DPMOET")

    def run(**kw):
        if is_tree and name != "DPMOET" and "rng" in kw:
            kw["random_state"] = kw.pop("rng")
        return np.asarray(call(**kw)).tolist()

    assert run(exact=True, rng=5) == run(exact=True, rng=5)  # seeded: reproducible (tests only)
    run(exact=True)  # the OS's secure source
    with pytest.raises(ValueError, match="exact"):
        run(exact=True, mechanism="laplace")
    with pytest.raises(TypeError, match="exact"):
        run(exact="yes")


# ---------------------------------------------------------------- fixed-work samplers (issue 20)


def discrete_laplace_pmf(values, x):
    q = math.exp(-x)
    return (1 - q) / (1 + q) * q ** np.abs(values)


@pytest.mark.parametrize("x", [0.3, 1.0, 3.0, Fraction(1, 7), 50.0])
def test_discrete_laplace_law(x):
    z = ex.sample_discrete_laplace(60_000, x, rng=int(float(x) * 1000))
    assert z.dtype == np.int64
    values = np.arange(-60, 61)
    probs = discrete_laplace_pmf(values, float(x))
    inside = z[np.abs(z) <= 60]
    counts = np.bincount(inside + 60, minlength=values.size)  # counts[j]: the draws equal to values[j]
    beyond = z.size - counts.sum()  # |z| > 60
    assert chi_p(np.append(counts, beyond), np.append(probs, max(1 - probs.sum(), 0.0))) > 1e-3


def test_discrete_laplace_law_at_a_small_scale():
    """x = 1e-3: P(|Z| >= j) = 2 q^j / (1 + q), compared on 20 bins of equal probability."""
    x = 1e-3
    q = math.exp(-x)
    z = np.abs(ex.sample_discrete_laplace(40_000, x, rng=5))
    # bin edges j_k with P(|Z| >= j_k) about (20 - k) / 20
    edges = np.unique(np.ceil(np.log(np.linspace(1, 0.05, 20) * (1 + q) / 2) / math.log(q)).astype(int))
    edges = edges[edges >= 1]
    surv = np.concatenate([[1.0], 2 * q ** edges.astype(float) / (1 + q)])
    probs = -np.diff(np.concatenate([surv, [0.0]]))
    counts = np.bincount(np.searchsorted(edges, z, side="right"), minlength=probs.size)
    assert chi_p(counts, probs) > 1e-3


def test_discrete_laplace_bad_input_and_huge_scales():
    with pytest.raises(ValueError, match="x"):
        ex.sample_discrete_laplace(3, 0.0)
    with pytest.raises(ValueError, match="size"):
        ex.sample_discrete_laplace(-1, 1.0)
    assert ex.sample_discrete_laplace(0, 1.0).shape == (0,)
    z = ex.sample_discrete_laplace(2000, 1e-20, rng=3)  # noise of scale 1e20: beyond int64
    assert z.dtype == object and all(isinstance(v, int) for v in z)
    a = np.abs(z.astype(float))
    assert 0.5e20 < np.median(a) < 1e20  # the median of |Z| is about ln 2 / x = 6.9e19


def test_discrete_laplace_thresholds_are_exact():
    """floor(S(v) 2^64) against an independent 60-digit evaluation of S(v)."""
    from dpmo.mechanisms.exact.laplace import GROUP, geometric_plan

    x = Fraction(3, 10)
    plan = geometric_plan(x)
    ctx = decimal.Context(prec=60)
    for g, start in enumerate(plan.starts):
        d = min(GROUP, plan.n_digits - start)
        a = ctx.divide(decimal.Decimal(3 * 2**start), decimal.Decimal(10))
        e_d = ctx.exp(-a * 2**d)
        r = ctx.exp(-ctx.divide(decimal.Decimal(3 * 2**plan.n_digits), decimal.Decimal(10)))
        for v in range(1, 2**d):
            s = (ctx.exp(-a * v) - e_d) / (1 - e_d)
            if g == len(plan.starts) - 1:
                s = r + (1 - r) * s
            assert int(plan.thresholds[g][v - 1]) == int(s * 2**64)


def test_discrete_laplace_rare_paths_are_exact():
    """The words that hit a threshold, and the top word 0 (the tail H >= 1), finished exactly."""
    from dpmo.mechanisms.exact.laplace import _finish, _geometric, geometric_plan

    source = ex.RandomBits(8)
    plan = geometric_plan(Fraction(1))
    # ordinary words: the exact finish agrees with the vectorised value
    words = source.words(400).reshape(200, 2)
    values, rare = _geometric(words, plan)
    assert not rare.any()
    assert [_finish(row, plan, source) for row in words] == values.tolist()
    # a first word equal to the threshold of V >= 1: V = 1 with probability frac(S(1) 2^64)
    t1 = int(plan.thresholds[0][0])
    lo, _ = plan.enclosure(0, 1)(200)
    frac = float(lo * 2**64 - t1)
    row = np.array([t1, 2**63], dtype=np.uint64)
    ones = sum(_finish(row, plan, source) & 0xF for _ in range(2000))
    assert stats.binomtest(ones, 2000, frac).pvalue > 1e-3
    # x = 45/64: N = 6 and r = e^-45, so a top word 0 means H >= 1 with probability r 2^64 = 0.53
    plan = geometric_plan(Fraction(45, 64))
    assert plan.n_digits == 6
    row = np.array([1, 0], dtype=np.uint64)
    tails = sum(_finish(row, plan, source) >= 64 for _ in range(2000))
    assert stats.binomtest(tails, 2000, math.exp(-45) * 2**64).pvalue > 1e-3


def test_uniform_integers_across_batches(monkeypatch):
    """One draw per batch: most calls need several batches, the law stays uniform."""
    from dpmo.mechanisms.exact import bits

    monkeypatch.setattr(bits, "BATCH", 1)
    src = ex.RandomBits(10)
    counts = np.bincount([src.below(5) for _ in range(5000)], minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert all(src.below(1) == 0 for _ in range(20))
    with pytest.raises(ValueError, match="m"):
        src.below(0)
    assert 0 <= src.below(2**70 + 3) < 2**70 + 3


def test_exponential_mechanism_across_batches(monkeypatch):
    """One trial per batch: many rounds need several batches, the law stays exact."""
    from dpmo.mechanisms.exact import selection

    monkeypatch.setattr(selection, "trials", lambda n: 1)
    scores = [3.0, 2.0, 1.0, 0.0, 2.5]
    probs = dpmo.probabilities(scores, 2.0, 1.0, mechanism="exponential")
    g = np.random.default_rng(12)
    draws = [dpmo.select(scores, 2.0, 1.0, exact=True, rng=g)[0] for _ in range(3000)]
    assert chi_p(np.bincount(draws, minlength=5), probs) > 1e-3


@settings(max_examples=200)
@given(
    weights=st.lists(st.integers(0, 2**32), min_size=1, max_size=700),
    data=st.data(),
)
def test_rank_is_the_weight_interval(weights, data):
    from dpmo.mechanisms.exact.selection import rank

    cum = np.cumsum(np.array(weights, dtype=np.uint64))
    if cum[-1] == 0:
        return
    v = np.array(data.draw(st.lists(st.integers(0, int(cum[-1]) - 1), min_size=1, max_size=20)), np.uint64)
    assert rank(cum, v).tolist() == np.searchsorted(cum, v, side="right").tolist()


@settings(max_examples=200)
@given(keys=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300))
def test_radix_argsort_is_the_stable_argsort(keys):
    k = np.array(keys, dtype=np.int64)
    assert ex.radix_argsort(k).tolist() == np.argsort(k, kind="stable").tolist()
    u = k.view(np.uint64)
    assert ex.radix_argsort(u).tolist() == np.argsort(u, kind="stable").tolist()


def test_random_permutation_is_uniform():
    src = ex.RandomBits(13)
    perms = [tuple(ex.random_permutation(3, src).tolist()) for _ in range(6000)]
    _, counts = np.unique(np.array(perms), axis=0, return_counts=True)
    assert counts.size == 6 and stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_exact_all_candidates_in_k_rounds(mechanism):
    """k = n: the picked candidates (score -inf in later rounds) are never picked again."""
    s = np.random.default_rng(3).normal(size=7) * 100
    for seed in range(20):
        out = ex.sample_exact(s, 1e6, 1.0, 7, seed, mechanism)
        assert sorted(out.tolist()) == list(range(7))
    # with a huge epsilon the order is the order of the scores
    assert ex.sample_exact(s, 1e6, 1.0, 7, 1, mechanism).tolist() == np.argsort(-s).tolist()


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 80),
    eps=st.sampled_from([1e-12, 1e-3, 0.1, 1.0, 7.0, 1e6]),
    sens=st.sampled_from([1.0, 0.25, 3.0, 1e-9]),
    scale=st.sampled_from([1.0, 1e-300, 1e300, 1.7e308]),
    seed=st.integers(0, 2**31),
)
def test_envelope_weights_compiled_equal_the_vectorised_form(n, eps, sens, scale, seed):
    # the exact exponential mechanism's envelope: the one-pass kernel (every ordinary budget) against the
    # numpy operations it replaces, bit for bit: removed candidates (-inf), differences that overflow,
    # exponents at the cap 32 and at 0, ties
    from dpmo.mechanisms.exact import selection as sel

    rng = np.random.default_rng(seed)
    s = rng.choice([-1.0, -0.5, 0.0, 0.3, 1.0], n) * scale + rng.integers(0, 3, n)
    s[rng.random(n) < 0.2] = -np.inf
    s[rng.integers(n)] = scale
    top = float(s.max())
    assert enc.ordinary_ratio(eps, sens) is not None
    with np.errstate(over="ignore"):
        want = sel._envelope_vectorised(s, top, eps, sens)
    got = sel.envelope_weights(s, top, eps, sens)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, want)
    assert got[-1] >= 1  # the top candidate's weight, 2^32 at x = 0


def test_exact_sampling_leaves_the_scores_untouched():
    # k rounds mark the picks in a copy: the caller's scores are never written (k = 1 makes no copy)
    s = np.array([0.0, 3.0, 1.0, 2.0])
    keep = s.copy()
    for k in (1, 3):
        ex.sample_exact(s, 1.0, 1.0, k, 0, "exponential")
        np.testing.assert_array_equal(s, keep)
