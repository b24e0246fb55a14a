"""All pairs within a Hamming distance, in batch: the engine behind every ``find_all``.

For each table of a :class:`~samecode.plan.Plan` every fingerprint gets its table key, in
an ``array``; only fingerprints whose key is shared can be near each other through that
table. Finding the shared keys is the costly part, and it is done in C: the keys are made
into lists 1024 at a time, and a bitmap of the keys seen so far (a ``bitarray`` indexed by
a list of keys) tells which keys of a chunk appeared in an earlier chunk; a set of the
chunk tells whether the chunk repeats a key itself. A second pass over the bitmap of shared
keys marks every row that has one. Only those rows reach Python: their values are read in
row order, the rows are ordered by key, and every pair under one key is checked exactly,
in C (``xor`` and ``int.bit_count`` over ``map``). A pair near through several tables is
kept once.
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import compress, islice, repeat
from operator import add, eq, xor

from bitarray import bitarray
from bitarray.util import ones, zeros

from samecode.plan import Plan, batch_key_bits, keys_of

__all__ = ["UINT32", "near_pairs"]

_CHUNK = 1024
# For each k, a bytes.translate table that keeps the low k bits of a byte.
_LOW_BITS = [bytes(b & ((1 << k) - 1) for b in range(256)) for k in range(8)]
#: An array type of 4-byte unsigned cells (keys of up to 24 bits here, row links in the index).
UINT32 = "I" if array("I").itemsize == 4 else "L"
_SMALL = 4096


def _byte_columns(values: Sequence[int], size: int) -> list[bytes]:
    """Byte ``j`` of every value (bits ``8j`` to ``8j + 7``), one bytes object per ``j``."""
    width = size // 8
    if size == 64 and sys.byteorder == "little":
        raw = values.tobytes() if isinstance(values, array) else array("Q", values).tobytes()
    else:
        raw = b"".join([v.to_bytes(width, "little") for v in values])
    return [raw[j::width] for j in range(width)]


def _table_keys(
    values: Sequence[int], plan: Plan, table: int, columns: list[bytes] | None
) -> tuple[array[int], int]:
    """Return each value's key in one table (narrowed to :func:`batch_key_bits`), and its width.

    Narrowing keeps a subset of the key's bits, so equal keys stay equal: it can only add
    candidates, which the exact check then drops.
    """
    ranges = plan.ranges(table)
    if columns is not None and plan.whole_bytes(table):
        byte_list = [low // 8 + i for low, width in ranges for i in range(width // 8)]
        bits = min(8 * len(byte_list), batch_key_bits(len(values)))
        cell = array(UINT32).itemsize
        packed = bytearray(cell * len(values))
        for position, j in enumerate(byte_list[: -(-bits // 8)]):
            kept = min(bits - 8 * position, 8)
            column = columns[j] if kept == 8 else columns[j].translate(_LOW_BITS[kept])
            packed[position::cell] = column
        packed_keys = array(UINT32, packed)
        if sys.byteorder != "little":
            packed_keys.byteswap()
        return packed_keys, bits
    bits = min(sum(width for _, width in ranges), batch_key_bits(len(values)))
    cut = [(shift, mask & ((1 << bits) - 1)) for shift, mask in plan.key_terms[table]]
    return array(UINT32, keys_of(values, [term for term in cut if term[1]])), bits


def _chunks(keys: array[int]) -> Iterator[list[int]]:
    """The keys as lists of up to ``_CHUNK``, made one at a time (a million live ints at
    once would cost memory traffic on every pass)."""
    for start in range(0, len(keys), _CHUNK):
        yield keys[start : start + _CHUNK].tolist()


def _shared_keys(keys: array[int], bits: int) -> bitarray:
    """Return a bitmap of the keys that occur more than once in ``keys``."""
    shared = zeros(1 << bits)
    if len(keys) <= _SMALL:
        shared[[key for key, count in Counter(keys).items() if count > 1]] = 1
        return shared
    seen = zeros(1 << bits)
    hits = bitarray()  # per row: its key is in an earlier chunk
    repeated: list[int] = []  # keys repeated within one chunk
    for chunk in _chunks(keys):
        hits += seen[chunk]
        seen[chunk] = 1
        if len(set(chunk)) < len(chunk):
            repeated += [key for key, count in Counter(chunk).items() if count > 1]
    shared[list(map(keys.__getitem__, hits.search(1)))] = 1
    shared[repeated] = 1
    return shared


def _candidates(keys: array[int], bits: int, live: bitarray | None) -> list[int]:
    """Return the rows whose key is shared (only ``live`` rows, if given), in order."""
    shared = _shared_keys(keys, bits)
    marked = bitarray()
    for chunk in _chunks(keys):
        marked += shared[chunk]
    if live is not None:
        marked &= live
    return list(marked.search(1))


def _pairs_in_groups(keys: list[int], items: Sequence[int]) -> tuple[list[int], list[int]]:
    """Return the pairs of ``items`` under equal ``keys``, for keys in sorted order.

    Positions ``i`` and ``i + gap`` share a key when ``keys[i] == keys[i + gap]``; those
    are a subset of the positions that did so for ``gap - 1``, so after the first gap (a
    pass over all the keys) only a few positions are left to check. Every step is C work.
    """
    first: list[int] = []
    second: list[int] = []
    ahead = [*keys, -1]  # -1 is no key: it ends the last group
    at = list(compress(range(len(keys)), map(eq, keys, islice(ahead, 1, None))))
    gap = 1
    while at:
        partners = list(map(add, at, repeat(gap)))
        first += map(items.__getitem__, at)
        second += map(items.__getitem__, partners)
        gap += 1
        same = map(
            eq, map(ahead.__getitem__, at), map(ahead.__getitem__, map(add, partners, repeat(1)))
        )
        at = list(compress(at, same))
    return first, second


def _repeats(rows: list[int], values: list[int]) -> list[int]:
    """The rows (in increasing order, with their values) whose value is at an earlier row."""
    if len(set(values)) == len(values):
        return []
    repeated = {value for value, count in Counter(values).items() if count > 1}
    first: dict[int, int] = {}
    return [
        row
        for row, value in zip(rows, values)
        if value in repeated and first.setdefault(value, row) != row
    ]


def near_pairs(
    values: Sequence[int], size_in_bits: int, max_distance: int, plan: Plan, *, distinct: bool
) -> set[tuple[int, int]]:
    """Return every pair within ``max_distance`` of each other.

    With ``distinct=False`` the pairs are of row numbers ``(i, j)``, ``i < j``, identical
    values included. With ``distinct=True`` they are of values ``(a, b)``, ``a < b``: equal
    values count once and never pair with themselves (simhash-py's rule).

    ``plan`` must be exact for ``max_distance`` (or a scan); ``values`` must be ints below
    ``2**size_in_bits`` (a list, or for 64 bits an ``array("Q")``): the callers check both.
    """
    if plan.is_scan:
        if distinct:
            values = list(dict.fromkeys(values))
        rows = list(range(len(values)))
        return _close_pairs([0] * len(rows), rows, list(values), max_distance, distinct)
    found: set[tuple[int, int]] = set()
    columns = _byte_columns(values, size_in_bits) if size_in_bits % 8 == 0 else None
    live: bitarray | None = None
    for table in range(len(plan.tables)):
        table_keys, bits = _table_keys(values, plan, table, columns)
        rows = _candidates(table_keys, bits, live)
        # Rows come in increasing order, so these reads go forward through memory.
        held = list(map(values.__getitem__, rows))
        if distinct and table == 0:
            # Equal values share every table's key, so the first table's candidates hold
            # every repeat: each value keeps its first row, and the other rows are left
            # out of every table.
            repeats = _repeats(rows, held)
            if repeats:
                live = ones(len(values))
                live[repeats] = 0
                kept = live[rows]
                rows, held = list(compress(rows, kept)), list(compress(held, kept))
        keys = list(map(table_keys.__getitem__, rows))
        found.update(_close_pairs(keys, rows, held, max_distance, distinct))
    return found


def _close_pairs(
    keys: list[int], rows: list[int], held: list[int], max_distance: int, distinct: bool
) -> set[tuple[int, int]]:
    """The close pairs among rows with equal keys (``held`` holds the rows' values)."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    at, partner = _pairs_in_groups(list(map(keys.__getitem__, order)), order)
    left = list(map(held.__getitem__, at))
    right = list(map(held.__getitem__, partner))
    close = list(map(max_distance.__ge__, map(int.bit_count, map(xor, left, right))))
    if distinct:
        return {(a, b) if a < b else (b, a) for a, b in compress(zip(left, right), close)}
    pairs = zip(map(rows.__getitem__, at), map(rows.__getitem__, partner))
    return {(a, b) if a < b else (b, a) for a, b in compress(pairs, close)}
