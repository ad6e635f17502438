"""The general problem on Spark (``dpmo.spark.select``, ``dpmo select --spark``): the law of ``dpmo select``
on the same rows, its budget records, its refusals, and the command line.

Spark runs in local mode (the session fixture ``spark`` of ``tests/conftest.py``: ``local[2]``, 2 shuffle
partitions), in the xdist group of ``tests/test_graphs_spark.py`` (one JVM under ``pytest -n 2``).

Neighbouring relation of the privacy statements tested here: whatever the declared global sensitivities
of the objective columns are stated for (``dpmo select``'s). The law is compared with the exact
probabilities of the in-memory pipeline on the table as ``dpmo select`` reads it
(:func:`dpmo.cli.select_command.read_candidates`, the objectives built as that command builds them):
``dpmo.probabilities`` of each round's scores, with a chi-square test at level 1e-3 and seeded randomness.
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
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmo
from dpmo.chebyshev import chebyshev_selection_scores, default_directions
from dpmo.cli import main
from dpmo.cli.select_command import read_candidates
from dpmo.epsilons import exact_epsilon, float_at_most
from dpmo.selection import selection_scores
from law_tests import chi_square_p

pytest.importorskip("pyspark", reason='pyspark is not installed: pip install ".[spark]"')

from dpmo import spark as dpmo_spark  # noqa: E402
from dpmo.spark import tables as spark_tables  # noqa: E402
from dpmo.spark.files import read_candidates as read_spark_candidates  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("spark"),
    # pyspark 4.x warns about pandas 3 on every pandas conversion; nothing here depends on it
    pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

DOCS = Path(__file__).resolve().parents[1] / "docs"
IDS = ["ann", "bob", "cid", "dan", "eve", "fay"]
A = [0.3, 2.0, 1.5, 0.1, 3.0, 2.2]
B = [4.0, 0.5, 2.5, 3.9, 0.2, 1.0]
OBJECTIVES = [("a", 1.0, "max"), ("b", 2.0, "min")]  # as --objective a=1 --objective b=2:min


@pytest.fixture(scope="module")
def table_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("spark-select") / "candidates.csv"
    rows = [f"{i},{a},{b}" for i, a, b in zip(IDS, A, B, strict=True)]
    path.write_text("id,a,b\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def table(spark, table_csv):
    return read_spark_candidates(spark, table_csv, OBJECTIVES, "id")


def _in_memory_objectives(path):
    """The objectives of ``dpmo select`` on ``path`` (read by its own reader, built as it builds them)."""
    ids, values = read_candidates(path, OBJECTIVES, "id")
    objs = [dpmo.Objective(-values[c] if d == "min" else values[c], s, name=c) for c, s, d in OBJECTIVES]
    return ids, objs


def _exact_pair_law(objs, approach, sensitivity, weights, mechanism, epsilon, k=2):
    """P(first = a, second = b) of the in-memory pipeline: round j samples from its own scores."""
    n = objs[0].n
    eps = float_at_most(exact_epsilon(epsilon) / k)
    if approach == "agg":
        scores, sens = selection_scores(objs, approach="agg", sensitivity=sensitivity, weights=weights)
        rounds = [(scores, sens)] * k
    else:
        rounds = [
            chebyshev_selection_scores(objs, default_directions(j + 1, len(objs))[j], None, sensitivity)
            for j in range(k)
        ]
    p1 = dpmo.probabilities(rounds[0][0], eps, rounds[0][1], mechanism=mechanism)
    law = {}
    for a in range(n):
        rest = np.delete(np.arange(n), a)
        p2 = dpmo.probabilities(rounds[1][0][rest], eps, rounds[1][1], mechanism=mechanism)
        for b, q in zip(rest, p2, strict=True):
            law[(a, int(b))] = p1[a] * q
    return law


# ------------------------------------------------------------------------------------------ the law
# (approach, sensitivity, weights, mechanism, ids): the one-shot and per-round plans, ids and row numbers
LAW_CASES = [
    ("agg", "local", (1.0, 1.0), "exponential", "id"),
    ("chebyshev", "global", None, "permute_and_flip", "id"),
    ("agg", "global", (2.0, 0.5), "permute_and_flip", None),
]


@pytest.mark.parametrize("approach, sensitivity, weights, mechanism, id_column", LAW_CASES)
@pytest.mark.slow
def test_the_law_is_that_of_dpmo_select_on_the_same_rows(
    spark, table, table_csv, approach, sensitivity, weights, mechanism, id_column
):
    k, epsilon, trials = 2, 8.0, 4000
    df = table if id_column else table.drop("id")
    draws = spark_tables.select_samples(
        df,
        k,
        epsilon,
        trials,
        objectives={c: (s, d) for c, s, d in OBJECTIVES},
        id_column=id_column,
        approach=approach,
        weights=weights,
        sensitivity=sensitivity,
        mechanism=mechanism,
        rng=11,
    )
    ids, objs = _in_memory_objectives(table_csv)
    index = {v: i for i, v in enumerate(ids)} if id_column else {i: i for i in range(len(ids))}
    counts = Counter(tuple(index[v] for v in d) for d in draws)
    law = _exact_pair_law(objs, approach, sensitivity, weights, mechanism, epsilon)
    assert chi_square_p(counts, law, trials) > 1e-3
    if mechanism == "exponential":  # the test has power: the law at twice the epsilon is rejected
        wrong = _exact_pair_law(objs, approach, sensitivity, weights, mechanism, 2 * epsilon)
        assert chi_square_p(counts, wrong, trials) < 1e-6


def _cli(argv, capsys) -> list[str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines()


@pytest.mark.parametrize(
    "extra",
    [
        ["--approach", "pareto", "--float-sampler", "--id-column", "id"],
        [
            "--approach",
            "agg",
            "--weights",
            "1",
            "3",
            "--exact-sampler",
            "--sensitivity",
            "global",
        ],  # row numbers
    ],
)
@pytest.mark.slow
def test_the_driver_paths_give_the_picks_of_dpmo_select(spark, table_csv, capsys, extra):
    # PrivPareto and exact sampling run the in-memory pipeline on the driver, on the rows in the file's order:
    # the same seed gives the same picks as the in-memory command
    argv = ["select", str(table_csv), "-k", "3", "--epsilon", "2", "--objective", "a=1"]
    argv += ["--objective", "b=2:min", *extra, "--seed", "5"]
    assert _cli([*argv, "--spark"], capsys) == _cli(argv, capsys)


@pytest.mark.slow
def test_chebyshev_with_its_gate_runs_on_the_driver_with_the_in_memory_picks(spark, table_csv, capsys):
    # at epsilon 1e6 a chebyshev round has the Pareto gate, which reads every candidate: the selection runs
    # the in-memory pipeline on the driver, so the same seed gives the in-memory command's picks
    argv = ["select", str(table_csv), "-k", "3", "--epsilon", "1e6", "--objective", "a=1"]
    argv += ["--objective", "b=2:min", "--approach", "chebyshev", "--float-sampler", "--id-column", "id"]
    assert _cli([*argv, "--seed", "5", "--spark"], capsys) == _cli([*argv, "--seed", "5"], capsys)


def test_the_gate_routing_is_never_false_where_a_round_has_the_gate():
    """``_may_gate`` (public: n, k, epsilon, delta) is True wherever a round of the in-memory chebyshev on
    such a table (no ranges) has its gate, at the rounds' own epsilons (the accountant's with delta > 0);
    and False at moderate budgets, where the executors keep the selection."""
    from dpmo.chebyshev import ChebyshevApproach
    from dpmo.selection import round_parts

    appr = ChebyshevApproach()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(60):
        n, k = int(rng.integers(1, 400)), int(rng.integers(1, 6))
        k = min(k, n)
        eps = float(10 ** rng.uniform(0, 4))
        delta = float(rng.choice([0.0, 1e-6]))
        objs = [dpmo.Objective(rng.integers(0, 50, n).astype(float), 1.0) for _ in range(2)]
        parts = dpmo.accounting.scaled_epsilons(eps, [1.0] * k, delta=delta) if delta else round_parts(eps, k)
        rounds = appr.rounds(objs, None, "global", None)
        gated = False
        for j in range(k):
            rounds.begin(j, float(parts[j]))
            gated |= rounds.scores(list(range(j)), np.arange(j, n))[1] > 1.0
        assert spark_tables._may_gate(appr, n, k, eps, delta) or not gated, (n, k, eps, delta)
        seen += gated
    assert seen >= 5  # not vacuous: the gate is on in some of these selections
    assert not spark_tables._may_gate(appr, 400, 3, 50.0, 0.0)
    assert not spark_tables._may_gate(ChebyshevApproach(ties=False), 10, 3, 1e6, 0.0)
    assert spark_tables._may_gate(appr, 10, 3, 1e6, 0.0)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_executors_gated_scores_are_the_in_memory_ones(data):
    """Round ``j``'s gated scores as the executors compute them (:func:`dpmo.spark.gated.gated_score_batches`
    on two batches, the front reduced from the batches' fronts) equal those of the in-memory chebyshev
    rounds on the same rows and picks, with the same sensitivity ``S`` (:func:`round_gates`): ties, a
    minimised column, 2-3 objectives, local and global sensitivity."""
    import pandas as pd

    from dpmo.chebyshev import ChebyshevApproach
    from dpmo.spark.gated import _front_batches, gated_score_batches, reduce_front, round_gates
    from dpmo.spark.scores import ScoreSpec, table_objectives

    m = data.draw(st.integers(2, 3))
    n = data.draw(st.integers(4, 12))
    sensitivity = data.draw(st.sampled_from(["local", "global"]))
    cols = {f"o{i}": np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
            for i in range(m)}  # fmt: skip
    inner = [(f"o{i}", float(data.draw(st.sampled_from([0.5, 1.0, 2.0]))), "min" if i == 1 else "max")
             for i in range(m)]  # fmt: skip
    k = min(3, n)
    j = data.draw(st.integers(0, k - 1))
    chosen = data.draw(st.lists(st.integers(0, n - 1), min_size=j, max_size=j, unique=True))
    remaining = np.setdiff1d(np.arange(n), chosen)
    eps = 1e6
    objs = table_objectives(cols, inner)
    rounds = ChebyshevApproach().rounds(objs, None, sensitivity, None)
    rounds.begin(j, eps)
    want, S = rounds.scores(list(chosen), remaining)
    appr = ChebyshevApproach()
    spec = ScoreSpec("chebyshev", sensitivity, None, *spark_tables._chebyshev_settings(appr, k, m))
    gates = round_gates(inner, spec, n, k, [eps] * k)
    assert (gates[j] is None) == (S == 1.0) and (gates[j] is None or gates[j][1] == S)
    frame = pd.DataFrame({"id": np.arange(n), **cols})
    batches = [frame.iloc[: n // 2], frame.iloc[n // 2 :]]
    front = reduce_front(np.concatenate([b.to_numpy().T for b in _front_batches(batches, inner)], axis=1))
    W = np.stack([o.values for o in objs])
    out = pd.concat(gated_score_batches(iter(batches), "id", inner, spec, j, W[:, chosen], list(chosen),
                                        front, None if gates[j] is None else gates[j][0]))  # fmt: skip
    assert out["id"].tolist() == remaining.tolist()
    np.testing.assert_allclose(out["s0"].to_numpy(), want, rtol=1e-12, atol=0.0)


def test_the_gated_helpers_refuse_bad_arguments_by_name():
    from dpmo.spark.gated import reduce_front, round_gates
    from dpmo.spark.scores import ScoreSpec

    for bad in (np.array([1.0, 2.0]), np.array([[1.0, np.nan]])):
        with pytest.raises(ValueError, match="^P must be a finite 2-D array"):
            reduce_front(bad)
    spec = ScoreSpec("chebyshev", "global", None, np.ones((1, 1)), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="one entry per round"):
        round_gates([("a", 1.0, "max")], spec, 10, 2, [1.0, 1.0])


@pytest.mark.slow
def test_above_the_driver_limit_chebyshev_keeps_its_gate_on_the_executors(spark, monkeypatch):
    """Where the gate is on and the table has more rows than DRIVER_MAX_ROWS (lowered here to 4 for six
    rows), the gated rounds run on the executors: no pick is dominated (the in-memory rounds without the
    gate take (9, 9), in the shadow of (10, 10), and (2, 2)), the picks are the in-memory ones, and so
    are the budget records (labels, epsilons, sensitivities)."""
    from dpmo.chebyshev import ChebyshevApproach

    a, b = [10.0, 9.0, 0.0, 20.0, 1.0, 2.0], [10.0, 9.0, 20.0, 0.0, 1.0, 2.0]
    ids = ["p", "q", "r", "s", "t", "u"]
    df = spark.createDataFrame(list(zip(ids, a, b, strict=True)), "id string, a double, b double")
    objs = [dpmo.Objective(np.array(a), 1.0, name="o0"), dpmo.Objective(np.array(b), 1.0, name="o1")]
    ungated = dpmo.select_multiobjective(objs, 1e6, k=3, approach=ChebyshevApproach(ties=False), rng=0,
                                         exact=False)  # fmt: skip
    assert [ids[i] for i in ungated] == ["p", "q", "u"]  # the control: dominated picks without the gate
    b_mem = dpmo.Budget(1e6)
    mem = dpmo.select_multiobjective(
        objs, 1e6, k=3, approach="chebyshev", rng=0, exact=False, budget=b_mem, what="spark.select"
    )
    monkeypatch.setattr(spark_tables, "DRIVER_MAX_ROWS", 4)
    b_spark = dpmo.Budget(1e6)
    got = spark_tables.select(df, 3, 1e6, objectives={"a": 1.0, "b": 1.0}, id_column="id",
                              approach="chebyshev", rng=5, budget=b_spark)  # fmt: skip
    assert got[0] == "p" and set(got) == {ids[i] for i in mem} == {"p", "r", "s"}
    records = [[(r.what, r.epsilon, r.sensitivity, r.candidates) for r in b.ledger] for b in (b_spark, b_mem)]
    assert records[0] == records[1]
    assert all("Pareto gate" in r.what for r in b_spark.ledger)


# ------------------------------------------------------------------------------------------ budget
@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("approach", ["agg", "chebyshev"])
@pytest.mark.slow
def test_budget_records_match_the_in_memory_ones_and_a_seed_reproduces(
    spark, table, table_csv, approach, delta
):
    # delta > 0: the rounds at the accountant's epsilons, the same ledger as the in-memory path's
    weights = (1.0, 2.0) if approach == "agg" else None
    objectives = {c: (s, d) for c, s, d in OBJECTIVES}
    b_spark, b_mem = dpmo.Budget(2.0, delta=delta), dpmo.Budget(2.0, delta=delta)
    mechanism = "exponential" if delta else "permute_and_flip"  # the accountant gains for the exponential
    kw = {"approach": approach, "weights": weights, "mechanism": mechanism, "rng": 7, "delta": delta}
    picks = dpmo_spark.select(table, 3, 1.5, objectives=objectives, id_column="id", budget=b_spark, **kw)
    _, objs = _in_memory_objectives(table_csv)
    dpmo.select_multiobjective(objs, 1.5, k=3, budget=b_mem, exact=False, **kw)
    assert len(set(picks)) == 3 and set(picks) <= set(IDS)
    got = [(r.epsilon, r.mechanism, r.sensitivity, r.candidates) for r in b_spark.ledger]
    want = [(r.epsilon, r.mechanism, r.sensitivity, r.candidates) for r in b_mem.ledger]
    assert got == want and b_spark.spent_exact == b_mem.spent_exact == Fraction(3, 2)
    assert b_spark.remaining_delta == b_mem.remaining_delta == 0.0
    if delta:  # the accountant's rounds: more than epsilon in all (3 exponential picks at delta 1e-6)
        assert sum(r.epsilon for r in b_spark.ledger) > Fraction(3, 2)
    if approach == "chebyshev" and not delta:  # per-round plan, string ids: the same seed, the same picks
        assert dpmo_spark.select(table, 3, 1.5, objectives=objectives, id_column="id", **kw) == picks


def test_a_single_candidate_is_returned_without_looking_at_its_values(spark):
    one = spark.createDataFrame([("only", 1.0)], "id string, u double")
    for approach, weights in (("agg", [1.0]),):
        budget = dpmo.Budget(1.0)
        picks = dpmo_spark.select(
            one,
            1,
            1.0,
            objectives={"u": 1.0},
            id_column="id",
            approach=approach,
            weights=weights,
            budget=budget,
        )
        assert picks == ["only"] and budget.spent_exact == 1 and budget.ledger[0].mechanism is None


# ------------------------------------------------------------------------------------------ refusals
def test_argument_and_schema_refusals_run_no_spark_job(spark, spark_jobs, table, monkeypatch):
    objectives = {"a": 1.0, "b": (2.0, "min")}
    with spark_jobs() as jobs:
        cases = [
            ({"objectives": {"zz": 1.0}}, ValueError, r"no column 'zz'.*\['id', 'a', 'b'\]"),
            ({"objectives": {"id": 1.0}}, TypeError, "objective column 'id' must be numeric.*string"),
            ({"objectives": {"a": (1.0, "up")}}, ValueError, "direction must be 'max' or 'min'"),
            ({"objectives": {"a": 0.0}}, ValueError, "must be a positive finite number"),
            ({"objectives": [("a", 1.0)]}, TypeError, "must be a dict"),
            ({"id_column": "nope"}, ValueError, "id_column: no column 'nope'"),
            ({"id_column": "a"}, TypeError, "id_column 'a' must hold integers or strings, it is double"),
            ({"approach": "pareto", "weights": [1.0, 1.0]}, ValueError, "weights are used by approach='agg'"),
            ({"approach": "agg"}, ValueError, "weights are required"),
            ({"approach": "agg", "weights": [1.0]}, ValueError, "one entry per objective"),
            ({"mechanism": "laplace", "exact": True}, ValueError, "no exact sampler"),
        ]
        for kw, error, message in cases:
            kw = {"objectives": objectives, "id_column": "id", **kw}
            with pytest.raises(error, match=message):
                dpmo_spark.select(table, 2, 1.0, **kw)
        with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
            dpmo_spark.select("candidates.parquet", 2, 1.0, objectives=objectives)
        with pytest.raises(dpmo.BudgetExceededError):
            dpmo_spark.select(table, 2, 1.0, objectives=objectives, budget=dpmo.Budget(0.5))
    assert jobs == []


@pytest.mark.slow
def test_value_refusals_name_the_column_and_the_rule_never_a_value(spark, monkeypatch):
    nan, inf = float("nan"), float("inf")
    rows = [("p", 123.456, 1.0, 1.0, 1.0), ("q", 7.25, nan, None, -inf), ("r", 0.5, 2.0, 3.0, 4.0)]
    df = spark.createDataFrame(
        rows, "id string, good double, with_nan double, with_null double, with_inf double"
    )
    objectives = {"good": 1.0, "with_nan": 1.0, "with_null": 1.0, "with_inf": (1.0, "min")}
    with pytest.raises(ValueError) as info:
        dpmo_spark.select(df, 1, 1.0, objectives=objectives, id_column="id", approach="chebyshev")
    message = str(info.value)
    assert "objective columns 'with_nan', 'with_null', 'with_inf' break the rule" in message
    assert "finite number" in message and "'good'" not in message
    assert "'q'" not in message and not re.search(r"\d", message)  # no value, no id, no row number
    duplicate = spark.createDataFrame([("x", 1.0), ("y", 2.0), ("x", 3.0)], "id string, u double")
    with pytest.raises(ValueError, match=r"id 'x' appears twice in id_column 'id'"):
        dpmo_spark.select(duplicate, 1, 1.0, objectives={"u": 1.0}, id_column="id")
    missing_id = spark.createDataFrame([("x", 1.0), (None, 2.0)], "id string, u double")
    with pytest.raises(ValueError, match="id_column 'id' holds a NULL"):
        dpmo_spark.select(missing_id, 1, 1.0, objectives={"u": 1.0}, id_column="id")
    with pytest.raises(ValueError, match=r"k must be between 1 and the number of candidates \(3\), got 4"):
        dpmo_spark.select(df.select("good"), 4, 1.0, objectives={"good": 1.0})
    with pytest.raises(ValueError, match="no rows"):
        dpmo_spark.select(df.select("good").limit(0), 1, 1.0, objectives={"good": 1.0})
    # PrivPareto and exact sampling run on the driver, for at most DRIVER_MAX_ROWS rows (public: the count)
    monkeypatch.setattr(spark_tables, "DRIVER_MAX_ROWS", 2)
    for kw in ({"approach": "pareto"}, {"approach": "chebyshev", "exact": True}):
        with pytest.raises(ValueError, match="DRIVER_MAX_ROWS = 2 rows; this table has 3"):
            dpmo_spark.select(df.select("good"), 1, 1.0, objectives={"good": 1.0}, **kw)


def test_the_command_line_refuses_in_one_line_without_a_value(spark, tmp_path, capsys):
    path = tmp_path / "c.csv"
    path.write_text("id,a,b\nx,1.5,2\ny,secret-41,3\nz,2.5,1\n")
    argv = ["select", str(path), "--spark", "--objective", "a=1", "--objective", "b=1", "--id-column", "id"]
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("dpmo: error: "), err
    assert "objective column 'a'" in lines[0] and "secret" not in lines[0] and "'y'" not in lines[0]
    code = main(["select", str(tmp_path / "absent.csv"), "--spark", "--objective", "a=1"])
    assert code == 2 and "no such file or folder" in capsys.readouterr().err
    damaged = tmp_path / "bad.parquet"
    damaged.write_bytes(b"secret-41 is not Parquet")  # Spark's message (formerly printed) quotes the file
    code = main(["select", str(damaged), "--spark", "--objective", "a=1"])
    err = capsys.readouterr().err
    assert code == 2 and "not a table Spark can read" in err and "secret" not in err, err


@pytest.mark.slow
def test_the_command_line_reads_parquet_and_prints_the_ids_only(spark, table, tmp_path, capsys):
    folder = tmp_path / "candidates.parquet"  # a folder of part files, as Spark writes Parquet
    folder.mkdir()
    table.toPandas().to_parquet(folder / "part-00000.parquet")
    argv = ["select", str(folder), "--spark", "-k", "2", "--objective", "a=1", "--objective", "b=2:min"]
    out = _cli([*argv, "--id-column", "id", "--approach", "chebyshev"], capsys)
    assert len(out) == 2 and len(set(out)) == 2 and set(out) <= set(IDS)


# ------------------------------------------------------------------------------------------ imports, docs
def test_dpmo_spark_says_what_to_install_without_pyspark():
    code = (
        "import sys; sys.modules['pyspark'] = None\n"
        "import dpmo\n"
        "try:\n"
        "    from dpmo import spark\n"
        "except ImportError as exc:\n"
        "    print('refused:', exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: dpmo.spark needs pyspark" in proc.stdout and 'pip install ".[spark]"' in proc.stdout


def test_the_general_layer_never_imports_the_graphs():
    for path in Path(dpmo_spark.__file__).parent.glob("*.py"):  # dpmo.graphs.spark builds on it, not back
        assert not re.search(r"^\s*(from|import)\s+\S*graphs", path.read_text(), re.M), path


@pytest.mark.slow
def test_doctests_of_the_general_spark_modules(spark):
    # run here, in the Spark session (tests/test_doctests.py leaves these modules out)
    names = ["dpmo.spark"] + [
        m.name for m in pkgutil.walk_packages(dpmo_spark.__path__, prefix="dpmo.spark.")
    ]
    failures = []
    for name in sorted(names):
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            out: list[str] = []
            runner.run(test, out=out.append)
            if runner.failures:
                failures.append("".join(out))
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_the_docs_page_table_example_runs(spark, tmp_path):
    text = (DOCS / "spark.md").read_text()
    block = re.search(r"```python\n(# example: a candidate table.*?)```", text, re.S)
    assert block, "docs/spark.md lost its table example"
    # Spark resolves relative paths against the JVM's directory, fixed when it started: write to tmp_path
    code = block.group(1).replace('"models.parquet"', repr(str(tmp_path / "models.parquet")))
    namespace: dict = {}
    exec(compile(code, "docs/spark.md", "exec"), namespace)
    picks, budget = namespace["picks"], namespace["budget"]
    assert len(picks) == 3 and len(set(picks)) == 3 and all(p.startswith("m") for p in picks)
    assert budget.spent_exact == Fraction(1) and len(budget.ledger) == 3
