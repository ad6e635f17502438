"""What numba's cold compile costs: the CPU time of a workload with an empty cache, and signatures per kernel.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_numba_compile.py [--workload tests|fits] [--repeats 3] [--warm]
        [--json out.json] [-- extra pytest arguments]

Each repeat runs the workload in a fresh interpreter whose ``NUMBA_CACHE_DIR`` is a new empty temporary
folder, so every compiled kernel is compiled (numba reads and writes only that folder when the variable is
set, not the ``__pycache__`` folders next to the sources; the script checks it: a cold run must report no
cache hit). It prints the child's CPU time (user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``;
the machine may be shared, so CPU time rather than wall time, medians over the repeats) and, for every
numba dispatcher of ``dpmo`` that the workload loaded, the number of signatures it compiled
(``dispatcher.signatures``), the cache hits and misses, and the CPU seconds spent compiling it (numba's
``numba:compile`` events, exclusive of the kernels it compiled inside its own compile).

``--warm`` adds one run of the same workload with the cache the last cold run filled: the difference of the
two CPU times is what compiling costs.

Workloads:

* ``tests`` (default): the fast tier of the tree tests
  (``pytest -q -m "not slow" -p no:cacheprovider`` on :data:`TREE_TESTS`), run in the child's process;
* ``fits``: a fixed set of seeded estimator fits and predictions on small generated tables
  (DP-MOET, DiffP-ID3, LocalDiffPID3, PrivateTree), with integer and float features.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TREE_TESTS = [
    "tests/test_trees.py",
    "tests/test_trees_lean.py",
    "tests/test_tree_kernels.py",
    "tests/test_tree_sensitivity.py",
    "tests/test_id3.py",
    "tests/test_id3_clipping.py",
    "tests/test_id3_sensitivity.py",
    "tests/test_id3_single_leaf.py",
    "tests/test_moet.py",
    "tests/test_private_tree.py",
    "tests/test_leaf_counts.py",
    "tests/test_cli_trees.py",
]

CHILD = r"""
import json, sys, time, warnings
import numba
from numba.core import event
from numba.core.registry import CPUDispatcher

stack, spent = [], {}

class Timer(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, inner = stack.pop()
        total = time.process_time() - start
        if stack:
            stack[-1][1] += total
        d = ev.data["dispatcher"]
        key = d.py_func.__module__ + "." + d.py_func.__qualname__
        spent[key] = spent.get(key, 0.0) + total - inner

event.register("numba:compile", Timer())
workload, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
if workload == "tests":
    import pytest
    code = pytest.main(["-q", "-m", "not slow", "-p", "no:cacheprovider", *extra])
    if code not in (0, 5):
        sys.exit(f"pytest failed ({code})")
else:
    import numpy as np
    from dpmo.trees import DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier
    from dpmo.trees import PrivateTreeClassifier
    warnings.simplefilter("ignore")
    for seed in range(2):
        r = np.random.default_rng(seed)
        tables = [r.random((300, 8)), r.integers(0, 5, (300, 8))]
        y = r.integers(0, 2, 300)
        for X in tables:
            for est in (DPMOETClassifier(epsilon=1.0, random_state=seed),
                        DiffPID3Classifier(epsilon=1.0, random_state=seed),
                        LocalDiffPID3Classifier(epsilon=1.0, random_state=seed),
                        PrivateTreeClassifier(epsilon=1.0, random_state=seed)):
                est.fit(X, y).predict(X)
kernels = {}
for name, mod in list(sys.modules.items()):
    if not name.startswith("dpmo") or mod is None:
        continue
    for attr, obj in list(vars(mod).items()):
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name:
            key = name + "." + obj.py_func.__qualname__
            kernels[key] = {
                "signatures": [str(s) for s in obj.signatures],
                "hits": sum(obj.stats.cache_hits.values()),
                "misses": sum(obj.stats.cache_misses.values()),
                "compile_cpu": spent.get(key, 0.0),
            }
with open(out, "w") as f:
    json.dump({"kernels": kernels, "compile_cpu": sum(spent.values())}, f)
"""


def run(workload: str, extra: list[str], cache: str) -> dict:
    """One run of ``workload`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache``; CPU and wall seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "kernels.json")
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run([sys.executable, "-c", CHILD, workload, out, *extra], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(out) as f:
            result = json.load(f)
    result["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result["wall"] = wall
    return result


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("tests", "fits"), default="tests")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="one more run with the last cold run's cache")
    parser.add_argument("--json", help="write every run's figures to this file")
    parser.add_argument("extra", nargs="*", help="pytest arguments (default: the tree tests)")
    args = parser.parse_args()
    extra = args.extra or (TREE_TESTS if args.workload == "tests" else [])
    runs, warm = [], None
    with tempfile.TemporaryDirectory() as keep:
        for i in range(args.repeats):
            cache = tempfile.mkdtemp(dir=keep)
            result = run(args.workload, extra, cache)
            hits = sum(k["hits"] for k in result["kernels"].values())
            if hits:
                sys.exit(f"run {i}: {hits} cache hits in an empty NUMBA_CACHE_DIR: the run was not cold")
            runs.append(result)
            print(f"cold run {i}: cpu {result['cpu']:.1f} s (compiling {result['compile_cpu']:.1f} s), "
                  f"wall {result['wall']:.1f} s, load {os.getloadavg()[0]:.2f}", flush=True)
        if args.warm:
            warm = run(args.workload, extra, cache)
            print(f"warm run: cpu {warm['cpu']:.1f} s (compiling {warm['compile_cpu']:.1f} s), "
                  f"wall {warm['wall']:.1f} s", flush=True)
    kernels = runs[-1]["kernels"]
    print(f"\n{'kernel':60s} {'sigs':>4s} {'compile cpu s':>13s}")
    for key in sorted(kernels, key=lambda k: -kernels[k]["compile_cpu"]):
        k = kernels[key]
        if k["signatures"]:
            print(f"{key:60s} {len(k['signatures']):4d} {k['compile_cpu']:13.2f}")
    compiled = [k for k in kernels.values() if k["signatures"]]
    print(f"\n{len(compiled)} kernels compiled, {sum(len(k['signatures']) for k in compiled)} signatures")
    cpu = statistics.median(r["cpu"] for r in runs)
    comp = statistics.median(r["compile_cpu"] for r in runs)
    each = ", ".join(f"{r['cpu']:.1f}" for r in runs)
    print(f"cold cpu median {cpu:.1f} s over {len(runs)} runs ({each}); compiling median {comp:.1f} s")
    if warm is not None:
        print(f"warm cpu {warm['cpu']:.1f} s: compiling costs about {cpu - warm['cpu']:.1f} s of cpu")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cold": runs, "warm": warm}, f, indent=1)


if __name__ == "__main__":
    main()
