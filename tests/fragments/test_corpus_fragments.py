"""Fragments stored in a corpus (format version 3) and matched against it: the regions are
those of the two files on disk, whatever the engine; older corpora are read, untouched,
and say what they lack; the records and the index stay in step with the files."""

from __future__ import annotations

import dataclasses
import os
import random
import sqlite3
import zlib
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.fragments import match_fragments
from samecode.corpus.records import decode, encode, read_stored
from samecode.corpus.store import Corpus
from samecode.engine import ProcessPool, RunOptions
from samecode.errors import SamecodeValueError
from samecode.fragments import FragmentOptions, compare_fragments, scan_fragments
from samecode.fragments.tree import fingerprint_text
from samecode.hamming.sqlite import IndexCorruptError
from samecode.scan.pipeline import read_documents
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling
from storefiles import legacy_corpus

WALK = WalkOptions(gitignore=False)


def lines_of(rng: random.Random, tag: str, count: int) -> list[str]:
    return [f"{tag}_{rng.getrandbits(32):x} = {tag}_step({n}) + {rng.randrange(99)}" for n in
            range(count)]  # fmt: skip


def make_files(folder: Path, seed: int, count: int) -> list[Path]:
    """Files made of their own lines and copies of shared blocks, some edited."""
    rng = random.Random(seed)
    blocks = [lines_of(rng, f"block{b}", rng.randrange(6, 20)) for b in range(4)]
    made = []
    for number in range(count):
        lines = lines_of(rng, f"f{number}", rng.randrange(0, 8))
        for _ in range(rng.randrange(0, 3)):
            block = list(rng.choice(blocks))
            if rng.random() < 0.5:  # an edited copy: a line changed or dropped
                at = rng.randrange(len(block))
                if rng.random() < 0.5:
                    block[at] = f"changed_{number} = {at}"
                else:
                    del block[at]
            lines += block + lines_of(rng, f"g{number}", rng.randrange(0, 5))
        path = folder / f"f{number:02d}.py"
        path.write_text("\n".join(lines) + "\n")
        made.append(path)
    return made


def key(region, swap: bool = False) -> tuple[object, ...]:
    fields = (
        (region.b, region.b_start, region.b_end, region.a, region.a_start, region.a_end)
        if swap
        else (region.a, region.a_start, region.a_end, region.b, region.b_start, region.b_end)
    )
    return (*fields, region.tokens)


@pytest.fixture
def corpus_and_queries(tmp_path: Path) -> tuple[Path, list[Path], list[Path]]:
    root = Path(os.path.realpath(tmp_path))
    stored, queries = root / "stored", root / "queries"
    stored.mkdir()
    queries.mkdir()
    kept = make_files(stored, 1, 8)
    asked = make_files(queries, 1, 8)  # the same blocks (same seed), other files
    asked = [path.rename(queries / f"q{path.name}") for path in asked]
    db = root / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
    return db, kept, asked


def test_regions_are_those_of_the_two_files_on_disk(corpus_and_queries):
    db, kept, asked = corpus_and_queries
    with Corpus.open(db, readonly=True) as corpus:
        result = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
    expected = []
    for query in asked:
        for stored in kept:
            found = compare_fragments(query, stored)
            expected += [dataclasses.replace(r, matches=()) for r in found.regions]
    got = [dataclasses.replace(r, matches=()) for r in result.regions]
    assert len(got) >= 8  # the blocks are shared: there is something to compare
    assert got == sorted(expected, key=lambda r: (r.a, r.b, r.a_first, r.b_first))
    assert result.files == [str(path) for path in asked]


def test_regions_are_those_a_scan_of_both_trees_reports(corpus_and_queries):
    db, kept, asked = corpus_and_queries
    with Corpus.open(db, readonly=True) as corpus:
        result = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
    # a tree of 16 files: limit 10 files, as the corpus of 8 files (limit 10) has
    # every pair, as a match compares each query with every stored file it shares text with
    scan = scan_fragments(
        [str(kept[0].parent), str(asked[0].parent)], FragmentOptions(all_pairs=True), walk=WALK
    )
    names = {str(path) for path in asked}
    across = sorted(
        key(r, swap=r.a not in names) for r in scan.regions if (r.a in names) != (r.b in names)
    )
    assert sorted(key(r) for r in result.regions) == across
    assert len(across) >= 8


def test_a_stored_file_need_not_exist_any_more(corpus_and_queries):
    db, kept, asked = corpus_and_queries
    with Corpus.open(db, readonly=True) as corpus:
        before = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
    for path in kept:
        path.unlink()
    with Corpus.open(db, readonly=True) as corpus:
        after = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
    assert [key(r) for r in after.regions] == [key(r) for r in before.regions]


