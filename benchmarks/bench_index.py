"""Index benchmarks: find_all against simhash-py's C++, online use against SimhashIndex,
memory of the in-memory index, and SQLite bulk load and lookups. Side by side, one run.

    python benchmarks/bench_index.py --repeat 3

The peers run in virtual environments of their own (``simhash-pybind`` for simhash-py's
C++ ``find_all``, the pure-Python ``simhash`` package of 1e0ng for ``SimhashIndex``);
both sides get the same seeded fingerprints through ``_simhash_worker.py`` and their
answers are compared by SHA-256.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time

from samecode.hamming.sqlite import SQLiteIndex

from _refenv import peer_python, simhash_worker

PYBIND = "simhash-pybind==0.0.3"
SECTIONS = ["find_all", "online", "memory", "sqlite"]
ONENG = "simhash==2.1.2"


MEMORY = textwrap.dedent(
    """
    import random, resource
    from samecode.hamming.index import HammingIndex
    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    n = {n}
    before = rss()
    rng = random.Random(1)
    index = HammingIndex(64, 3, expected_size=n)
    add = index.add
    for i in range(n):
        add(i, rng.getrandbits(64))
    print(before, rss(), index.plan.describe(n))
    """
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n", type=int, default=1_000_000, help="find_all, memory, SQLite")
    parser.add_argument("--online", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument(
        "--only",
        nargs="+",
        choices=SECTIONS,
        default=SECTIONS,
        help="run only these sections (all by default)",
    )
    args = parser.parse_args()
    ours = sys.executable

    if "find_all" in args.only:
        find_all(args, ours)
    if "online" in args.only:
        online(args, ours)
    if "memory" in args.only:
        memory(args, ours)
    if "sqlite" in args.only:
        sqlite(args)
    return 0


def find_all(args: argparse.Namespace, ours: str) -> None:
    print(f"find_all over {args.n} random 64-bit hashes (1 % planted within 3 bits), d = 3")
    request = {"op": "bench", "task": "find_all", "n": args.n, "seed": 7, "repeat": args.repeat}
    theirs = simhash_worker(
        str(peer_python("simhash-pybind", PYBIND)), {**request, "module": "simhash"}
    )
    mine = simhash_worker(ours, {**request, "module": "samecode.fingerprints.simhash"})
    same = mine["sha256"] == theirs["sha256"]
    print(
        f"  simhash-py C++ find_all(hashes, 5, 3): {theirs['seconds']:.2f} s; "
        f"samecode: {mine['seconds']:.2f} s; ratio {mine['seconds'] / theirs['seconds']:.2f}x "
        f"(same {mine['pairs']} pairs: {same}; planted found {mine['planted']}/"
        f"{mine['planted_distinct']})"
    )


def online(args: argparse.Namespace, ours: str) -> None:
    print(f"online: {args.online} single adds, then {args.queries} queries, d = 3")
    request = {
        "op": "bench",
        "task": "online",
        "n": args.online,
        "seed": 11,
        "repeat": args.repeat,
        "queries": args.queries,
    }
    theirs = simhash_worker(
        str(peer_python("simhash-1e0ng", ONENG)), {**request, "module": "simhash"}
    )
    mine = simhash_worker(ours, {**request, "module": "samecode.hamming.index"})
    same = mine["sha256"] == theirs["sha256"]
    for label, key, count in (
        ("single adds", "build", args.online),
        ("bulk adds (add_many / constructor)", "bulk", args.online),
        ("queries", "query", mine["queries"]),
    ):
        a = count / mine[key]
        b = count / theirs[key]
        print(f"  {label}/s: samecode {a:,.0f}, SimhashIndex {b:,.0f}: {a / b:.1f}x")
    print(f"  same answers: {same}")


def memory(args: argparse.Namespace, ours: str) -> None:
    print(f"memory: HammingIndex of {args.n} 64-bit fingerprints, d = 3 (peak RSS)")
    out = subprocess.run(
        [ours, "-c", MEMORY.format(n=args.n)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split(maxsplit=2)
    before, peak = int(out[0]), int(out[1])
    print(
        f"  peak RSS {peak / 2**20:.0f} MiB = {peak / args.n:.0f} bytes per fingerprint "
        f"({(peak - before) / args.n:.0f} above the interpreter's start); {out[2].strip()}"
    )


def sqlite(args: argparse.Namespace) -> None:
    print(f"SQLite: bulk load of {args.n} fingerprints, then lookups from the file")

    rng = random.Random(3)
    values = [rng.getrandbits(64) for _ in range(args.n)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "index.db")
        start = time.perf_counter()
        with SQLiteIndex.create(path, 64, 3, expected_size=args.n) as index:
            index.add_many(zip(range(args.n), values))
        load = time.perf_counter() - start
        size = os.path.getsize(path)
        queries = [v ^ (1 << rng.randrange(64)) for v in rng.sample(values, 5000)]
        rates = []
        with SQLiteIndex.open(path, readonly=True) as index:
            for _ in range(args.repeat):
                start = time.perf_counter()
                for q in queries:
                    index.query(q)
                rates.append(len(queries) / (time.perf_counter() - start))
            plan = index.plan.describe(args.n)
    print(
        f"  load {load:.1f} s ({args.n / load:,.0f}/s), file {size / args.n:.0f} bytes per "
        f"fingerprint; {sorted(rates)[len(rates) // 2]:,.0f} queries/s; {plan}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
