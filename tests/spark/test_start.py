"""A Spark that cannot start says why in one line, status 2, no traceback: no Java, a
Java too old, a master Spark does not take (refused before anything starts), a standalone
master that cannot be reached (refused in seconds, not after Spark's minute of retries);
and Spark's own log stays out of the terminal unless asked for."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from samecode.spark.session import CONNECT_TIMEOUT

pyspark = pytest.importorskip("pyspark")

SRC = str(Path(__file__).resolve().parents[2] / "src")
# What pyspark needs, as the message must say (pyspark 4: Java 17 or later).
NEEDED = "Java 17 or later" if int(pyspark.__version__.split(".")[0]) >= 4 else "Java 8, 11 or 17"


def _scan(
    tmp_path: Path, *args: str, timeout: float = 120, **env: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``samecode scan --engine spark`` of two files as a process, with ``env`` over this
    environment (without its JAVA_HOME, SPARK_MASTER and SAMECODE_SPARK_LOG), temporary
    files under ``tmp_path/tmp``; its outcome and how long it took."""
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    body = " ".join(f"word{i}" for i in range(60))
    for name in ("a.txt", "b.txt"):
        (tree / name).write_text(body)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    skipped = ("JAVA_HOME", "SPARK_MASTER", "SAMECODE_SPARK_LOG")
    environment = {k: v for k, v in os.environ.items() if k not in skipped}
    environment.update(PYTHONPATH=SRC, TMPDIR=str(tmp_path / "tmp"), **env)
    command = [sys.executable, "-m", "samecode", "scan", str(tree), "--engine", "spark"]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "--quiet", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )
    return done, time.monotonic() - started


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("samecode: ")
    return lines[0]


def _logs(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "tmp").glob("samecode-spark-*"))


def test_without_java_the_scan_says_so_and_which_java_spark_needs(tmp_path):
    nowhere = tmp_path / "bin"
    nowhere.mkdir()
    done, _ = _scan(tmp_path, PATH=str(nowhere))
    line = _one_line(done)
    assert "Java was not found (no java on PATH and JAVA_HOME is not set)" in line
    assert line.endswith(f"pyspark {pyspark.__version__} needs {NEEDED}")
    done, _ = _scan(tmp_path, JAVA_HOME=str(nowhere))
    assert f"JAVA_HOME={nowhere} has no bin/java" in _one_line(done)
    assert _logs(tmp_path) == []  # nothing started


@pytest.mark.parametrize(
    ("option", "master"),
    [
        ("--spark-master", "foo://bar"),
        ("--spark-master", "local[0]"),
        ("--spark-master", "spark://127.0.0.1"),
        ("--spark-master", "spark://127.0.0.1:99999"),
        ("SPARK_MASTER", "yarn-client"),
    ],
)
def test_a_master_spark_does_not_take_is_refused_before_anything_starts(tmp_path, option, master):
    if option == "SPARK_MASTER":
        done, took = _scan(tmp_path, SPARK_MASTER=master)
    else:
        done, took = _scan(tmp_path, option, master)
    line = _one_line(done)
    assert line.startswith("samecode: the Spark master must be local, local[N], local[*]")
    assert line.endswith(
        repr(master) + (" (from SPARK_MASTER)" if option == "SPARK_MASTER" else "")
    )
    assert _logs(tmp_path) == []  # no JVM: refused before it starts
    assert took < 60


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_master_is_refused_in_seconds(tmp_path):
    # Spark itself tries a standalone master 3 times 20 s (fixed, not a setting), then
    # fails in a traceback; the address is tried first, for CONNECT_TIMEOUT at most.
    port = _closed_port()
    done, took = _scan(tmp_path, "--spark-master", f"spark://127.0.0.1:{port}")
    line = _one_line(done)
    assert line == (
        f"samecode: cannot reach the Spark master spark://127.0.0.1:{port} "
        f"(127.0.0.1:{port}: Connection refused)"
    )
    assert _logs(tmp_path) == []
    assert took < CONNECT_TIMEOUT + 50  # a Python start and pyspark's import, loaded


def _java(tmp_path: Path, *lines: str) -> Path:
    """A JAVA_HOME whose java writes ``lines`` to stderr and exits 1."""
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\n" + "".join(f"echo '{line}' >&2\n" for line in lines) + "exit 1\n")
    java.chmod(0o755)
    return home


TOO_OLD = (
    "Error: LinkageError occurred while loading main class org.apache.spark.launcher.Main",
    "\tjava.lang.UnsupportedClassVersionError: org/apache/spark/launcher/Main has been "
    "compiled by a more recent version of the Java Runtime (class file version 61.0), "
    "this version of the Java Runtime only recognizes class file versions up to 55.0",
)
BROKEN = (
    "Error: Could not create the Java Virtual Machine.",
    "Error: A fatal exception has occurred. Program will exit.",
)


@pytest.mark.skipif(os.name == "nt", reason="a shell script as java")
@pytest.mark.parametrize("lines", [TOO_OLD, BROKEN], ids=["too-old", "exits"])
def test_a_java_that_cannot_run_spark_is_named_and_its_log_kept(tmp_path, lines):
    home = _java(tmp_path, *lines)
    done, _ = _scan(tmp_path, JAVA_HOME=str(home))
    line = _one_line(done)
    if lines is TOO_OLD:
        expected = f"the Java found ({home}/bin/java) is too old: pyspark {pyspark.__version__}"
        assert f"{expected} needs {NEEDED}" in line
    else:
        assert "Spark's JVM exited before it started: " + BROKEN[0] in line
    [folder] = _logs(tmp_path)
    log = folder / "spark.log"
    assert line.endswith(f"(Spark's log: {log})")
    assert lines[0] in log.read_text()  # what the JVM said is there, not in the terminal
    # Asked for, the log goes where it is told, appended.
    chosen = tmp_path / "spark.log"
    chosen.write_text("before\n")
    done, _ = _scan(tmp_path, JAVA_HOME=str(home), SAMECODE_SPARK_LOG=str(chosen))
    assert _one_line(done).endswith(f"(Spark's log: {chosen})")
    assert chosen.read_text().startswith(f"before\n{lines[0]}\n")
    # Or left on the terminal, where it was.
    done, _ = _scan(tmp_path, JAVA_HOME=str(home), SAMECODE_SPARK_LOG="-")
    assert done.returncode == 2
    assert lines[0] in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("samecode: ")
    assert "Spark's log" not in done.stderr


def test_a_scan_that_runs_keeps_sparks_log_out_of_the_terminal(tmp_path):
    done, _ = _scan(tmp_path, "--spark-master", "local[1]", "--format", "csv", timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no JVM warnings, no log4j lines
    assert "a.txt" in done.stdout
    assert _logs(tmp_path) == []  # the temporary log is gone with the process
