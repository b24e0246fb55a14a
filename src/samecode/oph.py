"""The former home of :mod:`samecode.minhash.oph`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.minhash.oph`."""

from samecode.minhash.oph import (
    OnePermutationMinHash,
)

__all__ = [
    "OnePermutationMinHash",
]
