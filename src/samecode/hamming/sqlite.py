"""A Hamming-distance index that lives in a SQLite file (standard library ``sqlite3``).

:class:`SQLiteIndex` answers the same questions as :class:`samecode.hamming.index.HammingIndex`,
exactly, from a file: one row per fingerprint with a column (and a SQLite index) per
permuted-block table. The file records a format version and the index's parameters
(width, distance, plan, fingerprint kind), and an index refuses fingerprints of another
width or kind.

What the file promises:

* **Nothing is written to a file that is refused.** :meth:`SQLiteIndex.open` reads a file
  read-only and checks it first; only an index it accepts is opened for writing. Opening
  with ``readonly=True`` writes nothing at all (in a read-only folder too).
* **Every change is one transaction**, in WAL mode: a writer killed mid-way loses only its
  uncommitted transaction, and readers in other processes query while a writer adds.
* **Damage is found, not answered from.** Every row carries a CRC-32 of its key,
  fingerprint and table keys, checked whenever the row is read; :meth:`SQLiteIndex.check`
  checks the whole file.
* **One family of errors.** A file that cannot be used raises :class:`IndexFileError` (an
  ``OSError`` and a ``ValueError``) naming the path and the cause: not an index, damaged,
  of another version or parameters, locked by a writer (:class:`IndexLockedError`), a
  folder, a missing folder. Only :meth:`~SQLiteIndex.open` of a missing file
  (``FileNotFoundError``) and :meth:`~SQLiteIndex.create` over an existing one
  (``FileExistsError``) raise the standard errors.

>>> import os, tempfile
>>> from samecode.hamming.sqlite import SQLiteIndex
>>> path = os.path.join(tempfile.mkdtemp(), "fingerprints.db")
>>> with SQLiteIndex.create(path, size_in_bits=64, max_distance=3) as index:
...     index.add_many([("a", 0xFFFF_0000_FFFF_0000), ("b", 0xFFFF_0000_FFFF_0007)])
>>> with SQLiteIndex.open(path) as index:
...     index.query(0xFFFF_0000_FFFF_0001), len(index), index.check()
([('a', 1), ('b', 2)], 2, [])
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

from samecode.hamming._lookups import Lookups, pairs_of, sort_ranked
from samecode.hamming.index import Digest, fingerprint_value, kind_name
from samecode.hamming.plan import Plan, resolve_plan
from samecode.store.file import (
    IndexCorruptError,
    IndexFileError,
    IndexLockedError,
    StoreFile,
    check_key,
    check_timeout,
    file_error,
    findable,
    open_store,
    read_meta,
    row_crc,
    storable,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "IndexCorruptError",
    "IndexFileError",
    "IndexLockedError",
    "SQLiteIndex",
]

#: What a samecode index file says it is, and the version of its layout. Version 2 added
#: a checksum to every row; files of version 1 are read and written as they are.
FORMAT = "samecode-hamming-index"
FORMAT_VERSION = 2
_READABLE_VERSIONS = ("1", "2")

_PRIME = 2**61 - 1
_BATCH = 10_000


def _row_crc(key: int | str | bytes, fp: bytes, table_keys: Iterable[int]) -> int:
    """The CRC-32 a row carries: of its key (typed), fingerprint and table keys."""
    return row_crc(key, fp, *(k.to_bytes(8, "big") for k in table_keys))


class SQLiteIndex(StoreFile, Lookups):
    """An exact Hamming-distance index in a SQLite file.

    Use :meth:`create` for a new file and :meth:`open` for an existing one. Keys are ints
    (64-bit), strs (valid Unicode) or bytes. The methods match
    :class:`~samecode.hamming.index.HammingIndex`; :meth:`check` verifies the whole file.

    Each table's key is stored as an integer column with a SQLite index (keys wider than
    62 bits are stored modulo ``2**61 - 1``: equal keys stay equal, and the exact distance
    check drops the rare extra candidate). A lookup is one ``SELECT`` over those indexes;
    every row it reads is checked against its checksum.

    Runtime complexity: a lookup is ``T`` index probes plus the candidates (see
    :meth:`~samecode.hamming.plan.Plan.expected_candidates`), each checked (a CRC-32 of a few
    dozen bytes); :meth:`find_all` reads every fingerprint and works in memory like
    :meth:`HammingIndex.find_all`.
    """

    def __init__(
        self, connection: sqlite3.Connection, path: str, readonly: bool, timeout: float
    ) -> None:
        super().__init__(connection, path, readonly, timeout)
        meta = _read_meta(connection, path)
        self._plan = _stored_plan(meta, path)
        self._size = self._plan.size_in_bits
        self._kind = meta.get("kind") or None
        self._checksums = meta["version"] != "1"
        self._width = (self._size + 7) // 8
        tables = len(self._plan.tables)
        self._columns = [f"t{i}" for i in range(tables)]
        self._wide = [bits > 62 for bits in self._plan.key_bits]
        extra = "".join(f", {c}" for c in self._columns) + (", crc" if self._checksums else "")
        self._fields = f"key, fp, rowid{extra}"
        if self._plan.is_scan:
            self._select = f"SELECT {self._fields} FROM fingerprints"
        else:
            where = " OR ".join(f"{c} = ?" for c in self._columns)
            self._select = f"SELECT {self._fields} FROM fingerprints WHERE {where}"
        marks = ", ".join("?" * (2 + tables + self._checksums))
        self._insert = f"INSERT INTO fingerprints VALUES ({marks})"

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        size_in_bits: int = 64,
        max_distance: int = 3,
        *,
        kind: str | type[Digest] | None = None,
        expected_size: int = 1_000_000,
        plan: Plan | None = None,
        timeout: float = 30.0,
    ) -> SQLiteIndex:
        """Create a new index file and open it for writing.

        The file is claimed exclusively first, so of two processes creating the same
        path at once, one creates it and the other gets ``FileExistsError``.

        :param path: where to create it; the file must not exist.
        :param size_in_bits: the fingerprint width, 1 to 4096.
        :param max_distance: the largest distance a lookup may ask for.
        :param kind: optionally, the fingerprint class (or name) the file holds.
        :param expected_size: how many fingerprints you expect; it chooses the tables
            (:func:`~samecode.hamming.plan.choose_plan` with ``purpose="sqlite"``), which are
            fixed once the file exists.
        :param plan: a plan to use instead.
        :param timeout: how many seconds a change waits for another writer's lock.
        :raises FileExistsError: if ``path`` exists.
        :raises IndexFileError: if the file cannot be made (its folder is missing or not
            writable, ``path`` is a folder...).
        :raises TypeError, ValueError: for bad parameters, as
            :class:`~samecode.hamming.index.HammingIndex`.
        """
        path = os.fspath(path)
        plan = resolve_plan(size_in_bits, max_distance, expected_size, plan, "sqlite")
        size, distance = plan.size_in_bits, plan.max_distance
        name = kind_name(kind)
        timeout = check_timeout(timeout)
        tables = len(plan.tables)
        columns = "".join(f", t{i} INTEGER NOT NULL" for i in range(tables))
        statements = [
            "CREATE TABLE fingerprints "
            f"(key PRIMARY KEY NOT NULL, fp BLOB NOT NULL{columns}, crc INTEGER NOT NULL)",
            *(
                f"CREATE INDEX fingerprints_t{i} ON fingerprints (t{i})"
                for i in range(len(plan.tables))
            ),
        ]
        meta = [
            ("format", FORMAT),
            ("version", str(FORMAT_VERSION)),
            ("size_in_bits", str(size)),
            ("max_distance", str(distance)),
            ("kind", name or ""),
            ("plan", plan.to_json()),
        ]
        return cls._create_path(path, timeout, "index with SQLiteIndex.open", statements, meta)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        size_in_bits: int | None = None,
        max_distance: int | None = None,
        kind: str | type[Digest] | None = None,
        readonly: bool = False,
        timeout: float = 30.0,
    ) -> SQLiteIndex:
        """Open an existing index file.

        The file is read read-only and checked first; a file that is refused is left
        byte for byte as it was. With ``readonly=True`` nothing is ever written.

        :param size_in_bits: if given, the width the file must have.
        :param max_distance: if given, the distance the file must have.
        :param kind: if given, the fingerprint kind the file must hold.
        :param readonly: open for lookups only.
        :param timeout: how many seconds a change waits for another writer's lock.
        :raises FileNotFoundError: if ``path`` does not exist.
        :raises IndexFileError: if the file is not a samecode index, is damaged, has
            another format version, or another width, distance or kind than asked for,
            or cannot be opened (a folder, no permission...).
        """
        path = os.fspath(path)
        timeout = check_timeout(timeout)
        wanted = {
            "size_in_bits": size_in_bits,
            "max_distance": max_distance,
            "kind": kind_name(kind),
        }

        def make(db: sqlite3.Connection, read_only: bool) -> SQLiteIndex:
            index = cls(db, path, read_only, timeout)
            for name, want in wanted.items():
                actual = getattr(index, name)
                if want is not None and want != actual:
                    raise IndexFileError(path, f"has {name} {actual!r}; asked for {want!r}")
            return index

        return open_store(
            path, readonly, timeout, lambda db: _read_meta(db, path), make, "samecode index"
        )

    # -- properties -------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self._run("SELECT count(*) FROM fingerprints").fetchone()[0])

    def __iter__(self) -> Iterator[Any]:
        """Iterate over the keys, in the order they were added."""
        return (key for key, _ in self.items())

    def __contains__(self, key: object) -> bool:
        if not findable(key):
            return False
        return self._run("SELECT 1 FROM fingerprints WHERE key = ?", (key,)).fetchone() is not None

    def __getitem__(self, key: Any) -> int:
        """Return the fingerprint stored under ``key``, as an int.

        :raises KeyError: if there is no such key.
        :raises IndexCorruptError: if its row fails its checksum.
        """
        if not findable(key):
            raise KeyError(key)
        row = self._run(f"SELECT {self._fields} FROM fingerprints WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return self._verified(row)

    def __repr__(self) -> str:
        return (
            f"<SQLiteIndex {self._path!r}, {self._size}-bit, "
            f"max_distance={self.max_distance}, {len(self._plan.tables)} tables>"
        )

    # -- rows -------------------------------------------------------------------------

    def _row(self, key: Any, fingerprint: object) -> tuple[Any, ...]:
        check_key(key)
        value = fingerprint_value(fingerprint, self._size, self._kind)
        fp = value.to_bytes(self._width, "big")
        table_keys = self._table_keys(value)
        if not self._checksums:
            return (key, fp, *table_keys)
        return (key, fp, *table_keys, _row_crc(key, fp, table_keys))

    def _table_keys(self, value: int) -> list[int]:
        """The table keys of ``value`` as the file stores them (wide ones reduced)."""
        keys = self._plan.keys(value)
        for i, wide in enumerate(self._wide):
            if wide:
                keys[i] %= _PRIME
        return keys

    def _verified(self, row: tuple[Any, ...]) -> int:
        """The fingerprint of a row read as ``self._fields``, after checking the row."""
        key, fp, rowid = row[0], row[1], row[2]
        if not isinstance(fp, bytes) or len(fp) != self._width or not storable(key):
            raise IndexCorruptError(self._path, f"row {rowid} is damaged (key {key!r:.40})")
        if self._checksums:
            table_keys = row[3:-1]
            if _row_crc(key, fp, table_keys) != row[-1]:
                raise IndexCorruptError(
                    self._path, f"row {rowid} (key {key!r:.40}) fails its checksum"
                )
        return int.from_bytes(fp, "big")

    # -- changes ----------------------------------------------------------------------

    def add(self, key: Any, fingerprint: object) -> None:
        """Store ``fingerprint`` under ``key``, in one transaction.

        :raises KeyError: if ``key`` is already in the index.
        :raises TypeError: for a key that is not an int, str or bytes, or a fingerprint
            of the wrong type or kind.
        :raises ValueError: for a fingerprint of the wrong width, an int key beyond 64
            bits, or a str key that is not valid Unicode.
        :raises PermissionError: if the index was opened read-only.
        :raises IndexLockedError: if another writer holds the lock past the timeout.
        """
        self.add_many([(key, fingerprint)])

    def add_many(self, items: Iterable[tuple[Any, object]] | Mapping[Any, object]) -> None:
        """Store many ``(key, fingerprint)`` pairs (or a mapping) in one transaction: all
        or none.

        For a bulk load, call it once per batch (say 100,000 pairs): each call commits
        on its own, so an interrupted load keeps every batch already committed.

        :raises KeyError: if a key is in the index already, or twice in ``items``
            (nothing is stored then).
        :raises TypeError, ValueError, PermissionError, IndexLockedError: as :meth:`add`.
        """
        iterator = pairs_of(items)
        with self._transaction():
            empty = self._run("SELECT 1 FROM fingerprints LIMIT 1").fetchone() is None
            if empty:  # a first load: fill the table, then sort each table's index once
                for column in self._columns:
                    self._run(f"DROP INDEX fingerprints_{column}")
            while True:
                rows = []
                for key, fingerprint in islice(iterator, _BATCH):
                    rows.append(self._row(key, fingerprint))
                if not rows:
                    break
                try:
                    self._db.executemany(self._insert, rows)
                except sqlite3.IntegrityError:
                    raise KeyError(self._duplicate(rows)) from None
                except sqlite3.Error as error:
                    raise file_error(self._path, error, self._timeout) from None
            if empty:
                for column in self._columns:
                    self._run(f"CREATE INDEX fingerprints_{column} ON fingerprints ({column})")

    def _duplicate(self, rows: list[tuple[Any, ...]]) -> str:
        seen: set[Any] = set()
        for row in rows:
            key = row[0]
            if (type(key), key) in seen or key in self:
                return f"{key!r} is already in the index; remove it first"
            seen.add((type(key), key))
        return "a key is already in the index"  # pragma: no cover - found above

    def remove(self, key: Any) -> int:
        """Remove ``key`` (one transaction) and return the fingerprint it had, as an int.

        :raises KeyError: if there is no such key.
        :raises PermissionError: if the index was opened read-only.
        :raises IndexLockedError: if another writer holds the lock past the timeout.
        :raises IndexCorruptError: if the row fails its checksum (it is left in place).
        """
        self._check_writable()
        if not findable(key):
            raise KeyError(key)
        with self._transaction():
            row = self._run(
                f"SELECT {self._fields} FROM fingerprints WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                raise KeyError(key)
            value = self._verified(row)
            self._run("DELETE FROM fingerprints WHERE key = ?", (key,))
        return value

    # -- lookups ----------------------------------------------------------------------

    def query(self, fingerprint: object, max_distance: int | None = None) -> list[tuple[Any, int]]:
        """Return ``[(key, distance), ...]`` within ``max_distance``, nearest first.

        Exactly what :meth:`samecode.hamming.index.HammingIndex.query` returns for the same
        fingerprints (ties by key, or by the order keys were added when keys of different
        types cannot be compared).

        :raises TypeError, ValueError: as :meth:`HammingIndex.query`.
        :raises IndexCorruptError: if a candidate row fails its checksum.
        """
        value = fingerprint_value(fingerprint, self._size, self._kind)
        distance = self._plan.check_distance(max_distance)
        hits = []
        for row in self._run(self._select, self._table_keys(value)):
            d = (self._verified(row) ^ value).bit_count()
            if d <= distance:
                hits.append((row[0], d, row[2]))
        sort_ranked(hits, lambda h: (h[1], h[0]), lambda h: (h[1], h[2]))
        return [(key, d) for key, d, _ in hits]

    def snapshot(self) -> tuple[list[Any], list[int]]:
        """Return the keys and their fingerprints (as ints), in the order keys were added."""
        pairs = list(self.items())
        return [key for key, _ in pairs], [value for _, value in pairs]

    def items(self) -> Iterator[tuple[Any, int]]:
        """Iterate over ``(key, fingerprint)`` pairs, in the order keys were added.

        :raises IndexCorruptError: (when reached) for a row that fails its checksum.
        """
        rows = self._run(f"SELECT {self._fields} FROM fingerprints ORDER BY rowid")
        return ((row[0], self._verified(row)) for row in rows)

    def check(self) -> list[str]:
        """Check the whole file; return the problems found (an empty list when it is sound).

        It runs SQLite's ``integrity_check`` (pages, and every table index against the
        rows), then reads every row: its key and fingerprint types, its checksum, and
        its table keys against those its fingerprint gives (a row whose table key was
        damaged would be missed by lookups).

        Runtime complexity: ``O(n)`` reads and checks, plus SQLite's check.
        """
        problems = [
            f"integrity_check: {message}"
            for (message,) in self._run("PRAGMA integrity_check")
            if message != "ok"
        ]
        if not self._checksums:
            problems.append("format version 1: rows carry no checksums; not checked")
        for row in self._run(f"SELECT {self._fields} FROM fingerprints ORDER BY rowid"):
            try:
                value = self._verified(row)
            except IndexCorruptError as error:
                problems.append(str(error.strerror))
                continue
            stored = list(row[3 : 3 + len(self._columns)])
            if stored != self._table_keys(value):
                problems.append(f"row {row[2]} (key {row[0]!r:.40}) has wrong table keys")
        return problems


# -- opening files ----------------------------------------------------------------------


def _read_meta(db: sqlite3.Connection, path: str) -> dict[str, str]:
    return read_meta(db, path, FORMAT, _READABLE_VERSIONS, ("plan", "kind"), "samecode index")


def _stored_plan(meta: dict[str, str], path: str) -> Plan:
    try:
        plan = Plan.from_json(meta["plan"])
    except ValueError as error:
        raise IndexCorruptError(path, f"its stored plan is refused: {error}") from None
    for name in ("size_in_bits", "max_distance"):
        if meta.get(name) != str(getattr(plan, name)):
            raise IndexCorruptError(
                path,
                f"its metadata says {name} {meta.get(name)!r}, its plan {getattr(plan, name)}",
            )
    return plan
