"""Charikar's simhash, with weights and of any supported width, and simhash-py's functions.

A simhash turns a weighted set of features into ``size_in_bits`` bits. Each feature is
hashed; every bit position keeps a running total, to which a feature adds its weight
where its hash has a ``1`` and subtracts it where it has a ``0``; the simhash has a ``1``
where the total ends up positive (Charikar 2002). Two sets that share most of their weight
get simhashes that differ in few bits: the expected fraction of differing bits is the
angle between the two weight vectors divided by pi.

:class:`SimHash` is the fingerprint object (the same protocol as the halo hashes, plus an
integer :attr:`~SimHash.value`). The functions :func:`compute`, :func:`num_differing_bits`,
:func:`shingle` and :func:`unsigned_hash` give exactly the results of simhash-py's
functions of the same names, for code written against that package.

>>> a = SimHash("the cat sat on the mat".split())
>>> b = SimHash("the cat sat on a mat".split())
>>> c = SimHash("completely different words here now".split())
>>> a.distance(b) < a.distance(c)
True
>>> a.value == compute(unsigned_hash(t.encode()) for t in "the cat sat on the mat".split())
True
"""

from __future__ import annotations

import hashlib
import math
import sys
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress, islice
from operator import methodcaller
from typing import Any

from bitarray import bitarray

from samecode._columns import (
    SIZES_IN_BITS,
    add_planes,
    column_planes,
    feature_hasher,
    plane_counts,
    planes_above,
    scale_planes,
)
from samecode._validation import batches, check_int, check_state, describe, token_bytes
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fingerprints.fingerprint import Fingerprint
from samecode.text.tokens import words

__all__ = [
    "SIZES_IN_BITS",
    "HashRangeError",
    "SimHash",
    "compute",
    "find_all",
    "num_differing_bits",
    "shingle",
    "unsigned_hash",
]

_STATE_VERSION = 2
_BATCH = 1 << 14
# Token -> truncated digest, per size. Text repeats its tokens (Zipf), so most lookups
# hit. When a batch would take the cache past this many entries, a new cache replaces it,
# holding the batch's tokens only: memory stays bounded, and a cache in use is never
# emptied under a reader (a cache only ever saves hash calls; it never changes an answer).
_CACHE_LIMIT = 1 << 16
_CACHES: dict[int, dict[str | bytes, bytes]] = {size: {} for size in SIZES_IN_BITS}
_TOKEN_TYPES = frozenset({str, bytes})
_DIGEST = methodcaller("digest")
_U64 = 1 << 64


class HashRangeError(SamecodeValueError, OverflowError):
    """A hash given to simhash-py's functions does not fit in an unsigned 64-bit int.

    It is a :class:`ValueError`, as every bad value here is, and an
    :class:`OverflowError`, which is what simhash-py raises there, so code written for
    either catches it.

    >>> issubclass(HashRangeError, ValueError), issubclass(HashRangeError, OverflowError)
    (True, True)
    """


def _token_error(token: object) -> TypeError:
    return SamecodeTypeError(
        "a feature must be a token (str or bytes-like) or a (token, weight) pair; "
        f"got {describe(token)}"
    )


def _check_weight(weight: object) -> int | float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise SamecodeTypeError(f"a weight must be an int or a float; got {describe(weight)}")
    if isinstance(weight, float) and not math.isfinite(weight):
        raise SamecodeValueError(f"a weight must be finite; got {weight!r}")
    return weight


