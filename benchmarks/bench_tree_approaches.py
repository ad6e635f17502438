"""What DP-MOET's approaches deliver on a small table: accuracy of the tree ``predict`` uses, over seeds.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_tree_approaches.py [--seeds 10] [--epsilon 1]

On scikit-learn's breast cancer table (569 rows, 30 numeric columns, ``dpmo.datasets.load_breast_cancer``)
fits ``DPMOETClassifier(epsilon, approach=A, sensitivity=S, random_state=seed)`` with the defaults
otherwise, for seeds 0 .. seeds - 1, and prints the training accuracy of its prediction (min, median, max,
and how many fits are below the constant classifier that predicts the majority class). The caution on
``approach="pareto"`` in the estimator's docstring and in ``dpmo trees --help`` quotes this table
(``docs/trees.md``, "Which approach").
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from dpmo.datasets import load_breast_cancer
from dpmo.trees import DPMOETClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    data = load_breast_cancer()
    majority = float(max(data.y.mean(), 1 - data.y.mean()))
    print(
        f"breast cancer, {len(data.y)} rows, epsilon {args.epsilon:g}, seeds 0-{args.seeds - 1}; "
        f"constant classifier (majority class): {majority:.3f}"
    )
    print("| approach | sensitivity | accuracy min | median | max | fits below the constant |")
    print("|---|---|---|---|---|---|")
    for approach in ("agg", "pareto", "chebyshev"):
        for sensitivity in ("local", "global"):
            acc = []
            for seed in range(args.seeds):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    clf = DPMOETClassifier(
                        epsilon=args.epsilon, approach=approach, sensitivity=sensitivity,
                        features=data.features, random_state=seed,
                    ).fit(data.X, data.y)  # fmt: skip
                acc.append(float(np.mean(clf.predict(data.X) == data.y)))
            a = np.array(acc)
            print(
                f"| {approach} | {sensitivity} | {a.min():.2f} | {np.median(a):.2f} | {a.max():.2f} | "
                f"{int((a < majority).sum())} of {a.size} |"
            )


if __name__ == "__main__":
    main()
