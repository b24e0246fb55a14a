"""One digest of a shingle set for every place that digests one: each kind is the
SameCode/simhash-py digest of the set's shingles as features (the reference computed
here from the classes themselves), and the scan methods use the same."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.fingerprints.simhash import compute
from samecode.halohash import (
    BitAverageHaloHash,
    BucketAverageHaloHash,
    BucketedBitAverageHaloHash,
)
from samecode.scan.candidates import method
from samecode.set_digests import DIGEST_BITS, DIGEST_KINDS, digest, digest_hex

HALOS = {
    "halo": BitAverageHaloHash,
    "bucket": BucketAverageHaloHash,
    "bucketed": BucketedBitAverageHaloHash,
}


def reference(kind: str, shingles: array) -> str:
    if kind == "simhash":
        return f"{compute(list(shingles)):016x}"
    features = [value.to_bytes(8, "little") for value in shingles]
    return HALOS[kind](features, size_in_bits=128).hexdigest().decode()


sets = st.lists(st.integers(0, 2**64 - 1), max_size=300, unique=True).map(
    lambda values: array("Q", sorted(values))
)


@settings(max_examples=60, deadline=None)
@given(sets)
def test_every_kind_is_the_reference_digest_of_the_shingles(shingles):
    for kind in DIGEST_KINDS:
        assert digest_hex(kind, shingles) == reference(kind, shingles)
        assert len(digest_hex(kind, shingles)) == DIGEST_BITS[kind] // 4
        assert digest(kind, shingles) == int(digest_hex(kind, shingles), 16)


@settings(max_examples=30, deadline=None)
@given(sets)
def test_the_scan_methods_use_the_same_digest(shingles):
    assert method("simhash").fingerprint(shingles) == digest("simhash", shingles)
    assert method("halo").fingerprint(shingles) == digest("halo", shingles)


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(
        ValueError, match="kind must be one of simhash, halo, bucket, bucketed; got 'md5'"
    ):
        digest("md5", array("Q", [1]))
