"""Deliberately simple implementations, to check the fast ones against.

Nothing here is fast or clever: one loop per bit, one loop per token, written from the
definitions in the documentation and the compatibility spec, not from the package code.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from fractions import Fraction
from typing import Any

__all__ = [
    "naive_bucket_average",
    "naive_bucketed_bit_average",
    "naive_char_shingles",
    "naive_compute",
    "naive_halo_digest",
    "naive_ngrams",
    "naive_select_ngrams",
    "naive_simhash",
    "naive_token_fingerprint",
]

_HASH_BY_SIZE = {
    32: ("md5", 4),
    64: ("md5", 8),
    128: ("md5", 16),
    160: ("sha1", 20),
    256: ("sha256", 32),
    384: ("sha384", 48),
    512: ("sha512", 64),
}


def naive_halo_digest(features: list[bytes], size_in_bits: int) -> bytes:
    """The bit-average halo digest, one bit at a time."""
    name, nbytes = _HASH_BY_SIZE[size_in_bits]
    totals = [0] * size_in_bits
    for feature in features:
        if not feature:
            continue
        digest = hashlib.new(name, feature).digest()[:nbytes]
        for i in range(size_in_bits):
            bit = (digest[i // 8] >> (7 - i % 8)) & 1
            totals[i] += -1 if bit else 1
    value = 0
    for total in totals:
        value = value * 2 + (1 if total > 0 else 0)
    return value.to_bytes(nbytes, "big")


def naive_ngrams(items: list[Any], n: int) -> list[tuple[Any, ...]]:
    return [tuple(items[i : i + n]) for i in range(len(items) - n + 1)]


def naive_token_fingerprint(token: Any) -> int:
    text = token if isinstance(token, str) else str(token)
    return zlib.crc32(text.encode("utf-8")) & 0xFFFFFFFF


def naive_select_ngrams(grams: list[Any], with_pos: bool = False) -> list[Any]:
    out: list[Any] = []
    last_kept: Any = None
    for pos, gram in enumerate(grams):
        prints = [naive_token_fingerprint(t) for t in gram]
        item = (pos, gram) if with_pos else gram
        if pos == 0 or min(prints) in (prints[0], prints[-1]):
            out.append(item)
            last_kept = item
    if grams:
        final = (len(grams) - 1, grams[-1]) if with_pos else grams[-1]
        if final != last_kept:
            out.append(final)
    return out


def _bit(digest: bytes, position: int) -> int:
    return (digest[position // 8] >> (7 - position % 8)) & 1


def _as_bytes(feature: Any) -> bytes:
    return feature.encode("utf-8") if isinstance(feature, str) else bytes(feature)


def naive_bucket_average(features: list[Any], size_in_bits: int) -> bytes:
    """The bucket-average halo digest, straight from its docstring's definition."""
    high = size_in_bits.bit_length() - 1
    low = 16 - high
    seen = [0] * size_in_bits
    ones = [0] * size_in_bits
    for feature in map(_as_bytes, features):
        if not feature:
            continue
        digest = hashlib.md5(feature).digest()
        key = digest[0] * 256 + digest[1]
        bucket = key >> low
        seen[bucket] += 1
        ones[bucket] += sum((key >> i) & 1 for i in range(low))
    value = 0
    for n, s in zip(seen, ones):
        value = value * 2 + (1 if 2 * s > n * low else 0)
    return value.to_bytes(size_in_bits // 8, "big")


def naive_bucketed_bit_average(features: list[Any], size_in_bits: int, buckets: int) -> bytes:
    """The bucketed bit-average halo digest, straight from its docstring's definition."""
    high = buckets.bit_length() - 1
    width = size_in_bits // buckets
    name = "md5" if 8 + width <= 128 else "sha512"
    seen = [0] * buckets
    ones = [[0] * width for _ in range(buckets)]
    for feature in map(_as_bytes, features):
        if not feature:
            continue
        digest = hashlib.new(name, feature).digest()
        bucket = digest[0] >> (8 - high)
        seen[bucket] += 1
        for j in range(width):
            ones[bucket][j] += _bit(digest, 8 + j)
    value = 0
    for bucket in range(buckets):
        for j in range(width):
            value = value * 2 + (1 if 2 * ones[bucket][j] > seen[bucket] else 0)
    return value.to_bytes(size_in_bits // 8, "big")


def naive_simhash(features: list[Any], size_in_bits: int) -> tuple[int, list[Fraction]]:
    """Charikar's simhash with exact arithmetic: (value, vector V)."""
    name, nbytes = _HASH_BY_SIZE[size_in_bits]
    vector = [Fraction(0)] * size_in_bits
    for feature in features:
        token, weight = feature if isinstance(feature, tuple) else (feature, 1)
        digest = hashlib.new(name, _as_bytes(token)).digest()[:nbytes]
        for i in range(size_in_bits):
            vector[i] += Fraction(weight) if _bit(digest, i) else -Fraction(weight)
    value = 0
    for total in vector:
        value = value * 2 + (1 if total > 0 else 0)
    return value, vector


def naive_compute(hashes: list[int]) -> int:
    """simhash-py's compute: count +1/-1 per bit from the least significant up."""
    counts = [0] * 64
    for h in hashes:
        for i in range(64):
            counts[i] += 1 if (h >> i) & 1 else -1
    return sum(1 << i for i in range(64) if counts[i] > 0)


def naive_char_shingles(text: str, k: int) -> list[str]:
    """Normalise the whole text at once, then slide a window of k characters."""
    normal = re.sub(r"\s+", " ", text)
    return [normal[i : i + k] for i in range(len(normal) - k + 1)]
