"""Permute-and-flip's exact law at large n: the Gauss-Legendre rule and closed forms.

The expected values come from closed forms (all scores tied: ``1 / n``; one best candidate ahead of
``n - 1`` tied others: ``(1 - (1 - q)^n) / (n q)``), exact rational arithmetic (``fractions``), exact
moments of the rule (``int_0^1 t^j dt = 1 / (j + 1)``) and 40-digit Newton iterations (mpmath), never
from the code under test.
"""

from __future__ import annotations

import math
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.mechanisms.permute_and_flip import quadrature

PF = "permute_and_flip"


def _law(scores, epsilon=2.0, sensitivity=1.0, log=False):
    return dpmo.probabilities(np.asarray(scores, dtype=float), epsilon, sensitivity, mechanism=PF, log=log)


@pytest.mark.parametrize("size", [1, 2, 3, 10, 51, 100, 1000, 5000])
def test_rule_is_symmetric_and_sums_to_one(size):
    t, log_w = quadrature(size)
    w = np.exp(log_w)
    assert t.shape == log_w.shape == (size,)
    assert np.all(np.diff(t) > 0) and t[0] > 0 and t[-1] < 1
    np.testing.assert_allclose(t + t[::-1], 1.0, rtol=0, atol=4.5e-16)
    np.testing.assert_allclose(w, w[::-1], rtol=1e-15, atol=0)
    assert abs(math.fsum(w) - 1.0) <= 1e-14


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 12])
def test_rule_integrates_every_monomial_up_to_degree_2n_minus_1(size):
    t, log_w = quadrature(size)
    nodes = [Fraction(x) for x in t]
    weights = [Fraction(x) for x in np.exp(log_w)]
    for j in range(2 * size):
        exact = Fraction(1, j + 1)
        got = sum(w * x**j for w, x in zip(weights, nodes, strict=True))
        assert abs(got - exact) <= exact * Fraction(1, 10**14), (size, j)


