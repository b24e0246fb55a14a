"""Clone classes of regions: the same text in N places is one class of N occurrences.

Regions link places two at a time. In each file, the ends of regions that mark *the same
text*, up to the edits a region allows (their first tokens at most ``gap`` tokens apart,
and their stops too), are one *occurrence*: the span from the first of them to the last;
occurrences linked by chains of regions are one :class:`FragmentClass`. Text copied into
N places gives N occurrences in one class, however many of its ``N * (N - 1) / 2`` pairs
were found as regions. A large place that overlaps many small ones (a file of 29,000
tokens that shares a few lines with each of many files) is not their occurrence: it is
another text, so it does not chain unrelated texts into one class.

Formally: two region ends ``(path, first, stop)`` are *alike* when they are in one file
with ``|first - first'| <= gap`` and ``|stop - stop'| <= gap``; occurrences are the groups
that chains of alike ends make; classes are the groups of occurrences that chains of
regions make (a region links the occurrences of its two ends). The order is fixed by the
input alone: occurrences by path, then first token; classes by decreasing number of
occurrences, then their first occurrence. Regions given in any order give the same
classes.

>>> from samecode.fragments.regions import Region
>>> def region(a, a_range, b, b_range):
...     return Region(a, b, *a_range, *b_range, 30, 0.5, 0.5, 0, 30, 0, 30, ())
>>> found = fragment_classes([region("x.py", (1, 9), "y.py", (5, 13)),
...                           region("y.py", (5, 13), "z.py", (2, 10)),
...                           region("x.py", (1, 9), "z.py", (2, 10))])
>>> [(o.path, o.start, o.end) for o in found[0].occurrences]
[('x.py', 1, 9), ('y.py', 5, 13), ('z.py', 2, 10)]
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby, pairwise

from samecode._groups import Links, linked_groups
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region

__all__ = ["FragmentClass", "Occurrence", "fragment_classes", "region_classes"]


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place of a clone class: a file, its lines ``start`` to ``end`` (from 1,
    inclusive) and its tokens ``first`` to ``stop`` (from 0, the stop exclusive)."""

    path: str
    start: int
    end: int
    first: int
    stop: int

    @property
    def tokens(self) -> int:
        """How many tokens the occurrence spans."""
        return self.stop - self.first


@dataclass(frozen=True, slots=True)
class FragmentClass:
    """Occurrences of one text: at least two, sorted by path and first token, and how
    many regions linked them."""

    occurrences: tuple[Occurrence, ...]
    regions: int


def _occurrences(
    regions: Sequence[Region], gap: int
) -> tuple[list[Occurrence], list[tuple[int, int]]]:
    """The occurrences the regions' ends make (see the module's description), and for
    each region the numbers of the occurrences of its two ends.

    Each file's distinct ends are sorted by first token, then stop; an end is compared
    with the earlier ones whose first token is within ``gap`` of its own."""
    ends: dict[tuple[str, int, int], list[int]] = {}  # (path, first, stop) -> start, end
    keys: list[tuple[tuple[str, int, int], tuple[str, int, int]]] = []  # each region's ends
    for region in regions:
        a = (region.a, region.a_first, region.a_stop)
        b = (region.b, region.b_first, region.b_stop)
        keys.append((a, b))
        for key, start, end in (
            (a, region.a_start, region.a_end),
            (b, region.b_start, region.b_end),
        ):
            lines = ends.get(key)
            if lines is None:
                ends[key] = [start, end]
            else:  # (comparisons, not min and max: a call each is most of this loop's time)
                if start < lines[0]:
                    lines[0] = start
                if end > lines[1]:
                    lines[1] = end
    order = sorted(ends)
    links: Links[int] = Links(range(len(order)))
    _link_alike(order, gap, links)
    occurrences = []
    number: dict[tuple[str, int, int], int] = {}
    for group in links.groups():
        if len(group) == 1:  # most ends are alike to none
            member = order[group[0]]
            start, end = ends[member]
            occurrences.append(Occurrence(member[0], start, end, member[1], member[2]))
            number[member] = len(occurrences) - 1
            continue
        members = [order[m] for m in group]
        path = members[0][0]
        occurrences.append(
            Occurrence(
                path,
                min(ends[member][0] for member in members),
                max(ends[member][1] for member in members),
                min(member[1] for member in members),
                max(member[2] for member in members),
            )
        )
        for member in members:
            number[member] = len(occurrences) - 1
    return occurrences, [(number[a], number[b]) for a, b in keys]


