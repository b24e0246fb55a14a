"""``samecode scan --fragments`` and ``samecode compare A B --fragments``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportlines import check_report, ignored_counts
from samecode.cli import main
from samecode.fragments.ignored import REASONS
from samecode.reports.fragments import FRAGMENT_COMPARISON_FORMATS, FRAGMENT_FORMATS
from samecode.reports.html import page_data

LINES = [
    "def load_rows(table, limit):",
    "    query = build_query(table)",
    "    if limit > 0:",
    "        query = query.limit(limit)",
    "    rows = []",
    "    for record in cursor.execute(query):",
    "        rows.append(convert(record, strict=True))",
    "    log.debug('loaded %d rows', len(rows))",
    "    return rows",
    "",
    "class Loader(Base):",
    "    name = 'loader'",
]
BLOCK = "".join(line + "\n" for line in LINES)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("import sys\n" + BLOCK + "main()\n")
    (tmp_path / "b.py").write_text(
        "x = 1\ny = 2\nz = 3\n" + BLOCK.replace("rows", "items").replace("query", "q")
    )
    (tmp_path / "c.txt").write_text("nothing in common with the others, only prose here\n")
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main([*args])
    out, err = capsys.readouterr()
    return status, out, err


def test_scan_writes_a_region_and_a_class_per_line(tree, capsys):
    status, out, _ = run(capsys, "scan", str(tree), "--fragments", "--format", "jsonl", "-q",
                         "--tokens", "code", "--normalize")  # fmt: skip
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    head, pair, region, clone, ignored = lines
    assert pair["type"] == "pair"
    assert (Path(pair["a"]).name, Path(pair["b"]).name, pair["regions"]) == ("a.py", "b.py", 1)
    assert ignored == {"type": "ignored", "path": str(tree / "a.py"), "reason": "import block",
                       "start": 1, "end": 1, "tokens": 2}  # fmt: skip
    assert head["type"] == "fragments"
    assert head["parameters"]["normalize"] is True
    assert head["summary"]["regions"] == 1
    assert region["type"] == "region"
    assert {k: region[k] for k in ("a_start", "a_end", "b_start", "b_end")} == {
        "a_start": 2,
        "a_end": 13,
        "b_start": 4,
        "b_end": 15,
    }
    assert (Path(region["a"]).name, Path(region["b"]).name) == ("a.py", "b.py")
    assert region["tokens"] >= 60
    assert region["class"] == 1
    assert clone["type"] == "class"
    assert [(Path(o["path"]).name, o["start"], o["end"]) for o in clone["occurrences"]] == [
        ("a.py", 2, 13),
        ("b.py", 4, 15),
    ]


def test_without_normalize_the_renamed_names_break_the_block(tree, capsys):
    _, out, _ = run(capsys, "scan", str(tree), "--fragments", "--format", "json", "-q")
    report = json.loads(out)
    assert report["regions"] == []  # renamed names break the block into short runs
    _, out, _ = run(capsys, "scan", str(tree), "--fragments", "-q", "--kgram", "3",
                    "--window", "2", "--min-region", "15", "--gap", "12")  # fmt: skip
    assert f"{tree / 'a.py'}:2-" in out
    assert f"{tree / 'b.py'}:4-" in out


def test_the_summary_counts_what_was_ignored(tree, capsys):
    status, _, err = run(capsys, "scan", str(tree), "--fragments", "--normalize",
                         "--boilerplate-share", "0.5")  # fmt: skip
    assert status == 0
    assert "compared 3 files, none skipped; 1 region in 1 class; ignored 0 boilerplate" in err
    assert "(in more than 10 files) and 0 repetitive ones" in err


def test_fragments_refuse_the_formats_and_options_they_do_not_have(tree, capsys):
    status, _, err = run(capsys, "scan", str(tree), "--format", "html")
    assert status == 2
    assert "--format html needs --fragments" in err
    status, _, err = run(capsys, "scan", str(tree), "--baseline", "old.json")
    assert status == 2
    assert "--baseline needs --fragments" in err
    status, _, err = run(capsys, "scan", str(tree), "--fragments", "--boilerplate-share", "2")
    assert status == 2
    assert "share" in err
    status, _, err = run(capsys, "scan", str(tree), "--fragments", "--kgram", "50")
    assert status == 2
    assert "--min-region must be at least --kgram (50): no match is shorter; got 40" in err


def test_compare_shows_the_regions_with_their_text(tree, capsys):
    a, b = str(tree / "a.py"), str(tree / "b.py")
    status, out, _ = run(capsys, "compare", a, b, "--fragments", "--normalize")
    assert status == 0
    pair, head, *shown = out.splitlines()
    assert pair.startswith(f"{a} = {b}: ")
    assert head.startswith(f"region 1: {a}:2-13 = {b}:4-15")
    assert shown[0] == "   2 | def load_rows(table, limit):"
    assert f"  in {b}:" in shown
    status, out, _ = run(capsys, "compare", a, b, "--fragments", "--normalize", "--format",
                         "json")  # fmt: skip
    found = json.loads(out)
    assert [(r["a_start"], r["a_end"], r["b_start"], r["b_end"]) for r in found["regions"]] == [
        (2, 13, 4, 15)
    ]
    status, out, _ = run(capsys, "compare", a, str(tree / "c.txt"), "--fragments")
    assert "share no region" in out


def test_fail_on_match_counts_regions(tree, capsys):
    found, _, _ = run(capsys, "scan", str(tree), "--fragments", "--normalize", "-q",
                      "--fail-on-match")  # fmt: skip
    assert found == 1
    alone, _, _ = run(capsys, "scan", str(tree / "c.txt"), "--fragments", "-q", "--fail-on-match")
    assert alone == 0


def test_scan_writes_sarif_and_html(tree, capsys, tmp_path):
    status, out, _ = run(capsys, "scan", str(tree), "--fragments", "--format", "sarif", "-q",
                         "--tokens", "code", "--normalize")  # fmt: skip
    assert status == 0
    results = json.loads(out)["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results] == [
        "a.py",
        "b.py",
    ]
    page = tmp_path / "report.html"
    status, _, _ = run(capsys, "scan", str(tree), "--fragments", "--format", "html", "-q",
                       "--tokens", "code", "--normalize", "-o", str(page))  # fmt: skip
    assert status == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert page_data(page.read_text())["regions"]["a"] == [0]  # one region, a.py's


def test_scratch_files_that_cannot_be_written_say_where_they_go(tree):
    # a file size limit stands in for a full disk: the scratch file cannot be written
    import subprocess
    import sys

    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))\n"
        "from samecode.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "scan", str(tree), "--fragments", "-q", "-j", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "File too large (writing the scan's scratch files" in done.stderr
    assert "TMPDIR names another" in done.stderr
    assert ".scratch" in done.stderr  # the file it was writing


HIDDEN = (
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # bidirectional
    "\u200b\u200e\u200f\u2060\ufeff\u061c\u180e"  # zero-width and other format characters
)


def hostile(tree: Path) -> tuple[Path, Path]:
    """A file whose name reverses what follows it, and code with bidirectional,
    zero-width and control characters and tabs, copied into a plain file."""
    code = "".join(f"def handler_{i}(request):\n\treturn respond(request, {i})  "
                   f"# \u202eevil\u2066 \u200bx\ufeff\x1b[31m\n" for i in range(12))  # fmt: skip
    evil = tree / "\u202eyp.txt"
    evil.write_text(code)
    (tree / "plain.py").write_text(code)
    return evil, tree / "plain.py"


def shows_nothing_hidden(text: str) -> None:
    assert not set(text) & set(HIDDEN + "\x1b\t"), [c for c in text if c in HIDDEN + "\x1b\t"]


def test_compare_escapes_names_and_code_and_lays_out_tabs(tmp_path, capsys):
    evil, plain = hostile(tmp_path)
    status, out, _ = run(capsys, "compare", str(evil), str(plain), "--fragments")
    assert status == 0
    shows_nothing_hidden(out)
    pair, head, first, second, *_ = out.splitlines()
    assert pair.startswith(f"{tmp_path}/\\u202eyp.txt = {plain}: 100% similar")
    assert head.startswith(f"region 1: {tmp_path}/\\u202eyp.txt:1-24 = {plain}:1-24")
    assert first == "   1 | def handler_0(request):"
    assert second == ("   2 |         return respond(request, 0)  "
                      "# \\u202eevil\\u2066 \\u200bx\\ufeff\\x1b[31m")  # fmt: skip


def test_the_fragments_table_escapes_names_and_json_keeps_them(tmp_path, capsys):
    evil, _ = hostile(tmp_path)
    status, out, _ = run(capsys, "scan", str(tmp_path), "--fragments", "-q")
    assert status == 0
    shows_nothing_hidden(out)
    assert f"{tmp_path}/\\u202eyp.txt:1-24" in out
    status, out, _ = run(capsys, "scan", str(tmp_path), "--fragments", "-q", "--format", "json")
    assert str(evil) in {r["a"] for r in json.loads(out)["regions"]} | {
        r["b"] for r in json.loads(out)["regions"]
    }


def test_every_report_of_a_scan_ranks_the_file_pairs_first(tree, capsys, tmp_path):
    (tree / "d.py").write_text(BLOCK)  # a.py's block alone: d.py is covered whole
    a, b, d = (str(tree / name) for name in ("a.py", "b.py", "d.py"))
    ask = ("scan", str(tree), "--fragments", "-q", "--normalize", "--all-pairs")
    _, out, _ = run(capsys, *ask, "--format", "json")
    report = json.loads(out)
    assert list(report)[3:5] == ["pairs", "regions"]
    pairs = report["pairs"]
    # the regions' order is (a, b), (a, d), (b, d); the pairs', by similarity
    assert [(p["a"], p["b"]) for p in pairs] == [(a, d), (b, d), (a, b)]
    assert pairs[0]["b_share"] == 1.0
    assert pairs[0]["similarity"] > pairs[1]["similarity"]
    assert report["summary"]["pairs"] == 3
    _, out, _ = run(capsys, *ask)
    lines = out.splitlines()
    assert lines[0].startswith("File pairs, the most alike first")
    assert [line.split(":")[0].strip() for line in lines[1:4]] == [f"{a} = {d}", f"{b} = {d}",
                                                                   f"{a} = {b}"]  # fmt: skip
    assert lines[4] == "Clone classes (the same text in several places)"
    _, out, _ = run(capsys, *ask, "--format", "csv")
    assert [row.split(",")[:2] for row in out.splitlines()] == [
        ["a", "b"], [a, d], [b, d], [a, b]
    ]  # fmt: skip
    _, page, _ = run(capsys, *ask, "--format", "html")
    assert page.index('<section id="pairs">') < page.index('<section id="classes">')
    assert len(page_data(page)["pairs"]["a"]) == 3


def test_compare_states_the_pair_of_the_two_files(tree, capsys):
    a, b = str(tree / "a.py"), str(tree / "b.py")
    _, out, _ = run(capsys, "compare", a, b, "--fragments", "--normalize", "--format", "json")
    found = json.loads(out)
    covered = found["regions"][0]["tokens"]  # one region, no gap: its tokens are covered
    assert found["pair"] == {
        "similarity": 2 * covered / (found["a_tokens"] + found["b_tokens"]),
        "a_share": covered / found["a_tokens"],
        "b_share": covered / found["b_tokens"],
        "tokens": covered,
        "regions": 1,
    }
    _, out, _ = run(capsys, "compare", a, str(tree / "c.txt"), "--fragments", "--format", "json")
    assert json.loads(out)["pair"] is None


def test_compare_lays_tabs_out_at_the_columns_of_the_escaped_text(tmp_path, capsys):
    """An escape is as wide as it is shown: the tab after it stops at the next multiple of
    8 of the line as shown, so the columns after it line up with the other lines'."""
    code = "".join(f"value_{i} = compute(source_{i}, {i})\t# plain\n"
                   f"\u202e_{i} = 0\t# after a bidi override\n"
                   f"\x1b{i:03d}\t# after an escape\n"
                   f"end_{i} = {i}\x0c  \r\n" for i in range(8))  # fmt: skip
    (tmp_path / "a.py").write_text(code)
    (tmp_path / "b.py").write_text(code)
    status, out, _ = run(capsys, "compare", str(tmp_path / "a.py"), str(tmp_path / "b.py"),
                         "--fragments", "--min-region", "20")  # fmt: skip
    assert status == 0
    shown = [line.split(" | ", 1)[1] for line in out.splitlines() if " | " in line][:4]
    assert shown == [
        "value_0 = compute(source_0, 0)  # plain",
        "\\u202e_0 = 0    # after a bidi override",
        "\\x1b000 # after an escape",
        "end_0 = 0\\x0c",  # a form feed is shown; trailing blanks and CRLF's CR are not
    ]
    assert all(line.index("#") % 8 == 0 for line in shown[:3])


