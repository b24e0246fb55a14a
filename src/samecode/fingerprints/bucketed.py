"""Bucketed halo hashes: a bit of the hash, or a few, per bucket of features.

A feature's hash picks its bucket, so a changed feature disturbs one bucket only.
:class:`BucketAverageHaloHash` gives each bucket one bit, the vote of its features' low
bits; :class:`BucketedBitAverageHaloHash` gives each bucket a small bit-average hash of its
features. Both are importable from :mod:`samecode.halohash`, beside the bit-average halo
hash they extend.

>>> from samecode.fingerprints.bucketed import BucketedBitAverageHaloHash
>>> BucketedBitAverageHaloHash([b"a", b"b"], size_in_bits=32, buckets=4).bucket_bits
8
"""

from __future__ import annotations

import sys
from collections import Counter
from operator import add
from typing import Any

from samecode._columns import (
    PENDING_LIMIT,
    add_planes,
    column_planes,
    feature_hasher,
    planes_above,
    scale_planes,
)
from samecode._validation import check_int, check_state, weighted_batches
from samecode.errors import SamecodeValueError
from samecode.fingerprints.fingerprint import Fingerprint

__all__ = ["BucketAverageHaloHash", "BucketedBitAverageHaloHash"]

_STATE_VERSION = 1
_BUCKETED_SIZES = (32, 64, 128, 256, 512)
_md5 = feature_hasher(128)[0]
_sha512 = feature_hasher(512)[0]


def _check_bucketed_size(size_in_bits: object) -> int:
    size = check_int(size_in_bits, "size_in_bits")
    if size not in _BUCKETED_SIZES:
        raise SamecodeValueError(
            f"size_in_bits must be one of {', '.join(map(str, _BUCKETED_SIZES))}; got {size!r}"
        )
    return size


_KEY_TABLES: dict[int, tuple[list[int], list[int]]] = {}


def _key_tables(low_bits: int) -> tuple[list[int], list[int]]:
    """For every 16-bit key as the machine reads it natively: (bucket, set low bits)."""
    tables = _KEY_TABLES.get(low_bits)
    if tables is None:
        keys = range(1 << 16)
        if sys.byteorder == "little":
            values = [((k & 0xFF) << 8) | (k >> 8) for k in keys]
        else:  # pragma: no cover - big-endian machines
            values = list(keys)
        mask = (1 << low_bits) - 1
        tables = ([v >> low_bits for v in values], [(v & mask).bit_count() for v in values])
        _KEY_TABLES[low_bits] = tables
    return tables


