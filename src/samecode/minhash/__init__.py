"""MinHash sketches and LSH.

* :mod:`samecode.minhash.minhash`: :class:`MinHash` and :class:`LeanMinHash`, value for
  value identical to datasketch 2.0.0 (this package re-exports them, so
  ``from samecode.minhash import MinHash`` keeps working).
* :mod:`samecode.minhash.oph`: :class:`OnePermutationMinHash`, the fast scheme of our own.
* :mod:`samecode.minhash.lsh`: :class:`MinHashLSH` with datasketch's bands and rows, and
  :class:`LSHSettings` (a scheme, a size and a threshold, fixed once).
* :mod:`samecode.minhash.sqlitelsh`: :class:`SQLiteLSH`, the same index in one SQLite file.

>>> from samecode.minhash import MinHash
>>> a, b = MinHash(num_perm=64), MinHash(num_perm=64)
>>> a.update_batch([b"x", b"y", b"z"]); b.update_batch([b"x", b"y", b"w"])
>>> 0 < a.jaccard(b) < 1
True
"""

from samecode.minhash.lsh import MinHashLSH
from samecode.minhash.minhash import SCHEMES, LeanMinHash, MinHash, sha1_hash32, sha1_hash64
from samecode.minhash.oph import OnePermutationMinHash
from samecode.minhash.params import optimal_param
from samecode.minhash.settings import LSHSettings
from samecode.minhash.sqlitelsh import SQLiteLSH

__all__ = [
    "SCHEMES",
    "LSHSettings",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "OnePermutationMinHash",
    "SQLiteLSH",
    "optimal_param",
    "sha1_hash32",
    "sha1_hash64",
]
