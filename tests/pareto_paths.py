"""Test helper: force one counting path of ``delta^PS`` (normally chosen by sizes only)."""

from __future__ import annotations

from dpmo.pareto import dominance, state

PATHS = ("few", "sort", "sweep")


def force_counting_path(mp, path: str) -> None:
    """With the monkeypatch ``mp``: "few" (the fused O(n q m) kernel), "sort" (two dominance counts by the
    sort-based methods) or "sweep" (every candidate at once with the sorts shared; m <= 2, the others then
    take "sort")."""
    if path not in PATHS:
        raise ValueError(f"path must be one of {PATHS}")
    few = path == "few"
    mp.setattr(state, "_FEW_QUERIES_PER_LOG", 1e9 if few else 0)
    mp.setattr(dominance, "_BRUTE_PAIRS", 1 << 22 if few else 0)
    mp.setattr(dominance, "_BRUTE_QUERIES_PER_LOG", 4 if few else 0)
    mp.setattr(state, "_SWEEP_MIN_PAIRS", -1 if path == "sweep" else 1 << 62)
