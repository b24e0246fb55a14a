"""The SQLite file layer under every store (issue 20): no open waits on a FIFO, committed
rows survive a kill before the first checkpoint, a store being created is never taken for
a foreign file, refusals and read-only opens leave no side files, and a damaged file is
one IndexCorruptError naming it, never a raw sqlite3 error."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import textwrap
from array import array

import pytest

from samecode.corpus.store import Corpus
from samecode.hamming.sqlite import IndexCorruptError, IndexFileError, SQLiteIndex
from samecode.minhash.minhash import MinHash
from samecode.minhash.settings import LSHSettings
from samecode.minhash.sqlitelsh import SQLiteLSH
from samecode.scan.model import Document
from samecode.store import file as store_file
from storefiles import run_sql

SETTINGS = LSHSettings(scheme="affine32")
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def documents(count, seed=1):
    rng = random.Random(seed)
    return [
        Document(f"f{i}.py", 10, "0" * 64, 100, array("Q", rng.sample(range(1, 1 << 62), 300)))
        for i in range(count)
    ]


def minhash(i):
    made = MinHash()
    made.update(str(i).encode())
    return made


def fill(kind, path, count):
    """A store of ``kind`` at ``path`` holding ``count`` entries, closed."""
    if kind == "corpus":
        with Corpus.create(path) as corpus:
            corpus.add(documents(count))
    elif kind == "index":
        with SQLiteIndex.create(path) as index:
            index.add_many((i, i * 7919) for i in range(count))
    else:
        with SQLiteLSH.create(path, SETTINGS) as lsh:
            lsh.insert_many([(i, minhash(i)) for i in range(count)])


def opened(kind, path, readonly=False):
    if kind == "corpus":
        return Corpus.open(path, readonly=readonly)
    if kind == "index":
        return SQLiteIndex.open(path, readonly=readonly)
    return SQLiteLSH.open(path, readonly=readonly)


KINDS = ["corpus", "index", "lsh"]


def listing(folder):
    return sorted(os.listdir(folder))


# -- 11: a FIFO is refused at once ----------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_store_path_naming_a_fifo_is_refused_not_waited_on(tmp_path, kind):
    fifo = tmp_path / "store.db"
    os.mkfifo(fifo)
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{os.path.dirname(__file__)!r}, {TESTS!r}]
        from test_file import opened
        for readonly in (True, False):
            try:
                opened({kind!r}, {str(fifo)!r}, readonly)
            except Exception as error:
                print(type(error).__name__, error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30
    )
    assert result.stdout.splitlines() == 2 * [
        f"IndexFileError {fifo}: is not a regular file (a FIFO): not a samecode {what}"
        for what in [{"corpus": "corpus", "index": "index", "lsh": "LSH file"}[kind]]
    ], result.stderr


# -- 15: what a killed writer committed is read; creation is atomic; no side files left ----

KILLED = textwrap.dedent(
    """
    import os, signal, sys
    sys.path[:0] = [{here!r}, {tests!r}]
    from test_file import Corpus, SQLiteIndex, SQLiteLSH, SETTINGS, documents, minhash
    kind, path = {kind!r}, {path!r}
    if kind == "corpus":
        store = Corpus.create(path)
        store._db.execute("PRAGMA wal_autocheckpoint = 0")
        store.add(documents(30))
    elif kind == "index":
        store = SQLiteIndex.create(path)
        store._db.execute("PRAGMA wal_autocheckpoint = 0")
        store.add_many((i, i * 7919) for i in range(30))
    else:
        store = SQLiteLSH.create(path, SETTINGS)
        store._db.execute("PRAGMA wal_autocheckpoint = 0")
        store.insert_many([(i, minhash(i)) for i in range(30)])
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


