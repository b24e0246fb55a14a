"""A corpus of format version 8 (each file's bytes kept, compressed against a dictionary
of the corpus's own; prefixes and fingerprints as postings in blocks packed in buckets)
answers as the corpora before it: ``samecode match`` and ``match --fragments`` give the
same JSON lines, byte for byte, against a version 8 corpus, a version 7 one (blocks
packed, not in buckets), a version 6 one (texts compressed without a dictionary), a
version 5 one (blocks not packed), a version 4 one (keys in a row each) and a version 3
one (shingles and fragment records kept) of the same files, each of which still opens,
matches and is written as it was made."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus import store
from samecode.corpus.fragments import match_fragments
from samecode.corpus.records import unpack_text
from samecode.corpus.store import Corpus
from samecode.corpus.text_dictionary import DICTIONARY_BYTES
from samecode.fragments import FragmentOptions, compare_fragments
from samecode.hamming.sqlite import IndexCorruptError, IndexFileError
from samecode.minhash.settings import LSHSettings
from samecode.scan.pipeline import document_of
from samecode.sources.reading import read_text
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling
from storefiles import legacy_corpus

SRC = str(Path(__file__).resolve().parents[2] / "src")
WALK = WalkOptions(gitignore=False)
HEADER = "# Copyright 2024 Example\n# SPDX-License-Identifier: MIT\nimport os\nimport sys\n"
VERSIONS = ("v3", "v4", "v5", "v6", "v7", "v8")


def lines(rng: random.Random, tag: str, count: int) -> list[str]:
    return [f"{tag}_{rng.getrandbits(20):x} = step_{n % 7}({n}) + {rng.randrange(9)}" for n in
            range(count)]  # fmt: skip


def make_tree(root: Path, seed: int) -> tuple[Path, Path]:
    """Stored files (some with licence headers and imports, masked) and queries: near
    copies of stored files (for Jaccard) and files holding blocks of them (regions)."""
    rng = random.Random(seed)
    stored, queries = root / "stored", root / "queries"
    stored.mkdir(parents=True)
    queries.mkdir()
    bodies = []
    for number in range(12):
        body = lines(rng, f"s{number}", rng.randrange(20, 60))
        bodies.append(body)
        head = HEADER if number % 3 == 0 else ""
        (stored / f"s{number:02}.py").write_text(head + "\n".join(body) + "\n")
    for number in range(8):
        body = list(rng.choice(bodies))
        if number % 2:  # a near copy: a line changed
            body[rng.randrange(len(body))] = f"changed_{number} = 1"
        else:  # a block of it among lines of its own
            start = rng.randrange(len(body) // 2)
            body = lines(rng, f"q{number}", 10) + body[start : start + 15] + lines(rng, "t", 5)
        (queries / f"q{number}.py").write_text(HEADER + "\n".join(body) + "\n")
    return stored, queries


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "samecode", *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": SRC},
        check=False,
    )


def build(tmp_path: Path, stored: Path) -> dict[str, Path]:
    """The same files in a version 3, 4, 5, 6 and 7 corpus (made as older samecodes made
    them) and a version 8 one."""
    made = {name: tmp_path / f"{name}.db" for name in VERSIONS}
    for version in (3, 4, 5, 6, 7):
        with legacy_corpus(made[f"v{version}"], version, FragmentOptions()) as old:
            old.sync([str(stored)], WALK)
    with Corpus.create(made["v8"], fragments=FragmentOptions()) as new:
        new.sync([str(stored)], WALK)
        assert (new.format_version, new.keeps_text) == (8, True)
    return made


def test_match_and_match_fragments_give_the_same_lines_as_older_corpora(tmp_path):
    stored, queries = make_tree(tmp_path, 1)
    made = build(tmp_path, stored)
    for extra in ([], ["--fragments"], ["--containment"]):
        outputs = []
        for name in VERSIONS:
            done = run("match", str(queries), "--db", str(made[name]), "--format", "jsonl",
                       "-q", "--no-gitignore", *extra)  # fmt: skip
            assert done.returncode in (0, 1), done.stderr
            # the header names the corpus: the rest is the same, byte for byte
            outputs.append(done.stdout.replace(os.fsencode(made[name]), b"DB"))
        assert len(set(outputs)) == 1
        assert outputs[0].count(b"\n") >= 4


def test_a_version_8_corpus_is_smallest_and_older_ones_are_still_written(tmp_path):
    stored, queries = make_tree(tmp_path, 2)
    made = build(tmp_path, stored)
    with Corpus.open(made["v3"]) as old:  # written as it was made: records, shingles
        assert old.format_version == 3
        assert not old.keeps_text
        first = sorted(stored.iterdir())[0]
        first.write_text(first.read_text() + "more = 1\n")
        assert len(old.sync([str(stored)], WALK).updated) == 1
        old.remove([str(sorted(stored.iterdir())[1])])
        assert old.check() == []
        assert old.stats()["fragment_record_bytes"] > 0
    for version in (4, 5, 6, 7, 8):  # each written as it was made
        with Corpus.open(made[f"v{version}"]) as new:
            assert new.format_version == version
            assert len(new.sync([str(stored)], WALK).updated) == 1
            new.remove([str(sorted(stored.iterdir())[1])])
            assert new.check() == []
            names = {row[0] for row in new._run("SELECT name FROM sqlite_schema")}
            assert not names & {"fragments", "prefixes"}
            blocks = {"prefix_blocks", "fragment_blocks"}
            tables = {4: {"prefix_keys", "fragment_index"}, 5: blocks, 6: blocks, 7: blocks}
            tables[8] = blocks
            assert ("text_dictionary" in names) == (version >= 7)
            assert tables[version] <= names
            assert not tables[4 if version > 4 else 5] & names
    for name in made.values():
        with contextlib.closing(sqlite3.connect(name)) as db:
            db.execute("VACUUM")
    sizes = [os.path.getsize(made[name]) for name in VERSIONS]
    assert max(sizes[1:]) < sizes[0] / 2
    results = []
    for name in VERSIONS:
        with Corpus.open(made[name], readonly=True) as corpus:
            results.append(match_fragments(corpus, [str(queries)], walk=WALK).regions)
    assert all(result == results[0] for result in results)
    assert results[0]


def test_a_damaged_text_is_reported_and_never_matched(tmp_path):
    stored, _queries = make_tree(tmp_path, 3)
    made = build(tmp_path, stored)
    with contextlib.closing(sqlite3.connect(made["v8"])) as db, db:
        (packed,) = db.execute("SELECT text FROM files WHERE id = 1").fetchone()
        db.execute("UPDATE files SET text = ? WHERE id = 1", (packed[:-4] + b"\0\0\0\0",))
    with Corpus.open(made["v8"], readonly=True) as corpus:
        assert any("checksum" in problem for problem in corpus.check())
        with pytest.raises(IndexCorruptError):
            corpus.stored_fragments(1)


def test_sha256_is_a_lookup_in_a_version_8_corpus(tmp_path):
    stored, _ = make_tree(tmp_path, 4)
    made = build(tmp_path, stored)
    with Corpus.open(made["v8"], readonly=True) as corpus:
        (sha,) = [f.sha256 for f in corpus.files()][:1]
        plan = " ".join(
            str(row)
            for row in corpus._run(
                "EXPLAIN QUERY PLAN SELECT sha256, id FROM files WHERE sha256 IN (?)", (sha,)
            )
        )
        assert "files_sha256" in plan
        assert list(corpus.same_bytes([sha]).values()) == [[1]]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_the_same_pairs_and_regions_from_either_layout(tmp_path_factory, seed):
    tmp_path = tmp_path_factory.mktemp("layouts")
    stored, queries = make_tree(tmp_path, seed)
    made = build(tmp_path, stored)
    found = []
    for name in VERSIONS:
        with Corpus.open(made[name], readonly=True) as corpus:
            from samecode.scan.pipeline import read_documents
            from samecode.text.shingling import Shingling

            paths = sorted(str(p) for p in queries.iterdir())
            documents = read_documents(paths, Shingling(), None, 1)
            found.append(
                (
                    corpus.match(documents, 0.8),
                    corpus.match(documents, 0.8, "containment"),
                    match_fragments(corpus, [str(queries)], walk=WALK).regions,
                )
            )
    assert all(answers == found[0] for answers in found)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_file_found_through_a_link_of_another_extension_is_kept_consistent(
    tmp_path: Path,
) -> None:
    # Stored under its real path, a file is tokenized by that path's language when its
    # text is made again: "//" is floor division in Python and a comment in C.
    real = tmp_path / "real"
    real.mkdir()
    (real / "calc.py").write_text("x = a // b c d e f g\ny = 2\nz = x + y\n")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "calc.c").symlink_to(real / "calc.py")
    shingling = Shingling(tokens="code", size=2)
    walk = WalkOptions(gitignore=False, min_tokens=1)
    with Corpus.create(str(tmp_path / "c.db"), shingling=shingling) as corpus:
        assert corpus.sync([str(linked)], walk).added == (str(real / "calc.py"),)
        assert corpus.check() == []
        copy = tmp_path / "copy.py"
        copy.write_bytes((real / "calc.py").read_bytes())
        query = document_of(read_text(str(copy), None), shingling, 1)
        (found,) = corpus.match([query], threshold=1)
    assert found.b == str(real / "calc.py")


def test_a_corpus_made_before_message_ids_were_masked_keeps_matching_them(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    legacy_corpus(path, 3, FragmentOptions(keep_msgids=True)).close()
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        (recorded,) = db.execute("SELECT value FROM samecode_meta WHERE name = 'fragments'")
        fragments = json.loads(recorded[0])
        del fragments["keep_msgids"]  # as a samecode before keep_msgids recorded it
        db.execute(
            "UPDATE samecode_meta SET value = ? WHERE name = 'fragments'", (json.dumps(fragments),)
        )
    with Corpus.open(str(path)) as corpus:
        assert corpus.fragments is not None
        assert corpus.fragments.keep_msgids is True
    po = tmp_path / "de.po"
    po.write_text('msgid "Save the form"\nmsgstr "Das Formular sichern"\n' * 30)
    query = tmp_path / "query" / "de.po"
    query.parent.mkdir()
    query.write_bytes(po.read_bytes())
    with Corpus.open(str(path)) as corpus:
        corpus.sync([str(po)], WalkOptions(gitignore=False, min_tokens=1))
        found = match_fragments(corpus, [str(query)], walk=WALK)
    assert not found.ignored  # its catalogues' ids are matched, as when it was made
    assert [(r.a_start, r.a_end) for r in found.regions] == [(1, 60)]


def test_a_corpus_made_before_copies_of_message_ids_were_masked_keeps_matching_them(
    tmp_path: Path,
) -> None:
    # the translations of de.po and fr.po share only what they copy from their ids: each
    # message's markup, of 50 tokens
    markup = (
        '<a href=\\"https://docs.example.com/en/%(version)s/ref/settings/{n}/#debug\\" '
        'class=\\"reference internal\\" target=\\"_blank\\" rel=\\"noopener\\" '
        'data-page=\\"{n}\\" id=\\"ref-{n}\\" title=\\"%(title)s\\">'
    )
    entries = [
        f'msgid "Read {markup.format(n=n)}the page</a> first"\n'
        f'msgstr "{{word}} {markup.format(n=n)}{{word}}</a>"\n'
        for n in range(30)
    ]
    stored, query = tmp_path / "stored" / "de.po", tmp_path / "query" / "fr.po"
    for path, word in ((stored, "Bitte"), (query, "Entrez")):
        path.parent.mkdir()
        path.write_text("\n".join(entries).replace("{word}", word))
    for name, recorded, regions in (("old.db", None, True), ("new.db", False, False)):
        path = tmp_path / name
        Corpus.create(str(path), fragments=FragmentOptions()).close()
        if recorded is None:  # as a samecode before keep_msgid_copies recorded it
            with contextlib.closing(sqlite3.connect(path)) as db, db:
                (row,) = db.execute("SELECT value FROM samecode_meta WHERE name = 'fragments'")
                fragments = json.loads(row[0])
                del fragments["keep_msgid_copies"]
                db.execute(
                    "UPDATE samecode_meta SET value = ? WHERE name = 'fragments'",
                    (json.dumps(fragments),),
                )
        with Corpus.open(str(path)) as corpus:
            assert corpus.fragments is not None
            assert corpus.fragments.keep_msgid_copies is (recorded is None)
            corpus.sync([str(stored)], WALK)
            found = match_fragments(corpus, [str(query)], walk=WALK)
        assert bool(found.regions) is regions, name
        assert {i.reason for i in found.ignored} == {"message ids"}


def test_a_corpus_of_records_masks_the_copies_of_message_ids_as_a_scan_does(
    tmp_path: Path,
) -> None:
    # A query holding a catalogue's message: seeded by its translation's copy of the id
    # only if the record, decoded, left the copy's k-grams unmasked.
    words = " ".join(f"w{n}" for n in range(60))
    comment = "# " + " ".join(f"c{n}" for n in range(50)) + "\n"
    (tmp_path / "stored").mkdir()
    (tmp_path / "query").mkdir()
    stored, query = tmp_path / "stored" / "de.po", tmp_path / "query" / "q.py"
    stored.write_text(comment + "\n" + "".join(
        f'#: views.py:{n}\nmsgid "m{n} {words}"\nmsgstr "m{n} {words}"\n\n' for n in range(5)
    ))  # fmt: skip
    query.write_text(comment + " ".join(f"z{n}" for n in range(100)) + f"\ns = 'm3 {words}'\n")
    expected = compare_fragments(query, stored).regions
    legacy_corpus(tmp_path / "c.db", 3, FragmentOptions()).close()
    with Corpus.open(str(tmp_path / "c.db")) as corpus:
        assert not corpus.keeps_text  # records, decoded
        corpus.sync([str(stored)], WALK)
        found = match_fragments(corpus, [str(query)], walk=WALK)
    ends = [(r.a_start, r.a_end, r.b_start, r.b_end) for r in found.regions]
    assert ends == [(r.a_start, r.a_end, r.b_start, r.b_end) for r in expected] == [(1, 1, 1, 1)]


def test_a_corpus_whose_texts_rules_differ_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    Corpus.create(str(path)).close()
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE samecode_meta SET value = '0' WHERE name = 'text_rules'")
    with pytest.raises(IndexFileError, match="makes its texts' keys by rules '0'"):
        Corpus.open(str(path))


def test_a_packed_text_must_be_bytes() -> None:
    with pytest.raises(TypeError, match="must be bytes"):
        unpack_text("x = 1", "a.py")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is damaged"):
        unpack_text(b"not zlib", "a.py")


@pytest.mark.parametrize("version", ["v5", "v6", "v7", "v8"])
@pytest.mark.parametrize("table", ["prefix_blocks", "fragment_blocks"])
def test_a_damaged_block_is_reported_and_never_matched(tmp_path, table, version):
    stored, _queries = make_tree(tmp_path, 5)
    made = build(tmp_path, stored)
    with contextlib.closing(sqlite3.connect(made[version])) as db, db:
        (largest,) = db.execute(f"SELECT max(id) FROM {table} WHERE length(data) > 0").fetchone()
        db.execute(f"UPDATE {table} SET data = zeroblob(length(data)) WHERE id = ?", (largest,))
    with Corpus.open(made[version], readonly=True) as corpus:
        problems = corpus.check()
        assert f"a block of {table} is damaged" in problems
        named = {"prefix_blocks": "the prefix of '", "fragment_blocks": "the fragments of '"}
        assert any(problem.startswith(named[table]) for problem in problems)  # a file's
        documents = [document_of(read_text(str(p), None), Shingling(), 1) for p in stored.iterdir()]
        matching = {
            "prefix_blocks": lambda: corpus.match(documents),
            "fragment_blocks": lambda: match_fragments(corpus, [str(stored)], walk=WALK),
        }
        with pytest.raises(IndexCorruptError, match=f"a block of {table} is damaged"):
            matching[table]()


@pytest.mark.parametrize("old_version", ["v4", "v5", "v6", "v7"])
def test_an_older_corpus_converts_to_version_8_without_its_files(tmp_path, old_version):
    stored, queries = make_tree(tmp_path, 6)
    made = build(tmp_path, stored)
    kept = tmp_path / "kept"
    stored.rename(kept)  # the stored files are gone when it is converted
    converted = tmp_path / "converted.db"
    done = run("index", "convert", str(converted), "--db", str(made[old_version]))
    assert done.returncode == 0, done.stderr
    assert b"12 files stored in" in done.stderr
    assert b"(format version 8)" in done.stderr
    kept.rename(stored)
    outputs = []
    for db in (made[old_version], made["v8"], converted):
        for extra in ([], ["--fragments"]):
            done = run("match", str(queries), "--db", str(db), "--format", "jsonl", "-q",
                       "--no-gitignore", *extra)  # fmt: skip
            outputs.append(done.stdout.replace(os.fsencode(db), b"DB"))
    assert outputs[0] == outputs[2] == outputs[4]
    assert outputs[1] == outputs[3] == outputs[5]
    with Corpus.open(converted) as new, Corpus.open(made[old_version], readonly=True) as old:
        assert (new.format_version, new.fragments) == (8, old.fragments)
        # its texts packed again, against a dictionary of the old corpus's texts
        assert new._dictionary
        assert bool(old._dictionary) is (old_version == "v7")
        (header,) = new._run("SELECT substr(text, 1, 2) FROM files LIMIT 1").fetchone()
        assert header[1] & 0x20  # zlib's FDICT
        assert list(new.files()) == list(old.files())  # paths, sizes, times, SHA-256
        assert new.check() == []
        assert len(new.sync([str(stored)], WALK).unchanged) == 12  # nothing read again
    done = run("index", "convert", str(converted), "--db", str(made[old_version]))
    assert done.returncode == 2
    assert b"exists: name a new file" in done.stderr
    done = run("index", "convert", str(tmp_path / "other.db"), "--db", str(made["v3"]))
    assert done.returncode == 2
    assert b"keeps no texts (corpus format version 3): make a new corpus" in done.stderr
    assert not (tmp_path / "other.db").exists()


def bulk_tree(root: Path, seed: int) -> Path:
    """300 files of 60 lines each, none like another."""
    rng = random.Random(seed)
    root.mkdir()
    for number in range(300):
        (root / f"f{number:03}.py").write_text("\n".join(lines(rng, f"f{number}", 60)) + "\n")
    return root


def test_each_version_of_the_corpus_is_smaller_than_the_one_before(tmp_path):
    stored = bulk_tree(tmp_path / "stored", 7)
    sizes, texts, blocks = {}, {}, {}
    for version in (4, 5, 6, 7, 8):
        path = tmp_path / f"v{version}.db"
        if version < 8:
            made = legacy_corpus(path, version, FragmentOptions())
        else:
            made = Corpus.create(path, fragments=FragmentOptions())
        with made as corpus:
            corpus.sync([str(stored)], WALK)
            assert corpus.format_version == version
            corpus.compact()  # every posting in a block
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("VACUUM")
            (texts[version],) = db.execute("SELECT sum(length(text)) FROM files").fetchone()
            if version >= 5:
                (blocks[version],) = db.execute(
                    "SELECT (SELECT sum(length(data)) FROM prefix_blocks) + "
                    "(SELECT sum(length(data)) FROM fragment_blocks)"
                ).fetchone()
        sizes[version] = os.path.getsize(path)
    assert sizes[6] < sizes[5] < sizes[4]  # (by how much: docs/benchmarks.rst)
    # version 7's texts are smaller; its dictionary costs at most 32 KiB once, more than
    # these 300 small texts save (some 32 bytes each; on 2,000 files of 7 KB, 528 each)
    assert texts[7] < texts[6] == texts[5]
    assert sizes[7] - DICTIONARY_BYTES < sizes[6]
    # version 8's blocks are smaller, its texts the same
    assert blocks[8] < blocks[7] == blocks[6] < blocks[5]
    assert texts[8] == texts[7]
    assert sizes[8] < sizes[7]


def test_compact_folds_pending_postings_and_answers_the_same(tmp_path):
    bulk = bulk_tree(tmp_path / "bulk", 8)
    stored, queries = make_tree(tmp_path / "tree", 9)
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(bulk)], WALK)
        corpus.sync([str(stored)], WALK)  # a few files more: their postings left pending
        stats = corpus.stats()
        assert stats["prefix_pending"] > 0
        assert stats["fragment_pending"] > 0
    before = []
    for extra in ([], ["--fragments"]):
        done = run("match", str(queries), "--db", str(db), "--format", "jsonl", "-q",
                   "--no-gitignore", *extra)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.count(b"\n") >= 4  # matches found
        before.append(done.stdout)
    done = run("index", "compact", "--db", str(db))
    assert done.returncode == 0, done.stderr
    said = re.search(
        rf"{re.escape(str(db))} compacted: ([\d,]+) bytes, now ([\d,]+)", done.stderr.decode()
    )
    assert said is not None, done.stderr
    size, now = (int(number.replace(",", "")) for number in said.groups())
    # the pending rows gone, and the free pages; the blocks that took them may fit a row
    # fewer in a page of 4 KiB (in this small corpus, a page more for its 230 blocks)
    assert now <= size + 4096
    after = []
    for extra in ([], ["--fragments"]):
        done = run("match", str(queries), "--db", str(db), "--format", "jsonl", "-q",
                   "--no-gitignore", *extra)  # fmt: skip
        after.append(done.stdout)
    assert after == before
    with Corpus.open(db) as corpus:
        stats = corpus.stats()
        assert (stats["prefix_pending"], stats["fragment_pending"]) == (0, 0)
        assert corpus.check() == []
        assert len(corpus) == 312
        size, now = corpus.compact()  # again: nothing pending, nothing freed
        assert now <= size
        reading = corpus.files()
        next(reading)  # a statement of its own still reading: VACUUM cannot run
        with pytest.raises(IndexFileError, match="VACUUM"):
            corpus.compact()
        reading.close()
        assert corpus.check() == []
    with Corpus.open(db, readonly=True) as corpus, pytest.raises(PermissionError):
        corpus.compact()


def _answers(db: Path, queries: Path) -> tuple[object, object]:
    """What the corpus ``db`` answers for ``queries``: regions, and whole-file matches."""
    with Corpus.open(db, readonly=True) as corpus:
        regions = match_fragments(corpus, [str(queries)], walk=WALK).regions
        documents = [document_of(read_text(str(path)), corpus.shingling, 1)
                     for path in sorted(queries.iterdir())]  # fmt: skip
        return regions, corpus.match(documents)


def _pages(db: Path) -> tuple[int, str]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as file:
        return file.execute("PRAGMA page_size").fetchone()[0], file.execute(
            "PRAGMA journal_mode"
        ).fetchone()[0]


def _stored(tmp_path: Path, seed: int) -> tuple[Path, Path, Path, tuple[object, object]]:
    stored, queries = make_tree(tmp_path / "tree", seed)
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions(), timeout=20.0) as corpus:
        corpus.sync([str(stored)], WALK)
    before = _answers(db, queries)
    assert before[0]  # regions to compare
    assert before[1]  # and whole-file matches
    return db, stored, queries, before


def test_compact_writes_a_large_corpus_in_larger_pages_and_answers_the_same(tmp_path, monkeypatch):
    db, stored, queries, before = _stored(tmp_path, 12)
    with Corpus.open(db) as corpus:
        corpus.compact()  # small: its pages as they were
    assert _pages(db) == (4096, "wal")
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", 0)  # any corpus is large
    with Corpus.open(db) as corpus:
        _, now = corpus.compact()
        assert corpus.check() == []
    assert _pages(db) == (32768, "wal")
    assert now == os.path.getsize(db)  # (a file this small is larger so: hence 4 MiB)
    assert not os.path.exists(f"{db}-journal")
    assert _answers(db, queries) == before
    with Corpus.open(db) as corpus:  # and it takes more files as before
        added = corpus.sync([str(stored), str(queries)], WALK).added
        assert len(added) == len(list(queries.iterdir()))
        assert corpus.check() == []


def test_a_first_large_sync_writes_the_corpus_in_larger_pages(tmp_path, monkeypatch):
    db, stored, queries, before = _stored(tmp_path, 17)  # small: SQLite's pages
    assert _pages(db) == (4096, "wal")
    size = sum(path.stat().st_size for path in stored.iterdir())
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", size)  # these files are large
    large = tmp_path / "large.db"
    with Corpus.create(large, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
        assert corpus.check() == []
    assert _pages(large) == (32768, "wal")
    assert not os.path.exists(f"{large}-journal")
    assert _answers(large, queries) == before
    with Corpus.open(db) as corpus:  # not empty: its pages as they are
        corpus.sync([str(queries)], WALK)
    assert _pages(db) == (4096, "wal")
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", size + 1)  # one byte short
    with Corpus.create(tmp_path / "short.db", fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
    assert _pages(tmp_path / "short.db") == (4096, "wal")
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", 0)
    shared = tmp_path / "shared.db"
    Corpus.create(shared, fragments=FragmentOptions()).close()
    with Corpus.open(shared, readonly=True), Corpus.open(shared, timeout=20.0) as corpus:
        corpus.sync([str(stored)], WALK)  # another connection has it: as it is, at once
        assert corpus.check() == []
    assert _pages(shared) == (4096, "wal")
    assert _answers(shared, queries) == before


def test_compact_keeps_the_pages_of_a_corpus_another_connection_has_open(tmp_path, monkeypatch):
    db, _, queries, _ = _stored(tmp_path, 13)
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", 0)
    with Corpus.open(db, readonly=True), Corpus.open(db, timeout=20.0) as corpus:
        started = time.monotonic()
        corpus.compact()  # vacuumed as it is, without waiting out the timeout
        assert time.monotonic() - started < 10
        assert corpus.check() == []
        assert corpus.sync([str(queries)], WALK).added  # and writes as before
    assert _pages(db) == (4096, "wal")


def test_compact_holds_the_corpus_alone_while_its_pages_change(tmp_path, monkeypatch):
    # Out of WAL mode, another process opening the corpus would read a file being
    # rewritten: it waits for the lock instead (and is told the corpus is locked, not
    # damaged, past its timeout).
    db, _, queries, before = _stored(tmp_path, 14)
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", 0)
    seen: list[subprocess.CompletedProcess[str]] = []
    original = Corpus._run
    opener = (
        "import sys\nfrom samecode.corpus.store import Corpus\n"
        "with Corpus.open(sys.argv[1], readonly=True, timeout=0.5) as corpus: len(corpus)"
    )

    def vacuum_watched(self: Corpus, sql: str, parameters: tuple[object, ...] = ()) -> object:
        if sql == "VACUUM":
            (mode,) = original(self, "PRAGMA journal_mode").fetchone()
            assert mode == "delete"
            seen.append(subprocess.run(
                [sys.executable, "-c", opener, str(db)], capture_output=True, text=True,
                env={**os.environ, "PYTHONPATH": SRC}, check=False,
            ))  # fmt: skip
        return original(self, sql, parameters)

    monkeypatch.setattr(Corpus, "_run", vacuum_watched)
    with Corpus.open(db) as corpus:
        corpus.compact()
    monkeypatch.setattr(Corpus, "_run", original)
    (opened,) = seen
    assert opened.returncode != 0
    assert "IndexLockedError" in opened.stderr, opened.stderr
    assert "damaged" not in opened.stderr
    assert _pages(db) == (32768, "wal")
    assert _answers(db, queries) == before


def _killed_midway(db: Path) -> None:
    """A writer killed halfway through a change out of WAL mode (as compacting is, while
    the pages change): pages of the file overwritten, the rollback journal beside it
    holding what they were."""
    sizes = "SELECT size FROM files ORDER BY id"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as file:
        held = file.execute(sizes).fetchall()
    code = f"""
