"""The compiled path of PrivPareto among few candidates (``dpmo.pareto.small``) against the general one.

The general path (``dpmo.pareto.state.ParetoState`` driven by ``dpmo.dampen``) is itself checked against the
paper's set definitions in ``tests/test_pareto.py`` and by the exhaustive admissibility tests; here every
output of the small path must be the very float (bit for bit) of the general path, on random problems with
ties, zero and capped deltas, constant runs (the dampening loop's probes), long walks (the table of running
sums extended several times) and removed candidates; and the thresholds behind its ``delta^PS`` must give
the direct count at every distance.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.datasets import load_breast_cancer
from dpmo.pareto import small as small_mod
from dpmo.pareto.rounds import round_scores
from dpmo.pareto.state import ParetoState
from dpmo.trees import DPMOETClassifier

LEVELS = np.array([0.0, 1e-5, 1e-3, 0.01, 0.1, 0.3, 0.7, 2.0])  # 2.0: above every global sensitivity (capped)


def stepwise_local(levels: np.ndarray, breaks: np.ndarray) -> dpmo.LocalSensitivity:
    """``delta(t, r) = levels[r, #{breaks[r] <= t}]``: non-decreasing, constant between breaks; evaluates a
    distance (result (q,)) or a block ``t`` of shape (B, 1) (result (B, q)), on all or ``idx``."""

    def f(t, idx=None):
        lv = levels if idx is None else levels[idx]
        br = breaks if idx is None else breaks[idx]
        k = np.sum(br <= np.asarray(t)[..., None], axis=-1)  # (q,) or (B, q)
        return lv[np.arange(lv.shape[0]), k]

    return dpmo.LocalSensitivity(f, vectorized_t=True)


def problem(seed: int, n: int, m: int, long: bool):
    """Objectives over ``n`` candidates: utilities on a coarse grid (ties) of non-representable tenths;
    stepwise local functions (some None); ``long``: distinct utilities and tiny early deltas, so that
    ``delta^PS`` stays 0 for many distances and the loop walks far."""
    rng = np.random.default_rng(seed)
    U = rng.random((n, m)) if long else rng.integers(0, 5, size=(n, m)) * 0.1
    objs = []
    for i in range(m):
        G = float(rng.choice([0.5, 1.0]))
        if rng.random() < 0.2:
            objs.append(dpmo.Objective(U[:, i], G, name=f"u{i}"))
            continue
        L = 4
        first = rng.integers(1, 2, size=(n, 1)) if long else rng.integers(0, len(LEVELS), size=(n, 1))
        steps = rng.integers(0, 3, size=(n, L - 1))
        idx = np.minimum(np.cumsum(np.hstack([first, steps]), axis=1), len(LEVELS) - 1)
        breaks = np.sort(
            rng.integers(500, 20_000, size=(n, L - 1)) if long else rng.integers(0, 60, size=(n, L - 1)),
            axis=1,
        )
        objs.append(dpmo.Objective(U[:, i], G, stepwise_local(LEVELS[idx], breaks), name=f"u{i}"))
    return objs


def general_scores(objs, removed, sensitivity):
    state = ParetoState(objs)
    for r in removed:
        state.remove(int(r))
    rem = np.delete(np.arange(objs[0].n), removed)
    return round_scores(state, rem, sensitivity), rem


def same_floats(a, b) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()  # also tells -0.0 from 0.0


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    m=st.integers(1, 3),
    long=st.booleans(),
    n_removed=st.integers(0, 5),
)
def test_round_scores_are_the_general_paths_floats(seed, n, m, long, n_removed):
    objs = problem(seed, n, m, long)
    removed = np.random.default_rng(seed + 1).permutation(n)[: min(n_removed, n - 2)]
    sums = small_mod.RunningSums(objs)
    for sensitivity in ("local", "global"):
        (want, want_sens), rem = general_scores(objs, removed, sensitivity)
        got = small_mod.small_round_scores(sums, rem, sensitivity)
        if got is None:  # a table too large for the walk: the caller takes the general path
            assert sensitivity == "local"
            continue
        assert same_floats(got[0], want) and got[1] == want_sens


def test_long_walks_extend_the_table_and_probe():
    """Tiny deltas for thousands of distances: the table is extended several times and the loop's probes
    jump over constant runs; the scores stay the general path's."""
    seen_rows = []
    for seed in range(12):
        objs = problem(seed, 30, 2, True)
        sums = small_mod.RunningSums(objs)
        (want, _), rem = general_scores(objs, [], "local")
        got, _ = small_mod.small_round_scores(sums, rem, "local")
        assert same_floats(got, want)
        seen_rows.append(sums.rows)
    assert max(seen_rows) > 1000  # walks far beyond the first table of 64 distances


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25), m=st.integers(1, 3), long=st.booleans())
def test_thresholds_give_the_direct_count_at_every_distance(seed, n, m, long):
    """``#{tau <= t} - 1 - #{sigma > t}`` equals the identity of dpmo.pareto counted directly at t."""
    objs = problem(seed, n, m, long)
    sums = small_mod.RunningSums(objs)
    sums.extend(300)
    rem = np.random.default_rng(seed).permutation(n)[: max(2, n - 2)].astype(np.int64)
    q = rem.size
    tau = np.empty((q, q), np.int64)
    sig = np.empty((q, q), np.int64)
    U, S = sums.U, sums.S
    for c in range(q):
        small_mod._thresholds(U, S, rem, c, tau, sig)
    for t in range(0, S.shape[0], 7):
        up, lo = U + S[t], U - S[t]  # (m, n)
        for c in range(q):
            r = rem[c]
            can = np.all(up[:, rem] >= lo[:, [r]], axis=0).sum() - 1
            sure = np.all(lo[:, rem] > up[:, [r]], axis=0).sum()
            want = min(float(can - sure), float(q - 1))
            assert small_mod._delta_ps(tau, sig, c, t, float(q - 1)) == want


