"""What every Hamming index shares: its parameters, and the questions asked of all of it.

:class:`Lookups` is the base of :class:`samecode.hamming.index.HammingIndex` and
:class:`samecode.hamming.sqlite.SQLiteIndex`. An index provides a snapshot of its keys and
fingerprints (:meth:`Lookups.snapshot`); the batch questions (every close pair, the groups
of identical fingerprints, the clusters) are answered here, from the snapshot, by the batch
engine of :mod:`samecode.hamming.allpairs`.

Identical fingerprints are grouped first, in ``O(n)``: the engine sees each distinct value
once, so a million copies of one fingerprint cost a million steps, not a million squared.
The pairs among copies are then made only where they are asked for: all of them by
:meth:`Lookups.find_all`, one at a time by :meth:`Lookups.iter_pairs`, and none by
:meth:`Lookups.duplicates`, :meth:`Lookups.near_groups` and :meth:`Lookups.clusters`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import combinations, repeat
from typing import Any

from samecode._groups import linked_groups
from samecode._validation import describe
from samecode.errors import SamecodeTypeError
from samecode.hamming.allpairs import distinct_groups, near_pairs
from samecode.hamming.plan import Plan

__all__ = ["Lookups", "pairs_of", "sort_ranked"]

Pair = tuple[Any, Any, int]


def pairs_of(items: object) -> Iterator[tuple[Any, Any]]:
    """The ``(key, fingerprint)`` pairs of an index's ``add_many`` argument: an iterable of
    tuples (or lists) of two, or a mapping of key to fingerprint.

    :raises TypeError: for anything else (at the call), or an item that is not a pair
        (when it is reached): ``b"\\x05\\x07"`` is not the pair ``(5, 7)``.
    """
    if isinstance(items, Mapping):
        return iter(items.items())
    if isinstance(items, (str, bytes, bytearray, memoryview)) or not isinstance(items, Iterable):
        raise SamecodeTypeError(
            f"items must be an iterable of (key, fingerprint) pairs or a mapping; "
            f"got {describe(items)}"
        )
    return map(_pair, items)


def _pair(item: object) -> tuple[Any, Any]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise SamecodeTypeError(f"items must be (key, fingerprint) pairs; got {describe(item)}")
    return item[0], item[1]


def sort_ranked(
    items: list[Any], rank: Callable[[Any], Any], fallback: Callable[[Any], Any]
) -> None:
    """Sort ``items`` by ``rank``, or by ``fallback`` where ranks cannot be compared."""
    try:
        items.sort(key=rank)
    except TypeError:
        items.sort(key=fallback)


def _oriented(keys: list[Any], i: int, j: int, distance: int) -> Pair:
    """The pair of positions ``i < j`` as ``(key_a, key_b, distance)``, smaller key first
    (the key added first when they cannot be compared)."""
    a, b = keys[i], keys[j]
    try:
        if b < a:
            return b, a, distance
    except TypeError:
        pass
    return a, b, distance


class _Answer:
    """One snapshot's distinct values, their groups and their close pairs."""

    __slots__ = ("groups", "keys", "pairs", "values")

    def __init__(self, keys: list[Any], values: list[int], size: int, distance: int) -> None:
        self.keys = keys
        distinct, groups = distinct_groups(values)
        self.values = distinct
        self.groups = groups
        # Distinct values are at least 1 apart: with distance 0 there is nothing to look for.
        close = near_pairs(distinct, size, distance) if distance > 0 else set()
        self.pairs = sorted(((distinct[u] ^ distinct[v]).bit_count(), u, v) for u, v in close)

    def members(self, value: int) -> list[int]:
        """The positions (in the order keys were added) holding distinct value ``value``."""
        return [value] if self.groups is None else self.groups[value]

    def repeated(self) -> list[list[int]]:
        """The groups of two positions or more, in order of their first position."""
        return [] if self.groups is None else [g for g in self.groups if len(g) > 1]

    def ordered_keys(self, positions: list[int]) -> list[Any]:
        """The keys at ``positions``, sorted (in the order added if they do not compare)."""
        keys = self.keys
        chosen = [keys[p] for p in positions]
        try:
            chosen.sort()
        except TypeError:
            chosen = [keys[p] for p in sorted(positions)]
        return chosen


