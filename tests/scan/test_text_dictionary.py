"""A corpus's texts compressed against a dictionary of its own (format version 7): the
bytes come back as they were, with the dictionary and only with it; the dictionary is
made once, of a sample spread over the first files stored, and never changes."""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.records import pack_text, read_stored, unpack_text
from samecode.corpus.store import Corpus
from samecode.corpus.text_dictionary import (
    DICTIONARY_BYTES,
    FEWEST_FILES,
    SAMPLE_BYTES,
    SAMPLE_FILES,
    make_dictionary,
    sample_paths,
)
from samecode.fragments import FragmentOptions
from samecode.hamming.sqlite import IndexCorruptError
from samecode.sources.walk import WalkOptions
from storefiles import legacy_corpus

WALK = WalkOptions(gitignore=False, min_tokens=1)
SRC = str(Path(__file__).resolve().parents[2] / "src")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=5000), st.binary(max_size=DICTIONARY_BYTES))
def test_a_text_comes_back_with_its_dictionary(data, dictionary):
    packed = pack_text(data, dictionary)
    assert unpack_text(packed, "a.py", dictionary) == data
    if dictionary:  # it needs that dictionary: none, or another, is refused
        with pytest.raises(ValueError, match="packed against a dictionary"):
            unpack_text(packed, "a.py")
        with pytest.raises(ValueError, match="the corpus's differs"):
            unpack_text(packed, "a.py", dictionary + b"x")
    else:  # as versions 4 to 6 packed it, and read by any
        assert packed == zlib.compress(data, 6)
        assert unpack_text(packed, "a.py", b"other") == data


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=3000), st.binary(min_size=1, max_size=3000))
def test_a_text_cut_or_with_bytes_after_is_damaged(data, dictionary):
    packed = pack_text(data, dictionary)
    for bad in (packed[:-1], packed + b"\0"):
        with pytest.raises(ValueError, match="is damaged"):
            unpack_text(bad, "a.py", dictionary)


def test_a_dictionary_saves_bytes_on_texts_that_share_their_start():
    head = b"".join(b"import module_%d\n" % n for n in range(40))
    texts = [head + b"value_%d = %d\n" % (n, n * 7) for n in range(20)]
    dictionary = make_dictionary(texts)
    alone = sum(len(pack_text(text)) for text in texts)
    primed = sum(len(pack_text(text, dictionary)) for text in texts)
    assert primed < alone / 3


def test_pack_text_refuses_what_is_not_bytes():
    with pytest.raises(TypeError, match="data must be bytes; got str"):
        pack_text("x = 1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dictionary must be bytes; got str"):
        pack_text(b"x = 1", "x")  # type: ignore[arg-type]


@given(st.lists(st.binary(max_size=3 * SAMPLE_BYTES), max_size=40))
def test_make_dictionary_is_the_start_of_the_first_texts(samples):
    made = make_dictionary(samples)
    # brute force: the samples without NUL in their start, the first SAMPLE_FILES of them
    kept = [s[:SAMPLE_BYTES] for s in samples if s[:SAMPLE_BYTES] and b"\0" not in s[:SAMPLE_BYTES]]
    assert made == b"".join(kept[:SAMPLE_FILES])
    assert len(made) <= DICTIONARY_BYTES


@given(st.integers(0, 500))
def test_sample_paths_spreads_over_the_paths_in_order(count):
    paths = [f"f{n:04}" for n in range(count)]
    chosen = sample_paths(paths)
    assert len(chosen) == min(count, SAMPLE_FILES)
    assert chosen == sorted(set(chosen))  # distinct, in the paths' order
    assert not chosen or chosen[0] == paths[0]
    if count >= SAMPLE_FILES:  # evenly: no gap more than one over count / SAMPLE_FILES
        numbers = [int(path[1:]) for path in chosen] + [count]
        gaps = [b - a for a, b in itertools.pairwise(numbers)]
        assert max(gaps) - min(gaps) <= 1


def tree(root: Path, count: int, tag: str) -> Path:
    root.mkdir(parents=True)
    for n in range(count):
        (root / f"{tag}{n:03}.py").write_text(
            f"# {tag} module\nimport os\nimport sys\nvalue_{n} = os.path.join('{tag}', '{n}')\n"
        )
    return root


