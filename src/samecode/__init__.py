"""samecode: find near-duplicate code and text with halo hashes, simhashes and ngram selection.

A drop-in for the SameCode 0.5.1 API (:mod:`samecode.chunking`, :mod:`samecode.halohash`)
with identical outputs, its defects fixed, and ``bitarray`` as its only dependency; plus
the bucketed halo hashes, Charikar's weighted simhash with simhash-py's functions
(:mod:`samecode.fingerprints`), tokenizers for text and code (:mod:`samecode.text`), and
exact Hamming-distance indexes in memory and in SQLite (:mod:`samecode.hamming`); MinHash
with datasketch's values, a faster scheme of its own, and LSH over either
(:mod:`samecode.minhash`); and the main job, exact near-duplicate scans of trees and
matches against a stored corpus (:mod:`samecode.scan`, the ``samecode`` command).

The subpackages: :mod:`samecode.fingerprints`, :mod:`samecode.text`,
:mod:`samecode.hamming`, :mod:`samecode.minhash`, :mod:`samecode.store` (the SQLite file
layer), :mod:`samecode.scan` and :mod:`samecode.cli`; every error is a
:class:`samecode.errors.SamecodeError`.

>>> import samecode
>>> a = samecode.BitAverageHaloHash(b"a b c d e f".split(), size_in_bits=64)
>>> b = samecode.BitAverageHaloHash(b"a b c d e g".split(), size_in_bits=64)
>>> 0 < a.distance(b) < 32
True
"""

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names, for type checkers; at run time each is imported when asked
    from samecode.chunking import ngrams, select_ngrams, token_fingerprint
    from samecode.fingerprints.fingerprint import Fingerprint
    from samecode.fingerprints.simhash import SimHash
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
    from samecode.hamming.index import HammingIndex
    from samecode.hamming.plan import Plan, choose_plan
    from samecode.hamming.sqlite import SQLiteIndex
    from samecode.minhash.lsh import MinHashLSH
    from samecode.minhash.minhash import LeanMinHash, MinHash
    from samecode.minhash.oph import OnePermutationMinHash
    from samecode.minhash.settings import LSHSettings
    from samecode.minhash.sqlitelsh import SQLiteLSH
    from samecode.text.tokens import char_shingles, code_tokens, words

__version__ = "0.1.0"

# Where each name lives: ``import samecode`` (and so the import of any of its modules,
# ``samecode.halohash`` for SameCode's clients) loads none of them until it is asked for,
# not the hamming, MinHash and SQLite layers that a client of one never uses.
_HOMES = {
    "BitAverageHaloHash": "samecode.halohash",
    "BucketAverageHaloHash": "samecode.halohash",
    "BucketedBitAverageHaloHash": "samecode.halohash",
    "Fingerprint": "samecode.fingerprints.fingerprint",
    "HammingIndex": "samecode.hamming.index",
    "LSHSettings": "samecode.minhash.settings",
    "LeanMinHash": "samecode.minhash.minhash",
    "MinHash": "samecode.minhash.minhash",
    "MinHashLSH": "samecode.minhash.lsh",
    "OnePermutationMinHash": "samecode.minhash.oph",
    "Plan": "samecode.hamming.plan",
    "SIZES_IN_BITS": "samecode.halohash",
    "SQLiteIndex": "samecode.hamming.sqlite",
    "SQLiteLSH": "samecode.minhash.sqlitelsh",
    "SimHash": "samecode.fingerprints.simhash",
    "SliceLengthError": "samecode.halohash",
    "bit_to_num": "samecode.halohash",
    "bitarray_from_bytes": "samecode.halohash",
    "byte_hamming_distance": "samecode.halohash",
    "char_shingles": "samecode.text.tokens",
    "choose_plan": "samecode.hamming.plan",
    "code_tokens": "samecode.text.tokens",
    "common_chunks": "samecode.halohash",
    "common_chunks_from_hexdigest": "samecode.halohash",
    "decode_vector": "samecode.halohash",
    "hamming_distance": "samecode.halohash",
    "ngrams": "samecode.chunking",
    "select_ngrams": "samecode.chunking",
    "slices": "samecode.halohash",
    "token_fingerprint": "samecode.chunking",
    "words": "samecode.text.tokens",
}

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


def __getattr__(name: str) -> object:
    """A name of :data:`__all__`, imported from its module when first asked for, or a
    module of the package (``samecode.halohash``), as ``import samecode`` gave them."""
    home = _HOMES.get(name)
    if home is not None:
        value: object = getattr(importlib.import_module(home), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"samecode.{name}") is not None:
        value = importlib.import_module(f"samecode.{name}")
    else:
        raise AttributeError(f"module 'samecode' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
