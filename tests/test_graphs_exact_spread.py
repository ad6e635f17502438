"""Exact references of the spread approaches (chebyshev, staircase) and ``dpmo topk --show-exact-statistics``
for every approach (issue 37, point 4)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from dpmo import graphs
from dpmo.cli import main
from dpmo.metrics import hypervolume


def _brute_greedy(points: np.ndarray, k: int) -> list[float]:
    """The hypervolume after each greedy round, by brute force over every node (reference (0, 0))."""
    chosen: list[int] = []
    areas = []
    for _ in range(k):
        base = hypervolume(points[chosen], 0.0) if chosen else 0.0
        gains = [
            -1.0 if v in chosen else hypervolume(points[[*chosen, v]], 0.0) - base for v in range(len(points))
        ]
        v = int(np.argmax(gains))
        chosen.append(v)
        areas.append(hypervolume(points[chosen], 0.0))
    return areas


@pytest.mark.parametrize("seed", range(6))
def test_spread_reference_is_the_greedy_hypervolume(seed):
    g = nx.gnp_random_graph(14, 0.3, seed=seed)
    points = np.column_stack([graphs.degree(g), graphs.ego_density(g)]).astype(float)
    for k in (1, 3, 6):
        for approach in ("chebyshev", "staircase"):
            picks = graphs.top_k_exact(g, k, approach=approach)
            assert len(set(picks.tolist())) == k
            # each prefix reaches the area that the brute-force greedy rounds reach (ties may pick others)
            got = [hypervolume(points[picks[: j + 1]], 0.0) for j in range(k)]
            assert np.allclose(got, _brute_greedy(points, k), rtol=1e-12, atol=1e-12)


def test_spread_reference_fills_up_in_the_fixed_order():
    # a star: the hub (degree 4, ego density 0) and leaves (degree 1): the front adds nothing after one pick
    g = nx.star_graph(4)
    picks = graphs.top_k_exact(g, 5, approach="staircase", low_degree=1.0)
    assert sorted(picks.tolist()) == [0, 1, 2, 3, 4]
    for a, b in itertools.pairwise(picks.tolist()[1:]):
        assert a < b or graphs.degree(g)[a] > graphs.degree(g)[b]


def _topk(tmp_path, capsys, approach, *extra):
    edges = nx.karate_club_graph().edges()
    path = tmp_path / "karate.txt"
    path.write_text("".join(f"{u} {v}\n" for u, v in edges))
    argv = ["topk", str(path), "-k", "3", "--epsilon", "1", "--seed", "0", "--n-nodes", "34"]
    code = main([*argv, "--approach", approach, *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("approach", ["pareto", "agg", "chebyshev", "staircase"])
def test_topk_show_exact_statistics_exits_0_for_every_approach(tmp_path, capsys, approach):
    code, out, err = _topk(tmp_path, capsys, approach, "--show-exact-statistics")
    assert code == 0, err
    assert err == ""
    last = out.strip().splitlines()[-1]
    assert last.startswith("# exact (non-private) ")
    kw = {"weights": (1.0, 100.0)} if approach == "agg" else {}
    exact = graphs.top_k_exact(nx.karate_club_graph(), 3, approach=approach, **kw)
    assert last.split(": ")[-1].split() == [str(v) for v in exact.tolist()]
    assert "NOT PRIVATE" in out


def test_cli_error_keeps_the_closing_quote():
    # a message reaches the user as it is written (the closing quote of "got 'chebyshev'" used to be lost);
    # a KeyError's own quotes around its message are dropped
    from dpmo.cli.applications import _message

    text = "approach must be one of ['agg', 'pareto'], got 'chebyshev'"
    assert _message(ValueError(text)) == text
    missing = "node 'a' is not in the public node set"
    assert _message(KeyError(missing)) == missing
