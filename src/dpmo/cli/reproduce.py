"""``dpmo reproduce``: check its arguments and hand them to :func:`dpmo.experiments.orchestrate.reproduce`."""

from __future__ import annotations

import argparse

from .args import CLIError, epsilon, split

__all__ = ["reproduce_command"]


def reproduce_command(args) -> int:
    """``dpmo reproduce``: check the arguments, then :func:`dpmo.experiments.orchestrate.reproduce`."""
    from ..experiments.config import DATASETS, EXPERIMENT_NAMES, default_data_dirs
    from ..experiments.orchestrate import (
        ReproduceError,
        check_readings_apply,
        data_folder,
        output_folder,
        reproduce,
    )
    from ..experiments.readings import list_readings, resolve_readings

    if args.list_readings:
        print(list_readings())
        return 0
    if args.experiment is None:
        raise CLIError("give an EXPERIMENT (or --list-readings)")
    if args.delta:  # the improvement rows: a reading, labelled in the CSV and the report
        if any(str(r).split("=")[0].strip() == "delta" for r in args.reading or ()):
            raise CLIError("give --delta or --reading delta=VALUE, not both")
        args.reading = [*(args.reading or ()), f"delta={args.delta!r}"]
    try:
        resolve_readings(args.reading)  # an unknown reading or a bad value: refused here
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if args.experiment not in (*EXPERIMENT_NAMES, "all"):
        raise CLIError(
            f"unknown experiment {args.experiment!r}; choose one of {', '.join(EXPERIMENT_NAMES)}, all"
        )
    names = list(EXPERIMENT_NAMES) if args.experiment == "all" else [args.experiment]
    try:  # a reading that would change nothing is refused, not ignored
        check_readings_apply(names, args.reading, args.experiment)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if args.scheduler and args.backend != "dask":
        raise CLIError("--scheduler needs --backend dask")
    epsilons = None
    if args.epsilons is not None:
        try:
            epsilons = tuple(sorted({epsilon(e) for e in split(args.epsilons)}))
        except argparse.ArgumentTypeError as exc:
            raise CLIError(f"argument --epsilons: {exc}") from None
        if not epsilons:
            raise CLIError("argument --epsilons: give at least one value")
    requested = split(args.datasets)
    if requested is not None:
        for d in requested:
            if d not in DATASETS:
                raise CLIError(f"unknown dataset {d!r}; choose among {', '.join(DATASETS)}")
    try:
        data_dirs = default_data_dirs() if args.data_dir is None else [data_folder(args.data_dir)]
        out = output_folder(args.out or ("results-quick" if args.quick else "results"))
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    try:
        reproduce(
            names,
            out,
            experiment=args.experiment,
            data_dirs=data_dirs,
            seed=args.seed,
            jobs=args.jobs,
            backend=args.backend,
            scheduler=args.scheduler,
            quick=args.quick,
            runs=args.runs,
            epsilons=epsilons,
            ego_density=args.ego_density,
            readings=args.reading,
            methods_req=split(args.methods),
            requested=requested,
            progress=args.progress,
            report=not args.no_report,
        )
    except ReproduceError as exc:
        raise CLIError(str(exc)) from None
    return 0
