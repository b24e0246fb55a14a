"""samecode scan at scale: 100,000 generated files with planted near-duplicates.

    python benchmarks/bench_scale.py --files 100000 --jobs 2

Files are code-like text (assignments, calls and returns over a Zipf-distributed
vocabulary, 80 to 220 lines each); ``--planted`` of them are copies of others with one to
four lines changed. The corpus is generated once (seeded) and kept under ``.bench-cache/``.
The run is ``samecode scan`` as a process; its peak memory is the largest sum of the
proportional memory (PSS: pages forked workers share with the main process count once)
of the process and its workers, sampled every 20 ms from ``/proc``.
Every planted pair whose exact Jaccard (computed here, from token tuples) is at least the
threshold must be found, and nothing else may be. The same command then runs on the
CPython standard libraries (``bench_scan.py``'s files) for the time per file and per MB.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_scan import CACHE, WORDS, stdlib_files


def generate(root: Path, files: int, planted: int, seed: int) -> list[tuple[str, str]]:
    """Write the corpus (once); return the planted pairs as paths."""
    marker = root / "planted.json"
    if marker.exists():
        return [tuple(p) for p in json.loads(marker.read_text())]
    rng = random.Random(seed)
    vocabulary = [
        f"{rng.choice('abcdefghijklmnopqrstuvwxyz')}{i:x}_{rng.randrange(1000)}"
        for i in range(60_000)
    ]
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(vocabulary))))
    templates = [
        "{0} = {1}({2}, {3}) + {n}",
        "if {0} > {n}:\n    return {1}.{2}({3})",
        "for {0} in {1}({2}):\n    {3}.append({0} * {n})",
        "{0}.{1} = [{2}, {3}, {n}]",
        "def {0}({1}, {2}):\n    return {3} - {n}",
        "{0} += {1} // {n}",
    ]

    def line() -> str:
        names = rng.choices(vocabulary, cum_weights=cumulative, k=4)
        return rng.choice(templates).format(*names, n=rng.randrange(100))

    root.mkdir(parents=True, exist_ok=True)
    bodies: list[list[str]] = []
    for number in range(files - planted):
        body = [line() for _ in range(rng.randrange(80, 220))]
        bodies.append(body)
        folder = root / f"d{number // 1000:03}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{number:06}.py").write_text("\n".join(body))
    pairs = []
    for number in range(files - planted, files):
        source = rng.randrange(files - planted)
        body = list(bodies[source])
        for _ in range(rng.randint(1, 4)):
            body[rng.randrange(len(body))] = line()
        folder = root / f"d{number // 1000:03}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{number:06}.py").write_text("\n".join(body))
        a = str(root / f"d{source // 1000:03}" / f"f{source:06}.py")
        pairs.append((a, str(folder / f"f{number:06}.py")))
    marker.write_text(json.dumps(pairs))
    return pairs


def exact_jaccard(a: str, b: str) -> float:
    sets = []
    for path in (a, b):
        tokens = WORDS.findall(Path(path).read_text())
        sets.append({tuple(tokens[i : i + 5]) for i in range(len(tokens) - 4)})
    return len(sets[0] & sets[1]) / len(sets[0] | sets[1])


def tree_rss(pid: int) -> int:
    """Memory of a process and its descendants: the sum of their proportional set sizes
    (``Pss`` of ``/proc/PID/smaps_rollup``: a page that forked workers share with the
    main process counts once, split between them), or of their resident sizes where the
    kernel gives no PSS."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            try:
                rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
                total += int(rollup.split("\nPss:")[1].split()[0]) * 1024
            except (OSError, IndexError):
                status = Path(f"/proc/{current}/status").read_text()
                total += int(status.split("VmRSS:")[1].split()[0]) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            continue
    return total


def run(command: list[str]) -> tuple[str, float, float, int]:
    """Output, wall seconds, CPU seconds (with children) and peak tree memory."""
    peak = [0]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        before = os.times()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL)
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(process.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        process.wait()
        done.set()
        sampler.join()
        wall = time.perf_counter() - start
        after = os.times()
        out.seek(0)
        output = out.read().decode("utf-8", "surrogateescape")
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return output, wall, cpu, peak[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--planted", type=int, default=1_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    root = CACHE / f"scale-{args.files}-{args.planted}-{args.seed}"
    planted = generate(root, args.files, args.planted, args.seed)
    required = {(min(a, b), max(a, b)) for a, b in planted if exact_jaccard(a, b) >= 0.8}
    size = sum(p.stat().st_size for p in root.rglob("*.py"))
    command = [sys.executable, "-m", "samecode", "scan", "--format", "jsonl", "--quiet"]
    command += ["--no-gitignore", "--jobs", str(args.jobs)]
    output, wall, cpu, peak = run([*command, str(root)])
    found = {(r["a"], r["b"]) for r in map(json.loads, output.splitlines()) if r["type"] == "pair"}
    missed = required - found
    # Two copies of one file are near-copies of each other too: anything else found must
    # reach the threshold as well, computed here.
    extra = {pair for pair in found - required if exact_jaccard(*pair) < 0.8}
    print(
        f"generated: {args.files:,} files, {size / 1e6:.0f} MB, "
        f"{len(required)} planted pairs at J >= 0.8"
    )
    print(
        f"scan --jobs {args.jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 2**20:.0f} MiB"
    )
    print(
        f"  planted pairs found: {len(required) - len(missed)} of {len(required)}; "
        f"{len(found - required)} other pairs, {len(extra)} of them below the threshold"
    )
    per_file = wall / args.files * 1000
    per_mb = wall / (size / 1e6)

    paths = stdlib_files()
    library_size = sum(os.path.getsize(p) for p in paths)
    _, library_wall, _, library_peak = run([*command, *paths])
    library_file = library_wall / len(paths) * 1000
    library_mb = library_wall / (library_size / 1e6)
    print(
        f"standard libraries: {len(paths):,} files, {library_size / 1e6:.0f} MB: "
        f"{library_wall:.1f} s wall, peak {library_peak / 2**20:.0f} MiB"
    )
    print(
        f"time per file: {per_file:.2f} ms against {library_file:.2f} ms "
        f"({per_file / library_file:.2f}x); per MB: {per_mb:.2f} s against {library_mb:.2f} s "
        f"({per_mb / library_mb:.2f}x)"
    )
    return 0 if not missed and not extra else 1


if __name__ == "__main__":
    sys.exit(main())
