"""The bucketed halo hashes, the shared fingerprint protocol, and multi-resolution."""

from __future__ import annotations

import pickle
import random

import pytest
from bitarray import bitarray

from samecode import (
    BitAverageHaloHash,
    BucketAverageHaloHash,
    BucketedBitAverageHaloHash,
    Fingerprint,
    SimHash,
)

from reference import naive_bucket_average, naive_bucketed_bit_average

SHORT = ["The", "value", "specified", "for", "size", "must", "be", "at", "least", "as", "large"]
LONG = [f"feature-{i}" for i in range(300)]

# Pinned digests, produced by the one-bit-at-a-time implementations in reference.py.
BUCKET_AVERAGE_GOLDEN = {
    (32, "short"): "00010402",
    (64, "short"): "0000000100100004",
    (128, "short"): "00000000000000010000010000a00010",
    (32, "long"): "89f04ee7",
    (64, "long"): "c8831109016d78ad",
    (128, "long"): "72c8950e2b9920cb51817a805ee08e61",
    (256, "long"): "1684f841498900d50485c5001400a047020a80101b48100023fc5c20c0581c01",
    (512, "long"): (
        "0a24481066803022208940c10000d1110020c02250902081921000009800501582040044400041"
        "008169109007020001040de59032c80c01500023400552800b"
    ),
}
BUCKETED_GOLDEN = {
    (32, 4, "short"): "630d0074",
    (64, 8, "short"): "0063000d01204630",
    (128, 8, "short"): "000063c100000da30154204b46693060",
    (32, 4, "long"): "471630fb",
    (64, 8, "long"): "6f829764f8129eeb",
    (128, 8, "long"): "6f9e825097cc6444f89312fc9ebfebbf",
    (256, 16, "long"): "542e2b9887500a581edcd18c042cfe47bc0af0d3131c14f6cff7babaab2aeabd",
    (512, 2, "long"): (
        "fbd094ddfe21facf25ec7446bd18faf6879d035f2c9713cfe0d86748292369678ade706edf68e0e4"
        "06648add6e0625dd6bc60f8537eef4c24bbfac72cdcfd4e5"
    ),
}
INPUTS = {"short": SHORT, "long": LONG}


@pytest.mark.parametrize(("size", "which"), sorted(BUCKET_AVERAGE_GOLDEN))
def test_bucket_average_golden(size: int, which: str) -> None:
    features = INPUTS[which]
    expected = BUCKET_AVERAGE_GOLDEN[size, which]
    assert naive_bucket_average(features, size).hex() == expected
    assert BucketAverageHaloHash(features, size).hexdigest().decode() == expected
    as_bytes = [f.encode() for f in features]
    assert BucketAverageHaloHash(as_bytes, size).hexdigest().decode() == expected


@pytest.mark.parametrize(("size", "buckets", "which"), sorted(BUCKETED_GOLDEN))
def test_bucketed_bit_average_golden(size: int, buckets: int, which: str) -> None:
    features = INPUTS[which]
    expected = BUCKETED_GOLDEN[size, buckets, which]
    assert naive_bucketed_bit_average(features, size, buckets).hex() == expected
    got = BucketedBitAverageHaloHash(features, size, buckets=buckets)
    assert got.hexdigest().decode() == expected


