"""N copies of one file: ``scan --fragments`` time and output as N grows, by default (each
copy compared with the first) and with ``--all-pairs`` (every two), side by side.

    python benchmarks/bench_copies.py --copies 50 100 200 400 --runs 3

The file copied is a module of the running Python's standard library (``difflib.py`` by
default: code no one here wrote), each copy with a line of its own above and below it,
so that the copies are near-copies, not byte-identical (``--identical`` copies the bytes).
Each run is a ``python -m samecode`` process of ``--src`` (this checkout's ``src/`` by
default) at ``--jobs 1``; the table gives the median seconds of ``--runs`` runs, the
regions reported and the seconds per copy. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def make_tree(folder: Path, source: str, copies: int, identical: bool) -> None:
    for n in range(copies):
        own = "" if identical else f"copy_{n}_marker = {n}\n"
        (folder / f"copy_{n:04}.py").write_text(own + source + own, encoding="utf-8")


def run(src: Path, folder: Path, all_pairs: bool) -> tuple[float, int]:
    command = [sys.executable, "-m", "samecode", "scan", str(folder), "--fragments",
               "--format", "jsonl", "-q", "--jobs", "1", "--no-gitignore",
               "--boilerplate-share", "1"]  # fmt: skip
    if all_pairs:
        command.append("--all-pairs")
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    regions = sum(json.loads(line)["type"] == "region" for line in done.stdout.splitlines())
    return seconds, regions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--module", default="difflib.py", help="of the standard library")
    parser.add_argument("--copies", type=int, nargs="+", default=[50, 100, 200, 400])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--identical", action="store_true", help="copy the bytes exactly")
    parser.add_argument("--skip-all-pairs-above", type=int, default=200,
                        help="--all-pairs grows as N squared: left out above this N")  # fmt: skip
    args = parser.parse_args()
    source = (Path(sysconfig.get_paths()["stdlib"]) / args.module).read_text(encoding="utf-8")
    kind = "identical" if args.identical else "near"
    print(f"{args.module} ({len(source.splitlines())} lines), {kind} copies, "
          f"median of {args.runs} runs")  # fmt: skip
    print(f"{'copies':>6}  {'default s':>9}  {'regions':>7}  {'ms/copy':>7}  "
          f"{'all-pairs s':>11}  {'regions':>7}  {'ratio':>5}")  # fmt: skip
    for copies in args.copies:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            make_tree(folder, source, copies, args.identical)
            star = [run(args.src, folder, False) for _ in range(args.runs)]
            seconds = statistics.median(s for s, _ in star)
            line = f"{copies:>6}  {seconds:>9.2f}  {star[0][1]:>7}  {1000 * seconds / copies:>7.1f}"
            if copies <= args.skip_all_pairs_above:
                every = [run(args.src, folder, True) for _ in range(args.runs)]
                all_seconds = statistics.median(s for s, _ in every)
                line += f"  {all_seconds:>11.2f}  {every[0][1]:>7}  {all_seconds / seconds:>5.1f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
