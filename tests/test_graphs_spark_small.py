"""Small graphs in ``dpmo.graphs.spark.top_k`` (``dpmo.graphs.spark.small``): one Spark job, then the driver.

The path is chosen from public inputs (the node set's size) and Spark's plan estimate only; it must give the
statistics of the Spark pipeline, the picks of the in-memory pipeline for the same seed (so the law that the
Spark path's law tests compare with), the Spark path's budget records (``tests/test_graphs_spark.py``,
``test_budget_records_match_the_in_memory_ones``) and the same refusals, naming no node of an edge.
Neighbouring relation: edge differential privacy (graphs on the same public node set differing in one edge).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dpmo
from dpmo import graphs

pyspark = pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')

from dpmo.graphs import spark as dpmo_spark  # noqa: E402
from dpmo.graphs.chebyshev import graph_chebyshev_settings  # noqa: E402
from dpmo.graphs.spark import small  # noqa: E402
from dpmo.graphs.spark.statistics import prepare  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

# a triangle, a square with a chord, a pendant path, an isolated node (9), duplicates and a self-loop
PAIRS = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 6), (6, 3), (3, 5), (6, 7), (7, 8)]
PAIRS += [(1, 0), (4, 3), (8, 8), (0, 1)]
N = 10


def _edges(spark, pairs, kind="long"):
    return spark.createDataFrame([tuple(p) for p in pairs], f"src {kind}, dst {kind}")


def test_the_choice_reads_public_inputs_and_the_plan_estimate_only(spark, spark_jobs):
    listed = _edges(spark, PAIRS)  # built from a Python list: Spark has no size estimate
    estimated = spark.createDataFrame(pd.DataFrame(PAIRS, columns=["a", "b"]))  # Spark knows its rows
    n_big = 10**4  # n (n - 1) / 2 above SMALL_EDGES
    with spark_jobs() as jobs:
        got = [
            small.is_small(*prepare(listed, N, "t")),
            small.is_small(*prepare(listed, n_big, "t")),
            small.is_small(*prepare(estimated, n_big, "t")),
            small.is_small(*prepare(estimated, small.SMALL_NODES + 1, "t")),
        ]
    assert jobs == [] and got == [True, False, True, False]


@pytest.mark.parametrize("nodes", [N, np.arange(N)])
def test_a_small_graph_costs_one_spark_job(spark, spark_jobs, nodes):
    # ids 0 .. n-1: one job; other ids are numbered by a broadcast join, whose broadcast of the public index
    # may be a job of its own, depending on Spark's plan for local data (none in a fresh session): so the
    # count is that of the edge-codes query alone on the same inputs, and one more at most
    edges = _edges(spark, PAIRS)
    budget = dpmo.Budget(1.0)
    with spark_jobs() as jobs:
        picks = dpmo_spark.top_k(edges, 3, 1.0, nodes=nodes, budget=budget)
    if isinstance(nodes, int):
        assert len(jobs) == 1
    else:
        e, ns = prepare(edges, nodes, "t")
        with spark_jobs() as query:
            small.edge_codes(e, ns, ns.ids).collect()
        assert len(jobs) == len(query) in (1, 2)
    assert len(set(picks)) == 3 and budget.spent_exact == 1


@pytest.mark.parametrize("nodes", ["range", "array", "frame"])
@pytest.mark.slow
def test_driver_statistics_equal_the_spark_pipeline(spark, nodes):
    ids = np.arange(N) * 3 + 5 if nodes != "range" else np.arange(N)
    pairs = [(int(ids[a]), int(ids[b])) for a, b in PAIRS]
    frame = spark.createDataFrame([(int(x),) for x in ids], "n long") if nodes == "frame" else None
    node_set = {"range": N, "array": ids[::-1], "frame": frame}[nodes]
    got_ids, degree, ego = small.driver_statistics(*prepare(_edges(spark, pairs), node_set, "t"))
    if nodes == "range":  # the Spark pipeline itself
        want = dpmo_spark.node_statistics(_edges(spark, pairs), N).orderBy("node").toPandas()
    else:  # the in-memory statistics, which tests/test_graphs_spark.py compares the Spark pipeline with
        g = graphs.load_graph(np.array(pairs), nodes=ids)
        want = {"node": g.ids, "degree": g.degree, "ego_density": g.ego_density()}
    assert got_ids.tolist() == want["node"].tolist()
    assert degree.tolist() == want["degree"].tolist()
    assert ego.tolist() == want["ego_density"].tolist()  # the same floats


@pytest.mark.slow
def test_text_ids_on_the_driver(spark):
    pairs = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "c"), ("d", "d")]
    ids = np.array(["e", "d", "c", "b", "a"])
    g = graphs.load_graph(np.array(pairs), nodes=ids)
    for nodes in (ids, spark.createDataFrame([(x,) for x in ids], "id string")):
        got_ids, degree, ego = small.driver_statistics(*prepare(_edges(spark, pairs, "string"), nodes, "t"))
        assert got_ids.tolist() == sorted(ids.tolist())
        assert degree.tolist() == g.degree.tolist() and ego.tolist() == g.ego_density().tolist()
        picks = dpmo_spark.top_k(_edges(spark, pairs, "string"), 2, 1e6, nodes=nodes, approach="agg")
        # "a" and "b" tie (degree 2, ego density 1): the best two, in either order
        assert set(picks) == set(graphs.top_k_exact(g, 2, approach="agg").tolist()) == {"a", "b"}


SEEDED = [
    ("agg", "local", "exponential"),
    ("agg", "global", "permute_and_flip"),
    ("chebyshev", "local", "exponential"),
    ("chebyshev", "global", "laplace"),
    ("pareto", "local", "exponential"),
]


@pytest.mark.parametrize("approach, sensitivity, mechanism", SEEDED)
@pytest.mark.slow
def test_the_picks_are_the_in_memory_pipelines(spark, approach, sensitivity, mechanism):
    # for every seed the very picks of dpmo.graphs.top_k (the float sampler, Spark's default; PrivChebyshev
    # with the fixed graph settings, here on 40 public nodes at epsilon 1: its rounds, below the released
    # graph's rule): the small path samples the in-memory law, which the Spark path's law tests
    # (tests/test_graphs_spark.py) compare the executors' picks with
    n, eps = (40, 1.0) if approach == "chebyshev" else (N, 2.0)
    edges, g = _edges(spark, PAIRS), graphs.load_graph(np.array(PAIRS), nodes=n)
    fixed = {"directions": graph_chebyshev_settings(n, 3)[0]} if approach == "chebyshev" else {}
    settings = {"approach": approach, "sensitivity": sensitivity, "mechanism": mechanism}
    seen = set()
    for seed in range(4):
        got = dpmo_spark.top_k(edges, 3, eps, nodes=n, rng=seed, **settings)
        want = graphs.top_k(g, 3, eps, rng=seed, exact=False, **settings, **fixed)
        assert got == want.tolist()
        seen.add(tuple(got))
    assert len(seen) > 1  # random picks, not a fixed answer


@pytest.mark.slow
def test_refusals_name_no_endpoint(spark):
    edges = _edges(spark, PAIRS)
    for nodes in (8, np.arange(8), spark.createDataFrame([(i,) for i in range(N) if i != 4], "node long")):
        budget = dpmo.Budget(1.0)
        with pytest.raises(ValueError, match="an edge names a node that is not in nodes") as err:
            dpmo_spark.top_k(edges, 2, 1.0, nodes=nodes, budget=budget)
        assert not any(str(v) in str(err.value).split("nodes (")[0] for v in (4, 8)) and not budget.ledger
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes") as err:
        dpmo_spark.top_k(_edges(spark, [("a", "zed")], "string"), 1, 1.0, nodes=["a", "b"])
    assert "zed" not in str(err.value)
    with pytest.raises(ValueError, match="null"):
        dpmo_spark.top_k(spark.createDataFrame([(0, 1), (0, None)], "src long, dst long"), 1, 1.0, nodes=3)


@pytest.mark.slow
def test_the_driver_receives_the_distinct_edges_only(spark):
    rng = np.random.default_rng(0)
    n = 12
    u, v = rng.integers(0, n, 3000), rng.integers(0, n, 3000)  # many repeats, both directions, self-loops
    ids = np.arange(n) * 7 - 3  # a node set that is not 0 .. n-1
    want = sorted({min(a, b) * n + max(a, b) for a, b in zip(u.tolist(), v.tolist(), strict=True)})
    for nodes, pairs in ((n, zip(u, v, strict=True)), (ids, zip(ids[u], ids[v], strict=True))):
        e, ns = prepare(_edges(spark, [(int(a), int(b)) for a, b in pairs]).repartition(3), nodes, "t")
        codes = sorted(r.code for r in small.edge_codes(e, ns, None if ns.is_range else ns.ids).collect())
        assert codes == want and len(codes) <= n * (n + 1) // 2


@pytest.mark.slow
def test_chebyshev_releases_the_graph_where_the_in_memory_call_does(spark, monkeypatch):
    """Where the released graph's rule holds (always on 10 nodes), "chebyshev" releases the graph on both
    paths, with the in-memory call's picks for the same seed (the fixed settings' gated picks) and one
    budget record; a bad endpoint is refused before anything is spent."""
    from dpmo.graphs.chebyshev_fixed import gated_chebyshev_picks
    from dpmo.graphs.pair_response import uses_released_graph

    edges, g = _edges(spark, PAIRS), graphs.load_graph(np.array(PAIRS), nodes=N)
    S = graph_chebyshev_settings(N, 3)[2]
    assert uses_released_graph(N, 3.0)
    cases = ((0, 3.0, False, "local"), (1, 1e6, False, "global"), (2, 3.0, True, "global"))
    for seed, eps, exact, sens in cases:  # the small path
        b = dpmo.Budget(eps)
        kw = {"rng": seed, "exact": exact, "sensitivity": sens}
        got = dpmo_spark.top_k(edges, 3, None, nodes=N, approach="chebyshev", budget=b, **kw)
        want = graphs.top_k(g, 3, eps, approach="chebyshev", shares=S, **kw)
        assert got == want.tolist()
        assert [r.mechanism for r in b.ledger] == ["randomized_response"] and b.spent == eps
    ids = np.arange(N) * 3 + 1  # ids that are not 0 .. n-1: numbered by the broadcast join
    named = _edges(spark, [(int(ids[a]), int(ids[b])) for a, b in PAIRS])
    monkeypatch.setattr(dpmo_spark.small, "SMALL_NODES", 0)  # the executors
    # seed 4: its flips move the picks away from the true graph's gated picks (3, 5, 0): the executors
    # apply the very flips the in-memory call draws
    b = dpmo.Budget(3.0)
    got = dpmo_spark.top_k(named, 3, 3.0, nodes=ids, approach="chebyshev", rng=4, budget=b)
    want = graphs.top_k(g, 3, 3.0, approach="chebyshev", shares=S, rng=4, exact=False)
    W, A, _ = graph_chebyshev_settings(N, 3)
    assert want.tolist() != gated_chebyshev_picks(g.degree, g.ego_density(), 3, W, A).tolist()
    assert got == ids[want].tolist() and [r.mechanism for r in b.ledger] == ["randomized_response"]
    b = dpmo.Budget(3.0)
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes"):
        dpmo_spark.top_k(edges, 2, 3.0, nodes=8, approach="chebyshev", budget=b)
    assert not b.ledger
    monkeypatch.undo()  # the small path refuses before the spend too
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes"):
        dpmo_spark.top_k(edges, 2, 3.0, nodes=8, approach="chebyshev", budget=b)
    assert not b.ledger
