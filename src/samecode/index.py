"""The former home of :mod:`samecode.hamming.index`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.hamming.index`."""

from samecode.hamming.index import (
    HammingIndex,
    fingerprint_value,
    kind_name,
)

__all__ = [
    "HammingIndex",
    "fingerprint_value",
    "kind_name",
]
