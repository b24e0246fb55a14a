"""The similarity of two shingle sets, defined once: the measures, the exact threshold,
and the bounds that let a join skip pairs without missing one.

Every measure is computed from three counts: the sizes of the two sets and the size of
their intersection (``shared``), in integers, against a threshold that is an exact
fraction (``0.8`` means 4/5), so a pair is reported or not whatever the floating point.

* **Jaccard**: ``shared / (size_a + size_b - shared)``.
* **containment** (of the smaller set, a scan's measure): ``shared / min(size_a,
  size_b)``, how much of the smaller file is in the larger.
* **stored containment** (a corpus's measure): ``shared / size_stored``, how much of a
  stored file is in the query (a known file copied into a new one).

>>> t = exact_threshold("0.8")
>>> jaccard(8, 10, 9), reaches(8, 10, 9, t, "jaccard"), reaches(8, 10, 9, t, "containment")
(Fraction(8, 11), False, True)
>>> stored_containment(8, 9) >= t
True

The bounds, for a set of ``n`` shingles in a fixed global order (prefix filtering:
Chaudhuri, Ganti and Kaushik 2006; Bayardo, Ma and Srikant 2007): two sets of Jaccard at
least ``t`` share at least ``ceil(t * n)`` shingles, so each has a shared one among its
first :func:`prefix_length` shingles; a set of ``m`` shingles can reach ``t`` with one of
``n`` only if ``t * n <= m <= n / t`` (:func:`size_bounds`):

>>> prefix_length(10, t, "jaccard"), size_bounds(10, t)
(3, (8, 12))
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from fractions import Fraction
from typing import Any, Literal

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = [
    "MEASURES",
    "Measure",
    "containment",
    "exact_threshold",
    "jaccard",
    "overlap_needed",
    "prefix_length",
    "reaches",
    "reaches_stored",
    "set_jaccard",
    "size_bounds",
    "smaller_prefix_length",
    "stored_containment",
]

#: The measures of a pair of files in a scan.
MEASURES = ("jaccard", "containment")
Measure = Literal["jaccard", "containment"]


def exact_threshold(threshold: object) -> Fraction:
    """A similarity threshold as an exact fraction, from a number or a decimal string.

    A float is read as the decimal it prints as (``0.8`` is 4/5, not the binary
    fraction nearest to it).

    :raises TypeError: for something that is not a number or a string.
    :raises ValueError: for a value not above 0 and at most 1, or text that is no number.

    >>> exact_threshold("0.8"), exact_threshold(0.8), exact_threshold(Fraction(2, 3))
    (Fraction(4, 5), Fraction(4, 5), Fraction(2, 3))
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, str, Fraction)):
        raise SamecodeTypeError(f"threshold must be a number; got {describe(threshold)}")
    try:
        value = Fraction(str(threshold)) if isinstance(threshold, float) else Fraction(threshold)
    except (ValueError, ZeroDivisionError) as error:
        raise SamecodeValueError(f"threshold must be a number; got {threshold!r}") from error
    if not 0 < value <= 1:
        raise SamecodeValueError(f"threshold must be above 0 and at most 1; got {threshold!r}")
    return value


def jaccard(shared: int, size_a: int, size_b: int) -> Fraction:
    """``shared / (size_a + size_b - shared)``, exactly (1 for two empty sets).

    >>> jaccard(3, 4, 5)
    Fraction(1, 2)
    """
    union = size_a + size_b - shared
    return Fraction(shared, union) if union else Fraction(1)


def set_jaccard(first: AbstractSet[Any], second: AbstractSet[Any]) -> float:
    """The :func:`jaccard` of two sets, as a float (1.0 for two empty sets).

    >>> set_jaccard({1, 2, 3}, {2, 3, 4})
    0.5
    """
    shared = len(first & second)
    union = len(first) + len(second) - shared
    # int / int is correctly rounded, as float(jaccard(...)) is, without the Fraction
    return shared / union if union else 1.0


def containment(shared: int, size_a: int, size_b: int) -> Fraction:
    """How much of the smaller set is in the other: ``shared / min(size_a, size_b)``
    (0 when a set is empty: an empty file is contained in nothing).

    >>> containment(3, 4, 100)
    Fraction(3, 4)
    """
    smaller = min(size_a, size_b)
    return Fraction(shared, smaller) if smaller else Fraction(0)


