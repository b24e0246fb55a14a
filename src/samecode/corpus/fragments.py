"""Fragments against a corpus: which regions of new files match which stored files, and
where, in both (``samecode match --fragments``).

A corpus made with ``fragments`` (:meth:`Corpus.create
<samecode.corpus.store.Corpus.create>`) keeps, for every file, its bytes (format version
4: its tokens, their lines and its fingerprints are made again from them) or a record of
those (version 3, :mod:`samecode.corpus.records`), and an index from each fingerprint hash
to the files selecting it. :func:`match_fragments` then
runs, per batch of query files (a picklable stage, :func:`match_files`, that opens the
corpus read-only itself, so a process pool runs it as it is):

    query files -> tokens with spans, boilerplate masked -> fingerprints
    -> the index: stored files sharing a fingerprint (boilerplate by corpus share ignored)
    -> each candidate's text fingerprinted again (or its record decoded)
    -> regions (:func:`~samecode.fragments.regions.find_regions`)

**What is found.** The regions of a query file and a stored file are those
:func:`~samecode.fragments.tree.compare_fragments` gives for the two files on disk (the
stored file as it was when stored: it need not exist any more), with the same options and
the same fingerprints ignored: the same exact matches, chains, line ranges, tokens and
shares. So the guarantee is the one of two files: every shared run of at least ``window +
k - 1`` tokens is found, exactly, unless its fingerprints are boilerplate or repetitive.
They differ from a scan of a tree holding both files only in what is boilerplate by share:
here a fingerprint selected by more than :meth:`FragmentOptions.boilerplate_limit
<samecode.fragments.options.FragmentOptions.boilerplate_limit>` of the corpus's stored
files (MOSS's ``-m``), there by more than that share of the tree's files.

The output is the same, byte for byte, whatever the engine, its workers and the batch
size: every pair of a query and a stored file is matched in one task, by the corpus and the
pair alone, and the regions are sorted.

>>> import os, tempfile
>>> from samecode.fragments.options import FragmentOptions
>>> from samecode.corpus.store import Corpus
>>> from samecode.sources.walk import WalkOptions
>>> folder = tempfile.mkdtemp()
>>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
>>> with open(os.path.join(folder, "known.py"), "w") as f:
...     _ = f.write("first = 1\\n" + block)
>>> with open(os.path.join(folder, "new.py"), "w") as f:
...     _ = f.write(block + "the_end = True\\n")
>>> walk = WalkOptions(gitignore=False)
>>> with Corpus.create(os.path.join(folder, "c.db"), fragments=FragmentOptions()) as corpus:
...     _ = corpus.sync([os.path.join(folder, "known.py")], walk)
...     found = match_fragments(corpus, [os.path.join(folder, "new.py")], walk=walk)
>>> [(os.path.basename(r.a), r.a_start, r.a_end, os.path.basename(r.b), r.b_start, r.b_end)
...  for r in found.regions]
[('new.py', 1, 10, 'known.py', 2, 11)]
"""

from __future__ import annotations

import dataclasses
import os
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from samecode._validation import describe
from samecode.corpus.entries import identity
from samecode.corpus.match import MATCH_WALK
from samecode.corpus.settings import FRAGMENT_KEYS
from samecode.corpus.store import Corpus, no_fragments
from samecode.engine import Engine, Progress, RunOptions, progress_counter
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.boilerplate import BoilerplateFiles, digest_ids
from samecode.fragments.classes import FragmentClass, region_classes
from samecode.fragments.digest import class_digests, end_digests, region_digests
from samecode.fragments.ignored import Ignored
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region, find_regions, region_order
from samecode.fragments.result import FragmentResult
from samecode.fragments.tree import FileFingerprints, fingerprint_files
from samecode.sources.reading import Text, read_text
from samecode.sources.skipped import Skipped
from samecode.sources.walk import WalkOptions, discover
from samecode.store.file import IndexCorruptError

__all__ = [
    "Matched",
    "corpus_options",
    "match_files",
    "match_fragments",
    "stored_texts",
    "unshown_stored",
]


