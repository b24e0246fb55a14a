"""Compare this project's outputs with SameCode 0.5.1's on seeded random cases.

Usage: ``python benchmarks/compat_samecode.py [--cases N] [--seed S]``

SameCode 0.5.1 is installed in a virtual environment of its own (it has our import
name); both sides run ``_worker.py`` on the same cases and every output is compared:
halo hash hexdigest and b64digest at all seven sizes, distance, byte_hamming_distance,
common_chunks, common_chunks_from_hexdigest, bit_to_num, decode_vector, ngrams, and
select_ngrams with and without positions. Cases stay inside what 0.5.1 handles (no empty
feature inside a list, no empty ngram list), since its failures there are what we fix.
Exits 1 if any output differs.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from _refenv import peer_python, run_worker

SIZES = (32, 64, 128, 160, 256, 384, 512)
REFERENCE = "samecode==0.5.1"


def _features(rng: random.Random, count: int) -> list[str]:
    # Short features over a small alphabet, so that repeats (and column ties) happen.
    alphabet = rng.choice([b"ab", b"abc", b"abcdefghij", bytes(range(256))])
    return [bytes(rng.choices(alphabet, k=rng.randint(1, 6))).hex() for _ in range(count)]


def _edit(rng: random.Random, features: list[str]) -> list[str]:
    edited = list(features)
    for _ in range(rng.randint(0, 4)):
        action = rng.choice(["drop", "add", "swap"])
        if action == "drop" and edited:
            edited.pop(rng.randrange(len(edited)))
        elif action == "add":
            edited.insert(rng.randint(0, len(edited)), _features(rng, 1)[0])
        elif edited:
            edited[rng.randrange(len(edited))] = _features(rng, 1)[0]
    return edited


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _token(rng: random.Random) -> list[Any]:
    kind = rng.choice("ssssiibf")
    if kind == "s":
        return ["s", "".join(rng.choices("abcdé漢字 _-\t", k=rng.randint(0, 5)))]
    if kind == "i":
        return ["i", rng.randint(-5, 50)]
    if kind == "b":
        return ["b", bytes(rng.choices(b"xyz\x00\xff", k=rng.randint(0, 3))).hex()]
    return ["f", rng.choice([0.0, -0.0, 1.0, 2.5, 1e300])]


def make_cases(count: int, seed: int) -> list[dict[str, Any]]:
    """Return ``count`` cases: about 70 % halo hash, 15 % ngrams, 15 % select_ngrams."""
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for index in range(count):
        roll = index % 20
        if roll < 14:
            size = SIZES[index % len(SIZES)]
            first = _features(
                rng, rng.choice([0, 1, 2, 3, rng.randint(4, 40), rng.randint(40, 300)])
            )
            cases.append(
                {
                    "kind": "halo",
                    "size": size,
                    "a": first,
                    "b": _edit(rng, first),
                    "chunk_bytes": rng.sample(_divisors(size // 8), k=2),
                    "chunk_bits": rng.sample(_divisors(size), k=3),
                }
            )
        elif roll < 17:
            tokens = [_token(rng) for _ in range(rng.randint(0, 12))]
            cases.append({"kind": "ngrams", "tokens": tokens, "n": rng.randint(1, 6)})
        else:
            vocab = [_token(rng) for _ in range(rng.randint(1, 8))]
            k = rng.randint(1, 6)
            # Now and then a long list, which crosses the batches select_ngrams works in.
            length = rng.randint(4000, 9000) if index % 100 == 19 else rng.randint(1, 25)
            grams = [[rng.choice(vocab) for _ in range(k)] for _ in range(length)]
            cases.append({"kind": "select", "ngrams": grams})
    return cases


def compare(
    ours: list[dict[str, Any]], theirs: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[str]:
    """Return a line for every output that differs."""
    mismatches = []
    for index, (mine, ref, case) in enumerate(zip(ours, theirs, cases)):
        for key in sorted(set(mine) | set(ref)):
            if mine.get(key) != ref.get(key):
                mismatches.append(
                    f"case {index} ({case['kind']}) {key}: ours={mine.get(key)!r} "
                    f"0.5.1={ref.get(key)!r}"
                )
    return mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args(argv)
    cases = make_cases(args.cases, args.seed)
    reference = peer_python("samecode-0.5.1", REFERENCE)
    ours = run_worker(sys.executable, {"op": "compat", "cases": cases})
    theirs = run_worker(reference, {"op": "compat", "cases": cases})
    mismatches = compare(ours, theirs, cases)
    outputs = sum(len(result) for result in ours)
    kinds: dict[str, int] = {}
    for case in cases:
        label = case["kind"] + (f"/{case['size']}" if case["kind"] == "halo" else "")
        kinds[label] = kinds.get(label, 0) + 1
    print(f"cases: {len(cases)} (seed {args.seed}); outputs compared: {outputs}")
    print("by kind: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
    for line in mismatches[:20]:
        print(line)
    print(f"mismatches: {len(mismatches)}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
