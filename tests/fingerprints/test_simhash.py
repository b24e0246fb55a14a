"""samecode.fingerprints.simhash: the weighted SimHash and simhash-py's functions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.fingerprints.simhash import (
    SimHash,
    compute,
    num_differing_bits,
    shingle,
    unsigned_hash,
)

from reference import naive_compute, naive_simhash

SHORT = ["The", "value", "specified", "for", "size", "must", "be", "at", "least", "as", "large"]
LONG = [f"feature-{i}" for i in range(300)]

# Pinned values, produced by naive_simhash (exact arithmetic, one bit at a time).
GOLDEN = {
    (32, "short"): 0xF575EB22,
    (64, "short"): 0xF575EB224F2A4EB2,
    (128, "short"): 0xF575EB224F2A4EB226C89952620A9825,
    (160, "short"): 0x93634DCCEB034A8712ECEA8A11BE20D89C2CA925,
    (64, "long"): 0x745ABE97CB09A0EE,
    (256, "long"): 0x623DEC5C182777148FD4285A7EC024713A9C048151F1A03AE90C71CD804A4840,
}
INPUTS = {"short": SHORT, "long": LONG}


@pytest.mark.parametrize(("size", "which"), sorted(GOLDEN))
def test_golden_values(size: int, which: str) -> None:
    features = INPUTS[which]
    assert naive_simhash(features, size)[0] == GOLDEN[size, which]
    assert SimHash(features, size).value == GOLDEN[size, which]
    assert SimHash([f.encode() for f in features], size).value == GOLDEN[size, which]


def test_weighted_golden_value() -> None:
    features = [("a", 3), ("b", -2), ("c", 0.25)]
    assert naive_simhash(features, 64)[0] == 0x0CC175B9C0F1B6A8
    assert SimHash(features, 64).value == 0x0CC175B9C0F1B6A8


@pytest.mark.parametrize("seed", range(30))
def test_matches_exact_arithmetic(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([32, 64, 128, 160, 256, 384, 512])
    kind = rng.choice(["tokens", "ints", "floats", "mixed"])
    tokens = [f"t{rng.randint(0, 40)}" for _ in range(rng.randint(0, 200))]
    features: list[object]
    if kind == "tokens":
        features = list(tokens)
    elif kind == "ints":
        features = [(t, rng.randint(-5, 9)) for t in tokens]
    elif kind == "floats":
        features = [(t, rng.uniform(-2, 3)) for t in tokens]
    else:
        features = [rng.choice([t, (t, rng.randint(-3, 3)), (t, rng.random())]) for t in tokens]
    value, vector = naive_simhash(features, size)  # type: ignore[arg-type]
    h = SimHash(features, size)
    assert h.value == value
    assert h.vector == pytest.approx([float(v) for v in vector], abs=1e-9)


def test_the_three_input_forms_agree() -> None:
    words = ["to", "be", "or", "not", "to", "be"]
    by_list = SimHash(words)
    assert SimHash({"to": 2, "be": 2, "or": 1, "not": 1}) == by_list
    assert SimHash([("to", 2), ("be", 2), ("or", 1), ("not", 1)]) == by_list
    assert SimHash(iter(words)) == by_list
    assert SimHash([("to", 2.0), ("be", 2.0), ("or", 1.0), ("not", 1.0)]) == by_list


def test_matches_simhash_py_compute_on_unsigned_hash() -> None:
    for size_words in (1, 2, 50, 3000):
        words = [f"w{i % 97}-{i}".encode() for i in range(size_words)]
        assert SimHash(words).value == compute(unsigned_hash(w) for w in words)


def test_zero_weights_and_empty_input() -> None:
    assert SimHash([]).value == 0
    assert SimHash([("a", 0)]).value == 0
    assert SimHash([("a", 0)]).elements_count == 1
    assert SimHash(None).elements_count == 0


def test_cache_survives_many_distinct_tokens() -> None:
    tokens = [f"token-{i}" for i in range(70_000)]  # more than the cache holds
    value, _ = naive_simhash(tokens[:2000], 64)
    SimHash(tokens)
    assert SimHash(tokens[:2000]).value == value
    mixed = [t if i % 2 else t.encode() for i, t in enumerate(tokens[:3000])]
    assert SimHash(mixed) == SimHash(tokens[:3000])


def test_lone_surrogates_are_hashed_as_is() -> None:
    h = SimHash(["\udcff", "ok"])
    assert h.value == naive_simhash([("\udcff".encode("utf-8", "surrogatepass"), 1), "ok"], 64)[0]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: SimHash("some text"), TypeError, "lone str"),
        (lambda: SimHash(b"bytes"), TypeError, "lone bytes"),
        (lambda: SimHash(42), TypeError, "got int 42"),
        (lambda: SimHash([("a", 1, 2)]), TypeError, "token"),
        (lambda: SimHash([("a", "1")]), TypeError, "weight must be an int or a float; got str"),
        (lambda: SimHash([("a", True)]), TypeError, "weight must be an int or a float"),
        (lambda: SimHash([("a", float("nan"))]), ValueError, "finite; got nan"),
        (lambda: SimHash([3]), TypeError, "got int 3"),
        (lambda: SimHash(size_in_bits=48), ValueError, "got 48"),
        (lambda: compute([1, -1]), ValueError, "unsigned 64-bit"),
        (lambda: compute([1 << 64]), ValueError, "unsigned 64-bit"),
        (lambda: compute([1.5]), TypeError, "must be an int; got float"),
        (lambda: compute(5), TypeError, "iterable of ints"),
        (lambda: num_differing_bits(-1, 0), ValueError, "a must be an unsigned 64-bit"),
        (lambda: num_differing_bits(0, "1"), TypeError, "b must be an int"),
        (lambda: shingle([1], 0), ValueError, "window must be >= 1; got 0"),
        (lambda: shingle([1], "4"), TypeError, "window must be an int"),
        (lambda: shingle(7, 2), TypeError, "tokens must be iterable"),
        (lambda: unsigned_hash("text"), TypeError, "encode text first"),
        (lambda: SimHash.from_text("x", ngram=0), ValueError, "ngram must be >= 1"),
    ],
)
def test_bad_arguments(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


def test_a_rejected_feature_changes_nothing() -> None:
    h = SimHash(LONG)
    before = (h.value, h.elements_count)
    with pytest.raises(TypeError):
        h.update(["fine", ("fine", 2), ("bad", "weight")])
    assert (h.value, h.elements_count) == before


def test_from_text_uses_word_ngrams() -> None:
    assert SimHash.from_text("One two") == SimHash(["one two"])
    assert SimHash.from_text("One two three", ngram=1) == SimHash(["one", "two", "three"])
    assert SimHash.from_text("!!!").value == 0
    assert SimHash.from_text(b"a b c d", 128, ngram=2) == SimHash(["a b", "b c", "c d"], 128)


def test_simhash_py_examples() -> None:
    # The examples of simhash-py's own test suite (seed 002's project).
    assert num_differing_bits(0xDEADBEEF, 0xDEADBEAD) == 2
    assert compute([]) == 0
    assert compute([0xDEADBEEF] * 100) == 0xDEADBEEF
    assert compute([0xDEADBEEFDEADBEEF, 0x2152411021524110]) == 0
    assert compute([0xABCD, 0xBCDE, 0xCDEF]) == 0xADCF
    assert list(shingle(list(range(3)), 4)) == []


u64 = st.integers(min_value=0, max_value=(1 << 64) - 1)


@given(st.lists(u64, max_size=60))
def test_compute_matches_the_bit_loop(hashes: list[int]) -> None:
    assert compute(hashes) == naive_compute(hashes)


@given(u64, u64)
def test_num_differing_bits_is_a_metric(a: int, b: int) -> None:
    assert num_differing_bits(a, b) == num_differing_bits(b, a) == bin(a ^ b).count("1")
    assert (num_differing_bits(a, b) == 0) == (a == b)


@given(st.lists(st.integers(), max_size=20), st.integers(min_value=1, max_value=6))
def test_shingle_matches_slicing(tokens: list[int], window: int) -> None:
    expected = [tokens[i : i + window] for i in range(len(tokens) - window + 1)]
    assert list(shingle(tokens, window)) == expected
    assert list(shingle(iter(tokens), window)) == expected


tokens_st = st.lists(st.text(max_size=4), max_size=40)


@given(tokens_st, st.randoms())
def test_order_does_not_matter(tokens: list[str], rnd: random.Random) -> None:
    shuffled = list(tokens)
    rnd.shuffle(shuffled)
    assert SimHash(tokens, 32) == SimHash(shuffled, 32)


@given(tokens_st, tokens_st)
def test_distance_is_symmetric_and_bounded(a: list[str], b: list[str]) -> None:
    ha, hb = SimHash(a, 128), SimHash(b, 128)
    assert ha.distance(hb) == hb.distance(ha)
    assert 0 <= ha.distance(hb) <= 128
    assert ha.similarity(hb) == 1 - ha.distance(hb) / 128
    assert SimHash.combine([ha, hb]) == SimHash(a + b, 128)
