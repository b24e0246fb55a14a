"""A text's tokens with where they are: ids, character offsets, and the lines they are on.

:class:`TokenSpans` holds what fragments need of a file: the scan's tokens
(:meth:`Shingling.token_spans <samecode.text.shingling.Shingling.token_spans>`, so
``--tokens`` and ``--normalize`` mean what they mean for a scan), each as its 64-bit id
(:func:`~samecode.text.shingling.token_id`), with the span of text it came from. Lines are
counted from 1 and end at ``\\n`` (a ``\\r\\n`` pair ends one line); columns are counted
from 1 in characters, and an end column is the one just past the last character, as in
SARIF.

>>> from samecode.text.shingling import Shingling
>>> spans = TokenSpans.of("def f(x):\\n    return x\\n", Shingling(tokens="code"), "a.py")
>>> len(spans), spans.lines(0, 2), spans.lines(6, 8)
(8, (1, 1), (2, 2))
>>> spans.span(6, 8)
(2, 5, 2, 13)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import accumulate

from samecode._kernels import use_numpy
from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.text.shingling import Shingling

__all__ = ["TokenSpans"]


@dataclass(frozen=True)
class TokenSpans:
    """A text's tokens: their ids, the offset where each starts and the offset just past
    its end, and the offsets where the text's lines start (the first at 0).

    Picklable; memory 16 bytes per token (24 in a text of ``2**31`` characters or more)
    and 8 per line.
    """

    ids: array[int] = field(repr=False)
    starts: array[int] = field(repr=False)
    ends: array[int] = field(repr=False)
    line_starts: array[int] = field(repr=False)

    @classmethod
    def of(cls, text: str, shingling: Shingling, path: str = "") -> TokenSpans:
        """The tokens of ``text`` by ``shingling``'s rules (its ``size`` plays no part),
        for a file at ``path`` (whose extension names its language).

        :raises TypeError: if ``text`` is not a ``str`` or ``shingling`` not a
            :class:`~samecode.text.shingling.Shingling`.

        Runtime complexity: ``O(len(text))``: the tokenizer's, one id per token
        (remembered), one step per token and per line.
        """
        if not isinstance(shingling, Shingling):
            raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(shingling)}")
        offsets = "i" if len(text) < 2**31 else "q"  # 4 bytes an offset where they fit
        ids, starts, ends = shingling.id_offsets(text, path, offsets)
        if use_numpy(len(text)):
            import samecode._numpy_kernels as fast

            lines = fast.line_starts(text)
        else:
            lines = array("q", [0])
            # each line starts just past the one before and its newline
            lines.extend(accumulate(len(line) + 1 for line in text.split("\n")[:-1]))
        return cls(ids, starts, ends, lines)

    def __len__(self) -> int:
        return len(self.ids)

    def _check(self, first: int, stop: int) -> None:
        if not 0 <= first < stop <= len(self.ids):
            raise SamecodeValueError(
                f"a token range must be within 0 to {len(self.ids)} and not empty; "
                f"got {first} to {stop}"
            )

    def line_of(self, offset: int) -> int:
        """The line (from 1) holding the character at ``offset``."""
        return bisect_right(self.line_starts, offset)

    def lines(self, first: int, stop: int) -> tuple[int, int]:
        """The first and last line (from 1, inclusive) of the tokens ``first`` to
        ``stop`` (exclusive).

        :raises ValueError: for an empty range or one outside the tokens.
        """
        self._check(first, stop)
        return self.line_of(self.starts[first]), self.line_of(self.ends[stop - 1] - 1)

    def _on_line(self, line: int) -> tuple[int, int]:
        """The tokens starting on ``line``: ``first`` to ``stop`` (exclusive)."""
        low = bisect_left(self.starts, self.line_starts[line - 1])
        if line < len(self.line_starts):
            return low, bisect_left(self.starts, self.line_starts[line])
        return low, len(self.starts)

    def holds_a_line(self, first: int, stop: int) -> bool:
        """Whether the tokens ``first`` to ``stop`` (exclusive) hold every token of at
        least one line.

        :raises ValueError: for an empty range or one outside the tokens.

        >>> from samecode.text.shingling import Shingling
        >>> spans = TokenSpans.of("x = f(1)\\ny = g(2)\\nz = h(3)", Shingling())
        >>> spans.holds_a_line(4, 12), spans.holds_a_line(6, 12), spans.holds_a_line(7, 17)
        (True, True, False)
        """
        self._check(first, stop)
        low, high = self._on_line(self.line_of(self.starts[first]))
        if low == first:
            return high <= stop
        return high < stop and self._on_line(self.line_of(self.starts[high]))[1] <= stop

    def tokens_on(self, start: int, end: int) -> tuple[int, int]:
        """The tokens that start on the lines ``start`` to ``end`` (from 1, inclusive):
        ``first`` to ``stop`` (exclusive; equal when there are none).

        :raises ValueError: if ``start`` < 1 or ``end`` < ``start``.

        >>> from samecode.text.shingling import Shingling
        >>> TokenSpans.of("a b\\nc\\n\\nd e f", Shingling()).tokens_on(2, 3)
        (2, 3)
        """
        if not 1 <= start <= end:
            raise SamecodeValueError(
                f"lines must run from 1 up, the end not before the start; got {start} to {end}"
            )
        if start > len(self.line_starts):
            return len(self.starts), len(self.starts)
        first = bisect_left(self.starts, self.line_starts[start - 1])
        if end >= len(self.line_starts):
            return first, len(self.starts)
        return first, bisect_left(self.starts, self.line_starts[end], first)

    def held_by(self, runs: Iterable[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
        """For each run of lines ``(start, end)`` (from 1, inclusive) that holds tokens,
        in order: the first and last line of its tokens (:meth:`lines`), then ``first`` and
        ``stop`` (:meth:`tokens_on`); a run that holds none is left out.

        :raises ValueError: for a run whose ``start`` < 1 or whose ``end`` < ``start``.

        Runtime complexity: ``O(log n)`` a run, for ``n`` tokens and lines: four binary
        searches, with no call a run (the masks of a catalogue run to thousands); with
        numpy (``samecode[fast]``), the searches of every run at once, in C.

        >>> from samecode.text.shingling import Shingling
        >>> spans = TokenSpans.of("a b\\nc\\n\\nd e f", Shingling())
        >>> spans.held_by([(1, 2), (3, 3), (3, 4)])
        [(1, 2, 0, 3), (4, 4, 3, 6)]
        """
        starts, ends, line_starts = self.starts, self.ends, self.line_starts
        runs = runs if isinstance(runs, list) else list(runs)
        # four binary searches a run: on numpy from some 32 runs (bench_kernels.py)
        if use_numpy(4 * len(runs)) and line_starts.typecode == "q":
            import samecode._numpy_kernels as fast

            found = fast.held_by(starts, ends, line_starts, runs)
            if found is not None:
                return found
        lines, count = len(line_starts), len(starts)
        held = []
        for start, end in runs:
            if not 1 <= start <= end:
                raise SamecodeValueError(
                    f"lines must run from 1 up, the end not before the start; got {start} to {end}"
                )
            if start > lines:
                continue
            first = bisect_left(starts, line_starts[start - 1])
            stop = count if end >= lines else bisect_left(starts, line_starts[end], first)
            if stop > first:
                held.append((
                    bisect_right(line_starts, starts[first]),
                    bisect_right(line_starts, ends[stop - 1] - 1),
                    first,
                    stop,
                ))  # fmt: skip
        return held

    def whole_lines(self, first: int, stop: int) -> tuple[int, int]:
        """The lines of the tokens ``first`` to ``stop`` (as :meth:`lines`), leaving out
        a first or last line of several where they hold fewer than half the tokens that
        start on it (a ``)`` that ends the line before a copied block, say).

        :raises ValueError: for an empty range or one outside the tokens.

        >>> from samecode.text.shingling import Shingling
        >>> spans = TokenSpans.of("x = f(1)\\ny = g(2)\\nz = h(3)", Shingling())
        >>> spans.lines(5, 14), spans.whole_lines(5, 14)
        ((1, 3), (2, 2))
        """
        start, end = self.lines(first, stop)
        if start < end:
            low, high = self._on_line(start)
            if 2 * (high - first) < high - low:
                start = self.line_of(self.starts[high])
        if start < end:
            low, high = self._on_line(end)
            if low < stop and 2 * (stop - low) < high - low:
                end = self.line_of(self.ends[low - 1] - 1)
        return start, end

    def span(self, first: int, stop: int) -> tuple[int, int, int, int]:
        """``(start_line, start_column, end_line, end_column)`` of the tokens ``first`` to
        ``stop`` (exclusive): lines and columns from 1, the end column just past the last
        character.

        :raises ValueError: for an empty range or one outside the tokens.
        """
        start_line, end_line = self.lines(first, stop)
        start = self.starts[first]
        last = self.ends[stop - 1] - 1
        return (
            start_line,
            start - self.line_starts[start_line - 1] + 1,
            end_line,
            last - self.line_starts[end_line - 1] + 2,
        )
