"""Matching query files against a corpus's stored files, exactly, in batches.

Two ways, by how the corpus finds candidates (:mod:`samecode.corpus.candidates`):

* :func:`match_by_join` (a corpus of prefixes): query files a batch at a time; the stored
  files any of them may match, found by one probe of the batch's prefixes; then the
  exact join of :mod:`samecode.scan.join` over both, as a scan does. A probe per query
  file is slow where many files share shingles (a licence header, the header of every
  translation file): the stored prefixes are in hash order, so common shingles are in
  most of them, and every such file would be read and verified for every query. The join
  orders shingles rarest first instead, and filters by size and position, so such pairs
  are never verified. It is as exact: every pair at or above ``t`` shares a prefix
  shingle (the probe), and :func:`~samecode.scan.join.prefix_candidates` misses none.
* :func:`match_each` (a corpus of LSH bands): each query probes on its own, and each
  candidate is verified.

Both take the corpus's probe and loader as functions, so they hold no SQL; the pairs
have the query as ``a`` and the stored file as ``b``, and are sorted.

>>> from array import array
>>> from fractions import Fraction
>>> query = Document("new.py", 0, "", 4, array("Q", [1, 2, 3, 4]))
>>> stored = {7: ("known.py", array("Q", [1, 2, 3, 4, 5]))}
>>> [(p.a, p.b, p.shared) for p in match_each(
...     [query], Fraction(4, 5), "jaccard", lambda n: None, lambda x: {7}, stored.get)]
[('new.py', 'known.py', 4)]
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Protocol

from samecode.corpus.entries import identity
from samecode.engine import Engine, Progress
from samecode.errors import SamecodeValueError
from samecode.scan.candidates import method
from samecode.scan.join import distinct_sets
from samecode.scan.model import Document, Pair
from samecode.scan.pipeline import ScanOptions, ScanResult, join_sets, scan
from samecode.similarity import reaches, reaches_stored
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling

__all__ = [
    "JOIN_SHINGLES",
    "MATCH_WALK",
    "Matching",
    "match_by_join",
    "match_each",
    "scan_against",
]

#: How many shingles (query or stored) one join holds, about 8 bytes each (and the
#: join's index): the memory bound of a match.
JOIN_SHINGLES = 16 << 20
#: How files matched against a corpus are walked unless a walk is given: every folder,
#: vendored and third-party ones included (``default_excludes=False``). Provenance is a
#: corpus's job, and vendored copies are what it looks for: a match that left them out
#: would say "no match" of a tree that holds one.
MATCH_WALK = WalkOptions(default_excludes=False)
#: Stored files a :func:`match_each` keeps loaded (those of the queries before are often
#: those of the next).
_CACHED_FILES = 4096


def scan_against(
    corpus: Matching,
    roots: Sequence[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    progress: Progress | None = None,
) -> tuple[ScanResult, list[Pair]]:
    """Scan the files under ``roots`` (:func:`~samecode.scan.pipeline.scan`) and match
    them against ``corpus`` in the same run: what the scan found, and the pairs of a
    scanned file (``a``) and a stored one (``b``) at or above the scan's threshold, by its
    measure, on the scan's processes (``options.run``).

    :param corpus: an open corpus (:class:`~samecode.corpus.store.Corpus`).
    :param options: what to compare, which files and how; by default the corpus's
        shingling and the other defaults, walked by :data:`MATCH_WALK` (vendored folders
        included).
    :raises ValueError: if ``options`` shingle otherwise than the corpus, or ask for a
        threshold below its ``min_threshold`` or a measure it does not answer.

    Runtime complexity: the scan's, then the corpus's
    :meth:`~samecode.corpus.store.Corpus.match` of the documents scanned.
    """
    if options is None:
        options = ScanOptions(shingling=corpus.shingling, walk=MATCH_WALK)
    if options.shingling != corpus.shingling:
        raise SamecodeValueError(
            f"options shingle by {options.shingling.to_dict()}; the corpus by "
            f"{corpus.shingling.to_dict()}"
        )
    result = scan(roots, options, progress)
    with options.run.engine(len(result.documents)) as engine:
        matched = corpus.match(
            result.documents, options.exact_threshold, options.measure, progress, engine
        )
    return result, matched


class Matching(Protocol):
    """What :func:`scan_against` needs of a corpus."""

    @property
    def shingling(self) -> Shingling:
        """The rules its files are shingled by."""

    def match(
        self,
        documents: Iterable[Document],
        threshold: Fraction | float | str | None = None,
        measure: str = "jaccard",
        progress: Progress | None = None,
        engine: Engine | None = None,
    ) -> list[Pair]:
        """Every stored file at or above ``threshold`` with each document."""


def match_each(
    documents: Sequence[Document],
    t: Fraction,
    measure: str,
    tick: Callable[[int], None],
    probe: Callable[[array[int]], set[int]],
    load: Callable[[int], tuple[str, array[int]]],
) -> list[Pair]:
    r"""Every pair of a query and a stored file that reaches ``t``: each query's
    ascending shingles ``probe``\ d for stored ids, each candidate ``load``\ ed (its
    path and ascending shingles) and verified. ``tick(1)`` is called per query.

    Runtime complexity: per query, its probe, then ``O(n + m)`` per candidate.
    """
    out: list[Pair] = []
    cache: dict[int, tuple[str, array[int]]] = {}
    for document in documents:
        tick(1)
        x = array("Q", sorted(document.shingles))
        n = len(x)
        held = set(x)
        own = (document.path, identity(document.path))
        for file_id in sorted(probe(x)):
            if file_id not in cache:
                if len(cache) > _CACHED_FILES:
                    cache.clear()
                cache[file_id] = load(file_id)
            path, shingles = cache[file_id]
            if path in own:
                continue
            ny = len(shingles)
            if measure == "jaccard" and not (t * n <= ny and t * ny <= n):
                continue
            shared = len(held.intersection(shingles))
            if _reaches(shared, n, ny, t, measure):
                out.append(Pair(document.path, path, shared, n, ny))
    out.sort(key=lambda p: (p.a, p.b))
    return out


def match_by_join(
    documents: Sequence[Document],
    t: Fraction,
    measure: str,
    tick: Callable[[int], None],
    engine: Engine | None,
    probe: Callable[[Sequence[array[int]], Fraction, str], set[int]],
    load: Callable[[Sequence[int]], Iterable[tuple[str, array[int]]]],
) -> list[Pair]:
    r"""Every pair of a query and a stored file that reaches ``t`` (see the module):
    queries a batch of :data:`JOIN_SHINGLES` at a time, ``probe``\ d together (the
    ascending shingles of each) for stored ids, ``load``\ ed (ascending ids) and joined.
    ``tick`` is told how many queries are done.

    Runtime complexity: the join of :func:`~samecode.scan.pipeline.join_sets` per batch
    of queries and stored files, each at most :data:`JOIN_SHINGLES` shingles.
    """
    out: list[Pair] = []
    batch: list[Document] = []
    held = reported = 0
    for done, document in enumerate(documents, 1):
        if not len(document.shingles):
            continue  # an empty set reaches nothing
        batch.append(document)
        held += len(document.shingles)
        if held >= JOIN_SHINGLES:
            out += _match_batch(batch, t, measure, engine, probe, load)
            batch, held = [], 0
            tick(done - reported)
            reported = done
    if batch:
        out += _match_batch(batch, t, measure, engine, probe, load)
    tick(len(documents) - reported)
    out.sort(key=lambda p: (p.a, p.b))
    return out


def _match_batch(
    batch: Sequence[Document],
    t: Fraction,
    measure: str,
    engine: Engine | None,
    probe: Callable[[Sequence[array[int]], Fraction, str], set[int]],
    load: Callable[[Sequence[int]], Iterable[tuple[str, array[int]]]],
) -> list[Pair]:
    """One batch of :func:`match_by_join`: its candidates, joined with it a bounded
    number of stored shingles at a time."""
    queries = [array("Q", sorted(document.shingles)) for document in batch]
    ids = probe(queries, t, measure)
    own = [{document.path, identity(document.path)} for document in batch]
    out: list[Pair] = []
    stored: list[tuple[str, array[int]]] = []
    count = 0
    for path, shingles in load(sorted(ids)):
        stored.append((path, shingles))
        count += len(shingles)
        if count >= JOIN_SHINGLES:
            out += _join(batch, queries, own, stored, t, measure, engine)
            stored, count = [], 0
    if stored:
        out += _join(batch, queries, own, stored, t, measure, engine)
    return out


def _reaches(shared: int, n: int, m: int, t: Fraction, measure: str) -> bool:
    """Whether a query of ``n`` shingles and a stored file of ``m`` sharing ``shared``
    reach ``t``: by Jaccard, or by how much of the stored file is in the query."""
    if measure == "jaccard":
        return reaches(shared, n, m, t, "jaccard")
    return reaches_stored(shared, m, t)


def _join(
    batch: Sequence[Document],
    queries: Sequence[array[int]],
    own: Sequence[set[str]],
    stored: Sequence[tuple[str, array[int]]],
    t: Fraction,
    measure: str,
    engine: Engine | None,
) -> list[Pair]:
    """Every pair of a query (``batch``, its ascending ``queries``) and a ``stored``
    file that reaches ``t``, exactly, by the scan's keyed join
    (:func:`~samecode.scan.pipeline.join_sets`) over both, on ``engine``, verifying the
    pairs across the two sides only (a query never matches its ``own`` names)."""
    sets = [*queries, *(shingles for _, shingles in stored)]
    split = len(queries)
    representatives, groups = distinct_sets(sets)

    def mixed(i: int, j: int) -> bool:
        return groups[i][0] < split and groups[j][-1] >= split

    # Stored containment >= t implies containment of the smaller set >= t: the join of
    # the smaller set's containment finds a superset.
    verified = join_sets(
        {number: sets[r] for number, r in enumerate(representatives)},
        t,
        "jaccard" if measure == "jaccard" else "containment",
        method("exact"),
        engine,
        keep=lambda i, j: mixed(i, j) or mixed(j, i),
    )
    # identical sets: a query and a stored copy of it
    verified += [(i, i, len(sets[r])) for i, r in enumerate(representatives) if mixed(i, i)]
    out: list[Pair] = []

    def pairs(i: int, j: int, shared: int) -> None:
        for a in groups[i]:
            if a >= split:
                continue
            for b in groups[j]:
                if b < split:
                    continue
                path, shingles = stored[b - split]
                if path in own[a]:
                    continue
                n, m = len(queries[a]), len(shingles)
                if _reaches(shared, n, m, t, measure):
                    out.append(Pair(batch[a].path, path, shared, n, m))

    for i, j, shared in verified:
        if mixed(i, j):
            pairs(i, j, shared)
        if i != j and mixed(j, i):
            pairs(j, i, shared)
    return out
