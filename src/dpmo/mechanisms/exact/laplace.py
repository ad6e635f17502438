"""Exact discrete Laplace noise with the same random words and work for every draw: O(log(1/x)) per draw.

``Z = G1 - G2`` for two independent geometric variables with ``P(G >= j) = q^j``, ``q = e^-x``, has
exactly the law ``P(Z = z) = (1 - q) / (1 + q) q^|z|``. Each ``G`` is sampled by groups of binary digits:

* for ``N`` with ``x 2^N >= 45``, ``G = R + 2^N H`` where ``R = G mod 2^N`` and ``H = floor(G / 2^N)``
  are independent, ``H`` geometric with ratio ``r = q^(2^N) <= e^-45 < 2^-64.9``;
* ``P(R = sum_i b_i 2^i) ~ q^R = prod_i (q^(2^i))^b_i`` is a product over the digits, so the digits
  ``b_i`` of ``R`` are *independent* (a classical fact about the geometric law; the proof is this line),
  and so are groups of consecutive digits: the value ``V`` of the digits ``i0 .. i0 + d - 1`` is a
  geometric variable truncated to ``[0, 2^d)`` with ratio ``s = q^(2^i0)``:
  ``P(V >= v) = S(v) = (s^v - s^(2^d)) / (1 - s^(2^d))``.

Each group (:data:`GROUP` = 4 digits) is decided by one uniform ``U``, ``V = #{v >= 1 : U < S(v)}``
(inverse CDF), and every ``S(v)`` is *public* (a function of ``x`` only): its exact 64-bit threshold
``floor(S(v) 2^64)`` is computed once per ``x`` (:func:`geometric_plan`, cached), so a group costs one
64-bit word and ``2^d - 1`` integer comparisons whatever its value. The top group also decides
``H >= 1`` (``U < r``, before its digits; given ``U >= r``, ``U`` is uniform on ``[r, 1)`` and its
thresholds are ``r + (1 - r) S(v)``). A draw is ``2 ceil(N / 4)`` words (one group per geometric
variable when ``x >= 45``): 4 words at ``x = 1`` and 10 at ``x = 1e-4``, ``N = ceil(log2(45 / x))``,
whatever the noise drawn. A word equal to one of its thresholds, or the top word 0 (``H >= 1`` is
possible only then), probability at most ``16 * 2^-64`` per word, is finished exactly by
:class:`dpmo.mechanisms.exact.coins.LazyUniform`: the only extra work.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bits import RandomBits
from .coins import Enclosure, LazyUniform, exp_enclosure, public_threshold, tight
from .enclosures import decimal_enclosure

__all__ = ["sample_discrete_laplace", "sample_geometric", "geometric_plan", "GeometricPlan", "TAIL", "GROUP"]

#: ``x 2^N >= TAIL``: all digits above ``N`` are 0 except with probability ``e^-45 < 2^-64.9``.
TAIL = 45
#: Digits per group: one word and ``2^GROUP - 1`` comparisons decide a group.
GROUP = 4
_INT64_DIGITS = 62  # with at most 62 digits, G and G1 - G2 fit in int64


@functools.lru_cache(maxsize=4096)
def _public_exp(y: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Bounds of ``e^-y`` for a public ``y`` (a function of ``x`` only: never data), cached."""
    return decimal_enclosure(y, 0, bits)


def _survival(a: Fraction, d: int, v: int, tail: Fraction | None) -> Enclosure:
    """Bounds of ``S(v) = (e^-av - e^-aD) / (1 - e^-aD)`` (``D = 2^d``), or ``r + (1 - r) S(v)``."""

    def bounds(bits: int) -> tuple[Fraction, Fraction]:
        l1, h1 = _public_exp(a * v, bits)
        l2, h2 = _public_exp(a * 2**d, bits)
        if h2 >= 1:  # e^-aD within 2^-bits of 1 (a tiny x): S in [0, 1] says nothing; ``tight`` adds bits
            return Fraction(0), Fraction(1)
        lo, hi = (l1 - h2) / (1 - h2), (h1 - l2) / (1 - l2)  # increasing in e^-av, decreasing in e^-aD
        if tail is not None:  # increasing in r and in S
            r_lo, r_hi = _public_exp(tail, bits)
            lo, hi = lo + r_lo * (1 - lo), hi + r_hi * (1 - hi)
        return lo, hi

    return tight(bounds)


