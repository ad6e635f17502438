"""Seeds of an experiment grid: one ``SeedSequence`` per run, a pure function of its coordinates.

Every run draws its randomness from ``numpy.random.SeedSequence(entropy=seed, spawn_key=key)`` with
``key = (crc32(experiment), crc32(dataset), crc32(method), crc32(epsilon), run)`` (:func:`cell_seed`); the
reference computation of repetition ``run`` uses ``(experiment, dataset, "reference", run)``
(:func:`reference_seed`). See :mod:`dpmo.experiments.runner` for what this buys.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

__all__ = ["eps_text", "cell_seed", "reference_seed"]


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def eps_text(epsilon: float) -> str:
    """The text of ``epsilon`` in a results CSV and in seeds: ``inf``, or 12 significant digits.

    Examples
    --------
    >>> from dpmo.experiments.seeding import eps_text
    >>> eps_text(float("inf")), eps_text(0.1), eps_text(2)
    ('inf', '0.1', '2')
    """
    return "inf" if math.isinf(epsilon) else f"{float(epsilon):.12g}"


def cell_seed(
    seed: int, experiment: str, dataset: str, method: str, epsilon: float, run: int
) -> np.random.SeedSequence:
    """The seed sequence of one run of one cell (a pure function of its arguments).

    O(1). ``epsilon = inf`` stands for a non-private method.

    Examples
    --------
    >>> from dpmo.experiments import cell_seed
    >>> a = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 3).generate_state(2)
    >>> b = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 3).generate_state(2)
    >>> c = cell_seed(0, "graph-agg", "enron", "DP-MOTkIN-Agg-local", 1.0, 4).generate_state(2)
    >>> bool((a == b).all()), bool((a == c).all())  # a pure function of the run's coordinates
    (True, False)
    """
    key = (_crc(experiment), _crc(dataset), _crc(method), _crc(eps_text(epsilon)), int(run))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=key)


def reference_seed(seed: int, experiment: str, dataset: str, run: int) -> np.random.SeedSequence:
    """The seed sequence of the reference computation of repetition ``run`` (shared by all cells).

    Examples
    --------
    >>> from dpmo.experiments import reference_seed
    >>> r = reference_seed(0, "tree-pareto", "nltcs", 2).generate_state(2)
    >>> bool((r == reference_seed(0, "tree-pareto", "nltcs", 2).generate_state(2)).all())
    True
    """
    key = (_crc(experiment), _crc(dataset), _crc("reference"), int(run))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=key)
