"""Private: a signature's values as bytes, as the LSH indexes hold and compare them."""

from __future__ import annotations

import sys
from array import array
from operator import eq

from samecode.minhash.minhash import MinHash
from samecode.minhash.oph import OnePermutationMinHash

__all__ = ["agreement", "value_bytes", "value_code"]


def value_code(scheme: str) -> str:
    """The array type of a scheme's values: 4 bytes, or 8 for ``"affine64"``."""
    return "Q" if scheme == "affine64" else "I"


def value_bytes(signature: MinHash | OnePermutationMinHash) -> bytes:
    """A signature's values, little-endian, as wide as its scheme's values."""
    values = array(value_code(signature.scheme), signature.hashvalues)
    if sys.byteorder != "little":
        values.byteswap()  # pragma: no cover - big-endian machines
    return values.tobytes()


def agreement(first: bytes, second: bytes, code: str, count: int) -> float:
    """The share of equal values of two signatures' bytes (values of type ``code``)."""
    same: int = sum(map(eq, array(code, first), array(code, second)))
    return same / count
