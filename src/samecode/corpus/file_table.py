"""The ``files`` table of a corpus: one row per stored file, checked by its checksum.

A row holds a file's path (text, or its bytes for a name that is not UTF-8), size,
modification time, SHA-256, token count, shingle count and, in a corpus of format version
4 to 8, its bytes compressed (:func:`~samecode.corpus.records.pack_text`; its shingles made
again from them, the bytes checked against the SHA-256 first), or its ascending shingles
as one blob of 8-byte little-endian values (versions 1 to 3, and a document added without
its bytes), and a CRC-32 of all of them: a row that fails it is never used.
:class:`FileTable` reads and writes these rows; a :class:`~samecode.corpus.store.Corpus`
is one, with the tables that find candidates and
fragments beside it.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from samecode._validation import describe
from samecode.corpus.entries import StoredFile
from samecode.corpus.records import needed_dictionary, unpack_text
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.model import Document
from samecode.sources.reading import Text, decode_text
from samecode.sources.skipped import Skipped
from samecode.store.file import IndexCorruptError, Statements, StoreFile
from samecode.text.shingling import Shingling

__all__ = ["FILES_TABLE", "FILES_TABLES", "FileTable", "orphan_rows", "shingles_blob", "str_paths"]

#: The statement that makes the table.
FILES_TABLE = (
    "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, "
    "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, "
    "tokens INTEGER NOT NULL, count INTEGER NOT NULL, "
    "shingles BLOB NOT NULL, crc INTEGER NOT NULL)"
)
#: The statements that make it in a corpus of format version 4 to 8: each row keeps the
#: file's bytes, compressed, in ``text`` (and no shingles), or, for a document added
#: without its bytes, ``text`` NULL and its shingles; SHA-256 indexed.
FILES_TABLES = (
    FILES_TABLE[:-1] + ", text BLOB)",
    "CREATE INDEX files_sha256 ON files (sha256)",
)


def str_paths(paths: Iterable[str]) -> list[str]:
    """``paths`` as a list, each checked to be a str path.

    :raises TypeError: for a path that is not a str path.
    """
    wanted = [os.fspath(path) for path in paths]
    for path in wanted:
        if not isinstance(path, str):
            raise SamecodeTypeError(f"paths must be str paths; got {describe(path)}")
    return wanted


def orphan_rows(sql: Statements, tables: Iterable[str]) -> dict[str, int]:
    """Of ``tables``, each with a ``file`` column naming a row of ``files``, how many rows
    name files that are gone, by table (none: left out)."""
    found = {}
    for table in tables:
        (count,) = sql.run(
            f"SELECT count(*) FROM {table} WHERE file NOT IN (SELECT id FROM files)"
        ).fetchone()
        if count:
            found[table] = count
    return found


def shingles_blob(shingles: array[int]) -> bytes:
    """Ascending shingles as a row holds them: 8-byte little-endian values.

    >>> shingles_blob(array("Q", [1, 2]))[:9]
    b'\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02'
    """
    values = array("Q", shingles)
    if values.itemsize != 8:  # pragma: no cover - every platform samecode runs on
        raise OSError("this platform has no 8-byte unsigned array type")
    if sys.byteorder != "little":
        values.byteswap()  # pragma: no cover - big-endian machines
    return values.tobytes()


def _db_path(path: str) -> str | bytes:
    """A path as SQLite can hold it: text, or for a name that is not UTF-8 (Python keeps
    its bytes as lone surrogates) the name's bytes."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def _py_path(value: object) -> str:
    """A stored path back as Python names it (bytes through :func:`os.fsdecode`)."""
    return os.fsdecode(value) if isinstance(value, bytes) else str(value)


def _shingles_of(blob: bytes) -> array[int]:
    values = array("Q")
    values.frombytes(blob)
    if sys.byteorder != "little":
        values.byteswap()  # pragma: no cover - big-endian machines
    return values


def _crc(
    path: str, size: int, mtime_ns: int, sha256: str, tokens: int, blob: bytes, text: bytes
) -> int:
    head = json.dumps([path, size, mtime_ns, sha256, tokens], ensure_ascii=True).encode()
    return zlib.crc32(text, zlib.crc32(blob, zlib.crc32(head)))


