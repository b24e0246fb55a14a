"""All pairs within a Hamming distance, in batch: the engine behind every ``find_all``.

The engine takes *distinct* values (callers group identical fingerprints first, which costs
``O(n)`` and turns a million copies of one value into one value) and returns every pair of
positions whose values differ in at most ``d`` bits.

For each table of a :class:`~samecode.hamming.plan.Plan` every value gets its table key, in an
``array``; only values whose key is shared can be near each other through that table.
Finding the shared keys is done in C: the keys are made into lists 1024 at a time, and a
bitmap of the keys seen so far (a ``bitarray`` indexed by a list of keys) tells which keys
of a chunk appeared in an earlier chunk; a set of the chunk tells whether the chunk repeats
a key itself. A second pass marks every row that has a shared key. Only those rows reach
Python: they are ordered by key, and the pairs under one key are checked exactly, in C
(``xor`` and ``int.bit_count`` over ``map``), one offset at a time, so that memory holds
one offset's pairs, never a whole group's.

Tables assume bits that look random. Real data is not always so, and the engine adapts to
the data it is given:

* bits that are equal in every value can never differ: they are dropped, and the tables
  are chosen for the bits that vary (``d`` of 64 bits over values that differ only in
  their low 24 bits become ``d`` of 24);
* when some bits are far from even (judged on a sample), the bits are permuted so that
  every block of the plan holds its share of the information;
* a group of more than ``_BIG_GROUP`` values under one table key is solved on its own, by
  the same engine: its values agree on the key's bits, so those are dropped and the group
  is keyed on the rest, and so on, with fewer bits at every level.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations, compress, count, islice, pairwise, repeat
from operator import add, eq, mul, ne, or_, xor

from bitarray import bitarray
from bitarray.util import ones, zeros

from samecode._columns import column_ones
from samecode.hamming.plan import Plan, batch_key_bits, choose_plan, keys_of

__all__ = ["UINT32", "distinct_groups", "near_pairs"]

_CHUNK = 1024
# For each k, a bytes.translate table that keeps the low k bits of a byte.
_LOW_BITS = [bytes(b & ((1 << k) - 1) for b in range(256)) for k in range(8)]
#: An array type of 4-byte unsigned cells (keys of up to 24 bits here, row links in the index).
UINT32 = "I" if array("I").itemsize == 4 else "L"
_SMALL = 4096
# At most this many values: compare every pair.
_BRUTE = 64
# Groups of values under one table key: up to _SMALL_GROUP, checked with all the others
# offset by offset; up to _BIG_GROUP, row by row; beyond, solved on their own.
_SMALL_GROUP = 16
_BIG_GROUP = 512
# Bits are judged on a sample of about this many values; a bit that is 1 (or 0) in fewer
# than one value in _SKEWED of the sample calls for permuting the bits.
_SAMPLE = 4096
_SKEWED = 16


def near_pairs(values: Sequence[int], size_in_bits: int, max_distance: int) -> set[tuple[int, int]]:
    """Return every pair ``(i, j)``, ``i < j``, of positions whose values differ in at least
    1 and at most ``max_distance`` bits; a value that repeats takes part at its first
    position only.

    ``values`` must be ints below ``2**size_in_bits`` (a list, or for 64 bits an
    ``array("Q")``): the callers check them.

    Runtime complexity: for values whose bits look random, ``O(T * n)`` work in C for the
    ``T`` tables of the plan, plus a Python step for each chance candidate (about ``T *
    n**2 / 2**(k+1)`` for ``k``-bit keys) and each pair found. Repeated values cost
    ``O(n)`` (copies share every key, so they are found among the first table's
    candidates and left out of the others), constant bits nothing, skewed bits an ``O(n *
    size_in_bits / 8)`` permutation in C, and a group of ``g`` values under one key
    ``O(g)`` per level of its own solving instead of ``O(g**2)``. Memory is ``O(T * n)``
    plus the pairs found.
    """
    n = len(values)
    found: set[int] = set()
    _solve(values, size_in_bits, max_distance, _Ids(range(n), n), [], found)
    return set(map(divmod, found, repeat(n)))


class _Ids:
    """Where a (sub)problem's pairs go: its values' positions in the whole problem
    (increasing), and the whole problem's size; a pair ``(i, j)`` is kept as the int
    ``i * total + j``, which is cheaper to hash than a tuple."""

    __slots__ = ("of", "total")

    def __init__(self, of: Sequence[int], total: int) -> None:
        self.of = of
        self.total = total

    def codes(self, first: Iterable[int], second: Iterable[int]) -> Iterator[int]:
        """The codes of the pairs of local positions ``(first[k], second[k])``."""
        of = self.of.__getitem__
        return map(add, map(mul, map(of, first), repeat(self.total)), map(of, second))

    def sub(self, positions: list[int]) -> _Ids:
        """The ids of a subproblem made of some of these positions, in increasing order."""
        return _Ids(list(map(self.of.__getitem__, positions)), self.total)


def _solve(
    values: Sequence[int],
    size: int,
    distance: int,
    ids: _Ids,
    earlier: list[array[int]],
    found: set[int],
) -> None:
    """Add the codes of every close pair of ``values`` to ``found``.

    At the top level (no ``earlier`` keys) values may repeat, and each takes part at its
    first position only; below it they are distinct. ``earlier`` holds the keys of the
    values in the tables of the enclosing problems that came before this one: a pair that
    shares one of them is found there, so it is skipped here (each pair is then added
    once, at the first table it shares, which saves work; the set would drop the repeats
    anyway).
    """
    n = len(values)
    top = not earlier
    if n <= _BRUTE:
        if top:
            values, ids = _first_copies(values, ids)
        _all_close(values, distance, ids, found, earlier)
        return
    nbytes = -(-size // 8)
    sample = values[:: max(1, n // _SAMPLE)]
    if _skewed(column_ones(_packed(sample, nbytes), nbytes, 8 * nbytes), len(sample)):
        if top:
            values, ids = _first_copies(values, ids)
            n = len(values)
        values, size = _rebalanced(values, nbytes, distance)
        nbytes = -(-size // 8)
        if size <= distance:  # every pair differs in at most the varying bits
            pairs = list(combinations(range(n), 2))
            found.update(ids.codes([i for i, _ in pairs], [j for _, j in pairs]))
            return
        top = False
    plan = _batch_plan(size, distance, n.bit_length())
    if plan.is_scan:
        if top:
            values, ids = _first_copies(values, ids)
        _all_close(values, distance, ids, found, earlier)
        return
    columns = _byte_columns(values, nbytes) if size % 8 == 0 else None
    earlier = list(earlier)
    live: bitarray | None = None
    solved = _Solved(n)
    for table in range(len(plan.tables)):
        table_keys, bits = _table_keys(values, plan, table, columns)
        rows = _candidates(table_keys, bits)
        if top and table == 0:
            # Copies share every key, so the first table's candidates hold every copy:
            # each value keeps its first row, and the others leave every table.
            repeats = _repeats(rows, list(map(values.__getitem__, rows)))
            if repeats:
                live = ones(n)
                live[repeats] = 0
        if live is not None:
            rows = list(compress(rows, live[rows]))
        keys = list(map(table_keys.__getitem__, rows))
        _close_pairs(keys, rows, values, size, distance, ids, earlier, solved, found)
        earlier.append(table_keys)


class _Solved:
    """The groups of one problem already solved whole: a group all of whose rows were last
    solved together lies inside that solved group, so its pairs are known."""

    __slots__ = ("count", "label")

    def __init__(self, n: int) -> None:
        self.label = array(UINT32, [0]) * n
        self.count = 0

    def covers(self, rows: list[int]) -> bool:
        labels = set(map(self.label.__getitem__, rows))
        return len(labels) == 1 and 0 not in labels

    def add(self, rows: list[int]) -> None:
        self.count += 1
        for row in rows:
            self.label[row] = self.count


def _mostly_close(values: list[int], distance: int) -> bool:
    """Whether at least a quarter of 64 spread pairs of ``values`` are close (a cluster:
    its answer is quadratic, so comparing every pair is as good as anything)."""
    g = len(values)
    firsts = [k * g // 64 for k in range(64)]
    seconds = [(p + g // 2) % g for p in firsts]
    close = sum(
        map(
            distance.__ge__,
            map(
                int.bit_count,
                map(xor, map(values.__getitem__, firsts), map(values.__getitem__, seconds)),
            ),
        )
    )
    return close >= 16


def _first_copies(values: Sequence[int], ids: _Ids) -> tuple[Sequence[int], _Ids]:
    """The values without repeats (each at its first position), and their ids."""
    firsts = list(dict(zip(reversed(values), range(len(values) - 1, -1, -1))).values())
    if len(firsts) == len(values):
        return values, ids
    firsts.sort()
    return list(map(values.__getitem__, firsts)), ids.sub(firsts)


def _repeats(rows: list[int], held: list[int]) -> list[int]:
    """The rows (in increasing order, holding ``held``) whose value is at an earlier row."""
    if len(set(held)) == len(held):
        return []
    repeated = {value for value, times in Counter(held).items() if times > 1}
    first: dict[int, int] = {}
    return [
        row
        for row, value in zip(rows, held)
        if value in repeated and first.setdefault(value, row) != row
    ]


@lru_cache(maxsize=512)
def _batch_plan(size: int, distance: int, magnitude: int) -> Plan:
    """The batch plan for about ``2**magnitude`` values (plans change slowly with ``n``)."""
    return choose_plan(size, distance, 1 << magnitude, purpose="batch")


def _all_close(
    values: Sequence[int],
    distance: int,
    ids: _Ids,
    found: set[int],
    earlier: Sequence[array[int]] = (),
) -> None:
    """Every close pair, comparing each value with those after it (``O(n)`` memory);
    pairs that share a key of ``earlier`` are left out (see :func:`_solve`)."""
    for i in range(len(values) - 1):
        rest = values[i + 1 :]
        close = list(map(distance.__ge__, map(int.bit_count, map(xor, rest, repeat(values[i])))))
        if True in close:
            partners = list(compress(count(i + 1), close))
            for keys in earlier:
                mine = keys[i]
                new = list(map(mine.__ne__, map(keys.__getitem__, partners)))
                if False in new:
                    partners = list(compress(partners, new))
            found.update(ids.codes(repeat(i, len(partners)), partners))


# -- the bits the data actually has ----------------------------------------------------


def _packed(values: Sequence[int], nbytes: int) -> bytes:
    """The values as ``nbytes``-byte big-endian records, end to end."""
    if nbytes == 8:
        packed = array("Q", values)
        if sys.byteorder == "little":
            packed.byteswap()
        return packed.tobytes()
    return b"".join([v.to_bytes(nbytes, "big") for v in values])


def _skewed(ones: list[int], total: int) -> bool:
    """Whether some column's ones (or zeros) are rarer than one in ``_SKEWED``."""
    rare = total / _SKEWED
    return any(c < rare or total - c < rare for c in ones)


