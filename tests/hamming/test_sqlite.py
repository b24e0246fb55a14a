"""SQLiteIndex: the same answers as HammingIndex, a recorded format, crash safety, readers."""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from samecode.fingerprints.simhash import SimHash
from samecode.halohash import BitAverageHaloHash
from samecode.hamming.index import HammingIndex
from samecode.hamming.plan import choose_plan
from samecode.hamming.sqlite import (
    FORMAT_VERSION,
    IndexCorruptError,
    IndexFileError,
    IndexLockedError,
    SQLiteIndex,
)
from storefiles import run_sql

SRC = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src"
)


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
    from samecode.hamming.sqlite import SQLiteIndex
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
        assert index.check() == []
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


# -- hostile files -----------------------------------------------------------------------


def file_state(folder):
    """Every file of a folder with its bytes."""
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder))}


def make_wal_app_db(path):
    run_sql(
        path,
        "PRAGMA journal_mode = WAL",
        "CREATE TABLE notes (body)",
        "INSERT INTO notes VALUES ('mine')",
    )


@pytest.mark.parametrize("readonly", [False, True])
def test_a_refused_file_is_left_byte_for_byte(tmp_path, readonly):
    folder = tmp_path / "files"
    folder.mkdir()
    run_sql(folder / "rollback.db", "CREATE TABLE t (x)")
    make_wal_app_db(folder / "wal.db")
    (folder / "empty.db").write_bytes(b"")
    (folder / "text.db").write_text("not a database\n" * 300)
    before = file_state(folder)
    for name in sorted(before):
        with pytest.raises(IndexFileError, match="is not a samecode index") as caught:
            SQLiteIndex.open(folder / name, readonly=readonly)
        assert isinstance(caught.value, OSError)
        assert isinstance(caught.value, ValueError)
        assert caught.value.filename == str(folder / name)
        assert str(folder / name) in str(caught.value)
    assert file_state(folder) == before  # not one byte, and no side files


def test_every_unusable_file_raises_one_documented_error(tmp_path):
    good = tmp_path / "good.db"
    with SQLiteIndex.create(good) as index:
        index.add_many((i, i * 7919) for i in range(2000))
    data = good.read_bytes()
    (tmp_path / "truncated.db").write_bytes(data[: len(data) // 3])
    no_plan = tmp_path / "no-plan.db"
    no_plan.write_bytes(data)
    run_sql(no_plan, "DELETE FROM samecode_meta WHERE name = 'plan'")
    bad_plan = tmp_path / "bad-plan.db"
    bad_plan.write_bytes(data)
    run_sql(bad_plan, "UPDATE samecode_meta SET value = '{\"blocks\": 1}' WHERE name = 'plan'")
    (tmp_path / "folder.db").mkdir()
    cases = {
        "truncated.db": "damaged|not a samecode index|cannot be used",
        "no-plan.db": "metadata lacks plan",
        "bad-plan.db": "stored plan is refused",
        "folder.db": "is a folder",
    }
    for name, message in cases.items():
        with pytest.raises(IndexFileError, match=message), SQLiteIndex.open(tmp_path / name) as ix:
            ix.find_all()  # a truncated file may open, then fail on reading
    with pytest.raises(IndexFileError, match="cannot create it") as caught:
        SQLiteIndex.create(tmp_path / "no" / "such" / "folder.db")
    assert caught.value.errno == errno.ENOENT
    with pytest.raises(FileExistsError):
        SQLiteIndex.create(tmp_path / "folder.db")
    assert not (tmp_path / "no").exists()


READER = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, {src!r})
    from samecode.hamming.sqlite import SQLiteIndex
    try:
        open({folder!r} + "/probe", "w")
    except OSError:
        pass
    else:
        sys.exit("the folder is writable")
    with SQLiteIndex.open({path!r}, readonly=True) as index:
        print(len(index), index.query(5, 0), index.check())
    print(sorted(os.listdir({folder!r})))
    """
)


def test_readonly_opening_works_in_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "index.db"
    with SQLiteIndex.create(path) as index:
        index.add_many([("a", 5), ("b", 6)])
    before = file_state(folder)
    script = READER.format(src=SRC, folder=str(folder), path=str(path))
    if os.geteuid() == 0:  # root writes anywhere: make the folder a read-only mount
        if shutil.which("unshare") is None:
            pytest.skip("needs unshare to make a read-only folder as root")
        command = [
            "unshare",
            "-m",
            "sh",
            "-c",
            'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$1" -c "$2"',
            str(folder),
            sys.executable,
            script,
        ]
    else:
        folder.chmod(0o555)
        command = [sys.executable, "-c", script]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    finally:
        folder.chmod(0o755)
    if done.returncode and "mount" in done.stderr:
        pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["2 [('a', 0)] []", "['index.db']"]
    assert file_state(folder) == before


CREATOR = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {src!r})
    from samecode.hamming.sqlite import SQLiteIndex
    time.sleep(max(0.0, {start!r} - time.time()))
    try:
        SQLiteIndex.create({path!r}).close()
        print("created")
    except FileExistsError:
        print("exists")
    """
)


