"""Reproduce the paper's experiments end to end: configure each grid, find its data, run it, record it.

:func:`reproduce` is what ``dpmo reproduce`` does once its arguments are checked (:mod:`dpmo.cli`): for each
experiment it applies ``--quick`` / ``--runs`` / ``--epsilons`` / readings to the configuration, resolves the
datasets (:func:`resolve_datasets`), runs the grid (:func:`dpmo.experiments.runner.run_experiment`), records
timings, settings and the environment in ``OUT/meta.json`` and writes the report.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import DATASETS, EXPERIMENTS, find_dataset, missing_dataset_message, settings_hash
from .environment import environment
from .readings import apply_readings, resolve_readings
from .report import write_report
from .runner import run_experiment

__all__ = [
    "ReproduceError",
    "check_readings_apply",
    "data_folder",
    "notice",
    "output_folder",
    "resolve_datasets",
    "reproduce",
]


class ReproduceError(ValueError):
    """An interrupted reproduction: its message says where the finished runs are and how to resume.

    Examples
    --------
    >>> from dpmo.experiments.orchestrate import ReproduceError
    >>> issubclass(ReproduceError, ValueError)
    True
    """


def notice(text: str) -> None:
    """Print one progress notice on stderr, prefixed ``dpmo:``.

    Examples
    --------
    >>> import contextlib, io
    >>> from dpmo.experiments.orchestrate import notice
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     notice("hello")
    >>> err.getvalue().strip()
    'dpmo: hello'
    """
    print(f"dpmo: {text}", file=sys.stderr, flush=True)


def check_readings_apply(names: Sequence[str], readings: Sequence[str] | None, label: str) -> None:
    """Refuse a reading that would change nothing: ``ValueError`` naming the first of ``readings`` (their
    ``--reading`` texts) that applies to none of the experiments ``names`` (``label``: how the request named
    them, e.g. ``all``). The rule of ``dpmo reproduce`` and of :func:`dpmo.experiments.verdict.run_group`.
    O(number of readings).

    Examples
    --------
    >>> from dpmo.experiments.orchestrate import check_readings_apply
    >>> check_readings_apply(["trees"], None, "trees")
    """
    for (reading, _), text in zip(resolve_readings(readings), readings or (), strict=True):
        if not set(reading.experiments) & set(names):
            raise ValueError(
                f"--reading {text} applies to {', '.join(reading.experiments)} only, not to {label}"
            )


def data_folder(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is a folder, else ``ValueError`` (``--data-dir``). O(1).

    Examples
    --------
    >>> import tempfile
    >>> from dpmo.experiments.orchestrate import data_folder
    >>> data_folder(tempfile.gettempdir()).is_dir()
    True
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--data-dir {folder} is not a folder")
    return folder


def output_folder(path: str | Path) -> Path:
    """Create the output folder ``path`` (and its parents) if needed; ``ValueError`` with the system's reason
    when it cannot be created. O(depth of the path).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from dpmo.experiments.orchestrate import output_folder
    >>> output_folder(pathlib.Path(tempfile.mkdtemp()) / "a" / "b").is_dir()
    True
    """
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create output folder {folder}: {exc.strerror}") from None
    return folder


def resolve_datasets(
    config,
    requested,
    data_dirs,
    *,
    allow_fallback: bool,
    explicit: bool,
    notice: Callable[[str], None] = notice,
):
    """Dataset name -> files for one experiment; raises ValueError when nothing can run.

    ``requested`` None means the experiment's own datasets. A missing dataset is an error when ``explicit``
    (asked for by name) or when none is found and ``allow_fallback`` is false; otherwise a notice, and with
    nothing found the embedded data of the ``--quick`` version runs instead.

    Examples
    --------
    >>> from dpmo.experiments.config import EXPERIMENTS
    >>> from dpmo.experiments.orchestrate import resolve_datasets
    >>> config = EXPERIMENTS["graph-agg"]
    >>> notes = []
    >>> found = resolve_datasets(config, None, [], allow_fallback=True, explicit=False, notice=notes.append)
    >>> found == {d: [] for d in config.quick["datasets"]}, "no real data found" in notes[-1]
    (True, True)
    """
    names = requested if requested is not None else list(config.datasets)
    found: dict[str, list] = {}
    missing = []
    for name in names:
        files = find_dataset(name, data_dirs)
        if files is None:
            missing.append(name)
        else:
            found[name] = files
    if missing and (explicit or (not found and not allow_fallback)):
        more = f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else ""
        raise ValueError(missing_dataset_message(missing[0], data_dirs) + more)
    for name in missing:
        notice(missing_dataset_message(name, data_dirs))
    if not found:
        quick = config.quick.get("datasets", ())
        notice(f"{config.name}: no real data found; running on embedded data ({', '.join(quick)}) instead")
        return {d: [] for d in quick}
    return found


def reproduce(
    names: Sequence[str],
    out: str | Path,
    *,
    experiment: str,
    data_dirs: Sequence[Path],
    seed: int = 0,
    jobs: int | str = "auto",
    backend: str = "loky",
    scheduler: str | None = None,
    quick: bool = False,
    runs: int | None = None,
    epsilons: tuple[float, ...] | None = None,
    ego_density: str = "paper",
    readings: Sequence[str] | None = None,
    methods_req: Sequence[str] | None = None,
    requested: Sequence[str] | None = None,
    progress: str | bool | None = "auto",
    report: bool = True,
) -> dict[str, Any]:
    """Run the experiments ``names`` into the folder ``out`` (resumable); return what ``meta.json`` holds.

    The arguments are those of ``dpmo reproduce``, already checked: ``experiment`` is what was asked for
    (a name or ``"all"``, used in messages and to allow the fallback to embedded data), ``methods_req`` and
    ``requested`` the ``--methods`` / ``--datasets`` lists. Raises ValueError when nothing can run and
    :class:`ReproduceError` on an interrupt. Time: that of :func:`~dpmo.experiments.runner.run_experiment`
    for each experiment, plus the report.

    Examples
    --------
    >>> import contextlib, io, tempfile, shutil
    >>> from dpmo.experiments.orchestrate import reproduce
    >>> folder = tempfile.mkdtemp()
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     meta = reproduce(["graph-agg"], folder, experiment="graph-agg", data_dirs=[], quick=True, runs=1,
    ...                      epsilons=(1.0,), methods_req=["DP-MOTkIN-Agg-local"], jobs=1, progress="off",
    ...                      report=False)
    >>> meta["graph-agg"]["planned"] == len(meta["graph-agg"]["datasets"])  # one run per dataset
    True
    >>> shutil.rmtree(folder)
    """
    out = Path(out)
    _notice = notice
    meta_file = out / "meta.json"
    try:
        meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    except (OSError, ValueError):
        meta = {}
    settings: dict[str, dict[str, str]] = {}
    ran = []
    for name in names:
        config = EXPERIMENTS[name]
        if quick:
            config = config.quick_version()
        if runs is not None:
            config = replace(config, runs=runs)
        if epsilons is not None:
            config = replace(config, epsilons=epsilons)
        if config.kind == "graph" and ego_density != "paper":
            config = replace(config, params={**config.params, "ego_density": ego_density})
        config, applied, ignored = apply_readings(config, readings)
        if ignored:
            _notice(f"{name}: readings {', '.join(ignored)} do not apply to this experiment; ignored")
        if applied and not config.params.get("private", True):
            _notice(f"{name}: NOT PRIVATE readings ({config.params['readings']}): results are not "
                    "epsilon-DP at the epsilons written")  # fmt: skip
        methods = None
        if methods_req is not None:
            methods = [m for m in methods_req if m in config.methods]
            unknown = [m for m in methods_req if not any(m in EXPERIMENTS[n].methods for n in names)]
            if unknown:
                raise ValueError(
                    f"unknown method {unknown[0]!r} for {experiment}; methods of {name}: "
                    f"{', '.join(config.methods)}"
                )
            if not methods:
                continue
        req = None
        if requested is not None:
            req = [d for d in requested if DATASETS[d].kind == config.kind]
            wrong = [d for d in requested if DATASETS[d].kind != config.kind]
            if len(names) == 1 and wrong:
                raise ValueError(
                    f"dataset {wrong[0]!r} is a {DATASETS[wrong[0]].kind} dataset; {name} takes "
                    f"{config.kind} datasets: "
                    + ", ".join(d for d, s in DATASETS.items() if s.kind == config.kind)
                )
            if not req:
                continue
        elif quick:
            req = list(config.datasets)
        datasets = resolve_datasets(
            config, req, data_dirs, allow_fallback=experiment == "all", explicit=requested is not None
        )
        settings[name] = {d: settings_hash(name, d, config.params_for(d), seed) for d in datasets}
        _notice(
            f"{name}: datasets {', '.join(datasets)}; {len(config.epsilons)} budgets; {config.runs} runs "
            f"per cell; --jobs {jobs} ({backend})"
        )
        try:
            result = run_experiment(
                config,
                datasets,
                out,
                seed=seed,
                jobs=jobs,
                backend=backend,
                scheduler=scheduler,
                methods=methods,
                progress=progress,
            )
        except KeyboardInterrupt:
            raise ReproduceError(
                f"interrupted; finished runs are in {out / (name + '.csv')}; run the same command "
                "again to resume"
            ) from None
        _notice(
            f"{name}: {result['planned']} runs done, {result['skipped']} already in {result['csv']}, "
            f"{result['seconds']:.1f} s"
        )
        previous = meta.get(name, {})
        if result["planned"] == 0 and "seconds" in previous:
            result = {**result, "seconds": previous["seconds"]}  # a pure resume keeps the last real timing
        meta[name] = {
            "seconds": round(result["seconds"], 2),
            "planned": result["planned"],
            "skipped": result["skipped"],
            "jobs": result.get("jobs", jobs),
            "jobs_option": jobs,
            "backend": backend,
            "datasets": list(datasets),
            "quick": bool(quick),
            "seed": seed,
            "runs": config.runs,
            "epsilons": list(config.epsilons),
            "readings": applied,
            "private": bool(config.params.get("private", True)),
            # datasets run earlier into the same folder stay in the report unless their settings changed
            "settings": {**previous.get("settings", {}), **settings[name]},
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            # the code that computed these rows: dpmo version, git commit, Python and package versions
            "environment": environment(),
        }
        meta_file.write_text(json.dumps(meta, indent=2))
        ran.append(name)
    if not ran:
        raise ValueError("nothing to run: no experiment matches the given --datasets / --methods")
    if report:
        path = write_report(out, meta=meta)
        _notice(f"report: {path}")
    return meta
