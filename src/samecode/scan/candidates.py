"""How candidate pairs are proposed: keyed methods that any engine runs, document by
document and group by group.

A :class:`Method` is a configured object with three hooks, so that a process pool or a
Spark executor runs it without any registry:

* :meth:`Method.prepare` fixes what keys depend on besides one document (the threshold,
  the measure, the global order of shingles from the merged counts, the number of
  documents), once per job;
* :meth:`Method.keys` turns one document's shingle set, independently of every other,
  into its keys, **listed in one global order** (the same for all documents), plus
  whatever else its group members need;
* :meth:`Method.propose` finds the candidate pairs inside one key's group: the pairs
  that may reach the threshold and whose *first* shared key (in that order) is this
  group's, so each pair is proposed exactly once, whichever partition holds the group.

Pairs are named by document ids. Every candidate is then verified exactly, so a method
only decides how fast the answer comes and whether a pair can be missed:

* ``exact`` (the default): prefix filtering (:mod:`samecode.scan.join`); keys are a
  document's prefix shingles under the rarity order of the merged counts. No pair that
  reaches the threshold is ever missed, whatever the data.
* ``simhash`` / ``halo``: a 64-bit simhash (:func:`samecode.fingerprints.simhash.compute`)
  or a 128-bit :class:`~samecode.halohash.BitAverageHaloHash` of the shingles; keys are
  the permuted-block table keys of a :class:`~samecode.hamming.plan.Plan` for the
  Hamming distance :func:`loose_distance` derives from the threshold (one key when no
  table pays); probabilistic.
* ``minhash``: the similar-items system: a signature of ``num_perm`` values per document
  (:class:`~samecode.minhash.oph.OnePermutationMinHash` of the shingle hashes) and LSH at
  ``lsh_threshold`` (keys: the bands' buckets). It reports every pair at the threshold
  (found exactly) with the signatures' estimate and whether LSH proposed it.

A method is found by its name once, at the edge (:func:`method`); a method of your own
is passed as an object (``ScanOptions(method=MyMethod())``), and works in a worker
process because it travels with the work. A method that pairs every document (one key):

>>> from samecode.scan import ScanOptions
>>> class Everything(Method):
...     name = "all-pairs"
...     def keys(self, shingles):
...         return ([0],)
...     def propose(self, members, table, others=None, cache=None):
...         return all_pairs(members, others)
>>> ScanOptions(method=Everything()).method.name
'all-pairs'

Oversized groups (more than :attr:`Method.block` members under one key) are split into
blocks and compared block against block, never dropped: the cost of a group of ``g`` is
``g**2 / 2`` pair steps at most, whatever the split.
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from array import array
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from hashlib import blake2b
from itertools import combinations, product
from typing import Any, ClassVar

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.hamming.allpairs import distinct_groups, near_pairs
from samecode.hamming.plan import Plan, choose_plan
from samecode.minhash.settings import LSHSettings
from samecode.scan.join import (
    PrefixKeys,
    RarityOrder,
    ShingleCounts,
    first_shared,
    prefix_keys,
    propose_prefix_groups,
    propose_prefix_pairs,
)
from samecode.set_digests import digest
from samecode.similarity import Measure

__all__ = [
    "Keyed",
    "Member",
    "Method",
    "all_pairs",
    "default_lsh_threshold",
    "loose_distance",
    "method",
    "method_names",
    "owned",
]

#: One document's keys (in the global order) first, then what the method keeps of it.
Keyed = tuple[Any, ...]
#: A member of a key's group: a document id and where the key is in its keys.
Member = tuple[int, int]


class Method(ABC):
    """A way to propose the candidate pairs that the pipeline then verifies (see the
    module's description).

    Subclasses set :attr:`name` and implement :meth:`keys` and :meth:`propose`; a method
    that needs the whole job's facts overrides :meth:`prepare`. Instances must pickle.
    """

    #: The name a user gives (``--method NAME``).
    name: ClassVar[str]
    #: Whether every pair that reaches the threshold is always proposed.
    exact: ClassVar[bool] = False
    #: The measures this method can propose pairs for.
    measures: ClassVar[tuple[str, ...]] = ("jaccard",)
    #: Whether the pipeline should report every pair (found exactly) with this method's
    #: notes (:meth:`notes`), rather than only the pairs it proposed.
    reports_all: ClassVar[bool] = False
    #: Whether :meth:`prepare` needs the shingle counts of the whole job.
    needs_counts: ClassVar[bool] = False
    #: Groups of more members are split into blocks of this many (``None``: never).
    block: ClassVar[int | None] = 2048

    def configured(self, **settings: Any) -> Method:
        """This method with ``settings`` applied (those it does not take are ignored)."""
        return self

    def parameters(self, threshold: Fraction) -> dict[str, Any]:
        """The settings it runs with for ``threshold``, for reports."""
        return {}

    def prepare(
        self,
        threshold: Fraction,
        measure: Measure,
        *,
        counts: ShingleCounts | None = None,
        documents: int = 0,
    ) -> Method:
        """This method ready for one job: ``threshold`` and ``measure``, the merged
        ``counts`` of the documents' shingles (when :attr:`needs_counts`) and how many
        documents there are. Returns a picklable object; the default is ``self``."""
        return self

    @abstractmethod
    def keys(self, shingles: array[int]) -> Keyed:
        """One document's keys (ints from 0 to ``2**64 - 1``, in the method's global
        order) as the first item of a tuple, followed by anything :meth:`propose` needs
        of the document.

        A document with no key is never proposed.
        """

    @abstractmethod
    def propose(
        self,
        members: Sequence[Member],
        table: Mapping[int, Keyed],
        others: Sequence[Member] | None = None,
        cache: dict[int, frozenset[int]] | None = None,
    ) -> list[tuple[int, int]]:
        """The candidate pairs ``(smaller id, larger id)`` of one key's group, each
        proposed here only if this key is the first the two documents share
        (:func:`owned`); with ``others``, only pairs between the two blocks.

        :param members: ``(id, index)`` of the group's documents (``index``: where this
            key is in the document's keys).
        :param table: :meth:`keys` of every member, by id.
        :param cache: frozensets of documents' keys, kept between groups of one task.
        """

    def propose_groups(
        self,
        groups: Mapping[int, Sequence[int]],
        table: Mapping[int, Keyed],
    ) -> list[tuple[int, int]]:
        """:meth:`propose` for many whole groups at once (a method may do it with less
        work per group; the default asks each group of two or more).

        :param groups: each key's group, by key, as one flat sequence ``id, index, id,
            index, ...``.
        """
        cache: dict[int, frozenset[int]] = {}
        found: list[tuple[int, int]] = []
        for flat in groups.values():
            if len(flat) > 2:
                found += self.propose(list(zip(flat[::2], flat[1::2])), table, None, cache)
        return found

    def notes(self, first: Keyed, second: Keyed) -> dict[str, Any]:
        """What the method makes of a pair (for a method that :attr:`reports_all`),
        from the two documents' :meth:`keys`."""
        return {}

    def copy_notes(self) -> dict[str, Any]:
        """The notes of a pair of identical documents."""
        return {}