def corpus_options(
    stored: FragmentOptions | None, options: FragmentOptions | None
) -> FragmentOptions:
    """The options of a match against a corpus storing fragments by ``stored``:
    ``options`` (the stored ones when ``None``), checked to share the stored parameters
    (:data:`~samecode.corpus.settings.FRAGMENT_KEYS`: ``k``, ``window``, ``tokens``,
    ``normalize``, ``keep_licenses``, ``keep_imports``, ``keep_msgids``,
    ``keep_msgid_copies``).

    :raises ValueError: if the corpus stores no fragments, or a parameter differs.

    >>> corpus_options(FragmentOptions(k=8), None).k
    8
    >>> corpus_options(FragmentOptions(k=8), FragmentOptions(k=12))
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: the corpus stores fragments with k=8; got k=12 ...
    """
    if stored is None:
        raise SamecodeValueError("the corpus stores no fragments")
    if options is None:
        return stored
    if not isinstance(options, FragmentOptions):
        raise SamecodeTypeError(f"options must be FragmentOptions; got {describe(options)}")
    wrong = [name for name in FRAGMENT_KEYS if getattr(options, name) != getattr(stored, name)]
    if wrong:
        theirs = ", ".join(f"{name}={getattr(stored, name)!r}" for name in wrong)
        ours = ", ".join(f"{name}={getattr(options, name)!r}" for name in wrong)
        raise SamecodeValueError(
            f"the corpus stores fragments with {theirs}; got {ours} (these are set when a "
            "corpus is made: leave them out, or make a corpus with them)"
        )
    return options


@dataclass
class Matched:
    """What :func:`match_files` found for a batch of query files: the ``files`` compared
    and those ``skipped``, the ``regions``, the lines ``ignored`` (masked as boilerplate),
    the fingerprint hashes ignored as ``boilerplate`` by corpus share and how many times
    the queries selected them (``occurrences``), the ``repetitive`` fingerprints, and the
    token ids of every query file (``query_ids``) and stored file (``stored_ids``) that
    is in a region, by path (for the :mod:`~samecode.fragments.digest` of each place,
    made once all batches are in; apart, since a query may be a file stored with other
    text earlier), with the masked tokens of such query files (``query_masked``) and the
    SHA-256 of their bytes (``query_sha256``)."""

    files: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    boilerplate: set[int] = field(default_factory=set)
    occurrences: int = 0
    repetitive: int = 0
    query_ids: dict[str, array[int]] = field(default_factory=dict)
    stored_ids: dict[str, array[int]] = field(default_factory=dict)
    query_masked: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    query_sha256: dict[str, str] = field(default_factory=dict)


def match_files(
    db: str,
    paths: Sequence[str],
    options: FragmentOptions,
    boilerplate: BoilerplateFiles | None,
    max_size: int | None,
    min_tokens: int,
    limit: int,
) -> Matched:
    """Match a batch of query files against the corpus at ``db`` (opened read-only here):
    a stage of :func:`match_fragments`, picklable.

    A stored file is a candidate of a query when they share a fingerprint selected by at
    most ``limit`` stored files; a fingerprint selected by more is boilerplate: it seeds
    nothing, on either side.

    Runtime complexity: ``O(size)`` per query to fingerprint it; one lookup of the
    batch's fingerprints in the index; per candidate stored file, its record read and
    decoded (``O(n)``, once per batch) and, per query it is a candidate of,
    :func:`~samecode.fragments.regions.find_regions`.
    """
    out = Matched()
    queries = _read_queries(paths, options, boilerplate, max_size, min_tokens, out)
    if not queries:
        return out
    with Corpus.open(db, readonly=True) as corpus:
        selected = [query.kgrams.fingerprints() for query in queries]
        counts, wanted = _candidates(corpus, queries, selected, limit, out)
        for file_id in sorted(wanted):
            stored = _stored(corpus, file_id)
            if stored is None:
                continue
            path = stored.path
            mine = set(stored.fingerprints)
            for number in wanted[file_id]:
                query = queries[number]
                if path in (query.path, identity(query.path)):
                    continue  # a file does not match its own entry
                common = _common_hashes(corpus, mine, query, selected[number], counts, limit)
                out.boilerplate |= common
                regions, repetitive = find_regions(
                    query.tokens,
                    stored.tokens,
                    options,
                    paths=(query.path, path),
                    ignored=frozenset(common),
                    kgrams=(query.kgrams, stored.kgrams),
                )
                _record(out, query, stored, regions, repetitive)
    return out


