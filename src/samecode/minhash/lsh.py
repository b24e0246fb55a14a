"""Locality-sensitive hashing of MinHash signatures: candidates by bands, answers exact.

:class:`MinHashLSH` cuts every signature into ``b`` bands of ``r`` values; two signatures
that agree on a whole band share a bucket and become candidates. The chance that a pair
of Jaccard ``s`` becomes a candidate is ``1 - (1 - s**r)**b``, an S-curve that rises
around ``(1/b)**(1/r)``. Given a threshold, ``b`` and ``r`` are chosen as datasketch
chooses them (:func:`~samecode.minhash.params.optimal_param`: the pair minimising the
weighted areas of false positives below the threshold and false negatives above it).

The names are datasketch's (``MinHashLSH(threshold=0.9, num_perm=128, weights=(0.5,
0.5), params=None)``, ``b``, ``r``, ``insert``, ``query``, ``remove``, ``in``), and more:
:meth:`MinHashLSH.query_ranked` gives ``(key, estimated Jaccard)`` best first, ``top_k``
the best few, :meth:`MinHashLSH.find_all` and :meth:`MinHashLSH.clusters` every pair and
group at once, and with the feature sets at hand (``verify=``) every estimate is replaced
by the exact Jaccard and pairs below the threshold are dropped.

The bands and rows are those datasketch 2.0.0 chooses (``_optimal_param(0.5, 64, 0.5,
0.5)`` there is ``(14, 4)``):

>>> from samecode.minhash.minhash import MinHash
>>> lsh = MinHashLSH(threshold=0.5, num_perm=64)
>>> lsh.b, lsh.r
(14, 4)
>>> words = [f"w{i}".encode() for i in range(100)]
>>> for key, features in [("a", words), ("b", words[:90] + [b"x"]), ("c", [b"other"])]:
...     m = MinHash(num_perm=64)
...     m.update_batch(features)
...     lsh.insert(key, m)
>>> sorted(lsh.query(m)), "a" in lsh
(['c'], True)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from itertools import combinations
from typing import Any, TypeVar

from samecode._groups import Links
from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.minhash._values import agreement, value_bytes
from samecode.minhash.minhash import MinHash
from samecode.minhash.oph import OnePermutationMinHash
from samecode.minhash.params import optimal_param
from samecode.similarity import set_jaccard

__all__ = [
    "MinHashLSH",
    "MinHashLSHDeletionSession",
    "MinHashLSHInsertionSession",
    "Signature",
]

_NONE = object()

#: The signatures an index takes (one scheme, seed and size at a time).
Signature = MinHash | OnePermutationMinHash


def _check_param(
    threshold: object, num_perm: object, weights: object
) -> tuple[float, int, tuple[float, float]]:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise SamecodeTypeError(f"threshold must be a number; got {describe(threshold)}")
    if not 0.0 <= threshold <= 1.0:
        raise SamecodeValueError(f"threshold must be in [0.0, 1.0]; got {threshold!r}")
    count = check_int(num_perm, "num_perm")
    if count < 2:
        raise SamecodeValueError(
            f"too few permutation functions: num_perm must be >= 2; got {count}"
        )
    try:
        pair: tuple[object, ...] = tuple(weights)  # type: ignore[arg-type]
        if len(pair) != 2:
            raise ValueError
    except (TypeError, ValueError):
        raise SamecodeTypeError(
            f"weights must be a pair of numbers; got {describe(weights)}"
        ) from None
    for weight in pair:
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise SamecodeTypeError(f"weights must be numbers; got {describe(weight)}")
        if not 0.0 <= weight <= 1.0:
            raise SamecodeValueError(f"weights must be in [0.0, 1.0]; got {weight!r}")
    low, high = float(pair[0]), float(pair[1])  # type: ignore[arg-type]
    if low + high != 1.0:
        raise SamecodeValueError(f"weights must sum to 1.0; got {low} + {high}")
    return float(threshold), count, (low, high)


class MinHashLSH:
    """An LSH index of MinHash signatures under keys.

    :param threshold: the Jaccard similarity the index is tuned for, in ``[0, 1]``.
    :param num_perm: the number of values of the signatures it takes.
    :param weights: the weights of false positives and false negatives in choosing ``b``
        and ``r`` (summing to 1).
    :param params: ``(b, r)`` to use instead, ``b * r <= num_perm``.
    :raises TypeError, ValueError: for parameters of the wrong type or out of range.

    Runtime complexity: :meth:`insert` and :meth:`remove` are ``O(b)`` (a key remembers its
    buckets: removing is no scan); :meth:`query` is ``O(b)`` plus the candidates.

    >>> lsh = MinHashLSH(threshold=0.9, num_perm=128)  # datasketch: (5, 25)
    >>> lsh.b, lsh.r
    (5, 25)
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: tuple[int, int] | None = None,
    ) -> None:
        self.threshold, self.h, weights = _check_param(threshold, num_perm, weights)
        if params is not None:
            try:
                b, r = params
            except (TypeError, ValueError):
                raise SamecodeTypeError(f"params must be (b, r); got {describe(params)}") from None
            check_int(b, "b")
            check_int(r, "r")
            if b < 2 or r < 1 or b * r > self.h:
                raise SamecodeValueError(
                    f"params (b, r) must have b >= 2, r >= 1 and b * r <= num_perm "
                    f"({self.h}); got {params}"
                )
        else:
            b, r = optimal_param(self.threshold, self.h, *weights)
            if b < 2:
                raise SamecodeValueError(
                    f"The number of bands are too small (b < 2): threshold {self.threshold} "
                    f"with num_perm {self.h} gives (b, r) = ({b}, {r}); use more "
                    "permutations, a lower threshold or explicit params"
                )
        self.b, self.r = b, r
        self.weights = weights
        self._buckets: list[dict[bytes, Any]] = [{} for _ in range(b)]
        self._keys: dict[Hashable, bytes] = {}  # key -> the signature's values as bytes
        self._scheme: tuple[str, int, int] | None = None
        self._query_buffer: list[list[bytes]] = []

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._keys
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"<MinHashLSH threshold={self.threshold} b={self.b} r={self.r} keys={len(self)}>"

    def is_empty(self) -> bool:
        """Whether no key is held."""
        return not self._keys

    def _bands(self, minhash: Signature) -> tuple[bytes, list[bytes]]:
        if not isinstance(minhash, (MinHash, OnePermutationMinHash)):
            raise SamecodeTypeError(
                f"expected a MinHash or OnePermutationMinHash; got {describe(minhash)}"
            )
        if len(minhash) != self.h:
            raise SamecodeValueError(
                f"expecting a MinHash of {self.h} permutations; got {len(minhash)}"
            )
        kind = (minhash.scheme, minhash.seed, len(minhash))
        if self._scheme is not None and kind != self._scheme:
            raise SamecodeValueError(
                f"this index holds MinHash of scheme {self._scheme[0]!r} and seed "
                f"{self._scheme[1]}; got scheme {kind[0]!r} and seed {kind[1]}"
            )
        raw = value_bytes(minhash)  # bands are dict keys
        return raw, self._split(raw)

    def _split(self, raw: bytes) -> list[bytes]:
        step = self.r * (len(raw) // self.h)
        return [raw[start : start + step] for start in range(0, self.b * step, step)]

    def insert(self, key: Hashable, minhash: Signature, check_duplication: bool = True) -> None:
        """Index ``minhash`` under ``key``.

        :param check_duplication: taken for datasketch's sake; the check costs nothing
            here (the keys are a dict), so a key held already is refused either way,
            where datasketch, told not to check, would index it twice.
        :raises ValueError: if ``key`` is held already, or the MinHash is of another size,
            scheme or seed than those held.
        :raises TypeError: for an unhashable key or something that is not a MinHash.
        """
        if not isinstance(check_duplication, bool):
            raise SamecodeTypeError(
                f"check_duplication must be a bool; got {describe(check_duplication)}"
            )
        try:
            held = key in self._keys
        except TypeError:
            raise SamecodeTypeError(f"a key must be hashable; got {describe(key)}") from None
        if held:
            raise SamecodeValueError(f"the key {key!r} is already in the index; remove it first")
        raw, bands = self._bands(minhash)
        self._scheme = (minhash.scheme, minhash.seed, len(minhash))
        self._place(key, raw, bands)

    def _place(self, key: Hashable, raw: bytes, bands: list[bytes]) -> None:
        # A bucket holds its one key itself, or a set of two or more (a set is never a
        # key: it is not hashable).
        for table, band in zip(self._buckets, bands):
            held = table.get(band, _NONE)
            if held is _NONE:
                table[band] = key
            elif type(held) is set:
                held.add(key)
            else:
                table[band] = {held, key}
        self._keys[key] = raw

    def insertion_session(self, buffer_size: int = 50000) -> MinHashLSHInsertionSession:
        """datasketch's context manager for many inserts: ``with lsh.insertion_session()
        as session: session.insert(key, minhash)``. An index in memory has nothing to
        buffer, so each insert is done at once (and checked at once).

        :raises TypeError, ValueError: for a ``buffer_size`` that is not an int >= 1.

        >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
        >>> with lsh.insertion_session() as session:
        ...     for key in ("a", "b"):
        ...         m = MinHash(num_perm=16)
        ...         m.update_batch([b"shared", key.encode()])
        ...         session.insert(key, m)
        >>> sorted(lsh.keys())
        ['a', 'b']
        """
        _check_buffer_size(buffer_size)
        return MinHashLSHInsertionSession(self)

    def deletion_session(self, buffer_size: int = 50000) -> MinHashLSHDeletionSession:
        """datasketch's context manager for many removals: ``with lsh.deletion_session()
        as session: session.remove(key)``, each done at once.

        :raises TypeError, ValueError: for a ``buffer_size`` that is not an int >= 1.

        >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
        >>> lsh.insert("a", MinHash(num_perm=16))
        >>> with lsh.deletion_session() as session:
        ...     session.remove("a")
        >>> lsh.is_empty()
        True
        """
        _check_buffer_size(buffer_size)
        return MinHashLSHDeletionSession(self)

    def merge(self, other: MinHashLSH, check_overlap: bool = False) -> None:
        """Make this index the union of both (``other`` is unchanged).

        :param check_overlap: taken for datasketch's sake; a key in both is refused
            either way (datasketch, told not to check, would hold it twice).
        :raises TypeError: for something that is not a :class:`MinHashLSH`.
        :raises ValueError: for an index of other bands, rows or signatures, or with a
            key this one holds; nothing is merged then.

        Runtime complexity: ``O(b)`` per key of ``other``.

        >>> first, second = (MinHashLSH(threshold=0.5, num_perm=16) for _ in range(2))
        >>> first.insert("a", MinHash(num_perm=16))
        >>> second.insert("b", MinHash(num_perm=16))
        >>> first.merge(second)
        >>> first.keys(), len(second)
        (['a', 'b'], 1)
        """
        if not isinstance(other, MinHashLSH):
            raise SamecodeTypeError(f"can merge only a MinHashLSH; got {describe(other)}")
        if not isinstance(check_overlap, bool):
            raise SamecodeTypeError(f"check_overlap must be a bool; got {describe(check_overlap)}")
        if (self.h, self.b, self.r) != (other.h, other.b, other.r):
            raise SamecodeValueError(
                f"cannot merge an index of num_perm {other.h}, b {other.b}, r {other.r} "
                f"into one of num_perm {self.h}, b {self.b}, r {self.r}"
            )
        mine, theirs = self._scheme, other._scheme
        if mine is not None and theirs is not None and mine != theirs:
            raise SamecodeValueError(
                f"cannot merge an index of MinHash of scheme {theirs[0]!r} and seed "
                f"{theirs[1]} into one of scheme {mine[0]!r} and seed {mine[1]}"
            )
        both = next((key for key in other._keys if key in self._keys), _NONE)
        if both is not _NONE:
            raise SamecodeValueError(f"the key {both!r} is in both indexes; nothing merged")
        if self._scheme is None:
            self._scheme = other._scheme
        for key, raw in other._keys.items():
            self._place(key, raw, self._split(raw))

    def remove(self, key: Hashable) -> None:
        """Forget ``key``, in ``O(b)``.

        :raises ValueError: if ``key`` is not held.
        """
        try:
            raw = self._keys.pop(key)
        except (KeyError, TypeError):
            raise SamecodeValueError(f"the key {key!r} is not in the index") from None
        for table, band in zip(self._buckets, self._split(raw)):
            held = table[band]
            if type(held) is set:
                held.discard(key)
                if len(held) == 1:
                    table[band] = held.pop()
            else:
                del table[band]
        if not self._keys:
            self._scheme = None

    def query(self, minhash: Signature) -> list[Hashable]:
        """The keys that share a band with ``minhash`` (candidates, in no fixed order).

        :raises TypeError, ValueError: for a signature of another kind, size, scheme or
            seed than the index holds.
        """
        return list(self._candidates(self._bands(minhash)[1]))

    def add_to_query_buffer(self, minhash: Signature) -> None:
        """Hold a query for :meth:`collect_query_buffer` (datasketch's names).

        :raises TypeError, ValueError: as :meth:`query`, at once.
        """
        self._query_buffer.append(self._bands(minhash)[1])

    def collect_query_buffer(self) -> list[Hashable]:
        """The keys every held query finds (the intersection of their :meth:`query`
        answers, as datasketch gives), and the buffer emptied; ``[]`` when none is held.

        >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
        >>> lsh.insert("a", MinHash(num_perm=16))
        >>> lsh.add_to_query_buffer(MinHash(num_perm=16))
        >>> lsh.collect_query_buffer(), lsh.collect_query_buffer()
        (['a'], [])
        """
        held, self._query_buffer = self._query_buffer, []
        if not held:
            return []
        found = self._candidates(held[0])
        for bands in held[1:]:
            found &= self._candidates(bands)
        return list(found)

    def _candidates(self, bands: list[bytes]) -> set[Hashable]:
        found: set[Hashable] = set()
        for table, band in zip(self._buckets, bands):
            held = table.get(band, _NONE)
            if held is _NONE:
                continue
            if type(held) is set:
                found |= held
            else:
                found.add(held)
        return found

    def query_ranked(
        self,
        minhash: Signature,
        *,
        top_k: int | None = None,
        verify: Callable[[Hashable], Iterable[Any]] | None = None,
        features: Iterable[Any] | None = None,
        threshold: float | None = None,
    ) -> list[tuple[Hashable, float]]:
        """``[(key, similarity), ...]``, best first (ties by key, when keys compare).

        Without ``verify`` the similarity is the signatures' estimate; with ``verify``
        (a function from a key to its feature set) and ``features`` (the query's), it is
        the exact Jaccard, and candidates below ``threshold`` are dropped.

        :param top_k: keep only the best ``top_k``.
        :param threshold: the least exact similarity kept (default: the index's).
        :raises ValueError: for ``verify`` without ``features``, or a bad ``top_k`` or
            ``threshold``.

        Runtime complexity: :meth:`query`, then ``O(|A| + |B|)`` per candidate verified.
        """
        least = self._least(threshold)
        if top_k is not None and check_int(top_k, "top_k") < 0:
            raise SamecodeValueError(f"top_k must be >= 0; got {top_k}")
        raw, bands = self._bands(minhash)
        candidates = self._candidates(bands)
        ranked: list[tuple[Hashable, float]] = []
        if verify is not None:
            if features is None:
                raise SamecodeValueError("verify needs the query's features")
            mine = frozenset(features)
            for key in candidates:
                similarity = set_jaccard(mine, frozenset(verify(key)))
                if similarity >= least:
                    ranked.append((key, similarity))
        else:
            ranked = [(key, self._estimate(self._keys[key], raw)) for key in candidates]
        try:
            ranked.sort(key=lambda item: (-item[1], item[0]))
        except TypeError:
            ranked.sort(key=lambda item: -item[1])
        return ranked if top_k is None else ranked[:top_k]

    def _least(self, threshold: float | None) -> float:
        if threshold is None:
            return self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise SamecodeTypeError(f"threshold must be a number; got {describe(threshold)}")
        if not 0.0 <= threshold <= 1.0:
            raise SamecodeValueError(f"threshold must be in [0.0, 1.0]; got {threshold!r}")
        return float(threshold)

    def candidate_pairs(self) -> set[tuple[Hashable, Hashable]]:
        """Every pair of keys that share a bucket (each pair once, in key order)."""
        pairs: set[tuple[Hashable, Hashable]] = set()
        for ranked in self._shared_buckets(self._order()):
            pairs.update(combinations(ranked, 2))
        return pairs

    def _order(self) -> dict[Hashable, int]:
        """Each key's place in insertion order."""
        return {key: position for position, key in enumerate(self._keys)}

    def _shared_buckets(self, order: dict[Hashable, int]) -> Iterator[list[Hashable]]:
        """The keys of every bucket that holds two or more, in insertion order."""
        for table in self._buckets:
            for members in table.values():
                if type(members) is set:
                    yield sorted(members, key=order.__getitem__)

    def find_all(
        self,
        verify: Callable[[Hashable], Iterable[Any]] | None = None,
        *,
        threshold: float | None = None,
    ) -> list[tuple[Hashable, Hashable, float]]:
        """Every candidate pair ``(a, b, similarity)``, best first (then in insertion
        order): the signatures' estimate, or with ``verify`` (a function from a key to its
        feature set) the exact Jaccard, pairs below ``threshold`` (default: the index's)
        dropped. LSH tuned below the similarity wanted, then verified at it, finds more.

        Runtime complexity: :meth:`candidate_pairs`, then ``O(|A| + |B|)`` per pair
        verified (each key's features are asked for once).
        """
        least = self._least(threshold)
        out = []
        features = None if verify is None else _once_each(verify)
        for a, b in self.candidate_pairs():
            if features is None:
                out.append((a, b, self._estimate(self._keys[a], self._keys[b])))
                continue
            similarity = set_jaccard(features(a), features(b))
            if similarity >= least:
                out.append((a, b, similarity))
        order = self._order()
        out.sort(key=lambda p: (-p[2], order[p[0]], order[p[1]]))
        return out

    def clusters(
        self,
        verify: Callable[[Hashable], Iterable[Any]] | None = None,
        *,
        threshold: float | None = None,
    ) -> list[list[Hashable]]:
        """Groups of keys linked by :meth:`find_all`'s pairs, largest first, each in
        insertion order.

        Runtime complexity: ``O(n * b)`` for ``n`` keys without ``verify``; with it, a
        pair is verified only when its keys are not linked yet and their feature sets
        differ, so that a bucket of many copies costs one set comparison a key, not a
        pair.
        """
        least = self._least(threshold)
        order = self._order()
        links: Links[Hashable] = Links()
        features = None if verify is None else _once_each(verify)
        for ranked in self._shared_buckets(order):
            if features is None:  # every candidate pair is a pair of find_all
                for key in ranked[1:]:
                    links.link(ranked[0], key)
            else:
                _link_verified(ranked, features, least, links)
        out = [sorted(group, key=order.__getitem__) for group in links.groups()]
        out.sort(key=lambda g: (-len(g), order[g[0]]))
        return out

    def keys(self) -> list[Hashable]:
        """The keys held, in the order they were inserted."""
        return list(self._keys)

    def get_counts(self) -> list[dict[bytes, int]]:
        """Per band, each bucket's number of keys (datasketch's name; the buckets are
        named by the band's value bytes).

        >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
        >>> for key in ("a", "b"):
        ...     lsh.insert(key, MinHash(num_perm=16))
        >>> [sorted(counts.values()) for counts in lsh.get_counts()] == [[2]] * lsh.b
        True
        """
        return [
            {band: len(held) if type(held) is set else 1 for band, held in table.items()}
            for table in self._buckets
        ]

    def get_subset_counts(self, *keys: Hashable) -> list[dict[bytes, int]]:
        """:meth:`get_counts` as if the index held only ``keys`` (each counted once).

        :raises ValueError: for a key the index does not hold.

        >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
        >>> for key in ("a", "b"):
        ...     lsh.insert(key, MinHash(num_perm=16))
        >>> [sorted(counts.values()) for counts in lsh.get_subset_counts("a")] == [[1]] * lsh.b
        True
        """
        counts: list[dict[bytes, int]] = [{} for _ in range(self.b)]
        for key in dict.fromkeys(keys):
            if key not in self:
                raise SamecodeValueError(f"the key {key!r} is not in the index")
            for table, band in zip(counts, self._split(self._keys[key])):
                table[band] = table.get(band, 0) + 1
        return counts

    def _estimate(self, first: bytes, second: bytes) -> float:
        """The share of equal values of two signatures held as bytes."""
        return agreement(first, second, "I" if len(first) == 4 * self.h else "Q", self.h)


_S = TypeVar("_S", bound="_Session")


class _Session:
    """A context manager over an index, as datasketch's sessions are."""

    def __init__(self, lsh: MinHashLSH) -> None:
        self.lsh = lsh

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is buffered: nothing to write."""


class MinHashLSHInsertionSession(_Session):
    """What :meth:`MinHashLSH.insertion_session` gives: ``insert`` into the index, at
    once; a context manager, as datasketch's.

    >>> with MinHashLSH(threshold=0.5, num_perm=16).insertion_session() as session:
    ...     session.insert("a", MinHash(num_perm=16))
    >>> "a" in session.lsh
    True
    """

    def insert(self, key: Hashable, minhash: Signature, check_duplication: bool = True) -> None:
        """:meth:`MinHashLSH.insert`."""
        self.lsh.insert(key, minhash, check_duplication)


class MinHashLSHDeletionSession(_Session):
    """What :meth:`MinHashLSH.deletion_session` gives: ``remove`` from the index, at
    once; a context manager, as datasketch's.

    >>> lsh = MinHashLSH(threshold=0.5, num_perm=16)
    >>> lsh.insert("a", MinHash(num_perm=16))
    >>> with lsh.deletion_session() as session:
    ...     session.remove("a")
    >>> "a" in lsh
    False
    """

    def remove(self, key: Hashable) -> None:
        """:meth:`MinHashLSH.remove`."""
        self.lsh.remove(key)


def _check_buffer_size(buffer_size: object) -> None:
    if check_int(buffer_size, "buffer_size") < 1:
        raise SamecodeValueError(f"buffer_size must be >= 1; got {buffer_size}")


def _once_each(verify: Callable[[Hashable], Iterable[Any]]) -> Callable[[Hashable], frozenset[Any]]:
    """``verify`` as frozensets, asked once a key."""
    sets: dict[Hashable, frozenset[Any]] = {}

    def features(key: Hashable) -> frozenset[Any]:
        found = sets.get(key)
        if found is None:
            found = sets[key] = frozenset(verify(key))
        return found

    return features


def _link_verified(
    keys: list[Hashable],
    features: Callable[[Hashable], frozenset[Any]],
    least: float,
    links: Links[Hashable],
) -> None:
    """Link the keys of one bucket whose sets reach ``least``, comparing a pair only when
    its keys are not linked yet and their sets differ (a set equal to an earlier one's has
    Jaccard 1 with it, and its pairs)."""
    distinct: dict[frozenset[Any], Hashable] = {}  # a feature set: its first key
    for key in keys:
        mine = features(key)
        twin = distinct.get(mine)
        if twin is not None:
            links.link(twin, key)
            continue
        for other, theirs in distinct.items():
            if not links.linked(key, theirs) and set_jaccard(mine, other) >= least:
                links.link(key, theirs)
        distinct[mine] = key
