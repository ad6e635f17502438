"""Exact coins: heads with probability ``exp(-x) 2^L`` (data-dependent) or a public ``p``, by lazy comparison.

Every coin is ``1{U < a}`` for a uniform ``U`` in [0, 1) whose binary digits are drawn only as far as
needed: with the first ``B`` bits known, ``U`` lies in ``[V 2^-B, (V + 1) 2^-B)``, and the coin is decided
once that interval lies on one side of a *proven* enclosure of ``a``. Whatever ``U`` is, the answer is
``1{U < a}``, so the coin is Bernoulli(a) exactly (the lazy-uniform comparison of Devroye 1986, ch. 4, and
Karney 2016). Two first stages, both fixed work, and one exact finish:

* :func:`bernoulli_exp` (``a = exp(-x_r) 2^L_r`` from the data): 16 bits of ``U`` per coin, then 37 more
  for the few coins that need them in a padded second stage, against the float enclosure of
  :mod:`.enclosures`, for all coins at once; a coin is *unsure* after 53 bits with probability at most
  ``2^-38.5`` whatever ``x_r`` (the enclosure's width plus one step of ``U``).
* :func:`public_threshold` (``a`` public, e.g. a function of epsilon only): the exact integer
  ``t = floor(a 2^64)``, computed once; one 64-bit word ``w`` per coin decides ``w < t`` (heads) or
  ``w > t`` (tails), and is unsure only when ``w = t``: probability exactly ``2^-64`` whatever ``a``.
* :class:`LazyUniform` (:func:`resolve`), on the unsure event only: 64 more bits at a time against an
  enclosure (decimal, correctly rounded), until decided (with probability 1: ``a`` is irrational unless
  ``x = 0``).

Only the unsure event does more work than the fixed first stage; its probability does not depend on the
outcome of the coin by more than the stated bound, which is what ``docs/core.md`` ("Timing") accounts for.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .bits import RandomBits
from .enclosures import decimal_enclosure, exact_x, float_enclosure, float_x

__all__ = [
    "second_stage_slots",
    "Enclosure",
    "LazyUniform",
    "bernoulli_exp",
    "exp_enclosure",
    "public_threshold",
    "resolve",
    "tight",
]

_TWO53 = 2.0**53
_ONE_STAGE = 256  # up to this many coins, one stage of 53 bits
#: ``bits -> (lo, hi)``: rational bounds of a number ``a`` with ``hi - lo <= 2^-(bits - 8)``.
Enclosure = Callable[[int], tuple[Fraction, Fraction]]


def exp_enclosure(x: Fraction, L: int = 0) -> Enclosure:
    """Bounds of ``exp(-x) 2^L`` (``x`` rational >= 0, ``L <= x / ln 2``), from :func:`decimal_enclosure`.

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> lo, hi = exp_enclosure(Fraction(2))(80)
    >>> float(lo) <= math.exp(-2) <= float(hi)
    True
    """
    return lambda bits: decimal_enclosure(x, L, bits)


def tight(bounds: Callable[[int], tuple[Fraction, Fraction]]) -> Enclosure:
    """An :data:`Enclosure` from bounds ``bits -> (lo, hi)`` that may be wider: more bits until they are not.

    For bounds computed from enclosures of other numbers (their widths add up and may be amplified).

    Examples
    --------
    >>> from fractions import Fraction
    >>> lo, hi = tight(lambda bits: (Fraction(1, 3) - Fraction(1, bits), Fraction(1, 3)))(20)
    >>> hi - lo <= Fraction(1, 2**12)
    True
    """

    def enclose(bits: int) -> tuple[Fraction, Fraction]:
        more = bits
        while True:
            lo, hi = bounds(more)
            if hi - lo <= Fraction(1, 1 << (bits - 8)):
                return lo, hi
            more *= 2

    return enclose


class LazyUniform:
    """A uniform ``U`` in [0, 1) whose first ``b`` bits ``v`` are known; more are drawn when needed.

    :meth:`less_than` decides ``U < a`` exactly against an :data:`Enclosure` of ``a``, drawing 64 more bits
    at a time while ``U``'s interval ``[v 2^-b, (v + 1) 2^-b)`` meets the enclosure; the bits drawn are
    kept for later comparisons of the same ``U``. Ends with probability 1 when ``a`` is irrational.

    Examples
    --------
    >>> from fractions import Fraction
    >>> u = LazyUniform(0, 1, RandomBits(0))  # U < 1/2
    >>> u.less_than(exp_enclosure(Fraction(1, 10))), u.b  # e^-0.1 > 1/2: decided without more bits
    (True, 1)
    """

    def __init__(self, v: int, b: int, source: RandomBits):
        self.v, self.b, self.source = v, b, source

    def less_than(self, enclose: Enclosure) -> bool:
        """``1{U < a}`` for the ``a`` that ``enclose`` bounds."""
        while True:
            lo, hi = enclose(self.b + 16)
            if Fraction(self.v + 1, 1 << self.b) <= lo:
                return True
            if Fraction(self.v, 1 << self.b) >= hi:
                return False
            self.v = (self.v << 64) | self.source.getrandbits(64)
            self.b += 64


def resolve(enclose: Enclosure, v: int, b: int, source: RandomBits) -> bool:
    """Finish ``U < a`` given the first ``b`` bits ``v`` of ``U`` (one comparison of a :class:`LazyUniform`).

    Examples
    --------
    >>> from fractions import Fraction
    >>> resolve(exp_enclosure(Fraction(1, 10)), 0, 1, RandomBits(0))  # U < 1/2 < e^-0.1: heads
    True
    """
    return LazyUniform(v, b, source).less_than(enclose)


def public_threshold(enclose: Enclosure) -> int:
    """``t = floor(a 2^64)`` for an irrational public ``a`` in [0, 1), from enclosures of growing precision.

    A 64-bit word ``w`` then decides ``U < a`` for ``U`` in ``[w 2^-64, (w + 1) 2^-64)``: heads when
    ``w < t``, tails when ``w > t``, unsure only when ``w = t``. Its cost depends on ``a`` only.

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> t = public_threshold(exp_enclosure(Fraction(1)))
    >>> abs(t / 2**64 - math.exp(-1)) < 1e-15
    True
    """
    bits = 96
    while True:
        lo, hi = enclose(bits)
        t = int(lo * 2**64)
        if t == int(hi * 2**64):
            return t
        bits *= 2


@functools.lru_cache(maxsize=256)
def second_stage_slots(n: int) -> int:
    """Slots ``M`` of the second stage of :func:`bernoulli_exp` for ``n`` coins.

    A coin needs the second stage when its 16-bit cell meets the float enclosure (of width <= 2^-38.6),
    which at most two cells do: probability ``p <= 2^-15 + 2^-38.6 < 2^-14.99``. More than ``M`` of ``n``
    coins need it with probability at most
    ``(n p)^(M + 1) / (M + 1)!`` (a union bound over the sets of ``M + 1`` coins); ``M`` is the smallest
    with that bound <= 2^-64.

    Examples
    --------
    >>> second_stage_slots(2), second_stage_slots(65), second_stage_slots(37_700)
    (4, 6, 21)
    """
    log2_np = math.log2(n) - 14.99
    m = 1
    while (m + 1) * log2_np - math.lgamma(m + 2) / math.log(2) > -64:
        m += 1
    return m


def _finish_coin(heads, i, prefix, coins) -> None:
    """Decide coin ``i`` exactly from the first 53 bits ``prefix`` of its uniform (the rare event)."""
    scores, top, epsilon, sensitivity, levels, source = coins
    score = float(scores[i])
    if score == -np.inf:  # a removed candidate (see sample_exact): probability 0
        heads[i] = False
        return
    L = 0 if levels is None else int(levels[i])
    x = exact_x(score, top, epsilon, sensitivity)
    # x = 0: a = 2^L = 1 (L <= x / ln 2 = 0) > U
    heads[i] = x == 0 or resolve(exp_enclosure(x, L), prefix, 53, source)


def _decide_53(heads, idx, used, prefix, a_lo, a_hi, coins) -> None:
    """Coins ``idx[:used]`` (all of ``idx`` computed) from the first 53 bits ``prefix`` of their uniforms
    and their enclosures ``[a_lo, a_hi]``: sure when the 2^-53 cell is on one side, else exactly."""
    sure = prefix < np.floor(a_lo * _TWO53)  # V53 + 1 <= a_lo 2^53 (exact floats)
    unsure = ~sure & (prefix < a_hi * _TWO53)
    heads[idx[:used]] = sure[:used]
    for j in np.flatnonzero(unsure[:used]):  # 53 bits do not decide: probability <= 2^-38.5 per coin
        _finish_coin(heads, int(idx[j]), int(prefix[j]), coins)


def _second_stage(heads, idx, used, v16, coins) -> None:
    """37 more bits for the coins ``idx`` whose first 16 bits ``v16[idx]`` did not decide them.

    Their enclosure is recomputed (every step of it is entrywise: the same floats as in the first stage).
    """
    scores, top, epsilon, sensitivity, levels, source = coins
    lev = None if levels is None else levels[idx]
    a_lo, a_hi = float_enclosure(float_x(scores[idx], top, epsilon, sensitivity), lev)
    prefix = (v16[idx].astype(np.uint64) << np.uint64(37)) | (source.words(idx.size) >> np.uint64(27))
    _decide_53(heads, idx, used, prefix, a_lo, a_hi, coins)


def bernoulli_exp(
    scores: np.ndarray,
    top: float,
    epsilon: float | Fraction,
    sensitivity: float,
    source: RandomBits,
    x_float: np.ndarray | None = None,
    levels: np.ndarray | None = None,
) -> np.ndarray:
    """Independent exact coins, heads with probability ``exp(-x_r) 2^L_r``, for every entry of ``scores``.

    ``x_r = epsilon (top - scores_r) / (2 sensitivity)`` with ``top >= scores_r`` (a score of ``-inf`` is a
    coin of probability 0); ``levels`` (default 0) must satisfy ``0 <= L_r <= min(x_r / ln 2, 64)``;
    ``x_float``, when given, must be ``float_x(scores, top, epsilon, sensitivity)`` (it is overwritten).

    Fixed work. Up to 256 coins: 53 bits of every uniform (one word per coin) against the float enclosure
    of :mod:`.enclosures`. Beyond, two stages: the first 16 bits of every uniform (a quarter of a word per
    coin); the coins whose 16-bit cell meets the enclosure (probability < 2^-14.99 each) get 37 more bits
    in a second stage padded to :func:`second_stage_slots` ``(n)`` slots, the same work however many need
    it. More work only when more than that many coins need the second stage (probability <= 2^-64) or
    when 53 bits do not decide a coin (probability <= 2^-38.5 per coin, whatever the data): then
    :func:`resolve`. O(n) vectorised.

    Examples
    --------
    >>> import numpy as np
    >>> heads = bernoulli_exp(np.array([0.0, 0.0]), 0.0, 1.0, 1.0, RandomBits(1))  # x = 0: a = 1
    >>> heads.tolist()
    [True, True]
    """
    n = scores.size
    if x_float is None:
        x_float = float_x(scores, top, epsilon, sensitivity)
    a_lo, a_hi = float_enclosure(x_float, levels)  # x_float is overwritten
    coins = (scores, top, epsilon, sensitivity, levels, source)
    heads = np.zeros(n, dtype=bool)
    if n <= _ONE_STAGE:
        _decide_53(heads, np.arange(n), n, source.words(n) >> np.uint64(11), a_lo, a_hi, coins)
        return heads
    # first stage: U in [V 2^-16, (V + 1) 2^-16) for the first 16 bits V; heads for sure when
    # V + 1 <= a_lo 2^16, i.e. V < floor(a_lo 2^16); tails for sure when V >= a_hi 2^16 (exact floats)
    v16 = source.words(-(-n // 4)).view(np.uint16)[:n]
    np.multiply(a_lo, 65536.0, out=a_lo)
    np.floor(a_lo, out=a_lo)
    np.less(v16, a_lo, out=heads)
    np.multiply(a_hi, 65536.0, out=a_hi)
    second = np.flatnonzero((v16 < a_hi) & ~heads)
    # second stage, padded to m slots: 37 more bits, V53 = V 2^37 + W, the same test at 2^-53
    m = second_stage_slots(n)
    slots = np.zeros(m, dtype=np.intp)
    used = min(second.size, m)
    slots[:used] = second[:m]
    _second_stage(heads, slots, used, v16, coins)
    if second.size > m:  # more than m coins in the second stage: probability <= 2^-64
        _second_stage(heads, second[m:], second.size - m, v16, coins)
    return heads
