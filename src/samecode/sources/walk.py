"""Which files to compare: trees walked as git sees them, and what a walk leaves out.

:func:`find_files` walks files and folders as ``git`` would see them (its ignore rules,
:mod:`samecode.sources._gitignore`), plus include and exclude patterns of the same syntax,
and the folders of version control, vendored code and virtual environments left out. The
walk keeps a stack, not a recursion (a tree of any depth), and walks a folder reached
twice (through links) once. :func:`discover` walks every root and keeps each file once
however it is reached. :class:`WalkOptions` gathers what decides which files are read,
for every entry point that reads files (a scan, fragments, a corpus).

What a walk leaves out is told with a :class:`~samecode.sources.skipped.Skipped`, not
raised: a tree of real files is full of them.

``pathspec`` (installed with the ``cli`` extra) reads the ignore rules; without it, only
walks with no rule at all (``gitignore=False``, no patterns) are possible.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from samecode._validation import check_bool, check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.sources._gitignore import Rules, repository_rules, spec, verdict
from samecode.sources.skipped import (
    Skipped,
    SkipReason,
    skipped_for_error,
    skipped_unreachable,
)

__all__ = [
    "DEFAULT_EXCLUDES",
    "OTHERS_CODE",
    "WalkOptions",
    "discover",
    "find_files",
    "left_out_code",
]


#: Folders left out of every walk unless asked for: version control, vendored packages
#: and caches (virtual environments are known by their ``pyvenv.cfg``, not by name).
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
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".eggs",
)


#: The default rules that leave out folders of other people's code (vendored packages,
#: installed dependencies, virtual environments), as a skipped folder's detail names
#: them: what a scan says it left out, for a copy there is not looked at
#: (:func:`left_out_code`). The others are version control and caches.
OTHERS_CODE = frozenset(
    {
        "node_modules",
        "bower_components",
        "vendor",
        "third_party",
        "site-packages",
        ".eggs",
        "virtual environment (pyvenv.cfg)",
    }
)


@dataclass(frozen=True)
class WalkOptions:
    """Which files an entry point reads: where it walks, and which files it keeps.

    :param include: only files matching one of these patterns (gitignore syntax).
    :param exclude: leave out files and folders matching these patterns.
    :param gitignore: honour ``.gitignore`` files.
    :param default_excludes: leave out version-control and vendored folders
        (:data:`DEFAULT_EXCLUDES`) and virtual environments.
    :param follow_symlinks: walk into linked folders.
    :param max_size: files of more bytes are reported as too large (``None``: no limit).
    :param min_tokens: files with fewer tokens are reported, not compared
        (:func:`~samecode.sources.skipped.too_few_tokens`).
    :raises TypeError, ValueError: for a bad option, at construction.

    >>> WalkOptions(include=["*.py"]).include
    ('*.py',)
    >>> WalkOptions(min_tokens=0)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: min_tokens must be >= 1; got 0
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    default_excludes: bool = True
    follow_symlinks: bool = False
    max_size: int | None = 10 << 20
    min_tokens: int = 10

    def __post_init__(self) -> None:
        for flag in ("gitignore", "default_excludes", "follow_symlinks"):
            check_bool(getattr(self, flag), flag)
        check_int(self.min_tokens, "min_tokens")
        if self.min_tokens < 1:
            raise SamecodeValueError(f"min_tokens must be >= 1; got {self.min_tokens}")
        if self.max_size is not None:
            check_int(self.max_size, "max_size")
            if self.max_size < 1:
                raise SamecodeValueError(f"max_size must be >= 1 byte; got {self.max_size}")
        for name in ("include", "exclude"):
            patterns = getattr(self, name)
            if isinstance(patterns, str) or not all(isinstance(p, str) for p in patterns):
                raise SamecodeTypeError(
                    f"{name} must be a tuple of str patterns; got {describe(patterns)}"
                )
            object.__setattr__(self, name, tuple(patterns))


