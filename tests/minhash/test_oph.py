"""The one-permutation scheme: its definition (against a naive reference), its error
bound on random sets, merging, and its byte form."""

from __future__ import annotations

import math
import pickle
import random
import struct
import zlib
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.minhash import MinHash
from samecode.minhash.oph import OnePermutationMinHash

from reference import naive_one_permutation

HASHES = st.lists(st.integers(0, 2**64 - 1), max_size=120)


@given(
    st.lists(st.binary(max_size=12), max_size=80), st.integers(1, 300), st.integers(0, 2**64 - 1)
)
def test_bytes_follow_the_definition(features: list[bytes], num_perm: int, seed: int) -> None:
    sketch = OnePermutationMinHash(num_perm, seed)
    sketch.update_batch(features)
    _bins, signature = naive_one_permutation(list(map(zlib.crc32, features)), num_perm, seed, False)
    assert sketch.hashvalues.tolist() == signature
    assert sketch.is_empty() == (not features)
    assert sketch.count() == OnePermutationMinHash.from_bytes(sketch.to_bytes()).count()


@given(HASHES, HASHES, st.sampled_from([1, 2, 7, 64, 128, 1000]), st.integers(0, 2**64 - 1))
def test_hashes_in_batches_follow_the_definition(
    first: list[int], second: list[int], num_perm: int, seed: int
) -> None:
    # Batches of all sizes: one by one below 24 features, in lanes above.
    sketch = OnePermutationMinHash(num_perm, seed)
    sketch.update_hashes(first)
    sketch.update_hashes(array("Q", second))
    _, signature = naive_one_permutation(first + second, num_perm, seed, True)
    assert sketch.hashvalues.tolist() == signature


@given(HASHES, HASHES, st.sampled_from([1, 7, 64]), st.integers(0, 2**64 - 1))
def test_read_values_follow_later_changes(
    first: list[int], second: list[int], num_perm: int, seed: int
) -> None:
    # hashvalues is worked out once until the bins change: reading, then adding or
    # merging, then reading again gives the new values, and a read is a copy.
    sketch = OnePermutationMinHash(num_perm, seed)
    sketch.update_hashes(first)
    read = sketch.hashvalues
    read[0] = 12345
    alone = naive_one_permutation(first, num_perm, seed, True)[1]
    assert sketch.hashvalues.tolist() == alone
    other = OnePermutationMinHash(num_perm, seed)
    other.update_hashes(second)
    merged = sketch.copy()
    assert merged.hashvalues.tolist() == alone
    merged.merge(other)
    sketch.update_hashes(second)
    union = naive_one_permutation(first + second, num_perm, seed, True)[1]
    assert sketch.hashvalues.tolist() == merged.hashvalues.tolist() == union


def test_the_largest_sparse_sketch_reads_in_linear_time() -> None:
    sketch = OnePermutationMinHash(65536, 9)
    sketch.update_hashes([1, 2, 3])
    assert sketch.hashvalues.tolist() == naive_one_permutation([1, 2, 3], 65536, 9, True)[1]


def test_a_batch_larger_than_a_chunk() -> None:
    rng = random.Random(5)
    hashes = [rng.getrandbits(64) for _ in range(10_000)]
    sketch = OnePermutationMinHash(256, 3)
    sketch.update_hashes(hashes)
    assert sketch.hashvalues.tolist() == naive_one_permutation(hashes, 256, 3, True)[1]


def oph(values: set[int] | list[int], num_perm: int = 128, seed: int = 1) -> OnePermutationMinHash:
    sketch = OnePermutationMinHash(num_perm, seed)
    sketch.update_hashes(values)
    return sketch


def within_bound(a: set[int], b: set[int], num_perm: int, seed: int) -> bool:
    """The documented bound: 4 standard errors of a MinHash of num_perm values, + 2/k."""
    true = len(a & b) / len(a | b)
    estimate = oph(a, num_perm, seed).jaccard(oph(b, num_perm, seed))
    return abs(estimate - true) <= 4 * math.sqrt(true * (1 - true) / num_perm) + 2 / num_perm


