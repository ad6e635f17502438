"""PrivateTreeClassifier's settings on generated tables nobody tuned them to (issue 39).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_private_tree.py [--seeds 10] [--epsilon 1]

Tables: ``sklearn.datasets.make_classification`` (8 informative of 12 numeric features, 2 clusters per
class, 10% label noise, class weights 0.7/0.3), each column then given its own scale and offset (mixed
scales: ``x * 10^s + o``, ``s`` in -2..4) and public bounds from the generator's law (``o +- 12 * 10^s``,
never from the sample), at n = 300, 1,000, 3,000, 10,000 and
30,000 records; 70/30 split, ``random_state = seed``. For each n: accuracy and ROC-AUC of ``n_trees="auto"``
(the default: one tree for a large ``epsilon n``, an ensemble for a small one) against fixed ``n_trees=1``
and ``n_trees=10``, and the number of trees the rule chose. Mean over the seeds.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split

from dpmo.datasets import Feature
from dpmo.trees import PrivateTreeClassifier


def table(n: int, seed: int):
    X, y = make_classification(n_samples=n, n_features=12, n_informative=8, n_redundant=2,
                               n_clusters_per_class=2, flip_y=0.1, weights=[0.7, 0.3],
                               random_state=1000 + seed)  # fmt: skip
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-2, 5, size=12)
    offset = rng.normal(0, 3, size=12) * scale
    X = X * scale + offset
    # public bounds from the generator's law: offset +- 12 units of the column's scale
    lo, hi = offset - 12 * scale, offset + 12 * scale
    feats = [Feature(f"x{j}", "numeric", bounds=(float(lo[j]), float(hi[j]))) for j in range(12)]
    return X, y, feats


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--epsilon", type=float, default=1.0)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    print(f"epsilon = {args.epsilon:g}, {args.seeds} seeds\n")
    print("| n | auto: trees chosen | auto: accuracy / AUC | 1 tree | 10 trees |")
    print("|---|---|---|---|---|")
    for n in (300, 1000, 3000, 10000, 30000):
        res = {k: ([], []) for k in ("auto", 1, 10)}
        chosen = []
        for seed in range(args.seeds):
            X, y, feats = table(n, seed)
            tr, te = train_test_split(np.arange(n), test_size=0.3, random_state=seed, stratify=y)
            for k in res:
                clf = PrivateTreeClassifier(args.epsilon, n_trees=k, features=feats, random_state=seed)
                clf.fit(X[tr], y[tr])
                res[k][0].append(accuracy_score(y[te], clf.predict(X[te])))
                res[k][1].append(roc_auc_score(y[te], clf.predict_proba(X[te])[:, 1]))
                if k == "auto":
                    chosen.append(clf.feature_.shape[0])
        cell = {k: f"{np.mean(a):.3f} / {np.mean(b):.3f}" for k, (a, b) in res.items()}
        print(f"| {n} | {min(chosen)}-{max(chosen)} | {cell['auto']} | {cell[1]} | {cell[10]} |", flush=True)


if __name__ == "__main__":
    main()
