"""Tokenizers: from text, code or a large file to the features that fingerprints take.

A fingerprint is only as good as its features. Three tokenizers cover the common cases:

* :func:`words`: Unicode words, each CJK ideograph a word of its own (Chinese and
  Japanese are written without spaces; one long "word" per sentence would make every
  fingerprint useless on them);
* :func:`code_tokens`: identifiers, numbers, string literals and operators of source
  code, with comments and white space dropped unless asked for;
* :func:`char_shingles`: overlapping character k-grams of a text whose white space is
  normalised, streamed line by line so that a file of any size takes bounded memory.

**Bytes and undecodable input.** Every tokenizer takes ``str`` or ``bytes``. Bytes are
decoded as UTF-8 with the ``errors`` policy, ``"replace"`` by default: each undecodable
byte sequence becomes U+FFFD (the replacement character), which is not a word character,
so :func:`words` splits there, :func:`code_tokens` yields it as a one-character token and
:func:`char_shingles` keeps it as a character. Pass ``errors="strict"`` to get a
:class:`UnicodeDecodeError` (a :class:`ValueError`) instead, or ``"surrogateescape"`` to
keep every raw byte distinct.

>>> words("Near-duplicate 检测 works")
['near', 'duplicate', '检', '测', 'works']
>>> code_tokens("x = f(1)  # call")
['x', '=', 'f', '(', '1', ')']
>>> list(char_shingles("a  b\\tc", 3))
['a b', ' b ', 'b c']
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import lru_cache
from operator import itemgetter
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = ["char_shingles", "code_token_offsets", "code_tokens", "decode", "words"]

_CJK = (
    "\u3400-\u4dbf"  # extension A
    "\u4e00-\u9fff"  # unified ideographs
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0003ffff"  # extensions B and later, compatibility supplement
)
_SPACE_RUN = re.compile(r"\s+")


def _check_errors(errors: object) -> str:
    if not isinstance(errors, str):
        raise SamecodeTypeError(
            f"errors must be a str naming a codec error handler; got {describe(errors)}"
        )
    try:
        codecs.lookup_error(errors)
    except LookupError as error:
        raise SamecodeValueError(
            f"errors must name a codec error handler; got {errors!r}"
        ) from error
    return errors


def decode(data: str | bytes | bytearray | memoryview, errors: str = "replace") -> str:
    """Return text as is, or bytes decoded as UTF-8 with the ``errors`` policy.

    :param errors: a codec error handler: ``"replace"`` (the default), ``"strict"``,
        ``"surrogateescape"``, ``"ignore"``...
    :raises TypeError: if ``data`` is neither text nor bytes-like.
    :raises ValueError: for an unknown ``errors`` handler.
    :raises UnicodeDecodeError: for undecodable bytes under ``errors="strict"``.

    >>> decode(b"caf\\xc3\\xa9 \\xff!")
    'café \\ufffd!'
    """
    _check_errors(errors)
    if isinstance(data, str):
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data).decode("utf-8", errors)
    raise SamecodeTypeError(f"expected str or bytes-like text; got {describe(data)}")


def _is_mark(char: str) -> bool:
    return unicodedata.category(char)[0] == "M"


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern[str]:
    """Each CJK ideograph, or a run of other word characters and combining marks.

    Python's ``\\w`` leaves out combining marks, so they are spelled out as a class of
    ranges (built once, on first use) and allowed between runs of word characters.
    """
    marks = _class_of(range(0x20000)) + _class_of(range(0xE0000, 0xE0200))
    return re.compile(f"[{_CJK}]|(?:[^\\W{_CJK}]+|[{marks}]+)+")


def _class_of(codes: range) -> str:
    """The body of a character class holding the combining marks among ``codes``."""
    ranges: list[str] = []
    start = previous = -2
    for code in codes:
        if _is_mark(chr(code)):
            if code != previous + 1:
                if start >= 0:
                    ranges.append(_char_range(start, previous))
                start = code
            previous = code
    if start >= 0:
        ranges.append(_char_range(start, previous))
    return "".join(ranges)


def _char_range(first: int, last: int) -> str:
    return re.escape(chr(first)) + ("" if first == last else "-" + re.escape(chr(last)))


def words(text: str | bytes, *, casefold: bool = True, errors: str = "replace") -> list[str]:
    """Return the words of a text, each CJK ideograph as a word of its own.

    A word is a maximal run of Unicode word characters (letters, digits and the
    underscore, as Python's ``\\w``) and combining marks (so that Devanagari or
    decomposed accents stay inside their word); every CJK unified or compatibility
    ideograph is a word by itself. Everything else separates words. Kana and Hangul
    runs are words as usual; scripts written without spaces other than CJK (Thai, for
    one) come out as long runs.

    :param text: ``str``, or bytes decoded as UTF-8 (see the module's policy).
    :param casefold: fold case (``str.casefold``) so that ``Word`` and ``word`` match.
    :param errors: the decoding policy for bytes.
    :raises TypeError: if ``text`` is neither text nor bytes-like.

    Runtime complexity: ``O(len(text))`` in the regular-expression engine.

    >>> words("Straße, STRASSE; naïve_x2!")
    ['strasse', 'strasse', 'naïve_x2']
    >>> words("我爱北京天安门", casefold=False)
    ['我', '爱', '北', '京', '天', '安', '门']
    >>> words(b"hi\\xffthere")
    ['hi', 'there']
    """
    found = _word_pattern().findall(decode(text, errors))
    if casefold:
        return [word.casefold() for word in found]
    return found


_OPERATORS = sorted(
    [
        ">>>=",
        "<<=",
        ">>=",
        "**=",
        "//=",
        "...",
        "===",
        "!==",
        "->",
        "=>",
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        "++",
        "--",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "<<",
        ">>",
        "**",
        "//",
        "::",
        ":=",
        "?.",
        "??",
    ],
    key=len,
    reverse=True,
)


@lru_cache(maxsize=64)
def _code_pattern(
    line_comments: tuple[str, ...],
    block_comments: tuple[tuple[str, str], ...],
    quotes: str = "\"'",
) -> re.Pattern[str]:
    """The scanner of :func:`code_tokens`, with single-line strings in the ``quotes`` given.

    A single-line string that ends at a backslash with nothing after it on its line is no
    string (the quote is then a one-character token, as ever); instead of failing, its
    alternative matches up to that backslash with a group ``bad`` holding it, so that the
    caller knows at once (see :func:`_scan`).
    """
    blocks = [f"{re.escape(a)}(?s:.*?)(?:{re.escape(b)}|\\Z)" for a, b in block_comments]
    lines = [f"{re.escape(marker)}[^\\n]*" for marker in line_comments]
    dropped = "|".join([*blocks, *lines, r"\s+"])
    strings = [r'"""(?s:.*?)(?:"""|\Z)', r"'''(?s:.*?)(?:'''|\Z)"]
    for index, quote in enumerate(quotes):
        strings.append(f"{quote}(?:\\\\.|[^{quote}\\\\\\n])*(?:{quote}|$|(?P<bad{index}>\\\\))")
    kept = "|".join(
        [
            *strings,
            r"\.?\d(?:[eEpP][+-]|[\w.])*",  # numbers: 42, 0x1F, 1_000, 1.5e-3, .5
            r"(?:[^\W\d]|\$)[\w$]*",  # identifiers, Unicode ones included
            *map(re.escape, _OPERATORS),
            r"[^\s]",  # any other character is an operator of its own
        ]
    )
    return re.compile(f"({dropped})|({kept})", re.MULTILINE)


def code_tokens(
    source: str | bytes,
    *,
    comments: bool = False,
    whitespace: bool = False,
    line_comments: Iterable[str] = ("#", "//"),
    block_comments: Iterable[tuple[str, str]] = (("/*", "*/"),),
    errors: str = "replace",
) -> list[str]:
    """Return the tokens of source code: identifiers, numbers, strings and operators.

    The scanner knows no particular language; it reads, in this order of preference:
    block comments, line comments and runs of white space (dropped unless asked for);
    string literals in single, double or triple quotes (one token each, escapes
    honoured, an unterminated one ends at the end of its line); numbers (``42``,
    ``0x1F``, ``1_000``, ``1.5e-3``); identifiers (Unicode letters, digits, ``_`` and
    ``$``); multi-character operators (``==``, ``->``, ``**=``, ``//``...); and any
    other character as a one-character operator.

    The default comment syntax (``#`` and ``//`` to the end of the line, ``/* ... */``)
    suits C-family languages and scripts; for Python, pass ``line_comments=("#",),
    block_comments=()`` so that ``//`` stays the floor-division operator.

    :param source: ``str``, or bytes decoded as UTF-8 (see the module's policy).
    :param comments: keep comments, each as one token.
    :param whitespace: keep runs of white space, each as one token.
    :param line_comments: the markers that start a comment running to the line's end.
    :param block_comments: ``(start, end)`` pairs that delimit block comments.
    :param errors: the decoding policy for bytes.
    :raises TypeError: if ``source`` is neither text nor bytes-like, ``line_comments`` is a
        lone ``str`` (write ``("//",)``), or a block comment is not a ``(start, end)`` pair
        of strings.
    :raises ValueError: if a comment marker is empty.

    A quote whose string would end at a backslash with nothing after it on its line
    (``'a\\'b\\`` then a line break) starts no string: it is a token by itself, and
    the text after it is read as usual.

    Runtime complexity: ``O(len(source))`` in the regular-expression engine, plus one
    Python step per token, whatever the text (a line of unterminated quotes and escapes
    included: no quote's string is looked for twice over the same characters).

    >>> code_tokens("if (a <= 0x1F) { s = 'a // b'; } // done")
    ['if', '(', 'a', '<=', '0x1F', ')', '{', 's', '=', "'a // b'", ';', '}']
    >>> code_tokens("a // b  # half", line_comments=("#",), block_comments=())
    ['a', '//', 'b']
    >>> code_tokens("x=1 # one", comments=True, whitespace=True)
    ['x', '=', '1', ' ', '# one']
    """
    text = decode(source, errors)
    lines, blocks = _comment_syntax(line_comments, block_comments)
    found = _scan(text, lines, blocks)
    if not (comments or whitespace):
        return [token[1] for token in found if token[1]]
    tokens = []
    for dropped, kept, *_ in found:
        if kept:
            tokens.append(kept)
        elif dropped.isspace():
            if whitespace:
                tokens.append(dropped)
        elif comments:
            tokens.append(dropped)
    return tokens


def code_token_offsets(
    source: str | bytes,
    *,
    line_comments: Iterable[str] = ("#", "//"),
    block_comments: Iterable[tuple[str, str]] = (("/*", "*/"),),
    errors: str = "replace",
) -> tuple[list[str], list[int]]:
    """Return the tokens :func:`code_tokens` gives (comments and white space dropped), and
    the offset in the text where each starts.

    The scanner's matches tile the text, every character in exactly one of them (a token,
    a comment or a run of white space), so a token's offset is the length of what came
    before it; a token is the text from its offset, so it ends ``len(token)`` later.

    :param source: ``str``, or bytes decoded as UTF-8 (offsets are then in the decoded
        text).
    :raises TypeError, ValueError: as :func:`code_tokens`.

    Runtime complexity: that of :func:`code_tokens`, plus one step per match.

    >>> tokens, offsets = code_token_offsets("x = 'a b'  # c\\ny")
    >>> tokens, offsets
    (['x', '=', "'a b'", 'y'], [0, 2, 4, 15])
    """
    text = decode(source, errors)
    lines, blocks = _comment_syntax(line_comments, block_comments)
    tokens: list[str] = []
    offsets: list[int] = []
    offset = 0
    for dropped, kept, *_ in _scan(text, lines, blocks):
        if kept:
            tokens.append(kept)
            offsets.append(offset)
            offset += len(kept)
        else:
            offset += len(dropped)
    return tokens, offsets


def _scan(
    text: str, lines: tuple[str, ...], blocks: tuple[tuple[str, str], ...]
) -> list[tuple[str, ...]]:
    """``(dropped, kept, ...)`` for every token of ``text``, in order, in linear time.

    A quote whose single-line string ends at a lone backslash (``'a\\'b\\`` at the end
    of a line) is a token by itself, and the text goes on after it; every later quote of
    the same kind before that backslash would end there too (its string follows the
    same steps from the first character it reaches that the first one took), so up to
    that backslash the scanner leaves strings of that quote out instead of trying each
    one to the end of the line again (which took quadratic time).
    """
    pattern = _code_pattern(lines, blocks)
    found: list[tuple[str, ...]] = pattern.findall(text)
    if not any(map(itemgetter(2), found)) and not any(map(itemgetter(3), found)):
        return found  # no quote ends at a lone backslash (as ever but in odd texts)
    found = []
    dead = dict.fromkeys("\"'", -1)  # before this, no string of the quote can end
    pos, end = 0, len(text)
    while pos < end:
        quotes = "".join(quote for quote in "\"'" if dead[quote] <= pos)
        live = min((limit for limit in dead.values() if limit > pos), default=end + 1)
        pattern = _code_pattern(lines, blocks, quotes)
        whole = (None,) * len(quotes)  # no "bad" group set
        restart = -1
        for match in pattern.finditer(text, pos):
            start = match.start()
            if start >= live:  # strings of a quote may be whole again from here
                restart = start
                break
            dropped, kept, *bad = match.groups()
            if tuple(bad) != whole:
                quote = text[start]
                found.append(("", quote))
                dead[quote] = match.end() - 1
                restart = start + 1
                break
            found.append((dropped or "", kept or ""))
        if restart < 0:
            break
        pos = restart
    return found


def _comment_syntax(
    line_comments: object, block_comments: object
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Check and return the comment markers of :func:`code_tokens`."""
    if isinstance(line_comments, str) or not isinstance(line_comments, Iterable):
        raise SamecodeTypeError(
            "line_comments must be an iterable of markers, such as ('#', '//'); "
            f"got {describe(line_comments)}"
        )
    if isinstance(block_comments, str) or not isinstance(block_comments, Iterable):
        raise SamecodeTypeError(
            "block_comments must be an iterable of (start, end) pairs, such as "
            f"[('/*', '*/')]; got {describe(block_comments)}"
        )
    lines = tuple(line_comments)
    blocks = []
    for pair in block_comments:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise SamecodeTypeError(
                "each block comment must be a (start, end) pair of strings, such as "
                f"('/*', '*/'); got {describe(pair)}"
            )
        blocks.append((pair[0], pair[1]))
    for marker in (*lines, *(part for pair in blocks for part in pair)):
        if not isinstance(marker, str):
            raise SamecodeTypeError(f"comment markers must be strings; got {describe(marker)}")
        if not marker:
            raise SamecodeValueError(f"comment markers must be non-empty strings; got {marker!r}")
    return lines, tuple(blocks)


def char_shingles(
    source: str | bytes | Iterable[str] | Iterable[bytes], k: int = 9, *, errors: str = "replace"
) -> Iterator[str]:
    """Yield the character shingles of size ``k`` of a text, a file or any iterable of lines.

    The text is normalised first, as seed 004 describes: every white-space character
    (tab and newline included) becomes a space and each run of white space becomes one
    space. The shingles are then every ``k`` consecutive characters of the normalised
    text, in order, including those that span line breaks. The input is read a piece at
    a time (a file object in blocks of 64 KiB, not by lines; any longer chunk or text in
    slices of that size) and only the last ``k - 1`` characters are carried over, so
    memory stays bounded however long the input and its lines are. A text shorter than
    ``k`` after normalisation yields nothing.

    :param source: ``str`` or ``bytes`` (the whole text), a file object opened in text or
        binary mode (read with ``read``), or an iterable of ``str`` or ``bytes`` chunks.
        Bytes are decoded as UTF-8 incrementally (a character split between chunks is
        fine).
    :param k: the shingle size, ``>= 1``.
    :param errors: the decoding policy for bytes.
    :raises TypeError: if ``source`` is not text, bytes or iterable, or ``k`` is not an
        int (at the call); if a chunk is neither text nor bytes (when it is reached).
    :raises ValueError: if ``k`` < 1 or ``errors`` is unknown.

    Runtime complexity: ``O(n * k)`` character copies for ``n`` characters (each shingle
    is a new string); memory ``O(k)`` beyond the caller's own chunk: about 64 Ki
    shingles at a time.

    >>> list(char_shingles(["one  two\\n", "\\tthree\\n"], 5))[:4]
    ['one t', 'ne tw', 'e two', ' two ']
    >>> list(char_shingles("ab", 3))
    []
    """
    check_int(k, "k")
    if k < 1:
        raise SamecodeValueError(f"k must be >= 1; got {k!r}")
    _check_errors(errors)
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        chunks: Iterable[Any] = [source]
    elif callable(getattr(source, "read", None)):
        chunks = _blocks(source)
    elif isinstance(source, Iterable):
        chunks = source
    else:
        raise SamecodeTypeError(
            f"source must be text, bytes or an iterable of lines; got {describe(source)}"
        )
    return _shingle_stream(iter(chunks), k, errors)


_PIECE = 1 << 16


def _blocks(file: Any) -> Iterator[Any]:
    """A file object's contents, ``_PIECE`` characters or bytes at a time."""
    while block := file.read(_PIECE):
        yield block


def _pieces(chunks: Iterator[Any], decoder: codecs.IncrementalDecoder) -> Iterator[str]:
    """The chunks as text, decoded, in slices of at most ``_PIECE`` characters; then the
    decoder's last word."""
    for chunk in chunks:
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            data = memoryview(chunk)
            if not data.c_contiguous:
                data = memoryview(data.tobytes())
            data = data.cast("B")
            for start in range(0, len(data), _PIECE):
                yield decoder.decode(data[start : start + _PIECE])
        elif isinstance(chunk, str):
            for start in range(0, len(chunk), _PIECE):
                yield chunk[start : start + _PIECE]
        else:
            raise SamecodeTypeError(f"every chunk must be str or bytes; got {describe(chunk)}")
    yield decoder.decode(b"", final=True)


def _shingle_stream(chunks: Iterator[Any], k: int, errors: str) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    held: list[str] = []  # the text not yet wholly shingled: fewer than k characters
    held_length = 0
    after_space = False
    # Shingles are made this many at a time, about a million characters' worth.
    step = max(1, (1 << 20) // k)
    for chunk in _pieces(chunks, decoder):
        text = _SPACE_RUN.sub(" ", chunk)
        if after_space and text.startswith(" "):
            text = text[1:]
        if not text:
            continue
        after_space = text.endswith(" ")
        if held_length + len(text) < k:
            held.append(text)
            held_length += len(text)
            continue
        text = "".join(held) + text
        count = len(text) - k + 1
        for start in range(0, count, step):
            yield from [text[i : i + k] for i in range(start, min(count, start + step))]
        tail = text[count:]
        held, held_length = ([tail] if tail else []), len(tail)
