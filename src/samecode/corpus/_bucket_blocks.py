"""Private: the bytes of a block of postings in buckets (format version 8's key tables,
:class:`~samecode.corpus.key_blocks.KeyBlocks` with ``buckets``).

A packed block of format version 6 (:mod:`samecode.corpus._packed_blocks`) keeps each
key's bytes below those its first and last keys share: in a block of some 200 hashes
that span ``2**20``, three of four bytes. A block in buckets keeps fewer low bytes of
each key, ``w``, and counts its postings by the value of the bytes above them, each such
value a bucket: the keys' high part once, and a byte a bucket. Its data:

* a byte of two widths: ``w``, 1 to the key's bytes, in the high four bits; the file
  width, 1 to 4 (the bytes of its largest file), in the low four;
* ``B - 1`` for its ``B`` buckets (1 to 256);
* ``base``, the high part of its first key (the key above its low ``w`` bytes), in the
  key's bytes less ``w``; bucket ``b`` holds the keys whose high part is ``base + b``;
* the postings in each bucket but the last (the rest), a byte each (at most 255);
* each posting's key's low ``w`` bytes, then each posting's file (little-endian).

``w`` is the one of least bytes among those whose buckets fit those bounds (the key's
bytes always fit: one bucket), so a block never takes more than a packed one but the
byte of ``B``, and keys of a dense range (hashes: 2,000 files' prefix keys are some
6,000 apart) take two bytes where a packed block takes three: a fifth less a posting.
An empty block is no bytes at all.

A key is found as in a packed block, by a search of its low bytes as stored, only
among those of its bucket (where its place is the sum of the counts before it): no
posting decoded but those of the key.

>>> data = pack([7 << 32 | 1, 7 << 32 | 2, 9 << 32 | 300, 70000 << 32 | 5], 4)
>>> data.hex()
'22010000030700070009007011010002002c010500'
>>> files_of(data, 7, 4), files_of(data, 70000, 4), files_of(data, 8, 4)
([1, 2], [5], [])
>>> keys, files = unpack(data, 4)
>>> [posting >> 32 for posting in keys], files
([7, 7, 9, 70000], None)
"""

from __future__ import annotations

from array import array
from operator import mul

from samecode.corpus._packed_blocks import (
    Columns,
    columns,
    file_width,
    filled,
    narrowed,
    run_files,
    run_of,
)

__all__ = ["count", "files_of", "misshapen", "most", "pack", "pack_part", "unpack"]

_FILE_BITS = 32
#: The most buckets a block has, and the most postings in a bucket but its last.
_BUCKETS = 256
_COUNT = 255
#: Each byte value as a bytes of its own.
_SINGLES = [bytes((value,)) for value in range(256)]
_VALUES = bytes(range(256))


def _shape(
    postings: list[int], held: Columns, low: int, high: int, key_bytes: int
) -> tuple[int, int, list[int]]:
    """For the sorted ``postings[low:high]`` (some; their columns ``held``), the low bytes
    ``w`` of a key that take the fewest bytes, its ``base`` and the counts of its buckets
    but the last."""
    first, last = postings[low] >> _FILE_BITS, postings[high - 1] >> _FILE_BITS
    size = high - low
    best: tuple[int, int, int, list[int]] | None = None  # bytes, w, base, counts
    for width in range(1, key_bytes + 1):
        if best is not None and size * width + key_bytes - width >= best[0]:
            break  # a wider key costs more than the best, whatever its buckets
        base = first >> 8 * width
        buckets = (last >> 8 * width) - base + 1
        cost = size * width + key_bytes - width + buckets - 1
        if buckets > _BUCKETS or (best is not None and cost >= best[0]):
            continue
        counts = _counts(held, low, high, width, base, buckets)
        if counts and max(counts) > _COUNT:
            continue
        best = (cost, width, base, counts)
    if best is None:  # pragma: no cover - the key's bytes always fit (one bucket)
        raise AssertionError("no width fits")
    return best[1], best[2], best[3]


def _counts(held: Columns, low: int, high: int, width: int, base: int, buckets: int) -> list[int]:
    """How many of the sorted postings ``low`` to ``high`` of the columns ``held`` each
    bucket but the last of keys of ``width`` low bytes holds, the first ``base``: each
    posting's bucket, ``(key >> 8 * w) - base``, is below 256, so it is the low byte of
    its high part less that of ``base`` (a slice of each key's byte ``w``, turned by a
    table), and the postings of a bucket are the count of its byte there (C's loops, a
    count a bucket: faster than a search of the postings a bucket, or a count of them
    all, for the some 15 buckets of 70 to 190 postings of most blocks)."""
    if buckets == 1:
        return []
    keys, step = held[0], held[1]
    turned = keys[low * step + width : high * step : step].translate(_turned(-base))
    return list(map(turned.count, _SINGLES[: buckets - 1]))


def _turned(by: int) -> bytes:
    """The table that turns each byte value ``v`` into ``(v + by) % 256``."""
    by &= 255
    return _VALUES[by:] + _VALUES[:by]


def pack_part(postings: list[int], held: Columns, low: int, high: int, key_bytes: int) -> bytes:
    """The data of a block of the sorted ``postings[low:high]``, cut out of their
    :func:`~samecode.corpus._packed_blocks.columns` ``held``."""
    if low >= high:
        return b""
    keys, key_step, files, file_step = held
    width, base, counts = _shape(postings, held, low, high, key_bytes)
    own = files[low * file_step : high * file_step]
    widest = file_width(own, file_step)
    return (
        bytes([width << 4 | widest, len(counts)])
        + base.to_bytes(key_bytes - width, "little")
        + bytes(counts)
        + narrowed(keys[low * key_step : high * key_step], key_step, width)
        + narrowed(own, file_step, widest)
    )


