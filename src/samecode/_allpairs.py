"""All pairs within a Hamming distance, in batch: the engine behind every ``find_all``.

For each table of a :class:`~samecode.plan.Plan` every fingerprint gets its table key;
only fingerprints whose key is shared can be near each other through that table. Finding
the shared keys is the costly part, and it is done in C: the keys are cut into chunks of
1024, and a bitmap of the keys seen so far (a ``bitarray`` indexed by a list of keys) tells
which keys of a chunk appeared in an earlier chunk; a set of the chunk tells whether the
chunk repeats a key itself. Only the rows with a shared key reach Python, grouped by key,
and every pair in a group is checked exactly, in C (``xor`` and ``int.bit_count`` over
``map``). A pair near through several tables is kept once.
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from itertools import compress, repeat
from operator import and_, eq, lshift, or_, rshift, xor

from bitarray.util import zeros

from samecode.plan import Plan

__all__ = ["near_pairs"]

_CHUNK = 1024
_MAX_KEY_BITS = 24
_SMALL = 4096


def _byte_columns(values: Sequence[int], size: int) -> list[bytes]:
    """Byte ``j`` of every value (bits ``8j`` to ``8j + 7``), one bytes object per ``j``."""
    width = size // 8
    if size == 64 and sys.byteorder == "little":
        raw = array("Q", values).tobytes()
    else:
        raw = b"".join([v.to_bytes(width, "little") for v in values])
    return [raw[j::width] for j in range(width)]


def _table_keys(
    values: Sequence[int], plan: Plan, table: int, columns: list[bytes] | None
) -> tuple[list[int], int]:
    """Return each value's key in one table (narrowed to at most 24 bits) and its width.

    Narrowing keeps a subset of the key's bits, so equal keys stay equal: it can only add
    candidates, which the exact check then drops.
    """
    ranges = plan.ranges(table)
    if columns is not None and all(low % 8 == 0 and width % 8 == 0 for low, width in ranges):
        byte_list = [low // 8 + i for low, width in ranges for i in range(width // 8)]
        byte_list = byte_list[: _MAX_KEY_BITS // 8]
        packed = bytearray(4 * len(values))
        for position, j in enumerate(byte_list):
            packed[position::4] = columns[j]
        packed_keys = array("I", packed)
        if sys.byteorder != "little":
            packed_keys.byteswap()
        return packed_keys.tolist(), 8 * len(byte_list)
    bits = min(sum(width for _, width in ranges), _MAX_KEY_BITS)
    mask = (1 << bits) - 1
    if len(ranges) == 1:
        low = ranges[0][0]
        return [(v >> low) & mask for v in values], bits
    keys: list[int] = []
    for v in values:
        key = 0
        for low, width in ranges:
            key = key << width | (v >> low) & ((1 << width) - 1)
        keys.append(key & mask)
    return keys, bits


def _shared_keys(keys: list[int], bits: int) -> set[int]:
    """Return the keys that occur more than once in ``keys``."""
    if len(keys) <= _SMALL:
        return {key for key, count in Counter(keys).items() if count > 1}
    seen = zeros(1 << bits)
    shared: set[int] = set()
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        hits = seen[chunk]
        if hits.any():
            shared.update(compress(chunk, hits))
        seen[chunk] = 1
        if len(set(chunk)) < len(chunk):
            shared.update(key for key, count in Counter(chunk).items() if count > 1)
    return shared


def _candidates(keys: list[int], bits: int, items: Sequence[int], shift: int) -> list[int]:
    """Return ``key << shift | item`` for every row whose key is shared, sorted.

    ``items`` is the row's number or its value; sorting brings each key's rows together.
    """
    shared = _shared_keys(keys, bits)
    if not shared:
        return []
    wanted = zeros(1 << bits)
    wanted[list(shared)] = 1
    rows = list(wanted[keys].search(1))
    tagged = map(
        or_, map(lshift, map(keys.__getitem__, rows), repeat(shift)), map(items.__getitem__, rows)
    )
    return sorted(tagged)


def _pairs_in_groups(tagged: list[int], shift: int) -> tuple[list[int], list[int]]:
    """Return the pairs of items under one key, from :func:`_candidates`' sorted list.

    Items ``gap`` places apart share a key exactly when the keys match; a group of ``g``
    rows needs gaps up to ``g - 1``, so the loop runs for the largest group's size. Every
    step is C work over the whole list.
    """
    mask = (1 << shift) - 1
    keys = list(map(rshift, tagged, repeat(shift)))
    items = list(map(and_, tagged, repeat(mask)))
    first: list[int] = []
    second: list[int] = []
    gap = 1
    while gap < len(keys):
        same = list(map(eq, keys, keys[gap:]))
        if not any(same):
            break
        first.extend(compress(items, same))
        second.extend(compress(items[gap:], same))
        gap += 1
    return first, second


def near_pairs(
    values: Sequence[int], size_in_bits: int, max_distance: int, plan: Plan, *, distinct: bool
) -> set[tuple[int, int]]:
    """Return every pair within ``max_distance`` of each other.

    With ``distinct=False`` the pairs are of row numbers ``(i, j)``, ``i < j``, identical
    values included. With ``distinct=True`` they are of values ``(a, b)``, ``a < b``: equal
    values count once and never pair with themselves (simhash-py's rule).

    ``plan`` must be exact for ``max_distance`` (or a scan); ``values`` must be ints below
    ``2**size_in_bits``: the callers check both.
    """
    n = len(values)
    if distinct and plan.is_scan:
        values = list(dict.fromkeys(values))
        n = len(values)
    shift = max(n.bit_length(), 1)
    first: list[int] = []
    second: list[int] = []
    if plan.is_scan:
        first, second = _pairs_in_groups(list(range(n)), shift)
    else:
        columns = _byte_columns(values, size_in_bits) if size_in_bits % 8 == 0 else None
        rows = range(n)
        mask = (1 << shift) - 1
        for table in range(len(plan.tables)):
            keys, bits = _table_keys(values, plan, table, columns)
            tagged = _candidates(keys, bits, rows, shift)
            if distinct and table == 0:
                # Equal values share every table's key, so the first table's candidates
                # hold every repeat; with any, count each value once and start again.
                seen = [values[t & mask] for t in tagged]
                if len(set(seen)) < len(seen):
                    return near_pairs(
                        list(dict.fromkeys(values)),
                        size_in_bits,
                        max_distance,
                        plan,
                        distinct=True,
                    )
            a, b = _pairs_in_groups(tagged, shift)
            first += a
            second += b
    left = list(map(values.__getitem__, first))
    right = list(map(values.__getitem__, second))
    close = list(map(max_distance.__ge__, map(int.bit_count, map(xor, left, right))))
    if distinct:
        return {(a, b) if a < b else (b, a) for a, b in compress(zip(left, right), close)}
    return set(compress(zip(first, second), close))
