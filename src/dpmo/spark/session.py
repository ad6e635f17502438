"""The session side of a dpmo call on Spark: the workers' Python, the shuffle partitions, quiet output.

Every public function of dpmo that runs Spark jobs runs them inside :func:`library_call`, which does three
things for the duration of the call and undoes them afterwards:

1. **The Python the workers run** (:func:`worker_python`, :func:`check_worker_python`, implemented in
   :mod:`dpmo.spark.workers`): ``PYSPARK_PYTHON`` as pyspark read it, else in local mode this
   interpreter (a virtual environment that is not activated works as it is), else ``python3`` on the
   executors; checked before any Spark job (in local mode by a subprocess, on a cluster by one probe task
   per application), refused with :class:`SparkEnvironmentError` and one line that says what to set
   (``PYSPARK_PYTHON``, or ``spark.archives`` with a packed environment). :func:`worker_udfs` makes the
   Python functions of the DataFrames dpmo creates run it.
2. **Shuffle partitions** (:func:`shuffle_partitions`): the user's ``spark.sql.shuffle.partitions`` when
   they set it (on the builder or with ``spark.conf.set``); otherwise, for a call that shuffles about
   ``rows`` rows on ``cores = defaultParallelism`` cores,
   ``max(1, ceil(rows / ROWS_PER_PARTITION), min(cores, ceil(rows / MIN_ROWS_PER_PARTITION)))``: one
   partition per ``ROWS_PER_PARTITION`` (2^20) rows, spread over the cores while every partition keeps at
   least ``MIN_ROWS_PER_PARTITION`` (2^14) rows (a task costs milliseconds, a row microseconds). Spark's
   default, 200, makes a graph of 78 edges run thousands of tasks. Adaptive query execution is turned off
   for the call unless the user set it (:data:`CALL_SETTINGS`): the partitions are chosen already, and
   each adaptive stage would be a job of its own. :func:`sql_conf` sets SQL options for a call, only those
   the user has not set, and unsets them afterwards.
3. **Quiet** (:func:`quiet`): no console progress bar while the call runs (the bar that pyspark sessions
   show by default is held back) and no FutureWarning from pyspark about pandas 3.

These are settings of the session, never read from the data: the partition count is chosen from a size
the caller passes; the layout of the work changes neither the outputs nor their distribution. Concurrent
dpmo calls on one session share the settings (a count keeps them until the last call ends); another
thread's own queries during a call see them too.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from .workers import (
    PACKING,
    SparkEnvironmentError,
    check_worker_python,
    is_local,
    missing_module,
    running,
    spark_context,
    worker_python,
)

__all__ = [
    "CALL_SETTINGS",
    "MIN_ROWS_PER_PARTITION",
    "ROWS_PER_PARTITION",
    "SparkEnvironmentError",
    "check_running",
    "check_worker_python",
    "estimated_rows",
    "is_local",
    "library_call",
    "partitions_for",
    "quiet",
    "shuffle_partitions",
    "sql_conf",
    "user_conf",
    "worker_python",
    "worker_udfs",
]

#: Rows per shuffle partition aimed at when the user has not set ``spark.sql.shuffle.partitions``.
ROWS_PER_PARTITION = 1 << 20
#: Fewest rows worth a partition of their own (below it, fewer partitions than cores).
MIN_ROWS_PER_PARTITION = 1 << 14
#: SQL options of every :func:`library_call` (each only where the user has not set it).
CALL_SETTINGS = {
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.execution.arrow.maxRecordsPerBatch": 1 << 16,
}

_lock = threading.RLock()
_QUIET_MESSAGES = (
    r"PySpark does not yet fully support pandas",  # pyspark 4.x with pandas 3
    r"The copy keyword is deprecated",  # pandas 3, inside pyspark's toPandas
)


def check_running(spark, name: str) -> None:
    """Refuse (``ValueError`` naming ``name``, the argument that holds a DataFrame of ``spark``) a
    SparkSession that has been stopped: its DataFrames can no longer run a job. No Spark job.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import check_running
    >>> check_running(SparkSession.builder.master("local[2]").getOrCreate(), "df")  # running: nothing to say
    """
    sc = getattr(spark, "_sc", None)
    if sc is not None and getattr(sc, "_jsc", None) is None:
        raise ValueError(
            f"{name}: its SparkSession is stopped (spark.stop() was called); build the DataFrame again in a "
            "running session"
        )


# ------------------------------------------------------------------------------------------ partitions
def partitions_for(rows: int, cores: int) -> int:
    """The rule of :func:`shuffle_partitions`: ``max(1, ceil(rows / ROWS_PER_PARTITION),
    min(cores, ceil(rows / MIN_ROWS_PER_PARTITION)))``.

    Examples
    --------
    >>> from dpmo.spark.session import partitions_for
    >>> partitions_for(156, 2), partitions_for(2_000_000, 2), partitions_for(20_000_000, 2)
    (1, 2, 20)
    >>> partitions_for(2 * 10**9, 400)   # a cluster: 2^20 rows per partition
    1908
    """
    rows, cores = max(int(rows), 0), max(int(cores), 1)
    by_size = -(-rows // ROWS_PER_PARTITION)
    spread = min(cores, -(-rows // MIN_ROWS_PER_PARTITION))
    return max(1, by_size, spread)


def shuffle_partitions(spark, rows: int) -> int:
    """Shuffle partitions for a call that shuffles about ``rows`` rows: the user's
    ``spark.sql.shuffle.partitions`` when they set it, else :func:`partitions_for` ``(rows, cores)`` with
    the session's ``defaultParallelism`` as ``cores``.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import shuffle_partitions
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> user = session.conf.get("spark.sql.shuffle.partitions", None)
    >>> shuffle_partitions(session, 156) == (1 if user is None else int(user))
    True
    """
    user = user_conf(spark, "spark.sql.shuffle.partitions")
    if user is not None:
        return int(user)
    sc = spark_context(spark)
    cores = sc.defaultParallelism if sc is not None else 1
    return partitions_for(rows, cores)


def estimated_rows(df, row_bytes: int = 8) -> int | None:
    """About how many rows ``df`` holds, from Spark's statistics of its optimized plan, without a job.

    The plan's row count when Spark knows it (data built in memory, ``range``), else its size in bytes
    divided by ``row_bytes`` (file sources report their files' sizes: a Parquet row of two ids takes about
    8 bytes); None when Spark has no estimate (or on Spark Connect). For choosing partitions, nothing else.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import estimated_rows
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> estimated_rows(session.range(1000))
    1000
    """
    try:
        stats = df._jdf.queryExecution().optimizedPlan().stats()
        count = stats.rowCount()
        if count.isDefined():
            return int(str(count.get()))
        size = int(str(stats.sizeInBytes()))
    except Exception:
        return None
    if size >= 1 << 60:  # spark.sql.defaultSizeInBytes: Spark does not know
        return None
    return -(-size // max(int(row_bytes), 1))


def user_conf(spark, key: str) -> str | None:
    """The user's value of the SQL option ``key``: None when it is unset, or set by a dpmo call now running
    (:func:`sql_conf`).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import sql_conf, user_conf
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> with sql_conf(session, {"spark.sql.execution.arrow.maxRecordsPerBatch": 4096}):
    ...     mine = user_conf(session, "spark.sql.execution.arrow.maxRecordsPerBatch")
    >>> mine is None
    True
    """
    if _owned(spark).get(key):
        return None
    value = spark.conf.get(key, None)
    return None if value is None else str(value)


def _owned(spark) -> dict[str, list]:
    """Per session: the SQL options dpmo's running calls set, each with the values to restore."""
    owned = getattr(spark, "_dpmo_owned_conf", None)
    if owned is None:
        owned = {}
        spark._dpmo_owned_conf = owned
    return owned


