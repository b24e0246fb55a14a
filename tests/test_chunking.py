"""Unit tests of samecode.chunking."""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterator
from enum import Enum

import pytest

import samecode
from samecode import chunking
from samecode.chunking import ngrams, select_ngrams, token_fingerprint

from reference import naive_select_ngrams

GRAMS = [(2, 1, 3), (1, 1, 3), (5, 1, 3), (2, 6, 1), (7, 3, 4)]


def test_ngrams_of_sequences_iterators_and_generators() -> None:
    expected = [(1, 2), (2, 3), (3, 4), (4, 5)]
    assert list(ngrams([1, 2, 3, 4, 5], 2)) == expected
    assert list(ngrams((1, 2, 3, 4, 5), 2)) == expected
    assert list(ngrams(array("h", [1, 2, 3, 4, 5]), 2)) == expected
    # SameCode 0.5.1 gave [(1, 3), (4, 5)] for an iterator
    assert list(ngrams(iter([1, 2, 3, 4, 5]), 2)) == expected
    assert list(ngrams((x for x in [1, 2, 3, 4, 5]), 2)) == expected
    assert list(ngrams("abc", 2)) == [("a", "b"), ("b", "c")]


def test_ngrams_edge_lengths() -> None:
    assert list(ngrams([1, 2, 3], 1)) == [(1,), (2,), (3,)]
    assert list(ngrams([1, 2, 3], 3)) == [(1, 2, 3)]
    assert list(ngrams([1, 2, 3], 4)) == []
    assert list(ngrams([], 2)) == []


def test_ngrams_reads_its_input_lazily() -> None:
    seen = []

    def tokens() -> Iterator[int]:
        for i in range(1000):
            seen.append(i)
            yield i

    grams = ngrams(tokens(), 3)
    assert seen == []
    assert next(grams) == (0, 1, 2)
    assert len(seen) < 10


@pytest.mark.parametrize("length", [0, -1, -10])
def test_ngrams_rejects_lengths_below_one_at_the_call(length: int) -> None:
    with pytest.raises(ValueError, match=f"ngram_length must be >= 1; got {length}"):
        ngrams([1, 2, 3], length)


@pytest.mark.parametrize("length", [2.0, "2", None, True])
def test_ngrams_rejects_non_int_lengths(length: object) -> None:
    with pytest.raises(TypeError, match="ngram_length must be an int"):
        ngrams([1, 2, 3], length)  # type: ignore[arg-type]


def test_ngrams_rejects_non_iterables_at_the_call() -> None:
    with pytest.raises(TypeError):
        ngrams(5, 2)  # type: ignore[arg-type]


def test_token_fingerprint_is_crc32_of_the_text() -> None:
    assert token_fingerprint("héllo") == zlib.crc32("héllo".encode())
    assert token_fingerprint(12) == zlib.crc32(b"12")
    assert token_fingerprint(b"x") == zlib.crc32(b"b'x'")
    assert token_fingerprint(1.0) != token_fingerprint(1) != token_fingerprint(True)
    with pytest.raises(UnicodeEncodeError):
        token_fingerprint("\ud800")


def test_select_ngrams_examples_and_positions() -> None:
    assert list(select_ngrams(GRAMS)) == GRAMS
    assert list(select_ngrams(GRAMS, with_pos=True)) == list(enumerate(GRAMS))
    assert list(select_ngrams(g for g in GRAMS)) == GRAMS


def test_select_ngrams_of_nothing_yields_nothing() -> None:
    # SameCode 0.5.1 raised UnboundLocalError
    assert list(select_ngrams([])) == []
    assert list(select_ngrams(iter([]), with_pos=True)) == []


def test_select_ngrams_keeps_only_some_ngrams_of_real_text() -> None:
    words = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod " * 20).split()
    grams = list(ngrams(words, 6))
    chosen = list(select_ngrams(grams))
    assert chosen == naive_select_ngrams(grams)
    assert 0 < len(chosen) < len(grams)


def test_select_ngrams_mixed_unhashable_and_odd_tokens() -> None:
    grams = [
        ("a", 1, 1.0, True),
        ([1, 2], "b", None, -0.0),
        (0.0, b"x", "c", 2),
        ("z",),
        (Enum("E", "A").A, "q"),
    ]
    assert list(select_ngrams(grams)) == naive_select_ngrams(grams)
    assert list(select_ngrams(grams, with_pos=True)) == naive_select_ngrams(grams, with_pos=True)


def test_select_ngrams_equal_numbers_of_other_types_are_not_confused() -> None:
    # 1 == 1.0 == True, but their texts differ, and so do their fingerprints.
    grams = [(1, 5, 9), (1.0, 5, 9), (True, 5, 9), (0.0, 7), (-0.0, 7), (False, 7)]
    assert list(select_ngrams(grams)) == naive_select_ngrams(grams)


def test_select_ngrams_last_ngram_rule() -> None:
    # The last ngram is added at the end unless it equals the last one yielded.
    for grams in ([("a", "b")], [("a", "b"), ("a", "b")], [("b", "a"), ("x", "y", "z")]):
        assert list(select_ngrams(grams)) == naive_select_ngrams(grams)
        assert list(select_ngrams(grams, with_pos=True)) == naive_select_ngrams(grams, True)


def test_select_ngrams_across_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunking, "_BATCH", 3)
    words = [str(i % 17) for i in range(200)]
    for n in (1, 2, 4):
        grams = list(ngrams(words, n))
        assert list(select_ngrams(grams)) == naive_select_ngrams(grams)
        assert list(select_ngrams(grams, with_pos=True)) == naive_select_ngrams(grams, True)


def test_select_ngrams_forgets_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunking, "_MAX_REMEMBERED", 4)
    grams = list(ngrams([f"t{i % 50}" for i in range(300)] + list(range(100)), 3))
    assert list(select_ngrams(grams)) == naive_select_ngrams(grams)


def test_select_ngrams_accepts_ngrams_without_a_length() -> None:
    grams = [iter(("a", "b", "c")), iter(("c", "b", "a"))]
    selected = list(select_ngrams(grams))
    assert selected[0] is grams[0]


def test_select_ngrams_argument_errors_at_the_call() -> None:
    with pytest.raises(TypeError, match="ngrams must be an iterable of ngrams; got int"):
        select_ngrams(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="with_pos must be a bool; got str"):
        select_ngrams(GRAMS, with_pos="yes")  # type: ignore[arg-type]


def test_select_ngrams_bad_ngrams_while_iterating() -> None:
    with pytest.raises(ValueError, match=r"at least one token; got \(\) at 1"):
        list(select_ngrams([("a",), ()]))
    with pytest.raises(TypeError, match="each ngram must be a sequence of tokens; got int 5 at 0"):
        list(select_ngrams([5]))


def test_package_reexports() -> None:
    for name in chunking.__all__:
        assert getattr(samecode, name) is getattr(chunking, name)
