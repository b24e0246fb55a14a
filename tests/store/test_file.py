"""The SQLite file layer under every store (issue 20): no open waits on a FIFO, committed
rows survive a kill before the first checkpoint, a store being created is never taken for
a foreign file, refusals and read-only opens leave no side files, and a damaged file is
one IndexCorruptError naming it, never a raw sqlite3 error."""

from __future__ import annotations

import contextlib
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


# -- a writer out of WAL mode (a corpus compacting): waited on while at work; its change
# rolled back, where it was killed, by the next opening ---------------------------------

WRITER = textwrap.dedent(
    """
    import os, signal, sqlite3, sys
    db = sqlite3.connect({path!r}, isolation_level=None)
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("PRAGMA cache_size = 2")  # changed pages spill into the file before a commit
    db.execute("BEGIN IMMEDIATE")
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        db.execute(f"DELETE FROM {{table}}")
    print("holding", flush=True)
    sys.stdin.read()  # until told to end
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def opened_within(kind, path, readonly, timeout=0.3):
    if kind == "corpus":
        return Corpus.open(path, readonly=readonly, timeout=timeout)
    if kind == "index":
        return SQLiteIndex.open(path, readonly=readonly, timeout=timeout)
    return SQLiteLSH.open(path, readonly=readonly, timeout=timeout)


def writing_only_ro(monkeypatch):
    """This process may not write the file (as another user): a read-write connection
    fails as SQLite says then."""
    connect = store_file.connect

    def read_only(path, mode, timeout, immutable=False):
        if mode != "ro":
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return connect(path, mode, timeout, immutable)

    monkeypatch.setattr(store_file, "connect", read_only)
    monkeypatch.setattr(store_file.os, "access", lambda path, mode: False)  # nor its folder


@pytest.mark.parametrize("kind", KINDS)
def test_a_writer_out_of_wal_mode_is_waited_on_and_its_killed_change_rolled_back(
    tmp_path, monkeypatch, kind
):
    path = tmp_path / "store.db"
    fill(kind, path, 300)
    with opened(kind, path) as store:
        held = len(store)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER.format(path=str(path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline() == "holding\n"
        assert os.path.getsize(f"{path}-journal") > 0
        # at work: told it is locked, whatever this process may write (never "damaged",
        # never read as it is, half written, nor its journal taken for a killed writer's)
        for readonly in (True, False):
            with pytest.raises(store_file.IndexLockedError, match="is locked"):
                opened_within(kind, path, readonly)
        with monkeypatch.context() as patched:
            writing_only_ro(patched)
            with pytest.raises(store_file.IndexLockedError, match="is locked"):
                opened_within(kind, path, True)
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
        writer.stdout.close()
    assert writer.returncode == -9
    # killed: its journal is hot; where this process may not write, it says so
    with monkeypatch.context() as patched:
        writing_only_ro(patched)
        with pytest.raises(IndexFileError, match="killed writer left half made") as refused:
            opened_within(kind, path, True)
        assert not isinstance(refused.value, IndexCorruptError)
    assert os.path.getsize(f"{path}-journal") > 0  # kept
    for readonly in (True, False):  # rolled back by the first opening, in WAL mode again
        with opened(kind, path, readonly) as store:
            assert len(store) == held
            assert store.check() == []
        assert not os.path.exists(f"{path}-journal")
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as file:
        assert file.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_the_immutable_vet_stands_aside_for_a_writer_that_began_while_it_read(tmp_path):
    path = tmp_path / "store.db"
    fill("corpus", path, 10)

    def torn(db):  # what a read of a file being rewritten may give, a writer begun
        open(f"{path}-journal", "wb").close()
        raise IndexFileError(str(path), "is not a samecode corpus")

    assert store_file._vet(str(path), 1.0, torn) is None  # judged by the real connection
    os.remove(f"{path}-journal")

    def foreign(db):
        raise IndexFileError(str(path), "is not a samecode corpus")

    with pytest.raises(IndexFileError, match="is not a samecode corpus"):
        store_file._vet(str(path), 1.0, foreign)


def test_a_locked_file_is_never_read_as_immutable_instead(tmp_path, monkeypatch):
    # A read-only folder's file is read as immutable where a plain read-only connection
    # cannot open it; not where that connection is told a writer holds the file (one
    # that keeps no journal on disk, here, so that nothing else gives it away).
    path = tmp_path / "store.db"
    fill("corpus", path, 30)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA journal_mode = MEMORY")
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("DELETE FROM files WHERE id = 1")  # the lock taken, and kept
        assert not any(os.path.exists(f"{path}{side}") for side in ("-wal", "-journal"))
        monkeypatch.setattr(store_file.os, "access", lambda path, mode: False)
        with pytest.raises(store_file.IndexLockedError, match="is locked"):
            Corpus.open(path, readonly=True, timeout=0.3)
    finally:
        holder.close()
