"""The tables a corpus that stores fragments keeps beside its files: each file's fragment
record (:mod:`samecode.corpus.records`), and the index from fingerprint hash to the files
that selected it, which finds the stored files a query shares fingerprints with.

``fragments (file, data, crc)`` holds a record per file with its checksum;
``fragment_index (hash, file)`` a row per distinct fingerprint of each file, its primary
key ``(hash, file)`` (so a hash finds its files in ``O(log rows)``). Every method is given
the corpus file's :class:`~samecode.store.file.Statements`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from typing import Any

from samecode.corpus.file_table import orphan_rows
from samecode.corpus.key_blocks import KeyBlocks
from samecode.corpus.records import decode, encode
from samecode.errors import SamecodeValueError
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import FileFingerprints, fingerprint_text
from samecode.sources.reading import Text
from samecode.store.file import IndexCorruptError, Statements, signed64, unsigned64

__all__ = [
    "FRAGMENT_BLOCK_TABLES",
    "FRAGMENT_KEY_TABLES",
    "FRAGMENT_TABLES",
    "BucketFragmentBlocks",
    "FragmentBlocks",
    "FragmentKeys",
    "FragmentTables",
    "PackedFragmentBlocks",
    "fragment_tables",
]

#: The statements that make the tables.
FRAGMENT_TABLES = (
    "CREATE TABLE fragments (file INTEGER PRIMARY KEY, data BLOB NOT NULL, crc INTEGER NOT NULL)",
    "CREATE TABLE fragment_index (hash INTEGER NOT NULL, file INTEGER NOT NULL, "
    "PRIMARY KEY (hash, file)) WITHOUT ROWID",
)
#: Those of a corpus that keeps its files' texts (format version 4): the index alone.
FRAGMENT_KEY_TABLES = FRAGMENT_TABLES[1:]
#: The index of a corpus of format version 5, its postings packed in blocks: the
#: table's name and key bytes.
_FRAGMENT_BLOCKS = ("fragment_blocks", 8)
#: The statements that make it.
FRAGMENT_BLOCK_TABLES = tuple(KeyBlocks(*_FRAGMENT_BLOCKS).tables())


class FragmentTables:
    """A corpus's fragment records and their index.

    :param options: the corpus's fragment options (records decode by its ``k`` and
        :attr:`~samecode.fragments.options.FragmentOptions.masks_msgid_copies`).
    """

    #: The tables, each with a ``file`` column naming a row of ``files``.
    file_tables: tuple[str, ...] = ("fragments", "fragment_index")
    #: The corpus format version that keeps them (and those before it).
    version = "3"

    def __init__(self, options: FragmentOptions) -> None:
        self._options = options

    def found(self, sql: Statements, file_id: int, path: str) -> FileFingerprints:
        """The fingerprints of stored file ``file_id`` (kept under ``path``): its record
        decoded.

        :raises IndexCorruptError: if the record is missing or fails its checksum.
        :raises ValueError: if it does not decode.
        """
        options = self._options
        return decode(self.record(sql, file_id), path, options.k, copies=options.masks_msgid_copies)

    def store(self, sql: Statements, file_id: int, record: bytes) -> None:
        """Store a file's record (inside a transaction; its index rows apart)."""
        sql.run(
            "INSERT INTO fragments VALUES (?, ?, ?)",
            (file_id, record, zlib.crc32(record, file_id & 0xFFFFFFFF)),
        )

    def index(self, sql: Statements, rows: list[Any]) -> None:
        """Store index rows, as :meth:`index_rows` makes them (inside a transaction). In
        the index's order: the rows land on the pages of the index one after the other,
        each page read (and written) once."""
        rows.sort()
        sql.many("INSERT INTO fragment_index VALUES (?, ?)", rows)

    def index_rows(self, file_id: int, hashes: Iterable[int]) -> list[Any]:
        """The index rows of a file's distinct fingerprint ``hashes``: ``(hash, file)``."""
        return [(signed64(value), file_id) for value in hashes]

    def delete(self, sql: Statements, file_id: int, path: str) -> None:
        """Forget a file's record and index rows (inside a transaction): by its record's
        hashes, or, for a damaged record, by a scan of the index."""
        try:
            hashes = set(self.found(sql, file_id, path).fingerprints)
        except (IndexCorruptError, SamecodeValueError):
            sql.run("DELETE FROM fragment_index WHERE file = ?", (file_id,))
        else:
            sql.many(
                "DELETE FROM fragment_index WHERE hash = ? AND file = ?",
                [(signed64(value), file_id) for value in hashes],
            )
        self._forget_record(sql, file_id)

    def _forget_record(self, sql: Statements, file_id: int) -> None:
        sql.run("DELETE FROM fragments WHERE file = ?", (file_id,))

    def files(self, sql: Statements, hashes: Iterable[int]) -> dict[int, list[int]]:
        """For each hash among ``hashes`` that stored files selected, the ids of those
        files (ascending).

        Runtime complexity: one statement: ``hashes`` into a temporary table, joined with
        the index (``O(log rows)`` per hash), plus the rows found.
        """
        values = sorted({signed64(value) for value in hashes})
        found: dict[int, list[int]] = {}
        if not values:
            return found
        sql.run("CREATE TEMP TABLE IF NOT EXISTS fragment_probe (value INTEGER)")
        try:
            sql.run("BEGIN")
            sql.many("INSERT INTO temp.fragment_probe VALUES (?)", zip(values))
            sql.run("COMMIT")
            # CROSS JOIN: the probe drives, each value looked up in the index (SQLite
            # would otherwise scan the whole index for a small probe)
            for value, file_id in sql.run(
                "SELECT i.hash, i.file FROM temp.fragment_probe q "
                "CROSS JOIN fragment_index i ON i.hash = q.value"
            ):
                found.setdefault(unsigned64(value), []).append(file_id)
        finally:
            sql.roll_back_if_open()
            sql.run("DELETE FROM temp.fragment_probe")
        for files in found.values():
            files.sort()
        return found

    def record(self, sql: Statements, file_id: int) -> bytes:
        """The record of stored file ``file_id``, checked against its checksum.

        :raises IndexCorruptError: if the record is missing or fails its checksum.
        """
        row = sql.run("SELECT data, crc FROM fragments WHERE file = ?", (file_id,)).fetchone()
        if (
            row is None
            or not isinstance(row[0], bytes)
            or zlib.crc32(row[0], file_id & 0xFFFFFFFF) != row[1]
        ):
            raise IndexCorruptError(sql.path, f"the fragments of file {file_id} are damaged")
        return bytes(row[0])

    def orphans(self, sql: Statements, ids: set[int]) -> dict[str, int]:
        """By table, how many of its rows name files not among ``ids`` (those stored)."""
        return orphan_rows(sql, self.file_tables)

    def compact(self, sql: Statements) -> None:
        """Put what is kept aside for quick writes where reads find it fastest (inside a
        transaction; nothing but for :class:`FragmentBlocks`)."""

    def count(self, sql: Statements) -> int:
        """How many files have records."""
        return int(sql.run("SELECT count(*) FROM fragments").fetchone()[0])

    def stats(self, sql: Statements) -> dict[str, Any]:
        """The records' count and size, and the index's rows."""
        records, size = sql.run(
            "SELECT count(*), coalesce(sum(length(data)), 0) FROM fragments"
        ).fetchone()
        (rows,) = sql.run("SELECT count(*) FROM fragment_index").fetchone()
        return {
            "fragment_records": records,
            "fragment_record_bytes": size,
            "fragment_index_rows": rows,
        }

    def sound(self, sql: Statements, file_id: int, path: str) -> bool:
        """Whether a file's record decodes and the index holds its fingerprints, no more,
        no less."""
        try:
            found = self.found(sql, file_id, path)
        except (IndexCorruptError, SamecodeValueError):
            return False
        held = [
            unsigned64(value)
            for (value,) in sql.run(
                "SELECT hash FROM fragment_index WHERE file = ? ORDER BY hash", (file_id,)
            )
        ]
        return sorted(held) == sorted(set(found.fingerprints))


