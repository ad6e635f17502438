"""Uniform random bits, and uniform integers drawn with a fixed amount of work.

Every sampler of :mod:`dpmo.mechanisms.exact` takes its randomness from one :class:`RandomBits` stream, in
blocks whose sizes are public (they depend on the number of candidates or draws, never on the data or on
what was drawn), so that the bits read by a call, and the work done with them, are the same whatever the
output (see ``docs/core.md``, "Timing").
"""

from __future__ import annotations

import secrets

import numpy as np

__all__ = ["RandomBits", "BATCH", "first_true"]

#: Draws per padded batch of a rejection loop whose every draw is accepted with probability >= 1/2: all of
#: them fail with probability <= 2^-64, the only case in which a second batch (more work) is drawn.
BATCH = 64

_WORD = 2**64


def first_true(mask: np.ndarray) -> int:
    """Index of the first True of a 1-d boolean array, ``mask.size`` when there is none.

    Fixed work: one pass over the whole array wherever the first True is (``np.argmax`` on booleans stops
    at the first True, so its time would tell where it is). O(mask.size).

    Examples
    --------
    >>> import numpy as np
    >>> first_true(np.array([False, False, True, True])), first_true(np.zeros(3, dtype=bool))
    (2, 3)
    """
    return int(np.count_nonzero(np.cumsum(mask) == 0))


class RandomBits:
    """A stream of uniform random bits.

    ``RandomBits(None)`` reads the operating system's secure source (:mod:`secrets`); an int seed or a
    :class:`numpy.random.Generator` gives a reproducible stream (tests only: not a secure source).

    Examples
    --------
    >>> bits = RandomBits(3)
    >>> bits.secure, bits.words(4).dtype.name, 0 <= bits.below(10) < 10
    (False, 'uint64', True)
    >>> RandomBits(None).secure
    True
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
        """``n`` independent uniform 64-bit words, as uint64 (possibly read-only). O(n)."""
        if self._gen is None:
            return np.frombuffer(secrets.token_bytes(8 * n), dtype=np.uint64)
        return self._gen.bit_generator.random_raw(n).astype(np.uint64, copy=False)

    def getrandbits(self, b: int) -> int:
        """A uniform int in ``[0, 2^b)``. O(b)."""
        if b <= 0:
            return 0
        if self._gen is None:
            return secrets.randbits(b)
        w = self.words((b + 63) // 64)
        return int.from_bytes(w.tobytes(), "little") >> (64 * w.size - b)

    def below(self, m: int) -> int:
        """A uniform int in ``[0, m)``, exactly, with the same work for every ``m`` of the same size.

        Rejection sampling in one padded batch: :data:`BATCH` draws of ``b = max(bit_length(m - 1), 1)``
        bits at once, the first one below ``m`` is the answer (each is, with probability
        ``m / 2^b >= 1/2``). The first accepted draw of i.i.d. draws is uniform on ``[0, m)`` however many
        were drawn, and the work does not depend on which draw is accepted; a second batch is drawn only
        when all 64 fail (probability <= 2^-64), and even then the answer is independent of the number of
        batches. O(BATCH) for ``m <= 2^64``, O(BATCH b) beyond.
        """
        m = int(m)
        if m < 1:
            raise ValueError(f"m must be >= 1, got {m}")
        b = max((m - 1).bit_length(), 1)  # m = 1 draws like m = 2: the same work for every m <= 2^64
        while True:
            if b <= 64:
                v = self.words(BATCH) >> np.uint64(64 - b)
                ok = v <= np.uint64(m - 1)
                values = v
            else:
                values = [self.getrandbits(b) for _ in range(BATCH)]
                ok = np.array([value < m for value in values])
            i = first_true(ok)
            if i < BATCH:
                return int(values[i])
