"""Scratch files: the files a scan reads, kept on disk while it runs rather than in memory.

A scan of fragments reads every file once (its tokens with their spans, its k-grams:
:class:`~samecode.fragments.tokens.TokenSpans`, :class:`~samecode.fragments.kgrams.Kgrams`)
and then compares candidate pairs of files, each file in some twenty pairs. Held in the
process that gathers the fingerprints, the files would cost some 37 bytes a token there
(and again in any worker not forked from it). Instead, each batch read is written to a
file of its own in a scratch folder (:class:`ScratchFile`), and what the gathering
process keeps of a file is a :class:`ReadFile`: its path, token count, fingerprints,
ignored lines and where it was written. A task comparing pairs loads the files it names
(:func:`load`), and lets them go when it ends; the digests of clone classes need only the
token ids (:func:`load_ids`).

A scratch file is written and read by the same run on the same machine: its layout is
the machine's own (native byte order) and not kept. A file read is its token ids, then a
header giving the type and length of each of the other arrays, then those arrays' bytes
(no pickle: garbled bytes are never run as code). Per token it takes the bytes the arrays
take in memory, about 37 (see :class:`~samecode.fragments.kgrams.Kgrams`). A loader
checks every length against the bytes the file holds before it reads, so a scratch file
cut short or changed is a :class:`~samecode.errors.SamecodeValueError`, never a huge
allocation (a change within the arrays' values goes unseen: they are not checksummed,
which would double the time to load).

>>> import tempfile
>>> from samecode.fragments.kgrams import Kgrams
>>> from samecode.text.shingling import Shingling
>>> tokens = TokenSpans.of("a b c a b c\\nd e\\n", Shingling())
>>> kgrams = Kgrams.of(tokens.ids, k=2, window=2)
>>> folder = tempfile.mkdtemp()
>>> with ScratchFile(folder) as scratch:
...     read = scratch.write("x.txt", tokens, kgrams, ())
>>> read.path, read.tokens, len(read.fingerprints) == len(kgrams.selected)
('x.txt', 8, True)
>>> back_tokens, back_kgrams = load(read)
>>> back_tokens == tokens, back_kgrams.selected == kgrams.selected, load_ids(read) == tokens.ids
(True, True, True)
"""

from __future__ import annotations

import os
import struct
import tempfile
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import BinaryIO

from bitarray import bitarray
from bitarray.util import deserialize, serialize

from samecode.errors import SamecodeError, SamecodeValueError
from samecode.fragments.ignored import Ignored, masked_ranges
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.tokens import TokenSpans

__all__ = ["ReadFile", "ScratchFile", "load", "load_ids"]

#: After a file's token ids: the type code and length of ``starts``, ``ends`` and
#: ``line_starts`` (:class:`~samecode.fragments.tokens.TokenSpans`), and of ``hashes``,
#: ``selected``, ``positions`` and ``tops`` (:class:`~samecode.fragments.kgrams.Kgrams`),
#: then the bytes of ``sieve`` and of ``repeats`` serialized.
_HEADER = struct.Struct("=" + "cQ" * 7 + "QQ")
#: The bytes an item takes, by the type codes an array of integers may have.
_ITEM_SIZES = {code: array(code).itemsize for code in "bBhHiIlLqQ"}


@dataclass(frozen=True, slots=True)
class ReadFile:
    """What a scan keeps in memory of a file it read: its ``path``, its number of
    ``tokens``, the hashes of its ``fingerprints`` (sorted), the lines it ``ignored`` as
    boilerplate, where the rest was written: the ``scratch`` file, at ``offset``,
    ``ids`` bytes of token ids then ``size`` bytes of the rest, and the ``sha256`` of the
    bytes read. Picklable; 8 bytes per fingerprint."""

    path: str
    tokens: int
    fingerprints: array[int]
    ignored: Sequence[Ignored]
    scratch: str
    offset: int
    ids: int
    size: int
    sha256: str = ""

    @property
    def masked(self) -> list[tuple[int, int]]:
        """The tokens masked as boilerplate, as ``(first, stop)`` ranges, sorted
        (:func:`~samecode.fragments.ignored.masked_ranges`)."""
        return masked_ranges(self.ignored)


