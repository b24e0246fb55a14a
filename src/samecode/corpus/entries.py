"""What a corpus holds of a file, and the one name it keeps a file under.

>>> import os
>>> identity("known") == identity("./known") == os.path.realpath("known")
True
>>> is_under("/a/b/c.py", "/a"), is_under("/ab/c.py", "/a")
(True, False)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["StoredFile", "identity", "is_under"]


@dataclass(frozen=True)
class StoredFile:
    """What a corpus holds of a file (its shingles apart)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    tokens: int
    shingles: int


def identity(path: str) -> str:
    """The one name a corpus keeps a file under: its real path (absolute, every
    symbolic link resolved), so ``known``, ``./known`` and ``$PWD/known`` are one entry."""
    return os.path.realpath(path)


def is_under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or inside it (both real paths)."""
    if path == root:
        return True
    return path.startswith(root if root.endswith(os.sep) else root + os.sep)
