"""Every format of every report registry through the command: ``--format NAME`` writes
what the registry's format writes, to stdout and to ``--output`` alike; the command's
``--format`` takes exactly the registries' names."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from samecode.cli import main
from samecode.cli.parser import build_parser
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import compare_fragments
from samecode.reports.comparison import COMPARISON_FORMATS
from samecode.reports.fragments import FRAGMENT_COMPARISON_FORMATS, FRAGMENT_FORMATS
from samecode.reports.html import page_data
from samecode.reports.pairs import PAIR_FORMATS
from samecode.scan.comparison import compare_files
from samecode.text.shingling import Shingling

BLOCK = "".join(f"total_{i} = price_{i} * count + tax_{i} - rebate\n" for i in range(12))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "a.py").write_text("import os\n" + BLOCK)
    (root / "b.py").write_text(BLOCK + "print(total_1)\n")
    (root / "c.txt").write_text("prose with nothing in common\n")
    return root


def _both(capsys, tmp_path: Path, *args: str) -> str:
    """What the command writes to stdout, checked to be what it writes to ``--output``."""
    assert main([*args, "-q"]) == 0
    out = capsys.readouterr().out
    written = tmp_path / "written"
    assert main([*args, "-q", "--output", str(written)]) == 0
    assert written.read_text() == out != ""
    return out


@pytest.mark.parametrize("name", list(PAIR_FORMATS))
def test_scan_and_match_write_every_pair_format(tree, tmp_path, capsys, name):
    if name == "table":
        pytest.importorskip("rich")
    _both(capsys, tmp_path, "scan", str(tree), "--format", name)
    db = str(tmp_path / "c.db")
    assert main(["index", "add", str(tree / "a.py"), "--db", db, "-q"]) == 0
    _both(capsys, tmp_path, "match", str(tree / "b.py"), "--db", db, "--format", name)


@pytest.mark.parametrize("name", list(FRAGMENT_FORMATS))
def test_scan_and_match_fragments_write_every_fragment_format(tree, tmp_path, capsys, name):
    if name == "html":
        pytest.importorskip("jinja2")
    flags = ["--fragments", "--format", name]
    scanned = _both(capsys, tmp_path, "scan", str(tree), *flags)
    db = str(tmp_path / "c.db")
    assert main(["index", "add", str(tree / "a.py"), "--db", db, "--fragments", "-q"]) == 0
    matched = _both(capsys, tmp_path, "match", str(tree / "b.py"), "--db", db, *flags)
    assert "a.py" in scanned
    assert "a.py" in matched


def test_the_page_of_a_match_shows_a_stored_file_as_stored(tree, tmp_path, capsys):
    pytest.importorskip("jinja2")
    db = str(tmp_path / "c.db")
    assert main(["index", "add", str(tree / "a.py"), "--db", db, "--fragments", "-q"]) == 0
    with (tree / "a.py").open("a") as file:
        file.write("more = 1\n")
    page = _both(capsys, tmp_path, "match", str(tree / "b.py"), "--db", db, "--fragments",
                 "--format", "html")  # fmt: skip
    data = page_data(page)
    assert "changed since it was stored" not in page
    stored = [n for n, (path, _) in enumerate(data["files"]) if path.endswith("a.py")]
    assert data["lines"][stored[0]]
    assert "more = 1" not in "".join(data["lines"][stored[0]].values())


@pytest.mark.parametrize("name", list(COMPARISON_FORMATS))
def test_compare_writes_every_comparison_format(tree, capsys, name):
    a, b = str(tree / "a.py"), str(tree / "b.py")
    assert main(["compare", a, b, "--format", name]) == 0
    expected = COMPARISON_FORMATS[name].render(compare_files(a, b, Shingling()))
    assert capsys.readouterr().out == expected + "\n"


@pytest.mark.parametrize("name", list(FRAGMENT_COMPARISON_FORMATS))
def test_compare_fragments_writes_every_fragment_comparison_format(tree, capsys, name):
    a, b = str(tree / "a.py"), str(tree / "b.py")
    assert main(["compare", a, b, "--fragments", "--format", name]) == 0
    found = compare_fragments(a, b, FragmentOptions())
    assert capsys.readouterr().out == FRAGMENT_COMPARISON_FORMATS[name].render(found) + "\n"


def _format_choices(command: str) -> list[str]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices[command]
    return list(next(a for a in sub._actions if "--format" in a.option_strings).choices)


def test_the_format_option_takes_the_registries_names():
    both = [*PAIR_FORMATS, *(n for n in FRAGMENT_FORMATS if n not in PAIR_FORMATS)]
    assert _format_choices("scan") == _format_choices("match") == both
    assert _format_choices("compare") == [*COMPARISON_FORMATS] == [*FRAGMENT_COMPARISON_FORMATS]


def test_a_configured_format_no_kind_has_is_one_line_and_status_2(tree, tmp_path, capsys,
                                                                   monkeypatch):  # fmt: skip
    (tmp_path / "pyproject.toml").write_text('[tool.samecode]\nformat = "xml"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["scan", str(tree), "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "samecode: pairs reports have no format 'xml'; the formats are "
        "table, json, jsonl, csv, sarif\n"
    )