@contextmanager
def sql_conf(spark, settings: Mapping[str, object]) -> Iterator[dict[str, str]]:
    """Set the SQL options of ``settings`` that the user has not set, for the duration of the block.

    Yields the options it set. Options the user set (on the builder or with ``spark.conf.set``) are never
    touched; options an enclosing dpmo call set are set again for the block. On exit each is restored (to
    the enclosing call's value, or unset).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import sql_conf
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> with sql_conf(session, {"spark.sql.execution.arrow.maxRecordsPerBatch": 4096}) as done:
    ...     inside = session.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    >>> inside, session.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", None)
    ('4096', None)
    """
    done: dict[str, str] = {}
    with _lock:
        owned = _owned(spark)
        for key, value in settings.items():
            ours = bool(owned.get(key))
            current = spark.conf.get(key, None)
            if current is not None and not ours:
                continue  # the user's
            owned.setdefault(key, []).append(current if ours else None)
            spark.conf.set(key, str(value))
            done[key] = str(value)
    try:
        yield done
    finally:
        with _lock:
            for key in done:
                previous = owned[key].pop()
                if not owned[key]:
                    del owned[key]
                if previous is None:
                    spark.conf.unset(key)
                else:
                    spark.conf.set(key, previous)


# ------------------------------------------------------------------------------------------ quiet
class _ProgressHold(threading.Thread):
    """Keeps the console progress bar of a SparkContext hidden: it only draws a stage when no
    ``finishAll`` came in the last 500 ms, so this calls it every 100 ms."""

    def __init__(self, bar):
        super().__init__(name="dpmo-progress-hold", daemon=True)
        self.bar = bar
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            try:
                self.bar.finishAll()
            except Exception:  # the context is stopping: nothing to hide any more
                return

    def stop(self) -> None:
        self.done.set()
        self.join()
        try:
            self.bar.finishAll()  # and clear what may have been drawn
        except Exception:
            pass


