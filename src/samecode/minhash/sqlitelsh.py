"""An LSH index of MinHash signatures under your own keys, in one SQLite file.

:class:`SQLiteLSH` is :class:`~samecode.minhash.lsh.MinHashLSH` kept on disk: what datasketch
keeps in Redis or Cassandra, in a single file and with the safety rules of
:mod:`samecode.hamming.sqlite` (a file is vetted read-only before anything is written, WAL mode,
a transaction per batch, a checksum per row, :class:`~samecode.hamming.sqlite.IndexFileError`
for a file that cannot be used). Its :class:`~samecode.minhash.settings.LSHSettings` (scheme, seed,
size, threshold, bands and rows) are stored in the file, and a signature made any other
way is refused: signatures of different schemes never meet.

Keys are ints (64-bit), strs or bytes, as in :class:`~samecode.hamming.sqlite.SQLiteIndex`. For a
corpus of *files* matched exactly, see :class:`~samecode.corpus.store.Corpus`, which can keep
the same LSH rows beside the files' shingles.

Cost: a key's row holds its signature (``4 * num_perm`` bytes, 8 for ``"affine64"``) and
``b`` bucket rows of about 48 bytes with their indexes.

>>> import os, tempfile
>>> from samecode.minhash.settings import LSHSettings
>>> from samecode.minhash.oph import OnePermutationMinHash
>>> path = os.path.join(tempfile.mkdtemp(), "lsh.db")
>>> settings = LSHSettings(num_perm=64, threshold=0.5)
>>> words = [f"w{i}".encode() for i in range(100)]
>>> with SQLiteLSH.create(path, settings) as lsh:
...     for key, features in [("a", words), ("b", words[:90]), ("c", [b"other"])]:
...         m = OnePermutationMinHash(num_perm=64)
...         m.update_batch(features)
...         lsh.insert(key, m)
>>> with SQLiteLSH.open(path, readonly=True) as lsh:
...     query = OnePermutationMinHash(num_perm=64)
...     query.update_batch(words[:95])
...     sorted(lsh.query(query)), len(lsh), "c" in lsh
(['a', 'b'], 3, True)
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.minhash.buckets import BucketTable
from samecode.minhash.lsh import Signature
from samecode.minhash.settings import LSHSettings
from samecode.store.file import (
    IndexCorruptError,
    StoreFile,
    check_key,
    check_timeout,
    file_error,
    findable,
    read_meta,
    row_crc,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "SQLiteLSH"]

#: What an LSH file says it is, and the version of its layout.
FORMAT = "samecode-lsh"
FORMAT_VERSION = 1
_BATCH = 10_000


class SQLiteLSH(StoreFile):
    """An LSH index of signatures under keys, in a SQLite file.

    Use :meth:`create` for a new file and :meth:`open` for an existing one.

    Runtime complexity: :meth:`insert` and :meth:`remove` write or delete one row and
    ``b`` bucket rows (``O(b log n)``), in a transaction of their own; :meth:`insert_many`
    and :meth:`remove_many` share one among 10,000 keys. :meth:`query` looks up ``b``
    buckets, then reads each candidate's row.
    """

    def __init__(self, db: sqlite3.Connection, path: str, readonly: bool, timeout: float):
        super().__init__(db, path, readonly, timeout)
        meta = read_meta(db, path, FORMAT, (str(FORMAT_VERSION),), ("lsh",), "samecode LSH file")
        try:
            self._settings = LSHSettings.from_dict(json.loads(meta["lsh"]))
        except (TypeError, ValueError) as error:
            raise IndexCorruptError(path, f"its metadata is refused: {error}") from None
        self._table = BucketTable(self._settings, "id")

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], settings: LSHSettings, *, timeout: float = 30.0
    ) -> SQLiteLSH:
        """Create a new file and open it for writing.

        :param path: where; the file must not exist.
        :param settings: the sketches it takes and its bands and rows.
        :param timeout: how many seconds a change waits for another writer's lock.
        :raises FileExistsError: if ``path`` exists.
        :raises TypeError: if ``settings`` is not :class:`~samecode.minhash.settings.LSHSettings`.
        :raises IndexFileError: if the file cannot be made.
        """
        path = os.fspath(path)
        if not isinstance(settings, LSHSettings):
            raise SamecodeTypeError(f"settings must be LSHSettings; got {describe(settings)}")
        timeout = check_timeout(timeout)
        statements = [
            "CREATE TABLE signatures (id INTEGER PRIMARY KEY, key UNIQUE NOT NULL, "
            "vals BLOB NOT NULL, crc INTEGER NOT NULL)",
            *BucketTable(settings, "id").statements(),
        ]
        meta = [
            ("format", FORMAT),
            ("version", str(FORMAT_VERSION)),
            ("lsh", json.dumps(settings.to_dict(), sort_keys=True)),
        ]
        return cls._create_path(path, timeout, "LSH file with SQLiteLSH.open", statements, meta)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, readonly: bool = False, timeout: float = 30.0
    ) -> SQLiteLSH:
        """Open an existing file (checked read-only first; see :mod:`samecode.hamming.sqlite`).

        :raises FileNotFoundError: if ``path`` does not exist.
        :raises IndexFileError: if it is not a samecode LSH file of this version, is
            damaged, or cannot be opened.
        """
        return cls._open_path(path, readonly, timeout, "samecode LSH file")

    # -- reading ----------------------------------------------------------------------

    @property
    def settings(self) -> LSHSettings:
        """The sketches this file takes, and its bands and rows."""
        return self._settings

    @property
    def b(self) -> int:
        """The number of bands (datasketch's name)."""
        return self._settings.bands

    @property
    def r(self) -> int:
        """The rows of a band (datasketch's name)."""
        return self._settings.rows

    def __len__(self) -> int:
        return int(self._run("SELECT count(*) FROM signatures").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        if not findable(key):
            return False
        return self._run("SELECT 1 FROM signatures WHERE key = ?", (key,)).fetchone() is not None

    def __repr__(self) -> str:
        return f"<SQLiteLSH {self._path!r} b={self.b} r={self.r}>"

    def keys(self) -> Iterator[Any]:
        """The keys held, in the order they were inserted."""
        return (row[0] for row in self._run("SELECT key FROM signatures ORDER BY id"))

    def _checked(self, row: tuple[Any, ...]) -> tuple[Any, bytes]:
        key, values, crc = row
        if (
            not isinstance(values, bytes)
            or len(values) != self._settings.width
            or row_crc(key, values) != crc
        ):
            raise IndexCorruptError(self._path, f"the row of key {key!r} fails its checksum")
        return key, values

    # -- changes ----------------------------------------------------------------------

    def insert(self, key: int | str | bytes, minhash: Signature) -> None:
        """Index ``minhash`` under ``key`` (one transaction).

        :raises TypeError: for a key that is not an int, str or bytes, or something that
            is not a signature.
        :raises ValueError: if ``key`` is held already, or the signature is of another
            scheme, seed or size than the file's.
        :raises PermissionError: if the file was opened read-only.
        """
        self.insert_many([(key, minhash)])

    def insert_many(self, items: Iterable[tuple[int | str | bytes, Signature]]) -> None:
        """Index many ``(key, signature)`` pairs, 10,000 to a transaction; a batch with a
        bad pair is refused whole (earlier batches stay).

        :raises TypeError, ValueError, PermissionError: as :meth:`insert`.
        """
        self._check_writable()
        iterator = iter(items)
        while batch := list(islice(iterator, _BATCH)):
            rows = []
            for item in batch:
                try:
                    key, minhash = item
                except (TypeError, ValueError):
                    raise SamecodeTypeError(
                        f"items must be (key, signature) pairs; got {describe(item)}"
                    ) from None
                check_key(key)
                values = self._settings.values(minhash)
                rows.append((key, values, self._settings.buckets(values)))
            with self._transaction():
                for key, values, buckets in rows:
                    try:
                        cursor = self._db.execute(
                            "INSERT INTO signatures (key, vals, crc) VALUES (?, ?, ?)",
                            (key, values, row_crc(key, values)),
                        )
                    except sqlite3.IntegrityError:
                        raise SamecodeValueError(
                            f"the key {key!r} is already in the index; remove it first"
                        ) from None
                    except sqlite3.Error as error:
                        raise file_error(self._path, error, self._timeout) from None
                    row_id = cursor.lastrowid
                    if row_id is None:  # pragma: no cover - an INSERT always has a row id
                        raise IndexCorruptError(self._path, "SQLite gave no row id")
                    self._table.store(self._many, row_id, set(buckets))

    def remove(self, key: int | str | bytes) -> None:
        """Forget ``key``: its row and ``b`` bucket rows, found by index (no scan).

        :raises ValueError: if ``key`` is not held.
        :raises PermissionError: if the file was opened read-only.
        """
        self.remove_many([key])

    def remove_many(self, keys: Iterable[int | str | bytes]) -> None:
        """Forget many keys, 10,000 to a transaction; a batch with a key that is not held
        is refused whole (earlier batches stay).

        :raises ValueError, PermissionError: as :meth:`remove`.
        """
        self._check_writable()
        iterator = iter(keys)
        while batch := list(islice(iterator, _BATCH)):
            with self._transaction():
                for key in batch:
                    row = (
                        self._run("SELECT id FROM signatures WHERE key = ?", (key,)).fetchone()
                        if findable(key)
                        else None
                    )
                    if row is None:
                        raise SamecodeValueError(f"the key {key!r} is not in the index")
                    self._table.delete(self._run, row[0])
                    self._run("DELETE FROM signatures WHERE id = ?", row)

    # -- queries ----------------------------------------------------------------------

    def _candidates(self, values: bytes) -> list[tuple[Any, bytes]]:
        ids = sorted(self._table.near(self._run, values))
        out = []
        for row_id in ids:
            row = self._run(
                "SELECT key, vals, crc FROM signatures WHERE id = ?", (row_id,)
            ).fetchone()
            if row is None:
                raise IndexCorruptError(self._path, f"a bucket names row {row_id}, which is gone")
            out.append(self._checked(row))
        return out

    def query(self, minhash: Signature) -> list[Any]:
        """The keys that share a band with ``minhash``, in insertion order.

        :raises TypeError, ValueError: for a signature of another kind, scheme, seed or
            size than the file's.
        :raises IndexCorruptError: if a candidate's row fails its checksum.
        """
        return [key for key, _ in self._candidates(self._settings.values(minhash))]

    def query_ranked(
        self, minhash: Signature, *, top_k: int | None = None
    ) -> list[tuple[Any, float]]:
        """``[(key, estimated Jaccard), ...]`` of :meth:`query`'s keys, best first (ties
        in insertion order), the best ``top_k`` if given.

        :raises ValueError: for a bad ``top_k``, or as :meth:`query`.
        """
        if top_k is not None and check_int(top_k, "top_k") < 0:
            raise SamecodeValueError(f"top_k must be >= 0; got {top_k}")
        values = self._settings.values(minhash)
        found = self._candidates(values)
        ranked = [(key, self._settings.estimate(values, held)) for key, held in found]
        ranked.sort(key=lambda item: -item[1])  # stable: insertion order among ties
        return ranked if top_k is None else ranked[:top_k]

    def check(self) -> list[str]:
        """Check the whole file: SQLite's integrity check, every row's checksum, and its
        buckets against its signature. Return the problems found (empty when sound)."""
        problems = [
            f"integrity_check: {message}"
            for (message,) in self._run("PRAGMA integrity_check")
            if message != "ok"
        ]
        rows = self._run("SELECT id, key, vals, crc FROM signatures ORDER BY id").fetchall()
        for row_id, *row in rows:
            try:
                key, values = self._checked(tuple(row))
            except IndexCorruptError as error:
                problems.append(str(error.strerror))
                continue
            if self._table.held(self._run, row_id) != sorted(self._table.buckets(values)):
                problems.append(f"the buckets of key {key!r} are damaged")
        orphans = self._table.orphans(self._run, "signatures")
        if orphans:
            problems.append(f"{orphans} bucket rows name keys that are gone")
        return problems
