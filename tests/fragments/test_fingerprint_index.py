"""FingerprintIndex against brute force: boilerplate, occurrences, candidate pairs."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernelpaths import BOTH, kernels
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.index import FingerprintIndex

# a tiny alphabet (hashes in many files), and the top of the range (unsigned 64 bits)
HASHES = st.integers(0, 12) | st.integers(2**64 - 3, 2**64 - 1)
files = st.lists(st.lists(HASHES, max_size=15), max_size=8)


@BOTH
@given(files, st.integers(0, 5), st.sets(HASHES))
def test_the_index_answers_as_brute_force_does(pure, selected, limit, probe):
    index = FingerprintIndex()
    for number, hashes in enumerate(selected):
        index.add(number, hashes)
    with kernels(pure):
        index.boilerplate(limit)  # sorted, each way
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


@given(files, files)
def test_files_added_after_a_question_are_in_the_next_answer(first, then):
    index, once = FingerprintIndex(), FingerprintIndex()
    for number, hashes in enumerate(first):
        index.add(number, hashes)
        once.add(number, hashes)
    index.candidate_pairs()  # sorts what it holds so far
    for number, hashes in enumerate(then, start=len(first)):
        index.add(number, hashes)
        once.add(number, hashes)
    assert index.candidate_pairs() == once.candidate_pairs()
    assert index.boilerplate(1) == once.boilerplate(1)
    every = {value for hashes in first + then for value in hashes}
    assert index.occurrences(every) == sum(map(len, first + then))


@pytest.mark.parametrize(
    ("file", "error", "message"),
    [(-1, SamecodeValueError, "got -1"), (2**32, SamecodeValueError, "2\\*\\*32 - 1"),
     ("0", SamecodeTypeError, "file")],
)  # fmt: skip
def test_a_bad_file_number_is_refused_with_the_rule(file, error, message):
    with pytest.raises(error, match=message):
        FingerprintIndex().add(file, [1, 2])


def test_a_file_numbered_2_to_the_32_minus_1_keeps_its_number():
    index = FingerprintIndex()
    index.add(2**32 - 1, [2**64 - 1, 2**64 - 1])
    index.add(0, [2**64 - 1])
    assert index.candidate_pairs() == [(0, 2**32 - 1), (2**32 - 1, 2**32 - 1)]
    assert index.occurrences([2**64 - 1]) == 3
