"""The DP-classifier table: dpmo's private trees against diffprivlib's: accuracy, balanced accuracy, ROC-AUC.

Run from the repository root (the tables are read from ``--data-dir``, default ``../shared/data``)::

    PYTHONPATH=src python benchmarks/bench_classifiers.py [--seeds 50] [--epsilon 1] [--delta 0]
        [--tables breast-cancer,nltcs,adult,acs] [--diffprivlib-python PATH] [--moet NAME:key=value,...]
        [--privatree-python PATH --privatree-path DIR [--privatree-commit SHA]] [--json FILE]

For every table and seed ``0 .. seeds-1``: one stratified split (70% train, 30% test, ``random_state =
seed``), the same for every model. On the training part, at ``--epsilon`` (and ``--delta``):

* **PrivateTree**: ``PrivateTreeClassifier`` with the library's defaults (dpmo's recommended classifier for
  accuracy, issue 39); **PrivateTree (balanced accuracy)**: the same with ``objective="balanced_accuracy"``;
* **DP-MOET-Agg**: ``DPMOETClassifier`` with the library's defaults (a cost-sensitive TPR/TNR trade-off);
  ``--moet NAME:key=value,...`` adds
  a row with other constructor parameters (repeatable; e.g. ``--moet "final 0.5:final_share=0.5"``);
* **LocalDiffPID3**: ``LocalDiffPID3Classifier`` with the library's defaults;
* **diffprivlib tree / forest**: diffprivlib 0.6's ``DecisionTreeClassifier`` and
  ``RandomForestClassifier`` (defaults: depth 5, 10 trees), run by ``benchmarks/diffprivlib_side.py`` in
  the interpreter given by ``--diffprivlib-python`` on the same splits (written to a temporary ``.npz``);
  diffprivlib 0.6 does not import with scikit-learn 1.9, so it lives in its own environment, never in
  dpmo's dependencies::

      python -m venv /tmp/venv-diffprivlib
      /tmp/venv-diffprivlib/bin/pip install "diffprivlib==0.6.6" "scikit-learn<1.7"

  Without ``--diffprivlib-python`` those columns are left out;
* **non-private tree, depth 5**: scikit-learn's ``DecisionTreeClassifier(max_depth=5)``: NOT private.

Every model gets public bounds: dpmo's the features' (the loaders' constants), diffprivlib's the same
bounds of the encoded columns (``[0, 1]`` for a numeric column, ``[0, c - 1]`` for a categorical one with
``c`` categories) and ``classes=[0, 1]``. Scores on the test part: balanced accuracy of ``predict`` and
ROC-AUC of ``predict_proba``, mean +- standard error over the seeds, and CPU seconds per fit.

**PrivaTree (run)**: PrivaTree (Vos et al. 2023) from its authors' code
(https://github.com/tudelft-cda-lab/PrivaTree), run by ``benchmarks/privatree_side.py`` in the interpreter
given by ``--privatree-python`` with the checkout given by ``--privatree-path`` (outside this repository;
never a dependency, nothing of it copied), on the same splits and seeds, with its paper's settings (depth 4,
10 bins, its automatic epsilon split), the same public bounds and the public category counts; pure
epsilon-DP. Its ``predict_proba`` is 0/1 (one label per leaf), so its ROC-AUC equals its balanced accuracy.
``--privatree-commit`` records the checkout's commit when it is not a git work tree. Without
``--privatree-python`` the row is left out. At ``--epsilon 1`` the table also quotes, as a row marked
"quoted", the figures of issue 39 (reported there as PrivaTree on these splits, 10 seeds); the paper's own
Adult figure is 0.822 accuracy (5-fold cross-validation), as issue 39 quotes it.

``--delta`` > 0 passes ``delta=`` to the dpmo estimators (approximate DP, issue 30's accountant); the
script refuses, before fitting anything, when the installed dpmo's estimators have no such parameter.
diffprivlib's models are pure epsilon-DP in every case. ``--json`` keeps every per-seed score.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from dpmo.datasets import load_acs, load_adult, load_breast_cancer, load_nltcs
from dpmo.trees import DPMOETClassifier, LocalDiffPID3Classifier, PrivateTreeClassifier

HERE = Path(__file__).resolve().parent
TABLES = {
    "breast-cancer": lambda root: load_breast_cancer(),
    "nltcs": lambda root: load_nltcs(root),
    "adult": lambda root: load_adult(root),
    "acs": lambda root: load_acs(root),
}
DIFFPRIVLIB = ("diffprivlib tree", "diffprivlib forest")
NON_PRIVATE = "non-private tree, depth 5"
PRIVATREE = "PrivaTree (run)"
#: PrivaTree at epsilon 1, pure DP: (accuracy, balanced accuracy, ROC-AUC) as issue 39 reports them (its
#: authors' code, its paper's settings, these splits, 10 seeds); quoted, not run.
PRIVATREE_QUOTED = {
    "adult": (0.823, 0.704, 0.704),
    "nltcs": (0.844, 0.826, 0.826),
    "acs": (0.947, 0.942, 0.942),
    "breast-cancer": (0.742, 0.677, 0.677),
}
QUOTED = "PrivaTree (quoted: issue 39, 10 seeds)"
#: PrivaTree's paper (Vos et al. 2023, arXiv:2305.15394): Adult, epsilon 1, depth 4, 5-fold cross-validation,
#: accuracy only (as issue 39 quotes it).
PUBLISHED = "PrivaTree (published: Vos et al. 2023, 5-fold CV)"
PRIVATREE_PUBLISHED = {"adult": 0.822}
EPSILONS: dict[str, float | None] = {}  # --moet rows with their own epsilon (None: NODP-MOET, NOT private)


def parse_moet(text: str) -> tuple[str, dict]:
    """``"NAME:key=value,key=value"`` -> (NAME, {key: value}); values are Python literals.

    >>> parse_moet("even:weights=(1, 1),final_share=0.5")
    ('even', {'weights': (1, 1), 'final_share': 0.5})
    """
    import ast

    name, _, rest = text.partition(":")
    items, depth, start = [], 0, 0
    for i, ch in enumerate(rest + ","):  # commas inside brackets belong to a value: weights=(1,1)
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            items.append(rest[start:i].strip())
            start = i + 1
    params = {}
    for item in filter(None, items):
        key, _, value = item.partition("=")
        try:
            params[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key.strip()] = value.strip()
    return name.strip(), params


def check_delta(delta: float) -> dict:
    """``{"delta": delta}`` for the dpmo estimators, or exit when this dpmo cannot take it."""
    if delta == 0:
        return {}
    estimators = (DPMOETClassifier, LocalDiffPID3Classifier, PrivateTreeClassifier)
    missing = [c.__name__ for c in estimators if "delta" not in c().get_params()]
    if missing:
        import dpmo

        sys.exit(f"--delta {delta:g}: the dpmo imported from {Path(dpmo.__file__).parent} has no delta= "
                 f"parameter on {', '.join(missing)} (approximate-DP accounting, issue 30). Run with --delta "
                 "0, or with a dpmo that has it.")  # fmt: skip
    return {"delta": delta}


def public_bounds(features) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of the encoded columns from the public features: [0, 1] numeric, [0, c - 1] categorical."""
    hi = [max(f.n_categories - 1, 1) if f.is_categorical else 1.0 for f in features]
    return np.zeros(len(features)), np.asarray(hi, dtype=np.float64)


