"""Know before you spend (issue 31, point 4): :func:`dpmo.lead_needed`, :func:`dpmo.pick_probability` and
``--explain``.

References are independent of :mod:`dpmo.preview`: the exponential mechanism's softmax written out, the
exact permute-and-flip distribution of :func:`dpmo.probabilities` (Gauss-Legendre, itself checked against
enumerating all n! orders in ``tests/test_mechanisms.py``), the law of the difference of two Laplace
variables, enumeration of the k rounds over every sequence of picks, and Monte Carlo runs of
:func:`dpmo.select` itself.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import dpmo
from dpmo.cli import main

MECHS = ["exponential", "permute_and_flip", "laplace", "gumbel"]


def exact_among_k(scores, epsilon_pick, k, mechanism, target=0):
    """P(target among the k picks): every sequence of picks, each round's exact law on what is left."""
    n = len(scores)
    total = 0.0
    for seq in itertools.permutations(range(n), k):
        p, left = 1.0, list(range(n))
        for c in seq:
            probs = dpmo.probabilities(np.asarray(scores)[left], epsilon_pick, 1.0, mechanism=mechanism)
            p *= probs[left.index(c)]
            left.remove(c)
        if target in seq:
            total += p
    return total


@pytest.mark.parametrize("n,lead,eps", [(2, 1.3, 1.0), (34, 7.0, 1.0), (10_000, 20.0, 2.0)])
def test_exponential_one_pick_is_the_softmax(n, lead, eps):
    want = math.exp(eps * lead / 2) / (math.exp(eps * lead / 2) + (n - 1))
    for mech in ("exponential", "gumbel"):
        assert dpmo.pick_probability(lead, n, eps, mechanism=mech) == pytest.approx(want, rel=1e-13)
    # the closed form of the lead: (2 / eps) ln(q (n - 1) / (1 - q))
    for q in (0.5, 0.9):
        assert dpmo.lead_needed(n, eps, q) == pytest.approx(
            2 / eps * math.log(q * (n - 1) / (1 - q)), rel=1e-12
        )


@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("lead", [0.0, 0.4, 2.5, 9.0])
def test_permute_and_flip_one_pick_is_the_exact_law(n, lead):
    scores = np.zeros(n)
    scores[0] = lead
    want = dpmo.probabilities(scores, 1.3, 1.0, mechanism="permute_and_flip")[0]
    assert dpmo.pick_probability(lead, n, 1.3, mechanism="permute_and_flip") == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("a", [0.0, 0.3, 1.7, 6.0, 40.0])
def test_laplace_two_candidates_is_the_difference_of_two_laplace(a):
    # Z1 - Z0 of i.i.d. standard Laplace: P(Z1 - Z0 < a) = 1 - (1 + a / 2) e^-a / 2 for a >= 0
    want = 1 - (1 + a / 2) * math.exp(-a) / 2
    # a = epsilon * lead / 2 with epsilon 1: lead = 2 a
    assert dpmo.pick_probability(2 * a, 2, 1.0, mechanism="laplace") == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("mechanism", MECHS)
@pytest.mark.parametrize("n,k,lead,eps", [(5, 1, 3.0, 1.0), (6, 3, 6.0, 1.5), (200, 2, 12.0, 2.0)])
def test_agrees_with_the_selection_itself(mechanism, n, k, lead, eps):
    """Monte Carlo of ``dpmo.select`` on the model's scores (the best leads n - 1 tied others)."""
    p = dpmo.pick_probability(lead, n, eps, k=k, mechanism=mechanism)
    scores = np.zeros(n)
    scores[0] = lead
    rng = np.random.default_rng(7)
    runs = 4000
    hits = sum(0 in dpmo.select(scores, eps, 1.0, mechanism=mechanism, k=k, rng=rng) for _ in range(runs))
    assert abs(hits / runs - p) <= 5 * math.sqrt(p * (1 - p) / runs) + 1e-9


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
@pytest.mark.parametrize("n,k", [(3, 2), (4, 2), (4, 3), (5, 2)])
def test_k_rounds_and_least_favourable_case(mechanism, n, k):
    """The model's P_k equals the exact k-round law on tied others, and no configuration in which the
    best leads every other by at least the lead does worse (the model is the least favourable case)."""
    lead, eps_pick = 2.0, 0.8
    model = dpmo.pick_probability(lead, n, eps_pick * k, k=k, mechanism=mechanism)
    tied = [lead] + [0.0] * (n - 1)
    assert model == pytest.approx(exact_among_k(tied, eps_pick, k, mechanism), abs=1e-10)
    rng = np.random.default_rng(n * 10 + k)
    for _ in range(6):
        others = -rng.choice([0.0, 0.5, 1.0, 3.0, 8.0], size=n - 1)  # trailing by lead + something >= 0
        assert exact_among_k([lead, *others], eps_pick, k, mechanism) >= model - 1e-10


