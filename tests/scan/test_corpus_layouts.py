"""A corpus of format version 5 (each file's bytes kept, compressed; prefix keys and the
fragment index in posting blocks) and one of version 4 (the bytes kept; prefixes as short
keys in rows) answer as the corpora before them: ``samecode match`` and ``match
--fragments`` give the same JSON lines, byte for byte, against a version 5, a version 4
and a version 3 corpus of the same files (the older ones still open, match and are
written as they were made)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.fragments import match_fragments
from samecode.corpus.records import unpack_text
from samecode.corpus.store import Corpus
from samecode.fragments import FragmentOptions
from samecode.hamming.sqlite import IndexCorruptError, IndexFileError
from samecode.scan.pipeline import document_of
from samecode.sources.reading import read_text
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling
from storefiles import legacy_corpus

SRC = str(Path(__file__).resolve().parents[2] / "src")
WALK = WalkOptions(gitignore=False)
HEADER = "# Copyright 2024 Example\n# SPDX-License-Identifier: MIT\nimport os\nimport sys\n"


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
    """The same files in a version 3 and a version 4 corpus (made as an older samecode
    made them) and a version 5 one."""
    made = {name: tmp_path / f"{name}.db" for name in ("v3", "v4", "v5")}
    for version in (3, 4):
        with legacy_corpus(made[f"v{version}"], version, FragmentOptions()) as old:
            old.sync([str(stored)], WALK)
            assert (old.format_version, old.keeps_text) == (version, version == 4)
    with Corpus.create(made["v5"], fragments=FragmentOptions()) as new:
        new.sync([str(stored)], WALK)
        assert (new.format_version, new.keeps_text) == (5, True)
    return made


def test_match_and_match_fragments_give_the_same_lines_as_older_corpora(tmp_path):
    stored, queries = make_tree(tmp_path, 1)
    made = build(tmp_path, stored)
    for extra in ([], ["--fragments"], ["--containment"]):
        outputs = []
        for name in ("v3", "v4", "v5"):
            done = run("match", str(queries), "--db", str(made[name]), "--format", "jsonl",
                       "-q", "--no-gitignore", *extra)  # fmt: skip
            assert done.returncode in (0, 1), done.stderr
            # the header names the corpus: the rest is the same, byte for byte
            outputs.append(done.stdout.replace(os.fsencode(made[name]), b"DB"))
        assert outputs[0] == outputs[1] == outputs[2]
        assert outputs[0].count(b"\n") >= 4


def test_older_corpora_are_still_written_as_made_and_each_version_is_smaller(tmp_path):
    stored, queries = make_tree(tmp_path, 2)
    made = build(tmp_path, stored)
    first, second = sorted(stored.iterdir())[:2]
    first.write_text(first.read_text() + "more = 1\n")
    tables = {
        "v3": {"fragments", "fragment_index", "prefixes"},
        "v4": {"fragment_index", "prefix_keys"},
        "v5": {"fragment_blocks", "prefix_blocks"},
    }
    for name, version in (("v3", 3), ("v4", 4), ("v5", 5)):
        with Corpus.open(made[name]) as corpus:  # written as it was made
            assert corpus.format_version == version
            assert corpus.keeps_text == (version >= 4)
            assert len(corpus.sync([str(stored)], WALK).updated) == 1
            assert corpus.remove([str(second)]) == 1
            assert corpus.check() == []
            assert (corpus.stats()["fragment_record_bytes"] > 0) == (version == 3)
            names = {row[0] for row in corpus._run("SELECT name FROM sqlite_schema")}
            others = set().union(*tables.values()) - tables[name]
            assert tables[name] <= names
            assert not names & others
    for name in made.values():
        with contextlib.closing(sqlite3.connect(name)) as db:
            db.execute("VACUUM")
    assert os.path.getsize(made["v4"]) < os.path.getsize(made["v3"]) / 2
    # 12 files take a few pages of 16 KiB (each table one at least): on the pages of
    # version 4, version 5 is the smaller
    with contextlib.closing(sqlite3.connect(made["v5"])) as db:
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("PRAGMA page_size = 4096")
        db.execute("VACUUM")
    assert os.path.getsize(made["v5"]) < os.path.getsize(made["v4"])
    results = []
    for name in ("v3", "v4", "v5"):
        with Corpus.open(made[name], readonly=True) as corpus:
            results.append(match_fragments(corpus, [str(queries)], walk=WALK).regions)
    assert results[0] == results[1] == results[2]


def test_a_corpus_changed_answers_as_one_made_of_its_files_now(tmp_path):
    # Files replaced, removed and added: no posting of what was replaced or removed is
    # left to make a candidate or count a fingerprint's files (which decides boilerplate).
    stored, queries = make_tree(tmp_path, 5)
    changed, fresh = tmp_path / "changed.db", tmp_path / "fresh.db"
    with Corpus.create(changed, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
        paths = sorted(stored.iterdir())
        paths[0].write_text(paths[5].read_text())  # replaced by a copy of another
        paths[1].write_text(paths[1].read_text() + "more = 1\n")  # replaced, near
        paths[2].unlink()
        (stored / "new.py").write_text(paths[7].read_text())
        report = corpus.sync([str(stored)], WALK, prune=True)
        assert (len(report.updated), len(report.removed), len(report.added)) == (2, 1, 1)
        corpus.remove([str(paths[3])])
    paths[3].unlink()
    with Corpus.create(fresh, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(stored)], WALK)
    held = []
    for name in (changed, fresh):
        with Corpus.open(name, readonly=True) as corpus:
            assert corpus.check() == []
            path_of = {corpus._file_id(f.path): f.path for f in corpus.files()}
            sql, fragments = corpus._statements, corpus._fragment_tables
            held.append(
                {
                    blocks.name: sorted((key, path_of[file]) for key, file in blocks.pairs(sql))
                    for blocks in (*corpus._candidates.postings, *fragments.postings)
                }
            )
    assert held[0] == held[1]
    for extra in ([], ["--fragments"], ["--containment"]):
        outputs = []
        for name in (changed, fresh):
            done = run("match", str(queries), "--db", str(name), "--format", "jsonl",
                       "-q", "--no-gitignore", *extra)  # fmt: skip
            assert done.returncode in (0, 1), done.stderr
            outputs.append(done.stdout.replace(os.fsencode(name), b"DB"))
        assert outputs[0] == outputs[1]
        assert outputs[0].count(b"\n") >= 4


def test_a_damaged_text_is_reported_and_never_matched(tmp_path):
    stored, _queries = make_tree(tmp_path, 3)
    made = build(tmp_path, stored)
    for name in ("v4", "v5"):
        with contextlib.closing(sqlite3.connect(made[name])) as db, db:
            (packed,) = db.execute("SELECT text FROM files WHERE id = 1").fetchone()
            db.execute("UPDATE files SET text = ? WHERE id = 1", (packed[:-4] + b"\0\0\0\0",))
        with Corpus.open(made[name], readonly=True) as corpus:
            assert any("checksum" in problem for problem in corpus.check())
            with pytest.raises(IndexCorruptError):
                corpus.stored_fragments(1)


def test_sha256_is_a_lookup_in_a_version_5_corpus(tmp_path):
    stored, _ = make_tree(tmp_path, 4)
    made = build(tmp_path, stored)
    with Corpus.open(made["v5"], readonly=True) as corpus:
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
    for name in ("v3", "v4", "v5"):
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
    assert found[0] == found[1] == found[2]


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
