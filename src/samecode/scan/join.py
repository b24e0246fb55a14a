"""Exact set-similarity joins by prefix filtering, as keyed stages that any engine can run.

Prefix filtering (Chaudhuri, Ganti and Kaushik 2006; Bayardo, Ma and Srikant's All-Pairs,
2007): put every set's shingles in one global order; two sets of Jaccard ``>= t`` share
one of the first :func:`~samecode.similarity.prefix_length` shingles of each. So a
set's *keys* are its prefix, every pair sharing a key is a candidate, and no pair that
reaches the threshold is missed, whatever the data and whatever the order, as long as it is
one order for all the sets. The stages:

* **count** (:class:`ShingleCounts`): how many sets each shingle is in, capped, in bitmaps;
  counts of parts of the data merge exactly (:meth:`ShingleCounts.merge`), so a partition
  counts its own sets and the merged counts are the same whatever the partitions.
* **order** (:class:`RarityOrder`, from the counts; :class:`HashOrder`, fixed, for a corpus
  that grows): rarest first, then by hash; shingles seen in one set only come first and can
  make no pair, so they are never keys.
* **keys** (:func:`prefix_keys`): a set's prefix under the order, shared shingles only.
* **propose** (:func:`propose_prefix_pairs`): within one key's group, the pairs whose
  *first* shared key is this one (so every pair is proposed once, in one group, wherever
  that group is computed), that are close enough in size, and whose positions leave room
  for the overlap they need (the positional filter of Xiao, Wang, Lin and Yu's PPJoin,
  2008).
* **verify** (:func:`verify`): the exact intersection of each candidate, in integers.

The order makes prefixes of shingles that few other sets have, so few pairs are proposed
(on the standard libraries of CPython 3.10-3.13: about 2,700 candidates for 990 pairs of
distinct files at 0.8). :func:`prefix_candidates` runs the stages over a list of sets in
this process.

>>> from array import array
>>> sets = [array("Q", [1, 2, 3, 4, 5]), array("Q", [1, 2, 3, 4, 6]), array("Q", [7, 8, 9])]
>>> verify(sets, prefix_candidates(sets, Fraction(3, 5)), Fraction(3, 5))
[(0, 1, 4)]
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from itertools import compress
from math import isqrt
from typing import TypeAlias

from bitarray import bitarray
from bitarray.util import sc_decode, sc_encode, zeros

from samecode._kernels import import_pays, use_numpy
from samecode._validation import check_int
from samecode.errors import SamecodeValueError
from samecode.similarity import (
    MEASURES,
    Measure,
    prefix_length,
    reaches,
    smaller_prefix_length,
)

__all__ = [
    "MEASURES",
    "HashOrder",
    "PrefixKeys",
    "RarityOrder",
    "ShingleCounts",
    "by_larger_set",
    "distinct_sets",
    "first_shared",
    "prefix_candidates",
    "prefix_keys",
    "propose_prefix_groups",
    "propose_prefix_pairs",
    "reaches",
    "verify",
]

# Counts of a shingle are told apart up to this many sets.
_LEVELS = 4
#: What a state that :class:`ShingleCounts` did not pickle is refused with.
_NOT_STATE = "not the pickled state of ShingleCounts"
_UINT32 = "I" if array("I").itemsize == 4 else "L"
_LITTLE = sys.byteorder == "little"
_ALL_ONES = (1 << 64) - 1


class ShingleCounts:
    """How many sets each shingle is in, capped at 4, counted by bucket (the top ``bits``
    bits of its hash; about a bucket per shingle), one bitmap per level.

    A bucket seen in one set only holds shingles of that set only; beyond that the counts
    are estimates (buckets are shared), which only ever changes the order, never an answer.

    :param bits: bits of a bucket number, 16 to 32 (:meth:`for_total` picks them).
    :raises ValueError: for ``bits`` out of range.

    >>> a, b = ShingleCounts(16), ShingleCounts(16)
    >>> a.add(array("Q", [1 << 63, 5])); b.add(array("Q", [1 << 63]))
    >>> merged = a.merge(b)
    >>> merged.count(1 << 63), merged.count(5), merged.count(7 << 60)
    (2, 1, 0)

    Runtime complexity: ``O(n)`` work in C per set of ``n`` shingles; :meth:`merge` is
    ``O(2**bits)`` in C. Memory: ``4 * 2**bits`` bits; pickled (to a worker process or a
    Spark task) a level is compressed (``bitarray.util.sc_encode``) where at most one
    bucket in 32 is in use, so counts of few sets travel in a few bytes a bucket in use
    rather than ``2**bits / 8`` bytes a level; a fuller level travels raw (compressed it
    would save less than it costs to compress and decompress).
    """

    def __init__(self, bits: int) -> None:
        check_int(bits, "bits")
        if not 16 <= bits <= 32:
            raise SamecodeValueError(f"bits must be from 16 to 32; got {bits}")
        self.bits = bits
        self.levels = [zeros(1 << bits, endian="big") for _ in range(_LEVELS)]

    @classmethod
    def for_total(cls, total: int) -> ShingleCounts:
        """Counts sized for ``total`` shingles in all: 16 or 24 bits (whole bytes of the
        hashes, cut out in C) up to 2**27 shingles, about a bucket per shingle beyond
        (bigger bitmaps tell more shingles apart but miss the cache on every lookup)."""
        total = check_int(total, "total")
        if total < 1 << 16:
            return cls(16)
        if total < 1 << 27:
            return cls(24)
        return cls(min(32, total.bit_length()))

    def buckets(self, shingles: array[int]) -> array[int]:
        """The bucket of every shingle (the top :attr:`bits` bits of its hash), in the
        same order."""
        width = self.bits // 8
        if self.bits % 8 or shingles.itemsize != 8:
            return array(_UINT32, map((64 - self.bits).__rrshift__, shingles))
        raw = memoryview(shingles).cast("B")
        out = bytearray(len(shingles) * (2 if width == 2 else 4))
        step = len(out) // len(shingles) if shingles else 1
        for byte in range(width):  # little-endian output, one byte lane at a time
            source = 8 - width + byte if _LITTLE else width - 1 - byte
            out[byte if _LITTLE else step - 1 - byte :: step] = raw[source::8]
        return array("H" if width == 2 else _UINT32, out)

    def add(self, shingles: array[int]) -> None:
        """Count one set (distinct shingle hashes)."""
        # Every read before any write (a bucket twice in one set counts once); level k+1
        # only ever holds buckets of level k, so each level is read for the buckets the
        # level below holds. Lists, not arrays, of indexes: bitarray reads them faster.
        buckets = self.buckets(shingles).tolist()
        levels = self.levels
        promoted = [buckets]
        for level in range(_LEVELS - 1):
            held = promoted[-1]
            held = list(compress(held, levels[level][held]))
            if not held:
                break
            promoted.append(held)
        for level, held in enumerate(promoted):
            levels[level][held] = 1

    def merge(self, other: ShingleCounts) -> ShingleCounts:
        """The counts of both parts (capped sums), as a new object.

        :raises ValueError: for counts of another size.
        """
        if other.bits != self.bits:
            raise SamecodeValueError(f"cannot merge counts of {self.bits} and {other.bits} bits")
        merged = ShingleCounts(self.bits)
        mine, theirs = self.levels, other.levels
        for level in range(_LEVELS):
            # at least level + 1 sets: i + 1 here and level - i there, for some i
            out = mine[level] | theirs[level]
            for i in range(level):
                out |= mine[i] & theirs[level - 1 - i]
            merged.levels[level] = out
        return merged

    def __getstate__(self) -> dict[str, object]:
        # A level of more than one bucket in 32 set travels raw: compressed it would be
        # over a quarter of its raw size, and compressing and decompressing it (some 30
        # ms a level of 2**24 bits) cost more than moving its 2 MiB. Either way its bits
        # go big-endian, as __setstate__ reads them.
        levels = [
            level if level.endian == "big" else bitarray(level, endian="big")
            for level in self.levels
        ]
        raw = [level.count() > len(level) >> 5 for level in levels]
        data = [lvl.tobytes() if r else sc_encode(lvl) for lvl, r in zip(levels, raw)]
        return {"bits": self.bits, "levels": data, "raw": raw}

    def __setstate__(self, state: object) -> None:
        if not isinstance(state, dict):
            raise SamecodeValueError(_NOT_STATE)
        bits, levels, raw = state.get("bits"), state.get("levels"), state.get("raw")
        if (
            not isinstance(bits, int)
            or not 16 <= bits <= 32
            or not isinstance(levels, list)
            or len(levels) != _LEVELS
            or not all(isinstance(level, bytes) for level in levels)
            or not isinstance(raw, list)
            or len(raw) != _LEVELS
            or not all(isinstance(flag, bool) for flag in raw)
        ):
            raise SamecodeValueError(_NOT_STATE)
        self.levels = [_level(data, flag, bits) for data, flag in zip(levels, raw)]
        self.bits = bits

    def count(self, shingle: int) -> int:
        """How many sets the shingle's bucket is in, up to 4."""
        bucket = shingle >> (64 - self.bits)
        return sum(level[bucket] for level in self.levels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShingleCounts):
            return NotImplemented
        return self.bits == other.bits and self.levels == other.levels

    __hash__ = None  # type: ignore[assignment]


