"""Halo hashes: fingerprints whose Hamming distance tracks the similarity of their inputs.

A cryptographic hash scatters: change one byte of the input and half of the output bits
flip. A *halo hash* does the opposite on purpose. The input is a collection of features
(words, lines, shingles, any byte strings); similar collections get fingerprints that
differ in few bits, so the number of differing bits (the Hamming distance) estimates how
different two inputs are, without the inputs at hand.

This module is a drop-in for ``samecode.halohash`` of SameCode 0.5.1: the same names and
the same digests, with that release's defects fixed (see the compatibility page of the
documentation). Its centre is :class:`BitAverageHaloHash`; the functions around it compare
digests, bit strings and hex strings.

>>> a = BitAverageHaloHash(b"the quick brown fox jumps over the lazy dog".split())
>>> b = BitAverageHaloHash(b"the quick brown fox leaps over the lazy dog".split())
>>> a.distance(b) < BitAverageHaloHash([b"unrelated", b"text"]).distance(b)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import add
from typing import Any, Protocol, TypeVar, runtime_checkable

from bitarray import bitarray

from samecode._columns import PENDING_LIMIT, SIZES_IN_BITS, column_ones, feature_hasher
from samecode._validation import (
    b64_bytes,
    bit_distance,
    bits_of,
    check_int,
    check_state,
    describe,
    unhex,
    weighted_batches,
)
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fingerprints.bucketed import BucketAverageHaloHash, BucketedBitAverageHaloHash
from samecode.fingerprints.fingerprint import Fingerprint, check_comparable

__all__ = [
    "SIZES_IN_BITS",
    "BitAverageHaloHash",
    "BucketAverageHaloHash",
    "BucketedBitAverageHaloHash",
    "SliceLengthError",
    "bit_to_num",
    "bitarray_from_bytes",
    "byte_hamming_distance",
    "common_chunks",
    "common_chunks_from_hexdigest",
    "decode_vector",
    "hamming_distance",
    "slices",
]

_BYTES_LIKE = (bytes, bytearray, memoryview)
_SIZE_BY_DIGEST_LENGTH = {size // 8: size for size in SIZES_IN_BITS}
_STATE_VERSION = 1

_T = TypeVar("_T")
_H = TypeVar("_H", bound="BitAverageHaloHash")


class SliceLengthError(SamecodeValueError, AssertionError):
    """A sequence cannot be cut into slices of the requested size.

    It is a :class:`ValueError`; it is also an :class:`AssertionError`, because SameCode
    0.5.1 raised one there and code written for it may catch that.

    >>> issubclass(SliceLengthError, ValueError), issubclass(SliceLengthError, AssertionError)
    (True, True)
    """


@runtime_checkable
class _HasHash(Protocol):
    def hash(self) -> bitarray: ...


@runtime_checkable
class _HasDigest(Protocol):
    def digest(self) -> bytes: ...


class BitAverageHaloHash(Fingerprint):
    """A halo hash that takes, for each bit, the minority vote of the features' hashes.

    Each feature (a byte string) is hashed with the feature hash of the size: MD5 for 32,
    64 and 128 bits (truncated to its first 4, 8 or 16 bytes), SHA-1 for 160, SHA-256,
    SHA-384 and SHA-512 for 256, 384 and 512. The hashes are stacked as rows of a bit
    matrix, most significant bit first. Bit ``i`` of the result is ``1`` exactly when
    *fewer* rows have a ``1`` than a ``0`` in column ``i``; a tie, and a hash of no
    features at all, give ``0``. This is the rule SameCode 0.5.1 computes (its own prose
    describes the majority, but its digests follow the minority) and so it is the rule
    here: digests are identical to 0.5.1's.

    Feature order does not matter, duplicate features count every time, and empty
    features are skipped.

    :param msg: optional first input, as for :meth:`update`.
    :param size_in_bits: the size of the hash, one of :data:`SIZES_IN_BITS`.
    :raises TypeError: if ``size_in_bits`` is not an int, or ``msg`` holds a feature that
        is not bytes-like.
    :raises ValueError: if ``size_in_bits`` is not a supported size.

    Runtime complexity: one call of the feature hash per feature, plus about ``n *
    size_in_bits / 64`` machine-word operations in C to count the bits; memory stays under
    about 1 MiB per hash however many features it sees.

    >>> z = b"The value specified for size must be at least as large".split()
    >>> h = BitAverageHaloHash(z, size_in_bits=64)
    >>> h.hexdigest()
    b'0a8a14ddb0d5b14d'
    >>> h.digest_size, h.elements_count
    (8, 11)
    >>> h2 = BitAverageHaloHash(size_in_bits=64)
    >>> for word in reversed(z):
    ...     h2.update(word)
    >>> h2 == h
    True
    """

    __slots__ = ("_hasher", "_ones", "_pending", "_stride")

    SIZES = SIZES_IN_BITS

    def __init__(self, msg: Any = None, size_in_bits: int = 128) -> None:
        self._hasher, self._stride = feature_hasher(size_in_bits)
        self._size = size_in_bits
        self._ones: list[int] | None = [0] * size_in_bits
        self._count = 0
        self._pending = bytearray()
        self._digest: bytes | None = None
        self.update(msg)

    @property
    def columns(self) -> list[int] | None:
        """Each column's vote, as SameCode 0.5.1 keeps it (``None`` if rebuilt from a digest).

        A feature adds ``-1`` to a column where its hash has a ``1`` and ``+1`` where it
        has a ``0``; a bit of the digest is ``1`` where its column is positive.

        >>> h = BitAverageHaloHash([b"a", b"b", b"c"], size_in_bits=32)
        >>> [1 if c > 0 else 0 for c in h.columns] == h.hash().tolist()
        True
        """
        ones = self._ones_flushed()
        if ones is None:
            return None
        return [self._count - 2 * o for o in ones]

    # -- feeding -----------------------------------------------------------------------

    def update(self, msg: Any) -> None:
        """Add a feature, a collection of features, or counted features, to the hash.

        ``msg`` may be one feature (``bytes``, ``bytearray`` or ``memoryview``), any
        iterable of features (a list, a tuple, a generator...), or a mapping of feature to
        count (a :class:`collections.Counter`, say: each feature counts that many times).
        ``None``, and any other value that is false (``b""``, an empty list), changes
        nothing; empty features are skipped. If anything is rejected, the hash is left as
        it was before the call.

        :param msg: a feature, an iterable of features, or a mapping of feature to count.
        :raises TypeError: for a ``str``, or any other feature that is not bytes-like
            (``None``, an int, a numpy array...), or a count that is not an int.
        :raises ValueError: for a negative count, or if this hash was rebuilt from a
            digest (its columns are unknown, so it cannot take more features).

        Runtime complexity: ``O(k)`` for ``k`` features; a single call never holds more
        than a batch of their digests in memory.

        >>> h = BitAverageHaloHash(size_in_bits=32)
        >>> h.update(b"one")
        >>> h.update([b"two", b"three"])
        >>> h.update(word for word in [b"four", b"five"])
        >>> h.update({b"six": 2})
        >>> h.elements_count
        7
        >>> h.update("text")
        Traceback (most recent call last):
        ...
        samecode.errors.SamecodeTypeError: a feature must be bytes, bytearray or memoryview ...
        """
        if type(msg) is bytes:
            if not msg:
                return
            self._check_updatable()
            self._pending += self._hasher(msg).digest()
            self._count += 1
            self._digest = None
            if len(self._pending) >= PENDING_LIMIT:
                self._live_ones()
            return
        if msg is None or (isinstance(msg, (str, list, tuple, int, Mapping)) and not msg):
            return  # as SameCode 0.5.1: a false msg changes nothing
        batches = weighted_batches(msg, PENDING_LIMIT // self._stride, text=False)
        self._check_updatable()
        self._update_many(batches)

    def _update_many(self, weighted: Iterable[tuple[int, list[Any]]]) -> None:
        # Work out the whole change first and apply it at the end, so that a bad feature
        # leaves the hash untouched.
        hasher, stride = self._hasher, self._stride
        added = 0
        delta: list[int] | None = None
        staged: list[bytes] = []
        staged_bytes = 0
        for weight, tokens in weighted:
            blob = b"".join([hasher(t).digest() for t in tokens])
            added += weight * len(tokens)
            if weight != 1:
                counts = [weight * c for c in column_ones(blob, stride, self._size)]
                delta = counts if delta is None else list(map(add, delta, counts))
                continue
            staged.append(blob)
            staged_bytes += len(blob)
            if staged_bytes >= PENDING_LIMIT:
                counts = column_ones(b"".join(staged), stride, self._size)
                delta = counts if delta is None else list(map(add, delta, counts))
                staged, staged_bytes = [], 0
        if not added:
            return
        if delta is not None:
            self._ones = list(map(add, self._live_ones(), delta))
        self._pending += b"".join(staged)
        self._count += added
        self._digest = None
        if len(self._pending) >= PENDING_LIMIT:
            self._live_ones()

    def _check_updatable(self) -> list[int]:
        if self._ones is None:
            raise self._frozen_error()
        return self._ones

    def _live_ones(self) -> list[int]:
        """Return the per-column counts of ones, with every pending digest counted."""
        ones = self._check_updatable()
        if self._pending:
            counts = column_ones(self._pending, self._stride, self._size)
            ones = self._ones = [a + b for a, b in zip(ones, counts)]
            self._pending = bytearray()
        return ones

    def _ones_flushed(self) -> list[int] | None:
        return None if self._ones is None else self._live_ones()

    # -- reading -----------------------------------------------------------------------

    def _compute_digest(self) -> bytes:
        ones = self._live_ones()
        count = self._count
        bits = "".join(["1" if 2 * o < count else "0" for o in ones])
        return int(bits, 2).to_bytes(self._size // 8, "big")

    def _is_frozen(self) -> bool:
        return self._ones is None

    def _freeze(self, digest: bytes) -> None:
        self._ones = None
        self._pending = bytearray()
        self._digest = digest

    def _merge(self, parts: list[Any]) -> None:
        totals = [0] * self._size
        for part in parts:
            totals = [a + b for a, b in zip(totals, part._live_ones())]
            self._count += part._count
        self._ones = totals

    # -- pickling ----------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        ones = self._ones_flushed()
        return {
            "version": _STATE_VERSION,
            "size_in_bits": self._size,
            "count": self._count,
            "ones": None if ones is None else list(ones),
            "digest": self._digest if ones is None else None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = check_state(state, type(self), _STATE_VERSION)
        size = state["size_in_bits"]
        self._hasher, self._stride = feature_hasher(size)
        self._size = size
        self._pending = bytearray()
        self._count = state["count"]
        ones = state["ones"]
        if ones is None:
            self._ones = None
            self._digest = bytes(state["digest"])
        else:
            if len(ones) != size:
                raise SamecodeValueError(f"saved state has {len(ones)} columns for {size} bits")
            self._ones = list(ones)
            self._digest = None


# -- functions ------------------------------------------------------------------------


def bitarray_from_bytes(b: bytes | bytearray | memoryview) -> bitarray:
    """Return the bits of the byte string ``b``, most significant bit of each byte first.

    :raises TypeError: if ``b`` is not bytes-like.

    >>> bitarray_from_bytes(b"\\x0f\\x80")
    bitarray('0000111110000000')
    """
    if not isinstance(b, _BYTES_LIKE):
        raise SamecodeTypeError(f"b must be bytes-like; got {describe(b)}")
    bits = bitarray(endian="big")
    bits.frombytes(b.tobytes() if isinstance(b, memoryview) else b)
    return bits


def byte_hamming_distance(b1: str | bytes, b2: str | bytes) -> int:
    """Return the Hamming distance between two hexadecimal strings, counted in bits.

    ``b1`` and ``b2`` are hex text (as :meth:`BitAverageHaloHash.hexdigest` gives), as
    ``str`` or ``bytes``; the distance is the number of differing bits of the bytes they
    spell.

    :raises ValueError: if either is not hexadecimal, or their lengths differ.

    >>> byte_hamming_distance("0f", "f0")
    8
    >>> byte_hamming_distance(b"1f22", b"1f23")
    1
    """
    x1, x2 = unhex(b1, "b1"), unhex(b2, "b2")
    if len(x1) != len(x2):
        raise SamecodeValueError(
            f"b1 and b2 must spell the same number of bytes; got {len(x1)} and {len(x2)}"
        )
    return (int.from_bytes(x1, "big") ^ int.from_bytes(x2, "big")).bit_count()


def hamming_distance(bv1: bitarray | _HasHash, bv2: bitarray | _HasHash) -> int:
    """Return the number of positions at which two bit vectors differ.

    That is the count of ``1`` bits in their XOR. Each argument may be a bitarray or a
    hash object with a ``hash()`` method (such as :class:`BitAverageHaloHash`).

    Two fingerprints of this package must be of one kind and shape, as for
    :meth:`~samecode.fingerprints.fingerprint.Fingerprint.distance`: the bits of a halo hash
    and of a
    simhash do not measure the same thing.

    :raises TypeError: for any other argument, or fingerprints of different kinds.
    :raises ValueError: if the lengths (or the fingerprints' shapes) differ.

    >>> hamming_distance(bitarray("0001010111100001111"), bitarray("0001010111100001111"))
    0
    >>> hamming_distance(bitarray("11110000"), bitarray("00001111"))
    8
    >>> hamming_distance(bitarray("11110000"), bitarray("00110011"))
    4
    """
    if isinstance(bv1, Fingerprint) and isinstance(bv2, Fingerprint):
        check_comparable(bv1, bv2)
    return bit_distance(bits_of(bv1, "bv1"), bits_of(bv2, "bv2"))


def slices(s: Sequence[_T], size: int) -> list[tuple[_T, ...]]:
    """Cut the sequence ``s`` into consecutive, non-overlapping tuples of ``size`` items.

    :raises TypeError: if ``size`` is not an int.
    :raises ValueError: if ``size`` < 1.
    :raises SliceLengthError: (a :class:`ValueError` and an :class:`AssertionError`) if the
        length of ``s`` is not a multiple of ``size``.

    >>> slices([1, 2, 3, 4, 5, 6], 2)
    [(1, 2), (3, 4), (5, 6)]
    >>> slices([1, 2, 3, 4, 5, 6], 3)
    [(1, 2, 3), (4, 5, 6)]
    >>> slices([1, 2, 3, 4, 5, 6], 4)
    Traceback (most recent call last):
    ...
    samecode.halohash.SliceLengthError: the length of s (6) must be a multiple of size (4)
    """
    check_int(size, "size")
    if size < 1:
        raise SamecodeValueError(f"size must be >= 1; got {size!r}")
    length = len(s)
    if length % size:
        raise SliceLengthError(f"the length of s ({length}) must be a multiple of size ({size})")
    return list(zip(*[iter(s)] * size))


def _count_equal_chunks(x1: Any, x2: Any, size: int, unit: str) -> int:
    if len(x1) != len(x2):
        raise SamecodeValueError(f"the two hashes differ in length: {len(x1)} and {len(x2)} {unit}")
    pieces1, pieces2 = slices(x1, size), slices(x2, size)
    return sum(1 for p1, p2 in zip(pieces1, pieces2) if p1 == p2)


def common_chunks_from_hexdigest(
    h1: str | bytes, h2: str | bytes, chunk_bytes_length: int = 4
) -> int:
    """Return how many aligned pieces of two hex digests are equal, cutting them by *bits*.

    Despite its name, ``chunk_bytes_length`` counts **bits** here: the two digests are
    decoded from hex, cut into consecutive pieces of ``chunk_bytes_length`` bits, and the
    pieces at the same place are compared. (SameCode 0.5.1 does this, and this function
    keeps it; :func:`common_chunks` cuts by bytes.)

    :raises ValueError: if either is not hex, their lengths differ, or ``chunk_bytes_length``
        is < 1.
    :raises SliceLengthError: if the number of bits is not a multiple of ``chunk_bytes_length``.

    >>> a = "1f22c2c871cd70521211b138cd76fc04"
    >>> b = "1f22c2c871cd7852121bbd38c576bc84"
    >>> common_chunks_from_hexdigest(a, b, 32)
    1
    >>> byte_hamming_distance(a, b)
    8
    """
    bits1 = bitarray_from_bytes(unhex(h1, "h1"))
    bits2 = bitarray_from_bytes(unhex(h2, "h2"))
    return _count_equal_chunks(bits1, bits2, chunk_bytes_length, "bits")


def common_chunks(h1: _HasDigest, h2: _HasDigest, chunk_bytes_length: int = 4) -> int:
    """Return how many aligned ``chunk_bytes_length``-byte pieces of two hashes' digests are equal.

    Pieces that are all zeros count too: in bucketed hashes an empty bucket is
    significant.

    :param h1: a hash with a ``digest()`` method.
    :param h2: another, of the same size (and, for fingerprints of this package, of the
        same kind and shape).
    :raises TypeError: if either has no ``digest()`` method, or they are fingerprints of
        different kinds.
    :raises ValueError: if the sizes or shapes differ or ``chunk_bytes_length`` < 1.
    :raises SliceLengthError: if the digest length is not a multiple of ``chunk_bytes_length``.

    >>> m1 = b"The value specified for size must be at least as large".split()
    >>> m2 = b"The value specific for size must be at least as large".split()
    >>> a = BitAverageHaloHash(msg=m1, size_in_bits=256)
    >>> b = BitAverageHaloHash(msg=m2, size_in_bits=256)
    >>> common_chunks(a, b, 2)
    1
    >>> byte_hamming_distance(a.hexdigest(), b.hexdigest())
    32
    """
    for name, value in (("h1", h1), ("h2", h2)):
        if not isinstance(value, _HasDigest):
            raise SamecodeTypeError(
                f"{name} must be a hash with a digest() method; got {describe(value)}"
            )
    if isinstance(h1, Fingerprint) and isinstance(h2, Fingerprint):
        check_comparable(h1, h2)
    return _count_equal_chunks(h1.digest(), h2.digest(), chunk_bytes_length, "bytes")


def bit_to_num(bits: bitarray) -> int:
    """Return the unsigned integer whose binary digits are ``bits``, first bit most significant.

    An empty bitarray is ``0``.

    :raises TypeError: if ``bits`` is not a bitarray.

    >>> bit_to_num(bitarray("101"))
    5
    >>> bit_to_num(BitAverageHaloHash([b"a", b"b"], size_in_bits=32).hash()) == 0x61148000
    True
    """
    if not isinstance(bits, bitarray):
        raise SamecodeTypeError(f"bits must be a bitarray; got {describe(bits)}")
    return int(bits.to01() or "0", 2)


def decode_vector(b64_str: str | bytes) -> bitarray:
    """Return the bits of a base64 text, as :meth:`BitAverageHaloHash.b64digest` writes it.

    The URL-safe alphabet (``-`` and ``_``) and the standard one (``+`` and ``/``) are
    both accepted; padding is required. Any other character is an error (SameCode 0.5.1
    silently dropped it).

    :raises TypeError: if ``b64_str`` is not ``str`` or ``bytes``.
    :raises ValueError: if it is not valid base64.

    >>> decode_vector(b"YRSAAA==")
    bitarray('01100001000101001000000000000000')
    >>> decode_vector("YRSAAA==") == decode_vector(b"YRSAAA==")
    True
    """
    decoded = b64_bytes(b64_str, "b64_str")
    return bitarray_from_bytes(decoded)
