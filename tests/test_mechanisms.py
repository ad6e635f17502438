"""Single-objective selection: sampling matches the exact distribution, and the exact privacy audit."""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import dpmo
from _laplace_law import laplace_cdf, laplace_pdf
from dpmo.audit import max_log_ratio

EXACT = ["exponential", "gumbel", "permute_and_flip"]


def pf_by_permutations(scores, epsilon, sensitivity):
    """Permute-and-flip's distribution by enumerating every order (McKenna and Sheldon, Algorithm 1)."""
    s = np.asarray(scores, float)
    p = np.exp(epsilon * (s - s.max()) / (2 * sensitivity))
    n = s.size
    out = np.zeros(n)
    perms = list(itertools.permutations(range(n)))
    for perm in perms:
        survive = 1.0
        for r in perm:
            out[r] += survive * p[r]
            survive *= 1 - p[r]
    return out / len(perms)


def laplace_rnm_by_quadrature(scores, epsilon, sensitivity):
    """Report-noisy-max with Laplace noise: P(r) = int f(z - s_r) prod_{j != r} F(z - s_j) dz."""
    s = np.asarray(scores, float)
    b = 2 * sensitivity / epsilon
    out = []
    for r in range(s.size):
        others = np.delete(s, r)

        def integrand(z, r=r, others=others):
            return laplace_pdf(z - s[r], b) * np.prod(laplace_cdf(z - others, b))

        lo, hi = s.min() - 40 * b, s.max() + 40 * b
        out.append(integrate.quad(integrand, lo, hi, points=list(s), limit=200, epsabs=1e-13)[0])
    return np.array(out)


def chi_square_pvalue(counts, probs):
    counts = np.asarray(counts, float)
    expected = probs * counts.sum()
    keep = expected > 0
    return stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue


# ---------------------------------------------------------------- exact distributions


def test_exponential_probabilities_closed_form():
    scores = np.array([0.0, 1.0, 3.0, 3.0, -2.0])
    w = np.exp(0.7 * scores / (2 * 1.5))
    np.testing.assert_allclose(dpmo.probabilities(scores, 0.7, 1.5, mechanism="exponential"), w / w.sum())
    np.testing.assert_allclose(dpmo.probabilities(scores, 0.7, 1.5, mechanism="gumbel"), w / w.sum())


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_permute_and_flip_closed_form_matches_permutations(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        scores = rng.integers(-4, 4, size=n).astype(float)
        eps = float(rng.uniform(0.1, 5))
        exact = pf_by_permutations(scores, eps, 1.0)
        np.testing.assert_allclose(
            dpmo.probabilities(scores, eps, 1.0, mechanism="permute_and_flip"), exact, rtol=1e-10, atol=1e-14
        )


def test_permute_and_flip_log_probabilities_exact_when_tiny():
    # Probabilities below 1e-300 underflow; the log form stays exact: log P = log p_r + log(integral).
    scores = np.array([0.0, 1000.0, 1000.0])
    logp = dpmo.probabilities(scores, 2.0, 1.0, mechanism="permute_and_flip", log=True)
    # For r = 0: p_0 = e^-1000 and the integral of (1 - t)^2 over [0, 1] is 1/3.
    assert logp[0] == pytest.approx(-1000 + math.log(1 / 3), rel=1e-12)
    assert np.exp(logp[1:]).sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- sampling agrees with the distribution


@pytest.mark.parametrize("mechanism", EXACT)
def test_sampling_agrees_with_probabilities(mechanism):
    scores = np.array([0.0, 1.0, 2.0, 2.0, 4.0, -1.0])
    eps, sens = 1.3, 1.0
    rng = np.random.default_rng(12345)
    draws = np.array([dpmo.select(scores, eps, sens, mechanism=mechanism, rng=rng)[0] for _ in range(20000)])
    counts = np.bincount(draws, minlength=scores.size)
    probs = dpmo.probabilities(scores, eps, sens, mechanism=mechanism)
    assert chi_square_pvalue(counts, probs) > 1e-4


def test_laplace_sampling_matches_quadrature():
    scores = np.array([0.0, 1.5, 2.0, 0.5])
    eps = 1.0
    probs = laplace_rnm_by_quadrature(scores, eps, 1.0)
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)
    rng = np.random.default_rng(7)
    draws = np.array([dpmo.select(scores, eps, 1.0, mechanism="laplace", rng=rng)[0] for _ in range(20000)])
    assert chi_square_pvalue(np.bincount(draws, minlength=4), probs) > 1e-4