@pytest.mark.parametrize("flag", ["--keep-msgids", "--keep-msgid-copies"])
def test_keep_msgids_and_their_copies_match_what_catalogues_share(tmp_path, capsys, flag):
    # the translations keep each message's markup, in their own words around it
    markup = '<a href=\\"https://docs.example.com/en/%(version)s/ref/{n}/#top\\" class=\\"x\\">'
    for language, word in (("de", "Bitte"), ("fr", "Entrez")):
        entries = [
            f'msgid "{markup.format(n=n) * 3} for field {n}"\n'
            f'msgstr "{word} {n} {markup.format(n=n) * 3} {word}"\n'
            for n in range(20)
        ]
        (tmp_path / f"{language}.po").write_text("\n".join(entries))
    args = ("scan", str(tmp_path), "--fragments", "--format", "jsonl", "--no-gitignore")
    name = flag[2:].replace("-", "_")
    status, out, err = run(capsys, *args)
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["parameters"][name] is False
    assert not [r for r in records if r["type"] == "region"]
    assert {r["reason"] for r in records if r["type"] == "ignored"} == {"message ids"}
    status, out, err = run(capsys, *args, flag)
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["parameters"][name] is True
    assert [r for r in records if r["type"] == "region" and r["a"] != r["b"]]


def test_the_table_of_a_tree_with_catalogues_says_what_was_ignored(tmp_path, capsys):
    # every reason has its names: the runs of a catalogue's message ids once crashed it
    entries = "".join(f'\nmsgid "Message number {n}"\nmsgstr "Nachricht {n}"\n' for n in range(3))
    (tmp_path / "de.po").write_text('msgid ""\nmsgstr "Content-Type: text/plain"\n' + entries)
    (tmp_path / "a.py").write_text("import os\nimport sys\n" + BLOCK)
    status, out, _ = run(capsys, "scan", str(tmp_path), "--fragments")
    assert status == 0
    (line,) = [line for line in out.splitlines() if line.startswith("Ignored:")]
    assert "4 runs of message ids (5 lines, " in line  # the header entry, then each id
    assert "1 import block (2 lines, " in line


