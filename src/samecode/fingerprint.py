"""The former home of :mod:`samecode.fingerprints.fingerprint`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.fingerprints.fingerprint`."""

from samecode.fingerprints.fingerprint import (
    Fingerprint,
)

__all__ = [
    "Fingerprint",
]
