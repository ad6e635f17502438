"""dpmo on Apache Spark, the general layer: private selection from a candidate table of any size.

Install with ``pip install ".[spark]"`` (pyspark; Spark needs Java 17 or later). Importing ``dpmo`` never
imports pyspark; ``from dpmo import spark`` does.

* :func:`select` ``(df, k, epsilon, *, objectives={column: sensitivity or (sensitivity, "min")},
  id_column=..., approach="agg" | "chebyshev" | "pareto", weights=..., budget=..., rng=...)``: the
  paper's general problem (``dpmo select``) on a Spark DataFrame, with the same law on the same rows;
  the scores and the noise on the executors (PrivPareto and exact sampling on the driver, below
  :data:`dpmo.spark.tables.DRIVER_MAX_ROWS` rows). ``docs/spark.md``, "Candidate tables".

* :func:`fit` ``(estimator, df, label, *, budget=...)``: a :mod:`dpmo.trees` estimator (DP-MOET,
  DiffP-ID3, LocalDiffPID3) fitted on a Spark DataFrame; only counts leave the executors, and the released
  model and ledger are the in-memory fit's on the same rows for the same ``random_state``
  (``docs/spark.md``, "Trees on Spark"). Modules :mod:`.trees` (driver) and :mod:`.tree_batches`
  (executors).

Layout: :mod:`.tables` (:func:`select`), :mod:`.checks` (the table's checks), :mod:`.scores` (the
per-candidate scores of PrivAgg and PrivChebyshev), :mod:`.sampling` (the Spark passes, the plans of the
``k`` picks and their budget records), :mod:`.gated` (PrivChebyshev's Pareto gate above the driver's limit,
one pass per round), :mod:`.noise` (report-noisy-max kernels), :mod:`.session` (what
every call on Spark does first: the workers' Python checked before any job, shuffle partitions chosen
from the data and the cores when the user has not set them, quiet output; with :mod:`.workers`) and
:mod:`.blocks` (shuffles of numpy arrays in blocks). :mod:`dpmo.graphs.spark`
builds DP-MOTkIN on the same scores and passes; this package never imports :mod:`dpmo.graphs`.
"""

try:
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f"dpmo.spark needs pyspark with pandas and pyarrow ({exc.name or exc} is missing): "
        'pip install ".[spark]" from the dpmo clone (and Java 17 or later for Spark)'
    ) from None

from .tables import select
from .trees import fit

__all__ = ["fit", "select"]