@dataclass(frozen=True)
class GeometricPlan:
    """The public part of sampling ``G`` for one ``x``: digit groups, their thresholds and enclosures."""

    x: Fraction
    n_digits: int  #: N, with x 2^N >= 45
    starts: tuple[int, ...]  #: first digit of each group (the last group is the top one)
    thresholds: tuple[np.ndarray, ...]  #: per group, floor(S(v) 2^64) for v = 1 .. 2^d - 1 (uint64)

    def enclosure(self, group: int, v: int) -> Enclosure:
        """Bounds of the group's ``v``-th boundary (``S(v)``, or ``r + (1 - r) S(v)`` for the top)."""
        start = self.starts[group]
        d = min(GROUP, self.n_digits - start)
        top = group == len(self.starts) - 1
        return _survival(self.x * 2**start, d, v, self.x * 2**self.n_digits if top else None)

    def tail(self) -> Enclosure:
        """Bounds of ``r = e^(-x 2^N)``."""
        return exp_enclosure(self.x * 2**self.n_digits)


@functools.lru_cache(maxsize=256)
def geometric_plan(x: Fraction) -> GeometricPlan:
    """The digit groups and exact thresholds of a geometric variable with ratio ``e^-x`` (see the module).

    Public work (a function of ``x`` only), done once per ``x``: about ``2^GROUP N / GROUP`` decimal
    ``exp`` evaluations (a few milliseconds at ``x = 1e-4``).

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> plan = geometric_plan(Fraction(1))
    >>> plan.n_digits, plan.starts, [t.size for t in plan.thresholds]  # 2^6 >= 45: two groups
    (6, (0, 4), [15, 3])
    >>> s1 = (math.exp(-1) - math.exp(-16)) / (1 - math.exp(-16))  # P(V >= 1), digits 0-3
    >>> bool(abs(plan.thresholds[0][0] / 2**64 - s1) < 1e-15)
    True
    """
    ceil_q = -((-TAIL * x.denominator) // x.numerator)  # ceil(45 / x)
    n_digits = (ceil_q - 1).bit_length()  # smallest N with 2^N >= 45 / x
    starts = tuple(range(0, n_digits, GROUP)) or (0,)
    plan = GeometricPlan(x, n_digits, starts, ())
    thresholds = []
    for g, start in enumerate(starts):
        d = min(GROUP, n_digits - start)
        t = [public_threshold(plan.enclosure(g, v)) for v in range(1, 2**d)]
        thresholds.append(np.array(t, dtype=np.uint64))
    return GeometricPlan(x, n_digits, starts, tuple(thresholds))


def _group_value(u: LazyUniform, w: int, plan: GeometricPlan, group: int) -> int:
    """``#{v : U < boundary(v)}`` for the uniform ``u`` whose first 64 bits are ``w`` (exactly)."""
    value = 0
    for v, t in enumerate(plan.thresholds[group].tolist(), start=1):
        value += (w < t) if w != t else u.less_than(plan.enclosure(group, v))
    return value


def _finish(row: np.ndarray, plan: GeometricPlan, source: RandomBits) -> int:
    """Exact value of one geometric variable whose words hit the rare case (a threshold or a top word 0)."""
    value = 0
    last = len(plan.starts) - 1
    for g in range(last):
        w = int(row[g])
        value += _group_value(LazyUniform(w, 64, source), w, plan, g) << plan.starts[g]
    h, w = 0, int(row[last])
    while True:
        u = LazyUniform(w, 64, source)
        if w == 0 and u.less_than(plan.tail()):  # U < r < 2^-64 needs w = 0
            h += 1  # H >= h; the top digits and the rest of H come from a fresh word
            w = int(source.words(1)[0])
            continue
        value += _group_value(u, w, plan, last) << plan.starts[last]
        return value + (h << plan.n_digits)


def _geometric(words: np.ndarray, plan: GeometricPlan) -> tuple[np.ndarray, np.ndarray]:
    """Values of the geometric variables (one row of words each) and the rows that hit the rare case."""
    m = words.shape[0]
    wide = plan.n_digits > _INT64_DIGITS
    g = np.zeros(m, dtype=object if wide else np.int64)
    rare = words[:, -1] == 0
    for k, (start, t) in enumerate(zip(plan.starts, plan.thresholds, strict=True)):
        w = words[:, k]
        value = np.count_nonzero(w[:, None] < t, axis=1)  # thresholds above w (they decrease in v)
        # w can equal only the largest threshold <= w, the next one (0 stands for none: a harmless flag)
        rare |= w == np.append(t, np.uint64(0))[value]
        g += value.astype(object) << start if wide else value << start
    return g, rare


def sample_discrete_laplace(size: int, x, rng=None) -> np.ndarray:
    """Exact discrete Laplace noise: ``P(Z = z) = (1 - e^-x) / (1 + e^-x) e^(-x |z|)`` for integers ``z``.

    The exact counterpart of Laplace noise of scale ``1 / x`` on integer data: adding it to an integer
    statistic of L1 sensitivity ``Delta`` with ``x = epsilon / Delta`` is epsilon-DP (the geometric
    mechanism, Ghosh, Roughgarden and Sundararajan 2009; Canonne, Kamath and Steinke 2020). Sampled as
    ``G1 - G2``, each geometric variable by groups of independent binary digits (see this module).

    Parameters
    ----------
    size : int
        Number of independent draws, >= 0.
    x : float or fractions.Fraction
        ``> 0``, read as the exact rational it is.
    rng : None, int, numpy.random.Generator or RandomBits
        As in :class:`RandomBits` (None: the operating system's secure source).

    Returns
    -------
    numpy.ndarray of int64, shape (size,)
        (of Python ints, dtype object, when ``x < 45 / 2^62``, where the noise may not fit in int64).

    Notes
    -----
    Time: ``2 size max(ceil(N / 4), 1)`` random words and O(size N) vectorised integer work,
    ``N = ceil(log2(45 / x))`` (O(log(1/x)), not O(1/x)), the same for every draw whatever its value;
    more only on an event of probability at most ``2 size max(ceil(N / 4), 1) 2^-60``. The thresholds are
    computed once per ``x`` (a few milliseconds) and cached.

    Examples
    --------
    >>> import numpy as np
    >>> z = sample_discrete_laplace(10_000, 1.0, rng=0)
    >>> z.dtype.name, bool(abs(np.mean(z == 0) - (1 - np.exp(-1)) / (1 + np.exp(-1))) < 0.03)
    ('int64', True)
    """
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    g = sample_geometric(2 * size, x, source)
    return g[:size] - g[size:]


def sample_geometric(size: int, x, rng=None) -> np.ndarray:
    """Exact geometric variables: ``P(G >= j) = e^(-x j)`` for ``j = 0, 1, 2, ...``, independent.

    ``G`` is the number of failures before the first success of independent Bernoulli trials with success
    probability ``1 - e^-x``. Sampled by groups of binary digits with public thresholds (see this module);
    :func:`sample_discrete_laplace` is the difference of two such variables.

    ``size``, ``x``, ``rng``, the values' dtype and the cost are those of :func:`sample_discrete_laplace`
    for half as many draws (``size max(ceil(N / 4), 1)`` random words).

    Examples
    --------
    >>> import numpy as np
    >>> g = sample_geometric(20_000, 0.5, rng=0)
    >>> bool(abs(np.mean(g >= 2) - np.exp(-1.0)) < 0.02)
    True
    """
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    x = Fraction(x)
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    plan = geometric_plan(x)
    groups = len(plan.starts)
    words = source.words(size * groups).reshape(size, groups)
    g, rare = _geometric(words, plan)
    for j in np.flatnonzero(rare):  # probability <= 16 * 2^-64 per word
        value = _finish(words[j], plan, source)
        if g.dtype != object and value >= 2**63:
            g = g.astype(object)
        g[j] = value
    return g
