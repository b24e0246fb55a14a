"""Private to the benchmarks: ``python -m samecode`` of a given ``src/`` as a process of
its own, timed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def run_samecode(
    src: Path, argv: list[str], cwd: Path, output: Path | None = None
) -> tuple[int, float, str]:
    """Run ``python -m samecode ARGV`` of ``src`` in ``cwd``, its standard output written to
    ``output`` (dropped if ``None``): the exit status, the seconds taken and what it said
    on standard error."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    with open(output or os.devnull, "wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "samecode", *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            check=False,
        )
    seconds = time.perf_counter() - started
    return done.returncode, seconds, done.stderr.decode(errors="replace")
