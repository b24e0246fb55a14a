"""Private: SQLite files that samecode keeps (Hamming indexes, corpora), opened safely.

Both stores share the same rules, held here:

* only a regular file is opened (a FIFO or device named as a store is refused at once,
  never waited on);
* a file is vetted before anything may write to it: through an immutable read-only
  connection when it has no write-ahead log beside it (so a refused file is left byte for
  byte, and gets no side files), and through an ordinary read-only connection, which reads
  the log as SQLite does, when it has one (rows a killed writer committed before the first
  checkpoint are in the log only);
* read-only opening writes nothing to the file, in a read-only folder too, and leaves no
  ``-wal`` or ``-shm`` file that was not there before (nor does a refusal): SQLite's own
  clean-up removes them, a connection that is the last to close the file. The one
  exception is a change a writer killed out of WAL mode left half made (only compacting
  a corpus leaves WAL mode): any opening first has SQLite roll it back from its journal,
  as a connection that may write does, and puts the file back in WAL mode;
* a new file is made under a temporary name beside its path (``.<name>.creating-...``)
  and linked into place only when complete, so no one sees it half made, and of two
  processes creating it one wins and the other is told it exists;
* every SQLite error, raised when a statement runs or when its rows are fetched, becomes
  an :class:`IndexFileError` that names the path and says what it means in one line (a
  damaged page: :class:`IndexCorruptError`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import sqlite3
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import quote

from samecode._validation import describe
from samecode.errors import SamecodeError, SamecodeTypeError, SamecodeValueError

__all__ = [
    "IndexCorruptError",
    "IndexFileError",
    "IndexLockedError",
    "Statements",
    "StoreFile",
    "check_key",
    "check_timeout",
    "claim",
    "connect",
    "create_store",
    "file_error",
    "findable",
    "key_bytes",
    "open_store",
    "read_meta",
    "release",
    "row_crc",
    "signed64",
    "storable",
    "unsigned64",
]

_T = TypeVar("_T")
_S = TypeVar("_S", bound="StoreFile")
_LOOKUP = 500  # values looked up per statement (SQLite's limit on parameters is 999+)


class IndexFileError(SamecodeError, OSError, ValueError):
    """A file cannot be used as a samecode index; the message names the path and why.

    It is an :class:`OSError` (``filename`` is the path) and a :class:`ValueError` (a file
    that is not what it should be is a bad value), so either ``except`` clause catches it.
    """

    def __init__(self, path: str, cause: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, cause, path)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.filename, self.strerror, self.errno)


class IndexLockedError(IndexFileError):
    """Another connection holds the write lock of a file for longer than the timeout."""


class IndexCorruptError(IndexFileError):
    """A row, or the file's structure, fails its check: the file is damaged."""


# Their public home: tracebacks and pickles name samecode.hamming.sqlite, which re-exports them.
for _error in (IndexFileError, IndexLockedError, IndexCorruptError):
    _error.__module__ = "samecode.hamming.sqlite"


class _Cursor(sqlite3.Cursor):
    """A cursor whose fetches raise :class:`IndexFileError`: SQLite reads rows as they are
    fetched, so a damaged page shows there, after the statement ran."""

    path = ""
    timeout = 0.0

    def _error(self, error: sqlite3.Error) -> IndexFileError:
        return file_error(self.path, error, self.timeout)

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as error:
            raise self._error(error) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as error:
            raise self._error(error) from None

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size)
        except sqlite3.Error as error:
            raise self._error(error) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as error:
            raise self._error(error) from None