@pytest.mark.parametrize("size", [100, 1000, 5000])
def test_rule_integrates_high_monomials(size):
    t, log_w = quadrature(size)
    for j in (1, 2, size // 3, size, 2 * size - 1):
        terms = np.exp(log_w + j * np.log(t))  # t^j w, no underflow trouble: the sum is 1 / (j + 1)
        assert abs(math.fsum(terms) * (j + 1) - 1.0) <= 2e-13, j


def test_rule_against_scipy_roots_legendre():
    from scipy.special import roots_legendre

    x, w = roots_legendre(200)
    t, log_w = quadrature(200)
    np.testing.assert_allclose(t, (1.0 + x) / 2.0, rtol=0, atol=1e-15)
    # a coarse check: SciPy's weights near the ends are off by up to 4e-11 relative at N = 200 (one
    # Newton step from eigenvalues in x); the 40-digit test below is the accurate one
    np.testing.assert_allclose(np.exp(log_w), w / 2.0, rtol=1e-9)


@pytest.mark.parametrize("size", [10, 1000])
def test_rule_against_40_digit_newton(size):
    import mpmath as mp  # (the test extra)

    t, log_w = quadrature(size)
    with mp.workdps(40):
        for i in sorted({0, 1, 2, size // 4, size // 2, size - 2, size - 1}):
            x = 1 - 2 * mp.mpf(t[i])
            for _ in range(4):  # Newton on the standard recurrence, from the node under test
                p0, p1 = mp.mpf(1), x
                for k in range(1, size):
                    p0, p1 = p1, ((2 * k + 1) * x * p1 - k * p0) / (k + 1)
                slope = size * (p0 - x * p1) / (1 - x * x)  # P_n'(x)
                x -= p1 / slope
            t_ref = (1 - x) / 2
            w_ref = 1 / ((1 - x * x) * slope**2)  # half of 2 / ((1 - x^2) P_n'(x)^2)
            assert abs(float((mp.mpf(t[i]) - t_ref) / t_ref)) <= 4e-15, i
            assert abs(float((mp.exp(mp.mpf(log_w[i])) - w_ref) / w_ref)) <= 5e-14, i


def test_rule_memory_is_linear():
    tracemalloc.start()
    try:
        quadrature.__wrapped__(4000)  # uncached; a dense companion matrix alone would be 128 MB
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000


@pytest.mark.parametrize("n", [2, 3, 7, 100, 1001, 4000, 9000])
def test_tied_scores_are_uniform(n):
    p = _law(np.full(n, 3.5))
    np.testing.assert_allclose(p * n, 1.0, rtol=0, atol=1e-13)
    assert abs(math.fsum(p) - 1.0) <= 1e-13
    assert np.all(_law(np.full(min(n, 2000), -1.0), log=True) <= 0.0)


@pytest.mark.parametrize("gap", [1e-9, 0.3, 2.0, 30.0])
def test_two_candidates_closed_form(gap):
    q = math.exp(-gap)  # epsilon = 2, sensitivity = 1: the log-weights are u - max u
    p = _law([gap, 0.0])
    np.testing.assert_allclose(p, [1.0 - q / 2.0, q / 2.0], rtol=1e-14)
    logp = _law([0.0, gap], log=True)
    assert logp[1] <= 0.0
    # an error of d in log P is a relative error of d in P
    np.testing.assert_allclose(logp, [math.log(q / 2.0), math.log1p(-q / 2.0)], rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [3, 50, 999, 5000])
@pytest.mark.parametrize("gap", [1e-6, 0.01, 0.7, 5.0])
def test_one_best_ahead_of_tied_others(n, gap):
    # P(best) = int_0^1 (1 - t q)^(n - 1) dt = (1 - (1 - q)^n) / (n q), the others share the rest
    q = math.exp(-gap)
    best = -math.expm1(n * math.log1p(-q)) / (n * q)
    p = _law(np.r_[gap, np.zeros(n - 1)])
    assert p[0] == pytest.approx(best, rel=1e-13)
    np.testing.assert_allclose(p[1:], (1.0 - best) / (n - 1), rtol=1e-12)
    assert abs(math.fsum(p) - 1.0) <= 1e-13


def test_log_probabilities_never_exceed_zero():
    assert _law([0.0, 1000.0], epsilon=1.0, log=True).max() <= 0.0
    rng = np.random.default_rng(7)
    for n in (2, 5, 40, 333):
        for spread in (1e-12, 1.0, 1e3, 1e12):
            logp = _law(rng.normal(size=n) * spread, log=True)
            assert logp.max() <= 0.0
            assert abs(math.fsum(np.exp(logp)) - 1.0) <= 1e-13


def _exact_law(weights: list[float]) -> list[Fraction]:
    """P(r) = p_r int_0^1 prod_{j != r} (1 - t p_j) dt with the floats p_j taken as exact rationals."""
    ps = [Fraction(p) for p in weights]
    out = []
    for r, pr in enumerate(ps):
        poly = [Fraction(1)]  # coefficients of t^0, t^1, ...
        for j, pj in enumerate(ps):
            if j != r:
                poly = [a - pj * b for a, b in zip([*poly, Fraction(0)], [Fraction(0), *poly], strict=True)]
        out.append(pr * sum(c / (i + 1) for i, c in enumerate(poly)))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-30, max_value=0), min_size=1, max_size=12))
def test_small_laws_match_exact_rationals(scores):
    g = np.asarray(scores, dtype=float) - max(scores)  # epsilon = 2, sensitivity = 1: exact
    exact = _exact_law(list(np.exp(g)))
    assert sum(exact) == pytest.approx(1.0, abs=1e-15)  # the reference itself: a telescoping sum
    logp = _law(scores, log=True)
    assert logp.max() <= 0.0
    np.testing.assert_allclose(logp, [math.log(e) for e in exact], rtol=0, atol=1e-13)


def test_rows_log_probabilities_are_never_positive():
    """probabilities_by_row's permute-and-flip rows gave log p = +1e-16 for a clear winner (p > 1)."""
    from dpmo.mechanisms import probabilities_by_row

    rng = np.random.default_rng(5)
    S = np.vstack([np.r_[0.0, 1000.0], np.r_[0.0, 0.0], *(np.r_[0.0, x] for x in rng.uniform(30, 900, 40))])
    logp = probabilities_by_row(S, 1.0, 1.0, mechanism="permute_and_flip", log=True)
    assert np.all(logp <= 0.0)
    np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0, rtol=1e-12)
