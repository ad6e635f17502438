"""The toy experiment grid shared by the runner and progress tests (``dpmo.experiments.methods:toy_run``).

Not a test module (pytest collects ``test_*.py`` only); the tests import it from their own folder.
"""

from __future__ import annotations

from dpmo.experiments.config import ExperimentConfig


def toy_config(chunk: int) -> ExperimentConfig:
    """Three methods (one non-private) on one data set, three epsilons, six runs per cell."""
    return ExperimentConfig(
        name="toy",
        title="toy grid",
        kind="tree",
        methods=("A-local", "A-global", "NODP"),
        nonprivate=("NODP",),
        datasets=("toy",),
        epsilons=(0.1, 1.0, 10.0),
        metrics=("score", "ref"),
        run_function="dpmo.experiments.methods:toy_run",
        runs=6,
        chunk=chunk,
        params={"n": 20},
    )
