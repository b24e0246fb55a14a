"""samecode scan against MinHash LSH pipelines on datasketch and rensa: quality and speed.

    python benchmarks/bench_scan.py --repeat 3

The corpus is the standard library of every CPython 3.10-3.13 installed here (``.py``
files, test folders left out): versions of one module are natural near-duplicates. The
ground truth is computed here, independently of samecode: every file's set of 5-token
shingles as tuples of the token strings (the documented similarity), and the exact
Jaccard of every pair whose sizes allow ``J >= t`` (``min/max >= t``), in a process pool;
it is cached under ``.bench-cache/``.

Every contender runs as a fresh process (cold), side by side in one run, ``--repeat``
times; the table gives the median wall time, the CPU time (user + system), the peak
memory, and precision and recall against the truth at ``J >= 0.8``. For samecode, every
reported ``jaccard`` is also checked to equal the exact value. The peers run in virtual
environments of their own (``benchmarks/_refenv.py``) with ``_scan_peers.py``: MinHash of
128 permutations, LSH at 0.5 (so that it finds the pairs), exact verification.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

from _refenv import HERE, peer_python

DATASKETCH = "datasketch==2.0.0"
RENSA = "rensa==0.5.0"
CACHE = HERE.parent / ".bench-cache"
WORDS = re.compile(r"\w+|[^\w\s]")
SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def stdlib_roots() -> list[str]:
    """The folder of every installed CPython 3.10-3.13 standard library."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = []
    for minor in ("3.10", "3.11", "3.12", "3.13"):
        versions = sorted(pyenv.glob(f"{minor}.*"))
        if versions:
            found.append(str(versions[-1] / "lib" / f"python{minor}"))
    return found


def stdlib_files() -> list[str]:
    """The ``.py`` files of every installed CPython 3.10-3.13 standard library."""
    found = []
    for library in stdlib_roots():
        for folder, dirs, files in os.walk(library):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            found += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return found


def shingles(path: str, k: int = 5, min_tokens: int = 10) -> frozenset[tuple[str, ...]] | None:
    """The documented similarity's shingle set of a file, as tuples of token strings."""
    with open(path, "rb") as file:
        data = file.read()
    if b"\x00" in data[:8192] or len(data) > 10 << 20:
        return None
    text = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8", "replace")
    tokens = WORDS.findall(text)
    if len(tokens) < min_tokens:
        return None
    if len(tokens) < k:
        return frozenset([tuple(tokens)])
    return frozenset(tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1))


def _truth_chunk(args: tuple[list[str], list[int], float]) -> list[list[Any]]:
    paths, rows, threshold = args
    sets = [shingles(p) for p in paths]
    sizes = [len(s) if s is not None else 0 for s in sets]
    out = []
    for i in rows:
        a = sets[i]
        if a is None:
            continue
        for j in range(i + 1, len(paths)):
            b = sets[j]
            if b is None:
                continue
            low, high = sorted((sizes[i], sizes[j]))
            if low < threshold * high:
                continue  # J <= min/max: cannot reach the threshold
            shared = len(a & b)
            union = sizes[i] + sizes[j] - shared
            if shared >= threshold * union:
                out.append([paths[i], paths[j], shared, union])
    return out


def ground_truth(
    paths: list[str], threshold: float, workers: int
) -> dict[tuple[str, str], Fraction]:
    key = hashlib.sha256(json.dumps([paths, threshold]).encode()).hexdigest()[:16]
    cached = CACHE / f"truth-{key}.json"
    if cached.exists():
        rows = json.loads(cached.read_text())
    else:
        print(f"[computing the exact ground truth for {len(paths)} files]", file=sys.stderr)
        parts = [
            (paths, list(range(w, len(paths), workers * 8)), threshold) for w in range(workers * 8)
        ]
        with ProcessPoolExecutor(workers) as pool:
            rows = list(itertools.chain.from_iterable(pool.map(_truth_chunk, parts)))
        CACHE.mkdir(exist_ok=True)
        cached.write_text(json.dumps(rows))
    return {(min(a, b), max(a, b)): Fraction(shared, union) for a, b, shared, union in rows}


