"""Tests of the samecode command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from samecode import BitAverageHaloHash
from samecode.cli import features, fingerprint_file, main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_features_words_and_ngrams() -> None:
    assert list(features(b" one\ttwo\n three ")) == [b"one", b"two", b"three"]
    assert list(features(b"one two three", ngram=3)) == [b"one two three"]
    assert list(features(b"one two", ngram=3)) == []
    with pytest.raises(ValueError, match="ngram must be >= 1; got 0"):
        features(b"x", ngram=0)


def test_fingerprint_file_matches_library(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"alpha beta\ngamma")
    assert fingerprint_file(path, 64) == BitAverageHaloHash(
        [b"alpha", b"beta", b"gamma"], size_in_bits=64
    )


def test_compare_prints_both_hashes_and_distance(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = EXAMPLES / "original.txt", EXAMPLES / "edited.txt"
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    ha, hb = fingerprint_file(a), fingerprint_file(b)
    assert out[0].startswith(ha.hexdigest().decode())
    assert out[1].startswith(hb.hexdigest().decode())
    assert out[2] == f"distance: {ha.distance(hb)} of 128 bits; similarity {ha.similarity(hb):.3f}"


def test_edited_text_is_closer_than_unrelated_text() -> None:
    original = fingerprint_file(EXAMPLES / "original.txt")
    assert original.distance(fingerprint_file(EXAMPLES / "edited.txt")) < original.distance(
        fingerprint_file(EXAMPLES / "unrelated.txt")
    )


def test_fingerprint_many_files(capsys: pytest.CaptureFixture[str]) -> None:
    paths = sorted(str(p) for p in EXAMPLES.glob("*.txt"))
    assert main(["fingerprint", "--size", "256", *paths]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(paths)
    assert all(len(line.split()[0]) == 64 for line in lines)


def test_missing_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fingerprint", str(tmp_path / "nope.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "a"], "the following arguments are required"),
        (["fingerprint", "--size", "100", "x"], "invalid choice"),
        (["fingerprint", "--ngram", "0", "x"], "--ngram must be >= 1; got 0"),
        ([], "the following arguments are required"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_python_dash_m_runs_the_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "samecode", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.startswith("samecode ")
