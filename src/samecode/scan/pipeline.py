"""The main job: which files of a tree are near-copies of each other, by exact similarity.

One keyed pipeline, each stage a plain, picklable function over a batch, with no global
state, so this process, a process pool (:mod:`samecode.engine`) and Spark run the
same code:

    paths -> :func:`read_documents` (bytes -> text -> tokens -> distinct shingles)
    -> identical sets grouped (one representative each)
    -> :func:`count_shingles` (per batch; counts merged) -> the method prepared
    -> :func:`key_documents` (per document: keys, sent to partitions by key)
    -> :func:`propose_partition` (per partition: each key's group proposes its pairs)
    -> :func:`verify_pairs` (exact intersections) -> :class:`~samecode.scan.model.Pair`
    -> :func:`~samecode.scan.classes.clone_classes` -> a report.

:func:`join_sets` drives the four stages from count to verify (a corpus's match runs it
too).

:func:`run_pipeline` drives the stages on an :class:`~samecode.engine.Engine`;
:func:`scan` walks the roots and runs it. Every stage's result is merged in the order of
its tasks and the pairs are sorted, so the output is the same, byte for byte, for any
number of jobs and any batch size.

Similarity is the one :mod:`samecode.similarity` defines (the Jaccard index of two
files' sets of 5-token shingles by default); every pair reported carries the exact counts
it was computed from, and sketches only ever propose candidates.

>>> import pathlib, re, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> body = "\\n".join(f"def f{i}(x):\\n    return x * {i} + {i * i}" for i in range(30))
>>> edited = body.replace("f7(x)", "g7(x)")
>>> _ = (root / "a.py").write_text(body)
>>> _ = (root / "b.py").write_text(edited)
>>> _ = (root / "c.py").write_text("print('something else entirely, and long enough')")
>>> result = scan([str(root)], ScanOptions(walk=WalkOptions(gitignore=False)))
>>> [(pathlib.Path(p.a).name, pathlib.Path(p.b).name) for p in result.pairs]
[('a.py', 'b.py')]

The reported value is the documented similarity, computed here from its definition:

>>> def shingles(text):
...     tokens = re.findall(r"\\w+|[^\\w\\s]", text)
...     return {tuple(tokens[i : i + 5]) for i in range(len(tokens) - 4)}
>>> a, b = shingles(body), shingles(edited)
>>> result.pairs[0].jaccard == len(a & b) / len(a | b)
True
>>> [len(c.members) for c in result.classes], len(result.documents)
([2], 3)
"""

from __future__ import annotations

import os
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeAlias

from samecode._validation import check_int, describe
from samecode.engine import (
    Engine,
    Progress,
    RunOptions,
    Serial,
    paused_collection,
    progress_counter,
)
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.candidates import Keyed, Method, method
from samecode.scan.classes import CHAINING, clone_classes
from samecode.scan.join import ShingleCounts, by_larger_set, distinct_sets, verify
from samecode.scan.model import CloneClass, Document, Pair, pairs_across, pairs_within
from samecode.similarity import MEASURES, Measure, exact_threshold
from samecode.sources.reading import Text, decode_text, read_text
from samecode.sources.skipped import Skipped, SkipReason, too_few_tokens
from samecode.sources.walk import WalkOptions, discover
from samecode.text.shingling import Shingling

__all__ = [
    "ScanOptions",
    "ScanResult",
    "compare",
    "count_shingles",
    "document_of",
    "join_sets",
    "key_documents",
    "propose_partition",
    "read_all",
    "read_batches",
    "read_contents",
    "read_documents",
    "run_pipeline",
    "scan",
    "verify_pairs",
]

#: Shingles a task of a process pool carries at most (8 bytes each), and shingles of the
#: documents whose keys one partition holds: what bounds a worker's memory.
_TASK_SHINGLES = 1 << 24
_PARTITION_SHINGLES = 1 << 25

#: Records of one partition: every key, the id of its document and where the key is in
#: the document's keys, as three parallel arrays.
Records: TypeAlias = "tuple[array[int], array[int], array[int]]"