def test_the_output_is_the_same_for_any_engine_and_batch(corpus_and_queries):
    db, _, asked = corpus_and_queries
    paths = [str(path) for path in asked]
    with Corpus.open(db, readonly=True) as corpus:
        one = match_fragments(corpus, paths, walk=WALK)
        small = match_fragments(corpus, paths, walk=WALK, run=RunOptions(batch_size=1))
        with ProcessPool(2) as pool:
            spread = match_fragments(
                corpus, paths, walk=WALK, run=RunOptions(batch_size=3), engine=pool
            )
    for other in (small, spread):
        assert other.regions == one.regions
        assert other.summary() == one.summary()
        assert other.classes == one.classes


def test_a_file_does_not_match_its_own_entry(corpus_and_queries):
    db, kept, _ = corpus_and_queries
    with Corpus.open(db, readonly=True) as corpus:
        result = match_fragments(corpus, [str(kept[0])], walk=WALK)
    assert all(r.b != str(kept[0]) for r in result.regions)


def test_boilerplate_by_corpus_share_is_ignored_and_counted(tmp_path):
    rng = random.Random(9)
    common = lines_of(rng, "common", 12)
    for number in range(12):
        (tmp_path / f"s{number}.py").write_text(
            "\n".join(common + lines_of(rng, f"s{number}", 5)) + "\n"
        )
    query = tmp_path / "query.txt"
    query.write_text("\n".join(lines_of(rng, "q", 3) + common) + "\n")
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(tmp_path / f"s{n}.py") for n in range(12)], WALK)
        ignored = match_fragments(corpus, [str(query)], walk=WALK)
        kept = match_fragments(
            corpus, [str(query)], FragmentOptions(boilerplate_share=1.0, boilerplate_files=12), WALK
        )
    assert ignored.regions == []
    assert ignored.boilerplate > 0
    assert ignored.boilerplate_occurrences >= ignored.boilerplate
    assert ignored.boilerplate_limit == 10
    assert len(kept.regions) == 12
    assert kept.boilerplate == 0
    assert {(r.a_start, r.a_end, r.b_start, r.b_end) for r in kept.regions} == {(4, 15, 1, 12)}


def test_a_corpus_without_fragments_is_read_untouched_and_says_what_it_lacks(tmp_path):
    (tmp_path / "a.py").write_text(" ".join(f"w{i}" for i in range(80)))
    db = tmp_path / "old.db"
    with Corpus.create(db) as corpus:
        corpus.sync([str(tmp_path / "a.py")], WALK)
        assert corpus.stats()["format_version"] == 8
    before = db.read_bytes()
    with Corpus.open(db, readonly=True) as corpus:
        assert corpus.fragments is None
        assert corpus.stats()["fragments"] is None
        assert len(corpus) == 1
        with pytest.raises(
            SamecodeValueError, match=r"stores no fragments .*version 8.*--fragments"
        ):
            match_fragments(corpus, [str(tmp_path / "a.py")], walk=WALK)
        with pytest.raises(ValueError, match="stores no fragments"):
            corpus.fragment_files([1])
    assert db.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["a.py", "old.db"]


def test_the_parameters_are_recorded_and_a_mismatch_is_refused(tmp_path):
    db = tmp_path / "c.db"
    options = FragmentOptions(k=8, window=10, keep_imports=True)
    Corpus.create(db, fragments=options).close()
    with Corpus.open(db, readonly=True) as corpus:
        assert corpus.fragments == FragmentOptions(k=8, window=10, keep_imports=True)
        stats = corpus.stats()
        assert stats["format_version"] == 8
        assert stats["fragments"]["k"] == 8
        for wrong, name in [
            (FragmentOptions(k=12, window=10, keep_imports=True), "k=8"),
            (FragmentOptions(k=8, window=10), "keep_imports=True"),
        ]:
            with pytest.raises(SamecodeValueError, match=name):
                match_fragments(corpus, [str(tmp_path)], wrong, WALK)
        # the query's own parameters may differ
        match_fragments(
            corpus, [str(tmp_path)], dataclasses.replace(options, min_tokens=60, gap=0), WALK
        )
    with pytest.raises(ValueError, match="tokenize as the corpus"):
        Corpus.create(tmp_path / "d.db", fragments=FragmentOptions(tokens="code"))
    with pytest.raises(TypeError, match="FragmentOptions"):
        Corpus.create(tmp_path / "e.db", fragments={"k": 8})  # type: ignore[arg-type]