def test_a_corpus_makes_its_dictionary_once_and_keeps_it(tmp_path):
    first = tree(tmp_path / "first", 40, "alpha")
    second = tree(tmp_path / "second", 40, "beta")
    db = tmp_path / "c.db"
    with Corpus.create(db, fragments=FragmentOptions(k=3, window=2)) as corpus:
        assert corpus._dictionary == b""
        corpus.sync([str(first)], WALK)
        made = corpus._dictionary
        assert made.startswith(b"# alpha module\n")
        assert len(made) <= DICTIONARY_BYTES
        corpus.sync([str(second)], WALK)  # more files, of other text: the same dictionary
        assert corpus._dictionary == made
        assert corpus.text_dictionary([str(second / "beta000.py")]) == made
        assert corpus.check() == []
        rows = corpus._run("SELECT substr(text, 1, 2) FROM files").fetchall()
        assert len(rows) == 80
        assert all(row[0][1] & 0x20 for row in rows)
    with Corpus.open(db, readonly=True) as corpus:
        assert corpus._dictionary == made
        assert corpus.stored_text(str(first / "alpha007.py")).text.startswith("# alpha")


def test_a_corpus_with_no_dictionary_yet_asked_read_only_refuses(tmp_path):
    db = tmp_path / "c.db"
    Corpus.create(db).close()
    files = sorted(str(path) for path in tree(tmp_path / "t", FEWEST_FILES, "x").iterdir())
    with Corpus.open(db, readonly=True) as corpus:
        assert corpus.text_dictionary([]) == b""
        assert corpus.text_dictionary(files[1:]) == b""  # too few to make one of
        with pytest.raises(PermissionError):
            corpus.text_dictionary(files)


def test_an_older_corpus_compresses_without_a_dictionary(tmp_path):
    files = tree(tmp_path / "t", 5, "gamma")
    with legacy_corpus(tmp_path / "v6.db", 6, FragmentOptions()) as old:
        assert old.text_dictionary([str(files / "gamma000.py")]) == b""
        old.sync([str(files)], WALK)
        rows = old._run("SELECT text FROM files").fetchall()
        assert len(rows) == 5
        assert not any(row[0][1] & 0x20 for row in rows)


def test_a_damaged_or_lost_dictionary_is_reported(tmp_path):
    files = tree(tmp_path / "t", 20, "delta")
    db = tmp_path / "c.db"
    with Corpus.create(db) as corpus:
        corpus.sync([str(files)], WALK)
    with contextlib.closing(sqlite3.connect(db)) as raw, raw:
        raw.execute("UPDATE text_dictionary SET data = data || 'x'")
    with pytest.raises(IndexCorruptError, match="dictionary fails its checksum"):
        Corpus.open(db, readonly=True)
    with contextlib.closing(sqlite3.connect(db)) as raw, raw:
        raw.execute("DELETE FROM text_dictionary")
    with Corpus.open(db, readonly=True) as corpus:  # the texts then cannot be read
        problems = corpus.check()
        assert problems
        assert all("packed against a dictionary" in p for p in problems)


def test_a_reader_opened_before_the_dictionary_was_made_reads_the_texts(tmp_path):
    files = tree(tmp_path / "t", 20, "epsilon")
    db = tmp_path / "c.db"
    Corpus.create(db).close()
    with Corpus.open(db, readonly=True) as reader:
        assert reader._dictionary == b""
        with Corpus.open(db) as writer:  # another connection's first sync makes it
            writer.sync([str(files)], WALK)
            made = writer._dictionary
        assert made
        assert reader.check() == []  # the texts, read against it
        assert reader._dictionary == made


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_among_the_first_files_is_never_opened_to_wait(tmp_path):
    # the sample is opened without waiting, as files are read: a FIFO is left out (a
    # subprocess, so that a regression fails by its timeout rather than hang the tests)
    files = tree(tmp_path / "t", FEWEST_FILES, "zeta")
    os.mkfifo(files / "a_pipe.py")  # first in the walk's order: in the sample
    code = (
        "import sys\n"
        "from samecode.corpus.store import Corpus\n"
        "from samecode.sources.walk import WalkOptions\n"
        "with Corpus.create(sys.argv[1]) as corpus:\n"
        "    report = corpus.sync([sys.argv[2]], WalkOptions(gitignore=False, min_tokens=1))\n"
        "    print(len(report.added), [s.reason for s in report.skipped], corpus._dictionary[:6])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "c.db"), str(files)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": SRC},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{FEWEST_FILES} ['not a regular file'] b'# zeta'"