def _stored(corpus: Corpus, file_id: int) -> FileFingerprints | None:
    """The fragments of stored file ``file_id``, or ``None`` if it is no longer stored:
    removed (by another process) since the index named it, there is nothing of it to
    match. A stored file whose entry fails its checks raises
    :class:`~samecode.store.file.IndexCorruptError`."""
    try:
        return corpus.stored_fragments(file_id)
    except IndexCorruptError:
        try:
            corpus.fragment_path(file_id)
        except IndexCorruptError:  # no row of it
            return None
        raise


def _read_queries(
    paths: Sequence[str],
    options: FragmentOptions,
    boilerplate: BoilerplateFiles | None,
    max_size: int | None,
    min_tokens: int,
    out: Matched,
) -> list[FileFingerprints]:
    """The fingerprints of the query files under ``paths``, each noted in ``out`` as a
    file compared (with its lines ignored) or skipped."""
    queries: list[FileFingerprints] = []
    for item in fingerprint_files(paths, options, max_size, min_tokens, boilerplate):
        if isinstance(item, Skipped):
            out.skipped.append(item)
        else:
            queries.append(item)
            out.files.append(item.path)
            out.ignored += item.ignored
    return queries


def _candidates(
    corpus: Corpus,
    queries: list[FileFingerprints],
    selected: list[set[int]],
    limit: int,
    out: Matched,
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """How many stored files select each hash the ``queries`` select (their fingerprints
    ``selected``, looked up once for the batch), and the stored files that are
    candidates, each with the queries it is a candidate of: those sharing a fingerprint
    that at most ``limit`` stored files select, and those of a query's bytes. The other
    fingerprints are boilerplate, noted in ``out`` with how many times the queries select
    them."""
    where = corpus.fragment_files(set().union(*selected))
    counts = {value: len(files) for value, files in where.items()}
    wanted: dict[int, list[int]] = {}  # stored file -> the queries it is a candidate of
    for number, (query, hashes) in enumerate(zip(queries, selected)):
        common = {value for value in hashes if counts.get(value, 0) > limit}
        out.boilerplate |= common
        out.occurrences += sum(query.kgrams.hashes[p] in common for p in query.kgrams.selected)
        for file_id in sorted({f for v in hashes - common for f in where.get(v, ())}):
            wanted.setdefault(file_id, []).append(number)
    # a stored file of the query's bytes is one region with it, fingerprints shared or not
    same = corpus.same_bytes(query.sha256 for query in queries if query.sha256 and query.tokens)
    for number, query in enumerate(queries):
        for file_id in same.get(query.sha256, ()):
            if number not in wanted.setdefault(file_id, []):
                wanted[file_id].append(number)
    return counts, wanted


def _common_hashes(
    corpus: Corpus,
    stored: set[int],
    query: FileFingerprints,
    selected: set[int],
    counts: dict[int, int],
    limit: int,
) -> set[int]:
    """The boilerplate of a query and a stored file: the hashes that more than ``limit``
    stored files select, among the query's fingerprints (``selected``) and the stored
    file's fingerprints (``stored``) that are k-grams of the query; the latter counted
    in the corpus once, into ``counts``, as they are met."""
    met = stored.intersection(query.kgrams.hashes)
    unknown = [value for value in met if value not in counts]
    counts.update({value: len(f) for value, f in corpus.fragment_files(unknown).items()})
    common = {value for value in met if counts.get(value, 0) > limit}
    return common | {value for value in selected if counts.get(value, 0) > limit}


def _record(
    out: Matched,
    query: FileFingerprints,
    stored: FileFingerprints,
    regions: list[Region],
    repetitive: int,
) -> None:
    """Add to ``out`` the regions of ``query`` and the ``stored`` file and the repetitive
    fingerprints, and, if there are regions, the two files' token ids (with the query's
    masked tokens and SHA-256; the stored file's masked tokens as 0) for their digests."""
    out.regions += regions
    out.repetitive += repetitive
    if regions:
        out.query_ids[query.path] = query.tokens.ids
        out.query_sha256[query.path] = query.sha256
        out.stored_ids[stored.path] = digest_ids(stored.tokens.ids, stored.masked)
        if query.ignored:
            out.query_masked[query.path] = query.masked


def _match_some(
    boilerplate: BoilerplateFiles | None,
    db: str,
    paths: Sequence[str],
    options: FragmentOptions,
    max_size: int | None,
    min_tokens: int,
    limit: int,
) -> Matched:
    """A task of :func:`match_fragments`: :func:`match_files`, the boilerplate files
    shared."""
    return match_files(db, paths, options, boilerplate, max_size, min_tokens, limit)


def _match_tasks(
    engine: Engine,
    tasks: Sequence[tuple[str, Sequence[str], FragmentOptions, int | None, int, int]],
    boilerplate: BoilerplateFiles | None,
    tick: Callable[[int], None],
) -> Matched:
    """The tasks of :func:`match_fragments` run on ``engine``, their results merged in
    the order of the tasks."""
    total = Matched()
    # the boilerplate files' hashes (megabytes) go to each worker once, not per batch
    batches = engine.map_shared(_match_some, boilerplate, tasks)
    for matched, task in zip(batches, tasks):
        total.files += matched.files
        total.skipped += matched.skipped
        total.regions += matched.regions
        total.ignored += matched.ignored
        total.boilerplate |= matched.boilerplate
        total.occurrences += matched.occurrences
        total.repetitive += matched.repetitive
        total.query_ids.update(matched.query_ids)
        total.stored_ids.update(matched.stored_ids)
        total.query_masked.update(matched.query_masked)
        total.query_sha256.update(matched.query_sha256)
        tick(len(task[1]))
    return total


def match_fragments(
    corpus: Corpus,
    paths: Sequence[str | os.PathLike[str]],
    options: FragmentOptions | None = None,
    walk: WalkOptions | None = None,
    *,
    run: RunOptions | None = None,
    boilerplate: BoilerplateFiles | None = None,
    engine: Engine | None = None,
    progress: Progress | None = None,
) -> FragmentResult:
    """Which regions of the files under ``paths`` match which files of ``corpus``, and
    where (see the module's description): a
    :class:`~samecode.fragments.result.FragmentResult` whose regions have the query file
    as ``a`` and the stored file as ``b``, sorted, with their clone classes and the
    digests of their places (so a baseline, SARIF and the HTML report take it as they
    take a scan's).

    :param corpus: an open corpus that stores fragments.
    :param paths: files and folders.
    :param options: the corpus's stored parameters and the query's own (``min_tokens``,
        ``gap``, ``max_repeats``, ``boilerplate_share``, ``boilerplate_files``); the
        stored ones by default.
    :param walk: which files, as for a scan (:class:`~samecode.sources.walk.WalkOptions`;
        by default :data:`~samecode.corpus.match.MATCH_WALK`: vendored folders included).
    :param run: the files a task matches, and the processes that run the tasks when no
        ``engine`` is given (:class:`~samecode.engine.RunOptions`).
    :param boilerplate: files whose text is ignored in the queries (and so in every
        region).
    :param engine: where the batches run (by default, as ``run`` says); the result is
        the same on any.
    :param progress: called as ``progress("match", done, total)`` as files are matched.
    :raises TypeError: if ``paths`` is a lone path, or an option is of the wrong type.
    :raises ValueError: if the corpus stores no fragments (a corpus made without them,
        or by an older samecode: nothing is changed in it), or ``options`` differ from
        its stored parameters.

    Runtime complexity: :func:`match_files` over the batches; then ``O(r log r)`` for
    the ``r`` regions' classes and ``O(t)`` for the digests of their ``t`` tokens. Memory:
    the regions, and the token ids (8 bytes a token) of the files that are in one.
    """
    started = time.perf_counter()
    if corpus.fragments is None:
        raise no_fragments(corpus.path, corpus.format_version)
    options = corpus_options(corpus.fragments, options)
    walk = MATCH_WALK if walk is None else walk
    run = RunOptions() if run is None else run
    if not isinstance(walk, WalkOptions):
        raise SamecodeTypeError(f"walk must be WalkOptions; got {describe(walk)}")
    if not isinstance(run, RunOptions):
        raise SamecodeTypeError(f"run must be RunOptions; got {describe(run)}")
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"paths must be a list of paths; got {describe(paths)}")
    if boilerplate is not None and boilerplate.k != options.k:
        raise SamecodeValueError(
            f"boilerplate files were read with k={boilerplate.k}; got k={options.k}"
        )
    found, skipped = discover([os.fspath(path) for path in paths], walk)
    limit = options.boilerplate_limit(corpus.fragment_file_count())
    tasks = [
        (corpus.path, batch, options, walk.max_size, walk.min_tokens, limit)
        for batch in run.batches(found)
    ]
    tick = progress_counter(progress, "match", len(found))
    if engine is None:
        with run.engine(len(tasks)) as own:
            total = _match_tasks(own, tasks, boilerplate, tick)
    else:
        total = _match_tasks(engine, tasks, boilerplate, tick)
    regions = sorted(total.regions, key=region_order)
    classes, region_class, digests, ends = _classes(regions, total, options.gap)
    return FragmentResult(
        options,
        total.files,
        skipped + total.skipped,
        regions,
        classes,
        region_class,
        len(total.boilerplate),
        total.occurrences,
        limit,
        total.repetitive,
        time.perf_counter() - started,
        digests,
        ends,
        ignored=total.ignored,
        sha256=total.query_sha256,
        tokens={path: len(ids) for path, ids in total.query_ids.items()},
        stored_tokens={path: len(ids) for path, ids in total.stored_ids.items()},
    )


