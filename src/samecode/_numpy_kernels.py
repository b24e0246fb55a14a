"""Private: the array kernels on numpy, each giving exactly what its pure-Python
counterpart gives (:mod:`samecode._kernels` says which runs; the property tests in
``tests/text/test_kernels.py`` run both on the same inputs).

Importing this module imports numpy.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from bitarray import bitarray

__all__ = [
    "as_uint64",
    "ascending",
    "distinct_kgrams",
    "held_by",
    "kgram_hashes",
    "line_starts",
    "seed_runs",
    "sieve",
    "sorted_entries",
    "sorted_kgrams",
    "to_array",
    "total",
    "winnow",
    "word_ids",
    "word_offsets",
]

Words = npt.NDArray[np.uint64]

# CPython's tuple hash (Objects/tupleobject.c, xxHash's primes and rotation) and the
# modulus of its int hash; numpy's uint64 arithmetic wraps as Py_uhash_t does.
_P1 = np.uint64(11400714785074694791)
_P2 = np.uint64(14029467366897019727)
_P5 = np.uint64(2870177450012600261)
_MODULUS = np.uint64((1 << 61) - 1)
_ALL_ONES = np.uint64((1 << 64) - 1)
_SHIFT_31, _SHIFT_32, _SHIFT_33 = np.uint64(31), np.uint64(32), np.uint64(33)
_SHIFT_3, _LOW_3 = np.uint64(3), np.uint64(7)


def as_uint64(values: Sequence[int]) -> Words | None:
    """``values`` as uint64 (the array's own memory for an ``array("Q")``); ``None`` if
    one is not an int from 0 to ``2**64 - 1`` (the pure kernels take those)."""
    if isinstance(values, array) and values.typecode == "Q":
        return np.frombuffer(values, dtype=np.uint64) if values else np.empty(0, np.uint64)
    try:
        words = array("Q", values)
    except (OverflowError, TypeError):
        return None
    return np.frombuffer(words, dtype=np.uint64) if words else np.empty(0, np.uint64)


def total(values: array[int]) -> int:
    """The sum of an ``array("Q")``'s values modulo ``2**64``."""
    return int(np.frombuffer(values, dtype=np.uint64).sum(dtype=np.uint64)) if values else 0


def to_array(values: npt.NDArray[np.generic], typecode: str) -> array[int]:
    """An ``array`` of ``typecode`` holding ``values`` (converted)."""
    out = array(typecode)
    converted = np.ascontiguousarray(values.astype(np.dtype(typecode), copy=False))
    out.frombytes(converted.data.cast("B"))  # its bytes as they are: no copy first
    return out


def kgram_hashes(ids: Words, k: int) -> Words:
    """The hash of every run of ``k`` consecutive ``ids`` (``len(ids) >= k >= 1``):
    CPython's ``hash(tuple(run))`` as an unsigned int, as
    :func:`samecode.text.shingling.shingle_hash` computes it, for all runs at once."""
    count = len(ids) - k + 1
    lanes = ids % _MODULUS
    lanes *= _P2
    acc = np.full(count, _P5, dtype=np.uint64)
    spare = np.empty(count, dtype=np.uint64)
    for offset in range(k):
        acc += lanes[offset : offset + count]
        np.right_shift(acc, _SHIFT_33, out=spare)
        acc <<= _SHIFT_31
        acc |= spare
        acc *= _P1
    acc += np.uint64(k ^ (2870177450012600261 ^ 3527539))
    acc[acc == _ALL_ONES] = 1546275796
    return acc


def ascending(values: array[int]) -> array[int]:
    """An ``array("Q")``'s values in ascending order, as ``array("Q", sorted(values))``."""
    return to_array(np.sort(np.frombuffer(values, dtype=np.uint64)), "Q")


def distinct_kgrams(ids: Words, k: int) -> array[int]:
    """The distinct hashes of :func:`kgram_hashes` (``len(ids) >= k >= 1``), ascending, as
    an ``array("Q")``: the set the pure path makes, in order."""
    # sorted, then each value unlike the one before it: numpy 2's np.unique takes some 15
    # times as long for a file's shingles (it hashes them first)
    ordered = np.sort(kgram_hashes(ids, k))
    keep = np.empty(len(ordered), dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return to_array(ordered[keep], "Q")


def _window_minima(hashes: Words, window: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Where each window of ``window`` hashes (``len(hashes) >= window``) has its
    minimum: the leftmost place and the rightmost.

    By doubling: the windows of twice a width are two of that width side by side, and a
    window of any width two overlapping windows of the largest power of two below it;
    where both halves hold the minimum, the left half's leftmost place and the right
    half's rightmost are the window's. ``O(n log window)`` in C.
    """
    value = hashes
    leftmost = rightmost = np.arange(len(hashes))
    width = 1
    while width < window:
        step = min(width, window - width)  # the halves' offset: the width, then the rest
        left, right = value[:-step], value[step:]
        leftmost = np.where(right < left, leftmost[step:], leftmost[:-step])
        rightmost = np.where(left < right, rightmost[:-step], rightmost[step:])
        value = np.minimum(left, right)
        width += step
    return leftmost, rightmost


def winnow(hashes: Words, window: int, skip: int | None = None) -> list[int]:
    """Robust winnowing's positions, as :func:`samecode.fragments.winnowing.winnow`
    selects them (``skip`` as it takes it).

    Each window's rightmost minimum at once; a window whose minimum is there once selects
    it whatever came before, so only the windows with a tied minimum are walked in
    Python, from the choice of the window before them, by the robust rule. A window whose
    minimum is ``skip`` is not walked: what it chooses holds ``skip`` and is left out,
    and the next window whose minimum is another value chooses that whatever came before.
    """
    count = len(hashes)
    if count < window:  # one window of all, or none
        if not count:
            return []
        lowest = count - 1 - int(hashes[::-1].argmin())
        return [] if int(hashes[lowest]) == skip else [lowest]
    leftmost, rightmost = _window_minima(hashes, window)
    ties = np.flatnonzero(leftmost != rightmost)
    if skip is not None and len(ties):
        ties = ties[hashes[rightmost[ties]] != np.uint64(skip)]
    chosen = rightmost
    if len(ties):
        chosen = rightmost.copy()
        lowest = rightmost[ties].tolist()
        before = rightmost[ties - 1].tolist()  # (the last window's for the first: unused)
        values = hashes.tolist()
        last, previous, kept = -1, -2, []
        for start, low, prior in zip(ties.tolist(), lowest, before):
            if start != previous + 1:
                last = prior if start else -1  # the window before had one minimum
            if low != last and (last < start or values[low] != values[last]):
                last = low
            kept.append(last)
            previous = start
        chosen[ties] = kept
    changed = np.empty(len(chosen), dtype=bool)
    changed[0] = True
    np.not_equal(chosen[1:], chosen[:-1], out=changed[1:])
    picked = chosen[changed]
    if skip is not None:
        picked = picked[hashes[picked] != np.uint64(skip)]
    selected: list[int] = picked.tolist()
    return selected


def sorted_entries(
    hashes: array[int], files: array[int]
) -> tuple[array[int], array[int], array[int]]:
    """The entries ``(hash, file)`` of a fingerprint index sorted by hash then file, as
    the two arrays again (``"Q"``, ``"I"``), and where each hash's run of entries starts
    (``"q"``, the number of entries at the end)."""
    by_hash = np.frombuffer(hashes, dtype=np.uint64) if hashes else np.empty(0, np.uint64)
    by_file = np.frombuffer(files, dtype=np.uint32) if files else np.empty(0, np.uint32)
    order = np.lexsort((by_file, by_hash))
    by_hash, by_file = by_hash[order], by_file[order]
    starts = np.flatnonzero(by_hash[1:] != by_hash[:-1]) + 1
    runs = np.concatenate(([0] if len(by_hash) else [], starts, [len(by_hash)]))
    return to_array(by_hash, "Q"), to_array(by_file, "I"), to_array(runs, "q")


def sorted_kgrams(hashes: Words) -> tuple[npt.NDArray[np.intp], Words, Words]:
    """The positions of ``hashes`` in the order of the hashes (a stable sort: equal ones
    in increasing order, as ``sorted`` gives them), those hashes' highest 32 bits, and
    the distinct values of those bits that two positions or more have."""
    order = np.argsort(hashes, kind="stable")
    tops = hashes[order] >> _SHIFT_32
    repeated = tops[1:][tops[1:] == tops[:-1]]  # in order: each the first of its kind
    if len(repeated) > 1:
        repeated = repeated[np.concatenate(([True], repeated[1:] != repeated[:-1]))]
    return order, tops, repeated


def sieve(values: Words, size: int) -> bitarray:
    """A bitarray of ``size`` bits (a power of two, 64 or more), big-endian, the bit
    each value's lowest bits choose set."""
    bits = np.zeros(size, dtype=bool)
    bits[values & np.uint64(size - 1)] = True
    out = bitarray(endian="big")
    out.frombytes(np.packbits(bits).tobytes())
    return out


def _places(
    selected: array[int],
    hashes: array[int],
    other: tuple[array[int], array[int], bitarray],
    most: int | None,
    ignored: frozenset[int],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """The seeds of the fingerprints at ``selected`` (k-gram ``hashes``) among the
    k-grams ``other`` (their hashes, their positions in the order of their hashes and
    their sieve): the fingerprint's position and the other's, a pair per place, and how
    many fingerprints were repetitive (in ``other`` more than ``most`` times),
    ``ignored`` ones left out.

    The sieve is big-endian, of a power of two bits (64 or more), the bit each of the
    other's hashes chooses by its lowest bits set (as
    :class:`~samecode.fragments.kgrams.Kgrams` makes it)."""
    their_hashes, order, sieve = other
    at = np.frombuffer(selected, dtype=selected.typecode).astype(np.int64, copy=False)
    values = np.frombuffer(hashes, dtype=np.uint64)[at]
    # most fingerprints are not in the other text, and its sieve says so for most of
    # those: the rest are sought
    slots = values & np.uint64(len(sieve) - 1)
    bits = np.frombuffer(memoryview(sieve), dtype=np.uint8)[slots >> _SHIFT_3]
    bits <<= (slots & _LOW_3).astype(np.uint8)
    maybe = np.flatnonzero(bits & np.uint8(0x80))
    if not len(maybe):
        return np.empty(0, np.int64), np.empty(0, np.int64), 0
    at, values = at[maybe], values[maybe]
    # searchsorted would cast a sorter of another type at each call
    places = np.frombuffer(order, dtype=order.typecode).astype(np.intp, copy=False)
    theirs = np.frombuffer(their_hashes, dtype=np.uint64)
    low = np.searchsorted(theirs, values, "left", sorter=places)
    held = low < len(places)
    held[held] = theirs[places[low[held]]] == values[held]
    count = np.zeros(len(values), dtype=np.int64)
    count[held] = np.searchsorted(theirs, values[held], "right", sorter=places) - low[held]
    if ignored and held.any():
        found = np.flatnonzero(held)
        held[found] = [value not in ignored for value in values[found].tolist()]
    repetitive = 0
    if most is not None:
        many = held & (count > most)
        repetitive = int(many.sum())
        held &= ~many
    at, low, count = at[held], low[held], count[held]
    # each fingerprint's places: low, low + 1, ... low + count - 1 in the order
    steps = np.arange(int(count.sum()), dtype=np.int64)
    steps += np.repeat(low - (np.cumsum(count) - count), count)
    return np.repeat(at, count), places[steps].astype(np.int64), repetitive


def _agreeing(
    a: Words,
    b: Words,
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    most: npt.NDArray[np.int64],
    step: int,
) -> npt.NDArray[np.int64]:
    """For each row, how many tokens ``a`` and ``b`` agree on from ``i`` and ``j`` on,
    going forwards (``step`` 1) or backwards (``step`` -1, the tokens before them), up to
    ``most``: in rounds of windows that double, each row until it meets a token that
    differs or its limit (so ``O(agreed + 8)`` compared a row)."""
    agreed = np.zeros(len(i), dtype=np.int64)
    active = np.flatnonzero(most > 0)
    width = 8
    while len(active):
        done = agreed[active]
        offsets = np.arange(width, dtype=np.int64)
        inside = offsets < (most[active] - done)[:, None]
        if step > 0:
            x, y = i[active] + done, j[active] + done
        else:
            x, y, offsets = i[active] - done - 1, j[active] - done - 1, -offsets
        x, y = x[:, None] + offsets, y[:, None] + offsets
        x, y = np.where(inside, x, 0), np.where(inside, y, 0)  # within both texts
        same = (a[x] == b[y]) & inside
        whole = same.all(axis=1)
        agreed[active] = done + np.where(whole, width, same.argmin(axis=1))
        active = active[whole & (agreed[active] < most[active])]
        width *= 2
    return agreed


def seed_runs(
    a: array[int],
    b: array[int],
    k: int,
    mine: tuple[array[int], array[int], array[int], bitarray],
    theirs: tuple[array[int], array[int], array[int], bitarray],
    most: int | None,
    same: bool,
    ignored: frozenset[int],
) -> tuple[list[int], list[int], list[int], int]:
    """The matches of :func:`samecode.fragments.regions.exact_matches` between the token
    ids ``a`` and ``b`` (``mine`` and ``theirs``: the hashes, fingerprints, order and
    sieve of their k-grams): the maximal runs of equal tokens through the seeds, as the places in
    ``a`` and ``b`` and lengths, sorted by place in ``a`` then ``b``, and how many
    fingerprints were repetitive.

    Seeds whose k-grams differ (a hash collision) are left out; with ``same``, those not
    below the diagonal, and runs that overlap their copy. On a diagonal, seeds whose
    k-grams overlap or touch lie on one run: a cluster. Each cluster's tokens after its
    last seed are compared up to the next cluster's first (when they all agree, both are
    on one run), and a run's first cluster's before it, to the token that differs: each
    token is compared at most twice, all in C.
    """
    hashes, selected, order, sieve = mine
    their_hashes, their_selected, their_order, their_sieve = theirs
    p, q, repetitive = _places(
        selected, hashes, (their_hashes, their_order, their_sieve), most, ignored
    )
    if same:
        below = q < p
        p, q = p[below], q[below]
    else:
        their_q, their_p, more = _places(
            their_selected, their_hashes, (hashes, order, sieve), most, ignored
        )
        p, q = np.concatenate((p, their_p)), np.concatenate((q, their_q))
        repetitive += more
    tokens_a = np.frombuffer(a, dtype=np.uint64)
    tokens_b = np.frombuffer(b, dtype=np.uint64)
    equal = np.ones(len(p), dtype=bool)
    for offset in range(k):
        equal &= tokens_a[p + offset] == tokens_b[q + offset]
    p, q = p[equal], q[equal]
    diagonal = p - q
    ranked = np.lexsort((p, diagonal))
    p, diagonal = p[ranked], diagonal[ranked]
    if not len(p):
        return [], [], [], repetitive
    # clusters: their first and last seed
    first = np.ones(len(p), dtype=bool)
    first[1:] = (diagonal[1:] != diagonal[:-1]) | (p[1:] - p[:-1] > k)
    starts = np.flatnonzero(first)
    lasts = np.append(starts[1:] - 1, len(p) - 1)
    low, on = p[starts], diagonal[starts]
    after = p[lasts] + k  # the first token past a cluster's last seed, in a
    # up to the next cluster on the diagonal, or the end of either text
    reach = np.minimum(len(tokens_a) - after, len(tokens_b) - (after - on))
    following = np.append(on[1:] == on[:-1], False)
    reach[following] = np.minimum(reach[following], low[1:][following[:-1]] - after[following])
    forward = _agreeing(tokens_a, tokens_b, after, after - on, reach, 1)
    joined = following & (forward == reach)  # the next cluster is on the same run
    # a run: its clusters, from one that does not follow a joined one
    opens = np.ones(len(low), dtype=bool)
    opens[1:] = ~joined[:-1]
    closes = np.append(opens[1:], True)
    begin, on = low[opens], on[opens]
    back = _agreeing(tokens_a, tokens_b, begin, begin - on, np.minimum(begin, begin - on), -1)
    run_a = begin - back
    length = (after + forward)[closes] - run_a
    if same:  # a tandem repeat overlaps its copy
        kept = length <= on
        run_a, on, length = run_a[kept], on[kept], length[kept]
    run_b = run_a - on
    ordered = np.lexsort((run_b, run_a))
    return (
        run_a[ordered].tolist(),
        run_b[ordered].tolist(),
        length[ordered].tolist(),
        repetitive,
    )


def _codes(text: str) -> npt.NDArray[np.unsignedinteger]:
    """The code points of ``text``: a byte each for ASCII, else 4 (a lone surrogate as
    itself)."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _word_bounds(
    codes: npt.NDArray[np.unsignedinteger], ascii_kinds: bytes, kind: Callable[[str], int]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Where each word token of a text (its ``codes``) starts and where it ends (see
    :func:`word_offsets`)."""
    if codes.dtype == np.uint8:
        kinds = np.frombuffer(ascii_kinds, dtype=np.uint8)[codes]
    else:
        kinds = np.empty(len(codes), dtype=np.uint8)
        narrow = codes < len(ascii_kinds)
        kinds[narrow] = np.frombuffer(ascii_kinds, dtype=np.uint8)[codes[narrow]]
        wide = np.flatnonzero(~narrow)
        distinct, which = np.unique(codes[wide], return_inverse=True)
        of_distinct = np.array([kind(chr(code)) for code in distinct.tolist()], dtype=np.uint8)
        kinds[wide] = of_distinct[which]
    word = kinds == 1
    alone = kinds == 2
    begins, finishes = word.copy(), word.copy()
    begins[1:] &= ~word[:-1]  # a word's first character: none of its run before it
    finishes[:-1] &= ~word[1:]
    return np.flatnonzero(begins | alone), np.flatnonzero(finishes | alone) + 1


def word_offsets(
    text: str, ascii_kinds: bytes, kind: Callable[[str], int], typecode: str
) -> tuple[array[int], array[int]]:
    """Where each word token of ``text`` starts and where it ends, as arrays of
    ``typecode``: a token is a run of word characters (kind 1) or one character of kind 2;
    kind 0 (white space) is no token. ``ascii_kinds[c]`` is the kind of the character
    ``chr(c)``, ``kind`` that of any other (asked once a distinct character)."""
    starts, ends = _word_bounds(_codes(text), ascii_kinds, kind)
    return to_array(starts, typecode), to_array(ends, typecode)


# A token of at most 7 bytes of UTF-8 is told apart from any other by one uint64: its
# bytes, and its length in the highest byte.
_PACKED = 7
_BYTE_MASKS = np.array([(1 << 8 * size) - 1 for size in range(_PACKED + 1)], dtype=np.uint64)
_SHIFT_56 = np.uint64(56)


def word_ids(
    text: str,
    ascii_kinds: bytes,
    kind: Callable[[str], int],
    typecode: str,
    id_of: Callable[[str], int],
    packed_id_of: Callable[[int], int],
) -> tuple[array[int], array[int], array[int]]:
    """:func:`word_offsets`, with each token's id before them (an ``array("Q")``): for a
    token of up to 7 bytes of UTF-8 (most tokens), ``packed_id_of`` its bytes packed in an
    int (little-endian, with their count in the highest byte), asked once a distinct
    one; for a longer token, ``id_of`` its text."""
    codes = _codes(text)
    starts, ends = _word_bounds(codes, ascii_kinds, kind)
    if codes.dtype == np.uint8:
        data, first, size = codes, starts, ends - starts
    else:  # the tokens' bytes in UTF-8: each character's offset there
        data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        at = np.zeros(len(codes) + 1, dtype=np.intp)
        widths = (codes >= 0x80).astype(np.uint8)
        widths += codes >= 0x800
        widths += codes >= 0x10000
        widths += 1
        np.cumsum(widths, dtype=np.intp, out=at[1:])
        first = at[starts]
        size = at[ends] - first
    padded = np.zeros(len(data) + 8, dtype=np.uint8)
    padded[: len(data)] = data
    # the 8 bytes from each offset on, as a little-endian uint64 (loads not aligned)
    eights = np.ndarray((len(data) + 1,), dtype="<u8", buffer=padded, strides=(1,))
    ids = np.empty(len(starts), dtype=np.uint64)
    short = np.flatnonzero(size <= _PACKED)
    keys = eights[first[short]] & _BYTE_MASKS[size[short]]
    keys |= size[short].astype(np.uint64) << _SHIFT_56
    order = np.argsort(keys)
    ranked = keys[order]
    new = np.empty(len(ranked), dtype=bool)
    new[:1] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    distinct = ranked[new]
    of_distinct = np.fromiter(map(packed_id_of, distinct.tolist()), np.uint64, len(distinct))
    ids[short[order]] = of_distinct[np.cumsum(new) - 1]
    long = np.flatnonzero(size > _PACKED)
    ids[long] = _ids_of(text, starts[long], ends[long], id_of)
    return to_array(ids, "Q"), to_array(starts, typecode), to_array(ends, typecode)


def _ids_of(
    text: str,
    starts: npt.NDArray[np.intp],
    ends: npt.NDArray[np.intp],
    id_of: Callable[[str], int],
) -> Words:
    """``id_of`` each token ``text[start:end]``, in C's loops."""
    tokens = map(text.__getitem__, map(slice, starts.tolist(), ends.tolist()))
    return np.fromiter(map(id_of, tokens), dtype=np.uint64, count=len(starts))


def held_by(
    starts: array[int],
    ends: array[int],
    line_starts: array[int],
    runs: Sequence[tuple[int, int]],
) -> list[tuple[int, int, int, int]] | None:
    """:meth:`TokenSpans.held_by <samecode.fragments.tokens.TokenSpans.held_by>` of a
    text's token ``starts`` and ``ends`` and its ``line_starts``: each run's binary
    searches made for all the runs at once. ``None`` where a run is not two ints (of
    numpy's ``int64``) from 1, the end not before the start, or there are none (the pure
    kernel names the first bad run)."""
    try:
        bounds = np.array(runs)
    except (TypeError, ValueError, OverflowError):
        return None
    if bounds.dtype.kind != "i" or bounds.shape != (len(runs), 2):  # not ints, or not pairs
        return None
    first_line, last_line = bounds[:, 0], bounds[:, 1]
    if len(bounds) and not ((first_line >= 1).all() and (last_line >= first_line).all()):
        return None
    lines = len(line_starts)
    token_starts = np.frombuffer(starts, dtype=np.dtype(starts.typecode))
    token_ends = np.frombuffer(ends, dtype=np.dtype(ends.typecode))
    offsets = np.frombuffer(line_starts, dtype=np.int64)
    kept = first_line <= lines
    first_line, last_line = first_line[kept], last_line[kept]
    first = np.searchsorted(token_starts, offsets[first_line - 1], side="left")
    through = last_line >= lines
    stop = np.searchsorted(token_starts, offsets[np.minimum(last_line, lines - 1)], side="left")
    stop[through] = len(token_starts)
    holding = stop > first
    first, stop = first[holding], stop[holding]
    start_line = np.searchsorted(offsets, token_starts[first], side="right")
    end_line = np.searchsorted(offsets, token_ends[stop - 1] - 1, side="right")
    return list(zip(start_line.tolist(), end_line.tolist(), first.tolist(), stop.tolist()))


def line_starts(text: str) -> array[int]:
    """The offsets where the lines of ``text`` start (the first at 0; each other just past
    a ``\\n``), as an ``array("q")``."""
    starts = np.flatnonzero(_codes(text) == 10)
    starts += 1
    return to_array(np.concatenate((np.zeros(1, np.int64), starts)), "q")