def splits(y: np.ndarray, seeds: list[int], test_size: float) -> np.ndarray:
    """Test masks, one row per seed (stratified, ``random_state = seed``)."""
    masks = np.zeros((len(seeds), y.size), dtype=bool)
    for i, seed in enumerate(seeds):
        _, test = train_test_split(np.arange(y.size), test_size=test_size, random_state=seed, stratify=y)
        masks[i, test] = True
    return masks


def score(model, X, y) -> tuple[float, float, float]:
    pos = list(model.classes_).index(1)
    pred = model.predict(X)
    return (
        float(accuracy_score(y, pred)),
        float(balanced_accuracy_score(y, pred)),
        float(roc_auc_score(y, model.predict_proba(X)[:, pos])),
    )


def dpmo_models(args, delta_kw: dict, features) -> dict:
    models = {
        "PrivateTree": lambda seed: PrivateTreeClassifier(
            args.epsilon, features=features, random_state=seed, **delta_kw
        ),
        "PrivateTree (balanced accuracy)": lambda seed: PrivateTreeClassifier(
            args.epsilon, objective="balanced_accuracy", features=features, random_state=seed, **delta_kw
        ),
        "DP-MOET-Agg": lambda seed: DPMOETClassifier(
            args.epsilon, features=features, random_state=seed, **delta_kw
        ),
        "LocalDiffPID3": lambda seed: LocalDiffPID3Classifier(
            args.epsilon, features=features, random_state=seed, **delta_kw
        ),
    }
    for text in args.moet:
        name, params = parse_moet(text)
        eps = params.pop("epsilon", args.epsilon)  # epsilon=None: the non-private NODP-MOET
        EPSILONS[f"DP-MOET-Agg ({name})"] = eps
        models[f"DP-MOET-Agg ({name})"] = lambda seed, p=params, e=eps: DPMOETClassifier(
            e, features=features, random_state=seed, **{**p, **({} if e is None else delta_kw)}
        )
    models[NON_PRIVATE] = lambda seed: DecisionTreeClassifier(max_depth=5, random_state=seed)
    return models


