"""Finding and reading the files to compare: trees walked by git's rules, awkward files told.

:func:`find_files` walks files and folders as ``git`` would see them: ``.gitignore`` files
at every level (and ``.git/info/exclude``) with git's own semantics (negation, folder-only
rules, anchored patterns, a folder excluded with everything under it), plus include and
exclude patterns of the same syntax, and the folders of version control and vendored code
left out. :func:`read_text` reads one file by the documented policy. Both report what they
leave out, and why, instead of raising: a tree of real files is full of them.

Reasons a file is not read (``Skipped.reason``):

* ``missing``: a path given does not exist; ``vanished``: it disappeared while read;
* ``unreadable``: the system refused to open it (the message follows);
* ``not a regular file``: a device, a socket, a FIFO;
* ``symlink loop``: a link that leads back into itself (only when following links);
* ``too large``: more bytes than ``max_size`` (the text would not fit the memory bound);
* ``binary``: a NUL byte in its first 8 KiB.

Text policy: files are read as bytes and decoded as UTF-8 (a byte-order mark dropped);
bytes that are not UTF-8 become U+FFFD, so a file of another encoding still compares
with itself and its copies.

``pathspec`` (installed with the ``cli`` extra) reads the ignore rules; without it, only
walks with no rule at all (``gitignore=False``, no patterns) are possible.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError
from samecode.scan.model import Skipped

__all__ = [
    "DEFAULT_EXCLUDES",
    "Skipped",
    "Text",
    "find_files",
    "read_text",
]

#: Folders left out of every walk unless asked for: version control, vendored packages,
#: virtual environments and caches.
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "_darcs",
    "CVS",
    "node_modules",
    "bower_components",
    "vendor",
    "third_party",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".eggs",
)

_SNIFF = 8192


@dataclass(frozen=True)
class Text:
    """A file's text and what is known of its bytes."""

    path: str
    text: str
    size: int
    sha256: str


def _spec(lines: Iterable[str]) -> Any:
    try:
        from pathspec import GitIgnoreSpec
    except ImportError:  # pragma: no cover - the cli extra brings it
        raise ImportError(
            "ignore rules and patterns need pathspec: pip install 'samecode[cli]'"
        ) from None
    return GitIgnoreSpec.from_lines(list(lines))


def _verdict(spec: Any, relative: str) -> bool | None:
    """True if ``spec`` ignores ``relative``, False if it re-includes it, None if silent."""
    include = spec.check_file(relative).include
    return None if include is None else bool(include)


class _Rules:
    """The ignore rules in force in one folder: those of every ``.gitignore`` above it."""

    def __init__(self, specs: tuple[tuple[str, Any], ...]) -> None:
        self.specs = specs  # (folder relative to the root, with a trailing "/"), spec

    def ignores(self, relative: str, is_dir: bool) -> bool:
        name = relative + "/" if is_dir else relative
        for base, spec in reversed(self.specs):  # the deepest file decides first
            if not name.startswith(base):
                continue
            verdict = _verdict(spec, name[len(base) :])
            if verdict is not None:
                return verdict
        return False

    def within(self, folder: str, relative: str) -> _Rules:
        """The rules for the folder at ``folder`` (absolute) and ``relative`` to the root."""
        lines = _read_rules(os.path.join(folder, ".gitignore"))
        if not lines:
            return self
        base = relative + "/" if relative else ""
        return _Rules((*self.specs, (base, _spec(lines))))


