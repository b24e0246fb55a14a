"""Regions: exact matches against brute force, chains across gaps, and linear cost on
degenerate texts."""

from __future__ import annotations

from array import array
from itertools import combinations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_winnowing import shared_runs

from budget import line_budget
from kernelpaths import BOTH, kernels
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import (
    Match,
    chain_matches,
    exact_matches,
    find_regions,
    grow_chain,
)
from samecode.fragments.tokens import TokenSpans
from samecode.text.shingling import Shingling, token_ids

TOKENS = st.lists(st.sampled_from("abc"), max_size=45)


def ids(tokens):
    return array("Q", token_ids(tokens))


def is_maximal_run(a, b, match):
    i, j, n = match.a_start, match.b_start, match.length
    return (
        a[i : i + n] == b[j : j + n]
        and (i == 0 or j == 0 or a[i - 1] != b[j - 1])
        and (i + n == len(a) or j + n == len(b) or a[i + n] != b[j + n])
    )


@BOTH
@given(TOKENS, TOKENS, st.integers(1, 4), st.integers(1, 5))
def test_exact_matches_hold_every_long_shared_run_exactly(pure, a, b, k, w):
    with kernels(pure):
        found, repetitive = exact_matches(ids(a), ids(b), k=k, window=w)
    assert repetitive == 0
    got = {(m.a_start, m.b_start, m.length) for m in found}
    for run in shared_runs(a, b, w + k - 1):
        assert run in got
    for match in found:
        assert match.length >= k
        assert is_maximal_run(a, b, match)
    assert found == sorted(found, key=lambda m: (m.a_start, m.b_start))
    assert len(got) == len(found)


def _seeded_by_brute_force(a, b, k, w, most, masked=((), ()), ignored=frozenset()):
    """The module's definition, step by step: every fingerprint of each text (but those
    ``ignored``), at every place of the other holding its k-gram's hash (none past
    ``most`` places), seeds the maximal run of equal tokens through it."""
    grams = [Kgrams.of(ids(text), k, w, spans) for text, spans in zip((a, b), masked)]
    runs, repetitive = set(), 0
    for mine, theirs, flip in ((0, 1, False), (1, 0, True)):
        for at in grams[mine].selected:
            value = grams[mine].hashes[at]
            if value in ignored:
                continue
            places = [q for q, h in enumerate(grams[theirs].hashes) if h == value]
            if most is not None and len(places) > most:
                repetitive += 1
                continue
            for place in places:
                i, j = (place, at) if flip else (at, place)
                if a[i : i + k] != b[j : j + k]:
                    continue
                while i and j and a[i - 1] == b[j - 1]:
                    i, j = i - 1, j - 1
                n = 0
                while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                    n += 1
                runs.add((i, j, n))
    return runs, repetitive


BINARY = st.lists(st.sampled_from("ab"), min_size=1, max_size=40)


@st.composite
def _edited_copies(draw):
    """A text over two tokens, and another: a copy of it from some token on, with tokens
    inserted (repeated k-grams, on many diagonals), or unrelated."""
    a = draw(BINARY)
    if draw(st.booleans()):
        return a, draw(BINARY)
    b = a[draw(st.integers(0, len(a) - 1)) :]
    for place, token in draw(st.lists(st.tuples(st.integers(0, 40), st.sampled_from("ab")))):
        b.insert(min(place, len(b)), token)
    return a, b