class FileTable(StoreFile):
    """A store whose ``files`` table holds a checked row per file (see the module).

    Where rows keep the file's text (:attr:`_keeps_text`, format versions 4 to 8), its
    shingles are made again from it by :attr:`_shingling` when they are read; in version
    7 a text may be compressed against the corpus's :attr:`_dictionary`
    (:mod:`samecode.corpus.text_dictionary`).
    """

    _keeps_text = False
    _shingling = Shingling()
    _dictionary = b""
    #: Whether its format keeps a dictionary (versions 7 and 8: a ``text_dictionary`` table).
    _has_dictionary = False

    def _held_dictionary(self, packed: bytes) -> bytes:
        """The corpus's dictionary, read again where the text ``packed`` needs one and
        none was made when this connection opened (another process's first sync made it
        since)."""
        if (
            self._has_dictionary
            and not self._dictionary
            and isinstance(packed, bytes)
            and needed_dictionary(packed) is not None
        ):
            self._dictionary = self._stored_dictionary()
        return self._dictionary

    def _unpack(self, packed: bytes, path: str) -> bytes:
        """A text's bytes (:func:`~samecode.corpus.records.unpack_text`) against the
        corpus's dictionary.

        :raises TypeError, ValueError: as :func:`~samecode.corpus.records.unpack_text`.
        """
        return unpack_text(packed, path, self._held_dictionary(packed))

    def _check_packed(self, packed: bytes, path: str) -> None:
        """Refuse a text given to store that was packed against a dictionary other than
        the corpus's (or against one, where it keeps none): it could never be read back.
        ``O(1)``, from the text's header; what follows is checked where it is not
        trusted (against its SHA-256).

        :raises TypeError: if ``packed`` is not bytes.
        :raises ValueError: for such a text.
        """
        if not isinstance(packed, bytes):
            raise SamecodeTypeError(
                f"the text given for {path!r} must be bytes; got {describe(packed)}"
            )
        wanted, held = needed_dictionary(packed), self._held_dictionary(packed)
        if wanted is not None and (not held or wanted != zlib.adler32(held)):
            raise SamecodeValueError(
                f"the text given for {path!r} was packed against a dictionary other than "
                "this corpus's (pack its texts against corpus.text_dictionary(paths): "
                "samecode.corpus.records.read_stored(..., dictionary=...))"
            )

    def _stored_dictionary(self) -> bytes:
        """The dictionary the ``text_dictionary`` table keeps (empty if none is made
        yet), checked against its CRC-32.

        :raises IndexCorruptError: if its row fails the check, or there are more.
        """
        rows = self._run("SELECT data, crc FROM text_dictionary").fetchall()
        if not rows:
            return b""
        if (
            len(rows) > 1
            or not isinstance(rows[0][0], bytes)
            or (zlib.crc32(rows[0][0]) != rows[0][1])
        ):
            raise IndexCorruptError(self._path, "its texts' dictionary fails its checksum")
        return bytes(rows[0][0])

    def _keep_dictionary(self, made: bytes) -> bytes:
        """Keep ``made`` as the corpus's dictionary unless it has one (perhaps made by
        another process meanwhile), in a transaction of its own; return the one kept."""
        with self._transaction():
            held = self._stored_dictionary()
            if not held and made:
                self._run(
                    "INSERT INTO text_dictionary (id, data, crc) VALUES (1, ?, ?)",
                    (made, zlib.crc32(made)),
                )
                held = made
        self._dictionary = held
        return held

    @property
    def _row_columns(self) -> str:
        """The columns :meth:`_checked` takes, in its order."""
        text = "text" if self._keeps_text else "NULL"
        return f"path, size, mtime_ns, sha256, tokens, count, shingles, crc, {text}"

    def __len__(self) -> int:
        return int(self._run("SELECT count(*) FROM files").fetchone()[0])

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        row = self._run("SELECT 1 FROM files WHERE path = ?", (_db_path(path),)).fetchone()
        return row is not None

    def files(self) -> Iterator[StoredFile]:
        """Iterate over the files held, by path."""
        rows = self._run(
            "SELECT path, size, mtime_ns, sha256, tokens, count FROM files ORDER BY path"
        )
        return (StoredFile(_py_path(row[0]), *row[1:]) for row in rows)

    def stored(self, path: str) -> StoredFile | None:
        """What the corpus holds of ``path``, or ``None``."""
        row = self._run(
            "SELECT path, size, mtime_ns, sha256, tokens, count FROM files WHERE path = ?",
            (_db_path(path),),
        ).fetchone()
        return None if row is None else StoredFile(_py_path(row[0]), *row[1:])

    def stored_text(self, path: str) -> Text | None:
        """The text the corpus keeps of ``path`` (format versions 4 to 8: its bytes, checked
        against their SHA-256), or ``None`` if it holds no such file or keeps no texts.

        :raises IndexCorruptError: if the entry fails its checks.

        Runtime complexity: ``O(size)`` to decompress and hash the text.
        """
        file_id = self._file_id(path)
        if file_id is None:
            return None
        return self._checked_text(self._row(file_id))[1]

    def same_bytes(self, sha256s: Iterable[str]) -> dict[str, list[int]]:
        """For each SHA-256 among ``sha256s`` that stored files have, the ids of those
        files (ascending): the files byte-identical to a query.

        Runtime complexity: a look-up per SHA-256 where the column is indexed (format
        versions 4 to 8), else one pass over the files' rows.
        """
        wanted = sorted(set(sha256s))
        found: dict[str, list[int]] = {}
        rows = self._rows_in(
            "SELECT sha256, id FROM files WHERE sha256 IN ({}) ORDER BY id", wanted
        )
        for sha256, file_id in rows:
            found.setdefault(sha256, []).append(file_id)
        return found

    def touch(self, path: str, mtime_ns: int) -> None:
        """Record a new modification time for a file whose bytes did not change."""
        self._check_writable()
        text = "text" if self._keeps_text else "NULL"
        row = self._run(
            f"SELECT size, sha256, tokens, shingles, {text} FROM files WHERE path = ?",
            (_db_path(path),),
        ).fetchone()
        if row is None:
            raise KeyError(path)
        size, sha256, tokens, blob, packed = row
        crc = _crc(path, size, mtime_ns, sha256, tokens, blob, packed or b"")
        with self._transaction():
            self._run(
                "UPDATE files SET mtime_ns = ?, crc = ? WHERE path = ?",
                (mtime_ns, crc, _db_path(path)),
            )

    def _file_id(self, path: str) -> int | None:
        """The id of the row stored under exactly ``path``, or ``None``."""
        row = self._run("SELECT id FROM files WHERE path = ?", (_db_path(path),)).fetchone()
        return None if row is None else int(row[0])

    def _insert_file(
        self, document: Document, mtime: int, blob: bytes, text: bytes | None = None
    ) -> int:
        """Insert a file's row (inside a transaction): its shingles ``blob``, or, where
        rows keep it, its compressed ``text`` (and an empty blob); return its id."""
        values: list[object] = [
            _db_path(document.path),
            document.size,
            mtime,
            document.sha256,
            document.tokens,
            len(document.shingles),
            blob,
            _crc(
                document.path,
                document.size,
                mtime,
                document.sha256,
                document.tokens,
                blob,
                text or b"",
            ),
        ]
        columns = "path, size, mtime_ns, sha256, tokens, count, shingles, crc"
        if self._keeps_text:
            columns += ", text"
            values.append(text)
        cursor = self._run(
            f"INSERT INTO files ({columns}) VALUES ({', '.join('?' * len(values))})", values
        )
        file_id = cursor.lastrowid
        if file_id is None:  # pragma: no cover - an INSERT always has a row id
            raise IndexCorruptError(self._path, "SQLite gave no row id")
        return file_id

    def fragment_path(self, file_id: int) -> str:
        """The path stored file ``file_id`` is kept under.

        :raises IndexCorruptError: if there is no such file.
        """
        return self._path_of(file_id, "the index")

    def _path_of(self, file_id: int, named_by: str) -> str:
        """The path of the row ``file_id``, which ``named_by`` names.

        :raises IndexCorruptError: if there is no such row.
        """
        row = self._run("SELECT path FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is None:
            raise IndexCorruptError(self._path, f"{named_by} names file {file_id}, which is gone")
        return _py_path(row[0])

    def _row(self, file_id: int) -> Sequence[Any]:
        """The ``files`` row of ``file_id``, as :meth:`_checked` takes it."""
        row = self._run(
            f"SELECT {self._row_columns} FROM files WHERE id = ?", (file_id,)
        ).fetchone()
        if row is None:  # rows of a damaged file
            raise IndexCorruptError(self._path, f"a candidate names file {file_id}, which is gone")
        return row  # type: ignore[no-any-return]

    def _load(self, file_id: int) -> tuple[str, array[int]]:
        return self._checked(self._row(file_id))

    def _text(self, file_id: int) -> Text:
        """The text of stored file ``file_id``, under its stored path, checked: its
        bytes are those of its SHA-256.

        :raises IndexCorruptError: if the row fails its checks or keeps no text.
        """
        path, text = self._checked_text(self._row(file_id))
        if text is None:
            raise IndexCorruptError(self._path, f"the entry of {path!r} keeps no text")
        return text

    def _checked(self, row: Sequence[Any]) -> tuple[str, array[int]]:
        """A ``files`` row's path and shingles, checked against its checksum (made again
        from its text where it keeps one)."""
        path, shingles, _ = self._checked_row(row)
        return path, shingles

    def _checked_row(self, row: Sequence[Any]) -> tuple[str, array[int], Text | None]:
        """A ``files`` row's path, shingles and text (``None`` where it keeps none),
        checked against its checksum, its text against its SHA-256, and the count of its
        shingles."""
        path, text = self._checked_text(row)
        if text is None:
            shingles = _shingles_of(row[6])  # its stored shingles, of the checked blob
        else:
            _, shingles = self._shingling.measure(text.text, path)
            shingles = array("Q", sorted(shingles))
        if len(shingles) != row[5]:  # the count, which the checksum does not cover
            raise IndexCorruptError(self._path, f"the entry of {path!r} is damaged")
        return path, shingles, text

    def _checked_text(self, row: Sequence[Any]) -> tuple[str, Text | None]:
        """A ``files`` row's path and text (``None`` where it keeps none), checked against
        its checksum and its text against its SHA-256: what a reader of the text alone
        needs, without the shingles made again from it (a fifth of ``match --fragments``,
        whose candidates are fingerprinted again anyway)."""
        stored_path, size, mtime, sha256, tokens, _, blob, crc, packed = row
        path = _py_path(stored_path)
        if (
            not isinstance(blob, bytes)
            or not isinstance(packed, (bytes, type(None)))
            or _crc(path, size, mtime, sha256, tokens, blob, packed or b"") != crc
        ):
            raise IndexCorruptError(self._path, f"the entry of {path!r} fails its checksum")
        if packed is None:
            return path, None
        try:
            data = self._unpack(packed, path)
        except SamecodeValueError as error:
            raise IndexCorruptError(self._path, str(error)) from None
        read = decode_text(path, data)
        if isinstance(read, Skipped) or read.sha256 != sha256:
            raise IndexCorruptError(self._path, f"the text of {path!r} is damaged")
        return path, read

    def _stored_sets(self, ids: Sequence[int]) -> Iterator[tuple[str, array[int]]]:
        """The path and shingles of each of the stored files ``ids`` (ascending), each
        checked, read a few hundred at a time. An id no longer stored is left out: its
        file was removed (by another process) since a probe found it, and a probe
        refuses an id that names no file (a damaged corpus) when it finds it."""
        rows = self._rows_in(
            f"SELECT {self._row_columns} FROM files WHERE id IN ({{}}) ORDER BY id", ids
        )
        for row in rows:
            yield self._checked(row)
