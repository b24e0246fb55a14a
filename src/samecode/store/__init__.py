"""The SQLite file layer under every store of the package (the Hamming index, the LSH
index and the corpus): creating and opening a file by its rules, one checksum per row,
locks and damage told apart (:mod:`samecode.store.file`).

>>> from samecode.store import IndexFileError
>>> issubclass(IndexFileError, OSError) and issubclass(IndexFileError, ValueError)
True
"""

from samecode.store.file import IndexCorruptError, IndexFileError, IndexLockedError, StoreFile

__all__ = ["IndexCorruptError", "IndexFileError", "IndexLockedError", "StoreFile"]
