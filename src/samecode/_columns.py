"""Private engine shared by the halo hashes: feature hashers and column counting.

A halo hash reduces a stream of features to per-bit statistics of their hashes. This
module holds the two pieces every halo hash needs:

* :func:`feature_hasher` picks the hash function for a size (the SameCode 0.5.1 table);
* :func:`column_ones` counts, for every bit position, how many records of a packed batch
  of digests have that bit set, without a per-bit Python loop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol

__all__ = [
    "SIZES_IN_BITS",
    "BytesLike",
    "FeatureHasher",
    "check_size",
    "column_ones",
    "feature_hasher",
]

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
        raise TypeError(
            f"size_in_bits must be an int, one of {', '.join(map(str, SIZES_IN_BITS))}; "
            f"got {type(size_in_bits).__name__} {size_in_bits!r}"
        )
    if size_in_bits not in _HASHERS:
        raise ValueError(
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


def column_ones(blob: bytes | bytearray, stride: int, nbits: int) -> list[int]:
    """Count the set bits of each of the first ``nbits`` columns of packed records.

    ``blob`` is a concatenation of records of ``stride`` bytes each; column ``c`` is bit
    ``c`` of every record, most significant bit of the first byte first. The result is a
    list of ``nbits`` counts.

    The records are added as bit-sliced counters: the batch is read as one integer, cut
    in two halves of records, and the halves are added lane by lane with a ripple-carry
    adder whose "digits" are whole integers (bit planes). Every halving adds one plane, so
    after ``log2(n)`` rounds one record of ``1 + log2(n)`` planes holds every column's
    count in binary.

    Runtime complexity: ``O(n * stride)`` work in C (the halvings shrink geometrically),
    plus ``O(8 * stride * log n)`` Python steps to read the counts out.

    >>> column_ones(bytes([0b1010_0000, 0b1000_0000, 0b0000_0001]), 1, 8)
    [2, 0, 1, 0, 0, 0, 0, 1]
    """
    width = stride * 8
    records = len(blob) // stride
    if records == 0:
        return [0] * nbits
    # Round one straight from the bytes, which spares a shift and a mask of the largest
    # integer; records past the middle are added into the first half.
    half = records // 2
    cut = (records - half) * stride
    high = int.from_bytes(blob[:cut], "big")
    low = int.from_bytes(blob[cut:], "big")
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
    counts = [0] * nbits
    for weight_bit, plane in enumerate(planes):
        if plane:
            weight = 1 << weight_bit
            bits = format(plane >> (width - nbits), f"0{nbits}b")
            for column, bit in enumerate(bits):
                if bit == "1":
                    counts[column] += weight
    return counts
