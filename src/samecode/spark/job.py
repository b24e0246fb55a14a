"""The scan as a Spark job: the pipeline's own stage functions run in Spark's tasks, so the
pairs, their exact values and the clone classes are those of one machine's
:func:`~samecode.scan.pipeline.scan`, whatever the partitions and executors.

The stages, and what each shuffles (``P``: :attr:`partitions`):

1. **read** (:func:`~samecode.scan.pipeline.read_documents` or
   :func:`~samecode.scan.pipeline.read_contents` per partition): files or a column's
   contents -> :class:`~samecode.scan.model.Document` (path, sorted distinct shingles).
2. **identical sets** (:func:`~samecode.scan.join.distinct_sets` per size and sum):
   every document shuffled once by the size and sum of its shingles; one representative
   per set, named by the 64-bit hash of its path (paths are checked unique and the hashes
   free of collisions first: one shuffle of ids and paths).
3. **count** (:func:`~samecode.scan.pipeline.count_shingles` per partition; the counts
   merged by a tree reduce): the method prepared once, on the driver, and broadcast.
4. **key** (:func:`~samecode.scan.pipeline.key_documents` per partition): a record
   ``(key, (id, index))`` per key, shuffled by key; each document's keys kept where it
   was keyed.
5. **group**: each key's group of two or more; a group of more than the method's
   :attr:`~samecode.scan.candidates.Method.block` members is cut into blocks, and each
   pair of blocks becomes a task of its own on its own partition (counted in
   :attr:`SparkScan.stats`, never dropped). The keys of the documents each partition
   needs are joined to it (a document's keys travel once to each partition holding a
   group it is in).
6. **propose** (:func:`~samecode.scan.pipeline.propose_partition` per partition, and
   :meth:`~samecode.scan.candidates.Method.propose` per pair of blocks): the candidates.
7. **verify** (:func:`~samecode.scan.pipeline.verify_pairs` per partition): both sets
   of each candidate joined to it (two joins, each shuffling the candidates and every
   representative's set), intersected exactly; a method that reports every pair adds
   its notes.
8. **pairs**: the representatives' pairs expanded to every member of their identical
   sets, and the pairs inside each set.
9. **classes** (:func:`~samecode.spark.components.connected_components` over the
   representatives' pairs): members, representative (the most shingles, then the first
   path), lowest and highest Jaccard, numbered largest first; and a keep/remove list that
   keeps each class's representative and every file in no class.

>>> import pathlib, tempfile
>>> from samecode.scan import ScanOptions, WalkOptions
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> body = "\\n".join(f"total_{i} = price_{i} * count + tax" for i in range(40))
>>> _ = (root / "a.py").write_text(body)
>>> _ = (root / "b.py").write_text(body.replace("total_7 ", "sum_7 "))
>>> options = ScanOptions(walk=WalkOptions(gitignore=False))
>>> found = scan_files([str(root)], options, master="local[2]")
>>> [(pathlib.Path(p.a).name, pathlib.Path(p.b).name) for p in found.collect().pairs]
[('a.py', 'b.py')]
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from samecode._validation import batches, check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.candidates import Keyed, Member, Method, method
from samecode.scan.classes import clone_classes
from samecode.scan.join import ShingleCounts, distinct_sets
from samecode.scan.model import CloneClass, Document, Pair
from samecode.scan.pipeline import (
    ScanOptions,
    count_shingles,
    key_documents,
    propose_partition,
    read_contents,
    read_documents,
    verify_pairs,
)
from samecode.similarity import Measure
from samecode.sources.skipped import Skipped
from samecode.sources.walk import discover
from samecode.spark.components import connected_components
from samecode.spark.session import session

__all__ = [
    "CLASS_SCHEMA",
    "DECISION_SCHEMA",
    "DOCUMENTS_PER_PARTITION",
    "PAIR_SCHEMA",
    "SKIPPED_SCHEMA",
    "Collected",
    "SparkScan",
    "path_id",
    "scan_dataframe",
    "scan_documents",
    "scan_files",
]

#: The pairs: paths, exact Jaccard (the nearest float), the counts it comes from, and the
#: method's notes as a JSON object.
PAIR_SCHEMA = (
    "a string, b string, jaccard double, shared long, a_shingles long, b_shingles long, "
    "notes string"
)
#: The clone classes, numbered from 1, largest first (then by first member).
CLASS_SCHEMA = (
    "id long, members array<string>, representative string, size long, "
    "min_jaccard double, max_jaccard double, link_jaccard double"
)
#: Every document compared: kept or not, and the representative it duplicates.
DECISION_SCHEMA = "path string, keep boolean, duplicate_of string, class long"
#: What was not compared, and why.
SKIPPED_SCHEMA = "path string, reason string"

# A document or why it was not compared, with its place in the input (for the order
# of the skipped list).
_Read = tuple[int, "Document | Skipped"]
# Files or rows read (and their contents held) at a time by a task.
_READ_BATCH = 512


def path_id(path: str) -> int:
    """The id of a document in the job: a signed 64-bit hash of its path (the job checks
    that no two paths of the input share one).

    >>> path_id("src/a.py") == path_id("src/a.py"), path_id("a") == path_id("b")
    (True, False)
    """
    digest = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass
class Collected:
    """A Spark scan's answer on the driver, as one machine's scan gives it: the pairs
    sorted by paths, the classes in the order of their ids, the skipped paths in the
    input's order, and how many documents were compared."""

    pairs: list[Pair]
    classes: list[CloneClass]
    skipped: list[Skipped]
    compared: int


