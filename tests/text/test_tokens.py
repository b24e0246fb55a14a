"""samecode.text.tokens: words, code tokens and character shingles."""

from __future__ import annotations

import io
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.text.tokens import char_shingles, code_tokens, decode, words

from reference import naive_char_shingles


def test_words_split_cjk_ideographs_but_keep_other_scripts() -> None:
    assert words("我爱北京 Tokyo東京") == ["我", "爱", "北", "京", "tokyo", "東", "京"]
    assert words("𠀀𠀁") == ["𠀀", "𠀁"]  # extension B, outside the BMP
    assert words("カタカナ 한국어 русский") == ["カタカナ", "한국어", "русский"]
    assert words("हिन्दी") == ["हिन्दी"]  # vowel signs and virama are combining marks
    assert words("cafe\u0301 x") == ["cafe\u0301", "x"]


def test_words_case_and_punctuation() -> None:
    assert words("Hello, WORLD! it's 42_x") == ["hello", "world", "it", "s", "42_x"]
    assert words("Hello", casefold=False) == ["Hello"]
    assert words("") == []


def test_undecodable_bytes_policy() -> None:
    assert words(b"ab\xffcd") == ["ab", "cd"]
    assert decode(b"\xff", "surrogateescape") == "\udcff"
    with pytest.raises(UnicodeDecodeError):
        words(b"ab\xffcd", errors="strict")
    with pytest.raises(ValueError, match="codec error handler; got 'nope'"):
        words(b"x", errors="nope")
    with pytest.raises(TypeError, match="str or bytes-like"):
        words(12)  # type: ignore[arg-type]
    assert code_tokens(b"a\xff") == ["a", "\ufffd"]


def test_code_tokens_kinds() -> None:
    source = 'def f(x):\n    return x ** 2 >= 1.5e-3  # small\ns = "a # b"\n'
    assert code_tokens(source, line_comments=("#",), block_comments=()) == [
        "def", "f", "(", "x", ")", ":", "return", "x", "**", "2", ">=", "1.5e-3",
        "s", "=", '"a # b"',
    ]  # fmt: skip
    c_source = "int $x = 0x1F; /* block\n comment */ y->z++; // end"
    assert code_tokens(c_source) == ["int", "$x", "=", "0x1F", ";", "y", "->", "z", "++", ";"]
    assert code_tokens(c_source, comments=True) == [
        "int", "$x", "=", "0x1F", ";", "/* block\n comment */", "y", "->", "z", "++", ";",
        "// end",
    ]  # fmt: skip


def test_code_tokens_strings_and_edges() -> None:
    assert code_tokens('x = """a\n# not a comment"""') == ["x", "=", '"""a\n# not a comment"""']
    assert code_tokens("s = 'it\\'s' + 'open") == ["s", "=", "'it\\'s'", "+", "'open"]
    assert code_tokens("/* never closed") == []
    assert code_tokens("a -- b", line_comments=("--",)) == ["a"]
    with pytest.raises(ValueError, match="non-empty strings"):
        code_tokens("x", line_comments=("",))


@given(st.text(alphabet="ab =+#/*'\"\n\t1.", max_size=60))
def test_code_tokens_lose_only_comments_and_space(text: str) -> None:
    everything = code_tokens(text, comments=True, whitespace=True)
    assert "".join(everything) == text
    kept = code_tokens(text)
    assert all(not t.isspace() for t in kept)


def test_char_shingles_follow_seed_004() -> None:
    assert list(char_shingles("ab\t\n  cd", 3)) == ["ab ", "b c", " cd"]
    lines = ["first line\n", "\n", "  second\tline\n"]
    assert list(char_shingles(lines, 4)) == naive_char_shingles("".join(lines), 4)
    assert list(char_shingles("abc", 5)) == []
    assert list(char_shingles("abc", 1)) == ["a", "b", "c"]


def test_char_shingles_stream_bytes_split_inside_a_character() -> None:
    data = "naïve café ✓ done".encode()
    chunks = [data[i : i + 3] for i in range(0, len(data), 3)]
    assert list(char_shingles(chunks, 4)) == naive_char_shingles(data.decode(), 4)
    assert list(char_shingles(io.BytesIO(b"a\xffb c"), 2)) == ["a\ufffd", "\ufffdb", "b ", " c"]


def test_char_shingles_of_a_large_file_take_bounded_memory() -> None:
    line = "some words on a line of a large file\n"
    lines = (line for _ in range(50_000))  # 1.8 MB of text, never held at once
    tracemalloc.start()
    try:
        count = sum(1 for _ in char_shingles(lines, 9))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 50_000 * len(line) - 8
    assert peak < 200_000


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: char_shingles("x", 0), ValueError, "k must be >= 1; got 0"),
        (lambda: char_shingles("x", 2.0), TypeError, "k must be an int"),
        (lambda: char_shingles(5, 2), TypeError, "iterable of lines"),
        (lambda: list(char_shingles([1], 2)), TypeError, "every chunk must be str or bytes"),
        (lambda: char_shingles("x", 2, errors="bogus"), ValueError, "got 'bogus'"),
    ],
)
def test_char_shingles_errors(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


@given(st.text(alphabet="ab \t\n\r", max_size=40), st.integers(1, 6), st.data())
def test_char_shingles_any_chunking_matches_whole_text(
    text: str, k: int, data: st.DataObject
) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=5)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert list(char_shingles(pieces, k)) == naive_char_shingles(text, k)
