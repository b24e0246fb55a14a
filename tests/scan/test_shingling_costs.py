"""Shingling (issue 20, items 12 and 13): the shingle hashes are a stored format (pinned
here), memory proportional to the text whatever the shingle size, and the ASCII fast path
always the documented Unicode rule."""

from __future__ import annotations

import hashlib
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import peak_memory
from samecode.text.shingling import Shingling, shingle_hash, token_id


def sample_texts():
    rng = random.Random(20)
    words = [
        "def", "x", "=", "(", ")", "return", "'s \\' t'", '"q"', "# c\n", "/* b */",
        "1.5e-3", "é", "漢", "\n", "  ",
    ]  # fmt: skip
    long = " ".join(rng.choice(words) for _ in range(3000))
    return [
        "def f(x):\n    return x + 1  # one\n",
        'total = price * count + tax; s = "a b"',
        "héllo wörld 漢字 and more words here",
        long,
    ]


RULES = [
    {},
    {"size": 3},
    {"size": 50},
    {"tokens": "code", "size": 4},
    {"tokens": "code", "size": 2, "normalize": True},
    {"size": 5, "normalize": True},
    {"tokens": "chars", "size": 5},
    {"tokens": "chars", "size": 40},
    {"size": 1000},
    {"tokens": "chars", "size": 1000},
]


def test_shingle_hashes_are_pinned():
    """Corpus files store these hashes: any change of value is a change of format."""
    digest = hashlib.sha256()
    for rules in RULES:
        shingling = Shingling(**rules)
        for text in sample_texts():
            count, hashes = shingling.measure(text, "f.py")
            digest.update(repr((count, sorted(hashes))).encode())
    assert digest.hexdigest() == "a20f4777007627cf7c82628b66386141c6abfb15dfafa591c9fe2bd43a241783"
    rules = Shingling(size=3)
    ids = [token_id(t) for t in ["a", "=", "b"]]
    assert list(rules.shingles("a = b")) == [shingle_hash(ids)]


def test_memory_does_not_grow_with_the_shingle_size():
    rng = random.Random(5)
    text = " ".join(f"w{rng.randrange(5000)}" for _ in range(20_000))  # ~120 KB
    peaks = {}
    for tokens, size in [("words", 5), ("words", 1000), ("chars", 5), ("chars", 1000)]:
        rules = Shingling(tokens=tokens, size=size)
        rules.shingles("warm up the memo " + text[:1000])
        with peak_memory() as peak:
            rules.shingles(text)
        peaks[tokens, size] = peak[0]
    # proportional to the text (a set of Python ints: under 150 bytes a character), not
    # to the size times it (157 MB for words of size 1000 here before)
    assert peaks["words", 1000] < 3 * peaks["words", 5] + 2_000_000, peaks
    assert peaks["chars", 1000] < 3 * peaks["chars", 5] + 2_000_000, peaks
    assert max(peaks.values()) < 150 * len(text), peaks


UNICODE_WORDS = re.compile(r"\w+|[^\w\s]")


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text())
@settings(max_examples=300, deadline=None)
def test_the_ascii_fast_path_is_the_documented_rule(text):
    rules = Shingling(size=2)
    assert rules.token_list(text) == UNICODE_WORDS.findall(text)
    # one non-ASCII character elsewhere changes nothing of the rest
    assert rules.token_list(text + " é") == [*UNICODE_WORDS.findall(text), "é"]


def test_information_separators_are_white_space():
    assert "\x1c\x1d\x1e\x1f".isspace()
    rules = Shingling(size=2)
    assert rules.token_list("a\x1cb\x1f c") == ["a", "b", "c"]
    assert rules.shingles("a\x1cb\x1f c") == rules.shingles("a b c")
    assert rules.shingles("a\x1cb é") == rules.shingles("a b é")
