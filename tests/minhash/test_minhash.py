"""MinHash: datasketch's values (against a naive reference built on numpy's generator),
its byte layout, and the one-permutation scheme's error bound."""

from __future__ import annotations

import hashlib
import pickle
import random
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.minhash import (
    SCHEMES,
    LeanMinHash,
    MinHash,
    sha1_hash32,
    sha1_hash64,
)
from samecode.minhash._randomstate import legacy_generator, randint
from samecode.minhash.oph import OnePermutationMinHash

from reference import naive_minhash

numpy = pytest.importorskip("numpy")

FEATURES = st.lists(st.binary(max_size=10), max_size=40)
SEEDS = st.one_of(st.sampled_from([0, 1, 2**32 - 1]), st.integers(0, 2**32 - 1))
SPANS = [(0, 1), (0, 2), (5, 1000), (0, 2**31), (0, 2**32), (1, 2**61 - 1), (0, 2**61 - 1)]
WIDE_SPANS = [(0, 2**33), (0, 2**63), (0, 2**64), (7, 2**64)]


def signature(
    features: list[bytes], scheme: str = "affine32", num_perm: int = 16, seed: int = 1
) -> MinHash:
    m = MinHash(num_perm=num_perm, seed=seed, scheme=scheme)
    m.update_batch(features)
    return m


# -- numpy's generator, without numpy -------------------------------------------------------


@given(SEEDS, st.lists(st.sampled_from(SPANS + WIDE_SPANS), min_size=1, max_size=30))
def test_randint_draws_what_numpy_draws(seed: int, spans: list[tuple[int, int]]) -> None:
    ours, theirs = legacy_generator(seed), numpy.random.RandomState(seed)
    for low, high in spans:
        dtype = numpy.uint32 if high <= 2**32 and (low, high) in SPANS[:5] else numpy.uint64
        assert randint(ours, low, high) == int(theirs.randint(low, high, dtype=dtype))


@given(SEEDS, st.integers(1, 50))
def test_randint_arrays_draw_what_numpy_draws(seed: int, size: int) -> None:
    ours, theirs = legacy_generator(seed), numpy.random.RandomState(seed)
    drawn = theirs.randint(0, 2**31, size, dtype=numpy.uint32).tolist()
    assert [randint(ours, 0, 2**31) for _ in range(size)] == drawn


def test_legacy_generator_refuses_seeds_numpy_refuses() -> None:
    for seed in (-1, 2**32):
        with pytest.raises(ValueError, match="seed must be from 0 to 2\\*\\*32 - 1"):
            legacy_generator(seed)


# -- datasketch's signatures ----------------------------------------------------------------


@given(FEATURES, st.sampled_from(SCHEMES), st.integers(1, 24), SEEDS)
def test_signature_matches_the_reference(
    features: list[bytes], scheme: str, num_perm: int, seed: int
) -> None:
    m = signature(features, scheme, num_perm, seed)
    assert m.hashvalues.tolist() == naive_minhash(features, num_perm, seed, scheme)
    one_by_one = MinHash(num_perm=num_perm, seed=seed, scheme=scheme)
    for feature in features:
        one_by_one.update(feature)
    assert one_by_one == m
    assert m.is_empty() == (not features)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("num_perm", "count"), [(200, 300), (1024, 40), (1025, 40)])
