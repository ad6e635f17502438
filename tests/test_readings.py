"""Readings (``dpmo reproduce --reading``): registry, CLI, CSV/meta records, variants, and their privacy."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.audit import check_admissibility
from dpmo.cli import main
from dpmo.datasets import load_breast_cancer
from dpmo.experiments.config import EXPERIMENTS
from dpmo.experiments.readings import READINGS, apply_readings, list_readings, resolve_readings
from dpmo.experiments.variants import (
    ReadingID3,
    ReadingMOET,
    ego_bound,
    eps_factor,
    printed_rate_objective,
    published_rate_objective,
)
from dpmo.trees import DPMOETClassifier, LocalDiffPID3Classifier


# ------------------------------------------------------------------------------------------ registry
def test_list_has_one_line_per_reading_and_flags_exactly_the_non_private_ones():
    lines = list_readings().splitlines()
    assert len(lines) == len(READINGS)
    for line, reading in zip(lines, READINGS.values(), strict=True):
        assert line.startswith(reading.name)
        assert ("NOT PRIVATE" in line) == (not reading.private)
    # the minimum set
    for name in ("tpr-printed", "ego-printed", "tpr-published", "ego-published", "eps-per-round",
                 "eps-per-pick", "exp-no-half", "positive-flip", "label-column", "adult-keep-missing",
                 "adult-train-only", "adult-bins"):  # fmt: skip
        assert name in READINGS
    assert not READINGS["tpr-printed"].private and not READINGS["exp-no-half"].private


def test_resolve_rejects_unknown_clashing_and_malformed_readings():
    with pytest.raises(ValueError, match="unknown reading"):
        resolve_readings(["no-such-reading"])
    with pytest.raises(ValueError, match="both set"):
        resolve_readings(["eps-per-round", "eps-per-pick"])
    with pytest.raises(ValueError, match="needs a value"):
        resolve_readings(["label-column"])
    with pytest.raises(ValueError, match="integer"):
        resolve_readings(["label-column=x"])
    with pytest.raises(ValueError, match="takes no value"):
        resolve_readings(["tpr-printed=1"])


def test_apply_merges_params_labels_and_skips_other_experiments():
    cfg, applied, ignored = apply_readings(
        EXPERIMENTS["tree-agg"], ["eps-per-pick", "id3-depth=3", "ego-printed", "positive-flip"]
    )
    assert applied == ["eps-per-pick", "id3-depth=3", "positive-flip"] and ignored == ["ego-printed"]
    p = cfg.params
    assert p["eps_scale"] == "pick" and p["id3"] == {"max_depth": 3} and p["data"] == {"positive": "flipped"}
    assert p["readings"] == "eps-per-pick+id3-depth=3+positive-flip" and p["private"] is False
    assert EXPERIMENTS["tree-agg"].params.get("readings") is None  # the registry is not modified
    cfg2, applied2, _ = apply_readings(EXPERIMENTS["graph-agg"], ["ego-printed"])
    assert applied2 == ["ego-printed"] and cfg2.params["private"] is True
    cfg3, applied3, _ = apply_readings(EXPERIMENTS["graph-agg"], None)
    assert applied3 == [] and cfg3.params == EXPERIMENTS["graph-agg"].params


def test_eps_factor():
    assert eps_factor({}, rounds=4, picks=3) == 1.0
    assert eps_factor({"eps_scale": "round"}, rounds=4, picks=3) == 4.0
    assert eps_factor({"eps_scale": "pick"}, rounds=4, picks=3) == 12.0
    assert eps_factor({"eps_scale": "pick", "exp_half": False}, rounds=1, picks=5) == 10.0


# ------------------------------------------------------------------------------------------ CLI, CSV, meta
def test_list_readings_command(capsys):
    assert main(["reproduce", "--list-readings"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == len(READINGS) and "NOT PRIVATE" in out


def test_reproduce_records_readings_in_csv_and_meta(tmp_path, capsys):
    out = tmp_path / "r"
    argv = ["reproduce", "tree-pareto", "--quick", "--runs", "1", "--epsilons", "1", "--jobs", "1", "--out",
            str(out), "--no-report"]  # fmt: skip
    assert main([*argv, "--reading", "eps-per-pick", "--reading", "reference-pareto-dominance"]) == 0
    assert "NOT PRIVATE" in capsys.readouterr().err
    with (out / "tree-pareto.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and {r["readings"] for r in rows} == {"eps-per-pick+reference-pareto-dominance"}
    assert {r["private"] for r in rows} == {"no"}
    meta = json.loads((out / "meta.json").read_text())["tree-pareto"]
    assert meta["readings"] == ["eps-per-pick", "reference-pareto-dominance"] and meta["private"] is False
    # the default run is marked private and has another settings fingerprint (resume keeps both apart)
    assert main(argv) == 0
    with (out / "tree-pareto.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    default = [r for r in rows if r["readings"] == "default"]
    assert default and {r["private"] for r in default} == {"yes"}
    assert {r["settings"] for r in default}.isdisjoint({r["settings"] for r in rows if r not in default})
    assert main([*argv, "--reading", "nope"]) == 2


# ------------------------------------------------------------------------------------------ privacy
def _rate_states(S=14):
    states = [(tp, fn) for tp in range(S) for fn in range(S) if 1 <= tp + fn <= S - 1]

    def neighbours(x):
        tp, fn = x
        for y in ((tp + 1, fn), (tp - 1, fn), (tp, fn + 1), (tp, fn - 1)):
            if min(y) >= 0 and y[0] + y[1] >= 1:
                yield y

    return states, neighbours, lambda x: np.array([x[0] / (x[0] + x[1])])


def _delta(make):
    return lambda x, t: np.atleast_1d(make(np.array([x[0]]), x[0] + x[1], "TPR").sensitivity(t))


def test_printed_tpr_reading_is_not_admissible_and_published_reconstruction_is():
    """Why ``tpr-printed`` is flagged NOT PRIVATE, and ``tpr-published`` is not (add/remove neighbours,
    all count states with P <= 13, t <= 10)."""
    states, nb, util = _rate_states()
    bad = check_admissibility(states, nb, util, _delta(printed_rate_objective), 10, max_violations=10**5)
    assert len(bad) > 100 and {v.condition for v in bad} == {1, 2}
    assert check_admissibility(states, nb, util, _delta(published_rate_objective), 10) == []


def test_ego_bound_readings_are_admissible():
    """Capped, both bounds are at least the library's tight admissible function and non-increasing in
    ``deg - t`` (so condition 2 holds for neighbours whose degree differs by one)."""
    deg = np.arange(0, 60)[:, None]
    t = np.arange(0, 60)[None, :]
    tight = graphs.ego_density_sensitivity(deg, t)
    for kind in ("printed", "published"):
        b = ego_bound(deg, t, kind)
        assert np.all(b >= tight - 1e-15) and np.all(b <= 1.0)
        # delta(d, t + 1) >= delta(d', t) for |d - d'| <= 1
        assert np.all(b[:-1, 1:] >= b[1:, :-1] - 1e-15) and np.all(b[:, 1:] >= b[:, :-1] - 1e-15)


def test_public_api_refuses_the_readings():
    data = load_breast_cancer()
    with pytest.raises(TypeError):
        DPMOETClassifier(1.0, tpr_delta="printed")  # no such parameter
    with pytest.raises(TypeError):
        LocalDiffPID3Classifier(1.0, form="plain-own")
    with pytest.raises(ValueError):
        graphs.ego_density_sensitivity([5], 0, formula="printed")
    g = graphs.load_graph(np.array([[0, 1], [1, 2], [2, 0], [2, 3]]), nodes=4)
    with pytest.raises(TypeError):
        graphs.top_k(g, 1, 1.0, ego_delta="printed")
    with pytest.raises(TypeError):
        dpmo.select(np.zeros(3), 1.0, 1.0, exp_half=False)
    assert data.X.shape[0] == 569


# ------------------------------------------------------------------------------------------ variants
PARETO = dict(population_size=8, selection_size=2, n_iterations=2, initial_depth=2, max_depth=4, n_output=2)


def test_reading_moet_without_readings_equals_the_library():
    data = load_breast_cancer()
    a = DPMOETClassifier(1.0, features=data.features, random_state=3, **PARETO).fit(data.X, data.y)
    b = ReadingMOET(1.0, reading={}, features=data.features, random_state=3, **PARETO).fit(data.X, data.y)
    assert np.array_equal(a.evaluate(data.X, data.y), b.evaluate(data.X, data.y))


@pytest.mark.parametrize("scale, per_pick", [("pick", 1.0), ("round", 0.5)])
def test_budget_readings_spend_what_they_say(scale, per_pick):
    data = load_breast_cancer()
    clf = ReadingMOET(1.0, reading={"eps_scale": scale}, features=data.features, random_state=0, **PARETO)
    clf.fit(data.X, data.y)
    spent = [rec.epsilon for rec in clf.budget_.ledger]
    assert len(spent) == 6 and np.allclose(spent, per_pick)  # 3 rounds of 2 picks


def test_reading_moet_printed_delta_and_pareto_reference_run():
    data = load_breast_cancer()
    r = {"tpr_delta": "printed", "ref_dominance": "pareto"}
    clf = ReadingMOET(0.5, reading=r, features=data.features, random_state=1, **PARETO).fit(data.X, data.y)
    assert clf.evaluate(data.X, data.y).shape == (2, 2)
    ref = ReadingMOET(None, reading=r, features=data.features, random_state=1, **PARETO).fit(data.X, data.y)
    assert ref.budget_ is None


def test_reading_id3_shipped_form_equals_the_library():
    data = load_breast_cancer()
    a = LocalDiffPID3Classifier(0.5, max_depth=3, features=data.features, random_state=2).fit(data.X, data.y)
    b = ReadingID3(0.5, max_depth=3, features=data.features, random_state=2).fit(data.X, data.y)
    assert np.array_equal(a.predict(data.X), b.predict(data.X))
    c = ReadingID3(0.5, form="plain-own", max_depth=3, features=data.features, random_state=2)
    assert c.fit(data.X, data.y).predict(data.X).shape == (569,)


def test_graph_readings_run_and_keep_ids():
    from dpmo.experiments.variants import graph_top_k

    g = graphs.load_graph(
        np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 2], [5, 2]]) + 10, nodes=range(10, 16)
    )
    for kind in ("printed", "published"):
        for approach in ("pareto", "agg"):
            picks = graph_top_k(
                g, 2, 5.0, approach=approach, sensitivity="local", weights=(1.0, 100.0),
                mechanism="exponential", rng=0, params={"ego_delta": kind}, conv={},
            )  # fmt: skip
            assert len(set(picks.tolist())) == 2 and set(picks.tolist()) <= set(range(10, 16))


@pytest.mark.slow  # over 2 s of CPU: the whole suite only (its module keeps fast tests)
def test_prep_defaults_equal_the_library_loaders_and_variants_change_rows(shared_data):
    from dpmo.datasets import load_adult
    from dpmo.experiments.prep import load_table

    files = [str(shared_data / "adult.data"), str(shared_data / "adult.test")]
    lib = load_adult(shared_data)
    ours = load_table("adult", files, {"adult_files": "both"})
    assert np.array_equal(lib.X, ours.X) and np.array_equal(lib.y, ours.y) and lib.features == ours.features
    assert load_table("adult", files, {"adult_files": "train"}).X.shape[0] == 30162
    keep = load_table("adult", files, {"adult_missing": "keep"})
    assert keep.X.shape[0] == 48842
    flipped = load_table("adult", files, {"positive": "flipped"})
    assert np.array_equal(flipped.y, 1 - lib.y)
    binned = load_table("adult", files, {"adult_bins": 5})
    assert all(f.kind == "categorical" for f in binned.features)


def test_report_note_names_readings_and_flags_non_private_ones():
    from dpmo.experiments.readings import readings_note

    assert readings_note([{"readings": "default", "private": "yes"}]) == ""
    text = readings_note([{"readings": "eps-per-pick", "private": "no"}, {"readings": "default"}])
    assert "`eps-per-pick` (NOT PRIVATE)" in text and "not epsilon-differentially private" in text
    assert "NOT PRIVATE" not in readings_note([{"readings": "ego-printed", "private": "yes"}])


def test_published_agg_sensitivity_is_ours_plus_the_degree_term_again():
    from dpmo.aggregate import aggregate
    from dpmo.experiments.variants import published_agg_objective

    g = graphs.load_graph(np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 2], [5, 2], [5, 1]]), nodes=6)
    ours = aggregate(graphs.objectives(g), (1.0, 100.0))
    theirs = published_agg_objective(g, (1.0, 100.0), {})
    assert np.array_equal(ours.values, theirs.values)
    for t in range(8):
        a, b = ours.sensitivity(t), theirs.sensitivity(t)
        assert np.allclose(b, np.minimum(a + 1.0, 101.0))  # + |w_degree| delta^degree (= 1), capped


def test_id3_without_stopping_rule_splits_where_the_rule_stops():
    data = load_breast_cancer()
    kw = dict(max_depth=3, features=data.features, random_state=0)
    stop = ReadingID3(0.01, **kw).fit(data.X, data.y)
    free = ReadingID3(0.01, stopping_rule=False, **kw).fit(data.X, data.y)
    assert stop.get_depth() < free.get_depth() == 3
    assert LocalDiffPID3Classifier._stopping_rule is True  # the library keeps the rule


def test_readings_run_the_chebyshev_method_they_name():
    """Under a reading that replaces the objectives, a Chebyshev method still runs PrivChebyshev (it ran
    PrivAgg before the readings went through the one pipeline): the trees' ledger names the scalarisation,
    and the graph picks equal PrivChebyshev with the graph's public settings on the reading's objectives."""
    from dpmo.chebyshev import priv_chebyshev
    from dpmo.experiments.variants import _graph_objectives, graph_top_k
    from dpmo.graphs.chebyshev import graph_chebyshev_settings

    data = load_breast_cancer()
    r = {"tpr_delta": "published"}
    clf = ReadingMOET(1.0, reading=r, approach="chebyshev", features=data.features, random_state=1, **PARETO)
    clf.fit(data.X, data.y)
    assert clf.budget_.spent == 1.0
    assert all("Chebyshev scalarisation" in rec.what for rec in clf.budget_.ledger)

    g = graphs.load_graph(np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 2], [5, 2]]), nodes=6)
    W, A, S = graph_chebyshev_settings(6, 3)
    for seed in range(4):
        picks = graph_top_k(
            g, 3, 2.0, approach="chebyshev", sensitivity="local", weights=(1.0, 100.0),
            mechanism="exponential", rng=seed, params={"ego_delta": "printed"}, conv={},
        )  # fmt: skip
        objs = _graph_objectives(g, "printed", {})
        idx = priv_chebyshev(objs, 2.0, k=3, directions=W, aspirations=A, shares=S, rng=seed, exact=False)
        np.testing.assert_array_equal(picks, g.ids[idx])


@pytest.mark.parametrize("reading", ["tpr-printed", "reference-pareto-dominance"])
def test_tree_readings_spend_decimal_epsilons_without_refusal(reading, tmp_path, capsys):
    # Regression: the readings' fit took the stated epsilon as the float's binary value (0.01 is a hair
    # above 1/100) while the budget records the decimal 0.01, so the last round's share exceeded what was
    # left and every cell at epsilon 0.01 was refused. The shares must add up to the decimal budget.
    out = tmp_path / "r"
    argv = ["reproduce", "tree-pareto", "--datasets", "breast-cancer", "--epsilons", "0.01", "0.1", "0.3",
            "--runs", "1", "--jobs", "1", "--reading", reading, "--out", str(out), "--no-report",
            "--progress", "off"]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    with open(out / "tree-pareto.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {float(r["epsilon"]) for r in rows} == {0.01, 0.1, 0.3}
