"""-o FILE as people expect it: regular files replaced atomically with their mode kept,
links written through, devices and pipes written to, errors naming the user's path; and
the reports' escaping, grammar and columns."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "samecode", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        cwd=cwd,
        env=env,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "main.py").write_text(CODE)
    (root / "copy.py").write_text(CODE.replace("handler_7(", "renamed_7("))
    return root


def scan(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run("scan", str(tree), "-q", "-j", "1", "--no-gitignore", *args)


def test_a_regular_file_keeps_its_mode(tree, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o644)
    done = scan(tree, "--format", "json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert json.loads(out.read_text())["summary"]["pairs"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".samecode")] == []


def test_a_link_is_written_through(tree, tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    done = scan(tree, "--format", "json", "-o", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert json.loads(target.read_text())["summary"]["pairs"] == 1


def test_a_fifo_is_written_to_not_replaced(tree, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    done = scan(tree, "--format", "csv", "-o", str(fifo))
    reader.join(timeout=30)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[0].startswith("a,b,")


def test_a_device_is_written_to_not_replaced(tree):
    before = os.stat(os.devnull)
    done = scan(tree, "-o", os.devnull)
    assert done.returncode == 0, done.stderr
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


@pytest.mark.parametrize(
    ("name", "said"),
    [("folder", "folder: is a folder"), ("", "--output must name a file; got ''")],
)
def test_output_errors_name_the_users_path(tree, tmp_path, name, said):
    (tmp_path / "folder").mkdir()
    done = run("scan", str(tree), "-q", "-o", name, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == f"samecode: {said}"
    assert ".tmp" not in done.stderr


def test_the_table_escapes_control_characters(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "evil\x1b[31m.py").write_text(CODE)
    (root / "tab\there.py").write_text(CODE.replace("handler_7(", "renamed_7("))
    done = scan(root, "--format", "table")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "\t" not in done.stdout
    assert "evil\\x1b[31m.py" in done.stdout
    assert "tab\\x09here.py" in done.stdout


def test_sarif_keeps_a_posix_backslash_in_a_name(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "back\\slash.py").write_text(CODE)
    (root / "plain.py").write_text(CODE.replace("handler_7(", "renamed_7("))
    done = scan(root, "--format", "sarif")
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    uris = [result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]]
    uris.append(result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    assert any(uri.endswith("/back%5Cslash.py") for uri in uris), uris


def test_the_summary_speaks_english(tree):
    done = run("scan", str(tree), "-j", "1", "--no-gitignore", "-o", os.devnull)
    assert done.returncode == 0, done.stderr
    assert "; 1 pair in 1 class," in done.stderr


def test_csv_has_the_class_of_each_pair(tree):
    (tree / "third.py").write_text(CODE.replace("handler_9(", "other_9("))
    done = scan(tree, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(rows) == 3
    assert {row["class"] for row in rows} == {"1"}
    assert {row["corpus"] for row in rows} == {""}


def test_the_table_is_linear_in_pairs(tmp_path):
    from samecode.reports.pairs import Report, to_table
    from samecode.scan.model import CloneClass, Pair

    pytest.importorskip("rich")
    import time

    from rich.console import Console

    def draw(classes: int) -> float:
        pairs = [Pair(f"a{i:05}", f"b{i:05}", 9, 10, 10) for i in range(classes)]
        clones = [CloneClass((p.a, p.b), p.a, 0.8, 0.8, 0.8) for p in pairs]
        report = Report({}, pairs, clones, [], 2 * classes)
        started = time.perf_counter()
        table = to_table(report)
        Console(file=io.StringIO(), width=120).print(table)
        return time.perf_counter() - started

    small, large = draw(500), draw(4000)
    assert large < 20 * small + 1, (small, large)  # 8x the work: linear, not 64x


def test_a_report_in_pieces_is_written_whole_or_not_at_all(tmp_path, capsys):
    from samecode.cli.output import write

    pieces = [f"line {n} " + "x" * (n % 700) + "\n" for n in range(3000)]
    out = tmp_path / "out.txt"
    write(iter(pieces), str(out))
    assert out.read_text() == "".join(pieces) + "\n"
    write(iter(pieces), None)
    assert capsys.readouterr().out == "".join(pieces) + "\n"

    def broken():
        yield from pieces[:2000]
        raise RuntimeError("the report failed half-way")

    out.write_text("kept")
    with pytest.raises(RuntimeError, match="half-way"):
        write(broken(), str(out))
    assert out.read_text() == "kept"  # the file it would replace is left as it was
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left


HIDDEN = (
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # bidirectional
    "\u200b\u200e\u200f\u2060\ufeff\u061c\u180e\u2028"  # other format characters, a line separator
)


def test_the_table_and_sarif_messages_escape_bidirectional_and_invisible_characters(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "\u202eyp.txt").write_text(CODE)
    (root / "zero\u200bwidth\u2066\ufeff\u2028.py").write_text(
        CODE.replace("handler_7(", "renamed_7(")
    )
    done = scan(root, "--format", "table")
    assert done.returncode == 0, done.stderr
    assert not set(done.stdout) & set(HIDDEN)
    assert "\\u202eyp.txt" in done.stdout
    assert "zero\\u200bwidth\\u2066\\ufeff\\u2028.py" in done.stdout
    done = scan(root, "--format", "sarif")
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    message = result["message"]["text"]
    assert not set(message) & set(HIDDEN)
    assert "\\u202eyp.txt" in message
    done = scan(root, "--format", "json")
    (pair,) = json.loads(done.stdout)["pairs"]
    assert {pair["a"], pair["b"]} == {str(p) for p in root.iterdir()}  # data: the names as they are


def test_a_report_is_written_with_collection_paused(tmp_path):
    # its records are made and let go beside the whole result, which the collector
    # would walk again at each of its runs
    import gc

    from samecode.cli.output import emit
    from samecode.reports.format import TextFormat

    said: list[bool] = []

    def pieces(number: int) -> list[str]:
        said.append(gc.isenabled())
        return [f"{number}\n"]

    lines = TextFormat("lines", pieces)
    emit(lines, 7, str(tmp_path / "out.txt"))
    assert said == [False]
    assert gc.isenabled()
    assert (tmp_path / "out.txt").read_text().split() == ["7"]
