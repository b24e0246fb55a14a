"""The former home of :mod:`samecode.scan.files`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.files`."""

from samecode.scan.files import (
    DEFAULT_EXCLUDES,
    Skipped,
    Text,
    find_files,
    read_text,
)

__all__ = [
    "DEFAULT_EXCLUDES",
    "Skipped",
    "Text",
    "find_files",
    "read_text",
]
