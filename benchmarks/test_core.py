"""Speed of the single-objective core: ``select``, exact sampling (and OpenDP's on the same input), exact
discrete Laplace noise, ``dampen`` and ``probabilities``."""

from __future__ import annotations

import numpy as np
import pytest

import dpmo
from support import describe, size


@pytest.fixture(scope="module")
def scores():
    return np.random.default_rng(0).normal(size=size(10**6, 1000))


@pytest.fixture(scope="module")
def exact_scores():
    # GitHub's node count; utilities on a scale of 10
    return np.random.default_rng(1).normal(size=size(37_700, 500)) * 10.0


@pytest.mark.parametrize("k", [1, 10])
@pytest.mark.parametrize("mechanism", dpmo.MECHANISMS)
def test_select(benchmark, scores, mechanism, k):
    readme = (mechanism, k) in (("exponential", 1), ("permute_and_flip", 1), ("laplace", 10))
    describe(benchmark, f"`select`, n = 10^6, {mechanism}, k = {k}", readme=readme)
    benchmark(dpmo.select, scores, 1.0, 1.0, mechanism=mechanism, k=k, rng=1)


@pytest.mark.parametrize("k", [1, 10])
@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_select_exact(benchmark, exact_scores, mechanism, k):
    describe(
        benchmark,
        f"`select(..., exact=True)`, n = 37,700, {mechanism}, k = {k}",
        "exact rational sampling, OS secure source",
        readme=True,
    )
    benchmark(dpmo.select, exact_scores, 1.0, 1.0, mechanism=mechanism, k=k, exact=True)


@pytest.mark.parametrize("k", [1, 10])
@pytest.mark.parametrize("noise", ["permute_and_flip", "gumbel"])
def test_opendp_noisy_max(benchmark, exact_scores, noise, k):
    """OpenDP's exact report-noisy-max on the same input (``pip install ".[bench]"`` from the clone):
    ``max_divergence`` is permute-and-flip (exponential noise), ``zero_concentrated_divergence`` Gumbel noise;
    ``scale = 2 Delta k / epsilon``, the calibration of ``dpmo.select``. A yardstick, not dpmo's code."""
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    measure = dp.max_divergence() if noise == "permute_and_flip" else dp.zero_concentrated_divergence()
    if k == 1:
        meas = dp.m.make_noisy_max(*space, measure, scale=2.0)
    else:
        meas = dp.m.make_noisy_top_k(*space, measure, k=k, scale=2.0 * k)
    describe(benchmark, f"OpenDP `make_noisy_{'max' if k == 1 else 'top_k'}`, n = 37,700, {noise}, k = {k}",
             "yardstick: OpenDP's exact sampler on the input of `select(..., exact=True)`",
             readme=noise == "permute_and_flip")  # fmt: skip
    benchmark(meas, [float(x) for x in exact_scores])


@pytest.mark.parametrize("x", [1.0, 1e-4])
def test_discrete_laplace_one_draw(benchmark, x):
    """Exact discrete Laplace noise (issue 20): one draw at x = 1 and at x = 1e-4 (noise scale 10^4; target
    under 0.01 s). Skipped where the code has no exact discrete Laplace sampler."""
    exact = pytest.importorskip("dpmo.mechanisms.exact")
    if not hasattr(exact, "sample_discrete_laplace"):
        pytest.skip("this version of dpmo has no exact discrete Laplace sampler")
    exact.sample_discrete_laplace(1, x)  # the exact thresholds of x, computed once and cached
    describe(benchmark, f"`sample_discrete_laplace`, one draw, x = {x:g}", "exact, OS secure source",
             readme=x < 1)  # fmt: skip
    benchmark(exact.sample_discrete_laplace, 1, x)


def test_discrete_laplace_github_degrees(benchmark):
    """37,700 draws at x = 0.5: GitHub's noisy degrees in ``top_k_two_stage`` at epsilon 1."""
    exact = pytest.importorskip("dpmo.mechanisms.exact")
    if not hasattr(exact, "sample_discrete_laplace"):
        pytest.skip("this version of dpmo has no exact discrete Laplace sampler")
    n = size(37_700, 500)
    describe(benchmark, "`sample_discrete_laplace`, 37,700 draws, x = 0.5", "exact, OS secure source")
    benchmark(exact.sample_discrete_laplace, n, 0.5)


@pytest.mark.parametrize("form", ["plain callable", "subset-aware", "vectorized_t"])
def test_dampen_100_steps(benchmark, form):
    n = size(10**5, 1000)
    u = np.random.default_rng(2).uniform(0, 100, size=n)
    # a local function that needs 100 steps: delta(t) = 1, utilities up to 100
    local = {
        "plain callable": lambda t: np.ones(n),
        "subset-aware": dpmo.LocalSensitivity(lambda t, idx: np.ones(n if idx is None else len(idx))),
        "vectorized_t": dpmo.LocalSensitivity(
            lambda t, idx: np.ones(np.broadcast_shapes(np.shape(t), (n if idx is None else len(idx),))),
            vectorized_t=True,
        ),
    }[form]
    describe(benchmark, f"`dampen`, n = 10^5, a local function needing 100 steps, {form}",
             readme=form == "vectorized_t")  # fmt: skip
    benchmark(dpmo.dampen, u, local, global_sensitivity=5)


@pytest.mark.parametrize("how", ["closed-form breakpoints", "loop over distances"])
def test_dampen_tpr(benchmark, how):
    from dpmo.trees import tpr_objective

    positives = size(20_000, 200)
    tpr = tpr_objective(np.random.default_rng(3).integers(0, positives + 1, 100), positives)
    local = tpr.local
    if how == "loop over distances":  # the same function without its closed form
        local = dpmo.LocalSensitivity(tpr.local._func, vectorized_t=True)
    describe(benchmark, f"`dampen`, 100 TPRs of a table with 20,000 positives (~12,500 steps), {how}",
             readme=True)  # fmt: skip
    benchmark(dpmo.dampen, tpr.values, local, global_sensitivity=1.0)


def test_probabilities_permute_and_flip(benchmark):
    u = np.random.default_rng(4).normal(size=size(2000, 50))
    describe(benchmark, "`probabilities`, permute-and-flip (exact), n = 2000", "audits only", readme=True)
    benchmark(dpmo.probabilities, u, 1.0, 1.0, mechanism="permute_and_flip")


def test_budget_spend(benchmark):
    """1,000 spends of one budget: the cost of recording, with the fork guard (one int comparison a spend,
    ``dpmo._fork``). ``compare.py`` against the code before the guard shows what it adds."""
    n = size(1000, 10)
    describe(benchmark, f"`Budget.spend`, {n:,} spends of one budget", "exact ledger, fork guard")

    def spends():
        b = dpmo.Budget(10**6)
        for _ in range(n):
            b.spend(1, "a spend", mechanism="laplace")

    benchmark(spends)