def test_estimates_are_within_the_stated_bound_on_random_sets() -> None:
    rng = random.Random(2026)
    misses = trials = 0
    for trial in range(400):
        num_perm = rng.choice([16, 64, 128, 256])
        size = rng.randint(20, 2000)
        universe = rng.sample(range(1 << 40), 2 * size)
        a = set(universe[:size])
        kept = rng.randint(0, size)
        b = set(universe[:kept]) | set(universe[size : size + rng.randint(1, size)])
        misses += not within_bound(a, b, num_perm, trial)
        trials += 1
    assert misses <= trials // 100  # at least 99 % within


@given(
    st.sets(st.integers(0, 2**64 - 1), min_size=20, max_size=300),
    st.sets(st.integers(0, 2**64 - 1), max_size=300),
    st.floats(0, 1),
    st.integers(0, 2**64 - 1),
)
def test_estimates_are_near_the_truth(a: set[int], extra: set[int], keep: float, seed: int) -> None:
    # Any one estimate may be unlucky; six standard errors is one miss in ~500 million.
    b = set(sorted(a)[: int(len(a) * keep)]) | extra
    true = len(a & b) / len(a | b)
    estimate = oph(a, 128, seed).jaccard(oph(b, 128, seed))
    assert abs(estimate - true) <= 6 * math.sqrt(true * (1 - true) / 128) + 2 / 128


@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=200),
    st.lists(st.integers(0, 2**64 - 1), max_size=200),
)
def test_merge_is_the_union_and_order_does_not_matter(a: list[int], b: list[int]) -> None:
    merged = oph(a, 32)
    merged.merge(oph(b, 32))
    assert merged == oph(b + a, 32) == oph(sorted(set(a + b)), 32)
    if a:
        assert oph(a, 32).jaccard(oph(list(reversed(a)), 32)) == 1.0


@given(
    st.lists(st.binary(max_size=12), max_size=100), st.integers(1, 300), st.integers(0, 2**64 - 1)
)
def test_bytes_round_trip(features: list[bytes], num_perm: int, seed: int) -> None:
    sketch = OnePermutationMinHash(num_perm, seed)
    sketch.update_batch(features)
    data = sketch.to_bytes()
    assert data[:5] == b"SCOPH"
    assert data[5] == 1
    assert len(data) == 18 + 4 * num_perm
    assert struct.unpack_from("<IQ", data, 6) == (num_perm, seed)
    again = OnePermutationMinHash.from_bytes(data)
    assert again == sketch
    assert again.hashvalues == sketch.hashvalues
    assert pickle.loads(pickle.dumps(sketch)) == sketch


def test_densification_fills_every_bin_from_filled_ones() -> None:
    sketch = oph({1, 2, 3}, 64)
    values = sketch.hashvalues.tolist()
    stored = array("I", sketch.to_bytes()[18:]).tolist()
    filled = {v for v in stored if v != 2**32 - 1}
    assert len(filled) <= 3
    assert set(values) == filled
    assert oph(set(), 64).is_empty()
    assert oph(set(), 64).hashvalues.tolist() == [2**30] * 64
    assert not sketch.is_empty()


def test_count_estimates_distinct_features() -> None:
    for size in (10, 100, 1000):
        estimate = oph(set(range(size)), 4096).count()
        assert abs(estimate - size) <= 0.2 * size


