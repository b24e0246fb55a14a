"""A corpus's dictionary: the bytes its texts are compressed against (format versions 7
and 8).

zlib compresses a text by referring back to strings it has already seen; a short text
has seen little when its first lines come, so it spells them out. A preset dictionary
(RFC 1950's ``FDICT``) is a string seen before the text starts: where a corpus's files
share their first lines (imports, licence headers, the names of a project), a text refers
to them in the dictionary instead. A corpus of format version 7 or 8 makes one dictionary
when a sync first stores :data:`FEWEST_FILES` texts or more, from the first
:data:`SAMPLE_BYTES` of :data:`SAMPLE_FILES` files spread evenly over those it is storing
(:func:`sample_paths`), keeps it, and compresses every text it stores from then on
against it (:func:`~samecode.corpus.records.pack_text`; the texts of smaller syncs before
are compressed without one). The dictionary never changes after: each text needs the one
it was packed against (its Adler-32 is in the text's zlib header, and a text packed
without one still reads). ``samecode index convert`` makes a corpus again with a
dictionary of a sample of all the texts it holds.

Measured on 2,000 generated files (``benchmarks/bench_corpus_fragments.py``'s, 7,257 bytes each)
and 2,000 of the standard libraries' (16,370): 3,366 bytes a text without a dictionary,
2,838 with one; 4,233 and 3,929. Compressing takes some 150 to 210 us more a text (the
window primed with the dictionary), decompressing some 14 to 18 us more
(``benchmarks/bench_text_dictionary.py``, which weighs other dictionaries too).

>>> dictionary = make_dictionary([b"import os\\nimport sys\\n", b"binary\\0data"])
>>> dictionary
b'import os\\nimport sys\\n'
>>> sample_paths([f"f{i}.py" for i in range(64)])[:3]
['f0.py', 'f4.py', 'f8.py']
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence

from samecode._validation import describe
from samecode.errors import SamecodeTypeError
from samecode.sources.reading import READ_FLAGS

__all__ = [
    "DICTIONARY_BYTES",
    "DICTIONARY_TABLE",
    "FEWEST_FILES",
    "SAMPLE_BYTES",
    "SAMPLE_FILES",
    "dictionary_from_files",
    "make_dictionary",
    "sample_paths",
]

#: How many files a dictionary is made from.
SAMPLE_FILES = 16
#: The fewest files a corpus makes its dictionary of: fewer are a poor sample of what it
#: will hold, and the dictionary never changes.
FEWEST_FILES = 8
#: How many bytes of the start of each.
SAMPLE_BYTES = 2048
#: The most a dictionary holds: zlib's window (it never refers further back).
DICTIONARY_BYTES = SAMPLE_FILES * SAMPLE_BYTES
#: The table that keeps a corpus's dictionary: no row until it is made, then one, with
#: the CRC-32 of its bytes.
DICTIONARY_TABLE = (
    "CREATE TABLE text_dictionary (id INTEGER PRIMARY KEY, data BLOB NOT NULL, "
    "crc INTEGER NOT NULL)"
)


def sample_paths(paths: Sequence[str]) -> list[str]:
    """The files a dictionary is made from: :data:`SAMPLE_FILES` of ``paths`` (all if
    fewer), spread evenly over them in their order, the first included.

    Runtime complexity: ``O(SAMPLE_FILES)``.

    >>> sample_paths(["a", "b", "c"])
    ['a', 'b', 'c']
    """
    count = min(SAMPLE_FILES, len(paths))
    return [paths[n * len(paths) // count] for n in range(count)]


def make_dictionary(samples: Iterable[bytes]) -> bytes:
    """A dictionary of ``samples`` (each a file's bytes, or their start): the first
    :data:`SAMPLE_BYTES` of each of the first :data:`SAMPLE_FILES` that hold no NUL byte
    (a binary file's bytes help no text), in their order; empty if none is left.

    :raises TypeError: for a sample that is not bytes.

    Runtime complexity: ``O(DICTIONARY_BYTES)``, plus a search for NUL in each sample's
    start.

    >>> len(make_dictionary([b"x" * 5000] * 20)) == DICTIONARY_BYTES
    True
    >>> make_dictionary(["text"])
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeTypeError: a sample must be bytes; got str 'text'
    """
    parts: list[bytes] = []
    for sample in samples:
        if not isinstance(sample, (bytes, bytearray)):
            raise SamecodeTypeError(f"a sample must be bytes; got {describe(sample)}")
        start = bytes(sample[:SAMPLE_BYTES])
        if start and b"\0" not in start:
            parts.append(start)
            if len(parts) == SAMPLE_FILES:
                break
    return b"".join(parts)


def dictionary_from_files(paths: Sequence[str]) -> bytes:
    """The dictionary of the files ``paths`` (:func:`make_dictionary` of the start of
    each of :func:`sample_paths`): a file that cannot be read, or is not a regular file
    (a FIFO, a device: opened without waiting, by the reading policy's
    :data:`~samecode.sources.reading.READ_FLAGS`, and never read), is left out.

    Runtime complexity: ``O(SAMPLE_FILES)`` reads of :data:`SAMPLE_BYTES` each.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.py")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"import os\\n")
    >>> dictionary_from_files([path, path + ".gone"])
    b'import os\\n'
    """
    samples = []
    for path in sample_paths(paths):
        try:
            with open(os.open(path, READ_FLAGS), "rb", closefd=True) as file:
                if stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                    samples.append(file.read(SAMPLE_BYTES))
        except OSError:  # gone, or a folder: its read reports it later
            continue
    return make_dictionary(samples)