@dataclass
class SparkScan:
    """What a Spark scan found, as DataFrames (:data:`PAIR_SCHEMA`,
    :data:`CLASS_SCHEMA`, :data:`DECISION_SCHEMA`, :data:`SKIPPED_SCHEMA`), how many
    documents were compared, and the job's counts (``stats``: ``partitions`` of its
    stages, ``representatives``, ``groups``, ``oversized_keys``, ``block_tasks``,
    ``candidates``, ``verified``).

    The job keeps what its DataFrames are computed from cached in the executors;
    :meth:`release` frees it (the DataFrames can still be read, at the cost of computing
    them again)."""

    pairs: Any
    classes: Any
    decisions: Any
    skipped: Any
    compared: int
    stats: dict[str, int] = field(default_factory=dict)
    _skipped_order: Any = field(default=None, repr=False)
    _held: list[Any] = field(default_factory=list, repr=False)

    def release(self) -> None:
        """Free the executors' cached data and broadcast copies of this job."""
        for kept in self._held:
            kept.unpersist()
        self._held = []

    def collect(self) -> Collected:
        """The answer on the driver, as Python objects (they must fit in this process, as
        one machine's scan holds them). The rows come one partition at a time
        (``toLocalIterator``), so the driver's JVM holds one partition of them, never the
        whole answer."""
        pairs = [
            Pair(
                row.a,
                row.b,
                row.shared,
                row.a_shingles,
                row.b_shingles,
                tuple(json.loads(row.notes).items()),
            )
            for row in self.pairs.toLocalIterator()
        ]
        pairs.sort(key=lambda p: (p.a, p.b))
        classes = [
            CloneClass(
                tuple(row.members),
                row.representative,
                row.min_jaccard,
                row.max_jaccard,
                row.link_jaccard,
            )
            for row in sorted(self.classes.toLocalIterator(), key=lambda row: row.id)
        ]
        skipped = [s for _, s in sorted(self._skipped_order.toLocalIterator(), key=_skipped_key)]
        return Collected(pairs, classes, skipped, self.compared)


def _skipped_key(item: tuple[int, Skipped]) -> tuple[int, str]:
    return item[0], item[1].path


# -- reading ------------------------------------------------------------------------------


#: Documents a partition holds at most, about, where the job chooses the partitions: a
#: task's share of the grouping by identical sets then stays in Python's memory (at
#: 250,000 a partition it spilled 1.2 GiB to disk), and a cluster's cores all get tasks.
DOCUMENTS_PER_PARTITION = 20_000


