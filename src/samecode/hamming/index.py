"""An exact Hamming-distance index: every stored fingerprint within a distance, ranked.

:class:`HammingIndex` keeps fingerprints under keys of your choice and answers, for any
fingerprint, every key whose fingerprint differs in at most ``max_distance`` bits, ranked by
distance. It chooses its own permuted-block tables (:func:`samecode.hamming.plan.choose_plan`) from
the width, the distance and the expected size, and every answer is checked bit by bit, so
it is exactly what a scan of all fingerprints would return.

>>> from samecode.hamming.index import HammingIndex
>>> index = HammingIndex(size_in_bits=64, max_distance=3)
>>> index.add("a", 0xFFFF_0000_FFFF_0000)
>>> index.add("b", 0xFFFF_0000_FFFF_0007)   # 3 bits from "a"
>>> index.add("c", 0x0123_4567_89AB_CDEF)
>>> index.query(0xFFFF_0000_FFFF_0001)
[('a', 1), ('b', 2)]
>>> index.find_all()
[('a', 'b', 3)]
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from bitarray import bitarray
from bitarray.util import ba2int

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.hamming._lookups import Lookups, pairs_of, sort_ranked
from samecode.hamming.allpairs import UINT32
from samecode.hamming.plan import Plan, dense_table, key_of, keys_of, resolve_plan

__all__ = ["Digest", "HammingIndex", "fingerprint_value", "kind_name"]

# Rows are numbered from 1, so that a link (a row number, in a UINT32 cell) of 0 ends a
# chain. At most _PRESIZE rows are allocated up front; the index grows past them by a
# quarter at a time.
_PRESIZE = 1 << 22

_Terms = tuple[tuple[int, int], ...]


@runtime_checkable
class Digest(Protocol):
    """What an index takes of a fingerprint object (such as every
    :class:`~samecode.fingerprints.fingerprint.Fingerprint`): its width and its bits as an
    int; the indexes need nothing else of it.

    >>> from samecode import SimHash
    >>> isinstance(SimHash(["a", "b"]), Digest), isinstance(5, Digest)
    (True, False)
    """

    @property
    def size_in_bits(self) -> int:
        """The fingerprint's width."""
        ...

    def intdigest(self) -> int:
        """The fingerprint's bits, the first one most significant."""
        ...


def _is_digest_class(kind: type) -> bool:
    """Whether instances of ``kind`` are :class:`Digest` objects, told by its methods:
    ``isinstance`` against a runtime-checkable Protocol costs some 10 us a call, which an
    index paid for every fingerprint it was given."""
    return callable(getattr(kind, "intdigest", None)) and hasattr(kind, "size_in_bits")


def kind_name(kind: str | type[Digest] | None) -> str | None:
    """Return the name an index records for a fingerprint kind (a class or its name).

    >>> from samecode import SimHash
    >>> kind_name(SimHash), kind_name("SimHash"), kind_name(None)
    ('SimHash', 'SimHash', None)
    """
    if kind is None:
        return None
    if isinstance(kind, type) and _is_digest_class(kind):
        return kind.__name__
    if isinstance(kind, str) and kind:
        return kind
    raise SamecodeTypeError(
        f"kind must be a Fingerprint class, its name or None; got {describe(kind)}"
    )


