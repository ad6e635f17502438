"""``dpmo.mechanisms.probabilities_by_row``: the exact law of one pick for many score vectors at once, row
by row that of ``dpmo.probabilities`` (which the mechanisms' own tests check against sampling and closed
forms)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.mechanisms import probabilities_by_row

MECHANISMS = ("exponential", "gumbel", "permute_and_flip")


@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(1, 6),
    n=st.integers(1, 9),
    data=st.data(),
    epsilon=st.sampled_from([1e-300, 0.01, 0.5, 4.0, 50.0, 1e300]),
    sensitivity=st.sampled_from([1e-300, 0.001, 1.0, 7.0]),
)
def test_each_row_is_the_law_of_probabilities(m, n, data, epsilon, sensitivity):
    """Any rows (ties drawn from a few values, huge spreads included), any epsilon and sensitivity: each row
    equals ``dpmo.probabilities`` of that row, in log space (the same -inf where a weight underflows) and as
    probabilities summing to 1."""
    values = st.one_of(st.sampled_from([0.0, 1.0, -3.5]), st.floats(-1e300, 1e300))
    S = np.array(data.draw(st.lists(values, min_size=m * n, max_size=m * n)), dtype=np.float64).reshape(m, n)
    for mechanism in MECHANISMS:
        got = probabilities_by_row(S, epsilon, sensitivity, mechanism=mechanism, log=True)
        want = np.vstack(
            [dpmo.probabilities(r, epsilon, sensitivity, mechanism=mechanism, log=True) for r in S]
        )
        assert got.shape == (m, n)
        assert np.array_equal(np.isneginf(got), np.isneginf(want))
        finite = np.isfinite(want)
        assert np.allclose(got[finite], want[finite], rtol=0, atol=1e-12)
        p = probabilities_by_row(S, epsilon, sensitivity, mechanism=mechanism)
        assert np.allclose(p.sum(axis=1), 1.0, atol=1e-9)


def test_many_rows_in_chunks():
    """More rows than one chunk of the permute-and-flip table holds: every row still equals its own law."""
    rng = np.random.default_rng(3)
    S = rng.integers(0, 4, size=(40_000, 7)).astype(np.float64)
    got = probabilities_by_row(S, 2.0, 1.0, mechanism="permute_and_flip", log=True)
    idx = rng.choice(S.shape[0], size=50, replace=False)
    law = [dpmo.probabilities(S[i], 2.0, 1.0, mechanism="permute_and_flip", log=True) for i in idx]
    want = np.vstack(law)
    assert np.allclose(got[idx], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "scores, kwargs, error, words",
    [
        (np.zeros(3), {}, ValueError, "2-D"),
        (np.zeros((0, 3)), {}, ValueError, "at least one row"),
        (np.zeros((2, 0)), {}, ValueError, "at least one row"),
        (np.array([[0.0, np.nan]]), {}, ValueError, "finite"),
        (np.array([["a", "b"]]), {}, TypeError, "2-D array of real numbers, got dtype"),
        ([[0.0, 1.0], [2.0]], {}, TypeError, "2-D array of real numbers"),
        (np.array([[1j, 0.0]]), {}, TypeError, "real"),
        (np.zeros((2, 2)), {"mechanism": "laplace"}, ValueError, "for exact probabilities"),
        (np.zeros((2, 2)), {"log": 1}, TypeError, "log must be a bool"),
        (np.zeros((2, 2)), {"epsilon": -1.0}, ValueError, "epsilon"),
        (np.zeros((2, 2)), {"sensitivity": 0.0}, ValueError, "sensitivity"),
    ],
)
def test_refusals_name_the_argument(scores, kwargs, error, words):
    args = {"epsilon": 1.0, "sensitivity": 1.0, "mechanism": "exponential", **kwargs}
    eps, sens = args.pop("epsilon"), args.pop("sensitivity")
    with pytest.raises(error, match=words):
        probabilities_by_row(scores, eps, sens, **args)
