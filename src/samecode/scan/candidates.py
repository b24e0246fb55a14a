"""How candidate pairs are proposed: a registry of methods, each a plug-in.

The pipeline verifies every candidate exactly, so a method only decides which pairs are
looked at, and so how fast the answer comes and whether a pair can be missed:

* ``exact`` (the default): prefix filtering (:func:`samecode.scan.join.prefix_candidates`).
  No sketch; no pair that reaches the threshold is ever missed.
* ``simhash``: a 64-bit simhash of each file's shingle hashes
  (:func:`samecode.fingerprints.simhash.compute`), and every pair within a Hamming distance derived
  from the threshold (:func:`loose_distance`); probabilistic.
* ``halo``: the same with a 128-bit :class:`~samecode.halohash.BitAverageHaloHash` of the
  shingles' 8-byte hashes; probabilistic.
* ``minhash``: seed 004's system: a MinHash of ``num_perm`` values per file (samecode's
  one-permutation scheme, :class:`~samecode.minhash.minhash.OnePermutationMinHash`, of the shingle
  hashes) and LSH (:class:`~samecode.minhash.lsh.MinHashLSH`) at ``lsh_threshold``. Like seed 004's
  program it reports every pair at the threshold (found exactly) with the signatures'
  estimate and whether LSH proposed it.

A method may take settings (``num_perm``, ``lsh_threshold``): :meth:`Method.configured`
returns it so set.

A new method subclasses :class:`Method` and calls :func:`register`:

>>> class Everything(Method):
...     name = "all-pairs"
...     def candidates(self, sets, threshold, measure):
...         return [(i, j) for i in range(len(sets)) for j in range(i + 1, len(sets))]
>>> register(Everything())
>>> method("all-pairs").name, "all-pairs" in method_names()
('all-pairs', True)
>>> unregister("all-pairs")
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from array import array
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any, ClassVar

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fingerprints.simhash import compute
from samecode.halohash import BitAverageHaloHash
from samecode.hamming.allpairs import distinct_groups, near_pairs
from samecode.minhash.lsh import LSHSettings, MinHashLSH
from samecode.scan.join import prefix_candidates
from samecode.scan.similarity import Measure

__all__ = [
    "Method",
    "default_lsh_threshold",
    "loose_distance",
    "method",
    "method_names",
    "register",
    "unregister",
]


class Method(ABC):
    """A way to propose the pairs of shingle sets that the pipeline then verifies."""

    #: The name a user gives (``--method NAME``).
    name: ClassVar[str]
    #: Whether every pair that reaches the threshold is always proposed.
    exact: ClassVar[bool] = False
    #: The measures this method can propose pairs for.
    measures: ClassVar[tuple[str, ...]] = ("jaccard",)
    #: Whether the pipeline should report every pair (found exactly) with this method's
    #: notes, rather than only the pairs it proposed.
    reports_all: ClassVar[bool] = False

    def configured(self, **settings: Any) -> Method:
        """This method with ``settings`` applied (those it does not take are ignored)."""
        return self

    def annotate(
        self, sets: Sequence[array[int]], pairs: Sequence[tuple[int, int]], threshold: Fraction
    ) -> list[dict[str, Any]]:
        """Notes to report with each pair (found exactly) for a method that
        :attr:`reports_all`: what it made of the pair, whether it proposed it, say."""
        return [{} for _ in pairs]

    def copy_notes(self) -> dict[str, Any]:
        """The notes :meth:`annotate` would give a pair of identical files."""
        return {}

    def parameters(self, threshold: Fraction) -> dict[str, Any]:
        """The settings it runs with for ``threshold``, for reports."""
        return {}

    @abstractmethod
    def candidates(
        self, sets: Sequence[array[int]], threshold: Fraction, measure: Measure
    ) -> list[tuple[int, int]]:
        """Return pairs ``(i, j)``, ``i < j``, of ``sets`` (distinct, non-empty shingle
        sets) that may reach ``threshold``."""


_METHODS: dict[str, Method] = {}


def register(method_object: Method) -> None:
    """Make a method available by its name (replacing one of the same name).

    :raises TypeError: if it is not a :class:`Method`.
    """
    if not isinstance(method_object, Method):
        raise SamecodeTypeError(
            f"a method must be a samecode.scan.candidates.Method; got {describe(method_object)}"
        )
    _METHODS[method_object.name] = method_object


def unregister(name: str) -> None:
    """Remove the method registered under ``name``.

    :raises ValueError: for a name that is not registered.
    """
    method(name)
    del _METHODS[name]


def method_names() -> list[str]:
    """The names of the registered methods, sorted."""
    return sorted(_METHODS)


def method(name: str) -> Method:
    """Return the method registered under ``name``.

    :raises ValueError: for a name that is not registered (the message lists them).
    """
    found = _METHODS.get(name) if isinstance(name, str) else None
    if found is None:
        raise SamecodeValueError(f"method must be one of {', '.join(method_names())}; got {name!r}")
    return found


def loose_distance(size_in_bits: int, threshold: Fraction, spread: float = 4.0) -> int:
    """The Hamming distance under which a sketch method looks for pairs of Jaccard ``>=
    threshold``.

    Two sets of Jaccard ``J`` have a cosine (of their indicator vectors) of at least ``J``,
    so the angle between them is at most ``acos(J)`` and each bit of their simhashes
    differs with probability at most ``acos(J) / pi`` (Charikar 2002). The distance is the
    expected number of differing bits plus ``spread`` standard deviations of a binomial,
    capped at half the bits.

    At 0.8: ``acos(0.8) / pi = 0.2048``, so 64 bits differ in 13.1 on average, with a
    standard deviation of 3.23, and ``13.1 + 4 * 3.23 = 26.0`` rounds up to 27:

    >>> loose_distance(64, Fraction(4, 5)), loose_distance(128, Fraction(4, 5))
    (27, 45)
    """
    p = math.acos(float(threshold)) / math.pi
    mean = size_in_bits * p
    deviation = math.sqrt(size_in_bits * p * (1 - p))
    return min(size_in_bits // 2, math.ceil(mean + spread * deviation))


class _Exact(Method):
    name = "exact"
    exact = True
    measures = ("jaccard", "containment")

    def candidates(
        self, sets: Sequence[array[int]], threshold: Fraction, measure: Measure
    ) -> list[tuple[int, int]]:
        return prefix_candidates(sets, threshold, measure)


class _Sketched(Method):
    """Candidates from fingerprints of ``size`` bits within :func:`loose_distance`."""

    size: ClassVar[int] = 64

    @abstractmethod
    def fingerprint(self, shingles: array[int]) -> int:
        """The fingerprint of one set, as an int."""

    def candidates(
        self, sets: Sequence[array[int]], threshold: Fraction, measure: Measure
    ) -> list[tuple[int, int]]:
        values = [self.fingerprint(shingles) for shingles in sets]
        distance = loose_distance(self.size, threshold)
        distinct, groups = distinct_groups(values)
        members = (lambda v: [v]) if groups is None else groups.__getitem__
        found: set[tuple[int, int]] = set()
        for u, v in near_pairs(distinct, self.size, distance):
            found.update((min(i, j), max(i, j)) for i in members(u) for j in members(v))
        for group in groups or ():
            found.update(combinations(group, 2))
        return sorted(found)


class _SimHash(_Sketched):
    name = "simhash"
    size = 64

    def fingerprint(self, shingles: array[int]) -> int:
        return compute(shingles)


class _Halo(_Sketched):
    name = "halo"
    size = 128

    def fingerprint(self, shingles: array[int]) -> int:
        blob = memoryview(shingles.tobytes())
        features = [blob[i : i + 8] for i in range(0, len(blob), 8)]
        return BitAverageHaloHash(features, size_in_bits=128).intdigest()


class _MinHash(Method):
    name = "minhash"
    reports_all = True

    def __init__(self, num_perm: int = 128, lsh_threshold: float | None = None) -> None:
        self.num_perm = num_perm
        self.lsh_threshold = lsh_threshold

    def configured(self, **settings: Any) -> Method:
        return _MinHash(
            settings.get("num_perm", self.num_perm),
            settings.get("lsh_threshold", self.lsh_threshold),
        )

    def _settings(self, threshold: Fraction) -> LSHSettings:
        lowest = self.lsh_threshold
        if lowest is None:
            lowest = default_lsh_threshold(threshold)
        return LSHSettings(num_perm=self.num_perm, threshold=lowest)

    def parameters(self, threshold: Fraction) -> dict[str, Any]:
        settings = self._settings(threshold)
        return {
            "num_perm": self.num_perm,
            "lsh_threshold": settings.threshold,
            "bands": settings.bands,
            "rows": settings.rows,
        }

    def candidates(
        self, sets: Sequence[array[int]], threshold: Fraction, measure: Measure
    ) -> list[tuple[int, int]]:
        return sorted(self._indexed(sets, threshold)[0].candidate_pairs())  # type: ignore[arg-type]

    def annotate(
        self, sets: Sequence[array[int]], pairs: Sequence[tuple[int, int]], threshold: Fraction
    ) -> list[dict[str, Any]]:
        index, values = self._indexed(sets, threshold)
        proposed = index.candidate_pairs()
        settings = self._settings(threshold)
        return [
            {
                "signature_similarity": settings.estimate(values[i], values[j]),
                "lsh_candidate": (i, j) in proposed,
            }
            for i, j in pairs
        ]

    def _indexed(
        self, sets: Sequence[array[int]], threshold: Fraction
    ) -> tuple[MinHashLSH, list[bytes]]:
        """The LSH index of every set's signature (keys: positions), and the signatures'
        values."""
        settings = self._settings(threshold)
        index = settings.index()
        values = []
        for key, shingles in enumerate(sets):
            signature = settings.signature(shingles)
            index.insert(key, signature)
            values.append(settings.values(signature))
        return index, values

    def copy_notes(self) -> dict[str, Any]:
        # Identical sets have identical signatures, which share every band.
        return {"signature_similarity": 1.0, "lsh_candidate": True}


def default_lsh_threshold(threshold: Fraction) -> float:
    """The LSH threshold the ``minhash`` method uses for a similarity threshold: 0.2 lower
    (at least 0.05), so that LSH proposes nearly every pair that reaches it (measured on
    the standard libraries; see the documentation).

    >>> default_lsh_threshold(Fraction(4, 5))
    0.6
    """
    return max(0.05, round(float(threshold) - 0.2, 2))


for _method in (_Exact(), _SimHash(), _Halo(), _MinHash()):
    register(_method)
