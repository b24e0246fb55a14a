"""Posting lists packed in blocks: the ``(key, file)`` pairs of a corpus's index, sorted,
a few hundred to a row, compressed (format version 5).

A table of blocks holds sorted ``(key, file)`` pairs, keys unsigned of ``bits`` bits: a
row ``(first, count, data, crc)`` per block, ``first`` its first key (the key of a
block's pairs is at least its ``first`` and below the next block's), ``data`` its pairs
as the differences of their keys and their files, each an 8-byte value, the values'
bytes in planes (every first byte, then every second...) so the high bytes, mostly 0,
compress to almost nothing, the whole zlib-compressed; ``crc`` a CRC-32 of ``data``.
About 3.5 bytes a pair of 32-bit keys and 7.5 of 64-bit hashes, on generated code,
where a row a pair takes 12 to 18 (:class:`~samecode.corpus.candidates.KeyIndex`).

Pairs are added and removed a batch at a time: each block the batch touches is read,
changed and written once (cut into as few blocks as hold it past :data:`BLOCK_PAIRS`
pairs, the pairs of one key never cut apart), so a bulk load writes each block once a
transaction. A key is found by the block whose ``first`` is the greatest at most the
key (one look-up in the table's b-tree), decoded once however many keys of a probe fall
in it. Blocks cut by many small batches hold from half of :data:`BLOCK_PAIRS` up, as a
b-tree's pages do: a corpus grown by 50 runs of 20 files is about 5 % larger than one
made in one run, and matches as fast (:ref:`corpus-bytes`).

>>> import os, tempfile
>>> from samecode.corpus.store import Corpus
>>> from samecode.store.file import Statements
>>> blocks = PostingBlocks("example_blocks", 32)
>>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "c.db")) as corpus:
...     sql = Statements(corpus)
...     _ = sql.run(blocks.tables()[0]), sql.run("BEGIN")
...     blocks.add(sql, [(7, 1), (3, 2), (7, 2)])
...     blocks.remove(sql, [(3, 2)])
...     _ = sql.run("COMMIT")
...     blocks.lookup(sql, [3, 7, 9]), blocks.count(sql)
({7: [1, 2]}, 2)
"""

from __future__ import annotations

import bisect
import sys
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate, pairwise
from typing import Any

from samecode.errors import SamecodeValueError
from samecode.store.file import IndexCorruptError, Statements

__all__ = ["BLOCK_PAIRS", "PostingBlocks"]

#: The most pairs a block holds (but for one key's, never cut apart): past it, a block is
#: cut into as few as hold its pairs.
BLOCK_PAIRS = 512
_WIDTH = 8  # bytes a value
_FILE_BITS = 48  # a pair as one int, to sort: the key, then the file in these bits
_FILE_MASK = (1 << _FILE_BITS) - 1


def _planes(values: Sequence[int]) -> bytes:
    """8-byte little-endian values, their bytes in planes (every value's first byte,
    then every second...)."""
    raw = array("Q", values)
    if sys.byteorder != "little":
        raw.byteswap()  # pragma: no cover - big-endian machines
    data = raw.tobytes()
    return b"".join(data[i::_WIDTH] for i in range(_WIDTH))


def _values(planes: bytes, count: int) -> array[int]:
    """:func:`_planes` back."""
    data = bytearray(count * _WIDTH)
    for i in range(_WIDTH):
        data[i::_WIDTH] = planes[i * count : (i + 1) * count]
    values = array("Q")
    values.frombytes(bytes(data))
    if sys.byteorder != "little":
        values.byteswap()  # pragma: no cover - big-endian machines
    return values


def _file_bits(file: int) -> int:
    """A file id, checked to fit the low :data:`_FILE_BITS` bits of a pair's int."""
    if not 0 <= file <= _FILE_MASK:
        raise SamecodeValueError(f"a file id must be from 0 to 2**{_FILE_BITS} - 1; got {file}")
    return file