class Lookups(ABC):
    """What both indexes share: their parameters, and the batch questions over a snapshot."""

    __slots__ = ("_kind", "_plan", "_size")

    _kind: str | None
    _plan: Plan
    _size: int

    @property
    def size_in_bits(self) -> int:
        """The width of the fingerprints, in bits."""
        return self._size

    @property
    def max_distance(self) -> int:
        """The largest distance a lookup may ask for."""
        return self._plan.max_distance

    @property
    def kind(self) -> str | None:
        """The name of the fingerprint class this index holds, or ``None`` for any."""
        return self._kind

    @property
    def plan(self) -> Plan:
        """The tables this index uses (see :meth:`samecode.hamming.plan.Plan.describe`)."""
        return self._plan

    @abstractmethod
    def snapshot(self) -> tuple[list[Any], list[int]]:
        """Return the keys and their fingerprints (as ints), in the order keys were added."""

    def _answer(self, max_distance: int | None) -> _Answer:
        keys, values = self.snapshot()
        return _Answer(keys, values, self._size, self._plan.check_distance(max_distance))

    def find_all(self, max_distance: int | None = None) -> list[tuple[Any, Any, int]]:
        """Return every pair of keys whose fingerprints are within ``max_distance``.

        Each pair is ``(key_a, key_b, distance)`` once, with ``key_a < key_b`` (or ``key_a``
        added first, when keys cannot be compared); keys with identical fingerprints are
        pairs at distance 0. The list is sorted by distance, then keys. The work is done
        in batch, not by a query per fingerprint.

        The list holds every pair: ``g`` copies of one fingerprint make ``g * (g - 1) / 2``
        of them. For many copies, ask :meth:`duplicates` and :meth:`near_groups` (the same
        answer in groups, ``O(n)`` memory) or :meth:`iter_pairs` (one pair at a time).

        :raises ValueError: for a distance beyond the index's.

        Runtime complexity: ``O(n)`` to group identical fingerprints, the batch engine over
        the distinct ones (:func:`samecode.fingerprints.simhash.find_all` states its cost),
        and ``O(p log p)`` for the ``p`` pairs returned.

        >>> from samecode.hamming.index import HammingIndex
        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([(1, 0b1000), (2, 0b1000), (3, 0b1001), (4, 0b0110)])
        >>> index.find_all()
        [(1, 2, 0), (1, 3, 1), (2, 3, 1)]
        """
        answer = self._answer(max_distance)
        try:
            return _sorted_pairs(answer)
        except TypeError:  # keys that do not compare: rank by the order they were added
            pairs = list(_position_pairs(answer))
            keys = answer.keys
            ranked = [(*_oriented(keys, i, j, d), i, j) for i, j, d in pairs]
            sort_ranked(ranked, lambda p: (p[2], p[0], p[1]), lambda p: (p[2], p[3], p[4]))
            return [(a, b, d) for a, b, d, _, _ in ranked]

    def iter_pairs(self, max_distance: int | None = None) -> Iterator[tuple[Any, Any, int]]:
        """Iterate over :meth:`find_all`'s pairs without holding them all.

        The pairs are those of the index when this is called, each once and oriented as
        :meth:`find_all` orients them, nearest first: the copies of identical fingerprints
        (distance 0), then the pairs of distinct fingerprints by distance; within one
        distance their order is fixed but not sorted by key.

        :raises ValueError: for a distance beyond the index's (at the call).

        Runtime complexity: the batch engine at the call, then ``O(1)`` per pair; memory
        ``O(n)`` plus the close pairs of *distinct* fingerprints, however many copies.

        >>> from samecode.hamming.index import HammingIndex
        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("a", 5), ("b", 5), ("c", 5), ("d", 4)])
        >>> list(index.iter_pairs())
        [('a', 'b', 0), ('a', 'c', 0), ('b', 'c', 0), ('a', 'd', 1), ('b', 'd', 1), ('c', 'd', 1)]
        """
        answer = self._answer(max_distance)
        keys = answer.keys
        return (_oriented(keys, i, j, d) for i, j, d in _position_pairs(answer))

    def duplicates(self) -> list[list[Any]]:
        """Return the groups of two keys or more whose fingerprints are identical.

        Each group's keys are sorted (in the order they were added, when they cannot be
        compared); groups come largest first, then by the order their first key was added.

        Runtime complexity: ``O(n)``, plus sorting the groups.

        >>> from samecode.hamming.index import HammingIndex
        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("b", 7), ("a", 7), ("c", 6), ("d", 9), ("e", 9), ("f", 9)])
        >>> index.duplicates()
        [['d', 'e', 'f'], ['a', 'b']]
        """
        keys, values = self.snapshot()
        answer = _Answer(keys, values, self._size, 0)
        groups = answer.repeated()
        groups.sort(key=lambda g: (-len(g), g[0]))
        return [answer.ordered_keys(g) for g in groups]

    def near_groups(
        self, max_distance: int | None = None
    ) -> list[tuple[list[Any], list[Any], int]]:
        """Return the pairs of *distinct* fingerprints within ``max_distance``, as groups.

        Each item is ``(keys_a, keys_b, distance)``: all the keys holding one fingerprint,
        all the keys holding the other (each list sorted as in :meth:`duplicates`), and
        their distance, at least 1. With :meth:`duplicates` this is :meth:`find_all`'s
        answer in ``O(n)`` memory: every key of ``keys_a`` pairs with every key of
        ``keys_b``. Items come by distance, then by the order the groups' first keys
        were added.

        :raises ValueError: for a distance beyond the index's.

        >>> from samecode.hamming.index import HammingIndex
        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("a", 5), ("b", 5), ("c", 4), ("d", 0xF0)])
        >>> index.near_groups()
        [(['a', 'b'], ['c'], 1)]
        """
        answer = self._answer(max_distance)
        return [
            (answer.ordered_keys(answer.members(u)), answer.ordered_keys(answer.members(v)), d)
            for d, u, v in answer.pairs
        ]

    def clusters(self, max_distance: int | None = None) -> list[list[Any]]:
        """Return the groups of keys linked by chains of pairs within ``max_distance``.

        These are the connected components, with two keys or more, of the graph whose
        edges are :meth:`find_all`'s pairs (so keys with identical fingerprints are in one
        group). Each group lists its keys in order (by the order they were added when keys
        cannot be compared); groups come largest first, then by the order their first key
        was added.

        :raises ValueError: for a distance beyond the index's.

        Runtime complexity: ``O(n)`` beyond the batch engine, however many copies of a
        fingerprint there are.

        >>> from samecode.hamming.index import HammingIndex
        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("a", 0b000), ("b", 0b001), ("c", 0b011), ("d", 0xF000)])
        >>> index.clusters()
        [['a', 'b', 'c']]
        """
        answer = self._answer(max_distance)
        linked = ((u, v) for _, u, v in answer.pairs)
        out = []
        for group in linked_groups(linked, range(len(answer.values))):
            positions = [p for u in group for p in answer.members(u)]
            if len(positions) > 1:
                out.append((len(positions), min(positions), answer.ordered_keys(positions)))
        out.sort(key=lambda g: (-g[0], g[1]))
        return [keys for _, _, keys in out]


