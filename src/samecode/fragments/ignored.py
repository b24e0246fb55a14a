"""What fragments ignore, range by range: :class:`Ignored` is one range of lines of a file
and why it was ignored (one of :data:`REASONS`); :class:`IgnoredRanges` holds many such
ranges compactly, as the sequence of them.

A translation catalogue has a range per message (Django's 1,211 catalogues have 83,629):
an object each would cost some 2 us to make and as much again to pickle from a worker
and back, where :class:`IgnoredRanges` keeps six integers a range in one array, pickled
as its bytes, and makes an :class:`Ignored` only when one is read.
:meth:`IgnoredRanges.rows` and :meth:`IgnoredRanges.spans` read the ranges without making
any.

>>> ranges = IgnoredRanges([Ignored("a.py", "import block", 4, 4, 3, 20, 23),
...                         Ignored("a.py", "licence header", 1, 2, 9, 0, 9)])
>>> len(ranges), ranges[1].reason, masked_ranges(ranges)
(2, 'licence header', [(0, 9), (20, 23)])
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any, overload

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = [
    "REASONS",
    "Ignored",
    "IgnoredRanges",
    "groups_of",
    "masked_ranges",
    "rows_of",
    "spans_of",
]

#: Why a range is ignored, in the order reports give them (a corpus's records name a
#: reason by its place here: a new one goes last).
REASONS = ("licence header", "import block", "boilerplate file", "message ids")
_REASON_NUMBERS = {reason: number for number, reason in enumerate(REASONS)}
#: The integers :class:`IgnoredRanges` keeps a range: its reason's place in
#: :data:`REASONS`, its first and last line, its tokens, its first token and the token
#: after its last.
_WIDTH = 6


@dataclass(frozen=True, slots=True)
class Ignored:
    """Lines of a file whose tokens fragments ignore: ``start`` to ``end`` (from 1,
    inclusive), why (one of :data:`REASONS`), and how many tokens they hold; ``first``
    to ``stop`` are those tokens (from 0, the stop exclusive; both 0 where not known)."""

    path: str
    reason: str
    start: int
    end: int
    tokens: int
    first: int = 0
    stop: int = 0

    def __reduce__(self) -> tuple[type[Ignored], tuple[str, str, int, int, int, int, int]]:
        # a dataclass's own pickling looks up its fields for every object
        return Ignored, (
            self.path, self.reason, self.start, self.end, self.tokens, self.first, self.stop
        )  # fmt: skip


class IgnoredRanges(Sequence[Ignored]):
    """Ranges ignored, in order, as the immutable sequence of their :class:`Ignored`
    (made as they are read), held as six integers a range in one array and each file's
    path once. Equal to a list, a tuple or an :class:`IgnoredRanges` of the same ranges
    (it stands for their list), hashed as their tuple, added to one as :meth:`join`
    does. Picklable as the array's bytes.

    :param ranges: the ranges, in order.
    :raises TypeError: if one is not an :class:`Ignored`, its path or reason not a
        ``str``, or one of its numbers not an ``int``.
    :raises ValueError: if one's reason is not one of :data:`REASONS`, one of its numbers
        is below 0 or not below ``2**63``, or its ``stop`` is before its ``first``.

    Runtime complexity: ``O(n)`` to make (some 1 us a range), ``O(log f)`` to read a range
    of ``f`` files, ``O(n)`` in C to :meth:`join` and to pickle.

    >>> ranges = IgnoredRanges([Ignored("a.py", "import block", 1, 2, 6, 0, 6)])
    >>> ranges == [Ignored("a.py", "import block", 1, 2, 6, 0, 6)], list(ranges.rows())
    (True, [('a.py', 'import block', 1, 2, 6, 0, 6)])
    """

    __slots__ = ("_ends", "_paths", "_rows")

    def __init__(self, ranges: Iterable[Ignored] = ()) -> None:
        paths: list[str] = []
        ends: list[int] = []
        rows: list[int] = []
        for item in ranges:
            if not isinstance(item, Ignored):
                raise SamecodeTypeError(f"ranges must be Ignored; got {describe(item)}")
            if not paths or paths[-1] != item.path:
                _check_path(item.path)
                if paths:
                    ends.append(len(rows) // _WIDTH)
                paths.append(item.path)
            reason = _reason_number(item.reason)
            rows += (reason, item.start, item.end, item.tokens, item.first, item.stop)
        if paths:
            ends.append(len(rows) // _WIDTH)
        self._set(tuple(paths), array("q", ends), _checked(rows))

    def _set(self, paths: tuple[str, ...], ends: array[int], rows: array[int]) -> None:
        self._paths = paths
        self._ends = ends  # the number of ranges up to each path's last, from the first
        self._rows = rows

    @classmethod
    def of(cls, path: str, rows: Iterable[tuple[int, int, int, int, int]]) -> IgnoredRanges:
        """The ranges of the file at ``path`` given as ``rows``, each its reason's place in
        :data:`REASONS`, its first and last line, its first token and the token after its
        last (its tokens are those between), in order.

        :raises TypeError: if ``path`` is not a ``str``, or a row not five ``int``.
        :raises ValueError: if a reason is not a place in :data:`REASONS`, a number is
            below 0 or not below ``2**63``, or a stop is before its first token.

        Runtime complexity: ``O(n)``, some 0.5 us a range.

        >>> IgnoredRanges.of("de.po", [(3, 2, 4, 5, 12)])[0]
        Ignored(path='de.po', reason='message ids', start=2, end=4, tokens=7, first=5, stop=12)
        """
        _check_path(path)
        flat: list[int] = []
        for row in rows:
            try:
                reason, start, end, first, stop = row
                flat += (reason, start, end, stop - first, first, stop)
            except (TypeError, ValueError):
                raise SamecodeTypeError(
                    "a row must be five ints (reason, start, end, first, stop); "
                    f"got {describe(row)}"
                ) from None
        made = cls()
        if flat:
            made._set((path,), array("q", [len(flat) // _WIDTH]), _checked(flat))
        return made

    @classmethod
    def join(cls, parts: Iterable[Sequence[Ignored]]) -> IgnoredRanges:
        """The ranges of ``parts`` one after the other: those held as
        :class:`IgnoredRanges` joined in C, any other sequence read.

        :raises TypeError: if a part is not a sequence of :class:`Ignored` (and as
            :class:`IgnoredRanges` for its ranges).
        :raises ValueError: as :class:`IgnoredRanges` for its ranges.

        Runtime complexity: ``O(n)`` in C, and ``O(f)`` for ``f`` files.

        >>> one = IgnoredRanges.of("a.po", [(3, 1, 1, 0, 2)])
        >>> joined = IgnoredRanges.join([one, [Ignored("b.py", "import block", 1, 1, 2, 0, 2)]])
        >>> [(item.path, item.reason) for item in joined]
        [('a.po', 'message ids'), ('b.py', 'import block')]
        """
        paths: list[str] = []
        ends = array("q")
        rows = array("q")
        for part in parts:
            if not isinstance(part, Sequence) or isinstance(part, str):
                raise SamecodeTypeError(f"parts must be sequences of Ignored; got {describe(part)}")
            held = part if isinstance(part, IgnoredRanges) else cls(part)
            count = len(rows) // _WIDTH
            for number, path in enumerate(held._paths):
                if paths and paths[-1] == path:  # a file's ranges go on in the next part
                    ends[-1] = count + held._ends[number]
                else:
                    paths.append(path)
                    ends.append(count + held._ends[number])
            rows += held._rows
        made = cls()
        made._set(tuple(paths), ends, rows)
        return made

    def rows(self) -> Iterator[tuple[str, str, int, int, int, int, int]]:
        """Each range's fields, as its :class:`Ignored` holds them (``path``, ``reason``,
        ``start``, ``end``, ``tokens``, ``first``, ``stop``), without making it.

        Runtime complexity: ``O(n)``, some 0.3 us a range.
        """
        rows, begin = self._rows, 0
        for path, end in zip(self._paths, self._ends):
            numbers = iter(rows[begin * _WIDTH : end * _WIDTH])
            for reason, start, last, tokens, first, stop in zip(*[numbers] * _WIDTH):
                yield path, REASONS[reason], start, last, tokens, first, stop
            begin = end

    def groups(self) -> Iterator[tuple[str, str, array[int], array[int], array[int]]]:
        """Each run of ranges one after another of one file and one reason, as the file's
        path, the reason, and the ranges' first lines, last lines and tokens (an
        ``array("q")`` each, in order), without making a range: for a report to read
        tens of thousands of them in C's loops.

        Runtime complexity: ``O(n)`` in C, and a step a run (a catalogue's ranges are
        two runs: its header, then its messages).

        >>> ranges = IgnoredRanges.of("de.po", [(0, 1, 2, 0, 5), (3, 4, 4, 7, 9), (3, 6, 7, 9, 12)])
        >>> [(path, reason, s.tolist(), e.tolist(), t.tolist())
        ...  for path, reason, s, e, t in ranges.groups()]  # doctest: +NORMALIZE_WHITESPACE
        [('de.po', 'licence header', [1], [2], [5]),
         ('de.po', 'message ids', [4, 6], [4, 7], [2, 3])]
        """
        rows, begin = self._rows, 0
        for path, end in zip(self._paths, self._ends):
            for reason, run in groupby(rows[begin * _WIDTH : end * _WIDTH : _WIDTH]):
                stop = begin + len(list(run))
                piece = rows[begin * _WIDTH : stop * _WIDTH]
                yield path, REASONS[reason], piece[1::_WIDTH], piece[2::_WIDTH], piece[3::_WIDTH]
                begin = stop

    def spans(self, reason: str | None = None) -> list[tuple[int, int]]:
        """The ``(first, stop)`` tokens of the ranges (of ``reason`` alone, if given), in
        order, without making a range.

        :raises TypeError: if ``reason`` is not a ``str`` or ``None``.
        :raises ValueError: if ``reason`` is not one of :data:`REASONS`.

        Runtime complexity: ``O(n)``, in C but for a step a range of ``reason``'s.

        >>> ranges = IgnoredRanges.of("de.po", [(3, 1, 1, 0, 2), (1, 3, 3, 5, 9)])
        >>> ranges.spans(), ranges.spans("message ids")
        ([(0, 2), (5, 9)], [(0, 2)])
        """
        rows = self._rows
        pairs = zip(rows[4::_WIDTH], rows[5::_WIDTH])
        if reason is None:
            return list(pairs)
        number = _reason_number(reason)
        return [pair for kind, pair in zip(rows[::_WIDTH], pairs) if kind == number]

    def __len__(self) -> int:
        return len(self._rows) // _WIDTH

    @overload
    def __getitem__(self, index: int) -> Ignored: ...

    @overload
    def __getitem__(self, index: slice) -> IgnoredRanges: ...

    def __getitem__(self, index: int | slice) -> Ignored | IgnoredRanges:
        if isinstance(index, slice):
            return IgnoredRanges(self[at] for at in range(*index.indices(len(self))))
        try:
            index = operator.index(index)
        except TypeError:
            raise SamecodeTypeError(
                f"index must be an int or a slice; got {describe(index)}"
            ) from None
        count = len(self)
        at = index + count if index < 0 else index
        if not 0 <= at < count:
            raise IndexError(f"index {index} is out of range for {count} ranges")
        reason, start, end, tokens, first, stop = self._rows[at * _WIDTH : (at + 1) * _WIDTH]
        path = self._paths[bisect_right(self._ends, at)]
        return Ignored(path, REASONS[reason], start, end, tokens, first, stop)

    def __iter__(self) -> Iterator[Ignored]:
        for fields in self.rows():
            yield Ignored(*fields)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IgnoredRanges):
            return list(self.rows()) == list(other.rows())
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    def __add__(self, other: object) -> IgnoredRanges:
        if isinstance(other, (IgnoredRanges, list, tuple)):
            return IgnoredRanges.join((self, other))
        return NotImplemented

    def __radd__(self, other: object) -> IgnoredRanges:
        if isinstance(other, (list, tuple)):
            return IgnoredRanges.join((other, self))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"IgnoredRanges({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return IgnoredRanges, (), (self._paths, self._ends, self._rows)

    def __setstate__(self, state: tuple[tuple[str, ...], array[int], array[int]]) -> None:
        self._set(*state)


def _check_path(path: object) -> None:
    if not isinstance(path, str):
        raise SamecodeTypeError(f"a range's path must be a str; got {describe(path)}")


def _reason_number(reason: object) -> int:
    """``reason``'s place in :data:`REASONS`."""
    if not isinstance(reason, str):
        raise SamecodeTypeError(f"a range's reason must be a str; got {describe(reason)}")
    number = _REASON_NUMBERS.get(reason)
    if number is None:
        raise SamecodeValueError(
            f"a range's reason must be one of {', '.join(REASONS)}; got {reason!r}"
        )
    return number


