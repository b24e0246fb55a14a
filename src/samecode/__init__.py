"""samecode: find near-duplicate code and text with halo hashes, simhashes and ngram selection.

A drop-in for the SameCode 0.5.1 API (:mod:`samecode.chunking`, :mod:`samecode.halohash`)
with identical outputs, its defects fixed, and ``bitarray`` as its only dependency; plus
the bucketed halo hashes, Charikar's weighted simhash with simhash-py's functions
(:mod:`samecode.simhash`), tokenizers for text and code (:mod:`samecode.tokens`), and exact
Hamming-distance indexes in memory (:mod:`samecode.index`) and in SQLite (:mod:`samecode.sqlite`);
MinHash with datasketch's values and a faster scheme of its own (:mod:`samecode.minhash`),
and LSH over either (:mod:`samecode.lsh`).

>>> import samecode
>>> a = samecode.BitAverageHaloHash(b"a b c d e f".split(), size_in_bits=64)
>>> b = samecode.BitAverageHaloHash(b"a b c d e g".split(), size_in_bits=64)
>>> 0 < a.distance(b) < 32
True
"""

from samecode.chunking import ngrams, select_ngrams, token_fingerprint
from samecode.fingerprint import Fingerprint
from samecode.halohash import (
    SIZES_IN_BITS,
    BitAverageHaloHash,
    BucketAverageHaloHash,
    BucketedBitAverageHaloHash,
    SliceLengthError,
    bit_to_num,
    bitarray_from_bytes,
    byte_hamming_distance,
    common_chunks,
    common_chunks_from_hexdigest,
    decode_vector,
    hamming_distance,
    slices,
)
from samecode.index import HammingIndex
from samecode.lsh import LSHSettings, MinHashLSH
from samecode.minhash import LeanMinHash, MinHash
from samecode.oph import OnePermutationMinHash
from samecode.plan import Plan, choose_plan
from samecode.simhash import SimHash
from samecode.sqlite import SQLiteIndex
from samecode.sqlitelsh import SQLiteLSH
from samecode.tokens import char_shingles, code_tokens, words

__version__ = "0.1.0"

__all__ = [
    "SIZES_IN_BITS",
    "BitAverageHaloHash",
    "BucketAverageHaloHash",
    "BucketedBitAverageHaloHash",
    "Fingerprint",
    "HammingIndex",
    "LSHSettings",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "OnePermutationMinHash",
    "Plan",
    "SQLiteIndex",
    "SQLiteLSH",
    "SimHash",
    "SliceLengthError",
    "__version__",
    "bit_to_num",
    "bitarray_from_bytes",
    "byte_hamming_distance",
    "char_shingles",
    "choose_plan",
    "code_tokens",
    "common_chunks",
    "common_chunks_from_hexdigest",
    "decode_vector",
    "hamming_distance",
    "ngrams",
    "select_ngrams",
    "slices",
    "token_fingerprint",
    "words",
]
