"""Scratch files: a file read comes back from its scratch file as it was written, at its
own offset among others, and a scratch file damaged or removed is said so: cut short
anywhere, or with any bytes changed, loading it gives back what it holds or the one error
that says so, never another exception or a huge allocation."""

from __future__ import annotations

import os
import pickle
import re
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.errors import SamecodeValueError
from samecode.fragments.ignored import Ignored
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.scratch import ReadFile, ScratchFile, load, load_ids
from samecode.fragments.tokens import TokenSpans
from samecode.text.shingling import Shingling

words = st.lists(st.sampled_from(["a", "b", "c", "dd", "e\n", "f\n\n"]), min_size=1, max_size=80)


def _read(text: str) -> tuple[TokenSpans, Kgrams]:
    tokens = TokenSpans.of(text, Shingling())
    return tokens, Kgrams.of(tokens.ids, k=2, window=3)


@given(st.lists(words.map(" ".join), min_size=1, max_size=5))
def test_every_file_comes_back_as_written(tmp_path_factory, texts):
    folder = tmp_path_factory.mktemp("scratch")
    files = [_read(text) for text in texts]
    ignored = (Ignored("x", "import block", 1, 1, 2, 0, 2),)
    with ScratchFile(str(folder)) as scratch:
        written = [scratch.write(f"f{n}", *found, ignored) for n, found in enumerate(files)]
    assert len({read.scratch for read in written}) == 1  # one scratch file, several offsets
    for n, (read, (tokens, kgrams)) in enumerate(zip(written, files)):
        assert (read.path, read.tokens, read.ignored) == (f"f{n}", len(tokens), ignored)
        assert read.masked == [(0, 2)]
        assert read.fingerprints.tolist() == sorted(kgrams.hashes[p] for p in kgrams.selected)
        back_tokens, back_kgrams = load(read)
        assert back_tokens == tokens
        assert back_kgrams == kgrams
        assert load_ids(read) == tokens.ids
        assert pickle.loads(pickle.dumps(read)) == read


def test_each_scratch_file_is_new_and_stays_after_it_is_closed(tmp_path):
    tokens, kgrams = _read("a b c a b c")
    with ScratchFile(str(tmp_path)) as one, ScratchFile(str(tmp_path)) as two:
        first, second = one.write("a", tokens, kgrams, ()), two.write("b", tokens, kgrams, ())
    assert first.scratch != second.scratch
    assert sorted(os.listdir(tmp_path)) == sorted(
        os.path.basename(read.scratch) for read in (first, second)
    )
    assert os.path.getsize(first.scratch) == first.ids + first.size
    assert load(second)[0] == tokens


def test_a_damaged_or_removed_scratch_file_is_said_so(tmp_path):
    tokens, kgrams = _read("a b c a b c d e f")
    with ScratchFile(str(tmp_path)) as scratch:
        read = scratch.write("a.py", tokens, kgrams, ())
    with open(read.scratch, "r+b") as handle:
        handle.truncate(read.ids + read.size - 1)
    with pytest.raises(SamecodeValueError, match=r"scratch file .* of 'a.py' was cut short"):
        load(read)
    assert load_ids(read) == tokens.ids  # the ids come first, and are whole
    os.remove(read.scratch)
    with pytest.raises(FileNotFoundError):
        load_ids(read)


def _two_written(folder: str) -> list[ReadFile]:
    with ScratchFile(folder) as scratch:
        return [
            scratch.write("a.py", *_read("a b c a b c d e f\ng h\n"), ()),
            scratch.write("b.py", *_read("c d e\nf a b c d"), ()),
        ]


CUT_SHORT = r"the scratch file '.*' of '[ab]\.py' was cut short or changed while the scan ran"


def test_a_scratch_file_cut_short_at_any_byte_is_said_so(tmp_path):
    # issue 31, item 4: cut off an 8-byte boundary, reading the ids raised a bare ValueError
    written = _two_written(str(tmp_path))
    scratch = written[0].scratch
    with open(scratch, "rb") as handle:
        whole = handle.read()
    expected = [_read("a b c a b c d e f\ng h\n")[0], _read("c d e\nf a b c d")[0]]
    for cut in range(len(whole)):
        with open(scratch, "wb") as handle:
            handle.write(whole[:cut])
        for read, tokens in zip(written, expected):
            if cut >= read.offset + read.ids + read.size:
                assert load(read)[0] == tokens
            else:
                with pytest.raises(SamecodeValueError, match=CUT_SHORT):
                    load(read)
            if cut >= read.offset + read.ids:
                assert load_ids(read) == tokens.ids
            else:
                with pytest.raises(SamecodeValueError, match=CUT_SHORT):
                    load_ids(read)


@given(
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1, max_size=4),
    st.none() | st.integers(min_value=0),
)
def test_a_scratch_file_changed_anywhere_is_loaded_or_said_so(tmp_path_factory, changes, cut):
    # garbled, it raised TypeError, UnicodeDecodeError, MemoryError... (it was a pickle)
    written = _two_written(str(tmp_path_factory.mktemp("scratch")))
    with open(written[0].scratch, "rb") as handle:
        data = bytearray(handle.read())
    for at, byte in changes:
        data[at % len(data)] = byte
    with open(written[0].scratch, "wb") as handle:
        handle.write(data[: None if cut is None else cut % len(data)])
    for read in written:
        for loader in (load, load_ids):
            try:
                loader(read)
            except SamecodeValueError as error:
                said = str(error)
            else:
                said = None
            assert said is None or re.fullmatch(CUT_SHORT, said)


@pytest.mark.parametrize("field", range(9))
def test_a_garbage_length_in_a_scratch_file_allocates_nothing(tmp_path, field):
    # a length past the bytes the file holds is refused before anything is read
    (read, _) = _two_written(str(tmp_path))
    header = read.offset + read.ids
    at = header + (1 + 9 * field if field < 7 else 63 + 8 * (field - 7))
    with open(read.scratch, "r+b") as handle:
        handle.seek(at)
        handle.write(struct.pack("=Q", 2**62))
    with pytest.raises(SamecodeValueError, match=CUT_SHORT):
        load(read)


def test_a_scratch_file_needs_its_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        ScratchFile(str(tmp_path / "missing"))


def test_what_is_kept_in_memory_is_the_fingerprints():
    # and the SHA-256 of the bytes read (64 characters a file): the HTML report checks it
    assert set(ReadFile.__slots__) == {
        "path", "tokens", "fingerprints", "ignored", "scratch", "offset", "ids", "size", "sha256"
    }  # fmt: skip
