"""Finding and reading the files to compare: trees walked by git's rules, awkward files told.

:func:`find_files` walks files and folders as ``git`` would see them: ``.gitignore`` files
at every level, those above the walked folder up to its repository's top folder included,
and the repository's ``.git/info/exclude``, with git's own semantics (negation, folder-only
rules, anchored patterns, a folder excluded with everything under it) and git's tolerance
(a line git cannot use matches nothing; no pattern takes more than linear time), plus
include and exclude patterns of the same syntax, and the folders of version control,
vendored code and virtual environments left out. The walk keeps a stack, not a recursion
(a tree of any depth), and walks a folder reached twice (through links) once.
:func:`read_text` reads one file by the documented policy. Both report what they leave
out, and why, instead of raising: a tree of real files is full of them.

Reasons a path is not read (``Skipped.reason``; what precedes a colon is the kind):

* ``missing``: a path given does not exist; ``vanished``: it disappeared while read;
* ``unreadable: <the system's message>``: the system refused to open or list it (a root
  included);
* ``not a regular file``: a device, a socket, a FIFO (also when swapped in while read);
* ``symlink loop``: a link that leads back into itself (only when following links);
* ``already walked``: a folder reached again through another link (only when following
  links): its files were walked once, under the first path;
* ``excluded folder: <rule>``: a folder the default rules leave out, with the rule: its
  name (one of :data:`DEFAULT_EXCLUDES`), or ``virtual environment (pyvenv.cfg)`` for a
  folder holding ``pyvenv.cfg``, whatever its name;
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
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError

__all__ = [
    "DEFAULT_EXCLUDES",
    "Skipped",
    "Text",
    "decode_text",
    "find_files",
    "read_text",
]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path that was not compared, and why (see the module's list of reasons)."""

    path: str
    reason: str


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

