"""MinHash signatures identical to datasketch 2.0.0's, in pure Python.

:class:`MinHash` gives, for the same ``num_perm``, ``seed``, scheme and input bytes, the
values ``datasketch.MinHash`` gives, for its three schemes:

* ``"affine32"`` (datasketch's default since 2.0.0): a feature's hash ``h`` (the first 4
  bytes of its SHA-1, little-endian) is mixed by MurmurHash3's 32-bit finalizer, then
  permutation ``k`` maps it to ``(a_k * h + b_k) mod 2**32`` with ``a_k`` odd;
* ``"affine64"``: the same with the first 8 bytes of SHA-1 and 64-bit arithmetic;
* ``"legacy"`` (before 2.0.0): ``((a_k * h + b_k) mod 2**64) mod (2**61 - 1)``, cut to 32
  bits (numpy's ``uint64`` arithmetic wraps, and so does this).

The signature holds, per permutation, the least value over the features. ``a`` and ``b``
are drawn as datasketch draws them, from ``numpy.random.RandomState(seed)``
(:mod:`samecode.minhash._randomstate` reproduces those draws exactly). Signatures therefore move
between the two libraries: ``datasketch.MinHash(seed=1, hashvalues=m.hashvalues,
scheme="affine32")`` and back, and :class:`LeanMinHash` reads and writes datasketch's byte
layout. The names are datasketch's, so moving over is a change of import.

How it works without numpy: the values of all permutations for one feature are computed
at once as *lanes* of one large integer, and compared with the running minimums lane by
lane by an addition with guard bits; only a feature that lowers some minimum goes on to
the merge. For ``"affine32"`` (up to 1,024 permutations) a lane is 40 bits and ``a_k * h +
b_k mod 2**32`` is the sum of four table entries, one per byte of ``h``, masked; otherwise
a lane is 128 bits and holds the product. It is about half datasketch's speed (numpy
permutes a whole batch at once); samecode's own scheme,
:class:`~samecode.minhash.oph.OnePermutationMinHash`, is several times faster than both.

>>> m = MinHash(num_perm=16, seed=1)
>>> m.update_batch([b"the", b"cat", b"sat", b"on", b"mat"])
>>> len(m), m.scheme, m.is_empty()
(16, 'affine32', False)
>>> other = MinHash(num_perm=16, seed=1)
>>> other.update_batch([b"the", b"cat", b"sat", b"on", b"hat"])
>>> 0 <= m.jaccard(other) <= 1
True
"""

from __future__ import annotations

import hashlib
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import eq, methodcaller
from typing import Any

from samecode._validation import batches, check_bytes_features, check_int, check_state, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.minhash._lanes import MERSENNE, Lanes, fmix_many, lanes_for

__all__ = [
    "SCHEMES",
    "LeanMinHash",
    "MinHash",
    "sha1_hash32",
    "sha1_hash64",
]

#: The permutation schemes, as datasketch names them.
SCHEMES = ("affine32", "affine64", "legacy")

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_HASH_RANGE = 1 << 32
_STATE_VERSION = 1
# The codes datasketch's byte format gives the affine schemes (legacy has none).
_SCHEME_CODES = {"affine32": 1, "affine64": 2}
_SCHEME_OF_CODE = {code: scheme for scheme, code in _SCHEME_CODES.items()}
_VALUE_FORMATS = {"legacy": "I", "affine32": "I", "affine64": "Q"}
_DIGEST = methodcaller("digest")


def sha1_hash32(data: bytes) -> int:
    """The first 4 bytes of SHA-1, little-endian: datasketch's default feature hash.

    >>> sha1_hash32(b"abc") == int.from_bytes(hashlib.sha1(b"abc").digest()[:4], "little")
    True
    """
    return int.from_bytes(hashlib.sha1(data).digest()[:4], "little")


def sha1_hash64(data: bytes) -> int:
    """The first 8 bytes of SHA-1, little-endian: datasketch's hash for ``"affine64"``.

    >>> sha1_hash64(b"abc") == int.from_bytes(hashlib.sha1(b"abc").digest()[:8], "little")
    True
    """
    return int.from_bytes(hashlib.sha1(data).digest()[:8], "little")