def _checked(numbers: list[int]) -> array[int]:
    """``numbers``, six a range (its reason's place in :data:`REASONS`, start, end,
    tokens, first, stop), as an array: each an ``int`` (not a ``bool``) from 0 below
    ``2**63``, each reason a place in :data:`REASONS`, no stop before its first."""
    if set(map(type, numbers)) - {int}:
        odd = next(value for value in numbers if type(value) is not int)
        raise SamecodeTypeError(f"a range's numbers must be ints; got {describe(odd)}")
    try:
        rows = array("q", numbers)
    except OverflowError:
        odd = next(value for value in numbers if not -(1 << 63) <= value < 1 << 63)
        raise SamecodeValueError(
            f"a range's numbers must be from 0 below 2**63; got {odd}"
        ) from None
    firsts, stops = rows[4::_WIDTH], rows[5::_WIDTH]
    if any(map(operator.lt, stops, firsts)):
        first, stop = next((f, p) for f, p in zip(firsts, stops) if p < f)
        raise SamecodeValueError(
            f"a range's stop must not be before its first token; got first {first}, stop {stop}"
        )
    if rows and min(rows) < 0:
        raise SamecodeValueError(f"a range's numbers must be at least 0; got {min(rows)}")
    if rows and max(rows[::_WIDTH]) >= len(REASONS):
        raise SamecodeValueError(
            f"a reason must be a place in REASONS (0 to {len(REASONS) - 1}); "
            f"got {max(rows[::_WIDTH])}"
        )
    return rows