@pytest.mark.parametrize("mechanism", MECHS)
@pytest.mark.parametrize("n,k", [(2, 1), (34, 1), (34, 3), (37_700, 5)])
def test_lead_needed_inverts_pick_probability(mechanism, n, k):
    for q in (0.5, 0.9):
        lead = dpmo.lead_needed(n, 1.0, q, k=k, mechanism=mechanism, sensitivity=3.0)
        if q <= k / n:
            assert lead == 0.0
            continue
        assert dpmo.pick_probability(
            lead, n, 1.0, k=k, mechanism=mechanism, sensitivity=3.0
        ) == pytest.approx(q, abs=1e-9)
        # the lead scales with the sensitivity and with 1 / epsilon per pick
        assert dpmo.lead_needed(n, 2.0, q, k=k, mechanism=mechanism) == pytest.approx(
            lead / 3.0 / 2.0, rel=1e-9
        )
    assert dpmo.pick_probability(0.0, n, 1.0, k=k, mechanism=mechanism) == pytest.approx(k / n, abs=1e-12)
    assert dpmo.pick_probability(math.inf, n, 1.0, k=k, mechanism=mechanism) == 1.0


def test_per_pick_epsilon_is_explicit():
    assert dpmo.lead_needed(34, 1.0, k=4) == dpmo.lead_needed(34, epsilon_per_pick=0.25, k=4)
    with pytest.raises(TypeError, match="not both"):
        dpmo.lead_needed(34, 1.0, epsilon_per_pick=0.25)


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_delta_runs_each_pick_at_the_accountants_epsilon(mechanism):
    # the preview of an (epsilon, delta) selection is the preview of k picks at per_pick_epsilon's figure,
    # the epsilon each pick of the call really runs at
    eps = dpmo.per_pick_epsilon(1.0, 10, delta=1e-6, mechanism=mechanism)
    assert dpmo.lead_needed(500, 1.0, k=10, delta=1e-6, mechanism=mechanism) == dpmo.lead_needed(
        500, epsilon_per_pick=eps, k=10, mechanism=mechanism
    )
    # bounded-range composition lets each exponential pick run above epsilon / k: a smaller lead suffices
    if mechanism == "exponential":
        assert dpmo.lead_needed(500, 1.0, k=10, delta=1e-6) < dpmo.lead_needed(500, 1.0, k=10)
    with pytest.raises(ValueError, match="delta"):
        dpmo.lead_needed(34, 1.0, k=4, delta=1.5)


@pytest.mark.parametrize(
    "call,error",
    [
        (lambda: dpmo.lead_needed(0, 1.0), ValueError),
        (lambda: dpmo.lead_needed(3, 1.0, k=4), ValueError),
        (lambda: dpmo.lead_needed(3.0, 1.0), TypeError),
        (lambda: dpmo.lead_needed(3, 1.0, 1.0), ValueError),
        (lambda: dpmo.lead_needed(3, 1.0, 0.0), ValueError),
        (lambda: dpmo.lead_needed(3, -1.0), ValueError),
        (lambda: dpmo.lead_needed(3, 1.0, mechanism="nope"), ValueError),
        (lambda: dpmo.lead_needed(3, 1.0, sensitivity=0.0), ValueError),
        (lambda: dpmo.pick_probability(-1.0, 3, 1.0), ValueError),
        (lambda: dpmo.pick_probability(float("nan"), 3, 1.0), ValueError),
        (lambda: dpmo.pick_probability(1.0, 3, None), TypeError),
    ],
)
def test_bad_input_names_the_argument(call, error):
    with pytest.raises(error):
        call()


