"""A corpus that finds candidates by LSH: answers exact and a subset of the truth, its
settings stored and enforced, its rows kept in step and checked, and LSHSettings."""

from __future__ import annotations

import json
import random
import sqlite3
import struct
from array import array
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.store import Corpus
from samecode.hamming.sqlite import IndexCorruptError, IndexFileError
from samecode.minhash import MinHash
from samecode.minhash.lsh import MinHashLSH
from samecode.minhash.oph import OnePermutationMinHash
from samecode.minhash.settings import SKETCHES, LSHSettings
from samecode.scan import Document
from storefiles import run_sql

from reference import naive_corpus_matches, naive_minhash


def document(name: str, shingles: set[int]) -> Document:
    return Document(name, 100, "0" * 64, len(shingles) + 4, array("Q", sorted(shingles)))


def family(seed: int, count: int = 30) -> tuple[list[Document], list[Document]]:
    """Known files, and queries that are each a known file lightly edited."""
    rng = random.Random(seed)
    known, queries = [], []
    for i in range(count):
        base = {rng.getrandbits(64) for _ in range(rng.randrange(20, 200))}
        known.append(document(f"known{i:02}", base))
        edited = set(base)
        for h in rng.sample(sorted(base), len(base) // rng.choice((5, 10, 20, 50))):
            edited.discard(h)
            edited.add(rng.getrandbits(64))
        queries.append(document(f"query{i:02}", edited))
    return known, queries


@pytest.mark.parametrize("scheme", SKETCHES)
def test_lsh_corpus_answers_exactly_and_finds_the_pairs(tmp_path, scheme):
    known, queries = family(7)
    path = tmp_path / "c.db"
    lsh = LSHSettings(scheme, num_perm=64, threshold=0.4)
    with Corpus.create(path, min_threshold=0.7, lsh=lsh) as corpus:
        assert corpus.add(known) == 30
    with Corpus.open(path, readonly=True) as corpus:
        assert corpus.lsh == lsh
        stats = corpus.stats()
        assert (stats["format_version"], stats["candidates"]) == (8, "lsh")
        assert stats["lsh"] == lsh.to_dict()
        for t in (Fraction(7, 10), Fraction(9, 10)):
            got = {(p.a, p.b, p.shared) for p in corpus.match(queries, t)}
            want = naive_corpus_matches(queries, known, t)
            assert got <= want  # never a pair below the threshold, counts exact
            # LSH at 0.4 misses a pair at >= 0.7 with probability < 1e-3 (64 values)
            assert got == want
        with pytest.raises(ValueError, match="Jaccard measure only"):
            corpus.match(queries, measure="containment")
        assert corpus.check() == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.3, 0.5, 0.8]))
def test_lsh_corpus_matches_are_a_subset_of_brute_force(tmp_path_factory, seed, lsh_at):
    known, queries = family(seed, 8)
    path = tmp_path_factory.mktemp("c") / "c.db"
    with Corpus.create(path, min_threshold=0.5, lsh=LSHSettings(threshold=lsh_at)) as corpus:
        corpus.add(known)
        got = {(p.a, p.b, p.shared) for p in corpus.match(queries, 0.5)}
    assert got <= naive_corpus_matches(queries, known, Fraction(1, 2))


def test_lsh_corpus_candidates_are_the_in_memory_index_candidates(tmp_path):
    known, queries = family(11)
    lsh = LSHSettings(num_perm=32, threshold=0.5)
    index = lsh.index()
    with Corpus.create(tmp_path / "c.db", min_threshold=0.05, lsh=lsh) as corpus:
        corpus.add(known)
        for d in known:
            index.insert(d.path, lsh.signature(d.shingles))
        for q in queries:
            signature = lsh.signature(q.shingles)
            got = corpus.lsh_query(signature)
            want = sorted(index.query_ranked(signature), key=lambda kv: (-kv[1], kv[0]))
            assert got == want
            assert corpus.lsh_query(signature, top_k=1) == want[:1]


def test_signatures_follow_datasketch_from_eight_little_endian_bytes():
    hashes = [random.Random(3).getrandbits(64) for _ in range(50)]
    features = [struct.pack("<Q", h) for h in hashes]
    for scheme in ("affine32", "legacy"):
        made = LSHSettings(scheme, num_perm=16, seed=9, threshold=0.5).signature(hashes)
        assert made.hashvalues.tolist() == naive_minhash(features, 16, 9, scheme)
    one = LSHSettings(num_perm=16, seed=9, threshold=0.5).signature(hashes)
    sketch = OnePermutationMinHash(16, 9)
    sketch.update_hashes(hashes)
    assert one == sketch