class ScratchFile:
    """A new file in ``folder`` (made with :func:`tempfile.mkstemp`, so that processes
    writing to the same folder never share one), to which :meth:`write` appends files
    read. A context manager: leaving it closes the file (which stays, for :func:`load`;
    the folder's owner removes it).

    :param folder: an existing folder.
    :raises OSError: if the file cannot be made.
    """

    def __init__(self, folder: str) -> None:
        try:
            handle, self.name = tempfile.mkstemp(suffix=".scratch", dir=folder)
        except OSError as error:
            raise _unwritable(error, folder) from None
        self._out: BinaryIO = os.fdopen(handle, "wb")
        self._at = 0

    def write(
        self,
        path: str,
        tokens: TokenSpans,
        kgrams: Kgrams,
        ignored: Sequence[Ignored],
        sha256: str = "",
    ) -> ReadFile:
        """Append a file read, and return what to keep of it (``sha256``: of its bytes).

        :raises OSError: if it cannot be written (a full disk: the message says where
            the scratch files go, and how to choose another folder).

        Runtime complexity: ``O(n)`` in C for its ``n`` tokens, and the sort of its
        fingerprints' hashes.
        """
        arrays = (tokens.starts, tokens.ends, tokens.line_starts, kgrams.hashes,
                  kgrams.selected, kgrams.positions, kgrams.tops)  # fmt: skip
        bits = (serialize(kgrams.sieve), serialize(kgrams.repeats))
        header = _HEADER.pack(
            *[field for values in arrays for field in (values.typecode.encode(), len(values))],
            *map(len, bits),
        )
        ids = len(tokens.ids) * tokens.ids.itemsize
        size = len(header) + sum(len(values) * values.itemsize for values in arrays)
        size += sum(map(len, bits))
        try:
            for part in (tokens.ids, header, *arrays, *bits):
                self._out.write(part)
        except OSError as error:
            raise _unwritable(error, self.name) from None
        hashes = kgrams.hashes
        fingerprints = array("Q", sorted(map(hashes.__getitem__, kgrams.selected)))
        read = ReadFile(
            path, len(tokens), fingerprints, ignored, self.name, self._at, ids, size, sha256
        )
        self._at += ids + size
        return read

    def __enter__(self) -> ScratchFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self._out.close()
        except OSError as error:
            raise _unwritable(error, self.name) from None


def _unwritable(error: OSError, where: str) -> OSError:
    """``error`` (writing scratch files at ``where``), saying where they go and why."""
    return OSError(
        error.errno,
        f"{error.strerror} (writing the scan's scratch files, in the system's temporary "
        "folder: the environment variable TMPDIR names another)",
        where,
    )


def _cut_short(read: ReadFile) -> SamecodeValueError:
    return SamecodeValueError(
        f"the scratch file {read.scratch!r} of {read.path!r} was cut short or changed "
        "while the scan ran"
    )


class _Damaged(SamecodeError):
    """A scratch file does not hold what was written to it (turned into
    :func:`_cut_short`'s error by the loaders)."""


def _array(handle: BinaryIO, code: str, count: int) -> array[int]:
    """``count`` items of type ``code``, read from ``handle`` where it is (the caller
    has checked that the file holds them)."""
    values = array(code)
    values.fromfile(handle, count)
    return values


def _ids(handle: BinaryIO, read: ReadFile, stop: int) -> array[int]:
    """The token ids, read from ``handle`` at their offset once the file is seen to hold
    its first ``stop`` bytes."""
    if os.fstat(handle.fileno()).st_size < stop:
        raise _Damaged
    handle.seek(read.offset)
    return _array(handle, "Q", read.ids // 8)


def load_ids(read: ReadFile) -> array[int]:
    """The token ids of a file written to a scratch file.

    :raises ValueError: if the scratch file was cut short.
    :raises OSError: if it cannot be read (removed, say).

    Runtime complexity: ``O(n)`` in C for its ``n`` tokens.
    """
    with open(read.scratch, "rb") as handle:
        try:
            return _ids(handle, read, read.offset + read.ids)
        except (_Damaged, EOFError, ValueError):  # also cut short since it was measured
            raise _cut_short(read) from None


def load(read: ReadFile) -> tuple[TokenSpans, Kgrams]:
    """The tokens and k-grams of a file written to a scratch file. Read straight into
    their arrays: loading takes about the memory they take, 37 bytes a token.

    :raises ValueError: if the scratch file was cut short or changed: every length it
        holds is checked against the bytes it holds before they are read.
    :raises OSError: if it cannot be read (removed, say).

    Runtime complexity: ``O(n)`` in C for its ``n`` tokens.
    """
    with open(read.scratch, "rb") as handle:
        try:
            return _load(handle, read)
        except (_Damaged, EOFError, ValueError, struct.error):
            raise _cut_short(read) from None


def _load(handle: BinaryIO, read: ReadFile) -> tuple[TokenSpans, Kgrams]:
    ids = _ids(handle, read, read.offset + read.ids + read.size)
    header = _HEADER.unpack(handle.read(_HEADER.size))
    codes = [code.decode("latin-1") for code in header[0:14:2]]
    counts: list[int] = list(header[1:14:2])
    bit_sizes: list[int] = list(header[14:])
    if not all(code in _ITEM_SIZES for code in codes):
        raise _Damaged
    size = _HEADER.size + sum(bit_sizes)
    size += sum(_ITEM_SIZES[code] * count for code, count in zip(codes, counts))
    starts, ends, _, hashes, _, positions, tops = counts
    if size != read.size or not len(ids) == starts == ends or not hashes == positions == tops:
        raise _Damaged
    arrays = [_array(handle, code, count) for code, count in zip(codes, counts)]
    sieve, repeats = (_bits(handle, size) for size in bit_sizes)
    tokens = TokenSpans(ids, arrays[0], arrays[1], arrays[2])
    return tokens, Kgrams(arrays[3], arrays[4], arrays[5], arrays[6], sieve, repeats)


def _bits(handle: BinaryIO, size: int) -> bitarray:
    """A bitarray serialized in ``size`` bytes, read from ``handle`` where it is."""
    data = handle.read(size)
    if len(data) != size:
        raise EOFError
    return deserialize(data)
