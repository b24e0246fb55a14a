"""Unit tests of samecode.halohash: every public name, its happy path and its errors."""

from __future__ import annotations

import base64
import copy
import hashlib
import pickle
import tracemalloc

import pytest
from bitarray import bitarray

import samecode
from samecode import halohash
from samecode.halohash import (
    SIZES_IN_BITS,
    BitAverageHaloHash,
    SliceLengthError,
    bit_to_num,
    bitarray_from_bytes,
    byte_hamming_distance,
    common_chunks,
    common_chunks_from_hexdigest,
    decode_vector,
    hamming_distance,
    slices,
)

from reference import naive_halo_digest

WORDS = b"the quick brown fox jumps over the lazy dog and runs away".split()


# -- construction and sizes --------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES_IN_BITS)
def test_digest_matches_naive_per_bit_implementation(size: int) -> None:
    h = BitAverageHaloHash(WORDS, size_in_bits=size)
    assert h.digest() == naive_halo_digest(WORDS, size)
    assert len(h.digest()) == h.digest_size == size // 8
    assert h.size_in_bits == size


def test_default_size_is_128() -> None:
    assert BitAverageHaloHash().size_in_bits == 128


def test_empty_hash_is_all_zeros() -> None:
    for size in SIZES_IN_BITS:
        assert BitAverageHaloHash(size_in_bits=size).digest() == bytes(size // 8)


def test_a_single_feature_gives_the_complement_of_its_hash() -> None:
    # One feature: a column is positive exactly where the feature's bit is 0.
    h = BitAverageHaloHash([b"alpha"], size_in_bits=128)
    md5 = hashlib.md5(b"alpha").digest()
    assert h.digest() == bytes(~b & 0xFF for b in md5)


def test_ties_give_zero() -> None:
    # Two features with complementary bits in a column tie there: the bit is 0.
    a, b = b"x", b"y"
    da, db = hashlib.md5(a).digest(), hashlib.md5(b).digest()
    h = BitAverageHaloHash([a, b], size_in_bits=128)
    digest = int.from_bytes(h.digest(), "big")
    xa, xb = int.from_bytes(da, "big"), int.from_bytes(db, "big")
    both_zero = ~xa & ~xb & ((1 << 128) - 1)
    assert digest == both_zero


@pytest.mark.parametrize("size", [0, 8, 100, 127, 129, 1024, -128])
def test_unsupported_size_is_a_value_error_naming_the_sizes(size: int) -> None:
    with pytest.raises(
        ValueError, match=r"one of 32, 64, 128, 160, 256, 384, 512; got " + str(size)
    ):
        BitAverageHaloHash(size_in_bits=size)


@pytest.mark.parametrize("size", ["128", 128.0, None, True])
def test_size_of_wrong_type_is_a_type_error(size: object) -> None:
    with pytest.raises(TypeError, match="size_in_bits must be an int"):
        BitAverageHaloHash(size_in_bits=size)  # type: ignore[arg-type]


# -- update ------------------------------------------------------------------------------


def test_update_accepts_every_kind_of_feature_collection() -> None:
    expected = BitAverageHaloHash(WORDS).digest()
    assert BitAverageHaloHash(tuple(WORDS)).digest() == expected
    assert BitAverageHaloHash(iter(WORDS)).digest() == expected
    assert BitAverageHaloHash(w for w in WORDS).digest() == expected
    assert BitAverageHaloHash([bytearray(w) for w in WORDS]).digest() == expected
    assert BitAverageHaloHash([memoryview(w) for w in WORDS]).digest() == expected
    one_by_one = BitAverageHaloHash()
    for w in WORDS:
        one_by_one.update(w)
    assert one_by_one.digest() == expected


@pytest.mark.parametrize("nothing", [None, b"", bytearray(), memoryview(b""), [], (), 0, ""])
def test_falsy_update_changes_nothing(nothing: object) -> None:
    h = BitAverageHaloHash(WORDS)
    before = h.digest()
    h.update(nothing)
    assert h.digest() == before
    assert h.elements_count == len(WORDS)


def test_empty_features_in_a_collection_are_skipped() -> None:
    # SameCode 0.5.1 crashed here.
    h = BitAverageHaloHash([b"", b"a", bytearray(), b"b", memoryview(b"")])
    assert h == BitAverageHaloHash([b"a", b"b"])
    assert h.elements_count == 2


@pytest.mark.parametrize("bad", ["text", 3.5, 42, object()])
def test_update_rejects_a_non_bytes_feature(bad: object) -> None:
    h = BitAverageHaloHash()
    with pytest.raises(TypeError, match="a feature must be bytes, bytearray or memoryview"):
        h.update(bad)


@pytest.mark.parametrize("bad", ["text", None, 7, ["nested"], 2.5])
def test_update_rejects_a_non_bytes_feature_in_a_list(bad: object) -> None:
    h = BitAverageHaloHash([b"kept"])
    before = h.copy()
    with pytest.raises(TypeError, match=r"a feature must be bytes.*got " + type(bad).__name__):
        h.update([b"one", b"two", bad, b"three"])
    assert h == before
    assert h.elements_count == 1


def test_str_error_suggests_encoding() -> None:
    with pytest.raises(TypeError, match=r"encode text first"):
        BitAverageHaloHash(["abc"])


def test_failed_update_is_all_or_nothing_across_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(halohash, "PENDING_LIMIT", 64)  # a batch of 4 MD5 digests
    h = BitAverageHaloHash([b"start"])
    before = (h.digest(), h.columns, h.elements_count)
    features = [b"f%d" % i for i in range(50)] + ["bad"]
    with pytest.raises(TypeError):
        h.update(features)
    assert (h.digest(), h.columns, h.elements_count) == before


def test_small_batches_give_the_same_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    features = [b"feature %d" % i for i in range(1000)]
    expected = {
        size: BitAverageHaloHash(features, size_in_bits=size).digest() for size in SIZES_IN_BITS
    }
    monkeypatch.setattr(halohash, "PENDING_LIMIT", 200)
    for size in SIZES_IN_BITS:
        assert BitAverageHaloHash(features, size_in_bits=size).digest() == expected[size]
        h = BitAverageHaloHash(size_in_bits=size)
        for f in features:
            h.update(f)
        assert h.digest() == expected[size]


def test_streaming_memory_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # 300,000 MD5 digests would need 4.8 MB; with a 64 KiB buffer the hash may use a few
    # times the buffer while it counts, and no more however many features it sees.
    monkeypatch.setattr(halohash, "PENDING_LIMIT", 1 << 16)
    h = BitAverageHaloHash(size_in_bits=128)
    feature = b"x"
    tracemalloc.start()
    try:
        for i in range(300_000):
            h.update(feature if i % 2 else b"y")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert h.elements_count == 300_000
    assert peak < 6 * (1 << 16) + 100_000


def test_columns_and_elements_count_follow_samecode() -> None:
    h = BitAverageHaloHash([b"a", b"b", b"c"], size_in_bits=32)
    columns = h.columns
    assert columns is not None
    assert len(columns) == 32
    assert all(c in (-3, -1, 1, 3) for c in columns)
    assert h.elements_count == 3


# -- reading and comparing ---------------------------------------------------------------


def test_hexdigest_b64digest_intdigest_hash_agree() -> None:
    h = BitAverageHaloHash(WORDS, size_in_bits=160)
    raw = h.digest()
    assert h.hexdigest() == raw.hex().encode()
    assert isinstance(h.hexdigest(), bytes)
    assert h.b64digest() == base64.urlsafe_b64encode(raw)
    assert h.intdigest() == int.from_bytes(raw, "big")
    assert h.hash().tobytes() == raw
    assert h.hash().endian == "big"


def test_distance_and_similarity() -> None:
    a = BitAverageHaloHash(WORDS)
    b = BitAverageHaloHash(WORDS[:-1])
    d = bin(a.intdigest() ^ b.intdigest()).count("1")
    assert a.distance(b) == b.distance(a) == d
    assert a.distance(b.hash()) == d
    assert a.similarity(b) == 1 - d / 128
    assert a.distance(a.copy()) == 0


def test_distance_rejects_other_sizes_and_types() -> None:
    a = BitAverageHaloHash(WORDS, size_in_bits=64)
    with pytest.raises(ValueError, match="different sizes: 64 and 128 bits"):
        a.distance(BitAverageHaloHash(WORDS))
    with pytest.raises(ValueError, match="same length; got 64 and 8"):
        a.distance(bitarray("10101010"))
    with pytest.raises(TypeError, match="bitarray or a hash"):
        a.distance("0" * 64)  # type: ignore[arg-type]


def test_equality_is_by_type_size_and_digest() -> None:
    a = BitAverageHaloHash(WORDS, size_in_bits=64)
    assert a == BitAverageHaloHash(list(reversed(WORDS)), size_in_bits=64)
    assert a != BitAverageHaloHash(WORDS, size_in_bits=128)
    assert a != BitAverageHaloHash(WORDS[:3], size_in_bits=64)
    assert a != a.digest()
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)


