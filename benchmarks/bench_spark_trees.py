"""DP-MOET on Spark (``dpmo.spark.fit``) from a Parquet table, side by side with the in-memory fit.

The table of ``benchmarks/bench_tree_memory.py`` (12 categorical features of 4 string categories, a binary
label), written once as Parquet (``--files`` files, Spark's usual layout of a table: one read task per
file), is fitted with DP-MOET's defaults (``DPMOETClassifier(epsilon=1, features=...)``) by

* ``spark``: a fresh process starts the docs' session (``SparkSession.builder.master("local[2]")``,
  Spark's defaults: ``spark.driver.memory`` 1g) and calls ``dpmo.spark.fit`` on ``spark.read.parquet``;
  printed: seconds from before the session starts to the fitted estimator, seconds of the fit alone, the
  number of Spark jobs (and per generation), the peak resident memory of the Python driver and of the
  JVM (which, in local mode, also runs the executors);
* ``memory``: a fresh process reads the same Parquet file with pandas and calls ``fit``; printed: the
  read and fit seconds, the peak resident memory of the process.

Usage::

    PYTHONPATH=src python benchmarks/bench_spark_trees.py --rows 1000000 [--files 8] [--side both]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _hwm(pid: str = "self") -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0


def write_table(rows: int, files: int, folder: Path) -> Path:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench_tree_memory import D, K

    path = folder / f"trees_{rows}_{files}"
    if (path / "_done").exists():
        return path
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    cats = pa.array([f"c{j}" for j in range(K)])
    per = -(-rows // files)
    for i in range(files):
        m = min(per, rows - i * per)
        codes = rng.integers(0, K, size=(m, D), dtype=np.int8)
        logit = (codes[:, 0] == 1).astype(np.float64) + 0.5 * (codes[:, 1] >= 2) - 0.75
        y = (rng.random(m) < 1 / (1 + np.exp(-2 * logit))).astype(np.int8)
        cols = {f"f{f}": pa.DictionaryArray.from_arrays(pa.array(codes[:, f]), cats) for f in range(D)}
        cols["label"] = pa.array(y)
        pq.write_table(pa.table(cols), path / f"part-{i:03d}.parquet")
    (path / "_done").touch()
    return path


def features():
    from bench_tree_memory import D, K
    from dpmo.datasets import Feature

    return [Feature(f"f{f}", "categorical", tuple(f"c{j}" for j in range(K))) for f in range(D)]


def run_spark(path: Path) -> None:
    import threading

    t0 = time.perf_counter()
    from pyspark.sql import SparkSession

    from dpmo import spark as dpspark
    from dpmo.trees import DPMOETClassifier

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jvm_pid = str(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    started = time.perf_counter()
    peak_jvm = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                with open(f"/proc/{jvm_pid}/status") as fh:
                    for line in fh:
                        if line.startswith("VmRSS:"):
                            peak_jvm[0] = max(peak_jvm[0], int(line.split()[1]) * 1024)
            except OSError:
                pass
            time.sleep(0.05)

    threading.Thread(target=sample, daemon=True).start()
    df = spark.read.parquet(str(path))
    t1 = time.perf_counter()
    est = dpspark.fit(DPMOETClassifier(epsilon=1.0, features=features(), random_state=0), df, "label")
    t2 = time.perf_counter()
    stop.set()
    stats = dpspark.trees.last_fit
    gens = est.n_iterations
    print(
        f"spark  rows={ROWS} total={t2 - t0:6.1f}s (session {started - t0:4.1f}s) fit={t2 - t1:6.1f}s "
        f"jobs={stats.jobs} ({stats.passes.count('counts') - 1} generation(s) of {gens}: 1 job each; "
        f"+1 check and encode, +1 initial population) partitions={df.rdd.getNumPartitions()} "
        f"job_seconds={[round(x, 1) for x in stats.seconds]} "
        f"driver_python_peak={_hwm() / 2**20:.0f}MB jvm_peak_rss={peak_jvm[0] / 2**20:.0f}MB",
        flush=True,
    )
    spark.stop()


def run_memory(path: Path) -> None:
    import pandas as pd

    from dpmo.trees import DPMOETClassifier

    t0 = time.perf_counter()
    frame = pd.read_parquet(path)
    y = frame.pop("label").to_numpy()
    t1 = time.perf_counter()
    DPMOETClassifier(epsilon=1.0, features=features(), random_state=0).fit(frame, y)
    t2 = time.perf_counter()
    print(
        f"memory rows={ROWS} read={t1 - t0:6.1f}s fit={t2 - t1:6.1f}s total={t2 - t0:6.1f}s "
        f"process_peak={_hwm() / 2**20:.0f}MB",
        flush=True,
    )


ROWS = 0


def main(argv=None) -> None:
    global ROWS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**6)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--folder", default="/tmp/dpmo-bench-trees")
    ap.add_argument("--side", choices=("both", "spark", "memory"), default="both")
    args = ap.parse_args(argv)
    ROWS = args.rows
    path = write_table(args.rows, args.files, Path(args.folder))
    if args.side != "both":
        (run_spark if args.side == "spark" else run_memory)(path)
        return
    print(f"load: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores", flush=True)
    for side in ("memory", "spark"):
        cmd = [sys.executable, __file__, "--rows", str(args.rows), "--files", str(args.files), "--side", side]
        subprocess.run(cmd + ["--folder", args.folder], check=True)


if __name__ == "__main__":
    main()
