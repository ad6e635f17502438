"""The Python interpreter Spark's workers run for dpmo: chosen, checked before any job, set for a call.

pyspark starts its Python workers with the interpreter it read from ``PYSPARK_PYTHON`` when the
SparkContext started, ``python3`` from ``PATH`` when that was unset (Spark's configuration option for the
workers' Python is honoured only by ``spark-submit``, which turns it into ``PYSPARK_PYTHON``; pyspark 4.3
ignores it on a session's builder in local mode). A driver run by a virtual
environment that is not activated (``venv/bin/python script.py``, a notebook kernel, an IDE, cron) would
then get workers without dpmo, which fail in the middle of a job with "No module named 'dpmo'". dpmo's
calls choose the workers' interpreter by this rule (:func:`worker_python`), first match:

* ``PYSPARK_PYTHON``, as pyspark read it (the user's choice, or ``spark-submit``'s);
* in local mode (master ``local...``), this interpreter, :data:`sys.executable`: the workers run on this
  machine, and the interpreter that runs the driver has dpmo;
* on a cluster, pyspark's default (``python3`` on the executors).

:func:`check_worker_python` checks the choice before any Spark job. In local mode a subprocess of the
chosen interpreter, with the workers' ``PYTHONPATH`` and working directory, looks dpmo and its dependencies
up without importing them (:data:`WORKER_MODULES`; about 50 ms, once per process and setting): it must be
this Python version and find the very dpmo this process runs. On a cluster one probe task per application
imports them on an executor. A failure raises :class:`SparkEnvironmentError` with one line that says what
to set. :func:`running` makes the UDFs a call creates carry the chosen interpreter (pyspark reads
``SparkContext.pythonExec`` when it wraps a function), and restores the session's own setting afterwards.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

__all__ = [
    "PACKING",
    "SparkEnvironmentError",
    "WORKER_MODULES",
    "check_worker_python",
    "is_local",
    "missing_module",
    "running",
    "spark_context",
    "worker_python",
]

#: What dpmo's functions import on the workers.
WORKER_MODULES = ("dpmo", "numpy", "pandas", "pyarrow", "numba", "scipy")
#: How to give a cluster's executors an interpreter with dpmo (the end of the refusal on a cluster).
PACKING = (
    "pack an environment that has dpmo (venv-pack or conda-pack) and set "
    "spark.archives=<env>.tar.gz#environment with PYSPARK_PYTHON=./environment/bin/python before the "
    "session starts (Spark's docs: 'Python Package Management'), or install dpmo on every executor"
)

_DEFAULT_EXEC = "python3"  # pyspark's SparkContext.pythonExec when PYSPARK_PYTHON is unset
_checked: dict[tuple, str | None] = {}
_lock = threading.RLock()


class SparkEnvironmentError(RuntimeError):
    """The Spark session cannot run dpmo's functions on its workers; the message (one line) says why and
    what to set.

    Examples
    --------
    >>> from dpmo.spark.session import SparkEnvironmentError
    >>> issubclass(SparkEnvironmentError, RuntimeError)
    True
    """


def spark_context(spark):
    """The SparkContext of a classic session, or None (Spark Connect has none on the client).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dpmo.spark.workers import spark_context
    >>> spark_context(SimpleNamespace(sparkContext="sc"))
    'sc'
    """
    try:
        return spark.sparkContext
    except Exception:  # pyspark.errors.PySparkNotImplementedError on Spark Connect
        return None


def is_local(spark) -> bool:
    """Whether the session runs in local mode (master ``local``, ``local[N]``, ``local[*]``, ...), where the
    workers run on this machine.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dpmo.spark.session import is_local
    >>> is_local(SimpleNamespace(sparkContext=SimpleNamespace(master="local[2]")))
    True
    >>> is_local(SimpleNamespace(sparkContext=SimpleNamespace(master="yarn")))
    False
    """
    sc = spark_context(spark)
    return sc is not None and str(sc.master).startswith("local")


def worker_python(spark) -> tuple[str, str] | None:
    """The interpreter dpmo's calls run on the workers, and where that choice comes from.

    The rule of the module notes: ``PYSPARK_PYTHON`` as pyspark read it, else in local mode
    :data:`sys.executable`, else pyspark's default ``python3``.

    Returns
    -------
    (str, str) or None
        The interpreter and its source (``"PYSPARK_PYTHON"``, ``"this interpreter"`` or
        ``"pyspark's default"``); None for a session without a SparkContext on this side (Spark
        Connect), whose workers the server configures.

    Examples
    --------
    >>> import os, sys
    >>> from types import SimpleNamespace
    >>> from dpmo.spark.session import worker_python
    >>> chosen = SimpleNamespace(master="local[2]", pythonExec="/env/bin/python")  # PYSPARK_PYTHON was set
    >>> worker_python(SimpleNamespace(sparkContext=chosen))
    ('/env/bin/python', 'PYSPARK_PYTHON')
    >>> default = SimpleNamespace(master="local[2]", pythonExec="python3")  # pyspark's default
    >>> expected = (sys.executable, "this interpreter")  # in local mode, with PYSPARK_PYTHON unset
    >>> if "PYSPARK_PYTHON" in os.environ:  # set (even to pyspark's default): kept
    ...     expected = ("python3", "PYSPARK_PYTHON")
    >>> worker_python(SimpleNamespace(sparkContext=default)) == expected
    True
    """
    sc = spark_context(spark)
    if sc is None:
        return None
    exec_ = getattr(sc, "_dpmo_user_exec", None) or sc.pythonExec  # the session's own, during a call
    if exec_ != _DEFAULT_EXEC or "PYSPARK_PYTHON" in os.environ:
        return str(exec_), "PYSPARK_PYTHON"
    if str(sc.master).startswith("local") and sys.executable:
        return sys.executable, "this interpreter"
    return _DEFAULT_EXEC, "pyspark's default"


# ------------------------------------------------------------------------------------------ local mode
_PROBE = """
import importlib.util, sys
found = []
for name in {modules!r}:
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        spec = None
    found.append('' if spec is None else (spec.origin or ''))
