"""Permuted-block plans: which lookup tables find every fingerprint within a distance.

Split a ``size_in_bits`` fingerprint into ``b`` blocks of consecutive bits. Two fingerprints
that differ in at most ``d`` bits differ in at most ``d`` blocks, so they agree exactly on at
least ``b - d`` blocks (the pigeonhole principle behind seed 002's tables and Manku, Jain and
Das Sarma 2007). A *table* keys every fingerprint on a few of the blocks; a set of tables is
*exact* when every choice of ``d`` differing blocks leaves at least one table whose blocks are
all untouched. Then every pair within distance ``d`` shares the key of some table, and a
lookup in every table, followed by an exact distance check of what it returns, misses
nothing.

simhash-py uses every choice of ``b - d`` blocks: ``C(b, d)`` tables. Fewer tables often do:
with 8 one-byte blocks and ``d = 3``, the 8 tables of
:func:`~samecode.hamming.covering.covering_tables` replace the 56 of ``C(8, 3)``, each still
keyed on 24 bits. :func:`choose_plan` weighs tables (one probe
each) against key width (``n / 2**k`` expected chance candidates per probe) for a given
number of fingerprints, and falls back to a plain scan when no table is worth its cost.

>>> plan = choose_plan(64, 3, expected_size=100_000)
>>> len(plan.tables), plan.key_bits
(4, (16, 16, 16, 16))
>>> round(plan.expected_candidates(100_000), 1)
6.1
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations
from typing import Any, Literal

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.hamming.covering import covering_tables

__all__ = [
    "MAX_TABLES",
    "MAX_WIDTH",
    "Plan",
    "batch_key_bits",
    "choose_plan",
    "dense_table",
    "even_blocks",
    "key_of",
    "keys_of",
    "resolve_plan",
    "table_bytes",
]

#: The widest fingerprint an index takes, in bits.
MAX_WIDTH = 4096
#: The most tables a plan may have.
MAX_TABLES = 64

# Costs in microseconds of the pure-Python steps behind a lookup, per purpose: probing one
# table (in memory: taking one range of bits of a table key), checking one candidate,
# checking one fingerprint of a plain scan; for batch all-pairs work, one table pass per
# fingerprint (twice that for keys not made of whole bytes) and one chance pair.
_COSTS = {
    "memory": (0.25, 0.15, 0.07),
    "sqlite": (8.0, 1.5, 0.5),
    "batch": (0.15, 2.5, 0.5),
}
# Bytes an in-memory table spends: a head of a dense table, a key of a sparse one (the dict
# entry and two int objects), a link per row.
_DENSE_BITS = 20
_HEAD_BYTES, _SPARSE_KEY_BYTES, _LINK_BYTES = 4, 110, 4
# An in-memory index's tables may take this many times the bytes of the fingerprints.
_MEMORY_RATIO = 3
_MEMORY_FLOOR = 64 << 20
_EXTRA_BLOCKS = 6
# The widest table key the batch engine uses (see batch_key_bits).
_BATCH_KEY_BITS = 24
# A plan whose exactness would take more steps than this to check is refused.
_VERIFY_STEPS = 2_000_000
# Plan.from_json reads at most this many characters.
_JSON_LIMIT = 1 << 20


def even_blocks(size_in_bits: int, count: int) -> tuple[tuple[int, int], ...]:
    """Return ``count`` blocks of consecutive bits that tile ``size_in_bits`` bits.

    Each block is ``(low, width)``: bits ``low`` to ``low + width - 1``, counted from the
    least significant bit. Block ``i`` starts at bit ``i * size_in_bits // count``, as in
    simhash-py, so widths differ by at most one.

    :raises ValueError: unless ``1 <= count <= size_in_bits``.

    >>> even_blocks(64, 5)
    ((0, 12), (12, 13), (25, 13), (38, 13), (51, 13))
    """
    size_in_bits = check_int(size_in_bits, "size_in_bits")
    count = check_int(count, "count")
    if not 1 <= count <= size_in_bits:
        raise SamecodeValueError(
            f"count must be between 1 and size_in_bits ({size_in_bits}); got {count}"
        )
    edges = [i * size_in_bits // count for i in range(count + 1)]
    return tuple((edges[i], edges[i + 1] - edges[i]) for i in range(count))


def key_of(value: int, terms: Sequence[tuple[int, int]]) -> int:
    """The table key of ``value``: the OR of ``(value >> shift) & mask`` over ``terms``
    (one table's :attr:`Plan.key_terms`).

    >>> key_of(0xAB12, ((4, 0xFF0), (0, 0xF)))
    2738
    """
    key = 0
    for shift, mask in terms:
        key |= value >> shift & mask
    return key


def keys_of(values: Iterable[int], terms: Sequence[tuple[int, int]]) -> list[int]:
    """:func:`key_of` for many values, with the common one- and two-term keys inlined.

    >>> keys_of([0xAB12, 0xAB13], ((4, 0xFF0), (0, 0xF)))
    [2738, 2739]
    """
    if len(terms) == 1:
        ((shift, mask),) = terms
        return [v >> shift & mask for v in values]
    if len(terms) == 2:
        (shift, mask), (shift2, mask2) = terms
        return [v >> shift & mask | v >> shift2 & mask2 for v in values]
    return [key_of(v, terms) for v in values]


@dataclass(frozen=True)
class Plan:
    """The lookup tables of an index: blocks of bits, and which blocks key each table.

    :param size_in_bits: the fingerprint width.
    :param max_distance: the largest distance the tables answer exactly.
    :param blocks: ``(low, width)`` bit ranges, counted from the least significant bit.
    :param tables: for each table, the indices of the blocks it is keyed on. No tables
        means a plain scan.
    :raises TypeError: if a number is not an int (a float is never truncated).
    :raises ValueError: if the blocks do not tile the width, there are more than
        :data:`MAX_TABLES` tables, the tables are not exact for ``max_distance``, or
        checking that they are would take too long (see below).

    Runtime complexity: checking exactness is a search for ``d = max_distance`` blocks
    that touch every table: at most ``min(C(b, d), k**d)`` steps of ``O(T)`` for ``b``
    blocks and ``T`` tables of at most ``k`` blocks each. A plan for which that bound
    passes 2,000,000 is refused rather than checked (every plan :func:`choose_plan` makes
    is far below it), so building a plan, from JSON or a stored index too, is always quick.

    >>> plan = Plan(16, 1, even_blocks(16, 2), ((0,), (1,)))
    >>> plan.keys(0xAB12)
    [18, 171]
    >>> Plan(16, 1, even_blocks(16, 2), ((0,),))
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: tables are not exact for max_distance 1: differing ...
    """

    size_in_bits: int
    max_distance: int
    blocks: tuple[tuple[int, int], ...]
    tables: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        size = check_int(self.size_in_bits, "size_in_bits")
        if not 1 <= size <= MAX_WIDTH:
            raise SamecodeValueError(f"size_in_bits must be between 1 and {MAX_WIDTH}; got {size}")
        distance = check_int(self.max_distance, "max_distance")
        if not 0 <= distance <= size:
            raise SamecodeValueError(f"max_distance must be between 0 and {size}; got {distance}")
        blocks = tuple(_int_pair(block) for block in self.blocks)
        tables = tuple(
            tuple(check_int(i, "a table's block index") for i in table) for table in self.tables
        )
        if len(tables) > MAX_TABLES:
            raise SamecodeValueError(f"a plan has at most {MAX_TABLES} tables; got {len(tables)}")
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "tables", tables)
        position = 0
        for low, width in sorted(blocks):
            if low != position or width < 1:
                raise SamecodeValueError(f"blocks must tile bits 0 to {size - 1}; got {blocks}")
            position += width
        if position != size:
            raise SamecodeValueError(f"blocks must tile bits 0 to {size - 1}; got {blocks}")
        for table in tables:
            if not table or len(set(table)) != len(table):
                raise SamecodeValueError(f"each table needs distinct blocks; got {table}")
            for i in table:
                if not 0 <= i < len(blocks):
                    raise SamecodeValueError(
                        f"table {table} names block {i}; there are {len(blocks)}"
                    )
        if tables:
            missed = self._missed()
            if missed is not None:
                raise SamecodeValueError(
                    f"tables are not exact for max_distance {distance}: differing blocks "
                    f"{missed} miss every table"
                )

    def _missed(self) -> tuple[int, ...] | None:
        """Some ``max_distance`` (or fewer) blocks that touch every table, or ``None``."""
        count = min(self.max_distance, len(self.blocks))
        masks = [sum(1 << i for i in table) for table in self.tables]
        widest = max(map(len, self.tables))
        enumerate_steps = math.comb(len(self.blocks), count)
        # Each level of the search touches one more table, so it is at most T deep.
        search_steps = sum(widest**i for i in range(min(count, len(masks)) + 1))
        if min(enumerate_steps, search_steps) * len(masks) > _VERIFY_STEPS:
            raise SamecodeValueError(
                f"this plan is too large to verify ({len(self.blocks)} blocks, "
                f"{len(masks)} tables of up to {widest} blocks, max_distance "
                f"{self.max_distance}); use choose_plan"
            )
        if search_steps <= enumerate_steps:
            hit = _touching_all(masks, count, 0)
            return (
                None if hit is None else tuple(i for i in range(len(self.blocks)) if hit >> i & 1)
            )
        for differing in combinations(range(len(self.blocks)), count):
            hit = sum(1 << i for i in differing)
            if all(mask & hit for mask in masks):
                return differing
        return None

    @property
    def is_scan(self) -> bool:
        """Whether this plan has no tables and every lookup scans all fingerprints."""
        return not self.tables

    @property
    def key_bits(self) -> tuple[int, ...]:
        """The number of bits each table is keyed on."""
        return tuple(sum(self.blocks[i][1] for i in table) for table in self.tables)

    def ranges(self, table: int) -> tuple[tuple[int, int], ...]:
        """The bit ranges ``(low, width)`` of one table's key, adjacent blocks merged.

        The key of a fingerprint is these ranges' bits, highest range first.
        """
        merged: list[list[int]] = []
        for low, width in sorted((self.blocks[i] for i in self.tables[table]), reverse=True):
            if merged and low + width == merged[-1][0]:
                merged[-1][0] = low
                merged[-1][1] += width
            else:
                merged.append([low, width])
        return tuple((low, width) for low, width in merged)

    @cached_property
    def key_terms(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """For each table, the ``(shift, mask)`` terms its key is made of.

        The key of ``v`` is the OR of ``(v >> shift) & mask`` over the terms, one term per
        range of :meth:`ranges`: the same bits, highest range first, packed into
        ``key_bits`` bits. An index computes keys inline from these.

        >>> plan = Plan(16, 1, ((0, 4), (4, 4), (8, 8)), ((0, 2), (1,)))
        >>> plan.key_terms
        (((4, 4080), (0, 15)), ((4, 15),))
        >>> [f"{key:x}" for key in plan.keys(0xAB12)]
        ['ab2', '1']
        """
        out = []
        for t in range(len(self.tables)):
            terms = []
            offset = sum(width for _, width in self.ranges(t))
            for low, width in self.ranges(t):
                offset -= width
                terms.append((low - offset, ((1 << width) - 1) << offset))
            out.append(tuple(terms))
        return tuple(out)

    def keys(self, value: int) -> list[int]:
        """Return the key of ``value`` in each table (ints below ``2**key_bits``)."""
        return [key_of(value, terms) for terms in self.key_terms]

    def whole_bytes(self, table: int) -> bool:
        """Whether a table's key is made of whole bytes of the fingerprint.

        >>> plan = Plan(16, 1, even_blocks(16, 4), ((0, 1), (1, 2), (2, 3)))
        >>> plan.whole_bytes(0), plan.whole_bytes(1)
        (True, False)
        """
        return self.size_in_bits % 8 == 0 and all(
            low % 8 == 0 and width % 8 == 0 for low, width in self.ranges(table)
        )

    def check_distance(self, max_distance: int | None) -> int:
        """Return the distance a lookup asks for: ``max_distance``, or the plan's if ``None``.

        :raises TypeError: if it is not an int.
        :raises ValueError: if it is negative or beyond the plan's ``max_distance``.
        """
        if max_distance is None:
            return self.max_distance
        distance = check_int(max_distance, "max_distance")
        if not 0 <= distance <= self.max_distance:
            raise SamecodeValueError(
                f"max_distance must be between 0 and this index's max_distance "
                f"({self.max_distance}); got {distance}"
            )
        return distance

    def expected_candidates(self, size: int) -> float:
        """Expected chance candidates of one lookup among ``size`` random fingerprints.

        Each table returns the fingerprints that share the query's key; for uniformly
        random fingerprints that is ``size / 2**k`` for a ``k``-bit key. A scan plan
        checks all ``size``.
        """
        if self.is_scan:
            return float(size)
        return sum(math.ldexp(size, -k) for k in self.key_bits)

    def describe(self, size: int | None = None) -> str:
        """A one-line account of the plan, with expected candidates for ``size`` items.

        >>> print(choose_plan(64, 3, expected_size=1_000_000).describe(1_000_000))
        64-bit, d <= 3: 5 tables of 18/19-bit keys (7 blocks); 15.3 candidates per lookup of 1000000
        """
        head = f"{self.size_in_bits}-bit, d <= {self.max_distance}: "
        if self.is_scan:
            return head + "no tables; every lookup scans all fingerprints"
        bits = sorted(set(self.key_bits))
        text = (
            f"{len(self.tables)} tables of {'/'.join(map(str, bits))}-bit keys "
            f"({len(self.blocks)} blocks)"
        )
        if size is not None:
            text += f"; {self.expected_candidates(size):.1f} candidates per lookup of {size}"
        return head + text

    def to_json(self) -> str:
        """The plan as JSON (what a SQLite index records); :meth:`from_json` reads it."""
        return json.dumps(
            {
                "size_in_bits": self.size_in_bits,
                "max_distance": self.max_distance,
                "blocks": self.blocks,
                "tables": self.tables,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Plan:
        """Rebuild a plan from :meth:`to_json`, checking it again.

        :raises TypeError: if ``text`` is not ``str`` or ``bytes``.
        :raises ValueError: if the text is not such a plan (a number that is not an int
            included), is longer than a megabyte, or the plan is refused as when it is
            built.

        >>> plan = choose_plan(128, 5, expected_size=1000)
        >>> Plan.from_json(plan.to_json()) == plan
        True
        >>> Plan.from_json('{"size_in_bits": 16, "max_distance": 0, "blocks": [[0, 16.5]], '
        ...     '"tables": [[0]]}')
        Traceback (most recent call last):
        ...
        samecode.errors.SamecodeValueError: not a samecode plan (a block's width must be an ...
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise SamecodeTypeError(f"a plan's JSON must be str or bytes; got {describe(text)}")
        if len(text) > _JSON_LIMIT:
            raise SamecodeValueError(f"not a samecode plan: {len(text)} characters of JSON")
        try:
            data: Any = json.loads(text)
            if not isinstance(data, dict):
                raise SamecodeTypeError(f"a plan is a JSON object; got {describe(data)}")
            blocks, tables = data["blocks"], data["tables"]
            for name, value in (("blocks", blocks), ("tables", tables)):
                if not isinstance(value, list):
                    raise SamecodeTypeError(f"{name} must be a list; got {describe(value)}")
            return cls(
                data["size_in_bits"],
                data["max_distance"],
                tuple(blocks),
                tuple(tables),
            )
        except (KeyError, TypeError, ValueError, RecursionError) as error:
            cause = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise SamecodeValueError(f"not a samecode plan ({cause}): {text!r:.80}") from error


def _int_pair(block: object) -> tuple[int, int]:
    if not isinstance(block, (tuple, list)) or len(block) != 2:
        raise SamecodeTypeError(
            f"a block must be a (low, width) pair of ints; got {describe(block)}"
        )
    return check_int(block[0], "a block's low bit"), check_int(block[1], "a block's width")


def _touching_all(masks: list[int], room: int, chosen: int) -> int | None:
    """Extend ``chosen`` (a mask of blocks) by at most ``room`` blocks so that it touches
    every mask; return it, or ``None`` if no such set exists. A bounded search: the first
    untouched mask must be touched by one of its own blocks."""
    for mask in masks:
        if not mask & chosen:
            break
    else:
        return chosen
    if room == 0:
        return None
    while mask:
        block = mask & -mask
        found = _touching_all(masks, room - 1, chosen | block)
        if found is not None:
            return found
        mask ^= block
    return None


def _shapes(size: int, distance: int) -> list[tuple[int, int]]:
    """The ``(blocks, blocks per table)`` layouts :func:`choose_plan` weighs."""
    counts = set(range(distance + 1, min(size, distance + _EXTRA_BLOCKS) + 1))
    if size % 8 == 0 and distance < size // 8 <= 16:
        counts.add(size // 8)
    return [
        (count, per_table)
        for count in sorted(counts)
        for per_table in range(1, count - distance + 1)
        if math.comb(count, per_table) * math.comb(count, distance) <= 20_000
    ]


@lru_cache(maxsize=1024)
def _design(size: int, distance: int, count: int, per_table: int) -> Plan | None:
    """The exact plan on ``count`` even blocks with tables of ``per_table`` blocks, if it
    needs at most :data:`MAX_TABLES` tables."""
    tables = covering_tables(count, distance, per_table)
    if len(tables) > MAX_TABLES:
        return None
    return Plan(size, distance, even_blocks(size, count), tables)


def dense_table(key_bits: int, size: int) -> bool:
    """Whether an in-memory table keyed on ``key_bits`` bits for ``size`` items is dense.

    A dense table keeps its heads in an array with a cell per possible key: keys of up to
    20 bits, and at most 8 cells per expected item. Other tables keep them in a dict.

    >>> dense_table(16, 1_000_000), dense_table(16, 100), dense_table(24, 10**8)
    (True, False, False)
    """
    return key_bits <= _DENSE_BITS and 2**key_bits <= 8 * max(size, 1)


def table_bytes(key_bits: int, size: int) -> float:
    """Estimated bytes of one in-memory table keyed on ``key_bits`` holding ``size`` items.

    A table has a 4-byte link per item, and its heads: 4 bytes per possible key when it
    is dense (:func:`dense_table`), a dict entry per key in use otherwise.

    >>> table_bytes(16, 1_000_000) / 1_000_000
    4.262144
    """
    if dense_table(key_bits, size):
        return float(2**key_bits * _HEAD_BYTES + size * _LINK_BYTES)
    return float(min(size, 2**key_bits) * _SPARSE_KEY_BYTES + size * _LINK_BYTES)


def _check_shape(size_in_bits: int, max_distance: int, expected_size: int) -> tuple[int, int, int]:
    size = check_int(size_in_bits, "size_in_bits")
    if not 1 <= size <= MAX_WIDTH:
        raise SamecodeValueError(f"size_in_bits must be between 1 and {MAX_WIDTH}; got {size}")
    distance = check_int(max_distance, "max_distance")
    if not 0 <= distance <= size:
        raise SamecodeValueError(
            f"max_distance must be between 0 and size_in_bits ({size}); got {distance}"
        )
    n = check_int(expected_size, "expected_size")
    if n < 0:
        raise SamecodeValueError(f"expected_size must be >= 0; got {n}")
    return size, distance, n


def resolve_plan(
    size_in_bits: int,
    max_distance: int,
    expected_size: int,
    plan: Plan | None,
    purpose: Literal["memory", "sqlite", "batch"],
) -> Plan:
    """Check an index's parameters; return ``plan``, or the one :func:`choose_plan` picks.

    :raises TypeError: for a parameter of the wrong type, or a ``plan`` that is not a Plan.
    :raises ValueError: as :func:`choose_plan`, or for a plan of another width or distance.

    >>> resolve_plan(64, 3, 1000, None, "memory") == choose_plan(64, 3, 1000)
    True
    """
    size, distance, n = _check_shape(size_in_bits, max_distance, expected_size)
    if plan is None:
        return choose_plan(size, distance, n, purpose=purpose)
    if not isinstance(plan, Plan):
        raise SamecodeTypeError(f"plan must be a Plan or None; got {describe(plan)}")
    if (plan.size_in_bits, plan.max_distance) != (size, distance):
        raise SamecodeValueError(
            f"plan is for {plan.size_in_bits}-bit fingerprints within "
            f"{plan.max_distance}; this index is {size}-bit within {distance}"
        )
    return plan


def _probes(plan: Plan, purpose: str) -> int:
    """The units of probing work in ``plan``'s tables: for an in-memory index, the ranges
    of bits of every key; for batch work, a pass per table, two for keys not made of whole
    bytes (the batch engine reads whole bytes in C, other bits in Python)."""
    if purpose == "batch":
        return sum(1 if plan.whole_bytes(t) else 2 for t in range(len(plan.tables)))
    return sum(map(len, plan.key_terms))


def batch_key_bits(size: int) -> int:
    """The most key bits the batch engine uses for ``size`` fingerprints.

    Its bitmaps have a bit per possible key, so it cuts keys to 24 bits (2 MiB), and to 4
    bits more than ``size`` needs (at least 16) for fewer fingerprints: a smaller bitmap is
    faster to fill, and the extra chance candidates are few.

    >>> batch_key_bits(1000), batch_key_bits(20_000), batch_key_bits(10**7)
    (16, 19, 24)
    """
    return min(_BATCH_KEY_BITS, max(16, size.bit_length() + 4))


def _chance(plan: Plan, n: int, purpose: str) -> float:
    """Expected chance candidates per lookup among ``n``, with batch keys cut as the batch
    engine cuts them."""
    if purpose == "batch":
        cut = batch_key_bits(n)
        return sum(math.ldexp(n, -min(k, cut)) for k in plan.key_bits)
    return plan.expected_candidates(n)


def _cost(purpose: str, n: int, tables: int, probes: int, chance: float) -> float:
    """The cost :func:`choose_plan` weighs: ``tables`` tables with ``probes`` units of
    probing work (:func:`_probes`), and ``chance`` chance candidates per lookup, among
    ``n``."""
    probe, candidate, _ = _COSTS[purpose]
    if purpose == "batch":
        return probes * n * probe + n * chance / 2 * candidate
    if purpose == "sqlite":
        return tables * probe + chance * candidate
    return 2 * probe * probes + chance * candidate


def _cost_bound(
    purpose: str, n: int, size: int, distance: int, count: int, per_table: int
) -> float:
    """A lower bound of :func:`_cost` for a layout, found without searching its tables.

    Each table of ``k`` of the ``b`` blocks misses only the ``C(b - k, d)`` sets of
    differing blocks within the other blocks, so there are at least ``C(b, d) / C(b - k,
    d)`` tables; each costs at least one unit of probing and has at most ``k * ceil(size /
    b)`` key bits.
    """
    fewest = -(-math.comb(count, distance) // math.comb(count - per_table, distance))
    widest = per_table * -(-size // count)
    if purpose == "batch":
        widest = min(widest, batch_key_bits(n))
    return _cost(purpose, n, fewest, fewest, fewest * math.ldexp(n, -widest))


def choose_plan(
    size_in_bits: int,
    max_distance: int,
    expected_size: int = 1_000_000,
    *,
    purpose: Literal["memory", "sqlite", "batch"] = "memory",
) -> Plan:
    """Choose the cheapest exact plan for ``expected_size`` fingerprints.

    Candidates are ``b`` even blocks for ``b`` from ``max_distance + 1`` to ``max_distance +
    6`` (and one block per byte), each with the tables of
    :func:`~samecode.hamming.covering.covering_tables` for every key width, and a plain
    scan. For ``purpose="sqlite"`` the cost of a lookup is one probe per table plus the
    expected chance candidates (:meth:`Plan.expected_candidates`). An in-memory index
    (``purpose="memory"``) computes a table's key once when a fingerprint is added and once
    per lookup, at a cost per range of bits (:meth:`Plan.ranges`), plus the chance
    candidates; its tables must also fit in three times the bytes of the fingerprints (or 64
    MiB, whichever is more), as estimated by :func:`table_bytes`. For ``purpose="batch"``
    (all pairs at once) the cost is one pass over the fingerprints per table plus the
    expected chance pairs.

    :raises ValueError: for a width outside 1 to :data:`MAX_WIDTH`, a distance outside 0
        to the width, a negative ``expected_size`` or an unknown ``purpose``.

    >>> choose_plan(64, 3, expected_size=1_000_000, purpose="batch").key_bits
    (24, 24, 24, 24, 24, 24, 24, 24)
    >>> choose_plan(64, 30, expected_size=1000).is_scan
    True
    """
    size, distance, n = _check_shape(size_in_bits, max_distance, expected_size)
    if purpose not in _COSTS:
        raise SamecodeValueError(f"purpose must be one of {sorted(_COSTS)}; got {purpose!r}")
    _, candidate, scan_one = _COSTS[purpose]
    n = max(n, 1)
    budget = max(_MEMORY_RATIO * n * math.ceil(size / 8), _MEMORY_FLOOR)
    best = Plan(size, distance, even_blocks(size, 1), ())
    best_cost = n * scan_one if purpose != "batch" else n * n / 2 * candidate

    bounds = sorted(
        (_cost_bound(purpose, n, size, distance, count, per_table), count, per_table)
        for count, per_table in _shapes(size, distance)
    )
    found: list[tuple[float, int, int, Plan]] = []
    # Finding a layout's tables is a search, so layouts are tried cheapest bound first.
    for bound, count, per_table in bounds:
        if bound > (found[0][0] * 1.001 if found else best_cost * 0.999):
            break
        plan = _design(size, distance, count, per_table)
        if plan is None:
            continue
        if purpose == "memory" and sum(table_bytes(k, n) for k in plan.key_bits) > budget:
            continue
        chance = _chance(plan, n, purpose)
        plan_cost = _cost(purpose, n, len(plan.tables), _probes(plan, purpose), chance)
        found.append((plan_cost, count, per_table, plan))
        found.sort(key=lambda f: f[0])
    # Of layouts within 0.1 % of the cheapest, the one with the fewest blocks, then the
    # fewest blocks per table; a plain scan unless some layout is cheaper by 0.1 %.
    if found and found[0][0] < best_cost * 0.999:
        close = [f for f in found if f[0] <= found[0][0] * 1.001]
        best = min(close, key=lambda f: (f[1], f[2]))[3]
    return best