def run_table(args, name: str, delta_kw: dict) -> dict:
    data = TABLES[name](args.data_dir)
    X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.int64)
    seeds = list(range(args.seeds))
    masks = splits(y, seeds, args.test_size)
    results: dict = {}
    for model, make in dpmo_models(args, delta_kw, data.features).items():
        if args.models and model not in args.models:
            continue
        acc, ba, auc, cpu = [], [], [], 0.0
        for seed, mask in zip(seeds, masks, strict=True):
            Xtr = data.X[~mask] if model != NON_PRIVATE else X[~mask]
            start = time.process_time()
            fitted = make(seed).fit(Xtr, y[~mask])
            cpu += time.process_time() - start
            c, b, a = score(fitted, data.X[mask] if model != NON_PRIVATE else X[mask], y[mask])
            acc.append(c)
            ba.append(b)
            auc.append(a)
        results[model] = {"acc": acc, "ba": ba, "auc": auc, "cpu_per_fit": cpu / len(seeds)}
        print(f"  {name} / {model}: {summary(results[model])}", file=sys.stderr, flush=True)
    if args.diffprivlib_python and not (args.models and not set(DIFFPRIVLIB) & set(args.models)):
        side = run_side(args, args.diffprivlib_python, ["diffprivlib_side.py"], X, y, data.features, seeds,
                        masks)  # fmt: skip
        results.update(side)
        for model in DIFFPRIVLIB:
            print(f"  {name} / {model}: {summary(results[model])}", file=sys.stderr, flush=True)
    if args.privatree_python and not (args.models and PRIVATREE not in args.models):
        extra = ["--privatree-path", args.privatree_path] + (
            ["--commit", args.privatree_commit] if args.privatree_commit else []
        )
        side = run_side(args, args.privatree_python, ["privatree_side.py", *extra], X, y, data.features,
                        seeds, masks)  # fmt: skip
        results[PRIVATREE] = side["PrivaTree"]
        print(f"  {name} / {PRIVATREE}: {summary(results[PRIVATREE])}", file=sys.stderr, flush=True)
    return results


def run_side(args, python: str, script: list[str], X, y, features, seeds, masks) -> dict:
    """Run ``benchmarks/<script>`` in ``python`` (a peer's own environment) on the splits; its results."""
    lo, hi = public_bounds(features)
    ncat = [f.n_categories if f.is_categorical else 0 for f in features]
    with tempfile.TemporaryDirectory() as tmp:
        npz, out = Path(tmp) / "splits.npz", Path(tmp) / "out.json"
        np.savez(npz, X=X, y=y.astype(np.int8), lo=lo, hi=hi, ncat=np.asarray(ncat, dtype=np.int64),
                 epsilon=args.epsilon, seeds=np.asarray(seeds), test=np.packbits(masks, axis=1))  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the peer's own environment
        cmd = [python, str(HERE / script[0]), *script[1:], str(npz), str(out)]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"{script[0]} failed ({python}):\n{res.stderr[-3000:]}")
        side = json.loads(out.read_text())
    print(f"  {script[0]}: {side['versions']}", file=sys.stderr)
    return {name: dict(r, versions=side["versions"]) for name, r in side["models"].items()}


