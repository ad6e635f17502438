"""DP-MOET (``dpmo.trees.DPMOETClassifier``) and the private ID3 baselines: time of one ``fit``.

DP-MOET in the paper's two settings (Pareto: p=30, s=3, k=3, d=4, d_max=10, o=3; aggregation: p=100, s=20,
k=2, d=3, d_max=5, o=1) on Adult, NLTCS and ACS, private (epsilon = 1, local or global sensitivity) and
non-private; DiffP-ID3 and LocalDiffPID3 at depth 5 on Adult with each split criterion, and their
``predict`` on the whole table. A new seed every call. In the smoke test, the embedded breast cancer table
stands in for the real ones.
"""

from __future__ import annotations

import itertools

import pytest

from dpmo.datasets import load_acs, load_adult, load_breast_cancer, load_nltcs
from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier
from support import SMOKE, data_dir, describe

PARETO = dict(population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3)
AGG = dict(
    approach="agg", population_size=100, selection_size=20, n_iterations=2, initial_depth=3, max_depth=5,
    n_output=1,
)  # fmt: skip
SETTINGS = {"Pareto setting 30/3/3/4/10/3": PARETO, "aggregation setting 100/20/2/3/5/1": AGG}
VARIANTS = {"local": (1.0, "local"), "global": (1.0, "global"), "non-private": (None, "local")}
_TABLES: dict = {}


def table(name: str):
    """The real table ``name`` (loaded once per session); breast cancer in the smoke test."""
    if SMOKE:
        name = "breast-cancer"
    if name not in _TABLES:
        folder = data_dir()
        loaders = {
            "adult": lambda: load_adult(folder),
            "nltcs": lambda: load_nltcs(folder / "nltcs.dat"),
            "acs": lambda: load_acs(folder / "acs.dat"),
            "breast-cancer": load_breast_cancer,
        }
        try:
            _TABLES[name] = loaders[name]()
        except (OSError, ValueError) as exc:
            pytest.skip(f"real data {name} not found in {folder}: {exc}")
    return _TABLES[name]


def _seeded(estimator):
    """A callable fitting ``estimator`` with a new seed each call."""
    seeds = itertools.count()

    def fit(data):
        return estimator.set_params(random_state=next(seeds)).fit(data.X, data.y)

    return fit


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", ["adult", "nltcs", "acs"])
def test_dpmoet_fit(benchmark, name, setting, variant):
    if SMOKE and name != "adult":
        pytest.skip("smoke test: one table")
    data = table(name)
    eps, sens = VARIANTS[variant]
    clf = DPMOETClassifier(epsilon=eps, sensitivity=sens, features=data.features, **SETTINGS[setting])
    clf.set_params(random_state=10_000).fit(data.X, data.y)  # warm-up: numba kernels, encodings
    describe(benchmark, f"DP-MOET fit on {name}, {setting}, {variant}", readme=name == "adult")
    benchmark(_seeded(clf), data)


@pytest.mark.parametrize("criterion", ["info_gain", "gini", "max"])
@pytest.mark.parametrize("cls", [DiffPID3Classifier, LocalDiffPID3Classifier], ids=lambda c: c.__name__)
def test_id3_fit(benchmark, cls, criterion):
    data = table("adult")
    clf = cls(1.0, criterion=criterion, features=data.features, max_depth=5)
    clf.set_params(random_state=10_000).fit(data.X, data.y)
    describe(benchmark, f"{cls.__name__[:-10]} fit on adult, depth 5, {criterion}, epsilon = 1",
             readme=criterion == "info_gain")  # fmt: skip
    benchmark(_seeded(clf), data)


@pytest.mark.parametrize("cls", [DiffPID3Classifier, LocalDiffPID3Classifier], ids=lambda c: c.__name__)
def test_id3_predict(benchmark, cls):
    data = table("adult")
    clf = cls(1.0, features=data.features, max_depth=5, random_state=0).fit(data.X, data.y)
    describe(benchmark, f"{cls.__name__[:-10]} predict on the whole adult table, depth 5")
    benchmark(clf.predict, data.X)