def _level(data: bytes, raw: bool, bits: int) -> bitarray:
    """A level of ``2**bits`` big-endian bits from its pickled ``data``: its bytes
    (``raw``), or their sparse compression (:func:`~bitarray.util.sc_encode`), whose head
    (a byte: ``0x10`` for big-endian bits, plus how many bytes of length follow, then the
    length in bits, little-endian) is checked before anything is decoded.

    :raises ValueError: for data that is not such a level.
    """
    size = 1 << bits
    if raw:
        if len(data) != size >> 3:
            raise SamecodeValueError(_NOT_STATE)
        level = bitarray(endian="big")
        level.frombytes(data)
        return level
    head = data[0] if data else 0
    stated = int.from_bytes(data[1 : 1 + (head & 15)], "little")
    if head >> 4 != 1 or (head & 15) > 8 or stated != size:
        raise SamecodeValueError(_NOT_STATE)
    try:  # the head checked: a level of that size and bit order, or an error
        return sc_decode(data)
    except (ValueError, StopIteration):  # a body cut short: StopIteration on some versions
        raise SamecodeValueError(_NOT_STATE) from None


class HashOrder:
    """The global order of shingles by hash value: fixed, whatever the data (a corpus
    that grows file by file keeps its prefixes). No shingle is known to be unique.

    >>> HashOrder().arrange(array("Q", [9, 3, 7]), 2)
    (0, [3, 7])
    """

    def rank(self, shingle: int) -> int:
        """Where a shingle is in the order (smaller first): its hash."""
        return shingle

    def arrange(self, shingles: array[int], length: int) -> tuple[int, list[int]]:
        """Return ``(0, the first length shingles in hash order)``."""
        if length >= len(shingles):
            return 0, sorted(shingles)
        return 0, sorted(_smallest(list(shingles), length))[:length]