def test_a_text_packed_against_another_dictionary_is_refused_trusted_or_not(tmp_path):
    files = tree(tmp_path / "t", 20, "eta")
    paths = sorted(str(path) for path in files.iterdir())
    with Corpus.create(tmp_path / "other.db") as other:
        foreign = other.text_dictionary(paths[::-1])  # another sample: other bytes
    db = tmp_path / "c.db"
    with Corpus.create(db) as corpus:
        own = corpus.text_dictionary(paths)
        assert own != foreign
        for dictionary, held in ((foreign, own), (own + b"!", own)):
            (item,) = read_stored(paths[:1], corpus.shingling, None, 1, None, text=True,
                                  dictionary=dictionary)  # fmt: skip
            for trusted in (False, True):
                with pytest.raises(ValueError, match="a dictionary other than this corpus's"):
                    corpus.add([item.document], texts={item.document.path: item.text},
                               trusted=trusted)  # fmt: skip
            assert corpus._dictionary == held
        (item,) = read_stored(paths[:1], corpus.shingling, None, 1, None, text=True,
                              dictionary=own)  # fmt: skip
        assert corpus.add([item.document], texts={item.document.path: item.text}, trusted=True)
        with pytest.raises(TypeError, match="must be bytes; got str"):
            corpus.add([item.document], texts={item.document.path: "text"}, trusted=True)  # type: ignore[dict-item]
        assert corpus.check() == []
    refused = pytest.raises(ValueError, match="a dictionary other than this corpus's")
    with legacy_corpus(tmp_path / "v6.db", 6) as old, refused:  # keeps none: refused there
        old.add([item.document], texts={item.document.path: item.text}, trusted=True)


def test_only_files_that_will_be_read_count_towards_larger_pages(tmp_path, monkeypatch):
    from samecode.corpus import store

    files = tree(tmp_path / "t", 4, "theta")
    (files / "huge.py").write_bytes(b"x = 1\n" * 200_000)  # over max_size: skipped
    monkeypatch.setattr(store, "_LARGE_CORPUS_BYTES", 1_000_000)
    told = []
    monkeypatch.setattr(Corpus, "expect", lambda self, n, size: told.append((n, size)))
    with Corpus.create(tmp_path / "c.db") as corpus:
        corpus.sync([str(files)], WalkOptions(gitignore=False, min_tokens=1, max_size=100_000))
    small = sum(path.stat().st_size for path in files.iterdir() if path.name != "huge.py")
    assert told == [(5, small)]


def test_a_first_small_sync_makes_no_dictionary_and_a_later_one_does(tmp_path):
    few = tree(tmp_path / "few", FEWEST_FILES - 1, "iota")
    more = tree(tmp_path / "more", 30, "kappa")
    db = tmp_path / "c.db"
    with Corpus.create(db) as corpus:
        corpus.sync([str(few)], WALK)  # too few to sample: packed without one
        assert corpus._dictionary == b""
        corpus.sync([str(more)], WALK)
        assert corpus._dictionary.startswith(b"# kappa module")
        flags = dict(corpus._run("SELECT path, substr(text, 2, 1) FROM files").fetchall())
        assert {path: bool(flag[0] & 0x20) for path, flag in flags.items()} == {
            **{os.path.realpath(path): False for path in few.iterdir()},
            **{os.path.realpath(path): True for path in more.iterdir()},
        }
        assert corpus.check() == []  # both kinds read back


def test_convert_packs_the_texts_again_against_a_dictionary_of_them_all(tmp_path):
    few = tree(tmp_path / "few", FEWEST_FILES - 1, "lambda")
    db, new = tmp_path / "c.db", tmp_path / "new.db"
    with Corpus.create(db) as corpus:  # small syncs: no dictionary
        corpus.sync([str(few)], WALK)
        corpus.sync([str(tree(tmp_path / "more", FEWEST_FILES - 1, "mu"))], WALK)
        assert corpus._dictionary == b""
        assert corpus.convert(new) == 2 * (FEWEST_FILES - 1)
    with Corpus.open(new, readonly=True) as converted, Corpus.open(db, readonly=True) as old:
        assert converted._dictionary.startswith(b"# lambda module")
        flags = [row[0][0] & 0x20 for row in converted._run("SELECT substr(text, 2, 1) FROM files")]
        assert all(flags)
        assert len(flags) == 2 * (FEWEST_FILES - 1)
        assert converted.check() == []
        assert list(converted.files()) == list(old.files())
        stored = os.path.realpath(few / "lambda003.py")
        assert converted.stored_text(stored) == old.stored_text(stored)