def owned(
    first: Member,
    second: Member,
    table: Mapping[int, Keyed],
    cache: dict[int, frozenset[int]] | None = None,
) -> bool:
    """Whether the key at ``first``'s and ``second``'s indexes is the first key the two
    documents share (with keys in one global order): the rule that proposes every pair in
    exactly one group.

    >>> table = {1: ([5, 8, 9],), 2: ([8, 9],), 3: ([5, 9],)}
    >>> owned((1, 1), (2, 0), table), owned((1, 2), (2, 1), table), owned((1, 2), (3, 1), table)
    (True, False, False)
    """
    cache = {} if cache is None else cache
    (x, ix), (y, iy) = first, second
    if ix > iy:
        (x, ix), (y, iy) = (y, iy), (x, ix)
    other = cache.get(y)
    if other is None:
        other = cache[y] = frozenset(table[y][0])
    return first_shared(table[x][0], ix, other)


def all_pairs(
    members: Sequence[Member],
    others: Sequence[Member] | None = None,
    table: Mapping[int, Keyed] | None = None,
    cache: dict[int, frozenset[int]] | None = None,
) -> list[tuple[int, int]]:
    """Every pair of a group (or between two blocks of it), as ``(smaller, larger)`` ids;
    with ``table``, only the pairs whose first shared key is this one (:func:`owned`).

    >>> all_pairs([(3, 0), (1, 0), (2, 0)])
    [(1, 3), (2, 3), (1, 2)]
    """
    pairs: Iterable[tuple[Member, Member]]
    pairs = combinations(members, 2) if others is None else product(members, others)
    return [
        (a[0], b[0]) if a[0] < b[0] else (b[0], a[0])
        for a, b in pairs
        if a[0] != b[0] and (table is None or owned(a, b, table, cache))
    ]