import os, sqlite3
db = sqlite3.connect({str(db)!r}, isolation_level=None)
db.execute("PRAGMA journal_mode = DELETE")
db.execute("PRAGMA cache_size = 2")  # changed pages spill into the file before a commit
db.execute("BEGIN IMMEDIATE")
db.execute("UPDATE files SET size = size + 1")
db.execute("DELETE FROM prefix_blocks")
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True)
    assert os.path.getsize(f"{db}-journal") > 0
    # the file itself is torn: read as it is (ignoring the journal), changes show
    torn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    with contextlib.closing(torn), contextlib.suppress(sqlite3.DatabaseError):
        assert torn.execute(sizes).fetchall() != held  # (or it does not even read)


@pytest.mark.parametrize("readonly", [True, False])
def test_a_change_a_killed_writer_left_half_made_is_rolled_back_on_opening(tmp_path, readonly):
    db, _, queries, before = _stored(tmp_path, 15)
    _killed_midway(db)
    with Corpus.open(db, readonly=readonly) as corpus:
        assert corpus.check() == []
    assert not os.path.exists(f"{db}-journal")
    assert _pages(db) == (4096, "wal")  # back in WAL mode
    assert _answers(db, queries) == before


def test_a_corpus_left_out_of_wal_mode_opens_and_is_put_back(tmp_path):
    # Killed after the pages changed but before WAL mode: the file whole, in rollback
    # mode; it reads as it is, and the next opening that may write puts it back.
    db, _, queries, before = _stored(tmp_path, 16)
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as file:
        file.execute("PRAGMA journal_mode = DELETE")
    assert _answers(db, queries) == before
    assert _pages(db) == (4096, "delete")
    with Corpus.open(db) as corpus:
        assert corpus.check() == []
    assert _pages(db) == (4096, "wal")


