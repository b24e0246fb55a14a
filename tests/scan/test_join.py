"""The join's helpers, against brute force."""

from __future__ import annotations

import pickle
import random
from array import array

import pytest
from bitarray.util import sc_encode, zeros
from hypothesis import given
from hypothesis import strategies as st

from kernelpaths import BOTH, kernels
from samecode.scan.join import ShingleCounts, by_larger_set, distinct_sets

# Small values: many sets of one size and one sum that differ ({1, 4} and {2, 3}), and
# the same set in several orders.
orders = st.lists(
    st.sets(st.integers(0, 6), max_size=4).flatmap(
        lambda s: st.permutations(sorted(s)).map(lambda p: array("Q", p))
    ),
    max_size=30,
)


def _assert_grouped_exactly(sets):
    representatives, groups = distinct_sets(sets)
    expected: dict[frozenset[int], list[int]] = {}
    for position, values in enumerate(sets):
        expected.setdefault(frozenset(values), []).append(position)
    assert groups == sorted(expected.values())
    assert representatives == [group[0] for group in groups]


@given(orders)
def test_distinct_sets_groups_exactly_the_equal_sets(sets):
    _assert_grouped_exactly(sets)


# Sets whose sums wrap past 2**64 and collide: {top, 3} and {top - 1, 4} beside {1, 2}
# (top = 2**64 - 1), each in several orders, on a common base: the sum is a grouping key
# only, kept modulo 2**64 both ways, and sets of one size and sum are still compared.
_TOP = 2**64 - 1
_PAIRS = [(_TOP, 3), (_TOP - 1, 4), (1, 2), (_TOP, 1)]
wrapping = st.lists(
    st.tuples(st.sampled_from(_PAIRS), st.randoms(use_true_random=False)),
    max_size=12,
)


@BOTH
@given(wrapping)
def test_distinct_sets_group_the_equal_sets_both_ways_when_sums_wrap(pure, drawn):
    base = [5 + 7 * n for n in range(20)]
    sets = []
    for pair, rng in drawn:
        values = base + list(pair)
        rng.shuffle(values)
        sets.append(array("Q", values))
    if not pure:
        pytest.importorskip("numpy")  # loaded: distinct_sets sums on it however few sets
    with kernels(pure):
        _assert_grouped_exactly(sets)


@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=8),
    st.data(),
    st.booleans(),
)
def test_pairs_by_larger_set_hold_each_larger_sets_pairs_together(sizes, data, mapping):
    sets = [array("Q", range(size)) for size in sizes]
    docs = st.integers(0, len(sizes) - 1)
    pairs = data.draw(st.lists(st.tuples(docs, docs).filter(lambda p: p[0] != p[1])))
    ordered = by_larger_set(dict(enumerate(sets)) if mapping else sets, pairs)
    assert sorted(ordered) == sorted(pairs)  # each pair as given, none lost or added
    # the larger of two: by size, then by id
    larger = [max(pair, key=lambda doc: (sizes[doc], doc)) for pair in ordered]
    assert larger == sorted(larger)  # each larger set's pairs together, in order
    smaller = [sum(pair) - big for pair, big in zip(ordered, larger)]
    assert list(zip(larger, smaller)) == sorted(zip(larger, smaller))


# Shingle hashes that fall in few buckets of 16 bits (the top bits), so that sets share
# buckets and every level is reached.
hashes = st.lists(
    st.sets(st.integers(0, 40).map(lambda top: (top << 48) | 12345), max_size=25).map(
        lambda s: array("Q", sorted(s))
    ),
    max_size=12,
)


@given(hashes)
def test_shingle_counts_count_the_sets_of_each_bucket_capped_at_four(sets):
    counts = ShingleCounts(16)
    for values in sets:
        counts.add(values)
    for top in range(41):
        shingle = (top << 48) | 12345
        assert counts.count(shingle) == min(4, sum(shingle in set(v) for v in sets))


@given(hashes, hashes)
def test_merged_counts_are_the_counts_of_both_parts(first, second):
    a, b, whole = ShingleCounts(16), ShingleCounts(16), ShingleCounts(16)
    for values in first:
        a.add(values)
        whole.add(values)
    for values in second:
        b.add(values)
        whole.add(values)
    assert a.merge(b) == whole