# ------------------------------------------------------------------------------------------ --explain
def _explain(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _table(out: str) -> dict:
    rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("#")]
    return {r[0]: r[1:] for r in rows[1:]}


def test_select_explain_reads_no_objective_value(tmp_path, capsys):
    """The figures depend on the table's size only: two tables of the same shape, one with every objective
    cell unreadable, give the same output, and nothing is picked."""
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("id,a,b\n" + "".join(f"c{i},{i},{i % 3}\n" for i in range(40)))
    bad.write_text("id,a,b\n" + "".join(f"c{i},oops,{'' if i else 'nan'}\n" for i in range(40)))
    argv = ["-k", "3", "--epsilon", "1", "--objective", "a=1", "--objective", "b=2:min", "--id-column", "id"]
    outs = []
    for path in (good, bad):
        out = _explain(["select", str(path), *argv, "--explain"], capsys)
        outs.append(out.replace(path.name, "TABLE"))
    assert outs[0] == outs[1]
    table = _table(outs[0])
    assert table["candidates"] == ["40"] and table["epsilon_per_pick"] == ["0.333"]
    assert float(table["lead_for_P=0.5"][0]) == pytest.approx(dpmo.lead_needed(40, 1.0, 0.5, k=3), rel=1e-2)
    assert float(table["P_at_lead=0"][0]) == pytest.approx(3 / 40, abs=1e-3)
    assert "c1" not in outs[0]  # no pick is printed
    # the release itself refuses the unreadable table
    assert main(["select", str(bad), *argv]) == 2