# Before a stored file's path while classes are made: no path holds a NUL, so a stored
# file is never taken for a query file of the same name (a file stored with other text
# earlier is another text).
_STORED_SIDE = "\0stored\0"


def _classes(
    regions: list[Region], total: Matched, gap: int
) -> tuple[list[FragmentClass], list[int | None], list[tuple[str, ...]], list[tuple[str, str]]]:
    """The regions' clone classes, each region's class, and the digests of the classes'
    occurrences and of the regions' ends, the query and the stored side of a path kept
    apart (the order as :func:`~samecode.fragments.classes.region_classes` gives it)."""
    keyed = [dataclasses.replace(r, b=_STORED_SIDE + r.b) for r in regions]
    ids = {**total.query_ids, **{_STORED_SIDE + p: v for p, v in total.stored_ids.items()}}
    found, of_region = region_classes(keyed, gap)
    ends = region_digests(keyed, ids, total.query_masked)
    digests = class_digests(found, ids, total.query_masked, end_digests(keyed, ends))
    named = []
    for clone, made in zip(found, digests):
        pairs = sorted(
            zip(clone.occurrences, made),
            key=lambda item: (item[0].path.removeprefix(_STORED_SIDE), item[0].first, item[0].path),
        )
        occurrences = tuple(
            dataclasses.replace(o, path=o.path.removeprefix(_STORED_SIDE)) for o, _ in pairs
        )
        named.append((FragmentClass(occurrences, clone.regions), tuple(d for _, d in pairs)))
    order = sorted(
        range(len(named)),
        key=lambda n: (-len(named[n][0].occurrences), _first(named[n][0])),
    )
    number = {old + 1: new for new, old in enumerate(order, 1)}
    classes = [named[n][0] for n in order]
    return (
        classes,
        [None if n is None else number[n] for n in of_region],
        [named[n][1] for n in order],
        ends,
    )


