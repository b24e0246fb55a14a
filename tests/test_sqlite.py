"""SQLiteIndex: the same answers as HammingIndex, a recorded format, crash safety, readers."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from samecode.halohash import BitAverageHaloHash
from samecode.index import HammingIndex
from samecode.simhash import SimHash
from samecode.sqlite import FORMAT_VERSION, SQLiteIndex

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


@pytest.mark.parametrize(("size", "distance"), [(64, 3), (128, 5), (64, 30), (16, 1)])
def test_same_answers_as_the_memory_index(tmp_path, size, distance):
    rng = random.Random(size + distance)
    items = {}
    for key in range(400):
        if items and rng.random() < 0.4:
            value = rng.choice(list(items.values())) ^ (1 << rng.randrange(size))
        else:
            value = rng.getrandbits(size)
        items[key if key % 3 else f"k{key}"] = value
    memory = HammingIndex(size, distance)
    memory.add_many(items.items())
    path = tmp_path / "f.db"
    with SQLiteIndex.create(path, size, distance, expected_size=400) as index:
        index.add_many(list(items.items())[:200])  # the first load builds indexes after
        for key, value in list(items.items())[200:]:
            index.add(key, value)
        for key in list(items)[::7]:
            assert index.remove(key) == memory.remove(key)
    with SQLiteIndex.open(path, readonly=True) as index:
        assert len(index) == len(memory)
        assert list(index) == list(memory)
        for probe in [rng.getrandbits(size) for _ in range(20)] + list(items.values())[:20]:
            assert index.query(probe) == memory.query(probe)
            assert index.query(probe, distance // 2) == memory.query(probe, distance // 2)
        assert index.find_all() == memory.find_all()
        assert index.clusters() == memory.clusters()
        assert dict(index.items()) == dict(memory.items())


def test_file_records_and_enforces_its_parameters(tmp_path):
    path = tmp_path / "f.db"
    with SQLiteIndex.create(path, 128, 4, kind=BitAverageHaloHash) as index:
        plan = index.plan
        index.add("a", BitAverageHaloHash(b"x y z".split()))
        with pytest.raises(TypeError, match="holds BitAverageHaloHash fingerprints; got a SimHash"):
            index.add("b", SimHash(["x"], size_in_bits=128))
        with pytest.raises(ValueError, match="holds 128-bit fingerprints; got a 64-bit"):
            index.add("b", BitAverageHaloHash(b"x".split(), size_in_bits=64))
        with pytest.raises(KeyError, match="already in the index"):
            index.add_many([("c", 1), ("a", 2)])
        assert "c" not in index  # the failed batch was rolled back
        with pytest.raises(TypeError, match="key must be an int, str or bytes"):
            index.add(1.5, 1)
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT name, value FROM samecode_meta"))
    db.close()
    assert meta["version"] == str(FORMAT_VERSION)
    assert meta["kind"] == "BitAverageHaloHash"
    with SQLiteIndex.open(path) as index:
        assert (index.size_in_bits, index.max_distance, index.kind) == (
            128,
            4,
            "BitAverageHaloHash",
        )
        assert index.plan == plan
        assert len(index) == 1
    with pytest.raises(ValueError, match="has size_in_bits 128; asked for 64"):
        SQLiteIndex.open(path, size_in_bits=64)
    with pytest.raises(ValueError, match="has kind 'BitAverageHaloHash'; asked for 'SimHash'"):
        SQLiteIndex.open(path, kind=SimHash)
    with pytest.raises(FileExistsError):
        SQLiteIndex.create(path)
    with pytest.raises(FileNotFoundError):
        SQLiteIndex.open(tmp_path / "missing.db")
    with SQLiteIndex.open(path, readonly=True) as index, pytest.raises(PermissionError):
        index.add("z", 1)


def run_sql(path, statement):
    """Run one statement on a file behind the index's back."""
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()


def test_refuses_files_that_are_not_an_index(tmp_path):
    other = tmp_path / "other.db"
    run_sql(other, "CREATE TABLE t (x)")
    with pytest.raises(ValueError, match="is not a samecode index"):
        SQLiteIndex.open(other)
    future = tmp_path / "future.db"
    SQLiteIndex.create(future).close()
    run_sql(future, "UPDATE samecode_meta SET value = '99' WHERE name = 'version'")
    with pytest.raises(ValueError, match="format version 99"):
        SQLiteIndex.open(future)


WRITER = textwrap.dedent(
    """
    import random, sys
    sys.path.insert(0, {src!r})
    from samecode.sqlite import SQLiteIndex
    rng = random.Random(1)
    with SQLiteIndex.open({path!r}) as index:
        batch = 0
        while True:
            index.add_many((batch * 2000 + i, rng.getrandbits(64)) for i in range(2000))
            print(batch, flush=True)
            batch += 1
    """
)


def start_writer(path: str) -> subprocess.Popen[str]:
    """A process that adds batches of 2000 to the index at ``path``, printing each number."""
    return subprocess.Popen(
        [sys.executable, "-c", WRITER.format(src=SRC, path=path)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_killed_writer_loses_only_its_open_transaction(tmp_path):
    path = str(tmp_path / "f.db")
    SQLiteIndex.create(path, expected_size=100_000).close()
    writer = start_writer(path)
    assert writer.stdout is not None
    committed = -1
    while committed < 5:  # let several batches commit, then kill it mid-batch
        committed = int(writer.stdout.readline())
    time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    rng = random.Random(1)
    expected = {i: rng.getrandbits(64) for i in range(2000 * (committed + 1))}
    with SQLiteIndex.open(path) as index:
        assert index._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        count = len(index)
        assert count % 2000 == 0
        assert count >= len(expected)
        stored = dict(index.items())
        assert all(stored[k] == v for k, v in expected.items())
        probe = expected[123] ^ 0b101
        assert (123, 2) in index.query(probe)
        index.add("after", 5)  # and it takes writes again
        assert index.query(5, 0) == [("after", 0)]


def test_readers_query_while_a_writer_adds(tmp_path):
    path = str(tmp_path / "f.db")
    with SQLiteIndex.create(path) as index:
        index.add("seed", 0xF0F0)
    writer = start_writer(path)
    try:
        assert writer.stdout is not None
        writer.stdout.readline()
        seen = []
        with SQLiteIndex.open(path, readonly=True) as reader:
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                assert reader.query(0xF0F1) == [("seed", 1)]
                seen.append(len(reader))
        assert seen[-1] > seen[0] > 1  # the writer went on adding meanwhile
    finally:
        writer.kill()
        writer.wait()
        if writer.stdout is not None:
            writer.stdout.close()
