"""A corpus of known files in one SQLite file, to match new files against, exactly.

:class:`Corpus` keeps, for each file added: its path, size, modification time and SHA-256
(so re-adding an unchanged file is a no-op and a changed one replaces its entry), its
shingle set (to verify a match exactly), and its *prefix*: the first ``|y| - ceil(t *
|y|) + 1`` of its shingle hashes in ascending order, for ``t`` the corpus's
``min_threshold``, in a table indexed by hash. Query files probe that table with their own
prefixes, a batch at a time; by the prefix-filtering principle (see :mod:`samecode.scan.join`)
every corpus file of Jaccard ``>= t`` with a query shares a prefix shingle with it, so none
is missed. The batch and the stored files it found are then joined exactly as a scan joins
files (:func:`~samecode.scan.join.prefix_candidates`: rarest shingles first, filters by
size and position), so files that share common shingles (a licence header) are not all
verified against each other, and pairs are reported with their exact similarity.

Cost per file: 8 bytes per distinct shingle for the set, plus a row of about 30 bytes
(with its two indexes) for each of the ``(1 - min_threshold)`` share of its shingles in
the prefix: about 14 bytes per shingle at the default 0.8, some 2 to 4 times the size of
a source file.

A corpus made with ``lsh=LSHSettings(...)`` (:class:`~samecode.minhash.settings.LSHSettings`, format
version 2) finds candidates by LSH instead: it keeps each file's MinHash signature and
its ``b`` buckets, a fixed few hundred bytes per file instead of the prefix rows, and
still verifies every candidate exactly; but a pair LSH does not propose is missed, and
only the Jaccard measure is answered (:meth:`Corpus.lsh_query` also ranks stored files
by a signature's estimate).

The file records a format version, the shingling rules (:class:`~samecode.text.shingling.
Shingling`), the shingle-hash scheme and ``min_threshold``, and refuses queries made by
other rules. It follows the safety rules of :mod:`samecode.hamming.sqlite`: vetted read-only
before anything is written, WAL mode, a transaction per batch (an interrupted
:meth:`Corpus.add` keeps every batch committed, and nothing stored is lost), a checksum per
row, :class:`~samecode.hamming.sqlite.IndexFileError` for a file that cannot be used.

>>> import os, tempfile
>>> from samecode.scan.pipeline import read_documents
>>> from samecode.text.shingling import Shingling
>>> folder = tempfile.mkdtemp()
>>> known = os.path.join(folder, "known.py")
>>> with open(known, "w") as f:
...     _ = f.write("\\n".join(f"total_{i} = price_{i} * count + tax" for i in range(40)))
>>> copy = os.path.join(folder, "copy.py")
>>> with open(copy, "w") as f:
...     _ = f.write("\\n".join(f"total_{i} = price_{i} * count + tax" for i in range(39)))
>>> with Corpus.create(os.path.join(folder, "corpus.db")) as corpus:
...     corpus.add(read_documents([known], Shingling(), None, 1))
...     hits = corpus.match(read_documents([copy], Shingling(), None, 1))
1
>>> [(os.path.basename(p.a), os.path.basename(p.b)) for p in hits]
[('copy.py', 'known.py')]
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import zlib
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from samecode._validation import check_int, describe
from samecode.corpus.records import LAYOUT, StoredDocument, decode, read_stored_batches
from samecode.engine import Engine
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import FragmentOptions
from samecode.minhash.buckets import BucketTable
from samecode.minhash.lsh import Signature
from samecode.minhash.settings import LSHSettings
from samecode.scan.candidates import method
from samecode.scan.join import distinct_sets
from samecode.scan.model import Document, Pair
from samecode.scan.pipeline import join_sets, progress_counter
from samecode.similarity import (
    MEASURES,
    exact_threshold,
    prefix_length,
    reaches,
    reaches_stored,
    size_bounds,
)
from samecode.sources.files import Skipped
from samecode.store.file import (
    IndexCorruptError,
    IndexFileError,
    StoreFile,
    check_timeout,
    read_meta,
    signed64,
    unsigned64,
)
from samecode.text.shingling import Shingling

if TYPE_CHECKING:
    from samecode.scan.pipeline import ScanOptions

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "HASH_SCHEME",
    "Corpus",
    "CorpusSettingsError",
    "StoredFile",
    "SyncReport",
    "identity",
    "no_fragments",
]

#: What a corpus file says it is, and the version of its layout: 1 for a corpus that
#: finds candidates by prefixes, 2 for one that finds them by LSH bands, 3 for one that
#: also stores every file's fragments (its metadata then names its ``candidates``,
#: ``prefix`` or ``lsh``, and its ``fragments`` parameters). A corpus made without
#: fragments is still made as version 1 or 2, so an older samecode reads it.
FORMAT = "samecode-corpus"
FORMAT_VERSION = 3
_VERSIONS = ("1", "2", "3")
_FRAGMENTS = "3"
#: The fragment parameters a corpus records (the others are the query's).
_FRAGMENT_KEYS = ("k", "window", "tokens", "normalize", "keep_licenses", "keep_imports")
#: Of those, the ones given on their own (the tokenization is the shingling's).
_GIVEN_FRAGMENT_KEYS = ("k", "window", "keep_licenses", "keep_imports")
#: How shingles are hashed (:mod:`samecode.text.shingling`): token ids are 8-byte BLAKE2b
#: digests, a shingle is the 64-bit tuple hash of its ids.
HASH_SCHEME = "blake2b64-tuplehash64/1"

_BATCH = 100
# Files per transaction of sync() (bigger than add()'s: fewer commits, each writing the
# pages it changed once), and the page cache (KiB) its connection may use meanwhile:
# the index rows land all over the index, whose pages a small cache reads again and
# again. SQLite takes the cache's memory as pages are used.
_SYNC_BATCH = 1000
_SYNC_CACHE_KIB = 64 << 10
# Files read, then stored, at a time by sync() (what it holds: their documents and records).
_SYNC_FILES = 4096
#: How many shingles (query or stored) one join of :meth:`Corpus.match` holds, about
#: 8 bytes each (and the join's index): the memory bound of a match.
_JOIN_SHINGLES = 16 << 20
#: Values per ``IN (...)`` list.
_LOOKUP_VALUES = 900
#: Why a stored file's new content is not kept (the reasons of
#: :func:`~samecode.scan.pipeline.read_documents` that depend on the file itself): its
#: entry is removed by :meth:`Corpus.sync`.
_GONE_BY_CONTENT = ("empty", "too few tokens", "binary", "too large", "not a regular file")


@dataclasses.dataclass
class _ReadNotStored:
    """What :meth:`Corpus.sync` read of a part and has not stored yet: the fresh
    documents, in order, and by path the older spellings of their entries (removed in
    the transaction that stores them), their fragment records and fingerprints."""

    fresh: list[Document] = dataclasses.field(default_factory=list)
    stale: dict[str, str] = dataclasses.field(default_factory=dict)  # path -> older one
    records: dict[str, bytes] = dataclasses.field(default_factory=dict)
    fingerprints: dict[str, array[int]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _SyncPlan:
    """What :meth:`Corpus.sync` makes of the files it found, before it reads any: every
    entry by its identity, the spelling found of each file (by identity), the files whose
    size and time match their entry, the files to read (in the order found) and each
    file's modification time (by identity)."""

    entries: dict[str, StoredFile]
    found_as: dict[str, str] = dataclasses.field(default_factory=dict)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    to_read: list[str] = dataclasses.field(default_factory=list)
    mtimes: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _SyncRead:
    """What :meth:`Corpus.sync` made of the files it read: stored as new, stored in place
    of their entry, unchanged by their bytes (given their new time only), or skipped."""

    added: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)


def _progress_of_whole(
    progress: Callable[[str, int, int], None], offset: int, total: int
) -> Callable[[str, int, int], None]:
    """``progress`` told of a part's counts as of the whole's: ``offset`` items before
    the part, ``total`` in all."""

    def progress_of_part(stage: str, done: int, _: int) -> None:
        progress(stage, offset + done, total)

    return progress_of_part


def _str_paths(paths: Iterable[str]) -> list[str]:
    """``paths`` as a list, each checked to be a str path.

    :raises TypeError: for a path that is not a str path.
    """
    wanted = [os.fspath(path) for path in paths]
    for path in wanted:
        if not isinstance(path, str):
            raise SamecodeTypeError(f"paths must be str paths; got {describe(path)}")
    return wanted


def _split_gone_by_content(
    skipped: Iterable[Skipped], entries: dict[str, StoredFile]
) -> tuple[list[Skipped], list[Skipped]]:
    """The files :meth:`Corpus.sync` skipped on reading, split in two: the entries to
    remove for what the file now is (named by their stored path), and the rest."""
    gone: list[Skipped] = []
    kept: list[Skipped] = []
    for item in skipped:
        entry = entries.get(identity(item.path))
        if entry is not None and item.reason.split(":")[0] in _GONE_BY_CONTENT:
            gone.append(Skipped(entry.path, item.reason))
        else:
            kept.append(item)
    return gone, kept