@BOTH
@example(("bbabababaaabaaabbabaabbbabaaa", "bbabababaaabaaabbabaabbababaaab"), 4, 5, 2, [], [])
@example(("abbbaaabaabaaaabbab", "aaaabaabaaaababab"), 3, 5, 1, [(False, 5, 2), (True, 7, 4)], [])
@given(
    _edited_copies(),
    st.integers(1, 4),
    st.integers(1, 5),
    st.none() | st.integers(0, 4),
    st.lists(st.tuples(st.booleans(), st.integers(0, 40), st.integers(1, 4)), max_size=2),
    st.lists(st.integers(0, 40), max_size=3),
)
def test_exact_matches_are_the_runs_the_seeds_make(pure, texts, k, w, most, spans, dropped):
    a, b = (list(text) for text in texts)
    masked = tuple(
        sorted(
            {(min(at, len(text)), min(at + n, len(text))) for in_b, at, n in spans if in_b == side}
        )
        for side, text in ((False, a), (True, b))
    )
    grams = tuple(Kgrams.of(ids(text), k, w, ranges) for text, ranges in zip((a, b), masked))
    hashes = sorted(set(grams[0].hashes))  # some of a's k-grams as boilerplate
    ignored = frozenset(hashes[n] for n in dropped if n < len(hashes))
    with kernels(pure):
        found, repetitive = exact_matches(
            ids(a), ids(b), k=k, window=w, max_repeats=most, kgrams=grams, ignored=ignored
        )
    assert found == sorted(found, key=lambda m: (m.a_start, m.b_start))
    assert ({(m.a_start, m.b_start, m.length) for m in found}, repetitive) == (
        _seeded_by_brute_force(a, b, k, w, most, masked, ignored)
    )


@BOTH
def test_a_hash_collision_seeds_nothing(pure):
    # forged hashes: a's k-gram at 0 and b's at 0 share one, their tokens differ
    a, b = array("Q", [1, 2, 3, 4]), array("Q", [9, 9, 3, 4])
    grams = (
        Kgrams.selecting(array("Q", [42, 50, 60]), array("q", [0, 2])),
        Kgrams.selecting(array("Q", [42, 51, 60]), array("q", [0, 2])),
    )
    with kernels(pure):
        found = exact_matches(a, b, k=2, window=2, kgrams=grams)
    assert found == ([Match(2, 2, 2)], 0)


@BOTH
@given(TOKENS, st.integers(1, 4), st.integers(1, 5))
def test_a_text_against_itself_finds_its_repeats_once_each(pure, a, k, w):
    with kernels(pure):
        found, _ = exact_matches(ids(a), ids(a), k=k, window=w, same=True)
    got = {(m.a_start, m.b_start, m.length) for m in found}
    for i, j, n in shared_runs(a, a, w + k - 1):
        if j < i and n <= i - j:  # an earlier copy, not overlapping
            assert (i, j, n) in got
    for match in found:
        assert match.b_start + match.length <= match.a_start
        assert is_maximal_run(a, a, match)


@given(TOKENS, TOKENS, st.integers(1, 3), st.integers(1, 4), st.integers(0, 4))
def test_regions_overlap_every_long_shared_run_in_both_texts(a, b, k, w, gap):
    options = FragmentOptions(k=k, window=w, min_tokens=k, gap=gap, max_repeats=10**6)
    spans = [TokenSpans.of(" ".join(t), Shingling()) for t in (a, b)]
    if not (len(spans[0]) and len(spans[1])):
        return
    regions, _ = find_regions(spans[0], spans[1], options)
    matches, _ = exact_matches(ids(a), ids(b), k=k, window=w)
    chains = chain_matches(matches, gap)
    for i, j, n in shared_runs(a, b, w + k - 1):
        # the run's chain is reported (its ends grown), or overlaps in both texts a region
        # reported that matched as many tokens or more before its ends grew
        (chain,) = [
            c
            for c in chains
            if any(m.a_start < i + n and i < m.a_stop and m.a_start - m.b_start == i - j for m in c)
        ]
        a_first, a_stop = chain[0].a_start, chain[-1].a_stop
        b_first, b_stop = chain[0].b_start, chain[-1].b_stop
        tokens = sum(m.length for m in chain)
        assert any(
            r.a_first < a_stop
            and a_first < r.a_stop
            and r.b_first < b_stop
            and b_first < r.b_stop
            and r.tokens >= tokens
            for r in regions
        ), (i, j, n)
    for x, y in combinations(regions, 2):  # no two overlap in both texts
        assert (
            x.a_stop <= y.a_first
            or y.a_stop <= x.a_first
            or (x.b_stop <= y.b_first or y.b_stop <= x.b_first)
        )
    for region in regions:
        chain = region.matches
        assert region.tokens == sum(m.length for m in chain)
        assert region.tokens >= k or a == b  # the same tokens: one region, whatever its size
        assert (region.a_first, region.b_first) == (chain[0].a_start, chain[0].b_start)
        assert (region.a_stop, region.b_stop) == (chain[-1].a_stop, chain[-1].b_stop)
        for m in chain:
            assert a[m.a_start : m.a_stop] == b[m.b_start : m.b_stop]
        for x, y in zip(chain, chain[1:]):  # noqa: RUF007
            assert 0 <= y.a_start - x.a_stop <= gap
            assert 0 <= y.b_start - x.b_stop <= gap
        assert region.a_share == region.tokens / len(a)


