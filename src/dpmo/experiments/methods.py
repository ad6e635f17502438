"""Thin adapters between the experiment grid and the applications (:mod:`dpmo.trees`, :mod:`dpmo.graphs`).

Each ``*_run`` function computes one repetition of one cell and returns its metrics as a dict of floats;
:func:`dpmo.experiments.runner.run_task` calls it as ``fn(data, method, epsilon, rng, params,
reference_seed=...)``. ``epsilon`` is None for a non-private method. Data are loaded once per worker
process by :func:`load_data` (cached).

Metrics are evaluation quantities computed on the private data by the experimenter, outside the private
algorithms; they are not releases.

Cost: a run costs one call of the application (one ``DPMOETClassifier.fit`` and ``evaluate``, one
``LocalDiffPID3Classifier.fit`` and ``predict``, or one ``dpmo.graphs.top_k``; see their docs) plus
O(k log n) for the metrics; the exact top-k, the Pareto front and the non-private tree references are
computed once per process and cached.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..metrics import best_hypervolume, coverage, front_share, hypervolume, recall, tpr_tnr, weighted_fitness
from ..selection import get_approach
from .config import DATASETS
from .graph_data import (
    EGO_CONVENTIONS,
    PUBLIC_NODE_COUNTS,
    GraphData,
    ego_convention,
    embedded_graph,
    load_graph_data,
    public_nodes,
)

__all__ = [
    "EGO_CONVENTIONS",
    "GraphData",
    "ego_convention",
    "load_data",
    "load_table",
    "load_graph_data",
    "public_nodes",
    "PUBLIC_NODE_COUNTS",
    "embedded_graph",
    "tree_pareto_run",
    "tree_agg_run",
    "graph_pareto_run",
    "graph_agg_run",
    "toy_run",
]


def _sensitivity_of(method: str) -> str:
    if method.endswith("local"):
        return "local"
    if method.endswith("global"):
        return "global"
    raise ValueError(f"method {method!r} names no sensitivity (local/global)")


# --------------------------------------------------------------------------------------------- data
def load_table(name: str, files: Sequence[str] = (), prep: dict | None = None):
    """A labelled table as a ``dpmo.datasets.Dataset`` (X, y, features, name).

    ``prep``: data-preparation readings (:mod:`dpmo.experiments.prep`); empty = the library's loaders.
    """
    from .. import datasets

    if prep:
        from .prep import load_table as load_prepared

        return load_prepared(name, files, prep)
    if name == "breast-cancer":
        return datasets.load_breast_cancer()
    paths = [Path(f) for f in files]
    if name == "nltcs":
        return datasets.load_nltcs(paths[0])
    if name == "acs":
        return datasets.load_acs(paths[0])
    if name == "adult":
        return datasets.load_adult(paths[0].parent)
    raise ValueError(f"unknown table dataset {name!r}")


@functools.lru_cache(maxsize=8)
def load_data(name: str, files: tuple[str, ...] = (), prep: tuple = ()):
    """Load dataset ``name`` (cached per process: each worker loads a dataset once).

    ``prep``: the data-preparation readings as a tuple of ``(key, value)`` pairs (hashable).
    """
    if name == "toy":
        return None
    spec = DATASETS[name]
    if spec.kind == "tree":
        return load_table(name, files, dict(prep))
    return load_graph_data(name, files)


# --------------------------------------------------------------------------------------------- trees
_TREE_KEYS = (
    "population_size",
    "selection_size",
    "n_iterations",
    "initial_depth",
    "max_depth",
    "n_output",
    "mechanism",
    "delta",
)


#: ``params`` keys of the readings that change DP-MOET (:mod:`dpmo.experiments.variants`).
_MOET_READINGS = ("tpr_delta", "eps_scale", "exp_half", "ref_dominance")


def _moet(data, approach: str, epsilon: float | None, sensitivity: str, params: dict, rng):
    from ..trees import DPMOETClassifier

    kw = {k: params[k] for k in _TREE_KEYS if k in params and (k != "delta" or epsilon is not None)}
    if get_approach(approach).uses_weights:
        kw["weights"] = tuple(params.get("weights", (3.0, 2.0)))
    if any(key in params for key in _MOET_READINGS):
        from .variants import ReadingMOET

        _no_delta(params, _MOET_READINGS)
        kw["reading"] = {key: params[key] for key in _MOET_READINGS if key in params}
        DPMOETClassifier = ReadingMOET  # noqa: N806
    clf = DPMOETClassifier(
        epsilon=epsilon,
        approach=approach,
        sensitivity=sensitivity,
        features=data.features,
        random_state=rng,
        exact=False,  # the paper's grids keep the float sampler (speed; seeded outputs unchanged)
        leaf_count_share=0,  # the paper's DP-MOET: the trees only, all of epsilon for the selections
        **kw,
    )
    enc = _encoded(data)
    clf.fit(enc)
    return np.asarray(clf.evaluate(enc), dtype=np.float64).reshape(-1, 2)


_ENCODINGS: dict[int, tuple[Any, Any]] = {}


def _encoded(data):
    """The table's :class:`dpmo.trees.EncodedData`, built once per process (the data are never modified)."""
    from ..trees import EncodedData

    hit = _ENCODINGS.get(id(data))
    if hit is None or hit[0] is not data:
        if len(_ENCODINGS) > 8:
            _ENCODINGS.clear()
        hit = _ENCODINGS[id(data)] = (data, EncodedData(data.X, data.y))
    return hit[1]


