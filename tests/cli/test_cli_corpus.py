"""The corpus commands as a process: one entry per file whatever its spelling, names that
are not UTF-8, and entries whose files were rewritten into something skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")
CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a process (``python -m samecode``)."""
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


def held(db: Path, cwd: Path) -> int:
    done = run("index", "stats", "--db", str(db), cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["files"]


def test_index_add_by_three_spellings_stores_one_entry(tmp_path):
    (tmp_path / "known").write_text(CODE)
    db = tmp_path / "c.db"
    for spelling in ("known", "./known", str(tmp_path / "known")):
        done = run("index", "add", spelling, "--db", str(db), "--no-gitignore", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert held(db, tmp_path) == 1
    assert "0 added, 0 updated, 1 unchanged" in done.stderr
    done = run("index", "remove", "./known", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "removed 1 file " in done.stderr
    assert held(db, tmp_path) == 0


def test_index_add_of_a_name_that_is_not_utf8(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "plain.py").write_text(CODE)
    with open(os.path.join(os.fsencode(tree), b"caf\xff.py"), "wb") as file:
        file.write(CODE.replace("handler_2(", "h2(").encode())
    db = tmp_path / "c.db"
    done = run("index", "add", "tree", "--db", str(db), "--no-gitignore", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 added" in done.stderr
    (tmp_path / "query.py").write_text(CODE.replace("handler_7(", "h7("))
    done = run("match", "query.py", "--db", str(db), "--format", "json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = sorted(p["b"] for p in json.loads(done.stdout)["pairs"])
    assert [os.path.basename(os.fsencode(name)) for name in names] == [b"caf\xff.py", b"plain.py"]


def test_index_add_removes_an_entry_rewritten_into_too_few_tokens(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(CODE)
    (tree / "b.py").write_text(CODE.replace("request", "req"))
    db = tmp_path / "c.db"
    add = ("index", "add", "tree", "--db", str(db), "--no-gitignore")
    assert run(*add, cwd=tmp_path).returncode == 0
    (tree / "a.py").write_text("x = 1")
    done = run(*add, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 removed (1 too few tokens)" in done.stderr
    assert held(db, tmp_path) == 1


def test_compare_of_a_missing_file_says_so(tmp_path):
    (tmp_path / "x").write_text(CODE)
    done = run("compare", str(tmp_path / "nope"), str(tmp_path / "x"))
    assert done.returncode == 2
    assert "no such file" in done.stderr
    assert "vanished" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_compare_of_empty_files_is_not_comparable(tmp_path):
    (tmp_path / "e1").write_text("")
    (tmp_path / "e2").write_text("   \n")
    (tmp_path / "x").write_text(CODE)
    for pair in (("e1", "e2"), ("e1", "x")):
        done = run("compare", *pair, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "jaccard" not in done.stdout
        assert "containment" not in done.stdout
        assert "not comparable" in done.stdout
        done = run("compare", *pair, "--format", "json", cwd=tmp_path)
        facts = json.loads(done.stdout)
        assert facts["comparable"] is False
        assert (facts["jaccard"], facts["containment_a"], facts["containment_b"]) == (None,) * 3


def _tree(root: Path, name: str, files: int) -> Path:
    folder = root / name
    folder.mkdir()
    for i in range(files):
        (folder / f"{name}{i}.py").write_text(CODE.replace("handler_", f"{name}_{i}_"))
    return folder


def test_index_add_opens_a_corpus_another_process_made_meanwhile(tmp_path, monkeypatch):
    from samecode.cli import commands, main
    from samecode.corpus.store import Corpus

    mine, theirs = _tree(tmp_path, "mine", 3), _tree(tmp_path, "theirs", 2)
    db = tmp_path / "new.db"
    real_create = Corpus.create
    made: list[bool] = []

    def create(path, *args, **kwargs):
        if not made:  # the other `index add`, started together, makes the corpus first
            made.append(True)
            theirs_add = ["index", "add", str(theirs), "--db", str(db), "-q", "--no-gitignore"]
            assert main(theirs_add) == 0
        return real_create(path, *args, **kwargs)

    monkeypatch.setattr(commands.Corpus, "create", create)
    assert main(["index", "add", str(mine), "--db", str(db), "-q", "--no-gitignore"]) == 0
    monkeypatch.undo()
    assert held(db, tmp_path) == 5


def test_index_add_started_together_store_every_file(tmp_path):
    folders = [_tree(tmp_path, name, 20) for name in ("first", "second")]
    env = {**os.environ, "PYTHONPATH": SRC}
    for attempt in range(3):
        db = tmp_path / f"new{attempt}.db"
        command = [sys.executable, "-m", "samecode", "index", "add", "--db", str(db), "-q"]
        started = [
            subprocess.Popen(
                [*command, str(folder), "--no-gitignore"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for folder in folders
        ]
        for process in started:
            _, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
        assert held(db, tmp_path) == 40
        check = run("index", "check", "--db", str(db), cwd=tmp_path)
        assert check.returncode == 0, check.stderr


def test_index_add_refuses_each_fragment_option_the_corpus_was_made_otherwise(tmp_path):
    known = _tree(tmp_path, "known", 2)
    db = str(tmp_path / "c.db")
    made = run("index", "add", str(known), "--db", db, "--fragments", "--no-gitignore", "-q")
    assert made.returncode == 0, made.stderr
    for flag, value, stored in [
        ("--window", "9", "window=16"),
        ("--kgram", "7", "k=12"),
    ]:
        done = run("index", "add", str(known), "--db", db, "--fragments", flag, value, "-q")
        assert done.returncode == 2, (flag, done.stderr)
        assert f"stores fragments with {stored}; {flag} is set when a corpus is made" in (
            done.stderr
        )
        assert len(done.stderr.splitlines()) == 1