def _link_alike(order: list[tuple[str, int, int]], gap: int, links: Links[int]) -> None:
    """Link the ends of ``order`` (sorted, distinct) that are alike: in one file, their
    firsts at most ``gap`` apart and their stops too; or ends joined by a chain of such.

    Ends in one cell of a grid of ``gap + 1`` tokens by ``gap + 1`` are all alike, and
    linked as a chain; two cells side by side are linked where some two of their ends
    are alike. So ``N`` ends alike cost ``O(N log N)``, not the ``N**2`` of asking every
    two (the ends of 10,000 near copies of a file in the first of them).
    """
    size = gap + 1
    for _, ends in groupby(range(len(order)), key=lambda n: order[n][0]):  # a file at a time
        cells: dict[tuple[int, int], list[int]] = {}
        for n in ends:
            cells.setdefault((order[n][1] // size, order[n][2] // size), []).append(n)
        for members in cells.values():
            for m, n in pairwise(members):
                links.link(m, n)
        for (x, y), members in cells.items():
            for dx, dy in ((0, 1), (1, -1), (1, 0), (1, 1)):  # two cells side by side once
                other = cells.get((x + dx, y + dy))
                if other is not None and _alike(order, members, other, gap):
                    links.link(members[0], other[0])


def _alike(order: list[tuple[str, int, int]], one: list[int], two: list[int], gap: int) -> bool:
    """Whether an end of ``one`` and an end of ``two`` (numbers of ``order``, each in
    order) are alike: a sweep by first, each side's ends within ``gap`` before it kept
    by stop, the other side's asked for a stop within ``gap``."""
    merged = sorted([(order[n][1], order[n][2], 0) for n in one]
                    + [(order[n][1], order[n][2], 1) for n in two])  # fmt: skip
    stops: tuple[list[int], list[int]] = ([], [])
    arrived: tuple[deque[tuple[int, int]], deque[tuple[int, int]]] = (deque(), deque())
    for first, stop, side in merged:
        for kept, queue in zip(stops, arrived):
            while queue and queue[0][0] < first - gap:  # too far before, in first
                del kept[bisect_left(kept, queue.popleft()[1])]
        other = stops[1 - side]
        at = bisect_left(other, stop - gap)
        if at < len(other) and other[at] <= stop + gap:
            return True
        insort(stops[side], stop)
        arrived[side].append((first, stop))
    return False


def region_classes(
    regions: Sequence[Region], gap: int = FragmentOptions.gap
) -> tuple[list[FragmentClass], list[int | None]]:
    """Return :func:`fragment_classes` and, for each region (in the order given), the
    number of its class (from 1; ``None`` for a region within one occurrence: a text
    repeated within one file, its copies nearer than ``gap`` tokens).

    :param regions: the regions.
    :param gap: the most tokens the firsts (and the stops) of two ends of one occurrence
        are apart (the regions' ``gap``).

    Runtime complexity: ``O(r log r)`` for ``r`` regions, however many of their ends are
    alike (ends are filed in a grid of ``gap + 1`` tokens, and only cells side by side
    are compared, by a sweep).
    """
    occurrences, links = _occurrences(regions, gap)
    key = {n: (o.path, o.first, o.stop, o.start, o.end) for n, o in enumerate(occurrences)}
    groups = [sorted(group, key=key.__getitem__) for group in linked_groups(links)]
    groups = [group for group in groups if len(group) > 1]
    groups.sort(key=lambda group: (-len(group), key[group[0]]))
    number = {place: n for n, group in enumerate(groups, 1) for place in group}
    counts = [0] * len(groups)
    of_region: list[int | None] = []
    for a_place, b_place in links:
        found = number.get(a_place) if a_place != b_place else None
        of_region.append(found)
        if found is not None:
            counts[found - 1] += 1
    classes = [
        FragmentClass(tuple(occurrences[n] for n in group), count)
        for group, count in zip(groups, counts)
    ]
    return classes, of_region


def fragment_classes(
    regions: Iterable[Region], gap: int = FragmentOptions.gap
) -> list[FragmentClass]:
    """Group the places ``regions`` link into clone classes (see the module's
    description): the most occurrences first, then by first occurrence.

    Runtime complexity: that of :func:`region_classes`.
    """
    return region_classes(list(regions), gap)[0]