def test_records_and_index_follow_the_files(tmp_path):
    files = make_files(tmp_path, 3, 4)
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(path) for path in files], WALK)
        assert corpus.check() == []
        rows = corpus.stats()["fragment_index_rows"]
        assert corpus.stats()["fragment_records"] == 4
        files[0].write_text(files[0].read_text() + "\n".join(lines_of(random.Random(1), "x", 20)))
        report = corpus.sync([str(path) for path in files], WALK)
        assert len(report.updated) == 1
        assert corpus.check() == []
        assert corpus.stats()["fragment_index_rows"] > rows
        corpus.remove([str(files[1])])
        assert corpus.check() == []
        assert corpus.stats()["fragment_records"] == 3
        with pytest.raises(ValueError, match="needs its text"):
            corpus.add(read_documents([str(files[1])], Shingling(), None, 1))
        (item,) = read_stored([str(files[1])], Shingling(), None, 1, FragmentOptions(), text=True)
        assert corpus.add([item.document], texts={item.document.path: item.text}) == 1
        assert corpus.check() == []


def test_a_damaged_record_is_reported(tmp_path):
    files = make_files(tmp_path, 4, 2)
    db = tmp_path / "c.db"
    with legacy_corpus(db, 3, FragmentOptions()) as corpus:
        corpus.sync([str(path) for path in files], WALK)
    raw = sqlite3.connect(db)
    raw.execute("UPDATE fragments SET data = x'00' WHERE file = 1")
    raw.execute("DELETE FROM fragment_index WHERE file = 2")
    raw.commit()
    raw.close()
    with Corpus.open(db, readonly=True) as corpus:
        problems = corpus.check()
        assert len(problems) == 2
        assert all("fragments of" in problem for problem in problems)
        with pytest.raises(IndexCorruptError, match="fragments of file 1"):
            corpus.fragment_record(1)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["a", "b", "c = 1", "d(e)", "", "  f", "x\ty", "é", "import os", "# Copyright x"]
        ),
        max_size=60,
    ),
    st.integers(1, 6),
    st.integers(1, 6),
)
def test_a_record_decodes_to_the_same_tokens_lines_and_fingerprints(lines, k, window):
    text = "\n".join(lines)
    found = fingerprint_text("a.py", text, FragmentOptions(k=k, window=window, min_tokens=k))
    back = decode(encode(found), "a.py", k)
    assert back.tokens.ids == found.tokens.ids
    assert back.kgrams.hashes == found.kgrams.hashes  # masked k-grams masked again
    assert back.kgrams.selected == found.kgrams.selected
    assert back.ignored == found.ignored  # reasons, lines, tokens
    n = len(found.tokens)
    for first in range(n):
        for stop in range(first + 1, min(n, first + 8) + 1):
            assert back.tokens.lines(first, stop) == found.tokens.lines(first, stop)
            assert back.tokens.whole_lines(first, stop) == found.tokens.whole_lines(first, stop)


def test_a_damaged_record_does_not_decode():
    found = fingerprint_text("a.txt", "a b c d e f g h", FragmentOptions(k=2, min_tokens=2))
    record = encode(found)
    body = zlib.decompress(record)
    # the head, the count of masked ranges (none), the table of ids, then their numbers
    at = 17 + 4 + 8 * len(set(found.tokens.ids))
    for bad in (
        b"",
        b"not zlib",
        record[:-3],
        b"\x00" + record[1:],
        zlib.compress(b"SCF3" + body[4:]),  # another layout
        zlib.compress(b"SCF1" + body[4:]),  # the first layout has no count of ranges
        zlib.compress(body[:-1]),  # a value short
        zlib.compress(body[:at] + b"\xff" + body[at + 1 :]),  # a number past the id table
    ):
        with pytest.raises(SamecodeValueError, match="damaged"):
            decode(bad, "a.txt", 2)


def test_a_record_of_the_first_layout_still_decodes():
    # SCF1 (before 2026-11-27): no count of masked ranges; masked tokens were kept as 0
    found = fingerprint_text("a.txt", "a b c d e f g h", FragmentOptions(k=2, min_tokens=2))
    body = zlib.decompress(encode(found))
    old = zlib.compress(b"SCF1" + body[4:17] + body[21:])
    back = decode(old, "a.txt", 2)
    assert back.tokens.ids == found.tokens.ids
    assert back.kgrams.selected == found.kgrams.selected
    assert back.ignored == ()


HEADED_LINES = [
    "# Copyright 2020 Someone",
    "# SPDX-License-Identifier: MIT",
    "import os",
    "from a import b",
    "x = os.sep",
    "y = b(x) + 1",
    "",
    "def f(z):",
    "    return z",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(HEADED_LINES), max_size=40), st.integers(1, 5), st.integers(1, 5))