def _read_rules(path: str) -> list[str]:
    try:
        with open(path, "rb") as file:
            return file.read(1 << 20).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def find_files(
    roots: Sequence[str | os.PathLike[str]],
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    gitignore: bool = True,
    default_excludes: bool = True,
    follow_symlinks: bool = False,
) -> Iterator[str | Skipped]:
    """Yield the files under ``roots`` (paths as found: a root joined with the path below
    it), in sorted order, or a :class:`Skipped` for a path that cannot be walked.

    A root that is a file is yielded as it is, whatever the rules.

    :param roots: files and folders.
    :param include: if given, only files matching one of these patterns (gitignore syntax,
        relative to the root) are yielded.
    :param exclude: files and folders matching these patterns are left out.
    :param gitignore: honour ``.gitignore`` files and ``.git/info/exclude``.
    :param default_excludes: leave out the folders of :data:`DEFAULT_EXCLUDES`.
    :param follow_symlinks: walk into linked folders (links to files are always read).
    :raises TypeError: if ``roots`` is a lone string, or a pattern is not a ``str``.
    :raises ImportError: if rules are asked for and ``pathspec`` is not installed.

    >>> import os, pathlib, tempfile
    >>> root = tempfile.mkdtemp()
    >>> for name in ["a.py", "b.log", "node_modules/x.js", "sub/c.py", ".gitignore"]:
    ...     path = pathlib.Path(root, name)
    ...     path.parent.mkdir(exist_ok=True)
    ...     _ = path.write_text("*.log" if name == ".gitignore" else "x")
    >>> [os.path.relpath(p, root) for p in find_files([root])]
    ['.gitignore', 'a.py', 'sub/c.py']
    """
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    for pattern in (*include, *exclude):
        if not isinstance(pattern, str):
            raise SamecodeTypeError(f"patterns must be str; got {describe(pattern)}")
    wanted = _spec(include) if include else None
    unwanted = _spec(exclude) if exclude else None
    for root in roots:
        root = os.fspath(root)
        if not os.path.lexists(root):
            yield Skipped(root, "missing")
            continue
        if not os.path.isdir(root):
            yield root
            continue
        rules = _Rules(())
        if gitignore:
            rules = _Rules(
                (("", _spec(_read_rules(os.path.join(root, ".git", "info", "exclude")))),)
            )
        yield from _walk(
            root,
            "",
            rules,
            gitignore,
            wanted,
            unwanted,
            frozenset(DEFAULT_EXCLUDES) if default_excludes else frozenset(),
            follow_symlinks,
            set(),
        )


def _walk(
    root: str,
    relative: str,
    rules: _Rules,
    gitignore: bool,
    wanted: Any,
    unwanted: Any,
    skip_names: frozenset[str],
    follow_symlinks: bool,
    visited: set[tuple[int, int]],
) -> Iterator[str | Skipped]:
    folder = os.path.join(root, relative) if relative else root
    try:
        info = os.stat(folder)
    except OSError as error:
        yield Skipped(folder, _reason(error))
        return
    key = (info.st_dev, info.st_ino)
    if key in visited:
        yield Skipped(folder, "symlink loop")
        return
    visited.add(key)
    if gitignore:
        rules = rules.within(folder, relative)
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        yield Skipped(folder, _reason(error))
        return
    for entry in entries:
        name = entry.name
        path_below = f"{relative}/{name}" if relative else name
        path = os.path.join(folder, name)
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError as error:
            yield Skipped(path, _reason(error))
            continue
        if is_dir:
            if name in skip_names or (gitignore and rules.ignores(path_below, True)):
                continue
            if unwanted is not None and _verdict(unwanted, path_below + "/"):
                continue
            if is_link and not follow_symlinks:
                continue
            yield from _walk(
                root,
                path_below,
                rules,
                gitignore,
                wanted,
                unwanted,
                skip_names,
                follow_symlinks,
                visited,
            )
            continue
        if gitignore and rules.ignores(path_below, False):
            continue
        if unwanted is not None and _verdict(unwanted, path_below):
            continue
        if wanted is not None and not _verdict(wanted, path_below):
            continue
        if is_link and not os.path.exists(path):
            yield Skipped(path, "symlink loop" if _loops(path) else "missing")
            continue
        yield path
    visited.discard(key)


def _loops(path: str) -> bool:
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == 40  # ELOOP
    return False


def _reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "vanished"
    if error.errno == 40:
        return "symlink loop"
    return f"unreadable: {error.strerror or error}"


def read_text(path: str, max_size: int | None = None) -> Text | Skipped:
    """Read a file by the text policy; return its :class:`Text`, or why it was skipped.

    :param path: the file.
    :param max_size: the most bytes to read (``None``: no limit).

    Runtime complexity: ``O(size)``; memory about twice the file's size for its bytes and
    text, and never more than twice ``max_size``.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "t.txt")
    >>> _ = path.write_bytes(b"caf\\xc3\\xa9 \\xff!")
    >>> read_text(str(path)).text
    'café \\ufffd!'
    >>> _ = path.write_bytes(b"\\x00\\x01")
    >>> read_text(str(path))
    Skipped(path='...t.txt', reason='binary')
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Skipped(path, "not a regular file")
        if max_size is not None and info.st_size > max_size:
            return Skipped(path, "too large")
        with open(path, "rb") as file:
            limit = -1 if max_size is None else max_size + 1
            data = file.read(limit)
    except OSError as error:
        return Skipped(path, _reason(error))
    if max_size is not None and len(data) > max_size:  # it grew while read
        return Skipped(path, "too large")
    if b"\x00" in data[:_SNIFF]:
        return Skipped(path, "binary")
    digest = hashlib.sha256(data).hexdigest()
    text = (
        data.decode("utf-8-sig", "replace")
        if data[:3] == b"\xef\xbb\xbf"
        else data.decode("utf-8", "replace")
    )
    return Text(path, text, len(data), digest)
