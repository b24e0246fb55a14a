"""``samecode scan --fragments --baseline FILE``: only what is new since a saved report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from samecode.cli import main

SRC = str(Path(__file__).resolve().parents[2] / "src")
BLOCK = "".join(f"total_{i} = price_{i} * count + tax_rate - discount\n" for i in range(12))
OTHER = "".join(f"name_{i} = normalise(raw_{i}).strip().lower()\n" for i in range(12))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("import os\n" + BLOCK + "run()\n")
    (root / "b.py").write_text("x = 1\ny = 2\n" + BLOCK)
    (root / "c.py").write_text(OTHER + "\nmore = 1\n")
    (root / "d.py").write_text("z = 3\n" + OTHER)
    return root


def scan(capsys, root: Path, *extra: str) -> tuple[int, str, str]:
    status = main(["scan", str(root), "--fragments", "--no-gitignore", "-q", *extra])
    out, err = capsys.readouterr()
    return status, out, err


def save_baseline(capsys, root: Path, tmp_path: Path, *extra: str) -> Path:
    status, out, _ = scan(capsys, root, "--format", "json", *extra)
    assert status == 0
    saved = tmp_path / "baseline.json"
    saved.write_text(out)
    return saved


def new_places(capsys, root: Path, saved: Path, *extra: str) -> tuple[dict, list]:
    status, out, _ = scan(capsys, root, "--format", "json", "--baseline", str(saved), *extra)
    assert status == 0
    report = json.loads(out)
    places = [
        (Path(o["path"]).name, o["start"], o["end"], clone["joins"])
        for clone in report["classes"]
        for o in clone["occurrences"]
        if o["new"]
    ]
    return report, places


def test_an_unchanged_tree_has_nothing_new(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    assert len(json.loads(saved.read_text())["classes"]) == 2
    report, places = new_places(capsys, tree, saved)
    assert places == []
    assert report["regions"] == []
    assert report["classes"] == []
    assert report["summary"]["baseline"]["old_classes"] == 2
    status, out, _ = scan(capsys, tree, "--baseline", str(saved))
    assert status == 0
    # then what was ignored as boilerplate (the tree's import lines)
    first, *rest = out.strip().splitlines()
    assert first == "Nothing new since the baseline (2 clone classes left out, all in it)."
    assert [line.split(":")[0] for line in rest] == ["Ignored"]


def test_shifted_lines_are_not_new(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    (tree / "a.py").write_text("import os\nimport sys\n\n\n" + BLOCK + "run()\n")
    (tree / "d.py").write_text("z = 3\n" + OTHER.replace("\n", "\n\n", 3))
    _, places = new_places(capsys, tree, saved)
    assert places == []


def test_a_new_copy_of_an_old_clone_is_exactly_what_is_reported(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    old_class = next(
        c["id"] for c in json.loads(saved.read_text())["classes"]
        if Path(c["occurrences"][0]["path"]).name == "a.py"
    )  # fmt: skip
    (tree / "e.py").write_text("first = 0\nsecond = 1\n" + BLOCK)
    report, places = new_places(capsys, tree, saved)
    assert places == [("e.py", 3, 14, [old_class])]
    (clone,) = report["classes"]
    assert [Path(o["path"]).name for o in clone["occurrences"]] == ["a.py", "b.py", "e.py"]
    assert {(Path(r["a"]).name, Path(r["b"]).name) for r in report["regions"]} == {
        ("a.py", "e.py"),
        ("b.py", "e.py"),
    }
    _, out, _ = scan(capsys, tree, "--baseline", str(saved))
    assert f"joins baseline class {old_class}" in out
    assert "+ " + str(tree / "e.py") + ":3-14" in out


def test_a_second_copy_in_the_same_file_is_counted_as_new(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    (tree / "b.py").write_text("x = 1\ny = 2\n" + BLOCK + "\nbetween = True\n\n" + BLOCK)
    _, places = new_places(capsys, tree, saved)
    assert len(places) == 1
    assert places[0][0] == "b.py"


def test_a_new_clone_is_new_whole(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    text = "".join(f"fresh_{i} = compute(alpha_{i}, beta) + gamma * delta\n" for i in range(12))
    (tree / "f.py").write_text(text)
    (tree / "g.py").write_text("pass\n" + text)
    _, places = new_places(capsys, tree, saved)
    assert places == [("f.py", 1, 12, []), ("g.py", 2, 13, [])]


def test_a_baseline_of_other_parameters_or_not_a_report_is_refused(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    status, _, err = scan(capsys, tree, "--baseline", str(saved), "--kgram", "10")
    assert status != 0
    assert "was made with other fragment parameters: k 12 (this scan: 10)" in err
    status, _, err = scan(capsys, tree, "--baseline", str(saved), "--normalize")
    assert "normalize False (this scan: True)" in err
    lines = tmp_path / "lines.jsonl"
    status, out, _ = scan(capsys, tree, "--format", "jsonl")
    lines.write_text(out)
    status, _, err = scan(capsys, tree, "--baseline", str(lines))
    assert status != 0
    assert "is not a samecode fragments JSON report: not JSON" in err
    files = tmp_path / "files.json"
    assert main(["scan", str(tree), "--format", "json", "-q", "-o", str(files)]) == 0
    capsys.readouterr()
    status, _, err = scan(capsys, tree, "--baseline", str(files))
    assert (
        "is not a samecode fragments JSON report: it has no 'regions' (a JSON lines or "
        "file-level report?" in err
    )
    status, _, err = scan(capsys, tree, "--baseline", str(tmp_path / "missing.json"))
    assert status != 0
    assert "cannot read baseline" in err


def test_an_old_place_a_new_copy_matches_over_more_lines_stays_old(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    (tree / "e.py").write_text((tree / "b.py").read_text())  # b.py whole: more than BLOCK
    report, places = new_places(capsys, tree, saved)
    assert [p[:3] for p in places] == [("e.py", 1, 14)]
    (clone,) = report["classes"]
    assert [(Path(o["path"]).name, o["start"], o["new"]) for o in clone["occurrences"]] == [
        ("a.py", 2, False),
        ("b.py", 1, False),  # grown from line 3, matched whole by e.py
        ("e.py", 1, True),
    ]


def refusal(capsys, root: Path, saved: Path, *extra: str) -> str:
    """The one line a refused baseline gives (status 2, whatever matched)."""
    status, out, err = scan(capsys, root, "--baseline", str(saved), "--fail-on-match", *extra)
    assert (status, out) == (2, ""), err
    assert err.startswith("samecode: baseline ")
    assert err.count("\n") == 1
    return err


def test_a_baseline_made_with_options_that_move_places_is_refused(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    header = tmp_path / "header.txt"
    header.write_text("generated by a tool: do not edit this file by hand, ever\n")
    for extra, named in (
        (["--gap", "0"], "gap 20 (this scan: 0)"),
        (["--keep-imports"], "keep_imports False (this scan: True)"),
        (["--keep-licenses"], "keep_licenses False (this scan: True)"),
        (["--keep-msgid-copies"], "keep_msgid_copies False (this scan: True)"),
        (["--min-region", "30"], "min_tokens 40 (this scan: 30)"),
        (["--boilerplate-share", "0.5"], "boilerplate_share 0.1 (this scan: 0.5)"),
        (["--boilerplate", str(header)], "boilerplate_digest None (this scan: '"),
    ):
        err = refusal(capsys, tree, saved, *extra)
        assert "was made with other fragment parameters: " + named in err
    # the same boilerplate files (by their text, wherever they are) are accepted
    (tmp_path / "other").mkdir()
    with_header = save_baseline(capsys, tree, tmp_path / "other", "--boilerplate", str(header))
    (tmp_path / "copy.txt").write_text(header.read_text())
    _, places = new_places(capsys, tree, with_header, "--boilerplate", str(tmp_path / "copy.txt"))
    assert places == []
    header.write_text("other text, which is not what the baseline was made with\n")
    err = refusal(capsys, tree, with_header, "--boilerplate", str(header))
    assert "boilerplate_digest '" in err
    # which files are compared may differ: it does not move a file's places
    _, places = new_places(capsys, tree, saved, "--max-size", "1000000", "--min-tokens", "5")
    assert places == []


def test_a_baseline_of_match_is_refused_by_scan_and_the_reverse(tree, tmp_path, capsys):
    db = tmp_path / "c.db"
    assert main(["index", "add", str(tree / "a.py"), str(tree / "c.py"), "--db", str(db),
                 "--fragments", "--no-gitignore", "-q", "--jobs", "1"]) == 0  # fmt: skip
    matched = tmp_path / "matched.json"
    assert main(["match", str(tree), "--db", str(db), "--fragments", "--format", "json",
                 "-q", "-o", str(matched), "--jobs", "1"]) == 0  # fmt: skip
    err = refusal(capsys, tree, matched)
    assert "is a report of match --fragments, not of scan --fragments" in err
    scanned = save_baseline(capsys, tree, tmp_path)
    status = main(["match", str(tree), "--db", str(db), "--fragments", "-q", "--jobs", "1",
                   "--baseline", str(scanned)])  # fmt: skip
    _, err = capsys.readouterr()
    assert status == 2
    assert "is a report of scan --fragments, not of match --fragments" in err
    status = main(["match", str(tree), "--db", str(db), "--fragments", "-q", "--jobs", "1",
                   "--format", "json", "--baseline", str(matched)])  # fmt: skip
    out, _ = capsys.readouterr()
    assert status == 0
    assert json.loads(out)["classes"] == []


@pytest.mark.parametrize(
    "change",
    [
        {"regions": None},
        {"regions": 3},
        {"classes": [{"id": [1], "occurrences": []}]},
        {"classes": [{"id": {"n": 1}, "occurrences": []}]},
    ],
)
def test_a_malformed_baseline_is_refused_in_one_line(tree, tmp_path, capsys, change):
    saved = save_baseline(capsys, tree, tmp_path)
    saved.write_text(json.dumps({**json.loads(saved.read_text()), **change}))
    err = refusal(capsys, tree, saved)
    assert "is not a samecode fragments JSON report" in err


def test_a_baseline_nested_too_deep_is_refused_by_the_command(tree, tmp_path):
    saved = tmp_path / "deep.json"
    saved.write_text("[" * 100_000 + "]" * 100_000)
    done = subprocess.run(
        [sys.executable, "-m", "samecode", "scan", str(tree), "--fragments", "--no-gitignore",
         "--baseline", str(saved), "--fail-on-match", "-q"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, check=False,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f"samecode: baseline {saved} is not a samecode fragments JSON report: it is nested "
        "too deep\n"
    )


def test_the_page_shows_a_baseline_name_that_is_not_utf8_escaped(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    odd = os.fsdecode(bytes(tmp_path) + b"/old\xff.json")
    os.rename(saved, odd)
    page = tmp_path / "page.html"
    status, _, err = scan(capsys, tree, "--baseline", odd, "--format", "html", "-o", str(page))
    assert status == 0, err
    shown = page.read_bytes()
    assert b"\xff" not in shown
    assert b"old\\xff.json" in shown


def test_a_baseline_saved_before_pair_records_still_loads(tree, tmp_path, capsys):
    saved = save_baseline(capsys, tree, tmp_path)
    report = json.loads(saved.read_text())
    assert report["pairs"]  # the report has them now; a report saved before had not
    del report["pairs"], report["summary"]["pairs"]
    saved.write_text(json.dumps(report))
    status, out, err = scan(capsys, tree, "--format", "json", "--baseline", str(saved))
    assert status == 0, err
    assert json.loads(out)["pairs"] == []  # nothing new: no region, so no pair