def test_lsh_query_refuses_signatures_made_otherwise(tmp_path):
    known, _ = family(5, 3)
    lsh = LSHSettings(num_perm=32, seed=2, threshold=0.5)
    with Corpus.create(tmp_path / "c.db", lsh=lsh) as corpus:
        corpus.add(known)
        with pytest.raises(ValueError, match="seed 2 and num_perm 32; got scheme 'affine32'"):
            corpus.lsh_query(MinHash(num_perm=32, seed=2))
        with pytest.raises(ValueError, match="got scheme 'one-permutation', seed 1"):
            corpus.lsh_query(OnePermutationMinHash(32, 1))
        with pytest.raises(ValueError, match="num_perm 64"):
            corpus.lsh_query(OnePermutationMinHash(64, 2))
        with pytest.raises(TypeError, match="expected a MinHash"):
            corpus.lsh_query(b"signature")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="top_k must be >= 0"):
            corpus.lsh_query(lsh.sketch(), top_k=-1)
        assert corpus.lsh_query(lsh.sketch()) == []  # an empty signature meets no file
    with Corpus.create(tmp_path / "p.db") as corpus:
        assert corpus.lsh is None
        with pytest.raises(ValueError, match="by prefixes, not LSH"):
            corpus.lsh_query(lsh.sketch())
    with pytest.raises(TypeError, match="lsh must be LSHSettings"):
        Corpus.create(tmp_path / "x.db", lsh={"scheme": "affine32"})  # type: ignore[arg-type]
    assert not (tmp_path / "x.db").exists()


def test_rows_stay_in_step_through_replace_and_remove(tmp_path):
    known, queries = family(13, 10)
    lsh = LSHSettings(num_perm=32, threshold=0.5)
    with Corpus.create(tmp_path / "c.db", lsh=lsh) as corpus:
        corpus.add(known)
        corpus.add([document(known[0].path, set(queries[0].shingles))])  # replaced
        assert corpus.remove([known[1].path]) == 1
        assert corpus.check() == []
        db = corpus._db  # the test reads the rows themselves
        (signatures,) = db.execute("SELECT count(*) FROM signatures").fetchone()
        (files,) = db.execute("SELECT count(DISTINCT file) FROM buckets").fetchone()
        assert signatures == files == len(corpus) == 9
        hits = [p for p, _ in corpus.lsh_query(lsh.signature(queries[0].shingles))]
        assert known[0].path in hits


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("UPDATE signatures SET vals = zeroblob(128)", "signature"),
        ("DELETE FROM buckets WHERE rowid % 3 = 0", "LSH buckets"),
        ("UPDATE buckets SET bucket = bucket + 1 WHERE rowid = 1", "LSH buckets"),
    ],
)
def test_check_finds_damaged_lsh_rows(tmp_path, statement, problem):
    known, _ = family(17, 4)
    path = tmp_path / "c.db"
    with Corpus.create(path, lsh=LSHSettings(num_perm=32, threshold=0.5)) as corpus:
        corpus.add(known)
    run_sql(path, statement)
    with Corpus.open(path, readonly=True) as corpus:
        problems = corpus.check()
        assert problems
        assert all(f"the {problem} of" in p for p in problems)
        if problem == "signature":
            with pytest.raises(IndexCorruptError, match="signature of file"):
                corpus.lsh_query(corpus.lsh.signature(known[0].shingles))