@pytest.mark.parametrize("kind", KINDS)
def test_rows_committed_before_a_kill_and_the_first_checkpoint_are_read(tmp_path, kind):
    path = tmp_path / "store.db"
    script = KILLED.format(here=os.path.dirname(__file__), tests=TESTS, kind=kind, path=str(path))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == -9, result.stderr
    assert os.path.getsize(str(path) + "-wal") > 0  # the rows are in the log only
    for readonly in (True, False):
        with opened(kind, path, readonly) as store:
            assert len(store) == 30
            assert store.check() == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_store_being_created_is_never_seen_half_made(tmp_path, monkeypatch, kind):
    path = tmp_path / "store.db"
    seen = []
    real_connect = store_file.connect

    def connect(where, *args, **kwargs):
        db = real_connect(where, *args, **kwargs)
        if not seen:  # another process looks while the store is being made
            seen.append("looking")
            try:
                opened(kind, path).close()
            except Exception as error:
                seen[0] = error
            else:
                seen[0] = None
        return db

    monkeypatch.setattr(store_file, "connect", connect)
    fill(kind, path, 3)
    monkeypatch.undo()
    assert len(seen) == 1
    assert isinstance(seen[0], FileNotFoundError), seen[0]
    with opened(kind, path) as store:
        assert len(store) == 3
    assert listing(tmp_path) == ["store.db"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_second_of_two_creates_says_the_store_exists(tmp_path, monkeypatch, kind):
    path = tmp_path / "store.db"
    real_connect = store_file.connect
    done = []

    def connect(where, *args, **kwargs):
        if not done:  # another process finishes the same store first
            done.append(True)
            fill(kind, path, 2)
        return real_connect(where, *args, **kwargs)

    monkeypatch.setattr(store_file, "connect", connect)
    with pytest.raises(FileExistsError, match="another process") as caught:
        fill(kind, path, 3)
    monkeypatch.undo()
    assert caught.value.filename == str(path)
    assert listing(tmp_path) == ["store.db"]  # nothing left of the second
    with opened(kind, path) as store:
        assert len(store) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_read_only_opens_leave_no_side_files(tmp_path, kind):
    path = tmp_path / "store.db"
    fill(kind, path, 5)
    before = {name: (tmp_path / name).read_bytes() for name in listing(tmp_path)}
    assert list(before) == ["store.db"]
    with opened(kind, path, readonly=True) as store:
        assert len(store) == 5
        assert store.check() == []
    assert {name: (tmp_path / name).read_bytes() for name in listing(tmp_path)} == before


@pytest.mark.parametrize("kind", KINDS)
def test_refusing_bad_metadata_leaves_no_side_files(tmp_path, kind):
    path = tmp_path / "store.db"
    fill(kind, path, 5)
    run_sql(path, "DELETE FROM samecode_meta WHERE name NOT IN ('format', 'version')")
    before = {name: (tmp_path / name).read_bytes() for name in listing(tmp_path)}
    assert list(before) == ["store.db"]
    for readonly in (True, False):
        with pytest.raises(IndexCorruptError, match="metadata lacks"):
            opened(kind, path, readonly)
    assert {name: (tmp_path / name).read_bytes() for name in listing(tmp_path)} == before


# -- 14: a damaged page is one IndexCorruptError naming the file -------------------------


def damage(path, page):
    with open(path, "r+b") as file:
        file.seek(4096 * page)
        file.write(random.Random(page).randbytes(4096))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("page", [1, 2, 5])
def test_a_damaged_page_is_an_index_corrupt_error_naming_the_file(tmp_path, kind, page):
    path = tmp_path / "store.db"
    fill(kind, path, 200)
    damage(path, page)
    operations = {
        "len": len,
        "check": lambda store: store.check(),
        "all": {
            "corpus": lambda store: store.stats(),
            "index": lambda store: list(store.find_all()),
            "lsh": lambda store: store.query(minhash(3)),
        }[kind],
    }
    outcomes = []
    for readonly in (True, False):
        for name, operation in operations.items():
            try:
                with opened(kind, path, readonly) as store:
                    operation(store)
            except (IndexFileError, sqlite3.Error) as error:
                outcomes.append((name, type(error), str(error)))
    raw = [outcome for outcome in outcomes if issubclass(outcome[1], sqlite3.Error)]
    assert raw == []  # never a raw sqlite3 error
    for name, kind_of_error, message in outcomes:
        assert message.startswith(str(path)), name
        assert "\n" not in message
        if "malformed" in message:
            assert kind_of_error is IndexCorruptError
            assert message.startswith(f"{path}: is damaged")