@given(hashes)
def test_pickled_counts_are_equal_and_compressed(sets):
    counts = ShingleCounts(24)
    for values in sets:
        counts.add(values)
    data = pickle.dumps(counts)
    assert pickle.loads(data) == counts
    # Four levels of 2**24 bits are 8 MiB raw; at most 41 buckets in use take a few bytes
    # each, compressed.
    assert len(data) < 2_000


@pytest.mark.parametrize(
    "state",
    [
        {"bits": "16", "levels": []},
        {"bits": 16, "levels": []},  # no levels
        {"bits": 16, "levels": [bytes(8)] * 4},  # levels that are not of 2**16 bits
        {"bits": 16},
    ],
)
def test_counts_refuse_a_state_that_is_not_theirs(state):
    counts = ShingleCounts.__new__(ShingleCounts)
    with pytest.raises(ValueError, match="not the pickled state of ShingleCounts"):
        counts.__setstate__(state)


def test_counts_refuse_the_state_of_an_older_samecode():
    # raw bitarrays, as pickled before the levels were compressed
    old = ShingleCounts(16).__dict__
    with pytest.raises(ValueError, match="not the pickled state"):
        ShingleCounts.__new__(ShingleCounts).__setstate__(dict(old))


@given(st.integers(min_value=0, max_value=3), st.integers(min_value=0))
def test_pickled_counts_send_dense_levels_raw_and_come_back_equal(levels, seed):
    # Sets that fill ``levels`` levels past one bucket in 32 (raw) and leave the others
    # sparse (compressed); both ways they come back as they were.
    rng = random.Random(seed)
    counts = ShingleCounts(16)
    dense = array("Q", (bucket << 48 | 7 for bucket in rng.sample(range(1 << 16), 4096)))
    for _ in range(levels):
        counts.add(dense)
    counts.add(array("Q", [rng.getrandbits(64) for _ in range(20)]))
    state = counts.__getstate__()
    assert state["raw"] == [level < levels for level in range(4)]
    assert pickle.loads(pickle.dumps(counts)) == counts


def _sc(bits: int, endian: str = "big") -> bytes:
    return sc_encode(zeros(1 << bits, endian=endian))


@pytest.mark.parametrize(
    "state",
    [
        [16, [bytes(8192)] * 4],  # not a dict
        {"bits": 16, "levels": [bytes(8191)] * 4, "raw": [True] * 4},  # a byte short
        {"bits": 15, "levels": [bytes(4096)] * 4, "raw": [True] * 4},  # too few bits
        {"bits": True, "levels": [bytes(8192)] * 4, "raw": [True] * 4},
        {"bits": 16, "levels": [bytes(8192)] * 4, "raw": [1, 1, 1, 1]},  # not bools
        {"bits": 16, "levels": [bytes(8192)] * 4, "raw": [True] * 3},
        {"bits": 16, "levels": [b""] * 4, "raw": [False] * 4},  # empty compressed
        {"bits": 16, "levels": [_sc(17)] * 4, "raw": [False] * 4},  # 2**17 bits stated
        {"bits": 16, "levels": [_sc(16, "little")] * 4, "raw": [False] * 4},
        # a head stating 2**39 bits: refused before anything is made of that size
        {"bits": 16, "levels": [bytes([0x15, 0, 0, 0, 0, 0x80, 0])] * 4, "raw": [False] * 4},
        {"bits": 16, "levels": [_sc(16)[:-1] + b"\xff\xff"] * 4, "raw": [False] * 4},
    ],
)
def test_counts_refuse_levels_that_are_not_theirs(state):
    with pytest.raises(ValueError, match="not the pickled state of ShingleCounts"):
        ShingleCounts.__new__(ShingleCounts).__setstate__(state)


@pytest.mark.parametrize("dense", [False, True])
def test_a_little_endian_level_travels_as_its_bits(dense):
    # A level set by hand in the other bit order comes back with the same bits
    # (big-endian), raw or compressed.
    counts = ShingleCounts(16)
    level = zeros(1 << 16, endian="little")
    level[5000] = level[40_000] = 1
    if dense:
        level[:4096] = 1
    counts.levels[0] = level
    back = pickle.loads(pickle.dumps(counts))
    assert back.__getstate__()["raw"][0] is dense
    assert back.levels[0].endian == "big"
    assert back.levels[0].tolist() == level.tolist()