class StoreFile:
    """What every samecode store file is: an open connection, its path, whether it may
    be written, and how its statements and transactions run."""

    #: Whether closing should remove the side files a read-only connection made.
    _tidy = False

    def __init__(self, db: sqlite3.Connection, path: str, readonly: bool, timeout: float):
        self._db = db
        self._path = path
        self._readonly = readonly
        self._timeout = timeout

    @property
    def path(self) -> str:
        """The file's path."""
        return self._path

    def close(self) -> None:
        """Close the file; the store cannot be used afterwards."""
        self._db.close()
        if self._tidy:
            self._tidy = False
            _tidy(self._path)

    @classmethod
    def _create_path(
        cls: type[_S],
        path: str,
        timeout: float,
        what: str,
        statements: Sequence[str],
        meta: Sequence[tuple[str, str]],
    ) -> _S:
        """:func:`create_store` for a store whose constructor takes ``(connection, path,
        readonly, timeout)``."""
        return create_store(
            path,
            timeout,
            what,
            statements,
            meta,
            lambda db, read_only: cls(db, path, read_only, timeout),
        )

    @classmethod
    def _open_path(
        cls: type[_S], path: str | os.PathLike[str], readonly: bool, timeout: float, what: str
    ) -> _S:
        """:func:`open_store` for a store whose constructor takes ``(connection, path,
        readonly, timeout)``: the timeout checked, the store made read-only to vet it."""
        where = os.fspath(path)
        seconds = check_timeout(timeout)
        return open_store(
            where,
            readonly,
            seconds,
            lambda db: cls(db, where, True, seconds),
            lambda db, read_only: cls(db, where, read_only, seconds),
            what,
        )

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Cursor:
        """Execute one statement, with SQLite's errors as :class:`IndexFileError`, those of
        fetching its rows included."""
        try:
            cursor = self._db.cursor(_Cursor)
            cursor.path, cursor.timeout = self._path, self._timeout
            cursor.execute(sql, tuple(parameters))
        except sqlite3.Error as error:
            raise file_error(self._path, error, self._timeout) from None
        return cursor

    def _many(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        """Execute one statement for many rows, with SQLite's errors as
        :class:`IndexFileError`."""
        try:
            self._db.executemany(sql, rows)
        except sqlite3.Error as error:
            raise file_error(self._path, error, self._timeout) from None

    def _lookup(self, sql: str, values: list[int]) -> set[int]:
        """The first column of ``sql`` (with ``{}`` for a list of marks) over ``values``,
        ``_LOOKUP`` at a time."""
        return {row[0] for row in self._rows_in(sql, values)}

    def _rows_in(self, sql: str, values: Sequence[Any]) -> Iterator[Any]:
        """The rows of ``sql`` (with ``{}`` for a list of marks, as in ``IN ({})``) over
        ``values``, ``_LOOKUP`` at a time: those of the first part of the values, then
        of the next."""
        for start in range(0, len(values), _LOOKUP):
            chunk = values[start : start + _LOOKUP]
            yield from self._run(sql.format(", ".join("?" * len(chunk))), chunk).fetchall()

    @property
    def _statements(self) -> Statements:
        """Its statements, for the tables a collaborator keeps in the file."""
        return Statements(self)

    def _check_writable(self) -> None:
        if self._readonly:
            raise PermissionError(errno.EACCES, "is open read-only", self._path)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: committed at the end, rolled back on any exception
        (an interrupt included), so the file holds all of it or none."""
        self._check_writable()
        self._run("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # the transaction may be gone already
                self._db.execute("ROLLBACK")
            raise
        self._run("COMMIT")


class Statements:
    """The statements of an open :class:`StoreFile`, for a part of a store that keeps
    tables of its own in the file (a corpus's candidate index): SQLite's errors come as
    :class:`IndexFileError`, as the store's own do.

    :param store: the open store.
    """

    def __init__(self, store: StoreFile) -> None:
        self._store = store

    @property
    def path(self) -> str:
        """The store's path, for errors."""
        return self._store.path

    def run(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Cursor:
        """Execute one statement (:meth:`StoreFile._run`)."""
        return self._store._run(sql, parameters)

    def many(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        """Execute one statement for many rows."""
        self._store._many(sql, rows)

    def lookup(self, sql: str, values: list[int]) -> set[int]:
        """The first column of ``sql`` (``{}`` for a list of marks) over ``values``."""
        return self._store._lookup(sql, values)

    def rows_in(self, sql: str, values: Sequence[Any]) -> Iterator[Any]:
        """The rows of ``sql`` (``{}`` for a list of marks, as in ``IN ({})``) over
        ``values``, a few hundred values a statement (within SQLite's limit on
        parameters), in the order of those parts.

        >>> import sqlite3
        >>> store = StoreFile(sqlite3.connect(":memory:"), ":memory:", False, 30.0)
        >>> sql = Statements(store)
        >>> _ = sql.run("CREATE TABLE t (n INTEGER)")
        >>> sql.many("INSERT INTO t VALUES (?)", [(n,) for n in range(3000)])
        >>> even = range(0, 3000, 2)
        >>> rows = list(sql.rows_in("SELECT n FROM t WHERE n IN ({}) ORDER BY n", even))
        >>> len(rows), rows[:2], rows[-1]
        (1500, [(0,), (2,)], (2998,))
        >>> store.close()
        """
        return self._store._rows_in(sql, values)

    def roll_back_if_open(self) -> None:
        """Roll back a transaction left open (a statement inside it failed)."""
        if self._store._db.in_transaction:
            self._store._db.execute("ROLLBACK")


def signed64(value: int) -> int:
    """An unsigned 64-bit value as the signed one SQLite's INTEGER holds."""
    return value - (1 << 64) if value >= 1 << 63 else value


def unsigned64(value: int) -> int:
    """:func:`signed64` undone."""
    return value + (1 << 64) if value < 0 else value


def row_crc(key: int | str | bytes, *parts: bytes) -> int:
    """The CRC-32 a keyed row carries: of its key (typed, length first), then ``parts``."""
    encoded = key_bytes(key)
    return zlib.crc32(b"".join([len(encoded).to_bytes(4, "big"), encoded, *parts]))


def storable(key: object) -> bool:
    """Whether ``key`` has a type the file stores: an int (not a bool), str or bytes."""
    return isinstance(key, (int, str, bytes)) and not isinstance(key, bool)


def check_key(key: object) -> None:
    """Raise for a key a store cannot hold (see :func:`storable`; ints of 64 bits, valid
    Unicode)."""
    if not storable(key):
        raise SamecodeTypeError(f"a key must be an int, str or bytes; got {describe(key)}")
    if isinstance(key, int) and not -(2**63) <= key < 2**63:
        raise SamecodeValueError(f"an int key must fit in 64 bits (signed); got {key!r}")
    if isinstance(key, str):
        try:
            key.encode("utf-8")
        except UnicodeEncodeError as error:
            raise SamecodeValueError(
                f"a str key must be valid Unicode (SQLite stores UTF-8); {key!r} has a "
                f"lone surrogate at index {error.start}"
            ) from None


def findable(key: object) -> bool:
    """Whether ``key`` could be in a file (the lookups' test: no error for others)."""
    try:
        check_key(key)
    except (TypeError, ValueError):
        return False
    return True


def key_bytes(key: int | str | bytes) -> bytes:
    """A key as bytes that tell its type (for checksums)."""
    if isinstance(key, int):
        return b"i" + key.to_bytes(8, "big", signed=True)
    if isinstance(key, str):
        return b"s" + key.encode("utf-8")
    return b"b" + bytes(key)


def check_timeout(timeout: object) -> float:
    """A lock timeout in seconds, checked."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise SamecodeTypeError(f"timeout must be a number of seconds; got {describe(timeout)}")
    if not 0 <= timeout < 10**9:
        raise SamecodeValueError(f"timeout must be from 0 to 1e9 seconds; got {timeout!r}")
    return float(timeout)


def connect(path: str, mode: str, timeout: float, immutable: bool = False) -> sqlite3.Connection:
    """A connection to ``path`` in ``mode`` (``ro``, ``rw`` or ``rwc``), autocommit."""
    uri = f"file:{quote(os.path.abspath(path))}?mode={mode}" + ("&immutable=1" if immutable else "")
    db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=timeout)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        if mode != "ro":
            db.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        db.close()
        raise
    return db


def _read_first(
    path: str, mode: str, timeout: float, immutable: bool = False
) -> sqlite3.Connection:
    """:func:`connect`, and the first read (where SQLite takes its locks, reads a log,
    and, for a connection that may write, rolls back a killed writer's journal); the
    connection closed if it fails.

    :raises sqlite3.Error: as SQLite does.
    """
    db = connect(path, mode, timeout, immutable)
    try:
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except BaseException:
        db.close()
        raise
    return db


def read_meta(
    db: sqlite3.Connection,
    path: str,
    kind: str,
    versions: Sequence[str],
    required: Sequence[str],
    what: str,
) -> dict[str, str]:
    """The ``samecode_meta`` table of a file, checked to be of format ``kind`` (a
    ``what``, in messages) and a readable version, with every ``required`` entry.

    :raises IndexFileError: if it is not such a file (or not a database at all).
    :raises IndexCorruptError: if an entry is missing.
    """
    try:
        rows = db.execute("SELECT name, value FROM samecode_meta").fetchall()
    except sqlite3.DatabaseError as error:
        raise file_error(path, error, 0.0, f"is not a {what}") from None
    meta = {str(name): str(value) for name, value in rows}
    if meta.get("format") != kind:
        raise IndexFileError(path, f"is not a {what} (format {meta.get('format')!r})")
    if meta.get("version") not in versions:
        raise IndexFileError(
            path,
            f"has {what} format version {meta.get('version')}; this samecode reads "
            f"version{'s' if len(versions) > 1 else ''} {', '.join(versions)}",
        )
    missing = [name for name in required if name not in meta]
    if missing:
        raise IndexCorruptError(path, f"its metadata lacks {', '.join(missing)}")
    return meta


def open_store(
    path: str,
    readonly: bool,
    timeout: float,
    vet: Callable[[sqlite3.Connection], object],
    make: Callable[[sqlite3.Connection, bool], _T],
    what: str,
) -> _T:
    """Open an existing store file safely; return ``make(connection, readonly)``.

    ``vet(connection)`` raises for a file that is not of this kind; it first sees the
    file through an immutable connection (nothing written, not even side files), then
    ``make`` builds the store on a read-only connection (and checks what it was asked
    for); only then, unless ``readonly``, is the file opened for writing.

    A read-only store, or a refusal, leaves no side file that was not there before.

    :raises FileNotFoundError: if ``path`` does not exist.
    :raises IndexFileError: if it is a folder or not a regular file, not of this kind,
        damaged or unopenable.
    """
    _check_regular(path, what)
    if os.path.lexists(path + "-journal") and not _readable(path, timeout):
        _roll_back(path, timeout)
    tidy = not any(os.path.lexists(path + side) for side in ("-wal", "-shm"))
    try:
        store = _open_store(path, readonly, timeout, vet, make)
    except BaseException:
        if tidy:
            _tidy(path)
        raise
    if readonly and tidy and isinstance(store, StoreFile):
        store._tidy = True
    return store


def _check_regular(path: str, what: str) -> None:
    """Refuse a path that is not a regular file, before SQLite opens (and waits on) it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT, f"does not exist; create the {what} first", path
        ) from None
    except OSError as error:
        raise IndexFileError(
            path, f"cannot be opened: {error.strerror}", error.errno or errno.EACCES
        ) from None
    if stat.S_ISDIR(mode):
        raise IndexFileError(path, f"is a folder, not a {what} file", errno.EISDIR)
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a special file"
        )
        raise IndexFileError(path, f"is not a regular file ({kind}): not a {what}")


def _readable(path: str, timeout: float) -> bool:
    """Whether a read-only connection reads the file: ``False`` where a killed writer's
    journal must be rolled back first (a read-only connection cannot).

    :raises IndexLockedError: if a writer at work holds it past the timeout (its journal
        is no killed writer's).
    """
    try:
        _read_first(path, "ro", timeout).close()
    except sqlite3.Error as error:
        found = file_error(path, error, timeout)
        if isinstance(found, IndexLockedError):
            raise found from None
        return False
    return True


def _roll_back(path: str, timeout: float) -> None:
    """Let SQLite roll back a change a writer killed out of WAL mode left half made (a
    file is out of WAL mode only while :meth:`Corpus.compact
    <samecode.corpus.store.Corpus.compact>` changes its pages), from the rollback
    journal beside it: the first read of a connection that may write does it, and puts
    the file back in WAL mode. (A read-only connection cannot, and an immutable one
    would read the half-made file.) A journal a writer at work holds is left alone: the
    read waits for it, as any other.

    :raises IndexFileError: if the file cannot be written (the journal stays: deleting
        it would leave the change half made), or is locked past the timeout.
    """
    try:
        db = _read_first(path, "rw", timeout)
        try:
            _in_wal_mode(db)
        finally:
            db.close()
    except sqlite3.Error as error:
        raise _unrolled(path, error, timeout) from None


def _unrolled(path: str, error: sqlite3.Error, timeout: float) -> IndexFileError:
    found = file_error(path, error, timeout)
    if isinstance(found, IndexLockedError):
        return found
    return IndexFileError(
        path,
        f"has a change a killed writer left half made ({os.path.basename(path)}-journal "
        f"beside it), which cannot be rolled back here: {error}; open it once where the "
        "file and its folder may be written (keep the journal: it holds what to restore)",
        found.errno or errno.EIO,
    )


def _in_wal_mode(db: sqlite3.Connection) -> None:
    """Put the file of a connection that may write back in WAL mode, where a killed
    :meth:`Corpus.compact <samecode.corpus.store.Corpus.compact>` left it out (a store
    is made in WAL mode and samecode keeps it so). Where another connection holds it
    past the timeout, it stays as it is: it works so too, and the next opening tries
    again."""
    (mode,) = db.execute("PRAGMA journal_mode").fetchone()
    if str(mode).lower() != "wal":
        with contextlib.suppress(sqlite3.OperationalError):
            db.execute("PRAGMA journal_mode = WAL").fetchall()


def _tidy(path: str) -> None:
    """Remove the ``-wal`` and ``-shm`` files a read-only connection left beside ``path``
    the way SQLite does: a read-write connection that is the last to close the file
    removes them (while another connection has the file open, they stay, as they must)."""
    if not any(os.path.lexists(path + side) for side in ("-wal", "-shm")):
        return
    with contextlib.suppress(sqlite3.Error):
        _read_first(path, "rw", 0.0).close()


def _open_store(
    path: str,
    readonly: bool,
    timeout: float,
    vet: Callable[[sqlite3.Connection], object],
    make: Callable[[sqlite3.Connection, bool], _T],
) -> _T:
    """:func:`open_store` once the path is known to be a regular file."""
    _vet(path, timeout, vet)
    checking = _open_readonly(path, timeout)
    store = _made(make, checking, True, path, timeout)
    if readonly:
        return store
    checking.close()
    try:
        db = connect(path, "rw", timeout)
        _in_wal_mode(db)
    except sqlite3.Error as error:
        raise file_error(path, error, timeout) from None
    return _made(make, db, False, path, timeout)


def create_store(
    path: str,
    timeout: float,
    what: str,
    statements: Sequence[str],
    meta: Sequence[tuple[str, str]],
    make: Callable[[sqlite3.Connection, bool], _T],
) -> _T:
    """Make a new store file: under a temporary name beside ``path``, in WAL mode and
    one exclusive transaction, create ``samecode_meta`` (filled with ``meta``) and run
    ``statements``; close it, link it to ``path`` (which fails if ``path`` exists: of two
    processes, one wins), and return ``make(connection, False)`` on a connection to
    ``path``. No one sees the file half made; a failure removes the temporary file.

    :raises FileExistsError: if ``path`` exists, or another process made it meanwhile.
    :raises IndexFileError: if the file cannot be made.
    """
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, f"exists; open the {what} instead", path)
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.creating-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except OSError as error:
        raise IndexFileError(
            path, f"cannot create it: {error.strerror}", error.errno or errno.EIO
        ) from None
    try:
        db = connect(temporary, "rw", timeout)
        try:
            db.execute("PRAGMA journal_mode = WAL")
            with db:
                db.execute("BEGIN EXCLUSIVE")
                db.execute(
                    "CREATE TABLE samecode_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
                )
                for statement in statements:
                    db.execute(statement)
                db.executemany("INSERT INTO samecode_meta VALUES (?, ?)", meta)
        finally:
            db.close()  # the only connection: all in the file, side files removed
        _publish(temporary, path, what)
    except BaseException as error:
        release(temporary)
        if isinstance(error, sqlite3.Error):
            raise file_error(path, error, timeout) from None
        raise
    release(temporary)
    try:
        db = connect(path, "rw", timeout)
    except sqlite3.Error as error:
        raise file_error(path, error, timeout) from None
    return _made(make, db, False, path, timeout)


def _publish(temporary: str, path: str, what: str) -> None:
    """Give the finished file at ``temporary`` its name ``path``, if no one has."""
    try:
        os.link(temporary, path)
        return
    except FileExistsError:
        raise FileExistsError(
            errno.EEXIST,
            f"exists: another process made it meanwhile; open the {what} instead",
            path,
        ) from None
    except OSError:  # a file system without hard links: a rename, if the name is free
        pass
    if os.path.lexists(path):
        raise FileExistsError(
            errno.EEXIST,
            f"exists: another process made it meanwhile; open the {what} instead",
            path,
        )
    try:
        os.rename(temporary, path)
    except OSError as error:
        raise IndexFileError(
            path, f"cannot create it: {error.strerror}", error.errno or errno.EIO
        ) from None


def _made(
    make: Callable[[sqlite3.Connection, bool], _T],
    db: sqlite3.Connection,
    readonly: bool,
    path: str,
    timeout: float,
) -> _T:
    """``make(db, readonly)``, the connection closed if it fails."""
    try:
        return make(db, readonly)
    except sqlite3.Error as error:
        db.close()
        raise file_error(path, error, timeout) from None
    except BaseException:
        db.close()
        raise


def _vet(path: str, timeout: float, vet: Callable[[sqlite3.Connection], object]) -> None:
    """Refuse a file that is not of this kind without writing anything, not even
    SQLite's side files, through an immutable connection. That connection ignores a
    write-ahead log, so it only judges a file without one (then all the file holds is in
    the file); a file with a log (a writer at work, or killed before its checkpoint) is
    judged by the real, read-only connection, which reads the log."""
    if _being_written(path):
        return
    try:
        db = connect(path, "ro", timeout, immutable=True)
    except sqlite3.Error:
        return
    try:
        vet(db)
    except (sqlite3.Error, IndexFileError) as error:
        if _being_written(path):  # a writer began meanwhile: what was read may be torn
            return
        if isinstance(error, IndexFileError):
            raise
        raise file_error(path, error, timeout) from None
    finally:
        db.close()


def _being_written(path: str) -> bool:
    """Whether ``path`` has a write-ahead log or a rollback journal beside it: a writer
    at work (or killed), whose changes only a connection that reads them as SQLite does
    sees whole."""
    return any(os.path.lexists(path + side) for side in ("-wal", "-journal"))


def _open_readonly(path: str, timeout: float) -> sqlite3.Connection:
    """A read-only connection that writes nothing; in a read-only folder, a WAL file with
    no shared-memory file is read as immutable (nothing can be writing it then: a writer
    has a log or a journal beside it, or holds a lock, which the first connection
    waits on and is told of)."""
    first: sqlite3.Error | None = None
    for immutable in (False, True):
        if immutable:
            folder = os.path.dirname(os.path.abspath(path))
            if os.access(folder, os.W_OK) or _being_written(path):
                break
        try:
            return _read_first(path, "ro", timeout, immutable)
        except sqlite3.Error as error:
            first = first or error
            if isinstance(file_error(path, error, timeout), IndexLockedError):
                break  # a writer holds it: read as immutable, it may be half written
    raise file_error(path, first or sqlite3.OperationalError("unable to open"), timeout)


def file_error(
    path: str, error: sqlite3.Error, timeout: float, prefix: str = "cannot be used"
) -> IndexFileError:
    """SQLite's error as an :class:`IndexFileError` that says what it means."""
    message = str(error)
    if "locked" in message or "busy" in message:
        return IndexLockedError(
            path,
            f"is locked by another writer (waited {timeout:g} s); pass a longer timeout "
            "to wait longer",
            errno.EBUSY,
        )
    if "not a database" in message:
        return IndexFileError(path, f"{prefix}: {message}")
    if "malformed" in message or "corrupt" in message:
        return IndexCorruptError(path, f"is damaged: {message}", errno.EIO)
    if "unable to open" in message:
        return IndexFileError(path, f"cannot be opened: {message}", errno.EACCES)
    if "readonly" in message:
        return IndexFileError(path, f"cannot be written: {message}", errno.EROFS)
    if "disk" in message and "full" in message:
        return IndexFileError(path, f"cannot be written: {message}", errno.ENOSPC)
    return IndexFileError(path, f"{prefix}: {message}", errno.EIO)


def claim(path: str, what: str) -> None:
    """Create ``path`` empty and exclusively: of two processes, one wins.

    :raises FileExistsError: if it exists.
    :raises IndexFileError: if it cannot be made.
    """
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, f"exists; open the {what} instead", path) from None
    except OSError as error:
        raise IndexFileError(
            path, f"cannot create it: {error.strerror}", error.errno or errno.EIO
        ) from None


def release(path: str) -> None:
    """Remove a file :func:`claim` made and could not finish, with its side files."""
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        with contextlib.suppress(OSError):
            os.remove(name)
