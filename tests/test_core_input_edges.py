"""The core functions at the edges of their inputs: a TypeError / ValueError naming the argument, or a
correct output; never a NaN, a deep error or a refusal after the private data were used.

Each case was found failing by a fuzzing pass (dpmo 0.1.0 at 7c505ed): declared ranges wider than the floats
(a ZeroDivisionError in chebyshev, non-finite staircase scores), hypervolume ratios of large values (NaN),
boolean masks and floats read as indices, string labels counted as positives, numpy's own messages, and
``local_dampening`` checking its arguments only after running the local function.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.metrics import dominates, hypervolume, hypervolume_ratio, tpr_tnr, weighted_fitness

O = dpmo.Objective


# ---------------------------------------------------------------------------------------- declared ranges
@pytest.mark.parametrize(
    "bounds, sensitivity, error, match",
    [
        ((-1e308, 1e308), 1.0, ValueError, "width high - low must be a finite number"),
        ((0.0, 5e-324), 1e-310, ValueError, "width high - low must be a finite number"),
        ((0.0, 1e300), 1e-300, ValueError, r"global sensitivity over the width .* \[1e-100, 1e100\]"),
        ((0.0, 1e-100), 1e10, ValueError, r"global sensitivity over the width .* \[1e-100, 1e100\]"),
        ({0: "x", 1: "y"}, 1.0, TypeError, "must be a pair"),
        (("0", "1"), 1.0, TypeError, "must be a pair"),
        ((0, 1, 2), 1.0, TypeError, "must be a pair"),
        ((True, 2), 1.0, TypeError, "must be a pair"),
    ],
)
def test_bounds_without_range_units_are_refused(bounds, sensitivity, error, match):
    with pytest.raises(error, match=match):
        O([1.0, 2.0], sensitivity, bounds=bounds)


@pytest.mark.parametrize("approach", ["chebyshev", "staircase", "pareto"])
@pytest.mark.parametrize(
    "first, second",
    [
        ((1e-100, (0.0, 1.0)), (1e100, (0.0, 1.0))),  # the finest and the coarsest range units together
        ((1e-50, (0.0, 1e50)), (1.0, (0.0, 1e-99))),
        ((1e-20, (-1e79, 1e79)), (1e-300, (0.0, 1e-250))),
    ],
)
def test_the_extremes_of_the_range_units_select(approach, first, second):
    rng = np.random.default_rng(1)
    objs = []
    for s, (lo, hi) in (first, second):
        objs.append(O(lo + (hi - lo) * rng.random(9), s, bounds=(lo, hi)))
    for eps in (1.0, 50.0, 1e6):
        out = dpmo.select_multiobjective(objs, eps, approach=approach, k=3, rng=0)
        assert len(set(out.tolist())) == 3


# ---------------------------------------------------------------------------------------- hypervolume
def test_hypervolume_of_values_beyond_the_floats():
    assert hypervolume_ratio([[1e200, 1e200]], [[1e200, 1e200]], 1) == 1.0
    assert hypervolume([[1e308, 1.0], [1e308, 2.0]], [-1e308, 0.0]) == np.inf
    assert hypervolume_ratio([[1e308, 1.0]], [[1e308, 1.0], [-1e308, 2.0]], 1, lower=-1.7e308) == 1.0


def test_hypervolume_ratio_of_subnormal_values():
    """The scale 2^-e was made as a factor, inf for a subnormal largest value (inf * 0 = nan)."""
    with np.errstate(all="raise"):
        assert hypervolume_ratio([[1e-320, 1.0]], [[2e-320, 1.0], [1e-320, 1.0]], 1) == 0.5
        assert hypervolume_ratio([[1e308, 1e-308]], [[1.7e308, 1e-308]], 1) == pytest.approx(1 / 1.7)


@settings(max_examples=40, deadline=None)
@given(
    front=st.lists(
        st.tuples(st.floats(0.01, 1.0), st.floats(0.01, 1.0), st.floats(0.01, 1.0)), min_size=1, max_size=7
    ),
    picks=st.lists(st.integers(0, 6), min_size=1, max_size=3),
    power=st.sampled_from([-1000, -300, 0, 300, 1000]),
    m=st.sampled_from([2, 3]),
)
def test_the_ratio_does_not_depend_on_the_scale(front, picks, power, m):
    """Scaling every objective by ``2^power`` leaves the ratio unchanged, bit for bit, even where the
    plain hypervolumes would overflow or underflow (their products of up to three values)."""
    F = np.asarray(front)[:, :m]
    P = F[[i % len(F) for i in picks]]
    plain = hypervolume_ratio(P, F, 3)
    scaled = hypervolume_ratio(np.ldexp(P, power), np.ldexp(F, power), 3)
    assert 0.0 <= plain <= 1.0 and scaled == plain


def test_max_subsets_is_checked():
    with pytest.raises(TypeError, match="max_subsets"):
        hypervolume_ratio([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]], 1, max_subsets="x")


# ---------------------------------------------------------------------------------------- metrics
def test_metrics_refuse_what_they_cannot_read():
    with pytest.raises(ValueError, match="^values must have the objectives on their last axis"):
        weighted_fitness(3.0, [1.0])
    with pytest.raises(ValueError, match="^weights must be finite"):
        weighted_fitness([[1.0, 2.0]], [np.nan, 1.0])
    with pytest.raises(TypeError, match="^A must be an array of real numbers"):
        dominates([["a"]], [[1.0]])
    with pytest.raises(TypeError, match="^y_true must hold binary labels"):
        tpr_tnr(["yes", "no"], [1, 0])
    with pytest.raises(ValueError, match="^y_true must hold binary labels 0 and 1"):
        tpr_tnr([np.nan, 1.0], [1, 0])
    with pytest.raises(ValueError, match="^y_pred must hold binary labels 0 and 1"):
        tpr_tnr([1, 0], [2, 0])
    assert tpr_tnr([True, False, 1, 0], [1.0, 0.0, 0, 0]) == (0.5, 1.0)


# ---------------------------------------------------------------------------------------- indices
def test_masks_and_floats_are_not_read_as_indices():
    f = dpmo.pareto_sensitivity([O([3.0, 1, 2, 0], 1.0), O([1.0, 3, 2, 0], 1.0)])
    for idx in (np.array([True, False, True, False]), np.array([1.9])):
        with pytest.raises(TypeError, match="^idx must be a 1-D array of integer candidate indices"):
            f(0, idx)
    assert f(0, np.array([1, 3])).tolist() == f(0)[[1, 3]].tolist()
    obj = O([1.0, 2.0, 3.0], 1.0)
    with pytest.raises(TypeError, match="^idx must be"):
        obj.take([True, False, True])
    assert obj.take([0, -1]).values.tolist() == [1.0, 3.0]


# ---------------------------------------------------------------------------------------- messages
def test_messages_name_the_argument():
    objs = [O([0.0, 1, 2], 1.0), O([2.0, 1, 0], 1.0)]
    with pytest.raises(TypeError, match="^shares must be a sequence of k positive numbers"):
        dpmo.priv_chebyshev(objs, 1.0, k=2, shares=["a", "b"], rng=0)
    with pytest.raises(TypeError, match="^local sensitivity of .* must return real numbers"):
        dpmo.dampen([0.0, 1.0], lambda t: "x", global_sensitivity=1.0)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"epsilon": -1.0}, ValueError),
        ({"epsilon": 1.0, "rng": "x"}, TypeError),
        ({"epsilon": 1.0, "k": 5}, ValueError),
        ({"epsilon": 1.0, "mechanism": "nope"}, ValueError),
    ],
)
def test_local_dampening_refuses_before_the_local_function_runs(kwargs, error):
    calls = []

    def local(t):
        calls.append(t)
        return np.full(3, 1e-3)

    kwargs = dict(kwargs)
    eps = kwargs.pop("epsilon")
    with pytest.raises(error):
        dpmo.local_dampening(np.array([0.0, 5.0, 10.0]), eps, local, global_sensitivity=1.0, **kwargs)
    assert calls == []


# ---------------------------------------------------------------------------------------- ids and counts
def test_recall_and_front_share_read_any_collection_of_ids():
    """A set or a dict view became a 0-d object array: recall([4, 7, 9], {7, 9, 11, 12}) was 0.0."""
    from dpmo.metrics import front_share, recall

    assert recall([4, 7, 9], {7, 9, 11, 12}) == 0.5 and front_share([4, 7, 9, 1], {7, 9}) == 0.5
    assert recall([1, 2], {1: 0, 2: 0}.keys()) == 1.0 and recall(["a", "b"], ["b"]) == 1.0
    for call, error in [
        (lambda: recall([1], None), TypeError),
        (lambda: recall([float("nan")], [float("nan")]), TypeError),
        (lambda: recall([1, 2], ["1", "2"]), TypeError),  # ints never match strings: refused, not 0
    ]:
        with pytest.raises(error, match="ids"):
            call()


def test_coverage_needs_one_number_of_objectives():
    from dpmo.metrics import coverage

    with pytest.raises(ValueError, match="same number of objectives"):
        coverage(np.zeros((2, 0)), np.zeros((1, 0)))  # was 1.0, the worst score
    with pytest.raises(ValueError, match="same number of objectives"):
        coverage(np.zeros((0, 3)), [[1.0, 2.0]])  # was 0.0


def test_ego_density_sensitivity_refuses_what_has_no_sensitivity():
    from dpmo import graphs

    for degree, t in [([10], float("nan")), ([float("nan")], 0), ([float("inf")], 0), ([-3], 1)]:
        with pytest.raises(ValueError, match="(degree|t) must be"):
            graphs.ego_density_sensitivity(degree, t)
    with pytest.raises(TypeError, match="t must be numbers"):
        graphs.ego_density_sensitivity([10], "1")
    assert graphs.ego_density_sensitivity([10, 3], 6).tolist() == [0.5, 1.0]  # 2 / (10 - 6); capped at 1


def test_mean_ci_level_and_edge_list_delimiter(tmp_path):
    from dpmo import graphs
    from dpmo.experiments import mean_ci

    for level in (2, -1, float("nan"), True):
        with pytest.raises(ValueError, match="level must be a number in"):
            mean_ci([1.0, 2.0], level=level)
    edges = tmp_path / "e.txt"
    edges.write_text("0 1\n1 2\n")
    for delimiter in ("\n", "\r"):
        with pytest.raises(ValueError, match="line break"):
            graphs.read_edge_list(edges, delimiter=delimiter)


def test_observed_nodes_for_a_loaded_graph_say_what_to_give():
    """The message read "nodes must be node ids, an int n or 'observed', got 'observed'"."""
    import networkx as nx

    from dpmo import graphs

    g = graphs.load_graph(nx.path_graph(3), nodes=3)
    with pytest.raises(TypeError, match="here give the public node ids or an int n"):
        graphs.load_graph(g, nodes="observed")


def test_priv_agg_scales_weights_whose_sensitivity_underflows():
    """sum |w_i| Delta u_i = 1e-100 * 1e-300 underflowed to 0: priv_agg refused it naming an internal
    objective; it scales such public weights by a power of two as it scales tiny weights (the same law)."""
    tiny = [O([0.0, 1e-300, 5e-301], 1e-300), O([1e-300, 0.0, 2.5e-301], 1e-300)]
    w = 2.0**-340  # (about 4.5e-103: w * 1e-300 underflows); the same weights times a power of two
    for sensitivity in ("global", "local"):
        for seed in range(5):
            got = dpmo.priv_agg(tiny, [w, 2 * w], 3.0, sensitivity=sensitivity, rng=seed)
            want = dpmo.priv_agg(tiny, [1.0, 2.0], 3.0, sensitivity=sensitivity, rng=seed)
            assert got.tolist() == want.tolist()
    with pytest.raises(ValueError, match="underflows to 0 for weights"):
        dpmo.aggregate([O([0.0, 1.0], 0.5)], [5e-324])


def test_chebyshev_and_staircase_helpers_check_their_arguments():
    """NaN scores for a NaN aspiration, an unknown sensitivity read as "local", numpy's message for a text
    direction, itertools' for m = 0, an empty array for k = -1, a (1, 4) candidate read as two points."""
    from dpmo.chebyshev import chebyshev_scores, dampened_excess, default_directions
    from dpmo.greedy_hypervolume import hypervolume_gains, reference_offset

    u = O([3.0, 1.0, 5.0], 2.0)
    refused = [
        (ValueError, "aspiration", lambda: dampened_excess(u, float("nan"), "global")),
        (TypeError, "aspiration", lambda: dampened_excess(u, "1")),
        (ValueError, "sensitivity", lambda: dampened_excess(u, 1.0, "glob")),
        (TypeError, "directions", lambda: chebyshev_scores([u, u], "ab")),
        (ValueError, "direction is required", lambda: chebyshev_scores([u, u], None)),
        (ValueError, "k must", lambda: default_directions(-1, 3)),
        (ValueError, "m must", lambda: default_directions(2, 0)),
        (TypeError, "m must", lambda: default_directions(2, 2.5)),
        (ValueError, "candidates", lambda: hypervolume_gains([[1, 2], [3, 4]], [[1, 2, 3, 4]], [0, 0])),
        (ValueError, "candidates", lambda: hypervolume_gains([[1, 2]], [[1, 2]], [0])),
        (ValueError, "points", lambda: hypervolume_gains([[1, np.nan]], [[1, 2]], [0, 0])),
        (TypeError, "m must", lambda: reference_offset(3, 2.9)),
    ]
    for error, name, call in refused:
        with pytest.raises(error, match=name):
            call()
    assert hypervolume_gains([], [[1.0, 2.0]], [0.0, 0.0]).tolist() == [2.0]
    assert dampened_excess(u, 1.0, "global").tolist() == [1.0, 0.0, 2.0]


def test_reference_offset_for_two_objectives_is_the_loops():
    """m = 2 has the closed form H = max(1, k - 1) (the loop took k steps in every round)."""
    import math

    from dpmo.greedy_hypervolume import reference_offset

    for k in [*range(1, 60), 10**6]:
        H = 1
        while math.comb(H + 1, 1) < k:
            H += 1
        assert reference_offset(k, 2) == 1.0 / (2 * H)