def test_compact_keeps_an_older_or_lsh_corpus_as_it_was_made(tmp_path):
    stored, queries = make_tree(tmp_path, 10)
    made = build(tmp_path, stored)
    made["lsh"] = tmp_path / "lsh.db"
    with Corpus.create(made["lsh"], lsh=LSHSettings(), fragments=FragmentOptions()) as lsh:
        lsh.sync([str(stored)], WALK)
    for name in ("v3", "v4", "lsh"):
        with Corpus.open(made[name]) as corpus:
            held = list(corpus.files())
            before = match_fragments(corpus, [str(queries)], walk=WALK).regions
            version = corpus.format_version
            corpus.compact()
            assert corpus.format_version == version
            assert list(corpus.files()) == held
            assert match_fragments(corpus, [str(queries)], walk=WALK).regions == before
            assert corpus.check() == []


def test_match_fragments_leaves_out_a_file_removed_while_it_runs(tmp_path, monkeypatch):
    stored, queries = make_tree(tmp_path, 11)
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
    with Corpus.open(db, readonly=True) as corpus:
        before = match_fragments(corpus, [str(queries)], walk=WALK).regions
    gone = before[0].b
    original = Corpus.stored_fragments

    def removed_meanwhile(self, file_id):  # by another process, once found
        with Corpus.open(db) as other:
            other.remove([gone])
        return original(self, file_id)

    monkeypatch.setattr(Corpus, "stored_fragments", removed_meanwhile)
    with Corpus.open(db, readonly=True) as corpus:
        after = match_fragments(corpus, [str(queries)], walk=WALK).regions
    assert after == [region for region in before if region.b != gone]
    assert after