def _merged(held: list[tuple[int, int]], given: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Two sorted lists of pairs as one, each pair once (two runs: the sort merges them
    in linear time)."""
    both = sorted(held + given)
    return [pair for pair, before in zip(both, [None, *both]) if pair != before]


class PostingBlocks:
    """Sorted ``(key, file)`` pairs in blocks, in the table ``name`` (see the module for
    the layout, the cost and an example). Every method is given the corpus file's
    :class:`~samecode.store.file.Statements`; those that change pairs run inside the
    caller's transaction.

    :param name: the table's name.
    :param bits: the keys' width, 32 or 64 (unsigned); a block's ``first`` is kept
        signed, in the keys' order.
    :param block_pairs: the most pairs of a block (:data:`BLOCK_PAIRS`), but for the
        pairs of one key, never cut apart.
    """

    def __init__(self, name: str, bits: int, block_pairs: int = BLOCK_PAIRS) -> None:
        self.name = name
        self._block_pairs = block_pairs
        # order-keeping shift to SQLite's signed integers: 64-bit keys by -2**63
        self._offset = 1 << 63 if bits == 64 else 0

    def tables(self) -> list[str]:
        """The statement that makes the table: a row a block, its ``first`` key the
        primary key (SQLite's rowid b-tree, no second index)."""
        return [
            f"CREATE TABLE {self.name} (first INTEGER PRIMARY KEY, count INTEGER NOT NULL, "
            "data BLOB NOT NULL, crc INTEGER NOT NULL)"
        ]

    # -- blocks -------------------------------------------------------------------------

    def _decode(self, sql: Statements, row: Sequence[object]) -> list[tuple[int, int]]:
        first, count, data, crc = row
        if (
            not isinstance(data, bytes)
            or not isinstance(first, int)
            or not isinstance(count, int)
            or zlib.crc32(data, first & 0xFFFFFFFF) != crc
        ):
            raise IndexCorruptError(sql.path, f"a block of {self.name} fails its checksum")
        try:
            planes = zlib.decompress(data)
            if len(planes) != 2 * count * _WIDTH:
                raise ValueError("of another length")
        except (zlib.error, ValueError) as error:
            raise IndexCorruptError(
                sql.path, f"a block of {self.name} is damaged: {error}"
            ) from None
        values = _values(planes, 2 * count)
        keys = accumulate(values[:count])
        return list(zip(keys, values[count:]))

    def _write(self, sql: Statements, pairs: list[tuple[int, int]]) -> None:
        """Write sorted ``pairs`` as blocks of :data:`BLOCK_PAIRS` at most, each as full
        as the others, but that the pairs of one key are in one block (a key of more
        pairs has a block of its own, as large as it needs)."""
        if not pairs:
            return
        parts = -(-len(pairs) // self._block_pairs)
        size = -(-len(pairs) // parts)
        keys = [key for key, _ in pairs]
        cuts = [0]
        while cuts[-1] + size < len(pairs):
            cut = cuts[-1] + size
            cut = bisect.bisect_left(keys, keys[cut], cuts[-1] + 1, cut + 1)  # its key's first
            if cut == cuts[-1] + 1 and keys[cut] == keys[cuts[-1]]:  # one key past size
                cut = bisect.bisect_right(keys, keys[cut], cut)
            if cut >= len(pairs):
                break
            cuts.append(cut)
        cuts.append(len(pairs))
        rows = []
        for start, stop in pairwise(cuts):
            part = pairs[start:stop]
            keys = [key for key, _ in part]
            steps = [key - before for key, before in zip(keys, [0, *keys])]
            data = zlib.compress(_planes(steps + [file for _, file in part]), 6)
            first = keys[0] - self._offset
            rows.append((first, len(part), data, zlib.crc32(data, first & 0xFFFFFFFF)))
        sql.many(f"INSERT INTO {self.name} VALUES (?, ?, ?, ?)", rows)

    def _blocks(
        self, sql: Statements, keys: list[int]
    ) -> Iterator[tuple[Sequence[Any] | None, list[int]]]:
        """The blocks that hold or would hold the ascending ``keys``: each block's row
        (``None`` where the table is empty) with the keys that fall in it."""
        at = 0
        while at < len(keys):
            value = keys[at] - self._offset
            row = sql.run(
                f"SELECT first, count, data, crc FROM {self.name} WHERE first <= ? "
                "ORDER BY first DESC LIMIT 1",
                (value,),
            ).fetchone()
            if row is None:  # below every block: the first one takes it
                row = sql.run(
                    f"SELECT first, count, data, crc FROM {self.name} ORDER BY first LIMIT 1"
                ).fetchone()
            after = sql.run(
                f"SELECT first FROM {self.name} WHERE first > ? ORDER BY first LIMIT 1",
                (value if row is None else max(value, row[0]),),
            ).fetchone()
            stop = len(keys)
            if after is not None:
                stop = bisect.bisect_left(keys, after[0] + self._offset, at)
            yield row, keys[at:stop]
            at = stop

    def _change(
        self,
        sql: Statements,
        pairs: Iterable[tuple[int, int]],
        change: Callable[[list[tuple[int, int]], list[tuple[int, int]]], list[tuple[int, int]]],
    ) -> None:
        """Give each block the pairs of ``pairs`` that fall in it: its pairs become
        ``change(held, given)``, written again."""
        # sorted as one int a pair: many times faster than tuples
        codes = sorted({key << _FILE_BITS | _file_bits(file) for key, file in pairs})
        keys = [code >> _FILE_BITS for code in codes]
        at = 0
        for row, part in self._blocks(sql, sorted(set(keys))):
            stop = bisect.bisect_right(keys, part[-1], at)
            held: list[tuple[int, int]] = []
            if row is not None:
                held = self._decode(sql, row)
                sql.run(f"DELETE FROM {self.name} WHERE first = ?", (row[0],))
            given = [(code >> _FILE_BITS, code & _FILE_MASK) for code in codes[at:stop]]
            self._write(sql, change(held, given))
            at = stop

    # -- the pairs ----------------------------------------------------------------------

    def add(self, sql: Statements, pairs: Iterable[tuple[int, int]]) -> None:
        """Add ``(key, file)`` pairs (inside a transaction); those already held are
        held once.

        Runtime complexity: the pairs sorted, then per block they fall in a look-up in
        the table's b-tree and the block decoded, merged and written again.

        :param pairs: keys from 0 to ``2**bits - 1``, file ids from 0 to ``2**48 - 1``.
        :raises ValueError: for a file id out of range.
        :raises IndexCorruptError: for a block the pairs fall in that is damaged.
        """
        self._change(sql, pairs, _merged)

    def remove(self, sql: Statements, pairs: Iterable[tuple[int, int]]) -> None:
        """Remove ``(key, file)`` pairs (inside a transaction); those not held are
        ignored. A block left empty is dropped. Runtime complexity as :meth:`add`.

        :raises ValueError: for a file id out of range.
        :raises IndexCorruptError: for a block the pairs fall in that is damaged.
        """

        def without(
            held: list[tuple[int, int]], given: list[tuple[int, int]]
        ) -> list[tuple[int, int]]:
            gone = set(given)
            return [pair for pair in held if pair not in gone]

        self._change(sql, pairs, without)

    def remove_file(self, sql: Statements, file_id: int) -> None:
        """Remove every pair of ``file_id`` (inside a transaction), whatever its keys:
        a pass over every block, each decoded (for an entry too damaged to give its
        keys). A damaged block is left as it is, for a check to report."""
        for row in sql.run(
            f"SELECT first, count, data, crc FROM {self.name} ORDER BY first"
        ).fetchall():
            try:
                held = self._decode(sql, row)
            except IndexCorruptError:
                continue  # left to check() to report
            kept = [pair for pair in held if pair[1] != file_id]
            if len(kept) != len(held):
                sql.run(f"DELETE FROM {self.name} WHERE first = ?", (row[0],))
                self._write(sql, kept)

    def lookup(self, sql: Statements, keys: Iterable[int]) -> dict[int, list[int]]:
        """For each of ``keys`` held, its files, ascending.

        Runtime complexity: a look-up in the table's b-tree and a block decoded per
        block the keys fall in.

        :raises IndexCorruptError: for a block the keys fall in that is damaged.
        """
        found: dict[int, list[int]] = {}
        for row, part in self._blocks(sql, sorted(set(keys))):
            if row is None:
                break
            held = self._decode(sql, row)
            block_keys = [key for key, _ in held]
            for key in part:
                at = bisect.bisect_left(block_keys, key)
                while at < len(held) and held[at][0] == key:
                    found.setdefault(key, []).append(held[at][1])
                    at += 1
        return found

    def held(self, sql: Statements, pairs: Iterable[tuple[int, int]]) -> int:
        """How many of the distinct ``pairs`` are held (a :meth:`lookup` of their keys).

        :raises IndexCorruptError: for a block the pairs fall in that is damaged.
        """
        wanted = set(pairs)
        found = self.lookup(sql, {key for key, _ in wanted})
        return sum((key, file) in wanted for key, files in found.items() for file in files)

    def count(self, sql: Statements) -> int:
        """How many pairs are held: the blocks' counts summed (a pass over the table's
        rows, none decoded)."""
        return int(sql.run(f"SELECT coalesce(sum(count), 0) FROM {self.name}").fetchone()[0])

    def pairs(self, sql: Statements) -> Iterator[tuple[int, int]]:
        """Every pair held, ascending.

        :raises IndexCorruptError: for a block that fails its checksum or does not
            decode.
        """
        for row in sql.run(
            f"SELECT first, count, data, crc FROM {self.name} ORDER BY first"
        ).fetchall():
            yield from self._decode(sql, row)

    def survey(self, sql: Statements) -> tuple[Counter[int], list[str]]:
        """How many pairs each file has, and what is wrong with the blocks: one that
        fails its checksum or does not decode, or whose pairs are out of order,
        repeated or outside its range (below its ``first`` or at the next block's),
        where a look-up would miss them. A pass over every block, for a check.
        """
        counts: Counter[int] = Counter()
        problems: list[str] = []
        rows = sql.run(f"SELECT first, count, data, crc FROM {self.name} ORDER BY first")
        blocks = rows.fetchall()
        for number, row in enumerate(blocks):
            try:
                held = self._decode(sql, row)
            except IndexCorruptError as error:
                problems.append(str(error.strerror))
                continue
            low = row[0] + self._offset
            high = blocks[number + 1][0] + self._offset if number + 1 < len(blocks) else None
            if (
                not held
                or held[0][0] != low
                or (high is not None and held[-1][0] >= high)
                or any(a >= b for a, b in pairwise(held))
            ):
                problems.append(f"a block of {self.name} holds pairs out of place")
            counts.update(file for _, file in held)
        return counts, problems
