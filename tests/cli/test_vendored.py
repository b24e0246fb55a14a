"""No false all-clear: files matched against a corpus are walked with their vendored and
third-party folders (issue 33, item 2), unless ``--default-excludes`` is asked for; a
scan that leaves such folders out says which, and how many files they hold, even with
``-q``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from samecode.cli import main
from samecode.corpus.fragments import match_fragments
from samecode.corpus.match import MATCH_WALK, scan_against
from samecode.corpus.store import Corpus
from samecode.fragments.options import FragmentOptions
from samecode.sources.walk import DEFAULT_EXCLUDES, WalkOptions

CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))
OWN = "\n".join(f"value_{i} = compute({i}) + offset_{i}" for i in range(40))


@pytest.fixture
def corpora(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A corpus of one upstream file (plain and with fragments), and a project that holds
    a byte-identical copy of it under ``vendor/`` and code of its own elsewhere."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "lib.py").write_text(CODE)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text(OWN)
    (project / "vendor" / "lib").mkdir(parents=True)
    (project / "vendor" / "lib" / "lib.py").write_text(CODE)
    plain, fragments = tmp_path / "plain.db", tmp_path / "fragments.db"
    assert main(["index", "add", str(upstream), "--db", str(plain), "-q", "-j", "1"]) == 0
    assert main(["index", "add", str(upstream), "--db", str(fragments), "--fragments", "-q"]) == 0
    return project, plain, fragments


def test_vendor_is_a_default_exclude_of_a_scan():
    # the premise: a scan of one's own tree leaves vendor/ out by default
    assert "vendor" in DEFAULT_EXCLUDES
    assert WalkOptions().default_excludes
    assert not MATCH_WALK.default_excludes


def test_match_finds_the_vendored_copy(corpora, capsys):
    project, plain, _ = corpora
    assert main(["match", str(project), "--db", str(plain), "-q", "--fail-on-match"]) == 1
    out = capsys.readouterr().out
    assert "vendor" in out
    assert "lib.py" in out


def test_match_with_default_excludes_asked_leaves_vendor_out(corpora, capsys):
    project, plain, _ = corpora
    args = ["match", str(project), "--db", str(plain), "-q", "--fail-on-match"]
    assert main([*args, "--default-excludes"]) == 0
    capsys.readouterr()


def test_match_fragments_finds_the_vendored_copy_whole(corpora, capsys):
    project, _, fragments = corpora
    args = ["match", str(project), "--db", str(fragments), "--fragments", "-q"]
    assert main([*args, "--format", "jsonl", "--fail-on-match"]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    regions = [r for r in records if r["type"] == "region"]
    assert regions
    assert {Path(r["a"]).parts[-3:] for r in regions} == {("vendor", "lib", "lib.py")}


def test_scan_against_finds_the_vendored_copy(corpora, capsys):
    project, plain, _ = corpora
    args = ["scan", str(project), "--against", str(plain), "-q", "--format", "jsonl"]
    assert main([*args, "--fail-on-match"]) == 1
    assert "vendor" in capsys.readouterr().out


def test_the_library_walks_vendor_when_matching(corpora):
    project, plain, fragments = corpora
    with Corpus.open(plain, readonly=True) as corpus:
        _, matched = scan_against(corpus, [str(project)])
    assert [Path(pair.a).parts[-3:] for pair in matched] == [("vendor", "lib", "lib.py")]
    with Corpus.open(fragments, readonly=True) as corpus:
        found = match_fragments(corpus, [str(project)], FragmentOptions())
    assert {Path(r.a).name for r in found.regions} == {"lib.py"}


def test_scan_says_which_vendored_folders_it_left_out_even_when_quiet(corpora, capsys):
    project, _, _ = corpora
    (project / "node_modules" / "x").mkdir(parents=True)
    for name in ("a.js", "x/b.js", "x/c.js"):
        (project / "node_modules" / name).write_text("module.exports = 1;")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main")
    assert main(["scan", str(project), "-q", "--no-gitignore", "--jobs", "1"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("samecode: left out 2 folders of vendored or installed code: ")
    assert "node_modules (3 files)" in err[0]
    assert "vendor (1 file)" in err[0]
    assert ".git" not in err[0]  # version control holds no one's code to look at
    assert err[0].endswith("; --no-default-excludes walks them")
    assert main(["scan", str(project), "--fragments", "-q", "--no-gitignore", "-j", "1"]) == 0
    assert "left out 2 folders" in capsys.readouterr().err
    assert main(["scan", str(project), "-q", "--no-default-excludes", "-j", "1"]) == 0
    assert capsys.readouterr().err == ""