def test_repr_names_size_count_and_digest() -> None:
    h = BitAverageHaloHash([b"a", b"b"], size_in_bits=32)
    assert (
        repr(h)
        == f"<BitAverageHaloHash size_in_bits=32 elements=2 hexdigest={h.hexdigest().decode()}>"
    )


# -- combine, copy, pickle, rebuild ------------------------------------------------------


@pytest.mark.parametrize("size", SIZES_IN_BITS)
def test_combine_equals_hash_of_all_features(size: int) -> None:
    parts = [WORDS[:3], WORDS[3:4], [], WORDS[4:]]
    hashes = [BitAverageHaloHash(p, size_in_bits=size) for p in parts]
    combined = BitAverageHaloHash.combine(hashes)
    whole = BitAverageHaloHash(WORDS, size_in_bits=size)
    assert combined == whole
    assert combined.size_in_bits == size
    assert combined.elements_count == len(WORDS)
    assert combined.columns == whole.columns
    # the parts are untouched and the result can go on
    assert hashes[0] == BitAverageHaloHash(WORDS[:3], size_in_bits=size)
    combined.update(b"more")
    whole.update(b"more")
    assert combined == whole


def test_combine_errors() -> None:
    with pytest.raises(ValueError, match="at least one hash"):
        BitAverageHaloHash.combine([])
    with pytest.raises(ValueError, match=r"same size; got sizes \[64, 128\]"):
        BitAverageHaloHash.combine([BitAverageHaloHash(size_in_bits=64), BitAverageHaloHash()])
    with pytest.raises(TypeError, match="every item must be a BitAverageHaloHash"):
        BitAverageHaloHash.combine([BitAverageHaloHash(), b"digest"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="iterable of hashes"):
        BitAverageHaloHash.combine(42)  # type: ignore[arg-type]
    rebuilt = BitAverageHaloHash.from_digest(BitAverageHaloHash(WORDS).digest())
    with pytest.raises(ValueError, match="rebuilt from a digest"):
        BitAverageHaloHash.combine([rebuilt])


def test_copy_is_independent() -> None:
    a = BitAverageHaloHash(WORDS[:5], size_in_bits=256)
    b = a.copy()
    assert b == a
    b.update(WORDS[5:])
    assert b == BitAverageHaloHash(WORDS, size_in_bits=256)
    assert a == BitAverageHaloHash(WORDS[:5], size_in_bits=256)
    assert copy.deepcopy(a) == a
    assert copy.copy(a) == a


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_keeps_full_state(protocol: int) -> None:
    a = BitAverageHaloHash(WORDS[:5], size_in_bits=160)
    a.update(b"pending")  # still in the buffer when pickled
    b = pickle.loads(pickle.dumps(a, protocol))
    assert b == a
    assert b.elements_count == a.elements_count == 6
    b.update(WORDS[5:])
    a.update(WORDS[5:])
    assert b == a


def test_pickle_of_rebuilt_hash() -> None:
    a = BitAverageHaloHash.from_hexdigest(BitAverageHaloHash(WORDS).hexdigest())
    b = pickle.loads(pickle.dumps(a))
    assert b == a
    assert b.elements_count is None


def test_setstate_rejects_unknown_state() -> None:
    h = BitAverageHaloHash()
    with pytest.raises(ValueError, match="unsupported saved state"):
        h.__setstate__({"version": 99})
    state = BitAverageHaloHash(size_in_bits=32).__getstate__()
    state["ones"] = [0] * 5
    with pytest.raises(ValueError, match="5 columns for 32 bits"):
        h.__setstate__(state)


@pytest.mark.parametrize("size", SIZES_IN_BITS)
def test_rebuild_from_every_form(size: int) -> None:
    h = BitAverageHaloHash(WORDS, size_in_bits=size)
    for rebuilt in (
        BitAverageHaloHash.from_digest(h.digest()),
        BitAverageHaloHash.from_digest(bytearray(h.digest())),
        BitAverageHaloHash.from_hexdigest(h.hexdigest()),
        BitAverageHaloHash.from_hexdigest(h.hexdigest().decode()),
        BitAverageHaloHash.from_b64digest(h.b64digest()),
        BitAverageHaloHash.from_b64digest(h.b64digest().decode()),
        BitAverageHaloHash.from_int(h.intdigest(), size),
    ):
        assert rebuilt == h
        assert rebuilt.size_in_bits == size
        assert rebuilt.distance(h) == 0
        assert rebuilt.elements_count is None
        assert rebuilt.columns is None


def test_rebuilt_hash_refuses_updates_but_ignores_nothing() -> None:
    rebuilt = BitAverageHaloHash.from_digest(bytes(16))
    rebuilt.update(None)
    with pytest.raises(ValueError, match="rebuilt from a digest"):
        rebuilt.update(b"x")
    with pytest.raises(ValueError, match="rebuilt from a digest"):
        rebuilt.update([b"x"])
    assert "elements=unknown" in repr(rebuilt)


def test_rebuild_errors() -> None:
    with pytest.raises(ValueError, match=r"4, 8, 16, 20, 32, 48, 64 bytes long; got 5 bytes"):
        BitAverageHaloHash.from_digest(b"12345")
    with pytest.raises(TypeError, match="digest must be bytes-like; got str"):
        BitAverageHaloHash.from_digest("abcd")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hex digits"):
        BitAverageHaloHash.from_hexdigest("zz" * 16)
    with pytest.raises(ValueError, match="valid base64"):
        BitAverageHaloHash.from_b64digest("!!!!")
    with pytest.raises(ValueError, match=r"0 \.\. 2\*\*32 - 1 for 32 bits; got 4294967296"):
        BitAverageHaloHash.from_int(1 << 32, 32)
    with pytest.raises(ValueError, match="got -1"):
        BitAverageHaloHash.from_int(-1, 32)
    with pytest.raises(TypeError, match="value must be an int; got float"):
        BitAverageHaloHash.from_int(1.0, 32)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="size_in_bits must be one of"):
        BitAverageHaloHash.from_int(1, 48)


