"""Fragments across a tree, and between two files: which lines of which files were copied.

:func:`scan_fragments` walks the roots as a scan does (the same rules for which files,
:class:`~samecode.sources.walk.WalkOptions`), and for each file read:

    text -> tokens with spans -> k-gram hashes -> fingerprints (robust winnowing)
    -> index: fingerprint -> files (boilerplate ignored, counted)
    -> candidate pairs -> regions (exact matches chained) -> clone classes

Text copied into ``N`` files is compared between the first of them (by path) and each
other copy: ``N - 1`` pairs and regions, not ``N * (N - 1) / 2``, and one clone class of
``N`` occurrences (``all_pairs`` compares every two:
:meth:`~samecode.fragments.index.FingerprintIndex.candidate_pairs`).
:func:`compare_fragments` finds the regions of two files. Both give the same regions for
the same files and options, sorted by ``a``, ``b`` and place.

>>> import pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
>>> for name, before in [("a.py", "x = 1\\n"), ("b.py", "y = 2\\nz = 3\\n"), ("c.py", "")]:
...     _ = (root / name).write_text(before + block + "done = True\\n")
>>> from samecode.sources.walk import WalkOptions
>>> result = scan_fragments([str(root)], walk=WalkOptions(gitignore=False))
>>> [(pathlib.Path(r.a).name, r.a_start, r.a_end, pathlib.Path(r.b).name, r.b_start, r.b_end)
...  for r in result.regions]
[('a.py', 2, 12, 'b.py', 3, 13), ('a.py', 2, 12, 'c.py', 1, 11)]
>>> [(pathlib.Path(o.path).name, o.start, o.end) for o in result.classes[0].occurrences]
[('a.py', 2, 12), ('b.py', 3, 13), ('c.py', 1, 11)]
>>> every = scan_fragments([str(root)], FragmentOptions(all_pairs=True),
...                        walk=WalkOptions(gitignore=False))
>>> len(every.regions), len(every.classes[0].occurrences)
(3, 3)
"""

from __future__ import annotations

import os
import tempfile
import time
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, combinations

from samecode._validation import describe
from samecode.engine import Engine, Progress, RunOptions, paused_collection, progress_counter
from samecode.errors import SamecodeTypeError
from samecode.fragments.boilerplate import BoilerplateFiles, kgram_masks, mask
from samecode.fragments.classes import FragmentClass, region_classes
from samecode.fragments.digest import (
    class_digests_with,
    end_digests,
    place_digests,
    region_digests,
)
from samecode.fragments.ignored import Ignored, IgnoredRanges, masked_ranges
from samecode.fragments.index import FingerprintIndex
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region, find_regions, region_order
from samecode.fragments.result import FragmentResult
from samecode.fragments.scratch import ReadFile, ScratchFile, load, load_ids
from samecode.fragments.tasks import compare_tasks
from samecode.fragments.tokens import TokenSpans
from samecode.sources.reading import read_comparable, read_text
from samecode.sources.skipped import Skipped, too_few_tokens
from samecode.sources.walk import WalkOptions, discover

__all__ = [
    "FileFingerprints",
    "FragmentComparison",
    "compare_fragments",
    "fingerprint_files",
    "fingerprint_text",
    "pair_regions",
    "read_files",
    "scan_fragments",
]


@dataclass(frozen=True)
class FileFingerprints:
    """A file read for fragments: its path, tokens with spans, and k-grams (with its
    fingerprints), and the SHA-256 of the bytes read (``""`` for a text not read from a
    file). Picklable."""

    path: str
    tokens: TokenSpans
    kgrams: Kgrams
    ignored: Sequence[Ignored] = ()
    sha256: str = ""

    @property
    def fingerprints(self) -> list[int]:
        """The hashes of the fingerprints, in order."""
        return [self.kgrams.hashes[p] for p in self.kgrams.selected]

    @property
    def masked(self) -> list[tuple[int, int]]:
        """The tokens masked as boilerplate, as ``(first, stop)`` ranges, sorted
        (:func:`~samecode.fragments.ignored.masked_ranges`)."""
        return masked_ranges(self.ignored)


