"""``--profile``: each job's defaults on the command line; what is given wins; the report
says what the profile set; a corpus records its profile and refuses another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from samecode.cli import main

BLOCK = "".join(f"def step_{i}(value):\n    return value * {i} + {i * 7}\n" for i in range(12))


def head(capsys, *args: str) -> dict:
    status = main([*args, "--format", "jsonl", "-q", "--no-gitignore", "-j", "1"])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    return json.loads(out.splitlines()[0])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "a.py").write_text(BLOCK)
    (root / "vendor" / "lib" / "b.py").write_text(BLOCK.replace("value", "item"))
    return root


def test_the_report_says_the_profile_and_what_it_set(tree, capsys):
    found = head(capsys, "scan", str(tree), "--fragments", "--profile", "plagiarism")
    parameters = found["parameters"]
    assert parameters["profile"] == "plagiarism"
    assert parameters["profile_set"] == {
        "shingling": {"tokens": "code", "normalize": True, "size": 3},
        "fragments": {"k": 5, "window": 4, "min_tokens": 10, "gap": 5, "all_pairs": True},
    }
    assert (parameters["k"], parameters["tokens"], parameters["normalize"]) == (5, "code", True)
    plain = head(capsys, "scan", str(tree), "--fragments")["parameters"]
    assert (plain["profile"], plain["profile_set"], plain["k"]) == ("duplicates", {}, 12)


def test_options_given_win_and_are_not_said_to_be_the_profiles(tree, capsys):
    found = head(capsys, "scan", str(tree), "--fragments", "--profile", "plagiarism",
                 "--kgram", "8", "--no-normalize")  # fmt: skip
    parameters = found["parameters"]
    assert (parameters["k"], parameters["normalize"]) == (8, False)
    assert "k" not in parameters["profile_set"]["fragments"]
    assert "normalize" not in parameters["profile_set"]["shingling"]


def test_provenance_walks_vendored_folders(tree, capsys):
    plain = head(capsys, "scan", str(tree), "--fragments")
    assert plain["summary"]["compared"] == 1  # vendor/ left out
    found = head(capsys, "scan", str(tree), "--fragments", "--profile", "provenance")
    assert found["summary"]["compared"] == 2
    assert found["parameters"]["profile_set"]["walk"] == {
        "default_excludes": False,
        "min_tokens": 1,
    }


def test_a_profile_from_the_configuration(tree, capsys, monkeypatch):
    (tree / "pyproject.toml").write_text('[tool.samecode]\nprofile = "plagiarism"\nshingle = 4\n')
    monkeypatch.chdir(tree)
    found = head(capsys, "scan", ".", "--fragments")
    assert found["parameters"]["profile"] == "plagiarism"
    assert found["parameters"]["profile_set"]["shingling"] == {"tokens": "code", "normalize": True}


def test_a_corpus_records_its_profile_and_refuses_another(tree, tmp_path, capsys):
    db = str(tmp_path / "c.db")
    status = main(["index", "add", str(tree / "a.py"), "--db", db, "--fragments", "--profile",
                   "plagiarism", "-q", "-j", "1"])  # fmt: skip
    assert status == 0
    query = str(tree / "vendor")
    # without --profile, the corpus's: its walk and region settings, its stored ones
    found = head(capsys, "match", query, "--db", db, "--fragments")
    assert found["parameters"]["profile"] == "plagiarism"
    assert found["parameters"]["profile_set"] == {"fragments": {"min_tokens": 10, "gap": 5}}
    assert found["summary"]["regions"] == 1  # the renamed copy, normalized
    # the same profile again is fine; another is refused, and so is one for an older corpus
    assert head(capsys, "match", query, "--db", db, "--fragments", "--profile", "plagiarism")
    for command in (["match", query], ["index", "add", query]):
        status = main([*command, "--db", db, "--profile", "provenance", "-q"])
        _, err = capsys.readouterr()
        assert status == 2
        assert "the corpus was made with --profile plagiarism; got --profile provenance" in err
    plain = str(tmp_path / "plain.db")
    assert main(["index", "add", str(tree / "a.py"), "--db", plain, "-q"]) == 0
    assert main(["match", query, "--db", plain, "--profile", "plagiarism", "-q"]) == 2
    assert "made with --profile duplicates (it names none)" in capsys.readouterr().err


def test_an_unknown_profile_is_a_usage_error(tree, capsys):
    assert main(["scan", str(tree), "--profile", "homework"]) == 2
    assert "invalid choice: 'homework'" in capsys.readouterr().err
    (tree / "pyproject.toml").write_text('[tool.samecode]\nprofile = "homework"\n')
    import os

    cwd = os.getcwd()
    os.chdir(tree)
    try:
        assert main(["scan", "."]) == 2
    finally:
        os.chdir(cwd)
    assert "no profile 'homework'" in capsys.readouterr().err
