"""Private: MurmurHash3's finalizer, the bijection that mixes hash values here."""

from __future__ import annotations

__all__ = ["fmix"]

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1


def fmix(value: int, width: int) -> int:
    """MurmurHash3's finalizer (a bijection) on a ``width``-bit value, 32 or 64.

    >>> fmix(0, 32), fmix(1, 32) != 1
    (0, True)
    """
    if width == 32:
        value ^= value >> 16
        value = (value * 0x85EBCA6B) & _M32
        value ^= value >> 13
        value = (value * 0xC2B2AE35) & _M32
        return value ^ (value >> 16)
    value ^= value >> 33
    value = (value * 0xFF51AFD7ED558CCD) & _M64
    value ^= value >> 33
    value = (value * 0xC4CEB9FE1A85EC53) & _M64
    return value ^ (value >> 33)