class RarityOrder:
    """The global order of shingles by their counts (:class:`ShingleCounts`), rarest
    first, then by hash; shingles seen in one set only come before all others.

    >>> counts = ShingleCounts(16)
    >>> for s in ([1 << 60, 2 << 60, 3 << 60], [2 << 60, 3 << 60], [3 << 60]):
    ...     counts.add(array("Q", s))
    >>> order = RarityOrder(counts)
    >>> order.arrange(array("Q", [3 << 60, 2 << 60, 1 << 60]), 3) == (1, [2 << 60, 3 << 60])
    True
    """

    def __init__(self, counts: ShingleCounts) -> None:
        self.counts = counts

    def rank(self, shingle: int) -> int:
        """Where a shingle is in the order (smaller first): its count, then its hash."""
        return (self.counts.count(shingle) << 64) | shingle

    def arrange(self, shingles: array[int], length: int) -> tuple[int, list[int]]:
        """Return ``(u, shared)``: how many of the set's shingles were seen in it alone
        (they come first in the order, and can make no pair), and its other shingles
        among its first ``length`` in the order, in that order.
        """
        counts = self.counts
        buckets = counts.buckets(shingles).tolist()
        seen = [counts.levels[level][buckets] for level in range(1, _LEVELS)]
        unique = len(shingles) - seen[0].count()
        room = length - unique
        prefix: list[int] = []
        for level in range(len(seen)):
            if room <= 0:
                break
            mask: bitarray = seen[level]
            if level + 1 < len(seen):
                mask = mask & ~seen[level + 1]
            members = list(compress(shingles, mask))
            if len(members) > room:
                members = _smallest(members, room)
            members.sort()
            prefix += members[:room]
            room -= min(room, len(members))
        return unique, prefix


