"""Readings: named alternatives for every choice the paper leaves open or gets wrong (``docs/readings.md``).

A *reading* changes one setting of an experiment of :mod:`dpmo.experiments.config` (a sensitivity function,
the accounting of the budget, a convention, a step of data preparation) so that a difference from the
paper's numbers can be traced to a cause: ``dpmo reproduce tree-pareto --reading eps-per-pick``. The
defaults (no reading) are the library's correct private choices.

Every reading says whether the runs it produces are still **epsilon-DP at the epsilon written in the
CSV** (``private``). A reading that is not (an inadmissible sensitivity function, a budget spent several
times, the exponential mechanism without its factor 1/2, a data preparation that reads the private data)
is marked ``NOT PRIVATE`` in ``dpmo reproduce --list-readings``, in the CSV column ``private`` and in the
report. Those variants are implemented in :mod:`dpmo.experiments.variants` and
:mod:`dpmo.experiments.prep` only: the library's public API (``dpmo``, ``dpmo.trees``, ``dpmo.graphs``,
``dpmo.datasets``) has no parameter that selects them, so it refuses them (``TypeError`` for an unknown
keyword, ``ValueError`` for an unknown choice; ``tests/test_readings.py``).

A reading is ``NAME`` or, for the parameterised ones, ``NAME=VALUE`` (``label-column=12``). Readings of
different aspects combine (``--reading eps-per-pick --reading tpr-printed``); two readings of the same
aspect are refused.

The parameters a reading sets are merged into the experiment's ``params`` (so the settings fingerprint of
the CSV, and hence resume, distinguishes them) under the keys read by :mod:`dpmo.experiments.methods`:

==================  ====================================================================================
key                 values (default first)
==================  ====================================================================================
``eps_scale``       ``"run"`` (total epsilon per run), ``"round"`` (per selection round), ``"pick"``
``exp_half``        ``True`` (``exp(eps u / (2 Delta))``), ``False`` (``exp(eps u / Delta)``)
``tpr_delta``       ``"tight"``, ``"printed"``, ``"published"``
``ego_delta``       ``"tight"``, ``"printed"``, ``"published"``
``ego_density``     ``"paper"``, ``"published"`` (the published code's ego-density convention)
``ref_dominance``   ``"weak"`` (the paper's Pareto score), ``"pareto"`` (NODP reference of tree-pareto)
``data``            dict of data-preparation choices (:mod:`dpmo.experiments.prep`)
``id3``             dict of LocalDiffPID3 settings (:mod:`dpmo.experiments.variants`)
``delta``           ``0`` (pure epsilon-DP, the paper's), or the delta of approximate-DP runs
                    (``delta=VALUE``, ``dpmo reproduce --delta VALUE``: the report's improvement rows)
==================  ====================================================================================
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "Reading",
    "READINGS",
    "DEFAULT_LABEL",
    "resolve_readings",
    "apply_readings",
    "readings_label",
    "readings_private",
    "list_readings",
    "readings_note",
]

#: Value of the CSV column ``readings`` when no reading is given.
DEFAULT_LABEL = "default"


@dataclass(frozen=True)
class Reading:
    """One named alternative.

    Attributes
    ----------
    name : str
        Used with ``--reading``.
    aspect : str
        What it changes; two readings of one aspect cannot be combined.
    summary : str
        One line for ``--list-readings``.
    private : bool
        Runs stay epsilon-DP at the epsilon written in the CSV.
    experiments : tuple of str
        Experiments it applies to (others ignore it, with a notice from the CLI).
    params : dict
        Merged into the experiment's ``params`` (``data`` and ``id3`` are merged key by key).
    value : str
        ``"int"`` for a parameterised reading ``NAME=VALUE`` (the value goes into ``params`` at ``slot``).
    slot : tuple of str
        Where the value goes (``("data", "label_column")``).
    """

    name: str
    aspect: str
    summary: str
    private: bool
    experiments: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    value: str = ""
    slot: tuple[str, ...] = ()


_TREES = ("tree-pareto", "tree-agg")
_GRAPHS = ("graph-pareto", "graph-agg")
_ALL = _TREES + _GRAPHS


def _r(name, aspect, summary, private, experiments, params=None, value="", slot=()):
    return Reading(name, aspect, summary, private, tuple(experiments), dict(params or {}), value, slot)


READINGS: dict[str, Reading] = {
    r.name: r
    for r in (
        # ---- sensitivity functions
        _r(
            "tpr-printed",
            "tpr_delta",
            "the paper's printed delta^TPR/TNR (P-TP)/(P(P-1)) (ERRATA 1; "
            "not admissible, clipped at 0 and made non-decreasing)",
            False,
            _TREES,
            {"tpr_delta": "printed"},
        ),
        _r(
            "tpr-published",
            "tpr_delta",
            "our reconstruction of the published code's TPR/TNR bound: the largest of six one-step "
            "changes at the state t removals away (admissible in the exhaustive audit, P <= 13, t <= 10)",
            True,
            _TREES,
            {"tpr_delta": "published"},
        ),
        _r(
            "ego-printed",
            "ego_delta",
            "the paper's printed ego-density bound 2/(deg-t-2), capped at the "
            "global sensitivity 1 (capped it is admissible, only looser; ERRATA 2)",
            True,
            _GRAPHS,
            {"ego_delta": "printed"},
        ),
        _r(
            "ego-published",
            "ego_delta",
            "the published code's ego-density bound 2/(deg-t-1) (admissible, looser than ours; ERRATA 2)",
            True,
            _GRAPHS,
            {"ego_delta": "published"},
        ),
        _r(
            "agg-delta-published",
            "agg_delta",
            "DP-MOTkIN-Agg-local: the published code's weighted sensitivity, the first objective's "
            "function added twice: 2 w_deg delta^deg + w_ego delta^ego (admissible, looser; ERRATA 6)",
            True,
            ("graph-agg",),
            {"agg_delta": "published"},
        ),
        # ---- conventions
        _r(
            "ego-density-published",
            "ego_density",
            "the published code's ego density: no factor 2, "
            "density 1 at degree 1 (ERRATA 4g); = --ego-density published",
            True,
            _GRAPHS,
            {"ego_density": "published"},
        ),
        _r(
            "reference-pareto-dominance",
            "ref_dominance",
            "tree-pareto: the NODP reference picks by the "
            "Pareto score with Pareto dominance (identical trees do not dominate each other; ERRATA 24)",
            True,
            ("tree-pareto",),
            {"ref_dominance": "pareto"},
        ),
        # ---- budget accounting
        _r(
            "eps-per-round",
            "eps_scale",
            "every selection round (DP-MOET's k+1 rounds) gets the whole epsilon; a run is then (k+1) eps-DP",
            False,
            _TREES,
            {"eps_scale": "round"},
        ),
        _r(
            "eps-per-pick",
            "eps_scale",
            "every private pick gets the whole epsilon (Algorithm 1 read "
            "literally; DP-MOTkIN: each of the k picks); a run is then (#picks) eps-DP",
            False,
            _ALL,
            {"eps_scale": "pick"},
        ),
        _r(
            "exp-no-half",
            "exp_half",
            "exponential mechanism exp(eps u / Delta) without the factor 1/2: every selection is 2 eps-DP",
            False,
            _ALL,
            {"exp_half": False},
        ),
        # ---- data preparation (tables)
        _r(
            "positive-flip",
            "positive",
            "the other class is the positive one (TPR and TNR swap)",
            True,
            _TREES,
            {"data": {"positive": "flipped"}},
        ),
        _r(
            "label-column",
            "label_column",
            "NLTCS/ACS: the label is column VALUE (0-based; default 13 for "
            "NLTCS, 10 for ACS, the published code's)",
            True,
            _TREES,
            value="int",
            slot=("data", "label_column"),
        ),
        _r(
            "adult-train-only",
            "adult_files",
            "Adult: adult.data only (30,162 complete rows), not joined with adult.test",
            True,
            _TREES,
            {"data": {"adult_files": "train"}},
        ),
        _r(
            "adult-test-only",
            "adult_files",
            "Adult: adult.test only (15,060 complete rows)",
            True,
            _TREES,
            {"data": {"adult_files": "test"}},
        ),
        _r(
            "adult-keep-missing",
            "adult_missing",
            "Adult: rows with '?' kept, '?' an extra category (48,842 rows)",
            True,
            _TREES,
            {"data": {"adult_missing": "keep"}},
        ),
        _r(
            "adult-marital-full",
            "adult_marital",
            "Adult: marital-status with its 7 categories, not folded to married / not married",
            True,
            _TREES,
            {"data": {"adult_marital": "full"}},
        ),
        _r(
            "adult-bins",
            "adult_numeric",
            "Adult: numeric columns cut into VALUE equal-width bins over their "
            "public bounds, then categorical",
            True,
            _TREES,
            value="int",
            slot=("data", "adult_bins"),
        ),
        _r(
            "adult-quantile-bins",
            "adult_numeric",
            "Adult: numeric columns cut at the data's quartiles, then categorical (reads the private data)",
            False,
            _TREES,
            {"data": {"adult_numeric": "quantile"}},
        ),
        _r(
            "adult-minmax",
            "adult_numeric",
            "Adult: numeric columns scaled by the data's own min and max, "
            "as the published code (reads the private data; ERRATA 6)",
            False,
            _TREES,
            {"data": {"adult_numeric": "minmax"}},
        ),
        _r(
            "adult-fnlwgt",
            "adult_columns",
            "Adult: also the columns fnlwgt (numeric) and education (16 categories): 14 predictors",
            True,
            _TREES,
            {"data": {"adult_columns": "all"}},
        ),
        # ---- LocalDiffPID3
        _r(
            "id3-depth",
            "id3_depth",
            "LocalDiffPID3: maximum depth VALUE (default 5)",
            True,
            ("tree-agg",),
            value="int",
            slot=("id3", "max_depth"),
        ),
        _r(
            "id3-gini",
            "id3_criterion",
            "LocalDiffPID3: Gini criterion instead of information gain",
            True,
            ("tree-agg",),
            {"id3": {"criterion": "gini"}},
        ),
        _r(
            "id3-max",
            "id3_criterion",
            "LocalDiffPID3: max criterion (local = global sensitivity)",
            True,
            ("tree-agg",),
            {"id3": {"criterion": "max"}},
        ),
        _r(
            "id3-bins",
            "id3_bins",
            "LocalDiffPID3: VALUE equal-width bins per numeric column (default 5)",
            True,
            ("tree-agg",),
            value="int",
            slot=("id3", "n_bins"),
        ),
        _r(
            "id3-own-curves",
            "id3_form",
            "LocalDiffPID3: the plain criterion (<= 0) dampened with one curve "
            "per attribute (the former version; private but distorted, docs/id3.md)",
            True,
            ("tree-agg",),
            {"id3": {"form": "plain-own"}},
        ),
        _r(
            "id3-plain-shared",
            "id3_form",
            "LocalDiffPID3: the plain criterion (<= 0) with the node's shared curve",
            True,
            ("tree-agg",),
            {"id3": {"form": "plain-shared"}},
        ),
        _r(
            "id3-no-stop",
            "id3_stop",
            "LocalDiffPID3: no stopping rule (Friedman and Schuster's 'too few records for the noise' "
            "test); every node above the last depth splits",
            True,
            ("tree-agg",),
            {"id3": {"stopping_rule": False}},
        ),
        _r(
            "delta",
            "delta",
            "approximate DP (improvement rows, not the paper's accounting): every run is "
            "(epsilon, VALUE)-DP, its picks at the accountant's epsilons (dpmo.per_pick_epsilon; = --delta)",
            True,
            _ALL,
            value="float",
            slot=("delta",),
        ),
        _r(
            "id3-eps-per-level",
            "id3_budget",
            "LocalDiffPID3: every depth gets the whole epsilon (a tree is then (depth+1) eps-DP)",
            False,
            ("tree-agg",),
            {"id3": {"eps_per_level": True}},
        ),
    )
}


def _parse(text: str) -> tuple[Reading, Any]:
    name, sep, raw = str(text).partition("=")
    name = name.strip()
    if name not in READINGS:
        raise ValueError(
            f"unknown reading {name!r}; `dpmo reproduce --list-readings` lists them: {', '.join(READINGS)}"
        )
    reading = READINGS[name]
    if reading.value == "float":
        try:
            value = float(raw) if sep else math.nan
        except ValueError:
            value = math.nan
        if not 0 < value < 1:
            raise ValueError(f"reading {name}=VALUE needs a number in (0, 1), got {raw!r}")
        return reading, value
    if reading.value == "int":
        if not sep:
            raise ValueError(f"reading {name!r} needs a value: {name}=N")
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"reading {name}=VALUE needs an integer, got {raw!r}") from None
        if value < 0:
            raise ValueError(f"reading {name}=VALUE needs a non-negative integer, got {value}")
        return reading, value
    if sep:
        raise ValueError(f"reading {name!r} takes no value (got {text!r})")
    return reading, None


def resolve_readings(names: Sequence[str] | None) -> list[tuple[Reading, Any]]:
    """Parse ``NAME`` / ``NAME=VALUE`` strings; ``ValueError`` for an unknown name or a clash of aspects."""
    out: list[tuple[Reading, Any]] = []
    seen: dict[str, str] = {}
    for text in names or ():
        reading, value = _parse(text)
        if reading.aspect in seen:
            raise ValueError(
                f"readings {seen[reading.aspect]!r} and {text!r} both set {reading.aspect}; give one"
            )
        seen[reading.aspect] = str(text)
        out.append((reading, value))
    return out


def _merge(params: dict[str, Any], reading: Reading, value: Any) -> dict[str, Any]:
    out = dict(params)
    for key, val in reading.params.items():
        out[key] = {**out.get(key, {}), **val} if isinstance(val, dict) else val
    if len(reading.slot) == 1:
        out[reading.slot[0]] = value
    elif reading.slot:
        head, leaf = reading.slot
        out[head] = {**out.get(head, {}), leaf: value}
    return out


def apply_readings(config, names: Sequence[str] | None):
    """``config`` with the readings' parameters merged into ``params`` and ``params["readings"]`` set.

    Readings that do not apply to ``config.name`` are left out. Returns ``(config, applied, ignored)``
    with ``applied`` and ``ignored`` lists of the reading strings.
    """
    applied, ignored = [], []
    params = dict(config.params)
    private = True
    for (reading, value), text in zip(resolve_readings(names), names or (), strict=True):
        if config.name not in reading.experiments:
            ignored.append(str(text))
            continue
        params = _merge(params, reading, value)
        applied.append(str(text).strip())
        private &= reading.private
    if applied:
        params["readings"] = "+".join(applied)
        params["private"] = private
    return replace(config, params=params), applied, ignored


def readings_label(params: dict[str, Any]) -> str:
    """The CSV's ``readings`` value for a run with ``params``."""
    return str(params.get("readings", DEFAULT_LABEL))


