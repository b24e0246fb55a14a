"""The boxes of chains' extents: which a box overlaps, as brute force says."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from samecode.fragments._boxes import Boxes

# spans of any length from 1 token to thousands, many alike (stacked, nested, touching)
SPANS = st.tuples(st.integers(0, 60), st.sampled_from([1, 2, 3, 7, 8, 9, 40, 1000]))
BOXES = st.builds(lambda a, b: (a[0], b[0], a[0] + a[1], b[0] + b[1]), SPANS, SPANS)


def _overlap(x: tuple[int, int, int, int], y: tuple[int, int, int, int]) -> bool:
    return x[0] < y[2] and y[0] < x[2] and x[1] < y[3] and y[1] < x[3]


@given(st.lists(st.tuples(st.booleans(), BOXES, BOXES), max_size=40))
def test_the_boxes_overlapped_are_those_brute_force_finds(steps):
    boxes, filed = Boxes(), {}
    for number, (drop, box, asked) in enumerate(steps):
        boxes.add(number, box)
        filed[number] = box
        if drop and len(filed) > 1:
            gone = min(filed)
            boxes.remove(gone)
            del filed[gone]
        for besides in (-1, number):
            truth = any(_overlap(asked, other) for n, other in filed.items() if n != besides)
            assert boxes.overlapping(asked, besides) == truth
