"""The protocol every fingerprint of this package follows.

A fingerprint (a halo hash or a simhash) is a fixed number of bits computed from a
collection of features; similar collections get fingerprints that differ in few bits. All
of them are fed and read the same way, and this base class holds the reading side:

* ``digest()``, ``hexdigest()``, ``b64digest()``, ``intdigest()`` and ``hash()`` (a
  bitarray) give the bits; ``prefix(n)`` gives the first ``n`` bits as a coarser
  fingerprint of the same input;
* ``distance(other)`` is the Hamming distance and ``similarity(other)`` is
  ``1 - distance / size_in_bits``;
* ``==`` compares kind, parameters and bits; ``copy()``, pickling, and the
  ``from_digest``/``from_hexdigest``/``from_b64digest``/``from_int`` constructors complete
  it. A fingerprint rebuilt from its bits compares like the original but cannot take more
  features, since the counts behind the bits are gone.

>>> from samecode.halohash import BitAverageHaloHash
>>> h = BitAverageHaloHash([b"a", b"b", b"c"], size_in_bits=32)
>>> isinstance(h, Fingerprint)
True
>>> BitAverageHaloHash.from_hexdigest(h.hexdigest()) == h
True
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from bitarray import bitarray, frozenbitarray

from samecode._validation import (
    b64_bytes,
    bit_distance,
    bits_of,
    check_int,
    describe,
    unhex,
)
from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = ["Fingerprint", "check_comparable"]

_BYTES_LIKE = (bytes, bytearray, memoryview)

_F = TypeVar("_F", bound="Fingerprint")


class Fingerprint:
    """Base class of the fingerprints: the reading, comparing and rebuilding side.

    Subclasses define how features are counted; this class turns the resulting bits into
    every representation and comparison. It is not meant to be instantiated itself.

    Runtime complexity: every reading is ``O(size_in_bits)`` once the digest is known (it
    is computed once and kept until the next update); a distance is one XOR and one
    population count of two integers.
    """

    __slots__ = ("_count", "_digest", "_size")

    #: The sizes, in bits, this kind of fingerprint supports.
    SIZES: ClassVar[tuple[int, ...]] = ()

    _size: int
    _count: int
    _digest: bytes | None

    # -- what a subclass provides ------------------------------------------------------

    def _compute_digest(self) -> bytes:  # pragma: no cover - abstract
        raise NotImplementedError

    def _is_frozen(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _freeze(self, digest: bytes) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _merge(self, parts: list[Any]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _params(self) -> dict[str, Any]:
        """Parameters beyond the size that the constructor needs to rebuild this kind."""
        return {}

    def __getstate__(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __setstate__(self, state: dict[str, Any]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _idle_update(self, msg: Any) -> bool:
        """For ``update()`` of a fingerprint rebuilt from its bits: ``True`` if ``msg``
        holds nothing (nothing to do), an error if it holds features. ``False`` otherwise.
        """
        if not self._is_frozen():
            return False
        if msg is None or (isinstance(msg, (str, *_BYTES_LIKE, list, tuple, Mapping)) and not msg):
            return True
        raise self._frozen_error()

    def _frozen_error(self) -> ValueError:
        return SamecodeValueError(
            "this hash was rebuilt from a digest: the counts behind its bits are unknown, "
            "so it cannot take more features or be combined"
        )

    # -- sizes -------------------------------------------------------------------------

    @property
    def size_in_bits(self) -> int:
        """The size of this fingerprint in bits.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash(size_in_bits=256).size_in_bits
        256
        """
        return self._size

    @property
    def digest_size(self) -> int:
        """The size of this fingerprint's digest in bytes (``size_in_bits / 8``).

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash(size_in_bits=160).digest_size
        20
        """
        return self._size // 8

    @property
    def elements_count(self) -> int | None:
        """How many features this fingerprint has seen (``None`` if rebuilt from its bits).

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash([b"a", b"", b"b", b"a"]).elements_count
        3
        """
        return None if self._is_frozen() else self._count

    # -- reading -----------------------------------------------------------------------

    def digest(self) -> bytes:
        """Return the fingerprint as ``digest_size`` raw bytes, first bit most significant.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash([b"a", b"b"], size_in_bits=32).digest()
        b'a\\x14\\x80\\x00'
        """
        if self._digest is None:
            self._digest = self._compute_digest()
        return self._digest

    def hexdigest(self) -> bytes:
        """Return the digest as hexadecimal ``bytes`` (as SameCode 0.5.1 does, not ``str``).

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash([b"a", b"b"], size_in_bits=32).hexdigest()
        b'61148000'
        """
        return binascii.hexlify(self.digest())

    def b64digest(self) -> bytes:
        """Return the digest as URL-safe base64 ``bytes``, with padding.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash([b"a", b"b"], size_in_bits=32).b64digest()
        b'YRSAAA=='
        """
        return base64.urlsafe_b64encode(self.digest())

    def intdigest(self) -> int:
        """Return the digest as an unsigned integer, first bit most significant.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=32)
        >>> hex(h.intdigest())
        '0x61148000'
        """
        return int.from_bytes(self.digest(), "big")

    def hash(self) -> bitarray:
        """Return the fingerprint as a big-endian :class:`bitarray.bitarray`.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> BitAverageHaloHash([b"a", b"b"], size_in_bits=32).hash()
        bitarray('01100001000101001000000000000000')
        """
        bits = bitarray(endian="big")
        bits.frombytes(self.digest())
        return bits

    def prefix(self, bits: int) -> frozenbitarray:
        """Return the first ``bits`` bits: a coarser fingerprint of the same input.

        Every bit of a halo hash or a simhash is a statistic of its own column (or
        bucket), so the first ``bits`` bits are a fingerprint of that size in their own
        right, with the same expected *fraction* of differing bits between two inputs
        and a larger spread around it: if a fraction ``p`` of the columns differ, the
        distance of an ``n``-bit prefix divided by ``n`` has a standard error of about
        ``sqrt(p * (1 - p) / n)``. Short prefixes suit exact-match lookups that narrow
        candidates; the full width then ranks them. The result is a frozen (hashable)
        bitarray, usable as a dictionary key and with :func:`samecode.halohash.hamming_distance`.

        :param bits: how many leading bits, ``1 <= bits <= size_in_bits``.
        :raises TypeError: if ``bits`` is not an int.
        :raises ValueError: if it is out of range.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=128)
        >>> h.prefix(8)
        frozenbitarray('01100001')
        >>> h.prefix(32) == BitAverageHaloHash([b"a", b"b"], size_in_bits=32).hash()
        True
        """
        check_int(bits, "bits")
        if not 1 <= bits <= self._size:
            raise SamecodeValueError(
                f"bits must be between 1 and size_in_bits ({self._size}); got {bits!r}"
            )
        return frozenbitarray(self.hash()[:bits])

    # -- comparing ---------------------------------------------------------------------

    def _check_comparable(self, other: Fingerprint) -> None:
        check_comparable(self, other)

    def _shape(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._params().items())
        return f"size_in_bits={self._size}{extra}"

    def distance(self, other: Any) -> int:
        """Return the Hamming distance (the number of differing bits) to ``other``.

        :param other: a fingerprint of the same kind and shape, or a bitarray (or any
            object with a ``hash()`` method giving one) of the same length.
        :raises TypeError: if ``other`` is a fingerprint of another kind, or neither a
            fingerprint nor a bitarray.
        :raises ValueError: if the sizes (or other parameters) differ.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> a = BitAverageHaloHash([b"a", b"b", b"c"], size_in_bits=32)
        >>> b = BitAverageHaloHash([b"a", b"b", b"d"], size_in_bits=32)
        >>> a.distance(b) == b.distance(a) == a.distance(b.hash())
        True
        >>> a.distance(b) == (a.intdigest() ^ b.intdigest()).bit_count()
        True
        >>> a.distance(a)
        0
        """
        if isinstance(other, Fingerprint):
            self._check_comparable(other)
            return (self.intdigest() ^ other.intdigest()).bit_count()
        return bit_distance(self.hash(), bits_of(other, "other"))

    def similarity(self, other: Any) -> float:
        """Return ``1 - distance / size_in_bits``: 1.0 for equal, about 0.5 for unrelated.

        :raises TypeError: as :meth:`distance`.
        :raises ValueError: as :meth:`distance`.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> a = BitAverageHaloHash([b"x", b"y"], size_in_bits=32)
        >>> a.similarity(a)
        1.0
        """
        return 1 - self.distance(other) / self._size

    def __eq__(self, other: object) -> bool:
        """Fingerprints are equal when they have the same kind, shape and bits."""
        if not isinstance(other, Fingerprint):
            return NotImplemented
        return (
            type(self) is type(other)
            and self._size == other._size
            and self._params() == other._params()
            and self.digest() == other.digest()
        )

    # A fingerprint changes as it is updated, so it cannot be a dict key; use digest().
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        count = "unknown" if self._is_frozen() else str(self._count)
        return (
            f"<{type(self).__name__} {self._shape()} elements={count} "
            f"hexdigest={self.hexdigest().decode('ascii')}>"
        )

    # -- building ----------------------------------------------------------------------

    @classmethod
    def combine(cls: type[_F], hashes: Iterable[_F]) -> _F:
        """Return one fingerprint of all the features of ``hashes``, at their common shape.

        The result is the fingerprint of every feature the parts have seen, as if all had
        been fed to one; the parts are not changed.

        :param hashes: one or more fingerprints of this class and of one shape.
        :raises TypeError: if an item is not a fingerprint of this class.
        :raises ValueError: if ``hashes`` is empty, the shapes differ, or a part was
            rebuilt from its bits.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> words = b"one two three four five six".split()
        >>> left = BitAverageHaloHash(words[:2], size_in_bits=64)
        >>> right = BitAverageHaloHash(words[2:], size_in_bits=64)
        >>> BitAverageHaloHash.combine([left, right]) == BitAverageHaloHash(words, size_in_bits=64)
        True
        """
        parts = list(hashes) if isinstance(hashes, Iterable) else None
        if parts is None:
            raise SamecodeTypeError(f"hashes must be an iterable of hashes; got {describe(hashes)}")
        if not parts:
            raise SamecodeValueError("combine needs at least one hash; got none")
        for part in parts:
            if not isinstance(part, cls):
                raise SamecodeTypeError(
                    f"every item must be a {cls.__name__}; got {describe(part)}"
                )
        sizes = sorted({part._size for part in parts})
        if len(sizes) > 1:
            raise SamecodeValueError(f"all hashes must have the same size; got sizes {sizes}")
        shapes = sorted({part._shape() for part in parts})
        if len(shapes) > 1:
            raise SamecodeValueError(f"all hashes must have the same shape; got {shapes}")
        for part in parts:
            if part._is_frozen():
                raise part._frozen_error()
        first = parts[0]
        result = cls(size_in_bits=first._size, **first._params())  # type: ignore[call-arg]
        result._merge(parts)
        return result

    def copy(self: _F) -> _F:
        """Return an independent copy of this fingerprint.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> a = BitAverageHaloHash([b"x"], size_in_bits=32)
        >>> b = a.copy()
        >>> b.update(b"y")
        >>> a.elements_count, b.elements_count
        (1, 2)
        """
        clone = type(self).__new__(type(self))
        clone.__setstate__(self.__getstate__())
        return clone

    @classmethod
    def from_digest(cls: type[_F], digest: bytes | bytearray | memoryview, **params: Any) -> _F:
        """Rebuild a fingerprint from its :meth:`digest`; the size follows from the length.

        The result compares, measures distances and prints like the original, but it
        does not know the counts behind its bits, so it cannot be updated or combined.

        :param digest: the raw bits, ``size_in_bits / 8`` bytes for a supported size.
        :param params: the other parameters of the original (such as ``buckets``).
        :raises TypeError: if ``digest`` is not bytes-like.
        :raises ValueError: if its length is not the length of a supported size.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=160)
        >>> BitAverageHaloHash.from_digest(h.digest()) == h
        True
        """
        if not isinstance(digest, _BYTES_LIKE):
            raise SamecodeTypeError(f"digest must be bytes-like; got {describe(digest)}")
        digest = bytes(digest)
        sizes = {size // 8: size for size in cls.SIZES}
        size = sizes.get(len(digest))
        if size is None:
            lengths = ", ".join(str(n) for n in sizes)
            raise SamecodeValueError(
                f"a {cls.__name__} digest must be {lengths} bytes long; got {len(digest)} bytes"
            )
        result = cls(size_in_bits=size, **params)  # type: ignore[call-arg]
        result._freeze(digest)
        return result

    @classmethod
    def from_hexdigest(cls: type[_F], hexdigest: str | bytes, **params: Any) -> _F:
        """Rebuild a fingerprint from its :meth:`hexdigest` (``str`` or ``bytes``).

        :raises ValueError: if the text is not hexadecimal or has the wrong length.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=64)
        >>> BitAverageHaloHash.from_hexdigest(h.hexdigest().decode()) == h
        True
        """
        return cls.from_digest(unhex(hexdigest, "hexdigest"), **params)

    @classmethod
    def from_b64digest(cls: type[_F], b64digest: str | bytes, **params: Any) -> _F:
        """Rebuild a fingerprint from its :meth:`b64digest`.

        :raises ValueError: if the text is not valid base64 or has the wrong length.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=256)
        >>> BitAverageHaloHash.from_b64digest(h.b64digest()) == h
        True
        """
        return cls.from_digest(b64_bytes(b64digest, "b64digest"), **params)

    @classmethod
    def from_int(cls: type[_F], value: int, size_in_bits: int, **params: Any) -> _F:
        """Rebuild a fingerprint of ``size_in_bits`` from its :meth:`intdigest`.

        :raises TypeError: if ``value`` or ``size_in_bits`` is not an int.
        :raises ValueError: if the size is not supported, or ``value`` is negative or
            does not fit in it.

        >>> from samecode.halohash import BitAverageHaloHash
        >>> h = BitAverageHaloHash([b"a", b"b"], size_in_bits=32)
        >>> BitAverageHaloHash.from_int(h.intdigest(), 32) == h
        True
        """
        check_int(value, "value")
        check_int(size_in_bits, "size_in_bits")
        if size_in_bits not in cls.SIZES:
            raise SamecodeValueError(
                f"size_in_bits must be one of {', '.join(map(str, cls.SIZES))}; "
                f"got {size_in_bits!r}"
            )
        if not 0 <= value < 1 << size_in_bits:
            raise SamecodeValueError(
                f"value must be in 0 .. 2**{size_in_bits} - 1 for {size_in_bits} bits; "
                f"got {value!r}"
            )
        return cls.from_digest(value.to_bytes(size_in_bits // 8, "big"), **params)


def check_comparable(first: Fingerprint, second: Fingerprint) -> None:
    """Raise unless two fingerprints are of one kind and shape (their bits then compare).

    :raises TypeError: if they are of different kinds.
    :raises ValueError: if their sizes or other parameters (``buckets``) differ.

    >>> from samecode.halohash import BitAverageHaloHash
    >>> check_comparable(BitAverageHaloHash([b"a"], 32), BitAverageHaloHash([b"b"], 64))
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: cannot compare hashes of different sizes: 32 and 64 bits
    """
    if type(second) is not type(first):
        raise SamecodeTypeError(
            f"cannot compare a {type(first).__name__} with a {type(second).__name__}"
        )
    if second._size != first._size:
        raise SamecodeValueError(
            f"cannot compare hashes of different sizes: {first._size} and {second._size} bits"
        )
    if second._params() != first._params():
        raise SamecodeValueError(
            f"cannot compare fingerprints of different shapes: {first._shape()} and "
            f"{second._shape()}"
        )
