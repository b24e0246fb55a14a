"""The former home of :mod:`samecode.minhash.sqlitelsh`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.minhash.sqlitelsh`."""

from samecode.minhash.sqlitelsh import (
    FORMAT,
    FORMAT_VERSION,
    SQLiteLSH,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "SQLiteLSH",
]
