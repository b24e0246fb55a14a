"""Helpers for the tests of samecode's SQLite files."""

from __future__ import annotations

import os
import sqlite3

__all__ = ["corpus_content", "legacy_corpus", "run_sql"]


def run_sql(path: str | os.PathLike[str], *statements: str) -> None:
    """Run statements on a file behind its store's back, and commit them."""
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def legacy_corpus(path: str | os.PathLike[str], version: int, fragments: object = None):
    """A new corpus file of an older layout (format version 1, or 3 with ``fragments``:
    each file's shingles and fragment record kept; 4: each file's text kept, keys in a
    row each; 5: keys in blocks not packed; 6: texts compressed without a dictionary, in
    pages of 4 KiB; or 7: blocks packed, not in buckets), as a samecode before format
    version 4 (5, 6, 7, 8) made it, open for writing; its settings are the defaults."""
    from fractions import Fraction

    from samecode.corpus.candidates import BlockKeyIndex, KeyIndex, PackedKeyIndex, PrefixIndex
    from samecode.corpus.file_table import FILES_TABLE, FILES_TABLES
    from samecode.corpus.fragment_tables import (
        FRAGMENT_BLOCK_TABLES,
        FRAGMENT_KEY_TABLES,
        FRAGMENT_TABLES,
    )
    from samecode.corpus.settings import CorpusSettings
    from samecode.corpus.store import FORMAT, HASH_SCHEME, Corpus
    from samecode.corpus.text_dictionary import DICTIONARY_TABLE
    from samecode.text.shingling import Shingling

    settings = CorpusSettings(Shingling(), Fraction(4, 5), None, fragments)  # type: ignore[arg-type]
    meta = dict(settings.meta())
    meta["version"] = str(version)
    if version == 1:
        del meta["candidates"]
    if version in (5, 6, 7):
        blocks = (BlockKeyIndex if version == 5 else PackedKeyIndex)(Fraction(4, 5))
        statements = [*FILES_TABLES, *blocks.tables()]
        statements += [DICTIONARY_TABLE] if version == 7 else []
        statements += FRAGMENT_BLOCK_TABLES if fragments is not None else ()
    elif version == 4:
        statements = [*FILES_TABLES, *KeyIndex(Fraction(4, 5)).tables()]
        statements += FRAGMENT_KEY_TABLES if fragments is not None else ()
    else:
        statements = [FILES_TABLE, *PrefixIndex(Fraction(4, 5)).tables()]
        statements += FRAGMENT_TABLES if fragments is not None else ()
    rows = [("format", FORMAT), *meta.items(), ("hash_scheme", HASH_SCHEME)]
    return Corpus._create_path(os.fspath(path), 30.0, "corpus", statements, rows)


def corpus_content(path: str | os.PathLike[str]) -> tuple[list[str], dict[str, list[int]]]:
    """What a corpus file holds, whatever batches wrote it: its SQL dump but for the rows
    of its tables of blocks and pending postings (whose cuts depend on the batches), and
    those tables' postings in order."""
    from contextlib import closing

    from samecode.corpus.key_blocks import KeyBlocks

    class Db:  # what a table of blocks reads of a store
        def __init__(self, connection: sqlite3.Connection) -> None:
            self.run, self.path = connection.execute, os.fspath(path)

    tables = {"prefix_blocks": 4, "fragment_blocks": 8}
    with closing(sqlite3.connect(path)) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema")}
        (version,) = connection.execute(
            "SELECT value FROM samecode_meta WHERE name = 'version'"
        ).fetchone()
        dump = [
            line
            for line in connection.iterdump()
            if not any(line.startswith(f'INSERT INTO "{table}') for table in tables)
        ]
        postings = {
            table: KeyBlocks(
                table, size, packed=version in ("6", "7"), buckets=version == "8"
            ).postings(
                Db(connection)  # type: ignore[arg-type]
            )
            for table, size in tables.items()
            if table in names
        }
    return dump, postings
