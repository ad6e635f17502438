"""DP-MOTkIN on Apache Spark: graphs beyond one machine, with the guarantees and answers of dpmo.graphs.

Install with ``pip install ".[spark]"`` (pyspark; Spark needs Java 17 or later). Importing ``dpmo`` or
``dpmo.graphs`` never imports pyspark; ``from dpmo.graphs import spark`` does.

* :func:`node_statistics` ``(edges, nodes)``: degree, triangle count and ego density of every node of the
  public node set, computed on the executors (triangles by the degree-ordered wedge method, O(m sqrt(m))
  work), equal to :func:`dpmo.graphs.degree`, :func:`dpmo.graphs.triangles` and
  :func:`dpmo.graphs.ego_density` (the same floats).
* :func:`top_k` ``(edges, k, epsilon, *, nodes, ...)``: the private selection of :func:`dpmo.graphs.top_k`,
  same meaning, same guarantee (epsilon-edge-DP; neighbours: graphs on the same public node set that
  differ in one edge), same output distribution.
* :func:`read_edges`: a text edge list read by Spark.

What runs where (``docs/spark.md``, "What runs where"):

* executors: the edges, the statistics, the scores of PrivAgg and PrivChebyshev with their admissible
  sensitivities and local dampening (the library's own functions, :mod:`dpmo.graphs.spark.scores`), and
  the noise of the picks;
* network to the driver: the first edge outside the node set (a refusal), the ``k`` largest scores of
  each partition (to place the log-weights) and each partition's ``k`` best noisy values per round;
* driver: the :class:`dpmo.Budget` (every epsilon recorded there, right before its noise is drawn), the
  merge of the partitions' candidates into the picks, and the paths that need all statistics at once:
  PrivPareto (``approach="pareto"``) and ``exact=True``, for at most :data:`DRIVER_MAX_NODES` nodes;
* small graphs (:mod:`dpmo.graphs.spark.small`: at most 2^16 edges possible on the public node set, or
  estimated by Spark's plan statistics): the distinct edges to the driver in one job, then all of
  :func:`top_k` there, with the in-memory pipeline (the same law and budget records).

The ``k`` picks (:mod:`dpmo.spark.sampling`, shared with :func:`dpmo.spark.select`) take one of three
plans, chosen from public settings and, like :func:`dpmo.select`, from whether one pass is numerically
safe:

* ``"one_shot"``: PrivAgg with the exponential (or Gumbel) mechanism: one Gumbel noise per node and the
  ``k`` largest noisy log-weights (Durfee and Rogers 2019), as the in-memory sampler does;
* ``"rounds"``: every other mechanism (permute-and-flip, Laplace) and PrivChebyshev: one independent
  noise per node and round in the same pass; round ``j`` takes the best of its values among the nodes not
  picked before (the driver gets the ``j + 1`` best of every partition);
* ``"sequential"``: when some candidate's log-weight is below ``-2^32`` relative to the best, one pass per
  round relative to the best remaining score (as :func:`dpmo.select` does in that case).
"""

try:
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f"dpmo.graphs.spark needs pyspark with pandas and pyarrow ({exc.name or exc} is missing): "
        'pip install ".[spark]" from the dpmo clone (and Java 17 or later for Spark)'
    ) from None

from .inputs import read_edges
from .statistics import STATISTICS_COLUMNS, node_statistics
from .topk import DRIVER_MAX_NODES, top_k

__all__ = ["DRIVER_MAX_NODES", "STATISTICS_COLUMNS", "node_statistics", "read_edges", "top_k"]
