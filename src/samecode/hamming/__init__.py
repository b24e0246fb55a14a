"""Exact Hamming-distance search over fingerprints: every pair or neighbour within a
distance, found by permuted-block tables (:mod:`samecode.hamming.plan`), in memory
(:class:`HammingIndex`) or in one SQLite file (:class:`SQLiteIndex`); the all-pairs
search over a list of values is :func:`samecode.hamming.allpairs.near_pairs`.

>>> from samecode.hamming import HammingIndex
>>> index = HammingIndex(size_in_bits=64, max_distance=3)
>>> index.add("a", 0b1011)
>>> index.add("b", 0b0011)
>>> index.find_all()
[('a', 'b', 1)]
"""

from samecode.hamming.allpairs import distinct_groups, near_pairs
from samecode.hamming.index import HammingIndex
from samecode.hamming.plan import Plan, choose_plan
from samecode.hamming.sqlite import (
    IndexCorruptError,
    IndexFileError,
    IndexLockedError,
    SQLiteIndex,
)

__all__ = [
    "HammingIndex",
    "IndexCorruptError",
    "IndexFileError",
    "IndexLockedError",
    "Plan",
    "SQLiteIndex",
    "choose_plan",
    "distinct_groups",
    "near_pairs",
]
