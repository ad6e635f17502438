"""The pair sort of the Spark triangle kernels: stable, on short (insertion) and long (merge) inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark")  # the package dpmo.graphs.spark needs it; the kernels themselves do not
from dpmo.graphs.spark import kernels  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=80), st.data())
def test_sort_pairs_is_stable_and_sorts_the_prefix(values, data):
    first = np.array(values, dtype=np.int64)
    second = np.arange(first.size, dtype=np.int64)  # the original positions ride along
    k = data.draw(st.integers(1, first.size))
    f, s = first.copy(), second.copy()
    kernels._sort_pairs(f, s, k)
    order = np.lexsort((second[:k], first[:k]))  # by value, ties by original position: the stable order
    np.testing.assert_array_equal(f[:k], first[:k][order])
    np.testing.assert_array_equal(s[:k], second[:k][order])
    np.testing.assert_array_equal(f[k:], first[k:])  # the rest untouched
