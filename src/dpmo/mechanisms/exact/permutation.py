"""Uniform random permutations and stable orderings with a fixed amount of work.

Comparison sorts (numpy's quicksort, timsort, introselect) do a number of comparisons and moves that
depends on the keys, so their time says something about an order that may be private. A least-significant-
digit radix sort does the same passes whatever the keys: :func:`radix_argsort` orders 64-bit keys by four
stable passes over 16-bit digits (numpy's stable ``argsort`` of a 16-bit array is a counting sort). numpy's
counting sort skips a byte that all keys share and returns at once when the keys are already sorted; two
sentinel keys, ``0xFFFF`` then ``0x0000``, prepended to every pass, make neither ever happen.
"""

from __future__ import annotations

import numpy as np

from .bits import RandomBits

__all__ = ["radix_argsort", "random_permutation"]

_SENTINELS = np.array([0xFFFF, 0x0000], dtype=np.uint16)
_MASK16 = np.uint64(0xFFFF)


def radix_argsort(keys: np.ndarray) -> np.ndarray:
    """Stable argsort of int64 or uint64 keys (ascending), with the same work for every key vector.

    Four counting-sort passes over 16-bit digits, least significant first (int64 keys are mapped to
    uint64 in an order-preserving way by flipping the sign bit). Equal keys keep their input order. O(n)
    time and memory per pass, four passes.

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.array([3, -1, 3, 0, -7], dtype=np.int64)
    >>> radix_argsort(keys).tolist() == np.argsort(keys, kind="stable").tolist()
    True
    """
    keys = np.asarray(keys)
    if keys.dtype == np.int64:
        keys = keys.view(np.uint64) ^ np.uint64(1 << 63)
    elif keys.dtype != np.uint64:
        raise TypeError(f"keys must be int64 or uint64, got {keys.dtype}")
    order = np.arange(keys.size)
    for shift in (0, 16, 32, 48):
        digits = ((keys[order] >> np.uint64(shift)) & _MASK16).astype(np.uint16)
        step = np.argsort(np.concatenate([_SENTINELS, digits]), kind="stable")
        order = order[step[step >= 2] - 2]
    return order.astype(np.intp)


def random_permutation(n: int, rng=None) -> np.ndarray:
    """A uniformly random permutation of ``range(n)``: the order of ``n`` random 64-bit keys.

    Drawn again in the (probability < n^2 / 2^65) case of a repeated key; given distinct keys, every order
    is equally likely by symmetry, and the permutation returned is independent of how many draws were
    needed. The keys are ordered by :func:`radix_argsort`: the same work for every permutation.
    ``rng`` as in :class:`RandomBits`. O(n).

    Examples
    --------
    >>> sorted(random_permutation(5, rng=0).tolist())
    [0, 1, 2, 3, 4]
    """
    source = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    while True:
        keys = source.words(n)
        order = radix_argsort(keys)
        if np.count_nonzero(np.diff(keys[order]) == 0) == 0:
            return order
