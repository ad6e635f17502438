"""DP-MOET's scores (issue 30, point 5): the released leaf counts, the budget split of a fit, predict_proba.

Neighbouring relations: ``add_remove`` (data sets differing by one record added or removed) and
``substitution`` (one record changed). One tree's (leaf, class) histogram has L1 sensitivity 1 and 2
under them; the audit below checks the released histogram's exact distribution on every pair of
neighbouring data sets of a small domain.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.datasets import load_breast_cancer
from dpmo.trees import DPMOETClassifier, EncodedData, TreePopulation, random_tree, tree_from_nested
from dpmo.trees.leaf_counts import (
    COUNT_SENSITIVITY,
    leaf_class_counts,
    leaf_positive_share,
    noisy_leaf_counts,
)
from dpmo.trees.moet_rounds import fit_shares

SMALL = dict(population_size=12, selection_size=4, n_iterations=2, initial_depth=2, max_depth=4)


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer()


def walk(tree, x) -> int:
    """Preorder index of the leaf ``x`` reaches, walking the node arrays (independent of the kernels)."""
    i = 0
    while tree.feature[i] >= 0:
        v = x[tree.feature[i]]
        left = v == tree.value[i] if tree.categorical[i] else v <= tree.value[i]
        i = i + 1 if left else i + 1 + int(tree.size[i + 1])
    return int(i)


def test_leaf_class_counts_match_a_walk_of_every_row(cancer):
    rng = np.random.default_rng(0)
    trees = [random_tree(d, cancer.features, rng) for d in (0, 1, 3, 5)]
    counts = leaf_class_counts(TreePopulation(trees), EncodedData(cancer.X, cancer.y))
    for tree, got in zip(trees, counts, strict=True):
        want = np.zeros((tree.n_nodes, 2), dtype=np.int64)
        for x, label in zip(np.asarray(cancer.X), cancer.y, strict=True):
            want[walk(tree, x), label] += 1
        np.testing.assert_array_equal(got, want)
        assert got[tree.feature >= 0].sum() == 0 and got.sum() == len(cancer.y)


@pytest.mark.parametrize("neighbouring", ["add_remove", "substitution"])
def test_release_records_one_spend_per_tree_and_noises_every_leaf(cancer, neighbouring):
    rng = np.random.default_rng(1)
    trees = TreePopulation([random_tree(2, cancer.features, rng), random_tree(3, cancer.features, rng)])
    enc = EncodedData(cancer.X, cancer.y)
    exact = leaf_class_counts(trees, enc)
    budget = dpmo.Budget(Fraction(2, 5))
    out = noisy_leaf_counts(trees, enc, Fraction(1, 5), budget, neighbouring=neighbouring, exact=True, rng=3)
    delta = COUNT_SENSITIVITY[neighbouring]
    assert delta == (1 if neighbouring == "add_remove" else 2)
    assert [(r.epsilon, r.mechanism, r.sensitivity) for r in budget.ledger] == [
        (Fraction(1, 5), "laplace", float(delta))
    ] * 2
    assert [r.candidates for r in budget.ledger] == [2 * t.n_leaves for t in trees]
    for tree, noisy, true in zip(trees, out, exact, strict=True):
        leaf = tree.feature < 0
        assert np.isnan(noisy[~leaf]).all() and np.isfinite(noisy[leaf]).all()
        noise = noisy[leaf] - true[leaf]
        assert np.array_equal(noise, np.round(noise))  # discrete Laplace: integers
    # the same seed gives the same release; a much larger epsilon gives the counts themselves
    again = noisy_leaf_counts(trees, enc, Fraction(1, 5), dpmo.Budget(1), neighbouring=neighbouring,
                              exact=True, rng=3)  # fmt: skip
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(out, again, strict=True))
    sharp = noisy_leaf_counts(trees, enc, Fraction(10**6), dpmo.Budget(10**7), neighbouring=neighbouring,
                              exact=True, rng=4)  # fmt: skip
    for tree, noisy, true in zip(trees, sharp, exact, strict=True):
        np.testing.assert_array_equal(noisy[tree.feature < 0], true[tree.feature < 0])


def test_float_release_has_laplace_noise_of_scale_sensitivity_over_epsilon(cancer):
    tree = random_tree(8, cancer.features, np.random.default_rng(2))  # 256 leaves: 512 cells per release
    pop, enc = TreePopulation([tree]), EncodedData(cancer.X, cancer.y)
    leaf = tree.feature < 0
    true = leaf_class_counts(pop, enc)[0][leaf]
    for neighbouring, delta in COUNT_SENSITIVITY.items():
        rng = np.random.default_rng(5)
        noise = np.concatenate([
            (noisy_leaf_counts(pop, enc, Fraction(1, 2), dpmo.Budget(1), neighbouring=neighbouring,
                               exact=False, rng=rng)[0][leaf] - true).ravel()
            for _ in range(8)
        ])  # fmt: skip
        scale = delta / 0.5  # E|Laplace(b)| = b; 4096 draws: standard error 1.6% of b
        assert abs(np.mean(np.abs(noise)) - scale) < 0.08 * scale and abs(np.mean(noise)) < 0.1 * scale


def _discrete_laplace_log_pmf(z, a):
    return math.log((1 - math.exp(-a)) / (1 + math.exp(-a))) - a * abs(z)


@pytest.mark.parametrize("neighbouring", ["add_remove", "substitution"])
def test_exhaustive_privacy_audit_of_a_released_histogram(neighbouring):
    # records (x, y) with x, y in {0, 1}; a data set is a multiset of at most 3 of them; the tree is the
    # public stump x <= 0.5, so its 4 cells are the 4 record types. Exact distribution of the release:
    # product over the cells of the discrete Laplace pmf of (output - count) with parameter eps / Delta.
    eps = 0.7
    stump = TreePopulation([tree_from_nested((0, 0.5, False, 0, 1))])
    types = list(itertools.product((0, 1), (0, 1)))

    def histogram(multiset):
        rows = [t for t, m in zip(types, multiset, strict=True) for _ in range(m)]
        if not rows:
            return np.zeros(4, dtype=np.int64)
        X = np.array([[float(x)] for x, _ in rows])
        counts = leaf_class_counts(stump, EncodedData(X, np.array([y for _, y in rows])))[0]
        return counts[[1, 2]].ravel()  # leaves 1 and 2: (neg, pos) each

    sets = [m for m in itertools.product(range(4), repeat=4) if sum(m) <= 3]
    hists = {m: histogram(m) for m in sets}
    pairs = []
    for a in sets:
        for b in sets:
            diff = np.subtract(b, a)
            if neighbouring == "add_remove" and np.abs(diff).sum() == 1:
                pairs.append((a, b))
            if neighbouring == "substitution" and sum(a) == sum(b) and np.abs(diff).sum() == 2:
                pairs.append((a, b))
    window = range(-3, 7)  # outputs around every count (0..3): the worst ratio is reached inside it

    def worst_log_ratio(param):
        # the cells are independent, so the largest log ratio over outputs is the sum of the cells' largest
        return max(
            sum(max(_discrete_laplace_log_pmf(z - hists[a][c], param)
                    - _discrete_laplace_log_pmf(z - hists[b][c], param) for z in window) for c in range(4))
            for a, b in pairs
        )  # fmt: skip

    assert worst_log_ratio(eps / COUNT_SENSITIVITY[neighbouring]) == pytest.approx(eps)  # eps-DP, tight
    if neighbouring == "substitution":  # calibrated for add/remove, a substitution would cost 2 eps
        assert worst_log_ratio(eps) == pytest.approx(2 * eps)


def test_leaf_positive_share_is_smoothed_and_in_the_unit_interval():
    counts = np.array([[np.nan, np.nan], [30.0, 10.0], [-2.0, 3.0], [-1.0, -4.0]])
    share = leaf_positive_share(counts, np.array([1, 2, 3]))
    pi = 13 / 43  # clipped totals: 30 negatives, 13 positives
    np.testing.assert_allclose(share, [(10 + pi) / 41, (3 + pi) / 4, pi])
    assert leaf_positive_share(np.array([[np.nan] * 2, [-1.0, -1.0]]), np.array([1]))[0] == 0.5


@settings(max_examples=40, deadline=None)
@given(
    eps=st.fractions(min_value=Fraction(1, 1000), max_value=10),
    k=st.integers(0, 5),
    o=st.integers(1, 4),
    leaf=st.sampled_from([0, 0.05, 0.1, 0.5, 0.99]),
    final=st.sampled_from([None, 0.2, 0.5, 0.8]),
)
def test_fit_shares_add_up_to_epsilon_exactly(eps, k, o, leaf, final):
    rnd, fin, lf = fit_shares(eps, k, o, leaf, final)
    assert (k * rnd if k else 0) + fin + (o * lf if leaf else 0) == eps
    assert (rnd is None) == (k == 0) and (lf is None) == (leaf == 0)
    if final is None and k:
        assert rnd == fin
    elif k:
        assert fin == eps * (1 - Fraction(str(leaf))) * Fraction(str(final))


@pytest.mark.parametrize(
    ("leaf", "final", "match"),
    [(1.0, None, "leaf_count_share"), (-0.1, None, "leaf_count_share"), (0.1, 1.0, "final_share"),
     (0.1, 0, "final_share"), ("0.1", None, "leaf_count_share")],
)  # fmt: skip
def test_share_parameters_are_validated(cancer, leaf, final, match):
    with pytest.raises((ValueError, TypeError), match=match):
        DPMOETClassifier(1.0, leaf_count_share=leaf, final_share=final, **SMALL).fit(cancer)


def test_fit_spends_the_split_and_releases_voters_and_counts(cancer):
    clf = DPMOETClassifier(0.8, final_share=0.5, leaf_count_share=0.25, random_state=0, **SMALL).fit(cancer)
    ledger = clf.budget_.ledger
    gen, final, leaf = Fraction("0.8") * Fraction(3, 4) / 4, Fraction("0.8") * Fraction(3, 8), Fraction("0.2")
    assert [r.epsilon for r in ledger] == [gen / 4] * 8 + [final, leaf]
    assert sum(r.epsilon for r in ledger) == Fraction("0.8") and "leaves of output tree 0" in ledger[-1].what
    assert len(clf.voters_) == 4 and all(t.max_depth <= 4 for t in clf.voters_)
    assert len(clf.leaf_counts_) == 1 and clf.leaf_counts_[0].shape == (clf.trees_[0].n_nodes, 2)
    proba = clf.predict_proba(cancer)[:, 1]
    assert np.unique(proba).size > 2  # it ranks: more than the tree's two labels
    assert np.array_equal(proba > 0.5, clf.predict(cancer) == 1)
    # NODP: the same release without noise (NOT private), the counts exact
    nodp = DPMOETClassifier(None, random_state=0, **SMALL).fit(cancer)
    exact = leaf_class_counts(nodp.population_, EncodedData(cancer.X, cancer.y))[0]
    leafs = nodp.trees_[0].feature < 0
    np.testing.assert_array_equal(nodp.leaf_counts_[0][leafs], exact[leafs])
    # no generation, one output tree and no counts: nothing finer than the tree's labels is released
    flat = DPMOETClassifier(1.0, n_iterations=0, leaf_count_share=0, random_state=0, **{
        k: v for k, v in SMALL.items() if k != "n_iterations"}).fit(cancer)  # fmt: skip
    assert flat.voters_ == [] and set(np.unique(flat.predict_proba(cancer))) <= {0.0, 1.0}


def test_predict_proba_of_another_output_tree_agrees_with_its_predict(cancer):
    clf = DPMOETClassifier(2.0, n_output=3, random_state=1, **SMALL).fit(cancer)
    assert len(clf.leaf_counts_) == 3 and len(clf.budget_.ledger) == 2 * 4 + 3 + 3
    for tree in (1, -1, 2):
        proba = clf.predict_proba(cancer, tree=tree)
        np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(cancer, tree=tree))
    np.testing.assert_array_equal(clf.predict_proba(cancer, tree=-1), clf.predict_proba(cancer, tree=2))
    with pytest.raises(ValueError, match="index"):
        clf.predict_proba(cancer, tree=3)
