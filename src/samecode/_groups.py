"""Private: items linked by chains of pairs, as groups (union-find)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TypeVar

__all__ = ["linked_groups"]

_K = TypeVar("_K", bound=Hashable)


def linked_groups(pairs: Iterable[tuple[_K, _K]], items: Iterable[_K] = ()) -> list[list[_K]]:
    """The groups of ``items`` and of the pairs' members that chains of pairs link, each
    in the order its members were first seen (``items`` first); groups in the order of
    their first member.

    Runtime complexity: ``O(n + p)`` for ``n`` items and ``p`` pairs (union by first
    seen, with path halving).

    >>> linked_groups([("b", "c"), ("d", "e"), ("c", "a")], items=["a"])
    [['a', 'b', 'c'], ['d', 'e']]
    """
    order: dict[_K, int] = {}
    parent: dict[_K, _K] = {}
    for item in items:
        order.setdefault(item, len(order))
        parent.setdefault(item, item)

    def root(item: _K) -> _K:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for a, b in pairs:
        for item in (a, b):
            if item not in parent:
                order[item] = len(order)
                parent[item] = item
        ra, rb = root(a), root(b)
        if ra != rb:
            if order[rb] < order[ra]:
                ra, rb = rb, ra
            parent[rb] = ra
    groups: dict[_K, list[_K]] = {}
    for item in order:  # first seen first
        groups.setdefault(root(item), []).append(item)
    return list(groups.values())