def test_running_sums_are_sequential_and_validated():
    """Rows added one distance after the other (the general path's floats, whatever the chunks), and a
    local function that decreases in t across two chunks is refused."""
    objs = problem(3, 10, 2, True)
    a, b = small_mod.RunningSums(objs), small_mod.RunningSums(objs)
    a.extend(700)
    for rows in (5, 64, 130, 700):  # several extensions
        b.extend(rows)
    assert a.rows == b.rows and same_floats(a.S, b.S)
    want = np.zeros((a.rows, 2, 10))
    run = np.zeros((2, 10))
    for t in range(a.rows):  # S_t = S_{t-1} + min(delta(t), Delta u), one distance at a time
        for i, o in enumerate(objs):
            d = o.global_sensitivity if o.local is None else np.minimum(o.local(t), o.global_sensitivity)
            run[i] = run[i] + d
        want[t] = run
    assert same_floats(a.S, want)

    def dip(t, idx=None):
        t = np.asarray(t, dtype=float)
        out = np.where(t < 64, 0.5, 0.25) * np.ones(3 if idx is None else len(idx))
        return out

    bad = small_mod.RunningSums([dpmo.Objective([0.0, 1.0, 2.0], 1.0, dpmo.LocalSensitivity(dip, True))])
    bad.extend(10)
    with pytest.raises(ValueError, match="decreases in t"):
        bad.extend(200)


def test_path_taken_by_sizes_and_declared_capabilities_only():
    vec = problem(0, 10, 2, False)
    assert small_mod.small_path_applies(vec, "local")
    plain = [dpmo.Objective(np.arange(10.0), 1.0, lambda t: np.full(10, 0.1))]  # one distance per call
    assert not small_mod.small_path_applies(plain, "local") and small_mod.small_path_applies(plain, "global")
    big = [dpmo.Objective(np.arange(small_mod.SMALL_N + 1.0), 1.0)]
    assert not small_mod.small_path_applies(big, "global")


def _picks(objs, seed, k, sensitivity, exact):
    return dpmo.priv_pareto(objs, 1.0, k=k, sensitivity=sensitivity, rng=seed, exact=exact).tolist()


@pytest.mark.parametrize("exact", [False, True])
def test_priv_pareto_outputs_identical_with_and_without_the_small_path(monkeypatch, exact):
    """The same picks run by run (the same scores, so the same random stream is consumed), also when a
    table would be too large and a round falls back to the general path."""
    cases = [(seed, problem(seed, 12 + seed % 20, 1 + seed % 3, seed % 2 == 0)) for seed in range(16)]
    small = {(s, sens): _picks(o, s, 4, sens, exact) for s, o in cases for sens in ("local", "global")}
    with monkeypatch.context() as mp:
        mp.setattr(small_mod, "MAX_TABLE_CELLS", 64 * 3 * 31)  # long walks fall back in mid-selection
        capped = {(s, sens): _picks(o, s, 4, sens, exact) for s, o in cases for sens in ("local", "global")}
    monkeypatch.setattr(small_mod, "SMALL_N", 0)
    general = {(s, sens): _picks(o, s, 4, sens, exact) for s, o in cases for sens in ("local", "global")}
    assert small == general == capped


def test_dpmoet_fits_identical_with_and_without_the_small_path(monkeypatch):
    data = load_breast_cancer()
    settings_ = dict(approach="pareto", population_size=30, selection_size=3, n_iterations=3, initial_depth=4,
                     max_depth=10, n_output=3, features=data.features)  # fmt: skip

    def fits():
        out = []
        for seed in range(6):
            for sens in ("local", "global"):
                clf = DPMOETClassifier(epsilon=1.0, sensitivity=sens, random_state=seed, **settings_)
                clf.fit(data.X, data.y)
                out.append([repr(t) for t in clf.trees_])
        return out

    with_small = fits()
    monkeypatch.setattr(small_mod, "SMALL_N", 0)
    assert fits() == with_small