def fingerprint_text(
    path: str, text: str, options: FragmentOptions, boilerplate: BoilerplateFiles | None = None
) -> FileFingerprints:
    """A text's :class:`FileFingerprints`, its boilerplate masked
    (:func:`~samecode.fragments.boilerplate.mask`, by ``options.keep_licenses``,
    ``options.keep_imports``, ``options.keep_msgids`` and the ``boilerplate`` files), and,
    where a catalogue's message ids are masked, its translations' copies of them seeding
    nothing either (:func:`~samecode.fragments.boilerplate.kgram_masks`, unless
    ``options.keep_msgid_copies``).

    Runtime complexity: ``O(size)`` (see
    :func:`~samecode.fragments.winnowing.fingerprints`).

    >>> found = fingerprint_text("a.py", "import os\\nx = os.sep\\n", FragmentOptions(k=2))
    >>> len(found.tokens), [(i.reason, i.start, i.end) for i in found.ignored]
    (7, [('import block', 1, 1)])
    """
    tokens = TokenSpans.of(text, options.shingling, path)
    ignored = mask(
        path,
        text,
        tokens,
        options.k,
        keep_licenses=options.keep_licenses,
        keep_imports=options.keep_imports,
        keep_msgids=options.keep_msgids,
        files=boilerplate,
    )
    masked = kgram_masks(path, tokens.ids, ignored, options.k, options.masks_msgid_copies)
    kgrams = Kgrams.of(tokens.ids, options.k, options.window, masked)
    return FileFingerprints(path, tokens, kgrams, ignored)


def fingerprint_files(
    paths: Sequence[str],
    options: FragmentOptions,
    max_size: int | None,
    min_tokens: int,
    boilerplate: BoilerplateFiles | None = None,
) -> list[FileFingerprints | Skipped]:
    """Read and fingerprint a batch of files: a :class:`FileFingerprints` per file
    (:func:`fingerprint_text`), or why it was skipped (as a scan skips files: ``binary``,
    ``too large``, ``empty``, ``too few tokens``...).

    Runtime complexity: ``O(size)`` per file (see
    :func:`~samecode.fragments.winnowing.fingerprints`).
    """
    out: list[FileFingerprints | Skipped] = []
    for path in paths:
        text = read_text(path, max_size)
        if isinstance(text, Skipped):
            out.append(text)
            continue
        found = replace(fingerprint_text(path, text.text, options, boilerplate), sha256=text.sha256)
        out.append(too_few_tokens(path, len(found.tokens), min_tokens) or found)
    return out


def _regions_of(
    first: FileFingerprints,
    second: FileFingerprints,
    options: FragmentOptions,
    ignored: frozenset[int],
) -> tuple[list[Region], int]:
    """The regions of a pair, ``a`` the file whose path sorts first."""
    if second.path < first.path:
        first, second = second, first
    return find_regions(
        first.tokens,
        second.tokens,
        options,
        paths=(first.path, second.path),
        ignored=ignored,
        kgrams=(first.kgrams, second.kgrams),
    )


def pair_regions(
    pairs: Sequence[tuple[int, int]],
    files: Mapping[int, FileFingerprints],
    options: FragmentOptions,
    ignored: frozenset[int],
) -> tuple[list[Region], int]:
    """The regions of a batch of candidate pairs (numbers of ``files``, which holds every
    file the batch names), and how many fingerprints were repetitive: a stage of
    :func:`scan_fragments`, picklable, run by any engine.

    Runtime complexity: :func:`~samecode.fragments.regions.find_regions` per pair.
    """
    regions: list[Region] = []
    repetitive = 0
    for i, j in pairs:
        found, skipped_seeds = _regions_of(files[i], files[j], options, ignored)
        regions += found
        repetitive += skipped_seeds
    return regions, repetitive