def chain_by_definition(matches, gap):
    """chain_matches as its docstring defines it, over every chain's end: a match joins
    the chain whose end is nearest its start in b (before it first), then in a, then
    whose end arrived first, among those within ``gap`` of it with tokens left."""
    if not gap:
        return [[m] for m in matches]

    def rank(distance):
        return 2 * distance - 1 if distance > 0 else -2 * distance

    chains, arrived = [], []
    for arrival, match in enumerate(matches):
        best = None
        for number, chain in enumerate(chains):
            last = chain[-1]
            da, db = match.a_start - last.a_stop, match.b_start - last.b_stop
            held = max(0, -da, -db)
            near = abs(da) <= gap and abs(db) <= gap
            if near and held < match.length and held + max(da, db) <= gap:
                key = (rank(db), rank(da), arrived[number])
                if best is None or key < best[0]:
                    best = (key, number, held)
        if best is None:
            chains.append([match])
            arrived.append(arrival)
        else:
            _, number, held = best
            chains[number].append(
                Match(match.a_start + held, match.b_start + held, match.length - held)
            )
            arrived[number] = arrival
    return chains


def matches_within(places, least, most):
    return st.lists(
        st.tuples(st.integers(0, places), st.integers(0, places), st.integers(1, 6)),
        min_size=least,
        max_size=most,
    ).map(lambda raw: sorted((Match(*m) for m in raw), key=lambda m: (m.a_start, m.b_start)))


# few matches close together (ends compete, few live: scanned), and many (looked up)
MATCHES = st.one_of(matches_within(12, 0, 12), matches_within(60, 60, 120))


@given(MATCHES, st.integers(0, 6))
def test_chains_are_those_the_definition_makes(matches, gap):
    # many matches near each other take the look-up path, few the scan of live ends
    assert chain_matches(matches, gap) == chain_by_definition(matches, gap)


def test_chains_cross_small_gaps_in_both_texts_only():
    matches = [Match(0, 0, 5), Match(8, 5, 5), Match(14, 20, 5)]
    assert chain_matches(matches, 3) == [matches[:2], matches[2:]]
    assert chain_matches(matches, 0) == [[m] for m in matches]


def test_an_edited_line_keeps_one_region_with_the_gap():
    lines = [f"value_{i} = compute(item_{i}, {i})" for i in range(12)]
    edited = [*lines[:6], "something = else_entirely()", *lines[6:]]
    rules = Shingling()
    a, b = (TokenSpans.of("\n".join(text), rules) for text in (lines, edited))
    (region,), _ = find_regions(a, b, FragmentOptions(k=5, window=4, min_tokens=20))
    assert (region.a_start, region.a_end, region.b_start, region.b_end) == (1, 12, 1, 13)
    assert region.tokens == len(a)
    assert len(region.matches) == 2
    exact, _ = find_regions(a, b, FragmentOptions(k=5, window=4, min_tokens=20, gap=0))
    # the ")" ending line 6 is in both exact matches (each is maximal), but is less than
    # half of line 6: the second region's lines start at 7
    assert [(r.a_start, r.a_end, r.b_start, r.b_end) for r in exact] == [
        (1, 6, 1, 6),
        (7, 12, 8, 13),
    ]
    assert [r.a_first for r in exact] == [0, 47]


N = 50_000