class SimHash(Fingerprint):
    """Charikar's simhash of weighted features, 32 to 512 bits wide.

    Exactly: each token is hashed with the feature hash of the width (a ``str`` token
    counts as its UTF-8 bytes) and the first ``size_in_bits`` bits of the digest are its
    bits, most significant first. The hash is MD5 for 32, 64 and 128 bits (truncated to
    4, 8 or 16 bytes), SHA-1 for 160, SHA-256, SHA-384 and SHA-512 for 256, 384 and 512:
    the same table as :class:`~samecode.halohash.BitAverageHaloHash`. For every bit
    position ``i``, ``V[i]`` is the sum over features of ``+weight`` where the token's
    hash has a ``1`` and ``-weight`` where it has a ``0``; bit ``i`` of the simhash is
    ``1`` exactly when ``V[i] > 0`` (so a tie, and no features at all, give ``0``).

    At 64 bits the feature hash is simhash-py's :func:`unsigned_hash`, so
    ``SimHash(tokens).value == compute(unsigned_hash(t) for t in tokens)``.

    Features may be given as tokens (weight 1 each, duplicates counting every time),
    ``(token, weight)`` pairs, or a mapping of token to weight. Weights are ints or
    finite floats; a negative weight pushes away from the token's bits and a zero weight
    changes nothing. Every total is exact, floats included (a float is a binary fraction,
    and the totals are kept as integers over a common power of two), so the order of the
    features never matters and no total overflows.

    :param features: optional first input, as for :meth:`update`.
    :param size_in_bits: one of :data:`SIZES_IN_BITS`; 64 by default.
    :raises TypeError: if ``size_in_bits`` is not an int, or a feature or weight has the
        wrong type.
    :raises ValueError: if ``size_in_bits`` is not supported, or a weight is not finite.

    Runtime complexity: for tokens, one hash call per *distinct* token (a bounded cache
    remembers recent tokens) and ``O(n * size_in_bits / 64)`` word operations in C;
    ``(token, weight)`` pairs add a few Python steps per pair, and float weights
    ``O(n * size_in_bits)`` integer additions in C. Memory is ``O(size_in_bits * log(total
    weight))``.

    >>> h = SimHash(["a", "b", "c"], size_in_bits=32)
    >>> h.hexdigest(), h.value
    (b'0acb5df8', 181100024)
    >>> SimHash({"a": 2, "b": 1, "c": 1}, 32) == SimHash(["a", "a", "b", "c"], 32)
    True
    >>> SimHash([("a", 0.5), ("b", 2.5)], 32).vector[:3]
    [2.0, -3.0, -3.0]
    """

    __slots__ = ("_exact", "_hasher", "_planes", "_stride", "_total")

    SIZES = SIZES_IN_BITS

    def __init__(self, features: Any = None, size_in_bits: int = 64) -> None:
        self._hasher, self._stride = feature_hasher(size_in_bits)
        self._size = size_in_bits
        self._count = 0
        self._digest = None
        self._planes: list[int] | None = []
        self._total = 0
        # The float weights' totals: (e, [V_i * 2**e]) as exact ints, or None.
        self._exact: tuple[int, list[int]] | None = None
        self.update(features)

    @classmethod
    def from_text(
        cls, text: str | bytes, size_in_bits: int = 64, *, ngram: int = 3, errors: str = "replace"
    ) -> SimHash:
        """Return the simhash of a text's word n-grams, each of weight 1.

        The text is cut into words by :func:`samecode.text.tokens.words` (case folded, each
        CJK ideograph a word); each run of ``ngram`` consecutive words, joined by single
        spaces, is a feature. A text of fewer words than ``ngram`` has one feature, all
        its words; a text with no words gives the simhash of nothing (all zeros).

        :param text: ``str``, or bytes decoded as UTF-8 with the ``errors`` policy.
        :param ngram: words per feature, ``>= 1``.
        :raises TypeError: if ``text`` is not text or bytes, or ``ngram`` is not an int.
        :raises ValueError: if ``ngram`` < 1 or the size is not supported.

        >>> a = SimHash.from_text("The quick brown fox jumps over the lazy dog")
        >>> b = SimHash.from_text("the quick brown fox jumped over the lazy dog!")
        >>> a.distance(b) < 32
        True
        >>> a == SimHash(["the quick brown", "quick brown fox", "brown fox jumps",
        ...     "fox jumps over", "jumps over the", "over the lazy", "the lazy dog"])
        True
        """
        check_int(ngram, "ngram")
        if ngram < 1:
            raise SamecodeValueError(f"ngram must be >= 1; got {ngram!r}")
        tokens = words(text, errors=errors)
        if ngram == 1 or not tokens:
            features = tokens
        elif len(tokens) < ngram:
            features = [" ".join(tokens)]
        else:
            features = list(map(" ".join, zip(*(tokens[i:] for i in range(ngram)))))
        return cls(features, size_in_bits)

    # -- reading -----------------------------------------------------------------------

    @property
    def value(self) -> int:
        """The simhash as an unsigned integer (the same as :meth:`intdigest`).

        >>> SimHash(["a", "b", "c"], size_in_bits=32).value == 0x0ACB5DF8
        True
        """
        return self.intdigest()

    def __int__(self) -> int:
        return self.intdigest()

    @property
    def vector(self) -> list[int] | list[float] | None:
        """Charikar's vector ``V``, first bit first (``None`` if rebuilt from its bits).

        Ints when every weight was an int; with float weights, each exact total rounded
        to the nearest float (``inf`` past the largest float).

        >>> h = SimHash(["a", "b", "c"], size_in_bits=32)
        >>> [1 if v > 0 else 0 for v in h.vector] == h.hash().tolist()
        True
        """
        ints = self._int_vector()
        if ints is None:
            return None
        if self._exact is None:
            return ints
        exponent, scaled = self._exact
        return [_as_float((i << exponent) + v, exponent) for i, v in zip(ints, scaled)]

    def _int_vector(self) -> list[int] | None:
        planes = self._planes
        if planes is None:
            return None
        counts = plane_counts(planes, 8 * self._stride)[: self._size]
        return [2 * c - self._total for c in counts]

    def _compute_digest(self) -> bytes:
        planes = self._planes
        if planes is None:  # pragma: no cover - a frozen hash always has its digest
            raise self._frozen_error()
        if self._exact is None:
            width = 8 * self._stride
            value = planes_above(planes, self._total // 2, width) >> (width - self._size)
        else:
            exponent, scaled = self._exact
            ints = self._int_vector() or []
            signs = ["1" if (i << exponent) + v > 0 else "0" for i, v in zip(ints, scaled)]
            value = int("".join(signs), 2)
        return value.to_bytes(self._size // 8, "big")

    # -- feeding -----------------------------------------------------------------------

    def update(self, features: Any) -> None:
        """Add features: an iterable of tokens or ``(token, weight)`` pairs, or a mapping.

        A token is ``str`` (hashed as UTF-8) or bytes-like. ``None`` changes nothing. A
        lone ``str`` or ``bytes`` is refused rather than read as a sequence of
        characters: tokenize text first (see :mod:`samecode.text.tokens`). If anything is
        rejected, the hash is left as it was before the call.

        :raises TypeError: for a lone string, a feature or weight of the wrong type.
        :raises ValueError: for a weight that is not finite, or if this hash was rebuilt
            from its bits.

        >>> h = SimHash(size_in_bits=64)
        >>> h.update(["to", "be"])
        >>> h.update({"or": 1, "not": 1})
        >>> h.update([("to", 1), ("be", 1)])
        >>> h == SimHash("to be or not to be".split())
        True
        >>> h.update("text")
        Traceback (most recent call last):
        ...
        samecode.errors.SamecodeTypeError: features must be an iterable of tokens, (token, ...
        """
        if features is None:
            return
        if isinstance(features, (str, bytes, bytearray, memoryview)):
            raise SamecodeTypeError(
                "features must be an iterable of tokens, (token, weight) pairs or a mapping; "
                f"got a lone {type(features).__name__} (tokenize text first, e.g. with "
                "samecode.text.tokens.words)"
            )
        if isinstance(features, Mapping):
            features = features.items()
        elif not isinstance(features, Iterable):
            raise SamecodeTypeError(
                "features must be an iterable of tokens, (token, weight) pairs or a mapping; "
                f"got {describe(features)}"
            )
        if self._planes is None:
            raise self._frozen_error()
        planes: list[int] = []
        total = 0
        count = 0
        exact: tuple[int, list[int]] | None = None
        for batch in batches(features, _BATCH):
            count += len(batch)
            if _TOKEN_TYPES.issuperset(map(type, batch)):
                planes = add_planes(planes, column_planes(self._token_blob(batch), self._stride))
                total += len(batch)
                continue
            by_weight, floats = self._weighed(batch)
            for weight, digests in by_weight.items():
                counted = column_planes(b"".join(digests), self._stride)
                planes = add_planes(planes, scale_planes(counted, weight))
                total += weight * len(digests)
            if floats:
                exact = _add_exact(exact, self._float_totals(floats))
        if not count:
            return
        self._planes = add_planes(self._planes, planes)
        self._total += total
        self._exact = _add_exact(self._exact, exact)
        self._count += count
        self._digest = None

    def _token_blob(self, tokens: Sequence[Any]) -> bytes:
        """Return the digests of str/bytes tokens, end to end, via the cache."""
        cache = _CACHES[self._size]
        missing = set(tokens).difference(cache)
        if 2 * len(missing) > len(tokens):  # mostly new tokens: hashing them all is cheaper
            return b"".join(map(_DIGEST, map(self._hasher, _encoded(tokens))))
        if missing:
            if len(cache) + len(missing) > _CACHE_LIMIT:
                # A new cache with this batch's known tokens: the old one stays whole for
                # whoever still reads it.
                cache = {token: cache[token] for token in set(tokens).difference(missing)}
                _CACHES[self._size] = cache
            fresh = list(missing)
            cache.update(zip(fresh, map(_DIGEST, map(self._hasher, _encoded(fresh)))))
        return b"".join(map(cache.__getitem__, tokens))

    def _token_digest(self, token: object) -> bytes:
        if isinstance(token, (str, bytes, bytearray, memoryview)):
            return self._hasher(token_bytes(token, text=True)).digest()
        raise _token_error(token)

    def _weighed(
        self, batch: Sequence[Any]
    ) -> tuple[dict[int, list[bytes]], list[tuple[bytes, float]]]:
        """Split a batch into digests grouped by integer weight, and float-weighted ones."""
        by_weight: dict[int, list[bytes]] = {}
        floats: list[tuple[bytes, float]] = []
        flip = (1 << (8 * self._stride)) - 1
        for item in batch:
            if isinstance(item, (tuple, list)):
                if len(item) != 2:
                    raise _token_error(item)
                token, weight = item
                weight = _check_weight(weight)
            else:
                token, weight = item, 1
            digest = self._token_digest(token)
            if isinstance(weight, float):
                floats.append((digest, weight))
            elif weight > 0:
                by_weight.setdefault(weight, []).append(digest)
            elif weight < 0:
                flipped = int.from_bytes(digest, "big") ^ flip
                by_weight.setdefault(-weight, []).append(flipped.to_bytes(self._stride, "big"))
        return by_weight, floats

    def _float_totals(self, floats: list[tuple[bytes, float]]) -> tuple[int, list[int]]:
        """The float-weighted features' ``+-weight`` totals, exactly: ``(e, [V_i * 2**e])``."""
        ratios = [weight.as_integer_ratio() for _, weight in floats]
        exponent = max(den.bit_length() - 1 for _, den in ratios)
        scaled = [num << (exponent - den.bit_length() + 1) for num, den in ratios]
        bits = bitarray(endian="big")
        bits.frombytes(b"".join(digest for digest, _ in floats))
        whole = sum(scaled)
        width = 8 * self._stride
        return exponent, [
            2 * sum(compress(scaled, bits[i::width])) - whole for i in range(self._size)
        ]

    # -- the Fingerprint protocol ------------------------------------------------------

    def _is_frozen(self) -> bool:
        return self._planes is None

    def _freeze(self, digest: bytes) -> None:
        self._planes = None
        self._exact = None
        self._digest = digest

    def _merge(self, parts: list[Any]) -> None:
        for part in parts:
            self._planes = add_planes(self._planes or [], part._planes)
            self._total += part._total
            self._exact = _add_exact(self._exact, part._exact)
            self._count += part._count

    def __getstate__(self) -> dict[str, Any]:
        frozen = self._planes is None
        exact = self._exact
        return {
            "version": _STATE_VERSION,
            "size_in_bits": self._size,
            "count": self._count,
            "planes": None if frozen else list(self._planes or ()),
            "total": self._total,
            "exact": None if exact is None else (exact[0], list(exact[1])),
            "digest": self._digest if frozen else None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        if isinstance(state, dict) and state.get("version") == 1:
            state = _state_from_version_1(state)
        state = check_state(state, type(self), _STATE_VERSION)
        self.__init__(size_in_bits=state["size_in_bits"])  # type: ignore[misc]
        self._count = state["count"]
        if state["planes"] is None:
            self._freeze(bytes(state["digest"]))
            return
        self._planes = list(state["planes"])
        self._total = state["total"]
        exact = state["exact"]
        if exact is not None:
            exponent, scaled = exact
            if len(scaled) != self._size:
                raise SamecodeValueError(
                    f"saved state has {len(scaled)} totals for {self._size} bits"
                )
            self._exact = (int(exponent), [int(v) for v in scaled])


def _state_from_version_1(state: dict[str, Any]) -> dict[str, Any]:
    """A pickled state of samecode 0.1 (float totals as floats) in today's form."""
    new = {k: v for k, v in state.items() if k != "vector"}
    new["version"] = 2
    vector = state.get("vector")
    new["exact"] = None if vector is None else _float_totals_exactly(list(vector))
    return new


def _float_totals_exactly(values: list[float]) -> tuple[int, list[int]]:
    ratios = [float(v).as_integer_ratio() for v in values]
    exponent = max((den.bit_length() - 1 for _, den in ratios), default=0)
    return exponent, [num << (exponent - den.bit_length() + 1) for num, den in ratios]


def _add_exact(
    first: tuple[int, list[int]] | None, second: tuple[int, list[int]] | None
) -> tuple[int, list[int]] | None:
    """The sum of two exact float totals ``(e, [V_i * 2**e])``, either of which may be None."""
    if first is None or second is None:
        return second if first is None else first
    (e1, v1), (e2, v2) = first, second
    e = max(e1, e2)
    return e, [(a << (e - e1)) + (b << (e - e2)) for a, b in zip(v1, v2)]


def _as_float(scaled: int, exponent: int) -> float:
    """``scaled / 2**exponent`` rounded to the nearest float (``+-inf`` past the largest)."""
    try:
        return scaled / (1 << exponent)
    except OverflowError:
        return math.inf if scaled > 0 else -math.inf


def _encoded(tokens: Sequence[Any]) -> Sequence[Any]:
    """Return str and bytes tokens as bytes, text as UTF-8 (lone surrogates kept as is)."""
    kinds = set(map(type, tokens))
    if str not in kinds:
        return tokens
    if bytes not in kinds:
        try:
            return list(map(str.encode, tokens))
        except UnicodeEncodeError:
            pass
    return [t.encode("utf-8", "surrogatepass") if type(t) is str else t for t in tokens]


# -- simhash-py's functions -----------------------------------------------------------


def _check_u64(value: object, name: str) -> int:
    value = check_int(value, name)
    if not 0 <= value < _U64:
        raise HashRangeError(
            f"{name} must be an unsigned 64-bit int (0 <= {name} < 2**64); got {value!r}"
        )
    return value


def compute(hashes: Iterable[int]) -> int:
    """Return the 64-bit simhash of 64-bit feature hashes, as simhash-py's ``compute``.

    Bit ``i`` of the result is ``1`` exactly when more of the hashes have bit ``i`` set
    than clear (a tie, and no hashes, give ``0``); every hash has weight 1.

    :param hashes: an iterable of ints, each ``0 <= h < 2**64`` (not a ``bytes`` object,
        whose items would be small ints, and no bools).
    :raises TypeError: if ``hashes`` is not iterable or holds something that is not an
        int.
    :raises HashRangeError: (a ``ValueError`` and an ``OverflowError``) if a hash is
        negative or does not fit in 64 bits.

    Runtime complexity: ``O(n)`` work in C (the hashes are packed into an array and
    their bits counted by bit-sliced addition); no per-hash Python step.

    >>> hex(compute([0xABCD, 0xBCDE, 0xCDEF]))
    '0xadcf'
    >>> compute([])
    0
    """
    packed = _packed_hashes(hashes)
    if sys.byteorder == "little":
        packed.byteswap()
    return planes_above(column_planes(packed.tobytes(), 8), len(packed) // 2, 64)


def find_all(
    hashes: Iterable[int], number_of_blocks: int, different_bits: int
) -> set[tuple[int, int]]:
    """Return every pair of distinct hashes that differ in at most ``different_bits`` bits.

    The result is simhash-py's: a set of ``(smaller, larger)`` tuples of hash values. Equal
    hashes count once, so a value never pairs with itself (to pair *keys* whose
    fingerprints are equal, use :meth:`samecode.hamming.index.HammingIndex.find_all`).

    ``number_of_blocks`` is checked by simhash-py's rules (``different_bits <
    number_of_blocks <= 64``), but the set of pairs does not depend on it, so the tables
    are chosen by :func:`samecode.hamming.plan.choose_plan` for the number of hashes: with
    ``different_bits = 3`` and a million hashes, 8 tables keyed on 3 of 8 bytes, where
    simhash-py's ``number_of_blocks = 5`` makes 10. Repeated hashes are dropped first, and
    the tables adapt to the bits the hashes really have (see :mod:`samecode.hamming.index`), so
    degenerate inputs (one hash repeated, hashes whose high bits never change) take
    time in proportion to their size and their answer.

    :param hashes: an iterable of ints, each ``0 <= h < 2**64``.
    :param number_of_blocks: simhash-py's block count; it must exceed ``different_bits``.
    :param different_bits: the largest number of differing bits in a pair.
    :raises TypeError: if ``hashes`` is not an iterable of ints, or a count is not an int.
    :raises HashRangeError: (a ``ValueError`` and an ``OverflowError``) if a hash does not
        fit in 64 bits.
    :raises ValueError: if ``number_of_blocks`` is not between ``different_bits + 1`` and
        64, or ``different_bits`` is negative.

    Runtime complexity: for random hashes, ``O(T * n)`` work in C for ``T`` tables, plus a
    Python step for each chance pair sharing a table key (about ``T * n**2 / 2**(k+1)`` of
    them for ``k``-bit keys) and for each pair found.

    >>> sorted(find_all([0b1011, 0b1001, 0b0110, 0b1011], 4, 1))
    [(9, 11)]
    >>> find_all([1, 2], 3, 3)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: number_of_blocks (3) must be greater than different_bits (3)
    """
    from samecode.hamming.allpairs import near_pairs

    blocks = check_int(number_of_blocks, "number_of_blocks")
    bits = check_int(different_bits, "different_bits")
    if bits < 0:
        raise SamecodeValueError(f"different_bits must be >= 0; got {bits}")
    if blocks > 64:
        raise SamecodeValueError(f"number_of_blocks must not exceed 64; got {blocks}")
    if blocks <= bits:
        raise SamecodeValueError(
            f"number_of_blocks ({blocks}) must be greater than different_bits ({bits})"
        )
    packed = _packed_hashes(hashes)
    return {
        (a, b) if a < b else (b, a)
        for a, b in ((packed[i], packed[j]) for i, j in near_pairs(packed, 64, bits))
    }


def num_differing_bits(a: int, b: int) -> int:
    """Return how many bits differ between two 64-bit ints (simhash-py's function).

    :raises TypeError: if either is not an int.
    :raises HashRangeError: (a ``ValueError`` and an ``OverflowError``) if either is
        negative or does not fit in 64 bits.

    >>> num_differing_bits(0xDEADBEEF, 0xDEADBEAD)
    2
    """
    return (_check_u64(a, "a") ^ _check_u64(b, "b")).bit_count()


def shingle(tokens: Iterable[Any], window: int = 4) -> Iterator[list[Any]]:
    """Yield each run of ``window`` consecutive tokens, as a list (simhash-py's function).

    Fewer than ``window`` tokens yield nothing. The arguments are checked at the call;
    the shingles come lazily.

    :raises TypeError: if ``tokens`` is not iterable or ``window`` is not an int.
    :raises ValueError: if ``window`` < 1.

    >>> list(shingle("abcde", 3))
    [['a', 'b', 'c'], ['b', 'c', 'd'], ['c', 'd', 'e']]
    >>> list(shingle([1, 2], 3))
    []
    """
    check_int(window, "window")
    if window < 1:
        raise SamecodeValueError(f"window must be >= 1; got {window!r}")
    if not isinstance(tokens, Iterable):
        raise SamecodeTypeError(f"tokens must be iterable; got {describe(tokens)}")
    return _shingles(iter(tokens), window)


def _shingles(tokens: Iterator[Any], window: int) -> Iterator[list[Any]]:
    current: deque[Any] = deque(islice(tokens, window - 1), maxlen=window)
    for token in tokens:
        current.append(token)
        yield list(current)


def unsigned_hash(data: bytes | bytearray | memoryview) -> int:
    """Return the first 8 bytes of the MD5 of ``data`` as a big-endian unsigned int.

    This is simhash-py's ``unsigned_hash``: the usual way to turn a token into the 64-bit
    hash that :func:`compute` takes.

    :raises TypeError: if ``data`` is not bytes-like (encode text first).

    >>> hex(unsigned_hash(b"hello"))
    '0x5d41402abc4b2a76'
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        hint = " (encode text first, e.g. text.encode('utf-8'))" if isinstance(data, str) else ""
        raise SamecodeTypeError(f"data must be bytes-like{hint}; got {describe(data)}")
    return int.from_bytes(hashlib.md5(data).digest()[:8], "big")


def _packed_hashes(hashes: Iterable[int]) -> array[int]:
    """``hashes`` as an ``array("Q")``, each checked to be an unsigned 64-bit int."""
    if isinstance(hashes, (str, bytes, bytearray, memoryview)) or not isinstance(hashes, Iterable):
        raise SamecodeTypeError(f"hashes must be an iterable of ints; got {describe(hashes)}")
    values = hashes if isinstance(hashes, (list, tuple)) else list(hashes)
    if set(map(type, values)) <= {int}:
        try:
            return array("Q", values)
        except OverflowError:
            pass
    return array("Q", [_check_u64(value, "every hash") for value in values])
