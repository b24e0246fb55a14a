"""Postings ``(key, file)`` packed into blocks: the key tables of a corpus of format
version 5, 6 or 8, a few bytes a posting rather than an SQLite row each.

A posting is given as one int, ``key << 32 | file`` (so postings sort by key, then
file), for a file id below ``2**32``.

A :class:`KeyBlocks` table holds rows ``(id, key, file, data, crc)``, indexed by
``(key, file)``: each row is a block that starts at the posting ``(key, file)`` and holds
the postings from there to the next block's start, ascending (for 4-byte keys, each
posting as an 8-byte value; for 8-byte keys, the keys, then the files, 4 bytes each;
little-endian), with a CRC-32 of them and of its start. A posting costs its
8 or 12 bytes where a row of its own cost 12 to 18.

Packed (``packed=True``, format version 6), a block's data is a byte of two widths, the
high bytes its keys share, then each posting's key without them, then each posting's
file, in as few whole bytes as the block needs (its key width, 1 to the key's bytes, in
the high four bits of the first byte: the bytes of a key below those its first and last
keys share; its file width, 1 to 4, in the low four: the bytes of its largest file;
little-endian). Keys are hashes, dense in a block (a block of some 200 of a corpus's
2,000 files' prefix keys spans about ``2**21`` of the ``2**32``), so a posting costs
some 5 bytes (4-byte keys) or 9 (8-byte keys) in a corpus of fewer than 65,536 files.
In buckets (``buckets=True``, format version 8), a block keeps fewer low bytes of each
key and counts its postings by the value of the bytes above them
(:mod:`samecode.corpus._bucket_blocks`): some 4 bytes a posting of a 4-byte key, 8 of an
8-byte key, in a corpus of fewer than 65,536 files.
A key is still found by a search of the bytes as stored: the look-ups cost what they
cost unpacked; a block is made from, and widened to, the arrays of :class:`Block` by
slices of their bytes (C's loops), no posting made an int on the way. A block holds at most
:data:`BLOCK_BYTES` of postings after a write (120 or 80; packed, as many as fit in its
widths), and a key that a million
files share is cut across blocks like any other run: adding to it rewrites one block,
not the million. (The blocks are rows of a table with row ids, the index of their
starts apart: a table without row ids would keep copies of whole blocks in its interior
pages, and move a block of over 1,002 bytes partly to a page of its own.)

Postings added go first to a table of their own, ``{table}_pending``, a row each (as a
table of keys without blocks keeps them: written at the cost of a b-tree insert). When
it holds :data:`FOLD_SHARE` times as many postings as there are blocks
(:data:`PACKED_FOLD_SHARE` for packed blocks, :data:`BUCKET_FOLD_SHARE` in buckets),
they are folded into the blocks, in order: each block is read and written once for all
of its new postings. So a block is rewritten once per some 16 (packed: 32; in buckets:
48) postings it takes, however large the corpus (adding each
batch to the blocks it falls in would rewrite every block for every batch once the
blocks outnumber a batch's postings). The counts that decide it are kept between batches
(counted again after a fold or a removal, or once another connection has written the
file): counting millions of pending rows every batch would make adding
``n`` files cost ``O(n**2)``. A block is found by the greatest
start at or before a posting (the index of the starts); looking keys up reads the
blocks they fall in, a sorted batch of keys each block once, and the pending rows of
those keys. The first block starts below every posting and is never removed.

Runtime complexity: ``O(log n)`` to add a posting (a row, plus its share of a fold:
``O(1)`` rows and blocks rewritten, amortized), ``O(log blocks)`` to find a block and
``O(p)`` to read one of ``p`` postings. At rest a posting costs 8 bytes (4-byte keys) or
12 (8-byte keys) in a block some 75 % to 100 % full (packed: its key's low bytes and its
file, in the block's widths), or, while pending, a row of about 13 or 18.

>>> import sqlite3
>>> from samecode.store.file import StoreFile
>>> store = StoreFile(sqlite3.connect(":memory:"), ":memory:", False, 30.0)
>>> blocks, sql = KeyBlocks("postings", 4), Statements(store)
>>> for statement in blocks.tables():
...     _ = sql.run(statement)
>>> blocks.add(sql, [7 << 32 | 1, 7 << 32 | 2, 9 << 32 | 2])
>>> blocks.files(sql, [7, 8, 9]), blocks.pending(sql)
({7: [1, 2], 9: [2]}, 3)
>>> blocks.add(sql, [key << 32 | 3 for key in range(100, 120)])  # folded: 23 >= 16 * 1
>>> blocks.pending(sql)
0
>>> blocks.remove(sql, [7 << 32 | 1])
>>> blocks.files(sql, [7, 100]), blocks.count(sql)
({7: [2], 100: [3]}, 22)
>>> packed = KeyBlocks("packed", 4, packed=True)
>>> for statement in packed.tables():
...     _ = sql.run(statement)
>>> packed.fold(sql, [7 << 32 | 1, 7 << 32 | 2, 9 << 32 | 300])
>>> packed.files(sql, [7, 9]), sql.run("SELECT hex(data) FROM packed").fetchone()[0]
({7: [1, 2], 9: [300]}, '12000000070709010002002C01')
>>> buckets = KeyBlocks("buckets", 4, buckets=True)  # keys 7 and 70000: two buckets
>>> for statement in buckets.tables():
...     _ = sql.run(statement)
>>> buckets.fold(sql, [7 << 32 | 1, 7 << 32 | 2, 70000 << 32 | 300])
>>> buckets.files(sql, [7, 70000]), sql.run("SELECT hex(data) FROM buckets").fetchone()[0]
({7: [1, 2], 70000: [300]}, '2201000002070007007011010002002C01')
>>> store.close()
"""