def stored_containment(shared: int, size_stored: int) -> Fraction:
    """How much of a stored file is in the query: ``shared / size_stored`` (0 for an
    empty stored file).

    >>> stored_containment(30, 40)
    Fraction(3, 4)
    """
    return Fraction(shared, size_stored) if size_stored else Fraction(0)


def reaches(shared: int, size_a: int, size_b: int, threshold: Fraction, measure: str) -> bool:
    """Whether two sets of ``size_a`` and ``size_b`` sharing ``shared`` reach
    ``threshold`` by ``measure`` (``"jaccard"`` or ``"containment"``), in integers.

    Two empty sets reach nothing (no file is compared empty).

    >>> reaches(4, 5, 5, Fraction(2, 3), "jaccard"), reaches(4, 5, 5, Fraction(7, 10), "jaccard")
    (True, False)
    >>> reaches(3, 3, 100, Fraction(1), "containment")
    True
    """
    num, den = threshold.numerator, threshold.denominator
    if measure == "jaccard":
        union = size_a + size_b - shared
        return shared * den >= num * union and union > 0
    smaller = min(size_a, size_b)
    return shared * den >= num * smaller and smaller > 0


def reaches_stored(shared: int, size_stored: int, threshold: Fraction) -> bool:
    """Whether :func:`stored_containment` reaches ``threshold``, in integers.

    >>> reaches_stored(4, 5, Fraction(4, 5)), reaches_stored(3, 5, Fraction(4, 5))
    (True, False)
    """
    return size_stored > 0 and shared * threshold.denominator >= threshold.numerator * size_stored


def _ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def overlap_needed(size_a: int, size_b: int, threshold: Fraction, measure: str) -> int:
    """The fewest shared shingles with which two sets of these sizes reach ``threshold``:
    ``ceil(t / (1 + t) * (size_a + size_b))`` for Jaccard, ``ceil(t * min)`` for
    containment.

    >>> overlap_needed(10, 10, Fraction(4, 5), "jaccard")
    9
    >>> overlap_needed(10, 99, Fraction(1, 2), "containment")
    5
    """
    num, den = threshold.numerator, threshold.denominator
    if measure == "jaccard":
        return _ceil(num * (size_a + size_b), den + num)
    return _ceil(num * min(size_a, size_b), den)


def prefix_length(size: int, threshold: Fraction, measure: str) -> int:
    """How many of a set's first shingles (in any fixed global order) must hold one that
    it shares with every set it can reach ``threshold`` with: ``size - ceil(t * size) + 1``.

    For Jaccard this holds for both sets of a pair; for containment, for the smaller (the
    larger may share any of its shingles). At least 1 for a non-empty set, 0 for an empty
    one.

    >>> prefix_length(10, Fraction(4, 5), "jaccard"), prefix_length(0, Fraction(4, 5), "jaccard")
    (3, 0)
    """
    if size <= 0:
        return 0
    return size - _ceil(threshold.numerator * size, threshold.denominator) + 1


def smaller_prefix_length(size: int, threshold: Fraction) -> int:
    """The prefix that suffices for the *smaller* set of a Jaccard pair (or either, at
    equal sizes): ``size - ceil(2t / (1 + t) * size) + 1``, since two sets of Jaccard
    ``t`` share at least ``2t / (1 + t)`` of the smaller one.

    >>> smaller_prefix_length(10, Fraction(4, 5)), prefix_length(10, Fraction(4, 5), "jaccard")
    (2, 3)
    """
    if size <= 0:
        return 0
    num, den = threshold.numerator, threshold.denominator
    return size - _ceil(2 * num * size, den + num) + 1


def size_bounds(size: int, threshold: Fraction) -> tuple[int, int]:
    """The smallest and largest sizes a set can have and still reach Jaccard
    ``threshold`` with a set of ``size``: ``ceil(t * size)`` and ``floor(size / t)``.

    >>> size_bounds(10, Fraction(4, 5))
    (8, 12)
    """
    num, den = threshold.numerator, threshold.denominator
    return _ceil(num * size, den), size * den // num
