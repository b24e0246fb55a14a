"""The former home of :mod:`samecode.scan.corpus`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.corpus`."""

from samecode.scan.corpus import (
    FORMAT,
    FORMAT_VERSION,
    HASH_SCHEME,
    Corpus,
    StoredFile,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "HASH_SCHEME",
    "Corpus",
    "StoredFile",
]