@dataclass(frozen=True)
class ScanOptions:
    """What :func:`scan` compares and how.

    :param threshold: the similarity a pair must reach, above 0 and at most 1 (a float
        or a decimal string, taken exactly: ``0.8`` means 4/5).
    :param measure: ``"jaccard"``, or ``"containment"`` (the larger of ``shared/|A|`` and
        ``shared/|B|``).
    :param method: a :class:`~samecode.scan.candidates.Method`, or the name of a built-in
        one (:func:`~samecode.scan.candidates.method_names`).
    :param shingling: the rules of the similarity (:class:`~samecode.text.shingling.Shingling`).
    :param walk: which files are read (:class:`~samecode.sources.walk.WalkOptions`).
    :param run: how many processes run the stages, and the batch size
        (:class:`~samecode.engine.RunOptions`); the output is the same for any.
    :param num_perm: signature values per file for the ``minhash`` method.
    :param lsh_threshold: the LSH threshold of the ``minhash`` method (by default 0.2 below
        ``threshold``).
    :param chaining: how pairs make clone classes: ``"linked"`` (every chain of pairs) or
        ``"star"`` (every member pairs with its representative; :mod:`samecode.scan.classes`).
    :raises TypeError, ValueError: for a bad option, at construction.
    """

    threshold: Fraction | float | str = Fraction(4, 5)
    measure: str = "jaccard"
    method: str | Method = "exact"
    shingling: Shingling = field(default_factory=Shingling)
    walk: WalkOptions = field(default_factory=WalkOptions)
    run: RunOptions = field(default_factory=RunOptions)
    num_perm: int = 128
    lsh_threshold: float | None = None
    chaining: str = "linked"

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", exact_threshold(self.threshold))
        if self.measure not in MEASURES:
            raise SamecodeValueError(
                f"measure must be one of {', '.join(MEASURES)}; got {self.measure!r}"
            )
        chosen = method(self.method)
        if self.measure not in chosen.measures:
            raise SamecodeValueError(
                f"method {chosen.name!r} proposes pairs for {', '.join(chosen.measures)} only; "
                f"got measure {self.measure!r}"
            )
        for name, kind in (("shingling", Shingling), ("walk", WalkOptions), ("run", RunOptions)):
            if not isinstance(getattr(self, name), kind):
                raise SamecodeTypeError(
                    f"{name} must be a {kind.__name__}; got {describe(getattr(self, name))}"
                )
        check_int(self.num_perm, "num_perm")
        if not 2 <= self.num_perm <= 1 << 16:
            raise SamecodeValueError(f"num_perm must be from 2 to 65536; got {self.num_perm}")
        if self.lsh_threshold is not None:
            if isinstance(self.lsh_threshold, bool) or not isinstance(
                self.lsh_threshold, (int, float, Fraction)
            ):
                raise SamecodeTypeError(
                    f"lsh_threshold must be a number; got {describe(self.lsh_threshold)}"
                )
            if not 0 < self.lsh_threshold <= 1:
                raise SamecodeValueError(
                    f"lsh_threshold must be above 0 and at most 1; got {self.lsh_threshold}"
                )
            object.__setattr__(self, "lsh_threshold", float(self.lsh_threshold))
        # A method's settings that cannot work (one LSH band, say) fail here, not after
        # every file has been read.
        chosen.configured(num_perm=self.num_perm, lsh_threshold=self.lsh_threshold).parameters(
            self.exact_threshold
        )
        if self.chaining not in CHAINING:
            raise SamecodeValueError(
                f"chaining must be one of {', '.join(CHAINING)}; got {self.chaining!r}"
            )

    @property
    def exact_threshold(self) -> Fraction:
        """The threshold as the exact fraction the comparisons use."""
        return exact_threshold(self.threshold)

    @property
    def method_name(self) -> str:
        """The name of the method, for reports."""
        return method(self.method).name

    @property
    def chosen_method(self) -> Method:
        """The method, configured with :attr:`num_perm` and :attr:`lsh_threshold`."""
        return method(self.method).configured(
            num_perm=self.num_perm, lsh_threshold=self.lsh_threshold
        )


@dataclass
class ScanResult:
    """What :func:`scan` found: the files compared (in the order found), those skipped
    and why, the pairs (sorted by paths) and the clone classes (largest first)."""

    options: ScanOptions
    documents: list[Document]
    skipped: list[Skipped]
    pairs: list[Pair]
    classes: list[CloneClass]
    seconds: float = 0.0

    @property
    def compared(self) -> int:
        """How many files were compared (:class:`~samecode.scan.model.Findings`)."""
        return len(self.documents)