def _entropy(ones: int, total: int) -> float:
    p = ones / total
    if p <= 0 or p >= 1:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def _rebalanced(values: Sequence[int], nbytes: int, distance: int) -> tuple[list[int], int]:
    """The values with their constant bits dropped and the rest permuted so that every
    block of the plan for the bits left holds an even share of the information; and the
    number of bits left. Distances between the values do not change.
    """
    n = len(values)
    width = 8 * nbytes
    ones = column_ones(_packed(values, nbytes), nbytes, width)
    # Column c is bit (width - 1 - c) of a value.
    varying = [(width - 1 - c, _entropy(k, n)) for c, k in enumerate(ones) if 0 < k < n]
    size = len(varying)
    if size <= distance:
        return list(values), size
    plan = _batch_plan(size, distance, n.bit_length())
    blocks = sorted(plan.blocks)
    room = [w for _, w in blocks]
    held = [0.0] * len(blocks)
    filled = [0] * len(blocks)
    target: dict[int, int] = {}
    for bit, information in sorted(varying, key=lambda b: (-b[1], b[0])):
        block = min((i for i in range(len(blocks)) if filled[i] < room[i]), key=held.__getitem__)
        target[bit] = blocks[block][0] + filled[block]
        filled[block] += 1
        held[block] += information
    return _permuted(values, nbytes, target), size


