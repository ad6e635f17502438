"""What answering at once costs: the command line's start-up, ``import dpmo``, and process pools.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_startup.py [--repeats 11] [--skip-pool]

Prints, each in a fresh interpreter (medians over ``--repeats`` runs; wall seconds and the CPU seconds of
the child, user + system, with the load average before and after):

* ``python -c pass`` (the interpreter alone), ``python -m dpmo.cli --version``, ``--help``,
  ``select --help``, an argument error and ``topk --explain``: the issue's target is 0.3 s on an idle core;
* ``import dpmo``; ``import dpmo`` and one ``dpmo.select`` (numpy, no compiled kernel);
  ``import dpmo.trees`` and a first DP-MOET fit (numba and the cached kernels);
* ``cross_val_score(DPMOETClassifier(...), breast cancer, n_jobs=N)`` for N = 1, N = 2 (joblib's process
  pool: its first call and a second call that reuses the workers) and N = 2 under joblib's threading
  backend, with the workers' CPU time (``--skip-pool`` leaves them out).

``docs/trees.md`` ("Performance") and the README quote these figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass": ["-c", "pass"],
    "dpmo --version": ["-m", "dpmo.cli", "--version"],
    "dpmo --help": ["-m", "dpmo.cli", "--help"],
    "dpmo select --help": ["-m", "dpmo.cli", "select", "--help"],
    "dpmo topk (argument error)": ["-m", "dpmo.cli", "topk", "g.csv", "--epsilon", "-1"],
    "dpmo topk --explain": ["-m", "dpmo.cli", "topk", "g.csv", "--n-nodes", "37700", "-k", "5", "--explain"],
    "import dpmo": ["-c", "import dpmo"],
    "import dpmo; dpmo.select(...)": ["-c", "import dpmo; dpmo.select([0.0, 1.0, 2.0], 1.0, 1.0, rng=0)"],
    "import dpmo.trees; first DP-MOET fit": [
        "-c",
        "import numpy as np; from dpmo.trees import DPMOETClassifier; r = np.random.default_rng(0); "
        "DPMOETClassifier(epsilon=1.0, random_state=0).fit(r.random((400, 30)), r.integers(0, 2, 400))",
    ],
}

POOL = r"""
import resource, sys, time, warnings
warnings.simplefilter("ignore")
import joblib
from sklearn.model_selection import cross_val_score
from dpmo.datasets import load_breast_cancer
from dpmo.trees import DPMOETClassifier
data = load_breast_cancer()
clf = DPMOETClassifier(epsilon=1.0, features=data.features, random_state=0)
clf.fit(data.X, data.y)  # the parent has fitted once: its kernels are loaded
mode = sys.argv[1]
for call in (1, 2):
    t = time.perf_counter()
    if mode == "threading":
        with joblib.parallel_config(backend="threading"):
            cross_val_score(clf, data.X, data.y, n_jobs=2)
    else:
        cross_val_score(clf, data.X, data.y, n_jobs=int(mode))
    print(f"call {call}: wall {time.perf_counter() - t:.2f} s")
if mode == "2":
    from joblib.externals.loky import get_reusable_executor
    get_reusable_executor().shutdown(wait=True)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"workers' CPU {c.ru_utime + c.ru_stime:.2f} s")
"""


def run(args: list[str]) -> tuple[float, float]:
    """Wall and child CPU seconds of one ``python ARGS`` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--skip-pool", action="store_true")
    opts = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print("| case | wall s (median) | CPU s (median) |")
    print("|---|---|---|")
    for name, args in CASES.items():
        run(args)  # warm-up: the file system cache, numba's cache index
        walls, cpus = zip(*(run(args) for _ in range(opts.repeats)), strict=True)
        print(f"| {name} | {statistics.median(walls):.3f} | {statistics.median(cpus):.3f} |")
    if not opts.skip_pool:
        for mode in ("1", "2", "threading"):
            out = subprocess.run([sys.executable, "-c", POOL, mode], capture_output=True, text=True)
            lines = out.stdout.strip().replace("\n", "; ") or out.stderr.strip().splitlines()[-1]
            label = "threading backend, n_jobs=2" if mode == "threading" else f"n_jobs={mode}"
            print(f"cross_val_score, {label}: {lines}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
