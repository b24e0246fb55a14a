"""The documented similarity: a text's tokens, its distinct shingles, and their Jaccard.

Two files are compared by the sets of their *shingles*, runs of ``K`` consecutive tokens.
:class:`Shingling` holds the rules, and ``Shingling().shingles(text)`` applies them:

* **tokens** (``tokens="words"``, the default): every run of Unicode word characters
  (``\\w+``) and every single character that is neither a word character nor white space
  (white space as ``str.isspace``: the separators ``\\x1c``-``\\x1f`` are white space, in
  a text of ASCII only too), case kept, comments kept. ``tokens="code"``: the tokens of
  :func:`samecode.text.tokens.code_tokens` (identifiers, numbers, string literals as one token,
  operators), with the comments of the file's language dropped (known from its extension;
  C-family and ``#`` comments when unknown). ``tokens="chars"``: seed 004's character
  shingles (white space runs made one space, then every ``K`` characters).
* **normalize** (words and code): identifiers that are not keywords of the file's
  language, numbers and string literals are replaced by placeholders, so that a copy with
  renamed variables has the same shingles.
* **shingles**: every run of ``K`` consecutive tokens (``size``, 5 by default); a text
  with fewer tokens than ``K`` (but some) has one shingle, all its tokens; a text with no
  token has none.
* **similarity**: the Jaccard index ``|A & B| / |A | B|`` of two texts' shingle sets;
  containment ``|A ∩ B| / |A|`` on request.

A shingle is kept as a 64-bit hash: each distinct token gets a 64-bit id (its 8-byte
BLAKE2b digest, ``digest_size=8``, read little-endian), and a shingle is CPython's hash of the tuple
of its ids (computed by the same algorithm in pure Python where ``hash`` differs, so the
values are the same on every platform). Two different shingles of one text share a hash
with probability about ``n**2 / 2**65`` for ``n`` shingles (below ``1e-9`` for a million):
Jaccard values computed on the hashes are exact for any practical purpose.

Seven tokens make five shingles of three; the two texts share the first three (``total =
price``, ``= price *``, ``price * count``), so their Jaccard is ``3 / (5 + 5 - 3)``:

>>> rules = Shingling(size=3)
>>> a = rules.shingles("total = price * count + tax")
>>> b = rules.shingles("total = price * count - tax")
>>> len(a), len(b), len(set(a) & set(b))
(5, 5, 3)
>>> renamed = Shingling(tokens="code", size=3, normalize=True)
>>> renamed.shingles("x = a + b", "f.py") == renamed.shingles("y = c + d", "f.py")
True
"""

from __future__ import annotations

import hashlib
import re
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from samecode._kernels import use_numpy
from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.text.languages import Language, language_of
from samecode.text.tokens import char_shingles, code_token_offsets, code_tokens

if TYPE_CHECKING:
    from samecode._numpy_kernels import Words

__all__ = [
    "TOKEN_KINDS",
    "Shingling",
    "kgram_array",
    "kgram_hashes",
    "shingle_hash",
    "token_id",
    "token_ids",
]

#: The kinds of tokens a :class:`Shingling` can cut a text into.
TOKEN_KINDS = ("words", "code", "chars")

_WORDS = re.compile(r"\w+|[^\w\s]")
# The same tokens for a text of ASCII only, faster. The classes of re.ASCII agree with
# Unicode's on ASCII but for white space: str.isspace() (and Unicode's \s) holds for the
# information separators \x1c-\x1f, which re.ASCII's \s leaves out; they are added back.
_ASCII_WORDS = re.compile(r"\w+|[^\w\s\x1c-\x1f]", re.ASCII)
# The same tokens, each with the white space before it: white space is all the words'
# patterns leave out, so the lengths of these pairs place every token (the offsets made
# in C, not one match object a token).
_SPACED_WORDS = re.compile(r"(\s*)(\w+|[^\w\s])")
_ASCII_SPACED_WORDS = re.compile(r"([\s\x1c-\x1f]*)(\w+|[^\w\s\x1c-\x1f])", re.ASCII)
# A character's part in the words' tokens, one at a time, for the offsets made on numpy:
# white space (0), a word character (1; a run of them is a token), or a token alone (2).
_WORD_CHAR, _SPACE_CHAR = re.compile(r"\w"), re.compile(r"\s")


