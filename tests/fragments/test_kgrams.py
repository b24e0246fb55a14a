"""Kgrams: where a hash occurs, and the sieves that rule most absent hashes, and most
hashes held once, out."""

from __future__ import annotations

import pickle
import random
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.kgrams import Kgrams, mask_kgrams
from samecode.fragments.winnowing import winnow

small_hashes = st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 5), max_size=300)


@given(small_hashes, st.integers(0, 2**64 - 1), st.integers(1, 10))
def test_where_is_every_position_of_the_hash_in_order(hashes, probe, most):
    grams = Kgrams.selecting(array("Q", hashes), array("q", winnow(hashes, 4)))
    for value in {*hashes[:20], probe}:
        expected = [p for p, h in enumerate(hashes) if h == value]
        assert list(grams.where(value)) == expected
        found = grams.where(value, most)
        assert (found is None) == (len(expected) > most)
        assert found is None or list(found) == expected


@given(small_hashes)
def test_the_sieve_never_rules_out_a_hash_the_text_has(hashes):
    grams = Kgrams.selecting(array("Q", hashes), array("q", winnow(hashes, 4)))
    assert all(grams.may_have(value) for value in hashes)
    assert len(grams.sieve) >= 16 * len(hashes)
    assert len(grams.sieve) & (len(grams.sieve) - 1) == 0  # a power of two


def test_the_sieve_lets_through_few_absent_hashes():
    rng = random.Random(5)
    hashes = array("Q", (rng.getrandbits(64) for _ in range(20_000)))
    grams = Kgrams.selecting(hashes, array("q", winnow(hashes, 16)))
    absent = [rng.getrandbits(64) for _ in range(20_000)]
    passed = sum(map(grams.may_have, absent)) / len(absent)
    # 20,000 hashes in 524,288 bits: 1 - exp(-20000 / 524288) = 0.037 expected
    assert 0.027 < passed < 0.047


@given(small_hashes)
def test_the_repeats_sieve_never_rules_out_a_repeated_hash(hashes):
    grams = Kgrams.selecting(array("Q", hashes), array("q", winnow(hashes, 4)))
    assert all(grams.may_repeat(value) for value in hashes if hashes.count(value) > 1)


def test_the_repeats_sieve_lets_through_few_hashes_held_once():
    rng = random.Random(6)
    once = [rng.getrandbits(64) for _ in range(20_000)]
    twice = [rng.getrandbits(64) for _ in range(2_000)] * 2
    grams = Kgrams.selecting(array("Q", once + twice), array("q", [0]))
    passed = sum(map(grams.may_repeat, once)) / len(once)
    # 2,000 repeated hashes in 32,768 bits: 1 - exp(-2000 / 32768) = 0.059 expected
    assert 0.045 < passed < 0.075


def test_kgrams_pickle_to_equal_kgrams():
    grams = Kgrams.of(array("Q", [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), k=2, window=3)
    again = pickle.loads(pickle.dumps(grams))
    assert again == grams
    assert again.sieve == grams.sieve
    assert again.repeats == grams.repeats


@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=80),
    st.lists(st.tuples(st.integers(0, 80), st.integers(0, 6)), max_size=4),
    st.integers(1, 4),
    st.integers(1, 5),
    st.randoms(use_true_random=False),
)
def test_fingerprints_do_not_depend_on_the_ids_of_masked_tokens(ids, spans, k, window, rng):
    masked = sorted((first, min(first + length, len(ids))) for first, length in spans)
    masked = [(first, stop) for first, stop in masked if first < stop]
    blocked = {place for first, stop in masked for place in range(first, stop)}
    other = [rng.getrandbits(64) if place in blocked else x for place, x in enumerate(ids)]
    one, two = Kgrams.of(ids, k, window, masked), Kgrams.of(other, k, window, masked)
    assert one.selected == two.selected
    assert one.hashes == two.hashes
    assert not any(blocked & set(range(at, at + k)) for at in one.selected)


@given(
    st.lists(st.integers(0, 2**64 - 2), min_size=0, max_size=40),
    st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), max_size=8),
    st.integers(1, 5),
)
def test_the_kgrams_masked_are_those_over_a_masked_token(hashes, pairs, k):
    tokens = len(hashes) + k - 1
    masked = [(min(a, b, tokens), min(max(a, b), tokens)) for a, b in pairs]  # any order
    over = {at for first, stop in masked if first < stop
            for at in range(max(0, first - k + 1), min(stop, len(hashes)))}  # fmt: skip
    got = array("Q", hashes)
    blocked = mask_kgrams(got, masked, k, tokens)
    assert [at for at, bit in enumerate(blocked) if bit] == sorted(over)
    assert got.tolist() == [2**64 - 1 if at in over else h for at, h in enumerate(hashes)]


def test_an_empty_masked_range_masks_nothing():
    ids = [0, 1, 2, 0, 0, 1, 0, 3, 3]
    assert Kgrams.of(ids, 3, 4, [(8, 8), (2, 2)]) == Kgrams.of(ids, 3, 4)


@pytest.mark.parametrize(
    ("masked", "error", "message"),
    [
        ([(3, 2)], SamecodeValueError, "0 <= first <= stop <= 9"),
        ([(-1, 2)], SamecodeValueError, "got -1 to 2"),
        ([(0, 10)], SamecodeValueError, "got 0 to 10"),
        ([(0, 1, 2)], SamecodeTypeError, "a \\(first, stop\\) tuple"),
        ([(0.5, 2)], SamecodeTypeError, "first token"),
        ([(0, True)], SamecodeTypeError, "stop must be an int"),
        ([(0, 1), [2, 3]], SamecodeTypeError, "got \\[2, 3\\]"),
        ([(0, 1), (5, 4), (6, 99)], SamecodeValueError, "got 5 to 4"),
    ],
)
def test_a_bad_masked_range_is_refused_with_the_rule(masked, error, message):
    with pytest.raises(error, match=message):
        Kgrams.of([0, 1, 2, 0, 0, 1, 0, 3, 3], 3, 4, masked)


@pytest.mark.parametrize("selected", [[2, 1], [1, 1], [-1, 2], [0, 3]])
def test_fingerprints_out_of_order_or_range_are_refused_with_the_rule(selected):
    with pytest.raises(SamecodeValueError, match="strictly increasing positions from 0 to 2"):
        Kgrams.selecting(array("Q", [7, 8, 9]), array("q", selected))


def test_the_repeats_sieve_is_sized_by_the_distinct_repeated_values():
    grams = Kgrams.selecting(array("Q", [5] * 100_000), array("q", [0]))
    assert len(grams.repeats) == 64  # one repeated value: the least size
