"""Helpers for the tests of samecode's SQLite files."""

from __future__ import annotations

import os
import sqlite3

__all__ = ["legacy_corpus", "run_sql"]


def run_sql(path: str | os.PathLike[str], *statements: str) -> None:
    """Run statements on a file behind its store's back, and commit them."""
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def legacy_corpus(path: str | os.PathLike[str], version: int, fragments: object = None):
    """A new corpus file of an older layout (format version 1, or 3 with ``fragments``:
    each file's shingles and fragment record kept), as a samecode before format version
    4 made it, open for writing; its settings are the defaults."""
    from fractions import Fraction

    from samecode.corpus.candidates import PrefixIndex
    from samecode.corpus.file_table import FILES_TABLE
    from samecode.corpus.fragment_tables import FRAGMENT_TABLES
    from samecode.corpus.settings import CorpusSettings
    from samecode.corpus.store import FORMAT, HASH_SCHEME, Corpus
    from samecode.text.shingling import Shingling

    settings = CorpusSettings(Shingling(), Fraction(4, 5), None, fragments)  # type: ignore[arg-type]
    meta = dict(settings.meta())
    meta["version"] = str(version)
    if version == 1:
        del meta["candidates"]
    statements = [FILES_TABLE, *PrefixIndex(Fraction(4, 5)).tables()]
    if fragments is not None:
        statements += FRAGMENT_TABLES
    rows = [("format", FORMAT), *meta.items(), ("hash_scheme", HASH_SCHEME)]
    return Corpus._create_path(os.fspath(path), 30.0, "corpus", statements, rows)
