"""Private: the bytes of a packed block of postings (format version 6's key tables,
:class:`~samecode.corpus.key_blocks.KeyBlocks` with ``packed``).

A block's data is a byte of two widths, the high bytes its keys share, then each
posting's key without them, then each posting's file (little-endian). The key width, 1
to the key's bytes, is in the high four bits of the first byte: the bytes of a key below
those its first and last keys share (its postings are sorted, so every key between them
shares them too). The file width, 1 to 4, is in the low four: the bytes of its largest
file. An empty block is no bytes at all.

Every step is slices of bytes, in C's loops: a block is made from, and widened to, the
arrays of postings of :class:`~samecode.corpus.key_blocks.Block` without a posting made
an int on the way, and a key is found by a search of the bytes as stored.

>>> data = pack([7 << 32 | 1, 7 << 32 | 2, 9 << 32 | 300], 4)
>>> data.hex()
'12000000070709010002002c01'
>>> files_of(data, 7, 4), files_of(data, 8, 4), files_of(data, 7 + (1 << 8), 4)
([1, 2], [], [])
>>> keys, files = unpack(data, 4)
>>> [hex(posting) for posting in keys], files
(['0x700000001', '0x700000002', '0x90000012c'], None)
"""

from __future__ import annotations

import sys
from array import array

__all__ = [
    "Columns",
    "columns",
    "count",
    "file_width",
    "files_of",
    "filled",
    "key_width",
    "misshapen",
    "most",
    "narrowed",
    "pack",
    "pack_part",
    "run_files",
    "run_of",
    "unpack",
    "widened",
]

_FILE_BITS = 32
_FILE_MASK = (1 << _FILE_BITS) - 1
_LITTLE = sys.byteorder == "little"

#: A block's postings as bytes: its keys' bytes and the bytes each takes there, then its
#: files' bytes and the bytes each takes there.
Columns = tuple[bytes, int, bytes, int]


def columns(postings: list[int], key_bytes: int) -> Columns:
    """The bytes of the keys of sorted ``postings`` (each ``key << 32 | file``, keys of
    ``key_bytes``, 4 or 8) and the bytes each takes there, and the same of their files
    (little-endian; 4-byte keys: the postings' own values, each its key above its
    file), made in C's loops."""
    if key_bytes == 8:
        keys = array("Q", [posting >> _FILE_BITS for posting in postings])
        files = array("I", [posting & _FILE_MASK for posting in postings])
        if not _LITTLE:  # pragma: no cover - big-endian machines
            keys.byteswap()
            files.byteswap()
        return keys.tobytes(), 8, files.tobytes(), 4
    values = array("Q", postings)
    if not _LITTLE:  # pragma: no cover - big-endian machines
        values.byteswap()
    raw = values.tobytes()
    return raw[4:], 8, raw, 8


def key_width(first: int, last: int, key_bytes: int) -> int:
    """The bytes of a key below those the keys of the postings ``first`` and ``last``
    share (and so every key of a posting between them), 1 at least."""
    first, last = first >> _FILE_BITS, last >> _FILE_BITS
    width = 1
    while width < key_bytes and first >> 8 * width != last >> 8 * width:
        width += 1
    return width


def file_width(data: bytes, step: int) -> int:
    """The fewest whole bytes, 1 at least, that hold each file, 4 bytes at the start of
    each ``step`` bytes of ``data`` (a lane of zeros is a byte not needed)."""
    count = len(data) // step
    for byte in range(3, 0, -1):
        if data[byte::step].count(0) < count:
            return byte + 1
    return 1


def most(postings: list[int], held: Columns, key_bytes: int, room: int) -> int:
    """How many postings a block of ``room`` bytes holds in the widths the sorted
    ``postings`` (their :func:`columns` ``held``) need all together."""
    keys = key_width(postings[0], postings[-1], key_bytes)
    files = file_width(held[2], held[3])
    return (room - 1 - key_bytes + keys) // (keys + files)


def pack_part(postings: list[int], held: Columns, low: int, high: int, key_bytes: int) -> bytes:
    """The data of a block of the sorted ``postings[low:high]``, cut out of their
    :func:`columns` ``held``."""
    if low >= high:
        return b""
    keys, key_step, files, file_step = held
    width = key_width(postings[low], postings[high - 1], key_bytes)
    shared = (postings[low] >> (_FILE_BITS + 8 * width)).to_bytes(key_bytes - width, "little")
    own = files[low * file_step : high * file_step]
    widest = file_width(own, file_step)
    return (
        bytes([width << 4 | widest])
        + shared
        + narrowed(keys[low * key_step : high * key_step], key_step, width)
        + narrowed(own, file_step, widest)
    )


def pack(postings: list[int], key_bytes: int) -> bytes:
    """The data of a block of the sorted ``postings``."""
    return pack_part(postings, columns(postings, key_bytes), 0, len(postings), key_bytes)


def misshapen(data: bytes, key_bytes: int) -> bool:
    """Whether ``data`` is no block's: widths out of range, or a length that is not the
    high bytes and a whole number of postings, one at least (an empty block is sound)."""
    if not data:
        return False
    keys, files = data[0] >> 4, data[0] & 15
    if not (1 <= keys <= key_bytes and 1 <= files <= 4):
        return True
    body = len(data) - 1 - key_bytes + keys  # the postings' bytes
    return body < keys + files or body % (keys + files) != 0


