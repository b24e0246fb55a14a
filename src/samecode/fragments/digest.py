"""Digests of regions: what a place's text is, whatever line it starts on.

The digest of a run of tokens is the SHA-256 of their 64-bit ids
(:func:`~samecode.scan.shingling.token_id`, little-endian, in order), as 32 hex digits.
The ids are of the tokens as fragments see them (``tokens`` and ``normalize`` of the
:class:`~samecode.fragments.options.FragmentOptions`: with ``normalize``, names and literals
are placeholders; comments of a known language are dropped), so a place keeps its digest
when lines are added above it, when its indentation or line breaks change, and (with
``normalize``) when its names are renamed. Baselines (:mod:`~samecode.fragments.baseline`)
and SARIF's ``primaryLocationLineHash`` (:mod:`~samecode.fragments.sarif`) use it.

>>> from array import array
>>> ids = array("Q", [7, 8, 9, 7, 8, 9])
>>> token_digest(ids, 0, 3) == token_digest(ids, 3, 6), len(token_digest(ids, 0, 3))
(True, 32)
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Mapping, Sequence

from samecode.errors import SamecodeValueError
from samecode.fragments.classes import FragmentClass
from samecode.fragments.regions import Region

__all__ = ["class_digests", "region_digests", "token_digest"]


def token_digest(ids: array[int], first: int, stop: int) -> str:
    """The digest of the tokens ``first`` to ``stop`` (exclusive) of ``ids`` (see the
    module's description).

    :param ids: token ids (an ``array("Q")``, as
        :class:`~samecode.fragments.tokens.TokenSpans` holds them).
    :param first: the first token, from 0.
    :param stop: just past the last token.
    :raises ValueError: for an empty range or one outside ``ids``.

    Runtime complexity: ``O(stop - first)``, in C.

    >>> token_digest(array("Q", [1, 2]), 0, 2) == token_digest(array("Q", [0, 1, 2]), 1, 3)
    True
    """
    if not 0 <= first < stop <= len(ids):
        raise SamecodeValueError(
            f"a token range must be within 0 to {len(ids)} and not empty; got {first} to {stop}"
        )
    part = ids[first:stop]
    if sys.byteorder == "big":  # pragma: no cover - big-endian machines
        part.byteswap()
    return hashlib.sha256(part.tobytes()).hexdigest()[:32]


def class_digests(
    classes: Sequence[FragmentClass], ids: Mapping[str, array[int]]
) -> list[tuple[str, ...]]:
    """For each class, the digest of each occurrence (in the class's order).

    :param classes: clone classes.
    :param ids: the token ids (:attr:`~samecode.fragments.tokens.TokenSpans.ids`) of
        every file the classes name, by path.
    :raises KeyError: if a file is missing from ``ids``.

    Runtime complexity: ``O(t)`` for the ``t`` tokens of all occurrences.

    >>> from samecode.fragments.classes import FragmentClass, Occurrence
    >>> from samecode.fragments.tokens import TokenSpans
    >>> from samecode.scan.shingling import Shingling
    >>> spans = TokenSpans.of("a b c\\nx\\na b c\\n", Shingling())
    >>> clone = FragmentClass((Occurrence("f", 1, 1, 0, 3), Occurrence("f", 3, 3, 4, 7)), 1)
    >>> first, second = class_digests([clone], {"f": spans.ids})[0]
    >>> first == second
    True
    """
    return [
        tuple(token_digest(ids[o.path], o.first, o.stop) for o in clone.occurrences)
        for clone in classes
    ]


def region_digests(
    regions: Sequence[Region], ids: Mapping[str, array[int]]
) -> list[tuple[str, str]]:
    """For each region, the digests of its tokens in ``a`` and in ``b``.

    :param regions: regions.
    :param ids: the token ids (:attr:`~samecode.fragments.tokens.TokenSpans.ids`) of
        every file the regions name, by path.
    :raises KeyError: if a file is missing from ``ids``.

    Runtime complexity: ``O(t)`` for the ``t`` tokens of all regions.

    >>> from samecode.fragments.tokens import TokenSpans
    >>> from samecode.scan.shingling import Shingling
    >>> spans = TokenSpans.of("a b c\\nx\\na b c\\n", Shingling())
    >>> region = Region("f", "f", 1, 1, 3, 3, 3, 0.5, 0.5, 0, 3, 4, 7, ())
    >>> first, second = region_digests([region], {"f": spans.ids})[0]
    >>> first == second
    True
    """
    return [
        (
            token_digest(ids[r.a], r.a_first, r.a_stop),
            token_digest(ids[r.b], r.b_first, r.b_stop),
        )
        for r in regions
    ]
