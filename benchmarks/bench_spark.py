"""Measurements of DP-MOTkIN on Spark (``dpmo.graphs.spark``) on the synthetic collaboration graphs.

Usage (from the repository root; needs ``pip install -e ".[spark]"`` and Java 17+)::

    python benchmarks/bench_spark.py generate --edges 1e7 --nodes 3e6 --out /tmp/g7
    python benchmarks/bench_spark.py run --parquet /tmp/g7 --nodes 3e6 --driver-memory 8g
    python benchmarks/bench_spark.py enron            # the real graph, as a warm reference

``generate`` builds ``dpmo.graphs.random_collaboration_graph(nodes, edges, rng=0)`` in memory and writes its
edge list as Parquet (one row per edge, ``u < v``), reporting the time and the peak memory of that process.
``run`` starts Spark in local mode (``local[2]``) in this process and times ``node_statistics`` (computed
and checkpointed) and then ``top_k(..., k=10, epsilon=1, approach="agg")`` on the statistics' edges,
polling the memory (RSS) of the driver's Python process, of the JVM (driver and executor in local mode)
and of the Python workers every 0.2 s, and reading the shuffle volumes of every stage from Spark's REST
API. Every figure is printed as JSON; nothing is asserted (timings do not belong in unit tests).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DPMO_DATA_DIR", REPO.parent / "shared" / "data"))


# ------------------------------------------------------------------------------------------- generate
def generate(edges: int, nodes: int, out: Path, chunk: int = 5_000_000) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpmo import graphs

    t0 = time.perf_counter()
    pairs = graphs.random_collaboration_edges(nodes, edges, rng=0)  # the edges of random_collaboration_graph
    t_gen = time.perf_counter() - t0
    out.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("u", pa.int64()), ("v", pa.int64())])
    t1 = time.perf_counter()
    with pq.ParquetWriter(out / "part-0.parquet", schema) as writer:
        for start in range(0, pairs.shape[0], chunk):
            part = pairs[start : start + chunk]
            writer.write_table(pa.table({"u": part[:, 0], "v": part[:, 1]}, schema=schema))
    t_write = time.perf_counter() - t1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    return {
        "edges": int(pairs.shape[0]),
        "nodes": nodes,
        "generate_s": round(t_gen, 1),
        "write_parquet_s": round(t_write, 1),
        "peak_rss_gib": round(peak, 2),
        "parquet_bytes": sum(p.stat().st_size for p in out.glob("*.parquet")),
    }


# ------------------------------------------------------------------------------------------- run
def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (``/proc/<pid>/stat``), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime (fields 14 and 15)
    except (OSError, IndexError, ValueError):
        return 0.0


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class MemoryPoller(threading.Thread):
    """Peak RSS (GiB) of this process, the JVM and the Python workers (summed over live workers), and the
    CPU seconds each used (the last value seen of every process: workers that exit take theirs along)."""

    def __init__(self, interval: float = 0.2):
        super().__init__(daemon=True)
        self.interval = interval
        self.peak = {"python_driver": 0.0, "jvm": 0.0, "python_workers": 0.0, "total": 0.0}
        self.cpu: dict[int, tuple[str, float]] = {}
        self.own = 0.0  # CPU seconds of this polling thread (the instrument, not the work measured)
        self._stop_event = threading.Event()

    def run(self):
        me = os.getpid()
        while not self._stop_event.is_set():
            jvm = workers = 0
            stack = _children(me)
            seen = set()
            while stack:
                pid = stack.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                cmd = _cmdline(pid)
                if "java" in cmd.split(" ")[0]:
                    jvm += _rss_kib(pid)
                    self.cpu[pid] = ("jvm", _cpu_seconds(pid))
                elif "pyspark" in cmd or "python" in cmd:
                    workers += _rss_kib(pid)
                    self.cpu[pid] = ("python_workers", _cpu_seconds(pid))
                stack += _children(pid)
            own = _rss_kib(me)
            self.cpu[me] = ("python_driver", _cpu_seconds(me))
            for key, kib in (
                ("python_driver", own),
                ("jvm", jvm),
                ("python_workers", workers),
                ("total", own + jvm + workers),
            ):
                self.peak[key] = max(self.peak[key], kib / 2**20)
            self.own = time.thread_time()
            time.sleep(self.interval)

    def cpu_now(self) -> float:
        """CPU seconds used so far by all the processes seen (this one, the JVM, the workers), without
        this polling thread's own."""
        return sum(c for _, c in self.cpu.values()) - self.own

    def stop(self) -> dict:
        self._stop_event.set()
        self.join()
        out = {f"peak_rss_gib_{k}": round(v, 2) for k, v in self.peak.items()}
        for kind in ("python_driver", "jvm", "python_workers"):
            out[f"cpu_s_{kind}"] = round(sum(c for key, c in self.cpu.values() if key == kind), 1)
        return out


def _rest(spark, what: str):
    url = spark.sparkContext.uiWebUrl
    app = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{url}/api/v1/applications/{app}/{what}") as resp:
        return json.load(resp)