def fingerprint_value(value: object, size_in_bits: int, kind: str | None = None) -> int:
    """Return a fingerprint as a non-negative int below ``2**size_in_bits``.

    This is where every index turns what it is given into the one form it stores:

    - an ``int`` is taken as it is;
    - a ``bitarray`` of ``size_in_bits`` bits is read with its first bit most significant
      (as :meth:`~samecode.fingerprints.fingerprint.Fingerprint.hash` gives it);
    - a fingerprint object of this package gives its :meth:`intdigest`; when ``kind`` is
      set, it must be of that class.

    :raises TypeError: for anything else, a bool, or a fingerprint of another kind.
    :raises ValueError: for a negative int, or one that needs more than ``size_in_bits``
        bits, or a bitarray or fingerprint of another width.

    >>> from bitarray import bitarray
    >>> fingerprint_value(bitarray("0000000000000101"), 16)
    5
    >>> fingerprint_value(1 << 16, 16)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: a 16-bit fingerprint must be an int from 0 to 2**16 - ...
    """
    if type(value) is int:
        if value >= 0 and not value >> size_in_bits:
            return value
        raise SamecodeValueError(
            f"a {size_in_bits}-bit fingerprint must be an int from 0 to 2**{size_in_bits} - 1; "
            f"got {value!r}"
        )
    if _is_digest_class(type(value)):
        value = cast(Digest, value)
        name = type(value).__name__
        if kind is not None and name != kind:
            raise SamecodeTypeError(f"this index holds {kind} fingerprints; got a {name}")
        if value.size_in_bits != size_in_bits:
            raise SamecodeValueError(
                f"this index holds {size_in_bits}-bit fingerprints; got a "
                f"{value.size_in_bits}-bit {name}"
            )
        return value.intdigest()
    if isinstance(value, bitarray):
        if len(value) != size_in_bits:
            raise SamecodeValueError(
                f"this index holds {size_in_bits}-bit fingerprints; got a bitarray of "
                f"{len(value)} bits"
            )
        return ba2int(bitarray(value, "big"))
    if isinstance(value, int) and not isinstance(value, bool):
        return fingerprint_value(int(value), size_in_bits, kind)
    raise SamecodeTypeError(
        f"a fingerprint must be an int, a bitarray or a samecode fingerprint; got {describe(value)}"
    )