# -- stages: each a plain function of its arguments, over one batch ----------------------


def read_documents(
    paths: Sequence[str], shingling: Shingling, max_size: int | None, min_tokens: int
) -> list[Document | Skipped]:
    """Read and shingle a batch of files: a :class:`Document` per file, or why it was
    skipped (as :func:`samecode.sources.reading.read_text`, or ``empty``, or ``too few
    tokens``)."""
    out: list[Document | Skipped] = []
    for path in paths:
        text = read_text(path, max_size)
        out.append(text if isinstance(text, Skipped) else document_of(text, shingling, min_tokens))
    return out


def read_contents(
    items: Sequence[tuple[str, bytes | str | None]],
    shingling: Shingling,
    max_size: int | None,
    min_tokens: int,
) -> list[Document | Skipped]:
    """:func:`read_documents` for contents already read: ``(path, bytes or text)`` pairs
    (a text is taken as its UTF-8 bytes), each by the same policy as a file of those
    bytes; ``None`` is skipped as ``no content``.

    >>> body = " ".join(f"w{i}" for i in range(20))
    >>> [type(d).__name__ for d in read_contents([("a", body), ("b", None)], Shingling(), None, 10)]
    ['Document', 'Skipped']
    """
    out: list[Document | Skipped] = []
    for path, content in items:
        if content is None:
            out.append(Skipped(path, SkipReason.NO_CONTENT))
            continue
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
        if max_size is not None and len(data) > max_size:
            out.append(Skipped(path, SkipReason.TOO_LARGE))
            continue
        text = decode_text(path, bytes(data))
        out.append(text if isinstance(text, Skipped) else document_of(text, shingling, min_tokens))
    return out


def document_of(text: Text, shingling: Shingling, min_tokens: int) -> Document | Skipped:
    """A text shingled: its :class:`Document`, or ``empty`` or ``too few tokens``."""
    tokens, shingles = shingling.measure(text.text, text.path)
    short = too_few_tokens(text.path, tokens, min_tokens)
    if short is not None:
        return short
    return Document(text.path, text.size, text.sha256, tokens, shingles)


def count_shingles(sets: Sequence[array[int]], bits: int) -> ShingleCounts:
    """The :class:`~samecode.scan.join.ShingleCounts` of a batch of sets (merge the
    batches' counts for the whole job's)."""
    counts = ShingleCounts(bits)
    for shingles in sets:
        counts.add(shingles)
    return counts


def _partition(key: int, partitions: int) -> int:
    # Keys are well-mixed hashes: their low bits spread them evenly.
    return key % partitions


def key_documents(
    prepared: Method, items: Sequence[tuple[int, array[int]]], partitions: int
) -> tuple[list[tuple[int, Keyed]], list[Records]]:
    """Key a batch of documents ``(id, shingles)`` with a prepared method: each
    document's :meth:`~samecode.scan.candidates.Method.keys`, and the records of every
    key, split into ``partitions`` by key.

    :raises ValueError: for a key that is not an int from 0 to ``2**64 - 1``.
    """
    keyed: list[tuple[int, Keyed]] = []
    parts: list[Records] = [(array("Q"), array("q"), array("q")) for _ in range(partitions)]
    for doc, shingles in items:
        entry = prepared.keys(shingles)
        keyed.append((doc, entry))
        keys = entry[0]
        try:
            _records(doc, keys, parts)
        except (OverflowError, TypeError):
            raise SamecodeValueError(
                f"the keys of method {prepared.name!r} must be ints from 0 to 2**64 - 1;"
                f" got {describe(next(k for k in keys if not _is_key(k)))}"
            ) from None
    return keyed, parts


def _records(doc: int, keys: Sequence[int], parts: list[Records]) -> None:
    """Append a document's records to the partitions of its keys."""
    partitions = len(parts)
    spread: dict[int, Sequence[int]] = {0: range(len(keys))} if keys else {}
    if partitions > 1:
        lists: dict[int, list[int]] = {}
        for index, key in enumerate(keys):
            lists.setdefault(_partition(key, partitions), []).append(index)
        spread = dict(lists)
    for number, indexes in spread.items():
        part = parts[number]
        part[0].extend(map(keys.__getitem__, indexes))
        part[1].extend(array("q", [doc]) * len(indexes))
        part[2].extend(indexes)