def readings_private(params: dict[str, Any]) -> bool:
    """Whether a run with ``params`` is epsilon-DP at its stated epsilon."""
    return bool(params.get("private", True))


def list_readings() -> str:
    """One line per reading: name, the experiments it applies to, and ``NOT PRIVATE`` where it breaks DP."""
    width = max(len(r.name) + (6 if r.value else 0) for r in READINGS.values())
    lines = []
    for r in READINGS.values():
        name = r.name + ("=VALUE" if r.value else "")
        flag = "NOT PRIVATE: " if not r.private else ""
        where = ",".join(r.experiments) if r.experiments != _ALL else "all"
        lines.append(f"{name:<{width}}  [{where}] {flag}{r.summary}")
    return "\n".join(lines)


def readings_note(rows) -> str:
    """One paragraph for the report naming the readings of ``rows`` (CSV rows); empty for the defaults.

    Readings that break differential privacy are flagged ``NOT PRIVATE``.
    """
    used = sorted({(r.get("readings") or DEFAULT_LABEL, r.get("private") or "yes") for r in rows})
    used = sorted({(name, "yes" if private == "-" else private) for name, private in used})
    used = [(name, private) for name, private in used if name != DEFAULT_LABEL]
    if not used:
        return ""
    parts = [f"`{name}`" + (" (NOT PRIVATE)" if private == "no" else "") for name, private in used]
    text = "**Readings** (`dpmo reproduce --list-readings`): " + ", ".join(parts) + "."
    if any(private == "no" for _, private in used):
        text += (
            " NOT PRIVATE: under these readings the runs are not epsilon-differentially private at the "
            "epsilons shown; they exist only to explain the paper's numbers."
        )
    return text
