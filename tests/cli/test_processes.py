"""The command as processes: Ctrl-C and SIGTERM end every process of ``samecode scan
--jobs 2`` within seconds (one line, no traceback, status 130 or 143), wherever the
signal lands; one file reached by several spellings is scanned once; scratch files
damaged mid-scan are one line and status 2; and a library scan within
``terminate_on_sigterm`` leaves no scratch folder when SIGTERM ends it."""

from __future__ import annotations

import json
import os
import signal
import socket
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


def _start(command: list[str], **variables: str) -> subprocess.Popen[str]:
    """Start ``command`` with this checkout's package and the environment ``variables``,
    in a session of its own (so that :func:`_ended` can end it with its workers)."""
    env = {**os.environ, "PYTHONPATH": SRC, **variables}
    # A command inherits an ignored SIGINT (this run started in the background of a
    # shell, say), and Python then keeps ignoring it: the command gets the default.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def _ended(process: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """The process's output once it has ended; killed (and the test failed) if it takes
    longer than ``timeout`` seconds, so that no pipe is left open for later tests."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its workers hold the pipes too
        process.communicate()
        pytest.fail(f"still running {timeout} s later")


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
    command = [sys.executable, "-m", "samecode", "scan", str(tmp_path), "--jobs", "2", "-q"]
    process = _start(command)
    deadline = time.monotonic() + 30
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the workers are up
    workers = _children(process.pid)
    assert len(workers) >= 2
    time.sleep(0.3)
    started = time.monotonic()
    process.send_signal(number)
    _, err = _ended(process, 20)
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


# A pool mapping tiny tasks for ever, so that a signal lands in any part of the loop: in
# the wait for a result, in a submission, in the handing over of a result.
_BUSY_POOL = """
from samecode.engine import ProcessPool, terminate_on_sigterm

def work(i):
    return sum(range(i % 50))

with terminate_on_sigterm(), ProcessPool(2) as pool:
    print("up", flush=True)
    while True:
        for _ in pool.map(work, [(i,) for i in range(2000)]):
            pass
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the workers")
@pytest.mark.parametrize("delay", [0.0, 0.01, 0.03, 0.07, 0.12, 0.2, 0.31, 0.45])
def test_sigterm_anywhere_in_the_pools_loop_ends_every_process(delay: float) -> None:
    process = _start([sys.executable, "-c", _BUSY_POOL])
    assert process.stdout is not None
    assert process.stdout.readline() == "up\n"
    workers = _children(process.pid)
    assert len(workers) == 2
    time.sleep(delay)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, err = _ended(process, 20)
    assert time.monotonic() - started < 5
    assert process.returncode == 143, err
    assert "Traceback" not in err
    time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()]


def _shared_tree(root: Path) -> None:
    """Two files sharing most of their text: a candidate pair, loaded to be compared."""
    body = "\n".join(f"line {i} of the shared text" for i in range(60))
    (root / "a.txt").write_text(body + "\nonly in a\n")
    (root / "b.txt").write_text("only in b\n" + body)


# The command, with its scratch files cut short once every file is read (within the first
# file's token ids, off an 8-byte boundary) and before any pair is compared.
_DAMAGED_SCRATCH = """
import glob, os, sys, tempfile
from samecode.fragments import tree
from samecode.cli import main

def compare_tasks(*args):
    folders = os.path.join(tempfile.gettempdir(), "samecode-fragments-*", "*.scratch")
    for name in glob.glob(folders):
        os.truncate(name, 11)
    return real(*args)

real, tree.compare_tasks = tree.compare_tasks, compare_tasks
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_scratch_files_damaged_mid_scan_are_one_line_and_status_2(tmp_path: Path, jobs: str):
    # issue 31, item 4: a scratch file cut off an 8-byte boundary gave a traceback
    (tmp_path / "tree").mkdir()
    (tmp_path / "tmp").mkdir()
    _shared_tree(tmp_path / "tree")
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path / "tmp")}
    command = [sys.executable, "-c", _DAMAGED_SCRATCH, "scan", str(tmp_path / "tree")]
    command += ["--fragments", "-q", "--no-gitignore", "-j", jobs]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("samecode: the scratch file ")
    assert line.endswith("was cut short or changed while the scan ran")
    assert list((tmp_path / "tmp").iterdir()) == []


