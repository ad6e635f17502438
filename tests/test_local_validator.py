"""One validator for local sensitivity functions (issue 12 item 5): every entry point refuses the same bad
functions (wrong shape, not finite, negative, decreasing in t) with the same message."""

from __future__ import annotations

import numpy as np
import pytest

import dpmo

N = 6
U1 = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 50.0])
U2 = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 40.0])  # candidates 0..4 dominated: Pareto scores need steps


def plain(kind):
    def f(t):
        if kind == "decreasing":
            return np.full(N, max(0.01, 1.0 - 0.3 * t))
        if kind == "negative":
            return np.full(N, -1.0)
        if kind == "nan":
            return np.full(N, np.nan)
        return np.ones(N + 1)  # shape

    return f


def vectorised(kind):
    def f(t, idx):
        t = np.asarray(t, dtype=float)
        size = N if idx is None else len(idx)
        shape = np.broadcast_shapes(t.shape, (size,))
        if kind == "decreasing":
            return np.broadcast_to(np.maximum(0.01, 1.0 - 0.3 * t), shape).copy()
        if kind == "negative":
            return np.full(shape, -1.0)
        if kind == "nan":
            return np.full(shape, np.nan)
        return np.ones((*shape[:-1], size + 1))

    return dpmo.LocalSensitivity(f, vectorized_t=True)


MESSAGES = {"decreasing": "decreases in t", "negative": "negative", "nan": "not finite", "shape": "shape"}


def entry_points(local):
    objs = [dpmo.Objective(U1, 60.0, local), dpmo.Objective(U2, 60.0, local)]
    return {
        "dampen": lambda: dpmo.dampen(U1, local, global_sensitivity=60.0),
        "local_dampening": lambda: dpmo.local_dampening(U1, 1.0, local, global_sensitivity=60.0, rng=0),
        "priv_agg": lambda: dpmo.priv_agg(objs, (1.0, 1.0), 1.0, rng=0),
        "priv_pareto": lambda: dpmo.priv_pareto(objs, 1.0, rng=0),
        "priv_chebyshev": lambda: dpmo.priv_chebyshev(objs, 1.0, rng=0),
    }


@pytest.mark.parametrize("make", [plain, vectorised], ids=["plain", "vectorised"])
@pytest.mark.parametrize("kind", list(MESSAGES))
@pytest.mark.parametrize("entry", ["dampen", "local_dampening", "priv_agg", "priv_pareto", "priv_chebyshev"])
def test_every_entry_point_refuses_bad_local_functions(make, kind, entry):
    call = entry_points(make(kind))[entry]
    with pytest.raises(ValueError, match=MESSAGES[kind]):
        call()


def test_non_decreasing_function_accepted_everywhere():
    ok = dpmo.LocalSensitivity(
        lambda t, idx: np.broadcast_to(
            np.minimum(1.0 + np.asarray(t, float), 5.0),
            np.broadcast_shapes(np.shape(t), (N if idx is None else len(idx),)),
        ).copy(),
        vectorized_t=True,
    )
    for name, call in entry_points(ok).items():
        assert np.asarray(call()).size >= 1, name
