"""Sampler audit (rerunnable, seconds): every sampler, float and exact, against the exact probabilities of
``dpmo.probabilities`` (chi-square, alpha = 1e-3, fixed seeds), and the empirical privacy loss of exact
end-to-end releases on neighbouring tiny graphs and tables.

Neighbouring relations: graphs differ in one edge on a public node set (edge-DP); tables differ by one
record added or removed (here: added), which moves each tree's TP count by at most 1 and P by 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpmo
from _laplace_law import laplace_cdf, laplace_pdf
from dpmo.audit import max_log_ratio

ALPHA = 1e-3
FLOAT = ["exponential", "gumbel", "permute_and_flip", "laplace"]
EXACT = ["exponential", "gumbel", "permute_and_flip"]
CASES = [
    ([3.0, 2.0, 1.0, 0.0, 2.5], 2.0, 1.0),
    ([1.0, 1.0, 0.0, -30.0], 1.0, 0.5),  # a tie and a candidate of weight ~0
    ([0.0, 1e-12, 7.0], 0.8, 3.0),
]


def laplace_rnm(scores, epsilon, sensitivity):
    """Report-noisy-max with Laplace noise of scale 2 Delta / eps, by quadrature (no closed form)."""
    s = np.asarray(scores, float)
    b = 2 * sensitivity / epsilon
    out = []
    for r in range(s.size):
        others = np.delete(s, r)

        def f(z, r=r, others=others):
            return laplace_pdf(z - s[r], b) * np.prod(laplace_cdf(z - others, b))

        out.append(integrate.quad(f, s.min() - 40 * b, s.max() + 40 * b, points=list(s), limit=200)[0])
    return np.array(out)


def reference(scores, epsilon, sensitivity, mechanism):
    if mechanism == "laplace":
        return laplace_rnm(scores, epsilon, sensitivity)
    return dpmo.probabilities(scores, epsilon, sensitivity, mechanism=mechanism)


def chi_square_ok(counts, probs) -> bool:
    counts = np.asarray(counts, float)
    probs = np.asarray(probs, float)
    # outcomes of (near) zero probability must never be drawn; the others are compared
    tiny = probs * counts.sum() < 1e-6
    if np.any(counts[tiny] > 0):
        return False
    keep = ~tiny
    expected = probs[keep] / probs[keep].sum() * counts.sum()
    return stats.chisquare(counts[keep], expected).pvalue > ALPHA


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("mechanism,exact", [(m, False) for m in FLOAT] + [(m, True) for m in EXACT])
def test_sampler_matches_exact_probabilities(mechanism, exact, case):
    scores, eps, sens = CASES[case]
    g = np.random.default_rng(1000 + case)
    draws = 4000 if not exact else 1500
    picks = [dpmo.select(scores, eps, sens, mechanism=mechanism, exact=exact, rng=g)[0] for _ in range(draws)]
    assert chi_square_ok(np.bincount(picks, minlength=len(scores)), reference(scores, eps, sens, mechanism))


# ---------------------------------------------------------------- neighbouring tiny inputs, end to end


def empirical_loss_ok(px, py, cx, cy, epsilon) -> bool:
    """Every outcome drawn often enough on both inputs has |log(freq_x / freq_y)| <= epsilon + 4 sigma."""
    for a, b in zip(cx, cy, strict=True):
        if a >= 30 and b >= 30:
            sigma = math.sqrt(1 / a + 1 / b)
            if abs(math.log((a / cx.sum()) / (b / cy.sum()))) > epsilon + 4 * sigma:
                return False
    return True


def run(release, draws, seed):
    g = np.random.default_rng(seed)
    return np.array([release(g) for _ in range(draws)])


@pytest.mark.parametrize("approach", ["agg", "pareto"])
@pytest.mark.slow
def test_graph_neighbours_exact_release(approach):
    from dpmo.graphs import load_graph, selection_scores, top_k

    nodes = np.arange(5)
    x = load_graph(np.array([[0, 1], [1, 2], [2, 3], [3, 4]]), nodes=nodes)
    y = load_graph(np.array([[0, 1], [1, 2], [2, 3]]), nodes=nodes)  # one edge removed: node 4 isolated
    eps = 1.0
    exact_p = [
        dpmo.probabilities(*_scores_eps(selection_scores(g, approach=approach), eps), mechanism="exponential")
        for g in (x, y)
    ]
    assert max_log_ratio(*exact_p) <= eps + 1e-9
    counts = []
    for g, p, seed in zip((x, y), exact_p, (1, 2), strict=True):
        picks = run(lambda r, g=g: top_k(g, 1, eps, approach=approach, exact=True, rng=r)[0], 1200, seed)
        c = np.bincount(picks, minlength=5)
        assert chi_square_ok(c, p)
        counts.append(c)
    assert empirical_loss_ok(*exact_p, *counts, eps)


@pytest.mark.parametrize("approach", ["agg", "pareto"])
@pytest.mark.slow
def test_table_neighbours_exact_release(approach):
    """One DP-MOET pick among 4 trees; y adds a positive record that trees 0 and 1 classify right."""
    from dpmo.trees import selection_scores, tnr_objective, tpr_objective

    tp_x, p_x, tn, n = np.array([2, 1, 3, 0]), 3, np.array([1, 3, 0, 2]), 3
    tp_y, p_y = tp_x + np.array([1, 1, 0, 0]), p_x + 1
    eps = 1.0

    def release(tp, p, r):
        objs = [tpr_objective(tp, p), tnr_objective(tn, n)]
        if approach == "pareto":
            return dpmo.priv_pareto(objs, eps, exact=True, rng=r)[0]
        return dpmo.priv_agg(objs, (3.0, 2.0), eps, exact=True, rng=r)[0]

    exact_p = [
        dpmo.probabilities(
            *_scores_eps(selection_scores(tp, p, tn, n, approach=approach), eps), mechanism="exponential"
        )
        for tp, p in ((tp_x, p_x), (tp_y, p_y))
    ]
    assert max_log_ratio(*exact_p) <= eps + 1e-9
    counts = []
    for (tp, p), prob, seed in zip(((tp_x, p_x), (tp_y, p_y)), exact_p, (3, 4), strict=True):
        c = np.bincount(run(lambda r, tp=tp, p=p: release(tp, p, r), 600, seed), minlength=4)
        assert chi_square_ok(c, prob)
        counts.append(c)
    assert empirical_loss_ok(*exact_p, *counts, eps)


def _scores_eps(scores_sens, eps):
    scores, sens = scores_sens
    return scores, eps, sens