@pytest.mark.parametrize(
    ("version", "lsh", "message"),
    [
        ("2", None, "lacks lsh"),
        ("1", json.dumps(LSHSettings().to_dict()), "version 1 corpus has no LSH"),
        ("2", '{"scheme": "md5"}', "metadata is refused"),
        ("3", None, "lacks fragments"),
        ("9", None, "format version 9; this samecode reads versions 1, 2, 3, 4, 5, 6, 7, 8"),
    ],
)
def test_metadata_of_another_version_or_kind_is_refused(tmp_path, version, lsh, message):
    path = tmp_path / "c.db"
    Corpus.create(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE samecode_meta SET value = ? WHERE name = 'version'", (version,))
    if lsh is not None:
        raw.execute("INSERT INTO samecode_meta VALUES ('lsh', ?)", (lsh,))
    raw.commit()
    raw.close()
    before = path.read_bytes()
    with pytest.raises(IndexFileError, match=message):
        Corpus.open(path)
    assert path.read_bytes() == before


def test_a_prefix_corpus_is_made_as_version_7(tmp_path):
    with Corpus.create(tmp_path / "c.db") as corpus:
        stats = corpus.stats()
        assert (stats["format_version"], stats["candidates"]) == (8, "prefix")
        assert "prefix_rows" in stats


def test_lsh_settings_are_checked():
    assert LSHSettings(threshold=0.8) == LSHSettings(threshold=0.8, bands=9, rows=13)
    assert LSHSettings(bands=4, rows=8).index().b == 4
    with pytest.raises(ValueError, match="scheme must be one of one-permutation, affine32"):
        LSHSettings("md5")
    with pytest.raises(ValueError, match="seed must be from 0 to 2\\*\\*32 - 1"):
        LSHSettings("affine32", seed=2**40)
    with pytest.raises(ValueError, match="b >= 2"):
        LSHSettings(bands=1, rows=3)
    with pytest.raises(ValueError, match="threshold must be in"):
        LSHSettings(threshold=1.5)
    with pytest.raises(ValueError, match="must be a dict of version, scheme"):
        LSHSettings.from_dict({"scheme": "affine32"})
    with pytest.raises(ValueError, match="must be a dict of version, scheme"):
        LSHSettings.from_dict([1, 2])
    with pytest.raises(ValueError, match="definition version 2; this samecode makes version 1"):
        LSHSettings.from_dict({**LSHSettings().to_dict(), "version": 2})
    with pytest.raises(ValueError, match="take signatures of scheme"):
        LSHSettings().values(MinHash(num_perm=128))
    assert isinstance(LSHSettings().index(), MinHashLSH)


def test_empty_files_get_no_buckets_and_match_nothing(tmp_path):
    empties = [document(f"empty{i}", set()) for i in range(50)]
    with Corpus.create(tmp_path / "c.db", lsh=LSHSettings(num_perm=32, threshold=0.5)) as corpus:
        corpus.add(empties)
        assert corpus.stats()["bucket_rows"] == 0
        assert corpus.match([document("query", set())]) == []
        assert corpus.lsh_query(corpus.lsh.sketch()) == []
        assert corpus.check() == []


@pytest.mark.parametrize("lsh", [None, LSHSettings(num_perm=32, threshold=0.5)])
def test_check_finds_rows_of_files_that_are_gone(tmp_path, lsh):
    known, queries = family(19, 3)
    path = tmp_path / "c.db"
    with Corpus.create(path, lsh=lsh, min_threshold=0.5) as corpus:
        corpus.add(known)
    raw = sqlite3.connect(path)
    raw.execute("DELETE FROM files WHERE path = ?", (known[0].path,))
    raw.commit()
    raw.close()
    with Corpus.open(path, readonly=True) as corpus:
        problems = corpus.check()
        assert problems
        assert all("name files that are gone" in p for p in problems)
        with pytest.raises(IndexCorruptError, match="names file 1, which is gone"):
            corpus.match(queries[:1])
        if lsh is not None:
            with pytest.raises(IndexCorruptError, match="a bucket names file 1"):
                corpus.lsh_query(lsh.signature(queries[0].shingles))


@pytest.mark.parametrize("scheme", SKETCHES)
@pytest.mark.parametrize(
    ("hashes", "error", "message"),
    [
        ([-1], ValueError, "from 0 to 2\\*\\*64 - 1"),
        ([2**64], ValueError, "from 0 to 2\\*\\*64 - 1"),
        (["a"], TypeError, "a hash must be an int; got str"),
        ([True], TypeError, "a hash must be an int; got bool"),
        (5, TypeError, "hashes must be an iterable of ints; got int 5"),
        (b"ab", TypeError, "hashes must be an iterable of ints; got bytes"),
    ],
)
def test_signature_refuses_what_is_not_64_bit_hashes(scheme, hashes, error, message):
    with pytest.raises(error, match=message):
        LSHSettings(scheme).signature(hashes)


def test_equal_values_in_different_bands_are_different_buckets():
    settings = LSHSettings(num_perm=8, threshold=0.5, bands=2, rows=4)
    first, second = struct.pack("<4I", 1, 2, 3, 4), struct.pack("<4I", 5, 6, 7, 8)
    a = settings.buckets(first + second)
    b = settings.buckets(second + first)  # the same bands, in the other order
    c = settings.buckets(first + struct.pack("<4I", 9, 9, 9, 9))
    assert not set(a) & set(b)  # band 0 of one is band 1 of the other: no candidate
    assert a[0] == c[0]
    assert a[1] != c[1]
    assert all(0 <= h < 2**64 for h in a)