def _position_pairs(answer: _Answer) -> Iterator[tuple[int, int, int]]:
    """``(i, j, distance)`` for every close pair of positions ``i < j``: copies first,
    then the distinct fingerprints' pairs by distance."""
    for group in answer.repeated():
        for i, j in combinations(group, 2):
            yield i, j, 0
    for d, u, v in answer.pairs:
        for i in answer.members(u):
            for j in answer.members(v):
                yield (i, j, d) if i < j else (j, i, d)


def _sorted_pairs(answer: _Answer) -> list[Pair]:
    """:meth:`Lookups.find_all`'s answer when keys compare (else ``TypeError``): the copies'
    pairs come out of sorted groups already oriented, and each distance is sorted once."""
    keys = answer.keys
    by_distance: dict[int, list[Pair]] = {}
    zero = by_distance.setdefault(0, [])
    for group in answer.repeated():
        ordered = sorted(keys[p] for p in group)
        zero += map(tuple.__add__, combinations(ordered, 2), repeat((0,)))
    for d, u, v in answer.pairs:
        bucket = by_distance.setdefault(d, [])
        for i in answer.members(u):
            a = keys[i]
            for j in answer.members(v):
                b = keys[j]
                bucket.append((a, b, d) if a < b else (b, a, d))
    out: list[Pair] = []
    for d in sorted(by_distance):
        bucket = by_distance[d]
        bucket.sort()
        out += bucket
    return out