def _kind(char: str) -> int:
    """The kind of ``char`` in :data:`_WORDS`'s tokens (see above)."""
    return 1 if _WORD_CHAR.match(char) else 0 if _SPACE_CHAR.match(char) else 2


_ASCII_KINDS = bytes(map(_kind, map(chr, range(128))))
# The characters of ``tokens="chars"``: each run of white space (one space once
# normalised), or any other character.
_CHARS = re.compile(r"\s+|.", re.DOTALL)
_MASK = (1 << 64) - 1
_NATIVE = sys.implementation.name == "cpython" and sys.hash_info.width == 64
# Token -> id. Tokens repeat (Zipf), so most lookups hit; past this many entries a memo
# starts again (a memo only ever saves hash calls; it never changes an id). Two memos,
# each of this many entries at most: by the token's str, and by its packed bytes.
_MEMO_LIMIT = 1 << 20


class _Memo(dict[str, int]):
    __slots__ = ()

    def __missing__(self, token: str) -> int:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        value = self[token] = token_id(token)
        return value


_memo = _Memo()
_LOW_56 = (1 << 56) - 1
_LARGEST_INT32 = (1 << 31) - 1


class _PackedMemo(dict[int, int]):
    """Packed token -> id, for the numpy tokenizer: a token of at most 7 bytes of UTF-8
    as an int, those bytes (little-endian) with their count in the highest byte."""

    __slots__ = ()

    def __missing__(self, packed: int) -> int:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        data = (packed & _LOW_56).to_bytes(packed >> 56, "little")
        value = self[packed] = _digest_id(data)
        return value


_packed_memo = _PackedMemo()

# Placeholders for normalized tokens start with NUL, which no real token holds.
_NAME, _NUMBER, _STRING = "\x00id", "\x00num", "\x00str"


def token_id(token: str) -> int:
    """Return a token's 64-bit id: the 8-byte BLAKE2b digest of its UTF-8, little-endian.

    >>> token_id("def") == int.from_bytes(hashlib.blake2b(b"def", digest_size=8).digest(), "little")
    True
    """
    return _digest_id(token.encode("utf-8", "surrogatepass"))


