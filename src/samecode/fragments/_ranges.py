"""Private: ranges of tokens, ``(first, stop)``, made disjoint.

>>> disjoint([(5, 9), (0, 2), (2, 3), (7, 12), (4, 4)])
[(0, 3), (5, 12)]
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["disjoint"]


def disjoint(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The tokens of ``ranges`` (``(first, stop)``, the stop exclusive, in any order) as
    disjoint, non-empty ranges in increasing order: those that overlap or touch made one.

    Runtime complexity: ``O(r log r)`` for ``r`` ranges.
    """
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if low >= high:
            continue
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged
