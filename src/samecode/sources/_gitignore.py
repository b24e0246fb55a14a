"""Git's ignore rules, read as git reads them, for the walk (:mod:`samecode.sources.walk`).

``.gitignore`` files at every level, those above the walked folder up to its repository's
top folder included, and the repository's ``.git/info/exclude``, with git's own semantics
(negation, folder-only rules, anchored patterns, a folder excluded with everything under
it) and git's tolerance: a line git cannot use matches nothing, and no pattern takes more
than linear time. ``pathspec`` (installed with the ``cli`` extra) reads the rules.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from typing import Any

from samecode.sources.reading import READ_FLAGS

__all__ = ["Rules", "repository_rules", "spec", "verdict"]


def _pathspec() -> Any:
    try:
        import pathspec
    except ImportError:  # pragma: no cover - the cli extra brings it
        raise ImportError(
            "ignore rules and patterns need pathspec: pip install 'samecode[cli]'"
        ) from None
    return pathspec


def spec(lines: Iterable[str]) -> Any:
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


def verdict(spec: Any, relative: str) -> bool | None:
    """True if ``spec`` ignores ``relative``, False if it re-includes it, None if silent."""
    include = spec.check_file(relative).include
    return None if include is None else bool(include)


class Rules:
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
            decision = verdict(spec, up + name[len(base) :])
            if decision is not None:
                return decision
        return False

    def within(self, folder: str, relative: str) -> Rules:
        """The rules for the folder at ``folder`` (absolute) and ``relative`` to the root."""
        lines = _read_rules(os.path.join(folder, ".gitignore"))
        if not lines:
            return self
        base = relative + "/" if relative else ""
        return Rules((*self.specs, (base, "", spec(lines))))


def _read_rules(path: str) -> list[str]:
    """The lines of a rules file (its first MiB); none if it is not a regular file (a
    FIFO is not waited on) or cannot be read."""
    try:
        descriptor = os.open(path, READ_FLAGS)
    except OSError:
        return []
    with open(descriptor, "rb", closefd=True) as file:
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return []
            return file.read(1 << 20).decode("utf-8", "replace").splitlines()
        except OSError:
            return []


def repository_rules(root: str) -> Rules:
    """The rules in force at ``root`` before its own ``.gitignore``: its repository's
    ``info/exclude``, then every ``.gitignore`` from the repository's top folder (the
    nearest folder above holding ``.git``) down to ``root``'s parent."""
    here = os.path.abspath(root)
    chain = [here]
    while not os.path.lexists(os.path.join(chain[-1], ".git")):
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return Rules(())  # not in a repository: only the root's own rules
        chain.append(parent)
    top = chain[-1]
    specs: list[tuple[str, str, Any]] = []
    exclude = _read_rules(os.path.join(_git_folder(top), "info", "exclude"))
    if exclude:
        specs.append(("", _up(top, here), spec(exclude)))
    for folder in reversed(chain[1:]):  # top first; the root's own file is read by the walk
        lines = _read_rules(os.path.join(folder, ".gitignore"))
        if lines:
            specs.append(("", _up(folder, here), spec(lines)))
    if any(_excludes_a_folder_on_the_way(up, spec) for _, up, spec in specs):
        # The root lies in a folder the repository ignores (git would see nothing in
        # it); the user named it, so it is walked by its own rules, as outside a
        # repository.
        return Rules(())
    return Rules(tuple(specs))


def _excludes_a_folder_on_the_way(up: str, spec: Any) -> bool:
    """Whether ``spec`` ignores the root (``up``: its path from the rules' folder) or a
    folder on the way down to it."""
    parts = up.split("/")[:-1]
    return any(verdict(spec, "/".join(parts[: k + 1]) + "/") for k in range(len(parts)))


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
