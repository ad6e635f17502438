"""Exact samplers: the exponential mechanism and permute-and-flip with no floating-point error.

Floating-point samplers of DP mechanisms can leak (Mironov, CCS 2012, for the Laplace mechanism;
Ilvento, CCS 2020, for the exponential mechanism): the set of outputs a float sampler can produce, and
their probabilities, are not those of the mechanism that was proved private. The samplers here produce
*exactly* the distribution of the mechanism on the inputs as given:

* every input float (score, epsilon, sensitivity) is read as the exact rational it denotes (floats are
  dyadic rationals), so ``x_r = epsilon * (max u - u_r) / (2 Delta u)`` is an exact rational >= 0;
* the only randomness is a stream of uniform random bits: from the operating system's secure source
  (:mod:`secrets`) when ``rng`` is None; from a numpy generator when an int seed or a Generator is given,
  which is reproducible and meant for tests only (a seeded pseudo-random generator is not a secure source).

**Exact Bernoulli(a) by lazy comparison.** Every random decision is "heads with probability ``a``" for
an ``a = exp(-x) 2^L`` in [0, 1] (x rational, L an integer). It is decided as ``U < a`` for a uniform
``U`` in [0, 1) whose binary digits are drawn only as far as needed: with the first ``B`` bits known,
``U`` lies in ``[V 2^-B, (V + 1) 2^-B)``, and the decision is taken once that interval lies on one side
of a *proven* enclosure ``[a_lo, a_hi]`` of ``a``. Whatever ``U`` is, the answer is ``1{U < a}``, so the
decision is Bernoulli(a) exactly (the lazy-uniform comparison of Devroye 1986, ch. 4, and Karney 2016,
"Sampling exactly from the normal distribution", ACM TOMS). The enclosures are

1. with 53 bits of ``U``, in float64 for all candidates at once: IEEE 754 rounds ``+ - * /`` correctly, so
   the float value of ``x`` is within a relative ``2^-50`` (plus ``2^-1070``) of ``x`` (see
   :func:`_float_enclosure`), and ``exp`` is taken with a relative margin of ``2^-40`` (any libm is
   within a few ulps, i.e. ~``2^-52``). Only when ``U``'s interval meets ``[a_lo, a_hi]``, which has
   probability about ``2^-40 (1 + x)``, does the decision go on to
2. 64 more bits at a time with :mod:`decimal`: ``x`` rounded down and up at ``B + 16`` bits of precision,
   and :meth:`decimal.Context.exp`, which Python documents as correctly rounded (half-even), widened by two
   units in the last place on each side. This loop ends with probability 1 (``a`` is irrational unless
   ``x = 0``, where ``a = 1`` is decided at once).

The Bernoulli(exp(-x)) sampler of Canonne, Kamath and Steinke (NeurIPS 2020, "The Discrete Gaussian for
Differential Privacy", Algorithm 1), used by OpenDP, is another exact way to get these coins; the lazy
comparison is used here because its first stage is one vectorised float test for all candidates.

**Permute-and-flip** (McKenna and Sheldon, NeurIPS 2020): visit the candidates in a uniformly random
order and stop at the first ``r`` whose coin, heads with probability ``exp(-x_r)``, comes up heads. The
order is independent of the coins and a coin flipped after the stop changes nothing, so the output is the
same as: flip *every* coin, then return a uniformly random candidate among those that came up heads (the
first of them in a uniform order is uniform among them). The best candidate's coin (``x = 0``) always
comes up heads. One round is O(n) vectorised work plus O(1) expected exact work.

**Exponential mechanism** (McSherry and Talwar 2007): ``P(r) ~ exp(-x_r)``, by rejection sampling from a
dyadic envelope. Each candidate gets a level ``L_r``, an integer with ``L_r <= x_r / ln 2`` (so
``exp(-x_r) <= 2^-L_r``), ``L_r = floor(x_r / ln 2)`` up to rounding, capped at
``L_max = 64 + bit_length(n)``. Propose ``r`` with probability ``2^-L_r / sum_s 2^-L_s`` (exact integer
weights: a level ``j`` with probability ``n_j 2^(L_max - j) / sum``, then a uniform member of it) and
accept with probability ``exp(-x_r) 2^L_r <= 1``; the accepted ``r`` has probability proportional to
``exp(-x_r)`` (rejection sampling, e.g. Devroye 1986, ch. 2). Each proposal is accepted with
probability at least about 1/2 (uncapped levels lose at most a factor 2; the capped ones weigh at most
``2^-64`` in all), so one round is O(n) vectorised work plus O(1) expected proposals.

``k > 1`` picks are k rounds without replacement, each an exact round on the remaining candidates with
``x`` taken relative to the best remaining one.
"""

