"""How a corpus finds the stored files a query may match, before it verifies them exactly.

A :class:`CandidateIndex` keeps tables of its own in the corpus file, in step with the
stored files, and probes them for a query's shingles. Two are built in:

* :class:`PrefixIndex` (format version 1): every file's prefix at the corpus's
  ``min_threshold``, by shingle. Exact: by the prefix-filtering principle (see
  :mod:`samecode.scan.join`) every stored file of Jaccard ``>= t`` with a query shares a
  prefix shingle with it. About 30 bytes a row, for ``(1 - min_threshold)`` of a file's
  shingles.
* :class:`KeyIndex` (format version 4): the same prefixes, as 32-bit keys in one
  b-tree ``(key, file)``: about 12 to 17 bytes a row.
* :class:`BlockKeyIndex` (format version 5): the same keys, packed in blocks
  (:mod:`samecode.corpus.key_blocks`): 8 bytes a key.
* :class:`PackedKeyIndex` (format version 6): the same blocks, packed (the high bytes
  of a block's keys once, each key's low bytes and each file in the fewest whole bytes):
  some 5 bytes a key.
* :class:`BucketKeyIndex` (format version 8): the same blocks, packed in buckets (fewer
  low bytes of each key, counted by the bytes above them): some 4 bytes a key.
* :class:`BandIndex` (format version 2): every file's MinHash signature and its LSH
  buckets (:mod:`samecode.minhash.lsh`): a fixed few hundred bytes a file, but a pair LSH
  does not propose is missed.

These are the stored counterparts of a scan's :mod:`~samecode.scan.candidates` (prefix
keys, LSH band keys): a scan keys the documents of one run in memory, a corpus keeps the
keys of every stored file in indexed tables, each file's rows written once, when stored.
"""

from __future__ import annotations

import json
import zlib
from abc import ABC, abstractmethod
from array import array
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from samecode.corpus.file_table import orphan_rows
from samecode.corpus.key_blocks import KeyBlocks
from samecode.minhash.buckets import BucketTable
from samecode.minhash.settings import LSHSettings
from samecode.similarity import prefix_length, size_bounds
from samecode.store.file import IndexCorruptError, Statements, signed64, unsigned64

__all__ = [
    "BandIndex",
    "BlockKeyIndex",
    "BucketKeyIndex",
    "CandidateIndex",
    "KeyIndex",
    "PackedKeyIndex",
    "PrefixIndex",
    "candidate_index",
]


