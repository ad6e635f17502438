"""Helpers shared by the selection mechanisms."""

from __future__ import annotations

import numpy as np


def scaled_scores(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """``epsilon * (u - max u) / (2 * sensitivity)``: the log-weights of the exponential mechanism.

    Subtracting the maximum first keeps ties exact and every value finite and <= 0, however large the
    scores or epsilon (no ``exp`` is ever taken of a large number).
    """
    return (scores - scores.max()) * (epsilon / (2.0 * sensitivity))


def top_k_of(z: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest entries of ``z``, largest first. O(n + k log k)."""
    if k == 1:
        return np.array([int(np.argmax(z))], dtype=np.intp)
    if k < z.size:
        part = np.argpartition(-z, k - 1)[:k]
    else:
        part = np.arange(z.size)
    return part[np.argsort(-z[part], kind="stable")].astype(np.intp)
