"""Measurements of the general problem on Spark (``dpmo.spark.select``) against the in-memory path.

Usage (from the repository root; needs ``pip install -e ".[spark]"`` and Java 17+)::

    python benchmarks/bench_spark_select.py generate --rows 1e6 --out /tmp/t6.parquet
    python benchmarks/bench_spark_select.py run --parquet /tmp/t6.parquet --repeat 3

``generate`` writes a candidate table (an id column ``id`` and two objective columns ``a``, ``b`` of random
doubles, seed 0) as one Parquet file. ``run`` times, on that file, with ``k = 10``, ``epsilon = 1``,
PrivAgg (weights 1, 1, sensitivities 1 and 2, ``b`` minimised) and the float sampler:

* ``memory_library``: reading the two objective columns with pyarrow and
  :func:`dpmo.select_multiobjective` in this process (the library in memory);
* ``memory_cli``: what ``dpmo select`` does (:func:`dpmo.cli.select_command.read_candidates`, which
  reads every cell as Python text or number, then the same selection);
* ``spark_agg`` and ``spark_chebyshev``: :func:`dpmo.spark.select` in a local Spark session (``local[2]``,
  shuffle partitions as given), with the id column;

and with ``--gated``, ``chebyshev`` at ``epsilon = 1e6`` with ``k = 3``, where its Pareto gate is on:
``spark_chebyshev_gated_driver`` (the table's columns to the driver, the in-memory pipeline: the path up to
``DRIVER_MAX_ROWS`` rows) and ``spark_chebyshev_gated_executors`` (``DRIVER_MAX_ROWS`` lowered below the
table's rows: the gated rounds on the executors, one pass each, :mod:`dpmo.spark.gated`);

each ``--repeat`` times after one warm-up call, reporting the wall time and the CPU seconds (user + system)
of every process involved (this one, the JVM, the Python workers; polled from ``/proc``, as
``bench_spark.py`` does), their medians, and the load average. Nothing is asserted (timings do not belong in
unit tests); the figures go to ``docs/spark.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_spark import MemoryPoller  # noqa: E402

K, EPSILON, WEIGHTS = 10, 1.0, (1.0, 1.0)
OBJECTIVES = [("a", 1.0, "max"), ("b", 2.0, "min")]


def generate(rows: int, out: Path) -> dict:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    table = pa.table(
        {
            "id": np.arange(rows, dtype=np.int64),
            "a": rng.normal(size=rows) * 10.0,
            "b": rng.uniform(0.0, 100.0, size=rows),
        }
    )
    pq.write_table(table, out)
    return {"rows": rows, "parquet_bytes": out.stat().st_size}


def _objectives(columns):
    import dpmo

    return [dpmo.Objective(-columns[c] if d == "min" else columns[c], s, name=c) for c, s, d in OBJECTIVES]


def _memory_library(path: str) -> list:
    import pyarrow.parquet as pq

    import dpmo

    table = pq.read_table(path, columns=["id", "a", "b"])
    cols = {c: table.column(c).to_numpy() for c in ("a", "b")}
    picks = dpmo.select_multiobjective(
        _objectives(cols), EPSILON, approach="agg", weights=WEIGHTS, k=K, exact=False
    )
    ids = table.column("id").to_numpy()
    return ids[picks].tolist()


def _memory_cli(path: str) -> list:
    import dpmo
    from dpmo.cli.select_command import read_candidates

    ids, values = read_candidates(path, OBJECTIVES, "id")
    picks = dpmo.select_multiobjective(
        _objectives(values), EPSILON, approach="agg", weights=WEIGHTS, k=K, exact=False
    )
    return [ids[int(i)] for i in picks]


def _timed(poller: MemoryPoller, fn, repeat: int) -> dict:
    fn()  # warm-up: imports, numba compilation, the JVM's first queries
    walls, cpus = [], []
    for _ in range(repeat):
        time.sleep(2 * poller.interval)
        c0, t0 = poller.cpu_now(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        time.sleep(2 * poller.interval)
        cpus.append(poller.cpu_now() - c0)
    return {
        "wall_s": [round(x, 2) for x in walls],
        "cpu_s": [round(x, 2) for x in cpus],
        "median_wall_s": round(statistics.median(walls), 2),
        "median_cpu_s": round(statistics.median(cpus), 2),
        "load": [round(x, 1) for x in os.getloadavg()],
    }


def run(
    parquet: str, repeat: int, partitions: int, driver_memory: str, what: list[str], gated: bool = False
) -> dict:
    import pyarrow.parquet as pq

    poller = MemoryPoller()
    poller.start()
    rows = pq.read_metadata(parquet).num_rows
    result: dict = {"parquet": parquet, "rows": rows, "k": K}
    if "memory" in what:
        result["memory_library"] = _timed(poller, lambda: _memory_library(parquet), repeat)
        result["memory_cli"] = _timed(poller, lambda: _memory_cli(parquet), max(1, repeat // 3))
    if "spark" in what:
        from pyspark.sql import SparkSession

        t0 = time.perf_counter()
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("dpmo-bench-spark-select")
            .config("spark.driver.memory", driver_memory)
            .config("spark.sql.shuffle.partitions", str(partitions))
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        result["session_start_s"] = round(time.perf_counter() - t0, 1)
        from dpmo import spark as dpmo_spark

        df = spark.read.parquet(parquet)
        objectives = {c: (s, d) for c, s, d in OBJECTIVES}
        for approach in ("agg", "chebyshev"):
            weights = WEIGHTS if approach == "agg" else None

            def call(approach=approach, weights=weights):
                return dpmo_spark.select(
                    df, K, EPSILON, objectives=objectives, id_column="id", approach=approach, weights=weights
                )

            result[f"spark_{approach}"] = _timed(poller, call, repeat)
        if gated:
            from dpmo.spark import tables as spark_tables

            limit = spark_tables.DRIVER_MAX_ROWS

            def gated_call():
                return dpmo_spark.select(
                    df, 3, 1e6, objectives=objectives, id_column="id", approach="chebyshev"
                )

            result["spark_chebyshev_gated_driver"] = _timed(poller, gated_call, repeat)
            spark_tables.DRIVER_MAX_ROWS = rows - 1
            try:
                result["spark_chebyshev_gated_executors"] = _timed(poller, gated_call, repeat)
            finally:
                spark_tables.DRIVER_MAX_ROWS = limit
        result["shuffle_partitions"] = partitions
    result["memory_and_cpu"] = poller.stop()
    keys = ("memory_library", "memory_cli", "spark_agg", "spark_chebyshev", "spark_chebyshev_gated_driver",
            "spark_chebyshev_gated_executors")  # fmt: skip
    for key in keys:
        if key in result:
            result[key]["cpu_us_per_row"] = round(result[key]["median_cpu_s"] / rows * 1e6, 3)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--rows", type=float, required=True)
    g.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--parquet", required=True)
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--partitions", type=int, default=4)
    r.add_argument("--driver-memory", default="4g")
    r.add_argument("--what", nargs="+", choices=("memory", "spark"), default=["memory", "spark"])
    r.add_argument("--gated", action="store_true", help="also chebyshev with its Pareto gate (epsilon 1e6)")
    args = parser.parse_args(argv)
    if args.cmd == "generate":
        result = generate(int(args.rows), args.out)
    else:
        result = run(args.parquet, args.repeat, args.partitions, args.driver_memory, args.what, args.gated)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
