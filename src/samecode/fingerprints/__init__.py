"""Fingerprints: fixed-size bit strings whose Hamming distance tracks how similar their
inputs are.

* :mod:`samecode.fingerprints.fingerprint`: the protocol every fingerprint follows
  (:class:`Fingerprint`: digests, distance, similarity, copying, pickling).
* :mod:`samecode.fingerprints.simhash`: Charikar's weighted simhash with simhash-py's
  functions (:class:`SimHash`).
* :mod:`samecode.fingerprints.bucketed`: the bucketed halo hashes
  (:class:`~samecode.halohash.BucketAverageHaloHash`,
  :class:`~samecode.halohash.BucketedBitAverageHaloHash`).
* The halo hashes are imported from :mod:`samecode.halohash`, SameCode's import path.

>>> from samecode.fingerprints import SimHash
>>> SimHash("a b c d e f g h".split()).distance(SimHash("a b c d e f g x".split())) < 32
True
"""

from samecode.fingerprints.fingerprint import Fingerprint
from samecode.fingerprints.simhash import HashRangeError, SimHash

__all__ = ["Fingerprint", "HashRangeError", "SimHash"]
