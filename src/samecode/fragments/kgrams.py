"""A text's k-grams for matching: their hashes in order, the fingerprints winnowing
selects, the k-grams in the order of their hashes, so that where a hash occurs is found by binary
search, and a sieve of their hashes, so that most hashes the text does not have are
told apart in one step.

>>> from samecode.scan.shingling import token_ids
>>> grams = Kgrams.of(token_ids("a b a b c a b".split()), k=2, window=3)
>>> list(grams.where(grams.hashes[0]))  # "a b" is at 0, 2 and 5
[0, 2, 5]
>>> list(grams.where(12345)), grams.where(grams.hashes[0], most=2) is None
([], True)
>>> grams.may_have(grams.hashes[0]), grams.may_have(12345) in (True, False)
(True, True)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from bitarray import bitarray

from samecode._validation import check_int
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.winnowing import winnow
from samecode.scan.shingling import kgram_hashes

__all__ = ["Kgrams"]

_MASKED = 2**64 - 1  # the hash of a k-gram over masked tokens


def _check_range(item: object, tokens: int) -> tuple[int, int]:
    """A masked range ``(first, stop)``, checked against ``tokens`` tokens."""
    if not isinstance(item, tuple) or len(item) != 2:
        raise SamecodeTypeError(f"a masked range must be a (first, stop) tuple; got {item!r}")
    first, stop = item
    check_int(first, "a masked range's first token")
    check_int(stop, "a masked range's stop")
    if not 0 <= first <= stop <= tokens:
        raise SamecodeValueError(
            f"a masked range must have 0 <= first <= stop <= {tokens} (the tokens); "
            f"got {first} to {stop}"
        )
    return first, stop


@dataclass(frozen=True)
class Kgrams:
    """``hashes``: the hash of every k-gram, in order; ``selected``: the positions of the
    fingerprints (:func:`~samecode.fragments.winnowing.winnow`); ``positions``: the
    positions of the k-grams in the order of their hashes (in increasing order among
    equal hashes), and ``tops`` the highest 32 bits of those hashes, in that order;
    ``sieve``: a bit for each hash's lowest bits (8 bits per k-gram or more, a power of
    two), set where a k-gram's hash has them. Picklable; about 18 bytes per k-gram (22
    past ``2**31`` of them), and 8 per fingerprint."""

    hashes: array[int] = field(repr=False)
    selected: array[int] = field(repr=False)
    positions: array[int] = field(repr=False)
    tops: array[int] = field(repr=False)
    sieve: bitarray = field(repr=False)

    @classmethod
    def of(
        cls,
        ids: Sequence[int],
        k: int,
        window: int,
        masked: Sequence[tuple[int, int]] = (),
    ) -> Kgrams:
        """The k-grams of a text's token ids.

        :param ids: the token ids.
        :param k: tokens per k-gram.
        :param window: k-grams per winnowing window.
        :param masked: ranges of tokens ``(first, stop)`` (from 0, the stop exclusive,
            ``first <= stop <= len(ids)``; an empty one masks nothing) that no
            fingerprint may hold (boilerplate): a k-gram over any of them gets the hash
            ``2**64 - 1``, which no window prefers, and is never selected, so that the
            fingerprints elsewhere are the same whatever ids the masked tokens have.
        :raises TypeError, ValueError: for a bad ``k``, ``window`` or range.

        Runtime complexity: ``O(n * k)`` in C for the hashes, ``O(n)`` steps of Python
        for the winnowing, ``O(n log n)`` in C for the sort.

        >>> plain = Kgrams.of([1, 2, 3, 4, 5, 6, 7, 8], k=2, window=2)
        >>> masked = Kgrams.of([1, 2, 3, 4, 5, 6, 7, 8], k=2, window=2, masked=[(0, 3)])
        >>> masked.hashes[:3].tolist() == [2**64 - 1] * 3, min(masked.selected) >= 3
        (True, True)
        """
        hashes = array("Q", kgram_hashes(ids, k))
        if not masked:
            return cls.selecting(hashes, array("q", winnow(hashes, window)))
        blocked = bitarray(len(hashes))
        blocked.setall(0)
        for item in masked:
            first, stop = _check_range(item, len(ids))
            low, high = max(0, first - k + 1), min(stop, len(hashes))
            if first < stop and low < high:
                hashes[low:high] = array("Q", [_MASKED]) * (high - low)
                blocked[low:high] = 1
        selected = [at for at in winnow(hashes, window) if not blocked[at]]
        return cls.selecting(hashes, array("q", selected))

    @classmethod
    def selecting(cls, hashes: array[int], selected: array[int]) -> Kgrams:
        """The k-grams of these ``hashes`` (in order) with these fingerprints (positions
        winnowing selected, as stored in a corpus).

        Runtime complexity: ``O(n log n)`` in C for the sort, ``O(n)`` steps of Python
        for the highest bits and the sieve.

        >>> Kgrams.selecting(array("Q", [5, 3, 5]), array("q", [1])).where(5).tolist()
        [0, 2]
        """
        positions = array(
            "i" if len(hashes) < 2**31 else "q",
            sorted(range(len(hashes)), key=hashes.__getitem__),
        )
        tops = array("I", [hashes[at] >> 32 for at in positions])
        sieve = bitarray(max(64, 1 << (8 * len(hashes) - 1).bit_length()))
        sieve.setall(0)
        mask = len(sieve) - 1
        sieve[[value & mask for value in hashes]] = 1
        return cls(hashes, selected, positions, tops, sieve)

    def fingerprints(self) -> set[int]:
        """The hashes of the fingerprints."""
        return set(map(self.hashes.__getitem__, self.selected))

    def may_have(self, value: int) -> bool:
        """``False`` if no k-gram's hash is ``value``; ``True`` if one is, and for at
        most about one other hash in nine (``1 - exp(-1/8)``; one in 16 to one in nine,
        as the sieve's size rounds up to a power of two).

        Runtime complexity: ``O(1)``.

        >>> grams = Kgrams.of([1, 2, 3, 4], k=2, window=2)
        >>> all(grams.may_have(value) for value in grams.hashes)
        True
        """
        sieve = self.sieve
        return bool(sieve[value & (len(sieve) - 1)])

    def where(self, value: int, most: int | None = None) -> array[int] | None:
        """The positions of the k-grams whose hash is ``value``, in increasing order;
        ``None`` if there are more than ``most``.

        Runtime complexity: ``O(log n)`` (in C, on the hashes' highest bits), plus the
        positions returned.

        >>> Kgrams.of([7] * 100, k=3, window=4).where(hash((7, 7, 7)) & (2**64 - 1), 10)
        """
        positions, hashes, tops = self.positions, self.hashes, self.tops
        top = value >> 32
        low = bisect_left(tops, top)
        high = bisect_right(tops, top, low)
        if high - low > 1:  # hashes alike in their highest bits: told apart by the rest
            key = hashes.__getitem__
            low = bisect_left(positions, value, low, high, key=key)
            high = bisect_right(positions, value, low, high, key=key)
        elif high > low and hashes[positions[low]] != value:
            high = low
        if most is not None and high - low > most:
            return None
        return positions[low:high]
