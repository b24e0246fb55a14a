"""Digests of a shingle set: a simhash or a halo hash of a file's distinct shingles.

One definition for every place that digests a set: the ``simhash`` and ``halo`` scan
methods (:mod:`samecode.scan.candidates`) and ``samecode fingerprint``. A set's shingles
(64-bit hashes, :mod:`samecode.text.shingling`) are its features:

* ``simhash``: the 64-bit simhash of the shingle hashes
  (:func:`samecode.fingerprints.simhash.compute`, simhash-py's);
* ``halo``, ``bucket``, ``bucketed``: the 128-bit
  :class:`~samecode.halohash.BitAverageHaloHash`,
  :class:`~samecode.halohash.BucketAverageHaloHash` and
  :class:`~samecode.halohash.BucketedBitAverageHaloHash` of the shingles, each
  shingle's 8 bytes (in the machine's order, as the array holds them) one feature.

Runtime complexity: ``O(n)`` for ``n`` shingles (``O(n * bits)`` for the bit averages).

>>> from array import array
>>> shingles = array("Q", [3, 5, 9])
>>> digest_hex("simhash", shingles)
'0000000000000001'
>>> len(digest_hex("halo", shingles)), DIGEST_BITS["halo"]
(32, 128)
"""

from __future__ import annotations

from array import array

from samecode.errors import SamecodeValueError
from samecode.fingerprints.simhash import compute
from samecode.halohash import (
    BitAverageHaloHash,
    BucketAverageHaloHash,
    BucketedBitAverageHaloHash,
)

__all__ = ["DIGEST_BITS", "DIGEST_KINDS", "digest", "digest_hex"]

#: The kinds of digest, and the bits of each.
DIGEST_BITS = {"simhash": 64, "halo": 128, "bucket": 128, "bucketed": 128}
DIGEST_KINDS = tuple(DIGEST_BITS)

_HALOS = {
    "halo": BitAverageHaloHash,
    "bucket": BucketAverageHaloHash,
    "bucketed": BucketedBitAverageHaloHash,
}


def digest(kind: str, shingles: array[int]) -> int:
    """The ``kind`` digest of a set of ``shingles`` (see the module), as an int.

    :param kind: one of :data:`DIGEST_KINDS`.
    :param shingles: the set's 64-bit shingle hashes (an ``array("Q")``).
    :raises ValueError: for a kind there is not.

    >>> digest("simhash", array("Q", [1, 1, 2]))
    1
    """
    if kind == "simhash":
        return compute(shingles)
    if kind not in _HALOS:
        raise SamecodeValueError(f"kind must be one of {', '.join(DIGEST_KINDS)}; got {kind!r}")
    blob = memoryview(shingles.tobytes())
    features = [blob[i : i + 8] for i in range(0, len(blob), 8)]
    return int(_HALOS[kind](features, size_in_bits=128).intdigest())


def digest_hex(kind: str, shingles: array[int]) -> str:
    """:func:`digest` as hex digits, zero-padded to the kind's width.

    :raises ValueError: for a kind there is not.
    """
    value = digest(kind, shingles)
    return format(value, f"0{DIGEST_BITS[kind] // 4}x")