def _digest_id(data: bytes) -> int:
    """The id of a token whose UTF-8 is ``data``."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _spaced_words(text: str) -> list[tuple[str, str]]:
    """Each word token of ``text`` with the white space before it."""
    return (_ASCII_SPACED_WORDS if text.isascii() else _SPACED_WORDS).findall(text)


def _ids(tokens: Sequence[str]) -> list[int]:
    """The ids of ``tokens``, through the memo."""
    return list(map(_memo.__getitem__, tokens))


def token_ids(tokens: Sequence[str]) -> list[int]:
    """Return the ids of ``tokens`` (:func:`token_id` of each), in order.

    >>> token_ids(["a", "b", "a"]) == [token_id("a"), token_id("b"), token_id("a")]
    True
    """
    return _ids(tokens)


_P1, _P2, _P5 = 11400714785074694791, 14029467366897019727, 2870177450012600261


def shingle_hash(ids: Sequence[int]) -> int:
    """Return a shingle's 64-bit hash: CPython's ``hash(tuple(ids))`` as an unsigned int.

    This is CPython's tuple hash (the xxHash-based one of 3.8 and later) over the ids'
    hashes (``id mod (2**61 - 1)``), written out so that it gives the same value
    everywhere; on 64-bit CPython, ``hash`` itself computes it in C.

    >>> shingle_hash([1, 2, 3]) == hash((1, 2, 3)) & (2**64 - 1)
    True
    """
    acc = _P5
    for value in ids:
        lane = value % ((1 << 61) - 1)
        acc = (acc + lane * _P2) & _MASK
        acc = ((acc << 31) | (acc >> 33)) & _MASK
        acc = (acc * _P1) & _MASK
    acc = (acc + (len(ids) ^ (_P5 ^ 3527539))) & _MASK
    return 1546275796 if acc == _MASK else acc


def _hashes(ids: list[int], size: int) -> Iterable[int]:
    """The hashes of every run of ``size`` consecutive ids (one run of all, if fewer).

    The runs are made one at a time, as they are hashed (``size`` iterators over the one
    list of ids, not ``size`` copies of it): memory proportional to the text, whatever
    ``size``.
    """
    if len(ids) < size:
        runs: Iterable[tuple[int, ...]] = [tuple(ids)] if ids else []
    else:
        runs = zip(*(islice(ids, i, None) for i in range(size)))
    if _NATIVE:
        return map(_MASK.__and__, map(hash, runs))
    return map(shingle_hash, runs)  # pragma: no cover - other interpreters


def kgram_hashes(ids: Sequence[int], k: int) -> list[int]:
    """Return the hash of every run of ``k`` consecutive token ids, in order: the
    shingle hashes of a text, with their positions (the ``i``-th hash is of ``ids[i :
    i + k]``). Fewer than ``k`` ids have no run, and no hash.

    :raises TypeError: if ``k`` is not an int.
    :raises ValueError: if ``k`` < 1.

    With numpy (``samecode[fast]``), the runs are hashed as arrays, ``k`` passes over the
    ids, and give the same list (:mod:`samecode._kernels` says when).

    Runtime complexity: ``O(len(ids) * k)`` in C (one tuple hash per run).

    >>> ids = token_ids("a = b + c".split())
    >>> kgram_hashes(ids, 3) == [shingle_hash(ids[i : i + 3]) for i in range(3)]
    True
    >>> kgram_hashes(ids, 6)
    []
    """
    _check_k(k)
    if len(ids) < k:
        return []
    words = _numpy_hashes(ids, k)
    if words is not None:
        hashes: list[int] = words.tolist()
        return hashes
    return list(_hashes(list(ids), k))


def kgram_array(ids: Sequence[int], k: int) -> array[int]:
    """Return :func:`kgram_hashes` as an ``array("Q")`` (8 bytes a hash; with numpy, made
    without a list of ints in between).

    :raises TypeError: if ``k`` is not an int.
    :raises ValueError: if ``k`` < 1.

    >>> kgram_array([1, 2, 3], 2).tolist() == kgram_hashes([1, 2, 3], 2)
    True
    """
    _check_k(k)
    if len(ids) < k:
        return array("Q")
    words = _numpy_hashes(ids, k)
    if words is not None:
        from samecode._numpy_kernels import to_array

        return to_array(words, "Q")
    return array("Q", _hashes(list(ids), k))


def _check_k(k: int) -> None:
    check_int(k, "k")
    if k < 1:
        raise SamecodeValueError(f"k must be >= 1; got {k!r}")


def _numpy_hashes(ids: Sequence[int], k: int) -> Words | None:
    """The k-gram hashes on numpy (``len(ids) >= k``), when numpy runs and takes the ids
    (from 0 to ``2**64 - 1``); ``None`` otherwise."""
    if not use_numpy(len(ids)):
        return None
    import samecode._numpy_kernels as fast

    words = fast.as_uint64(ids)
    return None if words is None else fast.kgram_hashes(words, k)


def _check_offsets(typecode: object, text: object) -> None:
    """:raises ValueError: for a ``typecode`` of offsets other than ``"i"`` and ``"q"``, or
    ``"i"`` where an offset into ``text`` (up to its length) would pass ``2**31 - 1``:
    numpy's conversion would wrap it, and ``array`` refuse it with an ``OverflowError``."""
    if typecode not in ("i", "q"):
        raise SamecodeValueError(f"typecode must be 'i' or 'q'; got {typecode!r}")
    if typecode == "i" and isinstance(text, str) and len(text) > _LARGEST_INT32:
        raise SamecodeValueError(
            f"typecode 'i' holds offsets up to 2**31 - 1; the text has {len(text)} "
            "characters: use 'q'"
        )


