"""Bringing a corpus up to date with files on disk, in three steps: plan, read and store,
remove what is gone.

:func:`sync_files` (what :meth:`Corpus.sync <samecode.corpus.store.Corpus.sync>` runs)
walks the paths, *plans* (a file whose entry has its size and modification time is not
read), *reads and stores* a part of the files at a time (read on an engine, stored in
this process as they come, in transactions of 1,000 files), then *removes* the entries
of files whose new content is skipped for what it is, and with ``prune`` those of files
that are gone. It needs of the corpus only what :class:`SyncTarget` names.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from samecode._validation import describe
from samecode.corpus.entries import StoredFile, identity, is_under
from samecode.corpus.records import StoredDocument, read_stored_batches
from samecode.engine import Engine, Progress, RunOptions
from samecode.errors import SamecodeTypeError
from samecode.fragments.options import FragmentOptions
from samecode.scan.model import Document
from samecode.scan.pipeline import read_batches
from samecode.sources.skipped import Skipped, SkipReason
from samecode.sources.walk import WalkOptions, discover
from samecode.text.shingling import Shingling

__all__ = ["STORE_BATCH", "SyncReport", "SyncTarget", "sync_files"]

#: Files per transaction of a sync (more than :meth:`Corpus.add
#: <samecode.corpus.store.Corpus.add>`'s default: fewer commits, each writing the pages it
#: changed once).
STORE_BATCH = 1000
#: Files read, then stored, at a time (what a sync holds: their documents and records).
_PART_FILES = 4096
#: Why a stored file's new content is not kept (the reasons of
#: :func:`~samecode.scan.pipeline.read_documents` that depend on the file itself): its
#: entry is removed.
_GONE_BY_CONTENT = frozenset(
    {
        SkipReason.EMPTY,
        SkipReason.TOO_FEW_TOKENS,
        SkipReason.BINARY,
        SkipReason.TOO_LARGE,
        SkipReason.NOT_REGULAR,
    }
)


class SyncTarget(Protocol):
    """What :func:`sync_files` needs of a corpus (a
    :class:`~samecode.corpus.store.Corpus` is one)."""

    @property
    def shingling(self) -> Shingling:
        """The rules files are shingled by."""

    @property
    def fragments(self) -> FragmentOptions | None:
        """The fragment options records are made by, or ``None``."""

    @property
    def keeps_text(self) -> bool:
        """Whether it keeps each file's bytes (and no records)."""

    def __len__(self) -> int:
        """How many files it holds."""

    def files(self) -> Iterator[StoredFile]:
        """Every entry."""

    def touch(self, path: str, mtime_ns: int) -> None:
        """Record a new modification time for a file whose bytes did not change."""

    def expect(self, files: int, size: int) -> None:
        """Be told, before the files are read, how many ``files`` a sync is about to
        store and their ``size`` in bytes on disk (:meth:`Corpus.expect
        <samecode.corpus.store.Corpus.expect>`). A target written before this was told
        (without it) is not."""

    def text_dictionary(self, paths: Sequence[str]) -> bytes:
        """The dictionary to compress the texts of ``paths`` against, where it keeps
        texts (:meth:`Corpus.text_dictionary
        <samecode.corpus.store.Corpus.text_dictionary>`). A target written before this
        was asked (without it) is given texts compressed without one."""

    def add(
        self,
        documents: Iterable[Document],
        mtimes: dict[str, int] | None = None,
        *,
        fragments: dict[str, bytes] | None = None,
        fingerprints: dict[str, array[int]] | None = None,
        replacing: dict[str, str] | None = None,
        per_transaction: int = 100,
        texts: dict[str, bytes] | None = None,
        trusted: bool = False,
    ) -> int:
        """Store documents, replacing any of the same path (and those ``replacing``
        names); return how many. :func:`sync_files` gives ``trusted=True`` where
        :func:`~samecode.corpus.records.read_stored` made the documents (their shingles
        ascending, each text its document's bytes), and only to an ``add`` that takes
        ``trusted``: a target whose ``add`` does not (one written before it was a
        parameter) is given none."""

    def discard(self, paths: Iterable[str]) -> list[str]:
        """Remove the entries stored under exactly these paths (one transaction);
        return those that were held."""