def _smallest(values: list[int], count: int) -> list[int]:
    """At least the ``count`` smallest of ``values`` (hashes, spread evenly): every value
    below a bound chosen with some slack, in C."""
    want = count + 4 * isqrt(count) + 8
    bound = (want << 64) // max(1, len(values))
    while True:
        chosen = list(compress(values, map(bound.__gt__, values)))
        if len(chosen) >= count:
            return chosen
        bound *= 2


#: A set's keys: ``(keys, size, unique, limit, end)``: its shared shingles in the global
#: order (for Jaccard, those of its prefix; for containment, all of them), its size, how
#: many of its shingles come first as seen in it alone, how many of its first keys can
#: pair it with a set at least as large (for Jaccard, those of its
#: :func:`~samecode.similarity.smaller_prefix_length`; for containment, its prefix),
#: and the rank of its last key in the order (:data:`WHOLE` when the keys hold every
#: shingle the set can share).
PrefixKeys: TypeAlias = "tuple[array[int], int, int, int, int]"

#: The rank after every shingle's: keys that reach it hold the whole set.
WHOLE = 5 << 64


def prefix_keys(
    shingles: array[int],
    order: RarityOrder | HashOrder,
    threshold: Fraction,
    measure: Measure = "jaccard",
) -> PrefixKeys:
    """A set's keys for prefix filtering (see :data:`PrefixKeys`).

    A plain function of the set and the global order: any engine computes it per set.

    >>> prefix_keys(array("Q", [9, 3, 7, 5, 1]), HashOrder(), Fraction(3, 5))
    (array('Q', [1, 3, 5]), 5, 0, 2, 5)
    """
    size = len(shingles)
    length = prefix_length(size, threshold, measure)
    if measure == "jaccard":
        unique, keys = order.arrange(shingles, length)
        limit = max(0, smaller_prefix_length(size, threshold) - unique)
    else:
        unique, keys = order.arrange(shingles, size)
        limit = max(0, length - unique)
    whole = unique + len(keys) >= size
    last = WHOLE if whole or not keys else order.rank(keys[-1])
    return array("Q", keys), size, unique, limit, last


def first_shared(keys: Sequence[int], index: int, other: frozenset[int] | set[int]) -> bool:
    """Whether none of ``keys[:index]`` is in ``other``: with keys in one global order,
    whether ``keys[index]`` is the first key two sets share (the rule that makes exactly
    one group propose each pair).

    >>> first_shared([4, 7, 9], 2, {9, 2}), first_shared([4, 7, 9], 2, {7, 9})
    (True, False)
    """
    return other.isdisjoint(keys[:index])


def propose_prefix_pairs(
    members: Sequence[tuple[int, int]],
    table: Mapping[int, PrefixKeys],
    threshold: Fraction,
    measure: Measure = "jaccard",
    others: Sequence[tuple[int, int]] | None = None,
    keysets: dict[int, frozenset[int]] | None = None,
) -> list[tuple[int, int]]:
    """The candidate pairs of one key's group, each as ``(smaller id, larger id)``.

    :param members: ``(id, index)``: a set and where the group's key is in its keys.
    :param table: every member's :data:`PrefixKeys`, by id.
    :param others: a second block of the same group: pairs between the two blocks only
        (an oversized group is split into blocks, compared block against block).
    :param keysets: a cache of each set's keys as a frozenset, shared between groups.

    A pair is proposed when this key is the first key the two sets share
    (:func:`first_shared`), it is among the first keys of the smaller set that can pair
    it with a larger one (:data:`PrefixKeys`), their sizes allow the threshold, and the
    shingles left after the key in each leave room for the overlap needed.

    Runtime complexity: for ``g`` members, sorting them and a constant number of Python
    steps per pair within the size bounds, plus ``O(index)`` in C for the pairs that pass
    the size and position filters.
    """
    return _propose([(members, others)], table, threshold, measure, keysets)


