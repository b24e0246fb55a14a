"""Private: the stages of the Spark job (:mod:`samecode.spark.job`) after the reading:
candidates, verification, the pairs' rows and the clone classes, and what the job keeps
(:func:`hold`) and sends to every executor (:class:`Shared`)."""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from samecode.scan.candidates import Keyed, Member, Method
from samecode.scan.classes import clone_classes
from samecode.scan.model import CloneClass, Pair, pairs_across, pairs_within
from samecode.scan.pipeline import ScanOptions, key_documents, propose_partition, verify_pairs
from samecode.similarity import Measure
from samecode.spark.components import connected_components

__all__ = [
    "JOB_DESCRIPTION",
    "Shared",
    "class_order",
    "decision",
    "find_candidates",
    "find_classes",
    "hold",
    "memberships",
    "name_stage",
    "pair_rows",
    "verify_candidates",
]

# The property that names a job in Spark's UI and event log.
JOB_DESCRIPTION = "spark.job.description"


def name_stage(context: Any, name: str) -> None:
    """Name the jobs that follow ``samecode: <name>`` (in Spark's UI and event log)."""
    context.setJobDescription(f"samecode: {name}")


class Shared:
    """A value sent once to every executor (a broadcast), pickled by cloudpickle, so that
    a method defined in the driver's script travels by value like the tasks' functions."""

    def __init__(self, context: Any, value: Any) -> None:
        from pyspark import cloudpickle

        self._broadcast = context.broadcast(cloudpickle.dumps(value))  # type: ignore[no-untyped-call,unused-ignore]

    @property
    def value(self) -> Any:
        """The value, unpickled from this executor's copy."""
        from pyspark import cloudpickle

        return cloudpickle.loads(self._broadcast.value)

    def unpersist(self) -> None:
        """Drop the executors' copies (sent again if a task needs it)."""
        self._broadcast.unpersist()


def hold(held: list[Any], kept: Any) -> Any:
    """``kept`` (an RDD, persisted here, or a :class:`Shared`), listed for
    :meth:`~samecode.spark.job.SparkScan.release`. An RDD is kept on the executors' disks
    (its blocks streamed back, the operating system's cache serving as their memory): a
    Python RDD's blocks are bytes in the JVM's heap, which a block as large as a partition
    (of an input with few) can exhaust when it is read back whole, as ``MEMORY_AND_DISK``
    does."""
    if not isinstance(kept, Shared):
        from pyspark import StorageLevel

        kept.persist(StorageLevel.DISK_ONLY)
    held.append(kept)
    return kept