def pack(postings: list[int], key_bytes: int) -> bytes:
    """The data of a block of the sorted ``postings``."""
    return pack_part(postings, columns(postings, key_bytes), 0, len(postings), key_bytes)


def most(postings: list[int], held: Columns, key_bytes: int, room: int, count: int) -> int:
    """How many postings a block of ``room`` bytes holds, in the widths and buckets the
    first ``count`` of the sorted ``postings`` (their columns ``held``) need all together:
    so many of any run of them fit (a run's buckets are among theirs)."""
    width, _, counts = _shape(postings, held, 0, count, key_bytes)
    files = file_width(held[2][: count * held[3]], held[3])
    return (room - 2 - key_bytes + width - len(counts)) // (width + files)


def _layout(data: bytes, key_bytes: int) -> tuple[int, int, int, int, int]:
    """A block's key width, file width, buckets less one, where its counts start and where
    its keys start."""
    width, widest = data[0] >> 4, data[0] & 15
    counts = 2 + key_bytes - width
    return width, widest, data[1], counts, counts + data[1]


def _tables(base: int, high: int) -> list[bytes]:
    """For each of the ``high`` bytes of ``base + bucket`` (buckets 0 to 255), the table
    from the bucket to that byte: below the low one, the bytes of ``base`` up to the
    bucket the low byte wraps at, then those of the next multiple of 256."""
    first = base & 255
    tables = [_turned(first)]
    wrapped = (base | 255) + 1
    for byte in range(1, high):
        before, after = (base >> 8 * byte) & 255, (wrapped >> 8 * byte) & 255
        tables.append(_SINGLES[before] * (256 - first) + _SINGLES[after] * first)
    return tables


def misshapen(data: bytes, key_bytes: int) -> bool:
    """Whether ``data`` is no block's: widths out of range, a length that is not its head
    and a whole number of postings, one at least, or buckets that do not fit its keys'
    bytes or its postings (an empty block is sound)."""
    if not data:
        return False
    if len(data) < 2:
        return True
    width, widest, more, counts, begin = _layout(data, key_bytes)
    if not (1 <= width <= key_bytes and 1 <= widest <= 4):
        return True
    body = len(data) - begin
    if body < width + widest or body % (width + widest) != 0:
        return True
    base = int.from_bytes(data[2:counts], "little")
    if (base + more) >> 8 * (key_bytes - width):  # a bucket's keys wider than the table's
        return True
    # the last bucket holds the last posting, the first the first
    held = data[counts:begin]
    return sum(held) >= body // (width + widest) or (more > 0 and held[0] == 0)


def count(size: int, head: bytes, key_bytes: int) -> int:
    """How many postings a sound block of ``size`` bytes, its first two bytes ``head``,
    holds (none for a block of one byte: damaged, and reported by the checks)."""
    if size < 2 or len(head) < 2:
        return 0
    width, widest = head[0] >> 4, head[0] & 15
    return (size - 2 - key_bytes + width - head[1]) // (width + widest)


def unpack(data: bytes, key_bytes: int) -> tuple[array[int], array[int] | None]:
    """A sound block's postings as :class:`~samecode.corpus.key_blocks.Block` holds them
    (as :func:`samecode.corpus._packed_blocks.unpack` gives them)."""
    keys = array("Q")
    files = array("I") if key_bytes == 8 else None
    if not data:
        return keys, files
    width, widest, _, counts, begin = _layout(data, key_bytes)
    held = (len(data) - begin) // (width + widest)
    end = begin + held * width
    sizes = list(data[counts:begin])
    sizes.append(held - sum(sizes))
    base = int.from_bytes(data[2:counts], "little")
    high = key_bytes - width
    # each value 8 bytes: the key (8-byte keys), or the posting, its file in the low 4
    # bytes and its key above (4-byte keys)
    low = 0 if files is not None else 4
    values = bytearray(8 * held)
    for byte in range(width):
        values[low + byte :: 8] = data[begin + byte : end : width]
    if high:
        # each posting's bucket, a byte each (C's loops: a slice a bucket), then each byte
        # of its high part, ``base + bucket``, by a table from bucket to byte
        buckets = b"".join(map(mul, _SINGLES[: len(sizes)], sizes))
        for byte, table in enumerate(_tables(base, high)):
            values[low + width + byte :: 8] = buckets.translate(table)
    return filled(keys, files, values, data[end:], widest)


def files_of(data: bytes, key: int, key_bytes: int) -> list[int]:
    """The files of ``key``'s postings in a sound block, ascending: a search of the low
    bytes as stored of the keys of its bucket, no posting decoded but those of ``key``."""
    if not data:
        return []
    width, widest, more = data[0] >> 4, data[0] & 15, data[1]  # _layout's, inline: a hot path
    counts = 2 + key_bytes - width
    bucket = (key >> 8 * width) - int.from_bytes(data[2:counts], "little")
    if bucket < 0 or bucket > more:  # a key wider than the table's is past the last bucket
        return []
    begin = counts + more
    held = (len(data) - begin) // (width + widest)
    first = sum(data[counts : counts + bucket]) if bucket else 0
    last = first + data[counts + bucket] if bucket < more else held
    pattern = (key & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    found = run_of(data, pattern, begin + first * width, begin + last * width, width)
    if found is None:
        return []
    at, after = found
    end = begin + held * width
    return run_files(data, end, (at - begin) // width, (after - begin) // width, widest)