def _first(clone: FragmentClass) -> tuple[str, int]:
    first = clone.occurrences[0]
    return first.path, first.first


def stored_texts(corpus: Corpus, result: FragmentResult) -> dict[str, Text]:
    """The texts a corpus keeps (format versions 4 to 8) of the stored files of ``result``'s
    regions that are not also query files: a page can show them as they were stored,
    wherever the files are now, or whether they are still on disk at all. Empty for a
    corpus that keeps no texts.

    :param corpus: the corpus the result was matched against.
    :param result: what :func:`match_fragments` found.
    :raises IndexCorruptError: for an entry that fails its checks.

    Runtime complexity: ``O(size)`` for each stored file of a region.

    >>> import os, tempfile
    >>> from samecode.corpus.store import Corpus
    >>> from samecode.sources.walk import WalkOptions
    >>> folder = tempfile.mkdtemp()
    >>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
    >>> for name in ("known.py", "new.py"):
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(block)
    >>> walk = WalkOptions(gitignore=False)
    >>> with Corpus.create(os.path.join(folder, "c.db"), fragments=FragmentOptions()) as corpus:
    ...     _ = corpus.sync([os.path.join(folder, "known.py")], walk)
    ...     found = match_fragments(corpus, [os.path.join(folder, "new.py")], walk=walk)
    ...     os.remove(os.path.join(folder, "known.py"))
    ...     kept = stored_texts(corpus, found)
    >>> [(os.path.basename(path), text.text == block) for path, text in kept.items()]
    [('known.py', True)]
    """
    if not corpus.keeps_text:
        return {}
    queries = set(result.files)
    out: dict[str, Text] = {}
    for path in sorted({region.b for region in result.regions} - queries):
        text = corpus.stored_text(path)
        if text is not None:
            out[path] = text
    return out