def test_select_and_explain_refuse_a_malformed_row_with_one_message_naming_no_line(tmp_path, capsys):
    """Issue 41: a row with the wrong field count (often a private cell holding the delimiter) is refused
    by the same rule on both paths, and neither names the line, the row or its fields."""
    path = tmp_path / "t.csv"
    path.write_text("id,a,b\nc0,1,2\nc1,7391\nc2,3,4\n")
    argv = ["select", str(path), "--objective", "a=1", "--objective", "b=1", "--id-column", "id"]
    errs = []
    for extra in ([], ["--explain"]):
        assert main([*argv, *extra]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        errs.append(err)
    assert errs[0] == errs[1]
    assert "header's 3 fields" in errs[0] and "not shown" in errs[0]
    for leak in ("line", "7391", "c1", "found 2", " 2 "):
        assert leak not in errs[0], leak
    # a header line without the column: the same words on both paths too (the line is not shown)
    argv[3] = "zz=1"
    assert main(argv) == 2 and main([*argv, "--explain"]) == 2
    first, second = capsys.readouterr().err.splitlines()[-2:]
    assert first == second and "'zz'" in first and "'id'" not in first
    # the header says what was read
    path.write_text("id,a,b\nc0,1,2\nc1,3,4\n")
    out = _explain(["select", str(path), "--objective", "a=1", "--explain"], capsys)
    assert "every line's fields were counted" in out and "no objective value was parsed" in out


def test_select_explain_global_pareto_says_noise_whatever_the_data(tmp_path, capsys):
    path = tmp_path / "c.csv"
    path.write_text("a,b\n" + "".join(f"{i},{-i}\n" for i in range(100)))
    out = _explain(
        [
            "select",
            str(path),
            "--objective",
            "a=1",
            "--objective",
            "b=1",
            "--sensitivity",
            "global",
            "--explain",
        ],
        capsys,
    )
    bound = dpmo.pick_probability(1.0, 100, 1.0)
    assert f"P <= {bound:.3f}" in out and "close to noise whatever the data" in out


def test_topk_explain_never_opens_the_graph(capsys):
    out = _explain(["topk", "/no/such/graph.csv", "--n-nodes", "34", "-k", "3", "--explain"], capsys)
    table = _table(out)
    assert table["candidates"] == ["34"] and table["picks"] == ["3"]
    assert float(table["lead_for_P=0.9"][0]) == pytest.approx(dpmo.lead_needed(34, 1.0, 0.9, k=3), rel=1e-2)
    # the weighted sum of degree and ego density with the global sensitivity cannot lead by 2 units here
    out = _explain(
        ["topk", "/no/such/graph.csv", "--n-nodes", "34", "-k", "3", "--sensitivity", "global", "--explain"],
        capsys,
    )
    assert "no data can give a lead above 1.32 units" in out
    # PrivChebyshev (the graph default: the private staircase): one column per round, at the rounds'
    # public shares of epsilon in the staircase's plan (its releases take the rest)
    out = _explain(
        ["topk", "g.csv", "--n-nodes", "34", "-k", "3", "--approach", "chebyshev", "--explain"], capsys
    )
    from dpmo.graphs.chebyshev import graph_staircase_approach
    from dpmo.selection import selection_plan

    plan = selection_plan(graph_staircase_approach(34, 3, epsilon=1.0), 3, 2)  # --epsilon's default
    rounds = [st.share for st in plan if st.kind == "round"]
    assert len(rounds) == 3 and sum(rounds) < 1.0  # the releases are paid for out of epsilon too
    got = [float(x) for x in _table(out)["epsilon_per_pick"]]
    assert got == pytest.approx(rounds, rel=1e-2)
    assert "k = 1: no front to cover" not in out
    out = _explain(
        ["topk", "g.csv", "--n-nodes", "34", "-k", "1", "--approach", "chebyshev", "--explain"], capsys
    )
    assert "k = 1: no front to cover" in out and "agg was the safer choice" in out and "never falls" in out


def test_explain_says_where_k_2_falls_or_agg_was_safer(capsys):
    """``dpmo topk --approach chebyshev --explain`` at ``k = 2``: the fall from epsilon 1 to 2 (the staircase
    plan) and agg's lead on a hub joined to a clique (the released graph, epsilon 10 on 1,000 nodes), each
    only at ``k = 2`` and only on its own path (docs/staircase-measurements.md, "Other k")."""
    fall, safer = "k = 2: the ratio fell from epsilon 1 to 2", "k = 2: agg was the safer choice at epsilon 10"
    base = ["topk", "g.csv", "--n-nodes", "1000", "--approach", "chebyshev", "--explain"]
    for k, eps, want in (("2", "2", fall), ("2", "10", safer), ("3", "2", None), ("3", "10", None)):
        out = _explain([*base, "-k", k, "--epsilon", eps], capsys)
        for line in (fall, safer):
            assert (line in out) == (line == want), (k, eps, line)


def test_explain_says_where_pareto_runs_its_negligible_noise_rule(capsys, tmp_path):
    """``--approach pareto``: the note appears exactly when the public condition holds in some round
    (epsilon per pick >= 6 (ln n_round + 20): about 154 on 300 nodes), for topk and select."""
    from dpmo.pareto.consistent import negligible_noise

    seen = {}
    for eps, k in ((1e6, 3), (10.0, 3), (3 * 150.0, 3), (3 * 160.0, 3)):
        argv = ["topk", "g.csv", "--n-nodes", "300", "-k", str(k), "--approach", "pareto"]
        out = _explain([*argv, "--epsilon", str(eps), "--explain"], capsys)
        assert ("negligible noise in every round" in out) == negligible_noise(300, eps / k)
        assert ("negligible noise in" in out) == negligible_noise(300 - k + 1, eps / k)
        seen[eps] = "negligible noise in every round" in out
    # 6 (ln 300 + 20) = 154.2 per pick: absent at 10 and 450 (150 a pick), present at 480 and 1e6
    assert seen == {1e6: True, 10.0: False, 450.0: False, 480.0: True}
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "".join(f"{i},{i % 3}\n" for i in range(30)))
    out = _explain(["select", str(path), "--objective", "a=1", "--objective", "b=1", "-k", "2",
                    "--approach", "pareto", "--epsilon", "1e6", "--explain"], capsys)  # fmt: skip
    assert "negligible noise in every round" in out


