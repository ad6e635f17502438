"""The defaults of the library and of the ``dpmo`` command line, in one place.

The public functions, the estimators and ``dpmo topk`` / ``dpmo trees`` take their defaults from here, so
the two never disagree. They are chosen for a user (what works best on real data, measured in
``docs/defaults.md``), not to reproduce the paper: ``dpmo reproduce`` passes the paper's settings
explicitly (:mod:`dpmo.experiments.config`). This module imports nothing, so every layer may use it.
"""

from __future__ import annotations

__all__: list[str] = []

#: Total privacy budget of one run.
EPSILON = 1.0
#: Base selection mechanism (:func:`dpmo.select`).
MECHANISM = "exponential"
#: Local dampening with the admissible local sensitivities (never worse than the global sensitivity).
SENSITIVITY = "local"
#: Exact sampling (rational scores, randomness from the OS's secure source: ``docs/core.md``, "Floating
#: point and exact sampling") is the default of every private entry point and command whose call at a
#: realistic size costs at most twice the floating-point sampler's; ``exact=False`` / ``--float-sampler``
#: opt in to floating point. Measured by ``benchmarks/bench_exact_default.py`` (table in ``docs/core.md``).
EXACT = True
#: The entry points where the exact sampler costs more than twice the float one, which keep the float
#: sampler by default (``exact=True`` opts in): :func:`dpmo.select` itself (the sampler is the whole call:
#: up to 4x at n = 37,700), the two-stage graph method (discrete Laplace noise on every degree: ~7x) and
#: the ID3 estimators (discrete Laplace noise on every count: DiffP-ID3 2.6-2.9x on Adult, LocalDiffPID3
#: 1.7-2.0x, at the threshold; one default for the pair, which share their counts and ``dpmo id3``).
EXACT_SELECT = False
EXACT_TWO_STAGE = False
EXACT_ID3 = False
#: :func:`dpmo.graphs.spark.top_k` samples on the executors with the float samplers by default: its exact
#: path collects every node's statistics to the driver (at most ``DRIVER_MAX_NODES``), which is what the
#: Spark path exists to avoid (``docs/spark.md``, "Exact sampling").
EXACT_SPARK = False

# -- graphs: DP-MOTkIN -----------------------------------------------------------------------------------
#: PrivAgg: on the real graphs the Pareto score of a low-degree node is so sensitive that
#: DP-MOTkIN-Pareto's picks are close to random (``docs/graphs.md``); the weighted sum is useful.
GRAPH_APPROACH = "agg"
#: Weights of (degree, ego density): the paper's.
GRAPH_WEIGHTS = (1.0, 100.0)
#: Number of nodes ``dpmo topk`` selects.
GRAPH_K = 5

# -- trees: DP-MOET ---------------------------------------------------------------------------------------
#: PrivAgg on ``w_tpr TPR + w_tnr TNR`` with the evolution below: one best private tree (what ``predict``
#: uses). Measured (``docs/defaults.md``): on NLTCS, Adult and breast cancer, at epsilon 0.1 and 1, its
#: tree has the best fitness of the four combinations of approach and settings, about 1 point of
#: 3 TPR + 2 TNR above DP-MOET-Pareto with the Pareto table's settings, at the same speed.
TREE_APPROACH = "agg"
#: ``(w_tpr, w_tnr)``: the paper's.
TREE_WEIGHTS = (3.0, 2.0)
#: Evolution of DP-MOET: the settings of the paper's aggregation experiment (population, selection,
#: generations, initial and maximum depth, output trees).
TREE_POPULATION_SIZE = 100
TREE_SELECTION_SIZE = 20
TREE_N_ITERATIONS = 2
TREE_INITIAL_DEPTH = 3
TREE_MAX_DEPTH = 5
TREE_N_OUTPUT = 1
#: Share of a DP-MOET fit's epsilon spent on the noisy class counts of the output tree's leaves, which
#: ``predict_proba`` ranks by (measured in ``docs/trees.md``, "Probabilities, scores and scikit-learn's
#: tooling"). The CLI and ``dpmo reproduce`` release trees only and pass 0.
TREE_LEAF_COUNT_SHARE = 0.05

# -- trees: DiffP-ID3 / LocalDiffPID3 --------------------------------------------------------------------
ID3_MAX_DEPTH = 5
ID3_CRITERION = "info_gain"
ID3_N_BINS = 5
ID3_MAX_RECORDS = 100_000