# -- module functions --------------------------------------------------------------------


def test_bitarray_from_bytes() -> None:
    assert bitarray_from_bytes(b"\x80\x01").to01() == "1000000000000001"
    assert bitarray_from_bytes(bytearray(b"\xff")).to01() == "11111111"
    assert bitarray_from_bytes(b"") == bitarray()
    with pytest.raises(TypeError, match="b must be bytes-like; got str"):
        bitarray_from_bytes("ab")  # type: ignore[arg-type]


def test_byte_hamming_distance() -> None:
    assert byte_hamming_distance("00", "ff") == 8
    assert byte_hamming_distance(b"0f0f", "0f0e") == 1
    assert byte_hamming_distance("", "") == 0
    with pytest.raises(ValueError, match="same number of bytes; got 1 and 2"):
        byte_hamming_distance("00", "0000")
    with pytest.raises(ValueError, match="hex digits; got 'xy'"):
        byte_hamming_distance("xy", "00")
    with pytest.raises(ValueError, match="hex digits"):
        byte_hamming_distance("abc", "abc")
    with pytest.raises(TypeError, match="b2 must be hexadecimal str or bytes; got int"):
        byte_hamming_distance("00", 0)  # type: ignore[arg-type]


def test_hamming_distance_accepts_bitarrays_and_hashes() -> None:
    a, b = BitAverageHaloHash(WORDS), BitAverageHaloHash(WORDS[1:])
    assert hamming_distance(a, b) == a.distance(b)
    assert hamming_distance(a.hash(), b) == a.distance(b)
    little = bitarray("1100", endian="little")
    assert hamming_distance(bitarray("1010"), little) == 2
    with pytest.raises(ValueError, match="same length; got 2 and 3"):
        hamming_distance(bitarray("10"), bitarray("101"))
    with pytest.raises(TypeError, match="bv1 must be a bitarray or a hash"):
        hamming_distance("1010", bitarray("1010"))  # type: ignore[arg-type]


