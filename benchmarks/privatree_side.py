"""PrivaTree's side of ``bench_classifiers.py``: its authors' tree on the splits written by it.

PrivaTree (Vos et al. 2023, "Differentially-Private Decision Trees and Provable Robustness to Data
Poisoning") is published by its authors at https://github.com/tudelft-cda-lab/PrivaTree. It is never a
dependency of dpmo, nothing of it is copied here, and this file imports nothing from dpmo: a checkout of
the authors' repository is put OUTSIDE dpmo's tree and its directory is given on the command line::

    git clone https://github.com/tudelft-cda-lab/PrivaTree /somewhere/privatree-src
    python -m venv /somewhere/venv-privatree      # or diffprivlib's environment (diffprivlib_side.py)
    /somewhere/venv-privatree/bin/pip install "diffprivlib==0.6.6" "scikit-learn<1.7" scipy
    /somewhere/venv-privatree/bin/python benchmarks/privatree_side.py \\
        --privatree-path /somewhere/privatree-src SPLITS.npz OUT.json

``bench_classifiers.py --privatree-python PY --privatree-path DIR`` does this for every table. ``SPLITS.npz``
is the file written for ``diffprivlib_side.py`` (encoded table ``X``, labels ``y``, public bounds ``lo`` and
``hi``, ``epsilon``, ``seeds``, packed test masks ``test``) plus ``ncat``: the public number of categories
of every column (0 for a numeric one).

For every seed, ``PrivaTreeClassifier`` is fitted on the training rows with the settings of its paper's
experiment script (``performance_comparison.py`` in the authors' repository): ``max_depth=4``,
``max_bins=10``, ``epsilon_shares="auto"`` (its own split of epsilon between splits and leaves) and the
constructor's other defaults, the public ``feature_range`` (``lo``, ``hi``), the public category counts as
``categorical_features`` and ``random_state=seed``. Scores on the test rows: accuracy and balanced accuracy
of ``predict``, ROC-AUC of ``predict_proba``. PrivaTree's leaves hold one permute-and-flip label, so its
``predict_proba`` is 0/1 and its ROC-AUC equals its balanced accuracy (one operating point); that is the
model's own output, reported as it is. ``OUT.json`` gets the per-seed scores, CPU seconds per fit, the
versions used and the commit of the checkout when it is a git work tree.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

#: PrivaTreeClassifier's settings in its paper's experiment script (the rest: the constructor's defaults).
SETTINGS = {"max_depth": 4, "max_bins": 10, "epsilon_shares": "auto"}


def checkout_commit(path: Path) -> str:
    """The commit of the checkout at ``path`` if git knows it, else ``"unknown"``."""
    try:
        res = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=30)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return res.stdout.strip() if res.returncode == 0 else "unknown"


def version_of(dist: str) -> str:
    """The installed version of ``dist``, or ``"absent"``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "absent"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--privatree-path", required=True, help="checkout of the authors' repository")
    ap.add_argument("--commit", default=None, help="commit of that checkout, when it is not a git work tree")
    ap.add_argument("splits")
    ap.add_argument("out")
    args = ap.parse_args(argv)
    root = Path(args.privatree_path).resolve()
    if not (root / "privatree" / "privatree.py").is_file():
        print(f"--privatree-path {root}: no privatree/privatree.py there (give the directory of a checkout "
              "of https://github.com/tudelft-cda-lab/PrivaTree)", file=sys.stderr)  # fmt: skip
        return 2
    sys.path.insert(0, str(root))
    import numpy as np
    import scipy
    import sklearn
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    try:
        from privatree.privatree import PrivaTreeClassifier  # the authors' code, from --privatree-path
    except Exception as exc:  # noqa: BLE001 - report why, in the caller's terms
        print(f"PrivaTree does not import here ({type(exc).__name__}: {exc}); create its environment as this "
              "file's docstring says", file=sys.stderr)  # fmt: skip
        return 3
    data = np.load(args.splits)
    X, y = data["X"], data["y"].astype(int)
    feature_range = np.column_stack([data["lo"], data["hi"]])
    ncat = data["ncat"].astype(int)
    eps = float(data["epsilon"])
    test = np.unpackbits(data["test"], axis=1, count=X.shape[0]).astype(bool)
    acc, ba, auc, cpu = [], [], [], 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed, mask in zip(data["seeds"].tolist(), test, strict=True):
            model = PrivaTreeClassifier(epsilon=eps, feature_range=feature_range, categorical_features=ncat,
                                        random_state=int(seed), **SETTINGS)  # fmt: skip
            start = time.process_time()
            model.fit(X[~mask], y[~mask])
            cpu += time.process_time() - start
            pred = model.predict(X[mask])
            pos = list(model.classes_).index(1)
            acc.append(float(accuracy_score(y[mask], pred)))
            ba.append(float(balanced_accuracy_score(y[mask], pred)))
            auc.append(float(roc_auc_score(y[mask], model.predict_proba(X[mask])[:, pos])))
    out = {
        "versions": {"privatree": args.commit or checkout_commit(root),
                     "diffprivlib": version_of("diffprivlib"), "scikit-learn": sklearn.__version__,
                     "numpy": np.__version__, "scipy": scipy.__version__},
        "settings": SETTINGS,
        "models": {"PrivaTree": {"acc": acc, "ba": ba, "auc": auc, "cpu_per_fit": cpu / max(len(ba), 1)}},
    }  # fmt: skip
    Path(args.out).write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