from __future__ import annotations

import decimal
import secrets
from fractions import Fraction

import numpy as np

__all__ = ["RandomBits", "sample_exact", "sample_discrete_laplace", "random_permutation", "EXACT_MECHANISMS"]

#: ``mechanism`` names of :func:`dpmo.select` that have an exact sampler, and which one.
EXACT_MECHANISMS = {
    "exponential": "exponential",
    "gumbel": "exponential",  # report-noisy-max with Gumbel noise is the exponential mechanism
    "permute_and_flip": "permute_and_flip",  # and with exponential noise, permute-and-flip
}

_TWO53 = 2.0**53
_REL_X = 2.0**-48  # relative margin on x (the float error is below 2^-50)
_ABS_X = 2.0**-1070  # absolute margin on x (subnormal roundings)
_REL_EXP = 2.0**-40  # relative margin on libm's exp
_ABS_EXP = 2.0**-1060  # absolute margin on exp (subnormal results)
_LOG2E_LOW = 1.4426950408889634 * (1.0 - 2.0**-40)  # below 1 / ln 2 by a wide margin


class RandomBits:
    """A stream of uniform random bits.

    ``RandomBits(None)`` reads the operating system's secure source (:mod:`secrets`); an int seed or a
    :class:`numpy.random.Generator` gives a reproducible stream (tests only: not a secure source).
    """

    def __init__(self, rng=None):
        self._gen = None
        if rng is None:
            return
        if isinstance(rng, np.random.Generator):
            self._gen = rng
        else:
            self._gen = np.random.default_rng(int(rng))

    @property
    def secure(self) -> bool:
        """True when the bits come from the operating system's secure source."""
        return self._gen is None

    def words(self, n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words, as uint64."""
        if self._gen is None:
            return np.frombuffer(secrets.token_bytes(8 * n), dtype=np.uint64).copy()
        return self._gen.bit_generator.random_raw(n).astype(np.uint64, copy=False)

    def getrandbits(self, b: int) -> int:
        """A uniform int in ``[0, 2^b)``."""
        if b <= 0:
            return 0
        if self._gen is None:
            return secrets.randbits(b)
        w = self.words((b + 63) // 64)
        return int.from_bytes(w.tobytes(), "little") >> (64 * w.size - b)

    def below(self, n: int) -> int:
        """A uniform int in ``[0, n)`` (exact: rejection of the values >= n)."""
        if n <= 1:
            return 0
        b = (n - 1).bit_length()
        while True:
            v = self.getrandbits(b)
            if v < n:
                return v


# ---------------------------------------------------------------------------------------------------
# enclosures of x and of a = exp(-x) 2^L
# ---------------------------------------------------------------------------------------------------


def _frexp(value) -> tuple[float, int]:
    """``(m, e)``: ``value = M 2^e`` with ``M`` in [0.5, 1) and ``m`` the float nearest to ``M``.

    One rounding (none for a float); works for a :class:`fractions.Fraction` of any size.
    """
    if isinstance(value, float):
        m, e = np.frexp(value)
        return float(m), int(e)
    v = Fraction(value)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    m = v / Fraction(2) ** e
    if m >= 1:
        m, e = m / 2, e + 1
    elif m < Fraction(1, 2):
        m, e = m * 2, e - 1
    return float(m), e


def _float_x(scores: np.ndarray, top: float, epsilon, sensitivity: float) -> np.ndarray:
    """Float approximation of ``x = epsilon (top - u) / (2 sensitivity)`` (inf when above the float range).

    Formed from mantissas and exponents so that no intermediate overflows or underflows:
    ``g = top - u`` (one rounding; from halves when it would overflow: halving a float >= 2^-1021 is
    exact, and a smaller one is negligible next to an overflowing difference), the mantissa of
    ``epsilon`` (one rounding when it is a fraction, see :func:`_frexp`), the mantissa ratio (one
    rounding), the product of the mantissas (one rounding) and an exact power-of-two scaling (Python
    int exponents: epsilon may be a tiny fraction), which may round only into the subnormal range
    (absolute error <= 2^-1075) or overflow (then ``x > 2^1023``). At most five roundings of relative
    2^-53 each, hence ``|x_float - x| <= 2^-50 x + 2^-1072`` whenever ``x_float`` is finite.
    """
    em, ee = _frexp(epsilon)
    dm, de = _frexp(sensitivity)
    cm = em / dm
    with np.errstate(all="ignore"):
        g = top - scores
        shift = 0
        if not np.isfinite(g).all():
            g = top * 0.5 - scores * 0.5
            shift = 1
        gm, ge = np.frexp(g)
        return np.ldexp(gm * cm, ge + (ee - de - 1 + shift))


def _float_enclosure(x_float: np.ndarray, levels: np.ndarray | None):
    """Proven float bounds ``a_lo <= exp(-x) 2^L <= a_hi`` from the float value of ``x``."""
    with np.errstate(all="ignore"):
        x_lo = np.maximum(x_float * (1.0 - _REL_X) - _ABS_X, 0.0)
        x_hi = x_float * (1.0 + _REL_X) + _ABS_X
        a_lo = np.maximum(np.exp(-x_hi) * (1.0 - _REL_EXP) - _ABS_EXP, 0.0)
        a_hi = np.exp(-x_lo) * (1.0 + _REL_EXP) + _ABS_EXP
        if levels is not None:
            a_lo = np.ldexp(a_lo, levels)
            a_hi = np.ldexp(a_hi, levels)
    return a_lo, a_hi


def exact_x(score: float, top: float, epsilon: float | Fraction, sensitivity: float) -> Fraction:
    """``x = epsilon (top - u) / (2 sensitivity)`` as an exact rational (floats are dyadic rationals)."""
    return (Fraction(top) - Fraction(score)) * Fraction(epsilon) / (2 * Fraction(sensitivity))


def _decimal_enclosure(x: Fraction, L: int, bits: int) -> tuple[Fraction, Fraction]:
    """Bounds ``lo <= exp(-x) 2^L <= hi`` with about ``bits`` correct bits, in decimal arithmetic."""
    if x >= Fraction(7, 10) * (bits + 2 + L):
        # exp(-x) = 2^(-x / ln 2) < 2^(-x / 0.7) <= 2^-(bits + 2 + L)
        return Fraction(0), Fraction(1, 1 << (bits + 2))
    digits = int(bits * 0.30103) + 10
    kw = {"prec": digits, "Emin": -(10**9), "Emax": 10**9}
    down = decimal.Context(rounding=decimal.ROUND_FLOOR, **kw)
    up = decimal.Context(rounding=decimal.ROUND_CEILING, **kw)
    num, den = decimal.Decimal(x.numerator), decimal.Decimal(x.denominator)
    x_lo = down.divide(num, den)
    x_hi = up.divide(num, den)
    ctx = decimal.Context(**kw)  # exp is correctly rounded (half-even) whatever the rounding mode
    e_lo = ctx.next_minus(ctx.next_minus(ctx.exp(-x_hi)))
    e_hi = ctx.next_plus(ctx.next_plus(ctx.exp(-x_lo)))
    scale = Fraction(1 << L)
    return max(Fraction(e_lo), Fraction(0)) * scale, Fraction(e_hi) * scale


def _resolve(x: Fraction, L: int, v: int, source: RandomBits) -> bool:
    """Finish ``U < exp(-x) 2^L`` given the first 53 bits ``v`` of ``U``, drawing more bits as needed."""
    if x == 0:
        return True  # a = 2^L >= 1 > U (L = 0 here: L <= x / ln 2)
    b = 53
    while True:
        v = (v << 64) | source.getrandbits(64)
        b += 64
        lo, hi = _decimal_enclosure(x, L, b + 16)
        if Fraction(v + 1, 1 << b) <= lo:
            return True
        if Fraction(v, 1 << b) >= hi:
            return False


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

    ``x_r = epsilon (top - scores_r) / (2 sensitivity)`` with ``top >= scores_r``; ``levels`` (default 0)
    must satisfy ``L_r <= x_r / ln 2``. O(n) vectorised, plus O(1) expected exact work per call.
    """
    if x_float is None:
        x_float = _float_x(scores, top, epsilon, sensitivity)
    a_lo, a_hi = _float_enclosure(x_float, levels)
    v = source.words(scores.size) >> np.uint64(11)  # the first 53 bits of each U
    u_lo = v.astype(np.float64) / _TWO53  # exact: v < 2^53
    u_hi = (v + np.uint64(1)).astype(np.float64) / _TWO53
    heads = u_hi <= a_lo
    unsure = np.flatnonzero(~heads & (u_lo < a_hi))
    for i in unsure:
        L = 0 if levels is None else int(levels[i])
        x = exact_x(float(scores[i]), top, epsilon, sensitivity)
        heads[i] = _resolve(x, L, int(v[i]), source)
    return heads


# ---------------------------------------------------------------------------------------------------
# the two mechanisms
# ---------------------------------------------------------------------------------------------------


def _round_permute_and_flip(scores: np.ndarray, epsilon: float | Fraction, sensitivity: float, source) -> int:
    """One exact permute-and-flip pick: all coins at once, then a uniform pick among the heads."""
    top = float(scores.max())
    heads = np.flatnonzero(bernoulli_exp(scores, top, epsilon, sensitivity, source))
    return int(heads[source.below(heads.size)])


def _round_exponential(scores: np.ndarray, epsilon: float | Fraction, sensitivity: float, source) -> int:
    """One exact exponential-mechanism pick by rejection from the dyadic envelope 2^-L."""
    n = scores.size
    top = float(scores.max())
    x_float = _float_x(scores, top, epsilon, sensitivity)
    l_max = 64 + n.bit_length()
    with np.errstate(all="ignore"):
        x_lo = np.maximum(x_float * (1.0 - _REL_X) - _ABS_X, 0.0)
        t = x_lo * _LOG2E_LOW  # <= x / ln 2: the product's rounding is inside the margin of _LOG2E_LOW
    levels = np.where(t >= l_max, l_max, np.floor(np.minimum(t, l_max))).astype(np.int64)
    counts = np.bincount(levels, minlength=l_max + 1)
    weights = [int(c) << (l_max - j) for j, c in enumerate(counts.tolist())]
    total = sum(weights)
    order = np.argsort(levels, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    while True:
        w = source.below(total)
        j = 0
        while w >= weights[j]:
            w -= weights[j]
            j += 1
        r = int(order[starts[j] + source.below(int(counts[j]))])
        one = slice(r, r + 1)
        if bernoulli_exp(scores[one], top, epsilon, sensitivity, source, x_float[one], levels[one])[0]:
            return r


_ROUNDS = {"exponential": _round_exponential, "permute_and_flip": _round_permute_and_flip}


def sample_exact(
    scores: np.ndarray, epsilon: float | Fraction, sensitivity: float, k: int, rng, mechanism: str
) -> np.ndarray:
    """k exact picks without replacement, each a round of ``mechanism`` with budget ``epsilon``.

    ``mechanism`` is a key of :data:`EXACT_MECHANISMS`; ``rng`` as in :class:`RandomBits`; ``epsilon`` a
    float or an exact :class:`fractions.Fraction` (the share recorded in the budget). O(k n)
    vectorised work plus O(k) expected exact work.
    """
    one_round = _ROUNDS[EXACT_MECHANISMS[mechanism]]
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    remaining = np.arange(scores.size)
    out = np.empty(k, dtype=np.intp)
    for i in range(k):
        sub = scores if i == 0 else scores[remaining]
        j = one_round(sub, epsilon, sensitivity, source)
        out[i] = remaining[j]
        remaining = np.delete(remaining, j)
    return out


def sample_discrete_laplace(size: int, x, rng=None) -> np.ndarray:
    """Exact discrete Laplace noise: ``P(Z = z) = (1 - e^-x) / (1 + e^-x) e^(-x |z|)`` for integers ``z``.

    The exact counterpart of Laplace noise of scale ``1 / x`` on integer data: adding it to an integer
    statistic of L1 sensitivity ``Delta`` with ``x = epsilon / Delta`` is epsilon-DP (the geometric
    mechanism, Ghosh, Roughgarden and Sundararajan 2009; Canonne, Kamath and Steinke 2020). Sampled as
    ``G1 - G2`` for two independent geometric variables with ``P(G >= j) = e^(-x j)``, each the number of
    heads before the first tail of exact Bernoulli(e^-x) coins (:func:`bernoulli_exp`): ``G1 - G2`` has
    exactly this law. ``x`` > 0 is a float or an exact Fraction; ``rng`` as in :class:`RandomBits` (or
    one). O(size / (1 - e^-x)) coin decisions, vectorised.
    """
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    x = Fraction(x)
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    zeros = np.zeros(2 * size)
    counts = np.zeros(2 * size, dtype=np.int64)
    active = np.arange(2 * size)
    while active.size:
        # x_r = (2x) (1 - 0) / (2 * 1) = x for every coin
        heads = bernoulli_exp(zeros[: active.size], 1.0, 2 * x, 1.0, source)
        active = active[heads]
        counts[active] += 1
    return counts[:size] - counts[size:]


def random_permutation(n: int, rng=None) -> np.ndarray:
    """A uniformly random permutation of ``range(n)``: the order of ``n`` random 64-bit keys.

    Drawn again in the (probability < n^2 / 2^65) case of a repeated key; given distinct keys, every order
    is equally likely by symmetry. ``rng`` as in :class:`RandomBits`. O(n log n).
    """
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    while True:
        keys = source.words(n)
        order = np.argsort(keys, kind="stable")
        if n < 2 or np.all(np.diff(keys[order]) > 0):
            return order.astype(np.intp)