@dataclass(frozen=True)
class Shingling:
    """The rules that turn a text into its set of shingles (see the module's description).

    :param tokens: ``"words"`` (the default), ``"code"`` or ``"chars"``.
    :param size: ``K``, the tokens (or, for ``"chars"``, characters) per shingle, 1 to
        1000.
    :param normalize: replace names and literals by placeholders (words and code only).
    :raises TypeError: for a parameter of the wrong type.
    :raises ValueError: for an unknown kind of token, a size out of range, or
        ``normalize`` with ``"chars"``.

    Runtime complexity: ``O(n * size)`` for a text of ``n`` characters, in the
    regular-expression engine and C: one BLAKE2b call per distinct token (remembered), one
    tuple hash per shingle (of ``size`` ids; one BLAKE2b call of ``size`` characters per
    shingle for ``"chars"``). Memory ``O(n)`` while a text is shingled, whatever ``size``
    (shingles are made and hashed one at a time), then 8 bytes per distinct shingle.

    >>> sorted(Shingling(tokens="chars", size=4).shingles("abcde")) == sorted(
    ...     token_id(s) for s in ["abcd", "bcde"])
    True
    """

    tokens: str = "words"
    size: int = 5
    normalize: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.tokens, str) or self.tokens not in TOKEN_KINDS:
            raise SamecodeValueError(
                f"tokens must be one of {', '.join(TOKEN_KINDS)}; got {describe(self.tokens)}"
            )
        check_int(self.size, "size")
        if not 1 <= self.size <= 1000:
            raise SamecodeValueError(f"size must be from 1 to 1000; got {self.size}")
        if not isinstance(self.normalize, bool):
            raise SamecodeTypeError(f"normalize must be a bool; got {describe(self.normalize)}")
        if self.normalize and self.tokens == "chars":
            raise SamecodeValueError("normalize works on words and code tokens, not on chars")

    def to_dict(self) -> dict[str, Any]:
        """The rules as a dict (what a corpus file records).

        >>> Shingling().to_dict()
        {'tokens': 'words', 'size': 5, 'normalize': False}
        """
        return {"tokens": self.tokens, "size": self.size, "normalize": self.normalize}

    def token_list(self, text: str, path: str = "") -> list[str]:
        """The tokens of ``text`` (a file at ``path``, whose extension names its language).

        For ``"chars"``, the characters of the text with white space normalised.

        >>> Shingling().token_list("if (x>=1) y = 'a b';")
        ['if', '(', 'x', '>', '=', '1', ')', 'y', '=', "'", 'a', 'b', "'", ';']
        >>> Shingling(tokens="code").token_list("x = 1  # one", "a.py")
        ['x', '=', '1']
        """
        if not isinstance(text, str):
            raise SamecodeTypeError(f"text must be a str; got {describe(text)}")
        if self.tokens == "chars":
            return list(re.sub(r"\s+", " ", text))
        language = language_of(path)
        if self.tokens == "words":
            found = (_ASCII_WORDS if text.isascii() else _WORDS).findall(text)
            return _normal_words(found, language) if self.normalize else found
        found = code_tokens(
            text, line_comments=language.line_comments, block_comments=language.block_comments
        )
        return _normal_code(found, language) if self.normalize else found

    def token_spans(self, text: str, path: str = "") -> tuple[list[str], list[int], list[int]]:
        """Return :meth:`token_list` with where each token is in ``text``: the tokens, the
        offset of each one's first character, and the offset just past its last.

        A normalized token keeps the span of the text it replaces; with ``"chars"``, a
        run of white space (one space among the tokens) spans the whole run.

        :raises TypeError: if ``text`` is not a ``str``.

        Runtime complexity: that of :meth:`token_list`, plus one step per token.

        >>> Shingling(tokens="code", normalize=True).token_spans("x = 10  # ten", "a.py")
        (['\\x00id', '=', '\\x00num'], [0, 2, 4], [1, 3, 6])
        """
        if not isinstance(text, str):
            raise SamecodeTypeError(f"text must be a str; got {describe(text)}")
        if self.tokens == "code":
            language = language_of(path)
            found, starts = code_token_offsets(
                text, line_comments=language.line_comments, block_comments=language.block_comments
            )
            ends = [start + len(token) for start, token in zip(starts, found)]
            return (_normal_code(found, language) if self.normalize else found), starts, ends
        if self.tokens == "chars":
            found, starts, ends = [], [], []
            for match in _CHARS.finditer(text):
                found.append(match.group())
                starts.append(match.start())
                ends.append(match.end())
            return [" " if token.isspace() else token for token in found], starts, ends
        pairs = _spaced_words(text)
        # the end of each space, then of its token: starts and ends, alternately
        marks = list(accumulate(map(len, chain.from_iterable(pairs))))
        found = list(map(itemgetter(1), pairs))
        starts, ends = marks[0::2], marks[1::2]
        return (_normal_words(found, language_of(path)) if self.normalize else found), starts, ends

    def token_offsets(
        self, text: str, path: str = "", typecode: str = "q"
    ) -> tuple[list[str], array[int], array[int]]:
        """Return :meth:`token_spans` with the offsets as arrays of ``typecode`` (``"i"``
        for a text under ``2**31`` characters, or ``"q"``).

        :raises TypeError: if ``text`` is not a ``str``.
        :raises ValueError: for another ``typecode``, or ``"i"`` for a text of ``2**31``
            characters or more (its offsets would not fit).

        Runtime complexity: that of :meth:`token_spans`; with numpy
        (``samecode[fast]``), the offsets of words come from each character's kind (white
        space, word, or a token alone) in C, with the same arrays, and the tokens from
        one ``findall`` without their white space.

        >>> tokens, starts, ends = Shingling().token_offsets("def f(x):", "a.py", "i")
        >>> tokens, starts
        (['def', 'f', '(', 'x', ')', ':'], array('i', [0, 4, 5, 6, 7, 8]))
        """
        _check_offsets(typecode, text)
        if self.tokens != "words" or not isinstance(text, str) or not use_numpy(len(text)):
            found, starts, ends = self.token_spans(text, path)
            return found, array(typecode, starts), array(typecode, ends)
        import samecode._numpy_kernels as fast

        found = (_ASCII_WORDS if text.isascii() else _WORDS).findall(text)
        first, past = fast.word_offsets(text, _ASCII_KINDS, _kind, typecode)
        return (_normal_words(found, language_of(path)) if self.normalize else found), first, past

    def id_offsets(
        self, text: str, path: str = "", typecode: str = "q"
    ) -> tuple[array[int], array[int], array[int]]:
        """Return :meth:`token_offsets` with each token's id (:func:`token_id`) in place of
        the token: an ``array("Q")`` of the ids, then the offsets.

        :raises TypeError: if ``text`` is not a ``str``.
        :raises ValueError: as :meth:`token_offsets`.

        Runtime complexity: that of :meth:`token_offsets`; with numpy (``samecode[fast]``),
        for words not normalized, tokens of up to 7 bytes of UTF-8 (most of them) are
        told apart by their bytes in C, and no ``str`` is made of them: an id is looked
        up once a distinct one, and a ``str`` made of each longer token.

        >>> ids, starts, ends = Shingling().id_offsets("a b a", "notes.txt", "i")
        >>> list(ids) == token_ids(["a", "b", "a"]), starts, ends
        (True, array('i', [0, 2, 4]), array('i', [1, 3, 5]))
        """
        _check_offsets(typecode, text)
        if self._words_on_numpy(text):
            import samecode._numpy_kernels as fast

            return fast.word_ids(
                text, _ASCII_KINDS, _kind, typecode, _memo.__getitem__, _packed_memo.__getitem__
            )
        tokens, starts, ends = self.token_offsets(text, path, typecode)
        return array("Q", _ids(tokens)), starts, ends

    def _words_on_numpy(self, text: object) -> bool:
        """Whether :meth:`id_offsets` makes the ids of ``text`` on numpy: words, not
        normalized, of a text long enough."""
        return (
            self.tokens == "words"
            and not self.normalize
            and isinstance(text, str)
            and use_numpy(len(text))
        )

    def shingles(self, text: str, path: str = "") -> array[int]:
        """Return the distinct shingle hashes of ``text``, as an ``array("Q")`` (in no
        particular order: sort it for a canonical form).

        :param text: the text.
        :param path: the file's path, for its language (``tokens="code"`` and
            ``normalize``).
        :raises TypeError: if ``text`` is not a ``str``.
        """
        return self.measure(text, path)[1]

    def measure(self, text: str, path: str = "") -> tuple[int, array[int]]:
        """Return ``(tokens, shingles)``: how many tokens (characters for ``"chars"``) the
        text has, and :meth:`shingles`.

        >>> Shingling(size=2).measure("a b a b")
        (4, array('Q', [...]))
        """
        if not isinstance(text, str):
            raise SamecodeTypeError(f"text must be a str; got {describe(text)}")
        if self.tokens == "chars":
            normal = re.sub(r"\s+", " ", text)
            # each shingle hashed as it is made: no set of the shingles themselves
            distinct = set(map(token_id, char_shingles(normal, self.size)))
            if not distinct and normal:
                distinct = {token_id(normal)}
            return len(normal), array("Q", distinct)
        if self._words_on_numpy(text):  # the ids without a str a token
            return self.measure_ids(self.id_offsets(text, path)[0])
        return self.measure_ids(_ids(self.token_list(text, path)))

    def measure_ids(self, ids: Sequence[int]) -> tuple[int, array[int]]:
        """:meth:`measure` of a text whose tokens by these rules have these ids
        (:func:`token_ids`), for a caller that has them already (the ids of
        :class:`~samecode.fragments.tokens.TokenSpans`, of the same ``tokens`` and
        ``normalize``): the same count and set.

        :raises TypeError: for ids that are not ints.
        :raises ValueError: for rules of ``tokens="chars"`` (their shingles are of
            characters, not of token ids), or an id outside 0 to ``2**64 - 1``.

        >>> rules = Shingling(size=2)
        >>> rules.measure_ids(token_ids(rules.token_list("a b a b"))) == rules.measure("a b a b")
        True
        """
        if self.tokens == "chars":
            raise SamecodeValueError("chars shingles are made of characters, not token ids")
        if not isinstance(ids, array) or ids.typecode != "Q":
            try:  # in C: ids are ints from 0 to 2**64 - 1, as token_ids makes them
                ids = array("Q", ids)
            except TypeError:
                raise SamecodeTypeError(f"ids must be ints; got {describe(ids)}") from None
            except OverflowError:
                raise SamecodeValueError("ids must be from 0 to 2**64 - 1") from None
        if len(ids) >= self.size and use_numpy(len(ids)):
            import samecode._numpy_kernels as fast

            words = fast.as_uint64(ids)
            if words is not None:  # ascending: one order of the set
                return len(ids), fast.distinct_kgrams(words, self.size)
        return len(ids), array("Q", set(_hashes(list(ids), self.size)))


def _normal_words(tokens: list[str], language: Language) -> list[str]:
    keywords = language.keywords
    out = []
    for token in tokens:
        first = token[0]
        if first.isdigit():
            out.append(_NUMBER)
        elif (first.isalnum() or first == "_") and token not in keywords:
            out.append(_NAME)
        else:
            out.append(token)
    return out


def _normal_code(tokens: list[str], language: Language) -> list[str]:
    keywords = language.keywords
    out = []
    for token in tokens:
        first = token[0]
        if first in "\"'":
            out.append(_STRING)
        elif first.isdigit() or (first == "." and len(token) > 1):
            out.append(_NUMBER)
        elif (first.isalnum() or first in "_$") and token not in keywords:
            out.append(_NAME)
        else:
            out.append(token)
    return out
