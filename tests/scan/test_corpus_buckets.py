"""One bucket-table layer (minhash/buckets.py) under SQLiteLSH and an LSH Corpus: the files it
makes are laid out exactly as before."""

from __future__ import annotations

import sqlite3

import pytest

from samecode.corpus.store import Corpus
from samecode.errors import SamecodeValueError
from samecode.minhash.buckets import BucketTable
from samecode.minhash.settings import LSHSettings
from samecode.minhash.sqlitelsh import SQLiteLSH

SETTINGS = LSHSettings(num_perm=64, threshold=0.5)


def schema(path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'bucket%'"))
    finally:
        db.close()


def test_the_bucket_tables_are_laid_out_as_before(tmp_path):
    SQLiteLSH.create(tmp_path / "lsh.db", SETTINGS).close()
    Corpus.create(tmp_path / "corpus.db", lsh=SETTINGS).close()
    assert schema(tmp_path / "lsh.db") == {
        "buckets": "CREATE TABLE buckets (bucket INTEGER NOT NULL, id INTEGER NOT NULL)",
        "buckets_bucket": "CREATE INDEX buckets_bucket ON buckets (bucket)",
        "buckets_id": "CREATE INDEX buckets_id ON buckets (id)",
    }
    assert schema(tmp_path / "corpus.db") == {
        "buckets": "CREATE TABLE buckets (bucket INTEGER NOT NULL, file INTEGER NOT NULL)",
        "buckets_bucket": "CREATE INDEX buckets_bucket ON buckets (bucket)",
        "buckets_file": "CREATE INDEX buckets_file ON buckets (file)",
    }


def test_a_bucket_table_refuses_other_owner_names():
    with pytest.raises(SamecodeValueError, match="owner must be"):
        BucketTable(SETTINGS, "id; DROP TABLE x")
    db = sqlite3.connect(":memory:")
    try:
        with pytest.raises(SamecodeValueError, match="owners must be"):
            BucketTable(SETTINGS, "id").orphans(db.execute, "files")
    finally:
        db.close()
