"""The former home of :mod:`samecode.minhash.lsh`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.minhash.lsh`."""

from samecode.minhash.lsh import (
    MAX_OPTIMISED_PERM,
    SKETCH_VERSION,
    SKETCHES,
    LSHSettings,
    MinHashLSH,
    MinHashLSHDeletionSession,
    MinHashLSHInsertionSession,
    Signature,
    optimal_param,
)

__all__ = [
    "MAX_OPTIMISED_PERM",
    "SKETCHES",
    "SKETCH_VERSION",
    "LSHSettings",
    "MinHashLSH",
    "MinHashLSHDeletionSession",
    "MinHashLSHInsertionSession",
    "Signature",
    "optimal_param",
]