@pytest.mark.slow
def test_exponential_top_k_equals_sequential_rounds():
    # k = 2 with total epsilon: each round is an exponential mechanism with epsilon / 2 on what is left.
    scores = np.array([0.0, 1.0, 2.0, 3.0])
    eps = 3.0
    p = dpmo.probabilities(scores, eps / 2, 1.0, mechanism="exponential")
    pairs = list(itertools.permutations(range(4), 2))
    expected = np.array([p[i] * p[j] / (1 - p[i]) for i, j in pairs])
    rng = np.random.default_rng(3)
    # counted in one pass (a list's count per pair made 12 passes over numpy integers)
    seen = collections.Counter(
        tuple(dpmo.select(scores, eps, 1.0, k=2, rng=rng).tolist()) for _ in range(20_000)
    )
    counts = np.array([seen[pair] for pair in pairs])
    assert chi_square_pvalue(counts, expected) > 1e-4


@pytest.mark.parametrize("mechanism", ["permute_and_flip", "laplace"])
def test_k_rounds_first_pick_uses_epsilon_over_k(mechanism):
    scores = np.array([0.0, 2.0, 4.0])
    rng = np.random.default_rng(11)
    picks = np.array([dpmo.select(scores, 4.0, 1.0, mechanism=mechanism, k=3, rng=rng) for _ in range(6000)])
    assert all(len(set(row)) == 3 for row in picks)
    if mechanism == "permute_and_flip":
        expected = dpmo.probabilities(scores, 4.0 / 3, 1.0, mechanism=mechanism)
    else:
        expected = laplace_rnm_by_quadrature(scores, 4.0 / 3, 1.0)
    assert chi_square_pvalue(np.bincount(picks[:, 0], minlength=3), expected) > 1e-4


# ---------------------------------------------------------------- exact privacy audit

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(
    x=st.lists(finite, min_size=1, max_size=8),
    shift_seed=st.integers(0, 2**32 - 1),
    eps=st.floats(0.01, 30),
    sens=st.floats(0.1, 10),
    mechanism=st.sampled_from(EXACT),
)
@pytest.mark.slow
def test_exact_audit_random_neighbours(x, shift_seed, eps, sens, mechanism):
    x = np.array(x)
    rng = np.random.default_rng(shift_seed)
    # Neighbouring score vectors: every candidate moves by at most the sensitivity; push some to the edge.
    shift = rng.uniform(-sens, sens, size=x.size)
    shift[rng.random(x.size) < 0.5] = sens * rng.choice([-1.0, 1.0])
    y = x + shift
    px = dpmo.probabilities(x, eps, sens, mechanism=mechanism, log=True)
    py = dpmo.probabilities(y, eps, sens, mechanism=mechanism, log=True)
    assert max_log_ratio(px, py, log=True) <= eps * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize("mechanism", EXACT)
@pytest.mark.parametrize("eps", [1e-3, 1.0, 50.0, 1e6])
def test_exact_audit_adversarial(mechanism, eps):
    cases = [
        (np.zeros(5), np.array([1.0, 0, 0, 0, 0])),  # a tie broken by the neighbour
        (np.array([0.0, 0.0]), np.array([1.0, -1.0])),  # opposite moves
        (np.array([1e12, 1e12 - 1, 0.0]), np.array([1e12 - 1, 1e12, 1.0])),  # huge scores, swapped order
        (np.arange(7.0), np.arange(7.0)[::-1] * 0 + np.arange(7.0) + np.r_[-1, 1, -1, 1, -1, 1, -1]),
    ]
    if mechanism == "permute_and_flip" and eps >= 50:
        cases = cases[:3]  # PF's exact integral is fine; keep the huge-epsilon cases short
    for x, y in cases:
        px = dpmo.probabilities(x, eps, 1.0, mechanism=mechanism, log=True)
        py = dpmo.probabilities(y, eps, 1.0, mechanism=mechanism, log=True)
        assert np.all(np.isfinite(px)) and np.all(np.isfinite(py))
        assert max_log_ratio(px, py, log=True) <= eps * (1 + 1e-9) + 1e-9


