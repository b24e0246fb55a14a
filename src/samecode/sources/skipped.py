"""Why a path was not compared: one list of reasons, written once, for every entry point.

A walk, a read, a scan, fragments and a corpus all leave files out, and each says why
with a :class:`Skipped`: the path, the :class:`SkipReason` and, for some reasons, a
detail (the system's message, the rule that left a folder out). Reports show
:attr:`Skipped.reason`, the reason's text and its detail after a colon; summaries count
by :attr:`Skipped.kind`.

The reasons:

* ``missing``: a path given does not exist; ``vanished``: it disappeared while read;
* ``unreadable: <the system's message>``: the system refused to open or list it (a root
  included);
* ``not a regular file``: a device, a socket, a FIFO (also when swapped in while read);
* ``symlink loop``: a link that leads back into itself (only when following links);
* ``already walked``: a folder reached again through another link (only when following
  links): its files were walked once, under the first path;
* ``excluded folder: <rule>``: a folder the default rules leave out, with the rule (see
  :mod:`samecode.sources.walk`);
* ``too large``: more bytes than the walk's ``max_size``;
* ``binary``: a NUL byte in its first 8 KiB;
* ``no content``: a content given as ``None`` (a column, an object store);
* ``empty``: no token; ``too few tokens``: fewer than the walk's ``min_tokens``
  (:func:`too_few_tokens`, the one rule every entry point applies).

>>> Skipped("a.py", SkipReason.UNREADABLE, "Permission denied").reason
'unreadable: Permission denied'
>>> too_few_tokens("b.py", tokens=3, min_tokens=10)
Skipped(path='b.py', kind=<SkipReason.TOO_FEW_TOKENS: 'too few tokens'>, detail='')
>>> too_few_tokens("c.py", tokens=12, min_tokens=10) is None
True
"""

from __future__ import annotations

import enum
import errno
import os
from dataclasses import dataclass

__all__ = ["SkipReason", "Skipped", "skipped_for_error", "skipped_unreachable", "too_few_tokens"]


class SkipReason(enum.Enum):
    """Why a path was not compared (its value is the text reports show)."""

    MISSING = "missing"
    VANISHED = "vanished"
    UNREADABLE = "unreadable"
    NOT_REGULAR = "not a regular file"
    SYMLINK_LOOP = "symlink loop"
    ALREADY_WALKED = "already walked"
    EXCLUDED_FOLDER = "excluded folder"
    TOO_LARGE = "too large"
    BINARY = "binary"
    NO_CONTENT = "no content"
    EMPTY = "empty"
    TOO_FEW_TOKENS = "too few tokens"


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path that was not compared, and why.

    :param path: the path, as found.
    :param kind: the :class:`SkipReason`.
    :param detail: what the reason names, if anything (the system's message, a rule).
    """

    path: str
    kind: SkipReason
    detail: str = ""

    @property
    def reason(self) -> str:
        """The reason as reports show it: its text, and its detail after a colon.

        >>> Skipped("vendor", SkipReason.EXCLUDED_FOLDER, "vendor").reason
        'excluded folder: vendor'
        """
        return f"{self.kind.value}: {self.detail}" if self.detail else self.kind.value


def skipped_for_error(path: str, error: OSError) -> Skipped:
    """Why ``path`` could not be walked or read, from the system's ``error``.

    >>> skipped_for_error("x", FileNotFoundError(2, "No such file")).reason
    'vanished'
    >>> skipped_for_error("x", PermissionError(13, "Permission denied")).reason
    'unreadable: Permission denied'
    """
    if isinstance(error, FileNotFoundError):
        return Skipped(path, SkipReason.VANISHED)
    if error.errno == errno.ELOOP:
        return Skipped(path, SkipReason.SYMLINK_LOOP)
    return Skipped(path, SkipReason.UNREADABLE, str(error.strerror or error))


def skipped_unreachable(path: str) -> Skipped:
    """Why a path given (or a link found) leads nowhere: a ``symlink loop`` if it is a
    link into itself, else ``missing``.

    >>> skipped_unreachable("/no/such/path").reason
    'missing'
    """
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return Skipped(path, SkipReason.SYMLINK_LOOP)
    return Skipped(path, SkipReason.MISSING)


def too_few_tokens(path: str, tokens: int, min_tokens: int) -> Skipped | None:
    """The rule on a file's length every entry point applies: ``empty`` with no token,
    ``too few tokens`` under ``min_tokens``, else ``None`` (the file is compared)."""
    if tokens == 0:
        return Skipped(path, SkipReason.EMPTY)
    if tokens < min_tokens:
        return Skipped(path, SkipReason.TOO_FEW_TOKENS)
    return None
