"""A text's k-grams for matching: their hashes in order, the fingerprints winnowing
selects, the k-grams in the order of their hashes, so that where a hash occurs is found by binary
search, a sieve of their hashes, so that most hashes the text does not have are told
apart in one step, and a sieve of the hashes it repeats, so that most hashes it has once
are told apart the same way.

>>> from samecode.text.shingling import token_ids
>>> grams = Kgrams.of(token_ids("a b a b c a b".split()), k=2, window=3)
>>> list(grams.where(grams.hashes[0]))  # "a b" is at 0, 2 and 5
[0, 2, 5]
>>> list(grams.where(12345)), grams.where(grams.hashes[0], most=2) is None
([], True)
>>> grams.may_have(grams.hashes[0]), grams.may_have(12345) in (True, False)
(True, True)
>>> grams.may_repeat(grams.hashes[0]), grams.hashes.count(grams.hashes[1])  # "b a": once
(True, 1)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice
from operator import eq, lt

from bitarray import bitarray

from samecode._kernels import use_numpy
from samecode._validation import check_int
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments._ranges import disjoint
from samecode.fragments.winnowing import winnow
from samecode.text.shingling import kgram_array

__all__ = ["Kgrams", "mask_kgrams"]

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


def _sieve_size(count: int) -> int:
    """The bits of a sieve of ``count`` values: at least 16 each, 64 at least, a power
    of two."""
    return max(64, 1 << (16 * count - 1).bit_length())


def _sieve(values: Collection[int]) -> bitarray:
    """A sieve of ``values`` (:func:`_sieve_size` bits, big-endian as the numpy kernel
    makes it), the bit their lowest bits choose set for each."""
    sieve = bitarray(_sieve_size(len(values)), endian="big")
    sieve.setall(0)
    mask = len(sieve) - 1
    sieve[[value & mask for value in values]] = 1
    return sieve


def mask_kgrams(
    hashes: array[int], masked: Sequence[tuple[int, int]], k: int, tokens: int
) -> bitarray:
    """Give each k-gram of ``hashes`` (those of a text of ``tokens`` tokens, ``k`` each)
    that holds a masked token (``masked``: ``(first, stop)`` ranges of tokens, as for
    :meth:`Kgrams.of`) the hash ``2**64 - 1``, in place; return which they are (a bit per
    k-gram). No fingerprint is such a k-gram, so none is ever found there: masked text
    seeds no match.

    :raises TypeError, ValueError: for a bad range.

    Runtime complexity: ``O(n)`` in C, and ``O(r log r)`` for the ``r`` ranges (a few
    steps each: a catalogue has one a message, tens of thousands, and the k-grams over
    one often run into the next's).

    >>> hashes = array("Q", [10, 11, 12, 13])
    >>> mask_kgrams(hashes, [(4, 5)], 2, 5).tolist(), hashes.tolist() == [10, 11, 12, 2**64 - 1]
    ([0, 0, 0, 1], True)
    """
    ranges = masked if isinstance(masked, list) else list(masked)
    plain = all(type(item) is tuple and len(item) == 2 and type(item[0]) is int
                and type(item[1]) is int for item in ranges)  # fmt: skip
    if not plain or not all(0 <= first <= stop <= tokens for first, stop in ranges):
        for item in ranges:
            _check_range(item, tokens)  # the first bad one, named
    blocked = bitarray(len(hashes))
    blocked.setall(0)
    # the k-grams over each range, those that overlap or touch made one run
    over = (
        (max(0, first - k + 1), min(stop, len(hashes))) for first, stop in ranges if first < stop
    )
    for low, high in disjoint(over):
        hashes[low:high] = array("Q", [_MASKED]) * (high - low)
        blocked[low:high] = 1
    return blocked


@dataclass(frozen=True)
class Kgrams:
    """``hashes``: the hash of every k-gram, in order; ``selected``: the positions of the
    fingerprints (:func:`~samecode.fragments.winnowing.winnow`); ``positions``: the
    positions of the k-grams in the order of their hashes (in increasing order among
    equal hashes), and ``tops`` the highest 32 bits of those hashes, in that order;
    ``sieve``: 16 bits per k-gram or more (a power of two), the bit each hash's lowest
    bits choose set; ``repeats``: the same for each distinct value of the highest 32
    bits that two k-grams or more have.
    Picklable; about 20 bytes per k-gram (24 past ``2**31`` of them), and 8 per
    fingerprint."""

    hashes: array[int] = field(repr=False)
    selected: array[int] = field(repr=False)
    positions: array[int] = field(repr=False)
    tops: array[int] = field(repr=False)
    sieve: bitarray = field(repr=False)
    repeats: bitarray = field(repr=False)

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
        hashes = kgram_array(ids, k)
        if not masked:
            return cls.selecting(hashes, array("q", winnow(hashes, window)))
        mask_kgrams(hashes, masked, k, len(ids))
        return cls.selecting(hashes, array("q", winnow(hashes, window, skip=_MASKED)))

    @classmethod
    def selecting(cls, hashes: array[int], selected: array[int]) -> Kgrams:
        """The k-grams of these ``hashes`` (in order) with these fingerprints (positions
        winnowing selected, as stored in a corpus).

        :param hashes: the k-gram hashes, in order.
        :param selected: the fingerprints' positions, strictly increasing, each a
            position of ``hashes`` (:func:`~samecode.fragments.regions.exact_matches` takes
            them in order).
        :raises ValueError: if ``selected`` is out of order or out of range.

        Runtime complexity: ``O(n log n)`` in C for the sort, ``O(n)`` steps of Python
        for the highest bits and the sieve, ``O(n)`` in C to find the repeated ones and
        a step of Python per distinct one. With numpy (``samecode[fast]``), all of it in
        C, with the same arrays and sieves (:mod:`samecode._kernels` says when).

        >>> Kgrams.selecting(array("Q", [5, 3, 5]), array("q", [1])).where(5).tolist()
        [0, 2]
        """
        if selected and not (
            selected[0] >= 0
            and selected[-1] < len(hashes)
            and all(map(lt, selected, islice(selected, 1, None)))
        ):
            raise SamecodeValueError(
                "selected must be strictly increasing positions from 0 to "
                f"{len(hashes) - 1} (the k-grams); got {list(selected[:10])}..."
            )
        code = "i" if len(hashes) < 2**31 else "q"
        if use_numpy(len(hashes)):
            import samecode._numpy_kernels as fast

            words = fast.as_uint64(hashes)
            if words is not None:
                order, highest, repeated = fast.sorted_kgrams(words)
                return cls(
                    hashes,
                    selected,
                    fast.to_array(order, code),
                    fast.to_array(highest, "I"),
                    fast.sieve(words, _sieve_size(len(words))),
                    fast.sieve(repeated, _sieve_size(len(repeated))),
                )
        positions = array(code, sorted(range(len(hashes)), key=hashes.__getitem__))
        tops = array("I", [hashes[at] >> 32 for at in positions])
        again = set(compress(tops, map(eq, tops, islice(tops, 1, None))))
        return cls(hashes, selected, positions, tops, _sieve(hashes), _sieve(again))

    def fingerprints(self) -> set[int]:
        """The hashes of the fingerprints."""
        return set(map(self.hashes.__getitem__, self.selected))

    def may_have(self, value: int) -> bool:
        """``False`` if no k-gram's hash is ``value``; ``True`` if one is, and for at
        most about one other hash in sixteen (``1 - exp(-1/16)``; one in 32 to one in
        16, as the sieve's size rounds up to a power of two).

        Runtime complexity: ``O(1)``.

        >>> grams = Kgrams.of([1, 2, 3, 4], k=2, window=2)
        >>> all(grams.may_have(value) for value in grams.hashes)
        True
        """
        sieve = self.sieve
        return bool(sieve[value & (len(sieve) - 1)])

    def may_repeat(self, value: int) -> bool:
        """``False`` if at most one k-gram's hash is ``value``; ``True`` if two or more
        are, and for some others: those whose highest 32 bits two k-grams have (rare
        but for a repeated hash), or whose bit another such set (one in 16 or fewer).

        Runtime complexity: ``O(1)``.

        >>> grams = Kgrams.of([1, 2, 1, 2, 3], k=2, window=2)
        >>> grams.may_repeat(grams.hashes[0]), grams.may_repeat(grams.hashes[3])
        (True, False)
        """
        repeats = self.repeats
        return bool(repeats[(value >> 32) & (len(repeats) - 1)])

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
        high = low + 1
        if high > len(tops) or tops[low] != top:
            high = low  # no hash has these highest bits
        elif high < len(tops) and tops[high] == top:
            # hashes alike in their highest bits: told apart by the rest
            high = bisect_right(tops, top, high)
            key = hashes.__getitem__
            low = bisect_left(positions, value, low, high, key=key)
            high = bisect_right(positions, value, low, high, key=key)
        elif hashes[positions[low]] != value:
            high = low
        if most is not None and high - low > most:
            return None
        return positions[low:high]
