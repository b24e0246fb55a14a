"""The former home of :mod:`samecode.hamming.sqlite`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.hamming.sqlite`."""

from samecode.hamming.sqlite import (
    FORMAT,
    FORMAT_VERSION,
    IndexCorruptError,
    IndexFileError,
    IndexLockedError,
    SQLiteIndex,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "IndexCorruptError",
    "IndexFileError",
    "IndexLockedError",
    "SQLiteIndex",
]