def read_files(
    paths: Sequence[str],
    options: FragmentOptions,
    max_size: int | None,
    min_tokens: int,
    boilerplate: BoilerplateFiles | None,
    folder: str,
) -> list[ReadFile | Skipped]:
    """Read and fingerprint a batch of files (:func:`fingerprint_files`), and write them
    to a new scratch file in ``folder`` (:class:`~samecode.fragments.scratch.ScratchFile`):
    a stage of :func:`scan_fragments`, picklable, run by any engine. What it returns
    holds the fingerprints, not the tokens.

    :raises OSError: if the scratch file cannot be made or written.

    Runtime complexity: that of :func:`fingerprint_files`, and ``O(n)`` in C per file
    of ``n`` tokens to write it.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.py").write_text(" ".join(f"w{i}" for i in range(40)))
    >>> read, missing = read_files([str(folder / "a.py"), str(folder / "b.py")],
    ...                            FragmentOptions(), None, 10, None, str(folder))
    >>> read.tokens, len(read.fingerprints) > 0, missing.reason
    (40, True, 'vanished')
    >>> load(read)[0].ids == fingerprint_text(read.path, (folder / "a.py").read_text(),
    ...                                        FragmentOptions()).tokens.ids
    True
    """
    out: list[ReadFile | Skipped] = []
    with ScratchFile(folder) as scratch:
        for path in paths:  # one at a time: a file's tokens are let go once written
            (item,) = fingerprint_files([path], options, max_size, min_tokens, boilerplate)
            if isinstance(item, Skipped):
                out.append(item)
            else:
                out.append(
                    scratch.write(item.path, item.tokens, item.kgrams, item.ignored, item.sha256)
                )
    return out


def _read_some(
    boilerplate: BoilerplateFiles | None,
    paths: Sequence[str],
    options: FragmentOptions,
    max_size: int | None,
    min_tokens: int,
    folder: str,
) -> list[ReadFile | Skipped]:
    """A task of the read stage: :func:`read_files`, the boilerplate files shared."""
    return read_files(paths, options, max_size, min_tokens, boilerplate, folder)


_NONE: array[int] = array("Q")


def _loaded(read: ReadFile) -> FileFingerprints:
    tokens, kgrams = load(read)
    return FileFingerprints(read.path, tokens, kgrams, read.ignored)


#: What the compare and digest stages' tasks share: the files read, without the lines
#: they ignored, the tokens each masks (:func:`_compared_files`), the options and the
#: boilerplate's hashes.
_Shared = tuple[Sequence[ReadFile], dict[int, "array[int]"], FragmentOptions, frozenset[int]]


def _masked_of(shared: _Shared, named: Iterable[int]) -> dict[str, list[tuple[int, int]]]:
    """The masked ranges of the files ``named`` (by number) that have any, by path."""
    files, masked_tokens, _, _ = shared
    return {
        files[file].path: list(zip(flat[::2], flat[1::2]))
        for file in named
        if (flat := masked_tokens.get(file)) is not None
    }


def _pair_regions_of(
    shared: _Shared, pairs: Sequence[tuple[int, int]]
) -> tuple[list[Region], int, list[tuple[str, str]]]:
    """A task of the compare stage: load the files ``pairs`` name from their scratch
    files, and return the pairs' regions, the repetitive fingerprints and the regions'
    digests."""
    files, _, options, ignored = shared
    named = sorted({n for pair in pairs for n in pair})
    loaded = {file: _loaded(files[file]) for file in named}
    regions, repetitive = pair_regions(pairs, loaded, options, ignored)
    ids = {found.path: found.tokens.ids for found in loaded.values()}
    return regions, repetitive, region_digests(regions, ids, _masked_of(shared, named))


def _digest_places(
    shared: _Shared, scratch: str, places: Sequence[tuple[int, int, int]]
) -> list[str]:
    """A task of the digest stage: the digests of ``places`` (a file's number, its first
    token, its stop; a file's places together), every file of them written to the
    ``scratch`` file, which is then removed: the scan reads it no more, and its pages are
    freed on this worker rather than on the main process at the end."""
    files = shared[0]
    named = sorted({file for file, _, _ in places})
    ids = _ScratchIds([files[file] for file in named])
    spots = [(files[file].path, first, stop) for file, first, stop in places]
    digests = place_digests(spots, ids, _masked_of(shared, named))
    os.remove(scratch)
    return digests


