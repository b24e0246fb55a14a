"""Fragments: which lines of which files were copied, as regions and clone classes.

The data's way, one module per step:

    text -> :mod:`~samecode.fragments.tokens` (the scan's tokens, with their spans)
    -> :mod:`~samecode.fragments.winnowing` (k-gram hashes, robust winnowing: fingerprints)
    -> :mod:`~samecode.fragments.kgrams` (a text's k-grams, fingerprints, k-grams by hash)
    -> :mod:`~samecode.fragments.index` (fingerprints to files; boilerplate ignored)
    -> :mod:`~samecode.fragments.regions` (exact matches, chained across small gaps)
    -> :mod:`~samecode.fragments.classes` (the same text in N places: one class)
    -> :mod:`~samecode.fragments.pairs` (two files sharing regions: how alike they are)
    -> :mod:`~samecode.reports.fragments` (JSON lines, JSON, text)

:mod:`~samecode.fragments.tree` runs them over a tree (:func:`scan_fragments`: the files
read wait in :mod:`~samecode.fragments.scratch` files, and the candidate pairs are cut
into tasks by :mod:`~samecode.fragments.tasks`) or two files (:func:`compare_fragments`);
:mod:`~samecode.fragments.options` holds the parameters.
The guarantee: every run of at least ``window + k - 1`` tokens two files share is found
(unless it is boilerplate or repetitive), and nothing shorter than ``k``.

>>> from samecode.fragments import FragmentOptions
>>> FragmentOptions().guaranteed
27
"""

from samecode.fragments.classes import FragmentClass, Occurrence, fragment_classes
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.options import FragmentOptions
from samecode.fragments.pairs import FilePair, file_pairs
from samecode.fragments.regions import Match, Region, find_regions
from samecode.fragments.result import FragmentResult
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.tree import FragmentComparison, compare_fragments, scan_fragments
from samecode.fragments.winnowing import FragmentFingerprint, fingerprints, winnow

__all__ = [
    "FilePair",
    "FragmentClass",
    "FragmentComparison",
    "FragmentFingerprint",
    "FragmentOptions",
    "FragmentResult",
    "Kgrams",
    "Match",
    "Occurrence",
    "Region",
    "TokenSpans",
    "compare_fragments",
    "file_pairs",
    "find_regions",
    "fingerprints",
    "fragment_classes",
    "scan_fragments",
    "winnow",
]