def timed(command: list[str], stdin: str | None = None) -> tuple[str, dict[str, float]]:
    """Run a command; return its output and wall time, CPU time and peak memory."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as inp:
        if stdin is not None:
            inp.write(stdin.encode())
            inp.seek(0)
        start = os.times().elapsed
        process = subprocess.Popen(command, stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = os.times().elapsed - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in (0, 1):
            raise RuntimeError(f"{command[:4]} failed with status {process.returncode}")
        out.seek(0)
        text = out.read().decode("utf-8", "surrogateescape")
    return text, {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
    }


def samecode_pairs(output: str) -> dict[tuple[str, str], float]:
    pairs = {}
    for line in output.splitlines():
        record = json.loads(line)
        if record["type"] == "pair":
            pairs[(record["a"], record["b"])] = record["jaccard"]
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--lsh-threshold", type=float, default=0.5)
    parser.add_argument("--only", nargs="+", help="contenders to run (by name)")
    args = parser.parse_args()

    paths = stdlib_files()
    truth = ground_truth(paths, args.threshold, os.cpu_count() or 2)
    print(f"{len(paths)} files; {len(truth)} pairs at J >= {args.threshold} in the ground truth")
    samecode = [sys.executable, "-m", "samecode", "scan", "--format", "jsonl", "--quiet"]
    samecode += ["--no-gitignore", "--threshold", str(args.threshold), "--max-size", "10M"]
    peer = {
        "paths": paths,
        "shingle": 5,
        "min_tokens": 10,
        "threshold": args.threshold,
        "lsh_threshold": args.lsh_threshold,
        "num_perm": 128,
        "bands": 32,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(paths))
    contenders: dict[str, tuple[list[str], str | None]] = {
        "samecode scan --jobs 1": ([*samecode, "--jobs", "1", *paths], None),
        "samecode scan --jobs 2": ([*samecode, "--jobs", "2", *paths], None),
        "samecode scan --method simhash --jobs 1": (
            [*samecode, "--jobs", "1", "--method", "simhash", *paths],
            None,
        ),
        "samecode scan --method halo --jobs 1": (
            [*samecode, "--jobs", "1", "--method", "halo", *paths],
            None,
        ),
        "samecode scan --method minhash --jobs 1": (
            [*samecode, "--jobs", "1", "--method", "minhash", *paths],
            None,
        ),
        f"datasketch MinHashLSH({args.lsh_threshold}) + verification": (
            [str(peer_python("datasketch", DATASKETCH)), "-I", str(HERE / "_scan_peers.py")],
            json.dumps({**peer, "library": "datasketch"}),
        ),
        f"rensa RMinHashLSH({args.lsh_threshold}, 32 bands) + verification": (
            [str(peer_python("rensa", RENSA)), "-I", str(HERE / "_scan_peers.py")],
            json.dumps({**peer, "library": "rensa"}),
        ),
    }
    if args.only:
        contenders = {k: v for k, v in contenders.items() if any(o in k for o in args.only)}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
    answers: dict[str, dict[tuple[str, str], float]] = {}
    for _ in range(args.repeat):  # side by side: one run of each, then again
        for name, (command, stdin) in contenders.items():
            output, figures = timed(command, stdin)
            results[name].append(figures)
            if stdin is None:
                answers[name] = samecode_pairs(output)
            else:
                answers[name] = {
                    (min(a, b), max(a, b)): shared / union
                    for a, b, shared, union in json.loads(output)["pairs"]
                }
    print()
    print(
        "| contender | wall (s) | CPU (s) | peak MB | pairs | precision | recall | exact values |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, runs in results.items():
        got = answers[name]
        true_found = [key for key in got if key in truth]
        precision = len(true_found) / len(got) if got else 1.0
        recall = len(true_found) / len(truth) if truth else 1.0
        exact = all(got[key] == float(truth[key]) for key in true_found)
        median = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "rss")}
        print(
            f"| {name} | {median['wall']:.2f} | {median['cpu']:.2f} | {median['rss']:.0f} | "
            f"{len(got)} | {precision:.4f} | {recall:.4f} | {'yes' if exact else 'NO'} |"
        )
    base = statistics.median(
        r["wall"] for r in results.get("samecode scan --jobs 1", [{"wall": 0}])
    )
    print(f"\n(median of {args.repeat}; samecode --jobs 1 took {base:.2f} s)")
    os.unlink(listing.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
