"""Exact exponential mechanism and permute-and-flip, each round a fixed amount of work.

**Permute-and-flip** (McKenna and Sheldon, NeurIPS 2020): visit the candidates in a uniformly random
order and stop at the first ``r`` whose coin, heads with probability ``exp(-x_r)``, comes up heads. The
order is independent of the coins and a coin flipped after the stop changes nothing, so the output is the
same as: flip *every* coin, then return a uniformly random candidate among those that came up heads (the
first of them in a uniform order is uniform among them). The best candidate's coin (``x = 0``) always
comes up heads. One round: ``n`` coins (:func:`dpmo.mechanisms.exact.coins.bernoulli_exp`), a uniform
index below the number of heads (:meth:`RandomBits.below`, one padded batch) and a cumulative count: the
same O(n) work whatever the scores and the outcome.

**Exponential mechanism** (McSherry and Talwar 2007): ``P(r) ~ exp(-x_r)``, by rejection sampling from a
dyadic envelope. Each candidate gets a level ``L_r = min(floor(x_r / ln 2), 32)`` up to rounding (always
``L_r <= x_r / ln 2``, so ``exp(-x_r) 2^L_r <= 1``) and the integer weight ``w_r = 2^(32 - L_r)``. A trial
draws a 64-bit word ``w``, keeps it when ``w < floor(2^64 / W) W`` (``W = sum_r w_r``; then ``w mod W`` is
uniform on ``[0, W)``), proposes the ``r`` whose weight interval holds ``w mod W`` (probability
``w_r / W``) and accepts with probability ``exp(-x_r) 2^L_r``: an accepted trial is ``r`` with probability
proportional to ``2^-L_r exp(-x_r) 2^L_r = exp(-x_r)``, exactly (rejection sampling, e.g. Devroye 1986,
ch. 2). Each trial succeeds with probability at least ``p_min = (1 - n 2^-32) / (2 + 2^-29 + n 2^-32)``
(0.49999 at n = 37,700; see :func:`trials`), whatever the scores. A round draws ``T = trials(n)`` trials
at once (65 at n = 37,700), vectorised, and returns the first success: the first success among i.i.d.
trials has the target law, and drawing trials after it changes nothing. All ``T`` fail with probability
``(1 - p_min)^T <= 2^-64``, the only case in which another batch is drawn. The weight interval is found by
:func:`rank`, a two-level fixed-work search (no binary search, whose steps depend on the position).
One round is O(n) vectorised work plus O(T sqrt(n)).

``k > 1`` picks are k rounds without replacement, each an exact round on the remaining candidates with
``x`` taken relative to the best remaining one. The candidates picked stay in the arrays with score
``-inf`` (``x = inf``: a coin of probability 0 and an envelope weight of 0), so that every round works on
arrays of the same size ``n``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from .bits import RandomBits, first_true
from .coins import bernoulli_exp
from .enclosures import LOG2E_LOW, float_x

__all__ = ["EXACT_MECHANISMS", "sample_exact", "trials", "rank"]

#: ``mechanism`` names of :func:`dpmo.select` that have an exact sampler, and which one.
EXACT_MECHANISMS = {
    "exponential": "exponential",
    "gumbel": "exponential",  # report-noisy-max with Gumbel noise is the exponential mechanism
    "permute_and_flip": "permute_and_flip",  # and with exponential noise, permute-and-flip
}

_SCALE = 32  # weights 2^(32 - L): the capped levels and the rejected words each cost <= n 2^-32
_MAX_CANDIDATES = 2**31


@functools.lru_cache(maxsize=256)
def trials(n: int) -> int:
    """Trials per round of the exact exponential mechanism on ``n`` candidates: all fail w.p. <= 2^-64.

    Examples
    --------
    >>> trials(2), trials(37_700)
    (65, 65)
    """
    slack = n * 2.0**-32
    p_min = (1.0 - slack) / (2.0 + 2.0**-29 + slack) * (1.0 - 2.0**-40)  # rounded down
    return math.ceil(64.0 / -math.log2(1.0 - p_min))


def rank(cum: np.ndarray, v: np.ndarray) -> np.ndarray:
    """For each ``v_t < cum[-1]``, the number of entries of the non-decreasing ``cum`` that are ``<= v_t``.

    Fixed work: up to 256 entries, every ``v_t`` is compared with every entry; beyond, the entries are cut
    into blocks of ``b = ceil(sqrt(n))``, every ``v_t`` is compared with every block's first entry, then
    with every entry of its block (the last block padded with the last entry, which is above every
    ``v_t``). O(len(v) min(n, sqrt(n))).

    Examples
    --------
    >>> import numpy as np
    >>> cum = np.array([2, 5, 5, 9], dtype=np.uint64)
    >>> rank(cum, np.array([0, 2, 5, 8], dtype=np.uint64)).tolist()
    [0, 1, 3, 3]
    """
    n = cum.size
    if n <= 256:  # one comparison of every v_t with every entry
        return np.count_nonzero(cum[None, :] <= v[:, None], axis=1)
    b = math.isqrt(n - 1) + 1
    block = np.count_nonzero(cum[::b][None, :] <= v[:, None], axis=1) - 1
    np.maximum(block, 0, out=block)
    idx = np.minimum(block[:, None] * b + np.arange(b), n - 1)
    return block * b + np.count_nonzero(cum[idx] <= v[:, None], axis=1)


def _round_permute_and_flip(scores: np.ndarray, epsilon, sensitivity: float, source: RandomBits) -> int:
    """One exact permute-and-flip pick: all coins at once, then a uniform pick among the heads. O(n)."""
    top = float(scores.max())
    heads = bernoulli_exp(scores, top, epsilon, sensitivity, source)
    u = source.below(int(np.count_nonzero(heads)))
    return int(np.count_nonzero(np.cumsum(heads, dtype=np.int32) <= u))  # the (u + 1)-th head (n < 2^31)


def _round_exponential(scores: np.ndarray, epsilon, sensitivity: float, source: RandomBits) -> int:
    """One exact exponential-mechanism pick: ``trials(n)`` rejection trials from the dyadic envelope."""
    n = scores.size
    top = float(scores.max())
    x_float = float_x(scores, top, epsilon, sensitivity)
    # the weight exponent 32 - L_r, L_r = floor(min(x_float / ln 2 from below, 32)): when t >= 1, x >= 0.68
    # and x_float <= x (1 + 2^-49.9), inside the margin 2^-40 of LOG2E_LOW; when t < 1, L_r = 0
    shift = x_float * LOG2E_LOW
    np.minimum(shift, _SCALE, out=shift)
    np.floor(shift, out=shift)
    np.subtract(_SCALE, shift, out=shift)
    cum = shift.astype(np.uint64)
    np.left_shift(np.uint64(1), cum, out=cum)  # integer weights 2^(32 - L_r)
    np.copyto(cum, np.uint64(0), where=scores == -np.inf)  # removed candidates: weight 0
    np.cumsum(cum, out=cum)  # <= n 2^32 < 2^63
    total = int(cum[-1])
    keep_below = np.uint64((2**64 // total) * total - 1)  # words <= this: w mod total is uniform
    count = trials(n)
    while True:
        w = source.words(count)
        r = rank(cum, w % np.uint64(total))
        levels = (_SCALE - shift[r]).astype(np.int64)
        coins = bernoulli_exp(scores[r], top, epsilon, sensitivity, source, x_float[r], levels)
        i = first_true((w <= keep_below) & coins)
        if i < count:  # all trials fail with probability <= 2^-64
            return int(r[i])


_ROUNDS = {"exponential": _round_exponential, "permute_and_flip": _round_permute_and_flip}


def sample_exact(
    scores: np.ndarray, epsilon: float | Fraction, sensitivity: float, k: int, rng, mechanism: str
) -> np.ndarray:
    """k exact picks without replacement, each a round of ``mechanism`` with budget ``epsilon``.

    ``mechanism`` is a key of :data:`EXACT_MECHANISMS`; ``rng`` as in :class:`RandomBits` (or one);
    ``epsilon`` a float or an exact :class:`fractions.Fraction` (the share recorded in the budget).

    Notes
    -----
    Time: the same sequence of vectorised operations on arrays whose sizes depend on ``n`` and ``k`` only,
    whatever the scores and the picks; more work only on events of probability at most ``2^-64`` (a
    padded batch that all fails) plus ``2^-38.5`` per coin of the round (an unsure coin): ``n`` coins per
    round for permute-and-flip, ``trials(n)`` for the exponential mechanism. O(k n) vectorised work
    (``k`` rounds on arrays of size ``n``).
    Fewer than 2^31 candidates.

    Examples
    --------
    >>> import numpy as np
    >>> picks = sample_exact(np.array([0.0, 3.0, 1.0]), 1.0, 1.0, 2, 0, "exponential")
    >>> picks.shape, len(set(picks.tolist()))
    ((2,), 2)
    """
    if scores.size >= _MAX_CANDIDATES:
        raise ValueError(f"exact sampling takes fewer than 2^31 candidates, got {scores.size}")
    one_round = _ROUNDS[EXACT_MECHANISMS[mechanism]]
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    work = np.array(scores, dtype=np.float64)  # a pick becomes -inf: probability 0 in later rounds
    out = np.empty(k, dtype=np.intp)
    for i in range(k):
        out[i] = one_round(work, epsilon, sensitivity, source)
        work[out[i]] = -np.inf
    return out
