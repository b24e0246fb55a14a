"""Clone classes: files linked by pairs, each class with its representative, the range of
its pairs' similarities and how strongly it holds together.

Two ways to make them (``chaining``):

* ``"linked"`` (the default): every file reached by a chain of pairs is in one class (the
  connected components), however far the chain wanders: a file edited a little at a time
  links its first and last versions, which may share little.
* ``"star"``: every member of a class makes a pair with its representative (reaches the
  threshold with it). Taken largest file first: the largest file not yet in a class takes
  every file not yet in a class that it pairs with; a file left with no partner is in no
  class. The pairs between two classes are not in either (a report counts them).

Either way a class says the lowest Jaccard on the strongest paths through it
(``link_jaccard``: the largest value such that its pairs at or above it still link every
member), which shows how far a class chains:

>>> from samecode.scan.model import Pair
>>> pairs = [Pair("a", "b", 9, 10, 10), Pair("b", "c", 8, 10, 10)]
>>> [(c.members, round(c.link_jaccard, 3)) for c in clone_classes([], pairs)]
[(('a', 'b', 'c'), 0.667)]
>>> [c.members for c in clone_classes([], pairs, "star")]
[('a', 'b')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter

from samecode._groups import Links, linked_groups
from samecode.errors import SamecodeValueError
from samecode.scan.model import CloneClass, Document, Pair

__all__ = ["CHAINING", "clone_classes"]

#: The ways to make classes (see the module's description).
CHAINING = ("linked", "star")


def clone_classes(
    documents: Sequence[Document], pairs: Iterable[Pair], chaining: str = "linked"
) -> list[CloneClass]:
    """Group files linked by pairs; largest classes first, then by first member.

    :param documents: the files (their sizes; a file in a pair and not here has the size
        the pair gives).
    :param pairs: the pairs found.
    :param chaining: ``"linked"`` or ``"star"`` (see the module's description).
    :raises ValueError: for another ``chaining``.

    Runtime complexity: ``O(n + p log p)`` for ``n`` files in ``p`` pairs (union-find,
    the pairs of each class sorted by similarity).
    """
    if chaining not in CHAINING:
        raise SamecodeValueError(f"chaining must be one of {', '.join(CHAINING)}; got {chaining!r}")
    linked: list[Pair] = list(pairs)
    sizes: dict[str, int] = {}
    for pair in linked:
        sizes[pair.a], sizes[pair.b] = pair.a_shingles, pair.b_shingles
    sizes.update((d.path, len(d.shingles)) for d in documents)
    groups = linked_groups((pair.a, pair.b) for pair in linked)
    group_of = {path: number for number, group in enumerate(groups) for path in group}
    pairs_of: list[list[Pair]] = [[] for _ in groups]
    for pair in linked:
        pairs_of[group_of[pair.a]].append(pair)
    classes: list[CloneClass] = []
    for group, inside in zip(groups, pairs_of):
        if chaining == "linked":
            classes.append(_clone_class(group, inside, sizes))
        else:
            classes += _stars(group, inside, sizes)
    classes.sort(key=lambda c: (-len(c.members), c.members[0]))
    return classes


def _first(paths: Iterable[str], sizes: dict[str, int]) -> str:
    """The representative: the file with the most shingles, then the first path."""
    return min(paths, key=lambda p: (-sizes.get(p, 0), p))


def _clone_class(
    members: Iterable[str], inside: Sequence[Pair], sizes: dict[str, int]
) -> CloneClass:
    """The class of ``members`` linked by the pairs ``inside``."""
    ordered = tuple(sorted(members))
    low, high = 1.0, 0.0
    for pair in inside:
        value = pair.jaccard
        low, high = min(low, value), max(high, value)
    link = low
    if low < high:  # the weakest link of the strongest paths: strongest pairs first
        links: Links[str] = Links(ordered)
        joined = 1
        for pair in sorted(inside, key=attrgetter("jaccard"), reverse=True):
            if links.link(pair.a, pair.b):
                joined, link = joined + 1, pair.jaccard
                if joined == len(ordered):
                    break
    return CloneClass(ordered, _first(ordered, sizes), low, high, link)


def _stars(
    members: Sequence[str], inside: Sequence[Pair], sizes: dict[str, int]
) -> list[CloneClass]:
    """The classes of one linked group where every member pairs with its representative."""
    partners: dict[str, set[str]] = {path: set() for path in members}
    for pair in inside:
        partners[pair.a].add(pair.b)
        partners[pair.b].add(pair.a)
    taken: dict[str, int] = {}
    stars: list[list[str]] = []
    for path in sorted(members, key=lambda p: (-sizes.get(p, 0), p)):
        if path in taken:
            continue
        star = [path, *sorted(p for p in partners[path] if p not in taken)]
        for member in star:
            taken[member] = len(stars)
        stars.append(star)
    within: list[list[Pair]] = [[] for _ in stars]
    for pair in inside:
        if taken[pair.a] == taken[pair.b]:
            within[taken[pair.a]].append(pair)
    return [_clone_class(star, pairs, sizes) for star, pairs in zip(stars, within) if len(star) > 1]