def _missing_under(roots: Sequence[str], plan: _SyncPlan) -> list[Skipped]:
    """The entries at or under ``roots`` whose files :meth:`Corpus.sync` did not find and
    that no longer exist (under their stored path or their identity)."""
    real_roots = [identity(root) for root in roots]
    return [
        Skipped(entry.path, "missing")
        for real, entry in plan.entries.items()
        if real not in plan.found_as
        and any(_under(real, root) for root in real_roots)
        and not os.path.lexists(entry.path)
        and not os.path.lexists(real)
    ]


def no_fragments(path: str, version: int) -> SamecodeValueError:
    """The error for a corpus at ``path``, of format ``version``, that stores no
    fragments: what it lacks, and what to do.

    >>> print(no_fragments("old.db", 1))
    old.db stores no fragments (corpus format version 1, made without them): ...
    """
    return SamecodeValueError(
        f"{path} stores no fragments (corpus format version {version}, made without them): "
        "nothing can be matched by fragment against it, and it is left as it is. Make a "
        "corpus that stores them: samecode index add --fragments --db NEW PATH... "
        "(Corpus.create(..., fragments=FragmentOptions()), then sync)"
    )


def identity(path: str) -> str:
    """The one name a corpus keeps a file under: its real path (absolute, every
    symbolic link resolved), so ``known``, ``./known`` and ``$PWD/known`` are one entry.

    >>> import os
    >>> identity("known") == identity("./known") == os.path.realpath("known")
    True
    """
    return os.path.realpath(path)


def _db_path(path: str) -> str | bytes:
    """A path as SQLite can hold it: text, or for a name that is not UTF-8 (Python keeps
    its bytes as lone surrogates) the name's bytes."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def _py_path(value: object) -> str:
    """A stored path back as Python names it (bytes through :func:`os.fsdecode`)."""
    return os.fsdecode(value) if isinstance(value, bytes) else str(value)


def _under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or inside it (both real paths)."""
    if path == root:
        return True
    return path.startswith(root if root.endswith(os.sep) else root + os.sep)


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


class CorpusSettingsError(SamecodeValueError):
    """A setting given for a corpus that it was made otherwise (:meth:`Corpus.check_given`):
    its name (``setting``), what the corpus holds (``stored``; ``None`` where the corpus has
    no such setting: no LSH, no fragments) and what was given (``given``)."""

    def __init__(self, setting: str, stored: object, given: object) -> None:
        held = "none" if stored is None else repr(stored)
        super().__init__(
            f"the corpus was made with {setting} {held}; got {given!r} (it is set when a "
            "corpus is made)"
        )
        self.setting, self.stored, self.given = setting, stored, given


@dataclass(frozen=True)
class SyncReport:
    """What :meth:`Corpus.sync` changed, by path (each as the corpus keeps it: its
    :func:`identity`).

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


@dataclass(frozen=True)
class StoredFile:
    """What a corpus holds of a file (its shingles apart)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    tokens: int
    shingles: int


def _blob(shingles: array[int]) -> bytes:
    values = array("Q", shingles)
    if values.itemsize != 8:  # pragma: no cover - every platform samecode runs on
        raise OSError("this platform has no 8-byte unsigned array type")
    if not _little():
        values.byteswap()  # pragma: no cover - big-endian machines
    return values.tobytes()


def _shingles_of(blob: bytes) -> array[int]:
    values = array("Q")
    values.frombytes(blob)
    if not _little():
        values.byteswap()  # pragma: no cover - big-endian machines
    return values


def _little() -> bool:
    import sys

    return sys.byteorder == "little"


def _crc(path: str, size: int, mtime_ns: int, sha256: str, tokens: int, blob: bytes) -> int:
    head = json.dumps([path, size, mtime_ns, sha256, tokens], ensure_ascii=True).encode()
    return zlib.crc32(blob, zlib.crc32(head))


