"""A text's k-grams for matching: their hashes in order, the fingerprints winnowing
selects, and the k-grams sorted by hash, so that where a hash occurs is found by binary
search.

>>> from samecode.scan.shingling import token_ids
>>> grams = Kgrams.of(token_ids("a b a b c a b".split()), k=2, window=3)
>>> list(grams.where(grams.hashes[0]))  # "a b" is at 0, 2 and 5
[0, 2, 5]
>>> list(grams.where(12345)), grams.where(grams.hashes[0], most=2) is None
([], True)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from samecode.fragments.winnowing import winnow
from samecode.scan.shingling import kgram_hashes

__all__ = ["Kgrams"]


@dataclass(frozen=True)
class Kgrams:
    """``hashes``: the hash of every k-gram, in order; ``selected``: the positions of the
    fingerprints (:func:`~samecode.fragments.winnowing.winnow`); ``ordered`` and
    ``positions``: the hashes sorted, and the position of each (in increasing order
    among equal hashes). Picklable; 24 bytes per k-gram."""

    hashes: array[int] = field(repr=False)
    selected: array[int] = field(repr=False)
    ordered: array[int] = field(repr=False)
    positions: array[int] = field(repr=False)

    @classmethod
    def of(cls, ids: Sequence[int], k: int, window: int) -> Kgrams:
        """The k-grams of a text's token ids.

        :raises TypeError, ValueError: for a bad ``k`` or ``window``.

        Runtime complexity: ``O(n * k)`` in C for the hashes, ``O(n)`` steps of Python
        for the winnowing, ``O(n log n)`` in C for the sort.
        """
        hashes = array("Q", kgram_hashes(ids, k))
        return cls.selecting(hashes, array("q", winnow(hashes, window)))

    @classmethod
    def selecting(cls, hashes: array[int], selected: array[int]) -> Kgrams:
        """The k-grams of these ``hashes`` (in order) with these fingerprints (positions
        winnowing selected, as stored in a corpus).

        Runtime complexity: ``O(n log n)`` in C for the sort.

        >>> Kgrams.selecting(array("Q", [5, 3, 5]), array("q", [1])).where(5).tolist()
        [0, 2]
        """
        positions = array("q", sorted(range(len(hashes)), key=hashes.__getitem__))
        ordered = array("Q", map(hashes.__getitem__, positions))
        return cls(hashes, selected, ordered, positions)

    def fingerprints(self) -> set[int]:
        """The hashes of the fingerprints."""
        return set(map(self.hashes.__getitem__, self.selected))

    def where(self, value: int, most: int | None = None) -> array[int] | None:
        """The positions of the k-grams whose hash is ``value``, in increasing order;
        ``None`` if there are more than ``most``.

        Runtime complexity: ``O(log n)``, plus the positions returned.

        >>> Kgrams.of([7] * 100, k=3, window=4).where(hash((7, 7, 7)) & (2**64 - 1), 10)
        """
        low = bisect_left(self.ordered, value)
        high = bisect_right(self.ordered, value, low)
        if most is not None and high - low > most:
            return None
        return self.positions[low:high]
