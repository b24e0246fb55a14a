"""Private: the lane arithmetic of :class:`~samecode.minhash.minhash.MinHash`.

The values of every permutation for one feature are computed at once as *lanes* of one
large integer, and compared with the running minimums lane by lane (see the description of
:mod:`samecode.minhash.minhash`). :class:`Lanes` holds the constants of that arithmetic for
one scheme, seed and size; :func:`lanes_for` draws datasketch's permutations and makes
them.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence

from samecode.minhash._mixing import fmix as _fmix
from samecode.minhash._mixing import fmix_lanes
from samecode.minhash._randomstate import legacy_generator, randint

__all__ = ["MERSENNE", "Lanes", "fmix_many", "lanes_for"]

#: The prime of the ``"legacy"`` scheme, ``2**61 - 1``.
MERSENNE = (1 << 61) - 1
_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
# The most permutations of "affine32" whose values come from tables.
_MAX_TABLED = 1024


def fmix_many(values: list[int], width: int, key: int = 0) -> list[int]:
    """MurmurHash3's finalizer of every ``value ^ key``, lane by lane in one big integer
    (lanes twice the width, so that a product fits)."""
    n = len(values)
    if n < 8:
        return [_fmix(v ^ key, width) for v in values]
    step = width // 4  # bytes per lane
    code = "I" if width == 32 else "Q"
    wide = array(code, bytes(step * n))
    wide[::2] = array(code, values)
    if sys.byteorder != "little":  # pragma: no cover - big-endian machines
        wide.byteswap()
    lanes = int.from_bytes(wide.tobytes(), "little")
    low = int.from_bytes((b"\xff" * (step // 2) + bytes(step // 2)) * n, "little")
    if key:
        lanes ^= int.from_bytes(
            (key.to_bytes(step // 2, "little") + bytes(step // 2)) * n, "little"
        )
    lanes = fmix_lanes(lanes, width, low)
    out = array(code, lanes.to_bytes(step * n, "little"))
    if sys.byteorder != "little":  # pragma: no cover
        out.byteswap()
    return out[::2].tolist()


class Lanes:
    """Constants of the lane arithmetic for one scheme, seed and size.

    Lane ``k`` of a big integer is bits ``8 * lane_bytes * k`` on. For ``"affine32"`` (up
    to 1,024 permutations) a lane is 40 bits: it holds residues mod ``2**32`` and sums of
    up to five of them, and a feature's values come from tables (:meth:`tables`) rather
    than a multiplication. Otherwise a lane is 128 bits and holds whole products.
    """

    def __init__(self, scheme: str, a: Sequence[int], b: Sequence[int]) -> None:
        self.scheme = scheme
        self.count = len(a)
        self.value_bits = 64 if scheme == "affine64" else 32
        self.value_bytes = self.value_bits // 8
        # Tables cost 1,024 lane sets: up to about 5 MB, for up to 1,024 permutations.
        self.tabled = scheme == "affine32" and self.count <= _MAX_TABLED
        self.lane_bytes = 5 if self.tabled else 16
        self.a_list, self.b_list = list(a), list(b)
        self.a = self.pack(a)
        self.b = self.pack(b)
        self.values = self.pack([(1 << self.value_bits) - 1] * self.count)
        self.guard = self.pack([1 << self.value_bits] * self.count)
        self.ones = self.pack([1] * self.count)
        self.empty = self.values  # every lane at the largest value
        self._tables: tuple[list[int], ...] | None = None
        if scheme == "legacy":
            self.wrap = self.pack([_M64] * self.count)
            self.prime = self.pack([MERSENNE] * self.count)
            self.seven = self.pack([7] * self.count)

    def pack(self, values: Iterable[int]) -> int:
        """Values (below the lane's size) as lanes."""
        values = list(values)
        try:
            raw = array("Q", values)
        except OverflowError:  # a constant of 2**64 (the 64-bit scheme's guard bits)
            data = b"".join(v.to_bytes(self.lane_bytes, "little") for v in values)
            return int.from_bytes(data, "little")
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            raw.byteswap()
        data = raw.tobytes()
        step = self.lane_bytes
        lanes = bytearray(step * len(raw))
        for i in range(min(step, 8)):
            lanes[i::step] = data[i::8]
        return int.from_bytes(lanes, "little")

    def unpack(self, lanes: int) -> array[int]:
        """The low ``value_bits`` of every lane, as an array of 4- or 8-byte values."""
        data = lanes.to_bytes(self.lane_bytes * self.count, "little")
        width = self.value_bytes
        out = bytearray(width * self.count)
        for i in range(width):
            out[i::width] = data[i :: self.lane_bytes]
        values = array("I" if width == 4 else "Q", out)
        if sys.byteorder != "little":  # pragma: no cover - big-endian machines
            values.byteswap()
        return values

    def tables(self) -> tuple[list[int], ...]:
        """For ``"affine32"``: four tables of 256 lane sets, ``T[j][x]`` holding ``a_k * x *
        2**(8 * j) (+ b_k for j = 0) mod 2**32``; the sum of a hash's four bytes' entries,
        masked, is ``a_k * h + b_k mod 2**32`` (three additions in place of a product)."""
        if self._tables is None:
            built = []
            for j in range(4):
                step = self.pack([(a << (8 * j)) & _M32 for a in self.a_list])
                table = [self.b if j == 0 else 0]
                for _ in range(255):
                    table.append((table[-1] + step) & self.values)
                built.append(table)
            self._tables = tuple(built)
        return self._tables

    def permuted(self, h: int) -> int:
        """Every permutation's value of one (mixed) feature hash, as lanes."""
        if self.tabled:
            t0, t1, t2, t3 = self.tables()
            return (t0[h & 255] + t1[h >> 8 & 255] + t2[h >> 16 & 255] + t3[h >> 24]) & self.values
        if self.scheme != "legacy":
            return (self.a * h + self.b) & self.values
        # numpy's uint64 arithmetic: a * h wraps, and so does + b.
        wide = (((self.a * h) & self.wrap) + self.b) & self.wrap
        # mod 2**61 - 1, lane by lane: 2**61 is 1, so fold the top 3 bits onto the low 61
        # (at most 2**61 + 6), then subtract the prime once where the sum reaches it.
        folded = (wide & self.prime) + ((wide >> 61) & self.seven)
        over = ((folded + self.ones) >> 61) & self.ones
        return (folded - over * MERSENNE) & self.values

    def lower(self, minimum: int, candidate: int) -> int:
        """The lane-by-lane minimum of two sets of lanes (values below 2**value_bits)."""
        # Bit value_bits of each lane of (candidate + 2**v - minimum) is set where
        # candidate >= minimum: no lane borrows from another.
        keep = ((candidate + self.guard - minimum) >> self.value_bits) & self.ones
        if keep == self.ones:
            return minimum
        mask = keep * ((1 << self.value_bits) - 1)
        return (minimum & mask) | (candidate & (self.values ^ mask))


_LANE_CACHE: dict[tuple[str, int, int], tuple[Lanes, tuple[list[int], list[int]]]] = {}


def lanes_for(scheme: str, seed: int, num_perm: int) -> tuple[Lanes, tuple[list[int], list[int]]]:
    """The permutations datasketch draws for ``(scheme, seed, num_perm)``, and their lanes."""
    key = (scheme, seed, num_perm)
    found = _LANE_CACHE.get(key)
    if found is None:
        generator = legacy_generator(seed)
        if scheme == "legacy":
            pairs = [
                (randint(generator, 1, MERSENNE), randint(generator, 0, MERSENNE))
                for _ in range(num_perm)
            ]
            a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        else:
            width = 32 if scheme == "affine32" else 64
            mask = (1 << width) - 1
            a = [(randint(generator, 0, 1 << (width - 1)) * 2 + 1) & mask for _ in range(num_perm)]
            b = [randint(generator, 0, 1 << width) for _ in range(num_perm)]
        found = (Lanes(scheme, a, b), (a, b))
        if len(_LANE_CACHE) >= 16:
            _LANE_CACHE.clear()
        _LANE_CACHE[key] = found
    return found
