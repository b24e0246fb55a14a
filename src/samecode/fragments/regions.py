"""Regions: where two texts share tokens, as exact matches chained across small gaps.

Matching two token sequences ``a`` and ``b`` (:func:`exact_matches`):

1. **Seeds.** Every fingerprint of ``a`` (a position robust winnowing selected, see
   :mod:`~samecode.fragments.winnowing`) is looked up among *all* the k-grams of ``b``
   (:class:`~samecode.fragments.kgrams.Kgrams`, sorted by hash), and every fingerprint of
   ``b`` among those of ``a``: each position of the other text holding the same hash is
   a seed, a point ``(i, j)`` on the diagonal ``i - j``. A fingerprint whose k-gram is in
   the other text more than ``max_repeats`` times seeds nothing there (it is counted as
   *repetitive*), which bounds the seeds to ``max_repeats`` per fingerprint; so does a
   boilerplate one (``ignored``).
2. **Exact matches.** A seed inside a match already found on its diagonal is skipped;
   any other is checked token by token (a hash collision seeds nothing) and extended
   both ways as far as the tokens agree. Each match is therefore a *maximal* run of
   equal tokens on its diagonal, at least ``k`` long, and the matches are the runs
   through the seeds, whatever order the seeds come in. So a fingerprint inside the
   last match found (or met), whose k-gram the other text has there and nowhere else
   (:meth:`~samecode.fragments.kgrams.Kgrams.may_repeat`), is not looked up: it could
   only seed that match again.
3. **Regions.** Matches in order in both texts, each starting at most ``gap`` tokens after
   the previous one ends in each text, are chained into one region (an edited or inserted
   line between two matches). A chain is a region when it holds at least ``min_tokens``
   matched tokens. Of regions that overlap in both texts, only the one with the most
   tokens is kept (then the earliest): repeated text (lines made alike by ``normalize``,
   say) matches on many diagonals, each an alignment of the same two places. Each end of
   a region kept then takes the longest run of at least 6 equal tokens (or ``k``) within
   ``gap`` tokens of it in both texts, if there is one (one run per end) and if the
   region then overlaps no other in both texts: the part of a copy between an edit and
   its edge, too short to hold a fingerprint (not with ``normalize``, where short runs of
   placeholders match anywhere; nor within one text).

**Identical texts.** Two texts of the same tokens (a byte-identical file, say) share one
region, all of both, whatever their size, ``min_tokens`` and boilerplate: no seed is
needed (the tokens are compared first, in C).

**The guarantee** (with no fingerprint repetitive or ignored as boilerplate): every
maximal run of at least ``window + k - 1`` equal tokens shared by ``a`` and ``b`` is one of
the exact matches, exactly. The run holds a whole window of ``a``, whose selected k-gram
is in ``b`` at the same offset in the run, so a seed lies on the run's diagonal and
extends to the whole run. Seeding from both texts finds shorter runs too, the same
whichever text is ``a``.
Every match is a run of equal tokens at least ``k`` long. Every such run
of at least ``min_tokens`` tokens overlaps a region reported, in both texts at once
(within it, unless another alignment of the same places matched as many tokens or more
before the ends grew). No two regions reported overlap in both texts.

**Cost.** With the texts' :class:`~samecode.fragments.kgrams.Kgrams` made (``O(n log
n)`` each, once), a step for each fingerprint of each text to rule out most of those
whose k-gram the other lacks (its sieve), ``O(log m)`` for each of ``a``'s left and
``O(log n)`` for each of ``b``'s, at most ``max_repeats`` seeds for each, ``O(log s)``
for each seed on a diagonal with ``s`` matches, and for each match ``O(L)`` in C and
``O(log L)`` steps of Python for its ``L`` tokens (a match is extended once, whatever
the seeds on it); chaining costs ``O(gap + 1)`` lookups per
match. One file of a million equal tokens against itself has
one k-gram repeated everywhere: every fingerprint is repetitive, and the work is linear.
With numpy (``samecode[fast]``), the fingerprints are looked up all at once (``O((m + n)
log n)`` in C), the seeds checked and sorted by diagonal, and the runs through them
extended, all in C (seeds whose k-grams overlap or touch lie on one run; each token is
compared at most twice): no step of Python per seed or per match but to make it. The
matches are the same.

>>> from array import array
>>> a = array("Q", [1, 2, 3, 4, 5, 6, 7, 8, 9])
>>> b = array("Q", [0, 0, 3, 4, 5, 6, 7, 0])
>>> exact_matches(a, b, k=2, window=2)
([Match(a_start=2, b_start=2, length=5)], 0)
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush

from samecode._kernels import use_numpy
from samecode.fragments._boxes import Boxes
from samecode.fragments._extend import common_prefix, common_suffix
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tokens import TokenSpans

__all__ = [
    "Match",
    "Region",
    "chain_matches",
    "exact_matches",
    "find_regions",
    "grow_chain",
    "region_order",
]

_PAST = 2**63  # past any token position: (p, _PAST) sorts after every span starting at p


@dataclass(frozen=True, slots=True)
class Match:
    """A maximal run of equal tokens: ``a[a_start : a_start + length] == b[b_start :
    b_start + length]``, token indexes from 0."""

    a_start: int
    b_start: int
    length: int

    @property
    def a_stop(self) -> int:
        """Just past the match in ``a``."""
        return self.a_start + self.length

    @property
    def b_stop(self) -> int:
        """Just past the match in ``b``."""
        return self.b_start + self.length

    def __reduce__(self) -> tuple[type[Match], tuple[int, int, int]]:
        # A scan's regions and their matches cross from the workers by the hundred
        # thousand; a dataclass's own pickling looks up its fields for every object.
        return Match, (self.a_start, self.b_start, self.length)


def exact_matches(
    a: array[int],
    b: array[int],
    *,
    k: int,
    window: int,
    max_repeats: int | None = None,
    same: bool = False,
    ignored: frozenset[int] = frozenset(),
    kgrams: tuple[Kgrams, Kgrams] | None = None,
) -> tuple[list[Match], int]:
    """Return the exact matches between the token ids ``a`` and ``b`` that fingerprints
    seed (see the module's description), sorted by where they are in ``a`` then ``b``, and
    how many fingerprints were repetitive.

    :param a: a text's token ids.
    :param b: another text's token ids (or the same, with ``same``).
    :param k: tokens per k-gram.
    :param window: k-grams per winnowing window.
    :param max_repeats: a fingerprint whose k-gram is in ``b`` more often seeds nothing
        (``None``: no limit).
    :param same: ``a`` and ``b`` are one text: only matches whose copy in ``b`` is
        earlier, and that do not overlap it, are found (each repeated run once).
    :param ignored: k-gram hashes that seed nothing (boilerplate).
    :param kgrams: the :class:`~samecode.fragments.kgrams.Kgrams` of ``a`` and ``b`` with
        ``k`` and ``window``, if already made.

    Runtime complexity: see the module's description.
    """
    if kgrams is None:
        first = Kgrams.of(a, k, window)
        kgrams = (first, first if same else Kgrams.of(b, k, window))
    mine, theirs = kgrams
    # Seeding on numpy makes some 60 calls of it, 0.3 to 0.6 ms a pair whatever its size:
    # pure Python's loop over the fingerprints is faster below about 1,000 of them
    # (benchmarks/bench_seed_paths.py).
    if use_numpy(len(mine.selected) + len(theirs.selected), calls=8):
        import samecode._numpy_kernels as fast

        in_a, in_b, lengths, repetitive = fast.seed_runs(
            a, b, k, (mine.hashes, mine.selected, mine.positions, mine.sieve),
            (theirs.hashes, theirs.selected, theirs.positions, theirs.sieve), max_repeats, same,
            ignored,
        )  # fmt: skip
        return list(map(Match, in_a, in_b, lengths)), repetitive
    # Seeds come in the order of their places in the seeding text, so on a diagonal in
    # the order of a: the matches found from a's fingerprints are appended to a sorted
    # list, and a seed from b's lies in one of them (a binary search) or in the last
    # match found from b's on its diagonal, if in any.
    seeds = _Seeds(a, b, k, max_repeats, same, ignored)
    # a's fingerprints among b's k-grams, then (for two texts) b's among a's
    repetitive = _seed_from(seeds, mine, theirs, False)
    if not same:
        repetitive += _seed_from(seeds, theirs, mine, True)
    seeds.matches.sort(key=lambda m: (m.a_start, m.b_start))
    return seeds.matches, repetitive


@dataclass(slots=True)
class _Seeds:
    """What :func:`exact_matches` knows while it seeds: the texts and its parameters,
    the matches found on each diagonal (to skip the seeds inside them), and the matches."""

    a: array[int]
    b: array[int]
    k: int
    max_repeats: int | None
    same: bool
    ignored: frozenset[int]
    #: diagonal -> the spans in ``a`` of the matches a's fingerprints found there, sorted
    found: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    #: diagonal -> the span in ``a`` of the last match b's fingerprints found there
    later: dict[int, tuple[int, int]] = field(default_factory=dict)
    matches: list[Match] = field(default_factory=list)


def _seed_from(seeds: _Seeds, seeding: Kgrams, other: Kgrams, flip: bool) -> int:
    """Seed matches from the fingerprints of ``seeding`` looked up among the k-grams of
    ``other`` (``flip``: ``seeding`` is ``b``); return how many were repetitive.

    A fingerprint inside the last match found or met, whose k-gram the other text has
    only there, would seed that match again: it is passed over without a look-up.
    (Against itself a text has such a k-gram twice, and with max_repeats 0 no match is
    ever found: neither ever passes a fingerprint over.)
    """
    k, ignored, max_repeats = seeds.k, seeds.ignored, seeds.max_repeats
    hashes, theirs_hashes = seeding.hashes, other.hashes
    sieve = other.sieve  # most hashes the other text lacks fail here (Kgrams.may_have)
    mask = len(sieve) - 1
    repeats = other.repeats  # most hashes it has once fail here (Kgrams.may_repeat)
    once = len(repeats) - 1
    repetitive = 0
    shift, low, high = 0, 0, -1  # the last match: seeding - other position, its span
    for at in seeding.selected:
        value = hashes[at]
        if not sieve[value & mask] or value in ignored:
            continue
        if (
            low <= at <= high - k
            and theirs_hashes[at - shift] == value
            and not repeats[(value >> 32) & once]
        ):
            continue
        places = other.where(value, max_repeats)
        if places is None:
            repetitive += 1
            continue
        last = _follow_seeds(seeds, at, places, flip)
        if last is not None:
            shift, low, high = last
    return repetitive


def _follow_seeds(
    seeds: _Seeds, at: int, places: Sequence[int], flip: bool
) -> tuple[int, int, int] | None:
    """Find the matches through the seeds of the fingerprint at ``at`` at each of
    ``places`` in the other text; return the last match found or met, as ``(seeding -
    other position, its span in the seeding text)``, or ``None`` if none."""
    same, found, later = seeds.same, seeds.found, seeds.later
    last = None
    for place in places:
        p, q = (place, at) if flip else (at, place)
        if same and q >= p:
            break
        diagonal = p - q
        spans = found.get(diagonal)
        start = -1
        if spans is not None:
            after = bisect_right(spans, (p, _PAST))
            if after and p < spans[after - 1][1]:
                start, stop = spans[after - 1]  # inside a match found already
        if start < 0 and flip and diagonal in later:
            start, stop = later[diagonal]
            if not start <= p < stop:
                start = -1
        if start < 0:
            run = _new_match(seeds, p, q, spans, flip)
            if run is None:
                continue  # a hash collision
            start, stop = run
        last = (-diagonal, start - diagonal, stop - diagonal) if flip else (diagonal, start, stop)
    return last


def _new_match(
    seeds: _Seeds, p: int, q: int, spans: list[tuple[int, int]] | None, flip: bool
) -> tuple[int, int] | None:
    """The maximal run of equal tokens through ``a[p : p + k]`` and ``b[q : q + k]``, a
    seed in no match found yet, as its span in ``a``, recorded on its diagonal (among
    ``spans``, those of a's seeds there, or as the last of b's) and as a match (unless
    a tandem repeat within one text); ``None`` if the k-grams differ (a hash collision)."""
    a, b, k = seeds.a, seeds.b, seeds.k
    if a[p : p + k] != b[q : q + k]:
        return None
    diagonal = p - q
    start = p - common_suffix(a, b, p, q)
    stop = p + k + common_prefix(a, b, p + k, q + k)
    if flip:
        seeds.later[diagonal] = (start, stop)
    elif spans is None:
        seeds.found[diagonal] = [(start, stop)]
    else:
        spans.append((start, stop))
    if not seeds.same or stop - start <= diagonal:  # not a tandem repeat
        seeds.matches.append(Match(start, start - diagonal, stop - start))
    return start, stop


def chain_matches(matches: Sequence[Match], gap: int) -> list[list[Match]]:
    """Chain ``matches`` (sorted by :func:`exact_matches`) into regions: a match follows
    the last one of a chain when, in both texts, it starts within ``gap`` tokens of that
    one's end (before or after it) and ends after it. Its first tokens that the chain
    already holds in either text are cut off, so a chain's matches follow each other in
    both texts, at most ``gap`` tokens apart, and count each token once. A match joins the
    chain whose end in ``b`` is nearest its start (before it first), then nearest in
    ``a``, then the earliest made; chains come in the order of their first match;
    ``gap=0`` chains nothing.

    Runtime complexity: per match, ``O(log c)`` to keep the ``c`` chain ends a later match
    can still reach (in a heap), and a look at each of them when they are fewer than
    ``2 * gap + 1``, else ``O(gap)`` dictionary lookups and ``O(gap)`` more for each place
    in ``b`` where chains end, whatever the number of matches or chains.

    >>> chains = chain_matches([Match(0, 0, 5), Match(7, 6, 5), Match(30, 30, 5)], gap=2)
    >>> [[(m.a_start, m.b_start, m.length) for m in chain] for chain in chains]
    [[(0, 0, 5), (7, 6, 5)], [(30, 30, 5)]]
    >>> chains = chain_matches([Match(0, 0, 5), Match(4, 6, 5)], gap=2)  # overlapping in a
    >>> [[(m.a_start, m.b_start, m.length) for m in chain] for chain in chains]
    [[(0, 0, 5), (5, 7, 4)]]
    """
    chains: list[list[Match]] = []
    if not gap:
        return [[match] for match in matches]
    # Where each chain's last match ends, two ways: b_stop -> a_stop -> chains (probed at
    # the 2 * gap + 1 places near a match, nearest first), and a heap of (a_stop, arrival,
    # chain, b_stop) of the ends a later match can still reach (matches come in the order
    # of a_start), scanned instead when they are fewer than those places. Both give the
    # same choice: the nearest in b, then in a, then the end that arrived first.
    ending: dict[int, dict[int, list[int]]] = {}
    live: list[tuple[int, int, int, int]] = []
    arrived: dict[int, int] = {}  # chain -> the arrival of its live end
    places = [0]
    for distance in range(1, gap + 1):
        places += [distance, -distance]  # start - stop: nearest first, before it first
    for arrival, match in enumerate(matches):
        while live and live[0][0] < match.a_start - gap:
            heappop(live)
        if len(live) < len(places):
            joined, cut = _nearest_end(match, live, arrived, gap)
        else:
            joined, cut = _probe_ends(match, ending, places, gap)
        if joined < 0:
            joined = len(chains)
            chains.append([match])
        else:
            last = chains[joined][-1]
            by_a = ending[last.b_stop]
            by_a[last.a_stop].remove(joined)
            if not by_a[last.a_stop]:  # no chain ends there any more
                del by_a[last.a_stop]
                if not by_a:
                    del ending[last.b_stop]
            if cut:
                match = Match(match.a_start + cut, match.b_start + cut, match.length - cut)
            chains[joined].append(match)
        ending.setdefault(match.b_stop, {}).setdefault(match.a_stop, []).append(joined)
        arrived[joined] = arrival
        heappush(live, (match.a_stop, arrival, joined, match.b_stop))
    return chains


def _rank(distance: int) -> int:
    """Where ``distance`` is in the order 0, 1, -1, 2, -2, ..."""
    return 2 * distance - 1 if distance > 0 else -2 * distance


def _nearest_end(
    match: Match, live: list[tuple[int, int, int, int]], arrived: dict[int, int], gap: int
) -> tuple[int, int]:
    """The chain ``match`` joins, and the tokens cut off its start, found by scanning the
    live ends: ``(-1, 0)`` if none."""
    best: tuple[int, int, int] | None = None
    joined, cut = -1, 0
    for a_stop, arrival, number, b_stop in live:
        if arrived[number] != arrival:
            continue  # an end its chain has moved on from
        a_distance, b_distance = match.a_start - a_stop, match.b_start - b_stop
        if abs(a_distance) > gap or abs(b_distance) > gap:
            continue
        held = max(0, -a_distance, -b_distance)  # the tokens the chain holds already
        if held < match.length and held + max(a_distance, b_distance) <= gap:
            key = (_rank(b_distance), _rank(a_distance), arrival)
            if best is None or key < best:
                best, joined, cut = key, number, held
    return joined, cut


def _probe_ends(
    match: Match, ending: dict[int, dict[int, list[int]]], places: list[int], gap: int
) -> tuple[int, int]:
    """:func:`_nearest_end` by looking up the places near ``match``, nearest first."""
    for b_distance in places:
        by_a = ending.get(match.b_start - b_distance)
        if by_a is None:
            continue
        if len(by_a) < len(places):  # fewer ends at this place in b than places in a
            best: tuple[int, int, int] | None = None
            for a_stop, numbers in by_a.items():
                a_distance = match.a_start - a_stop
                held = max(0, -a_distance, -b_distance)
                near = abs(a_distance) <= gap and held + max(a_distance, b_distance) <= gap
                if near and held < match.length:
                    rank = _rank(a_distance)
                    if best is None or rank < best[0]:
                        best = (rank, numbers[0], held)
            if best is not None:
                return best[1], best[2]
            continue
        for a_distance in places:
            for number in by_a.get(match.a_start - a_distance, ()):
                held = max(0, -a_distance, -b_distance)
                if held < match.length and held + max(a_distance, b_distance) <= gap:
                    return number, held
    return -1, 0


@dataclass(frozen=True, slots=True)
class Region:
    """A region two files share: a chain of exact matches.

    ``a_start`` to ``a_end`` and ``b_start`` to ``b_end`` are its lines (from 1,
    inclusive) in files ``a`` and ``b``, a first or last line where the region holds
    fewer than half the tokens left out
    (:meth:`~samecode.fragments.tokens.TokenSpans.whole_lines`); ``tokens`` the tokens
    matched (gaps left out); ``a_share`` and ``b_share`` the share of each file's tokens
    it matches. ``a_first`` to ``a_stop`` (and ``b_...``) are its tokens (from 0, the
    stop exclusive), and ``matches`` its exact matches.
    """

    a: str
    b: str
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    tokens: int
    a_share: float
    b_share: float
    a_first: int
    a_stop: int
    b_first: int
    b_stop: int
    matches: tuple[Match, ...]

    def __reduce__(self) -> tuple[type[Region], tuple[object, ...]]:
        # as Match's (the fields named: a loop over them would cost as much again)
        return Region, (
            self.a, self.b, self.a_start, self.a_end, self.b_start, self.b_end, self.tokens,
            self.a_share, self.b_share, self.a_first, self.a_stop, self.b_first, self.b_stop,
            self.matches,
        )  # fmt: skip


def region_order(region: Region) -> tuple[str, str, int, int, int, int]:
    """The order of regions in a result: by ``a``, ``b``, then place (a sort key).

    >>> first = Region("a", "b", 1, 1, 1, 1, 9, 0.5, 0.5, 0, 9, 0, 9, ())
    >>> region_order(first)
    ('a', 'b', 0, 0, 9, 9)
    """
    return (region.a, region.b, region.a_first, region.b_first, region.a_stop, region.b_stop)


def find_regions(
    a: TokenSpans,
    b: TokenSpans,
    options: FragmentOptions | None = None,
    *,
    paths: tuple[str, str] = ("a", "b"),
    ignored: frozenset[int] = frozenset(),
    kgrams: tuple[Kgrams, Kgrams] | None = None,
) -> tuple[list[Region], int]:
    """Return the regions two texts share (see the module's description) and how many
    fingerprints were repetitive. Pass the same :class:`TokenSpans` twice for the
    regions repeated within one text.

    :param a: a text's tokens.
    :param b: another text's tokens, or ``a`` itself.
    :param options: ``k``, ``window``, ``gap``, ``min_tokens``, ``max_repeats``.
    :param paths: the files' names, for the regions.
    :param ignored: k-gram hashes that seed nothing (boilerplate).
    :param kgrams: the :class:`~samecode.fragments.kgrams.Kgrams` of ``a`` and ``b``, if
        already made with ``options.k`` and ``options.window`` (those of
        :func:`~samecode.fragments.tree.fingerprint_text`, which know the tokens masked
        as boilerplate; made here, they do not).

    Runtime complexity: :func:`exact_matches` and :func:`chain_matches`; for the ``r``
    chains of ``min_tokens``, ``O(r log r)`` to sort them, and for each a look at the
    regions kept whose span in ``a`` is near its own (``O(log r)`` per power of two of
    their lengths, and each one seen there); then, per region kept, :func:`grow_chain`,
    the same look at the others, and ``O(log lines)``.

    >>> from samecode.text.shingling import Shingling
    >>> block = "\\n".join(f"total_{i} = price_{i} * count + tax" for i in range(8))
    >>> rules = Shingling()
    >>> a = TokenSpans.of("first = 1\\nsecond = 2\\n" + block, rules)
    >>> b = TokenSpans.of(block + "\\nthe end", rules)
    >>> (region,), _ = find_regions(a, b, FragmentOptions(k=5, window=4, min_tokens=20))
    >>> region.a_start, region.a_end, region.b_start, region.b_end, region.tokens
    (3, 10, 1, 8, 56)

    The eight lines of seven tokens, lines 3 to 10 of ``a`` and 1 to 8 of ``b``.
    """
    options = FragmentOptions() if options is None else options
    if a is not b and len(a) and a.ids == b.ids:
        return [_whole(a, b, paths)], 0
    matches, repetitive = exact_matches(
        a.ids,
        b.ids,
        k=options.k,
        window=options.window,
        max_repeats=options.max_repeats,
        same=a is b,
        ignored=ignored,
        kgrams=kgrams,
    )
    if sum(match.length for match in matches) < options.min_tokens:
        return [], repetitive  # no chain holds more tokens than all the matches
    least = min(options.k, _EDGE)
    chains = [
        chained
        for chained in chain_matches(matches, options.gap)
        if sum(match.length for match in chained) >= options.min_tokens
    ]
    # Of chains overlapping in both texts, only the largest is reported (repeated text
    # matches on many diagonals, each an alignment of the same places); the others are
    # dropped before their ends are grown, the dear part. A grown end is kept where it
    # makes its region overlap no other.
    chains = _largest(chains)
    if options.gap and a is not b and not options.normalize:
        extents = Boxes()
        for number, chained in enumerate(chains):
            extents.add(number, _box(chained))
        for number, chained in enumerate(chains):
            before = list(chained)
            grow_chain(chained, a.ids, b.ids, options.gap, least, (a, b))
            if chained != before:
                _grown(chained, before, number, extents)
    regions = []
    for chained in chains:
        tokens = sum(match.length for match in chained)
        first, last = chained[0], chained[-1]
        a_lines = a.whole_lines(first.a_start, last.a_stop)
        b_lines = b.whole_lines(first.b_start, last.b_stop)
        regions.append(
            Region(
                paths[0],
                paths[1],
                *a_lines,
                *b_lines,
                tokens,
                tokens / len(a),
                tokens / len(b),
                first.a_start,
                last.a_stop,
                first.b_start,
                last.b_stop,
                tuple(chained),
            )
        )
    return regions, repetitive


def _whole(a: TokenSpans, b: TokenSpans, paths: tuple[str, str]) -> Region:
    """The one region of two texts of the same tokens: all of both, whatever their size
    (a byte-identical file is reported whole, its boilerplate and all)."""
    n = len(a)
    match = Match(0, 0, n)
    return Region(
        paths[0], paths[1], *a.whole_lines(0, n), *b.whole_lines(0, n), n, 1.0, 1.0,
        0, n, 0, n, (match,),
    )  # fmt: skip


#: The fewest tokens a piece added at a region's edge holds (or ``k``, if fewer)...
_EDGE = 6
#: ... or, if it holds a whole line in both texts, this many tokens or characters.
_LINE = 3
_CHARS = 12


def grow_chain(
    chain: list[Match],
    a: array[int],
    b: array[int],
    gap: int,
    least: int,
    spans: tuple[TokenSpans, TokenSpans] | None = None,
) -> None:
    """Add to each end of ``chain`` the longest run of equal tokens within ``gap`` tokens
    of that end in both texts (the nearest on ties), if there is one of ``least`` tokens at
    least, or, given the texts' ``spans``, of 3 tokens or 12 characters at least that
    holds a whole line in both texts and is apart from the chain by tokens of one line at
    most in each (an edited line): the part of a copy between an edit and its edge,
    shorter than ``k`` (an ``import`` line before an inserted one, say). One run per end,
    so that a region never walks on through text of a like shape.

    Runtime complexity: ``O(gap)`` to index the tokens near each end, and a run measured
    (in C slices) at each pair of places in the two texts where a run of equal tokens
    ends nearest the chain (a run measured from a place further out is the same run
    with fewer tokens, never chosen).

    >>> a, b = array("Q", [1, 2, 3, 4, 5, 6, 7, 8]), array("Q", [1, 2, 3, 9, 5, 6, 7, 8])
    >>> chain = [Match(4, 4, 4)]
    >>> grow_chain(chain, a, b, gap=2, least=3)
    >>> [(m.a_start, m.b_start, m.length) for m in chain]
    [(0, 0, 3), (4, 4, 4)]
    """
    # A run shorter than least and _LINE fits only if it spans _CHARS characters in a:
    # told before a call to _run_fits, for the many runs of a token or two.
    short = min(least, _LINE) if spans is not None else least
    before = _longest_run_before(chain[0], a, b, gap, least, short, spans)
    if before is not None:
        chain.insert(0, before)
    after = _longest_run_after(chain[-1], a, b, gap, least, short, spans)
    if after is not None:
        chain.append(after)


def _longest_run_before(
    first: Match,
    a: array[int],
    b: array[int],
    gap: int,
    least: int,
    short: int,
    spans: tuple[TokenSpans, TokenSpans] | None,
) -> Match | None:
    """The run :func:`grow_chain` adds before the chain's ``first`` match, if any: the
    longest (then the nearest) ending within ``gap`` tokens before it in both texts that
    :func:`_run_fits` (runs shorter than ``short`` tokens and :data:`_CHARS` characters
    in ``a`` are passed over without a call)."""
    a_start, b_start = first.a_start, first.b_start
    a_starts, a_ends = (spans[0].starts, spans[0].ends) if spans is not None else ((), ())
    # the runs ending just before i in a and j in b: i = a_start - da, j = b_start - db
    near = _offsets_by_token(b, b_start - 1, -1, min(gap, b_start - 1) + 1)
    best = (0, 0, 0, 0)  # length, -skipped, i, j
    for da in range(min(gap, a_start - 1) + 1):
        i = a_start - da
        for db in near.get(a[i - 1], ()):
            j = b_start - db
            if da and db and da + db > 2 and a[i] == b[j]:
                continue  # the run from (da - 1, db - 1) is this one and a token more
            if da or db:
                # a run of one token, told without a call (most are)
                one = i < 2 or j < 2 or a[i - 2] != b[j - 2]
                length = 1 if one else common_suffix(a, b, i, j)
                if length < short and (
                    spans is None or a_ends[i - 1] - a_starts[i - length] < _CHARS
                ):
                    continue
                if (length, -(da + db)) > best[:2] and _run_fits(
                    length, (i - length, j - length), (i, a_start, j, b_start), least, spans
                ):
                    best = (length, -(da + db), i, j)
    length, _, i, j = best
    return Match(i - length, j - length, length) if length else None


def _longest_run_after(
    last: Match,
    a: array[int],
    b: array[int],
    gap: int,
    least: int,
    short: int,
    spans: tuple[TokenSpans, TokenSpans] | None,
) -> Match | None:
    """The run :func:`grow_chain` adds after the chain's ``last`` match, if any: as
    :func:`_longest_run_before`, mirrored."""
    a_stop, b_stop = last.a_stop, last.b_stop
    a_starts, a_ends = (spans[0].starts, spans[0].ends) if spans is not None else ((), ())
    # the runs starting at i = a_stop + da in a and j = b_stop + db in b
    near = _offsets_by_token(b, b_stop, 1, min(gap, len(b) - b_stop - 1) + 1)
    best = (0, 0, 0, 0)  # length, -skipped, i, j
    for da in range(min(gap, len(a) - a_stop - 1) + 1):
        i = a_stop + da
        for db in near.get(a[i], ()):
            j = b_stop + db
            if da and db and da + db > 2 and a[i - 1] == b[j - 1]:
                continue  # the run from (da - 1, db - 1) is this one and a token more
            if da or db:
                one = i + 1 >= len(a) or j + 1 >= len(b) or a[i + 1] != b[j + 1]
                length = 1 if one else common_prefix(a, b, i, j)
                if length < short and (
                    spans is None or a_ends[i + length - 1] - a_starts[i] < _CHARS
                ):
                    continue
                if (length, -(da + db)) > best[:2] and _run_fits(
                    length, (i, j), (a_stop, i, b_stop, j), least, spans
                ):
                    best = (length, -(da + db), i, j)
    length, _, i, j = best
    return Match(i, j, length) if length else None


def _offsets_by_token(
    tokens: array[int], start: int, step: int, count: int
) -> dict[int, list[int]]:
    """For each token at ``start + step * d`` with ``0 <= d < count``, its offsets ``d``
    (ascending): where a run may end (or start) near a chain, by the token there."""
    near: dict[int, list[int]] = {}
    for offset in range(count):
        near.setdefault(tokens[start + step * offset], []).append(offset)
    return near


def _run_fits(
    length: int,
    run: tuple[int, int],
    skipped: tuple[int, int, int, int],
    least: int,
    spans: tuple[TokenSpans, TokenSpans] | None,
) -> bool:
    """Whether the run of ``length`` equal tokens from ``run`` (its first token in ``a``
    and ``b``), apart from the chain by the tokens ``skipped`` (``start, stop`` in ``a``,
    then in ``b``), may grow it: ``least`` tokens long, or, given the ``spans``, a whole
    line in both texts of :data:`_LINE` tokens or :data:`_CHARS` characters, with the
    tokens skipped on one line in each."""
    if length >= least:
        return True
    if spans is None:
        return False
    for text, first, start, stop in zip(spans, run, skipped[::2], skipped[1::2]):
        long_enough = (
            length >= _LINE or text.ends[first + length - 1] - text.starts[first] >= _CHARS
        )
        if not long_enough or not text.holds_a_line(first, first + length):
            return False
        if start != stop and len(set(text.lines(start, stop))) != 1:
            return False
    return True


def _largest(chains: list[list[Match]]) -> list[list[Match]]:
    """The chains left when, of chains overlapping in both texts, only the one with the
    most tokens is kept (then the earliest), in the order of their tokens in ``a``, then
    ``b``."""
    extents = [(sum(match.length for match in chain), *_box(chain)) for chain in chains]
    return [chains[n] for n in _kept(extents)]


def _box(chain: list[Match]) -> tuple[int, int, int, int]:
    """``(a_first, b_first, a_stop, b_stop)`` of a chain (a box of
    :class:`~samecode.fragments._boxes.Boxes`)."""
    first, last = chain[0], chain[-1]
    return first.a_start, first.b_start, last.a_stop, last.b_stop


def _grown(chain: list[Match], before: list[Match], number: int, extents: Boxes) -> None:
    """Keep what growing added to ``chain`` (once ``before``, filed as ``number`` among
    the chains' ``extents``) at both ends, else at one, else at none: the first that
    overlaps no other chain kept, in both texts; file its extent."""
    front = [chain[0]] if chain[0] != before[0] else []
    back = [chain[-1]] if chain[-1] != before[-1] else []
    for added_front, added_back in ((front, back), (front, []), ([], back)):
        candidate = added_front + before + added_back
        extent = _box(candidate)
        if not extents.overlapping(extent, besides=number):
            chain[:] = candidate
            extents.remove(number)
            extents.add(number, extent)
            return
    chain[:] = before


def _kept(extents: list[tuple[int, int, int, int, int]]) -> list[int]:
    """Which of these ``(tokens, a_first, b_first, a_stop, b_stop)`` are kept when, of
    those overlapping in both texts, only the one with the most tokens is (then the
    earliest), in the order of their first tokens in ``a``, then ``b``.

    Runtime complexity: ``O(r log r)`` to sort, and :class:`~samecode.fragments._boxes.Boxes`'s
    question for each one, on those kept.
    """
    order = sorted(range(len(extents)), key=lambda n: (-extents[n][0], *extents[n][1:]))
    kept: list[int] = []
    filed = Boxes()
    for number in order:
        box = extents[number][1:]
        if not filed.overlapping(box):
            kept.append(number)
            filed.add(number, box)
    kept.sort(key=lambda n: extents[n][1:3])
    return kept
