"""The join's helpers, against brute force."""

from __future__ import annotations

from array import array

from hypothesis import given
from hypothesis import strategies as st

from samecode.scan.join import distinct_sets

# Small values: many sets of one size and one sum that differ ({1, 4} and {2, 3}), and
# the same set in several orders.
orders = st.lists(
    st.sets(st.integers(0, 6), max_size=4).flatmap(
        lambda s: st.permutations(sorted(s)).map(lambda p: array("Q", p))
    ),
    max_size=30,
)


@given(orders)
def test_distinct_sets_groups_exactly_the_equal_sets(sets):
    representatives, groups = distinct_sets(sets)
    expected: dict[frozenset[int], list[int]] = {}
    for position, values in enumerate(sets):
        expected.setdefault(frozenset(values), []).append(position)
    assert groups == sorted(expected.values())
    assert representatives == [group[0] for group in groups]
