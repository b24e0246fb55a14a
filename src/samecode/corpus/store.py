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

Cost per file (format version 8, what :meth:`Corpus.create` makes): its bytes,
zlib-compressed against the corpus's dictionary (:mod:`~samecode.corpus.text_dictionary`;
its shingles, to verify a match exactly, are made again from them by the
corpus's rules, the bytes checked against their SHA-256 first), plus a posting of a 32-bit
key and the file, some 4 bytes in blocks packed in buckets (5 in version 6's packed
blocks, 8 in version 5's), for each of the ``(1 - min_threshold)`` share of its shingles
in the prefix (:class:`~samecode.corpus.candidates.BucketKeyIndex`; see
:ref:`corpus-bytes` for what a file costs on real and generated files). Version 4 kept a
row per key (about 13 bytes); versions 1 to 3 kept the shingle set (8 bytes a shingle)
and prefix rows of whole shingles with two indexes: 4 to 5 times the text.

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
import hashlib
import os
import sqlite3
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from samecode._validation import check_bool, check_int, describe
from samecode.corpus.candidates import BandIndex, PrefixIndex, candidate_index
from samecode.corpus.entries import identity, is_under
from samecode.corpus.file_table import FILES_TABLES, FileTable, shingles_blob, str_paths
from samecode.corpus.fragment_tables import FRAGMENT_BLOCK_TABLES, fragment_tables
from samecode.corpus.match import match_by_join, match_each
from samecode.corpus.records import decode, pack_text
from samecode.corpus.settings import (
    DICTIONARY_VERSION,
    DICTIONARY_VERSIONS,
    FRAGMENT_KEYS,
    FRAGMENTS_VERSION,
    PACKED_VERSION,
    TEXT_RULES,
    TEXT_VERSIONS,
    CorpusSettings,
)
from samecode.corpus.sync import STORE_BATCH, SyncReport, sync_files
from samecode.corpus.text_dictionary import (
    DICTIONARY_TABLE,
    FEWEST_FILES,
    dictionary_from_files,
    make_dictionary,
    sample_paths,
)
from samecode.engine import Engine, RunOptions, progress_counter
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import FileFingerprints, fingerprint_text
from samecode.minhash.lsh import Signature
from samecode.minhash.settings import LSHSettings
from samecode.profiles import profile as profile_of
from samecode.scan.model import Document, Pair
from samecode.similarity import (
    MEASURES,
    exact_threshold,
)
from samecode.sources.reading import decode_text
from samecode.sources.skipped import Skipped
from samecode.sources.walk import WalkOptions
from samecode.store.file import (
    IndexCorruptError,
    IndexFileError,
    IndexLockedError,
    check_timeout,
    read_meta,
)
from samecode.text.shingling import Shingling

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "HASH_SCHEME",
    "Corpus",
    "no_fragments",
]

#: What a corpus file says it is, and the version of its layout: 1 for a corpus that
#: finds candidates by prefixes, 2 for one that finds them by LSH bands, 3 for one that
#: also stores every file's fragments (its metadata then names its ``candidates``,
#: ``prefix`` or ``lsh``, and its ``fragments`` parameters), each keeping every file's
#: shingles (and fragment record); 4 for one that keeps every file's bytes instead,
#: compressed, and makes its shingles and fragments again from them (its metadata names
#: its ``candidates``, and its ``fragments`` parameters if it stores them); 5 for one
#: that keeps them as 4 does, its keys' postings in blocks
#: (:mod:`samecode.corpus.key_blocks`); 6 for one whose blocks are packed (the high bytes
#: of a block's keys once, each key's low bytes and each file in the fewest whole bytes);
#: 7 for one as 6 whose texts are compressed against a dictionary of its own
#: (:mod:`samecode.corpus.text_dictionary`); 8, what :meth:`Corpus.create` makes, for one
#: as 7 whose blocks are packed in buckets (fewer low bytes of each key, counted by the
#: bytes above them). Every version opens, is matched and is written as it was made.
FORMAT = "samecode-corpus"
FORMAT_VERSION = 8
_VERSIONS = ("1", "2", FRAGMENTS_VERSION, *TEXT_VERSIONS)
#: How shingles are hashed (:mod:`samecode.text.shingling`): token ids are 8-byte BLAKE2b
#: digests, a shingle is the 64-bit tuple hash of its ids.
HASH_SCHEME = "blake2b64-tuplehash64/1"