@pytest.mark.parametrize(
    "text",
    [
        "x " * N,  # one token repeated: every fingerprint repetitive
        "a b c " * (N // 3),  # a short period
        " ".join(f"t{i}" for i in range(N)),  # one huge line, no repeat
        "head of the file " + "x " * N,  # a unique start, then a repeat
    ],
    ids=["same-token", "period-3", "huge-line", "unique-then-same"],
)
def test_degenerate_texts_cost_steps_linear_in_their_tokens(text):
    rules = Shingling()
    a = TokenSpans.of(text, rules)
    b = TokenSpans.of(text, rules)
    options = FragmentOptions()
    with line_budget(40 * N):  # two winnowings (about 10 lines a token each), then the seeds
        regions, _ = find_regions(a, b, options)
    assert len(regions) <= 1
    if "t1 " in text or text.startswith("head"):
        assert (regions[0].a_first, regions[0].a_stop) == (0, len(a))
    with line_budget(40 * N):  # two winnowings (about 10 lines a token each), then the seeds
        find_regions(a, a, options)  # a text against itself


def test_a_ruler_line_seeds_nothing_against_table_borders_by_default():
    # a comment line of 60 dashes against 200 table borders of 76: 49 equal k-grams of
    # 12 in the line, 65 in each border; with no limit, every border matches the line,
    # on many diagonals each
    rules = Shingling()
    ruler = TokenSpans.of("def f():\n    # " + "-" * 60 + "\n    return 1\n", rules)
    borders = TokenSpans.of("".join(f"row {i}\n+{'-' * 76}+\n" for i in range(200)), rules)
    regions, repetitive = find_regions(borders, ruler, FragmentOptions())
    assert regions == []
    assert repetitive > 0
    unlimited = FragmentOptions(max_repeats=10**6)
    regions, repetitive = find_regions(borders, ruler, unlimited)
    covered = {line for r in regions for line in range(r.a_start, r.a_end + 1)}
    assert covered >= set(range(2, 401, 2))
    assert repetitive == 0


def test_a_million_equal_tokens_finish_and_say_why_nothing_matched():
    a = TokenSpans.of("x\n" * 1_000_000, Shingling())
    regions, repetitive = find_regions(a, a, FragmentOptions())
    assert regions == []
    assert repetitive > 1_000_000 // 16 - 2


@given(TOKENS, TOKENS, st.integers(1, 4), st.integers(1, 5))
def test_the_matches_are_the_same_whichever_text_is_a(a, b, k, w):
    forward, _ = exact_matches(ids(a), ids(b), k=k, window=w)
    backward, _ = exact_matches(ids(b), ids(a), k=k, window=w)
    assert {(m.a_start, m.b_start, m.length) for m in forward} == {
        (m.b_start, m.a_start, m.length) for m in backward
    }


_BODY = [f"    total_{i} = price_{i} * count_{i} + tax_{i}" for i in range(10)]


def _edge_regions(a_lines: list[str], b_lines: list[str]) -> list[tuple[int, int, int, int]]:
    rules = Shingling(tokens="code")
    a, b = (TokenSpans.of("\n".join(text), rules, "f.py") for text in (a_lines, b_lines))
    regions, _ = find_regions(a, b, FragmentOptions(tokens="code", k=8, window=8))
    return [(r.a_start, r.a_end, r.b_start, r.b_end) for r in regions]


def test_a_whole_short_line_before_an_edit_joins_the_region():
    # "import datetime": 2 tokens, too few for a run of its own, but a whole line in both
    # texts, one inserted line from the rest of the copy
    a = ["x = 1", "import datetime", "def f():", *_BODY]
    b = ["y = 2", "import datetime", "inserted = 'a line'", "def f():", *_BODY]
    assert _edge_regions(a, b) == [(2, 13, 2, 14)]
    # the same after the copy: "return total" (2 tokens, 12 characters)
    a = ["def f():", *_BODY, "    return total", "x = 1"]
    b = ["def f():", *_BODY, "    inserted = 1", "    return total", "y = 2"]
    assert _edge_regions(a, b) == [(1, 12, 1, 13)]


def test_a_whole_line_of_three_short_tokens_before_an_edit_joins_the_chain():
    # "x = y": 3 tokens of 5 characters, enough as a whole line (not by its characters)
    a = TokenSpans.of("x = y\nfoo bar baz qux quux\n", Shingling())
    b = TokenSpans.of("x = y\nEDIT\nfoo bar baz qux quux\n", Shingling())
    chain = [Match(3, 4, 5)]
    grow_chain(chain, a.ids, b.ids, 5, 6, (a, b))
    assert chain == [Match(0, 0, 3), Match(3, 4, 5)]
    chain = [Match(3, 4, 5)]
    grow_chain(chain, a.ids, b.ids, 5, 6)  # without the spans, 3 tokens are too few
    assert chain == [Match(3, 4, 5)]


def test_a_short_line_grows_a_region_only_across_one_line_and_when_long_enough():
    # "import os" (2 tokens, 9 characters) is too little to tell a copy from chance
    a = ["import os", "def f():", *_BODY]
    b = ["import os", "inserted = 'a line'", "def f():", *_BODY]
    assert _edge_regions(a, b) == [(2, 12, 3, 13)]
    # a whole line two edited lines away is another text's line, not the copy's
    a = ["import datetime", "def f():", *_BODY]
    b = ["import datetime", "one = 'line'", "two = 'lines'", "def f():", *_BODY]
    assert _edge_regions(a, b) == [(2, 12, 4, 14)]


def _grown_by_brute_force(chain, a, b, gap, least):
    """Every place within ``gap`` of each end, nearest first: the longest run wins."""

    def run_back(i, j):
        n = 0
        while i - n > 0 and j - n > 0 and a[i - n - 1] == b[j - n - 1]:
            n += 1
        return n

    def run_on(i, j):
        n = 0
        while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
            n += 1
        return n

    first, last = chain[0], chain[-1]
    before = after = None
    for skipped in range(1, 2 * gap + 1):
        for da in range(max(0, skipped - gap), min(gap, skipped) + 1):
            i, j = first.a_start - da, first.b_start - (skipped - da)
            n = run_back(i, j) if i >= 0 and j >= 0 else 0
            if n >= least and (before is None or n > before.length):
                before = Match(i - n, j - n, n)
            i, j = last.a_stop + da, last.b_stop + (skipped - da)
            n = run_on(i, j) if i <= len(a) and j <= len(b) else 0
            if n >= least and (after is None or n > after.length):
                after = Match(i, j, n)
    return [m for m in (before, *chain, after) if m is not None]


@given(
    st.lists(st.sampled_from("abcd"), min_size=12, max_size=40),
    st.lists(st.sampled_from("abcd"), min_size=12, max_size=40),
    st.integers(0, 5),
    st.integers(1, 4),
    st.data(),
)
def test_grow_chain_takes_the_longest_nearest_run_at_each_end(a, b, gap, least, data):
    a, b = ids(a), ids(b)
    start = data.draw(st.integers(0, min(len(a), len(b)) - 2))
    length = data.draw(st.integers(1, min(len(a), len(b)) - start - 1))
    b_start = data.draw(st.integers(0, len(b) - length))
    chain = [Match(start, b_start, length)]
    expected = _grown_by_brute_force(chain, a, b, gap, least)
    grow_chain(chain, a, b, gap, least)
    assert chain == expected


@given(TOKENS, st.integers(1, 6), st.integers(1, 6))
def test_two_texts_of_the_same_tokens_are_one_region_all_of_both(a, k, w):
    options = FragmentOptions(k=k, window=w, min_tokens=max(k, 40), gap=5)
    first, second = (TokenSpans.of(" ".join(a), Shingling()) for _ in range(2))
    regions, _ = find_regions(first, second, options)
    if not a:
        assert regions == []
        return
    (region,) = regions
    n = len(first)
    assert (region.a_first, region.a_stop, region.b_first, region.b_stop) == (0, n, 0, n)
    assert (region.tokens, region.a_share, region.b_share) == (n, 1.0, 1.0)
    assert (region.a_start, region.a_end) == first.whole_lines(0, n)
