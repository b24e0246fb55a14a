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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from samecode._validation import batches, check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.candidates import method
from samecode.scan.join import ShingleCounts, distinct_sets
from samecode.scan.model import CloneClass, Document, Pair
from samecode.scan.pipeline import (
    ScanOptions,
    count_shingles,
    read_contents,
    read_documents,
)
from samecode.similarity import Measure
from samecode.sources.skipped import Skipped
from samecode.sources.walk import discover
from samecode.spark._stages import (
    JOB_DESCRIPTION,
    Shared,
    class_order,
    decision,
    find_candidates,
    find_classes,
    hold,
    memberships,
    name_stage,
    pair_rows,
    verify_candidates,
)
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
    before = context.getLocalProperty(JOB_DESCRIPTION)
    try:
        return _job(spark, read, options, parts)
    finally:
        context.setJobDescription(before)  # type: ignore[arg-type,unused-ignore]  # None: no name


def _job(spark: Any, read: Any, options: ScanOptions, parts: int) -> SparkScan:
    context = spark.sparkContext
    threshold = options.exact_threshold
    measure: Measure = options.measure  # type: ignore[assignment]
    chosen = options.chosen_method

    held: list[Any] = []
    name_stage(context, "read")
    read = hold(held, read)
    documents = read.filter(lambda item: isinstance(item[1], Document)).values()
    skipped = read.filter(lambda item: isinstance(item[1], Skipped))
    compared = documents.count()

    name_stage(context, "unique paths")
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

    name_stage(context, "identical sets")
    reps = hold(held, documents.map(_bucket).groupByKey(parts).flatMap(_representatives))
    count = reps.count()
    stats = {"partitions": parts, "representatives": count}

    proposer = method("exact") if chosen.reports_all else chosen
    counts = None
    if proposer.needs_counts:
        name_stage(context, "count")
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
    shared_method = hold(held, Shared(context, prepared))

    candidates = find_candidates(reps, shared_method, prepared, parts, stats, held)
    shared_noting = hold(held, Shared(context, noting))
    name_stage(context, "verify")
    verified = hold(held, verify_candidates(reps, candidates, shared_noting, options, parts))
    stats["verified"] = verified.count()

    members = reps.map(lambda r: (r[0], (r[2], len(r[1]))))
    copies = tuple(noting.copy_notes().items()) if noting is not None else ()
    pairs = hold(held, pair_rows(verified, members, reps, copies, parts))
    name_stage(context, "classes")
    classes = find_classes(verified, members, pairs, options.chaining, parts, held)
    numbered = classes.sortBy(class_order, numPartitions=parts).zipWithIndex()
    class_rows = hold(
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
        .leftOuterJoin(class_rows.flatMap(memberships), parts)
        .map(decision)
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