def _chosen_partitions(spark: Any, documents: int) -> int:
    """The partitions of every stage where none are asked for: twice the default
    parallelism, and at least one per :data:`DOCUMENTS_PER_PARTITION` documents."""
    parallel = 2 * int(spark.sparkContext.defaultParallelism)
    return min(1 << 20, max(2, parallel, -(-documents // DOCUMENTS_PER_PARTITION)))


def _checked_partitions(partitions: int) -> int:
    check_int(partitions, "partitions")
    if not 1 <= partitions <= 1 << 20:
        raise SamecodeValueError(f"partitions must be from 1 to {1 << 20}; got {partitions}")
    return partitions


def _check_options(options: ScanOptions | None) -> ScanOptions:
    options = options or ScanOptions()
    if not isinstance(options, ScanOptions):
        raise SamecodeTypeError(f"options must be ScanOptions; got {describe(options)}")
    return options


def scan_files(
    roots: Sequence[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    *,
    master: str | None = None,
    partitions: int | None = None,
    driver_memory: str | None = None,
) -> SparkScan:
    """:func:`~samecode.scan.pipeline.scan` on Spark: the roots walked here (by the same
    rules), the files read and everything after done by the executors (which must see
    the same paths: a shared file system, or ``local[N]``).

    :param roots: files and folders.
    :param options: what to compare and how (``jobs`` and ``batch_size`` do not apply).
    :param master: the Spark master (:func:`~samecode.spark.session.master_of`).
    :param partitions: partitions of every stage (default: twice the default parallelism,
        and at least one per :data:`DOCUMENTS_PER_PARTITION` files).
    :param driver_memory: the driver's heap if this starts Spark
        (:func:`~samecode.spark.session.session`).
    :raises TypeError, ValueError: for bad roots, options or ``driver_memory``.

    Runtime complexity: the walk here, ``O(number of files)``; then :func:`scan_documents`.
    """
    options = _check_options(options)
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    asked = None if partitions is None else _checked_partitions(partitions)  # before the walk
    spark = session(master, driver_memory=driver_memory)
    paths, walk_skipped = discover([os.fspath(r) for r in roots], options.walk)
    parts = _chosen_partitions(spark, len(paths)) if asked is None else asked
    args = (options.shingling, options.walk.max_size, options.walk.min_tokens)

    def read(numbered: Iterable[tuple[int, str]]) -> Iterator[_Read]:
        for places in batches(numbered, _READ_BATCH):
            found = read_documents([path for _, path in places], *args)
            yield from zip((place for place, _ in places), found)

    numbered = list(enumerate(paths, len(walk_skipped)))
    read_rdd = spark.sparkContext.parallelize(numbered, max(1, min(parts, len(paths))))
    walked = spark.sparkContext.parallelize(list(enumerate(walk_skipped)), 1)
    return scan_documents(read_rdd.mapPartitions(read).union(walked), options, parts)


def scan_dataframe(
    frame: Any,
    options: ScanOptions | None = None,
    *,
    path: str = "path",
    content: str = "content",
    partitions: int | None = None,
) -> SparkScan:
    """The near-copies among the rows of a DataFrame: each row a document named by its
    ``path`` column (unique; any string: a file's path, a URL, a key) with its
    ``content`` (a string, taken as its UTF-8 bytes, or binary), read by the text policy
    of files (:func:`~samecode.scan.pipeline.read_contents`).

    :param frame: a :class:`pyspark.sql.DataFrame`.
    :param options: what to compare and how (``jobs``, ``batch_size`` and the walk's
        options do not apply).
    :param partitions: partitions of every stage (default: twice the default parallelism,
        and at least one per :data:`DOCUMENTS_PER_PARTITION` rows, the rows counted first;
        an input of fewer partitions is then spread over that many before it is read,
        since reading is most of the work).
    :raises TypeError: for columns of other types; ``ValueError`` for a missing column,
        a null path or a path given twice.

    >>> from samecode.spark.session import session
    >>> spark = session("local[2]")
    >>> body = " ".join(f"word{i} = {i}" for i in range(40))
    >>> rows = [("x", body), ("y", body + " extra"), ("z", "something else " * 9)]
    >>> frame = spark.createDataFrame(rows, "path string, content string")
    >>> found = scan_dataframe(frame, partitions=3)
    >>> [(row.a, row.b) for row in found.pairs.collect()]
    [('x', 'y')]
    >>> sorted((r.path, r.keep, r.duplicate_of) for r in found.decisions.collect())
    [('x', False, 'y'), ('y', True, None), ('z', True, None)]

    Runtime complexity: :func:`scan_documents` after one pass over the rows (two, counting
    them, where ``partitions`` is not given; three if they are spread).
    """
    options = _check_options(options)
    from pyspark.sql import functions
    from pyspark.sql.types import BinaryType, StringType

    fields = {f.name: f.dataType for f in frame.schema.fields}
    for name, allowed in ((path, (StringType,)), (content, (StringType, BinaryType))):
        if name not in fields:
            raise SamecodeValueError(
                f"the DataFrame has no column {name!r}; it has {', '.join(sorted(fields))}"
            )
        if not isinstance(fields[name], allowed):
            raise SamecodeTypeError(
                f"column {name!r} must be of type "
                f"{' or '.join(a.typeName() for a in allowed)}; got {fields[name].simpleString()}"
            )
    if frame.filter(functions.col(path).isNull()).limit(1).count():
        raise SamecodeValueError(f"column {path!r} must name every row; it holds a null")
    rows = frame.select(path, content).rdd
    if partitions is None:
        parts = _chosen_partitions(frame.sparkSession, frame.count())
        if rows.getNumPartitions() < parts:
            rows = rows.repartition(parts)
    else:
        parts = _checked_partitions(partitions)
    args = (options.shingling, options.walk.max_size, options.walk.min_tokens)

    def read(rows: Iterable[Any]) -> Iterator[_Read]:
        # A batch at a time: a task holds one batch's contents, whatever its partition's.
        for batch in batches(rows, _READ_BATCH):
            for item in read_contents([(row[0], row[1]) for row in batch], *args):
                yield 0, item

    return scan_documents(rows.mapPartitions(read), options, parts)


# -- the job ----------------------------------------------------------------------------


def _bucket(document: Document) -> tuple[tuple[int, int], Document]:
    # Identical sets have one size and one sum, whatever the order of their shingles.
    shingles = document.shingles
    return (len(shingles), sum(shingles)), document


def _representatives(item: tuple[tuple[int, int], Iterable[Document]]) -> Iterator[Any]:
    """One representative per identical set of a bucket: ``(id, shingles, paths)``."""
    documents = sorted(item[1], key=lambda d: d.path)
    _, groups = distinct_sets([d.shingles for d in documents])
    for positions in groups:
        first = documents[positions[0]]
        yield path_id(first.path), first.shingles, tuple(documents[p].path for p in positions)


def _clashes(item: tuple[int, Iterable[str]]) -> bool:
    return len(list(item[1])) > 1


def scan_documents(read: Any, options: ScanOptions, partitions: int) -> SparkScan:
    """The job over documents already read: an RDD of ``(place, Document or Skipped)``
    (``place`` orders the skipped list); see the module's description for the stages.

    :param read: the RDD.
    :param options: what to compare and how.
    :param partitions: partitions of every stage.
    :raises ValueError: for ``partitions`` out of 1 to 2**20; if two documents have one
        path (or, once in about 2**64 / n**2 jobs of ``n`` paths, two paths share an id).

    >>> from samecode.scan.pipeline import read_contents
    >>> from samecode.spark.session import session
    >>> options = ScanOptions()
    >>> body = " ".join(f"n{i}" for i in range(30))
    >>> read = read_contents([("p", body), ("q", body + " n99")], options.shingling, None, 10)
    >>> rdd = session("local[2]").sparkContext.parallelize(list(enumerate(read)), 2)
    >>> [(r.a, r.b, r.shared, r.a_shingles, r.b_shingles)
    ...  for r in scan_documents(rdd, options, 2).pairs.collect()]
    [('p', 'q', 26, 26, 27)]

    Runtime complexity: the single machine's (:func:`~samecode.scan.pipeline.run_pipeline`)
    spread over the tasks, plus the shuffles the module lists and ``O(log(r)**2)`` rounds
    of the classes' components over the ``r`` representatives that are in pairs.
    """
    options = _check_options(options)
    parts = _checked_partitions(partitions)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    context = spark.sparkContext
    before = context.getLocalProperty(_DESCRIPTION)
    try:
        return _job(spark, read, options, parts)
    finally:
        context.setJobDescription(before)  # type: ignore[arg-type,unused-ignore]  # None: no name


# The property that names a job in Spark's UI and event log.
_DESCRIPTION = "spark.job.description"


def _stage(context: Any, name: str) -> None:
    """Name the jobs that follow ``samecode: <name>`` (in Spark's UI and event log)."""
    context.setJobDescription(f"samecode: {name}")


def _job(spark: Any, read: Any, options: ScanOptions, parts: int) -> SparkScan:
    context = spark.sparkContext
    threshold = options.exact_threshold
    measure: Measure = options.measure  # type: ignore[assignment]
    chosen = options.chosen_method

    held: list[Any] = []
    _stage(context, "read")
    read = _hold(held, read)
    documents = read.filter(lambda item: isinstance(item[1], Document)).values()
    skipped = read.filter(lambda item: isinstance(item[1], Skipped))
    compared = documents.count()

    _stage(context, "unique paths")
    clash = (
        documents.map(lambda d: (path_id(d.path), d.path))
        .groupByKey(parts)
        .filter(_clashes)
        .take(1)
    )
    if clash:
        twice = sorted(clash[0][1])
        if twice[0] == twice[1]:
            raise SamecodeValueError(f"every document needs its own path; got {twice[0]!r} twice")
        raise SamecodeValueError(  # pragma: no cover - a 64-bit collision
            f"paths {twice[0]!r} and {twice[1]!r} share an id; rename one"
        )

    _stage(context, "identical sets")
    reps = _hold(held, documents.map(_bucket).groupByKey(parts).flatMap(_representatives))
    count = reps.count()
    stats = {"partitions": parts, "representatives": count}

    proposer = method("exact") if chosen.reports_all else chosen
    counts = None
    if proposer.needs_counts:
        _stage(context, "count")
        total = int(reps.map(lambda r: len(r[1])).sum())
        bits = ShingleCounts.for_total(total).bits
        counts = (
            reps.mapPartitions(
                lambda rows: [count_shingles([r[1] for r in rows], bits)]
            ).treeReduce(lambda a, b: a.merge(b))
            if count
            else ShingleCounts(bits)
        )
    prepared = proposer.prepare(threshold, measure, counts=counts, documents=count)
    noting = chosen.prepare(threshold, measure, documents=count) if chosen.reports_all else None
    shared_method = _hold(held, _Shared(context, prepared))

    candidates = _candidates(reps, shared_method, prepared, parts, stats, held)
    shared_noting = _hold(held, _Shared(context, noting))
    _stage(context, "verify")
    verified = _hold(held, _verified(reps, candidates, shared_noting, options, parts))
    stats["verified"] = verified.count()

    members = reps.map(lambda r: (r[0], (r[2], len(r[1]))))
    copies = tuple(noting.copy_notes().items()) if noting is not None else ()
    pairs = _hold(held, _pairs(verified, members, reps, copies, parts))
    _stage(context, "classes")
    classes = _classes(verified, members, pairs, options.chaining, parts, held)
    numbered = classes.sortBy(_class_order, numPartitions=parts).zipWithIndex()
    class_rows = _hold(
        held,
        numbered.map(
            lambda item: (
                item[1] + 1,
                list(item[0].members),
                item[0].representative,
                len(item[0].members),
                item[0].min_jaccard,
                item[0].max_jaccard,
                item[0].link_jaccard,
            )
        ),
    )
    decisions = (
        documents.map(lambda d: (d.path, None))
        .leftOuterJoin(class_rows.flatMap(_memberships), parts)
        .map(_decision)
    )
    return SparkScan(
        pairs=spark.createDataFrame(pairs, PAIR_SCHEMA),
        classes=spark.createDataFrame(class_rows, CLASS_SCHEMA),
        decisions=spark.createDataFrame(decisions, DECISION_SCHEMA),
        skipped=spark.createDataFrame(
            skipped.map(lambda item: (item[1].path, item[1].reason)), SKIPPED_SCHEMA
        ),
        compared=compared,
        stats=stats,
        _skipped_order=skipped,
        _held=held,
    )


class _Shared:
    """A value sent once to every executor (a broadcast), pickled by cloudpickle, so that
    a method defined in the driver's script travels by value like the tasks' functions."""

    def __init__(self, context: Any, value: Any) -> None:
        from pyspark import cloudpickle

        self._broadcast = context.broadcast(cloudpickle.dumps(value))  # type: ignore[no-untyped-call,unused-ignore]

    @property
    def value(self) -> Any:
        from pyspark import cloudpickle

        return cloudpickle.loads(self._broadcast.value)

    def unpersist(self) -> None:
        """Drop the executors' copies (sent again if a task needs it)."""
        self._broadcast.unpersist()


def _hold(held: list[Any], kept: Any) -> Any:
    """``kept`` (an RDD, persisted here, or a :class:`_Shared`), listed for
    :meth:`SparkScan.release`. An RDD is kept on the executors' disks (its blocks
    streamed back, the operating system's cache serving as their memory): a Python RDD's
    blocks are bytes in the JVM's heap, which a block as large as a partition (of an
    input with few) can exhaust when it is read back whole, as ``MEMORY_AND_DISK``
    does."""
    if not isinstance(kept, _Shared):
        from pyspark import StorageLevel

        kept.persist(StorageLevel.DISK_ONLY)
    held.append(kept)
    return kept


def _candidates(
    reps: Any,
    shared_method: _Shared,
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

    _stage(reps.context, "key and group")
    keyed = _hold(held, reps.mapPartitions(key))
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

    work = _hold(held, records.groupByKey(parts).mapPartitionsWithIndex(units))
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
    _stage(reps.context, "propose")
    candidates = _hold(held, candidates)
    stats["candidates"] = candidates.count()
    return candidates


def _needs(item: tuple[int, Any]) -> Iterator[tuple[int, int]]:
    place, (_, _, first, second) = item
    for members in (first, second or ()):
        for doc, _ in members:
            yield doc, place


def _verified(
    reps: Any, candidates: Any, shared_noting: _Shared, options: ScanOptions, parts: int
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


def _pairs(
    verified: Any, members: Any, reps: Any, copies: tuple[tuple[str, Any], ...], parts: int
) -> Any:
    """The pairs' rows: each verified pair of representatives for every two members of
    their identical sets, and the pairs inside each set."""

    def expand(item: Any) -> Iterator[tuple[Any, ...]]:
        _, ((found, (first, _)), (second, _)) = item
        _, _, shared, size_a, size_b, notes = found
        for a in first:
            for b in second:
                yield _row(Pair.ordered(a, size_a, b, size_b, shared, notes))

    def inside(rep: Any) -> Iterator[tuple[Any, ...]]:
        size = len(rep[1])
        for a, b in combinations(rep[2], 2):
            yield _row(Pair.ordered(a, size, b, size, size, copies))

    across = (
        verified.map(lambda v: (v[0], v))
        .join(members, parts)
        .map(lambda item: (item[1][0][1], item[1]))
        .join(members, parts)
        .flatMap(expand)
    )
    return across.union(reps.filter(lambda r: len(r[2]) > 1).flatMap(inside))


def _classes(
    verified: Any, members: Any, pairs: Any, chaining: str, parts: int, held: list[Any]
) -> Any:
    """The clone classes (unnumbered): the components of the representatives' pairs (an
    identical set in no pair is one of its own), each made into classes by the one
    machine's :func:`~samecode.scan.classes.clone_classes` over its pairs."""
    labels = _hold(held, connected_components(verified.map(lambda v: (v[0], v[1])), parts))
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


def _class_order(clone: CloneClass) -> tuple[int, str]:
    return -len(clone.members), clone.members[0]


def _memberships(row: tuple[Any, ...]) -> Iterator[tuple[str, tuple[int, str]]]:
    for member in row[1]:
        yield member, (row[0], row[2])


def _decision(item: tuple[str, tuple[None, tuple[int, str] | None]]) -> tuple[Any, ...]:
    path, (_, found) = item
    if found is None:
        return path, True, None, None
    number, representative = found
    keep = path == representative
    return path, keep, None if keep else representative, number