def masked_ranges(ignored: Iterable[Ignored]) -> list[tuple[int, int]]:
    """The tokens masked in a file: its ``ignored`` ranges as ``(first, stop)`` tokens
    (from 0, the stop exclusive), sorted.

    Runtime complexity: ``O(n log n)``, in C for :class:`IgnoredRanges`.

    >>> masked_ranges([Ignored("a.py", "import block", 4, 4, 3, 20, 23),
    ...                Ignored("a.py", "licence header", 1, 2, 9, 0, 9)])
    [(0, 9), (20, 23)]
    """
    return sorted(spans_of(ignored))


def spans_of(ignored: Iterable[Ignored], reason: str | None = None) -> list[tuple[int, int]]:
    """The ``(first, stop)`` tokens of the ``ignored`` ranges (of ``reason`` alone, if
    given), in order, for any sequence of ranges: :meth:`IgnoredRanges.spans`, read from
    the array, for :class:`IgnoredRanges`.

    >>> spans_of([Ignored("a.po", "message ids", 1, 1, 2, 0, 2),
    ...           Ignored("a.po", "licence header", 2, 2, 3, 4, 7)], "message ids")
    [(0, 2)]
    """
    if isinstance(ignored, IgnoredRanges):
        return ignored.spans(reason)
    return [(item.first, item.stop) for item in ignored if reason in (None, item.reason)]


