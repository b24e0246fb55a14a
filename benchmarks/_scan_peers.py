"""The near-duplicate pipelines of the peers, as their users would write them.

Runs inside a peer's own virtual environment (datasketch 2.0.0 or rensa 0.5.0). Reads a
JSON request on stdin and prints the pairs it finds as JSON. Each pipeline reads files by
samecode's documented policy and similarity (``\\w+`` runs and single symbols, 5-token
shingles, files of fewer than 10 tokens left out), makes a 128-permutation MinHash of each
file's shingles, finds candidates with the library's LSH at a threshold lower than the one
asked (so that its recall is near 1), and verifies each candidate with the exact Jaccard of
the two shingle sets.
"""

from __future__ import annotations

import json
import re
import sys

WORDS = re.compile(r"\w+|[^\w\s]")


def shingle_sets(paths: list[str], k: int, min_tokens: int) -> dict[str, set[bytes]]:
    out: dict[str, set[bytes]] = {}
    for path in paths:
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        text = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8", "replace")
        tokens = WORDS.findall(text)
        if len(tokens) < min_tokens:
            continue
        if len(tokens) < k:
            out[path] = {"\x1f".join(tokens).encode()}
            continue
        out[path] = {"\x1f".join(tokens[i : i + k]).encode() for i in range(len(tokens) - k + 1)}
    return out


def verified(
    sets: dict[str, set[bytes]], candidates: set[tuple[str, str]], threshold: float
) -> list[list[object]]:
    pairs = []
    for a, b in sorted(candidates):
        shared = len(sets[a] & sets[b])
        union = len(sets[a]) + len(sets[b]) - shared
        if shared >= threshold * union:
            pairs.append([a, b, shared, union])
    return pairs


def run_datasketch(request: dict[str, object], sets: dict[str, set[bytes]]) -> set[tuple[str, str]]:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=request["lsh_threshold"], num_perm=request["num_perm"])
    hashes = {}
    for path, shingles in sets.items():
        minhash = MinHash(num_perm=request["num_perm"])
        minhash.update_batch(list(shingles))
        hashes[path] = minhash
        lsh.insert(path, minhash)
    candidates = set()
    for path, minhash in hashes.items():
        for other in lsh.query(minhash):
            if other != path:
                candidates.add((min(path, other), max(path, other)))
    return candidates


def run_rensa(request: dict[str, object], sets: dict[str, set[bytes]]) -> set[tuple[str, str]]:
    from rensa import RMinHash, RMinHashLSH

    lsh = RMinHashLSH(
        threshold=request["lsh_threshold"],
        num_perm=request["num_perm"],
        num_bands=request["bands"],
    )
    paths = list(sets)
    hashes = []
    for number, path in enumerate(paths):
        minhash = RMinHash(num_perm=request["num_perm"], seed=42)
        minhash.update(list(sets[path]))
        hashes.append(minhash)
        lsh.insert(number, minhash)
    candidates = set()
    for number, minhash in enumerate(hashes):
        for other in lsh.query(minhash):
            if other != number:
                a, b = paths[number], paths[other]
                candidates.add((min(a, b), max(a, b)))
    return candidates


def main() -> None:
    request = json.load(sys.stdin)
    sets = shingle_sets(request["paths"], request["shingle"], request["min_tokens"])
    run = run_datasketch if request["library"] == "datasketch" else run_rensa
    candidates = run(request, sets)
    json.dump(
        {
            "files": len(sets),
            "candidates": len(candidates),
            "pairs": verified(sets, candidates, request["threshold"]),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
