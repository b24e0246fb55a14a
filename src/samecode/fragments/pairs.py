"""File pairs: how alike two files are, by the regions they share.

Every two files with at least one region make one :class:`FilePair` (a file's regions
with itself, text it repeats, make a pair of the file with itself). Of files ``a`` and
``b`` holding ``tokens_a`` and ``tokens_b`` tokens, ``covered_a`` is the number of
tokens of ``a`` inside the pair's regions, the union of their token ranges in ``a``
(``a_first`` to ``a_stop``: a token that two regions hold counts once), ``covered_b``
likewise (for a file with itself, ``a`` is the side of the later copies, ``b`` of the
earlier ones), and:

* ``a_share`` is ``covered_a / tokens_a``, ``b_share`` is ``covered_b / tokens_b``;
* ``similarity`` is ``(covered_a + covered_b) / (tokens_a + tokens_b)``: the share of
  both files' tokens inside shared regions, from 0 to 1, 1 when each file is covered
  whole;
* ``tokens`` is the tokens the regions matched (the sum of their
  :attr:`~samecode.fragments.regions.Region.tokens`, gaps left out) and ``regions`` how
  many regions there are.

The pairs are sorted by similarity, the highest first, then by ``a`` and ``b``. The
spans a region covers include its gaps (an edited line between two matches), so a pair's
``a_share`` may be above the sum of its regions' ``a_share``, which count matched
tokens only.

>>> from samecode.fragments.regions import Region
>>> def region(a, b, a_range, b_range):
...     tokens = a_range[1] - a_range[0]
...     return Region(a, b, 1, 1, 1, 1, tokens, 0, 0, *a_range, *b_range, ())
>>> found = file_pairs([region("x.py", "y.py", (0, 60), (10, 70)),
...                     region("x.py", "y.py", (40, 100), (100, 160))],
...                    {"x.py": 100, "y.py": 200})
>>> found
[FilePair(a='x.py', b='y.py', similarity=0.7333333333333333, a_share=1.0, b_share=0.6, \
tokens=120, regions=2)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from samecode.errors import SamecodeValueError
from samecode.fragments.regions import Region

__all__ = ["FilePair", "covered_tokens", "file_pairs"]


@dataclass(frozen=True, slots=True)
class FilePair:
    """Two files that share regions, and how alike they are (see the module's
    description): ``similarity``, ``a_share`` and ``b_share`` from 0 to 1, the
    ``tokens`` their regions matched and how many ``regions`` they share."""

    a: str
    b: str
    similarity: float
    a_share: float
    b_share: float
    tokens: int
    regions: int


def covered_tokens(ranges: Iterable[tuple[int, int]]) -> int:
    """How many tokens the ``(first, stop)`` ranges hold together (their union: a token
    in several ranges counts once).

    Runtime complexity: ``O(n log n)`` for ``n`` ranges.

    >>> covered_tokens([(10, 20), (0, 5), (15, 30), (30, 31)])
    26
    """
    total = 0
    end = -1  # just past the ranges merged so far
    for first, stop in sorted(ranges):
        if stop <= end:
            continue
        total += stop - max(first, end)
        end = stop
    return total


def file_pairs(
    regions: Sequence[Region],
    tokens: Mapping[str, int],
    b_tokens: Mapping[str, int] | None = None,
) -> list[FilePair]:
    """The file pairs of ``regions`` (see the module's description), sorted by
    similarity (the highest first), then by ``a`` and ``b``.

    :param regions: regions, in any order.
    :param tokens: the number of tokens of each file, by path (at least those of the
        regions).
    :param b_tokens: the number of tokens of each ``b`` file of the regions, when they
        are other files than those of ``tokens`` (a match's stored files, which may have
        the names of query files); ``None``: ``tokens``.
    :raises ValueError: if a file of a region has no number of tokens.

    Runtime complexity: ``O(r log r)`` for ``r`` regions.
    """
    others = tokens if b_tokens is None else b_tokens
    grouped: dict[tuple[str, str], list[Region]] = {}
    for region in regions:
        grouped.setdefault((region.a, region.b), []).append(region)
    pairs = []
    for (a, b), shared in grouped.items():
        if len(shared) == 1:  # most pairs: no union to make
            (one,) = shared
            covered_a, covered_b = one.a_stop - one.a_first, one.b_stop - one.b_first
        else:
            covered_a = covered_tokens([(r.a_first, r.a_stop) for r in shared])
            covered_b = covered_tokens([(r.b_first, r.b_stop) for r in shared])
        tokens_a, tokens_b = tokens.get(a), others.get(b)
        if tokens_a is None or tokens_b is None:
            unknown = a if tokens_a is None else b
            raise SamecodeValueError(f"no number of tokens is given for {unknown!r}")
        pairs.append(
            FilePair(
                a,
                b,
                (covered_a + covered_b) / (tokens_a + tokens_b),
                covered_a / tokens_a,
                covered_b / tokens_b,
                sum(r.tokens for r in shared),
                len(shared),
            )
        )
    pairs.sort(key=lambda pair: (-pair.similarity, pair.a, pair.b))
    return pairs