_BATCH = 100
#: The page cache (KiB) a sync's connection may use while it writes: the index rows land
#: all over the index, whose pages a small cache reads again and again. SQLite takes the
#: cache's memory as pages are used.
_SYNC_CACHE_KIB = 64 << 10
#: :meth:`Corpus.compact` writes a corpus of at least this many bytes in pages of
#: ``_LARGE_PAGE_BYTES`` (SQLite's default is 4 KiB), and :meth:`Corpus.expect` an empty
#: corpus about to store files of this many bytes: a file's row (its compressed text,
#: a few KiB) then shares a page with others instead of leaving the rest of a page of its
#: own unused, and the tables' fixed cost, a few pages each, is small beside the rest.
#: (100,000 generated files of 7,182 bytes, compacted, format version 7: 7,197 bytes a
#: file in 16 KiB pages, 6,991 in 32 KiB, matched as fast; version 5's 2,000 files:
#: 7,557 in 4 KiB, 7,168 in 16 KiB; a corpus of ten files: 0.41 MB in 4 KiB pages, 0.57 MB
#: in 16.)
_LARGE_CORPUS_BYTES = 4 << 20
_LARGE_PAGE_BYTES = 32 << 10


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Row(NamedTuple):
    """A document made ready to store (:meth:`Corpus._ready`)."""

    document: Document
    mtime: int
    blob: bytes  # its shingles as the row holds them (empty where the row keeps its text)
    ordered: array[int]  # its shingles, ascending
    text: bytes | None  # its bytes compressed, checked
    found: tuple[bytes, Sequence[int]] | None  # its fragment record and fingerprints


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