class FragmentKeys(FragmentTables):
    """The fragment index of a corpus of format version 4, which keeps every file's text
    rather than its record: a file's fingerprints (and all a record holds) are made
    again from its text, by the corpus's options, exactly as when it was stored.

    :param options: the corpus's fragment options.
    :param text_of: the checked text of a stored file, by id.
    """

    file_tables: tuple[str, ...] = ("fragment_index",)
    version = "4"

    def __init__(self, options: FragmentOptions, text_of: Callable[[int], Text]) -> None:
        super().__init__(options)
        self._text_of = text_of

    def store(self, sql: Statements, file_id: int, record: bytes) -> None:
        """Nothing: the file's text is its record."""

    def _forget_record(self, sql: Statements, file_id: int) -> None:
        """Nothing: the file's text goes with its entry."""

    def found(self, sql: Statements, file_id: int, path: str) -> FileFingerprints:
        text = self._text_of(file_id)
        return fingerprint_text(path, text.text, self._options)

    def record(self, sql: Statements, file_id: int) -> bytes:
        return encode(self.found(sql, file_id, self._text_of(file_id).path))

    def count(self, sql: Statements) -> int:
        return int(sql.run("SELECT count(*) FROM files").fetchone()[0])

    def stats(self, sql: Statements) -> dict[str, Any]:
        (rows,) = sql.run("SELECT count(*) FROM fragment_index").fetchone()
        return {
            "fragment_records": self.count(sql),
            "fragment_record_bytes": 0,
            "fragment_index_rows": rows,
        }