def discover(roots: Sequence[str], walk: WalkOptions) -> tuple[list[str], list[Skipped]]:
    """The files to read under ``roots`` (in the order found, each once) and the paths
    that could not be walked, by the rules of ``walk``.

    A file is one file however it is reached (``t`` and ``./t``, a relative and an
    absolute path, ``src`` and ``src/lib``, a link and its target): files are told apart
    by their device and inode, and each is shown by the first path that reached it (as
    the user spelled it).

    Runtime complexity: ``O(files + folders)`` system calls.

    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> with open(os.path.join(root, "a.py"), "w") as file:
    ...     _ = file.write("x")
    >>> paths, skipped = discover([root, os.path.join(root, ".", "a.py")], WalkOptions())
    >>> [os.path.basename(p) for p in paths], skipped
    (['a.py'], [])
    """
    paths: list[str] = []
    skipped: list[Skipped] = []
    seen: set[tuple[int, int] | str] = set()
    for found in find_files(
        roots,
        include=walk.include,
        exclude=walk.exclude,
        gitignore=walk.gitignore,
        default_excludes=walk.default_excludes,
        follow_symlinks=walk.follow_symlinks,
    ):
        if isinstance(found, Skipped):
            skipped.append(found)
            continue
        identity = _identity(found)
        if identity not in seen:
            seen.add(identity)
            paths.append(found)
    return paths, skipped


def _identity(path: str) -> tuple[int, int] | str:
    """A file's identity: its device and inode (the path itself if it cannot be
    stat'ed: reading it will say why)."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.abspath(path)
    return info.st_dev, info.st_ino


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
    it), in sorted order, or a :class:`Skipped` for a path that cannot be walked, and for
    each folder the default rules leave out (``excluded folder: <rule>``).

    A root that is a file is yielded as it is, whatever the rules. The walk is iterative
    (a tree of any depth), and a folder reached twice (by links, with
    ``follow_symlinks``) is walked once.

    :param roots: files and folders.
    :param include: if given, only files matching one of these patterns (gitignore syntax,
        relative to the root) are yielded.
    :param exclude: files and folders matching these patterns are left out.
    :param gitignore: honour ``.gitignore`` files (in the root, below it, and above it up
        to its repository's top folder) and the repository's ``.git/info/exclude``.
    :param default_excludes: leave out the folders of :data:`DEFAULT_EXCLUDES`, and every
        virtual environment (a folder holding ``pyvenv.cfg``).
    :param follow_symlinks: walk into linked folders (links to files are always read).
    :raises TypeError: if ``roots`` is a lone string, or a pattern is not a ``str``.
    :raises ImportError: if rules are asked for and ``pathspec`` is not installed.

    >>> import os, pathlib, tempfile
    >>> root = tempfile.mkdtemp()
    >>> for name in ["a.py", "b.log", "node_modules/x.js", "sub/c.py", ".gitignore"]:
    ...     path = pathlib.Path(root, name)
    ...     path.parent.mkdir(exist_ok=True)
    ...     _ = path.write_text("*.log" if name == ".gitignore" else "x")
    >>> found = list(find_files([root]))
    >>> [os.path.relpath(p, root) for p in found if isinstance(p, str)]
    ['.gitignore', 'a.py', 'sub/c.py']
    >>> [(os.path.relpath(s.path, root), s.reason) for s in found if isinstance(s, Skipped)]
    [('node_modules', 'excluded folder: node_modules')]
    """
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    for pattern in (*include, *exclude):
        if not isinstance(pattern, str):
            raise SamecodeTypeError(f"patterns must be str; got {describe(pattern)}")
    wanted = spec(include) if include else None
    unwanted = spec(exclude) if exclude else None
    walk = _Walk(
        gitignore,
        wanted,
        unwanted,
        frozenset(DEFAULT_EXCLUDES) if default_excludes else frozenset(),
        default_excludes,
        follow_symlinks,
    )
    for root in roots:
        root = os.fspath(root)
        try:
            info = os.stat(root)
        except OSError as error:
            if isinstance(error, (FileNotFoundError, NotADirectoryError)):
                yield skipped_unreachable(root)
            else:
                yield skipped_for_error(root, error)
            continue
        if not stat.S_ISDIR(info.st_mode):
            yield root
            continue
        yield from walk.tree(root, repository_rules(root) if gitignore else Rules(()))


_Frame = tuple[str, Rules, Iterator["os.DirEntry[str]"], tuple[int, int]]