def _is_key(key: object) -> bool:
    return isinstance(key, int) and 0 <= key < 1 << 64


def propose_partition(
    prepared: Method, records: Records, table: Mapping[int, Keyed]
) -> list[tuple[int, int]]:
    """The candidate pairs of one partition: its records grouped by key, and each group
    (split into blocks of :attr:`~samecode.scan.candidates.Method.block` when larger)
    asked for its pairs (each pair is proposed by one group only)."""
    groups: dict[int, array[int]] = {}
    keys, docs, indexes = records
    lookup = groups.get
    for key, doc, index in zip(keys, docs, indexes):
        group = lookup(key)
        if group is None:
            groups[key] = array("q", (doc, index))
        else:
            group.extend((doc, index))
    block = prepared.block
    found: list[tuple[int, int]] = []
    if block is not None:
        oversized = sorted(key for key, flat in groups.items() if len(flat) > 2 * block)
        cache: dict[int, frozenset[int]] = {}
        for key in oversized:
            flat = groups.pop(key)
            members: list[tuple[int, int]] = sorted(zip(flat[::2], flat[1::2]))
            blocks = [members[i : i + block] for i in range(0, len(members), block)]
            for i, first in enumerate(blocks):
                found += prepared.propose(first, table, None, cache)
                for second in blocks[i + 1 :]:
                    found += prepared.propose(first, table, second, cache)
    return found + prepared.propose_groups(groups, table)


def verify_pairs(
    pairs: Sequence[tuple[int, int]],
    sets: Mapping[int, array[int]],
    threshold: Fraction,
    measure: Measure,
) -> list[tuple[int, int, int]]:
    """``(a, b, shared)`` for each candidate pair of a batch that reaches ``threshold``,
    from the exact intersection of the two sets (``sets`` holds every set the batch
    names)."""
    return verify(sets, pairs, threshold, measure)


# -- the driver --------------------------------------------------------------------------
#
# Each stage's tasks name documents by id; the sets (and the prepared method, the keys)
# are shared with every task (Engine.map_shared: a pool's workers inherit them), so that
# only the ids go out and only the results come back.


def _count_some(sets: Mapping[int, array[int]], ids: Sequence[int], bits: int) -> ShingleCounts:
    return count_shingles([sets[d] for d in ids], bits)


def _key_some(
    shared: tuple[Method, Mapping[int, array[int]]], ids: Sequence[int], partitions: int
) -> tuple[list[tuple[int, Keyed]], list[Records]]:
    prepared, sets = shared
    return key_documents(prepared, [(d, sets[d]) for d in ids], partitions)


def _propose_one(
    shared: tuple[Method, Sequence[Records], Mapping[int, Keyed]], number: int
) -> list[tuple[int, int]]:
    prepared, records, table = shared
    return propose_partition(prepared, records[number], table)


def _verify_some(
    sets: Mapping[int, array[int]],
    pairs: Sequence[tuple[int, int]],
    threshold: Fraction,
    measure: Measure,
) -> list[tuple[int, int, int]]:
    return verify_pairs(pairs, sets, threshold, measure)