class FragmentBlocks(FragmentKeys):
    """The fragment index of a corpus of format version 5: :class:`FragmentKeys`, its
    postings ``(hash, file)`` packed in blocks
    (:class:`~samecode.corpus.key_blocks.KeyBlocks`): 12 bytes a fingerprint and file,
    where a row each took about 18, the whole 64-bit hashes kept (the counts of the
    files that select a hash, which find boilerplate, are exact).
    """

    file_tables: tuple[str, ...] = ()
    version = "5"
    #: Whether its blocks are packed (:class:`~samecode.corpus.key_blocks.KeyBlocks`).
    packed = False
    #: Whether they are packed in buckets.
    buckets = False

    def __init__(self, options: FragmentOptions, text_of: Callable[[int], Text]) -> None:
        super().__init__(options, text_of)
        # its own: it keeps counts
        self._blocks = KeyBlocks(*_FRAGMENT_BLOCKS, packed=self.packed, buckets=self.buckets)

    def index(self, sql: Statements, rows: list[Any]) -> None:
        self._blocks.add(sql, rows)

    def index_rows(self, file_id: int, hashes: Iterable[int]) -> list[Any]:
        """The postings of a file's distinct fingerprint ``hashes`` (each ``hash << 32 |
        file``)."""
        file_id = KeyBlocks.check_file(file_id)
        return [value << 32 | file_id for value in hashes]

    def delete(self, sql: Statements, file_id: int, path: str) -> None:
        try:
            hashes = set(self.found(sql, file_id, path).fingerprints)
        except (IndexCorruptError, SamecodeValueError):
            self._blocks.remove_file(sql, file_id)
        else:
            self._blocks.remove(sql, self.index_rows(file_id, hashes))

    def files(self, sql: Statements, hashes: Iterable[int]) -> dict[int, list[int]]:
        """For each hash among ``hashes`` that stored files selected, the ids of those
        files (ascending).

        Runtime complexity: ``O(log blocks)`` per block the hashes fall in, each read
        once, plus its postings.
        """
        return self._blocks.files(sql, hashes)

    def sound(self, sql: Statements, file_id: int, path: str) -> bool:
        """Whether a file's text fingerprints and the index holds each of its
        fingerprints (postings of files that are gone are counted by :meth:`orphans`)."""
        try:
            hashes = set(self.found(sql, file_id, path).fingerprints)
            return self._blocks.held(sql, file_id, hashes) == len(hashes)
        except (IndexCorruptError, SamecodeValueError):  # the text, or a block, damaged
            return False

    def orphans(self, sql: Statements, ids: set[int]) -> dict[str, int]:
        return self._blocks.orphans(sql, ids)

    def compact(self, sql: Statements) -> None:
        """Fold the pending postings into the blocks."""
        self._blocks.fold(sql)

    def stats(self, sql: Statements) -> dict[str, Any]:
        return {
            "fragment_records": self.count(sql),
            "fragment_record_bytes": 0,
            "fragment_index_rows": self._blocks.count(sql),
            "fragment_pending": self._blocks.pending(sql),
        }


class PackedFragmentBlocks(FragmentBlocks):
    """:class:`FragmentBlocks` with its blocks packed (format version 6,
    :class:`~samecode.corpus.key_blocks.KeyBlocks` with ``packed``): the high bytes of a
    block's hashes once, each hash's low bytes and each file id in the fewest whole bytes, some 9
    bytes a fingerprint and file in a corpus of fewer than 65,536 files where version 5
    takes 12; the whole hashes kept, found as fast.
    """

    version = "6"
    packed = True


class BucketFragmentBlocks(PackedFragmentBlocks):
    """:class:`PackedFragmentBlocks` with its blocks packed in buckets (format version 8,
    :class:`~samecode.corpus.key_blocks.KeyBlocks` with ``buckets``): fewer low bytes of
    each hash, counted by the bytes above them, some 8 bytes a fingerprint and file in a
    corpus of fewer than 65,536 files where version 6 takes 9; the whole hashes kept,
    found as fast.
    """

    version = "8"
    buckets = True


def fragment_tables(
    options: FragmentOptions | None, version: str, text_of: Callable[[int], Text]
) -> FragmentTables | None:
    """The fragment tables of a corpus of format ``version`` that stores fragments by
    ``options`` (``None`` for one that stores none): postings in blocks packed in buckets
    in version 8, packed in version 6, in blocks in version 5, a row each in version 4
    (all with the texts, by ``text_of``), and records beside them before.

    >>> from samecode.fragments import FragmentOptions
    >>> type(fragment_tables(FragmentOptions(), "8", lambda file: None)).__name__
    'BucketFragmentBlocks'
    >>> type(fragment_tables(FragmentOptions(), "6", lambda file: None)).__name__
    'PackedFragmentBlocks'
    >>> type(fragment_tables(FragmentOptions(), "5", lambda file: None)).__name__
    'FragmentBlocks'
    >>> fragment_tables(FragmentOptions(), "3", lambda file: None).file_tables
    ('fragments', 'fragment_index')
    >>> fragment_tables(None, "5", lambda file: None) is None
    True
    """
    if options is None:
        return None
    if version == BucketFragmentBlocks.version:
        return BucketFragmentBlocks(options, text_of)
    if version == PackedFragmentBlocks.version:
        return PackedFragmentBlocks(options, text_of)
    if version == FragmentBlocks.version:
        return FragmentBlocks(options, text_of)
    if version == FragmentKeys.version:
        return FragmentKeys(options, text_of)
    return FragmentTables(options)
