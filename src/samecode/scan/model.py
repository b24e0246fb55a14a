"""The data model of a scan: what the stages pass on and what a report shows.

A :class:`Document` is a file read and shingled; a :class:`Pair` two documents at or above
the threshold with the exact counts behind their similarity; a :class:`CloneClass` the
documents linked by chains of pairs (a path not compared is a
:class:`~samecode.sources.skipped.Skipped`). All are frozen and picklable, so any engine
(this process, a process pool, Spark) passes them on as they are.

>>> pair = Pair("a.py", "b.py", shared=8, a_shingles=10, b_shingles=9)
>>> pair.exact_jaccard, pair.containment_b
(Fraction(8, 11), 0.888...)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any, Protocol

__all__ = ["CloneClass", "Document", "Findings", "Pair", "pairs_across", "pairs_within"]


@dataclass(frozen=True, slots=True)
class Document:
    """A file read and shingled: its path as found, size and SHA-256 of its bytes, how
    many tokens it has, and its distinct shingle hashes (in no particular order)."""

    path: str
    size: int
    sha256: str
    tokens: int
    shingles: array[int] = field(repr=False)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two files at or above the threshold, with the exact counts behind their similarity.

    ``a`` sorts before ``b``. ``shared`` is the size of the intersection of their shingle
    sets, of ``a_shingles`` and ``b_shingles`` shingles.
    """

    a: str
    b: str
    shared: int
    a_shingles: int
    b_shingles: int
    #: Notes of the method that found it (``signature_similarity``, ``lsh_candidate``).
    notes: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def ordered(
        cls,
        first: str,
        first_shingles: int,
        second: str,
        second_shingles: int,
        shared: int,
        notes: tuple[tuple[str, Any], ...] = (),
    ) -> Pair:
        """The pair of two files given in either order (``a`` is the one whose path
        sorts first).

        >>> Pair.ordered("b.py", 9, "a.py", 10, 8)
        Pair(a='a.py', b='b.py', shared=8, a_shingles=10, b_shingles=9, notes=())
        """
        if second < first:
            first, first_shingles, second, second_shingles = (
                second,
                second_shingles,
                first,
                first_shingles,
            )
        return cls(first, second, shared, first_shingles, second_shingles, notes)

    @property
    def exact_jaccard(self) -> Fraction:
        """``shared / (a_shingles + b_shingles - shared)``, exactly."""
        return Fraction(self.shared, self.a_shingles + self.b_shingles - self.shared)

    @property
    def jaccard(self) -> float:
        """The Jaccard index, as the nearest float."""
        return self.shared / (self.a_shingles + self.b_shingles - self.shared)

    @property
    def containment_a(self) -> float:
        """How much of ``a`` is in ``b``: ``shared / a_shingles``."""
        return self.shared / self.a_shingles

    @property
    def containment_b(self) -> float:
        """How much of ``b`` is in ``a``: ``shared / b_shingles``."""
        return self.shared / self.b_shingles


@dataclass(frozen=True, slots=True)
class CloneClass:
    """Files linked by pairs: its members (sorted), a representative (the member with the
    most shingles), the lowest and highest Jaccard of its pairs, and the lowest Jaccard on
    the strongest paths through it (``link_jaccard``: the largest value such that its
    pairs at or above it still link every member; see :mod:`samecode.scan.classes`)."""

    members: tuple[str, ...]
    representative: str
    min_jaccard: float
    max_jaccard: float
    link_jaccard: float


def pairs_across(
    first: Iterable[str],
    first_shingles: int,
    second: Iterable[str],
    second_shingles: int,
    shared: int,
    notes: tuple[tuple[str, Any], ...] = (),
) -> Iterator[Pair]:
    """The pairs one verified pair of representatives stands for: every member of the
    first's identical set (all of ``first_shingles``) with every member of the second's,
    each sharing ``shared`` shingles. Every engine expands its verified pairs here.

    >>> [(p.a, p.b) for p in pairs_across(["a", "c"], 5, ["b"], 4, 3)]
    [('a', 'b'), ('b', 'c')]
    """
    seconds = list(second)
    for a in first:
        for b in seconds:
            yield Pair.ordered(a, first_shingles, b, second_shingles, shared, notes)


def pairs_within(
    members: Sequence[str], shingles: int, notes: tuple[tuple[str, Any], ...] = ()
) -> Iterator[Pair]:
    """The pairs inside one identical set: every two members, sharing all ``shingles``.

    >>> [(p.a, p.b, p.jaccard) for p in pairs_within(["b", "a"], 4)]
    [('a', 'b', 1.0)]
    """
    for a, b in combinations(members, 2):
        yield Pair.ordered(a, shingles, b, shingles, shingles, notes)


class Findings(Protocol):
    """What a scan found, whichever engine ran it: the pairs (sorted by paths), the clone
    classes, the paths skipped and why, and how many files were compared. A local scan's
    :class:`~samecode.scan.pipeline.ScanResult` is one, and so is a Spark scan's
    collected answer; a report (:meth:`samecode.reports.pairs.Report.of`) takes either.
    """

    @property
    def pairs(self) -> Sequence[Pair]:
        """The pairs, sorted by paths."""

    @property
    def classes(self) -> Sequence[CloneClass]:
        """The clone classes, largest first."""

    @property
    def skipped(self) -> Sequence[Any]:
        """The paths not compared, each a :class:`~samecode.sources.skipped.Skipped`."""

    @property
    def compared(self) -> int:
        """How many files were compared."""
