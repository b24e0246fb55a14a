"""Private: the extents of a pair's chains as boxes, asked which a box overlaps.

A chain of matches spans tokens ``a_first`` to ``a_stop`` of one text and ``b_first`` to
``b_stop`` of the other: a box. Regions keep, of the chains whose boxes overlap (in both
texts), only the largest, and grow a kept chain's ends only where its box then overlaps
no other; asking every box each time made a pair of ``r`` chains cost ``O(r**2)``.

:class:`Boxes` files the boxes by the length of their span in ``a`` (powers of two), and
in each class by ``a_first``: a box overlapping ``[a_first, a_stop)`` in ``a`` has its
``a_first`` within its class's length before ``a_stop``, so a question looks at that
stretch of each class, a bisection each, and at the boxes there alone.
"""

from __future__ import annotations

from bisect import bisect_left, insort

__all__ = ["Boxes"]

#: ``(a_first, b_first, a_stop, b_stop)``: tokens ``a_first`` to ``a_stop`` (exclusive)
#: of ``a`` and ``b_first`` to ``b_stop`` of ``b``.
Box = tuple[int, int, int, int]


class Boxes:
    """Numbered boxes, added and removed, and :meth:`overlapping` a box.

    Runtime complexity: :meth:`add` and :meth:`remove` ``O(log n)`` and a shift of a
    list in C; :meth:`overlapping` ``O(c log n)`` for ``c`` classes of lengths (at most
    one per bit of the longest span), plus a look at each box of a class whose
    ``a_first`` is within that class's length of the box asked about (those overlapping
    it in ``a``, or nearly).

    >>> boxes = Boxes()
    >>> boxes.add(0, (0, 0, 10, 10)); boxes.add(1, (20, 0, 30, 10))
    >>> boxes.overlapping((5, 5, 25, 8)), boxes.overlapping((5, 12, 25, 20))
    (True, False)
    >>> boxes.overlapping((5, 5, 15, 8), besides=0)
    False
    """

    def __init__(self) -> None:
        self._boxes: dict[int, Box] = {}
        self._classes: dict[int, list[tuple[int, int]]] = {}  # -> sorted (a_first, number)

    def add(self, number: int, box: Box) -> None:
        """File box ``number`` (not filed already)."""
        self._boxes[number] = box
        insort(self._classes.setdefault((box[2] - box[0]).bit_length(), []), (box[0], number))

    def remove(self, number: int) -> None:
        """Take box ``number`` out."""
        box = self._boxes.pop(number)
        filed = self._classes[(box[2] - box[0]).bit_length()]
        del filed[bisect_left(filed, (box[0], number))]

    def overlapping(self, box: Box, besides: int = -1) -> bool:
        """Whether ``box`` overlaps (in both texts) any box filed but ``besides``."""
        a_first, b_first, a_stop, b_stop = box
        boxes = self._boxes
        for bits, filed in self._classes.items():
            # a filed box spans fewer than 2**bits tokens of a: to overlap, it starts
            # after a_first - 2**bits
            for at in range(bisect_left(filed, (a_first - (1 << bits), -1)), len(filed)):
                first, number = filed[at]
                if first >= a_stop:
                    break
                other = boxes[number]
                if (
                    number != besides
                    and a_first < other[2]
                    and other[1] < b_stop
                    and b_first < other[3]
                ):
                    return True
        return False