@pytest.mark.parametrize("seed", range(40))
def test_bucketed_hashes_match_the_naive_definitions(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([32, 64, 128, 256, 512])
    buckets = rng.choice([b for b in (2, 4, 8, 16, 32, 64, 128, 256) if b <= size])
    features = [rng.randbytes(rng.randint(0, 5)) for _ in range(rng.choice([0, 1, 9, 400]))]
    assert BucketAverageHaloHash(features, size).digest() == naive_bucket_average(features, size)
    got = BucketedBitAverageHaloHash(features, size, buckets=buckets).digest()
    assert got == naive_bucketed_bit_average(features, size, buckets)


def test_big_inputs_cross_the_pending_buffer() -> None:
    features = [i.to_bytes(4, "big") for i in range(150_000)]  # > 1 MiB of MD5 digests
    whole = BucketedBitAverageHaloHash(features, 128, buckets=4)
    assert whole.digest() == naive_bucketed_bit_average(features, 128, 4)
    parts = BucketedBitAverageHaloHash(size_in_bits=128, buckets=4)
    for start in range(0, len(features), 40_000):
        parts.update(iter(features[start : start + 40_000]))
    assert parts == whole
    assert BucketAverageHaloHash(features, 64).digest() == naive_bucket_average(features, 64)


ALL_KINDS = [
    lambda f, size: BitAverageHaloHash([x.encode() for x in f], size),
    lambda f, size: BucketAverageHaloHash(f, size),
    lambda f, size: BucketedBitAverageHaloHash(f, size),
    lambda f, size: SimHash(f, size),
]


@pytest.mark.parametrize("make", ALL_KINDS)
def test_protocol_round_trips(make: object) -> None:
    build = make  # type: ignore[assignment]
    h = build(LONG, 64)  # type: ignore[operator]
    cls = type(h)
    params = h._params()
    assert isinstance(h, Fingerprint)
    assert len(h.digest()) == h.digest_size == 8
    assert h.hash() == bitarray(format(h.intdigest(), "064b"))
    assert cls.from_digest(h.digest(), **params) == h
    assert cls.from_hexdigest(h.hexdigest(), **params) == h
    assert cls.from_b64digest(h.b64digest(), **params) == h
    assert cls.from_int(h.intdigest(), 64, **params) == h
    assert pickle.loads(pickle.dumps(h)) == h
    copy = h.copy()
    copy.update(["one more"] if cls is not BitAverageHaloHash else [b"one more"])
    assert copy == build([*LONG, "one more"], 64)  # type: ignore[operator]
    assert h.elements_count == len(LONG)
    assert copy.elements_count == len(LONG) + 1
    assert h.distance(h) == 0
    assert h.similarity(h) == 1.0
    assert repr(h).startswith(f"<{cls.__name__} size_in_bits=64")


@pytest.mark.parametrize("make", ALL_KINDS)
def test_combine_is_the_hash_of_all_features(make: object) -> None:
    build = make  # type: ignore[assignment]
    left, right = build(LONG[:120], 128), build(LONG[120:], 128)  # type: ignore[operator]
    whole = build(LONG, 128)  # type: ignore[operator]
    merged = type(whole).combine([left, right])
    assert merged == whole
    assert merged.elements_count == len(LONG)


@pytest.mark.parametrize("make", ALL_KINDS)
def test_rebuilt_fingerprints_refuse_updates_and_combining(make: object) -> None:
    build = make  # type: ignore[assignment]
    h = build(LONG, 64)  # type: ignore[operator]
    frozen = type(h).from_digest(h.digest(), **h._params())
    assert frozen.elements_count is None
    frozen.update(None)
    with pytest.raises(ValueError, match="rebuilt from a digest"):
        frozen.update([b"x"] if isinstance(h, BitAverageHaloHash) else ["x"])
    with pytest.raises(ValueError, match="rebuilt from a digest"):
        type(h).combine([frozen, h])
    again = pickle.loads(pickle.dumps(frozen))
    assert again == h
    assert again.elements_count is None


def test_comparing_across_kinds_and_shapes_is_an_error() -> None:
    a = BucketAverageHaloHash(LONG, 64)
    with pytest.raises(TypeError, match="cannot compare a BucketAverageHaloHash with a SimHash"):
        a.distance(SimHash(LONG, 64))
    with pytest.raises(ValueError, match="different sizes: 64 and 128 bits"):
        a.distance(BucketAverageHaloHash(LONG, 128))
    b8 = BucketedBitAverageHaloHash(LONG, 64, buckets=8)
    with pytest.raises(ValueError, match="different shapes"):
        b8.distance(BucketedBitAverageHaloHash(LONG, 64, buckets=4))
    assert b8 != BucketedBitAverageHaloHash(LONG, 64, buckets=4)
    assert a != SimHash(LONG, 64)
    assert a.distance(a.hash()) == 0
    with pytest.raises(TypeError, match="bitarray or a hash"):
        a.distance("00")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: BucketAverageHaloHash(size_in_bits=160), ValueError, "32, 64, 128, 256, 512"),
        (lambda: BucketAverageHaloHash(size_in_bits=64.0), TypeError, "must be an int"),
        (lambda: BucketedBitAverageHaloHash(buckets=3), ValueError, "power of two"),
        (lambda: BucketedBitAverageHaloHash(buckets=512), ValueError, "got 512"),
        (lambda: BucketedBitAverageHaloHash(size_in_bits=32, buckets=64), ValueError, "at most"),
        (lambda: BucketedBitAverageHaloHash(buckets="8"), TypeError, "buckets must be an int"),
        (lambda: BucketAverageHaloHash([b"a", 3]), TypeError, "got int 3"),
        (lambda: BucketedBitAverageHaloHash(5), TypeError, "got int 5"),
        (lambda: BucketAverageHaloHash.from_digest(bytes(3)), ValueError, "got 3 bytes"),
        (lambda: BucketAverageHaloHash.from_int(-1, 32), ValueError, "0 .. 2\\*\\*32"),
    ],
)
def test_bad_arguments(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


def test_a_rejected_feature_changes_nothing() -> None:
    for h in (BucketAverageHaloHash(LONG, 64), BucketedBitAverageHaloHash(LONG, 64)):
        before = h.digest()
        with pytest.raises(TypeError):
            h.update(["fine", b"fine", None])
        assert h.digest() == before
        assert h.elements_count == len(LONG)


def test_empty_buckets_are_zeros_and_empty_features_are_skipped() -> None:
    h = BucketedBitAverageHaloHash(["only one"], 64, buckets=8)
    nonzero = [h.digest()[i] for i in range(8) if h.digest()[i]]
    assert len(nonzero) <= 1
    assert BucketAverageHaloHash(["a", "", b""], 32) == BucketAverageHaloHash(["a"], 32)
    assert BucketAverageHaloHash(size_in_bits=32).intdigest() == 0


@pytest.mark.parametrize("bits", [1, 8, 32, 100, 128])
def test_prefix_is_the_leading_bits(bits: int) -> None:
    h = BucketAverageHaloHash(LONG, 128)
    prefix = h.prefix(bits)
    assert prefix == h.hash()[:bits]
    assert hash(prefix) == hash(h.prefix(bits))  # usable as a key


def test_prefix_of_bit_average_is_the_smaller_hash() -> None:
    words = [w.encode() for w in LONG]
    big = BitAverageHaloHash(words, 128)
    for size in (32, 64):
        assert big.prefix(size) == BitAverageHaloHash(words, size).hash()


def test_prefix_errors() -> None:
    h = SimHash(LONG)
    with pytest.raises(ValueError, match="between 1 and size_in_bits \\(64\\); got 65"):
        h.prefix(65)
    with pytest.raises(ValueError, match="got 0"):
        h.prefix(0)
    with pytest.raises(TypeError, match="bits must be an int"):
        h.prefix(8.0)  # type: ignore[arg-type]


def test_unpickling_a_foreign_state_is_refused() -> None:
    h = BucketAverageHaloHash.__new__(BucketAverageHaloHash)
    with pytest.raises(ValueError, match="unsupported saved state"):
        h.__setstate__({"version": 99})