def _parts(engine: Engine, shingles: int, bound: int, per_worker: int = 1) -> int:
    """How many tasks to cut a stage's ``shingles`` into on ``engine``: ``per_worker``
    per worker, and at most ``bound`` shingles each where there are several processes
    (this process holds everything anyway)."""
    if engine.workers == 1:
        return 1
    return max(per_worker * engine.workers, -(-shingles // bound))


def _balanced(items: Sequence[Any], weights: Sequence[int], parts: int) -> list[Sequence[Any]]:
    """``items`` cut into at most ``parts`` runs of about equal total weight."""
    total = sum(weights)
    if parts <= 1 or len(items) <= 1 or total == 0:
        return [items] if items else []
    out: list[Sequence[Any]] = []
    start, running = 0, 0
    for position, weight in enumerate(weights):
        running += weight
        if running * parts >= total * (len(out) + 1) and len(out) < parts - 1:
            out.append(items[start : position + 1])
            start = position + 1
    if start < len(items):
        out.append(items[start:])
    return out


def join_sets(
    sets: Mapping[int, array[int]],
    threshold: Fraction,
    measure: Measure,
    chosen: Method,
    engine: Engine | None = None,
    progress: Progress | None = None,
    keep: Callable[[int, int], bool] | None = None,
) -> list[tuple[int, int, int]]:
    """``(a, b, shared)``, sorted, for every pair of distinct sets (by id, ``a < b``)
    that ``chosen`` proposes and that reaches ``threshold``: the keyed stages (count,
    key, join, verify) on ``engine`` (this process by default).

    :param sets: distinct shingle sets (``array("Q")``), by id.
    :param chosen: the method that proposes the candidates (not yet prepared).
    :param keep: which candidate pairs to verify (all by default): a join of two sides
        keeps the pairs across them.

    >>> sets = {1: array("Q", [1, 2, 3, 4, 5]), 2: array("Q", [1, 2, 3, 4, 6])}
    >>> sets[3] = array("Q", [7, 8])
    >>> join_sets(sets, Fraction(3, 5), "jaccard", method("exact"))
    [(1, 2, 4)]

    Runtime complexity: ``O(N)`` to count the ``N`` shingles, the method's keys and groups
    (for ``exact``: ``O(p)`` per set of prefix ``p``, a look-up per key a set can pair by,
    and per group of ``g`` at most ``g**2 / 2`` pair steps in C), ``O(|b|)`` per candidate
    kept. Memory: the keys of every set and the candidates.
    """
    engine = engine or Serial()
    ids = sorted(sets)
    weights = [len(sets[doc]) for doc in ids]
    total = sum(weights)
    # Tasks cut where the shingles split evenly: two per worker (one may finish early),
    # or more where that bounds what each process holds at once; their number never
    # changes the answer.
    batches = _balanced(ids, weights, _parts(engine, total, _TASK_SHINGLES, 2))
    counts = _count_stage(engine, sets, batches, total, progress) if chosen.needs_counts else None
    prepared = chosen.prepare(threshold, measure, counts=counts, documents=len(ids))
    partitions = _parts(engine, total, _PARTITION_SHINGLES)
    table, records = _key_stage(engine, prepared, sets, batches, partitions, progress)
    candidates = _join_stage(engine, prepared, records, table, partitions, keep, progress)
    del table, records
    return _verify_stage(engine, sets, candidates, threshold, measure, progress)


def _count_stage(
    engine: Engine,
    sets: Mapping[int, array[int]],
    batches: list[Sequence[int]],
    total: int,
    progress: Progress | None,
) -> ShingleCounts:
    """The count stage: how many sets hold each shingle, counted per batch and merged."""
    bits = ShingleCounts.for_total(total).bits
    tick = progress_counter(progress, "count", sum(map(len, batches)))
    counts = None
    for number, part in enumerate(
        engine.map_shared(_count_some, sets, [(b, bits) for b in batches])
    ):
        counts = part if counts is None else counts.merge(part)
        tick(len(batches[number]))
    return ShingleCounts(bits) if counts is None else counts


def _key_stage(
    engine: Engine,
    prepared: Method,
    sets: Mapping[int, array[int]],
    batches: list[Sequence[int]],
    partitions: int,
    progress: Progress | None,
) -> tuple[dict[int, Keyed], list[Records]]:
    """The key stage: each set's keys, sent to the partition of each key; the batches'
    records merged in the order of the batches."""
    table: dict[int, Keyed] = {}
    records: list[Records] = []
    tick = progress_counter(progress, "key", sum(map(len, batches)))
    key_tasks = [(b, partitions) for b in batches]
    for number, (keyed, parts) in enumerate(
        engine.map_shared(_key_some, (prepared, sets), key_tasks)
    ):
        table.update(keyed)
        if not records:
            records = parts  # the first batch's arrays, extended by the others'
        else:
            for mine, theirs in zip(records, parts):
                for column, more in zip(mine, theirs):
                    column.extend(more)
        tick(len(batches[number]))
    records = records or [(array("Q"), array("q"), array("q")) for _ in range(partitions)]
    return table, records


def _join_stage(
    engine: Engine,
    prepared: Method,
    records: list[Records],
    table: dict[int, Keyed],
    partitions: int,
    keep: Callable[[int, int], bool] | None,
    progress: Progress | None,
) -> list[tuple[int, int]]:
    """The join stage: each partition's groups of keys propose their pairs; those
    ``keep`` keeps, sorted."""
    tick = progress_counter(progress, "join", partitions)
    candidates: list[tuple[int, int]] = []
    proposing = (prepared, records, table)
    for found in engine.map_shared(_propose_one, proposing, [(n,) for n in range(partitions)]):
        candidates += found if keep is None else [pair for pair in found if keep(*pair)]
        tick(1)
    candidates.sort()
    return candidates


def _verify_stage(
    engine: Engine,
    sets: Mapping[int, array[int]],
    candidates: list[tuple[int, int]],
    threshold: Fraction,
    measure: Measure,
    progress: Progress | None,
) -> list[tuple[int, int, int]]:
    """The verify stage: the exact intersection of each candidate pair, in tasks of
    about equal weight; the pairs that reach ``threshold``, in the candidates' order."""
    tick = progress_counter(progress, "verify", len(candidates))
    verified: list[tuple[int, int, int]] = []
    # a larger set's pairs together: one task builds its hash set, not each task
    ordered = by_larger_set(sets, candidates)
    pair_weights = [len(sets[a]) + len(sets[b]) for a, b in ordered]
    pieces = _parts(engine, sum(pair_weights), _TASK_SHINGLES, 2)
    pair_batches = _balanced(ordered, pair_weights, pieces)
    verify_tasks = [(pairs, threshold, measure) for pairs in pair_batches]
    for number, checked in enumerate(engine.map_shared(_verify_some, sets, verify_tasks)):
        verified += checked
        tick(len(pair_batches[number]))
    place = {pair: number for number, pair in enumerate(candidates)}
    verified.sort(key=lambda found: place[found[0], found[1]])
    return verified


def run_pipeline(
    documents: Sequence[Document],
    options: ScanOptions,
    engine: Engine | None = None,
    progress: Progress | None = None,
) -> list[Pair]:
    """Every pair of ``documents`` at or above the threshold, sorted by paths, computed
    by the keyed stages on ``engine`` (this process by default).

    Identical shingle sets are grouped first (a thousand copies of one file cost one
    representative, then their pairs); :func:`join_sets` finds the pairs of the
    representatives.

    Runtime complexity: ``O(N)`` to digest the ``N`` shingles, :func:`join_sets`, and
    ``O(1)`` per pair returned. Memory: the documents' shingles, the cost of
    :func:`join_sets`, and the pairs.
    """
    threshold = options.exact_threshold
    measure: Measure = options.measure  # type: ignore[assignment]
    chosen = options.chosen_method
    _, groups = distinct_sets([document.shingles for document in documents])
    sets = {group[0]: documents[group[0]].shingles for group in groups}
    # A method that reports every pair has them found exactly, then says its notes.
    proposer = method("exact") if chosen.reports_all else chosen
    verified = join_sets(sets, threshold, measure, proposer, engine, progress)

    if chosen.reports_all:  # every pair, found exactly, with what the method says of it
        noting = chosen.prepare(threshold, measure, documents=len(sets))
        said = {d: noting.keys(sets[d]) for pair in verified for d in pair[:2]}
        notes = [tuple(noting.notes(said[i], said[j]).items()) for i, j, _ in verified]
        copies = tuple(noting.copy_notes().items())
    else:
        notes = [() for _ in verified]
        copies = ()
    paths = {group[0]: [documents[member].path for member in group] for group in groups}
    pairs: list[Pair] = []
    for (i, j, shared), note in zip(verified, notes):
        size_i, size_j = len(sets[i]), len(sets[j])
        pairs += pairs_across(paths[i], size_i, paths[j], size_j, shared, note)
    for group in groups:
        pairs += pairs_within(paths[group[0]], len(sets[group[0]]), copies)
    pairs.sort(key=lambda p: (p.a, p.b))
    return pairs


def compare(
    documents: Sequence[Document],
    threshold: Fraction,
    measure: Measure = "jaccard",
    method_name: str | Method = "exact",
    settings: Mapping[str, Any] | None = None,
) -> list[Pair]:
    """Every pair of ``documents`` at or above ``threshold``, sorted by paths, in this
    process (:func:`run_pipeline` with those options).

    >>> from samecode.text.shingling import Shingling
    >>> rules = Shingling(size=2)
    >>> texts = [("a", "x y z w"), ("b", "x y z v")]
    >>> docs = [Document(name, 0, "", 3, rules.shingles(text)) for name, text in texts]
    >>> [(p.a, p.b, p.shared) for p in compare(docs, Fraction(1, 2))]
    [('a', 'b', 2)]
    """
    options = ScanOptions(
        threshold=threshold, measure=measure, method=method_name, **dict(settings or {})
    )
    return run_pipeline(documents, options)


# -- the whole job -----------------------------------------------------------------------


def read_batches(
    paths: Sequence[str],
    shingling: Shingling,
    walk: WalkOptions,
    run: RunOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> Iterator[list[Document | Skipped]]:
    """Run :func:`read_documents` over ``paths`` (by the rules of ``shingling`` and
    ``walk``) in batches of ``run.batch_size`` on ``engine``, and yield each batch's
    results as it comes, in the order of ``paths`` whatever the engine: what is done with
    one batch is done while the engine reads on.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("a.txt", "b.txt", "c.txt"):
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(f"{name} holds these few words" if name != "b.txt" else "")
    >>> paths = [os.path.join(folder, n) for n in ("a.txt", "b.txt", "c.txt")]
    >>> walk, run = WalkOptions(min_tokens=1), RunOptions(batch_size=2)
    >>> [[type(item).__name__ for item in batch]
    ...  for batch in read_batches(paths, Shingling(), walk, run)]
    [['Document', 'Skipped'], ['Document']]
    """
    engine = engine or Serial()
    batches = run.batches(paths)
    args = (shingling, walk.max_size, walk.min_tokens)
    tick = progress_counter(progress, "read", len(paths))
    for number, batch_result in enumerate(
        engine.map(read_documents, [(batch, *args) for batch in batches])
    ):
        tick(len(batches[number]))
        yield batch_result


def read_all(
    paths: Sequence[str],
    options: ScanOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> tuple[list[Document], list[Skipped]]:
    """Run :func:`read_documents` over all ``paths`` by a scan's ``options``
    (:func:`read_batches`); the results come back in the order of ``paths`` whatever the
    engine."""
    documents: list[Document] = []
    skipped: list[Skipped] = []
    batches = read_batches(paths, options.shingling, options.walk, options.run, progress, engine)
    for batch_result in batches:
        for item in batch_result:
            if isinstance(item, Skipped):
                skipped.append(item)
            else:
                documents.append(item)
    return documents, skipped


def scan(
    roots: Sequence[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    progress: Progress | None = None,
) -> ScanResult:
    """Find the near-copies among the files under ``roots`` (see the module's description).

    :param roots: files and folders.
    :param options: what to compare and how (:class:`ScanOptions`; the defaults if
        ``None``).
    :param progress: called as ``progress(stage, done, total)`` as each stage advances.
    :raises TypeError: if ``roots`` is a lone path, or an option is of the wrong type.
    :raises ImportError: if ignore rules are asked for and ``pathspec`` is missing.
    :raises WorkerError: if worker processes cannot be started.

    Runtime complexity: ``O(size of the files)`` to read and shingle them, then
    :func:`run_pipeline`, every stage spread over ``options.run.jobs`` processes. Memory: 8
    bytes per distinct shingle of every file compared, plus the method's keys. The cyclic
    garbage collector is paused while the scan runs
    (:func:`~samecode.engine.paused_collection`): the scan makes no cycles, and each run
    of the collector walked its objects again (some 0.15 s of the 6.3 s of ``--jobs 1``
    over the four standard libraries).
    """
    options = options or ScanOptions()
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    started = time.perf_counter()
    paths, walk_skipped = discover([os.fspath(r) for r in roots], options.walk)
    with paused_collection():
        with options.run.engine(len(paths)) as engine:
            documents, read_skipped = read_all(paths, options, progress, engine)
            pairs = run_pipeline(documents, options, engine, progress)
        tick = progress_counter(progress, "classes", len(pairs))
        classes = clone_classes(documents, pairs, options.chaining)
        tick(len(pairs))
    return ScanResult(
        options,
        documents,
        walk_skipped + read_skipped,
        pairs,
        classes,
        time.perf_counter() - started,
    )
