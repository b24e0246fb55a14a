"""Ranges ignored, held compactly: an :class:`IgnoredRanges` is, in every way a reader can
tell, the list of :class:`Ignored` it was made of (length, items, slices, equality, hash,
pickling), however its ranges are made, joined or read; bad ranges are refused with the
rule."""

from __future__ import annotations

import pickle
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.ignored import (
    REASONS,
    Ignored,
    IgnoredRanges,
    groups_of,
    masked_ranges,
    rows_of,
)

numbers = st.integers(min_value=0, max_value=1 << 40)
one = st.builds(
    lambda path, reason, start, end, tokens, ends: Ignored(
        path, reason, start, end, tokens, min(ends), max(ends)
    ),
    st.sampled_from(["a.py", "b.po", "c/d.html", "é{%}.txt"]),
    st.sampled_from(REASONS),
    numbers,
    numbers,
    numbers,
    st.tuples(numbers, numbers),
)
ranges = st.lists(one, max_size=30)


def fields(item: Ignored) -> tuple[str, str, int, int, int, int, int]:
    return item.path, item.reason, item.start, item.end, item.tokens, item.first, item.stop


@given(ranges)
def test_ranges_read_back_as_the_list_they_were_made_of(items):
    held = IgnoredRanges(items)
    assert len(held) == len(items)
    assert list(held) == items
    assert [held[at] for at in range(-len(items), len(items))] == items + items
    assert held == items
    assert items == held
    assert held == tuple(items)
    assert hash(held) == hash(tuple(items))
    assert list(held.rows()) == [fields(item) for item in items]
    assert list(rows_of(held)) == list(rows_of(items)) == [fields(item) for item in items]
    assert held.spans() == [(item.first, item.stop) for item in items]
    for reason in REASONS:
        assert held.spans(reason) == [(i.first, i.stop) for i in items if i.reason == reason]
    assert masked_ranges(held) == masked_ranges(items)
    assert bool(held) == bool(items)


@given(ranges)
def test_groups_are_the_longest_runs_of_one_file_and_reason(items):
    for found in (IgnoredRanges(items), items):
        groups = [
            (path, reason, list(s), list(e), list(t)) for path, reason, s, e, t in groups_of(found)
        ]
        # read back range by range, they are the ranges in order
        assert [
            (path, reason, start, end, tokens)
            for path, reason, starts, ends, tokens in groups
            for start, end, tokens in zip(starts, ends, tokens, strict=True)
        ] == [(i.path, i.reason, i.start, i.end, i.tokens) for i in items]
        assert all(group[2] for group in groups)  # none empty
        # and each as long as it can be: the next one is of another file or reason
        assert all(a[:2] != b[:2] for a, b in pairwise(groups))


@given(ranges, st.integers(-35, 35), st.integers(-35, 35), st.sampled_from([None, 1, 2, -1, 3]))
def test_a_slice_is_the_lists_slice(items, start, stop, step):
    held = IgnoredRanges(items)
    part = held[start:stop:step]
    assert isinstance(part, IgnoredRanges)
    assert part == items[start:stop:step]


@given(ranges)
def test_a_pickled_copy_is_equal_and_keeps_its_files(items):
    held = IgnoredRanges(items)
    back = pickle.loads(pickle.dumps(held, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(back, IgnoredRanges)
    assert back == held
    assert list(back) == items
    assert [back[at] for at in range(len(items))] == items


@given(st.lists(ranges, max_size=5), st.lists(st.booleans(), min_size=5, max_size=5))
def test_joined_parts_are_their_concatenation(parts, compact):
    given_parts = [IgnoredRanges(p) if c else p for p, c in zip(parts, compact)]
    joined = IgnoredRanges.join(given_parts)
    whole = [item for part in parts for item in part]
    assert joined == whole
    assert [joined[at] for at in range(len(whole))] == whole  # each item's own path
    assert pickle.loads(pickle.dumps(joined)) == whole


@given(
    st.text(min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 3), numbers, numbers, numbers, numbers), max_size=20),
)
def test_rows_of_one_file_are_the_ranges_they_describe(path, drawn):
    rows = [(r, s, e, min(f, p), max(f, p)) for r, s, e, f, p in drawn]
    held = IgnoredRanges.of(path, rows)
    expected = [Ignored(path, REASONS[r], s, e, p - f, f, p) for r, s, e, f, p in rows]
    assert held == expected


def test_a_range_equals_only_sequences_of_the_same_ranges():
    item = Ignored("a.py", "import block", 1, 2, 6, 0, 6)
    held = IgnoredRanges([item])
    assert held != [Ignored("a.py", "import block", 1, 2, 6, 0, 7)]
    assert held != [item, item]
    assert held != IgnoredRanges()
    assert held != "a.py"
    assert held != {item}
    assert IgnoredRanges() == [] == IgnoredRanges.join([]) == IgnoredRanges.of("x", [])
    assert repr(held) == f"IgnoredRanges([{item!r}])"


def test_ranges_add_as_the_lists_they_stand_for():
    a = [Ignored("a.py", "import block", 1, 2, 6, 0, 6)]
    b = [
        Ignored("b.po", "message ids", 1, 1, 2, 0, 2),
        Ignored("b.po", "message ids", 3, 3, 2, 5, 7),
    ]
    for left, right in ((IgnoredRanges(a), IgnoredRanges(b)), (IgnoredRanges(a), b),
                        (a, IgnoredRanges(b)), (tuple(a), IgnoredRanges(b)),
                        (IgnoredRanges(a), tuple(b))):  # fmt: skip
        total = left + right
        assert isinstance(total, IgnoredRanges)
        assert total == a + b
    with pytest.raises(TypeError):
        IgnoredRanges(a) + 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        "x" + IgnoredRanges(a)  # type: ignore[operator]