def _class_digests(
    engine: Engine,
    classes: Sequence[FragmentClass],
    files: Sequence[ReadFile],
    shared: _Shared,
    known: Mapping[tuple[str, int, int], str],
) -> list[tuple[str, ...]]:
    """:func:`~samecode.fragments.digest.class_digests` of ``classes``, the places not
    ``known`` made a scratch file's places a task on ``engine`` (every scratch file a
    task, which removes it)."""
    number = {read.path: n for n, read in enumerate(files)}

    def digests_of(places: Sequence[tuple[str, int, int]]) -> list[str]:
        held: dict[str, list[int]] = {read.scratch: [] for read in files}  # places' indexes
        for at, (path, _, _) in enumerate(places):
            held[files[number[path]].scratch].append(at)

        def spot(at: int) -> tuple[int, int, int]:
            path, first, stop = places[at]
            return number[path], first, stop

        asked = [(scratch, [spot(at) for at in ats]) for scratch, ats in held.items()]
        found = [""] * len(places)
        tasks = engine.map_shared(_digest_places, shared, asked, keep_workers=True)
        for digests, ats in zip(tasks, held.values()):
            for at, digest in zip(ats, digests):
                found[at] = digest
        return found

    return class_digests_with(classes, digests_of, known)


def _compared_files(files: Sequence[ReadFile]) -> tuple[list[ReadFile], dict[int, array[int]]]:
    """What the compare stage's workers need of ``files``: each without the lines it
    ignored, and the tokens masked in those that have any (by number, ``first, stop``
    flat), some 16 bytes a range where the lines' records would be 200."""
    slim = [replace(read, ignored=()) if read.ignored else read for read in files]
    masked = {n: array("q", chain.from_iterable(read.masked))
              for n, read in enumerate(files) if read.ignored}  # fmt: skip
    return slim, masked


