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
import sys
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import chain, compress, count, islice, tee
from typing import Any, TypeVar

from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = ["ngrams", "select_ngrams", "token_fingerprint"]

_T = TypeVar("_T")
_MISSING: Any = object()
# Fingerprints are remembered only for tokens of these exact types: within one of them,
# equal tokens always have equal text. (Not so across types, 1 == 1.0 == True, nor for
# floats, where 0.0 == -0.0.)
_REMEMBERED_TYPES = (str, int, bytes)
_MAX_REMEMBERED = 1 << 18
# ngrams are fingerprinted this many at a time, so that the work per token runs in C.
_BATCH = 4096
# ngrams up to this long are read by tee and zip (about 100 bytes per copy); longer ones
# through a window, so that memory follows the input and never the requested length.
_TEE_LENGTH = 64


def _check_length(ngram_length: object) -> int:
    if isinstance(ngram_length, bool):
        raise SamecodeTypeError(f"ngram_length must be an int; got bool {ngram_length!r}")
    try:
        length = operator.index(ngram_length)  # type: ignore[arg-type]
    except TypeError:
        raise SamecodeTypeError(
            f"ngram_length must be an int; got {type(ngram_length).__name__} {ngram_length!r}"
        ) from None
    if length < 1:
        raise SamecodeValueError(f"ngram_length must be >= 1; got {length!r}")
    return length


def ngrams(iterable: Iterable[_T], ngram_length: int) -> Iterator[tuple[_T, ...]]:
    """Return the ngrams of ``iterable``: every run of ``ngram_length`` consecutive items.

    Each ngram is a tuple. Fewer than ``ngram_length`` items give no ngram. Any iterable
    works, iterators and generators included, and the input is read once, lazily.

    :param iterable: the tokens.
    :param ngram_length: how many tokens make an ngram, >= 1.
    :raises TypeError: if ``iterable`` is not iterable or ``ngram_length`` is not an int.
    :raises ValueError: if ``ngram_length`` < 1.

    Runtime complexity: ``O(n * ngram_length)`` for ``n`` items (building the tuples).
    Memory is ``O(min(n, ngram_length))``: a window of at most ``ngram_length`` items,
    never more than the input holds, however large ``ngram_length`` is.

    >>> list(ngrams([1, 2, 3, 4, 5], 2))
    [(1, 2), (2, 3), (3, 4), (4, 5)]
    >>> list(ngrams(iter([1, 2, 3, 4, 5]), 4))
    [(1, 2, 3, 4), (2, 3, 4, 5)]
    >>> list(ngrams([1], 2))
    []
    >>> ngrams([1, 2], 0)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: ngram_length must be >= 1; got 0
    """
    length = _check_length(ngram_length)
    iterator = iter(iterable)
    return _ngrams(iterator, length)


def _ngrams(iterator: Iterator[_T], length: int) -> Iterator[tuple[_T, ...]]:
    if length <= _TEE_LENGTH:
        # n copies of the stream, the k-th advanced by k items: zip reads the windows in C.
        copies = tee(iterator, length)
        for skip, copy in enumerate(copies):
            next(islice(copy, skip, skip), None)
        yield from zip(*copies)
        return
    # Long ngrams: a window that holds what the input has, never ``length`` slots up front.
    head = list(islice(iterator, min(length - 1, sys.maxsize)))
    if len(head) < length - 1:
        return
    window = deque(head, maxlen=length)
    del head
    for item in iterator:
        window.append(item)
        yield tuple(window)


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


def _remember(cache: dict[Any, int], key: Any, value: int) -> int:
    """Store ``value`` under ``key``, first forgetting everything if ``cache`` is full."""
    if len(cache) >= _MAX_REMEMBERED:
        cache.clear()
    cache[key] = value
    return value


class _Remembered(dict[Any, int]):
    """Token -> fingerprint for tokens of one exact type."""

    __slots__ = ()

    def __missing__(self, token: Any) -> int:
        return _remember(self, token, token_fingerprint(token))


