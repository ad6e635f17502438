"""Objective, LocalSensitivity, run-time checks, and the audit helpers themselves."""

from __future__ import annotations

import numpy as np
import pytest

import dpmo
from dpmo.audit import check_admissibility, local_sensitivity_at_distance, max_log_ratio


def test_objective_is_immutable_and_copies():
    vals = np.array([1.0, 2.0])
    obj = dpmo.Objective(vals, 1.0, name="u")
    vals[0] = 99
    assert obj.values[0] == 1.0
    with pytest.raises(ValueError):
        obj.values[0] = 5
    with pytest.raises(AttributeError):
        obj.name = "v"
    assert obj.n == len(obj) == 2 and "u" in repr(obj)


def test_sensitivity_is_capped_and_checked():
    obj = dpmo.Objective([1.0, 2.0, 3.0], 2.0, lambda t: np.array([1.0, 3.0, 0.5 * t]), name="u")
    np.testing.assert_allclose(obj.sensitivity(0), [1.0, 2.0, 0.0])
    np.testing.assert_allclose(obj.sensitivity(10, idx=np.array([2])), [2.0])
    np.testing.assert_allclose(dpmo.Objective([1.0], 3.0).sensitivity(4), [3.0])
    bad = {
        "shape": lambda t: np.ones(2),
        "negative": lambda t: -np.ones(3),
        "finite": lambda t: np.full(3, np.inf),
    }
    for word, f in bad.items():
        with pytest.raises(ValueError, match=f"'bad'.*{word}|{word}"):
            dpmo.Objective([1.0, 2.0, 3.0], 1.0, f, name="bad").sensitivity(0)
    with pytest.raises(TypeError, match="t must"):
        obj.sensitivity(1.5)
    with pytest.raises(ValueError, match="t must"):
        obj.sensitivity(-1)


@pytest.mark.parametrize(
    "args, exc",
    [
        (([], 1.0), ValueError),
        (([1.0, np.nan], 1.0), ValueError),
        (([1.0], 0.0), ValueError),
        (([1.0], -1.0), ValueError),
        (([1.0], 1.0, "f"), TypeError),
    ],
)
def test_objective_bad_input(args, exc):
    with pytest.raises(exc):
        dpmo.Objective(*args)


def test_take_restricts_values_and_local():
    plain = dpmo.Objective([0.0, 1.0, 2.0, 3.0], 5.0, lambda t: np.arange(4.0) + t)
    indexed = dpmo.Objective(
        [0.0, 1.0, 2.0, 3.0],
        5.0,
        dpmo.LocalSensitivity(lambda t, idx: (np.arange(4.0) + t)[idx if idx is not None else slice(None)]),
    )
    for obj in (plain, indexed):
        sub = obj.take([3, 1])
        np.testing.assert_allclose(sub.values, [3.0, 1.0])
        np.testing.assert_allclose(sub.sensitivity(1), [4.0, 2.0])
        np.testing.assert_allclose(sub.sensitivity(1, idx=np.array([1])), [2.0])
        assert sub.global_sensitivity == 5.0
    with pytest.raises(ValueError):
        plain.take([7])


def test_check_admissibility_finds_violations():
    # Counting utility u = N with neighbours N +- 1: delta = 1 is admissible, delta = 0.5 breaks condition 1,
    # and delta(t) = 1 + (N - t) breaks condition 2 (it decreases along a path of neighbours).
    states = [(n,) for n in range(10)]

    def nbrs(s):
        yield (s[0] + 1,)
        if s[0]:
            yield (s[0] - 1,)

    util = lambda s: np.array([float(s[0])])  # noqa: E731
    assert check_admissibility(states, nbrs, util, lambda s, t: np.ones(1), t_max=5) == []
    v1 = check_admissibility(states, nbrs, util, lambda s, t: np.full(1, 0.5), t_max=5)
    assert v1 and {v.condition for v in v1} == {1}
    v2 = check_admissibility(
        states, nbrs, util, lambda s, t: np.full(1, 1.0 + max(0, 20 - s[0] - t)), t_max=5
    )
    assert v2 and {v.condition for v in v2} == {2}
    exact = local_sensitivity_at_distance(states, nbrs, lambda s: np.array([float(s[0] ** 2)]), t_max=2)
    # u = N^2: LS(N, 0) = 2N + 1 (moving up), LS(N, t) = 2(N + t) + 1
    for n in range(7):
        np.testing.assert_allclose(exact[(n,)][:, 0], [2 * (n + t) + 1 for t in range(3)])


