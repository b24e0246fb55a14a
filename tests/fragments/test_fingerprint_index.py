"""FingerprintIndex against brute force: boilerplate, occurrences, candidate pairs."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from samecode.fragments.index import FingerprintIndex

files = st.lists(st.lists(st.integers(0, 12), max_size=15), max_size=8)


@given(files, st.integers(0, 5), st.sets(st.integers(0, 14)))
def test_the_index_answers_as_brute_force_does(selected, limit, probe):
    index = FingerprintIndex()
    for number, hashes in enumerate(selected):
        index.add(number, hashes)
    holders = {
        value: {n for n, hashes in enumerate(selected) if value in hashes}
        for hashes in selected
        for value in hashes
    }
    boilerplate = frozenset(v for v, where in holders.items() if len(where) > limit)
    assert index.boilerplate(limit) == boilerplate
    assert index.occurrences(probe) == sum(h.count(v) for h in selected for v in probe)
    pairs = {
        pair
        for value, where in holders.items()
        if value not in boilerplate
        for pair in combinations(sorted(where), 2)
    }
    pairs |= {
        (n, n)
        for n, hashes in enumerate(selected)
        if any(hashes.count(v) > 1 and v not in boilerplate for v in hashes)
    }
    assert index.candidate_pairs(boilerplate) == sorted(pairs)
