"""DP-MOTkIN (``dpmo.graphs.top_k``) end to end on GitHub, Enron and a DBLP-size synthetic graph.

* ``test_top_k_end_to_end``: load the edge list on the public node set, ego densities, sensitivities and
  the selection, epsilon = 1 (k = 3 for Pareto, 5 for Agg, 10 on the DBLP-size graph); every round on a
  fresh graph, so nothing cached on the graph helps; ``peak_mb`` of one such pass.
* ``test_top_k_again``: a later call on the same graph (its cached utilities and round scores).
* ``test_import_dpmo``: ``import dpmo.graphs`` in a fresh interpreter.
* ``huge``: local PrivPareto's first ``top_k`` call on synthetic collaboration graphs of 10^6 and 10^7
  nodes (issue 21: <= 60 s and <= 3 GB at 10^7, ratio 10^7 / 10^6 <= 14), in a child process whose peak
  resident memory is recorded (``peak_rss_mb``); ``-m huge`` to run them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dpmo import graphs
from support import SMOKE, data_file, describe, record_peak, size

METHODS = [("pareto", "local"), ("pareto", "global"), ("agg", "local"), ("agg", "global")]
SOURCES = {"github": ("musae_git_edges.csv", 37_700), "enron": ("Email-Enron.txt", 36_692)}


@pytest.fixture(scope="module")
def dblp_edges():
    g = graphs.random_collaboration_graph(rng=0) if not SMOKE else graphs.random_collaboration_graph(
        n_nodes=500, n_edges=1500, rng=0
    )  # fmt: skip
    return g.ids[g.edges()], g.n_nodes  # an (E, 2) edge array, as a user would pass


def _source(graph: str, dblp_edges):
    if graph == "dblp-synthetic":
        return dblp_edges
    file, n = SOURCES[graph]
    return data_file(file), n


def _k(graph: str, approach: str) -> int:
    if graph == "dblp-synthetic":
        return 10 if approach == "pareto" else 5
    return 3 if approach == "pareto" else 5


CASES = [(g, a, s) for g in ("github", "enron", "dblp-synthetic") for a, s in METHODS]
IDS = [f"{g}-{a}-{s}" for g, a, s in CASES]


@pytest.mark.parametrize("graph, approach, sensitivity", CASES, ids=IDS)
def test_top_k_end_to_end(benchmark, dblp_edges, graph, approach, sensitivity):
    source, n = _source(graph, dblp_edges)
    k = _k(graph, approach)

    def once():
        g = graphs.load_graph(source, nodes=n)
        g.ego_density()
        return graphs.top_k(g, k, 1.0, approach=approach, sensitivity=sensitivity, rng=0)

    describe(
        benchmark,
        f"DP-MOTkIN `top_k`, {graph}, {approach} {sensitivity}, k = {k}: load + utilities + sensitivities "
        "+ selection",
        readme=graph == "github" or (graph, approach, sensitivity) == ("dblp-synthetic", "pareto", "local"),
    )
    benchmark.pedantic(once, rounds=size(5, 1), warmup_rounds=size(1, 0))
    record_peak(benchmark, once)


@pytest.mark.parametrize("graph, approach, sensitivity", CASES, ids=IDS)
def test_top_k_again(benchmark, dblp_edges, graph, approach, sensitivity):
    source, n = _source(graph, dblp_edges)
    k = _k(graph, approach)
    g = graphs.load_graph(source, nodes=n)
    graphs.top_k(g, k, 1.0, approach=approach, sensitivity=sensitivity, rng=0)
    describe(benchmark, f"DP-MOTkIN `top_k`, {graph}, {approach} {sensitivity}, k = {k}: a later call",
             readme=(graph, approach, sensitivity) == ("dblp-synthetic", "pareto", "local"))  # fmt: skip
    benchmark(graphs.top_k, g, k, 1.0, approach=approach, sensitivity=sensitivity, rng=1)


@pytest.mark.slow
def test_import_dpmo(benchmark):
    describe(benchmark, "`import dpmo.graphs` in a fresh interpreter")
    cmd = [sys.executable, "-c", "import dpmo.graphs"]
    benchmark.pedantic(lambda: subprocess.run(cmd, check=True), rounds=size(5, 1))


CHILD = """
import json, resource, sys, time
import numpy as np
from dpmo import graphs


def hwm_mb():  # peak resident memory since the last restart (Linux), else of the whole process
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def restart_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:  # Linux: VmHWM starts again from the current size
            f.write("5")
    except OSError:
        pass


edges = np.load(sys.argv[1])
n = int(sys.argv[2])
t0 = time.perf_counter()
g = graphs.load_graph(edges, nodes=n)
t1 = time.perf_counter()
out = {"load_s": t1 - t0, "load_peak_mb": hwm_mb()}
del edges
restart_peak()
c1 = time.process_time()
graphs.top_k(g, 10, 1.0, approach="pareto", sensitivity="local", rng=0)
t2 = time.perf_counter()
out.update(first_call_s=t2 - t1, first_call_cpu_s=time.process_time() - c1, first_call_peak_mb=hwm_mb())
graphs.top_k(g, 10, 1.0, approach="pareto", sensitivity="local", rng=1)
out["second_call_s"] = time.perf_counter() - t2
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


@pytest.mark.huge
@pytest.mark.parametrize("n", [10**6, 3 * 10**6, 10**7], ids=["1e6", "3e6", "1e7"])
def test_local_pareto_synthetic_scale(benchmark, tmp_path, n):
    """Issue 21: local PrivPareto (k = 10) on ``random_collaboration_graph(n, 3.3 n edges)``; the time is
    that of the child process (loading the edges, the graph, the first and a second call). The child's
    own figures: ``first_call_s`` (with the graph utilities) and its CPU seconds, ``second_call_s``,
    ``load_peak_mb`` (the peak while loading the graph), ``first_call_peak_mb`` (the peak during the first
    call, counted from the memory in use after loading; Linux) and ``peak_rss_mb`` (the whole child)."""
    g = graphs.random_collaboration_graph(n_nodes=n, n_edges=int(3.3 * n), rng=0)
    path = tmp_path / "edges.npy"
    np.save(path, g.ids[g.edges()])
    del g
    out = {}

    def child():
        res = subprocess.run([sys.executable, "-c", CHILD, str(path), str(n)], check=True,
                             capture_output=True, text=True, env=dict(os.environ))  # fmt: skip
        out.update(json.loads(res.stdout.strip().splitlines()[-1]))

    describe(benchmark, f"local PrivPareto first `top_k` call, synthetic graph, {n:,} nodes, k = 10",
             "child process: load + first call")  # fmt: skip
    benchmark.pedantic(child, rounds=1)
    benchmark.extra_info.update({k: round(v, 2) for k, v in out.items()})