class CandidateIndex(ABC):
    """How a corpus finds the stored files a query may match: its own tables, kept in
    step with the files, and a probe (:func:`candidate_index` picks one). Every method
    is given the corpus file's :class:`~samecode.store.file.Statements`."""

    version: ClassVar[str]
    #: Its tables, each with a ``file`` column naming a row of ``files``.
    file_tables: ClassVar[tuple[str, ...]]
    #: Whether :meth:`delete` finds a file's rows by its shingles (else by its id).
    delete_by_shingles: ClassVar[bool] = False

    @abstractmethod
    def tables(self) -> list[str]:
        """The statements that create its tables."""

    @abstractmethod
    def meta(self) -> list[tuple[str, str]]:
        """What the file's metadata records of it."""

    @abstractmethod
    def store(self, sql: Statements, file_id: int, ordered: array[int]) -> None:
        """Index a file of these ascending shingles (inside a transaction)."""

    def store_batch(self, sql: Statements, files: Sequence[tuple[int, array[int]]]) -> None:
        """Index files ``(id, ascending shingles)`` (inside a transaction): each by
        :meth:`store`, unless the index does better with them together."""
        for file_id, ordered in files:
            self.store(sql, file_id, ordered)

    def orphans(self, sql: Statements, ids: set[int]) -> dict[str, int]:
        """By table, how many of its rows name files not among ``ids`` (those stored)."""
        return orphan_rows(sql, self.file_tables)

    def compact(self, sql: Statements) -> None:  # noqa: B027 - a hook, empty for most
        """Put what is kept aside for quick writes where reads find it fastest (inside a
        transaction; nothing for most indexes)."""

    @abstractmethod
    def delete(self, sql: Statements, file_id: int, ordered: array[int] | None) -> None:
        """Forget a file (inside a transaction) of these ascending shingles (``None``
        where they are not known: a damaged entry)."""

    @abstractmethod
    def probe(self, sql: Statements, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        """The ids of the files that may reach ``t`` with a query of these shingles."""

    @abstractmethod
    def damage(self, sql: Statements, file_id: int, ordered: array[int]) -> str | None:
        """What is wrong with a file's rows, or ``None``."""

    @abstractmethod
    def stats(self, sql: Statements) -> dict[str, Any]:
        """Its counts and parameters."""


class PrefixIndex(CandidateIndex):
    """Every file's prefix at ``min_threshold``, by shingle: exact (see the module)."""

    version = "1"
    file_tables: ClassVar[tuple[str, ...]] = ("prefixes",)
    #: How a probe joins its rows, ``p``, on the probe's value ``q.value``.
    _rows = "JOIN prefixes p ON p.shingle = q.value"
    #: A shingle as the table holds it.
    _key = staticmethod(signed64)

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

    def store(self, sql: Statements, file_id: int, ordered: array[int]) -> None:
        prefix = ordered[: self._length(len(ordered))]
        sql.many(
            "INSERT INTO prefixes VALUES (?, ?, ?)",
            [(signed64(h), file_id, position) for position, h in enumerate(prefix)],
        )

    def delete(self, sql: Statements, file_id: int, ordered: array[int] | None) -> None:
        sql.run("DELETE FROM prefixes WHERE file = ?", (file_id,))

    def probe(self, sql: Statements, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        return sql.lookup(
            "SELECT DISTINCT file FROM prefixes WHERE shingle IN ({})",
            [signed64(h) for h in self._probe(ordered, t, measure)],
        )

    @staticmethod
    def _probe(ordered: array[int], t: Fraction, measure: str) -> array[int]:
        """The shingles a query probes with: for Jaccard its prefix, which meets every
        stored prefix it can reach ``t`` with; for the containment of a stored file all of
        them, any of which may be in a stored prefix."""
        return (
            ordered[: prefix_length(len(ordered), t, "jaccard")]
            if measure == "jaccard"
            else ordered
        )

    @staticmethod
    def _sizes(queries: Sequence[array[int]], t: Fraction, measure: str) -> tuple[int, int]:
        """The least and most shingles a stored file may have to reach ``t`` with one of
        the ``queries``."""
        sizes = [len(x) for x in queries]
        if measure == "jaccard":
            return size_bounds(min(sizes), t)[0], size_bounds(max(sizes), t)[1]
        return 1, max(sizes) * t.denominator // t.numerator  # shared >= t * m and <= n

    def probe_batch(
        self, sql: Statements, queries: Sequence[array[int]], t: Fraction, measure: str
    ) -> set[int]:
        """The ids of the stored files whose prefixes meet the queries' (ascending
        shingles), of a size that may reach ``t`` with one of them: one statement for
        the whole batch."""
        probe: set[int] = set()
        for x in queries:
            probe.update(self._probe(x, t, measure))
        low, high = self._sizes(queries, t, measure)
        # The probe's values in a table of this connection's own (temporary, so a
        # read-only corpus takes it too).
        sql.run("CREATE TEMP TABLE IF NOT EXISTS probe (value INTEGER)")
        try:
            sql.run("BEGIN")  # one transaction for every row
            # In order: every row is appended to the table's last page.
            values = sorted(set(map(self._key, probe)))
            sql.many("INSERT INTO temp.probe VALUES (?)", zip(values))
            sql.run("COMMIT")
            ids: set[int] = set()
            for file_id, count in sql.run(
                f"SELECT DISTINCT p.file, f.count FROM temp.probe q {self._rows} "
                "LEFT JOIN files f ON f.id = p.file "
                "WHERE f.count IS NULL OR f.count BETWEEN ? AND ?",
                [low, high],
            ):
                if count is None:  # rows of a damaged file
                    raise IndexCorruptError(
                        sql.path, f"a candidate names file {file_id}, which is gone"
                    )
                ids.add(file_id)
        finally:
            sql.roll_back_if_open()  # the insert failed
            sql.run("DELETE FROM temp.probe")
        return ids

    def damage(self, sql: Statements, file_id: int, ordered: array[int]) -> str | None:
        stored = [
            unsigned64(h)
            for (h,) in sql.run(
                "SELECT shingle FROM prefixes WHERE file = ? ORDER BY position", (file_id,)
            )
        ]
        if stored != ordered[: self._length(len(ordered))].tolist():
            return "prefix"
        return None

    def stats(self, sql: Statements) -> dict[str, Any]:
        (rows,) = sql.run("SELECT count(*) FROM prefixes").fetchone()
        return {"candidates": "prefix", "prefix_rows": rows}


class KeyIndex(PrefixIndex):
    """Every file's prefix at ``min_threshold`` as short keys (format version 4): one
    b-tree of ``(key, file)``, the key the high 32 bits of a prefix shingle (signed, so
    SQLite holds it in 4 bytes), without positions and without a second index. As
    exact as :class:`PrefixIndex`: a stored file sharing a prefix shingle with a query
    shares its key; a key shared by chance only adds a candidate, which the exact
    verification drops. A file's rows are found, to delete or check them, by its keys,
    which its shingles give (the corpus keeps its text, and shingles it again).
    """

    version = "4"
    file_tables: ClassVar[tuple[str, ...]] = ("prefix_keys",)
    delete_by_shingles = True
    # CROSS JOIN: the probe drives, each value looked up in the b-tree
    _rows = "CROSS JOIN prefix_keys p ON p.key = q.value"

    @staticmethod
    def _key(shingle: int) -> int:
        high = shingle >> 32
        return high - (1 << 32) if high >= 1 << 31 else high

    def tables(self) -> list[str]:
        return [
            "CREATE TABLE prefix_keys (key INTEGER NOT NULL, file INTEGER NOT NULL, "
            "PRIMARY KEY (key, file)) WITHOUT ROWID"
        ]

    def _keys(self, ordered: array[int]) -> list[int]:
        """A file's keys: those of its prefix, distinct, ascending."""
        return sorted({self._key(h) for h in ordered[: self._length(len(ordered))]})

    def store(self, sql: Statements, file_id: int, ordered: array[int]) -> None:
        sql.many(
            "INSERT INTO prefix_keys VALUES (?, ?)",
            [(key, file_id) for key in self._keys(ordered)],
        )

    def delete(self, sql: Statements, file_id: int, ordered: array[int] | None) -> None:
        if ordered is None:  # a damaged entry: found by a scan of the whole table
            sql.run("DELETE FROM prefix_keys WHERE file = ?", (file_id,))
            return
        sql.many(
            "DELETE FROM prefix_keys WHERE key = ? AND file = ?",
            [(key, file_id) for key in self._keys(ordered)],
        )

    def probe(self, sql: Statements, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        return sql.lookup(
            "SELECT DISTINCT file FROM prefix_keys WHERE key IN ({})",
            sorted({self._key(h) for h in self._probe(ordered, t, measure)}),
        )

    def damage(self, sql: Statements, file_id: int, ordered: array[int]) -> str | None:
        keys = self._keys(ordered)
        held = sql.lookup(
            f"SELECT key FROM prefix_keys WHERE file = {int(file_id)} AND key IN ({{}})", keys
        )
        return None if len(held) == len(keys) else "prefix"

    def stats(self, sql: Statements) -> dict[str, Any]:
        (rows,) = sql.run("SELECT count(*) FROM prefix_keys").fetchone()
        return {"candidates": "prefix", "prefix_rows": rows}


class BlockKeyIndex(KeyIndex):
    """:class:`KeyIndex`'s keys (unsigned: the high 32 bits of a prefix shingle) packed
    in blocks (format version 5, :class:`~samecode.corpus.key_blocks.KeyBlocks`): 8
    bytes a key and file, where a row each took 12 to 17; a batch of files is indexed
    together, each block it touches written once. As exact as :class:`KeyIndex`.
    """

    version = "5"
    file_tables: ClassVar[tuple[str, ...]] = ()
    #: Whether its blocks are packed (:class:`~samecode.corpus.key_blocks.KeyBlocks`).
    packed: ClassVar[bool] = False
    #: Whether they are packed in buckets.
    buckets: ClassVar[bool] = False

    def __init__(self, lowest: Fraction) -> None:
        super().__init__(lowest)
        # its own: it keeps counts
        self._blocks = KeyBlocks("prefix_blocks", 4, packed=self.packed, buckets=self.buckets)

    @staticmethod
    def _key(shingle: int) -> int:
        return shingle >> 32

    def tables(self) -> list[str]:
        return self._blocks.tables()

    def store(self, sql: Statements, file_id: int, ordered: array[int]) -> None:
        self.store_batch(sql, [(file_id, ordered)])

    def store_batch(self, sql: Statements, files: Sequence[tuple[int, array[int]]]) -> None:
        self._blocks.add(
            sql,
            [posting for file_id, ordered in files for posting in self._postings(file_id, ordered)],
        )

    def _keys(self, ordered: array[int]) -> list[int]:
        # _key inline: a call per shingle was most of the cost of a store's keys
        return sorted({h >> 32 for h in ordered[: self._length(len(ordered))]})

    def _postings(self, file_id: int, ordered: array[int]) -> list[int]:
        """A file's postings: each key of its prefix, with the file's id in its low 32 bits."""
        file_id = self._blocks.check_file(file_id)
        return [key << 32 | file_id for key in self._keys(ordered)]

    def delete(self, sql: Statements, file_id: int, ordered: array[int] | None) -> None:
        if ordered is None:  # a damaged entry: found by a read of every block
            self._blocks.remove_file(sql, file_id)
        else:
            self._blocks.remove(sql, self._postings(file_id, ordered))

    def probe(self, sql: Statements, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        return self._files(sql, map(self._key, self._probe(ordered, t, measure)))

    def probe_batch(
        self, sql: Statements, queries: Sequence[array[int]], t: Fraction, measure: str
    ) -> set[int]:
        keys = {self._key(h) for x in queries for h in self._probe(x, t, measure)}
        found = self._files(sql, keys)
        low, high = self._sizes(queries, t, measure)
        counts = dict(sql.rows_in("SELECT id, count FROM files WHERE id IN ({})", sorted(found)))
        gone = sorted(found - counts.keys())  # postings of a damaged file
        if gone:
            raise IndexCorruptError(sql.path, f"a candidate names file {gone[0]}, which is gone")
        return {file_id for file_id, count in counts.items() if low <= count <= high}

    def _files(self, sql: Statements, keys: Iterable[int]) -> set[int]:
        """The files of the postings of ``keys``."""
        return {file for files in self._blocks.files(sql, keys).values() for file in files}

    def damage(self, sql: Statements, file_id: int, ordered: array[int]) -> str | None:
        keys = self._keys(ordered)
        try:
            held = self._blocks.held(sql, file_id, keys)
        except IndexCorruptError:  # a block it would be in is damaged
            return "prefix"
        return None if held == len(keys) else "prefix"

    def orphans(self, sql: Statements, ids: set[int]) -> dict[str, int]:
        return self._blocks.orphans(sql, ids)

    def compact(self, sql: Statements) -> None:
        """Fold the pending postings into the blocks."""
        self._blocks.fold(sql)

    def stats(self, sql: Statements) -> dict[str, Any]:
        return {
            "candidates": "prefix",
            "prefix_rows": self._blocks.count(sql),
            "prefix_pending": self._blocks.pending(sql),
        }


class PackedKeyIndex(BlockKeyIndex):
    """:class:`BlockKeyIndex` with its blocks packed (format version 6,
    :class:`~samecode.corpus.key_blocks.KeyBlocks` with ``packed``): the high bytes of a
    block's keys once, each key's low bytes and each file id in the fewest whole bytes, some 5
    bytes a key and file in a corpus of fewer than 65,536 files where version 5 takes 8,
    found as fast. As exact as :class:`KeyIndex`.
    """

    version = "6"
    packed: ClassVar[bool] = True


class BucketKeyIndex(PackedKeyIndex):
    """:class:`PackedKeyIndex` with its blocks packed in buckets (format version 8,
    :class:`~samecode.corpus.key_blocks.KeyBlocks` with ``buckets``): fewer low bytes of
    each key, counted by the bytes above them, some 4 bytes a key and file in a corpus of
    fewer than 65,536 files where version 6 takes 5, found as fast. As exact as
    :class:`KeyIndex`.
    """

    version = "8"
    buckets: ClassVar[bool] = True


class BandIndex(CandidateIndex):
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

    def store(self, sql: Statements, file_id: int, ordered: array[int]) -> None:
        values = self._values(ordered)
        sql.run(
            "INSERT INTO signatures VALUES (?, ?, ?)",
            (file_id, values, zlib.crc32(values, file_id & 0xFFFFFFFF)),
        )
        self.table.store(sql.many, file_id, self._buckets(ordered, values))

    def delete(self, sql: Statements, file_id: int, ordered: array[int] | None) -> None:
        self.table.delete(sql.run, file_id)
        sql.run("DELETE FROM signatures WHERE file = ?", (file_id,))

    def _buckets(self, ordered: array[int], values: bytes) -> set[int]:
        # An empty set matches nothing: it gets no buckets (else all empty files would
        # share every bucket, and each would be a candidate of every other).
        return self.table.buckets(values) if ordered else set()

    def probe(self, sql: Statements, ordered: array[int], t: Fraction, measure: str) -> set[int]:
        if not ordered:
            return set()
        return self.near(sql, self._values(ordered))

    def near(self, sql: Statements, values: bytes) -> set[int]:
        """The files that share a bucket with a signature of these values."""
        return self.table.near(sql.run, values)

    def stored(self, sql: Statements, file_id: int) -> bytes:
        """A file's stored signature values, checked."""
        row = sql.run("SELECT vals, crc FROM signatures WHERE file = ?", (file_id,)).fetchone()
        if (
            row is None
            or not isinstance(row[0], bytes)
            or zlib.crc32(row[0], file_id & 0xFFFFFFFF) != row[1]
            or len(row[0]) != self.settings.width
        ):
            raise IndexCorruptError(sql.path, f"the signature of file {file_id} is damaged")
        return bytes(row[0])

    def damage(self, sql: Statements, file_id: int, ordered: array[int]) -> str | None:
        try:
            values = self.stored(sql, file_id)
        except IndexCorruptError:
            return "signature"
        if values != self._values(ordered):
            return "signature"
        if self.table.held(sql.run, file_id) != sorted(self._buckets(ordered, values)):
            return "LSH buckets"
        return None

    def stats(self, sql: Statements) -> dict[str, Any]:
        rows = self.table.rows(sql.run)
        return {"candidates": "lsh", "lsh": self.settings.to_dict(), "bucket_rows": rows}


def candidate_index(
    lowest: Fraction, lsh: LSHSettings | None, version: str = "8"
) -> CandidateIndex:
    """Prefixes for ``lowest`` as a corpus of format ``version`` keeps them (blocks of
    short keys packed in buckets in version 8, packed in version 6, blocks in version 5,
    short keys in rows in version 4, whole shingles in versions 1 and 3), or LSH bands by
    ``lsh`` where given.

    >>> from fractions import Fraction
    >>> type(candidate_index(Fraction(4, 5), None)).__name__
    'BucketKeyIndex'
    >>> type(candidate_index(Fraction(4, 5), None, "6")).__name__
    'PackedKeyIndex'
    >>> type(candidate_index(Fraction(4, 5), None, "5")).__name__
    'BlockKeyIndex'
    >>> candidate_index(Fraction(4, 5), None, "4").file_tables
    ('prefix_keys',)
    >>> candidate_index(Fraction(4, 5), None, "3").file_tables
    ('prefixes',)
    """
    if lsh is not None:
        return BandIndex(lsh)
    if version == BucketKeyIndex.version:
        return BucketKeyIndex(lowest)
    if version == PackedKeyIndex.version:
        return PackedKeyIndex(lowest)
    if version == BlockKeyIndex.version:
        return BlockKeyIndex(lowest)
    return KeyIndex(lowest) if version == KeyIndex.version else PrefixIndex(lowest)
