"""diffprivlib's side of ``bench_classifiers.py``: its private tree and forest on the splits written by it.

Runs in its own interpreter, with diffprivlib 0.6 and scikit-learn < 1.7 (diffprivlib 0.6 does not import
with scikit-learn 1.9; it is never a dependency of dpmo, and this file imports nothing from dpmo)::

    python -m venv /tmp/venv-diffprivlib
    /tmp/venv-diffprivlib/bin/pip install "diffprivlib==0.6.6" "scikit-learn<1.7"
    /tmp/venv-diffprivlib/bin/python benchmarks/diffprivlib_side.py SPLITS.npz OUT.json

``bench_classifiers.py --diffprivlib-python /tmp/venv-diffprivlib/bin/python`` does this for every table.
``SPLITS.npz`` holds the encoded table ``X`` (categorical codes, numeric values scaled with public bounds),
the labels ``y`` (0/1), the public bounds ``lo`` and ``hi`` of every column, ``epsilon``, ``seeds`` and the
packed test masks ``test`` (one row per seed). For every seed, diffprivlib's ``DecisionTreeClassifier`` and
``RandomForestClassifier`` (their defaults: depth 5, 10 trees) are fitted on the training rows with
``epsilon``, the public ``bounds`` and ``classes=[0, 1]`` (so diffprivlib reads neither from the data), and
scored on the test rows: accuracy and balanced accuracy of ``predict``, ROC-AUC of ``predict_proba``.
``OUT.json`` gets the per-seed scores, the CPU seconds per fit and the versions used.
"""

from __future__ import annotations

import json
import sys
import time
import warnings


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    import numpy as np
    import sklearn
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    try:
        import diffprivlib
        from diffprivlib.models import DecisionTreeClassifier, RandomForestClassifier
    except Exception as exc:  # noqa: BLE001 - report why, in the caller's terms
        print(f"diffprivlib does not import here ({type(exc).__name__}: {exc}); create its environment as "
              "this file's docstring says", file=sys.stderr)  # fmt: skip
        return 3
    data = np.load(argv[0])
    X, y = data["X"], data["y"].astype(int)
    bounds = (data["lo"], data["hi"])
    eps = float(data["epsilon"])
    test = np.unpackbits(data["test"], axis=1, count=X.shape[0]).astype(bool)
    models = {
        "diffprivlib tree": lambda seed: DecisionTreeClassifier(
            epsilon=eps, bounds=bounds, classes=[0, 1], random_state=seed
        ),
        "diffprivlib forest": lambda seed: RandomForestClassifier(
            epsilon=eps, bounds=bounds, classes=[0, 1], random_state=seed
        ),
    }
    out = {
        "versions": {
            "diffprivlib": diffprivlib.__version__,
            "scikit-learn": sklearn.__version__,
            "numpy": np.__version__,
        },  # fmt: skip
        "models": {},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make in models.items():
            acc, ba, auc, cpu = [], [], [], 0.0
            for seed, mask in zip(data["seeds"].tolist(), test, strict=True):
                start = time.process_time()
                model = make(int(seed)).fit(X[~mask], y[~mask])
                cpu += time.process_time() - start
                pred = model.predict(X[mask])
                acc.append(float(accuracy_score(y[mask], pred)))
                ba.append(float(balanced_accuracy_score(y[mask], pred)))
                auc.append(float(roc_auc_score(y[mask], model.predict_proba(X[mask])[:, 1])))
            out["models"][name] = {"acc": acc, "ba": ba, "auc": auc, "cpu_per_fit": cpu / max(len(ba), 1)}
    with open(argv[1], "w") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
