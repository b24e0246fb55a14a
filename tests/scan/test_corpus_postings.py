"""Posting blocks (format version 5) hold exactly the pairs added and not removed, in
blocks of at most BLOCK_PAIRS but for one key's pairs, whatever the order of changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.postings import PostingBlocks
from samecode.corpus.store import Corpus
from samecode.store.file import IndexCorruptError

PAIRS = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 6)), max_size=60)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), PAIRS), max_size=8), st.sampled_from([32, 64]))
def test_blocks_hold_what_was_added_and_not_removed(tmp_path_factory, changes, bits):
    path = tmp_path_factory.mktemp("blocks") / "c.db"
    high = (1 << bits) - 41  # keys at both ends of the range
    blocks = PostingBlocks("test_blocks", bits, block_pairs=4)  # many blocks, many splits
    with Corpus.create(path) as corpus:
        sql = corpus._statements
        for statement in blocks.tables():
            sql.run(statement)
        model: set[tuple[int, int]] = set()
        for adding, pairs in changes:
            pairs = [(key if key % 2 else high + key, file) for key, file in pairs]
            with corpus._transaction():
                (blocks.add if adding else blocks.remove)(sql, pairs)
            model = model | set(pairs) if adding else model - set(pairs)
            expected: dict[int, list[int]] = {}
            for key, file in sorted(model):
                expected.setdefault(key, []).append(file)
            probe = {key for key, _ in model} | {3, high + 2, 0}
            assert blocks.lookup(sql, probe) == expected
            assert blocks.count(sql) == len(model)
            assert blocks.held(sql, model) == len(model)
            assert sorted(blocks.files(sql)) == sorted(file for _, file in model)
            rows = sql.run("SELECT count FROM test_blocks").fetchall()
            assert all(count > 0 for (count,) in rows)
        with corpus._transaction():
            blocks.remove_file(sql, 1)
        assert all(file != 1 for file in blocks.files(sql))


def test_a_damaged_block_is_refused(tmp_path):
    blocks = PostingBlocks("test_blocks", 32)
    with Corpus.create(tmp_path / "c.db") as corpus:
        sql = corpus._statements
        sql.run(blocks.tables()[0])
        with corpus._transaction():
            blocks.add(sql, [(5, 1), (9, 2)])
        sql.run("UPDATE test_blocks SET data = x'00'")
        with pytest.raises(IndexCorruptError, match="checksum"):
            blocks.lookup(sql, [5])
