"""LSH buckets in SQLite: the one storage layer under both
:class:`~samecode.minhash.sqlitelsh.SQLiteLSH` (signatures under keys) and a
:class:`~samecode.corpus.store.Corpus` that finds candidates by LSH, as datasketch keeps one
storage interface under its index.

A :class:`BucketTable` is a table ``buckets (bucket, <owner>)`` with an index on each
column: a row per band of a signature, naming the row that owns it (a key's row, a file's).
It writes an owner's bucket rows, deletes them, lists them, and finds the owners that share
a bucket with a signature. Each file keeps its own name for the owner column (``id`` in an
LSH file, ``file`` in a corpus), so the files it reads are laid out exactly as before.

>>> import sqlite3
>>> from samecode.minhash.settings import LSHSettings
>>> settings = LSHSettings(num_perm=16, threshold=0.5)
>>> table = BucketTable(settings, "id")
>>> db = sqlite3.connect(":memory:")
>>> for statement in table.statements():
...     _ = db.execute(statement)
>>> values = settings.values(settings.signature([1, 2, 3]))
>>> table.store(db.executemany, 7, table.buckets(values))
>>> table.near(db.execute, values), len(table.held(db.execute, 7)) == len(table.buckets(values))
({7}, True)
>>> db.close()
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from samecode.errors import SamecodeValueError
from samecode.minhash.settings import LSHSettings
from samecode.store.file import signed64, unsigned64

__all__ = ["BucketTable", "Many", "Run"]

#: How a table runs a statement: ``run(sql, parameters)`` returning a cursor (a
#: connection's ``execute``, or a store's checked ``_run``); ``many(sql, rows)`` the same
#: for many rows (``executemany``, ``_many``).
Run = Callable[[str, Sequence[Any]], sqlite3.Cursor]
Many = Callable[[str, list[tuple[int, int]]], Any]

_LOOKUP = 900


class BucketTable:
    """The ``buckets`` table of an LSH store (see the module).

    :param settings: the signatures' settings, which make the buckets.
    :param owner: the name of the column naming a bucket's owner (``id`` or ``file``).
    :raises ValueError: for an owner name that is not a plain identifier.
    """

    def __init__(self, settings: LSHSettings, owner: str) -> None:
        if owner not in ("id", "file"):
            raise SamecodeValueError(f"owner must be 'id' or 'file'; got {owner!r}")
        self.settings = settings
        self.owner = owner

    def statements(self) -> list[str]:
        """The statements that create the table and its two indexes."""
        return [
            f"CREATE TABLE buckets (bucket INTEGER NOT NULL, {self.owner} INTEGER NOT NULL)",
            "CREATE INDEX buckets_bucket ON buckets (bucket)",
            f"CREATE INDEX buckets_{self.owner} ON buckets ({self.owner})",
        ]

    def buckets(self, values: bytes) -> set[int]:
        """The distinct buckets of a signature's values (one per band, or fewer)."""
        return set(self.settings.buckets(values))

    def store(self, many: Many, owner: int, buckets: Iterable[int]) -> None:
        """Write an owner's bucket rows (inside the caller's transaction)."""
        many("INSERT INTO buckets VALUES (?, ?)", [(signed64(h), owner) for h in buckets])

    def delete(self, run: Run, owner: int) -> None:
        """Delete an owner's bucket rows (inside the caller's transaction)."""
        run(f"DELETE FROM buckets WHERE {self.owner} = ?", (owner,))

    def held(self, run: Run, owner: int) -> list[int]:
        """An owner's buckets as stored, ascending (to check them)."""
        return sorted(
            unsigned64(h)
            for (h,) in run(f"SELECT bucket FROM buckets WHERE {self.owner} = ?", (owner,))
        )

    def near(self, run: Run, values: bytes) -> set[int]:
        """The owners that share a bucket with a signature of these values."""
        wanted = [signed64(h) for h in self.buckets(values)]
        found: set[int] = set()
        for start in range(0, len(wanted), _LOOKUP):
            chunk = wanted[start : start + _LOOKUP]
            marks = ", ".join("?" * len(chunk))
            found.update(
                row[0]
                for row in run(
                    f"SELECT DISTINCT {self.owner} FROM buckets WHERE bucket IN ({marks})", chunk
                )
            )
        return found

    def orphans(self, run: Run, owners: str) -> int:
        """How many bucket rows name an owner that is not in the table ``owners``
        (``signatures``): rows a damaged file left."""
        if owners != "signatures":
            raise SamecodeValueError(f"owners must be 'signatures'; got {owners!r}")
        sql = (
            f"SELECT count(*) FROM buckets WHERE {self.owner} NOT IN "
            f"(SELECT {self.owner} FROM {owners})"
        )
        return int(run(sql, ()).fetchone()[0])

    def rows(self, run: Run) -> int:
        """How many bucket rows the table holds."""
        return int(run("SELECT count(*) FROM buckets", ()).fetchone()[0])