def test_laplace_audit_by_quadrature():
    eps = 1.0
    for x, y in [([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), ([0.0, 1.0, 2.0], [1.0, 0.0, 3.0])]:
        px = laplace_rnm_by_quadrature(x, eps, 1.0)
        py = laplace_rnm_by_quadrature(y, eps, 1.0)
        assert max_log_ratio(px, py) <= eps + 1e-6


# ---------------------------------------------------------------- numerics and randomness


@pytest.mark.parametrize("mechanism", dpmo.MECHANISMS)
def test_huge_epsilon_and_scores_keep_ties_random(mechanism):
    scores = np.array([1e12, 1e12, 1e12 - 1e6])
    with np.errstate(all="raise"):
        picks = [dpmo.select(scores, 1e6, 1.0, mechanism=mechanism, rng=s)[0] for s in range(400)]
    counts = np.bincount(picks, minlength=3)
    assert counts[2] == 0
    assert 120 < counts[0] < 280 and 120 < counts[1] < 280


@pytest.mark.parametrize("mechanism", dpmo.MECHANISMS)
def test_select_output_contract(mechanism):
    scores = np.random.default_rng(0).normal(size=50)
    out = dpmo.select(scores, 2.0, 1.0, mechanism=mechanism, k=7, rng=1)
    assert out.shape == (7,) and out.dtype == np.intp
    assert len(set(out.tolist())) == 7 and out.min() >= 0 and out.max() < 50
    np.testing.assert_array_equal(out, dpmo.select(scores, 2.0, 1.0, mechanism=mechanism, k=7, rng=1))
    assert sorted(dpmo.select(scores, 2.0, 1.0, mechanism=mechanism, k=50, rng=2)) == list(range(50))


def test_rng_none_uses_fresh_entropy_and_generator_advances():
    scores = np.zeros(1000)
    a = dpmo.select(scores, 1.0, 1.0, k=5)
    b = dpmo.select(scores, 1.0, 1.0, k=5)
    assert not np.array_equal(a, b)
    g = np.random.default_rng(5)
    assert not np.array_equal(
        dpmo.select(scores, 1.0, 1.0, k=5, rng=g), dpmo.select(scores, 1.0, 1.0, k=5, rng=g)
    )


def test_large_epsilon_concentrates_on_maximum():
    scores = np.arange(100.0)
    picks = [
        dpmo.select(scores, 200.0, 1.0, mechanism=m, rng=i)[0] for i, m in enumerate(dpmo.MECHANISMS * 5)
    ]
    assert all(p == 99 for p in picks)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(epsilon=0.0), ValueError, "epsilon"),
        (dict(epsilon=-1.0), ValueError, "epsilon"),
        (dict(epsilon=float("nan")), ValueError, "epsilon"),
        (dict(epsilon=float("inf")), ValueError, "epsilon"),
        (dict(epsilon="1"), TypeError, "epsilon"),
        (dict(sensitivity=-1.0), ValueError, "sensitivity"),
        (dict(sensitivity=float("inf")), ValueError, "sensitivity"),
        (dict(scores=[]), ValueError, "scores"),
        (dict(scores=[[1.0, 2.0]]), ValueError, "scores"),
        (dict(scores=[1.0, float("nan")]), ValueError, "scores"),
        (dict(scores=[1.0, float("inf")]), ValueError, "scores"),
        (dict(scores=["a", "b"]), TypeError, "scores"),
        (dict(k=0), ValueError, "k"),
        (dict(k=4), ValueError, "k"),
        (dict(k=1.5), TypeError, "k"),
        (dict(mechanism="nope"), ValueError, "mechanism"),
        (dict(rng="seed"), TypeError, "rng"),
        (dict(rng=-3), ValueError, "rng"),
    ],
)
def test_bad_input(kwargs, exc, word):
    args = dict(scores=[1.0, 2.0, 3.0], epsilon=1.0, sensitivity=1.0)
    args.update(kwargs)
    scores = args.pop("scores")
    with pytest.raises(exc, match=word):
        dpmo.select(scores, args.pop("epsilon"), args.pop("sensitivity"), **args)


def test_probabilities_refuses_laplace_and_bad_log():
    with pytest.raises(ValueError, match="mechanism"):
        dpmo.probabilities([1.0, 2.0], 1.0, 1.0, mechanism="laplace")
    with pytest.raises(TypeError, match="log"):
        dpmo.probabilities([1.0, 2.0], 1.0, 1.0, mechanism="exponential", log="yes")


@settings(max_examples=200)
@given(
    st.lists(
        st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -1.0, -np.inf, -745.0])),
        min_size=1,
        max_size=30,
    ),
    st.integers(1, 4),
)
def test_log_sum_exp_agrees_with_scipy(values, rows):
    """The audits' log-sum-exp agrees with scipy.special.logsumexp to a few units in the last place, over all
    entries and down the first axis (ties, -inf entries, rows). Not bit for bit: that holds for SciPy 1.15
    and later (the same algorithm), and the suite must pass with whatever SciPy a fresh venv gets."""
    from scipy.special import logsumexp

    from dpmo.mechanisms._common import log_sum_exp

    a = np.array(values)
    table = np.vstack([a + i * 0.37 for i in range(rows)])
    with np.errstate(all="ignore"):
        pairs = [(logsumexp(a), log_sum_exp(a)), (logsumexp(table, axis=0), log_sum_exp(table, axis=0))]
    for ref, ours in pairs:
        assert np.shape(ours) == np.shape(ref)
        ours, ref = np.atleast_1d(ours), np.atleast_1d(ref)
        assert np.array_equal(np.isneginf(ours), np.isneginf(ref))  # an empty mass stays exactly -inf
        finite = np.isfinite(ref)
        assert np.array_equal(finite, np.isfinite(ours))
        np.testing.assert_allclose(
            ours[finite], ref[finite], rtol=8 * np.finfo(float).eps, atol=8 * np.finfo(float).eps
        )