def test_max_log_ratio():
    assert max_log_ratio([0.5, 0.5], [0.25, 0.75]) == pytest.approx(np.log(2))
    assert max_log_ratio([1.0, 0.0], [0.5, 0.5]) == np.inf
    assert max_log_ratio([1.0, 0.0], [1.0, 0.0]) == 0.0


def test_objective_pickles():
    import pickle

    obj = dpmo.Objective([1.0, 2.0], 1.5, name="u")
    back = pickle.loads(pickle.dumps(obj))
    np.testing.assert_array_equal(back.values, obj.values)
    assert back.global_sensitivity == 1.5 and back.name == "u" and back.local is None


def test_objectives_on_rows_share_one_array_that_the_counting_state_takes():
    # the graph objectives' values are the rows of one read-only array: the same objectives as built one
    # by one, and PrivPareto's state takes the (m, n) matrix without a copy (a copy for any other list)
    from dpmo.sensitivity import objectives_on_rows, stacked_values

    rng = np.random.default_rng(0)
    V = rng.normal(size=(2, 30))
    loc = lambda t: np.full(30, 0.5)  # noqa: E731
    objs = objectives_on_rows(V, [(1.0, loc, "a"), (2.0, None, "b")])
    single = [dpmo.Objective(V[0], 1.0, loc, name="a"), dpmo.Objective(V[1], 2.0, name="b")]
    for o, ref in zip(objs, single, strict=True):
        assert np.array_equal(o.values, ref.values) and not o.values.flags.writeable
        assert o.global_sensitivity == ref.global_sensitivity and o.name == ref.name
        assert np.array_equal(o.sensitivity(2), ref.sensitivity(2))
    V[0, 0] = 99.0  # the input was copied
    assert objs[0].values[0] != 99.0
    U = stacked_values(objs)
    assert U.shape == (2, 30) and np.shares_memory(U, objs[0].values) and np.shares_memory(U, objs[1].values)
    for others in (single, objs[::-1], objs[:1]):
        W = stacked_values(others)
        assert not np.shares_memory(W, objs[0].values)
        np.testing.assert_array_equal(W, np.vstack([o.values for o in others]))
    with pytest.raises(ValueError, match="finite"):
        objectives_on_rows([[1.0, np.nan]], [(1.0, None, "c")])
    with pytest.raises(ValueError, match="one spec per row"):
        objectives_on_rows(V, [(1.0, None, "a")])


def test_graph_objectives_equal_the_single_objectives():
    import networkx as nx

    from dpmo import graphs

    g = graphs.load_graph(nx.karate_club_graph(), nodes=34)
    pair = graphs.objectives(g)
    for o, ref in zip(pair, (graphs.degree_objective(g), graphs.ego_density_objective(g)), strict=True):
        np.testing.assert_array_equal(o.values, ref.values)
        for t in (0, 1, 5):
            np.testing.assert_array_equal(o.sensitivity(t), ref.sensitivity(t))
        assert (o.name, o.global_sensitivity) == (ref.name, ref.global_sensitivity)
    assert graphs.objectives(g)[0] is pair[0]  # cached as a pair


def test_graph_objectives_share_the_graphs_ego_density():
    # built before the graph's ego density, the pair computes it into its own row and the graph keeps
    # that row; built after, the graph's array is copied. The same floats either way.
    import networkx as nx

    from dpmo import graphs

    G = nx.gnm_random_graph(60, 200, seed=3)
    first = graphs.load_graph(G, nodes=60)
    pair = graphs.objectives(first)
    ego = first.ego_density()
    assert np.shares_memory(ego, pair[1].values) and not ego.flags.writeable
    second = graphs.load_graph(G, nodes=60)
    ego2 = second.ego_density()
    pair2 = graphs.objectives(second)
    assert not np.shares_memory(ego2, pair2[1].values)
    np.testing.assert_array_equal(pair2[1].values, pair[1].values)
    np.testing.assert_array_equal(ego2, ego)
    with pytest.raises(ValueError, match="out must be"):
        graphs.centrality.ego_density_from_counts([2, 3], [1, 1], 0.0, "paper", np.empty(3))