def _progress_bar(sc):
    try:
        option = sc._jsc.sc().progressBar()
        return option.get() if option.isDefined() else None
    except Exception:  # another pyspark, or the internals moved: the bar stays as it is
        return None


@contextmanager
def quiet(spark=None) -> Iterator[None]:
    """No console progress bar and no pyspark FutureWarning about pandas 3 while the block runs.

    Warnings are filtered by message (:func:`warnings.catch_warnings`: the process's filters are restored
    on exit); the progress bar of the session's SparkContext, if it has one, is held back and cleared.

    Examples
    --------
    >>> import warnings
    >>> from dpmo.spark.session import quiet
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with quiet():
    ...         warnings.warn("PySpark does not yet fully support pandas >= 3.0.0.", FutureWarning)
    >>> seen
    []
    """
    sc = spark_context(spark) if spark is not None else None
    hold = None
    with _lock:
        if sc is not None:
            depth = getattr(sc, "_dpmo_quiet_depth", 0)
            sc._dpmo_quiet_depth = depth + 1
            if depth == 0:
                bar = _progress_bar(sc)
                if bar is not None:
                    hold = _ProgressHold(bar)
                    sc._dpmo_progress_hold = hold
                    hold.start()
    try:
        with warnings.catch_warnings():
            for message in _QUIET_MESSAGES:
                warnings.filterwarnings("ignore", message=message)
            yield
    finally:
        if sc is not None:
            with _lock:
                sc._dpmo_quiet_depth -= 1
                hold = getattr(sc, "_dpmo_progress_hold", None) if sc._dpmo_quiet_depth == 0 else None
                if hold is not None:
                    del sc._dpmo_progress_hold
            if hold is not None:
                hold.stop()


# ------------------------------------------------------------------------------------------ the call
@contextmanager
def worker_udfs(spark) -> Iterator[str | None]:
    """The Python functions that Spark DataFrames created in the block run (``mapInArrow``,
    ``mapInPandas``, UDFs) run the workers' interpreter of :func:`check_worker_python`, checked first.

    pyspark fixes a function's interpreter when it wraps it, so a DataFrame created in the block keeps it
    when it is computed later. Every dpmo function that creates such a DataFrame does it in this block
    (the check is cached: a dictionary look-up after the first). Yields the interpreter (None on Spark
    Connect, where the server sets it).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import worker_python, worker_udfs
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> with worker_udfs(session) as python:
    ...     inside = session.sparkContext.pythonExec
    >>> inside == python == worker_python(session)[0]
    True
    """
    python = check_worker_python(spark)
    sc = spark_context(spark)
    if python is None or sc is None:
        yield python
    else:
        with running(sc, python):
            yield python


@contextmanager
def library_call(spark, *, rows: int | None = None, settings: Mapping[str, object] | None = None):
    """The duration of one dpmo call on Spark: checked workers, chosen partitions, quiet output.

    On entry, before any Spark job: :func:`check_worker_python` (raises :class:`SparkEnvironmentError`).
    While the block runs: the UDFs it creates run the checked interpreter; :data:`CALL_SETTINGS`,
    ``settings`` and, when ``rows`` is given, ``spark.sql.shuffle.partitions`` by
    :func:`shuffle_partitions` are set where the user has not set them (:func:`sql_conf`); :func:`quiet`
    holds the output. A job that fails because a worker cannot import dpmo or one of its dependencies is
    reported as :class:`SparkEnvironmentError` in one line. Everything is restored on exit.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
    rows : int, optional
        About how many rows the call shuffles (see :func:`shuffle_partitions`); None leaves the
        partitions to a later :func:`sql_conf` in the block (when the size is known only then).
    settings : mapping, optional
        Further SQL options for the call (set only where the user has not set them).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import library_call
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> user = session.conf.get("spark.sql.shuffle.partitions", None)
    >>> with library_call(session, rows=156):
    ...     inside = session.conf.get("spark.sql.shuffle.partitions")
    >>> inside == (user or "1"), session.conf.get("spark.sql.shuffle.partitions", None) == user
    (True, True)
    """
    python = check_worker_python(spark)
    conf = {**CALL_SETTINGS, **(settings or {})}
    if rows is not None:
        conf["spark.sql.shuffle.partitions"] = shuffle_partitions(spark, rows)
    with quiet(spark), sql_conf(spark, conf):
        try:
            with worker_udfs(spark):
                yield
        except Exception as exc:
            missing = missing_module(exc)
            if missing is None:
                raise
            fix = (
                f"set PYSPARK_PYTHON={sys.executable} (this interpreter, which has dpmo) before the Spark "
                "session starts"
                if is_local(spark)
                else PACKING
            )
            where = python or "the workers' Python"
            raise SparkEnvironmentError(
                f"dpmo on Spark: a Python worker ({where}) cannot import {missing}; {fix}"
            ) from None
