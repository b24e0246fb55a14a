"""compare_files: the exact counts of two files, missing and empty files."""

from __future__ import annotations

from fractions import Fraction

import pytest

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.comparison import Comparison, compare_files
from samecode.text.shingling import Shingling


def test_the_counts_and_measures(tmp_path):
    (tmp_path / "a").write_text("total = price * count + tax")
    (tmp_path / "b").write_text("total = price * count - tax")
    found = compare_files(tmp_path / "a", tmp_path / "b", Shingling(size=3))
    assert found == Comparison(str(tmp_path / "a"), str(tmp_path / "b"), 7, 7, 5, 5, 3)
    assert (found.jaccard, found.containment_a, found.containment_b) == (
        Fraction(3, 7),
        Fraction(3, 5),
        Fraction(3, 5),
    )
    assert found.comparable
    assert found.empty == ()
    assert found.to_dict()["jaccard"] == 3 / 7


def test_empty_files_are_not_comparable(tmp_path):
    (tmp_path / "e").write_text("")
    (tmp_path / "x").write_text("some words here")
    for pair in (("e", "e"), ("e", "x")):
        found = compare_files(*(tmp_path / name for name in pair))
        assert not found.comparable
        assert found.jaccard is found.containment_a is found.containment_b is None
        assert str(tmp_path / "e") in found.empty


def test_files_that_cannot_be_compared(tmp_path):
    (tmp_path / "x").write_text("some words here")
    (tmp_path / "bin").write_bytes(b"\x00\x01")
    with pytest.raises(SamecodeValueError, match=r"nope: missing \(no such file\)"):
        compare_files(tmp_path / "nope", tmp_path / "x")
    with pytest.raises(SamecodeValueError, match="bin: binary"):
        compare_files(tmp_path / "x", tmp_path / "bin")
    with pytest.raises(SamecodeValueError, match="not a regular file"):
        compare_files(tmp_path, tmp_path / "x")
    with pytest.raises(SamecodeTypeError, match="Shingling"):
        compare_files(tmp_path / "x", tmp_path / "x", "words")  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="path"):
        compare_files(1, tmp_path / "x")  # type: ignore[arg-type]
