"""Which DP-MOET defaults serve a user: fitness of the tree ``predict`` uses, for four candidate settings.

Run from the repository root (the datasets are read from ``../shared/data`` or ``$DPMO_DATA_DIR``)::

    PYTHONPATH=src python benchmarks/bench_defaults.py [--runs 8]

For NLTCS, Adult and breast cancer at epsilon 0.1 and 1, prints the mean (+- standard error) of
3 TPR + 2 TNR and the accuracy of output tree 0 on the table, and the time per fit, for DP-MOET-Agg and
DP-MOET-Pareto with the settings of the paper's aggregation experiment (population 100, selection 20,
2 generations, depths 3/5, 1 output tree) and of its Pareto table (30, 3, 3, 4/10, 3 output trees).
The winner is the shared default of :mod:`dpmo._defaults` (``docs/defaults.md``).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from dpmo.datasets import load_adult, load_breast_cancer, load_nltcs
from dpmo.trees import DPMOETClassifier

AGG_SETTINGS = dict(
    population_size=100, selection_size=20, n_iterations=2, initial_depth=3, max_depth=5, n_output=1
)
PARETO_SETTINGS = dict(
    population_size=30, selection_size=3, n_iterations=3, initial_depth=4, max_depth=10, n_output=3
)
CANDIDATES = {
    "agg, aggregation settings": dict(AGG_SETTINGS, approach="agg"),
    "pareto, Pareto-table settings": dict(PARETO_SETTINGS, approach="pareto"),
    "agg, Pareto-table settings": dict(PARETO_SETTINGS, approach="agg"),
    "pareto, aggregation settings": dict(AGG_SETTINGS, approach="pareto"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    runs = parser.parse_args().runs
    root = Path(os.environ.get("DPMO_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
    tables = [load_breast_cancer()]
    if root.is_dir():
        tables = [load_nltcs(root), load_adult(root), *tables]
    warnings.filterwarnings("ignore")
    print("| table | epsilon | approach, settings | 3 TPR + 2 TNR of tree 0 | accuracy | s / fit |")
    print("|---|---|---|---|---|---|")
    for data in tables:
        for eps in (0.1, 1.0):
            for name, kw in CANDIDATES.items():
                fits, accs = [], []
                start = time.perf_counter()
                for seed in range(runs):
                    clf = DPMOETClassifier(epsilon=eps, random_state=seed, **kw).fit(data)
                    tpr, tnr = clf.evaluate(data)[0]
                    fits.append(3 * tpr + 2 * tnr)
                    accs.append(clf.score(data.X, data.y))
                sec = (time.perf_counter() - start) / runs
                se = np.std(fits) / np.sqrt(runs)
                print(f"| {data.name} | {eps:g} | {name} | {np.mean(fits):.3f} +- {se:.3f} | "
                      f"{np.mean(accs):.3f} | {sec:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