def rows_of(ignored: Iterable[Ignored]) -> Iterator[tuple[str, str, int, int, int, int, int]]:
    """Each range's fields (as :meth:`IgnoredRanges.rows` gives them), for any sequence of
    ranges: read from the array, without making a range, for :class:`IgnoredRanges`.

    >>> list(rows_of([Ignored("a.py", "import block", 1, 3, 9)]))
    [('a.py', 'import block', 1, 3, 9, 0, 0)]
    """
    if isinstance(ignored, IgnoredRanges):
        return ignored.rows()
    return (
        (item.path, item.reason, item.start, item.end, item.tokens, item.first, item.stop)
        for item in ignored
    )


def groups_of(
    ignored: Iterable[Ignored],
) -> Iterator[tuple[str, str, Sequence[int], Sequence[int], Sequence[int]]]:
    """The runs of ranges of one file and one reason (as :meth:`IgnoredRanges.groups`
    gives them), for any sequence of ranges: read from the array, without making a range,
    for :class:`IgnoredRanges`; each number as an ``int``, as a report writes it.

    :raises TypeError: if a range's line or token count is not an integer (a float, a
        str), which an :class:`Ignored` made by hand may hold.

    >>> [(path, reason, list(s), list(e), list(t)) for path, reason, s, e, t in groups_of(
    ...     [Ignored("a.py", "import block", 1, 3, 9), Ignored("a.py", "import block", 5, 5, 2)])]
    [('a.py', 'import block', [1, 5], [3, 5], [9, 2])]
    """
    if isinstance(ignored, IgnoredRanges):
        yield from ignored.groups()
        return
    for (path, reason), run in groupby(ignored, key=lambda item: (item.path, item.reason)):
        items = list(run)
        yield (
            path,
            reason,
            [_whole(item.start, "start", item) for item in items],
            [_whole(item.end, "end", item) for item in items],
            [_whole(item.tokens, "tokens", item) for item in items],
        )


def _whole(value: object, name: str, item: Ignored) -> int:
    """``value``, a range's ``name``, as an ``int`` (a numpy integer or a bool as one)."""
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise SamecodeTypeError(
            f"an ignored range's {name} must be an int; got {describe(value)} in {item!r}"
        ) from None
