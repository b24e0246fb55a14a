"""Private: the integers ``numpy.random.RandomState(seed).randint`` draws, without numpy.

datasketch draws its permutations from numpy's legacy generator, so to give identical
signatures these must be the same numbers. They are:

* **the generator** is MT19937 seeded by Knuth's ``init_genrand`` (``key[0] = seed``,
  ``key[i] = 1812433253 * (key[i-1] ^ (key[i-1] >> 30)) + i``, 32 bits), positioned to
  regenerate on the first draw. Python's :class:`random.Random` is the same MT19937, so the
  seeded key is handed to it with ``setstate`` and ``getrandbits(32)`` draws numpy's
  ``next_uint32``, in C; ``next_uint64`` is two of them, the first the high half;
* **bounded integers** (``randint(low, high)``, ``high`` excluded, the legacy "masked"
  method): with ``rng = high - 1 - low``, a draw of 32 bits if ``rng`` fits in 32 bits (of
  64 otherwise) masked to the smallest ``2**k - 1`` covering ``rng``, redrawn while above
  it; a full range takes the draw as it is.

>>> generator = legacy_generator(1)
>>> [randint(generator, 0, 10) for _ in range(5)]
[5, 8, 9, 5, 0]
"""

from __future__ import annotations

import random

from samecode.errors import SamecodeValueError

__all__ = ["legacy_generator", "randint"]

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def legacy_generator(seed: int) -> random.Random:
    """An MT19937 generator in the state ``numpy.random.RandomState(seed)`` starts in.

    :raises ValueError: unless ``0 <= seed < 2**32`` (numpy's rule).
    """
    if not 0 <= seed <= _MASK32:
        raise SamecodeValueError(f"seed must be from 0 to 2**32 - 1 (numpy's rule); got {seed}")
    key = [seed]
    for i in range(1, 624):
        previous = key[-1]
        key.append((1812433253 * (previous ^ (previous >> 30)) + i) & _MASK32)
    generator = random.Random()
    generator.setstate((3, (*key, 624), None))
    return generator


def randint(generator: random.Random, low: int, high: int) -> int:
    """The next ``RandomState.randint(low, high)`` of an unsigned dtype wide enough.

    ``high`` is excluded, as in numpy; ``high - low`` may be up to ``2**64``.
    """
    span = high - 1 - low
    draw = generator.getrandbits
    if span == 0:
        return low
    if span <= _MASK32:
        if span == _MASK32:
            return low + draw(32)
        mask = (1 << span.bit_length()) - 1
        while True:
            value = draw(32) & mask
            if value <= span:
                return low + value
    if span == _MASK64:
        return low + ((draw(32) << 32) | draw(32))
    mask = (1 << span.bit_length()) - 1
    while True:
        value = ((draw(32) << 32) | draw(32)) & mask
        if value <= span:
            return low + value
