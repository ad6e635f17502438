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

import numba
import numpy as np

from ..._kernel_args import kernel_input
from .bits import RandomBits, first_true
from .coins import bernoulli_exp
from .enclosures import LOG2E_LOW, float_x, ordinary_ratio

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
    cum = envelope_weights(scores, top, epsilon, sensitivity)  # running sums of the integer weights
    total = int(cum[-1])
    keep_below = np.uint64((2**64 // total) * total - 1)  # words <= this: w mod total is uniform
    count = trials(n)
    while True:
        w = source.words(count)
        r = rank(cum, w % np.uint64(total))
        proposed = scores[r]
        x_r = float_x(proposed, top, epsilon, sensitivity)
        levels = (_SCALE - _shift(x_r.copy())).astype(np.int64)
        coins = bernoulli_exp(proposed, top, epsilon, sensitivity, source, x_r, levels)
        i = first_true((w <= keep_below) & coins)
        if i < count:  # all trials fail with probability <= 2^-64
            return int(r[i])


_CHUNK = 1 << 16


def envelope_weights(scores: np.ndarray, top: float, epsilon, sensitivity: float) -> np.ndarray:
    """Running sums (uint64) of the integer weights ``w_r = 2^(32 - L_r)`` of the exact exponential
    mechanism's envelope (module notes), 0 for a removed candidate (score ``-inf``).

    ``L_r`` comes from ``x_float`` (:func:`dpmo.mechanisms.exact.enclosures.float_x`) as in
    :func:`_shift`. For every ordinary budget (``epsilon / (2 sensitivity)`` in ``[2^-1000, 2^1000]``) one
    compiled pass with the same floating-point operations in the same order as the vectorised form
    (``tests/test_exact.py`` compares them bit for bit) writes the sums only; otherwise the vectorised
    form, in one array. Either way the same work whatever the scores. O(n).
    """
    c = ordinary_ratio(epsilon, sensitivity)
    if c is not None:
        cum = np.empty(scores.size, dtype=np.uint64)
        _envelope_kernel(kernel_input(scores, np.float64), float(top), c, cum)  # one compiled signature
        return cum
    return _envelope_vectorised(scores, top, epsilon, sensitivity)


def _envelope_vectorised(scores: np.ndarray, top: float, epsilon, sensitivity: float) -> np.ndarray:
    """:func:`envelope_weights` as numpy operations: x, then the exponent, then the integer weights, in
    place in one array of n values."""
    n = scores.size
    work = _shift(float_x(scores, top, epsilon, sensitivity))
    cum = work.view(np.uint64)
    for lo in range(0, n, _CHUNK):  # exponents (small integers) to uint64, over the same memory
        cum[lo : lo + _CHUNK] = work[lo : lo + _CHUNK].astype(np.uint64)
    np.left_shift(np.uint64(1), cum, out=cum)  # integer weights 2^(32 - L_r)
    np.copyto(cum, np.uint64(0), where=scores == -np.inf)  # removed candidates: weight 0
    return np.cumsum(cum, out=cum)  # <= n 2^32 < 2^63


_SCALE_F = float(_SCALE)
_LOG2E_LOW = LOG2E_LOW
#: Cap of ``x`` before ``x * LOG2E_LOW`` (see :func:`_shift`): no exponent changes, no product overflows.
_X_CAP = 2.0 * _SCALE_F


@numba.njit(cache=True, nogil=True)
def _envelope_kernel(scores, top, c, cum):  # pragma: no cover - compiled
    """One pass of :func:`_envelope_vectorised` for an ordinary ratio ``c``: ``x = (top - u) c`` (as
    :func:`float_x`), ``32 - floor(min(x LOG2E_LOW, 32))`` (as :func:`_shift`), ``1 << that``, times 0 or
    1 (removed or not, no branch), summed."""
    one = np.uint64(1)
    acc = np.uint64(0)
    for i in range(scores.size):
        s = scores[i]
        x = (top - s) * c
        if not x <= _X_CAP:  # np.minimum(x, _X_CAP) (as _shift)
            x = _X_CAP
        e = x * _LOG2E_LOW
        if not e <= _SCALE_F:  # np.minimum(e, 32) (e is never NaN: top is finite, c > 0)
            e = _SCALE_F
        e = _SCALE_F - np.floor(e)
        acc += (one << np.uint64(e)) * np.uint64(s != -np.inf)
        cum[i] = acc


def _shift(x: np.ndarray) -> np.ndarray:
    """The weight exponents ``32 - L_r`` of :func:`_round_exponential`, in place over ``x`` (x_float).

    ``L_r = floor(min(x_float / ln 2 from below, 32))``: when ``t >= 1``, ``x >= 0.68`` and ``x_float <= x
    (1 + 2^-49.9)``, inside the margin ``2^-40`` of ``LOG2E_LOW``; when ``t < 1``, ``L_r = 0``.

    ``x`` is first capped at ``2 x 32`` (``x LOG2E_LOW >= 32`` already from ``x >= 22.2``, so every exponent
    is unchanged): a finite ``x_float`` above ``1.2e308`` would otherwise overflow in the product, and the
    overflow would raise a RuntimeWarning whose presence depends on the scores."""
    np.minimum(x, _X_CAP, out=x)
    np.multiply(x, LOG2E_LOW, out=x)
    np.minimum(x, _SCALE, out=x)
    np.floor(x, out=x)
    return np.subtract(_SCALE, x, out=x)


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
    work = np.asarray(scores, dtype=np.float64)
    out = np.empty(k, dtype=np.intp)
    for i in range(k):
        out[i] = one_round(work, epsilon, sensitivity, source)
        if i + 1 < k:  # a pick becomes -inf: probability 0 in later rounds (in a copy, made once)
            if i == 0:
                work = np.array(work)
            work[out[i]] = -np.inf
    return out
