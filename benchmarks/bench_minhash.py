"""MinHash and LSH: speed and size against datasketch and rensa, and LSH recall on real code.

    python benchmarks/bench_minhash.py --repeat 5            # speed and size
    python benchmarks/bench_minhash.py --recall              # LSH recall on the stdlib

**Speed.** ``--documents`` documents of ``--features`` distinct 12-byte shingles (half of
them near copies of another), ``--num-perm`` permutations. Each library runs in its own
process (datasketch 2.0.0 and rensa 0.5.0 in virtual environments of their own) through
``_minhash_worker.py``, one after the other in one run, each figure the median of
``--repeat`` runs. Signatures: ``MinHash(num_perm=128)`` and ``update_batch`` per
document (datasketch's default scheme, ``affine32``, and ``legacy``); samecode's
``OnePermutationMinHash``; rensa's ``RMinHash``; and the floor of any scheme that hashes
every shingle once: ``zlib.crc32`` mapped over each document's shingles, nothing else.
LSH: ``MinHashLSH(threshold=0.8)`` (rensa: the divisor of ``num_perm`` nearest the same
number of bands, which it requires) inserting every
signature, querying every signature, removing every key. Memory per signature and per
LSH key as ``tracemalloc`` counts it (numpy reports its buffers to it).

**Recall.** The standard libraries of CPython 3.10-3.13 (``bench_scan.py``'s corpus and
its independently computed exact truth at ``J >= 0.8``, cached): every file's shingle set
(5 words) sketched with ``OnePermutationMinHash`` and with datasketch-identical
``MinHash``, indexed by ``MinHashLSH`` at several thresholds, every candidate pair
verified exactly (``find_all(verify=...)``); the table gives bands and rows, candidates,
and the recall of the true pairs (precision is 1 after verification, and checked).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from bench_scan import ground_truth, stdlib_files

from _refenv import peer_python, run_worker

DATASKETCH = "datasketch==2.0.0"
RENSA = "rensa==0.5.0"


def speed(args: argparse.Namespace) -> None:
    from samecode.minhash.params import optimal_param

    bands, rows = optimal_param(0.8, args.num_perm)
    request = {
        "op": "timing",
        "documents": args.documents,
        "features": args.features,
        "num_perm": args.num_perm,
        "seed": 7,
        "repeat": args.repeat,
        "threshold": 0.8,
        # rensa wants bands that divide num_perm: the divisor nearest datasketch's choice
        "bands": min(
            (d for d in range(2, args.num_perm + 1) if args.num_perm % d == 0),
            key=lambda d: abs(d - bands),
        ),
    }
    pythons = {
        "samecode": sys.executable,
        "datasketch": str(peer_python("datasketch", DATASKETCH)),
        "rensa": str(peer_python("rensa", RENSA)),
    }
    figures = {
        name: run_worker(python, {**request, "library": name}, "_minhash_worker.py")
        for name, python in pythons.items()
    }
    ours, theirs, rust = figures["samecode"], figures["datasketch"], figures["rensa"]
    n = args.documents
    print(
        f"{n} documents x {args.features} shingles, num_perm {args.num_perm}, "
        f"LSH b={bands} r={rows}; median of {args.repeat}"
    )
    print()
    print("| work | samecode | datasketch | rensa | datasketch / samecode |")
    print("|---|---|---|---|---|")

    def row(label: str, mine: float | None, peer: float | None, other: float | None) -> None:
        cells = [f"{v / n * 1e6:.1f} µs" if v is not None else "-" for v in (mine, peer, other)]
        ratio = f"{peer / mine:.2f}x" if mine and peer else "-"
        print(f"| {label} | {' | '.join(cells)} | {ratio} |")

    row(
        "MinHash affine32 (identical values), per document",
        ours["affine32"],
        theirs["affine32"],
        None,
    )
    row("MinHash legacy (identical values), per document", ours["legacy"], theirs["legacy"], None)
    row(
        "one-permutation (samecode) / RMinHash (rensa), per document",
        ours["one-permutation"],
        theirs["affine32"],
        rust["rensa"],
    )
    row("floor: zlib.crc32 of every shingle, per document", ours["floor"], None, None)
    row("LSH insert, per key", ours["lsh_insert"], theirs["lsh_insert"], rust["lsh_insert"])
    row("LSH query, per key", ours["lsh_query"], theirs["lsh_query"], rust["lsh_query"])
    row("LSH remove, per key", ours["lsh_remove"], theirs["lsh_remove"], rust["lsh_remove"])
    row("SQLiteLSH insert (batches), per key", ours["sqlite_insert"], None, None)
    row("SQLiteLSH query, per key", ours["sqlite_query"], None, None)
    row("SQLiteLSH remove (a transaction each), per key", ours["sqlite_remove"], None, None)
    print()
    print(
        f"one-permutation: {theirs['affine32'] / ours['one-permutation']:.2f}x datasketch's "
        f"affine32, {ours['one-permutation'] / ours['floor']:.2f}x the floor"
    )
    print(
        f"candidates returned by the queries: samecode {ours['candidates']}, "
        f"datasketch {theirs['candidates']}, rensa {rust['candidates']}"
    )
    print()
    print("| size | samecode | datasketch |")
    print("|---|---|---|")
    print(f"| LeanMinHash bytes (on disk) | {ours['lean_bytes']} | {theirs['lean_bytes']} |")
    print(
        f"| SQLiteLSH file, bytes per key (signature, b buckets, indexes) | "
        f"{ours['sqlite_bytes_per_key']:.0f} | - |"
    )
    print(
        f"| MinHash in memory, bytes per signature | {ours['memory_per_signature']:.0f} | "
        f"{theirs['memory_per_signature']:.0f} |"
    )
    print(
        f"| MinHashLSH in memory, bytes per key | {ours['memory_per_key_lsh']:.0f} | "
        f"{theirs['memory_per_key_lsh']:.0f} |"
    )


def recall(args: argparse.Namespace) -> None:
    from samecode.minhash import MinHash
    from samecode.minhash.lsh import MinHashLSH
    from samecode.minhash.oph import OnePermutationMinHash
    from samecode.scan import Document, read_documents
    from samecode.text.shingling import Shingling

    paths = stdlib_files()
    truth = ground_truth(paths, 0.8, os.cpu_count() or 2)
    documents = [
        d for d in read_documents(paths, Shingling(), 10 << 20, 10) if isinstance(d, Document)
    ]
    sets = {d.path: d.shingles for d in documents}
    print(f"{len(documents)} files, {len(truth)} true pairs at J >= 0.8, num_perm {args.num_perm}")
    print()
    print("| sketch | LSH threshold | b | r | candidates | verified pairs | recall | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    sketches: dict[str, dict[str, Any]] = {"one-permutation": {}, "MinHash affine32": {}}
    start = time.perf_counter()
    for path, shingles in sets.items():
        fast = OnePermutationMinHash(args.num_perm)
        fast.update_hashes(shingles)
        sketches["one-permutation"][path] = fast
    sketch_seconds = {"one-permutation": time.perf_counter() - start}
    start = time.perf_counter()
    for path, shingles in sets.items():
        slow = MinHash(num_perm=args.num_perm)
        slow.update_batch([v.to_bytes(8, "little") for v in shingles])
        sketches["MinHash affine32"][path] = slow
    sketch_seconds["MinHash affine32"] = time.perf_counter() - start
    verify_sets: dict[str, frozenset[int]] = {}

    def features(path: str) -> frozenset[int]:
        if path not in verify_sets:
            verify_sets[path] = frozenset(sets[path])
        return verify_sets[path]

    for name, made in sketches.items():
        for threshold in args.lsh_thresholds:
            start = time.perf_counter()
            lsh = MinHashLSH(threshold=threshold, num_perm=args.num_perm)
            for path, sketch in made.items():
                lsh.insert(path, sketch)
            candidates = lsh.candidate_pairs()
            pairs = lsh.find_all(verify=features, threshold=0.8)  # verified at 0.8
            found = {(min(a, b), max(a, b)) for a, b, _ in pairs}
            seconds = time.perf_counter() - start + sketch_seconds[name]
            hits = len(found & set(truth))
            if found - set(truth):
                raise SystemExit(
                    f"verified pairs outside the truth: {sorted(found - set(truth))[:3]}"
                )
            print(
                f"| {name} | {threshold} | {lsh.b} | {lsh.r} | {len(candidates)} | {len(found)} "
                f"| {hits / len(truth):.4f} | {seconds:.1f} |"
            )


def corpus(args: argparse.Namespace) -> None:
    """A stored corpus of CPython 3.10 and 3.11 matched by 3.12's and 3.13's files: the
    exact (prefix) corpus against an LSH corpus, bytes on disk, time and recall."""
    import tempfile

    from samecode.corpus.store import Corpus
    from samecode.minhash.settings import LSHSettings
    from samecode.scan import Document, read_documents
    from samecode.text.shingling import Shingling

    paths = stdlib_files()
    truth = ground_truth(paths, 0.8, os.cpu_count() or 2)
    documents = [
        d for d in read_documents(paths, Shingling(), 10 << 20, 10) if isinstance(d, Document)
    ]
    old = ("python3.10", "python3.11")
    known = [d for d in documents if any(f"/{v}/" in d.path for v in old)]
    queries = [d for d in documents if not any(f"/{v}/" in d.path for v in old)]
    known_paths = {d.path for d in known}
    wanted = {
        (a, b) if b in known_paths else (b, a)
        for a, b in truth
        if (a in known_paths) != (b in known_paths)
    }
    shingles = sum(len(d.shingles) for d in known)
    print(
        f"{len(known)} files stored (3.10, 3.11; {shingles:,} shingles), {len(queries)} "
        f"queried (3.12, 3.13); {len(wanted)} true pairs at J >= 0.8, num_perm {args.num_perm}"
    )
    print()
    print("| corpus | bytes on disk | bytes per file | add s | match s | pairs | recall |")
    print("|---|---|---|---|---|---|---|")
    kinds: list[tuple[str, LSHSettings | None]] = [("exact (prefixes at 0.8)", None)]
    kinds += [
        (f"minhash (LSH at {t})", LSHSettings(num_perm=args.num_perm, threshold=t))
        for t in args.lsh_thresholds
    ]
    with tempfile.TemporaryDirectory() as folder:
        for number, (name, lsh) in enumerate(kinds):
            path = os.path.join(folder, f"c{number}.db")
            start = time.perf_counter()
            with Corpus.create(path, lsh=lsh) as store:
                store.add(known)
            added = time.perf_counter() - start
            size = os.path.getsize(path)
            start = time.perf_counter()
            with Corpus.open(path, readonly=True) as store:
                pairs = store.match(queries)
            matched = time.perf_counter() - start
            found = {(p.a, p.b) for p in pairs}
            if found - wanted:
                raise SystemExit(f"{name}: a reported pair is not in the truth")
            print(
                f"| {name} | {size:,} | {size / len(known):,.0f} | {added:.1f} | {matched:.1f} "
                f"| {len(found)} | {len(found) / len(wanted):.4f} |"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--features", type=int, default=300)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--recall", action="store_true", help="LSH recall on the stdlib instead")
    parser.add_argument(
        "--corpus", action="store_true", help="a stored corpus, exact against LSH, instead"
    )
    parser.add_argument("--lsh-thresholds", type=float, nargs="+", default=[0.8, 0.7, 0.6, 0.5])
    args = parser.parse_args()
    if args.recall:
        recall(args)
    elif args.corpus:
        corpus(args)
    else:
        speed(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