def test_a_read_file_knows_the_fingerprints_its_record_decodes_to(lines, k, window):
    # sync stores the fingerprints the workers found with each record, without decoding
    # it: they must be those the record gives back (masked licence headers and imports
    # included, whose k-grams the record masks again)
    import tempfile

    options = FragmentOptions(k=k, window=window, min_tokens=k)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "a.py")
        Path(path).write_text("\n".join(lines))
        (item,) = read_stored([path], Shingling(), None, 1, options)
    if hasattr(item, "reason"):  # skipped: empty, too few tokens
        return
    decoded = decode(item.record, path, k)
    assert item.fingerprints.tolist() == sorted(set(decoded.fingerprints))


def test_sync_stores_what_add_stores_without_decoding_its_records(tmp_path, monkeypatch):
    # The corpus sync makes from the fingerprints its workers found is the one add()
    # makes by decoding each record, byte for byte; and sync decodes none.
    import samecode.corpus.records as stored
    import samecode.corpus.store as corpus_store
    from samecode.corpus.records import read_all_stored

    root = Path(os.path.realpath(tmp_path))
    (root / "tree").mkdir()
    files = make_files(root / "tree", 5, 12)
    for path in files[:4]:  # licence headers and imports: masked ranges in the records
        path.write_text("# Copyright 2024 Example\nimport os\nimport sys\n" + path.read_text())
    decoded: list[str] = []
    real_decode = stored.decode

    def counting(data: bytes, path: str, k: int, **options):
        decoded.append(path)
        return real_decode(data, path, k, **options)

    monkeypatch.setattr(corpus_store, "decode", counting)  # where the corpus calls it
    with legacy_corpus(root / "synced.db", 3, FragmentOptions()) as corpus:
        corpus.sync([str(root / "tree")], WALK)
    assert decoded == []
    documents, _, records = read_all_stored(
        [str(path) for path in sorted(files)], Shingling(), WALK, RunOptions(), FragmentOptions()
    )
    with legacy_corpus(root / "added.db", 3, FragmentOptions()) as corpus:
        corpus.add(documents, fragments=records)
    assert len(decoded) == len(documents) > 8
    dumps = []
    for name in ("synced.db", "added.db"):
        with closing(sqlite3.connect(root / name)) as connection:
            dumps.append(list(connection.iterdump()))
    assert dumps[0] == dumps[1]


def test_a_file_added_twice_in_one_call_leaves_one_entry_and_its_rows(tmp_path):
    # add() writes a batch's index rows at its end, in order: those of an entry a later
    # document of the same path replaced within the batch are not written
    files = make_files(tmp_path, 6, 3)
    items = read_stored([str(path) for path in files], Shingling(), None, 1, FragmentOptions())
    first = items[0]
    edited = files[0].read_text() + "\n".join(lines_of(random.Random(2), "late", 15)) + "\n"
    files[0].write_text(edited)
    (again,) = read_stored([str(files[0])], Shingling(), None, 1, FragmentOptions())
    with legacy_corpus(tmp_path / "c.db", 3, FragmentOptions()) as corpus:  # records
        documents = [first.document, items[1].document, again.document]
        records = {first.document.path: first.record, items[1].document.path: items[1].record}
        corpus.add(documents[:2], fragments=records)
        rows = corpus.stats()["fragment_index_rows"]
        corpus.add([first.document, again.document], fragments={first.document.path: again.record})
        assert len(corpus) == 2
        assert corpus.check() == []
        assert corpus.stats()["fragment_index_rows"] == rows - len(first.fingerprints) + len(
            again.fingerprints
        )


def test_a_stored_text_is_fingerprinted_again_without_its_shingles(corpus_and_queries, monkeypatch):
    # The candidates' texts are checked by their SHA-256 and fingerprinted again; making
    # their shingles again only to count them was a fifth of match --fragments.
    db, kept, asked = corpus_and_queries
    with Corpus.open(db, readonly=True) as corpus:
        expected = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
    measured: list[str] = []
    measure = Shingling.measure

    def counting(self: Shingling, text: str, path: str = "") -> object:
        measured.append(path)
        return measure(self, text, path)

    monkeypatch.setattr(Shingling, "measure", counting)
    with Corpus.open(db, readonly=True) as corpus:
        found = match_fragments(corpus, [str(path) for path in asked], walk=WALK)
        assert corpus.stored_text(str(kept[0])).text == kept[0].read_text()
    assert (found.regions, found.classes) == (expected.regions, expected.classes)
    assert measured == []