_REFERENCE_CACHE: dict[tuple, np.ndarray] = {}


def _reference(data, params: dict, seed: np.random.SeedSequence, approach: str) -> np.ndarray:
    """Objectives of the non-private reference run keyed by ``seed`` (cached: shared by all cells)."""
    key = (data.name, approach, repr(sorted(params.items())), seed.entropy, tuple(seed.spawn_key))
    if key not in _REFERENCE_CACHE:
        if len(_REFERENCE_CACHE) > 20_000:
            _REFERENCE_CACHE.clear()
        sens = "global"  # ignored when epsilon is None
        _REFERENCE_CACHE[key] = _moet(data, approach, None, sens, params, np.random.default_rng(seed))
    return _REFERENCE_CACHE[key]


def tree_pareto_run(
    data,
    method: str,
    epsilon: float | None,
    rng: np.random.Generator,
    params: dict,
    *,
    reference_seed: np.random.SeedSequence,
) -> dict[str, float]:
    """One repetition of the tree Pareto experiment: C(X', X'') of the private output trees.

    X' = (TPR, TNR) of NODP-MOET-Pareto's output trees (run from ``reference_seed``), X'' = those of
    DP-MOET-Pareto (local or global) with budget ``epsilon``.
    """
    ref = _reference(data, params, reference_seed, "pareto")
    approach = "staircase" if "Staircase" in method else "chebyshev" if "Chebyshev" in method else "pareto"
    out = _moet(data, approach, epsilon, _sensitivity_of(method), params, rng)
    best = best_hypervolume(ref, out.shape[0])  # TPR and TNR lie in [0, 1]: public bounds, reference 0
    return {
        "coverage": coverage(ref, out, dominance=params.get("dominance", "strict")),
        "coverage_weak": coverage(ref, out, dominance="weak"),
        "hypervolume_ratio": 1.0 if best <= 0.0 else hypervolume(out, 0.0) / best,
    }


def tree_agg_run(
    data,
    method: str,
    epsilon: float | None,
    rng: np.random.Generator,
    params: dict,
    *,
    reference_seed: np.random.SeedSequence | None = None,
) -> dict[str, float]:
    """One repetition of the tree aggregation experiment: fitness w . (TPR, TNR) of the output tree."""
    weights = tuple(params.get("weights", (3.0, 2.0)))
    if method == "LocalDiffPID3":
        clf = _local_diffpid3(data, epsilon, params, rng)
        with warnings.catch_warnings():  # a single-leaf tree is a measured outcome here, not news to a user
            warnings.filterwarnings("ignore", message="the fitted tree is a single leaf")
            clf.fit(data)  # a Dataset: its public label set {0, 1}
        tpr, tnr = tpr_tnr(data.y, clf.predict(data.X))
    else:
        private = method.startswith("DP-")
        sens = _sensitivity_of(method) if private else "global"
        objectives = _moet(data, "agg", epsilon if private else None, sens, params, rng)
        tpr, tnr = objectives[0]
    fitness = float(weighted_fitness(np.array([tpr, tnr]), weights))
    return {"fitness": fitness, "tpr": float(tpr), "tnr": float(tnr)}


def _local_diffpid3(data, epsilon: float, params: dict, rng):
    """LocalDiffPID3 with max depth ``params["max_depth"]`` (5), or under the ``id3`` readings."""
    from ..trees import LocalDiffPID3Classifier

    id3 = dict(params.get("id3", {}))
    depth = int(id3.pop("max_depth", params.get("max_depth", 5)))
    delta = params.get("delta", 0.0)
    if not id3 and params.get("exp_half", True):
        return LocalDiffPID3Classifier(
            epsilon=epsilon, max_depth=depth, features=data.features, random_state=rng, exact=False,
            delta=delta,
        )  # fmt: skip
    from .variants import ReadingID3

    if id3.pop("eps_per_level", False):  # every depth gets epsilon: L + 1 levels
        epsilon = epsilon * (min(depth, len(data.features)) + 1)
    return ReadingID3(
        epsilon=epsilon,
        max_depth=depth,
        features=data.features,
        random_state=rng,
        exact=False,
        form=id3.pop("form", "shipped"),
        select_factor=1.0 if params.get("exp_half", True) else 2.0,
        delta=delta,
        **id3,
    )