_BATCH = 1 << 16  # features hashed at once


def _check_scheme(scheme: object) -> str:
    if scheme not in SCHEMES:
        raise SamecodeValueError(f"scheme must be one of {', '.join(SCHEMES)}; got {scheme!r}")
    return str(scheme)


class MinHash:
    """A MinHash signature, value for value datasketch 2.0.0's (see the module).

    :param num_perm: the number of permutations (hash values), 1 to ``2**32``.
    :param seed: the seed of the permutations, 0 to ``2**32 - 1`` (numpy's rule).
    :param hashfunc: the feature hash, bytes to an unsigned int of the scheme's width
        (:func:`sha1_hash32`, or :func:`sha1_hash64` for ``"affine64"``, by default).
    :param hashvalues: a signature to start from (its length sets ``num_perm``); then
        ``scheme`` must be given.
    :param permutations: ``(a, b)``, the permutations to use instead of drawing them;
        then ``scheme`` must be given.
    :param scheme: ``"affine32"`` (the default), ``"affine64"`` or ``"legacy"``.
    :raises TypeError: for a parameter of the wrong type.
    :raises ValueError: for a value out of range, a missing scheme, or permutations that
        are not valid for the scheme.

    Runtime complexity: a feature costs one SHA-1 and about a dozen operations on integers
    of ``40 * num_perm`` bits (``128 * num_perm`` for ``"affine64"``, ``"legacy"`` and
    more than 1,024 permutations), in C: ``O(n * num_perm)`` for ``n`` features, about 1.2
    µs a feature at 128 permutations. The first MinHash of a seed and size builds 1,024
    table entries (about 0.5 MB at 128 permutations, kept for the next).

    >>> a = MinHash(num_perm=128)
    >>> a.update_batch([b"alpha", b"beta", b"gamma"])
    >>> b = a.copy()
    >>> b.update(b"delta")
    >>> a == b, a.jaccard(b) > 0.5, round(MinHash.union(a, b).count())
    (False, True, 4)
    """

    __slots__ = ("_hashfunc", "_lanes", "_minimum", "permutations", "scheme", "seed")

    def __init__(
        self,
        num_perm: int = 128,
        seed: int = 1,
        hashfunc: Callable[[bytes], int] | None = None,
        hashvalues: Iterable[int] | None = None,
        permutations: tuple[Iterable[int], Iterable[int]] | None = None,
        scheme: str | None = None,
    ) -> None:
        if scheme is None:
            if hashvalues is not None or permutations is not None:
                raise SamecodeValueError(
                    "scheme must be given with hashvalues or permutations: the scheme of "
                    "the MinHash they came from ('legacy' for datasketch before 2.0.0)"
                )
            scheme = "affine32"
        self.scheme = _check_scheme(scheme)
        self.seed = check_int(seed, "seed")
        if not 0 <= seed <= _M32:
            raise SamecodeValueError(f"seed must be from 0 to 2**32 - 1; got {seed}")
        values = None if hashvalues is None else _values_of(hashvalues, self.scheme)
        if values is not None:
            num_perm = len(values)
        check_int(num_perm, "num_perm")
        if not 1 <= num_perm <= _HASH_RANGE:
            raise SamecodeValueError(f"num_perm must be from 1 to 2**32; got {num_perm}")
        if hashfunc is not None and not callable(hashfunc):
            raise SamecodeTypeError(f"hashfunc must be callable; got {describe(hashfunc)}")
        self._hashfunc = hashfunc
        if permutations is not None:
            a, b = _permutations_of(permutations, self.scheme, num_perm)
            self._lanes = Lanes(self.scheme, a, b)
            self.permutations = (a, b)
        else:
            self._lanes, self.permutations = lanes_for(self.scheme, self.seed, num_perm)
        self._minimum = self._lanes.empty if values is None else self._lanes.pack(values)

    # -- reading -----------------------------------------------------------------------

    @property
    def hashvalues(self) -> array[int]:
        """The signature: per permutation, the least value seen (the largest if none);
        an array of 4-byte values for ``"affine32"``, of 8-byte values otherwise (numpy's
        ``uint32`` and ``uint64`` in datasketch)."""
        values = self._lanes.unpack(self._minimum)
        return values if self.scheme == "affine32" else array("Q", values)

    def digest(self) -> array[int]:
        """A copy of :attr:`hashvalues`."""
        return self.hashvalues

    def __len__(self) -> int:
        return self._lanes.count

    def is_empty(self) -> bool:
        """Whether no feature has been seen (every value the largest)."""
        return self._minimum == self._lanes.empty

    def __eq__(self, other: object) -> bool:
        """Equal kinds, schemes, seeds and signatures."""
        if not isinstance(other, MinHash):
            return NotImplemented
        return (
            type(self) is type(other)
            and self.scheme == other.scheme
            and self.seed == other.seed
            and len(self) == len(other)
            and self._minimum == other._minimum
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} scheme={self.scheme} seed={self.seed} num_perm={len(self)}>"

    # -- feeding -----------------------------------------------------------------------

    def _hashes(self, features: Iterable[Any]) -> list[int]:
        if self._hashfunc is not None:
            return self._in_range(
                [self._hashfunc(feature) for feature in features],
                f"hashfunc must give ints from 0 to 2**{self._lanes.value_bits} - 1 "
                f"for scheme {self.scheme!r}",
            )
        items = list(features)
        try:
            digests = b"".join(map(_DIGEST, map(hashlib.sha1, items)))
        except TypeError:
            check_bytes_features(items)
            raise
        if self._lanes.value_bits == 32:
            words = array("I", digests)
            if sys.byteorder != "little":  # pragma: no cover
                words.byteswap()
            return words[::5].tolist()
        return [int.from_bytes(digests[i : i + 8], "little") for i in range(0, len(digests), 20)]

    def update(self, b: bytes) -> None:
        """Add one feature (bytes, hashed by ``hashfunc``).

        :raises TypeError: if it is not bytes-like (for the default hash).
        """
        self.update_batch([b])

    def update_batch(self, b: Iterable[bytes]) -> None:
        """Add many features at once.

        :raises TypeError: for a feature that is not bytes-like (for the default hash).
        :raises ValueError: if ``hashfunc`` gives a value out of the scheme's range.

        Nothing is added when either is raised. Features are taken ``2**16`` at a time, so
        that a stream of any length (a generator of shingles) takes bounded memory.
        """
        if isinstance(b, (bytes, bytearray, memoryview, str)):
            raise SamecodeTypeError(
                f"update_batch takes an iterable of features; got {describe(b)}"
            )
        self._absorb_all(map(self._hashes, batches(b, _BATCH)))

    def _in_range(self, values: list[Any], rule: str) -> list[int]:
        """``values``, if each is an int of the scheme's width.

        :raises ValueError: stating ``rule`` and the first value that breaks it.
        """
        limit = 1 << self._lanes.value_bits
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
                raise SamecodeValueError(f"{rule}; got {describe(value)}")
        return values

    def _absorb_all(self, hash_batches: Iterable[list[int]]) -> None:
        """:meth:`_absorb` every batch in turn; if making one raises, nothing is added."""
        before = self._minimum
        try:
            for hashes in hash_batches:
                self._absorb(hashes)
        except BaseException:
            self._minimum = before
            raise

    def _absorb(self, hashes: list[int]) -> None:
        """Lower the minimums by every feature hash (not yet mixed)."""
        lanes = self._lanes
        if lanes.scheme == "legacy":
            minimum = self._minimum
            for h in hashes:
                minimum = lanes.lower(minimum, lanes.permuted(h))
            self._minimum = minimum
            return
        if not lanes.tabled:
            self._absorb_wide(fmix_many(hashes, lanes.value_bits))
            return
        mixed = array("I", fmix_many(hashes, 32))
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            mixed.byteswap()
        t0, t1, t2, t3 = lanes.tables()
        # The common path, inlined: a feature that lowers no minimum costs three
        # additions, two masks and a comparison. Bit 32 of each lane of (P + 2**32 - M) is
        # set where P >= M (no lane borrows from another).
        values, guard = lanes.values, lanes.guard
        minimum = self._minimum
        above = guard - minimum
        octets = iter(mixed.tobytes())
        for x0, x1, x2, x3 in zip(octets, octets, octets, octets):
            permuted = (t0[x0] + t1[x1] + t2[x2] + t3[x3]) & values
            kept = (permuted + above) & guard
            if kept != guard:  # some lane lowers: keep the old value where bit 32 is set
                keep = kept - (kept >> 32)
                minimum = permuted ^ ((permuted ^ minimum) & keep)
                above = guard - minimum
        self._minimum = minimum

    def _absorb_wide(self, mixed: list[int]) -> None:
        """:meth:`_absorb` for the affine schemes in 128-bit lanes: one product a feature."""
        lanes = self._lanes
        a, b, values, guard = lanes.a, lanes.b, lanes.values, lanes.guard
        bits = lanes.value_bits
        minimum = self._minimum
        above = guard - minimum
        for h in mixed:
            permuted = (a * h + b) & values
            kept = (permuted + above) & guard
            if kept != guard:
                keep = kept - (kept >> bits)
                minimum = permuted ^ ((permuted ^ minimum) & keep)
                above = guard - minimum
        self._minimum = minimum

    def update_hashes(self, hashes: Iterable[int]) -> None:
        """Add features already hashed (ints of the scheme's width), skipping ``hashfunc``.

        :raises ValueError: for a value that is not such an int (nothing is added).
        """
        rule = f"a hash must be an int from 0 to 2**{self._lanes.value_bits} - 1"
        self._absorb_all(self._in_range(list(batch), rule) for batch in batches(hashes, _BATCH))

    def clear(self) -> None:
        """Forget every feature."""
        self._minimum = self._lanes.empty

    # -- combining -----------------------------------------------------------------------

    def _check_compatible(self, other: object, what: str) -> MinHash:
        if not isinstance(other, MinHash):
            raise SamecodeTypeError(f"cannot {what} a MinHash with {describe(other)}")
        for name, mine, theirs in (
            ("permutation schemes", self.scheme, other.scheme),
            ("seeds", self.seed, other.seed),
            ("numbers of permutation functions", len(self), len(other)),
        ):
            if mine != theirs:
                raise SamecodeValueError(
                    f"cannot {what} MinHash with different {name}: {mine} and {theirs}"
                )
        return other

    def jaccard(self, other: MinHash) -> float:
        """The estimated Jaccard index: the share of permutations with equal values.

        Its standard error is ``sqrt(J * (1 - J) / num_perm)``.

        :raises ValueError: for a MinHash of another scheme, seed or size.
        """
        other = self._check_compatible(other, "compare")
        same = sum(map(eq, self._lanes.unpack(self._minimum), other._lanes.unpack(other._minimum)))
        return float(same) / float(len(self))

    def count(self) -> float:
        """The estimated number of distinct features: ``k / sum(v_i / max) - 1``, the sum
        taken as numpy takes it (pairwise), so that the value is datasketch's."""
        largest = float((1 << self._lanes.value_bits) - 1)
        scaled = [v / largest for v in self._lanes.unpack(self._minimum)]
        return float(len(self)) / _pairwise_sum(scaled) - 1.0

    def merge(self, other: MinHash) -> None:
        """Make this the MinHash of the union of both sets.

        :raises ValueError: for a MinHash of another scheme, seed or size.
        """
        other = self._check_compatible(other, "merge")
        self._minimum = self._lanes.lower(self._minimum, other._minimum)

    @classmethod
    def union(cls, *mhs: MinHash) -> MinHash:
        """A new MinHash of the union of two or more.

        :raises ValueError: for fewer than two, or of different schemes, seeds or sizes.
        """
        if len(mhs) < 2:
            raise SamecodeValueError("union needs at least 2 MinHash")
        result = mhs[0].copy()
        for other in mhs[1:]:
            result.merge(other)
        return result

    def copy(self) -> MinHash:
        """An independent copy."""
        clone = object.__new__(type(self))
        for name in MinHash.__slots__:
            setattr(clone, name, getattr(self, name))
        return clone

    @classmethod
    def bulk(cls, b: Iterable[Iterable[bytes]], **minhash_kwargs: Any) -> list[MinHash]:
        """A MinHash of each list of features."""
        return list(cls.generator(b, **minhash_kwargs))

    @classmethod
    def generator(cls, b: Iterable[Iterable[bytes]], **minhash_kwargs: Any) -> Iterator[MinHash]:
        """MinHashes of each list of features, one at a time."""
        template = cls(**minhash_kwargs)
        for features in b:
            minhash = template.copy()
            minhash.update_batch(features)
            yield minhash

    # -- pickling ----------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {
            "version": _STATE_VERSION,
            "scheme": self.scheme,
            "seed": self.seed,
            "hashvalues": self.hashvalues.tolist(),
            "permutations": [list(self.permutations[0]), list(self.permutations[1])],
            "hashfunc": self._hashfunc,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = check_state(state, type(self), _STATE_VERSION)
        # MinHash's own constructor, whatever the class: a subclass's may take other
        # arguments (LeanMinHash's does), and the state is a MinHash's.
        MinHash.__init__(
            self,
            seed=state["seed"],
            hashfunc=state["hashfunc"],
            hashvalues=state["hashvalues"],
            permutations=tuple(state["permutations"]),
            scheme=state["scheme"],
        )