def unshown_stored(corpus: Corpus, result: FragmentResult) -> dict[str, str]:
    """The stored files of ``result``'s regions whose text on disk is not the text
    stored (their bytes' SHA-256 is not the stored one), each with why: a page that reads
    files to show their lines (:func:`~samecode.reports.html.to_html`'s ``unshown``)
    must not show them. A file that cannot be read is left out: the page says why itself.
    A corpus that keeps texts gives those of its files (:func:`stored_texts`) but of those
    that are query files too.

    :param corpus: the corpus the result was matched against.
    :param result: what :func:`match_fragments` found.

    Runtime complexity: ``O(size)`` to hash each stored file of a region that is on disk.

    >>> import os, tempfile
    >>> from samecode.corpus.store import Corpus
    >>> from samecode.sources.walk import WalkOptions
    >>> folder = tempfile.mkdtemp()
    >>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
    >>> for name in ("known.py", "new.py"):
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(block)
    >>> walk = WalkOptions(gitignore=False)
    >>> with Corpus.create(os.path.join(folder, "c.db"), fragments=FragmentOptions()) as corpus:
    ...     _ = corpus.sync([os.path.join(folder, "known.py")], walk)
    ...     queries = [os.path.join(folder, name) for name in ("new.py", "known.py")]
    ...     found = match_fragments(corpus, queries, walk=walk)
    ...     same = unshown_stored(corpus, found)
    ...     with open(os.path.join(folder, "known.py"), "a") as f:
    ...         _ = f.write("more = 1\\n")
    ...     changed = unshown_stored(corpus, found)
    >>> same, list(changed.values())
    ({}, ['changed since it was stored'])
    """
    out: dict[str, str] = {}
    stored = {region.b for region in result.regions}
    if corpus.keeps_text:  # the page shows those as kept (stored_texts)
        stored &= set(result.files)
    for path in sorted(stored):
        text = read_text(path, None)
        if isinstance(text, Skipped):
            continue
        entry = corpus.stored(path)
        if entry is None or text.sha256 != entry.sha256:
            out[path] = "changed since it was stored"
    return out