def test_slices() -> None:
    assert slices([1, 2, 3, 4, 5, 6], 2) == [(1, 2), (3, 4), (5, 6)]
    assert slices(b"abcd", 4) == [(97, 98, 99, 100)]
    assert slices([], 3) == []
    with pytest.raises(
        SliceLengthError, match=r"length of s \(6\) must be a multiple of size \(4\)"
    ):
        slices([1, 2, 3, 4, 5, 6], 4)
    # old code that caught AssertionError, and new code that catches ValueError, both work
    with pytest.raises(AssertionError):
        slices([1, 2, 3], 2)
    with pytest.raises(ValueError, match="multiple"):
        slices([1, 2, 3], 2)
    with pytest.raises(ValueError, match="size must be >= 1; got 0"):
        slices([1, 2], 0)
    with pytest.raises(TypeError, match="size must be an int; got float"):
        slices([1, 2], 1.0)  # type: ignore[arg-type]


def test_common_chunks_cuts_digests_by_bytes() -> None:
    a = BitAverageHaloHash.from_hexdigest("00112233445566778899aabbccddeeff")
    b = BitAverageHaloHash.from_hexdigest("00112233ffffffff8899aabbccddeeff")
    assert common_chunks(a, b) == 3
    assert common_chunks(a, b, 2) == 6
    assert common_chunks(a, b, 16) == 0
    assert common_chunks(a, a, 1) == 16
    with pytest.raises(SliceLengthError):
        common_chunks(a, b, 3)
    with pytest.raises(ValueError, match="different sizes: 128 and 64 bits"):
        common_chunks(a, BitAverageHaloHash(size_in_bits=64))

    class Digest:  # any object with a digest() is still compared by its bytes
        def digest(self) -> bytes:
            return bytes(8)

    with pytest.raises(ValueError, match="differ in length: 16 and 8 bytes"):
        common_chunks(a, Digest())
    with pytest.raises(TypeError, match="h2 must be a hash with a digest"):
        common_chunks(a, b"digest")  # type: ignore[arg-type]