_SNIFF = 8192
# A file is opened without waiting (a FIFO put in its place cannot block the read), then
# checked to be a regular file by its descriptor.
_READ_FLAGS = (
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


def _pathspec() -> Any:
    try:
        import pathspec
    except ImportError:  # pragma: no cover - the cli extra brings it
        raise ImportError(
            "ignore rules and patterns need pathspec: pip install 'samecode[cli]'"
        ) from None
    return pathspec


def _spec(lines: Iterable[str]) -> Any:
    """The rules of ``lines`` (gitignore syntax) as one ``GitIgnoreSpec``, with git's
    tolerance and costs: a line git cannot use is dropped (it matches nothing), and a
    pattern's stars are matched without runaway backtracking (see :func:`_linear`)."""
    pathspec = _pathspec()
    patterns = []
    for line in lines:
        usable = _usable(line)
        if usable is None:
            continue
        try:
            (pattern,) = pathspec.GitIgnoreSpec.from_lines([usable]).patterns or (None,)
        except (re.error, ValueError):  # what git would not match either
            continue
        if pattern is None or pattern.include is None or pattern.regex is None:
            continue
        safe = _linear(pattern.regex.pattern)
        if safe != pattern.regex.pattern:
            pattern = type(pattern)(re.compile(safe), pattern.include)
        patterns.append(pattern)
    try:  # pathspec 1: the plain re backend (others may not know look-aheads)
        return pathspec.GitIgnoreSpec(patterns, backend="simple")
    except TypeError:  # pragma: no cover - pathspec 0.12 has one backend
        return pathspec.GitIgnoreSpec(patterns)


def _usable(line: str) -> str | None:
    """A gitignore line as git reads it, or ``None`` if git would ignore the line.

    A line ending in an unescaped backslash (after trailing spaces are dropped) is invalid
    and matches nothing. A reversed range in a bracket expression (``[z-a]``) matches no
    character: it is removed, and a bracket expression left with nothing to match makes
    the line match nothing.
    """
    body = line.rstrip("\n\r")
    stripped = body.rstrip(" ")
    if stripped != body and _escaped(stripped, len(stripped)):
        stripped += " "  # an escaped space is kept
    if stripped.endswith("\\") and not _escaped(stripped, len(stripped) - 1):
        return None
    out: list[str] = []
    i, n = 0, len(stripped)
    while i < n:
        char = stripped[i]
        if char == "\\":
            out.append(stripped[i : i + 2])
            i += 2
            continue
        if char != "[":
            out.append(char)
            i += 1
            continue
        bracket = _bracket(stripped, i)
        if bracket is None:  # no closing bracket: git takes the rest literally
            out.append(stripped[i:])
            break
        end, negated, items = bracket
        kept = [item for item in items if len(item) == 1 or item[0] <= item[1]]
        if len(kept) == len(items):
            out.append(stripped[i : end + 1])
        elif kept:
            out.append("[" + ("!" if negated else "") + "".join(map(_item_text, kept)) + "]")
        elif negated:
            out.append("?")
        else:
            return None
        i = end + 1
    return "".join(out)


def _escaped(text: str, index: int) -> bool:
    """Whether the character at ``index`` follows an odd run of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _bracket(text: str, start: int) -> tuple[int, bool, list[str]] | None:
    """The bracket expression at ``start``: the index of its ``]``, whether it is negated,
    and its items (a character, or a range as two); ``None`` if unclosed or if it holds a
    character class (``[:alpha:]``, left to pathspec)."""
    i = start + 1
    negated = i < len(text) and text[i] in "!^"
    if negated:
        i += 1
    chars: list[str] = []
    first = True
    while i < len(text) and (first or text[i] != "]"):
        first = False
        if text.startswith("[:", i):
            return None
        if text[i] == "\\" and i + 1 < len(text):
            chars.append(text[i + 1])
            i += 2
        else:
            chars.append(text[i])
            i += 1
    if i >= len(text):
        return None
    items: list[str] = []
    k = 0
    while k < len(chars):
        if k + 2 < len(chars) and chars[k + 1] == "-":
            items.append(chars[k] + chars[k + 2])
            k += 3
        else:
            items.append(chars[k])
            k += 1
    return i, negated, items


def _item_text(item: str) -> str:
    return "-".join("\\" + char if char in "\\]-!^[" else char for char in item)


_STAR = "[^/]*"
# One fixed-width piece of a compiled pattern that cannot match "/": an escaped character,
# a bracket expression that is not negated and does not name "/" (pathspec's negated ones
# match "/", as git's do not; such pieces are left as they are), "[^/]" (a "?"), or a plain
# character (not one with a meaning of its own in a regular expression).
_ATOM = re.compile(r"\\.|\[\^/\]|\[\]?(?:\\.|[^\]\\^/])(?:\\.|[^\]\\/])*\]|[^\\\[\](){}|?*+.^$]")


def _linear(regex: str) -> str:
    """``regex`` (pathspec's translation of one pattern) with its stars made cheap.

    ``*a*a*b`` compiles to ``[^/]*a[^/]*a[^/]*b``, and ``a/**/a/**/b`` to
    ``a(?:/.+)?/a(?:/.+)?/b``, which a backtracking engine tries in ``O(n**stars)`` steps
    on a long name that almost matches. git answers at once; so do these. Every star
    followed, in the same path segment, by fixed-width pieces and another star only takes
    the first place where those pieces match; every ``**`` followed by whole segments and
    another ``**`` (and a leading ``**/`` followed by whole segments and a ``**``) only
    takes the first place where those segments match: an atomic group, written as a
    look-ahead and a back-reference. That is exact: if the rest matches after a later
    place, it also matches after the first, its own star taking up the difference. Runs
    of stars are one star.
    """
    while _STAR + _STAR in regex:
        regex = regex.replace(_STAR + _STAR, _STAR)
    return _linear_globstars(_linear_stars(regex))


def _linear_stars(regex: str) -> str:
    pieces = regex.split(_STAR)
    if len(pieces) < 3:
        return regex
    out = [pieces[0]]
    count = 0
    for index, piece in enumerate(pieces[1:], 1):
        fixed = bool(piece) and _ATOM.sub("", piece) == "" and "/" not in piece
        if fixed and index < len(pieces) - 1:
            count += 1
            name = f"_samecode_star{count}"
            out.append(f"(?=(?P<{name}>[^/]*?{piece}))(?P={name})")
        else:
            out.append(_STAR + piece)
    return "".join(out)


_GLOBSTAR = "(?:/.+)?"
_LEADING = "^(?:.+/)?"
_ATOMIC_STAR = re.compile(
    r"\(\?=\(\?P<_samecode_star\d+>\[\^/\]\*\?(?:" + _ATOM.pattern + r")+\)\)"
    r"\(\?P=_samecode_star\d+\)"
)


def _whole_segments(piece: str) -> bool:
    """Whether ``piece`` matches whole path segments only (fixed pieces, ``/`` and stars
    within segments) and cannot end with ``/``."""
    rest = _ATOMIC_STAR.sub("", piece).replace(_STAR, "")
    if not piece or piece.endswith("/") or _ATOM.sub("", rest) != "":
        return False
    if piece.endswith("]") and not piece.endswith("[^/]"):
        return "/" not in piece[piece.rfind("[") :]
    return True


def _linear_globstars(regex: str) -> str:
    pieces = regex.split(_GLOBSTAR)
    if len(pieces) < 3 and not (len(pieces) == 2 and pieces[0].startswith(_LEADING)):
        return regex
    out: list[str] = []
    first = pieces[0]
    if (
        first.startswith(_LEADING)
        and not first[len(_LEADING) :].startswith("/")
        and _whole_segments(first[len(_LEADING) :])
        and pieces[1].startswith("/")
    ):
        body = first[len(_LEADING) :]
        out.append(f"^(?=(?P<_samecode_lead>(?:.+?/)??{body}(?=/)))(?P=_samecode_lead)")
    else:
        out.append(first)
    for index, piece in enumerate(pieces[1:], 1):
        if (
            index < len(pieces) - 1
            and piece.startswith("/")
            and _whole_segments(piece)
            and pieces[index + 1].startswith("/")
        ):
            name = f"_samecode_globstar{index}"
            out.append(f"(?=(?P<{name}>(?:/.+?)??{piece}(?=/)))(?P={name})")
        else:
            out.append(_GLOBSTAR + piece)
    return "".join(out)


def _verdict(spec: Any, relative: str) -> bool | None:
    """True if ``spec`` ignores ``relative``, False if it re-includes it, None if silent."""
    include = spec.check_file(relative).include
    return None if include is None else bool(include)


class _Rules:
    """The ignore rules in force in one folder: those of every ``.gitignore`` above it.

    Each is ``(base, up, spec)``: it applies to paths (relative to the walked root) under
    ``base``, which it sees with ``base`` taken off and ``up`` put in front (the path from
    the rules' own folder down to the root, for the files above the root).
    """

    def __init__(self, specs: tuple[tuple[str, str, Any], ...]) -> None:
        self.specs = specs

    def ignores(self, relative: str, is_dir: bool) -> bool:
        name = relative + "/" if is_dir else relative
        for base, up, spec in reversed(self.specs):  # the deepest file decides first
            if not name.startswith(base):
                continue
            verdict = _verdict(spec, up + name[len(base) :])
            if verdict is not None:
                return verdict
        return False

    def within(self, folder: str, relative: str) -> _Rules:
        """The rules for the folder at ``folder`` (absolute) and ``relative`` to the root."""
        lines = _read_rules(os.path.join(folder, ".gitignore"))
        if not lines:
            return self
        base = relative + "/" if relative else ""
        return _Rules((*self.specs, (base, "", _spec(lines))))


def _read_rules(path: str) -> list[str]:
    """The lines of a rules file (its first MiB); none if it is not a regular file (a
    FIFO is not waited on) or cannot be read."""
    try:
        descriptor = os.open(path, _READ_FLAGS)
    except OSError:
        return []
    with open(descriptor, "rb", closefd=True) as file:
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return []
            return file.read(1 << 20).decode("utf-8", "replace").splitlines()
        except OSError:
            return []


def _repository_rules(root: str) -> _Rules:
    """The rules in force at ``root`` before its own ``.gitignore``: its repository's
    ``info/exclude``, then every ``.gitignore`` from the repository's top folder (the
    nearest folder above holding ``.git``) down to ``root``'s parent."""
    here = os.path.abspath(root)
    chain = [here]
    while not os.path.lexists(os.path.join(chain[-1], ".git")):
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return _Rules(())  # not in a repository: only the root's own rules
        chain.append(parent)
    top = chain[-1]
    specs: list[tuple[str, str, Any]] = []
    exclude = _read_rules(os.path.join(_git_folder(top), "info", "exclude"))
    if exclude:
        specs.append(("", _up(top, here), _spec(exclude)))
    for folder in reversed(chain[1:]):  # top first; the root's own file is read by the walk
        lines = _read_rules(os.path.join(folder, ".gitignore"))
        if lines:
            specs.append(("", _up(folder, here), _spec(lines)))
    if any(_excludes_a_folder_on_the_way(up, spec) for _, up, spec in specs):
        # The root lies in a folder the repository ignores (git would see nothing in
        # it); the user named it, so it is walked by its own rules, as outside a
        # repository.
        return _Rules(())
    return _Rules(tuple(specs))


def _excludes_a_folder_on_the_way(up: str, spec: Any) -> bool:
    """Whether ``spec`` ignores the root (``up``: its path from the rules' folder) or a
    folder on the way down to it."""
    parts = up.split("/")[:-1]
    return any(_verdict(spec, "/".join(parts[: k + 1]) + "/") for k in range(len(parts)))


def _up(folder: str, root: str) -> str:
    """The path from ``folder`` down to ``root`` (below it), with a trailing ``/``."""
    relative = os.path.relpath(root, folder).replace(os.sep, "/")
    return "" if relative == "." else relative + "/"


def _git_folder(top: str) -> str:
    """The git folder of the repository at ``top``: ``.git``, or where a ``.git`` file
    points (a worktree or submodule; a worktree's shared folder, if it names one)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    for line in _read_rules(dot_git):
        if line.startswith("gitdir:"):
            folder = os.path.join(top, line[len("gitdir:") :].strip())
            common = _read_rules(os.path.join(folder, "commondir"))
            return os.path.join(folder, common[0].strip()) if common else folder
    return dot_git


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
    wanted = _spec(include) if include else None
    unwanted = _spec(exclude) if exclude else None
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
                yield Skipped(root, "symlink loop" if _loops(root) else "missing")
            else:
                yield Skipped(root, _reason(error))
            continue
        if not stat.S_ISDIR(info.st_mode):
            yield root
            continue
        yield from walk.tree(root, _repository_rules(root) if gitignore else _Rules(()))


_Frame = tuple[str, _Rules, Iterator["os.DirEntry[str]"], tuple[int, int]]


@dataclass(frozen=True)
class _Walk:
    """What a walk leaves out and follows."""

    gitignore: bool
    wanted: Any
    unwanted: Any
    skip_names: frozenset[str]
    skip_venvs: bool
    follow_symlinks: bool

    def tree(self, root: str, rules: _Rules) -> Iterator[str | Skipped]:
        """The files under ``root``, depth first in sorted order, with a stack of open
        folders (no recursion); every folder is walked once."""
        walked: set[tuple[int, int]] = set()
        open_keys: set[tuple[int, int]] = set()
        stack: list[_Frame] = []
        opened = self._open(root, root, "", rules, walked, open_keys)
        if isinstance(opened, Skipped):
            yield opened
            return
        stack.append(opened)
        while stack:
            relative, rules, entries, key = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                open_keys.discard(key)
                continue
            name = entry.name
            path_below = f"{relative}/{name}" if relative else name
            path = entry.path
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError as error:
                yield Skipped(path, _reason(error))
                continue
            if is_dir:
                rule = self._excluded(name, path)
                if rule is not None:
                    yield Skipped(path, f"excluded folder: {rule}")
                    continue
                if self.gitignore and rules.ignores(path_below, True):
                    continue
                if self.unwanted is not None and _verdict(self.unwanted, path_below + "/"):
                    continue
                if is_link and not self.follow_symlinks:
                    continue
                opened = self._open(root, path, path_below, rules, walked, open_keys)
                if isinstance(opened, Skipped):
                    yield opened
                else:
                    stack.append(opened)
                continue
            if self.gitignore and rules.ignores(path_below, False):
                continue
            if self.unwanted is not None and _verdict(self.unwanted, path_below):
                continue
            if self.wanted is not None and not _verdict(self.wanted, path_below):
                continue
            if is_link and not os.path.exists(path):
                yield Skipped(path, "symlink loop" if _loops(path) else "missing")
                continue
            yield path

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
        rules: _Rules,
        walked: set[tuple[int, int]],
        open_keys: set[tuple[int, int]],
    ) -> _Frame | Skipped:
        """The frame of a folder to walk, or why it is not walked."""
        try:
            info = os.stat(folder)
        except OSError as error:
            return Skipped(folder, _reason(error))
        key = (info.st_dev, info.st_ino)
        if key in open_keys:
            return Skipped(folder, "symlink loop")
        if key in walked:
            return Skipped(folder, "already walked")
        walked.add(key)
        if self.gitignore:
            rules = rules.within(folder, relative)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            return Skipped(folder, _reason(error))
        open_keys.add(key)
        return relative, rules, iter(entries), key


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
    >>> read_text(str(path))
    Skipped(path='...t.txt', reason='binary')
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Skipped(path, "not a regular file")
        if max_size is not None and info.st_size > max_size:
            return Skipped(path, "too large")
        descriptor = os.open(path, _READ_FLAGS)
        with open(descriptor, "rb", closefd=True) as file:
            # What was opened, not what was looked at: the path may have been swapped
            # (for a FIFO, a device) in between, and is never read then.
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return Skipped(path, "not a regular file")
            limit = -1 if max_size is None else max_size + 1
            data = file.read(limit)
    except OSError as error:
        return Skipped(path, _reason(error))
    if max_size is not None and len(data) > max_size:  # it grew while read
        return Skipped(path, "too large")
    return decode_text(path, data)


def decode_text(path: str, data: bytes) -> Text | Skipped:
    """A file's bytes by the text policy (what :func:`read_text` does once it has read
    them, for bytes that come from elsewhere: a column, an object store): its
    :class:`Text`, or ``binary``.

    Runtime complexity: ``O(len(data))``.

    >>> decode_text("a.txt", b"\\xef\\xbb\\xbfcaf\\xc3\\xa9").text
    'café'
    >>> decode_text("b.bin", b"\\x00\\x01")
    Skipped(path='b.bin', reason='binary')
    """
    if b"\x00" in data[:_SNIFF]:
        return Skipped(path, "binary")
    digest = hashlib.sha256(data).hexdigest()
    text = (
        data.decode("utf-8-sig", "replace")
        if data[:3] == b"\xef\xbb\xbf"
        else data.decode("utf-8", "replace")
    )
    return Text(path, text, len(data), digest)