def test_explain_with_delta_shows_the_epsilon_each_pick_runs_at(capsys):
    # --delta: the figures are those of the accountant's per-pick epsilon, the one the release would use
    argv = ["topk", "g.csv", "--n-nodes", "500", "-k", "10", "--delta", "1e-6", "--explain"]
    table = _table(_explain(argv, capsys))
    eps = dpmo.per_pick_epsilon(1.0, 10, delta=1e-6)
    assert eps > 0.1 and float(table["epsilon_per_pick"][0]) == pytest.approx(eps, rel=1e-2)
    assert float(table["lead_for_P=0.5"][0]) == pytest.approx(
        dpmo.lead_needed(500, epsilon_per_pick=eps, k=10), rel=1e-2
    )


def test_explain_spends_and_reads_nothing_in_the_help():
    from dpmo.cli import build_parser

    parser = build_parser()
    for command in ("select", "topk"):
        sub = parser._subparsers._group_actions[0].choices[command]
        text = sub.format_help()
        assert "--explain" in text and "spends nothing" in " ".join(text.split())


def test_docs_table_is_what_lead_needed_gives():
    """docs/core.md "Know before you spend": every figure of its table, recomputed."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "core.md").read_text()
    section = doc.split("## Know before you spend", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) >= 6
    names = {"EM": "exponential", "PF": "permute_and_flip", "RNM-Laplace": "laplace"}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        n, k, eps = int(cells[0].replace(",", "")), int(cells[1]), float(cells[2])
        for cell, (mech, q) in zip(cells[3:], itertools.product(names.values(), (0.5, 0.9)), strict=True):
            assert float(cell) == pytest.approx(dpmo.lead_needed(n, eps, q, k=k, mechanism=mech), abs=0.051)


def test_trees_pareto_caution_is_said_and_holds():
    """The estimator's docstring and ``dpmo trees --help`` caution against approach="pareto" for predict,
    with the figures of docs/trees.md ("Which approach"); and a Pareto tree below the constant classifier
    is found among the seeds the caution quotes."""
    import warnings

    pytest.importorskip("sklearn")
    from dpmo.cli import build_parser
    from dpmo.datasets import load_breast_cancer
    from dpmo.trees import DPMOETClassifier

    doc = " ".join(DPMOETClassifier.__doc__.split())
    sub = build_parser()._subparsers._group_actions[0].choices["trees"]
    helptext = " ".join(sub.format_help().split())
    table = (Path(__file__).resolve().parents[1] / "docs" / "trees.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| pareto | local |"))
    low, median, high = (c.strip() for c in row.strip("|").split("|")[2:5])
    assert f'pareto"`` {low}-{high}, median {median}' in doc.replace("``approach=", "``")
    assert "CAUTION" in helptext and f"accuracy {low}-{high}" in helptext
    data = load_breast_cancer()
    majority = max(data.y.mean(), 1 - data.y.mean())
    accuracy = []
    for seed in range(10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = DPMOETClassifier(epsilon=1.0, approach="pareto", features=data.features, random_state=seed)
            accuracy.append(np.mean(clf.fit(data.X, data.y).predict(data.X) == data.y))
    assert min(accuracy) < majority


def test_a_per_pick_epsilon_below_the_floats_needs_an_infinite_lead():
    """Epsilon 5e-324 over 3 picks is 0 per pick in floats: formerly a ZeroDivisionError (k > 1)."""
    assert dpmo.lead_needed(100, 5e-324, 0.9, k=3) == math.inf
    assert dpmo.lead_needed(100, 5e-324, 0.9, k=1) == math.inf