class BucketAverageHaloHash(Fingerprint):
    """The bucket-average halo hash: "group by High bits, Average LOw bits" (HALO).

    Each bit of the hash is a bucket. A feature's hash picks its bucket with its high
    bits and votes with its low bits; a bucket's bit is ``1`` when the low bits of the
    features that fell in it are more often ``1`` than ``0``. Changing a few features
    changes only the buckets they fall in.

    Exactly, for ``n = size_in_bits`` buckets, ``h = log2(n)`` and ``L = 16 - h``:

    1. each feature (bytes; a ``str`` counts as its UTF-8 bytes; empty features are
       skipped) is hashed with MD5, and ``K`` is the first two bytes of the digest read
       as a big-endian 16-bit integer;
    2. the feature goes to bucket ``K >> L`` (its top ``h`` bits) and brings the ``L`` low
       bits ``K & (2**L - 1)``;
    3. for each bucket ``b``, with ``N[b]`` features and ``S[b]`` the total number of set
       low bits they bring, bit ``b`` is ``1`` exactly when ``2 * S[b] > N[b] * L``; an
       empty bucket, and a tie, give ``0``;
    4. bucket 0 is the most significant bit of the digest.

    Feature order does not matter; duplicates count every time.

    :param msg: optional first input, as for :meth:`update`.
    :param size_in_bits: the number of buckets: 32, 64, 128, 256 or 512.
    :raises TypeError: if ``size_in_bits`` is not an int, or a feature is not bytes-like
        or ``str``.
    :raises ValueError: if ``size_in_bits`` is not a supported size.

    Runtime complexity: one MD5 call per feature, then a count of the features' 16-bit
    keys in C; memory is ``O(size_in_bits)`` however many features it sees.

    >>> words = "the quick brown fox jumps over the lazy dog".split()
    >>> a = BucketAverageHaloHash(words, size_in_bits=32)
    >>> b = BucketAverageHaloHash(words[:-1] + ["cat"], size_in_bits=32)
    >>> a.distance(b) <= 2
    True
    >>> BucketAverageHaloHash(size_in_bits=32).hexdigest()
    b'00000000'
    """

    __slots__ = ("_counts", "_sums")

    SIZES = _BUCKETED_SIZES

    def __init__(self, msg: Any = None, size_in_bits: int = 128) -> None:
        self._size = _check_bucketed_size(size_in_bits)
        self._count = 0
        self._digest = None
        self._counts: list[int] | None = [0] * self._size
        self._sums = [0] * self._size
        self.update(msg)

    @property
    def low_bits(self) -> int:
        """How many low bits of each feature's key vote (``16 - log2(size_in_bits)``).

        >>> BucketAverageHaloHash(size_in_bits=256).low_bits
        8
        """
        return 16 - (self._size.bit_length() - 1)

    def update(self, msg: Any) -> None:
        """Add a feature, an iterable of features, or counted features, to the hash.

        A feature is ``bytes``, ``bytearray``, ``memoryview`` or ``str`` (hashed as
        UTF-8); a mapping of feature to count (a :class:`collections.Counter`) counts each
        feature that many times. ``None`` and empty values change nothing. If anything is
        rejected, the hash is left as it was before the call.

        :raises TypeError: for a feature of another type (``None``, an int, a numpy
            array...), or a count that is not an int.
        :raises ValueError: for a negative count, or if this hash was rebuilt from a
            digest.

        >>> h = BucketAverageHaloHash(size_in_bits=64)
        >>> h.update(b"one")
        >>> h.update(["two", b"three"])
        >>> h.update({"four": 3})
        >>> h.elements_count
        6
        """
        if self._idle_update(msg):
            return
        counts = self._counts or []
        low_bits = self.low_bits
        buckets, pops = _key_tables(low_bits)
        new_counts = [0] * self._size
        new_sums = [0] * self._size
        added = 0
        for weight, tokens in weighted_batches(msg, 1 << 16, text=True):
            if not tokens:
                continue
            added += weight * len(tokens)
            blob = b"".join([_md5(t).digest() for t in tokens])
            keys = Counter(memoryview(blob).cast("H")[::8])
            for key, times in keys.items():
                bucket = buckets[key]
                new_counts[bucket] += weight * times
                new_sums[bucket] += weight * times * pops[key]
        if added:
            self._counts = list(map(add, counts, new_counts))
            self._sums = list(map(add, self._sums, new_sums))
            self._count += added
            self._digest = None

    def _compute_digest(self) -> bytes:
        counts = self._counts
        if counts is None:  # pragma: no cover - a frozen hash always has its digest
            raise self._frozen_error()
        low_bits = self.low_bits
        bits = "".join(["1" if 2 * s > n * low_bits else "0" for n, s in zip(counts, self._sums)])
        return int(bits, 2).to_bytes(self._size // 8, "big")

    def _is_frozen(self) -> bool:
        return self._counts is None

    def _freeze(self, digest: bytes) -> None:
        self._counts = None
        self._digest = digest

    def _merge(self, parts: list[Any]) -> None:
        for part in parts:
            self._counts = list(map(add, self._counts or [], part._counts or []))
            self._sums = list(map(add, self._sums, part._sums))
            self._count += part._count

    def __getstate__(self) -> dict[str, Any]:
        frozen = self._counts is None
        return {
            "version": _STATE_VERSION,
            "size_in_bits": self._size,
            "count": self._count,
            "counts": None if frozen else list(self._counts or ()),
            "sums": None if frozen else list(self._sums),
            "digest": self._digest if frozen else None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = check_state(state, type(self), _STATE_VERSION)
        self._size = _check_bucketed_size(state["size_in_bits"])
        self._count = state["count"]
        self._digest = None
        self._sums = [0] * self._size
        if state["counts"] is None:
            self._freeze(bytes(state["digest"]))
            return
        if len(state["counts"]) != self._size or len(state["sums"]) != self._size:
            raise SamecodeValueError(f"saved state does not have {self._size} buckets")
        self._counts = list(state["counts"])
        self._sums = list(state["sums"])


class BucketedBitAverageHaloHash(Fingerprint):
    """The bucketed bit-average halo hash: a small bit-average hash per bucket.

    A feature's hash picks a bucket with its first bits; each bucket is a bit-average
    hash of the next bits of the features that fell in it, and the digest is the buckets'
    hashes side by side. A changed feature disturbs one bucket only, and an empty bucket
    is all zeros.

    Exactly, for ``B = buckets`` (``h = log2(B)``) and ``W = size_in_bits / B`` bits per
    bucket:

    1. each feature (bytes; a ``str`` counts as its UTF-8 bytes; empty features are
       skipped) is hashed with MD5 when ``8 + W <= 128``, else with SHA-512;
    2. the feature goes to bucket ``D[0] >> (8 - h)`` (the top ``h`` bits of the first
       digest byte) and brings the ``W`` bits that follow the first byte (digest bits
       ``8 .. 8 + W - 1``, most significant bit first);
    3. bit ``j`` of bucket ``b`` is ``1`` exactly when more than half of the bucket's
       features have their bit ``j`` set (``2 * ones > N[b]``); a tie and an empty bucket
       give ``0``;
    4. the digest is bucket 0's ``W`` bits, then bucket 1's, and so on.

    :param msg: optional first input, as for :meth:`update`.
    :param size_in_bits: 32, 64, 128, 256 or 512.
    :param buckets: a power of two from 2 to 256, at most ``size_in_bits``.
    :raises TypeError: if a parameter is not an int, or a feature is not bytes-like or
        ``str``.
    :raises ValueError: if a parameter is out of range.

    Runtime complexity: one hash call and a few Python steps per feature, then bit
    counting in C as for :class:`~samecode.halohash.BitAverageHaloHash`; memory stays
    under about 1 MiB.

    >>> words = "the quick brown fox jumps over the lazy dog".split()
    >>> a = BucketedBitAverageHaloHash(words, size_in_bits=64, buckets=8)
    >>> b = BucketedBitAverageHaloHash(words[:-1] + ["cat"], size_in_bits=64, buckets=8)
    >>> a.distance(b) <= 16
    True
    >>> a.bucket_bits
    8
    """

    __slots__ = ("_buckets", "_counts", "_hasher", "_pending", "_planes", "_stride")

    SIZES = _BUCKETED_SIZES

    def __init__(self, msg: Any = None, size_in_bits: int = 128, buckets: int = 8) -> None:
        self._size = _check_bucketed_size(size_in_bits)
        self._buckets = check_int(buckets, "buckets")
        if buckets not in (2, 4, 8, 16, 32, 64, 128, 256) or buckets > self._size:
            raise SamecodeValueError(
                f"buckets must be a power of two from 2 to 256 and at most size_in_bits "
                f"({self._size}); got {buckets!r}"
            )
        self._hasher, self._stride = (_md5, 16) if 8 + self.bucket_bits <= 128 else (_sha512, 64)
        self._count = 0
        self._digest = None
        self._counts: list[int] | None = [0] * buckets
        self._planes: list[list[int]] = [[] for _ in range(buckets)]
        self._pending = [bytearray() for _ in range(buckets)]
        self.update(msg)

    @property
    def buckets(self) -> int:
        """The number of buckets.

        >>> BucketedBitAverageHaloHash(size_in_bits=128, buckets=16).buckets
        16
        """
        return self._buckets

    @property
    def bucket_bits(self) -> int:
        """The bits per bucket, ``size_in_bits / buckets``.

        >>> BucketedBitAverageHaloHash(size_in_bits=128, buckets=16).bucket_bits
        8
        """
        return self._size // self._buckets

    def _params(self) -> dict[str, Any]:
        return {"buckets": self._buckets}

    def update(self, msg: Any) -> None:
        """Add a feature, an iterable of features, or counted features, to the hash.

        A feature is ``bytes``, ``bytearray``, ``memoryview`` or ``str`` (hashed as
        UTF-8); a mapping of feature to count counts each feature that many times.
        ``None`` and empty values change nothing. If anything is rejected, the hash is
        left as it was before the call.

        :raises TypeError: for a feature of another type, or a count that is not an int.
        :raises ValueError: for a negative count, or if this hash was rebuilt from a
            digest.

        >>> h = BucketedBitAverageHaloHash(size_in_bits=64)
        >>> h.update(b"one")
        >>> h.update(["two", b"three"])
        >>> h.update({"four": 2})
        >>> h.elements_count
        5
        """
        if self._idle_update(msg):
            return
        # Work out the whole change first and apply it at the end, so that a bad feature
        # leaves the hash untouched.
        staged = self._by_bucket([])
        counted = [0] * self._buckets
        flushed: list[list[int]] = [[] for _ in range(self._buckets)]
        for weight, tokens in weighted_batches(msg, PENDING_LIMIT // self._stride, text=True):
            if weight != 1:
                flushed, counted = self._counted(flushed, counted, self._by_bucket(tokens), weight)
                continue
            self._by_bucket(tokens, staged)
            if sum(map(len, staged)) >= PENDING_LIMIT:
                flushed, counted = self._counted(flushed, counted, staged, 1)
                staged = self._by_bucket([])
        self._apply(flushed, counted, staged)

    def _by_bucket(
        self, tokens: list[Any], parts: list[bytearray] | None = None
    ) -> list[bytearray]:
        """The digests of ``tokens``, each appended to its bucket's part of ``parts`` (new
        empty parts if none are given)."""
        if parts is None:
            parts = [bytearray() for _ in range(self._buckets)]
        hasher = self._hasher
        shift = 8 - (self._buckets.bit_length() - 1)
        for digest in [hasher(t).digest() for t in tokens]:
            parts[digest[0] >> shift] += digest
        return parts

    def _counted(
        self, flushed: list[list[int]], counted: list[int], parts: list[bytearray], weight: int
    ) -> tuple[list[list[int]], list[int]]:
        """Each bucket's planes and count of features with its part's digests added
        ``weight`` times."""
        stride = self._stride
        planes = [column_planes(part, stride) for part in parts]
        if weight != 1:
            planes = [scale_planes(part, weight) for part in planes]
        return (
            [add_planes(done, new) for done, new in zip(flushed, planes)],
            [n + weight * (len(part) // stride) for n, part in zip(counted, parts)],
        )

    def _apply(self, flushed: list[list[int]], counted: list[int], staged: list[bytearray]) -> None:
        """Take in an update's counted planes, its counts of features and its digests
        not counted yet (kept pending)."""
        stride = self._stride
        added = [n + len(part) // stride for n, part in zip(counted, staged)]
        total = sum(added)
        if not total:
            return
        self._planes = [add_planes(mine, new) for mine, new in zip(self._planes, flushed)]
        for pending, part in zip(self._pending, staged):
            pending += part
        self._counts = list(map(add, self._counts or [], added))
        self._count += total
        self._digest = None
        if sum(map(len, self._pending)) >= PENDING_LIMIT:
            self._flush()

    def _flush(self) -> list[list[int]]:
        """Count every pending digest into the planes and return the planes."""
        stride = self._stride
        for index, pending in enumerate(self._pending):
            if pending:
                self._planes[index] = add_planes(
                    self._planes[index], column_planes(pending, stride)
                )
                self._pending[index] = bytearray()
        return self._planes

    def _compute_digest(self) -> bytes:
        counts = self._counts
        if counts is None:  # pragma: no cover - a frozen hash always has its digest
            raise self._frozen_error()
        width = 8 * self._stride
        bits = self.bucket_bits
        keep = (1 << bits) - 1
        drop = width - 8 - bits
        value = 0
        for planes, count in zip(self._flush(), counts):
            value = (value << bits) | ((planes_above(planes, count // 2, width) >> drop) & keep)
        return value.to_bytes(self._size // 8, "big")

    def _is_frozen(self) -> bool:
        return self._counts is None

    def _freeze(self, digest: bytes) -> None:
        self._counts = None
        self._planes = []
        self._pending = []
        self._digest = digest

    def _merge(self, parts: list[Any]) -> None:
        for part in parts:
            self._planes = [add_planes(a, b) for a, b in zip(self._planes, part._flush())]
            self._counts = list(map(add, self._counts or [], part._counts or []))
            self._count += part._count

    def __getstate__(self) -> dict[str, Any]:
        frozen = self._counts is None
        return {
            "version": _STATE_VERSION,
            "size_in_bits": self._size,
            "buckets": self._buckets,
            "count": self._count,
            "counts": None if frozen else list(self._counts or ()),
            "planes": None if frozen else [list(p) for p in self._flush()],
            "digest": self._digest if frozen else None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = check_state(state, type(self), _STATE_VERSION)
        self.__init__(size_in_bits=state["size_in_bits"], buckets=state["buckets"])  # type: ignore[misc]
        self._count = state["count"]
        if state["counts"] is None:
            self._freeze(bytes(state["digest"]))
            return
        if len(state["counts"]) != self._buckets or len(state["planes"]) != self._buckets:
            raise SamecodeValueError(f"saved state does not have {self._buckets} buckets")
        self._counts = list(state["counts"])
        self._planes = [list(p) for p in state["planes"]]
