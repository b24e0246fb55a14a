"""Boilerplate: the text fragments ignore, and why: licence headers, import blocks, the
message ids of translation catalogues, and the text of files named as boilerplate.

Such tokens are *masked*: they keep their ids, but no k-gram over any of them is a
fingerprint or is looked up (:meth:`Kgrams.of <samecode.fragments.kgrams.Kgrams.of>`
takes the masked ranges and gives those k-grams a hash no other has), so boilerplate
never *seeds* a match, on either side. A match seeded elsewhere still runs on through
masked tokens that both texts hold alike: a copied block keeps its imports, and a copied
file its licence header (a digest counts masked tokens as 0,
:mod:`~samecode.fragments.digest`). What was masked is reported, as ranges of lines with
their reason and token count (:mod:`~samecode.fragments.ignored`).

The rules (:func:`licence_header`, :func:`import_blocks`):

* A **licence header** is the file's leading comment block: after blank lines and a
  ``#!`` line, the comment lines that follow each other (blank lines between them
  included) by the file's language (:func:`~samecode.text.languages.language_of`: ``#``,
  ``//``, ``--``, ``/* ... */``, ``<!-- ... -->``...; a leading ``\"\"\"`` or ``'''``
  string in Python), when it holds one of the words ``license``, ``licence``,
  ``copyright``, ``SPDX-License-Identifier``, ``all rights reserved`` or
  ``permission is hereby granted`` (in any case). Kept with ``keep_licenses``.
* An **import block** is a maximal run of lines that are import statements of the file's
  language, a statement's continuation lines included: Python ``import x`` and ``from x
  import y`` (with parentheses or ``\\`` over several lines); C and C++ ``#include`` and
  ``#import``; Java, Kotlin, Scala, Groovy, Swift and Dart ``import`` and ``package``; Go
  ``package`` and ``import`` (a parenthesised ``import ( ... )`` block too); JavaScript and
  TypeScript ``import ... from '...'``, ``import '...'``, ``export ... from '...'`` and
  ``const x = require('...')``; Rust ``use``, ``extern crate`` and ``mod x;``; C# ``using
  X;``; PHP ``use``, ``namespace``, ``require``, ``include`` (and their ``_once``). Other
  languages have none. Kept with ``keep_imports``.
* The **message ids** of a gettext catalogue (a ``.po`` or ``.pot`` file): its
  ``msgctxt``, ``msgid`` and ``msgid_plural`` statements with their continuation lines
  (``"..."``), and the comments the tools write beside them (``#.`` extracted comments,
  ``#:`` references, ``#,`` flags, ``#|`` previous ids), and the header entry (the
  empty id's translation: the catalogue's metadata, such as its ``Content-Type``). Every
  catalogue of a program holds the same ids, by construction; its translations
  (``msgstr``) and translators' comments are its own text. Kept with ``keep_msgids``.
  Where the ids are masked, a translation's tokens that its own id holds too
  (:func:`message_id_copies`: placeholders such as ``%(name)s``, markup, links, words
  left untranslated) seed no match either, though they are not reported as ignored:
  every translation copies them from the id, so that catalogues of different languages
  would otherwise match on them. Kept with ``keep_msgid_copies``.
* A **boilerplate file** (:class:`BoilerplateFiles`, ``--boilerplate PATH``): every token
  of every k-gram of another file that is also a k-gram of a boilerplate file.

>>> message_ids(['#: views.py:12', 'msgid "Save"', 'msgstr "Sichern"'], "de.po")
[(1, 2)]
>>> text = "# Copyright 2024 Example\\n# SPDX-License-Identifier: MIT\\n\\nimport os\\nx = 1\\n"
>>> licence_header(text.split("\\n"), "a.py"), import_blocks(text.split("\\n"), "a.py")
((1, 2), [(4, 4)])
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.ignored import REASONS as REASONS  # defined here once: still importable
from samecode.fragments.ignored import Ignored as Ignored
from samecode.fragments.ignored import IgnoredRanges, spans_of
from samecode.fragments.ignored import masked_ranges as masked_ranges
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tokens import TokenSpans
from samecode.text.languages import Language, language_of
from samecode.text.shingling import kgram_hashes

__all__ = [
    "LICENCE_WORDS",
    "BoilerplateFiles",
    "digest_ids",
    "import_blocks",
    "kgram_masks",
    "licence_header",
    "mask",
    "message_id_copies",
    "message_ids",
]

#: The words that make a leading comment block a licence header (any case).
LICENCE_WORDS = re.compile(
    r"licen[cs]e|copyright|spdx-license-identifier|all rights reserved|"
    r"permission is hereby granted",
    re.IGNORECASE,
)
#: The file extensions of gettext catalogues.
CATALOGUES = (".po", ".pot")
#: A line of a catalogue's message id: a statement, or a comment the tools write.
_MESSAGE_ID = re.compile(r"\s*(?:msgctxt|msgid|msgid_plural)\b|#[.:,|]")
#: A continuation line of a catalogue's statement: a string alone.
_CONTINUATION = re.compile(r'\s*"')
# Past the first entry, the runs of message ids over the whole text: a line of an id, then
# lines of ids or strings (the two patterns above, white space kept within a line).
_ID_LINE = r"(?:[^\S\n]*(?:msgctxt|msgid|msgid_plural)\b|#[.:,|])[^\n]*"
_ID_RUNS = re.compile(rf'^{_ID_LINE}(?:\n(?:{_ID_LINE}|[^\S\n]*"[^\n]*))*', re.MULTILINE)


def digest_ids(
    ids: array[int], masked: Iterable[tuple[int, int]], first: int = 0, stop: int | None = None
) -> array[int]:
    """``ids[first:stop]`` with the masked tokens (``masked``,
    :func:`~samecode.fragments.ignored.masked_ranges`, in any order) as the id 0: what a
    digest reads, so that it does not depend on the boilerplate
    (:mod:`~samecode.fragments.digest`).

    Runtime complexity: ``O(stop - first)`` in C, and a step for each masked range.

    >>> digest_ids(array("Q", [5, 6, 7, 8]), [(1, 3)], 0).tolist()
    [5, 0, 0, 8]
    >>> digest_ids(array("Q", [5, 6, 7, 8]), [(1, 3)], 2, 4).tolist()
    [0, 8]
    """
    stop = len(ids) if stop is None else stop
    part = ids[first:stop]
    for low, high in masked:
        low, high = max(low, first), min(high, stop)
        if low < high:
            part[low - first : high - first] = array("Q", bytes(8 * (high - low)))
    return part


def licence_header(lines: Sequence[str], path: str) -> tuple[int, int] | None:
    """The first and last line (from 1) of the licence header of a file of these
    ``lines`` at ``path`` (whose extension names its language), or ``None`` (see the
    module's description).

    Runtime complexity: ``O(size)`` of the leading comment block.

    >>> licence_header(["/*", " * Licensed under the Apache License", " */", "int x;"], "a.c")
    (1, 3)
    >>> licence_header(["# just a comment", "x = 1"], "a.py") is None
    True
    """
    language = language_of(path)
    first = _after_preamble(lines)
    last = _comment_block_end(lines, first, language)
    if last < first or not LICENCE_WORDS.search("\n".join(lines[first : last + 1])):
        return None
    return first + 1, last + 1


def _after_preamble(lines: Sequence[str]) -> int:
    """The first line (from 0) after the leading blank lines and a ``#!`` line: where a
    licence header may start."""
    i = 0
    while i < len(lines) and (not lines[i].strip() or (i == 0 and lines[i].startswith("#!"))):
        i += 1
    return i


def _comment_block_end(lines: Sequence[str], i: int, language: Language) -> int:
    """The last line (from 0) of the comment lines of ``language`` that follow each
    other from line ``i`` on (blank lines between them included), or -1 if there are
    none."""
    last = -1
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if any(line.startswith(mark) for mark in language.line_comments):
            last = i
            i += 1
            continue
        # a Python string opens a licence header only as its first comment (a docstring)
        end = _block_comment_end(lines, i, line, language, language.name == "python" and last < 0)
        if end is None:
            break
        last = i = end
        i += 1
    return last


def _block_comment_end(
    lines: Sequence[str], i: int, line: str, language: Language, docstring: bool
) -> int | None:
    """The last line (from 0) of the block comment of ``language`` opening line ``i``
    (stripped: ``line``), or of the ``\"\"\"`` or ``'''`` string opening it if
    ``docstring``; ``None`` if it opens neither."""
    closing = next((c for o, c in language.block_comments if line.startswith(o)), None)
    if closing is None and docstring:
        unprefixed = line.lstrip("rRuU")
        if unprefixed[:3] in ('"""', "'''"):
            closing, line = unprefixed[:3], unprefixed
    if closing is None:
        return None
    opened = len(closing) if closing in ('"""', "'''") else 2
    j = i
    rest = line[opened:]
    while closing not in rest and j + 1 < len(lines):
        j += 1
        rest = lines[j]
    return j


_PY_IMPORT = re.compile(r"\s*(import\s+[\w.]|from\s+[\w.]+\s+import\b)")
_STATEMENTS = {
    "python": _PY_IMPORT,
    "c": re.compile(r"\s*#\s*(include|import)\b"),
    "c++": re.compile(r"\s*#\s*(include|import)\b"),
    "java": re.compile(r"\s*(import|package)\s+[\w.*]"),
    "go": re.compile(r"\s*(package\s+\w|import\s*(\(|\"|`|[\w.]+\s+[\"`]))"),
    "javascript": re.compile(
        r"\s*(import\s*(['\"]|[\w*{$].*\bfrom\s*['\"]|[{*]|\w+\s*,\s*[{*])|"
        r"export\s+.*\bfrom\s*['\"]|(const|let|var)\s+[\w{}\s,]+=\s*require\s*\()"
    ),
    "rust": re.compile(r"\s*(pub(\([\w:\s]+\))?\s+)?(use\s|extern\s+crate\s|mod\s+\w+\s*;)"),
    "c#": re.compile(r"\s*(global\s+)?using\s+(static\s+)?[\w.]+\s*(=\s*[\w.<>]+\s*)?;"),
    "php": re.compile(r"\s*(use|namespace|(require|include)(_once)?)\b"),
}


# Words one of which the first line of each language's statement holds (see its pattern):
# found over the whole text at once, they tell the few lines a statement may start on.
_KEYWORDS = {
    "python": re.compile("import"),
    "c": re.compile("include|import"),
    "c++": re.compile("include|import"),
    "java": re.compile("import|package"),
    "go": re.compile("package|import"),
    "javascript": re.compile("import|export|require"),
    "rust": re.compile("use|extern|mod"),
    "c#": re.compile("using"),
    "php": re.compile("use|namespace|require|include"),
}


def _statement_end(lines: Sequence[str], i: int, language: str) -> int:
    """The last line (from 0) of the import statement that starts on line ``i``."""
    line = lines[i]
    if language == "python":
        j = i
        if "(" in line and ")" not in line:
            while j + 1 < len(lines) and ")" not in lines[j]:
                j += 1
            return j
        while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
            j += 1
        return j
    if language == "go" and re.match(r"\s*import\s*\(", line):
        j = i
        while j + 1 < len(lines) and not lines[j].strip().startswith(")"):
            j += 1
        return j
    if language in ("javascript", "rust") and "{" in line and "}" not in line:
        j = i
        while j + 1 < len(lines) and "}" not in lines[j]:
            j += 1
        return j
    return i


def _joined(lines: Sequence[str]) -> str:
    """The text of ``lines``, each ended by a newline but the last, for an expression to
    find what they hold at once.

    :raises ValueError: if a line holds a newline (its lines would be miscounted)."""
    text = "\n".join(lines)
    if text.count("\n") > max(len(lines) - 1, 0):
        line = next(n for n, line in enumerate(lines, 1) if "\n" in line)
        raise SamecodeValueError(
            f"lines must not hold a newline (split the text at them); line {line} does"
        )
    return text


def import_blocks(lines: Sequence[str], path: str) -> list[tuple[int, int]]:
    """The import blocks of a file of these ``lines`` at ``path``: each as its first and
    last line (from 1), in order (see the module's description for the statements of each
    language).

    :raises ValueError: if a line holds a newline.

    Runtime complexity: ``O(size)`` in C to find the lines where a statement may start
    (those holding one of its words), and a match of the statement's on each.

    >>> import_blocks(["#include <stdio.h>", '#include "a.h"', "", "int main;"], "a.c")
    [(1, 2)]
    >>> import_blocks(["from os import (", "    path,", ")", "x = 1"], "a.py")
    [(1, 3)]
    """
    language = language_of(path).name
    statement = _STATEMENTS.get(language)
    if statement is None:
        return []
    blocks: list[tuple[int, int]] = []
    text = _joined(lines)
    i = line = at = 0  # the next line to ask; the line (from 0) of the offset at
    for found in _KEYWORDS[language].finditer(text):
        line += text.count("\n", at, found.start())
        at = found.start()
        if line < i or not statement.match(lines[line]):
            continue  # asked already, within the statement before, or no statement
        i = line
        end = _statement_end(lines, i, language)
        if blocks and blocks[-1][1] == i:  # follows the block before: the same block
            blocks[-1] = (blocks[-1][0], end + 1)
        else:
            blocks.append((i + 1, end + 1))
        i = end + 1
    return blocks


def message_ids(lines: Sequence[str], path: str) -> list[tuple[int, int]]:
    """The runs of message id lines of a gettext catalogue of these ``lines`` at ``path``
    (a ``.po`` or ``.pot`` file; none for others), the catalogue's header entry with
    them: each as its first and last line (from 1), in order (see the module's
    description).

    :raises ValueError: if a line holds a newline.

    Runtime complexity: ``O(size)``: a regular expression match per line up to the end
    of the first entry (which may be the header), then one over the rest of the text in
    C.

    >>> message_ids(['msgid ""', '"a long "', '"message"', 'msgstr ""', '"lang"'], "x.pot")
    [(1, 3)]
    >>> message_ids(['msgid ""', 'msgstr ""', '"Language: de\\\\n"', 'msgid "a"'], "de.po")
    [(1, 4)]
    >>> message_ids(['msgid "Save"'], "notes.txt")
    []
    """
    if not path.lower().endswith(CATALOGUES):
        return []
    text = _joined(lines)
    runs: list[tuple[int, int]] = []
    state = "outside"  # or "id" (a statement of an id), "header" (the header's translation)
    first = True  # no id met yet: an empty first id is the header entry's
    empty = False  # the id met is the first, and empty so far
    at = 0  # where the line after this one starts in the text
    for number, line in enumerate(lines, 1):
        at += len(line) + 1
        if _MESSAGE_ID.match(line):
            if line.lstrip().startswith("msgctxt"):  # the header entry has no context
                first = False
            elif line.lstrip().startswith("msgid"):
                empty, first = first and line.strip() == 'msgid ""', False
            state = "id"
        elif state != "outside" and _CONTINUATION.match(line):
            empty = empty and state == "header"  # a continued id is not the header's
        elif state == "id" and empty and line.lstrip().startswith("msgstr"):
            state, empty = "header", False
        else:
            state = "outside"
            if not first and not empty:
                # From here no line can be the header's: a run is a line of an id and
                # the lines of ids or strings after it, found over the rest at once.
                return runs + _id_runs(text, at, number)
            continue
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def message_id_copies(ids: Sequence[int], ignored: Iterable[Ignored]) -> list[tuple[int, int]]:
    """The tokens of a catalogue's translations that their message ids hold too: for the
    tokens after each run of message ids (``ignored``, reason ``"message ids"``, as
    :func:`mask` gives them) up to the next run or the end, those whose id (``ids``) is
    the id of a token of that run, as ``(first, stop)`` ranges of consecutive tokens
    (from 0, the stop exclusive), in order. What follows an entry's id up to the next
    entry's is its translation, and the comments a translator wrote before the next one.

    Runtime complexity: ``O(n)`` for ``n`` tokens: a set of each run's ids and a look-up
    per token after it, in C, then a step per range found.

    >>> ids = [1, 2, 3, 9, 3, 1, 8, 7, 5, 5, 7, 4]
    >>> runs = [Ignored("de.po", "message ids", 1, 1, 3, 0, 3),
    ...         Ignored("de.po", "message ids", 3, 3, 2, 7, 9)]
    >>> message_id_copies(ids, runs)
    [(4, 6), (9, 11)]

    Tokens 4 and 5 (ids 3 and 1) copy the first id, tokens 9 and 10 (ids 5 and 7) the
    second.
    """
    return [found.span() for found in re.finditer(b"\x01+", _copied(ids, ignored))]


def kgram_masks(
    path: str, ids: Sequence[int], ignored: Sequence[Ignored], k: int, copies: bool
) -> list[tuple[int, int]]:
    """The tokens of the file at ``path`` that no fingerprint of ``k`` tokens may hold, as
    :meth:`Kgrams.of <samecode.fragments.kgrams.Kgrams.of>` takes them: its ``ignored``
    ranges (:func:`~samecode.fragments.ignored.masked_ranges`); and, with ``copies``
    (:attr:`FragmentOptions.masks_msgid_copies
    <samecode.fragments.options.FragmentOptions.masks_msgid_copies>`), for a catalogue,
    those and its translations' copies of their ids (:func:`message_id_copies`), as the
    fewest ranges that give the same k-grams: those fewer than ``k`` tokens apart made
    one, the tokens between them with them (no k-gram fits between them without holding
    one of theirs). Sorted.

    Runtime complexity: :func:`~samecode.fragments.ignored.masked_ranges`; for a catalogue
    with ``copies``, :func:`message_id_copies` and ``O(n)`` in C to join the ranges.

    >>> ids = [1, 2, 3, 9, 3, 1, 8, 7, 5, 5, 7, 4]
    >>> runs = [Ignored("de.po", "message ids", 1, 1, 3, 0, 3),
    ...         Ignored("de.po", "message ids", 3, 3, 2, 7, 9)]
    >>> kgram_masks("de.po", ids, runs, 1, False), kgram_masks("de.po", ids, runs, 1, True)
    ([(0, 3), (7, 9)], [(0, 3), (4, 6), (7, 11)])
    >>> kgram_masks("de.po", ids, runs, 2, True)
    [(0, 11)]

    (With ``k = 2`` every k-gram over token 3 or 6 holds a token masked or copied.)
    """
    if not (copies and path.lower().endswith(CATALOGUES)):
        return masked_ranges(ignored)
    flags = _copied(ids, ignored)
    for first, stop in spans_of(ignored):
        flags[first:stop] = b"\x01" * (stop - first)
    joined = b"\x01+" if k < 2 else b"\x01+(?:\x00{1,%d}\x01+)*" % (k - 1)
    return [found.span() for found in re.finditer(joined, flags)]


def _copied(ids: Sequence[int], ignored: Iterable[Ignored]) -> bytearray:
    """A byte per token: 1 for a copy of its entry's message id (:func:`message_id_copies`),
    else 0."""
    runs = spans_of(ignored, "message ids")
    flags = bytearray(len(ids))
    for number, (first, stop) in enumerate(runs):
        end = runs[number + 1][0] if number + 1 < len(runs) else len(ids)
        if stop < end:  # True is 1: the look-ups' answers are the bytes
            flags[stop:end] = bytes(map(set(ids[first:stop]).__contains__, ids[stop:end]))
    return flags


def _id_runs(text: str, at: int, line: int) -> list[tuple[int, int]]:
    """The runs of message ids of a catalogue's ``text`` from offset ``at`` (the start of
    a line, past line ``line``, from 1, which no run holds), over the text at once."""
    runs = []
    line += 1  # the line (from 1) of the offset at
    for found in _ID_RUNS.finditer(text, at):
        line += text.count("\n", at, found.start())
        last = line + text.count("\n", found.start(), found.end())
        runs.append((line, last))
        line, at = last, found.end()
    return runs


@dataclass(frozen=True)
class BoilerplateFiles:
    """The k-grams of files whose text is always ignored (``--boilerplate PATH``), for one
    set of fragment parameters: their paths, ``k``, and every k-gram hash they hold.
    Picklable; 8 bytes per k-gram (a set)."""

    paths: tuple[str, ...]
    k: int
    hashes: frozenset[int] = field(repr=False)

    @classmethod
    def read(
        cls, paths: Iterable[str | os.PathLike[str]], options: FragmentOptions
    ) -> BoilerplateFiles:
        """Read the files at ``paths`` (UTF-8, errors replaced), their tokens by
        ``options`` (``tokens``, ``normalize``), and keep their k-gram hashes (of
        ``options.k`` tokens).

        :raises TypeError: if ``paths`` is a lone path.
        :raises OSError: if a file cannot be read.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "header.txt")
        >>> with open(path, "w") as f:
        ...     _ = f.write("generated by a tool, do not edit this file by hand")
        >>> files = BoilerplateFiles.read([path], FragmentOptions(k=4))
        >>> len(files.hashes)  # 11 words and a comma: 9 runs of 4
        9
        """
        if isinstance(paths, (str, bytes, os.PathLike)):
            raise SamecodeTypeError(f"paths must be a list of paths; got {describe(paths)}")
        names = tuple(os.fspath(path) for path in paths)
        hashes: set[int] = set()
        for name in names:
            with open(name, encoding="utf-8", errors="replace") as file:
                tokens = TokenSpans.of(file.read(), options.shingling, name)
            hashes.update(kgram_hashes(tokens.ids, options.k))
        return cls(names, options.k, frozenset(hashes))

    def digest(self) -> str:
        """The digest of the k-grams held (32 hex digits), whatever the files' paths or
        order: what a report's ``boilerplate_digest`` states, so that a baseline made
        with other boilerplate files is refused (:mod:`~samecode.fragments.baseline`).

        Runtime complexity: ``O(h log h)`` for ``h`` k-grams.

        >>> BoilerplateFiles(("a",), 4, frozenset({1, 2})).digest() == BoilerplateFiles(
        ...     ("b", "c"), 4, frozenset({2, 1})).digest()
        True
        """
        packed = array("Q", sorted(self.hashes))
        if sys.byteorder == "big":  # pragma: no cover - big-endian machines
            packed.byteswap()
        return hashlib.sha256(packed.tobytes()).hexdigest()[:32]


def mask(
    path: str,
    text: str,
    tokens: TokenSpans,
    k: int,
    *,
    keep_licenses: bool = False,
    keep_imports: bool = False,
    keep_msgids: bool = False,
    files: BoilerplateFiles | None = None,
) -> IgnoredRanges:
    """What of a file's tokens is boilerplate, to be masked (see the module's
    description), by reason then line (held compactly: a catalogue has a range per
    message).

    :param path: the file's path (its extension names its language).
    :param text: its text.
    :param tokens: its tokens.
    :param k: tokens per k-gram (for ``files``).
    :param keep_licenses: do not mask the licence header.
    :param keep_imports: do not mask import blocks.
    :param keep_msgids: do not mask the message ids of a catalogue.
    :param files: the k-grams of boilerplate files to mask, if any.
    :raises ValueError: if ``files`` were read with another ``k``.

    Runtime complexity: ``O(size)``, and ``O(n * k)`` in C to hash the k-grams when
    ``files`` are given.

    >>> from samecode.text.shingling import Shingling
    >>> text = "# Copyright 2024 Example\\nimport os\\nx = os.sep\\n"
    >>> spans = TokenSpans.of(text, Shingling(tokens="code"), "a.py")
    >>> [(i.reason, i.start, i.end, i.tokens, i.first, i.stop)
    ...  for i in mask("a.py", text, spans, 3)]
    [('import block', 2, 2, 2, 0, 2)]

    (With ``--tokens code`` comments are no tokens, so the licence header holds none and
    is not reported.)
    """
    if files is not None and files.k != k:
        raise SamecodeValueError(f"boilerplate files were read with k={files.k}; got k={k}")
    # each range as its reason's place in REASONS, its lines, then its tokens
    found: list[tuple[int, int, int, int, int]] = []
    lines = text.split("\n")
    header = None if keep_licenses else licence_header(lines, path)
    if header is not None:
        found += [(0, *held) for held in tokens.held_by([header])]
    if not keep_imports:
        found += [(1, *held) for held in tokens.held_by(import_blocks(lines, path))]
    if not keep_msgids:
        after = 0 if header is None else header[1]  # a catalogue's header comments: one reason
        runs = [(max(first, after + 1), last)
                for first, last in message_ids(lines, path) if last > after]  # fmt: skip
        found += [(3, *held) for held in tokens.held_by(runs)]
    if files is not None and files.hashes:
        ranges: list[tuple[int, int]] = []
        stop = -1
        for position, value in enumerate(kgram_hashes(tokens.ids, k)):
            if value in files.hashes:
                if ranges and position <= stop:
                    ranges[-1] = (ranges[-1][0], position + k)
                else:
                    ranges.append((position, position + k))
                stop = position + k
        found += [(2, *tokens.lines(first, stop), first, stop) for first, stop in ranges]
    found.sort(key=itemgetter(0, 1, 2))  # stable: a reason's ranges on the same lines in order
    return IgnoredRanges.of(path, found)
