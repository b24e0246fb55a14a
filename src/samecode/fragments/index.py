"""An index of fingerprints to the files holding them: which files share text, and which
fingerprints are boilerplate.

A fingerprint in more files than a limit (:meth:`FragmentOptions.boilerplate_limit
<samecode.fragments.options.FragmentOptions.boilerplate_limit>`) is boilerplate: licence
headers, generated preambles, ``if __name__ == "__main__":`` blocks. It is ignored, and
counted. Two files that share any other fingerprint are a candidate pair (a file is a
candidate with itself when it selects a fingerprint twice); by the winnowing guarantee, no
pair sharing a run of ``window + k - 1`` tokens that is not all boilerplate is missed.

>>> index = FingerprintIndex()
>>> index.add(0, [5, 6, 7]); index.add(1, [6, 8]); index.add(2, [6, 7, 7])
>>> ignored = index.boilerplate(2)
>>> sorted(ignored), index.candidate_pairs(ignored)
([6], [(0, 2), (2, 2)])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import combinations

__all__ = ["FingerprintIndex"]


class FingerprintIndex:
    """Fingerprint hashes to the files (numbers) that select them.

    Memory: a dictionary entry per distinct fingerprint hash (the first file to select
    it), and a list entry per other file selecting it.
    """

    def __init__(self) -> None:
        self._first: dict[int, int] = {}  # hash -> the first file to select it
        self._more: dict[int, list[int]] = {}  # hash -> the other files, if any
        # hash -> times selected over every file, where not once (in one file, once)
        self._counts: dict[int, int] = {}
        self._repeated: dict[int, set[int]] = {}  # file -> hashes it selects twice or more

    def add(self, file: int, hashes: Iterable[int]) -> None:
        """Add a file's fingerprint hashes (with repeats, as selected); each file once."""
        first, counts = self._first, self._counts
        for value, count in Counter(hashes).items():
            if first.setdefault(value, file) != file:
                self._more.setdefault(value, []).append(file)
                counts[value] = counts.get(value, 1) + count
            elif count > 1:
                counts[value] = count
            if count > 1:
                self._repeated.setdefault(file, set()).add(value)

    def boilerplate(self, limit: int) -> frozenset[int]:
        """The hashes in more than ``limit`` files."""
        if limit < 1:
            return frozenset(self._first)
        return frozenset(value for value, more in self._more.items() if len(more) >= limit)

    def occurrences(self, hashes: Iterable[int]) -> int:
        """How many times ``hashes`` were selected, over every file."""
        return sum(self._counts.get(value, 1) for value in hashes if value in self._first)

    def candidate_pairs(self, ignored: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
        """The pairs of files (``(i, j)``, ``i <= j``, sorted) sharing a fingerprint not
        in ``ignored``; ``(i, i)`` for a file selecting one twice.

        Runtime complexity: ``O(f**2)`` per fingerprint in ``f`` files (``f`` is at most
        the boilerplate limit), plus sorting the pairs.
        """
        pairs: set[tuple[int, int]] = set()
        first = self._first
        for value, more in self._more.items():
            if value not in ignored:
                pairs.update(combinations(sorted([first[value], *more]), 2))
        for file, values in self._repeated.items():
            if not values <= ignored:
                pairs.add((file, file))
        return sorted(pairs)
