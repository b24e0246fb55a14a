"""Private: SQLite files that samecode keeps (Hamming indexes, corpora), opened safely.

Both stores share the same rules, held here: a file is vetted through an immutable
read-only connection before anything may write to it (so a refused file is left byte for
byte, and gets no side files); read-only opening writes nothing, in a read-only folder too;
a new file is claimed exclusively; and every SQLite error becomes an
:class:`IndexFileError` that names the path and says what it means.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
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


class StoreFile:
    """What every samecode store file is: an open connection, its path, whether it may
    be written, and how its statements and transactions run."""

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
        """Execute one statement, with SQLite's errors as :class:`IndexFileError`."""
        try:
            return self._db.execute(sql, tuple(parameters))
        except sqlite3.Error as error:
            raise file_error(self._path, error, self._timeout) from None

    def _many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Execute one statement for many rows, with SQLite's errors as
        :class:`IndexFileError`."""
        try:
            self._db.executemany(sql, rows)
        except sqlite3.Error as error:
            raise file_error(self._path, error, self._timeout) from None

    def _lookup(self, sql: str, values: list[int]) -> set[int]:
        """The first column of ``sql`` (with ``{}`` for a list of marks) over ``values``,
        ``_LOOKUP`` at a time."""
        found: set[int] = set()
        for start in range(0, len(values), _LOOKUP):
            chunk = values[start : start + _LOOKUP]
            found.update(
                row[0] for row in self._run(sql.format(", ".join("?" * len(chunk))), chunk)
            )
        return found

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

    :raises FileNotFoundError: if ``path`` does not exist.
    :raises IndexFileError: if it is a folder, not of this kind, damaged or unopenable.
    """
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, f"does not exist; create the {what} first", path)
    if os.path.isdir(path):
        raise IndexFileError(path, f"is a folder, not a {what} file", errno.EISDIR)
    _vet(path, timeout, vet)
    checking = _open_readonly(path, timeout)
    store = _made(make, checking, True, path, timeout)
    if readonly:
        return store
    checking.close()
    try:
        db = connect(path, "rw", timeout)
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
    """Make a new store file: claim ``path`` exclusively, then in WAL mode and one
    exclusive transaction create ``samecode_meta`` (filled with ``meta``) and run
    ``statements``; return ``make(connection, False)``. A failure removes the file.

    :raises FileExistsError: if ``path`` exists.
    :raises IndexFileError: if the file cannot be made.
    """
    claim(path, what)
    try:
        db = connect(path, "rw", timeout)
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
            return make(db, False)
        except BaseException:
            db.close()
            raise
    except BaseException as error:
        release(path)
        if isinstance(error, sqlite3.Error):
            raise file_error(path, error, timeout) from None
        raise


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
    SQLite's side files: an immutable connection ignores a write-ahead log, so only a
    refusal is taken from it, and a damaged read is left to the real connection."""
    try:
        db = connect(path, "ro", timeout, immutable=True)
    except sqlite3.Error:
        return
    try:
        vet(db)
    except IndexCorruptError:
        pass
    except IndexFileError as error:
        if "malformed" not in str(error):
            raise
    finally:
        db.close()


def _open_readonly(path: str, timeout: float) -> sqlite3.Connection:
    """A read-only connection that writes nothing; in a read-only folder, a WAL file with
    no shared-memory file is read as immutable (nothing can be writing it then)."""
    first: sqlite3.Error | None = None
    for immutable in (False, True):
        if immutable:
            folder = os.path.dirname(os.path.abspath(path))
            if os.access(folder, os.W_OK) or os.path.exists(path + "-wal"):
                break
        db: sqlite3.Connection | None = None
        try:
            db = connect(path, "ro", timeout, immutable=immutable)
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.Error as error:
            first = first or error
            if db is not None:
                db.close()
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
