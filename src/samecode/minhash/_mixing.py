"""Private: MurmurHash3's finalizer, the bijection that mixes hash values here."""

from __future__ import annotations

__all__ = ["fmix", "fmix_lanes"]

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
# Per width: the three shifts and two multipliers of the finalizer (as in fmix).
_STEPS = {
    32: ((16, 13, 16), (0x85EBCA6B, 0xC2B2AE35)),
    64: ((33, 33, 33), (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)),
}


def fmix(value: int, width: int) -> int:
    """MurmurHash3's finalizer (a bijection) on a ``width``-bit value, 32 or 64.

    >>> fmix(0, 32), fmix(1, 32) != 1
    (0, True)
    """
    if width == 32:  # written out: this is on hot paths, one value at a time
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


def fmix_lanes(lanes: int, width: int, low: int) -> int:
    """:func:`fmix` on every lane of ``lanes`` at once: each lane ``2 * width`` bits wide
    (room for a product) and holding a value below ``2**width``; ``low`` has every lane's
    low ``width`` bits set. One lane (``low = 2**width - 1``) is plain :func:`fmix`.

    >>> lanes = fmix_lanes(1 | 2 << 64, 32, (1 << 32) - 1 | ((1 << 32) - 1) << 64)
    >>> lanes & (1 << 64) - 1 == fmix(1, 32), lanes >> 64 == fmix(2, 32)
    (True, True)
    """
    (first, second, third), (times, again) = _STEPS[width]
    lanes ^= lanes >> first & low
    lanes = lanes * times & low
    lanes ^= lanes >> second & low
    lanes = lanes * again & low
    return lanes ^ (lanes >> third & low)
