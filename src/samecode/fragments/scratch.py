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
the machine's own (native byte order) and not kept. Per token it takes the bytes the
arrays take in memory, about 37 (see :class:`~samecode.fragments.kgrams.Kgrams`).

>>> import tempfile
>>> from samecode.fragments.kgrams import Kgrams
>>> from samecode.scan.shingling import Shingling
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
import pickle
import tempfile
from array import array
from dataclasses import dataclass, replace
from types import TracebackType
from typing import BinaryIO

from samecode.errors import SamecodeValueError
from samecode.fragments.boilerplate import Ignored, masked_ranges
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.tokens import TokenSpans

__all__ = ["ReadFile", "ScratchFile", "load", "load_ids"]


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
    ignored: tuple[Ignored, ...]
    scratch: str
    offset: int
    ids: int
    size: int
    sha256: str = ""

    @property
    def masked(self) -> list[tuple[int, int]]:
        """The tokens masked as boilerplate, as ``(first, stop)`` ranges, sorted
        (:func:`~samecode.fragments.boilerplate.masked_ranges`)."""
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
        ignored: tuple[Ignored, ...],
        sha256: str = "",
    ) -> ReadFile:
        """Append a file read, and return what to keep of it (``sha256``: of its bytes).

        :raises OSError: if it cannot be written (a full disk: the message says where
            the scratch files go, and how to choose another folder).

        Runtime complexity: ``O(n)`` in C for its ``n`` tokens, and the sort of its
        fingerprints' hashes.
        """
        ids = tokens.ids.tobytes()
        rest = pickle.dumps(
            (replace(tokens, ids=array("Q")), kgrams), protocol=pickle.HIGHEST_PROTOCOL
        )
        try:
            self._out.write(ids)
            self._out.write(rest)
        except OSError as error:
            raise _unwritable(error, self.name) from None
        hashes = kgrams.hashes
        fingerprints = array("Q", sorted(map(hashes.__getitem__, kgrams.selected)))
        read = ReadFile(
            path,
            len(tokens),
            fingerprints,
            ignored,
            self.name,
            self._at,
            len(ids),
            len(rest),
            sha256,
        )
        self._at += len(ids) + len(rest)
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


def _ids(handle: BinaryIO, read: ReadFile) -> array[int]:
    """The token ids, read from ``handle`` at their offset."""
    ids = array("Q")
    handle.seek(read.offset)
    try:
        ids.fromfile(handle, read.ids // ids.itemsize)
    except EOFError:
        raise _cut_short(read) from None
    return ids


def load_ids(read: ReadFile) -> array[int]:
    """The token ids of a file written to a scratch file.

    :raises ValueError: if the scratch file was cut short.
    :raises OSError: if it cannot be read (removed, say).

    Runtime complexity: ``O(n)`` in C for its ``n`` tokens.
    """
    with open(read.scratch, "rb") as handle:
        return _ids(handle, read)


def load(read: ReadFile) -> tuple[TokenSpans, Kgrams]:
    """The tokens and k-grams of a file written to a scratch file. Read straight into
    their arrays: loading takes about the memory they take, 37 bytes a token.

    :raises ValueError: if the scratch file was cut short or changed.
    :raises OSError: if it cannot be read (removed, say).

    Runtime complexity: ``O(n)`` in C for its ``n`` tokens.
    """
    with open(read.scratch, "rb") as handle:
        ids = _ids(handle, read)
        try:
            tokens, kgrams = pickle.load(handle)
        except (EOFError, pickle.UnpicklingError):
            raise _cut_short(read) from None
    return replace(tokens, ids=ids), kgrams