def test_refusals() -> None:
    sketch = oph({1}, 16)
    with pytest.raises(ValueError, match="different seeds or sizes"):
        sketch.jaccard(oph({1}, 16, seed=2))
    with pytest.raises(ValueError, match="different seeds or sizes"):
        sketch.merge(oph({1}, 32))
    with pytest.raises(TypeError, match="cannot compare a OnePermutationMinHash"):
        sketch.jaccard(MinHash(num_perm=16))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_perm must be from 1 to 65536"):
        OnePermutationMinHash(0)
    with pytest.raises(ValueError, match="a hash must be an int from 0 to 2\\*\\*64 - 1"):
        sketch.update_hashes([-1])
    with pytest.raises(TypeError, match="a hash"):
        sketch.update_hashes([1.0])  # type: ignore[list-item]
    with pytest.raises(
        TypeError, match=r"a feature must be bytes, bytearray or memoryview \(encode text first"
    ):
        sketch.update_batch(["text"])  # type: ignore[list-item]
    data = sketch.to_bytes()
    for bad, rule in [
        (b"SC", "too short"),
        (b"XXXXX" + data[5:], "magic"),
        (data[:5] + b"\x02" + data[6:], "version 2"),
        (data[:-1], "holds"),
        (data[:18] + struct.pack("<I", 2**30 - 1) + data[22:], "a value of another bin"),
    ]:
        with pytest.raises(ValueError, match=rule):
            OnePermutationMinHash.from_bytes(bad)
    with pytest.raises(TypeError, match="expected bytes"):
        OnePermutationMinHash.from_bytes("SCOPH")  # type: ignore[arg-type]
    before = sketch.to_bytes()
    with pytest.raises(TypeError):
        sketch.update_batch([b"fine", 3])  # type: ignore[list-item]
    assert sketch.to_bytes() == before  # nothing half-added


def test_structured_64_bit_hashes_do_not_collide() -> None:
    # Folding by XOR of the halves sent 19 and 2**64 - 20 to the same 32 bits, so these
    # disjoint sets shared 10 of 128 bins (Hypothesis found it); multiply-shift does not.
    small = OnePermutationMinHash(128, 0)
    small.update_hashes(range(20))
    large = OnePermutationMinHash(128, 0)
    large.update_hashes([2**64 - 20])
    assert small.jaccard(large) == 0.0
    complements = OnePermutationMinHash(128, 0)
    complements.update_hashes([2**64 - 1 - v for v in range(20)])
    assert small.jaccard(complements) <= 2 / 128


@pytest.mark.parametrize("kind", ["one-permutation", "affine32", "legacy"])
def test_streams_are_taken_a_batch_at_a_time_and_all_or_nothing(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of 7 features: a generator of 50 gives the sketch of the list of 50, and a
    # bad feature in the sixth batch leaves the sketch as it was before the call.
    import samecode.minhash
    import samecode.minhash.oph

    monkeypatch.setattr(samecode.minhash.minhash, "_BATCH", 7)
    monkeypatch.setattr(samecode.minhash.oph, "_BATCH", 7)

    def sketch() -> MinHash | OnePermutationMinHash:
        if kind == "one-permutation":
            return OnePermutationMinHash(32, seed=4)
        return MinHash(num_perm=32, seed=4, scheme=kind)

    features = [f"feature {i}".encode() for i in range(50)]
    whole, streamed = sketch(), sketch()
    whole.update_batch(features)
    streamed.update_batch(iter(features))
    assert streamed.hashvalues.tolist() == whole.hashvalues.tolist()
    before = sketch()
    before.update_batch(features[:3])
    kept = before.hashvalues.tolist()
    with pytest.raises(TypeError, match="a feature must be bytes"):
        before.update_batch(iter([*features, "text"]))  # type: ignore[list-item]
    assert before.hashvalues.tolist() == kept
    hashes = [zlib.crc32(f) for f in features]
    with pytest.raises(ValueError, match="a hash must be an int"):
        before.update_hashes(iter([*hashes, -1]))
    assert before.hashvalues.tolist() == kept
    whole_hashes, streamed_hashes = sketch(), sketch()
    whole_hashes.update_hashes(hashes)
    streamed_hashes.update_hashes(iter(hashes))
    assert streamed_hashes.hashvalues.tolist() == whole_hashes.hashvalues.tolist()
    if kind == "one-permutation":
        packed = sketch()
        packed.update_hashes(array("Q", hashes))
        assert packed.hashvalues.tolist() == whole_hashes.hashvalues.tolist()
