"""The command as processes: Ctrl-C and SIGTERM end every process of ``samecode scan
--jobs 2`` within seconds (one line, no traceback, status 130 or 143), and one file
reached by several spellings is scanned once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _tree(root: Path, files: int = 400) -> None:
    for i in range(files):
        words = " ".join(f"token{(i * 7 + j) % 5000}" for j in range(3000))
        (root / f"f{i:04}.txt").write_text(words)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the workers")
@pytest.mark.parametrize(("number", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_every_process_at_once(tmp_path: Path, number: int, status: int) -> None:
    _tree(tmp_path)
    env = {**os.environ, "PYTHONPATH": SRC}
    command = [sys.executable, "-m", "samecode", "scan", str(tmp_path), "--jobs", "2", "-q"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    deadline = time.monotonic() + 30
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the workers are up
    workers = _children(process.pid)
    assert len(workers) >= 2
    time.sleep(0.3)
    started = time.monotonic()
    process.send_signal(number)
    _, err = process.communicate(timeout=20)
    assert time.monotonic() - started < 5
    assert process.returncode == status, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()]


def test_one_file_reached_by_two_spellings_is_scanned_once(tmp_path: Path) -> None:
    # issue 20, item 2: t and ./t, relative and absolute, a folder and its subfolder
    tree = tmp_path / "t"
    (tree / "lib").mkdir(parents=True)
    body = " ".join(f"word{i}" for i in range(80))
    (tree / "lib" / "a.txt").write_text(body)
    (tree / "b.txt").write_text(body + " tail")
    env = {**os.environ, "PYTHONPATH": SRC}
    command = [
        sys.executable,
        "-m",
        "samecode",
        "scan",
        "t",
        "./t",
        str(tree),
        "t/lib",
        "--format",
        "jsonl",
        "--no-gitignore",
        "-j",
        "1",
    ]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    pairs = [(r["a"], r["b"]) for r in records if r["type"] == "pair"]
    assert pairs == [("t/b.txt", "t/lib/a.txt")]
    header = next(r for r in records if r["type"] == "scan")
    assert header["summary"]["compared"] == 2