class HammingIndex(Lookups):
    """Fingerprints under keys, with exact lookups of everything within a distance.

    :param size_in_bits: the width of every fingerprint, 1 to 4096.
    :param max_distance: the largest distance a lookup may ask for; the tables are built so
        that every fingerprint within it is found.
    :param kind: optionally, the fingerprint class (or its name) this index holds;
        fingerprint objects of another class are refused. Ints and bitarrays are always
        taken as they are.
    :param expected_size: how many fingerprints you expect; it sizes the tables.
    :param plan: a :class:`~samecode.hamming.plan.Plan` to use instead of choosing one; it must
        match ``size_in_bits`` and ``max_distance``.
    :raises TypeError: for arguments of the wrong type.
    :raises ValueError: for a width, distance or size out of range, or a plan that does
        not match.

    Keys are any hashable values. Each table chains the fingerprints that share a table
    key: it holds, per table key, the first of them (in an ``array`` indexed by the key,
    or a dict for wide keys) and, per fingerprint, the next one. There is no
    object per bucket, so memory is the keys and fingerprints plus 4 bytes per fingerprint
    per table and the heads. Rows are only ever appended, so their order is the order
    keys were added; :meth:`remove` marks a row gone, and once gone rows outnumber half
    the live ones (and a thousand), the rows are compacted and the chains relinked.

    Runtime complexity: :meth:`add` is ``O(T)`` for ``T`` tables; :meth:`remove` is ``O(1)``
    plus an amortised ``O(T)`` for compaction, whatever the chains hold (a million copies
    of one fingerprint included); :meth:`query` is ``O(T + c)`` for ``c`` candidates
    (``plan.expected_candidates(len(index))`` for random fingerprints, plus the answers,
    plus at most as many rows gone since the last compaction).

    >>> index = HammingIndex(128, max_distance=10, expected_size=1000)
    >>> print(index.plan.describe(1000))
    128-bit, d <= 10: 11 tables of 11/12-bit keys (11 blocks); 3.7 candidates per lookup of 1000
    """

    __slots__ = (
        "_fast",
        "_general",
        "_gone",
        "_keys",
        "_limit",
        "_rows",
        "_tables",
        "_top",
        "_values",
    )

    def __init__(
        self,
        size_in_bits: int = 64,
        max_distance: int = 3,
        *,
        kind: str | type[Digest] | None = None,
        expected_size: int = 10_000,
        plan: Plan | None = None,
    ) -> None:
        plan = resolve_plan(size_in_bits, max_distance, expected_size, plan, "memory")
        size = plan.size_in_bits
        self._size = size
        self._limit = 1 << size
        self._kind = kind_name(kind)
        self._plan = plan
        # Rows are allocated up front for the expected size (growing allocations would
        # leave holes in the heap); row 0 stands for "no row".
        capacity = min(max(expected_size, 16), _PRESIZE) + 1
        self._values: Any = _zero_values(size, capacity)
        self._keys: list[Any] = [None] * capacity
        self._top = 1  # the next row never used
        self._rows: dict[Any, int] = {}
        self._gone = 0  # rows removed but still linked in the chains
        # Per table: the heads (the first row under each table key, 0 for none), the links
        # (per row, the next row under the same table key, 0 at the end), the heads'
        # lookup and the key's terms. Dense tables keyed on one range of bits (the common
        # case) are also listed on their own, for a fast path.
        self._tables: list[tuple[Any, array[int], Callable[[int], int | None], _Terms]] = []
        self._fast: list[tuple[array[int], array[int], int, int]] = []
        self._general: list[tuple[Any, array[int], Callable[[int], int | None], _Terms]] = []
        for bits, terms in zip(plan.key_bits, plan.key_terms):
            links = array(UINT32, [0]) * capacity
            if dense_table(bits, expected_size):
                dense = array(UINT32, [0]) * (1 << bits)
                self._tables.append((dense, links, dense.__getitem__, terms))
                if len(terms) == 1:
                    self._fast.append((dense, links, *terms[0]))
                    continue
            else:
                sparse: dict[int, int] = {}
                self._tables.append((sparse, links, sparse.get, terms))
            self._general.append(self._tables[-1])

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Any]:
        """Iterate over the keys, in the order they were added."""
        return iter(self._rows)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._rows
        except TypeError:
            return False

    def __repr__(self) -> str:
        return (
            f"<HammingIndex {len(self)} fingerprints, {self._size}-bit, "
            f"max_distance={self.max_distance}, {len(self._plan.tables)} tables>"
        )

    def __getitem__(self, key: Any) -> int:
        """Return the fingerprint stored under ``key``, as an int.

        :raises KeyError: if there is no such key.
        """
        try:
            return int(self._values[self._rows[key]])
        except TypeError:
            raise KeyError(key) from None

    # -- changes ----------------------------------------------------------------------

    def add(self, key: Any, fingerprint: object) -> None:
        """Store ``fingerprint`` under ``key``.

        :param key: any hashable value not already in the index.
        :param fingerprint: an int, a bitarray or a fingerprint object (see
            :func:`fingerprint_value`).
        :raises KeyError: if ``key`` is already in the index (:meth:`remove` it first;
            nothing stored is ever replaced silently).
        :raises TypeError: if ``key`` is unhashable or the fingerprint has the wrong type
            or kind.
        :raises ValueError: if the fingerprint has the wrong width.

        Runtime complexity: ``O(T)`` for ``T`` tables.
        """
        value = fingerprint
        if type(value) is not int or not 0 <= value < self._limit:
            value = fingerprint_value(fingerprint, self._size, self._kind)
        rows = self._rows
        try:
            present = key in rows
        except TypeError:
            raise SamecodeTypeError(f"a key must be hashable; got {describe(key)}") from None
        if present:
            raise KeyError(f"{key!r} is already in the index; remove it first")
        # A new row at the end, linked in front of each table's chain.
        row = self._top
        if row == len(self._keys):
            self._grow(row + 1)
        self._top = row + 1
        rows[key] = row
        self._keys[row] = key
        self._values[row] = value
        for heads, links, shift, mask in self._fast:
            slot = value >> shift & mask
            links[row] = heads[slot]
            heads[slot] = row
        for heads, links, get, terms in self._general:
            slot = key_of(value, terms)
            links[row] = get(slot) or 0
            heads[slot] = row

    def add_many(self, items: Iterable[tuple[Any, object]] | Mapping[Any, object]) -> None:
        """Store many ``(key, fingerprint)`` pairs, with the checks of :meth:`add`.

        ``items`` is an iterable of pairs, each a tuple (or list) of two, or a mapping of
        key to fingerprint. Every pair is checked before any is stored, so a bad pair
        leaves the index as it was. The tables are then linked a table at a time over the
        whole batch, which is faster than :meth:`add` per pair.

        :raises KeyError: if a key is in the index already, or twice in ``items``.
        :raises TypeError: for an item that is not a tuple or list of two (a ``bytes`` of
            two bytes is not a pair), or as :meth:`add`.
        :raises ValueError: as :meth:`add`.

        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("a", 1), ("b", 2), ("a", 3)])
        Traceback (most recent call last):
        ...
        KeyError: "'a' is already in the index; remove it first"
        >>> len(index)
        0
        >>> index.add_many({("x", 1): 5, ("x", 2): 7})
        >>> list(index)
        [('x', 1), ('x', 2)]
        """
        keys, checked = self._checked(items)
        values: Sequence[int] = checked
        start = self._top
        end = start + len(keys)
        if end > len(self._keys):
            self._grow(end)
        self._top = end
        self._rows.update(zip(keys, range(start, end)))
        self._keys[start:end] = keys
        if self._size <= 64:
            # The passes below read the values from this array: reading them from the
            # caller's ints, scattered in memory, takes up to twice as long.
            values = array("Q", values)
        self._values[start:end] = values
        self._link(start, values)

    def _link(self, start: int, values: Sequence[int]) -> None:
        """Link rows ``start``, ``start + 1``... holding ``values`` into every table."""
        for heads, links, shift, mask in self._fast:
            for row, value in enumerate(values, start):
                slot = value >> shift & mask
                links[row] = heads[slot]
                heads[slot] = row
        for heads, links, get, terms in self._general:
            for row, slot in enumerate(keys_of(values, terms), start):
                links[row] = get(slot) or 0
                heads[slot] = row

    def _checked(
        self, items: Iterable[tuple[Any, object]] | Mapping[Any, object]
    ) -> tuple[list[Any], list[int]]:
        """The keys and fingerprint values of ``items``, all checked as :meth:`add` does."""
        keys: list[Any] = []
        values: list[int] = []
        add_key, add_value = keys.append, values.append
        size, kind, limit = self._size, self._kind, self._limit
        for key, value in pairs_of(items):
            if type(value) is not int or not 0 <= value < limit:
                value = fingerprint_value(value, size, kind)
            add_key(key)
            add_value(value)
        try:
            distinct = set(keys)
        except TypeError:
            for key in keys:
                try:
                    hash(key)
                except TypeError:
                    raise SamecodeTypeError(
                        f"a key must be hashable; got {describe(key)}"
                    ) from None
            raise  # pragma: no cover - one of the keys failed above
        if len(distinct) < len(keys) or not distinct.isdisjoint(self._rows):
            seen: set[Any] = set()
            for key in keys:
                if key in seen or key in self._rows:
                    raise KeyError(f"{key!r} is already in the index; remove it first")
                seen.add(key)
        return keys, values

    def _grow(self, rows: int) -> None:
        """Make room for at least ``rows`` rows, and a quarter more."""
        extra = max(rows - len(self._keys), len(self._keys) // 4)
        self._keys += [None] * extra
        self._values += _zero_values(self._size, extra)
        for _, links, _, _ in self._tables:
            links += array(UINT32, [0]) * extra

    def remove(self, key: Any) -> int:
        """Remove ``key`` and return the fingerprint it had, as an int.

        The row is marked gone at once (lookups skip it); when gone rows outnumber half
        the live ones and a thousand, every row is compacted and the chains relinked.

        :raises KeyError: if there is no such key.

        Runtime complexity: ``O(1)``, plus an amortised ``O(T)`` for the compactions.

        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("a", 0b100), ("b", 0b101)])
        >>> index.remove("a"), index.query(0b100)
        (4, [('b', 1)])
        """
        try:
            row = self._rows.pop(key)
        except TypeError:
            raise KeyError(key) from None
        value = int(self._values[row])
        self._keys[row] = _GONE
        self._gone += 1
        if self._gone > _COMPACT_FLOOR + len(self._rows) // 2:
            self._compact()
        return value

    def _compact(self) -> None:
        """Drop the gone rows: the live ones move down in order and every chain is rebuilt."""
        live = list(self._rows.values())  # increasing: rows are appended in key order
        capacity = len(self._keys)
        keys = [None, *map(self._keys.__getitem__, live)]
        values = [0, *map(self._values.__getitem__, live)]
        self._keys = keys + [None] * (capacity - len(keys))
        self._values = _zero_values(self._size, capacity)
        self._values[: len(values)] = (
            array("Q", values) if isinstance(self._values, array) else values
        )
        self._rows = dict(zip(keys[1:], range(1, len(keys))))
        self._top = len(keys)
        self._gone = 0
        for heads, links, _, _ in self._tables:
            if isinstance(heads, array):
                heads[:] = array(UINT32, [0]) * len(heads)
            else:
                heads.clear()
            links[:] = array(UINT32, [0]) * capacity
        self._link(1, values[1:])

    # -- lookups ----------------------------------------------------------------------

    def query(self, fingerprint: object, max_distance: int | None = None) -> list[tuple[Any, int]]:
        """Return ``[(key, distance), ...]`` for every fingerprint within ``max_distance``.

        The list is sorted by distance, then by key (by the order keys were added when
        keys cannot be compared). It is exactly what comparing ``fingerprint`` with every
        stored one would give.

        :param fingerprint: as for :meth:`add`.
        :param max_distance: at most the index's ``max_distance`` (the default).
        :raises TypeError: as for :meth:`add`.
        :raises ValueError: for a fingerprint of the wrong width or a distance beyond the
            index's.

        >>> index = HammingIndex(16, max_distance=2)
        >>> index.add_many([("x", 0b1111), ("y", 0b0111), ("z", 0b0011)])
        >>> index.query(0b1111), index.query(0b1111, max_distance=1)
        ([('x', 0), ('y', 1), ('z', 2)], [('x', 0), ('y', 1)])
        """
        value = fingerprint
        if type(value) is not int or not 0 <= value < self._limit:
            value = fingerprint_value(fingerprint, self._size, self._kind)
        distance = self._plan.check_distance(max_distance)
        values = self._values
        found: dict[int, int] = {}
        if self._plan.is_scan:
            for row in self._rows.values():
                d = (values[row] ^ value).bit_count()
                if d <= distance:
                    found[row] = d
        at: int | None  # the row a chain is at
        for heads, links, shift, mask in self._fast:
            at = heads[value >> shift & mask]
            while at:
                d = (values[at] ^ value).bit_count()
                if d <= distance:
                    found[at] = d
                at = links[at]
        for _, links, get, terms in self._general:
            at = get(key_of(value, terms))
            while at:
                d = (values[at] ^ value).bit_count()
                if d <= distance:
                    found[at] = d
                at = links[at]
        keys = self._keys
        hits = [(keys[row], d, row) for row, d in found.items() if keys[row] is not _GONE]
        if len(hits) > 1:
            # Rows are in the order keys were added: the tie-break for keys that do not compare.
            sort_ranked(hits, lambda h: (h[1], h[0]), lambda h: (h[1], h[2]))
        return [(key, d) for key, d, _ in hits]

    def snapshot(self) -> tuple[list[Any], list[int]]:
        """Return the keys and their fingerprints (as ints), in the order keys were added.

        >>> index = HammingIndex(16, max_distance=1)
        >>> index.add_many([("b", 2), ("a", 1)])
        >>> index.snapshot()
        (['b', 'a'], [2, 1])
        """
        stored = self._values
        return list(self._rows), list(map(int, map(stored.__getitem__, self._rows.values())))

    def items(self) -> Iterator[tuple[Any, int]]:
        """Iterate over ``(key, fingerprint)`` pairs, in the order keys were added."""
        values = self._values
        return ((key, int(values[row])) for key, row in self._rows.items())


_GONE: Any = object()  # the key of a removed row, until the rows are compacted
_COMPACT_FLOOR = 1000


def _zero_values(size: int, count: int) -> Any:
    """``count`` zero fingerprints as an index stores them: an ``array("Q")`` up to 64 bits."""
    return array("Q", [0]) * count if size <= 64 else [0] * count
