"""A Hamming-distance index that lives in a SQLite file (standard library ``sqlite3``).

:class:`SQLiteIndex` answers the same questions as :class:`samecode.index.HammingIndex`,
exactly, from a file: one row per fingerprint with a column (and a SQLite index) per
permuted-block table. The file records a format version and the index's parameters
(width, distance, plan, fingerprint kind), and an index refuses fingerprints of another
width or kind. Every change is one transaction and the file is in WAL mode, so a writer
killed mid-way loses only its uncommitted transaction, and readers in other processes can
query while a writer adds.

>>> import os, tempfile
>>> from samecode.sqlite import SQLiteIndex
>>> path = os.path.join(tempfile.mkdtemp(), "fingerprints.db")
>>> with SQLiteIndex.create(path, size_in_bits=64, max_distance=3) as index:
...     index.add_many([("a", 0xFFFF_0000_FFFF_0000), ("b", 0xFFFF_0000_FFFF_0007)])
>>> with SQLiteIndex.open(path) as index:
...     index.query(0xFFFF_0000_FFFF_0001), len(index)
([('a', 1), ('b', 2)], 2)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from samecode.fingerprint import Fingerprint, describe
from samecode.index import _Lookups, _sort_ranked, fingerprint_value, kind_name
from samecode.plan import Plan, resolve_plan

__all__ = ["FORMAT", "FORMAT_VERSION", "SQLiteIndex"]

#: What a samecode index file says it is, and the version of its layout.
FORMAT = "samecode-hamming-index"
FORMAT_VERSION = 1

_PRIME = 2**61 - 1
_BATCH = 10_000


def _storable(key: object) -> bool:
    """Whether ``key`` has a type the file stores: an int (not a bool), str or bytes."""
    return isinstance(key, (int, str, bytes)) and not isinstance(key, bool)


def _check_key(key: object) -> None:
    if not _storable(key):
        raise TypeError(f"a key must be an int, str or bytes; got {describe(key)}")
    if isinstance(key, int) and not -(2**63) <= key < 2**63:
        raise ValueError(f"an int key must fit in 64 bits (signed); got {key!r}")


class SQLiteIndex(_Lookups):
    """An exact Hamming-distance index in a SQLite file.

    Use :meth:`create` for a new file and :meth:`open` for an existing one. Keys are ints
    (64-bit), strs or bytes. The methods match :class:`~samecode.index.HammingIndex`.

    Each table's key is stored as an integer column with a SQLite index (keys wider than
    62 bits are stored modulo ``2**61 - 1``: equal keys stay equal, and the exact distance
    check drops the rare extra candidate). A lookup is one ``SELECT`` over those indexes.

    Runtime complexity: a lookup is ``T`` index probes plus the candidates (see
    :meth:`~samecode.plan.Plan.expected_candidates`); :meth:`find_all` reads every
    fingerprint and works in memory like :meth:`HammingIndex.find_all`.
    """

    def __init__(self, connection: sqlite3.Connection, path: str, readonly: bool) -> None:
        self._db = connection
        self._path = path
        self._readonly = readonly
        meta = dict(connection.execute("SELECT name, value FROM samecode_meta"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path} is not a samecode index (format {meta.get('format')!r})")
        if meta.get("version") != str(FORMAT_VERSION):
            raise ValueError(
                f"{path} has samecode index format version {meta.get('version')}; this "
                f"samecode reads version {FORMAT_VERSION}"
            )
        self._plan = Plan.from_json(meta["plan"])
        self._size = self._plan.size_in_bits
        self._kind = meta.get("kind") or None
        self._width = (self._size + 7) // 8
        tables = len(self._plan.tables)
        self._columns = [f"t{i}" for i in range(tables)]
        self._wide = [bits > 62 for bits in self._plan.key_bits]
        if self._plan.is_scan:
            self._select = "SELECT key, fp, rowid FROM fingerprints"
        else:
            where = " OR ".join(f"{c} = ?" for c in self._columns)
            self._select = f"SELECT key, fp, rowid FROM fingerprints WHERE {where}"
        marks = ", ".join("?" * (2 + tables))
        self._insert = f"INSERT INTO fingerprints VALUES ({marks})"

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        size_in_bits: int = 64,
        max_distance: int = 3,
        *,
        kind: str | type[Fingerprint] | None = None,
        expected_size: int = 1_000_000,
        plan: Plan | None = None,
    ) -> SQLiteIndex:
        """Create a new index file and open it for writing.

        :param path: where to create it; the file must not exist.
        :param size_in_bits: the fingerprint width, 1 to 4096.
        :param max_distance: the largest distance a lookup may ask for.
        :param kind: optionally, the fingerprint class (or name) the file holds.
        :param expected_size: how many fingerprints you expect; it chooses the tables
            (:func:`~samecode.plan.choose_plan` with ``purpose="sqlite"``), which are
            fixed once the file exists.
        :param plan: a plan to use instead.
        :raises FileExistsError: if ``path`` exists.
        :raises TypeError, ValueError: for bad parameters, as
            :class:`~samecode.index.HammingIndex`.
        """
        path = os.fspath(path)
        plan = resolve_plan(size_in_bits, max_distance, expected_size, plan, "sqlite")
        size, distance = plan.size_in_bits, plan.max_distance
        name = kind_name(kind)
        if os.path.exists(path):
            raise FileExistsError(f"{path} exists; use SQLiteIndex.open to open it")
        db = cls._connect(f"file:{_uri_path(path)}?mode=rwc")
        try:
            columns = "".join(f", t{i} INTEGER NOT NULL" for i in range(len(plan.tables)))
            with db:
                db.execute(
                    "CREATE TABLE samecode_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
                )
                db.execute(
                    "CREATE TABLE fingerprints "
                    f"(key PRIMARY KEY NOT NULL, fp BLOB NOT NULL{columns})"
                )
                for i in range(len(plan.tables)):
                    db.execute(f"CREATE INDEX fingerprints_t{i} ON fingerprints (t{i})")
                db.executemany(
                    "INSERT INTO samecode_meta VALUES (?, ?)",
                    [
                        ("format", FORMAT),
                        ("version", str(FORMAT_VERSION)),
                        ("size_in_bits", str(size)),
                        ("max_distance", str(distance)),
                        ("kind", name or ""),
                        ("plan", plan.to_json()),
                    ],
                )
        except BaseException:
            db.close()
            raise
        return cls(db, path, readonly=False)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        size_in_bits: int | None = None,
        max_distance: int | None = None,
        kind: str | type[Fingerprint] | None = None,
        readonly: bool = False,
    ) -> SQLiteIndex:
        """Open an existing index file.

        :param size_in_bits: if given, the width the file must have.
        :param max_distance: if given, the distance the file must have.
        :param kind: if given, the fingerprint kind the file must hold.
        :param readonly: open for lookups only.
        :raises FileNotFoundError: if ``path`` does not exist.
        :raises ValueError: if the file is not a samecode index, has another format
            version, or has another width, distance or kind than asked for.
        """
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path} does not exist; use SQLiteIndex.create")
        mode = "ro" if readonly else "rw"
        db = cls._connect(f"file:{_uri_path(path)}?mode={mode}")
        try:
            try:
                index = cls(db, path, readonly)
            except sqlite3.DatabaseError as error:
                raise ValueError(f"{path} is not a samecode index: {error}") from None
            for name, wanted, actual in (
                ("size_in_bits", size_in_bits, index.size_in_bits),
                ("max_distance", max_distance, index.max_distance),
                ("kind", kind_name(kind), index.kind),
            ):
                if wanted is not None and wanted != actual:
                    raise ValueError(f"{path} has {name} {actual!r}; asked for {wanted!r}")
        except BaseException:
            db.close()
            raise
        return index

    @staticmethod
    def _connect(uri: str) -> sqlite3.Connection:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
        db.execute("PRAGMA busy_timeout = 30000")
        if "mode=ro" not in uri:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        return db

    def close(self) -> None:
        """Close the file; the index cannot be used afterwards."""
        self._db.close()

    def __enter__(self) -> SQLiteIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- properties -------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The file's path."""
        return self._path

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM fingerprints").fetchone()[0])

    def __iter__(self) -> Iterator[Any]:
        """Iterate over the keys, in the order they were added."""
        return (row[0] for row in self._db.execute("SELECT key FROM fingerprints ORDER BY rowid"))

    def __contains__(self, key: object) -> bool:
        if not _storable(key):
            return False
        return (
            self._db.execute("SELECT 1 FROM fingerprints WHERE key = ?", (key,)).fetchone()
            is not None
        )

    def __getitem__(self, key: Any) -> int:
        """Return the fingerprint stored under ``key``, as an int.

        :raises KeyError: if there is no such key.
        """
        if not _storable(key):
            raise KeyError(key)
        row = self._db.execute("SELECT fp FROM fingerprints WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return int.from_bytes(row[0], "big")

    def __repr__(self) -> str:
        return (
            f"<SQLiteIndex {self._path!r}, {self._size}-bit, "
            f"max_distance={self.max_distance}, {len(self._plan.tables)} tables>"
        )

    # -- changes ----------------------------------------------------------------------

    def _row(self, key: Any, fingerprint: object) -> tuple[Any, ...]:
        _check_key(key)
        value = fingerprint_value(fingerprint, self._size, self._kind)
        return (key, value.to_bytes(self._width, "big"), *self._table_keys(value))

    def _table_keys(self, value: int) -> list[int]:
        """The table keys of ``value`` as the file stores them (wide ones reduced)."""
        keys = self._plan.keys(value)
        for i, wide in enumerate(self._wide):
            if wide:
                keys[i] %= _PRIME
        return keys

    def _check_writable(self) -> None:
        if self._readonly:
            raise PermissionError(f"{self._path} is open read-only")

    def add(self, key: Any, fingerprint: object) -> None:
        """Store ``fingerprint`` under ``key``, in one transaction.

        :raises KeyError: if ``key`` is already in the index.
        :raises TypeError: for a key that is not an int, str or bytes, or a fingerprint
            of the wrong type or kind.
        :raises ValueError: for a fingerprint of the wrong width.
        :raises PermissionError: if the index was opened read-only.
        """
        self.add_many([(key, fingerprint)])

    def add_many(self, items: Iterable[tuple[Any, object]]) -> None:
        """Store many ``(key, fingerprint)`` pairs in one transaction: all or none.

        For a bulk load, call it once per batch (say 100,000 pairs): each call commits
        on its own, so an interrupted load keeps every batch already committed.

        :raises KeyError: if a key is in the index already, or twice in ``items``
            (nothing is stored then).
        :raises TypeError, ValueError, PermissionError: as :meth:`add`.
        """
        self._check_writable()
        db = self._db
        iterator = iter(items)
        db.execute("BEGIN IMMEDIATE")
        try:
            empty = db.execute("SELECT 1 FROM fingerprints LIMIT 1").fetchone() is None
            if empty:  # a first load: fill the table, then sort each table's index once
                for column in self._columns:
                    db.execute(f"DROP INDEX fingerprints_{column}")
            while True:
                rows = []
                for item in islice(iterator, _BATCH):
                    try:
                        key, fingerprint = item
                    except (TypeError, ValueError):
                        raise TypeError(
                            f"items must be (key, fingerprint) pairs; got {describe(item)}"
                        ) from None
                    rows.append(self._row(key, fingerprint))
                if not rows:
                    break
                try:
                    db.executemany(self._insert, rows)
                except sqlite3.IntegrityError:
                    raise KeyError(self._duplicate(rows)) from None
            if empty:
                for column in self._columns:
                    db.execute(f"CREATE INDEX fingerprints_{column} ON fingerprints ({column})")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

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
        """
        self._check_writable()
        if not _storable(key):
            raise KeyError(key)
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT fp FROM fingerprints WHERE key = ?", (key,)).fetchone()
            if row is None:
                raise KeyError(key)
            db.execute("DELETE FROM fingerprints WHERE key = ?", (key,))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return int.from_bytes(row[0], "big")

    # -- lookups ----------------------------------------------------------------------

    def query(self, fingerprint: object, max_distance: int | None = None) -> list[tuple[Any, int]]:
        """Return ``[(key, distance), ...]`` within ``max_distance``, nearest first.

        Exactly what :meth:`samecode.index.HammingIndex.query` returns for the same
        fingerprints (ties by key, or by the order keys were added when keys of different
        types cannot be compared).

        :raises TypeError, ValueError: as :meth:`HammingIndex.query`.
        """
        value = fingerprint_value(fingerprint, self._size, self._kind)
        distance = self._plan.check_distance(max_distance)
        hits = []
        for key, blob, rowid in self._db.execute(self._select, self._table_keys(value)):
            d = (int.from_bytes(blob, "big") ^ value).bit_count()
            if d <= distance:
                hits.append((key, d, rowid))
        _sort_ranked(hits, lambda h: (h[1], h[0]), lambda h: (h[1], h[2]))
        return [(key, d) for key, d, _ in hits]

    def _snapshot(self) -> tuple[list[Any], list[int]]:
        pairs = list(self.items())
        return [key for key, _ in pairs], [value for _, value in pairs]

    def items(self) -> Iterator[tuple[Any, int]]:
        """Iterate over ``(key, fingerprint)`` pairs, in the order keys were added."""
        rows = self._db.execute("SELECT key, fp FROM fingerprints ORDER BY rowid")
        return ((key, int.from_bytes(blob, "big")) for key, blob in rows)


def _uri_path(path: str) -> str:
    from urllib.parse import quote

    return quote(os.path.abspath(path))
