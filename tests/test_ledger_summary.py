"""A ledger people can read (issue 37, point 8): each record's epsilon as its float and decimal digits, a
per-call summary (text, rows, DataFrame), and deltas that add up as written (a Fraction exactly, a float as
the decimal it prints as)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.budget import Spend
from dpmo.epsilons import decimal_digits, readable


def test_readable_writes_the_float_and_the_exact_digits():
    assert readable(Fraction(1, 10)) == "0.1"
    share = Fraction(5030348213801209, 576460752303423488)  # the record
    text = readable(share)
    f, rest = text.split(" ", 1)
    assert float(f) == float(share) and rest.startswith("(exactly 0.00872") and rest.endswith("...)")
    assert Fraction(rest[len("(exactly ") : -len("...)")]) <= share  # truncated, never rounded up
    assert decimal_digits(Fraction(5, 4)) == "1.25" and decimal_digits(Fraction(2, 3), 4) == "0.6666..."
    assert decimal_digits(Fraction(1, 10**22)) == "0." + "0" * 21 + "1"


def test_a_spend_repr_shows_its_epsilon_readably():
    exact = repr(Spend("a count", "laplace", Fraction(1, 4), 1.0, 3))
    assert "epsilon=0.25," in exact and "Fraction" not in exact
    odd = repr(Spend("a pick", "exponential", Fraction(5030348213801209, 576460752303423488), 1.0, 9))
    assert "Fraction" not in odd and "epsilon=0.0087" in odd and "(exactly 0.0087" in odd


def test_summary_rows_group_each_call():
    b = dpmo.Budget(2.0, delta=1e-6)
    dpmo.select(np.arange(6.0), 0.3, 1.0, k=3, budget=b, rng=0)  # pure: 3 rounds, one row
    b.spend(0.2, "a count", mechanism="laplace")
    g = nx.karate_club_graph()
    graphs.top_k(g, 4, 0.5, nodes=34, budget=b, delta=Fraction(1, 2_000_000), rng=0)  # one call, delta > 0
    rows = b.summary_rows()
    assert [(r.what, r.calls) for r in rows] == [("select", 3), ("a count", 1), ("top_k", 4)]
    assert [r.epsilon for r in rows] == [Fraction(3, 10), Fraction(1, 5), Fraction(1, 2)]
    assert [r.delta for r in rows] == [0, 0, Fraction(1, 2_000_000)]
    assert sum(r.calls for r in rows) == len(b.ledger)
    assert sum(r.epsilon for r in rows) == b.spent_exact
    assert rows[0].mechanism == "exponential" and rows[1].mechanism == "laplace"
    text = b.summary()
    lines = text.splitlines()
    assert lines[0].split() == ["what", "mechanism", "calls", "epsilon", "delta"]
    assert lines[-3].split()[:3] == ["total", "8", "1.0"]
    assert lines[-2].split() == ["remaining", "1.0", "5e-07"]
    assert "read as the decimal it prints as" in lines[-1]


def test_to_frame():
    pd = pytest.importorskip("pandas")
    b = dpmo.Budget(1.0)
    b.spend(Fraction(1, 3), "a third", mechanism="laplace")
    frame = b.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == [
        "what",
        "mechanism",
        "calls",
        "epsilon",
        "delta",
        "epsilon_exact",
        "delta_exact",
    ]
    assert frame["epsilon_exact"].tolist() == [Fraction(1, 3)] and frame["epsilon"].tolist() == [1 / 3]


def test_the_summary_does_not_import_pandas():
    code = (
        "import sys, dpmo; b = dpmo.Budget(1.0); b.spend(0.5, 'x'); b.summary(); b.summary_rows(); "
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def _three_thirds(delta) -> dpmo.Budget:
    b = dpmo.Budget(1.0, delta=1e-6)
    for _ in range(3):
        dpmo.select(np.arange(5.0), 0.1, 1.0, k=2, budget=b, delta=delta, rng=0)
    return b


def test_deltas_add_up_as_written():
    b = _three_thirds(Fraction(1, 3_000_000))  # exact thirds: nothing left
    assert b.remaining_delta_exact == 0 and b.remaining_delta == 0.0
    b = _three_thirds(1e-6 / 3)  # a float: the decimal it prints as, 3.333333333333333e-07
    assert b.remaining_delta_exact == Fraction(1, 10**22)
    assert b.remaining_delta == 1e-22  # the clean decimal, not 9.999999999999999e-23
    g = nx.karate_club_graph()
    for approach in ("agg", "pareto"):  # the graph entry point keeps a Fraction exact too
        b = dpmo.Budget(1.0, delta=1e-6)
        for _ in range(3):
            graphs.top_k(
                g, 2, 0.1, nodes=34, approach=approach, budget=b, delta=Fraction(1, 3_000_000), rng=0
            )
        assert b.remaining_delta_exact == 0