def propose_prefix_groups(
    groups: Mapping[int, Sequence[int]],
    table: Mapping[int, PrefixKeys],
    threshold: Fraction,
    measure: Measure = "jaccard",
) -> list[tuple[int, int]]:
    """:func:`propose_prefix_pairs` for many whole groups at once: the same pairs, with
    each pair judged once however many of these groups it is in.

    :param groups: each key's group, by key, as one flat sequence ``id, index, id, index,
        ...`` (``index``: where the key is in that set's keys); a key may be missing (its
        group is elsewhere, or is handled in blocks).

    Each set, as the smaller of its pairs, walks its own keys in order and looks each up
    in ``groups``; the first group where it meets a larger set holds the first key they
    share among these groups, so that is where the pair is judged (and proposed only if
    no earlier key is shared anywhere: :func:`first_shared`).

    Runtime complexity: a dictionary look-up per key a set can pair by, ``O(g)`` in C per
    group of ``g`` met this way, and the checks of :func:`propose_prefix_pairs` once per
    pair within the size bounds. Memory: the sets met by one set at a time.
    """
    jaccard = measure == "jaccard"
    num, den = threshold.numerator, threshold.denominator
    a, b = (num, den + num) if jaccard else (num, den)
    walkers: set[int] = set()
    for flat in groups.values():
        if len(flat) > 2:
            walkers.update(flat[::2])
    found: list[tuple[int, int]] = []
    lookup = groups.get
    for x in sorted(walkers):
        keys_x, nx, ux, lx, ex = table[x]
        met = {x}
        set_x: frozenset[int] | None = None
        for ix, key in enumerate(keys_x[:lx]):
            group = lookup(key)
            if group is None or len(group) < 4:
                continue
            ids = group[::2]
            if met.issuperset(ids):
                continue  # near copies share their keys: most groups meet no one new
            for position, y in enumerate(ids):
                if y in met:
                    continue
                met.add(y)
                ny = table[y][1]
                if ny < nx or (ny == nx and y < x) or (jaccard and ny * num > nx * den):
                    continue  # x is not the smaller, or |y| > |x| / t
                iy = group[2 * position + 1]
                set_x = set_x or frozenset(keys_x)
                if _judge(ix, nx, ux, ex, keys_x, set_x, iy, table[y], a, b, jaccard):
                    found.append((x, y) if x < y else (y, x))
    return found


def _judge(
    ix: int,
    nx: int,
    ux: int,
    ex: int,
    keys_x: Sequence[int],
    set_x: frozenset[int],
    iy: int,
    entry_y: PrefixKeys,
    a: int,
    b: int,
    jaccard: bool,
) -> bool:
    """Whether the pair of ``x`` (the smaller, this key at ``ix`` of its keys, which
    ``set_x`` holds) and ``y`` (its :data:`PrefixKeys`, this key at ``iy``) is proposed
    here: this is the first key they share, and the rest of each leaves room for the
    overlap needed."""
    keys_y, ny, uy, _, ey = entry_y
    need = -(-a * (nx + ny) // b) if jaccard else -(-a * min(nx, ny) // b)
    if nx - ux - ix < need or ny - uy - iy < need:
        return False  # too few shingles after the first shared one
    # An earlier shared key would be among the first keys of both; look in y's (near
    # copies share their first keys: one look-up settles most).
    if ix and iy and (keys_y[0] in set_x or not set_x.isdisjoint(keys_y[1:iy])):
        return False
    # Shared shingles ranked up to the earlier of the two keys' ends are shared keys; any
    # other is past that end, in the suffix of the set ending there.
    rest = nx - ux - len(keys_x) if ex <= ey else ny - uy - len(keys_y)
    return len(set_x.intersection(keys_y)) + rest >= need


def _propose(
    work: Iterable[tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]] | None]],
    table: Mapping[int, PrefixKeys],
    threshold: Fraction,
    measure: Measure,
    cache: dict[int, frozenset[int]] | None,
) -> list[tuple[int, int]]:
    """The pairs of each ``(members, others)``: within ``members`` when ``others`` is
    ``None``, else between the two blocks of one group."""
    jaccard = measure == "jaccard"
    num, den = threshold.numerator, threshold.denominator
    rule = (num, den, *((num, den + num) if jaccard else (num, den)), jaccard)
    cache = {} if cache is None else cache
    found: list[tuple[int, int]] = []
    for members, others in work:
        left = sorted([(table[doc][1], doc, index) for doc, index in members])
        if others is None:
            right = left
        else:
            right = sorted([(table[d][1], d, i) for d, i in others])
            # the smaller of a pair must have the key among its first keys: members
            # without are paired with the other block's members that have it, only
            firsts = [e for e in right if e[2] < table[e[1]][3]]
        for i, entry in enumerate(left):
            first = entry[2] < table[entry[1]][3]
            if others is None:
                if not first:
                    continue  # x sorts first, so it is the smaller of its pairs: none
                later = right[i + 1 :]
            else:
                later = right if first else firsts
            _propose_for(entry, later, table, cache, rule, found)
    return found


