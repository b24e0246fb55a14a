"""Cross-check samecode.fingerprints.simhash against simhash-py's C++ core (through simhash-pybind).

simhash-py 0.4.0 no longer builds from PyPI; simhash-pybind wraps the same C++ code under
the same import name, ``simhash``. It runs in a virtual environment of its own, and both
sides answer the same seeded cases through ``_simhash_worker.py``.

    python benchmarks/compat_simhash.py --cases 5000
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from _refenv import peer_python, simhash_worker

PEER = "simhash-pybind==0.0.3"


def make_cases(count: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    cases: list[dict[str, object]] = []
    for index in range(count):
        kind = ("compute", "bits", "shingle", "hash", "find_all")[index % 5]
        if kind == "compute":
            n = rng.choice([0, 1, 2, 3, 4, 10, 64, 301, 2000])
            style = rng.choice(["random", "sparse", "dense", "pairs"])
            if style == "random":
                hashes = [rng.getrandbits(64) for _ in range(n)]
            elif style == "sparse":  # few bits set: many columns tie or lose
                hashes = [
                    rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64)
                    for _ in range(n)
                ]
            elif style == "dense":
                hashes = [rng.getrandbits(64) | rng.getrandbits(64) for _ in range(n)]
            else:  # values and their complements: every column ties
                half = [rng.getrandbits(64) for _ in range(n // 2)]
                hashes = half + [h ^ ((1 << 64) - 1) for h in half]
            cases.append({"kind": kind, "hashes": hashes})
        elif kind == "bits":
            a = rng.getrandbits(64)
            b = (
                a ^ rng.getrandbits(rng.randint(0, 64))
                if rng.random() < 0.5
                else rng.getrandbits(64)
            )
            cases.append({"kind": kind, "a": a, "b": b})
        elif kind == "shingle":
            tokens = [rng.choice(["a", "b", "c", 1, 2, 3.5]) for _ in range(rng.randint(0, 12))]
            cases.append({"kind": kind, "tokens": tokens, "window": rng.randint(1, 7)})
        elif kind == "hash":
            cases.append({"kind": kind, "data": rng.randbytes(rng.randint(0, 40)).hex()})
        else:  # random hashes, some repeated, some a few bits from another
            bits = rng.randint(0, 6)
            hashes = [rng.getrandbits(64) for _ in range(rng.choice([0, 1, 5, 50, 400, 6000]))]
            for _ in range(len(hashes) // 3):
                value = rng.choice(hashes)
                for _ in range(rng.randint(0, bits + 1)):
                    value ^= 1 << rng.randrange(64)
                hashes.append(value)
            blocks = rng.randint(bits + 1, min(64, bits + 6))
            cases.append({"kind": kind, "hashes": hashes, "blocks": blocks, "bits": bits})
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--plant", action="store_true", help="corrupt one answer (self-test)")
    args = parser.parse_args()
    cases = make_cases(args.cases, args.seed)
    request = {"op": "compat", "cases": cases}
    ours = simhash_worker(sys.executable, {**request, "module": "samecode.fingerprints.simhash"})
    theirs = simhash_worker(peer_python("simhash-pybind", PEER), {**request, "module": "simhash"})
    if args.plant:
        ours[0] = "planted"
    mismatches = [(case, a, b) for case, a, b in zip(cases, ours, theirs) if a != b]
    by_kind: dict[str, int] = {}
    for case in cases:
        by_kind[str(case["kind"])] = by_kind.get(str(case["kind"]), 0) + 1
    print(f"{len(cases)} cases against {PEER} ({by_kind}): {len(mismatches)} mismatches")
    for case, a, b in mismatches[:5]:
        print(f"  case {json.dumps(case)[:200]}\n    samecode: {a!r}\n    peer:     {b!r}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
