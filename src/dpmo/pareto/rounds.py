"""The rounds of PrivPareto: one round's scores, their cache and the round driver.

:func:`round_scores` gives the scores and sensitivity one round of PrivPareto hands to
:func:`dpmo.select` (the paper's Definitions "Global PrivPareto Mechanism" and "Local PrivPareto
Mechanism"); :class:`ParetoRounds` recomputes them on the candidates not yet chosen, round after round, on
a :class:`dpmo.pareto.state.ParetoState`; :class:`RoundCache` keeps them for later calls on the same
data. The public entry point is :func:`dpmo.priv_pareto`, which registers these rounds as
``approach="pareto"`` of :func:`dpmo.selection.select_multiobjective`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ..dampening import dampen_over
from ..selection import Rounds
from ..sensitivity import Objective
from .small import RunningSums, small_path_applies, small_round_scores
from .state import ParetoState

__all__ = ["round_scores", "RoundCache", "ParetoRounds"]

#: After this many removals, priv_pareto starts a fresh state on the remaining candidates (the corrections
#: cost O(removed) per candidate and step).
_REBUILD_AFTER = 32
#: priv_pareto lets the dampening loop ask for blocks of distances when at most this many candidates remain.
_DAMPEN_BLOCKS_MAX_N = 1 << 13


def round_scores(state: ParetoState, remaining: np.ndarray, sensitivity: str) -> tuple[np.ndarray, float]:
    n_r = remaining.size
    ps = state.scores(remaining, np.float64)  # integers, exact in float64
    if sensitivity == "global":
        return ps, float(n_r - 1)
    # Blocks of distances pay when a step is cheap (few candidates): they save the per-step overhead of
    # the dampening loop. With many candidates every distance costs a pass over all of them, and the
    # loop's doubling blocks would compute up to twice the distances it needs (sizes only, never values).
    blocks = n_r <= _DAMPEN_BLOCKS_MAX_N
    # ps is this round's own array: dampened in place (no second array of n values)
    local = state.local(remaining, blocks)
    D = dampen_over(ps, local, global_sensitivity=float(n_r - 1), name="pareto score")
    return D, 1.0


class RoundCache:
    """Scores of PrivPareto rounds for one fixed list of objectives, kept for later calls (internal).

    A round's scores (``(D, 1)`` or ``(PS, n_round - 1)``) are a deterministic function of the objectives
    and of the candidates already chosen, so an application that runs :func:`priv_pareto` many times on
    the same data (the experiments of :mod:`dpmo.graphs`) can keep them: the key is the sensitivity mode
    and the chosen candidates *in order*, and the stored scores are the very floats the round would
    compute again (the state is rebuilt exactly as without a cache: see :class:`ParetoRounds`). Caching
    changes the running time only, never an output or its distribution. Least recently used entries are
    dropped once the scores held exceed ``max_bytes``. Thread-safe.
    """

    def __init__(self, max_bytes: int = 64 << 20):
        self.max_bytes = int(max_bytes)
        self._entries: OrderedDict[tuple, tuple[np.ndarray, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._template: ParetoState | None = None

    def state(self) -> ParetoState | None:
        """A fresh counting state on all the candidates with the counts of an earlier call, or None."""
        with self._lock:
            return None if self._template is None else self._template.fork()

    def keep_state(self, state: ParetoState) -> None:
        """Remember the counts of ``state`` (built on all the candidates, nothing removed yet)."""
        with self._lock:
            if self._template is None:
                self._template = state.fork()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple):
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def put(self, key: tuple, scores: np.ndarray, sens: float) -> None:
        if np.asarray(scores).size * 8 > self.max_bytes:  # checked before the copy
            return
        scores = np.array(scores, dtype=np.float64)
        scores.setflags(write=False)
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (scores, float(sens))
            self._bytes += scores.nbytes
            while self._bytes > self.max_bytes:
                _, (old, _) = self._entries.popitem(last=False)
                self._bytes -= old.nbytes


class ParetoRounds(Rounds):
    """The rounds of PrivPareto: the Pareto score (and ``delta^PS``) recomputed on the remaining candidates.

    The state that counts dominance is built at rounds 0, R, 2R, ... (R = ``_REBUILD_AFTER``) on the
    candidates remaining then, and told about every later pick; with a :class:`RoundCache`, a round the
    cache answers needs no state, and the state is built (with the same removals) only at the first round
    the cache cannot answer, so the scores are the very floats computed without a cache.
    """

    def __init__(self, objs: list[Objective], sensitivity: str, cache: RoundCache | None):
        self.objs = objs
        self.sensitivity = sensitivity
        self.cache = cache
        self.n = objs[0].n
        self.state: ParetoState | None = None
        self.state_round = -1
        # the original indices the state was built on; None: every candidate (a position in the state is
        # then the original index itself)
        self.base: np.ndarray | None = None
        self.score_name = "dampened Pareto score" if sensitivity == "local" else "Pareto score"
        # few candidates: every round in one compiled pass (dpmo.pareto.small; the same floats)
        self.sums = RunningSums(objs) if small_path_applies(objs, sensitivity) else None

    def scores(self, chosen, remaining):
        r = len(chosen)
        r0 = r - r % _REBUILD_AFTER  # the round whose candidates the state is built on
        if self.state_round != r0:
            self.state = None
        cache = self.cache
        key = (self.sensitivity, tuple(chosen))
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            return hit
        if self.sums is not None:
            got = small_round_scores(self.sums, remaining, self.sensitivity)
            if got is not None:
                if cache is not None:
                    cache.put(key, *got)
                return got
        if self.state is None:
            base = np.delete(np.arange(self.n, dtype=np.intp), chosen[:r0]) if r0 else None
            state = cache.state() if cache is not None and r0 == 0 else None
            if state is None:
                sub = self.objs if base is None else [o.take(base) for o in self.objs]
                state = ParetoState(sub, keep_all=cache is not None and r0 == 0)
            self.state, self.state_round, self.base = state, r0, base
            for c in chosen[r0:]:
                state.remove(self._position(c))
        # positions of the remaining candidates in the state (the identity while it holds every candidate:
        # no copy, no search)
        local_idx = remaining if self.base is None else np.searchsorted(self.base, remaining)
        scores, sens = round_scores(self.state, local_idx, self.sensitivity)
        if cache is not None:
            cache.put(key, scores, sens)
            if r == 0:
                cache.keep_state(self.state)
        return scores, sens

    def _position(self, candidate: int) -> int:
        """Position of an original index among the candidates the state was built on."""
        return int(candidate) if self.base is None else int(np.searchsorted(self.base, candidate))

    def chosen(self, candidate: int) -> None:
        if self.state is not None:
            self.state.remove(self._position(candidate))