class Corpus(FileTable):
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
        try:
            settings = CorpusSettings.from_meta(meta)
        except KeyError as error:
            raise IndexCorruptError(path, f"its metadata lacks {error.args[0]}") from None
        except (TypeError, ValueError) as error:
            raise IndexCorruptError(path, f"its metadata is refused: {error}") from None
        self._shingling = settings.shingling
        self._min_threshold = settings.min_threshold
        self._lsh = settings.lsh
        self._fragments = settings.fragments
        self._profile = settings.profile
        self._keeps_text = meta["version"] in TEXT_VERSIONS
        rules = meta.get("text_rules", "1")
        if self._keeps_text and rules != TEXT_RULES:
            raise IndexFileError(
                path,
                f"makes its texts' keys by rules {rules!r}; this samecode by {TEXT_RULES!r} "
                "(open it with the samecode that made it, or make it again: samecode index "
                "add --db NEW.db PATHS...)",
            )
        # version 7's tables are version 6's (its texts differ)
        tables = PACKED_VERSION if meta["version"] == DICTIONARY_VERSION else meta["version"]
        self._candidates = candidate_index(self._min_threshold, self._lsh, tables)
        self._fragment_tables = fragment_tables(self._fragments, tables, self._text)
        if meta["version"] in DICTIONARY_VERSIONS:
            self._has_dictionary = True
            self._dictionary = self._stored_dictionary()

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
        profile: str | None = None,
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
            ``keep_licenses``, ``keep_imports``, ``keep_msgids`` and ``keep_msgid_copies``
            are recorded; its ``tokens`` and ``normalize`` must be ``shingling``'s), for
            :meth:`match_fragments`: their index is kept, and each candidate's fragments
            are made again from its kept bytes (see :ref:`fragments-corpus` for the cost).
        :param profile: the name of the :mod:`~samecode.profiles` profile its settings
            come from, recorded (``samecode match --profile`` refuses another).
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
        if profile is not None:
            profile = profile_of(profile).name  # refused here if there is no such profile
        if exist_ok:
            return cls._create_or_open(
                path,
                CorpusSettings(
                    shingling or Shingling(), exact_threshold(min_threshold), lsh, fragments,
                    profile,
                ),
                timeout,
            )  # fmt: skip
        path = os.fspath(path)
        shingling = shingling or Shingling()
        if not isinstance(shingling, Shingling):
            raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(shingling)}")
        if lsh is not None and not isinstance(lsh, LSHSettings):
            raise SamecodeTypeError(f"lsh must be LSHSettings or None; got {describe(lsh)}")
        settings = CorpusSettings(
            shingling, exact_threshold(min_threshold), lsh, fragments, profile
        )
        timeout = check_timeout(timeout)
        meta = [("format", FORMAT), *settings.meta()]
        meta.insert(3, ("hash_scheme", HASH_SCHEME))  # after the version and shingling
        statements = [
            *FILES_TABLES,
            DICTIONARY_TABLE,
            *candidate_index(settings.min_threshold, lsh).tables(),
            *(FRAGMENT_BLOCK_TABLES if fragments is not None else ()),
        ]
        return cls._create_path(path, timeout, "corpus with Corpus.open", statements, meta)

    @classmethod
    def _create_as(
        cls, path: str | os.PathLike[str], settings: CorpusSettings, timeout: float
    ) -> Corpus:
        """:meth:`create` of these ``settings``."""
        return cls.create(
            path,
            settings.shingling,
            min_threshold=settings.min_threshold,
            lsh=settings.lsh,
            fragments=settings.fragments,
            profile=settings.profile,
            timeout=timeout,
        )

    @classmethod
    def _create_or_open(
        cls, path: str | os.PathLike[str], asked: CorpusSettings, timeout: float
    ) -> Corpus:
        """:meth:`create` with ``exist_ok``, of the settings ``asked``."""
        try:
            return cls._create_as(path, asked, timeout)
        except FileExistsError:
            pass  # made before or meanwhile: opened below, settings checked
        corpus = cls.open(path, timeout=timeout)
        try:
            differ = corpus.settings.mismatches(
                asked.shingling,
                min_threshold=asked.min_threshold,
                lsh=asked.lsh,
                fragments=asked.fragments,
                profile=asked.profile,
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

    @property
    def settings(self) -> CorpusSettings:
        """What the corpus was made with (:class:`~samecode.corpus.settings.CorpusSettings`)."""
        return CorpusSettings(
            self._shingling, self._min_threshold, self._lsh, self._fragments, self._profile
        )

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
    def keeps_text(self) -> bool:
        """Whether it keeps every file's bytes, compressed, and makes its shingles and
        fragments again from them (format versions 4 to 8), rather than keeping them."""
        return self._keeps_text

    def text_dictionary(self, paths: Sequence[str]) -> bytes:
        """The dictionary the texts this corpus stores are compressed against
        (:func:`~samecode.corpus.records.read_stored`'s ``dictionary``; format versions 7 and 8,
        :mod:`~samecode.corpus.text_dictionary`): its own, or, where it has none yet and
        ``paths`` (those about to be stored) are at least
        :data:`~samecode.corpus.text_dictionary.FEWEST_FILES`, one made from the start of
        a sample of them and kept from then on. Fewer files are a poor sample of what a
        corpus will hold, and the dictionary never changes: their texts are compressed
        without one (as a corpus of an older version compresses every text), and a later,
        larger sync makes it. Empty where none of the sample can be read.

        :param paths: the files about to be stored (only a sample of them is read).
        :raises PermissionError: if the corpus was opened read-only and has none yet.

        Runtime complexity: ``O(1)`` once made; making it reads
        :data:`~samecode.corpus.text_dictionary.SAMPLE_FILES` files' starts.

        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> paths = [os.path.join(folder, f"m{n}.py") for n in range(8)]
        >>> for path in paths:
        ...     with open(path, "w") as f:
        ...         _ = f.write("import os\\n")
        >>> with Corpus.create(os.path.join(folder, "c.db")) as corpus:
        ...     corpus.text_dictionary(paths[:7]), len(corpus.text_dictionary(paths))
        (b'', 80)
        """
        if not self._has_dictionary or self._dictionary:
            return self._dictionary
        if len(paths) < FEWEST_FILES:
            return b""
        self._check_writable()
        return self._keep_dictionary(dictionary_from_files(paths))

    @property
    def fragments(self) -> FragmentOptions | None:
        """The parameters its files' fragments are stored by (``k``, ``window``,
        ``tokens``, ``normalize``, ``keep_licenses``, ``keep_imports``, ``keep_msgids``,
        ``keep_msgid_copies``; the rest are the defaults), or ``None`` for a corpus that
        stores none (made without ``fragments``, or by a samecode before format version
        3)."""
        return self._fragments

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
            **self._candidates.stats(self._statements),
            **self._fragment_stats(),
        }

    def _fragment_stats(self) -> dict[str, Any]:
        if self._fragments is None or self._fragment_tables is None:
            return {"fragments": None}
        recorded = {key: getattr(self._fragments, key) for key in FRAGMENT_KEYS}
        return {"fragments": recorded, **self._fragment_tables.stats(self._statements)}

    # -- changes ----------------------------------------------------------------------

    def add(
        self,
        documents: Iterable[Document],
        mtimes: dict[str, int] | None = None,
        *,
        fragments: dict[str, bytes] | None = None,
        fingerprints: dict[str, array[int]] | None = None,
        replacing: dict[str, str] | None = None,
        per_transaction: int = _BATCH,
        texts: dict[str, bytes] | None = None,
        trusted: bool = False,
    ) -> int:
        """Store documents (made by these rules), replacing any of the same path; return
        how many were stored. Each batch of 100 is one transaction. Each document is
        made ready (its text checked and its shingles sorted, unless ``trusted``; its
        record checked) as it is taken from ``documents``, outside the transaction: a
        sync gives its documents as they are read, so that this is done while its
        workers read on.

        :param documents: :class:`~samecode.scan.pipeline.Document` records (other items are
            ignored, so :func:`~samecode.scan.pipeline.read_documents`' output can be passed).
        :param mtimes: each path's modification time in ns (read from the file if absent).
        :param fragments: for a corpus that stores fragments, each document's fragment
            record by path (:func:`~samecode.corpus.records.read_stored` reads both;
            :meth:`sync` does it all).
        :param fingerprints: each record's distinct fingerprint hashes, sorted, by path,
            where they are known (as :func:`~samecode.corpus.records.read_stored` gives
            them): such a record is not decoded again.
        :param replacing: by path, an older spelling of the same file whose entry goes in
            the transaction that stores the document.
        :param per_transaction: documents stored per transaction.
        :param texts: for a corpus that keeps texts (format version 4 to 8), each document's
            bytes by path, compressed as :func:`~samecode.corpus.records.read_stored`
            with ``text=True`` gives them (:func:`~samecode.corpus.records.pack_text`,
            against :meth:`text_dictionary` or none;
            :meth:`sync` does it all): checked against the document's SHA-256 (unless
            ``trusted``) and kept,
            its shingles and fragments made again from them when needed. A document
            given without them is kept by its shingles, 8 bytes each (in a corpus that
            stores no fragments).
        :param trusted: the documents and ``texts`` are
            :func:`~samecode.corpus.records.read_stored`'s own, as :meth:`sync` passes
            them: each document's shingles are ascending already and each text is its
            document's bytes, so neither is sorted or checked again (some 0.15 ms a file
            of the main process's, while the workers read).
        :raises TypeError: if ``trusted`` is not a bool.
        :raises PermissionError: if the corpus was opened read-only.
        :raises IndexLockedError: if another writer holds the lock past the timeout.
        :raises ValueError: for a corpus that stores fragments, a document without its
            record (its text, in format versions 4 to 8), a record that does not decode, or a
            text that is not the document's bytes, unless ``trusted`` (nothing of its batch
            is stored).
        """
        self._check_writable()
        check_bool(trusted, "trusted")
        size = check_int(per_transaction, "per_transaction")
        if size < 1:
            raise SamecodeValueError(f"per_transaction must be >= 1; got {size}")
        count = 0
        batch: list[_Row] = []
        for document in documents:
            # each made ready as it comes, outside the transaction: while a sync's
            # workers read on, rather than while they wait for the store at the end
            if isinstance(document, Document):
                batch.append(self._ready(document, mtimes, fragments, fingerprints, texts, trusted))
            if len(batch) >= size:
                count += self._store(batch, replacing)
                batch = []
        if batch:
            count += self._store(batch, replacing)
        return count

    def _ready(
        self,
        document: Document,
        mtimes: dict[str, int] | None,
        fragments: dict[str, bytes] | None,
        fingerprints: dict[str, array[int]] | None,
        texts: dict[str, bytes] | None,
        trusted: bool = False,
    ) -> _Row:
        """A document made ready to store: its modification time, its shingles sorted
        (taken as they are where ``trusted``, as :meth:`add` says; and as a row holds
        them, where the row keeps no text), its compressed bytes checked against its
        SHA-256 unless ``trusted`` (``None`` where it has none, or the corpus keeps no
        texts), and its fragment record and distinct fingerprint hashes, sorted: given,
        or the record decoded, which checks it (none for a corpus without fragments).

        :raises ValueError: as :meth:`add`.
        """
        path = document.path
        if mtimes is not None and path in mtimes:
            mtime = mtimes[path]
        else:
            try:
                mtime = os.stat(path).st_mtime_ns
            except OSError:
                mtime = 0
        packed = None if texts is None or not self._keeps_text else texts.get(path)
        if packed is None:
            if self._fragments is not None and self._keeps_text:
                raise SamecodeValueError(
                    f"{self._path} stores fragments: {path!r} needs its text (read files "
                    "with samecode.corpus.records.read_stored(..., text=True), or use sync())"
                )
        else:
            self._check_packed(packed, path)
            if not trusted and _sha256(self._unpack(packed, path)) != document.sha256:
                raise SamecodeValueError(
                    f"the text given for {path!r} is not the bytes its document was read "
                    "from (another SHA-256)"
                )
        shingles = document.shingles
        ascending = trusted and isinstance(shingles, array) and shingles.typecode == "Q"
        ordered = shingles if ascending else array("Q", sorted(shingles))
        blob = shingles_blob(ordered) if packed is None else b""
        found = self._record(document, fragments, fingerprints, packed)
        return _Row(document, mtime, blob, ordered, packed, found)

    def _record(
        self,
        document: Document,
        fragments: dict[str, bytes] | None,
        fingerprints: dict[str, array[int]] | None,
        packed: bytes | None,
    ) -> tuple[bytes, Sequence[int]] | None:
        """A document's fragment record and its distinct fingerprint hashes, sorted (see
        :meth:`_ready`); ``None`` for a corpus without fragments."""
        if self._fragments is None:
            return None
        given = None if fingerprints is None else fingerprints.get(document.path)
        if self._keeps_text:  # the text is the record: its fingerprints given or made
            if given is None:
                return b"", self._text_fingerprints(document.path, packed or b"")
            return b"", given
        record = None if fragments is None else fragments.get(document.path)
        if not isinstance(record, bytes):
            raise SamecodeValueError(
                f"{self._path} stores fragments: {document.path!r} needs its fragment "
                "record (read files with samecode.corpus.records.read_stored, or use "
                "sync())"
            )
        if given is not None:
            return record, given
        found = decode(
            record, document.path, self._fragments.k, copies=self._fragments.masks_msgid_copies
        )
        return record, sorted(set(found.fingerprints))

    def _text_fingerprints(self, path: str, packed: bytes) -> list[int]:
        """The distinct fingerprints, sorted, of a file of these compressed bytes."""
        text = decode_text(path, self._unpack(packed, path))
        if isinstance(text, Skipped) or self._fragments is None:
            raise SamecodeValueError(f"the text of {path!r} is not a text to fingerprint")
        return sorted(set(fingerprint_text(path, text.text, self._fragments).fingerprints))

    def _store(self, rows: Sequence[_Row], replacing: dict[str, str] | None = None) -> int:
        """Store documents made ready (:meth:`_ready`) in one transaction."""
        # by file id, of the batch: the fragment index's rows, the candidate index's shingles
        index_rows: dict[int, list[Any]] = {}
        keyed: dict[int, array[int]] = {}
        stored: dict[str, int] = {}  # path -> id, of the batch
        with self._transaction():
            for document, mtime, blob, ordered, text, found in rows:
                if document.path in stored:  # replaced within the batch: its rows go too
                    gone = stored[document.path]  # (and its id may be given again)
                    index_rows.pop(gone, None)
                    keyed.pop(gone, None)
                older = None if replacing is None else replacing.get(document.path)
                if older is not None:
                    self._delete(older)  # an older spelling of this file: replaced here
                self._delete(document.path)
                file_id = self._insert_file(document, mtime, blob, text)
                stored[document.path] = file_id
                keyed[file_id] = ordered
                if found is not None and self._fragment_tables is not None:
                    record, hashes = found
                    self._fragment_tables.store(self._statements, file_id, record)
                    index_rows[file_id] = self._fragment_tables.index_rows(file_id, hashes)
            self._candidates.store_batch(self._statements, list(keyed.items()))
            if index_rows and self._fragment_tables is not None:
                self._fragment_tables.index(
                    self._statements, [row for part in index_rows.values() for row in part]
                )
        return len(rows)

    def _delete(self, path: str) -> bool:
        file_id = self._file_id(path)
        if file_id is None:
            return False
        ordered = None
        if self._candidates.delete_by_shingles:
            with contextlib.suppress(IndexCorruptError):  # a damaged entry: none known
                ordered = self._load(file_id)[1]
        self._candidates.delete(self._statements, file_id, ordered)
        if self._fragment_tables is not None:
            self._fragment_tables.delete(self._statements, file_id, path)
        self._run("DELETE FROM files WHERE id = ?", (file_id,))
        return True

    def convert(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> int:
        """Make a corpus of the current format (:data:`FORMAT_VERSION`) at ``path`` that
        holds what this one holds, from the texts this one keeps (format version 4 to 8;
        the files need not exist): every file under its path, with its size,
        modification time and SHA-256, made by the same settings (shingling,
        ``min_threshold``, LSH, fragments, profile), so that ``match`` and ``match
        --fragments`` answer the same, and a ``sync`` skips the same unchanged files.
        This corpus is only read. Return how many files were stored.

        :param path: where; the file must not exist.
        :param timeout: how many seconds a change of the new corpus waits for a lock.
        :raises ValueError: if this corpus keeps no texts (format versions 1 to 3; the
            message says how to make a new corpus from the files).
        :raises FileExistsError: if ``path`` exists.
        :raises IndexCorruptError: if an entry fails its checks (nothing is converted
            past it; the new file holds the files before it).

        Runtime complexity: ``O(size)`` per file, as storing it from the file.

        >>> import os, tempfile
        >>> from samecode.scan.pipeline import read_documents
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "a.py"), "w") as f:
        ...     _ = f.write("x = alpha + beta * gamma")
        >>> with Corpus.create(os.path.join(folder, "old.db")) as old:
        ...     _ = old.sync([folder], WalkOptions(min_tokens=1))
        ...     old.convert(os.path.join(folder, "new.db"))
        1
        """
        if not self._keeps_text:
            raise SamecodeValueError(
                f"{self._path} keeps no texts (corpus format version {self._version}): make "
                "a new corpus from the files (samecode index add --db NEW.db PATHS...)"
            )
        with Corpus._create_as(path, self.settings, timeout) as new:
            dictionary = b""  # as a sync makes it: of FEWEST_FILES files or more
            if len(self) >= FEWEST_FILES:
                dictionary = new._keep_dictionary(make_dictionary(self._sample_texts()))
            rows = self._run(f"SELECT {self._row_columns} FROM files ORDER BY path")
            count = 0
            while batch := rows.fetchmany(STORE_BATCH):
                documents: list[Document] = []
                texts: dict[str, bytes] = {}
                mtimes: dict[str, int] = {}
                for row in batch:  # checked: (path, size, mtime_ns, sha256, tokens, ...)
                    stored, shingles, text = self._checked_row(row)
                    if text is not None:  # packed again, against the new dictionary
                        data = self._unpack(row[8], stored)
                        texts[stored] = pack_text(data, dictionary)
                    mtimes[stored] = row[2]
                    documents.append(Document(stored, row[1], row[3], row[4], shingles))
                count += new.add(documents, mtimes, texts=texts, per_transaction=STORE_BATCH)
        return count

    def _sample_texts(self) -> Iterator[bytes]:
        """The bytes of the stored files a dictionary of them is made from
        (:func:`~samecode.corpus.text_dictionary.sample_paths` of them by path; a text
        that does not unpack is left out, and reported when the file is read whole)."""
        paths = [row[0] for row in self._run("SELECT path FROM files ORDER BY path")]
        for stored in sample_paths(paths):
            (packed,) = self._run("SELECT text FROM files WHERE path = ?", (stored,)).fetchone()
            named = os.fsdecode(stored) if isinstance(stored, bytes) else str(stored)
            try:
                yield self._unpack(packed, named)
            except (TypeError, ValueError):
                continue

    def compact(self) -> tuple[int, int]:
        """Fold what the corpus keeps aside for quick writes into its indexes (format
        versions 5 to 8: the pending postings, into the blocks), then give back the
        file's free pages (SQLite's ``VACUUM``): the same files and the same answers, from
        fewer bytes, found faster. Return the bytes of the file (and its write-ahead log)
        before and after.

        Worth running after adding many files: up to some 16 pending postings a block
        (32 in packed blocks, versions 6 and 7; 48 in buckets, version 8) are left by
        :meth:`sync`, which folds them only when there are more (so that each block is
        rewritten once per some 16, 32 or 48 postings it takes).

        A corpus of 4 MiB or more is written in pages of 32 KiB where no other
        connection has it open: its files' rows, a few KiB each, then share pages
        rather than each leave most of one unused. Pages change size only out of WAL
        mode, so the corpus is first taken alone (another connection's opening or
        writing waits meanwhile, up to its timeout), left in rollback-journal mode,
        vacuumed and put back in WAL mode before it is let go. A process killed
        meanwhile leaves the change half made and its journal: the next opening, by any
        samecode, has SQLite roll it back (:func:`~samecode.store.file.open_store`).
        Where another connection has the corpus open, it is vacuumed in its pages as
        they are, at once.

        ``VACUUM`` in WAL mode writes the whole file into the write-ahead log, which is
        folded into the file at the end unless another connection is reading the
        corpus: then the log stays (and is counted in the bytes after) until it closes.
        Run it when no one else has the corpus open.

        :raises PermissionError: if the corpus was opened read-only.
        :raises IndexCorruptError: if a block fails its checks (nothing is changed).
        :raises IndexFileError: if ``VACUUM`` fails (a statement of this corpus still
            reading, a full disk): the folded postings stay folded, the file as it was
            otherwise.

        Runtime complexity: ``O(size)``: each block that takes pending postings is
        written once, and ``VACUUM`` copies the file (for a while it needs up to twice
        its size of free disk space).

        >>> import os, tempfile
        >>> from samecode.scan.model import Document
        >>> folder = tempfile.mkdtemp()
        >>> with Corpus.create(os.path.join(folder, "c.db")) as corpus:
        ...     _ = corpus.add([Document(os.path.join(folder, "a.py"), 1, "0", 1, array("Q", [1]))])
        ...     before, after = corpus.compact()
        ...     after <= before, len(corpus)
        (True, 1)
        """
        self._check_writable()
        before = self._file_bytes()
        with self._transaction():
            self._candidates.compact(self._statements)
            if self._fragment_tables is not None:
                self._fragment_tables.compact(self._statements)
        if before < _LARGE_CORPUS_BYTES or not self._in_larger_pages():
            self._run("VACUUM")
        self._run("PRAGMA wal_checkpoint(TRUNCATE)")
        return before, self._file_bytes()

    def expect(self, files: int, size: int) -> None:
        """Be told, before a sync reads them, how many ``files`` it is about to store and
        their ``size`` in bytes on disk: an empty corpus about to take
        4 MiB or more is written in pages of 32 KiB from then on, as :meth:`compact`
        would write it (where no other connection has it open; see there). Its files'
        rows then share pages from the start: 2,000 generated files of 7,257 bytes with
        fragments cost 7,455 bytes a file as stored, against 8,407 in pages of 4 KiB
        (format version 7; :ref:`corpus-bytes-7`). A small corpus keeps SQLite's pages
        of 4 KiB, in which its tables' fixed cost, a few pages each, is smaller.

        :param files: how many files a sync is about to read.
        :param size: their bytes on disk, in all.

        Runtime complexity: ``O(1)``; the change of pages copies the empty file.

        >>> import os, tempfile
        >>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "c.db")) as corpus:
        ...     corpus.expect(1_000, 8 << 20)
        ...     corpus._run("PRAGMA page_size").fetchone()
        (32768,)
        """
        if size >= _LARGE_CORPUS_BYTES and files and not self._readonly and len(self) == 0:
            self._in_larger_pages()

    def _in_larger_pages(self) -> bool:
        """Write the corpus in pages of :data:`_LARGE_PAGE_BYTES` (``VACUUM``, out of WAL
        mode, the file taken alone), unless it is so already or another connection has
        it open; return whether it was vacuumed."""
        (page,) = self._run("PRAGMA page_size").fetchone()
        if page >= _LARGE_PAGE_BYTES or not self._taken():
            return False
        try:
            self._run("PRAGMA journal_mode = DELETE")
            self._run(f"PRAGMA page_size = {_LARGE_PAGE_BYTES}")
            self._run("VACUUM")
        finally:
            self._let_go()
        return True

    def _taken(self) -> bool:
        """Take the file alone (SQLite's exclusive locking mode, and a write: the lock is
        then kept), if no other connection has it open (in WAL mode each holds a shared
        lock while open); return whether it was taken. SQLite answers busy at once where
        another has it: the corpus is then vacuumed as it is."""
        self._run("PRAGMA busy_timeout = 0")
        try:
            self._run("PRAGMA locking_mode = EXCLUSIVE")
            with self._transaction():
                pass
        except BaseException as error:
            self._run("PRAGMA locking_mode = NORMAL")  # and a read, which lets go
            self._run("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            if isinstance(error, IndexLockedError):
                return False
            raise
        finally:
            self._run(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        return True

    def _let_go(self) -> None:
        """Put the file taken by :meth:`_taken` back in WAL mode and let it go: locking
        mode normal first (once in WAL mode under exclusive locking, SQLite keeps the
        lock until the connection closes), then WAL mode, switched while the lock is
        still held, which the switch's access then lets go of."""
        self._run("PRAGMA locking_mode = NORMAL")
        (mode,) = self._run("PRAGMA journal_mode = WAL").fetchone()
        if str(mode).lower() != "wal":  # pragma: no cover - the file is held alone here
            raise IndexFileError(self._path, f"could not be put back in WAL mode ({mode})")

    def _file_bytes(self) -> int:
        """The bytes of the file and of its write-ahead log."""
        log = f"{self._path}-wal"
        return os.path.getsize(self._path) + (os.path.getsize(log) if os.path.exists(log) else 0)

    def remove(self, paths: Iterable[str], *, recursive: bool = False) -> int:
        """Remove files by path (one transaction); return how many were held.

        A path names an entry by any spelling: as stored, or as the same file
        (:func:`~samecode.corpus.entries.identity`), so ``known``, ``./known`` and
        ``$PWD/known`` remove one entry.

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
        wanted = str_paths(paths)
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
            if real in targets or (recursive and any(is_under(real, t) for t in targets)):
                doomed.append(path)
        return doomed

    def sync(
        self,
        paths: Sequence[str | os.PathLike[str]],
        walk: WalkOptions | None = None,
        *,
        run: RunOptions | None = None,
        prune: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
        engine: Engine | None = None,
    ) -> SyncReport:
        """Bring the corpus up to date with the files under ``paths``: store new files,
        replace changed ones, keep unchanged ones, and say what changed.

        Each file is kept under its :func:`~samecode.corpus.entries.identity` (its real
        path), whatever spelling
        found it. A file whose size and modification time match its entry is not read;
        one whose bytes (SHA-256) are the same gets its new time only. A stored file whose
        new content is skipped for what it is (empty, too few tokens, binary, too large,
        not a regular file) loses its entry; with ``prune``, so does a stored file at or
        under ``paths`` that no longer exists. A name that is not UTF-8 is stored as its
        bytes and named as Python names it (:func:`os.fsdecode`).

        :param paths: files and folders.
        :param walk: which files (:class:`~samecode.sources.walk.WalkOptions`); they are
            read by the corpus's shingling and fragment options.
        :param run: the files a task reads, and the processes that read them when no
            ``engine`` is given (:class:`~samecode.engine.RunOptions`).
        :param prune: remove the entries of files under ``paths`` that are gone.
        :param progress: called as ``progress(stage, done, total)`` while files are read.
        :param engine: where the files to read are read and shingled (this process by
            default; a :class:`~samecode.engine.ProcessPool` spreads it); the corpus
            is written in this process, the same whatever the engine.
        :raises TypeError: if ``paths`` is a lone path, or an option is of the wrong type.
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
        >>> from samecode.sources.walk import WalkOptions
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "a.py"), "w") as f:
        ...     _ = f.write(" ".join(f"word{i}" for i in range(40)))
        >>> walk = WalkOptions(gitignore=False)
        >>> with Corpus.create(os.path.join(folder, "c.db")) as corpus:
        ...     first = corpus.sync([folder], walk)
        ...     again = corpus.sync([os.path.join(folder, ".", "a.py")], walk)
        >>> [os.path.basename(p) for p in first.added], len(again.unchanged), again.held
        (['a.py'], 1, 1)
        """
        self._check_writable()
        with self._sync_cache():
            return sync_files(
                self, paths, walk, run=run, prune=prune, progress=progress, engine=engine
            )

    def discard(self, paths: Iterable[str]) -> list[str]:
        """Remove the entries stored under exactly these paths (one transaction), not
        under another spelling of the same file (:meth:`remove` takes any); return those
        that were held.

        :raises PermissionError: if the corpus was opened read-only.
        """
        self._check_writable()
        with self._transaction():
            return [path for path in str_paths(paths) if self._delete(path)]

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

    # -- queries ----------------------------------------------------------------------

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
        same file, by any spelling: see :func:`~samecode.corpus.entries.identity`). With
        ``measure="containment"`` a corpus file is reported when that much of *it* is in
        the query (a known file copied into a new one).

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
        if isinstance(self._candidates, PrefixIndex):
            prefixes, statements = self._candidates, self._statements
            return match_by_join(
                documents,
                t,
                measure,
                tick,
                engine,
                lambda queries, t, measure: prefixes.probe_batch(statements, queries, t, measure),
                self._stored_sets,
            )
        statements = self._statements
        return match_each(
            documents,
            t,
            measure,
            tick,
            lambda x: self._candidates.probe(statements, x, t, measure),
            self._load,
        )

    # -- fragments --------------------------------------------------------------------

    def _no_fragments(self) -> SamecodeValueError:

        return no_fragments(self._path, self._version)

    def fragment_files(self, hashes: Iterable[int]) -> dict[int, list[int]]:
        """For each fingerprint hash among ``hashes`` that stored files selected, the ids
        of those files (ascending)
        (:meth:`FragmentTables.files <samecode.corpus.fragment_tables.FragmentTables.files>`).

        :raises ValueError: if the corpus stores no fragments (:attr:`fragments`).
        """
        if self._fragment_tables is None:
            raise self._no_fragments()
        return self._fragment_tables.files(self._statements, hashes)

    def stored_fragments(self, file_id: int) -> FileFingerprints:
        """The fragments of stored file ``file_id``, under its stored path: its record
        decoded, or, in a corpus that keeps texts (format versions 4 to 8), its text
        fingerprinted again by the corpus's options (the same tokens, lines,
        fingerprints and masked ranges).

        :raises ValueError: if the corpus stores no fragments, or the record does not
            decode.
        :raises IndexCorruptError: if the entry is missing or fails its checks.
        """
        if self._fragment_tables is None:
            raise self._no_fragments()
        path = self.fragment_path(file_id)
        return self._fragment_tables.found(self._statements, file_id, path)

    def fragment_record(self, file_id: int) -> bytes:
        """The fragment record of stored file ``file_id``, checked against its checksum
        (:func:`~samecode.corpus.records.decode` reads it; in a corpus that keeps texts,
        made from its text).

        :raises ValueError: if the corpus stores no fragments.
        :raises IndexCorruptError: if the record is missing or fails its checksum.
        """
        if self._fragment_tables is None:
            raise self._no_fragments()
        return self._fragment_tables.record(self._statements, file_id)

    def fragment_file_count(self) -> int:
        """How many stored files have fragments (every file, in a corpus that stores
        them; 0 otherwise)."""
        if self._fragment_tables is None:
            return 0
        return self._fragment_tables.count(self._statements)

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
        if not isinstance(self._candidates, BandIndex):
            raise SamecodeValueError(
                f"{self._path} finds candidates by prefixes, not LSH: use match(), or "
                "make a corpus with lsh=LSHSettings(...)"
            )
        bands = self._candidates
        values = bands.settings.values(signature)
        if top_k is not None and check_int(top_k, "top_k") < 0:
            raise SamecodeValueError(f"top_k must be >= 0; got {top_k}")
        ranked = []
        for file_id in bands.near(self._statements, values):
            path = self._path_of(file_id, "a bucket")
            estimate = bands.settings.estimate(values, bands.stored(self._statements, file_id))
            ranked.append((str(path), estimate))
        ranked.sort(key=lambda item: (-item[1], item[0]))
        return ranked if top_k is None else ranked[:top_k]

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
            damaged = self._candidates.damage(self._statements, file_id, shingles)
            if damaged is not None:
                problems.append(f"the {damaged} of {path!r} is damaged")
            fragments = self._fragment_tables
            if fragments is not None and not fragments.sound(self._statements, file_id, path):
                problems.append(f"the fragments of {path!r} are damaged")
        ids = {file_id for (file_id,) in self._run("SELECT id FROM files")}
        for tables in (self._candidates, self._fragment_tables):
            try:
                orphans = {} if tables is None else tables.orphans(self._statements, ids)
            except IndexCorruptError as error:  # a damaged block
                problems.append(str(error.strerror))
                continue
            for table, count in orphans.items():
                problems.append(f"{count} rows of {table} name files that are gone")
        return problems
