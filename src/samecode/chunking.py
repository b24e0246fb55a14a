"""Cut token streams into ngrams, and pick a stable sample of them.

A drop-in for ``samecode.chunking`` of SameCode 0.5.1, with the same outputs, that also
works on iterators and generators and rejects bad arguments when it is called.

* :func:`ngrams` slides a window of ``n`` tokens over any iterable.
* :func:`select_ngrams` keeps the ngrams chosen by the *hailstorm* rule, a sample that two
  texts sharing a passage tend to share too, so that fewer fingerprints need storing.

>>> words = "to be or not to be that is the question".split()
>>> list(ngrams(words, 3))[:2]
[('to', 'be', 'or'), ('be', 'or', 'not')]
>>> len(list(select_ngrams(ngrams(words, 3)))) <= len(list(ngrams(words, 3)))
True
"""

from __future__ import annotations

import operator
import zlib
from collections.abc import Iterable, Iterator
from itertools import islice, tee
from typing import Any, TypeVar

__all__ = ["ngrams", "select_ngrams", "token_fingerprint"]

_T = TypeVar("_T")
_MISSING: Any = object()
# Fingerprints are remembered for tokens of these exact types: for them, equal tokens
# always have equal text, so a remembered value is always right. (Not so for floats,
# where 0.0 == -0.0, or for bool, where True == 1.)
_REMEMBERED_TYPES = (int, bytes)
_MAX_REMEMBERED = 1 << 18


def _check_length(ngram_length: object) -> int:
    if isinstance(ngram_length, bool):
        raise TypeError(f"ngram_length must be an int; got bool {ngram_length!r}")
    try:
        length = operator.index(ngram_length)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"ngram_length must be an int; got {type(ngram_length).__name__} {ngram_length!r}"
        ) from None
    if length < 1:
        raise ValueError(f"ngram_length must be >= 1; got {length!r}")
    return length


def ngrams(iterable: Iterable[_T], ngram_length: int) -> Iterator[tuple[_T, ...]]:
    """Return the ngrams of ``iterable``: every run of ``ngram_length`` consecutive items.

    Each ngram is a tuple. Fewer than ``ngram_length`` items give no ngram. Any iterable
    works, iterators and generators included, and the input is read once, lazily.

    :param iterable: the tokens.
    :param ngram_length: how many tokens make an ngram, >= 1.
    :raises TypeError: if ``iterable`` is not iterable or ``ngram_length`` is not an int.
    :raises ValueError: if ``ngram_length`` < 1.

    Runtime complexity: ``O(n * ngram_length)`` for ``n`` items (building the tuples);
    the items are buffered ``ngram_length`` at a time.

    >>> list(ngrams([1, 2, 3, 4, 5], 2))
    [(1, 2), (2, 3), (3, 4), (4, 5)]
    >>> list(ngrams(iter([1, 2, 3, 4, 5]), 4))
    [(1, 2, 3, 4), (2, 3, 4, 5)]
    >>> list(ngrams([1], 2))
    []
    >>> ngrams([1, 2], 0)
    Traceback (most recent call last):
    ...
    ValueError: ngram_length must be >= 1; got 0
    """
    length = _check_length(ngram_length)
    iterator = iter(iterable)
    return _ngrams(iterator, length)


def _ngrams(iterator: Iterator[_T], length: int) -> Iterator[tuple[_T, ...]]:
    # n copies of the stream, the k-th advanced by k items: zip then reads the windows.
    copies = tee(iterator, length)
    for skip, copy in enumerate(copies):
        next(islice(copy, skip, skip), None)
    yield from zip(*copies)


def token_fingerprint(token: object) -> int:
    """Return the fingerprint that :func:`select_ngrams` gives a token.

    It is the unsigned CRC-32 of the token's UTF-8 text: a ``str`` as it is, anything
    else as ``str(token)`` (so ``b"x"`` counts as the text ``"b'x'"``), as in SameCode.

    :raises UnicodeEncodeError: if the text holds lone surrogates.

    >>> token_fingerprint("abc") == 0x352441C2
    True
    >>> token_fingerprint(1) == token_fingerprint("1")
    True
    """
    text = token if isinstance(token, str) else str(token)
    return zlib.crc32(text.encode("utf-8"))