def test_large_signatures_match_the_reference(scheme: str, num_perm: int, count: int) -> None:
    # 1,024 permutations and fewer take affine32's tables; more, its products.
    rng = random.Random(scheme)
    features = [rng.randbytes(rng.randint(0, 20)) for _ in range(count)]
    m = signature(features, scheme, num_perm, 7)
    assert m.hashvalues.tolist() == naive_minhash(features, num_perm, 7, scheme)
    other = signature(features[: count // 2], scheme, num_perm, 7)
    other.merge(m)
    assert other == m


def test_default_scheme_is_affine32_and_default_hash_is_sha1() -> None:
    assert MinHash().scheme == "affine32"
    assert sha1_hash32(b"abc") == struct.unpack("<I", hashlib.sha1(b"abc").digest()[:4])[0]
    assert sha1_hash64(b"abc") == struct.unpack("<Q", hashlib.sha1(b"abc").digest()[:8])[0]
    own = MinHash(num_perm=8, hashfunc=sha1_hash32)
    own.update_batch([b"x", b"y"])
    assert own == signature([b"x", b"y"], num_perm=8)


@given(FEATURES, st.sampled_from(SCHEMES))
def test_count_is_numpys_arithmetic(features: list[bytes], scheme: str) -> None:
    m = signature(features, scheme, 40)
    largest = float(2**64 - 1 if scheme == "affine64" else 2**32 - 1)
    values = numpy.array(m.hashvalues.tolist(), dtype=numpy.uint64)
    assert m.count() == float(40) / numpy.sum(values / largest) - 1.0


@given(FEATURES, FEATURES, st.sampled_from(SCHEMES))
def test_jaccard_merge_union(first: list[bytes], second: list[bytes], scheme: str) -> None:
    a, b = signature(first, scheme), signature(second, scheme)
    equal = sum(x == y for x, y in zip(a.hashvalues, b.hashvalues))
    assert a.jaccard(b) == equal / 16
    merged = a.copy()
    merged.merge(b)
    assert merged == signature(first + second, scheme) == MinHash.union(a, b)
    assert a == signature(first, scheme)  # the copy was independent


@given(FEATURES, st.sampled_from(SCHEMES))
def test_update_hashes_skips_the_hash_function(features: list[bytes], scheme: str) -> None:
    hashed = MinHash(num_perm=16, scheme=scheme)
    hash_of = sha1_hash64 if scheme == "affine64" else sha1_hash32
    hashed.update_hashes(hash_of(f) for f in features)
    assert hashed == signature(features, scheme)


def test_signatures_of_another_kind_are_refused() -> None:
    a = signature([b"x"])
    for other, rule in [
        (signature([b"x"], "legacy"), "permutation schemes"),
        (signature([b"x"], seed=2), "seeds"),
        (signature([b"x"], num_perm=17), "numbers of permutation functions"),
    ]:
        with pytest.raises(ValueError, match=rule):
            a.jaccard(other)
        with pytest.raises(ValueError, match=rule):
            a.merge(other)
    with pytest.raises(TypeError, match="cannot compare a MinHash"):
        a.jaccard(OnePermutationMinHash(16))  # type: ignore[arg-type]
    assert a != OnePermutationMinHash(16)
    with pytest.raises(ValueError, match="union needs at least 2"):
        MinHash.union(a)


@pytest.mark.parametrize(
    ("kwargs", "error", "rule"),
    [
        ({"num_perm": 0}, ValueError, "num_perm must be from 1"),
        ({"num_perm": 2.0}, TypeError, "num_perm"),
        ({"seed": -1}, ValueError, "seed must be from 0"),
        ({"seed": True}, TypeError, "seed"),
        ({"scheme": "affine16"}, ValueError, "scheme must be one of"),
        ({"hashvalues": [1, 2]}, ValueError, "scheme must be given"),
        ({"hashvalues": [], "scheme": "affine32"}, ValueError, "must not be empty"),
        ({"hashvalues": [2**32], "scheme": "affine32"}, ValueError, "out of range"),
        ({"hashfunc": 3}, TypeError, "hashfunc must be callable"),
        ({"permutations": ([2], [1]), "scheme": "affine32", "num_perm": 1}, ValueError, "odd"),
        ({"permutations": ([1], [1]), "scheme": "affine32", "num_perm": 2}, ValueError, "mismatch"),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, object], error: type, rule: str) -> None:
    with pytest.raises(error, match=rule):
        MinHash(**kwargs)  # type: ignore[arg-type]


def test_bad_features_are_refused() -> None:
    m = MinHash(num_perm=4)
    with pytest.raises(
        TypeError, match=r"a feature must be bytes, bytearray or memoryview \(encode text first"
    ):
        m.update_batch([b"ok", "text"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="iterable of features"):
        m.update_batch(b"abc")
    with pytest.raises(ValueError, match="hashfunc must give ints"):
        MinHash(num_perm=4, hashfunc=lambda b: -1).update(b"x")
    with pytest.raises(ValueError, match="a hash must be an int"):
        m.update_hashes([2**32])
    assert m.is_empty()  # nothing half-applied


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pickling_and_hashvalues_round_trip(scheme: str) -> None:
    m = signature([b"a", b"b", b"c"], scheme, 32, 99)
    assert pickle.loads(pickle.dumps(m)) == m
    again = MinHash(seed=99, hashvalues=m.hashvalues, scheme=scheme)
    assert again == m
    again.update(b"d")
    assert again == signature([b"a", b"b", b"c", b"d"], scheme, 32, 99)


# -- LeanMinHash: datasketch's byte layout --------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("order", ["@", "<", ">", "!", "="])
def test_lean_byte_layout(scheme: str, order: str) -> None:
    m = signature([b"p", b"q"], scheme, 5, 12)
    lean = LeanMinHash(m)
    buffer = bytearray(lean.bytesize(order))
    lean.serialize(buffer, order)
    values = m.hashvalues.tolist()
    if scheme == "legacy":  # seed, count, 32-bit values
        expected = struct.pack(f"{order}qi5I", 12, 5, *values)
    else:  # seed, minus the count, scheme code, values of the scheme's width
        code, width = (1, "I") if scheme == "affine32" else (2, "Q")
        expected = struct.pack(f"{order}qiB5{width}", 12, -5, code, *values)
    assert bytes(buffer) == expected
    back = LeanMinHash.deserialize(buffer, order)
    assert back == lean
    assert back.scheme == scheme
    assert back.seed == 12
    with pytest.raises(TypeError, match="Cannot update a LeanMinHash"):
        back.update(b"x")


def test_lean_refuses_bad_bytes() -> None:
    with pytest.raises(ValueError, match="not a LeanMinHash byte form"):
        LeanMinHash.deserialize(b"\x00\x01")
    bad_code = struct.pack("@qiB1I", 1, -1, 9, 5)
    with pytest.raises(ValueError, match="unknown scheme code 9"):
        LeanMinHash.deserialize(bad_code)
    lean = LeanMinHash(MinHash(num_perm=4))
    with pytest.raises(ValueError, match="enough space"):
        lean.serialize(bytearray(3))
    with pytest.raises(ValueError, match="byteorder"):
        lean.bytesize("x")
    with pytest.raises(ValueError, match="give a minhash"):
        LeanMinHash()