def find_candidates(
    reps: Any,
    shared_method: Shared,
    prepared: Method,
    parts: int,
    stats: dict[str, int],
    held: list[Any],
) -> Any:
    """The candidate pairs ``(a, b)`` of the representatives, by key."""

    def key(rows: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        keyed, records = key_documents(shared_method.value, [(r[0], r[1]) for r in rows], 1)
        keys, docs, indexes = records[0]
        for item in zip(keys, zip(docs, indexes)):
            yield 0, item
        for item in keyed:
            yield 1, item

    name_stage(reps.context, "key and group")
    keyed = hold(held, reps.mapPartitions(key))
    records = keyed.filter(lambda item: item[0] == 0).values()
    entries = keyed.filter(lambda item: item[0] == 1).values()
    block = prepared.block

    def units(index: int, groups: Iterable[tuple[int, Iterable[Member]]]) -> Iterator[Any]:
        # A group of two or more stays where it is; an oversized one becomes a task per
        # pair of its blocks, spread over the partitions.
        for group_key, grouped in groups:
            members = list(grouped)
            if len(members) < 2:
                continue
            if block is None or len(members) <= block:
                yield index, ("group", group_key, members, None)
                continue
            members.sort()
            blocks = [members[i : i + block] for i in range(0, len(members), block)]
            for i, first in enumerate(blocks):
                for j in range(i, len(blocks)):
                    place = (index + i * len(blocks) + j) % parts
                    yield place, ("blocks", group_key, first, None if i == j else blocks[j])

    work = hold(held, records.groupByKey(parts).mapPartitionsWithIndex(units))
    kinds = work.map(lambda item: (item[1][0], item[1][1])).countByValue()
    stats["groups"] = sum(1 for kind, _ in kinds if kind == "group")
    stats["oversized_keys"] = len({k for kind, k in kinds if kind == "blocks"})
    stats["block_tasks"] = sum(n for (kind, _), n in kinds.items() if kind == "blocks")

    wanted = work.flatMap(_needs).distinct(parts)
    tables = wanted.join(entries, parts).map(lambda item: (item[1][0], (item[0], item[1][1])))
    together = work.mapValues(lambda unit: (0, unit)).union(
        tables.mapValues(lambda entry: (1, entry))
    )

    def propose(items: Iterable[tuple[int, Any]]) -> list[tuple[int, int]]:
        chosen = shared_method.value
        table: dict[int, Keyed] = {}
        keys, docs, indexes = array("Q"), array("q"), array("q")
        pairs_of_blocks = []
        for _, (kind, payload) in items:
            if kind == 1:
                table[payload[0]] = payload[1]
            elif payload[0] == "group":
                for doc, index in payload[2]:
                    keys.append(payload[1])
                    docs.append(doc)
                    indexes.append(index)
            else:
                pairs_of_blocks.append((payload[2], payload[3]))
        found = propose_partition(chosen, (keys, docs, indexes), table) if keys else []
        cache: dict[int, frozenset[int]] = {}
        for first, second in pairs_of_blocks:
            found += chosen.propose(first, table, second, cache)
        return found

    candidates = together.partitionBy(parts, lambda place: place).mapPartitions(propose)
    name_stage(reps.context, "propose")
    candidates = hold(held, candidates)
    stats["candidates"] = candidates.count()
    return candidates


def _needs(item: tuple[int, Any]) -> Iterator[tuple[int, int]]:
    place, (_, _, first, second) = item
    for members in (first, second or ()):
        for doc, _ in members:
            yield doc, place


def verify_candidates(
    reps: Any, candidates: Any, shared_noting: Shared, options: ScanOptions, parts: int
) -> Any:
    """``(a, b, shared, |A|, |B|, notes)`` for each candidate at or above the threshold."""
    threshold = options.exact_threshold
    measure: Measure = options.measure  # type: ignore[assignment]
    sets = reps.map(lambda r: (r[0], r[1]))

    def verify(items: Iterable[Any]) -> Iterator[Any]:
        pairs: list[tuple[int, int]] = []
        found: dict[int, array[int]] = {}
        for b, ((a, first), second) in items:
            pairs.append((a, b))
            found[a] = first
            found[b] = second
        noting = shared_noting.value
        said: dict[int, Keyed] = {}
        for a, b, shared in verify_pairs(pairs, found, threshold, measure):
            notes: tuple[tuple[str, Any], ...] = ()
            if noting is not None:
                for doc in (a, b):
                    if doc not in said:
                        said[doc] = noting.keys(found[doc])
                notes = tuple(noting.notes(said[a], said[b]).items())
            yield a, b, shared, len(found[a]), len(found[b]), notes

    return (
        candidates.join(sets, parts)
        .map(lambda item: (item[1][0], (item[0], item[1][1])))
        .join(sets, parts)
        .mapPartitions(verify)
    )


def _row(pair: Pair) -> tuple[Any, ...]:
    notes = json.dumps(dict(pair.notes), ensure_ascii=True, allow_nan=False)
    return pair.a, pair.b, pair.jaccard, pair.shared, pair.a_shingles, pair.b_shingles, notes


def pair_rows(
    verified: Any, members: Any, reps: Any, copies: tuple[tuple[str, Any], ...], parts: int
) -> Any:
    """The pairs' rows: each verified pair of representatives for every two members of
    their identical sets, and the pairs inside each set."""

    def expand(item: Any) -> Iterator[tuple[Any, ...]]:
        _, ((found, (first, _)), (second, _)) = item
        _, _, shared, size_a, size_b, notes = found
        return map(_row, pairs_across(first, size_a, second, size_b, shared, notes))

    def inside(rep: Any) -> Iterator[tuple[Any, ...]]:
        return map(_row, pairs_within(rep[2], len(rep[1]), copies))

    across = (
        verified.map(lambda v: (v[0], v))
        .join(members, parts)
        .map(lambda item: (item[1][0][1], item[1]))
        .join(members, parts)
        .flatMap(expand)
    )
    return across.union(reps.filter(lambda r: len(r[2]) > 1).flatMap(inside))


def find_classes(
    verified: Any, members: Any, pairs: Any, chaining: str, parts: int, held: list[Any]
) -> Any:
    """The clone classes (unnumbered): the components of the representatives' pairs (an
    identical set in no pair is one of its own), each made into classes by the one
    machine's :func:`~samecode.scan.classes.clone_classes` over its pairs."""
    labels = hold(held, connected_components(verified.map(lambda v: (v[0], v[1])), parts))
    label_of_path = members.leftOuterJoin(labels, parts).flatMap(
        lambda item: [(p, item[0] if item[1][1] is None else item[1][1]) for p in item[1][0][0]]
    )
    return (
        pairs.map(lambda row: (row[0], row))
        .join(label_of_path, parts)
        .map(lambda item: (item[1][1], item[1][0]))
        .groupByKey(parts)
        .flatMap(lambda item: clone_classes([], [_pair_of(row) for row in item[1]], chaining))
    )


def _pair_of(row: tuple[Any, ...]) -> Pair:
    a, b, _, shared, a_shingles, b_shingles, _ = row
    return Pair(a, b, shared, a_shingles, b_shingles)


def class_order(clone: CloneClass) -> tuple[int, str]:
    """The order of the classes' numbers: largest first, then by first member."""
    return -len(clone.members), clone.members[0]


def memberships(row: tuple[Any, ...]) -> Iterator[tuple[str, tuple[int, str]]]:
    """``(member, (class number, representative))`` for each member of a class's row."""
    for member in row[1]:
        yield member, (row[0], row[2])


def decision(item: tuple[str, tuple[None, tuple[int, str] | None]]) -> tuple[Any, ...]:
    """A document's row of :data:`~samecode.spark.job.DECISION_SCHEMA`: kept, or the
    representative of its class that it duplicates."""
    path, (_, found) = item
    if found is None:
        return path, True, None, None
    number, representative = found
    keep = path == representative
    return path, keep, None if keep else representative, number