@dataclass(frozen=True)
class _Walk:
    """What a walk leaves out and follows."""

    gitignore: bool
    wanted: Any
    unwanted: Any
    skip_names: frozenset[str]
    skip_venvs: bool
    follow_symlinks: bool

    def tree(self, root: str, rules: Rules) -> Iterator[str | Skipped]:
        """The files under ``root``, depth first in sorted order, with a stack of open
        folders (no recursion); every folder is walked once."""
        walked: set[tuple[int, int]] = set()
        open_keys: set[tuple[int, int]] = set()
        opened = self._open(root, root, "", rules, walked, open_keys)
        if isinstance(opened, Skipped):
            yield opened
            return
        stack = [opened]
        while stack:
            relative, rules, entries, key = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                open_keys.discard(key)
                continue
            below = f"{relative}/{entry.name}" if relative else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError as error:
                yield skipped_for_error(entry.path, error)
                continue
            if not is_dir:
                found = self._file(entry.path, below, is_link, rules)
                if found is not None:
                    yield found
                continue
            folder = self._folder(root, entry, below, is_link, rules, walked, open_keys)
            if isinstance(folder, Skipped):
                yield folder
            elif folder is not None:
                stack.append(folder)

    def _file(self, path: str, below: str, is_link: bool, rules: Rules) -> str | Skipped | None:
        """The file at ``path`` (``below`` the root) if the walk keeps it, why not if it
        cannot be read (a broken link), or ``None`` if the rules leave it out."""
        if self.gitignore and rules.ignores(below, False):
            return None
        if self.unwanted is not None and verdict(self.unwanted, below):
            return None
        if self.wanted is not None and not verdict(self.wanted, below):
            return None
        if is_link and not os.path.exists(path):
            return skipped_unreachable(path)
        return path

    def _folder(
        self,
        root: str,
        entry: os.DirEntry[str],
        below: str,
        is_link: bool,
        rules: Rules,
        walked: set[tuple[int, int]],
        open_keys: set[tuple[int, int]],
    ) -> _Frame | Skipped | None:
        """The frame of the folder ``entry`` (``below`` the root) to walk, why it is left
        out (a default rule, a loop, an error), or ``None`` if the rules leave it out."""
        rule = self._excluded(entry.name, entry.path)
        if rule is not None:
            return Skipped(entry.path, SkipReason.EXCLUDED_FOLDER, rule)
        if self.gitignore and rules.ignores(below, True):
            return None
        if self.unwanted is not None and verdict(self.unwanted, below + "/"):
            return None
        if is_link and not self.follow_symlinks:
            return None
        return self._open(root, entry.path, below, rules, walked, open_keys)

    def _excluded(self, name: str, path: str) -> str | None:
        """The default rule that leaves the folder ``name`` at ``path`` out, if any."""
        if name in self.skip_names:
            return name
        if self.skip_venvs and os.path.isfile(os.path.join(path, "pyvenv.cfg")):
            return "virtual environment (pyvenv.cfg)"
        return None

    def _open(
        self,
        root: str,
        folder: str,
        relative: str,
        rules: Rules,
        walked: set[tuple[int, int]],
        open_keys: set[tuple[int, int]],
    ) -> _Frame | Skipped:
        """The frame of a folder to walk, or why it is not walked."""
        try:
            info = os.stat(folder)
        except OSError as error:
            return skipped_for_error(folder, error)
        key = (info.st_dev, info.st_ino)
        if key in open_keys:
            return Skipped(folder, SkipReason.SYMLINK_LOOP)
        if key in walked:
            return Skipped(folder, SkipReason.ALREADY_WALKED)
        walked.add(key)
        if self.gitignore:
            rules = rules.within(folder, relative)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            return skipped_for_error(folder, error)
        open_keys.add(key)
        return relative, rules, iter(entries), key


def left_out_code(skipped: Iterable[Skipped]) -> list[tuple[str, int]]:
    """The folders of other people's code a walk left out by default (:data:`OTHERS_CODE`)
    among ``skipped``, each with how many files it holds (links not followed): what a
    scan says it did not look at, so that no one takes its silence for an all-clear.

    Runtime complexity: one listing of every folder under each folder left out.

    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(root, "vendor", "lib"))
    >>> for name in ("a.py", "lib/b.py"):
    ...     with open(os.path.join(root, "vendor", name), "w") as file:
    ...         _ = file.write("x = 1")
    >>> _, skipped = discover([root], WalkOptions())
    >>> [(os.path.basename(path), files) for path, files in left_out_code(skipped)]
    [('vendor', 2)]
    """
    out: list[tuple[str, int]] = []
    for item in skipped:
        if item.kind is SkipReason.EXCLUDED_FOLDER and item.detail in OTHERS_CODE:
            out.append((item.path, _files_under(item.path)))
    return out


def _files_under(folder: str) -> int:
    """How many files (not folders; links counted, not followed) are under ``folder``; a
    folder that cannot be listed counts none."""
    count = 0
    pending = [folder]
    while pending:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                        else:
                            count += 1
                    except OSError:
                        continue
        except OSError:
            continue
    return count