def mean_se(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return "-"
    se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0
    return f"{x.mean():.3f} +- {se:.3f}"


def summary(r: dict) -> str:
    scores = f"acc {mean_se(r.get('acc', []))}, BA {mean_se(r['ba'])}, AUC {mean_se(r['auc'])}"
    return f"{scores}, {r['cpu_per_fit']:.3f} s/fit"


def privacy_of(model: str, args) -> str:
    eps = EPSILONS.get(model, args.epsilon)
    if model == QUOTED:
        return "pure (1, 0)-DP"
    if model == NON_PRIVATE or eps is None:
        return "NOT private"
    pure_always = model in DIFFPRIVLIB or model == PRIVATREE or model.startswith("PrivateTree")
    if pure_always or args.delta == 0:
        return f"pure ({eps:g}, 0)-DP"
    return f"({eps:g}, {args.delta:g})-DP"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=0.0)
    ap.add_argument("--tables", default=",".join(TABLES))
    ap.add_argument("--test-size", type=float, default=0.3)
    default_data = os.environ.get("DPMO_DATA_DIR", str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--data-dir", default=default_data)
    ap.add_argument("--diffprivlib-python", default=None, help="interpreter with diffprivlib 0.6 (see above)")
    ap.add_argument("--privatree-python", default=None, help="interpreter for benchmarks/privatree_side.py")
    ap.add_argument("--privatree-path", default=None, help="PrivaTree's authors' checkout (not in dpmo)")
    ap.add_argument("--privatree-commit", default=None, help="that checkout's commit, if not a git work tree")
    ap.add_argument("--moet", action="append", default=[], help="NAME:key=value,... (an extra DP-MOET row)")
    ap.add_argument("--models", default="", help="semicolon-separated subset of the model names")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(";") if m.strip()]
    if bool(args.privatree_python) != bool(args.privatree_path):
        ap.error("--privatree-python and --privatree-path go together")
    delta_kw = check_delta(args.delta)
    warnings.filterwarnings("ignore")
    print(f"epsilon = {args.epsilon:g}, delta = {args.delta:g}, {args.seeds} seeds (splits 70/30, "
          f"random_state = seed); load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    everything = {}
    for name in [t.strip() for t in args.tables.split(",") if t.strip()]:
        everything[name] = run_table(args, name, delta_kw)
    print("\n| table | model | privacy | accuracy | balanced accuracy | ROC-AUC | CPU s / fit |")
    print("|---|---|---|---|---|---|---|")
    for name, results in everything.items():
        for model, r in results.items():
            cells = [name, model, privacy_of(model, args), mean_se(r.get("acc", [])), mean_se(r["ba"]),
                     mean_se(r["auc"])]  # fmt: skip
            print("| " + " | ".join(cells) + f" | {r['cpu_per_fit']:.3f} |")
        if args.epsilon == 1 and name in PRIVATREE_QUOTED:
            a, b, c = PRIVATREE_QUOTED[name]
            print(f"| {name} | {QUOTED} | {privacy_of(QUOTED, args)} | {a:.3f} | {b:.3f} | {c:.3f} | - |")
        if args.epsilon == 1 and name in PRIVATREE_PUBLISHED:
            print(f"| {name} | {PUBLISHED} | pure (1, 0)-DP | {PRIVATREE_PUBLISHED[name]:.3f} | - | - | - |")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        meta = {k: getattr(args, k) for k in ("epsilon", "delta", "seeds", "test_size")}
        Path(args.json).write_text(json.dumps({"settings": meta, "results": everything}, indent=1))


if __name__ == "__main__":
    main()
