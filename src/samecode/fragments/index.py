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

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import combinations, compress, islice, pairwise, repeat
from operator import and_, gt, lshift, ne, or_, rshift, sub

from samecode._kernels import use_numpy
from samecode._validation import check_int
from samecode.errors import SamecodeValueError

__all__ = ["FingerprintIndex"]

_FILES = 2**32  # file numbers fit in the low 32 bits of a sort key
_LOW = _FILES - 1


class FingerprintIndex:
    """Fingerprint hashes to the files (numbers) that select them.

    Kept as two arrays, one entry per fingerprint selected (with its repeats): the
    hashes, and the file selecting each. The first question after an :meth:`add` sorts
    them, by hash then file (``O(f log f)`` for ``f`` entries, in C, with a Python int per
    entry for the time of the sort: about 70 bytes per entry at its peak; with numpy,
    ``samecode[fast]``, numpy's sort of the arrays, the same order and some 30 bytes per
    entry), and notes where each hash's run starts.

    Memory: about 20 bytes per fingerprint selected (8 for its hash, 4 for its file, 8
    per distinct hash for where its run starts); a dictionary, by contrast, costs some
    140 bytes per distinct hash.
    """

    def __init__(self) -> None:
        self._hashes = array("Q")  # by hash then file once sorted
        self._files = array("I")
        self._runs: array[int] | None = None  # where each hash's run starts, then the end

    def add(self, file: int, hashes: Iterable[int]) -> None:
        """Add a file's fingerprint hashes (with repeats, as selected); each file once.

        :param file: the file's number, ``0 <= file < 2**32``.
        :param hashes: its fingerprints' hashes (unsigned 64-bit ints).
        :raises TypeError, ValueError: for a bad file number.

        Runtime complexity: ``O(h log h)`` in C for its ``h`` hashes.
        """
        check_int(file, "file")
        if not 0 <= file < _FILES:
            raise SamecodeValueError(f"file must be in 0 to 2**32 - 1; got {file!r}")
        before = len(self._hashes)
        self._hashes.extend(sorted(hashes))  # sorted runs make the sort of them all quick
        self._files.extend(repeat(file, len(self._hashes) - before))
        self._runs = None

    def _sorted(self) -> array[int]:
        """Sort the entries (once after adds) and return where each hash's run starts,
        with the number of entries at the end."""
        if self._runs is None and use_numpy(len(self._hashes)):
            import samecode._numpy_kernels as fast

            self._hashes, self._files, self._runs = fast.sorted_entries(self._hashes, self._files)
        if self._runs is None:
            keys = sorted(map(or_, map(lshift, self._hashes, repeat(32)), self._files))
            self._hashes = array("Q", map(rshift, keys, repeat(32)))
            self._files = array("I", map(and_, keys, repeat(_LOW)))
            del keys
            hashes = self._hashes
            changes = compress(range(1, len(hashes)), map(ne, hashes, islice(hashes, 1, None)))
            self._runs = array("q", [0] if hashes else [])
            self._runs.extend(changes)
            self._runs.append(len(hashes))
        return self._runs

    def _long_runs(self, least: int) -> Iterable[int]:
        """The numbers of the runs of more than ``least`` entries."""
        runs = self._sorted()
        sizes = map(sub, islice(runs, 1, None), runs)
        return compress(range(len(runs) - 1), map(gt, sizes, repeat(least)))

    def _holders(self, run: int) -> array[int]:
        """The files of a run, in order, a file as often as it selected the hash."""
        runs = self._sorted()
        return self._files[runs[run] : runs[run + 1]]

    def boilerplate(self, limit: int) -> frozenset[int]:
        """The hashes in more than ``limit`` files.

        Runtime complexity: the sort (see the class), then a step per hash selected more
        than ``limit`` times.
        """
        runs = self._sorted()
        hashes = self._hashes
        return frozenset(
            hashes[runs[run]]
            for run in self._long_runs(max(limit, 0))
            if len(set(self._holders(run))) > limit
        )

    def occurrences(self, hashes: Iterable[int]) -> int:
        """How many times ``hashes`` were selected, over every file.

        Runtime complexity: the sort (see the class), then ``O(log f)`` per hash.
        """
        runs = self._sorted()
        starts = self._hashes
        count = 0
        for value in hashes:
            at = bisect_left(starts, value)
            if at < len(starts) and starts[at] == value:
                run = bisect_left(runs, at)
                count += runs[run + 1] - runs[run]
        return count

    def candidate_pairs(
        self, ignored: frozenset[int] = frozenset(), *, star: Sequence[int] | None = None
    ) -> list[tuple[int, int]]:
        """The pairs of files (``(i, j)``, ``i <= j``, sorted) sharing a fingerprint not
        in ``ignored``; ``(i, i)`` for a file selecting one twice. With ``star`` (a rank
        for each file number, such as the order of the files' paths), a fingerprint in
        ``f`` files pairs the first of them by rank with each of the others, not every
        two: text copied into ``N`` files makes ``N - 1`` pairs, each copy with the first,
        and two copies are still a pair where they share a fingerprint the first lacks.

        Runtime complexity: the sort (see the class), then ``O(f**2)`` per fingerprint
        in ``f`` files (``f`` is at most the boilerplate limit; ``O(f)`` with ``star``),
        plus sorting the pairs.

        >>> index = FingerprintIndex()
        >>> for file in range(4):
        ...     index.add(file, [7])
        >>> len(index.candidate_pairs()), index.candidate_pairs(star=[3, 0, 1, 2])
        (6, [(0, 1), (1, 2), (1, 3)])
        """
        runs = self._sorted()
        hashes = self._hashes
        pairs: set[tuple[int, int]] = set()
        files = self._files
        for run in self._long_runs(1):
            start = runs[run]
            if hashes[start] in ignored:
                continue
            if runs[run + 1] - start == 2:  # most shared hashes: two holders, sorted
                pairs.add((files[start], files[start + 1]))
                continue
            holders = self._holders(run)
            distinct = sorted(set(holders))
            if star is not None:
                hub = min(distinct, key=star.__getitem__)
                pairs.update((min(hub, file), max(hub, file)) for file in distinct if file != hub)
            else:
                pairs.update(combinations(distinct, 2))
            if len(distinct) < len(holders):  # a file selecting it twice or more
                pairs.update((file, file) for file, again in pairwise(holders) if file == again)
        return sorted(pairs)
