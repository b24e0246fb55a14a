"""Degenerate inputs: time and peak memory where the old code blew up or crashed.

    python benchmarks/bench_degenerate.py

Each case runs in a process of its own, so that its peak resident memory
(``ru_maxrss``) is its own; the table gives the case, its answer's size, the seconds it
took and the peak memory. The figures from before the hardening are in
``docs/benchmarks.rst`` (the issue that asked for this), next to these.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

CASES: dict[str, str] = {
    "find_all of 5,000 copies of one fingerprint": """
        index = HammingIndex(64, 3)
        index.add_many((i, 12345) for i in range(5000))
        answer = len(index.find_all())
    """,
    "iter_pairs over 10,000 copies (every pair)": """
        index = HammingIndex(64, 3)
        index.add_many((i, 12345) for i in range(10000))
        answer = sum(1 for _ in index.iter_pairs())
    """,
    "clusters() of 200,000 copies": """
        index = HammingIndex(64, 3)
        index.add_many((i, 12345) for i in range(200000))
        answer = len(index.clusters()[0])
    """,
    "find_all of 10,000 fingerprints whose low 24 bits vary": """
        rng = random.Random(1)
        index = HammingIndex(64, 3)
        index.add_many((i, rng.getrandbits(24)) for i in range(10000))
        answer = len(index.find_all())
    """,
    "find_all of 20,000 fingerprints whose low 24 bits vary": """
        rng = random.Random(1)
        index = HammingIndex(64, 3)
        index.add_many((i, rng.getrandbits(24)) for i in range(20000))
        answer = len(index.find_all())
    """,
    "simhash.find_all of 20,000 sparse hashes (each bit set 5 %)": """
        rng = random.Random(1)
        values = [sum(1 << b for b in range(64) if rng.random() < 0.05) for _ in range(20000)]
        answer = len(find_all(values, 4, 3))
    """,
    "remove 20,000 copies in insertion order": """
        index = HammingIndex(64, 3)
        index.add_many((i, 5) for i in range(20000))
        for i in range(20000):
            index.remove(i)
        answer = len(index)
    """,
    "query hitting 20,000 int and str keys": """
        index = HammingIndex(64, 3)
        index.add_many(((i if i % 2 else str(i)), 5) for i in range(20000))
        answer = len(index.query(5))
    """,
    "char_shingles of a 200 MB file that is one line": """
        path = write_one_line(200 << 20)
        with open(path, "rb") as file:
            answer = sum(1 for _ in char_shingles(file, 9))
    """,
    "ngrams([1, 2, 3], 30_000_000) and ngrams(..., 2**70)": """
        answer = len(list(ngrams([1, 2, 3], 30_000_000))) + len(list(ngrams([1, 2, 3], 2**70)))
    """,
    "MinHashLSH.clusters of 100,000 copies of one set, verified": """
        sketch = OnePermutationMinHash(128)
        sketch.update_batch([b"alpha", b"beta", b"gamma"])
        lsh = MinHashLSH(threshold=0.5, num_perm=128)
        for i in range(100000):
            lsh.insert(i, sketch)
        start = time.perf_counter()  # the clusters alone
        words = {b"alpha", b"beta", b"gamma"}
        answer = len(lsh.clusters(verify=lambda key: words)[0])
    """,
    "OnePermutationMinHash of the shingles of a 64 MB file that is one line": """
        path = write_one_line(64 << 20)
        sketch = OnePermutationMinHash(128)
        with open(path, "rb") as file:
            sketch.update_batch(map(str.encode, char_shingles(file, 9)))
        answer = f"{sketch.count():.0f} distinct shingles estimated"
    """,
    "scan pipeline: one key shared by 50,000 documents (no pair)": """
        common = [(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(1, 6)]
        own = [(i * 0xBF58476D1CE4E5B9 + 7) % 2**64 for i in range(50000)]
        docs = [
            Document(f"d{i:05}", 1, "x", 6, array("Q", sorted([*common, own[i]])))
            for i in range(50000)
        ]
        answer = len(run_pipeline(docs, ScanOptions()))
    """,
    "scan pipeline: 10,000 identical documents (every pair)": """
        same = array("Q", range(1000, 1100))
        docs = [Document(f"d{i:05}", 1, "x", 100, same) for i in range(10000)]
        answer = len(run_pipeline(docs, ScanOptions()))
    """,
    "scan pipeline: 10,000 identical documents, 2 processes": """
        same = array("Q", range(1000, 1100))
        docs = [Document(f"d{i:05}", 1, "x", 100, same) for i in range(10000)]
        with ProcessPool(2) as engine:
            answer = len(run_pipeline(docs, ScanOptions(run=RunOptions(jobs=2)), engine))
    """,
    "Plan(256, 6) crafted to take minutes to check": """
        try:
            Plan(256, 6, even_blocks(256, 32), tuple(tuple(range(i, i + 20)) for i in range(12)))
        except ValueError as error:
            answer = str(error)[:40]
    """,
}

PRELUDE = """
import random, resource, sys, time, os, tempfile
from samecode.hamming.index import HammingIndex
from samecode.fingerprints.simhash import find_all
from samecode.text.tokens import char_shingles
from samecode.chunking import ngrams
from samecode.hamming.plan import Plan, even_blocks
from samecode.minhash.lsh import MinHashLSH
from samecode.minhash.oph import OnePermutationMinHash
from array import array
from samecode.scan import Document, ScanOptions
from samecode.engine import ProcessPool
from samecode.scan.pipeline import run_pipeline

def write_one_line(size):
    path = os.path.join(tempfile.gettempdir(), f"samecode-one-line-{size}.txt")
    if not os.path.exists(path) or os.path.getsize(path) != size:
        block = (b"lorem ipsum dolor sit amet " * 40000)[: 1 << 20]
        with open(path, "wb") as file:
            for _ in range(size >> 20):
                file.write(block)
    return path

answer = None
start = time.perf_counter()
"""

CODA = """
seconds = time.perf_counter() - start
print(json.dumps({"answer": answer, "seconds": seconds,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def run_case(body: str) -> dict[str, object]:
    script = PRELUDE + textwrap.dedent(body) + "import json" + CODA
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    if done.returncode:
        return {"answer": f"failed: {done.stderr.strip().splitlines()[-1]}", "seconds": 0, "rss": 0}
    return json.loads(done.stdout.splitlines()[-1])


def cli_case(size: int) -> dict[str, object]:
    """``samecode fingerprint`` of a one-line file of ``size`` bytes, as a process."""
    path = Path(tempfile.gettempdir(), f"samecode-one-line-{size}.txt")
    if not path.exists() or path.stat().st_size != size:
        block = (b"lorem ipsum dolor sit amet " * 40000)[: 1 << 20]
        with path.open("wb") as file:
            for _ in range(size >> 20):
                file.write(block)
    script = (
        "import resource, subprocess, sys, time, json\n"
        "start = time.perf_counter()\n"
        f"done = subprocess.run([sys.executable, '-m', 'samecode', 'fingerprint', {str(path)!r}], "
        "capture_output=True, text=True)\n"
        "seconds = time.perf_counter() - start\n"
        "print(json.dumps({'answer': done.stdout.strip()[-60:], 'seconds': seconds, "
        "'rss': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="cases whose names hold one of these words")
    args = parser.parse_args()
    print("| case | answer | seconds | peak MiB |")
    print("|---|---|---|---|")
    cases = dict(CASES)
    for name, body in cases.items():
        if args.only and not any(word in name for word in args.only):
            continue
        result = run_case(body)
        mib = result["rss"] / 2**20
        print(f"| {name} | {result['answer']} | {result['seconds']:.2f} | {mib:.0f} |")
    if not args.only or any(word in "fingerprint" for word in args.only):
        result = cli_case(200 << 20)
        print(
            f"| samecode fingerprint of a 200 MB one-line file | {result['answer']} | "
            f"{result['seconds']:.2f} | {result['rss'] / 2**20:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
