"""What two processes get of this machine: the ceiling of ``--jobs 2`` over ``--jobs 1``.

    python benchmarks/bench_cores.py [--files 600] [--repeat 5] [--wait-idle 60]

The same work, the read stage of ``scan --fragments`` without its scratch files (each
file's tokens, masks and k-grams: :func:`samecode.fragments.tree.fingerprint_text`) over
the first ``--files`` ``.py`` files of this Python's standard library, is done by one
process alone, then by two processes at once, each the whole of it (forked from one
parent that read the texts and did the work once, so that both start warm and share
nothing but the machine). Each repeat gives the CPU time of each process and the wall
time of each round; the report gives their medians, and the ratio::

    ceiling = 2 * (one process's CPU alone) / (a process's CPU beside another)

the most ``--jobs 2`` can be faster than ``--jobs 1`` on this machine for work like the
scan's, were nothing serial. Two cores that each run as fast beside the other as alone
give 2.0; two cores that share a cache, a memory bus or a physical core give less. Not
part of CI.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from bench_pipeline import wait_idle
from samecode.fragments import FragmentOptions
from samecode.fragments.tree import fingerprint_text


def _texts(count: int) -> list[tuple[str, str]]:
    """The first ``count`` ``.py`` files of the standard library (tests left out), read."""
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for path in sorted(root.rglob("*.py")):
        if "test" in path.relative_to(root).parts[0] or "site-packages" in path.parts:
            continue
        found.append((str(path), path.read_text(encoding="utf-8", errors="replace")))
        if len(found) == count:
            break
    return found


def _work(texts: list[tuple[str, str]], options: FragmentOptions) -> float:
    """The CPU seconds of this process to fingerprint every text."""
    start = time.process_time()
    for path, text in texts:
        fingerprint_text(path, text, options)
    return time.process_time() - start


def _round(texts: list[tuple[str, str]], options: FragmentOptions, processes: int) -> list[float]:
    """``processes`` forked children do the work at once: each one's CPU seconds."""
    children = []
    for _ in range(processes):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(reader)
            os.write(writer, repr(_work(texts, options)).encode())
            os._exit(0)
        os.close(writer)
        children.append((pid, reader))
    cpu = []
    for pid, reader in children:
        with os.fdopen(reader) as said:
            cpu.append(float(said.read()))
        os.waitpid(pid, 0)
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--wait-idle", type=float, default=60.0)
    args = parser.parse_args()
    if not hasattr(os, "fork"):
        sys.exit("bench_cores.py forks its processes: this platform cannot")
    texts = _texts(args.files)
    options = FragmentOptions()
    _work(texts, options)  # warm: the memo of token ids, numpy imported
    alone: list[float] = []
    beside: list[float] = []
    walls: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.repeat):
        for processes in (1, 2):
            wait_idle(args.wait_idle)
            start = time.perf_counter()
            cpu = _round(texts, options, processes)
            walls[processes].append(time.perf_counter() - start)
            (alone if processes == 1 else beside).extend(cpu)
    one, two = statistics.median(alone), statistics.median(beside)
    characters = sum(len(text) for _, text in texts)
    print(f"{len(texts)} files ({characters:,} characters), {args.repeat} repeats, medians:")
    print(f"  one process alone:        CPU {one:.3f} s, wall {statistics.median(walls[1]):.3f} s")
    print(f"  each of two at once:      CPU {two:.3f} s, wall {statistics.median(walls[2]):.3f} s")
    print(f"  CPU beside / alone:       {two / one:.3f}")
    print(f"  ceiling of --jobs 2:      {2 * one / two:.2f}x --jobs 1")


if __name__ == "__main__":
    main()
