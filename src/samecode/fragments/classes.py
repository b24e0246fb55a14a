"""Clone classes of regions: the same text in N places is one class of N occurrences.

Regions link places two at a time. In each file, the places that regions mark and that
overlap are one *occurrence* (their union); occurrences linked by chains of regions are
one :class:`FragmentClass`. Text copied into N places gives N occurrences in one class,
however many of its ``N * (N - 1) / 2`` pairs were found as regions.

The order is fixed by the input alone: occurrences by path, then first token; classes by
decreasing number of occurrences, then their first occurrence. Regions given in any
order give the same classes.

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

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from samecode._groups import linked_groups
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


def _places(regions: Sequence[Region]) -> dict[str, list[list[int]]]:
    """Per file, the unions of overlapping token ranges that regions mark there, sorted:
    ``[first, stop, start_line, end_line]`` each."""
    ranges: dict[str, list[tuple[int, int, int, int]]] = {}
    for region in regions:
        ranges.setdefault(region.a, []).append(
            (region.a_first, region.a_stop, region.a_start, region.a_end)
        )
        ranges.setdefault(region.b, []).append(
            (region.b_first, region.b_stop, region.b_start, region.b_end)
        )
    places: dict[str, list[list[int]]] = {}
    for path, found in ranges.items():
        found.sort()
        merged: list[list[int]] = []
        for first, stop, start, end in found:
            if merged and first < merged[-1][1]:
                last = merged[-1]
                last[1], last[3] = max(last[1], stop), max(last[3], end)
            else:
                merged.append([first, stop, start, end])
        places[path] = merged
    return places


def region_classes(regions: Sequence[Region]) -> tuple[list[FragmentClass], list[int | None]]:
    """Return :func:`fragment_classes` and, for each region (in the order given), the
    number of its class (from 1; ``None`` for a region within one occurrence: a text
    repeated within one file where overlapping regions made one place of its copies).

    Runtime complexity: ``O(r log r)`` for ``r`` regions.
    """
    places = _places(regions)
    firsts = {path: [place[0] for place in found] for path, found in places.items()}

    def place_of(path: str, first: int) -> tuple[str, int]:
        return path, bisect_right(firsts[path], first) - 1

    links = [(place_of(r.a, r.a_first), place_of(r.b, r.b_first)) for r in regions]
    groups = [sorted(group) for group in linked_groups(links) if len(group) > 1]
    groups.sort(key=lambda group: (-len(group), group[0]))
    number = {place: n for n, group in enumerate(groups, 1) for place in group}
    counts = [0] * len(groups)
    of_region: list[int | None] = []
    for a_place, _ in links:
        found = number.get(a_place)
        of_region.append(found)
        if found is not None:
            counts[found - 1] += 1
    classes = []
    for group, count in zip(groups, counts):
        occurrences = []
        for path, index in group:
            first, stop, start, end = places[path][index]
            occurrences.append(Occurrence(path, start, end, first, stop))
        classes.append(FragmentClass(tuple(occurrences), count))
    return classes, of_region


def fragment_classes(regions: Iterable[Region]) -> list[FragmentClass]:
    """Group the places ``regions`` link into clone classes (see the module's
    description): the most occurrences first, then by first occurrence.

    Runtime complexity: ``O(r log r)`` for ``r`` regions (union-find, then sorting).
    """
    return region_classes(list(regions))[0]