# A library user's scan, within terminate_on_sigterm (as docs/fragments.rst shows): it
# says "up" once every file is read into the scratch folder, and waits there.
_LIBRARY_SCAN = """
import sys, time
from samecode.fragments import scan_fragments
from samecode.engine import terminate_on_sigterm
from samecode.engine import RunOptions
from samecode.sources.walk import WalkOptions

def progress(stage, done, total):
    if stage == "compare":
        print("up", flush=True)
        time.sleep(60)

with terminate_on_sigterm():
    scan_fragments([sys.argv[1]], walk=WalkOptions(gitignore=False),
                   run=RunOptions(jobs=int(sys.argv[2])), progress=progress)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_leaves_no_scratch_folder_of_a_library_scan(tmp_path: Path, jobs: str) -> None:
    (tmp_path / "tree").mkdir()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    _shared_tree(tmp_path / "tree")
    command = [sys.executable, "-c", _LIBRARY_SCAN, str(tmp_path / "tree"), jobs]
    process = _start(command, TMPDIR=str(scratch))
    assert process.stdout is not None
    assert process.stdout.readline() == "up\n"
    (folder,) = scratch.iterdir()
    assert folder.name.startswith("samecode-fragments-")
    assert [p.suffix for p in folder.iterdir()] == [".scratch"]
    process.send_signal(signal.SIGTERM)
    _, err = _ended(process, 20)
    assert process.returncode == 143, err
    assert "Traceback" not in err
    assert list(scratch.iterdir()) == []


# A pool whose main process is killed (SIGKILL: no chance to end its workers) while they
# wait for tasks, one of them with a task held in its pipe.
_KILLED_POOL = """
import os, signal, time
from samecode.engine import ProcessPool

with ProcessPool(2) as pool:
    print(" ".join(str(w.process.pid) for w in pool._running), flush=True)
    results = pool.map(time.sleep, [(0.01,) for _ in range(20)])
    next(results)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie left for a parent to reap counts)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the workers")
def test_workers_leave_when_their_main_process_is_killed() -> None:
    # a forked worker held a copy of the main process's end of its own pipe, so that the
    # pipe never closed for it: killed, the main process left its workers waiting for ever
    process = _start([sys.executable, "-c", _KILLED_POOL])
    out, _ = _ended(process, 30)
    assert process.returncode == -signal.SIGKILL
    workers = [int(pid) for pid in out.split()]
    assert len(workers) == 2
    deadline = time.monotonic() + 10
    while not all(map(_gone, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if not _gone(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


# Tasks of 12 KB whose outcomes are megabytes, over pipes of small buffers (8 KB, as a
# socket's on macOS): a task sent to a worker busy sending an outcome would wait for
# room that comes only once this process reads that outcome, which it would never do.
_SMALL_PIPES = """
import os, socket
from samecode.engine import ProcessPool

def big(number, payload):
    return number, b"y" * 3_000_000

with ProcessPool(2) as pool:
    for worker in pool._running:
        with socket.fromfd(worker.connection.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sent = []
    real = pool._send
    pool._send = lambda worker, message, number: sent.append(len(worker.held)) or real(
        worker, message, number
    )
    out = [number for number, _ in pool.map(big, [(i, b"p" * 12_000) for i in range(30)])]
print(out == list(range(30)), max(sent))
"""


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="pipes are sockets here only")
def test_a_pool_over_small_pipes_sends_no_task_that_could_wait_and_ends() -> None:
    process = _start([sys.executable, "-c", _SMALL_PIPES])
    out, err = _ended(process, 60)
    assert process.returncode == 0, err
    assert out.split() == ["True", "0"]  # every task went to a free worker
