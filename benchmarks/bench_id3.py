"""Accuracy of the private ID3 baselines: mean fitness 3 TPR + 2 TNR (fit times: test_trees.py).

Run from the repository root (the datasets are read from ``../shared/data`` or ``$DPMO_DATA_DIR``)::

    python benchmarks/bench_id3.py                  # fitness table, epsilon = 1
    python benchmarks/bench_id3.py --reps 40 --eps 0.1 0.5 1 2 --datasets nltcs acs adult
    python benchmarks/bench_id3.py --ablation --reps 40 --datasets nltcs

Fitness is measured on the training data, as in the paper's tree aggregation experiment (figure "Mean
fitness/utility score u_agg", LocalDiffPID3 at epsilon = 1: NLTCS 3.95, Adult 3.39, ACS 4.69). Seeds are
paired: seed s gives both estimators the same noise for counts and leaves, so the difference column
isolates the attribute choices (mean +- standard error over the seeds).

``--ablation`` adds LocalDiffPID3 with each part of its attribute choice switched off: the criterion as
Friedman and Schuster write it (``u <= 0``) instead of its non-negative form ``u + c |T|``, and one exact
local sensitivity curve per attribute instead of the node's shared curve (the maximum over the attributes).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from dpmo.datasets import load_acs, load_adult, load_nltcs
from dpmo.metrics import tpr_tnr, weighted_fitness
from dpmo.trees import DiffPID3Classifier, LocalDiffPID3Classifier

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DPMO_DATA_DIR", ROOT.parent / "shared" / "data"))
PAPER = {"nltcs": 3.9490, "adult": 3.3872, "acs": 4.6950}  # LocalDiffPID3 at epsilon = 1 in the paper


def load(name: str):
    if name == "nltcs":
        return load_nltcs(DATA / "nltcs.dat")
    if name == "acs":
        return load_acs(DATA / "acs.dat")
    return load_adult(DATA)


def fitness(clf, data) -> float:
    return float(weighted_fitness(tpr_tnr(data.y, clf.predict(data.X)), (3.0, 2.0)))


def variant(nonnegative: bool, shared: bool) -> type:
    """LocalDiffPID3Classifier with the form of its attribute choice set (ablation only)."""
    return type(
        f"Local_{'nonneg' if nonnegative else 'plain'}_{'shared' if shared else 'own'}",
        (LocalDiffPID3Classifier,),
        {"_nonnegative": nonnegative, "_shared": shared},
    )


def fitness_table(names, eps_list, reps: int, ablation: bool = False) -> None:
    print(f"\nMean fitness 3 TPR + 2 TNR on the training data, {reps} paired seeds, depth 5, info_gain")
    locals_ = [("LocalDiffPID3", LocalDiffPID3Classifier)]
    if ablation:
        locals_ += [
            ("  u<=0, shared", variant(False, True)),
            ("  u+c|T|, own", variant(True, False)),
            ("  u<=0, own", variant(False, False)),
        ]
    head = f"  {'dataset':7s} {'eps':>5s} {'DiffP-ID3':>10s} {'variant':>16s} {'mean':>7s}"
    print(f"{head} {'local - diffp':>16s}  paper")
    for name in names:
        data = load(name)
        for eps in eps_list:
            a = [
                fitness(DiffPID3Classifier(eps, features=data.features, random_state=s).fit(data), data)
                for s in range(reps)
            ]
            for label, cls in locals_:
                b = [
                    fitness(cls(eps, features=data.features, random_state=s).fit(data), data)
                    for s in range(reps)
                ]
                d = np.array(b) - np.array(a)
                paper = f"{PAPER[name]:.2f}" if eps == 1.0 and cls is LocalDiffPID3Classifier else ""
                se = d.std(ddof=1) / np.sqrt(reps) if reps > 1 else 0.0
                print(
                    f"  {name:7s} {eps:5g} {np.mean(a):10.3f} {label:>16s} {np.mean(b):7.3f} "
                    f"{d.mean():+9.3f} +- {se:.3f}  {paper}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="seeds per setting (default 20)")
    parser.add_argument("--eps", type=float, nargs="+", default=[1.0])
    parser.add_argument(
        "--datasets", nargs="+", default=["nltcs", "acs", "adult"], choices=["nltcs", "acs", "adult"]
    )
    parser.add_argument("--ablation", action="store_true", help="also LocalDiffPID3 with parts switched off")
    parser.add_argument("--no-timing", action="store_true", help=argparse.SUPPRESS)  # timings: test_trees.py
    args = parser.parse_args()
    fitness_table(args.datasets, args.eps, args.reps, args.ablation)


if __name__ == "__main__":
    main()