print('%d.%d' % sys.version_info[:2])
print('\\n'.join(found))
"""


def _dpmo_dir() -> str:
    import dpmo

    return os.path.realpath(os.path.dirname(dpmo.__file__))


def _probe_local(python: str, env: Mapping[str, str], cwd: str | None) -> tuple[str, list[str]] | str:
    """``(Python version, origins of WORKER_MODULES)`` as ``python`` finds them, or why it could not run."""
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE.format(modules=WORKER_MODULES)],
            capture_output=True,
            text=True,
            env=dict(env),
            cwd=cwd if cwd and os.path.isdir(cwd) else None,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
    except FileNotFoundError:
        return "is not found"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot be run ({exc})"
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 1 + len(WORKER_MODULES):
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"cannot be run ({tail})"
    return lines[0], lines[1:]


def _worker_env(sc) -> tuple[dict[str, str], str | None]:
    """The environment and directory of a local Python worker: this process's environment with the
    session's own variables (``PYTHONPATH`` entries first) and the JVM's ``PATH``, and the JVM's working
    directory."""
    env = dict(os.environ)
    session_env = {str(k): str(v) for k, v in (getattr(sc, "environment", None) or {}).items()}
    paths = [session_env.pop("PYTHONPATH", ""), env.get("PYTHONPATH", "")]
    env.update(session_env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    try:  # the JVM starts the workers: its directory, and its PATH to find a bare "python3"
        cwd = str(sc._jvm.System.getProperty("user.dir"))
        jvm_path = sc._jvm.System.getenv("PATH")
        if jvm_path is not None:
            env["PATH"] = str(jvm_path)
    except Exception:
        cwd = None
    return env, cwd


def _local_problem(python: str, source: str, sc) -> str | None:
    """Why local workers running ``python`` cannot run this dpmo (one line), or None; cached."""
    env, cwd = _worker_env(sc)
    ours = _dpmo_dir()
    key = (python, env.get("PYTHONPATH", ""), cwd, ours)
    with _lock:
        if key in _checked:
            return _checked[key]
    found = _probe_local(python, env, cwd)
    who = f"dpmo on Spark: the Python workers run {python} ({source})"
    if python == sys.executable:
        fix = f"put {os.path.dirname(ours)} on PYTHONPATH before the Spark session starts"
    else:
        fix = (
            f"set PYSPARK_PYTHON={sys.executable} (this interpreter, which has dpmo) before the Spark "
            "session starts"
        )
    problem = None
    if isinstance(found, str):
        problem = f"{who}, which {found}; {fix}"
    else:
        version, origins = found
        mine = "{}.{}".format(*sys.version_info[:2])
        missing = [m for m, o in zip(WORKER_MODULES, origins, strict=True) if not o]
        theirs = os.path.realpath(os.path.dirname(origins[0])) if origins[0] else ""
        if version != mine:
            problem = f"{who}, which is Python {version} (this process: {mine}); {fix}"
        elif missing:
            problem = f"{who}, which cannot import {', '.join(missing)}; {fix}"
        elif theirs != ours:
            problem = f"{who}, which imports dpmo from {theirs} (this process: {ours}); {fix}"
    with _lock:
        _checked[key] = problem
    return problem


# ------------------------------------------------------------------------------------------ clusters
def _probe_rows(_):  # pragma: no cover - runs on an executor (rebuilt by value, see _cluster_problem)
    import importlib

    out = []
    for name in ("dpmo", "numpy", "pandas", "pyarrow", "numba", "scipy"):
        try:
            importlib.import_module(name)
        except Exception as exc:
            out.append(f"{name}: {type(exc).__name__}: {exc}")
    if not out:
        import dpmo

        out.append("ok " + dpmo.__version__)
    return out


def _cluster_problem(spark, python: str, source: str) -> str | None:
    """Why the executors running ``python`` cannot run this dpmo (one line), or None; one probe task per
    application."""
    import dpmo

    sc = spark_context(spark)
    key = ("cluster", sc.applicationId, python)
    with _lock:
        if key in _checked:
            return _checked[key]
    # a copy of the probe with no module of its own: cloudpickle sends it by value, so the executor needs
    # no dpmo to unpickle it
    probe = types.FunctionType(_probe_rows.__code__, {"__builtins__": __builtins__}, "_probe_rows")
    try:
        with running(sc, python):
            answer = sc.parallelize([0], 1).flatMap(probe).collect()
    except Exception as exc:  # the task failed (the interpreter is missing, ...)
        found = re.search(r"(\w+(?:Error|Exception)[^\n]*)", str(exc))
        answer = [f"probe: {found.group(1)[:160] if found else type(exc).__name__}"]
    problem = None
    if answer != [f"ok {dpmo.__version__}"]:
        detail = "; ".join(answer)[:300]
        problem = f"dpmo on Spark: the executors' Python ({python}, {source}) fails ({detail}); {PACKING}"
    with _lock:
        _checked[key] = problem
    return problem


def check_worker_python(spark) -> str | None:
    """Check, before any Spark job, that the workers can run dpmo's functions; the interpreter they run.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession

    Returns
    -------
    str or None
        The workers' interpreter (:func:`worker_python`), None for a Spark Connect session (not checked).

    Raises
    ------
    SparkEnvironmentError
        With one line that says what to set: in local mode when the chosen interpreter is missing, is
        another Python version, cannot find dpmo or one of its dependencies, or finds another copy of dpmo
        than this process runs (a subprocess looks them up, without a Spark job; once per process and
        setting); on a cluster when a probe task (one per application) cannot import dpmo at this
        version on an executor.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.session import check_worker_python
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> check_worker_python(session) is not None   # the interpreter, checked
    True
    """
    chosen = worker_python(spark)
    if chosen is None:
        return None
    python, source = chosen
    if is_local(spark):
        problem = _local_problem(python, source, spark_context(spark))
    else:
        problem = _cluster_problem(spark, python, source)
    if problem:
        raise SparkEnvironmentError(problem)
    return python


@contextmanager
def running(sc, python: str) -> Iterator[None]:
    """``sc.pythonExec = python`` while the block runs: the UDFs created in it run ``python``. Nested and
    concurrent blocks share one count; the session's own value is restored when the last one ends.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dpmo.spark.workers import running
    >>> sc = SimpleNamespace(pythonExec="python3")
    >>> with running(sc, "/venv/bin/python"):
    ...     inside = sc.pythonExec
    >>> inside, sc.pythonExec
    ('/venv/bin/python', 'python3')
    """
    with _lock:
        depth = getattr(sc, "_dpmo_exec_depth", 0)
        if depth == 0:
            sc._dpmo_user_exec = sc.pythonExec
        sc._dpmo_exec_depth = depth + 1
        sc.pythonExec = python
    try:
        yield
    finally:
        with _lock:
            sc._dpmo_exec_depth -= 1
            if sc._dpmo_exec_depth == 0:
                sc.pythonExec = sc._dpmo_user_exec
                del sc._dpmo_user_exec


def missing_module(exc: BaseException) -> str | None:
    """The module a Python worker could not import, when ``exc`` is a Spark job failing for that reason.

    Examples
    --------
    >>> from dpmo.spark.workers import missing_module
    >>> class PythonException(Exception):
    ...     pass
    >>> PythonException.__module__ = "pyspark.errors.exceptions.captured"
    >>> missing_module(PythonException("ModuleNotFoundError: No module named 'dpmo'"))
    'dpmo'
    >>> missing_module(ModuleNotFoundError("No module named 'dpmo'")) is None   # not from a worker
    True
    """
    if not type(exc).__module__.startswith(("pyspark", "py4j")):
        return None
    found = re.search(r"No module named '([\w.]+)'", str(exc))
    if found and found.group(1).split(".")[0] in WORKER_MODULES:
        return found.group(1)
    return None
