"""Helpers for the tests of samecode's SQLite files."""

from __future__ import annotations

import os
import sqlite3

__all__ = ["run_sql"]


def run_sql(path: str | os.PathLike[str], *statements: str) -> None:
    """Run statements on a file behind its store's back, and commit them."""
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