def test_common_chunks_from_hexdigest_cuts_by_bits() -> None:
    a = "00112233445566778899aabbccddeeff"
    b = "00112233ffffffff8899aabbccddeeff"
    assert common_chunks_from_hexdigest(a, b, 32) == 3
    assert common_chunks_from_hexdigest(a, b, 4) == 24
    assert common_chunks_from_hexdigest(a.encode(), b.encode(), 128) == 0
    with pytest.raises(SliceLengthError, match=r"\(128\) must be a multiple of size \(3\)"):
        common_chunks_from_hexdigest(a, b, 3)
    with pytest.raises(ValueError, match="differ in length: 128 and 64 bits"):
        common_chunks_from_hexdigest(a, a[:16], 4)
    with pytest.raises(ValueError, match="size must be >= 1"):
        common_chunks_from_hexdigest(a, b, 0)


def test_bit_to_num() -> None:
    assert bit_to_num(bitarray("1")) == 1
    assert bit_to_num(bitarray("0001")) == 1
    assert bit_to_num(bitarray("1000", endian="little")) == 8
    assert bit_to_num(bitarray()) == 0
    h = BitAverageHaloHash(WORDS, size_in_bits=512)
    assert bit_to_num(h.hash()) == h.intdigest()
    with pytest.raises(TypeError, match="bits must be a bitarray; got str"):
        bit_to_num("101")  # type: ignore[arg-type]


def test_decode_vector() -> None:
    h = BitAverageHaloHash(WORDS, size_in_bits=256)
    assert decode_vector(h.b64digest()) == h.hash()
    assert decode_vector(base64.standard_b64encode(h.digest())) == h.hash()
    assert decode_vector(h.b64digest().decode()) == h.hash()
    with pytest.raises(ValueError, match="valid base64"):
        decode_vector(b"ab$d")  # 0.5.1 silently dropped the '$'
    with pytest.raises(ValueError, match="valid base64"):
        decode_vector(b"abc")
    with pytest.raises(ValueError, match="base64 text"):
        decode_vector("é===")
    with pytest.raises(TypeError, match="b64_str must be str or bytes; got int"):
        decode_vector(5)  # type: ignore[arg-type]


def test_package_reexports_every_public_name() -> None:
    for name in halohash.__all__:
        assert getattr(samecode, name) is getattr(halohash, name)
    assert samecode.__version__