#: ``params`` keys of the readings that change DP-MOTkIN.
_GRAPH_READINGS = ("ego_delta", "eps_scale", "exp_half", "agg_delta")


def _top_k(data, k, epsilon, params, conv, **kw):
    from .. import graphs

    if any(key in params for key in _GRAPH_READINGS):
        from .variants import graph_top_k

        _no_delta(params, _GRAPH_READINGS)
        return graph_top_k(data.graph, k, epsilon, params=params, conv=conv, weights=kw.pop("weights", None),
                           **kw)  # fmt: skip
    return graphs.top_k(data.graph, k, epsilon, exact=False, delta=params.get("delta", 0.0), **kw, **conv)


def _no_delta(params: dict, keys) -> None:
    """``delta`` (approximate DP) does not combine with the readings that re-read the paper's accounting."""
    if params.get("delta"):
        clash = ", ".join(key for key in keys if key in params)
        raise ValueError(f"delta (approximate DP) does not combine with the readings of {clash}")


# --------------------------------------------------------------------------------------------- graphs
def graph_pareto_run(
    data: GraphData,
    method: str,
    epsilon: float | None,
    rng: np.random.Generator,
    params: dict,
    *,
    reference_seed=None,
) -> dict[str, float]:
    """One repetition of the graph Pareto experiment: C(exact top-k, private top-k), front share, recall."""
    k = int(params["k"])
    conv = ego_convention(params)
    picks = np.asarray(
        _top_k(
            data,
            k,
            epsilon,
            params,
            conv,
            approach="chebyshev" if "Chebyshev" in method else "pareto",
            sensitivity=_sensitivity_of(method),
            mechanism=params.get("mechanism", "exponential"),
            rng=rng,
        )
    )
    exact = data.exact("pareto", k, convention=conv)
    dominance = params.get("dominance", "strict")
    return {
        "coverage": coverage(data.values_of(exact, conv), data.values_of(picks, conv), dominance=dominance),
        "front_share": front_share(picks, data.front(conv)),
        "recall": recall(picks, exact),
        "hypervolume_ratio": data.hypervolume_ratio(picks, k, conv),
    }


def graph_agg_run(
    data: GraphData,
    method: str,
    epsilon: float | None,
    rng: np.random.Generator,
    params: dict,
    *,
    reference_seed=None,
) -> dict[str, float]:
    """One repetition of the graph aggregation experiment: recall of the exact top-k by u_agg."""
    k = int(params["k"])
    weights = tuple(params.get("weights", (1.0, 100.0)))
    conv = ego_convention(params)
    picks = _top_k(
        data,
        k,
        epsilon,
        params,
        conv,
        approach="agg",
        sensitivity=_sensitivity_of(method),
        weights=weights,
        mechanism=params.get("mechanism", "exponential"),
        rng=rng,
    )
    return {"recall": recall(picks, data.exact("agg", k, weights, conv))}


# --------------------------------------------------------------------------------------------- toy
def toy_run(
    data,
    method: str,
    epsilon: float | None,
    rng: np.random.Generator,
    params: dict,
    *,
    reference_seed: np.random.SeedSequence | None = None,
) -> dict[str, float]:
    """A fast stand-in used to test the pipeline: exponential-mechanism pick among ``params["n"]`` scores.

    ``score`` is the picked candidate's utility (scores 0..n-1, sensitivity 1), ``ref`` a draw from the
    reference stream (the same for every method and epsilon of a repetition), cached per process like
    the references of ``tree-pareto``. With ``params["reference_log"]`` (a file path), each computation
    of a reference appends the seed's spawn key as one line to that file (to count them across workers).
    """
    n = int(params.get("n", 20))
    u = np.arange(n, dtype=np.float64)
    eps = 1e6 if epsilon is None else float(epsilon)
    gumbel = rng.gumbel(size=n)
    pick = int(np.argmax(eps * u / 2.0 + gumbel))
    ref = 0.0
    if reference_seed is not None:
        log = params.get("reference_log")
        key = (log, reference_seed.entropy, tuple(reference_seed.spawn_key))
        if key not in _TOY_REFERENCES:
            _TOY_REFERENCES[key] = float(np.random.default_rng(reference_seed).random())
            if log:
                with open(log, "a") as fh:
                    fh.write(f"{key[2]}\n")
        ref = _TOY_REFERENCES[key]
    return {"score": float(u[pick]), "ref": ref}


_TOY_REFERENCES: dict[tuple, float] = {}
