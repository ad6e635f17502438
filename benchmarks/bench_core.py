"""Speed of the single-objective core. Prints a table; the README quotes it.

Run: python benchmarks/bench_core.py
"""

from __future__ import annotations

import time

import numpy as np

import dpmo


def best_of(f, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def opendp_rows(scores) -> list:
    """OpenDP's exact report-noisy-max on the same input, when ``pip install dpmo[bench]`` installed it.

    ``make_noisy_max`` with ``max_divergence`` is permute-and-flip (exponential noise) and with
    ``zero_concentrated_divergence`` Gumbel noise; ``scale = 2 Delta / epsilon`` per pick (k picks of
    ``make_noisy_top_k``: ``2 Delta k / epsilon``), the calibration of ``dpmo.select``.
    """
    try:
        import opendp.prelude as dp
    except ImportError:
        return [("OpenDP (not installed: pip install 'dpmo[bench]')", float("nan"))]
    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    data = [float(x) for x in scores]
    rows = []
    for label, measure in (
        ("permute_and_flip", dp.max_divergence()),
        ("gumbel", dp.zero_concentrated_divergence()),
    ):
        one = dp.m.make_noisy_max(*space, measure, scale=2.0)
        rows.append(
            (f"OpenDP make_noisy_max, n = {len(data):,}, {label}, k = 1", best_of(lambda f=one: f(data)))
        )
        top = dp.m.make_noisy_top_k(*space, measure, k=10, scale=20.0)
        rows.append(
            (f"OpenDP make_noisy_top_k, n = {len(data):,}, {label}, k = 10", best_of(lambda f=top: f(data)))
        )
    return rows


def main() -> None:
    rng = np.random.default_rng(0)
    rows = []
    scores = rng.normal(size=10**6)
    for mech in dpmo.MECHANISMS:
        for k in (1, 10):
            t = best_of(lambda m=mech, k=k: dpmo.select(scores, 1.0, 1.0, mechanism=m, k=k, rng=1))
            rows.append((f"select, n = 10^6, {mech}, k = {k}", t))

    # exact sampling (issue 12): one pick / k = 10 among 37,700 candidates (GitHub's node count), epsilon 1,
    # sensitivity 1, bits from the OS's secure source (rng=None)
    n_exact = 37_700
    u_exact = rng.normal(size=n_exact) * 10.0
    for mech in ("exponential", "permute_and_flip"):
        for k in (1, 10):
            t = best_of(lambda m=mech, k=k: dpmo.select(u_exact, 1.0, 1.0, mechanism=m, k=k, exact=True))
            rows.append((f"select exact=True, n = 37,700, {mech}, k = {k}", t))
    rows.extend(opendp_rows(u_exact))
    # exact discrete Laplace noise (issue 20): one draw at x = 1 and at x = 1e-4 (noise scale 10^4; target
    # under 0.01 s, was 0.4-1.4 s), and GitHub's 37,700 noisy degrees at x = 0.5 (top_k_two_stage, eps 1)
    from dpmo.mechanisms.exact import sample_discrete_laplace

    for x in (1.0, 1e-4):
        sample_discrete_laplace(1, x)  # the exact thresholds of x, computed once and cached
        t = best_of(lambda x=x: sample_discrete_laplace(1, x), repeat=50)
        rows.append((f"sample_discrete_laplace, one draw, x = {x:g}", t))
    t = best_of(lambda: sample_discrete_laplace(n_exact, 0.5))
    rows.append(("sample_discrete_laplace, 37,700 draws, x = 0.5", t))

    n = 10**5
    u = rng.uniform(0, 100, size=n)
    # a local function that needs 100 steps: delta(t) = 1, utilities up to 100
    plain = lambda t: np.ones(n)  # noqa: E731
    indexed = dpmo.LocalSensitivity(lambda t, idx: np.ones(n if idx is None else len(idx)))
    block = dpmo.LocalSensitivity(
        lambda t, idx: np.ones(np.broadcast_shapes(np.shape(t), (n if idx is None else len(idx),))),
        vectorized_t=True,
    )
    rows.append(
        (
            "dampen, n = 10^5, 100 steps, plain callable",
            best_of(lambda: dpmo.dampen(u, plain, global_sensitivity=5)),
        )
    )
    rows.append(
        (
            "dampen, n = 10^5, 100 steps, subset-aware",
            best_of(lambda: dpmo.dampen(u, indexed, global_sensitivity=5)),
        )
    )
    rows.append(
        (
            "dampen, n = 10^5, 100 steps, vectorized_t",
            best_of(lambda: dpmo.dampen(u, block, global_sensitivity=5)),
        )
    )
    # true positive rates of 100 trees on a table with 20,000 positives: about 12,500 distance steps
    from dpmo.trees import tpr_objective

    tpr = tpr_objective(rng.integers(0, 20_001, 100), 20_000)
    loop_only = dpmo.LocalSensitivity(tpr.local._func, vectorized_t=True)  # the same function, no closed form
    rows.append(
        (
            "dampen, 100 TPRs, P = 20,000, loop over distances",
            best_of(lambda: dpmo.dampen(tpr.values, loop_only, global_sensitivity=1.0)),
        )
    )
    rows.append(
        (
            "dampen, 100 TPRs, P = 20,000, closed-form breakpoints",
            best_of(lambda: dpmo.dampen(tpr.values, tpr.local, global_sensitivity=1.0)),
        )
    )
    probs = rng.normal(size=2000)
    rows.append(
        (
            "probabilities, permute_and_flip, n = 2000",
            best_of(lambda: dpmo.probabilities(probs, 1.0, 1.0, mechanism="permute_and_flip"), repeat=3),
        )
    )

    width = max(len(r[0]) for r in rows)
    print(f"{'case'.ljust(width)}  seconds")
    for name, t in rows:
        print(f"{name.ljust(width)}  {t:.4f}" if not t < 1e-3 else f"{name.ljust(width)}  {t:.1e}")


if __name__ == "__main__":
    main()
