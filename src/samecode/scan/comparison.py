"""The similarity of two files, by the counts behind it: what ``samecode compare`` prints.

:func:`compare_files` reads two files by the text policy of :mod:`samecode.sources.reading`,
shingles them by a :class:`~samecode.text.shingling.Shingling`, and returns a
:class:`Comparison`: their tokens, their shingles, how many they share, and the measures
of :mod:`samecode.similarity` computed from those counts. A file with no shingle
(empty, or white space only) is not comparable: its measures are ``None``, as a scan
skips such a file rather than calling it similar or dissimilar.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name, text in [("a.txt", "total = price * count + tax"),
...                    ("b.txt", "total = price * count - tax")]:
...     with open(os.path.join(folder, name), "w") as f:
...         _ = f.write(text)
>>> found = compare_files(os.path.join(folder, "a.txt"), os.path.join(folder, "b.txt"),
...                       Shingling(size=3))
>>> found.shared, found.a_shingles, found.b_shingles, found.jaccard
(3, 5, 5, Fraction(3, 7))
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError
from samecode.similarity import jaccard, stored_containment
from samecode.sources.reading import read_comparable
from samecode.text.shingling import Shingling

__all__ = ["Comparison", "compare_files"]


@dataclass(frozen=True)
class Comparison:
    """Two files compared: their paths (as given), tokens, distinct shingles, and how many
    shingles they share. The measures are exact fractions, ``None`` when a file has no
    shingle (:attr:`comparable` is false).

    >>> Comparison("a", "b", 40, 40, 36, 36, 30).jaccard
    Fraction(5, 7)
    >>> Comparison("a", "b", 0, 40, 0, 36, 0).jaccard is None
    True
    """

    a: str
    b: str
    a_tokens: int
    b_tokens: int
    a_shingles: int
    b_shingles: int
    shared: int

    @property
    def comparable(self) -> bool:
        """Whether both files have shingles (an empty file is compared with nothing)."""
        return self.a_shingles > 0 and self.b_shingles > 0

    @property
    def union(self) -> int:
        """The shingles of either file."""
        return self.a_shingles + self.b_shingles - self.shared

    @property
    def jaccard(self) -> Fraction | None:
        """``shared / union``, or ``None`` if not :attr:`comparable`."""
        return jaccard(self.shared, self.a_shingles, self.b_shingles) if self.comparable else None

    @property
    def containment_a(self) -> Fraction | None:
        """How much of ``a`` is in ``b``: ``shared / a_shingles`` (``None`` if not
        :attr:`comparable`)."""
        return stored_containment(self.shared, self.a_shingles) if self.comparable else None

    @property
    def containment_b(self) -> Fraction | None:
        """How much of ``b`` is in ``a``: ``shared / b_shingles`` (``None`` if not
        :attr:`comparable`)."""
        return stored_containment(self.shared, self.b_shingles) if self.comparable else None

    @property
    def empty(self) -> tuple[str, ...]:
        """The paths of the files that have no shingle."""
        return tuple(
            path
            for path, count in ((self.a, self.a_shingles), (self.b, self.b_shingles))
            if not count
        )

    def to_dict(self) -> dict[str, Any]:
        """The counts, and the measures as floats (``None`` when not comparable).

        >>> Comparison("a", "b", 9, 9, 5, 5, 5).to_dict()["jaccard"]
        1.0
        """

        def number(value: Fraction | None) -> float | None:
            return None if value is None else float(value)

        return {
            "a": self.a,
            "b": self.b,
            "comparable": self.comparable,
            "jaccard": number(self.jaccard),
            "shared": self.shared,
            "a_tokens": self.a_tokens,
            "b_tokens": self.b_tokens,
            "a_shingles": self.a_shingles,
            "b_shingles": self.b_shingles,
            "containment_a": number(self.containment_a),
            "containment_b": number(self.containment_b),
        }


def compare_files(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    shingling: Shingling | None = None,
    *,
    max_size: int | None = None,
) -> Comparison:
    """Compare two files by the documented similarity (see the module).

    :param a: a file.
    :param b: another (or the same) file.
    :param shingling: the rules (the default :class:`~samecode.text.shingling.Shingling`).
    :param max_size: refuse files of more bytes (``None``: no limit).
    :raises TypeError: for a path or shingling of the wrong type.
    :raises ValueError: for a file that cannot be compared, with why: ``missing (no such
        file)``, ``not a regular file``, ``binary``, ``too large``, ``unreadable: ...``.

    Runtime complexity: ``O(size)`` of both files.
    """
    shingling = Shingling() if shingling is None else shingling
    if not isinstance(shingling, Shingling):
        raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(shingling)}")
    counts: list[tuple[int, Any]] = []
    paths = []
    for given in (a, b):
        path, text = read_comparable(given, max_size)
        counts.append(shingling.measure(text, path))
        paths.append(path)
    (tokens_a, shingles_a), (tokens_b, shingles_b) = counts
    shared = len(set(shingles_a).intersection(shingles_b))
    return Comparison(
        paths[0], paths[1], tokens_a, tokens_b, len(shingles_a), len(shingles_b), shared
    )
