"""Report-noisy-max on the executors: the noise kernels of a partition and the driver's merge.

A round of ``dpmo.select`` (one pick) with the exponential mechanism, Gumbel noise, permute-and-flip or
Laplace noise is ``argmax_r z_r`` with ``z_r = L_r + N_r``: ``L_r = epsilon (u_r - top) / (2 Delta u)``
the log-weights (:func:`dpmo.mechanisms.scaled_scores`, as dpmo's float samplers form them) and
``N_r`` i.i.d. standard noise (Gumbel: the exponential mechanism, Durfee and Rogers 2019; exponential:
permute-and-flip, Ding, Kifer et al. 2021; Laplace: report-noisy-max). ``top`` is any constant at least
every score in play (a shift changes no argmax); see :mod:`dpmo.mechanisms.noisy_max`.

Each partition draws the noise of its own candidates and sends only its ``keep`` best ``z`` per round to
the driver, which merges them (:func:`picks_one_shot`, :func:`picks_by_round`): the global best ``keep`` of a
round are among the partitions' best ``keep``. Why this equals the in-memory rounds in distribution is in
``docs/spark.md`` ("The k picks"). Pure numpy; the Spark passes that call it are in
:mod:`dpmo.spark.sampling`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..mechanisms import scaled_scores

__all__ = [
    "NOISE",
    "Round",
    "log_weights",
    "draw_noise",
    "batch_candidates",
    "picks_one_shot",
    "picks_by_round",
    "frame_ids",
]

#: The standard noise of each mechanism of :func:`dpmo.select` in its report-noisy-max form.
NOISE = {"exponential": "gumbel", "gumbel": "gumbel", "permute_and_flip": "exponential", "laplace": "laplace"}


class Round(NamedTuple):
    """Public settings of one round's noise: the score column, its epsilon and sensitivity, the ``top``
    the log-weights are taken relative to, and how many of the best noisy values a partition keeps.

    Examples
    --------
    >>> from dpmo.spark.noise import Round
    >>> Round(column=0, epsilon=0.5, sensitivity=1.0, top=9.0, keep=3).keep
    3
    """

    column: int
    epsilon: float
    sensitivity: float
    top: float
    keep: int


def frame_ids(ids: np.ndarray):
    """``ids`` ready to be a column of a pandas DataFrame handed back to Spark: numbers as they are, text as
    an object column (pandas 3 would infer its Arrow-backed ``str`` dtype, whose chunked arrays pyspark's
    Arrow conversion refuses).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.noise import frame_ids
    >>> str(frame_ids(np.array(["a", "b"], dtype=object)).dtype), frame_ids(np.arange(2)).dtype.kind
    ('object', 'i')
    """
    ids = np.asarray(ids)
    return ids if ids.dtype.kind in "biuf" else pd.Series(ids, dtype=object)


def log_weights(scores: np.ndarray, top: float, epsilon: float, sensitivity: float) -> np.ndarray:
    """``epsilon (u - top) / (2 sensitivity)`` formed as :func:`dpmo.select` forms them (``top`` >= every
    score: it plays the part of the maximum, so a batch gets the floats the whole vector would). O(n).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.noise import log_weights
    >>> log_weights(np.array([3.0, 1.0]), 5.0, 2.0, 1.0).tolist()  # 2 (u - 5) / (2 * 1)
    [-2.0, -4.0]
    """
    return scaled_scores(np.append(np.asarray(scores, dtype=np.float64), top), epsilon, sensitivity)[:-1]


def draw_noise(rng: np.random.Generator, kind: str, size: int) -> np.ndarray:
    """``size`` i.i.d. standard Gumbel, exponential or Laplace draws.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.noise import draw_noise
    >>> bool((draw_noise(np.random.default_rng(0), "exponential", (2, 3)) >= 0).all())
    True
    """
    if kind == "gumbel":
        return rng.gumbel(size=size)
    if kind == "exponential":
        return rng.standard_exponential(size=size)
    if kind == "laplace":
        return rng.laplace(size=size)
    raise ValueError(f"unknown noise {kind!r}")


def batch_candidates(
    ids: np.ndarray,
    scores: np.ndarray,
    rounds,
    noise: str,
    rng: np.random.Generator,
    trials: int = 1,
    exclude=None,
) -> pd.DataFrame:
    """The ``keep`` best noisy log-weights of every round and trial among these candidates.

    Parameters
    ----------
    ids : numpy.ndarray, shape (b,)
        Candidate ids.
    scores : numpy.ndarray, shape (R, b)
        Score columns.
    rounds : sequence of Round
        A round's ``top`` is a float, or one float per trial.
    noise : {"gumbel", "exponential", "laplace"}
    rng : numpy.random.Generator
    trials : int
        Independent repetitions (1 for a release; more for the distribution tests).
    exclude : sequence of collections, optional
        Per trial, the ids out of play (picked in earlier rounds).

    Returns
    -------
    pandas.DataFrame
        Columns ``trial``, ``round``, ``id``, ``z`` (candidates out of play never appear).
        O(trials * len(rounds) * b) time.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.spark.noise import Round, batch_candidates
    >>> ids, scores = np.array([10, 11, 12, 13]), np.array([[4.0, 3.0, 2.0, 1.0]])
    >>> rounds = [Round(0, 1.0, 1.0, 4.0, 1), Round(0, 1.0, 1.0, 4.0, 2)]
    >>> rows = batch_candidates(ids, scores, rounds, "gumbel", np.random.default_rng(0), trials=3)
    >>> rows.groupby("round").size().tolist()  # per trial, 1 candidate of round 0 and 2 of round 1
    [3, 6]
    """
    parts = []
    b = ids.size
    out = None
    if exclude is not None and any(len(x) for x in exclude):
        out = np.stack([np.isin(ids, np.asarray(list(x), dtype=ids.dtype)) for x in exclude])
    for j, r in enumerate(rounds):
        tops = np.broadcast_to(np.asarray(r.top, dtype=np.float64), (trials,))
        s = scores[r.column]
        if np.all(tops == tops[0]):
            logw = log_weights(s, float(tops[0]), r.epsilon, r.sensitivity)[None, :]
        else:
            logw = np.stack([log_weights(s, float(tp), r.epsilon, r.sensitivity) for tp in tops])
        z = draw_noise(rng, noise, (trials, b))
        z += logw  # in place: the same floats as logw + noise
        if out is not None:
            z[out] = -np.inf
        keep = min(r.keep, b)
        best = (
            np.argpartition(-z, keep - 1, axis=1)[:, :keep]
            if keep < b
            else np.tile(np.arange(b), (trials, 1))
        )
        zb = np.take_along_axis(z, best, axis=1).ravel()
        found = zb > -np.inf
        parts.append(
            pd.DataFrame(
                {
                    "trial": np.repeat(np.arange(trials), keep)[found],
                    "round": j,
                    "id": frame_ids(ids[best.ravel()][found]),
                    "z": zb[found],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def best_rows(rows: pd.DataFrame, keep_of_round) -> pd.DataFrame:
    """The ``keep_of_round[round]`` rows of largest ``z`` of every (trial, round).

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.spark.noise import best_rows
    >>> z = [0.5, 0.7, 0.1, 0.2]
    >>> rows = pd.DataFrame({"trial": 0, "round": [0, 0, 1, 1], "id": [1, 2, 1, 2], "z": z})
    >>> best_rows(rows, [1, 2])["id"].tolist()  # round 0 keeps its best, round 1 both
    [2, 2, 1]
    """
    if rows.empty:
        return rows
    rows = rows.sort_values(["trial", "round", "z"], ascending=[True, True, False], kind="stable")
    rank = rows.groupby(["trial", "round"], sort=False).cumcount().to_numpy()
    limit = np.asarray(keep_of_round)[rows["round"].to_numpy()]
    return rows[rank < limit]


def _by_trial(rows: pd.DataFrame, trials: int):
    """``(round, id, z)`` arrays of every trial, rows sorted by decreasing ``z`` within a trial."""
    rows = rows.sort_values(["trial", "z"], ascending=[True, False], kind="stable")
    t = rows["trial"].to_numpy()
    cuts = np.searchsorted(t, np.arange(1, trials))
    return zip(
        np.split(rows["round"].to_numpy(), cuts),
        np.split(rows["id"].to_numpy(), cuts),
        np.split(rows["z"].to_numpy(), cuts),
        strict=True,
    )


def _plain(x):
    return x.item() if hasattr(x, "item") else x


def picks_one_shot(rows: pd.DataFrame, k: int, trials: int = 1) -> list[list]:
    """Gumbel top-k: per trial, the ``k`` candidates of largest ``z`` (one round of candidates), largest
    first.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.spark.noise import picks_one_shot
    >>> rows = pd.DataFrame({"trial": 0, "round": 0, "id": [5, 6, 7], "z": [0.1, 0.9, 0.4]})
    >>> picks_one_shot(rows, 2)
    [[6, 7]]
    """
    return [[_plain(x) for x in ids[:k]] for _, ids, _ in _by_trial(rows, trials)]


def picks_by_round(rows: pd.DataFrame, k: int, trials: int = 1, chosen=None) -> list[list]:
    """Rounds without replacement: per trial, round ``j`` picks the candidate of largest ``z`` among its
    candidates not picked before (it has ``j + 1`` of them from every partition, so it always finds one).

    ``chosen`` (per trial, the picks of earlier passes) is extended in place and returned; ``rows`` may
    hold rounds ``0 .. k-1`` (one pass of ``"rounds"``) or a single round ``0`` (a ``"sequential"`` pass).

    Examples
    --------
    >>> import pandas as pd
    >>> from dpmo.spark.noise import picks_by_round
    >>> rows = pd.DataFrame({"trial": 0, "round": [0, 1, 1], "id": [5, 5, 6], "z": [0.3, 0.9, 0.2]})
    >>> picks_by_round(rows, 2)  # round 1's best, candidate 5, is taken: its next best
    [[5, 6]]
    """
    chosen = [[] for _ in range(trials)] if chosen is None else chosen
    for t, (rnd, ids, _) in enumerate(_by_trial(rows, trials)):
        mine = chosen[t]
        for j in range(k):
            taken = set(mine)
            for x in ids[rnd == j]:  # decreasing z: the first one not taken
                if _plain(x) not in taken:
                    mine.append(_plain(x))
                    break
    return chosen
