"""Local PrivPareto on large synthetic collaboration graphs: time and memory of the first and second call.

Run: python benchmarks/bench_pareto_scale.py [--nodes 1e6 1e7] [--edges-per-node 3.3] [--k 10]

For each size, one fresh interpreter builds ``dpmo.graphs.random_collaboration_graph(n, 3.3 n, rng=0)``,
then times ``graphs.top_k(g, k, 1.0, approach="pareto", sensitivity="local")`` twice (the first call
includes the graph utilities, which are also timed alone in another fresh interpreter) and reports wall
and CPU seconds, the number of distances at which ``delta^PS`` was evaluated, and the peak resident
memory of the graph construction and, separately, of what follows it (Linux: ``VmHWM``, restarted after
the construction through ``/proc/self/clear_refs``). Nothing is asserted.
Run the 10^7 case on an idle machine: it needs about 4 GB and several minutes, most of them building the
graph.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
from dpmo import graphs
from dpmo.graphs.graph import Graph
from dpmo.pareto import state
n, per_node, k, what = int(float(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def hwm_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
g = graphs.random_collaboration_graph(n, int(round(per_node * n)), rng=0)
out = {"n": n, "edges": g.n_edges, "build_peak_mb": round(hwm_mb())}
with open("/proc/self/clear_refs", "w") as f:  # Linux: restart the peak (VmHWM) from the current size
    f.write("5")
if what == "utilities":
    w, c = time.perf_counter(), time.process_time()
    graphs.objectives(g)
    out.update(utilities_s=time.perf_counter() - w, utilities_cpu=time.process_time() - c)
else:
    calls = []
    real = state.ParetoState.delta
    def spy(self, t, idx):
        calls.append(t)
        return real(self, t, idx)
    state.ParetoState.delta = spy
    for label, seed in (("first", 0), ("second", 1)):
        calls.clear()
        w, c = time.perf_counter(), time.process_time()
        graphs.top_k(g, k, 1.0, approach="pareto", sensitivity="local", rng=seed)
        out[label + "_s"] = time.perf_counter() - w
        out[label + "_cpu"] = time.process_time() - c
        out[label + "_distances"] = len(calls)
out[what + "_peak_mb"] = round(hwm_mb())
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", nargs="+", default=["1e6"])
    parser.add_argument("--edges-per-node", type=float, default=3.3)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    for n in args.nodes:
        row = {}
        for what in ("utilities", "top_k"):
            cmd = [sys.executable, "-c", CHILD, n, str(args.edges_per_node), str(args.k), what]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row.update(json.loads(done.stdout.strip().splitlines()[-1]))
        print(
            f"n = {row['n']:,}, {row['edges']:,} edges: utilities {row['utilities_s']:.2f} s "
            f"({row['utilities_cpu']:.2f} CPU, peak {row['utilities_peak_mb']} MB); first top_k (with the "
            f"utilities) {row['first_s']:.2f} s ({row['first_cpu']:.2f} CPU, {row['first_distances']} "
            f"distances of delta^PS); second {row['second_s']:.2f} s ({row['second_cpu']:.2f} CPU); peak "
            f"of both calls {row['top_k_peak_mb']} MB; peak of the graph construction "
            f"{row['build_peak_mb']} MB"
        )


if __name__ == "__main__":
    main()