class _Fingerprints(dict[Any, int]):
    """Token -> fingerprint, remembering only tokens for which that is always safe."""

    __slots__ = ("_by_type",)

    def __init__(self) -> None:
        super().__init__()
        self._by_type: dict[tuple[type, Any], int] = {}

    def __missing__(self, token: Any) -> int:
        kind = type(token)
        if kind is str:
            value = zlib.crc32(token.encode("utf-8"))
            if len(self) >= _MAX_REMEMBERED:
                self.clear()
            self[token] = value
            return value
        if kind in _REMEMBERED_TYPES:
            key = (kind, token)
            value = self._by_type.get(key, _MISSING)
            if value is _MISSING:
                value = zlib.crc32(str(token).encode("utf-8"))
                if len(self._by_type) >= _MAX_REMEMBERED:
                    self._by_type.clear()
                self._by_type[key] = value
            return int(value)
        return token_fingerprint(token)


def select_ngrams(ngrams: Iterable[Any], with_pos: bool = False) -> Iterator[Any]:
    """Return the ngrams that the *hailstorm* rule selects, in order.

    Every token of an ngram gets a fingerprint (:func:`token_fingerprint`). An ngram is
    selected when its smallest fingerprint is at its first or at its last position. The
    first ngram is always yielded, and the last one is yielded at the end unless it
    equals the last one already yielded. For ngrams of ``k`` distinct tokens about ``2/k``
    of them are kept, and since the choice depends only on an ngram's own tokens, two
    texts that share a passage keep the same ngrams inside it. (The rule is from Abdel
    Hamid et al., "Detecting the origin of text segments efficiently", WWW 2009.)

    :param ngrams: an iterable of ngrams, each a non-empty sequence of tokens (as
        :func:`ngrams` makes them).
    :param with_pos: if true, yield ``(position, ngram)`` pairs, the position counted
        from 0 in the input.
    :raises TypeError: if ``ngrams`` is not iterable or ``with_pos`` is not a bool.
    :raises ValueError: (while iterating) for an empty ngram.

    Runtime complexity: ``O(n * k)`` for ``n`` ngrams of ``k`` tokens; each distinct
    ``str``, ``int`` or ``bytes`` token is fingerprinted once.

    >>> grams = [(2, 1, 3), (1, 1, 3), (5, 1, 3), (2, 6, 1), (7, 3, 4)]
    >>> list(select_ngrams(grams))
    [(2, 1, 3), (1, 1, 3), (5, 1, 3), (2, 6, 1), (7, 3, 4)]
    >>> list(select_ngrams(grams, with_pos=True))[:2]
    [(0, (2, 1, 3)), (1, (1, 1, 3))]
    >>> list(select_ngrams([]))
    []
    """
    if not isinstance(with_pos, (bool, int)):
        raise TypeError(f"with_pos must be a bool; got {type(with_pos).__name__} {with_pos!r}")
    try:
        iterator = iter(ngrams)
    except TypeError:
        raise TypeError(
            f"ngrams must be an iterable of ngrams; got {type(ngrams).__name__} {ngrams!r}"
        ) from None
    return _select_ngrams(iterator, bool(with_pos))


def _select_ngrams(iterator: Iterator[Any], with_pos: bool) -> Iterator[Any]:
    lookup = _Fingerprints().__getitem__
    last_yielded: Any = _MISSING
    item: Any = _MISSING
    for pos, ngram in enumerate(iterator):
        try:
            prints = list(map(lookup, ngram))
        except TypeError:
            # An unhashable token: fingerprint this ngram without remembering.
            if not isinstance(ngram, Iterable):
                raise TypeError(
                    f"each ngram must be a sequence of tokens; got "
                    f"{type(ngram).__name__} {ngram!r} at {pos}"
                ) from None
            if iter(ngram) is ngram:
                raise TypeError(
                    f"ngram {pos} is a one-shot iterator with unhashable tokens; "
                    "give each ngram as a tuple or a list"
                ) from None
            prints = list(map(token_fingerprint, ngram))
        if not prints:
            raise ValueError(f"an ngram must hold at least one token; got {ngram!r} at {pos}")
        item = (pos, ngram) if with_pos else ngram
        smallest = min(prints)
        if smallest == prints[0] or smallest == prints[-1] or pos == 0:
            yield item
            last_yielded = item
    if item is not _MISSING and last_yielded != item:
        yield item