def _values_of(hashvalues: Iterable[int], scheme: str) -> list[int]:
    if isinstance(hashvalues, (str, bytes)):
        raise SamecodeTypeError(f"hashvalues must be ints; got {describe(hashvalues)}")
    values = [int(v) for v in hashvalues]
    top = _M64 if scheme == "affine64" else _M32
    for value in values:
        if not 0 <= value <= top:
            raise SamecodeValueError(f"hash values out of range for scheme {scheme!r}: {value}")
    if not values:
        raise SamecodeValueError("hashvalues must not be empty")
    return values


def _permutations_of(
    permutations: tuple[Iterable[int], Iterable[int]], scheme: str, num_perm: int
) -> tuple[list[int], list[int]]:
    try:
        first, second = permutations
    except (TypeError, ValueError):
        raise SamecodeTypeError(
            f"permutations must be a pair (a, b); got {describe(permutations)}"
        ) from None
    a, b = [int(v) for v in first], [int(v) for v in second]
    if len(a) != num_perm or len(b) != num_perm:
        raise SamecodeValueError("numbers of hash values and permutations mismatch")
    top = MERSENNE if scheme == "legacy" else (_M32 if scheme == "affine32" else _M64)
    if any(not 0 <= v <= top for v in (*a, *b)):
        raise SamecodeValueError(f"permutation parameters out of range for scheme {scheme!r}")
    if scheme != "legacy" and any(v % 2 == 0 for v in a):
        raise SamecodeValueError(
            f"all `a` permutation parameters must be odd for scheme {scheme!r}"
        )
    return a, b