from __future__ import annotations

import sys
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from itertools import islice
from operator import eq
from typing import NamedTuple, Protocol

import samecode.corpus._bucket_blocks as bucket_blocks
import samecode.corpus._packed_blocks as packed_blocks
from samecode._validation import check_bool
from samecode.errors import SamecodeValueError
from samecode.store.file import IndexCorruptError, Statements

__all__ = [
    "BLOCK_BYTES",
    "BUCKET_FOLD_SHARE",
    "FOLD_SHARE",
    "PACKED_FOLD_SHARE",
    "Block",
    "KeyBlocks",
]

#: The most bytes of postings a block holds after a write: a few rows a page, each
#: rewritten whole when a posting is added to it. A split block's parts hold three
#: quarters of it, so a block takes some postings before it splits again.
BLOCK_BYTES = 960
#: Pending postings are folded into the blocks when there are this many times as many
#: of them as blocks.
FOLD_SHARE = 16
#: The same for packed blocks: each holds some 1.6 times as many postings and costs some
#: twice as much a posting to read and write again, so that a fold rewrites about as much
#: for each posting it takes as unpacked blocks do, postings are folded half as often.
PACKED_FOLD_SHARE = 32
#: The same for blocks in buckets: each holds some 1.3 (fingerprints) to 1.5 (prefix
#: keys) times as many postings as a packed block, and a fold rewrites every posting of
#: the blocks it touches: at 48 a corpus folds about as often as in packed blocks at 32
#: (at 32, 100,000 generated files took 307 s to index in ten syncs, against 252).
BUCKET_FOLD_SHARE = 48
#: Pending postings folded at a time (read in order, a part of the key range each).
_FOLD_PART = 100_000
#: Keys a statement finds the blocks of (within SQLite's limit on parameters).
_LOOKUP = 500
#: The most blocks a statement reads ahead while folding or removing postings.
_AHEAD = 64
_FILE_BITS = 32
_FILE_MASK = (1 << _FILE_BITS) - 1


class _Codec(Protocol):
    """The bytes of a packed block: :mod:`samecode.corpus._packed_blocks`'s, or
    :mod:`samecode.corpus._bucket_blocks`'s (in buckets)."""

    def count(self, size: int, head: bytes, key_bytes: int) -> int: ...

    def files_of(self, data: bytes, key: int, key_bytes: int) -> list[int]: ...

    def misshapen(self, data: bytes, key_bytes: int) -> bool: ...

    def unpack(self, data: bytes, key_bytes: int) -> tuple[array[int], array[int] | None]: ...

    def pack_part(
        self,
        postings: list[int],
        held: packed_blocks.Columns,
        low: int,
        high: int,
        key_bytes: int,
    ) -> bytes: ...


