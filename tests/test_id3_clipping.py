"""ID3 refuses nothing on the private size: info-gain counts are clipped at max_records // 2 (issue 16)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpmo.trees import DiffPID3Classifier, LocalDiffPID3Classifier
from dpmo.trees.id3_choice import clip_class_counts
from dpmo.trees.split_sensitivity import criterion_global_sensitivity, split_scores


@pytest.mark.parametrize("cls", [DiffPID3Classifier, LocalDiffPID3Classifier])
def test_a_table_larger_than_max_records_fits(cls):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 3)).astype(float)
    y = (X[:, 0] == 1).astype(int)
    clf = cls(1.0, max_records=40, max_depth=2, random_state=0).fit(X, y)  # 300 rows > 40
    assert clf.predict(X).shape == (300,)
    assert float(clf.budget_.spent) == pytest.approx(1.0)


@pytest.mark.parametrize("max_records", [1, 2, 3, 4, 5])
@pytest.mark.slow
def test_clipped_info_gain_is_within_the_global_sensitivity_on_every_neighbour(max_records):
    """Every table of one attribute with 2 values, each cell in 0..max_records + 2 (beyond the bound), and
    every neighbour (one record added to one cell): the criterion on clipped counts moves by at most the
    global sensitivity for ``max_records``, for the plain and the non-negative form."""
    groups = np.array([0, 0])
    g = criterion_global_sensitivity("info_gain", max_records)
    worst = 0.0
    for cells in itertools.product(range(max_records + 3), repeat=4):
        n0, n1 = np.array(cells[:2], float), np.array(cells[2:], float)
        c0, c1 = clip_class_counts(n0, n1, max_records)
        assert ((c0 + c1) <= max_records).all()
        base = split_scores(c0, c1, groups, 1, criterion="info_gain")[0]
        for cell in range(4):
            m0, m1 = n0.copy(), n1.copy()
            (m0 if cell < 2 else m1)[cell % 2] += 1
            d0, d1 = clip_class_counts(m0, m1, max_records)
            assert np.abs(np.concatenate([d0 - c0, d1 - c1])).sum() <= 1  # neighbours or equal
            other = split_scores(d0, d1, groups, 1, criterion="info_gain")[0]
            worst = max(worst, abs(other - base))
    assert worst <= g + 1e-12
    assert worst > 0 or max_records == 1  # the check bites (max_records 1 clips every count to 0)


def test_clip_is_the_identity_below_the_bound():
    n0, n1 = np.array([0.0, 3.0, 5.0]), np.array([5.0, 2.0, 0.0])
    c0, c1 = clip_class_counts(n0, n1, 10)
    assert np.array_equal(c0, n0) and np.array_equal(c1, n1)