class _Candidates(ABC):
    """How a corpus finds the stored files a query may match: its own tables, kept in
    step with the files, and a probe (:func:`_candidates_for` picks one)."""

    version: ClassVar[str]
    #: Its tables, each with a ``file`` column naming a row of ``files``.
    file_tables: ClassVar[tuple[str, ...]]

    @abstractmethod
    def tables(self) -> list[str]:
        """The statements that create its tables."""

    @abstractmethod
    def meta(self) -> list[tuple[str, str]]:
        """What the file's metadata records of it."""

    @abstractmethod
    def store(self, corpus: Corpus, file_id: int, ordered: array[int]) -> None:
        """Index a file of these ascending shingles (inside a transaction)."""

    @abstractmethod
    def delete(self, corpus: Corpus, file_id: int) -> None:
        """Forget a file (inside a transaction)."""

    @abstractmethod
    def probe(self, corpus: Corpus, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        """The ids of the files that may reach ``t`` with a query of these shingles."""

    @abstractmethod
    def damage(self, corpus: Corpus, file_id: int, ordered: array[int]) -> str | None:
        """What is wrong with a file's rows, or ``None``."""

    @abstractmethod
    def stats(self, corpus: Corpus) -> dict[str, Any]:
        """Its counts and parameters."""


class _Prefixes(_Candidates):
    """Every file's prefix at ``min_threshold``, by shingle: exact (see the module)."""

    version = "1"
    file_tables = ("prefixes",)

    def __init__(self, lowest: Fraction) -> None:
        self._lowest = lowest

    def tables(self) -> list[str]:
        return [
            "CREATE TABLE prefixes (shingle INTEGER NOT NULL, file INTEGER NOT NULL, "
            "position INTEGER NOT NULL)",
            "CREATE INDEX prefixes_shingle ON prefixes (shingle)",
            "CREATE INDEX prefixes_file ON prefixes (file)",
        ]

    def meta(self) -> list[tuple[str, str]]:
        return []

    def _length(self, count: int) -> int:
        t = self._lowest
        return count - -(-t.numerator * count // t.denominator) + 1

    def store(self, corpus: Corpus, file_id: int, ordered: array[int]) -> None:
        prefix = ordered[: self._length(len(ordered))]
        corpus._many(
            "INSERT INTO prefixes VALUES (?, ?, ?)",
            [(signed64(h), file_id, position) for position, h in enumerate(prefix)],
        )

    def delete(self, corpus: Corpus, file_id: int) -> None:
        corpus._run("DELETE FROM prefixes WHERE file = ?", (file_id,))

    def probe(self, corpus: Corpus, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        # Jaccard: the query's prefix; containment of a stored file: all of the query.
        n = len(ordered)
        probe = ordered[: n - -(-t.numerator * n // t.denominator) + 1]
        return corpus._lookup(
            "SELECT DISTINCT file FROM prefixes WHERE shingle IN ({})",
            [signed64(h) for h in (probe if measure == "jaccard" else ordered)],
        )

    def damage(self, corpus: Corpus, file_id: int, ordered: array[int]) -> str | None:
        stored = [
            unsigned64(h)
            for (h,) in corpus._run(
                "SELECT shingle FROM prefixes WHERE file = ? ORDER BY position", (file_id,)
            )
        ]
        if stored != ordered[: self._length(len(ordered))].tolist():
            return "prefix"
        return None

    def stats(self, corpus: Corpus) -> dict[str, Any]:
        (rows,) = corpus._run("SELECT count(*) FROM prefixes").fetchone()
        return {"candidates": "prefix", "prefix_rows": rows}


class _Bands(_Candidates):
    """Every file's MinHash signature and its LSH buckets: a fixed few rows per file
    rather than a share of its shingles, at the cost of the pairs LSH does not propose
    (see :mod:`samecode.minhash.lsh`)."""

    version = "2"
    file_tables = ("signatures", "buckets")

    def __init__(self, settings: LSHSettings) -> None:
        self.settings = settings
        self.table = BucketTable(settings, "file")

    def tables(self) -> list[str]:
        return [
            "CREATE TABLE signatures (file INTEGER PRIMARY KEY, vals BLOB NOT NULL, "
            "crc INTEGER NOT NULL)",
            *self.table.statements(),
        ]

    def meta(self) -> list[tuple[str, str]]:
        return [("lsh", json.dumps(self.settings.to_dict(), sort_keys=True))]

    def _values(self, ordered: array[int]) -> bytes:
        return self.settings.values(self.settings.signature(ordered))

    def store(self, corpus: Corpus, file_id: int, ordered: array[int]) -> None:
        values = self._values(ordered)
        corpus._run(
            "INSERT INTO signatures VALUES (?, ?, ?)",
            (file_id, values, zlib.crc32(values, file_id & 0xFFFFFFFF)),
        )
        self.table.store(corpus._many, file_id, self._buckets(ordered, values))

    def delete(self, corpus: Corpus, file_id: int) -> None:
        self.table.delete(corpus._run, file_id)
        corpus._run("DELETE FROM signatures WHERE file = ?", (file_id,))

    def _buckets(self, ordered: array[int], values: bytes) -> set[int]:
        # An empty set matches nothing: it gets no buckets (else all empty files would
        # share every bucket, and each would be a candidate of every other).
        return self.table.buckets(values) if ordered else set()

    def probe(self, corpus: Corpus, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        if not ordered:
            return set()
        return self.near(corpus, self._values(ordered))

    def near(self, corpus: Corpus, values: bytes) -> set[int]:
        """The files that share a bucket with a signature of these values."""
        return self.table.near(corpus._run, values)

    def stored(self, corpus: Corpus, file_id: int) -> bytes:
        """A file's stored signature values, checked."""
        row = corpus._run("SELECT vals, crc FROM signatures WHERE file = ?", (file_id,)).fetchone()
        if (
            row is None
            or not isinstance(row[0], bytes)
            or zlib.crc32(row[0], file_id & 0xFFFFFFFF) != row[1]
            or len(row[0]) != self.settings.width
        ):
            raise IndexCorruptError(corpus.path, f"the signature of file {file_id} is damaged")
        return bytes(row[0])

    def damage(self, corpus: Corpus, file_id: int, ordered: array[int]) -> str | None:
        try:
            values = self.stored(corpus, file_id)
        except IndexCorruptError:
            return "signature"
        if values != self._values(ordered):
            return "signature"
        if self.table.held(corpus._run, file_id) != sorted(self._buckets(ordered, values)):
            return "LSH buckets"
        return None

    def stats(self, corpus: Corpus) -> dict[str, Any]:
        rows = self.table.rows(corpus._run)
        return {"candidates": "lsh", "lsh": self.settings.to_dict(), "bucket_rows": rows}


def _recorded(fragments: object, shingling: Shingling) -> dict[str, Any]:
    """The fragment parameters a corpus records, checked to tokenize as ``shingling``."""

    if not isinstance(fragments, FragmentOptions):
        raise SamecodeTypeError(
            f"fragments must be FragmentOptions or None; got {describe(fragments)}"
        )
    if (fragments.tokens, fragments.normalize) != (shingling.tokens, shingling.normalize):
        raise SamecodeValueError(
            f"fragments must tokenize as the corpus's shingling (tokens={shingling.tokens!r}, "
            f"normalize={shingling.normalize}); got tokens={fragments.tokens!r}, "
            f"normalize={fragments.normalize}"
        )
    return {"layout": LAYOUT, **{key: getattr(fragments, key) for key in _FRAGMENT_KEYS}}


def _differences(name: str, there: object, here: object) -> list[str]:
    """How setting ``name`` differs, as :meth:`Corpus.mismatches` says it: for settings
    made of fields, one text per field that differs."""
    if isinstance(there, dict) and isinstance(here, dict):
        return [
            f"{name} {key} is {there.get(key)!r} there, {here.get(key)!r} here"
            for key in sorted(there.keys() | here.keys())
            if there.get(key) != here.get(key)
        ]

    def text(value: object) -> str:
        if isinstance(value, dict):
            return ", ".join(f"{key}={item!r}" for key, item in sorted(value.items()))
        return "none" if value is None else str(value)

    return [f"{name} is {text(there)} there, {text(here)} here"] if there != here else []


def _fragment_options(recorded: Any, shingling: Shingling) -> FragmentOptions:
    """The :class:`~samecode.fragments.options.FragmentOptions` a corpus recorded."""

    if not isinstance(recorded, dict) or recorded.get("layout") != LAYOUT:
        raise SamecodeValueError(
            f"its fragments are stored in layout {describe(recorded)}; this samecode reads "
            f"layout {LAYOUT}"
        )
    chosen = {key: recorded[key] for key in _FRAGMENT_KEYS}
    # a TypeError for a k that is not a number: the metadata is refused
    options = FragmentOptions(**chosen, min_tokens=max(FragmentOptions.min_tokens, chosen["k"]))
    if (options.tokens, options.normalize) != (shingling.tokens, shingling.normalize):
        raise SamecodeValueError("its fragments tokenize otherwise than its shingling")
    return options


def _candidates_for(lowest: Fraction, lsh: LSHSettings | None) -> _Candidates:
    """Prefixes for ``lowest``, or LSH bands by ``lsh`` where given."""
    return _Prefixes(lowest) if lsh is None else _Bands(lsh)


class Corpus(StoreFile):
    """Known files, in a SQLite file, to match new files against.

    Use :meth:`create` for a new file and :meth:`open` for an existing one.

    Runtime complexity: :meth:`add` is ``O(n)`` per file of ``n`` shingles;
    :meth:`match` probes ``(1 - t)`` of the queries' shingles (once per batch of about 4M
    shingles), reads each stored file found once per batch, and joins them as a scan
    does; memory is bounded by the batch (about 8 bytes per shingle, query or stored).
    """

    def __init__(self, db: sqlite3.Connection, path: str, readonly: bool, timeout: float):
        super().__init__(db, path, readonly, timeout)
        meta = read_meta(
            db,
            path,
            FORMAT,
            _VERSIONS,
            ("shingling", "hash_scheme", "min_threshold"),
            "samecode corpus",
        )
        if meta["hash_scheme"] != HASH_SCHEME:
            raise IndexFileError(
                path,
                f"hashes shingles by {meta['hash_scheme']!r}; this samecode by {HASH_SCHEME!r}",
            )
        self._version = int(meta["version"])
        self._fragments: FragmentOptions | None = None
        try:
            self._shingling = Shingling(**json.loads(meta["shingling"]))
            self._min_threshold = exact_threshold(meta["min_threshold"])
            self._lsh = None
            kind = _Bands.version if meta["version"] == _Bands.version else _Prefixes.version
            if meta["version"] == _FRAGMENTS:
                kinds = {"prefix": _Prefixes.version, "lsh": _Bands.version}
                if meta["candidates"] not in kinds:
                    raise SamecodeValueError(f"unknown candidates {meta['candidates']!r}")
                kind = kinds[meta["candidates"]]
                self._fragments = _fragment_options(json.loads(meta["fragments"]), self._shingling)
            if kind == _Bands.version:
                self._lsh = LSHSettings.from_dict(json.loads(meta["lsh"]))
            elif "lsh" in meta:
                raise SamecodeValueError(
                    f"a version {meta['version']} corpus has no LSH settings (it finds "
                    "candidates by prefixes)"
                )
        except KeyError as error:
            raise IndexCorruptError(path, f"its metadata lacks {error.args[0]}") from None
        except (TypeError, ValueError) as error:
            raise IndexCorruptError(path, f"its metadata is refused: {error}") from None
        self._candidates = _candidates_for(self._min_threshold, self._lsh)

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        shingling: Shingling | None = None,
        *,
        min_threshold: Fraction | float | str = Fraction(4, 5),
        lsh: LSHSettings | None = None,
        fragments: FragmentOptions | None = None,
        timeout: float = 30.0,
        exist_ok: bool = False,
    ) -> Corpus:
        """Create a new corpus file and open it for writing.

        :param path: where; the file must not exist (unless ``exist_ok``).
        :param shingling: the rules its files are shingled by (the default rules).
        :param min_threshold: the lowest threshold it can answer; prefixes are stored for
            it, so a lower one stores more (``1 - min_threshold`` of every file's
            shingles).
        :param lsh: find candidates by LSH with these settings instead of by prefixes
            (format version 2): a signature and ``b`` bucket rows per file (about ``4 *
            num_perm + 30 * b`` bytes) instead of prefix rows, but a pair LSH does not
            propose is missed, and only the Jaccard measure is answered. Tune it well
            below ``min_threshold`` (see :mod:`samecode.minhash.lsh`).
        :param fragments: also store every file's fragments, by these parameters
            (:class:`~samecode.fragments.options.FragmentOptions`: its ``k``, ``window``,
            ``keep_licenses`` and ``keep_imports`` are recorded; its ``tokens`` and
            ``normalize`` must be ``shingling``'s), for :meth:`match_fragments` (format
            version 3; see :mod:`samecode.corpus.records` for the cost).
        :param timeout: how many seconds a change waits for another writer's lock.
        :param exist_ok: create or open: where ``path`` exists, or another process makes
            it while this call does (of several processes creating one corpus at once, one
            makes it and the others open it), open it for writing, provided it was made
            with these settings (see :meth:`mismatches`).
        :raises FileExistsError: if ``path`` exists and not ``exist_ok``.
        :raises TypeError: for a parameter of the wrong type.
        :raises ValueError: if ``fragments`` tokenize otherwise than ``shingling``, or, with
            ``exist_ok``, if the corpus at ``path`` was made with other settings (the
            message names each).
        :raises IndexFileError: if the file cannot be made (or, with ``exist_ok``, opened).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "c.db")
        >>> Corpus.create(path).close()
        >>> with Corpus.create(path, exist_ok=True) as corpus:
        ...     len(corpus)
        0
        >>> Corpus.create(path, min_threshold=0.5, exist_ok=True)
        Traceback (most recent call last):
        ...
        samecode.errors.SamecodeValueError: ...c.db exists ...: min_threshold is 4/5 there, 1/2 here
        """
        if exist_ok:
            return cls._create_or_open(path, shingling, min_threshold, lsh, fragments, timeout)
        path = os.fspath(path)
        shingling = shingling or Shingling()
        if not isinstance(shingling, Shingling):
            raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(shingling)}")
        if lsh is not None and not isinstance(lsh, LSHSettings):
            raise SamecodeTypeError(f"lsh must be LSHSettings or None; got {describe(lsh)}")
        lowest = exact_threshold(min_threshold)
        timeout = check_timeout(timeout)
        candidates = _candidates_for(lowest, lsh)
        version = candidates.version
        extra: list[tuple[str, str]] = []
        tables: list[str] = []
        if fragments is not None:
            recorded = _recorded(fragments, shingling)
            version = _FRAGMENTS
            kind = "lsh" if lsh is not None else "prefix"
            extra = [("candidates", kind), ("fragments", json.dumps(recorded, sort_keys=True))]
            tables = [
                "CREATE TABLE fragments (file INTEGER PRIMARY KEY, data BLOB NOT NULL, "
                "crc INTEGER NOT NULL)",
                "CREATE TABLE fragment_index (hash INTEGER NOT NULL, file INTEGER NOT NULL, "
                "PRIMARY KEY (hash, file)) WITHOUT ROWID",
            ]
        statements = [
            "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, "
            "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, "
            "tokens INTEGER NOT NULL, count INTEGER NOT NULL, "
            "shingles BLOB NOT NULL, crc INTEGER NOT NULL)",
            *candidates.tables(),
            *tables,
        ]
        meta = [
            ("format", FORMAT),
            ("version", version),
            ("shingling", json.dumps(shingling.to_dict(), sort_keys=True)),
            ("hash_scheme", HASH_SCHEME),
            ("min_threshold", str(lowest)),
            *candidates.meta(),
            *extra,
        ]
        return cls._create_path(path, timeout, "corpus with Corpus.open", statements, meta)

    @classmethod
    def _create_or_open(
        cls,
        path: str | os.PathLike[str],
        shingling: Shingling | None,
        min_threshold: Fraction | float | str,
        lsh: LSHSettings | None,
        fragments: FragmentOptions | None,
        timeout: float,
    ) -> Corpus:
        """:meth:`create` with ``exist_ok``."""
        try:
            return cls.create(
                path,
                shingling,
                min_threshold=min_threshold,
                lsh=lsh,
                fragments=fragments,
                timeout=timeout,
            )
        except FileExistsError:
            pass  # made before or meanwhile: opened below, settings checked
        corpus = cls.open(path, timeout=timeout)
        try:
            differ = corpus.mismatches(
                shingling, min_threshold=min_threshold, lsh=lsh, fragments=fragments
            )
        except BaseException:
            corpus.close()
            raise
        if differ:
            corpus.close()
            raise SamecodeValueError(
                f"{os.fspath(path)} exists with other settings: {'; '.join(differ)}"
            )
        return corpus

    def check_given(
        self,
        *,
        min_threshold: Fraction | float | str | None = None,
        candidates: str | None = None,
        num_perm: int | None = None,
        lsh_threshold: float | None = None,
        fragments: bool = False,
        **stored_fragments: object,
    ) -> None:
        """Refuse settings given for this corpus that it was made otherwise (``None``: not
        given; a corpus's settings are fixed when it is made). The checks run in this
        order, the first that fails raised: fragments asked of a corpus that stores none
        (``fragments`` true, or any of ``k``, ``window``, ``keep_licenses`` and
        ``keep_imports`` given), each of those four, ``min_threshold``, ``candidates``
        (``"prefix"`` or ``"lsh"``), ``num_perm`` and ``lsh_threshold``.

        :param stored_fragments: ``k``, ``window``, ``keep_licenses``, ``keep_imports``.
        :raises CorpusSettingsError: naming the first setting that differs.
        :raises TypeError: for a name that is no setting a corpus stores.

        >>> import os, tempfile
        >>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "c.db")) as corpus:
        ...     corpus.check_given(min_threshold="0.8", candidates="prefix")
        ...     corpus.check_given(num_perm=64)
        Traceback (most recent call last):
        ...
        samecode.corpus.store.CorpusSettingsError: the corpus was made with lsh none; ...
        """
        unknown = sorted(set(stored_fragments) - set(_GIVEN_FRAGMENT_KEYS))
        if unknown:
            raise SamecodeTypeError(f"check_given got settings a corpus does not store: {unknown}")
        given = [(name, stored_fragments.get(name)) for name in _GIVEN_FRAGMENT_KEYS]
        given = [(name, value) for name, value in given if value is not None]
        held = self._fragments
        if held is None:
            if fragments or given:
                raise CorpusSettingsError("fragments", None, True)
        else:
            for name, value in given:
                if value != getattr(held, name):
                    raise CorpusSettingsError(name, getattr(held, name), value)
        if min_threshold is not None and exact_threshold(min_threshold) != self._min_threshold:
            raise CorpusSettingsError("min_threshold", self._min_threshold, min_threshold)
        kind = "prefix" if self._lsh is None else "lsh"
        if candidates is not None and candidates != kind:
            raise CorpusSettingsError("candidates", kind, candidates)
        for name, value in (("num_perm", num_perm), ("lsh_threshold", lsh_threshold)):
            if value is None:
                continue
            if self._lsh is None:
                raise CorpusSettingsError("lsh", None, {name: value})
            stored = self._lsh.num_perm if name == "num_perm" else self._lsh.threshold
            if float(value) != stored:
                raise CorpusSettingsError(name, stored, value)

    def mismatches(
        self,
        shingling: Shingling | None = None,
        *,
        min_threshold: Fraction | float | str = Fraction(4, 5),
        lsh: LSHSettings | None = None,
        fragments: FragmentOptions | None = None,
    ) -> list[str]:
        """How the settings :meth:`create` would be given differ from this corpus's: one
        text per setting that differs (``"<setting> is <stored> there, <asked> here"``),
        none if it was made with these.

        :param shingling: as for :meth:`create` (``None``: the default rules).
        :param min_threshold: as for :meth:`create`.
        :param lsh: as for :meth:`create`.
        :param fragments: as for :meth:`create` (its recorded fields are compared).
        :raises TypeError, ValueError: for a setting :meth:`create` would refuse.

        >>> import os, tempfile
        >>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "c.db")) as corpus:
        ...     corpus.mismatches(), corpus.mismatches(Shingling(size=3))
        ([], ['shingling size is 5 there, 3 here'])
        """
        asked = shingling or Shingling()
        if not isinstance(asked, Shingling):
            raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(asked)}")
        if lsh is not None and not isinstance(lsh, LSHSettings):
            raise SamecodeTypeError(f"lsh must be LSHSettings or None; got {describe(lsh)}")
        wanted = None if fragments is None else _recorded(fragments, asked)
        held = None if self._fragments is None else _recorded(self._fragments, self._shingling)
        pairs = {
            "shingling": (self._shingling.to_dict(), asked.to_dict()),
            "min_threshold": (self._min_threshold, exact_threshold(min_threshold)),
            "lsh": (
                None if self._lsh is None else self._lsh.to_dict(),
                None if lsh is None else lsh.to_dict(),
            ),
            "fragments": (held, wanted),
        }
        return [text for name, pair in pairs.items() for text in _differences(name, *pair)]

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, readonly: bool = False, timeout: float = 30.0
    ) -> Corpus:
        """Open an existing corpus file (checked read-only first; see
        :mod:`samecode.hamming.sqlite`).

        :raises FileNotFoundError: if ``path`` does not exist.
        :raises IndexFileError: if it is not a samecode corpus of this version, is damaged,
            or cannot be opened.
        """
        return cls._open_path(path, readonly, timeout, "samecode corpus")

    # -- properties -------------------------------------------------------------------

    @property
    def shingling(self) -> Shingling:
        """The rules this corpus's files were shingled by."""
        return self._shingling

    @property
    def min_threshold(self) -> Fraction:
        """The lowest threshold this corpus answers."""
        return self._min_threshold

    @property
    def lsh(self) -> LSHSettings | None:
        """The LSH settings it finds candidates by, or ``None`` (by prefixes: exact)."""
        return self._lsh

    @property
    def format_version(self) -> int:
        """The version of the file's layout (see :data:`FORMAT_VERSION`)."""
        return self._version

    @property
    def fragments(self) -> FragmentOptions | None:
        """The parameters its files' fragments are stored by (``k``, ``window``,
        ``tokens``, ``normalize``, ``keep_licenses``, ``keep_imports``; the rest are the
        defaults), or ``None`` for a corpus that stores none (made without
        ``fragments``, or by a samecode before format version 3)."""
        return self._fragments

    def __len__(self) -> int:
        return int(self._run("SELECT count(*) FROM files").fetchone()[0])

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        row = self._run("SELECT 1 FROM files WHERE path = ?", (_db_path(path),)).fetchone()
        return row is not None

    def files(self) -> Iterator[StoredFile]:
        """Iterate over the files held, by path."""
        rows = self._run(
            "SELECT path, size, mtime_ns, sha256, tokens, count FROM files ORDER BY path"
        )
        return (StoredFile(_py_path(row[0]), *row[1:]) for row in rows)

    def stored(self, path: str) -> StoredFile | None:
        """What the corpus holds of ``path``, or ``None``."""
        row = self._run(
            "SELECT path, size, mtime_ns, sha256, tokens, count FROM files WHERE path = ?",
            (_db_path(path),),
        ).fetchone()
        return None if row is None else StoredFile(_py_path(row[0]), *row[1:])

    def stats(self) -> dict[str, Any]:
        """Counts and parameters: files, shingles, prefix rows, bytes of the file, rules.

        >>> import os, tempfile
        >>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "c.db")) as corpus:
        ...     corpus.stats()["files"]
        0
        """
        files, shingles = self._run(
            "SELECT count(*), coalesce(sum(count), 0) FROM files"
        ).fetchone()
        return {
            "path": self._path,
            "format_version": self._version,
            "files": files,
            "shingles": shingles,
            "bytes": os.path.getsize(self._path),
            "shingling": self._shingling.to_dict(),
            "hash_scheme": HASH_SCHEME,
            "min_threshold": str(self._min_threshold),
            **self._candidates.stats(self),
            **self._fragment_stats(),
        }

    def _fragment_stats(self) -> dict[str, Any]:
        if self._fragments is None:
            return {"fragments": None}
        records, size = self._run(
            "SELECT count(*), coalesce(sum(length(data)), 0) FROM fragments"
        ).fetchone()
        (rows,) = self._run("SELECT count(*) FROM fragment_index").fetchone()
        recorded = {key: getattr(self._fragments, key) for key in _FRAGMENT_KEYS}
        return {
            "fragments": recorded,
            "fragment_records": records,
            "fragment_record_bytes": size,
            "fragment_index_rows": rows,
        }

    # -- changes ----------------------------------------------------------------------

    def add(
        self,
        documents: Iterable[Document],
        mtimes: dict[str, int] | None = None,
        *,
        fragments: dict[str, bytes] | None = None,
    ) -> int:
        """Store documents (made by these rules), replacing any of the same path; return
        how many were stored. Each batch of 100 is one transaction.

        :param documents: :class:`~samecode.scan.pipeline.Document` records (other items are
            ignored, so :func:`~samecode.scan.pipeline.read_documents`' output can be passed).
        :param mtimes: each path's modification time in ns (read from the file if absent).
        :param fragments: for a corpus that stores fragments, each document's fragment
            record by path (:func:`~samecode.corpus.records.read_stored` reads both;
            :meth:`sync` does it all).
        :raises PermissionError: if the corpus was opened read-only.
        :raises IndexLockedError: if another writer holds the lock past the timeout.
        :raises ValueError: for a corpus that stores fragments, a document without its
            record, or a record that does not decode (nothing of its batch is stored).
        """
        return self._add(documents, mtimes, fragments, None)

    def _add(
        self,
        documents: Iterable[Document],
        mtimes: dict[str, int] | None,
        fragments: dict[str, bytes] | None,
        fingerprints: dict[str, array[int]] | None,
        size: int = _BATCH,
        replacing: dict[str, str] | None = None,
    ) -> int:
        """:meth:`add`, given each record's fingerprints (by path) where they are known,
        as :meth:`sync` knows those its workers made: such a record is not decoded; a
        transaction stores ``size`` documents, and removes the entries ``replacing``
        names for them (by path: an older spelling of the same file)."""
        self._check_writable()
        count = 0
        batch: list[Document] = []
        for document in documents:
            if isinstance(document, Document):
                batch.append(document)
            if len(batch) >= size:
                count += self._store(batch, mtimes, fragments, fingerprints, replacing)
                batch = []
        if batch:
            count += self._store(batch, mtimes, fragments, fingerprints, replacing)
        return count

    def _records(
        self,
        batch: Sequence[Document],
        fragments: dict[str, bytes] | None,
        fingerprints: dict[str, array[int]] | None,
    ) -> list[tuple[bytes, Sequence[int]]]:
        """Each document's fragment record and its distinct fingerprint hashes, sorted:
        given, or the record decoded, which checks it (none for a corpus without
        fragments)."""
        if self._fragments is None:
            return []

        out: list[tuple[bytes, Sequence[int]]] = []
        for document in batch:
            record = None if fragments is None else fragments.get(document.path)
            if not isinstance(record, bytes):
                raise SamecodeValueError(
                    f"{self._path} stores fragments: {document.path!r} needs its fragment "
                    "record (read files with samecode.corpus.records.read_stored, or use "
                    "sync())"
                )
            known = None if fingerprints is None else fingerprints.get(document.path)
            if known is not None:
                out.append((record, known))
            else:
                found = decode(record, document.path, self._fragments.k)
                out.append((record, sorted(set(found.fingerprints))))
        return out

    def _store(
        self,
        batch: Sequence[Document],
        mtimes: dict[str, int] | None,
        fragments: dict[str, bytes] | None = None,
        fingerprints: dict[str, array[int]] | None = None,
        replacing: dict[str, str] | None = None,
    ) -> int:
        records = self._records(batch, fragments, fingerprints)
        rows = []
        for document in batch:
            if mtimes is not None and document.path in mtimes:
                mtime = mtimes[document.path]
            else:
                try:
                    mtime = os.stat(document.path).st_mtime_ns
                except OSError:
                    mtime = 0
            ordered = array("Q", sorted(document.shingles))
            rows.append((document, mtime, _blob(ordered), ordered))
        index_rows: list[tuple[int, int]] = []  # the fragment index's, of the batch
        stored: dict[str, int] = {}  # path -> id, of the batch
        with self._transaction():
            for number, (document, mtime, blob, ordered) in enumerate(rows):
                if document.path in stored:  # replaced within the batch: its rows go too
                    gone = stored[document.path]  # (and its id may be given again)
                    index_rows = [row for row in index_rows if row[1] != gone]
                older = None if replacing is None else replacing.get(document.path)
                if older is not None:
                    self._delete(older)  # an older spelling of this file: replaced here
                self._delete(document.path)
                cursor = self._run(
                    "INSERT INTO files (path, size, mtime_ns, sha256, tokens, count, shingles, crc)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        _db_path(document.path),
                        document.size,
                        mtime,
                        document.sha256,
                        document.tokens,
                        len(document.shingles),
                        blob,
                        _crc(
                            document.path,
                            document.size,
                            mtime,
                            document.sha256,
                            document.tokens,
                            blob,
                        ),
                    ),
                )
                file_id = cursor.lastrowid
                if file_id is None:  # pragma: no cover - an INSERT always has a row id
                    raise IndexCorruptError(self._path, "SQLite gave no row id")
                stored[document.path] = file_id
                self._candidates.store(self, file_id, ordered)
                if records:
                    record, hashes = records[number]
                    self._run(
                        "INSERT INTO fragments VALUES (?, ?, ?)",
                        (file_id, record, zlib.crc32(record, file_id & 0xFFFFFFFF)),
                    )
                    index_rows += [(signed64(value), file_id) for value in hashes]
            # in the index's order: the rows of the batch land on the pages of the index
            # one after the other, each page read (and written) once for the batch
            if index_rows:
                index_rows.sort()
                self._many("INSERT INTO fragment_index VALUES (?, ?)", index_rows)
        return len(rows)

    def touch(self, path: str, mtime_ns: int) -> None:
        """Record a new modification time for a file whose bytes did not change."""
        self._check_writable()
        row = self._run(
            "SELECT size, sha256, tokens, shingles FROM files WHERE path = ?", (_db_path(path),)
        ).fetchone()
        if row is None:
            raise KeyError(path)
        size, sha256, tokens, blob = row
        with self._transaction():
            self._run(
                "UPDATE files SET mtime_ns = ?, crc = ? WHERE path = ?",
                (mtime_ns, _crc(path, size, mtime_ns, sha256, tokens, blob), _db_path(path)),
            )

    def _delete(self, path: str) -> bool:
        row = self._run("SELECT id FROM files WHERE path = ?", (_db_path(path),)).fetchone()
        if row is None:
            return False
        self._candidates.delete(self, row[0])
        if self._fragments is not None:
            self._delete_fragments(row[0], path, self._fragments.k)
        self._run("DELETE FROM files WHERE id = ?", row)
        return True

    def _delete_fragments(self, file_id: int, path: str, k: int) -> None:

        try:
            record = self.fragment_record(file_id)
            hashes = set(decode(record, path, k).fingerprints)
        except (IndexCorruptError, SamecodeValueError):  # damaged: every row, by a scan
            self._run("DELETE FROM fragment_index WHERE file = ?", (file_id,))
        else:
            self._many(
                "DELETE FROM fragment_index WHERE hash = ? AND file = ?",
                [(signed64(value), file_id) for value in hashes],
            )
        self._run("DELETE FROM fragments WHERE file = ?", (file_id,))

    def remove(self, paths: Iterable[str], *, recursive: bool = False) -> int:
        """Remove files by path (one transaction); return how many were held.

        A path names an entry by any spelling: as stored, or as the same file
        (:func:`identity`), so ``known``, ``./known`` and ``$PWD/known`` remove one entry.

        :param paths: the files (or, with ``recursive``, files and folders).
        :param recursive: remove the entries at or under each path.
        :raises PermissionError: if the corpus was opened read-only.

        >>> import os, tempfile
        >>> from samecode.scan.model import Document
        >>> folder = tempfile.mkdtemp()
        >>> with Corpus.create(os.path.join(folder, "c.db")) as corpus:
        ...     _ = corpus.add([Document(os.path.join(folder, "a.py"), 1, "0", 1, array("Q", [1]))])
        ...     corpus.remove([os.path.join(folder, ".", "a.py")])
        1
        """
        self._check_writable()
        wanted = _str_paths(paths)
        targets = {identity(path) for path in wanted}
        if not recursive:  # the usual case, by index: as given, or as sync() stores it
            direct = [p for p in {*wanted, *targets} if p in self]
            if all(p in direct or identity(p) in direct for p in wanted):
                with self._transaction():
                    return sum(self._delete(path) for path in direct)
        doomed = self._stored_paths_matching(wanted, targets, recursive=recursive)
        with self._transaction():
            return sum(self._delete(path) for path in doomed)

    def _stored_paths_matching(
        self, wanted: Sequence[str], targets: set[str], *, recursive: bool
    ) -> list[str]:
        """The stored paths of the entries :meth:`remove` removes, whatever spelling they
        are stored under (by :meth:`add`, or an older samecode), or under a folder: every
        entry, by its identity."""
        doomed = []
        for path in [f.path for f in self.files()]:
            if path in wanted:
                doomed.append(path)
                continue
            real = path if path in targets else identity(path)
            if real in targets or (recursive and any(_under(real, t) for t in targets)):
                doomed.append(path)
        return doomed

    def sync(
        self,
        paths: Sequence[str | os.PathLike[str]],
        options: ScanOptions | None = None,
        *,
        prune: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
        engine: Engine | None = None,
    ) -> SyncReport:
        """Bring the corpus up to date with the files under ``paths``: store new files,
        replace changed ones, keep unchanged ones, and say what changed.

        Each file is kept under its :func:`identity` (its real path), whatever spelling
        found it. A file whose size and modification time match its entry is not read;
        one whose bytes (SHA-256) are the same gets its new time only. A stored file whose
        new content is skipped for what it is (empty, too few tokens, binary, too large,
        not a regular file) loses its entry; with ``prune``, so does a stored file at or
        under ``paths`` that no longer exists. A name that is not UTF-8 is stored as its
        bytes and named as Python names it (:func:`os.fsdecode`).

        :param paths: files and folders.
        :param options: which files and how they are read (``include``, ``exclude``,
            ``gitignore``, ``default_excludes``, ``follow_symlinks``, ``min_tokens``,
            ``max_size``, ``jobs``: :class:`~samecode.scan.pipeline.ScanOptions`); its
            shingling must be the corpus's (the corpus's when ``None``).
        :param prune: remove the entries of files under ``paths`` that are gone.
        :param progress: called as ``progress(stage, done, total)`` while files are read.
        :param engine: where the files to read are read and shingled (this process by
            default; a :class:`~samecode.engine.ProcessPool` spreads it); the corpus
            is written in this process, the same whatever the engine.
        :raises TypeError: if ``paths`` is a lone path, or ``options`` not ScanOptions.
        :raises ValueError: if ``options`` shingle by other rules than the corpus.
        :raises PermissionError: if the corpus was opened read-only.

        Runtime complexity: ``O(files)`` to walk the paths and look at each file's size and
        time; ``O(size)`` to read and fingerprint each new or changed file (on the
        engine), and its rows written. Memory: the stored entries' paths, and the
        documents (and fragment records) of 4,096 files at most: the files are read a
        part of 4,096 at a time, and stored as they come, in transactions of 1,000 files,
        while the engine reads on (a corpus that stores fragments takes the fingerprints
        its workers found with each record, rather than decoding it again). A sync that
        stops midway (an error, an interrupt) leaves the transactions before stored, each
        entry whole and valid; running it again stores the rest.

        >>> import os, tempfile
        >>> from samecode.scan.pipeline import ScanOptions
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "a.py"), "w") as f:
        ...     _ = f.write(" ".join(f"word{i}" for i in range(40)))
        >>> options = ScanOptions(gitignore=False)
        >>> with Corpus.create(os.path.join(folder, "c.db")) as corpus:
        ...     first = corpus.sync([folder], options)
        ...     again = corpus.sync([os.path.join(folder, ".", "a.py")], options)
        >>> [os.path.basename(p) for p in first.added], len(again.unchanged), again.held
        (['a.py'], 1, 1)
        """
        from samecode.scan.pipeline import discover

        roots, options = self._sync_arguments(paths, options)
        found, skipped = discover(roots, options)
        plan = self._plan_sync(found)
        read = self._read_and_store(plan, options, progress, engine)
        gone, kept = _split_gone_by_content(read.skipped, plan.entries)
        skipped.extend(kept)
        if prune:
            gone += _missing_under(roots, plan)
        removed = self._remove_gone(gone)
        return SyncReport(
            added=tuple(read.added),
            updated=tuple(read.updated),
            unchanged=tuple(plan.unchanged + read.unchanged),
            removed=tuple(removed),
            skipped=tuple(skipped),
            held=len(self),
        )

    def _sync_arguments(
        self, paths: Sequence[str | os.PathLike[str]], options: ScanOptions | None
    ) -> tuple[list[str], ScanOptions]:
        """:meth:`sync`'s paths and options, checked (the corpus's options when ``None``).

        :raises PermissionError: if the corpus was opened read-only.
        :raises TypeError: if ``paths`` is a lone path, or ``options`` not ScanOptions.
        :raises ValueError: if ``options`` shingle by other rules than the corpus.
        """
        from samecode.scan.pipeline import ScanOptions as Options

        self._check_writable()
        if isinstance(paths, (str, bytes, os.PathLike)):
            raise SamecodeTypeError(f"paths must be a list of paths; got {describe(paths)}")
        roots = [os.fspath(path) for path in paths]
        if options is None:
            options = Options(shingling=self._shingling)
        if not isinstance(options, Options):
            raise SamecodeTypeError(f"options must be ScanOptions; got {describe(options)}")
        if options.shingling != self._shingling:
            raise SamecodeValueError(
                f"options shingle by {options.shingling.to_dict()}; this corpus by "
                f"{self._shingling.to_dict()}"
            )
        return roots, options

    def _entries_by_identity(self) -> dict[str, StoredFile]:
        """Every entry by its identity (an entry stored under another spelling by an older
        samecode, or by add(), is found too, and replaced under its identity)."""
        entries: dict[str, StoredFile] = {}
        for held_file in self.files():
            entries.setdefault(identity(held_file.path), held_file)
        return entries

    def _plan_sync(self, found: Sequence[str]) -> _SyncPlan:
        """What :meth:`sync` does with each file found, before reading any: a file whose
        entry has its size and time is unchanged; any other is read (one that cannot be
        looked at too: reading says why)."""
        plan = _SyncPlan(self._entries_by_identity())
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
        return plan

    def _read_and_store(
        self,
        plan: _SyncPlan,
        options: ScanOptions,
        progress: Callable[[str, int, int], None] | None,
        engine: Engine | None,
    ) -> _SyncRead:
        """Read the files :meth:`sync` planned to read, and store what changed.

        A part of the files at a time, read (on the engine): the memory held is a part's
        documents and records at most, whatever the number of files. A part holds at
        least two batches a worker, so that every worker has some. What is read is stored
        as it comes, a transaction of ``_SYNC_BATCH`` files at a time, while the engine
        reads on.
        """
        read = _SyncRead()
        to_read = plan.to_read
        workers = 1 if engine is None else engine.workers
        step = max(_SYNC_FILES, 2 * options.batch_size * workers)
        if progress is not None and not to_read:
            progress("read", 0, 0)
        with self._sync_cache():
            for start in range(0, len(to_read), step):
                part_progress = (
                    None if progress is None else _progress_of_whole(progress, start, len(to_read))
                )
                self._read_and_store_part(
                    to_read[start : start + step], plan, read, options, part_progress, engine
                )
        return read

    def _read_and_store_part(
        self,
        part: Sequence[str],
        plan: _SyncPlan,
        read: _SyncRead,
        options: ScanOptions,
        progress: Callable[[str, int, int], None] | None,
        engine: Engine | None,
    ) -> None:
        """Read one part of :meth:`sync`'s files, noting in ``read`` what each is, and
        store the fresh documents as they come (all of them by the end)."""
        from samecode.scan.pipeline import read_batches

        batches: Iterator[Sequence[Document | StoredDocument | Skipped]]
        if self._fragments is None:
            batches = read_batches(part, options, progress, engine)
        else:
            batches = read_stored_batches(part, options, self._fragments, progress, engine)
        unstored = _ReadNotStored()
        for batch in batches:
            for item in batch:
                self._sort_read_file(item, plan, read, unstored)
            if len(unstored.fresh) >= _SYNC_BATCH:
                self._store_read(unstored, plan.mtimes, everything=False)
        self._store_read(unstored, plan.mtimes, everything=True)

    def _sort_read_file(
        self,
        item: Document | StoredDocument | Skipped,
        plan: _SyncPlan,
        read: _SyncRead,
        unstored: _ReadNotStored,
    ) -> None:
        """Note what reading one file gave: skipped; the same bytes as its entry (which
        gets the new time); or a document to store under the file's identity, kept in
        ``unstored`` with its record and its entry's older spelling."""
        if isinstance(item, Skipped):
            read.skipped.append(item)
            return
        document = item.document if isinstance(item, StoredDocument) else item
        real = identity(document.path)
        entry = plan.entries.get(real)
        if entry is not None and entry.path == real and entry.sha256 == document.sha256:
            self.touch(real, plan.mtimes.get(real, 0))
            read.unchanged.append(real)
            return
        if entry is not None and entry.path != real:
            # an older spelling, kept under its identity
            unstored.stale[real] = entry.path
        (read.added if entry is None else read.updated).append(real)
        unstored.fresh.append(dataclasses.replace(document, path=real))
        if isinstance(item, StoredDocument):
            unstored.records[real] = item.record
            unstored.fingerprints[real] = item.fingerprints

    def _remove_gone(self, gone: Sequence[Skipped]) -> list[Skipped]:
        """Remove the entries of the files :meth:`sync` found gone (one transaction);
        return those that were held."""
        removed: list[Skipped] = []
        if gone:
            with self._transaction():
                for item in gone:
                    if self._delete(item.path):
                        removed.append(item)
        return removed

    @contextlib.contextmanager
    def _sync_cache(self) -> Iterator[None]:
        """A page cache of ``_SYNC_CACHE_KIB`` for the connection while :meth:`sync`
        writes, the one it had back after."""
        (previous,) = self._run("PRAGMA cache_size").fetchone()
        self._run(f"PRAGMA cache_size = {-_SYNC_CACHE_KIB}")
        try:
            yield
        finally:
            with contextlib.suppress(sqlite3.Error):  # the connection may be gone
                self._db.execute(f"PRAGMA cache_size = {int(previous)}")

    def _store_read(
        self, unstored: _ReadNotStored, mtimes: dict[str, int], *, everything: bool
    ) -> None:
        """Store what :meth:`sync` read and holds: the fresh documents, in whole
        transactions of ``_SYNC_BATCH`` but for ``everything``, each with its entry's older
        spelling removed in its transaction."""
        fresh = unstored.fresh
        cut = len(fresh) if everything else len(fresh) - len(fresh) % _SYNC_BATCH
        if not cut:
            return
        # the records are this run's own: their fingerprints come with them (not decoded)
        if self._fragments is None:
            self._add(fresh[:cut], mtimes, None, None, _SYNC_BATCH, unstored.stale)
        else:
            self._add(
                fresh[:cut], mtimes, unstored.records, unstored.fingerprints, _SYNC_BATCH,
                unstored.stale,
            )  # fmt: skip
        for document in fresh[:cut]:
            unstored.records.pop(document.path, None)
            unstored.fingerprints.pop(document.path, None)
            unstored.stale.pop(document.path, None)
        del fresh[:cut]

    # -- queries ----------------------------------------------------------------------

    def _load(self, file_id: int) -> tuple[str, array[int]]:
        row = self._run(
            "SELECT path, size, mtime_ns, sha256, tokens, count, shingles, crc FROM files "
            "WHERE id = ?",
            (file_id,),
        ).fetchone()
        if row is None:  # rows of a damaged file
            raise IndexCorruptError(self._path, f"a candidate names file {file_id}, which is gone")
        return self._checked(row)

    def _checked(self, row: Sequence[Any]) -> tuple[str, array[int]]:
        """A ``files`` row's path and shingles, checked against its checksum."""
        stored_path, size, mtime, sha256, tokens, count, blob, crc = row
        path = _py_path(stored_path)
        if not isinstance(blob, bytes) or _crc(path, size, mtime, sha256, tokens, blob) != crc:
            raise IndexCorruptError(self._path, f"the entry of {path!r} fails its checksum")
        shingles = _shingles_of(blob)
        if len(shingles) != count:
            raise IndexCorruptError(self._path, f"the entry of {path!r} is damaged")
        return path, shingles

    def match(
        self,
        documents: Iterable[Document],
        threshold: Fraction | float | str | None = None,
        measure: str = "jaccard",
        progress: Callable[[str, int, int], None] | None = None,
        engine: Engine | None = None,
    ) -> list[Pair]:
        """Return, for every query document, the corpus files at or above ``threshold``.

        Each :class:`~samecode.scan.pipeline.Pair` has the query's path as ``a`` and the corpus
        file's as ``b``, and the exact counts; a file does not match its own entry (the
        same file, by any spelling: see :func:`identity`). With ``measure="containment"``
        a corpus file is reported when that much of *it* is in the query (a known file
        copied into a new one).

        :param threshold: at least :attr:`min_threshold` (the default).
        :param progress: called as ``progress("probe", done, total)`` as query documents
            are matched.
        :param engine: where the join of a corpus of prefixes runs (this process by
            default; a :class:`~samecode.engine.ProcessPool` spreads it).
        :raises ValueError: for a threshold below :attr:`min_threshold` or an unknown
            measure.
        :raises IndexCorruptError: if a candidate's entry fails its checksum.
        """
        documents = [d for d in documents if isinstance(d, Document)]
        tick = progress_counter(progress, "probe", len(documents))
        t = self._min_threshold if threshold is None else exact_threshold(threshold)
        if t < self._min_threshold:
            raise SamecodeValueError(
                f"this corpus answers thresholds of at least {float(self._min_threshold):g} "
                f"(its min_threshold); got {float(t):g}"
            )
        if measure not in MEASURES:
            raise SamecodeValueError(
                f"measure must be one of {', '.join(MEASURES)}; got {measure!r}"
            )
        if self._lsh is not None and measure != "jaccard":
            raise SamecodeValueError(
                "a corpus that finds candidates by LSH answers the Jaccard measure only; "
                f"got {measure!r} (make the corpus without LSH for containment)"
            )
        if isinstance(self._candidates, _Prefixes):
            return self._match_by_join(documents, t, measure, tick, engine)
        out: list[Pair] = []
        cache: dict[int, tuple[str, array[int]]] = {}
        for document in documents:
            tick(1)
            x = array("Q", sorted(document.shingles))
            n = len(x)
            candidates = self._candidates.probe(self, x, t, measure)
            held = set(x)
            own = (document.path, identity(document.path))
            for file_id in sorted(candidates):
                if file_id not in cache:
                    if len(cache) > 4096:
                        cache.clear()
                    cache[file_id] = self._load(file_id)
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

    def _match_by_join(
        self,
        documents: Sequence[Document],
        t: Fraction,
        measure: str,
        tick: Callable[[int], None],
        engine: Engine | None,
    ) -> list[Pair]:
        """:meth:`match` for a corpus of prefixes: query files a batch at a time; the
        stored files any of them may match, found by one probe of the batch's prefixes;
        then the exact join of :mod:`samecode.scan.join` over both, as a scan does.

        A probe per query file is slow where many files share shingles (a licence
        header, the header of every translation file): the stored prefixes are in hash
        order, so common shingles are in most of them, and every such file would be read
        and verified for every query. The join orders shingles rarest first instead, and
        filters by size and position, so such pairs are never verified. It is as exact:
        every pair at or above ``t`` shares a prefix shingle (the probe), and
        :func:`~samecode.scan.join.prefix_candidates` misses none.
        """
        out: list[Pair] = []
        batch: list[Document] = []
        held = reported = 0
        for done, document in enumerate(documents, 1):
            if not len(document.shingles):
                continue  # an empty set reaches nothing
            batch.append(document)
            held += len(document.shingles)
            if held >= _JOIN_SHINGLES:
                out += self._join_batch(batch, t, measure, engine)
                batch, held = [], 0
                tick(done - reported)
                reported = done
        if batch:
            out += self._join_batch(batch, t, measure, engine)
        tick(len(documents) - reported)
        out.sort(key=lambda p: (p.a, p.b))
        return out

    def _join_batch(
        self, batch: Sequence[Document], t: Fraction, measure: str, engine: Engine | None
    ) -> list[Pair]:
        queries = [array("Q", sorted(document.shingles)) for document in batch]
        probe: set[int] = set()
        for x in queries:
            # Jaccard: the query's prefix meets every stored prefix it can reach t with;
            # stored containment: any shingle of the query may be in a stored prefix.
            probe.update(x[: prefix_length(len(x), t, "jaccard")] if measure == "jaccard" else x)
        sizes = [len(x) for x in queries]
        if measure == "jaccard":
            low, high = size_bounds(min(sizes), t)[0], size_bounds(max(sizes), t)[1]
        else:  # shared >= t * m and shared <= n
            low, high = 1, max(sizes) * t.denominator // t.numerator
        # One statement for the whole batch: the probe's values in a table of this
        # connection's own (temporary, so a read-only corpus takes it too).
        self._run("CREATE TEMP TABLE IF NOT EXISTS probe (value INTEGER)")
        try:
            self._run("BEGIN")  # one transaction for every row
            # In order: every row is appended to the table's last page.
            values = sorted(map(signed64, probe))
            self._many("INSERT INTO temp.probe VALUES (?)", zip(values))
            self._run("COMMIT")
            ids: set[int] = set()
            for file_id, count in self._run(
                "SELECT DISTINCT p.file, f.count FROM temp.probe q "
                "JOIN prefixes p ON p.shingle = q.value LEFT JOIN files f ON f.id = p.file "
                "WHERE f.count IS NULL OR f.count BETWEEN ? AND ?",
                [low, high],
            ):
                if count is None:  # rows of a damaged file
                    raise IndexCorruptError(
                        self._path, f"a candidate names file {file_id}, which is gone"
                    )
                ids.add(file_id)
        finally:
            if self._db.in_transaction:  # the insert failed
                self._db.execute("ROLLBACK")
            self._run("DELETE FROM temp.probe")
        own = [{document.path, identity(document.path)} for document in batch]
        out: list[Pair] = []
        wanted = sorted(ids)
        # The stored candidates, a bounded number of shingles at a time.
        stored: list[tuple[str, array[int]]] = []
        count = 0
        for start in range(0, len(wanted), _LOOKUP_VALUES):
            chunk = wanted[start : start + _LOOKUP_VALUES]
            rows = self._run(
                "SELECT path, size, mtime_ns, sha256, tokens, count, shingles, crc FROM files "
                f"WHERE id IN ({', '.join('?' * len(chunk))}) ORDER BY id",
                chunk,
            ).fetchall()
            if len(rows) != len(chunk):
                raise IndexCorruptError(self._path, "a prefix names a file that is gone")
            for row in rows:
                stored.append(self._checked(row))
                count += len(stored[-1][1])
                if count >= _JOIN_SHINGLES:
                    out += _join(batch, queries, own, stored, t, measure, engine)
                    stored, count = [], 0
        if stored:
            out += _join(batch, queries, own, stored, t, measure, engine)
        return out

    # -- fragments --------------------------------------------------------------------

    def _no_fragments(self) -> SamecodeValueError:

        return no_fragments(self._path, self._version)

    def fragment_files(self, hashes: Iterable[int]) -> dict[int, list[int]]:
        """For each fingerprint hash among ``hashes`` that stored files selected, the ids
        of those files (ascending).

        :raises ValueError: if the corpus stores no fragments (:attr:`fragments`).

        Runtime complexity: one statement: ``hashes`` into a temporary table, joined with
        the index (``O(log rows)`` per hash), plus the rows found.
        """
        if self._fragments is None:
            raise self._no_fragments()
        values = sorted({signed64(value) for value in hashes})
        found: dict[int, list[int]] = {}
        if not values:
            return found
        self._run("CREATE TEMP TABLE IF NOT EXISTS fragment_probe (value INTEGER)")
        try:
            self._run("BEGIN")
            self._many("INSERT INTO temp.fragment_probe VALUES (?)", zip(values))
            self._run("COMMIT")
            # CROSS JOIN: the probe drives, each value looked up in the index (SQLite
            # would otherwise scan the whole index for a small probe)
            for value, file_id in self._run(
                "SELECT i.hash, i.file FROM temp.fragment_probe q "
                "CROSS JOIN fragment_index i ON i.hash = q.value"
            ):
                found.setdefault(unsigned64(value), []).append(file_id)
        finally:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._run("DELETE FROM temp.fragment_probe")
        for files in found.values():
            files.sort()
        return found

    def fragment_record(self, file_id: int) -> bytes:
        """The fragment record of stored file ``file_id``, checked against its checksum
        (:func:`~samecode.corpus.records.decode` reads it).

        :raises ValueError: if the corpus stores no fragments.
        :raises IndexCorruptError: if the record is missing or fails its checksum.
        """
        if self._fragments is None:
            raise self._no_fragments()
        row = self._run("SELECT data, crc FROM fragments WHERE file = ?", (file_id,)).fetchone()
        if (
            row is None
            or not isinstance(row[0], bytes)
            or zlib.crc32(row[0], file_id & 0xFFFFFFFF) != row[1]
        ):
            raise IndexCorruptError(self._path, f"the fragments of file {file_id} are damaged")
        return bytes(row[0])

    def fragment_path(self, file_id: int) -> str:
        """The path stored file ``file_id`` is kept under.

        :raises IndexCorruptError: if there is no such file.
        """
        row = self._run("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is None:
            raise IndexCorruptError(self._path, f"the index names file {file_id}, which is gone")
        return _py_path(row[0])

    def fragment_file_count(self) -> int:
        """How many stored files have fragments (every file, in a corpus that stores
        them; 0 otherwise)."""
        if self._fragments is None:
            return 0
        return int(self._run("SELECT count(*) FROM fragments").fetchone()[0])

    def lsh_query(
        self, signature: Signature, *, top_k: int | None = None
    ) -> list[tuple[str, float]]:
        """The stored files that share an LSH bucket with ``signature``, as ``(path,
        estimated Jaccard)``, best first (then by path), the best ``top_k`` if given.

        The signature is one the corpus's :attr:`lsh` settings make (for instance
        ``corpus.lsh.signature(document.shingles)``); for exact answers use :meth:`match`.

        :raises ValueError: if the corpus has no LSH, or the signature's scheme, seed or
            size is not the corpus's (signatures of different schemes never compare).
        :raises TypeError: for something that is not a signature.

        Runtime complexity: ``b`` bucket lookups, then one row read per candidate.
        """
        if not isinstance(self._candidates, _Bands):
            raise SamecodeValueError(
                f"{self._path} finds candidates by prefixes, not LSH: use match(), or "
                "make a corpus with lsh=LSHSettings(...)"
            )
        bands = self._candidates
        values = bands.settings.values(signature)
        if top_k is not None and check_int(top_k, "top_k") < 0:
            raise SamecodeValueError(f"top_k must be >= 0; got {top_k}")
        ranked = []
        for file_id in bands.near(self, values):
            row = self._run("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
            if row is None:
                raise IndexCorruptError(self._path, f"a bucket names file {file_id}, which is gone")
            path = _py_path(row[0])
            estimate = bands.settings.estimate(values, bands.stored(self, file_id))
            ranked.append((str(path), estimate))
        ranked.sort(key=lambda item: (-item[1], item[0]))
        return ranked if top_k is None else ranked[:top_k]

    def _fragments_sound(self, file_id: int, path: str) -> bool:
        """Whether a file's fragment record decodes and the index holds its fingerprints,
        no more, no less."""

        if self._fragments is None:
            return True
        try:
            found = decode(self.fragment_record(file_id), path, self._fragments.k)
        except (IndexCorruptError, SamecodeValueError):
            return False
        held = [
            unsigned64(value)
            for (value,) in self._run(
                "SELECT hash FROM fragment_index WHERE file = ? ORDER BY hash", (file_id,)
            )
        ]
        return sorted(held) == sorted(set(found.fingerprints))

    def check(self) -> list[str]:
        """Check the whole file; return the problems found (empty when sound)."""
        problems = [
            f"integrity_check: {message}"
            for (message,) in self._run("PRAGMA integrity_check")
            if message != "ok"
        ]
        for (file_id,) in self._run("SELECT id FROM files ORDER BY id").fetchall():
            try:
                path, shingles = self._load(file_id)
            except IndexCorruptError as error:
                problems.append(str(error.strerror))
                continue
            damaged = self._candidates.damage(self, file_id, shingles)
            if damaged is not None:
                problems.append(f"the {damaged} of {path!r} is damaged")
            if self._fragments is not None and not self._fragments_sound(file_id, path):
                problems.append(f"the fragments of {path!r} are damaged")
        tables = self._candidates.file_tables
        if self._fragments is not None:
            tables += ("fragments", "fragment_index")
        for table in tables:
            (orphans,) = self._run(
                f"SELECT count(*) FROM {table} WHERE file NOT IN (SELECT id FROM files)"
            ).fetchone()
            if orphans:
                problems.append(f"{orphans} rows of {table} name files that are gone")
        return problems