def loose_distance(size_in_bits: int, threshold: Fraction, spread: float = 4.0) -> int:
    """The Hamming distance under which a sketch method looks for pairs of Jaccard ``>=
    threshold``.

    Two sets of Jaccard ``J`` have a cosine (of their indicator vectors) of at least ``J``,
    so the angle between them is at most ``acos(J)`` and each bit of their simhashes
    differs with probability at most ``acos(J) / pi`` (Charikar 2002). The distance is the
    expected number of differing bits plus ``spread`` standard deviations of a binomial,
    capped at half the bits.

    At 0.8: ``acos(0.8) / pi = 0.2048``, so 64 bits differ in 13.1 on average, with a
    standard deviation of 3.23, and ``13.1 + 4 * 3.23 = 26.0`` rounds up to 27:

    >>> loose_distance(64, Fraction(4, 5)), loose_distance(128, Fraction(4, 5))
    (27, 45)
    """
    p = math.acos(float(threshold)) / math.pi
    mean = size_in_bits * p
    deviation = math.sqrt(size_in_bits * p * (1 - p))
    return min(size_in_bits // 2, math.ceil(mean + spread * deviation))


def default_lsh_threshold(threshold: Fraction) -> float:
    """The LSH threshold the ``minhash`` method uses for a similarity threshold: 0.2 lower
    (at least 0.05), so that LSH proposes nearly every pair that reaches it (measured on
    the standard libraries; see the documentation).

    >>> default_lsh_threshold(Fraction(4, 5))
    0.6
    """
    return max(0.05, round(float(threshold) - 0.2, 2))


# -- the methods -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Exact(Method):
    """Prefix filtering under the rarity order of the job's counts (exact)."""

    name: ClassVar[str] = "exact"
    exact: ClassVar[bool] = True
    measures: ClassVar[tuple[str, ...]] = ("jaccard", "containment")
    needs_counts: ClassVar[bool] = True

    threshold: Fraction = Fraction(4, 5)
    measure: Measure = "jaccard"
    order: RarityOrder | None = None

    def prepare(
        self,
        threshold: Fraction,
        measure: Measure,
        *,
        counts: ShingleCounts | None = None,
        documents: int = 0,
    ) -> Method:
        if counts is None:
            raise SamecodeValueError("the exact method needs the job's shingle counts")
        return _Exact(threshold, measure, RarityOrder(counts))

    def keys(self, shingles: array[int]) -> PrefixKeys:
        if self.order is None:
            raise SamecodeValueError("prepare() the exact method before keying documents")
        return prefix_keys(shingles, self.order, self.threshold, self.measure)

    def propose(
        self,
        members: Sequence[Member],
        table: Mapping[int, Keyed],
        others: Sequence[Member] | None = None,
        cache: dict[int, frozenset[int]] | None = None,
    ) -> list[tuple[int, int]]:
        return propose_prefix_pairs(
            members,
            table,
            self.threshold,
            self.measure,
            others,
            cache,
        )

    def propose_groups(
        self,
        groups: Mapping[int, Sequence[int]],
        table: Mapping[int, Keyed],
    ) -> list[tuple[int, int]]:
        return propose_prefix_groups(groups, table, self.threshold, self.measure)


@dataclasses.dataclass(frozen=True)
class _Sketched(Method):
    """Keys from the permuted-block tables of a fingerprint of ``size`` bits, pairs
    within :func:`loose_distance`."""

    size: ClassVar[int] = 64
    block: ClassVar[int | None] = None  # near_pairs takes any group whole

    distance: int = 0
    plan: Plan | None = None

    def prepare(
        self,
        threshold: Fraction,
        measure: Measure,
        *,
        counts: ShingleCounts | None = None,
        documents: int = 0,
    ) -> Method:
        distance = loose_distance(self.size, threshold)
        plan = choose_plan(self.size, distance, expected_size=max(documents, 1), purpose="batch")
        return dataclasses.replace(self, distance=distance, plan=None if plan.is_scan else plan)

    @abstractmethod
    def fingerprint(self, shingles: array[int]) -> int:
        """The fingerprint of one set, as an int."""

    def keys(self, shingles: array[int]) -> Keyed:
        value = self.fingerprint(shingles)
        if self.plan is None:
            return [0], value
        width = max(self.plan.key_bits)
        keys = self.plan.keys(value)
        if (len(keys) - 1).bit_length() + width <= 64:
            return [(table << width) | key for table, key in enumerate(keys)], value
        # Too wide to pack: a 64-bit digest of (table, key). Two different keys with one
        # digest only merge their groups (more candidates, each pair still once).
        size = (width + 7) // 8 + 2
        return [
            int.from_bytes(_digest((table << width) | key, size), "big")
            for table, key in enumerate(keys)
        ], value

    def propose(
        self,
        members: Sequence[Member],
        table: Mapping[int, Keyed],
        others: Sequence[Member] | None = None,
        cache: dict[int, frozenset[int]] | None = None,
    ) -> list[tuple[int, int]]:
        if others is not None:
            raise SamecodeValueError(f"the {self.name} method takes whole groups, not blocks")
        values = [table[doc][1] for doc, _ in members]
        distinct, groups = distinct_groups(values)
        at = (lambda v: [v]) if groups is None else groups.__getitem__
        found: list[tuple[int, int]] = []
        candidates = [
            (i, j)
            for u, v in near_pairs(distinct, self.size, self.distance)
            for i in at(u)
            for j in at(v)
        ]
        candidates += [pair for group in groups or () for pair in combinations(group, 2)]
        for i, j in candidates:
            a, b = members[i], members[j]
            if self.plan is None or owned(a, b, table, cache):
                found.append((a[0], b[0]) if a[0] < b[0] else (b[0], a[0]))
        return found


def _digest(value: int, size: int) -> bytes:
    return blake2b(value.to_bytes(size, "big"), digest_size=8).digest()


@dataclasses.dataclass(frozen=True)
class _SimHash(_Sketched):
    name: ClassVar[str] = "simhash"
    size: ClassVar[int] = 64

    def fingerprint(self, shingles: array[int]) -> int:
        return digest("simhash", shingles)


@dataclasses.dataclass(frozen=True)
class _Halo(_Sketched):
    name: ClassVar[str] = "halo"
    size: ClassVar[int] = 128

    def fingerprint(self, shingles: array[int]) -> int:
        return digest("halo", shingles)


@dataclasses.dataclass(frozen=True)
class _MinHash(Method):
    """One-permutation signatures and LSH bands as keys; reports every exact pair with
    what the signatures say of it."""

    name: ClassVar[str] = "minhash"
    reports_all: ClassVar[bool] = True

    num_perm: int = 128
    lsh_threshold: float | None = None
    settings: LSHSettings | None = None

    def configured(self, **settings: Any) -> Method:
        return _MinHash(
            settings.get("num_perm", self.num_perm),
            settings.get("lsh_threshold", self.lsh_threshold),
        )

    def _settings(self, threshold: Fraction) -> LSHSettings:
        lowest = self.lsh_threshold
        if lowest is None:
            lowest = default_lsh_threshold(threshold)
        return LSHSettings(num_perm=self.num_perm, threshold=lowest)

    def parameters(self, threshold: Fraction) -> dict[str, Any]:
        settings = self._settings(threshold)
        return {
            "num_perm": self.num_perm,
            "lsh_threshold": settings.threshold,
            "bands": settings.bands,
            "rows": settings.rows,
        }

    def prepare(
        self,
        threshold: Fraction,
        measure: Measure,
        *,
        counts: ShingleCounts | None = None,
        documents: int = 0,
    ) -> Method:
        return dataclasses.replace(self, settings=self._settings(threshold))

    def keys(self, shingles: array[int]) -> Keyed:
        if self.settings is None:
            raise SamecodeValueError("prepare() the minhash method before keying documents")
        values = self.settings.values(self.settings.signature(shingles))
        return self.settings.buckets(values), values

    def propose(
        self,
        members: Sequence[Member],
        table: Mapping[int, Keyed],
        others: Sequence[Member] | None = None,
        cache: dict[int, frozenset[int]] | None = None,
    ) -> list[tuple[int, int]]:
        return all_pairs(members, others, table, cache)

    def notes(self, first: Keyed, second: Keyed) -> dict[str, Any]:
        if self.settings is None:  # pragma: no cover - prepared before notes are asked
            raise SamecodeValueError("prepare() the minhash method first")
        return {
            "signature_similarity": self.settings.estimate(first[1], second[1]),
            "lsh_candidate": not frozenset(first[0]).isdisjoint(second[0]),
        }

    def copy_notes(self) -> dict[str, Any]:
        # Identical sets have identical signatures, which share every band.
        return {"signature_similarity": 1.0, "lsh_candidate": True}


_METHODS: dict[str, Method] = {m.name: m for m in (_Exact(), _SimHash(), _Halo(), _MinHash())}


def method_names() -> list[str]:
    """The names of the built-in methods, sorted.

    >>> method_names()
    ['exact', 'halo', 'minhash', 'simhash']
    """
    return sorted(_METHODS)


def method(name: str | Method) -> Method:
    """Return the built-in method called ``name`` (a :class:`Method` is returned as it is).

    :raises ValueError: for a name that is not one (the message lists them).
    :raises TypeError: for something that is neither a name nor a method.
    """
    if isinstance(name, Method):
        return name
    if not isinstance(name, str):
        raise SamecodeTypeError(f"method must be a name or a Method; got {describe(name)}")
    found = _METHODS.get(name)
    if found is None:
        raise SamecodeValueError(f"method must be one of {', '.join(method_names())}; got {name!r}")
    return found
