"""Private: items linked by chains of pairs, as groups (union-find)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

__all__ = ["Links", "linked_groups"]

_K = TypeVar("_K", bound=Hashable)


class Links(Generic[_K]):
    """Items linked by chains of pairs, built one link at a time (union by first seen,
    with path halving: each operation is nearly ``O(1)``).

    >>> links = Links(["a"])
    >>> links.link("b", "c"), links.link("c", "b"), links.linked("a", "b")
    (True, False, False)
    >>> links.link("c", "a"), links.groups()
    (True, [['a', 'b', 'c']])
    """

    __slots__ = ("_order", "_parent")

    def __init__(self, items: Iterable[_K] = ()) -> None:
        self._order: dict[_K, int] = {}
        self._parent: dict[_K, _K] = {}
        for item in items:
            if item not in self._parent:
                self._order[item] = len(self._order)
                self._parent[item] = item

    def _root(self, item: _K) -> _K:
        parent = self._parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def linked(self, a: _K, b: _K) -> bool:
        """Whether a chain of links joins ``a`` and ``b`` (an item never seen is alone)."""
        if a not in self._parent or b not in self._parent:
            return a == b
        return self._root(a) == self._root(b)

    def link(self, a: _K, b: _K) -> bool:
        """Link ``a`` and ``b``; whether they were apart."""
        parent, order = self._parent, self._order
        for item in (a, b):
            if item not in parent:
                order[item] = len(order)
                parent[item] = item
        while parent[a] != a:  # the roots, written out: this runs once a pair
            parent[a] = a = parent[parent[a]]
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        if a == b:
            return False
        if order[b] < order[a]:
            a, b = b, a
        parent[b] = a
        return True

    def groups(self) -> list[list[_K]]:
        """The groups, each in the order its members were first seen; groups in the order
        of their first member."""
        groups: dict[_K, list[_K]] = {}
        for item in self._order:  # first seen first
            groups.setdefault(self._root(item), []).append(item)
        return list(groups.values())


def linked_groups(pairs: Iterable[tuple[_K, _K]], items: Iterable[_K] = ()) -> list[list[_K]]:
    """The groups of ``items`` and of the pairs' members that chains of pairs link, each
    in the order its members were first seen (``items`` first); groups in the order of
    their first member.

    Runtime complexity: ``O(n + p)`` for ``n`` items and ``p`` pairs (union by first
    seen, with path halving).

    >>> linked_groups([("b", "c"), ("d", "e"), ("c", "a")], items=["a"])
    [['a', 'b', 'c'], ['d', 'e']]
    """
    links = Links(items)
    for a, b in pairs:
        links.link(a, b)
    return links.groups()