HEAD = "# Copyright 2024 Example\n# SPDX-License-Identifier: MIT\nimport os\nimport sys\n"
TEMPLATE = " ".join(f"template_word_{n}" for n in range(30))


@pytest.fixture
def every_reason(tmp_path: Path) -> tuple[Path, Path]:
    """A tree whose files have ranges of every reason to ignore (a licence header, import
    blocks, two catalogues, a boilerplate file's text), and the boilerplate file."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(HEAD + BLOCK + "main()\n")
    (tree / "b.py").write_text(HEAD + "x = 1\n" + BLOCK)
    for language, word in (("de", "Nachricht"), ("fr", "Message")):
        entries = "".join(f'\nmsgid "Message number {n} of the program"\n'
                          f'msgstr "{word} {n} {word.lower()}_{language}_{n}"\n'
                          for n in range(4))  # fmt: skip
        (tree / f"{language}.po").write_text(
            'msgid ""\nmsgstr "Content-Type: text/plain"\n' + entries
        )
    (tree / "notes.txt").write_text("Our own notes come first.\n" + TEMPLATE + "\n")
    template = tmp_path / "template.txt"
    template.write_text(TEMPLATE + "\n")
    return tree, template


@pytest.mark.parametrize("format_name", list(FRAGMENT_FORMATS))
def test_every_format_of_a_scan_reports_every_reason_ignored(every_reason, capsys, format_name):
    # each reason once in every format: a reason without a name once stopped the table
    tree, template = every_reason
    status, out, err = run(capsys, "scan", str(tree), "--fragments", "--format", format_name,
                           "--boilerplate", str(template), "-q")  # fmt: skip
    assert (status, err) == (0, "")
    _, jsonl, _ = run(capsys, "scan", str(tree), "--fragments", "--format", "jsonl",
                      "--boilerplate", str(template), "-q")  # fmt: skip
    assert set(ignored_counts(jsonl)) == set(REASONS)
    line = check_report(format_name, out, jsonl)
    if line is not None:  # a part a reason, each with its count and its name
        parts = line.removeprefix("Ignored: ").split("), ")
        assert len(parts) == len(REASONS)
        assert "runs of message ids" in line


@pytest.mark.parametrize("format_name", list(FRAGMENT_COMPARISON_FORMATS))
def test_every_format_of_a_comparison_of_catalogues_finds_no_region_in_their_ids(
    every_reason, capsys, format_name
):
    tree, _ = every_reason
    status, out, err = run(capsys, "compare", str(tree / "de.po"), str(tree / "fr.po"),
                           "--fragments", "--format", format_name)  # fmt: skip
    assert (status, err) == (0, "")
    if format_name == "json":
        assert json.loads(out)["regions"] == []
    else:
        assert out.endswith("share no region of the minimum length\n")