class _ScratchIds(Mapping[str, "array[int]"]):
    """The token ids of files read, by path, loaded from their scratch files as asked
    (the last one kept: a digest task asks for a file's places together)."""

    def __init__(self, files: Sequence[ReadFile]) -> None:
        self._files = {read.path: read for read in files}
        self._last: tuple[str, array[int]] | None = None

    def __getitem__(self, path: str) -> array[int]:
        if self._last is None or self._last[0] != path:
            self._last = (path, load_ids(self._files[path]))
        return self._last[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


def scan_fragments(
    roots: Sequence[str | os.PathLike[str]],
    options: FragmentOptions | None = None,
    walk: WalkOptions | None = None,
    progress: Progress | None = None,
    boilerplate: BoilerplateFiles | None = None,
    *,
    run: RunOptions | None = None,
) -> FragmentResult:
    """Find the regions the files under ``roots`` share, within and across files, and
    their clone classes (see the module's description).

    :param roots: files and folders.
    :param options: the :class:`~samecode.fragments.options.FragmentOptions`.
    :param walk: which files, as for a scan
        (:class:`~samecode.sources.walk.WalkOptions`).
    :param progress: called as ``progress(stage, done, total)`` as files are read
        (``read``) and candidate pairs compared (``compare``).
    :param boilerplate: files whose text is ignored wherever it is
        (:class:`~samecode.fragments.boilerplate.BoilerplateFiles`, read with ``options.k``).
    :param run: how many processes read and compare the files, and how many files a task
        reads (:class:`~samecode.engine.RunOptions`): the result is the same for any.
    :raises TypeError: if ``roots`` is a lone path, or an option is of the wrong type.
    :raises OSError: if the scratch folder cannot be made or written (a full disk), or a
        scratch file read (removed while the scan ran).
    :raises ValueError: if a scratch file was cut short or changed while the scan ran.

    Runtime complexity: ``O(size)`` per file to fingerprint it; then, per candidate pair
    (files sharing a fingerprint that is not boilerplate), ``O(n + m)`` and the cost of
    its matches (:mod:`~samecode.fragments.regions`), spread over ``run.jobs``
    processes. Candidate pairs: text in ``N`` files makes ``N - 1`` of them (each copy
    with the first), so ``N`` copies of a file cost ``N`` comparisons and ``N - 1``
    regions, not ``N**2`` (with ``all_pairs``, every two: ``N * (N - 1) / 2``).
    Memory: the files read are written to a scratch folder
    (:mod:`~samecode.fragments.scratch`, in :func:`tempfile.gettempdir`, which
    ``TMPDIR`` sets; about 37 bytes per token of every file compared, each file removed
    by the task that makes the class digests of its places, the folder at the end; where
    that folder is a ``tmpfs`` they are in memory too); this process keeps
    some 20 bytes per fingerprint (the index), and each compare task loads the files it
    names (about 37 bytes a token, some 15 MB at most, but for a larger file of its own).
    The cyclic garbage collector is paused while the scan runs
    (:func:`~samecode.engine.paused_collection`): the scan makes no cycles, and holds
    hundreds of thousands of objects that each run of the collector would walk again.
    """
    options = FragmentOptions() if options is None else options
    walk = WalkOptions() if walk is None else walk
    run = RunOptions() if run is None else run
    _check_scan_arguments(roots, options, walk, run)
    started = time.perf_counter()
    paths, skipped = discover([os.fspath(root) for root in roots], walk)
    with (
        paused_collection(),
        tempfile.TemporaryDirectory(prefix="samecode-fragments-") as folder,
        run.engine(len(paths)) as engine,
    ):
        files, indexes = _read_into_index(
            engine, paths, options, walk, run, folder, boilerplate, skipped, progress
        )
        limit = options.boilerplate_limit(len(files))
        ignored, candidates, occurrences = _index_stage(engine, files, indexes, options, limit)
        # The index is not asked again: let it go (20 bytes a fingerprint).
        del indexes
        shared = (*_compared_files(files), options, ignored)
        found = _compare_candidates(engine, files, candidates, shared, progress)
        order = sorted(range(len(found.regions)), key=lambda n: region_order(found.regions[n]))
        regions = [found.regions[n] for n in order]
        classes, region_class = region_classes(regions, options.gap)
        known = end_digests(found.regions, found.digests)
        found_classes = _class_digests(engine, classes, files, shared, known)
    inside = {path for region in regions for path in (region.a, region.b)}
    return FragmentResult(
        options,
        [read.path for read in files],
        skipped,
        regions,
        classes,
        region_class,
        len(ignored),
        occurrences,
        limit,
        found.repetitive,
        time.perf_counter() - started,
        found_classes,
        [found.digests[n] for n in order],
        ignored=IgnoredRanges.join(read.ignored for read in files),
        sha256={read.path: read.sha256 for read in files if read.path in inside},
        tokens={read.path: read.tokens for read in files if read.path in inside},
    )


def _check_scan_arguments(roots: object, options: object, walk: object, run: object) -> None:
    """:raises TypeError: for an argument of :func:`scan_fragments` of the wrong type."""
    if not isinstance(options, FragmentOptions):
        raise SamecodeTypeError(f"options must be FragmentOptions; got {describe(options)}")
    if not isinstance(walk, WalkOptions):
        raise SamecodeTypeError(f"walk must be WalkOptions; got {describe(walk)}")
    if not isinstance(run, RunOptions):
        raise SamecodeTypeError(f"run must be RunOptions; got {describe(run)}")
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")


def _read_into_index(
    engine: Engine,
    paths: Sequence[str],
    options: FragmentOptions,
    walk: WalkOptions,
    run: RunOptions,
    folder: str,
    boilerplate: BoilerplateFiles | None,
    skipped: list[Skipped],
    progress: Progress | None,
) -> tuple[list[ReadFile], list[FingerprintIndex]]:
    """Read ``paths`` into scratch files in ``folder`` (on ``engine``, a batch a task),
    noting the files skipped; return the files read, in order, and the index of their
    fingerprints, filled as batches come while the workers read on (the files keep none):
    one index per range of hashes, a range per task of the index stage
    (:func:`_index_stage`), two a worker where there are several."""
    reads = [(batch, options, walk.max_size, walk.min_tokens, folder)
             for batch in run.batches(paths)]  # fmt: skip
    tick = progress_counter(progress, "read", len(paths))
    files: list[ReadFile] = []
    parts = 1 if engine.workers == 1 else 2 * engine.workers
    indexes = [FingerprintIndex() for _ in range(parts)]
    bounds: list[int] | None = None
    # the boilerplate files' hashes (megabytes) go to each worker once, not per batch
    batches = engine.map_shared(_read_some, boilerplate, reads, keep_workers=True)
    for batch, read in zip(batches, reads):
        tick(len(read[0]))
        if bounds is None:
            bounds = _even_bounds(parts, batch)
        for item in batch:
            if isinstance(item, Skipped):
                skipped.append(item)
                continue
            hashes = item.fingerprints  # sorted: each range is a slice
            cuts = [0, *(bisect_left(hashes, bound) for bound in bounds), len(hashes)]
            for part, index in enumerate(indexes):
                index.add(len(files), hashes[cuts[part] : cuts[part + 1]])
            files.append(replace(item, fingerprints=_NONE))  # the index holds them
    return files, indexes


def _even_bounds(parts: int, batch: Sequence[ReadFile | Skipped]) -> list[int]:
    """Hashes that cut the fingerprints into ``parts`` ranges of about as many each, as
    they cut those of a first ``batch`` of files. Fingerprints are each the least hash of
    a window, so they are far from spread evenly (even cuts of the hashes would give the
    first range nine in ten); any bounds give the same answers, these only share the
    index stage's work out evenly."""
    found = sorted(chain.from_iterable(read.fingerprints for read in batch
                                       if not isinstance(read, Skipped)))  # fmt: skip
    if len(found) < parts:
        return [(part << 64) // parts for part in range(1, parts)]
    return [found[len(found) * part // parts] for part in range(1, parts)]


def _index_part(
    shared: tuple[int, Sequence[int] | None], index: FingerprintIndex
) -> tuple[frozenset[int], list[tuple[int, int]], int]:
    """A task of the index stage: one part's boilerplate (its hashes in more than
    ``limit`` files), its candidate pairs, and how often its boilerplate was selected."""
    limit, star = shared
    ignored = index.boilerplate(limit)
    return ignored, index.candidate_pairs(ignored, star=star), index.occurrences(ignored)


def _index_stage(
    engine: Engine,
    files: Sequence[ReadFile],
    indexes: Sequence[FingerprintIndex],
    options: FragmentOptions,
    limit: int,
) -> tuple[frozenset[int], list[tuple[int, int]], int]:
    """The boilerplate hashes, the candidate pairs (sorted; with the pairs of identical
    files) and the boilerplate's occurrences, each part of the index on ``engine``: a
    hash is in one part, so each part tells its own, and their union is the whole
    index's (sorting the index is most of the work, and no longer this process's alone)."""
    star = None if options.all_pairs else _ranks([read.path for read in files])
    ignored: set[int] = set()
    pairs = _identical_pairs(files, star)
    occurrences = 0
    # each part goes to a worker as its task (some 12 bytes a fingerprint), to the
    # workers that read the files: fresh ones would each import numpy again
    tasks = [(index,) for index in indexes]
    for part_ignored, part_pairs, part_occurrences in engine.map_shared(
        _index_part, (limit, star), tasks, keep_workers=True
    ):
        ignored |= part_ignored
        pairs.update(part_pairs)
        occurrences += part_occurrences
    return frozenset(ignored), sorted(pairs), occurrences


@dataclass
class _Compared:
    """What the candidate pairs gave: their regions and the regions' digests (in the
    order of the tasks), and the seeds skipped as repetitive."""

    regions: list[Region] = field(default_factory=list)
    digests: list[tuple[str, str]] = field(default_factory=list)
    repetitive: int = 0


def _compare_candidates(
    engine: Engine,
    files: list[ReadFile],
    pairs: list[tuple[int, int]],
    shared: _Shared,
    progress: Progress | None,
) -> _Compared:
    """The regions of the candidate ``pairs`` (numbers of ``files``; :func:`_index_stage`),
    in tasks of about equal cost on ``engine`` (the tasks name files by number; ``shared``
    is what every task needs: :func:`_compared_files`, the options, the boilerplate)."""
    sizes = [read.tokens for read in files]
    tasks = [(chunk,) for chunk in compare_tasks(pairs, sizes, engine.workers)]
    tick = progress_counter(progress, "compare", len(pairs))
    found = _Compared()
    for (regions, skipped_seeds, digests), (chunk,) in zip(
        engine.map_shared(_pair_regions_of, shared, tasks, keep_workers=True), tasks
    ):
        found.regions += regions
        found.digests += digests
        found.repetitive += skipped_seeds
        tick(len(chunk))
    return found


def _ranks(paths: Sequence[str]) -> list[int]:
    """Each file's place in the order of the paths: the first of several copies is the
    one whose path sorts first, whatever order the files were found in."""
    ranks = [0] * len(paths)
    for rank, number in enumerate(sorted(range(len(paths)), key=paths.__getitem__)):
        ranks[number] = rank
    return ranks


def _identical_pairs(files: Sequence[ReadFile], star: Sequence[int] | None) -> set[tuple[int, int]]:
    """The pairs of files (by number) of the same bytes: one region each, all of both
    (:func:`~samecode.fragments.regions.find_regions`), shared fingerprints or not; with
    ``star`` (the files' ranks), the first of each group by rank with each other."""
    alike: dict[str, list[int]] = {}
    for number, read in enumerate(files):
        if read.sha256 and read.tokens:
            alike.setdefault(read.sha256, []).append(number)
    if star is None:
        return {(i, j) for group in alike.values() for i, j in combinations(group, 2)}
    pairs: set[tuple[int, int]] = set()
    for group in alike.values():
        hub = min(group, key=star.__getitem__)
        pairs.update((min(hub, other), max(hub, other)) for other in group if other != hub)
    return pairs


@dataclass(frozen=True)
class FragmentComparison:
    """Two files' regions (``a`` and ``b`` as given), with the files' texts (to show the
    shared lines) and token counts."""

    a: str
    b: str
    a_text: str = field(repr=False)
    b_text: str = field(repr=False)
    a_tokens: int
    b_tokens: int
    regions: list[Region]
    repetitive: int
    ignored: Sequence[Ignored] = ()


def compare_fragments(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    options: FragmentOptions | None = None,
    *,
    max_size: int | None = None,
    boilerplate: BoilerplateFiles | None = None,
) -> FragmentComparison:
    """The regions two files share (the same file twice: the text it repeats).

    :param a: a file.
    :param b: another file, or the same.
    :param options: the :class:`~samecode.fragments.options.FragmentOptions`
        (boilerplate plays no part between two files).
    :param max_size: refuse files of more bytes (``None``: no limit).
    :param boilerplate: files whose text is ignored wherever it is.
    :raises TypeError: for a path or options of the wrong type.
    :raises ValueError: for a file that cannot be compared, with why.

    Runtime complexity: :func:`~samecode.fragments.regions.find_regions`.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> block = "".join(f"row_{i} = load(path_{i}, mode='r')\\n" for i in range(8))
    >>> _ = (folder / "a.py").write_text("import os\\n" + block)
    >>> _ = (folder / "b.py").write_text(block.replace("row_", "item_"))
    >>> options = FragmentOptions(tokens="code", normalize=True)
    >>> found = compare_fragments(folder / "a.py", folder / "b.py", options)
    >>> [(r.a_start, r.a_end, r.b_start, r.b_end, r.tokens) for r in found.regions]
    [(2, 9, 1, 8, 80)]
    """
    options = FragmentOptions() if options is None else options
    if not isinstance(options, FragmentOptions):
        raise SamecodeTypeError(f"options must be FragmentOptions; got {describe(options)}")
    first_path, first_text = read_comparable(a, max_size)
    second_path, second_text = read_comparable(b, max_size)
    first = fingerprint_text(first_path, first_text, options, boilerplate)
    one = os.path.realpath(first_path) == os.path.realpath(second_path)
    second = first if one else fingerprint_text(second_path, second_text, options, boilerplate)
    regions, repetitive = find_regions(
        first.tokens,
        second.tokens,
        options,
        paths=(first_path, second_path),
        kgrams=(first.kgrams, second.kgrams),
    )
    return FragmentComparison(
        first_path,
        second_path,
        first_text,
        second_text,
        len(first.tokens),
        len(second.tokens),
        regions,
        repetitive,
        first.ignored if one else IgnoredRanges.join((first.ignored, second.ignored)),
    )
