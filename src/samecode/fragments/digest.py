"""Digests of regions: what a place's text is, whatever line it starts on.

The digest of a run of tokens is the SHA-256 of their 64-bit ids
(:func:`~samecode.text.shingling.token_id`, little-endian, in order), as 32 hex digits.
The ids are of the tokens as fragments see them (``tokens`` and ``normalize`` of the
:class:`~samecode.fragments.options.FragmentOptions`: with ``normalize``, names and literals
are placeholders; comments of a known language are dropped), so a place keeps its digest
when lines are added above it, when its indentation or line breaks change, and (with
``normalize``) when its names are renamed. Baselines (:mod:`~samecode.fragments.baseline`)
and SARIF's ``primaryLocationLineHash`` (:mod:`~samecode.reports.sarif`) use it.

Tokens masked as boilerplate (:mod:`~samecode.fragments.boilerplate`) that a region spans
count as the id 0 when the masked ranges are given: a digest does not change with what
was masked, and it is the one made before 2026-11-27, when masked tokens had ids made from
the file's path and regions stopped at them.

>>> from array import array
>>> ids = array("Q", [7, 8, 9, 7, 8, 9])
>>> token_digest(ids, 0, 3) == token_digest(ids, 3, 6), len(token_digest(ids, 0, 3))
(True, 32)
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence

from samecode.errors import SamecodeValueError
from samecode.fragments._ranges import disjoint
from samecode.fragments.boilerplate import digest_ids
from samecode.fragments.classes import FragmentClass
from samecode.fragments.regions import Region

__all__ = [
    "class_digests",
    "class_digests_with",
    "end_digests",
    "place_digests",
    "region_digests",
    "token_digest",
]


def token_digest(
    ids: array[int], first: int, stop: int, masked: Sequence[tuple[int, int]] = ()
) -> str:
    """The digest of the tokens ``first`` to ``stop`` (exclusive) of ``ids`` (see the
    module's description).

    :param ids: token ids (an ``array("Q")``, as
        :class:`~samecode.fragments.tokens.TokenSpans` holds them).
    :param first: the first token, from 0.
    :param stop: just past the last token.
    :param masked: the file's masked ranges of tokens ``(first, stop)``, in any order:
        their tokens count as the id 0.
    :raises ValueError: for an empty range or one outside ``ids``.

    Runtime complexity: ``O(stop - first)``, in C, and a step for each masked range.

    >>> token_digest(array("Q", [1, 2]), 0, 2) == token_digest(array("Q", [0, 1, 2]), 1, 3)
    True
    >>> token_digest(array("Q", [1, 7, 2]), 0, 3, [(1, 2)]) == token_digest(
    ...     array("Q", [1, 8, 2]), 0, 3, [(1, 2)])
    True
    """
    if not 0 <= first < stop <= len(ids):
        raise SamecodeValueError(
            f"a token range must be within 0 to {len(ids)} and not empty; got {first} to {stop}"
        )
    part = digest_ids(ids, masked, first, stop)
    if sys.byteorder == "big":  # pragma: no cover - big-endian machines
        part.byteswap()
    return hashlib.sha256(part.tobytes()).hexdigest()[:32]


def _places(
    ids: Mapping[str, array[int]], masked: Mapping[str, Sequence[tuple[int, int]]] | None
) -> Callable[[str, int, int], str]:
    """``digest(path, first, stop)``: :func:`token_digest` of a place in a file of
    ``ids``, its masked ranges (``masked``, by path) counted as 0."""
    masked = {} if masked is None else masked
    spans: dict[str, tuple[list[tuple[int, int]], list[int], list[int]]] = {}

    def digest(path: str, first: int, stop: int) -> str:
        # a catalogue has a masked range per message: give each place only those that
        # overlap it, found by bisection in the file's ranges made disjoint and sorted
        if path not in spans:
            merged = disjoint(masked.get(path, ()))
            spans[path] = merged, [low for low, _ in merged], [high for _, high in merged]
        merged, lows, highs = spans[path]
        near = merged[bisect_right(highs, first) : bisect_left(lows, stop)]
        return token_digest(ids[path], first, stop, near)

    return digest


def class_digests(
    classes: Sequence[FragmentClass],
    ids: Mapping[str, array[int]],
    masked: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    known: Mapping[tuple[str, int, int], str] | None = None,
) -> list[tuple[str, ...]]:
    """For each class, the digest of each occurrence (in the class's order).

    :param classes: clone classes.
    :param ids: the token ids (:attr:`~samecode.fragments.tokens.TokenSpans.ids`) of
        every file the classes name, by path: asked for in order of path, a file's
        occurrences one after the other (so a mapping that loads them need keep one).
    :param masked: the masked ranges of tokens of files that have any, by path (see
        :func:`token_digest`).
    :param known: digests already made, by place ``(path, first, stop)``, as
        :func:`end_digests` gives those of regions' ends (most occurrences are one end):
        these places' tokens are not read again.
    :raises KeyError: if a file is missing from ``ids``.

    Runtime complexity: ``O(t)`` for the ``t`` tokens of the occurrences not ``known``,
    and ``O(o log o)`` to order the ``o`` occurrences by path.

    >>> from samecode.fragments.classes import FragmentClass, Occurrence
    >>> from samecode.fragments.tokens import TokenSpans
    >>> from samecode.text.shingling import Shingling
    >>> spans = TokenSpans.of("a b c\\nx\\na b c\\n", Shingling())
    >>> clone = FragmentClass((Occurrence("f", 1, 1, 0, 3), Occurrence("f", 3, 3, 4, 7)), 1)
    >>> first, second = class_digests([clone], {"f": spans.ids})[0]
    >>> first == second
    True
    """
    return class_digests_with(classes, lambda places: place_digests(places, ids, masked), known)


def class_digests_with(
    classes: Sequence[FragmentClass],
    digests_of: Callable[[Sequence[tuple[str, int, int]]], Sequence[str]],
    known: Mapping[tuple[str, int, int], str] | None = None,
) -> list[tuple[str, ...]]:
    """For each class, the digest of each occurrence (in the class's order), as
    ``digests_of`` makes them: :func:`class_digests` with the digests made elsewhere (a
    scan makes them on its workers, where the files' token ids are).

    :param classes: clone classes.
    :param digests_of: given places ``(path, first, stop)`` in order of path (a file's
        places together), their digests in the same order, as :func:`place_digests`.
    :param known: digests already made, by place (see :func:`class_digests`): only the
        other places are given to ``digests_of``.
    :raises ValueError: if ``digests_of`` gives not one digest for each place.

    Runtime complexity: ``O(o log o)`` to order the ``o`` occurrences by path, and a call
    of ``digests_of``.

    >>> from samecode.fragments.classes import FragmentClass, Occurrence
    >>> clone = FragmentClass((Occurrence("g", 1, 1, 0, 3), Occurrence("f", 3, 3, 4, 7)), 1)
    >>> class_digests_with([clone], lambda places: [path for path, _, _ in places])
    [('g', 'f')]
    """
    wanted = sorted(  # a file's places together
        (o.path, c, n) for c, clone in enumerate(classes) for n, o in enumerate(clone.occurrences)
    )
    places = []
    for path, c, n in wanted:
        occurrence = classes[c].occurrences[n]
        places.append((path, occurrence.first, occurrence.stop))
    known = {} if known is None else known
    digests = [known.get(place, "") for place in places]
    unknown = [at for at, digest in enumerate(digests) if not digest]
    made = digests_of([places[at] for at in unknown])
    if len(made) != len(unknown):
        raise SamecodeValueError(
            f"digests_of must give one digest for each of the {len(unknown)} places;"
            f" it gave {len(made)}"
        )
    for at, digest in zip(unknown, made):
        digests[at] = digest
    found = [[""] * len(clone.occurrences) for clone in classes]
    for (_, c, n), digest in zip(wanted, digests):
        found[c][n] = digest
    return [tuple(digests) for digests in found]


def end_digests(
    regions: Sequence[Region], digests: Sequence[tuple[str, str]]
) -> dict[tuple[str, int, int], str]:
    """The digest of each end ``(path, first, stop)`` of ``regions``, from their
    :func:`region_digests` ``digests``: what :func:`class_digests` need not make again.

    Runtime complexity: ``O(r)`` for ``r`` regions.

    >>> region = Region("f", "g", 1, 1, 3, 3, 3, 0.5, 0.5, 0, 3, 4, 7, ())
    >>> end_digests([region], [("x", "y")])
    {('f', 0, 3): 'x', ('g', 4, 7): 'y'}
    """
    known = {}
    for region, (a_digest, b_digest) in zip(regions, digests):
        known[region.a, region.a_first, region.a_stop] = a_digest
        known[region.b, region.b_first, region.b_stop] = b_digest
    return known


def place_digests(
    places: Sequence[tuple[str, int, int]],
    ids: Mapping[str, array[int]],
    masked: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> list[str]:
    """The digest of each place ``(path, first, stop)``, in order: :func:`token_digest`
    of the tokens ``first`` to ``stop`` of the file at ``path``.

    :param places: the places.
    :param ids: the token ids of every file the places name, by path (asked for in the
        order of the places, a file's places one after the other if they are so given).
    :param masked: the masked ranges of tokens of files that have any, by path (see
        :func:`token_digest`).
    :raises KeyError: if a file is missing from ``ids``.
    :raises ValueError: for a place out of its file's tokens, or empty.

    Runtime complexity: ``O(t)`` for the ``t`` tokens of the places, and ``O(m log m)``
    once a file for its ``m`` masked ranges.

    >>> from array import array
    >>> found = place_digests([("f", 0, 2), ("f", 2, 4)], {"f": array("Q", [5, 6, 5, 6])})
    >>> found[0] == found[1]
    True
    """
    place = _places(ids, masked)
    return [place(path, first, stop) for path, first, stop in places]


def region_digests(
    regions: Sequence[Region],
    ids: Mapping[str, array[int]],
    masked: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> list[tuple[str, str]]:
    """For each region, the digests of its tokens in ``a`` and in ``b``.

    :param regions: regions.
    :param ids: the token ids (:attr:`~samecode.fragments.tokens.TokenSpans.ids`) of
        every file the regions name, by path.
    :param masked: the masked ranges of tokens of files that have any, by path (see
        :func:`token_digest`).
    :raises KeyError: if a file is missing from ``ids``.

    Runtime complexity: ``O(t)`` for the ``t`` tokens of all regions.

    >>> from samecode.fragments.tokens import TokenSpans
    >>> from samecode.text.shingling import Shingling
    >>> spans = TokenSpans.of("a b c\\nx\\na b c\\n", Shingling())
    >>> region = Region("f", "f", 1, 1, 3, 3, 3, 0.5, 0.5, 0, 3, 4, 7, ())
    >>> first, second = region_digests([region], {"f": spans.ids})[0]
    >>> first == second
    True
    """
    place = _places(ids, masked)
    return [(place(r.a, r.a_first, r.a_stop), place(r.b, r.b_first, r.b_stop)) for r in regions]
