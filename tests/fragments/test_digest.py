"""Digests of token runs: masked tokens count as 0, whatever their ids and ranges."""

from __future__ import annotations

import hashlib
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.errors import SamecodeValueError
from samecode.fragments.digest import token_digest


def by_hand(ids, first, stop, masked):
    blank = {place for low, high in masked for place in range(low, high)}
    values = [0 if place in blank else ids[place] for place in range(first, stop)]
    return hashlib.sha256(b"".join(v.to_bytes(8, "little") for v in values)).hexdigest()[:32]


@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=5),
    st.data(),
)
def test_masked_tokens_count_as_zero_in_any_order_and_overlap(ids, spans, data):
    first = data.draw(st.integers(0, len(ids) - 1))
    stop = data.draw(st.integers(first + 1, len(ids)))
    masked = [(min(a, b), max(a, b)) for a, b in spans]  # overlapping, unsorted, partial
    assert token_digest(array("Q", ids), first, stop, masked) == by_hand(ids, first, stop, masked)


def test_a_bad_range_of_tokens_is_refused():
    with pytest.raises(SamecodeValueError, match="within 0 to 2"):
        token_digest(array("Q", [1, 2]), 1, 3)


class CountingIds(dict):
    """Token ids by path, noting the paths asked for, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: list[str] = []

    def __getitem__(self, path):
        self.asked.append(path)
        return super().__getitem__(path)


def test_class_digests_ask_for_a_files_places_together_in_order_of_path():
    from samecode.fragments.classes import FragmentClass, Occurrence
    from samecode.fragments.digest import class_digests

    ids = CountingIds(
        {path: array("Q", range(n, n + 30)) for n, path in enumerate(["a", "b", "c"])}
    )
    classes = [
        FragmentClass((Occurrence("b", 1, 1, 0, 5), Occurrence("c", 1, 1, 4, 9)), 1),
        FragmentClass((Occurrence("a", 1, 1, 6, 11), Occurrence("c", 2, 2, 10, 15)), 1),
        FragmentClass((Occurrence("a", 3, 3, 20, 25), Occurrence("b", 3, 3, 9, 14)), 1),
    ]
    found = class_digests(classes, ids)
    assert ids.asked == ["a", "a", "b", "b", "c", "c"]
    expected = [
        tuple(token_digest(dict(ids)[o.path], o.first, o.stop) for o in clone.occurrences)
        for clone in classes
    ]
    assert found == expected
    assert found[0][1] == found[1][0]  # c[4:9] and a[6:11]: the same ids, 6 to 10


def test_class_digests_with_refuses_digests_not_one_a_place():
    from samecode.fragments.classes import FragmentClass, Occurrence
    from samecode.fragments.digest import class_digests_with

    clone = FragmentClass((Occurrence("b", 1, 1, 0, 5), Occurrence("a", 1, 1, 4, 9)), 1)
    asked = []
    found = class_digests_with([clone], lambda places: asked.extend(places) or ["x", "y"])
    assert asked == [("a", 4, 9), ("b", 0, 5)]
    assert found == [("y", "x")]
    with pytest.raises(ValueError, match="one digest for each of the 2 places; it gave 1"):
        class_digests_with([clone], lambda places: ["x"])


@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=12),
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=8),
    st.lists(st.tuples(st.integers(0, 11), st.integers(1, 12)), min_size=1, max_size=6),
)
def test_region_and_class_digests_mask_what_each_place_overlaps(ids, spans, places):
    from samecode.fragments.classes import FragmentClass, Occurrence
    from samecode.fragments.digest import class_digests, region_digests
    from samecode.fragments.regions import Region

    masked = [(min(a, b), max(a, b)) for a, b in spans]  # overlapping, unsorted, empty
    runs = [(min(a, b), max(a, b)) for a, b in places if min(a, b) < min(max(a, b), len(ids))]
    runs = [(low, min(high, len(ids))) for low, high in runs]
    if not runs:
        return
    expected = [by_hand(ids, low, high, masked) for low, high in runs]
    regions = [
        Region("f", "g", 1, 1, 1, 1, high - low, 0.5, 0.5, low, high, low, high, ())
        for low, high in runs
    ]
    found = region_digests(regions, {"f": array("Q", ids), "g": array("Q", ids)}, {"f": masked})
    assert [a for a, _ in found] == expected
    assert [b for _, b in found] == [by_hand(ids, low, high, ()) for low, high in runs]
    clone = FragmentClass(tuple(Occurrence("f", 1, 1, low, high) for low, high in runs), 1)
    assert list(class_digests([clone], {"f": array("Q", ids)}, {"f": masked})[0]) == expected
