"""Covering designs: the fewest tables of blocks such that any few blocks miss one.

A plan of permuted-block tables (:mod:`samecode.hamming.plan`) is exact when every choice
of ``d`` differing blocks leaves some table whose blocks are all untouched.
:func:`covering_tables` finds such tables, far fewer than simhash-py's ``C(b, d)``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from samecode._validation import check_int
from samecode.errors import SamecodeValueError

__all__ = ["covering_tables"]


@lru_cache(maxsize=256)
def covering_tables(blocks: int, distance: int, per_table: int) -> tuple[tuple[int, ...], ...]:
    """Return tables of ``per_table`` blocks each such that any ``distance`` blocks miss one.

    Every set of ``distance`` blocks out of ``blocks`` is disjoint from at least one of the
    returned tables, which is what makes a plan exact. The tables come from a greedy cover
    (each new table avoids the most sets not yet avoided), improved by a bounded exact
    search for a smaller cover, so the answer is deterministic and often far smaller than
    simhash-py's ``C(blocks, distance)`` tables of ``blocks - distance`` blocks.

    :raises ValueError: unless ``0 <= distance < blocks`` and
        ``1 <= per_table <= blocks - distance``.

    Runtime complexity: ``O(C(blocks, per_table) * C(blocks, distance))`` per table of the
    greedy cover, plus at most 20,000 steps of search; meant for ``blocks`` up to about 16.

    >>> covering_tables(8, 3, 3)  # 8 tables where C(8, 3) would be 56
    ((2, 3, 4), (2, 3, 5), (2, 4, 5), (3, 4, 5), (0, 1, 6), (0, 1, 7), (0, 6, 7), (1, 6, 7))
    >>> len(covering_tables(5, 3, 2))  # every pair: simhash-py's C(5, 3) tables
    10
    """
    for name, value in (("blocks", blocks), ("distance", distance), ("per_table", per_table)):
        check_int(value, name)
    if not 0 <= distance < blocks:
        raise SamecodeValueError(
            f"distance must be between 0 and blocks - 1 ({blocks - 1}); got {distance}"
        )
    if not 1 <= per_table <= blocks - distance:
        raise SamecodeValueError(
            f"per_table must be between 1 and blocks - distance ({blocks - distance}); "
            f"got {per_table}"
        )
    masks = [sum(1 << i for i in c) for c in combinations(range(blocks), per_table)]
    targets = [sum(1 << i for i in c) for c in combinations(range(blocks), distance)]
    chosen = _greedy_cover(masks, targets)
    smaller = _search_cover(masks, targets, len(chosen) - 1)
    if smaller is not None:
        chosen = smaller
    return tuple(tuple(i for i in range(blocks) if m >> i & 1) for m in sorted(chosen))


def _greedy_cover(masks: list[int], targets: list[int]) -> list[int]:
    pending = set(targets)
    chosen: list[int] = []
    while pending:
        best = max(masks, key=lambda m: sum(not m & d for d in pending))
        chosen.append(best)
        pending = {d for d in pending if d & best}
    return chosen


def _search_cover(masks: list[int], targets: list[int], limit: int) -> list[int] | None:
    """Find a cover of at most ``limit`` masks by depth-first search, or give up."""
    avoids = {d: [m for m in masks if not m & d] for d in targets}
    most = max(sum(not m & d for d in targets) for m in masks)
    budget = [20_000]
    found: list[int] | None = None

    def search(pending: list[int], chosen: list[int], room: int) -> bool:
        nonlocal found
        if not pending:
            found = list(chosen)
            return True
        budget[0] -= 1
        if room == 0 or budget[0] < 0 or len(pending) > room * most:
            return False
        for m in avoids[pending[0]]:
            chosen.append(m)
            if search([d for d in pending if d & m], chosen, room - 1):
                return True
            chosen.pop()
        return False

    best: list[int] | None = None
    while limit >= 1 and search(list(targets), [], limit):
        best = found
        limit = len(best) - 1 if best is not None else 0
    return best
