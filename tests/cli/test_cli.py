"""The samecode command line: formats, exit statuses, configuration, the corpus commands,
and hostile conditions (closed pipes, full disks, odd names, absurd values)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from samecode import cli
from samecode.cli import main
from samecode.minhash.params import optimal_param

SRC = str(Path(__file__).resolve().parents[2] / "src")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))


def run(*args: str, cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess[str]:
    """The command as a process (``python -m samecode``)."""
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "samecode", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        **kwargs,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "main.py").write_text(CODE)
    (root / "pkg" / "copy.py").write_text(CODE.replace("handler_7", "renamed_7"))
    (root / "pkg" / "other.py").write_text("\n".join(f"x{i} = y{i} ** {i}" for i in range(60)))
    (root / "pkg" / "blob.bin").write_bytes(b"\x00" * 100)
    return root


def scan_output(capsys, *args: str) -> tuple[int, str]:
    status = main(["scan", *args, "--quiet", "--jobs", "1"])
    return status, capsys.readouterr().out


def test_every_format(tree, capsys):
    status, out = scan_output(capsys, str(tree), "--format", "json")
    assert status == 0
    report = json.loads(out)
    assert report["schema"] == 1
    assert report["summary"]["compared"] == 3
    assert report["summary"]["skipped_by_reason"] == {"binary": 1}
    (pair,) = report["pairs"]
    assert Path(pair["a"]).name == "copy.py"
    assert Path(pair["b"]).name == "main.py"
    assert pair["jaccard"] == pair["shared"] / (
        pair["a_shingles"] + pair["b_shingles"] - pair["shared"]
    )
    assert report["classes"][0]["members"] == [pair["a"], pair["b"]]

    _, out = scan_output(capsys, str(tree), "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in records] == ["scan", "pair", "class", "skipped"]
    assert records[1]["jaccard"] == pair["jaccard"]

    _, out = scan_output(capsys, str(tree), "--format", "csv", "--containment")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == [
        "a",
        "b",
        "jaccard",
        "shared",
        "a_shingles",
        "b_shingles",
        "containment_a",
        "containment_b",
        "class",
        "corpus",
    ]
    assert len(rows) == 2

    _, out = scan_output(capsys, str(tree), "--format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "near-duplicate"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("copy.py")

    _, out = scan_output(capsys, str(tree))
    assert "main.py" in out
    assert "copy.py" in out
    assert "other.py" not in out


def test_output_is_the_same_for_any_jobs(tree, capsys):
    for i in range(30):
        (tree / f"extra{i}.py").write_text(CODE.replace("respond", f"respond{i % 3}"))
    outputs = set()
    for jobs in ("1", "2", "3"):
        assert main(["scan", str(tree), "--format", "jsonl", "--quiet", "--jobs", jobs]) == 0
        outputs.add(capsys.readouterr().out)
    assert len(outputs) == 1


def test_fail_on_match_and_output_file(tree, tmp_path, capsys):
    assert (
        main(
            [
                "scan",
                str(tree),
                "--quiet",
                "--fail-on-match",
                "-o",
                str(tmp_path / "r.json"),
                "--format",
                "json",
            ]
        )
        == 1
    )
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["pairs"] == 1
    assert main(["scan", str(tree / "pkg" / "other.py"), "--quiet", "--fail-on-match"]) == 0
    assert capsys.readouterr().out.strip() == "No near-duplicates at this threshold."


@pytest.mark.parametrize(
    "args",
    [
        ["scan", "/no/such/folder"],
        ["scan", ".", "--shingle", str(2**70)],
        ["scan", ".", "--shingle", "2**70"],
        ["scan", ".", "--jobs", str(10**30)],
        ["scan", ".", "--threshold", "nan"],
        ["scan", ".", "--threshold", "inf"],
        ["scan", ".", "--threshold", "-0.5"],
        ["scan", ".", "--threshold", "1e999"],
        ["scan", ".", "--max-size", "1e99"],
        ["scan", ".", "--min-tokens", "0"],
        ["scan", ".", "--tokens", "chars", "--normalize"],
        ["scan", ".", "--method", "magic"],
        ["scan", ".", "--num-perm", "1"],
        ["scan", ".", "--num-perm", "1025"],
        ["scan", ".", "--method", "minhash", "--num-perm", "16", "--lsh-threshold", "0.95"],
        ["scan", ".", "--engine", "cloud"],
        ["scan", ".", "--spark-master", "local[2]"],
        ["scan", ".", "--spark-partitions", "0"],
        ["scan", ".", "--spark-driver-memory", "4g"],
        ["scan", ".", "--engine", "spark", "--spark-driver-memory", "4 GB"],
        ["scan", ".", "--engine", "spark", "--against", "corpus.db"],
        ["scan", ".", "--engine", "spark", "--fragments"],
        ["scan"],
        ["frobnicate"],
        ["match", ".", "--db", "/no/such.db"],
        ["index", "stats", "--db", "/no/such.db"],
        ["compare", "/no/a", "/no/b"],
    ],
)
def test_bad_input_is_one_line_and_status_2(args, tmp_path):
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("samecode")
    assert "Traceback" not in done.stderr


def test_output_piped_into_head_ends_quietly(tmp_path):
    for i in range(120):
        (tmp_path / f"copy{i:03}.py").write_text(CODE)
    env = {**os.environ, "PYTHONPATH": SRC}
    command = (
        f'"{sys.executable}" -m samecode scan . --format jsonl -q | head -n 2; '
        'echo "status ${PIPESTATUS[0]}" >&2'
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert len(done.stdout.splitlines()) == 2
    assert done.stderr.strip() == "status 141"


def test_a_full_disk_is_one_line(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    (tmp_path / "a.py").write_text(CODE)
    (tmp_path / "b.py").write_text(CODE)
    env = {**os.environ, "PYTHONPATH": SRC}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "samecode", "scan", ".", "--format", "jsonl", "-q"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr.strip() == "samecode: cannot write the output: No space left on device"


def test_names_that_are_not_utf8(tmp_path):
    folder = os.fsencode(tmp_path)
    for raw in (b"caf\xe9.py", b"caf\xc3\xa9.py"):
        with open(os.path.join(folder, raw), "w") as file:
            file.write(CODE)
    jsonl = run("scan", ".", "--format", "jsonl", "-q", cwd=tmp_path)
    assert jsonl.returncode == 0
    pair = json.loads(jsonl.stdout.splitlines()[1])
    assert {os.fsencode(pair["a"]), os.fsencode(pair["b"])} == {
        b"./caf\xe9.py",
        b"./caf\xc3\xa9.py",
    }
    table = run("scan", ".", "-q", cwd=tmp_path)
    assert table.returncode == 0
    assert "caf\\xe9.py" in table.stdout
    raw = subprocess.run(
        [sys.executable, "-m", "samecode", "scan", ".", "--format", "csv", "-q"],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC},
        check=False,
    )
    assert b"caf\xe9.py" in raw.stdout  # the name's own bytes, as ls writes them


def test_defaults_from_pyproject(tree, tmp_path, capsys, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.samecode]\nthreshold = 0.99\nmin-tokens = 1\nexclude = ["other.py"]\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["scan", str(tree), "--format", "json", "-q", "-j", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["parameters"]["threshold"] == 0.99
    assert report["parameters"]["min_tokens"] == 1
    assert report["summary"]["pairs"] == 0  # the copy is 0.98 similar
    assert main(["scan", str(tree), "--format", "json", "-q", "-j", "1", "-t", "0.9"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["pairs"] == 1  # the command line wins
    (tmp_path / "pyproject.toml").write_text("[tool.samecode]\ntreshold = 0.9\n")
    assert main(["scan", str(tree)]) == 2
    assert "unknown key 'treshold'" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.samecode]\njobs = "many"\n')
    assert main(["scan", str(tree)]) == 2
    assert "jobs in [tool.samecode]" in capsys.readouterr().err


def test_without_the_extra_it_says_what_to_install(monkeypatch, capsys, tree):
    monkeypatch.setattr(cli, "_missing_extra", lambda: True)
    assert main(["scan", str(tree)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "samecode: the command line needs its extra: pip install 'samecode[cli]'"
    )


def test_interrupted_is_130(monkeypatch, capsys, tree):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("samecode.cli.commands.scan", interrupt)
    assert main(["scan", str(tree), "-q"]) == 130
    assert capsys.readouterr().err.strip() == "samecode: interrupted"


def test_the_corpus_commands(tree, tmp_path, capsys):
    db = str(tmp_path / "corpus.db")
    assert main(["index", "add", str(tree), "--db", db, "-j", "1"]) == 0
    assert "3 added, 0 updated, 0 unchanged" in capsys.readouterr().err
    assert main(["index", "add", str(tree), "--db", db, "-j", "1"]) == 0
    assert "0 added, 0 updated, 3 unchanged" in capsys.readouterr().err
    os.utime(tree / "pkg" / "main.py", ns=(1, 1))  # touched, same bytes
    assert main(["index", "add", str(tree), "--db", db, "-j", "1"]) == 0
    assert "0 added, 0 updated, 3 unchanged" in capsys.readouterr().err
    (tree / "pkg" / "other.py").write_text(CODE.replace("request", "req"))
    assert main(["index", "add", str(tree), "--db", db, "-j", "1"]) == 0
    assert "0 added, 1 updated, 2 unchanged" in capsys.readouterr().err
    (tree / "pkg" / "copy.py").unlink()
    assert main(["index", "add", str(tree), "--db", db, "--prune", "-j", "1"]) == 0
    assert "1 removed (1 missing)" in capsys.readouterr().err

    assert main(["index", "stats", "--db", db]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["files"] == 2
    assert stats["shingling"] == {"tokens": "words", "size": 5, "normalize": False}
    assert main(["index", "check", "--db", db]) == 0
    assert "is sound" in capsys.readouterr().err

    query = tmp_path / "query"
    query.mkdir()
    (query / "mine.py").write_text(CODE.replace("handler_7", "h7"))
    assert (
        main(["match", str(query), "--db", db, "--format", "jsonl", "-q", "--fail-on-match"]) == 1
    )
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    pair = next(r for r in records if r["type"] == "pair")
    assert pair["corpus"] is True
    assert Path(pair["b"]).name == "main.py"
    assert main(["scan", str(query), "--against", db, "--format", "json", "-q"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["corpus_matches"] == 1
    assert (report["parameters"]["corpus"], report["parameters"]["corpus_lsh"]) == (db, None)
    assert main(["match", str(query), "--db", db, "--shingle", "3", "-q"]) == 2
    assert "made with size=5" in capsys.readouterr().err
    assert main(["match", str(query), "--db", db, "-t", "0.5", "-q"]) == 2
    assert "at least 0.8" in capsys.readouterr().err
    assert main(["index", "remove", str(tree / "pkg"), "--db", db]) == 0
    assert "removed 2 files" in capsys.readouterr().err
    assert main(["index", "add", str(tree), "--db", db, "--min-threshold", "0.5"]) == 2


def test_a_minhash_corpus(tree, tmp_path, capsys):
    db = str(tmp_path / "lsh.db")
    new = ["index", "add", str(tree), "--db", db, "-j", "1", "-q"]
    assert main([*new, "--num-perm", "64"]) == 2  # LSH options need --method minhash
    assert "need --method minhash" in capsys.readouterr().err
    assert not os.path.exists(db)
    assert main([*new, "--method", "minhash", "--num-perm", "64"]) == 0
    assert main(["index", "stats", "--db", db]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["format_version"], stats["candidates"]) == (8, "lsh")
    assert stats["lsh"] == {
        "version": 1,
        "scheme": "one-permutation",
        "num_perm": 64,
        "seed": 1,
        "threshold": 0.6,  # 0.2 below --min-threshold
        "bands": 10,
        "rows": 6,
    }
    assert stats["bucket_rows"] == 3 * 10
    query = tmp_path / "query"
    query.mkdir()
    (query / "mine.py").write_text(CODE.replace("handler_7", "h7"))
    assert main(["match", str(query), "--db", db, "--format", "jsonl", "-q"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["parameters"]["corpus_lsh"] == stats["lsh"]
    pairs = [r for r in records if r["type"] == "pair"]
    assert [Path(p["b"]).name for p in pairs] == ["copy.py", "main.py"]
    assert all(
        p["jaccard"] == p["shared"] / (p["a_shingles"] + p["b_shingles"] - p["shared"])
        for p in pairs
    )
    for refused, message in [
        (["--method", "exact"], "finds candidates by --method minhash"),
        (["--num-perm", "128"], "was made with --num-perm 64"),
        (["--lsh-threshold", "0.5"], "was made with --lsh-threshold 0.6"),
    ]:
        assert main([*new, *refused]) == 2
        assert message in capsys.readouterr().err
    assert main([*new, "--num-perm", "64"]) == 0  # what it was made with
    assert main(["match", str(query), "--db", db, "--containment", "-q"]) == 2
    assert "Jaccard measure only" in capsys.readouterr().err
    exact = str(tmp_path / "exact.db")
    assert main(["index", "add", str(tree), "--db", exact, "-j", "1", "-q"]) == 0
    assert main(["index", "add", str(tree), "--db", exact, "--num-perm", "64", "-q"]) == 2
    assert "--num-perm is for a minhash corpus" in capsys.readouterr().err


def test_fingerprint_lines(tree, capsys):
    assert main(["fingerprint", str(tree), "--kind", "simhash", "--kind", "halo", "-j", "1"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {Path(r["path"]).name: r for r in records}
    assert by_name["blob.bin"] == {"path": by_name["blob.bin"]["path"], "skipped": "binary"}
    main_py = by_name["main.py"]
    assert len(main_py["simhash"]) == 16
    assert len(main_py["halo"]) == 32
    assert main_py["sha256"] == __import__("hashlib").sha256(CODE.encode()).hexdigest()


def test_a_huge_one_line_file_is_refused_by_size(tmp_path, capsys):
    (tmp_path / "huge.txt").write_bytes(b"x" * (11 << 20))
    assert main(["fingerprint", str(tmp_path / "huge.txt")]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "path": str(tmp_path / "huge.txt"),
        "skipped": "too large",
    }


def test_seed_004_end_to_end(tree, capsys):
    status, out = scan_output(
        capsys,
        str(tree),
        "--method",
        "minhash",
        "--tokens",
        "chars",
        "--shingle",
        "9",
        "--num-perm",
        "100",
        "--threshold",
        "0.8",
        "--format",
        "jsonl",
    )
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    parameters = records[0]["parameters"]
    assert parameters["num_perm"] == 100
    assert parameters["lsh_threshold"] == 0.6
    assert (parameters["bands"], parameters["rows"]) == optimal_param(0.6, 100)
    (pair,) = [r for r in records if r["type"] == "pair"]
    assert pair["a"].endswith("copy.py")
    assert pair["b"].endswith("main.py")
    assert pair["lsh_candidate"] is True
    assert 0.5 < pair["signature_similarity"] <= 1
    assert pair["jaccard"] == pair["shared"] / (
        pair["a_shingles"] + pair["b_shingles"] - pair["shared"]
    )
    status, table = scan_output(capsys, str(tree), "--method", "minhash", "--format", "table")
    assert "LSH proposed 1 of 1" in table
    assert "signature similarity" in table
    status, csv_text = scan_output(capsys, str(tree), "--method", "minhash", "--format", "csv")
    assert csv_text.splitlines()[0].endswith("signature_similarity,lsh_candidate,corpus")


def test_compare(capsys):
    a, b = EXAMPLES / "original.txt", EXAMPLES / "edited.txt"
    assert main(["compare", str(a), str(b), "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert 0.5 < facts["jaccard"] < 1
    assert main(["compare", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith(f"jaccard {facts['jaccard']:.3f}")


def test_version_and_help():
    assert run("--version").stdout.strip().startswith("samecode ")
    done = run("scan", "--help")
    assert done.returncode == 0
    assert "--threshold" in done.stdout


def _commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                found += _commands(command) or [command]
    return found


def test_the_reference_names_every_option():
    reference = (Path(__file__).resolve().parents[2] / "docs" / "cli.rst").read_text()
    missing = [
        (command.prog, option)
        for command in _commands(cli._parser())
        for action in command._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help" and f"``{option}" not in reference
    ]
    assert missing == []


def test_chaining_star_cuts_a_chain_and_counts_the_pairs_cut(tmp_path, capsys):
    words = [f"w{i}" for i in range(200)]
    for step in range(4):  # each file 20 words on from the one before
        (tmp_path / f"v{step}.txt").write_text(" ".join(words[20 * step : 20 * step + 120]))
    base = [str(tmp_path), "--threshold", "0.6", "--format", "json", "-q", "--no-gitignore"]
    assert main(["scan", *base]) == 0
    linked = json.loads(capsys.readouterr().out)
    assert [c["size"] for c in linked["classes"]] == [4]
    assert linked["classes"][0]["link_jaccard"] >= 0.6
    assert linked["summary"]["pairs_between_classes"] == 0
    assert main(["scan", *base, "--chaining", "star"]) == 0
    star = json.loads(capsys.readouterr().out)
    assert star["parameters"]["chaining"] == "star"
    assert [c["members"] for c in star["classes"]] == [
        [str(tmp_path / "v0.txt"), str(tmp_path / "v1.txt")],
        [str(tmp_path / "v2.txt"), str(tmp_path / "v3.txt")],
    ]
    assert star["summary"]["pairs_between_classes"] == 1  # v1 - v2
    assert main(["scan", *base, "--chaining", "ring"]) == 2