def test_an_index_may_be_any_integer_a_list_takes():
    class Number:
        def __index__(self) -> int:
            return 1

    held = IgnoredRanges.of("a.py", [(0, 1, 1, 0, 1), (1, 2, 2, 1, 3)])
    assert held[Number()] == held[1] == held[-1]  # type: ignore[call-overload]
    assert held[True] == held[1]


def test_bad_ranges_are_refused_with_the_rule():
    good = ("a.py", "import block", 1, 2, 6, 0, 6)
    with pytest.raises(SamecodeTypeError, match=r"ranges must be Ignored; got .*tuple"):
        IgnoredRanges([good])  # type: ignore[list-item]
    with pytest.raises(SamecodeValueError, match=r"reason must be one of .*got 'comment'"):
        IgnoredRanges([Ignored("a.py", "comment", 1, 2, 6)])
    with pytest.raises(SamecodeTypeError, match=r"reason must be a str; got int"):
        IgnoredRanges([Ignored("a.py", 1, 1, 2, 6)])  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match=r"path must be a str; got bytes"):
        IgnoredRanges([Ignored(b"a.py", "import block", 1, 2, 6)])  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="at least 0; got -1"):
        IgnoredRanges([Ignored("a.py", "import block", -1, 2, 6)])
    with pytest.raises(SamecodeValueError, match=r"below 2\*\*63; got 1180591620717411303424"):
        IgnoredRanges([Ignored("a.py", "import block", 1 << 70, 2, 6)])
    with pytest.raises(SamecodeValueError, match=r"below 2\*\*63; got -1180591620717411303424"):
        IgnoredRanges([Ignored("a.py", "import block", -(1 << 70), 2, 6)])
    for odd in (1.5, "1", None, True):
        with pytest.raises(SamecodeTypeError, match=r"must be ints; got (float|str|None|bool)"):
            IgnoredRanges([Ignored("a.py", "import block", odd, 2, 6)])  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match=r"stop must not be before .*first 9, stop 3"):
        IgnoredRanges([Ignored("a.py", "import block", 1, 2, 6, 9, 3)])
    with pytest.raises(SamecodeValueError, match=r"place in REASONS \(0 to 3\); got 4"):
        IgnoredRanges.of("a.py", [(4, 1, 1, 0, 1)])
    with pytest.raises(SamecodeValueError, match=r"stop must not be before .*first 5, stop 4"):
        IgnoredRanges.of("a.py", [(0, 1, 1, 0, 1), (0, 2, 2, 5, 4)])
    with pytest.raises(SamecodeValueError, match="at least 0; got -1"):
        IgnoredRanges.of("a.py", [(0, -1, 1, 0, 1)])
    for row in ((1, 1, 1, 0), None, (1, 1, 1, 0, "2"), (1, 1, 1, 0, 2, 3)):
        with pytest.raises(SamecodeTypeError, match=r"a row must be five ints .*; got"):
            IgnoredRanges.of("a.py", [row])  # type: ignore[list-item]
    with pytest.raises(SamecodeTypeError, match=r"numbers must be ints; got bool"):
        IgnoredRanges.of("a.py", [(True, 1, 1, 0, 2)])
    with pytest.raises(SamecodeTypeError, match=r"path must be a str; got bytes"):
        IgnoredRanges.of(b"x", [])  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match=r"parts must be sequences of Ignored; got int"):
        IgnoredRanges.join([5])  # type: ignore[list-item]
    with pytest.raises(SamecodeValueError, match=r"reason must be one of .*got 'x'"):
        IgnoredRanges().spans("x")
    with pytest.raises(SamecodeTypeError, match=r"reason must be a str; got list"):
        IgnoredRanges().spans([])  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="index must be an int or a slice; got str"):
        IgnoredRanges()["0"]  # type: ignore[call-overload]
    with pytest.raises(IndexError, match="index 1 is out of range for 1 ranges"):
        IgnoredRanges.of("a.py", [(0, 1, 1, 0, 1)])[1]
    with pytest.raises(IndexError, match="index -2 is out of range"):
        IgnoredRanges.of("a.py", [(0, 1, 1, 0, 1)])[-2]


def test_a_report_refuses_a_range_whose_numbers_are_not_integers():
    # an Ignored made by hand holds what it is given: a report writes whole numbers only
    # (a float's end once came out truncated in the JSON lines, whole in the JSON)
    from samecode.fragments.options import FragmentOptions
    from samecode.fragments.result import FragmentResult
    from samecode.reports.fragments import to_json, to_jsonl

    def report(*numbers: object) -> str:
        ignored = [Ignored("a.py", "import block", *numbers)]  # type: ignore[arg-type]
        return to_jsonl(
            FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0, ignored=ignored), {}
        )

    for numbers, name in (((1, 2.5, 3), "end"), ((1.0, 2, 3), "start"), ((1, 2, "3"), "tokens")):
        result = FragmentResult(
            FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0,
            ignored=[Ignored("a.py", "import block", *numbers)],  # type: ignore[arg-type]
        )  # fmt: skip
        for write in (to_jsonl, to_json):
            with pytest.raises(SamecodeTypeError, match=f"range's {name} must be an int; got"):
                write(result, {})
    # what an int stands for is written as that int
    assert report(True, True, 3) == report(1, 1, 3)
    np = pytest.importorskip("numpy")
    assert report(np.int64(1), 1, np.uint16(3)) == report(1, 1, 3)