def _permuted(values: Sequence[int], nbytes: int, target: dict[int, int]) -> list[int]:
    """Each value with bit ``b`` moved to bit ``target[b]`` (bits not in ``target``
    dropped), by one table lookup per byte, in C."""
    columns = _byte_columns(values, nbytes)
    moved: list[int] | None = None
    for j, column in enumerate(columns):
        bits = [(t, target[8 * j + t]) for t in range(8) if 8 * j + t in target]
        if not bits:
            continue
        table = [sum(1 << to for t, to in bits if b >> t & 1) for b in range(256)]
        part = map(table.__getitem__, column)
        moved = list(part) if moved is None else list(map(or_, moved, part))
    return moved if moved is not None else [0] * len(values)


def _byte_columns(values: Sequence[int], nbytes: int) -> list[bytes]:
    """Byte ``j`` of every value (bits ``8j`` to ``8j + 7``), one bytes object per ``j``."""
    if nbytes == 8 and sys.byteorder == "little":
        raw = values.tobytes() if isinstance(values, array) else array("Q", values).tobytes()
    else:
        raw = b"".join([v.to_bytes(nbytes, "little") for v in values])
    return [raw[j::nbytes] for j in range(nbytes)]


# -- tables ----------------------------------------------------------------------------


def _table_keys(
    values: Sequence[int], plan: Plan, table: int, columns: list[bytes] | None
) -> tuple[array[int], int]:
    """Return each value's key in one table (narrowed to :func:`batch_key_bits`), and its width.

    Narrowing keeps a subset of the key's bits, so equal keys stay equal: it can only add
    candidates, which the exact check then drops.
    """
    ranges = plan.ranges(table)
    if columns is not None and plan.whole_bytes(table):
        byte_list = [low // 8 + i for low, width in ranges for i in range(width // 8)]
        bits = min(8 * len(byte_list), batch_key_bits(len(values)))
        cell = array(UINT32).itemsize
        packed = bytearray(cell * len(values))
        for position, j in enumerate(byte_list[: -(-bits // 8)]):
            kept = min(bits - 8 * position, 8)
            column = columns[j] if kept == 8 else columns[j].translate(_LOW_BITS[kept])
            packed[position::cell] = column
        packed_keys = array(UINT32, packed)
        if sys.byteorder != "little":
            packed_keys.byteswap()
        return packed_keys, bits
    bits = min(sum(width for _, width in ranges), batch_key_bits(len(values)))
    cut = [(shift, mask & ((1 << bits) - 1)) for shift, mask in plan.key_terms[table]]
    return array(UINT32, keys_of(values, [term for term in cut if term[1]])), bits


def _chunks(keys: array[int]) -> Iterator[list[int]]:
    """The keys as lists of up to ``_CHUNK``, made one at a time (a million live ints at
    once would cost memory traffic on every pass)."""
    for start in range(0, len(keys), _CHUNK):
        yield keys[start : start + _CHUNK].tolist()


def _shared_keys(keys: array[int], bits: int) -> bitarray:
    """Return a bitmap of the keys that occur more than once in ``keys``."""
    shared = zeros(1 << bits)
    if len(keys) <= _SMALL:
        shared[[key for key, times in Counter(keys).items() if times > 1]] = 1
        return shared
    seen = zeros(1 << bits)
    hits = bitarray()  # per row: its key is in an earlier chunk
    repeated: list[int] = []  # keys repeated within one chunk
    for chunk in _chunks(keys):
        hits += seen[chunk]
        seen[chunk] = 1
        if len(set(chunk)) < len(chunk):
            repeated += [key for key, times in Counter(chunk).items() if times > 1]
    shared[list(map(keys.__getitem__, hits.search(1)))] = 1
    shared[repeated] = 1
    return shared


def _candidates(keys: array[int], bits: int) -> list[int]:
    """Return the rows whose key is shared, in order."""
    shared = _shared_keys(keys, bits)
    marked = bitarray()
    for chunk in _chunks(keys):
        marked += shared[chunk]
    return list(marked.search(1))


def _close_pairs(
    keys: list[int],
    rows: list[int],
    values: Sequence[int],
    size: int,
    distance: int,
    ids: _Ids,
    earlier: list[array[int]],
    solved: _Solved,
    found: set[int],
) -> None:
    """Add to ``found`` the close pairs among ``rows`` with equal ``keys``.

    Groups of more than ``_BIG_GROUP`` rows are solved on their own (:func:`_solve` on
    their values) unless they lie inside a group already solved (``solved``) or are
    clusters (:func:`_mostly_close`, compared pair by pair); groups of more than
    ``_SMALL_GROUP`` row by row (:func:`_all_close`); and the others together, offset by
    offset (:func:`_pairs_by_offset`).
    """
    order = sorted(range(len(keys)), key=keys.__getitem__)
    keys = list(map(keys.__getitem__, order))
    rows = list(map(rows.__getitem__, order))  # increasing within each group
    starts = [0, *compress(count(1), map(ne, keys, islice(keys, 1, None))), len(keys)]
    large = [(a, b) for a, b in pairwise(starts) if b - a > _SMALL_GROUP]
    for a, b in large:
        group = rows[a:b]
        group_ids = ids.sub(group)
        group_earlier = [array(UINT32, map(keys.__getitem__, group)) for keys in earlier]
        group_values = list(map(values.__getitem__, group))
        if b - a <= _BIG_GROUP:
            _all_close(group_values, distance, group_ids, found, group_earlier)
        elif not solved.covers(group):
            if _mostly_close(group_values, distance):
                _all_close(group_values, distance, group_ids, found, group_earlier)
            else:
                _solve(group_values, size, distance, group_ids, group_earlier, found)
            solved.add(group)
    if large:
        keep = bitarray(len(keys))
        keep.setall(1)
        for a, b in large:
            keep[a:b] = 0
        keys, rows = list(compress(keys, keep)), list(compress(rows, keep))
    _pairs_by_offset(keys, rows, values, distance, ids, earlier, found)


def _pairs_by_offset(
    keys: list[int],
    rows: list[int],
    values: Sequence[int],
    distance: int,
    ids: _Ids,
    earlier: list[array[int]],
    found: set[int],
) -> None:
    """Add the close pairs under equal keys (``keys`` sorted, ``rows`` increasing within
    each key) to ``found``.

    Positions ``i`` and ``i + gap`` share a key when ``keys[i] == keys[i + gap]``; those
    are a subset of the positions that did so for ``gap - 1``, so after the first gap (a
    pass over all the keys) only a few positions are left to check. Each gap's pairs are
    checked and dropped before the next: every step is C work over at most ``len(keys)``
    items.
    """
    held = list(map(values.__getitem__, rows))
    ahead = [*keys, -1]  # -1 is no key: it ends the last group
    at = list(compress(range(len(keys)), map(eq, keys, islice(ahead, 1, None))))
    gap = 1
    while at:
        partners = list(map(add, at, repeat(gap)))
        left = map(held.__getitem__, at)
        right = map(held.__getitem__, partners)
        close = list(map(distance.__ge__, map(int.bit_count, map(xor, left, right))))
        if True in close:
            first = list(map(rows.__getitem__, compress(at, close)))
            second = list(map(rows.__getitem__, compress(partners, close)))
            for keys_before in earlier:
                new = list(
                    map(
                        ne,
                        map(keys_before.__getitem__, first),
                        map(keys_before.__getitem__, second),
                    )
                )
                if False in new:
                    first, second = list(compress(first, new)), list(compress(second, new))
            found.update(ids.codes(first, second))
        gap += 1
        same = map(
            eq, map(ahead.__getitem__, at), map(ahead.__getitem__, map(add, partners, repeat(1)))
        )
        at = list(compress(at, same))


def distinct_groups(values: Sequence[int]) -> tuple[list[int], list[list[int]] | None]:
    """Return the distinct values (in order of first appearance) and, if some value
    repeats, for each distinct value the positions that hold it (else ``None``).

    Runtime complexity: ``O(n)``; without repeats, work in C only.
    """
    distinct = list(dict.fromkeys(values))
    if len(distinct) == len(values):
        return distinct, None
    ids = dict(zip(distinct, count()))
    groups: list[list[int]] = [[] for _ in distinct]
    for position, value in enumerate(values):
        groups[ids[value]].append(position)
    return distinct, groups
