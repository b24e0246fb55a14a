"""Private engine shared by the halo hashes: feature hashers and column counting.

A halo hash reduces a stream of features to per-bit statistics of their hashes. This
module holds the two pieces every halo hash needs:

* :func:`feature_hasher` picks the hash function for a size (the SameCode 0.5.1 table);
* :func:`column_ones` counts, for every bit position, how many records of a packed batch
  of digests have that bit set, without a per-bit Python loop.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Callable
from typing import Protocol

from bitarray.util import int2ba

from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = [
    "PENDING_LIMIT",
    "SIZES_IN_BITS",
    "BytesLike",
    "FeatureHasher",
    "add_planes",
    "check_size",
    "column_ones",
    "column_planes",
    "feature_hasher",
    "plane_counts",
    "planes_above",
    "scale_planes",
]

#: A halo hash's digests wait in a buffer of about this many bytes before their bits are
#: counted, so that memory stays bounded however many features it sees.
PENDING_LIMIT = 1 << 20

#: Every size, in bits, that a halo hash can have (the sizes SameCode 0.5.1 supports).
SIZES_IN_BITS: tuple[int, ...] = (32, 64, 128, 160, 256, 384, 512)


class _Digester(Protocol):
    def digest(self) -> bytes: ...


BytesLike = bytes | bytearray | memoryview
FeatureHasher = Callable[[BytesLike], _Digester]


def _md5_constructor() -> FeatureHasher:
    # The keyword that lets MD5 run on FIPS-restricted builds costs about 10 % per call;
    # use the plain constructor where it works and the keyword only where it is needed.
    try:
        hashlib.md5(b"probe")
    except ValueError:  # pragma: no cover - only on FIPS-restricted OpenSSL builds

        def md5_not_for_security(data: BytesLike) -> _Digester:
            return hashlib.md5(data, usedforsecurity=False)

        return md5_not_for_security
    return hashlib.md5


# size in bits -> (hash constructor, bytes in one full digest of that constructor)
_HASHERS: dict[int, tuple[FeatureHasher, int]] = {
    32: (_md5_constructor(), 16),
    64: (_md5_constructor(), 16),
    128: (_md5_constructor(), 16),
    160: (hashlib.sha1, 20),
    256: (hashlib.sha256, 32),
    384: (hashlib.sha384, 48),
    512: (hashlib.sha512, 64),
}


def check_size(size_in_bits: object) -> int:
    """Return ``size_in_bits`` if it is a supported size, else raise.

    :raises TypeError: if it is not an integer.
    :raises ValueError: if it is not one of :data:`SIZES_IN_BITS`.
    """
    if isinstance(size_in_bits, bool) or not isinstance(size_in_bits, int):
        raise SamecodeTypeError(
            f"size_in_bits must be an int, one of {', '.join(map(str, SIZES_IN_BITS))}; "
            f"got {type(size_in_bits).__name__} {size_in_bits!r}"
        )
    if size_in_bits not in _HASHERS:
        raise SamecodeValueError(
            f"size_in_bits must be one of {', '.join(map(str, SIZES_IN_BITS))}; "
            f"got {size_in_bits!r}"
        )
    return size_in_bits


def feature_hasher(size_in_bits: int) -> tuple[FeatureHasher, int]:
    """Return ``(constructor, stride)`` for a supported size.

    ``constructor(data).digest()`` is the full digest of the feature hash; its first
    ``size_in_bits // 8`` bytes are the feature's bits (MD5 is truncated for 32 and 64
    bits), and ``stride`` is the full digest's length in bytes.
    """
    return _HASHERS[check_size(size_in_bits)]


def column_planes(blob: bytes | bytearray, stride: int) -> list[int]:
    """Count the set bits of every column of packed records, as bit planes.

    ``blob`` is a concatenation of records of ``stride`` bytes each; column ``c`` is bit
    ``c`` of every record, most significant bit of the first byte first. The count of
    column ``c`` is returned in binary across *planes*: bit ``width - 1 - c`` of
    ``planes[k]`` (``width = 8 * stride``) is bit ``k`` of that count. No records give no
    planes.

    The records are added as bit-sliced counters: the batch is read as one integer, cut
    in two halves of records, and the halves are added lane by lane with a ripple-carry
    adder whose "digits" are whole integers (bit planes). Every halving adds one plane, so
    after ``log2(n)`` rounds one record of ``1 + log2(n)`` planes holds every column's
    count in binary.

    Runtime complexity: ``O(n * stride)`` work in C (the halvings shrink geometrically)
    and ``O(log n)`` Python steps per halving.

    >>> planes = column_planes(bytes([0b1010_0000, 0b1000_0000, 0b0000_0001]), 1)
    >>> [format(p, "08b") for p in planes]
    ['00100001', '10000000', '00000000']
    """
    width = stride * 8
    records = len(blob) // stride
    if records == 0:
        return []
    if records == 1:
        return [int.from_bytes(blob[:stride], "big")]
    # Round one straight from the bytes, which spares a shift and a mask of the largest
    # integer; records past the middle are added into the first half.
    half = records // 2
    cut = (records - half) * stride
    high = int.from_bytes(blob[:cut], "big")
    low = int.from_bytes(blob[cut : records * stride], "big")
    planes = [high ^ low, high & low]
    records -= half
    while records > 1:
        half = records // 2
        shift = half * width
        mask = (1 << shift) - 1
        high, low = planes[0] >> shift, planes[0] & mask
        summed = [high ^ low]
        carry = high & low
        for plane in planes[1:]:
            high, low = plane >> shift, plane & mask
            partial = high ^ low
            summed.append(partial ^ carry)
            carry = (high & low) | (partial & carry)
        summed.append(carry)
        planes = summed
        records -= half
    return planes


def add_planes(first: list[int], second: list[int]) -> list[int]:
    """Add two bit-sliced counters column by column (see :func:`column_planes`).

    Runtime complexity: ``O(planes)`` big-integer operations.

    >>> a = column_planes(bytes([0b11, 0b01]), 1)  # counts ..., 1, 2
    >>> b = column_planes(bytes([0b10]), 1)  # counts ..., 1, 0
    >>> plane_counts(add_planes(a, b), 8)[-2:]
    [2, 2]
    """
    if len(first) < len(second):
        first, second = second, first
    summed = []
    carry = 0
    for index, plane in enumerate(first):
        other = second[index] if index < len(second) else 0
        partial = plane ^ other
        summed.append(partial ^ carry)
        carry = (plane & other) | (partial & carry)
    if carry:
        summed.append(carry)
    return summed


def scale_planes(planes: list[int], factor: int) -> list[int]:
    """Multiply a bit-sliced counter by a non-negative integer (shift and add).

    >>> plane_counts(scale_planes(column_planes(bytes([0b11]), 1), 5), 8)[-2:]
    [5, 5]
    """
    total: list[int] = []
    shift = 0
    while factor:
        if factor & 1:
            total = add_planes(total, [0] * shift + planes)
        factor >>= 1
        shift += 1
    return total


def planes_above(planes: list[int], threshold: int, width: int) -> int:
    """Return a mask with bit ``width - 1 - c`` set where column ``c``'s count > ``threshold``.

    A bit-sliced comparison from the most significant plane down: no loop over columns.

    Runtime complexity: ``O(planes)`` big-integer operations.

    >>> planes = column_planes(bytes([0b1100, 0b1010, 0b1001]), 1)
    >>> format(planes_above(planes, 1, 8), "08b"), format(planes_above(planes, 0, 8), "08b")
    ('00001000', '00001111')
    """
    full = (1 << width) - 1
    if threshold < 0:
        return full
    if threshold >> len(planes):
        return 0  # every count is below 2**len(planes) <= threshold
    above, equal = 0, full
    for k in range(len(planes) - 1, -1, -1):
        plane = planes[k]
        if (threshold >> k) & 1:
            equal &= plane
        else:
            above |= equal & plane
            equal &= ~plane
    return above


def plane_counts(planes: list[int], width: int) -> list[int]:
    """Read a bit-sliced counter out as one count per column, first column first.

    Each plane is spread to one 64-bit lane per column with bitarray's ``unpack`` and
    a strided slice assignment, and the lanes are summed as one integer: work in C.

    >>> plane_counts(column_planes(bytes([0b1010_0000, 0b1000_0000, 0b0000_0001]), 1), 8)
    [2, 0, 1, 0, 0, 0, 0, 1]
    """
    if not planes:
        return [0] * width
    lanes = 0
    wide = bytearray(8 * width)
    for k, plane in enumerate(planes):
        if plane:
            wide[7::8] = int2ba(plane, length=width, endian="big").unpack()
            lanes += int.from_bytes(wide, "big") << k
    counts = array("Q", lanes.to_bytes(8 * width, "big"))
    if sys.byteorder == "little":
        counts.byteswap()
    return counts.tolist()


def column_ones(blob: bytes | bytearray, stride: int, nbits: int) -> list[int]:
    """Count the set bits of each of the first ``nbits`` columns of packed records.

    ``blob`` is a concatenation of records of ``stride`` bytes each; column ``c`` is bit
    ``c`` of every record, most significant bit of the first byte first. The result is a
    list of ``nbits`` counts (see :func:`column_planes` for how they are counted).

    Runtime complexity: ``O(n * stride)`` work in C, plus ``O(log n)`` Python steps.

    >>> column_ones(bytes([0b1010_0000, 0b1000_0000, 0b0000_0001]), 1, 8)
    [2, 0, 1, 0, 0, 0, 0, 1]
    """
    return plane_counts(column_planes(blob, stride), stride * 8)[:nbits]
