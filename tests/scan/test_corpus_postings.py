"""Posting blocks (format version 5) hold exactly the pairs added and not removed, in
blocks of at most BLOCK_PAIRS but for one key's pairs, whatever the order of changes."""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.postings import PostingBlocks
from samecode.corpus.store import Corpus
from samecode.fragments import FragmentOptions
from samecode.sources.walk import WalkOptions
from samecode.store.file import IndexCorruptError

WALK = WalkOptions(gitignore=False)
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
            assert list(blocks.pairs(sql)) == sorted(model)
            counts, problems = blocks.survey(sql)
            assert problems == []
            assert counts == Counter(file for _, file in model)
            rows = sql.run("SELECT count FROM test_blocks").fetchall()
            assert all(count > 0 for (count,) in rows)
        with corpus._transaction():
            blocks.remove_file(sql, 1)
        assert all(file != 1 for _, file in blocks.pairs(sql))


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


def test_a_block_out_of_place_is_found(tmp_path):
    # keys past the next block's first: a look-up would never find them
    blocks = PostingBlocks("test_blocks", 32, block_pairs=2)
    with Corpus.create(tmp_path / "c.db") as corpus:
        sql = corpus._statements
        sql.run(blocks.tables()[0])
        with corpus._transaction():
            blocks.add(sql, [(1, 1), (2, 1), (5, 1), (6, 1)])
        assert blocks.survey(sql) == (Counter({1: 4}), [])
        with corpus._transaction():
            sql.run("DELETE FROM test_blocks WHERE first = 1")
            PostingBlocks("test_blocks", 32)._write(sql, [(1, 1), (2, 1), (7, 2)])
        counts, problems = blocks.survey(sql)
        assert counts == Counter({1: 4, 2: 1})
        assert problems == ["a block of test_blocks holds pairs out of place"]


def make_files(root: Path, count: int) -> list[Path]:
    root.mkdir()
    files = []
    for number in range(count):
        body = "\n".join(f"v{number}_{line} = step({line}) + {number % 3}" for line in range(30))
        (root / f"f{number}.py").write_text(body + "\n")
        files.append(root / f"f{number}.py")
    return files


def postings(corpus: Corpus) -> dict[str, PostingBlocks]:
    fragments = corpus._fragment_tables.postings if corpus._fragment_tables else ()
    return {blocks.name: blocks for blocks in (*corpus._candidates.postings, *fragments)}


@pytest.mark.parametrize(
    ("table", "problem"),
    [("prefix_blocks", "the prefix of {!r} is damaged"),
     ("fragment_blocks", "the fragments of {!r} are damaged")],
)  # fmt: skip
def test_check_finds_a_posting_a_file_does_not_have(tmp_path, table, problem):
    files = make_files(tmp_path / "tree", 4)
    with Corpus.create(tmp_path / "c.db", fragments=FragmentOptions()) as corpus:
        corpus.sync([str(tmp_path / "tree")], WALK)
        assert corpus.check() == []
        sql, blocks = corpus._statements, postings(corpus)[table]
        first, second = (corpus._file_id(str(path)) for path in files[:2])
        theirs = next(key for key, file in blocks.pairs(sql) if file == second)
        with corpus._transaction():  # a key of the second file, stale, for the first
            blocks.add(sql, [(theirs, first)])
        assert corpus.check() == [problem.format(str(files[0]))]


def test_check_finds_postings_of_files_that_are_gone(tmp_path):
    files = make_files(tmp_path / "tree", 4)
    path = tmp_path / "c.db"
    with Corpus.create(path, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(tmp_path / "tree")], WALK)
        gone = corpus._file_id(str(files[2]))
        counts = {
            name: blocks.survey(corpus._statements)[0][gone]
            for name, blocks in postings(corpus).items()
        }
    assert all(counts.values())
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM files WHERE id = ?", (gone,))
    with Corpus.open(path, readonly=True) as corpus:
        assert corpus.check() == [
            f"{counts['prefix_blocks']} postings of prefix_blocks name files that are gone",
            f"{counts['fragment_blocks']} postings of fragment_blocks name files that are gone",
        ]
