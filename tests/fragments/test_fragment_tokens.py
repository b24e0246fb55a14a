"""Tokens with their spans: the scan's tokens exactly, each where it is in the text."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.tokens import TokenSpans
from samecode.text.shingling import Shingling, token_id
from samecode.text.tokens import code_token_offsets, code_tokens

PIECES = [
    "x", "y1", "def", "=", "(", ")", " ", "  ", "\n", "\r\n", "\t", "# c\n", "// d\n",
    "/* b\n */", "'s'", '"a b"', "'un", '"""doc\n"""', "\\", "1.5e-3", "é", "漢", "\u2028",
    "\x1c", "$v", ".",
]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
RULES = st.sampled_from(
    [
        Shingling(tokens=kind, normalize=normal)
        for kind in ("words", "code", "chars")
        for normal in (False, True)
        if not (normal and kind == "chars")
    ]
)
PATHS = st.sampled_from(["a.py", "a.c", "a.txt", "a.sql"])


@given(TEXTS, RULES, PATHS)
def test_the_tokens_are_the_scans_and_each_span_holds_its_token(text, rules, path):
    tokens, starts, ends = rules.token_spans(text, path)
    assert tokens == rules.token_list(text, path)
    assert len(starts) == len(ends) == len(tokens)
    assert all(start < end for start, end in zip(starts, ends))
    assert all(end <= start for end, start in zip(ends, starts[1:]))
    plain = Shingling(tokens=rules.tokens)
    raw = plain.token_list(text, path)
    for token, start, end in zip(raw, starts, ends):
        piece = text[start:end]
        if rules.tokens == "chars" and token == " ":
            assert piece.isspace() or piece == " "
        else:
            assert piece == token


@given(TEXTS, PATHS)
def test_code_offsets_tile_the_text(text, path):
    tokens, offsets = code_token_offsets(text, line_comments=("#", "//"))
    assert tokens == code_tokens(text, line_comments=("#", "//"))
    assert [text[o : o + len(t)] for t, o in zip(tokens, offsets)] == tokens
    assert offsets == sorted(offsets)


@given(TEXTS)
def test_lines_are_counted_from_one_at_each_newline(text):
    spans = TokenSpans.of(text, Shingling())
    assert list(spans.ids) == [token_id(t) for t in Shingling().token_list(text)]
    for index in range(len(spans)):
        start, end = spans.lines(index, index + 1)
        assert start == text.count("\n", 0, spans.starts[index]) + 1
        assert end == text.count("\n", 0, spans.ends[index] - 1) + 1
        line, column, last_line, end_column = spans.span(index, index + 1)
        assert (line, last_line) == (start, end)
        assert text.split("\n")[line - 1][column - 1] == text[spans.starts[index]]
        assert text.split("\n")[last_line - 1][end_column - 2] == text[spans.ends[index] - 1]


def test_bad_ranges_and_types_are_refused():
    spans = TokenSpans.of("a b c", Shingling())
    with pytest.raises(SamecodeValueError, match="token range"):
        spans.lines(2, 2)
    with pytest.raises(SamecodeValueError, match="token range"):
        spans.span(0, 4)
    with pytest.raises(SamecodeTypeError, match="Shingling"):
        TokenSpans.of("a", "words")  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="str"):
        Shingling().token_spans(b"a")  # type: ignore[arg-type]


@given(TEXTS, st.data())
def test_whole_lines_drop_an_end_line_holding_under_half_its_tokens(text, data):
    spans = TokenSpans.of(text, Shingling())
    if not len(spans):
        return
    first = data.draw(st.integers(0, len(spans) - 1))
    stop = data.draw(st.integers(first + 1, len(spans)))
    start, end = spans.whole_lines(first, stop)
    low, high = spans.lines(first, stop)
    assert low <= start <= end <= high
    starting = [spans.line_of(spans.starts[i]) for i in range(len(spans))]

    def share(line):
        on = [i for i, at in enumerate(starting) if at == line]
        return sum(first <= i < stop for i in on), len(on)

    if start > low:
        inside, total = share(low)
        assert 2 * inside < total
    if end < high:
        inside, total = share(high)
        assert 2 * inside < total


@given(TEXTS, RULES, PATHS, st.integers(1, 6))
def test_shingles_of_the_spans_ids_are_the_texts(text, rules, path, size):
    # a corpus shingles a file from the ids its fragments tokenized (one tokenization)
    rules = Shingling(tokens=rules.tokens, size=size, normalize=rules.normalize)
    if rules.tokens == "chars":
        with pytest.raises(SamecodeValueError, match="characters"):
            rules.measure_ids([1, 2])
        return
    spans = TokenSpans.of(text, rules, path)
    tokens, shingles = rules.measure_ids(spans.ids)
    expected_tokens, expected = rules.measure(text, path)
    assert tokens == expected_tokens
    assert sorted(shingles) == sorted(expected)


def test_measure_ids_takes_ids_only():
    rules = Shingling(size=2)
    assert rules.measure_ids([1, 2, 3]) == rules.measure_ids(array("Q", [1, 2, 3]))
    with pytest.raises(TypeError, match="ids must be ints"):
        rules.measure_ids(["a", "b", "c"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="from 0 to 2\\*\\*64 - 1"):
        rules.measure_ids([1, -2, 3])


@given(TEXTS, RULES, PATHS, st.lists(st.tuples(st.integers(1, 8), st.integers(0, 3)), max_size=6))
@example("x\n", Shingling(tokens="chars"), "a.py", [(1, 0)])  # a token that ends a line
def test_the_tokens_held_by_runs_of_lines_are_those_starting_on_them(text, rules, path, runs):
    spans = TokenSpans.of(text, rules, path)
    runs = [(start, start + more) for start, more in runs]
    starting = [text.count("\n", 0, at) + 1 for at in spans.starts]
    expected = []
    for start, end in runs:
        on = [i for i, line in enumerate(starting) if start <= line <= end]
        if on:
            last = text.count("\n", 0, spans.ends[on[-1]] - 1) + 1
            expected.append((starting[on[0]], last, on[0], on[-1] + 1))
    assert spans.held_by(runs) == expected
    assert [
        spans.tokens_on(*run) for run in runs if spans.tokens_on(*run)[0] < spans.tokens_on(*run)[1]
    ] == [held[2:] for held in expected]


def test_a_run_of_lines_backwards_is_refused():
    spans = TokenSpans.of("a\nb", Shingling())
    with pytest.raises(SamecodeValueError, match="got 2 to 1"):
        spans.held_by([(1, 1), (2, 1)])
    with pytest.raises(SamecodeValueError, match="got 0 to 1"):
        spans.held_by([(0, 1)])
