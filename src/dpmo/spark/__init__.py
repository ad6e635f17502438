"""dpmo on Apache Spark: what every Spark path of the library shares.

* :mod:`dpmo.spark.session`: the session side of a library call on Spark: the Python interpreter the
  workers run (checked before any job, and in local mode pointed at this interpreter), the number of
  shuffle partitions chosen from the data and the cores when the user has not set it, and quiet calls
  (no progress bars, no third-party FutureWarnings).

Importing this package never imports pyspark; the applications (:mod:`dpmo.graphs.spark`) build on it.
"""
