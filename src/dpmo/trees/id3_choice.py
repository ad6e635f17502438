"""The private choice of a split attribute in the ID3 baselines: its scores and sensitivity.

One node of DiffP-ID3 (Friedman and Schuster, KDD 2010) or LocalDiffPID3 (Farias et al., local
dampening) chooses its split attribute with ``select(scores, eps, sensitivity)``;
:func:`split_choice_scores` gives those scores and that sensitivity from the node's class counts, with the
criterion's global sensitivity (DiffP-ID3) or by local dampening of the criterion (LocalDiffPID3). The
algorithm and the budget are described in :mod:`dpmo.trees.id3`, the criteria and their sensitivities in
:mod:`dpmo.trees.split_sensitivity`.
"""

from __future__ import annotations

import numpy as np

from ..dampening import dampen
from .split_sensitivity import (
    criterion_global_sensitivity,
    info_gain_global_sensitivity,
    node_local_sensitivity,
    split_scores,
)

__all__ = ["split_choice_scores", "clip_class_counts"]


def clip_class_counts(n0, n1, max_records: int) -> tuple[np.ndarray, np.ndarray]:
    """Each (value, class) count clipped at ``max_records // 2``: the information gain's bound for any table.

    The information-gain sensitivity ``log2(N + 1) + 1 / ln 2`` (Friedman and Schuster 2010, section 4.2)
    holds whenever every value's record count ``T_v = n_v0 + n_v1`` is at most ``N``: adding or removing one
    record changes one cell ``n_vc`` by one, and the criterion by ``d(n_vc) - d(T_v)`` with
    ``0 <= d(n_vc) <= d(T_v) <= d(N)`` (``d`` increasing, :mod:`dpmo.trees.split_sensitivity`). Clipping
    every cell at the public ``m = max_records // 2`` is a public transformation of the counts:

    * after it ``T_v <= 2 m <= max_records`` on **every** table, whatever its size;
    * ``min(., m)`` moves by at most one when its argument moves by one, and only the record's own cell
      moves: the clipped counts of neighbouring tables are equal or neighbouring count tables (one cell
      differs by one).

    So the criterion computed on the clipped counts changes by at most ``d(max_records)`` between
    neighbouring tables (and its local sensitivity at distance ``t``, computed on the clipped counts, is
    admissible for the composition, as clipping maps ``t``-step paths to at most ``t``-step paths): the
    refusal "more than ``max_records`` rows", which depended on the private size, is replaced by this
    clipping. Tables whose cells are all at most ``m`` (e.g. any table of at most ``max_records // 2``
    records) are unchanged. O(cells).

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees.id3_choice import clip_class_counts
    >>> c0, c1 = clip_class_counts(np.array([3.0, 70.0]), np.array([60.0, 1.0]), max_records=100)
    >>> c0.tolist(), c1.tolist()
    ([3.0, 50.0], [50.0, 1.0])
    >>> bool(((c0 + c1) <= 100).all())  # every value's total within the public bound
    True
    """
    m = float(int(max_records) // 2)
    return np.minimum(np.asarray(n0, dtype=np.float64), m), np.minimum(np.asarray(n1, dtype=np.float64), m)


def split_choice_scores(
    n0,
    n1,
    groups,
    n_groups: int,
    *,
    criterion: str = "info_gain",
    local: bool = False,
    max_records: int | None = 100_000,
    noisy_count: float | None = None,
    nonnegative: bool = True,
    shared: bool = True,
) -> tuple[np.ndarray, float]:
    """Scores and sensitivity of one private choice of split attribute, for :func:`dpmo.select`.

    The attribute choice of a node is ``select(scores, eps, sensitivity)``; its exact distribution is
    ``dpmo.probabilities(scores, eps, sensitivity, mechanism=...)`` (used by the privacy audit).

    Parameters
    ----------
    n0, n1, groups, n_groups
        The node's class counts per (attribute, value) pair and the attribute of each pair, as in
        :func:`dpmo.trees.split_sensitivity.split_scores` (every value of the public domain included).
    criterion : {"info_gain", "gini", "max"}
    local : bool
        False (DiffP-ID3): the criterion with its global sensitivity. True (LocalDiffPID3): the dampened
        criterion ``D`` (:func:`dpmo.dampen` with the exact local sensitivity at distance t,
        :func:`~dpmo.trees.split_sensitivity.node_local_sensitivity`, capped at the global sensitivity
        when there is one) with sensitivity 1.
    max_records : int or None
        Public bound on the number of records (information gain only). None: DiffP-ID3 uses
        ``noisy_count`` as Friedman and Schuster do (not a worst-case bound), LocalDiffPID3 no cap.
    noisy_count : float, optional
        The node's released noisy record count (needed only for info gain, DiffP-ID3, ``max_records=None``).
    nonnegative : bool, default True
        LocalDiffPID3 only: dampen the non-negative form of the criterion, ``u + c |T|`` (``c`` the
        largest impurity per record: 1 bit for info gain, 1/2 for Gini; the same for every attribute, so
        the attributes keep their order), with its own exact local sensitivity. False dampens Friedman and
        Schuster's ``u <= 0`` as it is; local dampening is odd in the score, so negative scores favour the
        *more* sensitive attributes (see :mod:`dpmo.trees.id3`). DiffP-ID3 ignores it (the exponential
        mechanism does not change when every score moves by the same amount).
    shared : bool, default True
        LocalDiffPID3 only: dampen every attribute with the node's shared curve, the elementwise maximum of
        the attributes' exact local sensitivities at distance t (admissible; the dampened scores then keep
        the order of the scores). False: each attribute with its own curve (Farias et al.'s local
        dampening as defined), which does not keep the order.

    Returns
    -------
    scores : numpy.ndarray of float64, shape (n_groups,)
    sensitivity : float

    Notes
    -----
    O(m) for DiffP-ID3; for LocalDiffPID3 O(m log m) plus the dampening loop, O(c * steps) for the c
    undominated cells and the number of t-steps needed to bracket every score.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import split_choice_scores
    >>> # two binary attributes; pairs (attribute, value): (0, 0), (0, 1), (1, 0), (1, 1)
    >>> n0 = np.array([10, 0, 5, 5])  # negative records per pair: attribute 0 separates the classes
    >>> n1 = np.array([0, 10, 5, 5])  # positive records per pair: attribute 1 says nothing
    >>> scores, sensitivity = split_choice_scores(n0, n1, np.array([0, 0, 1, 1]), 2)
    >>> bool(scores[0] > scores[1]), sensitivity > 0
    (True, True)
    """
    info = criterion == "info_gain"
    # LocalDiffPID3 dampens the non-negative form: the plain criterion is not needed then
    scores = split_scores(n0, n1, groups, n_groups, criterion=criterion, nonnegative=local and nonnegative)
    if not local:
        if info and max_records is None:
            if noisy_count is None:
                raise ValueError("noisy_count is required for info_gain with max_records=None")
            return scores, info_gain_global_sensitivity(max(float(noisy_count), 1.0))
        return scores, criterion_global_sensitivity(criterion, max_records)
    cap = (
        None
        if (info and max_records is None)
        else criterion_global_sensitivity(criterion, max_records, nonnegative=nonnegative)
    )
    delta = node_local_sensitivity(
        n0, n1, groups, n_groups, criterion=criterion, nonnegative=nonnegative, shared=shared
    )
    return dampen(scores, delta, global_sensitivity=cap, name=f"{criterion} criterion"), 1.0