@dataclass(frozen=True)
class SyncReport:
    """What a sync changed, by path (each as the corpus keeps it: its
    :func:`~samecode.corpus.entries.identity`).

    :param added: files stored for the first time.
    :param updated: files whose bytes changed, their entries replaced.
    :param unchanged: files whose entries were kept (same size and modification time,
        or same SHA-256).
    :param removed: entries removed, each with why: ``missing`` (pruned: the file is
        gone), or the reason its new content is not kept (``empty``, ``too few tokens``,
        ``binary``, ``too large``, ``not a regular file``).
    :param skipped: files found but not stored, and why (an entry they had is kept
        unless listed in ``removed``).
    :param held: how many files the corpus holds afterwards.
    """

    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[Skipped, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    held: int = 0


@dataclasses.dataclass
class _Plan:
    """What a sync makes of the files it found, before it reads any: every entry by its
    identity, the spelling found of each file (by identity), the files whose size and
    time match their entry, the files to read (in the order found) and each file's
    modification time (by identity)."""

    entries: dict[str, StoredFile]
    found_as: dict[str, str] = dataclasses.field(default_factory=dict)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    to_read: list[str] = dataclasses.field(default_factory=list)
    mtimes: dict[str, int] = dataclasses.field(default_factory=dict)
    size: int = 0  # of the files to read that could be looked at and are not too large


@dataclasses.dataclass
class _Read:
    """What a sync made of the files it read: stored as new, stored in place of their
    entry, unchanged by their bytes (given their new time only), or skipped."""

    added: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class _Unstored:
    """What a sync read of a part and has not stored yet, by path: the older spellings
    of the fresh documents' entries (removed in the transaction that stores them), their
    fragment records, fingerprints and bytes."""

    stale: dict[str, str] = dataclasses.field(default_factory=dict)  # path -> older one
    records: dict[str, bytes] = dataclasses.field(default_factory=dict)
    fingerprints: dict[str, array[int]] = dataclasses.field(default_factory=dict)
    texts: dict[str, bytes] = dataclasses.field(default_factory=dict)


def sync_files(
    target: SyncTarget,
    paths: Sequence[str | os.PathLike[str]],
    walk: WalkOptions | None = None,
    *,
    run: RunOptions | None = None,
    prune: bool = False,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> SyncReport:
    """Bring ``target`` up to date with the files under ``paths`` (see
    :meth:`Corpus.sync <samecode.corpus.store.Corpus.sync>`, which documents it).

    :raises TypeError: if ``paths`` is a lone path, or an option is of the wrong type.
    """
    roots, walk, run = _arguments(paths, walk, run)
    found, skipped = discover(roots, walk)
    plan = _plan(target, found, walk.max_size)
    if engine is None:
        with run.engine(len(plan.to_read)) as own:
            read = _read_and_store(target, plan, walk, run, progress, own)
    else:
        read = _read_and_store(target, plan, walk, run, progress, engine)
    gone, kept = _split_gone_by_content(read.skipped, plan.entries)
    skipped.extend(kept)
    if prune:
        gone += _missing_under(roots, plan)
    held = set(target.discard([item.path for item in gone])) if gone else set()
    return SyncReport(
        added=tuple(read.added),
        updated=tuple(read.updated),
        unchanged=tuple(plan.unchanged + read.unchanged),
        removed=tuple(item for item in gone if item.path in held),
        skipped=tuple(skipped),
        held=len(target),
    )


def _arguments(
    paths: Sequence[str | os.PathLike[str]], walk: WalkOptions | None, run: RunOptions | None
) -> tuple[list[str], WalkOptions, RunOptions]:
    """A sync's paths and options, checked (the defaults for ``None``).

    :raises TypeError: if ``paths`` is a lone path, or an option is of the wrong type.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"paths must be a list of paths; got {describe(paths)}")
    walk = WalkOptions() if walk is None else walk
    run = RunOptions() if run is None else run
    if not isinstance(walk, WalkOptions):
        raise SamecodeTypeError(f"walk must be WalkOptions; got {describe(walk)}")
    if not isinstance(run, RunOptions):
        raise SamecodeTypeError(f"run must be RunOptions; got {describe(run)}")
    return [os.fspath(path) for path in paths], walk, run


def _plan(target: SyncTarget, found: Sequence[str], max_size: int | None) -> _Plan:
    """What a sync does with each file found, before reading any: a file whose entry has
    its size and time is unchanged; any other is read (one that cannot be looked at too:
    reading says why). Entries are taken by identity: one stored under another spelling
    (by an older samecode, or by add()) is found too, and replaced under its identity."""
    entries: dict[str, StoredFile] = {}
    for held_file in target.files():
        entries.setdefault(identity(held_file.path), held_file)
    plan = _Plan(entries)
    for path in found:
        real = identity(path)
        if real in plan.found_as:
            continue
        plan.found_as[real] = path
        entry = plan.entries.get(real)
        try:
            info = os.stat(path)
        except OSError:
            plan.to_read.append(path)
            continue
        plan.mtimes[real] = info.st_mtime_ns
        if (
            entry is not None
            and entry.path == real
            and (entry.size, entry.mtime_ns) == (info.st_size, info.st_mtime_ns)
        ):
            plan.unchanged.append(real)
        else:
            plan.to_read.append(path)
            if max_size is None or info.st_size <= max_size:  # (one over it is skipped)
                plan.size += info.st_size
    return plan


def _read_and_store(
    target: SyncTarget,
    plan: _Plan,
    walk: WalkOptions,
    run: RunOptions,
    progress: Progress | None,
    engine: Engine,
) -> _Read:
    """Read the files planned to read, and store what changed.

    A part of the files at a time, read (on the engine): the memory held is a part's
    documents and records at most, whatever the number of files. A part holds at least
    two batches a worker, so that every worker has some. What is read is stored as it
    comes, a transaction of :data:`STORE_BATCH` files at a time, while the engine reads
    on.
    """
    read = _Read()
    to_read = plan.to_read
    step = max(_PART_FILES, 2 * run.batch_size * engine.workers)
    if progress is not None and not to_read:
        progress("read", 0, 0)
    expect = getattr(target, "expect", None)  # (a target written before it: not told)
    if expect is not None and to_read:
        expect(len(to_read), plan.size)
    # made, where the target has none yet, of a sample of all the files to read
    dictionary = _dictionary(target, to_read)
    for start in range(0, len(to_read), step):
        part_progress = None if progress is None else _of_whole(progress, start, len(to_read))
        part = to_read[start : start + step]
        _read_and_store_part(
            target, part, plan, read, (walk, run, dictionary), part_progress, engine
        )
    return read


def _dictionary(target: SyncTarget, to_read: Sequence[str]) -> bytes:
    """The dictionary ``target`` compresses the texts of ``to_read`` against: empty
    where it keeps no texts, or has no :meth:`SyncTarget.text_dictionary`."""
    make = getattr(target, "text_dictionary", None)
    return make(to_read) if target.keeps_text and make is not None and to_read else b""


def _of_whole(progress: Progress, offset: int, total: int) -> Progress:
    """``progress`` told of a part's counts as of the whole's: ``offset`` items before
    the part, ``total`` in all."""

    def progress_of_part(stage: str, done: int, _: int) -> None:
        progress(stage, offset + done, total)

    return progress_of_part


def _read_and_store_part(
    target: SyncTarget,
    part: Sequence[str],
    plan: _Plan,
    read: _Read,
    options: tuple[WalkOptions, RunOptions, bytes],
    progress: Progress | None,
    engine: Engine,
) -> None:
    """Read one part of the files (by the ``options`` of the walk, the run and the
    texts' dictionary), noting in ``read`` what each is, and store the fresh documents as
    they come (all of them by the end)."""
    batches: Iterator[Sequence[Document | StoredDocument | Skipped]]
    walk, run, dictionary = options
    rules = (target.shingling, walk, run)
    fragments = target.fragments
    if target.keeps_text:
        batches = read_stored_batches(
            part, *rules, fragments, progress, engine, text=True, dictionary=dictionary
        )
    elif fragments is None:
        batches = read_batches(part, *rules, progress, engine)
    else:
        batches = read_stored_batches(part, *rules, fragments, progress, engine)
    unstored = _Unstored()
    # the records are this run's own: their fingerprints come with them (not decoded)
    own = fragments is not None
    add = target.add
    if (target.keeps_text or own) and _takes_trusted(target):
        add = partial(target.add, trusted=True)  # read_stored's: ascending, their own bytes
    add(
        _fresh(target, batches, plan, read, unstored),
        plan.mtimes,
        fragments=unstored.records if own else None,
        fingerprints=unstored.fingerprints if own else None,
        replacing=unstored.stale,
        per_transaction=STORE_BATCH,
        texts=unstored.texts if target.keeps_text else None,
    )


def _takes_trusted(target: SyncTarget) -> bool:
    """Whether ``target.add`` takes ``trusted`` (by name, or as any keyword)."""
    try:
        parameters = inspect.signature(target.add).parameters.values()
    except (TypeError, ValueError):  # no signature to read: given none
        return False
    return any(p.name == "trusted" or p.kind is p.VAR_KEYWORD for p in parameters)


def _fresh(
    target: SyncTarget,
    batches: Iterator[Sequence[Document | StoredDocument | Skipped]],
    plan: _Plan,
    read: _Read,
    unstored: _Unstored,
) -> Iterator[Document]:
    """The fresh documents read, each as it comes (the target makes each ready to store
    while the engine reads on), noting in ``read`` what every file is; each document's
    record, fingerprints and bytes are let go once the next is asked for (the target
    has them ready then)."""
    for batch in batches:
        for item in batch:
            document = _sort_read_file(target, item, plan, read, unstored)
            if document is not None:
                yield document
                unstored.records.pop(document.path, None)
                unstored.fingerprints.pop(document.path, None)
                unstored.texts.pop(document.path, None)


def _sort_read_file(
    target: SyncTarget,
    item: Document | StoredDocument | Skipped,
    plan: _Plan,
    read: _Read,
    unstored: _Unstored,
) -> Document | None:
    """Note what reading one file gave: skipped; the same bytes as its entry (which gets
    the new time); or a document to store under the file's identity, returned, its
    record and its entry's older spelling kept in ``unstored``."""
    if isinstance(item, Skipped):
        read.skipped.append(item)
        return None
    document = item.document if isinstance(item, StoredDocument) else item
    # a path found as a file's identity is its own (a corpus that keeps texts is given
    # them as paths): no realpath again, a system call a part of the path
    real = document.path if document.path in plan.found_as else identity(document.path)
    entry = plan.entries.get(real)
    if entry is not None and entry.path == real and entry.sha256 == document.sha256:
        target.touch(real, plan.mtimes.get(real, 0))
        read.unchanged.append(real)
        return None
    if entry is not None and entry.path != real:
        # an older spelling, kept under its identity
        unstored.stale[real] = entry.path
    (read.added if entry is None else read.updated).append(real)
    if isinstance(item, StoredDocument):
        unstored.records[real] = item.record
        unstored.fingerprints[real] = item.fingerprints
        unstored.texts[real] = item.text
    return dataclasses.replace(document, path=real)


def _split_gone_by_content(
    skipped: Iterable[Skipped], entries: dict[str, StoredFile]
) -> tuple[list[Skipped], list[Skipped]]:
    """The files skipped on reading, split in two: the entries to remove for what the
    file now is (named by their stored path), and the rest."""
    gone: list[Skipped] = []
    kept: list[Skipped] = []
    for item in skipped:
        entry = entries.get(identity(item.path))
        if entry is not None and item.kind in _GONE_BY_CONTENT:
            gone.append(dataclasses.replace(item, path=entry.path))
        else:
            kept.append(item)
    return gone, kept


def _missing_under(roots: Sequence[str], plan: _Plan) -> list[Skipped]:
    """The entries at or under ``roots`` whose files were not found and that no longer
    exist (under their stored path or their identity)."""
    real_roots = [identity(root) for root in roots]
    return [
        Skipped(entry.path, SkipReason.MISSING)
        for real, entry in plan.entries.items()
        if real not in plan.found_as
        and any(is_under(real, root) for root in real_roots)
        and not os.path.lexists(entry.path)
        and not os.path.lexists(real)
    ]