def _propose_for(
    entry: tuple[int, int, int],
    later: list[tuple[int, int, int]],
    table: Mapping[int, PrefixKeys],
    cache: dict[int, frozenset[int]],
    rule: tuple[int, int, int, int, bool],
    found: list[tuple[int, int]],
) -> None:
    """Add to ``found`` the pairs of one member ``(size, id, index)`` with each of
    ``later`` (sorted by size) that :func:`_judge` proposes; ``rule`` is the threshold's
    ``(numerator, denominator, a, b, jaccard)``, the overlap needed being ``a / b`` of the
    sizes' sum (Jaccard) or of the smaller size (containment)."""
    num, den, a, b, jaccard = rule
    nx, x, _ = entry
    for ny, y, iy in later:
        if jaccard and (ny * num > nx * den or nx * num > ny * den):
            if ny > nx:
                break  # |y| > |x| / t, and so are the next ones
            continue  # |y| < t * |x|
        small, big = (entry, (ny, y, iy)) if (nx, x) < (ny, y) else ((ny, y, iy), entry)
        if small[2] >= table[small[1]][3]:
            continue  # the key must be among the smaller set's first keys
        keys_s, _, us, _, es = table[small[1]]
        set_s = cache.get(small[1])
        if set_s is None:
            set_s = cache[small[1]] = frozenset(keys_s)
        if _judge(small[2], small[0], us, es, keys_s, set_s, big[2], table[big[1]], a, b, jaccard):
            found.append((x, y) if x < y else (y, x))


def prefix_candidates(
    sets: Sequence[array[int]], threshold: Fraction, measure: Measure = "jaccard"
) -> list[tuple[int, int]]:
    """Return every pair ``(i, j)``, ``i < j``, of sets that may reach ``threshold``:
    the keyed stages above (count, order, keys, group, propose) run in this process over
    a list of sets, with their positions as ids.

    Every pair that does reach it is among them (see the module's description).

    :param sets: ``array("Q")`` of distinct shingle hashes.
    :param threshold: an exact fraction in ``(0, 1]``.
    :param measure: ``"jaccard"`` or ``"containment"``.

    Runtime complexity: ``O(N)`` bitmap work in C for ``N`` shingles in all, sorting the
    prefixes, and the cost of :func:`propose_prefix_pairs` in each group. Memory: the
    bitmaps (4 bits per shingle), the keys and their groups.
    """
    counts = ShingleCounts.for_total(sum(map(len, sets)))
    for shingles in sets:
        counts.add(shingles)
    order = RarityOrder(counts)
    table: dict[int, PrefixKeys] = {}
    groups: dict[int, list[int]] = {}
    for doc, shingles in enumerate(sets):
        if not shingles:
            continue
        table[doc] = keyed = prefix_keys(shingles, order, threshold, measure)
        for index, key in enumerate(keyed[0]):
            groups.setdefault(key, []).extend((doc, index))
    found = propose_prefix_groups(groups, table, threshold, measure)
    found.sort()
    return found


def _total(shingles: Sequence[int], numpy: bool) -> int:
    """The sum of a set's hashes modulo ``2**64``: the same for the same set in any order.

    With ``numpy`` (and ``samecode[fast]``), an ``array("Q")`` of
    :data:`~samecode._kernels.MIN_LENGTH` hashes or more is summed in C as 64-bit words;
    otherwise by Python's ``sum`` (some 20 times slower: each partial sum is a new int),
    with the same result.

    Runtime complexity: ``O(n)``.
    """
    if (
        numpy
        and isinstance(shingles, array)
        and shingles.typecode == "Q"
        and use_numpy(len(shingles))
    ):
        import samecode._numpy_kernels as fast

        return fast.total(shingles)
    return sum(shingles) & _ALL_ONES