class _Typed(dict[tuple[type, Any], int]):
    """(type, token) -> fingerprint, for batches that mix token types."""

    __slots__ = ()

    def __missing__(self, key: tuple[type, Any]) -> int:
        kind, token = key
        value = token_fingerprint(token)
        return _remember(self, key, value) if kind in _REMEMBERED_TYPES else value


class _Fingerprinter:
    """Fingerprints a list of tokens at once, remembering what is safe to remember."""

    __slots__ = ("_by_type", "_typed")

    def __init__(self) -> None:
        self._by_type: dict[type, _Remembered] = {kind: _Remembered() for kind in _REMEMBERED_TYPES}
        self._typed = _Typed()

    def __call__(self, tokens: list[Any]) -> list[int]:
        kinds = set(map(type, tokens))
        try:
            if len(kinds) == 1:
                remembered = self._by_type.get(kinds.pop())
                if remembered is not None:
                    return list(map(remembered.__getitem__, tokens))
            return list(map(self._typed.__getitem__, zip(map(type, tokens), tokens)))
        except TypeError:  # an unhashable token: nothing to remember it by
            return list(map(token_fingerprint, tokens))


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
        raise SamecodeTypeError(
            f"with_pos must be a bool; got {type(with_pos).__name__} {with_pos!r}"
        )
    try:
        iterator = iter(ngrams)
    except TypeError:
        raise SamecodeTypeError(
            f"ngrams must be an iterable of ngrams; got {type(ngrams).__name__} {ngrams!r}"
        ) from None
    return _select_ngrams(iterator, bool(with_pos))


def _select_ngrams(iterator: Iterator[Any], with_pos: bool) -> Iterator[Any]:
    fingerprints = _Fingerprinter()
    start = 0
    last_yielded: Any = _MISSING
    last_item: Any = _MISSING
    while batch := list(islice(iterator, _BATCH)):
        chosen = _choose(batch, start, fingerprints)
        if start == 0:
            chosen[0] = True  # the first ngram is always kept
        items: list[Any] = list(zip(count(start), batch)) if with_pos else batch
        yield from compress(items, chosen)
        if True in chosen:
            last_yielded = items[len(chosen) - 1 - chosen[::-1].index(True)]
        last_item = items[-1]
        start += len(batch)
    # The last ngram closes the selection, unless it equals the last one yielded.
    if last_item is not _MISSING and not _same(last_yielded, last_item):
        yield last_item


def _same(first: Any, second: Any) -> bool:
    """``first == second`` as a bool, also for items whose ``==`` gives an array (numpy
    rows): those are equal when their items are, one by one."""
    if first is second:
        return True
    try:
        return bool(first == second)
    except (TypeError, ValueError):
        pass
    try:
        a, b = list(first), list(second)
    except TypeError:
        return False
    return len(a) == len(b) and all(map(_same, a, b))


def _choose(batch: list[Any], start: int, fingerprints: _Fingerprinter) -> list[bool]:
    """Return, for each ngram of ``batch``, whether its smallest fingerprint is at an end."""
    try:
        lengths = set(map(len, batch))
    except TypeError:
        lengths = set()  # ngrams without a length: take them one at a time
    if len(lengths) != 1 or 0 in lengths:
        return [
            _chosen_alone(ngram, start + offset, fingerprints) for offset, ngram in enumerate(batch)
        ]
    (k,) = lengths
    prints = fingerprints(list(chain.from_iterable(batch)))
    if k == 1:
        return [True] * len(batch)
    firsts, lasts = prints[0::k], prints[k - 1 :: k]
    smallest = list(map(min, *(prints[i::k] for i in range(k))))
    return list(
        map(operator.or_, map(operator.eq, smallest, firsts), map(operator.eq, smallest, lasts))
    )


def _chosen_alone(ngram: Any, pos: int, fingerprints: _Fingerprinter) -> bool:
    if not isinstance(ngram, Iterable):
        raise SamecodeTypeError(
            "each ngram must be a sequence of tokens; "
            f"got {type(ngram).__name__} {ngram!r} at {pos}"
        )
    prints = fingerprints(list(ngram))
    if not prints:
        raise SamecodeValueError(f"an ngram must hold at least one token; got {ngram!r} at {pos}")
    smallest = min(prints)
    return smallest == prints[0] or smallest == prints[-1]
