"""Deliberately simple implementations, to check the fast ones against.

Nothing here is fast or clever: one loop per bit, one loop per token, written from the
definitions in the documentation and the compatibility spec, not from the package code.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Any

__all__ = ["naive_halo_digest", "naive_ngrams", "naive_select_ngrams", "naive_token_fingerprint"]

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