def distinct_sets(sets: Sequence[array[int]]) -> tuple[list[int], list[list[int]]]:
    """Group identical sets: return one representative per distinct set (its first
    position) and, for each representative, every position holding that set.

    >>> distinct_sets([array("Q", [1]), array("Q", [2]), array("Q", [1])])
    ([0, 1], [[0, 2], [1]])

    Runtime complexity: ``O(1)`` per set of a size no other has; else ``O(n)`` for its
    sum modulo ``2**64`` (in C on numpy where it is installed, and loaded already or
    worth its import), and for each set that matches a representative's size and sum,
    ``O(n)`` in C to compare them (as arrays, then, if their orders differ, as sets).
    """
    by_size: dict[int, list[int]] = {}
    for position, shingles in enumerate(sets):
        by_size.setdefault(len(shingles), []).append(position)
    members: list[list[int]] = []
    # a scan whose workers did the reading has not imported numpy in this process
    summed = sum(len(sets[p]) for positions in by_size.values() if len(positions) > 1
                 for p in positions)  # fmt: skip
    numpy = import_pays(summed)
    for positions in by_size.values():
        if len(positions) == 1:
            members.append(positions)
            continue
        # Order does not matter: same size and sum, then compared whole (the same array,
        # as the copies of one file are, or every element of one in the other).
        by_sum: dict[int, list[list[int]]] = {}
        for position in positions:
            shingles = sets[position]
            groups = by_sum.setdefault(_total(shingles, numpy), [])
            for group in groups:
                first = sets[group[0]]
                if first == shingles or set(first).issuperset(shingles):
                    group.append(position)
                    break
            else:
                groups.append([position])
        members += [group for groups in by_sum.values() for group in groups]
    members.sort(key=lambda group: group[0])
    return [group[0] for group in members], members


def _larger_first(sizes: Mapping[int, int], pair: tuple[int, int]) -> tuple[int, int]:
    """``pair`` with its larger set first (of two of one size, the larger id)."""
    i, j = pair
    return (j, i) if (sizes[j], j) > (sizes[i], i) else (i, j)


def by_larger_set(
    sets: Sequence[array[int]] | Mapping[int, array[int]], pairs: Iterable[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The ``pairs`` (each as given) in the order :func:`verify` takes them: by their
    larger set (of two of one size, the larger id), then the other. Cut into runs for
    tasks, a larger set's hash set is built once a task that holds its pairs (once more
    at most for each cut), not once a task for pairs in any order.

    Runtime complexity: ``O(p log p)`` for ``p`` pairs.

    >>> sets = [array("Q", [1, 2]), array("Q", [3]), array("Q", [4, 5, 6])]
    >>> by_larger_set(sets, [(2, 1), (0, 1), (0, 2)])
    [(0, 1), (0, 2), (2, 1)]
    """
    given = list(pairs)
    sizes = {doc: len(sets[doc]) for pair in given for doc in pair}
    return sorted(given, key=partial(_larger_first, sizes))


def verify(
    sets: Sequence[array[int]] | Mapping[int, array[int]],
    candidates: Iterable[tuple[int, int]],
    threshold: Fraction,
    measure: Measure = "jaccard",
) -> list[tuple[int, int, int]]:
    """Return ``(i, j, shared)`` for each candidate pair that reaches ``threshold``.

    ``shared`` is the exact size of the intersection. Pairs come in the order given.
    ``sets`` is a list (ids are positions) or a mapping of id to set.

    Runtime complexity: pairs are taken by their larger set, whose hash set is built once
    for all its pairs; then ``O(|smaller|)`` in C per pair.
    """
    pairs = list(candidates)
    sizes = {doc: len(sets[doc]) for pair in pairs for doc in pair}
    larger = partial(_larger_first, sizes)
    shared_of: dict[tuple[int, int], int] = {}
    current = -1
    held: set[int] = set()
    for big, small in sorted(map(larger, pairs)):
        if big != current:
            current, held = big, set(sets[big])
        shared_of[big, small] = len(held.intersection(sets[small]))
    out: list[tuple[int, int, int]] = []
    for pair in pairs:
        shared = shared_of[larger(pair)]
        if reaches(shared, sizes[pair[0]], sizes[pair[1]], threshold, measure):
            out.append((pair[0], pair[1], shared))
    return out
