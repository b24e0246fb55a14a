"""SQLiteLSH: the in-memory index's answers from a file, its settings enforced, its rows
checked, and the stores' safety rules."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.hamming.sqlite import IndexCorruptError, IndexFileError
from samecode.minhash import MinHash
from samecode.minhash.oph import OnePermutationMinHash
from samecode.minhash.settings import SKETCHES, LSHSettings
from samecode.minhash.sqlitelsh import SQLiteLSH
from storefiles import run_sql


def signatures(lsh: LSHSettings, seed: int, count: int) -> list:
    """Signatures of random sets, half of them near copies of an earlier one."""
    rng = random.Random(seed)
    sets: list[set[int]] = []
    for i in range(count):
        if i and rng.random() < 0.5:
            base = set(rng.choice(sets))
            for h in rng.sample(sorted(base), len(base) // 8):
                base.discard(h)
                base.add(rng.getrandbits(64))
            sets.append(base)
        else:
            sets.append({rng.getrandbits(64) for _ in range(rng.randrange(5, 120))})
    return [lsh.signature(s) for s in sets]


@pytest.mark.parametrize("scheme", SKETCHES)
def test_answers_are_the_in_memory_index_answers(tmp_path, scheme):
    lsh = LSHSettings(scheme, num_perm=32, threshold=0.5)
    made = signatures(lsh, 3, 60)
    keys = [f"k{i}" if i % 3 else (i if i % 2 else f"b{i}".encode()) for i in range(60)]
    memory = lsh.index()
    path = tmp_path / "lsh.db"
    with SQLiteLSH.create(path, lsh) as store:
        store.insert_many(zip(keys[:40], made[:40]))
        for key, m in zip(keys[40:], made[40:]):
            store.insert(key, m)
        for key, m in zip(keys, made):
            memory.insert(key, m)
        store.remove(keys[0])
        store.remove_many(keys[7::7])
        for key in keys[::7]:
            memory.remove(key)
    with SQLiteLSH.open(path, readonly=True) as store:
        assert (store.b, store.r, store.settings) == (memory.b, memory.r, lsh)
        assert len(store) == len(memory)
        assert list(store.keys()) == memory.keys()
        order = {key: i for i, key in enumerate(memory.keys())}
        for m in made:
            assert store.query(m) == sorted(memory.query(m), key=order.__getitem__)
            want = sorted(memory.query_ranked(m), key=lambda kv: (-kv[1], order[kv[0]]))
            assert store.query_ranked(m) == want
            assert store.query_ranked(m, top_k=2) == want[:2]
        assert store.check() == []


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["insert", "remove"]), max_size=40), st.integers(0, 2**32))
def test_a_sequence_of_changes_matches_the_in_memory_index(tmp_path_factory, steps, seed):
    lsh = LSHSettings(num_perm=16, threshold=0.4)
    made = signatures(lsh, seed, 12)
    memory = lsh.index()
    rng = random.Random(seed)
    with SQLiteLSH.create(tmp_path_factory.mktemp("s") / "lsh.db", lsh) as store:
        for step in steps:
            key = rng.randrange(12)
            if step == "insert" and key not in memory:
                store.insert(key, made[key])
                memory.insert(key, made[key])
            elif step == "remove" and key in memory:
                store.remove(key)
                memory.remove(key)
            assert (key in store) == (key in memory)
        for m in made:
            assert sorted(store.query(m)) == sorted(memory.query(m))
        assert store.check() == []


def test_signatures_made_otherwise_are_refused(tmp_path):
    lsh = LSHSettings(num_perm=32, seed=5, threshold=0.5)
    with SQLiteLSH.create(tmp_path / "lsh.db", lsh) as store:
        with pytest.raises(ValueError, match="got scheme 'affine32', seed 5"):
            store.insert("a", MinHash(num_perm=32, seed=5))
        with pytest.raises(ValueError, match="got scheme 'one-permutation', seed 6"):
            store.query(OnePermutationMinHash(32, 6))
        with pytest.raises(TypeError, match="expected a MinHash"):
            store.insert("a", [1, 2, 3])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="a key must be an int, str or bytes"):
            store.insert(1.5, lsh.sketch())  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="lone surrogate"):
            store.insert("\udc80", lsh.sketch())
        with pytest.raises(TypeError, match="items must be \\(key, signature\\) pairs"):
            store.insert_many([("a",)])  # type: ignore[list-item]
        store.insert("a", lsh.sketch())
        with pytest.raises(ValueError, match="'a' is already in the index"):
            store.insert_many([("b", lsh.sketch()), ("a", lsh.sketch())])
        assert list(store.keys()) == ["a"]  # the refused batch left nothing
        with pytest.raises(ValueError, match="'zz' is not in the index"):
            store.remove("zz")
        with pytest.raises(ValueError, match="'zz' is not in the index"):
            store.remove_many(["a", "zz"])
        assert "a" in store  # the refused batch removed nothing
        with pytest.raises(ValueError, match="is not in the index"):
            store.remove(1.5)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="top_k must be >= 0"):
            store.query_ranked(lsh.sketch(), top_k=-1)
        assert 1.5 not in store
        assert store.check() == []
    with SQLiteLSH.open(tmp_path / "lsh.db", readonly=True) as store:
        with pytest.raises(PermissionError):
            store.insert("c", lsh.sketch())
        with pytest.raises(PermissionError):
            store.remove("a")
    with pytest.raises(TypeError, match="settings must be LSHSettings"):
        SQLiteLSH.create(tmp_path / "x.db", {"scheme": "affine32"})  # type: ignore[arg-type]
    with pytest.raises(FileExistsError):
        SQLiteLSH.create(tmp_path / "lsh.db", lsh)


@pytest.mark.parametrize(
    ("statement", "problem", "queried"),
    [
        ("UPDATE signatures SET vals = zeroblob(128) WHERE key = 'k1'", "fails its checksum", True),
        ("UPDATE signatures SET key = 'other' WHERE key = 'k1'", "fails its checksum", True),
        ("DELETE FROM buckets WHERE rowid % 4 = 0", "buckets of key", False),
        ("DELETE FROM signatures WHERE key = 'k1'", "bucket rows name keys that are gone", True),
    ],
)
def test_damage_is_found(tmp_path, statement, problem, queried):
    lsh = LSHSettings(num_perm=32, threshold=0.5)
    made = signatures(lsh, 9, 6)
    path = tmp_path / "lsh.db"
    with SQLiteLSH.create(path, lsh) as store:
        store.insert_many((f"k{i}", m) for i, m in enumerate(made))
    run_sql(path, statement)
    with SQLiteLSH.open(path, readonly=True) as store:
        problems = store.check()
        assert problems
        assert all(problem in p for p in problems)
        if queried:
            with pytest.raises(IndexCorruptError):
                store.query(made[1])


def test_other_files_are_refused_unchanged(tmp_path):
    other = tmp_path / "other.db"
    run_sql(other, "CREATE TABLE t (x)")
    before = other.read_bytes()
    with pytest.raises(IndexFileError, match="is not a samecode LSH file"):
        SQLiteLSH.open(other)
    assert other.read_bytes() == before
    path = tmp_path / "lsh.db"
    SQLiteLSH.create(path, LSHSettings()).close()
    run_sql(path, "UPDATE samecode_meta SET value = '{}' WHERE name = 'lsh'")
    with pytest.raises(IndexFileError, match="metadata is refused"):
        SQLiteLSH.open(path)
    with pytest.raises(FileNotFoundError):
        SQLiteLSH.open(tmp_path / "missing.db")