def _pairwise_sum(values: Sequence[float]) -> float:
    """numpy's pairwise summation of float64 values (the order of its additions)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            total += values[i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values[:half]) + _pairwise_sum(values[half:])


class LeanMinHash(MinHash):
    """A MinHash frozen for storage: no updates, and datasketch's byte format.

    :param minhash: the MinHash to freeze, or
    :param seed: with ``hashvalues`` and ``scheme``, the signature to freeze.
    :raises ValueError: if neither is given, or the scheme conflicts with the MinHash's.

    The byte form is datasketch's: for ``"legacy"``, the seed (8 bytes), the number of
    values (4) and the values (4 bytes each); for the affine schemes the *negated* number
    of values, then a scheme code byte (1 for ``"affine32"``, 2 for ``"affine64"``), then
    the values (4 or 8 bytes each), with ``struct``'s alignment for the byte order given.

    It pickles, copies (:func:`copy.copy`, :func:`copy.deepcopy`, :meth:`copy`) and
    crosses process boundaries as a LeanMinHash, equal to the original and with the same
    byte form.

    >>> lean = LeanMinHash(MinHash(num_perm=4))
    >>> buffer = bytearray(lean.bytesize())
    >>> lean.serialize(buffer)
    >>> LeanMinHash.deserialize(buffer) == lean
    True
    >>> import pickle
    >>> pickle.loads(pickle.dumps(lean)) == lean
    True
    """

    __slots__ = ()

    def __init__(
        self,
        minhash: MinHash | None = None,
        seed: int | None = None,
        hashvalues: Iterable[int] | None = None,
        scheme: str | None = None,
    ) -> None:
        if minhash is not None:
            if scheme is not None and scheme != minhash.scheme:
                raise SamecodeValueError(
                    f"scheme {scheme!r} conflicts with the MinHash's {minhash.scheme!r}"
                )
            super().__init__(
                seed=minhash.seed, hashvalues=minhash.hashvalues, scheme=minhash.scheme
            )
        elif hashvalues is not None and seed is not None:
            if scheme is None:
                raise SamecodeValueError(
                    "scheme must be given with hashvalues ('legacy' for datasketch before 2.0.0)"
                )
            super().__init__(seed=seed, hashvalues=hashvalues, scheme=scheme)
        else:
            raise SamecodeValueError("give a minhash, or seed, hashvalues and scheme")

    def update(self, b: bytes) -> None:
        """A LeanMinHash cannot be updated.

        :raises TypeError: always.
        """
        raise SamecodeTypeError("Cannot update a LeanMinHash")

    def update_batch(self, b: Iterable[bytes]) -> None:
        """A LeanMinHash cannot be updated.

        :raises TypeError: always.
        """
        raise SamecodeTypeError("Cannot update a LeanMinHash")

    def _format(self, byteorder: str) -> str:
        if byteorder not in ("@", "=", "<", ">", "!"):
            raise SamecodeValueError(f"byteorder must be one of @ = < > !; got {byteorder!r}")
        if self.scheme == "legacy":
            return f"{byteorder}qi{len(self)}I"
        return f"{byteorder}qiB{len(self)}{_VALUE_FORMATS[self.scheme]}"

    def bytesize(self, byteorder: str = "@") -> int:
        """The size of the byte form."""
        return struct.calcsize(self._format(byteorder))

    def serialize(self, buf: bytearray | memoryview, byteorder: str = "@") -> None:
        """Write the byte form into ``buf`` (at its start).

        :raises ValueError: if ``buf`` is too small.
        """
        fmt = self._format(byteorder)
        if len(buf) < struct.calcsize(fmt):
            raise SamecodeValueError(
                "The buffer does not have enough space for holding this MinHash."
            )
        values = self.hashvalues
        if self.scheme == "legacy":
            struct.pack_into(fmt, buf, 0, self.seed, len(self), *values)
        else:
            struct.pack_into(
                fmt, buf, 0, self.seed, -len(self), _SCHEME_CODES[self.scheme], *values
            )

    @classmethod
    def deserialize(cls, buf: bytes | bytearray | memoryview, byteorder: str = "@") -> LeanMinHash:
        """Read a byte form (datasketch's, any version).

        :raises ValueError: for bytes that are not such a form.
        """
        try:
            seed, count = struct.unpack_from(f"{byteorder}qi", buf, 0)
            if count >= 0:
                scheme = "legacy"
                offset = struct.calcsize(f"{byteorder}qi")
                values = struct.unpack_from(f"{byteorder}{count}I", buf, offset)
            else:
                count = -count
                (code,) = struct.unpack_from(f"{byteorder}qiB", buf, 0)[2:]
                scheme = _SCHEME_OF_CODE.get(code, "")
                if not scheme:
                    raise SamecodeValueError(f"unknown scheme code {code}")
                fmt = f"{byteorder}qiB{count}{_VALUE_FORMATS[scheme]}"
                values = struct.unpack_from(fmt, buf, 0)[3:]
        except struct.error as error:
            raise SamecodeValueError(f"not a LeanMinHash byte form: {error}") from None
        return cls(seed=seed, hashvalues=values, scheme=scheme)