class Block(NamedTuple):
    """A block read: its start, the start of the block after it (``None`` for the last,
    or where it was not asked for), each a posting ``key << 32 | file``, and its postings,
    ascending: ``keys`` the postings themselves and ``files`` ``None`` (4-byte keys), or
    ``keys`` their keys and ``files`` their files (8-byte keys), whether the block is
    packed or not."""

    start: int
    after: int | None
    keys: array[int]
    files: array[int] | None

    @property
    def postings(self) -> list[int]:
        """The postings, ascending, each ``key << 32 | file``."""
        if self.files is None:
            return self.keys.tolist()
        return [key << _FILE_BITS | file for key, file in zip(self.keys, self.files)]

    def last_key(self) -> int | None:
        """The key of the block's last posting (``None`` for an empty block)."""
        if not self.keys:
            return None
        return self.keys[-1] >> _FILE_BITS if self.files is None else self.keys[-1]

    def files_of(self, key: int) -> list[int]:
        """The files of the postings of ``key`` in the block, ascending (a search of the
        arrays as stored: no posting is made an int but those of ``key``)."""
        if self.files is None:
            low = bisect_left(self.keys, key << _FILE_BITS)
            high = bisect_left(self.keys, (key + 1) << _FILE_BITS, low)
            return [posting & _FILE_MASK for posting in self.keys[low:high]]
        low = bisect_left(self.keys, key)
        return self.files[low : bisect_right(self.keys, key, low)].tolist()


