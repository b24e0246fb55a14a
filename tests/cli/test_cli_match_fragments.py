"""``samecode index add --fragments`` and ``samecode match --fragments``: which lines of
new files match which stored files; older corpora refused clearly and left untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reportlines import check_report, ignored_counts
from samecode.cli import main
from samecode.corpus.store import Corpus
from samecode.fragments import FragmentOptions
from samecode.reports.fragments import FRAGMENT_FORMATS
from samecode.reports.html import page_data
from storefiles import legacy_corpus

LICENCE = "# Copyright 2024 Example. Licensed under the MIT licence.\n"
SRC = str(Path(__file__).resolve().parents[2] / "src")
BLOCK = "".join(f"total_{i} = price_{i} * count_{i} + tax({i})\n" for i in range(12))


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main([*args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def corpus(tmp_path: Path, capsys) -> tuple[Path, Path, Path]:
    return _corpus(tmp_path, capsys, legacy=False)


@pytest.fixture
def old_corpus(tmp_path: Path, capsys) -> tuple[Path, Path, Path]:
    """The files of :func:`corpus` in a corpus of format version 3 (no text kept)."""
    return _corpus(tmp_path, capsys, legacy=True)


def _corpus(tmp_path: Path, capsys, legacy: bool) -> tuple[Path, Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    known = root / "known"
    known.mkdir()
    # eight lines between the head and the block: more than a gap, so the block's region
    # does not grow into the head (masked, but alike in both files)
    (known / "lib.py").write_text(LICENCE + "import os\n" + "x = 1\n" * 8 + BLOCK + "end = 0\n")
    (known / "other.py").write_text("".join(f"other_{i} = {i}\n" for i in range(30)))
    (root / "new.py").write_text(LICENCE + "import os\n" + BLOCK + "done = True\n")
    db = root / "c.db"
    if legacy:
        legacy_corpus(db, 3, FragmentOptions()).close()
    status, _, err = run(capsys, "index", "add", str(known), "--db", str(db), "--fragments",
                         "--no-gitignore", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    assert "2 added" in err
    return root, db, known


def test_match_fragments_reports_regions_with_lines_in_both(corpus, capsys):
    root, db, known = corpus
    status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                           "--format", "jsonl", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    head = records[0]
    assert head["type"] == "fragments"
    assert head["parameters"]["k"] == 12
    assert head["summary"]["ignored"]["licence header"]["ranges"] == 1
    regions = [r for r in records if r["type"] == "region"]
    assert [(r["a"], r["a_start"], r["a_end"], r["b"], r["b_start"], r["b_end"]) for r in
            regions] == [(str(root / "new.py"), 3, 14, str(known / "lib.py"), 11, 22)]  # fmt: skip
    assert regions[0]["tokens"] == 12 * 10  # total_0 = price_0 * count_0 + tax ( 0 )
    ignored = [(r["reason"], r["start"], r["end"]) for r in records if r["type"] == "ignored"]
    assert ignored == [("licence header", 1, 1), ("import block", 2, 2)]
    assert "matched 1 file against" in err
    assert "1 region with 1 file of the corpus" in err


def test_the_output_is_the_same_for_any_jobs(corpus):
    # as processes: worker processes are forked from a plain command, not from pytest
    root, db, _ = corpus
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "samecode", "match", str(root / "new.py"), str(root / "known"),
             "--db", str(db), "--fragments", "--format", "jsonl", "--jobs", jobs,
             "--batch-size", "1", "--no-gitignore"],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, check=False,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count('"type": "region"') == 1  # new.py; the stored files skip themselves


def test_the_table_says_what_was_ignored(corpus, capsys):
    root, db, _ = corpus
    status, out, _ = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments")
    assert status == 0
    assert "Regions (file:lines = file:lines)" in out
    assert "Ignored: 1 licence header (1 lines" in out


def test_keep_options_must_be_the_corpus_s(corpus, capsys):
    root, db, _ = corpus
    for flags, said in [(("--keep-licenses",), "keep_licenses=False"), (("--kgram", "8"), "k=12")]:
        status, _, err = run(capsys, "match", str(root / "new.py"), "--db", str(db),
                             "--fragments", *flags)  # fmt: skip
        assert status == 2
        assert said in err
    status, _, err = run(capsys, "index", "add", str(root / "new.py"), "--db", str(db),
                         "--kgram", "8")  # fmt: skip
    assert status == 2
    assert "k=12" in err


def test_boilerplate_files_are_ignored_in_the_queries(corpus, capsys):
    root, db, _ = corpus
    (root / "template.txt").write_text(BLOCK)
    template = str(root / "template.txt")
    status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                           "--format", "jsonl", "--boilerplate", template)  # fmt: skip
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert not [r for r in records if r["type"] == "region"]
    assert ("boilerplate file", 3, 14) in [
        (r["reason"], r["start"], r["end"]) for r in records if r["type"] == "ignored"
    ]


def test_a_corpus_without_fragments_is_refused_clearly_and_left_untouched(tmp_path, capsys):
    (tmp_path / "a.py").write_text(BLOCK)
    db = tmp_path / "old.db"
    status, _, err = run(capsys, "index", "add", str(tmp_path / "a.py"), "--db", str(db))
    assert status == 0, err
    before = db.read_bytes()
    status, out, err = run(capsys, "match", str(tmp_path / "a.py"), "--db", str(db), "--fragments")
    assert status == 2
    assert out == ""
    assert "stores no fragments (corpus format version 8" in err
    assert "index add --fragments" in err
    status, _, err = run(capsys, "index", "add", str(tmp_path / "a.py"), "--db", str(db),
                         "--fragments")  # fmt: skip
    assert status == 2
    assert "stores no fragments" in err
    assert db.read_bytes() == before
    status, _, err = run(capsys, "index", "add", str(tmp_path / "a.py"), "--db",
                         str(tmp_path / "new.db"), "--kgram", "8")  # fmt: skip
    assert status == 2
    assert "--kgram need --fragments" in err


def _sarif_validator():
    from jsonschema import Draft4Validator

    schema = Path(__file__).parents[1] / "fragments" / "sarif" / "sarif-schema-2.1.0.json"
    return Draft4Validator(json.loads(schema.read_text()))


def test_match_writes_sarif_with_the_stored_file_as_the_related_location(corpus, capsys):
    root, db, _known = corpus
    status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                           "--format", "sarif", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    log = json.loads(out)
    assert not list(_sarif_validator().iter_errors(log))
    results = log["runs"][0]["results"]
    # one result per occurrence: the query's lines and the stored file's
    places = sorted(
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["endLine"],
        )
        for r in results
    )
    # URIs relative to the queries' folder (the corpus's file is under it here)
    assert places == [("known/lib.py", 11, 22), ("new.py", 3, 14)]
    # the same text, so the same line hash at both places
    hashes = {r["partialFingerprints"]["primaryLocationLineHash"] for r in results}
    assert len(hashes) == 1


def test_match_digests_are_those_of_the_tokens_at_both_places(corpus, capsys):
    from samecode.fragments.digest import token_digest
    from samecode.fragments.tokens import TokenSpans
    from samecode.text.shingling import Shingling

    root, db, _known = corpus
    status, out, _ = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                         "--format", "json", "--jobs", "1")  # fmt: skip
    assert status == 0
    report = json.loads(out)
    (region,) = report["regions"]
    # the block's 120 tokens, as a fresh tokenization of the block alone gives them
    expected = token_digest(TokenSpans.of(BLOCK, Shingling()).ids, 0, 120)
    assert region["a_digest"] == region["b_digest"] == expected
    (clone,) = report["classes"]
    assert [o["digest"] for o in clone["occurrences"]] == [expected, expected]


def test_match_with_a_baseline_reports_only_new_copies(corpus, capsys, tmp_path):
    root, db, _known = corpus
    args = ["match", str(root / "new.py"), "--db", str(db), "--fragments", "--jobs", "1"]
    status, out, _ = run(capsys, *args, "--format", "json")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(out)
    status, out, err = run(capsys, *args, "--format", "jsonl", "--baseline", str(baseline))
    assert status == 0, err
    assert not [line for line in out.splitlines() if json.loads(line)["type"] == "region"]
    assert "1 class all in the baseline left out, 1 old region" in err
    # a second copy of the block in the new file is new
    (root / "new.py").write_text(LICENCE + "import os\n" + BLOCK + "done = True\n" + BLOCK)
    status, out, err = run(capsys, *args, "--format", "jsonl", "--baseline", str(baseline))
    regions = [r for r in map(json.loads, out.splitlines()) if r["type"] == "region"]
    assert [(r["a_start"], r["a_end"]) for r in regions] == [(16, 27)]


def test_the_html_page_shows_a_stored_file_as_the_corpus_keeps_it(corpus, capsys):
    root, db, known = corpus
    stored = (known / "lib.py").read_text()
    with (known / "lib.py").open("a") as handle:
        handle.write("appended = 1\n")
    for step in ("changed", "gone"):
        if step == "gone":
            (known / "lib.py").unlink()
        status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db),
                               "--fragments", "--format", "html", "--jobs", "1")  # fmt: skip
        assert status == 0, err
        data = page_data(out)
        assert [why for _, why in data["files"]] == ["", ""]
        shown = data["lines"][0]
        assert shown
        assert all(stored.split("\n")[n - 1] == line for n, line in shown.items())
        assert "appended" not in "".join(shown.values())


def test_match_writes_an_html_page_even_when_a_stored_file_is_gone(old_corpus, capsys):
    root, db, known = old_corpus
    with Corpus.open(str(db)) as opened:
        assert opened.format_version == 3
    (known / "lib.py").unlink()  # its stored lines stay in the corpus
    status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                           "--format", "html", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    assert out.startswith("<!DOCTYPE html>")
    assert "new.py" in out
    assert "lib.py" in out
    data = page_data(out)
    assert [why for _, why in data["files"]] == ["cannot show the file: vanished", ""]
    assert "total_11" in "".join(data["lines"][1].values())  # the query's lines are shown


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--format", "html"], "--format html needs --fragments"),
        (["--baseline", "old.json"], "--baseline needs --fragments"),
    ],
)
def test_fragment_outputs_need_fragments(corpus, capsys, extra, message):
    root, db, _ = corpus
    status, _, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), *extra)
    assert status == 2
    assert message in err


def test_a_query_that_is_a_stored_file_with_other_text_is_another_text(corpus, capsys):
    # lib.py is stored with the block; on disk it now holds other.py's text. As a query
    # it matches other.py; as stored, new.py matches it: two texts of one name, each
    # with its own digests (the stored text is longer than the file on disk now).
    root, db, known = corpus
    (known / "lib.py").write_text((known / "other.py").read_text())
    queries = [str(root / "new.py"), str(known / "lib.py")]
    status, out, err = run(capsys, "match", *queries, "--db", str(db), "--fragments",
                           "--format", "json", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    report = json.loads(out)
    pairs = sorted((Path(r["a"]).name, Path(r["b"]).name) for r in report["regions"])
    assert pairs == [("lib.py", "other.py"), ("new.py", "lib.py")]
    assert all(r["a_digest"] == r["b_digest"] for r in report["regions"])
    classes = [[(Path(o["path"]).name, o["start"], o["end"]) for o in c["occurrences"]]
               for c in report["classes"]]  # fmt: skip
    assert sorted(classes) == [[("lib.py", 1, 30), ("other.py", 1, 30)],
                               [("lib.py", 11, 22), ("new.py", 3, 14)]]  # fmt: skip
    for clone in report["classes"]:
        assert len({o["digest"] for o in clone["occurrences"]}) == 1
    # every class number a region gives is its class
    for region in report["regions"]:
        names = {
            Path(o["path"]).name for o in report["classes"][region["class"] - 1]["occurrences"]
        }
        assert {Path(region["a"]).name, Path(region["b"]).name} == names


def test_the_html_page_does_not_show_a_stored_file_that_changed(old_corpus, capsys):
    root, db, known = old_corpus
    with (known / "lib.py").open("a") as handle:
        handle.write("appended = 1\n")  # the stored lines are no longer the file's
    status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                           "--format", "html", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    data = page_data(out)
    assert data["files"][0][1] == "cannot show the file: changed since it was stored"
    assert data["lines"][0] == {}
    assert "total_11" in "".join(data["lines"][1].values())  # the query's lines are shown


def test_the_query_s_digests_do_not_depend_on_its_folder(corpus, capsys):
    # an import line inside the copy: masked tokens within the region's gap in the query
    root, db, _ = corpus
    lines = BLOCK.splitlines(keepends=True)
    text = LICENCE + "".join(lines[:6]) + "import sys\n" + "".join(lines[6:])
    answers = []
    for folder in ("q", "another_query_folder"):
        (root / folder).mkdir()
        (root / folder / "new.py").write_text(text)
        status, out, err = run(capsys, "match", str(root / folder / "new.py"), "--db", str(db),
                               "--fragments", "--format", "jsonl", "--jobs", "1")  # fmt: skip
        assert status == 0, err
        records = [json.loads(line) for line in out.splitlines()]
        regions = [r for r in records if r["type"] == "region"]
        assert [(r["a_start"], r["a_end"]) for r in regions] == [(2, 14)]
        places = [o["digest"] for r in records if r["type"] == "class" for o in r["occurrences"]]
        answers.append(([(r["a_digest"], r["b_digest"]) for r in regions], sorted(places)))
    assert answers[0] == answers[1]


def test_the_stored_side_s_digests_do_not_depend_on_the_folder_indexed(tmp_path, capsys):
    # the same file, with an import line inside the copied block, indexed from two folders
    root = Path(os.path.realpath(tmp_path))
    lines = BLOCK.splitlines(keepends=True)
    stored = "x = 1\n" + "".join(lines[:6]) + "import sys\n" + "".join(lines[6:])
    (root / "new.py").write_text("done = 0\n" + BLOCK)
    answers = []
    for folder in ("k", "another_known_folder"):
        (root / folder).mkdir()
        (root / folder / "lib.py").write_text(stored)
        db = root / f"{folder}.db"
        status, _, err = run(capsys, "index", "add", str(root / folder), "--db", str(db),
                             "--fragments", "--no-gitignore", "--jobs", "1")  # fmt: skip
        assert status == 0, err
        status, out, err = run(capsys, "match", str(root / "new.py"), "--db", str(db),
                               "--fragments", "--format", "jsonl", "--jobs", "1")  # fmt: skip
        assert status == 0, err
        regions = [json.loads(line) for line in out.splitlines()][1:]
        regions = [r for r in regions if r["type"] == "region"]
        assert [(r["b_start"], r["b_end"]) for r in regions] == [(2, 14)]
        answers.append([(r["a_digest"], r["b_digest"]) for r in regions])
    assert answers[0] == answers[1]


def test_match_fragments_reports_the_pair_first_in_every_format(corpus, capsys):
    root, db, known = corpus
    new, lib = str(root / "new.py"), str(known / "lib.py")
    ask = ("match", new, "--db", str(db), "--fragments", "--jobs", "1")
    _, out, _ = run(capsys, *ask, "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in records[:3]] == ["fragments", "pair", "region"]
    pair = records[1]
    assert (pair["a"], pair["b"], pair["regions"], pair["tokens"]) == (new, lib, 1, 120)
    # the query's licence header, import and last line, the stored file's more, are out
    assert 0.5 < pair["b_share"] < pair["a_share"] < 1
    assert records[0]["summary"]["pairs"] == 1
    _, out, _ = run(capsys, *ask, "--format", "csv")
    header, row = out.splitlines()
    assert header == "a,b,similarity,a_share,b_share,tokens,regions"
    shares = f"{pair['similarity']!r},{pair['a_share']!r},{pair['b_share']!r}"
    assert row == f"{new},{lib},{shares},120,1"
    _, out, _ = run(capsys, *ask)
    lines = out.splitlines()
    assert lines[0].startswith("File pairs, the most alike first")
    assert lines[1].startswith(f"  {new} = {lib}: {pair['similarity']:.0%} similar")


def test_all_pairs_is_for_a_scan(corpus, capsys):
    root, db, _ = corpus
    status, _, err = run(capsys, "match", str(root / "new.py"), "--db", str(db), "--fragments",
                         "--all-pairs")  # fmt: skip
    assert status == 2  # a match compares each file with every stored file sharing text
    assert "unrecognized arguments: --all-pairs" in err


@pytest.mark.parametrize("format_name", list(FRAGMENT_FORMATS))
def test_every_format_of_a_match_with_catalogues_reports_what_was_ignored(
    tmp_path, capsys, format_name
):
    # catalogues stored and asked: each format says what it ignored, none stops on a reason
    known, asked = tmp_path / "known", tmp_path / "asked"
    for folder, language in ((known, "de"), (asked, "de_AT")):
        folder.mkdir()
        entries = "".join(f'\nmsgid "Message number {n} of the program"\n'
                          f'msgstr "Nachricht {n} " "wort_{n}_{m}"\n'
                          for n in range(4) for m in range(2))  # fmt: skip
        (folder / f"{language}.po").write_text('msgid ""\nmsgstr ""\n' + entries)
        (folder / "lib.py").write_text(LICENCE + "import os\n" + "x = 1\n" * 8 + BLOCK)
    db = tmp_path / "c.db"
    status, _, err = run(capsys, "index", "add", str(known), "--db", str(db), "--fragments",
                         "--no-gitignore", "--jobs", "1")  # fmt: skip
    assert status == 0, err
    ask = ("match", str(asked), "--db", str(db), "--fragments", "--no-gitignore", "-q")
    status, out, err = run(capsys, *ask, "--format", format_name)
    assert (status, err) == (0, "")
    _, jsonl, _ = run(capsys, *ask, "--format", "jsonl")
    found = ignored_counts(jsonl)
    assert set(found) == {"licence header", "import block", "message ids"}
    line = check_report(format_name, out, jsonl)
    assert line is None or f"{found['message ids']} runs of message ids" in line
