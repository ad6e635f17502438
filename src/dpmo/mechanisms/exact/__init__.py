"""Exact samplers whose running time depends on neither the data nor the output.

Floating-point samplers of DP mechanisms can leak (Mironov, CCS 2012, for the Laplace mechanism; Ilvento,
CCS 2020, for the exponential mechanism): the set of outputs a float sampler can produce, and their
probabilities, are not those of the mechanism that was proved private. The samplers here produce *exactly*
the distribution of the mechanism on the inputs as given:

* every input float (score, epsilon, sensitivity) is read as the exact rational it denotes (floats are
  dyadic rationals), so ``x_r = epsilon * (max u - u_r) / (2 Delta u)`` is an exact rational >= 0;
* the only randomness is a stream of uniform random bits (:class:`RandomBits`): from the operating
  system's secure source (:mod:`secrets`) when ``rng`` is None; from a numpy generator when an int seed or
  a Generator is given, which is reproducible and meant for tests only.

Samplers with exact laws can still leak through their *running time* (Jin, McMurtry, Rubinstein and
Ohrimenko, "Are We There Yet? Timing and Floating-Point Attacks on Differential Privacy Systems", IEEE S&P
2022): a loop that runs until a coin comes up heads takes a time that depends on the probabilities (the
data) and on the result. Every sampler here does a fixed, public amount of work per call: the same random
words and the same vectorised operations on arrays whose sizes depend only on public quantities (``n``,
``k``, ``size``, ``x``), wherever the data put the probabilities and whatever comes out. The only calls that
do more are on stated events of negligible probability, whatever the data (``docs/core.md``, "Timing").

Modules: :mod:`.bits` (random words, uniform integers in a padded batch), :mod:`.enclosures` (proven bounds
of ``x`` and ``exp(-x)``), :mod:`.coins` (exact coins by lazy comparison), :mod:`.selection` (exponential
mechanism, permute-and-flip), :mod:`.laplace` (discrete Laplace noise by independent binary digits),
:mod:`.permutation` (random permutations, fixed-work radix ordering).
"""

from __future__ import annotations

from .bits import RandomBits
from .coins import bernoulli_exp
from .enclosures import exact_x
from .laplace import sample_discrete_laplace
from .permutation import radix_argsort, random_permutation
from .selection import EXACT_MECHANISMS, sample_exact

__all__ = [
    "RandomBits",
    "sample_exact",
    "sample_discrete_laplace",
    "random_permutation",
    "radix_argsort",
    "bernoulli_exp",
    "exact_x",
    "EXACT_MECHANISMS",
]
