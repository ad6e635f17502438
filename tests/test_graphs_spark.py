"""DP-MOTkIN on Spark (``dpmo.graphs.spark``): same statistics, same distributions, same refusals.

Spark runs in local mode (``local[2]``), started once by the session fixture ``spark`` of
``tests/conftest.py``: the
docs' session (Spark's defaults; the web UI off), started with ``python3`` on ``PATH`` an interpreter
without dpmo, as a user's virtual environment that is not activated would have it. The tests are skipped,
with the reason, when pyspark or Java is missing; ``.ci/run`` checks for Java first, so on CI they run.
They share one xdist group, so that ``pytest -n 2`` starts one JVM.

Neighbouring relation of the privacy statements tested here: edge differential privacy (graphs on the same
public node set that differ in one edge). The output distributions are compared with exact probabilities
of the in-memory pipeline (:func:`dpmo.probabilities` of the scores ``dpmo.graphs`` samples from) or with
in-memory samples, with a chi-square test at level 1e-3 and seeded randomness (deterministic).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

import dpmo
from dpmo import graphs
from dpmo.epsilons import exact_epsilon, float_at_most
from law_tests import chi_square_p

pyspark = pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')

from dpmo.graphs import spark as dpmo_spark  # noqa: E402
from dpmo.graphs.chebyshev import chebyshev_round_scores, graph_chebyshev_settings  # noqa: E402
from dpmo.graphs.pair_response import uses_released_graph  # noqa: E402
from dpmo.graphs.spark import statistics as spark_statistics  # noqa: E402
from dpmo.graphs.spark.scores import ScoreSpec, round_sensitivity, score_frame  # noqa: E402
from dpmo.selection import round_parts  # noqa: E402
from dpmo.spark.sampling import Plan, SparkSelection, plan_rounds, run_plan  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("spark"),
    # pyspark 4.x warns about pandas 3 on every pandas conversion; nothing here depends on it
    pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

DOCS = Path(__file__).resolve().parents[1] / "docs"
ENRON_NODES, GITHUB_NODES = 36_692, 37_700


def _edges_df(spark, pairs, kind="long"):
    return spark.createDataFrame([tuple(p) for p in pairs], f"src {kind}, dst {kind}")


def _collect_stats(df):
    return df.orderBy("node").toPandas()


# A small graph with every kind of node: a triangle 0-1-2, a square with a chord 3-4-5-6, a pendant path,
# an isolated node (9), a duplicate, a reversed duplicate and a self-loop.
SMALL = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 6), (6, 3), (3, 5), (6, 7), (7, 8)]
SMALL += [(1, 0), (4, 3), (8, 8)]
SMALL_N = 10


@pytest.fixture(scope="module")
def small(spark):
    edges = _edges_df(spark, SMALL)
    g = graphs.load_graph(np.array(SMALL), nodes=SMALL_N)
    return edges, g


@pytest.fixture
def spark_path(monkeypatch):
    """top_k on the executors even for small graphs (no graph is small: dpmo.graphs.spark.small)."""
    monkeypatch.setattr(dpmo_spark.small, "SMALL_NODES", 0)


@pytest.fixture(scope="module")
def small_stats(spark, small):
    return dpmo_spark.node_statistics(small[0], SMALL_N)


# ------------------------------------------------------------------------------------------ imports
@pytest.mark.slow
def test_dpmo_imports_without_pyspark():
    # one interpreter: importing dpmo, dpmo.graphs and dpmo.trees imports no pyspark (so they import where
    # pyspark cannot be imported); then, pyspark made unimportable, the Spark module says what to install
    code = (
        "import sys, dpmo, dpmo.graphs, dpmo.trees\n"
        "print('loaded:', 'pyspark' in sys.modules)\n"
        "sys.modules['pyspark'] = None\n"
        "try:\n"
        "    from dpmo.graphs import spark\n"
        "except ImportError as exc:\n"
        "    print('refused:', exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "loaded: False" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert "refused:" in proc.stdout and 'pip install ".[spark]"' in proc.stdout


# ------------------------------------------------------------------------------------------ statistics
@pytest.mark.slow  # small_stats: the executor pipeline, its Python workers started cold (about 28 s of CPU)
def test_small_graph_statistics_equal_the_in_memory_ones(small, small_stats):
    _, g = small
    got = _collect_stats(small_stats)
    assert list(got.columns) == list(dpmo_spark.STATISTICS_COLUMNS)
    assert got["node"].tolist() == list(range(SMALL_N))  # the isolated node 9 is there, with degree 0
    assert got["degree"].tolist() == g.degree.tolist()
    assert got["triangles"].tolist() == g.triangles.tolist()
    assert got["ego_density"].tolist() == g.ego_density().tolist()  # the same floats


@pytest.mark.slow
def test_text_ids_and_a_node_set_given_as_a_dataframe(spark):
    pairs = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "c")]
    ids = np.array(["a", "b", "c", "d", "e"])
    g = graphs.load_graph(np.array(pairs), nodes=ids)
    nodes = spark.createDataFrame([(x,) for x in ids], "id string")
    got = _collect_stats(dpmo_spark.node_statistics(_edges_df(spark, pairs, "string"), nodes))
    assert got["node"].tolist() == ids.tolist()
    assert got["triangles"].tolist() == g.triangles.tolist()
    assert got["ego_density"].tolist() == g.ego_density().tolist()


@pytest.mark.slow
def test_a_parquet_path_is_read_by_row_groups_with_the_same_statistics(spark, small, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder := tmp_path / "small.parquet").mkdir()
    u, v = np.array(SMALL).T  # two files of int64 and int32 ids, row groups of 4 rows: 3 + 2 groups
    for i, part in enumerate((slice(0, 9), slice(9, None))):
        table = pa.table({"a": u[part].astype(np.int32 if i else np.int64), "b": v[part]})
        pq.write_table(table, folder / f"part-{i}.parquet", row_group_size=4)
    assert len(spark_statistics.parquet_pieces(str(folder))[1]) == 5  # read by pyarrow, not by Spark
    got, g = _collect_stats(dpmo_spark.node_statistics(str(folder), SMALL_N)), small[1]
    assert got["triangles"].tolist() == g.triangles.tolist() and got["degree"].tolist() == g.degree.tolist()


@pytest.fixture(scope="module")
def enron(spark, shared_data):
    # read by Spark from the text file (checked line by line), kept on the executors for the tests below
    edges = dpmo_spark.read_edges(shared_data / "Email-Enron.txt").localCheckpoint(eager=True)
    return edges, graphs.load_graph(shared_data / "Email-Enron.txt", nodes=ENRON_NODES)


@pytest.mark.slow
def test_enron_statistics_equal_the_in_memory_ones_exactly(enron):
    edges, g = enron
    got = _collect_stats(dpmo_spark.node_statistics(edges, ENRON_NODES))
    np.testing.assert_array_equal(got["node"].to_numpy(), g.ids)
    np.testing.assert_array_equal(got["degree"].to_numpy(), graphs.degree(g))
    np.testing.assert_array_equal(got["triangles"].to_numpy(), graphs.triangles(g))
    assert got["ego_density"].tolist() == graphs.ego_density(g).tolist()  # floats identical


@pytest.mark.slow
def test_github_statistics_equal_the_in_memory_ones_exactly(spark, shared_data):
    path = shared_data / "musae_git_edges.csv"
    got = _collect_stats(dpmo_spark.node_statistics(dpmo_spark.read_edges(path, header=True), GITHUB_NODES))
    g = graphs.load_graph(path, nodes=GITHUB_NODES, header=True)
    np.testing.assert_array_equal(got["degree"].to_numpy(), graphs.degree(g))
    np.testing.assert_array_equal(got["triangles"].to_numpy(), graphs.triangles(g))
    assert got["ego_density"].tolist() == graphs.ego_density(g).tolist()


@pytest.mark.slow
def test_enron_top_k_at_huge_epsilon_is_the_exact_top_k(enron):
    edges, g = enron
    budget = dpmo.Budget(1e6)
    picks = dpmo_spark.top_k(edges, 10, 1e6, nodes=ENRON_NODES, approach="agg", budget=budget)
    assert picks == graphs.top_k_exact(g, 10, approach="agg").tolist()
    assert sum(r.epsilon for r in budget.ledger) == Fraction(1e6) and len(budget.ledger) == 10


@pytest.mark.slow
def test_triangles_use_degree_ordered_wedges(spark):
    # a hub joined to 300 leaves, and a path among some leaves: the naive wedge join lists C(300, 2) = 44,850
    # wedges at the hub; oriented from lower to higher (degree, id), every leaf points to the hub
    pairs = [(0, i) for i in range(1, 301)] + [(i, i + 1) for i in range(1, 40)]
    n = 301
    g = graphs.load_graph(np.array(pairs), nodes=n)
    deg = g.degree
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), deg))] = np.arange(n)
    a, b = g.edges().T
    src = np.where(rank[a] < rank[b], a, b)
    out_degree = np.bincount(src, minlength=n)
    expected_wedges = int((out_degree * (out_degree - 1) // 2).sum())
    naive_wedges = int((deg * (deg - 1) // 2).sum())
    from dpmo.spark.blocks import decode

    e = spark.createDataFrame([tuple(p) for p in pairs], "u long, v long")
    _, sent, _ = spark_statistics.triangle_steps(e, 2)
    rows = [decode(r.blob) for r in sent.collect()]  # key, origin, degree, offsets, values per block
    listed = sum(int(np.diff(offsets)[degree < 0].sum()) for _, _, degree, offsets, _ in rows)
    assert listed == expected_wedges  # the wedges Spark lists
    assert expected_wedges < naive_wedges / 100
    got = _collect_stats(dpmo_spark.node_statistics(_edges_df(spark, pairs), n))
    assert got["triangles"].tolist() == g.triangles.tolist()


# ------------------------------------------------------------------------------------------ refusals
@pytest.mark.slow
def test_refusals(spark, small):
    edges, _ = small
    for call in (
        lambda: dpmo_spark.node_statistics(edges, None),
        lambda: dpmo_spark.top_k(edges, 2, 1.0),
        lambda: dpmo_spark.top_k(edges, 2, 1.0, nodes=None),
    ):
        with pytest.raises(ValueError, match="nodes= is required"):
            call()
    # an edge naming a node outside the public node set (7 and 8 are not in 0..6): refused, the node unnamed
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes") as err:
        dpmo_spark.node_statistics(edges, 7)
    assert "8" not in str(err.value)
    subset = spark.createDataFrame([(i,) for i in range(SMALL_N) if i != 4], "node long")
    with pytest.raises(ValueError, match="an edge names a node that is not in nodes") as err:
        dpmo_spark.node_statistics(edges, subset)
    assert "4" not in str(err.value)
    budget = dpmo.Budget(1.0)
    with pytest.raises(ValueError, match="not in nodes"):
        dpmo_spark.top_k(edges, 2, 1.0, nodes=8, budget=budget)
    assert budget.spent == 0 and not budget.ledger
    with pytest.raises(ValueError, match="null"):
        dpmo_spark.node_statistics(spark.createDataFrame([(0, None)], "src long, dst long"), 3)
    with pytest.raises(ValueError, match="duplicates"):
        dpmo_spark.node_statistics(edges, spark.createDataFrame([(0,), (0,)], "node long"))
    with pytest.raises(TypeError, match="text ids"):
        dpmo_spark.node_statistics(_edges_df(spark, [("a", "b")], "string"), 3)
    with pytest.raises(ValueError, match="exactly two columns"):
        dpmo_spark.node_statistics(spark.createDataFrame([(0, 1, 2)], "a long, b long, c long"), 3)
    with pytest.raises(ValueError, match="k must"):
        dpmo_spark.top_k(edges, SMALL_N + 1, 1.0, nodes=SMALL_N)
    with pytest.raises(ValueError, match="mechanism"):
        dpmo_spark.top_k(edges, 2, 1.0, nodes=SMALL_N, mechanism="nope")


@pytest.mark.slow
def test_malformed_text_edge_list_is_refused(spark, tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text("% comment\n1 2\n2 3 4\n")
    with pytest.raises(ValueError, match="a line is not two integer node ids") as err:
        dpmo_spark.read_edges(path)
    assert "2 3 4" not in str(err.value)  # the line is private
    path.write_text("# c\nid_1,id_2\n1,2\n")
    with pytest.raises(ValueError, match="a header"):
        dpmo_spark.read_edges(path)
    assert [tuple(r) for r in dpmo_spark.read_edges(path, header=True).collect()] == [(1, 2)]
    # a folder of files: the first data line of each is its header (after '%' and '#' comments)
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_text("% made by hand\nsrc,dst\n1,2\n2,3\n")
    (folder / "b.csv").write_text("src,dst\n3, 4 # a comment\n")
    got = sorted(tuple(r) for r in dpmo_spark.read_edges(folder, header=True).collect())
    assert got == [(1, 2), (2, 3), (3, 4)]


def test_budget_is_checked_before_any_spark_job(spark, spark_jobs, small, monkeypatch):
    edges, _ = small
    with spark_jobs() as jobs:
        with pytest.raises(dpmo.BudgetExceededError):
            dpmo_spark.top_k(edges, 2, 1.0, nodes=SMALL_N, budget=dpmo.Budget(0.5))
        # the driver paths refuse a node set above the limit from n alone (public), also before any job
        monkeypatch.setattr(dpmo_spark.topk, "DRIVER_MAX_NODES", 5)
        with pytest.raises(ValueError, match="DRIVER_MAX_NODES"):
            dpmo_spark.top_k(edges, 2, 1.0, nodes=SMALL_N, approach="pareto")
    assert jobs == []


def _fixed_rounds(g, k: int, epsilon: float, **kw) -> np.ndarray:
    """The ids :func:`dpmo.priv_chebyshev` picks with the fixed graph settings: what ``graphs.top_k(...,
    approach="chebyshev", shares=...)`` and the Spark path run below the released graph's rule (on these
    10 nodes both always release the graph; the law tests here sample the rounds directly)."""
    W, A, S = graph_chebyshev_settings(g.n_nodes, k)
    idx = dpmo.priv_chebyshev(graphs.objectives(g), epsilon, k=k, directions=W, aspirations=A, shares=S, **kw)
    return g.ids[idx]


# ------------------------------------------------------------------------------------------ budget records
@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("approach", ["agg", "chebyshev"])
@pytest.mark.slow
def test_budget_records_match_the_in_memory_ones(spark, small, approach, delta, monkeypatch):
    edges, g = small
    # 40 public nodes (30 without edges) at epsilon 1: below the released graph's rule, so "chebyshev" runs
    # its rounds (its released graph: tests/test_graphs_spark_small.py)
    n, eps = 40, 1.0
    assert not uses_released_graph(n, eps)
    g = graphs.load_graph(g.edges(), nodes=n)
    b_small, b_spark = dpmo.Budget(2.0, delta=delta), dpmo.Budget(2.0, delta=delta)
    b_mem = dpmo.Budget(2.0, delta=delta)
    settings = {"nodes": n, "approach": approach, "rng": 3, "delta": delta}
    small_picks = dpmo_spark.top_k(edges, 3, eps, budget=b_small, **settings)  # small: on the driver
    monkeypatch.setattr(dpmo_spark.small, "SMALL_NODES", 0)  # the executors
    picks = dpmo_spark.top_k(edges, 3, eps, budget=b_spark, **settings)
    # Spark runs PrivChebyshev with the fixed graph settings (the in-memory default is the staircase)
    fixed = {"directions": graph_chebyshev_settings(n, 3)[0]} if approach == "chebyshev" else {}
    graphs.top_k(g, 3, eps, approach=approach, budget=b_mem, rng=3, delta=delta, **fixed)
    for p in (picks, small_picks):
        assert len(set(p)) == 3 and set(p) <= set(range(n))
    got = [(r.epsilon, r.mechanism, r.sensitivity, r.candidates) for r in b_spark.ledger]
    want = [(r.epsilon, r.mechanism, r.sensitivity, r.candidates) for r in b_mem.ledger]
    assert got == want and (approach == "agg" or len(got) == 3)
    assert b_spark.spent_exact == Fraction(eps)
    # the small graph's path records exactly what the executors' path records (labels included)
    assert list(b_small.ledger) == list(b_spark.ledger) and b_small.spent_exact == b_spark.spent_exact
    assert b_small.spent_delta == b_spark.spent_delta


@pytest.mark.parametrize("on_executors", [False, True])
@pytest.mark.slow
def test_a_single_node_is_returned_without_looking_at_the_data(spark, on_executors, monkeypatch):
    if on_executors:
        monkeypatch.setattr(dpmo_spark.small, "SMALL_NODES", 0)
    empty = spark.createDataFrame([], "src long, dst long")
    ledgers = []
    for approach in ("agg", "chebyshev"):
        budget = dpmo.Budget(1.0)
        assert dpmo_spark.top_k(empty, 1, 1.0, nodes=[42], approach=approach, budget=budget) == [42]
        assert budget.spent_exact == 1 and budget.ledger[0].mechanism is None
        ledgers.append([r.what for r in budget.ledger])
    assert ledgers == [
        ["graphs.spark.top_k: the only candidate, no data used"],
        ["graphs.spark.top_k: round 1 of 1 (one candidate left, no data used)"],
    ]


# ------------------------------------------------------------------------------------------ distributions
def _exact_pair_probabilities(round_scores, round_eps, sens, mechanism):
    """P(first = a, second = b) of two rounds without replacement: round j samples from round_scores[j]."""
    n = round_scores[0].size
    p1 = dpmo.probabilities(round_scores[0], round_eps[0], sens[0], mechanism=mechanism)
    out = {}
    for a in range(n):
        rest = np.delete(np.arange(n), a)
        p2 = dpmo.probabilities(round_scores[1][rest], round_eps[1], sens[1], mechanism=mechanism)
        for b, q in zip(rest, p2, strict=True):
            out[(a, int(b))] = p1[a] * q
    return out


def _round_settings(g, approach, sensitivity, k, epsilon):
    """The in-memory scores of each round, the per-round float epsilons and the sensitivities."""
    total = exact_epsilon(epsilon)
    if approach == "agg":
        scores, sens = graphs.selection_scores(g, approach="agg", sensitivity=sensitivity)
        eps = float_at_most(total / k)
        return [scores] * k, [eps] * k, [sens] * k
    objs = graphs.objectives(g)
    _, _, shares = graph_chebyshev_settings(g.n_nodes, k)
    parts = round_parts(total, k, shares / shares.sum())
    rounds = [chebyshev_round_scores(objs, g.n_nodes, k, j, sensitivity) for j in range(k)]
    return [r[0] for r in rounds], [float_at_most(p) for p in parts], [r[1] for r in rounds]


def _spark_trials(stats, g, approach, sensitivity, mechanism, k, epsilon, trials, seed, mode=None):
    if approach == "agg":
        spec = ScoreSpec("agg", sensitivity, (1.0, 100.0))
    else:
        W, A, _ = graph_chebyshev_settings(SMALL_N, k)
        spec = ScoreSpec("chebyshev", sensitivity, None, W, A)
    _, eps, _ = _round_settings(g, approach, sensitivity, k, epsilon)
    sens = round_sensitivity(spec)
    rounds = [(0 if approach == "agg" else j, eps[j], sens[0 if approach == "agg" else j]) for j in range(k)]
    sel = SparkSelection(score_frame(stats, spec), entropy=[seed, 1, 2, 3])
    try:
        tops = sel.top_values(k)
        plan = plan_rounds(approach == "agg", mechanism, rounds, k, tops)
        if mode is not None:
            plan = Plan(mode, plan.rounds, mechanism)
        return plan, run_plan(sel, plan, k, tops, trials=trials)
    finally:
        sel.close()


DISTRIBUTION_CASES = [
    ("agg", "local", "exponential", "one_shot"),
    ("agg", "global", "exponential", "one_shot"),
    ("agg", "local", "permute_and_flip", "rounds"),
    ("chebyshev", "local", "exponential", "rounds"),
    ("chebyshev", "global", "permute_and_flip", "rounds"),
    ("agg", "local", "exponential", "sequential"),
]


@pytest.mark.parametrize("approach, sensitivity, mechanism, mode", DISTRIBUTION_CASES)
@pytest.mark.slow
def test_output_distribution_equals_the_exact_in_memory_one(
    small, small_stats, approach, sensitivity, mechanism, mode
):
    _, g = small
    k, epsilon, trials = 2, 3.0, 4000
    plan, picks = _spark_trials(
        small_stats, g, approach, sensitivity, mechanism, k, epsilon, trials, 11, mode
    )
    assert plan.mode == mode
    counts = Counter(tuple(p) for p in picks)
    scores, eps, sens = _round_settings(g, approach, sensitivity, k, epsilon)
    probs = _exact_pair_probabilities(scores, eps, sens, mechanism)
    assert chi_square_p(counts, probs, trials) > 1e-3
    if mode == "one_shot" and sensitivity == "local":  # the test has power: a doubled epsilon is rejected
        wrong = _exact_pair_probabilities(scores, [2 * e for e in eps], sens, mechanism)
        assert chi_square_p(counts, wrong, trials) < 1e-6


@pytest.mark.slow
def test_laplace_distribution_equals_in_memory_samples(small, small_stats):
    _, g = small
    k, epsilon, trials = 2, 3.0, 3000
    _, picks = _spark_trials(small_stats, g, "chebyshev", "local", "laplace", k, epsilon, trials, 5)
    rng = np.random.default_rng(5)
    settings = {"mechanism": "laplace", "exact": False}  # the fixed settings' rounds, as Spark runs them
    memory = [tuple(_fixed_rounds(g, k, epsilon, rng=rng, **settings).tolist()) for _ in range(trials)]
    cells = sorted(set(memory) | {tuple(p) for p in picks})
    a, b = Counter(tuple(p) for p in picks), Counter(memory)
    table = np.array([[a.get(c, 0) for c in cells], [b.get(c, 0) for c in cells]])
    table = table[:, table.sum(axis=0) >= 10]  # sparse cells dropped
    assert sps.chi2_contingency(table).pvalue > 1e-3


@pytest.mark.slow  # small_stats: the executor pipeline, its Python workers started cold (about 28 s of CPU)
def test_executor_scores_equal_the_in_memory_scores(small, small_stats):
    _, g = small
    for sensitivity in ("local", "global"):
        sel = SparkSelection(score_frame(small_stats, ScoreSpec("agg", sensitivity, (1.0, 100.0))), [0] * 4)
        try:
            got = sel.scores.orderBy("node").toPandas()["s0"].to_numpy()
        finally:
            sel.close()
        want, _ = graphs.selection_scores(g, approach="agg", sensitivity=sensitivity)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("sensitivity", ["local", "global"])
@pytest.mark.slow
def test_pareto_on_the_driver_gives_the_in_memory_answers(spark, small, sensitivity, spark_path):
    # the driver path is the in-memory pipeline on the collected statistics: the same seed, the same picks
    # (the float sampler, the Spark default, on both sides); the statistics computed by Spark here
    edges, g = small
    for seed in (0, 1):
        got = dpmo_spark.top_k(
            edges, 2, 1.0, nodes=SMALL_N, approach="pareto", sensitivity=sensitivity, rng=seed
        )
        want = graphs.top_k(g, 2, 1.0, approach="pareto", sensitivity=sensitivity, rng=seed, exact=False)
        assert got == want.tolist()


def test_staircase_on_the_driver_is_the_in_memory_staircase(spark, small):
    # approach="staircase": the graph form of graphs.top_k (releases between rounds), on the driver; the
    # same seed gives the same picks and the same ledger (a release before each round)
    edges, g = small
    # epsilon 0.5: the staircase; 1.5: the top-first plan; 3.5: a public coin between them, drawn from the
    # same rng on both paths (docs/pareto.md); 20: the staircase with the ego signal's release (issue 38)
    for eps, n_records in ((0.5, 6), (1.5, 4), (3.5, None), (20.0, 6)):
        b_spark, b_mem = dpmo.Budget(eps), dpmo.Budget(eps)
        got = dpmo_spark.top_k(edges, 3, eps, nodes=SMALL_N, approach="staircase", rng=3, budget=b_spark)
        want = graphs.top_k(g, 3, eps, approach="staircase", rng=3, exact=False, budget=b_mem)
        assert got == want.tolist()
        assert [(r.mechanism, r.epsilon) for r in b_spark.ledger] == [
            (r.mechanism, r.epsilon) for r in b_mem.ledger
        ]
        if n_records is not None:
            assert len(b_spark.ledger) == n_records and b_spark.ledger[0].mechanism == "laplace"
    # one pick (k = 1): one round with all of epsilon and no release, on both paths
    b_spark, b_mem = dpmo.Budget(2.0), dpmo.Budget(2.0)
    got = dpmo_spark.top_k(edges, 1, 2.0, nodes=SMALL_N, approach="staircase", rng=5, budget=b_spark)
    assert got == graphs.top_k(g, 1, 2.0, approach="staircase", rng=5, exact=False, budget=b_mem).tolist()
    assert [(r.mechanism, r.epsilon) for r in b_spark.ledger] == [("exponential", 2.0)]
    assert [(r.mechanism, r.epsilon) for r in b_mem.ledger] == [("exponential", 2.0)]


def test_exact_sampling_on_the_driver_gives_the_in_memory_answers(spark, small):
    edges, g = small
    # Spark runs PrivChebyshev with the fixed graph settings (the in-memory default is the staircase): on
    # 10 nodes the released graph, on 40 public nodes at epsilon 1 its rounds (sampled on the driver)
    for n in (SMALL_N, 40):
        got = dpmo_spark.top_k(edges, 3, 1.0, nodes=n, approach="chebyshev", exact=True, rng=4)
        fixed = graph_chebyshev_settings(n, 3)[0]
        h = graphs.load_graph(g.edges(), nodes=n)
        want = graphs.top_k(h, 3, 1.0, approach="chebyshev", directions=fixed, exact=True, rng=4)
        assert got == want.tolist()


def test_the_spark_path_keeps_the_float_sampler_by_default():
    import inspect

    from dpmo import _defaults

    default = inspect.signature(dpmo_spark.top_k).parameters["exact"].default
    assert default is _defaults.EXACT_SPARK is False
    for page in ("core.md", "spark.md"):  # documented where the defaults are
        assert "EXACT_SPARK" in (DOCS / page).read_text()


@pytest.mark.slow
def test_a_seed_reproduces_the_picks(spark, small, spark_path):
    edges, _ = small
    a = dpmo_spark.top_k(edges, 3, 2.0, nodes=SMALL_N, mechanism="permute_and_flip", rng=7)
    b = dpmo_spark.top_k(edges, 3, 2.0, nodes=SMALL_N, mechanism="permute_and_flip", rng=7)
    assert a == b


# ------------------------------------------------------------------------------------------ docs
def _spark_modules() -> list[str]:
    return sorted(
        ["dpmo.graphs.spark"]
        + [m.name for m in pkgutil.walk_packages(dpmo_spark.__path__, prefix="dpmo.graphs.spark.")]
    )


@pytest.mark.slow
def test_doctests_of_the_spark_modules(spark):
    # run here, in the Spark session (tests/test_doctests.py leaves these modules out)
    failures = []
    for name in _spark_modules():
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            out: list[str] = []
            runner.run(test, out=out.append)
            if runner.failures:
                failures.append("".join(out))
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_the_docs_page_example_runs(spark, shared_data, tmp_path):
    text = (DOCS / "spark.md").read_text()
    block = re.search(r"```python\n(# example: parquet.*?)```", text, re.S)
    assert block, "docs/spark.md lost its example"
    # Spark resolves relative paths against the JVM's directory, fixed when it started: write to tmp_path
    out = tmp_path / "enron-edges.parquet"
    code = (
        block.group(1)
        .replace("../shared/data", str(shared_data))
        .replace('"enron-edges.parquet"', repr(str(out)))
    )
    namespace: dict = {}
    exec(compile(code, "docs/spark.md", "exec"), namespace)
    picks, budget = namespace["picks"], namespace["budget"]
    assert len(picks) == 5 and len(set(picks)) == 5 and all(0 <= v < ENRON_NODES for v in picks)
    assert budget.spent_exact == Fraction(1) and out.exists()