def _shuffle_totals(spark) -> dict:
    """Sum of shuffle write/read bytes and records over all completed stages (Spark's REST API), and the
    largest shuffle writes (records, bytes, stage)."""
    try:
        stages = _rest(spark, "stages?status=complete")
    except OSError as exc:  # pragma: no cover - UI off
        return {"error": str(exc)}
    keys = ("shuffleWriteBytes", "shuffleWriteRecords", "shuffleReadBytes", "diskBytesSpilled")
    total = {key: sum(s.get(key, 0) for s in stages) for key in keys}
    largest = sorted(
        ((s.get("shuffleWriteRecords", 0), s.get("shuffleWriteBytes", 0), s["stageId"]) for s in stages),
        reverse=True,
    )
    total["largest_shuffle_writes"] = largest[:8]
    return total


def _job_times(spark) -> list:
    """(job id, seconds, description) of every job, oldest first."""
    from datetime import datetime

    def stamp(text):
        return datetime.strptime(text.replace("GMT", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()

    out = []
    for job in reversed(_rest(spark, "jobs")):
        if job.get("completionTime"):
            seconds = round(stamp(job["completionTime"]) - stamp(job["submissionTime"]), 1)
            out.append((job["jobId"], seconds, job["name"][:50]))
    return out


def _session(driver_memory: str, partitions: int, local_dir: str | None):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("dpmo-bench-spark")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.maxResultSize", "2g")
    )
    if local_dir:
        builder = builder.config("spark.local.dir", local_dir)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(
    parquet: str, nodes: int, driver_memory: str, partitions: int, k: int, local_dir: str | None, what: str
) -> dict:
    poller = MemoryPoller()
    poller.start()
    t0 = time.perf_counter()
    spark = _session(driver_memory, partitions, local_dir)
    t_start = time.perf_counter() - t0

    from pyspark.sql import functions as F

    import dpmo
    from dpmo.graphs import spark as dpmo_spark

    edges = spark.read.parquet(parquet)
    result = {"parquet": parquet, "nodes": nodes, "session_start_s": round(t_start, 1)}
    if what in ("stats", "both"):
        t1, c1 = time.perf_counter(), poller.cpu_now()
        stats = dpmo_spark.node_statistics(edges, nodes)
        result["node_statistics_s"] = round(time.perf_counter() - t1, 1)
        time.sleep(2 * poller.interval)
        result["node_statistics_cpu_s"] = round(poller.cpu_now() - c1, 1)
        sums = stats.agg(F.sum("degree").alias("d"), F.sum("triangles").alias("t")).first()
        result["edges"], result["triangles"] = int(sums["d"] // 2), int(sums["t"] // 3)
        result["shuffles_of_node_statistics"] = _shuffle_totals(spark)
    if what in ("topk", "both"):
        t2, c2 = time.perf_counter(), poller.cpu_now()
        budget = dpmo.Budget(1.0)
        picks = dpmo_spark.top_k(edges, k, 1.0, nodes=nodes, approach="agg", budget=budget)
        result["top_k_agg_local_s"] = round(time.perf_counter() - t2, 1)
        time.sleep(2 * poller.interval)
        result["top_k_cpu_s"] = round(poller.cpu_now() - c2, 1)
        result["picks"], result["spent"] = len(picks), budget.spent
    result["shuffles_total"] = _shuffle_totals(spark)
    result["jobs"] = _job_times(spark)
    result["memory_and_cpu"] = poller.stop()
    result.update(driver_memory=driver_memory, shuffle_partitions=partitions, load=os.getloadavg())
    return result


def enron(driver_memory: str, partitions: int) -> dict:
    _session(driver_memory, partitions, None)
    from dpmo.graphs import spark as dpmo_spark

    edges = dpmo_spark.read_edges(DATA / "Email-Enron.txt").localCheckpoint(eager=True)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        dpmo_spark.node_statistics(edges, 36_692)
        times.append(round(time.perf_counter() - t, 2))
    topk = []
    for _ in range(3):
        t = time.perf_counter()
        dpmo_spark.top_k(edges, 10, 1.0, nodes=36_692)
        topk.append(round(time.perf_counter() - t, 2))
    return {"node_statistics_s": times, "top_k_s": topk, "load": os.getloadavg()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--edges", type=float, required=True)
    g.add_argument("--nodes", type=float, required=True)
    g.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--parquet", required=True)
    r.add_argument("--nodes", type=float, required=True)
    r.add_argument("--driver-memory", default="8g")
    r.add_argument("--partitions", type=int, default=64)
    r.add_argument("--k", type=int, default=10)
    r.add_argument("--local-dir", default=None)
    r.add_argument("--what", choices=("stats", "topk", "both"), default="both")
    e = sub.add_parser("enron")
    e.add_argument("--driver-memory", default="2g")
    e.add_argument("--partitions", type=int, default=4)
    args = parser.parse_args(argv)
    if args.cmd == "generate":
        result = generate(int(args.edges), int(args.nodes), args.out)
    elif args.cmd == "run":
        result = run(
            args.parquet,
            int(args.nodes),
            args.driver_memory,
            args.partitions,
            args.k,
            args.local_dir,
            args.what,
        )
    else:
        result = enron(args.driver_memory, args.partitions)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
