"""Memory and time of the tree estimators' fit on a large raw table (issue 40, "lean in memory").

The table: ``--rows`` rows of 12 categorical features of 4 categories each (the categories are strings,
held in a pandas DataFrame as a user passes it: ``category`` dtype by default, ``--object`` for plain
Python strings) and a binary label; the features are declared (``features=``). One fit per run, in a
fresh process, so that the peak is the fit's own:

* ``time``: wall-clock seconds of ``fit``;
* ``peak``: the largest resident memory of the process during the fit minus the resident memory just
  before it (the kernel's high-water mark ``VmHWM``, reset just before the fit, and a 5 ms sampling
  thread), i.e. what the fit adds on top of the caller's table; ``traced`` (with ``--traced``, which
  slows a fit that makes many Python objects several times): tracemalloc's peak during the fit;
* ``bytes/row``: ``peak / rows``.

Usage (the code before issue 40 side by side: a worktree of the old commit on ``PYTHONPATH``)::

    PYTHONPATH=src python benchmarks/bench_tree_memory.py --rows 1000000 --estimator moet
    PYTHONPATH=/path/to/old/src python benchmarks/bench_tree_memory.py --rows 1000000 --estimator moet
    python benchmarks/bench_tree_memory.py --sweep --estimator moet   # 10^5, 10^6, 10^7 in subprocesses

Prints one line per fit: ``estimator rows time peak traced bytes/row dpmo-path``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import tracemalloc

import numpy as np

D, K = 12, 4


def table(rows: int, seed: int = 0, as_object: bool = False):
    import pandas as pd

    from dpmo.datasets import Feature

    rng = np.random.default_rng(seed)
    cats = tuple(f"c{j}" for j in range(K))
    codes = rng.integers(0, K, size=(rows, D), dtype=np.int8)
    logit = (codes[:, 0] == 1).astype(np.float64) + 0.5 * (codes[:, 1] >= 2) - 0.75
    y = (rng.random(rows) < 1 / (1 + np.exp(-2 * logit))).astype(np.int8)
    cols = {}
    for f in range(D):
        cat = pd.Categorical.from_codes(codes[:, f], categories=list(cats))
        cols[f"f{f}"] = np.asarray(cat, dtype=object) if as_object else cat
    del codes
    X = pd.DataFrame(cols)
    features = [Feature(f"f{f}", "categorical", categories=cats) for f in range(D)]
    return X, y, features


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _reset_hwm() -> bool:
    """Reset the kernel's peak resident size of this process (Linux ``clear_refs`` 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _hwm() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def estimator(name: str, features):
    from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

    cls = {"moet": DPMOETClassifier, "id3": DiffPID3Classifier, "local_id3": LocalDiffPID3Classifier}[name]
    return cls(epsilon=1.0, features=features, random_state=0)


def measure(rows: int, name: str, as_object: bool, traced: bool = False) -> dict:
    X, y, features = table(rows, as_object=as_object)
    est = estimator(name, features)
    if rows > 1000:  # compile the kernels and warm the imports on a small table first
        Xs, ys, _ = table(1000, as_object=as_object)
        estimator(name, features).fit(Xs, ys)
    import gc

    gc.collect()
    base = _rss()
    exact_peak = _reset_hwm()
    peak = [base]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], _rss())
            time.sleep(0.005)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    est.fit(X, y)
    elapsed = time.perf_counter() - t0
    traced = tracemalloc.get_traced_memory()[1] if traced else 0
    tracemalloc.stop()
    stop.set()
    th.join()
    peak_rss = max(peak[0], _hwm()) if exact_peak else peak[0]
    import dpmo

    return dict(
        estimator=name,
        rows=rows,
        time=elapsed,
        peak=peak_rss - base,
        traced=traced,
        per_row=(peak_rss - base) / rows,
        path=os.path.dirname(dpmo.__file__),
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**6)
    ap.add_argument("--estimator", choices=("moet", "id3", "local_id3"), default="moet")
    ap.add_argument("--object", action="store_true", help="plain Python strings instead of category dtype")
    ap.add_argument("--traced", action="store_true", help="also tracemalloc's peak (slows the fit down)")
    ap.add_argument("--sweep", action="store_true", help="10^5, 10^6, 10^7 rows, one subprocess each")
    args = ap.parse_args(argv)
    if args.sweep:
        for rows in (10**5, 10**6, 10**7):
            cmd = [sys.executable, __file__, "--rows", str(rows), "--estimator", args.estimator]
            extra = (["--object"] if args.object else []) + (["--traced"] if args.traced else [])
            subprocess.run(cmd + extra, check=True)
        return
    r = measure(args.rows, args.estimator, args.object, args.traced)
    print(
        f"{r['estimator']:>9} rows={r['rows']:>9} time={r['time']:7.2f}s peak={r['peak'] / 2**20:8.1f}MB "
        f"traced={r['traced'] / 2**20:8.1f}MB bytes/row={r['per_row']:7.1f} "
        f"{'object' if args.object else 'category'} {r['path']}",
        flush=True,
    )


if __name__ == "__main__":
    main()
