"""Issue 32's local-mode targets of ``dpmo.graphs.spark``, printed as JSON lines (nothing is asserted).

Usage (from the repository root; needs ``pip install -e ".[spark]"`` and Java 17+)::

    python benchmarks/bench_spark_local.py                         # this checkout
    PYTHONPATH=/path/to/old/src python benchmarks/bench_spark_local.py   # the same figures, other code

The same script measures any version of dpmo that has ``dpmo.graphs.spark.top_k`` and ``node_statistics``
(it uses nothing else of the Spark path), so two runs give the figures side by side. It starts the docs'
session as written, ``SparkSession.builder.master("local[2]").getOrCreate()`` (Spark's defaults: no
shuffle partitions or worker Python set), and reports:

* ``karate``: ``top_k(edges, 5, 1.0, nodes=34)`` on the karate club (a DataFrame built in memory), after the
  session is up: the first call and the median of ``--repeats`` more (target: under 2 s), with the Spark
  jobs and stages of the last call (Spark's status tracker);
* ``edges_1e6``: ``top_k(path, 5, 1.0, nodes=2e5, approach="agg")`` on 10^6 edges of
  :func:`dpmo.graphs.random_collaboration_edges` (2 x 10^5 nodes) read from Parquet (target: under 15 s);
* ``stats``: ``node_statistics(path, n)`` on ``--stats-edges`` edges (default 10^7, 2 x 10^6 nodes), wall
  time and CPU microseconds per edge, the CPU time (user + system) of this process, the JVM and the Python
  workers together (target: at most 5 at 10^7);
* ``in_memory``: the same picks by :func:`dpmo.graphs.top_k` on a :class:`dpmo.graphs.Graph` built from the
  same edges, loading included (the crossover of ``docs/spark.md``).

Every line also gives the load average when it was measured. The edge lists are written once to
``--data`` (default ``/tmp/dpmo-bench-spark``) before Spark starts, and reused.
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
from bench_spark import MemoryPoller  # noqa: E402  (CPU seconds of this process, the JVM and the workers)


def _edges_parquet(folder: Path, nodes: int, edges: int) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpmo import graphs

    path = folder / f"edges-{edges}-{nodes}.parquet"
    if not path.exists():
        pairs = graphs.random_collaboration_edges(nodes, edges, rng=0)
        path.mkdir(parents=True)
        table = pa.table({"u": pairs[:, 0].astype("int64"), "v": pairs[:, 1].astype("int64")})
        pq.write_table(table, path / "part-0.parquet")
    return path


def _line(what: str, **figures) -> None:
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    print(json.dumps({"what": what, **figures}), flush=True)


def _in_memory(path: Path, nodes: int, k: int, approach: str) -> float:
    import numpy as np
    import pyarrow.parquet as pq

    from dpmo import graphs

    t0 = time.perf_counter()
    table = pq.read_table(path)
    pairs = np.column_stack([table.column("u").to_numpy(), table.column("v").to_numpy()])
    g = graphs.Graph.from_edges(pairs, nodes=nodes)
    graphs.top_k(g, k, 1.0, approach=approach, rng=0)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--data", type=Path, default=Path("/tmp/dpmo-bench-spark"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stats-edges", type=float, default=1e7)
    parts = ("karate", "edges_1e6", "stats", "in_memory")
    parser.add_argument("--skip", nargs="*", default=(), choices=parts)
    args = parser.parse_args(argv)
    import dpmo

    _line("version", dpmo=os.path.dirname(dpmo.__file__), python=sys.executable)
    args.data.mkdir(parents=True, exist_ok=True)
    n6, e6 = 200_000, 1_000_000
    e7 = int(args.stats_edges)
    n7 = e7 // 5
    p6 = _edges_parquet(args.data, n6, e6)
    p7 = _edges_parquet(args.data, n7, e7) if "stats" not in args.skip else None
    if "in_memory" not in args.skip:
        _line("in_memory_1e6", seconds=round(_in_memory(p6, n6, 5, "agg"), 2))
        if p7 is not None:
            _line(f"in_memory_{e7:.0e}", seconds=round(_in_memory(p7, n7, 5, "agg"), 2))

    import networkx as nx
    from pyspark.sql import SparkSession

    from dpmo.graphs import spark as dpmo_spark

    poller = MemoryPoller(interval=0.1)
    poller.start()
    t0 = time.perf_counter()
    spark = SparkSession.builder.master("local[2]").getOrCreate()  # the docs' session, as written
    _line("session_up", seconds=round(time.perf_counter() - t0, 2))
    try:
        if "karate" not in args.skip:
            karate = spark.createDataFrame(list(nx.karate_club_graph().edges()), "src long, dst long")
            times, cpus = [], []
            sc, group = spark.sparkContext, "bench-karate"
            for i in range(1 + args.repeats):
                time.sleep(0.3)
                if i == args.repeats:  # the last call: its jobs counted
                    sc.setJobGroup(group, "karate top-5")
                c, t = poller.cpu_now(), time.perf_counter()
                dpmo_spark.top_k(karate, 5, 1.0, nodes=34)
                times.append(time.perf_counter() - t)
                time.sleep(0.3)  # one more poll
                cpus.append(poller.cpu_now() - c)
            sc.setLocalProperty("spark.jobGroup.id", None)
            tracker = sc.statusTracker()
            jobs = tracker.getJobIdsForGroup(group)
            stages = sum(len(tracker.getJobInfo(j).stageIds) for j in jobs if tracker.getJobInfo(j))
            _line(
                "karate_top5",
                first_s=round(times[0], 2),
                median_s=round(statistics.median(times[1:]), 2),
                all_s=[round(x, 2) for x in times],
                cpu_s=[round(x, 1) for x in cpus],
                last_call_jobs=len(jobs),
                last_call_stages=stages,
            )
        if "edges_1e6" not in args.skip:
            times, cpus = [], []
            for _ in range(max(1, args.repeats - 1)):
                time.sleep(0.3)
                c, t = poller.cpu_now(), time.perf_counter()
                dpmo_spark.top_k(str(p6), 5, 1.0, nodes=n6, approach="agg")
                times.append(time.perf_counter() - t)
                time.sleep(0.3)  # one more poll
                cpus.append(poller.cpu_now() - c)
            _line(
                "edges_1e6_top5_agg",
                median_s=round(statistics.median(times), 2),
                all_s=[round(x, 2) for x in times],
                cpu_s=[round(x, 1) for x in cpus],
            )
        if p7 is not None:
            time.sleep(0.3)
            c, t = poller.cpu_now(), time.perf_counter()
            stats = dpmo_spark.node_statistics(str(p7), n7)
            rows = stats.count()
            wall = time.perf_counter() - t
            time.sleep(0.3)
            cpu = poller.cpu_now() - c
            _line(
                "node_statistics",
                edges=e7,
                nodes=rows,
                wall_s=round(wall, 1),
                cpu_s=round(cpu, 1),
                cpu_us_per_edge=round(cpu / e7 * 1e6, 2),
            )
    finally:
        spark.stop()
        poller.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
