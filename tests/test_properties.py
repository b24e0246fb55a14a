"""Hypothesis properties: the fast code agrees with naive definitions on any input."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from samecode import chunking
from samecode._columns import column_ones
from samecode.chunking import ngrams, select_ngrams
from samecode.halohash import SIZES_IN_BITS, BitAverageHaloHash

from reference import naive_halo_digest, naive_ngrams, naive_select_ngrams

sizes = st.sampled_from(SIZES_IN_BITS)
features = st.lists(st.binary(max_size=8), max_size=40)


@given(features, sizes)
def test_digest_equals_naive_per_bit_digest(fs: list[bytes], size: int) -> None:
    assert BitAverageHaloHash(fs, size_in_bits=size).digest() == naive_halo_digest(fs, size)


@given(features, features, sizes)
def test_distance_is_symmetric_and_bounded(f1: list[bytes], f2: list[bytes], size: int) -> None:
    a, b = BitAverageHaloHash(f1, size_in_bits=size), BitAverageHaloHash(f2, size_in_bits=size)
    d = a.distance(b)
    assert d == b.distance(a)
    assert 0 <= d <= size
    assert (d == 0) == (a.digest() == b.digest())


@given(features, sizes)
def test_distance_to_equal_input_is_zero(fs: list[bytes], size: int) -> None:
    assert (
        BitAverageHaloHash(fs, size_in_bits=size).distance(
            BitAverageHaloHash(list(fs), size_in_bits=size)
        )
        == 0
    )


@given(features, sizes, st.randoms(use_true_random=False))
def test_feature_order_does_not_change_the_digest(fs: list[bytes], size: int, rnd: Any) -> None:
    shuffled = list(fs)
    rnd.shuffle(shuffled)
    assert BitAverageHaloHash(fs, size_in_bits=size) == BitAverageHaloHash(
        shuffled, size_in_bits=size
    )


@given(st.lists(features, min_size=1, max_size=5), sizes)
def test_combine_of_parts_equals_hash_of_all(parts: list[list[bytes]], size: int) -> None:
    hashes = [BitAverageHaloHash(p, size_in_bits=size) for p in parts]
    everything = [f for p in parts for f in p]
    combined = BitAverageHaloHash.combine(hashes)
    assert combined == BitAverageHaloHash(everything, size_in_bits=size)
    assert combined.elements_count == sum(1 for f in everything if f)


@given(features, sizes)
def test_rebuilt_hashes_round_trip(fs: list[bytes], size: int) -> None:
    h = BitAverageHaloHash(fs, size_in_bits=size)
    assert BitAverageHaloHash.from_digest(h.digest()) == h
    assert BitAverageHaloHash.from_int(h.intdigest(), size) == h
    assert BitAverageHaloHash.from_b64digest(h.b64digest()) == h


@given(st.integers(1, 70), st.sampled_from([1, 2, 4, 16, 20, 32, 64]), st.data())
def test_column_ones_counts_each_column(records: int, stride: int, data: st.DataObject) -> None:
    blob = data.draw(st.binary(min_size=records * stride, max_size=records * stride))
    nbits = data.draw(st.integers(1, stride * 8))
    expected = [0] * nbits
    for r in range(records):
        for c in range(nbits):
            byte = blob[r * stride + c // 8]
            expected[c] += (byte >> (7 - c % 8)) & 1
    assert column_ones(blob, stride, nbits) == expected


tokens = st.one_of(
    st.text(max_size=4),
    st.integers(-3, 3),
    st.binary(max_size=2),
    st.floats(allow_nan=False, min_value=-2, max_value=2),
    st.booleans(),
)


@given(st.lists(tokens, max_size=30), st.integers(1, 6))
def test_ngrams_equal_naive_windows(items: list[Any], n: int) -> None:
    assert list(ngrams(items, n)) == naive_ngrams(items, n)
    assert list(ngrams(iter(items), n)) == naive_ngrams(items, n)


@given(
    st.lists(
        st.lists(
            st.sampled_from(["a", "b", "c", 1, 2, 1.0, True, b"a"]), min_size=1, max_size=5
        ).map(tuple),
        max_size=40,
    ),
    st.booleans(),
    st.integers(1, 7),
)
def test_select_ngrams_equals_naive_selection(
    grams: list[tuple[Any, ...]], with_pos: bool, batch: int
) -> None:
    original = chunking._BATCH
    chunking._BATCH = batch
    try:
        assert list(select_ngrams(grams, with_pos=with_pos)) == naive_select_ngrams(grams, with_pos)
    finally:
        chunking._BATCH = original


@given(
    st.lists(st.text(alphabet="abcdef", min_size=1, max_size=2), min_size=0, max_size=60),
    st.integers(2, 5),
)
def test_select_ngrams_is_a_subsequence_keeping_first_and_last(words: list[str], n: int) -> None:
    grams = list(ngrams(words, n))
    chosen = list(select_ngrams(grams, with_pos=True))
    positions = [p for p, _ in chosen]
    assert positions == sorted(set(positions))
    if grams:
        assert positions[0] == 0
        assert chosen[-1][1] == grams[-1]
