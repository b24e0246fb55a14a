"""Private: the array kernels on numpy, each giving exactly what its pure-Python
counterpart gives (:mod:`samecode._kernels` says which runs; the property tests in
``tests/text/test_kernels.py`` run both on the same inputs).

Importing this module imports numpy.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from bitarray import bitarray

__all__ = [
    "as_uint64",
    "distinct_kgrams",
    "kgram_hashes",
    "sieve",
    "sorted_kgrams",
    "to_array",
    "winnow",
]

Words = npt.NDArray[np.uint64]

# CPython's tuple hash (Objects/tupleobject.c, xxHash's primes and rotation) and the
# modulus of its int hash; numpy's uint64 arithmetic wraps as Py_uhash_t does.
_P1 = np.uint64(11400714785074694791)
_P2 = np.uint64(14029467366897019727)
_P5 = np.uint64(2870177450012600261)
_MODULUS = np.uint64((1 << 61) - 1)
_ALL_ONES = np.uint64((1 << 64) - 1)
_SHIFT_31, _SHIFT_32, _SHIFT_33 = np.uint64(31), np.uint64(32), np.uint64(33)


def as_uint64(values: Sequence[int]) -> Words | None:
    """``values`` as uint64 (the array's own memory for an ``array("Q")``); ``None`` if
    one is not an int from 0 to ``2**64 - 1`` (the pure kernels take those)."""
    if isinstance(values, array) and values.typecode == "Q":
        return np.frombuffer(values, dtype=np.uint64) if values else np.empty(0, np.uint64)
    try:
        words = array("Q", values)
    except (OverflowError, TypeError):
        return None
    return np.frombuffer(words, dtype=np.uint64) if words else np.empty(0, np.uint64)


def to_array(values: npt.NDArray[np.generic], typecode: str) -> array[int]:
    """An ``array`` of ``typecode`` holding ``values`` (converted)."""
    out = array(typecode)
    out.frombytes(values.astype(np.dtype(typecode), copy=False).tobytes())
    return out


def kgram_hashes(ids: Words, k: int) -> Words:
    """The hash of every run of ``k`` consecutive ``ids`` (``len(ids) >= k >= 1``):
    CPython's ``hash(tuple(run))`` as an unsigned int, as
    :func:`samecode.text.shingling.shingle_hash` computes it, for all runs at once."""
    count = len(ids) - k + 1
    lanes = ids % _MODULUS
    lanes *= _P2
    acc = np.full(count, _P5, dtype=np.uint64)
    spare = np.empty(count, dtype=np.uint64)
    for offset in range(k):
        acc += lanes[offset : offset + count]
        np.right_shift(acc, _SHIFT_33, out=spare)
        acc <<= _SHIFT_31
        acc |= spare
        acc *= _P1
    acc += np.uint64(k ^ (2870177450012600261 ^ 3527539))
    acc[acc == _ALL_ONES] = 1546275796
    return acc


def distinct_kgrams(ids: Words, k: int) -> array[int]:
    """The distinct hashes of :func:`kgram_hashes` (``len(ids) >= k >= 1``), ascending, as
    an ``array("Q")``: the set the pure path makes, in order."""
    return to_array(np.unique(kgram_hashes(ids, k)), "Q")


def winnow(hashes: Words, window: int, skip: int | None = None) -> list[int]:
    """Robust winnowing's positions, as :func:`samecode.fragments.winnowing.winnow`
    selects them (``skip`` as it takes it).

    Each window's rightmost minimum at once; a window whose minimum is there once selects
    it whatever came before, so only the windows with a tied minimum are walked in
    Python, from the choice of the window before them, by the robust rule. A window whose
    minimum is ``skip`` is not walked: what it chooses holds ``skip`` and is left out,
    and the next window whose minimum is another value chooses that whatever came before.
    """
    count = len(hashes)
    if count < window:  # one window of all, or none
        if not count:
            return []
        lowest = count - 1 - int(hashes[::-1].argmin())
        return [] if int(hashes[lowest]) == skip else [lowest]
    # every window as a row, on the hashes' memory (sliding_window_view makes the same
    # view, at many times the fixed cost)
    view = np.ndarray(
        (count - window + 1, window), np.uint64, hashes, strides=(hashes.strides[0],) * 2
    )
    starts = np.arange(count - window + 1)
    rightmost = starts + (window - 1 - view[:, ::-1].argmin(axis=1))
    ties = np.flatnonzero(starts + view.argmin(axis=1) != rightmost)
    if skip is not None and len(ties):
        ties = ties[hashes[rightmost[ties]] != np.uint64(skip)]
    chosen = rightmost
    if len(ties):
        chosen = rightmost.copy()
        lowest = rightmost[ties].tolist()
        before = rightmost[ties - 1].tolist()  # (the last window's for the first: unused)
        values = hashes.tolist()
        last, previous, kept = -1, -2, []
        for start, low, prior in zip(ties.tolist(), lowest, before):
            if start != previous + 1:
                last = prior if start else -1  # the window before had one minimum
            if low != last and (last < start or values[low] != values[last]):
                last = low
            kept.append(last)
            previous = start
        chosen[ties] = kept
    changed = np.empty(len(chosen), dtype=bool)
    changed[0] = True
    np.not_equal(chosen[1:], chosen[:-1], out=changed[1:])
    picked = chosen[changed]
    if skip is not None:
        picked = picked[hashes[picked] != np.uint64(skip)]
    selected: list[int] = picked.tolist()
    return selected


def sorted_kgrams(hashes: Words) -> tuple[npt.NDArray[np.intp], Words, Words]:
    """The positions of ``hashes`` in the order of the hashes (a stable sort: equal ones
    in increasing order, as ``sorted`` gives them), those hashes' highest 32 bits, and
    the distinct values of those bits that two positions or more have."""
    order = np.argsort(hashes, kind="stable")
    tops = hashes[order] >> _SHIFT_32
    repeated = tops[1:][tops[1:] == tops[:-1]]  # in order: each the first of its kind
    if len(repeated) > 1:
        repeated = repeated[np.concatenate(([True], repeated[1:] != repeated[:-1]))]
    return order, tops, repeated


def sieve(values: Words, size: int) -> bitarray:
    """A bitarray of ``size`` bits (a power of two, 64 or more), big-endian, the bit
    each value's lowest bits choose set."""
    bits = np.zeros(size, dtype=bool)
    bits[values & np.uint64(size - 1)] = True
    out = bitarray(endian="big")
    out.frombytes(np.packbits(bits).tobytes())
    return out
