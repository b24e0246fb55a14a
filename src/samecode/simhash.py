"""The former home of :mod:`samecode.fingerprints.simhash`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.fingerprints.simhash`."""

from samecode.fingerprints.simhash import (
    SIZES_IN_BITS,
    HashRangeError,
    SimHash,
    compute,
    find_all,
    num_differing_bits,
    shingle,
    unsigned_hash,
)

__all__ = [
    "SIZES_IN_BITS",
    "HashRangeError",
    "SimHash",
    "compute",
    "find_all",
    "num_differing_bits",
    "shingle",
    "unsigned_hash",
]
