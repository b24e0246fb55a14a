"""Cross-check samecode.minhash and samecode.minhash.lsh against datasketch 2.0.0.

datasketch runs in a virtual environment of its own; both sides answer the same seeded
cases through ``_minhash_worker.py``: signatures of the three schemes (one feature at a
time and in batches), their counts, LeanMinHash byte forms in three byte orders (written
and read back), Jaccard estimates, merges and unions, LSH queries after inserts and
removals, and the bands and rows chosen for every threshold 0.05..0.95 (step 0.05) and
every num_perm 16..512 (``--table``; about 10 minutes on two cores).

    python benchmarks/compat_datasketch.py --cases 3000 --table
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from _refenv import peer_python, run_worker

PEER = "datasketch==2.0.0"
SCHEMES = ("affine32", "affine64", "legacy")


def features(rng: random.Random, count: int, pool: list[str]) -> list[str]:
    """Hex features: some from a shared pool (so sets overlap), some repeated, some empty."""
    out = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.5 and pool:
            out.append(rng.choice(pool))
        elif roll < 0.52:
            out.append("")
        else:
            out.append(rng.randbytes(rng.randint(1, 24)).hex())
    return out


def make_cases(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for index in range(count):
        kind = ("signature", "signature", "pair", "lsh")[index % 4]
        scheme = SCHEMES[index // 4 % 3]
        num_perm = rng.choice([1, 2, 3, 7, 16, 64, 100, 128, 129, 256, rng.randint(1, 600)])
        seed_value = rng.choice([0, 1, 42, rng.getrandbits(32), (1 << 32) - 1])
        pool = [rng.randbytes(8).hex() for _ in range(rng.randint(1, 300))]
        case: dict[str, Any] = {
            "kind": kind,
            "scheme": scheme,
            "num_perm": num_perm,
            "seed": seed_value,
            "one_by_one": rng.random() < 0.2,
        }
        if kind == "signature":
            case["sets"] = [features(rng, rng.choice([0, 1, 2, 10, 100, 500, 2000]), pool)]
        elif kind == "pair":
            case["sets"] = [features(rng, rng.randint(0, 400), pool) for _ in range(2)]
        else:
            case["num_perm"] = rng.choice([16, 32, 64, 100, 128])
            case["threshold"] = rng.choice([0.3, 0.5, 0.7, 0.8, 0.9])
            base = features(rng, rng.randint(5, 200), pool)
            sets = []
            for _ in range(rng.randint(2, 25)):
                kept = [f for f in base if rng.random() < rng.choice([0.5, 0.9, 1.0])]
                sets.append(kept + features(rng, rng.randint(0, 30), pool))
            case["sets"] = sets
            case["remove"] = rng.sample(range(len(sets)), rng.randint(0, len(sets) // 2))
        cases.append(case)
    return cases


def table_cases() -> list[dict[str, Any]]:
    return [
        {"kind": "params", "threshold": round(0.05 * i, 2), "num_perm": n, "weights": [0.5, 0.5]}
        for i in range(1, 20)
        for n in range(16, 513)
    ]


def _ours(cases: list[dict[str, Any]]) -> Any:
    return run_worker(
        sys.executable,
        {"op": "compat", "library": "samecode", "cases": cases},
        "_minhash_worker.py",
    )


def answer_in_parallel(python: Any, library: str, cases: list[dict[str, Any]], jobs: int) -> Any:
    """Split ``cases`` over ``jobs`` workers (the table is slow on both sides)."""
    parts = [cases[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        answers = list(
            pool.map(
                run_worker,
                [python] * jobs,
                [{"op": "compat", "library": library, "cases": part} for part in parts],
                ["_minhash_worker.py"] * jobs,
            )
        )
    merged: list[Any] = [None] * len(cases)
    for i, answer in enumerate(answers):
        merged[i::jobs] = answer
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--table", action="store_true", help="also the bands/rows table")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--plant", action="store_true", help="corrupt one answer (self-test)")
    args = parser.parse_args()
    theirs_python = peer_python("datasketch", PEER)
    status = 0
    runs = [("cases", make_cases(args.cases, args.seed))]
    if args.table:
        runs.append(("bands/rows table", table_cases()))
    for name, cases in runs:
        start = time.perf_counter()
        ours = answer_in_parallel(sys.executable, "samecode", cases, args.jobs)
        theirs = answer_in_parallel(theirs_python, "datasketch", cases, args.jobs)
        if args.plant:
            ours[0] = "planted"
        bad = [(case, a, b) for case, a, b in zip(cases, ours, theirs) if a != b]
        kinds: dict[str, int] = {}
        for case in cases:
            key = (
                case["kind"] if case["kind"] == "params" else f"{case['kind']}/{case.get('scheme')}"
            )
            kinds[key] = kinds.get(key, 0) + 1
        seconds = time.perf_counter() - start
        print(
            f"{name}: {len(cases)} cases against {PEER} {kinds}: {len(bad)} mismatches "
            f"({seconds:.0f} s)"
        )
        for case, a, b in bad[:5]:
            print(
                f"  case {json.dumps(case)[:300]}\n"
                f"    samecode: {str(a)[:300]}\n    peer: {str(b)[:300]}"
            )
        status |= bool(bad)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
