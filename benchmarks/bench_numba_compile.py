"""What numba's cold compile costs: the CPU time of a workload with an empty cache, and signatures per kernel.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_numba_compile.py [--workload tests|fits] [--repeats 3]
        [--workers 1] [--warm] [--json out.json] [pytest arguments, e.g. tests]

Each repeat runs the workload in a fresh interpreter whose ``NUMBA_CACHE_DIR`` is a new empty temporary
folder, so every compiled kernel is compiled (numba reads and writes only that folder when the variable is
set, not the ``__pycache__`` folders next to the sources; the script checks it: a cold run in one process
must report no cache hit). It prints the CPU time of the child and its descendants (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)``; the machine may be shared, so CPU time rather than wall time,
medians over the repeats) and, for every numba dispatcher of ``dpmo`` that the workload loaded, the number
of signatures it compiled (``dispatcher.signatures``), the compiles (cache misses, summed over the
processes: with ``--workers 2`` both xdist workers may compile the same kernel) and the CPU seconds spent
compiling it (numba's ``numba:compile`` events, exclusive of the kernels compiled inside its own compile).
A plugin loaded in every pytest process collects them; processes that tests start themselves (the command
line's) count in the CPU time only.

``--warm`` adds one run of the same workload with the cache the last cold run filled: the difference of the
two CPU times is what compiling costs.

Workloads:

* ``tests`` (default): the fast tier of the tree tests
  (``pytest -q -m "not slow" -p no:cacheprovider`` on :data:`TREE_TESTS`, or the pytest arguments given,
  e.g. ``tests`` for the whole fast tier), in one process or ``--workers N`` xdist workers;
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

#: A pytest plugin and module, loaded in every process of the workload (each xdist worker too): it times
#: numba's compiles and, when the process ends, writes what it compiled to a JSON file in $NUMBA_PROBE_DIR.
PROBE = r"""
import atexit, json, os, sys, time

from numba.core import event
from numba.core.registry import CPUDispatcher

_stack, _spent = [], {}


class _Timer(event.Listener):
    def on_start(self, ev):
        _stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, inner = _stack.pop()
        total = time.process_time() - start
        if _stack:
            _stack[-1][1] += total
        d = ev.data["dispatcher"]
        key = d.py_func.__module__ + "." + d.py_func.__qualname__
        _spent[key] = _spent.get(key, 0.0) + total - inner


event.register("numba:compile", _Timer())


_done = []


def pytest_unconfigure(config):  # an xdist worker ends without running atexit's handlers
    dump()


@atexit.register
def dump():
    if _done:
        return
    _done.append(True)
    kernels = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("dpmo") or mod is None:
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name:
                key = name + "." + obj.py_func.__qualname__
                kernels[key] = {
                    "signatures": [str(s) for s in obj.signatures],
                    "hits": sum(obj.stats.cache_hits.values()),
                    "misses": sum(obj.stats.cache_misses.values()),
                    "compile_cpu": _spent.get(key, 0.0),
                }
    path = os.path.join(os.environ["NUMBA_PROBE_DIR"], f"{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump({"kernels": kernels, "compile_cpu": sum(_spent.values())}, f)
"""

FITS = r"""
import warnings
import _numba_probe  # noqa: F401
import numpy as np
from dpmo.trees import DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier, PrivateTreeClassifier

warnings.simplefilter("ignore")
for seed in range(2):
    r = np.random.default_rng(seed)
    y = r.integers(0, 2, 300)
    for X in (r.random((300, 8)), r.integers(0, 5, (300, 8))):
        for cls in (DPMOETClassifier, DiffPID3Classifier, LocalDiffPID3Classifier, PrivateTreeClassifier):
            cls(epsilon=1.0, random_state=seed).fit(X, y).predict(X)
"""


def run(workload: str, extra: list[str], cache: str, workers: int) -> dict:
    """One run of ``workload`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache``: CPU and wall seconds,
    and the kernels of every process (each kernel's signatures and compile CPU summed over processes)."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "_numba_probe.py"), "w") as f:
            f.write(PROBE)
        path = os.pathsep.join(p for p in (tmp, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_PROBE_DIR=tmp, PYTHONPATH=path)
        if workload == "tests":
            cmd = ["-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-p", "_numba_probe"]
            cmd += ["-n", str(workers)] if workers > 1 else []
            cmd += extra
        else:
            cmd = ["-c", FITS]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        code = subprocess.run([sys.executable, *cmd], env=env, stdout=subprocess.DEVNULL).returncode
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if code not in (0, 5):
            sys.exit(f"the workload failed (exit code {code})")
        dumps = []
        for name in os.listdir(tmp):
            if name.endswith(".json"):
                with open(os.path.join(tmp, name)) as f:
                    dumps.append(json.load(f))
    kernels: dict = {}
    for d in dumps:  # the processes that loaded a kernel: signatures as a set, compile CPU and misses summed
        for key, k in d["kernels"].items():
            into = kernels.setdefault(key, {"signatures": [], "hits": 0, "misses": 0, "compile_cpu": 0.0})
            into["signatures"] = sorted(set(into["signatures"]) | set(k["signatures"]))
            for field in ("hits", "misses", "compile_cpu"):
                into[field] += k[field]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "kernels": kernels,
        "compile_cpu": sum(d["compile_cpu"] for d in dumps),
        "processes": len(dumps),
        "cpu": cpu,
        "wall": wall,
    }


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("tests", "fits"), default="tests")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers (tests workload)")
    parser.add_argument("--warm", action="store_true", help="one more run with the last cold run's cache")
    parser.add_argument("--json", help="write every run's figures to this file")
    parser.add_argument("extra", nargs="*", help="pytest arguments (default: the tree tests)")
    args = parser.parse_args()
    extra = args.extra or (TREE_TESTS if args.workload == "tests" else [])
    runs, warm = [], None
    with tempfile.TemporaryDirectory() as keep:
        for i in range(args.repeats):
            cache = tempfile.mkdtemp(dir=keep)
            result = run(args.workload, extra, cache, args.workers)
            hits = sum(k["hits"] for k in result["kernels"].values())
            if hits and args.workers == 1:  # several workers: one may load what another compiled
                sys.exit(f"run {i}: {hits} cache hits in an empty NUMBA_CACHE_DIR: the run was not cold")
            runs.append(result)
            print(
                f"cold run {i}: cpu {result['cpu']:.1f} s (compiling {result['compile_cpu']:.1f} s in "
                f"{result['processes']} processes, {hits} cache hits), wall {result['wall']:.1f} s, "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        if args.warm:
            warm = run(args.workload, extra, cache, args.workers)
            print(
                f"warm run: cpu {warm['cpu']:.1f} s (compiling {warm['compile_cpu']:.1f} s), "
                f"wall {warm['wall']:.1f} s",
                flush=True,
            )
    kernels = runs[-1]["kernels"]
    print(f"\n{'kernel':60s} {'sigs':>4s} {'compiles':>8s} {'compile cpu s':>13s}")
    for key in sorted(kernels, key=lambda k: -kernels[k]["compile_cpu"]):
        k = kernels[key]
        if k["signatures"]:
            print(f"{key:60s} {len(k['signatures']):4d} {k['misses']:8d} {k['compile_cpu']:13.2f}")
    compiled = [k for k in kernels.values() if k["signatures"]]
    print(
        f"\n{len(compiled)} kernels compiled, {sum(len(k['signatures']) for k in compiled)} signatures, "
        f"{sum(k['misses'] for k in compiled)} compiles (over all processes)"
    )
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