def count(size: int, head: bytes, key_bytes: int) -> int:
    """How many postings a sound block of ``size`` bytes, its first byte ``head``,
    holds (none for a block too short for its widths: damaged, and reported by the
    checks)."""
    if not size:
        return 0
    keys, files = head[0] >> 4, head[0] & 15
    return max(0, (size - 1 - key_bytes + keys) // (keys + files))


def unpack(data: bytes, key_bytes: int) -> tuple[array[int], array[int] | None]:
    """A sound block's postings as :class:`~samecode.corpus.key_blocks.Block` holds
    them: one array of the postings (4-byte keys; ``None`` for the files), or of the keys
    and one of the files (8-byte keys)."""
    keys = array("Q")
    files = array("I") if key_bytes == 8 else None
    if not data:
        return keys, files
    width, widest = data[0] >> 4, data[0] & 15
    begin = 1 + key_bytes - width
    held = (len(data) - begin) // (width + widest)
    end = begin + held * width
    # each value 8 bytes: the key (8-byte keys), or the posting, its file in the low 4
    # bytes and its key above (4-byte keys)
    low = 0 if files is not None else 4
    values = bytearray(8 * held)
    for byte in range(width):
        values[low + byte :: 8] = data[begin + byte : end : width]
    for byte in range(key_bytes - width):  # the high bytes, the same in each
        values[low + width + byte :: 8] = data[1 + byte : 2 + byte] * held
    return filled(keys, files, values, data[end:], widest)


def filled(
    keys: array[int], files: array[int] | None, values: bytearray, own: bytes, widest: int
) -> tuple[array[int], array[int] | None]:
    """``keys`` and ``files`` (empty) of a block's postings: its ``values`` (8 bytes each,
    their keys' bytes in) with, for 4-byte keys (``files`` ``None``), the files' bytes
    ``own`` (``widest`` each) in their low bytes, or ``files`` of them."""
    if files is None:
        for byte in range(widest):
            values[byte::8] = own[byte::widest]
    else:
        files.frombytes(widened(own, widest, 4))
    keys.frombytes(values)
    if not _LITTLE:  # pragma: no cover - big-endian machines
        keys.byteswap()
        if files is not None:
            files.byteswap()
    return keys, files


def files_of(data: bytes, key: int, key_bytes: int) -> list[int]:
    """The files of ``key``'s postings in a sound block, ascending: a search of its
    keys' low bytes as stored, for a key whose high bytes are the block's, no posting
    decoded but those of ``key``."""
    if not data:
        return []
    width, widest = data[0] >> 4, data[0] & 15
    begin = 1 + key_bytes - width  # past the width byte and the high bytes
    high = key >> 8 * width
    if begin == 2:  # one high byte: most blocks of 8-byte keys
        if data[1] != high:
            return []
    elif begin > 2:
        if int.from_bytes(data[1:begin], "little") != high:
            return []
    elif high:  # no high bytes: a key wider than the table's is in no block
        return []
    end = begin + (len(data) - begin) // (width + widest) * width
    pattern = (key & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    found = run_of(data, pattern, begin, end, width)
    if found is None:
        return []
    at, after = found
    return run_files(data, end, (at - begin) // width, (after - begin) // width, widest)


def run_files(data: bytes, end: int, first: int, last: int, widest: int) -> list[int]:
    """The files of the postings ``first`` to ``last`` (by their place) of a block whose
    files, each of ``widest`` bytes, start at ``end`` of its ``data``."""
    first, last = end + first * widest, end + last * widest
    if last - first == widest:  # one file: most keys' (prefix keys, fingerprints)
        return [int.from_bytes(data[first:last], "little")]
    files = array("I")
    files.frombytes(widened(data[first:last], widest, 4))
    if not _LITTLE:  # pragma: no cover - big-endian machines
        files.byteswap()
    return files.tolist()


def run_of(data: bytes, pattern: bytes, begin: int, end: int, width: int) -> tuple[int, int] | None:
    """Where the run of values equal to ``pattern`` starts and ends among the values of
    ``width`` bytes from ``begin`` to ``end`` of ``data``, or ``None``: a search of the
    bytes (a match across two values is passed over)."""
    at = data.find(pattern, begin, end)
    while at >= 0 and (at - begin) % width:  # a match across two values
        at = data.find(pattern, at + 1, end)
    if at < 0:
        return None
    after = at + width
    while data.startswith(pattern, after, end):
        after += width
    return at, after


def widened(data: bytes, width: int, wide: int) -> bytearray:
    """Little-endian values of ``width`` bytes each, as values of ``wide`` bytes each: a
    slice of the bytes per byte of a value."""
    out = bytearray(len(data) // width * wide)
    for byte in range(width):
        out[byte::wide] = data[byte::width]
    return out


def narrowed(data: bytes, wide: int, width: int) -> bytes:
    """The low ``width`` bytes of each little-endian value of ``wide`` bytes in ``data``
    (values below ``2 ** (8 * width)``; ``data`` may start within its first value, as
    long as it holds ``wide`` bytes from each)."""
    out = bytearray(-(-len(data) // wide) * width)
    for byte in range(width):
        out[byte::width] = data[byte::wide]
    return bytes(out)