class KeyBlocks:
    """A table of postings ``key << 32 | file`` packed into blocks (see the module).

    :param table: the table's name.
    :param key_bytes: 4 for keys below ``2**32``, 8 for keys below ``2**64``.
    :param packed: whether its blocks are packed (format version 6: the high bytes of a
        block's keys once, each key's low bytes and each file in the fewest whole bytes;
        see the module).
    :param buckets: whether its blocks are packed in buckets (format version 8: fewer
        low bytes of each key, counted by the bytes above them; see the module); implies
        ``packed``.
    :raises ValueError: for other ``key_bytes``.
    :raises TypeError: if ``packed`` or ``buckets`` is not a bool.
    """

    def __init__(
        self, table: str, key_bytes: int, *, packed: bool = False, buckets: bool = False
    ) -> None:
        if key_bytes not in (4, 8):
            raise SamecodeValueError(f"key_bytes must be 4 or 8; got {key_bytes!r}")
        self.table = table
        self.buckets = check_bool(buckets, "buckets")
        self.packed = check_bool(packed, "packed") or buckets
        self._codec: _Codec = bucket_blocks if buckets else packed_blocks
        #: Pending postings are folded when there are this many times as many as blocks.
        self.fold_share = FOLD_SHARE
        if self.packed:
            self.fold_share = BUCKET_FOLD_SHARE if buckets else PACKED_FOLD_SHARE
        self._key_bytes = key_bytes
        self._wide = key_bytes == 8
        # stored keys are signed 64-bit in SQLite: 8-byte keys shifted down, in order
        self._shift = 1 << 63 if self._wide else 0
        self._limit = 1 << (8 * key_bytes + _FILE_BITS)  # of a posting
        self._entry = key_bytes + 4
        self._most = BLOCK_BYTES // self._entry
        # (data_version, blocks, pending) as last counted and kept up by add: so that
        # deciding to fold does not count a table of millions of rows every batch
        self._sizes: tuple[int, int, int] | None = None
        if array("Q").itemsize != 8 or array("I").itemsize != 4:  # pragma: no cover
            raise OSError("this platform has no 4- and 8-byte unsigned array types")

    @staticmethod
    def check_file(file: int) -> int:
        """``file`` if it is a file id a posting can name (``0 <= file < 2**32``).

        :raises ValueError: otherwise.
        """
        if not 0 <= file <= _FILE_MASK:
            raise SamecodeValueError(f"a block's postings name file ids below 2**32; got {file!r}")
        return file

    def tables(self) -> list[str]:
        """The statements that make the table and its first block (empty, starting
        below every posting)."""
        return [
            f"CREATE TABLE {self.table} (id INTEGER PRIMARY KEY, key INTEGER NOT NULL, "
            "file INTEGER NOT NULL, data BLOB NOT NULL, crc INTEGER NOT NULL)",
            f"CREATE UNIQUE INDEX {self.table}_start ON {self.table} (key, file)",
            f"CREATE TABLE {self.table}_pending (key INTEGER NOT NULL, file INTEGER NOT NULL, "
            "PRIMARY KEY (key, file)) WITHOUT ROWID",
            f"INSERT INTO {self.table} (key, file, data, crc) "
            f"VALUES ({-self._shift}, 0, x'', {self._crc(0, b'')})",
        ]

    # -- reading ------------------------------------------------------------------------

    def files(self, sql: Statements, keys: Iterable[int]) -> dict[int, list[int]]:
        """For each of ``keys`` that postings have, their files, ascending.

        Runtime complexity: ``O(log blocks)`` to find each block that holds the keys
        (read once for the whole batch), plus ``O(postings)`` of those blocks, and
        ``O(log n)`` per key for its pending postings.
        """
        wanted = sorted(set(keys))
        found: dict[int, list[int]] = {}
        for key, files in self._runs(sql, wanted):
            if files:
                found.setdefault(key, []).extend(files)
        for key, files in self._pending(sql, wanted).items():
            found[key] = sorted({*found.get(key, ()), *files})
        return found

    def held(self, sql: Statements, file: int, keys: Iterable[int]) -> int:
        """How many of the distinct ``keys`` have a posting of ``file``."""
        wanted = sorted(set(keys))
        held = {key for key, files in self._pending(sql, wanted).items() if file in files}
        for key, files in self._runs(sql, wanted):
            if file in files:
                held.add(key)
        return len(held)

    def pending(self, sql: Statements) -> int:
        """How many postings are pending (not yet folded into the blocks)."""
        return int(sql.run(f"SELECT count(*) FROM {self.table}_pending").fetchone()[0])

    def count(self, sql: Statements) -> int:
        """How many postings the table holds (one added again while it was held, which a
        corpus never does, counts twice until the pending postings are folded)."""
        (pending,) = sql.run(f"SELECT count(*) FROM {self.table}_pending").fetchone()
        if self.packed:  # each block's count from its length and its head
            rows = sql.run(f"SELECT length(data), substr(data, 1, 2) FROM {self.table}")
            held = sum(
                self._codec.count(size, head, self._key_bytes)
                for size, head in rows
                if isinstance(head, bytes) and head and head[0]
            )
            return held + int(pending)
        (size,) = sql.run(f"SELECT coalesce(sum(length(data)), 0) FROM {self.table}").fetchone()
        return int(size) // self._entry + int(pending)

    def orphans(self, sql: Statements, ids: set[int]) -> dict[str, int]:
        """How many postings name files not among ``ids``, by the table's name (none:
        empty).

        Runtime complexity: ``O(postings)``.
        """
        count = sum(
            posting & _FILE_MASK not in ids
            for block in self.blocks(sql)
            for posting in block.postings
        )
        rows = sql.run(f"SELECT file FROM {self.table}_pending")
        count += sum(file not in ids for (file,) in rows.fetchall())
        return {self.table: count} if count else {}

    def postings(self, sql: Statements) -> list[int]:
        """Every posting held, ascending, whether in a block or pending (what the table
        holds, whatever changes made it).

        Runtime complexity: ``O(p log p)`` for ``p`` postings.
        """
        held = [posting for block in self.blocks(sql) for posting in block.postings]
        rows = sql.run(f"SELECT key, file FROM {self.table}_pending").fetchall()
        return sorted({*held, *(self._posting(key, file) for key, file in rows)})

    def blocks(self, sql: Statements) -> Iterator[Block]:
        """Every block, in order, each checked, read as they are asked for (a block at a
        time in memory; the table must not change meanwhile).

        :raises IndexCorruptError: for a block that fails its checks.
        """
        rows = sql.run(f"SELECT key, file, data, crc FROM {self.table} ORDER BY key, file")
        previous: tuple[int, int, bytes, int] | None = None
        for row in rows:
            if previous is not None:
                yield self._decoded(sql, previous, self._posting(row[0], row[1]))
            previous = row
        if previous is not None:
            yield self._decoded(sql, previous, None)

    def _pending(self, sql: Statements, keys: list[int]) -> dict[int, list[int]]:
        """The files of the pending postings of each of the sorted ``keys`` that has
        some."""
        found: dict[int, list[int]] = {}
        if sql.run(f"SELECT 1 FROM {self.table}_pending LIMIT 1").fetchone() is None:
            return found
        stored = [key - self._shift for key in keys if 0 <= key << _FILE_BITS < self._limit]
        rows = sql.rows_in(
            f"SELECT key, file FROM {self.table}_pending WHERE key IN ({{}}) ORDER BY key, file",
            stored,
        )
        for key, file in rows:
            found.setdefault(key + self._shift, []).append(file)
        return found

    def _posting(self, key: int, file: int) -> int:
        """A block's start as stored (``key`` shifted to signed) as a posting."""
        return (key + self._shift) << _FILE_BITS | file

    def _runs(self, sql: Statements, keys: list[int]) -> Iterator[tuple[int, list[int]]]:
        """For each of ``keys``, its files, ascending: those in the block its last
        possible posting falls in, found by SQLite, :data:`_LOOKUP` keys a statement
        (each block checked once a statement, and searched as stored: most keys of a
        query are in no block), and, where that block starts with the key, those of the
        blocks before it that end with it."""
        stored = [key - self._shift for key in keys if 0 <= key << _FILE_BITS < self._limit]
        table, shift, crc32 = self.table, self._shift, zlib.crc32
        for first in range(0, len(stored), _LOOKUP):
            part = stored[first : first + _LOOKUP]
            rows = sql.run(
                f"WITH probe(value) AS (VALUES {', '.join(['(?)'] * len(part))}) "
                "SELECT probe.value, b.key, b.file, b.data, b.crc "
                f"FROM probe JOIN {table} b ON b.id = (SELECT id FROM {table} "
                "WHERE key <= probe.value ORDER BY key DESC, file DESC LIMIT 1)",
                part,
            ).fetchall()
            if len(rows) != len(part):
                raise IndexCorruptError(sql.path, f"the first block of {table} is gone")
            checked: set[tuple[int, int]] = set()  # the blocks' starts, as stored
            for value, at_key, at_file, data, crc in rows:
                if (at_key, at_file) not in checked:  # _check's checks (_crc's), inline
                    start = (at_key + shift) << _FILE_BITS | at_file
                    if (
                        not isinstance(data, bytes)
                        or self._misshapen(data)
                        or crc32(data, crc32(str(start).encode())) != crc
                    ):
                        raise IndexCorruptError(sql.path, f"a block of {table} is damaged")
                    checked.add((at_key, at_file))
                key = value + shift
                files = self._files_in(data, key)
                if at_key == value:  # the run may begin in the blocks before
                    start = (at_key + shift) << _FILE_BITS | at_file
                    while (block := self._previous(sql, start)) is not None:
                        if block.last_key() != key:
                            break
                        files[:0] = block.files_of(key)
                        if block.start >> _FILE_BITS != key:
                            break
                        start = block.start
                yield key, files

    def _files_in(self, data: bytes, key: int) -> list[int]:
        """The files of ``key``'s postings in a checked block's ``data``, ascending: a
        search of the bytes as stored (little-endian), no posting decoded but those of
        ``key``."""
        if self.packed:
            return self._codec.files_of(data, key, self._key_bytes)
        if self._wide:  # the keys, 8 bytes each, then the files, 4 each
            end = len(data) // 12 * 8
            pattern, width, offset = key.to_bytes(8, "little"), 8, 0
        else:  # each posting 8 bytes: its file, then its key, 4 bytes each
            end = len(data)
            pattern, width, offset = key.to_bytes(4, "little"), 8, 4
        found = packed_blocks.run_of(data, pattern, offset, end, width)
        if found is None:
            return []
        at, after = found
        files = array("I")
        if self._wide:
            files.frombytes(data[end + (at // 2) : end + (after // 2)])
        else:
            files.frombytes(b"".join(data[i - 4 : i] for i in range(at, after, 8)))
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            files.byteswap()
        return files.tolist()

    def _misshapen(self, data: bytes) -> bool:
        """Whether a block's ``data`` is of no length (or, packed, no widths) a block's
        postings take (an empty block is sound)."""
        if self.packed:
            return self._codec.misshapen(data, self._key_bytes)
        return len(data) % self._entry != 0

    def _previous(self, sql: Statements, start: int) -> Block | None:
        """The block before the one that starts at ``start`` (its ``after`` not asked
        for), or ``None``."""
        row = sql.run(
            f"SELECT key, file, data, crc FROM {self.table} WHERE (key, file) < (?, ?) "
            "ORDER BY key DESC, file DESC LIMIT 1",
            ((start >> _FILE_BITS) - self._shift, start & _FILE_MASK),
        ).fetchone()
        return None if row is None else self._decoded(sql, row, None)

    def _read_from(
        self, sql: Statements, posting: int, count: int
    ) -> list[tuple[int, int, bytes, int]]:
        """The rows ``(key, file, data, crc)`` of the block ``posting`` falls in (the one
        of the greatest start at or before it) and of the blocks after it, ``count`` in
        all at most, in order, in one statement."""
        key, file = (posting >> _FILE_BITS) - self._shift, posting & _FILE_MASK
        rows: list[tuple[int, int, bytes, int]] = sql.run(
            f"SELECT key, file, data, crc FROM {self.table} WHERE (key, file) >= ("
            f"SELECT key, file FROM {self.table} WHERE (key, file) <= (?, ?) "
            f"ORDER BY key DESC, file DESC LIMIT 1) ORDER BY key, file LIMIT {int(count)}",
            (key, file),
        ).fetchall()
        if not rows:
            raise IndexCorruptError(sql.path, f"the first block of {self.table} is gone")
        return rows

    def _check(self, sql: Statements, row: tuple[int, int, bytes, int]) -> int:
        """The start of a block read as a row ``(key, file, data, crc)``, as a posting,
        once its data has passed its checks.

        :raises IndexCorruptError: if it does not.
        """
        start = self._posting(row[0], row[1])
        data = row[2]
        if not isinstance(data, bytes) or self._misshapen(data) or self._crc(start, data) != row[3]:
            raise IndexCorruptError(sql.path, f"a block of {self.table} is damaged")
        return start

    def _decoded(
        self, sql: Statements, row: tuple[int, int, bytes, int], after: int | None
    ) -> Block:
        start = self._check(sql, row)
        data = row[2]
        if self.packed:
            return Block(start, after, *self._codec.unpack(data, self._key_bytes))
        keys = array("Q")
        if not self._wide:  # each posting an 8-byte value
            keys.frombytes(data)
            if sys.byteorder != "little":  # pragma: no cover - big-endian machines
                keys.byteswap()
            return Block(start, after, keys, None)
        count = len(data) // self._entry
        files = array("I")
        view = memoryview(data)
        keys.frombytes(view[: 8 * count])
        files.frombytes(view[8 * count :])
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            keys.byteswap()
            files.byteswap()
        return Block(start, after, keys, files)

    def _pack(self, postings: list[int], parts: int, size: int) -> Iterator[bytes]:
        """The data of each of ``parts`` blocks of ``size`` of the ``postings`` (the last
        of what is left): packed once, then cut (a block's keys, then its files, for
        8-byte keys)."""
        if not self._wide:
            keys = array("Q", postings)
            if sys.byteorder != "little":  # pragma: no cover - big-endian machines
                keys.byteswap()
            data = keys.tobytes()
            for number in range(parts):
                yield data[8 * size * number : 8 * size * (number + 1)]
            return
        keys = array("Q", [posting >> _FILE_BITS for posting in postings])
        files = array("I", [posting & _FILE_MASK for posting in postings])
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            keys.byteswap()
            files.byteswap()
        key_data, file_data = keys.tobytes(), files.tobytes()
        for number in range(parts):
            low, high = size * number, size * (number + 1)
            yield key_data[8 * low : 8 * high] + file_data[4 * low : 4 * high]

    @staticmethod
    def _crc(start: int, data: bytes) -> int:
        """The CRC-32 of a block's start, in decimal, then of its postings (a block
        moved to another start fails it)."""
        return zlib.crc32(data, zlib.crc32(str(start).encode()))

    # -- writing (inside a transaction) ---------------------------------------------------

    def add(self, sql: Statements, postings: Iterable[int]) -> None:
        """Add ``postings`` (inside a transaction): pending, and folded into the blocks
        when there are enough (see the module); one already held is held once.

        :raises ValueError: for a posting out of range (a negative one, or one of a key
            of more than the table's bytes).

        Runtime complexity: ``O(log n)`` per posting, amortized (see the module).
        """
        wanted = _distinct(sorted(postings))
        if wanted and not (wanted[0] >= 0 and wanted[-1] < self._limit):
            bad = wanted[0] if wanted[0] < 0 else wanted[-1]
            raise SamecodeValueError(
                f"a posting of {self.table} must be in [0, 2**{self._limit.bit_length() - 1}); "
                f"got {bad!r}"
            )
        version, blocks, pending = self._counts(sql)
        if pending + len(wanted) >= self.fold_share * blocks:
            self.fold(sql, wanted)  # straight into the blocks, with those pending
            return
        shift = self._shift
        sql.many(
            f"INSERT OR IGNORE INTO {self.table}_pending VALUES (?, ?)",
            [((posting >> _FILE_BITS) - shift, posting & _FILE_MASK) for posting in wanted],
        )
        # one already pending counts twice: it only brings a fold on sooner
        self._sizes = (version, blocks, pending + len(wanted))

    def _counts(self, sql: Statements) -> tuple[int, int, int]:
        """``(data_version, blocks, pending)``: as kept since they were last counted,
        unless another connection has changed the file since (SQLite's
        ``data_version``), or this one other than by :meth:`add`'s pending rows."""
        (version,) = sql.run("PRAGMA data_version").fetchone()
        if self._sizes is None or self._sizes[0] != version:
            (blocks,) = sql.run(f"SELECT count(*) FROM {self.table}").fetchone()
            self._sizes = (version, blocks, self.pending(sql))
        return self._sizes

    def fold(self, sql: Statements, more: list[int] | None = None) -> None:
        """Fold every pending posting, and the sorted postings ``more``, into the blocks
        (inside a transaction): in order, a part of the key range at a time, each block
        read and written once for its new postings.

        Runtime complexity: ``O(blocks + p log p)`` for ``p`` postings folded.
        """
        self._sizes = None  # counted again when next asked
        more = more or []
        taken = 0  # of more
        after: tuple[int, int] | None = None
        while True:
            where = "" if after is None else "WHERE (key, file) > (?, ?) "
            rows = sql.run(
                f"SELECT key, file FROM {self.table}_pending {where}"
                f"ORDER BY key, file LIMIT {_FOLD_PART}",
                () if after is None else after,
            ).fetchall()
            part = [self._posting(key, file) for key, file in rows]
            # with the postings of more up to the last pending one read (all, at the end)
            end = bisect_left(more, part[-1] + 1, taken) if len(rows) == _FOLD_PART else len(more)
            part += more[taken:end]
            taken = end
            part.sort()  # two runs: merged in one pass
            for block, new in self._parts(sql, _distinct(part)):
                merged = block.postings + new
                merged.sort()
                self._write(sql, block.start, _distinct(merged))
            if len(rows) < _FOLD_PART:
                break
            after = rows[-1]
        sql.run(f"DELETE FROM {self.table}_pending")

    def remove(self, sql: Statements, postings: Iterable[int]) -> None:
        """Remove ``postings`` (inside a transaction); those not held are ignored.

        Runtime complexity: as :meth:`add`.
        """
        self._sizes = None
        wanted = sorted(p for p in set(postings) if 0 <= p < self._limit)
        sql.many(
            f"DELETE FROM {self.table}_pending WHERE key = ? AND file = ?",
            [((p >> _FILE_BITS) - self._shift, p & _FILE_MASK) for p in wanted],
        )
        for block, part in self._parts(sql, wanted):
            gone = set(part)
            held = block.postings
            kept = [posting for posting in held if posting not in gone]
            if len(kept) < len(held):
                self._write(sql, block.start, kept)

    def remove_file(self, sql: Statements, file: int) -> None:
        """Remove every posting of ``file`` (inside a transaction), by a read of every
        block: for an entry whose keys are not known (a damaged one).

        Runtime complexity: ``O(postings)``.
        """
        self._sizes = None
        sql.run(f"DELETE FROM {self.table}_pending WHERE file = ?", (file,))
        changed = []  # the blocks that hold the file, kept, then written
        for block in self.blocks(sql):
            if block.files is None:
                holds = any(posting & _FILE_MASK == file for posting in block.keys)
            else:
                holds = file in block.files
            if holds:
                changed.append((block.start, block.postings))
        for start, held in changed:
            self._write(sql, start, [p for p in held if p & _FILE_MASK != file])

    def _parts(self, sql: Statements, postings: list[int]) -> Iterator[tuple[Block, list[int]]]:
        """The sorted ``postings`` by the block each falls in, each block once.

        The blocks are read in order, several a statement: twice as many as the last
        time where the postings went on into the last block read (whose end was not
        read), half as many where they skipped blocks (from 2 to :data:`_AHEAD`). So a
        fold that touches every block (of a corpus small beside its batch) reads them in
        few statements, and one that touches few reads about two blocks a statement.
        (Writing a block changes no row after it: those read ahead stay as they are.)
        """
        ahead = 2
        rows: list[tuple[int, int, bytes, int]] = []
        starts: list[int] = []  # the rows' starts, as postings
        whole = False  # whether the rows read reach the last block
        start = 0
        while start < len(postings):
            at = bisect_right(starts, postings[start]) - 1  # the row it may fall in
            if at < 0 or (at == len(rows) - 1 and not whole):  # its block's end not read
                rows = self._read_from(sql, postings[start], ahead)
                whole = len(rows) < ahead
                onward = [self._posting(row[0], row[1]) for row in rows]
                run = bool(starts) and onward[0] == starts[-1]
                ahead = min(_AHEAD, 2 * ahead) if run else max(2, ahead // 2)
                starts, at = onward, 0
            after = starts[at + 1] if at + 1 < len(starts) else None
            block = self._decoded(sql, rows[at], after)
            end = len(postings) if after is None else bisect_left(postings, after, start)
            yield block, postings[start:end]
            start = end

    def _cut_buckets(
        self, postings: list[int], held: packed_blocks.Columns
    ) -> tuple[int, list[bytes]]:
        """:meth:`_cut` of a block in buckets: the postings whole where they fit in
        :data:`BLOCK_BYTES` (most writes), else in blocks of as many as fit in the
        buckets of the first twice as many as that, while that is more (a fold's
        postings span the whole range of keys, which would take a key's every byte; a
        block, a few thousandth of it, two), or, where a later run needs more bytes, in
        the buckets all of them need."""
        count, key_bytes = len(postings), self._key_bytes
        whole = bucket_blocks.pack_part(postings, held, 0, count, key_bytes)
        if len(whole) <= BLOCK_BYTES:
            return count, [whole]
        most = every = bucket_blocks.most(postings, held, key_bytes, BLOCK_BYTES, count)
        while 2 * most < count:
            finer = bucket_blocks.most(postings, held, key_bytes, BLOCK_BYTES, 2 * most)
            if finer <= most:
                break
            most = finer
        size, datas = self._cut(postings, held, most)
        if any(len(data) > BLOCK_BYTES for data in datas):
            size, datas = self._cut(postings, held, every)
        return size, datas

    def _cut(
        self, postings: list[int], held: packed_blocks.Columns | None, most: int
    ) -> tuple[int, list[bytes]]:
        """The size of each part of the sorted ``postings`` in blocks of at most ``most``
        (each three quarters full where they are cut), and each part's data."""
        parts = 1 if len(postings) <= most else -(-len(postings) // (most * 3 // 4))
        size = -(-len(postings) // parts) if postings else 0
        if held is None:  # unpacked, or no postings (an empty block either way)
            return size, list(self._pack(postings, parts, size))
        count, key_bytes = len(postings), self._key_bytes
        return size, [
            self._codec.pack_part(postings, held, low, min(count, low + size), key_bytes)
            for low in range(0, size * parts, size)
        ]

    def _write(self, sql: Statements, start: int, postings: list[int]) -> None:
        """Write a block's postings again: in parts of at most :data:`BLOCK_BYTES`, the
        first under the block's start, each other under its first posting; a block left
        empty is removed (but the first block)."""
        at_key, at_file = (start >> _FILE_BITS) - self._shift, start & _FILE_MASK
        if not postings and start:
            sql.run(f"DELETE FROM {self.table} WHERE key = ? AND file = ?", (at_key, at_file))
            return
        held = None
        if self.packed and postings:
            held = packed_blocks.columns(postings, self._key_bytes)
        if held is None:  # unpacked, or no postings
            size, datas = self._cut(postings, held, self._most)
        elif self.buckets:
            size, datas = self._cut_buckets(postings, held)
        else:  # as many as fit in the widths all of them need
            most = packed_blocks.most(postings, held, self._key_bytes, BLOCK_BYTES)
            size, datas = self._cut(postings, held, most)
        for number, data in enumerate(datas):
            at = start if number == 0 else postings[number * size]
            values = (data, self._crc(at, data), (at >> _FILE_BITS) - self._shift, at & _FILE_MASK)
            if number == 0:
                sql.run(
                    f"UPDATE {self.table} SET data = ?, crc = ? WHERE key = ? AND file = ?", values
                )
            else:
                sql.run(
                    f"INSERT INTO {self.table} (data, crc, key, file) VALUES (?, ?, ?, ?)", values
                )


def _distinct(ordered: list[int]) -> list[int]:
    """A sorted list without its repeats (itself where it has none: sorting a list and
    looking for a repeat is faster than sorting a set of big ints)."""
    if any(map(eq, ordered, islice(ordered, 1, None))):
        return sorted(set(ordered))
    return ordered
