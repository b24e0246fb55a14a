"""Text as people read it in a report: names that are not UTF-8 shown with escapes
(:func:`printable`), and every character that does not show as itself escaped
(:func:`visible`), so a file name or a line of code cannot reverse, hide or colour what a
table, a page or a terminal shows around it. Machine formats (JSON, SARIF URIs) keep the
real characters; every report people read shows text through :func:`visible`.

>>> print(visible("\u202eyp.txt"))
\u202eyp.txt
"""

from __future__ import annotations

import unicodedata

__all__ = ["counted", "printable", "visible"]


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` things, in the grammar of English: ``1 pair``, ``2 pairs``, ``1 class``.

    >>> counted(1, "pair"), counted(1_000, "class", "classes")
    ('1 pair', '1,000 classes')
    """
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def printable(path: str) -> str:
    """A path as people can read it: bytes that are not UTF-8 shown as ``\\xXX``.

    >>> printable("caf\\udcc3.py")
    'caf\\\\xc3.py'
    """
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class _Escapes(dict[int, str]):
    """For :meth:`str.translate`: each character that does not show as itself, as an
    escape; any other as itself. Filled as characters are met (one look-up each)."""

    def __init__(self, keep: str) -> None:
        super().__init__((ord(char), char) for char in keep)

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if unicodedata.category(char) not in _HIDDEN:
            shown = char
        elif code < 0x100:
            shown = f"\\x{code:02x}"
        elif code < 0x10000:
            shown = f"\\u{code:04x}"
        else:
            shown = f"\\U{code:08x}"
        self[code] = shown
        return shown


#: The Unicode categories of characters that do not show as themselves: controls (an
#: escape sequence, a new line, a tab), format characters (the bidirectional overrides and
#: isolates that reorder what follows them, zero-width spaces and joiners, U+FEFF) and the
#: line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp"})
_TABLES: dict[str, _Escapes] = {}


def visible(text: str, keep: str = "") -> str:
    """Text as a report shows it to people: :func:`printable`, and every character that
    does not show as itself (a control character, a bidirectional override, a zero-width
    or other format character, a line separator) as ``\\xXX``, ``\\uXXXX`` or
    ``\\UXXXXXXXX``, so a name or a line cannot move the cursor, colour the terminal,
    break a row, or reverse what follows it.

    :param text: a path or a line of text.
    :param keep: characters to leave as they are (a page of code keeps its tabs).

    >>> print(visible("evil\\x1b[31m\\n.py"))
    evil\\x1b[31m\\x0a.py
    >>> print(visible("\\u202eyp.txt"), visible("a\\u200bb\\tc", keep="\\t") == "a\\\\u200bb\\tc")
    \\u202eyp.txt True
    """
    table = _TABLES.get(keep)
    if table is None:
        table = _TABLES[keep] = _Escapes(keep)
    return printable(text).translate(table)
