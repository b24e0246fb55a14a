"""Fingerprints of a text, with positions: k-grams of tokens selected by robust winnowing.

Schleimer, Wilkerson and Aiken (2003), *Winnowing: local algorithms for document
fingerprinting*. A text of ``n`` tokens has ``n - k + 1`` k-grams (runs of ``k``
consecutive tokens), each hashed as the scan hashes its shingles
(:func:`~samecode.text.shingling.kgram_hashes`). Every window of ``w`` consecutive k-gram
hashes selects its minimum hash; *robust winnowing* breaks ties by keeping the position the
previous window selected when it is still in the window and still a minimum, and
otherwise takes the rightmost minimum. The positions selected, each once, are the text's
fingerprints. A text with fewer than ``w`` k-grams (but some) has one window, all of them.

**The guarantee.** Two texts that share a run of at least ``w + k - 1`` tokens share a
fingerprint hash selected in both within that run: the run holds a whole window of ``w``
k-grams, the same in both texts, and each text selects a position holding that window's
minimum. No fingerprint is shorter than ``k`` tokens. Each text keeps at least one
fingerprint per ``w`` k-grams, and about ``2 / (w + 1)`` of them on random text.

>>> hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98]
>>> winnow(hashes, 4)
[3, 6, 8, 11, 15]

The paper's example (its hashes and window): with ties, robust winnowing keeps the ``17``
at position 3 while it stays in the window rather than taking the later ``17``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from samecode._kernels import use_numpy
from samecode._validation import check_int
from samecode.errors import SamecodeValueError
from samecode.fragments.tokens import TokenSpans
from samecode.text.shingling import kgram_hashes

__all__ = ["FragmentFingerprint", "fingerprints", "winnow"]


def _check_window(window: int) -> None:
    check_int(window, "window")
    if window < 1:
        raise SamecodeValueError(f"window must be >= 1; got {window!r}")


def winnow(hashes: Sequence[int], window: int, *, skip: int | None = None) -> list[int]:
    """Return the positions robust winnowing selects among ``hashes``, in increasing
    order, each once (see the module's description).

    :param hashes: the k-gram hashes of a text, in order.
    :param window: ``w``, the k-grams per window, ``>= 1``.
    :param skip: a hash no fingerprint may have (masked k-grams,
        :func:`~samecode.fragments.kgrams.mask_kgrams`): the positions that hold it are
        left out of what is returned, as if filtered afterwards. Windows whose minimum
        it is are not walked for ties (with numpy, they would be walked in Python).
    :raises TypeError: if ``window`` or ``skip`` is not an int.
    :raises ValueError: if ``window`` < 1.

    Runtime complexity: ``O(len(hashes))`` whatever ``window``: a deque holds the
    positions that can still be a window's rightmost minimum (each enters and leaves it
    once). With numpy (``samecode[fast]``), ``O(len(hashes) * log(window))`` in C and a step
    of Python per window whose minimum is tied, with the same positions
    (:mod:`samecode._kernels` says when).

    >>> winnow([5, 5, 5, 5, 5, 5, 5], 3)  # one tie throughout: one choice per window's width
    [2, 5]
    >>> winnow([3, 1, 2], 5)  # fewer hashes than a window: the rightmost minimum of all
    [1]
    >>> winnow([9, 9, 9, 4, 9, 9], 2, skip=9)
    [3]
    """
    _check_window(window)
    if skip is not None:
        check_int(skip, "skip")
    if use_numpy(len(hashes)):
        import samecode._numpy_kernels as fast

        words = fast.as_uint64(hashes)
        if words is not None:
            return fast.winnow(words, window, skip)
    candidates: deque[int] = deque()  # increasing positions, strictly increasing hashes
    pop, push, popleft = candidates.pop, candidates.append, candidates.popleft
    head = min(window - 1, len(hashes))  # the hashes before the first window's last
    for position in range(head):
        value = hashes[position]
        while candidates and hashes[candidates[-1]] >= value:
            pop()
        push(position)
    selected: list[int] = []
    last = -1
    for start, value in enumerate(islice(hashes, head, None)):
        while candidates and hashes[candidates[-1]] >= value:
            pop()
        push(start + window - 1)
        lowest = candidates[0]  # the window's rightmost minimum
        if lowest < start:
            popleft()
            lowest = candidates[0]
        if lowest == last:
            continue
        if last >= start and hashes[lowest] == hashes[last]:
            continue  # the previous choice is still a minimum in the window: kept
        selected.append(lowest)
        last = lowest
    if not selected and candidates:
        selected.append(candidates[0])  # fewer hashes than a window: one window of all
    if skip is not None:
        return [at for at in selected if hashes[at] != skip]
    return selected


@dataclass(frozen=True)
class FragmentFingerprint:
    """A k-gram selected by winnowing: its hash, the tokens it covers (``start`` to
    ``stop``, exclusive, counted from 0), and where they are in the text (lines and
    columns from 1, the end column just past the last character)."""

    hash: int
    start: int
    stop: int
    start_line: int
    start_column: int
    end_line: int
    end_column: int


def fingerprints(tokens: TokenSpans, k: int, window: int) -> list[FragmentFingerprint]:
    """Return the fingerprints of a text's tokens: the k-grams of ``k`` tokens robust
    winnowing selects with windows of ``window`` k-grams, in order, with their spans.

    :param tokens: the text's :class:`~samecode.fragments.tokens.TokenSpans`.
    :param k: tokens per k-gram, ``>= 1``.
    :param window: k-grams per window, ``>= 1``.
    :raises TypeError: if ``k`` or ``window`` is not an int.
    :raises ValueError: if either is below 1.

    Runtime complexity: ``O(n * k)`` for ``n`` tokens in C (the hashes), ``O(n)`` steps
    of Python (the winnowing), ``O(log lines)`` per fingerprint for its span.

    >>> from samecode.text.shingling import Shingling
    >>> text = "\\n".join(f"a{i} = b{i} + c" for i in range(6))
    >>> spans = TokenSpans.of(text, Shingling())
    >>> found = fingerprints(spans, 5, 4)
    >>> [(f.start, f.stop, f.start_line, f.end_line) for f in found][:2]
    [(..., ..., ..., ...), (..., ..., ..., ...)]
    >>> all(0 < b.start - a.start <= 4 for a, b in zip(found, found[1:]))
    True
    """
    _check_window(window)
    hashes = kgram_hashes(tokens.ids, k)
    found = []
    for position in winnow(hashes, window):
        stop = position + k
        span = tokens.span(position, stop)
        found.append(FragmentFingerprint(hashes[position], position, stop, *span))
    return found
