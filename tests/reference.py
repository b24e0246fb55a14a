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
    "naive_corpus_matches",
    "naive_halo_digest",
    "naive_lsh_bands",
    "naive_minhash",
    "naive_ngrams",
    "naive_one_permutation",
    "naive_optimal_param",
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


# -- MinHash, from datasketch 2.0.0's definitions ------------------------------------------

_MERSENNE = (1 << 61) - 1


def _fmix(value: int, width: int) -> int:
    mask = (1 << width) - 1
    if width == 32:
        shifts, m1, m2 = (16, 13, 16), 0x85EBCA6B, 0xC2B2AE35
    else:
        shifts, m1, m2 = (33, 33, 33), 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
    value ^= value >> shifts[0]
    value = value * m1 & mask
    value ^= value >> shifts[1]
    value = value * m2 & mask
    return value ^ (value >> shifts[2])


def naive_minhash(features: list[bytes], num_perm: int, seed: int, scheme: str) -> list[int]:
    """The signature datasketch 2.0.0 gives, one permutation and one feature at a time.

    The permutations come from numpy's ``RandomState(seed)``, drawn as datasketch draws
    them; the arithmetic is Python's, with numpy's wrap-around written out.
    """
    import numpy

    generator = numpy.random.RandomState(seed)
    if scheme == "legacy":
        drawn = [
            (
                int(generator.randint(1, _MERSENNE, dtype=numpy.uint64)),
                int(generator.randint(0, _MERSENNE, dtype=numpy.uint64)),
            )
            for _ in range(num_perm)
        ]
        a, b = [p[0] for p in drawn], [p[1] for p in drawn]
        width = 32
    else:
        width = 32 if scheme == "affine32" else 64
        dtype = numpy.uint32 if width == 32 else numpy.uint64
        a = [2 * int(v) + 1 for v in generator.randint(0, 1 << (width - 1), num_perm, dtype=dtype)]
        b = [int(v) for v in generator.randint(0, 1 << width, num_perm, dtype=dtype)]
    mask = (1 << width) - 1
    signature = [mask] * num_perm
    for feature in features:
        h = int.from_bytes(hashlib.sha1(feature).digest()[: width // 8], "little")
        for k in range(num_perm):
            if scheme == "legacy":
                value = ((a[k] * h + b[k]) % (1 << 64)) % _MERSENNE & mask
            else:
                value = (a[k] * _fmix(h, width) + b[k]) & mask
            signature[k] = min(signature[k], value)
    return signature


def naive_optimal_param(threshold: Fraction, num_perm: int) -> list[tuple[Fraction, int, int]]:
    """Every ``(error, b, r)`` with ``b * r <= num_perm``, the error computed exactly.

    ``(1 - s**r)**b`` expands by the binomial theorem into powers of ``s`` that integrate
    exactly in fractions: the false-positive area is ``t - F(t)``, the false-negative area
    ``F(1) - F(t)``, with ``F`` the antiderivative of ``(1 - s**r)**b``; weights 0.5 each.
    """
    from math import comb

    out = []
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            terms = [(Fraction((-1) ** k * comb(b, k)), r * k + 1) for k in range(b + 1)]

            def antiderivative(s: Fraction, terms: list[tuple[Fraction, int]] = terms) -> Fraction:
                return sum((c * s**p / p for c, p in terms), Fraction(0))

            missed_below = antiderivative(threshold)
            false_positive = threshold - missed_below
            false_negative = antiderivative(Fraction(1)) - missed_below
            out.append(((false_positive + false_negative) / 2, b, r))
    return out


def naive_lsh_bands(signature: list[int], b: int, r: int) -> list[tuple[int, ...]]:
    """Band ``i`` is the values ``i * r`` to ``(i + 1) * r``."""
    return [tuple(signature[i * r : (i + 1) * r]) for i in range(b)]


def naive_corpus_matches(
    queries: Any, known: Any, threshold: Fraction
) -> set[tuple[str, str, int]]:
    """Every ``(query path, known path, shared shingles)`` of Jaccard at least
    ``threshold``, pair by pair, in fractions (two empty sets match nothing)."""
    out = set()
    for query in queries:
        for stored in known:
            shared = len(set(query.shingles) & set(stored.shingles))
            union = len(query.shingles) + len(stored.shingles) - shared
            if union and Fraction(shared, union) >= threshold:
                out.add((query.path, stored.path, shared))
    return out


def naive_one_permutation(
    hashes: list[int], num_perm: int, seed: int, wide: bool
) -> tuple[list[int], list[int]]:
    """The bins and the densified signature of the one-permutation scheme, from its
    definition in samecode.minhash.oph's documentation; ``hashes`` are CRC-32s, or 64-bit
    hashes when ``wide``. Empty bins are ``2**30``."""
    mask64 = (1 << 64) - 1
    spread = _fmix((seed + 0x9E3779B97F4A7C15) & mask64, 64)
    key = spread >> 32
    fold = _fmix(spread ^ 0xC2B2AE3D27D4EB4F, 64) | 1
    bins = [1 << 30] * num_perm
    for value in hashes:
        if wide:  # multiply-shift: the top half of the 64-bit product
            value = (value * fold) % 2**64 // 2**32
        h = _fmix(value ^ key, 32) >> 2
        slot = h * num_perm // 2**30
        bins[slot] = min(bins[slot], h)
    if all(v == 1 << 30 for v in bins):
        return bins, list(bins)
    filled = [i for i, value in enumerate(bins) if value != 1 << 30]
    signature = []
    for i, value in enumerate(bins):
        for attempt in range(16):
            if value != 1 << 30:
                break
            probe = _fmix(spread ^ (i << 20) ^ (attempt << 40), 64) * num_perm // 2**64
            value = bins[probe]
        if value == 1 << 30:  # 16 probes in vain: the nearest filled bin after it
            later = [j for j in filled if j >= i]
            value = bins[later[0] if later else filled[0]]
        signature.append(value)
    return bins, signature
