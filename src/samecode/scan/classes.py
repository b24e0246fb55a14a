"""Clone classes: documents linked by chains of pairs, each with its representative and
the range of its pairs' similarities.

>>> from samecode.scan.model import Pair
>>> pairs = [Pair("a", "b", 9, 10, 10), Pair("b", "c", 8, 10, 10)]
>>> [c.members for c in clone_classes([], pairs)]
[('a', 'b', 'c')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from samecode._groups import linked_groups
from samecode.scan.model import CloneClass, Document, Pair

__all__ = ["clone_classes"]


def clone_classes(documents: Sequence[Document], pairs: Iterable[Pair]) -> list[CloneClass]:
    """Group files linked by chains of pairs; largest classes first, then by first member.

    Runtime complexity: ``O(n + p)`` (union-find), plus sorting.
    """
    sizes = {d.path: len(d.shingles) for d in documents}
    linked: list[Pair] = list(pairs)
    groups = linked_groups((pair.a, pair.b) for pair in linked)
    group_of = {path: number for number, group in enumerate(groups) for path in group}
    ranges = [[1.0, 0.0] for _ in groups]
    for pair in linked:
        low_high = ranges[group_of[pair.a]]
        low_high[0] = min(low_high[0], pair.jaccard)
        low_high[1] = max(low_high[1], pair.jaccard)
    classes = []
    for group, (low, high) in zip(groups, ranges):
        group.sort()
        representative = min(group, key=lambda p: (-sizes.get(p, 0), p))
        classes.append(CloneClass(tuple(group), representative, low, high))
    classes.sort(key=lambda c: (-len(c.members), c.members[0]))
    return classes
