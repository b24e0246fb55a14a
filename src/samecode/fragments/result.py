"""What a scan of fragments found (:class:`FragmentResult`), what a baseline left out of
it (:class:`BaselineNovelty`), and the version of the JSON report that carries them
(:data:`SCHEMA`, which a baseline must have): the records every later stage and every
report reads.

>>> from samecode.fragments.options import FragmentOptions
>>> empty = FragmentResult(FragmentOptions(), ["a.py"], [], [], [], [], 0, 0, 2, 0)
>>> empty.summary()["compared"], SCHEMA
(1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from samecode.fragments.classes import FragmentClass
from samecode.fragments.ignored import REASONS, Ignored, groups_of
from samecode.fragments.options import FragmentOptions
from samecode.fragments.pairs import FilePair, file_pairs
from samecode.fragments.regions import Region
from samecode.sources.skipped import Skipped

__all__ = ["SCHEMA", "BaselineNovelty", "ClassNovelty", "FragmentResult", "ignored_counts"]

#: The version of the JSON report of fragments (``"schema"``); a baseline must have it.
SCHEMA = 1


@dataclass(frozen=True)
class ClassNovelty:
    """Of a class reported with a baseline: which occurrences are new (in the class's
    order) and the numbers of the baseline classes it joins (sorted)."""

    new: tuple[bool, ...]
    joins: tuple[int, ...]


@dataclass(frozen=True)
class BaselineNovelty:
    """What a baseline did to a result: its ``source``, for each class kept its
    :class:`ClassNovelty`, and how many classes, occurrences (of the classes kept) and
    regions were old and left out."""

    source: str
    classes: list[ClassNovelty]
    old_classes: int
    old_occurrences: int
    old_regions: int

    def summary(self) -> dict[str, Any]:
        """The counts, as a report states them."""
        return {
            "source": self.source,
            "old_classes": self.old_classes,
            "old_occurrences": self.old_occurrences,
            "old_regions": self.old_regions,
            "new_occurrences": sum(sum(c.new) for c in self.classes),
        }


@dataclass(frozen=True)
class FragmentResult:
    """What :func:`scan_fragments` found.

    ``files``: the paths compared, in the order found; ``skipped``: the others and why;
    ``regions``: sorted by ``a``, ``b``, then place; ``classes``: the clone classes
    (:func:`~samecode.fragments.classes.fragment_classes`); ``region_class``: each
    region's class number (from 1); ``boilerplate``: the fingerprints ignored as
    boilerplate (distinct hashes), ``boilerplate_occurrences`` how many times files
    selected them, ``boilerplate_limit`` the most files a fingerprint could be in without
    being boilerplate; ``repetitive``: fingerprints that seeded nothing in a file where
    their k-gram is repeated more than ``max_repeats`` times; ``digests``: for each class,
    the :mod:`~samecode.fragments.digest` of each occurrence (empty when not made);
    ``region_digests``: for each region, the digests of its two ends (the same);
    ``baseline``: what a baseline left out (:func:`~samecode.fragments.baseline.only_new`),
    ``None`` when none was given; ``ignored``: the lines whose tokens were masked as
    boilerplate (licence headers, import blocks, text of boilerplate files, message ids),
    by file (a scan's as :class:`~samecode.fragments.ignored.IgnoredRanges`);
    ``sha256``: the SHA-256 of the bytes read of each file compared that is in a region
    (for a match, of each query file), by path: the HTML report shows a file's lines only
    if it still holds them; ``tokens``: the number of tokens of each file compared that is
    in a region (for a match, of each query file), and ``stored_tokens``, for a match, of
    each stored file in a region, by path: the :meth:`pairs`' shares are of them.
    """

    options: FragmentOptions
    files: list[str]
    skipped: list[Skipped]
    regions: list[Region]
    classes: list[FragmentClass]
    region_class: list[int | None]
    boilerplate: int
    boilerplate_occurrences: int
    boilerplate_limit: int
    repetitive: int
    seconds: float = 0.0
    digests: list[tuple[str, ...]] = field(default_factory=list)
    region_digests: list[tuple[str, str]] = field(default_factory=list)
    baseline: BaselineNovelty | None = None
    ignored: Sequence[Ignored] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    stored_tokens: dict[str, int] = field(default_factory=dict)

    def pairs(self) -> list[FilePair]:
        """The file pairs of the regions (:func:`~samecode.fragments.pairs.file_pairs`),
        the most alike first.

        :raises ValueError: if a file of a region has no number of tokens.

        Runtime complexity: ``O(r log r)`` for ``r`` regions.
        """
        return file_pairs(self.regions, self.tokens, self.stored_tokens or None)

    def summary(self) -> dict[str, Any]:
        """The counts, as a report states them."""
        reasons: dict[str, int] = {}
        for item in self.skipped:
            reason = item.kind.value
            reasons[reason] = reasons.get(reason, 0) + 1
        return {
            "compared": len(self.files),
            "skipped": len(self.skipped),
            "skipped_by_reason": dict(sorted(reasons.items())),
            "regions": len(self.regions),
            "pairs": len({(region.a, region.b) for region in self.regions}),
            "classes": len(self.classes),
            "boilerplate_fingerprints": self.boilerplate,
            "boilerplate_occurrences": self.boilerplate_occurrences,
            "boilerplate_limit": self.boilerplate_limit,
            "repetitive_fingerprints": self.repetitive,
            "ignored": ignored_counts(self.ignored),
            **({} if self.baseline is None else {"baseline": self.baseline.summary()}),
        }


def ignored_counts(ignored: Sequence[Ignored]) -> dict[str, dict[str, int]]:
    """For each reason text was ignored (:data:`~samecode.fragments.ignored.REASONS`):
    the ``ranges`` of lines, the ``files`` they are in, their ``lines`` and ``tokens``.

    >>> ignored_counts([Ignored("a.py", "import block", 1, 3, 9)])["import block"]
    {'ranges': 1, 'files': 1, 'lines': 3, 'tokens': 9}
    """
    counts = {reason: {"ranges": 0, "files": 0, "lines": 0, "tokens": 0} for reason in REASONS}
    files: dict[str, set[str]] = {reason: set() for reason in REASONS}
    for path, reason, starts, ends, tokens in groups_of(ignored):
        count = counts[reason]
        count["ranges"] += len(starts)
        count["lines"] += sum(ends) - sum(starts) + len(starts)
        count["tokens"] += sum(tokens)
        files[reason].add(path)
    for reason in REASONS:
        counts[reason]["files"] = len(files[reason])
    return counts
