"""Reading a file's text by one policy, for every entry point that reads files.

Files are read as bytes and decoded as UTF-8 (a byte-order mark dropped); bytes that are
not UTF-8 become U+FFFD, so a file of another encoding still compares with itself and its
copies. A file is never waited on (a FIFO swapped in is not read), and what cannot be
read is told with a :class:`~samecode.sources.skipped.Skipped`, not raised: a tree of real
files is full of them.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.sources.skipped import Skipped, SkipReason, skipped_for_error
from samecode.text.display import printable

__all__ = ["READ_FLAGS", "Text", "decode_text", "read_bytes", "read_comparable", "read_text"]

_SNIFF = 8192
#: A file is opened without waiting (a FIFO put in its place cannot block the read), then
#: checked to be a regular file by its descriptor.
READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


@dataclass(frozen=True)
class Text:
    """A file's text and what is known of its bytes."""

    path: str
    text: str
    size: int
    sha256: str


def read_text(path: str, max_size: int | None = None) -> Text | Skipped:
    """Read a file by the text policy; return its :class:`Text`, or why it was skipped.

    :param path: the file.
    :param max_size: the most bytes to read (``None``: no limit).

    The file is opened without blocking and checked by its open descriptor: a path
    swapped for a FIFO or a device after it was looked at is reported as ``not a regular
    file``, never waited on.

    Runtime complexity: ``O(size)``; memory about twice the file's size for its bytes and
    text, and never more than twice ``max_size``.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "t.txt")
    >>> _ = path.write_bytes(b"caf\\xc3\\xa9 \\xff!")
    >>> read_text(str(path)).text
    'café \\ufffd!'
    >>> _ = path.write_bytes(b"\\x00\\x01")
    >>> read_text(str(path)).reason
    'binary'
    """
    data = read_bytes(path, max_size)
    return data if isinstance(data, Skipped) else decode_text(path, data)


def read_bytes(path: str, max_size: int | None = None) -> bytes | Skipped:
    """Read a file's bytes by the policy of :func:`read_text` (a regular file, opened
    without blocking, at most ``max_size`` bytes), undecoded: what a corpus keeps of a
    file, to decode it again as :func:`decode_text` does.

    :param path: the file.
    :param max_size: the most bytes to read (``None``: no limit).

    Runtime complexity: ``O(size)``.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Skipped(path, SkipReason.NOT_REGULAR)
        if max_size is not None and info.st_size > max_size:
            return Skipped(path, SkipReason.TOO_LARGE)
        descriptor = os.open(path, READ_FLAGS)
        with open(descriptor, "rb", closefd=True) as file:
            # What was opened, not what was looked at: the path may have been swapped
            # (for a FIFO, a device) in between, and is never read then.
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return Skipped(path, SkipReason.NOT_REGULAR)
            limit = -1 if max_size is None else max_size + 1
            data = file.read(limit)
    except OSError as error:
        return skipped_for_error(path, error)
    if max_size is not None and len(data) > max_size:  # it grew while read
        return Skipped(path, SkipReason.TOO_LARGE)
    return data


def decode_text(path: str, data: bytes) -> Text | Skipped:
    """A file's bytes by the text policy (what :func:`read_text` does once it has read
    them, for bytes that come from elsewhere: a column, an object store): its
    :class:`Text`, or ``binary``.

    Runtime complexity: ``O(len(data))``.

    >>> decode_text("a.txt", b"\\xef\\xbb\\xbfcaf\\xc3\\xa9").text
    'café'
    >>> decode_text("b.bin", b"\\x00\\x01").reason
    'binary'
    """
    if b"\x00" in data[:_SNIFF]:
        return Skipped(path, SkipReason.BINARY)
    digest = hashlib.sha256(data).hexdigest()
    text = (
        data.decode("utf-8-sig", "replace")
        if data[:3] == b"\xef\xbb\xbf"
        else data.decode("utf-8", "replace")
    )
    return Text(path, text, len(data), digest)


def read_comparable(given: str | os.PathLike[str], max_size: int | None) -> tuple[str, str]:
    """Read a file named on a command line (to compare it with another), by the text
    policy: its path as a ``str`` and its text.

    :raises TypeError: for a path of the wrong type.
    :raises ValueError: for a file that cannot be compared, with why.

    >>> read_comparable("/no/such/file.py", None)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: cannot compare /no/such/file.py: missing (no such file)
    """
    if not isinstance(given, (str, os.PathLike)):
        raise SamecodeTypeError(f"a path must be a str or PathLike; got {describe(given)}")
    path = os.fspath(given)
    if not isinstance(path, str):
        raise SamecodeTypeError(f"a path must be a str or PathLike; got {describe(given)}")
    text = read_text(path, max_size)
    if isinstance(text, Skipped):
        raise SamecodeValueError(_cannot_compare(path, text))
    return path, text.text


def _cannot_compare(path: str, skipped: Skipped) -> str:
    reason = skipped.reason
    gone = skipped.kind in (SkipReason.VANISHED, SkipReason.MISSING)
    if gone and not os.path.lexists(path):
        reason = "missing (no such file)"
    return f"cannot compare {printable(path)}: {reason}"
