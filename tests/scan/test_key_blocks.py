"""Postings packed in blocks (format version 5's key tables, version 6's, packed, and
version 8's, packed in buckets) hold exactly what was added and not removed, whatever the
order of the changes, the batches and the runs of one key."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bucket_blocks import brute_bytes

from samecode.corpus.key_blocks import (
    BLOCK_BYTES,
    BUCKET_FOLD_SHARE,
    FOLD_SHARE,
    PACKED_FOLD_SHARE,
    KeyBlocks,
)
from samecode.errors import SamecodeValueError
from samecode.hamming.sqlite import IndexCorruptError
from samecode.store.file import Statements, StoreFile

BLOCKS_READ = "SELECT key, file, data, crc FROM postings WHERE (key, file) >="


class Db(Statements):
    """The statements of a store in memory, counting the writes of blocks; closed when
    the test ends (``closed``)."""

    opened: ClassVar[list[Db]] = []

    def __init__(self, path: str = ":memory:") -> None:
        self.connection = sqlite3.connect(path)
        super().__init__(StoreFile(self.connection, "test.db", False, 30.0))
        self.writes = self.counts = self.reads = 0
        Db.opened.append(self)

    def run(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Cursor:
        if sql.startswith(("UPDATE postings ", "INSERT INTO postings ")):
            self.writes += 1  # a block written
        self.counts += sql.startswith("SELECT count(*)")  # a table counted
        self.reads += sql.startswith(BLOCKS_READ)  # blocks read from a posting's on
        return super().run(sql, parameters)


@pytest.fixture(autouse=True)
def closed() -> Iterator[None]:
    yield
    while Db.opened:
        Db.opened.pop().connection.close()


#: How a table's blocks are kept: not packed, packed, packed in buckets.
LAYOUTS = ["blocks", "packed", "buckets"]


def made(key_bytes: int, layout: str = "blocks") -> tuple[KeyBlocks, Db]:
    packed, buckets = layout != "blocks", layout == "buckets"
    blocks, db = KeyBlocks("postings", key_bytes, packed=packed, buckets=buckets), Db()
    for statement in blocks.tables():
        db.run(statement)
    return blocks, db


def check_against(blocks: KeyBlocks, db: Db, held: set[tuple[int, int]]) -> None:
    """The blocks hold ``held`` (a brute-force set of (key, file)), in order, each block's
    postings within its range, none over the limit."""
    by_key: dict[int, list[int]] = defaultdict(list)
    for key, file in sorted(held):
        by_key[key].append(file)
    keys = {key for key, _ in held} | {0, 1, 2**32 - 1}
    assert blocks.files(db, keys) == dict(by_key)  # type: ignore[arg-type]
    every = list(blocks.blocks(db))  # type: ignore[arg-type]
    assert every[0].start == 0
    expected = sorted(key << 32 | file for key, file in held)
    assert blocks.postings(db) == expected  # type: ignore[arg-type]
    (pending,) = db.run("SELECT count(*) FROM postings_pending").fetchone()
    folded = [posting for block in every for posting in block.postings]
    # a posting added again while held is pending and in a block until the next fold
    assert blocks.count(db) == len(folded) + pending >= len(held)  # type: ignore[arg-type]
    assert pending < blocks.fold_share * len(every)  # folded once there are enough
    shares = {(False, False): FOLD_SHARE, (True, False): PACKED_FOLD_SHARE}
    shares[True, True] = BUCKET_FOLD_SHARE
    assert blocks.fold_share == shares[blocks.packed, blocks.buckets]
    for block in every:
        assert block.postings == sorted(block.postings)
        assert all(
            block.start <= p and (block.after is None or p < block.after) for p in block.postings
        )
        if not blocks.packed:
            assert len(block.postings) * (4 + (8 if blocks._wide else 4)) <= BLOCK_BYTES
    by_start = {block.start: block for block in every}
    rows = db.run("SELECT key, file, length(data), substr(data, 1, 1) FROM postings")
    for key, file, size, head in rows.fetchall():
        assert size <= BLOCK_BYTES
        if blocks.buckets and size:  # the fewest bytes its postings need in buckets
            block = by_start[(key + (2**63 if blocks._wide else 0)) << 32 | file]
            assert size == brute_bytes(block.postings, blocks._key_bytes)
        elif blocks.packed and size:  # the fewest whole bytes its postings need
            block = by_start[(key + (2**63 if blocks._wide else 0)) << 32 | file]
            keys = [p >> 32 for p in block.postings]
            # the bytes of a key below those its first and last keys share, 1 at least
            below = next(w for w in range(1, blocks._key_bytes + 1)
                         if keys[0] >> 8 * w == keys[-1] >> 8 * w)  # fmt: skip
            assert head[0] >> 4 == below
            widest_file = max(p & (2**32 - 1) for p in block.postings)
            assert head[0] & 15 == max(1, (widest_file.bit_length() + 7) // 8)
    for key in list(by_key)[:5]:
        for file in by_key[key][:3]:
            expected = 1 + ((key + 1, file) in held)
            assert blocks.held(db, file, [key, key + 1]) == expected  # type: ignore[arg-type]


# a third of the keys one of three (runs of one key over many blocks), the rest any
postings = st.tuples(
    st.one_of(st.just(7), st.sampled_from([0, 2**31, 2**32 - 1]), st.integers(0, 2**32 - 1)),
    st.integers(1, 400),
)
changes = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "remove_file"]), st.lists(postings, max_size=300)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([4, 8]), st.sampled_from(LAYOUTS), changes)
def test_the_blocks_hold_what_was_added_and_not_removed(key_bytes, layout, steps):
    blocks, db = made(key_bytes, layout)
    held: set[tuple[int, int]] = set()
    for change, part in steps:
        if key_bytes == 8:  # keys over all 64 bits
            part = [(key << 32 | key, file) for key, file in part]
        if change == "add":
            blocks.add(db, [key << 32 | file for key, file in part])  # type: ignore[arg-type]
            held |= set(part)
        elif change == "remove":
            blocks.remove(db, [key << 32 | file for key, file in part])  # type: ignore[arg-type]
            held -= set(part)
        elif part:
            file = part[0][1]
            blocks.remove_file(db, file)  # type: ignore[arg-type]
            held = {p for p in held if p[1] != file}
        check_against(blocks, db, held)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("key_bytes", [4, 8])
def test_large_batches_of_changes_against_brute_force(key_bytes, layout):
    import random

    rng = random.Random(key_bytes)
    blocks, db = made(key_bytes, layout)
    held: set[tuple[int, int]] = set()
    for step in range(12):
        keys = [
            rng.choice([3, 2**31]) if rng.random() < 0.3 else rng.getrandbits(32)
            for _ in range(900)
        ]
        part = {(key << 32 | key if key_bytes == 8 else key, rng.randint(1, 3000)) for key in keys}
        if step % 4 == 3:  # remove some held and some never added
            part = set(rng.sample(sorted(held), len(held) // 3)) | set(list(part)[:50])
            blocks.remove(db, [key << 32 | file for key, file in part])  # type: ignore[arg-type]
            held -= part
        else:
            blocks.add(db, [key << 32 | file for key, file in part])  # type: ignore[arg-type]
            held |= part
        check_against(blocks, db, held)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_key_of_many_files_is_cut_across_blocks_and_one_more_rewrites_one(layout):
    # A fingerprint a thousand files select: no block over the limit, and adding a file
    # to it writes one block, not all of them.
    blocks, db = made(8, layout)
    key = 2**63 + 5
    blocks.add(db, [key << 32 | file for file in range(1, 1001)])  # type: ignore[arg-type]
    count = len(list(blocks.blocks(db)))  # type: ignore[arg-type]
    assert count >= 1000 * (3 if blocks.packed else 12) // BLOCK_BYTES
    db.writes = 0
    blocks.add(db, [key << 32 | 1001])  # type: ignore[arg-type]
    assert db.writes == 0  # pending
    blocks.fold(db)  # type: ignore[arg-type]
    assert db.writes == 1
    assert blocks.files(db, [key]) == {key: list(range(1, 1002))}  # type: ignore[arg-type]
    blocks.remove(db, [key << 32 | 500])  # type: ignore[arg-type]
    assert 500 not in blocks.files(db, [key])[key]  # type: ignore[arg-type]


def test_bad_values_are_refused_with_the_rule():
    with pytest.raises(SamecodeValueError, match="key_bytes must be 4 or 8; got 3"):
        KeyBlocks("postings", 3)
    blocks, db = made(4)
    with pytest.raises(SamecodeValueError, match=r"in \[0, 2\*\*64\); got 18446744073709551616"):
        blocks.add(db, [2**64])  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match=r"in \[0, 2\*\*64\); got -1"):
        blocks.add(db, [-1, 5])  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="file ids below 2\\*\\*32; got 4294967296"):
        KeyBlocks.check_file(2**32)
    assert KeyBlocks.check_file(2**32 - 1) == 2**32 - 1


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_damaged_block_is_never_read(layout):
    blocks, db = made(4, layout)
    blocks.add(db, [7 << 32 | file for file in range(1, 50)])  # type: ignore[arg-type]
    ((data,),) = db.run("SELECT data FROM postings WHERE length(data) > 0").fetchall()
    flipped = data[:-1] + bytes([data[-1] ^ 1])  # a file id changed: bytes all the same
    db.run("UPDATE postings SET data = ? WHERE length(data) > 0", (flipped,))
    with pytest.raises(IndexCorruptError, match="a block of postings is damaged"):
        blocks.files(db, [7])  # type: ignore[arg-type]
    db.run("UPDATE postings SET data = CAST(data AS TEXT) WHERE length(data) > 0")
    with pytest.raises(IndexCorruptError, match="a block of postings is damaged"):
        blocks.files(db, [7])  # type: ignore[arg-type]  # not bytes at all
    db.run("DELETE FROM postings")
    with pytest.raises(IndexCorruptError, match="the first block of postings is gone"):
        blocks.files(db, [7])  # type: ignore[arg-type]


# keys and files of the same few 32-bit halves: the bytes of a key also stand across two
# values (a file and a key, or two halves of two keys), where no key may be found
HALVES = st.sampled_from([0, 1, 2, 3, 2**32 - 1])


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([4, 8]),
    st.sampled_from(LAYOUTS),
    st.lists(st.lists(st.tuples(HALVES, HALVES, HALVES), min_size=1, max_size=300), max_size=6),
)
def test_a_key_is_found_only_where_it_stands(key_bytes, layout, batches):
    blocks, db = made(key_bytes, layout)
    held: set[tuple[int, int]] = set()
    every = [high << 32 | low if key_bytes == 8 else low for high in range(4) for low in range(4)]
    for number, batch in enumerate(batches):
        part = {(high << 32 | low if key_bytes == 8 else low, file) for high, low, file in batch}
        blocks.add(db, [key << 32 | file for key, file in part])  # type: ignore[arg-type]
        held |= part
        if number % 3 == 2:
            blocks.fold(db)  # type: ignore[arg-type]
        wanted: dict[int, list[int]] = {}
        for key, file in sorted(held):
            wanted.setdefault(key, []).append(file)
        asked = {*every, *wanted, 2**32 - 1, 2**64 - 1 if key_bytes == 8 else 2**32 - 2}
        assert blocks.files(db, asked) == wanted  # type: ignore[arg-type]


def test_adding_counts_the_tables_once_until_they_change_otherwise(tmp_path):
    blocks, db = made(4)
    blocks.add(db, [key << 32 | 1 for key in range(0, 2**32, 2**32 // 2000)])  # type: ignore[arg-type]
    counted = db.counts
    for file in range(2, 30):  # each batch pending: 10 + pending < 16 * blocks
        blocks.add(db, [key << 32 | file for key in range(10)])  # type: ignore[arg-type]
    assert db.counts - counted == 2  # the blocks and the pending rows, once
    assert blocks.pending(db) == 280  # type: ignore[arg-type]
    blocks.remove(db, [1 << 32 | 2])  # type: ignore[arg-type]
    blocks.add(db, [1 << 32 | 30])  # type: ignore[arg-type]
    assert db.counts - counted == 5  # pending() above, then both again after a removal
    # another connection's change is seen (SQLite's data_version): counted again
    path = str(tmp_path / "shared.db")
    mine, other = Db(path), Db(path)
    for statement in blocks.tables():
        mine.run(statement)
    mine.connection.commit()
    blocks = KeyBlocks("postings", 4)
    blocks.add(mine, [key << 32 | 1 for key in range(100)])  # type: ignore[arg-type]
    blocks.add(mine, [7 << 32 | 2])  # type: ignore[arg-type]
    mine.connection.commit()
    KeyBlocks("postings", 4).fold(other)  # type: ignore[arg-type]
    other.connection.commit()
    before = mine.counts
    blocks.add(mine, [8 << 32 | 2])  # type: ignore[arg-type]
    assert mine.counts - before == 2
    assert blocks.files(mine, [7, 8]) == {7: [1, 2], 8: [1, 2]}  # type: ignore[arg-type]


def spread(key_bytes: int, blocks_wanted: int) -> tuple[KeyBlocks, Db, set[tuple[int, int]]]:
    """A table of about ``blocks_wanted`` full blocks (keys far apart), folded, and what it
    holds."""
    blocks, db = made(key_bytes)
    per_block = BLOCK_BYTES // (key_bytes + 4)
    step = 2**32 // (blocks_wanted * per_block + 1)  # room for keys between them
    held = {(key * step, 1) for key in range(blocks_wanted * per_block)}
    blocks.add(db, [key << 32 | file for key, file in held])  # type: ignore[arg-type]
    blocks.fold(db)  # type: ignore[arg-type]
    return blocks, db, held


@pytest.mark.parametrize("key_bytes", [4, 8])
def test_a_fold_reads_the_blocks_it_fills_a_run_at_a_time(key_bytes):
    # A posting for every block: the blocks are read several a statement (a run of 64 at
    # most), not one each; for every 50th block, about one statement each.
    blocks, db, held = spread(key_bytes, 1000)
    count = len(list(blocks.blocks(db)))  # type: ignore[arg-type]
    every = [block.start >> 32 for block in blocks.blocks(db)][1:]  # type: ignore[arg-type]
    assert count > 1000
    db.reads = 0
    dense = {(key + 1, 2) for key in every}
    blocks.fold(db, sorted(key << 32 | file for key, file in dense))  # type: ignore[arg-type]
    held |= dense
    assert db.reads <= count // 16
    check_against(blocks, db, held)
    db.reads = 0
    sparse = {(key + 3, 4) for key in every[::50]}
    blocks.fold(db, sorted(key << 32 | file for key, file in sparse))  # type: ignore[arg-type]
    held |= sparse
    assert len(sparse) - 2 <= db.reads <= len(sparse) + 2
    check_against(blocks, db, held)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([4, 8]),
    st.lists(st.tuples(st.integers(0, 400), st.integers(0, 60)), min_size=1, max_size=12),
    st.booleans(),
)
def test_runs_and_gaps_of_blocks_fold_and_remove_as_brute_force(key_bytes, runs, remove):
    # Runs of consecutive blocks given postings and gaps between them, of any lengths: the
    # blocks read ahead grow and shrink, and what is held is what brute force holds.
    blocks, db, held = spread(key_bytes, 300)
    starts = [block.start >> 32 for block in blocks.blocks(db)][1:]  # type: ignore[arg-type]
    at, chosen = 0, []
    for gap, run in runs:
        chosen += starts[at + gap : at + gap + run]
        at += gap + run
    change = {(key + 1, 9) for key in chosen} | {(key, 1) for key in chosen[::3]}
    postings = sorted(key << 32 | file for key, file in change)
    if remove:
        blocks.remove(db, postings)  # type: ignore[arg-type]
        held -= change
    else:
        blocks.fold(db, postings)  # type: ignore[arg-type]
        held |= change
    check_against(blocks, db, held)


@pytest.mark.parametrize(
    "data",
    [
        bytes([0x51, 7, 1, 0, 0, 0, 0]),  # a key width over 4 bytes
        bytes([0x45, 7, 0, 0, 0, 1, 0, 0, 0, 0]),  # a file width over 4 bytes
        bytes([0x01, 0, 0, 0, 7]),  # no key width
        bytes([0x10, 0, 0, 0, 7]),  # no file width
        bytes([0x11, 0, 0, 0, 7, 1, 9]),  # a posting and a half
        bytes([0x11, 0, 0]),  # high bytes cut short, no posting
    ],
)
def test_a_packed_block_of_impossible_widths_is_refused_though_its_crc_holds(data):
    import zlib

    blocks, db = made(4, "packed")
    blocks.fold(db, [7 << 32 | 1])  # type: ignore[arg-type]
    assert blocks.files(db, [7]) == {7: [1]}  # type: ignore[arg-type]
    crc = zlib.crc32(data, zlib.crc32(b"0"))  # the first block's start, 0
    db.run("UPDATE postings SET data = ?, crc = ? WHERE key = 0 AND file = 0", (data, crc))
    with pytest.raises(IndexCorruptError, match="a block of postings is damaged"):
        blocks.files(db, [7])  # type: ignore[arg-type]
    with pytest.raises(IndexCorruptError, match="a block of postings is damaged"):
        blocks.postings(db)  # type: ignore[arg-type]


def test_packed_and_buckets_are_bools():
    with pytest.raises(TypeError, match="packed must be True or False; got"):
        KeyBlocks("postings", 4, packed=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="buckets must be True or False; got"):
        KeyBlocks("postings", 4, buckets="yes")  # type: ignore[arg-type]
    assert KeyBlocks("postings", 4, buckets=True).packed


@pytest.mark.parametrize("key_bytes", [4, 8])
def test_a_fold_of_the_whole_key_range_fills_blocks_in_buckets(key_bytes):
    # the first fold's postings span every key: blocks are cut by the buckets of their
    # first postings (two low bytes of a 4-byte key here, six of an 8-byte one), not by
    # the widths all of them need (every byte): fewer, smaller blocks than packed ones
    import random

    rng = random.Random(key_bytes)
    keys = {rng.getrandbits(8 * key_bytes) for _ in range(100_000)}
    postings = sorted(key << 32 | rng.randint(1, 2000) for key in keys)
    sizes = {}
    for layout in ("packed", "buckets"):
        blocks, db = made(key_bytes, layout)
        blocks.fold(db, postings)  # type: ignore[arg-type]
        assert blocks.postings(db) == postings  # type: ignore[arg-type]
        rows = db.run("SELECT data FROM postings WHERE length(data) > 0").fetchall()
        assert max(len(data) for (data,) in rows) <= BLOCK_BYTES
        sizes[layout] = (len(rows), sum(len(data) for (data,) in rows))
        if layout == "buckets":
            assert {data[0] >> 4 for (data,) in rows} == {key_bytes - 2}
    (packed_blocks, packed_bytes), (bucket_blocks, bucket_bytes) = sizes.values()
    assert bucket_bytes < packed_bytes * (0.9 if key_bytes == 4 else 0.95)
    assert bucket_blocks < packed_blocks * 0.92


@pytest.mark.parametrize("layout", ["packed", "buckets"])
def test_a_block_of_one_byte_is_counted_without_an_error_and_reported(layout):
    # the count (index stats) reads each block's head: a damaged block of one byte is
    # counted as no postings there, and reported by the reads that check it
    blocks, db = made(4, layout)
    blocks.fold(db, [7 << 32 | 1, 9 << 32 | 2])  # type: ignore[arg-type]
    db.run("UPDATE postings SET data = x'21' WHERE key = 0 AND file = 0")
    assert blocks.count(db) == 0  # type: ignore[arg-type]
    with pytest.raises(IndexCorruptError, match="a block of postings is damaged"):
        blocks.files(db, [7])  # type: ignore[arg-type]