def test_two_processes_creating_one_file(tmp_path):
    path = str(tmp_path / "race.db")
    start = time.time() + 1.0
    creators = [
        subprocess.Popen(
            [sys.executable, "-c", CREATOR.format(src=SRC, path=path, start=start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = []
    for creator in creators:
        out, err = creator.communicate()
        assert creator.returncode == 0, err
        results.append(out.strip())
    assert sorted(results) == ["created", "exists", "exists", "exists"]
    with SQLiteIndex.open(path) as index:
        assert index.check() == []


def test_damaged_rows_are_found_not_answered_from(tmp_path):
    path = tmp_path / "f.db"
    with SQLiteIndex.create(path, 64, 3) as index:
        index.add_many([("a", 0xAAAA_0000_0000_00FF), ("b", 0xAAAA_0000_0000_00FE)])
        index.add_many((f"x{i}", i << 32) for i in range(100))
    # A fingerprint changed behind the index's back: a lookup must not answer from it.
    run_sql(path, "UPDATE fingerprints SET fp = x'AAAA0000000000F0' WHERE key = 'b'")
    with SQLiteIndex.open(path) as index:
        with pytest.raises(IndexCorruptError, match="fails its checksum"):
            index.query(0xAAAA_0000_0000_00FF)
        with pytest.raises(IndexCorruptError):
            dict(index.items())
        with pytest.raises(IndexCorruptError):
            index["b"]
        assert index["a"] == 0xAAAA_0000_0000_00FF
        assert any("fails its checksum" in p for p in index.check())
    # A table key changed: lookups would miss the row; check() says so.
    run_sql(path, "UPDATE fingerprints SET fp = x'AAAA0000000000FE' WHERE key = 'b'")
    run_sql(path, "UPDATE fingerprints SET t0 = t0 + 1 WHERE key = 'x7'")
    with SQLiteIndex.open(path) as index:
        problems = index.check()
        assert any("x7" in p for p in problems)


def test_flipped_bits_in_the_file_are_detected(tmp_path):
    path = tmp_path / "f.db"
    fingerprints = {f"key{i:03}": random.Random(i).getrandbits(64) | 1 << 63 for i in range(300)}
    with SQLiteIndex.create(path, 64, 3) as index:
        index.add_many(fingerprints.items())
    data = bytearray(path.read_bytes())
    target = fingerprints["key150"].to_bytes(8, "big")
    at = data.find(target)
    assert at > 0
    data[at + 3] ^= 0x10  # one bit of one stored fingerprint
    path.write_bytes(bytes(data))
    with SQLiteIndex.open(path) as index:
        assert index.check() != []
        with pytest.raises(IndexCorruptError):
            index.find_all()


def test_a_second_writer_gets_a_clear_lock_error(tmp_path):
    path = tmp_path / "f.db"
    SQLiteIndex.create(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with SQLiteIndex.open(path, timeout=0.2) as index:
            with pytest.raises(IndexLockedError, match=r"locked by another writer .* timeout"):
                index.add("a", 1)
            with pytest.raises(IndexLockedError):
                index.remove("a")
            assert len(index) == 0  # reading is never blocked
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with pytest.raises(ValueError, match="timeout"):
        SQLiteIndex.open(path, timeout=-1)


def test_keys_that_cannot_be_stored_are_refused_at_the_call(tmp_path):
    with SQLiteIndex.create(tmp_path / "f.db") as index:
        with pytest.raises(ValueError, match="lone surrogate"):
            index.add("bad \udcff", 1)
        with pytest.raises(ValueError, match="lone surrogate"):
            index.add_many([("ok", 1), ("\ud800", 2)])
        assert len(index) == 0
        assert "\udcff" not in index
        with pytest.raises(KeyError):
            index["\udcff"]
        with pytest.raises(KeyError):
            index.remove("\udcff")


def test_a_version_1_file_is_read_and_written(tmp_path):
    path = tmp_path / "v1.db"
    plan = choose_plan(64, 3, 1000, purpose="sqlite")
    db = sqlite3.connect(path)
    columns = "".join(f", t{i} INTEGER NOT NULL" for i in range(len(plan.tables)))
    db.execute("CREATE TABLE samecode_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(f"CREATE TABLE fingerprints (key PRIMARY KEY NOT NULL, fp BLOB NOT NULL{columns})")
    for i in range(len(plan.tables)):
        db.execute(f"CREATE INDEX fingerprints_t{i} ON fingerprints (t{i})")
    meta = {
        "format": "samecode-hamming-index",
        "version": "1",
        "size_in_bits": "64",
        "max_distance": "3",
        "kind": "",
        "plan": plan.to_json(),
    }
    db.executemany("INSERT INTO samecode_meta VALUES (?, ?)", meta.items())
    marks = ", ".join("?" * (2 + len(plan.tables)))
    db.execute(
        f"INSERT INTO fingerprints VALUES ({marks})", ("old", (5).to_bytes(8, "big"), *plan.keys(5))
    )
    db.commit()
    db.close()
    with SQLiteIndex.open(path) as index:
        assert index.query(4) == [("old", 1)]
        index.add("new", 7)
        assert index.query(5, 1) == [("old", 0), ("new", 1)]
        assert index.check() == ["format version 1: rows carry no checksums; not checked"]
